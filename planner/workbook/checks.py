"""The Checks sheet: the master check that the Cover shows, then every input within its allowed values, every
Catalog column within its limits, and each table's checks. A recalculation canary sits beside the master check.

Every check is wrapped in IFERROR(…, FALSE): a blank, zero or text input turns it FALSE, never an error value. The
master check reads the result column of every check below it, so a check inserted among them cannot be missed;
below them, the sets of checks that guard results (kit.Book.write_groups).
"""

from __future__ import annotations

import re

from planner.workbook import kit
from planner.workbook.catalog_sheet import BLOCKS, VALID
from planner.listing import Columns, Input
from planner.workbook.inputs import PRICED
from planner.workbook.kit import Check, Row, Warning

CANARY = 42  # recalc_canary = 21*2; recalc.py poisons its cached value to prove a recalculation happened


def write(book: kit.Book, results, inputs: list[Input], table_checks: list[Check],
          columns: Columns | None = None, table_warnings: list[Warning] = ()) -> kit.Sheet:
    """Each check's cell is named ok_<input>, ok_<Catalog block> or ok_<check key>: formulas that need what it
    checks are guarded by it (kit.NOT_AVAILABLE). With named scenarios (`columns`) an input's check reads the scenario
    shown (what its results read) and a second check every column: one scenario's error blanks only its results."""
    sheet = book.sheet("Checks", [("Result", 12)], label_width=62, unit_width=6)
    sheet.guarded = False
    sheet.title("Checks", "TRUE everywhere means the model is intact. Pasting into a cell skips its validation; "
                "these checks do not.")
    sheet.header(["Result"], repeat=True)
    master_row = sheet.row_index
    sheet.skip(6)  # the master check, the count, the first failing check and its row, the warnings: written last
    sheet.row(Row("canary", "Recalculation canary", formula="=21*2", kind="count", unit="",
                  note="Always 42: proves a recalculation happened", name="recalc_canary"), CANARY)
    sheet.skip()
    summary_row = sheet.row_index
    sheet.skip(2 * SHOWN + 5)  # what prints: the checks that fail, then the sets' count that fail and those that do
    first = sheet.row_index
    sheet.checked = []  # (row, label, passes) of each check of the list, in its order (_check)

    # Catalog first: an input that chooses an entry fails with it, and the first failure names the Catalog row
    sheet.section("Catalog entries within their limits")
    for block in BLOCKS:
        _catalog_check(book, sheet, block)
    _input_checks(sheet, inputs, columns, results.scenario)
    sheet.section("Tables")
    labels = {}
    for check in table_checks:
        labels[check.key] = check.label
        _check(sheet, check, results.checks[check.key], kit.ok_name(check.key))

    end = sheet.row_index
    warned = _warnings(sheet, results, table_warnings)  # below the checks: the master check does not read them
    after = sheet.row_index
    sheet.row_index = master_row
    _master(sheet, results, labels=labels, first=first, end=end)
    _warning_count(sheet, results, warned)
    sheet.row_index = summary_row
    sheet.section(f"The checks that fail, in the list's order (the first {SHOWN}; the whole list is below)")
    failing(sheet, sheet.checked, at=summary_row + 1)
    sheet.row_index = summary_row + SHOWN + 2
    sheet.sets_row = sheet.row_index  # the sets' lines: kit.Book.write_groups, once every set is known (sets)
    sheet.sets_printed = sets
    sheet.printed_rows = summary_row + SHOWN  # and the sets' lines, once written (sets)
    sheet.row_index = after  # the sets of checks (kit.Book.write_groups) go below the warnings
    sheet.group_columns(RUNNING, RUNNING)
    sheet.printed_cols = sheet.note_end  # to the Notes: the helper columns right of them never print
    return sheet


NONE_FAILS = "None fails."
SHOWN = 8  # the failing checks, and the failing sets of checks, that print (the whole list stays on screen)
RUNNING = 60  # a hidden helper column: where in the list the k-th that fails is, on the k-th printed line


