"""The Sensitivity sheet (docs/method.md §9): four 5 × 5 grids of live closed forms, each heading a formula of the
inputs (an edited input re-centres its grids), the scenario's result in the middle cell, under a colour scale; then
the tornado of the total cost, its lines in input order, the same sorted by swing with LARGE and INDEX/MATCH, and
its bar chart. No Excel Data Tables: XlsxWriter cannot write them and LibreOffice does not recalculate them alike."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from planner.engine.crossover import NEVER
from planner.engine.cost import money_na
from planner.engine.sensitivity import ABOVE_B_MAX, DEMAND, STANDBY_WORDS, STEPS, TORNADO
from planner.engine.values import to_the_cent
from planner.workbook import kit, model
from planner.workbook.kit import Column, KeyResult, Row

SHEET = "Sensitivity"


@dataclass(frozen=True)
class Grid:
    """A 5 × 5 grid: its result over two inputs, each heading a formula of a step's named multiplier, each cell a
    formula of its row's and column's headings."""

    key: str  # the engine's grid key; the middle cell is named sensitivity_<key>_middle
    title: str
    corner: str  # what the rows and columns are
    row_heading: Callable[[str], str]  # the multiplier's name → the row heading's expression
    column_heading: Callable[[str], str]
    cell: Callable[[str, str], str]  # (row heading, column heading) → the cell's expression
    row_kind: str
    column_kind: str
    kind: str
    unit: str
    note: str


def _share(name: str) -> Callable[[str], str]:
    return lambda step: f"MIN(1,{name}*{step})"


def _count(name: str, at_least_one: bool = False) -> Callable[[str], str]:
    return (lambda step: f"MAX(1,ROUND({name}*{step},0))") if at_least_one else (lambda step: f"ROUND({name}*{step},0)")


def _scaled(name: str) -> Callable[[str], str]:
    return lambda step: f"{name}*{step}"


TOKENS = "{tokens_per_s_per_gpu}"  # the serving grid's TokS(B): its row's helper cell (_passes)
GRIDS = [
    Grid("training_cost", "Training cost over MFU (rows) × price per GPU-hour (columns)", corner="MFU ↓  price →",
         row_heading=_share("hours_mfu_used"), column_heading=_scaled("price_per_gpu_hour_converted"),
         cell=lambda r, c: model.gpu_hours("hours_training_flops", "hours_peak_tflops", r)
         + f"/hours_productive_share*{c}",
         row_kind="percent", column_kind="money", kind="money0", unit="paid once",
         note="C / (peak · MFU · 3600) / q × price; the middle is Hours' cost"),
    Grid("days", "Wall-clock days over the run's GPUs (rows) × MFU (columns)", corner="GPUs ↓  MFU →",
         row_heading=_count("hours_gpus", at_least_one=True), column_heading=_share("hours_mfu_used"),
         cell=lambda r, c: model.gpu_hours("hours_training_flops", "hours_peak_tflops", c)
         + f"/hours_productive_share/{r}/hours_per_day",
         row_kind="count", column_kind="percent", kind="days", unit="days",
         note="C / (peak · MFU · 3600) / q / GPUs / 24"),
    Grid("crossing_day", "Crossing day in GPU-hours over tokens per day (rows) × serving MFU (columns)",
         corner="Tokens a day ↓  serving MFU →", row_heading=_count("crossover_served_tokens_per_day"),
         column_heading=_share("crossover_serving_mfu_used"),
         cell=lambda r, c: f'IF({r}=0,"{NEVER}",hours_gpu_hours/('
                           + model.gpu_hours(f"serving_ops_per_param_token*model_active_params*{r}",
                                             "gpu_peak_tflops", c)
                           + "))",
         row_kind="token_count", column_kind="percent", kind="days", unit="days",
         note="H / serving GPU-hours per day; \"never\" without traffic"),
    Grid("cost_per_million_tokens", "Serving cost per million output tokens over users B (rows) × price (columns)",
         corner="Users B ↓  price →", row_heading=_count("serving_users", at_least_one=True),
         column_heading=_scaled("price_per_gpu_hour_converted"),
         cell=lambda r, c: f'IF({r}>serving_max_concurrency,"{ABOVE_B_MAX}",'
                           + model.cost_per_million_tokens(c, TOKENS) + ")",
         row_kind="count", column_kind="money", kind="money", unit="per M tokens",
         note="price · 1e6 / (3600 · TokS(B)): the Serving table's roofline at B; more users than fit (B_max) say "
         "so"),
]
STEP_NAMES = [f"sensitivity_step_{i}" for i in range(1, len(STEPS) + 1)]

BASE = [
    Row("total_cost", "The plan's total (Budget, Cost)", kind="money0", unit="over the plan",
        formula="=plan_total_cost",
        note="The budget's path on the calendar, with escalation and contingency", name="sensitivity_total_cost",
        bold=True),
]
STALE = "n/a: an input changed since the planner ran; run it again"
LIVE = {  # tornado input → its value now, as the sheet names it
    "mfu": "hours_mfu_used", "price": "price_per_gpu_hour_converted", "training_tokens": "hours_tokens",
    "tokens_per_day": "crossover_served_tokens_per_day", "bandwidth_efficiency": "serving_bandwidth_efficiency_used",
    "productive_share": "hours_productive_share", "monthly_growth": "budget_monthly_growth",
    "horizon": "crossover_horizon_days"}
assert list(LIVE) == list(TORNADO)
IDS = list(LIVE)

TORNADO_LINES = [  # the snapshot first (one block, named sensitivity_tornado_snapshot), then what reads it
    Column("input", "Input", kind="text", template="", snapshot=True),
    Column("value", "Its value when generated", kind="scaled", template="", snapshot=True),
    Column("low", "At ×0.8", kind="scaled", template="", snapshot=True),
    Column("high", "At ×1.2", kind="scaled", template="", snapshot=True),
    Column("total_low", "The plan's total over the plan at ×0.8", kind="money0", template="", snapshot=True),
    Column("total_high", "The plan's total over the plan at ×1.2", kind="money0", template="", snapshot=True),
    Column("now", "Its value now", kind="scaled", template=lambda i: "=" + LIVE[IDS[i]]),
    Column("same", "Unchanged", kind="bool", warn="false",
           template="=IFERROR(ABS({now}-{value})<=1e-9*MAX(ABS({now}),ABS({value})),FALSE)"),
    Column("swing", "Swing over the plan", kind="money0",
           template='=IF(AND(ISNUMBER({total_low}),ISNUMBER({total_high})),ROUND(ABS({total_high}-{total_low}),2),'
                    '"n/a")'),
    Column("cents", "Swing over the plan, to the cent", kind="money0",
           template="=IF(ISNUMBER({swing}),ROUND({swing},2),-1)"),
    Column("rank", "Rank (equal swings in line order)", kind="count",
           template='=COUNTIF({cents:range},">"&{cents})+COUNTIF({cents:through},{cents})'),
]
SNAPSHOT_COLUMNS = [c.key for c in TORNADO_LINES if c.snapshot]


def _change(key: str) -> str:
    return (f'=IF(AND(ISNUMBER({{{key}}}),ISNUMBER(sensitivity_total_snapshot)),ROUND({{{key}}}-'
            f'sensitivity_total_snapshot,2),"n/a")')


SORTED = [  # the lines by swing, largest first
    Column("position", "Line", kind="count", template="=MATCH({label},{rank:range},0)"),
    Column("sorted_input", "Input", kind="text", template="=INDEX({input:range},{position})"),
    Column("sorted_total_low", "The plan's total over the plan at ×0.8", kind="money0",
           template="=INDEX({total_low:range},{position})"),
    Column("sorted_total_high", "The plan's total over the plan at ×1.2", kind="money0",
           template="=INDEX({total_high:range},{position})"),
    Column("change_low", "Change over the plan at ×0.8", kind="money0", template=_change("sorted_total_low")),
    Column("change_high", "Change over the plan at ×1.2", kind="money0", template=_change("sorted_total_high")),
]
SORTED_VALUES = {"position": "position", "sorted_input": "input",
                 "sorted_total_low": "total_low", "sorted_total_high": "total_high", "change_low": "change_low",
                 "change_high": "change_high"}

ALTERNATIVES = [  # the Cover's bridge: the plan's total against each alternative
    Column("label", "The plan with", kind="words", template="", snapshot=True),  # wrapped in its column
    Column("total", "Its total over the plan when generated", kind="money0", template="", snapshot=True),
    Column("difference", "Difference over the plan from its total", kind="money0", template="", snapshot=True),
    Column("shown", "Difference over the plan, while current", kind="money0",
           template=f'=IF(plan_money_na<>"",plan_money_na,IF(sensitivity_snapshot_current,{{difference}},'
                    f'"{STALE}"))'),  # the plan's own reason first: running it again would not help
]
STANDBY_ALTERNATIVE = Row("standby_alternative", "Standby, the other way round", kind="text", unit="",
                          formula=f'=IF(budget_include_standby,"{STANDBY_WORDS[True]}","{STANDBY_WORDS[False]}")',
                          name="plan_standby_alternative")
ALTERNATIVE_LABELS = {
    "assumed_mfu": "serving at Crossover's assumed serving MFU instead of the roofline (an assumption, not a cost)",
    "standby": "standby the other way round (in the total on the on-demand path, or not)",
    "growth": "no monthly growth",
}


def held(book: kit.Book, name: str, rows: list[list]) -> list[list]:
    """A snapshot's rows: as an edited workbook holds them (when its shape is this one's), else the engine's."""
    found = book.held.get(name)
    if found and len(found) == len(rows) and all(len(a) == len(b) for a, b in zip(found, rows)):
        return found
    return rows


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.sensitivity
    widths = [16] * len(TORNADO_LINES)
    widths[[c.key for c in TORNADO_LINES].index("input")] = widths[[c.key for c in SORTED].index("sorted_input")] = 24
    sheet = book.sheet(SHEET, [("", w) for w in widths], label_width=30, unit_width=14, note_width=44, beside=True)
    sheet.title("Sensitivity: four grids and a tornado", "docs/method.md §9: each grid moves two inputs to ×0.5 … "
                "×1.5 of the scenario's values; the middle cell is the scenario's own result.")
    for grid in GRIDS:
        _grid(book, sheet, grid, table.grids[grid.key], table.passes)

    _snapshot(book, sheet, table, premise=money_na(results.cost))
    return sheet


