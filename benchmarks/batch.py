"""Batch throughput and memory (issue 46): scenarios per second for a sweep of N variants of the default scenario
(each a workbook, an HTML summary and a JSON file) with `-j 1`, `-j 2` and `--scheduler local:2` (Dask, `pip install
'planner[dask]'`), medians of several runs; then the batch process's peak memory over a sweep of M variants, with
each workbook stood in by a line (tests/helpers.small_workbook: the engine, HTML, JSON, spool, index and summary
as in a real batch), beside the same at N variants, to show whether memory grows with the batch.

    python benchmarks/batch.py [--runs 3] [--scenarios 200] [--memory 2000] [--modes j1,j2,local2]
    python benchmarks/batch.py --expand 2000,10000 [--checkout DIR]

--expand measures what the batch process holds of the variants alone, nothing written: its peak memory over a sweep
of each size read (each variant checked), its jobs listed and their output paths checked, and every variant made
in turn as the batch makes it when its task is submitted; --checkout runs another checkout's planner the same way
(one whose batch held every parsed variant, to compare).

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


EXPAND = ("import sys\nfrom pathlib import Path\nfrom planner import batch\n"
          "path, out = Path(sys.argv[1]), Path(sys.argv[2])\n"
          "jobs, failed = batch.jobs_of([path], limit=batch.MAX_WITH_YES)\n"
          "batch.output_paths_checked(jobs, [path], out)\n"
          "for job in jobs:\n    made = job.made().held if hasattr(job, 'made') else job.scenario\n"
          "Path(sys.argv[3]).write_text(f'{len(jobs)} {len(failed)}')\n")  # each made and let go (a checkout
# without Job.made held them all)


def expansion(work: Path, sizes: str, checkout: Path) -> None:
    """Peak memory and time of reading, listing and making every variant of sweeps of each size (nothing written)."""
    for variants in (int(size) for size in sizes.split(",")):
        sweep, count = sweep_file(work, variants, micro_batches=2)
        said = work / "said.txt"
        command = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(checkout)!r})\n" + EXPAND,
                   str(sweep), str(work / "none"), str(said)]
        wall, cpu, memory = process_usage(command, checkout)
        assert said.read_text() == f"{count} 0", said.read_text()  # every variant listed, none failed
        said.unlink()
        print(f"expansion only ({checkout.name}): {count:,} variants read, listed and made one by one: peak "
              f"{memory:.0f} MB, {wall:.0f} s, {cpu:.1f} CPU-s", flush=True)


def sweep_file(folder: Path, variants: int, micro_batches: int = 1) -> tuple[Path, int]:
    """A sweep of at least `variants` variants of the default scenario: GPUs × strategy × sequence length (× micro
    batch 1, 2 … with micro_batches > 1: a key takes at most 1,000 values)."""
    per = 8 * micro_batches
    sizes = -(-variants // per)
    gpus = ", ".join(str(8 * (k + 1)) for k in range(sizes))
    micro = ", ".join(str(m + 1) for m in range(micro_batches))
    micro = f"  memory.micro_batch: [{micro}]\n" if micro_batches > 1 else ""
    path = folder / f"sweep-{variants}.yaml"
    path.write_text(f"name: bench\nsweep:\n  memory.gpus: [{gpus}]\n  memory.strategy: [ddp, zero1, zero2, zero3]\n"
                    f"  memory.sequence_length: [4096, 8192]\n{micro}")
    return path, sizes * per


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--memory", type=int, default=2000, help="variants of the memory measurement (0: none)")
    parser.add_argument("--modes", default="j1,j2,local2")
    parser.add_argument("--expand", default="", help="sweep sizes of the expansion-only measurement (2000,10000)")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the planner checkout --expand runs")
    args = parser.parse_args()
    if args.expand:
        with tempfile.TemporaryDirectory() as work:
            expansion(Path(work), args.expand, args.checkout.resolve())
        return
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
