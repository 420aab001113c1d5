"""Serving: capacity, latency, throughput and cost per million tokens (docs/method.md §6, with §7's MoE and MLA terms).

A roofline model of one replica of t GPUs (serving tensor parallel) under steady continuous batching: prefill is
bound by compute, decode by memory bandwidth (Splitwise, DistServe); every pass pays its tensor-parallel all-reduces
and a fixed overhead τ. The functions below take scalars or numpy arrays (broadcast together) and assume valid
inputs (t ≥ 1, 1 ≤ s < sequence length, B ≥ 1); `Replica` strings them together for one scenario and turns every
undefined value into None, never NaN or infinity. Units: bytes, FLOP, seconds (τ arrives in ms); GB = 1e9 bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from planner.engine.cluster import ROUNDING_DECIMALS  # the sheet's 15-digit arithmetic: INT9 as CEIL9
from planner.engine.crossover import SERVING_OPS  # 2 FLOP per parameter per token, forward (Kaplan et al. 2020)
from planner.engine.parameters import KV_TENSORS  # a key and a value per layer
from planner.engine.values import plain
from planner.method import Constant, Method

GB = 1e9
# Megatron-LM's tensor parallelism all-reduces each layer's output twice, after attention and after the MLP
# (Shoeybi et al. 2019, §3).
ALL_REDUCES_PER_LAYER = 2
ALL_REDUCE_LATENCY_US = 8  # α, per all-reduce: llm-analysis's H100 NVLink figure
ACTIVATION_BYTES = 2  # b_a: BF16 activations all-reduced, h values per token
POWERS_OF_TWO = 17  # the concurrency table's B = 2^0 … 2^16 rows, then B_max and the users: 19 rows in all
TABLE_ROWS = POWERS_OF_TWO + 2

def _blank_as_zero(value):
    """A blank catalog cell (None, alone or inside a list) as 0, so `value > 0` asks whether the figure exists."""
    if value is None:
        return 0.0
    if isinstance(value, (list, tuple)):
        return np.array([0.0 if v is None else v for v in value], dtype=float)
    return value


# Model and precision --------------------------------------------------------------------------------------------------
def multiplied_params(active_params, vocab, hidden, tied_embeddings=False):
    """Ψ_mm = Ψ_active − (1 − tied)·V·h: the input embedding is a lookup (no FLOPs, not streamed); the lm_head stays
    in, and a tied model's one matrix is its lm_head."""
    return active_params - (1 - np.asarray(tied_embeddings, dtype=float)) * vocab * hidden


def bytes_per_weight(weight_bits):
    """b_w = bits per weight / 8 (bits include the quantisation scales: int4-g128 is 4.125)."""
    return np.asarray(weight_bits, dtype=float) / 8


def weights_per_gpu(params, weight_bytes, tensor_parallel):
    """W_g = Ψ·b_w / t bytes: the footprint, every parameter (the input embedding and every expert) resident."""
    return params * weight_bytes / tensor_parallel


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
    expert = np.where(gated, 3, 2) * np.asarray(hidden, dtype=float) * expert_ffn  # SwiGLU's 3 matrices, GeLU's 2
    touched = expected_experts(experts, experts_per_token, tokens)
    moe = multiplied - moe_layers * experts_per_token * expert + moe_layers * expert * touched
    return np.where(np.asarray(experts) > 0, moe, multiplied)


def kv_bytes_per_token_per_gpu(layers, kv_heads, head_dim, kv_bytes, tensor_parallel, kv_lora_rank=0,
                               qk_rope_head_dim=0):
    """KV_g. GQA/MHA: 2·L·MAX(kv_heads/t, 1)·head_dim·b_kv (KV heads split over t, replicated once t > kv_heads).
    MLA (kv_lora_rank > 0, §7): (r_kv + rope)·b_kv·L, one latent per layer, replicated on every tensor-parallel GPU."""
    gqa = KV_TENSORS * layers * np.maximum(np.divide(kv_heads, tensor_parallel), 1) * head_dim * kv_bytes
    mla = (np.asarray(kv_lora_rank) + qk_rope_head_dim) * kv_bytes * layers
    return np.where(np.asarray(kv_lora_rank) > 0, mla, gqa)


def kv_heads_split_evenly(kv_heads, tensor_parallel):
    """§6's condition: t divides kv_heads or kv_heads divides t (else KV heads cannot be split or replicated evenly)."""
    kv, t = np.asarray(kv_heads), np.asarray(tensor_parallel)
    return (kv % t == 0) | (t % kv == 0)


def attention_qk_width(heads, head_dim, kv_lora_rank=0, qk_nope_head_dim=0, qk_rope_head_dim=0):
    """w_qk: GQA/MHA heads·head_dim (the query heads: GQA does not reduce FLOPs); MLA heads·(qk_nope + qk_rope)."""
    return np.where(np.asarray(kv_lora_rank) > 0, np.multiply(heads, np.add(qk_nope_head_dim, qk_rope_head_dim)),
                    np.multiply(heads, head_dim))


