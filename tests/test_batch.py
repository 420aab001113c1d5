"""`planner batch`: files, folders and sweeps; a broken scenario among good ones; index.html and summary.xlsx read
back; the same batch twice gives the same files. A batch of a few examples writes real workbooks (every example's are
written once, by conftest's example_files); sweeps of many variants write a line in place of each workbook
(conftest's small_workbooks), their summary and index being what they test."""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from planner.batch import jobs_of, run_batch
from planner.cli import main
from planner.engine import compute
from planner.scenario import load_scenario
from tests.conftest import EXAMPLES, ROOT

H100_8B_GPU_HOURS = 6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.40 * 3600)  # METHOD.md §2, by hand


def summary_rows(out_dir: Path) -> dict[str, dict]:
    sheet = openpyxl.load_workbook(out_dir / "summary.xlsx")["Summary"]
    rows = list(sheet.iter_rows(values_only=True))
    return {row[0]: dict(zip(rows[0], row)) for row in rows[1:]}


# A few examples in a folder: the summary's and index's rows below, benchmark logs read beside their scenario,
# named scenarios written beside their base
BATCHED = [ROOT / "examples" / f"{stem}.yaml" for stem in (
    "default", "goodput-2-benchmark-logs", "hours-1-405b", "memory-1-8b-ddp", "scenarios-1-70b-base-low-high")]
NAMED = 2  # the named scenarios among them (low and high of scenarios-1), written beside their base


@pytest.fixture(scope="session")
def examples_batch(tmp_path_factory):
    """A folder of a few examples, plus a broken scenario in the middle, written with two processes."""
    folder = tmp_path_factory.mktemp("scenarios") / "examples"
    shutil.copytree(ROOT / "examples" / "goodput-logs", folder / "goodput-logs")  # what the goodput example reads
    for example in BATCHED:
        shutil.copy(example, folder / example.name)
    (folder / "hours-0-broken.yaml").write_text("name: broken\nhours: {mfu: 1.5}\n")
    out = tmp_path_factory.mktemp("out")
    result = CliRunner().invoke(main, ["batch", str(folder), "-o", str(out), "-j", "2", "--date", "2026-01-01"])
    return folder, out, result


@pytest.mark.xdist_group("examples-batch")  # one worker writes the batch
@pytest.mark.long
def test_a_broken_scenario_is_reported_and_the_rest_go_on(examples_batch):
    folder, out, result = examples_batch
    assert result.exit_code == 1
    assert f"FAILED {folder / 'hours-0-broken.yaml'}: {folder / 'hours-0-broken.yaml'}:2: hours.mfu: value 1.5" \
        in result.output
    written = len(BATCHED) + NAMED  # each file, and each named scenario beside its base
    assert f"{written} of {written + 1} scenarios written" in result.output
    for example in BATCHED:
        slug = load_scenario(example).slug
        assert all((out / f"{slug}.{suffix}").stat().st_size > 0 for suffix in ("xlsx", "html", "json"))
    assert (out / "70b-plan-base-low-high-low.xlsx").exists() and (out / "70b-plan-base-low-high-high.xlsx").exists()


@pytest.mark.xdist_group("examples-batch")  # one worker writes the batch
@pytest.mark.long
def test_the_summary_lists_the_right_numbers(examples_batch):
    _, out, _ = examples_batch
    rows = summary_rows(out)
    assert rows["memory 1 - 8B DDP on 8 GPUs"]["Training memory per GPU (GB)"] == pytest.approx(164.991401984)
    assert rows["memory 1 - 8B DDP on 8 GPUs"]["Training fits"] is False
    assert rows["default"]["Training cost, paid once"] == pytest.approx(2 * H100_8B_GPU_HOURS)
    assert rows["hours 1 - 405B at 15.6T tokens"]["Training GPU-hours"] == pytest.approx(26_673_882.98, rel=1e-9)
    assert rows["hours-0-broken"]["Failure"].endswith("hours.mfu: value 1.5 is not allowed: Input should be less "
                                                      "than or equal to 1")
    book = openpyxl.load_workbook(out / "summary.xlsx")
    assert book["Summary"]["A2"].hyperlink.target.endswith(".xlsx")


