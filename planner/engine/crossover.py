"""Crossover: cumulative compute after launch, and the day serving overtakes training (docs/method.md §3).

Training is paid once: its operations C and GPU-hours H come from the Hours table, not computed again. Every served
token costs 2·Ψ operations. Every function takes scalars or numpy arrays (broadcast together).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.engine import money
from planner.engine.hours import cost, gpu_hours
from planner.engine.catalog_columns import active_params
from planner.engine.values import plain, prefixed
from planner.engine.shared import ROOFLINE
from planner.method import Method
from planner.model import passes
from planner.model.passes import FORWARD_OPS  # 2 per parameter per served token: the forward pass alone

STEPS = 100  # the cumulative table's rows: day_i = i · horizon / 100, i = 0 … 100
NEVER = "never"  # the crossing day without traffic, in the engine, the sheet, the JSON and the HTML alike
NO_TRAFFIC = "no traffic"  # the cost per served token without traffic


def served_tokens_per_day(choice, presets: dict) -> float:
    """D: the traffic preset's tokens per day from Catalog, or the number given."""
    return presets[choice] if isinstance(choice, str) else choice


def serving_flops_per_day(params, tokens_per_day):
    """2·Ψ·D."""
    return FORWARD_OPS * params * np.asarray(tokens_per_day, dtype=float)


def serving_mfu(scenario, tables) -> float:
    """The serving MFU: the number given, or with `roofline` the Serving table's achieved MFU at its users (§6)."""
    given = scenario.crossover.serving_mfu
    return tables["serving"].scalars["mfu"] if given == ROOFLINE else given


def crossing_day(paid_once, per_day):
    """The day the cumulative serving cost per_day · day reaches training's paid_once: C / (2·Ψ·D) in operations,
    H / (serving GPU-hours per day) in GPU-hours. "never" without traffic."""
    return NEVER if per_day == 0 else paid_once / per_day


@dataclass
class CrossoverTable:
    """docs/method.md §3 for one scenario: the serving day, the crossing days, the cumulative table and the presets."""

    scalars: dict
    cumulative: list[dict]  # 101 rows: day, tokens served by then, then training, serving and total in operations,
    # GPU-hours and cost
    presets: list[dict]  # one per Catalog traffic preset: its tokens per day and its two crossing days

    @property
    def headline(self) -> dict:
        return prefixed("crossover", self.scalars, ("serving_mfu_used", "day_flops", "day_gpu_hours",
                                                    "serving_cost_over_horizon", "total_cost_over_horizon",
                                                    "serving_cost_per_million_tokens")) | {
            "crossover_served_tokens_per_day": self.scalars["tokens_per_day"]}  # D: a preset's, a number, a fleet's

    @property
    def checks(self) -> dict[str, bool]:
        return {"crossover_roofline_fits": self.scalars["roofline_fits"]}

    def to_json(self) -> dict:
        return {**self.scalars, "cumulative": self.cumulative, "presets": self.presets}


