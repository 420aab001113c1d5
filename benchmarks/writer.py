"""Writer overhead: the planner's workbook against bare XlsxWriter writing the same cells (formulas with their
cached results, numbers, text, with the same number formats), defined names and charts: the floor any writer on
XlsxWriter pays. Issue 14's target: ≤ 1.3 × the floor.

    python benchmarks/writer.py [--runs 7]
"""

from __future__ import annotations

import argparse
import io
import zipfile

import openpyxl
import xlsxwriter
from timing import median_seconds

from planner.engine import compute
from planner.scenario import DEFAULT
from planner.workbook import build


def captured(results):
    """Every cell, name and chart count of the planner's default workbook, as plain data."""
    target = io.BytesIO()
    book = build(results, target)
    wb = openpyxl.load_workbook(target)
    cells = {ws.title: [(c.row - 1, c.column - 1, c.value, c.number_format) for row in ws.iter_rows() for c in row
                        if c.value is not None] for ws in wb.worksheets}
    charts = sum(1 for n in zipfile.ZipFile(target).namelist() if n.startswith("xl/charts/chart"))
    return book, cells, charts


def bare(book, cells: dict, charts: int) -> None:
    """The same cells, names and charts written with XlsxWriter alone."""
    wb = xlsxwriter.Workbook(io.BytesIO(), {"in_memory": True, "strings_to_formulas": False,
                                           "strings_to_urls": False, "strings_to_numbers": False})
    formats: dict = {}
    for name, sheet_cells in cells.items():
        ws = wb.add_worksheet(name)
        for row, col, value, number_format in sheet_cells:
            style = formats.get(number_format) or formats.setdefault(number_format, wb.add_format(
                {"num_format": number_format}))
            key = (name, xlsxwriter.utility.xl_rowcol_to_cell(row, col))
            if key in book.texts:
                ws.write_formula(row, col, book.texts[key], style, book.formulas[key])
            elif isinstance(value, bool):
                ws.write_boolean(row, col, value, style)
            elif isinstance(value, (int, float)):
                ws.write_number(row, col, value, style)
            else:
                ws.write_string(row, col, str(value), style)
    for name, (sheet, ref) in book.names.items():
        wb.define_name(name, f"='{sheet}'!{ref}")
    first = next(iter(cells))
    for _ in range(charts):
        chart = wb.add_chart({"type": "column"})
        chart.add_series({"values": [first, 0, 1, 20, 1], "categories": [first, 0, 0, 20, 0]})
        wb.worksheets()[0].insert_chart(0, 5, chart)
    wb.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    results = compute(DEFAULT)
    book, cells, charts = captured(results)
    ours = median_seconds(lambda: build(results, io.BytesIO()), args.runs)
    floor = median_seconds(lambda: bare(book, cells, charts), args.runs)
    count = sum(map(len, cells.values()))
    print(f"the planner's workbook ({count:,} cells, {len(book.formulas):,} formulas, {charts} charts): median "
          f"{ours * 1e3:.0f} ms")
    print(f"bare XlsxWriter, the same cells, names and charts: median {floor * 1e3:.0f} ms")
    print(f"ratio {ours / floor:.2f}×  target ≤ 1.3×: {'met' if ours / floor <= 1.3 else 'MISSED'}")


if __name__ == "__main__":
    main()
