"""Serving: capacity, latency, throughput and cost per million tokens (docs/method.md §6, with §7's MoE and MLA terms)
for one scenario: its replica (planner/model/replica.py) at the users, at one sequence and at B_max, the table over
concurrency, and the measured benchmark runs beside their predictions."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from planner.engine import calibration, money
from planner.engine.shared import NOT_SERVED  # money at the users when they do not fit (B > B_max)
from planner.engine.shared import advance
from planner.ledger_figures import LEDGER
from planner.method import Method
from planner.model import counts, engines, passes
from planner.model.passes import GB
from planner.model.replica import Replica, number

CONSTANTS = passes.ALL_REDUCE_CONSTANTS + calibration.CONSTANTS
CALIBRATING = "calibrating against benchmark runs"  # long work with a glob of thousands of runs (a progress bar)
METHOD = Method(
    title="Serving: capacity, latency, throughput and cost per million tokens",
    formulas=[
        "One replica of t tensor-parallel GPUs under steady continuous batching, as a roofline: each pass takes the "
        "longer of its FLOPs at t·P_e·η_c and its bytes at BW_e = HBM TB/s·1e12·η_m, plus its all-reduces AR and "
        "the per-pass overhead τ_pass(n) = (τ + τ_0 + τ_L·L + τ_moe·L_moe + τ_seq·n)/1000 for its n sequences "
        "(§14.2; a draft's prefill τ + τ_L·L_d + τ_moe·L_moe,d only). Prefill is bound by compute, decode by memory "
        "bandwidth.",
        "Engine priors (§14.3): η_c, η_m, τ_0 … τ_moe, the dispatch δ and the prefill budget N come from the first "
        "row of Catalog's engines table that exists of (engine, GPU, precision), (engine, GPU, any), (engine, any, "
        "precision), (engine, any, any) and the same four for generic; a key of the serving section overrides its "
        "prior, a calibration's fit overrides η_c and η_m on its GPU.",
        "TTFT at c clients of a closed loop (§14.4): p_s = CEILING(s_n/N) passes per prompt, κ = MIN(c, INT(N/s_n)) "
        "prompts per pass (1 when s_n > N), m = CEILING(c/κ) cohorts; T_fill(j, c) is the roofline of j prompts "
        "beside c − j decoders over p_s passes, plus p_s·(AR(q) + τ_pass(c)); mean TTFT_c = δ·L + (m + 1)/2·"
        "T_fill(κ, c)/R + (1 − 1/R)·(T_fill(1, c) + ITL(c)/2), median TTFT_med = δ·L + T_fill(1, c) + ITL(c)/2 "
        "(ITL 0 at c = 1); blank above B_max.",
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
        "TTFT = MAX((2·Ψ_mm·s + L·s²·(w_qk + w_av))/(t·P_e·η_c), (S(s)·b_w/t + s·KV_g)/BW_e) + AR(s) + τ_pass(1). "
        "TPOT(B) = MAX((S(B)·b_w/t + B·c̄·KV_g)/BW_e, B·(2·Ψ_mm + 2·L·c̄·(w_qk + w_av))/(t·P_e·η_c)) + AR(B) + "
        "τ_pass(B) "
        "with the mean context c̄ = s + o/2. A batch's prefill T_pre(B) is TTFT's pass for B·s tokens.",
        "cycle(B) = T_pre(B) + o·TPOT(B) (prefill and decode in turn); ITL(B) = cycle/o; output tokens per second "
        "per GPU TokS = B·o/(cycle·t); cost per million output tokens = price·1e6/(3600·TokS); serving MFU = "
        "2·Ψ_active·TokS/(BF16 TFLOPS·1e12).",
        "The concurrency table shows B = 1, 2, 4, … below B_max, B_max and the users, each once. Values at the users "
        "are shown even when they exceed B_max (the fits check is then FALSE).",
        "Expert and attention data parallelism (§14.5): a replica of G = t·d_a GPUs, d_a attention ranks of t GPUs "
        "each holding its own sequences' KV (B_max = d_a·the rank's), the routed experts over e = G GPUs (W_g = "
        "((Ψ − Ψ_routed)/t + Ψ_routed/G)·b_w); a pass is the busiest rank's, b = CEILING(B/d_a): FLOPs per GPU "
        "(2·Ψ_nr·n_r + A_r)/t + 2·(Ψ_mm − Ψ_nr)·n/G, S_g(n) = Ψ_nr/t + (S(n) − Ψ_nr)/G, AR(n_r) with the MoE "
        "layers' second all-reduce the combine, A2A(n_r) = 2·L_moe·(α + k·n_r/t·h·b_a·(e − 1)/e/NVLink), τ_pass(b); "
        "TokS per GPU of the replica.",
        "Calibration: a measured run's mean concurrency is the sum of its request latencies over its duration "
        "(Little's law); η_m implied = the decode step's bytes / (HBM·(median TPOT − AR − τ_pass(CEILING(B̄)))) and "
        "η_c implied = the prefill FLOPs / (t·P_e·(median TTFT − AR − τ_pass(1))).",
    ],
    sources=[
        "inference-sim (BLIS), trained-physics coefficients β5-β7 (τ_L, τ_seq, τ_0 priors); NVIDIA AIConfigurator, "
        "vllm_backend.py (dispatch 0.8 ms per layer) and sdk/queueing/closed_form.py (the closed-loop staircase and "
        "residual); vLLM arg_utils.py (max_num_batched_tokens 8192, 2048 on A100); InferenceMAX (R = 10).",
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
    fit: dict | None = None  # with serving.calibration: the fit over that benchmark's runs (§12.1)
    warnings: dict = field(default_factory=dict)  # {key: applies}: the Checks sheet's warnings (§14.7)
    passes: dict = field(default_factory=dict)  # Replica.pass_pieces where the sheet shows them (not in the JSON):
    # idle (one prompt), users, one (B = 1), max (B_max; None at 0), plain (at the users without speculation), table,
    # measured (each benchmark run's: _measured_passes)

    @property
    def headline(self) -> dict:
        s = self.scalars
        return {name: s[key] for name, key in HEADLINE.items() if self.fit is not None or "_fit_" not in name}

    @property
    def checks(self) -> dict[str, bool]:
        return {"serving_users_fit": self.scalars["fits"],
                "serving_tensor_parallel_divides_heads": self.scalars["tensor_parallel_divides_heads"],
                "serving_kv_heads_split_evenly": self.scalars["kv_heads_split_evenly"],
                "serving_prompt_below_sequence": self.scalars["prompt_below_sequence"],
                "serving_nvlink_known": self.scalars["nvlink_known"],
                "serving_speculative_valid": True,  # a scenario's speculative decoding is checked when read
                "serving_draft_model_valid": True,
                "serving_calibration_on_this_gpu": self.scalars["calibration_on_this_gpu"],
                "serving_engine_known": True,  # a scenario's engine and Catalog ids are checked when read (§14.7)
                "serving_layout_valid": True,  # … and its layout (§14.7)
                "catalog_ids_plain": True}

    def to_json(self) -> dict:
        fit = None if self.fit is None else {k: v for k, v in self.fit.items() if k != "residuals_s"}
        return {**self.scalars, "table": self.rows, "calibration": self.calibration, "fit": fit}


HEADLINE = {  # defined name → scalar key
    "serving_max_concurrency": "max_concurrency", "serving_fits": "fits", "serving_ttft_ms": "ttft_ms",
    "serving_tpot_ms": "tpot_ms", "serving_tpot_ms_single": "tpot_ms_single", "serving_itl_ms": "itl_ms",
    "serving_tokens_per_s_per_gpu": "tokens_per_s_per_gpu",
    "serving_cost_per_million_tokens": "cost_per_million_tokens", "serving_mfu": "mfu",
    "serving_tpot_ms_at_max": "tpot_ms_at_max", "serving_tokens_per_s_per_gpu_at_max": "tokens_per_s_per_gpu_at_max",
    "serving_cost_per_million_tokens_at_max": "cost_per_million_tokens_at_max",
    "serving_kv_bytes_per_token": "kv_bytes_per_token", "serving_tokens_per_step": "tokens_per_step",
    "serving_tpot_ms_plain": "tpot_ms_plain", "serving_fit_bandwidth_efficiency": "fit_bandwidth_efficiency",
    "serving_fit_overhead_ms": "fit_overhead_ms", "serving_fit_compute_efficiency": "fit_compute_efficiency",
    "serving_fit_status": "fit_status", "serving_fit_error_before": "fit_error_before",
    "serving_fit_error_after": "fit_error_after",
    **{f"serving_{key}": key for key in (  # §14.8
        "pass_overhead_ms", "pass_overhead_ttft_ms", "ttft_at_concurrency_ms", "ttft_median_at_concurrency_ms",
        "ttft_burst_ms", "ttft_steady_ms", "rank_clients", "prefill_passes", "prompts_per_pass", "burst_cohorts",
        "engine_row", "compute_efficiency_prior", "bandwidth_efficiency_prior", "ledger_figure", "gpus_per_replica",
        "nonrouted_params", "all_to_all_ms")},
}
DOES_NOT_FIT = "does not fit"  # a value at B_max when not one sequence fits (B_max = 0)


def engine_row(scenario) -> engines.EngineRow:
    """The engines-table row that applies to the scenario's engine, GPU and weight precision (§14.3)."""
    sv = scenario.serving
    return engines.applying(scenario.merged_catalog.engines, sv.engine, scenario.gpu, sv.weight_precision)