def _warnings(sheet: kit.Sheet, results, warnings: list[Warning]) -> tuple[int, int, dict]:
    """The warnings (docs/method.md §14.7), each TRUE where it applies, named warn_<key>, its note saying what to
    take care about; below the checks, so none fails the master check or turns a result n/a. Returns their first
    and last row and their labels."""
    sheet.skip()
    sheet.section("Warnings: TRUE where one applies. The results stand; the note says what to take care about")
    top, labels = sheet.row_index, {}
    for warning in warnings:
        labels[warning.key] = warning.label
        sheet.row(Row(warning.key, warning.label, formula=f"=IFERROR({warning.formula},FALSE)", kind="bool",
                      unit="", note=warning.note, name=f"warn_{warning.key}", warn="changed"),
                  results.warnings[warning.key])
    return top, sheet.row_index - 1, labels


def _warning_count(sheet: kit.Sheet, results, warned: tuple[int, int, dict]) -> None:
    """Below the master check: how many warnings apply and the first of them (the Cover shows both)."""
    top, bottom, labels = warned
    col = kit.xl_col_to_name(sheet.last_col)
    raised = [key for key, applies in results.warnings.items() if applies and key in labels]
    if bottom < top:  # no warning in this workbook's tables
        found, first = "=0", '=""'
    else:
        found = f"=COUNTIF({col}{top + 1}:{col}{bottom + 1},TRUE)"
        first = f'=IFERROR(INDEX(A{top + 1}:A{bottom + 1},MATCH(TRUE,{col}{top + 1}:{col}{bottom + 1},0)),"")'
    sheet.row(Row("warnings", "Warnings that apply (the results stand)", formula=found, kind="count", unit="",
                  note="On the Cover; not in the master check", name="checks_warnings"), len(raised))
    sheet.row(Row("first_warning", "The first warning that applies", kind="text", unit="",
                  name="checks_first_warning", formula=first), labels[raised[0]] if raised else "")


def failing(sheet: kit.Sheet, checked: list[tuple[int, str, bool]], *, at: int) -> None:
    """The first SHOWN of `checked` (row, label, passes) that fail, a line each from row `at`: its label, read from
    the sheet (a label that names the cell to fix follows it); blank below the last that fails. The k-th
    line finds its check from the one before: its place in the list, p_k = p_(k-1) + MATCH(FALSE, the results below
    p_(k-1)), in the hidden column RUNNING ("" once none is left)."""
    top, bottom = checked[0][0] + 1, checked[-1][0] + 1
    col, run = kit.xl_col_to_name(sheet.last_col), kit.xl_col_to_name(RUNNING)
    results, labels = f"${col}${top}:${col}${bottom}", f"$A${top}:$A${bottom}"
    offsets = {row - top + 2: label for row, label, _ in checked}  # a check's place in the list → its label
    found = [row - top + 2 for row, _, passes in checked if not passes]
    for k in range(1, SHOWN + 1):
        r = at + k - 1
        place = found[k - 1] if k <= len(found) else ""
        before = f"{run}{r}" if k > 1 else None
        formula = (f'=IFERROR(MATCH(FALSE,{results},0),"")' if before is None else
                   f'=IF({before}="","",IFERROR({before}+MATCH(FALSE,INDEX({results},{before}+1):'
                   f'INDEX({results},ROWS({results})),0),'
                   '""))')
        sheet.formula(r, RUNNING, formula, place, sheet.book.styles.value("count"))
        none = NONE_FAILS if k == 1 else ""  # the first line says so when none fails
        label = offsets[place] if place != "" else none
        sheet.formula(r, 0, f'=IF({run}{r + 1}="","{none}",'
                      f'INDEX({labels},{run}{r + 1}))', label, sheet.book.styles.label)  # runs across the blanks


