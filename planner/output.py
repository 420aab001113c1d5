"""Write a scenario's workbook, HTML summary and JSON results (or any set of files) all or nothing, over regular
files only, never over an input.

Before anything is written, every target is checked: the folder (or what stands in its place) must be a folder or
absent; each file must be absent or a regular file (not a folder, a symbolic link, a named pipe, a device or a
socket: /dev/null and /dev/stdout are refused, never replaced); and none may be one of the files the run reads
(its scenario, its benchmark logs, the workbook `planner import` reads).

How a set is written, so that a kill at any moment, SIGKILL between two renames included, leaves the previous set
or the new one once the next writer into the folder has run:

1. Every file is written to a temporary part, `.<stem>.<pid>.<token>.<i>.<suffix>.part`, in the target folder.
2. The folder is locked (flock on the folder itself; released by the system when the writer dies). Under the lock:
3. Leftovers of writers that are gone are repaired (below), and what is in place is checked again.
4. The previous version of each final file gets a second name, `.<stem>.<pid>.<token>.<i>.old` (a hard link, so
   the final name never goes missing).
5. The journal, `.<stem>.<pid>.<token>.journal`, is created: the parts, the final names and the backups, as JSON
   written in one go. It is the commit point: before it is complete, nothing has been replaced.
6. Each part is renamed over its final name (one atomic rename each).
7. The backups are removed, then the journal.

A rename that fails (or SIGTERM or Ctrl-C during the renames) is undone at once: `.<…>.undo` is created beside
the journal, each replaced file gets its previous version back (or is removed where there was none), then the
parts, backups, journal and marker are removed, in that order.

Repair, by the next writer, under the lock, of a writer whose process is gone: a complete journal without an undo
marker is finished (each part still there is renamed over its final name: the new set); with the marker, it is
undone (each backup put back, each final whose part was renamed and had no previous version removed: the old
set). Without a complete journal nothing was replaced: its parts and backups are removed. Both repairs can be
interrupted and run again. Between the kill and the next writer the folder may hold a mix, and the journal that
says so; the next writer says on stderr, in one line, which set it finished or undone.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import hashlib
import io
import json
import os
import re
import shutil
import signal
import stat
import sys
import threading
import uuid
from pathlib import Path
from typing import BinaryIO, Callable, Iterable

from planner.engine import Results, compute
from planner.engine.shared import NoLayout, TooManyGPUs
from planner.engine.plan.pools import PairRefused
from planner.report import render_html
from planner.scenario import Scenario, ScenarioError
from planner.workbook import build
from planner.tables import raised_warnings
from planner.workbook.kit import NameClash

SUFFIXES = ("xlsx", "html", "json")
_KINDS = {stat.S_ISDIR: "a folder", stat.S_ISFIFO: "a named pipe", stat.S_ISCHR: "a character device",
          stat.S_ISBLK: "a block device", stat.S_ISSOCK: "a socket"}
# Names a writer leaves while it runs: the run's prefix (stem, process id, token), then what the file is
_LEFTOVER = re.compile(r"\.(?P<stem>.+)\.(?P<pid>\d+)\.(?P<token>[0-9a-f]{32})\."
                       r"(?P<what>(?:\d+\.)?\w+\.part|\d+\.old|journal|undo)")
JOURNAL_BYTES = 1024 * 1024  # a journal holds a few names: a larger file is not one this module wrote
STEP_HOOK: Callable[[str], None] | None = None  # called after each step of a write; tests stop a writer with it


class OutputError(Exception):
    """An output path that cannot be used or written; the message is one line naming the path."""


def results_json(results: Results, stamp: dict | None = None) -> str:
    """The JSON results; `stamp` (output.stamp: the planner's version and the scenario's fingerprint) first, the
    names of the checks that fail last."""
    found = results.to_json()
    if stamp:
        found = {"planner": stamp, **found}
    found["checks_failed"] = failed_checks(results)
    found["warnings"] = [{"name": key, "label": label, "take_care": note}
                         for key, label, note in raised_warnings(results)]  # the results stand (§14.7)
    return json.dumps(found, indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def failed_checks(results: Results) -> list[str]:
    """The names of the checks that fail (the Checks sheet's FALSE rows), in table order."""
    return [name for name, ok in results.checks.items() if not ok]


def output_names(slug: str) -> list[str]:
    """A scenario's three files."""
    return [f"{slug}.{suffix}" for suffix in SUFFIXES]


def fingerprint(scenario: Scenario) -> str:
    """SHA-256 of what a scenario's files are made from: the planner's version, the scenario with every default
    filled in, and the bytes of each file it reads besides its own (benchmark logs). `planner batch --resume`
    keeps a scenario's files whose JSON holds the same."""
    import planner

    digest = hashlib.sha256(json.dumps({"planner": planner.__version__, "scenario": scenario.normalised()},
                                       sort_keys=True, ensure_ascii=False).encode())
    for path in scenario.input_files()[1 if scenario._source else 0:]:
        info = os.stat(path)
        digest.update(f"\0{path.name}\0{_file_digest(os.path.abspath(path), info.st_mtime_ns, info.st_size)}".encode())
    return digest.hexdigest()


@functools.lru_cache(maxsize=4096)
def _file_digest(path: str, mtime_ns: int, size: int) -> str:
    """SHA-256 of a file's bytes, once per version of the file (a sweep's 10,000 variants read the same logs)."""
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def stamp(scenario: Scenario) -> dict:
    """The JSON's "planner" entry: the version that wrote the files and the scenario's fingerprint."""
    import planner

    return {"version": planner.__version__, "scenario_sha256": fingerprint(scenario)}


def output_writers(scenario: Scenario, results: Results, *, generated: dt.date, slug: str,
                   stamped: dict | None = None) -> dict[str, bytes | Callable[[BinaryIO], object]]:
    """<slug>.xlsx's bytes (the workbook made in memory first: what only making it finds, a named scenario whose
    name makes a workbook name twice, is a ScenarioError before anything is written), and writers of .html and
    .json, for write_files."""
    book = io.BytesIO()
    try:
        build(results, book, generated=generated)
    except NameClash as clash:
        raise ScenarioError([f"{_at(scenario, ('scenarios', clash.scenario))}: scenarios.{clash.scenario}: "
                             f"{clash}"], [("scenarios", clash.scenario)]) from None
    stamped = stamped or stamp(scenario)
    return {f"{slug}.xlsx": book.getvalue(),
            f"{slug}.html": lambda file: file.write(render_html(results, generated=generated.isoformat()).encode()),
            f"{slug}.json": lambda file: file.write(results_json(results, stamped).encode())}


def output_bytes(scenario: Scenario, results: Results, *, generated: dt.date, slug: str,
                 stamped: dict | None = None) -> dict[str, bytes]:
    """The three files as bytes, written nowhere (a batch's Dask task returns them to the client)."""
    found = {}
    for name, write in output_writers(scenario, results, generated=generated, slug=slug, stamped=stamped).items():
        if isinstance(write, bytes):
            found[name] = write
        else:
            buffer = io.BytesIO()
            write(buffer)
            found[name] = buffer.getvalue()
    return found


def write_outputs(scenario: Scenario, out_dir: Path, *, generated: dt.date | None = None, slug: str | None = None,
                  results: Results | None = None) -> dict[str, Path]:
    """Compute (unless `results` are given) and write <slug>.xlsx, .html and .json into out_dir; returns
    {suffix: path}. Raises OutputError, with nothing changed, when the folder or a file cannot be written, or a
    file would replace one the scenario was read from. The files are made in memory first, so that what only
    making the workbook finds is refused before anything, the folder included, is created."""
    out_dir = Path(out_dir)
    slug = slug or scenario.slug
    final = {suffix: out_dir / f"{slug}.{suffix}" for suffix in SUFFIXES}
    inputs = scenario.input_files()
    check_targets(out_dir, [path.name for path in final.values()], inputs)
    date = generated or dt.date.today()
    results = results or computed(scenario, generated=date)
    write_files(out_dir, slug, output_writers(scenario, results, generated=date, slug=slug), inputs=inputs)
    return final


def computed(scenario: Scenario, *, generated: dt.date | None = None) -> Results:
    """The engine's results (as on the day `generated`); a premise that only computing finds failed (hours.mfu:
    layout, and no layout fits and meets the deadline; a demand that needs more GPUs than a plan may take) is a
    ScenarioError naming the key."""
    try:
        return compute(scenario, generated=generated)
    except NoLayout as exc:
        raise ScenarioError([f"{_at(scenario, ('hours', 'mfu'))}: hours.mfu: value 'layout' is not allowed: {exc}"],
                            [("hours", "mfu")]) from None
    except TooManyGPUs as exc:
        raise ScenarioError([f"{_at(scenario, exc.key)}: {'.'.join(exc.key)}: {exc}"], [exc.key]) from None
    except PairRefused as exc:  # a pool pair against the chosen fleet's form (§15.1)
        raise ScenarioError([f"{_at(scenario, key)}: {'.'.join(key)}: value {value!r} is not allowed: {words}"
                             for key, value, words in exc.problems], [key for key, _, _ in exc.problems]) from None


def _at(scenario: Scenario, key: tuple) -> str:
    """file:line of a key (the file read again: only a message needs it), or the file alone; a sweep's variant is
    named at its sweep's line."""
    from planner import yamlfile
    from planner.scenario.errors import where

    lines = {}
    if scenario._source is not None and not scenario._shown_as:
        try:
            _, lines = yamlfile.read(scenario._source)
        except Exception:  # the file changed or went since it was read: the message names the file alone
            lines = {}
    return where(key, scenario.source_name, lines)[0]


def write_files(out_dir: Path, stem: str, writers: dict[str, bytes | Callable[[BinaryIO], object]], *,
                inputs: Iterable[Path] = ()) -> list[Path]:
    """Write each named file in out_dir, its bytes or through its writer (given an open binary file), all or nothing
    (the module's docstring says how). `stem` names this set's temporary files; `inputs` are files none may
    replace."""
    out_dir = Path(out_dir)
    inputs = list(inputs)
    final = {name: out_dir / name for name in writers}
    check_targets(out_dir, list(final), inputs)
    _create_folder(out_dir)
    run = f".{stem}.{os.getpid()}.{uuid.uuid4().hex}"  # this run's own names: never another run's
    parts = {name: out_dir / f"{run}.{i}.{Path(name).suffix.lstrip('.') or 'file'}.part"
             for i, name in enumerate(writers)}
    with _sigterm_as_exit():
        try:
            for name, write in writers.items():
                with _part(parts[name], final[name]) as file:
                    if isinstance(write, bytes):
                        file.write(write)
                    else:
                        write(file)
                _step(f"part {name}")
            with _folder_lock(out_dir) as locked:
                for note in repair(out_dir, own=run, locked=locked):
                    print(f"planner: {note}", file=sys.stderr, flush=True)
                check_targets(out_dir, list(final), inputs)  # again, now that nothing else writes here
                _commit(parts, final, out_dir / run)
        finally:
            for part in parts.values():
                with contextlib.suppress(OSError):
                    part.unlink(missing_ok=True)
    return list(final.values())


# Checking the targets ---------------------------------------------------------------------------------------
def check_targets(out_dir: Path, names: list[str], inputs: Iterable[Path] = ()) -> None:
    """Refuse, naming the path, an output folder that is not a folder, a target that exists and is not a regular
    file, and a target that is one of `inputs`. Nothing is created or changed."""
    out_dir = Path(out_dir)
    _check_folder(out_dir)
    existing: dict[tuple[int, int], Path] = {}  # each input once, by device and inode (a batch names 10,000s)
    for source in inputs:
        if source is not None:
            try:
                info = os.stat(source)
            except OSError:
                continue
            existing.setdefault((info.st_dev, info.st_ino), source)
    for name in names:
        path = out_dir / name
        try:
            info = os.lstat(path)
            mode = info.st_mode
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise OutputError(f"{path}: cannot look at it: {exc.strerror or exc}") from None
        if stat.S_ISDIR(mode):
            raise OutputError(f"{path}: a folder is where this output file goes: move or remove it")
        if stat.S_ISLNK(mode):
            raise OutputError(f"{path}: a symbolic link to {os.readlink(path)}: an output is written only where "
                              f"there is nothing or a regular file; move or remove the link")
        if not stat.S_ISREG(mode):
            kind = next((kind for is_kind, kind in _KINDS.items() if is_kind(mode)), "a special file")
            raise OutputError(f"{path}: {kind}: an output is written only where there is nothing or a regular "
                              f"file, never over {kind}")
        source = existing.get((info.st_dev, info.st_ino))  # a regular file here: lstat is the file's own
        if source is not None:
            same = "" if os.path.abspath(path) == os.path.abspath(source) else f" (as {source})"
            raise OutputError(f"{path}: the run reads this file{same}: an output never replaces an input; "
                              f"write elsewhere (-o)")


def _check_folder(out_dir: Path) -> None:
    """The folder and each folder above it: absent, or a folder (a link to a folder is one)."""
    for path in (out_dir, *out_dir.parents):
        if os.path.lexists(path) and not os.path.isdir(path):
            if os.path.islink(path):
                what = "is not a folder" if os.path.exists(path) else "does not exist"
                raise OutputError(f"{path}: a symbolic link to {os.readlink(path)}, which {what}:"
                                  " the outputs need a folder")
            raise OutputError(f"{path}: not a folder: the outputs need a folder")


def _create_folder(out_dir: Path) -> None:
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{out_dir}: cannot create the output folder: {exc.strerror or exc}") from None


@contextlib.contextmanager
def _part(part: Path, final: Path):
    """The temporary file for `final`, created new and open for writing; an OSError names the folder and file.
    When the writer stops (an error, Ctrl-C, SIGTERM) the file is not closed here: a half-made archive (XlsxWriter's
    zip) still holds it and closes itself once the exception is gone, which on a closed file would end in "seek of
    closed file"; the two go together then (the part itself is removed by the caller)."""
    try:
        file = open(part, "xb")
    except OSError as exc:
        raise OutputError(f"{final.parent}: cannot write {final.name} there: {exc.strerror or exc}") from None
    try:
        yield file
        file.close()
    except OSError as exc:
        raise OutputError(f"{final.parent}: cannot write {final.name} there: {exc.strerror or exc}") from None


# Committing a set -------------------------------------------------------------------------------------------
def _commit(parts: dict[str, Path], final: dict[str, Path], run: Path) -> None:
    """Steps 4-7: backups, the journal, the renames, then the backups and the journal removed; a failure undone."""
    backups = {name: run.with_name(f"{run.name}.{i}.old") for i, name in enumerate(final)}
    kept: dict[str, Path | None] = {}
    journal = run.with_name(f"{run.name}.journal")
    try:
        for name in final:
            kept[name] = _keep_previous(final[name], backups[name])
            _step(f"backup {name}")
        _write_journal(journal, [{"part": parts[name].name, "final": final[name].name,
                                  "backup": kept[name].name if kept[name] else None} for name in final])
        _step("journal")
    except BaseException as exc:
        for backup in kept.values():
            if backup is not None:
                with contextlib.suppress(OSError):
                    backup.unlink()
        with contextlib.suppress(OSError):
            journal.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"{run.parent}: cannot keep the previous files while the new ones replace them: "
                              f"{exc.strerror or exc}; nothing was replaced") from None
        raise
    replaced: list[str] = []
    try:
        for name in final:
            os.replace(parts[name], final[name])
            replaced.append(name)
            _step(f"rename {name}")
    except BaseException as exc:
        undone = _undo_in_place(final, kept, replaced, journal)
        if isinstance(exc, OSError):
            failed = final[list(final)[len(replaced)]]
            raise OutputError(f"{failed}: cannot replace it: {exc.strerror or exc}; {undone}") from None
        raise
    for backup in kept.values():
        if backup is not None:
            backup.unlink(missing_ok=True)
    _step("backups removed")
    journal.unlink()
    _step("journal removed")