def knobs_in(scenario):
    """The serving section with each engine prior's key at its `_in` value: the key where given, else the prior of
    the row that applies (§14.1)."""
    sv, row = scenario.serving, engine_row(scenario)
    return sv.model_copy(update={key: row.value(key) if getattr(sv, key) is None else getattr(sv, key)
                                 for key in engines.PRIORS})


def replica_of(scenario, gpu=None) -> Replica:
    """The scenario's serving replica (on `gpu`, a catalog GPU, instead of the scenario's, for a benchmark or a row
    of the GPUs table: there at e = d_a = 1, the layouts those tables model; §14.6)."""
    merged, sv = scenario.merged_catalog, knobs_in(scenario)
    # in the reporting currency; a benchmark's GPU (or a Catalog row, GPUs): its Catalog price
    price = money.converted(gpu.price_per_hour, scenario) if gpu else money.gpu_price(scenario)
    draft = sv.speculative.draft_model
    if gpu is not None:
        sv = sv.model_copy(update={"expert_parallel": 1, "attention_data_parallel": 1})
    return Replica.of(model=scenario.chosen_model, gpu=gpu or scenario.chosen_gpu,
                      weight=merged.precisions[sv.weight_precision], kv=merged.precisions[sv.kv_precision],
                      serving=sv, price_per_gpu_hour=price, draft_model=merged.models[draft] if draft else None)


