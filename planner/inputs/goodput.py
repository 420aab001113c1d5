"""The Goodput table's inputs (docs/method.md §5): the SLO, the attainment target, the servers compared by their
hourly figures, and benchmarks with their log files. The logs are the table's external data: read when the
scenario is loaded (relative to its file), read back from a workbook's Requests sheet, and written beside a
scenario that `planner import` makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, model_validator

from planner.scenario.declare import Count, GPUId, Money, Section, Share, choice, declared, whole
from planner.scenario.errors import ScenarioError, quoted, unknown, where


class SLO(Section):
    model_config = ConfigDict(title="Service-level objective")

    ttft_ms: Annotated[float, Field(ge=0.001, le=1e9)] = declared(2000, "SLO: time to first token", "ms",
                                                                   kind="ms")
    tpot_ms: Annotated[float, Field(ge=0.001, le=1e9)] = declared(100, "SLO: time per output token", "ms",
                                                                   kind="ms")


class Server(Section):
    model_config = ConfigDict(title="Server")

    name: Annotated[str, Field(min_length=1, max_length=64)] = declared(..., "Name", "", kind="text")
    cost_per_hour: Money = declared(..., "Cost", "per hour", kind="money")
    completed_per_hour: Annotated[float, Field(ge=0.001, le=1e12)] = declared(..., "Completed requests per hour",
                                                                              "requests", kind="number")
    acceptable_per_hour: Annotated[float, Field(ge=0, le=1e12)] = declared(..., "Acceptable requests per hour",
                                                                           "requests", kind="number")

    @model_validator(mode="after")
    def _acceptable_within_completed(self):
        if self.acceptable_per_hour > self.completed_per_hour:
            raise ValueError(f"acceptable_per_hour {self.acceptable_per_hour} exceeds completed_per_hour "
                             f"{self.completed_per_hour}")
        return self


MIN_RATE = 1e-6  # requests per second: one request in the longest run (planner.logs.MIN_RATE, without pandas)


class BenchmarkFile(Section):
    """A benchmark log file (or glob) with what its log may not say: the request rate (vLLM writes 'inf' for an
    unpaced run; llmperf runs at a concurrency) and, for llmperf, the run's duration."""

    path: Annotated[str, Field(min_length=1, max_length=4096)]
    rate: Annotated[float, Field(ge=MIN_RATE, le=1e9)] | None = None  # requests per second: planner.logs' bounds
    duration_s: Annotated[float, Field(ge=0.001, le=1e6)] | None = None  # planner.logs' bounds on a duration


class Benchmark(Section):
    model_config = ConfigDict(title="Benchmark")

    name: Annotated[str, Field(min_length=1, max_length=64)] = declared(..., "Name", "", kind="text")
    files: Annotated[list[choice(Annotated[str, Field(min_length=1, max_length=4096)], BenchmarkFile)],
                     Field(min_length=1, max_length=100)]  # read into the Requests sheet: one run per file
    gpu: GPUId | None = declared(None, "GPU", "", "The GPU the benchmark ran on (a Catalog id; left out: the "
                                 "scenario's GPU): its price costs the runs.", kind="text",
                                 choices="catalog_gpu_ids")
    gpus: Count = declared(1, "GPUs", "GPUs", "GPUs serving during the benchmark; per-GPU goodput divides by "
                           "them.", kind="count")
    standby_gpus: whole(0) = declared(0, "Standby GPUs", "GPUs", "Idle capacity held ready, paid for.",
                                      kind="count")


class Goodput(Section):
    model_config = ConfigDict(title="Goodput")

    slo: SLO = SLO()
    attainment_target: Share = declared(0.90, "Attainment target", "of requests", "DistServe goodput: the highest "
                                        "request rate at which this share meets the SLO.", kind="percent")
    servers: Annotated[list[Server], Field(min_length=1, max_length=20)] = declared(
        [Server(name="A", cost_per_hour=2.0, completed_per_hour=1000, acceptable_per_hour=800),
         Server(name="B", cost_per_hour=2.0, completed_per_hour=900, acceptable_per_hour=890)], "Server")
    benchmarks: Annotated[list[Benchmark], Field(max_length=20)] = declared([], "Benchmark")


SECTIONS = {"goodput": Goodput}


def canonical(scenario) -> list:
    """A benchmark without a GPU ran on the scenario's: fixed when first read, so it stays with the benchmark."""
    for bench in scenario.goodput.benchmarks:
        bench.gpu = bench.gpu or scenario.gpu
    return []


def cross_checks(scenario, catalog) -> list:
    """Every benchmark's GPU is in the merged Catalog."""
    return [(("goodput", "benchmarks", i, "gpu"), bench.gpu, unknown("GPU", bench.gpu, catalog.gpus))
            for i, bench in enumerate(scenario.goodput.benchmarks) if bench.gpu not in catalog.gpus]


