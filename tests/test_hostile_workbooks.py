"""Hostile workbooks (issue 19, parts 1-4): a damaged, truncated, foreign or oversized file is one line naming the
file and the part, exit 2, within 10 s, for verify, audit and import alike; what is not a regular file is refused
before it is opened; a planner workbook with formulas in its inputs, names moved, foreign parts or sheets added is
reported by audit (exit 1, naming the cell or part) and refused by import (exit 2) unless --take-cached."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner import xlsx
from planner.audit import audit, plural
from planner.cli import main
from planner.output import write_outputs
from tests import damaged
from tests.conftest import ROOT
from tests.helpers import address, catalog_cells, set_cells

LIMIT_S = 120.0  # a hang guard, not a measure of speed (benchmarks/ measures that): the slowest case
# takes about a second alone and under 10 s on a loaded machine


@pytest.fixture(scope="session")
def clean(default_workbook) -> Path:
    """The default workbook, shared by the session (conftest): tests that change it change a copy."""
    return default_workbook


def run(*args: str, limit: float = LIMIT_S) -> tuple[int, str]:
    """The command line, as `planner ARGS`: its exit code and everything it printed; never a traceback, never
    longer than `limit` seconds."""
    start = time.monotonic()
    result = CliRunner().invoke(main, list(args))
    assert time.monotonic() - start < limit, (args, "took too long")
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, result.exception)
    assert "Traceback" not in result.output
    return result.exit_code, result.output


def refused_everywhere(path: Path, *expected: str) -> None:
    """import and audit (without recalculation) exit 2 with one line naming the file and `expected`."""
    for command in (["import", str(path)], ["audit", "--no-recalc", str(path)]):
        code, output = run(*command)
        assert code == 2, (command, output)
        assert len(output.strip().splitlines()) == 1, output
        assert f"error: {path}: " in output, output
        for fragment in expected:
            assert fragment in output, (command, output)


INPUTS = "xl/worksheets/sheet6.xml (the sheet Inputs)"


@pytest.mark.parametrize("damage, expected", [
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: xl/workbook.xml: its XML does not parse ("]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet6.xml": lambda data: data[:len(data) // 2]}),
     [f"a damaged xlsx workbook: {INPUTS}: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/sharedStrings.xml": lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: xl/sharedStrings.xml: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {damaged.RELS: lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: xl/_rels/workbook.xml.rels: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet6.xml": lambda data: None}),
     [f"not an xlsx workbook, or a damaged one: it has no part {INPUTS}"]),
    (lambda clean, to: damaged.corrupt_stream(clean, to, "xl/worksheets/sheet6.xml"),
     [f"a damaged xlsx workbook: {INPUTS}: Error -3 while decompressing data"]),
    (lambda clean, to: damaged.bad_crc(clean, to, "xl/worksheets/sheet6.xml"),
     [f"a damaged xlsx workbook: {INPUTS}: Bad CRC-32 for file 'xl/worksheets/sheet6.xml'"]),
    (lambda clean, to: damaged.lying_size(clean, to, "xl/worksheets/sheet6.xml", 0.5),
     ["a damaged xlsx workbook: xl/worksheets/sheet6.xml: its local header says size ", ", the zip directory "]),
    (lambda clean, to: damaged.lying_size(clean, to, "xl/worksheets/sheet6.xml", 1e6),
     ["too large when unpacked (4,", " MB; a planner workbook is a few MB, the limit is 200 MB): not read"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet6.xml": damaged.replace(
        r'(<c r="B17"[^>]*t="s"[^>]*><v>)\d+', r"\g<1>999999")}),
     [f"a damaged xlsx workbook: {INPUTS}: the cell B17 holds '999999' as 's'"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet6.xml": damaged.replace(
        r'<c r="B17"', '<c r="XFE1048577"')}),
     [f"a damaged xlsx workbook: {INPUTS}: the cell XFE1048577 lies beyond Excel's grid (XFD1048576)"]),
    (lambda clean, to: to.write_bytes(clean.read_bytes()[:int(clean.stat().st_size * 0.9)]),
     ["not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): File is not a zip file"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": damaged.defined_name("recalc_canary",
                                                                                             "#REF!")}),
     ["not a planner workbook: it has no defined name recalc_canary"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": damaged.defined_name("recalc_canary", "")}),
     ["not a planner workbook: it has no defined name recalc_canary"]),
    (lambda clean, to: damaged.rewritten(clean, to, {damaged.CONTENT_TYPES: lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: [Content_Types].xml: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet6.xml": damaged.replace(
        r'<row r="7"', '<row r="0"')}),
     [f"a damaged xlsx workbook: {INPUTS}: the row 0 lies beyond Excel's grid (XFD1048576)"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": damaged.defined_name(
        "catalog_gpu_ids", "'Catalog'!$A$27:$A$2000000")}),
     ["a damaged xlsx workbook: xl/workbook.xml: the defined name catalog_gpu_ids: the cell A2000000 lies beyond "
      "Excel's grid (XFD1048576)"]),
], ids=["workbook.xml cut", "a sheet cut", "shared strings cut", "relationships cut", "a sheet removed",
        "a damaged stream", "a bad CRC", "a size that lies", "a size of 4 GB", "a string index out of range",
        "a cell past the grid", "a file cut short", "the canary #REF!", "the canary empty",
        "content types cut", "row 0", "a name past the grid"])
def test_a_damaged_workbook_is_one_line_naming_the_file_and_the_part(clean, tmp_path, damage, expected):
    path = tmp_path / "damaged.xlsx"
    damage(clean, path)
    refused_everywhere(path, *expected)


@pytest.mark.parametrize("make, expected", [
    (lambda path: os.mkfifo(path), "a named pipe (FIFO), not a regular file: not read"),
    (lambda path: os.symlink("/dev/zero", path), "a device, not a regular file: not read"),
    (lambda path: os.symlink("/dev/null", path), "a device, not a regular file: not read"),
], ids=["fifo", "/dev/zero", "/dev/null"])
def test_what_is_not_a_regular_file_is_refused_before_it_is_opened(tmp_path, make, expected):
    path = tmp_path / "book.xlsx"
    make(path)
    refused_everywhere(path, expected)


def test_an_unterminated_formula_is_a_changed_formula_not_a_traceback(clean, tmp_path):
    path = damaged.rewritten(clean, tmp_path / "cut.xlsx", {"xl/worksheets/sheet8.xml": damaged.replace(
        r"<f>([^<]*)</f>", r'<f>"\1</f>')})
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1
    assert 'Hours!A2: the formula is now ="scenario_title; the planner writes =scenario_title' in output


def test_a_catalog_block_of_10000_added_rows_is_refused_at_its_stated_length(clean, tmp_path):
    path = damaged.with_catalog_rows(clean, tmp_path / "long.xlsx", "catalog_gpu", 10_000)
    refused_everywhere(path, "Catalog!A227:A10245 (catalog_gpu_ids): a Catalog block of 10,019 rows; the planner "
                             "reads at most 1,020 (its shipped entries, 1,000 of the scenario's own and 10 empty "
                             "rows): not read")


def test_a_catalog_id_typed_twice_is_named_with_both_cells(clean, tmp_path):
    path = tmp_path / "twice.xlsx"
    set_cells(clean, path, catalog_cells(clean, [("catalog_gpu", "", "ids", "h100-sxm")]))
    message = ("Catalog!A36: catalog.gpus.h100-sxm: the id is typed twice in its block, first in Catalog!A28: one "
               "row per id (the first is read, the other is not)")
    code, output = run("import", str(path))
    assert code == 2 and f"error: {path}: {message}" in output
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and f"    {message}" in output


def test_a_defined_name_set_to_ref_is_named_by_audit_and_refused_by_import(clean, tmp_path):
    path = damaged.rewritten(clean, tmp_path / "ref.xlsx", {"xl/workbook.xml": damaged.defined_name("model",
                                                                                                    "#REF!")})
    message = "model: the defined name points at #REF!; the planner writes 'Inputs'!$B$16"
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and f"    {message}" in output
    code, output = run("import", "--take-cached", str(path))
    assert code == 2 and f"error: {path}: {message}: not imported" in output


FORMULAS = {"WEBSERVICE": '_xlfn.WEBSERVICE("https://example.com/x")', "HYPERLINK": 'HYPERLINK("https://x.test",8)',
            "1/0": "1/0", "INDIRECT": 'INDIRECT("B29")'}


@pytest.mark.parametrize("formula", FORMULAS.values(), ids=FORMULAS.keys())
@pytest.mark.long
def test_a_formula_in_an_input_cell_is_reported_and_refused_unless_take_cached(clean, tmp_path, formula):
    path = tmp_path / "formula.xlsx"
    cell = damaged.formula_in(clean, path, "memory_gpus", formula, "8")
    assert cell == "Inputs!B23"
    shown = "=" + formula.removeprefix("_xlfn.")  # as the formula bar shows it
    message = f"Inputs!B23 (memory_gpus): holds the formula {shown}, not a value (its cached value: 8)"
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and f"    {message}" in output
    code, output = run("import", str(path))
    assert code == 2 and output.strip() == (f"error: {path}: {message}: not imported (or --take-cached to import it "
                                            f"as it stands)")
    code, output = run("import", "--take-cached", str(path))
    assert code == 0 and "\n  gpus: 8\n" in output and "(--take-cached: imported as it stands)" in output


@pytest.mark.parametrize("refers_to, shown", [
    ("'Cover'!$A$2", "'Cover'!$A$2"), ("'Inputs'!$B$30", "'Inputs'!$B$30"), ("'Inputs'!$A$1:$Z$999",
                                                                          "'Inputs'!$A$1:$Z$999")],
    ids=["to the Cover title", "to another input", "widened to a range"])
def test_an_input_name_moved_or_widened_is_named_by_audit_and_refused_by_import(clean, tmp_path, refers_to, shown):
    path = damaged.rewritten(clean, tmp_path / "moved.xlsx", {"xl/workbook.xml": damaged.defined_name("memory_gpus",
                                                                                                      refers_to)})
    message = f"memory_gpus: the defined name points at {shown}; the planner writes 'Inputs'!$B$23"
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and f"    {message}" in output
    code, output = run("import", "--take-cached", str(path))
    assert code == 2 and message in output


@pytest.mark.parametrize("make, where, message", [
    (damaged.with_vba, "xl/vbaProject.bin", "a VBA project (macros): the workbook was saved as .xlsm"),
    (damaged.with_external_link, "xl/externalLinks/externalLink1.xml",
     "an external link: a formula reads another workbook"),
    (lambda clean, to: damaged.with_extra_sheet(clean, to, "veryHidden"), "Notes",
     "a sheet the planner does not write, very hidden (only a macro can show it)"),
    (lambda clean, to: damaged.with_extra_sheet(clean, to), "Notes", "a sheet the planner does not write"),
    (lambda clean, to: damaged.with_sheet_hidden(clean, to, "Method"), "Method", "the sheet is hidden"),
], ids=["vba", "external link", "very hidden sheet", "extra sheet", "hidden sheet"])
@pytest.mark.long
def test_foreign_content_is_named_by_audit_and_refused_by_import_unless_take_cached(clean, tmp_path, make, where,
                                                                                   message):
    path = tmp_path / "foreign.xlsx"
    make(clean, path)
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and f"    {where}: {message}" in output
    code, output = run("import", str(path))
    assert code == 2 and f"error: {path}: {where}: {message}: not imported (or --take-cached" in output
    code, output = run("import", "--take-cached", str(path))
    assert code == 0 and f"planner: {path}: {where}: {message} (--take-cached: imported as it stands)" in output


# Issue 18: a bad input is named and the other checks go on ------------------------------------------------------------
@pytest.mark.parametrize("name, value, message", [
    ("goodput_servers_1_completed_per_hour", 0, "goodput.servers.1.completed_per_hour: value 0 is not allowed"),
    ("goodput_servers_1_name", None, "goodput.servers.1.name: value None is not allowed"),
], ids=["completed 0", "blank server name"])
def test_a_bad_input_is_named_and_the_formulas_are_still_compared(clean, tmp_path, name, value, message):
    sheet, cell = address(xlsx.read(clean, cells=False), name)
    message = f"{sheet}!{cell} ({name}): {message}"
    path = tmp_path / "bad.xlsx"
    set_cells(clean, path, {name: value, ("Hours", "G10"): 1})  # and a formula overwritten, which is found too
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1, output
    assert f"    {message}" in output
    assert "    Hours!G10: the formula =" in output and "was overwritten by 1" in output
    assert "cannot be read as a scenario" not in output
    code, output = run("import", str(path))
    assert code == 2 and f"error: {path}: {message}" in output


def test_a_blank_catalog_price_is_an_error_naming_its_cell_never_the_shipped_price(clean, tmp_path):
    path = tmp_path / "blank.xlsx"
    set_cells(clean, path, catalog_cells(clean, [("catalog_gpu", "h100-sxm", "price_per_hour", None)]))
    message = ("Catalog!E28: catalog.gpus.h100-sxm.price_per_hour: blank, where a value is needed (input should be a "
               "valid number)")
    code, output = run("import", str(path))
    assert code == 2 and output.strip() == f"error: {path}: {message}"
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and output.splitlines()[:3] == [f"{path}: 1 problem (not recalculated)",
                                                     "  Inputs outside their allowed values (1)", f"    {message}"]


def test_no_recalc_says_it_did_not_recalculate_and_the_changed_inputs_are_listed(clean, tmp_path):
    code, output = run("audit", "--no-recalc", str(clean))
    assert code == 0
    assert re.fullmatch(rf"{re.escape(str(clean))}: no problems: \d{{1,3}}(,\d{{3}})* formula cells unchanged, their "
                        r"cached results equal to the engine \(not recalculated\); every input within its allowed "
                        r"values", output.strip()), output
    path = tmp_path / "edited.xlsx"
    set_cells(clean, path, {"hours_mfu": 0.5, "memory_gpus": 16})
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1
    assert output.endswith("  Inputs changed since the workbook was generated (2)\n"
                           "    Inputs!B23 (memory_gpus): 16, when generated 8\n"
                           "    Inputs!B35 (hours_mfu): 0.5, when generated 0.4\n")


def test_a_batch_summary_is_skipped_not_failed(clean, tmp_path):
    from planner.batch import run_batch

    run_batch([str(ROOT / "examples" / "default.yaml")], tmp_path / "out", jobs=1, progress=False)
    summary = tmp_path / "out" / "summary.xlsx"
    code, output = run("audit", "--no-recalc", str(summary))
    assert code == 0 and output.strip() == (f"{summary}: skipped: not a planner workbook: a batch's summary.xlsx "
                                            f"(finished results, no formulas to check)")
    reports = audit([summary, clean], app=None)
    assert reports[0].skipped and not reports[0].error and reports[1].ok


def test_singular_and_plural():
    assert plural(1, "problem") == "1 problem" and plural(2, "problem") == "2 problems"
    assert plural(1, "formula cell") == "1 formula cell" and plural(2214, "formula cell") == "2,214 formula cells"


@pytest.mark.spreadsheet
def test_verify_skips_a_batch_summary_and_exits_2_on_a_file_it_cannot_read(clean, tmp_path, libreoffice):
    """`planner verify output/examples/*.xlsx`: the batch's summary.xlsx is skipped, the workbook verifies; a damaged
    file beside them makes it exit 2 with one FAILED line naming the part."""
    from planner.batch import run_batch

    run_batch([str(ROOT / "examples" / "default.yaml")], tmp_path / "out", jobs=1, progress=False)
    summary, workbook = tmp_path / "out" / "summary.xlsx", tmp_path / "out" / "default.xlsx"
    code, output = run("verify", str(summary), str(workbook), limit=120)  # LibreOffice starts: a few seconds
    assert code == 0, output
    assert (f"{summary}: skipped: not a planner workbook: a batch's summary.xlsx (finished results, no formulas to "
            f"check)") in output
    assert f"{workbook}: OK, " in output
    broken = damaged.rewritten(clean, tmp_path / "broken.xlsx", {"xl/sharedStrings.xml": lambda data: data[:100]})
    code, output = run("verify", str(summary), str(broken))
    assert code == 2, output
    assert f"{broken}: FAILED: a damaged xlsx workbook: xl/sharedStrings.xml: its XML does not parse" in output


def test_a_formula_in_a_catalog_value_is_reported_and_refused_unless_take_cached(clean, tmp_path):
    catalog = f"xl/worksheets/sheet{xlsx.read(clean, cells=False).sheets.index('Catalog') + 1}.xml"
    path = damaged.rewritten(clean, tmp_path / "catalog.xlsx", {catalog: damaged.cell(
        "E28", '<c r="E28"><f>1+2</f><v>3</v></c>')})
    message = "Catalog!E28: holds the formula =1+2, where the planner writes a value (its cached value: 3)"
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and f"    {message}" in output
    code, output = run("import", str(path))
    assert code == 2 and f"error: {path}: {message}: not imported (or --take-cached" in output
    code, output = run("import", "--take-cached", str(path))
    assert code == 0 and "    h100-sxm:\n      price_per_hour: 3.0\n" in output


# Issue 34, class 6: scenario workbooks and Requests sheets read back ----------------------------------------------------
@pytest.fixture(scope="session")
def with_scenarios(example_files) -> Path:
    """The named scenarios' example workbook, shared by the session (conftest)."""
    return example_files(ROOT / "examples" / "scenarios-1-70b-base-low-high.yaml")["xlsx"]


