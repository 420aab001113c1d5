"""Sensitivity: four 5 × 5 grids and a tornado of the total cost (docs/method.md §9).

Each grid moves two inputs to ×0.5, ×0.75, ×1, ×1.25 and ×1.5 of the scenario's values (counts rounded half away
from zero, as the sheet's ROUND, shares capped at 1) and recomputes one result in closed form, so the middle cell is
the scenario's own headline. The tornado moves six inputs, one at a time, to ×0.8 and ×1.2 and sorts them by how far
the total cost (training plus serving over the horizon at the roofline's throughput) swings.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from planner.engine import money
from planner.engine.cost import money_na
from planner.engine.crossover import NEVER
from planner.engine.serving import served
from planner.engine.shared import HOURS_PER_DAY, TooManyGPUs
from planner.model.passes import cost_per_million_tokens, gpu_hours
from planner.engine.values import excel_round, plain, to_the_cent
from planner.method import Constant, Method

STEPS = (0.5, 0.75, 1, 1.25, 1.5)  # a grid's multipliers, the scenario's value in the middle
TORNADO_LOW, TORNADO_HIGH = 0.8, 1.2
ABOVE_B_MAX = "B > B_max"  # a grid cell whose users do not fit



def share(x) -> float:
    """A share moved: capped at 1."""
    return min(1.0, x)


def training_cost(flops, peak_tflops, mfu, productive_share, price):
    """§2: C / (peak · 1e12 · MFU · 3600) / q × price."""
    return gpu_hours(flops, peak_tflops, mfu) / productive_share * price


GRIDS = ("training_cost", "days", "crossing_day", "cost_per_million_tokens")
TORNADO = {"mfu": "Training MFU", "price": "Price per GPU-hour", "training_tokens": "Training tokens",
           "tokens_per_day": "Served tokens per day", "bandwidth_efficiency": "Bandwidth efficiency",
           "productive_share": "Productive share", "monthly_growth": "Monthly traffic growth",
           "horizon": "Serving horizon"}  # the tornado's inputs, as the sheet names them
DEMAND = "tokens_per_day"  # the tornado's demand line: the Cover's total at ±20 % demand
GROWTH_STEP = 0.01  # growth of 0 moves by ±0.01 a month (×0.8 and ×1.2 of 0 would not move it)
ALTERNATIVES = ("assumed_mfu", "standby", "growth")  # the Cover's bridge: the plan's total against each
STANDBY_WORDS = {True: "without standby (the idle hours of a fleet sized for each month's peak)",
                 False: "with standby (the idle hours of a fleet sized for each month's peak), not in the total"}


@dataclass
class SensitivityTable:
    """The grids ({key: {"rows": 5 values, "columns": 5 values, "cells": 5 × 5}}), the tornado's lines in input
    order and the same lines sorted by swing, and the plan's total against its alternatives. The tornado and the
    alternatives are the whole plan re-evaluated by the engine: a snapshot, as generated."""

    scalars: dict
    grids: dict
    tornado: list[dict]
    sorted: list[dict]
    alternatives: list[dict] = field(default_factory=list)
    passes: list[dict] = field(default_factory=list)  # the serving grid's rows: Replica.pass_pieces at each B and
    # its tokens per second per GPU, where the sheet shows them (not in the JSON)

    @property
    def headline(self) -> dict:
        found = {"sensitivity_total_cost": self.scalars["total_cost"],
                 "sensitivity_largest_swing": self.scalars["total_cost"] if isinstance(self.scalars["total_cost"], str)
                 else self.sorted[0]["input"],  # no total, no swing: its reason
                 "plan_standby_alternative": STANDBY_WORDS[self.scalars["include_standby"]]}
        found |= {f"plan_{line['key']}_difference": line["difference"] for line in self.alternatives}
        demand = next(line for line in self.tornado if line["id"] == DEMAND)  # the tornado's demand bar
        premise = self.scalars["premise"]  # the plan's own reason, as the alternatives show it first
        return found | {"plan_total_demand_low": premise or demand["total_low"],
                        "plan_total_demand_high": premise or demand["total_high"]}

    @property
    def checks(self) -> dict[str, bool]:
        return {}

    def to_json(self) -> dict:
        return {**self.scalars, "grids": self.grids, "tornado": self.tornado, "sorted": self.sorted,
                "alternatives": self.alternatives}


def compute(scenario, tables) -> SensitivityTable:
    plan_table = tables["cost"]
    base = plan_table.headline["plan_total_cost"]
    what_if = WhatIf(scenario, tables, plan_table.plan)
    lines, ordered = tornado(what_if, base)
    alternatives = [{"key": key, "total": total, "difference": difference(total, base)}
                    for key, total in what_if.alternatives().items()]
    scalars = {"total_cost": base, "tornado_low": TORNADO_LOW, "tornado_high": TORNADO_HIGH,
               "growth_step": GROWTH_STEP, "include_standby": scenario.budget.include_standby,
               "premise": money_na(plan_table)}
    return SensitivityTable({k: plain(v) for k, v in scalars.items()}, _grids(scenario, tables),
                            [{k: plain(v) for k, v in line.items()} for line in lines],
                            [{k: plain(v) for k, v in line.items()} for line in ordered],
                            [{k: plain(v) for k, v in line.items()} for line in alternatives],
                            passes=_passes(scenario, tables))


def _passes(scenario, tables) -> list[dict]:
    """The serving grid's rows (users B at each step): the passes' pieces at B and TokS(B), which its cells read."""
    replica, users = served(scenario, tables), scenario.serving.users
    return [replica.pass_pieces(b) | {"tokens_per_s_per_gpu": replica.at(b)["tokens_per_s_per_gpu"]}
            for b in (max(1, excel_round(users * m)) for m in STEPS)]


def _grids(scenario, tables) -> dict:
    """The four grids: each result over its two inputs' STEPS, {key: {"rows", "columns", "cells"}}."""
    hours, crossover, serving = tables["hours"].scalars, tables["crossover"].scalars, tables["serving"].scalars
    flops, peak, q = hours["training_flops"], hours["peak_tflops"], scenario.hours.productive_share
    mfu, gpus, price = hours["mfu_used"], scenario.hours.gpus, money.gpu_price(scenario)  # the MFU Hours used
    tokens, serving_mfu = crossover["tokens_per_day"], crossover["serving_mfu_used"]
    users, b_max = scenario.serving.users, serving["max_concurrency"]
    replica, gpu_peak = served(scenario, tables), scenario.chosen_gpu.peak_tflops

    def crossing(d, s_mfu):
        if d == 0:
            return NEVER
        from planner.engine.crossover import serving_flops_per_day
        return hours["gpu_hours"] / gpu_hours(serving_flops_per_day(_active(scenario), d), gpu_peak, s_mfu)

    def per_million(b, p):
        if b > b_max:
            return ABOVE_B_MAX
        return cost_per_million_tokens(p, replica.at(b)["tokens_per_s_per_gpu"])

    axes = {
        "training_cost": ([share(mfu * m) for m in STEPS], [price * m for m in STEPS],
                          lambda r, c: training_cost(flops, peak, r, q, c)),
        "days": ([max(1, excel_round(gpus * m)) for m in STEPS], [share(mfu * m) for m in STEPS],
                 lambda r, c: gpu_hours(flops, peak, c) / q / r / HOURS_PER_DAY),
        "crossing_day": ([excel_round(tokens * m) for m in STEPS], [share(serving_mfu * m) for m in STEPS],
                         crossing),
        "cost_per_million_tokens": ([max(1, excel_round(users * m)) for m in STEPS], [price * m for m in STEPS],
                                    per_million),
    }
    return {key: {"rows": rows, "columns": columns, "cells": [[plain(f(r, c)) for c in columns] for r in rows]}
            for key, (rows, columns, f) in axes.items()}


