"""The Budget sheet (docs/method.md §9): the totals over the horizon, the plan's months, the budget's sums, a stacked
column chart by month, the subtotals per year, then every month: training first, then launch and the serving
months. The month and year tables have a fixed number of rows (the longest run and horizon the sheet allows), the
rows beyond the plan blank, so an edited run or horizon moves the plan within them."""

from __future__ import annotations

from planner.engine.budget import (COLUMNS, NO_TRAFFIC, NOT_SERVED, ROWS, TRAINING_ROWS, YEAR_COLUMNS, YEARS)
from planner.workbook import kit
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Budget"
NA = f'"{NOT_SERVED}"'

TOTALS = [
    Row("training_cost", "Training cost, paid once over the run", formula="=hours_cost", kind="money0",
        unit="paid once", note="Hours: allocated GPU-hours × the price"),
    Row("tokens_per_s_per_gpu", "Output tokens per second per GPU at the users (roofline)",
        formula="=serving_tokens_per_s_per_gpu", kind="count", unit="tokens/s", note="Serving: TokS at its users"),
    Row("serving_gpu_hours_per_day", "Serving GPU-hours per day at launch traffic",
        formula="=crossover_served_tokens_per_day/(3600*serving_tokens_per_s_per_gpu)", kind="number",
        unit="GPU-hours a day", note="D / (3600 · TokS)", name="budget_serving_gpu_hours_per_day"),
    Row("serving_cost_per_day", "Serving cost per day", kind="money0", unit="per day",
        formula=f"=IF(serving_fits,budget_serving_gpu_hours_per_day*price_per_gpu_hour,{NA})",
        note="At the GPU's price; n/a when the users do not fit (B > B_max)", name="budget_serving_cost_per_day"),
    Row("serving_cost_per_month", "Serving cost per month", kind="money0", unit="per month",
        formula=f"=IF(serving_fits,budget_serving_cost_per_day*budget_days_per_month,{NA})",
        note="A month of 30.4375 days"),
    Row("horizon_serving_cost", "Serving cost over the horizon (roofline)", kind="money0", unit="over the horizon",
        formula=f"=IF(serving_fits,crossover_horizon_days*budget_serving_cost_per_day,{NA})",
        note="Horizon days × serving cost per day, at launch traffic", name="budget_horizon_serving_cost",
        bold=True),
    Row("mfu_serving_cost", "… at Crossover's serving MFU, for comparison", kind="money0",
        formula="=crossover_serving_cost_over_horizon", unit="over the horizon",
        note="Crossover: 2·Ψ·D at the serving MFU"),
    Row("horizon_total_cost", "Total: training plus serving over the horizon", kind="money0",
        unit="over the horizon", formula=f"=IF(serving_fits,hours_cost+budget_horizon_serving_cost,{NA})",
        note="Training once + serving (roofline)", name="budget_horizon_total_cost", bold=True),
    Row("serving_cost_per_million_tokens", "Serving cost per million served tokens", kind="money",
        unit="per M tokens", note="Serving cost / (horizon · D) × 1e6", name="budget_serving_cost_per_million_tokens",
        formula=f'=IF(crossover_served_tokens_per_day=0,"{NO_TRAFFIC}",IF(serving_fits,budget_horizon_serving_cost/'
                f"(crossover_horizon_days*crossover_served_tokens_per_day)*1e6,{NA}))"),
]

PLAN = [
    Row("training_days", "Training: wall-clock days", formula="=hours_days", kind="days", note="Hours, on N_run GPUs"),
    Row("training_months", "Training months", formula="=ROUNDUP(ROUND(hours_days/budget_days_per_month,9),0)",
        kind="count", unit="months", note="CEIL9(days / 30.4375): the last one part", name="budget_training_months"),
    Row("horizon_days", "Serving: the horizon after launch", formula="=crossover_horizon_days", kind="count",
        unit="days", note="Crossover's horizon"),
    Row("serving_months", "Serving months", formula="=ROUNDUP(ROUND(crossover_horizon_days/budget_days_per_month,9),0)",
        kind="count", unit="months", note="CEIL9(horizon / 30.4375): the last one prorated", name="budget_months"),
    Row("standby_gpu_hours_per_day", "Standby: idle GPU-hours a day, separate pools",
        formula="=cluster_idle_gpu_hours_separate", kind="number", unit="GPU-hours a day",
        note="Cluster: the serving pool's idle GPUs over the day"),
]

