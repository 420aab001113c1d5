"""The workbook as finance receives it (README.md, "What you get"), read back without recalculation: names, inputs,
formulas, units, printing, charts. What a table adds (its sheet, inputs, named results, charts) is found through
the registry, so a new table edits nothing here."""

from __future__ import annotations

import functools
import json
import re
import zipfile
from pathlib import Path

import openpyxl
import pytest
from openpyxl.formula.tokenizer import Tokenizer
from pydantic import BaseModel

from planner import xlsx
from planner.engine import compute
from planner.scenario import parse_scenario
from planner.scenario import General
from planner.tables import present
from planner.workbook import build
from tests.conftest import ROOT, every_example
from tests.helpers import address, cell_of, scenario_with

# Functions that Excel 2007 and LibreOffice Calc both know, without the _xlfn. prefix.
PORTABLE_FUNCTIONS = {"ABS", "AND", "AVERAGE", "CEILING", "COUNT", "COUNTIF", "COUNTIFS", "EXACT", "EXP", "HYPERLINK",
                      "EOMONTH", "EDATE", "YEAR", "MONTH", "SUMIF",  # Excel 2007's own (the Analysis ToolPak's before)
                      "IF", "IFERROR", "INDEX", "INT", "ISBLANK", "ISERROR", "ISLOGICAL", "ISNUMBER", "ISTEXT", "LARGE",
                      "LEN", "LN", "MATCH", "MAX", "MIN",
                      "MOD", "NOT", "OR", "PERCENTILE", "ROUND", "ROUNDUP", "SMALL", "SUM", "SUMIFS", "SUMPRODUCT",
                      "TEXT", "SUBSTITUTE",  # a path id in words on the Cover (Excel 2000, Calc, Gnumeric)
                      "SQRT", "SUMSQ",  # the calibration fit: Excel 2000 functions
                      "ROWS"}  # the month rows a workbook holds (Excel 2000, Calc, Gnumeric)
CELL = re.compile(r"^(?:'?[^'!]+'?!)?\$?[A-Z]{1,3}\$?\d+(?::\$?[A-Z]{1,3}\$?\d+)?$")
UNIT_CONVERSIONS = {"1", "1024", "1E+09", "1E+12", "0", "100",  # METHOD.md: these may stay literal (24, 3,600 and
                    "1000",  # a million are named since issue 43: hours_per_day, seconds_per_hour, per_million)
                    "2", "0.5", "0.9", "0.99"}  # SMALL(…,2): the second cheapest; PERCENTILE levels p50, p90, p99


SCENARIO = {"memory.strategy": "ddp"}  # the session's workbook: the default scenario with DDP


@pytest.fixture(scope="session")
def results():
    return compute(scenario_with(**SCENARIO))


@pytest.fixture(scope="session")
def workbook(tmp_path_factory, results):
    path = tmp_path_factory.mktemp("wb") / "default.xlsx"
    build(results, str(path))
    return path


def declared_names(section, prefix: tuple) -> list[str]:
    """The defined names of a section's declared inputs (those with a label): the key path joined by "_", list
    items numbered from 1 (hours_allocations_2_mfu)."""
    names = []
    for key, info in type(section).model_fields.items():
        value = getattr(section, key)
        if isinstance(value, list):
            names += [name for i, item in enumerate(value, 1) if isinstance(item, BaseModel)
                      for name in declared_names(item, prefix + (key, str(i)))]
            if "label" in (info.json_schema_extra or {}):  # a list of ids or words: a cell each (api.offers)
                names += ["_".join(prefix + (key, str(i))) for i, item in enumerate(value, 1)
                          if not isinstance(item, BaseModel)]
        elif isinstance(value, BaseModel):
            names += declared_names(value, prefix + (key,))
        elif "label" in (info.json_schema_extra or {}):
            names.append("_".join(prefix + (key,)))
    return names


def input_names(scenario) -> list[str]:
    """Every input the scenario's workbook has on Inputs: the general ones (model, gpu, training_precision), then
    each of its tables' sections' (the naming rule of docs/scenario.md: memory_gpus, goodput_slo_ttft_ms, …)."""
    general = [key for key, info in General.model_fields.items() if "label" in (info.json_schema_extra or {})]
    return general + [name for table in present(scenario) for key in table.inputs.SECTIONS
                      for name in declared_names(getattr(scenario, key), (key,))]


@functools.cache
def opened(path: Path, data_only: bool = False) -> openpyxl.Workbook:
    """The session's workbook as openpyxl reads it (formulas, or with data_only the cached values), loaded once per
    worker: the tests only read it."""
    return openpyxl.load_workbook(path, data_only=data_only)


@pytest.fixture(scope="session")
def formulas(workbook) -> dict[tuple[str, str], str]:
    return xlsx.read(workbook).formulas()


