"""The Serving sheet (docs/method.md §6): one replica of t GPUs as a roofline. The precisions and the GPU looked up
in Catalog, what a token costs per GPU, the capacity (how many sequences fit), one request on an idle server, the
values at the users, at B = 1 and at B_max, the table over concurrency with its charts, and the measured benchmark
runs beside their predictions. Every formula is the engine's expression (planner/engine/serving.py) spelled in
the sheet's names."""

from __future__ import annotations

from dataclasses import dataclass, replace

from typing import Callable

from planner.engine.calibration import NOT_ASKED
from planner.engine.serving import (ABOVE_B_MAX, DOES_NOT_FIT, NO_LEDGER, NOT_HELD_OUT, NOT_SERVED,
                                    TTFT_HELPERS)
from planner.inputs.serving import MAX_ATTENTION_DATA_PARALLEL as MAX_RANKS
from planner.model import engines, fields
from planner.model.replica import TABLE_ROWS
from planner.workbook import kit, model
from planner.workbook.kit import Check, Column, KeyResult, Row, Warning

SHEET = "Serving"
FITTED = ("compute_efficiency", "bandwidth_efficiency")  # the priors §12.1's fit may replace (their _used: in force)

T = "serving_tensor_parallel"
R = model.SERVED  # the scenario's replica, laid out (§14.5): the names below and on Memory
RANKS, EXPERTS = model.LAYOUT["attention_data_parallel"], model.LAYOUT["expert_parallel"]  # d_a and e as read

AT = {  # key → (label, unit, kind, the expression at B from its passes' pieces)
    "tpot_ms": ("Time per output token TPOT(B)", "ms", "tenths", lambda b, at: f"{model.tpot_s(R, b, at)}*1000"),
    "itl_ms": ("Inter-token latency under load ITL = cycle / o", "ms", "tenths",
               lambda b, at: f"{model.cycle_s(R, b, at)}/serving_output_tokens*1000"),
    "tokens_per_s_per_gpu": ("Output tokens per second per GPU", "tokens/s", "count",
                             lambda b, at: model.tokens_per_second_per_gpu(R, b, at)),
    "cost_per_million_tokens": ("Cost per million output tokens", "per M tokens", "money",
                                lambda b, at: model.cost_per_million_tokens(
                                    R.price, model.tokens_per_second_per_gpu(R, b, at))),
    "mfu": ("Serving MFU 2·Ψ_active·TokS / BF16 peak", "of peak", "percent",
            lambda b, at: model.serving_mfu(R, b, at)),
}


def _lookup(block: str, column: str, choice: str) -> str:
    return f"INDEX(catalog_{block}_{column},MATCH({choice},catalog_{block}_ids,0))"


LOOKUPS = [
    Row("weight_bits", "Bits per weight (weight precision)",
        formula="=" + _lookup("precision", "weight_bits", "serving_weight_precision"), kind="decimal", unit="bits",
        note="Catalog, the weight precision's row: scales included", name="serving_weight_bits"),
    Row("weight_bytes", "Bytes per weight b_w", formula="=serving_weight_bits/8", kind="decimal", unit="bytes",
        note="bits / 8", name="serving_weight_bytes"),
    Row("fp8_gemm", "GEMMs in FP8", formula="=" + _lookup("precision", "fp8_gemm", "serving_weight_precision"),
        kind="bool", unit="", name="serving_fp8_gemm"),
    Row("fp4_gemm", "GEMMs in FP4", formula="=" + _lookup("precision", "fp4_gemm", "serving_weight_precision"),
        kind="bool", unit="", name="serving_fp4_gemm"),
    Row("kv_value_bytes", "Bytes per KV value (KV precision)",
        formula="=" + _lookup("precision", "kv_bytes", "serving_kv_precision"), kind="decimal", unit="bytes",
        note="Catalog, the KV precision's row: only this column is read", name="serving_kv_value_bytes"),
    Row("fp8_tflops", "GPU dense FP8 peak (0: none)",
        formula=f'=IF(ISNUMBER({_lookup("gpu", "fp8_tflops", "gpu")}),{_lookup("gpu", "fp8_tflops", "gpu")},0)',
        kind="number", unit="TFLOPS", note="Blank on Catalog: no FP8 (FP8 GEMMs run at the BF16 peak)",
        name="gpu_fp8_tflops"),
    Row("fp4_tflops", "GPU dense FP4 peak (0: none)",
        formula=f'=IF(ISNUMBER({_lookup("gpu", "fp4_tflops", "gpu")}),{_lookup("gpu", "fp4_tflops", "gpu")},0)',
        kind="number", unit="TFLOPS", note="Blank on Catalog: no FP4 (FP4 GEMMs run at the FP8 peak, or BF16)",
        name="gpu_fp4_tflops"),
    Row("nvlink_gbps", "GPU NVLink (0: none)",
        formula=f'=IF(ISNUMBER({_lookup("gpu", "nvlink_gbps", "gpu")}),{_lookup("gpu", "nvlink_gbps", "gpu")},0)',
        kind="number", unit="GB/s", note="Per direction, as listed: the all-reduces are not derated",
        name="gpu_nvlink_gbps"),
    Row("hbm_tbps", "GPU HBM bandwidth", formula="=" + _lookup("gpu", "hbm_tbps", "gpu"), kind="decimal",
        unit="TB/s", name="gpu_hbm_tbps"),
]

PER_TOKEN = [
    Row("multiplied_params", "Multiplied parameters Ψ_mm = Ψ_active − V·h (untied)",
        formula="=" + model.multiplied_params(R.model), kind="params",
        unit="parameters", note="The input embedding is a lookup: no FLOPs, not streamed; the lm_head stays in (a "
        "tied model's one matrix is its lm_head)", name="serving_multiplied_params"),
    Row("weights_gb", "Weights per GPU W_g = ((Ψ + Ψ_d − Ψ_routed) / t + Ψ_routed / G) · b_w",
        formula=f"=((model_params+serving_draft_params-model_routed_params)/{T}+model_routed_params"
                "/serving_gpus_per_replica)*serving_weight_bytes/1e9",
        kind="gb", note="Every parameter resident, a speculative draft's too; the routed experts over the replica's "
        "G GPUs (G = t: Ψ · b_w / t)", name="serving_weights_gb"),
    Row("kv_bytes_per_token", "KV cache per token per GPU KV_g",
        formula="=" + model.kv_bytes_per_token(R.model, "serving_kv_value_bytes", T),
        kind="count", unit="bytes", note="2 · L · MAX(KV heads / t, 1) · head dim · b_kv: KV heads split over t, "
        "replicated once t exceeds them; latent attention (r_kv + rope) · b_kv · L on every GPU",
        name="serving_kv_bytes_per_token"),
    Row("attention_width", "Attention widths w_qk + w_av",
        formula="=" + model.attention_width(R.model), kind="count",
        unit="", note="heads · head dim each: the query heads (GQA does not reduce FLOPs); latent attention "
        "heads · (nope + rope) and heads · v", name="serving_attention_width"),
    Row("peak_flops", "Effective peak P_e",
        formula="=" + model.effective_peak_flops("gpu_peak_tflops", "gpu_fp8_tflops", "serving_fp8_gemm",
                                                 "gpu_fp4_tflops", "serving_fp4_gemm"), kind="tera",
        unit="TFLOP/s", note="FP4 when the weights' GEMMs are FP4 and the GPU has FP4, else FP8 when they are FP8 and "
        "the GPU has FP8, else BF16",
        name="serving_peak_flops"),
    Row("bandwidth", "Effective bandwidth BW_e = HBM · η_m",
        formula="=" + model.effective_bandwidth("gpu_hbm_tbps", "serving_bandwidth_efficiency_used"), kind="tera",
        unit="TB/s",
        name="serving_bandwidth"),
    Row("output_tokens", "Output tokens o = sequence − prompt",
        formula="=serving_sequence_length-serving_prompt_tokens",
        kind="count", unit="tokens", name="serving_output_tokens"),
    Row("mean_context", "Mean context c̄ = s + o / 2", formula="=serving_prompt_tokens+serving_output_tokens/2",
        kind="number", unit="tokens", note="What a decoding sequence attends to, on average",
        name="serving_mean_context"),
]

_GPUS_PER_NODE = _lookup("gpu", "gpus_per_node", "gpu")
NODE_DEFAULT = fields.named(fields.GPU)["gpus_per_node"].default  # a Catalog row's blank GPUs per node
LAYOUT_RULE = (  # METHOD §14.7's layout: e = 1, or e = t·d_a dividing E; d_a > 1 only so; MoE only; G within a node
    f"AND(ISNUMBER(serving_expert_parallel),ISNUMBER(serving_attention_data_parallel),"
    f"serving_expert_parallel=INT(serving_expert_parallel),serving_attention_data_parallel=INT("
    f"serving_attention_data_parallel),serving_attention_data_parallel>=1,serving_attention_data_parallel<={MAX_RANKS},"
    f"OR(AND(serving_expert_parallel=1,serving_attention_data_parallel=1),AND(serving_expert_parallel={T}"
    f"*serving_attention_data_parallel,model_experts>0,MOD(model_experts,serving_expert_parallel)=0,"
    f'serving_speculative_method="none",serving_calibration="none",gpu_nvlink_gbps>0)),'
    f"{T}*serving_attention_data_parallel<=IF(ISNUMBER({_GPUS_PER_NODE}),{_GPUS_PER_NODE},{NODE_DEFAULT}))")
