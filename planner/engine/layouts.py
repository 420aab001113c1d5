"""Layout search: a step time, MFU and memory per GPU for every layout of a dense model, and the layouts that fit,
finish by the deadline and cost least (docs/method.md §10).

`Problem` holds the model, the GPU, the run and the flags in plain numbers; `Layout` holds one or many layouts
(t, p, c, d, b, v, ZeRO stage, recompute) as integers or numpy arrays broadcast together. Every quantity is one
function of (problem, layout) written once: a single layout gives scalars, a grid gives arrays, with the same
arithmetic. `search` enumerates the grid and returns a `LayoutSearch` whose `to_json()` is plain Python.
Sizes are bytes, times seconds; memory is shown in GB = 1e9 bytes but fits against a headroom share of GiB.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field, fields

import numpy as np

from planner.engine import money
from planner.engine.shared import LAYOUT, SECONDS_PER_DAY, SECONDS_PER_HOUR, advance
from planner.engine.values import plain
from planner.method import Constant, Method
from planner.model import counts, state
from planner.model.counts import KV_TENSORS
from planner.model.passes import ACTIVATION_BYTES, RECOMPUTE_OPS, TRAINING_OPS  # one BF16 value: 2 bytes

# The method constants of §10 (named cells on the Method sheet, see CONSTANTS) ---------------------------------
HBM_PASSES = 4  # β: each activation byte is written and read in the forward and again in the backward (§10)
NVLINK_EFFICIENCY = 0.65  # share of NVLink's per-direction GB/s a collective sustains (§10)
NETWORK_EFFICIENCY = 0.90  # share of the network's GB/s per GPU a collective sustains (§10)
TP_LATENCY_US = 10  # fixed cost of one tensor-parallel collective, µs (§10)
PP_LATENCY_US = 20  # fixed cost of one pipeline send, µs (§10)
ADAM_BYTES = 32  # HBM bytes moved per parameter by one Adam step (§10)
RECOMPUTE_TRAFFIC = 4 / 3  # a recomputed forward adds its third of the forward + backward memory traffic (§10)

# The formula's other coefficients, also named cells so no formula holds a literal (sources beside each) ------
ATTENTION_OPS = 12  # QKᵀ and AV, 2 FLOPs per multiply-add, × 3 for forward + backward (Megatron/PaLM, full s²)
RECOMPUTE_ATTENTION_OPS = 4  # one more forward of QKᵀ and AV: 2 · 2 (Korthikanti et al. 2022, §5)
ATTENTION_SCORE_BYTES = 5  # softmax scores, dropout mask and output: 5·heads·s per token (Korthikanti, Table 2)
LOGIT_TRAFFIC_BYTES = 12  # HBM bytes per token and vocabulary entry for the FP32 logits and their gradient (§10)
LOGIT_BYTES = 4  # FP32 logits kept per token and vocabulary entry on the last stage (§10)
TP_COLLECTIVES = 4  # all-reduces per layer: 2 forward + 2 backward (Shoeybi et al. 2019, §3)
RECOMPUTE_TP_COLLECTIVES = 2  # a recomputed forward repeats its 2 (Korthikanti et al. 2022)
CP_EXCHANGES = 2  # K and V passed round the context-parallel ring, forward and backward (§10)
RECOMPUTE_CP_EXCHANGES = 1  # a recomputed forward passes them once more
PP_SENDS = 2  # per micro-batch and virtual stage: the activation forward, its gradient backward
CP_MIN_TOKENS = 4096  # a context-parallel rank keeps at least 4,096 tokens of the sequence (§10's grid)
CP_CHUNKS = 2  # each rank holds two chunks of the sequence, one early and one late, to balance causal work

GIB = 2**30  # the headroom rule counts memory as frameworks do

# The search grid (§10) -----------------------------------------------------------------------------------
TENSOR_PARALLEL = (1, 2, 4, 8)
PIPELINE_MAX = 64
CONTEXT_PARALLEL = (1, 2, 4, 8, 16, 32)
MICRO_BATCH = (1, 2, 4, 8, 16)
INTERLEAVE_MAX = 16
ZERO = (0, 1, 2, 3)
NONE, SELECTIVE, FULL = 0, 1, 2
RECOMPUTE = ("none", "selective", "full")  # a recompute code is its index here
TOP = 10  # cheapest layouts shown


NO_LAYOUT = "none"  # the cheapest layout's results when no layout fits and meets the deadline (the sheet shows it)
CHUNK = 1 << 19  # candidates per vectorised block: a few MB per array, whatever the grid
SEARCH_MAX = 2 * 10**9  # candidate layouts one run may evaluate (every scenario's search and references): more is
# refused with the estimate (planner/inputs/layouts.py)
SEARCHING = "layout search"  # the long work the candidates' count advances (its total: run_size)
LAYOUT_MFU_SEARCHES = 3  # with hours.mfu: layout, the plan's search and one for each of the Sensitivity's swings of
# hours.tokens (−20 %, +20 %), each a problem of its own


@dataclass(frozen=True, kw_only=True)
class Problem:
    """One layout search in plain numbers: the model, the GPU, the run and the flags of docs/method.md §10."""

    # model
    layers: int  # L
    hidden: int  # h
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int  # F
    vocab: int  # V
    gated: bool = True  # SwiGLU, 3·h·F per layer; False: a GeLU MLP, 2·h·F (GPT, MPT)
    tied_embeddings: bool = False
    params: float | None = None  # Ψ; None: from the architecture (model_params)
    # GPU
    memory_gb: float
    peak_tflops: float  # dense BF16, P
    hbm_tbps: float
    nvlink_gbps: float  # NV, per direction
    network_gbps: float  # NET, per GPU
    gpus_per_node: int = 8  # GPN
    gemm_efficiency: float  # η
    price_per_gpu_hour: float = 2.0
    # run
    sequence_length: int  # s
    global_batch: int  # B, sequences
    tokens: float = 15.6e12  # T
    gpus_max: int = 16384  # N_max
    deadline_days: float | None = None
    budget: float | None = None  # money; None: no limit
    headroom: float = 0.95  # usable share of the GPU's memory in GiB
    # flags
    flash_attention: bool = True
    sequence_parallel: bool = True
    tp_overlap: bool = False
    dp_overlap: bool = True
    grad_reduce_bytes: float = 2
    fsdp_regather: bool = True
    balanced_stages: bool = False


@dataclass(frozen=True)
class Layout:
    """Layouts as integers or numpy arrays that broadcast together (one layout, or a grid)."""

    t: object  # tensor parallel
    p: object  # pipeline parallel
    c: object  # context parallel
    d: object  # data parallel
    b: object  # micro-batch, sequences
    v: object  # interleave: virtual stages per GPU
    z: object  # ZeRO stage 0 … 3
    recompute: object  # NONE, SELECTIVE or FULL


# The model -------------------------------------------------------------------------------------------------
def attention_width(q):
    """A = heads·head_dim."""
    return q.heads * q.head_dim


def kv_width(q):
    """G = kv_heads·head_dim."""
    return q.kv_heads * q.head_dim


def layer_params(q):
    """Ψ_L = L·(2hA + 2hG + (3 or 2)·h·F): attention and MLP matrices of all layers (norms left out)."""
    return q.layers * (counts.gqa_attention_params(q.hidden, q.heads, q.kv_heads, q.head_dim)
                       + counts.ffn_matrices(q.gated) * q.hidden * q.ffn)


def embedding_params(q):
    """Ψ_E = V·h, the output layer."""
    return q.vocab * q.hidden


def model_params(q):
    """Ψ: the given count, else the Catalog's formula (untied: input and output embeddings; two norms per layer)."""
    if q.params is not None:
        return q.params
    return counts.total_params(layers=q.layers, hidden=q.hidden, heads=q.heads, kv_heads=q.kv_heads,
                               head_dim=q.head_dim, ffn=q.ffn, vocab=q.vocab, gated=q.gated,
                               tied_embeddings=q.tied_embeddings)


# The layout ------------------------------------------------------------------------------------------------
def gpus(x):
    """N = t·p·c·d."""
    return x.t * x.p * x.c * x.d


def micro_batches(q, x):
    """m = B/(d·b) per pipeline per step."""
    return q.global_batch / (x.d * x.b)


def micro_batch_tokens(q, x):
    """tok = b·s/c: tokens of one micro-batch on one context-parallel rank."""
    return x.b * q.sequence_length / x.c


def stage_layers(q, x):
    """L/p, fractional when the stages are uneven."""
    return q.layers / x.p