FINANCE = ["Budget", "Cost", "GPUs", "API"]


def sheets_in_order(scenario) -> list[str]:
    """The finance pages first (issue 43: Cover, Budget, Cost, GPUs; the API sheet when it is there), then Inputs, a sheet per other table the
    scenario has in the registry's order, then Catalog, Checks, Method."""
    sheets = [t.sheet.SHEET for t in present(scenario)]
    tables = [sheet for sheet in sheets if sheet not in FINANCE]
    return ["Cover", *[sheet for sheet in FINANCE if sheet in sheets], "Inputs", *tables, "Catalog", "Checks",
            "Method"]


def test_sheets_in_order(workbook, results):
    assert opened(workbook).sheetnames == sheets_in_order(results.scenario)
    assert opened(workbook).sheetnames[:7] == ["Cover", "Budget", "Cost", "GPUs", "API", "Inputs", "Memory"]
    assert "Layouts" not in opened(workbook).sheetnames  # a table the scenario leaves out (no search:)


MAY_BE_BLANK = {"serving_speculative_tokens", "serving_speculative_acceptance", "serving_speculative_accept_length",
                "serving_speculative_draft_model", "budget_start_date", "pricing_serving_baseline_gpus",
                "ownership_gpus", "unit_active_users", "unit_price_input_per_million",
                "unit_price_output_per_million", "serving_compute_efficiency", "serving_bandwidth_efficiency",
                "serving_overhead_fixed_ms", "serving_overhead_per_layer_ms", "serving_overhead_per_sequence_ms",
                "serving_overhead_per_moe_layer_ms", "serving_dispatch_ms_per_layer",
                "serving_prefill_token_budget"}  # declared blank=True: their method's own value, or none
TYPED = {"hours_tokens": "hours_tokens_trillions"}  # typed in the unit shown; the named value is a formula of it


def test_inputs_are_named_styled_unlocked_and_validated_without_blanks(workbook, results):
    book = opened(workbook)
    rules = {str(ref): dv for dv in book["Inputs"].data_validations.dataValidation for ref in dv.sqref.ranges}
    names = input_names(results.scenario)
    assert {"model", "gpu", "training_precision", "memory_gpus", "hours_allocations_2_mfu", "goodput_slo_ttft_ms",
                                 "goodput_servers_2_acceptable_per_hour", "budget_include_standby"} <= set(names)
    typed = [TYPED.get(name, name) for name in names]
    for name in typed:
        cell = cell_of(book, name)
        assert cell.parent.title == "Inputs" and cell.data_type != "f", name
        assert (cell.font.color.rgb, cell.fill.fgColor.rgb, cell.protection.locked) == ("FF0000FF", "FFFFF2CC",
                                                                                         False), name
        # a blank is refused where typed, but where the input may be left out (its declaration says blank)
        assert rules[cell.coordinate].allow_blank is not True or name in MAY_BE_BLANK, name
    # every blue cell on Inputs is one of them: nothing is an input without a name
    blue = {c.coordinate for row in book["Inputs"].iter_rows() for c in row
            if c.fill.fgColor.rgb == "FFFFF2CC" and c.protection.locked is False}
    assert blue == {cell_of(book, name).coordinate for name in typed}
    # what you type is what you see: 15.6 T tokens typed as 15.6, the named count a formula of it
    assert cell_of(book, "hours_tokens_trillions").value == 15.6
    assert cell_of(book, "hours_tokens").value == \
        '=IF(ok_hours_tokens,ROUND(hours_tokens_trillions*1E+12,0),"n/a: see Checks")'
    assert cell_of(opened(workbook, data_only=True), "hours_tokens").value == 15_600_000_000_000
    assert cell_of(book, "memory_strategy").value == "ddp"
    assert cell_of(book, "memory_activation_checkpointing").value is False


def test_limits_are_the_scenario_models(workbook):
    """The data validation of an input is the scenario model's declared range (memory.gpus: 1 … 1e9)."""
    book = opened(workbook)
    rules = {str(ref): dv for dv in book["Inputs"].data_validations.dataValidation for ref in dv.sqref.ranges}
    gpus = rules[cell_of(book, "memory_gpus").coordinate]
    assert (gpus.type, gpus.formula1, gpus.formula2) == ("whole", "1", "1000000000")
    mfu = rules[cell_of(book, "hours_mfu").coordinate]
    # a share; the word layout (docs/method.md §10) only where the workbook has a layout search (this one has none,
    # issue 32 finding 4): a range, not a dropdown of a word that breaks it
    assert (mfu.type, mfu.formula1, mfu.formula2) == ("decimal", "0.001", "1")