def attention_av_width(heads, head_dim, kv_lora_rank=0, v_head_dim=0):
    """w_av: GQA/MHA heads·head_dim; MLA heads·v_head_dim."""
    return np.where(np.asarray(kv_lora_rank) > 0, np.multiply(heads, v_head_dim), np.multiply(heads, head_dim))


# GPU ------------------------------------------------------------------------------------------------------------------
def effective_peak_flops(peak_tflops, fp8_tflops, fp8_gemm):
    """P_e = (FP8 TFLOPS if the weight precision's GEMMs are FP8 and the GPU has FP8, else BF16 TFLOPS)·1e12;
    a blank (None) or zero FP8 figure means the GPU has none."""
    fp8 = np.asarray(_blank_as_zero(fp8_tflops), dtype=float)
    return np.where(np.asarray(fp8_gemm, dtype=bool) & (fp8 > 0), fp8, peak_tflops) * 1e12


def effective_bandwidth(hbm_tbps, bandwidth_efficiency):
    """BW_e = HBM TB/s·1e12·η_m bytes per second."""
    return hbm_tbps * 1e12 * bandwidth_efficiency


def all_reduce_seconds(tokens, layers, hidden, tensor_parallel, nvlink_gbps):
    """AR(n) = IF(t = 1, 0, 2·L·(α + 2·(t−1)/t·n·h·b_a/(NVLink GB/s·1e9))): Megatron's two all-reduces per layer,
    a ring moving 2·(t−1)/t of the n·h activations, on the NVLink figure as listed (not derated)."""
    t = np.asarray(tensor_parallel, dtype=float)
    nvlink = np.asarray(_blank_as_zero(nvlink_gbps), dtype=float)
    if np.any((t > 1) & ~(nvlink > 0)):
        raise ValueError("serving with tensor_parallel > 1 needs the GPU's NVLink GB/s (nvlink_gbps)")
    ring = np.divide(2 * (t - 1) / t * np.asarray(tokens, dtype=float) * hidden * ACTIVATION_BYTES,
                     nvlink * 1e9, out=np.zeros(np.broadcast(t, tokens, hidden, nvlink).shape), where=nvlink > 0)
    return np.where(t == 1, 0.0, ALL_REDUCES_PER_LAYER * layers * (ALL_REDUCE_LATENCY_US / 1e6 + ring))


# Capacity -------------------------------------------------------------------------------------------------------------
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


# Lengths --------------------------------------------------------------------------------------------------------------
def default_prompt_tokens(sequence_length):
    """s = a quarter of the sequence length, rounded down (2,048 at 8,192)."""
    return np.asarray(sequence_length) // 4


def output_tokens(sequence_length, prompt_tokens):
    """o = sequence length − s."""
    return np.subtract(sequence_length, prompt_tokens)


def mean_context(prompt_tokens, outputs):
    """c̄ = s + o/2: the context a decoding sequence attends to, on average over its output."""
    return np.add(prompt_tokens, np.divide(outputs, 2))


# Passes ---------------------------------------------------------------------------------------------------------------
def prefill_flops(multiplied, prompt_tokens, layers, qk_width, av_width, batch=1):
    """B·(2·Ψ_mm·s + L·s²·(w_qk + w_av)): the GEMMs, and causal attention (half of 2·L·s²·(w_qk + w_av))."""
    s = np.asarray(prompt_tokens, dtype=float)
    return batch * (SERVING_OPS * multiplied * s + layers * s ** 2 * np.add(qk_width, av_width))


def prefill_bytes(streamed, weight_bytes, tensor_parallel, prompt_tokens, kv_per_token, batch=1):
    """S(B·s)·b_w/t + B·s·KV_g: the weights the prompts touch, once, and the KV cache they write."""
    return streamed * weight_bytes / tensor_parallel + np.multiply(batch, prompt_tokens, dtype=float) * kv_per_token


def decode_flops(multiplied, layers, context, qk_width, av_width, batch):
    """B·(2·Ψ_mm + 2·L·c̄·(w_qk + w_av)): one token for each of B sequences at the mean context."""
    attention = 2 * np.multiply(layers, context) * np.add(qk_width, av_width)  # 2 FLOP per multiply-add
    return np.multiply(batch, SERVING_OPS * multiplied + attention)


def decode_bytes(streamed, weight_bytes, tensor_parallel, context, kv_per_token, batch):
    """S(B)·b_w/t + B·c̄·KV_g: the weights B tokens touch, once per step, and every sequence's KV cache."""
    return streamed * weight_bytes / tensor_parallel + np.multiply(batch, context, dtype=float) * kv_per_token


def pass_seconds(flops, bytes_moved, tensor_parallel, peak_flops, compute_efficiency, bandwidth, all_reduce,
                 overhead_s):
    """MAX(FLOPs/(t·P_e·η_c), bytes/BW_e) + AR + τ: the roofline of one pass, plus its all-reduces and overhead.
    TTFT, TPOT(B) and T_pre(B) are this with the prefill or decode FLOPs and bytes (see `Replica`)."""
    compute = flops / (np.multiply(tensor_parallel, peak_flops) * compute_efficiency)
    return np.maximum(compute, bytes_moved / bandwidth) + all_reduce + overhead_s