LAYOUT_NA = '"n/a: the layout is not allowed (Checks: e and d_a)"'
LAYOUT = [
    Row("layout_valid", "The layout is allowed (e = 1, or e = t · d_a dividing E, MoE only, within a node)",
        formula=f"=IFERROR({LAYOUT_RULE},FALSE)", kind="bool", unit="", name="serving_layout_valid", warn="false",
        note="FALSE: the results that read e or d_a say n/a (Checks); speculative decoding and a calibration "
        "are not modelled in a layout"),
    Row("layout_experts", "Expert parallel e, as read", formula="=IF(serving_layout_valid,serving_expert_parallel,1)",
        kind="count", unit="GPUs", name=EXPERTS),
    Row("layout_ranks", "Attention ranks d_a, as read",
        formula="=IF(serving_layout_valid,serving_attention_data_parallel,1)", kind="count", unit="ranks",
        name=RANKS),
    Row("gpus_per_replica", "GPUs per replica G = t · d_a", formula=f"={T}*{RANKS}", kind="count", unit="GPUs",
        name="serving_gpus_per_replica", bold=True),
    Row("nonrouted_params", "Non-routed multiplied parameters Ψ_nr = Ψ_mm − L_moe · k · 3 · h · F_e",
        formula=f"=serving_multiplied_params-model_moe_layer_count*model_experts_per_token*{model.ffn_matrices(R.model)}"
                "*model_hidden*model_expert_ffn", kind="params", unit="parameters", name="serving_nonrouted_params",
        note="Attention, dense layers, shared experts, router and lm_head: on each rank's t GPUs"),
    *(Row(key, words, formula="=" + expression, kind="decimal", unit=unit, name=f"serving_{key}", note=note)
      for (key, words, unit, note), expression in zip((
          ("talk_latency_s", "A pass's all-reduce and all-to-all latency", "s", "IF(t = 1, 0, (2·L − L_c)·α) + "
           "IF(e = 1, 0, 2·L_moe·α); L_c = L_moe with e > 1: the MoE layer's second all-reduce is the combine"),
          ("talk_s_per_token", "… and their time per token on the rank", "s per token", "AR(n_r) + A2A(n_r) = the "
           "latency + this · n_r")), model.talk_terms(R))),
    Row("overhead_base_ms", "Per-pass overhead less its share per sequence τ + τ_0 + τ_L·L + τ_moe·L_moe",
        formula="=" + model.overhead_base(R, model.target(R)), kind="decimal", unit="ms",
        name="serving_overhead_base_ms", note="τ_pass(n) = (this + τ_seq · n) / 1000"),
    Row("rank_sequences", "Sequences on the busiest rank at the users b = CEILING(B / d_a)",
        formula=f"=CEILING(serving_users/{RANKS},1)", kind="count", unit="sequences"),
    Row("all_to_all_ms", "All-to-all of the decode step at the users A2A(b)", kind="decimal", unit="ms",
        formula=f"=IF(serving_layout_valid,{model.all_to_all_seconds(R, '{rank_sequences}')}*1000,{LAYOUT_NA})",
        name="serving_all_to_all_ms", note="Dispatch and combine, 2 · L_moe · (α + k · (b / t) · h · b_a · (e − 1) / e "
        "/ NVLink); 0 at e = 1"),
    Row("experts_busy", "At least one token per expert at the users (k · n / E ≥ 1), or e = 1",
        formula=f"=OR({EXPERTS}=1,model_experts_per_token*serving_users>=model_experts)", kind="bool", unit="",
        warn="false", note="FALSE: the all-to-all is latency-bound and expert load imbalance, not modelled, "
        "matters most (§14.7)"),
]


def _draft(key: str) -> str:
    """The draft model's Catalog value of `key` (speculative decoding with a draft model)."""
    return _lookup("model", key, "serving_speculative_draft_model")


DRAFT_CELLS = model.ModelCells(**{f: _draft(f) for f in ("layers", "hidden", "heads", "kv_heads", "head_dim",
                                                          "kv_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim",
                                                          "v_head_dim")})
_MTP, _DRAFT = 'serving_speculative_method="mtp"', 'serving_speculative_method="draft"'
_MOE = "model_moe_layer_count>0"  # the model's last layer is a mixture of experts
_G = model.ffn_matrices(model.ModelCells())


def _layer(experts: str) -> str:
    """One layer shaped like the model's last: an MoE layer with `experts` counted in its FFN, else a dense one."""
    return (f"IF({_MOE},model_attention_params+{experts}*{_G}*model_hidden*model_expert_ffn+model_hidden*model_experts"
            f"+{_G}*model_hidden*model_shared_expert_ffn+2*model_hidden,model_attention_params+{_G}*model_hidden"
            "*model_ffn+2*model_hidden)")


def _by_method(mtp: str, draft: str) -> str:
    return f"=IF({_MTP},{mtp},IF({_DRAFT},{draft},0))"


def draft_kv_bytes_per_token(kv_bytes_per_token: str, kv_value_bytes: str, tensor_parallel: str) -> str:
    """KV_d on t GPUs (a formula): mtp's layers at the model's KV_g per layer, a draft model's own at the same KV
    precision, 0 without a draft (§12.2)."""
    return _by_method(f"serving_draft_layers*{kv_bytes_per_token}/model_layers",
                      model.kv_bytes_per_token(DRAFT_CELLS, kv_value_bytes, tensor_parallel))


SPECULATION = [
    Row("cached_tokens", "Prompt tokens from the prefix cache s_h = h · s",
        formula="=serving_prompt_tokens*serving_prefix_hit_rate", kind="number", unit="tokens",
        note="Only the new tokens are prefilled; every sequence still reserves its whole length",
        name="serving_cached_tokens"),
    Row("draft_on", "Speculative decoding on", formula='=serving_speculative_method<>"none"', kind="bool", unit="",
        name="serving_draft_on"),
    Row("draft_tokens_used", "Draft tokens per verify step k",
        formula="=IF(serving_draft_on,serving_speculative_tokens,0)",
        kind="count", unit="tokens", name="serving_draft_tokens_used"),
    Row("tokens_per_step", "Tokens per verify step E = (1 − α^(k+1)) / (1 − α)",
        formula="=IF(serving_draft_on,IF(ISNUMBER(serving_speculative_accept_length),"
                "serving_speculative_accept_length,IF(serving_speculative_acceptance=1,serving_draft_tokens_used+1,"
                "(1-serving_speculative_acceptance^(serving_draft_tokens_used+1))/(1-serving_speculative_acceptance)"
                ")),1)", kind="decimal", unit="tokens",
        note="Each drafted token accepted with probability α given those before it (Leviathan et al. 2023); a "
        "measured E replaces the formula", name="serving_tokens_per_step"),
    Row("draft_layers", "Draft layers L_d", formula=_by_method("serving_speculative_draft_layers", _draft("layers")),
        kind="count", unit="layers", name="serving_draft_layers"),
    Row("draft_hidden", "Draft hidden size h_d", formula=_by_method("model_hidden", _draft("hidden")), kind="count",
        name="serving_draft_hidden"),
    Row("draft_params", "Draft parameters held Ψ_d",
        formula=_by_method(f"serving_draft_layers*{_layer('model_experts')}+2*model_hidden*model_hidden",
                           _draft("params")), kind="params", unit="parameters",
        note="mtp: layers shaped like the model's last and a 2h×h projection; the embedding and head shared",
        name="serving_draft_params"),
    Row("draft_multiplied_params", "Draft multiplied parameters Ψ_mm,d",
        formula=_by_method(f"serving_draft_layers*{_layer('model_experts_per_token')}+2*model_hidden*model_hidden"
                           "+model_vocab*model_hidden",
                           f"{_draft('active_params')}-IF({_draft('tied_embeddings')},0,1)*{_draft('vocab')}"
                           f"*{_draft('hidden')}"), kind="params", unit="parameters",
        note="mtp: its layers' active parameters, the projection and the shared head V·h",
        name="serving_draft_multiplied_params"),
    Row("draft_attention_width", "Draft attention widths w_qk + w_av",
        formula=_by_method("serving_attention_width", model.attention_width(DRAFT_CELLS)), kind="count", unit="",
        name="serving_draft_attention_width"),
    Row("draft_kv_bytes_per_token", "Draft KV cache per token per GPU KV_d",
        formula=draft_kv_bytes_per_token("serving_kv_bytes_per_token", "serving_kv_value_bytes", T),
        kind="count", unit="bytes", name="serving_draft_kv_bytes_per_token"),
    Row("draft_experts", "Draft routed experts", formula=_by_method("model_experts", _draft("experts")),
        kind="count", unit="experts", name="serving_draft_experts"),
    Row("draft_experts_per_token", "Draft experts per token",
        formula=_by_method("model_experts_per_token", _draft("experts_per_token")), kind="count", unit="experts",
        name="serving_draft_experts_per_token"),
    Row("draft_expert_ffn", "Draft expert FFN", formula=_by_method("model_expert_ffn", _draft("expert_ffn")),
        kind="count", name="serving_draft_expert_ffn"),
    Row("draft_moe_layer_count", "Draft MoE layers",
        formula=_by_method(f"IF({_MOE},serving_draft_layers,0)", _draft("moe_layer_count")), kind="count",
        unit="layers", name="serving_draft_moe_layer_count"),
    Row("draft_gated", "Draft FFN gated", formula=_by_method("model_gated", _draft("gated")), kind="bool", unit="",
        name="serving_draft_gated"),
    Row("kv_bytes_held_per_token", "KV cache a sequence holds per token per GPU KV_g + KV_d",
        formula="=serving_kv_bytes_per_token+serving_draft_kv_bytes_per_token", kind="count", unit="bytes",
        name="serving_kv_bytes_held_per_token"),
]

CAPACITY = [
    Row("reserve_gb", "Reserve r · GPU memory", formula="=gpu_memory_gb*serving_memory_reserve", kind="gb",
        name="serving_reserve_gb"),
    Row("pool_gb", "Pool for the KV cache = memory − reserve − W_g",
        formula="=gpu_memory_gb-serving_reserve_gb-serving_weights_gb", kind="gb", warn="negative",
        note="Negative: the weights alone do not fit", name="serving_pool_gb"),
    Row("sequence_gb", "One sequence at its final length (s + o) · (KV_g + KV_d)",
        formula="=serving_sequence_length*serving_kv_bytes_held_per_token/1e9", kind="gb", name="serving_sequence_gb"),
    Row("max_concurrency", "Sequences that fit B_max",
        formula=f"=IF(serving_pool_gb<=0,0,{RANKS}*INT(ROUND(serving_pool_gb/serving_sequence_gb,"
                "gpu_rounding_decimals)))",
        kind="count", unit="sequences", note="Each reserves its final length (no eviction), on its own rank: d_a · "
        "the rank's; 0: does not fit",
        name="serving_max_concurrency", bold=True),
    Row("fits", "The users fit (u ≤ B_max)", formula="=serving_users<=serving_max_concurrency", kind="bool", unit="",
        name="serving_fits", warn="false"),
]

IDLE_AT = model.pieces_at("pass_idle_")
_IDLE = model.pass_pieces(R, None)  # one prompt on one rank (§14.5)
IDLE = [
    Row("ttft_compute_ms", "Prefill compute (2·Ψ_mm·s + L·s²·w) / (t · P_e · η_c), per GPU of one rank",
        formula=f"={_IDLE['prefill_compute']}*1000", kind="tenths", unit="ms"),
    Row("ttft_memory_ms", "Prefill memory (S(s) · b_w / t + s · KV_g) / BW_e, the experts over G",
        formula=f"={_IDLE['prefill_memory']}*1000", kind="tenths", unit="ms"),
    Row("ttft_all_reduce_ms", "All-reduces AR(s) and all-to-all A2A(s)",
        formula=f"={_IDLE['prefill_all_reduce']}*1000", kind="tenths", unit="ms"),
    *(Row(key, words, formula="=" + expression, kind="tenths", unit="ms")
      for key, words, expression in model.piece_specs(R, None, "pass_idle_", ("draft_prefill",))),
    Row("ttft_draft_ms", "The draft's prefill (speculative decoding)",
        formula=f"=IF(serving_draft_on,{model.pass_s(R, 'draft_prefill', None, IDLE_AT)},0)*1000",
        kind="tenths", unit="ms",
        note="A draft builds its own KV cache over every prompt, after the model's prefill"),
    Row("ttft_ms", "Time to first token TTFT", formula="=MAX({ttft_compute_ms},{ttft_memory_ms})"
        "+{ttft_all_reduce_ms}+serving_pass_overhead_ttft_ms+{ttft_draft_ms}", kind="tenths", unit="ms",
        note="The longer of compute and memory, plus the all-reduces and τ_pass(1)", name="serving_ttft_ms", bold=True),
]


