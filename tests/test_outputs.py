"""`planner run` and `planner verify` on real files: three outputs per scenario, written all or nothing (a failed
rename, SIGTERM, SIGKILL and concurrent runs included), JSON with the workbook's numbers, and verification that fails
on a tampered formula and reports each bad file on its own. How files are written is tested through write_outputs'
own steps with a line in place of each workbook (conftest's small_workbooks); the workbook itself is the
session's (conftest), and test_signals.py stops a real one inside its zip."""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import shutil
import signal
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

import planner
from planner import output, recalc
from planner.cli import main
from planner.scenario import DEFAULT
from tests.conftest import DEFAULT_EXAMPLE, EXAMPLES, ROOT
from tests.helpers import SMALL_WORKBOOK, small_workbook

CHECKOUT = {**os.environ, "PYTHONPATH": str(ROOT)}  # a subprocess runs this checkout, not another installed one



def test_run_without_a_scenario_writes_the_default_into_output(tmp_path):
    done = subprocess.run([sys.executable, "-m", "planner", "run"], cwd=tmp_path, capture_output=True, text=True,
                          env=CHECKOUT)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (tmp_path / "output").iterdir())
    assert written == ["default.html", "default.json", "default.xlsx"]


def test_json_holds_the_normalised_scenario_headline_and_tables(example_files):
    data = json.loads(example_files(DEFAULT_EXAMPLE)["json"].read_text())
    assert set(data) == {"planner", "scenario", "headline", "not_available", "tables", "checks_failed", "warnings"}
    assert data["planner"]["version"] == planner.__version__ and len(data["planner"]["scenario_sha256"]) == 64
    assert data["checks_failed"] == []  # the default scenario passes every check
    assert data["scenario"]["memory"]["strategy"] == "zero3"
    assert data["scenario"]["serving"]["sequence_length"] == 8192  # the default filled in
    assert data["headline"]["memory_training_total_gb"] == pytest.approx(52.567744512)  # 16Ψ/8 + 34·s·h·L bytes
    assert data["headline"]["memory_training_fits"] is True
    training = {row["strategy"]: row for row in data["tables"]["memory"]["training"]}
    assert training["ddp"]["total_gb"] == pytest.approx(164.991401984)
    assert data["tables"]["memory"]["serving"]["kv_kib_per_token"] == 128
    # 8B at 15.6 T tokens on the H100 at 40 %: 6Ψ·T / (989e12 · 0.4 · 3600) GPU-hours at 2.00
    assert data["headline"]["hours_cost"] == pytest.approx(2 * 6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.4 * 3600))


