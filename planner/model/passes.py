"""What a pass over tokens costs on a GPU: its FLOPs and bytes, the GPU's effective peak and bandwidth, the
tensor-parallel all-reduce, the roofline's seconds, and the serving capacity they leave (docs/method.md §2, §6, §7,
§12). One copy of each; planner/workbook/model.py holds each one's Excel twin under the same name.

Every function takes scalars or numpy arrays (broadcast together) and assumes valid inputs (t ≥ 1, B ≥ 1). Units:
bytes, FLOP, seconds; GB = 1e9 bytes.
"""

from __future__ import annotations

import numpy as np

from planner.engine.shared import SECONDS_PER_HOUR
from planner.method import Constant

GB = 1e9
ROUNDING_DECIMALS = 9  # the sheet's 15-digit arithmetic: a whole-number result rounds to 9 decimals first

# Operations per parameter per token: a forward pass 2 (a multiply-add), training forward 2 + backward 4 (Kaplan et
# al. 2020, "6N"); recomputing the activations adds one more forward pass, 2 (Korthikanti et al. 2022, §5).
FORWARD_OPS = 2
TRAINING_OPS = 6
RECOMPUTE_OPS = 8
# Megatron-LM's tensor parallelism all-reduces each layer's output twice, after attention and after the MLP
# (Shoeybi et al. 2019, §3).
ALL_REDUCES_PER_LAYER = 2
ALL_REDUCE_LATENCY_US = 8  # α, per all-reduce: llm-analysis's H100 NVLink figure
ACTIVATION_BYTES = 2  # b_a: BF16 activations all-reduced, h values per token


def blank_as_zero(value):
    """A blank catalog cell (None, alone or inside a list) as 0, so `value > 0` asks whether the figure exists."""
    if value is None:
        return 0.0
    if isinstance(value, (list, tuple)):
        return np.array([0.0 if v is None else v for v in value], dtype=float)
    return value


# Training ------------------------------------------------------------------------------------------------------
def training_flops(params, tokens, activation_recompute):
    """C = 6·Ψ·T, or 8·Ψ·T with activation recomputation (Ψ_active for a mixture of experts, §7)."""
    return np.where(activation_recompute, RECOMPUTE_OPS, TRAINING_OPS) * np.multiply(params, tokens, dtype=float)


# The GPU and the precision -------------------------------------------------------------------------------------
def bytes_per_weight(weight_bits):
    """b_w = bits per weight / 8 (bits include the quantisation scales: int4-g128 is 4.125)."""
    return np.asarray(weight_bits, dtype=float) / 8


def weights_per_gpu(params, weight_bytes, tensor_parallel):
    """W_g = Ψ·b_w / t bytes: the footprint, every parameter (the input embedding and every expert) resident."""
    return params * weight_bytes / tensor_parallel


def effective_peak_flops(peak_tflops, fp8_tflops, fp8_gemm, fp4_tflops=None, fp4_gemm=False):
    """P_e = (FP4 TFLOPS if the weight precision's GEMMs are FP4 and the GPU has FP4, else FP8 TFLOPS if they are
    FP8 and the GPU has FP8, else BF16 TFLOPS)·1e12; a blank (None) or zero FP4 or FP8 figure means the GPU has
    none. (fp4's GEMMs are FP8 too: without an FP4 peak they run at FP8's.)"""
    fp8 = np.asarray(blank_as_zero(fp8_tflops), dtype=float)
    fp4 = np.asarray(blank_as_zero(fp4_tflops), dtype=float)
    below = np.where(np.asarray(fp8_gemm, dtype=bool) & (fp8 > 0), fp8, peak_tflops)
    return np.where(np.asarray(fp4_gemm, dtype=bool) & (fp4 > 0), fp4, below) * 1e12


def effective_bandwidth(hbm_tbps, bandwidth_efficiency):
    """BW_e = HBM TB/s·1e12·η_m bytes per second."""
    return hbm_tbps * 1e12 * bandwidth_efficiency


