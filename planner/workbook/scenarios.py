"""The Scenarios sheet (docs/method.md §9), written when the scenario file has named scenarios: each scenario's key
results as the engine computed them when the workbook was generated (a snapshot of values, labelled so, as Excel's
own Scenario Summary is), beside the live results of the scenario the Inputs dropdown shows, and whether those
still match its snapshot (they stop matching once an input is edited)."""

from __future__ import annotations

from planner.workbook import kit
from planner.workbook.inputs import Columns
from planner.workbook.kit import KeyResult, Row

SHEET = "Scenarios"
TOLERANCE = 1e-9  # relative: a live result within it of its snapshot matches


def matches(live, snapshot) -> bool:
    """The sheet's Matches column as the engine reckons it: numbers within TOLERANCE, else the same value."""
    numbers = [isinstance(v, (int, float)) and not isinstance(v, bool) for v in (live, snapshot)]
    if all(numbers):
        return abs(live - snapshot) <= TOLERANCE * max(abs(live), abs(snapshot))
    return type(live) is type(snapshot) and live == snapshot


def snapshots(results, key_results: list[KeyResult], columns: Columns, held: list[list] | None = None) -> dict:
    """{scenario: {key result's name: value}}: the engine's results of each scenario, or `held`, the snapshot an
    edited workbook holds (rows of values, one per key result), which a workbook compared with it keeps."""
    names = ("base", *columns.names)
    if held and len(held) == len(key_results) and all(len(row) == len(names) for row in held):
        return {name: {k.name: row[i] for k, row in zip(key_results, held)} for i, name in enumerate(names)}
    return {name: {k.name: results.named[name].headline[k.name] for k in key_results} for name in names}


def all_match(results, key_results: list[KeyResult], snapshot: dict, chosen: str) -> bool:
    """Whether the live results of the scenario shown match its snapshot (scenarios_match_snapshot)."""
    return all(matches(results.headline[k.name], snapshot[chosen][k.name]) for k in key_results)


def write(book: kit.Book, results, key_results: list[KeyResult], columns: Columns, *, snapshot: dict,
          matching: bool) -> kit.Sheet:
    """`snapshot` (snapshots) and `matching` (all_match): what the sheet holds and whether the shown one matches."""
    names = ("base", *columns.names)
    sheet = book.sheet(SHEET, [(name, 20) for name in names] + [("Live", 20), ("Matches", 10)], label_width=56,
                       unit_width=14, note_width=40)
    sheet.guarded = False  # its live results read named results, which say NOT_AVAILABLE themselves
    styles = book.styles
    sheet.title(SHEET, "Each named scenario's key results as computed when the workbook was generated: a snapshot "
                "of values, not formulas (as Excel's Scenario Summary). Live is the scenario shown, as the formulas "
                "now give it; choose the scenario on Inputs.")
    chosen = snapshot[columns.chosen]

    sheet.section("The scenario shown")
    sheet.row(Row("shown", "Scenario shown (chosen on Inputs)", formula="=scenario", kind="text", unit=""),
              columns.chosen)
    header = sheet.row_index + 2
    first, last = header + 1, header + len(key_results)
    matched = f"{kit.xl_col_to_name(sheet.last_col)}{first + 1}:{kit.xl_col_to_name(sheet.last_col)}{last + 1}"
    sheet.row(Row("matches", "Its live results match its snapshot", formula=f"=AND({matched})", kind="bool", unit="",
                  note="FALSE once an input has been edited since the workbook was generated: the snapshot is then "
                       "out of date (run planner again).", name="scenarios_match_snapshot", warn="false"),
              matching)

    sheet.section("Key results: the snapshot when generated, and live")
    sheet.row_index = header
    sheet.header([*names, "Live", "Matches"])
    last_name = kit.xl_col_to_name(len(names))
    book.define("scenario_names", SHEET, f"B{header + 1}:{last_name}{header + 1}")  # import reads the scenario
    # columns' names here, and an edited workbook's snapshot (which a workbook compared with it keeps)
    book.define("scenario_snapshots", SHEET, f"B{first + 1}:{last_name}{last + 1}")
    span = f"$B${header + 1}:${kit.xl_col_to_name(len(names))}${header + 1}"
    for r, result in enumerate(key_results, start=first):
        label = kit.text_formula(result.label, book.values)
        sheet.formula(r, 0, label.formula, label.value, styles.label)
        sheet.label_chars = max(sheet.label_chars, len(label.value))
        for col, name in enumerate(names, start=1):
            sheet.value_cell(r, col, snapshot[name][result.name],
                             styles.value(result.kind, unit=result.unit, constant=True), None)
        live_col = len(names) + 1
        live, held = kit.xl_rowcol_to_cell(r, live_col), \
            f"INDEX($B{r + 1}:${kit.xl_col_to_name(len(names))}{r + 1},1,MATCH(scenario,{span},0))"
        sheet.formula(r, live_col, f'=IFERROR({result.name},"{kit.NOT_AVAILABLE}")', results.headline[result.name],
                      styles.value(result.kind, unit=result.unit))
        sheet.formula(r, live_col + 1, f"=IFERROR(IF(AND(ISNUMBER({live}),ISNUMBER({held})),ABS({live}-{held})"
                      f"<={TOLERANCE:g}*MAX(ABS({live}),ABS({held})),IF(ISLOGICAL({live}),AND(ISLOGICAL("
                      f"{held}),{live}={held}),EXACT({live},{held}))),FALSE)",
                      matches(results.headline[result.name], chosen[result.name]), styles.value("bool"))
        sheet.warn("false", r, live_col + 1, r, live_col + 1)
    sheet.row_index = last + 1
    return sheet
