"""The Budget sheet (docs/method.md §9 and §13): the plan's total on the calendar, the chosen path's spend by month
as a stacked chart, the fiscal years, then every calendar month (the three paths side by side, their calendar and
demand columns); below them the average-month budget (§9's months of 30.4375 days), where the bridge to the plan's
total starts.

The month tables have a row for each of the plan's months and budget.spare_months more (the engine's result says
how many), the rows beyond the plan blank and grouped out of sight, so an edited run or horizon moves the plan within
them; one that needs more leaves the money n/a until the planner runs again. The chart reads every row and places the
rows beyond the plan at its last month, so its months follow the plan."""

from __future__ import annotations

import re
from dataclasses import replace

from planner.engine.budget import COLUMNS, NO_TRAFFIC
from planner.engine.shared import TOO_LONG
from planner.workbook import kit, model
from planner.engine.plan import pools
from planner.workbook.cost import (NO_SERVER, POOL_WORDS, fleet_burst, fleet_calendar_columns, fleet_used_gpu_hours,
                                   on_time, pair_sum, pooled, swapped_rows, text, unless)
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Budget"
MONEY_BACK = "below 0 at the end: money back: the GPUs sold at book value at the end"  # the owned path's
NA = "plan_serving_reason"  # the users do not fit, or a Fleet searched for other inputs (Cost)