class BenchmarkLogs:
    """The benchmark logs (planner.logs.Logs): Goodput's external data."""

    def wanted(self, scenario) -> bool:
        return bool(scenario.goodput.benchmarks)

    def load(self, scenario, folder: Path, lines: dict):
        """Read every benchmark's log files, relative to `folder`; each file entry then names one file with its
        rate (a glob's matches each become an entry, ordered by rate), so the scenario says exactly what was read.
        Raises ScenarioError naming the scenario file, the line, the entry, the log file and its field."""
        from planner import logs  # pandas is imported only by scenarios with benchmarks

        entries = [[logs.FileEntry(f, None, None) if isinstance(f, str) else logs.FileEntry(f.path, f.rate,
                                                                                          f.duration_s)
                    for f in bench.files] for bench in scenario.goodput.benchmarks]
        try:
            found, read = logs.read_benchmarks(entries, folder)
        except logs.LogError as exc:
            b, e = exc.entry
            at, key = where(("goodput", "benchmarks", b - 1, "files", e - 1), scenario.source_name, lines)
            raise ScenarioError([f"{at}: {key}: {exc}"]) from None
        for bench, files in zip(scenario.goodput.benchmarks, read):
            bench.files = [BenchmarkFile(**f) for f in files]
        return found

    def from_workbook(self, book, data: dict, source: str):
        """The Requests sheet's runs and requests as the logs they were read from, or None without one; each
        benchmark's file entries go into `data` ({path, rate}, and duration_s for llmperf, as the scenario had
        them after reading)."""
        if not book.has("runs_run"):
            return None
        import pandas as pd

        from planner import logs
        from planner.workbook.goodput import REQUEST_DATA, RUN_DATA

        def column(prefix: str, key: str, kinds: tuple[type, ...]) -> list:
            found = []
            for cell in book.column(f"{prefix}_{key}"):
                value = cell.value
                if not isinstance(value, kinds) or (bool not in kinds and isinstance(value, bool)):
                    raise ScenarioError([f"{source}: {cell.address}: {key}: {quoted(value)} is not the {key} the "
                                         f"benchmark log gave: the Requests sheet was edited"])
                found.append(value)
            return found

        numbers = (int, float)
        runs = {key: column("runs", key, (str,) if kind == "text" else numbers) for key, _, kind in RUN_DATA
                if key != "benchmark_name"}
        requests = {key: column("requests", key, (bool,) if kind == "bool" else numbers)
                    for key, _, kind in REQUEST_DATA}
        benchmarks = data.get("goodput", {}).get("benchmarks", [])
        found = [logs.Run(int(n), int(b), path, fmt, rate=float(rate), duration_s=float(duration))
                 for n, b, path, fmt, rate, duration
                 in zip(*(runs[key] for key in ("run", "benchmark", "file", "format", "rate", "duration_s")))]
        for i, run in enumerate(found, start=1):
            if run.number != i or not 1 <= run.benchmark <= len(benchmarks):
                raise ScenarioError([f"{source}: Requests: run {i} is numbered {run.number} for benchmark "
                                     f"{run.benchmark}: the Requests sheet was edited"])
            entry = {"path": run.path, "rate": run.rate} | ({"duration_s": run.duration_s} if run.format == "llmperf"
                                                            else {})
            benchmarks[run.benchmark - 1].setdefault("files", []).append(entry)
        frame = pd.DataFrame(requests).astype({"run": int, "failed": bool})
        frame["tpot_ms"] = logs.tpot_ms(frame["latency_s"], frame["ttft_ms"], frame["output_tokens"])
        return logs.Logs(found, frame[logs.COLUMNS])

    def files(self, found, folder: Path) -> list[Path]:
        """Every run's log file (a path as the scenario spells it, relative to `folder` unless absolute)."""
        return [folder / run.path for run in found.runs]

    def files_beside(self, scenario, found, stem: str, data: dict) -> dict[str, str]:
        """Each benchmark run's requests as a vLLM `--save-result --save-detailed` file named
        <stem>.run-<n>.json ({file name: JSON text}), the scenario data's file entries pointed at them. Read back,
        they give the same runs."""
        files, names = {}, {}
        requests = found.requests
        for run in found.runs:
            rows = requests[requests.run == run.number]
            names[run.number] = f"{stem}.run-{run.number}.json"
            files[names[run.number]] = json.dumps({
                "date": "written by planner import", "request_rate": run.rate, "duration": run.duration_s,
                "completed": int((~rows.failed).sum()), "input_lens": rows.input_tokens.astype(int).tolist(),
                "output_lens": rows.output_tokens.astype(int).tolist(),
                "ttfts": [_digits(ms / 1000) for ms in rows.ttft_ms],
                "latencies": [_digits(s) for s in rows.latency_s],
                "errors": ["failed" if failed else "" for failed in rows.failed]}) + "\n"
        for b, bench in enumerate(data["goodput"]["benchmarks"], start=1):
            bench["files"] = [{"path": names[run.number], "rate": run.rate} for run in found.runs
                              if run.benchmark == b]
        return files


def _digits(seconds: float) -> float:
    """Seconds to 15 significant digits, as a spreadsheet keeps them: ms / 1000 comes back as the logged value
    (0.108578, not 0.10857800000000001), so a latency equal to its first token stays equal."""
    return float(f"{seconds:.15g}")


EXTERNAL = BenchmarkLogs()
