"""Shared fixtures: LibreOffice (required under CI=true), scenario helpers and workbook recalculation."""

from __future__ import annotations

import io
import os
from pathlib import Path

import openpyxl
import pytest

from planner import recalc
from planner.engine import compute
from planner.scenario import DEFAULT, parse_scenario
from planner.tables import sections
from planner.workbook import build

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
SECTION = {key: cls for key, (_, cls) in sections().items()}  # scenario key → its Section class


@pytest.fixture(scope="session")
def libreoffice() -> str:
    """The soffice binary; missing, the test skips, or fails under CI=true where skipping would hide it."""
    found = recalc.find_soffice()
    if found is None:
        message = "LibreOffice Calc (soffice) is not installed"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + ": CI requires it (bash scripts/test.sh installs it as root)")
        pytest.skip(message)
    return found


def scenario_with(**changes):
    """The default scenario with dotted-key changes, e.g. scenario_with(**{"memory.strategy": "ddp"}); list items
    are numbered from 1 (hours.allocations.2.mfu), as the workbook's input names number them."""
    data = DEFAULT.normalised()
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node[int(part) - 1] if isinstance(node, list) else node[part]
        node[int(last) - 1 if isinstance(node, list) else last] = value
    return parse_scenario(data)


def build_in_memory(scenario, like=None):
    """The workbook for a scenario, in memory: its Book records every formula's cached (engine) value. `like`: an
    edited copy whose layout (Catalog rows, values when generated) it takes, so the two compare cell by cell."""
    from planner.roundtrip import workbook_data

    return build(compute(scenario), io.BytesIO(), like=workbook_data(like) if like else None)


def cell_of(book, name: str):
    """The cell a single-cell defined name points at, in an openpyxl workbook."""
    sheet, ref = next(iter(book.defined_names[name].destinations))
    return book[sheet][ref.replace("$", "")]


def set_cells(source, target, changes: dict) -> None:
    """A test copy with cells changed, each given by a defined name or (sheet, A1). openpyxl drops cached values:
    fine for a copy that is recalculated or read back."""
    book = openpyxl.load_workbook(source)
    for where, value in changes.items():
        cell = cell_of(book, where) if isinstance(where, str) else book[where[0]][where[1]]
        cell.value = value
    book.save(target)


def catalog_cells(path, edits: list[tuple[str, str, str, object]]) -> dict:
    """(block prefix, entry id, column key, value) → {(sheet, A1): value} for set_cells. An id of "" with the
    column "ids" types a new id into the block's first empty row; later edits name it by that id."""
    book = openpyxl.load_workbook(path)
    rows: dict = {}
    changes: dict = {}
    for prefix, entry, column, value in edits:
        sheet, ref = next(iter(book.defined_names[f"{prefix}_ids"].destinations))
        ids = [row[0] for row in book[sheet][ref.replace("$", "")]]
        if column == "ids" and entry == "":
            cell = next(c for c in ids if c.value is None and (sheet, c.coordinate) not in changes)
            rows[(prefix, value)] = cell.row
        else:
            row = rows.get((prefix, entry)) or next(c.row for c in ids if c.value == entry)
            sheet, ref = next(iter(book.defined_names[f"{prefix}_{column}"].destinations))
            cell = next(c for line in book[sheet][ref.replace("$", "")] for c in line if c.row == row)
        changes[(sheet, cell.coordinate)] = value
    return changes


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
