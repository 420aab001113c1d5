"""Memory per GPU for training and serving (docs/method.md §1).

Every function takes scalars or numpy arrays (broadcast together), so a grid of configurations is one call.
Sizes are in GB = 1e9 bytes; the KV cache per token is also given in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.engine.catalog_columns import model_columns
from planner.engine.values import plain
from planner.method import Constant, Method
from planner.model import counts, fields, state
from planner.model.state import (FP8_WEIGHT_COPY_BYTES, GRADIENT_BYTES, OPTIMIZER_BYTES,
                                 WEIGHT_BYTES, zero_divisor)
from planner.shipped import SHARDED_FROM_STAGE, STRATEGIES

GB = 1e9

# Activations of one MoE layer, bytes per token (llm-analysis's form, docs/method.md §7), all divided by t:
MOE_ATTENTION_BYTES = 18  # 18·h: attention block and norms, Korthikanti's 34·h less the dense MLP's 16·h
MOE_ROUTED_TOKEN_BYTES = 2  # 2·h per chosen expert: the permuted BF16 copy of the token sent to it
SWIGLU_TENSOR_BYTES = 6  # 6·F per expert a token passes through: SwiGLU's three tensors of F, 2 bytes each
ROUTER_LOGIT_BYTES = 4  # 4·E: the router's FP32 logits


def data_parallel_degree(gpus, tensor_parallel, pipeline_parallel):
    """d = N / (t·p): the number of model replicas the ZeRO stages shard across."""
    return gpus / (tensor_parallel * pipeline_parallel)


def layer_activations_gb(sequence_length, micro_batch, *, hidden, tensor_parallel):
    """One layer's stored activations, a = 34·s·b·h / t (Korthikanti et al. 2022, Table 2, first stage)."""
    return sequence_length * micro_batch * state.layer_activation_bytes_per_token(hidden, tensor_parallel) / GB


# Training memory, dense or with expert parallelism (docs/method.md §1, §7) -----------------------------------
def expert_data_parallel_degree(gpus, pipeline_parallel, expert_parallel):
    """d_e = N / (p·e): the replicas of each expert, which ZeRO shards expert state over (not d: the EleutherAI
    calculator's bug)."""
    return gpus / (pipeline_parallel * expert_parallel)


def non_expert_params_per_gpu(params, routed, tensor_parallel, pipeline_parallel):
    """(Ψ − Ψ_routed) / (t·p): attention, embeddings, norms, routers and shared experts held by one GPU."""
    return (params - routed) / (tensor_parallel * pipeline_parallel)


def expert_params_per_gpu(routed, pipeline_parallel, expert_parallel):
    """Ψ_routed / (p·e): the routed experts held by one GPU."""
    return routed / (pipeline_parallel * expert_parallel)


@dataclass(frozen=True)
class Held:
    """What one GPU holds of the model and the replicas the ZeRO stages may shard it over (scalars or arrays)."""

    non_expert: object  # (Ψ − Ψ_routed) / (t·p) parameters
    expert: object  # Ψ_routed / (p·e) parameters
    data_parallel: object  # d
    expert_data_parallel: object  # d_e
    zero_stage: object


def _state_gb(bytes_per_param, sharded_from_stage, held: Held):
    """bytes·(non-expert / d + expert / d_e) in GB, each divided only where the ZeRO stage shards this quantity."""
    z = held.zero_stage
    return bytes_per_param * (held.non_expert / zero_divisor(z, sharded_from_stage, held.data_parallel)
                              + held.expert / zero_divisor(z, sharded_from_stage, held.expert_data_parallel)) / GB


def weights_gb(held: Held):
    """2 bytes per BF16 weight, divided by d (non-expert) and d_e (expert) under ZeRO-3 (ZeRO paper)."""
    return _state_gb(WEIGHT_BYTES, SHARDED_FROM_STAGE["weights"], held)


def fp8_weight_copy_gb(held: Held):
    """1 byte per parameter for the FP8 copy Transformer Engine keeps, sharded as the weights are (÷ d under ZeRO-3)."""
    return _state_gb(FP8_WEIGHT_COPY_BYTES, SHARDED_FROM_STAGE["weights"], held)


def gradients_gb(held: Held):
    """2 bytes per BF16 gradient, divided by d and d_e under ZeRO-2 and ZeRO-3 (ZeRO paper)."""
    return _state_gb(GRADIENT_BYTES, SHARDED_FROM_STAGE["gradients"], held)


def optimizer_gb(held: Held):
    """12 bytes of Adam state per parameter (FP32 master weights, momentum, variance: 4 + 4 + 4), divided by d and
    d_e under ZeRO-1, 2 and 3 (ZeRO paper's K = 12)."""
    return _state_gb(OPTIMIZER_BYTES, SHARDED_FROM_STAGE["optimizer"], held)


