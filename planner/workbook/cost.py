"""The Cost sheet (docs/method.md §13): the calendar's dates, the prices per GPU-hour at each tier with their
sources, the training tier and the serving baseline, owning (its daily rates, full-use cost, break-even against
each rented price), cost per million output tokens and tokens per second per MW, the plan's demand profile, the
three paths' totals and NPVs, the bridge from the average-month budget to the plan's total, unit economics, and
the warnings. Every money cell is in the reporting currency: each money input × fx_rate where it enters.

The month rows these totals sum are on the Budget sheet (planner/workbook/budget.py), named calendar_<column>."""

from __future__ import annotations

import re
from dataclasses import replace

from planner.engine import answers, cost as engine
from planner.engine.plan import inputs as plan_inputs
from planner.engine.plan import pools
from planner.engine.plan import months as plan_months
from planner.engine.plan import prices as plan_prices
from planner.engine import shared
from planner.engine.shared import HOURS_PER_DAY
from planner.engine.calendar import serial
from planner.workbook import kit, model
from planner.workbook.catalog_sheet import GPUS, laid_out
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Cost"
PATHS = plan_months.PATHS
PATH_LABELS = {"on_demand": "On demand", "committed": "Committed baseline + burst", "owned": "Owned GPUs"}
WITHIN_ROWS = "tco_months<=ROWS(calendar_in_plan)"  # the plan's months fit the Budget's calendar rows


def text(value: str) -> str:
    """A reason as a formula's string."""
    return f'"{value}"'


NOT_SERVED, NO_SERVER, NO_SERVING = text(shared.NOT_SERVED), text(plan_prices.NO_SERVER), text(plan_prices.NO_SERVING)
PRICE_ZERO, NEVER, TOO_LONG = text(plan_prices.PRICE_ZERO), text(plan_prices.NEVER), text(shared.TOO_LONG)
NO_USERS, NO_REVENUE = text(engine.NO_USERS), text(engine.NO_REVENUE)


def catalog(key: str) -> str:
    """The chosen GPU's Catalog value of `key`."""
    return f"INDEX(catalog_gpu_{key},gpu_row)"


# An owned GPU's daily rates (METHOD §13.4; the engine's plan.prices.owned_rates), on the Catalog row `row`: the
# serving GPU's (gpu_row), the training GPU's own line (training_gpu_row) and each GPUs-sheet row read these
def depreciation_per_day(row: str) -> str:
    """δ = P·fx·(1 − R)/(Y·365.25)."""
    return (f"INDEX(catalog_gpu_server_price,{row})*fx_rate*(1-ownership_residual_value)/(ownership_useful_life_years"
            "*days_per_year)")


def facility_per_day(row: str) -> str:
    """φ = kW·c_dc·fx·12/365.25."""
    return f"INDEX(catalog_gpu_server_kw,{row})*ownership_datacenter_per_kw_month*fx_rate*months_per_year/days_per_year"


STAFF_PER_DAY = "ownership_staff_per_1000_gpus/1000*ownership_staff_cost_per_year*fx_rate/days_per_year"  # σ


def energy_per_day(row: str) -> str:
    """ε = 24·kW·s_p·PUE·c_kWh·fx."""
    return (f"INDEX(catalog_gpu_server_kw,{row})*ownership_power_share*ownership_pue*ownership_price_per_kwh*fx_rate"
            "*hours_per_day")


def running_per_day(row: str) -> str:
    """φ + σ + ε, the running costs that escalate."""
    return f"{facility_per_day(row)}+{STAFF_PER_DAY}+{energy_per_day(row)}"


def tier_price(tier: str) -> str:
    """p_tier = IF(quote blank, ratio × p_od, quote × fx): "blank" is tested on the Catalog cell itself."""
    return f'=IF({catalog(f"price_{tier}")}="",pricing_{tier}_ratio*price_on_demand,{catalog(f"price_{tier}")}*fx_rate)'


def months_to_cover(x: str, y: str) -> str:
    """mo(x, y) = m0 + IF(y > EDATE(INT(x), m0) + MOD(x, 1), 1, 0), m0 = 12·(YEAR(y) − YEAR(x)) + MONTH(y) −
    MONTH(x): the fewest whole months m with EDATE(x, m) ≥ y."""
    m0 = f"(months_per_year*(YEAR({y})-YEAR({x}))+MONTH({y})-MONTH({x}))"
    return f"={m0}+IF({y}>EDATE(INT({x}),{m0})+MOD({x},1),1,0)"


def commitment_end(x: str, months: str, term: str) -> str:
    """C = EDATE(INT(x), m_T·MAX(1, CEILING(mo/m_T, 1))) + MOD(x, 1): the end of the whole terms covering [x, y)."""
    return f"EDATE(INT({x}),{term}*MAX(1,CEILING({months}/{term},1)))+MOD({x},1)"


def per_million(price: str) -> str:
    """price·1e6/(3600·TokS) at the users, while they fit."""
    return (f"=IF(AND(plan_serving_fits,serving_tokens_per_s_per_gpu>0),"
            f"{model.cost_per_million_tokens(price, 'serving_tokens_per_s_per_gpu')},plan_serving_reason)")


def break_even(price: str) -> str:
    """u* = c_own/p; above 1, owning never beats the price; at p = 0, n/a."""
    return (f"=IF(NOT(own_priced),{NO_SERVER},IF({price}=0,{PRICE_ZERO},IF(own_cost_per_gpu_hour>{price},{NEVER},"
            f"own_cost_per_gpu_hour/{price})))")  # compared, not divided: a ratio past any number is no error


def dated(key: str, label: str, formula: str, note: str = "", *, kind: str = "datetime", name: str | None = None,
          bold: bool = False) -> Row:
    return Row(key, label, formula=formula, kind=kind, unit="", note=note, name=name or key, bold=bold)


CALENDAR = [
    dated("start_date", "Start date", '=IF(budget_start_date="",EOMONTH(generated_on,0)+1,budget_start_date)',
          "The start date on Inputs; blank: the first of the month after the workbook was generated",
          kind="date", name="tco_start_date", bold=True),
    Row("training_days", "Training days", formula='=MIN(hours_days*IF(pricing_training_tier="spot",'
        "1+pricing_spot_overhead,1),training_days_max)", kind="days", note="Hours' wall-clock days, × (1 + ω) on "
        "spot; at most a century (a longer run is past the month rows)", name="training_days"),
    dated("launch_date", "Launch: the start plus the training days", "=tco_start_date+training_days",
          "Serving starts at the time of day training ends"),
    dated("serving_end", "Serving ends: the launch plus the horizon", "=launch_date+crossover_horizon_days"),
    Row("launch_month", "Launch month (its row on Budget)",
        formula="=months_per_year*(YEAR(launch_date)-YEAR(tco_start_date))+MONTH(launch_date)-MONTH(tco_start_date)+1",
        kind="count", unit="month", note="The month row that holds L",
        name="launch_month"),
    dated("plan_end", "The calendar ends", "=MAX(serving_end,IF(training_term_months>0,training_commitment_end,0),"
          "IF(ISNUMBER(serving_baseline_gpus_used),IF(serving_baseline_gpus_used>0,serving_commitment_end,0),0))",
          "The latest of E and the end of any commitment in use, whatever the path: the calendar the three paths "
          "share"),
    dated("path_end", "The budget's path ends: the last day it pays for", '=MAX(serving_end,IF(training_term_months>0,'
          'training_commitment_end,0),IF(AND(budget_path="committed",ISNUMBER(serving_baseline_gpus_used)),'
          "IF(serving_baseline_gpus_used>0,serving_commitment_end,0),0))", "E, or a committed training tier's end; "
          "on the committed path, the baseline's end (an on-demand plan ends with its serving)", name="plan_path_end"),
    Row("months", "Months in the plan", formula="=months_per_year*(YEAR(plan_end)-YEAR(tco_start_date))+MONTH(plan_end)"
        "-MONTH(tco_start_date)+1-IF(plan_end=EOMONTH(plan_end,-1)+1,1,0)", kind="count", unit="months",
        note="The calendar months that start before the plan ends (past the Budget's rows too)", name="tco_months",
        bold=True),
]

PRICES = [
    Row("gpu_row", "The GPU's Catalog row", formula="=MATCH(gpu,catalog_gpu_ids,0)", kind="count", unit="",
        name="gpu_row"),
    Row("price_on_demand", "On demand", formula="=price_per_gpu_hour_converted", kind="money",
        unit="per GPU-hour", note="The price per GPU-hour (Catalog, or the scenario's) × fx, on Inputs",
        name="price_on_demand", bold=True),
    Row("price_committed_1y", "Committed 1 year", formula=tier_price("committed_1y"), kind="money",
        unit="per GPU-hour", note="The Catalog's quote × fx; blank: the 1-year ratio × p_od",
        name="price_committed_1y"),
    Row("price_committed_3y", "Committed 3 years", formula=tier_price("committed_3y"), kind="money",
        unit="per GPU-hour", note="The Catalog's quote × fx; blank: the 3-year ratio × p_od",
        name="price_committed_3y"),
    Row("price_spot", "Spot", formula=tier_price("spot"), kind="money", unit="per GPU-hour",
        note="The Catalog's quote × fx; blank: the spot ratio × p_od", name="price_spot"),
]
SOURCES = {"committed_1y": "1-year", "committed_3y": "3-year", "spot": "spot"}


def source_row(tier: str) -> Row:
    """Where a tier's price comes from: the Catalog's source and date for a quote, else the ratio."""
    quote = catalog(f"price_{tier}")
    return Row(f"{tier}_source", f"… the {SOURCES[tier]} price's source", kind="text", unit="",
               formula=f'=IF({quote}="","Ratio "&TEXT(pricing_{tier}_ratio,"0%")&" of on demand (no quote)",'
                       f'{catalog(f"price_{tier}_source")}&" "&{catalog(f"price_{tier}_as_of")})')


