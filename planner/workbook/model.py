"""The Excel twins of planner/model/: each function here returns the spreadsheet expression of the numpy function of
the same name, reading the cells it is given. A set of cells is a model, a GPU or a replica's terms: defined names
(the scenario's own, on the Memory and Serving sheets), or a records table's {column} templates (a Fleet candidate's
own GPU and tensor parallelism, a Catalog row, a benchmark's GPU). A second model, a second GPU pool or a benchmark's
GPU is another set of cells, never a rewrite of formula text.

Expressions come back without "=" and parenthesised where they are used inside others.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace


@dataclass(frozen=True)
class ModelCells:
    """Where a model's fields and counts are (defaults: the scenario's model, looked up on the Memory sheet)."""

    layers: str = "model_layers"
    hidden: str = "model_hidden"
    heads: str = "model_heads"
    kv_heads: str = "model_kv_heads"
    head_dim: str = "model_head_dim"
    ffn: str = "model_ffn"
    vocab: str = "model_vocab"
    gated: str = "model_gated"
    tied_embeddings: str = "model_tied_embeddings"
    experts: str = "model_experts"
    experts_per_token: str = "model_experts_per_token"
    expert_ffn: str = "model_expert_ffn"
    shared_expert_ffn: str = "model_shared_expert_ffn"
    moe_layers: str = "model_moe_layers"
    moe_layer_count: str = "model_moe_layer_count"
    kv_lora_rank: str = "model_kv_lora_rank"
    q_lora_rank: str = "model_q_lora_rank"
    qk_nope_head_dim: str = "model_qk_nope_head_dim"
    qk_rope_head_dim: str = "model_qk_rope_head_dim"
    v_head_dim: str = "model_v_head_dim"
    params: str = "model_params"
    active_params: str = "model_active_params"
    attention_params: str = "model_attention_params"


# A Catalog row: the same row's cells, by column key
CATALOG_ROW = ModelCells(**{f.name: "{" + f.name + "}" for f in fields(ModelCells)})


@dataclass(frozen=True)
class ReplicaCells:
    """Where one serving replica's terms are (defaults: the scenario's, on the Serving sheet). A candidate of its own
    (another GPU, precision or t) gives its own cells for the GPU and precision terms and keeps the model's."""

    model: ModelCells = ModelCells()
    tensor_parallel: str = "serving_tensor_parallel"
    multiplied_params: str = "serving_multiplied_params"  # Ψ_mm
    weight_bytes: str = "serving_weight_bytes"  # b_w
    kv_bytes_per_token: str = "serving_kv_bytes_per_token"  # KV_g at this t and KV precision
    attention_width: str = "serving_attention_width"  # w_qk + w_av
    peak_flops: str = "serving_peak_flops"  # P_e
    bandwidth: str = "serving_bandwidth"  # BW_e
    nvlink_gbps: str = "gpu_nvlink_gbps"
    peak_tflops: str = "gpu_peak_tflops"  # the BF16 peak the serving MFU is a share of
    hbm_tbps: str = "gpu_hbm_tbps"
    price: str = "price_per_gpu_hour_converted"  # in the reporting currency
    compute_efficiency: str = "serving_compute_efficiency_used"  # the inputs', or fitted from benchmark logs (§12.1)
    overhead_ms: str = "serving_overhead_ms_used"
    # the per-pass overhead's known terms τ_0, τ_L, τ_seq, τ_moe (§14.2), ms: the engines row's or the keys
    overhead_fixed_ms: str = "serving_overhead_fixed_ms_used"
    overhead_per_layer_ms: str = "serving_overhead_per_layer_ms_used"
    overhead_per_sequence_ms: str = "serving_overhead_per_sequence_ms_used"
    overhead_per_moe_layer_ms: str = "serving_overhead_per_moe_layer_ms_used"
    prompt_tokens: str = "serving_prompt_tokens"  # s
    output_tokens: str = "serving_output_tokens"  # o
    mean_context: str = "serving_mean_context"  # c̄
    # speculative decoding and prefix caching (§12.2, §12.3): None where the replica has neither
    draft: "TermsCells | None" = None  # the draft's terms
    draft_on: str | None = None  # TRUE while a draft runs
    draft_tokens: str | None = None  # k, 0 without a draft
    tokens_per_step: str | None = None  # E, 1 without a draft
    cached_tokens: str | None = None  # s_h, prompt tokens served from the prefix cache
    # the layout (§14.5): None where the replica is §6's (e = d_a = 1: the GPUs and Fleet tables, benchmark runs)
    expert_parallel: str | None = None  # e
    attention_data_parallel: str | None = None  # d_a
    gpus_per_replica: str | None = None  # G = t·d_a
    nonrouted_params: str | None = None  # Ψ_nr
    # a laid-out pass's communication AR(n_r) + A2A(n_r) = latency + per token·n_r, s, and τ_pass less τ_seq·n, ms:
    # cells of their own, so that a pass's formula stays short (None: written out)
    talk_latency_s: str | None = None
    talk_s_per_token: str | None = None
    overhead_base_ms: str | None = None