def in_force(scenario, fit: dict | None) -> dict:
    """The efficiencies the roofline reads on the scenario's GPU (§12.1): with `serving.calibration`, each fitted
    value where its own rule allowed the fit and the benchmark ran on this GPU, else the input."""
    sv = knobs_in(scenario)
    if fit is None or sv.calibration == "none" or fit["gpu"] != scenario.gpu:
        return {"compute_efficiency": sv.compute_efficiency, "bandwidth_efficiency": sv.bandwidth_efficiency,
                "overhead_ms": sv.overhead_ms}
    return fitted(fit)


def fitted(fit: dict) -> dict:
    """The efficiencies a calibration gives its benchmark's GPU: each fitted where its own rule allowed, else the
    input (§12.1)."""
    return {"compute_efficiency": fit["compute_efficiency"], "bandwidth_efficiency": fit["bandwidth_efficiency"],
            "overhead_ms": fit["overhead_s"] * 1000}


def served(scenario, tables) -> Replica:
    """The scenario's replica as the plan serves it: with the efficiencies in force (fitted, or the inputs)."""
    return replace(replica_of(scenario), **in_force(scenario, tables["serving"].fit))


def compute(scenario, tables) -> ServingTable:
    runs, fit, measured = _calibration(scenario, tables)
    r = replace(replica_of(scenario), **in_force(scenario, fit))
    model, gpu, sv = scenario.chosen_model, scenario.chosen_gpu, scenario.serving
    precisions = scenario.merged_catalog.precisions
    weight, kv = precisions[sv.weight_precision], precisions[sv.kv_precision]
    t, users, single, at_max = sv.tensor_parallel, r.at(sv.users), r.at(1), r.at(r.b_max)
    ttft_compute, ttft_memory, ttft_talk = _idle(r)
    stack, draft, plain = r.memory_stack(sv.users), r.draft, replace(r, speculative="none")

    def blank_if_none_fit(value):
        return DOES_NOT_FIT if r.b_max == 0 else value

    scalars = {
        "weight_bits": weight.weight_bits, "weight_bytes": r.b_w, "fp8_gemm": weight.fp8_gemm,
        "fp4_gemm": weight.fp4_gemm, "kv_value_bytes": kv.kv_bytes, "fp8_tflops": gpu.fp8_tflops or 0,
        "fp4_tflops": gpu.fp4_tflops or 0, "nvlink_gbps": gpu.nvlink_gbps or 0,
        "hbm_tbps": gpu.hbm_tbps, "vocab": model.vocab, "active_params": r.psi_active,
        "multiplied_params": r.psi_mm, "weights_gb": r.w_g / GB, "kv_bytes_per_token": r.kv_g,
        "kv_bytes_held_per_token": r.kv_held, **_speculation(r),
        "attention_width": r.width, "peak_flops": r.p_e, "bandwidth": r.bw_e, "prompt_tokens": r.s,
        "output_tokens": r.o, "mean_context": r.c_bar, "reserve_gb": stack["reserve_gb"], "pool_gb": r.pool / GB,
        "sequence_gb": (r.s + r.o) * r.kv_held / GB, "max_concurrency": r.b_max, "fits": bool(sv.users <= r.b_max),
        "ttft_compute_ms": ttft_compute * 1000, "ttft_memory_ms": ttft_memory * 1000,
        "ttft_all_reduce_ms": ttft_talk * 1000,
        "ttft_draft_ms": (r._prefill(1, draft, "draft_prefill") if draft else 0) * 1000, "ttft_ms": r.ttft_s() * 1000,
        "tpot_ms_plain": plain.at(sv.users)["tpot_ms"],
        "speculation_speedup": plain.at(sv.users)["tpot_ms"] / users["tpot_ms"],
        "tpot_ms": users["tpot_ms"], "itl_ms": users["itl_ms"], "tokens_per_s_per_gpu": users["tokens_per_s_per_gpu"],
        "cost_per_million_tokens": users["cost_per_million_tokens"] if sv.users <= r.b_max else NOT_SERVED,
        "mfu": users["mfu"],
        "tpot_ms_single": single["tpot_ms"],
        "tpot_ms_at_max": blank_if_none_fit(at_max["tpot_ms"]), "itl_ms_at_max": blank_if_none_fit(at_max["itl_ms"]),
        "tokens_per_s_per_gpu_at_max": blank_if_none_fit(at_max["tokens_per_s_per_gpu"]),
        "cost_per_million_tokens_at_max": blank_if_none_fit(at_max["cost_per_million_tokens"]),
        "mfu_at_max": blank_if_none_fit(at_max["mfu"]),
        "kv_gb_at_users": stack["kv_gb"], "free_gb_at_users": stack["free_gb"],
        "tensor_parallel_divides_heads": model.heads % t == 0,
        "kv_heads_split_evenly": bool(counts.kv_heads_split_evenly(model.kv_heads, t)),
        "prompt_below_sequence": sv.prompt_tokens < sv.sequence_length,
        "nvlink_known": t == 1 or bool(gpu.nvlink_gbps),
        **_layout(r, sv.users),
    }
    scalars |= _at_concurrency(r, sv.users)
    rows = [{k: ("" if v is None else v) for k, v in row.items()} for row in r.table()]
    for row in rows:  # §14.2's τ_pass(B) and §14.4's TTFT at c = B, blank above B_max
        shown = row["batch"] not in ("", None) and row["batch"] > 0
        row["pass_overhead_ms"] = number(r.pass_overhead(r.rank_sequences(row["batch"])) * 1000) if shown else ""
        row["all_to_all_ms"] = number(r.all_to_all(r.rank_sequences(row["batch"])) * 1000) if shown else ""
        ttft = r.ttft_at(row["batch"]) if shown else {}
        for key in ("ttft_at_concurrency_ms", "ttft_median_at_concurrency_ms", *TTFT_HELPERS):
            row[key] = number(ttft[key]) if ttft and (row["batch"] <= r.b_max or key in TTFT_HELPERS) else ""
    for row in rows:  # B_max = 0: the row is blank, as the sheet shows it
        if row["role"] == "max" and row["batch"] == 0:
            row["batch"] = ""
    scalars = {k: number(v) if not isinstance(v, (str, type(None))) else v
               for k, v in (scalars | _engine_scalars(scenario) | _fit_scalars(scenario, fit, r)).items()}
    return ServingTable(scalars, rows, runs, fit, warnings=warnings(scalars, sv),
                        passes=_passes(r, plain, sv.users, rows) | {"measured": measured})