def moe_layer_activations_gb(sequence_length, micro_batch, hidden, experts, experts_per_token, expert_ffn,
                             shared_expert_ffn, tensor_parallel):
    """s·b·(18·h + 6·F_s + k·(2·h + 6·F_e) + 4·E)/t: one MoE layer's stored activations (llm-analysis's form)."""
    per_token = (MOE_ATTENTION_BYTES * hidden + SWIGLU_TENSOR_BYTES * shared_expert_ffn
                 + experts_per_token * (MOE_ROUTED_TOKEN_BYTES * hidden + SWIGLU_TENSOR_BYTES * expert_ffn)
                 + ROUTER_LOGIT_BYTES * experts)
    return sequence_length * micro_batch * per_token / tensor_parallel / GB


def moe_activations_gb(layers, moe_layers, hidden, experts, experts_per_token, expert_ffn, shared_expert_ffn,
                       sequence_length, micro_batch, tensor_parallel, checkpointing):
    """First-stage activations: L_d·34·s·b·h/t + L_moe·(one MoE layer); with checkpointing L·2·s·b·h/t plus the
    largest layer being recomputed (Korthikanti et al. 2022 for the dense layers and the kept inputs)."""
    dense = layer_activations_gb(sequence_length, micro_batch, hidden=hidden, tensor_parallel=tensor_parallel)
    moe = moe_layer_activations_gb(sequence_length, micro_batch, hidden=hidden, experts=experts,
                                   experts_per_token=experts_per_token, expert_ffn=expert_ffn,
                                   shared_expert_ffn=shared_expert_ffn, tensor_parallel=tensor_parallel)
    dense_layers = layers - moe_layers
    kept_inputs = (layers * sequence_length * micro_batch * state.checkpointed_bytes_per_token(hidden, tensor_parallel)
                   / GB)
    largest = np.maximum(np.where(np.asarray(dense_layers) > 0, dense, 0), np.where(np.asarray(moe_layers) > 0, moe, 0))
    return np.where(checkpointing, kept_inputs + largest, dense_layers * dense + moe_layers * moe)


def training_memory_gb(*, params, layers, hidden, gpus, tensor_parallel, pipeline_parallel, zero_stage, sequence_length,
                       micro_batch, checkpointing, capacity_gb, routed=0, moe_layers=0, experts=0, experts_per_token=0,
                       expert_ffn=0, shared_expert_ffn=0, expert_parallel=1, fp8=False) -> dict:
    """The training rows of docs/method.md §1 and §7 for any number of configurations in one call (arguments
    broadcast together), in GB: weights, the FP8 weight copy (with `fp8`), gradients, optimizer state, model state,
    activations, total, fits and headroom. A dense model (routed = 0, moe_layers = 0) gives §1's rows; a mixture of
    experts shards its routed experts over expert parallelism e and their ZeRO state over d_e."""
    d = data_parallel_degree(gpus, tensor_parallel, pipeline_parallel)
    d_e = expert_data_parallel_degree(gpus, pipeline_parallel, expert_parallel)
    non_expert = non_expert_params_per_gpu(params, routed, tensor_parallel, pipeline_parallel)
    expert = expert_params_per_gpu(routed, pipeline_parallel, expert_parallel)
    held = Held(non_expert=non_expert, expert=expert, data_parallel=d, expert_data_parallel=d_e,
                zero_stage=zero_stage)
    weights = weights_gb(held)
    fp8_copy = np.where(fp8, fp8_weight_copy_gb(held), 0.0)
    gradients = gradients_gb(held)
    optimizer = optimizer_gb(held)
    activations = moe_activations_gb(layers, moe_layers, hidden=hidden, experts=experts,
                                     experts_per_token=experts_per_token, expert_ffn=expert_ffn,
                                     shared_expert_ffn=shared_expert_ffn, sequence_length=sequence_length,
                                     micro_batch=micro_batch, tensor_parallel=tensor_parallel,
                                     checkpointing=checkpointing)
    state = weights + fp8_copy + gradients + optimizer
    total = state + activations
    return {"data_parallel": d, "expert_data_parallel": d_e, "non_expert_params_per_gpu": non_expert,
            "expert_params_per_gpu": expert, "weights_gb": weights, "fp8_weight_copy_gb": fp8_copy,
            "gradients_gb": gradients, "optimizer_gb": optimizer, "model_state_gb": state,
            "activations_gb": np.broadcast_to(activations, np.shape(total)), "total_gb": total,
            "fits": total <= capacity_gb, "headroom_gb": capacity_gb - total}


def serving_kv_gb(users, serving_sequence_length, kv_bytes_per_gpu):
    """u · s_s · KV_g: the KV cache the users hold at their whole sequence, KV_g the Serving table's per GPU."""
    return users * serving_sequence_length * kv_bytes_per_gpu / GB