def _snapshot(book: kit.Book, sheet: kit.Sheet, table, *, premise: str) -> None:
    """The plan re-evaluated by the engine with one input moved (the tornado) and against its alternatives (the
    Cover's bridge): values as generated, with the check that they are still the plan's."""
    sheet.section("The plan's total re-evaluated by the engine: a snapshot of values as generated (no closed form "
                  "on the calendar)")
    sheet.rows(BASE, table.scalars)
    [[total]] = held(book, "sensitivity_total_snapshot", [[table.scalars["total_cost"]]])
    sheet.constant("sensitivity_total_snapshot", "The plan's total when generated", total, kind="money0", unit="",
                   note="What the lines below were computed against")
    lines = [dict(line) for line in table.tornado]
    kept = held(book, "sensitivity_tornado_snapshot", [[line[key] for key in SNAPSHOT_COLUMNS] for line in lines])
    for line, values in zip(lines, kept):
        line |= dict(zip(SNAPSHOT_COLUMNS, values)) | {"now": line["value"]}
        line["same"] = True
    current = _current(book, table, total, lines)
    sorted_rows = _sorted(lines, total)  # the swings and ranks of the values held
    sheet.skip()
    sheet.section("Tornado: the plan's total with one input at ×0.8 and ×1.2 (shares capped at 1; growth of 0 moves "
                  "by ±0.01 a month)")
    _, first, last = sheet.records(list(range(1, len(IDS) + 1)), TORNADO_LINES, lines, label_header="Line")
    _name_block(book, sheet, "sensitivity_tornado_snapshot", rows=(first, last), keys=SNAPSHOT_COLUMNS)
    sheet.row(Row("current", "The snapshot is the plan's (its inputs and total unchanged)", kind="bool", unit="",
                  formula="=AND(IFERROR(ABS(plan_total_cost-sensitivity_total_snapshot)<=1e-9*ABS("
                          "sensitivity_total_snapshot),FALSE),COUNTIF({same:range},FALSE)=0,"
                          "COUNTIF(inputs_changed,TRUE)=0)", warn="false", name="sensitivity_snapshot_current",
                  note="FALSE once an input is edited: run the planner again for a fresh snapshot"), current)
    _demand(sheet, lines, first, premise=premise, current=current)
    sheet.skip()
    sheet.section("Sorted by swing, largest first (each line's rank, then INDEX/MATCH)")
    _, first, _ = sheet.records(list(range(1, len(IDS) + 1)), SORTED, sorted_rows, label_header="Rank")
    top = kit.xl_rowcol_to_cell(first, sheet.places["sorted_input"].col, True, True)
    total_now = table.scalars["total_cost"]
    sheet.row(Row("largest_swing", "The input that moves the plan's total most, while the snapshot is current",
                  kind="text", unit="", name="sensitivity_largest_swing",
                  formula=f'=IF(NOT(ISNUMBER(plan_total_cost)),plan_total_cost,IF(sensitivity_snapshot_current,{top},'
                          f'"{STALE}"))', note="The first line above; n/a once an input changes, as the snapshot"),
              total_now if isinstance(total_now, str) else sorted_rows[0]["sorted_input"] if current else STALE)
    _tornado_chart(book, sheet)
    sheet.skip()
    sheet.section("The plan against its alternatives (shown on the Cover as differences)")
    sheet.row(STANDBY_ALTERNATIVE, table.headline["plan_standby_alternative"])
    alternatives = [{"label": ALTERNATIVE_LABELS[a["key"]], "total": a["total"], "difference": a["difference"]}
                    for a in table.alternatives]
    kept = held(book, "sensitivity_alternatives_snapshot", [[a[key] for key in ("label", "total", "difference")]
                                                           for a in alternatives])
    for a, values in zip(alternatives, kept):
        a |= dict(zip(("label", "total", "difference"), values))
        a["shown"] = premise or (a["difference"] if current else STALE)
    _, first, last = sheet.records([a["key"] for a in table.alternatives], ALTERNATIVES, alternatives,
                                   label_header="Alternative")
    _name_block(book, sheet, "sensitivity_alternatives_snapshot", rows=(first, last),
                keys=["label", "total", "difference"])
    width = sheet.width_of(sheet.places["label"].col)
    for i, a in enumerate(alternatives):
        sheet.grow(first + i, kit.DEFAULT_ROW * kit.text_lines(a["label"], width - 2))
    col = sheet.places["shown"].col
    for i, a in enumerate(table.alternatives):
        book.define(f"plan_{a['key']}_difference", sheet.name, kit.xl_rowcol_to_cell(first + i, col),
                    alternatives[i]["shown"])