TRAINING = [
    Row("price_training", "Training's price", formula='=IF(pricing_training_tier="spot",price_spot,'
        'IF(pricing_training_tier="committed_1y",price_committed_1y,IF(pricing_training_tier="committed_3y",'
        "price_committed_3y,price_on_demand)))", kind="money", unit="per GPU-hour", note="At the training tier",
        name="price_training"),
    Row("training_term_months", "Training's term", formula='=IF(training_days>0,IF(pricing_training_tier='
        '"committed_1y",months_per_year,IF(pricing_training_tier="committed_3y",3*months_per_year,0)),0)',
        kind="count", unit="months", note="0: by the hour (on demand, spot), or no training",
        name="training_term_months"),
    Row("training_commitment_months", "Months from the start to the launch",
        formula=months_to_cover("tco_start_date", "launch_date"),
        kind="count", unit="months", note="The fewest whole months that cover training",
        name="training_commitment_months"),
    dated("training_commitment_end", "Training's commitment ends",
          "=IF(training_term_months=0,launch_date," + commitment_end("tco_start_date", "training_commitment_months",
                                                                   "training_term_months") + ")",
          "Whole terms of N_run GPUs from S, paid for every hour, used or not"),
    Row("training_tier_cost", "Training at its tier", formula="=IF(training_term_months>0,hours_gpus*hours_per_day*("
        "training_commitment_end-tco_start_date)*price_training,hours_allocated_gpu_hours*IF(pricing_training_tier="
        '"spot",1+pricing_spot_overhead,1)*price_training)', kind="money0", unit="paid once",
        note="Committed: N_run · 24 · the terms' days · p_T; else allocated GPU-hours (× (1 + ω) on spot) · p_T",
        name="training_tier_cost", bold=True),
    Row("training_used_cost", "… of which training uses", formula="=IF(training_term_months>0,"
        "hours_allocated_gpu_hours*price_training,0)", kind="money0", unit="paid once",
        note="On a committed tier: A · p_T",
        name="training_used_cost"),
    Row("training_unused_cost", "… committed, unused", formula="=IF(training_term_months>0,training_tier_cost-"
        "training_used_cost,0)", kind="money0", unit="paid once",
        note="Pays only if the GPUs serve or train something else",
        name="training_unused_cost"),
]

BASELINE = [
    Row("serving_term_months", "Baseline's term",
        formula='=IF(pricing_serving_baseline_tier="committed_3y",3*months_per_year,months_per_year)',
        kind="count", unit="months", name="serving_term_months"),
    Row("serving_commitment_months", "Months from the launch to the end of serving",
        formula=months_to_cover("launch_date", "serving_end"),
        kind="count", unit="months", name="serving_commitment_months"),
    dated("serving_commitment_end", "Baseline's commitment ends",
          "=" + commitment_end("launch_date", "serving_commitment_months", "serving_term_months"),
          "Whole terms from L that cover [L, E)"),
    Row("price_baseline", "Baseline's price", formula='=IF(pricing_serving_baseline_tier="committed_3y",'
        "price_committed_3y,price_committed_1y)", kind="money", unit="per GPU-hour", name="price_baseline"),
    Row("price_baseline_effective", "… per served day", formula="=IF(crossover_horizon_days>0,price_baseline*"
        f"(serving_commitment_end-launch_date)/crossover_horizon_days,{NO_SERVING})", kind="money",
        unit="per GPU-hour", note="p_c · (C_s − L) / horizon: a longer term than the plan costs more per served day",
        name="price_baseline_effective"),
    Row("launch_scale", "GPUs in use at a profile fraction of 1, launch month", formula="=IF(plan_serving_fits,IF("
        "AND(SUM(plan_profile)>0,serving_tokens_per_s_per_gpu>0),crossover_served_tokens_per_day/(seconds_per_hour*"
        "serving_tokens_per_s_per_gpu*SUM(plan_profile)),0),plan_serving_reason)", kind="number",
        unit="GPUs, a fraction",
        note="D / (3600 · TokS · Σf)", name="launch_scale"),
    Row("baseline_hours", "Hours a day a committed GPU must be busy", formula=f"=IF(crossover_horizon_days=0,"
        f"{NO_SERVING},IF(price_on_demand=0,{PRICE_ZERO},MIN(hours_per_day,MAX(1,CEILING(ROUND(hours_per_day*price_baseline_effective/"
        "price_on_demand,gpu_rounding_decimals),1)))))", kind="count", unit="hours",
        note="CEILING(24 · p_eff / p_od): below it, on demand is cheaper", name="baseline_hours"),
    Row("serving_baseline_gpus_suggested", "Suggested baseline",
        formula="=IF(NOT(plan_serving_fits),plan_serving_reason,"
        "IF(ISTEXT(baseline_hours),0,IF(price_baseline_effective>=price_on_demand,0,INT(ROUND(launch_scale*"
        "LARGE(plan_profile,baseline_hours),gpu_rounding_decimals)))))", kind="count", unit="GPUs",
        note="ĝ · the profile's h*-th largest fraction: the GPUs busy at least h* hours a day",
        name="serving_baseline_gpus_suggested"),
    Row("serving_baseline_gpus_used", "Baseline", formula='=IF(pricing_serving_baseline_gpus="",'
        "serving_baseline_gpus_suggested,pricing_serving_baseline_gpus)", kind="count", unit="GPUs",
        note="The baseline on Inputs; blank: B*", name="serving_baseline_gpus_used", bold=True),
]

OWNING = [
    Row("own_priced", "The GPU's server price and kW are given", formula=f"=AND(ISNUMBER({catalog('server_price')}),"
        f"ISNUMBER({catalog('server_kw')}))", kind="bool", unit="", note="Catalog; without them owning is n/a",
        name="own_priced"),
    Row("own_depreciation_per_day", "Depreciation per GPU",
        formula=f"=IF(own_priced,{depreciation_per_day('gpu_row')},{NO_SERVER})", kind="money", unit="per GPU-day",
        note="P · (1 − R) / (Y · 365.25), straight line by day", name="own_depreciation_per_day"),
    Row("own_facility_per_day", "Facility per GPU", formula=f"=IF(own_priced,{facility_per_day('gpu_row')},"
        f"{NO_SERVER})", kind="money", unit="per GPU-day", note="kW · data-centre cost per kW-month · 12 / 365.25",
        name="own_facility_per_day"),
    Row("own_staff_per_day", "Staff per GPU", formula=f"=IF(own_priced,{STAFF_PER_DAY},{NO_SERVER})", kind="money",
        unit="per GPU-day", note="FTE per 1,000 GPUs / 1,000 · cost per FTE-year / 365.25", name="own_staff_per_day"),
    Row("own_energy_per_day", "Energy per GPU", formula=f"=IF(own_priced,{energy_per_day('gpu_row')},{NO_SERVER})",
        kind="money", unit="per GPU-day", note="24 · kW · power drawn · PUE · price per kWh",
        name="own_energy_per_day"),
    Row("own_cost_per_gpu_hour", "Owned cost per GPU-hour at full use", formula="=IF(own_priced,("
        f"own_depreciation_per_day+own_facility_per_day+own_staff_per_day+own_energy_per_day)/hours_per_day,{NO_SERVER})",
        kind="money", unit="per GPU-hour", note="(δ + φ + σ + ε) / 24", name="own_cost_per_gpu_hour", bold=True),
    Row("own_break_even_utilisation", "Break-even utilisation against on demand",
        formula=break_even("price_on_demand"), kind="percent", unit="of hours",
        note="c_own / p_od: owning costs less when the GPUs are busy more of the time",
        name="own_break_even_utilisation"),
    Row("own_break_even_utilisation_1y", "… against the 1-year price", formula=break_even("price_committed_1y"),
        kind="percent", unit="of hours", name="own_break_even_utilisation_1y"),
    Row("own_break_even_utilisation_3y", "… against the 3-year price", formula=break_even("price_committed_3y"),
        kind="percent", unit="of hours", name="own_break_even_utilisation_3y"),
    Row("own_training_held", "Owned GPUs that must be held for training", kind="count",
        formula="=IF(ownership_training,hours_gpus,0)", unit="GPUs", name="own_training_held",
        note="N_run when the owned GPUs train too (ownership.training), else 0"),
    Row("own_gpus", "Owned GPUs", formula='=IF(ownership_gpus="",IF(plan_serving_fits,MAX(MAX('
        "calendar_committed_gpus),own_training_held),plan_serving_reason),ownership_gpus)",
        kind="count",
        unit="GPUs", note="The owned GPUs on Inputs; blank: the plan's largest month (and N_run when they train)",
        name="own_gpus", bold=True),
    dated("own_start", "Bought on", "=IF(own_training_held>0,tco_start_date,launch_date)", "S when they train, else L"),
    dated("own_life_end", "Useful life ends", "=own_start+ownership_useful_life_years*days_per_year"),
    Row("own_capex", "Capex", formula=f'=IF(AND(NOT(plan_serving_fits),ownership_gpus=""),plan_serving_reason,'
        f'IF(own_priced,'
        f"own_gpus*{catalog('server_price')}*fx_rate,{NO_SERVER}))", kind="money0", unit="once, when bought",
        note="N_own · server price per GPU · fx", name="own_capex"),
    Row("own_book_value", "Book value when serving ends", formula=f'=IF(AND(NOT(plan_serving_fits),ownership_gpus='
        f'""),plan_serving_reason,IF(own_priced,own_capex-own_gpus*own_depreciation_per_day*MAX(0,MIN(serving_end,'
        f"own_life_end)-own_start),{NO_SERVER}))", kind="money0", unit="once, at E",
        note="Capex − the depreciation to E: credited back in the owned path's cash", name="own_book_value"),
    Row("own_utilisation", "The plan's own utilisation",
        formula=f"=IF(NOT(plan_serving_fits),plan_serving_reason,"
        f"IF(NOT(own_priced),{NO_SERVER},IF(AND(crossover_horizon_days>0,own_gpus>0),(SUM(calendar_serving_gpu_hours)"
        f"-SUM(calendar_burst_owned_gpu_hours))/(own_gpus*hours_per_day*crossover_horizon_days),{NO_SERVING})))",
        kind="percent", unit="of hours", note="(Σ U − the burst above N_own) / (N_own · 24 · horizon)",
        name="own_utilisation"),
]

PER_MILLION = [
    Row("cost_per_million_on_demand", "Per million output tokens, on demand", formula=per_million("price_on_demand"),
        kind="money", unit="per M tokens", note="p · 1e6 / (3600 · TokS) at the users",
        name="cost_per_million_on_demand"),
    Row("cost_per_million_committed_1y", "… committed 1 year", formula=per_million("price_committed_1y"),
        kind="money", unit="per M tokens", name="cost_per_million_committed_1y"),
    Row("cost_per_million_committed_3y", "… committed 3 years", formula=per_million("price_committed_3y"),
        kind="money", unit="per M tokens", name="cost_per_million_committed_3y"),
    Row("cost_per_million_spot", "… spot", formula=per_million("price_spot"), kind="money", unit="per M tokens",
        name="cost_per_million_spot"),
    Row("own_cost_per_million_tokens", "… owned at full use", formula=f"=IF(NOT(own_priced),{NO_SERVER},IF(AND("
        "plan_serving_fits,serving_tokens_per_s_per_gpu>0),"
        f"{model.cost_per_million_tokens('own_cost_per_gpu_hour', 'serving_tokens_per_s_per_gpu')},"
        "plan_serving_reason))", kind="money", unit="per M tokens",
        name="own_cost_per_million_tokens"),
    Row("own_cost_per_million_tokens_at_plan", "… owned at the plan's utilisation",
        formula=f"=IF(NOT(plan_serving_fits),plan_serving_reason,IF(NOT(own_priced),{NO_SERVER},IF(AND(ISNUMBER("
        "own_utilisation),own_utilisation>0,serving_tokens_per_s_per_gpu>0),own_cost_per_million_tokens/"
        f"own_utilisation,{NO_SERVING})))", kind="money", unit="per M tokens",
        name="own_cost_per_million_tokens_at_plan"),
    Row("tokens_per_s_per_mw", "Output tokens per second per MW", formula=f"=IF(NOT(own_priced),{NO_SERVER},IF(AND("
        f"plan_serving_fits,serving_tokens_per_s_per_gpu>0),serving_tokens_per_s_per_gpu*1000/({catalog('server_kw')}"
        f"*ownership_pue),plan_serving_reason))", kind="count", unit="tokens/s per MW",
        note="TokS · 1000 / (kW · PUE): all-in provisioned facility power", name="tokens_per_s_per_mw"),
]

