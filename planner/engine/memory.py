"""Memory per GPU for training and serving (METHOD.md §1).

Every function takes scalars or numpy arrays (broadcast together), so a grid of configurations is one call.
Sizes are in GB = 1e9 bytes; the KV cache per token is also given in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner.catalog import STRATEGIES
from planner.engine.values import plain

GB = 1e9

# Mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020, §3.1), bytes per parameter:
WEIGHT_BYTES = 2  # BF16 weights used in forward and backward
GRADIENT_BYTES = 2  # BF16 gradients
OPTIMIZER_BYTES = 12  # FP32 master weights, momentum and variance: 4 + 4 + 4 = 12 (the paper's K)

# Korthikanti et al. 2022 (arXiv 2205.05198), Table 2, with sequence parallelism and without the
# 5·a·s/h attention-score term that FlashAttention-style kernels do not store: bytes per s·b·h per layer.
ACTIVATION_BYTES_PER_LAYER = 34
CHECKPOINT_BYTES_PER_LAYER = 2  # a checkpointed layer keeps only its BF16 input: 2·s·b·h bytes
KV_BYTES_PER_VALUE = 2  # BF16 keys and values


def params_from_architecture(vocab, hidden, layers, kv_heads, head_dim, ffn):
    """Ψ = 2·V·h + L·(2·h·h + 2·h·kv·hd + 3·h·ffn + 2·h) + h.

    Untied input and output embeddings (2·V·h); per layer the query and output projections (2·h·h), the key and
    value projections (2·h·kv·hd), SwiGLU's three matrices (3·h·ffn) and two RMSNorm weights (2·h); a final norm (h).
    """
    per_layer = 2 * hidden * hidden + 2 * hidden * kv_heads * head_dim + 3 * hidden * ffn + 2 * hidden
    return 2 * vocab * hidden + layers * per_layer + hidden


def data_parallel_degree(gpus, tensor_parallel, pipeline_parallel):
    """d = N / (t·p): the number of model replicas the ZeRO stages shard across."""
    return gpus / (tensor_parallel * pipeline_parallel)


def model_parallel_share(params, tensor_parallel, pipeline_parallel):
    """Parameters held by one GPU before any ZeRO sharding: Ψ / (t·p)."""
    return params / (tensor_parallel * pipeline_parallel)


def zero_divisor(zero_stage, sharded_from_stage, data_parallel):
    """d where the ZeRO stage shards this quantity (stage ≥ sharded_from_stage), else 1."""
    return np.where(np.asarray(zero_stage) >= sharded_from_stage, data_parallel, 1)


def weights_gb(params, tensor_parallel, pipeline_parallel, data_parallel, zero_stage):
    """2Ψ/(t·p), divided by d under ZeRO-3."""
    share = model_parallel_share(params, tensor_parallel, pipeline_parallel)
    return WEIGHT_BYTES * share / zero_divisor(zero_stage, 3, data_parallel) / GB


def gradients_gb(params, tensor_parallel, pipeline_parallel, data_parallel, zero_stage):
    """2Ψ/(t·p), divided by d under ZeRO-2 and ZeRO-3."""
    share = model_parallel_share(params, tensor_parallel, pipeline_parallel)
    return GRADIENT_BYTES * share / zero_divisor(zero_stage, 2, data_parallel) / GB


def optimizer_gb(params, tensor_parallel, pipeline_parallel, data_parallel, zero_stage):
    """12Ψ/(t·p), divided by d under ZeRO-1, 2 and 3."""
    share = model_parallel_share(params, tensor_parallel, pipeline_parallel)
    return OPTIMIZER_BYTES * share / zero_divisor(zero_stage, 1, data_parallel) / GB


def layer_activations_gb(sequence_length, micro_batch, hidden, tensor_parallel):
    """One layer's stored activations, a = 34·s·b·h / t (Korthikanti et al. 2022, Table 2, first stage)."""
    return ACTIVATION_BYTES_PER_LAYER * sequence_length * micro_batch * hidden / tensor_parallel / GB


def activations_gb(layers, hidden, sequence_length, micro_batch, tensor_parallel, checkpointing):
    """Activations on the first pipeline stage.

    Without checkpointing L·a: with 1F1B the first stage holds p micro-batches × L/p layers, so p does not divide it.
    With checkpointing each layer keeps its input, L·2·s·b·h/t, plus one layer being recomputed, a.
    """
    a = layer_activations_gb(sequence_length, micro_batch, hidden, tensor_parallel)
    kept_inputs = layers * CHECKPOINT_BYTES_PER_LAYER * sequence_length * micro_batch * hidden / tensor_parallel / GB
    return np.where(checkpointing, kept_inputs + a, layers * a)


def kv_bytes_per_token(layers, kv_heads, head_dim):
    """2 (K and V) · L · kv_heads · head_dim · 2 bytes: 128, 320 and 504 KiB for Llama 3.1 8B, 70B and 405B."""
    return 2 * layers * kv_heads * head_dim * KV_BYTES_PER_VALUE


def serving_weights_gb(params, serving_tensor_parallel):
    """2Ψ / t_s."""
    return WEIGHT_BYTES * params / serving_tensor_parallel / GB


def serving_kv_gb(users, serving_sequence_length, kv_bytes, serving_tensor_parallel):
    """u · s_s · KV bytes per token / t_s."""
    return users * serving_sequence_length * kv_bytes / serving_tensor_parallel / GB