def cycle_seconds(prefill_s, outputs, tpot_s):
    """cycle(B) = T_pre(B) + o·TPOT(B): prefill and decode serial (chunked prefill stalls decode)."""
    return prefill_s + outputs * tpot_s


def inter_token_latency(cycle_s, outputs):
    """ITL(B) = cycle / o: the gap between a sequence's tokens under load, its share of the prefill included."""
    return cycle_s / outputs


def tokens_per_second_per_gpu(batch, outputs, cycle_s, tensor_parallel):
    """TokS(B) = B·o / (cycle·t): output tokens per second per GPU."""
    return np.multiply(batch, outputs, dtype=float) / (cycle_s * tensor_parallel)


def cost_per_million_tokens(price_per_gpu_hour, tokens_per_s):
    """price·1e6 / (3600·TokS): the cost of a million output tokens."""
    return price_per_gpu_hour * 1e6 / (3600 * tokens_per_s)


def serving_mfu(active_params, tokens_per_s, peak_tflops):
    """2·Ψ_active·TokS / (BF16 TFLOPS·1e12): the share of the BF16 peak Crossover's serving MFU means (it counts
    2·Ψ_active per served token), whatever the precision."""
    return SERVING_OPS * active_params * tokens_per_s / (peak_tflops * 1e12)


# Calibration from measured runs ---------------------------------------------------------------------------------------
def mean_concurrency(latency_sum_s, duration_s):
    """B̄ = Σ request latencies / run duration (Little's law: the mean number of requests in the system); None for
    a run of no duration."""
    return None if not duration_s > 0 else float(latency_sum_s) / float(duration_s)


def implied_bandwidth_efficiency(step_bytes, hbm_tbps, measured_tpot_s, all_reduce_s, overhead_s):
    """η_m implied = the decode step's bytes / (HBM TB/s·1e12·(measured median TPOT − AR − τ)); None when AR + τ
    alone take the whole measured step (no time left for the memory)."""
    left = measured_tpot_s - all_reduce_s - overhead_s
    return None if not left > 0 else float(step_bytes / (hbm_tbps * 1e12 * left))


def implied_compute_efficiency(flops, tensor_parallel, peak_flops, measured_ttft_s, all_reduce_s,
                               overhead_s):
    """η_c implied = prefill FLOPs / (t·P_e·(measured median TTFT − AR − τ)); None when AR + τ take it all."""
    left = measured_ttft_s - all_reduce_s - overhead_s
    return None if not left > 0 else float(flops / (tensor_parallel * peak_flops * left))


# One replica, for one scenario ----------------------------------------------------------------------------------------
def concurrency_batches(max_batch, users, powers=POWERS_OF_TWO) -> list[tuple[str, int | None]]:
    """The table's rows as (role, B): B = 1, 2, 4, … below B_max ("power", blank from B_max up), B_max ("max"), the
    users ("users", blank when they equal a B shown above: a duplicate is shown once)."""
    rows = [("power", 2 ** k if 2 ** k < max_batch else None) for k in range(powers)]
    rows.append(("max", int(max_batch)))
    shown = {b for _, b in rows if b is not None}
    rows.append(("users", None if users in shown else int(users)))
    return rows


def _number(value):
    """A result as a plain Python number; NaN or infinity is refused (`plain`): undefined values are guarded before
    they are computed and shown as None, so one that slipped through is a bug, not a blank."""
    return plain(np.asarray(value))


