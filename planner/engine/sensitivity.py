"""Sensitivity: four 5 × 5 grids and a tornado of the total cost (docs/method.md §9).

Each grid moves two inputs to ×0.5, ×0.75, ×1, ×1.25 and ×1.5 of the scenario's values (counts rounded half away
from zero, as the sheet's ROUND, shares capped at 1) and recomputes one result in closed form, so the middle cell is
the scenario's own headline. The tornado moves six inputs, one at a time, to ×0.8 and ×1.2 and sorts them by how far
the total cost (training plus serving over the horizon at the roofline's throughput) swings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal

from planner.engine.crossover import NEVER
from planner.engine.serving import replica_of
from planner.model.passes import cost_per_million_tokens
from planner.engine.values import plain
from planner.method import Constant, Method

STEPS = (0.5, 0.75, 1, 1.25, 1.5)  # a grid's multipliers, the scenario's value in the middle
TORNADO_LOW, TORNADO_HIGH = 0.8, 1.2
ABOVE_B_MAX = "B > B_max"  # a grid cell whose users do not fit


def excel_round(x) -> float:
    """ROUND(x, 0) as a spreadsheet rounds: halves away from zero (Python's round() rounds them to even)."""
    return math.floor(x + 0.5) if x >= 0 else -math.floor(-x + 0.5)


def to_the_cent(x) -> float:
    """ROUND(x, 2) as a spreadsheet rounds: on the decimal the cell shows (15 digits), halves away from zero."""
    return float(Decimal(f"{x:.15g}").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))


def share(x) -> float:
    """A share moved: capped at 1."""
    return min(1.0, x)


def training_cost(flops, peak_tflops, mfu, productive_share, price):
    """§2: C / (peak · 1e12 · MFU · 3600) / q × price."""
    return flops / (peak_tflops * 1e12 * mfu * 3600) / productive_share * price


def serving_over_horizon(horizon_days, tokens_per_day, tokens_per_s_per_gpu, price):
    """§9: horizon · D / (3600 · TokS) × price."""
    return horizon_days * tokens_per_day / (3600 * tokens_per_s_per_gpu) * price


GRIDS = ("training_cost", "days", "crossing_day", "cost_per_million_tokens")
TORNADO = {"mfu": "Training MFU", "price": "Price per GPU-hour", "training_tokens": "Training tokens T",
           "tokens_per_day": "Served tokens per day D", "bandwidth_efficiency": "Bandwidth efficiency η_m",
           "productive_share": "Productive share q"}  # the tornado's inputs, as the sheet names them


@dataclass
class SensitivityTable:
    """The grids ({key: {"rows": 5 values, "columns": 5 values, "cells": 5 × 5}}), the tornado's lines in input
    order and the same lines sorted by swing."""

    scalars: dict
    grids: dict
    tornado: list[dict]
    sorted: list[dict]

    @property
    def headline(self) -> dict:
        return {"sensitivity_total_cost": self.scalars["total_cost"],
                "sensitivity_largest_swing": self.sorted[0]["input"]}

    @property
    def checks(self) -> dict[str, bool]:
        return {}

    def to_json(self) -> dict:
        return {**self.scalars, "grids": self.grids, "tornado": self.tornado, "sorted": self.sorted}


