"""Memory per GPU for training and serving (docs/method.md §1).

Every function takes scalars or numpy arrays (broadcast together), so a grid of configurations is one call.
Sizes are in GB = 1e9 bytes; the KV cache per token is also given in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.shipped import SHARDED_FROM_STAGE, STRATEGIES, params_from_architecture  # noqa: F401 (the engine's too)
from planner.engine.values import plain
from planner.method import Constant, Method

GB = 1e9

# Mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020, §3.1), bytes per parameter:
WEIGHT_BYTES = 2  # BF16 weights used in forward and backward
GRADIENT_BYTES = 2  # BF16 gradients
OPTIMIZER_BYTES = 12  # FP32 master weights, momentum and variance: 4 + 4 + 4 = 12 (the paper's K)

# Korthikanti et al. 2022 (arXiv 2205.05198), Table 2, with sequence parallelism and without the
# 5·a·s/h attention-score term that FlashAttention-style kernels do not store: bytes per s·b·h per layer.
ACTIVATION_BYTES_PER_LAYER = 34
CHECKPOINT_BYTES_PER_LAYER = 2  # a checkpointed layer keeps only its BF16 input: 2·s·b·h bytes
KV_TENSORS = 2  # a key and a value per layer, head and position
KV_BYTES_PER_VALUE = 2  # BF16 keys and values


def data_parallel_degree(gpus, tensor_parallel, pipeline_parallel):
    """d = N / (t·p): the number of model replicas the ZeRO stages shard across."""
    return gpus / (tensor_parallel * pipeline_parallel)


def model_parallel_share(params, tensor_parallel, pipeline_parallel):
    """Parameters held by one GPU before any ZeRO sharding: Ψ / (t·p)."""
    return params / (tensor_parallel * pipeline_parallel)


def zero_divisor(zero_stage, sharded_from_stage, data_parallel):
    """d where the ZeRO stage shards this quantity (stage ≥ sharded_from_stage), else 1."""
    return np.where(np.asarray(zero_stage) >= sharded_from_stage, data_parallel, 1)


def weights_gb(params, tensor_parallel, *, pipeline_parallel, data_parallel, zero_stage):
    """2Ψ/(t·p), divided by d under ZeRO-3."""
    share = model_parallel_share(params, tensor_parallel, pipeline_parallel)
    return WEIGHT_BYTES * share / zero_divisor(zero_stage, SHARDED_FROM_STAGE["weights"], data_parallel) / GB


def gradients_gb(params, tensor_parallel, *, pipeline_parallel, data_parallel, zero_stage):
    """2Ψ/(t·p), divided by d under ZeRO-2 and ZeRO-3."""
    share = model_parallel_share(params, tensor_parallel, pipeline_parallel)
    return GRADIENT_BYTES * share / zero_divisor(zero_stage, SHARDED_FROM_STAGE["gradients"], data_parallel) / GB


def optimizer_gb(params, tensor_parallel, *, pipeline_parallel, data_parallel, zero_stage):
    """12Ψ/(t·p), divided by d under ZeRO-1, 2 and 3."""
    share = model_parallel_share(params, tensor_parallel, pipeline_parallel)
    return OPTIMIZER_BYTES * share / zero_divisor(zero_stage, SHARDED_FROM_STAGE["optimizer"], data_parallel) / GB


def layer_activations_gb(sequence_length, micro_batch, *, hidden, tensor_parallel):
    """One layer's stored activations, a = 34·s·b·h / t (Korthikanti et al. 2022, Table 2, first stage)."""
    return ACTIVATION_BYTES_PER_LAYER * sequence_length * micro_batch * hidden / tensor_parallel / GB


def activations_gb(layers, hidden, *, sequence_length, micro_batch, tensor_parallel, checkpointing):
    """Activations on the first pipeline stage.

    Without checkpointing L·a: with 1F1B the first stage holds p micro-batches × L/p layers, so p does not divide it.
    With checkpointing each layer keeps its input, L·2·s·b·h/t, plus one layer being recomputed, a.
    """
    a = layer_activations_gb(sequence_length, micro_batch, hidden=hidden, tensor_parallel=tensor_parallel)
    kept_inputs = layers * CHECKPOINT_BYTES_PER_LAYER * sequence_length * micro_batch * hidden / tensor_parallel / GB
    return np.where(checkpointing, kept_inputs + a, layers * a)


