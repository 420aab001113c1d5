"""A fuzz test of workbooks (issue 19): a deterministic corpus made from a clean planner workbook by flipping bytes
inside a part's stream, removing a part, cutting a part's XML short and altering zip headers; verify, audit and
import each exit 1 or 2 on every copy, without a traceback, within 10 s, and a file they cannot read is one line
naming it. A second corpus (issue 34) edits a workbook with named scenarios where finance could: its scenario
columns' cells, the Scenarios sheet's headings, the scenario names and the sheets."""

from __future__ import annotations

import random
import struct
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner import xlsx
from planner.cli import main
from tests import damaged
from tests.conftest import ROOT
from tests.helpers import set_cells

CASES = 48  # copies: a quarter of each kind of damage
LIMIT_S = 120.0  # a hang guard per copy, not a measure of speed (benchmarks/ measures that)
REQUIRED = ("xl/workbook.xml", "xl/_rels/workbook.xml.rels", "xl/sharedStrings.xml", "[Content_Types].xml",
            "_rels/.rels")  # and every worksheet


def _damaged(clean: Path, folder: Path, case: int) -> tuple[Path, str]:
    """Copy number `case`: (its path, what was done to it)."""
    rng = random.Random(case)
    with zipfile.ZipFile(clean) as archive:
        parts = [name for name in archive.namelist() if name in REQUIRED or name.startswith("xl/worksheets/sheet")]
    target = folder / f"case-{case:02d}.xlsx"
    part = rng.choice(parts)
    kind = case % 4
    data = clean.read_bytes()
    if kind == 0:  # bytes flipped inside a part's compressed stream
        with zipfile.ZipFile(clean) as archive:
            info = archive.getinfo(part)
        name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)
        start = info.header_offset + 30 + name_length + extra_length
        positions = [start + rng.randrange(info.compress_size) for _ in range(rng.randint(1, 8))]
        target.write_bytes(damaged.flipped(data, positions, rng.randint(1, 255)))
        return target, f"{len(positions)} bytes flipped in {part}"
    if kind == 1:  # a part removed
        damaged.rewritten(clean, target, {part: lambda _: None})
        return target, f"{part} removed"
    if kind == 2:  # a part's XML cut short
        cut = rng.random()
        damaged.rewritten(clean, target, {part: lambda xml: xml[:int(len(xml) * cut)]})
        return target, f"{part} cut at {cut:.0%}"
    # a zip header altered: a part's local header (its method, sizes or name length) or the central directory's
    with zipfile.ZipFile(clean) as archive:
        info = archive.getinfo(part)
    field = rng.choice([(8, "<H", "method"), (18, "<I", "compressed size"), (22, "<I", "size"),
                        (26, "<H", "name length"), (0, "<I", "signature")])
    offset, form, what = field
    found = bytearray(data)
    old = struct.unpack_from(form, found, info.header_offset + offset)[0]
    new = (old + rng.randint(1, 2**15)) % 2 ** (8 * struct.calcsize(form))
    struct.pack_into(form, found, info.header_offset + offset, new)
    target.write_bytes(bytes(found))
    return target, f"the local header's {what} of {part} altered"


@pytest.fixture(scope="session")
def corpus(default_workbook, tmp_path_factory) -> list[tuple[Path, str]]:
    """Damaged copies of the session's default workbook (conftest)."""
    clean = default_workbook
    folder = tmp_path_factory.mktemp("fuzz")
    return [_damaged(clean, folder, case) for case in range(CASES)]


def _run(args: list[str]) -> tuple[int, str, float]:
    start = time.monotonic()
    result = CliRunner().invoke(main, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), (args, repr(result.exception))
    return result.exit_code, result.output, time.monotonic() - start


@pytest.mark.parametrize("command", [["audit", "--no-recalc"], ["import"]], ids=["audit", "import"])
def test_audit_and_import_exit_1_or_2_on_every_damaged_copy(corpus, command):
    for path, what in corpus:
        code, output, took = _run(command + [str(path)])
        assert code in (1, 2), (what, output)
        assert "Traceback" not in output, (what, output)
        assert took < LIMIT_S, (what, took)
        if code == 2:
            assert output.startswith(f"error: {path}: ") and len(output.strip().splitlines()) == 1, (what, output)