@pytest.fixture(scope="session")
def with_requests(example_files) -> Path:
    """The benchmark logs' example workbook (a Requests sheet), shared by the session (conftest)."""
    return example_files(ROOT / "examples" / "goodput-2-benchmark-logs.yaml")["xlsx"]


def audit_and_import(path: Path, message: str, *, audit_code: int = 1) -> None:
    """audit names `message` (a finding, exit 1; or exit 2 when the workbook cannot be read), import refuses it."""
    code, output = run("audit", "--no-recalc", str(path))
    assert code == audit_code, output
    assert (f"    {message}" if audit_code == 1 else f"error: {path}: {message}") in output, output
    code, output = run("import", str(path))
    assert code == 2 and output.strip() == f"error: {path}: {message}", output


@pytest.mark.parametrize("name, column", [("hours_tokens_trillions_high", "D"), ("hours_tokens_trillions_base", "B")],
                         ids=["high", "base"])
def test_tokens_typed_as_1e300_trillions_are_refused_naming_the_cell(with_scenarios, tmp_path, name, column):
    """1e300 trillion tokens overflow a float: once an OverflowError traceback."""
    sheet, ref = xlsx.read(with_scenarios).destinations(name)[0]
    assert (sheet, ref[0]) == ("Inputs", column)
    cell = f"{sheet}!{ref}"
    path = tmp_path / "tokens.xlsx"
    set_cells(with_scenarios, path, {name: 1e300})
    key = "scenarios.high.hours.tokens" if name.endswith("high") else "hours.tokens"
    shown = "hours_tokens_trillions" if name.endswith("base") else name
    audit_and_import(path, f"{cell} ({shown}): {key}: 1e+300 trillions is more than any number holds: not allowed")


