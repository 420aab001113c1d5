"""The plan's one total on the calendar (docs/method.md §9 "One total", §13): the worked examples' files reproduce
their printed numbers in the engine and, recalculated in LibreOffice and Gnumeric, on the sheets; one total on the
Cover, the Budget, the Sensitivity, the Scenarios sheet, the HTML and the JSON; standby from the traffic; money "n/a"
with its reason where its premises fail; copies edited (the start date, the fiscal month, the discount rate, the path,
a Catalog tier price) recalculate to the engine of the edited scenario; bad input is refused or reads "n/a" with
the reason, never an error value."""

from __future__ import annotations

import datetime as dt
import json
import re
import zipfile

import pytest

from planner.engine import compute
from planner.engine.plan import months as plan_months
from planner.engine.plan import prices as plan_prices
from planner.engine import shared
from planner.engine.calendar import date_of, serial
from planner.output import results_json
from planner.report import render_html
from planner.scenario import load_scenario
from planner.workbook import build
from planner.workbook.sensitivity import STALE
from tests.conftest import ROOT
from tests.helpers import UNCOMPARED, build_in_memory, named, recalculated, refused, scenario_with, set_cells

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

EXAMPLES = ROOT / "examples"


def printed(value, text: str) -> None:
    """`value` as the worked example prints it: "1,318,370" to the unit, "0.993607" to six decimals."""
    number = float(text.replace(",", ""))
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert abs(value - number) <= 0.5 * 10 ** -decimals * (1 + 1e-9), (value, text)


def example(stem: str):
    return compute(load_scenario(next(EXAMPLES.glob(f"{stem}*.yaml"))))


def plan_rows(results) -> list[dict]:
    return [r for r in results.cost.rows if r["in_plan"]]


# The worked examples' files -------------------------------------------------------------------------------------------
def test_example_1_the_budget_on_calendar_months():
    r = example("tco-1")
    rows, h = plan_rows(r), r.headline
    assert len(rows) == h["tco_months"] == 25
    for month, text in ((0, "1,318,370"), (1, "772,618"), (23, "855,398"), (24, "564,980")):
        printed(rows[month]["total"], text)
    printed(h["plan_total_cost"], "21,198,797")
    assert h["plan_total_cost"] == h["budget_total_cost"] == h["sensitivity_total_cost"] == h["tco_total_cost"]
    assert h["plan_total_cost"] == pytest.approx(h["budget_average_month_total_cost"], rel=1e-12)
    years = {fy["fiscal_year"]: fy["on_demand_total"] for fy in r.cost.fiscal_years}
    for year, text in (("FY2027", "10,534,597"), ("FY2028", "10,099,220"), ("FY2029", "564,980")):
        printed(years[year], text)
    assert date_of(rows[0]["month_start"]) == dt.date(2027, 1, 1)
    assert date_of(h["tco_launch_date"]) == dt.date(2027, 1, 22)  # at 11:24


def test_example_2_rent_against_own():
    r = example("tco-2")
    s, h = r.cost.scalars, r.headline
    printed(s["own_cost_per_gpu_hour"], "1.665924")
    printed(s["own_break_even_utilisation"], "0.833")
    assert s["own_break_even_utilisation_1y"] == s["own_break_even_utilisation_3y"] == plan_prices.NEVER
    assert s["own_gpus"] == 1312 and s["serving_baseline_gpus_suggested"] == 65
    printed(s["own_utilisation"], "0.4382")
    printed(s["tokens_per_s_per_mw"], "1,214,695")
    for key, text in (("owned", "58,495,538"), ("on_demand", "31,270,423"), ("committed", "30,589,639")):
        printed(r.cost.totals[f"{key}_total"], text)
    for key, text in (("owned", "60,163,011"), ("on_demand", "27,820,401"), ("committed", "27,216,956")):
        printed(r.cost.totals[f"{key}_npv"], text)
    assert h["plan_total_cost"] == r.cost.totals["owned_total"]  # the budget's path: owned
    rows = plan_rows(r)
    printed(rows[0]["capex"], "59,040,000")
    printed(rows[-1]["book_value"], "19,215,277")
    assert date_of(rows[-1]["month_start"]) == dt.date(2030, 1, 1)


