"""One GPU cluster over 24 hours: separate pools against a shared cluster with preemption (docs/method.md §4).

Inference demand follows its profile (fractions of the peak, hours 0 … 23). Separate pools size the serving pool
for the peak plus spare and train on the rest; shared, inference gets its demand plus spare each hour and training
everything else, and each hour inference grows, that many training GPUs are preempted (the day repeats: hour 0
follows hour 23). Every function takes scalars or numpy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.engine import money
from planner.engine.values import plain, prefixed
from planner.method import Constant, Method

ROUNDING_DECIMALS = 9  # CEIL9: round to 9 decimals before rounding up, as the sheet does (15-digit arithmetic)


def ceil9(x):
    """CEIL9(x): the ceiling of x rounded to 9 decimals, so 100·(1 + 0.1) = 110.00000000000001 gives 110."""
    return np.ceil(np.round(x, ROUNDING_DECIMALS))


def demand(peak_gpus, fractions):
    """D_h = P · f_h."""
    return peak_gpus * np.asarray(fractions, dtype=float)


def serving_pool(peak_gpus, fractions, spare):
    """Separate pools: pool = CEIL9(max_h D_h · (1 + r)), the peak plus spare in whole GPUs."""
    return ceil9(np.max(demand(peak_gpus, fractions)) * (1 + spare))


def shared_allocation(hourly_demand, spare, gpus):
    """Shared: A_h = min(N, CEIL9(D_h · (1 + r))), inference's demand plus spare each hour."""
    return np.minimum(gpus, ceil9(hourly_demand * (1 + spare)))


def preemptions(allocated):
    """max(0, A_h − A_{h−1}): training GPUs given back as inference grows; hour 0 compares with hour 23."""
    return np.maximum(0, allocated - np.roll(allocated, 1))


@dataclass
class ClusterTable:
    """docs/method.md §4 for one scenario: the serving pool, the day's totals and the 24 hours."""

    scalars: dict
    hours: list[dict]  # hour 0 … 23: fraction, demand, separate_idle, separate_training, allocated, shared_spare,
    # shared_training, preempted

    @property
    def headline(self) -> dict:
        return prefixed("cluster", self.scalars, ("training_gpu_hours_separate", "training_gpu_hours_shared",
                                                  "moved_gpu_hours", "idle_gpu_hours_separate", "preemptions",
                                                  "net_gain_gpu_hours", "net_gain_value"))

    @property
    def checks(self) -> dict[str, bool]:
        return {"cluster_pool_fits": self.scalars["pool_fits"]}

    def to_json(self) -> dict:
        return {**self.scalars, "hours": self.hours}


def compute(scenario, tables) -> ClusterTable:
    c, price = scenario.cluster, money.gpu_price(scenario)  # in the reporting currency
    fractions = np.asarray(scenario.merged_catalog.profiles[c.profile], dtype=float)
    hourly = demand(c.inference_peak_gpus, fractions)
    pool = serving_pool(c.inference_peak_gpus, fractions, c.spare)
    separate_idle = pool - hourly
    separate_training = np.full_like(hourly, c.gpus - pool)
    allocated = shared_allocation(hourly, c.spare, c.gpus)
    shared_spare = allocated - hourly
    shared_training = c.gpus - allocated
    preempted = preemptions(allocated)

    training_separate, training_shared = separate_training.sum(), shared_training.sum()
    moved = training_shared - training_separate
    lost = preempted.sum() * c.restart_cost_gpu_hours
    scalars = {
        "profile": c.profile, "peak_fraction": fractions.max(), "peak_demand_gpus": hourly.max(),
        "pool_gpus": pool, "separate_training_gpus": c.gpus - pool, "pool_fits": bool(pool <= c.gpus),
        "inference_gpu_hours": hourly.sum(),
        "idle_gpu_hours_separate": separate_idle.sum(), "training_gpu_hours_separate": training_separate,
        "idle_gpu_hours_shared": shared_spare.sum(), "training_gpu_hours_shared": training_shared,
        "moved_gpu_hours": moved, "preemptions": preempted.sum(), "lost_gpu_hours": lost,
        "net_gain_gpu_hours": moved - lost, "price_per_gpu_hour": price, "net_gain_value": (moved - lost) * price,
    }
    columns = {"fraction": fractions, "demand": hourly, "separate_idle": separate_idle,
               "separate_training": separate_training, "allocated": allocated, "shared_spare": shared_spare,
               "shared_training": shared_training, "preempted": preempted}
    hours = [{"hour": h, **{key: plain(values[h]) for key, values in columns.items()}} for h in range(len(hourly))]
    return ClusterTable({k: plain(v) for k, v in scalars.items()}, hours)


CONSTANTS = [
    Constant("gpu_rounding_decimals", ROUNDING_DECIMALS, label="Decimals kept before rounding up to whole GPUs (CEIL9)",
             unit="decimals",
                 source="Spreadsheets compute to 15 significant digits: 100·(1 + 10 %) must give 110 GPUs, not 111"),
]

METHOD = Method(
    title="Cluster over 24 hours: separate pools or shared with preemption",
    formulas=[
        "Demand D_h = P · f_h for each hour h = 0 … 23, where P is the inference peak in GPUs and f_h the chosen "
        "profile's fraction of the peak (Catalog).",
        "CEIL9(x) = the ceiling of x rounded to 9 decimals, so that 100 · (1 + 10 %) gives 110 GPUs, not 111.",
        "Separate pools: serving pool = CEIL9(max_h D_h · (1 + r)) with spare share r; training runs on the other "
        "N − pool GPUs every hour; the pool's idle GPUs each hour = pool − D_h. A pool larger than the cluster is "
        "an input error.",
        "Shared with preemption: inference gets A_h = min(N, CEIL9(D_h · (1 + r))) GPUs and training the other "
        "N − A_h; each hour inference grows, max(0, A_h − A_{h−1}) training GPUs are preempted, the day repeating "
        "(hour 0 compares with hour 23).",
        "Totals over the day: inference, idle and training GPU-hours in each mode; GPU-hours moved to training = "
        "shared − separate training GPU-hours; work lost = preemptions · c, the restart cost per preempted GPU in "
        "GPU-hours; net gain = moved − lost, valued at the GPU's price per GPU-hour.",
    ],
    sources=[
        "docs/method.md §4, the walk-through of examples/cluster-1 to cluster-3: one GPU cluster over 24 hours, "
        "separate pools against a shared cluster with "
        "preemption; the office-assistant, global-app and consumer-evening profiles.",
    ],
    caveats=[
        "Profiles are illustrative; use your own traffic by adding a profile on Catalog.",
        "A preempted GPU loses the work since the last checkpoint plus the restart: one restart cost per preempted "
        "GPU, whatever the job's size; jobs that cannot shrink or grow by single GPUs lose more.",
        "Spare capacity is a share of each hour's demand in the shared cluster and of the peak in separate pools.",
    ],
)