def test_dropdowns_read_the_catalog_and_its_empty_rows(workbook):
    book = opened(workbook)
    lists = {str(dv.sqref): dv.formula1 for dv in book["Inputs"].data_validations.dataValidation if dv.type == "list"}
    assert lists[cell_of(book, "model").coordinate] == "catalog_model_ids"
    assert lists[cell_of(book, "gpu").coordinate] == "catalog_gpu_ids"
    assert lists[cell_of(book, "memory_strategy").coordinate] == "catalog_strategy_ids"
    assert lists[cell_of(book, "memory_activation_checkpointing").coordinate] == '"TRUE,FALSE"'
    assert lists[cell_of(book, "crossover_tokens_per_day").coordinate] == "catalog_traffic_preset_ids"
    sheet, ref = address(book, "catalog_gpu_ids")
    ids = [row[0].value for row in book[sheet][ref]]
    assert ids == ["a100-80gb", "h100-sxm", "h200", "b200", "mi300x", "gb200", "b300", "mi325x",
                   "mi355x"] + [None] * 10  # ten empty rows to add your own
    sheet, ref = address(book, "catalog_gpu_price_per_hour")
    assert [row[0].value for row in book[sheet][ref]][:5] == [1.5, 2, 2.5, 4.5, 2]


def test_a_catalog_columns_rule_covers_each_of_its_rows_once(workbook):
    """A Catalog column's input cells (its entries and empty rows) share one rule written once over their rows:
    the GPUs' prices, B200's row and an empty row alike allow a number from 0 (a negative price is refused)."""
    book = opened(workbook)
    sheet, ref = address(book, "catalog_gpu_price_per_hour")
    cells = [row[0].coordinate for row in book[sheet][ref]]
    rules = [dv for dv in book[sheet].data_validations.dataValidation
             if any(cell in dv.sqref for cell in cells)]
    assert [str(dv.sqref) for dv in rules] == [f"{cells[0]}:{cells[-1]}"]  # one rule, over all 19 rows
    assert (rules[0].type, rules[0].operator, float(rules[0].formula1)) == ("decimal", None, 0.0)  # between 0 and …
    assert len(book[sheet].data_validations.dataValidation) < 150  # was one per cell: 1,415


def test_every_sheet_is_protected_and_prints_landscape_at_a_readable_size_with_live_titles(workbook):
    """One page wide where that prints at 60 % or more; else at 60 % or more in blocks of columns, column A (the
    row labels) repeated on each."""
    book = opened(workbook)
    blocks = []
    for ws in book.worksheets:
        assert ws.protection.sheet, ws.title
        assert ws.page_setup.orientation == "landscape"
        if ws.sheet_properties.pageSetUpPr.fitToPage:
            assert (ws.page_setup.fitToWidth or 1) == 1 and ws.page_setup.fitToHeight == 0  # 1 is the default
        else:
            assert ws.page_setup.scale >= 60, ws.title
            assert ws.print_title_cols == "$A:$A", ws.title
            blocks.append(ws.title)
        assert "default" in ws.oddHeader.left.text
        assert ws.print_title_rows.startswith("$1:")  # the title and the scenario line repeat on every page
        assert ws["A2"].data_type == "f"
    assert "Crossover" in blocks and "Inputs" not in blocks  # its columns, the table's; a key-value sheet


def test_headline_names_point_at_formulas(workbook, results):
    formulas_book = opened(workbook)
    cached = opened(workbook, data_only=True)
    assert {"memory_training_total_gb", "hours_cost", "serving_kv_bytes_per_token", "budget_total_cost"} <= \
        set(results.headline)
    for name in results.headline:  # every table's named results
        assert cell_of(formulas_book, name).data_type == "f", name
    # DDP on 8 GPUs, by hand: 16Ψ + 34·8192·4096·32 bytes
    assert cell_of(cached, "memory_training_total_gb").value == pytest.approx(164.991401984)
    assert cell_of(cached, "memory_training_fits").value is False


def test_every_formula_has_a_cached_value_and_only_portable_functions(workbook):
    banned = re.compile(r"\b(OFFSET|INDIRECT|NOW|TODAY|RAND|RANDBETWEEN|LET|LAMBDA|XLOOKUP|FILTER|SEQUENCE)\(|_xlfn")
    count = 0
    with zipfile.ZipFile(workbook) as z:
        for name in [n for n in z.namelist() if n.startswith("xl/worksheets/sheet")]:
            for cell in re.findall(r"<c [^>]*>.*?</c>", z.read(name).decode()):
                if "<f>" in cell:
                    count += 1
                    assert re.search(r"<v>[^<]*</v>", cell), cell
                    assert not banned.search(cell), cell
    assert count > 150