def warnings(s: dict, sv) -> dict[str, bool]:
    """§14.7's warnings, each True where it applies: the results stand, the Checks sheet says what to take care
    about. (Expert parallelism adds its own: e > 1 with under one token per expert at the users.)"""
    mean = s["ttft_at_concurrency_ms"]
    return {"serving_ttft_at_concurrency_blank": sv.users > s["max_concurrency"],
            "serving_ttft_burst_dominates": not isinstance(mean, str)
            and s["ttft_burst_ms"] / sv.client_rounds > mean / 2,
            "serving_itl_may_understate_tpot": s["prefill_ms_at_users"] < (sv.users - 1) * s["ttft_ms"],
            "serving_engine_row_not_held_out": s["ledger_figure"] == NOT_HELD_OUT}


def _idle(r: Replica) -> tuple:
    """One prompt on an idle server: its compute, memory and all-reduce seconds (§6); in a layout one rank works on
    it, its all-to-all beside its all-reduces (§14.5)."""
    if r.laid_out:
        idle = r.prefill_pieces(1, r.target)
        return idle["compute"], idle["memory"], idle["all_reduce"]
    return (r.prefill_flops() / (r.tensor_parallel * r.p_e * r.compute_efficiency), r.prefill_bytes() / r.bw_e,
            r.all_reduce(r.s - r.cached_tokens))


