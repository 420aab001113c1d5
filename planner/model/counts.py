"""What follows from a model's fields alone: parameter counts, the parameters a pass streams, the KV cache per token
and the attention widths (docs/method.md, Catalog, §6 and §7). One copy of each; planner/workbook/model.py holds
each one's Excel twin under the same name.

Every function takes scalars or numpy arrays (broadcast together). Whole-number scalars stay Python ints, so a count
is exact however large; arrays follow numpy's rules. Model arguments are named as the Catalog's model fields
(planner/model/fields.py), so `total_params(**shape)` works on any model's fields. No biases are counted: they are
below 0.1 % of every model here.
"""

from __future__ import annotations

import numpy as np

from planner.method import Constant

KV_TENSORS = 2  # a key and a value per layer, head and position
KV_BYTES_PER_VALUE = 2  # BF16 keys and values
GATED_MATRICES = 3  # SwiGLU: gate, up and down projections, 3·h·F
UNGATED_MATRICES = 2  # GeLU: up and down projections, 2·h·F
NORMS_PER_LAYER = 2  # two RMSNorm weight vectors of h per layer (before attention, before the FFN)


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
                  mla_attention_params(hidden, heads, q_lora_rank=q_lora_rank, kv_lora_rank=kv_lora_rank,
                                       qk_nope_head_dim=qk_nope_head_dim, qk_rope_head_dim=qk_rope_head_dim,
                                       v_head_dim=v_head_dim),
                  gqa_attention_params(hidden, heads, kv_heads, head_dim))


def attention_qk_width(heads, head_dim, kv_lora_rank=0, qk_nope_head_dim=0, qk_rope_head_dim=0):
    """w_qk: GQA/MHA heads·head_dim (the query heads: GQA does not reduce FLOPs); MLA heads·(qk_nope + qk_rope)."""
    return np.where(np.asarray(kv_lora_rank) > 0, np.multiply(heads, np.add(qk_nope_head_dim, qk_rope_head_dim)),
                    np.multiply(heads, head_dim))


def attention_av_width(heads, head_dim, kv_lora_rank=0, v_head_dim=0):
    """w_av: GQA/MHA heads·head_dim; MLA heads·v_head_dim."""
    return np.where(np.asarray(kv_lora_rank) > 0, np.multiply(heads, v_head_dim), np.multiply(heads, head_dim))


def attention_width(heads, head_dim, kv_lora_rank=0, qk_nope_head_dim=0, qk_rope_head_dim=0, v_head_dim=0):
    """w_qk + w_av: the attention's FLOPs per token of context and layer are 2·(w_qk + w_av) (§6)."""
    return (attention_qk_width(heads, head_dim, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim)
            + attention_av_width(heads, head_dim, kv_lora_rank, v_head_dim))


# Layers and totals ---------------------------------------------------------------------------------------------
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
    """L_moe: the MoE layers, every layer when not given (None) and E > 0, none for a dense model (E = 0)."""
    return _where(np.asarray(experts) > 0, layers if moe_layers is None else moe_layers, 0)


def embedding_params(vocab, hidden, tied_embeddings=False):
    """V·h·(2 − tied): the input embedding and, unless tied to it, the output projection."""
    return vocab * hidden * _where(tied_embeddings, 1, 2)


def _params(*, layers, hidden, heads, kv_heads, head_dim, ffn, vocab, tied_embeddings=False, gated=True, experts=0,
            experts_per_token=0, expert_ffn=0, shared_expert_ffn=0, moe_layers=None, kv_lora_rank=0, q_lora_rank=0,
            qk_nope_head_dim=0, qk_rope_head_dim=0, v_head_dim=0, active=False, **_not_a_count):
    attention = attention_params(hidden, heads, kv_heads, head_dim, kv_lora_rank=kv_lora_rank,
                                 q_lora_rank=q_lora_rank, qk_nope_head_dim=qk_nope_head_dim,
                                 qk_rope_head_dim=qk_rope_head_dim, v_head_dim=v_head_dim)
    n_moe = moe_layer_count(layers, experts, moe_layers)
    moe = moe_layer_params(attention, hidden, experts, expert_ffn, shared_expert_ffn=shared_expert_ffn, gated=gated,
                           experts_counted=experts_per_token if active else None)
    return (embedding_params(vocab, hidden, tied_embeddings) + hidden
            + (layers - n_moe) * dense_layer_params(attention, hidden, ffn, gated) + n_moe * moe)


def total_params(**model):
    """Ψ = V·h·(2 − tied) + h + L_d·dense + L_moe·MoE (docs/method.md §7; for a dense model the Catalog's formula).

    Keywords are the Catalog's model fields: layers, hidden, heads, kv_heads, head_dim, ffn, vocab, and optionally
    tied_embeddings, gated, experts, experts_per_token, expert_ffn, shared_expert_ffn, moe_layers, kv_lora_rank,
    q_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim (others, such as params, are ignored)."""
    return _params(**model)


