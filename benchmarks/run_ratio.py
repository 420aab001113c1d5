"""`planner run` of the default scenario beside the import floor, in CPU (user + sys of the whole process, its BLAS
threads included), paired runs taking turns so a noisy moment hits both: issue 42's target, run ≤ 3.0 × the floor.
Compiled modules are kept (PYTHONDONTWRITEBYTECODE unset), as an installed planner keeps them.

`planner run` starts numpy's OpenBLAS with one thread (planner/cli.py); the floor keeps numpy's default, a thread per
core. `--blas-default` also times the run with OPENBLAS_NUM_THREADS at the core count, as numpy would start it, and
says that ratio too.

    python benchmarks/run_ratio.py [--pairs 9] [--blas-default]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import ROOT

FLOOR = [sys.executable, "-c", "import numpy, xlsxwriter, jinja2, yaml, pydantic, click"]
TARGET = 3.0


def cpu(command: list[str], **extra: str) -> float:
    """User + system CPU seconds of one run of a command, whose output is discarded."""
    env = {key: value for key, value in os.environ.items()
           if key not in ("PYTHONDONTWRITEBYTECODE", "OPENBLAS_NUM_THREADS")}
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**env, "PYTHONPATH": str(ROOT), **extra})
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed (status {status})")
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--blas-default", action="store_true", help="also the run with numpy's own BLAS threads")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        run = [sys.executable, "-m", "planner", "run", str(ROOT / "examples" / "default.yaml"), "-o", work]
        cpu(FLOOR), cpu(run)  # compiled modules written once, not counted
        blas = {"OPENBLAS_NUM_THREADS": str(os.cpu_count())}
        pairs = [(cpu(FLOOR), cpu(run), cpu(run, **blas) if args.blas_default else None) for _ in range(args.pairs)]
    for floor, ran, threaded in pairs:
        print(f"floor {floor:5.3f} s  run {ran:5.3f} s  {ran / floor:4.2f}×"
              + (f"  with numpy's BLAS threads {threaded:5.3f} s  {threaded / floor:4.2f}×" if threaded else ""))
    floor, ran = statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)
    ratio = statistics.median(r / f for f, r, _ in pairs)
    print(f"medians over {len(pairs)} pairs: floor {floor:.3f} s, run {ran:.3f} s; run ÷ floor {ran / floor:.2f}× "
          f"(median of the pairs' ratios {ratio:.2f}×); target ≤ {TARGET}×: {'met' if ratio <= TARGET else 'MISSED'}")
    if args.blas_default:
        threaded = statistics.median(t / f for f, _, t in pairs)
        print(f"with numpy's own BLAS threads ({os.cpu_count()}): run {statistics.median(p[2] for p in pairs):.3f} s, "
              f"median of the pairs' ratios {threaded:.2f}×")


if __name__ == "__main__":
    main()