@pytest.mark.xdist_group("examples-batch")  # one worker writes the batch
@pytest.mark.long
def test_the_index_lists_every_scenario_links_and_failures(examples_batch):
    _, out, _ = examples_batch
    page = (out / "index.html").read_text()
    assert f"{len(BATCHED) + NAMED + 1} scenarios, <strong class=\"error\">1 failed</strong>" in page
    assert 'href="memory-1-8b-ddp-on-8-gpus.xlsx"' in page
    total = json.loads((out / "memory-1-8b-ddp-on-8-gpus.json").read_text())["headline"]["plan_total_cost"]
    assert f'<td class="n" data-v="{total!r}">' in page  # the plan's total, as its JSON gives it, sorts by value
    assert "hours.mfu: value 1.5 is not allowed" in page
    assert page.count("<script") == 1  # the index's own sorting and filtering, and nothing a scenario brought


@pytest.mark.long
def test_the_same_batch_twice_gives_the_same_files(tmp_path):
    firsts = []
    for run in ("a", "b"):
        out = tmp_path / run
        run_batch([str(p) for p in EXAMPLES[:2]], out, jobs=2, date=dt.date(2026, 1, 1), progress=False)
        firsts.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert firsts[0] == firsts[1]
    assert len(firsts[0]) == 2 * 3 + 2