@dataclass(frozen=True, kw_only=True)
class Replica:
    """One serving replica's inputs as plain numbers: the model (§7's fields default to a dense GQA model), the
    GPU, the weight and KV precisions and the `serving` section's knobs. Properties and methods are §6's quantities,
    in seconds, bytes and FLOP unless their name says ms or GB."""

    # the model
    params: float  # Ψ, every parameter (the footprint)
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    active_params: float | None = None  # Ψ_active; None = Ψ (dense)
    tied_embeddings: bool = False
    gated: bool = True  # SwiGLU experts (3·h·F_e), else GeLU (2·h·F_e)
    experts: int = 0  # E, 0 = dense
    experts_per_token: int = 0  # k
    expert_ffn: int = 0  # F_e
    moe_layers: int | None = None  # L_moe; None = L when E > 0
    kv_lora_rank: int = 0  # r_kv, 0 = GQA/MHA (not MLA)
    qk_nope_head_dim: int = 0
    qk_rope_head_dim: int = 0
    v_head_dim: int = 0
    # the GPU
    memory_gb: float
    peak_tflops: float  # dense BF16
    hbm_tbps: float
    price_per_gpu_hour: float
    fp8_tflops: float | None = None  # None = no FP8
    nvlink_gbps: float | None = None  # needed when tensor_parallel > 1
    # the precisions (weight_precision's bits and FP8 GEMMs; kv_precision's bytes)
    weight_bits: float = 16
    fp8_gemm: bool = False
    kv_bytes: float = 2
    # the serving section
    users: int = 32
    sequence_length: int = 8192
    prompt_tokens: int | None = None  # None = a quarter of the sequence length
    tensor_parallel: int = 1
    compute_efficiency: float = 0.5
    bandwidth_efficiency: float = 0.7
    memory_reserve: float = 0.10
    overhead_ms: float = 0

    @classmethod
    def from_parts(cls, model, gpu, serving, price_per_gpu_hour, precisions=None) -> Replica:
        """From catalog entries: a model and a GPU (missing §7 fields take their dense defaults) and the serving
        section (weight_precision and kv_precision are ids of `precisions`, default the shipped ones)."""
        from planner.shipped import PRECISIONS

        precisions = PRECISIONS if precisions is None else precisions
        weight = vars(precisions[getattr(serving, "weight_precision", "bf16")])
        kv = vars(precisions[getattr(serving, "kv_precision", "bf16")])
        model_fields = ("active_params", "tied_embeddings", "gated", "experts", "experts_per_token", "expert_ffn",
                        "moe_layers",
                        "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")
        serving_fields = ("users", "sequence_length", "prompt_tokens", "tensor_parallel", "compute_efficiency",
                          "bandwidth_efficiency", "memory_reserve", "overhead_ms")
        return cls(
            params=model.params, layers=model.layers, hidden=model.hidden, heads=model.heads,
            kv_heads=model.kv_heads, head_dim=model.head_dim, vocab=model.vocab,
            **{k: getattr(model, k) for k in model_fields if getattr(model, k, None) is not None},
            memory_gb=gpu.memory_gb, peak_tflops=gpu.peak_tflops, hbm_tbps=gpu.hbm_tbps,
            price_per_gpu_hour=price_per_gpu_hour,
            fp8_tflops=getattr(gpu, "fp8_tflops", None), nvlink_gbps=getattr(gpu, "nvlink_gbps", None),
            weight_bits=weight["weight_bits"], fp8_gemm=weight["fp8_gemm"], kv_bytes=kv["kv_bytes"],
            **{k: getattr(serving, k) for k in serving_fields if getattr(serving, k, None) is not None},
        )

    # per token and per GPU
    @property
    def psi_active(self) -> float:
        return self.params if self.active_params is None else self.active_params

    @property
    def psi_mm(self) -> float:
        return multiplied_params(self.psi_active, self.vocab, self.hidden, self.tied_embeddings)

    @property
    def b_w(self) -> float:
        return bytes_per_weight(self.weight_bits)

    @property
    def w_g(self) -> float:
        return weights_per_gpu(self.params, self.b_w, self.tensor_parallel)

    @property
    def kv_g(self) -> float:
        return kv_bytes_per_token_per_gpu(self.layers, self.kv_heads, self.head_dim, self.kv_bytes,
                                          self.tensor_parallel, self.kv_lora_rank, self.qk_rope_head_dim)

    @property
    def w_qk(self) -> float:
        return attention_qk_width(self.heads, self.head_dim, self.kv_lora_rank, self.qk_nope_head_dim,
                                  self.qk_rope_head_dim)

    @property
    def w_av(self) -> float:
        return attention_av_width(self.heads, self.head_dim, self.kv_lora_rank, self.v_head_dim)

    @property
    def p_e(self) -> float:
        return effective_peak_flops(self.peak_tflops, self.fp8_tflops, self.fp8_gemm)

    @property
    def bw_e(self) -> float:
        return effective_bandwidth(self.hbm_tbps, self.bandwidth_efficiency)

    def streamed(self, tokens):
        """S(n)."""
        moe_layers = (self.layers if self.experts > 0 else 0) if self.moe_layers is None else self.moe_layers
        return streamed_params(self.psi_mm, tokens, self.hidden, self.experts, self.experts_per_token,
                               self.expert_ffn, moe_layers, self.gated)

    def all_reduce(self, tokens):
        """AR(n) in seconds."""
        return all_reduce_seconds(tokens, self.layers, self.hidden, self.tensor_parallel, self.nvlink_gbps)

    # lengths and capacity
    @property
    def s(self) -> float:
        return default_prompt_tokens(self.sequence_length) if self.prompt_tokens is None else self.prompt_tokens

    @property
    def o(self) -> float:
        return output_tokens(self.sequence_length, self.s)

    @property
    def c_bar(self) -> float:
        return mean_context(self.s, self.o)

    @property
    def tau(self) -> float:
        return self.overhead_ms / 1000

    @property
    def pool(self) -> float:
        return capacity_pool(self.memory_gb, self.memory_reserve, self.w_g)

    @property
    def b_max(self) -> int:
        return int(max_concurrency(self.pool, self.s + self.o, self.kv_g))

    # passes, in seconds
    def prefill_flops(self, batch=1):
        return prefill_flops(self.psi_mm, self.s, self.layers, self.w_qk, self.w_av, batch)

    def decode_bytes(self, batch):
        return decode_bytes(self.streamed(batch), self.b_w, self.tensor_parallel, self.c_bar, self.kv_g, batch)

    def ttft_s(self):
        """TTFT: one request's prefill on an idle server, S(s) streamed, AR(s)."""
        bytes_moved = prefill_bytes(self.streamed(self.s), self.b_w, self.tensor_parallel, self.s, self.kv_g)
        return pass_seconds(self.prefill_flops(), bytes_moved, self.tensor_parallel, self.p_e,
                            self.compute_efficiency, self.bw_e, self.all_reduce(self.s), self.tau)

    def tpot_s(self, batch):
        """TPOT(B): one decode step for B sequences at the mean context, S(B) streamed, AR(B)."""
        flops = decode_flops(self.psi_mm, self.layers, self.c_bar, self.w_qk, self.w_av, batch)
        return pass_seconds(flops, self.decode_bytes(batch), self.tensor_parallel, self.p_e, self.compute_efficiency,
                            self.bw_e, self.all_reduce(batch), self.tau)

    def prefill_s(self, batch):
        """T_pre(B): B prompts prefilled together, S(B·s) streamed, AR(B·s)."""
        tokens = np.multiply(batch, self.s)
        bytes_moved = prefill_bytes(self.streamed(tokens), self.b_w, self.tensor_parallel, self.s, self.kv_g, batch)
        return pass_seconds(self.prefill_flops(batch), bytes_moved, self.tensor_parallel, self.p_e,
                            self.compute_efficiency, self.bw_e, self.all_reduce(tokens), self.tau)

    def cycle_s(self, batch):
        return cycle_seconds(self.prefill_s(batch), self.o, self.tpot_s(batch))

    # results as plain numbers
    def memory_stack(self, batch) -> dict:
        """The memory stack at B against the GPU, GB: weights, KV (final lengths), reserve and free (negative when
        B sequences do not fit)."""
        weights, kv = self.w_g / GB, kv_cache_bytes(batch, self.s + self.o, self.kv_g) / GB
        reserve = reserve_bytes(self.memory_gb, self.memory_reserve) / GB
        return {"weights_gb": _number(weights), "kv_gb": _number(kv), "reserve_gb": _number(reserve),
                "free_gb": _number(self.memory_gb - weights - kv - reserve), "capacity_gb": _number(self.memory_gb)}

    def at(self, batch) -> dict:
        """TPOT, ITL (ms), tokens per second per GPU, cost per million output tokens and MFU at B; every value None
        at B ≤ 0 (B_max = 0, "does not fit") or without output tokens (o ≤ 0; the scenario refuses it, but a
        division by o is never made)."""
        keys = ("tpot_ms", "itl_ms", "tokens_per_s_per_gpu", "cost_per_million_tokens", "mfu")
        if batch is None or not batch > 0 or not self.o > 0:
            return dict.fromkeys(keys)
        tpot, cycle = self.tpot_s(batch), self.cycle_s(batch)
        tok_s = tokens_per_second_per_gpu(batch, self.o, cycle, self.tensor_parallel)
        values = (tpot * 1000, inter_token_latency(cycle, self.o) * 1000, tok_s,
                  cost_per_million_tokens(self.price_per_gpu_hour, tok_s),
                  serving_mfu(self.psi_active, tok_s, self.peak_tflops))
        return {k: _number(v) for k, v in zip(keys, values)}

    def table(self) -> list[dict]:
        """The concurrency table: TABLE_ROWS rows (role, B, fits, the values at B, the memory stack), blank rows
        all None but their role."""
        b_max, rows = self.b_max, []
        for role, batch in concurrency_batches(b_max, self.users):
            shown = batch is not None and not (role == "max" and batch == 0)
            row = {"role": role, "batch": batch, "fits": (batch <= b_max) if shown else None, **self.at(batch)}
            stack = self.memory_stack(batch) if shown else dict.fromkeys(("weights_gb", "kv_gb", "reserve_gb",
                                                                         "free_gb", "capacity_gb"))
            rows.append(row | stack)
        return rows

    def headline(self) -> dict:
        """The Serving table's headline names (PRODUCT.md) with their values."""
        users, at_max = self.at(self.users), self.at(self.b_max)
        return {
            "serving_max_concurrency": self.b_max, "serving_fits": bool(self.users <= self.b_max),
            "serving_ttft_ms": _number(self.ttft_s() * 1000), "serving_tpot_ms": users["tpot_ms"],
            "serving_tpot_ms_single": self.at(1)["tpot_ms"], "serving_itl_ms": users["itl_ms"],
            "serving_tokens_per_s_per_gpu": users["tokens_per_s_per_gpu"],
            "serving_cost_per_million_tokens": users["cost_per_million_tokens"], "serving_mfu": users["mfu"],
            "serving_tpot_ms_at_max": at_max["tpot_ms"],
            "serving_tokens_per_s_per_gpu_at_max": at_max["tokens_per_s_per_gpu"],
            "serving_cost_per_million_tokens_at_max": at_max["cost_per_million_tokens"],
            "serving_kv_bytes_per_token": _number(self.kv_g),
        }

    def calibration(self, latency_sum_s, duration_s, mean_prompt_tokens, mean_output_tokens, median_ttft_ms,
                    median_tpot_ms) -> dict:
        """A measured run beside the prediction at its mean concurrency (Little's law) with its mean prompt and
        output lengths, and the η_c and η_m its median TTFT and TPOT imply (None where undefined)."""
        b = mean_concurrency(latency_sum_s, duration_s)
        run = replace(self, prompt_tokens=mean_prompt_tokens,
                      sequence_length=mean_prompt_tokens + mean_output_tokens)
        ttft, tpot = median_ttft_ms / 1000, median_tpot_ms / 1000
        predicted_tpot = None if not (b and b > 0 and run.o > 0) else _number(run.tpot_s(b) * 1000)
        eta_m = None if predicted_tpot is None else implied_bandwidth_efficiency(
            run.decode_bytes(b), self.hbm_tbps, tpot, run.all_reduce(b), run.tau)
        eta_c = implied_compute_efficiency(run.prefill_flops(), self.tensor_parallel, run.p_e, ttft,
                                           run.all_reduce(run.s), run.tau)
        return {"mean_concurrency": b, "predicted_ttft_ms": _number(run.ttft_s() * 1000),
                "predicted_tpot_ms": predicted_tpot, "measured_ttft_ms": median_ttft_ms,
                "measured_tpot_ms": median_tpot_ms, "implied_compute_efficiency": eta_c,
                "implied_bandwidth_efficiency": eta_m}