def largest_stage_layers(q, x):
    """CEILING(L/p, 1): the layers of the fullest stage."""
    return -(-q.layers // x.p)


def sharded_data_parallel(x):
    """d_z = d·c: the GPUs that hold the same parameters (context-parallel ranks share them too)."""
    return x.d * x.c


def stage_params(q, x):
    """Ψ_g = Ψ_L/(t·p) + Ψ_E/t: one GPU's parameters, the output layer counted once."""
    return layer_params(q) / (x.t * x.p) + embedding_params(q) / x.t


def peak_flops(q):
    """P = BF16 TFLOPS·1e12."""
    return q.peak_tflops * 1e12


def hbm_bytes_per_s(q):
    return q.hbm_tbps * 1e12


def nvlink_bytes_per_s(q):
    """NVe = NV·0.65·1e9."""
    return q.nvlink_gbps * NVLINK_EFFICIENCY * 1e9


def network_bytes_per_s(q):
    """NETe = NET·0.9·1e9."""
    return q.network_gbps * NETWORK_EFFICIENCY * 1e9


def link_bytes_per_s(q, group):
    """NVLink when a group of `group` GPUs sits within a node, else the network."""
    return np.where(group <= q.gpus_per_node, nvlink_bytes_per_s(q), network_bytes_per_s(q))


# Step time (§10, term by term) -----------------------------------------------------------------------------
def layer_flops_per_token(q):
    """f = 6·Ψ_L/L + 12·A·s per token and layer (Megatron/PaLM convention, full s² attention)."""
    return TRAINING_OPS * layer_params(q) / q.layers + ATTENTION_OPS * attention_width(q) * q.sequence_length


def recompute_flops_per_token(q, x):
    """f_rc = 2·Ψ_L/L + 4·A·s (full) or 4·A·s (selective): the forward done again (Korthikanti et al. 2022)."""
    attention = RECOMPUTE_ATTENTION_OPS * attention_width(q) * q.sequence_length
    matrices = (RECOMPUTE_OPS - TRAINING_OPS) * layer_params(q) / q.layers
    return np.where(x.recompute == FULL, matrices + attention, np.where(x.recompute == SELECTIVE, attention, 0))


def gemm_seconds(q, x):
    """T_gemm = tok·(L/p)·(f + f_rc)/(t·η·P): one micro-batch's matrix work on one stage."""
    work = layer_flops_per_token(q) + recompute_flops_per_token(q, x)
    return micro_batch_tokens(q, x) * stage_layers(q, x) * work / (x.t * q.gemm_efficiency * peak_flops(q))


def logit_seconds(q, x):
    """T_logit = 6·tok·Ψ_E/(t·η·P): the output layer, on the last stage."""
    return TRAINING_OPS * micro_batch_tokens(q, x) * embedding_params(q) / (x.t * q.gemm_efficiency * peak_flops(q))


def activation_bytes_per_token(q, x):
    """act = 34·h/t with sequence parallelism or t = 1, else (10 + 24/t)·h (Korthikanti et al. 2022, Table 2)."""
    return state.layer_activation_bytes_per_token(q.hidden, x.t, q.sequence_parallel)


def attention_score_bytes_per_token(q, x):
    """att = 0 with FlashAttention, else 5·heads·s/t (the stored softmax scores)."""
    if q.flash_attention:
        return 0
    return ATTENTION_SCORE_BYTES * q.heads * q.sequence_length / x.t


def memory_bound_seconds(q, x):
    """T_mem = tok·[(L/p)·β·(act·IF(full, 4/3, 1) + att·IF(recompute, 4/3, 1)) + 12·V/t]/HBM."""
    act = activation_bytes_per_token(q, x) * np.where(x.recompute == FULL, RECOMPUTE_TRAFFIC, 1)
    att = attention_score_bytes_per_token(q, x) * np.where(x.recompute != NONE, RECOMPUTE_TRAFFIC, 1)
    per_token = stage_layers(q, x) * HBM_PASSES * (act + att) + LOGIT_TRAFFIC_BYTES * q.vocab / x.t
    return micro_batch_tokens(q, x) * per_token / hbm_bytes_per_s(q)


def tensor_parallel_seconds(q, x):
    """T_tp = (4 + 2·[full])·(L/p)·(2(t−1)/t·2·tok·h/NVe + 10 µs) when t > 1 (Shoeybi et al. 2019)."""
    collectives = TP_COLLECTIVES + RECOMPUTE_TP_COLLECTIVES * (x.recompute == FULL)
    ring = 2 * (x.t - 1) / x.t  # a ring all-reduce moves 2(t−1)/t of the message
    one = ring * ACTIVATION_BYTES * micro_batch_tokens(q, x) * q.hidden / nvlink_bytes_per_s(q) + TP_LATENCY_US * 1e-6
    return np.where(x.t > 1, collectives * stage_layers(q, x) * one, 0)


def context_parallel_seconds(q, x):
    """T_cp = (2 + [full])·(L/p)·(c−1)·4·tok·G/t / link(t·c) when c > 1: K and V round the ring."""
    exchanges = CP_EXCHANGES + RECOMPUTE_CP_EXCHANGES * (x.recompute == FULL)
    kv = KV_TENSORS * ACTIVATION_BYTES * micro_batch_tokens(q, x) * kv_width(q) / x.t
    seconds = exchanges * stage_layers(q, x) * (x.c - 1) * kv / link_bytes_per_s(q, x.t * x.c)
    return np.where(x.c > 1, seconds, 0)


def pipeline_send_seconds(q, x):
    """T_pp = 2·v·(2·tok·h/t / link(t·p) + 20 µs) when p > 1: sends per micro-batch on the slowest stage."""
    message = ACTIVATION_BYTES * micro_batch_tokens(q, x) * q.hidden / x.t
    one = message / link_bytes_per_s(q, x.t * x.p) + PP_LATENCY_US * 1e-6
    return np.where(x.p > 1, PP_SENDS * x.v * one, 0)


def micro_batch_seconds(q, gemm, memory, tp, cp, pp):
    """T_mb = IF(tp_overlap, MAX(T_gemm + T_mem, T_tp), T_gemm + T_mem + T_tp) + T_cp + T_pp."""
    if q.tp_overlap:
        return np.maximum(gemm + memory, tp) + cp + pp
    return gemm + memory + tp + cp + pp


def critical_stage_seconds(q, x, micro_batch, logit):
    """T_crit: with balanced stages (p > 1) a middle stage of CEILING(L/p) layers, else T_mb + T_logit."""
    if q.balanced_stages:
        fullest = micro_batch * largest_stage_layers(q, x) / stage_layers(q, x)
        return np.where(x.p > 1, fullest, micro_batch + logit)
    return micro_batch + logit


def pipeline_seconds(q, x, critical):
    """T_pipe = (m + (p−1)/v)·T_crit: 1F1B, interleaved; bubble (p−1)/(v·m) (Narayanan et al. 2021)."""
    return (micro_batches(q, x) + (x.p - 1) / x.v) * critical


def data_parallel_bandwidth(q, x):
    """BW_dp = IF(N ≤ GPN, NVe, MIN(NVe, k·NETe)), k = MAX(1, INT(GPN/(t·c·p))) DP members per node's NICs."""
    k = np.maximum(1, q.gpus_per_node // (x.t * x.c * x.p))
    return np.where(gpus(x) <= q.gpus_per_node, nvlink_bytes_per_s(q),
                    np.minimum(nvlink_bytes_per_s(q), k * network_bytes_per_s(q)))


def _empty(*operands):
    """An uninitialised float array of the operands' broadcast shape (0-d for scalars), for results made in place."""
    return np.empty(np.broadcast_shapes(*(np.shape(a) for a in operands)))


def regathers(q, x):
    """ZeRO-3 with fsdp_regather: the weights are gathered again for every micro-batch."""
    return (x.z == 3) & q.fsdp_regather


def data_parallel_comm_seconds(q, x):
    """vol/BW_dp: per micro-batch (d_z−1)/d_z·Ψ_g·(2 + 2 + grad_reduce_bytes) when ZeRO-3 regathers, else per step
    (d_z−1)/d_z·Ψ_g·(grad_reduce_bytes + 2); zero when d_z = 1."""
    dz = sharded_data_parallel(x)
    gathers = np.where(regathers(q, x), 2 * ACTIVATION_BYTES, ACTIVATION_BYTES)  # forward and backward gathers, or one
    volume = (dz - 1) / dz * stage_params(q, x) * (gathers + q.grad_reduce_bytes)
    return volume / data_parallel_bandwidth(q, x)


def data_parallel_seconds(q, x, critical):
    """T_dp exposed: IF(dp_overlap, MAX(0, vol/BW − T_crit), vol/BW), m times when ZeRO-3 regathers."""
    comm = data_parallel_comm_seconds(q, x)
    times = np.where(regathers(q, x), micro_batches(q, x), 1)
    if not q.dp_overlap:
        return times * comm
    exposed = np.subtract(comm, critical, out=_empty(comm, critical, times))  # one array, filled in place
    np.maximum(exposed, 0.0, out=exposed)
    return np.multiply(exposed, times, out=exposed)


def optimizer_seconds(q, x):
    """T_opt = Ψ_g/IF(z ≥ 1, d_z, 1)·32/HBM: the Adam step over this GPU's shard."""
    shard = stage_params(q, x) / np.where(x.z >= 1, sharded_data_parallel(x), 1)
    return shard * ADAM_BYTES / hbm_bytes_per_s(q)


def step_terms(q, x) -> dict:
    """Every time term of one step, in seconds, each computed once: gemm … step."""
    gemm, logit = gemm_seconds(q, x), logit_seconds(q, x)
    memory = memory_bound_seconds(q, x)
    tp, cp, pp = tensor_parallel_seconds(q, x), context_parallel_seconds(q, x), pipeline_send_seconds(q, x)
    micro_batch = micro_batch_seconds(q, gemm=gemm, memory=memory, tp=tp, cp=cp, pp=pp)
    critical = critical_stage_seconds(q, x, micro_batch, logit)
    pipeline = pipeline_seconds(q, x, critical)
    data_parallel = data_parallel_seconds(q, x, critical)
    optimizer = optimizer_seconds(q, x)
    step = pipeline + data_parallel
    step += optimizer  # T_step = T_pipe + T_dp + T_opt (in place: a grid's largest array, made once)
    return {"gemm": gemm, "logit": logit, "memory": memory, "tp": tp, "cp": cp, "pp": pp,
            "micro_batch": micro_batch, "critical": critical, "pipeline": pipeline, "data_parallel": data_parallel,
            "optimizer": optimizer, "step": step}


def training_steps(q):
    """steps = T/(B·s)."""
    return q.tokens / (q.global_batch * q.sequence_length)


def training_days(q, step):
    """days = steps·T_step/86400."""
    return step * (training_steps(q) / SECONDS_PER_DAY)


def gpu_hours(q, x, step):
    """N·steps·T_step/3600."""
    return step * (gpus(x) * training_steps(q) / SECONDS_PER_HOUR)


def training_cost(q, hours):
    return hours * q.price_per_gpu_hour


def planner_mfu(q, x, step):
    """6·Ψ·B·s/(N·T_step·P): fed to §2 (recompute off, productive share 1) it gives these GPU-hours."""
    return TRAINING_OPS * model_params(q) * q.global_batch * q.sequence_length / (gpus(x) * step * peak_flops(q))


def megatron_mfu(q, x, step):
    """B·s·(6·(Ψ_L + Ψ_E) + 12·L·A·s)/(N·T_step·P): Megatron's and PaLM's count, attention included."""
    per_token = (TRAINING_OPS * (layer_params(q) + embedding_params(q))
                 + ATTENTION_OPS * q.layers * attention_width(q) * q.sequence_length)
    return q.global_batch * q.sequence_length * per_token / (gpus(x) * step * peak_flops(q))


def exposed_tensor_parallel_seconds(q, terms):
    """The part of T_tp not hidden behind compute: all of it, or MAX(0, T_tp − T_gemm − T_mem) with tp_overlap."""
    if q.tp_overlap:
        return np.maximum(0, terms["tp"] - (terms["gemm"] + terms["memory"]))
    return terms["tp"]


SHARES = ("gemm", "logit", "memory", "tp", "cp", "pp", "bubble", "dp", "optimizer")


def term_shares(q, x, terms) -> dict:
    """Each term's share of T_step (they sum to 1): the m micro-batches' terms on the critical stage, the bubble
    (p−1)/v·T_crit, the exposed data-parallel time and the optimizer."""
    step, m = terms["step"], micro_batches(q, x)
    if q.balanced_stages:
        scale = np.where(x.p > 1, largest_stage_layers(q, x) / stage_layers(q, x), 1)
        logit = np.where(x.p > 1, 0, terms["logit"])
    else:
        scale, logit = 1, terms["logit"]
    each = m * scale / step
    return {"gemm": each * terms["gemm"], "logit": m * logit / step, "memory": each * terms["memory"],
            "tp": each * exposed_tensor_parallel_seconds(q, terms), "cp": each * terms["cp"],
            "pp": each * terms["pp"], "bubble": (x.p - 1) / x.v * terms["critical"] / step,
            "dp": terms["data_parallel"] / step, "optimizer": terms["optimizer"] / step}


# Memory per GPU (§10) --------------------------------------------------------------------------------------
def state_bytes(q, x):
    """Ψ_g·CHOOSE(z+1, 16, 4 + 12/d_z, 2 + 14/d_z, 16/d_z) (ZeRO paper, Rajbhandari et al. 2020)."""
    return stage_params(q, x) * state.state_bytes_per_param(x.z, sharded_data_parallel(x))


def layer_activation_bytes(q, x):
    """b·(s/c)·(act + IF(no flash and not selective, 5·heads·s/t, 0)): one layer of one micro-batch."""
    kept_scores = np.where(x.recompute == SELECTIVE, 0, attention_score_bytes_per_token(q, x))
    return micro_batch_tokens(q, x) * (activation_bytes_per_token(q, x) + kept_scores)


def micro_batches_in_flight(q, x):
    """MIN(p, CEILING(m))·IF(v > 1, 1 + (p−1)/(p·v), 1) on the first stage (1F1B; Narayanan et al. 2021)."""
    extra = np.where(x.v > 1, 1 + (x.p - 1) / (x.p * x.v), 1)
    return np.minimum(x.p, np.ceil(micro_batches(q, x))) * extra


def activation_bytes(q, x):
    """In flight·CEILING(L/p)·IF(full, 2·b·(s/c)·h/t, per layer), + one layer being recomputed when full."""
    per_layer = layer_activation_bytes(q, x)
    kept_input = micro_batch_tokens(q, x) * state.checkpointed_bytes_per_token(q.hidden, x.t)
    full = x.recompute == FULL
    stored = micro_batches_in_flight(q, x) * largest_stage_layers(q, x) * np.where(full, kept_input, per_layer)
    return stored + np.where(full, per_layer, 0)


def logit_bytes(q, x):
    """IF(p = 1, 4·b·(s/c)·V/t, 0): FP32 logits, counted when the first stage is also the last."""
    return np.where(x.p == 1, LOGIT_BYTES * micro_batch_tokens(q, x) * q.vocab / x.t, 0)


def memory_terms(q, x) -> dict:
    """States, activations, logits and their total, bytes per GPU."""
    states, activations, logits = state_bytes(q, x), activation_bytes(q, x), logit_bytes(q, x)
    return {"states": states, "activations": activations, "logits": logits, "total": states + (activations + logits)}


def usable_bytes(q):
    """headroom·GPU GB·2^30: GiB, as frameworks count, unlike §1's decimal GB."""
    return q.headroom * q.memory_gb * GIB


def evaluate(q, x) -> dict:
    """Every quantity of §10 for one layout (scalars) or many (arrays): times, shares, memory, MFU, days, cost."""
    terms = step_terms(q, x)
    step = terms["step"]
    memory = memory_terms(q, x)
    hours = gpu_hours(q, x, step)
    return {**{f"{key}_s": value for key, value in terms.items()},
            **{f"share_{key}": value for key, value in term_shares(q, x, terms).items()},
            **{f"{key}_bytes": value for key, value in memory.items()},
            "gpus": gpus(x), "micro_batches": micro_batches(q, x), "fits": memory["total"] <= usable_bytes(q),
            "mfu": planner_mfu(q, x, step), "megatron_mfu": megatron_mfu(q, x, step),
            "days": training_days(q, step), "gpu_hours": hours, "cost": training_cost(q, hours)}


# The rules of the grid, in words ---------------------------------------------------------------------------
def _n(value) -> str:
    """A count with thousands separators; a whole float without its .0."""
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,}"


def _whole(value) -> bool:
    return isinstance(value, (int, np.integer)) or (isinstance(value, float) and value.is_integer())


COUNTS = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "sequence_length", "global_batch",
          "gpus_max", "gpus_per_node")