def _keep_previous(path: Path, backup: Path) -> Path | None:
    """A second name for the file at `path` (a hard link; a copy where the file system has none), or None when
    there is no file: the file stays in place meanwhile, so a killed run never leaves a final name missing."""
    try:
        os.link(path, backup, follow_symlinks=False)
    except FileNotFoundError:
        return None
    except OSError:
        shutil.copy2(path, backup, follow_symlinks=False)
    return backup


def _write_journal(journal: Path, entries: list[dict]) -> None:
    """The journal, created new and written in one go: it parses only when complete."""
    with open(journal, "x", encoding="utf-8") as file:
        file.write(json.dumps({"files": entries}))


def _undo_in_place(final: dict[str, Path], kept: dict[str, Path | None], replaced: list[str], journal: Path) -> str:
    """Put each replaced file's previous version back, or remove it where there was none; the undo marker first,
    so a kill meanwhile is undone by the next writer. What was done, in words."""
    marker = journal.with_name(journal.name.removesuffix(".journal") + ".undo")
    marker.touch()
    _step("undo marker")
    restored, removed, stuck = [], [], []
    for name, backup in kept.items():
        try:
            if name not in replaced:
                continue
            if backup is not None:
                os.replace(backup, final[name])
                restored.append(name)
            else:
                final[name].unlink(missing_ok=True)
                removed.append(name)
            _step(f"undo {name}")
        except OSError as exc:
            stuck.append(f"{name} ({exc.strerror or exc}; the previous one is kept as {backup})")
    if not stuck:
        for backup in kept.values():
            if backup is not None:
                with contextlib.suppress(OSError):
                    backup.unlink(missing_ok=True)
        journal.unlink(missing_ok=True)
        marker.unlink(missing_ok=True)
    if stuck:
        return "could not put back " + ", ".join(stuck)
    done = ([f"put the previous {', '.join(restored)} back"] if restored else []) + (
        [f"removed the new {', '.join(removed)}"] if removed else [])
    return " and ".join(done) + ": the folder holds the previous set" if done else "nothing was replaced"