def _layout(r: Replica, users: int) -> dict:
    """The replica's layout (§14.5): its GPUs G = t·d_a, Ψ_routed and Ψ_nr, and the decode step's all-to-all at the
    users (A2A(b), b = CEILING(B/d_a); 0 at e = 1)."""
    return {"layout_valid": True, "layout_experts": r.expert_parallel, "layout_ranks": r.attention_data_parallel,
            "gpus_per_replica": r.gpus, "routed_params": r.psi_routed, "nonrouted_params": r.psi_nr,
            "rank_sequences": r.rank_sequences(users), **_talk(r),
            "overhead_base_ms": r.overhead_ms + r.overhead_fixed_ms + r.overhead_per_layer_ms * r.layers
            + r.overhead_per_moe_layer_ms * r.moe_layer_count,
            "all_to_all_ms": r.all_to_all(r.rank_sequences(users)) * 1000,
            "experts_busy": bool(r.expert_parallel == 1 or r.experts_per_token * users >= r.experts)}


def _talk(r: Replica) -> dict:
    """A pass's AR(n) + A2A(n) as the Serving sheet's cells hold it: a latency and a time per token on the rank, s
    (§14.5; L_c = L_moe with e > 1)."""
    t, e, alpha = r.tensor_parallel, r.expert_parallel, passes.ALL_REDUCE_LATENCY_US / 1e6
    reduces = passes.ALL_REDUCES_PER_LAYER * r.layers - (r.moe_layer_count if e > 1 else 0)
    width = r.hidden * passes.ACTIVATION_BYTES / ((r.nvlink_gbps or 0) * 1e9 or 1)
    return {"talk_latency_s": (0 if t == 1 else reduces * alpha) + (0 if e == 1 else 2 * r.moe_layer_count * alpha),
            "talk_s_per_token": (0 if t == 1 else reduces * 2 * (t - 1) / t * width)
            + (0 if e == 1 else 2 * r.moe_layer_count * r.experts_per_token / t * width * (e - 1) / e)}


def _passes(r: Replica, plain: Replica, users: int, rows: list[dict]) -> dict:
    """What the Serving sheet's helper cells show (ServingTable.passes): the passes at one prompt, the users, B = 1,
    B_max (None at 0) and without speculation, each table row's (None where blank)."""
    shown = [row["batch"] if row["batch"] != "" and row["batch"] is not None else None for row in rows]
    return {"idle": r.pass_pieces(1), "users": r.pass_pieces(users), "one": r.pass_pieces(1),
            "max": r.pass_pieces(r.b_max) if r.b_max > 0 else None, "plain": plain.pass_pieces(users),
            "table": [None if b is None else r.pass_pieces(b) for b in shown]}