def _demand(sheet: kit.Sheet, lines: list[dict], first: int, *, premise: str, current: bool) -> None:
    """The tornado's demand line read out for the Cover (the plan's total at ±20 % demand): the plan's own reason
    first, then the snapshot's total while it is current."""
    line = IDS.index(DEMAND)
    for key, end, label in (("total_low", "low", "×0.8"), ("total_high", "high", "×1.2")):
        cell = kit.xl_rowcol_to_cell(first + line, sheet.places[key].col, row_abs=True, col_abs=True)
        value = premise or (lines[line][key] if current else STALE)
        sheet.row(Row(f"demand_{end}", f"The plan's total with served tokens per day at {label} (the demand line)",
                      formula=f'=IF(plan_money_na<>"",plan_money_na,IF(sensitivity_snapshot_current,{cell},'
                              f'"{STALE}"))', kind="money0", unit="", name=f"plan_total_demand_{end}",
                      note="The Cover's demand risk"), value)


def _current(book: kit.Book, table, total, lines: list[dict]) -> bool:
    """Whether the snapshot is still the plan's: its total the plan's, its inputs as they were, no input changed
    since generation (Inputs' Changed column, as written)."""
    changed = any(book.formulas.get(cell) is True for cell in book.changed_cells)
    live = table.scalars["total_cost"]
    same_total = isinstance(live, (int, float)) and isinstance(total, (int, float)) and \
        abs(live - total) <= 1e-9 * abs(total)
    same_inputs = all(isinstance(line["value"], (int, float)) and abs(line["now"] - line["value"])
                      <= 1e-9 * max(abs(line["now"]), abs(line["value"])) for line in lines)
    for line in lines:
        line["same"] = isinstance(line["value"], (int, float)) and abs(line["now"] - line["value"]) <= \
            1e-9 * max(abs(line["now"]), abs(line["value"]))
    return same_total and same_inputs and not changed