def compute(scenario, tables) -> CrossoverTable:
    c, params, gpu = scenario.crossover, active_params(scenario.chosen_model), scenario.chosen_gpu  # 2·Ψ_active
    price = money.gpu_price(scenario)  # in the reporting currency
    training = tables["hours"].scalars  # C and H: section 2's, H before the productive share
    flops, hours = training["training_flops"], training["gpu_hours"]
    presets = scenario.merged_catalog.traffic_presets

    tokens = (tables["fleet"].scalars["tokens_per_day"] if scenario.fleet is not None  # one demand: the fleet's
              else served_tokens_per_day(c.tokens_per_day, presets))
    per_day_flops = serving_flops_per_day(params, tokens)
    mfu = serving_mfu(scenario, tables)
    served = tables["serving"].scalars  # the word roofline needs the users to fit (scenario validation refuses it)
    roofline_fits = c.serving_mfu != ROOFLINE or (bool(served["fits"]) and served["max_concurrency"] > 0)
    per_day_hours = gpu_hours(per_day_flops, gpu.peak_tflops, mfu)
    break_even = flops / (FORWARD_OPS * params)
    scalars = {
        "serving_mfu_used": mfu, "tokens_per_day": tokens, "serving_flops_per_day": per_day_flops,
        "serving_gpu_hours_per_day": per_day_hours, "serving_cost_per_day": cost(per_day_hours, price),
        "training_flops": flops, "training_gpu_hours": hours, "training_cost": cost(hours, price),
        "break_even_tokens": break_even, "break_even_over_training_tokens": break_even / scenario.hours.tokens,
        "day_flops": crossing_day(flops, per_day_flops), "day_gpu_hours": crossing_day(hours, per_day_hours),
        "horizon_days": c.horizon_days, "roofline_fits": roofline_fits,
    }
    # what finance asks first: serving over the horizon, training paid (Hours' cost, allocated), and per token
    serving_cost = c.horizon_days * scalars["serving_cost_per_day"]
    scalars |= {"serving_cost_over_horizon": serving_cost,
                "total_cost_over_horizon": tables["hours"].scalars["cost"] + serving_cost,
                "serving_cost_per_million_tokens": NO_TRAFFIC if tokens == 0
                else scalars["serving_cost_per_day"] / tokens * 1e6}

    day = np.arange(STEPS + 1) * c.horizon_days / STEPS
    ones = np.ones_like(day)
    serving_flops, serving_hours = day * per_day_flops, day * per_day_hours
    columns = {"day": day, "served_tokens": day * tokens, "training_flops": flops * ones,
               "serving_flops": serving_flops,
               "total_flops": flops + serving_flops, "training_gpu_hours": hours * ones,
               "serving_gpu_hours": serving_hours, "total_gpu_hours": hours + serving_hours,
               "training_cost": cost(hours, price) * ones, "serving_cost": cost(serving_hours, price),
               "total_cost": cost(hours, price) + cost(serving_hours, price)}
    cumulative = [{"step": i, **{k: plain(v[i]) for k, v in columns.items()}} for i in range(STEPS + 1)]

    rows = []
    for preset, preset_tokens in presets.items():
        preset_flops = serving_flops_per_day(params, preset_tokens)
        preset_hours = gpu_hours(preset_flops, gpu.peak_tflops, mfu)
        rows.append({"preset": preset, "tokens_per_day": plain(preset_tokens),
                     "serving_gpu_hours_per_day": plain(preset_hours),
                     "day_flops": plain(crossing_day(flops, preset_flops)),
                     "day_gpu_hours": plain(crossing_day(hours, preset_hours))})
    return CrossoverTable({k: plain(v) for k, v in scalars.items()}, cumulative, rows)


CONSTANTS = [passes.SERVING_OPS_CONSTANT]

METHOD = Method(
    title="Crossover: serving against training",
    formulas=[
        "Served tokens per day D: a traffic preset's tokens per day (Catalog) or a number; serving costs 2·Ψ "
        "operations per token, 2·Ψ·D a day.",
        "Training is paid once: its operations C and GPU-hours H come from the Hours sheet (H before the productive "
        "share: the comparison is of work, not of allocations).",
        "Crossing day in operations = C / (2·Ψ·D), that is 3·T / D (4·T / D with activation recomputation).",
        "Serving GPU-hours per day = 2·Ψ·D / (peak TFLOPS · 1e12 · serving MFU · 3600); crossing day in GPU-hours = "
        "H / serving GPU-hours per day: earlier than in operations when serving runs at a lower share of peak than "
        "training (by the ratio serving MFU / training MFU).",
        "Cumulative table: day_i = i · horizon / 100 for i = 0 … 100; training flat at C and H, serving "
        "day · its daily operations and GPU-hours, their total; cost = GPU-hours × the GPU's price per GPU-hour × "
        "the FX rate.",
        "Without traffic (D = 0) serving never overtakes training: the crossing days read \"never\".",
        "Totals: serving cost over the horizon = horizon days × serving cost per day; the total = Hours' training "
        "cost (the allocated GPU-hours at the price) + that; serving cost per million served tokens = serving cost "
        "per day / D × 1e6 (\"no traffic\" when D = 0).",
    ],
    sources=[
        "Kaplan et al. 2020, Scaling Laws for Neural Language Models (arXiv 2001.08361): a forward pass costs about "
        "2·N operations per token, training about 6·N.",
    ],
    caveats=[
        "Traffic presets and serving MFU are illustrative. Decode is bound by memory bandwidth, so serving engines "
        "often reach a small share of peak; real values depend on batch size, quantization and hardware.",
        "Serving counts 2·Ψ per token for prompt and generated tokens alike; attention over the context is left "
        "out, as in training's 6·Ψ·T.",
    ],
)
