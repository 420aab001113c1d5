"""`planner batch`: files, folders and globs of scenarios, their sweeps expanded, written in parallel; then
index.html (a row per scenario: headline results, links, every failure with its message) and summary.xlsx (a row
per scenario: its headline results and a link to its workbook).

A failing scenario is reported and the others go on. Outputs are written all or nothing, as `planner run` writes
them; with the date fixed, the same batch gives the same files.

The worker processes end with their parent: Ctrl-C (which reaches the whole process group) and SIGTERM are the
parent's to handle, and it stops its workers with SIGTERM, each removing its set's temporary files on the way out;
a worker whose parent is gone (SIGKILL gives the parent no chance to say so) stops itself within a second.
"""

from __future__ import annotations

import datetime as dt
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from tqdm import tqdm

from planner import globs
from planner.output import OutputError, check_targets, computed, output_names, write_files, write_outputs
from planner.scenario import Scenario, ScenarioError, load_scenario, slugify
from planner.scenario.errors import cut, quoted
from planner.tables import TABLES

SCENARIO_SUFFIXES = (".yaml", ".yml")


@dataclass
class Outcome:
    """One scenario of a batch: written (with its headline results) or failed (with the message)."""

    name: str
    slug: str
    source: str
    currency: str = ""
    headline: dict = field(default_factory=dict)
    error: str = ""
    renamed: str = ""  # why its files have another slug than its name's, in words (said in the output)

    @property
    def ok(self) -> bool:
        return not self.error


@dataclass
class Job:
    scenario: Scenario
    slug: str
    source: str
    renamed: str = ""


def scenario_files(paths: list[str]) -> tuple[list[Path], list[Outcome]]:
    """The scenario files that PATHs name: files as given, folders' *.yaml and *.yml (sorted), glob patterns
    expanded (sorted; planner.globs: each folder once, at most MAX_ENTRIES entries looked through); a path that
    names nothing, or a pattern that looks through too much, is a failure of its own."""
    found: list[Path] = []
    missing: list[Outcome] = []
    for path in paths:
        if globs.has_magic(path):
            try:
                matches = [Path(p) for p in globs.matches(path) if Path(p).suffix in SCENARIO_SUFFIXES]
            except globs.GlobError as exc:
                missing.append(Outcome(path, slugify(path), path, error=str(exc)))
                continue
        elif Path(path).is_dir():
            matches = sorted(p for p in Path(path).iterdir() if p.suffix in SCENARIO_SUFFIXES and p.is_file())
        else:
            matches = [Path(path)]
        if not matches:
            missing.append(Outcome(path, slugify(path), path, error=f"{cut(path)}: no scenario files (*.yaml, *.yml)"))
        found += [m for m in matches if m not in found]
    return found, missing


BATCH_FILES = {"index": "index.html, the batch's index", "summary": "summary.xlsx, the batch's summary"}
MAX_SCENARIOS = 100_000  # summary.xlsx holds a row each, and Excel's grid 1,048,576


def jobs_of(files: list[Path]) -> tuple[list[Job], list[Outcome]]:
    """A job per scenario, one per variant of a sweep; each slug unique in the batch and none the batch's own
    files' (index, summary): a repeated one gets -2, -3 … in order, and the job says why. A file that cannot be
    read or validated is a failure. More than MAX_SCENARIOS in all is refused (OutputError)."""
    jobs: list[Job] = []
    failed: list[Outcome] = []
    taken: dict[str, str] = dict(BATCH_FILES)  # slug → what holds it, in words

    def unique(slug: str, holder: str) -> tuple[str, str]:
        n, candidate = 2, slug
        while candidate in taken:
            candidate, n = f"{slug}-{n}", n + 1
        renamed = "" if candidate == slug else f"{slug}.* is taken by {taken[slug]}"
        taken[candidate] = holder
        return candidate, renamed

    for path in files:
        try:
            scenario = load_scenario(path)
            found = [variant for _, variant in scenario.variants()] or [scenario]
            found += [named for _, named in scenario.named_scenarios()]  # each beside the base, as its own file
        except ScenarioError as exc:
            slug, _ = unique(slugify(path.stem), f"{cut(str(path))}'s")
            failed.append(Outcome(path.stem, slug, str(path), error="\n".join(exc.problems)))
            continue
        if len(jobs) + len(found) > MAX_SCENARIOS:
            raise OutputError(f"{cut(str(path))}: brings the batch to {len(jobs) + len(found):,} scenarios; a batch "
                              f"writes at most {MAX_SCENARIOS:,} (summary.xlsx has a row each): split it")
        for s in found:
            slug, renamed = unique(s.slug, f"the files of {quoted(s.name)} ({cut(str(path))})")
            jobs.append(Job(s, slug, str(path), renamed))
    return jobs, failed


def output_paths_checked(jobs: list[Job], files: list[Path], out_dir: Path) -> None:
    """Every file the batch will write (each scenario's three, index.html, summary.xlsx), checked before any is:
    each absent or a regular file, and none one of the batch's inputs (scenarios, benchmark logs). OutputError
    names the first that is not."""
    names = [name for job in jobs for name in output_names(job.slug)] + ["index.html", "summary.xlsx"]
    inputs = list(files) + [path for job in jobs for path in job.scenario.input_files()]
    check_targets(out_dir, names, inputs)