def difference(total, base):
    """total − base, or the reason one of them has none ("n/a: …")."""
    for value in (total, base):
        if isinstance(value, str):
            return value
    return total - base


class WhatIf:
    """The plan's total with one input moved: the whole plan re-evaluated (Hours, Crossover, Serving, the Budget and
    the calendar, and the Fleet's monthly sizing where the scenario has one), on the same generation day. The price
    moves the plan's prices directly (every tier with it): it enters nowhere else the total reads."""

    def __init__(self, scenario, tables, plan):
        self.scenario, self.tables, self.plan = scenario, tables, plan
        self.pools = tables["cost"].pools  # a mixed fleet's plan (§15.1): each what-if priced per pool

    def total(self, **sections) -> float | str:
        """The total with sections replaced: {"hours": {"mfu": 0.32}}. Without a fleet, an input the plan reads
        directly moves the plan; one that moves the run (Hours) or the throughput (Serving) recomputes that first."""
        from planner.engine import Tables

        s = self.scenario
        moved = s.model_copy(update={key: getattr(s, key).model_copy(update=changes)
                                     for key, changes in sections.items()})
        if self.plan.fleet is None and self.pools is None:
            [(section, changes)] = sections.items()
            if section == "hours":
                hours = Tables(moved, self.tables.generated)["hours"].scalars
                return self.of_plan(allocated_gpu_hours=hours["allocated_gpu_hours"], training_days=hours["days"])
            if section == "serving":  # the replica in force (a calibration's fit included), at the moved η_m
                eta = changes["bandwidth_efficiency"]
                throughput = replace(served(s, self.tables), bandwidth_efficiency=eta).at(s.serving.users)
                return self.of_plan(tokens_per_s_per_gpu=throughput["tokens_per_s_per_gpu"])
            plan_keys = {"tokens_per_day": "tokens_per_day", "horizon_days": "horizon_days",
                         "monthly_growth": "monthly_growth"}
            return self.of_plan(**{plan_keys[key]: value for key, value in changes.items()})
        if set(sections) == {"crossover"} and set(sections["crossover"]) == {"tokens_per_day"}:
            tokens = sections["crossover"]["tokens_per_day"]  # the demand: the launch fleet re-sized by §11's rule
            ratio = tokens / self.plan.tokens_per_day
            launch = self.pools.fleet if self.pools else self.plan.fleet
            return self.of_plan(tokens_per_day=tokens, fleet=launch.scaled(ratio))
        return Tables(moved, self.tables.generated)["cost"].headline["plan_total_cost"]

    def of_plan(self, moved=None, **changes) -> float | str:
        """The plan's total with plain values changed (`moved`: a mixed fleet's pools' prices moved); a mixed fleet's
        priced per pool on its configuration (`fleet`: at another demand), unless a what-if leaves the fleet out."""
        from planner.engine.cost import cost_of
        from planner.engine.plan import pools

        if self.pools is None or changes.get("fleet", self.pools.fleet) is None:
            return cost_of(replace(self.plan, **changes), rows=False).headline["plan_total_cost"]
        whole = changes.pop("fleet", None)
        plan = replace(self.plan, **changes)
        return pools.priced(plan, self.scenario, self.tables["fleet"], cost_of, whole=whole,
                            moved=moved).total(f"{plan.path}_total")

    def at_price(self, factor: float) -> float | str:
        """Every GPU-hour price × factor, each tier with it (the serving GPU's and, when another, the training
        GPU's)."""
        def moved(p):
            quotes = {key: None if getattr(p, key) is None else getattr(p, key) * factor
                      for key in ("committed_1y", "committed_3y", "spot")}
            return replace(p, on_demand=p.on_demand * factor, **quotes)

        if self.pools is not None:  # each pool's GPU's prices, moved alike (§15.1)
            return self.of_plan(moved, training_prices=moved(self.plan.training_prices))
        return self.of_plan(prices=moved(self.plan.prices), training_prices=moved(self.plan.training_prices))

    def alternatives(self) -> dict:
        """The Cover's bridge: serving at Crossover's assumed MFU instead of the roofline or the fleet (its GPU-hours
        a day for the traffic, whether or not the users fit), standby the other way round, and no growth."""
        crossover = self.tables["crossover"].scalars
        hours_a_day = crossover["serving_gpu_hours_per_day"]
        assumed = (crossover["tokens_per_day"] / (3600 * hours_a_day) if hours_a_day
                   else self.plan.tokens_per_s_per_gpu)
        # with a fleet, serving at the assumed MFU replaces the fleet's sizing (on the same GPU's prices)
        try:
            at_assumed = self.of_plan(tokens_per_s_per_gpu=assumed, serving_fits=True, fleet=None,
                                      fleet_section=False)
        except TooManyGPUs as exc:
            raise exc.at(("crossover", "serving_mfu"), "Crossover's assumed serving MFU,",
                         "raise crossover.serving_mfu (the Sensitivity's what-if serves at it)") from None
        return {"assumed_mfu": at_assumed,
                "standby": self.of_plan(include_standby=not self.plan.include_standby),
                "growth": self.total(budget={"monthly_growth": 0.0})}


