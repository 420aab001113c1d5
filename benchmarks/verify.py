"""`planner verify` as a user runs it (a whole process) on every example workbook in one call: seconds per
workbook, the median of several runs, in LibreOffice (the default) and in Gnumeric.

    python benchmarks/verify.py [--runs 5] [--app libreoffice] [--app gnumeric] [--workbooks 16] [--example default]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import ROOT, process

from planner import recalc


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--app", action="append", choices=recalc.APPS)
    parser.add_argument("--workbooks", type=int, help="the first N example workbooks in name order (default: all)")
    parser.add_argument("--example", help="only this example's workbook (its slug: default)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        subprocess.run([sys.executable, "-m", "planner", "batch", str(ROOT / "examples"), "-o", work, "-q",
                        "--date", "2026-12-01"], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        workbooks = sorted(str(p) for p in Path(work).glob("*.xlsx") if p.name != "summary.xlsx"
                           and args.example in (None, p.stem))[:args.workbooks]
        for app in args.app or ["libreoffice"]:
            samples, memory = [], []
            for _ in range(args.runs):  # a run that finds a problem exits 1: process() stops the benchmark
                seconds, peak = process([sys.executable, "-m", "planner", "verify", "--app", app, *workbooks], ROOT)
                samples.append(seconds)
                memory.append(peak)
            total = statistics.median(samples)
            print(f"planner verify --app {app} on {len(workbooks)} example workbooks: median {total:.1f} s, "
                  f"{total / len(workbooks):.2f} s per workbook (runs {', '.join(f'{s:.1f}' for s in samples)} s; "
                  f"the Python process's peak {statistics.median(memory):.0f} MB)")


if __name__ == "__main__":
    main()
