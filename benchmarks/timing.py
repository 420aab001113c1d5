"""The one timing rule of the benchmarks: the median of several runs (the machines are shared and noisy)."""

from __future__ import annotations

import statistics
import time


def median_seconds(fn, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)
