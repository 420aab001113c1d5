"""Whole-process times beside the floor (Python importing numpy, XlsxWriter, Jinja2 and PyYAML), measured side by
side, taking turns: `planner --help`, `planner schema` and `planner run` of the default scenario (wall time and
peak memory). Issue 14's targets: help and schema ≤ 1.5 × the floor, run ≤ 3 ×.

    python benchmarks/startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from timing import BASELINE, interleaved

TARGETS = {"planner --help": 1.5, "planner schema": 1.5, "planner run (default)": 3.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        planner = [sys.executable, "-m", "planner"]
        results = interleaved({"floor: import numpy, xlsxwriter, jinja2, yaml": BASELINE,
                               "planner --help": planner + ["--help"], "planner schema": planner + ["schema"],
                               "planner run (default)": planner + ["run", "-o", str(Path(work) / "out")]},
                              args.runs)
    floor = next(iter(results.values()))[0]
    for name, (wall, memory) in results.items():
        target = TARGETS.get(name)
        verdict = f"  target ≤ {target}×: {'met' if wall / floor <= target else 'MISSED'}" if target else ""
        print(f"{name:48s} median {wall * 1e3:6.0f} ms  {wall / floor:4.2f}× the floor  peak {memory:5.0f} MB"
              f"{verdict}")


if __name__ == "__main__":
    main()