@pytest.mark.parametrize("heading", [None, "used", 7], ids=["blank", "retyped", "a number"])
def test_a_scenario_heading_edited_is_named_with_its_cell(with_scenarios, tmp_path, heading):
    path = tmp_path / "heading.xlsx"
    set_cells(with_scenarios, path, {("Scenarios", "D10"): heading})
    shown = "blank" if heading is None else repr(heading)
    audit_and_import(path, f"Scenarios!D10 (scenario_names): the heading of the scenario high's column is {shown}, "
                           f"but its cells on Inputs are named for high (…_high): the heading was edited; type high "
                           f"back")


def test_a_deleted_scenario_names_name_is_named_and_the_rest_still_checked(with_scenarios, tmp_path):
    path = damaged.rewritten(with_scenarios, tmp_path / "names.xlsx", {"xl/workbook.xml": damaged.replace(
        r'<definedName name="scenario_names"[^>]*>[^<]*</definedName>', "")})
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and output.splitlines()[:3] == [
        f"{path}: 1 problem (not recalculated)", "  Defined names that no longer point where the planner put them (1)",
        "    scenario_names: the defined name is missing; the planner writes it as 'Scenarios'!$B$10:$D$10"]
    code, output = run("import", str(path))
    assert code == 2 and output.strip() == (f"error: {path}: scenario_names: the defined name is missing; the planner "
                                            f"writes it as 'Scenarios'!$B$10:$D$10: not imported")