def test_a_sweep_expands_to_its_cartesian_product_named_after_its_values(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("name: s\nsweep:\n  memory.strategy: [ddp, zero3]\n  memory.sequence_length: [8192, 32768]\n")
    jobs, failed = jobs_of([path])
    assert not failed
    assert [job.scenario.name for job in jobs] == [
        "s [memory.strategy=ddp, memory.sequence_length=8192]", "s [memory.strategy=ddp, memory.sequence_length=32768]",
        "s [memory.strategy=zero3, memory.sequence_length=8192]",
        "s [memory.strategy=zero3, memory.sequence_length=32768]"]
    assert len({job.slug for job in jobs}) == 4
    # the DDP, 32K variant by hand: 16Ψ + 34·32768·4096·32 bytes
    total = compute(jobs[1].scenario).memory.selected["total_gb"]
    assert total == pytest.approx((16 * 8_030_261_248 + 34 * 32768 * 4096 * 32) / 1e9)


def test_run_on_a_sweep_writes_the_base_and_says_how_many_variants(tmp_path):
    path = tmp_path / "sweep.yaml"
    path.write_text("name: s\nsweep:\n  memory.strategy: [ddp, zero1, zero2, zero3]\n  memory.micro_batch: [1, 2]\n")
    done = subprocess.run([sys.executable, "-m", "planner", "run", str(path), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert "its sweep has 8 variants" in done.stderr and f"planner batch {path}" in done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["s.html", "s.json", "s.xlsx"]


def test_same_names_get_their_own_files(tmp_path, small_workbooks):
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text("name: same\n")
    outcomes = run_batch([str(tmp_path / "*.yaml")], tmp_path / "out", jobs=1, progress=False)
    assert [o.slug for o in outcomes] == ["same", "same-2"]
    assert (tmp_path / "out" / "same-2.xlsx").exists()


def test_a_path_that_names_nothing_is_a_failure(tmp_path):
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "none-*.yaml"), "-o", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 1
    assert "no scenario files" in result.output


@pytest.mark.long
def test_a_large_sweep_finishes_and_its_summary_matches_the_engine(tmp_path, small_workbooks):
    path = tmp_path / "large.yaml"
    gpus = ", ".join(str(8 * k) for k in (1, 5, 10, 15, 20, 25))  # 48 variants (200 took half the fast tier)
    path.write_text(f"name: L\nsweep:\n  memory.gpus: [{gpus}]\n  memory.strategy: [ddp, zero1, zero2, zero3]\n"
                    f"  memory.sequence_length: [4096, 8192]\n")
    outcomes = run_batch([str(path)], tmp_path / "out", jobs=2, progress=False)
    assert len(outcomes) == 48 and all(o.ok for o in outcomes)
    rows = summary_rows(tmp_path / "out")
    jobs, _ = jobs_of([path])
    for job in jobs:
        expected = compute(job.scenario).headline
        assert rows[job.scenario.name]["Training memory per GPU (GB)"] == pytest.approx(
            expected["memory_training_total_gb"], rel=1e-12)
    # one by hand: ZeRO-3 on 200 GPUs at 8K: 16Ψ/200 + 34·8192·4096·32 bytes
    zero3 = rows["L [memory.gpus=200, memory.strategy=zero3, memory.sequence_length=8192]"]
    assert zero3["Training memory per GPU (GB)"] == pytest.approx((16 * 8_030_261_248 / 200 + 36_507_222_016) / 1e9)
    page = (tmp_path / "out" / "index.html").read_text()
    assert len(re.findall(r'<a href="[^"]+\.xlsx">xlsx</a>', page)) == 48  # a row with its files per variant
    assert page.count("<table") == 1 and len(re.findall(r"<tr><th><a href", page)) == 48  # a row per variant


# Globs: each folder once, a bounded walk -------------------------------------------------------------------------
def loops(tmp_path: Path) -> Path:
    """A folder of scenarios with two symbolic links back up the tree: glob.glob's ** never finished on it."""
    top = tmp_path / "scenarios"
    for sub in ("a", "b"):
        (top / sub).mkdir(parents=True)
        (top / sub / "up").symlink_to("..")
    (top / "a" / "one.yaml").write_text("name: one\n")
    (top / "b" / "two.yaml").write_text("name: two\n")
    return top


@pytest.mark.long
def test_a_glob_over_symbolic_link_loops_reads_each_folder_once(tmp_path):
    top = loops(tmp_path)
    done = subprocess.run([sys.executable, "-m", "planner", "batch", f"{top}/**/*.yaml", "-o", str(tmp_path / "out"),
                           "-q", "-j", "1"], capture_output=True, text=True, timeout=60, cwd=ROOT,
                          env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert done.returncode == 0, done.stderr
    assert "2 of 2 scenarios written" in done.stdout
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "index.html", "one.html", "one.json", "one.xlsx", "summary.xlsx", "two.html", "two.json", "two.xlsx"]


def test_a_glob_over_too_large_a_tree_stops_at_the_limit_with_a_message(tmp_path, monkeypatch):
    from planner import globs

    monkeypatch.setattr(globs, "MAX_ENTRIES", 50)
    monkeypatch.chdir(tmp_path)  # a relative pattern: a long temporary path would be cut by the 80-character rule
    for i in range(60):
        (tmp_path / f"s{i}.yaml").write_text(f"name: s{i}\n")
    result = CliRunner().invoke(main, ["batch", "**/*.yaml", "-o", "out", "-q"])
    assert result.exit_code == 1
    assert ("FAILED **/*.yaml: **/*.yaml: the pattern looked through more than 50 folder entries, the most one "
            "pattern may: name a smaller folder, or fewer levels than **") in result.output


# Every output path, checked before anything is written ---------------------------------------------------------
def test_a_batch_whose_index_would_replace_a_folder_writes_nothing(tmp_path):
    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\n")
    out = tmp_path / "out"
    (out / "index.html").mkdir(parents=True)
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "-o", str(out),
                                       "-q"])
    assert result.exit_code == 2
    assert result.output == f"error: {out}/index.html: a folder is where this output file goes: move or remove it\n"
    assert [p.name for p in out.iterdir()] == ["index.html"]


def test_a_batch_that_would_replace_one_of_its_scenarios_or_logs_writes_nothing(tmp_path):
    (tmp_path / "a.json").write_text("name: a\n")  # its outputs would include a.json
    (tmp_path / "b.yaml").write_text("name: b\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "b.yaml"), str(tmp_path / "a.json"), "-o",
                                       str(tmp_path), "-q"])
    assert result.exit_code == 2
    assert result.output == (f"error: {tmp_path}/a.json: the run reads this file: an output never replaces an "
                             f"input; write elsewhere (-o)\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.json", "b.yaml"]
    (tmp_path / "a.json").unlink()
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "c.json").write_text('{"request_rate": 2, "duration": 10.0, "completed": 1, "input_lens": '
                                              '[10], "output_lens": [5], "ttfts": [0.1], "latencies": [0.14], '
                                              '"errors": [""]}')
    (tmp_path / "c.yaml").write_text("name: c\ngoodput: {benchmarks: [{name: b, files: [logs/c.json]}]}\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "b.yaml"), str(tmp_path / "c.yaml"), "-o",
                                       str(tmp_path / "logs"), "-q"])
    assert result.exit_code == 2 and f"{tmp_path}/logs/c.json: the run reads this file" in result.output
    assert sorted(p.name for p in (tmp_path / "logs").iterdir()) == ["c.json"]