def sets(sheet: kit.Sheet, checked: list[tuple[int, str, bool]]) -> None:
    """The printed lines of the sets of checks that guard results (below the list, written last by
    kit.Book.write_groups): their count that fail of all, and the first SHOWN that fail (failing)."""
    col, first, last = kit.xl_col_to_name(sheet.last_col), checked[0][0] + 1, checked[-1][0] + 1
    sheet.row_index = sheet.sets_row
    sheet.section(f"Sets of checks that guard results: a result shows a number while its set is TRUE (the first "
                  f"{SHOWN} that fail; every set is below)")
    sheet.row(Row("part_sets", f"Sets of checks that fail, of {len(checked):,}", kind="count", unit="",
                  warn="positive", formula=f"=IFERROR(COUNTIF({col}{first}:{col}{last},FALSE),0)"),
              sum(not passes for *_, passes in checked))
    failing(sheet, checked, at=sheet.row_index)
    sheet.printed_rows = sheet.row_index + SHOWN - 1


def _catalog_check(book: kit.Book, sheet: kit.Sheet, block) -> None:
    """A Catalog block's entries within their limits; its label names the first entry that fails and its row."""
    title = block.title.split(" (")[0]
    label = f"{title}: every entry valid (Catalog's {VALID} column)"
    _check(sheet, Check(f"{block.prefix}_rows_valid", label, formula=f"COUNTIF({block.prefix}_valid,FALSE)=0",
                        note="Its id appears once and every value is within its column's limits."), True,
           kit.ok_name(block.prefix))
    catalog, ref = book.names[f"{block.prefix}_valid"]
    first_row = int("".join(c for c in ref.split(":")[0] if c.isdigit()))
    found = f"MATCH(FALSE,{block.prefix}_valid,0)"
    sheet.formula(sheet.row_index - 1, 0, f'="{label}"&IFERROR(": "&INDEX({block.prefix}_ids,{found})&"\'s row '
                  f'fails (\'{catalog}\'!A"&({first_row - 1}+{found})&")","")', label, book.styles.label)


def _input_checks(sheet: kit.Sheet, inputs: list[Input], columns: Columns | None, scenario) -> None:
    """Each input within its allowed values (with named scenarios, in its Base and scenario columns), the plan's
    GPU priced above 0, and each scenario's own price."""
    sheet.section("Inputs within their allowed values" + (": in the scenario shown (what its results read), "
                                                          "then in every column" if columns else ""))
    if columns:  # the helper columns' headings: each column's own check, which the two checks of an input read
        for i, name in enumerate(("base", *columns.names)):
            sheet.ws.write_string(sheet.row_index - 1, COLUMN_CHECKS + i, f"{name}: allowed (blank: base's)",
                                  sheet.book.styles.header)
        sheet.group_columns(COLUMN_CHECKS, COLUMN_CHECKS + len(columns.names))
    for spec in inputs:
        across = columns is not None and spec.path != "scenario"
        at = _column_checks(sheet, columns, spec) if across and len(columns.typed_names(spec)) > 1 else None
        formula = columns.check_shown(spec, at) if across else spec.typed_allowed.check(spec.typed_name)
        shown = " in the scenario shown" if across else ""
        _check(sheet, Check(f"input_{spec.name}", f"{spec.label}{shown} ({spec.typed_name})", formula=formula,
                            note=spec.typed_allowed.words()), True, kit.ok_name(spec.name))
        if at:  # a column not shown fails here, and not its results
            _check(sheet, Check(f"input_{spec.name}_columns", f"{spec.label} in every scenario's column "
                                f"({spec.typed_name}_<scenario>)", formula=columns.check(spec, at),
                                note=spec.typed_allowed.words() + " In the Base column; a scenario's, blank or the "
                                     "same."), True, kit.ok_name(f"{spec.name}_columns"))
    _check(sheet, PRICED, scenario.gpu_price > 0, kit.ok_name(PRICED.key))  # the YAML refuses 0: an edit fails it
    if columns:  # a scenario's own price per GPU-hour
        _check(sheet, Check("input_price_per_gpu_hour", "Price per GPU-hour in the scenario shown "
                            "(price_per_gpu_hour_<scenario>)", formula=columns.price_check_shown(),
                            note=columns.price_allowed.words()), True, kit.ok_name("price_per_gpu_hour"))
        _check(sheet, Check("input_price_per_gpu_hour_columns", "Price per GPU-hour in every scenario's column "
                            "(price_per_gpu_hour_<scenario>)", formula=columns.price_check(),
                            note=columns.price_allowed.words()), True, kit.ok_name("price_per_gpu_hour_columns"))


