"""Batch throughput: scenarios per second for a batch of 100 scenarios (each a workbook, an HTML summary and a JSON
file), with 1 and with 2 processes. Issue 14's target: ≥ 12 scenarios per second with 2.

    python benchmarks/batch.py [--runs 3] [--scenarios 100]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from timing import median_process


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scenarios", type=int, default=100)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        sweep = Path(work) / "sweep.yaml"  # 100 variants of the default scenario: GPUs × strategy × sequence
        gpus = ", ".join(str(8 * (k + 1)) for k in range(args.scenarios // 8 + 1))
        sweep.write_text(f"name: bench\nsweep:\n  memory.gpus: [{gpus}]\n  memory.strategy: [ddp, zero1, zero2, "
                         f"zero3]\n  memory.sequence_length: [4096, 8192]\n")
        count = (args.scenarios // 8 + 1) * 8
        for jobs in (1, 2):
            command = [sys.executable, "-m", "planner", "batch", str(sweep), "-o", str(Path(work) / f"out{jobs}"),
                       "-j", str(jobs), "-q", "--date", "2026-01-01"]
            wall, memory = median_process(command, args.runs)
            print(f"batch of {count} scenarios, {jobs} job{'s' if jobs > 1 else ''}: median {wall:5.1f} s, "
                  f"{count / wall:5.1f} scenarios/s, peak {memory:.0f} MB (the parent process)"
                  + ("  target ≥ 12/s: " + ("met" if count / wall >= 12 else "MISSED") if jobs == 2 else ""))


if __name__ == "__main__":
    main()