# TTFT at a client concurrency c, closed loop (docs/method.md §14.4) ---------------------------------------------------
S_N = model.new_tokens(R)  # s_n: a prompt's tokens not in the prefix cache
P_S, N_USED = "serving_prefill_passes", "serving_prefill_token_budget_used"


def fill_pass_tokens(j: str, b: str) -> str:
    """n_r = j·s_n/p_s + b − j: the tokens of one fill pass on the busiest rank of b clients (q at d_a = 1)."""
    return f"({j})*{S_N}/{P_S}+({b})-({j})"


def fill_flops(j: str, c: str, b: str, q: str) -> str:
    """T_fill(j, c)'s FLOPs on the busiest rank's t GPUs over the p_s passes (§14.4, §14.5): p_s·(2·Ψ_nr·n_r + A_r +
    2·(Ψ_mm − Ψ_nr)·n·t/G), n = MIN(c, d_a)·n_r, A_r the prompts' causal attention (a p_s-th per pass) and the
    b − j decoders' at c̄. At e = d_a = 1 the GEMMs of j·s_n + p_s·(c − j) tokens and the attention, as §14.4."""
    attention = (f"({j})*model_layers*(serving_prompt_tokens^2-serving_cached_tokens^2)*serving_attention_width/{P_S}"
                 f"+(({b})-({j}))*2*model_layers*serving_mean_context*serving_attention_width")
    return (f"{P_S}*(serving_ops_per_param_token*serving_nonrouted_params*({q})+{attention}+serving_ops_per_param_token"
            f"*(serving_multiplied_params-serving_nonrouted_params)*MIN({c},{RANKS})*({q})*{T}"
            "/serving_gpus_per_replica)")


def fill_bytes(j: str, c: str, b: str, q: str) -> str:
    """T_fill(j, c)'s bytes per GPU over the p_s passes: p_s·(S_g(n)·b_w + K_r), the weights the pass's n tokens
    touch (the experts over G), read once per pass, and the rank's KV cache."""
    n = f"MIN({c},{RANKS})*({q})"
    return (f"{P_S}*((serving_nonrouted_params/{T}+({model.streamed_params(R, n)}-serving_nonrouted_params)"
            f"/serving_gpus_per_replica)*serving_weight_bytes+(({j})*serving_prompt_tokens/{P_S}+(({b})-({j}))"
            "*serving_mean_context)*serving_kv_bytes_per_token)")


def fill_s(q: str, flops: str, moved: str, tau: str) -> str:
    """T_fill(j, c) (§14.4): MAX(F/(t·P_e·η_c), M/BW_e) + p_s·(AR(n_r) + A2A(n_r) + τ_pass(b)), from the cells of
    n_r, F, M and τ_pass(b) (ms)."""
    return (f"(MAX({model.compute_seconds(R, flops)},{model.memory_seconds(R, moved)})"
            f"+{P_S}*({model.talk_seconds(R, q)}+{tau}/1000))")


OVERHEAD = [
    Row("pass_overhead_ttft_ms", "Per-pass overhead of one sequence τ_pass(1)",
        formula=f"={model.pass_overhead(R, '1')}*1000", kind="decimal", unit="ms", name="serving_pass_overhead_ttft_ms",
        note="(τ + τ_0 + τ_L·L + τ_moe·L_moe + τ_seq·n)/1000: the engines row above, or the keys"),
    Row("pass_overhead_ms", "Per-pass overhead at the users τ_pass(b), b on the busiest rank",
        formula=f"={model.pass_overhead(R, model.rank_sequences(R, 'serving_users'))}*1000", kind="decimal", unit="ms",
        name="serving_pass_overhead_ms"),
]


def _ttft_rows() -> list[Row]:
    c, tau = "serving_users", "serving_pass_overhead_ms"
    return [
        Row("rank_clients", "Clients on the busiest rank b = CEILING(c / d_a), c the users",
            formula=f"={model.rank_sequences(R, c)}", kind="count", unit="clients", name="serving_rank_clients"),
        Row("prefill_passes", "Prefill passes per prompt p_s = CEILING(s_n / N)",
            formula=f"=CEILING({S_N}/{N_USED},1)", kind="count", unit="passes", name=P_S,
            note="A prompt longer than the budget N is chunked"),
        Row("prompts_per_pass", "Prompts per pass κ = MIN(c, INT(N / s_n)), 1 when s_n > N",
            formula=f"=IF({S_N}<={N_USED},MIN(serving_rank_clients,INT({N_USED}/{S_N})),1)", kind="count",
            unit="prompts", name="serving_prompts_per_pass"),
        Row("burst_cohorts", "Cohorts of the opening burst m = CEILING(b / κ)",
            formula="=CEILING(serving_rank_clients/serving_prompts_per_pass,1)", kind="count", unit="cohorts",
            name="serving_burst_cohorts"),
        *(row for key, j, words in (("fill", "serving_prompts_per_pass", "burst fill: κ prompts beside c − κ "
                                     "decoders"), ("fill_one", "1", "steady fill: one prompt beside c − 1 decoders"))
          for row in (
              Row(f"{key}_pass_tokens", f"Tokens per pass on the rank of a {words.split(':')[0]} n_r = j·s_n/p_s + b "
                  "− j", formula="=" + fill_pass_tokens(j, "serving_rank_clients"), kind="number", unit="tokens"),
              Row(f"{key}_flops", f"FLOPs on the rank's t GPUs of a {words.split(':')[0]} F",
                  formula="=" + fill_flops(j, c, "serving_rank_clients", f"{{{key}_pass_tokens}}"),
                  kind="tera", unit="TFLOP"),
              Row(f"{key}_bytes", f"Bytes per GPU of a {words.split(':')[0]} M",
                  formula="=" + fill_bytes(j, c, "serving_rank_clients", f"{{{key}_pass_tokens}}"), kind="giga",
                  unit="GB"),
              Row(f"{key}_ms", f"A {words} T_fill(j, c)", kind="tenths", unit="ms",
                  formula="=" + fill_s(f"{{{key}_pass_tokens}}", f"{{{key}_flops}}", f"{{{key}_bytes}}", tau)
                  + "*1000"))),
        Row("itl_at_concurrency_ms", "ITL(c), the loaded pass in flight", formula="=serving_itl_ms", kind="tenths",
            unit="ms"),
        Row("ttft_burst_ms", "Opening burst (m + 1)/2 · T_fill(κ, c)",
            formula="=(serving_burst_cohorts+1)/2*{fill_ms}", kind="tenths", unit="ms", name="serving_ttft_burst_ms"),
        Row("ttft_steady_ms", "Steady state T_fill(1, c) + ITL(c)/2 (0 at c = 1)",
            formula="={fill_one_ms}+IF(serving_rank_clients=1,0,{itl_at_concurrency_ms}/2)", kind="tenths",
            unit="ms", name="serving_ttft_steady_ms"),
        Row("ttft_at_concurrency_ms", "Mean TTFT, closed loop, c clients, R rounds, budget N",
            formula=f'=IF({c}>serving_max_concurrency,"{ABOVE_B_MAX}",{_dispatch()}+serving_ttft_burst_ms'
                    "/serving_client_rounds+(1-1/serving_client_rounds)*serving_ttft_steady_ms)", kind="tenths",
            unit="ms", name="serving_ttft_at_concurrency_ms", bold=True,
            note="δ·L + burst/R + (1 − 1/R)·steady: a mean over the run, not a percentile"),
        Row("ttft_median_at_concurrency_ms", "Median TTFT at c clients (the steady-state request)",
            formula=f'=IF({c}>serving_max_concurrency,"{ABOVE_B_MAX}",{_dispatch()}+serving_ttft_steady_ms)',
            kind="tenths", unit="ms", name="serving_ttft_median_at_concurrency_ms",
            note="δ·L + steady: what a benchmark's median TTFT is compared with"),
    ]


def _dispatch() -> str:
    """δ·(L + L_d), ms: the dispatch a request pays (§14.4; §12.2: the draft's layers too)."""
    return "serving_dispatch_ms_per_layer_used*(model_layers+serving_draft_layers)"


def _at(suffix: str, b: str, names: dict[str, str], keys=tuple(AT), guard: str = "", *, prefix: str,
        kinds=model.PASSES) -> list[Row]:
    """Rows of the values at one B, keyed as the engine's scalars (tpot_ms, tpot_ms_single, tpot_ms_at_max, …),
    after the helper rows of its passes' pieces (prefix: their keys'; grouped out of sight)."""
    rows, at = [], model.pieces_at(prefix)
    for key, words, expression in model.piece_specs(R, b, prefix, kinds):
        formula = expression if not guard else f'IF({guard},"{DOES_NOT_FIT}",{expression})'
        rows.append(Row(key, f"{words} at this B", formula="=" + formula, kind="tenths", unit="ms"))
    for key in keys:
        what, unit, kind, expression = AT[key]
        formula = expression(b, at)
        if guard:
            formula = f'IF({guard},"{DOES_NOT_FIT}",{formula})'
        rows.append(Row(key + suffix, what, formula="=" + formula, kind=kind, unit=unit, name=names.get(key)))
    return rows


AT_USERS = _at("", "serving_users", {"tpot_ms": "serving_tpot_ms", "itl_ms": "serving_itl_ms",
                                          "tokens_per_s_per_gpu": "serving_tokens_per_s_per_gpu",
                                          "cost_per_million_tokens": "serving_cost_per_million_tokens",
                                          "mfu": "serving_mfu"}, prefix="pass_users_")
AT_USERS = [replace(row, formula=f'=IF(serving_fits,{row.formula[1:]},"{NOT_SERVED}")')
            if row.key == "cost_per_million_tokens" else row for row in AT_USERS]  # money only where the users fit
PLAIN_AT = model.pieces_at("pass_plain_")
AT_USERS += [
    *(Row(key, f"Without speculative decoding, {words[0].lower()}{words[1:]}", formula="=" + expression,
          kind="tenths", unit="ms")
      for key, words, expression in model.piece_specs(model.SERVED_PLAIN, "serving_users", "pass_plain_",
                                                      ("verify",))),
    Row("tpot_ms_plain", "TPOT without speculative decoding",
        formula=f"={model.step_s(model.SERVED_PLAIN, 'serving_users', PLAIN_AT)}*1000", kind="tenths", unit="ms",
        name="serving_tpot_ms_plain"),
    Row("speculation_speedup", "Speculative decoding's speed-up (plain TPOT / TPOT)",
        formula="={tpot_ms_plain}/serving_tpot_ms", kind="ratio", unit="×",
        note="Below 1: speculation does not pay at this batch (the verify pass turned compute-bound)"),
]
AT_USERS.append(Row("prefill_ms_at_users", "Prefill of the users' prompts together T_pre(B)",
                    formula=f"={model.prefill_s(R, 'serving_users', model.pieces_at('pass_users_'))}*1000",
                    kind="tenths", unit="ms", name="serving_prefill_ms_at_users",
                    note="Against (B − 1) · TTFT: the stall bound of §11 (a warning on Checks when below)"))