def all_reduce_seconds(tokens, layers, hidden, tensor_parallel, nvlink_gbps, combined_layers=0):
    """AR(n) = IF(t = 1, 0, (2·L − L_c)·(α + 2·(t−1)/t·n·h·b_a/(NVLink GB/s·1e9))): Megatron's two all-reduces per
    layer, a ring moving 2·(t−1)/t of the n·h activations, on the NVLink figure as listed (not derated); with expert
    parallelism the MoE layers' second all-reduce is the all-to-all's combine (L_c = L_moe, §14.5), else L_c = 0."""
    t = np.asarray(tensor_parallel, dtype=float)
    nvlink = np.asarray(blank_as_zero(nvlink_gbps), dtype=float)
    if np.any((t > 1) & ~(nvlink > 0)):
        raise ValueError("serving with tensor_parallel > 1 needs the GPU's NVLink GB/s (nvlink_gbps)")
    ring = np.divide(2 * (t - 1) / t * np.asarray(tokens, dtype=float) * hidden * ACTIVATION_BYTES,
                     nvlink * 1e9, out=np.zeros(np.broadcast(t, tokens, hidden, nvlink).shape), where=nvlink > 0)
    reduces = ALL_REDUCES_PER_LAYER * layers if not np.any(combined_layers) else \
        ALL_REDUCES_PER_LAYER * layers - combined_layers
    return np.where(t == 1, 0.0, reduces * (ALL_REDUCE_LATENCY_US / 1e6 + ring))


def all_to_all_seconds(tokens, *, moe_layers, experts_per_token, hidden, tensor_parallel, expert_parallel,
                       nvlink_gbps):
    """A2A(n_r) = IF(e = 1, 0, 2·L_moe·(α + k·(n_r/t)·h·b_a·(e − 1)/e/(NVLink GB/s·1e9))): the dispatch and the
    combine of each MoE layer; each GPU sends its n_r/t tokens' k copies, the share (e − 1)/e of them to other GPUs
    (docs/method.md §14.5; BLIS tMoEDispatch, AIConfigurator moe_comm_resolver.py)."""
    e = np.asarray(expert_parallel, dtype=float)
    nvlink = np.asarray(blank_as_zero(nvlink_gbps), dtype=float)
    if np.any((e > 1) & ~(nvlink > 0)):
        raise ValueError("serving with expert_parallel > 1 needs the GPU's NVLink GB/s (nvlink_gbps)")
    sent = (np.multiply(experts_per_token, tokens, dtype=float) / tensor_parallel * hidden * ACTIVATION_BYTES
            * (e - 1) / e)
    moved = np.divide(sent, nvlink * 1e9, out=np.zeros(np.broadcast(sent, nvlink).shape), where=nvlink > 0)
    return np.where(e == 1, 0.0, 2 * np.asarray(moe_layers, dtype=float) * (ALL_REDUCE_LATENCY_US / 1e6 + moved))


# Capacity ------------------------------------------------------------------------------------------------------
def capacity_pool(memory_gb, memory_reserve, weights_per_gpu):
    """pool = GPU GB·1e9·(1 − r) − W_g bytes: what the KV cache may take once the reserve (1 − vLLM's
    gpu_memory_utilization) and the weights are set aside."""
    return memory_gb * GB * (1 - memory_reserve) - weights_per_gpu


def max_concurrency(pool, sequence_length, kv_per_token):
    """B_max = IF(pool ≤ 0, 0, INT(pool / ((s+o)·KV_g))): each sequence reserves its final length (TRT-LLM's no-evict
    admission, vLLM's "maximum concurrency"). INT of the quotient rounded to 9 decimals (INT9), as the sheet does."""
    per_sequence = np.multiply(sequence_length, kv_per_token, dtype=float)
    quotient = np.divide(pool, per_sequence, out=np.zeros(np.broadcast(pool, per_sequence).shape),
                         where=per_sequence > 0)
    return np.where(np.asarray(pool) <= 0, 0, np.floor(np.round(quotient, ROUNDING_DECIMALS))).astype(int)


def kv_cache_bytes(batch, sequence_length, kv_per_token):
    """B·(s+o)·KV_g: the KV cache B sequences reserve at their final length (the capacity's own accounting)."""
    return np.multiply(batch, sequence_length, dtype=float) * kv_per_token


def reserve_bytes(memory_gb, memory_reserve):
    """GPU GB·1e9·r: memory held back for activations, the CUDA context and fragmentation."""
    return memory_gb * GB * memory_reserve


