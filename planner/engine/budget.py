"""Budget over average months (docs/method.md §9): the totals over the horizon and the plan month by month in
months of 30.4375 days, the second block of the Budget sheet, beside the calendar (§13, planner/engine/cost.py),
whose total is the plan's. Its total starts the calendar's bridge.

Training is spent evenly over Hours' wall-clock days, in months of 30.4375 days (a year of 365.25 days over 12), the
last one prorated. Serving follows from launch over Crossover's horizon: month m serves D·(1 + g)^(m − 1) tokens a
day at the Serving table's tokens per second per GPU at its users (the roofline, §6), so serving GPU-hours are
tokens / (3600·TokS). Standby is the idle GPU-hours of a fleet sized for each month's peak hour, from that
traffic and the demand profile: U_m/(days·Σf) GPUs at a fraction of 1, CEIL9 of its peak, less what the traffic
uses; it has a row of its own and joins the total only when asked. Money is in the reporting currency (× fx).
"""

from __future__ import annotations

from dataclasses import dataclass

from planner.engine.cluster import ceil9
from planner.engine.plan import pools
from planner.engine.plan.inputs import fleet_mixed, plan_profile, prices_of, serving_gpu, serving_na, sizing_fleet
from planner.engine.shared import NOT_SERVED  # why serving money is n/a (§9, §13.15)
from planner.engine.shared import (DAYS_PER_MONTH, HORIZON_MAX_DAYS, PAST_DEADLINE, TOO_LONG, TRAINING_MONTHS_MAX,
                                   past_deadline)
from planner.engine.values import plain
from planner.method import Constant, Method
from planner.model.passes import serving_gpu_hours

NO_TRAFFIC = "no traffic"  # the cost per served token without traffic
COLUMNS = ("phase", "serving_month", "days", "training", "tokens_per_day", "served_tokens",
           "serving_gpu_hours", "scale", "committed_gpus", "serving", "standby", "total", "cumulative")


def months(days, days_per_month=DAYS_PER_MONTH) -> int:
    """Months of 30.4375 days that `days` takes, the last one part: CEIL9(days / 30.4375)."""
    return int(ceil9(days / days_per_month))


def days_in_month(month, span, days_per_month=DAYS_PER_MONTH) -> float:
    """Days of month `month` (1-based) of a span of `span` days: 30.4375, the last one what is left."""
    return min(days_per_month, span - (month - 1) * days_per_month)


def tokens_per_day_in_month(tokens_per_day, growth, month) -> float:
    """D_m = D·(1 + g)^(m − 1): compounding monthly growth from launch."""
    return tokens_per_day * (1 + growth) ** (month - 1)


AVERAGE_ROWS_MAX = TRAINING_MONTHS_MAX + months(HORIZON_MAX_DAYS)  # the most average-month rows: the longest plan


def average_row_count(training_months: int, serving_months: int, spare_months: int) -> int:
    """The average months' rows: the plan's training and serving months and the spare ones, at most
    AVERAGE_ROWS_MAX."""
    return min(training_months + serving_months + spare_months, AVERAGE_ROWS_MAX)


def peak_sized(gpu_hours, days, profile) -> tuple[float, int]:
    """ĝ_m = U_m/(days·Σf), the GPUs in use at a profile fraction of 1, and G_m = CEIL9(ĝ_m·MAX(f)), the fleet sized
    for the month's peak hour (§9, as §13's ĝ_k and G_k); 0 without days or demand."""
    total = sum(profile)
    scale = gpu_hours / (days * total) if days > 0 and total > 0 else 0.0
    return scale, int(ceil9(scale * max(profile)))


@dataclass
class BudgetTable:
    """docs/method.md §9's totals and budget for one scenario: the scalars, every month row of the sheet (the plan's
    months and the spare ones, blank); its years are the calendar's fiscal years (Cost, §13)."""

    scalars: dict
    rows: list[dict]  # average_row_count rows, keyed by COLUMNS; "" where the month is not in the plan

    @property
    def headline(self) -> dict:
        s = self.scalars
        return {"budget_serving_cost": s["serving_cost"], "budget_average_month_total_cost": s["total_cost"],
                "budget_months": s["serving_months"], "budget_training_months": s["training_months"],
                "budget_standby_cost": s["standby_cost"],
                "budget_horizon_serving_cost": s["horizon_serving_cost"],
                "budget_horizon_total_cost": s["horizon_total_cost"],
                "budget_serving_cost_per_day": s["serving_cost_per_day"],
                "budget_serving_cost_per_million_tokens": s["serving_cost_per_million_tokens"]}

    @property
    def checks(self) -> dict[str, bool]:
        s = self.scalars
        return {"budget_run_within_rows": s["training_months"] + s["serving_months"] <= len(self.rows)}

    def to_json(self) -> dict:
        return {**self.scalars, "months": [r for r in self.rows if r["phase"]]}


