"""Ctrl-C (SIGINT) and SIGTERM as the command line ends on them: the signal raises `Stopped` in the main thread, so
every `finally` on the way out runs (a set of files being written is undone or left whole, its temporary files
removed: planner/output.py), and the command prints one line and exits 128 + the signal's number (130, 143), as a
shell reports a process the signal ended. A second signal while stopping is ignored, so the clean-up finishes.

`planner batch`'s worker processes leave the signals to their parent (planner/batch.py): Ctrl-C to the terminal
reaches the whole process group, and the parent ends its workers itself.
"""

from __future__ import annotations

import signal
import threading

NAMES = {signal.SIGINT: "Ctrl-C (SIGINT)", signal.SIGTERM: "SIGTERM"}


class Stopped(KeyboardInterrupt):
    """A run stopped by a signal: `code` is the exit code (128 + the signal's number), `name` the signal in words.
    A KeyboardInterrupt, so nothing that catches Exception mistakes it for a failure of its own."""

    def __init__(self, signum: int):
        super().__init__(NAMES.get(signum, f"signal {signum}"))
        self.code = 128 + signum
        self.name = NAMES.get(signum, f"signal {signum}")


_stopping = False


def _raise_stopped(signum, frame) -> None:
    global _stopping
    if _stopping:  # the first signal's clean-up is running: let it finish
        return
    _stopping = True
    raise Stopped(signum)


def stop_on_signals() -> None:
    """SIGINT and SIGTERM raise Stopped from now on (in the main thread; elsewhere signals cannot be handled). A
    signal the process was started ignoring (a background job's Ctrl-C, `nohup`) stays ignored."""
    global _stopping
    if threading.current_thread() is not threading.main_thread():
        return
    _stopping = False
    for signum in NAMES:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            signal.signal(signum, _raise_stopped)


def installed() -> bool:
    """Whether SIGTERM raises Stopped (stop_on_signals was called in this process)."""
    return signal.getsignal(signal.SIGTERM) is _raise_stopped
