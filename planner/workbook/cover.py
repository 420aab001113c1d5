"""The Cover: what the workbook is for (a line that follows the inputs), the master check, key results that name
what they are for, how to use it, the colour legend and the contents."""

from __future__ import annotations

from planner import __version__
from planner.workbook import answers, kit
from planner.tables import present, raised_warnings
from planner.workbook.kit import KeyResult, Row

HOW_TO_USE = [
    "Change the blue cells on pale yellow in Inputs and Catalog; every table, chart and label follows.",
    "Model, GPU, strategy, presets and profiles are dropdowns from Catalog; numbers are checked against their "
    "allowed ranges. Add a model or GPU in Catalog's empty rows and it joins the dropdowns.",
    "Every other cell is a formula; the sheets are protected (no password) so a stray keystroke cannot overwrite one.",
    "Checks must all be TRUE: the master check above says so, in red when one fails.",
    "Estimates are illustrative: they follow published formulas (see Method), not a measurement of your system.",
]
MASTER = Row("master", "Master check", kind="text", unit="", bold=True,
             formula='=IF(checks_all_pass,"All checks pass",checks_failed&IF(checks_failed=1," check fails"," checks '
                     'fail")&": see Checks")')
FIRST_FAILED = Row("first_failed", "The first that fails (a link to it)", kind="text", unit="",
                   formula="=IF(checks_failed=0,\"none\",HYPERLINK(\"#'Checks'!A\"&checks_first_failed_row,"
                           "checks_first_failed))")
WARNINGS = Row("warnings", "Warnings (the results stand; take care: see Checks)", kind="text", unit="",
               formula='=IF(checks_warnings=0,"none",checks_warnings&IF(checks_warnings=1," warning: "," warnings, the '
                       'first: ")&checks_first_warning)')
NOT_AVAILABLE = kit.NOT_AVAILABLE  # a key result whose inputs fail their checks


SCENARIOS_HOW = ("Named scenarios: Inputs has a Base column and one per scenario (blank: as base); the scenario "
                 "dropdown there picks the one the Live column shows, and every formula reads the Live column, so "
                 "an input's name names a formula there (the one exception to typed inputs). Scenarios lists each "
                 "scenario's key results as generated, a snapshot of values, beside the live ones.")


def write(book: kit.Book, results, key_results: list[KeyResult], matching: bool = True, columns=None) -> kit.Sheet:
    """`columns`: Inputs' scenario columns, if the file has named scenarios; `matching`: whether the scenario shown
    still matches its snapshot."""
    scenario = results.scenario
    # five value columns: the paths side by side and the GPUs by month; a single answer in the last
    sheet = book.sheet("Cover", [("", 15)] * 5, label_width=56, note_width=2, unit_width=2)
    sheet.guarded = False  # its key results read named results, which say NOT_AVAILABLE themselves
    sheet.title("LLM training and serving plan")
    _about(book, sheet, scenario)

    sheet.section("Master check")
    failing = [key for key, passes in results.checks.items() if not passes]
    count = f"{len(failing)} check{'s fail' if len(failing) != 1 else ' fails'}: see Checks"
    sheet.row(MASTER, "All checks pass" if not failing else count)
    sheet.warn("failed", sheet.row_of("master"), sheet.last_col, sheet.row_of("master"), sheet.last_col)
    labels = {check.key: check.label for table in present(scenario) for check in table.sheet.CHECKS}
    sheet.row(FIRST_FAILED, labels[failing[0]] if failing else "none")
    _warnings(book, sheet, warnings_line(results))
    sheet.skip()

    if columns:
        sheet.section("Scenario")
        sheet.row(Row("scenario_shown", "Scenario shown (choose it on Inputs)", formula="=scenario", kind="text",
                      unit=""), columns.chosen)
        sheet.row(Row("scenario_matches", "Its results as when generated (see Scenarios)", kind="bool", unit="",
                      formula="=scenarios_match_snapshot", warn="false"), matching)
        sheet.skip()

    answers.write(book, sheet, results, _key_result)
    _key_results(book, sheet, results, key_results)

    sheet.section("How to use", flowing=True)  # the reader's notes fill the last page's rest
    for line in HOW_TO_USE + ([SCENARIOS_HOW] if columns else []):
        sheet.text(line)
    sheet.skip()
    _legend(book, sheet)
    return sheet


def _warnings(book: kit.Book, sheet: kit.Sheet, line: str) -> None:
    """The warnings line across the value columns (a long first warning wraps there instead of widening the page),
    orange while one applies, not a failure's red."""
    r, style = sheet.row_index, book.styles.value("text")
    sheet._label(r, WARNINGS.label)
    col = answers.across(sheet, r, line, style)
    sheet.formula(r, col, WARNINGS.formula, line, style)
    sheet.places[WARNINGS.key] = kit.Place("cell", r, col, r, col)
    sheet.ws.conditional_format(r, col, r, sheet.last_col, {
        "type": "formula", "criteria": "=IFERROR(checks_warnings>0,FALSE)", "format": book.styles.changed})
    sheet.row_index += 1


def warnings_line(results) -> str:
    """The Cover's warnings line as the engine gives it: none, or how many apply and the first."""
    raised = [label for _, label, _ in raised_warnings(results)]
    if not raised:
        return "none"
    many = len(raised) > 1
    return f"{len(raised)} warning{'s, the first' if many else ''}: {raised[0]}"


