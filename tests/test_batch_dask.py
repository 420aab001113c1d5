"""`planner batch --scheduler`: each scenario a task on a Dask cluster, its files' bytes returned and written by the
client all or nothing; the same files as one process; a failing scenario reported and the rest going on; a worker
killed mid-task; Ctrl-C; the missing extra. Most run on an in-process LocalCluster (threads: quick, and
conftest's small_workbooks applies in its workers); the `long` ones start worker processes."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner import output
from planner.batch import run_batch
from planner.cli import main
from tests.conftest import ROOT, _required
from tests.helpers import small_workbook

SWEEP = ("name: d\nsweep:\n  memory.strategy: [ddp, zero1, zero2]\n  memory.sequence_length: [4096, 8192]\n")  # 6
CHECKOUT = {"PYTHONPATH": str(ROOT), "PATH": os.environ.get("PATH", "")}


def files_of(folder: Path) -> dict[str, bytes]:
    return {path.name: path.read_bytes() for path in sorted(folder.iterdir())}


@pytest.fixture(scope="module")
def threads_cluster():
    """A LocalCluster of two workers in this process (threads), its address."""
    _required(importlib.util.find_spec("distributed") and "found", "Dask (pip install 'planner[dask]')")
    from distributed import LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0",
                           silence_logs=40)
    yield cluster.scheduler_address
    cluster.close()


def test_a_cluster_of_two_workers_gives_the_same_files_as_one_process(tmp_path, small_workbooks, threads_cluster):
    sweep = tmp_path / "d.yaml"
    sweep.write_text(SWEEP)
    one = run_batch([str(sweep)], tmp_path / "one", jobs=1, date=None, progress=False)
    dask = run_batch([str(sweep)], tmp_path / "dask", scheduler=threads_cluster, progress=False)
    assert [o.slug for o in dask] == [o.slug for o in one] and len(one) == 6 and all(o.ok for o in dask)
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "one")  # workbooks, pages, JSON, index and summary
    assert len(files_of(tmp_path / "dask")) == 6 * 3 + 2


def test_a_scenario_failing_on_a_worker_is_reported_and_the_rest_are_written(tmp_path, monkeypatch,
                                                                             threads_cluster):
    def breaks_on_zero1(results, file, *, generated=None):
        if "zero1" in results.scenario.name:
            raise RuntimeError("the workbook could not be made")
        small_workbook(results, file)

    monkeypatch.setattr(output, "build", breaks_on_zero1)
    sweep = tmp_path / "d.yaml"
    sweep.write_text(SWEEP)
    outcomes = run_batch([str(sweep)], tmp_path / "out", scheduler=threads_cluster, progress=False)
    failed = [o for o in outcomes if not o.ok]
    assert [o.name for o in failed] == ["d [memory.strategy=zero1, memory.sequence_length=4096]",
                                        "d [memory.strategy=zero1, memory.sequence_length=8192]"]
    assert all(o.error == "RuntimeError: the workbook could not be made" for o in failed)
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert len(names) == 4 * 3 + 2 and not any("zero1" in name for name in names)  # nothing of theirs, no part
    assert "RuntimeError: the workbook could not be made" in (tmp_path / "out" / "index.html").read_text()


def test_without_dask_the_scheduler_option_names_the_extra_and_exits_2(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed raises ImportError
    (tmp_path / "a.yaml").write_text("name: a\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "a.yaml"), "-o", str(tmp_path / "out"),
                                       "--scheduler", "local:2", "-q"])
    assert result.exit_code == 2
    assert result.output == ("error: --scheduler needs Dask, an optional extra of the planner: pip install "
                             "'planner[dask]' (dask and distributed)\n")
    assert not (tmp_path / "out").exists()


def test_jobs_and_a_scheduler_together_are_refused(tmp_path):
    (tmp_path / "a.yaml").write_text("name: a\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "a.yaml"), "-o", str(tmp_path / "out"), "-j", "2",
                                       "--scheduler", "local:2", "-q"])
    assert result.exit_code == 2
    assert result.output == ("error: -j and --scheduler: -j is this machine's processes, --scheduler a Dask "
                             "cluster's workers (local:N for N here): give one\n")
    assert not (tmp_path / "out").exists()


def test_a_local_scheduler_takes_a_whole_number_of_workers(tmp_path):
    _required(importlib.util.find_spec("distributed") and "found", "Dask (pip install 'planner[dask]')")
    (tmp_path / "a.yaml").write_text("name: a\n")
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "a.yaml"), "-o", str(tmp_path / "out"),
                                       "--scheduler", "local:two", "-q"])
    assert result.exit_code == 2
    assert result.output == "error: --scheduler local:two: local:N takes N from 1 to 256 worker processes\n"


# Worker processes ---------------------------------------------------------------------------------------------------
@pytest.mark.long
def test_local_worker_processes_give_the_same_files_as_one_process(tmp_path):
    _required(importlib.util.find_spec("distributed") and "found", "Dask (pip install 'planner[dask]')")
    (tmp_path / "d.yaml").write_text("name: d\nsweep: {memory.strategy: [ddp, zero3]}\n")
    for out, how in (("one", ["-j", "1"]), ("dask", ["--scheduler", "local:2"])):
        done = subprocess.run([sys.executable, "-m", "planner", "batch", str(tmp_path / "d.yaml"), "-o",
                               str(tmp_path / out), "-q", "--date", "2026-01-01", *how], capture_output=True,
                              text=True, timeout=300, cwd=ROOT, env=CHECKOUT)
        assert done.returncode == 0, done.stderr
        assert done.stderr == ""  # -q: not a word from Dask either (its dashboard's port, its logs)
    assert files_of(tmp_path / "dask") == files_of(tmp_path / "one")
    assert len(files_of(tmp_path / "one")) == 2 * 3 + 2


def _descendants(pid: int) -> list:
    import psutil

    return psutil.Process(pid).children(recursive=True)


@pytest.mark.long
def test_ctrl_c_cancels_the_tasks_ends_the_workers_and_leaves_whole_sets(tmp_path):
    _required(importlib.util.find_spec("distributed") and "found", "Dask (pip install 'planner[dask]')")
    import psutil

    (tmp_path / "d.yaml").write_text("name: d\nsweep: {memory.gpus: [8, 16, 24, 32, 40, 48, 56, 64]}\n")
    out = tmp_path / "out"
    batch = subprocess.Popen([sys.executable, "-m", "planner", "batch", str(tmp_path / "d.yaml"), "-o", str(out),
                              "-q", "--scheduler", "local:2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT, env=CHECKOUT, start_new_session=True)
    deadline = time.monotonic() + 240
    while not (out.exists() and any(out.glob("*.json"))) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert batch.poll() is None, batch.stderr.read()
    workers = _descendants(batch.pid)
    assert len(workers) >= 2  # the LocalCluster's processes
    os.killpg(batch.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    assert batch.wait(timeout=120) == 130, batch.stderr.read()
    assert "stopped by Ctrl-C (SIGINT)" in batch.stderr.read()
    gone, alive = psutil.wait_procs(workers, timeout=30)
    assert not alive  # no orphaned worker
    names = sorted(p.name for p in out.iterdir())
    assert not [name for name in names if name.startswith(".")]  # no temporary part left
    slugs = {name.rsplit(".", 1)[0] for name in names}
    assert all(f"{slug}.{suffix}" in names for slug in slugs for suffix in ("xlsx", "html", "json"))  # whole sets
    assert len(slugs) < 8 and "index.html" not in names
    # --resume after the interruption writes only the scenarios it had not
    inodes = {name: (out / name).stat().st_ino for name in names}
    done = subprocess.run([sys.executable, "-m", "planner", "batch", str(tmp_path / "d.yaml"), "-o", str(out), "-q",
                           "--scheduler", "local:2", "--resume"], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env=CHECKOUT)
    assert done.returncode == 0, done.stderr
    assert f"({len(slugs)} kept as they were: --resume)" in done.stdout
    assert all((out / name).stat().st_ino == inode for name, inode in inodes.items())
    assert len(list(out.iterdir())) == 8 * 3 + 2


@pytest.mark.long
def test_a_worker_killed_mid_task_leaves_the_batch_finishing_with_nothing_partial(tmp_path):
    _required(importlib.util.find_spec("distributed") and "found", "Dask (pip install 'planner[dask]')")
    import psutil
    from distributed import Client, LocalCluster

    (tmp_path / "d.yaml").write_text("name: d\nsweep: {memory.gpus: [8, 16, 24, 32]}\n")
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0",
                           silence_logs=50)
    client = Client(cluster)
    try:
        found: dict = {}
        batch = threading.Thread(target=lambda: found.setdefault("outcomes", run_batch(
            [str(tmp_path / "d.yaml")], tmp_path / "out", scheduler=cluster.scheduler_address, progress=False)))
        batch.start()
        deadline = time.monotonic() + 120
        while not any(client.processing().values()) and time.monotonic() < deadline:
            time.sleep(0.05)
        busy = next(address for address, tasks in client.processing().items() if tasks)
        pid = client.run(os.getpid, workers=[busy])[busy]
        psutil.Process(pid).kill()  # SIGKILL: the task is lost with its worker, and tried again elsewhere
        batch.join(timeout=300)
        assert not batch.is_alive()
    finally:
        client.close()
        cluster.close()
    outcomes = found["outcomes"]
    assert len(outcomes) == 4
    assert all(o.ok or o.error.startswith("the Dask task failed: KilledWorker") for o in outcomes)
    names = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert not [name for name in names if name.startswith(".")]
    assert len(names) == 3 * sum(o.ok for o in outcomes) + 2


def test_the_cluster_is_given_a_bounded_number_of_variants_at_a_time(tmp_path, small_workbooks, threads_cluster,
                                                                     monkeypatch):
    """Each variant is made as its task is submitted: 2 worker threads × 1 ahead, and the next submitted as one
    finishes, before its files are written: at most 3 of the 6 exist at once (all 6 did, made when the file was
    read, before variants were made lazily)."""
    import planner.batch
    from tests.test_batch import counting

    monkeypatch.setattr(planner.batch, "IN_FLIGHT_PER_WORKER", 1)
    sweep = tmp_path / "d.yaml"
    sweep.write_text(SWEEP)
    counts = counting(monkeypatch)
    outcomes = run_batch([str(sweep)], tmp_path / "out", scheduler=threads_cluster, progress=False)
    assert len(outcomes) == 6 and all(o.ok for o in outcomes)
    assert counts["made"] == 6 and counts["most"] <= 3