def compute(scenario, tables) -> BudgetTable:
    hours, crossover = tables["hours"].scalars, tables["crossover"].scalars
    serving = tables["serving"].headline
    fits, tok_s = serving["serving_fits"], serving["serving_tokens_per_s_per_gpu"]
    fleet = sizing_fleet(scenario, tables)  # with a fleet, its sizing month by month (§11) and its SLO, not the users
    fits = fits if scenario.fleet is None else fleet is not None
    # a mixed fleet (§15.1): each pool's GPU-hours at its own GPU's price
    pooled = pools.pool_fleets(scenario, tables["fleet"], fleet) if fleet and fleet_mixed(scenario, tables) else None
    na = serving_na(scenario, tables)  # the reason serving money reads n/a, if it does
    fx, growth, standby_in = scenario.fx_rate, scenario.budget.monthly_growth, scenario.budget.include_standby
    # the serving GPU's on-demand price in the reporting currency (§13: converted where it enters)
    price = prices_of(scenario, serving_gpu(scenario, tables)).on_demand * fx
    horizon, tokens = scenario.crossover.horizon_days, crossover["tokens_per_day"]
    profile = plan_profile(scenario)
    training_cost, training_days = hours["cost"], hours["days"]  # Hours' money is converted
    n_training, n_serving = months(training_days), months(horizon)

    # Totals over the horizon at launch traffic (no growth): the roofline's GPU-hours (the fleet's) at the price
    per_day_hours = serving_gpu_hours(tokens, tok_s) if scenario.fleet is None else \
        float(sum(fleet.hours(1.0))) if fleet else 0.0
    per_day = (per_day_hours * price if pooled is None else sum(float(sum(f.hours(1.0))) * p for f, p in pooled)) \
        if fits else na
    horizon_serving = horizon * per_day if fits else na
    scalars = {
        "days_per_month": DAYS_PER_MONTH, "price": price, "training_cost": training_cost,
        "training_days": training_days, "training_months": n_training, "serving_months": n_serving,
        "horizon_days": horizon, "tokens_per_day": tokens, "tokens_per_s_per_gpu": tok_s,
        "serving_gpu_hours_per_day": per_day_hours,
        "serving_cost_per_day": per_day, "serving_cost_per_month": per_day * DAYS_PER_MONTH if fits else na,
        "horizon_serving_cost": horizon_serving,
        "mfu_serving_cost": crossover["serving_cost_over_horizon"],
        "horizon_total_cost": training_cost + horizon_serving if fits else na,
        "serving_cost_per_million_tokens": NO_TRAFFIC if tokens == 0 else
        horizon_serving / (horizon * tokens) * 1e6 if fits else na,
        "monthly_growth": growth, "include_standby": standby_in,
    }
    held = tables.month_rows  # an edited workbook's rows, else the plan's and the spare
    count = held.average if held else average_row_count(n_training, n_serving, scenario.budget.spare_months)
    rows = month_rows(scenario, scalars, count, fits=fits, profile=profile, fleet=fleet, na=na, pooled=pooled)
    used = [r for r in rows if r["phase"]]
    served = [r for r in used if r["phase"] == "serving"]
    serving_cost = sum(r["serving"] for r in served) if fits else na
    standby_cost = sum(r["standby"] for r in served) if fits else na
    scalars |= {
        "months_training_cost": sum(r["training"] for r in used if r["phase"] == "training"),
        "served_tokens": sum(r["served_tokens"] for r in served), "serving_cost": serving_cost,
        "standby_cost": standby_cost,
        "total_cost": training_cost + serving_cost + (standby_cost if standby_in else 0) if fits else na,
    }
    if past_deadline(scenario, training_days):  # the totals that include training (the plan's premise, §13.15)
        scalars |= dict.fromkeys(("horizon_total_cost", "total_cost"), PAST_DEADLINE)
    scalars["run_na"] = TOO_LONG if n_training + n_serving > count else ""
    if scalars["run_na"]:  # the rows hold part of the plan: no sums to show
        scalars |= dict.fromkeys(("months_training_cost", "served_tokens", "serving_cost", "standby_cost",
                                  "total_cost"), TOO_LONG)
    return BudgetTable({k: plain(v) for k, v in scalars.items()},
                       [{k: plain(v) for k, v in r.items()} for r in rows])


