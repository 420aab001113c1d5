"""Progress bars on long work (the layout search, reading thousands of benchmark logs): tqdm on stderr, shown where
stderr is a terminal, never where it is not (a pipe, a log file, a test) unless forced, and not with a command's
--quiet. The engine stays free of I/O: it calls a hook (planner.engine.layouts.PROGRESS) that the command line
points at a bar."""

from __future__ import annotations

import sys

SHOWN: bool | None = None  # None: when stderr is a terminal; True or False forces it (a test; batch --quiet)


def wanted() -> bool:
    return sys.stderr.isatty() if SHOWN is None else SHOWN


def bar(total: float | None, desc: str, unit: str):
    """A tqdm bar on stderr (disabled, so silent, where it is not wanted); close it, or use it as a context."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, file=sys.stderr, disable=not wanted())