def test_a_deleted_scenarios_sheet_is_named_and_the_scenarios_still_imported(with_scenarios, tmp_path):
    path = damaged.rewritten(with_scenarios, tmp_path / "sheet.xlsx", {"xl/workbook.xml": damaged.replace(
        r'<sheet name="Scenarios"[^>]*/>', "")})
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and output.splitlines()[:3] == [f"{path}: 1 problem (not recalculated)", "  Sheets (1)",
                                                     "    Scenarios: the sheet is missing"]
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 0
    assert "\nscenarios:\n  low:\n" in result.stdout and "\n  high:\n" in result.stdout
    assert result.stderr == (f"planner: {path}: Scenarios: the sheet is missing (`planner run` on the scenario writes "
                             f"it again)\n")


def requests_cell(book_path: Path, name: str, row: int) -> tuple[str, str]:
    """(sheet, A1) of the `row`th cell (from 0) of a Requests column's defined name."""
    sheet, ref = xlsx.read(book_path, cells=False).destinations(name)[0]
    column, first = xlsx.split(ref.split(":")[0])
    return sheet, f"{xlsx.column_letter(column)}{first + row}"


@pytest.mark.parametrize("name, value, message", [
    ("requests_run", 99, "Requests!A9: run: 99 is not what a benchmark log gives (a whole number from 1 to 10)"),
    ("requests_latency_s", "slow", "Requests!E9: latency_s: 'slow' is not what a benchmark log gives (a number of "
                                   "seconds from 0 to 1,000,000)"),
    ("requests_ttft_ms", -1, "Requests!D9: ttft_ms: -1 is not what a benchmark log gives (a number of ms from 0 to "
                             "1,000,000,000)"),
    ("requests_latency_s", 0.0, "Requests!E9: latency_s: 0.0 s ends before the first token (106.819 ms): not a "
                                "request's latency;"),
    ("runs_duration_s", 0, "Requests!R6: duration_s: 0 is not what a benchmark log gives (a number of seconds from "
                           "0.001 to 1,000,000)"),
], ids=["a run number", "a latency as text", "a TTFT of -1", "a latency before its first token", "a duration of 0"])
def test_an_edited_requests_sheet_is_one_line_naming_the_cell(with_requests, tmp_path, name, value, message):
    """Once a ScenarioError traceback from audit and verify (and a ZeroDivisionError for the duration)."""
    path = tmp_path / "requests.xlsx"
    set_cells(with_requests, path, {requests_cell(with_requests, name, 0 if name.startswith("runs") else 3): value})
    for command in (["audit", "--no-recalc", str(path)], ["import", str(path), "-o", str(tmp_path / "p.yaml")]):
        code, output = run(*command)
        assert code == 2 and output.startswith(f"error: {path}: {message}"), output
        assert output.strip().endswith("the Requests sheet was edited") and "\n" not in output.strip()
    assert not (tmp_path / "p.yaml").exists()


