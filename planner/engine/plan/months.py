"""The plan on calendar months (docs/method.md §13): its timeline, how many month rows it takes, each row's days
and demand, and the three paths (rent on demand, a committed baseline with burst, owned GPUs) month by month."""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from planner.engine import calendar as cal
from planner.engine.shared import DAYS_PER_MONTH, DAYS_PER_YEAR, HORIZON_MAX_DAYS, HOURS_PER_DAY, TRAINING_MONTHS_MAX
from planner.model.passes import serving_gpu_hours

from planner.engine.plan.inputs import Plan
from planner.engine.plan.prices import (NO_SERVER, Baseline, OwnedRates, TierPrices, burst_gpu_hours, owned_rates,
                                        peak_gpus, scale, tier_prices, training_days, training_term_months,
                                        training_tier_cost)

PATHS = ("on_demand", "committed", "owned")


def row_count(training_months: int, horizon_days_max: float, days_per_month: float = DAYS_PER_MONTH) -> int:
    """The most month rows a plan can need: §9's training months × 3 (spot with ω up to 2), the calendar months of
    the longest horizon (one more than its average months, as a span may touch a month at each end), 36 for a
    commitment that outlasts the plan and 1 for a start in mid-month."""
    return 3 * training_months + math.ceil(cal.round9(horizon_days_max / days_per_month)) + 1 + 36 + 1


CALENDAR_ROWS_MAX = row_count(TRAINING_MONTHS_MAX, HORIZON_MAX_DAYS)  # the most calendar rows: the longest plan


def calendar_row_count(p: Plan, t: Timeline, end: float) -> int:
    """The calendar's rows: an edited workbook's, else the plan's months (and the rows a Fleet's average months read,
    k_L … k_L + m − 1) and budget.spare_months more, at most CALENDAR_ROWS_MAX."""
    if p.rows is not None:
        return p.rows
    needed = max(cal.plan_months(p.start, end), t.launch_month - 1 + p.average_months)
    return min(needed + p.spare_months, CALENDAR_ROWS_MAX)


# The timeline ---------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Timeline:
    """The dates every path shares (the training tier sets the launch), and training's commitment and price."""

    training_days: float  # D_tr
    launch: float  # L = S + D_tr
    end: float  # E = L + H_d
    launch_month: int  # k_L
    training_term_months: int
    training_commitment_months: int  # mo(S, L)
    training_commitment_end: float  # C_tr (L without a commitment)
    training_price: float  # p_T
    training_tier_cost: float


def timeline(p: Plan, tiers: TierPrices) -> Timeline:
    days = training_days(p.training_days, p.training_tier, p.spot_overhead)
    launch = p.start + days
    end = launch + p.horizon_days
    term = training_term_months(p.training_tier, days)
    months = cal.months_to_cover(p.start, launch)
    commitment_end = cal.commitment_end(p.start, launch, term) if term else launch
    price = tier_prices(p.training_prices, p.fx).of(p.training_tier)  # the training GPU's tier
    return Timeline(training_days=days, launch=launch, end=end, launch_month=cal.month_of(p.start, launch),
                    training_term_months=term, training_commitment_months=months,
                    training_commitment_end=commitment_end, training_price=price,
                    training_tier_cost=training_tier_cost(p, price, commitment_end))