def problem_reasons(q) -> list[str]:
    """Why a problem cannot be searched at all (an empty list when it can)."""
    reasons = []
    for key in COUNTS:
        if key in ("global_batch", "gpus_max"):
            continue  # their own words below
        value = getattr(q, key)
        if isinstance(value, bool) or not _whole(value) or value < 1:
            reasons.append(f"{key} must be a whole number of at least 1: got {value}")
    if isinstance(q.global_batch, bool) or not _whole(q.global_batch) or q.global_batch < 1:
        reasons.append(f"the global batch must be a whole number of sequences, at least 1: got {q.global_batch}")
    for key in ("memory_gb", "peak_tflops", "hbm_tbps", "nvlink_gbps", "network_gbps", "tokens",
                "grad_reduce_bytes"):
        value = getattr(q, key)
        if not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
            reasons.append(f"{key} must be a positive number: got {value}")
    for key in ("gemm_efficiency", "headroom"):
        value = getattr(q, key)
        if not (isinstance(value, (int, float)) and 0 < value <= 1):
            reasons.append(f"{key} must be a share in (0, 1]: got {value}")
    if not (isinstance(q.price_per_gpu_hour, (int, float)) and q.price_per_gpu_hour >= 0):
        reasons.append(f"price_per_gpu_hour must be a number ≥ 0: got {q.price_per_gpu_hour}")
    for key in ("deadline_days", "budget"):
        value = getattr(q, key)
        if value is not None and not (isinstance(value, (int, float)) and value > 0):
            reasons.append(f"{key} must be a positive number or none: got {value}")
    if q.params is not None and not (isinstance(q.params, (int, float)) and q.params > 0):
        reasons.append(f"params must be a positive number or none: got {q.params}")
    if isinstance(q.gpus_max, bool) or not _whole(q.gpus_max) or q.gpus_max < 1:
        reasons.append(f"the GPU budget must be a whole number of GPUs: got {q.gpus_max}")
    elif _whole(q.gpus_per_node) and q.gpus_per_node >= 1 and q.gpus_max < q.gpus_per_node:
        reasons.append(f"a GPU budget of {_n(q.gpus_max)} is below one node of {_n(q.gpus_per_node)} GPUs: "
                       f"every layout uses a multiple of {_n(q.gpus_per_node)}")
    return reasons