CONSTANTS = [
    Constant("serving_all_reduce_latency_us", ALL_REDUCE_LATENCY_US, label="All-reduce latency α", unit="µs",
             source="Per all-reduce on NVLink: llm-analysis's H100 figure"),
    Constant("serving_activation_bytes", ACTIVATION_BYTES, label="Activation bytes b_a", unit="bytes",
             source="BF16 activations, h values per token, all-reduced between tensor-parallel GPUs"),
    Constant("serving_all_reduces_per_layer", ALL_REDUCES_PER_LAYER, label="All-reduces per layer", unit="count",
             source="Megatron-LM tensor parallelism: after attention and after the MLP (Shoeybi et al. 2019, §3)"),
]

METHOD = Method(
    title="Serving: capacity, latency, throughput and cost per million tokens",
    formulas=[
        "One replica of t tensor-parallel GPUs under steady continuous batching, as a roofline: each pass takes the "
        "longer of its FLOPs at t·P_e·η_c and its bytes at BW_e = HBM TB/s·1e12·η_m, plus its all-reduces AR and an "
        "overhead τ. Prefill is bound by compute, decode by memory bandwidth.",
        "Multiplied parameters Ψ_mm = Ψ_active − (1 − tied)·V·h: the input embedding is a lookup, not a matrix "
        "product. Weights per GPU W_g = Ψ·b_w/t with b_w = bits per weight / 8 (scales included). A pass over n "
        "tokens streams S(n) = Ψ_mm parameters; a mixture-of-experts model streams only the experts its n tokens "
        "touch, E·(1 − (1 − k/E)^n) per MoE layer.",
        "KV cache per token per GPU KV_g = 2·L·MAX(kv_heads/t, 1)·head_dim·b_kv (KV heads split over t, replicated "
        "once t exceeds them); with multi-head latent attention (r_kv + rope)·b_kv·L on every GPU. The KV precision "
        "sets only b_kv.",
        "P_e is the GPU's FP8 peak when the weight precision's GEMMs are FP8 and the GPU has FP8, else its BF16 "
        "peak. AR(n) = 2·L·(α + 2·(t−1)/t·n·h·b_a/(NVLink GB/s·1e9)) for t > 1, else 0.",
        "Capacity: pool = GPU GB·1e9·(1 − r) − W_g; B_max = INT(pool / ((s+o)·KV_g)), 0 when the pool is empty "
        "(does not fit): each sequence reserves its final length s + o.",
        "TTFT = MAX((2·Ψ_mm·s + L·s²·(w_qk + w_av))/(t·P_e·η_c), (S(s)·b_w/t + s·KV_g)/BW_e) + AR(s) + τ. "
        "TPOT(B) = MAX((S(B)·b_w/t + B·c̄·KV_g)/BW_e, B·(2·Ψ_mm + 2·L·c̄·(w_qk + w_av))/(t·P_e·η_c)) + AR(B) + τ "
        "with the mean context c̄ = s + o/2. A batch's prefill T_pre(B) is TTFT's pass for B·s tokens.",
        "cycle(B) = T_pre(B) + o·TPOT(B) (prefill and decode in turn); ITL(B) = cycle/o; output tokens per second "
        "per GPU TokS = B·o/(cycle·t); cost per million output tokens = price·1e6/(3600·TokS); serving MFU = "
        "2·Ψ_active·TokS/(BF16 TFLOPS·1e12).",
        "The concurrency table shows B = 1, 2, 4, … below B_max, B_max and the users, each once. Values at the users "
        "are shown even when they exceed B_max (the fits check is then FALSE).",
        "Calibration: a measured run's mean concurrency is the sum of its request latencies over its duration "
        "(Little's law); η_m implied = the decode step's bytes / (HBM·(median TPOT − AR − τ)) and η_c implied = the "
        "prefill FLOPs / (t·P_e·(median TTFT − AR − τ)).",
    ],
    sources=[
        "Patel et al. 2024, Splitwise (arXiv 2311.18677), and Zhong et al. 2024, DistServe (arXiv 2401.09670): "
        "prefill compute-bound, decode memory-bound.",
        "Shoeybi et al. 2019, Megatron-LM (arXiv 1909.08053): two all-reduces per layer under tensor parallelism.",
        "llm-analysis (cli99/llm-analysis): the all-reduce latency and the roofline of a pass.",
        "vLLM (gpu_memory_utilization, the maximum-concurrency log line) and TensorRT-LLM (no-evict admission): "
        "capacity counts each sequence at its final length.",
        "DeepSeek-AI 2024, DeepSeek-V3 Technical Report (arXiv 2412.19437): multi-head latent attention's KV cache.",
    ],
    caveats=[
        "Estimates are illustrative: a roofline with two efficiencies, not a measurement. Calibrate η_c, η_m and τ "
        "from your own benchmark logs.",
        "Prefill and decode are taken in turn; a scheduler that overlaps them (chunked prefill, disaggregation) "
        "does better on throughput and differently on latency.",
        "Every sequence is taken at the same prompt and output length; real traffic's spread raises tail latency.",
        "A measured TTFT under load includes queueing, so the η_c it implies is a floor on the kernels' efficiency.",
    ],
)


