"""Printed pages: how large a sheet prints, which columns print together, where pages break, and how wide a column
must be for its numbers to show (never "###").

A4 landscape. Measured in LibreOffice: at 100 % a page holds about 727 pixels of column width (a column `w`
characters wide takes int(7·w + 0.5) + 5 pixels, as Excel counts them) and 474 points of rows. A sheet that fits
across one page at PRINT_SCALE or more is fitted to the page width; a wider one prints at a fixed scale in blocks of
at most BLOCK_COLUMNS columns, column A (the row labels) repeated on each, page after page down one block before the
next block starts.
"""

from __future__ import annotations

import math
import re
from typing import Sequence

PAGE_PIXELS = 720  # a page's width of columns at 100 %, a little under the 727 measured
PAGE_POINTS, HEADER_POINTS = 563, 89  # a page holds PAGE_POINTS / scale − HEADER_POINTS points of rows (474 at
# 100 %, 661 at 75 %, 849 at 60 %: the page header and footer scale with the rows)
IN_HAND = 0.97  # kept for rows that wrap taller than estimated
PRINT_SCALE = 0.6  # the smallest print scale: 11-point type prints at 6.6 points (a median word height of 8.6
# points in the PDF), as large as the Cover printed when it was fitted to the page
BLOCK_COLUMNS = 10  # the most value columns in one printed block
BLOCK_SCALE = 0.75  # the largest scale blocks print at (a narrow block prints larger, on more pages)
DEFAULT_ROW = 15  # points
DEFAULT_WIDTH = 8.43  # characters


def pixels(width: float) -> int:
    """A column `width` characters wide, in pixels (Excel's rule: 7 pixels a character and 5 of padding)."""
    if width <= 0:
        return 0
    if width < 1:
        return int(width * 12 + 0.5)
    return int(width * 7 + 0.5) + 5


def fitted_scale(widths: Sequence[float]) -> float:
    """The scale at which columns of these widths fit across one page (1 when they fit at 100 %)."""
    return min(1.0, PAGE_PIXELS / max(sum(pixels(w) for w in widths), 1))


NARROW_LABEL = 36  # column A at its narrowest when narrowed to fit a page (characters)
NARROW_NOTE = 30  # the Notes column at its narrowest
BLOCK_LABEL = 44  # column A at its widest on a sheet printed in blocks of columns


def narrowed(widths: Sequence[float], note_col: int | None) -> tuple[float, float | None]:
    """Column A's and the Notes column's widths (`note_col` None: no Notes column of its own): as they are where
    the columns fit across a page at PRINT_SCALE; narrowed just enough where that makes them fit, column A first,
    each to its narrowest at most; where nothing makes them fit, column A at BLOCK_LABEL at most (it repeats on
    every block of columns) and the Notes as they are."""
    label = widths[0]
    note = widths[note_col] if note_col is not None else None
    excess = sum(pixels(w) for w in widths) - PAGE_PIXELS / PRINT_SCALE
    spare_label = max(label - NARROW_LABEL, 0) * 7
    spare_note = max(note - NARROW_NOTE, 0) * 7 if note is not None else 0
    if excess <= 0:
        return label, note
    if excess > spare_label + spare_note:
        return min(label, max(BLOCK_LABEL, NARROW_LABEL)), note
    cut = min(excess, spare_label)
    return label - cut / 7, (note - (excess - cut) / 7 if note is not None else None)


def column_blocks(widths: Sequence[float], starts: Sequence[int] = ()) -> list[int]:
    """The columns a new printed block starts at (none: the sheet prints one page wide). widths[0] is column A,
    repeated on every block; each block holds at most BLOCK_COLUMNS columns and fits at PRINT_SCALE. A block
    ends before the last of `starts` (the first column of a group of columns) that lies inside it, so a group is
    not split where it need not be."""
    if fitted_scale(widths) >= PRINT_SCALE:
        return []
    room = PAGE_PIXELS / PRINT_SCALE - pixels(widths[0])
    preferred = set(starts)
    breaks: list[int] = []
    first, used = 1, 0
    col = 1
    while col < len(widths):
        width = pixels(widths[col])
        if col > first and (used + width > room or col - first >= BLOCK_COLUMNS):
            inside = [s for s in preferred if first < s <= col]
            at = max(inside) if inside else col
            breaks.append(at)
            first, used = at, sum(pixels(widths[c]) for c in range(at, col))
            continue
        used += width
        col += 1
    return breaks


def block_scale(widths: Sequence[float], breaks: Sequence[int]) -> float:
    """The scale blocks print at: the largest at which the widest block (with column A) fits, PRINT_SCALE at
    least."""
    edges = [1, *breaks, len(widths)]
    widest = max(sum(pixels(w) for w in widths[a:b]) for a, b in zip(edges, edges[1:]))
    return max(PRINT_SCALE, min(BLOCK_SCALE, PAGE_PIXELS / (pixels(widths[0]) + widest)))


