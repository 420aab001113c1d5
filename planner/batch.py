"""`planner batch`: files, folders and globs of scenarios, their sweeps expanded, written in parallel (worker
processes on this machine, or tasks on a Dask cluster with --scheduler); then index.html (a row per scenario: its
key results, links, failures; sortable and filterable) and summary.xlsx (a row per scenario: its results and a link
to its workbook; a pivot-style sheet per two-axis sweep).

A failing scenario is reported and the others go on. Outputs are written all or nothing, as `planner run` writes
them; with the date fixed, the same batch gives the same files. With --resume, a scenario whose three files are
there and whose JSON holds its fingerprint (output.fingerprint: the planner's version, the scenario, its logs) is
kept as it is.

Memory stays bounded over a long batch: each outcome's row goes to a spool on disk (SQLite, in a temporary folder)
as it comes, and the index and summary are written from it in order, row by row.

The worker processes end with their parent: Ctrl-C (which reaches the whole process group) and SIGTERM are the
parent's to handle, and it stops its workers with SIGTERM, each removing its set's temporary files on the way out;
a worker whose parent is gone (SIGKILL gives the parent no chance to say so) stops itself within a second. On Dask,
tasks return the files' bytes and the client writes them: a stop cancels the tasks and closes the client (and the
LocalCluster it started, with its worker processes).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import sqlite3
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, as_completed, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from tqdm import tqdm

from planner import globs
from planner.progress import DELAY
from planner.engine import json_headline
from planner.output import (OutputError, check_targets, computed, failed_checks, output_bytes, output_names, stamp,
                            write_files)
from planner.scenario import Scenario, ScenarioError, load_scenario, slugify
from planner.scenario import sweep as sweeps
from planner.scenario.errors import cut, quoted
from planner.tables import TABLES

SCENARIO_SUFFIXES = (".yaml", ".yml")
KEY_COLUMNS = [  # (headline name, heading, kind): the index's result columns, and the summary's first
    ("plan_total_cost", "The plan's total", "money0"),
    ("tco_npv", "Its NPV", "money0"),
    ("plan_cheapest_path", "Cheapest path", "text"),
    ("plan_peak_gpus", "Peak GPUs", "count"),
    ("serving_cost_per_million_tokens", "Cost per M output tokens", "money"),
    ("fleet_answer", "The Fleet's choice", "text"),
]
DASK_MISSING = ("--scheduler needs Dask, an optional extra of the planner: pip install 'planner[dask]' "
                "(dask and distributed)")


def say(line: str) -> None:
    print(f"planner batch: {line}", file=sys.stderr, flush=True)


def bar(total: float | None, desc: str, unit: str, shown: bool):
    """A tqdm bar on stderr with its rate and time left; silent with -q."""
    return tqdm(total=total, desc=desc, unit=unit, disable=not shown, file=sys.stderr, dynamic_ncols=True,
                delay=DELAY)


@dataclass
class Outcome:
    """One scenario of a batch: written (with its key results) or failed (with the message)."""

    name: str
    slug: str
    source: str
    currency: str = ""
    record: dict = field(default_factory=dict)  # record_of: the results the index and summary show
    error: str = ""
    renamed: str = ""  # why its files have another slug than its name's, in words (said in the output)
    resumed: bool = False  # --resume found its files written from the same scenario and version
    seq: int = 0  # its place in the batch's order (files in order, variants in sweep order)

    @property
    def ok(self) -> bool:
        return not self.error


@dataclass(slots=True)
class Job:
    """One scenario of the batch: a file's own (or named) scenario, held, or a sweep's variant k, made when its task
    is submitted (`made`) and let go once it is written, so that a batch holds a few variants at a time, not all."""

    held: Scenario | None
    slug: str
    source: str
    renamed: str = ""
    seq: int = 0  # its place in the batch's order (files in order, variants in sweep order)
    axes: dict = field(default_factory=dict)  # a sweep's variant, made: swept key → its value in words
    variants: sweeps.Variants | None = None  # a sweep's variant, not yet made: the file's sweep, and its place in it
    variant: int = 0
    path: Path | None = None  # a file's scenario, not held: read again from its file when its task is submitted
    named: int | None = None  # … the file's k-th named scenario (None: the file's own)
    inputs: list[Path] = field(default_factory=list)  # … the files it was read from (its logs), for the paths' check

    @property
    def scenario(self) -> Scenario:
        """The scenario (a variant or a file's scenario not yet made is made, and not kept)."""
        if self.held is not None:
            return self.held
        if self.variants is not None:
            return self.variants.variant(self.variant)
        scenario = load_scenario(self.path)
        return scenario if self.named is None else scenario.named_scenarios()[self.named][1]

    def made(self) -> "Job":
        """The job with its scenario made and its sweep values in words; it no longer points at its sweep or file
        (a job sent to a worker carries its own scenario only)."""
        if self.held is not None:
            return self
        axes = self.variants.axes(self.variant) if self.variants is not None else {}
        return Job(self.scenario, self.slug, self.source, self.renamed, seq=self.seq, axes=axes)

    def input_files(self) -> list[Path]:
        """The files its scenario is read from: a variant's are its file's unless the sweep changes a table's
        external data (then the variant is made to find them)."""
        if self.held is not None:
            return self.held.input_files()
        if self.path is not None:
            return list(self.inputs)
        if self.variants.shares_inputs:
            return self.variants.scenario.input_files()
        return self.scenario.input_files()


def scenario_files(paths: list[str], shown: bool = False) -> tuple[list[Path], list[Outcome]]:
    """The scenario files that PATHs name: files as given, folders' *.yaml and *.yml (sorted), glob patterns
    expanded (sorted; planner.globs: each folder once, at most MAX_ENTRIES entries looked through); a path that
    names nothing, or a pattern that looks through too much, is a failure of its own. A bar counts the folder
    entries looked through."""
    found: list[Path] = []
    seen: set[Path] = set()
    missing: list[Outcome] = []
    with bar(None, "finding scenario files", "entry", shown) as looking:
        for path in paths:
            if globs.has_magic(path):
                try:
                    matches = [Path(p) for p in globs.matches(path, looked=looking.update)
                               if Path(p).suffix in SCENARIO_SUFFIXES]
                except globs.GlobError as exc:
                    missing.append(Outcome(path, slugify(path), path, error=str(exc)))
                    continue
            elif Path(path).is_dir():
                matches = sorted(p for p in Path(path).iterdir() if p.suffix in SCENARIO_SUFFIXES and p.is_file())
                looking.update(len(matches))
            else:
                matches = [Path(path)]
            if not matches:
                missing.append(Outcome(path, slugify(path), path,
                                       error=f"{cut(path)}: no scenario files (*.yaml, *.yml)"))
            for match in matches:
                if match not in seen:
                    seen.add(match)
                    found.append(match)
    return found, missing


BATCH_FILES = {"index": "index.html, the batch's index", "summary": "summary.xlsx, the batch's summary"}
MAX_SCENARIOS = 100_000  # a batch larger than this is refused with its count, unless --yes
MAX_WITH_YES = sweeps.WITH_YES  # summary.xlsx holds a row each below its headings, and Excel's grid 1,048,576


def jobs_of(files: list[Path], *, limit: int | None = None, shown: bool = False,
            start: int = 0) -> tuple[list[Job], list[Outcome]]:
    """A job per scenario, one per variant of a sweep; each slug unique in the batch and none the batch's own
    files' (index, summary): a repeated one gets -2, -3 … in order, and the job says why. A file that cannot be
    read or validated is a failure. More than `limit` (MAX_SCENARIOS) in all is refused (OutputError). With
    `shown`, a bar over the files read and one over each sweep's expansion, its size said before it starts."""
    limit = MAX_SCENARIOS if limit is None else limit
    jobs: list[Job] = []
    failed: list[Outcome] = []
    taken: dict[str, str | tuple[str, str]] = dict(BATCH_FILES)  # slug → what holds it
    seq = start

    def unique(slug: str, holder: tuple[str, str]) -> tuple[str, str]:
        # holder: (scenario name, file), in words only when another takes its slug (not a sentence per variant)
        n, candidate = 2, slug
        while candidate in taken:
            candidate, n = f"{slug}-{n}", n + 1
        if candidate == slug:
            renamed = ""
        else:
            holding = taken[slug]
            words = holding if isinstance(holding, str) else f"the files of {quoted(holding[0])} ({cut(holding[1])})"
            renamed = f"{slug}.* is taken by {words}"
        taken[candidate] = holder
        return candidate, renamed

    reading = bar(len(files), "reading scenarios", "file", shown and len(files) > 1)
    try:
        for path in files:
            try:
                with _sweep_said(path, shown, limit):
                    scenario = load_scenario(path)
                variants = scenario.variants()
                found = [] if variants else [(None, scenario)]
                found += list(enumerate(named for _, named in scenario.named_scenarios()))  # each as its own file
            except ScenarioError as exc:
                slug, _ = unique(slugify(path.stem), f"{cut(str(path))}'s")
                failed.append(Outcome(path.stem, slug, str(path), error="\n".join(exc.problems), seq=seq))
                seq += 1
                reading.update()
                continue
            if len(jobs) + len(variants) + len(found) > limit:
                yes = " unless --yes" if limit < MAX_WITH_YES else ""
                raise OutputError(f"{cut(str(path))}: brings the batch to {len(jobs) + len(variants) + len(found):,} "
                                  f"scenarios; a batch writes at most {limit:,}{yes} (summary.xlsx has a row each): "
                                  f"split it")
            source = str(path)
            for k in range(len(variants)):  # each variant's name from its values, the variant itself made later
                name = variants.variant_name(k)
                slug, renamed = unique(slugify(name), (name, source))
                jobs.append(Job(None, slug, source, renamed, seq=seq, variants=variants, variant=k))
                seq += 1
            for named, s in found:  # read again when its task is submitted: a batch of 10,000 files holds none
                slug, renamed = unique(s.slug, (s.name, source))
                jobs.append(Job(None, slug, source, renamed, seq=seq, path=path, named=named, inputs=s.input_files()))
                seq += 1
            reading.update()
    finally:
        reading.close()
    return jobs, failed


class _sweep_said:
    """While a scenario file is read: its sweep's size said before it is expanded, and a bar on each long step of
    reading it (planner.engine.shared.advance: the sweep's expansion, its benchmark logs); a sweep larger than
    `limit` is refused by planner.scenario.sweep."""

    def __init__(self, path: Path, shown: bool, limit: int):
        self.path, self.shown, self.limit, self.bars = path, shown, limit, {}

    def __call__(self, what: str, done: int, total: float | None, unit: str) -> None:
        if what not in self.bars:
            if what == sweeps.EXPANDING and total is not None:
                say(f"{cut(str(self.path))}: a sweep of {int(total):,} variants, expanding")
            self.bars[what] = bar(total, what, unit, self.shown)
        elif total is not None and total > (self.bars[what].total or 0):
            self.bars[what].total = total
        self.bars[what].update(done)

    def __enter__(self):
        from planner.engine import shared

        self.saved = shared.PROGRESS, sweeps.MAX_VARIANTS
        shared.PROGRESS = self if self.shown else None
        sweeps.MAX_VARIANTS = max(sweeps.MAX_VARIANTS, min(self.limit, MAX_WITH_YES))
        return self

    def __exit__(self, *exc) -> None:
        from planner.engine import shared

        shared.PROGRESS, sweeps.MAX_VARIANTS = self.saved
        for each in self.bars.values():
            each.close()


def output_paths_checked(jobs: list[Job], files: list[Path], out_dir: Path) -> None:
    """Every file the batch will write (each scenario's three, index.html, summary.xlsx), checked before any is:
    each absent or a regular file, and none one of the batch's inputs (scenarios, benchmark logs). OutputError
    names the first that is not."""
    names = [name for job in jobs for name in output_names(job.slug)] + ["index.html", "summary.xlsx"]
    inputs = dict.fromkeys(files)
    for job in jobs:
        inputs.update(dict.fromkeys(job.input_files()))
    check_targets(out_dir, names, inputs)


# One scenario ----------------------------------------------------------------------------------------------------
def record_of(data: dict) -> dict:
    """What the index and summary show of a scenario, from its JSON (or the same made from its results): the key
    and summary results, the reason of each that is not available, the checks that fail."""
    names = [name for name, _, _ in columns()]
    headline, missing = data.get("headline") or {}, data.get("not_available") or {}
    return {"headline": {name: headline.get(name) for name in names},
            "not_available": {name: missing[name] for name in names if name in missing},
            "checks_failed": list(data.get("checks_failed") or [])}


def _made(job: Job, date: dt.date, stamped: dict | None = None) -> tuple[Outcome, dict[str, bytes]]:
    """One scenario's outcome and its three files' bytes (none when it failed); writes nothing (a Dask task)."""
    outcome = Outcome(job.scenario.name, job.slug, job.source, job.scenario.currency, renamed=job.renamed,
                      seq=job.seq)
    files: dict[str, bytes] = {}
    try:
        results = computed(job.scenario, generated=date)
        files = output_bytes(job.scenario, results, generated=date, slug=job.slug, stamped=stamped)
        data = {**json_headline(results.headline), "checks_failed": failed_checks(results)}
        outcome.record = json.loads(json.dumps(record_of(data), allow_nan=False))  # as its JSON gives it back
    except (OutputError, ScenarioError) as exc:
        outcome.error = str(exc)
    except Exception as exc:  # a failure of one scenario must not stop the batch: reported with its type
        outcome.error = f"{type(exc).__name__}: {cut(str(exc))}"
    if outcome.error:
        files = {}
    return outcome, files


def _written(job: Job, outcome: Outcome, files: dict[str, bytes], out_dir: Path) -> Outcome:
    """The files of a scenario written all or nothing; a failure to write them is the scenario's."""
    if files:
        try:
            write_files(out_dir, job.slug, files, inputs=job.scenario.input_files())
        except OutputError as exc:
            outcome.error, outcome.record = str(exc), {}
    return outcome


def _write(job: Job, out_dir: Path, date: dt.date) -> Outcome:
    """One scenario made and written (in this process or a worker process)."""
    outcome, files = _made(job, date)
    return _written(job, outcome, files, out_dir)


def kept(job: Job, out_dir: Path) -> Outcome | None:
    """--resume: the outcome of a scenario whose three files are in out_dir and whose JSON was written from the same
    scenario by the same planner (output.fingerprint); None when it must be written. A variant is made only when
    its three files are there."""
    paths = [out_dir / name for name in output_names(job.slug)]
    if not all(path.is_file() for path in paths):
        return None
    try:
        data = json.loads(paths[-1].read_bytes())
        scenario = job.scenario
        if data["planner"] != stamp(scenario):
            return None
    except (OSError, ValueError, KeyError, TypeError, ScenarioError):
        return None
    return Outcome(scenario.name, job.slug, job.source, scenario.currency, record=record_of(data),
                   renamed=job.renamed, resumed=True, seq=job.seq)


def _made_jobs(todo: list[Job]) -> Iterator[tuple[Job, Outcome | None]]:
    """Each job in turn with its scenario made (a sweep's variant or a file's scenario parsed now, as its task is
    submitted), or with its failure when it cannot be made (its file changed under the batch, a log gone)."""
    for job in todo:
        try:
            yield job.made(), None
        except Exception as exc:  # one variant's failure must not stop the batch: reported with its type
            name = job.variants.variant_name(job.variant) if job.variants is not None else job.slug
            error = ("\n".join(exc.problems) if isinstance(exc, ScenarioError)
                     else f"{type(exc).__name__}: {cut(str(exc))}")
            yield job, Outcome(name, job.slug, job.source, error=error, renamed=job.renamed, seq=job.seq)


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


IN_FLIGHT_PER_WORKER = 4  # tasks submitted ahead per worker (process or Dask thread): busy, and memory bounded


def _in_workers(todo: list[Job], out_dir: Path, date: dt.date, workers: int) -> Iterator[tuple[Job, Outcome]]:
    """Each job with its outcome as it is written by `workers` processes, at most IN_FLIGHT_PER_WORKER a worker
    submitted (each variant made as it is); a signal or failure here ends them all."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_started)
    pending = _made_jobs(todo)
    futures: dict = {}
    try:
        for job, failure in pending:
            if failure is not None:
                yield job, failure
                continue
            futures[pool.submit(_work, job, out_dir, date)] = job
            while len(futures) >= workers * IN_FLIGHT_PER_WORKER:
                done, _ = wait(futures, return_when=FIRST_COMPLETED)
                for future in done:
                    yield futures.pop(future), future.result()
        for future in as_completed(futures):
            yield futures.pop(future), future.result()
    except BaseException:
        _end_workers(pool)
        raise
    pool.shutdown()


# Dask ------------------------------------------------------------------------------------------------------------


def connect(scheduler: str):
    """A Dask client for `scheduler` (an address, or local[:N]: a LocalCluster of N worker processes on this
    machine, N the cores by default) and the cluster it started (None for an address); OutputError names the
    extra when Dask is missing, or says why the address cannot be reached."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise OutputError(DASK_MISSING) from None
    if scheduler == "local" or scheduler.startswith("local:"):
        workers = scheduler.partition(":")[2]
        if workers and not (workers.isdigit() and 1 <= int(workers) <= 256):
            raise OutputError(f"--scheduler {cut(scheduler)}: local:N takes N from 1 to 256 worker processes")
        cluster = LocalCluster(n_workers=int(workers or os.cpu_count() or 1), threads_per_worker=1, processes=True,
                               dashboard_address=":0", silence_logs=40)  # 40: logging.ERROR
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="30s"), None
    except (OSError, ValueError, TimeoutError) as exc:
        raise OutputError(f"--scheduler {cut(scheduler)}: cannot reach the Dask scheduler: {cut(str(exc))}") from None


