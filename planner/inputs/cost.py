"""The cost of ownership's inputs (docs/method.md §13): the price tiers GPU-hours are bought at, owning GPUs instead
of renting them, and what a request is sold for. The calendar's own inputs (start date, fiscal year, escalation,
contingency, discount rate, other monthly costs and the path the budget takes) are the Budget section's.

Money here is in USD, as the Catalog's prices are; results are converted to the reporting currency at `fx_rate`
once, where each input enters (§13)."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field

from planner.scenario.declare import COUNT_MAX, Section, Share, declared, whole
from planner.scenario.errors import quoted

TRAINING_TIERS = ("on_demand", "committed_1y", "committed_3y", "spot")
BASELINE_TIERS = ("committed_1y", "committed_3y")


def _range(low: float, high: float):
    return Annotated[float, Field(ge=low, le=high)]


class PoolBaseline(Section):
    model_config = ConfigDict(title="Serving baseline per pool")
    pool_pair: ClassVar[bool] = True  # a number's alternative: its cells follow the number's (planner/roundtrip.py)

    prefill: _range(0, COUNT_MAX) = declared(..., "Serving baseline, prefill pool", "GPUs", "The prefill pool's "
                                             "committed GPUs (§15.1).", kind="count")
    decode: _range(0, COUNT_MAX) = declared(..., "Serving baseline, decode pool", "GPUs", "The decode pool's "
                                            "committed GPUs (§15.1).", kind="count")


class PoolGPUs(Section):
    model_config = ConfigDict(title="Owned GPUs per pool")
    pool_pair: ClassVar[bool] = True  # a number's alternative: its cells follow the number's (planner/roundtrip.py)

    prefill: whole(1) = declared(..., "Owned GPUs, prefill pool", "GPUs", "The prefill pool's owned GPUs (§15.1).",
                                 kind="count")
    decode: whole(1) = declared(..., "Owned GPUs, decode pool", "GPUs", "The decode pool's owned GPUs (§15.1).",
                                kind="count")


class Pricing(Section):
    model_config = ConfigDict(title="Pricing tiers")

    training_tier: Literal[TRAINING_TIERS] = declared(
        "on_demand", "Training price tier", "", "The price training's GPU-hours are bought at: on_demand, "
        "committed_1y, committed_3y (the run's GPUs paid for whole terms) or spot (with its preemption overhead).",
        kind="text")
    serving_baseline_tier: Literal[BASELINE_TIERS] = declared(
        "committed_1y", "Serving baseline tier", "", "The term of the committed serving baseline; demand above it "
        "is rented on demand.", kind="text")
    serving_baseline_gpus: _range(0, COUNT_MAX) | PoolBaseline | None = declared(
        None, "Serving baseline", "GPUs", "The size of a quote you hold. Blank: the suggested baseline, from "
        "the demand profile and the prices. When the Fleet's cheapest is mixed (§15.1), a pair {prefill: n, "
        "decode: m}.", kind="count", blank=True, symbol="B_c")
    committed_1y_ratio: Share = declared(
        0.80, "1-year committed price", "of on-demand", "Used where the Catalog has no 1-year quote. Illustrative: "
        "between on-demand and the 3-year rate.", kind="percent")
    committed_3y_ratio: Share = declared(
        0.65, "3-year committed price", "of on-demand", "Used where the Catalog has no 3-year quote. Illustrative: "
        "published 3-year neocloud contracts are 0.64-0.65 of the Catalog's H100, H200 and B200 prices.",
        kind="percent")
    spot_ratio: Share = declared(
        0.50, "Spot price", "of on-demand", "Used where the Catalog has no spot quote. Illustrative: providers "
        "publish discounts of up to 91 %, but GPU spot capacity is scarce.", kind="percent")
    spot_overhead: _range(0, 2) = declared(
        0.10, "Spot overhead", "of GPU-hours", "GPU-hours lost to preemptions on spot: ten a day, each losing 0.25 "
        "GPU-hours per GPU, is 10 × 0.25 / 24 = 0.104.", kind="percent", symbol="ω")


class Ownership(Section):
    model_config = ConfigDict(title="Owning GPUs")

    gpus: whole(1) | PoolGPUs | None = declared(
        None, "Owned GPUs", "GPUs", "The serving GPUs of a purchase you already plan. Blank: the plan's largest "
        "month of committed GPUs (and at least the run's GPUs when training shares them). When the Fleet's "
        "cheapest is mixed (§15.1), a pair {prefill: n, decode: m}.", kind="count", blank=True, symbol="N_own")
    training: bool = declared(
        False, "Train on owned GPUs", "", "TRUE: the owned path trains on GPUs it buys at the start date: its "
        "serving GPUs when they are gpu, else the run's GPUs of gpu on a line of their own; the rented paths still "
        "rent training at its tier.", kind="bool")
    useful_life_years: _range(0.5, 10) = declared(
        4, "Useful life", "years", "Straight-line depreciation to the residual value, by day. 4 years is a common "
        "economic life for GPUs; hyperscalers' accounting lives for servers are 5 to 6 years.", kind="decimal",
        symbol="Y")
    residual_value: _range(0, 0.9) = declared(
        0.10, "Residual value", "of the price", "What a server is worth at the end of its useful life. "
        "Illustrative.", kind="percent", symbol="R")
    pue: _range(1, 3) = declared(
        1.3, "Power usage effectiveness", "", "Facility power ÷ IT power: an industry average of about 1.56; new "
        "large facilities reach 1.3 or better.", kind="decimal")
    price_per_kwh: _range(0, 1) = declared(
        0.08, "Energy price", "USD per kWh", "US industrial electricity averaged 6.6 to 8.9 cents per kWh in 2023 "
        "in the large data-centre states.", kind="decimal")
    power_share: Share = declared(
        1.0, "Power drawn", "of server kW", "Energy drawn as a share of the server's kW: 1 is the provisioned, "
        "nameplate basis; enter your measured average ÷ maximum.", kind="percent")
    datacenter_per_kw_month: _range(0, 2000) = declared(
        184.06, "Data-centre cost", "USD per kW-month", "Space, cooling and facility per kW of IT capacity; energy "
        "is billed separately. 184.06: the average asking rate for 250-500 kW in North America's primary markets, "
        "H2 2024.", kind="number")
    staff_per_1000_gpus: _range(0, 100) = declared(
        2, "Operations staff", "FTE per 1,000 GPUs", "Illustrative.", kind="decimal")
    staff_cost_per_year: _range(0, 1e7) = declared(
        250_000, "Staff cost", "USD per FTE-year", "Loaded cost of one full-time operator. Illustrative.",
        kind="number")


class Unit(Section):
    model_config = ConfigDict(title="Unit economics")

    active_users: _range(0, 1e12) | None = declared(
        None, "Active users", "users per month", "Users served each month, for the cost per user. Blank: no cost "
        "per user.", kind="count", blank=True)
    price_input_per_million: _range(0, 1e6) | None = declared(
        None, "Price charged, input", "USD per million tokens", "What a million prompt tokens are sold for. Blank "
        "with the output price: no revenue or margin.", kind="number", blank=True)
    price_output_per_million: _range(0, 1e6) | None = declared(
        None, "Price charged, output", "USD per million tokens", "What a million output tokens are sold for.",
        kind="number", blank=True)


SECTIONS = {"pricing": Pricing, "ownership": Ownership, "unit": Unit}
EXTERNAL = None


def canonical(scenario) -> list:
    return []


def cross_checks(scenario, catalog) -> list:
    """The owned path needs the chosen GPU's server price and kW; owned training needs at least the run's GPUs."""
    problems = []
    gpu = catalog.gpus[scenario.gpu]
    if scenario.budget.path == "owned":
        missing = [key for key in ("server_price", "server_kw") if getattr(gpu, key) is None]
        if missing:
            problems.append((("budget", "path"), "owned", f"the owned path needs the {' and '.join(missing)} of "
                             f"GPU {quoted(gpu.id)} (catalog.gpus.{gpu.id}.{missing[0]}), which its Catalog row "
                             f"leaves blank: give {'them' if len(missing) > 1 else 'it'}, or choose on_demand or "
                             "committed"))
    own = scenario.ownership
    for section, key, value in (("pricing", "serving_baseline_gpus", scenario.pricing.serving_baseline_gpus),
                                ("ownership", "gpus", own.gpus)):  # a pair is a mixed fleet's pools' (§15.1)
        if value is not None and not isinstance(value, (int, float)) and scenario.fleet is None:
            problems.append(((section, key), value.model_dump(), "a pair {prefill, decode} is for a Fleet whose "
                             "cheapest configuration is mixed (§15.1): without a fleet section, allowed: one "
                             "number, or blank"))
    # with a fleet, the serving GPU is known once it is searched (planner/engine/plan/pools.py training_problems)
    if own.training and scenario.fleet is None and isinstance(own.gpus, int) and own.gpus < scenario.hours.gpus:
        problems.append((("ownership", "gpus"), own.gpus, f"training on owned GPUs needs at least the run's "
                         f"{scenario.hours.gpus:,} GPUs (hours.gpus): give at least that, or leave it blank"))
    return problems