def test_every_identifier_is_a_name_a_cell_or_a_portable_function(workbook, formulas):
    """A typo in a formula would reach finance as #NAME?: every word must be a defined name, a cell reference or a
    function both Excel and LibreOffice know."""
    names = set(xlsx.read(workbook, cells=False).names)
    for where, formula in formulas.items():
        for token in Tokenizer(formula).items:
            if token.type == "FUNC" and token.subtype == "OPEN":
                assert token.value[:-1].lstrip(":") in PORTABLE_FUNCTIONS, (where, formula)  # :INDEX( in A:B
            elif token.type == "OPERAND" and token.subtype == "RANGE":
                assert token.value in names or CELL.match(token.value) or token.value in ("TRUE", "FALSE"), \
                    (where, token.value, formula)


def test_table_formulas_hold_no_method_constant_and_no_address_where_a_name_exists(workbook, formulas):
    book = xlsx.read(workbook, cells=False)
    named = {}
    for name in book.names:
        for sheet, ref in book.destinations(name):
            if ":" not in ref:
                named[(sheet, ref)] = name
    for (sheet, cell), formula in formulas.items():
        if sheet not in ("Memory", "Hours", "Crossover", "Goodput", "Requests"):
            continue
        for token in Tokenizer(formula).items:
            if token.type == "OPERAND" and token.subtype == "NUMBER":
                assert token.value in UNIT_CONVERSIONS, (sheet, cell, formula)
            # a mixed reference (F$24, $C10) is a row copied across or a column copied down, on purpose
            if token.type == "OPERAND" and token.subtype == "RANGE" and CELL.match(token.value) \
                    and token.value.count("$") != 1:
                target = (sheet, token.value.replace("$", ""))
                assert target not in named, f"{sheet}!{cell} reads {token.value}: use {named[target]}: {formula}"


NAMED_UNITS = {"24": "hours_per_day", "12": "months_per_year", "3600": "seconds_per_hour", "1E+06": "per_million"}
CHECKED_EXAMPLES = ("default", "fleet-1-8b-five-gpus", "tco-4-8b-in-euros-fiscal-years", "goodput-2-benchmark-logs",
                    "layouts-1-405b-search", "scenarios-1-70b-base-low-high")


def typed_units(formula: str) -> list[str]:
    """The hours a day, months a year, seconds an hour and millions typed in a formula (NAMED_UNITS), other than
    an INDEX's row or column (the 12th or 24th hour of a profile) or a limit an input is checked against (<= 1e6)."""
    found, calls, previous = [], [], None
    for token in Tokenizer(formula).items:
        if token.type == "FUNC":
            calls.append(token.value) if token.subtype == "OPEN" else calls.pop()
        elif token.type == "OPERAND" and token.subtype == "NUMBER" and token.value in NAMED_UNITS:
            in_index = calls and calls[-1].lstrip(":") == "INDEX(" and previous is not None and previous.type == "SEP"
            limit = previous is not None and previous.value in ("<=", ">=", "<", ">")
            if not (in_index or limit):
                found.append(token.value)
        if token.type != "WHITE-SPACE":
            previous = token
    return found


def test_typed_units_are_told_apart():
    assert typed_units("=a/24+b*3600") == ["24", "3600"]
    assert typed_units("=INDEX(f,24,MATCH(p,ids,0))+AND(x<=1E+06)") == []
    assert typed_units("=(1+r)^(-k/12)") == ["12"]


@pytest.mark.parametrize("stem", CHECKED_EXAMPLES)
def test_no_formula_types_the_hours_a_day_months_a_year_seconds_an_hour_or_a_million(example_files, stem):
    """Issue 43 item 4: 24, 12, 3,600 and 1E+06 are named (hours_per_day, months_per_year, seconds_per_hour,
    per_million on the Method sheet), not typed, in every formula of every sheet (before: in 898 of the default's
    6,773 formulas)."""
    book = xlsx.read(example_files(ROOT / "examples" / f"{stem}.yaml")["xlsx"])
    typed = {where: formula for where, formula in book.formulas().items() if typed_units(formula)}
    assert not typed, list(typed.items())[:5]
    names = set(book.names)
    assert set(NAMED_UNITS.values()) <= names


LONGEST_FORMULA = 1000  # characters (issue 43 item 4: helper cells, not one formula of thousands of characters)


