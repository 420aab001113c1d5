"""The Budget table's inputs (docs/method.md §9 and §13): the monthly growth of served traffic, whether standby
serving capacity counts in the total, and the calendar the plan is laid on: its start date, fiscal year,
escalation, contingency, discount rate, the other monthly costs and which path (rent on demand, commit, own) is the
budget. The price tiers, owning and unit economics (planner/inputs/cost.py) are read with it."""

from __future__ import annotations

import datetime as dt
import re
from typing import Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, ConfigDict, Field

from planner.engine.shared import SPARE_MONTHS
from planner.scenario.declare import Section, declared, whole

FIRST_DATE, LAST_DATE = dt.date(2000, 1, 1), dt.date(2100, 12, 31)  # the start dates a plan may take
PATHS = ("on_demand", "committed", "owned")


def _iso(value):
    """A date written in the file (text: YAML 1.2 reads 2027-01-01 as text) or given as a date, as ISO text; any
    other value is not a date."""
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value.isoformat()
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ValueError(NOT_A_DATE)
    return value


def _a_date(text: str) -> str:
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        raise ValueError(NOT_A_DATE) from None
    if not FIRST_DATE <= day <= LAST_DATE:
        raise ValueError(f"a date from {FIRST_DATE} to {LAST_DATE}")
    return text


NOT_A_DATE = "not a date: write it as YYYY-MM-DD (2027-01-01)"
# Text on Inputs and in the JSON, as the file writes it; the engine reads it as a spreadsheet serial day
Date = Annotated[str, BeforeValidator(_iso), AfterValidator(_a_date)]


class Budget(Section):
    model_config = ConfigDict(title="Monthly budget")

    monthly_growth: Annotated[float, Field(ge=-0.5, le=1)] = declared(
        0.0, "Monthly traffic growth", "per month", "Served tokens per day grow by this share each month after "
        "launch, compounding: month m serves D·(1 + g)^(m − 1). 0: flat, and the budget's serving total equals "
        "the serving cost over the horizon.", kind="percent", symbol="g")
    include_standby: bool = declared(False, "Standby capacity in the total", "", "TRUE adds to each month of the "
                                     "on-demand path the idle hours of a fleet sized for that month's peak hour "
                                     "(from the traffic and the demand profile), at the on-demand price; FALSE shows "
                                     "them in their own column only.", kind="bool")
    start_date: Date | None = declared(
        None, "Start date", "date", "The first GPU-hour bought; the calendar starts on the first of its "
        "month. Blank: the first of the month after the workbook was generated, which moves when it is generated "
        "again.", kind="date", blank=True, between=(FIRST_DATE, LAST_DATE))
    first_fiscal_month: whole(1, 12) = declared(
        1, "First month of the fiscal year", "month 1-12", "1: calendar years. A fiscal year is named by the "
        "calendar year it ends in (7: FY2027 = July 2026 to June 2027).", kind="count")
    escalation: Annotated[float, Field(ge=-0.5, le=1)] = declared(
        0.0, "Price escalation", "per year", "On-demand and spot prices, owned running costs and other costs grow "
        "by this share at the start of each plan year; commitments and purchases do not.", kind="percent")
    contingency: Annotated[float, Field(ge=0, le=2)] = declared(
        0.0, "Contingency", "of the subtotal", "A line of its own on every month: total = subtotal × (1 + κ). "
        "Reported training hours ran 16 % to 177 % above the calculation for Llama 3.1.", kind="percent", symbol="κ")
    discount_rate: Annotated[float, Field(ge=0, le=1)] = declared(
        0.08, "Discount rate", "per year", "The cost of capital the NPV discounts at. 8 % is illustrative: use your "
        "company's own rate.", kind="percent")
    other_monthly_cost: Annotated[float, Field(ge=0, le=1e9)] = declared(
        0.0, "Other monthly costs", "USD per month", "Storage, egress and networking the GPU-hour price leaves out, "
        "prorated over the plan's days.", kind="number")
    path: Literal[PATHS] = declared(
        "on_demand", "Budget path", "", "Which path is the budget: on_demand (rent by the hour), committed (a "
        "committed baseline plus on-demand burst) or owned (buy the GPUs). The other two stand beside it.",
        kind="text")
    spare_months: whole(0, 120) = declared(
        SPARE_MONTHS, "Spare month rows", "months", "Rows the Budget keeps past the plan's months, so that an edit "
        "which lengthens the plan (a longer horizon, a later start, slower training) still fits. An edit past them "
        "leaves the plan's money n/a until the planner runs again; this takes effect when it does.", kind="count")


SECTIONS = {"budget": Budget}


def cross_checks(scenario, catalog) -> list:
    """A rate other than 1 needs a currency other than USD; the demand, grown to the plan's last month, stays within
    the bounds of the demand typed."""
    problems = []
    if scenario.currency == "USD" and scenario.fx_rate != 1:
        problems.append((("fx_rate",), scenario.fx_rate, "money inputs are in USD, so a USD report takes a rate of "
                         "1: set currency to the reporting currency's code (EUR), or the rate to 1"))
    return problems + _grown_demand(scenario, catalog)


def _grown_demand(scenario, catalog) -> list:
    """Month M of the horizon serves D·(1 + g)^(M − 1) (§9): within crossover.tokens_per_day's own bound, and with a
    fleet its served rate within fleet.peak_rate's, so that the plan's GPU counts stay whole numbers (a growth of
    100 % a month over ten years multiplies the demand by 2^120)."""
    growth = scenario.budget.monthly_growth
    if growth <= 0:
        return []
    from planner.engine.budget import months, tokens_per_day_in_month  # numpy: only with growth
    from planner.inputs.fleet import MAX_RATE
    from planner.scenario.catalog_entries import TOKENS_PER_DAY_MAX

    horizon = scenario.crossover.horizon_days
    last = months(horizon)
    factor = tokens_per_day_in_month(1.0, growth, last)
    fleet, tokens = scenario.fleet, scenario.crossover.tokens_per_day
    if fleet is None:  # with a fleet its rate is the demand (the Crossover's tokens a day follow from it)
        first = catalog.traffic_presets.get(tokens, 0) if isinstance(tokens, str) else tokens
        bound = TOKENS_PER_DAY_MAX
        what = "tokens a day (crossover.tokens_per_day)"
    else:
        first, bound = fleet.peak_rate / fleet.quality if fleet.retries else fleet.peak_rate, MAX_RATE
        what = "requests per second at the peak (the fleet's served rate, fleet.peak_rate)"
    if first * factor <= bound:
        return []
    return [(("budget", "monthly_growth"), growth, f"the demand grows {factor:.3g}-fold by month {last} of the "
             f"{horizon:,}-day horizon, from {first:.6g} to {first * factor:.3g} {what}, above the {bound:.3g} "
             "allowed: lower budget.monthly_growth, crossover.horizon_days or the demand",
             ("crossover", "horizon_days"))]

