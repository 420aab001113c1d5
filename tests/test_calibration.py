"""The roofline calibrated from benchmark logs (docs/method.md §12.1): the worked example's fit by hand, the rules
that refuse a fit, the efficiencies recovered from logs the roofline made, and the Serving sheet's fit recalculated
in LibreOffice and Gnumeric."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from planner import shipped
from planner.engine import calibration as cal
from planner.engine import compute
from planner.model.replica import Replica
from planner.scenario import load_scenario
from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

BF16 = shipped.PRECISIONS["bf16"]
EXAMPLE = ROOT / "examples" / "serving-6-calibrated-fit.yaml"
# §12.1's worked runs: B̄, median TTFT and TPOT in ms, as printed (8B BF16 on one H100, s 1000, o 250)
WORKED = [(2, 42.44, 8.94), (16, 41.19, 12.14), (48, 42.02, 18.39), (96, 40.77, 29.01), (160, 950.00, 42.00)]


def replica(**knobs) -> Replica:
    serving = SimpleNamespace(users=32, sequence_length=1250, prompt_tokens=1000, tensor_parallel=1, **knobs)
    return Replica.of(model=shipped.MODELS["llama-3.1-8b"], gpu=shipped.GPUS["h100-sxm"], weight=BF16, kv=BF16,
                      serving=serving, price_per_gpu_hour=2.0)


def runs(table=WORKED) -> list[cal.Run]:
    return [cal.Run(concurrency=b, prompt_tokens=1000, output_tokens=250, ttft_s=t / 1000, tpot_s=p / 1000)
            for b, t, p in table]


def fitted(table=WORKED):
    r, measured = replica(), runs(table)
    columns = [cal.terms(r, run) for run in measured]
    return r, measured, columns, cal.fit(columns, measured, eta_c=0.5, eta_m=0.7, tau_s=0)


def test_the_worked_runs_columns_by_hand():
    _, _, columns, _ = fitted()
    # run 1: bytes 15.0098e9 + 2·1125·131,072 = 15.3048e9 over 3.35e12 → X 4.5686 ms; stall 2·42.44/250 = 0.3395;
    # Y = 8.94 − 0.3395 = 8.6005; Z = 1 − 1/250 = 0.996; x = (2·7.5049e9·1000 + 32·1000²·8192)/989e12 = 15.4419 ms
    expected = [(4.5686, 0.3395, 8.6005, 0.9960), (5.1848, 2.6362, 9.5038, 0.9400), (6.5934, 8.0678, 10.3222, 0.8120),
                (8.7062, 15.6557, 13.3543, 0.6200), (11.5232, 608.0, -566.0, 0.3640)]
    for column, (x, stall, y, z) in zip(columns, expected):
        assert (round(column["x_bytes_s"] * 1000, 4), round(column["stall_s"] * 1000, 4),
                round(column["y_s"] * 1000, 4), round(column["z"], 4)) == (x, stall, y, z)
        assert round(column["x_prefill_s"] * 1000, 4) == 15.4419
    assert [c["used"] for c in columns] == [True, True, True, True, False]
    assert "queueing" in columns[4]["why_not"]  # 950 ms > 3 × 30.88 ms


def test_the_worked_fit_by_hand():
    r, measured, columns, fit = fitted()
    # sums in ms: Sxx 167.0238, Sxz 20.1757, Szz 2.919360, Sxy 272.8902, Szy 34.1610, det 80.5453
    assert (round(fit["sxx"] * 1e6, 4), round(fit["sxz"] * 1e3, 4), round(fit["szz"], 6),
            round(fit["sxy"] * 1e6, 4), round(fit["szy"] * 1e3, 4), round(fit["det"] * 1e6, 4)) == \
        (167.0238, 20.1757, 2.919360, 272.8902, 34.1610, 80.5453)
    assert fit["status"] == "fitted" and round(fit["slope"], 5) == 1.33397
    assert round(fit["bandwidth_efficiency"], 4) == 0.7496 and round(fit["overhead_s"] * 1000, 3) == 2.482
    assert [round(x * 1000, 3) for x in fit["residuals_s"]] == [0.034, 0.254, -0.489, 0.201]
    assert round(fit["standard_error_s"] * 1000, 3) == 0.415
    assert round(fit["compute_efficiency"], 4) == 0.3947  # 4·15.4419² / (15.4419·156.490)
    forced = Replica(**{**vars(r), "compute_efficiency": fit["compute_efficiency"],
                        "bandwidth_efficiency": fit["bandwidth_efficiency"], "overhead_ms": fit["overhead_s"] * 1000})
    before = cal.mean_absolute(cal.prediction_errors(r, measured, columns))
    after = cal.mean_absolute(cal.prediction_errors(forced, measured, columns))
    assert (round(before * 100, 1), round(after * 100, 1)) == (22.8, 1.4)


def test_one_run_keeps_the_inputs_and_fits_only_eta_c():
    _, _, _, fit = fitted(WORKED[:1])
    assert fit["status"] == "one run"
    assert (fit["bandwidth_efficiency"], fit["overhead_s"]) == (0.7, 0)
    assert round(fit["compute_efficiency"], 4) == 0.3639  # 15.4419 / 42.44, with τ 0


def test_one_load_level_twice_is_too_alike():
    _, _, _, fit = fitted([WORKED[1], WORKED[1]])
    assert fit["status"] == "runs too alike" and fit["bandwidth_efficiency"] == 0.7


def test_the_fit_recovers_the_efficiencies_the_logs_were_made_with():
    """examples/goodput-logs/h100-roofline-b*.json: the roofline at η_c 0.4, η_m 0.8, τ 3 ms, jittered ±1 %."""
    table = compute(load_scenario(EXAMPLE)).serving
    s = table.scalars
    assert s["fit_status"] == "fitted" and table.fit["runs_used"] == 4
    assert s["fit_bandwidth_efficiency"] == pytest.approx(0.80, rel=0.01)
    assert s["fit_overhead_ms"] == pytest.approx(3.0, abs=0.1)
    assert s["fit_compute_efficiency"] == pytest.approx(0.40, rel=0.01)
    # on the benchmark's GPU the fitted values are in force; the prediction error falls below 1 %
    assert (s["compute_efficiency_used"], s["bandwidth_efficiency_used"]) == \
        (s["fit_compute_efficiency"], s["fit_bandwidth_efficiency"])
    assert s["fit_error_before"] > 0.2 and s["fit_error_after"] < 0.01


def test_another_gpu_keeps_the_inputs_and_fails_its_check():
    from tests.helpers import scenario_with

    other = compute(scenario_with(load_scenario(EXAMPLE), gpu="h200")).serving
    assert other.scalars["compute_efficiency_used"] == 0.5 and other.checks["serving_calibration_on_this_gpu"] is False


FLEET = ROOT / "examples" / "fleet-5-8b-calibrated-h100.yaml"


def largest_batch(r: Replica, target_s: float) -> int:
    """B*, by scanning the roofline directly: the largest B ≤ B_max with ITL(B) = cycle(B)/o within the target."""
    return max(b for b in range(1, int(r.b_max) + 1) if round(float(r.cycle_s(b)) / r.o, 9) <= target_s)


def test_the_fleet_reads_the_fit_on_the_benchmarks_gpu_only():
    """§12.1 in §11: the H100 candidates read η_c, η_m and τ fitted from the H100 logs, the H200 candidates the inputs
    (0.5, 0.7, 0 ms); each row's B* is the roofline's largest batch at its own efficiencies (ITL ≤ 20 ms), so τ's
    3 ms a pass cuts the H100's from 72 to 54 and the cheapest fleet moves to the H200."""
    results = compute(load_scenario(FLEET))
    fit = results.serving.fit
    rows = {(r["gpu"], r["mode"], r["tensor_parallel"], r["prefill_tensor_parallel"]): r
            for r in results.fleet.candidates}
    h100, h200 = rows["h100-sxm", "aggregated", 1, None], rows["h200", "aggregated", 1, None]
    assert (h100["compute_efficiency"], h100["bandwidth_efficiency"], h100["overhead_ms"]) == \
        (fit["compute_efficiency"], fit["bandwidth_efficiency"], fit["overhead_s"] * 1000)
    assert (h200["compute_efficiency"], h200["bandwidth_efficiency"], h200["overhead_ms"]) == (0.5, 0.7, 0)
    shape = dict(sequence_length=1250, prompt_tokens=1000)
    precision = shipped.PRECISIONS["bf16"]

    def b_star(gpu: str, **efficiencies) -> int:
        r = Replica.of(model=shipped.MODELS["llama-3.1-8b"], gpu=shipped.GPUS[gpu], weight=precision, kv=precision,
                       serving=SimpleNamespace(tensor_parallel=1, **shape, **efficiencies), price_per_gpu_hour=2.0)
        return largest_batch(r, 0.020)

    fitted = dict(compute_efficiency=fit["compute_efficiency"], bandwidth_efficiency=fit["bandwidth_efficiency"],
                  overhead_ms=fit["overhead_s"] * 1000)
    assert h100["b_star"] == b_star("h100-sxm", **fitted) == 54
    assert b_star("h100-sxm") == 72 and h200["b_star"] == b_star("h200") == 92
    assert results.fleet.headline["fleet_cheapest_gpu"] == "h200"
    # 3 H100 replicas + a spare at $2.00 (4 GPUs) against 2 H200 replicas + a spare at $2.50 (3 GPUs)
    assert (h100["replicas"], h100["gpus"], h100["cost_per_hour"]) == (3, 4, 8.0)
    assert results.fleet.headline["fleet_cheapest_cost_per_hour"] == 7.5


def test_an_unknown_benchmark_name_is_refused_naming_the_key(tmp_path):
    from tests.helpers import refused

    message, _ = refused(tmp_path, "name: x\nserving: {calibration: nope}\n")
    assert "serving.calibration" in message and "none, or the name of one of goodput.benchmarks" in message


@pytest.mark.spreadsheet
@pytest.mark.parametrize("application", ["libreoffice", "gnumeric"])
def test_the_sheet_fits_live_and_follows_the_calibration_input(application, request, tmp_path):
    from planner.workbook import build
    from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

    app = request.getfixturevalue(application)
    scenario = load_scenario(EXAMPLE)
    original, off = tmp_path / "fit.xlsx", tmp_path / "off.xlsx"
    book = build(compute(scenario), str(original))
    set_cells(original, off, {"serving_calibration": "none"})
    values = recalculated(app, [original, off], [None, build_in_memory(
        scenario_with(scenario, **{"serving.calibration": "none"}), like=off)])
    assert named(values[0], book, "serving_fit_status") == "fitted"
    assert named(values[0], book, "serving_bandwidth_efficiency_used") == pytest.approx(0.80, rel=0.01)
    assert named(values[1], book, "serving_bandwidth_efficiency_used") == 0.7