@pytest.mark.parametrize("path", every_example())
def test_no_formula_runs_over_1000_characters(example_files, path):
    """Every formula of every example stays under 1,000 characters: the sets of checks that guard results (a long
    one the AND of the smaller sets within it, or of parts of at most 900 characters), the sheets' banners, Catalog's Valid rules, the
    serving roofline (each pass's compute, memory and all-reduce time in helper cells the times read, the queue's
    Erlang C terms beside the misses), and with named scenarios each input's check in each column and each
    column's comparison with its snapshot (in helper cells and parts). Before: the default held 171 formulas over
    it (GPUs 38, Serving 108, Sensitivity 25, up to 5,366 characters), fleet-1 720 more on Fleet (up to 6,072), a
    calibrated example 40 more on Serving, scenarios-1 31 on Scenarios and Checks (up to 3,003)."""
    book = xlsx.read(example_files(path)["xlsx"])
    long = {where: len(formula) for where, formula in book.formulas().items() if len(formula) > LONGEST_FORMULA}
    assert not long, sorted(long.items())[:5]


def test_the_rooflines_helper_cells_are_grouped_out_of_sight(example_files):
    """The passes the serving times read (docs/method.md §6): on Serving, GPUs and Fleet in hidden columns
    grouped under a + (each headed in words with its unit), on Serving's blocks in hidden grouped rows; TPOT at the
    users reads its helper rows instead of writing the passes out (before: 2,375 characters)."""
    book = openpyxl.load_workbook(example_files(ROOT / "examples" / "fleet-1-8b-five-gpus.yaml")["xlsx"])
    for name, heading in (("Serving", "Prefill of the B prompts: memory time (ms)"),
                          ("GPUs", "The verify pass (the decode step without a draft): memory time at B_max (ms)"),
                          ("Fleet", "One draft pass: the pass, MAX(compute, memory) + all-reduces + τ at B* + 1 (ms)")):
        sheet = book[name]
        found = [cell for row in sheet.iter_rows() for cell in row if cell.value == heading]
        assert found, (name, heading)
        col = found[0].column  # openpyxl keys a run of like columns by its first
        dimension = next(d for d in sheet.column_dimensions.values() if d.min <= col <= d.max)
        assert dimension.hidden and dimension.outline_level == 1, (name, heading)
    serving = book["Serving"]
    labels = {serving.cell(r, 1).value: r for r in range(1, serving.max_row + 1)}
    helper = labels["The verify pass (the decode step without a draft): the pass, MAX(compute, memory) + "
                    "all-reduces + τ at this B"]
    assert serving.row_dimensions[helper].hidden and serving.row_dimensions[helper].outline_level == 1
    tpot = serving.cell(labels["Time per output token TPOT(B)"], 2).value
    assert f"B{helper}" in tpot.replace("$", "") and len(tpot) < 400, tpot


def test_a_per_strategy_row_is_one_formula_copied_across(formulas):
    """Memory's per-strategy rows read the same in every column: only relative column letters change."""
    rows: dict[int, dict[str, str]] = {}
    for (sheet, cell), formula in formulas.items():
        column, row = re.match(r"([A-Z]+)(\d+)", cell).groups()
        if sheet == "Memory" and column in "BCDEF":
            rows.setdefault(int(row), {})[column] = formula
    per_strategy = [r for r, cells in rows.items() if set(cells) == set("BCDEF")]
    assert len(per_strategy) >= 12
    for r in per_strategy:
        shapes = {re.sub(r"(?<![$A-Z])" + column + r"(?=\$)", "@", formula)
                  for column, formula in rows[r].items()}
        assert len(shapes) == 1, (r, rows[r])


def test_units_show_once(workbook):
    """Where a row has a Unit column, its number format carries no unit (the currency symbol aside)."""
    book = opened(workbook)
    for ws in book.worksheets:
        if ws.title == "Cover":
            continue
        for row in ws.iter_rows():
            for cell in row:
                if cell.data_type == "f" and cell.number_format:
                    quoted = set(re.findall(r'"([^"]*)"', cell.number_format)) - {"$", "TRUE", "FALSE", " T", " B"}
                    # " T", " B": a scale (trillions, billions) in a column of values of several sizes, not a unit
                    assert not quoted, (ws.title, cell.coordinate, cell.number_format)


# Pages that print whole ------------------------------------------------------------------------------------------
# Sheets whose tables run onto more pages than one (or may: Inputs grows with the allocation options and servers),
# and a heading the repeated row must hold: a printed page of them never shows numbers without their headings.
LONG_TABLES = {"Inputs": "When generated", "Memory": "zero3", "Crossover": "Serving operations (ZFLOP)",
               "Cluster": "Demand D_h (GPUs)", "Checks": "Result", "Requests": "TTFT (ms)"}


def test_long_tables_repeat_their_headings_on_every_printed_page(workbook):
    """A sheet has one range of print titles, from its first row: the sheet's column headings sit right under its
    titles, so the titles and the headings repeat on every page."""
    book = opened(workbook)
    for title, heading in LONG_TABLES.items():
        if title not in book.sheetnames:
            continue
        ws = book[title]
        last = int(ws.print_title_rows.split(":")[1].lstrip("$"))
        assert last > 2, title
        assert heading in [c.value for c in ws[last]], (title, ws.print_title_rows)
        assert all(c.font.b for c in ws[last] if c.value), title  # the heading row itself, in bold