def _on_dask(todo: list[Job], out_dir: Path, date: dt.date, scheduler: str) -> Iterator[tuple[Job, Outcome]]:
    """Each job with its outcome: made by a task on the cluster (returning the files' bytes), written here, all or
    nothing. A task whose worker died is retried on another (Dask's allowed-failures) and then reported as the
    scenario's failure. Stopping (Ctrl-C, SIGTERM, an error) cancels every task and closes the client, and the
    LocalCluster with its processes."""
    from distributed import as_completed as completed

    client, cluster = connect(scheduler)
    futures: dict = {}
    batch = uuid.uuid4().hex  # this batch's task keys: never another batch's on a shared cluster
    try:
        ahead = max(1, sum(client.nthreads().values()) * IN_FLIGHT_PER_WORKER)
        pending = _made_jobs(todo)
        failures: list = []  # (job, outcome) of variants that could not be made, said as they come

        def submit(made: tuple[Job, Outcome | None]):
            job, failure = made
            if failure is not None:
                failures.append(made)
                return None
            job.scenario.input_files()  # its benchmark logs read here, so a worker needs no access to them
            future = client.submit(_made, job, date, stamp(job.scenario), pure=False, key=f"planner-{batch}-{job.seq}")
            futures[future.key] = (future, job)
            return future

        def following() -> list:
            """The next job's task (made as it is submitted), past any that cannot be made."""
            for made in pending:
                future = submit(made)
                if future is not None:
                    return [future]
            return []

        running = completed([future for _ in range(ahead) for future in following()])
        yield from _drained(failures)
        for future in running:
            _, job = futures.pop(future.key)
            try:
                outcome, files = future.result()
            except Exception as exc:  # the task's worker died each time it was tried (KilledWorker), or worse
                outcome, files = Outcome(job.scenario.name, job.slug, job.source, job.scenario.currency,
                                         error=f"the Dask task failed: {type(exc).__name__}: {cut(str(exc))}",
                                         renamed=job.renamed, seq=job.seq), {}
            future.release()
            for more in following():
                running.add(more)
            yield from _drained(failures)
            yield job, _written(job, outcome, files, out_dir)
    finally:
        client.cancel([future for future, _ in futures.values()], force=True)
        client.close()
        if cluster is not None:
            cluster.close()


