"""Goodput and cost per acceptable request (docs/method.md §5): the simple comparison of servers from their
hourly figures, and, from benchmark logs, each run's attainment, rates, tail latencies and cost, and each
benchmark's goodput (DistServe: the highest request rate whose attainment meets the target, interpolated).

A result that is undefined is text, never an error: a server with no acceptable request has no cost per acceptable
request; a benchmark where no run (or the highest-rate run) meets the target has no interpolated goodput.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from planner.engine import money
from planner.engine.shared import advance
from planner.engine.values import plain, prefixed
from planner.method import Method

TABULATING = "benchmark runs' attainment"  # long work with a glob of thousands of runs (a progress bar)
NONE_ACCEPTABLE = "none acceptable"
NONE_COMPLETED = "none completed"
NO_SERVER = "no server has acceptable requests"
NO_OTHER_SERVER = "no other server has acceptable requests"
NO_RUN_MEETS = "no run meets the target"
HIGHEST_MEETS = "the highest rate tested meets the target"
PERCENTILES = (50, 90, 99)  # the columns p50, p90 and p99 (linear interpolation: PERCENTILE.INC, numpy's default)
SPREADSHEET_EPSILON = 2.0 ** -48  # LibreOffice Calc compares numbers this close (relatively) as equal


def at_most(value, limit):
    """value ≤ limit as a spreadsheet decides it: numbers within 2⁻⁴⁸ of each other (relatively) count as equal
    (LibreOffice's rtl::math::approxEqual), so a TTFT computed a hair above its SLO agrees in engine and sheet."""
    value, limit = np.asarray(value, dtype=float), np.asarray(limit, dtype=float)
    close = np.abs(value - limit) < np.minimum(np.abs(value), np.abs(limit)) * SPREADSHEET_EPSILON
    return (value <= limit) | close


# The simple comparison -----------------------------------------------------------------------------
def servers_table(servers, scenario) -> tuple[list[dict], dict]:
    """Each server's cost per hour in the reporting currency (typed in USD), cost per request, per acceptable request
    (text without acceptable requests) and acceptable share; then the cheapest per acceptable request (the first of
    equals), the next cheapest cost and how much less the cheapest costs."""
    rows = []
    for s in servers:
        cost = money.converted(s.cost_per_hour, scenario)
        rows.append({"name": s.name, "cost_per_hour": cost, "completed_per_hour": s.completed_per_hour,
                     "acceptable_per_hour": s.acceptable_per_hour, "cost_per_request": cost / s.completed_per_hour,
                     "cost_per_acceptable_request": cost / s.acceptable_per_hour if s.acceptable_per_hour > 0
                     else NONE_ACCEPTABLE, "acceptable_share": s.acceptable_per_hour / s.completed_per_hour})
    per_acceptable = [row["cost_per_acceptable_request"] for row in rows]
    numbers = sorted((v, i) for i, v in enumerate(per_acceptable) if not isinstance(v, str))
    if not numbers:
        return rows, {"cheapest_server": NO_SERVER, "cheapest_cost_per_acceptable_request": NO_SERVER,
                      "next_cost_per_acceptable_request": NO_SERVER, "cheapest_saving_share": NO_SERVER}
    cheapest, index = numbers[0]
    summary = {"cheapest_server": servers[index].name, "cheapest_cost_per_acceptable_request": cheapest,
               "next_cost_per_acceptable_request": NO_OTHER_SERVER, "cheapest_saving_share": NO_OTHER_SERVER}
    if len(numbers) > 1:
        runner_up = numbers[1][0]  # both free of charge: no saving
        summary |= {"next_cost_per_acceptable_request": runner_up,
                    "cheapest_saving_share": 1 - cheapest / runner_up if runner_up > 0 else 0.0}
    return rows, summary


# From benchmark logs ------------------------------------------------------------------------------------------
def acceptable(requests, slo_ttft_ms: float, slo_tpot_ms: float):
    """Not failed, TTFT ≤ its SLO and TPOT ≤ its SLO."""
    return ~requests["failed"].to_numpy() & at_most(requests["ttft_ms"], slo_ttft_ms) & at_most(
        requests["tpot_ms"], slo_tpot_ms)


def percentiles(values) -> list:
    """p50, p90, p99 by linear interpolation (Excel's PERCENTILE.INC); text when there are none."""
    if not len(values):
        return [NONE_COMPLETED] * len(PERCENTILES)
    return list(np.percentile(values, PERCENTILES))


def distserve_goodput(rates, attainments, target: float):
    """The highest request rate whose attainment ≥ target, interpolated linearly between that run and the next
    (DistServe, OSDI 2024); runs in ascending rate. Returns (1-based position of that run or 0, goodput); the
    goodput is text when no run meets the target or the highest-rate run does (it lies beyond what was tested)."""
    meets = at_most(target, attainments)
    if not meets.any():
        return 0, NO_RUN_MEETS
    k = int(np.flatnonzero(meets)[-1])
    if k == len(rates) - 1:
        return k + 1, HIGHEST_MEETS
    a, b = attainments[k], attainments[k + 1]
    return k + 1, rates[k] + (a - target) / (a - b) * (rates[k + 1] - rates[k])


def runs_table(scenario, logs, *, slo_ttft_ms: float, slo_tpot_ms: float, target: float):
    """Per run: counts, attainment, rates, p50/p90/p99 TTFT and TPOT over completed requests, cost; per benchmark:
    its goodput and goodput per GPU; and the requests with TPOT, acceptable and the completed-only columns."""
    requests = logs.requests.copy()
    requests["acceptable"] = acceptable(requests, slo_ttft_ms, slo_tpot_ms)
    for key in ("ttft_ms", "tpot_ms"):  # the sheet's percentile columns: "" for a failed request
        requests[f"completed_{key}"] = requests[key].astype(object).where(~requests["failed"], "")
    numbers = requests["run"].to_numpy()  # grouped by run, in order: each run is one block of rows
    starts = np.searchsorted(numbers, [r.number for r in logs.runs], side="left")
    ends = np.searchsorted(numbers, [r.number for r in logs.runs], side="right")
    benches = scenario.goodput.benchmarks
    runs = []
    for run, first, end in zip(logs.runs, starts, ends):
        advance(TABULATING, 1, total=len(logs.runs), unit="run")
        rows = requests.iloc[first:end]
        bench = benches[run.benchmark - 1]
        done = rows[~rows["failed"]]
        good = rows[rows["acceptable"]]
        price = money.converted(scenario.merged_catalog.gpus[bench.gpu].price_per_hour, scenario)
        cost = (bench.gpus + bench.standby_gpus) * price * run.duration_s / 3600
        tokens = float(good["output_tokens"].sum())
        row = {"run": run.number, "benchmark": run.benchmark, "name": bench.name, "path": run.path,
               "format": run.format, "rate": run.rate, "duration_s": run.duration_s,
               "first_request": int(first) + 1, "last_request": int(first) + len(rows),
               "sent": len(rows), "completed": len(done), "acceptable": len(good),
               "attainment": len(good) / len(rows), "attainment_target": target,
               "request_rate": len(done) / run.duration_s, "goodput_rate": len(good) / run.duration_s}
        for key in ("ttft", "tpot"):
            for p, value in zip(PERCENTILES, percentiles(done[f"{key}_ms"].to_numpy())):
                row[f"{key}_p{p}_ms"] = value
        row |= {"slo_ttft_ms": slo_ttft_ms, "slo_tpot_ms": slo_tpot_ms,
                "meets_target": bool(at_most(target, row["attainment"])),
                "gpus": bench.gpus, "standby_gpus": bench.standby_gpus, "price_per_gpu_hour": price, "cost": cost,
                "cost_per_acceptable_request": cost / len(good) if len(good) else NONE_ACCEPTABLE,
                "acceptable_output_tokens": tokens,
                "cost_per_million_acceptable_output_tokens": cost / tokens * 1e6 if tokens else NONE_ACCEPTABLE,
                "vllm_request_goodput": run.vllm_request_goodput}
        runs.append(row)
    benchmarks = []
    for b, bench in enumerate(benches, start=1):
        own = [r for r in runs if r["benchmark"] == b]
        k, goodput = distserve_goodput([r["rate"] for r in own], np.array([r["attainment"] for r in own]), target)
        first = own[0]["run"]
        highest = first + k - 1 if k else 0
        for r in own:
            r["highest_meeting"] = r["run"] == highest
        price = money.converted(scenario.merged_catalog.gpus[bench.gpu].price_per_hour, scenario)
        benchmarks.append({"benchmark": b, "name": bench.name, "gpu": bench.gpu, "gpus": bench.gpus,
                           "standby_gpus": bench.standby_gpus, "price_per_gpu_hour": price, "first_run": first,
                           "runs": len(own), "last_run": first + len(own) - 1, "highest_meeting_run": highest,
                           "goodput": goodput,
                           "goodput_per_gpu": goodput if isinstance(goodput, str) else goodput / bench.gpus})
    return runs, benchmarks, requests


@dataclass
class GoodputTable:
    """docs/method.md §5 for one scenario. `requests` (a DataFrame, or None without benchmarks) is the Requests
    sheet's cached values; the JSON holds the per-run and per-benchmark results, not every request."""

    scalars: dict
    servers: list[dict]
    runs: list[dict]
    benchmarks: list[dict]
    requests: object = None

    @property
    def headline(self) -> dict:
        return prefixed("goodput", self.scalars, ("cheapest_server", "cheapest_cost_per_acceptable_request",
                                                  "next_cost_per_acceptable_request", "cheapest_saving_share"))

    @property
    def checks(self) -> dict[str, bool]:
        return {"goodput_servers_acceptable_within_completed": all(
            s["acceptable_per_hour"] <= s["completed_per_hour"] for s in self.servers)}

    def to_json(self) -> dict:
        return {**self.scalars, "servers": self.servers, "runs": self.runs, "benchmarks": self.benchmarks}


def _plain_rows(rows: list[dict]) -> list[dict]:
    return [{k: plain(v) for k, v in row.items()} for row in rows]


def compute(scenario, tables) -> GoodputTable:
    g = scenario.goodput
    servers, summary = servers_table(g.servers, scenario)
    scalars = {"slo_ttft_ms": g.slo.ttft_ms, "slo_tpot_ms": g.slo.tpot_ms, "attainment_target": g.attainment_target,
               **summary}
    logs = scenario.external("goodput")
    runs, benchmarks, requests = ([], [], None) if logs is None else runs_table(
        scenario, logs, slo_ttft_ms=g.slo.ttft_ms, slo_tpot_ms=g.slo.tpot_ms, target=g.attainment_target)
    return GoodputTable({k: plain(v) for k, v in scalars.items()}, _plain_rows(servers), _plain_rows(runs),
                        _plain_rows(benchmarks), requests)


# No CONSTANTS (the registry's default, none): docs/method.md §5 fixes no constant, its thresholds are the SLO
# and target inputs
METHOD = Method(
    title="Goodput and cost per acceptable request",
    formulas=[
        "Servers (hourly figures; the cost per hour typed in USD, × the FX rate): cost per request = cost per hour "
        "/ completed requests per hour; cost per acceptable request = cost per hour / acceptable requests per hour; "
        "acceptable share = acceptable / completed. The cheapest per acceptable request may have the lower raw "
        "throughput.",
        "From benchmark logs, per request: failed when its error text is non-empty; TTFT in ms; TPOT = (latency − "
        "TTFT) / (output tokens − 1) when more than one token came out, else 0 (vLLM's definition); acceptable = "
        "not failed, TTFT ≤ the TTFT SLO and TPOT ≤ the TPOT SLO.",
        "Per run: attainment = acceptable / sent; request rate = completed / duration; goodput rate = acceptable / "
        "duration; p50, p90 and p99 of TTFT and TPOT over completed requests (linear interpolation, Excel's "
        "PERCENTILE = PERCENTILE.INC); run cost = (GPUs + standby GPUs) × the benchmark GPU's price per GPU-hour × "
        "the FX rate × duration / 3600; cost per acceptable request = run cost / acceptable requests; cost per "
        "million acceptable output tokens = run cost / their output tokens × 1e6.",
        "Across a benchmark's runs in ascending request rate (DistServe): goodput = the highest request rate whose "
        "attainment ≥ the target, interpolated linearly between that run and the next one, which misses it: "
        "r_k + (a_k − target) / (a_k − a_k+1) × (r_k+1 − r_k). Per-GPU goodput = goodput / GPUs (standby GPUs "
        "serve nothing). When no run meets the target, or the highest rate tested still does, the goodput lies "
        "outside the runs and is stated in words.",
    ],
    sources=[
        "docs/method.md §5 (examples/goodput-1-two-servers.yaml): two servers at 2 per hour; 1,000 completed with "
        "800 acceptable costs 0.0025 per acceptable "
        "request, 900 with 890 acceptable about 0.00225.",
        "Zhong et al. 2024, DistServe (USENIX OSDI '24): goodput as the maximum request rate meeting the SLO "
        "attainment target.",
        "vLLM benchmarks (benchmark_serving.py, vllm bench serve) --save-result --save-detailed: TPOT and the "
        "goodput SLO check; llmperf (ray-project) individual responses.",
        "MLPerf Inference, Llama 3.1 8B server scenario: TTFT ≤ 2 s and TPOT ≤ 100 ms (the SLO defaults).",
    ],
    caveats=[
        "A benchmark measures one workload (prompt and output lengths, arrival pattern) on one configuration; "
        "another workload moves the goodput.",
        "Attainment counts failed requests as missed: they were sent and not served.",
        "Include idle and standby capacity in the bill: a service held ready for peaks pays for it.",
    ],
)