PREMISES = [
    Row("plan_serving_fits", "The serving set-up fits (the roofline at the users)", formula="=serving_fits",
        kind="bool", unit="", note="Serving: users ≤ B_max. Where serving is sized by a Fleet, its SLO instead",
        name="plan_serving_fits"),
    Row("plan_serving_reason", "Why serving money reads n/a (blank while it fits)",
        formula=f'=IF(plan_serving_fits,"",{NOT_SERVED})', kind="text", unit="", note="Serving: users > B_max",
        name="plan_serving_reason"),
    Row("plan_rows_na", "Money that a plan too long for the rows leaves n/a", formula=f"=IF(NOT({WITHIN_ROWS}),"
        f"{TOO_LONG},\"\")", kind="text", unit="", note="Every money figure, when the plan needs more "
        "month rows than the Budget has", name="plan_rows_na"),
    Row("plan_money_na", "… and serving that does not fit", formula='=IF(plan_rows_na<>"",plan_rows_na,IF(NOT('
        'plan_serving_fits),plan_serving_reason,""))', kind="text", unit="", note="Serving money, the totals and NPVs: "
        "n/a with the reason (training and other costs stay)", name="plan_money_na"),
]


LINE_TOTAL = "SUM(calendar_own_training_depreciation)+SUM(calendar_own_training_opex)"  # the training GPUs' line


def path_total(key: str, *, rows_only: bool = False, line: bool = False):
    """A path's total of a Budget column, or the reason it has none: "n/a" for a plan too long for the rows (and,
    unless `rows_only`, for serving that does not fit); the owned path without a server price or kW. The owned
    path that owns training: its training GPUs' line (`line`, with a fleet), else 0 (they are the serving GPUs)."""
    def template(i: int) -> str:
        path = PATHS[i]
        na = "plan_rows_na" if rows_only else "plan_money_na"
        if key == "training":
            found = "SUM(calendar_training)" if path != "owned" else \
                f"IF(ownership_training,{LINE_TOTAL if line else 0},SUM(calendar_training))"
        elif key == "npv":
            found = f"SUMPRODUCT(calendar_{path}_cash,calendar_discount)"
        else:
            found = f"SUM(calendar_{path}_{key})"
        if path == "owned":
            found = f"IF(own_path_priced,{found},{NO_SERVER})"
        return f'=IF({na}<>"",{na},{found})'
    return template


TOTALS = [  # one row per path
    Column("training", "Training over the plan", template=path_total("training", rows_only=True), kind="money0"),
    Column("serving", "Serving over the plan", template=path_total("serving"), kind="money0"),
    Column("subtotal", "Subtotal over the plan (with other costs)", template=path_total("subtotal"), kind="money0"),
    Column("contingency", "Contingency over the plan", template=path_total("contingency"), kind="money0"),
    Column("total", "Total over the plan", template=path_total("total"), kind="money0"),
    Column("cash", "Cash over the plan (undiscounted; owned: after the money back: the GPUs sold at book value at "
           "the end)", template=path_total("cash"), kind="money0"),
    Column("npv", "NPV over the plan at the discount rate (owned: above its total, as the money back: the GPUs sold "
           "at book value at the end, is discounted most)", template=path_total("npv"), kind="money0"),
]
TOTAL_NAMES = {"training": "tco_{path}_training", "serving": "tco_{path}_serving", "subtotal": "tco_{path}_subtotal",
               "contingency": "tco_{path}_contingency", "total": "tco_{path}_total_cost", "cash": "tco_{path}_cash",
               "npv": "tco_{path}_npv"}


def chosen(key: str) -> str:
    """The chosen path's cell of a totals column."""
    name = TOTAL_NAMES[key]
    return (f'=IF(budget_path="committed",{name.format(path="committed")},IF(budget_path="owned",'
            f'{name.format(path="owned")},{name.format(path="on_demand")}))')


CHOSEN = [
    Row("other", "Other monthly costs over the plan", formula='=IF(plan_rows_na<>"",plan_rows_na,'
        "SUM(calendar_other))", kind="money0", unit="over the plan", note="Every path pays them",
        name="tco_other_cost"),
    Row("training", "The budget's path: training", formula=chosen("training"), kind="money0", unit="over the plan",
        name="tco_training_cost"),
    Row("training_basis", "… how it pays for training", kind="text", unit="", name="plan_training_basis",
        formula=f'=IF(AND(budget_path="owned",ownership_training),{text(answers.OWNED_TRAINING)},"at its tier ("&'
                'SUBSTITUTE(pricing_training_tier,"_","-")&"), over the run")',
        note="The Cover's words: the tier, or the owned GPUs' accrual when the owned path trains on them"),
    Row("serving", "… serving", formula=chosen("serving"), kind="money0", unit="over the plan",
        name="tco_serving_cost"),
    Row("subtotal", "… subtotal", formula=chosen("subtotal"), kind="money0", unit="over the plan",
        name="tco_subtotal"),
    Row("contingency", "… contingency", formula=chosen("contingency"), kind="money0", unit="over the plan",
        name="tco_contingency_cost"),
    Row("total", "… total: the plan's total", formula=chosen("total"), kind="money0", unit="over the plan",
        note="The path chosen on Inputs (budget_path); the Budget's, the Sensitivity's and the Cover's total",
        name="tco_total_cost", bold=True),
    Row("npv", "… its NPV", formula=chosen("npv"), kind="money0", unit="over the plan, as at its first month",
        note="Each month's cash at its end, discounted at (1 + r)^(−k/12)", name="tco_npv", bold=True),
]


# the average months' reason, where they have no total to start the bridge from (a run longer than their rows)
AVERAGE_NA = "IF(NOT(ISNUMBER(budget_average_month_total_cost)),budget_average_month_total_cost,"


def bridge_line(formula: str) -> str:
    """A bridge line to the cent (engine.values.to_the_cent), or the reason the plan's total has none."""
    return (f'=IF(plan_money_na<>"",plan_money_na,IF(AND(budget_path="owned",NOT(own_path_priced)),{NO_SERVER},'
            f"{AVERAGE_NA}ROUND({formula},2))))")


STANDBY_AT_E1 = ("IF(budget_include_standby,price_on_demand*(hours_per_day*SUMPRODUCT(calendar_serving_days,"
                 "calendar_committed_gpus)-SUM(calendar_serving_gpu_hours)),0)")
OTHER_AT_E1 = "budget_other_monthly_cost*fx_rate*SUMPRODUCT(calendar_plan_days/calendar_days)"
AT_OD = "SUM(calendar_serving_gpu_hours)*price_on_demand"
BRIDGE = [
    Row("average_month_total", "The average-month budget (Budget, average months)",
        formula=bridge_line("budget_average_month_total_cost"), kind="money0", unit="over the plan",
        note="Training, then serving in months of 30.4375 days", name="tco_bridge_average_month_total"),
    Row("standby", "Standby by calendar month, in place of the average months'",
        formula=bridge_line(f"{STANDBY_AT_E1}-IF(budget_include_standby,budget_standby_cost,0)"), kind="money0",
        unit="over the plan", note="Only when standby is in the total", name="tco_bridge_standby"),
    Row("training_tier", "Training at its tier", formula=bridge_line("training_tier_cost-budget_training_cost"),
        kind="money0", unit="over the plan", note="The tier's cost − Hours' cost at the on-demand price",
        name="tco_bridge_training_tier"),
    Row("calendar_months", "Calendar months", formula=bridge_line(f"{AT_OD}-budget_serving_cost"), kind="money0",
        unit="over the plan", note="Growth steps on each monthly anniversary, not every 30.4375 days: 0 without growth",
        name="tco_bridge_calendar_months"),
    Row("other", "Other monthly costs", formula=bridge_line(OTHER_AT_E1), kind="money0", unit="over the plan",
        note="At the first year's prices", name="tco_bridge_other"),
    Row("escalation", "Escalation", formula=bridge_line(f"tco_on_demand_subtotal-(training_tier_cost+{AT_OD}+"
        f"{STANDBY_AT_E1}+{OTHER_AT_E1})"), kind="money0", unit="over the plan",
        note="Prices after the first plan year",
        name="tco_bridge_escalation"),
    Row("path", "The path", formula=bridge_line("tco_subtotal-tco_on_demand_subtotal"), kind="money0",
        unit="over the plan",
        note="The chosen path's subtotal − on demand's", name="tco_bridge_path"),
    Row("contingency", "Contingency", formula=bridge_line("tco_contingency_cost"), kind="money0", unit="over the plan",
        name="tco_bridge_contingency"),
]
BRIDGE_TOTAL = Row("total", "The plan's total", kind="money0", unit="over the plan", bold=True, name="tco_bridge_total",
                   formula=f'=IF(plan_money_na<>"",plan_money_na,IF(AND(budget_path="owned",NOT(own_path_priced)),'
                           f'{NO_SERVER},{AVERAGE_NA}SUM(tco_bridge_average_month_total,tco_bridge_standby,'
                           "tco_bridge_training_tier,tco_bridge_calendar_months,tco_bridge_other,"
                           "tco_bridge_escalation,tco_bridge_path,tco_bridge_contingency))))",
                   note="The lines add up to the plan's total")


UNPRICED = 'AND(budget_path="owned",NOT(own_path_priced))'  # the budget's path is owned, without a server price or kW
PRICED = f'IF(plan_money_na<>"",plan_money_na,IF({UNPRICED},{NO_SERVER},'  # … then the figure, and "))"


def unit(formula: str, *, blank_without: str | None = None) -> str:
    """A unit-economics figure: n/a with the plan's reason; blank without the inputs it needs."""
    found = f"{PRICED}{formula}))"
    return f'=IF({blank_without},"",{found})' if blank_without else f"={found}"


