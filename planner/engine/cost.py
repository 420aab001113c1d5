"""The cost of ownership (docs/method.md §13): the plan's GPU-hours priced at their tiers, placed on the calendar
month by month along three paths (rent on demand, a committed baseline with on-demand burst, owned GPUs), with
escalation, contingency, NPV, fiscal years, the bridge from the average-month budget (§9) and unit economics.

Nothing here computes GPU-hours of its own: training's allocated GPU-hours and days come from Hours (§2), the
served tokens per day and horizon from Crossover (§3), the throughput from Serving (§6) and, with a fleet (§11), its
monthly GPUs and GPU-hours. What the functions need arrives as plain values (`Plan`); money inputs are USD and are
converted to the reporting currency once, where each enters (× fx). Each function is the twin of one of the sheet's
formulas, named after what it returns.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

import numpy as np

from planner.engine import calendar as cal
from planner.engine.fleet import PlanFleet
from planner.engine.shared import NO_FLEET_SERVES, NOT_SERVED  # why serving money is n/a (§9, §13.15)
from planner.engine.shared import (DAYS_PER_MONTH, DAYS_PER_YEAR, GPUS_MAX, HORIZON_MAX_DAYS, HOURS_PER_DAY,
                                   PAST_DEADLINE, SECONDS_PER_HOUR, TOO_LONG, TRAINING_MONTHS_MAX, TooManyGPUs,
                                   past_deadline)
from planner.method import Constant, Method
from planner.model.passes import cost_per_million_tokens, serving_gpu_hours

TERM_MONTHS = {"committed_1y": 12, "committed_3y": 36}  # a commitment's term, paid whole (§13)
TIERS = ("on_demand", "committed_1y", "committed_3y", "spot")
PATHS = ("on_demand", "committed", "owned")
FIRST_START, LAST_START = cal.serial(dt.date(2000, 1, 1)), cal.serial(dt.date(2100, 12, 31))  # S's range
RELATIVE = 1e-9  # the reconciliations' tolerance, as the recalculation tests compare
NO_SERVING = "n/a: no serving"
PRICE_ZERO = "n/a: price 0"
NEVER = "owning never beats this price"
NO_SERVER = "n/a: no server price or kW"  # the GPU's Catalog row leaves owning unpriced
NO_USERS = "n/a: no users"
NO_DEMAND = "n/a: a demand profile of zeros"
NO_REVENUE = "n/a: no revenue"
STANDBY_NOTES = {  # where standby (the idle hours of a peak-sized fleet) is paid, by budget.include_standby and path
    "on_demand": "In the total: the idle hours of a fleet sized for each month's peak, at the on-demand price",
    "other": "In the on-demand path's total only: the committed and owned paths pay for their own capacity",
    "none": "Not in the total: budget.include_standby is FALSE (Inputs)"}


# Inputs as plain values (their defaults and limits are the scenario's declarations: planner/inputs/cost.py) -------
@dataclass(frozen=True, kw_only=True)
class Prices:
    """USD per GPU-hour for the chosen GPU: the on-demand price, the quotes the Catalog holds (None: the tier's
    ratio of the on-demand price) and those ratios."""

    on_demand: float
    committed_1y: float | None
    committed_3y: float | None
    spot: float | None
    committed_1y_ratio: float
    committed_3y_ratio: float
    spot_ratio: float


@dataclass(frozen=True, kw_only=True)
class Owning:
    """Owning GPUs: the Catalog row's server price (USD per GPU) and kW per GPU (None: not priced), and the
    ownership inputs, money in USD."""

    server_price: float | None
    server_kw: float | None
    gpus: int | None  # N_own; None: the plan's largest month of committed GPUs
    training: bool
    useful_life_years: float
    residual_value: float
    pue: float
    price_per_kwh: float
    power_share: float
    datacenter_per_kw_month: float
    staff_per_1000_gpus: float
    staff_cost_per_year: float


@dataclass(frozen=True, kw_only=True)
class AverageMonth:
    """§9's budget over 30.4375-day months, in the reporting currency: where the bridge starts."""

    training_cost: float  # §2's cost, A·p_od
    serving_cost: float  # §9's serving months at p_od, with growth
    standby_cost: float = 0.0  # §9's standby, where include_standby put it in §9's total (else 0)

    @property
    def total_cost(self) -> float:
        return self.training_cost + self.serving_cost + self.standby_cost


@dataclass(frozen=True, kw_only=True)
class Plan:
    """Everything §13 reads, as plain values. Dates are serial days; money in USD unless named otherwise."""

    start: float  # S, budget.start_date (or the first of the month after the generation date)
    spare_months: int  # month rows past the plan's (budget.spare_months)
    rows: int | None = None  # the calendar's rows, laid on an edited workbook's (None: the plan's and the spare)
    currency: str
    fx: float  # reporting units per USD
    first_fiscal_month: int
    escalation: float
    contingency: float
    discount_rate: float
    other_monthly_cost: float  # USD per month
    path: str
    # training (§2)
    allocated_gpu_hours: float  # A = H/q
    training_days: float  # §2's wall-clock days, A/N_run/24
    run_gpus: int  # N_run
    # serving (§3, §6, §9)
    tokens_per_day: float  # D
    horizon_days: float  # H_d
    monthly_growth: float  # g
    tokens_per_s_per_gpu: float  # TokS at B = users
    serving_fits: bool  # users ≤ B_max (with a fleet: some configuration meets the SLO)
    profile: tuple  # f_0 … f_23
    prompt_tokens: float  # s
    output_tokens: float  # o
    # pricing
    prices: Prices  # the serving GPU's (the fleet's cheapest with a fleet)
    training_prices: Prices  # the training GPU's (`gpu`)
    training_tier: str
    baseline_tier: str
    baseline_gpus: float | None  # B_c typed; None: the suggested B*
    spot_overhead: float  # ω
    owning: Owning
    # unit economics: users per month, prices charged in USD per million tokens
    active_users: float | None
    price_input_per_million: float | None
    price_output_per_million: float | None
    average_month: AverageMonth | None  # None: no bridge
    average_month_na: str = ""  # why the average months have no total (their lines read it), if they have none
    include_standby: bool  # the on-demand path pays for the idle hours of a fleet sized for each month's peak
    fleet: PlanFleet | None = None  # §11's configuration chosen at launch, when the scenario has a fleet
    fleet_section: bool = False  # the scenario has a fleet (whether or not a configuration meets its SLO)
    average_months: int = 0  # §9's serving months, CEIL9(H_d/30.4375): the fleet's rows reach k_L + this
    past_deadline: bool = False  # training's days past the layout search's deadline: the plan's money n/a

    @property
    def serving_na(self) -> str:
        """Why serving money reads n/a when serving does not fit: the users (B > B_max), or with a fleet its SLO."""
        return NO_FLEET_SERVES if self.fleet_section else NOT_SERVED


