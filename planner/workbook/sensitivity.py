"""The Sensitivity sheet (docs/method.md §9): four 5 × 5 grids of live closed forms, each heading a formula of the
inputs (an edited input re-centres its grids), the scenario's result in the middle cell, under a colour scale; then
the tornado of the total cost, its lines in input order, the same sorted by swing with LARGE and INDEX/MATCH, and
its bar chart. No Excel Data Tables: XlsxWriter cannot write them and LibreOffice does not recalculate them alike."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from planner.engine.crossover import NEVER
from planner.engine.sensitivity import ABOVE_B_MAX, STEPS, TORNADO
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


GRIDS = [
    Grid("training_cost", "Training cost over MFU (rows) × price per GPU-hour (columns)", "MFU ↓  price →",
         _share("hours_mfu_used"), _scaled("price_per_gpu_hour"),
         lambda r, c: f"hours_training_flops/(hours_peak_tflops*1e12*{r}*3600)/hours_productive_share*{c}",
         "percent", "money", "money0", "paid once", "C / (peak · MFU · 3600) / q × price; the middle is Hours' cost"),
    Grid("days", "Wall-clock days over the run's GPUs (rows) × MFU (columns)", "GPUs ↓  MFU →",
         _count("hours_gpus", at_least_one=True), _share("hours_mfu_used"),
         lambda r, c: f"hours_training_flops/(hours_peak_tflops*1e12*{c}*3600)/hours_productive_share/{r}/24",
         "count", "percent", "days", "days", "C / (peak · MFU · 3600) / q / GPUs / 24"),
    Grid("crossing_day", "Crossing day in GPU-hours over tokens per day (rows) × serving MFU (columns)",
         "Tokens a day ↓  serving MFU →", _count("crossover_served_tokens_per_day"),
         _share("crossover_serving_mfu_used"),
         lambda r, c: f'IF({r}=0,"{NEVER}",hours_gpu_hours/(serving_ops_per_param_token*model_active_params*{r}'
                      f"/(gpu_peak_tflops*1e12*{c}*3600)))",
         "count", "percent", "days", "days", "H / serving GPU-hours per day; \"never\" without traffic"),
    Grid("cost_per_million_tokens", "Serving cost per million output tokens over users B (rows) × price (columns)",
         "Users B ↓  price →", _count("serving_users", at_least_one=True), _scaled("price_per_gpu_hour"),
         lambda r, c: f'IF({r}>serving_max_concurrency,"{ABOVE_B_MAX}",{c}*1e6/(3600*{model.tokens_per_second_per_gpu(model.SERVING, r)}))',
         "count", "money", "money", "per M tokens", "price · 1e6 / (3600 · TokS(B)): the Serving table's roofline "
         "at B; more users than fit (B_max) say so"),
]
STEP_NAMES = [f"sensitivity_step_{i}" for i in range(1, len(STEPS) + 1)]

BASE = [
    Row("serving_cost", "Serving over the horizon at the users' throughput", kind="money0", unit="over the horizon",
        formula="=crossover_horizon_days*crossover_served_tokens_per_day/(3600*serving_tokens_per_s_per_gpu)"
                "*price_per_gpu_hour", note="horizon · D / (3600 · TokS at the users) × price, even when they do "
        "not fit", name="sensitivity_serving_cost"),
    Row("total_cost", "Total cost: training plus serving over the horizon", kind="money0", unit="over the horizon",
        formula="=hours_cost+sensitivity_serving_cost", note="What the tornado moves", name="sensitivity_total_cost",
        bold=True),
]

SERVING = "crossover_horizon_days*crossover_served_tokens_per_day/(3600*serving_tokens_per_s_per_gpu)"


def _eta_throughput(x: str) -> str:
    """TokS at the users with the bandwidth efficiency x instead of η_m."""
    moved = replace(model.SERVING, bandwidth=f"({model.effective_bandwidth('gpu_hbm_tbps', x)})")
    return model.tokens_per_second_per_gpu(moved, "serving_users")


LINES = {  # tornado input → (its value, moved by a factor, the total at a moved value x)
    "mfu": ("hours_mfu_used", _share("hours_mfu_used"),
            lambda x: f"hours_training_flops/(hours_peak_tflops*1e12*{x}*3600)/hours_productive_share"
                      "*price_per_gpu_hour+sensitivity_serving_cost"),
    "price": ("price_per_gpu_hour", _scaled("price_per_gpu_hour"),
              lambda x: f"hours_allocated_gpu_hours*{x}+{SERVING}*{x}"),
    "training_tokens": ("hours_tokens", _count("hours_tokens"),
                        lambda x: f"hours_ops_per_param_token*model_active_params*{x}/(hours_peak_tflops*1e12"
                                  "*hours_mfu_used*3600)/hours_productive_share*price_per_gpu_hour"
                                  "+sensitivity_serving_cost"),
    "tokens_per_day": ("crossover_served_tokens_per_day", _count("crossover_served_tokens_per_day"),
                       lambda x: f"hours_cost+crossover_horizon_days*{x}/(3600*serving_tokens_per_s_per_gpu)"
                                 "*price_per_gpu_hour"),
    "bandwidth_efficiency": ("serving_bandwidth_efficiency", _share("serving_bandwidth_efficiency"),
                             lambda x: "hours_cost+crossover_horizon_days*crossover_served_tokens_per_day/"
                                       f"(3600*{_eta_throughput(x)})*price_per_gpu_hour"),
    "productive_share": ("hours_productive_share", _share("hours_productive_share"),
                         lambda x: f"hours_gpu_hours/{x}*price_per_gpu_hour+sensitivity_serving_cost"),
}
assert list(LINES) == list(TORNADO)
IDS = list(LINES)

TORNADO_LINES = [
    Column("input", "Input", kind="text", template=lambda i: f'="{TORNADO[IDS[i]]}"'),
    Column("value", "Scenario's value", kind="scaled", template=lambda i: "=" + LINES[IDS[i]][0]),
    Column("low", "At ×0.8", kind="scaled", template=lambda i: "=" + LINES[IDS[i]][1]("sensitivity_tornado_low")),
    Column("high", "At ×1.2", kind="scaled", template=lambda i: "=" + LINES[IDS[i]][1]("sensitivity_tornado_high")),
    Column("total_low", "Total over the horizon at ×0.8", kind="money0",
           template=lambda i: "=" + LINES[IDS[i]][2]("{low}")),
    Column("total_high", "Total over the horizon at ×1.2", kind="money0",
           template=lambda i: "=" + LINES[IDS[i]][2]("{high}")),
    Column("swing", "Swing over the horizon", kind="money0", template="=ABS({total_high}-{total_low})"),
    Column("cents", "Swing over the horizon, to the cent", kind="money0", template="=ROUND({swing},2)"),
    Column("rank", "Rank (equal swings in line order)", kind="count",
           template='=COUNTIF({cents:range},">"&{cents})+COUNTIF({cents:through},{cents})'),
]
SORTED = [  # the lines by swing, largest first
    Column("position", "Line", kind="count", template="=MATCH({label},{rank:range},0)"),
    Column("sorted_input", "Input", kind="text", template="=INDEX({input:range},{position})"),
    Column("sorted_total_low", "Total over the horizon at ×0.8", kind="money0",
           template="=INDEX({total_low:range},{position})"),
    Column("sorted_total_high", "Total over the horizon at ×1.2", kind="money0",
           template="=INDEX({total_high:range},{position})"),
    Column("change_low", "Change over the horizon at ×0.8", kind="money0",
           template="={sorted_total_low}-sensitivity_total_cost"),
    Column("change_high", "Change over the horizon at ×1.2", kind="money0",
           template="={sorted_total_high}-sensitivity_total_cost"),
]
SORTED_VALUES = {"position": "position", "sorted_input": "input",
                 "sorted_total_low": "total_low", "sorted_total_high": "total_high", "change_low": "change_low",
                 "change_high": "change_high"}


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.sensitivity
    widths = [16] * len(TORNADO_LINES)
    widths[[c.key for c in TORNADO_LINES].index("input")] = widths[[c.key for c in SORTED].index("sorted_input")] = 24
    sheet = book.sheet(SHEET, [("", w) for w in widths], label_width=30, unit_width=14, note_width=44)
    sheet.title("Sensitivity: four grids and a tornado", "docs/method.md §9: each grid moves two inputs to ×0.5 … "
                "×1.5 of the scenario's values; the middle cell is the scenario's own result.")
    for grid in GRIDS:
        _grid(book, sheet, grid, table.grids[grid.key])
        sheet.skip()

    sheet.section("Tornado: the total cost with one input at ×0.8 and ×1.2 (shares capped at 1)")
    sheet.rows(BASE, table.scalars)
    sheet.skip()
    sheet.records(list(range(1, len(IDS) + 1)), TORNADO_LINES, table.tornado, label_header="Line")
    sheet.skip()
    sheet.section("Sorted by swing, largest first (each line's rank, then INDEX/MATCH)")
    sorted_rows = [{key: line[source] for key, source in SORTED_VALUES.items()} for line in table.sorted]
    _, first, _ = sheet.records(list(range(1, len(IDS) + 1)), SORTED, sorted_rows, label_header="Rank")
    book.define("sensitivity_largest_swing", sheet.name,
                kit.xl_rowcol_to_cell(first, sheet.places["sorted_input"].col), table.sorted[0]["input"])
    _tornado_chart(book, sheet)
    return sheet


def _grid(book: kit.Book, sheet: kit.Sheet, grid: Grid, values: dict) -> None:
    styles = book.styles
    sheet.section(grid.title)
    top = sheet.row_index
    sheet.ws.write_string(top, 0, grid.corner, styles.header)
    for j, step in enumerate(STEP_NAMES):
        sheet.formula(top, 1 + j, "=" + grid.column_heading(step), values["columns"][j],
                      styles.value(grid.column_kind, bold=True))
    sheet.ws.write_string(top, sheet.unit_col, "Unit", styles.header)
    sheet.ws.write_string(top, sheet.note_col, "Notes", styles.header)
    for i, step in enumerate(STEP_NAMES):
        r = top + 1 + i
        sheet.formula(r, 0, "=" + grid.row_heading(step), values["rows"][i], styles.value(grid.row_kind, bold=True))
        row_ref = kit.xl_rowcol_to_cell(r, 0, col_abs=True)
        for j in range(len(STEP_NAMES)):
            column_ref = kit.xl_rowcol_to_cell(top, 1 + j, row_abs=True)
            sheet.formula(r, 1 + j, "=" + grid.cell(row_ref, column_ref), values["cells"][i][j],
                          styles.value(grid.kind, bold=(i == j == 2)))
        sheet.ws.write_string(r, sheet.unit_col, grid.unit, styles.unit)
    sheet.ws.write_string(top + 1, sheet.note_col, grid.note, styles.note)
    middle = kit.xl_rowcol_to_cell(top + 3, 3)
    book.define(f"sensitivity_{grid.key}_middle", sheet.name, middle, values["cells"][2][2])
    sheet.ws.conditional_format(top + 1, 1, top + 5, 5, {"type": "3_color_scale", "min_color": "#63BE7B",
                                                         "mid_color": "#FFEB84", "max_color": "#F8696B"})
    sheet.row_index = top + 6


def _tornado_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The sorted lines as bars either side of the scenario's total, the largest swing on top."""
    chart = book.wb.add_chart({"type": "bar"})
    names = sheet.series("sorted_input")
    for key, colour in (("change_low", "#4472C4"), ("change_high", "#ED7D31")):
        values = sheet.series(key)
        chart.add_series({"name": [sheet.name, values[1] - 1, values[2]], "categories": names, "values": values,
                          "fill": {"color": colour}, "overlap": 100, "gap": 40})
    chart.set_title({"name": "Tornado: the total cost's change with each input at ×0.8 and ×1.2"})
    chart.set_y_axis({"reverse": True, "label_position": "low"})
    symbol = book.currency_symbol.replace('"', "")  # millions: "$-60M", not "-$60,000,000"
    millions = f'"{symbol}"#,##0,,"M"' if len(symbol) == 1 else f'#,##0,,"M {symbol}"'
    chart.set_x_axis({"num_format": millions, "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "bottom"})
    sheet.chart(chart, height=300, width=800)


KEY_RESULTS = [
    KeyResult("sensitivity_largest_swing", "The input that moves the total cost most (±20 %)", kind="text"),
]

CHECKS: list = []
