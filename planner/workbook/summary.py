"""summary.xlsx for a batch: one row per scenario with its key and summary results, a link to its workbook, the
checks that fail and the message of every failure (an autofilter, the headings frozen); a pivot-style sheet per
two-axis sweep. A comparison of finished results: each scenario's own workbook holds the live model."""

from __future__ import annotations

import datetime as dt
from typing import Any

import xlsxwriter

from planner.scenario import CURRENCY_SYMBOLS
from planner.units import KINDS, MONEY_DECIMALS, money_format
from planner.workbook import pages


PIVOTED = ("money0", "money", "count")  # the key results a two-axis sweep's pivot-style sheet lays out


def write_summary(spool, columns: list[tuple[str, str, str]], target: Any, *, generated: dt.date,
                  done=None) -> None:
    """`spool`: planner.batch.Spool, its rows read in the batch's order and written one by one (XlsxWriter's
    constant-memory mode); `columns`: (headline name, heading, kind). Then a pivot-style sheet per two-axis sweep.
    `done(1)` is called as each row is written (a progress bar). Every text is written as text: a scenario's name
    never becomes a formula or a link of its own."""
    book = _Book(target, generated)
    sheet = book.book.add_worksheet("Summary")
    headings = ["Scenario", "Source", "Failure", "Currency"] + [heading for _, heading, _ in columns] + [
        "Failed checks"]
    widths = [min(48, max(12, spool.longest * 1.1 + 2)), 36, 40, 9] + [16] * len(columns) + [24]
    for c, width in enumerate(widths):
        sheet.set_column(c, c, width)
    sheet.write_row(0, 0, headings, book.header)
    sheet.set_row(0, 45)
    for r, row in enumerate(spool.rows(), start=1):
        if row["error"]:
            sheet.write_string(r, 0, row["name"], book.text)
        else:
            sheet.write_url(r, 0, f"external:{row['slug']}.xlsx", book.link, row["name"])
        sheet.write_string(r, 1, row["source"], book.text)
        sheet.write_string(r, 2, row["error"], book.error)
        sheet.write_string(r, 3, row["currency"], book.text)
        for c, column in enumerate(columns, start=4):
            book.result(sheet, (r, c), row, column)
        if not row["error"]:
            sheet.write_string(r, 4 + len(columns), ", ".join(row["checks_failed"]) or "none", book.text)
        if done is not None:
            done(1)
    sheet.freeze_panes(1, 1)
    sheet.autofilter(0, 0, max(spool.count, 1), len(headings) - 1)
    _print_setup(sheet, widths, rows=max(spool.count, 1), generated=generated)
    for n, sweep in enumerate(spool.two_axis_sweeps(), start=1):
        _pivot(book, f"Sweep {n}", spool, sweep, [c for c in columns if c[2] in PIVOTED])
    book.book.close()


class _Book:
    """The summary workbook and its formats; each result written in its kind's format and its row's currency."""

    def __init__(self, target: Any, generated: dt.date):
        self.book = xlsxwriter.Workbook(target, {"strings_to_formulas": False, "strings_to_urls": False,
                                                 "strings_to_numbers": False, "constant_memory": True})
        self.book.set_properties({"title": "Planner batch summary",
                                  "created": dt.datetime.combine(generated, dt.time())})
        self.header = self.book.add_format({"bold": True, "bottom": 1, "text_wrap": True, "valign": "top"})
        self.link = self.book.add_format({"font_color": "#0563C1", "underline": 1, "valign": "top"})
        self.text = self.book.add_format({"valign": "top"})
        self.error = self.book.add_format({"font_color": "#C00000", "text_wrap": True, "valign": "top"})
        self.formats: dict = {}

    def number_format(self, kind: str, currency: str):
        """A kind's format; money in the row's own currency ("$"#,##0 or #,##0" CHF"), as its workbook shows it."""
        key = (kind, currency if kind in MONEY_DECIMALS else "")
        if key not in self.formats:
            code = money_format(kind, CURRENCY_SYMBOLS.get(currency, currency)) if kind in MONEY_DECIMALS \
                else KINDS[kind].format or "General"
            self.formats[key] = self.book.add_format({"num_format": code, "valign": "top"})
        return self.formats[key]

    def result(self, sheet, cell: tuple[int, int], row: dict, column: tuple[str, str, str]) -> None:
        """A row's result `column` (headline name, heading, kind) at `cell`: its value, or "n/a: the reason"."""
        name, _, kind = column
        value, reason = row["headline"].get(name), row["not_available"].get(name)
        if reason is not None:
            sheet.write_string(*cell, f"n/a: {reason}", self.text)
        elif isinstance(value, bool):
            sheet.write_boolean(*cell, value, self.number_format(kind, row["currency"]))
        elif isinstance(value, str):  # a word where a number would be ("never")
            sheet.write_string(*cell, value, self.text)
        elif value is not None and value == value:
            sheet.write_number(*cell, float(value), self.number_format(kind, row["currency"]))


def _pivot(book: _Book, title: str, spool, sweep: tuple, columns: list) -> None:
    """A two-axis sweep's key results laid out as pivot tables: the first key's values down, the second's across,
    a table per result (the values the Summary sheet holds)."""
    source, first, down, second, across = sweep
    found = {(row["axes"].get(first), row["axes"].get(second)): row for row in spool.rows(source)}
    sheet = book.book.add_worksheet(title)
    sheet.set_column(0, 0, 24)
    sheet.set_column(1, len(across), 16)
    sheet.write_string(0, 0, f"{source}: the sweep's {first} down, {second} across", book.header)
    r = 2
    for column in columns:
        sheet.write_string(r, 0, column[1], book.header)
        sheet.write_string(r + 1, 0, f"{first} \\ {second}", book.header)
        for c, value in enumerate(across, start=1):
            sheet.write_string(r + 1, c, value, book.header)
        for i, row_value in enumerate(down, start=r + 2):
            sheet.write_string(i, 0, row_value, book.text)
            for c, column_value in enumerate(across, start=1):
                row = found.get((row_value, column_value))
                if row is not None and not row["error"]:
                    book.result(sheet, (i, c), row, column)
        r += len(down) + 3
    sheet.freeze_panes(0, 1)


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