AT_ONE = _at("_single", "1", {"tpot_ms": "serving_tpot_ms_single"}, keys=("tpot_ms",), prefix="pass_one_",
             kinds=("draft", "verify"))
AT_MAX = _at("_at_max", "serving_max_concurrency", {"tpot_ms": "serving_tpot_ms_at_max",
                                                "tokens_per_s_per_gpu": "serving_tokens_per_s_per_gpu_at_max",
                                                "cost_per_million_tokens": "serving_cost_per_million_tokens_at_max"},
             guard="serving_max_concurrency=0", prefix="pass_max_")
HELPERS = ("pass_idle_", "pass_users_", "pass_one_", "pass_max_", "pass_plain_")  # the helper rows (out of sight):
# the passes at one prompt, the users, B = 1, B_max, the users without speculation


def _helper_values(passes: dict) -> dict:
    """The helper rows' values (ms) from the engine's pieces (ServingTable.passes); "does not fit" at B_max = 0."""
    found = {}
    for prefix in HELPERS:
        pieces = passes[prefix[5:-1]]
        found |= model.pieces_in_ms(pieces, prefix) if pieces is not None else \
            {f"{prefix}{key[:-2]}_ms": DOES_NOT_FIT for key in passes["idle"]}
    return found


def _batch(i: int) -> str:
    """The table's B: powers of two below B_max, then B_max, then the users (shown once)."""
    if i < TABLE_ROWS - 2:
        return f'=IF({2 ** i}<serving_max_concurrency,{2 ** i},"")'
    if i == TABLE_ROWS - 2:
        return '=IF(serving_max_concurrency=0,"",serving_max_concurrency)'
    return '=IF(COUNTIF({batch:above},serving_users)>0,"",serving_users)'


def _when_shown(expression: str) -> str:
    return f'=IF({{batch}}="","",{expression})'


def _when_fits(expression: str) -> str:
    """Blank above B_max: the admission queue is not modelled (§14.4)."""
    return f'=IF({{batch}}="","",IF({{batch}}>serving_max_concurrency,"",{expression}))'


_RANK = model.rank_sequences(R, "{batch}")  # b = CEILING(B/d_a, 1): the busiest rank's (§14.5)
# the all-to-all at each B (§14.6): in every workbook, so that an edited e keeps the table's columns; out of sight at
# e = 1 as written
A2A_COLUMN = Column("all_to_all_ms", "All-to-all A2A(b) (ms)", kind="decimal",
                    template=_when_shown(f"{model.all_to_all_seconds(R, _RANK)}*1000"))
TABLE = [
    Column("batch", "Sequences B", template=_batch, kind="count"),
    Column("fits", "Fits", template=_when_shown("{batch}<=serving_max_concurrency"), kind="bool", warn="false"),
    *[Column(key, header, template=_when_shown(AT[key][3]("{batch}", model.pieces_at(""))), kind=AT[key][2])
      for key, header in (("tpot_ms", "TPOT (ms)"), ("itl_ms", "ITL under load (ms)"),
                          ("tokens_per_s_per_gpu", "Tokens/s per GPU"), ("cost_per_million_tokens", "Cost per M "
                           "output tokens"), ("mfu", "Serving MFU"))],
    Column("weights_gb", "Weights (GB)", template=_when_shown("serving_weights_gb"), kind="gb"),
    Column("kv_gb", "KV cache (GB)", template=_when_shown(f"{_RANK}*serving_sequence_gb"), kind="gb"),
    Column("reserve_gb", "Reserve (GB)", template=_when_shown("serving_reserve_gb"), kind="gb"),
    Column("free_gb", "Free (GB)", template=_when_shown("gpu_memory_gb-{weights_gb}-{kv_gb}-{reserve_gb}"),
           kind="gb", warn="negative"),
    Column("capacity_gb", "GPU memory (GB)", template=_when_shown("gpu_memory_gb"), kind="gb"),
    Column("pass_overhead_ms", "Per-pass overhead τ_pass(b) (ms)",
           template=_when_shown(f"{model.pass_overhead(R, _RANK)}*1000"), kind="decimal"),
    A2A_COLUMN,
    Column("ttft_at_concurrency_ms", "Mean TTFT, closed loop, c = B clients (ms)",
           template=_when_fits(f"{_dispatch()}+(CEILING({_RANK}/{{prompts_per_pass}},1)+1)/2*{{fill_ms}}"
                               "/serving_client_rounds+(1-1/serving_client_rounds)*({fill_one_ms}"
                               "+IF({batch}=1,0,{itl_ms}/2))"), kind="tenths"),
    Column("ttft_median_at_concurrency_ms", "Median TTFT at c = B clients (ms)",
           template=_when_fits(f"{_dispatch()}+{{fill_one_ms}}+IF({{batch}}=1,0,{{itl_ms}}/2)"), kind="tenths"),
]
TTFT_COLUMNS = [  # the fills of §14.4 at c = B: what the two TTFT columns read (helpers, grouped out of sight)
    Column("prompts_per_pass", "Prompts per pass κ",
           template=_when_shown(f"IF({S_N}<={N_USED},MIN({_RANK},INT({N_USED}/{S_N})),1)"), kind="count"),
    *(column for key, j, words in (("fill", "{prompts_per_pass}", "Burst fill T_fill(κ, B)"),
                                   ("fill_one", "1", "Steady fill T_fill(1, B)"))
      for column in (
          Column(f"{key}_pass_tokens", f"{words}: tokens per pass on the rank", kind="number",
                 template=_when_shown(fill_pass_tokens(j, _RANK))),
          Column(f"{key}_flops", f"{words}: FLOPs on the rank (T)", kind="tera",
                 template=_when_shown(fill_flops(j, "{batch}", _RANK, f"{{{key}_pass_tokens}}"))),
          Column(f"{key}_bytes", f"{words}: bytes per GPU (G)", kind="giga",
                 template=_when_shown(fill_bytes(j, "{batch}", _RANK, f"{{{key}_pass_tokens}}"))),
          Column(f"{key}_ms", f"{words} (ms)", kind="tenths", template=_when_shown(
              fill_s(f"{{{key}_pass_tokens}}", f"{{{key}_flops}}", f"{{{key}_bytes}}", "{pass_overhead_ms}")
              + "*1000")))),
]
PIECE_COLUMNS = [Column(key, f"{words} (ms)", template=_when_shown(expression), kind="tenths")
                 for key, words, expression in model.piece_specs(R, "{batch}")]  # what the table's times read
TABLE_LABELS = ["A power of two below B_max"] * (TABLE_ROWS - 2) + ["B_max", "The users, if neither"]
# the engine's table keys for the memory stack
TABLE_VALUES = {"batch": "batch", "fits": "fits", "tpot_ms": "tpot_ms", "itl_ms": "itl_ms",
                "tokens_per_s_per_gpu": "tokens_per_s_per_gpu", "cost_per_million_tokens": "cost_per_million_tokens",
                "mfu": "mfu", "weights_gb": "weights_gb", "kv_gb": "kv_gb", "reserve_gb": "reserve_gb",
                "free_gb": "free_gb", "capacity_gb": "capacity_gb", "pass_overhead_ms": "pass_overhead_ms",
                "ttft_at_concurrency_ms": "ttft_at_concurrency_ms",
                "ttft_median_at_concurrency_ms": "ttft_median_at_concurrency_ms", "all_to_all_ms": "all_to_all_ms",
                **{key: key for key in TTFT_HELPERS}}


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.serving
    sheet = book.sheet(SHEET, [("", 11)] * len(TABLE), note_width=44, beside=True)
    sheet.title("Serving: capacity, latency, throughput and cost", "docs/method.md §6: one replica of t GPUs as a "
                "roofline; prefill bound by compute, decode by memory bandwidth.")
    s = table.scalars
    sheet.blocks((("The precisions and the GPU, looked up in Catalog", LOOKUPS),
                  ("The replica's layout: expert and attention data parallelism (docs/method.md §14.5)", LAYOUT),
                  ("The engine's priors: Catalog's engines table (docs/method.md §14.3)", ENGINE_ROWS),
                  ("Efficiencies in force: the inputs, or fitted from benchmark logs", in_force_rows(
                      results.scenario.goodput.benchmarks if table.calibration else [])),
                  ("Per token and per GPU", PER_TOKEN),
                  ("Speculative decoding and prefix caching (0: none)", SPECULATION),
                  ("Capacity: how many sequences fit", CAPACITY),
                  ("The per-pass overhead τ_pass (docs/method.md §14.2)", OVERHEAD),
                  ("One request on an idle server", IDLE),
                  ("At the users (shown even when they do not fit)", AT_USERS),
                  ("TTFT at the users as clients of a closed loop (docs/method.md §14.4)", _ttft_rows()),
                  ("At one sequence (B = 1)", AT_ONE),
                  ("At B_max (the most that fit)", AT_MAX)),
                 s | _helper_values(table.passes))
    sheet.hide([place.row for key, place in sheet.places.items() if key.startswith(HELPERS)])

    sheet.section("Over concurrency: B = 1, 2, 4, … below B_max, B_max and the users")
    blank = {column.key: "" for column in PIECE_COLUMNS}
    values = [{key: row[source] for key, source in TABLE_VALUES.items()}
              | (model.pieces_in_ms(pieces) if pieces is not None else blank)
              for row, pieces in zip(table.rows, table.passes["table"])]
    # the helper columns (grouped out of sight) right of every table's columns, the calibration's or this one's
    helper_col = 1 + max(len(TABLE), len(CALIBRATION_VALUES) + len(_fit_columns([], None)) if table.calibration else 0)
    header, first, _ = sheet.records(TABLE_LABELS, TABLE, values, label_header="B is",
                                     helpers=TTFT_COLUMNS + PIECE_COLUMNS, helper_col=helper_col)
    sheet.set_height(header, 45)
    sheet.hide([first + i for i, row in enumerate(values) if row["batch"] == ""])  # powers of two from B_max on
    sheet.block_starts.append(sheet.places["weights_gb"].col)  # the memory columns print as a block of their own
    if results.scenario.serving.expert_parallel == 1:  # no all-to-all: its column out of sight (a + shows it)
        sheet.group_columns(sheet.places["all_to_all_ms"].col, sheet.places["all_to_all_ms"].col)
    _curve_chart(book, sheet)
    _stack_chart(book, sheet)
    if table.calibration:
        _calibration(book, sheet, table.calibration, results, helper_col)
    return sheet


def table_columns(expert_parallel: int) -> list[Column]:
    """The concurrency table's columns as the summary shows them: the all-to-all A2A(b) only with e > 1 (§14.6)."""
    return TABLE if expert_parallel > 1 else [column for column in TABLE if column is not A2A_COLUMN]