# The month columns ----------------------------------------------------------------------------------------------------
def demand_columns(p: Plan, m: cal.Months, t: Timeline) -> dict[str, np.ndarray]:
    """Days and demand on every row: training and serving days, the plan's days, served tokens, tokens a day, used
    GPU-hours U_k, ĝ_k and the committed GPUs G_k (§11's with a fleet, and its GPUs hour by hour)."""
    serving_days = m.overlap(t.launch, t.end)
    ann = cal.anniversaries(m.rows, t.launch, t.launch_month)
    tokens = cal.served_tokens(m, ann, launch=t.launch, end=t.end, launch_month=t.launch_month,
                               tokens_per_day=p.tokens_per_day, growth=p.monthly_growth)
    found = {"training_days": m.overlap(p.start, t.launch), "serving_days": serving_days,
             "plan_days": m.overlap(p.start, t.end), "anniversary": ann, "served_tokens": tokens,
             "tokens_per_day": np.where(serving_days > 0, tokens / np.where(serving_days > 0, serving_days, 1), 0.0),
             "hourly_gpus": None}
    if p.fleet_section:
        found |= fleet_month_columns(p, m, t, ann)
        used = found["serving_gpu_hours"]
    elif p.serving_fits and p.tokens_per_s_per_gpu > 0:
        used = serving_gpu_hours(tokens, p.tokens_per_s_per_gpu)
    else:
        used = np.zeros(m.rows)
    scales = scale(used, serving_days, sum(p.profile))
    if not p.fleet_section:
        found["committed_gpus"] = peak_gpus(scales, p.profile)
    return found | {"serving_gpu_hours": used, "scale": scales}


def fleet_month_columns(p: Plan, m: cal.Months, t: Timeline, ann) -> dict[str, np.ndarray]:
    """§11 month by month: on the rows from launch to k_L + §9's serving months, the launch configuration's replicas
    scaled to the rate λ·(1 + g)^(k − k_L) (never below the launch's): the following fleet's GPUs in each hour
    G_{h,k}, their GPU-hours a day and the peak-sized GPUs. In the months that serve, U_k = the days before the
    growth anniversary × the previous row's GPU-hours a day (the rate before it) + the days from it × this row's;
    G_k = the peak-sized GPUs; else 0. All 0 when no configuration meets the SLO."""
    before, after, step = cal.growth_parts(m, ann, launch=t.launch, end=t.end, launch_month=t.launch_month)
    hourly, peak = np.zeros((m.rows, HOURS_PER_DAY)), np.zeros(m.rows)
    if p.fleet is not None:  # on the rows serving can touch: the calendar's and the average months' k_L + m − 1
        for k in range(t.launch_month - 1, min(m.rows, t.launch_month + p.average_months)):
            ratio = (1 + p.monthly_growth) ** step[k]
            hourly[k], peak[k] = p.fleet.hours(ratio), p.fleet.gpus(p.fleet.peak, ratio)
    per_day = hourly.sum(axis=1)
    served = m.overlap(t.launch, t.end) > 0
    used = before * np.concatenate(([0.0], per_day[:-1])) + after * per_day
    return {**{f"fleet_gpus_hour_{h}": hourly[:, h] for h in range(HOURS_PER_DAY)},
            "fleet_gpu_hours_a_day": per_day, "fleet_peak_gpus": peak,
            "serving_gpu_hours": np.where(served, used, 0.0), "committed_gpus": np.where(served, peak, 0.0),
            "hourly_gpus": np.where(served[:, None], hourly, 0.0)}


def training_column(p: Plan, m: cal.Months, t: Timeline, training_days_k) -> np.ndarray:
    """Committed: N_run·24·ov_k(S, C_tr)·p_T, not escalated; else the tier's cost spent evenly per day, × e_k."""
    if t.training_term_months:
        return p.run_gpus * HOURS_PER_DAY * m.overlap(p.start, t.training_commitment_end) * t.training_price
    if t.training_days > 0:
        return t.training_tier_cost / t.training_days * training_days_k * m.escalation
    return np.zeros(m.rows)


@dataclass(frozen=True)
class Ownership:
    """The owned fleet: its size, purchase day, the end of its useful life, capex and book value at E."""

    rates: OwnedRates | None
    gpus: int | float | str  # N_own
    start: float  # O_s
    life_end: float
    capex: float | str
    book_value: float | str


def held_for_training(p: Plan) -> int:
    """The GPUs the owned fleet holds for training: N_run when it trains on them, else 0 (§13.4)."""
    o = p.owning
    return o.training_gpus if o.training_gpus is not None else (p.run_gpus if o.training else 0)