def test_page_breaks_keep_a_table_that_fits_on_one_page():
    """A section that does not fit on the rest of a page starts the next one; one longer than a page flows, and
    does not start in a page's last quarter; a chart never splits."""
    from planner.workbook.pages import page_breaks, page_capacity

    capacity = page_capacity(0.8, 39)
    rows = int(capacity // 15)
    assert page_breaks([2, 2 + rows - 5], [], {}, 2 + rows + 10, capacity=capacity) == [2 + rows - 5]  # kept whole
    assert page_breaks([2, 8], [], {}, 8 + rows - 2, capacity=capacity) == [2 + rows]  # it would leave a page under
    # a third full: it flows on from its page
    start = 2 + rows - 3  # a long section does not start at a page's end; it flows, a break closing each page
    assert page_breaks([2, start], [], {}, 2 + 3 * rows, capacity=capacity) == [start, start + rows, start + 2 * rows]
    assert page_breaks([2], [(2 + rows - 5, 20)], {}, 2 + rows + 20, capacity=capacity) == [2 + rows - 5]  # a chart
    hidden = {r: 0 for r in range(3, 3 + rows)}  # rows grouped out of sight take no room
    assert page_breaks([2, 3 + rows], [], hidden, 3 + rows + 10, capacity=capacity) == []


def test_whole_things_show_no_decimals_and_operations_no_e_notation(workbook):
    """GPUs and GPU-hours without decimals, wherever their unit is said (the Unit column, or the number format on
    the Cover), milliseconds with one at most (a serving TPOT of 7.3 ms keeps its tenth; 2,000.00 ms never);
    operations in ZFLOP, never 7.52E+23."""
    from planner.units import KINDS

    for kind in ("count", "gpus", "hours", "ms", "params"):
        assert "." not in KINDS[kind].format, kind
    book = opened(workbook)
    whole = ("GPUs", "GPU-hours", "GPU-hours a day", "ms")  # ms: at most a tenth
    for ws in book.worksheets:
        for row in ws.iter_rows():
            units = {c.value for c in row if isinstance(c.value, str)}
            for cell in row:
                if cell.data_type != "f" or cell.number_format in ("General", None):
                    continue
                assert "E+" not in cell.number_format, (ws.title, cell.coordinate, cell.number_format)
                said = units & set(whole) or {u for u in whole if f'" {u}"' in cell.number_format}
                if said and ws.title != "Catalog":
                    decimals = ".00" if said == {"ms"} else ".0"
                    assert decimals not in cell.number_format, (ws.title, cell.coordinate, cell.number_format, said)


PERIODS = re.compile(r"\bper\b|\ba day\b|\bonce\b|\bover\b|\bto the day\b|\bhour\b|\bduration\b")


def test_every_money_figure_says_its_period(workbook):
    """A sum of money says what it is for: a day, an hour, once, the horizon, a request (its label or its unit)."""
    from planner.tables import TABLES
    from planner.units import MONEY_DECIMALS
    from planner.workbook.kit import Column, KeyResult, Row

    for table in TABLES:
        for spec in vars(table.sheet.module).values():
            for item in spec if isinstance(spec, list) else []:
                if isinstance(item, (Row, Column, KeyResult)) and item.kind in MONEY_DECIMALS:
                    text = getattr(item, "label", getattr(item, "header", "")) + " " + (
                        item.unit or "" if not isinstance(item, Column) else "")
                    assert PERIODS.search(text), (table.key, item.key if hasattr(item, "key") else item.name, text)
    cached = opened(workbook, data_only=True)["Cover"]
    for row in cached.iter_rows():
        if any(c.number_format.startswith('"$"') for c in row[1:]):
            assert PERIODS.search(str(row[0].value)), row[0].value


def test_the_cover_is_plain_about_its_master_check_and_its_legend(workbook):
    book = opened(workbook)
    cover = book["Cover"]
    texts = [str(c.value) for row in cover.iter_rows() for c in row if c.value]
    assert not any("master check below" in t for t in texts)
    sample = next(c for row in cover.iter_rows() for c in row if c.value == "1,024")  # the legend's sample input
    assert sample.fill.fgColor.rgb == "FFFFF2CC" and sample.protection.locked is not False


def test_charts_read_formula_cells_and_value_axes_start_at_zero(workbook, results):
    with zipfile.ZipFile(workbook) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    charted = {sheet.title for sheet in opened(workbook).worksheets if sheet._charts}
    # each table's sheet has its chart, and the Cover its GPUs by month
    assert charted == {t.sheet.SHEET for t in present(results.scenario)} | {"Cover"}
    memory = next(chart for chart in charts if "Memory!$B$" in chart)  # the finance sheets' charts come first
    assert "<c:barChart>" in memory and "<c:lineChart>" in memory  # stacked columns and the capacity line
    for chart in charts:
        if '<c:barDir val="bar"/>' in chart:  # the tornado: changes either side of the total, below zero too
            continue
        for axis in re.findall(r"<c:valAx>.*?</c:valAx>", chart, re.S):  # a log axis (Serving's B) starts at 1
            if '<c:delete val="1"/>' not in axis:  # a hidden axis a second value axis brings
                assert '<c:min val="0"/>' in axis or ('<c:logBase' in axis and '<c:min val="1"/>' in axis)


def test_cover_names_what_its_results_are_for_and_has_the_contents(workbook):
    book = opened(workbook)
    cached = opened(workbook, data_only=True)
    cover, shown = book["Cover"], cached["Cover"]
    labels = [(c.value, shown[c.coordinate].value) for row in cover.iter_rows() for c in row
              if c.column == 1 and c.data_type == "f"]
    assert ("=scenario_title", None) not in labels
    assert any("memory_strategy" in formula and text == "Training memory per GPU: llama-3.1-8b, ddp on 8 GPUs, "
               "h100-sxm" for formula, text in labels)
    assert shown["A2"].value == "llama-3.1-8b on h100-sxm: ddp on 8 GPUs; 15.6 T training tokens on 1,024 GPUs"
    links = [c.hyperlink.location for row in cover.iter_rows() for c in row if c.hyperlink]
    assert "'Memory'!A1" in links and "'Checks'!A1" in links


def test_text_from_a_scenario_never_becomes_a_formula(tmp_path):
    evil = '=HYPERLINK("http://x","y")'
    scenario = parse_scenario({
        "name": evil, "description": "+1+2", "model": {"name": "@SUM(1)", "layers": 2, "hidden": 64, "heads": 4,
                                                        "kv_heads": 2, "ffn": 128, "vocab": 1000},
        "gpu": {"name": "-3<script>", "memory_gb": 80, "peak_tflops": 900, "hbm_tbps": 3}})
    path = tmp_path / "evil.xlsx"
    build(compute(scenario), str(path))
    book = openpyxl.load_workbook(path)
    assert cell_of(book, "scenario_name").value == evil and cell_of(book, "scenario_name").data_type == "s"
    assert cell_of(book, "scenario_description").value == "+1+2"
    assert cell_of(book, "model").value == "@SUM(1)" and cell_of(book, "model").data_type == "s"
    assert cell_of(book, "gpu").value == "-3<script>" and cell_of(book, "gpu").data_type == "s"
    with zipfile.ZipFile(path) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".xml"))
    assert "<f>HYPERLINK" not in xml and "<f>SUM(1)" not in xml


