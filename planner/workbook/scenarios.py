"""The Scenarios sheet (docs/method.md §9), written when the scenario file has named scenarios: each scenario's key
results as the engine computed them when the workbook was generated (a snapshot of values, labelled so, as Excel's
own Scenario Summary is), beside the live results of the scenario the Inputs dropdown shows, and whether those
still match its snapshot (they stop matching once an input is edited)."""

from __future__ import annotations

from planner.scenario.named import PRICE
from planner.workbook import kit
from planner.listing import Columns, same_text, scenario_inputs
from planner.workbook.kit import PLACEHOLDER, KeyResult, Row
from planner.workbook.sensitivity import held

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
    return {name: {k.name: kit.shown_value(results.named[name].headline[k.name]) for k in key_results}
            for name in names}  # a blank result as the Live column shows it


def all_match(results, key_results: list[KeyResult], snapshot: dict, chosen: str) -> bool:
    """Whether the live results of the scenario shown match its snapshot (scenarios_match_snapshot)."""
    return all(matches(kit.shown_value(results.headline[k.name]), snapshot[chosen][k.name]) for k in key_results)


def write(book: kit.Book, results, key_results: list[KeyResult], columns: Columns, *, snapshot: dict,
          matching: bool) -> kit.Sheet:
    """`snapshot` (snapshots) and `matching` (all_match): what the sheet holds and whether the shown one matches."""
    names = ("base", *columns.names)
    apart = [(f"{name} − base", 16) for name in columns.names] + [(f"{name} vs base", 10) for name in columns.names]
    sheet = book.sheet(SHEET, [(name, 20) for name in names] + [("Live", 20), ("Matches", 10)] + apart,
                       label_width=56, unit_width=14, note_width=40)
    matches_col = len(names) + 2
    sheet.scalar_col = matches_col  # the scalar rows' value under Matches, the differences right of it
    sheet.guarded = False  # its live results read named results, which say NOT_AVAILABLE themselves
    sheet.title(SHEET, "Each named scenario's key results as computed when the workbook was generated: a snapshot "
                "of values, not formulas (as Excel's Scenario Summary), each column's labels in its own words below. "
                "Live is the scenario shown, as the formulas now give it; choose the scenario on Inputs.")
    chosen = snapshot[columns.chosen]

    sheet.section("The scenario shown")
    sheet.row(Row("shown", "Scenario shown (chosen on Inputs)", formula="=scenario", kind="text", unit=""),
              columns.chosen)
    header = sheet.row_index + 3
    first, last = header + 1, header + len(key_results)
    matched = f"{kit.xl_col_to_name(matches_col)}{first + 1}:{kit.xl_col_to_name(matches_col)}{last + 1}"
    sheet.row(Row("matches", "Its live results match its snapshot", formula=f"=AND({matched})", kind="bool", unit="",
                  note="FALSE once an input has been edited since the workbook was generated: the snapshot is then "
                       "out of date (run planner again).", name="scenarios_match_snapshot", warn="false"),
              matching)
    current_row = sheet.row_index  # each column's inputs as generated: written once their snapshot is
    sheet.row_index += 1

    sheet.section("Key results: the snapshot when generated, and live (labels: see each column's below)")
    sheet.row_index = header
    sheet.header([*names, "Live", "Matches", *(label for label, _ in apart)])
    last_name = kit.xl_col_to_name(len(names))
    book.define("scenario_names", SHEET, f"B{header + 1}:{last_name}{header + 1}")  # import reads the scenario
    # columns' names here, and an edited workbook's snapshot (which a workbook compared with it keeps)
    book.define("scenario_snapshots", SHEET, f"B{first + 1}:{last_name}{last + 1}")
    for r, result in enumerate(key_results, start=first):
        _result_row(book, sheet, r, result, results=results, names=names, snapshot=snapshot, chosen=chosen,
                    header=header)
    sheet.row_index = last + 2
    _column_labels(book, sheet, results, key_results, names)
    _inputs_snapshot(book, sheet, results, columns, flags_at=current_row)
    return sheet


def generic(label: str) -> str:
    """A key result's label without the live case's words: each input it names as "…" (each column's own words
    are in the block below the snapshot)."""
    return PLACEHOLDER.sub("…", label)


def _result_row(book: kit.Book, sheet: kit.Sheet, r: int, result: KeyResult, *, results, names, snapshot: dict,
                chosen: dict, header: int) -> None:
    """A key result: its label without the live case's words, each column's snapshot, the live value, whether it
    matches the shown column's snapshot, and each scenario's difference from the base (and as a share of it)."""
    styles = book.styles
    sheet.ws.write_string(r, 0, generic(result.label), styles.label)
    sheet.label_chars = max(sheet.label_chars, len(generic(result.label)))
    for col, name in enumerate(names, start=1):
        sheet.value_cell(r, col, snapshot[name][result.name], styles.value(result.kind, unit=result.unit,
                                                                          constant=True), None)
    live_col = len(names) + 1
    span = f"$B${header + 1}:${kit.xl_col_to_name(len(names))}${header + 1}"
    live, held = kit.xl_rowcol_to_cell(r, live_col), \
        f"INDEX($B{r + 1}:${kit.xl_col_to_name(len(names))}{r + 1},1,MATCH(scenario,{span},0))"
    sheet.formula(r, live_col, kit.shown(result.name), kit.shown_value(results.headline[result.name]),
                  styles.value(result.kind, unit=result.unit))
    sheet.formula(r, live_col + 1, f"=IFERROR(IF(AND(ISNUMBER({live}),ISNUMBER({held})),ABS({live}-{held})"
                  f"<={TOLERANCE:g}*MAX(ABS({live}),ABS({held})),IF(ISLOGICAL({live}),AND(ISLOGICAL("
                  f"{held}),{live}={held}),EXACT({live},{held}))),FALSE)",
                  matches(kit.shown_value(results.headline[result.name]), chosen[result.name]), styles.value("bool"))
    sheet.warn("false", r, live_col + 1, r, live_col + 1)
    base, count = snapshot["base"][result.name], len(names) - 1
    for i, name in enumerate(names[1:]):
        one, other = kit.xl_rowcol_to_cell(r, 1), kit.xl_rowcol_to_cell(r, 2 + i)
        both = f"AND(ISNUMBER({one}),ISNUMBER({other}),NOT(ISLOGICAL({one})),NOT(ISLOGICAL({other})))"
        value = snapshot[name][result.name]
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (base, value))
        sheet.formula(r, live_col + 2 + i, f'=IF({both},{other}-{one},"")', value - base if numbers else "",
                      styles.value(result.kind, unit=result.unit))
        sheet.formula(r, live_col + 2 + count + i, f'=IF(AND({both},{one}<>0),{other}/{one}-1,"")',
                      value / base - 1 if numbers and base != 0 else "", styles.value("percent"))


