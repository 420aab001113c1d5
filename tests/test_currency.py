"""One currency (issue 43 item 2): every money figure of a non-USD workbook, its HTML and its JSON is in the
reporting currency, converted once where a USD input enters (× fx_rate); the typed USD inputs (Catalog prices,
price_per_gpu_hour, a Goodput server's cost per hour) show "$", never the reporting currency's sign.

Before: tco-4 (EUR at 0.92) carried the USD number under the € format in 395 formula cells on 8 sheets (its
training "€1,055,545" on the Cover and Hours, €971,101 on the Budget), and its 15 typed prices (5 on Inputs, 10 on
Catalog) showed "€"."""

from __future__ import annotations

import math

import pytest
from xlsxwriter.utility import xl_cell_to_rowcol, xl_rowcol_to_cell

from planner.engine import compute
from planner.report import render_html
from planner.scenario import load_scenario
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

EXAMPLES = ROOT / "examples"
EUROS = EXAMPLES / "tco-4-8b-in-euros-fiscal-years.yaml"  # EUR at 0.92
FX = 0.92
# one example per sheet whose money the EUR example leaves out: benchmark runs (Goodput), a named scenario's own
# price (Scenarios), the layout search (Layouts), a fleet (Fleet)
IN_EUROS = {"goodput-2": EXAMPLES / "goodput-2-benchmark-logs.yaml",
            "scenarios-1": EXAMPLES / "scenarios-1-70b-base-low-high.yaml",
            "layouts-1": EXAMPLES / "layouts-1-405b-search.yaml"}
FLEET = EXAMPLES / "fleet-4-8b-office-day.yaml"
FLEET_GPUS = {"fleet.gpus": ["h100-sxm", "h200", "mi300x"]}  # the cheapest on another GPU than the scenario's (mi300x)


def number_format(book, sheet: str, a1: str) -> str:
    """The number format a generated Book wrote a cell with ("" for none)."""
    row, col = xl_cell_to_rowcol(a1)
    cell = book.sheets[sheet].ws.table[row][col]
    return (cell.format.num_format or "") if cell.format is not None else ""


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def unconverted(reporting, usd, fx: float, *, values=None, usd_values=None) -> tuple[int, list]:
    """Every formula cell of `reporting` whose number format carries its currency's sign (€), against the same cell
    of the USD twin: (how many equal fx × the dollar figure, the cells that do not). A figure rounded to the cent
    (ROUND) may be a cent off; any other to a part in a million (an unconverted one is 8 % off)."""
    values = reporting.formulas if values is None else values
    usd_values = usd.formulas if usd_values is None else usd_values
    converted, wrong = 0, []
    for (sheet, a1) in reporting.formulas:
        if "€" not in number_format(reporting, sheet, a1):
            continue
        euros, dollars = values.get((sheet, a1)), usd_values.get((sheet, a1))
        if not (is_number(euros) and is_number(dollars)):
            continue  # a reason in words ("n/a: …"), the same in both
        cent = 0.011 if "ROUND(" in reporting.texts.get((sheet, a1), "") else 1e-12
        if math.isclose(euros, fx * dollars, rel_tol=1e-6, abs_tol=cent):
            converted += 1
        else:
            wrong.append((sheet, a1, euros, dollars))
    return converted, wrong


def test_every_money_cell_of_the_euro_example_is_fx_times_its_dollar_twin():
    """tco-4 at EUR 0.92 against the same plan in USD at 1: every €-formatted number is 0.92 × the dollar figure,
    on every sheet (before: 395 were the dollar figure itself)."""
    euros = build_in_memory(load_scenario(EUROS))
    dollars = build_in_memory(scenario_with(EUROS, currency="USD", fx_rate=1))
    converted, wrong = unconverted(euros, dollars, FX)
    assert wrong == []
    assert converted > 1500
    sheets = {sheet for (sheet, a1) in euros.formulas if "€" in number_format(euros, sheet, a1)}
    assert {"Cover", "Hours", "Crossover", "Cluster", "Goodput", "Serving", "Sensitivity", "Budget", "Cost",
            "GPUs"} <= sheets