PRICES_GIVEN = 'OR(unit_price_input_per_million="",unit_price_output_per_million="")'
UNIT = [
    Row("serving_cost", "Serving on the budget's path, with its contingency",
        formula=unit("tco_serving_cost*(1+budget_contingency)"), kind="money0", unit="over the plan",
        name="unit_serving_cost"),
    Row("requests", "Requests (first attempts)", formula=unit("SUM(calendar_requests)"), kind="count",
        unit="requests", note="Served tokens / output tokens per request", name="unit_requests"),
    Row("input_tokens", "Prompt tokens", formula=unit("SUM(calendar_requests)*serving_prompt_tokens"), kind="tera",
        unit="T tokens", name="unit_input_tokens"),
    Row("output_tokens", "Output tokens", formula=unit("SUM(calendar_served_tokens)"), kind="tera",
        unit="T tokens", name="unit_output_tokens"),
    Row("cost_per_request", "Cost per request", kind="money5", unit="per request",
        formula=f"=IF(NOT(AND(crossover_horizon_days>0,SUM(calendar_requests)>0)),{NO_SERVING},"
                f'{PRICED}unit_serving_cost/SUM(calendar_requests))))',
        name="unit_cost_per_request"),
    Row("cost_per_user_per_month", "Cost per active user per month", kind="money", unit="per user-month",
        formula=f'=IF(unit_active_users="","",IF(crossover_horizon_days=0,{NO_SERVING},IF(unit_active_users=0,'
                f'{NO_USERS},{PRICED}unit_serving_cost/(crossover_horizon_days/'
                "budget_days_per_month)/unit_active_users)))))", note="Blank without active users on Inputs",
        name="unit_cost_per_user_per_month"),
    Row("revenue", "Revenue at the prices charged", kind="money0", unit="over the plan",
        formula=unit("SUM(calendar_revenue)", blank_without=PRICES_GIVEN),
        note="(prompt tokens · input price + output tokens · output price) / 1e6 · fx; blank without both prices",
        name="unit_revenue"),
    Row("margin", "Contribution margin", kind="money0", unit="over the plan",
        formula=unit("unit_revenue-unit_serving_cost", blank_without=PRICES_GIVEN), name="unit_margin"),
    Row("margin_share", "… as a share of revenue", kind="percent", unit="of revenue",
        formula=f'=IF({PRICES_GIVEN},"",{PRICED}IF(unit_revenue>0,unit_margin/'
                f"unit_revenue,{NO_REVENUE}))))", name="unit_margin_share"),
    Row("plan_margin", "Margin after training, other costs and contingency", kind="money0", unit="over the plan",
        formula=unit("unit_revenue-tco_total_cost", blank_without=PRICES_GIVEN), name="unit_plan_margin"),
    Row("break_even_price_output", "Break-even price per million output tokens", kind="money",
        unit="per M tokens", formula=f'=IF({PRICES_GIVEN},"",IF(unit_output_tokens=0,{NO_SERVING},{PRICED}'
        '(unit_serving_cost-unit_input_tokens*unit_price_input_per_million*fx_rate/per_million)/'
        "(unit_output_tokens/per_million)))))", note="At the input price charged", name="unit_break_even_price_output"),
]

WARNINGS = [
    Row("tco_warn_rate_one_outside_usd", "A currency other than USD at a rate of 1", kind="bool", unit="",
        formula='=AND(currency<>"USD",fx_rate=1)', note="Right for currencies pegged at 1 (PAB, BSD, BMD)",
        warn="true", name="tco_warn_rate_one_outside_usd"),
    Row("tco_warn_plan_outlives_owned_gpus", "The plan outlives the owned GPUs' useful life", kind="bool", unit="",
        formula="=AND(own_priced,serving_end>own_life_end)", note="Replacing them is not modelled", warn="true",
        name="tco_warn_plan_outlives_owned_gpus"),
    Row("tco_warn_baseline_above_demand", "The baseline exceeds every month's GPUs", kind="bool", unit="",
        formula="=AND(ISNUMBER(serving_baseline_gpus_used),serving_baseline_gpus_used>0,"
                "serving_baseline_gpus_used>MAX(calendar_committed_gpus))", note="Committed GPUs never all needed",
        warn="true", name="tco_warn_baseline_above_demand"),
    Row("tco_warn_training_commitment_unused", "A committed training tier leaves over half its commitment unused",
        kind="bool", unit="", formula="=AND(training_term_months>0,training_unused_cost>0.5*training_tier_cost)",
        warn="true", name="tco_warn_training_commitment_unused"),
    Row("tco_warn_commitment_longer_than_serving", "The baseline's term is longer than the serving it covers",
        kind="bool", unit="", formula="=AND(ISNUMBER(serving_baseline_gpus_used),serving_baseline_gpus_used>0,"
        "serving_commitment_months<serving_term_months)", note="Paid to the end of the term", warn="true",
        name="tco_warn_commitment_longer_than_serving"),
    Row("tco_warn_serving_does_not_fit", "Serving does not fit", kind="bool", unit="",
        formula="=NOT(plan_serving_fits)", note="Serving money is n/a (Serving: users > B_max)", warn="true",
        name="tco_warn_serving_does_not_fit"),
]
PROFILE = [Column("fraction", "Fraction of the peak", kind="percent",
                  template=lambda i: f"=INDEX(catalog_profile_fractions,{i + 1},MATCH(cluster_profile,"
                                     "catalog_profile_ids,0))")]
FLEET_PROFILE = [Column("fraction", "Fraction of the peak", kind="percent",
                        template=lambda i: f'=IF(fleet_profile="none",1,INDEX(catalog_profile_fractions,{i + 1},'
                                           'MATCH(IF(fleet_profile="cluster",cluster_profile,fleet_profile),'
                                           "catalog_profile_ids,0)))")]


def training_tier_price(tier: str) -> str:
    """The training GPU's price at a tier (its Catalog quote × fx, else the ratio × its on-demand price)."""
    quote = f"INDEX(catalog_gpu_price_{tier},training_gpu_row)"
    return f'IF({quote}="",pricing_{tier}_ratio*price_per_gpu_hour_converted,{quote}*fx_rate)'


# With a fleet (§13.15, "One serving GPU"; §11): serving on the Fleet's cheapest GPU, sized by its configuration
FLEET_STALE = shared.FLEET_STALE  # its batches and replicas no longer hold
FLEET_UNPRICED = "n/a: a Fleet GPU has no price above 0 on Catalog: see Checks"  # fleet_gpus_priced fails
FLEET_ROWS = {
    "gpu_row": Row("gpu_row", "The serving GPU's Catalog row (the Fleet's cheapest)",
                   formula="=IF(ISNUMBER(MATCH(fleet_cheapest_gpu,catalog_gpu_ids,0)),MATCH(fleet_cheapest_gpu,"
                           "catalog_gpu_ids,0),MATCH(gpu,catalog_gpu_ids,0))", kind="count", unit="",
                   note="Training keeps the GPU on Inputs (its row below)", name="gpu_row"),
    "price_on_demand": Row("price_on_demand", "On demand (the serving GPU)",
                           formula="=IF(INDEX(catalog_gpu_ids,gpu_row)=gpu,price_per_gpu_hour_converted,"
                                   "INDEX(catalog_gpu_price_per_hour,gpu_row)*fx_rate)", kind="money",
                           unit="per GPU-hour", note="The serving GPU's price per GPU-hour × fx",
                           name="price_on_demand", bold=True),
    "price_training": Row("price_training", "Training's price (the training GPU)", formula='=IF('
                          f'pricing_training_tier="spot",{training_tier_price("spot")},IF(pricing_training_tier='
                          f'"committed_1y",{training_tier_price("committed_1y")},IF(pricing_training_tier='
                          f'"committed_3y",{training_tier_price("committed_3y")},price_per_gpu_hour_converted)))',
                          kind="money", unit="per GPU-hour", note="At the training tier, on the GPU on Inputs",
                          name="price_training"),
    "plan_serving_fits": Row("plan_serving_fits", "Some Fleet configuration meets the SLO, as searched",
                             formula="=AND(ISNUMBER(fleet_cheapest_cost_per_hour),fleet_rows_hold,"
                                     "ok_fleet_gpus_priced,fleet_cheapest_mixed<>TRUE)", kind="bool",
                             unit="", name="plan_serving_fits", note="Serving is sized by the Fleet: its SLO, not the "
                             "users; its rows hold at the Fleet's inputs (else run the planner again)"),
    "plan_serving_reason": Row("plan_serving_reason", "Why serving money reads n/a (blank while it fits)",
                               formula=f"=IF(NOT(fleet_rows_hold),{text(FLEET_STALE)},IF(NOT(ok_fleet_gpus_priced),"
                                       f'{text(FLEET_UNPRICED)},IF(plan_serving_fits,"",IF(fleet_cheapest_mixed=TRUE,'
                                       f"{text(shared.FLEET_MIXED)},{text(shared.NO_FLEET_SERVES)}))))", kind="text",
                               unit="",
                               note="No configuration meets the SLO, or the Fleet's inputs changed since the search",
                               name="plan_serving_reason"),
    "launch_scale": Row("launch_scale", "GPUs in use at a profile fraction of 1, launch month",
                        formula="=IF(plan_serving_fits,IF(SUM(plan_profile)>0,fleet_plan_gpu_hours_a_day/"
                                "SUM(plan_profile),0),plan_serving_reason)", kind="number", unit="GPUs, a fraction",
                        note="The Fleet's GPU-hours a day at launch / Σf", name="launch_scale"),
    "serving_baseline_gpus_suggested": Row(
        "serving_baseline_gpus_suggested", "Suggested baseline", formula="=IF(NOT(plan_serving_fits),"
        "plan_serving_reason,IF(ISTEXT(baseline_hours),0,IF(price_baseline_effective>=price_on_demand,0,INT(ROUND(LARGE("
        "fleet_plan_launch_gpus,baseline_hours),gpu_rounding_decimals)))))", kind="count", unit="GPUs",
        note="The h*-th largest of the Fleet's GPUs over the launch day: those busy at least h* hours a day",
        name="serving_baseline_gpus_suggested"),
}
def _not_for_a_mixed_fleet(row: Row) -> Row:
    """A row that reads one serving GPU's typed count, n/a while the Fleet's cheapest is mixed (§15.1): its pools
    take a pair, priced in the HTML and the JSON; a number typed on Inputs fails the Fleet's check instead of
    pricing the pools on one GPU."""
    return replace(row, formula="=IF(fleet_cheapest_mixed=TRUE,plan_serving_reason," + row.formula[1:] + ")")


FLEET_ROWS |= {row.key: _not_for_a_mixed_fleet(row) for row in BASELINE + OWNING
               if row.key in ("serving_baseline_gpus_used", "own_gpus", "own_capex", "own_book_value")}
# Owned training on a GPU type no serving GPU is (§13.15 "One serving GPU": "the owned path buys two GPU types, each
# on its own line"; §15.1: three with a mixed fleet): N_run of the GPU on Inputs, owned as the fleet is, bought on S
def training_catalog(key: str) -> str:
    """The training GPU's Catalog value of `key` (the GPU on Inputs)."""
    return f"INDEX(catalog_gpu_{key},training_gpu_row)"


def on_the_line(formula: str) -> str:
    """A rate of the training line: 0 without the line, n/a without the training GPU's server price or kW."""
    return f"=IF(NOT(own_training_separate),0,IF(own_training_priced,{formula},{NO_SERVER}))"


