"""The Method sheet: the formulas in words, their sources and the caveats."""

from __future__ import annotations

from planner import method
from planner.workbook import kit


def write(book: kit.Book, sections: list[str]) -> kit.Sheet:
    sheet = book.sheet("Method", [], label_width=120, note_width=10)
    sheet.title("Method", "What every sheet computes, where the formulas come from, and what they leave out.")
    for line in method.GENERAL:
        sheet.text(line, height=_height(line))
    sheet.skip()
    for key in sections:
        part = method.SECTIONS[key]
        sheet.section(part["title"])
        for heading in ("formulas", "sources", "caveats"):
            sheet.text(heading.capitalize(), style=book.styles.header)
            for line in part[heading]:
                sheet.text(line, height=_height(line))
        sheet.skip()
    return sheet


def _height(text: str) -> float:
    return 15 * (1 + len(text) // 130)
