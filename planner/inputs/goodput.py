"""The Goodput table's inputs (docs/method.md §5): the SLO, the attainment target, the servers compared by their
hourly figures, and benchmarks with their log files. The logs are the table's external data: read when the
scenario is loaded (relative to its file), read back from a workbook's Requests sheet, and written beside a
scenario that `planner import` makes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

from pydantic import ConfigDict, Field, model_validator

from planner.scenario.declare import Count, GPUId, Money, Rounds, Section, Share, choice, declared, whole
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
    cost_per_hour: Money = declared(..., "Cost", "USD per hour", kind="usd")
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
    rounds: Rounds | None = declared(None, "Rounds per client R", "requests per client", "The benchmark's "
                                     "requests per client (num_prompts / c; left out: serving.client_rounds): "
                                     "its runs' mean TTFT at c clients (§14.4).", kind="decimal",
                                     blank=True)


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
        them after reading). A cell outside what a log may hold (planner.logs' bounds) is a ScenarioError naming
        it: the sheet is locked, so it was edited."""
        if not book.has("runs_run"):
            return None
        import pandas as pd

        from planner import logs

        benchmarks = data.get("goodput", {}).get("benchmarks", [])
        runs = _checked(book, source, "runs", _run_rules(len(benchmarks)))
        requests = _checked(book, source, "requests", _request_rules(len(runs["run"])))
        found = [logs.Run(int(n), int(b), path, fmt, rate=float(rate), duration_s=float(duration))
                 for n, b, path, fmt, rate, duration
                 in zip(*(runs[key] for key in ("run", "benchmark", "file", "format", "rate", "duration_s")))]
        present = set(requests["run"])
        for i, run in enumerate(found, start=1):
            if run.number != i:
                raise ScenarioError([f"{source}: Requests: run {i} is numbered {run.number}: the Requests sheet was "
                                     f"edited"])
            if run.number not in present:
                raise ScenarioError([f"{source}: Requests: run {i} has no requests on the sheet: the Requests sheet "
                                     f"was edited"])
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


def _run_rules(benchmarks: int) -> dict:
    """What each column of the Requests sheet's runs may hold, as a log gives it: (is it allowed, in words)."""
    from planner import logs

    return {"run": _whole(1, 1e9), "benchmark": _whole(1, benchmarks), "file": (_text, "the log file's path"),
            "format": (lambda v: v in ("vllm", "llmperf"), "vllm or llmperf"),
            "rate": _number(logs.MIN_RATE, logs.MAX_RATE, "requests per second"),
            "duration_s": _number(logs.MIN_DURATION_S, logs.MAX_SECONDS, "seconds")}


def _request_rules(runs: int) -> dict:
    """What each column of the Requests sheet's requests may hold, as a log gives it."""
    from planner import logs

    return {"run": _whole(1, runs), "input_tokens": _whole(0, logs.MAX_TOKENS),
            "output_tokens": _whole(0, logs.MAX_TOKENS),
            "ttft_ms": _number(0, logs.MAX_SECONDS * 1000, "ms"), "latency_s": _number(0, logs.MAX_SECONDS, "seconds"),
            "failed": (lambda v: isinstance(v, bool), "TRUE or FALSE")}


def _text(value) -> bool:
    return isinstance(value, str) and value != ""


def _whole(low: float, high: float) -> tuple:
    return (lambda v: _number_within(v, low, high) and float(v).is_integer(),
            f"a whole number from {low:,.0f} to {high:,.0f}")


def _number(low: float, high: float, unit: str) -> tuple:
    def shown(x: float) -> str:
        return f"{x:,.0f}" if x >= 1 and float(x).is_integer() else f"{x:g}"

    return (lambda v: _number_within(v, low, high), f"a number of {unit} from {shown(low)} to {shown(high)}")


def _number_within(value, low: float, high: float) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and low <= value <= high


def _checked(book, source: str, prefix: str, rules: dict) -> dict[str, list]:
    """Each column of the Requests sheet's table `prefix`, every cell within its rule; a request's latency not
    before its first token unless it failed (as planner.logs reads a log)."""
    found: dict[str, list] = {}
    cells: dict[str, list] = {}
    for key, (allowed, words) in rules.items():
        cells[key] = book.column(f"{prefix}_{key}")
        for cell in cells[key]:
            if not allowed(cell.value):
                shown = "blank" if cell.value is None else quoted(cell.value)
                raise ScenarioError([f"{source}: {cell.address}: {key}: {shown} is not what a benchmark "
                                     f"log gives ({words}): the Requests sheet was edited"])
        found[key] = [cell.value for cell in cells[key]]
    if prefix == "requests":
        for cell, ttft, failed in zip(cells["latency_s"], found["ttft_ms"], found["failed"]):
            if not failed and float(f"{cell.value * 1000:.15g}") < ttft:  # to 15 digits, as a spreadsheet
                raise ScenarioError([f"{source}: {cell.address}: latency_s: {cell.value!r} s ends before the first "
                                     f"token ({ttft!r} ms): not a request's latency; the Requests sheet was edited"])
    return found


def _digits(seconds: float) -> float:
    """Seconds to 15 significant digits, as a spreadsheet keeps them: ms / 1000 comes back as the logged value
    (0.108578, not 0.10857800000000001), so a latency equal to its first token stays equal."""
    return float(f"{seconds:.15g}")


EXTERNAL = BenchmarkLogs()