def plan_for(scenario, tables, generated: dt.date, fleet: PlanFleet | None = None) -> Plan:
    """The plain values a scenario gives §13, with its Hours, Crossover, Serving and Budget results: the start date
    (blank: the first of the month after `generated`), the chosen GPU's Catalog prices and server, and §9's
    average-month figures for the bridge (already in the reporting currency)."""
    b, pricing, own, unit = scenario.budget, scenario.pricing, scenario.ownership, scenario.unit
    served_gpu = serving_gpu(scenario, tables)  # one serving GPU: the fleet's when it has one
    gpu = scenario.merged_catalog.gpus[served_gpu]
    hours, budget = tables["hours"].scalars, tables["budget"].scalars
    serving = tables["serving"].headline
    start = dt.date.fromisoformat(b.start_date) if b.start_date else cal.first_of_next_month(generated)
    fx = scenario.fx_rate
    fits = bool(serving["serving_fits"]) if scenario.fleet is None else fleet is not None  # with a fleet: its SLO
    sv = scenario.serving
    return Plan(
        start=cal.serial(start), spare_months=b.spare_months, currency=scenario.currency, fx=fx,
        rows=tables.month_rows.calendar if getattr(tables, "month_rows", None) else None,
        first_fiscal_month=b.first_fiscal_month, escalation=b.escalation, contingency=b.contingency,
        discount_rate=b.discount_rate, other_monthly_cost=b.other_monthly_cost, path=b.path,
        allocated_gpu_hours=hours["allocated_gpu_hours"], training_days=hours["days"], run_gpus=scenario.hours.gpus,
        tokens_per_day=tables["crossover"].scalars["tokens_per_day"], horizon_days=scenario.crossover.horizon_days,
        monthly_growth=b.monthly_growth, tokens_per_s_per_gpu=serving["serving_tokens_per_s_per_gpu"] or 0.0,
        serving_fits=fits, profile=plan_profile(scenario),
        prompt_tokens=sv.prompt_tokens, output_tokens=sv.sequence_length - sv.prompt_tokens,
        prices=prices_of(scenario, served_gpu), training_prices=prices_of(scenario, scenario.gpu),
        training_tier=pricing.training_tier, baseline_tier=pricing.serving_baseline_tier,
        baseline_gpus=pricing.serving_baseline_gpus, spot_overhead=pricing.spot_overhead,
        owning=Owning(server_price=gpu.server_price, server_kw=gpu.server_kw, **own.model_dump()),
        active_users=unit.active_users, price_input_per_million=unit.price_input_per_million,
        price_output_per_million=unit.price_output_per_million,
        average_month=AverageMonth(training_cost=budget["training_cost"], serving_cost=budget["serving_cost"],
                                   standby_cost=budget["standby_cost"] if b.include_standby else 0.0)
        if not isinstance(budget["total_cost"], str) else None, include_standby=b.include_standby,
        average_month_na=budget["total_cost"] if isinstance(budget["total_cost"], str) else "",
        fleet=fleet, fleet_section=scenario.fleet is not None, average_months=budget["serving_months"],
        past_deadline=past_deadline(scenario, hours["days"]))


def fleet_columns(scenario, tables) -> PlanFleet | None:
    """Where the Fleet comes into the plan (§13.9, §13.15): with a `fleet` section, the configuration it chose at
    launch, which sizes G_k and U_k month by month from the calendar's demand (None when no configuration meets the
    SLO: serving money is then n/a); without one, None, and the calendar sizes serving from the Serving roofline at
    the users."""
    if scenario.fleet is None:
        return None
    return PlanFleet.of(tables["fleet"], scenario.fleet.spare)


def serving_gpu(scenario, tables) -> str:
    """The GPU that serves: the fleet's overall cheapest when it has one that meets the SLO, else `gpu`."""
    if scenario.fleet is not None and tables["fleet"].cheapest is not None:
        return tables["fleet"].cheapest["gpu"]
    return scenario.gpu


def prices_of(scenario, gpu_id: str) -> Prices:
    """A GPU's prices: on demand (the scenario's price for `gpu`, else its Catalog row's), its tier quotes and the
    tiers' ratios."""
    gpu, pricing = scenario.merged_catalog.gpus[gpu_id], scenario.pricing
    return Prices(on_demand=scenario.gpu_price if gpu_id == scenario.gpu else gpu.price_per_hour,
                  committed_1y=gpu.price_committed_1y, committed_3y=gpu.price_committed_3y, spot=gpu.price_spot,
                  committed_1y_ratio=pricing.committed_1y_ratio, committed_3y_ratio=pricing.committed_3y_ratio,
                  spot_ratio=pricing.spot_ratio)


def plan_profile(scenario) -> tuple:
    """The plan's demand profile: the fleet's (flat, 1 in every hour, for none) with a fleet, else the Cluster's."""
    profiles = scenario.merged_catalog.profiles
    if scenario.fleet is None:
        return tuple(profiles[scenario.cluster.profile])
    chosen = scenario.fleet.day_profile(scenario.cluster.profile)
    return tuple(profiles[chosen]) if chosen else (1.0,) * HOURS_PER_DAY


def compute(scenario, tables) -> "CostTable":
    """The cost table of a scenario (the table registry's entry): its plan, on the day the outputs are generated
    (`tables.generated`), priced month by month."""
    generated = getattr(tables, "generated", None)
    if generated is None:
        raise ValueError("the cost of ownership needs the day the outputs are generated (Tables.generated)")
    return cost_of(plan_for(scenario, tables, generated, fleet=fleet_columns(scenario, tables)))


def row_count(training_months: int, horizon_days_max: float, days_per_month: float = DAYS_PER_MONTH) -> int:
    """The most month rows a plan can need: §9's training months × 3 (spot with ω up to 2), the calendar months of
    the longest horizon (one more than its average months, as a span may touch a month at each end), 36 for a
    commitment that outlasts the plan and 1 for a start in mid-month."""
    return 3 * training_months + math.ceil(cal.round9(horizon_days_max / days_per_month)) + 1 + 36 + 1


CALENDAR_ROWS_MAX = row_count(TRAINING_MONTHS_MAX, HORIZON_MAX_DAYS)  # the most calendar rows: the longest plan


def month_row_count(p: "Plan", t: "Timeline", end: float) -> int:
    """The calendar's rows: an edited workbook's, else the plan's months (and the rows a Fleet's average months read,
    k_L … k_L + m − 1) and budget.spare_months more, at most CALENDAR_ROWS_MAX."""
    if p.rows is not None:
        return p.rows
    needed = max(cal.plan_months(p.start, end), t.launch_month - 1 + p.average_months)
    return min(needed + p.spare_months, CALENDAR_ROWS_MAX)


# Prices ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TierPrices:
    """Per GPU-hour in the reporting currency: each tier's quote × fx, or its ratio × the converted on-demand
    price, so editing the on-demand price moves every tier without a quote."""

    on_demand: float
    committed_1y: float
    committed_3y: float
    spot: float

    def of(self, tier: str) -> float:
        return getattr(self, tier)


