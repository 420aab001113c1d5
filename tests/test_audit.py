"""`planner import`, `planner audit` and `planner verify` on workbooks as finance returns them: edited inputs come
back as a scenario; a formula overwritten or changed, a broken reference, an out-of-range input, a stale or missing
cache, a deleted sheet are each named with their cell; malformed files exit 2."""

from __future__ import annotations

import re
import shutil
import zipfile
from pathlib import Path

import openpyxl
import pytest

import planner
from click.testing import CliRunner

from planner import xlsx
from planner.audit import audit, inspect, same, shape
from planner.cli import main
from planner.engine import compute
from planner.scenario import DEFAULT, load_scenario
from tests.conftest import every_example
from tests.helpers import address, catalog_cells, saved_by_libreoffice, set_cells


@pytest.fixture(scope="session")
def clean(default_workbook) -> Path:
    """The default workbook, shared by the session (conftest): tests that change it change a copy."""
    return default_workbook


def edit_cell(source: Path, target: Path, name: str, replace) -> str:
    """A copy with one named cell's XML rewritten by replace(cell, attributes, formula, cached value) (cached
    values elsewhere kept, as Excel would save them); returns Sheet!A1."""
    book = xlsx.read(source, cells=False)
    sheet, cell = address(book, name)
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename).decode()
            if item.filename == book.parts[sheet]:
                pattern = rf'<c r="{cell}"([^>]*)><f>(.*?)</f><v>(.*?)</v></c>'
                data, count = re.subn(pattern, lambda m: replace(cell, *m.groups()), data, count=1)
                assert count == 1
            zout.writestr(item, data)
    return f"{sheet}!{cell}"


@pytest.fixture(scope="session")
def tampered(clean, tmp_path_factory) -> dict[str, tuple[Path, str]]:
    """Each way a workbook stops being the planner's, on its own copy: name → (file, the cell it breaks)."""
    folder = tmp_path_factory.mktemp("tampered")
    cases = {}

    def constant(cell, attributes, formula, value):  # the formula replaced by its own value
        return f'<c r="{cell}"{attributes}><v>{value}</v></c>'

    def scaled(cell, attributes, formula, value):  # a total's formula changed, the same value for 8 GPUs
        return f'<c r="{cell}"{attributes}><f>({formula})*memory_gpus/8</f><v>{value}</v></c>'

    def always_true(cell, attributes, formula, value):  # the master check's AND replaced by TRUE
        return f'<c r="{cell}"{attributes}><f>TRUE</f><v>{value}</v></c>'

    def edited_cache(cell, attributes, formula, value):  # the cached result typed over, the formula intact
        return f'<c r="{cell}"{attributes}><f>{formula}</f><v>999999</v></c>'

    def broken_reference(cell, attributes, formula, value):  # what deleting a row the formula reads leaves
        return f'<c r="{cell}"{attributes} t="e"><f>#REF!*2</f><v>#REF!</v></c>'

    for name, (target, change) in {"constant": ("hours_cost", constant),
                                   "scaled": ("memory_training_total_gb", scaled),
                                   "always true": ("checks_all_pass", always_true),
                                   "edited cache": ("hours_gpu_hours", edited_cache),
                                   "broken reference": ("memory_weights_gb", broken_reference)}.items():
        path = folder / f"{name.replace(' ', '-')}.xlsx"
        cases[name] = (path, edit_cell(clean, path, target, change))
    path = folder / "out-of-range.xlsx"
    book = openpyxl.load_workbook(clean)  # openpyxl saves without cached results: that is found too
    sheet, cell = address(book, "hours_mfu")
    book[sheet][cell].value = 1.5
    book.save(path)
    cases["out of range"] = (path, f"{sheet}!{cell}")
    path = folder / "no-method.xlsx"
    book = openpyxl.load_workbook(clean)
    del book["Method"]
    book.save(path)
    cases["no method"] = (path, "Method")
    return cases


@pytest.fixture(scope="session")
def reports(tampered, clean, libreoffice) -> dict:
    paths = [clean] + [path for path, _ in tampered.values()]
    found = audit(paths, app=libreoffice)
    return {"clean": found[0], **dict(zip(tampered, found[1:]))}


@pytest.mark.spreadsheet
@pytest.mark.xdist_group("audit-reports")  # one worker computes the reports
def test_a_clean_workbook_passes(reports):
    assert reports["clean"].ok, reports["clean"].text()
    assert reports["clean"].checked > 150


@pytest.mark.spreadsheet
@pytest.mark.xdist_group("audit-reports")
@pytest.mark.parametrize("case, kind", [
    ("constant", "replaced"), ("scaled", "changed"), ("always true", "changed"), ("edited cache", "stale"),
    ("broken reference", "error"), ("out of range", "input"), ("no method", "sheet")])