COLUMN_CHECKS = 4  # with named scenarios: each input's check in each of its columns, right of the notes (hidden)


def _column_checks(sheet: kit.Sheet, columns: Columns, spec: Input) -> list[str]:
    """The input's check in each of its columns (Columns.column_checks), in the helper columns of the row its check
    in the scenario shown takes; their cells, which that check and the check of every column read."""
    r, cells = sheet.row_index, []
    for i, formula in enumerate(columns.column_checks(spec)):
        cells.append(sheet.formula(r, COLUMN_CHECKS + i, f"=IFERROR({formula},FALSE)", True,
                                   sheet.book.styles.value("bool")))
    return [kit.xl_rowcol_to_cell(r, COLUMN_CHECKS + i, True, True) for i in range(len(cells))]


def _master(sheet: kit.Sheet, results, *, labels: dict, first: int, end: int) -> None:
    """The master check over the result column of the checks from row `first` to `end`, their count that fail,
    the first that fails and its row."""
    col = kit.xl_col_to_name(sheet.last_col)
    # to the last check (a row inserted among them widens it); below them, the sets of checks that guard results
    results_range, labels_range = f"{col}{first + 1}:{col}{end}", f"A{first + 1}:A{end}"
    failing = [key for key, passes in results.checks.items() if not passes]
    sheet.row(Row("all", "All checks pass", formula=f"=IFERROR(AND({results_range}),FALSE)", kind="bool", unit="",
                  note="Every check below, and any row inserted among them. Shown on the Cover.",
                  name="checks_all_pass",
                  bold=True, warn="false"), results.all_checks_pass)
    sheet.row(Row("failed", "Checks that fail", formula=f"=COUNTIF({results_range},FALSE)", kind="count", unit="",
                  note="Shown on the Cover.", name="checks_failed"), len(failing))
    first_failing = labels[failing[0]] if failing else ""
    sheet.row(Row("first_failed", "The first that fails", kind="text", unit="", name="checks_first_failed",
                  formula=f'=IFERROR(INDEX({labels_range},MATCH(FALSE,{results_range},0)),"")',
                  note="The Cover links to it."), first_failing)
    first_row = (sheet.row_of(failing[0]) + 1) if failing else 0
    sheet.row(Row("first_failed_row", "… its row", kind="count", unit="", name="checks_first_failed_row",
                  formula=f"=IFERROR(MATCH(FALSE,{results_range},0)+{first},0)"), first_row)


def _check(sheet: kit.Sheet, check: Check, value: bool, name: str) -> None:
    sheet.checked.append((sheet.row_index, check.label, bool(value)))
    sheet.row(Row(check.key, check.label, formula=f"=IFERROR({check.formula},FALSE)", kind="bool", unit="",
                  note=check.note, name=name, warn="false"), value)
    if check.label_formula:  # the label names the cell to fix while the check fails
        found = CATALOG_CELL.sub(lambda m: catalog_cell(sheet.book, m[1], m[2], m[3]), check.label_formula)
        sheet.formula(sheet.row_index - 1, 0, f'="{check.label}"&IF({name},"",IFERROR({found},""))', check.label,
                      sheet.book.styles.label)


CATALOG_CELL = re.compile(r"\{catalog_cell:([a-z0-9_]+),([a-z0-9_]+),([^}]+)\}")


def catalog_cell(book: kit.Book, column: str, ids: str, entry: str) -> str:
    """A formula for the address of the Catalog cell, in the column named `column`, of the entry whose id (an
    expression) MATCH finds in the ids named `ids`, as a reader types it: 'Catalog'!F12."""
    catalog, ref = book.names[column]
    first = ref.split(":")[0].replace("$", "")
    letters = "".join(c for c in first if c.isalpha())
    first_row = int("".join(c for c in first if c.isdigit()))
    return f'"\'{catalog}\'!{letters}"&({first_row - 1}+MATCH({entry},{ids},0))'