def _sorted(lines: list[dict], total) -> list[dict]:
    """The lines by swing as the sheet sorts them (rank, then INDEX/MATCH), from the values it holds; a swing and a
    change to the cent, as the sheet rounds them (two totals that differ in their last digits differ by noise
    that no two applications compute alike)."""
    for line in lines:
        numbers = all(isinstance(line[key], (int, float)) for key in ("total_low", "total_high"))
        line["swing"] = to_the_cent(abs(line["total_high"] - line["total_low"])) if numbers else "n/a"
        line["cents"] = to_the_cent(line["swing"]) if numbers else -1
    for i, line in enumerate(lines):
        line["rank"] = sum(other["cents"] > line["cents"] for other in lines) + \
            sum(other["cents"] == line["cents"] for other in lines[:i + 1])
    found = []
    for rank in range(1, len(lines) + 1):
        position = next(i for i, line in enumerate(lines, start=1) if line["rank"] == rank)
        line = lines[position - 1]

        def change(value):
            numbers = isinstance(value, (int, float)) and isinstance(total, (int, float))
            return to_the_cent(value - total) if numbers else "n/a"

        found.append({"position": position, "sorted_input": line["input"], "sorted_total_low": line["total_low"],
                      "sorted_total_high": line["total_high"], "change_low": change(line["total_low"]),
                      "change_high": change(line["total_high"])})
    return found


