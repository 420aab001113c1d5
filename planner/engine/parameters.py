"""Parameter counts, KV cache per token and training memory for dense, mixture-of-experts and MLA models
(docs/method.md §7).

Every function takes scalars or numpy arrays (broadcast together). Whole-number scalars stay Python ints, so a count
is exact however large; arrays follow numpy's rules (pass floats for sizes beyond int64). Model arguments are named
as the Catalog's model fields, so `total_params(**model)` works on a config.json reading (planner.model_config).
No biases are counted: they are below 0.1 % of every model here. Sizes in GB are 1e9 bytes.
"""

from __future__ import annotations

import numpy as np

from planner.engine.memory import (CHECKPOINT_BYTES_PER_LAYER, GB, GRADIENT_BYTES, KV_BYTES_PER_VALUE, KV_TENSORS,
                                   OPTIMIZER_BYTES, SHARDED_FROM_STAGE, WEIGHT_BYTES, data_parallel_degree,
                                   layer_activations_gb, zero_divisor)

GATED_MATRICES = 3  # SwiGLU: gate, up and down projections, 3·h·F
UNGATED_MATRICES = 2  # GeLU: up and down projections, 2·h·F
NORMS_PER_LAYER = 2  # two RMSNorm weight vectors of h per layer (before attention, before the FFN)
FP8_WEIGHT_COPY_BYTES = 1  # Transformer Engine keeps an FP8 copy of each weight beside the BF16 one
# Activations of one MoE layer, bytes per token (llm-analysis's form, docs/method.md §7), all divided by t:
MOE_ATTENTION_BYTES = 18  # 18·h: attention block and norms, Korthikanti's 34·h less the dense MLP's 16·h
MOE_ROUTED_TOKEN_BYTES = 2  # 2·h per chosen expert: the permuted BF16 copy of the token sent to it
SWIGLU_TENSOR_BYTES = 6  # 6·F per expert a token passes through: SwiGLU's three tensors of F, 2 bytes each
ROUTER_LOGIT_BYTES = 4  # 4·E: the router's FP32 logits


def _where(condition, if_true, if_false):
    """np.where, but a scalar condition picks a scalar branch, so Python ints stay exact."""
    if np.ndim(condition) == 0 and np.ndim(if_true) == 0 and np.ndim(if_false) == 0:
        return if_true if bool(condition) else if_false
    return np.where(condition, if_true, if_false)


def ffn_matrices(gated):
    """3 weight matrices per FFN for SwiGLU (gated), 2 for GeLU."""
    return _where(gated, GATED_MATRICES, UNGATED_MATRICES)


# Attention ---------------------------------------------------------------------------------------------------
def gqa_attention_params(hidden, heads, kv_heads, head_dim):
    """2·h·a·hd + 2·h·kv·hd: query and output projections, key and value projections (grouped-query attention)."""
    return 2 * hidden * heads * head_dim + 2 * hidden * kv_heads * head_dim


def mla_attention_params(hidden, heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim):
    """Multi-head latent attention, Megatron theoretical_memory_usage's terms: the query path (low-rank when r_q > 0,
    with its norm r_q), the shared KV down-projection h·(r_kv + rope) and its norm r_kv, the K/V up-projection
    r_kv·a·(nope + v) and the output projection a·v·h."""
    qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
    query = _where(np.asarray(q_lora_rank) > 0,
                   hidden * q_lora_rank + q_lora_rank + q_lora_rank * heads * qk_head_dim,
                   hidden * heads * qk_head_dim)
    return (query + hidden * (kv_lora_rank + qk_rope_head_dim) + kv_lora_rank
            + kv_lora_rank * heads * (qk_nope_head_dim + v_head_dim) + heads * v_head_dim * hidden)


def attention_params(hidden, heads, kv_heads, head_dim, kv_lora_rank=0, q_lora_rank=0, qk_nope_head_dim=0,
                     qk_rope_head_dim=0, v_head_dim=0):
    """Attention parameters per layer A: MLA when kv_lora_rank > 0 (DeepSeek), else grouped-query attention."""
    return _where(np.asarray(kv_lora_rank) > 0,
                  mla_attention_params(hidden, heads, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim,
                                       v_head_dim),
                  gqa_attention_params(hidden, heads, kv_heads, head_dim))


# Layers ------------------------------------------------------------------------------------------------------
def dense_layer_params(attention, hidden, ffn, gated=True):
    """A + 3·h·F_d + 2·h (SwiGLU; 2·h·F_d for GeLU) with two norm vectors (docs/method.md §7)."""
    return attention + ffn_matrices(gated) * hidden * ffn + NORMS_PER_LAYER * hidden


def moe_layer_params(attention, hidden, experts, expert_ffn, shared_expert_ffn=0, gated=True, experts_counted=None):
    """A + E·3·h·F_e + h·E (router) + 3·h·F_s + 2·h; `experts_counted` replaces E in E·3·h·F_e (k for Ψ_active)."""
    counted = experts if experts_counted is None else experts_counted
    matrices = ffn_matrices(gated)
    return (attention + counted * matrices * hidden * expert_ffn + hidden * experts
            + matrices * hidden * shared_expert_ffn + NORMS_PER_LAYER * hidden)