@dataclass(frozen=True)
class TermsCells:
    """A model as a pass sees it on the replica (the target, or the draft): where its terms are."""

    multiplied: str  # Ψ_mm
    layers: str  # L
    hidden: str  # h: the width its all-reduces move
    width: str  # w_qk + w_av
    kv_per_token: str  # KV bytes per token per GPU
    experts: str
    experts_per_token: str
    expert_ffn: str
    moe_layer_count: str
    gated: str


def target(r: "ReplicaCells") -> TermsCells:
    """The served model's terms: the model's cells and the replica's own."""
    m = r.model
    return TermsCells(multiplied=r.multiplied_params, layers=m.layers, hidden=m.hidden, width=r.attention_width,
                      kv_per_token=r.kv_bytes_per_token, experts=m.experts, experts_per_token=m.experts_per_token,
                      expert_ffn=m.expert_ffn, moe_layer_count=m.moe_layer_count, gated=m.gated)


DRAFT = TermsCells(multiplied="serving_draft_multiplied_params", layers="serving_draft_layers",
                   hidden="serving_draft_hidden", width="serving_draft_attention_width",
                   kv_per_token="serving_draft_kv_bytes_per_token", experts="serving_draft_experts",
                   experts_per_token="serving_draft_experts_per_token", expert_ffn="serving_draft_expert_ffn",
                   moe_layer_count="serving_draft_moe_layer_count", gated="serving_draft_gated")
SERVING = ReplicaCells(draft=DRAFT, draft_on="serving_draft_on", draft_tokens="serving_draft_tokens_used",
                       tokens_per_step="serving_tokens_per_step", cached_tokens="serving_cached_tokens")
PLAIN = ReplicaCells()  # the scenario's replica without speculative decoding or a cached prefix
# … laid out as the scenario says (§14.5): e and d_a as the Serving sheet reads them (1 where the layout check fails)
LAYOUT = {"expert_parallel": "serving_layout_experts", "attention_data_parallel": "serving_layout_ranks",
          "gpus_per_replica": "serving_gpus_per_replica", "nonrouted_params": "serving_nonrouted_params",
          "talk_latency_s": "serving_talk_latency_s", "talk_s_per_token": "serving_talk_s_per_token",
          "overhead_base_ms": "serving_overhead_base_ms"}
SERVED = replace(SERVING, **LAYOUT)
SERVED_PLAIN = replace(PLAIN, **LAYOUT)


# Counts (planner/model/counts.py) ----------------------------------------------------------------------------
def ffn_matrices(m: ModelCells) -> str:
    """3 weight matrices per FFN for SwiGLU, 2 for a GeLU MLP."""
    return f"IF({m.gated}=FALSE,2,3)"


def gqa_attention_params(m: ModelCells) -> str:
    """2·h·a·hd + 2·h·kv·hd: query and output, key and value projections."""
    return f"2*{m.hidden}*{m.heads}*{m.head_dim}+2*{m.hidden}*{m.kv_heads}*{m.head_dim}"


def attention_params(m: ModelCells) -> str:
    """A: latent attention's terms when r_kv > 0, else grouped-query 2·h·a·hd + 2·h·kv·hd."""
    h, a = m.hidden, m.heads
    return (f"IF({m.kv_lora_rank}>0,IF({m.q_lora_rank}>0,{h}*{m.q_lora_rank}+{m.q_lora_rank}+{m.q_lora_rank}*{a}"
            f"*({m.qk_nope_head_dim}+{m.qk_rope_head_dim}),{h}*{a}*({m.qk_nope_head_dim}+{m.qk_rope_head_dim}))"
            f"+{h}*({m.kv_lora_rank}+{m.qk_rope_head_dim})+{m.kv_lora_rank}+{m.kv_lora_rank}*{a}"
            f"*({m.qk_nope_head_dim}+{m.v_head_dim})+{a}*{m.v_head_dim}*{h},{gqa_attention_params(m)})")


def moe_layer_count(m: ModelCells) -> str:
    """L_moe: the given MoE layers (every layer when blank) with experts, else 0."""
    return f"IF({m.experts}>0,IF(ISNUMBER({m.moe_layers}),{m.moe_layers},{m.layers}),0)"