TTFT_HELPERS = ("prompts_per_pass", "fill_pass_tokens", "fill_flops", "fill_bytes", "fill_ms", "fill_one_pass_tokens",
                "fill_one_flops", "fill_one_bytes", "fill_one_ms")  # the fills of §14.4 at c = B (hidden columns)
ABOVE_B_MAX = "n/a: the users are above B_max (the admission queue is not modelled)"


def _at_concurrency(r: Replica, users: int) -> dict:
    """τ_pass at the users and at one sequence (§14.2), and the TTFT block at c = users (§14.4): its b, p_s, κ, m,
    fills, burst and steady state, and the closed-loop mean and median (n/a above B_max)."""
    found = {"pass_overhead_ms": r.pass_overhead(r.rank_sequences(users)) * 1000,
             "pass_overhead_ttft_ms": r.pass_overhead(1) * 1000,
             "prefill_ms_at_users": r.prefill_s(users) * 1000}  # T_pre(users): §11's stall bound (a warning)
    found |= r.ttft_at(users)
    if users > r.b_max:
        found |= dict.fromkeys(("ttft_at_concurrency_ms", "ttft_median_at_concurrency_ms"), ABOVE_B_MAX)
    return found


NO_LEDGER = "no published measurement of this GPU and engine in the ledger (docs/accuracy.md)"
NOT_HELD_OUT = "no held-out measurement: the engines row was fitted on every published one (docs/accuracy.md)"


def ledger_figure(gpu: str, engine: str) -> tuple[int, str]:
    """The accuracy ledger's figure for a GPU and engine (docs/accuracy.md, planner/ledger_figures.py): its place
    in Catalog's ledger table (0: none) and the words the Serving sheet and the HTML cite."""
    keys = [f"{g}|{e}".lower() for g, e in LEDGER]  # MATCH ignores case
    wanted = f"{gpu}|{engine}".lower()
    if wanted not in keys:
        return 0, NO_LEDGER
    words, rows, within_15, within_25, median, _ = list(LEDGER.values())[keys.index(wanted)]
    if rows == 0:
        return keys.index(wanted) + 1, NOT_HELD_OUT
    return keys.index(wanted) + 1, (f"within ±15 % on {within_15} of {rows} published {words} (±25 %: "
                                    f"{within_25}; median predicted/measured {median:.2f}; docs/accuracy.md)")


def _engine_scalars(scenario) -> dict:
    """The engines-table lookup as the Serving sheet shows it (§14.3): each level's place in Catalog's table (MATCH,
    which ignores case; 0: none), the first that exists, its row, and each prior with its `_in` and `_used` values."""
    sv, rows = scenario.serving, scenario.merged_catalog.engines
    places = [engines.lookup_key(key).lower() for key in rows]
    matches = [places.index(engines.lookup_key(k).lower()) + 1 if engines.lookup_key(k).lower() in places else 0
               for k in engines.levels(sv.engine, scenario.gpu, sv.weight_precision)]
    row, used = engine_row(scenario), knobs_in(scenario)
    found = {f"engine_match_{i}": m for i, m in enumerate(matches, start=1)}
    found |= {"engine_row_index": next(m for m in matches + [0] if m > 0), "engine_row": engines.label(row.key)}
    found["ledger_row"], found["ledger_figure"] = ledger_figure(scenario.gpu, sv.engine)
    for key in engines.PRIORS:
        found |= {f"{key}_prior": row.value(key), f"{key}_in": getattr(used, key)}
        if key not in ("compute_efficiency", "bandwidth_efficiency"):  # η's _used: §12.1's, below
            found[f"{key}_used"] = getattr(used, key)
    return found


DRAFT_TERMS = ("multiplied_params", "layers", "hidden", "attention_width", "kv_bytes_per_token", "experts",
               "experts_per_token", "expert_ffn", "moe_layer_count", "gated")  # the sheet's serving_draft_* rows