def moe_layer_count(layers, experts, moe_layers=None):
    """L_moe: the MoE layers, every layer when not given and E > 0, none for a dense model (E = 0)."""
    return _where(np.asarray(experts) > 0, layers if moe_layers is None else moe_layers, 0)


def embedding_params(vocab, hidden, tied_embeddings=False):
    """V·h·(2 − tied): the input embedding and, unless tied to it, the output projection."""
    return vocab * hidden * _where(tied_embeddings, 1, 2)


def _params(*, layers, hidden, heads, kv_heads, head_dim, ffn, vocab, tied_embeddings=False, gated=True, experts=0,
            experts_per_token=0, expert_ffn=0, shared_expert_ffn=0, moe_layers=None, kv_lora_rank=0, q_lora_rank=0,
            qk_nope_head_dim=0, qk_rope_head_dim=0, v_head_dim=0, active=False):
    attention = attention_params(hidden, heads, kv_heads, head_dim, kv_lora_rank, q_lora_rank, qk_nope_head_dim,
                                 qk_rope_head_dim, v_head_dim)
    n_moe = moe_layer_count(layers, experts, moe_layers)
    moe = moe_layer_params(attention, hidden, experts, expert_ffn, shared_expert_ffn, gated,
                           experts_per_token if active else None)
    return (embedding_params(vocab, hidden, tied_embeddings) + hidden
            + (layers - n_moe) * dense_layer_params(attention, hidden, ffn, gated) + n_moe * moe)


def total_params(**model):
    """Ψ = V·h·(2 − tied) + h + L_d·dense + L_moe·MoE (docs/method.md §7; for a dense model §Catalog's formula).

    Keywords are the Catalog's model fields: layers, hidden, heads, kv_heads, head_dim, ffn, vocab, and optionally
    tied_embeddings, gated, experts, experts_per_token, expert_ffn, shared_expert_ffn, moe_layers, kv_lora_rank,
    q_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim."""
    return _params(**model)


def active_params(**model):
    """Ψ_active: Ψ with E·3·h·F_e replaced by k·3·h·F_e (the router and shared experts stay); Ψ for a dense model."""
    return _params(**model, active=True)


def routed_params(*, layers, hidden, experts=0, expert_ffn=0, moe_layers=None, gated=True, **_other_fields):
    """Ψ_routed = L_moe·E·3·h·F_e: the routed experts, the only part expert parallelism shards."""
    return moe_layer_count(layers, experts, moe_layers) * experts * ffn_matrices(gated) * hidden * expert_ffn


def matmul_params(active, vocab, hidden):
    """Ψ_mm = Ψ_active − V·h: the parameters a token multiplies (the input embedding is a lookup; docs/method.md §6)."""
    return active - vocab * hidden


# Serving -----------------------------------------------------------------------------------------------------
def expected_distinct_experts(experts, experts_per_token, tokens):
    """E·(1 − (1 − k/E)^n): distinct experts n tokens touch in one MoE layer, each choosing k of E uniformly."""
    experts_safe = _where(np.asarray(experts) > 0, experts, 1)
    touched = experts * (1 - (1 - experts_per_token / experts_safe) ** tokens)
    return _where(np.asarray(experts) > 0, touched, 0)


def streamed_params(matmul, hidden, experts, experts_per_token, expert_ffn, tokens, moe_layers, gated=True):
    """S(n) = Ψ_mm − L_moe·k·3·h·F_e + L_moe·3·h·F_e·E·(1 − (1 − k/E)^n): what a pass over n tokens streams (§7)."""
    per_expert = ffn_matrices(gated) * hidden * expert_ffn
    distinct = expected_distinct_experts(experts, experts_per_token, tokens)
    return matmul - moe_layers * experts_per_token * per_expert + moe_layers * per_expert * distinct


def gqa_kv_bytes_per_token(layers, kv_heads, head_dim, kv_bytes=KV_BYTES_PER_VALUE):
    """2 (K and V) · L · kv · hd · bytes: 128 KiB per token for Llama 3.1 8B in BF16."""
    return KV_TENSORS * layers * kv_heads * head_dim * kv_bytes


def mla_kv_bytes_per_token(layers, kv_lora_rank, qk_rope_head_dim, kv_bytes=KV_BYTES_PER_VALUE):
    """(r_kv + rope)·bytes·L: MLA caches one latent and the shared RoPE key per layer, no ×2, no heads
    (DeepSeek-V2 paper, §2.1; replicated on every tensor-parallel GPU)."""
    return (kv_lora_rank + qk_rope_head_dim) * kv_bytes * layers


def kv_bytes_per_token(layers, kv_heads, head_dim, kv_lora_rank=0, qk_rope_head_dim=0, kv_bytes=KV_BYTES_PER_VALUE):
    """KV cache bytes per token: MLA's latent when kv_lora_rank > 0, else grouped-query K and V."""
    return _where(np.asarray(kv_lora_rank) > 0,
                  mla_kv_bytes_per_token(layers, kv_lora_rank, qk_rope_head_dim, kv_bytes),
                  gqa_kv_bytes_per_token(layers, kv_heads, head_dim, kv_bytes))


