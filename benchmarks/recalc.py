"""Recalculation in LibreOffice and Gnumeric (what verify, audit and the tests pay): seconds per workbook for one
workbook per call and for several in one call; LibreOffice both started for the call (`planner verify`) and kept
running (the tests: each call forwarded to it).

    python benchmarks/recalc.py [--runs 3] [--files 8] [--copies]

--copies: LibreOffice kept running on the copies as planner makes them (without print titles, protection, charts,
validations and conditional formats: recalc._NOT_VALUES) and on copies that keep everything, taking turns.
"""

from __future__ import annotations

import argparse
import statistics
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
    parser.add_argument("--copies", action="store_true", help="compare the copies with and without what no value "
                        "depends on, in LibreOffice kept running")
    args = parser.parse_args()
    results = compute(DEFAULT)
    with tempfile.TemporaryDirectory() as work:
        paths = []
        for i in range(args.files):
            paths.append(Path(work) / f"w{i}.xlsx")
            build(results, str(paths[-1]))
        if args.copies:
            return compare_copies(paths, args.runs)
        apps = {"LibreOffice, started for each call": recalc.LibreOffice(),
                "LibreOffice, kept running": recalc.LibreOffice(keep_running=True),
                "Gnumeric": recalc.Gnumeric()}
        for label, app in apps.items():
            try:
                app.require()
            except recalc.RecalcError as exc:
                print(f"{label}: {exc}")
                continue
            with app:
                app.recalculate(paths[:1])  # a running LibreOffice starts here, not in the first measured call
                one = median_seconds(lambda: app.recalculate(paths[:1]), args.runs)
                many = median_seconds(lambda: app.recalculate(paths), args.runs)
            print(f"{label}: 1 workbook per call: median {one:.2f} s; {args.files} in one call: median {many:.2f} s, "
                  f"{many / args.files:.2f} s per workbook ({args.runs} runs each)")


def compare_copies(paths: list[Path], runs: int) -> None:
    shipped = recalc._NOT_VALUES  # read by _poisoned_copy at each call
    samples: dict[str, list[float]] = {"as planner copies": [], "keeping everything": []}
    try:
        with recalc.LibreOffice(keep_running=True) as app:
            app.recalculate(paths[:1])
            for _ in range(runs):
                for label in samples:
                    recalc._NOT_VALUES = shipped if label == "as planner copies" else {}
                    samples[label].append(median_seconds(lambda: app.recalculate(paths), 1) / len(paths))
    finally:
        recalc._NOT_VALUES = shipped
    for label, seconds in samples.items():
        print(f"LibreOffice kept running, the copies {label}: median {statistics.median(seconds):.2f} s per workbook "
              f"(runs {', '.join(f'{s:.2f}' for s in seconds)})")


if __name__ == "__main__":
    main()
