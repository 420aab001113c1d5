"""The Checks sheet: every input within its allowed range, every table adding up, and the master check that the
Cover shows. A recalculation canary closes it."""

from __future__ import annotations

from planner.engine import Results
from planner.workbook import kit
from planner.workbook.inputs import Input

CANARY = 42  # recalc_canary = 21*2; recalc.py poisons its cached value to prove a recalculation happened


def write(book: kit.Book, results: Results, inputs: list[tuple[str, list[Input]]],
          table_checks: list[tuple[str, str, str]]) -> kit.Sheet:
    sheet = book.sheet("Checks", [("Result", 12)], label_width=62)
    sheet.title("Checks", "TRUE everywhere means the model is intact. Pasting into a cell skips its validation; "
                "these checks do not.")
    sheet.header(["Result"])
    first = sheet.row_index
    sheet.section("Inputs within their allowed values")
    for _, specs in inputs:
        for spec in specs:
            sheet.row(f"input_{spec.name}", f"{spec.label} ({spec.name})", spec.valid_formula(), True, "TRUE/FALSE",
                      _allowed(spec), "bool")
    sheet.section("Tables add up")
    for key, label, formula in table_checks:
        sheet.row(key, label, formula, results.checks[key], "TRUE/FALSE", "", "bool")
    last = sheet.row_index - 1
    sheet.skip()
    col = kit.xl_col_to_name(sheet.last_col)
    sheet.row("all", "All checks pass", f"=AND({col}{first + 1}:{col}{last + 1})",
              results.all_checks_pass, "TRUE/FALSE", "Shown on the Cover.", "bool",
              name="checks_all_pass", bold=True)
    sheet.skip()
    sheet.row("canary", "Recalculation canary", "=21*2", CANARY, "", "Always 42; verification tools use it to prove "
              "that a spreadsheet application recalculated the workbook.", "count", name="recalc_canary")
    return sheet


def _allowed(spec: Input) -> str:
    v = spec.validation
    if v["validate"] == "list":
        source = v["source"]
        return "TRUE or FALSE" if source == ["TRUE", "FALSE"] else f"one of {source.lstrip('=')}"
    return v["error_message"]
