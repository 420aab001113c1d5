"""Write a scenario's workbook, HTML summary and JSON results all or nothing: each to a temporary name in the
target folder, then renamed over its final name once all three are complete; if a rename fails, the previous set
is put back, so the folder holds the whole new set or the whole old one.

Temporary names carry the writer's process id (`.<slug>.<pid>.<random>.<suffix>.part`), so a run removes the ones
a killed run left behind and never those of a run still writing. SIGTERM cleans up as Ctrl-C does.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import re
import shutil
import signal
import threading
import uuid
from pathlib import Path
from typing import BinaryIO, Callable

from planner.engine import Results, compute
from planner.report import render_html
from planner.scenario import Scenario
from planner.workbook import build

SUFFIXES = ("xlsx", "html", "json")


class OutputError(Exception):
    """An output path that cannot be used or written; the message is one line naming the path."""


def results_json(results: Results) -> str:
    return json.dumps(results.to_json(), indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def write_outputs(scenario: Scenario, out_dir: Path, *, generated: dt.date | None = None, slug: str | None = None,
                  results: Results | None = None) -> dict[str, Path]:
    """Compute (unless `results` are given) and write <slug>.xlsx, .html and .json into out_dir; returns
    {suffix: path}. Raises OutputError, with nothing changed, when the folder or a file cannot be written."""
    out_dir = Path(out_dir)
    slug = slug or scenario.slug
    final = {suffix: out_dir / f"{slug}.{suffix}" for suffix in SUFFIXES}
    _prepare_folder(out_dir, list(final.values()))
    results = results or compute(scenario)
    date = generated or dt.date.today()
    write_files(out_dir, slug, {
        final["xlsx"].name: lambda file: build(results, file, generated=date),
        final["html"].name: lambda file: file.write(render_html(results, generated=date.isoformat()).encode()),
        final["json"].name: lambda file: file.write(results_json(results).encode()),
    })
    return final


def write_files(out_dir: Path, stem: str, writers: dict[str, Callable[[BinaryIO], object]]) -> list[Path]:
    """Write each named file in out_dir through its writer (given an open binary file), all or nothing: every file
    to a temporary name first, then all renamed over their final names. `stem` names this set's temporary files
    (`.<stem>.<pid>.<random>.<i>.part`), so a later run with the same stem removes what a killed one left."""
    out_dir = Path(out_dir)
    final = {name: out_dir / name for name in writers}
    _prepare_folder(out_dir, list(final.values()))
    _remove_stale_parts(out_dir, stem)
    run = f".{stem}.{os.getpid()}.{uuid.uuid4().hex}"  # this run's own names: never another run's
    parts = {name: out_dir / f"{run}.{i}.{Path(name).suffix.lstrip('.') or 'file'}.part"
             for i, name in enumerate(writers)}
    with _sigterm_as_exit():
        try:
            for name, write in writers.items():
                with _part(parts[name], final[name]) as file:
                    write(file)
            _replace_all(parts, final, run)
        finally:
            for part in parts.values():
                with contextlib.suppress(OSError):
                    part.unlink(missing_ok=True)
    return list(final.values())


def _prepare_folder(out_dir: Path, files: list[Path]) -> None:
    """Create out_dir; refuse, naming the path, a file or broken link in its place and a folder where a file goes."""
    for path in (out_dir, *out_dir.parents):
        if os.path.lexists(path) and not os.path.isdir(path):
            if os.path.islink(path):
                what = "is not a folder" if os.path.exists(path) else "does not exist"
                raise OutputError(f"{path}: a symbolic link to {os.readlink(path)}, which {what}:"
                                  " the outputs need a folder")
            raise OutputError(f"{path}: not a folder: the outputs need a folder")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"{out_dir}: cannot create the output folder: {exc.strerror or exc}") from None
    for path in files:
        if os.path.isdir(path) and not os.path.islink(path):
            raise OutputError(f"{path}: a folder is where this output file goes: move or remove it")


@contextlib.contextmanager
def _part(part: Path, final: Path):
    """The temporary file for `final`, created new and open for writing; an OSError names the folder and file."""
    try:
        with open(part, "xb") as file:
            yield file
    except OSError as exc:
        raise OutputError(f"{final.parent}: cannot write {final.name} there: {exc.strerror or exc}") from None


def _replace_all(parts: dict[str, Path], final: dict[str, Path], run: str) -> None:
    """Rename each part over its final name, keeping the previous file under a hard link until all are in place;
    if one fails, put the previous set back, or remove the new files where there was none, and say which."""
    kept: dict[str, Path | None] = {}  # name → the previous file's backup (None: there was none)
    replaced: list[str] = []
    try:
        for i, name in enumerate(final):
            kept[name] = _keep_previous(final[name], final[name].with_name(f"{run}.{i}.old"))
            os.replace(parts[name], final[name])
            replaced.append(name)
    except BaseException as exc:
        undone = _undo(final, kept, replaced)
        if isinstance(exc, OSError):
            failed = final[list(final)[len(replaced)]]
            raise OutputError(f"{failed}: cannot replace it: {exc.strerror or exc}; {undone}") from None
        raise
    for backup in kept.values():
        if backup is not None:
            backup.unlink(missing_ok=True)


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


def _undo(final: dict[str, Path], kept: dict[str, Path | None], replaced: list[str]) -> str:
    """Put each replaced file's previous version back, or remove it where there was none; what was done, in words."""
    restored, removed, stuck = [], [], []
    for name, backup in kept.items():
        try:
            if name not in replaced:
                if backup is not None:
                    backup.unlink()
            elif backup is not None:
                os.replace(backup, final[name])
                restored.append(name)
            else:
                final[name].unlink(missing_ok=True)
                removed.append(name)
        except OSError as exc:
            stuck.append(f"{name} ({exc.strerror or exc}; the previous one is kept as {backup})")
    if stuck:
        return "could not put back " + ", ".join(stuck)
    done = ([f"put the previous {', '.join(restored)} back"] if restored else []) + (
        [f"removed the new {', '.join(removed)}"] if removed else [])
    return " and ".join(done) + ": the folder holds the previous set" if done else "nothing was replaced"


def _remove_stale_parts(out_dir: Path, slug: str) -> None:
    """Remove this set's temporary files whose writer is gone (a run killed by SIGKILL leaves them)."""
    name = re.compile(rf"\.{re.escape(slug)}\.(\d+)\.[0-9a-f]{{32}}\.(?:\d+\.)?\w+\.part")
    for path in out_dir.glob(f".{slug}.*.part"):
        match = name.fullmatch(path.name)
        if match and not _running(int(match.group(1))):
            with contextlib.suppress(OSError):  # one left behind does no harm
                path.unlink()


def _running(pid: int) -> bool:
    if os.name != "posix":  # os.kill(pid, 0) would end the process on Windows: keep its parts
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


@contextlib.contextmanager
def _sigterm_as_exit():
    """While writing, SIGTERM raises SystemExit (exit 143, as a shell reports it), so `finally` removes the
    temporary files as on Ctrl-C; the previous handler is restored after. Signals reach the main thread only."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def terminate(signum, frame):
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
