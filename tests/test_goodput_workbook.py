"""The Goodput and Requests sheets recalculated in LibreOffice Calc equal the engine in every formula cell (COUNTIFS,
SUMIFS, PERCENTILE over each run's block, the DistServe interpolation); finance's changes to the SLO, the attainment
target, a GPU's price or a server's figures move them exactly as the engine says; the workbook reads back as the
logs it was made from, so `planner verify` passes."""

from __future__ import annotations

import openpyxl
import pytest

from planner import xlsx
from planner.engine import compute
from planner.workbook.goodput import BETWEEN_RUNS
from planner.engine.goodput import NO_RUN_MEETS, NONE_ACCEPTABLE, NONE_COMPLETED
from planner.scenario import load_scenario
from planner.audit import audit
from planner.workbook import build
from tests import test_workbook_structure as structure
from tests.conftest import ROOT
from tests.helpers import build_in_memory, catalog_cells, named, recalculated, scenario_with, set_cells, sheet_cell
from tests.test_goodput import edge_scenario

EXAMPLE = ROOT / "examples" / "goodput-2-benchmark-logs.yaml"


def column_values(values: dict, book, key: str) -> list:
    """A Goodput records column's values in a recalculated workbook, by the sheet's key (the last table with it)."""
    place = book.sheets["Goodput"].places[key]
    return [values.get(("Goodput", f"{xlsx.column_letter(place.col + 1)}{row + 1}"))
            for row in range(place.row, place.last_row + 1)]


@pytest.mark.spreadsheet
def test_edge_cases_recalculate_to_the_engine_and_verify(libreoffice, tmp_path):
    """Failed requests, one-token outputs, a request on the TPOT SLO, a run where everything failed, a benchmark
    where no run meets the target: LibreOffice equals the engine, and the workbook reads back as its logs (what
    `planner verify` checks)."""
    path = tmp_path / "edge.xlsx"
    book = build(compute(load_scenario(edge_scenario(tmp_path))), str(path))
    [output] = recalculated(libreoffice, [path])
    # worked by hand in tests/test_goodput.py: runs at 0.5, 1, 2 req/s, then the llmperf run
    assert column_values(output, book, "acceptable") == [2, 2, 0, 1]
    assert column_values(output, book, "attainment") == [1, 0.5, 0, 0.5]
    assert column_values(output, book, "ttft_p90_ms")[1] == pytest.approx(2100)
    assert column_values(output, book, "tpot_p99_ms")[1] == pytest.approx(99)
    assert column_values(output, book, "ttft_p50_ms")[2] == NONE_COMPLETED
    assert column_values(output, book, "cost_per_acceptable_request")[1:3] == [pytest.approx(3 * 2.5 * 10 / 7200),
                                                                              NONE_ACCEPTABLE]
    # no words in a number column: the goodput blank where none is found, and why in the column after it
    assert column_values(output, book, "goodput") == [pytest.approx(0.6), ""]  # "" : a formula's empty text
    assert column_values(output, book, "goodput_per_gpu") == [pytest.approx(0.3), ""]
    assert column_values(output, book, "goodput_found") == [BETWEEN_RUNS, NO_RUN_MEETS]


@pytest.mark.spreadsheet
def test_finance_changes_the_slo_target_price_and_servers(libreoffice, tmp_path):
    original = tmp_path / "benchmark.xlsx"
    book = build(compute(load_scenario(EXAMPLE)), str(original))
    changes = {
        "tighter SLO": ({"goodput_slo_ttft_ms": 1000, "goodput_slo_tpot_ms": 60},
                        {"goodput.slo.ttft_ms": 1000, "goodput.slo.tpot_ms": 60}),
        "target 95 %": ({"goodput_attainment_target": 0.95}, {"goodput.attainment_target": 0.95}),
        "H100 at 4.00": (catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_per_hour", 4.0)]),
                         {"catalog.gpus.h100-sxm.price_per_hour": 4.0}),
        "B: 700 acceptable": ({"goodput_servers_2_acceptable_per_hour": 700},
                              {"goodput.servers.2.acceptable_per_hour": 700}),
    }
    copies = []
    for i, (cells, _) in enumerate(changes.values()):
        copies.append(tmp_path / f"changed-{i}.xlsx")
        set_cells(original, copies[-1], cells)
    outputs = recalculated(libreoffice, [original] + copies, [None] + [
        build_in_memory(scenario_with(EXAMPLE, **keys), like=copy) for copy, (_, keys) in zip(
            copies, changes.values())])
    by_label = dict(zip(changes, outputs[1:]))

    # the seed's servers, read from the recalculated workbook: B at 2/890, 10.1 % below A's 2/800
    assert named(outputs[0], book, "goodput_cheapest_server") == "B"
    assert named(outputs[0], book, "goodput_cheapest_cost_per_acceptable_request") == pytest.approx(2 / 890)
    assert named(outputs[0], book, "goodput_cheapest_saving_share") == pytest.approx(90 / 890)
    # B with 700 acceptable costs 2/700: A is now the cheaper, by 1 − (2/800)/(2/700) = 12.5 %
    assert named(by_label["B: 700 acceptable"], book, "goodput_cheapest_server") == "A"
    assert named(by_label["B: 700 acceptable"], book, "goodput_cheapest_saving_share") == pytest.approx(0.125)
    # a tighter SLO lowers attainment in every run where some request sat between the old and new limits
    before = column_values(outputs[0], book, "attainment")
    after = column_values(by_label["tighter SLO"], book, "attainment")
    assert all(a <= b for a, b in zip(after, before)) and sum(after) < sum(before)
    goodput_before = column_values(outputs[0], book, "goodput")
    assert column_values(by_label["tighter SLO"], book, "goodput")[0] < goodput_before[0]
    assert column_values(by_label["target 95 %"], book, "goodput")[0] < goodput_before[0]
    # the H100 runs' cost per acceptable request doubles with the price; the H200 runs' does not move
    h100 = [r["benchmark"] != 2 for r in compute(load_scenario(EXAMPLE)).goodput.runs]
    cost_before = column_values(outputs[0], book, "cost_per_acceptable_request")
    cost_after = column_values(by_label["H100 at 4.00"], book, "cost_per_acceptable_request")
    for on_h100, old, new in zip(h100, cost_before, cost_after):
        assert new == pytest.approx(old * 2 if on_h100 else old)


