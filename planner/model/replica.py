"""One serving replica of t GPUs under steady continuous batching, as a roofline (docs/method.md §6, with §7's
mixture-of-experts and latent-attention terms): the quantities of planner/model/counts.py and passes.py strung
together for one model, GPU, precision pair and serving knobs. The Serving, Fleet, Sensitivity and GPUs tables all
read a Replica; its Excel twin is planner/workbook/model.py's functions over a set of cells.

Every undefined value comes out as None, never NaN or infinity. Units: bytes, FLOP, seconds (τ arrives in ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np

from planner.engine.values import excel_ceiling, excel_round, plain
from planner.model import counts, passes
from planner.model.entries import shape
from planner.model.fields import DRAFT_DEFAULTS
from planner.model.passes import GB

OVERHEAD_TERMS = ("overhead_fixed_ms", "overhead_per_layer_ms", "overhead_per_sequence_ms", "overhead_per_moe_layer_ms")
POWERS_OF_TWO = 17  # the concurrency table's B = 2^0 … 2^16 rows, then B_max and the users: 19 rows in all
TABLE_ROWS = POWERS_OF_TWO + 2
PASSES = ("prefill", "draft_prefill", "draft", "verify")  # the passes of a cycle (Replica.pass_pieces)
PIECES = ("memory", "pass")  # what the sheets show of each: its memory time, and the pass = MAX(compute, memory) +
# all-reduces + overhead (the compute time and the all-reduces are short enough to stand inside the pass's formula)


@dataclass(frozen=True, kw_only=True)
class Terms:
    """A model as a pass sees it on the replica's GPUs (the target, or speculative decoding's draft): what it holds,
    multiplies and streams, and its KV cache per token per GPU."""

    params: float  # held: Ψ (the draft's Ψ_d)
    multiplied: float  # Ψ_mm
    layers: int  # L (the draft's L_d)
    hidden: int  # h (h_d): the width its all-reduces move
    width: float  # w_qk + w_av
    kv_per_token: float  # KV bytes per token per GPU
    experts: int = 0
    experts_per_token: int = 0
    expert_ffn: int = 0
    moe_layers: int = 0  # the MoE layers whose experts a pass streams as its tokens touch them
    gated: bool = True

    def streamed(self, tokens):
        """S(n): the parameters a pass over n tokens reads."""
        return counts.streamed_params(self.multiplied, tokens, hidden=self.hidden, experts=self.experts,
                                      experts_per_token=self.experts_per_token, expert_ffn=self.expert_ffn,
                                      moe_layers=self.moe_layers, gated=self.gated)


def number(value):
    """A result as a plain Python number; NaN or infinity is refused (`plain`): undefined values are guarded before
    they are computed and shown as None, so one that slipped through is a bug, not a blank."""
    return plain(np.asarray(value))


def concurrency_batches(max_batch, users, powers=POWERS_OF_TWO) -> list[tuple[str, int | None]]:
    """The table's rows as (role, B): B = 1, 2, 4, … below B_max ("power", blank from B_max up), B_max ("max"), the
    users ("users", blank when they equal a B shown above: a duplicate is shown once)."""
    rows = [("power", 2 ** k if 2 ** k < max_batch else None) for k in range(powers)]
    rows.append(("max", int(max_batch)))
    shown = {b for _, b in rows if b is not None}
    rows.append(("users", None if users in shown else int(users)))
    return rows


NO_DRAFT = Terms(params=0, multiplied=0, layers=0, hidden=0, width=0, kv_per_token=0)  # the sheet's draft cells


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
    ffn: int = 0  # F_d: speculative decoding's self-drafting layer is shaped like the last layer
    shared_expert_ffn: int = 0
    q_lora_rank: int = 0
    active_params: float | None = None  # Ψ_active; None = Ψ less the routed experts a token skips
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
    fp4_tflops: float | None = None  # None = no FP4
    nvlink_gbps: float | None = None  # needed when tensor_parallel > 1
    # the precisions (weight_precision's bits and FP8 GEMMs; kv_precision's bytes)
    weight_bits: float = 16
    fp8_gemm: bool = False
    fp4_gemm: bool = False
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
    # the per-pass overhead's known terms (§14.2), ms: 0 here, the engines table's priors from a scenario
    overhead_fixed_ms: float = 0  # τ_0
    overhead_per_layer_ms: float = 0  # τ_L
    overhead_per_sequence_ms: float = 0  # τ_seq
    overhead_per_moe_layer_ms: float = 0  # τ_moe
    dispatch_ms_per_layer: float = 0  # δ: the engine's dispatch a request's first token pays (§14.4, §14.6)
    prefill_token_budget: int = 8192  # N: the tokens a prefill pass takes (§14.4)
    client_rounds: float = 10  # R: requests per client of a closed-loop benchmark (§14.4)
    # the replica's layout (§14.5): d_a attention ranks of t GPUs each, the routed experts sharded whole over e GPUs
    expert_parallel: int = 1  # e: 1, or t·d_a
    attention_data_parallel: int = 1  # d_a
    prefix_hit_rate: float = 0  # h: the share of prompt tokens served from the prefix cache (§12.3)
    # speculative decoding (§12.2): none, mtp (self-drafting layers) or draft (a Catalog model at the same t)
    speculative: str = "none"
    draft_tokens: int | None = None  # k; None: the method's default
    acceptance: float | None = None  # α; None: the method's default
    accept_length: float | None = None  # E measured (tokens per verify step), in place of the formula
    draft_layers: int = 1  # mtp: layers shaped like the target's last
    draft_model: object = None  # draft: the Catalog model (planner.model.entries.Model)

    @classmethod
    def of(cls, *, model, gpu, weight, kv, serving, price_per_gpu_hour, draft_model=None) -> Replica:
        """From catalog entries: a model and a GPU (missing §7 fields take their dense defaults), the weight and KV
        precision entries, the serving section's knobs (its precisions are the entries given; its speculative
        decoding and prefix hit rate where it has them) and speculative decoding's draft model entry."""
        knobs = ("users", "sequence_length", "prompt_tokens", "tensor_parallel", "compute_efficiency",
                 "bandwidth_efficiency", "memory_reserve", "overhead_ms", "prefix_hit_rate", "dispatch_ms_per_layer",
                 "prefill_token_budget", "client_rounds", "expert_parallel", "attention_data_parallel",
                 *OVERHEAD_TERMS)
        spec = getattr(serving, "speculative", None)
        speculation = {} if spec is None else {
            "speculative": spec.method, "draft_tokens": spec.tokens, "acceptance": spec.acceptance,
            "accept_length": spec.accept_length, "draft_layers": spec.draft_layers, "draft_model": draft_model}
        return cls(**speculation,
            params=model.params, **{k: v for k, v in shape(model).items() if v is not None},
            memory_gb=gpu.memory_gb, peak_tflops=gpu.peak_tflops, hbm_tbps=gpu.hbm_tbps,
            price_per_gpu_hour=price_per_gpu_hour,
            fp8_tflops=getattr(gpu, "fp8_tflops", None), nvlink_gbps=getattr(gpu, "nvlink_gbps", None),
            fp4_tflops=getattr(gpu, "fp4_tflops", None), fp4_gemm=getattr(weight, "fp4_gemm", False),
            weight_bits=weight.weight_bits, fp8_gemm=weight.fp8_gemm, kv_bytes=kv.kv_bytes,
            **{k: getattr(serving, k) for k in knobs if getattr(serving, k, None) is not None},
        )

    # per token and per GPU
    @cached_property  # a frozen replica's terms, reckoned once (the passes read them thousands of times)
    def moe_layer_count(self) -> int:
        return counts.moe_layer_count(self.layers, self.experts, self.moe_layers)

    @cached_property
    def psi_active(self) -> float:
        if self.active_params is not None:
            return self.active_params
        return self.params - counts.inactive_params(layers=self.layers, hidden=self.hidden, experts=self.experts,
                                                    experts_per_token=self.experts_per_token,
                                                    expert_ffn=self.expert_ffn, moe_layers=self.moe_layers,
                                                    gated=self.gated)

    @cached_property
    def psi_mm(self) -> float:
        return counts.multiplied_params(self.psi_active, self.vocab, self.hidden, self.tied_embeddings)

    @property
    def b_w(self) -> float:
        return passes.bytes_per_weight(self.weight_bits)

    @property
    def w_g(self) -> float:
        """W_g = (Ψ + Ψ_d)·b_w / t: the weights held, the draft's too; in a layout (§14.5) the routed experts over
        the replica's G GPUs, ((Ψ − Ψ_routed)/t + Ψ_routed/G)·b_w."""
        held = self.params if self.draft is None else self.params + self.draft.params
        if not self.laid_out:
            return passes.weights_per_gpu(held, self.b_w, self.tensor_parallel)
        routed = self.psi_routed
        return ((held - routed) / self.tensor_parallel + routed / self.gpus) * self.b_w

    # the layout (§14.5): d_a attention ranks of t GPUs, the routed experts over e = G GPUs
    @property
    def laid_out(self) -> bool:
        """e > 1 or d_a > 1: passes on the busiest attention rank (§14.5). At e = d_a = 1 every term is §6's, and is
        computed as §6 writes it."""
        return self.expert_parallel > 1 or self.attention_data_parallel > 1

    @property
    def gpus(self) -> int:
        """G = t·d_a: the replica's GPUs."""
        return self.tensor_parallel * self.attention_data_parallel

    @property
    def psi_routed(self) -> float:
        """Ψ_routed = L_moe·E·3·h·F_e: the routed experts, what expert parallelism shards."""
        return counts.routed_params(layers=self.layers, hidden=self.hidden, experts=self.experts,
                                    expert_ffn=self.expert_ffn, moe_layers=self.moe_layers, gated=self.gated)

    @property
    def psi_nr(self) -> float:
        """Ψ_nr = Ψ_mm − L_moe·k·3·h·F_e: the multiplied parameters outside the routed experts (attention, dense
        layers, shared experts, router, lm_head)."""
        return self.psi_mm - (self.moe_layer_count * self.experts_per_token * counts.ffn_matrices(self.gated)
                              * self.hidden * self.expert_ffn)

    def rank_sequences(self, batch):
        """b = CEILING(B/d_a, 1): the sequences on the busiest attention rank (B itself at d_a = 1)."""
        if self.attention_data_parallel == 1:
            return batch
        return np.ceil(np.asarray(batch, dtype=float) / self.attention_data_parallel)

    def all_to_all(self, tokens):
        """A2A(n_r) in seconds: the MoE layers' dispatch and combine for n_r tokens on a rank (0 at e = 1)."""
        return passes.all_to_all_seconds(tokens, moe_layers=self.moe_layer_count,
                                         experts_per_token=self.experts_per_token, hidden=self.hidden,
                                         tensor_parallel=self.tensor_parallel, expert_parallel=self.expert_parallel,
                                         nvlink_gbps=self.nvlink_gbps)

    def _rank_pieces(self, batch, tokens_per_sequence, attention_flops, kv_tokens) -> dict:
        """§14.5's pass on the busiest rank for B sequences in the replica: b = CEILING(B/d_a) on the rank, each
        `tokens_per_sequence` GEMM tokens (n_r = b·that, n = B·that), `attention_flops` and `kv_tokens` of KV each.
        FLOPs per GPU (2·Ψ_nr·n_r + A_r)/t + 2·(Ψ_mm − Ψ_nr)·n/G; bytes S_g(n)·b_w + K_r with S_g(n) = Ψ_nr/t +
        (S(n) − Ψ_nr)/G; AR(n_r) + A2A(n_r) under "all_reduce"."""
        b = self.rank_sequences(batch)
        return self._rank_pass(b * tokens_per_sequence, np.multiply(batch, tokens_per_sequence, dtype=float),
                               b * attention_flops, b * kv_tokens * self.kv_g)

    def _rank_work(self, rank_tokens, replica_tokens, attention, kv_bytes) -> tuple:
        """A pass on the busiest rank of n_r tokens (n in the replica), A_r attention FLOPs and K_r KV bytes: its
        FLOPs per GPU and bytes per GPU."""
        t, g, nonrouted = self.tensor_parallel, self.gpus, self.psi_nr
        flops = ((passes.FORWARD_OPS * nonrouted * rank_tokens + attention) / t
                 + passes.FORWARD_OPS * (self.psi_mm - nonrouted) * replica_tokens / g)
        streamed = nonrouted / t + (self.streamed(replica_tokens) - nonrouted) / g
        return flops, streamed * self.b_w + kv_bytes

    def _rank_pass(self, rank_tokens, replica_tokens, attention, kv_bytes) -> dict:
        """The pass's compute, memory and all-reduce seconds (the all-to-all with the all-reduces)."""
        flops, moved = self._rank_work(rank_tokens, replica_tokens, attention, kv_bytes)
        return {"compute": flops / (self.p_e * self.compute_efficiency), "memory": moved / self.bw_e,
                "all_reduce": self.all_reduce(rank_tokens) + self.all_to_all(rank_tokens)}

    @cached_property
    def kv_g(self) -> float:
        return np.asarray(counts.kv_bytes_per_token(self.layers, self.kv_heads, self.head_dim,
                                                    kv_lora_rank=self.kv_lora_rank,
                                                    qk_rope_head_dim=self.qk_rope_head_dim, kv_bytes=self.kv_bytes,
                                                    tensor_parallel=self.tensor_parallel), dtype=float)

    @cached_property
    def width(self) -> float:
        """w_qk + w_av."""
        return counts.attention_width(self.heads, self.head_dim, kv_lora_rank=self.kv_lora_rank,
                                      qk_nope_head_dim=self.qk_nope_head_dim, qk_rope_head_dim=self.qk_rope_head_dim,
                                      v_head_dim=self.v_head_dim)

    @property
    def p_e(self) -> float:
        return passes.effective_peak_flops(self.peak_tflops, self.fp8_tflops, self.fp8_gemm, self.fp4_tflops,
                                           self.fp4_gemm)

    @property
    def bw_e(self) -> float:
        return passes.effective_bandwidth(self.hbm_tbps, self.bandwidth_efficiency)

    @cached_property
    def target(self) -> Terms:
        """The model served, as its passes see it."""
        return Terms(params=self.params, multiplied=self.psi_mm, layers=self.layers, hidden=self.hidden,
                     width=self.width, kv_per_token=self.kv_g, experts=self.experts,
                     experts_per_token=self.experts_per_token, expert_ffn=self.expert_ffn,
                     moe_layers=self.moe_layer_count, gated=self.gated)

    @cached_property
    def draft(self) -> Terms | None:
        """Speculative decoding's draft (§12.2): mtp, `draft_layers` layers shaped like the target's last with a 2h×h
        projection, sharing the target's embedding and head; draft, a Catalog model at the same t and precisions;
        None without speculative decoding."""
        if self.speculative == "mtp":
            return self._self_draft()
        if self.speculative == "draft":
            return self._draft_model()
        return None

    def _self_draft(self) -> Terms:
        attention = counts.attention_params(self.hidden, self.heads, self.kv_heads, self.head_dim,
                                            kv_lora_rank=self.kv_lora_rank, q_lora_rank=self.q_lora_rank,
                                            qk_nope_head_dim=self.qk_nope_head_dim,
                                            qk_rope_head_dim=self.qk_rope_head_dim, v_head_dim=self.v_head_dim)
        moe = self.moe_layer_count > 0  # the last layer is a mixture of experts (DeepSeek: the first k are dense)
        layer, active = ((counts.moe_layer_params(attention, self.hidden, self.experts, self.expert_ffn,
                                                  shared_expert_ffn=self.shared_expert_ffn, gated=self.gated,
                                                  experts_counted=k)
                          for k in (None, self.experts_per_token)) if moe else
                         (counts.dense_layer_params(attention, self.hidden, self.ffn, self.gated),) * 2)
        projection = 2 * self.hidden ** 2  # the module's 2h×h input projection
        n = self.draft_layers
        return Terms(params=n * layer + projection, multiplied=n * active + projection + self.vocab * self.hidden,
                     layers=n, hidden=self.hidden, width=self.width, kv_per_token=n * self.kv_g / self.layers,
                     experts=self.experts, experts_per_token=self.experts_per_token, expert_ffn=self.expert_ffn,
                     moe_layers=n if moe else 0, gated=self.gated)

    def _draft_model(self) -> Terms:
        m = self.draft_model
        active = counts.active_of(m.params, **shape(m))
        moe_layers = counts.moe_layer_count(m.layers, m.experts, m.moe_layers)
        kv = counts.kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, kv_lora_rank=m.kv_lora_rank,
                                       qk_rope_head_dim=m.qk_rope_head_dim, kv_bytes=self.kv_bytes,
                                       tensor_parallel=self.tensor_parallel)
        return Terms(params=m.params, multiplied=counts.multiplied_params(active, m.vocab, m.hidden,
                                                                          m.tied_embeddings),
                     layers=m.layers, hidden=m.hidden,
                     width=counts.attention_width(m.heads, m.head_dim, kv_lora_rank=m.kv_lora_rank,
                                                  qk_nope_head_dim=m.qk_nope_head_dim,
                                                  qk_rope_head_dim=m.qk_rope_head_dim, v_head_dim=m.v_head_dim),
                     kv_per_token=np.asarray(kv, dtype=float), experts=m.experts,
                     experts_per_token=m.experts_per_token, expert_ffn=m.expert_ffn, moe_layers=moe_layers,
                     gated=m.gated)

    @property
    def tokens_per_step(self) -> float:
        """E: tokens a decode step yields, 1 without speculative decoding; a measured accept length when given."""
        if self.speculative == "none":
            return 1
        if self.accept_length is not None:
            return self.accept_length
        k, alpha = self._draft_settings
        return passes.tokens_per_verify_step(k, alpha)

    @property
    def _draft_settings(self) -> tuple[int, float]:
        k, alpha = DRAFT_DEFAULTS[self.speculative]
        return (k if self.draft_tokens is None else self.draft_tokens,
                alpha if self.acceptance is None else self.acceptance)

    def streamed(self, tokens):
        """S(n) of the target."""
        return self.target.streamed(tokens)

    def all_reduce(self, tokens, terms: Terms | None = None):
        """AR(n) in seconds, of the target (or of `terms`: the draft's all-reduces move h_d-wide activations)."""
        terms = terms or self.target
        combined = terms.moe_layers if self.expert_parallel > 1 else 0  # §14.5: the second all-reduce is the combine
        return passes.all_reduce_seconds(tokens, terms.layers, terms.hidden, self.tensor_parallel, self.nvlink_gbps,
                                         combined_layers=combined)

    def exchange_s(self, tokens):
        """What a pass of n tokens spends exchanging activations between GPUs, seconds: AR(n); with expert
        parallelism A2A(n) joins it here (§14.6: "A2A is subtracted wherever AR is"), 0 until the replica has e > 1.
        What §12.1's fit and the implied efficiencies subtract."""
        return self.all_reduce(tokens)

    # lengths and capacity
    @property
    def s(self) -> float:
        return passes.default_prompt_tokens(self.sequence_length) if self.prompt_tokens is None else self.prompt_tokens

    @property
    def o(self) -> float:
        return passes.output_tokens(self.sequence_length, self.s)

    @property
    def c_bar(self) -> float:
        return passes.mean_context(self.s, self.o)

    @property
    def tau(self) -> float:
        return self.overhead_ms / 1000

    @property
    def dispatch_s(self) -> float:
        """δ·L/1000 s: the dispatch a request pays before its prefill (§14.4, §11's T_first)."""
        return self.dispatch_ms_per_layer * self.layers / 1000

    def known_overhead(self, sequences, terms: Terms | None = None):
        """K(n) = (τ_0 + τ_L·L + τ_moe·L_moe + τ_seq·n)/1000 s: the per-pass overhead less τ (§14.2, §12.1), of the
        target (or of a draft pass: its L_d and MoE layers)."""
        terms = terms or self.target
        return (self.overhead_fixed_ms + self.overhead_per_layer_ms * terms.layers
                + self.overhead_per_moe_layer_ms * terms.moe_layers
                + self.overhead_per_sequence_ms * np.asarray(sequences, dtype=float)) / 1000

    def pass_overhead(self, sequences, terms: Terms | None = None):
        """τ_pass(n) = (τ + τ_0 + τ_L·L + τ_moe·L_moe + τ_seq·n)/1000 s for a pass of n sequences (§14.2)."""
        return self.tau + self.known_overhead(sequences, terms)

    def draft_prefill_overhead(self, terms: Terms):
        """The draft's prefill runs in the target's step: (τ + τ_L·L_d + τ_moe·L_moe,d)/1000 s only (§14.2)."""
        return (self.overhead_ms + self.overhead_per_layer_ms * terms.layers
                + self.overhead_per_moe_layer_ms * terms.moe_layers) / 1000

    @property
    def pool(self) -> float:
        return passes.capacity_pool(self.memory_gb, self.memory_reserve, self.w_g)

    @property
    def kv_held(self) -> float:
        """KV bytes per token per GPU a sequence reserves: the target's, and the draft's beside it."""
        return self.kv_g if self.draft is None else self.kv_g + self.draft.kv_per_token

    @property
    def cached_tokens(self) -> float:
        """s_h = h·s: prompt tokens served from the prefix cache."""
        return self.s * self.prefix_hit_rate

    @cached_property
    def b_max(self) -> int:
        """B_max = d_a·INT9(pool/((s + o)·KV_g)): each attention rank holds its own sequences' KV (§14.5)."""
        return self.attention_data_parallel * int(passes.max_concurrency(self.pool, self.s + self.o, self.kv_held))

    # passes, in seconds: each pass as its compute, memory and all-reduce time (its pieces), then the pass
    def _pieces(self, flops, bytes_moved, tokens, terms: Terms | None = None) -> dict:
        return {"compute": passes.compute_seconds(flops, self.tensor_parallel, self.p_e, self.compute_efficiency),
                "memory": passes.memory_seconds(bytes_moved, self.bw_e), "all_reduce": self.all_reduce(tokens, terms)}

    def overhead_s(self, kind: str, batch):
        """The overhead a pass pays, in seconds, τ_pass (§14.2): `kind` is one of PASSES, `batch` its B (1: one
        prompt); the draft's prefill only τ, τ_L·L_d and τ_moe·L_moe,d; a draft's terms 0 without one (as the sheet's
        draft cells are). The one place a pass's overhead enters (its Excel twin: workbook/model.py overhead_s)."""
        draft = self.draft or NO_DRAFT
        if kind == "draft_prefill":
            return self.draft_prefill_overhead(draft)
        return self.pass_overhead(batch, draft if kind == "draft" else None)

    def _pass(self, pieces: dict, kind: str, batch):
        """A pass of B sequences in the replica: its pieces and τ_pass(b) of the busiest rank's b (§14.2)."""
        return passes.pass_seconds(**pieces, overhead_s=self.overhead_s(kind, self.rank_sequences(batch)))

    def prefill_flops(self, batch=1, terms: Terms | None = None):
        """B prompts' FLOPs: the new tokens' GEMMs and their attention over the whole prompt (§6, §12.3)."""
        terms = terms or self.target
        return passes.prefill_flops(terms.multiplied, self.s, terms.layers, terms.width, batch=batch,
                                    cached_tokens=self.cached_tokens)

    def prefill_bytes(self, batch=1, terms: Terms | None = None):
        """The weights the new tokens touch, once, and the KV cache of every prompt token."""
        terms = terms or self.target
        tokens = np.multiply(batch, self.s - self.cached_tokens)
        return passes.prefill_bytes(terms.streamed(tokens), self.b_w, self.tensor_parallel, self.s,
                                    terms.kv_per_token, batch=batch)

    def prefill_pieces(self, batch, terms: Terms) -> dict:
        """B prompts' prefill by `terms` (the target's or the draft's): compute, memory and all-reduce seconds."""
        tokens = np.multiply(batch, self.s - self.cached_tokens)
        if self.laid_out:  # the target's alone: a layout has no draft (§14.5)
            cached = float(self.cached_tokens)
            return self._rank_pieces(batch, self.s - cached, terms.layers * (self.s ** 2 - cached ** 2) * terms.width,
                                     self.s)
        return self._pieces(self.prefill_flops(batch, terms), self.prefill_bytes(batch, terms), tokens, terms)

    def _prefill(self, batch, terms: Terms, kind: str = "prefill"):
        return self._pass(self.prefill_pieces(batch, terms), kind, batch)

    def decode_bytes(self, batch, terms: Terms | None = None, tokens_per_sequence=1):
        """The weights a step's tokens touch, once, and every sequence's KV cache."""
        terms = terms or self.target
        return passes.decode_bytes(terms.streamed(np.multiply(batch, tokens_per_sequence)), self.b_w,
                                   self.tensor_parallel, self.c_bar, terms.kv_per_token, batch=batch)

    def decode_pieces(self, batch, terms: Terms, tokens_per_sequence=1) -> dict:
        """One pass for B sequences of `tokens_per_sequence` tokens each (a verify pass: k + 1): compute, memory and
        all-reduce seconds."""
        if self.laid_out:
            attention = tokens_per_sequence * 2 * terms.layers * self.c_bar * terms.width  # A_r per sequence
            return self._rank_pieces(batch, tokens_per_sequence, attention, self.c_bar)
        flops = passes.decode_flops(terms.multiplied, terms.layers, self.c_bar, terms.width, batch=batch,
                                    tokens_per_sequence=tokens_per_sequence)
        tokens = np.multiply(batch, tokens_per_sequence)
        return self._pieces(flops, self.decode_bytes(batch, terms, tokens_per_sequence), tokens, terms)

    def _decode(self, batch, terms: Terms, tokens_per_sequence=1, kind: str = "verify"):
        return self._pass(self.decode_pieces(batch, terms, tokens_per_sequence), kind, batch)

    def pass_pieces(self, batch) -> dict:
        """The passes at B as the sheets show them beside their formulas: for each of PASSES (the B prompts'
        prefill, the draft's prefill of them, one draft pass, the verify pass: the decode step without a draft),
        its memory time and the pass in seconds, under "<pass>_memory_s" and "<pass>_pass_s"; without a draft, its
        passes move nothing (the sheet's draft terms are 0) and take only the overhead."""
        draft = self.draft
        k = self._draft_settings[0] if draft else 0
        nothing = {"compute": 0.0, "memory": 0.0, "all_reduce": 0.0}
        found = {"prefill": self.prefill_pieces(batch, self.target),
                 "draft_prefill": self.prefill_pieces(batch, draft) if draft else nothing,
                 "draft": self.decode_pieces(batch, draft) if draft else nothing,
                 "verify": self.decode_pieces(batch, self.target, k + 1) if draft else
                 self.decode_pieces(batch, self.target)}
        return {key: number(value) for kind in PASSES for key, value in (
            (f"{kind}_memory_s", found[kind]["memory"]), (f"{kind}_pass_s", self._pass(found[kind], kind, batch)))}

    def ttft_s(self):
        """TTFT: one request's prefill on an idle server (the draft's after the target's)."""
        return self.prefill_s(1)

    def step_s(self, batch):
        """The decode step in flight: one pass for B sequences, or k draft passes and the verify pass (§12.2)."""
        draft = self.draft
        if draft is None:
            return self._decode(batch, self.target)
        k, _ = self._draft_settings
        return k * self._decode(batch, draft, kind="draft") + self._decode(batch, self.target, k + 1)

    def tpot_s(self, batch):
        """TPOT(B) = the step / E, the tokens a step yields."""
        step = self.step_s(batch)
        return step if self.draft is None else step / self.tokens_per_step

    def prefill_s(self, batch):
        """T_pre(B): B prompts prefilled together, and the draft's prefill of them."""
        seconds = self._prefill(batch, self.target)
        return seconds if self.draft is None else seconds + self._prefill(batch, self.draft, "draft_prefill")

    def cycle_s(self, batch):
        return passes.cycle_seconds(self.prefill_s(batch), self.o, self.tpot_s(batch))

    # TTFT at a client concurrency c, closed loop (§14.4), at e = d_a = 1
    @property
    def prefill_passes(self) -> int:
        """p_s = CEILING(s_n/N, 1): the passes one prompt's new tokens take at the prefill token budget N."""
        return math.ceil(float(self.s - self.cached_tokens) / self.prefill_token_budget)

    def prompts_per_pass(self, clients) -> int:
        """κ = IF(s_n ≤ N, MIN(b, INT(N/s_n)), 1): the prompts of the opening burst one pass takes."""
        new = float(self.s - self.cached_tokens)
        return min(int(clients), int(self.prefill_token_budget // new)) if new <= self.prefill_token_budget else 1

    def fill_s(self, prompts, clients):
        """T_fill(j, c): j prompts prefilled in p_s passes beside c − j decoding sequences (§14.4): the GEMMs of
        n_f = j·s_n + p_s·(c − j) tokens, the prompts' causal attention once and the decoders' at c̄; the weights
        the q = j·s_n/p_s + c − j tokens of a pass touch, read once per pass, and the KV cache; p_s·(AR(q) +
        τ_pass(c))."""
        flops, moved, pass_tokens = self.fill_terms(prompts, clients)
        compute = flops / (self.tensor_parallel * self.p_e * self.compute_efficiency)
        talk = self.all_reduce(pass_tokens) + (self.all_to_all(pass_tokens) if self.laid_out else 0)
        return (np.maximum(compute, moved / self.bw_e)
                + self.prefill_passes * (talk + self.pass_overhead(self.rank_sequences(clients))))

    def fill_terms(self, prompts, clients) -> tuple:
        """T_fill(j, c)'s FLOPs F, bytes M and tokens per pass q over its p_s passes (§14.4); in a layout (§14.5)
        the busiest rank's: the FLOPs its t GPUs do and the bytes one GPU moves over the p_s passes, and its
        tokens per pass n_r."""
        if self.laid_out:
            return self._rank_fill_terms(prompts, clients)
        j, c, p_s, m = float(prompts), float(clients), self.prefill_passes, self.target
        new, cached = float(self.s - self.cached_tokens), float(self.cached_tokens)
        decoders = p_s * (c - j)
        pass_tokens = j * new / p_s + c - j
        flops = (passes.FORWARD_OPS * m.multiplied * (j * new + decoders)
                 + j * m.layers * (self.s ** 2 - cached ** 2) * m.width
                 + decoders * 2 * m.layers * self.c_bar * m.width)
        moved = (p_s * m.streamed(pass_tokens) * self.b_w / self.tensor_parallel
                 + (j * self.s + decoders * self.c_bar) * m.kv_per_token)
        return flops, moved, pass_tokens

    def _rank_fill_terms(self, prompts, clients) -> tuple:
        """The fill on the busiest rank (§14.4 with §14.5): b = CEILING(c/d_a) clients on it, n_r = j·s_n/p_s + b − j
        tokens per pass, n = MIN(c, d_a)·n_r in the replica; p_s·t·(FLOPs per GPU), p_s·(S_g(n)·b_w + K_r), n_r."""
        j, c, p_s, m = float(prompts), float(clients), self.prefill_passes, self.target
        b = float(self.rank_sequences(c))
        new, cached = float(self.s - self.cached_tokens), float(self.cached_tokens)
        rank_tokens = j * new / p_s + b - j
        attention = (j * m.layers * (self.s ** 2 - cached ** 2) * m.width / p_s
                     + (b - j) * 2 * m.layers * self.c_bar * m.width)
        kv = (j * self.s / p_s + (b - j) * self.c_bar) * self.kv_g
        flops, moved = self._rank_work(rank_tokens, min(c, self.attention_data_parallel) * rank_tokens, attention, kv)
        return p_s * self.tensor_parallel * flops, p_s * moved, rank_tokens

    def ttft_at(self, clients) -> dict:
        """TTFT at c clients of a closed loop over R rounds (§14.4), in ms where named so: the opening burst of m
        cohorts of κ prompts, the steady state (one prompt beside c − 1 decoders and half the loaded pass in flight),
        the mean TTFT_c = δ·L + burst/R + (1 − 1/R)·steady and the median TTFT_med = δ·L + steady."""
        c = int(clients)
        b = int(self.rank_sequences(c))  # the busiest rank's clients (§14.5)
        kappa = self.prompts_per_pass(b)
        cohorts = math.ceil(b / kappa)
        fill_kappa, fill_one = float(self.fill_s(kappa, c)), float(self.fill_s(1, c))
        itl = float(self.cycle_s(c)) / self.o
        burst = (cohorts + 1) / 2 * fill_kappa
        steady = fill_one + (0 if c == 1 else itl / 2)
        layers = self.layers + (self.draft.layers if self.draft is not None else 0)  # §12.2: δ·(L + L_d)
        dispatch = self.dispatch_ms_per_layer * layers / 1000
        rounds = self.client_rounds
        (flops, moved, tokens), (flops_one, moved_one, tokens_one) = (self.fill_terms(j, c) for j in (kappa, 1))
        return {"rank_clients": b, "prefill_passes": self.prefill_passes, "prompts_per_pass": kappa,
                "burst_cohorts": cohorts, "fill_pass_tokens": tokens, "fill_flops": flops, "fill_bytes": moved,
                "fill_ms": fill_kappa * 1000, "fill_one_pass_tokens": tokens_one, "fill_one_flops": flops_one,
                "fill_one_bytes": moved_one, "fill_one_ms": fill_one * 1000,
                "itl_at_concurrency_ms": itl * 1000, "ttft_burst_ms": burst * 1000, "ttft_steady_ms": steady * 1000,
                "ttft_at_concurrency_ms": (dispatch + burst / rounds + (1 - 1 / rounds) * steady) * 1000,
                "ttft_median_at_concurrency_ms": (dispatch + steady) * 1000}

    # results as plain numbers
    def memory_stack(self, batch) -> dict:
        """The memory stack at B against the GPU, GB: weights, KV (final lengths), reserve and free (negative when
        B sequences do not fit)."""
        held = self.rank_sequences(batch)  # a rank holds its own sequences' KV (§14.5)
        weights, kv = self.w_g / GB, passes.kv_cache_bytes(held, self.s + self.o, self.kv_held) / GB
        reserve = passes.reserve_bytes(self.memory_gb, self.memory_reserve) / GB
        return {"weights_gb": number(weights), "kv_gb": number(kv), "reserve_gb": number(reserve),
                "free_gb": number(self.memory_gb - weights - kv - reserve), "capacity_gb": number(self.memory_gb)}

    def at(self, batch) -> dict:
        """TPOT, ITL (ms), tokens per second per GPU, cost per million output tokens and MFU at B; every value None
        at B ≤ 0 (B_max = 0, "does not fit") or without output tokens (o ≤ 0; the scenario refuses it, but a
        division by o is never made)."""
        keys = ("tpot_ms", "itl_ms", "tokens_per_s_per_gpu", "cost_per_million_tokens", "mfu")
        if batch is None or not batch > 0 or not self.o > 0:
            return dict.fromkeys(keys)
        tpot, cycle = self.tpot_s(batch), self.cycle_s(batch)
        tok_s = passes.tokens_per_second_per_gpu(batch, self.o, cycle, self.gpus)  # per GPU of the replica
        values = (tpot * 1000, passes.inter_token_latency(cycle, self.o) * 1000, tok_s,
                  passes.cost_per_million_tokens(self.price_per_gpu_hour, tok_s),
                  passes.serving_mfu(self.psi_active, tok_s, self.peak_tflops))
        return {k: number(v) for k, v in zip(keys, values)}

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

    def at_run(self, prompt_tokens, output_tokens) -> Replica:
        """The replica as a benchmark run measured it: at the run's mean lengths, of the model alone (without
        speculative decoding or a cached prefix, §12.1)."""
        return replace(self, prompt_tokens=prompt_tokens, sequence_length=prompt_tokens + output_tokens,
                       speculative="none", prefix_hit_rate=0)

    def calibration(self, *, latency_sum_s, duration_s, mean_prompt_tokens, mean_output_tokens, median_ttft_ms,
                    median_tpot_ms) -> dict:
        """A measured run beside the prediction at its mean concurrency (Little's law) with its mean prompt and
        output lengths: the idle TTFT, and the median TTFT at c = MAX(1, ROUND(B̄)) closed-loop clients that its
        median TTFT is compared with (§14.6); the run's own prefill P = TTFT − (TTFT_med(c) − TTFT); and the η_c and
        η_m its P and median TPOT imply (None where undefined). A benchmark run is of the model alone: without
        speculative decoding or a cached prefix (§12.1)."""
        b = passes.mean_concurrency(latency_sum_s, duration_s)
        run = self.at_run(mean_prompt_tokens, mean_output_tokens)
        tpot = median_tpot_ms / 1000
        loaded = bool(b and b > 0 and run.o > 0)
        predicted_tpot = number(run.tpot_s(b) * 1000) if loaded else None
        idle = number(run.ttft_s() * 1000)
        clients = max(1, excel_round(b)) if loaded else None  # c = MAX(1, ROUND(B̄, 0))
        median = number(run.ttft_at(clients)["ttft_median_at_concurrency_ms"]) if loaded else None
        own = None if median is None else median_ttft_ms - (median - idle)
        eta_m = None if predicted_tpot is None else passes.implied_bandwidth_efficiency(
            run.decode_bytes(b), self.hbm_tbps, tpot, run.exchange_s(excel_ceiling(b)),
            run.pass_overhead(excel_ceiling(b)))  # §14.6: AR(b̄), τ_pass(b̄) at b̄ = CEILING(B̄)
        eta_c = None if own is None else passes.implied_compute_efficiency(
            flops=run.prefill_flops(), tensor_parallel=self.tensor_parallel, peak_flops=run.p_e,
            measured_ttft_s=own / 1000, all_reduce_s=run.exchange_s(run.s), overhead_s=run.pass_overhead(1))
        return {"mean_concurrency": b, "clients": clients, "predicted_ttft_ms": idle,
                "predicted_ttft_median_ms": median, "own_prefill_ms": own,
                "predicted_tpot_ms": predicted_tpot, "measured_ttft_ms": median_ttft_ms,
                "measured_tpot_ms": median_tpot_ms, "implied_compute_efficiency": eta_c,
                "implied_bandwidth_efficiency": eta_m}