def _integral(q):
    """The problem with its counts as Python ints (a whole float such as 2048.0 is accepted by problem_reasons)."""
    return dataclasses.replace(q, **{key: int(getattr(q, key)) for key in COUNTS})


def _t_reasons(q, t) -> list[str]:
    out = []
    if q.heads % t:
        out.append(f"t = {t} does not divide the {_n(q.heads)} heads")
    if q.kv_heads % t:
        out.append(f"t = {t} does not divide the {_n(q.kv_heads)} KV heads")
    if t > q.gpus_per_node:
        out.append(f"t = {t} is more than the {q.gpus_per_node} GPUs of a node")
    if not out and t not in TENSOR_PARALLEL:
        out.append(f"t = {t} is not one of {', '.join(map(str, TENSOR_PARALLEL))}")
    return out


def _p_reasons(q, p) -> list[str]:
    out = []
    if p > PIPELINE_MAX:
        out.append(f"p = {p} is more than {PIPELINE_MAX}")
    if (p - 1) * -(-q.layers // p) >= q.layers:
        out.append(f"p = {p} leaves a stage empty ({_n(q.layers)} layers, {-(-q.layers // p)} on each full stage)")
    return out


def _c_reasons(q, c) -> list[str]:
    out = []
    if c not in CONTEXT_PARALLEL:
        out.append(f"c = {c} is not one of {', '.join(map(str, CONTEXT_PARALLEL))}")
    if q.sequence_length % (CP_CHUNKS * c):
        out.append(f"c = {c}: the sequence of {_n(q.sequence_length)} does not split into 2·c = {2 * c} chunks")
    if c > 1 and q.sequence_length / c < CP_MIN_TOKENS:
        out.append(f"c = {c} leaves {_n(q.sequence_length / c)} tokens per rank, fewer than {_n(CP_MIN_TOKENS)}")
    return out


def _gpus_reasons(q, n) -> list[str]:
    out = []
    if n > q.gpus_max:
        out.append(f"{_n(n)} GPUs is more than the GPU budget of {_n(q.gpus_max)}")
    if n % q.gpus_per_node:
        out.append(f"{_n(n)} GPUs is not a whole number of {q.gpus_per_node}-GPU nodes")
    return out


def _b_reasons(q, b) -> list[str]:
    return [] if b in MICRO_BATCH else [f"b = {b} is not one of {', '.join(map(str, MICRO_BATCH))}"]


def _v_reasons(q, v) -> list[str]:
    return [] if v <= INTERLEAVE_MAX else [f"v = {v} is more than {INTERLEAVE_MAX}"]


def _z_reasons(q, z) -> list[str]:
    return [] if z in ZERO else [f"ZeRO stage {z} is not one of 0, 1, 2, 3"]


def _recompute_reasons(q, recompute) -> list[str]:
    if recompute not in RECOMPUTE:
        return [f"recompute {recompute!r} is not one of none, selective, full"]
    if recompute == "selective" and q.flash_attention:
        return ["selective recompute is searched only without FlashAttention (it keeps no attention scores)"]
    return []


def _layout_reasons(q, fixed: dict) -> list[str]:
    """The rules that join a whole layout's fields: d whole, B a multiple of d·b, v a divisor of the fullest stage,
    m ≥ p."""
    t, p, c, n, b, v = (fixed[key] for key in ("tensor_parallel", "pipeline_parallel", "context_parallel", "gpus",
                                              "micro_batch", "interleave"))
    out = []
    if n % (t * p * c):
        out.append(f"{_n(n)} GPUs is not a multiple of t·p·c = {_n(t * p * c)}")
        return out
    d = n // (t * p * c)
    if q.global_batch % (d * b):
        out.append(f"the global batch of {_n(q.global_batch)} is not a multiple of d·b = {_n(d * b)}")
    fullest = -(-q.layers // p)
    if fullest % v:
        out.append(f"v = {v} does not divide the {fullest} layers of the fullest stage")
    if v > 1 and p == 1:
        out.append(f"v = {v} needs pipeline parallelism (p > 1)")
    elif v > 1 and q.global_batch / (d * b) < p:
        out.append(f"v = {v} needs at least p = {p} micro-batches; m = {_n(q.global_batch / (d * b))}")
    return out


FIELD_RULES = {"tensor_parallel": _t_reasons, "pipeline_parallel": _p_reasons, "context_parallel": _c_reasons,
               "gpus": _gpus_reasons, "micro_batch": _b_reasons, "interleave": _v_reasons, "zero": _z_reasons,
               "recompute": _recompute_reasons}


def interleaves(q, p) -> tuple[int, ...]:
    """v: the divisors of CEILING(L/p) up to 16, only 1 without pipeline parallelism."""
    if p == 1:
        return (1,)
    fullest = -(-q.layers // p)
    return tuple(v for v in range(1, INTERLEAVE_MAX + 1) if fullest % v == 0)


def recomputes(q) -> tuple[int, ...]:
    """none and full, and selective without FlashAttention."""
    return (NONE, FULL) if q.flash_attention else (NONE, SELECTIVE, FULL)


# The search ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Reference:
    """A layout to show beside the search; a field left None is searched (the fastest layout that fits)."""

    gpus: int | None = None
    tensor_parallel: int | None = None
    pipeline_parallel: int | None = None
    context_parallel: int | None = None
    micro_batch: int | None = None
    interleave: int | None = None
    zero: int | None = None
    recompute: str | None = None

    def fixed(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


def _group_blocks(q, fixed: dict) -> dict[int, dict[str, np.ndarray]]:
    """The valid (t, p, c, d) groups, keyed by their number of interleaves K, each with its (K, groups) v values."""
    ts = [fixed["tensor_parallel"]] if "tensor_parallel" in fixed else \
        [t for t in TENSOR_PARALLEL if not _t_reasons(q, t)]
    ps = [fixed["pipeline_parallel"]] if "pipeline_parallel" in fixed else \
        [p for p in range(1, PIPELINE_MAX + 1) if not _p_reasons(q, p)]
    cs = [fixed["context_parallel"]] if "context_parallel" in fixed else \
        [c for c in CONTEXT_PARALLEL if not _c_reasons(q, c)]
    if "interleave" in fixed:
        v = fixed["interleave"]
        vs = {p: (v,) for p in ps if -(-q.layers // p) % v == 0 and (v == 1 or p > 1)}
    else:
        vs = {p: interleaves(q, p) for p in ps}
    batch = q.global_batch
    divisors = [d for d in range(1, math.isqrt(batch) + 1) if batch % d == 0]
    divisors = sorted(set(divisors) | {batch // d for d in divisors})
    t, p, c, d = (a.ravel() for a in np.meshgrid(np.array(ts, dtype=np.int64), np.array(list(vs), dtype=np.int64),
                                                 np.array(cs, dtype=np.int64), np.array(divisors, dtype=np.int64),
                                                 indexing="ij"))
    n = t * p * c * d
    if "gpus" in fixed:
        keep = n == fixed["gpus"]
    else:
        keep = (n <= q.gpus_max) & (n % q.gpus_per_node == 0)
    t, p, c, d = t[keep], p[keep], c[keep], d[keep]
    k_of = np.zeros(max(vs, default=0) + 1, dtype=np.int64)  # K for each p, and its v values
    table = np.ones((k_of.size, max((len(v) for v in vs.values()), default=1)), dtype=np.int64)
    for stages, values in vs.items():
        k_of[stages] = len(values)
        table[stages, :len(values)] = values
    blocks = {}
    for k in np.unique(k_of[p]):
        at = k_of[p] == k
        blocks[int(k)] = {"t": t[at], "p": p[at], "c": c[at], "d": d[at], "v": np.ascontiguousarray(table[p[at], :k].T)}
    return blocks


@dataclass
class _Scan:
    """What one pass over the candidates keeps: counts, and per group its fastest fitting (and valid) layout."""

    valid: int = 0
    fitting: int = 0
    deadline: int = 0
    eligible: int = 0
    smallest_bytes: float = math.inf  # the least memory of any valid layout
    best: list = field(default_factory=list)  # Layout pieces of each group's fastest fitting layout
    fastest: list = field(default_factory=list)  # … and of its fastest valid one, when asked for


def _or_inf(values, keep, out=None):
    """values where keep holds, else inf, for positive values: values/1 or values/0 (a few times faster than
    np.where on large arrays)."""
    with np.errstate(divide="ignore"):
        return np.divide(values, keep, out=out)


def _latest_step(q) -> float:
    """The longest step time whose training_days is within the deadline (inf without one): comparing step times
    with it counts exactly the layouts whose days ≤ deadline, without a days array."""
    if q.deadline_days is None:
        return math.inf
    step = np.float64(q.deadline_days * SECONDS_PER_DAY / training_steps(q))
    while training_days(q, step) > q.deadline_days:
        step = np.nextafter(step, 0)
    while training_days(q, np.nextafter(step, math.inf)) <= q.deadline_days:
        step = np.nextafter(step, math.inf)
    return float(step)


def _quickest(x: Layout, timed, total) -> Layout:
    """Per group (the last axis) the layout of least step time (inf where excluded), the smaller memory on a tie
    (ZeRO-1 and ZeRO-2 take the same time). total, of timed's shape, is overwritten."""
    shape = timed.shape
    if total.shape != shape:
        total = np.array(np.broadcast_to(total, shape))
    timed = timed.reshape(-1, shape[-1])
    quickest = timed.min(axis=0)
    tied = _or_inf(total.reshape(-1, shape[-1]), timed == quickest, out=total.reshape(-1, shape[-1]))
    group = np.flatnonzero(np.isfinite(quickest))
    z, recompute, b, v = np.unravel_index(tied.argmin(axis=0)[group], shape[:-1])
    return Layout(t=x.t[0, 0, 0, 0, group], p=x.p[0, 0, 0, 0, group], c=x.c[0, 0, 0, 0, group],
                  d=x.d[0, 0, 0, 0, group], b=x.b[0, 0, b, 0, 0], v=x.v[0, 0, 0, v, group], z=x.z[z, 0, 0, 0, 0],
                  recompute=x.recompute[0, recompute, 0, 0, 0])


def _scan(q, fixed: dict, keep_fastest: bool = False) -> _Scan:
    """Evaluate every candidate with the given fields fixed, in vectorised blocks of whole groups. Axes: ZeRO ×
    recompute × micro-batch × interleave × group (t, p, c, d), the groups last so numpy's inner loops are long."""
    out = _Scan()
    zs = np.array([fixed["zero"]] if "zero" in fixed else ZERO, dtype=np.int64)
    rs = np.array([RECOMPUTE.index(fixed["recompute"])] if "recompute" in fixed else recomputes(q), dtype=np.int64)
    bs = np.array([fixed["micro_batch"]] if "micro_batch" in fixed else MICRO_BATCH, dtype=np.int64)
    usable, latest = usable_bytes(q), _latest_step(q)
    for k, groups in _group_blocks(q, fixed).items():
        step = max(1, CHUNK // (zs.size * rs.size * bs.size * k))
        for start in range(0, groups["d"].size, step):
            g = groups["d"][start:start + step].size
            x = Layout(*(groups[key][start:start + step].reshape(1, 1, 1, 1, g) for key in ("t", "p", "c", "d")),
                       b=bs.reshape(1, 1, -1, 1, 1), v=groups["v"][:, start:start + step].reshape(1, 1, 1, k, g),
                       z=zs.reshape(-1, 1, 1, 1, 1), recompute=rs.reshape(1, -1, 1, 1, 1))
            # the rules joining fields: B a multiple of d·b; v > 1 only with m ≥ p (p > 1 is in the v lists)
            valid = (q.global_batch % (x.d * x.b) == 0) & ((x.v == 1) | (micro_batches(q, x) >= x.p))
            out.valid += int(np.count_nonzero(valid)) * zs.size * rs.size
            total = memory_terms(q, x)["total"]
            fits = total <= np.where(valid, usable, -1.0)  # an invalid candidate fits nowhere
            n_fit = int(np.count_nonzero(fits))
            out.fitting += n_fit
            if n_fit == 0 and valid.any():
                out.smallest_bytes = min(out.smallest_bytes, float(np.where(valid, total, np.inf).min()))
            seconds = step_terms(q, x)["step"]  # for every candidate, also those that do not fit
            if keep_fastest:
                out.fastest.append(_quickest(x, _or_inf(seconds, np.broadcast_to(valid, seconds.shape)), total.copy()))
            timed = _or_inf(seconds, fits, out=seconds)  # the fitting candidates' step times, inf for the others
            if q.deadline_days is None and q.budget is None:
                out.deadline += n_fit
                out.eligible += n_fit
            elif n_fit:
                meets = fits if q.deadline_days is None else timed <= latest  # = training_days(q, timed) <= deadline
                out.deadline += int(np.count_nonzero(meets))
                if q.budget is not None:
                    meets &= training_cost(q, gpu_hours(q, x, timed)) <= q.budget
                out.eligible += int(np.count_nonzero(meets))
            if n_fit:
                out.best.append(_quickest(x, timed, total))
            advance(SEARCHING, g * k * zs.size * rs.size * bs.size, unit="layout")
    return out


def scan_size(q, fixed: dict) -> int:
    """The candidates _scan(q, fixed) evaluates: each group's interleaves × ZeRO stages × recomputes ×
    micro-batches, the fixed fields one each."""
    each = (1 if "zero" in fixed else len(ZERO)) * (1 if "recompute" in fixed else len(recomputes(q))) * \
        (1 if "micro_batch" in fixed else len(MICRO_BATCH))
    return sum(block["v"].size for block in _group_blocks(q, fixed).values()) * each


def search_size(q: Problem, references=()) -> int:
    """The candidates search(q, references) evaluates: its own scan and one per distinct reference with a blank
    field (a reference given in full is evaluated as it is); 0 when the search's inputs are refused."""
    if problem_reasons(q):
        return 0
    q = _integral(q)
    fixed = [Reference(**r).fixed() if isinstance(r, dict) else r.fixed() for r in references]
    scanned = {tuple(sorted(f.items())) for f in fixed if _computable(f) and len(f) < len(fields(Reference))}
    return scan_size(q, {}) + sum(scan_size(q, {k: v if k == "recompute" else int(v) for k, v in f})
                                  for f in scanned)


def _joined(pieces: list) -> Layout | None:
    """The per-block winners as one flat Layout (None when there are none)."""
    if not pieces:
        return None
    return Layout(*(np.concatenate([getattr(piece, f.name) for piece in pieces]) for f in fields(Layout)))


def _gb(value) -> str:
    return f"{value / 1e9:.1f} GB"


def _memory_reason(q, total_bytes) -> str:
    return f"needs {_gb(total_bytes)} per GPU, {_gb(usable_bytes(q))} usable at {q.headroom * 100:g} % headroom"


ROW_FIELDS = ("gpus", "tensor_parallel", "pipeline_parallel", "context_parallel", "data_parallel", "micro_batch",
              "micro_batches", "interleave", "zero", "recompute", "memory_gb", "states_gb", "activations_gb",
              "logits_gb", "usable_gb", "headroom_gb", "fits", "step_time_s", "mfu", "megatron_mfu", "days",
              "gpu_hours", "cost", "meets_deadline", "within_budget", *(f"share_{key}" for key in SHARES))


def _rows(q, x: Layout, values: dict, index) -> list[dict]:
    """One plain row per chosen layout (flat arrays): its fields, memory, time, MFUs, days, GPU-hours, cost and
    each term's share, in ROW_FIELDS order."""
    i = np.asarray(index, dtype=np.int64)
    usable, total = usable_bytes(q), values["total_bytes"][i]
    deadline = math.inf if q.deadline_days is None else q.deadline_days
    columns = {
        "gpus": values["gpus"][i], "tensor_parallel": x.t[i], "pipeline_parallel": x.p[i],
        "context_parallel": x.c[i], "data_parallel": x.d[i], "micro_batch": x.b[i],
        "micro_batches": values["micro_batches"][i], "interleave": x.v[i], "zero": x.z[i],
        "recompute": np.array(RECOMPUTE)[x.recompute[i]],
        "memory_gb": total / 1e9, "states_gb": values["states_bytes"][i] / 1e9,
        "activations_gb": values["activations_bytes"][i] / 1e9, "logits_gb": values["logits_bytes"][i] / 1e9,
        "usable_gb": np.full(i.size, usable / 1e9), "headroom_gb": (usable - total) / 1e9,
        "fits": values["fits"][i], "step_time_s": values["step_s"][i], "mfu": values["mfu"][i],
        "megatron_mfu": values["megatron_mfu"][i], "days": values["days"][i], "gpu_hours": values["gpu_hours"][i],
        "cost": values["cost"][i], "meets_deadline": values["fits"][i] & (values["days"][i] <= deadline),
        "within_budget": values["cost"][i] <= (math.inf if q.budget is None else q.budget),
        **{f"share_{key}": values[f"share_{key}"][i] for key in SHARES},
    }
    for key, column in columns.items():
        if column.dtype.kind == "f" and not np.isfinite(column).all():
            raise ValueError(f"a result is not a finite number: {key}")
    lists = [columns[key].tolist() for key in ROW_FIELDS]
    for key in ("gpus", "data_parallel"):  # whole, also when a reference's d came out of a division
        lists[ROW_FIELDS.index(key)] = [int(n) if float(n).is_integer() else n for n in lists[ROW_FIELDS.index(key)]]
    return [dict(zip(ROW_FIELDS, row)) for row in zip(*lists)]


def _flat_values(q, x: Layout) -> dict:
    """evaluate() on flat layouts, every value as an array of their length."""
    values = evaluate(q, x)
    n = np.shape(x.d)
    return {key: np.broadcast_to(value, n) for key, value in values.items()}


def _by_cost(values: dict, mask) -> np.ndarray:
    """Indices where mask holds, by cost, then days, then the smaller memory."""
    chosen = np.flatnonzero(mask)
    return chosen[np.lexsort((values["total_bytes"][chosen], values["days"][chosen], values["cost"][chosen]))]


def _by_time(values: dict) -> np.ndarray:
    """All indices, fastest first, then the cheaper, then the smaller memory."""
    return np.lexsort((values["total_bytes"], values["cost"], values["step_s"]))


def _front(values: dict) -> np.ndarray:
    """The Pareto front of days against cost: fastest first, each layout cheaper than every faster one."""
    order = _by_time(values)
    cost = values["cost"][order]
    cheapest_before = np.minimum.accumulate(np.concatenate([[math.inf], cost[:-1]]))
    return order[cost < cheapest_before]


@dataclass(frozen=True)
class LayoutSearch:
    """docs/method.md §10's outputs: counts (of whole layouts), the cheapest, the front and the reference layouts."""

    valid_layouts: int
    fitting_layouts: int
    deadline_layouts: int  # fit and finish by the deadline
    eligible_layouts: int  # … and cost at most the budget
    cheapest: list[dict]  # the top 10 by cost meeting the deadline and budget, one per (N, t, p, c)
    front: list[dict]  # the Pareto front of days against cost among the fitting layouts, fastest first
    references: list[dict]  # one per reference layout, in the order given
    reason: str  # why there is no cheapest layout ("" when there is one)
    usable_gb: float

    @property
    def headline(self) -> dict:
        best = self.cheapest[0] if self.cheapest else {}
        return {**{f"search_cheapest_{key}": best.get(key, NO_LAYOUT) for key in ("gpus", "days", "cost", "mfu")},
                "search_valid_layouts": self.valid_layouts, "search_fitting_layouts": self.fitting_layouts}

    def to_json(self) -> dict:
        return {"valid_layouts": self.valid_layouts, "fitting_layouts": self.fitting_layouts,
                "deadline_layouts": self.deadline_layouts, "eligible_layouts": self.eligible_layouts,
                "usable_gb": self.usable_gb, "reason": self.reason, "cheapest": self.cheapest,
                "front": self.front, "references": self.references}


def _search_reason(q, scan: _Scan, values: dict | None) -> str:
    """Why no layout is the cheapest ("" when one is)."""
    if scan.valid == 0:
        return "no layout satisfies the search's rules for this model, global batch and GPU budget"
    if scan.fitting == 0:
        return f"none of the {_n(scan.valid)} valid layouts fits: the smallest {_memory_reason(q, scan.smallest_bytes)}"
    if scan.deadline == 0:
        fastest = values["days"][_by_time(values)[0]]
        return f"no fitting layout finishes within {q.deadline_days:g} days: the fastest takes {fastest:.1f} days"
    if scan.eligible == 0:
        in_time = values["days"] <= (math.inf if q.deadline_days is None else q.deadline_days)
        least = values["cost"][in_time].min()
        which = "fitting layout" if q.deadline_days is None else "layout that finishes in time"
        return f"no {which} costs at most {q.budget:,.0f}: the cheapest costs {least:,.0f}"
    return ""


def search(q: Problem, references=()) -> LayoutSearch:
    """The layout search of docs/method.md §10: every valid layout evaluated, the cheapest that meet the deadline and
    the budget, the front of days against cost, and each reference layout (a Reference or a dict of its fields)."""
    refs = [r if isinstance(r, Reference) else Reference(**r) for r in references]
    errors = problem_reasons(q)
    if errors:
        reason = "; ".join(errors)
        return LayoutSearch(valid_layouts=0, fitting_layouts=0, deadline_layouts=0, eligible_layouts=0, cheapest=[],
                            front=[], references=[_reference_row(r, None, [reason]) for r in refs], reason=reason,
                            usable_gb=0.0)
    q = _integral(q)
    scan = _scan(q, {})
    best = _joined(scan.best)  # each (N, t, p, c)'s fastest fitting layout: all others in its group are dominated
    cheapest, front, values = [], [], None
    if best is not None:
        values = _flat_values(q, best)
        eligible = values["fits"] & (values["days"] <= (math.inf if q.deadline_days is None else q.deadline_days))
        if q.budget is not None:
            eligible &= values["cost"] <= q.budget
        cheapest = _rows(q, best, values, _by_cost(values, eligible)[:TOP])
        front = _rows(q, best, values, _front(values))
    return LayoutSearch(valid_layouts=scan.valid, fitting_layouts=scan.fitting, deadline_layouts=scan.deadline,
                        eligible_layouts=scan.eligible, cheapest=cheapest, front=front,
                        references=_references(q, refs), reason=_search_reason(q, scan, values),
                        usable_gb=plain(usable_bytes(q) / 1e9))


def _references(q: Problem, refs: list[Reference]) -> list[dict]:
    """Each reference's row, in the order given; references alike (twenty blank ones) are evaluated once."""
    found: dict[Reference, dict] = {}
    for ref in refs:
        if ref not in found:
            found[ref] = reference_layout(q, ref)
    return [{**found[ref], "searched": list(found[ref]["searched"])} for ref in refs]


def _reference_row(ref: Reference, row: dict | None, broken: list[str], memory: str = "") -> dict:
    """A reference's row: the searched fields filled in (None when nothing could be evaluated), whether it keeps
    the search's rules, and the reasons in words."""
    if row is None:
        row = {**{key: None for key in ROW_FIELDS}, **ref.fixed(), "fits": False}
    searched = [f.name for f in fields(Reference) if getattr(ref, f.name) is None]
    return {**row, "valid": not broken, "reason": "; ".join(broken + ([memory] if memory else [])),
            "searched": searched}


def _computable(fixed: dict) -> bool:
    """Whether the given fields can go into the formulas at all: whole numbers ≥ 1, a ZeRO stage, a recompute."""
    for key in ("gpus", "tensor_parallel", "pipeline_parallel", "context_parallel", "micro_batch", "interleave"):
        if key in fixed and (isinstance(fixed[key], bool) or not _whole(fixed[key]) or fixed[key] < 1):
            return False
    zero = fixed.get("zero", 0)
    return not isinstance(zero, bool) and zero in ZERO and fixed.get("recompute", "none") in RECOMPUTE


def fixed_join_reasons(q, fixed: dict) -> list[str]:
    """The rules joining fields that the given fields alone already break."""
    out = []
    keys = ("gpus", "tensor_parallel", "pipeline_parallel", "context_parallel")
    if all(key in fixed for key in keys):
        n, t, p, c = (fixed[key] for key in keys)
        if n % (t * p * c):
            out.append(f"{_n(n)} GPUs is not a multiple of t·p·c = {_n(t * p * c)}")
    if "pipeline_parallel" in fixed and "interleave" in fixed:
        p, v = fixed["pipeline_parallel"], fixed["interleave"]
        if -(-q.layers // p) % v:
            out.append(f"v = {v} does not divide the {-(-q.layers // p)} layers of the fullest stage")
        if v > 1 and p == 1:
            out.append(f"v = {v} needs pipeline parallelism (p > 1)")
    return out


def layout_of(row: dict) -> Layout:
    """The layout of a row by its fields' names (a shown row, or a reference given in full): its integers and its
    recompute word."""
    return Layout(t=row["tensor_parallel"], p=row["pipeline_parallel"], c=row["context_parallel"],
                  d=row["data_parallel"], b=row["micro_batch"], v=row["interleave"], z=row["zero"],
                  recompute=RECOMPUTE.index(row["recompute"]))


def _given_layout(fixed: dict) -> Layout:
    """A reference given in full as a grid of one layout; d = N/(t·p·c), a fraction where t·p·c does not divide N
    (its reasons say so)."""
    t, p, c, n = (fixed[key] for key in ("tensor_parallel", "pipeline_parallel", "context_parallel", "gpus"))
    x = layout_of({**fixed, "data_parallel": n // (t * p * c) if n % (t * p * c) == 0 else n / (t * p * c)})
    return Layout(**{f.name: np.atleast_1d(getattr(x, f.name)) for f in fields(Layout)})


def reference_layout(q: Problem, ref: Reference) -> dict:
    """One reference layout, evaluated even when it does not fit or breaks a rule, with the reason in words. A
    field left None is searched over the grid: the fastest layout that fits, else the fastest that does not."""
    errors = problem_reasons(q)
    if errors:
        return _reference_row(ref, None, errors)
    q, fixed = _integral(q), ref.fixed()
    if not _computable(fixed):
        wrong = ", ".join(f"{key} = {value!r}" for key, value in fixed.items())
        return _reference_row(ref, None, [f"not a layout ({wrong}): the counts must be whole numbers of at least "
                                          "1, ZeRO 0 … 3 and recompute none, selective or full"])
    fixed = {key: (value if key == "recompute" else int(value)) for key, value in fixed.items()}
    broken = [text for key, value in fixed.items() for text in FIELD_RULES[key](q, value)]
    if len(fixed) == len(fields(Reference)):  # all given: evaluate it as it is
        broken += _layout_reasons(q, fixed)
        pool, any_fits = _given_layout(fixed), True
    else:
        scan = _scan(q, fixed, keep_fastest=True)
        pool, any_fits = _joined(scan.best), True
        if pool is None:
            pool, any_fits = _joined(scan.fastest), False
        if pool is None:
            return _reference_row(ref, None, broken + fixed_join_reasons(q, fixed) +
                                  ["no valid layout has these fields"])
    values = _flat_values(q, pool)
    i = _by_time(values)[0]
    row = _rows(q, pool, values, [i])[0]
    memory = "" if row["fits"] else _memory_reason(q, values["total_bytes"][i])
    if not any_fits:
        memory = "no layout with these fields fits: the fastest " + memory
    return _reference_row(ref, row, broken, memory)


# The table for one scenario ----------------------------------------------------------------------------------
PROBLEM_KEYS = ("model", "gpu", "price_per_gpu_hour", "fx_rate", "memory.sequence_length", "hours.tokens")  # what
# problem() reads beside `search:`, which a named scenario may change (and so search again): the price is converted


def problem(scenario, catalog=None) -> Problem:
    """The scenario's search in plain numbers: its model and GPU from the merged Catalog, the training sequence
    length (Memory), the training tokens (Hours) and the `search:` section."""
    price = money.gpu_price(scenario) if catalog is None else \
        money.converted(catalog.gpus[scenario.gpu].price_per_hour, scenario)  # in the reporting currency
    catalog = catalog or scenario.merged_catalog
    model, gpu, search = catalog.models[scenario.model], catalog.gpus[scenario.gpu], scenario.search
    return Problem(layers=model.layers, hidden=model.hidden, heads=model.heads, kv_heads=model.kv_heads,
                   head_dim=model.head_dim, ffn=model.ffn, vocab=model.vocab, gated=model.gated,
                   tied_embeddings=model.tied_embeddings, params=model.params, memory_gb=gpu.memory_gb,
                   peak_tflops=gpu.peak_tflops, hbm_tbps=gpu.hbm_tbps, nvlink_gbps=gpu.nvlink_gbps,
                   network_gbps=gpu.network_gbps, gpus_per_node=gpu.gpus_per_node,
                   gemm_efficiency=gpu.gemm_efficiency, price_per_gpu_hour=price,
                   sequence_length=scenario.memory.sequence_length, global_batch=search.global_batch,
                   tokens=scenario.hours.tokens, gpus_max=search.gpus_max, deadline_days=search.deadline_days,
                   headroom=search.headroom, flash_attention=search.flash_attention,
                   sequence_parallel=search.sequence_parallel, tp_overlap=search.tp_overlap,
                   dp_overlap=search.dp_overlap, grad_reduce_bytes=search.grad_reduce_bytes,
                   fsdp_regather=search.fsdp_regather, balanced_stages=search.balanced_stages)


def scenario_size(scenario, q: Problem | None = None) -> int:
    """The candidates computing one scenario evaluates: its search_size, LAYOUT_MFU_SEARCHES times with hours.mfu:
    layout."""
    size = search_size(q or problem(scenario), [dict(ref) for ref in _reference_key(scenario)])
    return size * (LAYOUT_MFU_SEARCHES if scenario.hours.mfu == LAYOUT else 1)


def run_size(scenario) -> int:
    """The candidates computing a scenario file evaluates: one search per distinct problem and references (_searched
    keeps each), over the scenario shown, the file's and each named scenario as the workbook computes it."""
    found = {(problem(s), _reference_key(s)): s for s in (scenario.shown(), scenario, *(
        scenario.in_workbook(name) for name, _ in scenario.named_scenarios())) if s.search is not None}
    return sum(scenario_size(s, q) for (q, _), s in found.items())


def _reference_key(scenario) -> tuple:
    """The scenario's reference layouts as _searched keys them: each one's given fields."""
    return tuple(tuple((k, v) for k, v in ref.model_dump().items() if v is not None) for ref in scenario.search.layouts)


def problem_values(q: Problem) -> dict:
    """The quantities of the model, the GPU and the run that every layout shares, plain (the Layouts sheet's first
    rows)."""
    full = Layout(t=1, p=1, c=1, d=1, b=1, v=1, z=0, recompute=FULL)  # its added FLOPs per token and layer
    values = {"ffn": q.ffn, "network_gbps": q.network_gbps, "gpus_per_node": q.gpus_per_node,
              "gemm_efficiency": q.gemm_efficiency, "attention_width": attention_width(q), "kv_width": kv_width(q),
              "layer_params": layer_params(q), "embedding_params": embedding_params(q),
              "layer_flops": layer_flops_per_token(q), "recompute_flops": recompute_flops_per_token(q, full),
              "peak_flops": peak_flops(q), "hbm": hbm_bytes_per_s(q), "nvlink": nvlink_bytes_per_s(q),
              "network": network_bytes_per_s(q), "usable_gb": usable_bytes(q) / 1e9, "steps": training_steps(q)}
    return {key: plain(value) for key, value in values.items()}


def row_values(q: Problem, row: dict) -> dict:
    """Every quantity of one shown layout (a row of the search: cheapest, front or reference), each step of the
    step time and of the memory, plain (the Layouts sheet's columns)."""
    x = layout_of(row)
    v = evaluate(q, x)
    values = {
        "data_parallel": row["data_parallel"], "micro_batches": v["micro_batches"],
        "tokens": micro_batch_tokens(q, x), "stage_layers": stage_layers(q, x),
        "fullest": largest_stage_layers(q, x), "act": activation_bytes_per_token(q, x),
        "att": attention_score_bytes_per_token(q, x), "gemm": v["gemm_s"], "logit": v["logit_s"],
        "memory": v["memory_s"], "tp": v["tp_s"], "cp": v["cp_s"], "pp": v["pp_s"],
        "micro_batch_s": v["micro_batch_s"], "critical": v["critical_s"],
        "bubble": (x.p - 1) / x.v * v["critical_s"], "stage_params": stage_params(q, x),
        "dp_comm": data_parallel_comm_seconds(q, x), "dp": v["data_parallel_s"], "optimizer": v["optimizer_s"],
        "step": v["step_s"], "mfu": v["mfu"], "megatron_mfu": v["megatron_mfu"],
        "states_gb": v["states_bytes"] / 1e9, "layer_gb": layer_activation_bytes(q, x) / 1e9,
        "activations_gb": v["activations_bytes"] / 1e9, "logits_gb": v["logits_bytes"] / 1e9,
        "memory_gb": v["total_bytes"] / 1e9, "fits": v["fits"], "days": v["days"], "gpu_hours": v["gpu_hours"],
        "cost": v["cost"], "meets_deadline": bool(v["fits"]) and (q.deadline_days is None
                                                                   or v["days"] <= q.deadline_days)}
    return {key: plain(value) for key, value in values.items()}


@dataclass(frozen=True)
class LayoutsTable:
    """docs/method.md §10 for one scenario: the problem it searched and what the search found."""

    problem: Problem
    search: LayoutSearch

    def row_values(self, row: dict) -> dict:
        return row_values(self.problem, row)

    def problem_values(self) -> dict:
        return problem_values(self.problem)

    @property
    def headline(self) -> dict:
        return self.search.headline

    @property
    def checks(self) -> dict[str, bool]:
        return {"search_layout_found": bool(self.search.cheapest), "search_rows_valid": True,  # rows as generated
                "search_as_searched": True,  # the GPU, deadline and GPU budget as generated are those searched
                "search_gpu_known": True}  # a scenario's search without them is refused

    def to_json(self) -> dict:
        return {**self.search.to_json(), "problem": {f.name: getattr(self.problem, f.name) for f in
                                                     fields(self.problem)}}


def compute(scenario, tables) -> LayoutsTable:
    q = problem(scenario)
    return LayoutsTable(q, _searched(q, _reference_key(scenario)))


@functools.lru_cache(maxsize=16)
def _searched(q: Problem, references: tuple) -> LayoutSearch:
    """One search per problem: the plan's alternatives and tornado re-evaluate a scenario whose search is the same."""
    return search(q, [dict(ref) for ref in references])


CONSTANTS = [
    Constant("hbm_passes_per_activation_byte", HBM_PASSES, label="HBM passes per activation byte (β)", unit="passes",
             source="Written and read in the forward, read and written in the backward (docs/method.md §10)"),
    Constant("nvlink_efficiency", NVLINK_EFFICIENCY, label="Sustained share of NVLink bandwidth", unit="share",
             source="Collectives over NVLink reach about 0.65 of the per-direction rate (docs/method.md §10)"),
    Constant("network_efficiency", NETWORK_EFFICIENCY, label="Sustained share of network bandwidth", unit="share",
             source="Collectives over the scale-out network reach about 0.90 of the per-GPU rate (docs/method.md §10)"),
    Constant("tp_collective_latency_us", TP_LATENCY_US, label="Latency per tensor-parallel collective", unit="µs",
             source="Fixed cost of one all-reduce within a node (docs/method.md §10)"),
    Constant("pp_send_latency_us", PP_LATENCY_US, label="Latency per pipeline send", unit="µs",
             source="Fixed cost of one point-to-point send between stages (docs/method.md §10)"),
    Constant("adam_step_bytes_per_param", ADAM_BYTES, label="HBM traffic of one Adam step per parameter", unit="bytes",
             source="Optimizer state, master weight and gradient read and written (docs/method.md §10)"),
    Constant("recompute_traffic_factor", RECOMPUTE_TRAFFIC, label="Memory traffic with a recomputed forward", unit="×",
             source="One more forward on top of forward + backward, 4/3 (docs/method.md §10)"),
    Constant("attention_ops_per_token_position", ATTENTION_OPS, label="Attention FLOPs per token, position and width",
             unit="FLOP",
                 source="QKᵀ and AV, 2 FLOPs each, × 3 for forward and backward (Narayanan et al. 2021; PaLM)"),
    Constant("recompute_attention_ops", RECOMPUTE_ATTENTION_OPS, label="… added by recomputing attention", unit="FLOP",
             source="One more forward of QKᵀ and AV (Korthikanti et al. 2022)"),
    Constant("unsplit_activation_bytes", state.UNSPLIT_ACTIVATION_BYTES,
             label="Activation bytes per s·b·h not split by t", unit="bytes",
             source="Without sequence parallelism: (10 + 24/t)·s·b·h (Korthikanti et al. 2022, Table 2)"),
    Constant("split_activation_bytes", state.SPLIT_ACTIVATION_BYTES, label="Activation bytes per s·b·h split by t",
             unit="bytes",
             source="Korthikanti et al. 2022, Table 2"),
    Constant("attention_score_bytes", ATTENTION_SCORE_BYTES, label="Attention-score bytes per token, head and position",
             unit="bytes",
                 source="Softmax, its dropout mask and output without FlashAttention (Korthikanti et al., Table 2)"),
    Constant("logit_traffic_bytes", LOGIT_TRAFFIC_BYTES, label="HBM bytes per token and vocabulary entry for logits",
             unit="bytes", source="FP32 logits and their gradient through the softmax (docs/method.md §10)"),
    Constant("logit_bytes", LOGIT_BYTES, label="Logit bytes kept per token and vocabulary entry", unit="bytes",
             source="FP32 logits on the last stage (docs/method.md §10)"),
    Constant("tp_collectives_per_layer", TP_COLLECTIVES, label="Tensor-parallel all-reduces per layer", unit="count",
             source="2 forward + 2 backward (Shoeybi et al. 2019, §3)"),
    Constant("recompute_tp_collectives", RECOMPUTE_TP_COLLECTIVES, label="… added by full recompute", unit="count",
             source="The recomputed forward's 2 (Korthikanti et al. 2022)"),
    Constant("cp_exchanges_per_layer", CP_EXCHANGES, label="Context-parallel K/V exchanges per layer", unit="count",
             source="Forward and backward round the ring (docs/method.md §10)"),
    Constant("recompute_cp_exchanges", RECOMPUTE_CP_EXCHANGES, label="… added by full recompute", unit="count",
             source="The recomputed forward's one (docs/method.md §10)"),
    Constant("pp_sends_per_micro_batch", PP_SENDS, label="Pipeline sends per micro-batch and virtual stage",
             unit="count",
             source="The activation forward, its gradient backward (Narayanan et al. 2021)"),
    Constant("cp_min_tokens", CP_MIN_TOKENS, label="Least tokens per context-parallel rank", unit="tokens",
             source="docs/method.md §10's search grid"),
    Constant("cp_chunks_per_rank", CP_CHUNKS, label="Sequence chunks per context-parallel rank", unit="count",
             source="One early and one late chunk balance causal attention (the grid's s divisible by 2c)"),
]

METHOD = Method(
    title="Layout search",
    formulas=[
        "For each layout (t, p, c, d, b, v, ZeRO, recompute) a step time: the critical stage's micro-batch "
        "(GEMMs at η of the BF16 peak, memory-bound work at HBM speed, tensor- and context-parallel collectives, "
        "pipeline sends) times m + (p−1)/v, plus the exposed data-parallel traffic and the Adam step.",
        "MFU = 6·Ψ·B·s/(N·T_step·P); Megatron's MFU also counts attention, 12·L·A·s per token.",
        "Memory per GPU: ZeRO-sharded states, the first stage's activations in flight, logits when p = 1; a layout "
        "fits when it needs at most headroom × the GPU's memory in GiB (2^30 bytes), as frameworks count.",
        "Days = steps·T_step/86400, GPU-hours = N·steps·T_step/3600, cost = GPU-hours × price; layouts ranked "
        "by cost, then days, then memory.",
    ],
    sources=[
        "Narayanan et al. 2021, Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM "
        "(arXiv 2104.04473): interleaved 1F1B, bubble (p−1)/(v·m), Table 1.",
        "Shoeybi et al. 2019, Megatron-LM (arXiv 1909.08053): four all-reduces per layer.",
        "Korthikanti et al. 2022 (arXiv 2205.05198): activation bytes, sequence parallelism, selective recompute.",
        "Rajbhandari et al. 2020, ZeRO (arXiv 1910.02054): sharded model states.",
        "Llama Team 2024, The Llama 3 Herd of Models (arXiv 2407.21783): 8/16/1/128 on 16,384 H100s.",
    ],
    caveats=[
        "η (the sustained GEMM share) is fitted: 0.65 on A100 to Narayanan et al., 0.47 on H100; the other GPUs' "
        "values are scaled by measured matmul rates and unvalidated.",
        "Dense models only; no failures, restarts or checkpoint saves in the step time.",
    ],
)