def moves(scenario, tables) -> dict:
    """Each tornado input → (its value, moved by a factor, the sections it changes at a moved value; None: the
    price, moved on the plan)."""
    hours, crossover = tables["hours"].scalars, tables["crossover"].scalars
    mfu, q, tokens = hours["mfu_used"], scenario.hours.productive_share, crossover["tokens_per_day"]
    bandwidth = served(scenario, tables).bandwidth_efficiency  # in force: the input, or fitted from benchmark logs
    growth = scenario.budget.monthly_growth
    horizon = scenario.crossover.horizon_days
    low, high = limits(scenario.crossover, "horizon_days")
    least, most = limits(scenario.budget, "monthly_growth")

    def grow(f):  # ±0.01 a month from 0; else ×f, within growth's limits
        moved = growth * f if growth else GROWTH_STEP * (1 if f > 1 else -1)
        return min(most, max(least, moved))

    return {
        "mfu": (mfu, lambda f: share(mfu * f), lambda x: {"hours": {"mfu": x}}),
        "price": (money.gpu_price(scenario), lambda f: money.gpu_price(scenario) * f, None),  # converted, as the totals
        "training_tokens": (scenario.hours.tokens, lambda f: excel_round(scenario.hours.tokens * f),
                            lambda x: {"hours": {"tokens": x}}),
        "tokens_per_day": (tokens, lambda f: excel_round(tokens * f),
                           lambda x: {"crossover": {"tokens_per_day": x}}),
        "bandwidth_efficiency": (bandwidth, lambda f: share(bandwidth * f),
                                 lambda x: {"serving": {"bandwidth_efficiency": x}}),
        "productive_share": (q, lambda f: share(q * f), lambda x: {"hours": {"productive_share": x}}),
        "monthly_growth": (growth, grow, lambda x: {"budget": {"monthly_growth": x}}),
        "horizon": (horizon, lambda f: min(high, max(low, excel_round(horizon * f))),
                    lambda x: {"crossover": {"horizon_days": x}}),
    }