def total_params(m: ModelCells) -> str:
    """Ψ = V·h·(2 − tied) + h + L_d·(A + 3·h·F + 2·h) + L_moe·(A + E·3·h·F_e + h·E + 3·h·F_s + 2·h)."""
    g, h = ffn_matrices(m), m.hidden
    return (f"{m.vocab}*{h}*IF({m.tied_embeddings},1,2)+{h}+({m.layers}-{m.moe_layer_count})*({m.attention_params}"
            f"+{g}*{h}*{m.ffn}+2*{h})+{m.moe_layer_count}*({m.attention_params}+{m.experts}*{g}*{h}*{m.expert_ffn}"
            f"+{h}*{m.experts}+{g}*{h}*{m.shared_expert_ffn}+2*{h})")


def active_of(m: ModelCells) -> str:
    """Ψ_active of a model whose Ψ is given: Ψ − L_moe·(E − k)·3·h·F_e."""
    return (f"{m.params}-{m.moe_layer_count}*({m.experts}-{m.experts_per_token})*{ffn_matrices(m)}*{m.hidden}"
            f"*{m.expert_ffn}")


def routed_params(m: ModelCells) -> str:
    """Ψ_routed = L_moe·E·3·h·F_e."""
    return f"{m.moe_layer_count}*{m.experts}*{ffn_matrices(m)}*{m.hidden}*{m.expert_ffn}"


def multiplied_params(m: ModelCells) -> str:
    """Ψ_mm = Ψ_active − (1 − tied)·V·h."""
    return f"{m.active_params}-IF({m.tied_embeddings},0,1)*{m.vocab}*{m.hidden}"


def kv_bytes_per_token(m: ModelCells, kv_bytes: str, tensor_parallel: str | None = None) -> str:
    """KV_g: latent attention (r_kv + rope)·b_kv·L on every GPU, else 2·L·MAX(kv/t, 1)·hd·b_kv
    (t = 1: 2·L·kv·hd·b_kv)."""
    kv = m.kv_heads if tensor_parallel is None else f"MAX({m.kv_heads}/{tensor_parallel},1)"
    return (f"IF({m.kv_lora_rank}>0,{m.layers}*({m.kv_lora_rank}+{m.qk_rope_head_dim})*{kv_bytes},"
            f"kv_tensors_per_layer*{m.layers}*{kv}*{m.head_dim}*{kv_bytes})")


def attention_width(m: ModelCells) -> str:
    """w_qk + w_av: latent attention heads·(nope + rope) + heads·v, else 2·heads·head dim."""
    return (f"IF({m.kv_lora_rank}>0,{m.heads}*({m.qk_nope_head_dim}+{m.qk_rope_head_dim}+{m.v_head_dim}),"
            f"2*{m.heads}*{m.head_dim})")


def streamed_params(r: "ReplicaCells | TermsCells", tokens: str) -> str:
    """S(n): Ψ_mm for a dense model; a mixture of experts streams the experts its n tokens touch, E·(1 − (1 − k/E)^n)
    per MoE layer, in place of the k that Ψ_active counts. The power is EXP(n·LN(1 − k/E)): LibreOffice's ^ gives
    #NUM! where it underflows (0.875^8192), EXP gives 0; k = E touches every expert."""
    m = target(r) if isinstance(r, ReplicaCells) else r
    expert = f"IF({m.gated}=FALSE,2,3)*{m.hidden}*{m.expert_ffn}"
    untouched = f"IF({m.experts_per_token}>={m.experts},0,EXP(({tokens})*LN(1-{m.experts_per_token}/{m.experts})))"
    return (f"IF({m.experts}>0,{m.multiplied}-{m.moe_layer_count}*{m.experts_per_token}*{expert}"
            f"+{m.moe_layer_count}*{expert}*{m.experts}*(1-{untouched}),{m.multiplied})")


# State (planner/model/state.py) ---------------------------------------------------------------------------------
def state_bytes_per_param(zero_stage: str, data_parallel: str) -> str:
    """16, 4 + 12/d, 2 + 14/d or 16/d bytes per parameter by ZeRO stage 0-3 (weights, gradients, Adam state)."""
    w, g, o, d = "weight_bytes_per_param", "gradient_bytes_per_param", "optimizer_bytes_per_param", data_parallel
    return f"CHOOSE({zero_stage}+1,{w}+{g}+{o},{w}+{g}+{o}/{d},{w}+({g}+{o})/{d},({w}+{g}+{o})/{d})"