def runs(rows: Sequence[int], sections: Sequence[int], hidden: set[int] = frozenset(),
         gap: int = 3) -> list[tuple[int, int]]:
    """Rows as runs to print (first, last): rows fewer than `gap` shown rows apart (hidden rows not counted) in
    one run; a run that starts right under a section's title row starts at the title."""
    found: list[list[int]] = []
    for row in sorted(rows):
        if found and sum(1 for r in range(found[-1][1] + 1, row) if r not in hidden) < gap:
            found[-1][1] = row
        else:
            found.append([row, row])
    titles = set(sections)
    return [(first - 1 if first - 1 in titles else first, last) for first, last in found]


def page_capacity(scale: float, titles: float) -> float:
    """The points of rows a page printed at `scale` holds under its repeated title rows (`titles` points tall)."""
    return (PAGE_POINTS / scale - HEADER_POINTS - titles) * IN_HAND


def page_breaks(sections: list[int], charts: list[tuple[int, int]], heights: dict[int, float], end: int, *,
                capacity: float, first: int = 2, flowing: set[int] = frozenset()) -> list[int]:
    """Rows to start new pages at. A section (its table, and its charts) that does not fit on the rest of the
    page starts a new one, when it fits on a page and the page it leaves is at least a third full; otherwise it
    flows across pages, its charts whole (a chart that would not fit starts a page). A long section does not start
    in the last quarter of a page. Every page ends at a break of its own, so the spreadsheet's pages are these.
    A `flowing` section (the Cover's GPUs by month: its first rows belong with the answers above it) runs on from
    the page before unless it would start in the last quarter of that page.
    `heights`: rows of other than 15 points (a hidden row: 0)."""
    chart_rows = dict(charts)
    row = lambda r: heights.get(r, DEFAULT_ROW)  # noqa: E731
    starts = sorted(set(sections))
    breaks: list[int] = []
    used = sum(row(r) for r in range(first, starts[0] if starts else end))
    for start, stop in zip(starts, starts[1:] + [end]):
        height = sum(row(r) for r in range(start, stop))
        if used + height <= capacity:
            used += height
            continue
        keep_whole = height <= capacity and used >= capacity / 3 and start not in flowing
        if used and (keep_whole or (height > capacity or start in flowing) and used > capacity * 3 / 4):
            breaks.append(start)
            used = 0
            if height <= capacity:
                used = height
                continue
        r = start
        while r < stop:  # row by row, each chart whole
            step = chart_rows.get(r, 1)
            h = sum(row(x) for x in range(r, r + step))
            if used + h > capacity:
                if used:
                    breaks.append(r)
                used = 0
            used += h
            r += step
    return breaks


# How wide a number shows ------------------------------------------------------------------------------------------
_QUOTED = re.compile(r'"([^"]*)"')
_BRACKETS = re.compile(r"\[[^\]]*\]")


def _section_length(section: str, magnitude: float) -> int:
    """The characters a number of this magnitude shows in one section of a number format."""
    literal = sum(len(text) for text in _QUOTED.findall(section))
    code = _BRACKETS.sub("", _QUOTED.sub("", section)).replace("\\", "")
    if not re.search(r"[0#?]", code):
        return literal + len(code)
    last = max(code.rfind(c) for c in "0#?")
    scaled = magnitude / 1000 ** (len(code[last + 1:]) - len(code[last + 1:].lstrip(",")))
    if "%" in code:
        scaled *= 100
    whole, _, fraction = code[:last + 1].partition(".")
    decimals = sum(fraction.count(c) for c in "0#?")
    shown = f"{scaled:,.{decimals}f}" if "," in whole else f"{scaled:.{decimals}f}"
    others = len(re.sub(r"[0#?.,]", "", code))  # %, a space, a unit letter
    return literal + len(shown) + others


def shown_length(magnitude: float, number_format: str | None, negative: bool = False) -> int:
    """The characters a number of this size (its absolute value) shows in a cell of this number format, at most
    (the longest of the format's sections); General shows up to ten significant figures."""
    if not number_format or number_format == "General":
        if magnitude == 0:
            return 1
        digits = int(math.floor(math.log10(magnitude))) + 1
        return (min(max(digits, 1), 11) + (4 if magnitude % 1 else 0)) + negative
    sections = number_format.split(";")
    if _CONDITION.match(sections[0]):
        return _section_length(_applying(sections, magnitude), magnitude)
    return max(_section_length(s, magnitude) for s in sections[:2]) + (negative and len(sections) < 2)


_CONDITION = re.compile(r"\[(<=|>=|<|>|=)([0-9.eE+-]+)\]")
_COMPARE = {"<": float.__lt__, "<=": float.__le__, ">": float.__gt__, ">=": float.__ge__, "=": float.__eq__}


def _applying(sections: list[str], magnitude: float) -> str:
    """The section of a conditional number format ("[>=1e9]…;…") that shows a number of this size."""
    for section in sections:
        condition = _CONDITION.match(section)
        if condition is None or _COMPARE[condition[1]](float(magnitude), float(condition[2])):
            return section
    return sections[-1]


def fitting_width(length: int, *, bold: bool = False) -> float:
    """The column width (characters) that shows `length` characters of a number without "###"."""
    return length * (1.1 if bold else 1.0) + 1.5