SERVING_GPU = "INDEX(catalog_gpu_ids,gpu_row)"  # the serving GPU's id: the Fleet's cheapest, or `gpu`
TRAINING_LINE = [
    Row("own_training_separate", "The owned GPUs that train are a type of their own (a line of their own)",
        formula=f"=AND(ownership_training,{SERVING_GPU}<>gpu)", kind="bool", unit="", name="own_training_separate",
        note="ownership.training, and the GPU on Inputs is not the serving GPU: each type on its own line"),
    Row("own_training_gpus", "Owned training GPUs on their own line", formula="=IF(own_training_separate,hours_gpus,0)",
        kind="count", unit="GPUs", name="own_training_gpus",
        note="N_run of the GPU on Inputs; 0: training rents, or shares the owned GPUs"),
    Row("own_training_priced", "… their server price and kW are given (or there is no line)", kind="bool", unit="",
        formula=f"=OR(NOT(own_training_separate),AND(ISNUMBER({training_catalog('server_price')}),"
                f"ISNUMBER({training_catalog('server_kw')})))", note="Catalog, the GPU on Inputs' row",
        name="own_training_priced"),
    Row("own_training_depreciation_per_day", "… depreciation per training GPU", kind="money", unit="per GPU-day",
        formula=on_the_line(depreciation_per_day("training_gpu_row")),
        note="δ of the training GPU: P · (1 − R) / (Y · 365.25)", name="own_training_depreciation_per_day"),
    Row("own_training_running_per_day", "… running costs per training GPU", kind="money", unit="per GPU-day",
        formula=on_the_line(running_per_day("training_gpu_row")),
        note="φ + σ + ε of the training GPU", name="own_training_running_per_day"),
    dated("own_training_life_end", "… their useful life ends", "=tco_start_date+ownership_useful_life_years*"
          "days_per_year", "Bought on S"),
    Row("own_training_capex", "… their capex", kind="money0", unit="once, on S", name="own_training_capex",
        formula=f"=IF(own_training_gpus=0,0,IF(own_training_priced,own_training_gpus*"
                f"{training_catalog('server_price')}*fx_rate,{NO_SERVER}))", note="N_run · server price · fx"),
    Row("own_training_book_value", "… their book value when serving ends", kind="money0", unit="once, at E",
        formula="=IF(own_training_gpus=0,0,IF(own_training_priced,own_training_capex-own_training_gpus*"
                "own_training_depreciation_per_day*MAX(0,MIN(serving_end,own_training_life_end)-tco_start_date),"
                f"{NO_SERVER}))", note="Credited back in the owned path's cash", name="own_training_book_value"),
    Row("own_path_priced", "The owned path is priced (the serving GPU's server, and the training line's)",
        formula="=AND(own_priced,own_training_priced)", kind="bool", unit="", name="own_path_priced"),
]
OWN_PATH_PRICED = "own_path_priced"  # without a fleet: another name for own_priced (the line cannot exist)
MIXED_SEPARATE = ("=AND(ownership_training,INDEX(catalog_gpu_ids,gpu_row_p)<>gpu,INDEX(catalog_gpu_ids,gpu_row_d)"
                  "<>gpu)")  # a mixed fleet's: neither pool serves on the GPU on Inputs (§15.1: a third type)
FLEET_ROWS |= {
    "own_training_held": replace(next(row for row in OWNING if row.key == "own_training_held"),
                                 formula="=IF(AND(ownership_training,NOT(own_training_separate)),hours_gpus,0)",
                                 note="N_run when the owned GPUs train too, on their type; else 0 (a line of "
                                      "its own below, or rented)")}
FLEET_ROWS["tco_warn_plan_outlives_owned_gpus"] = replace(
    next(row for row in WARNINGS if row.key == "tco_warn_plan_outlives_owned_gpus"),
    formula="=OR(AND(own_priced,serving_end>own_life_end),AND(own_training_gpus>0,own_training_priced,"
            "serving_end>own_training_life_end))", note="The serving GPUs', or the training GPUs' own line's")
TRAINING_GPU_ROW = Row("training_gpu_row", "The training GPU's Catalog row", formula="=MATCH(gpu,catalog_gpu_ids,0)",
                       kind="count", unit="", name="training_gpu_row")


# With a layout search: a training run past its deadline leaves every money figure n/a, as a plan too long does
PAST_DEADLINE = text(shared.PAST_DEADLINE)
BLANK = '""'  # Excel's empty text: the premise holds


def on_time(formula: str) -> str:
    """The formula, or why it is n/a: Hours' days past the layout search's deadline (blank: no deadline)."""
    return f"IF(AND(NOT(ISBLANK(search_deadline_days)),hours_days>search_deadline_days),{PAST_DEADLINE},{formula})"


DEADLINE_ROWS = {"plan_rows_na": Row(
    "plan_rows_na", "Money that a plan too long for the rows, or a run past the deadline, leaves n/a",
    formula=f"=IF(NOT({WITHIN_ROWS}),{TOO_LONG},{on_time(BLANK)})", kind="text", unit="",
    note="Every money figure, when the plan needs more month rows than the Budget has or Hours' days exceed the "
         "deadline on Inputs (blank: none)", name="plan_rows_na")}


def swapped_rows(rows: list[Row], when: bool, replacements: dict[str, Row]) -> list[Row]:
    """The rows, those with a replacement swapped for it when the scenario has the section (a fleet, a search)."""
    return [replacements.get(row.key, row) if when else row for row in rows]


def fleet_rows(rows: list[Row], fleet: bool) -> list[Row]:
    return swapped_rows(rows, fleet, FLEET_ROWS)



def _values(book: kit.Book, results) -> dict:
    """Each row's engine value, by row key."""
    table, scenario = results.cost, results.scenario
    s, totals, u = table.scalars, table.totals, table.unit
    gpu = scenario.merged_catalog.gpus[plan_inputs.serving_gpu(scenario, results.tables)]
    rows = [key for key, _ in laid_out(book, GPUS, scenario.merged_catalog.gpus)]
    found = dict(s)
    found |= {"start_date": s["start_date"], "months": s["months"], "plan_serving_fits": table.plan.serving_fits,
              "gpu_row": 1 + rows.index(gpu.id), "training_gpu_row": 1 + rows.index(scenario.gpu),
              "own_priced": gpu.server_price is not None and gpu.server_kw is not None,
              "generated_on": serial(results.generated)}
    if table.pools is not None:  # each pool's GPU (§15.1)
        for pool, (pool_gpu, _) in table.pools.pools.items():
            server = scenario.merged_catalog.gpus[pool_gpu]
            found |= {pool_name("gpu_row", pool): 1 + rows.index(pool_gpu),
                      pool_name("own_priced", pool): server.server_price is not None and server.server_kw is not None}
        found |= {"plan_pools_fit": True, "own_priced": found["own_priced_p"] and found["own_priced_d"]}
    found["own_path_priced"] = found["own_priced"] and s.get("own_training_priced", True)
    found |= {"plan_rows_na": engine.rows_na(table),
              "plan_money_na": engine.money_na(table),
              "plan_serving_reason": "" if table.plan.serving_fits else table.plan.serving_na}
    for tier in SOURCES:
        quote = getattr(gpu, f"price_{tier}")
        ratio = getattr(scenario.pricing, f"{tier}_ratio")
        found[f"{tier}_source"] = (f"Ratio {kit.excel_fixed(ratio * 100, 0)}% of on demand (no quote)" if quote is None
                                   else f"{getattr(gpu, f'price_{tier}_source') or ''} "
                                        f"{getattr(gpu, f'price_{tier}_as_of') or ''}")
    found |= {key: totals[f"{results.cost.scalars['path']}_{key}"] for key in ("training", "serving", "subtotal",
                                                                                "contingency", "total", "npv")}
    found |= {"other": totals["other"], "contingency": totals[f"{s['path']}_contingency"],
              "training_basis": table.headline["plan_training_basis"]}
    bridge = {line["line"]: line["amount"] for line in table.bridge}
    reason = found["plan_money_na"]
    found |= {f"bridge_{row.key}": bridge.get(row.key, reason) for row in BRIDGE + [BRIDGE_TOTAL]}
    found |= {f"unit_{key}": ("" if value is None else value) for key, value in u.items()}
    found |= table.warnings
    return found


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.cost
    values = _values(book, results)
    sheet = book.sheet(SHEET, [(PATH_LABELS[path], 15) for path in PATHS], label_width=44, unit_width=17,
                       note_width=48)
    sheet.scalar_col = 1  # a named cell in the first column; the three paths side by side in the totals
    sheet.title("Cost of ownership: prices, owning, the three paths and the plan's total", "docs/method.md §13: "
                "each money input × the FX rate where it enters; the month rows are on Budget.")
    sheet.section("The calendar")
    sheet.constant("generated_on", "Generated on", values["generated_on"], kind="date", unit="",
                   note="The day the planner wrote this workbook: a blank start date follows it")
    sheet.rows(CALENDAR, values)
    sheet.skip()
    fleet = results.scenario.fleet is not None
    mixed = table.pools is not None  # the Fleet's cheapest mixes two GPU types (§15.1): priced per pool
    one_gpu = pooled_one_gpu if mixed else list
    sheet.section("Whether the plan's money can be priced")
    premises = swapped_rows(fleet_rows(PREMISES, fleet), results.scenario.search is not None, DEADLINE_ROWS)
    sheet.rows(mixed_premises(premises) if mixed else premises, values)
    sheet.skip()
    if fleet:
        fleet_section(book, sheet, results)
    _prices(sheet, one_gpu(fleet_rows(PRICES, fleet)), values, fleet)
    for title, rows in (("Training at its tier", TRAINING),
                        ("The serving baseline of the committed path (the newsvendor rule)", BASELINE),
                        ("Owning GPUs", OWNING), ("Per million output tokens and per megawatt, at the users",
                                                  PER_MILLION)):
        sheet.section(title)
        sheet.rows(one_gpu(fleet_rows(rows, fleet)), values)
        if rows is OWNING and fleet:
            sheet.rows([replace(row, formula=MIXED_SEPARATE) if mixed and row.key == "own_training_separate" else row
                        for row in TRAINING_LINE], values)
        sheet.skip()
    if mixed:
        _pools(sheet, table.pools, results.scenario, values)
    _profile(book, sheet, table.plan.profile, fleet)
    sheet.section("The three paths over the plan (the Budget's month rows summed)")
    _path_totals(book, sheet, table, fleet)
    sheet.skip()
    sheet.section("The budget's path (budget.path on Inputs)")
    sheet.rows(CHOSEN, {row.key: values[row.key] for row in CHOSEN})
    sheet.skip()
    sheet.section("From the average-month budget to the plan's total")
    for row in BRIDGE + [BRIDGE_TOTAL]:
        sheet.row(replace(row, formula=pooled_bridge(row.formula)) if mixed else row, values[f"bridge_{row.key}"])
    sheet.skip()
    sheet.section("Unit economics, on the budget's path")
    sheet.rows(UNIT, {row.key: values[f"unit_{row.key}"] for row in UNIT})
    sheet.skip()
    sheet.row(STANDBY_NOTE, table.headline["plan_standby_note"])
    sheet.skip()
    sheet.section("Warnings (TRUE: it holds; the plan is still priced)")
    sheet.rows(pooled_warnings(fleet_rows(WARNINGS, fleet)) if mixed else fleet_rows(WARNINGS, fleet), values)
    for alias, name in ALIASES.items() | ({} if fleet else {OWN_PATH_PRICED: "own_priced"}).items():
        book.define(alias, SHEET, book.names[name][1], values[name])  # names for cells the formulas read
    # the plan's one total (the Cover's first key result) is the budget's path's total, written here
    book.define("plan_total_cost", SHEET, book.names["tco_total_cost"][1], table.headline["plan_total_cost"])
    return sheet


