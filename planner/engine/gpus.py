"""The Catalog's GPUs side by side (docs/method.md §13): for each GPU, the scenario's training run at its peak and
price, its serving roofline's throughput and cost per million output tokens, tokens per second per megawatt, and
renting against owning the fleet that serves launch traffic for an average month.

Everything but the GPU comes from the scenario: the model, its training operations, the MFU, the productive share,
the run's GPUs, the users, the demand and its profile, the ownership inputs. The serving throughput of each GPU is
§6's roofline on that GPU, computed by the Serving table's functions and handed in (`GPURow`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.engine import cost
from planner.engine.calendar import round9

DOES_NOT_FIT = "does not fit"  # B_max = 0: not one sequence fits beside the weights


@dataclass(frozen=True, kw_only=True)
class GPURow:
    """One Catalog GPU: its peaks, prices (USD) and kW, and §6's roofline on it at the scenario's serving set-up."""

    gpu: str
    peak_tflops: float  # dense BF16
    fp8_tflops: float | None
    price_per_hour: float  # on-demand, USD per GPU-hour
    server_price: float | None  # USD per GPU
    server_kw: float | None
    max_users: int  # B_max
    tokens_per_s_per_gpu: float | None  # TokS at B = MIN(users, B_max); None when B_max = 0
    tokens_per_s_per_gpu_at_max: float | None  # TokS at B_max


@dataclass(frozen=True, kw_only=True)
class Shared:
    """What every row reads from the scenario."""

    training_flops: float  # C
    mfu: float
    productive_share: float  # q
    run_gpus: int  # N_run
    fp8: bool  # training_precision fp8: the row's FP8 peak where it has one
    users: int
    tokens_per_day: float  # D, launch traffic
    profile: tuple
    fx: float
    owning: cost.Owning  # the ownership inputs; each row brings its own server price and kW


def training(row: GPURow, s: Shared) -> dict:
    """§2 at the scenario's MFU on this GPU: H_g = C/(peak·1e12·MFU·3600), its cost at p_od and its days."""
    peak = row.fp8_tflops if s.fp8 and row.fp8_tflops else row.peak_tflops
    hours = s.training_flops / (peak * 1e12 * s.mfu * cost.SECONDS_PER_HOUR)
    allocated = hours / s.productive_share
    return {"training_peak_tflops": peak, "training_gpu_hours": hours,
            "training_cost": allocated * row.price_per_hour * s.fx,
            "training_days": allocated / s.run_gpus / cost.HOURS_PER_DAY}


def serving(row: GPURow, s: Shared) -> dict:
    """§6 on this GPU at B = MIN(users, B_max): cost per million output tokens at B and at B_max, tokens per
    second per MW; "does not fit" when B_max = 0."""
    price = row.price_per_hour * s.fx
    if row.max_users == 0 or not row.tokens_per_s_per_gpu:
        return {"batch": DOES_NOT_FIT, "batch_is": DOES_NOT_FIT, "tokens_per_s_per_gpu": DOES_NOT_FIT,
                "cost_per_million": DOES_NOT_FIT, "cost_per_million_at_max": DOES_NOT_FIT,
                "tokens_per_s_per_mw": DOES_NOT_FIT}
    found = {"batch": min(s.users, row.max_users), "batch_is": "users" if s.users <= row.max_users else "B_max",
             "tokens_per_s_per_gpu": row.tokens_per_s_per_gpu,
             "cost_per_million": cost.cost_per_million_tokens(price, row.tokens_per_s_per_gpu),
             "cost_per_million_at_max": cost.cost_per_million_tokens(price, row.tokens_per_s_per_gpu_at_max)}
    found["tokens_per_s_per_mw"] = (cost.tokens_per_s_per_mw(row.tokens_per_s_per_gpu, row.server_kw, s.owning.pue)
                                    if row.server_kw else cost.NO_SERVER)
    return found


def rent_against_own(row: GPURow, s: Shared) -> dict:
    """Per average month (30.4375 days) at launch traffic: rent the GPU-hours D/(3600·TokS) a day on demand, or own
    the fleet its peak hour needs, CEILING(ROUND(GPU-hours a day/Σf·MAX(f), 9), 1), at c_own for every hour."""
    if row.max_users == 0 or not row.tokens_per_s_per_gpu or sum(s.profile) == 0:
        reason = DOES_NOT_FIT if sum(s.profile) > 0 else cost.NO_DEMAND
        return dict.fromkeys(("serving_gpu_hours_per_day", "rent_per_month", "owned_fleet", "own_cost_per_gpu_hour",
                              "own_per_month", "break_even_utilisation", "fleet_utilisation"), reason)
    price = row.price_per_hour * s.fx
    per_day = s.tokens_per_day / (cost.SECONDS_PER_HOUR * row.tokens_per_s_per_gpu)
    fleet = math.ceil(round9(per_day / sum(s.profile) * max(s.profile)))
    found = {"serving_gpu_hours_per_day": per_day,
             "rent_per_month": per_day * cost.AVERAGE_MONTH_DAYS * price, "owned_fleet": fleet,
             "fleet_utilisation": per_day / (cost.HOURS_PER_DAY * fleet) if fleet else cost.NO_SERVING}
    if row.server_price is None or row.server_kw is None:
        return found | dict.fromkeys(("own_cost_per_gpu_hour", "own_per_month", "break_even_utilisation"),
                                     cost.NO_SERVER)
    c_own = cost.owned_rates(s.owning, s.fx, server_price=row.server_price,
                             server_kw=row.server_kw).cost_per_gpu_hour
    return found | {"own_cost_per_gpu_hour": c_own,
                    "own_per_month": fleet * c_own * cost.HOURS_PER_DAY * cost.AVERAGE_MONTH_DAYS,
                    "break_even_utilisation": cost.break_even_utilisation(c_own, price)}


def side_by_side(rows: list[GPURow], s: Shared) -> list[dict]:
    """One row per GPU, with marks on the cheapest rent and the cheapest own (MIN over each column's numbers)."""
    found = [{"gpu": row.gpu, "max_users": row.max_users, **training(row, s), **serving(row, s),
              **rent_against_own(row, s)} for row in rows]
    for key, mark in (("rent_per_month", "cheapest_rent"), ("own_per_month", "cheapest_own")):
        numbers = [r[key] for r in found if isinstance(r[key], float)]
        for r in found:
            r[mark] = bool(numbers) and r[key] == min(numbers)
    return found