# The table for one scenario ---------------------------------------------------------------------------------------
@dataclass
class ServingTable:
    """docs/method.md §6 for one scenario: the replica's figures, its capacity, the values at the users, at B = 1
    and at B_max, the concurrency table, and the measured runs beside their predictions."""

    scalars: dict
    rows: list[dict]  # TABLE_ROWS rows of the concurrency table
    calibration: list[dict]  # one per benchmark run (none without benchmark logs)

    @property
    def headline(self) -> dict:
        s = self.scalars
        return {name: s[key] for name, key in HEADLINE.items()}

    @property
    def checks(self) -> dict[str, bool]:
        return {"serving_users_fit": self.scalars["fits"],
                "serving_tensor_parallel_divides_heads": self.scalars["tensor_parallel_divides_heads"],
                "serving_kv_heads_split_evenly": self.scalars["kv_heads_split_evenly"],
                "serving_prompt_below_sequence": self.scalars["prompt_below_sequence"],
                "serving_nvlink_known": self.scalars["nvlink_known"]}

    def to_json(self) -> dict:
        return {**self.scalars, "table": self.rows, "calibration": self.calibration}


HEADLINE = {  # defined name → scalar key
    "serving_max_concurrency": "max_concurrency", "serving_fits": "fits", "serving_ttft_ms": "ttft_ms",
    "serving_tpot_ms": "tpot_ms", "serving_tpot_ms_single": "tpot_ms_single", "serving_itl_ms": "itl_ms",
    "serving_tokens_per_s_per_gpu": "tokens_per_s_per_gpu",
    "serving_cost_per_million_tokens": "cost_per_million_tokens", "serving_mfu": "mfu",
    "serving_tpot_ms_at_max": "tpot_ms_at_max", "serving_tokens_per_s_per_gpu_at_max": "tokens_per_s_per_gpu_at_max",
    "serving_cost_per_million_tokens_at_max": "cost_per_million_tokens_at_max",
    "serving_kv_bytes_per_token": "kv_bytes_per_token",
}
DOES_NOT_FIT = "does not fit"  # a value at B_max when not one sequence fits (B_max = 0)


