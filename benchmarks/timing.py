"""The timing rules of the benchmarks: medians of several runs (the machines are shared and noisy), and a whole
process timed with its peak memory."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = [sys.executable, "-c", "import numpy, xlsxwriter, jinja2, yaml"]  # the floor issue 14 measures against


def median_seconds(fn, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def median_wall_and_cpu(fn, runs: int) -> tuple[float, float]:
    """Medians of (wall seconds, this process's CPU seconds) over several runs: on a shared machine the CPU time
    says what the code costs when other jobs take turns on the cores."""
    walls, cpus = [], []
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus)


def process(command: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """(wall seconds, peak resident MB) of one run of a command, whose output is discarded."""
    wall, _, memory = process_usage(command, cwd)
    return wall, memory


def process_usage(command: list[str], cwd: Path | None = None) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds (user + system, the processes it waited for included), peak resident MB of the
    process itself) of one run of a command, whose output is discarded."""
    start = time.perf_counter()
    child = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        raise SystemExit(f"{' '.join(command)} failed (status {status})")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def median_process(command: list[str], runs: int, cwd: Path | None = None) -> tuple[float, float]:
    """Medians of (wall seconds, peak MB) over several runs, alternating nothing: call it side by side with the
    baseline so both see the same machine."""
    samples = [process(command, cwd) for _ in range(runs)]
    return statistics.median(s[0] for s in samples), statistics.median(s[1] for s in samples)


def interleaved(commands: dict[str, list[str]], runs: int, cwd: Path | None = None) -> dict[str, tuple[float, float]]:
    """Each command run `runs` times, taking turns, so a noisy moment hits them alike; medians of (s, MB)."""
    samples: dict[str, list] = {name: [] for name in commands}
    for _ in range(runs):
        for name, command in commands.items():
            samples[name].append(process(command, cwd))
    return {name: (statistics.median(s[0] for s in got), statistics.median(s[1] for s in got))
            for name, got in samples.items()}
