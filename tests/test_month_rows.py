"""The Budget's month rows follow the plan (issue 42 item 1): the plan's months and budget.spare_months more, at most
the longest plan's; a workbook holds only those, and an edit past them reads n/a ("run the planner again") with its
check FALSE, in LibreOffice and Gnumeric as in the engine laid on the same rows.

Worked by hand for the default scenario (generated 2026-12-02, so it starts on 2027-01-01): training takes 21.475
days on 1,024 GPUs, serving 730 days from 22 January 2027 to 22 January 2029, so the plan touches 25 calendar
months (January 2027 … January 2029); in average months of 30.4375 days, 1 of training and CEIL(730 / 30.4375) = 24
of serving, 25 in all."""

from __future__ import annotations

import pytest

from planner import xlsx
from planner.engine import compute
from planner.engine.plan import months as plan_months
from planner.engine.shared import MonthRows, TOO_LONG
from planner.roundtrip import workbook_data
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

PLAN_MONTHS = AVERAGE_MONTHS = 25
SPARE = 24  # budget.spare_months's default


def rows_of(results) -> tuple[int, int]:
    return len(results.cost.rows), len(results.budget.rows)


def test_the_rows_are_the_plans_months_and_the_spare_ones():
    assert rows_of(compute(scenario_with())) == (PLAN_MONTHS + SPARE, AVERAGE_MONTHS + SPARE)
    assert rows_of(compute(scenario_with(**{"budget.spare_months": 0}))) == (PLAN_MONTHS, AVERAGE_MONTHS)
    assert rows_of(compute(scenario_with(**{"budget.spare_months": 120}))) == (PLAN_MONTHS + 120, AVERAGE_MONTHS + 120)


def test_a_ten_year_plan_gets_a_row_for_every_month():
    """A horizon of 3,653 days from 22 January 2027 ends on 22 January 2037: 121 calendar months; 1 + CEIL(3,653 /
    30.4375) = 1 + 121 average months."""
    results = compute(scenario_with(**{"crossover.horizon_days": 3653, "budget.spare_months": 0}))
    assert results.headline["tco_months"] == 121 and rows_of(results) == (121, 122)
    assert all(row["in_plan"] for row in results.cost.rows)
    assert [row["phase"] for row in results.budget.rows] == ["training"] + ["serving"] * 121
    assert results.checks["tco_months_within_rows"] and results.checks["budget_run_within_rows"]
    assert not isinstance(results.headline["plan_total_cost"], str)


def test_the_rows_stop_at_the_longest_plans():
    """On 1 GPU training takes 21,990 days, 723 calendar months, and serving 24 more: the rows stop at the 519 the
    longest run and horizon need (3 × 120 training months, 122 of the longest horizon, 36 of a commitment and 1 of a
    mid-month start), the plan's money reads n/a and its check fails."""
    results = compute(scenario_with(**{"hours.gpus": 1}))
    assert plan_months.CALENDAR_ROWS_MAX == 3 * 120 + 122 + 36 + 1 == len(results.cost.rows)
    assert results.headline["tco_months"] == 747 and not results.checks["tco_months_within_rows"]
    assert results.headline["plan_total_cost"] == TOO_LONG


@pytest.mark.parametrize("example", ["default", "memory-1-8b-ddp"])
def test_a_workbook_holds_a_few_thousand_formulas(example, tmp_path):
    """Before: 34,812 formula cells in every workbook, 26,182 of them in hidden month rows past the plan; then, with
    issue 43's helper cells, §14's engines rows and §15.2's API sheet, 8,559. Issue 42's cap, 8,000: 7,987, the long
    sets of checks read as the smaller sets within them (162 fewer), the paths' cash columns that copied their totals
    (98), Crossover's training columns at two steps, not 101 (297), and a fiscal-year row no plan reaches (15)
    (tests/test_lean_workbook.py); then §14.5's layout and §14.7's warnings (+83), less the calendar's tokens a day and
    prompt tokens, which no cell read but the revenue (98): 7,972."""
    path = tmp_path / "book.xlsx"
    from planner.scenario import load_scenario
    book = build(compute(load_scenario(ROOT / "examples" / f"{example}.yaml")), str(path))
    assert len(book.formulas) <= 8000
    assert workbook_data(path).month_rows == MonthRows(calendar=PLAN_MONTHS + SPARE,
                                                               average=AVERAGE_MONTHS + SPARE)


@pytest.mark.spreadsheet
def test_a_ten_year_plan_recalculates_to_the_engine(spreadsheet, tmp_path):
    path = tmp_path / "ten-years.xlsx"
    build(compute(scenario_with(**{"crossover.horizon_days": 3653, "budget.monthly_growth": 0.01})), str(path))
    recalculated(spreadsheet, [path])  # every formula cell equals the engine's, the 145 calendar rows included


@pytest.mark.spreadsheet
def test_a_horizon_typed_past_the_rows_reads_na_and_one_within_them_follows(spreadsheet, tmp_path):
    """A workbook written with no spare rows (25 calendar, 25 average): a horizon of 1,000 days typed into it needs
    37 calendar months (serving to 18 October 2029, the committed baseline's three one-year terms to 22 January
    2030, the plan's end) and 1 + 33 average ones: no error value anywhere, both rows checks
    FALSE, the plan's total, NPV and average-month total n/a saying what to do. The default workbook's 24 spare rows
    hold the same edit: its total is what the planner gives on the edited scenario."""
    tight, roomy = tmp_path / "tight.xlsx", tmp_path / "roomy.xlsx"
    build(compute(scenario_with(**{"budget.spare_months": 0})), str(tight))
    build(compute(scenario_with()), str(roomy))
    longer_tight, longer_roomy = tmp_path / "longer-tight.xlsx", tmp_path / "longer-roomy.xlsx"
    set_cells(tight, longer_tight, {"crossover_horizon_days": 1000})
    set_cells(roomy, longer_roomy, {"crossover_horizon_days": 1000})
    expected = [build_in_memory(scenario_with(**{"crossover.horizon_days": 1000, "budget.spare_months": 0}),
                                like=longer_tight),
                build_in_memory(scenario_with(**{"crossover.horizon_days": 1000}), like=longer_roomy)]
    past, within = recalculated(spreadsheet, [longer_tight, longer_roomy], expected)
    book = xlsx.read(tight)
    assert not any(isinstance(v, str) and v.startswith("#") for v in past.values())
    assert named(past, book, "tco_months") == 37 and named(past, book, "budget_months") == 33
    for check in ("ok_tco_months_within_rows", "ok_budget_run_within_rows"):
        assert named(past, book, check) in (False, 0), check
    for name in ("plan_total_cost", "tco_npv", "budget_average_month_total_cost"):
        assert named(past, book, name) == TOO_LONG, name
    assert named(past, book, "checks_all_pass") in (False, 0)
    fresh = compute(scenario_with(**{"crossover.horizon_days": 1000})).headline["plan_total_cost"]
    assert named(within, xlsx.read(roomy), "plan_total_cost") == pytest.approx(fresh, rel=1e-9)