def test_example_3_a_committed_baseline_and_its_burst():
    """A second of training (a million tokens, the least Hours takes; the example has none): $0.59 in each total,
    and a second of serving moved from January 2027 to January 2028."""
    r = example("tco-3")
    s, totals = r.cost.scalars, r.cost.totals
    training = s["training_tier_cost"]
    assert training < 1 and s["training_days"] * 86400 < 2
    assert s["baseline_hours"] == 20 and s["serving_baseline_gpus_suggested"] == 294
    printed(s["launch_scale"], "377.8321")
    printed(s["price_baseline_effective"], "1.60")
    rows = plan_rows(r)
    january, next_january = rows[0], rows[12]
    printed(january["baseline"] + next_january["baseline"], "349,978")
    printed(january["burst_committed"] + next_january["burst_committed"], "58,975")
    printed(january["on_demand_serving"] + next_january["on_demand_serving"], "494,280")
    printed(totals["committed_total"] - training, "4,815,084")
    printed(totals["on_demand_total"] - training, "5,819,748")
    printed(1 - (totals["committed_total"] - training) / (totals["on_demand_total"] - training), "0.173")


def test_example_4_euros_fiscal_years_escalation_contingency():
    r = example("tco-4")
    h, rows = r.headline, plan_rows(r)
    assert r.scenario.currency == "EUR"
    printed(r.cost.scalars["price_on_demand"], "1.84")
    for month, text in ((0, "1,334,190"), (11, "865,663"), (12, "891,633"), (24, "918,382"), (36, "624,777")):
        printed(rows[month]["total"], text)
    assert [rows[m]["fiscal_year"] for m in (0, 11, 12, 24, 36)] == ["FY2027", "FY2028", "FY2028", "FY2029",
                                                                   "FY2030"]
    years = {fy["fiscal_year"]: fy["on_demand_total"] for fy in r.cost.fiscal_years}
    for year, text in (("FY2027", "5,522,883"), ("FY2028", "10,372,879"), ("FY2029", "10,654,440"),
                       ("FY2030", "6,075,819")):
        printed(years[year], text)
    printed(h["tco_subtotal"], "29,660,018")
    printed(h["plan_total_cost"], "32,626,020")
    printed(h["tco_npv"], "28,978,895")
    bridge = {line["line"]: line["amount"] for line in r.cost.bridge}
    printed(bridge["average_month_total"], "28,768,789")
    printed(bridge["escalation"], "891,229")
    printed(bridge["contingency"], "2,966,002")


def test_example_5_the_gpus_side_by_side_on_example_1():
    rows = {row["gpu"]: row for row in example("tco-1").gpus.rows}
    for gpu, rent, fleet, own in (("a100-80gb", "1,055,208", 2197, "1,379,590"),
                                  ("h100-sxm", "839,877", 1312, "1,596,648"), ("h200", "739,397", 924, "1,211,094"),
                                  ("b200", "792,151", 550, "948,873"), ("mi300x", "533,074", 833, "846,012")):
        printed(rows[gpu]["rent_per_month"], rent)
        printed(rows[gpu]["own_per_month"], own)
        assert rows[gpu]["owned_fleet"] == fleet, gpu
    five = ("a100-80gb", "h100-sxm", "h200", "b200", "mi300x")
    assert min(five, key=lambda gpu: rows[gpu]["rent_per_month"]) == "mi300x"  # of the five worked above
    [cheapest] = [row for row in rows.values() if row["cheapest_rent"]]  # over every Catalog GPU, the added too
    assert all(cheapest["rent_per_month"] <= row["rent_per_month"] for row in rows.values())


def test_example_6_unit_economics():
    u = example("tco-6").cost.unit
    printed(u["requests"], "11,881,510,417")
    printed(u["cost_per_request"], "0.001695")
    printed(u["cost_per_user_per_month"], "0.8399")
    printed(u["revenue"], "31,633,333")
    printed(u["margin"], "11,490,081")
    printed(u["margin_share"], "0.363")
    printed(u["plan_margin"], "10,434,536")
    printed(u["break_even_price_output"], "0.2426")


def test_example_7_training_on_a_commitment_and_on_spot():
    committed = example("tco-7-8b-training-committed").cost
    printed(committed.scalars["training_tier_cost"], "14,352,384")
    printed(committed.scalars["training_used_cost"], "844,436")
    printed(committed.scalars["training_unused_cost"], "13,507,948")
    assert committed.warnings["tco_warn_training_commitment_unused"]
    spot = example("tco-7-8b-training-on-spot").cost.scalars
    printed(spot["training_tier_cost"], "580,550")
    printed(spot["training_days"], "23.6226")