ALIASES = {"tco_launch_date": "launch_date", "tco_end_date": "serving_end",
           "pricing_committed_1y_price": "price_committed_1y", "pricing_committed_3y_price": "price_committed_3y",
           "pricing_spot_price": "price_spot"}


def _path_totals(book: kit.Book, sheet: kit.Sheet, table, fleet: bool) -> None:
    """Each path's totals over the plan, a column each, named tco_<path>_…: "n/a: see Checks" while an input fails."""
    heading = sheet.heading_row(["Over the plan"] + [PATH_LABELS[path] for path in PATHS])
    rows = {}
    for column in TOTALS:
        r = rows[column.key] = sheet.row_index
        sheet._label(r, column.header)
        for i, path in enumerate(PATHS):
            name, value = TOTAL_NAMES[column.key].format(path=path), table.totals[f"{path}_{column.key}"]
            formula = (path_total("training", rows_only=True, line=True)(i) if fleet and column.key == "training"
                       else column.template(i))
            cell = sheet.formula(r, 1 + i, formula, value, book.styles.value(column.kind),
                                 fallback=kit.NOT_AVAILABLE, gated=name in book.headline)
            book.define(name, SHEET, cell, value)
        sheet.row_index += 1
    sheet.column_chart([(name, [SHEET, heading, 1, heading, len(PATHS)], [SHEET, rows[key], 1, rows[key], len(PATHS)],
                         colour) for key, name, colour in (("total", "Total over the plan", "#4472C4"),
                                                           ("npv", "NPV", "#ED7D31"))],
                       title="The three paths: total and NPV over the plan",
                       y_axis={"num_format": book.number_format("money0")}, height=300, width=620)


def _profile(book: kit.Book, sheet: kit.Sheet, profile: tuple, fleet: bool) -> None:
    """The plan's demand profile: 24 fractions of the peak, named plan_profile (the Fleet's with a fleet, else the
    chosen Cluster profile)."""
    sheet.section("The plan's demand profile (" + ("the Fleet's profile on Inputs; none: 1 every hour)" if fleet
                                                   else "Cluster's profile on Inputs)"))
    _, first, last = sheet.records(list(range(24)), FLEET_PROFILE if fleet else PROFILE,
                                   [{"fraction": f} for f in profile], label_header="Hour")
    col = sheet.places["fraction"].col
    book.define("plan_profile", SHEET, f"{kit.xl_rowcol_to_cell(first, col)}:{kit.xl_rowcol_to_cell(last, col)}")
    sheet.skip()


def _check(key: str, label: str, formula: str, note: str = "", about: tuple = ()) -> Check:
    return Check(key, label, formula=formula, note=note, about=about)


def unless(conditions: str, test: str) -> str:
    """TRUE when any of the conditions holds, else the test: IF, not OR, so a test of text ("n/a …") is never
    evaluated (OR evaluates every argument, and ABS of text is an error)."""
    return f"IF(OR({conditions}),TRUE,{test})"


def close(a: str, b: str) -> str:
    """Equal to a relative 1e-9, as the engine's reconciliations."""
    return f"ABS(({a})-({b}))<=1e-9*MAX(ABS({a}),ABS({b}))"


CHECKS = [
    _check("tco_start_date_in_range", "Cost: the start date is a date from 2000 to 2100",
           f"AND(tco_start_date>={engine.FIRST_START},tco_start_date<{engine.LAST_START + 1})",
           "budget.start_date on Inputs"),
    _check("tco_first_fiscal_month_valid", "Cost: the fiscal year's first month is 1 to 12",
           "AND(budget_first_fiscal_month>=1,budget_first_fiscal_month<=12,"
           "budget_first_fiscal_month=INT(budget_first_fiscal_month))", "budget.first_fiscal_month"),
    _check("tco_fx_rate_positive", "Cost: the FX rate is above 0", "fx_rate>0", "fx_rate on Inputs"),
    _check("tco_fx_rate_one_for_usd", "Cost: a USD report takes a rate of 1", 'OR(currency<>"USD",fx_rate=1)',
           "fx_rate, or the currency"),
    _check("tco_profile_has_demand", "Cost: the demand profile has an hour above 0", "SUM(plan_profile)>0",
           "cluster.profile (its Catalog fractions)"),
    _check("tco_horizon_not_negative", "Cost: the horizon is 0 days or more", "crossover_horizon_days>=0",
           "crossover.horizon_days"),
    _check("tco_owned_training_gpus", "Cost: owned training has at least the run's GPUs",
           "OR(ISTEXT(own_gpus),own_gpus>=own_training_held)", "ownership.gpus"),
    _check("tco_months_within_rows", "Cost: the plan fits the Budget's calendar month rows",
           unless("NOT(ISNUMBER(tco_months))", WITHIN_ROWS),
           "Run the planner again (or raise budget.spare_months) for a longer run or horizon; money reads n/a "
           "otherwise (an input that fails its own check leaves it n/a)"),
    _check("tco_training_days_add_up", "Cost: the months' training days add up to D_tr",
           "ABS(SUM(calendar_training_days)-training_days)<=1e-9*MAX(training_days,1)",
           "To a billionth of a day"),
    _check("tco_serving_days_add_up", "Cost: the months' serving days add up to the horizon",
           "ABS(SUM(calendar_serving_days)-crossover_horizon_days)<=1e-9*MAX(crossover_horizon_days,1)",
           "To a billionth of a day"),
    _check("tco_training_cost_adds_up", "Cost: the months' training adds up to the tier's cost",
           "IF(training_term_months>0," + close("SUM(calendar_training)", "training_tier_cost") + ","
           "OR(NOT(ISNUMBER(tco_training_cost)),training_days=0,ABS(training_tier_cost/training_days*SUM("
           "calendar_training_days)-training_tier_cost)<=1e-9*training_tier_cost/MIN(training_days,1)))",
           "To a billionth of a day's training spend"),
    _check("tco_calendar_months_without_growth", "Cost: without growth, calendar months change nothing",
           unless("budget_monthly_growth<>0,NOT(ISNUMBER(tco_bridge_calendar_months))",
                  "ABS(tco_bridge_calendar_months)<=1e-9*ABS(budget_serving_cost)")),
    _check("tco_average_month_reconciles", "Cost: at the defaults, on demand equals the average-month budget",
           unless('budget_monthly_growth<>0,budget_escalation<>0,pricing_training_tier<>"on_demand",'
                  "NOT(ISNUMBER(budget_average_month_total_cost)),NOT(ISNUMBER(tco_on_demand_subtotal))",
                  close("tco_on_demand_subtotal-tco_other_cost-IF(budget_include_standby,SUM(calendar_standby),0)",
                        "budget_training_cost+budget_serving_cost"))),
    _check("tco_fiscal_years_add_up", "Cost: the fiscal years add up to the plan's total",
           unless("NOT(ISNUMBER(tco_total_cost))", close("fiscal_years_total", "tco_total_cost"))),
    _check("tco_owned_cash_equals_accrual", "Cost: the owned path's cash adds up to its accrual",
           unless("NOT(ISNUMBER(tco_owned_total_cost))",
                  close("SUM(calendar_owned_cash)", "SUM(calendar_owned_total)"))),
]

STANDBY_NOTE = Row("plan_standby_note", "Standby", kind="text", unit="", name="plan_standby_note",
                   formula=f'=IF(budget_include_standby,IF(budget_path="on_demand",'
                           f'"{engine.STANDBY_NOTES["on_demand"]}",'
                           f'"{engine.STANDBY_NOTES["other"]}"),"{engine.STANDBY_NOTES["none"]}")')

KEY_RESULTS = [
    KeyResult("plan_total_cost", "The plan's total: the {budget_path|words} path over {tco_months|count} calendar "
              "months, with escalation and contingency", kind="money0", unit="", first=True),
    KeyResult("tco_npv", "… its NPV over the plan at {budget_discount_rate|percent} a year", kind="money0", unit="",
              first=True),
    KeyResult("plan_standby_note", "Standby", kind="text", unit="", first=True),
]


# The Fleet in the plan ------------------------------------------------------------------------------------------------
# (docs/method.md §11, "The fleet in the plan"; §13.9): with a `fleet` section the plan's
# serving is the Fleet's cheapest configuration at launch, its replicas scaled to each month's rate. The Cost sheet
# holds that configuration's two pools (aggregated: one) and its replicas hour by hour; the Budget's month rows hold
# its GPUs in each hour at the month's rate, from which the used GPU-hours, the peak-sized GPUs and the burst follow;
# the average months read the same row of the calendar. Without a fleet nothing here is written.

FLEET_CHOSEN = ("mode", "tensor_parallel", "prefill_tensor_parallel", "replicas", "prefill_replicas", "decode_replicas")
FLEET_HOURLY = ("replicas", "prefill_replicas", "decode_replicas")  # the Fleet's day columns of replicas each hour
FLEET_RATE = "(1+budget_monthly_growth)^({label}-launch_month)"  # λ_k/λ: the month's rate from its growth anniversary


def fleet_chosen(key: str) -> str:
    """The Fleet's cheapest configuration's value (the Candidates table's first row); 0 when no configuration
    meets the SLO (the first row is then one that does not)."""
    return f"IF(plan_serving_fits,N(fleet_chosen_{key}),0)"


def fleet_pool(replicas: str, parallel: str) -> str:
    """A pool's GPUs with spares: CEIL9(n·(1 + r_f))·t."""
    return f"CEILING(ROUND(({replicas})*(1+fleet_spare),gpu_rounding_decimals),1)*{parallel}"


def fleet_scaled(replicas: str, rate: str) -> str:
    """n_k = MAX(n, CEIL9(n·λ_k/λ)): the replicas at a month's rate, never below the launch's."""
    return f"MAX({replicas},CEILING(ROUND({replicas}*{rate},gpu_rounding_decimals),1))"


