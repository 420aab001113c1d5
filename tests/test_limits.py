"""Every limit is declared once, on the scenario model: the engine stays finite over the whole allowed range, and
the workbook's data validation and Checks use the same bounds the validator does."""

from __future__ import annotations

import io
import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.scenario.catalog_entries import GPUEntry
from planner.engine import compute
from planner.engine.shared import TooManyGPUs
from planner.output import results_json
from planner.report import render_html
from planner.scenario import ScenarioError, parse_scenario
from planner.workbook import build
from planner.listing import Allowed, declared_inputs
from planner.inputs.hours import Allocation as ALLOCATION
from tests.conftest import SECTION
from tests.helpers import scenario_with


def bounds(section: type, field: str) -> tuple[float, float]:
    allowed = Allowed.of(section.model_fields[field])
    return allowed.minimum, allowed.maximum


class Drawn:
    """Each choice of a scenario at the edges, drawn by Hypothesis: a listed option, or a declared field's minimum,
    maximum or anything between."""

    def __init__(self, draw):
        self.draw = draw

    def one_of(self, options: list):
        return self.draw(st.sampled_from(options))

    def anywhere(self, section: type, field: str, whole: bool = False):
        low, high = bounds(section, field)
        between = st.integers(int(low), int(high)) if whole else st.floats(low, high)
        return self.draw(st.sampled_from([int(low) if whole else low, int(high) if whole else high]) | between)

    def maybe(self, value):
        return self.draw(st.none() | st.just(value))


class Largest:
    """Each choice at its largest: the last option listed, a declared field's maximum."""

    def one_of(self, options: list):
        return options[-1]

    def anywhere(self, section: type, field: str, whole: bool = False):
        high = bounds(section, field)[1]
        return int(high) if whole else high

    def maybe(self, value):
        return value