def tier_prices(prices: Prices, fx: float) -> TierPrices:
    """p_od = price × fx; p_tier = IF(quote blank, ratio × p_od, quote × fx)."""
    on_demand = prices.on_demand * fx

    def tier(quote, ratio):
        return ratio * on_demand if quote is None else quote * fx

    return TierPrices(on_demand, tier(prices.committed_1y, prices.committed_1y_ratio),
                      tier(prices.committed_3y, prices.committed_3y_ratio), tier(prices.spot, prices.spot_ratio))


# Training at its tier -------------------------------------------------------------------------------------------------
TRAINING_DAYS_MAX = 36_525  # a century: a longer run is past the Budget's month rows anyway, and its dates stay
# within what a spreadsheet's date functions take (to 9999-12-31)


def training_days(days: float, tier: str, spot_overhead: float) -> float:
    """D_tr: §2's wall-clock days, × (1 + ω) on spot; at most TRAINING_DAYS_MAX (the plan is then longer than the
    sheet's months, its money n/a)."""
    return min(days * (1 + spot_overhead) if tier == "spot" else days, TRAINING_DAYS_MAX)


def training_term_months(tier: str, days: float) -> int:
    """12 or 36 for a committed tier, else 0; 0 without training (A = 0), which commits nothing."""
    return TERM_MONTHS.get(tier, 0) if days > 0 else 0


def training_tier_cost(p: Plan, price: float, commitment_end: float) -> float:
    """Committed: N_run·24·(C_tr − S)·p_T, every hour of the terms; else A·(1 + ω on spot)·p_T."""
    if training_term_months(p.training_tier, p.training_days):
        return p.run_gpus * HOURS_PER_DAY * (commitment_end - p.start) * price
    return p.allocated_gpu_hours * (1 + p.spot_overhead if p.training_tier == "spot" else 1) * price


# Serving's hourly shape -----------------------------------------------------------------------------------------------
def scale(gpu_hours, serving_days, profile_sum):
    """ĝ_k = U_k/(v_k·Σf): the month's GPUs in use at a profile fraction of 1; 0 without serving days."""
    gpu_hours, serving_days = np.asarray(gpu_hours, dtype=float), np.asarray(serving_days, dtype=float)
    ok = (serving_days > 0) & (profile_sum > 0)
    return np.where(ok, gpu_hours / np.where(ok, serving_days * profile_sum, 1.0), 0.0)


def peak_gpus(scales, profile):
    """G_k = CEILING(ROUND(ĝ_k·MAX(f), 9), 1): the peak hour in use, in whole GPUs, no spare."""
    return np.ceil(cal.round9(np.asarray(scales, dtype=float) * max(profile)))


def burst_gpu_hours(scales, serving_days, profile, baseline, hourly=None):
    """X_k(B) = v_k·Σ_h MAX(0, ĝ_k·f_h − B): GPU-hours above a baseline of B GPUs. As the sheet: v_k·(ĝ_k·SUMIF(f,
    ">"&ROUND(B/ĝ_k, 9)) − B·COUNTIF(f, ">"&ROUND(B/ĝ_k, 9))), the threshold rounded so every application reads
    the same hours above it. With a fleet's hourly GPUs G_{h,k}: v_k·Σ_h MAX(0, G_{h,k} − B)."""
    serving_days = np.asarray(serving_days, dtype=float)
    if hourly is not None:
        return serving_days * np.maximum(0.0, np.asarray(hourly, dtype=float) - baseline).sum(axis=1)
    scales, f = np.asarray(scales, dtype=float), np.asarray(profile, dtype=float)
    found = np.zeros_like(scales)
    used = scales > 0
    threshold = cal.round9(baseline / scales[used])
    above = f[None, :] > threshold[:, None]
    found[used] = serving_days[used] * (scales[used] * (f * above).sum(axis=1) - baseline * above.sum(axis=1))
    return found


def large(values, n: int) -> float:
    """LARGE(values, n): the n-th largest."""
    return sorted(values, reverse=True)[n - 1]


@dataclass(frozen=True)
class Baseline:
    """The serving commitment: its term, end, effective price, the break-even hours and the suggested size."""

    term_months: int
    end: float  # C_s, the end of the terms covering [L, E)
    price: float  # p_c
    effective_price: float | str  # p_eff = p_c·(C_s − L)/H_d
    hours: int | str  # h*
    launch_scale: float  # ĝ_{k_L}
    suggested: int  # B*
    used: float  # B_c


def baseline_hours(effective_price, on_demand: float, horizon_days: float) -> int | str:
    """h* = MIN(24, MAX(1, CEILING(ROUND(24·p_eff/p_od, 9), 1))): the hours a day demand must reach a committed GPU
    for it to pay; at least 1, so a quote of 0 covers the peak hour."""
    if horizon_days == 0:
        return NO_SERVING
    if on_demand == 0:
        return PRICE_ZERO
    return int(min(HOURS_PER_DAY, max(1, math.ceil(cal.round9(HOURS_PER_DAY * effective_price / on_demand)))))


def baseline(p: Plan, tiers: TierPrices, launch: float, end: float, launch_month: int) -> Baseline:
    """The suggested baseline B* (a newsvendor rule): 0 without serving days or at an on-demand price of 0, or when
    the commitment costs more per served day than on-demand; else INT(ROUND(ĝ_{k_L}·LARGE(f, h*), 9)) whole GPUs at
    the launch month's demand."""
    term = TERM_MONTHS[p.baseline_tier]
    commit_end = cal.commitment_end(launch, end, term)
    price = tiers.of(p.baseline_tier)
    effective = price * (commit_end - launch) / p.horizon_days if p.horizon_days > 0 else NO_SERVING
    hours = baseline_hours(effective, tiers.on_demand, p.horizon_days)
    launch_scale, hourly = _launch_demand(p, launch, end, launch_month)
    if isinstance(hours, str) or effective >= tiers.on_demand:
        suggested = 0
    elif hourly is not None:
        suggested = int(math.floor(cal.round9(large(hourly, hours))))
    else:
        suggested = int(math.floor(cal.round9(launch_scale * large(p.profile, hours))))
    used = suggested if p.baseline_gpus is None else p.baseline_gpus
    return Baseline(term_months=term, end=commit_end, price=price, effective_price=effective, hours=hours,
                    launch_scale=launch_scale, suggested=suggested, used=used)


def _launch_demand(p: Plan, launch: float, end: float, launch_month: int):
    """ĝ_{k_L}, read directly, not from the month rows (their flag reads the plan's end, which reads B*): without a
    fleet D/(3600·TokS·Σf); with one its GPU-hours a day at launch ÷ Σf, and its GPUs hour by hour at launch."""
    profile_sum = sum(p.profile)
    if p.fleet is None:
        ok = p.serving_fits and profile_sum > 0 and p.tokens_per_s_per_gpu > 0
        return (p.tokens_per_day / (SECONDS_PER_HOUR * p.tokens_per_s_per_gpu * profile_sum) if ok else 0.0), None
    hourly = p.fleet.hours(1.0)
    return (sum(hourly) / profile_sum if profile_sum > 0 else 0.0), hourly