# The table for one scenario -------------------------------------------------------------------------------
TRAINING_ROWS = ("zero_stage", "weights_gb", "gradients_gb", "optimizer_gb", "model_state_gb", "activations_gb",
                 "total_gb", "capacity_gb", "fits", "headroom_gb")


@dataclass
class MemoryTable:
    """METHOD.md §1 for one scenario: every strategy side by side, the scenario's own selected, and serving."""

    strategy: str
    scalars: dict[str, float]  # model and GPU looked up, data-parallel degree, one layer's activations, serving
    strategies: pd.DataFrame  # rows TRAINING_ROWS, one column per strategy
    selected: pd.Series  # the scenario's strategy column

    @property
    def headline(self) -> dict:
        s, sel = self.scalars, self.selected
        return {
            "memory_weights_gb": sel["weights_gb"],
            "memory_gradients_gb": sel["gradients_gb"],
            "memory_optimizer_gb": sel["optimizer_gb"],
            "memory_activations_gb": sel["activations_gb"],
            "memory_training_total_gb": sel["total_gb"],
            "memory_training_fits": sel["fits"],
            "memory_serving_weights_gb": s["serving_weights_gb"],
            "memory_serving_kv_gb": s["serving_kv_gb"],
            "memory_serving_total_gb": s["serving_total_gb"],
            "memory_serving_fits": s["serving_fits"],
        }

    @property
    def checks(self) -> dict[str, bool]:
        d, sel, s = self.scalars["data_parallel"], self.selected, self.scalars
        return {
            "memory_data_parallel_whole": bool(d >= 1 and float(d).is_integer()),
            "memory_training_adds_up": bool(np.isclose(sel["total_gb"], sel["weights_gb"] + sel["gradients_gb"]
                                                       + sel["optimizer_gb"] + sel["activations_gb"], rtol=1e-9)),
            "memory_serving_adds_up": bool(np.isclose(s["serving_total_gb"],
                                                      s["serving_weights_gb"] + s["serving_kv_gb"], rtol=1e-9)),
        }

    def to_json(self) -> dict:
        training = self.strategies.T.reset_index(names="strategy")
        return {"scenario_strategy": self.strategy, "model_and_gpu": self.scalars_of(LOOKUPS),
                "training": training.to_dict(orient="records"), "serving": self.scalars_of(SERVING_ROWS)}

    def scalars_of(self, keys) -> dict:
        return {k: self.scalars[k] for k in keys}


LOOKUPS = ("params", "layers", "hidden", "kv_heads", "head_dim", "gpu_memory_gb")
SERVING_ROWS = ("serving_weights_gb", "kv_bytes_per_token", "kv_kib_per_token", "serving_kv_gb", "serving_total_gb",
                "serving_fits", "serving_headroom_gb")


def memory_table(scenario) -> MemoryTable:
    model, gpu, m, sv = scenario.model_spec(), scenario.gpu_spec(), scenario.memory, scenario.serving
    t, p = m.tensor_parallel, m.pipeline_parallel
    d = data_parallel_degree(m.gpus, t, p)
    stage = np.array(list(STRATEGIES.values()))
    weights = weights_gb(model.params, t, p, d, stage)
    gradients = gradients_gb(model.params, t, p, d, stage)
    optimizer = optimizer_gb(model.params, t, p, d, stage)
    activations = activations_gb(model.layers, model.hidden, m.sequence_length, m.micro_batch, t,
                                 m.activation_checkpointing) * np.ones_like(weights)
    state = weights + gradients + optimizer
    total = state + activations
    strategies = pd.DataFrame(
        [stage, weights, gradients, optimizer, state, activations, total, np.full_like(total, gpu.memory_gb),
         total <= gpu.memory_gb, gpu.memory_gb - total],
        index=list(TRAINING_ROWS), columns=list(STRATEGIES), dtype=object)

    kv = kv_bytes_per_token(model.layers, model.kv_heads, model.head_dim)
    s_weights = serving_weights_gb(model.params, sv.tensor_parallel)
    s_kv = serving_kv_gb(sv.users, sv.sequence_length, kv, sv.tensor_parallel)
    s_total = s_weights + s_kv
    scalars = {
        "params": model.params, "layers": model.layers, "hidden": model.hidden, "kv_heads": model.kv_heads,
        "head_dim": model.head_dim, "gpu_memory_gb": gpu.memory_gb, "data_parallel": d,
        "layer_activations_gb": layer_activations_gb(m.sequence_length, m.micro_batch, model.hidden, t),
        "serving_weights_gb": s_weights, "kv_bytes_per_token": kv, "kv_kib_per_token": kv / 1024,
        "serving_kv_gb": s_kv, "serving_total_gb": s_total, "serving_fits": s_total <= gpu.memory_gb,
        "serving_headroom_gb": gpu.memory_gb - s_total,
    }
    scalars = {k: plain(v) for k, v in scalars.items()}
    strategies = strategies.map(plain)
    return MemoryTable(m.strategy, scalars, strategies, strategies[m.strategy])


def model_catalog(scenario) -> pd.DataFrame:
    """The models the workbook's Catalog lists (the shipped ones and the scenario's own), with Ψ from the
    architecture and the KV cache per token derived from their columns."""
    table = pd.DataFrame([vars(m) for m in scenario.models()]).set_index("id")
    table["params_from_architecture"] = params_from_architecture(
        table.vocab, table.hidden, table.layers, table.kv_heads, table.head_dim, table.ffn)
    table["kv_kib_per_token"] = kv_bytes_per_token(table.layers, table.kv_heads, table.head_dim) / 1024
    return table
