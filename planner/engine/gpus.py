"""The Catalog's GPUs side by side (docs/method.md §13): for each GPU, the scenario's training run at its peak and
price, its serving roofline's throughput and cost per million output tokens, tokens per second per megawatt, and
renting against owning the fleet that serves launch traffic for an average month.

Everything but the GPU comes from the scenario: the model, its training operations, the MFU, the productive share,
the run's GPUs, the users, the demand and its profile, the ownership inputs. The serving throughput of each GPU is
§6's roofline on that GPU, computed by the Serving table's functions and handed in (`GPURow`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

from planner.engine import cost
from planner.engine.plan import inputs as plan_inputs
from planner.engine.plan import prices as plan_prices
from planner.engine.calendar import round9
from planner.engine.shared import DAYS_PER_MONTH, HOURS_PER_DAY
from planner.engine.values import plain
from planner.method import Method
from planner.model import passes

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
    owning: plan_inputs.Owning  # the ownership inputs; each row brings its own server price and kW


def training(row: GPURow, s: Shared) -> dict:
    """§2 at the scenario's MFU on this GPU: H_g = C/(peak·1e12·MFU·3600), its cost at p_od and its days."""
    peak = row.fp8_tflops if s.fp8 and row.fp8_tflops else row.peak_tflops
    hours = passes.gpu_hours(s.training_flops, peak, s.mfu)
    allocated = hours / s.productive_share
    return {"training_peak_tflops": peak, "training_gpu_hours": hours,
            "training_cost": allocated * row.price_per_hour * s.fx,
            "training_days": allocated / s.run_gpus / HOURS_PER_DAY}


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
             "cost_per_million": passes.cost_per_million_tokens(price, row.tokens_per_s_per_gpu),
             "cost_per_million_at_max": passes.cost_per_million_tokens(price, row.tokens_per_s_per_gpu_at_max)}
    found["tokens_per_s_per_mw"] = (plan_prices.tokens_per_s_per_mw(row.tokens_per_s_per_gpu, row.server_kw,
                                                                    s.owning.pue)
                                    if row.server_kw else plan_prices.NO_SERVER)
    return found


def rent_against_own(row: GPURow, s: Shared) -> dict:
    """Per average month (30.4375 days) at launch traffic: rent the GPU-hours D/(3600·TokS) a day on demand, or own
    the fleet its peak hour needs, CEILING(ROUND(GPU-hours a day/Σf·MAX(f), 9), 1), at c_own for every hour."""
    if row.max_users == 0 or not row.tokens_per_s_per_gpu or sum(s.profile) == 0:
        reason = DOES_NOT_FIT if sum(s.profile) > 0 else cost.NO_DEMAND
        return dict.fromkeys(("serving_gpu_hours_per_day", "rent_per_month", "owned_fleet", "own_cost_per_gpu_hour",
                              "own_per_month", "break_even_utilisation", "fleet_utilisation"), reason)
    price = row.price_per_hour * s.fx
    per_day = passes.serving_gpu_hours(s.tokens_per_day, row.tokens_per_s_per_gpu)
    fleet = math.ceil(round9(per_day / sum(s.profile) * max(s.profile)))
    found = {"serving_gpu_hours_per_day": per_day,
             "rent_per_month": per_day * DAYS_PER_MONTH * price, "owned_fleet": fleet,
             "fleet_utilisation": per_day / (HOURS_PER_DAY * fleet) if fleet else plan_prices.NO_SERVING}
    if row.server_price is None or row.server_kw is None:
        return found | dict.fromkeys(("own_cost_per_gpu_hour", "own_per_month", "break_even_utilisation"),
                                     plan_prices.NO_SERVER)
    c_own = plan_prices.owned_rates(s.owning, s.fx, server_price=row.server_price,
                             server_kw=row.server_kw).cost_per_gpu_hour
    return found | {"own_cost_per_gpu_hour": c_own,
                    "own_per_month": fleet * c_own * HOURS_PER_DAY * DAYS_PER_MONTH,
                    "break_even_utilisation": plan_prices.break_even_utilisation(c_own, price)}


def side_by_side(rows: list[GPURow], s: Shared) -> list[dict]:
    """One row per GPU, with marks on the cheapest rent and the cheapest own (MIN over each column's numbers)."""
    found = [{"gpu": row.gpu, "max_users": row.max_users, **training(row, s), **serving(row, s),
              **rent_against_own(row, s)} for row in rows]
    for key, mark in (("rent_per_month", "cheapest_rent"), ("own_per_month", "cheapest_own")):
        numbers = [r[key] for r in found if isinstance(r[key], float)]
        for r in found:
            r[mark] = bool(numbers) and r[key] == min(numbers)
    return found