def test_import_refuses_a_catalog_gpu_memory_of_minus_80_at_the_catalogs_limit(clean, tmp_path):
    path = tmp_path / "memory.xlsx"
    set_cells(clean, path, catalog_cells(clean, [("catalog_gpu", "h200", "memory_gb", -80)]))
    audit_and_import(path, "Catalog!B29: catalog.gpus.h200.memory_gb: value -80 is not allowed: Input should be "
                           "greater than or equal to 0.001")


def test_audit_without_recalculation_never_says_results_were_recalculated(clean, tmp_path):
    path = tmp_path / "bad.xlsx"
    set_cells(clean, path, {"hours_mfu": 2})
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1 and "recalculated results" not in output
    assert output.splitlines()[0] == f"{path}: 1 problem (not recalculated)"
    assert ("  Cached results were not compared with the engine: an input is outside its allowed values (the "
            "formulas, names and sheets were checked, with its value when generated standing in)") in output


@pytest.mark.spreadsheet
def test_verify_names_the_edited_requests_cell(with_requests, tmp_path, libreoffice):
    path = tmp_path / "requests.xlsx"
    set_cells(with_requests, path, {requests_cell(with_requests, "requests_ttft_ms", 3): -1})
    code, output = run("verify", str(path))
    assert code == 2 and output.strip().splitlines()[-1] == (f"{path}: FAILED: Requests!D9: ttft_ms: -1 is not what a benchmark log "
                                            f"gives (a number of ms from 0 to 1,000,000,000): the Requests sheet was "
                                            f"edited")