# One total ------------------------------------------------------------------------------------------------------------
def test_one_total_on_the_cover_budget_sensitivity_html_and_json(tmp_path):
    results = example("tco-1")
    total = results.headline["plan_total_cost"]
    path = tmp_path / "plan.xlsx"
    book = build(results, str(path))
    for name in ("plan_total_cost", "budget_total_cost", "sensitivity_total_cost", "tco_total_cost"):
        assert book.formulas[book.names[name]] == total, name
    cover = {cell: value for (sheet, cell), value in book.formulas.items() if sheet == "Cover"}
    labels = [str(value) for cell, value in cover.items() if cell.startswith("A")]
    # the total once; no second total (Crossover's at its assumed MFU, or §9's over the horizon) among the results
    assert sum("The plan's total" in label for label in labels) == 1
    assert not any(re.search(r"\bTotal\b", label) for label in labels)
    # the total twice: as the plan's total, and in its path's column of the paths compared like for like
    assert sum(value == total for value in cover.values()) == 2
    payload = json.loads(results_json(results))
    assert payload["headline"]["plan_total_cost"] == payload["headline"]["budget_total_cost"] == total
    assert payload["tables"]["calendar"]["months"][0]["month_start"] == "2027-01-01"
    assert payload["tables"]["cost"]["bridge"][-1]["amount"] == pytest.approx(total, abs=0.05)
    assert len(payload["tables"]["gpus"]) == 9  # every Catalog GPU with a price
    html = render_html(results, generated="2026-12-02")
    assert f"${total:,.0f}" in html and html.count(f"${total:,.0f}") >= 2


def test_the_cover_shows_the_alternatives_as_differences():
    """Serving at Crossover's assumed 10 % MFU: 4,510.88 GPU-hours a day instead of 13,796.75 at the roofline, so
    730 · (13,796.75 − 4,510.88) · $2.00 less; standby (not in the total) 730 · (24 · 1,312 − 13,796.75) · $2.00 more;
    no growth, no difference."""
    h = example("tco-1").headline
    per_day = 1e11 / 3600 / 2013.35690446135
    assert h["plan_assumed_mfu_difference"] == pytest.approx(-730 * (per_day - 4510.8758836085835) * 2.0, rel=1e-9)
    assert h["plan_standby_difference"] == pytest.approx(730 * (24 * 1312 - per_day) * 2.0, rel=1e-9)
    assert h["plan_growth_difference"] == 0


def test_scenarios_show_the_plans_total_for_each_scenario():
    results = compute(load_scenario(EXAMPLES / "scenarios-1-70b-base-low-high.yaml"))
    for name, named_results in results.named.items():
        h = named_results.headline
        assert h["plan_total_cost"] == h["budget_total_cost"] == h["sensitivity_total_cost"], name
    from planner.workbook.cost import KEY_RESULTS
    assert "plan_total_cost" in [k.name for k in KEY_RESULTS if not k.snapshot]


# Standby from the traffic ---------------------------------------------------------------------------------------------
def test_standby_follows_the_traffic_not_the_cluster():
    """Ten times the traffic: 10 × 13,796.75 GPU-hours a day is 13,114.78 GPUs at a fraction of 1, a fleet of 13,115
    for the peak hour, idle 24 · 13,115 − 137,967.48 a day. Cluster's GPUs and peak move nothing."""
    base = compute(scenario_with()).headline["budget_standby_cost"]
    cluster = compute(scenario_with(**{"cluster.gpus": 4096, "cluster.inference_peak_gpus": 100})).headline
    assert cluster["budget_standby_cost"] == base
    ten = compute(scenario_with(**{"crossover.tokens_per_day": 1e12})).headline["budget_standby_cost"]
    per_day = 1e12 / 3600 / 2013.35690446135
    assert ten == pytest.approx(730 * (24 * 13115 - per_day) * 2.0, rel=1e-9)


def test_the_budget_charts_the_parts_of_the_total(tmp_path):
    """The chart stacks the chosen path's training, other costs, serving and contingency, which add up to each
    month's total; standby is in it only through the on-demand serving it is part of."""
    results = compute(scenario_with(**{"budget.contingency": 0.1, "budget.other_monthly_cost": 1000}))
    for row in plan_rows(results):
        parts = row["chosen_training"] + row["other"] + row["chosen_serving"] + row["chosen_contingency"]
        assert parts == pytest.approx(row["total"], rel=1e-12)
    path = tmp_path / "chart.xlsx"
    build(results, str(path))
    with zipfile.ZipFile(path) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    [budget] = [c for c in charts if "path by month" in c]
    assert "<c:dateAx>" in budget and '<c:plotVisOnly val="1"/>' not in budget  # hidden rows plotted too
    first, last = re.findall(r"Budget!\$[A-Z]+\$(\d+):\$[A-Z]+\$(\d+)", budget)[0]
    assert int(last) - int(first) + 1 == 25 + 24  # every month row, the spare ones too: the chart follows the plan