# Training memory with expert parallelism ---------------------------------------------------------------------
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


def _state_gb(bytes_per_param, sharded_from_stage, non_expert, expert, data_parallel, expert_data_parallel,
              zero_stage):
    """bytes·(non-expert / d + expert / d_e) in GB, each divided only where the ZeRO stage shards this quantity."""
    return bytes_per_param * (non_expert / zero_divisor(zero_stage, sharded_from_stage, data_parallel)
                              + expert / zero_divisor(zero_stage, sharded_from_stage, expert_data_parallel)) / GB


def weights_gb(non_expert, expert, data_parallel, expert_data_parallel, zero_stage):
    """2 bytes per BF16 weight, divided by d (non-expert) and d_e (expert) under ZeRO-3 (ZeRO paper)."""
    return _state_gb(WEIGHT_BYTES, SHARDED_FROM_STAGE["weights"], non_expert, expert, data_parallel,
                     expert_data_parallel, zero_stage)


def fp8_weight_copy_gb(non_expert, expert, data_parallel, expert_data_parallel, zero_stage):
    """1 byte per parameter for the FP8 copy Transformer Engine keeps, sharded as the weights are (÷ d under ZeRO-3)."""
    return _state_gb(FP8_WEIGHT_COPY_BYTES, SHARDED_FROM_STAGE["weights"], non_expert, expert, data_parallel,
                     expert_data_parallel, zero_stage)


def gradients_gb(non_expert, expert, data_parallel, expert_data_parallel, zero_stage):
    """2 bytes per BF16 gradient, divided by d and d_e under ZeRO-2 and ZeRO-3 (ZeRO paper)."""
    return _state_gb(GRADIENT_BYTES, SHARDED_FROM_STAGE["gradients"], non_expert, expert, data_parallel,
                     expert_data_parallel, zero_stage)


def optimizer_gb(non_expert, expert, data_parallel, expert_data_parallel, zero_stage):
    """12 bytes of Adam state per parameter (FP32 master weights, momentum, variance: 4 + 4 + 4), divided by d and
    d_e under ZeRO-1, 2 and 3 (ZeRO paper's K = 12)."""
    return _state_gb(OPTIMIZER_BYTES, SHARDED_FROM_STAGE["optimizer"], non_expert, expert, data_parallel,
                     expert_data_parallel, zero_stage)


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
    moe = moe_layer_activations_gb(sequence_length, micro_batch, hidden, experts, experts_per_token, expert_ffn,
                                   shared_expert_ffn, tensor_parallel)
    dense_layers = layers - moe_layers
    kept_inputs = layers * CHECKPOINT_BYTES_PER_LAYER * sequence_length * micro_batch * hidden / tensor_parallel / GB
    largest = np.maximum(_where(np.asarray(dense_layers) > 0, dense, 0), _where(np.asarray(moe_layers) > 0, moe, 0))
    return _where(checkpointing, kept_inputs + largest, dense_layers * dense + moe_layers * moe)


def moe_training_memory_gb(*, params, routed, layers, moe_layers, hidden, experts, experts_per_token, expert_ffn,
                           shared_expert_ffn, gpus, tensor_parallel, pipeline_parallel, expert_parallel, zero_stage,
                           sequence_length, micro_batch, checkpointing, capacity_gb, fp8=False) -> dict:
    """docs/method.md §7's training rows with expert parallelism e, in GB (arguments broadcast together); with `fp8` the
    FP8 weight copy is added. A dense model (routed = 0, moe_layers = 0) gives §1's rows."""
    d = data_parallel_degree(gpus, tensor_parallel, pipeline_parallel)
    d_e = expert_data_parallel_degree(gpus, pipeline_parallel, expert_parallel)
    non_expert = non_expert_params_per_gpu(params, routed, tensor_parallel, pipeline_parallel)
    expert = expert_params_per_gpu(routed, pipeline_parallel, expert_parallel)
    weights = weights_gb(non_expert, expert, d, d_e, zero_stage)
    fp8_copy = _where(fp8, fp8_weight_copy_gb(non_expert, expert, d, d_e, zero_stage), 0.0)
    gradients = gradients_gb(non_expert, expert, d, d_e, zero_stage)
    optimizer = optimizer_gb(non_expert, expert, d, d_e, zero_stage)
    activations = moe_activations_gb(layers, moe_layers, hidden, experts, experts_per_token, expert_ffn,
                                     shared_expert_ffn, sequence_length, micro_batch, tensor_parallel, checkpointing)
    state = weights + fp8_copy + gradients + optimizer
    total = state + activations
    return {"data_parallel": d, "expert_data_parallel": d_e, "non_expert_params_per_gpu": non_expert,
            "expert_params_per_gpu": expert, "weights_gb": weights, "fp8_weight_copy_gb": fp8_copy,
            "gradients_gb": gradients, "optimizer_gb": optimizer, "model_state_gb": state,
            "activations_gb": activations, "total_gb": total, "fits": total <= capacity_gb,
            "headroom_gb": capacity_gb - total}