def _step(name: str) -> None:
    if STEP_HOOK is not None:
        STEP_HOOK(name)


# Repairing what a killed writer left ------------------------------------------------------------------------
def repair(out_dir: Path, *, own: str = "", locked: bool = False) -> list[str]:
    """Finish or undo each set a writer that is gone was committing (its journal says which), then remove every
    file such writers left (parts, backups, journals, markers); the files of run `own` (this writer's) are left
    alone. Under the folder's lock (`locked`) every journal is a dead writer's, since a writer holds the lock for
    as long as its journal exists, whatever process now has its id; otherwise the process id tells. Returns a line
    for each set finished or undone, saying which."""
    runs: dict[str, list[Path]] = {}
    pids: dict[str, int] = {}
    notes: list[str] = []
    try:
        names = [entry.name for entry in os.scandir(out_dir) if entry.name.startswith(".")]
    except OSError:
        return notes
    for name in names:
        match = _LEFTOVER.fullmatch(name)
        if match:
            prefix = name[:match.start("what") - 1]
            runs.setdefault(prefix, []).append(out_dir / name)
            pids[prefix] = int(match.group("pid"))
    for prefix, files in runs.items():
        journal = out_dir / f"{prefix}.journal"
        if prefix == own or _running(pids[prefix]) and not (locked and journal in files):
            continue
        if journal in files:
            undo = (out_dir / f"{prefix}.undo") in files
            finals = _finish(out_dir, prefix, journal, undo=undo)
            if finals:
                notes.append(f"{out_dir}: a run killed while replacing {', '.join(finals)} left that write "
                             "unfinished: " + ("undone now, the previous set is back" if undo else
                                               "finished now, its new set is in place"))
        for path in sorted(files, key=lambda p: (p == journal, p.name.endswith(".undo"))):  # the journal last
            with contextlib.suppress(OSError):
                path.unlink(missing_ok=True)
    return notes


