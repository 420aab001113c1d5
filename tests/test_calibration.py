"""The roofline calibrated from benchmark logs (docs/method.md §12.1): the worked example's fit by hand, the rules
that refuse a fit, the efficiencies recovered from logs the roofline made, and the Serving sheet's fit recalculated
in LibreOffice and Gnumeric."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from planner import shipped
from planner.engine import calibration as cal
from planner.model.replica import Replica

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

BF16 = shipped.PRECISIONS["bf16"]
# §12.1's runs under §14.6 (8B BF16 on one H100, s 1000, o 250): B̄, median TTFT and TPOT in ms, as printed. Made by
# the closed-loop model (§14.4) at η_c 0.40, η_m 0.80, τ 3 ms, §6's overhead alone (τ_0 … δ 0, N 8192): TTFT_i =
# TTFT_med(B̄_i)·(1 + δ_i), TPOT_i = ITL(B̄_i)·(1 + ε_i), δ = +2, −1, +1, −2 %, ε = −1, +1.5, −1.5, +1 %, rounded to
# 0.01 ms; a fifth run is overloaded.
WORKED = [(2, 47.08, 8.94), (16, 47.70, 12.14), (48, 53.32, 18.39), (96, 58.52, 29.01), (160, 950.00, 42.00)]
PSI_MM, LAYERS, WIDTH, KV, PEAK, HBM = 7_504_924_672, 32, 8192, 131_072, 989e12, 3.35e12  # 8B, H100 (METHOD §6)


def by_hand(eta_c=0.5, eta_m=0.7, tau=0.0, s=1000, o=250):
    """METHOD §6 and §14.4 for a dense model on one GPU at zero known overheads, spelled out apart from the planner:
    the idle TTFT, ITL(B) and TTFT_med(c) = T_fill(1, c) + ITL(c)/2, in seconds."""
    c_bar, pe, bw = s + o / 2, PEAK * eta_c, HBM * eta_m
    one = 2 * PSI_MM * s + LAYERS * s * s * WIDTH
    ttft = max(one / pe, (2 * PSI_MM + s * KV) / bw) + tau

    def itl(b):
        prefill = max(b * one / pe, (2 * PSI_MM + b * s * KV) / bw) + tau
        step = max((2 * PSI_MM + b * c_bar * KV) / bw, b * (2 * PSI_MM + 2 * LAYERS * c_bar * WIDTH) / pe) + tau
        return (prefill + o * step) / o

    def median(c):
        flops = 2 * PSI_MM * (s + c - 1) + LAYERS * s * s * WIDTH + (c - 1) * 2 * LAYERS * c_bar * WIDTH
        fill = max(flops / pe, (2 * PSI_MM + (s + (c - 1) * c_bar) * KV) / bw) + tau
        return fill + (0 if c == 1 else itl(c) / 2)
    return ttft, itl, median


def replica(**knobs) -> Replica:
    serving = SimpleNamespace(users=32, sequence_length=1250, prompt_tokens=1000, tensor_parallel=1, **knobs)
    return Replica.of(model=shipped.MODELS["llama-3.1-8b"], gpu=shipped.GPUS["h100-sxm"], weight=BF16, kv=BF16,
                      serving=serving, price_per_gpu_hour=2.0)


def runs(table=WORKED) -> list[cal.Run]:
    return [cal.Run(concurrency=b, prompt_tokens=1000, output_tokens=250, ttft_s=t / 1000, tpot_s=p / 1000)
            for b, t, p in table]


def fitted(table=WORKED, **knobs):
    r, measured = replica(**knobs), runs(table)
    columns = [cal.terms(r, run) for run in measured]
    return r, measured, columns, cal.fit(columns, measured, eta_c=0.5, eta_m=0.7, tau_s=0)


def test_the_worked_runs_were_made_by_the_closed_loop_model():
    _, itl, median = by_hand(0.40, 0.80, 0.003)
    made = [(b, round(median(b) * (1 + d) * 1000, 2), round(itl(b) * (1 + e) * 1000, 2))
            for b, d, e in zip((2, 16, 48, 96), (0.02, -0.01, 0.01, -0.02), (-0.01, 0.015, -0.015, 0.01))]
    assert made == WORKED[:4]


def test_the_worked_runs_columns_by_hand():
    """§14.6: c_i = MAX(1, ROUND(B̄_i)); P_i = TTFT_i − (TTFT_med(c_i) − TTFT) at the inputs (0.5, 0.7, τ 0; the idle
    TTFT 30.884 ms); stall = B̄·P/o, Y = TPOT − stall (AR and K 0 here); used when TTFT_i ≤ 3·TTFT_med(c_i)."""
    _, _, columns, _ = fitted()
    ttft, _, median = by_hand()
    assert round(ttft * 1000, 3) == 30.884
    # run 1 by hand: TTFT_med(2) = 34.3021 ms, P = 47.08 − (34.3021 − 30.8838) = 43.6616, stall = 2·43.6616/250
    # = 0.3493, Y = 8.94 − 0.3493 = 8.5907
    expected = [(2, 34.3021, 43.6616, 0.3493, 8.5907), (16, 36.0486, 42.5351, 2.7222, 9.4178),
                (48, 40.0408, 44.1629, 8.4793, 9.9107), (96, 46.0290, 43.3747, 16.6559, 12.3541),
                (160, 54.0132, 926.8705, 593.1971, -551.1971)]
    for column, (b, t), (c, med, own, stall, y) in zip(columns, [(w[0], w[1]) for w in WORKED], expected):
        assert column["clients"] == c and round(median(c) * 1000, 4) == med
        assert round(column["ttft_median_s"] * 1000, 4) == med
        assert round(column["own_prefill_s"] * 1000, 4) == own == round(t - (median(c) - ttft) * 1000, 4)
        assert (round(column["stall_s"] * 1000, 4), round(column["y_s"] * 1000, 4)) == (stall, y)
        assert round(column["x_prefill_s"] * 1000, 4) == 15.4419
    assert [c["used"] for c in columns] == [True, True, True, True, False]
    assert "queueing" in columns[4]["why_not"]  # 950 ms > 3 × 54.01 ms


def test_the_log_comparison_puts_the_median_beside_the_closed_loop_median():
    """§14.6: run 2 (B̄ 16 by Little's law: 16 s of latencies in 1 s) beside TTFT_med(16) = 36.0486 ms, not the idle
    30.884 ms; η_c implied from its own prefill P = 42.5351 ms: 15.4419/42.5351 = 0.3630 (AR and τ_pass 0 here)."""
    got = replica().calibration(latency_sum_s=16, duration_s=1, mean_prompt_tokens=1000, mean_output_tokens=250,
                                median_ttft_ms=47.70, median_tpot_ms=12.14)
    assert got["clients"] == 16 and round(got["predicted_ttft_ms"], 3) == 30.884
    assert (round(got["predicted_ttft_median_ms"], 4), round(got["own_prefill_ms"], 4)) == (36.0486, 42.5351)
    assert round(got["implied_compute_efficiency"], 4) == 0.3630
    # c = MAX(1, ROUND(B̄)): 0.4 → 1, 2.5 → 3 (halves away from zero, as a spreadsheet rounds)
    assert [cal.clients(b) for b in (0.4, 2.5, 16.49)] == [1, 3, 16]


def test_the_worked_fit_by_hand():
    r, measured, columns, fit = fitted()
    # sums in ms: X and Z as before (Sxx 167.0238, Sxz 20.1757, Szz 2.919360); Sxy 260.9783, Szy 33.1161
    assert (round(fit["sxx"] * 1e6, 4), round(fit["sxz"] * 1e3, 4), round(fit["szz"], 6),
            round(fit["sxy"] * 1e6, 4), round(fit["szy"] * 1e3, 4), round(fit["det"] * 1e6, 4)) == \
        (167.0238, 20.1757, 2.919360, 260.9783, 33.1161, 80.5453)
    assert fit["status"] == "fitted" and round(fit["slope"], 5) == 1.16395
    assert round(fit["bandwidth_efficiency"], 4) == 0.8591 and round(fit["overhead_s"] * 1000, 3) == 3.300
    assert [round(x * 1000, 3) for x in fit["residuals_s"]] == [-0.013, 0.281, -0.443, 0.175]
    assert round(fit["standard_error_s"] * 1000, 3) == 0.391
    # y = P − τ̂ = 40.362, 39.236, 40.863, 40.075 ms; η̂_c = 4·15.4419²/(15.4419·160.536) = 0.3848
    assert round(fit["compute_efficiency"], 4) == 0.3848
    forced = Replica(**{**vars(r), "compute_efficiency": fit["compute_efficiency"],
                        "bandwidth_efficiency": fit["bandwidth_efficiency"], "overhead_ms": fit["overhead_s"] * 1000})
    before = cal.mean_absolute(cal.prediction_errors(r, measured, columns))
    after = cal.mean_absolute(cal.prediction_errors(forced, measured, columns))
    # TTFT_i against TTFT_med(c_i), TPOT_i against ITL(B̄_i), at the inputs and as fitted
    _, itl_in, med_in = by_hand()
    _, itl_fit, med_fit = by_hand(fit["compute_efficiency"], fit["bandwidth_efficiency"], fit["overhead_s"])
    for found, itl, med in ((before, itl_in, med_in), (after, itl_fit, med_fit)):
        errors = [abs(f(b) / (v / 1000) - 1) for b, t, p in WORKED[:4] for f, v in ((med, t), (itl, p))]
        assert found == pytest.approx(sum(errors) / 8, rel=1e-9)
    assert (round(before * 100, 1), round(after * 100, 1)) == (22.2, 2.4)


def test_the_known_overhead_and_dispatch_are_subtracted():
    """With §14's generic overheads (τ_0 0.126, τ_L 0.032, τ_seq 0.0044 ms, δ 0.8 ms a layer), run 2 by hand: K(1) =
    (0.126 + 0.032·32 + 0.0044)/1000 = 1.1544 ms, K(16) = 1.2204 ms; TTFT_med(16) = δ·L + T_fill(1, 16) + ITL(16)/2
    with τ_pass in every pass; stall = (16·(P − K(1)) + K(16))/250; Y = TPOT − stall − K(16); y = P − τ̂ − K(1)."""
    knobs = dict(overhead_fixed_ms=0.126, overhead_per_layer_ms=0.032, overhead_per_sequence_ms=0.0044,
                 dispatch_ms_per_layer=0.8)
    r = replica(**knobs)
    run = runs([WORKED[1]])[0]
    column = cal.terms(r, run)
    k1, k16 = (0.126 + 0.032 * 32 + 0.0044) / 1000, (0.126 + 0.032 * 32 + 0.0044 * 16) / 1000
    assert round(k1 * 1000, 4) == 1.1544 and round(k16 * 1000, 4) == 1.2204
    s, o, c_bar, pe, bw = 1000, 250, 1125, PEAK * 0.5, HBM * 0.7
    one = 2 * PSI_MM * s + LAYERS * s * s * WIDTH
    ttft = max(one / pe, (2 * PSI_MM + s * KV) / bw) + k1
    prefill16 = max(16 * one / pe, (2 * PSI_MM + 16 * s * KV) / bw) + k16
    step16 = max((2 * PSI_MM + 16 * c_bar * KV) / bw, 16 * (2 * PSI_MM + 2 * LAYERS * c_bar * WIDTH) / pe) + k16
    flops = 2 * PSI_MM * (s + 15) + LAYERS * s * s * WIDTH + 15 * 2 * LAYERS * c_bar * WIDTH
    fill = max(flops / pe, (2 * PSI_MM + (s + 15 * c_bar) * KV) / bw) + k16
    median = 0.8 * 32 / 1000 + fill + (prefill16 + o * step16) / o / 2
    own = 0.0477 - (median - ttft)
    assert column["ttft_median_s"] == pytest.approx(median, rel=1e-12)
    assert column["own_prefill_s"] == pytest.approx(own, rel=1e-12)
    assert column["stall_s"] == pytest.approx((16 * (own - k1) + k16) / o, rel=1e-12)
    assert column["y_s"] == pytest.approx(0.01214 - column["stall_s"] - k16, rel=1e-12)
    # TTFT_med(16) 63.48 ms (25.6 of it dispatch), idle TTFT 32.04 ms: P = 47.70 − 31.44 = 16.26 ms, used
    assert (round(median * 1000, 2), round(ttft * 1000, 2), round(own * 1000, 2)) == (63.48, 32.04, 16.26)
    assert column["used"]


def test_one_run_keeps_the_inputs_and_fits_only_eta_c():
    _, _, _, fit = fitted(WORKED[:1])
    assert fit["status"] == "one run"
    assert (fit["bandwidth_efficiency"], fit["overhead_s"]) == (0.7, 0)
    assert round(fit["compute_efficiency"], 4) == 0.3537  # 15.4419 / 43.6616 (P of run 1), with τ 0


def test_one_load_level_twice_is_too_alike():
    _, _, _, fit = fitted([WORKED[1], WORKED[1]])
    assert fit["status"] == "runs too alike" and fit["bandwidth_efficiency"] == 0.7


def test_an_unknown_benchmark_name_is_refused_naming_the_key(tmp_path):
    from tests.helpers import refused

    message, _ = refused(tmp_path, "name: x\nserving: {calibration: nope}\n")
    assert "serving.calibration" in message and "none, or the name of one of goodput.benchmarks" in message
