"""What several tests do, one copy each: a scenario with dotted keys set; a defined name's cell and value; a copy of
a workbook with cells typed over; a workbook recalculated by a spreadsheet application and compared with the
engine through what `planner verify` runs (planner/audit.py); a small file in place of the workbook for tests of how
files are written."""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from planner import audit, xlsx
from planner.engine import compute
from planner.roundtrip import workbook_data
from planner.scenario import DEFAULT, Scenario, load_scenario, parse_scenario
from planner.workbook import build
from planner.workbook.kit import NO_FILE, xl_rowcol_to_cell


# Scenarios -----------------------------------------------------------------------------------------------------------
def scenario_with(base: Scenario | Path | None = None, /, **changes) -> Scenario:
    """A scenario (the default, a Scenario, or an example file, whose relative paths still start beside it) with
    dotted-key changes: scenario_with(**{"memory.strategy": "ddp"}); list items are numbered from 1
    (hours.allocations.2.mfu), as the workbook's input names number them; missing sections are made."""
    source = base if isinstance(base, Path) else getattr(base, "_source", None)
    scenario = load_scenario(base) if isinstance(base, Path) else base or DEFAULT
    data = scenario.normalised()
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node[int(part) - 1] if isinstance(node, list) else node.setdefault(part, {})
        node[int(last) - 1 if isinstance(node, list) else last] = value
    changed = parse_scenario(data)
    changed._source = source
    return changed


def build_in_memory(scenario, like: Path | None = None):
    """The Book for a scenario, no file written (NO_FILE): it records every formula's cached (engine) value. `like`: an
    edited copy whose layout (Catalog rows, values when generated) it takes, so the two compare cell by cell."""
    data = workbook_data(like) if like else None
    return build(compute(scenario, generated=data.generated_on if data else None,
                         month_rows=data.month_rows if data else None), NO_FILE, like=data)


# Named cells ---------------------------------------------------------------------------------------------------------
def address(book, name: str) -> tuple[str, str]:
    """(sheet, A1) of the cell or range a defined name points at, in a generated Book, a workbook read by
    planner/xlsx.py or openpyxl, or a workbook file."""
    if isinstance(book, (str, Path)):
        book = xlsx.read(Path(book))
    if isinstance(book, xlsx.Workbook):
        [found] = book.destinations(name)
        return found
    if hasattr(book, "defined_names"):  # openpyxl
        sheet, ref = next(iter(book.defined_names[name].destinations))
        return sheet, ref.replace("$", "")
    return book.names[name]


def sheet_cell(sheet, key: str) -> str:
    """The A1 address of a generated sheet's row `key` (its value cell, or a per-column row's scenario cell)."""
    place = sheet.places[key]
    return xl_rowcol_to_cell(place.row, place.last_col)


def scenario_from_workbook(path: Path) -> Scenario:
    """The scenario a workbook's input cells, Catalog and Requests sheet describe, as `planner import` reads it."""
    return workbook_data(path).scenario()


def named(values: dict, book, name: str):
    """A defined name's value in a recalculated workbook's values; `book` says where the name points."""
    return values.get(address(book, name))


def cell_of(book, name: str):
    """The openpyxl cell a single-cell defined name points at."""
    sheet, ref = address(book, name)
    return book[sheet][ref]


# Copies with cells changed -------------------------------------------------------------------------------------------
def set_cells(source: Path, target: Path, changes: dict) -> None:
    """A copy of `source` with cells typed over, each given by a defined name or (sheet, A1): None empties the cell;
    text, a number, TRUE or FALSE is typed in as a constant, in the cell's own style. Everything else stays as
    written, cached values included (now stale where they read a changed cell; a recalculation replaces them)."""
    book = xlsx.read(Path(source), cells=False)
    by_part: dict[str, dict[str, object]] = {}
    for where, value in changes.items():
        sheet, ref = address(book, where) if isinstance(where, str) else where
        by_part.setdefault(book.parts[sheet], {})[ref] = value
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename in by_part:
                text = data.decode("utf-8")
                for ref, value in by_part[item.filename].items():
                    text = _typed_over(text, ref, value)
                data = text.encode("utf-8")
            zout.writestr(item, data)


def _typed_over(sheet_xml: str, ref: str, value) -> str:
    found = re.search(rf'<c r="{ref}"(?=[ />])([^>]*?)(?:/>|>.*?</c>)', sheet_xml, flags=re.S)
    style = re.search(r'\ss="\d+"', found[1]) if found else None
    style = style[0] if style else ""
    if value is None:
        cell = f'<c r="{ref}"{style}/>'
    elif isinstance(value, bool):
        cell = f'<c r="{ref}"{style} t="b"><v>{int(value)}</v></c>'
    elif isinstance(value, (int, float)):
        cell = f'<c r="{ref}"{style}><v>{value!r}</v></c>'
    else:
        cell = f'<c r="{ref}"{style} t="inlineStr"><is><t xml:space="preserve">{escape(str(value))}</t></is></c>'
    if found:
        return sheet_xml[:found.start()] + cell + sheet_xml[found.end():]
    column, row = xlsx.split(ref)
    found_row = re.search(rf'<row r="{row}"[^>]*?(/>|>(.*?)</row>)', sheet_xml, flags=re.S)
    if found_row is None:
        raise AssertionError(f"set_cells: no row {row} in the sheet for {ref}")
    cells = found_row[2] or ""
    later = [m for m in re.finditer(r'<c r="([A-Z]+)\d+"', cells) if xlsx.column_number(m[1]) > column]
    at = later[0].start() if later else len(cells)
    head = sheet_xml[:found_row.start()] + found_row[0][:found_row[0].index(">") + 1].replace("/>", ">")
    return head + cells[:at] + cell + cells[at:] + "</row>" + sheet_xml[found_row.end():]


