"""What the plan reads, as plain values (`Plan`, its prices and owning inputs), from a scenario and its Hours,
Crossover, Serving, Budget and Fleet results: money inputs in USD, converted once where each enters (× fx)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING


from planner.engine import calendar as cal
from planner.engine.shared import FLEET_POOLED, HOURS_PER_DAY, NO_FLEET_SERVES, NOT_SERVED, past_deadline

if TYPE_CHECKING:  # the Fleet's engine is imported only with a fleet section
    from planner.engine.fleet import PlanFleet

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
    training: bool  # ownership.training: the owned path trains on GPUs it buys, not rented ones
    training_gpus: int | None = None  # the GPUs it holds for training: N_run when training shares this owned fleet
    # (its GPU is `gpu`), else 0; None: N_run when `training`, as for one GPU type (months.held_for_training)
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
    fleet_mixed: bool = False  # the fleet's cheapest is mixed (§15.1): one serving GPU cannot price it, serving n/a
    training_line: Owning | None = None  # owned training on a GPU type no pool serves on: its own line (§13.15)

    @property
    def serving_na(self) -> str:
        """Why serving money reads n/a when serving does not fit: the users (B > B_max), or with a fleet its SLO."""
        if self.fleet_mixed:
            return FLEET_POOLED
        return NO_FLEET_SERVES if self.fleet_section else NOT_SERVED


def plan_for(scenario, tables, generated: dt.date, fleet: PlanFleet | None = None, rows: int | None = None) -> Plan:
    """The plain values a scenario gives §13, with its Hours, Crossover, Serving and Budget results: the start date
    (blank: the first of the month after `generated`), the chosen GPU's Catalog prices and server, and §9's
    average-month figures for the bridge (already in the reporting currency); `rows`: an edited workbook's calendar
    rows to lay the plan on (None: its own months and the spare ones)."""
    b, pricing, own, unit = scenario.budget, scenario.pricing, scenario.ownership, scenario.unit
    served_gpu = serving_gpu(scenario, tables)  # one serving GPU: the fleet's when it has one
    gpu = scenario.merged_catalog.gpus[served_gpu]
    hours, budget = tables["hours"].scalars, tables["budget"].scalars
    serving = tables["serving"].headline
    start = dt.date.fromisoformat(b.start_date) if b.start_date else cal.first_of_next_month(generated)
    fx = scenario.fx_rate
    fits = bool(serving["serving_fits"]) if scenario.fleet is None else fleet is not None  # with a fleet: its SLO
    sv = scenario.serving
    apart = trains_apart(scenario, tables)
    return Plan(
        start=cal.serial(start), spare_months=b.spare_months, rows=rows, currency=scenario.currency, fx=fx,
        first_fiscal_month=b.first_fiscal_month, escalation=b.escalation, contingency=b.contingency,
        discount_rate=b.discount_rate, other_monthly_cost=b.other_monthly_cost, path=b.path,
        allocated_gpu_hours=hours["allocated_gpu_hours"], training_days=hours["days"], run_gpus=scenario.hours.gpus,
        tokens_per_day=tables["crossover"].scalars["tokens_per_day"], horizon_days=scenario.crossover.horizon_days,
        monthly_growth=b.monthly_growth, tokens_per_s_per_gpu=serving["serving_tokens_per_s_per_gpu"] or 0.0,
        serving_fits=fits, profile=plan_profile(scenario),
        prompt_tokens=sv.prompt_tokens, output_tokens=sv.sequence_length - sv.prompt_tokens,
        prices=prices_of(scenario, served_gpu), training_prices=prices_of(scenario, scenario.gpu),
        training_tier=pricing.training_tier, baseline_tier=pricing.serving_baseline_tier,
        baseline_gpus=one_number(pricing.serving_baseline_gpus), spot_overhead=pricing.spot_overhead,
        owning=Owning(server_price=gpu.server_price, server_kw=gpu.server_kw,
                      **(own.model_dump() | {"gpus": one_number(own.gpus), "training_gpus": 0 if apart else None})),
        training_line=training_line(scenario) if apart else None,
        active_users=unit.active_users, price_input_per_million=unit.price_input_per_million,
        price_output_per_million=unit.price_output_per_million,
        average_month=AverageMonth(training_cost=budget["training_cost"], serving_cost=budget["serving_cost"],
                                   standby_cost=budget["standby_cost"] if b.include_standby else 0.0)
        if not isinstance(budget["total_cost"], str) else None, include_standby=b.include_standby,
        average_month_na=budget["total_cost"] if isinstance(budget["total_cost"], str) else "",
        fleet=fleet, fleet_section=scenario.fleet is not None, average_months=budget["serving_months"],
        fleet_mixed=fleet_mixed(scenario, tables),
        past_deadline=past_deadline(scenario, hours["days"]))


def serving_gpus(scenario, tables) -> tuple:
    """The GPU types that serve: the Fleet's cheapest configuration's (its two pools' when mixed, §15.1), or `gpu`
    without a fleet or when no configuration meets the SLO."""
    best = tables["fleet"].cheapest if scenario.fleet is not None else None
    if best is None:
        return (scenario.gpu,)
    return (best["prefill_gpu"], best["decode_gpu"]) if fleet_mixed(scenario, tables) else (best["gpu"],)


def trains_apart(scenario, tables) -> bool:
    """Owned training on a GPU type no serving GPU is (§13.15 "One serving GPU", §15.1): the owned path buys the
    run's GPUs on a line of their own; else training shares the owned fleet of its type."""
    return scenario.ownership.training and scenario.gpu not in serving_gpus(scenario, tables)


def training_line(scenario) -> Owning:
    """The owned training GPUs' line: N_run of `gpu`, at its Catalog server price and kW, bought on S."""
    gpu, own = scenario.merged_catalog.gpus[scenario.gpu], scenario.ownership
    return Owning(server_price=gpu.server_price, server_kw=gpu.server_kw,
                  **(own.model_dump() | {"gpus": None, "training": True, "training_gpus": scenario.hours.gpus}))


def one_number(value):
    """A typed count as one serving GPU's plan reads it: a {prefill, decode} pair (a mixed fleet's, §15.1, priced
    per pool by planner/engine/plan/pools.py) leaves it blank."""
    return None if hasattr(value, "prefill") else value


def fleet_columns(scenario, tables) -> PlanFleet | None:
    """Where the Fleet comes into the plan (§13.9, §13.15): with a `fleet` section, the configuration it chose at
    launch, which sizes G_k and U_k month by month from the calendar's demand (None when no configuration meets the
    SLO: serving money is then n/a); without one, None, and the calendar sizes serving from the Serving roofline at
    the users."""
    if scenario.fleet is None or fleet_mixed(scenario, tables):
        return None
    from planner.engine.fleet import PlanFleet

    return PlanFleet.of(tables["fleet"], scenario.fleet.spare)


def fleet_mixed(scenario, tables) -> bool:
    """Whether the fleet's cheapest configuration is mixed (§15.1): its two GPU types are not one serving GPU, so
    the plan reads its serving money n/a (FLEET_MIXED) rather than price it on one of them."""
    return scenario.fleet is not None and tables["fleet"].headline["fleet_cheapest_mixed"] is True


def serving_na(scenario, tables) -> str:
    """Why serving money reads n/a, if it does: the users (no fleet), a mixed fleet, or no fleet meets the SLO."""
    if scenario.fleet is None:
        return NOT_SERVED
    return FLEET_POOLED if fleet_mixed(scenario, tables) else NO_FLEET_SERVES


def sizing_fleet(scenario, tables) -> PlanFleet | None:
    """The Fleet's chosen configuration at launch, mixed (§15.1) or not: what sizes the GPUs and GPU-hours month by
    month (None without a fleet, or when no configuration meets the SLO)."""
    if scenario.fleet is None or tables["fleet"].cheapest is None:
        return None
    from planner.engine.fleet import PlanFleet

    return PlanFleet.of(tables["fleet"], scenario.fleet.spare)


def serving_gpu(scenario, tables) -> str:
    """The GPU that serves: the fleet's overall cheapest when it has one that meets the SLO on one GPU type, else
    `gpu`."""
    if scenario.fleet is not None and tables["fleet"].cheapest is not None and not fleet_mixed(scenario, tables):
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

