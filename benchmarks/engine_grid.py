"""The engine sweeping a grid: the memory table (weights, gradients, optimizer state, activations, total, fits,
headroom) for a million configurations in one vectorised call, against the same engine function called once per
configuration for a sample of them. Issue 14's targets: ≥ 10 million configurations per second, ≥ 100 × the loop.

    python benchmarks/engine_grid.py [--runs 5]
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import median_seconds

from planner.engine.memory import training_memory_gb

PSI, LAYERS, HIDDEN, CAPACITY = 8_030_261_248.0, 32.0, 4096.0, 80.0  # Llama 3.1 8B on an H100


def grid(n: int) -> dict[str, np.ndarray]:
    """n random configurations: GPUs, tensor and pipeline parallel, ZeRO stage, sequence, micro-batch,
    checkpointing (numbers as floats, as the engine computes)."""
    rng = np.random.default_rng(0)
    t = rng.choice([1.0, 2.0, 4.0, 8.0], n)
    p = rng.choice([1.0, 2.0, 4.0], n)
    return {"gpus": t * p * rng.integers(1, 512, n), "tensor_parallel": t, "pipeline_parallel": p,
            "zero_stage": rng.integers(0, 4, n), "sequence_length": rng.choice([2048.0, 8192.0, 32768.0], n),
            "micro_batch": rng.integers(1, 8, n).astype(float), "checkpointing": rng.random(n) < 0.5}


def table(configurations: dict):
    return training_memory_gb(PSI, LAYERS, hidden=HIDDEN, capacity_gb=CAPACITY, **configurations)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    size, sample = 1_000_000, 10_000
    big = grid(size)
    rows = [{key: values[i].item() for key, values in grid(sample).items()} for i in range(sample)]
    vectorised = median_seconds(lambda: table(big), args.runs)
    looped = median_seconds(lambda: [table(row) for row in rows], args.runs) / sample
    rate = size / vectorised
    print(f"{size:,} configurations in one call: median {vectorised * 1e3:.0f} ms over {args.runs} runs, "
          f"{rate / 1e6:.1f} million per second  target ≥ 10 million: {'met' if rate >= 1e7 else 'MISSED'}")
    print(f"one call per configuration ({sample:,} timed): median {looped * 1e6:.1f} µs each, "
          f"{1 / looped:,.0f} per second")
    ratio = rate * looped
    print(f"ratio: {ratio:,.0f}× faster as one call  target ≥ 100×: {'met' if ratio >= 100 else 'MISSED'}")


if __name__ == "__main__":
    main()