def at_the_edges(pick) -> dict:
    """A scenario's data with every choice made by `pick` (Drawn, Largest) among the edges of what is allowed."""
    kv_heads = pick.one_of([1, 8, 100_000])
    heads = kv_heads * (pick.one_of([1, 2]) if kv_heads < 100_000 else 1)
    layers = pick.one_of([1, 126, 10_000])
    custom_model = {"name": "edge", "layers": layers, "hidden": pick.one_of([1, 4096, 1_000_000]),
                    "heads": heads, "kv_heads": kv_heads, "head_dim": pick.one_of([1, 128, 100_000]),
                    "ffn": pick.one_of([1, 10_000_000]), "vocab": pick.one_of([1, 100_000_000]),
                    "params": pick.one_of([1.0, 1e15])}
    custom_gpu = {"name": "edge-gpu", "memory_gb": pick.anywhere(GPUEntry, "memory_gb"),
                  "peak_tflops": pick.anywhere(GPUEntry, "peak_tflops"),
                  "hbm_tbps": pick.anywhere(GPUEntry, "hbm_tbps"),
                  # the plan's GPU needs a price above 0 (0 is refused by name): a cent where the edge is 0
                  "price_per_hour": pick.anywhere(GPUEntry, "price_per_hour") or 0.01,
                  "nvlink_gbps": pick.anywhere(GPUEntry, "nvlink_gbps"),
                  "fp8_tflops": pick.maybe(pick.anywhere(GPUEntry, "fp8_tflops"))}
    t = pick.one_of([1, heads])
    p = pick.one_of([1, layers])
    peak = pick.one_of([0, 1, 90_000_000])
    return {
        "name": "edges",
        "model": custom_model, "gpu": custom_gpu,
        "memory": {"gpus": t * p * pick.one_of([1, min(1000, 10**9 // (t * p))]), "tensor_parallel": t,
                   "pipeline_parallel": p,
                   "sequence_length": pick.anywhere(SECTION["memory"], "sequence_length", whole=True),
                   "micro_batch": pick.anywhere(SECTION["memory"], "micro_batch", whole=True),
                   "strategy": pick.one_of(["ddp", "zero3"]),
                   "activation_checkpointing": pick.one_of([False, True])},
        "serving": {"users": pick.anywhere(SECTION["serving"], "users", whole=True),
                    "tensor_parallel": pick.one_of([1, 8]) if heads % 8 == kv_heads % 8 == 0 else 1,
                    "sequence_length": pick.anywhere(SECTION["serving"], "sequence_length", whole=True),
                    "weight_precision": pick.one_of(["bf16", "fp8", "int4-g128"]),
                    "kv_precision": pick.one_of(["bf16", "fp8"]),
                    **{key: pick.anywhere(SECTION["serving"], key) for key in (
                        "compute_efficiency", "bandwidth_efficiency", "memory_reserve", "overhead_ms")}},
        "hours": {"tokens": pick.anywhere(SECTION["hours"], "tokens", whole=True),
                  "mfu": pick.anywhere(SECTION["hours"], "mfu"), "activation_recompute": pick.one_of([False, True]),
                  "gpus": pick.anywhere(SECTION["hours"], "gpus", whole=True),
                  "productive_share": pick.anywhere(SECTION["hours"], "productive_share"),
                  "allocations": [{"gpus": pick.anywhere(ALLOCATION, "gpus", whole=True),
                                   "mfu": pick.anywhere(ALLOCATION, "mfu")}]},
        "crossover": {"tokens_per_day": pick.one_of([0, 1, 10**18, "popular-app", "edge"]),
                      "serving_mfu": pick.anywhere(SECTION["crossover"], "serving_mfu"),
                      "horizon_days": pick.anywhere(SECTION["crossover"], "horizon_days", whole=True)},
        "catalog": {"traffic_presets": {"edge": pick.one_of([0, 1, 10**18])}},
        # a cluster of 11 × the peak holds the pool at any spare share up to 10 (1000 %)
        "cluster": {"inference_peak_gpus": peak, "gpus": pick.one_of([max(1, 11 * peak), 10**9]),
                    "spare": pick.anywhere(SECTION["cluster"], "spare"),
                    "restart_cost_gpu_hours": pick.anywhere(SECTION["cluster"], "restart_cost_gpu_hours"),
                    "profile": pick.one_of(["office-assistant", [0.0] * 24, [1.0] * 24])},
    }


@st.composite
def extreme_scenarios(draw):
    return parse_scenario(at_the_edges(Drawn(draw)))


def finite(value) -> bool:
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, list):
        return all(finite(v) for v in value)
    return not isinstance(value, float) or math.isfinite(value)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=extreme_scenarios())
def test_every_output_stays_finite_over_the_whole_allowed_range(scenario):
    """The engine's results, the JSON and the HTML summary, on 30 scenarios at the edges; the workbook, which writes
    the same results, is built once, below."""
    try:
        results = compute(scenario)
    except TooManyGPUs:  # 1e18 tokens a day on a replica of 1e-7 tokens a second: refused by name (exit 2)
        return
    assert finite(results.to_json())
    assert finite(json.loads(results_json(results)))
    assert "<svg" in render_html(results, generated="2026-01-01")


def test_the_workbook_builds_with_every_choice_at_its_largest():
    """Every cached value the workbook writes is a finite number (XlsxWriter would refuse NaN and infinity)."""
    results = compute(parse_scenario(at_the_edges(Largest())))
    assert finite(results.to_json())
    book = build(results, io.BytesIO())
    assert finite(list(book.formulas.values()))
    assert book.formulas[book.names["hours_gpu_hours"]] > 0


@pytest.mark.parametrize("key, value", [
    ("memory.gpus", 10**9 + 1), ("memory.sequence_length", 10**9 + 1), ("hours.tokens", 10**6 - 1),
    ("hours.mfu", 0.0009), ("hours.mfu", 1.0001), ("hours.productive_share", 0.0009), ("serving.users", 0),
])
def test_just_outside_a_declared_bound_is_refused(key, value):
    with pytest.raises(ScenarioError) as error:
        scenario_with(**{key: value})
    assert key in str(error.value)


def test_the_workbook_states_the_declared_bounds():
    """Each input's data validation and Checks formula carry the model's own minimum and maximum."""
    scenario = scenario_with()
    for section in ("memory", "serving", "hours", "crossover"):
        for spec in declared_inputs(getattr(scenario, section), section):
            if spec.allowed.type not in ("whole", "decimal"):
                continue
            low, high = spec.allowed.minimum, spec.allowed.maximum
            rule = spec.allowed.validation()
            if rule["validate"] in ("integer", "decimal"):
                assert (rule["minimum"], rule["maximum"]) == (low, high), spec.name
            check = spec.allowed.check(spec.name)
            # short where that keeps every digit (1e+09), else in full (1048576, not 1.04858e+06)
            low, high = (f"{x:g}" if float(f"{x:g}") == x else f"{x:.15g}" for x in (low, high))
            assert f"{spec.name}>={low}" in check and f"{spec.name}<={high}" in check, check
    # and they are the pydantic declarations themselves, not copies
    assert bounds(SECTION["memory"], "gpus") == (1, 10**9)
    assert bounds(SECTION["hours"], "mfu") == (0.001, 1)
