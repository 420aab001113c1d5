"""Progress bars on long work (reading thousands of benchmark logs, calibrating against their runs, the layout
search): tqdm on stderr, shown where stderr is a terminal and the work takes more than DELAY seconds, never where
stderr is not a terminal (a pipe, a log file, a test) unless forced. The engine stays free of I/O: it calls
planner.engine.shared.advance, a hook that `planner run` points at Bars."""

from __future__ import annotations

import sys

SHOWN: bool | None = None  # None: when stderr is a terminal; True or False forces it (a test)
DELAY = 0.5  # seconds of work before a bar shows (at once when forced)


def wanted() -> bool:
    return sys.stderr.isatty() if SHOWN is None else SHOWN


def bar(total: float | None, desc: str, unit: str):
    """A tqdm bar on stderr (disabled, so silent, where it is not wanted); close it, or use it as a context."""
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit=unit, unit_scale=True, file=sys.stderr, disable=not wanted(),
                delay=0 if SHOWN else DELAY)


class Bars:
    """The hook planner.engine.shared.advance calls, as a context that installs it: one bar per kind of work at a
    time, made when the work first advances (the previous one closed) or starts again once done, its total the one
    given, or `totals`'."""

    def __init__(self, totals: dict | None = None):
        self.totals = dict(totals or {})
        self.what, self.bar = None, None

    def __call__(self, what: str, done: int, total: float | None, unit: str) -> None:
        if what == self.what and total is not None and total > (self.bar.total or 0):
            self.bar.total = total  # more of the same work found (a second glob's files)
        elif what != self.what or (self.bar.total is not None and self.bar.n >= self.bar.total):  # new, or again
            self.close()
            self.what, self.bar = what, bar(total or self.totals.get(what), what, unit)
        self.bar.update(done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        self.what, self.bar = None, None

    def __enter__(self) -> "Bars":
        from planner.engine import shared

        shared.PROGRESS = self
        return self

    def __exit__(self, *exc) -> None:
        from planner.engine import shared

        shared.PROGRESS = None
        self.close()