def catalog_cells(path: Path, edits: list[tuple[str, str, str, object]]) -> dict:
    """(block prefix, entry id, column key, value) → {(sheet, A1): value} for set_cells. An id of "" with the
    column "ids" types a new id into the block's first empty row; later edits name it by that id."""
    book = xlsx.read(Path(path))
    rows: dict = {}
    changes: dict = {}
    for prefix, entry, column, value in edits:
        sheet, ref = address(book, f"{prefix}_ids")
        ids = [row[0] for row in book.block(sheet, ref)]
        if column == "ids" and entry == "":
            a1 = next(a1 for a1, cell in ids if cell.value is None and (sheet, a1) not in changes)
            rows[(prefix, value)] = xlsx.split(a1)[1]
        else:
            row = rows.get((prefix, entry)) or next(xlsx.split(a1)[1] for a1, cell in ids if cell.value == entry)
            sheet, ref = address(book, f"{prefix}_{column}")
            a1 = next(a1 for line in book.block(sheet, ref) for a1, _ in line if xlsx.split(a1)[1] == row)
        changes[(sheet, a1)] = value
    return changes


# Recalculated, and compared with the engine -------------------------------------------------------------------------
def expected_book(path: Path):
    """The Book `planner verify` compares `path` with: built from the scenario its inputs and Catalog describe,
    with its Catalog blocks (audit.inspect's; its other findings are not asserted here)."""
    report, book = audit.inspect(Path(path))
    assert book is not None, report.error
    return book


UNCOMPARED = object()  # recalculated's `expected` for a workbook only recalculated


def recalculated(app, workbooks: list[Path], expected: list | None = None) -> list[dict]:
    """Recalculate `workbooks` in one call of `app` (conftest's libreoffice or gnumeric) and compare every formula
    cell with the engine, as `planner verify` compares (audit.compare_recalculated): against the Book at the same
    position of `expected`; where that is None, or `expected` is left out, against the Book verify builds from the
    workbook's own inputs, and the workbook must pass verify's other checks too (audit.inspect); where it is
    UNCOMPARED (a copy with a wrong input, whose test asserts what it shows), not compared. Returns each workbook's
    values, {(sheet, A1): value}."""
    expected = list(expected) if expected is not None else [None] * len(workbooks)
    assert len(expected) == len(workbooks)
    read = list(workbooks)
    for i, path in enumerate(workbooks):
        if expected[i] is None:
            read[i] = xlsx.read(Path(path))  # once, for verify's checks and the application both
            report, expected[i] = audit.inspect(Path(path), read[i])
            assert report.ok, report.text()
    found = app.recalculate(read)
    for path, book, values in zip(workbooks, expected, found):
        assert isinstance(values, dict), f"{path}: {values}"
        if book is UNCOMPARED:
            continue
        report = audit.Report(Path(path))
        audit.compare_recalculated(report, book, values, app.name)
        assert report.findings == [], report.text()
        assert len(book.formulas) > 150
    return found


def saved_by_libreoffice(libreoffice, path: Path, folder: Path) -> Path:
    """`path` opened, recalculated and saved as xlsx by LibreOffice, as finance's LibreOffice saves it."""
    libreoffice.convert([path], folder, target="xlsx")
    saved = folder / (Path(path).stem + ".xlsx")
    assert saved.exists()
    return saved


# Writing files, not workbooks --------------------------------------------------------------------------------------
def small_workbook(results, file, *, generated=None) -> None:
    """Stands in for planner.workbook.build (as `output.build`) in tests of how a set of files is written (all or
    nothing, interrupted, killed, concurrent): a line naming the scenario and its description, written into the same
    open part, so that each test runs write_outputs' own steps without building a workbook of tens of thousands of
    formulas. `SMALL_WORKBOOK` does the same in a test's subprocess."""
    file.write(f"the workbook of {results.scenario.name}: {results.scenario.description}\n".encode())


SMALL_WORKBOOK = "from planner import output\nfrom tests.helpers import small_workbook\noutput.build = small_workbook\n"


# The command line ----------------------------------------------------------------------------------------------------
def refused(tmp_path, text: str | bytes) -> tuple[str, str]:
    """`planner run` on a scenario file holding `text`: it must exit 2, cleanly (no traceback), writing nothing.
    Returns what it printed and the file's path, for the test to look for its message."""
    from click.testing import CliRunner

    from planner.cli import main

    scenario = tmp_path / "scenario.yaml"
    if isinstance(text, bytes):
        scenario.write_bytes(text)
    else:
        scenario.write_text(text, encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(out)])
    assert result.exit_code == 2, result.output
    assert isinstance(result.exception, SystemExit) and "Traceback" not in result.output
    assert not out.exists()
    return result.output, str(scenario)