def _curve_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The throughput-latency curve: tokens per second per GPU and ITL against B."""
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    batch = sheet.series("batch")
    tokens = sheet.series("tokens_per_s_per_gpu")
    chart.add_series({"name": "Output tokens per second per GPU", "categories": batch, "values": tokens,
                      "line": {"color": "#4472C4", "width": 2}, "marker": {"type": "circle"}})
    chart.add_series({"name": "ITL under load (ms, right axis)", "categories": batch, "values": sheet.series("itl_ms"),
                      "y2_axis": True, "line": {"color": kit.WARNING_RED, "width": 2}, "marker": {"type": "diamond"}})
    chart.set_title({"name": "Throughput and latency against concurrency"})
    chart.set_x_axis({"name": "Sequences B (log scale)", "log_base": 2, "min": 1})
    chart.set_y_axis({"name": "Tokens per second per GPU", "num_format": "#,##0", "min": 0,
                      "major_gridlines": {"visible": True}})
    chart.set_y2_axis({"name": "ITL (ms)", "num_format": "#,##0", "min": 0})
    chart.set_legend({"position": "bottom"})
    sheet.chart(chart, height=340)


def _stack_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The memory stack at each B against the GPU's memory."""
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    batch = sheet.series("batch")
    for key, legend, colour in (("weights_gb", "Weights", "#4472C4"), ("kv_gb", "KV cache", "#FFC000"),
                                ("reserve_gb", "Reserve", "#A5A5A5"), ("free_gb", "Free", "#70AD47")):
        chart.add_series({"name": legend, "categories": batch, "values": sheet.series(key),
                          "fill": {"color": colour}, "gap": 50})
    chart.set_title({"name": "GPU memory at each B: weights, KV cache, reserve, free"})
    chart.set_x_axis({"name": "Sequences B"})
    chart.set_y_axis({"name": "GB per GPU", "num_format": '#,##0" GB"', "min": 0, "major_gridlines": {"visible": True}})
    capacity = book.wb.add_chart({"type": "line"})
    capacity.add_series({"name": "GPU memory", "categories": batch, "values": sheet.series("capacity_gb"),
                         "line": {"color": kit.WARNING_RED, "width": 2.25, "dash_type": "dash"}})
    chart.combine(capacity)
    chart.set_legend({"position": "bottom"})
    sheet.chart(chart, height=320)


CALIBRATION_VALUES = ("mean_concurrency", "mean_prompt_tokens", "mean_output_tokens", "clients", "measured_ttft_ms",
                      "predicted_ttft_ms", "predicted_ttft_median_ms", "rounds", "measured_mean_ttft_ms",
                      "predicted_ttft_mean_ms", "own_prefill_ms", "measured_tpot_ms",
                      "predicted_tpot_ms", "implied_compute_efficiency", "implied_bandwidth_efficiency")


BUSIEST = "CEILING({mean_concurrency},1)"  # b̄: the sequences of a run's pass (§14.6)


def exchange_seconds(c: model.ReplicaCells, tokens: str) -> str:
    """What a run's pass of `tokens` spends exchanging activations, seconds: AR(n); with expert parallelism A2A(n)
    joins it here (§14.6: "A2A is subtracted wherever AR is"; the engine's calibration.exchange)."""
    return model.all_reduce_seconds(c, tokens)


def _left(c: model.ReplicaCells, measured: str, tokens: str, sequences: str) -> str:
    """A run's measured time less AR (and A2A) and τ_pass(n), seconds (the implied efficiencies, §14.6)."""
    return f"({{{measured}}}/1000-{exchange_seconds(c, tokens)}-{model.pass_overhead(c, sequences)})"


@dataclass(frozen=True)
class RunCells:
    """Where each benchmark run's terms are: its benchmark GPU's Catalog values and its helper cells."""

    runs: list[dict]

    def lookup(self, i: int, column: str) -> str:  # the run's benchmark GPU's Catalog value
        return _lookup("gpu", column, f"goodput_benchmarks_{self.runs[i]['benchmark']}_gpu")

    def cells(self, i: int) -> model.ReplicaCells:  # the run's benchmark GPU (its helper cells) and its lengths
        gpu = replace(model.PLAIN, compute_efficiency="serving_compute_efficiency_in",
                      overhead_ms="serving_overhead_ms", peak_flops="{run_peak_flops}",
                      bandwidth="({run_hbm_tbps}*1e12*serving_bandwidth_efficiency_in)",
                      nvlink_gbps="{run_nvlink_gbps}", peak_tflops=self.lookup(i, "peak_tflops"),
                      hbm_tbps="{run_hbm_tbps}")
        return model.at_run(gpu, prompt_tokens="{mean_prompt_tokens}", output_tokens="{mean_output_tokens}")

    def after(self, i: int) -> model.ReplicaCells:  # the same run at the values in force on the benchmark's GPU
        return replace(self.cells(i), compute_efficiency="serving_fit_compute_efficiency",
                       overhead_ms="serving_fit_overhead_ms",
                       bandwidth="({run_hbm_tbps}*1e12*serving_fit_bandwidth_efficiency)")

    def peak(self, i: int) -> str:  # P_e on the run's GPU
        fp8, fp4, bf16 = (self.lookup(i, column) for column in ("fp8_tflops", "fp4_tflops", "peak_tflops"))
        return (f"=(IF(AND(serving_fp4_gemm,ISNUMBER({fp4})),{fp4},IF(AND(serving_fp8_gemm,ISNUMBER({fp8})),{fp8},"
                f"{bf16}))*1e12)")


RUN_C, RUN_FITTED_C = "run_c_", "run_fitted_c_"  # a run's passes at its clients c_i, at the inputs and as fitted
RUN_P_S = "CEILING({mean_prompt_tokens}/serving_prefill_token_budget_used,1)"  # p_s at the run's prompt


# κ at the run's prompt and clients c_i (§14.4; a run is never laid out: b = c_i)
RUN_KAPPA = (f"IF({{mean_prompt_tokens}}<={N_USED},MIN({{clients}},INT({N_USED}/{{mean_prompt_tokens}})),1)")
RUN_DISPATCH = "serving_dispatch_ms_per_layer_used*model_layers"  # δ·L (ms): a run is of the model alone


def _run_fill(r: RunCells, i: int, fitted: bool, key: str = "run_fill") -> str:
    """T_fill(1, c_i) (`key` run_fill) or T_fill(κ, c_i) (run_burst_fill) at the run's lengths on its GPU (§14.4),
    ms: at the inputs, or as fitted."""
    c = r.after(i) if fitted else r.cells(i)
    return "=" + model.fill_s(c, f"{{{key}_pass_tokens}}", f"{{{key}_flops}}", f"{{{key}_bytes}}",
                              f"({model.pass_overhead(c, '{clients}')}*1000)", p_s=RUN_P_S) + "*1000"


def _run_median(r: RunCells, i: int, fitted: bool) -> str:
    """TTFT_med(c_i) = δ·L + T_fill(1, c_i) + ITL(c_i)/2 (0 at c_i = 1), ms (§14.4), at the inputs or as fitted."""
    c, at, fill = ((r.after(i), AT_FITTED_C, "{run_fitted_fill_ms}") if fitted else
                   (r.cells(i), AT_RUN_C, "{run_fill_ms}"))
    return (f"={RUN_DISPATCH}+{fill}+IF({{clients}}=1,0,"
            f"{model.cycle_s(c, '{clients}', at)}/{{mean_output_tokens}}*1000/2)")


def _run_helpers(r: RunCells) -> list[Column]:
    """What the runs' predictions read (grouped out of sight): the run's GPU, and its passes at one prompt, at B̄
    and at its clients c_i (ms), at the inputs and as fitted; the steady fill T_fill(1, c_i) and TTFT_med(c_i) as
    fitted."""
    nvlink = "nvlink_gbps"
    return [
        Column("run_peak_flops", "Its GPU's effective peak P_e (TFLOP/s)", kind="tera", template=r.peak),
        Column("run_hbm_tbps", "Its GPU's HBM (TB/s)", kind="decimal",
               template=lambda i: "=" + r.lookup(i, "hbm_tbps")),
        Column("run_nvlink_gbps", "Its GPU's NVLink (GB/s, 0: none)", kind="count",
               template=lambda i: f"=IF(ISNUMBER({r.lookup(i, nvlink)}),{r.lookup(i, nvlink)},0)"),
        *(Column(key, f"{words}{where} (ms)", kind="tenths",
                 template=lambda i, key=key, batch=batch, prefix=prefix, fitted=fitted: "=" + _run_piece(
                     r.after(i) if fitted else r.cells(i), batch, key, prefix, AS_FITTED if fitted else None))
          for prefix, batch, where, fitted in ((RUN_ONE, None, ", one prompt", False),
                                               (RUN_B, "{mean_concurrency}", " at B̄", False),
                                               (RUN_C, "{clients}", " at c", False),
                                               (RUN_FITTED_ONE, None, ", one prompt, as fitted", True),
                                               (RUN_FITTED_B, "{mean_concurrency}", " at B̄, as fitted", True),
                                               (RUN_FITTED_C, "{clients}", " at c, as fitted", True))
          for key, words, _ in model.piece_specs(model.PLAIN, batch, prefix)
          if not fitted or key.endswith("_pass_ms")),
        Column("run_prompts_per_pass", "Prompts per pass κ at c", kind="count", template="=" + RUN_KAPPA),
        *(column for key, j, words, symbol in (("run_fill", "1", "Steady fill", "1"),
                                               ("run_burst_fill", "{run_prompts_per_pass}", "Burst fill", "κ"))
          for column in (
              Column(f"{key}_pass_tokens", f"{words} at c: tokens per pass q", kind="number",
                     template=lambda i, j=j: "=" + model.fill_pass_tokens(r.cells(i), j, "{clients}", RUN_P_S)),
              Column(f"{key}_flops", f"{words} at c: FLOPs (T)", kind="tera",
                     template=lambda i, j=j: "=" + model.fill_flops(r.cells(i), j, "{clients}", RUN_P_S)),
              Column(f"{key}_bytes", f"{words} at c: bytes (G)", kind="giga",
                     template=lambda i, j=j, key=key: "=" + model.fill_bytes(
                         r.cells(i), j, "{clients}", f"{{{key}_pass_tokens}}", RUN_P_S)),
              Column(f"{key}_ms", f"{words} T_fill({symbol}, c) (ms)",
                     kind="tenths", template=lambda i, key=key: _run_fill(r, i, False, key)))),
        Column("run_fitted_fill_ms", "Steady fill T_fill(1, c), as fitted (ms)", kind="tenths",
               template=lambda i: _run_fill(r, i, True)),
        Column("run_fitted_ttft_median_ms", "Median TTFT at c, as fitted (ms)", kind="tenths",
               template=lambda i: _run_median(r, i, True)),
    ]