SUMS = [
    Row("months_training_cost", "Training spend over its months", formula="=SUM({training:range})", kind="money0",
        unit="", note="Adds up to Hours' training cost"),
    Row("served_tokens", "Served tokens over the horizon", formula="=SUM({served_tokens:range})", kind="tera",
        unit="T tokens", note="Σ D_m · days of month m"),
    Row("serving_cost", "Serving spend over the horizon", formula=f"=IF(serving_fits,SUM({{serving:range}}),{NA})",
        kind="money0", unit="over the horizon", note="With the monthly growth; n/a when the users do not fit",
        name="budget_serving_cost", bold=True),
    Row("standby_cost", "Standby capacity over the horizon", formula="=SUM({standby:range})", kind="money0",
        unit="over the horizon", note="In the total only when include_standby is TRUE (Inputs)",
        name="budget_standby_cost"),
    Row("total_cost", "Budget total: training plus serving", kind="money0", unit="over the plan",
        formula=f"=IF(serving_fits,hours_cost+budget_serving_cost+IF(budget_include_standby,budget_standby_cost,0),"
                f"{NA})", note="Training + serving (+ standby when included)", name="budget_total_cost", bold=True),
]


def _is(phase: str, formula: str) -> str:
    return f'=IF({{phase}}="{phase}",{formula},"")'


def _cumulative(i: int) -> str:
    if i == 0:
        return '=IF({phase}="","",{total})'
    return f'=IF({{phase}}="","",IF(AND(ISNUMBER({{total}}),ISNUMBER({{cumulative:prev}})),' \
           f'{{total}}+{{cumulative:prev}},{NA}))'


MONTHS = [  # one row per month of the plan, {label} its number from the first training month
    Column("phase", "Phase", kind="text", template='=IF({label}<=budget_training_months,"training",'
           'IF({label}<=budget_training_months+budget_months,"serving",""))'),
    Column("year", "Year", kind="count", template='=IF({phase}="","",INT(({label}-1)/12)+1)'),
    Column("serving_month", "Serving month m", kind="count",
           template=_is("serving", "{label}-budget_training_months")),
    Column("days", "Days", kind="days", template='=IF({phase}="training",MIN(budget_days_per_month,hours_days-'
           '({label}-1)*budget_days_per_month),IF({phase}="serving",MIN(budget_days_per_month,crossover_horizon_days-'
           '({serving_month}-1)*budget_days_per_month),""))'),
    Column("training", "Training", kind="money0", template=_is("training", "hours_cost/hours_days*{days}")),
    Column("tokens_per_day", "Tokens a day D_m", kind="count",
           template=_is("serving", "crossover_served_tokens_per_day*(1+budget_monthly_growth)^({serving_month}-1)")),
    Column("served_tokens", "Served tokens", kind="count", template=_is("serving", "{tokens_per_day}*{days}")),
    Column("serving_gpu_hours", "Serving GPU-hours", kind="count",
           template=_is("serving", "{served_tokens}/(3600*serving_tokens_per_s_per_gpu)")),
    Column("serving", "Serving", kind="money0",
           template=_is("serving", f"IF(serving_fits,{{serving_gpu_hours}}*price_per_gpu_hour,{NA})")),
    Column("standby", "Standby", kind="money0",
           template=_is("serving", "cluster_idle_gpu_hours_separate*price_per_gpu_hour*{days}")),
    Column("total", "Total", kind="money0", template='=IF({phase}="","",IF({phase}="training",{training},'
           f'IF(serving_fits,{{serving}}+IF(budget_include_standby,{{standby}},0),{NA})))'),
    Column("cumulative", "Cumulative", kind="money0", template=_cumulative),
]


def _yearly(column: str, served: bool = False) -> str:
    total = f"SUMIFS({{{column}:range}},{{year:range}},{{label}})"
    if served:
        total = f'IF(AND(NOT(serving_fits),COUNTIFS({{year:range}},{{label}},{{phase:range}},"serving")>0),{NA},' \
                f"{total})"
    return f'=IF(COUNTIF({{year:range}},{{label}})=0,"",{total})'