# Owning ---------------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class OwnedRates:
    """Per owned GPU per day, in the reporting currency."""

    depreciation: float  # δ = P·(1 − R)/(Y·365.25)
    facility: float  # φ = kW·c_dc·12/365.25
    staff: float  # σ = (n_staff/1000)·c_staff/365.25
    energy: float  # ε = 24·kW·s_p·PUE·c_kWh

    @property
    def running(self) -> float:
        """φ + σ + ε: the opex, which escalates."""
        return self.facility + self.staff + self.energy

    @property
    def cost_per_gpu_hour(self) -> float:
        """c_own = (δ + φ + σ + ε)/24, the full-use cost of an owned GPU-hour."""
        return (self.depreciation + self.running) / HOURS_PER_DAY


def owned_rates(o: Owning, fx: float, server_price: float | None = None,
                server_kw: float | None = None) -> OwnedRates | None:
    """The daily rates of one owned GPU (another GPU's price and kW when given, as the GPUs sheet's rows); None when
    the Catalog row has no server price or kW."""
    price = o.server_price if server_price is None else server_price
    kw = o.server_kw if server_kw is None else server_kw
    if price is None or kw is None:
        return None
    return OwnedRates(depreciation=price * fx * (1 - o.residual_value) / (o.useful_life_years * DAYS_PER_YEAR),
                      facility=kw * o.datacenter_per_kw_month * fx * cal.MONTHS_PER_YEAR / DAYS_PER_YEAR,
                      staff=o.staff_per_1000_gpus / 1000 * o.staff_cost_per_year * fx / DAYS_PER_YEAR,
                      energy=HOURS_PER_DAY * kw * o.power_share * o.pue * o.price_per_kwh * fx)


def break_even_utilisation(cost_per_gpu_hour: float, price: float) -> float | str:
    """u* = c_own/p: owning costs less when the owned GPUs are busy more than u* of all hours; above 1, never."""
    if price == 0:
        return PRICE_ZERO
    return NEVER if cost_per_gpu_hour > price else cost_per_gpu_hour / price  # compared, as the sheet


def tokens_per_s_per_mw(tokens_per_s_per_gpu: float, server_kw: float, pue: float) -> float:
    """TokS·1000/(kW·PUE): output tokens per second per MW of all-in facility power, provisioned (no s_p)."""
    return tokens_per_s_per_gpu * 1000 / (server_kw * pue)


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


def owned_columns(p: Plan, m: cal.Months, t: Timeline, gpus_k) -> tuple[Ownership, dict]:
    """N_own·δ·ov_k(O_s, MIN(E, life end)) depreciation; N_own·(φ + σ + ε)·e_k·ov_k(O_s, E) opex; capex in the
    month that holds O_s; the book value N_own·P − Σ depreciation back in the month that holds E."""
    o, rates = p.owning, owned_rates(p.owning, p.fx)
    start = p.start if o.training else t.launch
    life_end = start + DAYS_PER_YEAR * o.useful_life_years
    if o.gpus is not None:
        gpus = o.gpus
    else:
        gpus = int(max(np.max(gpus_k, initial=0.0), p.run_gpus if o.training else 0))
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
    owned_training = 0.0 if p.owning.training else c["training"]
    for path in PATHS:
        training = owned_training if path == "owned" else c["training"]
        c[f"{path}_serving"] = serving[path]
        c[f"{path}_subtotal"] = training + c["other"] + serving[path]
        c[f"{path}_contingency"] = p.contingency * c[f"{path}_subtotal"]
        c[f"{path}_total"] = c[f"{path}_subtotal"] + c[f"{path}_contingency"]
        c[f"{path}_cash"] = c[f"{path}_total"]
    c["owned_cash"] = (owned_training + c["other"] + c["burst_owned"] + c["opex"] + c["capex"]
                       - c["book_value"]) * (1 + p.contingency)
    return c


# Totals ---------------------------------------------------------------------------------------------------------------
def plan_end(t: Timeline, b: Baseline) -> float:
    """The latest of E and the ends of any commitment in use (a committed training tier, or B_c > 0), whatever the
    budget's path: the calendar is shared."""
    return max(t.end, t.training_commitment_end if t.training_term_months else 0.0, b.end if b.used > 0 else 0.0)


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


BRIDGE_LINES = [("average_month_total", "Average-month budget (§9)"),
                ("standby", "Standby by calendar month, less §9's"), ("training_tier", "Training at its tier"),
                ("calendar_months", "Calendar months"), ("other", "Other monthly costs"), ("escalation", "Escalation"),
                ("path", "Path"), ("contingency", "Contingency")]


def bridge(p: Plan, t: Timeline, m: cal.Months, c: dict, sums: dict) -> list[dict]:
    """From §9's average-month total to this plan's: standby (the calendar's in place of §9's), the training tier,
    calendar months, other costs at e = 1, escalation, the path and contingency; each line a difference of computed
    totals, so it adds up."""
    avg = p.average_month
    if avg is None:  # no average-month total to start from: each line says why
        return [{"line": key, "label": label, "amount": p.average_month_na} for key, label in BRIDGE_LINES
                + [("total", "Total")]] if p.average_month_na else []
    p_od = tier_prices(p.prices, p.fx).on_demand
    at_od = float(np.sum(c["serving_gpu_hours"] * p_od))
    standby = float(np.sum(c["standby"] / m.escalation)) if p.include_standby else 0.0
    other = p.other_monthly_cost * p.fx * float(np.sum(c["plan_days"] / m.days))
    path = p.path
    amounts = [avg.total_cost, standby - avg.standby_cost, t.training_tier_cost - avg.training_cost,
               at_od - avg.serving_cost, other,
               sums["on_demand_subtotal"] - (t.training_tier_cost + at_od + standby + other),
               sums[f"{path}_subtotal"] - sums["on_demand_subtotal"], sums[f"{path}_contingency"]]
    lines = [(key, label, to_the_cent_of(amount)) for (key, label), amount in zip(BRIDGE_LINES, amounts)]
    return [{"line": key, "label": label, "amount": amount} for key, label, amount in lines] + [
        {"line": "total", "label": "Total", "amount": sum(amount for _, _, amount in lines)}]