def test_scenario_text_is_escaped_in_the_html(tmp_path, small_workbooks):
    scenario = DEFAULT.model_copy(update={"name": "<script>alert(1)</script>", "description": "a & b"})
    page = output.write_outputs(scenario, tmp_path)["html"].read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_an_interrupted_run_leaves_the_old_files_and_no_partial_ones(tmp_path, monkeypatch, small_workbooks):
    old = output.write_outputs(DEFAULT, tmp_path)
    before = {suffix: path.read_bytes() for suffix, path in old.items()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(output, "render_html", interrupted)  # after the workbook is written, before renaming
    with pytest.raises(KeyboardInterrupt):
        output.write_outputs(DEFAULT.model_copy(update={"description": "changed"}), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["default.html", "default.json", "default.xlsx"]
    assert {suffix: path.read_bytes() for suffix, path in old.items()} == before


def test_outputs_are_renamed_from_temporary_names(tmp_path, monkeypatch, small_workbooks):
    renames = []
    real_replace = output.os.replace
    monkeypatch.setattr(output.os, "replace", lambda a, b: (renames.append((Path(a).name, Path(b).name)),
                                                             real_replace(a, b)))
    output.write_outputs(DEFAULT, tmp_path)
    assert sorted(b for _, b in renames) == ["default.html", "default.json", "default.xlsx"]
    assert all(a.startswith(".default.") and a.endswith(".part") for a, _ in renames)


def test_a_rename_failing_midway_puts_the_previous_set_back(tmp_path, monkeypatch, small_workbooks):
    old = output.write_outputs(DEFAULT, tmp_path)
    before = {path.name: path.read_bytes() for path in old.values()}
    fail_on_third_rename(monkeypatch)
    with pytest.raises(output.OutputError) as error:
        output.write_outputs(DEFAULT.model_copy(update={"description": "changed"}), tmp_path)
    assert str(error.value) == (f"{tmp_path}/default.json: cannot replace it: Permission denied; put the previous "
                                "default.xlsx, default.html back: the folder holds the previous set")
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before  # no .part or .old left


def test_a_rename_failing_midway_on_a_first_run_removes_the_new_files(tmp_path, monkeypatch, small_workbooks):
    fail_on_third_rename(monkeypatch)
    with pytest.raises(output.OutputError) as error:
        output.write_outputs(DEFAULT, tmp_path)
    assert str(error.value).endswith("; removed the new default.xlsx, default.html: the folder holds the previous set")
    assert list(tmp_path.iterdir()) == []


def fail_on_third_rename(monkeypatch) -> None:
    real_replace, calls = os.replace, []

    def replace(source, target):
        calls.append(target)
        if len(calls) == 3:
            raise PermissionError(13, "Permission denied", str(target))
        real_replace(source, target)

    monkeypatch.setattr(output.os, "replace", replace)


def test_a_file_the_system_will_not_replace_leaves_the_previous_set_and_exits_2(tmp_path, small_workbooks):
    """A real failure midway: an immutable default.json (root only, on file systems with chattr +i)."""
    old = output.write_outputs(DEFAULT, tmp_path)
    before = {path.name: path.read_bytes() for path in old.values()}
    if os.geteuid() != 0 or subprocess.run(["chattr", "+i", str(old["json"])], capture_output=True).returncode:
        pytest.skip("needs root and chattr +i")
    try:
        scenario = tmp_path.parent / f"{tmp_path.name}-changed.yaml"
        scenario.write_text("name: default\ndescription: changed\n")
        result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path)])
    finally:
        subprocess.run(["chattr", "-i", str(old["json"])], check=True)
    assert result.exit_code == 2
    assert result.output == (f"error: {old['json']}: cannot replace it: Operation not permitted; put the previous "
                             "default.xlsx, default.html back: the folder holds the previous set\n")
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


SLOW_WRITER = SMALL_WORKBOOK + """
import sys, time
from planner import output, recalc
from planner.scenario import DEFAULT
def slow_html(*args, **kwargs):
    print("writing", flush=True)
    time.sleep(60)
output.render_html = slow_html
output.write_outputs(DEFAULT.model_copy(update={"description": "new"}), sys.argv[1])
"""