def test_each_tampering_is_named_with_its_cell(reports, tampered, case, kind):
    report = reports[case]
    _, where = tampered[case]
    assert not report.ok
    assert [f for f in report.findings if f.kind == kind and f.where.split(" (")[0] == where], report.text()


@pytest.mark.spreadsheet
@pytest.mark.xdist_group("audit-reports")
def test_the_findings_say_what_happened(reports, tampered):
    assert "999999" in str(next(f for f in reports["edited cache"].findings if f.kind == "stale"))
    assert "*memory_gpus/8" in str(next(f for f in reports["scaled"].findings if f.kind == "changed"))
    out_of_range = reports["out of range"]
    assert "hours.mfu: value 1.5 is not allowed: Input should be less than or equal to 1" in out_of_range.text()
    assert any(f.kind == "uncalculated" for f in out_of_range.findings)  # openpyxl saved it without results
    # only the tampered cell, nothing else, is reported where the rest is intact
    assert {f.where for f in reports["constant"].findings} == {tampered["constant"][1]}
    assert {f.where for f in reports["edited cache"].findings} == {tampered["edited cache"][1]}


@pytest.mark.spreadsheet
@pytest.mark.xdist_group("audit-reports")
def test_verify_fails_on_each_tampering_and_audit_exits_1(tampered, clean, gnumeric):
    """The command line, in Gnumeric (the reports above are LibreOffice's)."""
    result = CliRunner().invoke(main, ["verify", "--app", "gnumeric", str(clean),
                                       *[str(p) for p, _ in tampered.values()]])
    assert result.exit_code == 1
    assert f"{clean}: OK" in result.stdout
    for path, _ in tampered.values():
        assert f"{path}: FAILED" in result.stdout
    assert f"planner: recalculating {len(tampered) + 1} workbooks in Gnumeric" in result.stderr
    audited = CliRunner().invoke(main, ["audit", "--app", "gnumeric", str(tampered["always true"][0])])
    assert audited.exit_code == 1
    assert "Formulas changed (1)" in audited.stdout and "Checks!B6" in audited.stdout
    assert audited.stderr == f"planner: recalculating {tampered['always true'][0]} in Gnumeric\n"


@pytest.mark.spreadsheet
def test_a_workbook_saved_by_libreoffice_verifies_and_imports(clean, libreoffice, tmp_path):
    """LibreOffice saves TRUE and FALSE as TRUE() and FALSE() and rewrites 1e9 as 1000000000."""
    saved = saved_by_libreoffice(libreoffice, clean, tmp_path / "lo")
    copy = tmp_path / "saved-by-libreoffice.xlsx"
    shutil.copy(saved, copy)
    report = audit([copy], app=libreoffice)[0]
    assert report.ok, report.text()
    imported = CliRunner().invoke(main, ["import", str(copy), "-o", str(tmp_path / "back.yaml")])
    assert imported.exit_code == 0, imported.output
    assert load_scenario(tmp_path / "back.yaml").normalised() == DEFAULT.normalised()


@pytest.mark.parametrize("example", every_example())
def test_generate_then_import_gives_back_the_same_scenario(example, example_files, tmp_path):
    scenario = load_scenario(example)
    workbook = example_files(example)["xlsx"]
    result = CliRunner().invoke(main, ["import", str(workbook), "-o", str(tmp_path / "back" / "back.yaml")])
    assert result.exit_code == 0, result.output
    back = load_scenario(tmp_path / "back" / "back.yaml")
    if not scenario.goodput.benchmarks:
        assert back.normalised() == scenario.normalised()
        return
    # benchmark requests come back as log files beside the scenario: the same runs, the same numbers
    assert sorted(p.name for p in (tmp_path / "back").iterdir()) == sorted(
        ["back.yaml"] + [f"back.run-{run.number}.json" for run in scenario.external("goodput").runs])
    without_files = [{k: v for k, v in b.items() if k != "files"} for b in back.normalised()["goodput"]["benchmarks"]]
    assert without_files == [{k: v for k, v in b.items() if k != "files"}
                             for b in scenario.normalised()["goodput"]["benchmarks"]]
    expected, got = compute(scenario).headline, compute(back).headline
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        assert same(value, got[name]), name


def test_an_edited_workbook_imports_as_the_edited_scenario(clean, tmp_path):
    edited = tmp_path / "edited.xlsx"
    changes = {"memory_strategy": "ddp", "hours_mfu": 0.35, "gpu": "h200",
               **catalog_cells(clean, [("catalog_gpu", "h200", "price_per_hour", 3.1)])}
    set_cells(clean, edited, changes)
    result = CliRunner().invoke(main, ["import", str(edited)])
    assert result.exit_code == 0, result.output
    (tmp_path / "back.yaml").write_text(result.output)
    back = load_scenario(tmp_path / "back.yaml")
    assert (back.memory.strategy, back.hours.mfu, back.gpu, back.gpu_price) == ("ddp", 0.35, "h200", 3.1)