def training_memory_gb(params, layers, *, hidden, gpus, tensor_parallel, pipeline_parallel, zero_stage,
                       sequence_length, micro_batch, checkpointing, capacity_gb) -> dict[str, np.ndarray]:
    """The training rows of docs/method.md §1 for any number of configurations in one call (arguments broadcast
    together): weights, gradients, optimizer state, model state, activations, total, fits and headroom in GB."""
    d = data_parallel_degree(gpus, tensor_parallel, pipeline_parallel)
    weights = weights_gb(params, tensor_parallel, pipeline_parallel=pipeline_parallel, data_parallel=d,
        zero_stage=zero_stage)
    gradients = gradients_gb(params, tensor_parallel, pipeline_parallel=pipeline_parallel, data_parallel=d,
        zero_stage=zero_stage)
    optimizer = optimizer_gb(params, tensor_parallel, pipeline_parallel=pipeline_parallel, data_parallel=d,
        zero_stage=zero_stage)
    activations = activations_gb(layers, hidden, sequence_length=sequence_length, micro_batch=micro_batch,
        tensor_parallel=tensor_parallel, checkpointing=checkpointing)
    state = weights + gradients + optimizer
    total = state + activations
    return {"weights_gb": weights, "gradients_gb": gradients, "optimizer_gb": optimizer, "model_state_gb": state,
            "activations_gb": np.broadcast_to(activations, np.shape(total)), "total_gb": total,
            "fits": total <= capacity_gb, "headroom_gb": capacity_gb - total}


def kv_bytes_per_token(layers, kv_heads, head_dim):
    """2 (K and V) · L · kv_heads · head_dim · 2 bytes: 128, 320 and 504 KiB for Llama 3.1 8B, 70B and 405B."""
    return KV_TENSORS * layers * kv_heads * head_dim * KV_BYTES_PER_VALUE


def serving_kv_gb(users, serving_sequence_length, kv_bytes_per_gpu):
    """u · s_s · KV_g: the KV cache the users hold at their whole sequence, KV_g the Serving table's per GPU."""
    return users * serving_sequence_length * kv_bytes_per_gpu / GB


# The table for one scenario -------------------------------------------------------------------------------
LOOKUPS = ("params", "layers", "hidden", "heads", "kv_heads", "head_dim", "gpu_memory_gb")
SERVING_ROWS = ("serving_weights_gb", "kv_bytes_per_token", "kv_kib_per_token", "serving_kv_gb",
                "serving_total_gb", "serving_capacity_gb", "serving_fits", "serving_headroom_gb")


@dataclass
class MemoryTable:
    """docs/method.md §1 for one scenario: every strategy side by side with the scenario's own, and serving."""

    strategy: str  # the scenario's
    scalars: dict  # the model and GPU looked up, the data-parallel degree, activations (the same for every
    # strategy) and serving
    training: dict  # zero_stage, shards_*, weights_gb … headroom_gb → one value per strategy, then the scenario's

    @property
    def strategies(self) -> list[str]:
        """The strategy columns, in order (the scenario's own follows them)."""
        return list(STRATEGIES)

    @property
    def selected(self) -> dict:
        """The scenario's strategy column."""
        return {key: values[-1] for key, values in self.training.items()}

    @property
    def headline(self) -> dict:
        s, sel = self.scalars, self.selected
        return {
            "memory_weights_gb": sel["weights_gb"], "memory_gradients_gb": sel["gradients_gb"],
            "memory_optimizer_gb": sel["optimizer_gb"], "memory_activations_gb": sel["activations_gb"],
            "memory_training_total_gb": sel["total_gb"], "memory_training_fits": sel["fits"],
            "memory_serving_weights_gb": s["serving_weights_gb"], "memory_serving_kv_gb": s["serving_kv_gb"],
            "memory_serving_total_gb": s["serving_total_gb"], "memory_serving_fits": s["serving_fits"],
        }

    @property
    def checks(self) -> dict[str, bool]:
        s = self.scalars
        return {
            "memory_data_parallel_whole": s["data_parallel"] >= 1 and float(s["data_parallel"]).is_integer(),
            "memory_tensor_parallel_divides_heads": s["heads"] % s["tensor_parallel"] == 0,
            "memory_pipeline_within_layers": s["pipeline_parallel"] <= s["layers"],
        }

    def to_json(self) -> dict:
        names = self.strategies
        return {"scenario_strategy": self.strategy,
                "model_and_gpu": {k: self.scalars[k] for k in LOOKUPS},
                "data_parallel": self.scalars["data_parallel"],
                "training": [{"strategy": name, **{k: v[i] for k, v in self.training.items()}}
                             for i, name in enumerate(names)],
                "serving": {k: self.scalars[k] for k in SERVING_ROWS}}


