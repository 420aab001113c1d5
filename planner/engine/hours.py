"""Training operations, GPU-hours, days and cost (docs/method.md §2), against Meta's reported Llama 3.1 hours.

Every function takes scalars or numpy arrays (broadcast together).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner import shipped
from planner.engine import money
from planner.engine.catalog_columns import active_params
from planner.engine.values import plain, prefixed
from planner.engine.shared import HOURS_PER_DAY, LAYOUT, MONTHS_PER_YEAR, PER_MILLION, SECONDS_PER_HOUR
from planner.method import Constant, Method
from planner.model import passes
from planner.model.passes import RECOMPUTE_OPS, TRAINING_OPS, gpu_hours, training_flops


def training_peak_tflops(gpu, training_precision: str) -> float:
    """The peak training runs at: the dense FP8 peak in FP8 training on a GPU that has it, else BF16 (docs/method.md
    §7: an A100 keeps its BF16 peak, and a check says so)."""
    return gpu.fp8_tflops if training_precision == "fp8" and gpu.fp8_tflops else gpu.peak_tflops


def allocated_gpu_hours(hours, productive_share):
    """H / q: the GPU-hours paid for when only a share q of allocated time does useful training."""
    return hours / productive_share


def wall_clock_days(allocated, gpus):
    """Allocated GPU-hours / N_run / 24."""
    return allocated / gpus / HOURS_PER_DAY


def cost(allocated, price_per_gpu_hour):
    return allocated * price_per_gpu_hour


@dataclass
class HoursTable:
    """docs/method.md §2 for one scenario: the run, the allocation options (the run first) and the Llama 3.1 reference
    rows."""

    scalars: dict
    allocations: list[dict]  # the run, then each option: gpus, mfu, gpu_hours, allocated_gpu_hours, days, cost
    reference: list[dict]  # one per Llama 3.1 model: model, params, training_flops, calculated and reported hours

    @property
    def headline(self) -> dict:
        return prefixed("hours", self.scalars, ("mfu_used", "training_flops", "gpu_hours", "allocated_gpu_hours",
                                                "days", "cost"))

    @property
    def checks(self) -> dict[str, bool]:
        return {"hours_reference_gpu_in_catalog": self.scalars["reference_gpu_found"],
                "hours_fp8_peak_found": self.scalars["fp8_peak_found"]}

    def to_json(self) -> dict:
        return {**self.scalars, "allocations": self.allocations, "reference": self.reference}


def mfu_used(scenario, tables) -> float:
    """The MFU given, or with `layout` the layout search's cheapest layout's predicted MFU (§10)."""
    given = scenario.hours.mfu
    if given != LAYOUT:
        return given
    found = tables["layouts"].search
    if not found.cheapest:
        from planner.engine.shared import NoLayout

        raise NoLayout(f"the word layout needs a layout that fits and meets the deadline: {found.reason}")
    return found.cheapest[0]["mfu"]


def compute(scenario, tables) -> HoursTable:
    h, model, gpu = scenario.hours, scenario.chosen_model, scenario.chosen_gpu
    mfu = mfu_used(scenario, tables)
    price = money.gpu_price(scenario)  # in the reporting currency
    peak = training_peak_tflops(gpu, scenario.training_precision)
    flops = training_flops(active_params(model), h.tokens, h.activation_recompute)
    hours = gpu_hours(flops, peak, mfu)
    allocated = allocated_gpu_hours(hours, h.productive_share)
    scalars = {
        "gpu_peak_tflops": gpu.peak_tflops, "peak_tflops": peak, "mfu_used": mfu, "price_per_gpu_hour": price,
        "ops_per_param_token": RECOMPUTE_OPS if h.activation_recompute else TRAINING_OPS,
        "training_flops": flops, "gpu_hours": hours, "allocated_gpu_hours": allocated,
        "cost": cost(allocated, price), "gpus": h.gpus, "days": wall_clock_days(allocated, h.gpus),
    }

    rows = [("This run", h.gpus, mfu)] + [(f"Option {i}", a.gpus, a.mfu) for i, a in enumerate(h.allocations, 1)]
    gpus = np.array([r[1] for r in rows], dtype=float)
    mfus = np.array([r[2] for r in rows])
    option_hours = gpu_hours(flops, peak, mfus)
    option_allocated = allocated_gpu_hours(option_hours, h.productive_share)
    columns = {"gpus": gpus, "mfu": mfus, "gpu_hours": option_hours, "allocated_gpu_hours": option_allocated,
               "days": wall_clock_days(option_allocated, gpus), "cost": cost(option_allocated, price)}
    allocations = [{"option": label, **{k: plain(v[i]) for k, v in columns.items()}}
                   for i, (label, _, _) in enumerate(rows)]

    # Meta's hours are H100-hours: the calculation beside them runs at the reference GPU's peak
    models = scenario.merged_catalog.models
    reference_gpu = scenario.merged_catalog.gpus[shipped.REFERENCE_GPU]
    params = np.array([models[i].params for i in shipped.REFERENCE_MODELS])
    ref_flops = training_flops(params, h.tokens, h.activation_recompute)
    calculated = gpu_hours(ref_flops, reference_gpu.peak_tflops, mfu)
    reported = np.array([models[i].reported_h100_hours or 0.0 for i in shipped.REFERENCE_MODELS])
    reference = [{"model": key, "params": plain(params[i]), "training_flops": plain(ref_flops[i]),
                  "calculated_gpu_hours": plain(calculated[i]), "reported_gpu_hours": plain(reported[i]),
                  "reported_over_calculated": plain(reported[i] / calculated[i])}
                 for i, key in enumerate(shipped.REFERENCE_MODELS)]
    scalars["reference_gpu_peak_tflops"] = reference_gpu.peak_tflops
    scalars["reference_gpu_found"] = True  # the Catalog keeps every shipped id
    scalars["fp8_peak_found"] = scenario.training_precision != "fp8" or bool(gpu.fp8_tflops)
    return HoursTable({k: plain(v) for k, v in scalars.items()}, allocations, reference)


UNITS = [Constant(name, value, label=label, unit=unit, source=source) for name, value, label, unit, source in (
    # named, not typed, in every formula (issue 43): the hours, seconds, months and millions they convert
    ("hours_per_day", HOURS_PER_DAY, "Hours per day", "hours", "A day's 24 hours"),
    ("seconds_per_hour", SECONDS_PER_HOUR, "Seconds per hour", "seconds", "An hour's 3,600 seconds"),
    ("months_per_year", MONTHS_PER_YEAR, "Months per year", "months",
     "The calendar's 12 months: years of months, discounting and escalation per year"),
    ("per_million", PER_MILLION, "A million (tokens per million; microseconds per second)", "count",
     "Costs per million tokens; latencies typed in µs"))]
CONSTANTS = [
    *UNITS,
    *passes.TRAINING_CONSTANTS,
    Constant("reference_gpu", shipped.REFERENCE_GPU, label="Reference GPU for Meta's reported hours", unit="",
             source="Meta reports Llama 3.1's training in H100-80GB GPU-hours"),
]

# How to read the reported ÷ calculated ratios (the Hours sheet and the HTML say it).
REPORTED_RATIOS = (
    "The ratio shows how far Meta's reported hours sit from this calculation at one MFU for every model size. "
    "Reported hours include restarts, checkpointing, evaluation and lower-MFU phases (Meta measured 38 % to 43 % "
    "for 405B); the smaller models' much higher ratios (8B: 2.77 at 40 %) suggest they ran at a far lower MFU "
    "than 405B, so one MFU for all three sizes does not describe Meta's runs.")

METHOD = Method(
    title="Training hours and cost",
    formulas=[
        "Training operations C = 6·Ψ·T (forward 2 + backward 4 operations per parameter per token); with activation "
        "recomputation C = 8·Ψ·T (one extra forward pass).",
        "GPU-hours H = C / (peak TFLOPS · 1e12 · MFU · 3600), at the GPU's dense BF16 peak.",
        "Allocated GPU-hours = H / q, where q is the productive share of allocated time; cost = allocated GPU-hours "
        "× the GPU's price per GPU-hour (Catalog) × the FX rate; wall-clock days = allocated GPU-hours / GPUs in "
        "the run / 24.",
        "Allocation options: the run itself, then each (GPUs, MFU) row with its own GPU-hours, days and cost; a "
        "larger allocation at a lower MFU finishes sooner but pays for more GPU-hours.",
        "Reference rows: Llama 3.1 8B, 70B and 405B at the scenario's tokens, MFU and recomputation on the H100's "
        "peak, beside Meta's reported 1.46 M, 7.0 M and 30.84 M H100-hours, with their ratio.",
    ],
    sources=[
        "Kaplan et al. 2020, Scaling Laws for Neural Language Models (arXiv 2001.08361): C ≈ 6·N·D.",
        "Korthikanti et al. 2022 (arXiv 2205.05198), §5: recomputation costs one more forward pass.",
        "Meta, Llama 3.1 model card: 1.46 M, 7.0 M and 30.84 M H100-80GB GPU-hours; The Llama 3 Herd of Models "
        "(arXiv 2407.21783), Table 4: 8,192 GPUs at 43 % MFU and 16,384 GPUs at 41 %.",
    ],
    caveats=[
        "Reported hours include restarts, checkpointing and lower-MFU phases, so they sit above the pure calculation "
        "(405B at 40 % MFU: about 26.7 M against 30.84 M).",
        "Compare complete allocation cost, including failed runs and recovery, rather than the hourly rate alone.",
        "The attention-score operations (about 6·L·s·h per token) are left out, as in 6·Ψ·T.",
    ],
)
