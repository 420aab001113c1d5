"""The `fleet:` section: its defaults (the spare share, the precision pair, the GPUs searched, the peak rate, from
the Crossover's tokens per day when that is given) and bad input, which exits 2 naming the file, the line, the key
and what is allowed, writing nothing."""

from __future__ import annotations

import pytest

from planner.scenario import parse_scenario

from tests.helpers import refused


def fleet_of(data: dict):
    return parse_scenario({"name": "x", **data})


def test_defaults_follow_the_other_sections():
    scenario = fleet_of({"cluster": {"spare": 0.2}, "serving": {"weight_precision": "fp8", "kv_precision": "fp8"},
                         "fleet": {}})
    fleet = scenario.fleet
    assert fleet.peak_rate == 10 and fleet.quality == 1 and fleet.retries and fleet.profile == "none"
    assert fleet.spare == 0.2 and [(p.weight, p.kv) for p in fleet.precisions] == [("fp8", "fp8")]
    assert fleet.gpus == ["a100-80gb", "h100-sxm", "h200", "b200", "mi300x", "gb200", "b300", "mi325x",
                          "mi355x"]  # every Catalog GPU with a price
    assert fleet.tensor_parallel == [1, 2, 4, 8] and fleet.modes == ["aggregated", "disaggregated"]
    assert fleet_of({}).fleet is None  # no fleet: section, no Fleet table


def test_a_gpu_of_ones_own_with_a_price_is_searched_by_default():
    scenario = fleet_of({"catalog": {"gpus": {"my-gpu": {"memory_gb": 96, "peak_tflops": 900, "hbm_tbps": 4,
                                                         "price_per_hour": 3}}}, "fleet": {}})
    assert scenario.fleet.gpus[-1] == "my-gpu"


@pytest.mark.parametrize("crossover, profile, rate", [
    ({"tokens_per_day": 5_308_416_000}, "none", 10.0),  # 86,400 s · 6,144 tokens · 10 requests per second
    ({"tokens_per_day": 2_326_855_680}, "office-assistant", 10.0),  # 3,600 · 6,144 · 10 · 10.52 peak hours
    ({"tokens_per_day": "product"}, "none", 1e10 / (86400 * 6144))])
def test_the_peak_rate_from_tokens_per_day(crossover, profile, rate):
    scenario = fleet_of({"crossover": crossover, "fleet": {"profile": profile}})
    assert scenario.fleet.peak_rate == pytest.approx(rate, rel=1e-12)


def test_a_workbook_read_back_states_the_demand_twice_and_agrees():
    """The derived rate beside the tokens per day it came from, as Inputs holds them, reads back; the default
    preset beside a rate (an imported workbook writes every input) too."""
    derived = fleet_of({"crossover": {"tokens_per_day": "product"}, "fleet": {}}).fleet.peak_rate
    fleet_of({"crossover": {"tokens_per_day": "product"}, "fleet": {"peak_rate": derived}})
    fleet_of({"crossover": {"tokens_per_day": "popular-app"}, "fleet": {"peak_rate": 3}})


BAD = [
    ("fleet:\n  gpus: [h100-sxn]\n", ["scenario.yaml:3:", "fleet.gpus.1", "unknown GPU 'h100-sxn'",
                                      "did you mean 'h100-sxm'"]),
    ("fleet:\n  gpus: []\n", ["scenario.yaml:3:", "fleet.gpus", "an empty list"]),
    ("fleet:\n  precisions: []\n", ["scenario.yaml:3:", "fleet.precisions", "an empty list"]),
    ("fleet:\n  modes: []\n", ["scenario.yaml:3:", "fleet.modes", "at least 1 item"]),
    ("fleet:\n  gpus: [h200, h200]\n", ["fleet.gpus.2", "'h200' is listed twice"]),
    ("fleet:\n  tensor_parallel: [1, 3]\n", ["fleet.tensor_parallel.2", "value 3", "allowed: 1, 2, 4, 8"]),
    ("fleet:\n  modes: [aggregated, split]\n", ["fleet.modes.2", "'aggregated' or 'disaggregated'"]),
    ("fleet:\n  precisions: [{weight: fp9, kv: fp8}]\n", ["fleet.precisions.1.weight", "unknown precision 'fp9'",
                                                          "did you mean 'fp8'"]),
    ("catalog: {gpus: {h200: {price_per_hour: 0}}}\nfleet:\n  gpus: [h200]\n",
     ["scenario.yaml:4:", "fleet.gpus.1", "h200 has no price"]),
    ("fleet:\n  peak_rate: 0\n", ["scenario.yaml:3:", "fleet.peak_rate", "value 0",
                                   "greater than or equal to 0.000001"]),
    ("fleet:\n  peak_rate: 2000000\n", ["fleet.peak_rate", "less than or equal to 1000000"]),
    ("fleet:\n  peak_rate: 900000\n  quality: 0.5\n", ["fleet.quality", "serves λ_u/q = 1.8e+06"]),
    ("goodput:\n  attainment_target: 1\nfleet: {}\n",
     ["scenario.yaml:3:", "goodput.attainment_target", "below 1", "(the other: ", "scenario.yaml:4: fleet)"]),
    ("catalog: {profiles: {flat: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]}}\n"
     "fleet:\n  profile: flat\n", ["scenario.yaml:4:", "fleet.profile", "no hour above 0"]),
    ("fleet:\n  profile: office\n", ["fleet.profile", "unknown demand profile 'office'", "or none or cluster"]),
    ("crossover:\n  tokens_per_day: product\nfleet:\n  peak_rate: 10\n",
     ["scenario.yaml:5:", "fleet.peak_rate", "the demand is given twice", "(the other: ",
      "scenario.yaml:3: crossover.tokens_per_day)"]),
    ("cluster: {spare: 2}\nfleet: {}\n", ["fleet.spare", "follows cluster.spare, 2", "give fleet.spare"]),
    ("fleet:\n  spare: 1.5\n", ["fleet.spare", "less than or equal to 1"]),
    ("fleet:\n  kv_transfer_gbps: 0\n", ["fleet.kv_transfer_gbps", "greater than or equal to 0.001"]),
]


@pytest.mark.parametrize("text, expected", BAD, ids=[t.splitlines()[-1][:40] for t, _ in BAD])
def test_bad_fleet_input_exits_2_naming_the_key_and_line(tmp_path, text, expected):
    output, _ = refused(tmp_path, "name: x\n" + text)
    for fragment in expected:
        assert fragment in output, output