def to_the_cent_of(amount: float) -> float:
    """ROUND(x, 2) as a spreadsheet rounds (the 15-digit decimal, halves away from zero): a bridge line that is 0 by
    the method (calendar months without growth, escalation at 0) is a difference of two large sums, whose last
    digits no two applications compute alike (1e-4 on a plan of billions); to the cent they agree."""
    return float(Decimal(f"{amount:.15g}").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


# Unit economics -------------------------------------------------------------------------------------------------------
def unit_economics(p: Plan, c: dict, sums: dict) -> dict:
    """For the chosen path: requests R_k = T_k/o, input tokens R_k·s, the serving cost with its contingency share;
    cost per request and per active user per month; with both prices charged, revenue, margins and the break-even
    output price."""
    serving = sums[f"{p.path}_serving"] * (1 + p.contingency)
    requests, outputs = float(np.sum(c["requests"])), float(np.sum(c["served_tokens"]))
    inputs = float(np.sum(c["input_tokens"]))
    found = {"serving_cost": serving, "requests": requests, "input_tokens": inputs, "output_tokens": outputs,
             "cost_per_request": serving / requests if p.horizon_days > 0 and requests > 0 else NO_SERVING,
             "cost_per_user_per_month": None, "revenue": None, "margin": None, "margin_share": None,
             "plan_margin": None, "break_even_price_output": None}
    if p.active_users is not None:
        months = p.horizon_days / DAYS_PER_MONTH
        found["cost_per_user_per_month"] = (NO_SERVING if p.horizon_days == 0 else NO_USERS
                                            if p.active_users == 0 else serving / months / p.active_users)
    if p.price_input_per_million is None or p.price_output_per_million is None:
        return found
    revenue = float(np.sum(c["revenue"]))
    found |= {"revenue": revenue, "margin": revenue - serving,
              "margin_share": (revenue - serving) / revenue if revenue > 0 else NO_REVENUE,
              "plan_margin": revenue - sums[f"{p.path}_total"],
              "break_even_price_output": ((serving - inputs * p.price_input_per_million * p.fx / 1e6)
                                          / (outputs / 1e6) if outputs > 0 else NO_SERVING)}
    return found


def unit_columns(p: Plan, c: dict) -> None:
    """Requests, input tokens and revenue by month: R_k = T_k/o, I_k = R_k·s, (I_k·p_in + O_k·p_out)/1e6·fx."""
    c["requests"] = c["served_tokens"] / p.output_tokens
    c["input_tokens"] = c["requests"] * p.prompt_tokens
    if p.price_input_per_million is not None and p.price_output_per_million is not None:
        c["revenue"] = ((c["input_tokens"] * p.price_input_per_million + c["served_tokens"]
                         * p.price_output_per_million) / 1e6 * p.fx)





# Checks ---------------------------------------------------------------------------------------------------------------
def close(a: float, b: float, scale_of: float | None = None) -> bool:
    """Equal to a relative 1e-9 (of `scale_of` when given, else of the larger)."""
    reference = max(abs(a), abs(b)) if scale_of is None else abs(scale_of)
    return a == b or abs(a - b) <= RELATIVE * reference


def checks(p: Plan, t: Timeline, own: Ownership, sums: dict, extra: dict) -> dict[str, bool]:
    """The failures: inputs the calendar cannot use, the month rows running out, and the reconciliations."""
    at_od_serving = extra["bridge"]["calendar_months"]
    flat = p.monthly_growth == 0
    average = p.average_month
    committed = t.training_term_months > 0
    return {
        "tco_start_date_in_range": FIRST_START <= p.start < LAST_START + 1,
        "tco_first_fiscal_month_valid": p.first_fiscal_month in range(1, 13),
        "tco_fx_rate_positive": p.fx > 0,
        "tco_fx_rate_one_for_usd": p.currency != "USD" or p.fx == 1,
        "tco_profile_has_demand": sum(p.profile) > 0,
        "tco_horizon_not_negative": p.horizon_days >= 0,
        "tco_owned_training_gpus": not p.owning.training or isinstance(own.gpus, str) or own.gpus >= p.run_gpus,
        "tco_months_within_rows": extra["months"] <= extra["rows"],
        # days to a billionth of a day (a serial date near 50,000 holds a time to about 1e-11 days, so a run of a
        # few seconds ends where the next whole second of the calendar allows), money to a billionth of a day's
        "tco_training_days_add_up": close(sums["training_days"], t.training_days,
                                          scale_of=max(t.training_days, 1.0)),
        "tco_serving_days_add_up": close(sums["serving_days"], p.horizon_days, scale_of=max(p.horizon_days, 1.0)),
        "tco_training_cost_adds_up": (not committed and extra["months"] > extra["rows"]) or close(
            sums["training"] if committed else sums["training_at_e1"], t.training_tier_cost,
            scale_of=t.training_tier_cost / min(t.training_days, 1.0) if t.training_days else None),
        "tco_calendar_months_without_growth": not flat or average is None or close(
            at_od_serving, 0.0, scale_of=average.serving_cost),
        "tco_average_month_reconciles": not (flat and p.escalation == 0 and p.training_tier == "on_demand")
        or average is None or close(sums["on_demand_subtotal"] - sums["other"]
                                    - (sums["standby"] if p.include_standby else 0.0),
                                    average.training_cost + average.serving_cost),
        "tco_fiscal_years_add_up": close(extra["fiscal_year_total"], sums[f"{p.path}_total"]),
        # as the sheet: only while the owned path has a total (a plan past the rows misses E's book value)
        "tco_owned_cash_equals_accrual": owned_na(p, own, extra) or close(sums["owned_cash"], sums["owned_total"]),
    }


def owned_na(p: Plan, own: Ownership, extra: dict) -> bool:
    """The owned path's total reads n/a: a plan past the rows or the deadline, serving that does not fit, or no
    server price or kW."""
    return extra["months"] > extra["rows"] or p.past_deadline or not p.serving_fits or own.rates is None


def warnings(p: Plan, t: Timeline, b: Baseline, own: Ownership, c: dict) -> dict[str, bool]:
    """Warnings, not failures (TRUE: the warning holds): a pegged-looking rate, a plan that outlives the owned GPUs,
    a baseline above every month's GPUs, a training commitment mostly unused, a serving commitment longer than
    the serving it covers, and serving that does not fit."""
    unused = t.training_tier_cost - p.allocated_gpu_hours * t.training_price
    peak = float(np.max(c["committed_gpus"], initial=0.0))
    return {
        "tco_warn_rate_one_outside_usd": p.currency != "USD" and p.fx == 1,
        "tco_warn_plan_outlives_owned_gpus": own.rates is not None and t.end > own.life_end,
        "tco_warn_baseline_above_demand": b.used > 0 and b.used > peak,
        "tco_warn_training_commitment_unused": t.training_term_months > 0 and unused > 0.5 * t.training_tier_cost,
        "tco_warn_commitment_longer_than_serving": b.used > 0 and cal.months_to_cover(t.launch, t.end)
        < b.term_months,
        "tco_warn_serving_does_not_fit": not p.serving_fits,
    }


# The table ---------------------------------------------------------------------------------------------------------
MONEY = ("training", "other", "on_demand_serving", "standby", "baseline", "burst_committed", "burst_owned",
         "depreciation", "opex", "capex", "book_value", "revenue") + tuple(
    f"{path}_{key}" for path in PATHS for key in ("serving", "subtotal", "contingency", "total", "cash"))
SERVED = ("serving_gpu_hours", "scale", "committed_gpus", "burst_committed_gpu_hours", "burst_owned_gpu_hours")


@dataclass
class CostTable:
    """§13 for one plan: the named cells, every month row of the sheet (money blank outside the plan), the fiscal
    years, the bridge, the unit economics, the checks and the warnings."""

    scalars: dict
    rows: list[dict]
    fiscal_years: list[dict]
    bridge: list[dict]
    unit: dict
    checks: dict[str, bool]
    warnings: dict[str, bool]
    totals: dict = field(default_factory=dict)  # per path: subtotal, contingency, total, npv, cash (or "n/a …")
    plan: Plan | None = None  # what it was computed from: the Sensitivity's what-ifs start there

    @property
    def headline(self) -> dict:
        s, path, totals, u = self.scalars, self.scalars["path"], self.totals, self.unit
        standby = ("none" if not self.plan.include_standby else "on_demand" if path == "on_demand" else "other")
        found = {"plan_total_cost": totals[f"{path}_total"], "budget_total_cost": totals[f"{path}_total"],
                 "plan_standby_note": STANDBY_NOTES[standby],
                 "tco_total_cost": totals[f"{path}_total"], "tco_npv": totals[f"{path}_npv"],
                 "tco_subtotal": totals[f"{path}_subtotal"], "tco_contingency_cost": totals[f"{path}_contingency"],
                 "tco_training_cost": totals[f"{path}_training"], "tco_serving_cost": totals[f"{path}_serving"],
                 "tco_other_cost": totals["other"], "tco_months": s["months"], "tco_start_date": s["start_date"],
                 "tco_launch_date": s["launch_date"], "tco_end_date": s["serving_end"]}
        for p in PATHS:
            found |= {f"tco_{p}_total_cost": totals[f"{p}_total"], f"tco_{p}_npv": totals[f"{p}_npv"]}
        found |= {"pricing_committed_1y_price": s["price_committed_1y"],
                  "pricing_committed_3y_price": s["price_committed_3y"], "pricing_spot_price": s["price_spot"]}
        found |= {key: s[key] for key in ("serving_baseline_gpus_suggested", "serving_baseline_gpus_used",
                                          "own_gpus", "own_capex", "own_cost_per_gpu_hour",
                                          "own_break_even_utilisation", "own_utilisation",
                                          "own_cost_per_million_tokens", "tokens_per_s_per_mw")}
        return found | {"unit_cost_per_request": u["cost_per_request"],
                        "unit_cost_per_user_per_month": u["cost_per_user_per_month"], "unit_revenue": u["revenue"],
                        "unit_margin": u["margin"], "unit_margin_share": u["margin_share"],
                        "unit_break_even_price_output": u["break_even_price_output"]}

    def to_json(self) -> dict:
        keep = ("month", "month_start", "days", "fiscal_year", "training_days", "serving_days", "tokens_per_day",
                "serving_gpu_hours", "committed_gpus", "escalation", "discount") + MONEY
        named = {"escalation": "escalation_factor", "discount": "discount_factor"}
        months = [{named.get(key, key): (cal.date_of(r[key]).isoformat() if key == "month_start" else r[key])
                   for key in keep if key in r} for r in self.rows if r["in_plan"]]
        return {"calendar": {"months": months, "fiscal_years": self.fiscal_years},
                "cost": {**self.scalars, **self.totals, "bridge": self.bridge, "unit": self.unit,
                         "warnings": self.warnings}}

    def json_tables(self) -> dict:
        """The JSON's tables.calendar (the months in the plan, the fiscal years) and tables.cost."""
        return self.to_json()


def path_totals(p: Plan, c: dict, sums: dict, m: cal.Months, in_plan) -> dict:
    """Each path's subtotal, contingency, total, cash and NPV over the plan, and its training and serving parts."""
    found = {"other": sums["other"]}
    for path in PATHS:
        training = 0.0 if path == "owned" and p.owning.training else sums["training"]
        found |= {f"{path}_{key}": sums[f"{path}_{key}"] for key in ("serving", "subtotal", "contingency", "total",
                                                                      "cash")}
        found |= {f"{path}_training": training,
                  f"{path}_npv": npv(np.where(in_plan, c[f"{path}_cash"], 0.0), m.discount)}
    return found


def named_cells(p: Plan, sums: dict, *, t: Timeline, b: Baseline, own: Ownership, tiers: TierPrices) -> dict:
    """The Cost sheet's named cells (§13): dates, terms, prices, the baseline and the owned fleet."""
    cells = {"path": p.path, "currency": p.currency, "fx_rate": p.fx, "start_date": p.start,
             "training_days": t.training_days, "training_tier_cost": t.training_tier_cost, "launch_date": t.launch,
             "serving_end": t.end, "launch_month": t.launch_month, "training_term_months": t.training_term_months,
             "training_commitment_months": t.training_commitment_months,
             "training_commitment_end": t.training_commitment_end,
             "training_used_cost": p.allocated_gpu_hours * t.training_price * (t.training_term_months > 0),
             "serving_term_months": b.term_months,
             "serving_commitment_months": cal.months_to_cover(t.launch, t.end), "serving_commitment_end": b.end,
             "price_on_demand": tiers.on_demand, "price_committed_1y": tiers.committed_1y,
             "price_committed_3y": tiers.committed_3y, "price_spot": tiers.spot, "price_training": t.training_price,
             "price_baseline": b.price, "price_baseline_effective": b.effective_price, "launch_scale": b.launch_scale,
             "baseline_hours": b.hours, "serving_baseline_gpus_suggested": b.suggested,
             "serving_baseline_gpus_used": b.used, "own_gpus": own.gpus, "own_start": own.start,
             "own_life_end": own.life_end, "own_capex": own.capex, "own_book_value": own.book_value}
    cells["training_unused_cost"] = (t.training_tier_cost - cells["training_used_cost"]
                                     if t.training_term_months else 0.0)
    return cells | owned_cells(p, own, tiers, sums)


def owned_cells(p: Plan, own: Ownership, tiers: TierPrices, sums: dict) -> dict:
    """The owned GPU's daily rates, c_own, u* against each rented price, the plan's own utilisation, tokens per MW
    and the cost of a million output tokens rented at each tier and owned."""
    tok_s = p.tokens_per_s_per_gpu if p.serving_fits and p.tokens_per_s_per_gpu > 0 else None
    rented = {f"cost_per_million_{tier}": cost_per_million_tokens(tiers.of(tier), tok_s) if tok_s else p.serving_na
              for tier in TIERS}
    r = own.rates
    if r is None:
        keys = ("own_depreciation_per_day", "own_facility_per_day", "own_staff_per_day", "own_energy_per_day",
                "own_cost_per_gpu_hour", "own_break_even_utilisation", "own_break_even_utilisation_1y",
                "own_break_even_utilisation_3y", "own_utilisation", "own_cost_per_million_tokens",
                "own_cost_per_million_tokens_at_plan", "tokens_per_s_per_mw")
        return rented | dict.fromkeys(keys, NO_SERVER)
    c_own = r.cost_per_gpu_hour
    used = sums["serving_gpu_hours"] - sums["burst_owned_gpu_hours"]
    utilisation = (used / (own.gpus * HOURS_PER_DAY * p.horizon_days) if p.horizon_days > 0 and own.gpus > 0
                   else NO_SERVING)
    full_use = cost_per_million_tokens(c_own, tok_s) if tok_s else p.serving_na
    return rented | {
        "own_depreciation_per_day": r.depreciation, "own_facility_per_day": r.facility,
        "own_staff_per_day": r.staff, "own_energy_per_day": r.energy, "own_cost_per_gpu_hour": c_own,
        "own_break_even_utilisation": break_even_utilisation(c_own, tiers.on_demand),
        "own_break_even_utilisation_1y": break_even_utilisation(c_own, tiers.committed_1y),
        "own_break_even_utilisation_3y": break_even_utilisation(c_own, tiers.committed_3y),
        "own_utilisation": utilisation, "own_cost_per_million_tokens": full_use,
        "own_cost_per_million_tokens_at_plan": (full_use / utilisation if tok_s and not isinstance(utilisation, str)
                                                and utilisation > 0 else NO_SERVING),
        "tokens_per_s_per_mw": (tokens_per_s_per_mw(tok_s, p.owning.server_kw, p.owning.pue) if tok_s
                                else p.serving_na)}


def cost_of(p: Plan, *, rows: bool = True) -> CostTable:
    """§13 for one plan: the timeline, the month columns, the three paths, the totals, fiscal years, the bridge,
    unit economics, checks and warnings; without the month rows when only the totals are wanted (`rows`)."""
    tiers = tier_prices(p.prices, p.fx)
    t = timeline(p, tiers)
    b = baseline(p, tiers, t.launch, t.end, t.launch_month)
    end = plan_end(t, b)
    m = cal.months(p.start, month_row_count(p, t, end), first_fiscal_month=p.first_fiscal_month,
                   escalation=p.escalation, discount_rate=p.discount_rate)
    c = demand_columns(p, m, t)
    if (peak := max(float(np.max(c["committed_gpus"], initial=0.0)), b.suggested)) > GPUS_MAX:
        raise TooManyGPUs(peak, p.tokens_per_day, p.tokens_per_s_per_gpu, p.monthly_growth)
    in_plan = m.start < end
    c["training"] = training_column(p, m, t, c["training_days"])
    own, owned = owned_columns(p, m, t, c["committed_gpus"])
    c |= owned
    path_columns(p, m, c, t=t, b=b, own=own)
    unit_columns(p, c)
    sums = {key: float(np.sum(np.where(in_plan, value, 0.0))) for key, value in c.items()}
    sums["training_at_e1"] = float(np.sum(np.where(in_plan, c["training"] / m.escalation, 0.0)))
    totals = path_totals(p, c, sums, m, in_plan)
    years = fiscal_years(m, in_plan, c)
    lines = bridge(p, t, m, c, sums)
    extra = {"months": cal.plan_months(p.start, end), "rows": m.rows,
             "fiscal_year_total": sum(y[f"{p.path}_total"] for y in years),
             "bridge": {line["line"]: line["amount"] for line in lines} or {"calendar_months": 0.0}}
    scalars = named_cells(p, sums, t=t, b=b, own=own, tiers=tiers) | {"plan_end": end, "months": extra["months"]}
    table = CostTable(scalars=scalars, rows=month_rows(m, c, in_plan) if rows else [], fiscal_years=years,
                      bridge=lines,
                      unit=unit_economics(p, c, sums), checks=checks(p, t, own, sums, extra),
                      warnings=warnings(p, t, b, own, c), totals=totals, plan=p)
    table = _marked(table, p, own)
    if rows:
        chosen_columns(table, p)
    return table


CALENDAR = ("days", "plan_days", "training_days", "serving_days", "escalation", "discount", "anniversary",
            "served_tokens", "tokens_per_day", "serving_gpu_hours", "scale", "committed_gpus", "requests",
            "input_tokens", "burst_committed_gpu_hours", "burst_owned_gpu_hours")
FLEET_CALENDAR = tuple(f"fleet_gpus_hour_{h}" for h in range(HOURS_PER_DAY)) + ("fleet_gpu_hours_a_day",
                                                                               "fleet_peak_gpus")


def month_rows(m: cal.Months, c: dict, in_plan) -> list[dict]:
    """Every row of the sheet: the calendar and demand columns on every row, labels and money only in the plan."""
    columns = {"days": m.days, "escalation": m.escalation, "discount": m.discount, **c}
    calendar = {key: np.asarray(columns[key], dtype=float).tolist() for key in CALENDAR + FLEET_CALENDAR
                if key in columns}
    money = {key: np.asarray(columns[key], dtype=float).tolist() for key in MONEY if key in columns}
    starts, nexts, years = m.start.tolist(), m.next.tolist(), m.fiscal_year.tolist()
    rows = []
    for i, inside in enumerate(in_plan.tolist()):
        row = {"month": i + 1, "month_start": starts[i], "next_month_start": nexts[i], "in_plan": inside,
               "fiscal_year_number": years[i], "fiscal_year": cal.fiscal_label(years[i]) if inside else ""}
        row |= {key: values[i] for key, values in calendar.items()}
        row |= {key: values[i] if inside else "" for key, values in money.items()}
        rows.append(row)
    return rows


OWNED = ("depreciation", "opex", "capex", "book_value", "burst_owned")  # the owned path's own month columns


def _unpriced_owning(table: CostTable, p: Plan) -> None:
    """Without the GPU's server price or kW the owned path reads "n/a", not on-demand's money under its name."""
    def owned(key):
        return key.startswith("owned_") or key in OWNED

    table.totals = {key: NO_SERVER if owned(key) else value for key, value in table.totals.items()}
    table.fiscal_years = [{key: NO_SERVER if owned(key) else value for key, value in fy.items()}
                          for fy in table.fiscal_years]
    for row in table.rows:
        if row["in_plan"]:
            row |= {key: NO_SERVER for key in row if owned(key)}
    if p.path == "owned":
        table.unit = {key: NO_SERVER if isinstance(value, float) else value for key, value in table.unit.items()}
        table.bridge = [{**line, "amount": NO_SERVER} for line in table.bridge]


def rows_na(table: CostTable) -> str:
    """Why every money figure of the plan is n/a, as the Cost sheet's plan_rows_na says it ("" while it holds): a
    plan longer than the sheet's month rows, or a training run past the layout search's deadline."""
    if not table.checks["tco_months_within_rows"]:
        return TOO_LONG
    return PAST_DEADLINE if table.plan.past_deadline else ""


def money_na(table: CostTable) -> str:
    """Why the plan's money is n/a, as the Cost sheet's plan_money_na says it ("" while it holds)."""
    return rows_na(table) or ("" if table.plan.serving_fits else table.plan.serving_na)


def _marked(table: CostTable, p: Plan, own: Ownership) -> CostTable:
    """Money whose premises fail reads "n/a" with the reason: an owned path without a server price; serving that
    does not fit (every path's serving and the totals; training and other costs stay); a plan longer than the
    sheet's month rows or a run past the deadline (every total)."""
    if own.rates is None:
        _unpriced_owning(table, p)
    na = p.serving_na
    reason = rows_na(table) or (na if not p.serving_fits else None)
    if reason is None:
        return table
    kept = ("other",) + tuple(f"{path}_training" for path in PATHS) if reason == na else ()
    table.totals = {key: value if key in kept else reason for key, value in table.totals.items()}
    table.unit = {key: reason if isinstance(value, float) else value for key, value in table.unit.items()}
    table.bridge = [{**line, "amount": reason} for line in table.bridge]
    table.fiscal_years = [{key: value if key in ("fiscal_year", "months") else reason for key, value in fy.items()}
                          for fy in table.fiscal_years]
    stay = ("training", "other") if reason == na else ()
    for row in table.rows:
        if row["in_plan"]:
            row |= {key: reason for key in MONEY if key in row and key not in stay}
            if not p.serving_fits:
                row |= dict.fromkeys(SERVED, na)
    if p.serving_fits:  # the baseline and the owned fleet read the plan's end: a plan too long leaves them be
        return table
    s = table.scalars  # read the serving, not the plan's length: its reason, whatever else fails
    s |= {"serving_baseline_gpus_suggested": na, "launch_scale": na, "own_utilisation": na,
          "own_cost_per_million_tokens_at_plan": na}
    if p.baseline_gpus is None:
        s["serving_baseline_gpus_used"] = na
    if p.owning.gpus is None:
        s |= {"own_gpus": na, "own_capex": na, "own_book_value": na}
    return table


def chosen_columns(table: CostTable, p: Plan) -> None:
    """The chosen path's training, serving, contingency and total on each plan row, its cumulative, and the month
    the Budget's chart places each row at: its own in the plan, the plan's last month after it (so a date axis
    spans the plan's months, however many rows follow)."""
    path, cumulative = p.path, None
    last = next((r["month_start"] for r in reversed(table.rows) if r["in_plan"]), table.rows[0]["month_start"])
    for row in table.rows:
        row["chart_month"] = row["month_start"] if row["in_plan"] else last
        if not row["in_plan"]:
            row |= dict.fromkeys(("chosen_training", "chosen_serving", "chosen_contingency", "total", "cumulative"),
                                 "")
            continue
        own_training = path == "owned" and p.owning.training
        total = row[f"{path}_total"]
        row |= {"chosen_training": 0.0 if own_training else row["training"],
                "chosen_serving": row[f"{path}_serving"], "chosen_contingency": row[f"{path}_contingency"],
                "total": total}
        if cumulative is None:
            cumulative = total
        elif isinstance(total, str) or isinstance(cumulative, str):
            cumulative = total if isinstance(total, str) else cumulative
        else:
            cumulative += total
        row["cumulative"] = cumulative


CONSTANTS = [
    Constant("days_per_year", DAYS_PER_YEAR, label="Days per year (Julian)", unit="days",
             source="365.25: depreciation and staff by day, and whole years of a useful life"),
    Constant("training_days_max", TRAINING_DAYS_MAX, label="The longest run the calendar places", unit="days",
             source="A century: a longer run is past the Budget's month rows (its money n/a), and its dates stay "
             "within what a spreadsheet's date functions take"),
    Constant("day_rounding_decimals", cal.ROUNDING_DECIMALS, label="Decimals a month's days are rounded to",
             unit="decimals", source="A billionth of a day: a serial date holds its time of day to about 1e-11 days, "
             "which spreadsheet applications compute alike only once rounded"),
]

METHOD = Method(
    title="Cost of ownership on the calendar: three paths, the plan's total",
    formulas=[
        "The calendar: the plan starts on the start date S (blank: the first of the month after the workbook was "
        "generated); month k runs from M_k = EOMONTH(S, k − 2) + 1 to the next month's start, 28 to 31 days. "
        "Training takes D_tr = §2's days (× (1 + ω) on spot) from S; launch L = S + D_tr; serving ends E = L + "
        "horizon. A month's training, serving and plan days are the overlaps of those spans with it.",
        "Served tokens step up by the growth g on each monthly anniversary of the launch (EDATE), the days before "
        "it at the old level; U_k = T_k/(3600·TokS) GPU-hours; ĝ_k = U_k/(v_k·Σf) GPUs at a profile fraction of 1; "
        "G_k = CEIL9(ĝ_k·MAX(f)), the month's peak hour.",
        "Prices per GPU-hour, each × fx where it enters: on demand p_od (the scenario's price or the Catalog's), "
        "committed 1- and 3-year and spot from the Catalog's quotes, else the scenario's ratios × p_od. Training "
        "at its tier: on demand and spot by the day (× e_k), committed as whole terms of N_run GPUs.",
        "On demand: U_k·p_od·e_k, plus the standby (24·v_k·G_k − U_k)·p_od·e_k when it is included. Committed: a "
        "baseline B_c (blank: the suggested B*, the newsvendor rule at the launch month's demand) paid for every "
        "hour of whole terms from L, plus the burst above it on demand. Owned: N_own GPUs (blank: the largest "
        "G_k) bought at L (or S when they train), depreciated straight-line by day to the residual over the "
        "useful life, with facility, staff and energy by day; the burst above N_own on demand.",
        "Each path's subtotal = training + other costs + serving; contingency = κ × subtotal; total = subtotal + "
        "contingency; escalation e_k = (1 + esc)^INT((k − 1)/12) on on-demand and spot prices, owned running "
        "costs and other costs, not on commitments or purchases. Cash = total on the rented paths; on the owned "
        "path, capex when bought and the book value back when serving ends. NPV = SUMPRODUCT(cash, (1 + r)^(−k/12)).",
        "The plan's total is the chosen path's total: the Budget's total, the Sensitivity's and the Cover's. The "
        "bridge from the average-month budget: its standby, the training tier, calendar months, other costs, "
        "escalation, the path and contingency, each a difference of computed totals.",
    ],
    sources=[
        "The Hours (§2), Crossover (§3), Serving (§6) and Budget (§9) tables' GPU-hours, placed on calendar months.",
        "Prices, server prices and kW per GPU are illustrative Catalog values (docs/method.md §13 names sources).",
        "EOMONTH and EDATE as Excel, LibreOffice and Gnumeric compute them (EDATE clamps to a month's last day).",
    ],
    caveats=[
        "Not modelled: taxes and the tax effect of depreciation; leases and financing other than through the "
        "discount rate; prepayments; replacing owned GPUs after their useful life; spot capacity that is not "
        "there when wanted; price changes inside a commitment's term.",
        "Commitments renew at the same rate and do not escalate; with escalation the paths compare an escalating "
        "on-demand price against a flat committed one.",
    ],
)