def test_the_currency_sets_the_money_formats_and_the_html(tmp_path):
    from planner.report import render_html
    results = compute(scenario_with(currency="EUR"))
    path = tmp_path / "eur.xlsx"
    build(results, str(path))
    book = openpyxl.load_workbook(path)
    assert cell_of(book, "hours_cost").number_format == '"€"#,##0'
    assert cell_of(book, "currency").value == "EUR"
    # 8B on the H100: 527,772 GPU-hours at 2.00
    assert "they cost €1,055,545 at €2.00 per GPU-hour" in render_html(results, generated="2026-01-01")


def test_token_counts_read_in_trillions_and_billions():
    """units.scaled_count, as the token_count format shows a count: 15.6e12 training tokens as 15.6 T, 100e9 a day as
    100.0 B; below a billion whole, with thousands separators."""
    from planner.units import scaled_count

    assert scaled_count(15.6e12) == "15.6 T"
    assert scaled_count(100e9) == "100.0 B"
    assert scaled_count(999_999_999) == "999,999,999"


def test_html_shares_at_one_precision():
    """Shares to a tenth of a percent, as the workbook's 0.0% shows them (the review found "0.2425 %" beside
    "3.27 %"); a whole percent without its ".0"."""
    from planner.units import percent

    assert (percent(0.002425), percent(0.0327), percent(0.833333), percent(0.4)) == ("0.2 %", "3.3 %", "83.3 %",
                                                                                    "40 %")


def test_checks_sets_say_what_they_guard(example_files):
    """docs/method.md §1: d = N / (t·p) reads the GPUs, t and p, so the set of those three checks guards the Memory
    sheet's data-parallel degree: its row names the three checks and says so (it said "3 checks" before)."""
    book = openpyxl.load_workbook(example_files(ROOT / "examples" / "default.yaml")["xlsx"])
    rows = [[cell.value for cell in row if cell.value is not None] for row in book["Checks"].iter_rows()]
    sets = [row for row in rows if row and str(row[0]).startswith("Set ")]
    assert sets and not any("its formula names them" in row[0] for row in sets)
    [found] = [row for row in sets
               if row[0].endswith(": memory_gpus, memory_pipeline_parallel, memory_tensor_parallel")]
    assert found[-1].startswith("Guards Memory: Data-parallel degree d = N / (t·p)")