@pytest.mark.spreadsheet
def test_planner_verify_passes_on_the_benchmark_example(libreoffice, tmp_path):
    path = tmp_path / "benchmark.xlsx"
    build(compute(load_scenario(EXAMPLE)), str(path))
    [report] = audit([path], app=libreoffice)
    assert report.ok, report.text()
    assert report.checked > 3000  # the Requests sheet's four formula columns included


@pytest.mark.spreadsheet
def test_a_blank_or_text_benchmark_input_turns_its_check_false(libreoffice, tmp_path):
    """On the edge cases' workbook: the benchmark's inputs are those of any benchmark, its Requests sheet small."""
    original = tmp_path / "benchmark.xlsx"
    book = build(compute(load_scenario(edge_scenario(tmp_path))), str(original))
    cases = [("goodput_benchmarks_1_name", value) for value in (None, 5, "x" * 65)] + [
        ("goodput_benchmarks_1_gpu", value) for value in (None, "h300", 0)] + [
        ("goodput_benchmarks_1_gpus", value) for value in (None, "text", 0)] + [
        ("goodput_benchmarks_1_standby_gpus", value) for value in (None, "text", -1)]
    copies = []
    for i, (name, value) in enumerate(cases):
        copies.append(tmp_path / f"wrong-{i}.xlsx")
        set_cells(original, copies[-1], {name: value})
    checks = book.sheets["Checks"]
    for (name, value), values in zip(cases, libreoffice.recalculate(copies)):
        assert values[("Checks", sheet_cell(checks, f"input_{name}"))] in (False, 0), (name, value)
        assert values[("Checks", sheet_cell(checks, "all"))] in (False, 0), (name, value)
        errors = [v for (sheet, _), v in values.items() if sheet in ("Checks", "Cover") and isinstance(v, str)
                  and v.startswith("#")]
        assert not errors, (name, value, errors)


@pytest.mark.long
def test_the_benchmark_workbook_is_built_to_the_standard(tmp_path):
    """The structure checks of tests/test_workbook_structure.py, on a workbook with a Requests sheet."""
    path = tmp_path / "benchmark.xlsx"
    scenario = load_scenario(EXAMPLE)
    build(compute(scenario), str(path))
    read = xlsx.read(path)
    order = structure.sheets_in_order(scenario)  # and Requests after Goodput: the requests of the benchmark logs
    assert read.sheets == order[:order.index("Goodput") + 1] + ["Requests"] + order[order.index("Goodput") + 1:]
    formulas = read.formulas()
    structure.test_every_formula_has_a_cached_value_and_only_portable_functions(path)
    structure.test_every_identifier_is_a_name_a_cell_or_a_portable_function(path, formulas)
    structure.test_table_formulas_hold_no_method_constant_and_no_address_where_a_name_exists(path, formulas)
    structure.test_units_show_once(path)
    structure.test_whole_things_show_no_decimals_and_operations_no_e_notation(path)
    structure.test_long_tables_repeat_their_headings_on_every_printed_page(path)
    structure.test_every_money_figure_says_its_period(path)
    book = openpyxl.load_workbook(path)
    links = [c.hyperlink.location for row in book["Cover"].iter_rows() for c in row if c.hyperlink]
    assert "'Requests'!A1" in links  # the Cover's contents list the sheet Goodput adds