def month_rows(scenario, s: dict, count: int, *, fits: bool, profile: tuple, fleet=None,
               na: str = NOT_SERVED, pooled: list | None = None) -> list[dict]:
    """The sheet's `count` month rows: training months, then serving months, then blank ones; each with its total
    (standby in it only when included) and the cumulative, "n/a" from the first month whose serving does not fit.
    With a fleet, month m's GPU-hours are days_m × the following fleet's GPU-hours a day at (1 + g)^(m − 1) times
    the launch rate, and its peak-sized GPUs the launch replicas scaled alike (§11)."""
    n_training, n_serving, price = s["training_months"], s["serving_months"], s["price"]
    rows, cumulative = [], 0.0
    for i in range(1, count + 1):
        row = dict.fromkeys(COLUMNS, "")
        if i <= n_training:
            days = days_in_month(i, s["training_days"])
            row |= {"phase": "training", "days": days, "training": s["training_cost"] / s["training_days"] * days}
            total = row["training"]
        elif i <= n_training + n_serving:
            m = i - n_training
            days = days_in_month(m, s["horizon_days"])
            d_m = tokens_per_day_in_month(s["tokens_per_day"], s["monthly_growth"], m)
            if scenario.fleet is None:
                hours_m = serving_gpu_hours(d_m * days, s["tokens_per_s_per_gpu"])
                scale, gpus = peak_sized(hours_m, days, profile)
            elif fleet is None:  # no configuration meets the SLO: serving n/a
                hours_m, scale, gpus = 0.0, 0.0, 0
            else:
                ratio = (1 + s["monthly_growth"]) ** (m - 1)
                hours_m, gpus = days * sum(fleet.hours(ratio)), fleet.gpus(fleet.peak, ratio)
                scale = peak_sized(hours_m, days, profile)[0]
            standby = (24 * gpus * days - hours_m) * price
            cost = hours_m * price
            if pooled:  # a mixed fleet (§15.1): each pool at its own GPU's price
                ratio = (1 + s["monthly_growth"]) ** (m - 1)
                cost = sum(days * sum(f.hours(ratio)) * p for f, p in pooled)
                standby = sum((24 * f.gpus(f.peak, ratio) * days - days * sum(f.hours(ratio))) * p for f, p in pooled)
            row |= {"phase": "serving", "serving_month": m, "days": days, "tokens_per_day": d_m,
                    "served_tokens": d_m * days, "serving_gpu_hours": hours_m, "scale": scale,
                    "committed_gpus": gpus, "serving": cost if fits else na,
                    "standby": standby if fits else na}
            total = cost + (standby if s["include_standby"] else 0) if fits else na
        else:
            rows.append(row)
            continue
        if not isinstance(cumulative, str):
            cumulative = cumulative + total if not isinstance(total, str) else na
        row |= {"total": total, "cumulative": cumulative}
        rows.append(row)
    return rows


CONSTANTS = [
    Constant("budget_days_per_month", DAYS_PER_MONTH, label="Days per budget month", unit="days",
             source="365.25 / 12: a Julian year's month, so twelve months make a year on average"),
]

METHOD = Method(
    title="Budget: the plan's total by month, and the average months",
    formulas=[
        "The plan's total is the budget's path on calendar months (the cost of ownership, §13): the Budget shows "
        "it, its chosen path stacked by month, the fiscal years and every calendar month; the Cover shows it once.",
        "Average months, where the bridge to it starts: months of 30.4375 days (365.25 / 12). Training months first: "
        "CEIL9(wall-clock days / 30.4375) of them, each spending training cost / wall-clock days per day, the last "
        "one prorated.",
        "Then launch: CEIL9(horizon / 30.4375) serving months, the last prorated so the months add up to the "
        "horizon. Month m serves D_m = D·(1 + g)^(m − 1) tokens a day (g the monthly growth): U_m = D_m · days / "
        "(3600·TokS) GPU-hours, U_m × the on-demand price, with TokS the Serving table's output tokens per second "
        "per GPU at its users (the roofline); \"n/a\" when the users do not fit (B > B_max).",
        "Standby: the idle hours of a fleet sized for the month's peak hour, from that traffic and the demand "
        "profile f: G_m = CEIL9(U_m / (days · Σf) · MAX(f)), standby = (24 · days · G_m − U_m) × price, in its own "
        "column; it joins the total only when include_standby is TRUE.",
        "Over the horizon at launch traffic: horizon days × D / (3600·TokS) × price, beside Crossover's figure at "
        "its assumed serving MFU (a comparison of compute, not a cost of the plan); serving cost per million "
        "served tokens = serving cost / (horizon × D) × 1e6.",
        "Total and cumulative by month (the years are the calendar's fiscal years, §13: one timeline). The "
        "sheet has a row for each of the plan's months and budget.spare_months more (at most ten years of "
        "training and the longest horizon), those beyond the plan blank and grouped out of sight; an edit that "
        "needs more months than the rows hold leaves the sums n/a until the planner runs again.",
    ],
    sources=[
        "The Hours table (§2), the Serving table's roofline (§6), Crossover's traffic and horizon (§3) and the "
        "demand profile (§4).",
    ],
    caveats=[
        "Serving runs at the roofline's throughput at the given users all month; standby prices the hours a fleet "
        "sized for each month's peak leaves idle.",
    ],
)