def _speculation(r: Replica) -> dict:
    """Speculative decoding's and prefix caching's figures as the Serving sheet shows them: the draft's terms (0
    without a draft), k used, E, and the cached prompt tokens."""
    d = r.draft
    terms = (d.multiplied, d.layers, d.hidden, d.width, d.kv_per_token, d.experts, d.experts_per_token, d.expert_ffn,
             d.moe_layers, d.gated) if d else (0,) * 9 + (False,)
    k = r._draft_settings[0] if d else 0
    return {"draft_on": d is not None, "draft_tokens_used": k, "tokens_per_step": r.tokens_per_step,
            "cached_tokens": r.cached_tokens, "draft_params": d.params if d else 0,
            **{f"draft_{key}": value for key, value in zip(DRAFT_TERMS, terms)}}


FIT_KEYS = ("runs_used", "sxx", "sxz", "szz", "sxy", "szy", "det", "slope", "intercept_s", "standard_error_s",
            "compute_efficiency_fit")  # the fit block's cells, beside the values in force


def _fit_scalars(scenario, fit: dict | None, r: Replica) -> dict:
    """The efficiencies in force and, with a calibration, the fit's figures (None where they are undefined)."""
    found = {"compute_efficiency_used": r.compute_efficiency, "bandwidth_efficiency_used": r.bandwidth_efficiency,
             "overhead_ms_used": r.overhead_ms, "calibration_gpu": fit["gpu"] or "" if fit else "",
             "calibration_on_this_gpu": scenario.serving.calibration == "none"
             or (fit or {}).get("gpu") == scenario.gpu}
    if fit is None:
        return found | {"fit_status": "none", "fit_bandwidth_efficiency": None, "fit_overhead_ms": None,
                        "fit_compute_efficiency": None, "fit_error_before": None, "fit_error_after": None}
    return found | {"fit_status": fit["status"], "fit_bandwidth_efficiency": fit["bandwidth_efficiency"],
                    "fit_overhead_ms": fit["overhead_s"] * 1000, "fit_compute_efficiency": fit["compute_efficiency"],
                    "fit_error_before": fit["error_before"], "fit_error_after": fit["error_after"],
                    **{f"fit_{key}": fit[key] for key in FIT_KEYS}}


def _calibration(scenario, tables) -> tuple[list[dict], dict | None, list[dict]]:
    """Each benchmark run beside the prediction at its mean concurrency, on its benchmark's GPU, with the fit's
    columns; with `serving.calibration`, the fit over that benchmark's runs (docs/method.md §12.1); and what the
    sheet's predictions read, per run (_measured_passes)."""
    logs = scenario.external("goodput")
    if logs is None:
        return [], None, []
    merged, benches, sv = scenario.merged_catalog, scenario.goodput.benchmarks, knobs_in(scenario)
    named = next((i for i, b in enumerate(benches, start=1) if b.name == sv.calibration), None)
    requests, found, fitted_runs, measured_passes = logs.requests, [], [], []
    runs = tables["goodput"].runs
    for run in runs:
        advance(CALIBRATING, 1, total=len(runs), unit="run")
        rows = requests[(requests["run"] == run["run"]) & ~requests["failed"]]
        gpu = merged.gpus[benches[run["benchmark"] - 1].gpu]
        replica = replica_of(scenario, gpu)
        if len(rows) == 0 or not isinstance(run["ttft_p50_ms"], float):
            continue
        mean_prompt, mean_output = float(rows["input_tokens"].mean()), float(rows["output_tokens"].mean())
        if not mean_output >= 1:
            continue
        values = replica.calibration(latency_sum_s=float(rows["latency_s"].sum()), duration_s=run["duration_s"],
                                     mean_prompt_tokens=mean_prompt, mean_output_tokens=mean_output,
                                     median_ttft_ms=run["ttft_p50_ms"], median_tpot_ms=run["tpot_p50_ms"])
        measured = calibration.Run(concurrency=values["mean_concurrency"], prompt_tokens=mean_prompt,
                                   output_tokens=mean_output, ttft_s=run["ttft_p50_ms"] / 1000,
                                   tpot_s=run["tpot_p50_ms"] / 1000)
        columns = calibration.terms(replica, measured)
        columns["used"] = columns["used"] and run["benchmark"] == named
        found.append({"run": run["run"], "benchmark": run["benchmark"], "gpu": gpu.id,
                      "mean_prompt_tokens": mean_prompt, "mean_output_tokens": mean_output,
                      **{k: ("" if v is None else v) for k, v in values.items()}, **columns})
        fitted_runs.append((found[-1], measured, replica))
    fit = _fit(fitted_runs, sv)
    for _, measured, replica in fitted_runs:
        measured_passes.append(_measured_passes(replica, measured, fit))
    fit["gpu"] = benches[named - 1].gpu if named else None
    if not named:
        fit["status"] = calibration.NOT_ASKED
    return ([{k: number(v) if not isinstance(v, str) else v for k, v in row.items()} for row in found], fit,
            measured_passes)


