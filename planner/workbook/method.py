"""The Method sheet: the method constants (named cells the formulas use), then each table's formulas in words,
their sources and caveats."""

from __future__ import annotations

from planner import method
from planner.workbook import kit


def write(book: kit.Book, tables) -> kit.Sheet:
    sheet = book.sheet("Method", [("Value", 14)], label_width=70, note_width=70)
    sheet.title("Method", "What every sheet computes, where the formulas come from, and what they leave out.")
    for line in method.GENERAL:
        sheet.text(line, height=_height(line))
    sheet.skip()
    sheet.section("Method constants: every formula uses them by name")
    sheet.header(["Value"])
    for table in tables:
        for constant in table.engine.CONSTANTS:
            sheet.constant(constant.name, f"{constant.label} ({constant.name})", constant.value,
                           kind=_kind(constant.value),
                           unit=constant.unit, note=constant.source)
    sheet.skip()
    for table in tables:
        part = table.engine.METHOD
        sheet.section(part.title)
        for heading, lines in (("Formulas", part.formulas), ("Sources", part.sources), ("Caveats", part.caveats)):
            sheet.text(heading, style=book.styles.header)
            for line in lines:
                sheet.text(line, height=_height(line))
        sheet.skip()
    sheet.sections = [sheet.sections[0]]  # prose: its parts run on from page to page (none starts a page of its own)
    sheet.headings = []  # and every page repeats the sheet's titles, not the constants' headings
    return sheet


def _kind(value) -> str:
    """A constant printed at its precision: 0.5, 30.4375 and 1e-06 as they are, a whole number without decimals."""
    if isinstance(value, str):
        return "text"
    if value == int(value):
        return "count"
    return "decimal" if abs(value) >= 1e-3 else "small"


def _height(text: str) -> float:
    return 15 * (1 + len(text) // 150)