def layer_activation_bytes_per_token(hidden: str, tensor_parallel: str, sequence_parallel: str | None = None) -> str:
    """34·h/t with sequence parallelism (or t = 1), else (10 + 24/t)·h; without a `sequence_parallel` cell, 34·h/t."""
    split = f"activation_bytes_per_layer*{hidden}/{tensor_parallel}"
    if sequence_parallel is None:
        return split
    return (f"IF(OR({sequence_parallel},{tensor_parallel}=1),{split},(unsplit_activation_bytes"
            f"+split_activation_bytes/{tensor_parallel})*{hidden})")


def checkpointed_bytes_per_token(hidden: str, tensor_parallel: str) -> str:
    """A checkpointed layer's kept input per token, 2·h/t."""
    return f"checkpoint_bytes_per_layer*{hidden}/{tensor_parallel}"


# Passes (planner/model/passes.py) ------------------------------------------------------------------------------
def effective_peak_flops(peak_tflops: str, fp8_tflops: str, fp8_gemm: str, fp4_tflops: str, fp4_gemm: str) -> str:
    """P_e: the FP4 peak when the weights' GEMMs are FP4 and the GPU has FP4 (a number above 0), else the FP8 peak
    when they are FP8 and the GPU has FP8, else BF16; FLOP/s."""
    return (f"IF(AND({fp4_gemm},{fp4_tflops}>0),{fp4_tflops},"
            f"IF(AND({fp8_gemm},{fp8_tflops}>0),{fp8_tflops},{peak_tflops}))*1e12")


def effective_bandwidth(hbm_tbps: str, bandwidth_efficiency: str) -> str:
    """BW_e = HBM TB/s·1e12·η_m."""
    return f"{hbm_tbps}*1e12*{bandwidth_efficiency}"


def all_reduce_seconds(r: ReplicaCells, tokens: str, terms: TermsCells | None = None) -> str:
    """AR(n): two all-reduces per layer, a ring moving 2·(t−1)/t of the n·h activations over NVLink; with expert
    parallelism the MoE layers' second all-reduce is the combine (§14.5)."""
    t, m = r.tensor_parallel, terms or target(r)
    reduces = f"serving_all_reduces_per_layer*{m.layers}"
    if r.expert_parallel is not None:
        reduces = f"({reduces}-IF({r.expert_parallel}>1,{m.moe_layer_count},0))"
    return (f"IF({t}=1,0,{reduces}*(serving_all_reduce_latency_us/per_million"
            f"+2*({t}-1)/{t}"
            f"*({tokens})*{m.hidden}*serving_activation_bytes/({r.nvlink_gbps}*1e9)))")


def all_to_all_seconds(r: ReplicaCells, tokens: str) -> str:
    """A2A(n_r) = IF(e = 1, 0, 2·L_moe·(α + k·(n_r/t)·h·b_a·(e − 1)/e/(NVLink GB/s·1e9))): the MoE layers' dispatch
    and combine (§14.5); 0 for a replica without a layout."""
    e, m = r.expert_parallel, r.model
    if e is None:
        return "0"
    return (f"IF({e}=1,0,2*{m.moe_layer_count}*(serving_all_reduce_latency_us/per_million+{m.experts_per_token}"
            f"*({tokens})/{r.tensor_parallel}*{m.hidden}*serving_activation_bytes*({e}-1)/{e}"
            f"/({r.nvlink_gbps}*1e9)))")


def rank_sequences(r: ReplicaCells, batch: str) -> str:
    """b = CEILING(B/d_a, 1): the sequences on the busiest attention rank (B without a layout)."""
    if r.attention_data_parallel is None:
        return batch
    return f"CEILING(({batch})/{r.attention_data_parallel},1)"


def rank_pieces(r: ReplicaCells, rank_tokens: str, replica_tokens: str, attention: str,
                kv_bytes: str) -> dict[str, str]:
    """§14.5's pass on the busiest rank: n_r tokens (n in the replica), A_r attention FLOPs and K_r KV bytes;
    compute = ((2·Ψ_nr·n_r + A_r)/t + 2·(Ψ_mm − Ψ_nr)·n/G)/(P_e·η_c), memory = (S_g(n)·b_w + K_r)/BW_e with
    S_g(n) = Ψ_nr/t + (S(n) − Ψ_nr)/G, and AR(n_r) + A2A(n_r)."""
    t, g, nr = r.tensor_parallel, r.gpus_per_replica, r.nonrouted_params
    flops = (f"((serving_ops_per_param_token*{nr}*({rank_tokens})+{attention})/{t}"
             f"+serving_ops_per_param_token*({r.multiplied_params}-{nr})*({replica_tokens})/{g})")
    streamed = f"({nr}/{t}+({streamed_params(r, replica_tokens)}-{nr})/{g})"
    return {"compute": f"{flops}/({r.peak_flops}*{r.compute_efficiency})",
            "memory": f"({streamed}*{r.weight_bytes}+{kv_bytes})/{r.bandwidth}",
            "all_reduce": talk_seconds(r, rank_tokens)}


