"""How fast the memory engine sweeps a grid: a million configurations in one numpy call, against the same
functions called once per configuration. Prints medians of several runs and their ratio.

    python benchmarks/engine_grid.py [--runs 5]
"""

from __future__ import annotations

import argparse

import numpy as np

from timing import median_seconds

from planner.engine import memory as m

PSI, LAYERS, HIDDEN = 8_030_261_248, 32, 4096


def grid(n: int):
    rng = np.random.default_rng(0)
    t = rng.choice([1, 2, 4, 8], n)
    p = rng.choice([1, 2, 4], n)
    gpus = t * p * rng.integers(1, 512, n)
    return {"t": t, "p": p, "gpus": gpus, "stage": rng.integers(0, 4, n), "s": rng.choice([2048, 8192, 32768], n),
            "b": rng.integers(1, 8, n), "ckpt": rng.random(n) < 0.5}


def total_gb(g):
    d = m.data_parallel_degree(g["gpus"], g["t"], g["p"])
    state = (m.weights_gb(PSI, g["t"], g["p"], d, g["stage"]) + m.gradients_gb(PSI, g["t"], g["p"], d, g["stage"])
             + m.optimizer_gb(PSI, g["t"], g["p"], d, g["stage"]))
    return state + m.activations_gb(LAYERS, HIDDEN, g["s"], g["b"], g["t"], g["ckpt"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    big, small = grid(1_000_000), grid(10_000)
    vectorised = median_seconds(lambda: total_gb(big), args.runs)
    rows = [{k: v[i] for k, v in small.items()} for i in range(10_000)]
    scalar = median_seconds(lambda: [total_gb(row) for row in rows], args.runs) * 100  # scaled to a million
    print(f"1,000,000 configurations, one call: median {vectorised * 1e3:.0f} ms over {args.runs} runs")
    print(f"the same one call per configuration (10,000 timed, ×100): median {scalar:.1f} s")
    print(f"ratio: {scalar / vectorised:.0f}× faster as one call")


if __name__ == "__main__":
    main()
