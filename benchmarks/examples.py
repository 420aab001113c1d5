"""Building every example's workbook in memory (the engine's results computed beforehand): seconds per workbook,
the median of several runs, wall and CPU, and the guards' share (kit.Book.write_guarded, the checks every formula
cell needs); then the Books alone, without their files (kit.NO_FILE, what verify compares with). The tests build
these workbooks again and again, so this is their floor.

    python benchmarks/examples.py [--runs 5]
"""

from __future__ import annotations

import argparse
import io
import time

from timing import ROOT, median_wall_and_cpu

from planner.engine import compute
from planner.scenario import load_scenario
from planner.workbook import build, kit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    results = [compute(load_scenario(path)) for path in sorted((ROOT / "examples").glob("*.yaml"))]
    guards = []
    write_guarded = kit.Book.write_guarded

    def timed(book):
        start = time.process_time()
        write_guarded(book)
        guards.append(time.process_time() - start)

    kit.Book.write_guarded = timed
    wall, cpu = median_wall_and_cpu(lambda: [build(r, io.BytesIO()) for r in results], args.runs)
    n = len(results)
    print(f"{n} example workbooks built: median {wall:.2f} s wall, {cpu:.2f} s CPU, {cpu / n * 1e3:.0f} ms CPU per "
          f"workbook, of which the guards {sum(guards) / args.runs / n * 1e3:.0f} ms")
    if hasattr(kit, "NO_FILE"):  # the Book alone, as verify builds what it compares with
        _, cpu = median_wall_and_cpu(lambda: [build(r, kit.NO_FILE) for r in results], args.runs)
        print(f"the same Books without their files (kit.NO_FILE): {cpu / n * 1e3:.0f} ms CPU per workbook")


if __name__ == "__main__":
    main()