# Money only where its premises hold -----------------------------------------------------------------------------------
def test_serving_that_does_not_fit_leaves_every_money_figure_na():
    h = compute(scenario_with(**{"serving.users": 100})).headline  # B_max = 52
    for name in ("plan_total_cost", "tco_npv", "tco_on_demand_total_cost", "tco_committed_total_cost",
                 "tco_owned_total_cost", "budget_average_month_total_cost", "sensitivity_total_cost",
                 "plan_growth_difference", "plan_assumed_mfu_difference", "unit_cost_per_request"):
        assert h[name] == shared.NOT_SERVED, name
    assert isinstance(h["tco_training_cost"], float)  # training stays priced


def test_a_plan_longer_than_the_months_reads_na():
    h = compute(scenario_with(**{"hours.gpus": 1})).headline  # 21,990 days of training: 723 months
    assert h["tco_months"] > plan_months.row_count(120, 3653)
    for name in ("plan_total_cost", "tco_npv", "tco_training_cost", "tco_other_cost"):
        assert h[name] == shared.TOO_LONG, name


def test_without_a_server_price_the_owned_path_reads_na_and_cannot_be_the_budget(tmp_path):
    scenario = scenario_with(gpu={"name": "my-gpu", "memory_gb": 80, "peak_tflops": 989, "hbm_tbps": 3.35,
                                  "price_per_hour": 2.0})
    h = compute(scenario).headline
    assert h["tco_owned_total_cost"] == h["own_cost_per_gpu_hour"] == plan_prices.NO_SERVER
    assert isinstance(h["plan_total_cost"], float)
    output, path = refused(tmp_path, "name: x\ngpu: {name: my-gpu, memory_gb: 80, peak_tflops: 989, hbm_tbps: 3.35}\n"
                                     "budget: {path: owned}\n")
    assert f"{path}:3: budget.path" in output and "server_price and server_kw" in output


@pytest.mark.parametrize("budget, fragment", [
    ("{start_date: 2027-13-01}",
     "budget.start_date: value '2027-13-01' is not allowed: not a date: write it as YYYY-MM-DD (2027-01-01)"),
    ("{start_date: next month}", "budget.start_date: value 'next month' is not allowed: not a date"),
    ("{start_date: 1999-12-31}", "budget.start_date: value '1999-12-31' is not allowed: a date from 2000-01-01 to "
                                 "2100-12-31"),
    ("{first_fiscal_month: 13}", "budget.first_fiscal_month: value 13 is not allowed"),
    ("{path: leased}", "budget.path: value 'leased' is not allowed"),
])
def test_bad_calendar_keys_exit_2_naming_key_and_line(tmp_path, budget, fragment):
    output, path = refused(tmp_path, f"name: x\nbudget: {budget}\n")
    assert f"{path}:2: {fragment}" in output


def test_a_rate_of_zero_is_refused(tmp_path):
    output, path = refused(tmp_path, "name: x\ncurrency: EUR\nfx_rate: 0\n")
    assert f"{path}:3: fx_rate" in output


# On the sheets, recalculated ------------------------------------------------------------------------------------------
EDITS = {  # name typed into a copy → (value, the scenario's keys it stands for)
    "start date": ({"budget_start_date": serial(dt.date(2027, 3, 15))}, {"budget.start_date": "2027-03-15"}),
    "fiscal month": ({"budget_first_fiscal_month": 7}, {"budget.first_fiscal_month": 7}),
    "discount rate": ({"budget_discount_rate": 0.10}, {"budget.discount_rate": 0.10}),
    "path": ({"budget_path": "committed"}, {"budget.path": "committed"}),
}


