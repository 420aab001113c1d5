"""Write the benchmark logs that examples/goodput-2-benchmark-logs.yaml reads, in the real formats, so nothing is
downloaded: `python examples/make_goodput_logs.py` rewrites examples/goodput-logs/ byte for byte the same.

The numbers are a toy queue, not a measurement: requests arrive as a Poisson process at the run's rate; the time to
first token is the prefill plus a queueing wait that grows as the rate nears the server's capacity; each output
token takes a decode step that slows with load; a few requests fail, more near capacity. That is enough to make
attainment fall with the request rate, as real runs do, so the goodput interpolation has something to find.

- h100-vllm-rate-*.json: `vllm bench serve --save-result --save-detailed` (with "failed" and "latencies").
- h200-vllm-older-*.json: the older benchmarks/benchmark_serving.py: no "failed" or "latencies" (the latency is
  TTFT + the sum of the inter-token latencies), and the key spelled "request_goodput:".
- h100-llmperf-c8_individual_responses.json: llmperf's token_benchmark_ray.py individual responses.
- h100-roofline-b*.json: vLLM runs made by the planner's own roofline (8B BF16 on one H100, prompts of 1,000 and
  outputs of 250 tokens) at η_c 0.4, η_m 0.8 and τ 3 ms with the engines table's generic overheads (τ_0, τ_L, τ_seq,
  δ), each request's TTFT the median at c closed-loop clients (docs/method.md §14.4) and its ITL at B̄ = c, jittered
  by up to ±1 %, at concurrencies 2, 16, 48 and 96 (the run's duration set so that Little's law gives them): logs a
  calibration should recover those efficiencies from (examples/serving-6-calibrated-fit.yaml).
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

FOLDER = Path(__file__).resolve().parent / "goodput-logs"
REQUESTS_PER_RUN = 80
SLO_TTFT_S, SLO_TPOT_S = 2.0, 0.100  # what the older files' own "request_goodput:" was measured against


def simulate(seed: int, rate: float, capacity: float, requests: int = REQUESTS_PER_RUN) -> list[dict]:
    """One run: per request its start, input and output tokens, TTFT, gaps between tokens and error."""
    rng = random.Random(seed)
    load = min(rate / capacity, 0.97)
    wait = 0.4 * load / (1 - load)  # mean queueing wait, seconds
    start, found = 0.0, []
    for _ in range(requests):
        start += rng.expovariate(rate)
        prompt = rng.randint(128, 1536)
        output = 1 if rng.random() < 0.03 else rng.randint(2, 160)
        if rng.random() < 0.005 + 0.08 * max(0.0, load - 0.75):
            found.append({"start": start, "input": prompt, "output": 0, "ttft": 0.0, "itl": [],
                          "error": rng.choice(["Request timed out", "Server disconnected"])})
            continue
        ttft = 0.04 + prompt / 25_000 + rng.expovariate(1 / wait)
        step = 0.028 * (1 + 0.9 * load) * math.exp(rng.gauss(0, 0.25))
        gaps = [round(step * math.exp(rng.gauss(0, 0.1)), 6) for _ in range(output - 1)]
        found.append({"start": start, "input": prompt, "output": output, "ttft": round(ttft, 6), "itl": gaps,
                      "error": ""})
    return found


def percentile(values: list[float], p: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = (len(ordered) - 1) * p / 100
    low = math.floor(index)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (index - low)


def vllm(requests: list[dict], rate: float, model: str, older: bool) -> dict:
    """A vLLM result file with --save-detailed: setup, traffic, the per-request arrays and the summary."""
    latencies = [r["ttft"] + sum(r["itl"]) for r in requests]
    duration = round(max(r["start"] + lat for r, lat in zip(requests, latencies)), 6)
    ok = [i for i, r in enumerate(requests) if not r["error"]]
    ttfts = [requests[i]["ttft"] for i in ok]
    tpots = [(latencies[i] - requests[i]["ttft"]) / (requests[i]["output"] - 1) for i in ok
             if requests[i]["output"] > 1]
    every_tpot = [(latencies[i] - requests[i]["ttft"]) / (requests[i]["output"] - 1)
                  if requests[i]["output"] > 1 else 0.0 for i in ok]
    good = sum(1 for i, t in zip(ok, every_tpot) if requests[i]["ttft"] <= SLO_TTFT_S and t <= SLO_TPOT_S)
    total_input = sum(requests[i]["input"] for i in ok)
    total_output = sum(r["output"] for r in requests)
    result = {"date": "20250301-120000", "backend": "vllm", "model_id": model, "tokenizer_id": model,
              "num_prompts": len(requests), "request_rate": rate, "burstiness": 1.0, "max_concurrency": None,
              "duration": duration, "completed": len(ok)}
    if not older:
        result["failed"] = len(requests) - len(ok)
    result |= {"total_input_tokens": total_input, "total_output_tokens": total_output,
               "request_throughput": len(ok) / duration,
               ("request_goodput:" if older else "request_goodput"): good / duration,
               "output_throughput": total_output / duration,
               "total_token_throughput": (total_input + total_output) / duration,
               "input_lens": [r["input"] for r in requests], "output_lens": [r["output"] for r in requests],
               "ttfts": [r["ttft"] for r in requests], "itls": [r["itl"] for r in requests]}
    if not older:
        result["latencies"] = [round(lat, 6) if not r["error"] else 0.0 for r, lat in zip(requests, latencies)]
        result["start_times"] = [round(r["start"], 6) for r in requests]
    result |= {"generated_texts": [f"({r['output']} tokens)" if not r["error"] else "" for r in requests],
               "errors": [r["error"] for r in requests]}
    for key, values in (("ttft", ttfts), ("tpot", tpots)):
        result[f"mean_{key}_ms"] = sum(values) / len(values) * 1000 if values else 0.0
        result[f"median_{key}_ms"] = percentile(values, 50) * 1000
        result[f"p99_{key}_ms"] = percentile(values, 99) * 1000
    return result


ROOFLINE = {"compute_efficiency": 0.4, "bandwidth_efficiency": 0.8, "overhead_ms": 3.0}  # what the fit should find


def roofline_run(seed: int, concurrency: float, requests: int = 20, prompt: int = 1000, output: int = 250) -> dict:
    """A vLLM result file whose requests take the roofline's median TTFT at `concurrency` closed-loop clients and its
    ITL there (8B BF16, one H100, the efficiencies of ROOFLINE and the generic engines row's overheads), each
    jittered by up to ±1 %; duration = Σ latencies / concurrency."""
    from types import SimpleNamespace

    from planner import shipped
    from planner.model import engines
    from planner.model.replica import Replica

    bf16 = shipped.PRECISIONS["bf16"]
    generic = engines.applying(shipped.ENGINES, "generic", "h100-sxm", "bf16")
    overheads = {key: generic.value(key) for key in ("overhead_fixed_ms", "overhead_per_layer_ms",
                                                     "overhead_per_sequence_ms", "overhead_per_moe_layer_ms",
                                                     "dispatch_ms_per_layer", "prefill_token_budget")}
    serving = SimpleNamespace(sequence_length=prompt + output, prompt_tokens=prompt, tensor_parallel=1, **ROOFLINE,
                              **overheads)
    replica = Replica.of(model=shipped.MODELS["llama-3.1-8b"], gpu=shipped.GPUS["h100-sxm"], weight=bf16, kv=bf16,
                         serving=serving, price_per_gpu_hour=2.0)
    ttft = float(replica.ttft_at(concurrency)["ttft_median_at_concurrency_ms"]) / 1000
    itl = float(replica.cycle_s(concurrency)) / output
    rng = random.Random(seed)
    found = []
    for i in range(requests):
        first = round(ttft * (1 + rng.uniform(-0.01, 0.01)), 6)
        gap = itl * (1 + rng.uniform(-0.01, 0.01))
        found.append({"start": 0.0, "input": prompt, "output": output, "ttft": first,
                      "itl": [round(gap, 6)] * (output - 1), "error": ""})
    result = vllm(found, "inf", "meta-llama/Llama-3.1-8B-Instruct", older=False)
    result["duration"] = round(sum(result["latencies"]) / concurrency, 6)
    result["request_rate"] = round(requests / result["duration"], 6)
    return result


def llmperf(requests: list[dict]) -> list[dict]:
    """llmperf's individual responses: one object per request, seconds, errors as a code and a message."""
    found = []
    for r in requests:
        latency = r["ttft"] + sum(r["itl"])
        failed = bool(r["error"])
        found.append({"error_code": 408 if failed else None, "error_msg": r["error"],
                      "inter_token_latency_s": 0 if failed or not r["output"] else latency / r["output"],
                      "ttft_s": r["ttft"], "end_to_end_latency_s": round(latency, 6),
                      "request_output_throughput_token_per_s": 0 if failed else r["output"] / latency,
                      "number_total_tokens": r["input"] + r["output"], "number_output_tokens": r["output"],
                      "number_input_tokens": r["input"]})
    return found


def main(folder: Path = FOLDER) -> None:
    folder.mkdir(exist_ok=True)

    def write(name: str, data) -> None:
        (folder / name).write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")

    for seed, rate in enumerate((1, 2, 3, 4, 6), start=1):
        write(f"h100-vllm-rate-{rate}.json", vllm(simulate(seed, rate, capacity=5.0), rate,
                                                  "meta-llama/Llama-3.1-8B-Instruct", older=False))
    for seed, rate in enumerate((2, 4, 6, 8), start=11):
        write(f"h200-vllm-older-rate-{rate}.json", vllm(simulate(seed, rate, capacity=9.0), rate,
                                                        "meta-llama/Llama-3.1-8B-Instruct", older=True))
    write("h100-llmperf-c8_individual_responses.json", llmperf(simulate(21, 3, capacity=5.0)))
    for seed, concurrency in enumerate((2, 16, 48, 96), start=31):
        write(f"h100-roofline-b{concurrency}.json", roofline_run(seed, concurrency))


if __name__ == "__main__":
    main()