def _measured_passes(replica: Replica, measured, fit: dict) -> dict:
    """What a run's predictions read on the sheet: its GPU's P_e, HBM and NVLink, and the passes' pieces of the
    replica at its lengths, of one prompt ("one"), at its mean concurrency B̄ ("b"; None when B̄ is not above 0) and
    at its clients c = MAX(1, ROUND(B̄)) ("c"), at the inputs and at the values in force on the benchmark's GPU
    ("fitted_one", "fitted_b", "fitted_c"); and the steady fill T_fill(1, c) and TTFT_med(c) of §14.4 at both."""
    run, b = replica.at_run(measured.prompt_tokens, measured.output_tokens), measured.concurrency
    fitted = replace(run, compute_efficiency=fit["compute_efficiency"],
                     bandwidth_efficiency=fit["bandwidth_efficiency"], overhead_ms=fit["overhead_s"] * 1000)
    at_b = b is not None and b > 0
    c = calibration.clients(b) if at_b else None
    loaded, loaded_fitted = (r.ttft_at(c) if at_b else {} for r in (run, fitted))
    return {"peak_flops": replica.p_e, "hbm_tbps": replica.hbm_tbps, "nvlink_gbps": replica.nvlink_gbps or 0,
            "one": run.pass_pieces(1), "b": run.pass_pieces(b) if at_b else None,
            "c": run.pass_pieces(c) if at_b else None,
            "fitted_one": fitted.pass_pieces(1), "fitted_b": fitted.pass_pieces(b) if at_b else None,
            "fitted_c": fitted.pass_pieces(c) if at_b else None,
            "fill": {key: loaded.get(key, "") for key in ("fill_one_pass_tokens", "fill_one_flops", "fill_one_bytes",
                                                          "fill_one_ms")}
            | {"fitted_fill_one_ms": loaded_fitted.get("fill_one_ms", ""),
               "fitted_ttft_median_ms": loaded_fitted.get("ttft_median_at_concurrency_ms", "")}}


def _fit(runs: list, sv) -> dict:
    """The fit over one benchmark's runs, its rows given the fit's own columns, and the errors before and after."""
    rows, measured, replicas = ([run[i] for run in runs] for i in range(3))
    if not runs:
        return {**calibration.fit([], [], eta_c=sv.compute_efficiency, eta_m=sv.bandwidth_efficiency,
                                  tau_s=sv.overhead_ms / 1000), "error_before": None, "error_after": None}
    fit = calibration.fit(rows, measured, eta_c=sv.compute_efficiency, eta_m=sv.bandwidth_efficiency,
                          tau_s=sv.overhead_ms / 1000)
    residuals = iter(fit["residuals_s"])
    forced = replace(replicas[0], compute_efficiency=fit["compute_efficiency"],
                     bandwidth_efficiency=fit["bandwidth_efficiency"], overhead_ms=fit["overhead_s"] * 1000)
    before = calibration.prediction_errors(replicas[0], measured, rows)
    after = calibration.prediction_errors(forced, measured, rows)
    for row, run, early, late in zip(rows, measured, before, after):
        residual = next(residuals) if row["used"] else None
        row.update(y_prefill_s=row["own_prefill_s"] - row["all_reduce_prompt_s"] - fit["overhead_s"]
                   - row["known_overhead_one_s"] if row["used"] else "",
                   residual_s="" if residual is None else residual,
                   ttft_error_before=early["ttft_error"], itl_error_before=early["itl_error"],
                   ttft_error_after=late["ttft_error"], itl_error_after=late["itl_error"])
        for key in ("x_bytes_s", "stall_s", "y_s", "z", "x_prefill_s"):
            row[key] = row[key] if row["used"] else ""
        row.update({k: "" for k, v in row.items() if v is None})
    return {**fit, "error_before": calibration.mean_absolute(before), "error_after": calibration.mean_absolute(after)}