def _write(job: Job, out_dir: Path, date: dt.date) -> Outcome:
    """One scenario's outputs (in a worker process)."""
    outcome = Outcome(job.scenario.name, job.slug, job.source, job.scenario.currency, renamed=job.renamed)
    try:
        results = computed(job.scenario, generated=date)
        write_outputs(job.scenario, out_dir, generated=date, slug=job.slug, results=results)
        outcome.headline = results.headline
    except (OutputError, ScenarioError) as exc:
        outcome.error = str(exc)
    except Exception as exc:  # a failure of one scenario must not stop the batch: reported with its type
        outcome.error = f"{type(exc).__name__}: {cut(str(exc))}"
    return outcome


# Worker processes -----------------------------------------------------------------------------------------------
PARENT_POLL_S = 0.1  # how often a worker looks whether its parent is still there
WORKER_GRACE_S = 0.8  # how long a stopping worker has to remove its temporary files before it is ended outright
# (on a loaded machine it may need longer: what it leaves, the next writer into the folder removes)


def _worker_started() -> None:
    """In each worker, first: Ctrl-C left to the parent; SIGTERM ends the worker as it ends a run (its temporary
    files removed on the way out, exit 143); and a thread that ends the worker once its parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _exit_143)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), name="watch-parent", daemon=True).start()


def _exit_143(signum, frame) -> None:
    raise SystemExit(128 + signum)


def _watch_parent(parent: int) -> None:
    """Wait for the parent to go (the worker is then handed to another process), then stop the worker: SIGTERM,
    and outright after WORKER_GRACE_S if it has not ended by then (the next writer repairs what it left)."""
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(WORKER_GRACE_S)
    os._exit(128 + signal.SIGTERM)


def _work(job: Job, out_dir: Path, date: dt.date) -> Outcome:
    """_write in a worker; SIGTERM ends the worker once its files are cleaned up (the executor would otherwise
    send the SystemExit back as a result and go on to the next scenario)."""
    try:
        return _write(job, out_dir, date)
    except SystemExit as stop:
        os._exit(stop.code if isinstance(stop.code, int) else 1)


def _end_workers(pool: ProcessPoolExecutor) -> None:
    """Stop every worker (SIGTERM: each removes its temporary files), waiting WORKER_GRACE_S for them, then end
    those still there; queued scenarios are cancelled."""
    processes = list((pool._processes or {}).values())  # no public way to the workers before Python 3.14
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    deadline = time.monotonic() + WORKER_GRACE_S
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.kill()
            process.join(1.0)


def _in_workers(todo: list[Job], out_dir: Path, date: dt.date, workers: int, bar) -> dict[str, Outcome]:
    """Each job's outcome by slug, written by `workers` processes; a signal or failure here ends them all."""
    done: dict[str, Outcome] = {}
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_started)
    try:
        futures = [pool.submit(_work, job, out_dir, date) for job in todo]
        for future in as_completed(futures):
            outcome = future.result()
            done[outcome.slug] = outcome
            bar.update()
    except BaseException:
        _end_workers(pool)
        raise
    pool.shutdown()
    return done


def run_batch(paths: list[str], out_dir: Path, *, jobs: int | None = None, date: dt.date | None = None,
              progress: bool = True) -> list[Outcome]:
    """Write every scenario's outputs, then index.html and summary.xlsx; returns the outcomes in input order."""
    out_dir = Path(out_dir)
    date = date or dt.date.today()
    files, outcomes = scenario_files(paths)
    todo, failed = jobs_of(files)
    output_paths_checked(todo, files, out_dir)
    outcomes += failed
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    bar = tqdm(total=len(todo), unit="scenario", disable=not progress, desc="planner batch")
    done: dict[str, Outcome] = {}
    try:
        if workers == 1:
            for job in todo:
                done[job.slug] = _write(job, out_dir, date)
                bar.update()
        else:
            done = _in_workers(todo, out_dir, date, workers, bar)
    finally:
        bar.close()
    outcomes += [done[job.slug] for job in todo]
    order = {str(p): i for i, p in enumerate(files)}
    outcomes.sort(key=lambda o: order.get(o.source, -1))  # input order; variants in sweep order (a stable sort)
    write_index(outcomes, out_dir, date)
    return outcomes


# The index and the summary ---------------------------------------------------------------------------------
def summary_columns() -> list[tuple[str, str, str]]:
    """(headline name, heading, kind) of every table's summary results, in table order."""
    return [column for table in TABLES for column in table.report.SUMMARY]


def summary_table(outcomes: list[Outcome]) -> pd.DataFrame:
    """A row per scenario: name, slug, source, error and each summary result (blank where it failed)."""
    names = [name for name, _, _ in summary_columns()]
    return pd.DataFrame([{"name": o.name, "slug": o.slug, "source": o.source, "error": o.error,
                          "currency": o.currency, **{n: o.headline.get(n) for n in names}} for o in outcomes],
                        columns=["name", "slug", "source", "error", "currency", *names])


def write_index(outcomes: list[Outcome], out_dir: Path, date: dt.date) -> None:
    """index.html and summary.xlsx, never over a scenario file of the batch."""
    from planner.report import render_index
    from planner.workbook.summary import write_summary

    table = summary_table(outcomes)
    write_files(out_dir, "index", inputs=[Path(o.source) for o in outcomes if Path(o.source).is_file()], writers={
        "index.html": lambda file: file.write(render_index(table, summary_columns(), generated=date.isoformat())
                                              .encode()),
        "summary.xlsx": lambda file: write_summary(table, summary_columns(), file, generated=date),
    })