def _mean_columns(runs: list[dict]) -> list[Column]:
    """Each run's R (its benchmark's rounds, else serving.client_rounds; §14.1) and its measured mean TTFT beside
    TTFT_c(c_i) = δ·L + burst/R + (1 − 1/R)·steady, the steady part TTFT_med(c_i) − δ·L (§14.4, §14.6), ms."""
    return [
        Column("rounds", "Rounds per client R (the benchmark's, else serving.client_rounds)", kind="decimal",
               template=lambda i: "=IF(ISNUMBER({0}),{0},serving_client_rounds)".format(
                   f"goodput_benchmarks_{runs[i]['benchmark']}_rounds")),
        Column("measured_mean_ttft_ms", "Measured mean TTFT (ms)", kind="tenths",
               template="=SUMIFS(requests_ttft_ms,requests_run,{label},requests_failed,FALSE)"  # AVERAGEIFS is not
                        "/COUNTIFS(requests_run,{label},requests_failed,FALSE)"),  # among the portable functions
        Column("predicted_ttft_mean_ms", "Predicted mean TTFT at c clients over R rounds, TTFT_c(c) (ms)",
               kind="tenths", template=f"={RUN_DISPATCH}+(CEILING({{clients}}/{{run_prompts_per_pass}},1)+1)/2"
                                       "*{run_burst_fill_ms}/{rounds}+(1-1/{rounds})*({predicted_ttft_median_ms}"
                                       f"-{RUN_DISPATCH})"),
    ]


def _calibration(book: kit.Book, sheet: kit.Sheet, runs: list[dict], results, helper_col: int) -> None:
    """Each benchmark run (Goodput, Requests) beside the prediction at its mean concurrency on its GPU: live
    formulas of the Requests sheet's rows and of the run's benchmark GPU's Catalog row."""
    sheet.section("Calibration: measured benchmark runs beside the prediction at their mean concurrency")
    numbers, cells, after = [row["run"] for row in runs], RunCells(runs).cells, RunCells(runs).after

    block = "INDEX(requests_completed_{0},MATCH({{label}},requests_run,0)):INDEX(requests_completed_{0}," \
            "MATCH({{label}},requests_run,0)+COUNTIF(requests_run,{{label}})-1)"
    done = "COUNTIFS(requests_run,{label},requests_failed,FALSE)"
    columns = [
        Column("mean_concurrency", "Mean concurrency (Little's law)",
               template="=SUMIFS(requests_latency_s,requests_run,{label},requests_failed,FALSE)"
                        "/INDEX(runs_duration_s,{label})", kind="decimal"),
        Column("mean_prompt_tokens", "Mean prompt tokens",
               template=f"=SUMIFS(requests_input_tokens,requests_run,{{label}},requests_failed,FALSE)/{done}",
               kind="number"),
        Column("mean_output_tokens", "Mean output tokens",
               template=f"=SUMIFS(requests_output_tokens,requests_run,{{label}},requests_failed,FALSE)/{done}",
               kind="number"),
        Column("clients", "Clients c = MAX(1, ROUND(B̄))", template="=MAX(1,ROUND({mean_concurrency},0))",
               kind="count"),
        Column("measured_ttft_ms", "Measured median TTFT (ms)", template=f"=PERCENTILE({block.format('ttft_ms')},0.5)",
               kind="tenths"),
        Column("predicted_ttft_ms", "Predicted TTFT, idle server (ms)", kind="tenths",
               template=lambda i: f"={model.ttft_s(cells(i), AT_RUN_ONE)}*1000"),
        Column("predicted_ttft_median_ms", "Predicted median TTFT at c clients, TTFT_med(c) (ms)", kind="tenths",
               template=lambda i: _run_median(RunCells(runs), i, False)),
        *_mean_columns(runs),
        Column("own_prefill_ms", "The run's own prefill P = TTFT − (TTFT_med(c) − TTFT idle) (ms)", kind="tenths",
               template="={measured_ttft_ms}-({predicted_ttft_median_ms}-{predicted_ttft_ms})"),
        Column("measured_tpot_ms", "Measured median TPOT (ms)", template=f"=PERCENTILE({block.format('tpot_ms')},0.5)",
               kind="tenths"),
        Column("predicted_tpot_ms", "Predicted TPOT (ms)", kind="tenths",
               template=lambda i: f"={model.tpot_s(cells(i), '{mean_concurrency}', AT_RUN_B)}*1000"),
        Column("implied_compute_efficiency", "Implied η_c", kind="percent",
               template=lambda i: f"={model.prefill_flops(cells(i))}/({T}*{cells(i).peak_flops}"
                                  f"*{_left(cells(i), 'own_prefill_ms', '{mean_prompt_tokens}', '1')})"),
        Column("implied_bandwidth_efficiency", "Implied η_m", kind="percent",
               template=lambda i: f"={model.decode_bytes(cells(i), '{mean_concurrency}')}/({cells(i).hbm_tbps}"
                                  f"*1e12*{_left(cells(i), 'measured_tpot_ms', BUSIEST, BUSIEST)})"),
    ]
    columns += _fit_columns(runs, cells, after)
    values = [{key: row[key] for key in CALIBRATION_VALUES} | _fit_values(row) | _measured_values(found)
              for row, found in zip(runs, results.serving.passes["measured"])]
    header, _, _ = sheet.records(numbers, columns, values, label_header="Run no. (Requests)",
                                 helpers=_run_helpers(RunCells(runs)), helper_col=helper_col)
    sheet.set_height(header, 45)
    sheet.text("A run's median TTFT is compared with the median TTFT of a closed loop at c clients (docs/method.md "
               "§14.4), not with one request on an idle server; its own prefill P takes the predicted closed-loop "
               "excess out. η_m implied = the decode step's bytes / (HBM · (median TPOT − AR − τ_pass(b̄))); η_c "
               "implied = the prefill FLOPs / (t · P_e · (P − AR − τ_pass(1))). The fit below uses the runs of the "
               "benchmark serving.calibration names: the decode step is linear in its bytes, Y = X / η_m + Z · τ, with "
               "the prefills' stalls and the known overhead K(n) taken out.", style=book.styles.note, height=44)
    sheet.skip()
    sheet.section("The fit: η_m and τ by least squares through the origin on (X, Z), η_c on the prefills (ms)")
    sheet.rows(FIT, _fit_shown(results.serving.scalars))


RUN_ONE, RUN_B = "run_one_", "run_b_"  # a run's helper cells: its passes at one prompt and at B̄
AT_RUN_ONE, AT_RUN_B, AT_RUN_C = model.pieces_at(RUN_ONE), model.pieces_at(RUN_B), model.pieces_at("run_c_")
AT_FITTED_ONE, AT_FITTED_B = model.pieces_at("run_fitted_one_"), model.pieces_at("run_fitted_b_")
AT_FITTED_C = model.pieces_at("run_fitted_c_")


RUN_FITTED_ONE, RUN_FITTED_B = "run_fitted_one_", "run_fitted_b_"  # … and as fitted: the passes only
AS_FITTED = {"memory": "serving_bandwidth_efficiency_in/serving_fit_bandwidth_efficiency"}  # a memory time as fitted


def _run_piece(c: model.ReplicaCells, batch: str | None, key: str, prefix: str, scale: dict | None = None) -> str:
    """A run's helper cell (its key under `prefix`), in ms, at its lengths on its GPU (`c`); with `scale`, a pass
    reads the memory time at the inputs' η_m (the run's own cell) times the ratio that makes it the fitted one's."""
    at = model.pieces_at({None: RUN_ONE, "{mean_concurrency}": RUN_B, "{clients}": RUN_C}[batch])
    if scale:
        at = {k: f"({cell}*{scale['memory']})" for k, cell in at.items() if k.endswith("_memory")}
    kind = key[len(prefix):].rsplit("_", 2)[0]
    if key.endswith("_memory_ms"):
        return f"{model.pass_pieces(c, batch)[kind + '_memory']}*1000"
    return f"{model.pass_s(c, kind, batch, {k: v for k, v in at.items() if k == kind + '_memory'})}*1000"


def _measured_values(found: dict) -> dict:
    """A run's helper cells from the engine (ServingTable.passes["measured"]): its GPU, its passes in ms, and the
    steady fill and median TTFT at its clients."""
    found_at = {}
    for key, prefix in (("one", RUN_ONE), ("b", RUN_B), ("c", RUN_C), ("fitted_one", RUN_FITTED_ONE),
                        ("fitted_b", RUN_FITTED_B), ("fitted_c", RUN_FITTED_C)):
        found_at |= model.pieces_in_ms(found[key], prefix) if found[key] is not None else \
            {f"{prefix}{piece[:-2]}_ms": "" for piece in found["one"]}
    fill = found["fill"]
    return {"run_peak_flops": found["peak_flops"], "run_hbm_tbps": found["hbm_tbps"],
            "run_nvlink_gbps": found["nvlink_gbps"], **found_at,
            "run_fill_pass_tokens": fill["fill_one_pass_tokens"], "run_fill_flops": fill["fill_one_flops"],
            "run_fill_bytes": fill["fill_one_bytes"], "run_fill_ms": fill["fill_one_ms"],
            "run_prompts_per_pass": fill["prompts_per_pass"], "run_burst_fill_pass_tokens": fill["fill_pass_tokens"],
            "run_burst_fill_flops": fill["fill_flops"], "run_burst_fill_bytes": fill["fill_bytes"],
            "run_burst_fill_ms": fill["fill_ms"],
            "run_fitted_fill_ms": fill["fitted_fill_one_ms"],
            "run_fitted_ttft_median_ms": fill["fitted_ttft_median_ms"]}


