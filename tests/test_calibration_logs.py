"""The roofline calibrated from the example's benchmark logs at the shipped engines rows (docs/method.md §12.1 as
§14.6 changes it): examples/goodput-logs/h100-roofline-b*.json were made by the closed-loop model (§14.4) at η_c 0.4,
η_m 0.8 and τ 3 ms with the generic row's known overheads; the fit, the Fleet reading it on the benchmark's GPU only,
and the Serving sheet's fit recalculated in LibreOffice and Gnumeric."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from planner import shipped
from planner.engine import compute
from planner.model.replica import Replica
from planner.scenario import load_scenario
from tests.conftest import ROOT

EXAMPLE = ROOT / "examples" / "serving-6-calibrated-fit.yaml"
FLEET = ROOT / "examples" / "fleet-5-8b-calibrated-h100.yaml"
GENERIC = dict(overhead_fixed_ms=0.126, overhead_per_layer_ms=0.032, overhead_per_sequence_ms=0.0044)  # METHOD §14.3


def test_the_fit_predicts_the_runs_it_was_made_from():
    """P_i takes out the closed-loop excess predicted at the inputs (η_c 0.5, η_m 0.7, τ 0), not at the values the
    logs were made with, so η̂_m and τ̂ trade against each other (0.95 and 4.0 ms for 0.80 and 3 ms) while η̂_c stays
    within 3 % of 0.40 and every used run's median TTFT and TPOT are predicted within 3 % (22 % at the inputs)."""
    table = compute(load_scenario(EXAMPLE)).serving
    s = table.scalars
    assert s["fit_status"] == "fitted" and table.fit["runs_used"] == 4
    assert [row["clients"] for row in table.calibration] == [2, 16, 48, 96]
    assert s["fit_compute_efficiency"] == pytest.approx(0.40, rel=0.03)
    assert s["fit_bandwidth_efficiency"] > 0.8 and s["fit_overhead_ms"] > 3  # the one-pass bias, said above
    # on the benchmark's GPU the fitted values are in force
    assert (s["compute_efficiency_used"], s["bandwidth_efficiency_used"]) == \
        (s["fit_compute_efficiency"], s["fit_bandwidth_efficiency"])
    for row in table.calibration:  # a median TTFT against TTFT_med(c_i): 16 % under at the inputs, within 3 % fitted
        assert -0.17 < row["ttft_error_before"] < -0.15 and abs(row["ttft_error_after"]) < 0.03
        assert abs(row["itl_error_after"]) < 0.015
        assert row["own_prefill_ms"] == pytest.approx(
            row["measured_ttft_ms"] - (row["predicted_ttft_median_ms"] - row["predicted_ttft_ms"]), rel=1e-12)
    assert s["fit_error_before"] > 0.15 and s["fit_error_after"] < 0.02


def test_another_gpu_keeps_the_inputs_and_fails_its_check():
    from tests.helpers import scenario_with

    other = compute(scenario_with(load_scenario(EXAMPLE), gpu="h200")).serving
    assert other.scalars["compute_efficiency_used"] == 0.5 and other.checks["serving_calibration_on_this_gpu"] is False


def largest_batch(r: Replica, target_s: float) -> int:
    """B*, by scanning the roofline directly: the largest B ≤ B_max with ITL(B) = cycle(B)/o within the target."""
    return max(b for b in range(1, int(r.b_max) + 1) if round(float(r.cycle_s(b)) / r.o, 9) <= target_s)


def test_the_fleet_reads_the_fit_on_the_benchmarks_gpu_only():
    """§12.1 in §11: the H100 candidates read η_c, η_m and τ fitted from the H100 logs, the H200 candidates the inputs
    (0.5, 0.7, 0 ms); each row's B* is the roofline's largest batch at its own efficiencies and the generic row's
    known overheads (ITL ≤ 20 ms), so the fitted 4 ms a pass cuts the H100's from 65 to 48 and the cheapest fleet is
    the H200's."""
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
                       serving=SimpleNamespace(tensor_parallel=1, **shape, **GENERIC, **efficiencies),
                       price_per_gpu_hour=2.0)
        return largest_batch(r, 0.020)

    fitted = dict(compute_efficiency=fit["compute_efficiency"], bandwidth_efficiency=fit["bandwidth_efficiency"],
                  overhead_ms=fit["overhead_s"] * 1000)
    assert h100["b_star"] == b_star("h100-sxm", **fitted) == 48
    assert b_star("h100-sxm") == 65 and h200["b_star"] == b_star("h200") == 83
    assert results.fleet.headline["fleet_cheapest_gpu"] == "h200"
    # 3 H100 replicas + a spare at $2.00 (4 GPUs) against 2 H200 replicas + a spare at $2.50 (3 GPUs)
    assert (h100["replicas"], h100["gpus"], h100["cost_per_hour"]) == (3, 4, 8.0)
    assert results.fleet.headline["fleet_cheapest_cost_per_hour"] == 7.5


@pytest.mark.spreadsheet
@pytest.mark.parametrize("application", ["libreoffice", "gnumeric"])
def test_the_sheet_fits_live_and_follows_the_calibration_input(application, request, tmp_path):
    from planner.workbook import build
    from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

    app = request.getfixturevalue(application)
    scenario = load_scenario(EXAMPLE)
    original, off = tmp_path / "fit.xlsx", tmp_path / "off.xlsx"
    results = compute(scenario)
    book = build(results, str(original))
    set_cells(original, off, {"serving_calibration": "none"})
    values = recalculated(app, [original, off], [None, build_in_memory(
        scenario_with(scenario, **{"serving.calibration": "none"}), like=off)])
    assert named(values[0], book, "serving_fit_status") == "fitted"
    assert named(values[0], book, "serving_bandwidth_efficiency_used") == pytest.approx(
        results.serving.fit["bandwidth_efficiency"], rel=1e-9)
    assert named(values[0], book, "serving_fit_error_after") == pytest.approx(
        results.serving.scalars["fit_error_after"], rel=1e-9)
    assert named(values[1], book, "serving_bandwidth_efficiency_used") == 0.7
