"""The roofline's efficiencies fitted from measured benchmark runs (docs/method.md §12.1, as §14.6 changes it): a
measured TPOT under load is ITL(B̄) = T_pre(B̄)/o + TPOT(B̄), which with compute-bound prefill and memory-bound decode
is linear in the decode step's bytes: Y = X·(1/η_m) + Z·τ, the known overhead K(n) and the run's own prefill
P = TTFT − (TTFT_med(c) − TTFT) taken in.
Least squares through the origin on (X, Z) gives η_m and τ; the prefill gives η_c
through the origin. Pure numbers: the runs arrive as plain values, the roofline as a Replica (without speculative
decoding or a cached prefix: a benchmark run is of the model alone).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from planner.engine.shared import advance
from planner.engine.values import excel_round
from planner.method import Constant
from planner.model import passes

QUEUEING_FACTOR = 3  # a run whose median TTFT is over 3 × TTFT_med(c) predicted is queueing, not computing
ALIKE = 1e-6  # det ≤ this share of Sxx·Szz: the runs are one load level, too alike to tell η_m from τ
FITTED = "fitted"
NOT_ASKED = "none: serving.calibration names no benchmark"
COMPARING = "comparing predictions with benchmark runs"  # long work with thousands of runs (a progress bar)


@dataclass(frozen=True, kw_only=True)
class Run:
    """A measured run as the fit reads it: Little's-law concurrency, mean lengths and medians (seconds)."""

    concurrency: float  # B̄
    prompt_tokens: float  # s_i
    output_tokens: float  # o_i
    ttft_s: float
    tpot_s: float


def clients(concurrency: float) -> int:
    """c_i = MAX(1, ROUND(B̄_i, 0)): the closed-loop clients a run's mean concurrency stands for (§14.6; Excel's ROUND
    takes halves away from zero)."""
    return max(1, excel_round(concurrency))


def exchange(at, tokens):
    """What a pass of `tokens` spends exchanging activations between GPUs, seconds (Replica.exchange_s: AR(n), and
    A2A(n) once the replica has expert parallelism; §14.6)."""
    return float(at.exchange_s(tokens))


def at_run(replica, run: Run):
    """The replica at a run's mean lengths, of the model alone (§12.1)."""
    return replace(replica, prompt_tokens=run.prompt_tokens, sequence_length=run.prompt_tokens + run.output_tokens,
                   speculative="none", prefix_hit_rate=0)


def median_ttft(at, run: Run) -> tuple[int, float, float]:
    """c_i, TTFT_med(c_i) and the idle TTFT at the replica's efficiencies (seconds, §14.4, §14.6)."""
    c = clients(run.concurrency)
    return c, float(at.ttft_at(c)["ttft_median_at_concurrency_ms"]) / 1000, float(at.ttft_s())


def terms(replica, run: Run) -> dict:
    """One run's columns: c_i and the predicted median TTFT there, the run's own prefill P_i, the decode step's bytes
    at full bandwidth X, the prefills' stall, Y, Z, the prefill at full peak x, and whether the fit uses it (with why
    not), §12.1 as §14.6 changes it."""
    b, s, o = run.concurrency, run.prompt_tokens, run.output_tokens
    at = at_run(replica, run)
    ar_s, ar_bs, ar_b = (exchange(at, n) for n in (s, b * s, b))
    k_1, k_b = (float(at.known_overhead(n)) for n in (1, b))  # K(1), K(B̄): the overhead less τ (§14.6)
    c, ttft_med, idle = median_ttft(at, run)
    own = run.ttft_s - (ttft_med - idle)  # P_i: the median TTFT less the predicted closed-loop excess
    x_big = float(at.decode_bytes(b)) / (at.hbm_tbps * 1e12)
    stall = (b * (own - ar_s - k_1) + ar_bs + k_b) / o if o > 0 else 0.0
    z = 1 - (b - 1) / o if o > 0 else 0.0
    prefill_flops = float(at.prefill_flops())
    x_small = prefill_flops / (at.tensor_parallel * float(at.p_e))
    peak = at.tensor_parallel * float(at.p_e) * at.compute_efficiency  # FLOP/s at the inputs' η_c
    compute_bound = prefill_flops / peak >= float(at.prefill_bytes()) / float(at.bw_e)
    decode_flops = float(passes.decode_flops(at.psi_mm, at.layers, at.c_bar, at.width, b))
    memory_bound = float(at.decode_bytes(b)) / float(at.bw_e) >= decode_flops / peak
    reasons = [why for why, failed in (("no output tokens to time (o ≤ 1)", not o > 1),
                                       ("more prefills than tokens a run (B̄ ≥ o + 1)", not z > 0),
                                       ("prefill not compute-bound at the inputs' η", not compute_bound),
                                       ("decode not memory-bound at the inputs' η", not memory_bound),
                                       (f"queueing: TTFT over {QUEUEING_FACTOR} × the median {ttft_med * 1000:,.2f} "
                                        f"ms predicted at {c} clients", not run.ttft_s <= QUEUEING_FACTOR * ttft_med),
                                       ("the known overhead takes the whole prefill (P ≤ AR(s) + K(1))",
                                        not own > ar_s + k_1)) if failed]
    return {"clients": c, "ttft_median_s": ttft_med, "own_prefill_s": own, "x_bytes_s": x_big, "stall_s": stall,
            "y_s": run.tpot_s - ar_b - stall - k_b, "z": z, "x_prefill_s": x_small, "all_reduce_prompt_s": ar_s,
            "known_overhead_one_s": k_1, "idle_ttft_s": idle, "used": not reasons, "why_not": "; ".join(reasons)}