def active_params(**model):
    """Ψ_active from the architecture: Ψ with E·3·h·F_e replaced by k·3·h·F_e (the router and shared experts stay)."""
    return _params(**model, active=True)


def inactive_params(*, layers, hidden, experts=0, experts_per_token=0, expert_ffn=0, moe_layers=None, gated=True,
                    **_other_fields):
    """L_moe·(E − k)·3·h·F_e: the routed experts a token does not pass through, so Ψ_active = Ψ − this for any
    given Ψ (a Catalog model may give Ψ rather than its architecture's count)."""
    return (moe_layer_count(layers, experts, moe_layers) * (experts - experts_per_token) * ffn_matrices(gated)
            * hidden * expert_ffn)


def active_of(params, **shape):
    """Ψ_active of a model whose Ψ is given (Catalog): Ψ less the routed experts a token does not pass through;
    Ψ for a dense model."""
    return params - inactive_params(**shape)


def routed_params(*, layers, hidden, experts=0, expert_ffn=0, moe_layers=None, gated=True, **_other_fields):
    """Ψ_routed = L_moe·E·3·h·F_e: the routed experts, the only part expert parallelism shards."""
    return moe_layer_count(layers, experts, moe_layers) * experts * ffn_matrices(gated) * hidden * expert_ffn


def multiplied_params(active, vocab, hidden, tied_embeddings=False):
    """Ψ_mm = Ψ_active − (1 − tied)·V·h: the input embedding is a lookup (no FLOPs, not streamed); the lm_head stays
    in, and a tied model's one matrix is its lm_head (docs/method.md §6)."""
    return active - (1 - np.asarray(tied_embeddings, dtype=float)) * vocab * hidden


# What a pass streams ---------------------------------------------------------------------------------------------
def expected_experts(experts, experts_per_token, tokens):
    """E·(1 − (1 − k/E)^n): the distinct experts per MoE layer that n tokens touch, each choosing k of E at random
    (§7); 0 for a dense model (E = 0)."""
    experts = np.asarray(experts, dtype=float)
    share = np.divide(experts_per_token, experts, out=np.zeros(np.broadcast(experts, experts_per_token).shape),
                      where=experts > 0)
    return np.where(experts > 0, experts * (1 - (1 - share) ** np.asarray(tokens, dtype=float)), 0.0)


def streamed_params(multiplied, tokens, hidden=0, experts=0, experts_per_token=0, expert_ffn=0, moe_layers=0,
                    gated=True):
    """S(n): parameters one pass over n tokens reads from HBM. Dense: Ψ_mm. MoE (§7): Ψ_mm − L_moe·k·3·h·F_e +
    L_moe·3·h·F_e·E·(1 − (1 − k/E)^n), the routed experts its tokens touch in place of the k that Ψ_active counts
    (n = s for TTFT, B·s for a batch's prefill, B for a decode step)."""
    expert = ffn_matrices(gated) * np.asarray(hidden, dtype=float) * expert_ffn
    touched = expected_experts(experts, experts_per_token, tokens)
    moe = multiplied - moe_layers * experts_per_token * expert + moe_layers * expert * touched
    return np.where(np.asarray(experts) > 0, moe, multiplied)


# The KV cache --------------------------------------------------------------------------------------------------
def kv_bytes_per_token(layers, kv_heads, head_dim, kv_lora_rank=0, qk_rope_head_dim=0, kv_bytes=KV_BYTES_PER_VALUE,
                       tensor_parallel=1):
    """KV cache bytes per token per GPU, KV_g. Grouped-query: 2·L·MAX(kv_heads/t, 1)·head_dim·b_kv (KV heads split
    over t, replicated once t exceeds them). Latent attention (kv_lora_rank > 0, DeepSeek-V2 paper §2.1): one latent
    and the shared RoPE key per layer, (r_kv + rope)·b_kv·L, no ×2, no heads, on every tensor-parallel GPU. At t = 1
    and BF16: 128 KiB per token for Llama 3.1 8B."""
    per_gpu = _where(np.asarray(tensor_parallel) == 1, kv_heads,
                     np.maximum(np.divide(kv_heads, tensor_parallel), 1))
    gqa = KV_TENSORS * layers * per_gpu * head_dim * kv_bytes
    mla = (kv_lora_rank + qk_rope_head_dim) * kv_bytes * layers
    return _where(np.asarray(kv_lora_rank) > 0, mla, gqa)


def kv_heads_split_evenly(kv_heads, tensor_parallel):
    """§6's condition: t divides kv_heads or kv_heads divides t (else KV heads cannot be split or replicated evenly)."""
    kv, t = np.asarray(kv_heads), np.asarray(tensor_parallel)
    return (kv % t == 0) | (t % kv == 0)


CONSTANTS = [  # named cells on the Method sheet
    Constant("kv_tensors_per_layer", KV_TENSORS, label="KV-cache tensors per layer", unit="tensors",
        source="A key and a value"),
    Constant("kv_bytes_per_value", KV_BYTES_PER_VALUE, label="Bytes per KV-cache value", unit="bytes",
        source="BF16 keys and values"),
]
