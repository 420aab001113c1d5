"""How long one scenario's outputs take: engine, workbook, HTML, JSON, and LibreOffice recalculation of one file
against four in one call. Prints medians of several runs.

    python benchmarks/outputs.py [--runs 7] [--no-libreoffice]
"""

from __future__ import annotations

import argparse
import io
import tempfile
from pathlib import Path

from timing import median_seconds

from planner import recalc
from planner.engine import compute
from planner.output import results_json
from planner.report import render_html
from planner.scenario import DEFAULT
from planner.workbook import build


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-libreoffice", action="store_true")
    args = parser.parse_args()
    results = compute(DEFAULT)
    steps = {
        "engine (all tables)": lambda: compute(DEFAULT),
        "workbook (in memory)": lambda: build(results, io.BytesIO()),
        "HTML summary": lambda: render_html(results, generated="2026-01-01"),
        "JSON results": lambda: results_json(results),
    }
    for label, fn in steps.items():
        print(f"{label:24s} median {median_seconds(fn, args.runs) * 1e3:8.1f} ms over {args.runs} runs")
    if args.no_libreoffice or recalc.find_soffice() is None:
        return
    with tempfile.TemporaryDirectory() as work:
        paths = []
        for i in range(4):
            path = Path(work) / f"w{i}.xlsx"
            build(results, str(path))
            paths.append(path)
        runs = max(3, args.runs // 2)
        one = median_seconds(lambda: recalc.recalculate(paths[:1], Path(tempfile.mkdtemp(dir=work))), runs)
        four = median_seconds(lambda: recalc.recalculate(paths, Path(tempfile.mkdtemp(dir=work))), runs)
    print(f"LibreOffice recalculation, 1 file:  median {one:.2f} s over {runs} runs")
    print(f"LibreOffice recalculation, 4 files: median {four:.2f} s ({four / one:.2f}× one file, "
          f"{four / 4 / one:.2f}× per file)")


if __name__ == "__main__":
    main()