# Lengths -------------------------------------------------------------------------------------------------------
def default_prompt_tokens(sequence_length):
    """s = a quarter of the sequence length, rounded down (2,048 at 8,192)."""
    return np.asarray(sequence_length) // 4


def output_tokens(sequence_length, prompt_tokens):
    """o = sequence length − s."""
    return np.subtract(sequence_length, prompt_tokens)


def mean_context(prompt_tokens, outputs):
    """c̄ = s + o/2: the context a decoding sequence attends to, on average over its output."""
    return np.add(prompt_tokens, np.divide(outputs, 2))


# Passes --------------------------------------------------------------------------------------------------------
def prefill_flops(multiplied, prompt_tokens, layers, attention_width, batch=1, cached_tokens=0):
    """B·(2·Ψ_mm·s_n + L·(s² − s_h²)·(w_qk + w_av)) with s_n = s − s_h new tokens: their GEMMs, and their causal
    attention over the whole prompt (half of 2·L·s²·(w_qk + w_av) without a cached prefix, §6; §12.3)."""
    s = np.asarray(prompt_tokens, dtype=float)
    cached = np.asarray(cached_tokens, dtype=float)
    return batch * (FORWARD_OPS * multiplied * (s - cached) + layers * (s ** 2 - cached ** 2) * attention_width)


def prefill_bytes(streamed, weight_bytes, tensor_parallel, prompt_tokens, kv_per_token, batch=1):
    """S(B·s_n)·b_w/t + B·s·KV_g: the weights the new tokens touch, once, and the KV cache of every prompt token
    (cached ones read, new ones written)."""
    return streamed * weight_bytes / tensor_parallel + np.multiply(batch, prompt_tokens, dtype=float) * kv_per_token


def decode_flops(multiplied, layers, context, attention_width, batch, tokens_per_sequence=1):
    """B·k·(2·Ψ_mm + 2·L·c̄·(w_qk + w_av)): k tokens (1, or a verify pass's k + 1) for each of B sequences at the
    mean context."""
    attention = 2 * np.multiply(layers, context) * attention_width  # 2 FLOP per multiply-add
    return np.multiply(np.multiply(batch, tokens_per_sequence), FORWARD_OPS * multiplied + attention)


def decode_bytes(streamed, weight_bytes, tensor_parallel, context, kv_per_token, batch):
    """S(n)·b_w/t + B·c̄·KV_g: the weights a step's tokens touch, once per step, and every sequence's KV cache."""
    return streamed * weight_bytes / tensor_parallel + np.multiply(batch, context, dtype=float) * kv_per_token


def compute_seconds(flops, tensor_parallel, peak_flops, compute_efficiency):
    """FLOPs/(t·P_e·η_c): a pass's time at the compute roofline."""
    return flops / (np.multiply(tensor_parallel, peak_flops) * compute_efficiency)


def memory_seconds(bytes_moved, bandwidth):
    """bytes/BW_e: a pass's time at the memory roofline."""
    return bytes_moved / bandwidth


def pass_seconds(*, compute, memory, all_reduce, overhead_s):
    """MAX(compute, memory) + AR + τ: the roofline of one pass (compute_seconds, memory_seconds), plus its
    all-reduces and overhead."""
    return np.maximum(compute, memory) + all_reduce + overhead_s


def cycle_seconds(prefill_s, outputs, tpot_s):
    """cycle(B) = T_pre(B) + o·TPOT(B): prefill and decode serial (chunked prefill stalls decode)."""
    return prefill_s + outputs * tpot_s


def inter_token_latency(cycle_s, outputs):
    """ITL(B) = cycle / o: the gap between a sequence's tokens under load, its share of the prefill included."""
    return cycle_s / outputs


def tokens_per_second_per_gpu(batch, outputs, cycle_s, tensor_parallel):
    """TokS(B) = B·o / (cycle·t): output tokens per second per GPU."""
    return np.multiply(batch, outputs, dtype=float) / (cycle_s * tensor_parallel)


def gpu_hours(flops, peak_tflops, mfu):
    """H = C / (peak·1e12 · MFU · 3600): GPU-hours for C operations at the achieved share of a peak (§2, §3)."""
    return flops / (peak_tflops * 1e12 * mfu * SECONDS_PER_HOUR)


