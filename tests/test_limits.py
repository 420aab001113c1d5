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


def anywhere(section: type, field: str, whole: bool = False):
    """A value of a declared field: its minimum, its maximum, or anything between."""
    low, high = bounds(section, field)
    between = st.integers(int(low), int(high)) if whole else st.floats(low, high)
    return st.sampled_from([int(low) if whole else low, int(high) if whole else high]) | between


@st.composite
def extreme_scenarios(draw):
    kv_heads = draw(st.sampled_from([1, 8, 100_000]))
    heads = kv_heads * draw(st.sampled_from([1, 2]) if kv_heads < 100_000 else st.just(1))
    layers = draw(st.sampled_from([1, 126, 10_000]))
    custom_model = {"name": "edge", "layers": layers, "hidden": draw(st.sampled_from([1, 4096, 1_000_000])),
                    "heads": heads, "kv_heads": kv_heads, "head_dim": draw(st.sampled_from([1, 128, 100_000])),
                    "ffn": draw(st.sampled_from([1, 10_000_000])), "vocab": draw(st.sampled_from([1, 100_000_000])),
                    "params": draw(st.sampled_from([1.0, 1e15]))}
    custom_gpu = {"name": "edge-gpu", "memory_gb": draw(anywhere(GPUEntry, "memory_gb")),
                  "peak_tflops": draw(anywhere(GPUEntry, "peak_tflops")),
                  "hbm_tbps": draw(anywhere(GPUEntry, "hbm_tbps")),
                  "price_per_hour": draw(anywhere(GPUEntry, "price_per_hour")),
                  "nvlink_gbps": draw(anywhere(GPUEntry, "nvlink_gbps")),
                  "fp8_tflops": draw(st.none() | anywhere(GPUEntry, "fp8_tflops"))}
    t = draw(st.sampled_from([1, heads]))
    p = draw(st.sampled_from([1, layers]))
    peak = draw(st.sampled_from([0, 1, 90_000_000]))
    data = {
        "name": "edges",
        "model": custom_model, "gpu": custom_gpu,
        "memory": {"gpus": t * p * draw(st.sampled_from([1, min(1000, 10**9 // (t * p))])), "tensor_parallel": t,
                   "pipeline_parallel": p,
                   "sequence_length": draw(anywhere(SECTION["memory"], "sequence_length", whole=True)),
                   "micro_batch": draw(anywhere(SECTION["memory"], "micro_batch", whole=True)),
                   "strategy": draw(st.sampled_from(["ddp", "zero3"])),
                   "activation_checkpointing": draw(st.booleans())},
        "serving": {"users": draw(anywhere(SECTION["serving"], "users", whole=True)),
                    "tensor_parallel": draw(st.sampled_from([1, 8])) if heads % 8 == kv_heads % 8 == 0 else 1,
                    "sequence_length": draw(anywhere(SECTION["serving"], "sequence_length", whole=True)),
                    "weight_precision": draw(st.sampled_from(["bf16", "fp8", "int4-g128"])),
                    "kv_precision": draw(st.sampled_from(["bf16", "fp8"])),
                    **{key: draw(anywhere(SECTION["serving"], key)) for key in (
                        "compute_efficiency", "bandwidth_efficiency", "memory_reserve", "overhead_ms")}},
        "hours": {"tokens": draw(anywhere(SECTION["hours"], "tokens", whole=True)),
                  "mfu": draw(anywhere(SECTION["hours"], "mfu")), "activation_recompute": draw(st.booleans()),
                  "gpus": draw(anywhere(SECTION["hours"], "gpus", whole=True)),
                  "productive_share": draw(anywhere(SECTION["hours"], "productive_share")),
                  "allocations": [{"gpus": draw(anywhere(ALLOCATION, "gpus", whole=True)),
                                   "mfu": draw(anywhere(ALLOCATION, "mfu"))}]},
        "crossover": {"tokens_per_day": draw(st.sampled_from([0, 1, 10**18, "popular-app", "edge"])),
                      "serving_mfu": draw(anywhere(SECTION["crossover"], "serving_mfu")),
                      "horizon_days": draw(anywhere(SECTION["crossover"], "horizon_days", whole=True))},
        "catalog": {"traffic_presets": {"edge": draw(st.sampled_from([0, 1, 10**18]))}},
        # a cluster of 11 × the peak holds the pool at any spare share up to 10 (1000 %)
        "cluster": {"inference_peak_gpus": peak, "gpus": draw(st.sampled_from([max(1, 11 * peak), 10**9])),
                    "spare": draw(anywhere(SECTION["cluster"], "spare")),
                    "restart_cost_gpu_hours": draw(anywhere(SECTION["cluster"], "restart_cost_gpu_hours")),
                    "profile": draw(st.sampled_from(["office-assistant", [0.0] * 24, [1.0] * 24]))},
    }
    return parse_scenario(data)


def finite(value) -> bool:
    if isinstance(value, dict):
        return all(finite(v) for v in value.values())
    if isinstance(value, list):
        return all(finite(v) for v in value)
    return not isinstance(value, float) or math.isfinite(value)


@pytest.mark.long
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenario=extreme_scenarios())
def test_every_output_stays_finite_over_the_whole_allowed_range(scenario):
    try:
        results = compute(scenario)
    except TooManyGPUs:  # 1e18 tokens a day on a replica of 1e-7 tokens a second: refused by name (exit 2)
        return
    assert finite(results.to_json())
    assert finite(json.loads(results_json(results)))
    build(results, io.BytesIO())
    assert "<svg" in render_html(results, generated="2026-01-01")


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
            assert f"{spec.name}>={low:g}" in check and f"{spec.name}<={high:g}" in check, check
    # and they are the pydantic declarations themselves, not copies
    assert bounds(SECTION["memory"], "gpus") == (1, 10**9)
    assert bounds(SECTION["hours"], "mfu") == (0.001, 1)
