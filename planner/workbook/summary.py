"""summary.xlsx for a batch: one row per scenario with its summary results, a link to its workbook, and the
message of every failure. A comparison of finished results: each scenario's own workbook holds the live model."""

from __future__ import annotations

import datetime as dt
from typing import Any

import xlsxwriter

from planner.scenario import CURRENCY_SYMBOLS
from planner.units import KINDS, MONEY_DECIMALS, money_format
from planner.workbook import pages


def write_summary(table, columns: list[tuple[str, str, str]], target: Any, *, generated: dt.date) -> None:
    """`table`: planner.batch.summary_table's DataFrame; `columns`: (headline name, heading, kind)."""
    book = xlsxwriter.Workbook(target, {"strings_to_formulas": False, "strings_to_urls": False,
                                        "strings_to_numbers": False, "in_memory": not isinstance(target, str)})
    book.set_properties({"title": "Planner batch summary", "created": dt.datetime.combine(generated, dt.time())})
    sheet = book.add_worksheet("Summary")
    header = book.add_format({"bold": True, "bottom": 1, "text_wrap": True, "valign": "top"})
    link = book.add_format({"font_color": "#0563C1", "underline": 1, "valign": "top"})
    text = book.add_format({"valign": "top"})
    error = book.add_format({"font_color": "#C00000", "text_wrap": True, "valign": "top"})
    formats: dict = {}

    def number_format(kind: str, currency: str):
        """A kind's format; money in the row's own currency ("$"#,##0 or #,##0" CHF"), as its workbook shows it."""
        key = (kind, currency if kind in MONEY_DECIMALS else "")
        if key not in formats:
            code = money_format(kind, CURRENCY_SYMBOLS.get(currency, currency)) if kind in MONEY_DECIMALS \
                else KINDS[kind].format or "General"
            formats[key] = book.add_format({"num_format": code, "valign": "top"})
        return formats[key]

    headings = ["Scenario", "Source", "Failure", "Currency"] + [heading for _, heading, _ in columns]
    sheet.write_row(0, 0, headings, header)
    sheet.set_row(0, 45)
    for r, row in enumerate(table.to_dict("records"), start=1):
        if row["error"]:
            sheet.write_string(r, 0, row["name"], text)
        else:
            sheet.write_url(r, 0, f"external:{row['slug']}.xlsx", link, row["name"])
        sheet.write_string(r, 1, row["source"], text)
        sheet.write_string(r, 2, row["error"], error)
        sheet.write_string(r, 3, row["currency"], text)
        for c, (name, _, kind) in enumerate(columns, start=4):
            value = row[name]
            if isinstance(value, bool):
                sheet.write_boolean(r, c, value, number_format(kind, row["currency"]))
            elif isinstance(value, str):  # a word where a number would be ("never")
                sheet.write_string(r, c, value, text)
            elif value is not None and value == value:  # not a failed scenario's blank (NaN in the table)
                sheet.write_number(r, c, float(value), number_format(kind, row["currency"]))
    longest = max((len(str(name)) for name in table["name"]), default=0) if len(table) else 0
    widths = [min(48, max(12, longest * 1.1 + 2)), 36, 40, 9] + [16] * len(columns)
    for c, width in enumerate(widths):
        sheet.set_column(c, c, width)
    sheet.freeze_panes(1, 1)
    sheet.autofilter(0, 0, max(len(table), 1), 3 + len(columns))
    _print_setup(sheet, widths, rows=max(len(table), 1), generated=generated)
    book.close()


def _print_setup(sheet, widths: list[float], *, rows: int, generated: dt.date) -> None:
    """A4 landscape in blocks of at most ten columns (pages.column_blocks), the scenario's name (column A) and the
    headings repeated on every page, page after page down one block before the next."""
    sheet.set_landscape()
    sheet.set_paper(9)  # A4
    sheet.set_header(f"&LPlanner batch summary · {generated.isoformat()}&R&A")
    sheet.set_footer("&CPage &P of &N")
    sheet.repeat_rows(0)
    breaks = pages.column_blocks(widths)
    if not breaks:
        sheet.fit_to_pages(1, 0)
        return
    sheet.set_print_scale(round(pages.block_scale(widths, breaks) * 100))
    sheet.repeat_columns(0)
    edges = [0, *breaks, len(widths)]
    areas = [(0, first, rows, stop - 1) for first, stop in zip(edges, edges[1:])]
    sheet.print_area_range = ",".join(sheet._convert_name_area(*area) for area in areas)
