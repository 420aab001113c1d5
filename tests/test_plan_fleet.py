"""The Fleet in the plan (docs/method.md §11 "The fleet in the plan", §13.9, §13.15): with a `fleet` section the plan's
demand is the fleet's, its serving is the Fleet's cheapest configuration scaled month by month, priced on that GPU,
and standby is the idle hours of the fleet sized for each month's peak. Numbers worked by hand from §11's worked
examples; the sheets recalculated in LibreOffice and Gnumeric."""

from __future__ import annotations

import pytest

from planner import xlsx
from planner.engine import compute
from planner.scenario import load_scenario
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import named, recalculated, scenario_with

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

EXAMPLES = ROOT / "examples"
OFFICE_DAY = EXAMPLES / "fleet-4-8b-office-day.yaml"  # §11 example 4: H100, t 1, B 52, office-assistant day
FIVE_GPUS = EXAMPLES / "fleet-1-8b-five-gpus.yaml"  # §11 example 1: MI300X t 2, 7 replicas, 16 GPUs, $32.00 an hour
CHAT_70B = EXAMPLES / "fleet-2a-70b-fp8-chat.yaml"  # §11 example 2(a): H200 t 2, 8 replicas, 18 GPUs, $45.00 an hour


def test_the_plans_demand_is_the_fleets():
    """Example 4: 378,720 requests a day (10 req/s over the office day's Σf̂) × 6,144 output tokens."""
    results = compute(load_scenario(OFFICE_DAY))
    assert results.crossover.scalars["tokens_per_day"] == pytest.approx(378_720 * 6_144, rel=1e-12)
    # example 1 has no profile: 86,400 s × 10 req/s × 6,144 tokens
    assert compute(load_scenario(FIVE_GPUS)).crossover.scalars["tokens_per_day"] == 86_400 * 10 * 6_144


def test_serving_is_the_fleet_that_follows_demand_and_standby_the_peak_sized_fleets_idle_hours():
    """Example 4 over the default 730 days at $2.00: following demand is 337 GPU-hours a day, the fleet sized for the
    peak 30 GPUs all day (720 GPU-hours); no growth, on demand."""
    results = compute(scenario_with(OFFICE_DAY, **{"budget.include_standby": True}))
    cost = results.cost.totals
    serving = 730 * 337 * 2.00  # $492,020.00
    standby = 730 * (720 - 337) * 2.00  # $559,180.00
    assert cost["on_demand_serving"] == pytest.approx(serving + standby, rel=1e-12)
    assert results.budget.scalars["serving_cost"] == pytest.approx(serving, rel=1e-12)
    assert results.budget.scalars["standby_cost"] == pytest.approx(standby, rel=1e-12)
    # training spread over calendar days to a billionth of a day: §9's cost to 1e-9
    assert results.headline["plan_total_cost"] == pytest.approx(results.budget.scalars["training_cost"] + serving
                                                                + standby, rel=1e-9)


def test_the_fleet_grows_with_the_traffic_month_by_month():
    """Example 1 at 10 % monthly growth over three average months: 7 replicas of 2 MI300X, 10 % spares.
    Month 1: CEIL9(7·1.1) = 8 replicas → 16 GPUs; month 2: n = MAX(7, CEIL9(7·1.1)) = 8 → CEIL9(8.8) = 9 → 18 GPUs;
    month 3: CEIL9(7·1.21) = 9 → CEIL9(9.9) = 10 → 20 GPUs; 91 days: months of 30.4375, 30.4375 and 30.125 days,
    24 hours each at $2.00."""
    results = compute(scenario_with(FIVE_GPUS, **{"budget.monthly_growth": 0.10, "crossover.horizon_days": 91}))
    months = [row for row in results.budget.rows if row["phase"] == "serving"]
    assert [row["committed_gpus"] for row in months] == [16, 18, 20]
    expected = 24 * 2.00 * (30.4375 * 16 + 30.4375 * 18 + 30.125 * 20)  # $78,594.00
    assert results.budget.scalars["serving_cost"] == pytest.approx(expected, rel=1e-12)


