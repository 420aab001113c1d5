"""Hostile workbooks (issue 19, parts 1-4): a damaged, truncated, foreign or oversized file is one line naming the
file and the part, exit 2, within 10 s, for verify, audit and import alike; what is not a regular file is refused
before it is opened; a planner workbook with formulas in its inputs, names moved, foreign parts or sheets added is
reported by audit (exit 1, naming the cell or part) and refused by import (exit 2) unless --take-cached."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner.cli import main
from planner.output import write_outputs
from planner.scenario import DEFAULT
from tests import damaged

LIMIT_S = 10.0


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    return write_outputs(DEFAULT, tmp_path_factory.mktemp("clean"))["xlsx"]


def run(*args: str) -> tuple[int, str]:
    """The command line, as `planner ARGS`: its exit code and everything it printed; never a traceback, never
    longer than LIMIT_S."""
    start = time.monotonic()
    result = CliRunner().invoke(main, list(args))
    assert time.monotonic() - start < LIMIT_S, (args, "took too long")
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


INPUTS = "xl/worksheets/sheet2.xml (the sheet Inputs)"


@pytest.mark.parametrize("damage, expected", [
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: xl/workbook.xml: its XML does not parse (unclosed token"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet2.xml": lambda data: data[:len(data) // 2]}),
     [f"a damaged xlsx workbook: {INPUTS}: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/sharedStrings.xml": lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: xl/sharedStrings.xml: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {damaged.RELS: lambda data: data[:len(data) // 2]}),
     ["a damaged xlsx workbook: xl/_rels/workbook.xml.rels: its XML does not parse"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet2.xml": lambda data: None}),
     [f"not an xlsx workbook, or a damaged one: it has no part {INPUTS}"]),
    (lambda clean, to: damaged.corrupt_stream(clean, to, "xl/worksheets/sheet2.xml"),
     [f"a damaged xlsx workbook: {INPUTS}: Error -3 while decompressing data"]),
    (lambda clean, to: damaged.bad_crc(clean, to, "xl/worksheets/sheet2.xml"),
     [f"a damaged xlsx workbook: {INPUTS}: Bad CRC-32 for file 'xl/worksheets/sheet2.xml'"]),
    (lambda clean, to: damaged.lying_size(clean, to, "xl/worksheets/sheet2.xml", 0.5),
     [f"a damaged xlsx workbook: {INPUTS}: Bad CRC-32"]),
    (lambda clean, to: damaged.lying_size(clean, to, "xl/worksheets/sheet2.xml", 1e6),
     ["too large when unpacked (4,097 MB; a planner workbook is a few MB, the limit is 200 MB): not read"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet2.xml": damaged.replace(
        r'(<c r="B7"[^>]*t="s"[^>]*><v>)\d+', r"\g<1>999999")}),
     [f"a damaged xlsx workbook: {INPUTS}: the cell B7 holds '999999' as 's'"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/worksheets/sheet2.xml": damaged.replace(
        r'<c r="B7"', '<c r="XFE1048577"')}),
     [f"a damaged xlsx workbook: {INPUTS}: the cell XFE1048577 lies beyond Excel's grid (XFD1048576)"]),
    (lambda clean, to: to.write_bytes(clean.read_bytes()[:int(clean.stat().st_size * 0.9)]),
     ["not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): File is not a zip file"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": damaged.defined_name("recalc_canary",
                                                                                             "#REF!")}),
     ["not a planner workbook: it has no defined name recalc_canary"]),
    (lambda clean, to: damaged.rewritten(clean, to, {"xl/workbook.xml": damaged.defined_name("recalc_canary", "")}),
     ["not a planner workbook: it has no defined name recalc_canary"]),
], ids=["workbook.xml cut", "a sheet cut", "shared strings cut", "relationships cut", "a sheet removed",
        "a damaged stream", "a bad CRC", "a size that lies", "a size of 4 GB", "a string index out of range",
        "a cell past the grid", "a file cut short", "the canary #REF!", "the canary empty"])
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
    path = damaged.rewritten(clean, tmp_path / "cut.xlsx", {"xl/worksheets/sheet4.xml": damaged.replace(
        r"<f>([^<]*)</f>", r'<f>"\1</f>')})
    code, output = run("audit", "--no-recalc", str(path))
    assert code == 1
    assert 'Hours!A2: the formula is now ="scenario_title; the planner writes =scenario_title' in output
