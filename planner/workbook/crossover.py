"""The Crossover sheet (docs/method.md §3): serving per day, training paid once (read from Hours), the two crossing
days, every Catalog traffic preset with its crossing days, and the cumulative table from launch to the horizon with its
charts under it.

The sheet's columns are the cumulative table's (Day, Served tokens, operations, GPU-hours and cost of training,
serving and both), headed once under the titles and printed at the top of every page; each scalar above the table
sits in the column whose heading it belongs to (serving operations a day under "Serving operations", the crossing
days under "Day")."""

from __future__ import annotations

from planner.engine.crossover import NEVER, NO_TRAFFIC, STEPS
from planner.workbook import kit, model
from planner.workbook.catalog_sheet import TRAFFIC_PRESETS, laid_out
from planner.workbook.kit import Column, KeyResult, Row

SHEET = "Crossover"

SERVING = [
    Row("serving_mfu_used", "Serving MFU used", kind="percent", unit="of peak", name="crossover_serving_mfu_used",
        formula="=IF(ISNUMBER(crossover_serving_mfu),crossover_serving_mfu,serving_mfu)",
        note="The share typed on Inputs, or with the word roofline the Serving sheet's MFU at its users",
        at="serving_gpu_hours"),
    Row("tokens_per_day", "Served tokens per day D",
        formula="=IF(ISNUMBER(crossover_tokens_per_day),crossover_tokens_per_day,INDEX(catalog_traffic_preset_tokens_per_day,"
        "MATCH(crossover_tokens_per_day,catalog_traffic_preset_ids,0)))", kind="token_count", unit="tokens a day",
        note="The number typed in Inputs, or the chosen preset's tokens per day from Catalog",
        name="crossover_served_tokens_per_day", at="served_tokens"),
    Row("serving_flops_per_day", "Serving operations per day 2·Ψ·D",
        formula="=serving_ops_per_param_token*model_active_params*crossover_served_tokens_per_day", kind="flops",
        unit="ZFLOP a day", note="The forward pass alone: 2 operations per parameter per token",
        name="crossover_serving_flops_per_day", at="serving_flops"),
    Row("serving_gpu_hours_per_day", "Serving GPU-hours per day",
        formula="=" + model.gpu_hours("crossover_serving_flops_per_day", "gpu_peak_tflops",
                                      "crossover_serving_mfu_used"), kind="hours",
        unit="GPU-hours a day", note="2·Ψ·D / (peak · serving MFU · 3600 s)",
        name="crossover_serving_gpu_hours_per_day", at="serving_gpu_hours"),
    Row("serving_cost_per_day", "Serving cost per day",
        formula="=crossover_serving_gpu_hours_per_day*price_per_gpu_hour_converted",
        kind="money0", unit="per day", note="At the GPU's price per GPU-hour in the reporting currency (Inputs)",
        at="serving_cost"),
]
FLEET_DEMAND = Row("tokens_per_day", "Served tokens per day D, from the Fleet",
                   formula="=seconds_per_hour*serving_output_tokens*fleet_peak_rate*SUM(plan_profile)/MAX(plan_profile)",
                   kind="count", unit="tokens a day", note="3600 · o · λ_u · Σ_h f_h / MAX(f): the Fleet's first "
                   "attempts over its day (the plan's profile, Cost: 24 hours at the peak without one)",
                   name="crossover_served_tokens_per_day", at="served_tokens")

TRAINING = [
    Row("training_flops", "Training operations C", formula="=hours_training_flops", kind="flops",
        note="Hours: 6·Ψ·T, 8·Ψ·T with recomputation", at="training_flops"),
    Row("training_gpu_hours", "Training GPU-hours H", formula="=hours_gpu_hours", kind="hours",
        note="Hours, before the productive share: the comparison is of work, not of allocations",
        at="training_gpu_hours"),
    Row("training_cost", "Training cost at H", formula="={training_gpu_hours}*price_per_gpu_hour_converted",
        kind="money0", unit="paid once", note="H × the price; Hours' cost pays for the allocated H / q",
        at="training_cost"),
    Row("break_even_tokens", "Served tokens matching training, C / (2·Ψ)",
        formula="=hours_training_flops/(serving_ops_per_param_token*model_active_params)", kind="tera", unit="T tokens",
        note="Serving's operations equal training's once this many tokens are served",
        name="crossover_break_even_tokens", at="served_tokens"),
    Row("break_even_over_training_tokens", "… in training tokens T",
        formula="=crossover_break_even_tokens/hours_tokens",
        kind="ratio", unit="× T", note="3 (= 6 / 2); 4 with activation recomputation (8 / 2)", at="served_tokens"),
]