def _about(book: kit.Book, sheet: kit.Sheet, scenario) -> None:
    """The scenario's name and description (named cells) and what generated the workbook, when."""
    ws, styles = sheet.ws, book.styles
    for label, text, name in (("Scenario", scenario.name, "scenario_name"),
                              ("Description (as written in the scenario file)", scenario.description,
                               "scenario_description"),
                              ("Generated by", f"planner {__version__} on {book.generated}", None)):
        ws.write_string(sheet.row_index, 0, label, styles.label)
        ws.merge_range(sheet.row_index, 1, sheet.row_index, sheet.note_col, "", styles.text)
        ws.write_string(sheet.row_index, 1, text, styles.text)
        lines = kit.wrapped_lines(text, sum(sheet.width_of(c) for c in range(1, sheet.note_col + 1)))
        if lines > 1:  # a long description wraps in its merged cell: the row grows to show it whole
            sheet.set_height(sheet.row_index, kit.DEFAULT_ROW * min(lines, 20))
        if name:
            book.define(name, sheet.name, kit.xl_rowcol_to_cell(sheet.row_index, 1))
        sheet.row_index += 1
    sheet.skip()


def _key_results(book: kit.Book, sheet: kit.Sheet, results, key_results: list[KeyResult]) -> None:
    """What the plan's total would be otherwise (differences from it; the total itself heads the answers) and where
    standby is paid, then every other key result, then the what-ifs on premises other than the plan's: a label
    that follows the inputs, and the named result."""
    headline = results.headline  # every table's named results, gathered once
    first = sorted((result for result in key_results if result.first and result.name not in answers.SHOWN),
                   key=lambda r: (r.kind == "text", r.snapshot))
    if first:
        sheet.section("What the plan's total would be otherwise (differences from it)")
        for result in first:
            _key_result(book, sheet, result, headline)
        sheet.skip()
    for title, wanted in (("Key results", False), ("What-ifs, not in the plan (each on the premises its label names)",
                                                   True)):
        chosen = [result for result in key_results if not result.first and result.what_if == wanted]
        if chosen:
            sheet.section(title, flowing=wanted)  # the what-ifs run on below the key results
            for result in chosen:
                _key_result(book, sheet, result, headline)
            sheet.skip()


def _legend(book: kit.Book, sheet: kit.Sheet) -> None:
    """The colour legend: an input, a formula, a method constant and a warning, each in its style."""
    styles = book.styles
    sheet.section("Colour legend", flowing=True)
    for label, text, style in (("Input: change it (on Inputs and Catalog; this one is a sample)", "1,024",
                                styles.value("text", sample=True)),
                               ("Formula: calculated, protected", "52.6 GB", styles.value("text")),
                               ("Method constant: fixed by the method (see Method)", "12", styles.value(
                                   "text", constant=True)),
                               ("A failed check, a fit that fails, negative headroom", "FALSE", styles.warning)):
        sheet.ws.write_string(sheet.row_index, 0, label, styles.label)
        sheet.ws.write_string(sheet.row_index, sheet.last_col, text, style)
        sheet.row_index += 1
    sheet.skip()


def _key_result(book: kit.Book, sheet: kit.Sheet, result: KeyResult, headline: dict) -> None:
    """A key result: its label (a formula of the inputs) and its value, read by name; a snapshot's value is the
    named cell's own, filled in once that cell is written."""
    styles, r = book.styles, sheet.row_index
    label = kit.text_formula(result.label, book.values)
    lines = kit.text_lines(label.value, kit.LABEL_WIDTH - 2)  # column A is LABEL_WIDTH wide: a longer label wraps
    sheet.formula(r, 0, label.formula, label.value, styles.long_label if lines > 1 else styles.label)
    if lines > 1:
        sheet.grow(r, kit.DEFAULT_ROW * lines)
    sheet.label_chars = max(sheet.label_chars, len(label.value))
    formula = kit.shown(result.name)
    style = styles.value(result.kind, unit=result.unit, right=True)  # text results aligned with the numbers
    shown = headline.get(result.name)
    col = answers.across(sheet, r, shown, style)  # across the value columns: a text or a reason reads whole
    if result.snapshot:
        book.late.append((sheet.name, r, col, formula, style, result.name))
    else:
        sheet.formula(r, col, formula, kit.shown_value(headline[result.name]), style)
    if result.kind == "bool":
        sheet.warn("false", r, col, r, col)
    sheet.places[f"key_{result.name}"] = kit.Place("cell", r, col, r, col)
    sheet.row_index += 1


def contents(book: kit.Book) -> None:
    """The contents, with a link to every sheet: written last, once every sheet (a table's extra ones included)
    exists."""
    sheet = book.sheets["Cover"]
    sheet.section("Contents", flowing=True)
    names = list(book.sheets)
    rows = -(-len(names) // CONTENTS_COLUMNS)  # down each column in turn: the Cover's last page holds them all
    for i, name in enumerate(names):
        sheet.ws.write_url(sheet.row_index + i % rows, i // rows, f"internal:'{name}'!A1", book.styles.link, name)
    sheet.row_index += rows


CONTENTS_COLUMNS = 2  # the label column and the first value column