def replica_of(scenario, gpu=None) -> Replica:
    """The scenario's serving replica (on `gpu`, a catalog GPU, instead of the scenario's, for a benchmark)."""
    from planner.engine.catalog_columns import active_params

    merged, model = scenario.merged_catalog, scenario.chosen_model
    price = gpu.price_per_hour if gpu else scenario.gpu_price  # a benchmark's GPU: its Catalog price
    gpu = gpu or scenario.chosen_gpu
    return replace(Replica.from_parts(model, gpu, scenario.serving, price, merged.precisions),
                   active_params=active_params(model))


def compute(scenario, tables) -> ServingTable:
    r = replica_of(scenario)
    model, gpu, sv = scenario.chosen_model, scenario.chosen_gpu, scenario.serving
    precisions = scenario.merged_catalog.precisions
    weight, kv = precisions[sv.weight_precision], precisions[sv.kv_precision]
    t = sv.tensor_parallel
    users, single, at_max = r.at(sv.users), r.at(1), r.at(r.b_max)
    ttft_compute = r.prefill_flops() / (t * r.p_e * sv.compute_efficiency)
    ttft_memory = prefill_bytes(r.streamed(r.s), r.b_w, t, r.s, r.kv_g) / r.bw_e
    stack = r.memory_stack(sv.users)

    def blank_if_none_fit(value):
        return DOES_NOT_FIT if r.b_max == 0 else value

    scalars = {
        "weight_bits": weight.weight_bits, "weight_bytes": r.b_w, "fp8_gemm": weight.fp8_gemm,
        "kv_value_bytes": kv.kv_bytes, "fp8_tflops": gpu.fp8_tflops or 0, "nvlink_gbps": gpu.nvlink_gbps or 0,
        "hbm_tbps": gpu.hbm_tbps, "vocab": model.vocab, "active_params": r.psi_active,
        "multiplied_params": r.psi_mm, "weights_gb": r.w_g / GB, "kv_bytes_per_token": r.kv_g,
        "attention_width": r.w_qk + r.w_av, "peak_flops": r.p_e, "bandwidth": r.bw_e, "prompt_tokens": r.s,
        "output_tokens": r.o, "mean_context": r.c_bar, "reserve_gb": stack["reserve_gb"], "pool_gb": r.pool / GB,
        "sequence_gb": (r.s + r.o) * r.kv_g / GB, "max_concurrency": r.b_max, "fits": bool(sv.users <= r.b_max),
        "ttft_compute_ms": ttft_compute * 1000, "ttft_memory_ms": ttft_memory * 1000,
        "ttft_all_reduce_ms": r.all_reduce(r.s) * 1000, "ttft_ms": r.ttft_s() * 1000,
        "tpot_ms": users["tpot_ms"], "itl_ms": users["itl_ms"], "tokens_per_s_per_gpu": users["tokens_per_s_per_gpu"],
        "cost_per_million_tokens": users["cost_per_million_tokens"], "mfu": users["mfu"],
        "tpot_ms_single": single["tpot_ms"],
        "tpot_ms_at_max": blank_if_none_fit(at_max["tpot_ms"]), "itl_ms_at_max": blank_if_none_fit(at_max["itl_ms"]),
        "tokens_per_s_per_gpu_at_max": blank_if_none_fit(at_max["tokens_per_s_per_gpu"]),
        "cost_per_million_tokens_at_max": blank_if_none_fit(at_max["cost_per_million_tokens"]),
        "mfu_at_max": blank_if_none_fit(at_max["mfu"]),
        "kv_gb_at_users": stack["kv_gb"], "free_gb_at_users": stack["free_gb"],
        "tensor_parallel_divides_heads": model.heads % t == 0,
        "kv_heads_split_evenly": bool(kv_heads_split_evenly(model.kv_heads, t)),
        "prompt_below_sequence": sv.prompt_tokens < sv.sequence_length,
        "nvlink_known": t == 1 or bool(gpu.nvlink_gbps),
    }
    rows = [{k: ("" if v is None else v) for k, v in row.items()} for row in r.table()]
    for row in rows:  # B_max = 0: the row is blank, as the sheet shows it
        if row["role"] == "max" and row["batch"] == 0:
            row["batch"] = ""
    return ServingTable({k: _number(v) if not isinstance(v, str) else v for k, v in scalars.items()}, rows,
                        _calibration(scenario, tables))