def _finish(out_dir: Path, prefix: str, journal: Path, *, undo: bool) -> list[str]:
    """A dead writer's journal carried out: forward (its parts renamed over their finals) or, with the undo
    marker, back (the backups put back, new files without a previous version removed); returns the final names.
    An incomplete journal was never the commit point: nothing to do."""
    entries = _read_journal(journal, prefix)
    if entries is None:
        return []
    for entry in entries:
        part, target = out_dir / entry["part"], out_dir / entry["final"]
        backup = out_dir / entry["backup"] if entry["backup"] else None
        try:
            if not undo and part.exists():
                _refuse_special(target, journal)
                os.replace(part, target)
            elif undo and backup is not None and backup.exists():
                _refuse_special(target, journal)
                os.replace(backup, target)
            elif undo and backup is None and not part.exists():
                target.unlink(missing_ok=True)
        except OSError as exc:
            raise OutputError(f"{target}: cannot finish the write a killed run left ({journal.name}): "
                              f"{exc.strerror or exc}") from None
    return [entry["final"] for entry in entries]


def _read_journal(journal: Path, prefix: str) -> list[dict] | None:
    """The journal's entries, each naming files of its own run in this folder; None when it is incomplete."""
    try:
        with open(journal, encoding="utf-8") as file:
            data = json.loads(file.read(JOURNAL_BYTES + 1))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    entries = data.get("files") if isinstance(data, dict) else None

    def plain(name, own: bool) -> bool:
        return (isinstance(name, str) and os.sep not in name and name not in ("", ".", "..")
                and (not own or name.startswith(prefix + ".")))

    if not isinstance(entries, list) or not all(
            isinstance(e, dict) and plain(e.get("part"), True) and plain(e.get("final"), False)
            and (e.get("backup") is None or plain(e.get("backup"), True)) for e in entries):
        raise OutputError(f"{journal}: not a journal this planner wrote (its names leave the run's own files): "
                          f"look at it, then remove it")
    return entries