@pytest.mark.long
def test_slugs_that_collide_with_the_batchs_own_files_or_each_other_are_renamed_and_said(tmp_path,
                                                                                          small_workbooks):
    for file, name in (("a", "index"), ("b", "summary"), ("c", "Summary!"), ("d", "other")):
        (tmp_path / f"{file}.yaml").write_text(f"name: {name}\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(tmp_path), "-o", str(out), "-q", "-j", "1"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[:3] == [
        f"renamed: {tmp_path}/a.yaml: index is written as index-2.xlsx, .html and .json: index.* is taken by "
        f"index.html, the batch's index",
        f"renamed: {tmp_path}/b.yaml: summary is written as summary-2.xlsx, .html and .json: summary.* is taken by "
        f"summary.xlsx, the batch's summary",
        f"renamed: {tmp_path}/c.yaml: Summary! is written as summary-3.xlsx, .html and .json: summary.* is taken by "
        f"summary.xlsx, the batch's summary"]
    assert sorted(p.name for p in out.iterdir()) == sorted(
        ["index.html", "summary.xlsx"] + [f"{s}.{x}" for s in ("index-2", "summary-2", "summary-3", "other")
                                          for x in ("xlsx", "html", "json")])
    assert "4 scenarios" in (out / "index.html").read_text()  # the batch's index, not a scenario's summary
    assert openpyxl.load_workbook(out / "summary.xlsx").sheetnames == ["Summary"]