def owned_columns(p: Plan, m: cal.Months, t: Timeline, gpus_k) -> tuple[Ownership, dict]:
    """N_own·δ·ov_k(O_s, MIN(E, life end)) depreciation; N_own·(φ + σ + ε)·e_k·ov_k(O_s, E) opex; capex in the
    month that holds O_s; the book value N_own·P − Σ depreciation back in the month that holds E."""
    o, rates = p.owning, owned_rates(p.owning, p.fx)
    held = held_for_training(p)
    start = p.start if held else t.launch  # S when they train too
    life_end = start + DAYS_PER_YEAR * o.useful_life_years
    if o.gpus is not None:
        gpus = o.gpus
    else:
        gpus = int(max(np.max(gpus_k, initial=0.0), held))
    if rates is None:
        zero = np.zeros(m.rows)
        return Ownership(rates=None, gpus=gpus, start=start, life_end=life_end, capex=NO_SERVER,
                         book_value=NO_SERVER), {
            "depreciation": zero, "opex": zero, "capex": zero, "book_value": zero}
    depreciation = gpus * rates.depreciation * m.overlap(start, min(t.end, life_end))
    opex = gpus * rates.running * m.escalation * m.overlap(start, t.end)
    capex = gpus * o.server_price * p.fx
    book_value = capex - gpus * rates.depreciation * max(0.0, min(t.end, life_end) - start)  # Σ depreciation
    columns = {"depreciation": depreciation, "opex": opex,
               "capex": np.where((m.start <= start) & (start < m.next), capex, 0.0),
               "book_value": np.where((m.start < t.end) & (t.end <= m.next), book_value, 0.0)}
    return Ownership(rates=rates, gpus=gpus, start=start, life_end=life_end, capex=capex,
                     book_value=book_value), columns


TRAINING_LINE = ("depreciation", "opex", "capex", "book_value")  # the owned training GPUs' line: own_training_<key>


def training_line_columns(p: Plan, m: cal.Months, t: Timeline) -> tuple[Ownership | None, dict]:
    """Owned training on a GPU type of its own (§13.15, "each on its own line"): N_run GPUs of `gpu` owned as the
    owned fleet is (owned_columns: bought on S, held to E), as own_training_<column>; zeros without the line, and no
    columns without a fleet (the line needs a serving GPU other than `gpu`)."""
    if p.training_line is None:
        zero = np.zeros(m.rows)
        return None, {f"own_training_{key}": zero for key in TRAINING_LINE} if p.fleet_section else {}
    line, columns = owned_columns(replace(p, owning=p.training_line), m, t, np.zeros(m.rows))
    return line, {f"own_training_{key}": columns[key] for key in TRAINING_LINE}


def owned_training(c: dict) -> tuple:
    """The owned path's training when it owns it: the line's accrual (depreciation + opex) and its cash (opex +
    capex − book value); 0 when training shares the owned fleet (its GPUs are in the serving accrual)."""
    if "own_training_opex" not in c:
        return 0.0, 0.0
    return (c["own_training_depreciation"] + c["own_training_opex"],
            c["own_training_opex"] + c["own_training_capex"] - c["own_training_book_value"])


