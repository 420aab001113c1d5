"""The largest benchmark logs the planner accepts, read: time and peak memory (issue 34). Each log is read by
planner.logs in a process of its own, several times; the medians of the wall time and of the peak resident memory
(ru_maxrss, the imports of numpy and pandas included) are printed.

- a vLLM `--save-detailed` file of 20,000 requests with 3,000 inter-token gaps each (60 million gaps, about 420 MB;
  the size cap is 512 MB), read as a stream (planner/logs.py, STREAM_BYTES);
- the same at 2,000 requests (about 42 MB), and at 180 requests (about 3.8 MB, below STREAM_BYTES: json.load);
- an llmperf individual_responses file of 50,000 requests (the most a workbook holds), each with a key of its own;
- a benchmark whose glob names 10,000 one-request vLLM files (read_benchmarks, as a scenario reads them).

    python benchmarks/logs.py [--runs 3] [--keep FOLDER]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from timing import ROOT

READ = """
import json, resource, sys, time
from pathlib import Path
from planner import logs
path, kind = Path(sys.argv[1]), sys.argv[2]
start = time.monotonic()
if kind == "glob":
    found, _ = logs.read_benchmarks([[logs.FileEntry("runs/*.json")]], path)
    count = len(found.requests)
else:
    count = len(logs.read_log(path, path.name, rate=2, duration_s=600).requests)
print(json.dumps({"seconds": time.monotonic() - start, "requests": count,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def vllm_log(path: Path, requests: int, gaps: int) -> None:
    """A vLLM result written piece by piece (the file is larger than is comfortable to build in memory)."""
    rng = random.Random(requests * 7919 + gaps)
    with open(path, "w") as file:
        file.write(f'{{"backend": "vllm", "request_rate": 4.0, "duration": {requests / 4:.1f}, '
                   f'"completed": {requests}, ')
        file.write('"input_lens": [' + ",".join(str(100 + i % 50) for i in range(requests)) + "], ")
        file.write('"output_lens": [' + ",".join(str(gaps + 1) for _ in range(requests)) + "], ")
        file.write('"ttfts": [' + ",".join(f"{0.1 + i % 7 / 100:.3f}" for i in range(requests)) + "], ")
        file.write('"itls": [')
        for i in range(requests):
            file.write(("," if i else "") + "[" + ",".join(f"{0.01 + rng.random() / 100:.4f}" for _ in range(gaps))
                       + "]")
        file.write('], "generated_texts": [' + ",".join(json.dumps("a generated text " * 4)
                                                        for _ in range(requests)) + "], ")
        file.write('"errors": [' + ",".join('""' for _ in range(requests)) + "]}")


def llmperf_log(path: Path, requests: int) -> None:
    path.write_text(json.dumps([{"ttft_s": 0.1, "end_to_end_latency_s": 1.1, "number_input_tokens": 100,
                                 "number_output_tokens": 11, "error_code": None, "error_msg": "",
                                 f"own_key_{i}": i} for i in range(requests)]))


def glob_of_files(folder: Path, files: int) -> None:
    (folder / "runs").mkdir(parents=True)
    for i in range(files):
        (folder / "runs" / f"rate-{i + 1}.json").write_text(json.dumps({
            "request_rate": i + 1, "duration": 10.0, "completed": 1, "input_lens": [10], "output_lens": [5],
            "ttfts": [0.1], "latencies": [0.14], "errors": [""]}))


def measure(path: Path, kind: str, runs: int) -> dict:
    found = []
    for _ in range(runs):
        done = subprocess.run([sys.executable, "-c", READ, str(path), kind], capture_output=True, text=True,
                              cwd=ROOT, check=True)
        found.append(json.loads(done.stdout))
    return {"seconds": statistics.median(f["seconds"] for f in found),
            "peak_mb": statistics.median(f["peak_mb"] for f in found), "requests": found[0]["requests"],
            "runs": runs}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", type=Path, default=None, help="write the logs here and keep them")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        folder = args.keep or Path(work)
        folder.mkdir(parents=True, exist_ok=True)
        cases = [("vLLM, 20,000 requests × 3,000 gaps", folder / "vllm-60m.json", "log",
                  lambda p: vllm_log(p, 20_000, 3_000)),
                 ("vLLM, 2,000 requests × 3,000 gaps", folder / "vllm-6m.json", "log",
                  lambda p: vllm_log(p, 2_000, 3_000)),
                 ("vLLM, 180 requests × 3,000 gaps", folder / "vllm-540k.json", "log",
                  lambda p: vllm_log(p, 180, 3_000)),
                 ("llmperf, 50,000 requests, a key each", folder / "llmperf-50k.json", "log",
                  lambda p: llmperf_log(p, 50_000)),
                 ("a glob of 10,000 one-request files", folder / "glob", "glob",
                  lambda p: glob_of_files(p, 10_000))]
        for label, path, kind, make in cases:
            if not path.exists():
                make(path)
            size = path.stat().st_size if path.is_file() else sum(f.stat().st_size for f in path.rglob("*.json"))
            found = measure(path, kind, args.runs)
            print(f"{label:40s} {size / 1e6:8.1f} MB  {found['requests']:7,} requests  "
                  f"{found['seconds']:6.2f} s  peak {found['peak_mb']:6.0f} MB  (median of {found['runs']})",
                  flush=True)


if __name__ == "__main__":
    main()