def _column_labels(book: kit.Book, sheet: kit.Sheet, results, key_results: list[KeyResult], names) -> None:
    """Each column's key-result labels in its own words, as generated (the Live column's follow the inputs)."""
    styles = book.styles
    sheet.section("Each column's labels, in its own words (as generated; Live's follow the inputs)")
    sheet.header([*names, "Live"])
    own = {name: _values(book, results.named[name]) for name in names}
    for result in key_results:
        r = sheet.row_index
        sheet.ws.write_string(r, 0, generic(result.label), styles.label)
        for col, name in enumerate(names, start=1):
            sheet.ws.write_string(r, col, kit.text_formula(result.label, own[name]).value, styles.text)
        label = kit.text_formula(result.label, book.values)
        sheet.formula(r, len(names) + 1, label.formula, label.value, styles.text)
        sheet.row_index += 1
    sheet.skip()


def _values(book: kit.Book, named) -> dict:
    """What a named scenario's labels read: its inputs and results by name (the workbook's where it has none)."""
    return {**book.values, **{i.name: i.value for i in scenario_inputs(named.scenario)}, **named.headline}


def _inputs_snapshot(book: kit.Book, sheet: kit.Sheet, results, columns: Columns, *, flags_at: int) -> None:
    """Each column's typed inputs as generated (a snapshot an edited workbook keeps), and at `flags_at` whether each
    column's typed cells still hold them: editing the low column while base is shown flags low's snapshot."""
    styles, names = book.styles, ("base", *columns.names)
    items = [i for i in scenario_inputs(results.scenario) if i.path not in columns.fixed and i.path != "scenario"]
    cells = [columns.typed_names(i) for i in items] + [[None] + [f"{PRICE}_{n}" for n in columns.names]]
    rows = [[columns.base[i.path]] + [columns.own[n].get(i.path) for n in columns.names] for i in items]
    rows.append([None] + [columns.prices.get(n) for n in columns.names])  # the price: Base is the Catalog's
    kept = held(book, "scenario_inputs_snapshot", rows)
    sheet.section("Each column's typed inputs when generated (a snapshot: what the flags above compare with)")
    sheet.header(list(names))
    first = sheet.row_index
    for i, (item_label, row) in enumerate(zip([i.label for i in items] + ["Price per GPU-hour"], kept)):
        sheet.ws.write_string(first + i, 0, item_label, styles.label)
        for col, value in enumerate(row, start=1):
            sheet.value_cell(first + i, col, value, styles.value("text", constant=True), None)
    last = first + len(kept) - 1
    book.define("scenario_inputs_snapshot", SHEET, f"B{first + 1}:{kit.xl_col_to_name(len(names))}{last + 1}")
    sheet.ws.write_string(flags_at, 0, "Each column's typed inputs as when generated (FALSE: its snapshot is stale; "
                          "run the planner again)", styles.label)
    # each column's comparisons in parts (no formula over 1,000 characters), in rows under the snapshot grouped out
    # of sight; the flag is the AND of its column's parts
    parts = []
    for col in range(1, len(names) + 1):
        compared = {f"EXACT({typed[col - 1]},{kit.xl_rowcol_to_cell(first + i, col)})":
                    same_text(book.values.get(typed[col - 1]), kept[i][col - 1])
                    for i, typed in enumerate(cells) if typed[col - 1] is not None}
        parts.append([(part, all(compared[e] for e in part)) for part in kit.in_parts(compared)])
    top = last + 2
    for k in range(max(len(column) for column in parts)):
        sheet.ws.write_string(top + k, 0, f"Its typed inputs as when generated, part {k + 1}", styles.label)
        for col, column in enumerate(parts, start=1):
            part, same = column[k] if k < len(column) else (["TRUE"], True)
            sheet.formula(top + k, col, f"={kit.all_of(part)}", same, styles.value("bool"))
    bottom = top + max(len(column) for column in parts) - 1
    sheet.hide(range(top, bottom + 1))
    sheet.row_index = bottom + 2
    for col, column in enumerate(parts, start=1):
        sheet.formula(flags_at, col, f"=AND({kit.xl_rowcol_to_cell(top, col)}:{kit.xl_rowcol_to_cell(bottom, col)})",
                      all(same for _, same in column), styles.value("bool"))
        sheet.warn("false", flags_at, col, flags_at, col)
    book.define("scenarios_columns_current", SHEET,
                f"B{flags_at + 1}:{kit.xl_col_to_name(len(names))}{flags_at + 1}")