def fleet_gpus(first: str, second: str, rate: str | None = None) -> str:
    """Both pools' GPUs with spares at these replicas (scaled to a month's rate when given)."""
    if rate is not None:
        first, second = fleet_scaled(first, rate), fleet_scaled(second, rate)
    return f"{fleet_pool(first, 'fleet_plan_first_parallel')}+{fleet_pool(second, 'fleet_plan_second_parallel')}"


FLEET_AGGREGATED = 'fleet_chosen_mode="aggregated"'
FLEET_CONFIGURATION = [
    Row("fleet_plan_first_parallel", "First pool's GPUs per replica (t; disaggregated: prefill t_p)",
        formula=f"=IF({FLEET_AGGREGATED},{fleet_chosen('tensor_parallel')},"
                f"{fleet_chosen('prefill_tensor_parallel')})", kind="count", unit="GPUs",
        note="The Fleet's cheapest configuration (its Candidates table's first row)",
        name="fleet_plan_first_parallel"),
    Row("fleet_plan_second_parallel", "Second pool's GPUs per replica (disaggregated: decode t_d)",
        formula=f"=IF({FLEET_AGGREGATED},0,{fleet_chosen('tensor_parallel')})", kind="count", unit="GPUs",
        note="0 aggregated: one pool", name="fleet_plan_second_parallel"),
    Row("fleet_plan_first_peak", "First pool's replicas at the peak (n; prefill x)",
        formula=f"=IF({FLEET_AGGREGATED},{fleet_chosen('replicas')},{fleet_chosen('prefill_replicas')})",
        kind="count", unit="replicas", name="fleet_plan_first_peak"),
    Row("fleet_plan_second_peak", "Second pool's replicas at the peak (decode y)",
        formula=f"=IF({FLEET_AGGREGATED},0,{fleet_chosen('decode_replicas')})", kind="count", unit="replicas",
        name="fleet_plan_second_peak"),
]
FLEET_LAUNCH_TOTAL = Row("fleet_plan_gpu_hours_a_day", "GPU-hours a day at launch (the fleet that follows demand)",
                         formula="=SUM(fleet_plan_launch_gpus)", kind="count", unit="GPU-hours a day",
                         note="Without a profile, the peak-sized fleet all day", name="fleet_plan_gpu_hours_a_day")


def fleet_hour_columns(with_day: bool) -> list[Column]:
    """The Cost sheet's 24 hours: each pool's replicas in hour h of the launch month (the Fleet's day, or the peak's
    every hour without a profile) and their GPUs with spares."""
    def first(i: int) -> str:
        if not with_day:
            return "=fleet_plan_first_peak"
        return (f"=IF({FLEET_AGGREGATED},INDEX(fleet_hour_replicas,{i + 1}),"
                f"INDEX(fleet_hour_prefill_replicas,{i + 1}))")

    def second(i: int) -> str:
        return f"=IF({FLEET_AGGREGATED},0,INDEX(fleet_hour_decode_replicas,{i + 1}))" if with_day else \
            "=fleet_plan_second_peak"

    return [Column("first_replicas", "First pool's replicas", kind="count", template=first),
            Column("second_replicas", "Second pool's replicas", kind="count", template=second),
            Column("launch_gpus", "GPUs at launch G_h", kind="count",
                   template="=" + fleet_gpus("{first_replicas}", "{second_replicas}"))]


def fleet_section(book: kit.Book, sheet: kit.Sheet, results) -> None:
    """The Fleet's configuration at launch and its replicas hour by hour (named ranges the month rows read)."""
    fleet, table, mixed = results.cost.plan.fleet, results.fleet, results.cost.pools
    fleet = mixed.fleet if mixed else fleet  # a mixed fleet (§15.1): both pools, each priced on its own GPU
    sheet.section("Serving sized by the Fleet: its cheapest configuration at launch (§11)")
    aggregated = fleet is None or len(fleet.parallel) == 1
    parallel = (fleet.parallel + (0,))[:2] if fleet else (0, 0)
    peak = (fleet.peak + (0,))[:2] if fleet else (0, 0)
    configuration = [replace(row, formula=row.formula.replace("plan_serving_fits", "plan_pools_fit"))
                     for row in FLEET_CONFIGURATION] if mixed \
        else FLEET_CONFIGURATION  # read while the pools fit: plan_serving_fits is one GPU's
    sheet.rows(configuration, {"fleet_plan_first_parallel": parallel[0],
                                     "fleet_plan_second_parallel": parallel[1],
                                     "fleet_plan_first_peak": peak[0], "fleet_plan_second_peak": peak[1]})
    hours = fleet.hourly if fleet and fleet.hourly else [peak] * HOURS_PER_DAY
    launch = fleet.hours(1.0) if fleet else [0] * HOURS_PER_DAY
    rows = [{"first_replicas": h[0], "second_replicas": 0 if aggregated else h[1], "launch_gpus": g}
            for h, g in zip(hours, launch)]
    columns = fleet_hour_columns(bool(table.day) and fleet is not None)
    if mixed:  # each pool's GPUs hour by hour: its baseline's newsvendor rule reads them (§15.1)
        columns += [Column(f"launch_gpus{end}", f"{POOL_WORDS[pool]}: GPUs at launch", kind="count",
                           template="=" + fleet_pool("{" + side + "_replicas}", f"fleet_plan_{side}_parallel"))
                    for (pool, end), side in zip(pools.SUFFIX.items(), ("first", "second"))]
        for pool, (_, pool_table) in mixed.pools.items():
            for row, gpus in zip(rows, pool_table.plan.fleet.hours(1.0)):
                row[f"launch_gpus{pools.SUFFIX[pool]}"] = gpus
    _, first, last = sheet.records(list(range(HOURS_PER_DAY)), columns, rows, label_header="Hour")
    for key in [column.key for column in columns]:
        col = sheet.places[key].col
        book.define(f"fleet_plan_{key}", sheet.name,
                    f"{kit.xl_rowcol_to_cell(first, col, True, True)}:{kit.xl_rowcol_to_cell(last, col, True, True)}")
    sheet.row(FLEET_LAUNCH_TOTAL, float(sum(launch)))
    sheet.skip()


# The Budget's month rows ----------------------------------------------------------------------------------------------
FLEET_SERVES = "AND({label}>=launch_month,{label}<=launch_month+budget_months)"  # the rows serving can touch: the
# calendar's and the average months' (k_L + m − 1); 0 beyond, where growth would compound to no purpose


def fleet_calendar_columns(sides: tuple = ("first", "second"), end: str = "", words: str = "Fleet") -> list[Column]:
    """G_{h,k} in each hour at the month's rate, their GPU-hours a day, and the peak-sized GPUs, on the rows from
    launch to the horizon's last month: both pools' (`sides`), or one pool's of a mixed fleet (its columns' names
    ending `end`, §15.1)."""
    def gpus(replicas) -> str:
        return "+".join(fleet_pool(fleet_scaled(replicas(side), FLEET_RATE), f"fleet_plan_{side}_parallel")
                        for side in sides)

    hours = [Column(f"fleet_gpus_hour_{h}{end}", f"{words}: GPUs in hour {h}", kind="count",
                    template=f"=IF({FLEET_SERVES},"
                             + gpus(lambda side, h=h: f"INDEX(fleet_plan_{side}_replicas,{h + 1})") + ",0)")
             for h in range(HOURS_PER_DAY)]
    return hours + [
        Column(f"fleet_gpu_hours_a_day{end}", f"{words}: GPU-hours a day", kind="count",
               template=f"=SUM({{fleet_gpus_hour_0{end}}}:{{fleet_gpus_hour_23{end}}})"),
        Column(f"fleet_peak_gpus{end}", f"{words}: peak-sized GPUs", kind="count",
               template=f"=IF({FLEET_SERVES}," + gpus(lambda side: f"fleet_plan_{side}_peak") + ",0)"),
    ]


def fleet_used_gpu_hours(served, before: str, after: str):
    """U_k: the days before the month's growth anniversary at the previous row's GPU-hours a day (its rate), the
    days from it at this row's; `served` wraps a demand column (n/a when serving is not priced)."""
    def template(i: int) -> str:
        earlier = f"{before}*{{fleet_gpu_hours_a_day:prev}}+" if i else ""
        return served(f"IF({{serving_days}}>0,{earlier}{after}*{{fleet_gpu_hours_a_day}},0)")
    return template


def fleet_burst(served, baseline: str) -> str:
    """X_k(B) = v_k·Σ_h MAX(0, G_{h,k} − B) over the row's hours (whole GPUs: SUMIF and COUNTIF above B)."""
    hours = "{fleet_gpus_hour_0}:{fleet_gpus_hour_23}"
    return served(f'{{serving_days}}*(SUMIF({hours},">"&{baseline})-{baseline}*COUNTIF({hours},">"&{baseline}))')


# The method's symbols stand in the Notes column, the labels in words (issue 43 finding 11)
SYMBOLS = {"training_days": "D_tr", "launch_month": "k_L", "price_on_demand": "p_od", "price_committed_1y": "p_1y",
           "price_committed_3y": "p_3y", "price_spot": "p_sp", "price_training": "p_T",
           "training_commitment_months": "mo(S, L)", "serving_commitment_months": "mo(L, E)", "price_baseline": "p_c",
           "price_baseline_effective": "p_eff", "launch_scale": "ĝ", "baseline_hours": "h*",
           "serving_baseline_gpus_suggested": "B*", "serving_baseline_gpus_used": "B_c",
           "own_depreciation_per_day": "δ", "own_facility_per_day": "φ", "own_staff_per_day": "σ",
           "own_energy_per_day": "ε", "own_cost_per_gpu_hour": "c_own", "own_break_even_utilisation": "u*",
           "own_gpus": "N_own", "own_utilisation": "u_plan", "start_date": "S", "launch_date": "L = S + D_tr",
           "serving_end": "E = L + horizon"}


def noted(rows: list[Row]) -> list[Row]:
    """The rows with their symbol first in the note ("p_od: …")."""
    return [replace(row, note=f"{SYMBOLS[row.key]}: {row.note}" if row.note else SYMBOLS[row.key])
            if row.key in SYMBOLS else row for row in rows]


CALENDAR, PRICES, TRAINING, BASELINE, OWNING = (noted(rows) for rows in (CALENDAR, PRICES, TRAINING, BASELINE,
                                                                         OWNING))
FLEET_ROWS = {key: noted([row])[0] for key, row in FLEET_ROWS.items()}


# The plan with two GPU types (METHOD §15.1) ---------------------------------------------------------------------------
# When the Fleet's cheapest configuration is mixed, each pool reads its own Catalog row: the price cells of §13 with a
# suffix _p or _d (own_gpus_prefill, own_gpus_decode), written from the one-GPU rows with their names mapped, and
# the one-GPU cells read n/a (or, for the counts and the capex, the pools' sum). Only then: the sheet follows the data.
PAIR_NEEDED = "n/a: a mixed fleet takes a pair {prefill: n, decode: m} (§15.1): see Checks"
POOL_FITS = Row("plan_pools_fit", "Each pool of the mixed fleet is priced (its Fleet rows hold, its GPUs priced)",
                formula="=AND(ISNUMBER(fleet_cheapest_cost_per_hour),fleet_rows_hold,ok_fleet_gpus_priced)",
                kind="bool", unit="", name="plan_pools_fit",
                note="The serving money is the two pools' sum (§15.1), each at its own GPU's prices")