def _name_block(book: kit.Book, sheet: kit.Sheet, name: str, *, rows: tuple[int, int], keys: list[str]) -> None:
    """A defined name over a snapshot's columns (adjacent), so an edited workbook's values can be read back."""
    first, last = rows
    cols = [sheet.places[key].col for key in keys]
    book.define(name, sheet.name, f"{kit.xl_rowcol_to_cell(first, min(cols))}:{kit.xl_rowcol_to_cell(last, max(cols))}")


def _grid(book: kit.Book, sheet: kit.Sheet, grid: Grid, values: dict, passes: list[dict]) -> None:
    styles = book.styles
    sheet.section(grid.title)
    top = sheet.row_index
    under = top + 1 + len(STEP_NAMES)
    columns = _pass_columns(top) if TOKENS in grid.cell("", "") else []
    tokens = [kit.xl_rowcol_to_cell(under + 2 + i, len(columns)) for i in range(len(STEP_NAMES))]
    sheet.ws.write_string(top, 0, grid.corner, styles.header)
    for j, step in enumerate(STEP_NAMES):
        sheet.formula(top, 1 + j, "=" + grid.column_heading(step), values["columns"][j],
                      styles.value(grid.column_kind, bold=True))
    unit_col = 1 + len(STEP_NAMES)  # the Unit right of the grid, its note in the row under it: both on the page
    sheet.ws.write_string(top, unit_col, "Unit", styles.header)
    for i, step in enumerate(STEP_NAMES):
        r = top + 1 + i
        sheet.formula(r, 0, "=" + grid.row_heading(step), values["rows"][i], styles.value(grid.row_kind, bold=True))
        row_ref = kit.xl_rowcol_to_cell(r, 0, col_abs=True)
        for j in range(len(STEP_NAMES)):
            column_ref = kit.xl_rowcol_to_cell(top, 1 + j, row_abs=True)
            sheet.formula(r, 1 + j, "=" + grid.cell(row_ref, column_ref).replace(TOKENS, tokens[i]),
                          values["cells"][i][j], styles.value(grid.kind, bold=(i == j == 2)))
        sheet.ws.write_string(r, unit_col, grid.unit, styles.unit)
    sheet.ws.merge_range(under, 0, under, unit_col, grid.note, styles.note)
    sheet.grow(under, kit.DEFAULT_ROW * kit.text_lines(grid.note, sum(sheet.width_of(c) for c in range(unit_col + 1))))
    middle = kit.xl_rowcol_to_cell(top + 3, 3)
    book.define(f"sensitivity_{grid.key}_middle", sheet.name, middle, values["cells"][2][2])
    sheet.ws.conditional_format(top + 1, 1, top + 5, 5, {"type": "3_color_scale", "min_color": "#63BE7B",
                                                         "mid_color": "#FFEB84", "max_color": "#F8696B"})
    sheet.row_index = under + 1
    if columns:  # what its cells read: each row's passes at B and TokS(B), in rows grouped out of sight
        values = [{"pass_tokens_per_s_per_gpu": row["tokens_per_s_per_gpu"]}
                  | model.pieces_in_ms({k: v for k, v in row.items() if k.endswith("_s")}, "pass_")
                  for row in passes]
        header, _, last = sheet.records([f"Users B, row {i}" for i in range(1, len(STEP_NAMES) + 1)], columns, values,
                                        label_header="The passes at each row's B")
        sheet.hide(range(header, last + 1))