@pytest.mark.parametrize("content, message", [
    (b"", "the file is empty"), (b"name,gpus\nx,8\n", "not an xlsx workbook"),
    (None, "not a planner workbook")])
def test_malformed_files_exit_2_with_a_clear_message(tmp_path, clean, content, message):
    path = tmp_path / "bad.xlsx"
    if content is None:  # a real xlsx, but not the planner's
        book = openpyxl.Workbook()
        book.save(path)
    else:
        path.write_bytes(content)
    for command in (["import", str(path)], ["audit", str(path), "--no-recalc"]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 2, (command, result.output)
        assert message in result.output and "Traceback" not in result.output


def test_a_truncated_workbook_exits_2(tmp_path, clean):
    path = tmp_path / "cut.xlsx"
    path.write_bytes(clean.read_bytes()[: clean.stat().st_size // 2])
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 2 and "not an xlsx workbook" in result.output


def test_a_zip_bomb_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("xl/worksheets/sheet1.xml", b"<x>" + b" " * (300 * 1024 * 1024) + b"</x>")
    result = CliRunner().invoke(main, ["import", str(path)])
    assert result.exit_code == 2
    assert "too large when unpacked" in result.output


def test_formula_shapes_ignore_how_an_application_respells_them():
    assert shape("=a/1e9+TRUE") == shape("=A/1000000000+TRUE()")
    assert shape("=a/1e9") != shape("=a/1e9*memory_gpus/8")


def test_a_changed_formula_is_quoted_as_the_formula_bar_shows_it(clean, tmp_path):
    # a function LibreOffice re-saves with Excel's _xlfn. prefix, which no formula bar shows
    def rounded_up(cell, attributes, formula, value):
        return f'<c r="{cell}"{attributes}><f>_xlfn.CEILING.MATH({formula})</f><v>{value}</v></c>'

    where = edit_cell(clean, tmp_path / "rounded.xlsx", "memory_training_total_gb", rounded_up)
    report, _ = inspect(tmp_path / "rounded.xlsx")
    changed = [str(f) for f in report.findings if f.kind == "changed" and f.where == where]
    assert len(changed) == 1 and "the formula is now =CEILING.MATH(" in changed[0], report.text()
    assert "_xlfn" not in report.text()


OLDER = Path(__file__).parent / "fixtures" / "workbooks" / "default-0.1.0.xlsx"  # planner 0.1.0's default workbook


def test_an_older_versions_workbook_is_compared_by_its_named_results(tmp_path):
    # planner 0.1.0 laid the Memory sheet out otherwise (its model lookups in another order): cell by cell every
    # formula would differ; by name, every named result it shares with this version equals the engine's
    older = tmp_path / "default.xlsx"
    shutil.copy(OLDER, older)
    report, _ = inspect(older)
    # the named results whose method changed since: standby is the idle hours of a fleet sized for each month's
    # peak from the traffic (docs/method.md §9), no longer Cluster's separate pools (0.1.0: 13,910,880); and every
    # figure of the serving roofline, whose passes now pay §14.2's per-pass overhead, with what is priced from it
    roofline = ["Serving!M35 (serving_ttft_ms)", "Serving!M38 (serving_tpot_ms)", "Serving!M39 (serving_itl_ms)",
                "Serving!M40 (serving_tokens_per_s_per_gpu)", "Serving!M41 (serving_cost_per_million_tokens)",
                "Serving!M42 (serving_mfu)", "Serving!M45 (serving_tpot_ms_single)",
                "Serving!M48 (serving_tpot_ms_at_max)", "Serving!M50 (serving_tokens_per_s_per_gpu_at_max)",
                "Serving!M51 (serving_cost_per_million_tokens_at_max)",
                "Sensitivity!D33 (sensitivity_cost_per_million_tokens_middle)",
                "Sensitivity!J39 (sensitivity_total_cost)",
                "Budget!M28 (budget_total_cost)", "Budget!M8 (budget_serving_gpu_hours_per_day)",
                "Budget!M9 (budget_serving_cost_per_day)", "Budget!M11 (budget_horizon_serving_cost)",
                "Budget!M13 (budget_horizon_total_cost)", "Budget!M14 (budget_serving_cost_per_million_tokens)",
                "Budget!M26 (budget_serving_cost)"]
    assert report.older == "0.1.0" and [(f.kind, f.where) for f in report.findings] == [
        ("stale", where) for where in roofline + ["Budget!M27 (budget_standby_cost)"]]
    assert report.checked > 200  # every named result of the default workbook the older one has
    assert f"Made by planner 0.1.0, an older version than {planner.__version__}" in report.text()
    # an edit still shows: its memory total typed over, by name
    typed = tmp_path / "typed.xlsx"
    set_cells(older, typed, {"memory_training_total_gb": 1.5})
    report, _ = inspect(typed)
    assert [f.kind for f in report.findings] == ["stale"] * 21
    assert "memory_training_total_gb" in report.findings[0].where