@dataclass
class GPUsTable:
    """Every Catalog GPU with a price side by side, in Catalog order: `rows` as side_by_side gives them, each with
    its Catalog row (1-based) under "catalog_row"."""

    rows: list[dict]
    passes: list = field(default_factory=list)  # each row's Replica.pass_pieces at B and at B_max ({"b", "max"};
    # None where none fits), where the sheet shows them (not in the JSON)

    @property
    def headline(self) -> dict:
        rent = next((r["gpu"] for r in self.rows if r["cheapest_rent"]), NONE_PRICED)
        own = next((r["gpu"] for r in self.rows if r["cheapest_own"]), NONE_PRICED)
        return {"gpus_cheapest_rent": rent, "gpus_cheapest_own": own}

    @property
    def checks(self) -> dict[str, bool]:
        return {}

    def to_json(self) -> dict:
        return {"rows": self.rows}

    def json_tables(self) -> dict:
        """The JSON's tables.gpus: one object per GPU."""
        return {"gpus": self.rows}


NONE_PRICED = "n/a: no GPU with a price"


def compute(scenario, tables) -> GPUsTable:
    """The GPUs table of a scenario: each Catalog GPU with a price, at the scenario's training run (§2), serving
    set-up (§6's roofline on that GPU, the Serving table's replica with the GPU swapped) and demand."""
    from planner.engine.serving import in_force, replica_of

    hours, s = tables["hours"].scalars, scenario
    catalog = s.merged_catalog
    shared = Shared(training_flops=hours["training_flops"], mfu=hours["mfu_used"],
                    productive_share=s.hours.productive_share, run_gpus=s.hours.gpus,
                    fp8=s.training_precision == "fp8", users=s.serving.users,
                    tokens_per_day=tables["crossover"].scalars["tokens_per_day"],
                    profile=plan_inputs.plan_profile(s), fx=s.fx_rate,
                    owning=plan_inputs.Owning(server_price=None, server_kw=None, **s.ownership.model_dump()))
    rows, positions, replicas, passes = [], [], [], []
    for position, (gpu_id, gpu) in enumerate(catalog.gpus.items(), start=1):
        if gpu.price_per_hour is None:
            continue
        replica = replica_of(s, gpu)
        if gpu_id == s.gpu:  # the scenario's GPU: the efficiencies in force (a calibration's fit), as Serving's
            replica = replace(replica, **in_force(s, tables["serving"].fit))
        b_max = replica.b_max
        at = replica.at(min(s.serving.users, b_max))["tokens_per_s_per_gpu"] if b_max > 0 else None
        passes.append({"b": replica.pass_pieces(min(s.serving.users, b_max)), "max": replica.pass_pieces(b_max)}
                      if b_max > 0 else None)
        at_max = replica.at(b_max)["tokens_per_s_per_gpu"] if b_max > 0 else None
        rows.append(GPURow(gpu=gpu_id, peak_tflops=gpu.peak_tflops, fp8_tflops=gpu.fp8_tflops,
                           price_per_hour=gpu.price_per_hour, server_price=gpu.server_price,
                           server_kw=gpu.server_kw, max_users=b_max, tokens_per_s_per_gpu=at,
                           tokens_per_s_per_gpu_at_max=at_max))
        positions.append(position)
        replicas.append(replica)
    found = side_by_side(rows, shared)
    for row, position, replica in zip(found, positions, replicas):
        row |= {"catalog_row": position, "price": replica.price_per_gpu_hour,  # × fx already (replica_of)
                "peak_flops": replica.p_e, "bandwidth": replica.bw_e, "nvlink_gbps": replica.nvlink_gbps or 0.0}
    return GPUsTable([{key: plain(value) for key, value in row.items()} for row in found], passes)


CONSTANTS: list = []
METHOD = Method(
    title="GPUs side by side",
    formulas=[
        "One row per Catalog GPU with an on-demand price, each value read from its Catalog row; everything else "
        "(model, training operations C, MFU, productive share q, the run's GPUs N_run, users, prompt and output "
        "tokens, efficiencies, demand D, its profile and the ownership inputs) is the scenario's.",
        "Training at the scenario's MFU on every GPU: peak = the FP8 peak when training in FP8 and the GPU has "
        "one, else BF16; GPU-hours C/(peak·1e12·MFU·3600); cost = GPU-hours/q × price × fx; days = GPU-hours/q/"
        "N_run/24.",
        "Serving: §6's roofline on the row's GPU (its memory, peak, bandwidth, NVLink) with the scenario's model, "
        "precisions and t; B_max; B = MIN(users, B_max), said as \"users\" or \"B_max\"; cost per million output "
        "tokens at B and at B_max; output tokens per second per MW = TokS·1000/(kW·PUE); \"does not fit\" when "
        "B_max = 0.",
        "Rent against own per average month (30.4375 days) at launch traffic: GPU-hours a day = D/(3600·TokS); "
        "rent = GPU-hours a day × 30.4375 × price; the owned fleet = CEIL9(GPU-hours a day/Σf·MAX(f)) (the peak "
        "hour in use); own = fleet × c_own × 24 × 30.4375 with c_own from the row's server price and kW; u* = "
        "c_own/price; the fleet's utilisation = GPU-hours a day/(24·fleet). Marks on the cheapest rent and own.",
    ],
    sources=["The Hours (§2) and Serving (§6) formulas on each Catalog GPU; owning as the Cost sheet (§13.4)."],
    caveats=["The same MFU on every GPU is a simplification: measured GEMM shares differ by GPU (Layouts).",
             "Server prices and kW are illustrative Catalog values: replace them with your quotes."],
)