def talk_seconds(r: ReplicaCells, rank_tokens: str) -> str:
    """AR(n_r) + A2A(n_r): the cells' latency + per token·n_r where the replica has them, else written out."""
    if r.talk_latency_s is not None:
        return f"({r.talk_latency_s}+{r.talk_s_per_token}*({rank_tokens}))"
    return f"({all_reduce_seconds(r, rank_tokens)}+{all_to_all_seconds(r, rank_tokens)})"


def talk_terms(r: ReplicaCells) -> tuple[str, str]:
    """AR(n) + A2A(n) as a latency and a time per token, s (§14.5): IF(t = 1, 0, (2·L − L_c)·α) + IF(e = 1, 0,
    2·L_moe·α), and IF(t = 1, 0, (2·L − L_c)·2·(t − 1)/t·h·b_a/NVLink) + IF(e = 1, 0, 2·L_moe·k/t·h·b_a·(e − 1)/e/
    NVLink), L_c = L_moe when e > 1."""
    t, e, m = r.tensor_parallel, r.expert_parallel, r.model
    reduces = f"(serving_all_reduces_per_layer*{m.layers}-IF({e}>1,{m.moe_layer_count},0))"
    nvlink = f"({r.nvlink_gbps}*1e9)"
    latency = (f"IF({t}=1,0,{reduces}*serving_all_reduce_latency_us/per_million)+IF({e}=1,0,2*{m.moe_layer_count}"
               "*serving_all_reduce_latency_us/per_million)")
    per_token = (f"IF({t}=1,0,{reduces}*2*({t}-1)/{t}*{m.hidden}*serving_activation_bytes/{nvlink})+IF({e}=1,0,"
                 f"2*{m.moe_layer_count}*{m.experts_per_token}/{t}*{m.hidden}*serving_activation_bytes*({e}-1)/{e}"
                 f"/{nvlink})")
    return latency, per_token


def new_tokens(r: ReplicaCells) -> str:
    """s_n = s − s_h, a prompt's tokens not in the prefix cache (s without one)."""
    return r.prompt_tokens if r.cached_tokens is None else f"({r.prompt_tokens}-{r.cached_tokens})"


def prefill_flops(r: ReplicaCells, batch: str | None = None, terms: TermsCells | None = None) -> str:
    """B·(2·Ψ_mm·s_n + L·(s² − s_h²)·(w_qk + w_av)); one prompt when no batch is given."""
    m, s, sh = terms or target(r), r.prompt_tokens, r.cached_tokens
    square = f"{s}*{s}" if sh is None else f"({s}*{s}-{sh}*{sh})"
    one = f"(serving_ops_per_param_token*{m.multiplied}*{new_tokens(r)}+{m.layers}*{square}*{m.width})"
    return one if batch is None else f"({batch})*{one}"


def prefill_tokens(r: ReplicaCells, batch: str | None = None) -> str:
    """B·s_n, the new tokens of a batch's prompts (one prompt's without a batch)."""
    return new_tokens(r) if batch is None else f"({batch})*{new_tokens(r)}"


def prefill_bytes(r: ReplicaCells, batch: str | None = None, terms: TermsCells | None = None) -> str:
    """S(B·s_n)·b_w/t + B·s·KV_g: the weights the new tokens touch, and every prompt token's KV cache."""
    m = terms or target(r)
    kv = prefill_tokens(r, batch) if r.cached_tokens is None else \
        (r.prompt_tokens if batch is None else f"({batch})*{r.prompt_tokens}")
    return (f"({streamed_params(m, prefill_tokens(r, batch))}*{r.weight_bytes}/{r.tensor_parallel}"
            f"+{kv}*{m.kv_per_token})")


def decode_flops(r: ReplicaCells, batch: str, terms: TermsCells | None = None, per_sequence: str | None = None) -> str:
    """B·k·(2·Ψ_mm + 2·L·c̄·(w_qk + w_av)): k tokens for each of B sequences (1 without `per_sequence`)."""
    m = terms or target(r)
    tokens = batch if per_sequence is None else f"({batch})*({per_sequence})"
    return f"({tokens})*(serving_ops_per_param_token*{m.multiplied}+2*{m.layers}*{r.mean_context}*{m.width})"


def decode_bytes(r: ReplicaCells, batch: str, terms: TermsCells | None = None, per_sequence: str | None = None) -> str:
    """S(B·k)·b_w/t + B·c̄·KV_g."""
    m = terms or target(r)
    tokens = batch if per_sequence is None else f"({batch})*({per_sequence})"
    return (f"({streamed_params(m, tokens)}*{r.weight_bytes}/{r.tensor_parallel}+({batch})*{r.mean_context}"
            f"*{m.kv_per_token})")