@pytest.mark.spreadsheet
def test_verify_exits_1_or_2_on_every_damaged_copy(corpus):
    """One call for the whole corpus, as `planner verify output/*.xlsx`: a copy that cannot be read is one FAILED
    line; LibreOffice starts only if one can (none should)."""
    code, output, took = _run(["verify"] + [str(path) for path, _ in corpus])
    assert code == 2 and "Traceback" not in output
    assert took < LIMIT_S * len(corpus)
    for path, what in corpus:
        lines = [line for line in output.splitlines() if line.startswith(f"{path}: ")]
        assert len(lines) == 1 and lines[0].startswith(f"{path}: FAILED: "), (what, lines)


# Issue 34: a workbook with named scenarios, edited -------------------------------------------------------------------
SCENARIO_CASES = 12  # a quarter of each kind of edit; each copy is audited and imported (about a second each)
ODD_VALUES = [None, "", "x", "Bad Name", 7, -1, 0, 1e300, -1e300, True, "low", "base", "=1", "a" * 300, 2.5, "used"]
SCENARIO_NAMES = ("scenario_names", "scenario_snapshots", "scenario", "hours_mfu_base", "hours_mfu_high",
                  "model_low", "hours_tokens_trillions_high")


def _scenario_edit(clean: Path, folder: Path, case: int) -> tuple[Path, str]:
    """Copy number `case` of the named scenarios' workbook, edited: (its path, what was done to it)."""
    rng = random.Random(1000 + case)
    target = folder / f"scenarios-{case:02d}.xlsx"
    book = xlsx.read(clean, cells=False)
    kind = case % 4
    value = rng.choice(ODD_VALUES)
    if kind == 0:  # a heading of the Scenarios sheet retyped
        sheet, ref = book.destinations("scenario_names")[0]
        first, last = (xlsx.split(end) for end in ref.split(":"))
        column = rng.randint(first[0], last[0])
        set_cells(clean, target, {(sheet, f"{xlsx.column_letter(column)}{first[1]}"): value})
        return target, f"the heading in column {column} typed as {value!r}"
    if kind == 1:  # a scenario column's cell retyped
        name = rng.choice([n for n in book.names if n.endswith(("_low", "_high")) and book.destinations(n)
                           and book.destinations(n)[0][0] == "Inputs"])
        set_cells(clean, target, {name: value})
        return target, f"{name} typed as {value!r}"
    if kind == 2:  # a defined name removed
        name = rng.choice(SCENARIO_NAMES)
        damaged.rewritten(clean, target, {"xl/workbook.xml": damaged.replace(
            rf'<definedName name="{name}"[^>]*>[^<]*</definedName>', "")})
        return target, f"the name {name} removed"
    sheet = ["Scenarios", "Inputs", "Catalog", "Hours"][case // 4 % 4]  # a sheet removed from the workbook's list
    damaged.rewritten(clean, target, {"xl/workbook.xml": damaged.replace(rf'<sheet name="{sheet}"[^>]*/>', "")})
    return target, f"the sheet {sheet} removed"


@pytest.fixture(scope="session")
def scenario_corpus(example_files, tmp_path_factory) -> list[tuple[Path, str]]:
    """Edited copies of the named scenarios' example workbook, shared by the session (conftest)."""
    clean = example_files(ROOT / "examples" / "scenarios-1-70b-base-low-high.yaml")["xlsx"]
    folder = tmp_path_factory.mktemp("scenarios-fuzz")
    return [_scenario_edit(clean, folder, case) for case in range(SCENARIO_CASES)]


@pytest.mark.long
def test_audit_and_import_read_every_edited_scenario_workbook_without_a_traceback(scenario_corpus):
    """Exit 0, 1 or 2 (a blank scenario cell is as base; an edit may be harmless), never a traceback; exit 2 is a
    line per problem (at most 20, then their count), each naming the file."""
    for path, what in scenario_corpus:
        for command in (["audit", "--no-recalc"], ["import"]):
            code, output, took = _run(command + [str(path)])
            assert code in (0, 1, 2), (what, output)
            assert "Traceback" not in output, (what, output)
            assert took < LIMIT_S, (what, took)
            if code == 2:
                assert all(line.startswith((f"error: {path}: ", "error: … and ")) for line in output.splitlines()), \
                    (what, command, output)