def _refuse_special(target: Path, journal: Path) -> None:
    if os.path.lexists(target) and not stat.S_ISREG(os.lstat(target).st_mode):
        raise OutputError(f"{target}: not a regular file any more: the write a killed run left ({journal.name}) is "
                          f"not finished over it; move it, and the next run finishes the write")


def _running(pid: int) -> bool:
    if os.name != "posix":  # os.kill(pid, 0) would end the process on Windows: keep its files
        return True
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def _folder_lock(out_dir: Path):
    """The folder locked against other writers (flock on the folder itself) while a set is committed: True when it
    is; where the system or file system has no such lock, writers go unlocked and the process ids alone tell a dead
    writer."""
    try:
        import fcntl
        fd = os.open(out_dir, os.O_RDONLY)
    except (ImportError, OSError):
        yield False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            locked = True
        except OSError:
            locked = False
        yield locked
    finally:
        os.close(fd)  # the lock goes with the descriptor


@contextlib.contextmanager
def _sigterm_as_exit():
    """While writing, SIGTERM raises SystemExit (exit 143, as a shell reports it), so `finally` removes the
    temporary files as on Ctrl-C; the previous handler is restored after. Signals reach the main thread only."""
    from planner import signals

    if threading.current_thread() is not threading.main_thread() or signals.installed():  # the command line's own
        yield  # handler raises Stopped, which it reports in one line
        return

    def terminate(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