def compute_seconds(r: ReplicaCells, flops: str) -> str:
    """FLOPs/(t·P_e·η_c)."""
    return f"{flops}/({r.tensor_parallel}*{r.peak_flops}*{r.compute_efficiency})"


def memory_seconds(r: ReplicaCells, bytes_moved: str) -> str:
    """bytes/BW_e."""
    return f"{bytes_moved}/{r.bandwidth}"


def pass_overhead(r: ReplicaCells, sequences: str, terms: TermsCells | None = None) -> str:
    """τ_pass(n) = (τ + τ_0 + τ_L·L + τ_moe·L_moe + τ_seq·n)/1000 s for a pass of n sequences (§14.2): the
    target's layers, or a draft pass's own."""
    if terms is None and r.overhead_base_ms is not None:
        return f"({r.overhead_base_ms}+{r.overhead_per_sequence_ms}*({sequences}))/1000"
    m = terms or target(r)
    return (f"({overhead_base(r, m)}+{r.overhead_per_sequence_ms}*({sequences}))/1000")


def overhead_base(r: ReplicaCells, m: TermsCells) -> str:
    """τ + τ_0 + τ_L·L + τ_moe·L_moe, ms: τ_pass less its τ_seq·n (§14.2)."""
    return (f"{r.overhead_ms}+{r.overhead_fixed_ms}+{r.overhead_per_layer_ms}*{m.layers}"
            f"+{r.overhead_per_moe_layer_ms}*{m.moe_layer_count}")


def draft_prefill_overhead(r: ReplicaCells, terms: TermsCells) -> str:
    """The draft's prefill in the target's step: (τ + τ_L·L_d + τ_moe·L_moe,d)/1000 s only (§14.2)."""
    return (f"({r.overhead_ms}+{r.overhead_per_layer_ms}*{terms.layers}"
            f"+{r.overhead_per_moe_layer_ms}*{terms.moe_layer_count})/1000")



# TTFT at a client concurrency c, closed loop (§14.4): the fill T_fill(j, c) of p_s passes
def fill_pass_tokens(r: ReplicaCells, j: str, c: str, p_s: str) -> str:
    """q = j·s_n/p_s + c − j: the tokens of one fill pass."""
    return f"({j})*{new_tokens(r)}/{p_s}+({c})-({j})"


def fill_flops(r: ReplicaCells, j: str, c: str, p_s: str) -> str:
    """T_fill(j, c)'s FLOPs: the GEMMs of j·s_n + p_s·(c − j) tokens, the prompts' causal attention once and the
    decoders' at c̄."""
    m, decoders = target(r), f"{p_s}*(({c})-({j}))"
    square = f"{r.prompt_tokens}^2" if r.cached_tokens is None else f"{r.prompt_tokens}^2-{r.cached_tokens}^2"
    return (f"serving_ops_per_param_token*{m.multiplied}*(({j})*{new_tokens(r)}+{decoders})+({j})*{m.layers}"
            f"*({square})*{m.width}+{decoders}*2*{m.layers}*{r.mean_context}*{m.width}")


def fill_bytes(r: ReplicaCells, j: str, c: str, q: str, p_s: str) -> str:
    """T_fill(j, c)'s bytes: the weights the q tokens of a pass touch, once per pass, and the KV cache."""
    return (f"{p_s}*{streamed_params(r, q)}*{r.weight_bytes}/{r.tensor_parallel}+(({j})*{r.prompt_tokens}"
            f"+{p_s}*(({c})-({j}))*{r.mean_context})*{r.kv_bytes_per_token}")


def fill_s(r: ReplicaCells, q: str, flops: str, moved: str, tau_ms: str, *, p_s: str) -> str:
    """T_fill(j, c): MAX(F/(t·P_e·η_c), M/BW_e) + p_s·(AR(q) + τ_pass(c)), from the cells of q, F, M and τ_pass(c)
    (ms)."""
    return (f"(MAX({compute_seconds(r, flops)},{memory_seconds(r, moved)})"
            f"+{p_s}*({all_reduce_seconds(r, q)}+{tau_ms}/1000))")


PASSES = ("prefill", "draft_prefill", "draft", "verify")  # planner/model/replica.py's PASSES and PIECES
PIECES = ("memory", "pass")
PASS_WORDS = {"prefill": "Prefill of the B prompts", "draft_prefill": "The draft's prefill of them",
              "draft": "One draft pass", "verify": "The verify pass (the decode step without a draft)"}