def path_columns(p: Plan, m: cal.Months, c: dict, *, t: Timeline, b: Baseline, own: Ownership) -> dict:
    """Each path's serving, subtotal, contingency, total and cash by month (§13): on demand U_k·p_od·e_k, with the
    standby (24·v_k·G_k − U_k)·p_od·e_k when it is included (the idle hours of a fleet sized for the month's peak:
    the other paths pay for their own capacity); committed the baseline paid to C_s plus the burst above it; owned
    the accrual plus the burst above N_own."""
    tiers = tier_prices(p.prices, p.fx)
    od = tiers.on_demand * m.escalation
    hourly = c.pop("hourly_gpus")
    c["other"] = p.other_monthly_cost * p.fx * m.escalation * c["plan_days"] / m.days
    # to a billionth of a GPU-hour: U's two parts (either side of the growth step) leave a last-bit remainder where
    # the fleet idles no hour, which applications keep or snap to 0 differently
    c["standby"] = cal.round9(HOURS_PER_DAY * c["committed_gpus"] * c["serving_days"] - c["serving_gpu_hours"]) * od
    c["on_demand_serving"] = c["serving_gpu_hours"] * od + (c["standby"] if p.include_standby else 0.0)
    c["baseline"] = b.used * HOURS_PER_DAY * m.overlap(t.launch, b.end) * b.price
    c["burst_committed_gpu_hours"] = burst_gpu_hours(c["scale"], c["serving_days"], p.profile, b.used, hourly)
    c["burst_committed"] = c["burst_committed_gpu_hours"] * od
    owned_gpus = own.gpus if own.rates is not None else 0
    c["burst_owned_gpu_hours"] = burst_gpu_hours(c["scale"], c["serving_days"], p.profile, owned_gpus, hourly)
    c["burst_owned"] = c["burst_owned_gpu_hours"] * od
    serving = {"on_demand": c["on_demand_serving"], "committed": c["baseline"] + c["burst_committed"],
               "owned": c["depreciation"] + c["opex"] + c["burst_owned"]}
    accrual, cash = owned_training(c) if p.owning.training else (c["training"], c["training"])
    for path in PATHS:
        training = accrual if path == "owned" else c["training"]
        c[f"{path}_serving"] = serving[path]
        c[f"{path}_subtotal"] = training + c["other"] + serving[path]
        c[f"{path}_contingency"] = p.contingency * c[f"{path}_subtotal"]
        c[f"{path}_total"] = c[f"{path}_subtotal"] + c[f"{path}_contingency"]
        c[f"{path}_cash"] = c[f"{path}_total"]
    c["owned_cash"] = (cash + c["other"] + c["burst_owned"] + c["opex"] + c["capex"]
                       - c["book_value"]) * (1 + p.contingency)
    return c


# Totals ---------------------------------------------------------------------------------------------------------------
def plan_end(t: Timeline, b: Baseline) -> float:
    """The latest of E and the ends of any commitment in use (a committed training tier, or B_c > 0), whatever the
    budget's path: the calendar is shared."""
    return max(t.end, t.training_commitment_end if t.training_term_months else 0.0, b.end if b.used > 0 else 0.0)


def path_end(t: Timeline, b: Baseline, path: str) -> float:
    """The last day the budget's path pays for: E, or a committed training tier's end (every path trains so), or on
    the committed path the baseline's end; an on-demand or owned plan ends with its serving (the calendar's plan_end
    runs on to the committed path's terms, which it prices beside them)."""
    return max(t.end, t.training_commitment_end if t.training_term_months else 0.0,
               b.end if path == "committed" and b.used > 0 else 0.0)


def npv(cash, discount) -> float:
    """SUMPRODUCT(cash, DF): every month's cash at the end of its month, as at M_1."""
    return float(np.sum(np.asarray(cash) * np.asarray(discount)))


def fiscal_years(m: cal.Months, in_plan, c: dict) -> list[dict]:
    """One row per fiscal year from FY_1 to the last plan month's, each column's SUMIF over the months in the plan."""
    years = m.fiscal_year[in_plan]
    rows = []
    for fy in range(int(years[0]), int(years[-1]) + 1) if len(years) else ():
        inside = in_plan & (m.fiscal_year == fy)
        rows.append({"fiscal_year": cal.fiscal_label(fy), "months": int(inside.sum()),
                     **{f"{path}_{key}": float(c[f"{path}_{key}"][inside].sum())
                        for path in PATHS for key in ("total", "cash")}})
    return rows