def test_a_batch_of_more_scenarios_than_its_summary_holds_is_refused_before_writing(tmp_path, monkeypatch):
    import planner.batch

    monkeypatch.setattr(planner.batch, "MAX_SCENARIOS", 3)
    (tmp_path / "s.yaml").write_text("name: s\nsweep: {memory.strategy: [ddp, zero1, zero2, zero3]}\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q"])
    assert result.exit_code == 2
    assert result.output == (f"error: {tmp_path}/s.yaml: brings the batch to 4 scenarios; a batch writes at most 3 "
                             f"unless --yes (summary.xlsx has a row each): split it\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.long
def test_the_sweep_example_writes_one_set_per_variant_named_after_its_values(tmp_path, small_workbooks):
    """examples/sweeps/: three MFUs × three prices give nine scenarios, each file named after the scenario's name
    and its values; one cost by hand: 6·Ψ·T / (989e12 · 0.5 · 3600) GPU-hours at $2.50."""
    outcomes = run_batch([str(ROOT / "examples" / "sweeps")], tmp_path / "out", jobs=1, progress=False)
    assert len(outcomes) == 9 and all(o.ok for o in outcomes)
    stem = "hours-405b-sweep-hours-mfu-0-5-price-per-gpu-hour-2-5"
    assert {p.name for p in (tmp_path / "out").glob(f"{stem}.*")} == {f"{stem}.xlsx", f"{stem}.html", f"{stem}.json"}
    headline = json.loads((tmp_path / "out" / f"{stem}.json").read_text())["headline"]
    gpu_hours = 6 * 405_853_388_800 * 15.6e12 / (989e12 * 0.5 * 3600)  # 21.34 M GPU-hours
    assert headline["hours_cost"] == pytest.approx(gpu_hours * 2.50, rel=1e-12)


# --resume ---------------------------------------------------------------------------------------------------------
def _stats(folder: Path) -> dict[str, int]:
    """Each file's inode: a file written again is a new one (write_files renames a new file into place)."""
    return {path.name: path.stat().st_ino for path in folder.iterdir()}


def test_resume_writes_only_the_scenarios_whose_files_are_missing(tmp_path, small_workbooks):
    sweep = tmp_path / "s.yaml"
    sweep.write_text("name: s\nsweep: {memory.strategy: [ddp, zero1, zero2, zero3]}\n")
    out = tmp_path / "out"
    first = run_batch([str(sweep)], out, jobs=1, date=dt.date(2026, 1, 1), progress=False)
    before = {path.name: path.read_bytes() for path in out.iterdir()}
    (out / "s-memory-strategy-zero1.xlsx").unlink()  # as an interrupted batch leaves it: one set missing, ...
    for suffix in ("xlsx", "html", "json"):
        (out / f"s-memory-strategy-zero3.{suffix}").unlink()  # ... or all of it
    inodes = _stats(out)
    result = CliRunner().invoke(main, ["batch", str(sweep), "-o", str(out), "-q", "-j", "1", "--resume",
                                       "--date", "2026-01-01"])
    assert result.exit_code == 0, result.output
    assert f"4 of 4 scenarios written to {out} (2 kept as they were: --resume)" in result.output
    after = _stats(out)
    kept = {name for name in inodes if inodes[name] == after.get(name)}
    assert kept == {f"s-memory-strategy-{s}.{x}" for s in ("ddp", "zero2") for x in ("xlsx", "html", "json")}
    assert {path.name: path.read_bytes() for path in out.iterdir()} == before  # the same files, index included
    assert [o.slug for o in first] == [f"s-memory-strategy-{s}" for s in ("ddp", "zero1", "zero2", "zero3")]


def test_resume_writes_again_what_another_scenario_or_planner_version_wrote(tmp_path, small_workbooks,
                                                                            monkeypatch):
    import planner

    for name in ("a", "b"):
        (tmp_path / f"{name}.yaml").write_text(f"name: {name}\nmemory: {{gpus: 8}}\n")
    out = tmp_path / "out"
    run_batch([str(tmp_path)], out, jobs=1, progress=False)
    (tmp_path / "a.yaml").write_text("name: a\nmemory: {gpus: 16}\n")  # a changed since its files were written
    outcomes = run_batch([str(tmp_path)], out, jobs=1, progress=False, resume=True)
    assert [(o.slug, o.resumed) for o in outcomes] == [("a", False), ("b", True)]
    assert json.loads((out / "a.json").read_text())["scenario"]["memory"]["gpus"] == 16
    monkeypatch.setattr(planner, "__version__", "0.0.0-other")
    outcomes = run_batch([str(tmp_path)], out, jobs=1, progress=False, resume=True)
    assert [(o.slug, o.resumed) for o in outcomes] == [("a", False), ("b", False)]
    assert json.loads((out / "b.json").read_text())["planner"]["version"] == "0.0.0-other"


def test_resume_keeps_nothing_whose_json_is_not_the_planners(tmp_path, small_workbooks):
    (tmp_path / "a.yaml").write_text("name: a\n")
    out = tmp_path / "out"
    run_batch([str(tmp_path / "a.yaml")], out, jobs=1, progress=False)
    (out / "a.json").write_text("{not json")
    assert [o.resumed for o in run_batch([str(tmp_path / "a.yaml")], out, jobs=1, progress=False, resume=True)] \
        == [False]
    assert json.loads((out / "a.json").read_text())["planner"]["scenario_sha256"]


# Scale: what is said before and while a batch runs; the limit -------------------------------------------------------
def test_a_batch_says_each_sweeps_size_before_expanding_it_and_shows_a_bar_on_every_long_step(tmp_path, monkeypatch,
                                                                                              small_workbooks):
    import planner.batch

    monkeypatch.setattr(planner.batch, "DELAY", 0)  # every bar shown at once, however quick the step
    (tmp_path / "s.yaml").write_text("name: s\nsweep: {memory.strategy: [ddp, zero1, zero2, zero3], "
                                     "memory.sequence_length: [4096, 8192]}\n")
    (tmp_path / "t.yaml").write_text("name: t\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "*.yaml"), "-o", str(tmp_path / "out"), "-j", "1"])
    assert result.exit_code == 0, result.output
    said = result.output.index(f"planner batch: {tmp_path}/s.yaml: a sweep of 8 variants, expanding")
    assert said < result.output.index("expanding the sweep: 100%") < result.output.index("9 scenarios to write")
    for step in ("finding scenario files", "reading scenarios: 100%", "planner batch: 100%",
                 "writing index.html: 100%", "writing summary.xlsx: 100%"):
        assert step in result.output
    assert "scenario/s]" in result.output  # with its rate


def test_a_batch_past_the_limit_is_written_with_yes(tmp_path, monkeypatch, small_workbooks):
    import planner.batch
    from planner.scenario import sweep

    monkeypatch.setattr(planner.batch, "MAX_SCENARIOS", 3)
    monkeypatch.setattr(sweep, "MAX_VARIANTS", 3)
    (tmp_path / "s.yaml").write_text("name: s\nsweep: {memory.strategy: [ddp, zero1, zero2, zero3]}\n")
    command = ["batch", str(tmp_path / "s.yaml"), "-o", str(tmp_path / "out"), "-q", "-j", "1"]
    refused = CliRunner().invoke(main, command)
    assert refused.exit_code == 1
    assert (f"FAILED {tmp_path}/s.yaml: {tmp_path}/s.yaml:2: sweep: 4 variants (4 values); a sweep may have at "
            f"most 3 (`planner batch --yes`: 1,048,575)") in refused.output
    result = CliRunner().invoke(main, [*command, "--yes"])
    assert result.exit_code == 0, result.output
    assert "4 of 4 scenarios written" in result.output
    assert sweep.MAX_VARIANTS == 3  # lifted while the batch read its scenarios, not after


def test_resume_writes_again_a_scenario_whose_benchmark_log_changed(tmp_path, small_workbooks):
    log = {"request_rate": 2, "duration": 10.0, "completed": 1, "input_lens": [10], "output_lens": [5],
           "ttfts": [0.1], "latencies": [0.14], "errors": [""]}
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "c.json").write_text(json.dumps(log))
    (tmp_path / "c.yaml").write_text("name: c\ngoodput: {benchmarks: [{name: b, files: [logs/c.json]}]}\n")
    out = tmp_path / "out"
    run_batch([str(tmp_path / "c.yaml")], out, jobs=1, progress=False)
    assert [o.resumed for o in run_batch([str(tmp_path / "c.yaml")], out, jobs=1, progress=False, resume=True)] \
        == [True]
    (tmp_path / "logs" / "c.json").write_text(json.dumps({**log, "ttfts": [0.125]}))  # the same scenario file
    assert [o.resumed for o in run_batch([str(tmp_path / "c.yaml")], out, jobs=1, progress=False, resume=True)] \
        == [False]


# Variants made one at a time (issue 46, item 3's memory bound) ------------------------------------------------------
def counting(monkeypatch) -> dict:
    """How many variants a batch made (`made`), and how many of them were alive at most (`most`) when an outcome
    was spooled: the parent's (a worker is sent its variant made, and never makes one); checking the file, which
    makes each variant and lets it go, is not counted."""
    import gc
    import weakref

    import planner.batch

    counts, alive = {"made": 0, "most": 0}, []
    make, add = planner.batch.Job.made, planner.batch.Spool.add

    def made(job):
        ready = make(job)
        if job.variants is not None:
            counts["made"] += 1
            alive.append(weakref.ref(ready.held))
        return ready

    def spooled(self, outcome, axes=None):
        gc.collect()
        counts["most"] = max(counts["most"], sum(ref() is not None for ref in alive))
        return add(self, outcome, axes)

    monkeypatch.setattr(planner.batch.Job, "made", made)
    monkeypatch.setattr(planner.batch.Spool, "add", spooled)
    return counts


@pytest.fixture
def in_flight(monkeypatch):
    return counting(monkeypatch)


def test_reading_a_sweep_checks_each_variant_and_keeps_none(tmp_path, monkeypatch):
    """The file's 12 variants are each parsed when it is read (a bad one stops it there) and let go: none is alive
    afterwards, and its variants are made again one at a time, in the sweep's order, when asked for."""
    import gc
    import weakref

    import planner.scenario

    alive, parse = [], planner.scenario.parse_scenario

    def parsed(data, *args, **kwargs):
        scenario = parse(data, *args, **kwargs)
        if data.get("name", "").startswith("s ["):
            alive.append(weakref.ref(scenario))
        return scenario

    monkeypatch.setattr(planner.scenario, "parse_scenario", parsed)
    path = tmp_path / "s.yaml"
    path.write_text("name: s\nsweep:\n  memory.strategy: [ddp, zero1, zero2, zero3]\n  memory.micro_batch: [1, 2, 4]\n")
    variants = load_scenario(path).variants()
    gc.collect()
    assert len(alive) == 12 and not any(ref() for ref in alive)  # each checked once, none kept
    assert not isinstance(variants, (list, tuple)) and len(variants) == 12
    made = iter(variants)
    assert next(made)[1].name == "s [memory.strategy=ddp, memory.micro_batch=1]" and len(alive) == 13
    assert [variants.label(k) for k in (1, 3, 11)] == [
        "memory.strategy=ddp, memory.micro_batch=2", "memory.strategy=zero1, memory.micro_batch=1",
        "memory.strategy=zero3, memory.micro_batch=4"]  # itertools.product's order, the last key fastest


def test_one_process_makes_each_variant_as_it_writes_it(tmp_path, small_workbooks, in_flight):
    (tmp_path / "s.yaml").write_text("name: s\nsweep: {memory.strategy: [ddp, zero1, zero2, zero3]}\n")
    outcomes = run_batch([str(tmp_path / "s.yaml")], tmp_path / "out", jobs=1, progress=False)
    assert [o.name for o in outcomes] == [f"s [memory.strategy={s}]" for s in ("ddp", "zero1", "zero2", "zero3")]
    assert in_flight["made"] == 4 and in_flight["most"] == 1  # before: all 4 made when the file was read


@pytest.mark.long
def test_worker_processes_have_a_bounded_number_of_variants_in_flight(tmp_path, small_workbooks, in_flight,
                                                                      monkeypatch):
    import planner.batch

    monkeypatch.setattr(planner.batch, "IN_FLIGHT_PER_WORKER", 2)  # 2 workers × 2: 4 ahead at most, of 16
    (tmp_path / "s.yaml").write_text("name: s\nsweep: {memory.strategy: [ddp, zero1, zero2, zero3], "
                                     "memory.micro_batch: [1, 2, 4, 8]}\n")
    outcomes = run_batch([str(tmp_path / "s.yaml")], tmp_path / "out", jobs=2, progress=False)
    assert len(outcomes) == 16 and all(o.ok for o in outcomes)
    assert [o.name for o in outcomes][:2] == ["s [memory.strategy=ddp, memory.micro_batch=1]",
                                              "s [memory.strategy=ddp, memory.micro_batch=2]"]  # the sweep's order
    assert in_flight["made"] == 16 and in_flight["most"] <= 4


def test_a_glob_of_files_holds_no_scenario_until_its_task_is_submitted(tmp_path, small_workbooks, monkeypatch):
    """Issue 46 item 3 for files as for sweeps: reading 6 files (one with a named scenario beside its own) checks
    each and keeps none; each is read again when its task is submitted, and the batch's outcomes are the 7
    scenarios in the files' order."""
    import gc
    import weakref

    import planner.scenario

    alive, parse = [], planner.scenario.parse_scenario

    def parsed(data, *args, **kwargs):
        scenario = parse(data, *args, **kwargs)
        alive.append(weakref.ref(scenario))
        return scenario

    monkeypatch.setattr(planner.scenario, "parse_scenario", parsed)
    for k in range(5):
        (tmp_path / f"f{k}.yaml").write_text(f"name: f{k}\nmemory: {{micro_batch: {k + 1}}}\n")
    (tmp_path / "f5.yaml").write_text("name: f5\nscenarios: {big: {memory.micro_batch: 8}}\n")
    import planner.batch

    files, _ = planner.batch.scenario_files([str(tmp_path / "f*.yaml")])
    jobs, failed = planner.batch.jobs_of(files)
    gc.collect()
    assert not failed and len(jobs) == 7 and not any(ref() for ref in alive)  # each read once, none kept
    assert all(job.held is None for job in jobs)
    outcomes = run_batch([str(tmp_path / "f*.yaml")], tmp_path / "out", jobs=1, progress=False)
    assert [o.name for o in outcomes] == ["f0", "f1", "f2", "f3", "f4", "f5", "f5 [big]"]
    assert all(o.ok for o in outcomes)