PIECE_WORDS = {"memory": "memory time", "pass": "the pass, MAX(compute, memory) + all-reduces + τ"}


def _passes(r: ReplicaCells) -> list[tuple[str, TermsCells, bool, str | None]]:
    """(kind, its terms, a prefill, tokens per sequence) of each pass the replica's cycle takes."""
    verify = None if r.draft is None else f"{r.draft_tokens}+1"
    found = [("prefill", target(r), True, None), ("verify", target(r), False, verify)]
    if r.draft is not None:
        found += [("draft_prefill", r.draft, True, None), ("draft", r.draft, False, None)]
    return found


def pass_pieces(r: ReplicaCells, batch: str | None) -> dict[str, str]:
    """Each pass at B (one prompt without a batch: the prefills only), as "<pass>_compute", "<pass>_memory" and
    "<pass>_all_reduce" → its compute, memory and all-reduce seconds (Replica.prefill_pieces, decode_pieces)."""
    found = {}
    for kind, terms, prefill, per_sequence in _passes(r):
        if r.expert_parallel is not None and terms == target(r) and (prefill or batch is not None):
            found |= {f"{kind}_{piece}": value for piece, value in _laid_out(r, batch, prefill, per_sequence).items()}
            continue
        if prefill:
            compute, memory = prefill_flops(r, batch, terms), prefill_bytes(r, batch, terms)
            tokens = prefill_tokens(r, batch)
        elif batch is None:
            continue
        else:
            compute, memory = decode_flops(r, batch, terms, per_sequence), decode_bytes(r, batch, terms, per_sequence)
            tokens = batch if per_sequence is None else f"({batch})*({per_sequence})"
        found |= {f"{kind}_compute": compute_seconds(r, compute), f"{kind}_memory": memory_seconds(r, memory),
                  f"{kind}_all_reduce": all_reduce_seconds(r, tokens, terms)}
    return found


def _laid_out(r: ReplicaCells, batch: str | None, prefill: bool, per_sequence: str | None) -> dict[str, str]:
    """A target's pass in a layout (§14.5): B prompts' prefill (one without a batch), b = CEILING(B/d_a) on the
    busiest rank, n_r = b·s_n, A_r = b·L·(s² − s_h²)·w, K_r = b·s·KV_g; or the decode step, n_r = b·k, A_r =
    b·k·2·L·c̄·w, K_r = b·c̄·KV_g (k tokens per sequence, 1 without a draft)."""
    b = rank_sequences(r, batch or "1")
    m, s, sh = target(r), r.prompt_tokens, r.cached_tokens
    if prefill:
        square = f"{s}*{s}" if sh is None else f"({s}*{s}-{sh}*{sh})"
        return rank_pieces(r, f"{b}*{new_tokens(r)}", prefill_tokens(r, batch or "1"),
                           f"{b}*{m.layers}*{square}*{m.width}", f"{b}*{s}*{m.kv_per_token}")
    k = "1" if per_sequence is None else f"({per_sequence})"
    return rank_pieces(r, f"{b}*{k}", f"({batch})*{k}", f"{b}*{k}*2*{m.layers}*{r.mean_context}*{m.width}",
                       f"{b}*{r.mean_context}*{m.kv_per_token}")


def piece_specs(r: ReplicaCells, batch: str | None, prefix: str = "", kinds=PASSES):
    """The helper cells of the passes at B (docs/method.md §6, §12.2): (key, words, expression in ms) for each
    pass's memory time and the pass that reads it; formulas read them through pieces_at(prefix)."""
    pieces, at = pass_pieces(r, batch), pieces_at(prefix)
    return [spec for kind in kinds if f"{kind}_memory" in pieces for spec in (
        (f"{prefix}{kind}_memory_ms", f"{PASS_WORDS[kind]}: {PIECE_WORDS['memory']}",
         f"{pieces[f'{kind}_memory']}*1000"),
        (f"{prefix}{kind}_pass_ms", f"{PASS_WORDS[kind]}: {PIECE_WORDS['pass']}",
         f"{pass_s(r, kind, batch, {f'{kind}_memory': at[f'{kind}_memory']})}*1000"))]


def pieces_at(prefix: str) -> dict[str, str]:
    """Where a sheet shows the pieces: cells {<prefix><pass>_<piece>_ms}, read back in seconds."""
    return {f"{kind}_{piece}": f"({{{prefix}{kind}_{piece}_ms}}/1000)" for kind in PASSES for piece in PIECES}


def pieces_in_ms(pieces: dict, prefix: str = "") -> dict:
    """The engine's Replica.pass_pieces (seconds) as the helper cells show them (ms)."""
    return {f"{prefix}{key[:-2]}_ms": value * 1000 for key, value in pieces.items()}