@pytest.mark.spreadsheet
def test_copies_edited_recalculate_to_the_engine_of_the_edited_scenario(spreadsheet, tmp_path):
    """The start date, the fiscal month, the discount rate, the path and the H100's 1-year quote typed into copies of
    example 2's workbook: every formula cell equals the engine of the edited scenario; the snapshot of the plan's
    alternatives reads "n/a" until the planner runs again."""
    source = EXAMPLES / "tco-2-8b-rent-against-own.yaml"
    original = tmp_path / "original.xlsx"
    build(compute(load_scenario(source)), str(original))
    copies, expected = [], []
    from tests.helpers import catalog_cells
    edits = dict(EDITS) | {"quote": (catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_committed_1y", 1.5)]),
                                     {"catalog.gpus.h100-sxm.price_committed_1y": 1.5})}
    for label, (cells, keys) in edits.items():
        copy = tmp_path / f"{label.replace(' ', '-')}.xlsx"
        set_cells(original, copy, cells)
        copies.append(copy)
        expected.append(build_in_memory(scenario_with(EXAMPLES / source.name, **keys), like=copy))
    outputs = recalculated(spreadsheet, copies, expected)
    for (label, _), values, book in zip(edits.items(), outputs, expected):
        if label == "quote":  # the owned path's total does not read the 1-year quote: its snapshot stands
            assert named(values, book, "sensitivity_snapshot_current") in (True, 1), label
            continue
        assert named(values, book, "sensitivity_snapshot_current") in (False, 0), label  # an input on Inputs changed
        assert named(values, book, "plan_growth_difference") == STALE, label
    start = outputs[0]
    assert named(start, expected[0], "tco_start_date") == serial(dt.date(2027, 3, 15))
    assert named(start, expected[0], "plan_total_cost") == pytest.approx(
        compute(scenario_with(EXAMPLES / source.name, **EDITS["start date"][1])).headline["plan_total_cost"],
        rel=1e-9)


@pytest.mark.spreadsheet
def test_bad_input_in_a_cell_reads_na_never_an_error_value(spreadsheet, tmp_path):
    """A start date typed as text, a fiscal month of 13, an FX rate of 0, text in the PUE and the H100's server price
    emptied on the owned path: each check FALSE, the money that reads them "n/a", no error value anywhere."""
    original = tmp_path / "original.xlsx"
    build(compute(load_scenario(EXAMPLES / "tco-2-8b-rent-against-own.yaml")), str(original))
    from tests.helpers import catalog_cells
    cases = {"ok_budget_start_date": {"budget_start_date": "next month"},
             "ok_budget_first_fiscal_month": {"budget_first_fiscal_month": 13},
             "ok_fx_rate": {"fx_rate": 0}, "ok_ownership_pue": {"ownership_pue": "abc"},
             "server": catalog_cells(original, [("catalog_gpu", "h100-sxm", "server_price", None)])}
    copies = []
    for check, cells in cases.items():
        copies.append(tmp_path / f"{check}.xlsx")
        set_cells(original, copies[-1], cells)
    outputs = recalculated(spreadsheet, copies, [UNCOMPARED] * len(copies))
    book = build_in_memory(load_scenario(EXAMPLES / "tco-2-8b-rent-against-own.yaml"))
    errors = re.compile(r"^(#|Err:)")
    for (check, _), values in zip(cases.items(), outputs):
        assert not [(k, v) for k, v in values.items() if isinstance(v, str) and errors.match(v)], check
        if check == "server":
            assert named(values, book, "tco_owned_total_cost") == plan_prices.NO_SERVER
            assert named(values, book, "plan_total_cost") == plan_prices.NO_SERVER  # the owned path is the budget's
            continue
        assert named(values, book, check) in (False, 0), check
        if check == "ok_budget_first_fiscal_month":  # only the fiscal years read it: the totals stand
            assert named(values, book, "fiscal_years_total") == "n/a: see Checks"
            assert isinstance(named(values, book, "tco_owned_total_cost"), float)
            continue
        assert named(values, book, "tco_owned_total_cost") == "n/a: see Checks", check


@pytest.mark.spreadsheet
def test_a_longer_horizon_in_a_copy_moves_the_chart_to_the_plans_months(spreadsheet, tmp_path):
    """730 → 1,460 days of serving typed into a copy: the chart's last month (every row beyond the plan placed at
    it) moves from January 2029 to January 2031."""
    original = tmp_path / "original.xlsx"
    build(compute(load_scenario(EXAMPLES / "tco-1-8b-budget-on-the-calendar.yaml")), str(original))
    copy = tmp_path / "longer.xlsx"
    set_cells(original, copy, {"crossover_horizon_days": 1460})
    expected = build_in_memory(scenario_with(EXAMPLES / "tco-1-8b-budget-on-the-calendar.yaml",
                                             **{"crossover.horizon_days": 1460}), like=copy)
    [values] = recalculated(spreadsheet, [copy], [expected])
    letter = _column_of(expected, "chart_month")
    months = [value for (s, cell), value in values.items() if s == "Budget" and re.match(r"[A-Z]+", cell).group()
              == letter and isinstance(value, (int, float))]
    assert date_of(max(months)) == dt.date(2031, 1, 1)
    assert named(values, expected, "tco_months") == 49


def _column_of(book, key: str) -> str:
    """The Budget column letter of a calendar column, from the chart's categories."""
    sheet = book.sheets["Budget"]
    from xlsxwriter.utility import xl_col_to_name
    return xl_col_to_name(sheet.places[key].col)