def test_serving_is_priced_on_the_fleets_gpu_and_training_on_the_scenarios():
    """Example 2(a): the fleet serves on H200s at $2.50 (18 GPUs, $45.00 an hour), training stays on the H100 at
    $2.00: 730 days × 24 hours × $45.00 of serving without a profile."""
    results = compute(load_scenario(CHAT_70B))
    scalars, totals = results.cost.scalars, results.cost.totals
    assert (scalars["price_on_demand"], scalars["price_training"]) == (2.50, 2.00)
    assert totals["on_demand_serving"] == pytest.approx(730 * 24 * 45.00, rel=1e-12)
    hours = results.hours.scalars["allocated_gpu_hours"]
    assert totals["on_demand_training"] == pytest.approx(hours * 2.00, rel=1e-9)  # spread over calendar days


def test_no_configuration_meeting_the_slo_leaves_serving_money_na():
    """§13.15: with a fleet the reason is its SLO, not the users (before: "the users do not fit")."""
    results = compute(scenario_with(OFFICE_DAY, **{"goodput.slo.ttft_ms": 10}))
    assert results.fleet.cheapest is None
    for name in ("plan_total_cost", "tco_npv", "budget_serving_cost"):
        assert results.headline[name] == "n/a: no fleet configuration meets the SLO", name
    assert results.cost.totals["on_demand_training"] > 0  # training stays


@pytest.mark.spreadsheet
def test_the_plan_with_a_fleet_recalculates_to_the_engine(spreadsheet, tmp_path):
    """Growth steps fall mid-month (the launch follows 21.5 training days), so the used GPU-hours read the rate
    before the step from the previous row; standby and the burst above a typed baseline read the hours."""
    paths = []
    for i, changes in enumerate([
            {"budget.monthly_growth": 0.05, "budget.include_standby": True, "pricing.serving_baseline_gpus": 12,
             "budget.path": "committed"},
            {"budget.monthly_growth": 0.02, "budget.path": "owned"}]):
        paths.append(tmp_path / f"plan-{i}.xlsx")
        build(compute(scenario_with(OFFICE_DAY if i == 0 else CHAT_70B, **changes)), str(paths[-1]))
    growing, owned = recalculated(spreadsheet, paths)
    assert named(growing, xlsx.read(paths[0]), "fleet_plan_gpu_hours_a_day") == 337
    assert named(owned, xlsx.read(paths[1]), "price_on_demand") == 2.50


def test_the_covers_assumed_mfu_alternative_replaces_the_fleets_sizing():
    """The bridge's 'serving at the assumed MFU': Crossover's GPU-hours a day for the fleet's demand at 10 % MFU
    (2·Ψ·D / (989 TFLOP/s · 0.1 · 3600 s)), over 730 days at $2.00, in place of the fleet's $492,020."""
    results = compute(load_scenario(OFFICE_DAY))
    per_day = results.crossover.scalars["serving_gpu_hours_per_day"]
    assert per_day == pytest.approx(results.crossover.scalars["serving_flops_per_day"] / (989e12 * 0.10 * 3600),
                                    rel=1e-12)
    assert results.headline["plan_assumed_mfu_difference"] == pytest.approx(730 * per_day * 2.00 - 492_020,
                                                                             rel=1e-9)


def test_the_tornados_demand_resizes_the_launch_fleet_by_the_month_rule():
    """Tokens a day ×1.2 on example 4: each hour's replicas n_h → MAX(n_h, CEIL9(1.2·n_h)), then 10 % spares, from
    §11's table: 2 → 3 → 4 GPUs (hours 0-4, 23), 3 → 4 → 5 (5, 21, 22), 5 → 6 → 7 (6, 20), 10 → 12 → 14 (7),
    19 → 23 → 26 (8), 26 → 32 → 36 (9, 13, 15), 27 → 33 → 37 (10, 11, 14), 24 → 29 → 32 (12), 22 → 27 → 30 (16),
    15 → 18 → 20 (17), 9 → 11 → 13 (18), 6 → 8 → 9 (19): 416 GPU-hours a day against 337, over 730 days at $2.00.
    ×0.8 keeps the launch fleet (never below it)."""
    results = compute(load_scenario(OFFICE_DAY))
    base = results.headline["plan_total_cost"]
    [line] = [line for line in results.sensitivity.tornado if line["id"] == "tokens_per_day"]
    assert line["total_high"] == pytest.approx(base + 730 * (416 - 337) * 2.00, rel=1e-12)
    assert line["total_low"] == pytest.approx(base, rel=1e-12)