CROSSING = [
    Row("day_flops", "Crossing day in operations",
        formula=f'=IF(crossover_served_tokens_per_day=0,"{NEVER}",hours_training_flops/crossover_serving_flops_per_day)',
        kind="days", note="Serving's operations overtake training's: C / (2·Ψ·D) = 3·T / D without recomputation; "
        "\"never\" without traffic",
        name="crossover_day_flops", bold=True, at="day"),
    Row("day_gpu_hours", "Crossing day in GPU-hours",
        formula=f'=IF(crossover_served_tokens_per_day=0,"{NEVER}",hours_gpu_hours/crossover_serving_gpu_hours_per_day)',
        kind="days", note="H / serving GPU-hours per day: earlier when serving runs at a lower MFU than training",
        name="crossover_day_gpu_hours", bold=True, at="day"),
]

TOTALS = [
    Row("serving_cost_over_horizon", "Serving cost over the horizon",
        formula="=crossover_horizon_days*{serving_cost_per_day}", kind="money0", unit="over the horizon",
        note="Horizon days × serving cost per day", name="crossover_serving_cost_over_horizon", bold=True,
        at="serving_cost"),
    Row("total_cost_over_horizon", "Total: training plus serving over the horizon",
        formula="=hours_cost+crossover_serving_cost_over_horizon", kind="money0", unit="over the horizon",
        note="Hours' training cost (allocated GPU-hours) + serving over the horizon",
        name="crossover_total_cost_over_horizon", bold=True, at="total_cost"),
    Row("serving_cost_per_million_tokens", "Serving cost per million served tokens",
        formula=f'=IF(crossover_served_tokens_per_day=0,"{NO_TRAFFIC}",'
                "{serving_cost_per_day}/crossover_served_tokens_per_day*per_million)", kind="money",
        unit="per M tokens",
        note="Serving cost per day / tokens per day × 1e6", name="crossover_serving_cost_per_million_tokens",
        at="serving_cost"),
]


def _if_preset(formula: str) -> str:
    """A preset column's formula, empty on a Catalog row without an id."""
    return f'=IF({{preset}}="","",{formula})'


PRESETS = [  # one row per row of Catalog's traffic-preset block, its empty rows included
    Column("preset", "Preset", template='=IF(INDEX(catalog_traffic_preset_ids,{label})="","",'
           "INDEX(catalog_traffic_preset_ids,{label}))", kind="text"),
    Column("tokens_per_day", "Tokens a day",
           template=_if_preset("INDEX(catalog_traffic_preset_tokens_per_day,{label})"),
           kind="token_count"),
    Column("serving_gpu_hours_per_day", "GPU-hours a day", template=_if_preset(
        model.gpu_hours("serving_ops_per_param_token*model_active_params*{tokens_per_day}", "gpu_peak_tflops",
                        "crossover_serving_mfu_used")),
        kind="hours"),
    Column("day_flops", "Day, operations", template=_if_preset(
        f'IF({{tokens_per_day}}=0,"{NEVER}",hours_training_flops/(serving_ops_per_param_token*model_active_params'
        "*{tokens_per_day}))"), kind="days"),
    Column("day_gpu_hours", "Day, GPU-hours", template=_if_preset(
        f'IF({{tokens_per_day}}=0,"{NEVER}",hours_gpu_hours/{{serving_gpu_hours_per_day}})'), kind="days"),
]



def flat(formula: str):
    """Training's columns, the same at every step: written at the first and the last (the charts' flat line between
    them), not at the 99 steps between (issue 42: 297 cells fewer); the totals read training's named cells."""
    return lambda i: formula if i in (0, STEPS) else None


