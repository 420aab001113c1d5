"""LibreOffice recalculation (what verify, audit and the tests pay): seconds per workbook, one file per call
against several in one call.

    python benchmarks/recalc.py [--runs 3] [--files 8]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from timing import median_seconds

from planner import recalc
from planner.engine import compute
from planner.scenario import DEFAULT
from planner.workbook import build


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--files", type=int, default=8)
    args = parser.parse_args()
    if recalc.find_soffice() is None:
        raise SystemExit("LibreOffice is not installed")
    results = compute(DEFAULT)
    with tempfile.TemporaryDirectory() as work:
        paths = []
        for i in range(args.files):
            paths.append(Path(work) / f"w{i}.xlsx")
            build(results, str(paths[-1]))
        one = median_seconds(lambda: recalc.recalculate(paths[:1], Path(tempfile.mkdtemp(dir=work))), args.runs)
        many = median_seconds(lambda: recalc.recalculate(paths, Path(tempfile.mkdtemp(dir=work))), args.runs)
    print(f"LibreOffice recalculation, 1 file per call:  median {one:.2f} s per workbook over {args.runs} runs")
    print(f"LibreOffice recalculation, {args.files} files in one call: median {many:.2f} s, {many / args.files:.2f} s "
          f"per workbook ({one * args.files / many:.1f}× the throughput of one per call)")


if __name__ == "__main__":
    main()
