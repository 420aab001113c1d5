"""The layout search (docs/method.md §10): (a) the worked Llama 3.1 405B search on H100s with Meta's layout as a
reference, target under 5 s; (b) a sweep of searches over models, GPUs, sequence lengths, global batches and GPU
budgets that evaluates at least 100 million candidate layouts, target at most 10 s.

A candidate is one valid (t, p, c, d, b, v, ZeRO, recompute) of a search's grid: each gets its memory per GPU and
its step time. The count is the searches' own `valid_layouts`, so padding and rejected grid points are not counted.

    python benchmarks/layout_search.py [--runs 5] [--sweep-runs 3]
"""

from __future__ import annotations

import argparse
import itertools
import sys

from timing import ROOT, median_seconds, median_wall_and_cpu

sys.path.insert(0, str(ROOT))  # this checkout's planner, also when another one is installed
from planner.engine.layouts import Problem, search  # noqa: E402

# §Catalog and §10's figures: memory GB, BF16 TFLOPS, HBM TB/s, NVLink and network GB/s, η, price per GPU-hour
GPUS = {
    "a100-80gb": dict(memory_gb=80, peak_tflops=312, hbm_tbps=2.039, nvlink_gbps=300, network_gbps=25,
                      gemm_efficiency=0.65, price_per_gpu_hour=1.50),
    "h100-sxm": dict(memory_gb=80, peak_tflops=989, hbm_tbps=3.35, nvlink_gbps=450, network_gbps=50,
                     gemm_efficiency=0.47, price_per_gpu_hour=2.00),
    "h200": dict(memory_gb=141, peak_tflops=989, hbm_tbps=4.8, nvlink_gbps=450, network_gbps=50,
                 gemm_efficiency=0.47, price_per_gpu_hour=2.50),
    "b200": dict(memory_gb=180, peak_tflops=2250, hbm_tbps=8.0, nvlink_gbps=900, network_gbps=100,
                 gemm_efficiency=0.45, price_per_gpu_hour=4.50),
    "mi300x": dict(memory_gb=192, peak_tflops=1307, hbm_tbps=5.3, nvlink_gbps=400, network_gbps=50,
                   gemm_efficiency=0.30, price_per_gpu_hour=2.00),
}
MODELS = {  # Llama 3.1: layers, hidden, heads, KV heads, head dim, FFN, vocabulary
    "llama-3.1-8b": dict(layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, ffn=14_336, vocab=128_256),
    "llama-3.1-70b": dict(layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, ffn=28_672, vocab=128_256),
    "llama-3.1-405b": dict(layers=126, hidden=16384, heads=128, kv_heads=8, head_dim=128, ffn=53_248,
                           vocab=128_256),
}
WORKED = Problem(**MODELS["llama-3.1-405b"], **GPUS["h100-sxm"], sequence_length=8192, global_batch=2048,
                 tokens=15.6e12, gpus_max=16384, deadline_days=120, balanced_stages=True, grad_reduce_bytes=4)
META = dict(gpus=16384, tensor_parallel=8, pipeline_parallel=16, context_parallel=1, micro_batch=1, interleave=8,
            zero=2, recompute="none")
SWEEP = [Problem(**MODELS[model], **GPUS[gpu], sequence_length=s, global_batch=batch, gpus_max=budget,
                 deadline_days=120)
         for model, gpu, s, batch, budget in itertools.product(MODELS, GPUS, (8192, 32768, 131072),
                                                               (4096, 8192, 16384, 32768), (131072, 262144))]


def sweep() -> int:
    """Every search of the sweep; the candidates they evaluated."""
    return sum(search(problem).valid_layouts for problem in SWEEP)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--sweep-runs", type=int, default=3)
    args = parser.parse_args()

    result = search(WORKED, references=[META])
    worked = median_seconds(lambda: search(WORKED, references=[META]), args.runs)
    print(f"worked 405B search: {result.valid_layouts:,} candidates, median {worked:.3f} s over {args.runs} runs, "
          f"{result.valid_layouts / worked / 1e6:.1f} million per second  target < 5 s: "
          f"{'met' if worked < 5 else 'MISSED'}")

    candidates = sweep()
    seconds, cpu = median_wall_and_cpu(sweep, args.sweep_runs)
    rate = candidates / seconds
    print(f"sweep of {len(SWEEP)} searches: {candidates:,} candidates, median {seconds:.2f} s over "
          f"{args.sweep_runs} runs ({cpu:.2f} s of CPU), {rate / 1e6:.1f} million per second  target ≥ 100 "
          f"million in ≤ 10 s: {'met' if candidates >= 1e8 and seconds <= 10 else 'MISSED'}")


if __name__ == "__main__":
    main()