def _calibration(scenario, tables) -> list[dict]:
    """Each benchmark run beside the prediction at its mean concurrency, on its benchmark's GPU."""
    logs = scenario.external("goodput")
    if logs is None:
        return []
    merged, benches = scenario.merged_catalog, scenario.goodput.benchmarks
    requests = logs.requests
    found = []
    for run in tables["goodput"].runs:
        rows = requests[(requests["run"] == run["run"]) & ~requests["failed"]]
        gpu = merged.gpus[benches[run["benchmark"] - 1].gpu]
        replica = replica_of(scenario, gpu)
        if len(rows) == 0 or not isinstance(run["ttft_p50_ms"], float):
            continue
        mean_prompt, mean_output = float(rows["input_tokens"].mean()), float(rows["output_tokens"].mean())
        if not mean_output >= 1:
            continue
        values = replica.calibration(float(rows["latency_s"].sum()), run["duration_s"], mean_prompt, mean_output,
                                     run["ttft_p50_ms"], run["tpot_p50_ms"])
        found.append({"run": run["run"], "benchmark": run["benchmark"], "gpu": gpu.id,
                      "mean_prompt_tokens": mean_prompt, "mean_output_tokens": mean_output,
                      **{k: ("" if v is None else v) for k, v in values.items()}})
    return [{k: _number(v) if not isinstance(v, str) else v for k, v in row.items()} for row in found]
