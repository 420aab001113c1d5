"""Prices by tier, commitments and owning (docs/method.md §13): each tier's price per GPU-hour, training at its tier,
serving's hourly shape above a baseline, the suggested committed baseline, and an owned GPU's daily rates."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from planner.engine import calendar as cal
from planner.engine.shared import DAYS_PER_YEAR, HOURS_PER_DAY, SECONDS_PER_HOUR

from planner.engine.plan.inputs import Owning, Plan, Prices

TERM_MONTHS = {"committed_1y": 12, "committed_3y": 36}  # a commitment's term, paid whole (§13)
TIERS = ("on_demand", "committed_1y", "committed_3y", "spot")
NO_SERVING = "n/a: no serving"
PRICE_ZERO = "n/a: price 0"
NEVER = "owning never beats this price"
NO_SERVER = "n/a: no server price or kW"  # the GPU's Catalog row leaves owning unpriced


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