def serving_gpu_hours(tokens, tokens_per_s):
    """tokens / (3600·TokS): the GPU-hours that serve `tokens` output tokens at TokS per second per GPU (§9, §13)."""
    return tokens / (SECONDS_PER_HOUR * tokens_per_s)


def cost_per_million_tokens(price_per_gpu_hour, tokens_per_s):
    """price·1e6 / (3600·TokS): the cost of a million output tokens."""
    return price_per_gpu_hour * 1e6 / (SECONDS_PER_HOUR * tokens_per_s)


def serving_mfu(active_params, tokens_per_s, peak_tflops):
    """2·Ψ_active·TokS / (BF16 TFLOPS·1e12): the share of the BF16 peak Crossover's serving MFU means (it counts
    2·Ψ_active per served token), whatever the precision."""
    return FORWARD_OPS * active_params * tokens_per_s / (peak_tflops * 1e12)


# Speculative decoding (§12.2) ----------------------------------------------------------------------------------
def tokens_per_verify_step(draft_tokens, acceptance):
    """E = IF(α = 1, k + 1, (1 − α^(k+1))/(1 − α)): tokens a verify step yields when each drafted token is accepted
    with probability α given the ones before it (Leviathan et al. 2023)."""
    alpha = np.asarray(acceptance, dtype=float)
    k = np.asarray(draft_tokens, dtype=float)
    safe = np.where(alpha == 1, 0.5, alpha)
    return np.where(alpha == 1, k + 1, (1 - safe ** (k + 1)) / (1 - safe))


# Measured runs (§6, §12.1) ---------------------------------------------------------------------------------------
def mean_concurrency(latency_sum_s, duration_s):
    """B̄ = Σ request latencies / run duration (Little's law: the mean number of requests in the system); None for
    a run of no duration."""
    return None if not duration_s > 0 else float(latency_sum_s) / float(duration_s)


def implied_bandwidth_efficiency(step_bytes, hbm_tbps, measured_tpot_s, all_reduce_s, overhead_s):
    """η_m implied = the decode step's bytes / (HBM TB/s·1e12·(measured median TPOT − AR − τ)); None when AR + τ
    alone take the whole measured step (no time left for the memory)."""
    left = measured_tpot_s - all_reduce_s - overhead_s
    return None if not left > 0 else float(step_bytes / (hbm_tbps * 1e12 * left))


def implied_compute_efficiency(*, flops, tensor_parallel, peak_flops, measured_ttft_s, all_reduce_s, overhead_s):
    """η_c implied = prefill FLOPs / (t·P_e·(measured median TTFT − AR − τ)); None when AR + τ take it all."""
    left = measured_ttft_s - all_reduce_s - overhead_s
    return None if not left > 0 else float(flops / (tensor_parallel * peak_flops * left))


# Named cells on the Method sheet
TRAINING_CONSTANTS = [
    Constant("training_ops_per_param_token", TRAINING_OPS, label="Operations per parameter per training token",
             unit="FLOP",
             source="Forward 2 + backward 4 (Kaplan et al. 2020, C ≈ 6·N·D)"),
    Constant("recompute_ops_per_param_token", RECOMPUTE_OPS, label="… with activation recomputation", unit="FLOP",
             source="One extra forward pass, + 2 (Korthikanti et al. 2022, §5; Chowdhery et al. 2022)"),
]
SERVING_OPS_CONSTANT = Constant("serving_ops_per_param_token", FORWARD_OPS, label="Operations per parameter per "
                                "served token", unit="FLOP", source="The forward pass alone, 2 (Kaplan et al. "
                                "2020): a third of a training token's 6")
ALL_REDUCE_CONSTANTS = [
    Constant("serving_all_reduce_latency_us", ALL_REDUCE_LATENCY_US, label="All-reduce latency α", unit="µs",
             source="Per all-reduce on NVLink: llm-analysis's H100 figure"),
    Constant("serving_activation_bytes", ACTIVATION_BYTES, label="Activation bytes b_a", unit="bytes",
             source="BF16 activations, h values per token, all-reduced between tensor-parallel GPUs"),
    Constant("serving_all_reduces_per_layer", ALL_REDUCES_PER_LAYER, label="All-reduces per layer", unit="count",
             source="Megatron-LM tensor parallelism: after attention and after the MLP (Shoeybi et al. 2019, §3)"),
]