def _pass_columns(top: int) -> list[Column]:
    """The serving grid's helper columns: at its row's B (the row's heading), each pass's memory time and the pass
    (ms) and TokS(B), the Serving table's roofline (docs/method.md §6)."""
    def users(i: int) -> str:
        return kit.xl_rowcol_to_cell(top + 1 + i, 0, col_abs=True)

    at = model.pieces_at("pass_")
    return [*(Column(key, f"{words} (ms)", kind="tenths",
                     template=lambda i, key=key: "=" + dict((k, e) for k, _, e in model.piece_specs(
                         model.SERVED, users(i), "pass_"))[key])
              for key, words, _ in model.piece_specs(model.SERVED, "B", "pass_")),
            Column("pass_tokens_per_s_per_gpu", "Output tokens per second per GPU at B", kind="tenths",
                   template=lambda i: "=" + model.tokens_per_second_per_gpu(model.SERVED, users(i), at))]


def _tornado_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The sorted lines as bars either side of the scenario's total, the largest swing on top."""
    chart = book.wb.add_chart({"type": "bar"})
    names = sheet.series("sorted_input")
    for key, colour in (("change_low", "#4472C4"), ("change_high", "#ED7D31")):
        chart.add_series({"name": sheet.heading_of(key), "categories": names, "values": sheet.series(key),
                          "fill": {"color": colour}, "overlap": 100, "gap": 40})
    symbol = book.currency_symbol.replace('"', "")  # millions: "$-60M", not "-$60,000,000"
    millions = f'"{symbol}"#,##0,,"M"' if len(symbol) == 1 else f'#,##0,,"M {symbol}"'
    sheet.chart(chart, height=300, width=800, title="Tornado: the plan's total with each input at ×0.8 and ×1.2",
                x_axis={"num_format": millions, "major_gridlines": {"visible": True}},
                y_axis={"reverse": True, "label_position": "low"}, legend="bottom")


KEY_RESULTS = [
    KeyResult("plan_assumed_mfu_difference", "Serving at Crossover's assumed {crossover_serving_mfu_used|percent} "
              "MFU instead of the plan's throughput (an assumption, not a cost): the difference over the plan",
              kind="money0", unit="", snapshot=True, what_if=True),
    KeyResult("plan_standby_difference", "… {plan_standby_alternative}, over the plan", kind="money0", unit="",
              first=True, snapshot=True),
    KeyResult("plan_growth_difference", "… without growth ({budget_monthly_growth|percent} a month), over the plan",
              kind="money0", unit="", first=True, snapshot=True),
    KeyResult("sensitivity_largest_swing", "The input that moves the plan's total most (±20 %)", kind="text",
              snapshot=True),
]