@pytest.mark.spreadsheet
def test_a_roofline_crossover_whose_users_are_raised_past_b_max_reads_na(tmp_path, libreoffice):
    """The workbook's own guard for what validation refuses: users typed past B_max on Inputs turn the roofline
    check FALSE and every serving figure of the Crossover reads n/a (the Checks sheet says why)."""
    from planner.scenario import parse_scenario
    from tests.helpers import UNCOMPARED, named, recalculated

    scenario = parse_scenario({"name": "roof", "crossover": {"serving_mfu": "roofline"}})
    path = write_outputs(scenario, tmp_path / "clean")["xlsx"]
    raised = tmp_path / "raised.xlsx"
    set_cells(path, raised, {"serving_users": 5000})
    book = xlsx.read(raised, cells=False)
    [values] = recalculated(libreoffice, [raised], [UNCOMPARED])
    assert named(values, book, "ok_crossover_roofline_fits") is False
    for name in ("crossover_serving_mfu_used", "crossover_day_gpu_hours", "crossover_serving_cost_over_horizon"):
        assert named(values, book, name) == "n/a: see Checks", name
    assert isinstance(named(values, book, "crossover_day_flops"), (int, float))  # operations need no MFU


def test_number_literals_in_formulas_are_written_as_excel_writes_them(clean):
    """1E+12 and 1E-09, not 1e12 and 1e-09: Python's spelling is not Excel's (issue 34)."""
    import zipfile

    with zipfile.ZipFile(clean) as archive:
        formulas = [f for name in archive.namelist() if name.startswith("xl/worksheets/sheet")
                    for f in re.findall(r"<f>([^<]*)</f>", archive.read(name).decode())]
    python_spelled = [f for f in formulas if re.search(r"(?<![A-Za-z0-9_.$])[0-9.]+e[+-]?[0-9]", f)]
    assert python_spelled == []
    assert any("gpu_peak_tflops*1E+12" in f for f in formulas)


