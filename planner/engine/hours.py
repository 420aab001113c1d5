"""Training operations, GPU-hours, days and cost (METHOD.md §2), against Meta's reported Llama 3.1 hours.

Every function takes scalars or numpy arrays (broadcast together).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from planner import catalog
from planner.engine.values import plain

# Operations per parameter per token: forward 2 + backward 4 (Kaplan et al. 2020, "6N"); recomputing the
# activations adds one more forward pass, 2 (Korthikanti et al. 2022, §5).
TRAINING_OPS = 6
RECOMPUTE_OPS = 8
SECONDS_PER_HOUR = 3600


def training_flops(params, tokens, activation_recompute):
    """C = 6·Ψ·T, or 8·Ψ·T with activation recomputation."""
    return np.where(activation_recompute, RECOMPUTE_OPS, TRAINING_OPS) * params * tokens


def gpu_hours(flops, peak_tflops, mfu):
    """H = C / (peak·1e12 · MFU · 3600): GPU-hours at the achieved share of the dense BF16 peak."""
    return flops / (peak_tflops * 1e12 * mfu * SECONDS_PER_HOUR)


def allocated_gpu_hours(hours, productive_share):
    """H / q: the GPU-hours paid for when only a share q of allocated time does useful training."""
    return hours / productive_share


def wall_clock_days(allocated, gpus):
    """Allocated GPU-hours / N_run / 24."""
    return allocated / gpus / 24


def cost(allocated, price_per_gpu_hour):
    return allocated * price_per_gpu_hour


@dataclass
class HoursTable:
    """METHOD.md §2 for one scenario: the run, the allocation options and the Llama 3.1 reference rows."""

    scalars: dict[str, float]
    allocations: pd.DataFrame  # one row per allocation option
    reference: pd.DataFrame  # one row per Llama 3.1 model, indexed by model id

    @property
    def headline(self) -> dict:
        s = self.scalars
        return {"hours_training_flops": s["training_flops"], "hours_gpu_hours": s["gpu_hours"],
                "hours_allocated_gpu_hours": s["allocated_gpu_hours"], "hours_days": s["days"],
                "hours_cost": s["cost"]}

    @property
    def checks(self) -> dict[str, bool]:
        s = self.scalars
        return {"hours_days_match_allocation": bool(np.isclose(s["days"] * 24 * s["gpus"], s["allocated_gpu_hours"],
                                                               rtol=1e-9))}

    def to_json(self) -> dict:
        return {**self.scalars, "allocations": self.allocations.to_dict(orient="records"),
                "reference": self.reference.reset_index(names="model").to_dict(orient="records")}


def hours_table(scenario) -> HoursTable:
    h, model, gpu = scenario.hours, scenario.model_spec(), scenario.gpu_spec()
    flops = training_flops(model.params, h.tokens, h.activation_recompute)
    hours = gpu_hours(flops, gpu.peak_tflops, h.mfu)
    allocated = allocated_gpu_hours(hours, h.productive_share)
    scalars = {
        "gpu_peak_tflops": gpu.peak_tflops,
        "ops_per_param_token": RECOMPUTE_OPS if h.activation_recompute else TRAINING_OPS,
        "training_flops": flops, "gpu_hours": hours, "allocated_gpu_hours": allocated,
        "cost": cost(allocated, scenario.price_per_gpu_hour), "gpus": h.gpus,
        "days": wall_clock_days(allocated, h.gpus),
    }

    options = pd.DataFrame([a.model_dump() for a in h.allocations])
    options["gpu_hours"] = gpu_hours(flops, gpu.peak_tflops, options.mfu)
    options["allocated_gpu_hours"] = allocated_gpu_hours(options.gpu_hours, h.productive_share)
    options["days"] = wall_clock_days(options.allocated_gpu_hours, options.gpus)
    options["cost"] = cost(options.allocated_gpu_hours, scenario.price_per_gpu_hour)

    # Meta's hours are H100-hours: the calculation beside them runs at the H100's peak
    models = {m.id: m for m in scenario.models()}
    h100 = next(g for g in scenario.gpus() if g.id == catalog.REFERENCE_GPU)
    reference = pd.DataFrame(index=pd.Index(catalog.REFERENCE_MODELS, name="model"))
    reference["params"] = [models[i].params for i in reference.index]
    reference["training_flops"] = training_flops(reference.params, h.tokens, h.activation_recompute)
    reference["calculated_gpu_hours"] = gpu_hours(reference.training_flops, h100.peak_tflops, h.mfu)
    reference["reported_gpu_hours"] = [models[i].reported_h100_hours for i in reference.index]
    reference["reported_over_calculated"] = reference.reported_gpu_hours / reference.calculated_gpu_hours
    scalars["reference_gpu_peak_tflops"] = h100.peak_tflops
    return HoursTable({k: plain(v) for k, v in scalars.items()}, options.map(plain), reference.map(plain))
