"""The command line as a process sets up what the planner's own runs need before any command imports numpy."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

SHOW = """
import os, sys
from planner.cli import main
try:
    main({args})
except SystemExit:
    pass
print("OPENBLAS_NUM_THREADS", os.environ.get("OPENBLAS_NUM_THREADS"))
"""


def blas_threads(args: str, **env: str) -> str:
    clean = {key: value for key, value in os.environ.items() if key != "OPENBLAS_NUM_THREADS"}
    run = subprocess.run([sys.executable, "-c", SHOW.format(args=args), "--version"], capture_output=True, text=True,
                         cwd=ROOT, env={**clean, "PYTHONPATH": str(ROOT), **env}, timeout=60, check=True)
    return run.stdout.splitlines()[-1].split(" ", 1)[1]


def test_the_command_line_starts_numpy_with_one_blas_thread_unless_the_user_set_it():
    """OpenBLAS's threads do nothing for the planner's small arrays (benchmarks/README.md): its own command line
    asks for one; a value the user set stands; a caller that passes its own arguments (a script, a test) keeps
    its environment as it was."""
    assert blas_threads("") == "1"  # sys.argv: the process's own command line
    assert blas_threads("", OPENBLAS_NUM_THREADS="3") == "3"
    assert blas_threads("['--version']") == "None"