# The batch -------------------------------------------------------------------------------------------------------
def run_batch(paths: list[str], out_dir: Path, *, jobs: int | None = None, date: dt.date | None = None,
              progress: bool = True, scheduler: str | None = None, resume: bool = False,
              yes: bool = False) -> list[Outcome]:
    """Write every scenario's outputs, then index.html and summary.xlsx; returns the outcomes in input order, each
    without its results (those went to the spool, then the index and summary)."""
    out_dir = Path(out_dir)
    date = date or dt.date.today()
    if scheduler is not None:
        try:
            import distributed  # noqa: F401 (said before any file is read)
        except ImportError:
            raise OutputError(DASK_MISSING) from None
    files, missing = scenario_files(paths, progress)
    todo, failed = jobs_of(files, limit=MAX_WITH_YES if yes else MAX_SCENARIOS, shown=progress, start=len(missing))
    output_paths_checked(todo, files, out_dir)
    with Spool() as spool:
        for seq, outcome in enumerate(missing):
            outcome.seq = seq
            spool.add(outcome)
        for outcome in failed:
            spool.add(outcome)
        if resume:
            todo = _resumed(todo, out_dir, spool, progress)
        if progress:
            say(f"{len(todo):,} scenario{'s' if len(todo) != 1 else ''} to write"
                + (f" on the Dask scheduler {scheduler}" if scheduler else ""))
        with bar(len(todo), "planner batch", "scenario", progress) as writing:
            for job, outcome in _outcomes(todo, out_dir, date, jobs, scheduler):
                spool.add(outcome, job.axes)
                writing.update()
        write_index(spool, out_dir, date, progress)
        return spool.outcomes()