CUMULATIVE = [  # day_i = i · horizon / 100; training flat, serving rising; every sum from launch to day_i
    Column("day", "Day", template="={label}*crossover_horizon_days/100", kind="days"),
    Column("served_tokens", "Served tokens (T)", template="={day}*crossover_served_tokens_per_day", kind="tera"),
    Column("training_flops", "Training operations (ZFLOP)", template=flat("=hours_training_flops"), kind="flops"),
    Column("serving_flops", "Serving operations (ZFLOP)", template="={day}*crossover_serving_flops_per_day",
           kind="flops"),
    Column("total_flops", "Total operations (ZFLOP)", template="=hours_training_flops+{serving_flops}",
           kind="flops"),
    Column("training_gpu_hours", "Training GPU-hours", template=flat("=hours_gpu_hours"), kind="hours"),
    Column("serving_gpu_hours", "Serving GPU-hours", template="={day}*crossover_serving_gpu_hours_per_day",
           kind="hours"),
    Column("total_gpu_hours", "Total GPU-hours", template="=hours_gpu_hours+{serving_gpu_hours}", kind="hours"),
    Column("training_cost", "Training cost, paid once",
           template=flat("=hours_gpu_hours*price_per_gpu_hour_converted"), kind="money0"),
    Column("serving_cost", "Serving cost to the day", template="={serving_gpu_hours}*price_per_gpu_hour_converted",
           kind="money0"),
    Column("total_cost", "Total cost to the day", template="=hours_gpu_hours*price_per_gpu_hour_converted"
           "+{serving_cost}", kind="money0"),
]
WIDTHS = {"day": 15, "served_tokens": 17, "training_flops": 12, "serving_flops": 12, "total_flops": 12,
          "training_gpu_hours": 13, "serving_gpu_hours": 14, "total_gpu_hours": 14, "training_cost": 14,
          "serving_cost": 15, "total_cost": 15}  # room for a 405B model's billions over a two-year horizon


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.crossover
    sheet = book.sheet(SHEET, [(column.header, WIDTHS[column.key]) for column in CUMULATIVE], label_width=34,
                       unit_width=17, note_width=40, keys=[column.key for column in CUMULATIVE])
    sheet.title("Crossover: serving against training", "docs/method.md §3: training is paid once; every served token "
                "costs 2·Ψ operations. Training's operations and GPU-hours are read from Hours.")
    sheet.header(repeat=True)  # the cumulative table's columns: every value below sits under its own heading

    serving = [FLEET_DEMAND if results.scenario.fleet is not None and row.key == "tokens_per_day" else row
               for row in SERVING]
    sheet.blocks((("Serving, every day after launch", serving), ("Training, paid once (from Hours)", TRAINING),
                  ("When serving overtakes training", CROSSING),
                  ("Totals over the horizon, at the serving MFU", TOTALS)), table.scalars)
    # the MFU used reads the Serving table only with the word roofline: it needs the MFU's check and the rule that
    # the roofline's MFU is there, not Serving's inputs (a blank users must not blank a comparison at a typed share)
    key = book.names["crossover_serving_mfu_used"]
    book.pending[key] = book.pending[key]._replace(
        needs=book.needs["crossover_serving_mfu"] | {kit.ok_name("crossover_roofline_fits")})

    sheet.section("Each traffic preset in Catalog: serving GPU-hours a day and the two crossing days (a preset "
                  "added there fills a row grouped out of sight here: the + shows it)")
    empty = {column.key: "" for column in PRESETS}
    rows = [row or empty for _, row in laid_out(book, TRAFFIC_PRESETS, {r["preset"]: r for r in table.presets})]
    _, first, _ = sheet.records(list(range(1, len(rows) + 1)), PRESETS, rows, label_header="Catalog row")
    sheet.hide([first + i for i, row in enumerate(rows) if row["preset"] == ""])  # Catalog's empty rows
    sheet.skip()

    sheet.section("Cumulative from launch to the horizon: training flat (at the first and the last day), "
                  "serving rising")
    sheet.records([row["step"] for row in table.cumulative], CUMULATIVE, table.cumulative, label_header="Step i")
    _chart(book, sheet, "flops", title="Cumulative operations", axis="ZFLOP (10^21 operations)",
           number_format="#,##0,,,,,,,")
    _chart(book, sheet, "gpu_hours", title="Cumulative GPU-hours", axis="GPU-hours", number_format='#,##0.0,,"M"')
    return sheet


def _chart(book: kit.Book, sheet: kit.Sheet, quantity: str, *, title: str, axis: str, number_format: str) -> None:
    """Training's flat line against serving's rising one over the days; the axes follow the horizon."""
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight"})
    chart.show_blanks_as("span")  # training's line from its first step to its last (flat)
    days = sheet.series("day")
    for part, colour in (("training", "#4472C4"), ("serving", "#ED7D31")):
        key = f"{part}_{quantity}"
        chart.add_series({"name": sheet.heading_of(key), "categories": days, "values": sheet.series(key),
                          "line": {"color": colour, "width": 2.25}, "marker": {"type": "none"}})
    sheet.chart(chart, title=title, x_axis={"name": "Days after launch", "num_format": "#,##0", "min": 0},
                y_axis={"name": axis, "num_format": number_format, "min": 0, "major_gridlines": {"visible": True}},
                legend="bottom")


KEY_RESULTS = [
    KeyResult("crossover_day_flops", "Day serving overtakes training in operations: {model}, serving "
              "{crossover_served_tokens_per_day|whole} tokens a day", kind="days", unit="days"),  # or a fleet's
    KeyResult("crossover_day_gpu_hours", "Crossover at its assumed serving MFU of {crossover_serving_mfu_used|percent}"
              " (not the plan's throughput): the day serving overtakes training in GPU-hours", kind="days",
              unit="days", what_if=True),
    KeyResult("crossover_serving_cost_per_million_tokens", "… its cost per million served tokens at that MFU: a "
              "comparison of compute, not a cost of the plan", kind="money", what_if=True),
]

CHECKS = [
    kit.Check("crossover_roofline_fits", "Crossover: with the word roofline, the serving users fit (u ≤ B_max, "
              "B_max > 0) and the Serving table's MFU is there", formula="OR(ISNUMBER(crossover_serving_mfu),AND("
              "ISNUMBER(serving_mfu),serving_users<=serving_max_concurrency,serving_max_concurrency>0))",
              note="Else no replica serves them: the serving figures read n/a (give a share instead, or fewer users)",
              about=("crossover_serving_mfu",)),
]