def compute(scenario, tables) -> MemoryTable:
    model, gpu, m, sv = scenario.chosen_model, scenario.chosen_gpu, scenario.memory, scenario.serving
    t, p = m.tensor_parallel, m.pipeline_parallel
    d = data_parallel_degree(m.gpus, t, p)
    stage = np.array([*STRATEGIES.values(), STRATEGIES[m.strategy]])  # every strategy, then the scenario's
    rows = training_memory_gb(model.params, model.layers, hidden=model.hidden, gpus=m.gpus, tensor_parallel=t,
                              pipeline_parallel=p, zero_stage=stage, sequence_length=m.sequence_length,
                              micro_batch=m.micro_batch, checkpointing=m.activation_checkpointing,
                                  capacity_gb=gpu.memory_gb)
    activations = rows["activations_gb"][-1]
    shards = {f"shards_{what}": stage >= first for what, first in SHARDED_FROM_STAGE.items()}
    training = {"zero_stage": stage, **shards, **rows, "capacity_gb": np.full(len(stage), float(gpu.memory_gb))}

    serving = tables["serving"].scalars  # the Serving table's weights per GPU and KV_g, at its precisions
    kv = serving["kv_bytes_per_token"]
    s_weights = serving["weights_gb"]
    s_kv = serving_kv_gb(sv.users, sv.sequence_length, kv)
    s_total = s_weights + s_kv
    scalars = {
        "params": model.params, "layers": model.layers, "hidden": model.hidden, "heads": model.heads,
        "kv_heads": model.kv_heads, "head_dim": model.head_dim, "gpu_memory_gb": gpu.memory_gb,
        "tensor_parallel": t, "pipeline_parallel": p, "serving_tensor_parallel": sv.tensor_parallel,
        "data_parallel": d, "params_per_gpu": model_parallel_share(model.params, t, p),
        "layer_activations_gb": layer_activations_gb(m.sequence_length, m.micro_batch, hidden=model.hidden,
            tensor_parallel=t),
        "stage_activations_gb": activations,
        "serving_weights_gb": s_weights, "kv_bytes_per_token": kv, "kv_kib_per_token": kv / 1024,
        "serving_kv_gb": s_kv, "serving_total_gb": s_total, "serving_capacity_gb": gpu.memory_gb,
        "serving_fits": s_total <= gpu.memory_gb, "serving_headroom_gb": gpu.memory_gb - s_total,
    }
    return MemoryTable(m.strategy, {k: plain(v) for k, v in scalars.items()},
                       {k: [plain(x) for x in v] for k, v in training.items()})


CONSTANTS = [
    Constant("weight_bytes_per_param", WEIGHT_BYTES, label="Bytes per weight", unit="bytes",
             source="BF16 weights used in forward and backward (ZeRO paper, §3.1)"),
    Constant("gradient_bytes_per_param", GRADIENT_BYTES, label="Bytes per gradient", unit="bytes",
        source="BF16 gradients (ZeRO paper)"),
    Constant("optimizer_bytes_per_param", OPTIMIZER_BYTES, label="Bytes of Adam state per parameter", unit="bytes",
             source="FP32 master weights, momentum and variance: 4 + 4 + 4 (ZeRO paper's K = 12)"),
    Constant("activation_bytes_per_layer", ACTIVATION_BYTES_PER_LAYER, label="Activation bytes per s·b·h per layer",
             unit="bytes",
                 source="Korthikanti et al. 2022, Table 2, without the attention scores FlashAttention does not store"),
    Constant("checkpoint_bytes_per_layer", CHECKPOINT_BYTES_PER_LAYER, label="Bytes per s·b·h per checkpointed layer",
             unit="bytes", source="A checkpointed layer keeps only its BF16 input (Korthikanti et al. 2022)"),
    Constant("kv_tensors_per_layer", KV_TENSORS, label="KV-cache tensors per layer", unit="tensors",
        source="A key and a value"),
    Constant("kv_bytes_per_value", KV_BYTES_PER_VALUE, label="Bytes per KV-cache value", unit="bytes",
        source="BF16 keys and values"),
]

METHOD = Method(
    title="Memory per GPU",
    formulas=[
        "Data-parallel degree d = N / (t·p), where N is the GPUs the model state is sharded over; it must be a "
        "whole number.",
        "Weights 2Ψ/(t·p), gradients 2Ψ/(t·p), Adam optimizer state 12Ψ/(t·p) bytes per GPU (mixed-precision "
        "Adam: BF16 weights and gradients, FP32 master weights, momentum and variance, 4 + 4 + 4 = 12 bytes). "
        "ZeRO-1 divides the optimizer state by d, ZeRO-2 also the gradients, ZeRO-3 (FSDP) also the weights.",
        "Activations per layer a = 34·s·b·h / t bytes; without checkpointing L·a; with checkpointing "
        "L·2·s·b·h/t + a (each layer's input kept, plus one layer being recomputed).",
        "Pipeline parallelism divides the model state but not the activations: with a 1F1B schedule the first "
        "stage holds p micro-batches in flight × L/p layers, about one full set.",
        "Serving: weights 2Ψ/t_s; KV cache per token 2·L·kv_heads·head_dim·2 bytes (K and V in BF16); KV cache "
        "u·s_s·(KV per token)/t_s. It fits when the total is at most the GPU's memory.",
    ],
    sources=[
        "Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion Parameter Models "
        "(arXiv 1910.02054), §3 and §5.",
        "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models (arXiv 2205.05198), "
        "Table 2, without the attention-score term (5·a·s/h) that FlashAttention does not store.",
        "Meta, Llama 3.1 model cards: layer counts, hidden sizes, heads and KV heads.",
    ],
    caveats=[
        "Estimates are illustrative. Real frameworks add communication buffers, temporary tensors and allocator "
        "fragmentation, often several GB per GPU.",
        "Sequence parallelism is assumed with tensor parallelism; without it activations are not all divided by t.",
    ],
)
