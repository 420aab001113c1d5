"""METHOD.md §2 against numbers worked by hand."""

from __future__ import annotations

import numpy as np
import pytest

from planner.engine import hours as h
from planner.engine import compute
from tests.helpers import refused, scenario_with

PSI_8B, PSI_70B, PSI_405B = 8_030_261_248, 70_553_706_496, 405_853_388_800
H100_AT_40 = 989e12 * 0.40 * 3600  # operations per H100-hour at 40 % MFU


def test_405b_on_15_6t_tokens_at_40_percent_on_h100():
    table = compute(scenario_with(model="llama-3.1-405b")).hours
    s = table.scalars
    assert s["training_flops"] == pytest.approx(3.798787719168e25)  # 6 × 405,853,388,800 × 15.6e12
    assert s["gpu_hours"] == pytest.approx(26_673_882.98, rel=1e-9)  # ≈ 26.67 M
    assert round(s["gpu_hours"] / 1e6, 2) == 26.67
    assert s["allocated_gpu_hours"] == s["gpu_hours"]  # productive share 1.0
    assert s["cost"] == pytest.approx(2 * 26_673_882.98)  # at 2.00 per GPU-hour
    assert s["days"] == pytest.approx(26_673_882.98 / 1024 / 24)  # 1,085.4 days on the default 1,024 GPUs


@pytest.mark.parametrize("model, params, millions", [
    ("llama-3.1-8b", PSI_8B, 0.5278), ("llama-3.1-70b", PSI_70B, 4.637), ("llama-3.1-405b", PSI_405B, 26.67)])
def test_8b_70b_405b_gpu_hours(model, params, millions):
    s = compute(scenario_with(model=model)).hours.scalars
    assert s["gpu_hours"] == pytest.approx(6 * params * 15.6e12 / H100_AT_40)
    assert s["gpu_hours"] / 1e6 == pytest.approx(millions, rel=1e-3)


def test_recomputation_and_30_percent_mfu_multiply_hours_by_1_78():
    base = compute(scenario_with(model="llama-3.1-405b")).hours.scalars["gpu_hours"]
    slower = compute(scenario_with(**{"model": "llama-3.1-405b", "hours.activation_recompute": True,
                                          "hours.mfu": 0.30})).hours.scalars
    assert slower["ops_per_param_token"] == 8
    assert slower["gpu_hours"] / base == pytest.approx((8 / 6) * (0.40 / 0.30))  # 1.777…
    assert round(slower["gpu_hours"] / 1e6, 2) == 47.42


def test_productive_share_price_and_days():
    s = compute(scenario_with(**{"model": "llama-3.1-405b", "hours.productive_share": 0.8,
                                 "hours.gpus": 16384, "price_per_gpu_hour": 3.0})).hours.scalars
    allocated = 26_673_882.98 / 0.8  # 33.34 M
    assert s["allocated_gpu_hours"] == pytest.approx(allocated)
    assert s["cost"] == pytest.approx(allocated * 3.0)  # ≈ 100.0 M
    assert s["days"] == pytest.approx(allocated / 16384 / 24)  # ≈ 84.8 days


def test_a_different_gpu_scales_by_its_peak_and_costs_its_catalog_price():
    s = compute(scenario_with(**{"model": "llama-3.1-405b", "gpu": "b200"})).hours.scalars
    assert s["gpu_hours"] == pytest.approx(26_673_882.98 * 989 / 2250)
    assert s["cost"] == pytest.approx(26_673_882.98 * 989 / 2250 * 4.50)  # METHOD.md: a B200 at 4.50


def test_allocation_options_larger_finishes_sooner_at_more_gpu_hours():
    run, small, large = compute(scenario_with(model="llama-3.1-405b")).hours.allocations
    c = 6 * PSI_405B * 15.6e12
    assert (run["option"], run["gpus"], run["mfu"]) == ("This run", 1024, 0.40)  # the scenario's own run first
    assert run["days"] == pytest.approx(26_673_882.98 / 1024 / 24)
    assert (small["gpus"], small["mfu"], large["gpus"], large["mfu"]) == (8192, 0.43, 16384, 0.41)
    assert small["gpu_hours"] == pytest.approx(c / (989e12 * 0.43 * 3600))  # 24.81 M
    assert large["gpu_hours"] == pytest.approx(c / (989e12 * 0.41 * 3600))  # 26.02 M
    assert round(small["days"], 1) == 126.2 and round(large["days"], 1) == 66.2
    assert large["cost"] == pytest.approx(2 * c / (989e12 * 0.41 * 3600))


def test_reference_rows_beside_metas_reported_hours():
    rows = compute(scenario_with(**{"gpu": "b200"})).hours.reference  # reference stays on the H100
    ref = {row["model"]: row for row in rows}
    assert list(ref) == ["llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"]
    assert [row["reported_gpu_hours"] for row in rows] == [1.46e6, 7.0e6, 30.84e6]
    assert ref["llama-3.1-405b"]["calculated_gpu_hours"] == pytest.approx(6 * PSI_405B * 15.6e12 / H100_AT_40)
    assert ref["llama-3.1-405b"]["reported_over_calculated"] == pytest.approx(30.84e6 / 26_673_882.98)
    assert round(ref["llama-3.1-8b"]["reported_over_calculated"], 2) == 2.77


def test_functions_take_arrays():
    flops = h.training_flops(PSI_8B, np.array([1e12, 2e12]), np.array([False, True]))
    assert flops == pytest.approx([6 * PSI_8B * 1e12, 8 * PSI_8B * 2e12])
    assert h.gpu_hours(flops, 989, np.array([0.4, 0.5])) == pytest.approx(flops / (989e12 * np.array([.4, .5]) * 3600))


@pytest.mark.parametrize("hours, fragment", [
    ("{mfu: 0}", "hours.mfu: value 0 is not allowed: Input should be greater than or equal to 0.001"),
    ("{mfu: '0.4'}", "hours.mfu: value '0.4' is not allowed: the word layout, or a number (0.10 for 10 %)"),
    ("{mfu: 1.2}", "hours.mfu: value 1.2 is not allowed: Input should be less than or equal to 1"),
    ("{productive_share: 0}", "hours.productive_share: value 0 is not allowed"),
    ("{productive_share: 1.5}", "hours.productive_share: value 1.5 is not allowed"),
    ("{tokens: -15.6e12}", "hours.tokens: value -15600000000000 is not allowed: Input should be greater than or "
                           "equal to 1000000"),
    ("{tokens: 15.6}", "hours.tokens: value 15.6 is not allowed: Input should be a valid integer"),
    ("{allocations: [{gpus: 8192, mfu: 2}]}", "hours.allocations.1.mfu: value 2 is not allowed"),
    ("{allocations: []}", "hours.allocations: List should have at least 1 item"),
])
def test_bad_hours_inputs_exit_2(tmp_path, hours, fragment):
    output, path = refused(tmp_path, f"name: x\nhours: {hours}\n")
    assert f"{path}:2: {fragment}" in output