@pytest.mark.parametrize("path", IN_EUROS.values(), ids=IN_EUROS.keys())
def test_the_sheets_the_euro_example_leaves_out_convert_too(path):
    euros = build_in_memory(scenario_with(path, currency="EUR", fx_rate=FX))
    converted, wrong = unconverted(euros, build_in_memory(scenario_with(path)), FX)
    assert wrong == [] and converted > 1000


def test_a_fleet_converts_every_gpus_price():
    """The Fleet's candidates on three Catalog GPUs: the chosen GPU's at Inputs' converted price, the others' Catalog
    prices × fx where the sheet reads them."""
    euros = build_in_memory(scenario_with(FLEET, currency="EUR", fx_rate=FX, **FLEET_GPUS))
    converted, wrong = unconverted(euros, build_in_memory(scenario_with(FLEET, **FLEET_GPUS)), FX)
    assert wrong == [] and converted > 1000
    assert any(sheet == "Fleet" and "€" in number_format(euros, sheet, a1) for sheet, a1 in euros.formulas)


def test_the_cover_hours_and_budget_give_one_training_cost_worked_by_hand():
    """The issue's finding: "€1,055,545" on the Cover and Hours, €971,101 on the Budget. Now 527,772.48 allocated
    GPU-hours (8B on 15.6 T tokens at 40 % of the H100's 989 TFLOPS) × $2.00 × 0.92 = €971,101 everywhere, and a
    million output tokens at the users 0.92 × the dollar figure."""
    results = compute(load_scenario(EUROS))
    h = results.headline
    usd = compute(scenario_with(EUROS, currency="USD", fx_rate=1)).headline
    gpu_hours = 6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.40 * 3600)
    assert h["hours_allocated_gpu_hours"] == pytest.approx(gpu_hours, rel=1e-12)
    assert h["hours_cost"] == pytest.approx(gpu_hours * 2.00 * 0.92, rel=1e-12)
    assert round(h["hours_cost"]) == 971_101  # the example's own comment
    assert h["hours_cost"] == pytest.approx(results.budget.scalars["training_cost"], rel=1e-12)
    for name in ("serving_cost_per_million_tokens", "crossover_serving_cost_per_million_tokens",
                 "cluster_net_gain_value", "goodput_cheapest_cost_per_acceptable_request"):  # the Cover's five
        assert h[name] == pytest.approx(FX * usd[name], rel=1e-12), name
    assert h["plan_total_cost"] == pytest.approx(32_626_020.33, abs=0.01)  # unchanged: Budget and Cost were right


def test_typed_dollar_inputs_show_dollars_and_no_input_shows_the_reporting_currency():
    """On the EUR workbook: the price on Inputs, a Goodput server's cost and the Catalog's prices in "$"; the
    converted price below the FX rate in "€"; no input cell (unlocked) anywhere in "€"."""
    book = build_in_memory(load_scenario(EUROS))
    for name in ("price_per_gpu_hour", "goodput_servers_1_cost_per_hour", "goodput_servers_2_cost_per_hour"):
        assert number_format(book, *book.names[name]).startswith('"$"'), name
    assert number_format(book, *book.names["price_per_gpu_hour_converted"]).startswith('"€"')
    assert book.formulas[book.names["price_per_gpu_hour_converted"]] == pytest.approx(2.00 * 0.92, rel=1e-15)
    catalog = 0
    for key in ("price_per_hour", "price_committed_1y", "price_committed_3y", "price_spot", "server_price"):
        sheet, cells = book.names[f"catalog_gpu_{key}"]
        first, last = cells.split(":")
        (r1, c1), (r2, _) = xl_cell_to_rowcol(first), xl_cell_to_rowcol(last)
        for row in range(r1, r2 + 1):
            assert book.sheets[sheet].ws.table[row][c1].format.num_format.startswith('"$"'), (key, row)
            catalog += 1
    assert catalog >= 25
    inputs = [(name, r, c) for name, sheet in book.sheets.items() for r, cells in sheet.ws.table.items()
              for c, cell in cells.items() if getattr(cell, "format", None) is not None and not cell.format.locked]
    assert len(inputs) > 100
    assert [(sheet, r, c) for sheet, r, c in inputs if "€" in number_format(book, sheet, xl_rowcol_to_cell(r, c))] \
        == []