# The table for one scenario -------------------------------------------------------------------------------
MODEL_LOOKUPS = tuple(f.key for f in fields.MODEL if f.key not in ("params", "moe_layers", "reported_h100_hours"))
LOOKUPS = ("params", *MODEL_LOOKUPS, "attention_params", "moe_layer_count", "active_params", "routed_params",
           "gpu_memory_gb")
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
            "model_active_params": s["active_params"],
        }

    @property
    def checks(self) -> dict[str, bool]:
        s = self.scalars
        return {
            "memory_data_parallel_whole": s["data_parallel"] >= 1 and float(s["data_parallel"]).is_integer(),
            "memory_tensor_parallel_divides_heads": s["heads"] % s["tensor_parallel"] == 0,
            "memory_pipeline_within_layers": s["pipeline_parallel"] <= s["layers"],
            "memory_expert_parallel_divides": s["expert_parallel_fits"],
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
    columns = model_columns(model)
    t, p, e = m.tensor_parallel, m.pipeline_parallel, m.expert_parallel
    fp8 = scenario.training_precision == "fp8"
    stage = np.array([*STRATEGIES.values(), STRATEGIES[m.strategy]])  # every strategy, then the scenario's
    moe = {"routed": columns["routed_params"], "moe_layers": columns["moe_layer_count"], "experts": model.experts,
           "experts_per_token": model.experts_per_token, "expert_ffn": model.expert_ffn,
           "shared_expert_ffn": model.shared_expert_ffn}
    rows = training_memory_gb(params=model.params, layers=model.layers, hidden=model.hidden, gpus=m.gpus,
                              tensor_parallel=t, pipeline_parallel=p, zero_stage=stage,
                              sequence_length=m.sequence_length, micro_batch=m.micro_batch,
                              checkpointing=m.activation_checkpointing, capacity_gb=gpu.memory_gb, expert_parallel=e,
                              fp8=fp8, **moe)
    shared = {key: rows.pop(key) for key in ("data_parallel", "expert_data_parallel", "non_expert_params_per_gpu",
                                             "expert_params_per_gpu")}
    activations = rows["activations_gb"][-1]
    shards = {f"shards_{what}": stage >= first for what, first in SHARDED_FROM_STAGE.items()}
    training = {"zero_stage": stage, **shards, **rows, "capacity_gb": np.full(len(stage), float(gpu.memory_gb))}

    serving = tables["serving"].scalars  # the Serving table's weights per GPU and KV_g, at its precisions
    kv = serving["kv_bytes_held_per_token"]  # the draft's beside the model's, with speculative decoding
    s_weights = serving["weights_gb"]
    s_kv = serving_kv_gb(serving["rank_sequences"], sv.sequence_length, kv)  # the busiest rank's users (§14.5)
    s_total = s_weights + s_kv
    lookups = {key: getattr(model, key) for key in MODEL_LOOKUPS}
    scalars = {
        "params": model.params, **lookups, "active_params": columns["active_params"],
        "routed_params": columns["routed_params"], "moe_layer_count": columns["moe_layer_count"],
        "attention_params": columns["attention_params"],
        "gpu_memory_gb": gpu.memory_gb, "tensor_parallel": t, "pipeline_parallel": p, "expert_parallel": e,
        "serving_tensor_parallel": sv.tensor_parallel, "training_fp8": fp8,
        **{key: np.asarray(value).flat[-1] for key, value in shared.items()},
        "layer_activations_gb": layer_activations_gb(m.sequence_length, m.micro_batch, hidden=model.hidden,
                                                     tensor_parallel=t),
        "moe_layer_activations_gb": moe_layer_activations_gb(
            m.sequence_length, m.micro_batch, hidden=model.hidden, experts=model.experts,
            experts_per_token=model.experts_per_token, expert_ffn=model.expert_ffn,
            shared_expert_ffn=model.shared_expert_ffn, tensor_parallel=t) if model.experts else 0.0,
        "stage_activations_gb": activations,
        "serving_weights_gb": s_weights, "kv_bytes_per_token": kv, "kv_kib_per_token": kv / 1024,
        "serving_kv_gb": s_kv, "serving_total_gb": s_total, "serving_capacity_gb": gpu.memory_gb,
        "serving_fits": s_total <= gpu.memory_gb, "serving_headroom_gb": gpu.memory_gb - s_total,
        "expert_parallel_fits": (m.gpus // p) % e == 0 and (model.experts % e == 0 if model.experts else e == 1),
    }
    return MemoryTable(m.strategy, {k: plain(v) for k, v in scalars.items()},
                       {k: [plain(x) for x in v] for k, v in training.items()})


CONSTANTS = [
    *state.CONSTANTS,
    Constant("moe_attention_bytes", MOE_ATTENTION_BYTES, label="MoE layer: activation bytes per s·b·h outside the "
             "experts", unit="bytes", source="Korthikanti's 34·h less the dense MLP's 16·h (llm-analysis)"),
    Constant("moe_routed_token_bytes", MOE_ROUTED_TOKEN_BYTES, label="MoE layer: bytes per h per routed token",
             unit="bytes", source="The permuted BF16 copy of each token sent to an expert"),
    Constant("swiglu_tensor_bytes", SWIGLU_TENSOR_BYTES, label="MoE layer: bytes per F per expert a token passes",
             unit="bytes", source="SwiGLU's three tensors of F, 2 bytes each"),
    Constant("router_logit_bytes", ROUTER_LOGIT_BYTES, label="MoE layer: bytes per expert per token (router)",
             unit="bytes", source="The router's FP32 logits"),
    *counts.CONSTANTS,
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