def _fit_columns(runs: list[dict], cells, after=None) -> list[Column]:
    """The fit's columns beside each run (docs/method.md §12.1), in ms: whether the fit uses the run (its benchmark
    is the one serving.calibration names; the prefill compute-bound and the decode memory-bound at the inputs' η;
    its TTFT within the queueing factor of the idle prediction; more than one output token and Z > 0), then X, the
    prefills' stall, Y, Z, x, y and the residual, blank ("") for a run not used; and the prediction's errors."""
    def used(i: int) -> str:
        c, b = cells(i), "{mean_concurrency}"
        prefill = (model.compute_seconds(c, model.prefill_flops(c)), AT_RUN_ONE["prefill_memory"])
        decode = (AT_RUN_B["verify_memory"], model.compute_seconds(c, model.decode_flops(c, b)))
        bound = (f"AND({prefill[0]}>={prefill[1]},{decode[0]}>={decode[1]},"
                 "{measured_ttft_ms}<=calibration_queueing_factor*{predicted_ttft_median_ms},"
                 f"{{own_prefill_ms}}/1000>{exchange_seconds(c, '{mean_prompt_tokens}')}+{known(i, '1')})")
        return (f"=IF(AND(goodput_benchmarks_{runs[i]['benchmark']}_name=serving_calibration,"
                f"{{mean_output_tokens}}>1,1-({b}-1)/{{mean_output_tokens}}>0),{bound},FALSE)")

    def when_used(expression) -> Callable[[int], str]:
        return lambda i: f'=IF({{used}},{expression(i)},"")'

    def itl(c: model.ReplicaCells, at: dict[str, str]) -> str:
        return f"{model.cycle_s(c, '{mean_concurrency}', at)}/{{mean_output_tokens}}*1000"

    b, s, o = "{mean_concurrency}", "{mean_prompt_tokens}", "{mean_output_tokens}"

    def known(i: int, sequences: str) -> str:  # K(n), the per-pass overhead less τ (§14.6), seconds
        return model.pass_overhead(replace(cells(i), overhead_ms="0"), sequences)

    return [
        Column("used", "Used by the fit", kind="bool", template=used),
        Column("x_bytes_ms", "X: decode bytes at full HBM (ms)", kind="decimal",
               template=when_used(lambda i: f"{model.decode_bytes(cells(i), b)}/({cells(i).hbm_tbps}*1e12)*1000")),
        Column("stall_ms", "Prefills' stall per token (ms)", kind="decimal", template=when_used(
            lambda i: f"({b}*({{own_prefill_ms}}/1000-{exchange_seconds(cells(i), s)}-{known(i, '1')})"
                      f"+{exchange_seconds(cells(i), f'{b}*{s}')}+{known(i, b)})/{o}*1000")),
        Column("y_ms", "Y = TPOT − AR(B̄) − stall − K(B̄) (ms)", kind="decimal", template=when_used(
            lambda i: f"{{measured_tpot_ms}}-({exchange_seconds(cells(i), b)}+{known(i, b)})*1000"
                      "-{stall_ms}")),
        Column("z", "Z = 1 − (B̄ − 1) / o", kind="decimal", template=when_used(lambda i: f"1-({b}-1)/{o}")),
        Column("x_prefill_ms", "x: prefill at full peak (ms)", kind="decimal", template=when_used(
            lambda i: f"{model.prefill_flops(cells(i))}/({T}*{cells(i).peak_flops})*1000")),
        Column("y_prefill_ms", "y = P − AR(s) − τ − K(1) (ms)", kind="decimal", template=when_used(
            lambda i: f"{{own_prefill_ms}}-({exchange_seconds(cells(i), s)}+{known(i, '1')})*1000"
                      "-serving_fit_overhead_ms")),
        Column("residual_ms", "Residual Y − m·X − τ·Z (ms)", kind="decimal",
               template='=IF(AND({used},serving_fit_status="fitted"),{y_ms}-serving_fit_slope*{x_bytes_ms}'
                        '-serving_fit_intercept_ms*{z},"")'),
        Column("ttft_error_before", "Median TTFT error at the inputs (against TTFT_med(c))", kind="percent",
               template=when_used(lambda i: "{predicted_ttft_median_ms}/{measured_ttft_ms}-1")),
        Column("itl_error_before", "ITL error at the inputs", kind="percent",
               template=when_used(lambda i: f"{itl(cells(i), AT_RUN_B)}/{{measured_tpot_ms}}-1")),
        Column("ttft_error_after", "TTFT error as fitted", kind="percent",
               template=when_used(lambda i: "{run_fitted_ttft_median_ms}/{measured_ttft_ms}-1")),
        Column("itl_error_after", "ITL error as fitted", kind="percent",
               template=when_used(lambda i: f"{itl(after(i), AT_FITTED_B)}/{{measured_tpot_ms}}-1")),
    ]


FIT_IN_MS = {"x_bytes_ms": 1e3, "stall_ms": 1e3, "y_ms": 1e3, "x_prefill_ms": 1e3, "y_prefill_ms": 1e3,
             "residual_ms": 1e3}  # the engine's seconds, shown in ms


def _fit_values(row: dict) -> dict:
    """A run's fit columns as the sheet shows them (ms), "" where the engine holds none."""
    found = {"used": row["used"], "z": row["z"]}
    for key, scale in FIT_IN_MS.items():
        value = row[key.replace("_ms", "_s")]
        found[key] = value * scale if isinstance(value, float) else ""
    found |= {k: row[k] for k in ("ttft_error_before", "itl_error_before", "ttft_error_after", "itl_error_after")}
    return found


def _fit_shown(s: dict) -> dict:
    """The fit block's values in the sheet's units: sums of squares in ms², τ and the error in ms."""
    def scaled(key, factor):
        return s[key] * factor if isinstance(s.get(key), (int, float)) and not isinstance(s[key], bool) else ""

    return {"fit_runs_used": s["fit_runs_used"], "fit_sxx": scaled("fit_sxx", 1e6), "fit_sxz": scaled("fit_sxz", 1e3),
            "fit_szz": scaled("fit_szz", 1), "fit_sxy": scaled("fit_sxy", 1e6), "fit_szy": scaled("fit_szy", 1e3),
            "fit_det": scaled("fit_det", 1e6), "fit_slope": scaled("fit_slope", 1),
            "fit_intercept_ms": scaled("fit_intercept_s", 1e3), "fit_status": s["fit_status"],
            "fit_bandwidth_efficiency": s["fit_bandwidth_efficiency"], "fit_overhead_ms": s["fit_overhead_ms"],
            "fit_compute_efficiency_fit": scaled("fit_compute_efficiency_fit", 1),
            "fit_compute_efficiency": s["fit_compute_efficiency"],
            "fit_standard_error_ms": scaled("fit_standard_error_s", 1e3),
            "fit_error_before": s["fit_error_before"] if s["fit_error_before"] is not None else "",
            "fit_error_after": s["fit_error_after"] if s["fit_error_after"] is not None else ""}


def _fit_row(key: str, label: str, formula: str, kind: str = "decimal", unit: str = "", note: str = "") -> Row:
    return Row(key, label, formula=formula, kind=kind, unit=unit, note=note, name=f"serving_{key}")


_X, _Z, _Y = "{x_bytes_ms:range}", "{z:range}", "{y_ms:range}"
FIT = [
    _fit_row("fit_runs_used", "Runs used", "=COUNTIF({used:range},TRUE)", "count", "runs"),
    _fit_row("fit_sxx", "Sxx = Σ X²", f"=SUMSQ({_X})", unit="ms²"),
    _fit_row("fit_sxz", "Sxz = Σ X·Z", f"=SUMPRODUCT({_X},{_Z})", unit="ms"),
    _fit_row("fit_szz", "Szz = Σ Z²", f"=SUMSQ({_Z})"),
    _fit_row("fit_sxy", "Sxy = Σ X·Y", f"=SUMPRODUCT({_X},{_Y})", unit="ms²"),
    _fit_row("fit_szy", "Szy = Σ Z·Y", f"=SUMPRODUCT({_Z},{_Y})", unit="ms"),
    _fit_row("fit_det", "det = Sxx·Szz − Sxz²", "=serving_fit_sxx*serving_fit_szz-serving_fit_sxz^2", unit="ms²"),
    _fit_row("fit_slope", "m = 1 / η_m", '=IF(serving_fit_det>0,(serving_fit_sxy*serving_fit_szz-serving_fit_sxz'
             '*serving_fit_szy)/serving_fit_det,"")'),
    _fit_row("fit_intercept_ms", "τ fitted", '=IF(serving_fit_det>0,(serving_fit_sxx*serving_fit_szy-serving_fit_sxz'
             '*serving_fit_sxy)/serving_fit_det,"")', unit="ms"),
    _fit_row("fit_status", "Status", f'=IF(serving_calibration="none","{NOT_ASKED}",IF(serving_fit_runs_used=0,'
             '"no used run",IF(serving_fit_runs_used=1,"one run",IF(serving_fit_det<=calibration_alike_share'
             '*serving_fit_sxx*serving_fit_szz,"runs too alike",IF(serving_fit_slope<1,'
             '"η_m > 1: the runs contradict the model",IF(serving_fit_intercept_ms<0,'
             '"τ < 0: the runs contradict the model","fitted"))))))', "text",
             note="Where it is not fitted, η_m and τ keep the inputs"),
    _fit_row("fit_bandwidth_efficiency", "η_m in force on the benchmark's GPU",
             '=IF(serving_fit_status="fitted",1/serving_fit_slope,serving_bandwidth_efficiency_in)', "percent"),
    _fit_row("fit_overhead_ms", "τ in force on the benchmark's GPU",
             '=IF(serving_fit_status="fitted",serving_fit_intercept_ms,serving_overhead_ms)', unit="ms"),
    _fit_row("fit_compute_efficiency_fit", "η_c fitted = Σ x² / Σ x·y",
             '=IF(serving_fit_runs_used=0,"",IF(SUMPRODUCT({x_prefill_ms:range},{y_prefill_ms:range})>0,'
             'SUMSQ({x_prefill_ms:range})/SUMPRODUCT({x_prefill_ms:range},{y_prefill_ms:range}),""))', "percent"),
    _fit_row("fit_compute_efficiency", "η_c in force on the benchmark's GPU",
             "=IF(ISNUMBER(serving_fit_compute_efficiency_fit),IF(AND(serving_fit_compute_efficiency_fit>0,"
             "serving_fit_compute_efficiency_fit<=1),serving_fit_compute_efficiency_fit,serving_compute_efficiency_in),"
             "serving_compute_efficiency_in)", "percent"),
    _fit_row("fit_standard_error_ms", "Standard error of Y", '=IF(AND(serving_fit_status="fitted",'
             'serving_fit_runs_used>=3),SQRT(SUMSQ({residual_ms:range})/(serving_fit_runs_used-2)),"")', unit="ms"),
    *(_fit_row(f"fit_error_{when}", f"Mean absolute error of TTFT and ITL, {words}",
               f'=IF(serving_fit_runs_used=0,"",(SUMIF({{ttft_error_{when}:range}},">0")-SUMIF({{ttft_error_{when}:range}},'
               f'"<0")+SUMIF({{itl_error_{when}:range}},">0")-SUMIF({{itl_error_{when}:range}},"<0"))'
               f"/(2*serving_fit_runs_used))", "percent")
      for when, words in (("before", "at the inputs"), ("after", "as fitted"))),
]


def _level_key(parts: tuple[str, str, str]) -> str:
    """A lookup key of the engines table: the scenario's cells and the words generic and any, joined by |."""
    cells = {"engine": "serving_engine", "gpu": "gpu", "precision": "serving_weight_precision"}
    pieces, literal = [], []
    for part in parts:
        if part in cells:
            if literal:
                pieces.append('"' + "|".join(literal) + '|"')
                literal = []
            elif pieces:
                pieces.append('"|"')
            pieces.append(cells[part])
        else:
            literal.append(part)
    if literal:
        pieces.append('"' + ("|" if pieces else "") + "|".join(literal) + '"')
    return "&".join(pieces)


LEVELS = engines.levels("engine", "gpu", "precision")  # the eight rows a scenario may take, most specific first
def _ledger(column: str) -> str:
    return f"INDEX(catalog_ledger_{column},serving_ledger_row)"


