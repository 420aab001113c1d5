"""Formula cells per example workbook, and how many sit on each sheet for the largest: what a workbook's size
follows (issue 42: the month rows follow the plan).

    python benchmarks/formulas.py [--sheets]
"""

from __future__ import annotations

import argparse
import collections

from timing import ROOT

from planner.engine import compute
from planner.scenario import load_scenario
from planner.workbook import build
from planner.workbook.kit import NO_FILE


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sheets", action="store_true", help="each workbook's formula cells by sheet too")
    args = parser.parse_args()
    for path in sorted((ROOT / "examples").glob("*.yaml")):
        book = build(compute(load_scenario(path)), NO_FILE)
        print(f"{path.stem:48s} {len(book.formulas):7,d}")
        if args.sheets:
            for sheet, count in collections.Counter(sheet for sheet, _ in book.formulas).most_common():
                print(f"    {sheet:44s} {count:7,d}")


if __name__ == "__main__":
    main()