def compute(scenario, tables) -> SensitivityTable:
    hours, crossover, serving = tables["hours"].scalars, tables["crossover"].scalars, tables["serving"].scalars
    flops, peak, q = hours["training_flops"], hours["peak_tflops"], scenario.hours.productive_share
    mfu, gpus, price = hours["mfu_used"], scenario.hours.gpus, scenario.gpu_price  # the MFU Hours used
    tokens, horizon, serving_mfu = crossover["tokens_per_day"], scenario.crossover.horizon_days, \
        crossover["serving_mfu_used"]
    users, b_max, tok_s = scenario.serving.users, serving["max_concurrency"], serving["tokens_per_s_per_gpu"]
    replica, gpu_peak = replica_of(scenario), scenario.chosen_gpu.peak_tflops

    def crossing(d, s_mfu):
        if d == 0:
            return NEVER
        from planner.engine.crossover import serving_flops_per_day
        from planner.engine.hours import gpu_hours
        return hours["gpu_hours"] / gpu_hours(serving_flops_per_day(_active(scenario), d), gpu_peak, s_mfu)

    def per_million(b, p):
        if b > b_max:
            return ABOVE_B_MAX
        return cost_per_million_tokens(p, replica.at(b)["tokens_per_s_per_gpu"])

    axes = {
        "training_cost": ([share(mfu * m) for m in STEPS], [price * m for m in STEPS],
                          lambda r, c: training_cost(flops, peak, r, q, c)),
        "days": ([max(1, excel_round(gpus * m)) for m in STEPS], [share(mfu * m) for m in STEPS],
                 lambda r, c: flops / (peak * 1e12 * c * 3600) / q / r / 24),
        "crossing_day": ([excel_round(tokens * m) for m in STEPS], [share(serving_mfu * m) for m in STEPS],
                         crossing),
        "cost_per_million_tokens": ([max(1, excel_round(users * m)) for m in STEPS], [price * m for m in STEPS],
                                    per_million),
    }
    grids = {key: {"rows": rows, "columns": columns, "cells": [[plain(f(r, c)) for c in columns] for r in rows]}
             for key, (rows, columns, f) in axes.items()}

    serving_cost = serving_over_horizon(horizon, tokens, tok_s, price)
    base = hours["cost"] + serving_cost
    bandwidth = scenario.serving.bandwidth_efficiency

    def eta_total(eta):
        moved = replace(replica, bandwidth_efficiency=eta).at(users)["tokens_per_s_per_gpu"]
        return hours["cost"] + serving_over_horizon(horizon, tokens, moved, price)

    moves = {  # input → (its value, moved by a factor, the total at a moved value)
        "mfu": (mfu, lambda f: share(mfu * f), lambda x: training_cost(flops, peak, x, q, price) + serving_cost),
        "price": (price, lambda f: price * f, lambda x: hours["allocated_gpu_hours"] * x
                  + serving_over_horizon(horizon, tokens, tok_s, x)),
        "training_tokens": (scenario.hours.tokens, lambda f: excel_round(scenario.hours.tokens * f),
                            lambda x: training_cost(hours["ops_per_param_token"] * _active(scenario) * x, peak, mfu,
                                                    q, price) + serving_cost),
        "tokens_per_day": (tokens, lambda f: excel_round(tokens * f),
                           lambda x: hours["cost"] + serving_over_horizon(horizon, x, tok_s, price)),
        "bandwidth_efficiency": (bandwidth, lambda f: share(bandwidth * f), eta_total),
        "productive_share": (q, lambda f: share(q * f), lambda x: hours["gpu_hours"] / x * price + serving_cost),
    }
    lines = []
    for position, (key, (value, moved, total)) in enumerate(moves.items(), start=1):
        low, high = moved(TORNADO_LOW), moved(TORNADO_HIGH)
        total_low, total_high = total(low), total(high)
        swing = abs(total_high - total_low)
        lines.append({"id": key, "input": TORNADO[key], "value": value, "low": low, "high": high,
                      "total_low": total_low, "total_high": total_high, "swing": swing,
                      "cents": to_the_cent(swing)})
    for i, line in enumerate(lines):  # larger swings first; equal ones (to the cent) in line order
        line["rank"] = sum(other["cents"] > line["cents"] for other in lines) + \
            sum(other["cents"] == line["cents"] for other in lines[:i + 1])
    ordered = []
    for rank in range(1, len(lines) + 1):
        position = next(i for i, line in enumerate(lines, start=1) if line["rank"] == rank)  # MATCH(rank, ranks, 0)
        line = lines[position - 1]
        ordered.append({"rank": rank, "position": position, "input": line["input"],
                        "total_low": line["total_low"], "total_high": line["total_high"],
                        "change_low": line["total_low"] - base, "change_high": line["total_high"] - base})
    scalars = {"serving_cost": serving_cost, "total_cost": base, "tornado_low": TORNADO_LOW,
               "tornado_high": TORNADO_HIGH}
    return SensitivityTable({k: plain(v) for k, v in scalars.items()}, grids,
                            [{k: plain(v) for k, v in line.items()} for line in lines],
                            [{k: plain(v) for k, v in line.items()} for line in ordered])


def _active(scenario):
    from planner.engine.catalog_columns import active_params
    return active_params(scenario.chosen_model)


CONSTANTS = [
    *[Constant(f"sensitivity_step_{i}", step, label=f"Sensitivity grid multiplier {i}", unit="×",
               source="The grids' rows and columns: ×0.5, ×0.75, ×1, ×1.25, ×1.5 of the scenario's values")
      for i, step in enumerate(STEPS, start=1)],
    Constant("sensitivity_tornado_low", TORNADO_LOW, label="Tornado: the low move", unit="×",
             source="Each tornado input at ×0.8 of the scenario's value"),
    Constant("sensitivity_tornado_high", TORNADO_HIGH, label="Tornado: the high move", unit="×",
             source="Each tornado input at ×1.2 of the scenario's value"),
]

METHOD = Method(
    title="Sensitivity: four grids and a tornado",
    formulas=[
        "Each grid is 5 × 5: two inputs at ×0.5, ×0.75, ×1, ×1.25 and ×1.5 of the scenario's values; counts "
        "rounded with ROUND(x, 0), shares capped at 1. The headings are formulas of the inputs, so an edited input "
        "re-centres its grids; the middle cell is the scenario's own result.",
        "Training cost over MFU × price per GPU-hour: C / (peak · 1e12 · MFU · 3600) / q × price.",
        "Wall-clock days over the run's GPUs × MFU: C / (peak · 1e12 · MFU · 3600) / q / GPUs / 24.",
        "Crossing day in GPU-hours over tokens per day × serving MFU: H / (2·Ψ·D / (peak · 1e12 · serving MFU · "
        "3600)); \"never\" without traffic.",
        "Serving cost per million output tokens over users B × price: price · 1e6 / (3600 · TokS(B)), the Serving "
        "table's roofline at B; a cell whose B exceeds B_max says so.",
        "Tornado: the total cost, training + horizon · D / (3600 · TokS at the users) × price, with each of MFU, "
        "price, training tokens, tokens per day, bandwidth efficiency η_m and productive share at ×0.8 and ×1.2 "
        "(shares capped at 1), the others as they are; sorted by swing = |total at ×1.2 − total at ×0.8|: each "
        "line's rank is the lines with a larger swing to the cent plus the equal ones up to it (so equal swings, "
        "as MFU's and the productive share's, keep line order), then INDEX/MATCH.",
    ],
    sources=["The Hours (§2), Crossover (§3) and Serving (§6) tables' formulas, moved one or two inputs at a time."],
    caveats=["One or two inputs move at a time; inputs that move together in practice (MFU with the run's GPUs) "
             "are not linked. The tornado takes the users' throughput even where they exceed B_max."],
)