ENGINE_ROWS = [
    *(Row(f"engine_match_{i}", f"Row {engines.label(level)}", kind="count", unit="",
          formula=f"=IFERROR(MATCH({_level_key(level)},catalog_engine_key,0),0)",
          note="Its place in Catalog's engines table; 0: no such row" if i == 1 else "")
      for i, level in enumerate(LEVELS, start=1)),
    Row("engine_row_index", "The first of them that exists", kind="count", unit="",
        formula="=" + "".join(f"IF({{engine_match_{i}}}>0,{{engine_match_{i}}}," for i in range(1, 8))
        + "{engine_match_8}" + ")" * 7, name="serving_engine_row_index"),
    Row("engine_row", "The engines row that applies", kind="text", unit="",
        formula='=IFERROR(SUBSTITUTE(INDEX(catalog_engine_key,serving_engine_row_index),"|"," | "),"n/a")',
        note="Its priors fill each blank key below; a number typed in the key overrides it (§14.3)",
        name="serving_engine_row", bold=True),
    *(row for f in fields.ENGINE for row in (
        Row(f"{f.key}_prior", f"{f.label} {engines.SYMBOLS[f.key]}: the row's prior", kind=f.kind, unit=f.unit,
            formula=f"=INDEX(catalog_engine_{f.key},serving_engine_row_index)", name=f"serving_{f.key}_prior"),
        Row(f"{f.key}_in", f"{engines.SYMBOLS[f.key]} used: the input, else the prior", kind=f.kind, unit=f.unit,
            formula=f'=IF(serving_{f.key}="",serving_{f.key}_prior,serving_{f.key})', name=f"serving_{f.key}_in"),
        *([] if f.key in FITTED else [Row(f"{f.key}_used", f"{engines.SYMBOLS[f.key]} in force", kind=f.kind,
                                          unit=f.unit, formula=f"=serving_{f.key}_in",
                                          name=f"serving_{f.key}_used")]))),
    Row("ledger_row", "Its row in Catalog's accuracy ledger (this GPU and engine)", kind="count", unit="",
        formula='=IFERROR(MATCH(gpu&"|"&serving_engine,catalog_ledger_key,0),0)', name="serving_ledger_row",
        note="0: no published measurement of this GPU and engine"),
    Row("ledger_figure", "Accuracy against published measurements (docs/accuracy.md)", kind="text", unit="",
        formula=f'=IF(serving_ledger_row=0,"{NO_LEDGER}",IF({_ledger("rows")}=0,"{NOT_HELD_OUT}","within ±15 % on "'
                f'&{_ledger("within_15")}&" of "&{_ledger("rows")}&" published "&{_ledger("words")}&" '
                f'(±25 %: "&{_ledger("within_25")}&"; median predicted/measured "&TEXT({_ledger("median_ratio")},'
                '"0.00")&"; docs/accuracy.md)"))', name="serving_ledger_figure",
        note="The ledger's held-out figure for the GPU and engine in use (every metric)"),
]


def in_force_rows(benchmarks: list) -> list[Row]:
    """The efficiencies the roofline reads: the inputs, or with serving.calibration naming a benchmark that ran on
    this GPU, the fit's (docs/method.md §12.1)."""
    gpu = '""'
    for i in range(len(benchmarks), 0, -1):
        gpu = f"IF(serving_calibration=goodput_benchmarks_{i}_name,goodput_benchmarks_{i}_gpu,{gpu})"
    here = 'AND(serving_calibration<>"none",serving_calibration_gpu=gpu)'

    def used(key: str, fitted: str, label: str, kind: str, unit: str) -> Row:
        given = f"serving_{key}_in" if key in FITTED else f"serving_{key}"  # η: the input, else the engine's prior
        formula = f"=IF({here},{fitted},{given})" if benchmarks else f"={given}"
        return Row(f"{key}_used", label, formula=formula, kind=kind, unit=unit, name=f"serving_{key}_used")

    return [Row("calibration_gpu", "GPU of the benchmark calibrated from", formula="=" + gpu, kind="text", unit="",
                note="Blank: no calibration", name="serving_calibration_gpu"),
            used("compute_efficiency", "serving_fit_compute_efficiency", "Compute efficiency η_c in force",
                 "percent", "of peak"),
            used("bandwidth_efficiency", "serving_fit_bandwidth_efficiency", "Bandwidth efficiency η_m in force",
                 "percent", "of HBM"),
            used("overhead_ms", "serving_fit_overhead_ms", "Overhead per pass τ in force", "decimal", "ms")]


KEY_RESULTS = [
    KeyResult("serving_max_concurrency", "Sequences that fit on {serving_gpus_per_replica|count} {gpu} GPU(s) at "
              "{serving_sequence_length|count} tokens", kind="count", unit="sequences"),
    KeyResult("serving_ttft_ms", "Time to first token, {serving_prompt_tokens|count}-token prompt, idle server",
              kind="tenths", unit="ms"),
    KeyResult("serving_itl_ms", "Inter-token latency at {serving_users|count} users", kind="tenths", unit="ms"),
    KeyResult("serving_tokens_per_s_per_gpu", "Output tokens per second per GPU at {serving_users|count} users",
              kind="count", unit="tokens/s"),
    KeyResult("serving_cost_per_million_tokens", "One {serving_gpus_per_replica|count}-GPU {gpu} server at "
              "{serving_users|count} users, busy every hour at the on-demand price (Serving's roofline, not the plan's"
              " months): cost per million output tokens", kind="money", what_if=True),
]

_ID_RANGES = ("catalog_engine_ids", "catalog_gpu_ids", "catalog_precision_ids")
WARNINGS = [  # docs/method.md §14.7: the results stand; each note says what to take care about
    Warning("serving_ttft_at_concurrency_blank", "Serving: the TTFT at c = users is blank (the users are above "
            "B_max)", formula="serving_users>serving_max_concurrency",
            note="The admission queue is not modelled: lower serving.users to B_max or below to read a TTFT at c"),
    Warning("serving_ttft_burst_dominates", "Serving: the opening burst is over half the closed-loop mean TTFT",
            formula="AND(ISNUMBER(serving_ttft_at_concurrency_ms),serving_ttft_burst_ms/serving_client_rounds"
                    ">serving_ttft_at_concurrency_ms/2)",
            note="A mean dominated by the first round: compare a median with TTFT_med, and do not read a percentile "
                 "from TTFT_c (serving.client_rounds R sets the burst's share)"),
    Warning("serving_itl_may_understate_tpot", "Serving: ITL(B) may understate a request's TPOT (T_pre(B) < (B − 1) "
            "· TTFT at B = users)", formula="serving_prefill_ms_at_users<(serving_users-1)*serving_ttft_ms",
            note="The per-pass overhead makes B − 1 prefills behind a request outlast one batched prefill "
                 "(§14.6): read a request's TPOT from a benchmark at these lengths"),
    Warning("serving_engine_row_not_held_out", "Serving: the engines row was fitted on the ledger's measurements of "
            "this GPU and engine, with none held apart to score it",
            formula=f"IF(serving_ledger_row=0,FALSE,AND({_ledger('fitted')}>0,{_ledger('rows')}=0))",
            note="Its accuracy is in sample: test it on your own benchmark logs (serving.calibration)"),
]

CHECKS = [
    Check("serving_users_fit", "Serving: the users fit (u ≤ B_max)", formula="serving_users<=serving_max_concurrency",
          note="The values at the users are shown even when they do not fit."),
    Check("serving_tensor_parallel_divides_heads", "Serving tensor parallel t divides the attention heads",
          formula=f"MOD(model_heads,{T})=0", about=(T,)),
    Check("serving_kv_heads_split_evenly", "Serving: t divides the KV heads, or they divide t",
          formula=f"OR(MOD(model_kv_heads,{T})=0,MOD({T},model_kv_heads)=0)", about=(T,)),
    Check("serving_prompt_below_sequence", "Serving: the prompt is shorter than the sequence (at least one output "
          "token)", formula="serving_prompt_tokens<serving_sequence_length",
          about=("serving_prompt_tokens", "serving_sequence_length")),
    Check("serving_speculative_valid", "Serving: speculative decoding has its draft tokens k and its acceptance α "
          "(or a measured E ≤ k + 1)",
          formula='IF(serving_speculative_method="none",TRUE,AND(ISNUMBER(serving_speculative_tokens),'
                  "OR(ISNUMBER(serving_speculative_acceptance),ISNUMBER(serving_speculative_accept_length)),"
                  "IF(ISNUMBER(serving_speculative_accept_length),serving_speculative_accept_length"
                  "<=serving_speculative_tokens+1,TRUE)))",
          about=tuple(f"serving_speculative_{key}" for key in ("tokens", "acceptance", "accept_length"))),
    Check("serving_draft_model_valid", "Serving: a speculative draft model has the model's vocabulary and t splits "
          "its heads", formula=f'IF(serving_speculative_method<>"draft",TRUE,AND({_draft("vocab")}=model_vocab,'
          f"MOD({_draft('heads')},{T})=0,OR(MOD({_draft('kv_heads')},{T})=0,MOD({T},{_draft('kv_heads')})=0)))",
          note="IF, not AND: the draft model's lookups are read only with a draft",
          about=("serving_speculative_draft_model",)),
    Check("serving_calibration_on_this_gpu", "Serving: serving.calibration names a benchmark that ran on the "
          "scenario's GPU (efficiencies do not carry across GPUs)",
          formula='OR(serving_calibration="none",serving_calibration_gpu=gpu)', about=("serving_calibration",)),
    Check("serving_engine_known", "Serving: serving.engine is an engine of Catalog's engines table",
          formula='AND(LEN(SUBSTITUTE(SUBSTITUTE(SUBSTITUTE(serving_engine,"*",""),"?",""),"~",""))'
                  '=LEN(serving_engine),ISNUMBER(MATCH(serving_engine,catalog_engine_ids,0)))',
          about=("serving_engine",)),
    Check("catalog_ids_plain", "Catalog: engine, GPU and precision ids contain no * ? or ~ and none is the word any "
          "(the engines table's lookup MATCHes them, §14.3)",
          formula="+".join(f'COUNTIF({ids},"{pattern}")' for ids in _ID_RANGES
                           for pattern in ("*~**", "*~?*", "*~~*", "any")) + "=0",
          note="COUNTIF's own wildcards find them (~ escapes one) and ignore case: Any counts too"),
    Check("serving_layout_valid", "Serving: the layout is allowed: e = 1, or e = t · d_a dividing the routed experts; "
          "d_a > 1 only with e = t · d_a; a layout only for an MoE model, within one node (t · d_a ≤ GPUs per node), "
          "with NVLink and without speculative decoding or a calibration (docs/method.md §14.5, §14.7)",
          formula="serving_layout_valid", about=("serving_expert_parallel", "serving_attention_data_parallel")),
    Check("serving_nvlink_known", "Serving: the GPU's NVLink GB/s is given where t > 1 (Catalog, the GPU's row)",
          formula=f"OR({T}=1,gpu_nvlink_gbps>0)", about=(T,)),
]