def snapshot_readers(book) -> set:
    """The Sensitivity cells that read only the tornado's snapshot (its totals at ×0.8 and ×1.2 as the engine
    computed them when generated): its swings and the lines sorted by them, which an edit leaves as they were."""
    sheet = book.sheets["Sensitivity"]
    found = set()
    for key in ("swing", "cents", "sorted_total_low", "sorted_total_high", "change_low", "change_high"):
        place = sheet.places[key]
        found |= {("Sensitivity", xl_rowcol_to_cell(row, place.col)) for row in range(place.row, place.last_row + 1)}
    return found


def test_the_html_and_the_json_of_the_euro_example_are_in_euros():
    results = compute(load_scenario(EUROS))
    html = render_html(results, generated="2026-12-07")
    assert "they cost €971,101 at €1.84 per GPU-hour" in html  # the Hours finding
    assert "€1,055,545" not in html
    assert "<td>$2.00</td>" in html.replace('<td class="n">', "<td>")  # the typed price, in dollars
    tables = results.to_json()["tables"]
    assert tables["hours"]["cost"] == pytest.approx(tables["budget"]["training_cost"], rel=1e-12)
    assert tables["goodput"]["servers"][0]["cost_per_hour"] == pytest.approx(2.00 * 0.92, rel=1e-15)


@pytest.mark.spreadsheet
def test_the_euro_workbooks_recalculate_to_the_engine_and_follow_an_edited_rate(spreadsheet, tmp_path):
    """tco-4 and the other sheets' examples in EUR, recalculated: every formula cell equals the engine (so each
    sheet's formula converts where the engine does); a copy of tco-4 at 0.85 instead of 0.92 recalculates to the
    engine at 0.85, and every €-formatted number of it is 0.85/0.92 of the original's, as recalculated."""
    paths = []
    for label, scenario in (("tco-4", load_scenario(EUROS)),
                            *((label, scenario_with(path, currency="EUR", fx_rate=FX))
                              for label, path in IN_EUROS.items())):
        paths.append(tmp_path / f"{label}.xlsx")
        build(compute(scenario), str(paths[-1]))
    copy = tmp_path / "tco-4-at-0.85.xlsx"
    set_cells(paths[0], copy, {"fx_rate": 0.85})
    expected = [None] * len(paths) + [build_in_memory(scenario_with(EUROS, fx_rate=0.85), like=copy)]
    values = recalculated(spreadsheet, paths + [copy], expected)
    original, edited = values[0], values[-1]
    book = build_in_memory(load_scenario(EUROS))
    converted, wrong = unconverted(book, book, 0.85 / FX, values=edited, usd_values=original)
    held = snapshot_readers(book)  # the tornado's totals when generated: they hold, and the sheet says so
    assert [cell for cell in wrong if cell[:2] not in held] == [] and converted > 1500
    assert all(edited[cell] == original[cell] for cell in held)
    assert len(held) > 40
    assert named(original, book, "hours_cost") == pytest.approx(named(original, book, "budget_training_cost"),
                                                                rel=1e-12)
    assert named(edited, book, "price_per_gpu_hour") == 2.00  # the typed price stays in dollars


@pytest.mark.spreadsheet
def test_a_fleet_in_euros_recalculates_to_the_engine(spreadsheet, tmp_path):
    """fleet-4 in EUR, recalculated: the Fleet's prices (Inputs' converted one for the chosen GPU, another GPU's
    Catalog price × fx) and every cost that reads them equal the engine's, which converts at the same places."""
    path = tmp_path / "fleet-4-eur.xlsx"
    results = compute(scenario_with(FLEET, currency="EUR", fx_rate=FX, **FLEET_GPUS))
    assert results.fleet.cheapest["gpu"] == "mi300x"  # the plan serves on another GPU's converted Catalog price
    build(results, str(path))
    recalculated(spreadsheet, [path])