POOLED_NAMES = ("gpu_row", "price_on_demand", "price_committed_1y", "price_committed_3y", "price_spot",
                "price_baseline", "price_baseline_effective", "baseline_hours", "serving_baseline_gpus_suggested",
                "serving_baseline_gpus_used", "own_priced", "own_depreciation_per_day", "own_facility_per_day",
                "own_staff_per_day", "own_energy_per_day", "own_cost_per_gpu_hour", "own_break_even_utilisation",
                "own_gpus", "own_capex", "own_book_value", "fleet_plan_launch_gpus", "calendar_committed_gpus",
                "own_start", "own_life_end", "own_path_priced",
                "fleet_cheapest_gpu", "plan_serving_fits")
POOL_WORDS = {"prefill": "Prefill pool", "decode": "Decode pool"}


def pool_name(name: str, pool: str) -> str:
    """A cell's name in a pool's copy: §15.1's names (`price_on_demand_p`, `own_gpus_decode`)."""
    if name == "fleet_cheapest_gpu":
        return f"fleet_cheapest_{pool}_gpu"
    if name == "plan_serving_fits":
        return "plan_pools_fit"
    if name == "own_path_priced":  # a pool's owned money: its own GPU's server, and on the prefill pool, whose
        # plan carries the owned training line (§15.1's third type), that line's too
        return "AND(own_priced_p,own_training_priced)" if pool == "prefill" else "own_priced" + pools.SUFFIX[pool]
    if name.startswith("calendar_"):
        return name + pools.SUFFIX[pool]
    return pools.pool_name(name, pool)


def pooled(formula, pool: str, columns: tuple = ()):
    """A formula (or a column's template) with the pool's names in place of one GPU's: the cells of POOLED_NAMES,
    and the month columns `columns` ({serving_gpu_hours} → {serving_gpu_hours_p})."""
    if callable(formula):
        return lambda i: pooled(formula(i), pool, columns)
    cells = re.sub(r"\b(" + "|".join(POOLED_NAMES) + r")\b", lambda m: pool_name(m.group(1), pool), formula)
    return re.sub(r"\{(\w+)(:\w+)?\}", lambda m: "{" + (m.group(1) + pools.SUFFIX[pool] if m.group(1) in columns
                                                        else m.group(1)) + (m.group(2) or "") + "}", cells)


def pair_sum(first: str, second: str) -> str:
    """The pools' sum, or the first reason either gives (the engine's pools.added)."""
    return f"IF(ISNUMBER({first}),IF(ISNUMBER({second}),{first}+{second},{second}),{first})"


def pool_rows(pool: str, scenario) -> list[Row]:
    """A pool's price, baseline and owning cells (§15.1), from the one-GPU rows with a fleet; its baseline and owned
    GPUs from the pair on Inputs (a number typed in the one-number cell: n/a, its check fails)."""
    trains = f"AND(ownership_training,INDEX(catalog_gpu_ids,gpu_row{pools.SUFFIX[pool]})=gpu)"  # training shares it
    base = {row.key: row for row in PRICES + BASELINE + OWNING} | {
        key: row for key, row in FLEET_ROWS.items() if key in ("gpu_row", "price_on_demand",
                                                               "serving_baseline_gpus_suggested")}
    end, words = pools.SUFFIX[pool], POOL_WORDS[pool]
    typed = {key: (f"{key}_{pool}", f"{key}_{pool}") if pools.is_pair(getattr(getattr(scenario, section), field))
             else (key, text(PAIR_NEEDED)) for key, (section, field) in
             {"pricing_serving_baseline_gpus": ("pricing", "serving_baseline_gpus"),
              "ownership_gpus": ("ownership", "gpus")}.items()}
    counts = {
        "serving_baseline_gpus_used": ("baseline", "B_c of the pool: its pair on Inputs; blank: its B*",
                                       '=IF({0}="",serving_baseline_gpus_suggested' + end + ",{1})",
                                       typed["pricing_serving_baseline_gpus"]),
        "own_gpus": ("owned GPUs", "N_own of the pool: its pair on Inputs; blank: MAX_k G_k of the pool (and "
                     "N_run when training shares its GPU type)",
                     '=IF({0}="",IF(plan_pools_fit,MAX(MAX(calendar_committed_gpus' + end + f"),{trains}*hours_gpus),"
                     "plan_serving_reason),{1})", typed["ownership_gpus"])}
    dates = [dated(pool_name("own_start", pool), f"{words}: bought on", f"=IF({trains},tco_start_date,launch_date)",
                   "S when training shares its GPU type, else L"),
             dated(pool_name("own_life_end", pool), f"{words}: useful life ends",
                   f"={pool_name('own_start', pool)}+ownership_useful_life_years*days_per_year")]
    found = []
    for key in ("gpu_row",) + pools.POOL_CELLS[:9] + ("own_priced",) + pools.POOL_CELLS[9:15] + ("own_gpus",) + \
            pools.POOL_CELLS[15:] + ("own_utilisation",):
        name = pool_name(key, pool)
        if key in counts:
            label, note, formula, names = counts[key]
            found.append(Row(name, f"{words}: {label}", kind="count", unit="GPUs", name=name, note=note,
                             formula=formula.format(*names)))
            found += dates if key == "own_gpus" else []
            continue
        row = base[key]
        label = f"its GPU's Catalog row (fleet_cheapest_{pool}_gpu)" if key == "gpu_row" else \
            row.label[0].lower() + row.label[1:].removesuffix(" (the serving GPU)")
        formula = pooled(row.formula, pool)
        if key == "own_utilisation":  # u_plan of the pool (§15.1: one per pool), on its own month columns
            formula = re.sub(r"\b(calendar_(?:serving|burst_owned)_gpu_hours)\b", r"\1" + end, formula)
        if key in ("own_capex", "own_book_value", "own_utilisation"):  # the owned GPUs' reason first (a number
            owned = pool_name("own_gpus", pool)  # typed for a pair)
            formula = f"=IF(ISTEXT({owned}),{owned},{formula[1:]})"
        found.append(replace(row, key=name, name=name, bold=False, label=f"{words}: {label}", formula=formula,
                             note="" if key == "gpu_row" else row.note))
    return found


def pooled_one_gpu(rows: list[Row]) -> list[Row]:
    """The one-GPU rows as a mixed fleet reads them: n/a (plan_serving_reason) where each pool has its own, the
    counts and the capex the pools' sum, the server priced when both pools' are."""
    found = []
    for row in rows:
        if row.key in pools.ONE_GPU:
            row = replace(row, formula="=plan_serving_reason")
        elif row.key == "tokens_per_s_per_mw":  # §15.1's table: the fleet's at the peak, spares included (GPUs)
            row = replace(row, formula="=mixed_tokens_per_s_per_mw", note="λ · o · 1000 / ((G_p · kW_p + G_d · kW_d) "
                          "· PUE): the mixed fleet's at the peak, spares included (GPUs sheet)")
        elif row.key in pools.SUMMED_CELLS:
            row = replace(row, formula="=" + pair_sum(pool_name(row.key, "prefill"), pool_name(row.key, "decode")),
                          note="The two pools' sum (§15.1)")
        elif row.key == "own_priced":
            row = replace(row, formula="=AND(own_priced_p,own_priced_d)", note="Both pools' GPUs (Catalog)")
        found.append(row)
    return found


def pooled_bridge(formula: str) -> str:
    """A bridge line of a mixed fleet (§15.1): serving at each pool's p_od and its standby, added."""
    for one in (AT_OD, STANDBY_AT_E1):
        formula = formula.replace(one, "(" + "+".join(pooled(one, pool, ("serving_gpu_hours", "committed_gpus"))
                                                      .replace("calendar_serving_gpu_hours", "calendar_serving_gpu_"
                                                               f"hours{pools.SUFFIX[pool]}")
                                                      for pool in pools.POOLS) + ")")
    return formula


def mixed_premises(rows: list[Row]) -> list[Row]:
    """The premises with a mixed fleet (§15.1): one GPU's serving n/a with the pools' reason, the pools' own premise,
    and the money n/a only when the pools' is."""
    found = []
    for row in rows:
        if row.key == "plan_serving_reason":
            row = replace(row, formula=row.formula.replace(text(shared.FLEET_MIXED), text(shared.FLEET_POOLED)))
        elif row.key == "plan_money_na":
            row = replace(row, formula='=IF(plan_rows_na<>"",plan_rows_na,IF(NOT(plan_pools_fit),plan_serving_reason,'
                                      'IF(AND(pricing_serving_baseline_gpus="",ownership_gpus=""),"",'
                                      f"{text(PAIR_NEEDED)})))",
                          note="Every money figure n/a with the reason: a plan too long for the rows, pools that "
                               "cannot be priced, or one number typed where the pools take a pair")
        elif row.key == "plan_serving_fits":  # FALSE for a mixed fleet: say why, not that no configuration meets
            row = replace(row, label="The Fleet's cheapest serves on one GPU type (FALSE: it mixes two, priced per "
                          "pool)", note="One GPU's serving cells read n/a; the pools' cells price the plan")
        found.append(row)
        if row.key == "plan_serving_fits":
            found.append(POOL_FITS)
    return found


def _prices(sheet: kit.Sheet, rows: list[Row], values: dict, fleet: bool) -> None:
    """The prices per GPU-hour, each tier with its source (with a fleet, the training GPU's row after the serving
    GPU's)."""
    sheet.section("Prices per GPU-hour, each tier with its source")
    for row in rows:
        sheet.row(row, values[row.key])
        if fleet and row.key == "gpu_row":
            sheet.row(TRAINING_GPU_ROW, values["training_gpu_row"])
        tier = row.key.removeprefix("price_")
        if tier in SOURCES:
            sheet.row(source_row(tier), values[f"{tier}_source"])
    sheet.skip()


def _pools(sheet: kit.Sheet, pools_plan, scenario, values: dict) -> None:
    """Each pool's price, baseline and owning cells, a section each (§15.1)."""
    for pool, (gpu, _) in pools_plan.pools.items():
        sheet.section(f"{POOL_WORDS[pool]} of the mixed fleet ({gpu}): its prices, baseline and owned GPUs (§15.1)")
        sheet.rows(pool_rows(pool, scenario), values)
        sheet.skip()


def pooled_warnings(rows: list[Row]) -> list[Row]:
    """With a mixed fleet, serving fits when its pools do (one GPU's premise does not hold for it)."""
    return [replace(row, formula="=NOT(plan_pools_fit)") if row.key == "tco_warn_serving_does_not_fit" else row
            for row in rows]
