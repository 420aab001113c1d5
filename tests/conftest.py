"""Shared fixtures: the spreadsheet applications the product recalculates with (planner/recalc.py), required under
CI=true; the `spreadsheet` marker, without which a test may start neither; Hypothesis derandomized; every example's
files, written once for the whole session, the default workbook among them, and unchanged at its end."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from pathlib import Path

import pytest
from hypothesis import settings

from planner import recalc
from planner.tables import sections

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))
DEFAULT_EXAMPLE = ROOT / "examples" / "default.yaml"  # the default scenario (planner.scenario.DEFAULT) as a file
SECTION = {key: cls for key, (_, cls) in sections().items()}  # scenario key → its Section class
CI = os.environ.get("CI", "").lower() == "true"
# The examples a per-example test runs on in the fast tier (between them every table, a Requests sheet of benchmark
# logs and a layout search); the others are marked long: the whole suite runs it on every example.
FAST_EXAMPLES = ("default", "goodput-2-benchmark-logs", "layouts-1-405b-search")


def every_example() -> list:
    """EXAMPLES as parameters named by their stems, those outside FAST_EXAMPLES marked long."""
    return [pytest.param(path, id=path.stem, marks=() if path.stem in FAST_EXAMPLES else pytest.mark.long)
            for path in EXAMPLES]

# The same draws on every run and every machine, nothing remembered between runs: a test that fails does so every
# time, and one that passes cannot fail on the next draw.
settings.register_profile("planner", derandomize=True, database=None, deadline=None)
settings.load_profile("planner")


def _required(found: str | None, what: str) -> None:
    """Missing, the test skips; under CI=true, where skipping would hide it, it fails."""
    if found is None:
        message = f"{what} is not installed"
        if CI:
            pytest.fail(message + ": CI requires it (bash scripts/test.sh installs it as root)")
        pytest.skip(message)


@pytest.fixture(scope="session")
def libreoffice():
    """LibreOffice, kept running for this test session (one per pytest-xdist worker, each with its own profile)."""
    _required(recalc.find_soffice(), "LibreOffice Calc (soffice)")
    app = recalc.LibreOffice(keep_running=True)
    yield app
    app.close()


@pytest.fixture(scope="session")
def gnumeric():
    """Gnumeric's ssconvert."""
    _required(recalc.find_ssconvert(), "Gnumeric (ssconvert)")
    with recalc.Gnumeric() as app:
        yield app


@pytest.fixture(scope="session")
def example_files(tmp_path_factory):
    """`example_files(path)`: an example's files as `planner run` writes them, {"xlsx": …, "html": …, "json": …},
    written once for the whole session, by whichever pytest-xdist worker asks for that example first (the others
    wait for it, then read the same files). Tests read them and write elsewhere (a copy to change, `-o` beside
    their own tmp_path): at the session's end each file this worker read must hold the bytes it was written with,
    else the session fails naming it (a test that changed a shared file would change what the others read)."""
    from planner.output import SUFFIXES, write_outputs
    from planner.scenario import load_scenario

    base = tmp_path_factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "examples-written-once"
    folder.mkdir(exist_ok=True)
    read: dict[Path, str] = {}

    def files(example: Path) -> dict[str, Path]:
        target = folder / Path(example).stem
        with _locked(folder / f"{Path(example).stem}.lock"):
            if not (target / "written").exists():
                written = write_outputs(load_scenario(Path(example)), target)
                (target / "written").write_text("\n".join(f"{suffix} {path.name} {_digest(path)}"
                                                          for suffix, path in written.items()))
        found = {}
        for line in (target / "written").read_text().splitlines():
            suffix, rest = line.split(" ", 1)
            name, digest = rest.rsplit(" ", 1)
            found[suffix] = target / name
            read[target / name] = digest
        assert set(found) == set(SUFFIXES)
        return found

    yield files
    changed = [str(path) for path, digest in read.items() if _digest(path) != digest]
    assert not changed, f"a test changed files every test shares (change a copy instead): {changed}"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="session")
def default_workbook(example_files) -> Path:
    """The default scenario's workbook as `planner run` writes it, written once for the session and shared by every
    test that only reads it; a test that changes a workbook changes a copy (helpers.set_cells, damaged.rewritten
    write one)."""
    return example_files(DEFAULT_EXAMPLE)["xlsx"]


@pytest.fixture(scope="session")
def default_book(default_workbook):
    """The default workbook's Book (planner/workbook/kit.py), built without a file as the session's was written:
    where each name points, each formula's text and cached value, each sheet's rows."""
    from tests.helpers import build_in_memory, scenario_with

    return build_in_memory(scenario_with(), like=default_workbook)


@pytest.fixture(scope="session")
def default_formulas(default_workbook):
    """The default workbook's formulas and defined names as openpyxl reads them (tests/wrong_inputs.py)."""
    from tests.wrong_inputs import Formulas

    return Formulas.read(default_workbook)


@pytest.fixture
def small_workbooks(monkeypatch):
    """write_outputs writes a line in place of each workbook (helpers.small_workbook), through the same steps: for
    tests of how a set of files is written, not of what a workbook holds."""
    from planner import output
    from tests.helpers import small_workbook

    monkeypatch.setattr(output, "build", small_workbook)


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on a file, across the pytest-xdist workers."""
    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


@pytest.fixture(params=["libreoffice", "gnumeric"])
def spreadsheet(request):
    """Each spreadsheet application in turn."""
    return request.getfixturevalue(request.param)


def pytest_collection_modifyitems(items) -> None:
    """A test that asks for an application must be marked; the long ones (spreadsheet, long) run first, so that on
    several workers the short ones fill the gaps at the end."""
    for item in items:
        if {"libreoffice", "gnumeric", "spreadsheet"} & set(getattr(item, "fixturenames", ())):
            assert item.get_closest_marker("spreadsheet"), f"{item.nodeid}: mark it spreadsheet"
    items.sort(key=lambda item: (item.get_closest_marker("long") is None,
                                 item.get_closest_marker("spreadsheet") is None))


@pytest.fixture(autouse=True)
def _spreadsheets_only_when_marked(request, monkeypatch):
    """A test without the `spreadsheet` marker (in the fast tier, `pytest -m "not spreadsheet and not long"`) must
    not start LibreOffice or Gnumeric: finding either fails it."""
    if request.node.get_closest_marker("spreadsheet") is None:
        def refuse():
            pytest.fail("this test starts a spreadsheet application: mark it @pytest.mark.spreadsheet")

        monkeypatch.setattr(recalc, "find_soffice", refuse)
        monkeypatch.setattr(recalc, "find_ssconvert", refuse)


@pytest.fixture(scope="module")
def section_6_overheads():
    """METHOD's §6-§13 worked examples are at §6's overhead τ alone: the engines table's generic row with §14's known
    overhead terms and dispatch at 0, which METHOD §14 says reproduces them (its own tests/test_fidelity.py works the
    defaults). Tests of those sections' arithmetic use it (pytestmark)."""
    from dataclasses import replace

    from planner import shipped
    from planner.model import engines

    zero = ("overhead_fixed_ms", "overhead_per_layer_ms", "overhead_per_sequence_ms", "overhead_per_moe_layer_ms",
            "dispatch_ms_per_layer")
    given = {key: replace(row, priors={**row.priors, **{k: 0 for k in zero if k in row.priors}})
             for key, row in shipped.ENGINES_GIVEN.items()}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(shipped, "ENGINES_GIVEN", given)
        patch.setattr(shipped, "ENGINES", engines.filled(given))
        yield