def overhead_s(r: ReplicaCells, kind: str, batch: str | None) -> str:
    """The overhead a pass pays, in seconds, τ_pass (§14.2): a pass of B sequences (one prompt: 1), the draft's own
    layers in a draft pass, and the draft's prefill only τ, τ_L and τ_moe; the one place a pass's overhead enters
    (the engine's Replica.overhead_s)."""
    if kind == "draft_prefill":
        return draft_prefill_overhead(r, r.draft)
    return pass_overhead(r, rank_sequences(r, batch or "1"), r.draft if kind == "draft" else None)


def pass_s(r: ReplicaCells, kind: str, batch: str | None, at: dict[str, str] | None = None) -> str:
    """One pass: its cell where `at` has one (pieces_at), else MAX(compute, memory) + AR + its overhead, the memory
    time from `at` where it has it."""
    at = at or {}
    if f"{kind}_pass" in at:
        return at[f"{kind}_pass"]
    p = pass_pieces(r, batch)
    memory = at.get(f"{kind}_memory", p[f"{kind}_memory"])
    return f"(MAX({p[kind + '_compute']},{memory})+{p[kind + '_all_reduce']}+{overhead_s(r, kind, batch)})"


def prefill_s(r: ReplicaCells, batch: str | None, at: dict[str, str] | None = None) -> str:
    """T_pre(B): B prompts prefilled together (one prompt: TTFT), and the draft's prefill of them after."""
    own = pass_s(r, "prefill", batch, at)
    return own if r.draft is None else f"({own}+IF({r.draft_on},{pass_s(r, 'draft_prefill', batch, at)},0))"


def ttft_s(r: ReplicaCells, at: dict[str, str] | None = None) -> str:
    """TTFT: one request's prefill on an idle server."""
    return prefill_s(r, None, at)


def step_s(r: ReplicaCells, batch: str, at: dict[str, str] | None = None) -> str:
    """The decode step: one pass for B sequences; with a draft, k draft passes and a verify pass over k + 1 tokens
    (k = 0 without one: the verify pass is then the plain step)."""
    if r.draft is None:
        return pass_s(r, "verify", batch, at)
    return f"({r.draft_tokens}*{pass_s(r, 'draft', batch, at)}+{pass_s(r, 'verify', batch, at)})"


def tpot_s(r: ReplicaCells, batch: str, at: dict[str, str] | None = None) -> str:
    """TPOT(B) = the step / E."""
    step = step_s(r, batch, at)
    return step if r.draft is None else f"({step}/{r.tokens_per_step})"


def cycle_s(r: ReplicaCells, batch: str, at: dict[str, str] | None = None) -> str:
    """cycle(B) = T_pre(B) + o·TPOT(B)."""
    return f"({prefill_s(r, batch, at)}+{r.output_tokens}*{tpot_s(r, batch, at)})"


def tokens_per_second_per_gpu(r: ReplicaCells, batch: str, at: dict[str, str] | None = None) -> str:
    """TokS(B) = B·o / (cycle·G): per GPU of the replica (G = t without a layout)."""
    return f"(({batch})*{r.output_tokens}/({cycle_s(r, batch, at)}*{r.gpus_per_replica or r.tensor_parallel}))"


def gpu_hours(flops: str, peak_tflops: str, mfu: str) -> str:
    """H = C / (peak·1e12 · MFU · 3600)."""
    return f"{flops}/({peak_tflops}*1e12*{mfu}*seconds_per_hour)"


def serving_gpu_hours(tokens: str, tokens_per_s: str) -> str:
    """tokens / (3600·TokS)."""
    return f"{tokens}/(seconds_per_hour*{tokens_per_s})"


def cost_per_million_tokens(price: str, tokens_per_s: str) -> str:
    """price·1e6 / (3600·TokS)."""
    return f"{price}*per_million/(seconds_per_hour*{tokens_per_s})"


def serving_mfu(r: ReplicaCells, batch: str, at: dict[str, str] | None = None) -> str:
    """2·Ψ_active·TokS / BF16 peak."""
    return (f"serving_ops_per_param_token*{r.model.active_params}*{tokens_per_second_per_gpu(r, batch, at)}"
            f"/({r.peak_tflops}*1e12)")


def at_run(r: ReplicaCells, *, prompt_tokens: str, output_tokens: str) -> ReplicaCells:
    """The same replica at other lengths (a measured run's means): s, o and c̄ = s + o/2 from the cells given."""
    return replace(r, prompt_tokens=prompt_tokens, output_tokens=output_tokens,
                   mean_context=f"({prompt_tokens}+{output_tokens}/2)")