def limits(section, key: str) -> tuple[float, float]:
    """The allowed range an input's declaration gives (its ge and le): a moved value stays within it."""
    found = {}
    for item in type(section).model_fields[key].metadata:
        for bound in ("ge", "le"):
            if hasattr(item, bound):
                found[bound] = getattr(item, bound)
    return found["ge"], found["le"]


def tornado(what_if: WhatIf, base) -> tuple[list[dict], list[dict]]:
    """Each input at ×0.8 and ×1.2 (the plan re-evaluated), its swing, and the lines sorted by it: larger swings
    first, equal ones (to the cent) in line order; a line without a total ("n/a: …") last."""
    lines = []
    for key, (value, moved, sections) in moves(what_if.scenario, what_if.tables).items():
        low, high = moved(TORNADO_LOW), moved(TORNADO_HIGH)
        if sections is None:
            total_low, total_high = what_if.at_price(TORNADO_LOW), what_if.at_price(TORNADO_HIGH)
        else:
            total_low, total_high = what_if.total(**sections(low)), what_if.total(**sections(high))
        swing = difference(total_high, total_low)
        swing = abs(swing) if not isinstance(swing, str) else swing
        lines.append({"id": key, "input": TORNADO[key], "value": value, "low": low, "high": high,
                      "total_low": total_low, "total_high": total_high, "swing": swing,
                      "cents": to_the_cent(swing) if not isinstance(swing, str) else -1.0})
    for i, line in enumerate(lines):
        line["rank"] = sum(other["cents"] > line["cents"] for other in lines) + \
            sum(other["cents"] == line["cents"] for other in lines[:i + 1])
    ordered = []
    for rank in range(1, len(lines) + 1):
        position = next(i for i, line in enumerate(lines, start=1) if line["rank"] == rank)  # MATCH(rank, ranks, 0)
        line = lines[position - 1]
        ordered.append({"rank": rank, "position": position, "input": line["input"],
                        "total_low": line["total_low"], "total_high": line["total_high"],
                        "change_low": difference(line["total_low"], base),
                        "change_high": difference(line["total_high"], base)})
    return lines, ordered


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
        "Tornado: the plan's total (the budget's path on the calendar, §13) with each of MFU, price (every tier "
        "with it), training tokens, tokens per day, bandwidth efficiency η_m, productive share, monthly growth "
        "(±0.01 a month from 0) and the horizon at ×0.8 and ×1.2 (shares capped at 1), the others as they are: the "
        "whole plan re-evaluated by the engine each time, held on the sheet as a snapshot of values with a check "
        "that turns FALSE once an input changes; sorted by swing = |total at ×1.2 − total at ×0.8| to the cent: "
        "each line's rank is the lines with a larger swing plus the equal ones up to it (so equal swings keep line "
        "order), then INDEX/MATCH.",
        "The plan's total against its alternatives, each the plan re-evaluated: serving at Crossover's assumed "
        "serving MFU instead of the roofline, standby the other way round, no growth; the Cover shows each as a "
        "difference from the total while the snapshot is current.",
    ],
    sources=["The Hours (§2), Crossover (§3), Serving (§6) and cost of ownership (§13) tables, moved one or two "
             "inputs at a time."],
    caveats=["One or two inputs move at a time; inputs that move together in practice (MFU with the run's GPUs) "
             "are not linked.",
             "The tornado and the alternatives are values as generated: after an edit they say so, and the planner "
             "computes them afresh when run again."],
)