def test_a_scenario_dropdown_of_ten_long_names_reads_its_list_from_the_scenarios_sheet(tmp_path):
    """Ten names of 31 characters make a list of 324 characters, past the 255 Excel keeps in a rule: XlsxWriter
    dropped the dropdown with a warning. It now reads the Scenarios sheet's headings (scenario_names)."""
    import warnings

    import openpyxl

    from planner.scenario import parse_scenario

    names = [f"s{i:02d}_" + "x" * 27 for i in range(10)]
    assert all(len(name) == 31 for name in names)
    scenario = parse_scenario({"name": "long", "scenarios": {name: {"hours.mfu": 0.3 + i / 100}
                                                           for i, name in enumerate(names)}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # XlsxWriter's "list items > 255 characters" would fail the test
        path = write_outputs(scenario, tmp_path)["xlsx"]
    book = openpyxl.load_workbook(path)
    sheet, ref = next(iter(book.defined_names["scenario"].destinations))
    rules = [rule for rule in book[sheet].data_validations.dataValidation if ref.replace("$", "") in str(rule.sqref)]
    assert [(rule.type, rule.formula1) for rule in rules] == [("list", "scenario_names")]
    sheet, ref = next(iter(book.defined_names["scenario_names"].destinations))
    assert [cell.value for row in book[sheet][ref.replace("$", "")] for cell in row] == ["base", *names]