def start_slow_writer(out_dir: Path) -> subprocess.Popen:
    """A run stopped while writing: its workbook part is written, its HTML part open."""
    writer = subprocess.Popen([sys.executable, "-c", SLOW_WRITER, str(out_dir)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=CHECKOUT)
    assert writer.stdout.readline() == "writing\n", writer.stderr.read()
    assert len(list(out_dir.glob(".default.*.part"))) == 2
    return writer


def test_sigterm_removes_the_temporary_files_as_ctrl_c_does(tmp_path, small_workbooks):
    old = output.write_outputs(DEFAULT, tmp_path)
    before = {path.name: path.read_bytes() for path in old.values()}
    writer = start_slow_writer(tmp_path)
    writer.send_signal(signal.SIGTERM)
    assert writer.wait(timeout=30) == 128 + signal.SIGTERM
    assert "Traceback" not in writer.stderr.read()
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before


def test_the_next_run_removes_parts_a_killed_run_left_and_keeps_a_running_writers(tmp_path, small_workbooks):
    writer = start_slow_writer(tmp_path)
    writer.kill()
    writer.wait(timeout=30)
    killed = sorted(p.name for p in tmp_path.glob(".default.*.part"))
    assert len(killed) == 2  # SIGKILL cannot be caught: they stay until the next run
    running = tmp_path / f".default.{os.getpid()}.{'0' * 32}.xlsx.part"  # this process is alive
    running.write_bytes(b"")
    output.write_outputs(DEFAULT, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == [running.name, "default.html", "default.json",
                                                          "default.xlsx"]


def _write_described(out_dir: Path, i: int) -> None:
    output.write_outputs(DEFAULT.model_copy(update={"description": f"run {i}"}), out_dir)


@pytest.mark.long
def test_eight_simultaneous_runs_into_one_folder_leave_one_complete_set(tmp_path, small_workbooks):
    runs = [multiprocessing.get_context("fork").Process(target=_write_described, args=(tmp_path, i))
            for i in range(8)]
    for run in runs:
        run.start()
    for run in runs:
        run.join(timeout=120)
    assert [run.exitcode for run in runs] == [0] * 8
    assert sorted(p.name for p in tmp_path.iterdir()) == ["default.html", "default.json", "default.xlsx"]
    description = json.loads((tmp_path / "default.json").read_text())["scenario"]["description"]
    assert description.startswith("run ")  # and all three files that one run's
    assert (tmp_path / "default.xlsx").read_text() == f"the workbook of default: {description}\n"
    page = (tmp_path / "default.html").read_text()
    assert description in page and page.rstrip().endswith("</html>")


@pytest.mark.spreadsheet
@pytest.mark.usefixtures("libreoffice")
def test_verify_passes_on_examples_and_fails_on_a_tampered_formula(example_files, tmp_path):
    """Every example is recalculated in test_workbook_recalc.py; here the command line, on two of them (as `planner
    run` wrote them, conftest), with the LibreOffice it starts itself."""
    paths = [example_files(example)["xlsx"] for example in EXAMPLES[:2]]
    tampered = tmp_path / "tampered.xlsx"
    _replace_in_sheet(paths[0], tampered, "Memory", "optimizer_bytes_per_param*", "10*")
    result = CliRunner().invoke(main, ["verify", *map(str, paths), str(tampered)])
    assert result.exit_code == 1
    for path in paths:
        assert f"{path}: OK," in result.stdout
    assert f"{tampered}: Memory!" in result.stdout and "the formula is now =10*" in result.stdout
    assert f"{tampered}: FAILED" in result.stdout
    # what it is doing, on stderr: a line, then one per workbook (no terminal here, so no progress bar)
    assert result.stderr.splitlines() == ["planner: recalculating 3 workbooks in LibreOffice"] + [
        f"planner: {path} recalculated" for path in [*paths, tampered]]


def _replace_in_sheet(source: Path, target: Path, sheet: str, old: str, new: str) -> None:
    """Copy an xlsx, editing formula text inside one sheet's XML (as a user overwriting formulas would)."""
    wb = openpyxl.load_workbook(source, read_only=True)
    index = wb.sheetnames.index(sheet) + 1
    wb.close()
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == f"xl/worksheets/sheet{index}.xml":
                assert old.encode() in data
                data = data.replace(old.encode(), new.encode())
            zout.writestr(item, data)


@pytest.mark.spreadsheet
@pytest.mark.usefixtures("libreoffice")
def test_verify_reports_each_bad_file_on_its_own_and_still_checks_the_good_one(default_workbook, tmp_path):
    good = default_workbook
    text, empty, truncated = tmp_path / "text.xlsx", tmp_path / "empty.xlsx", tmp_path / "truncated.xlsx"
    text.write_text("name: not a workbook\n")
    empty.write_bytes(b"")
    truncated.write_bytes(good.read_bytes()[:10_000])
    foreign = tmp_path / "foreign.xlsx"
    openpyxl.Workbook().save(foreign)
    unopenable = tmp_path / "no-package-relationships.xlsx"  # openpyxl reads it; LibreOffice cannot load it, and
    # planner/xlsx.py refuses it before LibreOffice is asked
    with zipfile.ZipFile(good) as zin, zipfile.ZipFile(unopenable, "w") as zout:
        for name in zin.namelist():
            if name != "_rels/.rels":
                zout.writestr(name, zin.read(name))
    result = CliRunner().invoke(main, ["verify", *map(str, [text, unopenable, good, empty, truncated, foreign])])
    assert result.exit_code == 2  # files that cannot be read are bad input
    assert "Traceback" not in result.output
    assert result.stdout.splitlines() == [
        f"{text}: FAILED: not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): "
        "File is not a zip file",
        f"{unopenable}: FAILED: not an xlsx workbook, or a damaged one: it has no part _rels/.rels",
        f"{good}: OK, {result.stdout.split(' OK, ')[1].split()[0]} formula cells equal the engine",
        f"{empty}: FAILED: the file is empty: not an xlsx workbook",
        f"{truncated}: FAILED: not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): "
        "File is not a zip file",
        f"{foreign}: FAILED: not a planner workbook: it has no defined name recalc_canary",
    ]


def test_verify_without_libreoffice_exits_2_with_the_install_hint(default_workbook, monkeypatch):
    good = default_workbook
    monkeypatch.setattr(recalc, "find_soffice", lambda: None)
    result = CliRunner().invoke(main, ["verify", str(good)])
    assert result.exit_code == 2
    assert result.output == ("error: LibreOffice Calc is not installed (soffice not found); on Debian or Ubuntu: "
                             "apt-get install -y --no-install-recommends libreoffice-calc-nogui\n")


# A kill at any step -------------------------------------------------------------------------------------------
STOPPED_WRITER = SMALL_WORKBOOK + """
import os, signal, sys
from planner import output
from planner.scenario import DEFAULT
folder, stop, failing = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "fail"
steps = []
def hook(step):
    steps.append(step)
    if len(steps) == stop:
        os.kill(os.getpid(), signal.SIGKILL)
output.STEP_HOOK = hook
if failing:  # the JSON's rename fails, so the renames before it are undone
    real_replace = os.replace
    def replace(source, target):
        if str(source).endswith(".json.part"):
            raise PermissionError(13, "Permission denied", str(target))
        real_replace(source, target)
    output.os.replace = replace
output.write_outputs(DEFAULT.model_copy(update={"description": "the new set"}), folder)
"""


def steps_of(tmp_path: Path, monkeypatch, failing: bool) -> list[str]:
    """The steps of a write over a previous set, recorded in this process: 12 (3 parts, 3 backups, the journal,
    3 renames, backups and journal removed), or, when the third rename fails, the undo's."""
    monkeypatch.setattr(output, "build", small_workbook)
    output.write_outputs(DEFAULT.model_copy(update={"description": "the old set"}), tmp_path)
    steps: list[str] = []
    monkeypatch.setattr(output, "STEP_HOOK", steps.append)
    if failing:
        fail_on_third_rename(monkeypatch)
    with contextlib.suppress(output.OutputError):
        output.write_outputs(DEFAULT.model_copy(update={"description": "the new set"}), tmp_path)
    return steps


def set_in(folder: Path, slug: str = "default") -> set[str]:
    """Which set each of the three files belongs to: "old", "new" (read from the description each holds)."""
    texts = [json.loads((folder / f"{slug}.json").read_text())["scenario"]["description"],
             (folder / f"{slug}.html").read_text(),
             (folder / f"{slug}.xlsx").read_text()]  # the line in place of its workbook
    return {("new" if "the new set" in t else "old" if "the old set" in t else "?") for t in texts}


SUCCESS = ["part default.xlsx", "part default.html", "part default.json", "backup default.xlsx",
           "backup default.html", "backup default.json", "journal", "rename default.xlsx", "rename default.html",
           "rename default.json", "backups removed", "journal removed"]
UNDONE = SUCCESS[:9] + ["undo marker", "undo default.xlsx", "undo default.html"]


def test_the_steps_of_a_write_are_these(tmp_path, monkeypatch):
    assert steps_of(tmp_path / "a", monkeypatch, failing=False) == SUCCESS
    assert steps_of(tmp_path / "b", monkeypatch, failing=True) == UNDONE


@pytest.fixture(scope="session")
def old_set(tmp_path_factory) -> Path:
    """The set a killed writer was replacing, written once and copied into each test's folder."""
    folder = tmp_path_factory.mktemp("old-set")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(output, "build", small_workbook)
        output.write_outputs(DEFAULT.model_copy(update={"description": "the old set"}), folder)
    return folder


@pytest.mark.parametrize("failing, stop", [(False, k) for k in range(1, len(SUCCESS) + 1)]
                         + [(True, k) for k in range(len(SUCCESS[:9]) + 1, len(UNDONE) + 1)],
                         ids=lambda v: str(v))
@pytest.mark.long
def test_a_writer_killed_after_any_step_leaves_one_set_once_the_next_writer_has_run(old_set, tmp_path, failing, stop,
                                                                                    capsys, small_workbooks):
    """SIGKILL after step `stop`: before the journal is complete the previous set stands; from the journal on the
    new one, once the next writer (of another scenario, into the same folder) has finished it; from the undo
    marker on, the previous one again. The next writer leaves no part, backup, journal or marker behind, and says
    in one line which set it finished or undid."""
    for path in old_set.iterdir():
        shutil.copy2(path, tmp_path / path.name)
    steps = UNDONE if failing else SUCCESS
    writer = subprocess.run([sys.executable, "-c", STOPPED_WRITER, str(tmp_path), str(stop),
                             "fail" if failing else "ok"], capture_output=True, text=True, env=CHECKOUT, timeout=120)
    assert writer.returncode == -signal.SIGKILL, writer.stderr
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert left or stop == len(SUCCESS) and not failing  # parts, backups, a journal: all but after the last step
    if not any(name.endswith(".journal") for name in left):
        assert len(set_in(tmp_path)) == 1  # without a journal, never a mix
    output.write_outputs(DEFAULT.model_copy(update={"name": "other"}), tmp_path)
    journal = steps.index("journal") + 1  # the step's number, from 1
    undone = steps.index("undo marker") + 1 if failing else len(steps) + 1
    expected = "new" if journal <= stop < undone else "old"
    assert set_in(tmp_path) == {expected}, steps[stop - 1]
    said = capsys.readouterr().err
    if stop < journal or stop == len(SUCCESS) and not failing:  # no journal: nothing was mixed, nothing to say
        assert said == ""
    else:
        assert said == (f"planner: {tmp_path}: a run killed while replacing default.xlsx, default.html, default.json "
                        f"left that write unfinished: " + ("finished now, its new set is in place\n"
                                                           if expected == "new" else
                                                           "undone now, the previous set is back\n"))
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "default.html", "default.json", "default.xlsx", "other.html", "other.json", "other.xlsx"]


def test_a_journal_whose_names_leave_the_folder_is_not_followed(tmp_path, small_workbooks):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep")
    out = tmp_path / "out"
    out.mkdir()
    dead = f".default.999999999.{'a' * 32}"  # a writer that is gone
    (out / f"{dead}.0.xlsx.part").write_bytes(b"x")
    (out / f"{dead}.journal").write_text(json.dumps({"files": [{"part": f"{dead}.0.xlsx.part",
                                                                 "final": "../victim.txt", "backup": None}]}))
    with pytest.raises(output.OutputError, match=r"\.journal: not a journal this planner wrote"):
        output.write_outputs(DEFAULT, out)
    assert victim.read_text() == "keep"


# Targets that are not regular files, and inputs -------------------------------------------------------------
# Never /dev/null or /dev/stdout themselves from the command line: as root, a regression would replace them for the
# whole machine. Their copies in a temporary folder (a character device made like /dev/null, a link to
# /proc/self/fd/1) go through the command; the real ones through the check alone, which writes nothing.
def special(kind: str, path: Path) -> Path:
    """A path that exists and is not a regular file."""
    import socket
    import stat

    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        path.symlink_to(path.parent / "elsewhere.yaml")
        (path.parent / "elsewhere.yaml").write_text("kept\n")
    elif kind == "dangling symlink":
        path.symlink_to(path.parent / "gone")
    elif kind == "socket":
        with socket.socket(socket.AF_UNIX) as server:
            server.bind(str(path))
    elif kind == "character device":  # /dev/null's own numbers
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except (PermissionError, AttributeError):
            pytest.skip("making a character device needs root")
    elif kind == "like /dev/stdout":
        path.symlink_to("/proc/self/fd/1")
    return path


@pytest.mark.parametrize("kind, expected", [
    ("fifo", "{t}: a named pipe: an output is written only where there is nothing or a regular file, never over a "
             "named pipe"),
    ("symlink", "{t}: a symbolic link to {d}/elsewhere.yaml: an output is written only where there is nothing or a "
                "regular file; move or remove the link"),
    ("dangling symlink", "{t}: a symbolic link to {d}/gone: an output is written only where there is nothing or a "
                         "regular file; move or remove the link"),
    ("socket", "{t}: a socket: an output is written only where there is nothing or a regular file, never over a "
               "socket"),
    ("character device", "{t}: a character device: an output is written only where there is nothing or a regular "
                         "file, never over a character device"),
    ("like /dev/stdout", "{t}: a symbolic link to /proc/self/fd/1: an output is written only where there is "
                         "nothing or a regular file; move or remove the link"),
    ("the workbook", "{t}: the run reads this file: an output never replaces an input; write elsewhere (-o)"),
])
def test_import_refuses_a_target_that_is_not_a_regular_file_or_is_the_workbook(default_workbook, tmp_path, kind,
                                                                               expected):
    workbook = tmp_path / "wb" / "default.xlsx"  # a copy: the test compares the whole folder before and after
    workbook.parent.mkdir()
    shutil.copy(default_workbook, workbook)
    target = workbook if kind == "the workbook" else special(kind, tmp_path / "plan.yaml")
    before = {p: (os.lstat(p).st_mode, p.read_bytes() if p.is_file() and not p.is_symlink() else None)
              for p in tmp_path.rglob("*") if not p.is_char_device()}
    result = CliRunner().invoke(main, ["import", str(workbook), "-o", str(target)])
    assert result.exit_code == 2
    assert result.output == f"error: {expected.format(t=target, d=tmp_path)}\n"
    assert {p: (os.lstat(p).st_mode, p.read_bytes() if p.is_file() and not p.is_symlink() else None)
            for p in tmp_path.rglob("*") if not p.is_char_device()} == before


@pytest.mark.parametrize("name, expected", [
    ("null", "/dev/null: a character device: an output is written only where there is nothing or a regular file, "
             "never over a character device"),
    ("stdout", "/dev/stdout: a symbolic link to /proc/self/fd/1: an output is written only where there is nothing "
               "or a regular file; move or remove the link")])
def test_dev_null_and_dev_stdout_are_refused_as_targets(name, expected):
    if not os.path.lexists(f"/dev/{name}"):
        pytest.skip(f"no /dev/{name} here")
    with pytest.raises(output.OutputError) as error:
        output.check_targets(Path("/dev"), [name])
    assert str(error.value) == expected


@pytest.mark.parametrize("kind", ["fifo", "symlink", "socket"])
def test_run_refuses_an_output_file_that_is_not_a_regular_file(tmp_path, kind):
    target = special(kind, tmp_path / "default.json")
    result = CliRunner().invoke(main, ["run", "-o", str(tmp_path)])
    assert result.exit_code == 2 and result.output.startswith(f"error: {target}: a ")
    assert len(result.output.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["default.json"] + (["elsewhere.yaml"] if kind == "symlink" else []))


def test_run_refuses_outputs_that_would_replace_its_own_scenario(tmp_path):
    plan = tmp_path / "plan.json"  # a scenario file may have any name; its slug's JSON is its own name here
    plan.write_text("name: plan\n")
    result = CliRunner().invoke(main, ["run", str(plan), "-o", str(tmp_path)])
    assert result.exit_code == 2
    assert result.output == (f"error: {plan}: the run reads this file: an output never replaces an input; write "
                             f"elsewhere (-o)\n")
    assert plan.read_text() == "name: plan\n" and sorted(p.name for p in tmp_path.iterdir()) == ["plan.json"]
    linked = tmp_path / "linked.yaml"
    os.link(plan, linked)  # the same file under two names: run linked.yaml, whose outputs include plan.json
    result = CliRunner().invoke(main, ["run", str(linked), "-o", str(tmp_path)])
    assert result.exit_code == 2 and f"{plan}: the run reads this file (as {linked})" in result.output
    assert plan.read_text() == "name: plan\n"


def test_run_refuses_outputs_that_would_replace_a_benchmark_log(tmp_path):
    log = tmp_path / "x.json"
    log.write_text(json.dumps({"request_rate": 2, "duration": 10.0, "completed": 1, "input_lens": [10],
                               "output_lens": [5], "ttfts": [0.1], "latencies": [0.14], "errors": [""]}))
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\ngoodput: {benchmarks: [{name: b, files: [x.json]}]}\n")
    result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path)])
    assert result.exit_code == 2 and result.output.startswith(f"error: {log}: the run reads this file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.yaml", "x.json"]


def test_a_previous_file_that_cannot_be_kept_leaves_everything_as_it_was(tmp_path, monkeypatch, small_workbooks):
    old = output.write_outputs(DEFAULT, tmp_path)
    before = {path.name: path.read_bytes() for path in old.values()}

    def no_room(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output.os, "link", no_room)
    monkeypatch.setattr(output.shutil, "copy2", no_room)
    with pytest.raises(output.OutputError) as error:
        output.write_outputs(DEFAULT.model_copy(update={"description": "changed"}), tmp_path)
    assert str(error.value) == (f"{tmp_path}: cannot keep the previous files while the new ones replace them: No "
                                f"space left on device; nothing was replaced")
    assert {path.name: path.read_bytes() for path in tmp_path.iterdir()} == before