def fit(columns: list[dict], runs: list[Run], *, eta_c: float, eta_m: float, tau_s: float) -> dict:
    """η_m and τ by least squares through the origin on (X, Z) over the used runs, η_c through the origin on the
    prefill with the τ in force; each falls back to its input where the rules refuse the fit, and `status` says
    why (docs/method.md §12.1)."""
    used = [(c, r) for c, r in zip(columns, runs) if c["used"]]
    sxx = sum(c["x_bytes_s"] ** 2 for c, _ in used)
    sxz = sum(c["x_bytes_s"] * c["z"] for c, _ in used)
    szz = sum(c["z"] ** 2 for c, _ in used)
    sxy = sum(c["x_bytes_s"] * c["y_s"] for c, _ in used)
    szy = sum(c["z"] * c["y_s"] for c, _ in used)
    det = sxx * szz - sxz ** 2
    slope = (sxy * szz - sxz * szy) / det if det > 0 else None
    intercept = (sxx * szy - sxz * sxy) / det if det > 0 else None
    if not used:
        status = "no used run"
    elif len(used) == 1:
        status = "one run"
    elif not det > ALIKE * sxx * szz:
        status = "runs too alike"
    elif not slope >= 1:
        status = "η_m > 1: the runs contradict the model"
    elif not intercept >= 0:
        status = "τ < 0: the runs contradict the model"
    else:
        status = FITTED
    fitted = status == FITTED
    tau = intercept if fitted else tau_s
    sxx_c = sum(c["x_prefill_s"] ** 2 for c, _ in used)
    sxy_c = sum(c["x_prefill_s"] * (c["own_prefill_s"] - c["all_reduce_prompt_s"] - tau - c["known_overhead_one_s"])
                for c, r in used)
    eta_c_fit = sxx_c / sxy_c if used and sxy_c > 0 else None
    eta_c_fitted = eta_c_fit is not None and 0 < eta_c_fit <= 1
    residuals = [c["y_s"] - slope * c["x_bytes_s"] - intercept * c["z"] if fitted else None for c, _ in used]
    return {"status": status, "fitted": fitted, "runs_used": len(used), "sxx": sxx, "sxz": sxz, "szz": szz,
            "sxy": sxy, "szy": szy, "det": det, "slope": slope, "intercept_s": intercept,
            "bandwidth_efficiency": 1 / slope if fitted else eta_m, "overhead_s": tau,
            "compute_efficiency_fit": eta_c_fit, "compute_efficiency_fitted": eta_c_fitted,
            "compute_efficiency": eta_c_fit if eta_c_fitted else eta_c,
            "residuals_s": residuals,
            "standard_error_s": math.sqrt(sum(r * r for r in residuals) / (len(used) - 2))
            if fitted and len(used) >= 3 else None}


def prediction_errors(replica, runs: list[Run], columns: list[dict]) -> list[dict]:
    """Per run, the relative errors of the predicted median TTFT at c_i clients, TTFT_med(c_i) (§14.6), and of
    ITL(B̄) = cycle(B̄)/o against the measured medians, with the replica's efficiencies (the inputs, or the fitted
    ones)."""
    found = []
    for run, column in zip(runs, columns):
        advance(COMPARING, 1, total=len(runs), unit="run")
        at = at_run(replica, run)
        ttft = median_ttft(at, run)[1]
        itl = float(at.cycle_s(run.concurrency)) / run.output_tokens if run.output_tokens > 0 else None
        found.append({"ttft_error": ttft / run.ttft_s - 1 if column["used"] else None,
                      "itl_error": itl / run.tpot_s - 1 if column["used"] and itl is not None else None})
    return found


def mean_absolute(errors: list[dict]) -> float | None:
    """The mean absolute relative error over the used runs' TTFT and ITL."""
    values = [abs(e[k]) for e in errors for k in ("ttft_error", "itl_error") if e[k] is not None]
    return sum(values) / len(values) if values else None


CONSTANTS = [
    Constant("calibration_queueing_factor", QUEUEING_FACTOR, label="Calibration: a run's TTFT over this × the "
             "median predicted at its clients is queueing", unit="×",
             source="The roofline's predicted/measured TTFT on published idle-server cases lies within 0.79-1.36 "
             "(docs/method.md §12.1)"),
    Constant("calibration_alike_share", ALIKE, label="Calibration: runs too alike when det ≤ this × Sxx·Szz",
             unit="share", source="One load level cannot tell η_m from τ (docs/method.md §12.1)"),
]