YEARLY = [
    Column("year_training", "Training", kind="money0", template=_yearly("training")),
    Column("year_serving", "Serving", kind="money0", template=_yearly("serving", served=True)),
    Column("year_standby", "Standby", kind="money0", template=_yearly("standby")),
    Column("year_total", "Total", kind="money0", template=_yearly("total", served=True)),
]
CHART_HEIGHT = 360


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.budget
    widths = [14, 14, 14, 14, 14, 18, 18, 16, 16, 16, 16, 18]  # the last holds the scalars
    sheet = book.sheet(SHEET, [("", w) for w in widths], label_width=40, unit_width=16, note_width=44)
    sheet.title("Budget: totals and the plan by month", "docs/method.md §9: training spread over its wall-clock "
                "days, then serving month by month over the horizon, in months of 30.4375 days.")
    sheet.section("Totals over the horizon, at launch traffic and the roofline's throughput")
    sheet.rows(TOTALS, table.scalars)
    sheet.skip()
    sheet.section("The plan's months")
    sheet.rows(PLAN, table.scalars)
    sheet.skip()

    # the sums, the chart and the years read the month table, written first below them
    top = sheet.row_index
    chart_rows = 2 + -(-CHART_HEIGHT // 20)
    months_at = top + (1 + len(SUMS) + 1) + (1 + chart_rows) + (1 + 1 + YEARS + 1)
    sheet.row_index = months_at
    sheet.section(f"Every month: training, then launch and {table.scalars['serving_months']} serving months "
                  f"(rows for up to {TRAINING_ROWS} training months and the longest horizon; the rest blank)")
    sheet.records(list(range(1, ROWS + 1)), MONTHS, table.rows, label_header="Month")
    end = sheet.row_index

    sheet.row_index = top
    sheet.section("The budget's sums, with the monthly growth")
    sheet.rows(SUMS, table.scalars)
    sheet.skip()
    sheet.section("Spend by month")
    _chart(book, sheet, sum(1 for row in table.rows if row["phase"]))
    sheet.section("Per year of twelve months, from the first training month")
    years = [{f"year_{key}": year[key] for key in YEAR_COLUMNS} for year in table.years]
    sheet.records(list(range(1, YEARS + 1)), YEARLY, years, label_header="Year")
    sheet.skip()
    assert sheet.row_index == months_at, (sheet.row_index, months_at)
    sheet.row_index = end
    return sheet


def _chart(book: kit.Book, sheet: kit.Sheet, used: int) -> None:
    """Training, serving and standby stacked by month, over the months of the plan as generated."""
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    place = sheet.places["phase"]
    months = [sheet.name, place.row, 0, place.row + max(used, 1) - 1, 0]
    for key, colour in (("training", "#4472C4"), ("serving", "#ED7D31"), ("standby", "#A5A5A5")):
        column = sheet.places[key]
        chart.add_series({"name": [sheet.name, column.row - 1, column.col], "categories": months,
                          "values": [sheet.name, column.row, column.col, column.row + max(used, 1) - 1, column.col],
                          "fill": {"color": colour}, "gap": 40})
    chart.set_title({"name": f"Spend by month: the plan's {used} months as generated"})
    chart.set_x_axis({"name": "Month"})
    chart.set_y_axis({"num_format": book.number_format("money0"), "min": 0, "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "bottom"})
    sheet.chart(chart, height=CHART_HEIGHT, width=960)


KEY_RESULTS = [
    KeyResult("budget_horizon_serving_cost", "Serving cost over {crossover_horizon_days|count} days at "
              "{serving_users|count} users, the roofline's tokens per second", kind="money0"),
    KeyResult("budget_serving_cost_per_day", "… per day at launch traffic", kind="money0"),
    KeyResult("budget_horizon_total_cost", "Total: training once plus {crossover_horizon_days|count} days of serving "
              "(roofline)", kind="money0"),
    KeyResult("budget_total_cost", "Budget: training plus {budget_months|count} serving months growing "
              "{budget_monthly_growth|percent} a month", kind="money0"),
]

CHECKS = [
    Check("budget_run_within_rows", f"Budget: the training run fits the sheet's {TRAINING_ROWS} training months",
          formula=f"budget_training_months<={TRAINING_ROWS}", note="A longer run is left out of the month table."),
]

assert set(COLUMNS) == {c.key for c in MONTHS}
