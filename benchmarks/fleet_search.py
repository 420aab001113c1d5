"""The fleet search (docs/method.md §11): (a) the default candidate set, the five shipped GPUs × (4 aggregated + 16
disaggregated) tensor-parallel shapes of Llama 3.1 8B at 10 requests per second, target well under 1 s; (b) the
largest list a scenario may give, 12 GPUs (the five shipped and seven of one's own) × 4 precision pairs × 20
shapes = 960 configurations; (c) the whole `planner run` of that largest scenario, Fleet sheet and all; (d) mixed GPU
pools (§11, "Mixed GPU pools"): the five shipped GPUs with `fleet.mixed_gpus`, 100 + 320 = 420 configurations, target
under 2 s (issue 45, item 5).

Each figure is the median of several runs; the search is the engine's, from the configurations' replicas to the
ordered candidates and the Pareto front.

    python benchmarks/fleet_search.py [--runs 5] [--run-runs 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import yaml
from timing import ROOT, median_process, median_wall_and_cpu

sys.path.insert(0, str(ROOT))  # this checkout's planner, also when another one is installed
from planner.engine import fleet  # noqa: E402
from planner.scenario import parse_scenario  # noqa: E402

FIVE = ["a100-80gb", "h100-sxm", "h200", "b200", "mi300x"]
OWN = {f"gpu-{i}": {"memory_gb": 80 + 16 * i, "peak_tflops": 900 + 150 * i, "hbm_tbps": 3 + 0.5 * i,
                    "price_per_hour": 2 + 0.25 * i, "fp8_tflops": 1800 + 300 * i, "nvlink_gbps": 450,
                    "network_gbps": 50} for i in range(1, 8)}  # seven GPUs of one's own, spread around the shipped
PAIRS = [{"weight": "bf16", "kv": "bf16"}, {"weight": "fp8", "kv": "fp8"}, {"weight": "int8", "kv": "fp8"},
         {"weight": "int4-g128", "kv": "fp8"}]


def scenario_data(largest: bool, mixed: bool = False) -> dict:
    data = {"name": "fleet benchmark" + (" - largest" if largest else ""), "model": "llama-3.1-8b",
            "serving": {"sequence_length": 8192, "prompt_tokens": 2048},
            "fleet": {"peak_rate": 10, "mixed_gpus": mixed}}
    if mixed:  # the five shipped GPUs, one pair: the 420
        data["fleet"]["gpus"] = FIVE
    if largest:
        data["catalog"] = {"gpus": OWN}
        data["fleet"] |= {"gpus": FIVE + list(OWN), "precisions": PAIRS}
    return data


def searched(scenario) -> int:
    """The engine's fleet table for the scenario, from a cold start (as a `planner run` makes it); its
    configurations."""
    fleet.erlang_c.cache_clear()
    return fleet.compute(scenario, {}).scalars["configurations"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--run-runs", type=int, default=3)
    args = parser.parse_args()
    for largest, mixed, target in ((False, False, 1.0), (True, False, None), (False, True, 2.0)):
        scenario = parse_scenario(scenario_data(largest, mixed))
        configurations = searched(scenario)
        seconds, cpu = median_wall_and_cpu(lambda: searched(scenario), args.runs)
        verdict = "" if target is None else f"  target < {target:g} s: {'met' if seconds < target else 'MISSED'}"
        print(f"{'largest list' if largest else 'mixed pools' if mixed else 'default set'}: {configurations:,} "
              "configurations, median "
              f"{seconds:.3f} s over {args.runs} runs ({cpu:.3f} s of CPU), "
              f"{seconds / configurations * 1000:.2f} ms each{verdict}")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "largest.yaml"
        path.write_text(yaml.safe_dump(scenario_data(True)), encoding="utf-8")
        wall, peak = median_process([sys.executable, "-m", "planner", "run", str(path), "-o", folder],
                                    args.run_runs)
        print(f"planner run of the largest list (workbook, HTML, JSON): median {wall:.2f} s over {args.run_runs} "
              f"runs, peak {peak:.0f} MB")


if __name__ == "__main__":
    main()