def test_checks_print_the_checks_that_fail_and_the_sets_that_fail(example_files, tmp_path):
    """fleet-2a with the Serving sheet's default users, which do not fit as generated (70B FP8 on one H100 holds one
    sequence: one failing table check, serving_users_fit): the Checks
    sheet prints the master check, then its checks that fail in the list's order (that one, then blank lines), then
    the sets of checks that fail (their count, of all, and a line each for the first of them); the print area ends
    with those lines, above the list, which stays on screen (issue 43 item 5: its failing checks and a line per
    set, each failing one; before: a line per part of the list)."""
    from planner.workbook.checks import SHOWN

    shipped = (ROOT / "examples" / "fleet-2a-70b-fp8-chat.yaml").read_text()
    assert "users: 1, " in shipped  # the shipped example's one sequence fits; the default users do not
    scenario = tmp_path / "fleet-2a-users-do-not-fit.yaml"
    scenario.write_text(shipped.replace("users: 1, ", ""))
    path = example_files(scenario)["xlsx"]
    sheet = openpyxl.load_workbook(path)["Checks"]
    cached = openpyxl.load_workbook(path, data_only=True)["Checks"]
    labels = {row: cached.cell(row, 1).value for row in range(1, sheet.max_row + 1)}
    [heading] = [row for row, label in labels.items() if str(label).startswith("The checks that fail, in the list")]
    [count] = [row for row, label in labels.items() if str(label).startswith("Sets of checks that fail, of ")]
    printed = [labels[row] or "" for row in range(heading + 1, heading + 1 + SHOWN)]
    printed_sets = [labels[row] or "" for row in range(count + 1, count + 1 + SHOWN)]
    warnings = next(row for row, label in labels.items() if str(label).startswith("Warnings:"))  # the checks' end
    first_set = next(row for row in range(warnings, sheet.max_row + 1) if str(labels[row]).startswith("Set "))
    listed = [*range(count + SHOWN + 1, warnings), *range(first_set, sheet.max_row + 1)]  # the warnings apart
    failing = [labels[row] for row in listed if cached.cell(row, 2).value is False
               and not str(labels[row]).startswith(("Set ", "ok_group_"))]
    sets = [labels[row] for row in listed if str(labels[row]).startswith("Set ") and cached.cell(row, 2).value
            in (True, False)]
    failed_sets = [label for label, row in zip(sets, [r for r in listed if str(labels[r]).startswith("Set ")])
                   if cached.cell(row, 2).value is False]
    assert len(failing) == 1 and "users" in failing[0].lower(), failing
    assert printed == failing + [""] * (SHOWN - 1)
    assert labels[count] == f"Sets of checks that fail, of {len(sets):,}" and cached.cell(count, 2).value == len(
        failed_sets)
    assert printed_sets == ((failed_sets or ["None fails."]) + [""] * SHOWN)[:SHOWN]
    last_printed = int(sheet.print_area.split(":")[-1].lstrip("$D").replace("$", ""))
    assert last_printed == count + SHOWN


@pytest.mark.parametrize("stem", ["fleet-4-8b-office-day", "fleet-5-8b-calibrated-h100"])
def test_the_fleet_sheet_holds_the_rows_its_search_found(example_files, stem):
    """docs/method.md §11: one Candidates row per configuration searched, one Pareto row per shown front row (at
    most 32), the 24 hours only with a profile, and no row under the Candidates table: the sheet's size follows the
    search, not a fixed maximum (issue 42)."""
    files = example_files(ROOT / "examples" / f"{stem}.yaml")
    fleet = json.loads(files["json"].read_text())["tables"]["fleet"]
    sheet = openpyxl.load_workbook(files["xlsx"])["Fleet"]
    labels = [sheet.cell(r, 1).value for r in range(1, sheet.max_row + 1)]
    fronts = [label for label in labels if isinstance(label, str) and label.startswith("Front ")]
    numbered = [label for label in labels if isinstance(label, int)]  # the hours (0 …) and the candidates (1 …)
    assert len(fronts) == len(fleet["pareto"]) <= 32
    assert len(numbered) == len(fleet["candidates"]) + len(fleet["day"]) and len(fleet["day"]) in (0, 24)
    assert len(fleet["candidates"]) == fleet["configurations"]
    assert labels[-1] == len(fleet["candidates"])  # the Candidates table is the sheet's last