def fiscal_year_count(month_rows: int) -> int:
    """The most fiscal years the month rows can touch: the first month the last of its year, then one year for
    every 12 months after it or part of them (49 months touch 5, not 6)."""
    return -(-(month_rows - 1) // 12) + 1


# The calendar's month rows (§13.5): k, the row's month number, is its label ---------------------------------------
def money(formula: str, *, rows_only: bool = False, owned: bool = False) -> str:
    """A money column: blank outside the plan; n/a with the reason where the plan's premises fail (a plan longer
    than the rows; for serving money, serving that does not fit; for the owned path, no server price or kW)."""
    na = "plan_rows_na" if rows_only else "plan_money_na"
    found = f"IF(own_path_priced,{formula},{NO_SERVER})" if owned else formula
    return f'=IF({{in_plan}},IF({na}<>"",{na},{found}),"")'


def then(key: str, formula: str) -> str:
    """A path column computed from its serving column: the serving's reason where it has no number."""
    return f'=IF({{in_plan}},IF(ISNUMBER({{{key}}}),{formula},{{{key}}}),"")'


def served(formula: str) -> str:
    """A demand column while the serving set-up fits; n/a in the plan's months, 0 elsewhere, when it does not."""
    return f"=IF(plan_serving_fits,{formula},IF({{in_plan}},{NA},0))"


def burst(baseline: str) -> str:
    """X_k(B) = v_k·(ĝ_k·SUMIF(f, ">"&ROUND(B/ĝ_k, 9)) − B·COUNTIF(f, ">"&ROUND(B/ĝ_k, 9))): GPU-hours above B."""
    threshold = f'">"&ROUND({baseline}/{{scale}},gpu_rounding_decimals)'
    return served(f"IF({{scale}}>0,{{serving_days}}*({{scale}}*SUMIF(plan_profile,{threshold},plan_profile)-{baseline}"
                  f"*COUNTIF(plan_profile,{threshold})),0)")


def chosen(key: str) -> str:
    """The budget's path's column of that name."""
    return (f'=IF({{in_plan}},IF(budget_path="committed",{{committed_{key}}},IF(budget_path="owned",'
            f'{{owned_{key}}},{{on_demand_{key}}})),"")')


def _cumulative(i: int) -> str:
    if i == 0:
        return '=IF({in_plan},{total},"")'
    return ('=IF({in_plan},IF(AND(ISNUMBER({total}),ISNUMBER({cumulative:prev})),{total}+{cumulative:prev},'
            'IF(ISNUMBER({total}),{cumulative:prev},{total})),"")')


def path_columns(path: str, label: str, line: bool = False) -> list[Column]:
    """A path's subtotal, contingency, total and cash from its serving column; on demand and committed, whose cash
    is their total, the total's column is named for both (CASH_IS_TOTAL). The owned path that owns training pays
    no rent for it: with a fleet (`line`), its training GPUs' own line instead (0 where they share the fleet)."""
    accrual, paid = (LINE_ACCRUAL, LINE_CASH) if line else ("0", "0")
    training = f"IF(ownership_training,{accrual},{{training}})" if path == "owned" else "{training}"
    cash = (f"(IF(ownership_training,{paid},{{training}})+{{other}}+{{burst_owned}}+{{opex}}+{{capex}}-{{book_value}})"
            "*(1+budget_contingency)")
    serving = f"{path}_serving"
    return [
        Column(f"{path}_subtotal", f"{label}: subtotal per month", kind="money0",
               template=then(serving, f"{training}+{{other}}+{{{serving}}}")),
        Column(f"{path}_contingency", f"{label}: contingency per month", kind="money0",
               template=then(serving, f"budget_contingency*{{{path}_subtotal}}")),
        Column(f"{path}_total", f"{label}: total per month", kind="money0",
               template=then(serving, f"{{{path}_subtotal}}+{{{path}_contingency}}")),
    ] + ([Column(f"{path}_cash", f"{label}: cash per month ({MONEY_BACK})", kind="money0",
                 template=then(serving, cash))] if path == "owned" else [])


LINE_ACCRUAL = "{own_training_depreciation}+{own_training_opex}"  # the owned training GPUs' line (§13.15)
LINE_CASH = "{own_training_opex}+{own_training_capex}-{own_training_book_value}"
CASH_IS_TOTAL = {"on_demand_cash": "on_demand_total", "committed_cash": "committed_total"}  # a copy, not a column


def ov(x: str, y: str, *, ends: str = "") -> str:
    """ov_k(x, y): the days of [x, y) in the row's month, to a billionth of a day (as the engine's calendar)."""
    return f"ROUND(MAX(0,MIN({{next_month_start}},{y}{ends})-MAX({{month_start}},{x})),day_rounding_decimals)"


SERVED_TOKENS = ("=IF({serving_days}>0,crossover_served_tokens_per_day*("
                 "(1+budget_monthly_growth)^({label}-launch_month-1)"
                 f"*{ov('launch_date', 'serving_end', ends=',{anniversary}')}"
                 "+(1+budget_monthly_growth)^({label}-launch_month)"
                 f"*{ov('launch_date,{anniversary}', 'serving_end')}),0)")

# Where the Fleet's monthly columns come in (§13.9): with a `fleet`, U_k and G_k read the Fleet sheet's sizing of each
# month instead of the Serving roofline at the users (the engine's Plan.fleet). Without one, these two:
USED_GPU_HOURS = served(model.serving_gpu_hours("{served_tokens}", "serving_tokens_per_s_per_gpu"))
COMMITTED_GPUS = served("CEILING(ROUND({scale}*MAX(plan_profile),gpu_rounding_decimals),1)")

CALENDAR = [
    Column("month_start", "Month", kind="month", template="=EOMONTH(tco_start_date,{label}-2)+1"),
    Column("fiscal_year", "Fiscal year", kind="text", template='=IF({in_plan},"FY"&{fiscal_year_number},"")'),
    Column("in_plan", "In plan", kind="bool", template="={month_start}<plan_end"),
    Column("chosen_training", "Training per month", kind="money0",
           template='=IF({in_plan},IF(AND(budget_path="owned",ownership_training),0,{training}),"")'),
    Column("other", "Other costs per month", kind="money0",
           template=money("budget_other_monthly_cost*fx_rate*{escalation}*{plan_days}/{days}", rows_only=True)),
    Column("chosen_serving", "Serving per month", kind="money0", template=chosen("serving")),
    Column("chosen_contingency", "Contingency per month", kind="money0", template=chosen("contingency")),
    Column("total", "Total per month", kind="money0", template=chosen("total")),
    Column("cumulative", "Cumulative over the plan", kind="money0", template=_cumulative),
    Column("on_demand_serving", "On demand: serving per month", kind="money0",
           template=money("{serving_gpu_hours}*price_on_demand*{escalation}+IF(budget_include_standby,{standby},0)")),
    *path_columns("on_demand", "On demand"),
    Column("baseline", "Committed: baseline per month", kind="money0",
           template=money(f"serving_baseline_gpus_used*hours_per_day*{ov('launch_date', 'serving_commitment_end')}"
                          "*price_baseline")),
    Column("burst_committed", "Committed: burst per month", kind="money0",
           template=money("{burst_committed_gpu_hours}*price_on_demand*{escalation}")),
    Column("committed_serving", "Committed: serving per month", kind="money0",
           template=then("baseline", "{baseline}+{burst_committed}")),
    *path_columns("committed", "Committed"),
    Column("depreciation", "Owned: depreciation per month", kind="money0", template=money(
        f"own_gpus*own_depreciation_per_day*{ov('own_start', 'serving_end', ends=',own_life_end')}", owned=True)),
    Column("opex", "Owned: running costs per month", kind="money0", template=money(
        "own_gpus*(own_facility_per_day+own_staff_per_day+own_energy_per_day)*{escalation}*"
        f"{ov('own_start', 'serving_end')}", owned=True)),
    Column("burst_owned", "Owned: burst per month", kind="money0",
           template=money("{burst_owned_gpu_hours}*price_on_demand*{escalation}", owned=True)),
    Column("owned_serving", "Owned: serving per month", kind="money0",
           template=then("depreciation", "{depreciation}+{opex}+{burst_owned}")),
    Column("capex", "Owned: capex per month", kind="money0", template=money(
        "IF(AND({month_start}<=own_start,own_start<{next_month_start}),own_capex,0)", owned=True)),
    Column("book_value", "Owned: book value per month", kind="money0", template=money(
        "IF(AND({month_start}<serving_end,serving_end<={next_month_start}),own_book_value,0)", owned=True)),
    *path_columns("owned", "Owned"),
    Column("standby", "Standby per month", kind="money0",
           template=money("ROUND(hours_per_day*{committed_gpus}*{serving_days}-{serving_gpu_hours},gpu_rounding_decimals)"
                          "*price_on_demand*{escalation}")),
    Column("training", "Training per month (rented)", kind="money0", template=money(
        f"IF(training_term_months>0,hours_gpus*hours_per_day*{ov('tco_start_date', 'training_commitment_end')}"
        "*price_training,"
        "IF(training_days>0,training_tier_cost/training_days*{training_days}*{escalation},0))", rows_only=True)),
    Column("revenue", "Revenue per month", kind="money0",
           template='=IF({in_plan},IF(OR(unit_price_input_per_million="",unit_price_output_per_million=""),"",'
                    'IF(plan_money_na<>"",plan_money_na,({requests}*serving_prompt_tokens*unit_price_input_per_million'
                    '+{served_tokens}'
                    '*unit_price_output_per_million)/per_million*fx_rate)),"")'),
    Column("next_month_start", "Next month starts", kind="date", template="=EOMONTH(tco_start_date,{label}-1)+1"),
    Column("days", "Days", kind="count", template="={next_month_start}-{month_start}"),
    Column("plan_days", "Days in the plan", kind="days",
           template="=" + ov("tco_start_date", "serving_end")),
    Column("training_days", "Training days", kind="days",
           template="=" + ov("tco_start_date", "launch_date")),
    Column("serving_days", "Serving days", kind="days",
           template="=" + ov("launch_date", "serving_end")),
    Column("fiscal_year_number", "Fiscal year (number)", kind="count",
           template="=YEAR({month_start})+IF(AND(budget_first_fiscal_month>1,MONTH({month_start})>="
                    "budget_first_fiscal_month),1,0)"),
    Column("escalation", "Escalation", kind="decimal",
           template="=(1+budget_escalation)^INT(({label}-1)/months_per_year)"),
    Column("discount", "Discount factor", kind="decimal",
           template="=(1+budget_discount_rate)^(-{label}/months_per_year)"),
    Column("anniversary", "Growth steps on", kind="datetime",
           template="=IF({label}>=launch_month,EDATE(INT(launch_date),{label}-launch_month)+MOD(launch_date,1),0)"),
    Column("served_tokens", "Served tokens", kind="giga", template=SERVED_TOKENS),
    Column("serving_gpu_hours", "Used GPU-hours U", kind="count", template=USED_GPU_HOURS),
    Column("scale", "GPUs at fraction 1 ĝ", kind="number",
           template=served("IF(AND({serving_days}>0,SUM(plan_profile)>0),{serving_gpu_hours}/({serving_days}"
                           "*SUM(plan_profile)),0)")),
    Column("committed_gpus", "Peak-sized GPUs G", kind="count", template=COMMITTED_GPUS),
    Column("burst_committed_gpu_hours", "Burst GPU-hours, committed", kind="count",
           template=burst("serving_baseline_gpus_used")),
    Column("burst_owned_gpu_hours", "Burst GPU-hours, owned", kind="count",
           template=burst("IF(own_priced,own_gpus,0)")),
    Column("requests", "Requests", kind="count", template="={served_tokens}/serving_output_tokens"),
    Column("chart_month", "Chart: month", kind="month",
           template="=IF({in_plan},{month_start},EOMONTH(tco_start_date,MAX(1,tco_months)-2)+1)"),
]
BEFORE, AFTER = ov("launch_date", "serving_end", ends=",{anniversary}"), ov("launch_date,{anniversary}", "serving_end")
FLEET_TEMPLATES = {  # with a fleet (§11): its GPUs hour by hour at the month's rate, not the roofline at the users
    "serving_gpu_hours": fleet_used_gpu_hours(served, BEFORE, AFTER),
    "committed_gpus": served("IF({serving_days}>0,{fleet_peak_gpus},0)"),
    "burst_committed_gpu_hours": fleet_burst(served, "serving_baseline_gpus_used"),
    "burst_owned_gpu_hours": fleet_burst(served, "IF(own_priced,own_gpus,0)"),
    "chosen_training": '=IF({in_plan},IF(AND(budget_path="owned",ownership_training),IF(ISNUMBER('
                       f'{{own_training_opex}}),{LINE_ACCRUAL},{{own_training_opex}}),{{training}}),"")',
    **{column.key: column.template for column in path_columns("owned", "Owned", line=True)},
}
# Owned training on a GPU type of its own (§13.15, "each on its own line"): N_run GPUs of the GPU on Inputs, owned as
# the fleet is from S to E; 0 in every month while training rents or shares the owned fleet's type
TRAINING_LINE = [
    Column("own_training_depreciation", "Owned training GPUs: depreciation per month", kind="money0", template=money(
        f"own_training_gpus*own_training_depreciation_per_day*"
        f"{ov('tco_start_date', 'serving_end', ends=',own_training_life_end')}", owned=True)),
    Column("own_training_opex", "Owned training GPUs: running costs per month", kind="money0", template=money(
        "own_training_gpus*own_training_running_per_day*{escalation}*"
        f"{ov('tco_start_date', 'serving_end')}", owned=True)),
    Column("own_training_capex", "Owned training GPUs: capex per month", kind="money0", template=money(
        "IF(AND({month_start}<=tco_start_date,tco_start_date<{next_month_start}),own_training_capex,0)",
        owned=True)),
    Column("own_training_book_value", "Owned training GPUs: book value per month", kind="money0", template=money(
        "IF(AND({month_start}<serving_end,serving_end<={next_month_start}),own_training_book_value,0)",
        owned=True)),
]


def calendar(fleet: bool, mixed: bool = False) -> list[Column]:
    """The month rows' columns; with a fleet its sizing in place of the roofline's, and its hours after them; with a
    mixed fleet (§15.1) each pool's GPUs, GPU-hours and money after those, and the GPUs and money their sum."""
    if not fleet:
        return CALENDAR
    columns = [replace(c, template=FLEET_TEMPLATES.get(c.key, c.template)) for c in CALENDAR]
    if not mixed:
        return columns + fleet_calendar_columns() + TRAINING_LINE
    by_key = {c.key: c for c in columns}
    summed = [replace(c, template=POOLS_SUMMED.get(c.key, c.template)) for c in columns]
    summed = [replace(c, template=c.template.replace("plan_serving_fits", "plan_pools_fit")) if c.key == "scale"
              else c for c in summed]  # ĝ_k of the pools' GPU-hours: their sum
    return summed + fleet_calendar_columns() + TRAINING_LINE + [
        column for pool, end in pools.SUFFIX.items() for column in
        fleet_calendar_columns((POOL_SIDES[pool],), end, POOL_WORDS[pool]) + [
            replace(by_key[key], key=key + end, header=f"{POOL_WORDS[pool]}: {by_key[key].header[0].lower()}"
                    f"{by_key[key].header[1:]}", template=counted(pooled(by_key[key].template, pool, POOL_COLUMNS)))
            for key in POOL_COLUMNS if key in by_key]]


def counted(template):
    """A pool's column with its baseline and owned GPUs as numbers (N: 0 for the reason a number typed where the
    pools take a pair gives, whose money plan_money_na leaves n/a), so that no column reads an error."""
    if callable(template):
        return template
    return re.sub(r"\b((?:serving_baseline_gpus_used|own_gpus)_(?:p|d|prefill|decode))\b", r"N(\1)", template)


POOL_SIDES = {"prefill": "first", "decode": "second"}  # the Cost sheet's pools: prefill first, decode second
POOL_COLUMNS = pools.POOL_COLUMNS  # each pool's copy of these month columns (§15.1)


def pools_sum(key: str) -> str:
    return pair_sum(f"{{{key}_p}}", f"{{{key}_d}}")


SUMMED_GPUS = ("serving_gpu_hours", "committed_gpus", "burst_committed_gpu_hours", "burst_owned_gpu_hours")
POOLS_SUMMED = {key: (f'=IF({{in_plan}},{pools_sum(key)},"")' if key not in SUMMED_GPUS else f"={pools_sum(key)}")
                for key in SUMMED_GPUS + ("on_demand_serving", "standby", "baseline", "burst_committed",
                                          "depreciation", "opex", "burst_owned", "capex", "book_value")}


NAMED = [column.key for column in CALENDAR if column.key not in ("chosen_training", "chosen_serving",
                                                                 "chosen_contingency", "chart_month")]

PRINTED = 9  # the month table's columns that print: month, fiscal year, in the plan, the path's parts, total,
# cumulative (column J, where the scalar rows hold their value)
SUMMARY = [
    Row("total", "The plan's total: the budget's path over calendar months, with escalation and "
        "contingency", formula="=tco_total_cost", kind="money0", unit="", name="budget_total_cost", bold=True),
    Row("npv", "… its NPV over the plan, as at its first month", formula="=tco_npv", kind="money0", unit=""),
    Row("months", "Months in the plan", formula="=tco_months", kind="count", unit=""),
    Row("start", "The plan starts", formula="=tco_start_date", kind="date", unit=""),
    Row("end", "… and ends: the last day the budget's path pays for", formula="=plan_path_end", kind="date",
        unit=""),
]


# Fiscal years (§13.6): one row per fiscal year from the first month's to the last plan month's --------------------
def fy_sum(path: str, key: str) -> str:
    found = f"SUMIF(calendar_fiscal_year_number,{{fy_number}},calendar_{path}_{key})"
    found = f"IF(own_path_priced,{found},{NO_SERVER})" if path == "owned" else found
    return f'=IF({{fiscal_year}}="","",IF(plan_money_na<>"",plan_money_na,{found}))'


YEARLY = [
    Column("fiscal_year", "Fiscal year", kind="text", template='=IF({fy_number}<=INDEX(calendar_fiscal_year_number,'
           'MAX(1,MIN(tco_months,ROWS(calendar_fiscal_year_number)))),"FY"&{fy_number},"")'),
    Column("months", "Months in the plan", kind="count", template='=IF({fiscal_year}="","",COUNTIFS('
           "calendar_fiscal_year_number,{fy_number},calendar_in_plan,TRUE))"),
    Column("fy_total", "Budget's path: total per fiscal year", kind="money0",
           template='=IF({fiscal_year}="","",IF(budget_path="committed",{committed_total},IF(budget_path="owned",'
                    "{owned_total},{on_demand_total})))"),
    *[Column(f"{path}_{key}", f"{label}: {key} per fiscal year" + (f" ({MONEY_BACK})" if (path, key) == ("owned",
             "cash") else ""), kind="money0", template=fy_sum(path, key))
      for path, label in (("on_demand", "On demand"), ("committed", "Committed"), ("owned", "Owned"))
      for key in ("total", "cash")],
    Column("fy_number", "Fiscal year (number)", kind="count",
           template="=INDEX(calendar_fiscal_year_number,1)+{label}-1"),
]


# The average-month budget (§9) -------------------------------------------------------------------------------------
HORIZON_TOTAL = f"IF(plan_serving_fits,budget_training_cost+budget_horizon_serving_cost,{NA})"
AVERAGE_TOTAL = f"IF(plan_serving_fits,budget_training_cost+budget_serving_cost+IF(budget_include_standby," \
                f"budget_standby_cost,0),{NA})"
TOTALS = [
    Row("training_cost", "Training cost, paid once over the run", formula="=hours_cost", kind="money0",
        unit="paid once", note="Hours' cost: its allocated GPU-hours × the on-demand price",
        name="budget_training_cost"),
    Row("tokens_per_s_per_gpu", "Output tokens per second per GPU at the users (roofline)",
        formula="=serving_tokens_per_s_per_gpu", kind="count", unit="tokens/s", note="Serving: TokS at its users"),
    Row("serving_gpu_hours_per_day", "Serving GPU-hours per day at launch traffic",
        formula="=" + model.serving_gpu_hours("crossover_served_tokens_per_day", "serving_tokens_per_s_per_gpu"),
        kind="count",
        unit="GPU-hours a day", note="D / (3600 · TokS)", name="budget_serving_gpu_hours_per_day"),
    Row("serving_cost_per_day", "Serving cost per day", kind="money0", unit="per day",
        formula=f"=IF(plan_serving_fits,budget_serving_gpu_hours_per_day*price_on_demand,{NA})",
        note="At the on-demand price; n/a when the users do not fit (B > B_max)", name="budget_serving_cost_per_day"),
    Row("serving_cost_per_month", "Serving cost per average month", kind="money0", unit="per month",
        formula=f"=IF(plan_serving_fits,budget_serving_cost_per_day*budget_days_per_month,{NA})",
        note="A month of 30.4375 days"),
    Row("horizon_serving_cost", "Serving cost over the horizon at launch traffic", kind="money0",
        unit="over the horizon",
        formula=f"=IF(plan_serving_fits,crossover_horizon_days*budget_serving_cost_per_day,{NA})",
        note="Horizon days × serving cost per day, no growth", name="budget_horizon_serving_cost"),
    Row("mfu_serving_cost", "… at Crossover's assumed serving MFU: a comparison of compute, not a cost of the plan",
        kind="money0", formula="=crossover_serving_cost_over_horizon", unit="over the horizon",
        note="Crossover: 2·Ψ·D at the serving MFU it assumes"),
    Row("horizon_total_cost", "Training plus serving over the horizon at launch traffic", kind="money0",
        unit="over the horizon",
        formula=f"={HORIZON_TOTAL}", note="No growth, no standby, average months", name="budget_horizon_total_cost"),
    Row("serving_cost_per_million_tokens", "Serving cost per million served tokens", kind="money",
        unit="per M tokens", note="Serving cost / (horizon · D) × 1e6", name="budget_serving_cost_per_million_tokens",
        formula=f'=IF(crossover_served_tokens_per_day=0,"{NO_TRAFFIC}",IF(plan_serving_fits,'
                f'budget_horizon_serving_cost/'
                f"(crossover_horizon_days*crossover_served_tokens_per_day)*per_million,{NA}))"),
]

# the average months' rows hold the plan's (not a number: an input's check fails instead)
AVERAGE_WITHIN_ROWS = unless("NOT(ISNUMBER(budget_training_months)),NOT(ISNUMBER(budget_months))",
                             "budget_training_months+budget_months<=ROWS(budget_month_phase)")
CALENDAR_HOLDS = unless("NOT(ISNUMBER(launch_month)),NOT(ISNUMBER(budget_months))",
                        "launch_month+budget_months-1<=ROWS(calendar_in_plan)")
PLAN = [
    Row("training_days", "Training: wall-clock days", formula="=hours_days", kind="days", note="Hours, on N_run GPUs"),
    Row("training_months", "Training months", formula="=ROUNDUP(ROUND(hours_days/budget_days_per_month,9),0)",
        kind="count", unit="months", note="CEIL9(days / 30.4375): the last one part", name="budget_training_months"),
    Row("horizon_days", "Serving: the horizon after launch", formula="=crossover_horizon_days", kind="count",
        unit="days", note="Crossover's horizon"),
    Row("serving_months", "Serving months", formula="=ROUNDUP(ROUND(crossover_horizon_days/budget_days_per_month,9),0)",
        kind="count", unit="months", note="CEIL9(horizon / 30.4375): the last one prorated", name="budget_months"),
    Row("run_na", "The sums below, when the plan needs more months than the rows hold", kind="text",
        formula=f'=IF({AVERAGE_WITHIN_ROWS},"",{text(TOO_LONG)})', note="Blank while the rows hold the plan",
        name="budget_run_na"),
]
# with a fleet, average month m also reads the calendar's row k_L + m − 1
PLAN_FLEET = {"run_na": f'=IF(AND({AVERAGE_WITHIN_ROWS},{CALENDAR_HOLDS}),"",{text(TOO_LONG)})'}

def _run(formula: str) -> str:
    """A sum over the month rows, or why it has none: a run longer than the training rows."""
    return f'=IF(budget_run_na<>"",budget_run_na,{formula})'


SUMS = [
    Row("months_training_cost", "Training spend over its months", formula=_run("SUM({training:range})"),
        kind="money0", unit="", note="Adds up to the training cost"),
    Row("served_tokens", "Served tokens over the horizon", formula=_run("SUM({served_tokens:range})"), kind="tera",
        unit="T tokens", note="Σ D_m · days of month m"),
    Row("serving_cost", "Serving spend over the horizon",
        formula=_run(f"IF(plan_serving_fits,SUM({{serving:range}}),{NA})"),
        kind="money0", unit="over the horizon", note="With the monthly growth; n/a when the users do not fit",
        name="budget_serving_cost"),
    Row("standby_cost", "Standby: idle hours of a fleet sized for each month's peak", kind="money0",
        formula=_run(f"IF(plan_serving_fits,SUM({{standby:range}}),{NA})"), unit="over the horizon",
        note="In the total only when include_standby is TRUE (Inputs)", name="budget_standby_cost"),
    Row("total_cost", "Average-month total: training plus serving", kind="money0", unit="over the plan",
        formula=_run(AVERAGE_TOTAL), note="Where the bridge to the plan's total starts (Cost)",
        name="budget_average_month_total_cost", bold=True),
]


def _is(phase: str, formula: str) -> str:
    return f'=IF({{phase}}="{phase}",{formula},"")'


def _average_cumulative(i: int) -> str:
    if i == 0:
        return '=IF({phase}="","",{total})'
    return f'=IF({{phase}}="","",IF(AND(ISNUMBER({{total}}),ISNUMBER({{cumulative:prev}})),' \
           f'{{total}}+{{cumulative:prev}},{NA}))'


MONTHS = [  # one row per average month of the plan, {label} its number from the first training month
    Column("phase", "Phase", kind="text", template='=IF({label}<=budget_training_months,"training",'
           'IF({label}<=budget_training_months+budget_months,"serving",""))'),
    Column("serving_month", "Serving month m", kind="count",
           template=_is("serving", "{label}-budget_training_months")),
    Column("days", "Days", kind="days", template='=IF({phase}="training",MIN(budget_days_per_month,hours_days-'
           '({label}-1)*budget_days_per_month),IF({phase}="serving",MIN(budget_days_per_month,crossover_horizon_days-'
           '({serving_month}-1)*budget_days_per_month),""))'),
    Column("training", "Training per month", kind="money0",
           template=_is("training", "budget_training_cost/hours_days*{days}")),
    Column("tokens_per_day", "Tokens a day D_m", kind="giga",
           template=_is("serving", "crossover_served_tokens_per_day*(1+budget_monthly_growth)^({serving_month}-1)")),
    Column("served_tokens", "Served tokens", kind="giga", template=_is("serving", "{tokens_per_day}*{days}")),
    Column("serving_gpu_hours", "Serving GPU-hours", kind="count",
           template=_is("serving", model.serving_gpu_hours("{served_tokens}", "serving_tokens_per_s_per_gpu"))),
    Column("scale", "GPUs at a profile fraction of 1", kind="number",
           template=_is("serving", "IF(AND({days}>0,SUM(plan_profile)>0),{serving_gpu_hours}/({days}"
                                   "*SUM(plan_profile)),0)")),
    Column("committed_gpus", "Peak-sized GPUs", kind="count",
           template=_is("serving", "CEILING(ROUND({scale}*MAX(plan_profile),gpu_rounding_decimals),1)")),
    Column("serving", "Serving per month", kind="money0",
           template=_is("serving", f"IF(plan_serving_fits,{{serving_gpu_hours}}*price_on_demand,{NA})")),
    Column("standby", "Standby per month", kind="money0",
           template=_is("serving", "IF(plan_serving_fits,(hours_per_day*{committed_gpus}*{days}"
                                   f"-{{serving_gpu_hours}})*price_on_demand,{NA})")),
    Column("total", "Total per month", kind="money0", template='=IF({phase}="","",IF({phase}="training",{training},'
           f'IF(plan_serving_fits,{{serving}}+IF(budget_include_standby,{{standby}},0),{NA})))'),
    Column("cumulative", "Cumulative over the plan", kind="money0", template=_average_cumulative),
]


def _calendar_row(column: str) -> str:
    """Average month m's calendar row k_L + m − 1 of a column: the last row past them (budget_run_na says so)."""
    return f"INDEX({column},MIN(launch_month+{{serving_month}}-1,ROWS({column})))"


AVERAGE_FLEET = {  # with a fleet, average month m reads the calendar row at the same rate, k_L + m − 1 (§11)
    "serving_gpu_hours": _is("serving", "{days}*" + _calendar_row("calendar_fleet_gpu_hours_a_day")),
    "committed_gpus": _is("serving", _calendar_row("calendar_fleet_peak_gpus")),
}
# With a layout search, the totals that include training read n/a past its deadline (the plan's premise, §13.15)
ON_TIME_FORMULAS = {"horizon_total_cost": "=" + on_time(HORIZON_TOTAL), "total_cost": _run(on_time(AVERAGE_TOTAL))}
ON_TIME = {row.key: replace(row, formula=ON_TIME_FORMULAS[row.key]) for row in TOTALS + SUMS
           if row.key in ON_TIME_FORMULAS}
TOTALS_FLEET = {"serving_gpu_hours_per_day": "=fleet_plan_gpu_hours_a_day"}


def with_fleet(items: list, templates: dict, fleet: bool, field: str = "template") -> list:
    """Columns or rows with a fleet's formulas in place of the roofline's."""
    return [replace(item, **{field: templates[item.key]}) if fleet and item.key in templates else item
            for item in items]


CHART_HEIGHT = 380


def write(book: kit.Book, results) -> kit.Sheet:
    cost, average = results.cost, results.budget
    fleet = results.scenario.fleet is not None
    columns = calendar(fleet, cost.pools is not None)
    sheet = book.sheet(SHEET, [(column.header, 12 if i < PRINTED else 13) for i, column in enumerate(columns)],
                       label_width=10, unit_width=4, note_width=4)
    sheet.money_na = True  # a month's or a fiscal year's money whose inputs fail reads n/a, as Cover and Cost do
    # the plan's total and the average months' rows hold their value under the cumulative column, their labels
    # running across the empty cells to its left, so column A stays as narrow as the month numbers
    sheet.scalar_col = PRINTED
    sheet.title("Budget: the plan by calendar month", "docs/method.md §9 and §13: the budget's path month by month, "
                "the three paths side by side, then the average-month budget the bridge starts from (Cost).")
    sheet.section("The plan's total")
    summary = {"total": cost.headline["plan_total_cost"], "npv": cost.headline["tco_npv"],
               "months": cost.scalars["months"], "start": cost.scalars["start_date"], "end": cost.scalars["path_end"]}
    top = sheet.row_index
    chart_rows = 2 + -(-CHART_HEIGHT // 20)
    month_rows = len(cost.rows)  # the plan's months and the spare ones (the engine's result)
    months_at = top + (len(SUMMARY) + 1) + (1 + chart_rows) + (1 + 1 + fiscal_year_count(month_rows) + 1 + 1)
    sheet.row_index = months_at
    sheet.section(f"Every calendar month of the plan, and {month_rows - cost.scalars['months']} spare rows for an "
                  "edit that lengthens it, grouped out of sight (the + at the left shows them)")
    rows = [{"revenue": "", **row} for row in cost.rows]  # revenue only with both prices charged
    _, first, last = sheet.records(list(range(1, month_rows + 1)), columns, rows, label_header="Month k",
                                   alike=True)
    pooled_keys = [c.key for c in columns[len(CALENDAR):]] if fleet else []  # the fleet's hours, the pools' columns
    for key in NAMED + pooled_keys + list(CASH_IS_TOTAL):
        col = sheet.places[CASH_IS_TOTAL.get(key, key)].col
        book.define(f"calendar_{key}", SHEET, f"{kit.xl_rowcol_to_cell(first, col)}:{kit.xl_rowcol_to_cell(last, col)}")
    _hide(sheet, [first + i for i, row in enumerate(cost.rows) if not row["in_plan"]])
    end = sheet.row_index

    sheet.row_index = top
    for row in SUMMARY:
        sheet.row(row, summary[row.key])
    sheet.skip()
    sheet.section("Spend by month: the budget's path (Inputs), over the plan's months")
    _chart(book, sheet)
    _fiscal_years(book, sheet, cost)
    assert sheet.row_index == months_at, (sheet.row_index, months_at)
    sheet.row_index = end + 1
    _average_months(book, sheet, average, fleet, results.scenario.search is not None, mixed=cost.pools is not None)
    # printed: the plan's total, its chart, the fiscal years and the budget's path month by month (the first
    # columns); the three paths' and the calendar's columns beside them, and the average months, on screen
    sheet.printed_cols, sheet.printed_rows = PRINTED, last
    sheet.label_chars = 0  # column A as wide as the month numbers: the labels run across the empty cells beside
    sheet.long_labels.clear()  # … unwrapped
    return sheet


def _fiscal_years(book: kit.Book, sheet: kit.Sheet, cost) -> None:
    """A fixed block of fiscal-year rows, those beyond the plan blank and grouped out of sight."""
    sheet.section("Per fiscal year (named by the calendar year it ends in): SUMIF over the month rows")
    found = {fy["fiscal_year"]: fy for fy in cost.fiscal_years}
    first_fy = cost.rows[0]["fiscal_year_number"]
    path = cost.scalars["path"]
    rows = []
    count = fiscal_year_count(len(cost.rows))
    for i in range(count):
        label = f"FY{first_fy + i}"
        fy = found.get(label)
        keys = [c.key for c in YEARLY]
        row = dict.fromkeys(keys, "") | {"fy_number": first_fy + i}
        if fy is not None:
            row |= {key: value for key, value in fy.items() if key in keys} | {"fy_total": fy[f"{path}_total"]}
        rows.append(row)
    _, first, last = sheet.records(list(range(1, count + 1)), YEARLY, rows, label_header="Year", alike=True)
    _hide(sheet, [first + i for i, row in enumerate(rows) if row["fiscal_year"] == ""])
    total = sum(row["fy_total"] for row in rows if isinstance(row["fy_total"], (int, float)))
    sheet.row(Row("fiscal_years_total", "The fiscal years' totals added up", formula="=SUM({fy_total:range})",
                  kind="money0", unit="", name="fiscal_years_total"), total)
    sheet.skip()


def _average_months(book: kit.Book, sheet: kit.Sheet, table, fleet: bool, searched: bool,
                    mixed: bool = False) -> None:
    """§9's budget over months of 30.4375 days: its totals, sums and months (with a layout search, the totals
    that include training read n/a past its deadline; with a mixed fleet, each pool at its own price)."""
    sheet.section("Average months (§9): the budget in months of 30.4375 days, where the bridge starts (Cost)")
    totals = swapped_rows(with_fleet(TOTALS, TOTALS_FLEET, fleet, "formula"), searched, ON_TIME)
    sheet.rows(_bare(pooled_rows(totals, POOLED_TOTALS) if mixed else totals), table.scalars)
    sheet.rows(_bare(with_fleet(PLAN, PLAN_FLEET, fleet, "formula")), table.scalars)
    sheet.skip()
    top = sheet.row_index
    months_at = top + (1 + len(SUMS) + 1)
    sheet.row_index = months_at
    spare = len(table.rows) - table.scalars["training_months"] - table.scalars["serving_months"]
    sheet.section(f"Every average month: training, then launch and {table.scalars['serving_months']} serving months "
                  f"({max(spare, 0)} spare rows grouped out of sight)")
    months = with_fleet(MONTHS, AVERAGE_FLEET, fleet)
    months = [replace(c, template=POOLED_MONTHS.get(c.key, c.template).replace("plan_serving_fits", "plan_pools_fit"))
              if isinstance(c.template, str) else c for c in months] if mixed else months
    _, first, _ = sheet.records(list(range(1, len(table.rows) + 1)), months, table.rows, label_header="Month",
                                alike=True)
    phase = sheet.places["phase"].col
    book.define("budget_month_phase", SHEET, f"{kit.xl_rowcol_to_cell(first, phase)}:"
                f"{kit.xl_rowcol_to_cell(first + len(table.rows) - 1, phase)}")
    _hide(sheet, [first + i for i, row in enumerate(table.rows) if not row["phase"]])
    end = sheet.row_index
    sheet.row_index = top
    sheet.section("The average months' sums, with the monthly growth")
    sums = swapped_rows(SUMS, searched, ON_TIME)
    sheet.rows(_bare(pooled_rows(sums, {}) if mixed else sums), table.scalars)
    sheet.skip()
    assert sheet.row_index == months_at, (sheet.row_index, months_at)
    sheet.row_index = end


# A mixed fleet's average months (§15.1): each pool's GPU-hours (the calendar's at the same rate) at its own price
def _pools_at(formula: str) -> str:
    """Σ over the pools of `formula` with @ its pool's suffix: prefill's and decode's added."""
    return "+".join(formula.replace("@", end) for end in pools.SUFFIX.values())


POOLED_MONTHS = {
    "serving": _is("serving", "IF(plan_pools_fit,{days}*(" + _pools_at(
        _calendar_row("calendar_fleet_gpu_hours_a_day@") + "*price_on_demand@") + f"),{NA})"),
    "standby": _is("serving", "IF(plan_pools_fit," + _pools_at(
        "(hours_per_day*" + _calendar_row("calendar_fleet_peak_gpus@") + "*{days}-{days}*"
        + _calendar_row("calendar_fleet_gpu_hours_a_day@") + ")*price_on_demand@") + f",{NA})"),
}
POOLED_TOTALS = {"serving_cost_per_day": "=IF(plan_pools_fit," + _pools_at(
    "SUM(fleet_plan_launch_gpus@)*price_on_demand@") + f",{NA})"}


def pooled_rows(rows: list[Row], formulas: dict) -> list[Row]:
    """The average months' rows with a mixed fleet: priced while its pools fit, each pool at its own price."""
    return [replace(row, formula=formulas.get(row.key, row.formula).replace("plan_serving_fits", "plan_pools_fit"))
            for row in rows]


def _bare(rows: list[Row]) -> list[Row]:
    """Rows as this sheet writes them: the label says the period, no Unit or Notes column (they would stand past
    the month table's last column); the HTML shows the units and Cost the notes."""
    return [replace(row, unit="", note="") for row in rows]


def _hide(sheet: kit.Sheet, rows: list[int]) -> None:
    """Rows beyond the plan as generated: grouped and hidden, so they neither print nor read as empty months;
    the + at the left shows them (a longer plan after an edit fills them)."""
    for r in rows:
        sheet.ws.set_row(r, None, None, {"level": 1, "hidden": True})
        sheet.heights[r] = 0
    if rows:
        sheet.ws.set_row(rows[-1] + 1, None, None, {"collapsed": True})


def _chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The budget's path stacked by month, a column each: training, other costs, serving and contingency add up to
    its total (columns, not areas: each is the month's bill, training's paid in the months it runs, not a ramp
    between them). A date axis over every row, the rows beyond the plan placed at its last month (with nothing to
    add), so the months shown follow the plan when the run or the horizon changes."""
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    months = sheet.series("chart_month")
    for key, name, colour in (("chosen_training", "Training", "#4472C4"), ("other", "Other costs", "#A5A5A5"),
                              ("chosen_serving", "Serving", "#ED7D31"),
                              ("chosen_contingency", "Contingency", "#FFC000")):
        chart.add_series({"name": name, "categories": months, "values": sheet.series(key),
                          "fill": {"color": colour}, "border": {"none": True}, "gap": 30})
    chart.set_title({"name": "The budget's path by month"})
    chart.set_x_axis({"date_axis": True, "num_format": "mmm yy", "major_unit": 3, "major_unit_type": "months"})
    _month_columns(chart)
    chart.set_y_axis({"num_format": book.number_format("money0"), "min": 0, "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "bottom"})
    chart.show_hidden_data()
    sheet.chart(chart, height=CHART_HEIGHT, width=760)


def _month_columns(chart) -> None:
    """A date axis whose base unit is the month (<c:baseTimeUnit val="months"/>, after <c:lblOffset> as the schema
    orders it), so each column is a month wide: XlsxWriter writes no base unit, and a column is then a day wide."""
    write_label_offset = chart._write_label_offset

    def then_months(val) -> None:
        write_label_offset(val)
        chart._xml_empty_tag("c:baseTimeUnit", [("val", "months")])

    chart._write_label_offset = then_months


KEY_RESULTS: list[KeyResult] = []  # the plan's total is the Cost table's (the Cover shows it once)

CHECKS = [
    Check("budget_run_within_rows", "Budget: the plan's average months fit the rows", formula=AVERAGE_WITHIN_ROWS,
          note="An edit that lengthens the plan past the rows leaves the average-month sums n/a: run the planner "
               "again (or raise budget.spare_months); unknown days fail Hours' checks, not this one."),
]

assert set(COLUMNS) == {c.key for c in MONTHS}