def _resumed(todo: list[Job], out_dir: Path, spool: "Spool", shown: bool) -> list[Job]:
    """The jobs --resume still has to write; each kept one's outcome spooled."""
    left = []
    with bar(len(todo), "looking for finished scenarios", "scenario", shown) as looking:
        for job in todo:  # a variant made only where its files are there, and let go
            outcome = kept(job, out_dir)
            if outcome is None:
                left.append(job)
            else:
                spool.add(outcome, job.variants.axes(job.variant) if job.variants is not None else job.axes)
            looking.update()
    if shown:
        say(f"--resume: {len(todo) - len(left):,} of {len(todo):,} scenarios already written, kept as they are")
    return left


def _drained(failures: list) -> Iterator:
    while failures:
        yield failures.pop(0)


def _outcomes(todo: list[Job], out_dir: Path, date: dt.date, jobs: int | None,
              scheduler: str | None) -> Iterator[tuple[Job, Outcome]]:
    """Each job (its scenario made) with its outcome, as it is written; a variant is made when its task is
    submitted, a bounded number ahead of those written."""
    if scheduler is not None:
        yield from _on_dask(todo, out_dir, date, scheduler)
        return
    workers = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    if workers == 1:
        for job, failure in _made_jobs(todo):
            yield job, failure or _write(job, out_dir, date)
    else:
        yield from _in_workers(todo, out_dir, date, workers)


