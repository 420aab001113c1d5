"""Batch throughput and memory (issue 46): scenarios per second for a sweep of N variants of the default scenario
(each a workbook, an HTML summary and a JSON file) with `-j 1`, `-j 2` and `--scheduler local:2` (Dask, `pip install
'planner[dask]'`), medians of several runs; then the batch process's peak memory over a sweep of M variants, with
each workbook stood in by a line (tests/helpers.small_workbook: the engine, HTML, JSON, spool, index and summary
as in a real batch), beside the same at N variants, to show whether memory grows with the batch.

    python benchmarks/batch.py [--runs 3] [--scenarios 200] [--memory 2000] [--modes j1,j2,local2]

Projected time for K variants on W workers: K / (the measured rate per worker), the workers' rate being the -j 1
rate (a worker writes one scenario at a time; a cluster of W workers with as many cores writes W at once). On a
shared machine the wall-clock rate follows the load; the CPU seconds per scenario say what a scenario costs a core.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import statistics

from timing import ROOT, median_process, process_usage

MODES = {"j1": ["-j", "1"], "j2": ["-j", "2"], "local2": ["--scheduler", "local:2"]}
STAND_IN = ("import sys\nfrom planner import output\nfrom tests.helpers import small_workbook\n"
            "output.build = small_workbook\nfrom planner.cli import main\nsys.exit(main(sys.argv[1:]))\n")


def sweep_file(folder: Path, variants: int) -> tuple[Path, int]:
    """A sweep of at least `variants` variants of the default scenario: GPUs × strategy × sequence length."""
    sizes = -(-variants // 8)
    gpus = ", ".join(str(8 * (k + 1)) for k in range(sizes))
    path = folder / f"sweep-{variants}.yaml"
    path.write_text(f"name: bench\nsweep:\n  memory.gpus: [{gpus}]\n  memory.strategy: [ddp, zero1, zero2, zero3]\n"
                    f"  memory.sequence_length: [4096, 8192]\n")
    return path, sizes * 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--memory", type=int, default=2000, help="variants of the memory measurement (0: none)")
    parser.add_argument("--modes", default="j1,j2,local2")
    args = parser.parse_args()
    rates, costs = {}, {}
    with tempfile.TemporaryDirectory() as work:
        sweep, count = sweep_file(Path(work), args.scenarios)
        for mode in args.modes.split(","):
            command = [sys.executable, "-m", "planner", "batch", str(sweep), "-o", str(Path(work) / mode), "-q",
                       "--date", "2026-01-01", *MODES[mode]]
            runs = [process_usage(command, ROOT) for _ in range(args.runs)]
            wall, cpu, memory = (statistics.median(run[i] for run in runs) for i in range(3))
            rates[mode], costs[mode] = count / wall, cpu / count
            print(f"batch of {count} scenarios, {' '.join(MODES[mode])}: median {wall:6.1f} s, "
                  f"{count / wall:5.2f} scenarios/s, {cpu / count:.2f} CPU-s per scenario (the batch and the "
                  f"processes it waited for), peak {memory:.0f} MB (the batch process)", flush=True)
        if "j1" in rates:
            for variants in (10_000, 100_000):
                for workers in (1, 2, 8, 32):
                    hours = variants / (rates["j1"] * workers) / 3600
                    idle = variants * costs["j1"] / workers / 3600
                    print(f"projected: {variants:,} variants on {workers} worker(s): {hours:6.1f} h at the measured "
                          f"rate, {idle:6.1f} h at a core each ({costs['j1']:.2f} CPU-s per scenario)")
        if args.memory:
            for variants in (args.scenarios, args.memory):
                sweep, count = sweep_file(Path(work), variants)
                command = [sys.executable, "-c", STAND_IN, "batch", str(sweep), "-o",
                           str(Path(work) / f"memory-{variants}"), "-q", "-j", "2", "--date", "2026-01-01"]
                wall, memory = median_process(command, 1, cwd=ROOT)
                print(f"memory: {count:,} variants (workbooks stood in by a line), -j 2: peak {memory:.0f} MB of the "
                      f"batch process, {wall:.0f} s", flush=True)


if __name__ == "__main__":
    main()
