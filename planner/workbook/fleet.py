"""The Fleet sheet (stub)."""

from __future__ import annotations

from planner.workbook import kit
from planner.workbook.kit import Check

SHEET = "Fleet"
KEY_RESULTS: list = []
CHECKS = [Check("fleet_some_configuration_meets_slo", "Fleet: a configuration meets the SLO", formula="TRUE")]


def write(book: kit.Book, results) -> kit.Sheet:
    sheet = book.sheet(SHEET)
    sheet.title("Fleet")
    return sheet
