"""`planner verify` of the default workbook in this tree and in another (an older commit's worktree), taking turns:
wall seconds, CPU with the spreadsheet application's (the waited-for processes), and the planner's own CPU (its
process alone), medians of several runs (issue 42: verify at most half of 40b85c9's time).

    git worktree add /tmp/old 40b85c9
    python benchmarks/verify_pair.py /tmp/old [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import ROOT

# run in the child: the planner's command line, its own CPU written to a file as it exits (os._exit included)
OWN_CPU = """
import os, resource, sys
def said():
    u = resource.getrusage(resource.RUSAGE_SELF)
    with open(os.environ["OWN_CPU_FILE"], "w") as file:
        file.write(str(u.ru_utime + u.ru_stime))
exit_now = os._exit
os._exit = lambda code: (said(), exit_now(code))
import atexit
atexit.register(said)
sys.argv = ["planner", *sys.argv[1:]]
from planner import cli
cli.main()
"""


def env_for(tree: Path) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPATH": str(tree)}


def verify(tree: Path, workbook: Path, own: Path) -> tuple[float, float, float]:
    """(wall, CPU with its children, its own CPU) of one `planner verify` run from `tree`."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", OWN_CPU, "verify", str(workbook)], cwd=tree,
                             env={**env_for(tree), "OWN_CPU_FILE": str(own)}, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    if status != 0:
        raise SystemExit(f"planner verify from {tree} failed (status {status})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, float(own.read_text())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("other", type=Path, help="the other tree (a worktree of an older commit)")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    trees = {"other": args.other.resolve(), "this": ROOT}
    with tempfile.TemporaryDirectory() as work:
        books = {}
        for name, tree in trees.items():  # each tree verifies the workbook it wrote
            out = Path(work) / name
            subprocess.run([sys.executable, "-m", "planner", "run", str(tree / "examples" / "default.yaml"), "-o",
                            str(out)], cwd=tree, env=env_for(tree), check=True, stdout=subprocess.DEVNULL)
            books[name] = out / "default.xlsx"
        own = Path(work) / "own-cpu"
        samples = {name: [] for name in trees}
        for _ in range(args.runs):
            for name, tree in trees.items():
                samples[name].append(verify(tree, books[name], own))
    for name, rows in samples.items():
        wall, cpu, mine = (statistics.median(row[i] for row in rows) for i in range(3))
        print(f"{name} ({trees[name]}): wall {wall:.2f} s, CPU with the application's {cpu:.2f} s, the planner's own "
              f"CPU {mine:.2f} s (medians of {len(rows)})")
    ratios = [statistics.median(row[i] for row in samples["this"]) / statistics.median(row[i] for row in
                                                                                        samples["other"])
              for i in range(3)]
    print(f"this ÷ other: wall {ratios[0]:.2f}, CPU {ratios[1]:.2f}, own CPU {ratios[2]:.2f} (target ≤ 0.5)")


if __name__ == "__main__":
    main()
