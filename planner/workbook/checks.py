"""The Checks sheet: the master check that the Cover shows, then every input within its allowed values, every
Catalog column within its limits, and each table's checks. A recalculation canary sits beside the master check.

Every check is wrapped in IFERROR(…, FALSE): a blank, zero or text input turns it FALSE, never an error value. The
master check reads the whole result column below it, so a check added later cannot be missed.
"""

from __future__ import annotations

from planner.workbook import kit
from planner.workbook.catalog_sheet import BLOCKS, VALID
from planner.workbook.inputs import Input
from planner.workbook.kit import Check, Row

CANARY = 42  # recalc_canary = 21*2; recalc.py poisons its cached value to prove a recalculation happened


def write(book: kit.Book, results, inputs: list[Input], table_checks: list[Check]) -> kit.Sheet:
    sheet = book.sheet("Checks", [("Result", 12)], label_width=62, unit_width=4)
    sheet.title("Checks", "TRUE everywhere means the model is intact. Pasting into a cell skips its validation; "
                "these checks do not.")
    sheet.header(["Result"])
    master_row = sheet.row_index
    sheet.skip(1)
    sheet.row(Row("canary", "Recalculation canary", formula="=21*2", kind="count", unit="",
                  note="Always 42; verification tools use it to "
                  "prove that a spreadsheet application recalculated the workbook.", name="recalc_canary"), CANARY)
    sheet.skip()
    first = sheet.row_index

    sheet.section("Inputs within their allowed values")
    for spec in inputs:
        _check(sheet, Check(f"input_{spec.name}", f"{spec.label} ({spec.name})", formula=spec.allowed.check(spec.name),
                            note=spec.allowed.words()), True)
    sheet.section("Catalog entries within their limits")
    for block in BLOCKS:
        title = block.title.split(" (")[0]
        _check(sheet, Check(f"{block.prefix}_rows_valid", f"{title}: every entry valid (Catalog's {VALID} "
                            f"column)", formula=f"COUNTIF({block.prefix}_valid,FALSE)=0",
                            note="Its id appears once and every value is within its column's limits."), True)
    sheet.section("Tables")
    for check in table_checks:
        _check(sheet, check, results.checks[check.key])

    end = sheet.row_index
    sheet.row_index = master_row
    col = kit.xl_col_to_name(sheet.last_col)
    sheet.row(Row("all", "All checks pass", formula=f"=IFERROR(AND({col}{first + 1}:{col}{kit.MAX_ROW}),FALSE)",
                  kind="bool", unit="",
                  note="Every check below, including any added later. Shown on the Cover.", name="checks_all_pass",
                  bold=True, warn="false"), results.all_checks_pass)
    sheet.row_index = end
    return sheet


def _check(sheet: kit.Sheet, check: Check, value: bool) -> None:
    sheet.row(Row(check.key, check.label, formula=f"=IFERROR({check.formula},FALSE)", kind="bool", unit="",
              note=check.note, warn="false"),
              value)