# The spool, the index and the summary ----------------------------------------------------------------------------
def summary_columns() -> list[tuple[str, str, str]]:
    """(headline name, heading, kind) of every table's summary results, in table order."""
    return [column for table in TABLES for column in table.report.SUMMARY]


def columns() -> list[tuple[str, str, str]]:
    """The summary's result columns: the key results first, then every table's summary results not among them."""
    keys = {name for name, _, _ in KEY_COLUMNS}
    return KEY_COLUMNS + [column for column in summary_columns() if column[0] not in keys]


class Spool:
    """Each scenario's row (name, files, key results, failure, sweep values), kept on disk as it comes, read back
    in the batch's order: an SQLite file in a temporary folder, removed at the end."""

    COMMIT_EVERY = 256

    def __init__(self):
        self.folder = tempfile.TemporaryDirectory(prefix="planner-batch-")
        self.db = sqlite3.connect(Path(self.folder.name) / "spool.sqlite", isolation_level="DEFERRED")
        self.db.execute("CREATE TABLE rows (seq INTEGER PRIMARY KEY, source TEXT, row TEXT)")
        self.added = 0
        self.count = self.failed = self.longest = 0
        self.sources: dict[str, list] = {}  # a file whose variants came with their sweep's values: its swept keys

    def add(self, outcome: Outcome, axes: dict | None = None) -> None:
        row = {"name": outcome.name, "slug": outcome.slug, "source": outcome.source, "error": outcome.error,
               "currency": outcome.currency, "renamed": outcome.renamed, "resumed": outcome.resumed,
               "axes": axes or {}, **(outcome.record or record_of({}))}
        self.db.execute("INSERT INTO rows VALUES (?, ?, ?)", (outcome.seq, outcome.source,
                                                              json.dumps(row, allow_nan=False)))
        self.count += 1
        self.failed += bool(outcome.error)
        self.longest = max(self.longest, len(outcome.name))
        if axes:
            self.sources.setdefault(outcome.source, list(axes))
        self.added += 1
        if self.added % self.COMMIT_EVERY == 0:
            self.db.commit()

    def rows(self, source: str | None = None) -> Iterator[dict]:
        """Every row in the batch's order (or one file's)."""
        self.db.commit()
        query = "SELECT row FROM rows" + (" WHERE source = ?" if source is not None else "") + " ORDER BY seq"
        for (row,) in self.db.execute(query, () if source is None else (source,)):
            yield json.loads(row)

    def outcomes(self) -> list[Outcome]:
        """Each row as an Outcome without its results, in the batch's order."""
        return [Outcome(r["name"], r["slug"], r["source"], r["currency"], error=r["error"], renamed=r["renamed"],
                        resumed=r["resumed"]) for r in self.rows()]

    def two_axis_sweeps(self) -> list[tuple[str, str, list, str, list]]:
        """(file, first key, its values, second key, its values) of each file whose sweep has two keys, the values
        in the sweep's order (the rows', not the order the scenarios were finished in)."""
        found = []
        for source, keys in self.sources.items():
            if len(keys) == 2:
                values: list[dict] = [{}, {}]
                for row in self.rows(source):
                    for key, seen in zip(keys, values):
                        if key in row["axes"]:
                            seen[row["axes"][key]] = None
                found.append((source, keys[0], list(values[0]), keys[1], list(values[1])))
        return found

    def __enter__(self) -> "Spool":
        return self

    def __exit__(self, *exc) -> None:
        self.db.close()
        self.folder.cleanup()


def write_index(spool: Spool, out_dir: Path, date: dt.date, shown: bool = False) -> None:
    """index.html and summary.xlsx from the spool, row by row, never over a scenario file of the batch."""
    from planner.report import render_index
    from planner.workbook.summary import write_summary

    def index(file) -> None:
        with bar(spool.count, "writing index.html", "row", shown) as done:
            for chunk in render_index(spool, KEY_COLUMNS, generated=date.isoformat(), done=done.update):
                file.write(chunk.encode())

    def summary(file) -> None:
        with bar(spool.count, "writing summary.xlsx", "row", shown) as done:
            write_summary(spool, columns(), file, generated=date, done=done.update)

    sources = [Path(source) for (source,) in spool.db.execute("SELECT DISTINCT source FROM rows")]
    write_files(out_dir, "index", inputs=[path for path in sources if path.is_file()],
                writers={"index.html": index, "summary.xlsx": summary})
