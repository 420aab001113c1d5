"""Benchmark log readers (docs/method.md §5): vLLM's `--save-result --save-detailed` JSON and llmperf's
individual_responses JSON → one pandas DataFrame of requests, one row per request:

    run  ttft_ms  tpot_ms  latency_s  input_tokens  output_tokens  failed

TPOT follows vLLM's definition: (latency − TTFT) / (output tokens − 1), 0 for one output token or none. A request
failed when its error text is non-empty (llmperf: or it has an error code).

A file that cannot be read raises LogError with one line naming the file and the field ("ttfts[17]: expected a
number of seconds, found 'abc'"), never a traceback. Nothing here knows the scenario: `read_benchmarks` takes the
benchmarks' file entries and the folder relative paths start from.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from planner import globs
from planner.engine.shared import advance
from planner.scenario.errors import cut, quoted

# Requests per workbook, all runs together. A request is one row of the Requests sheet: 6 values and 4 formulas.
# A sheet holds 1,048,576 rows: the limit is the time and memory `planner run` and `planner verify` take, which grow
# with the requests (benchmarks/README.md has what 50,000 cost), not Excel.
MAX_REQUESTS = 50_000
READING = "reading benchmark logs"  # the long work a glob of thousands of files is (a progress bar on a terminal)
MAX_FILE_BYTES = 512 * 1024 * 1024  # a vLLM file keeps the generated texts: large, but not this large
# Bounds that keep every result finite: a request's times and a run's duration in seconds, token counts, rates.
MAX_SECONDS = 1e6  # 11.6 days
MIN_DURATION_S = 0.001
MAX_TOKENS = 1e9
MAX_RATE = 1e9  # requests per second, as the scenario's `rate` allows
MIN_RATE = 1 / MAX_SECONDS  # one request in the longest run: a rate such as 5e-324 would break every axis and sum
COLUMNS = ["run", "ttft_ms", "tpot_ms", "latency_s", "input_tokens", "output_tokens", "failed"]
SAVE_DETAILED = "re-run vLLM's benchmark with --save-result --save-detailed"


class LogError(ValueError):
    """A log file that cannot be used: `path` as the scenario spells it, `field` the JSON field, `problem` what is
    wrong and what would be right."""

    def __init__(self, path: str, field: str, problem: str):
        self.path, self.field, self.problem = path, field, problem
        self.entry: tuple[int, int] | None = None  # (benchmark, file entry), 1-based, once read_benchmarks knows
        super().__init__(f"{cut(path)}: {field}: {problem}" if field else f"{cut(path)}: {problem}")


@dataclass(frozen=True)
class Run:
    """One benchmark run: a log file at one request rate."""

    number: int  # 1-based across the scenario: the Requests sheet's run column
    benchmark: int  # 1-based position of its benchmark in the scenario
    path: str  # as the scenario spells it (a glob's match keeps the pattern's relative or absolute form)
    format: str  # "vllm" or "llmperf"
    rate: float  # request rate offered, requests per second
    duration_s: float
    vllm_request_goodput: float | None = None  # vLLM's own goodput under its --goodput SLO, where the file has one


@dataclass
class Logs:
    """Every run of every benchmark, in order (benchmark, then rate), and their requests, grouped by run."""

    runs: list[Run]
    requests: pd.DataFrame  # COLUMNS; rows of run 1, then run 2, …


@dataclass
class LogFile:
    """One log file read: its format, the run's rate and duration, and its requests (without the run column)."""

    format: str
    rate: float
    duration_s: float
    vllm_request_goodput: float | None
    requests: pd.DataFrame


# Reading one file ---------------------------------------------------------------------------------------------
def read_log(path: Path, shown: str, rate: float | None = None, duration_s: float | None = None) -> LogFile:
    """One log file; `rate` and `duration_s`, when given beside the file, take precedence over the log's own."""
    data = _load_json(path, shown)
    if isinstance(data, list):
        frame = _llmperf(data, shown)
        if rate is None or duration_s is None:
            missing = " and ".join(k for k, v in (("rate", rate), ("duration_s", duration_s)) if v is None)
            raise LogError(shown, "", f"an llmperf individual_responses file has no request rate or run duration: "
                                      f"give {missing} beside the file ({{path: …, rate: 2, duration_s: 600}})")
        return LogFile("llmperf", rate, duration_s, None, frame)
    if not isinstance(data, dict):
        raise LogError(shown, "", f"expected a vLLM result (a JSON object) or llmperf individual responses (a JSON "
                                  f"list), found {_json_type(data)}")
    if "results_num_completed_requests" in data or "results_ttft_s_mean" in data:
        raise LogError(shown, "", "this is llmperf's summary: give its individual_responses file")
    frame = _vllm(data, shown)
    duration = duration_s if duration_s is not None else _duration(data, "duration", shown)
    if rate is None:
        rate = _finite(data.get("request_rate"))
        if rate is None:
            raise LogError(shown, "request_rate", f"{quoted(data.get('request_rate'))} is not a request rate to "
                                                  f"interpolate between (vLLM writes 'inf' for an unpaced run): "
                                                  f"give rate beside the file ({{path: …, rate: 4}})")
        if not MIN_RATE <= rate <= MAX_RATE:
            raise LogError(shown, "request_rate", f"expected a request rate from {MIN_RATE:g} to {MAX_RATE:g} "
                                                  f"requests per second, found {_shown(rate)}: give rate beside the "
                                                  f"file ({{path: …, rate: 4}})")
    goodput_key = "request_goodput" if "request_goodput" in data else "request_goodput:"  # older files: a colon
    goodput = data.get(goodput_key)
    if goodput is not None and _finite(goodput) is None:
        raise LogError(shown, goodput_key, f"expected a number or null, found {_shown(goodput)}")
    return LogFile("vllm", float(rate), float(duration), None if goodput is None else float(goodput), frame)


def _load_json(path: Path, shown: str) -> Any:
    try:
        size = path.stat().st_size
        if not path.is_file():
            raise LogError(shown, "", "not a regular file")
        if size > MAX_FILE_BYTES:
            raise LogError(shown, "", f"{size:,} bytes; a log file may have at most {MAX_FILE_BYTES:,}")
        if size > STREAM_BYTES:
            return _stream(path, shown, size)
        with open(path, encoding="utf-8") as file:
            return json.load(file, parse_constant=_not_finite)
    except LogError:
        raise
    except FileNotFoundError:
        raise LogError(shown, "", "no such file") from None
    except UnicodeDecodeError as exc:
        raise LogError(shown, "", f"not UTF-8 text (byte {exc.start}): not a JSON log") from None
    except json.JSONDecodeError as exc:
        cut = " (the file ends early: cut short?)" if exc.pos >= size - 1 else ""
        raise LogError(shown, "", f"not valid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}{cut}") \
            from None
    except ValueError as exc:  # NaN or Infinity, which Python's reader would otherwise accept
        raise LogError(shown, "", f"not valid JSON: {exc}") from None
    except (OSError, RecursionError) as exc:
        raise LogError(shown, "", f"cannot be read: {getattr(exc, 'strerror', None) or exc}") from None


# A large log, read as a stream ----------------------------------------------------------------------------------
# json.load holds the whole file as text and every value in it as a Python object: 60 million inter-token gaps (a
# 300 MB vLLM file) took 2.7 GB. Above STREAM_BYTES a log is read event by event (ijson): a vLLM file keeps only the
# fields the method reads, its gaps summed request by request as they come; an llmperf file keeps each request's
# fields the method reads. What it holds then is the requests' arrays (at most MAX_REQUESTS each), not the file.
STREAM_BYTES = 4 * 1024 * 1024  # json.load of a file of empty objects ({},{},…) holds 21 times its size
VLLM_FIELDS = ("duration", "request_rate", "completed", "request_goodput", "request_goodput:", "input_lens",
               "output_lens", "ttfts", "latencies", "errors", "results_num_completed_requests", "results_ttft_s_mean")


@dataclass(frozen=True)
class Summed:
    """One request's inter-token gaps as a stream read them: their sum, and the first that is not a number of
    seconds from 0 to MAX_SECONDS ((its position, what it was)), if any."""

    total: float
    bad: tuple[int, Any] | None = None


def _stream(path: Path, shown: str, size: int) -> Any:
    import ijson

    try:
        with open(path, "rb") as file:
            events = ijson.parse(file, use_float=True)
            _, event, value = next(events)
            if event == "start_map":
                return _vllm_stream(events)
            if event != "start_array":
                return value
            return _llmperf_stream(events, shown)
    except ijson.IncompleteJSONError as exc:
        raise LogError(shown, "", f"not valid JSON: {exc} (the file ends early: cut short?)") from None
    except ijson.JSONError as exc:
        raise LogError(shown, "", f"not valid JSON: {cut(str(exc))}") from None
    except (UnicodeDecodeError, StopIteration):
        raise LogError(shown, "", "not UTF-8 JSON text: not a JSON log") from None
    except StreamTooLarge as exc:
        raise LogError(shown, exc.key, f"holds more than {exc.limit:,} values; {exc.what}: not the shape of a "
                                       f"benchmark log") from None


MAX_BUILT = 4 * MAX_REQUESTS  # events one field the method reads may hold (an array of one value per request)


class StreamTooLarge(Exception):
    """A field (or an llmperf request) of a streamed log far larger than a benchmark writes: `key` names it,
    `limit` the values it may hold, `what` what one holds."""

    def __init__(self, key: str, limit: int, what: str):
        super().__init__(key)
        self.key, self.limit, self.what = key, limit, what


STARTS, ENDS, SCALARS = ("start_map", "start_array"), ("end_map", "end_array"), ("number", "string", "boolean",
                                                                                  "null")


def _vllm_stream(events) -> dict:
    """A vLLM result's fields the method reads, each request's "itls" as a Summed (what is not a list of gaps as
    it was: null, a number, {} for an object), the rest of the file passed over."""
    from ijson.common import ObjectBuilder

    data: dict = {}
    depth, key, builder, gaps, fresh, built = 1, None, None, None, False, 0  # depth 1: in the top-level object
    in_list, total, bad, j = False, [], None, 0  # the request whose gaps are being summed
    for _, event, value in events:
        if in_list and depth == 3:
            if event == "number":  # a gap: most of a large file, kept short
                if bad is None and not 0 <= value <= MAX_SECONDS:
                    bad = (j, value)
                total.append(value)
                j += 1
                continue
            if event == "end_array":  # summed as the whole file's reader sums them (numpy, pairwise)
                depth, in_list = 2, False
                gaps.append(Summed(float(np.sum(total)) if total else 0.0, bad))
                continue
        depth += 1 if event in STARTS else -1 if event in ENDS else 0
        if depth == 0:
            break
        if depth == 1 and event == "map_key":
            if builder is not None:
                data[key] = builder.value
            key, builder, built = value, (ObjectBuilder() if value in VLLM_FIELDS else None), 0
            gaps, fresh = ([] if value == "itls" else None), value == "itls"
            continue
        if builder is not None:
            built += 1
            if built > MAX_BUILT:  # a field the method reads holds far more than one value per request
                raise StreamTooLarge(key, MAX_BUILT, f"a log has one per request, at most {MAX_REQUESTS:,}")
            builder.event(event, value)
        elif in_list:  # what is not a number among a request's gaps: the first is named
            if depth == 3 and event in SCALARS or depth == 4 and event in STARTS:
                bad = bad or (j, {"start_map": {}, "start_array": [], "null": None}.get(event, value))
                j += 1
        elif gaps is not None:
            gaps, fresh = _gap_event(data, gaps, fresh, depth=depth, event=event, value=value), False
            if gaps is not None and depth == 3 and event == "start_array":
                in_list, total, bad, j = True, [], None, 0
    if builder is not None:
        data[key] = builder.value
    return data


def _gap_event(data: dict, gaps: list, fresh: bool, *, depth: int, event: str, value) -> list | None:
    """An event of "itls" outside a request's list of gaps: the array itself starting (kept as the list of
    requests), or a request that is not a list (null, a number, an object: kept as it is, for the message), or
    "itls" not an array at all (kept as it is; None: nothing more to read of it)."""
    if fresh:
        if event == "start_array":
            data["itls"] = gaps
            return gaps
        data["itls"] = {} if event == "start_map" else value
        return None
    if depth == 2 and event in SCALARS:
        gaps.append(value)
    elif depth == 3 and event == "start_map":
        gaps.append({})
    return gaps


def _llmperf_stream(events, shown: str) -> list:
    """llmperf's requests, each keeping the fields the method reads (a request that is not an object: as it is,
    or [] for a list); a request of more than MAX_ITEM values is not one llmperf writes."""
    from ijson.common import ObjectBuilder

    wanted = (*LLMPERF_FIELDS, "error_code", "error_msg")
    kept: list = []
    depth, key, builder, built = 1, None, None, 0  # depth 1: inside the top-level list
    for _, event, value in events:
        depth += 1 if event in STARTS else -1 if event in ENDS else 0
        if depth == 0:
            break
        if depth == 1 and event in SCALARS:
            kept.append(value)
            _at_most_max(len(kept), shown)
            continue
        if depth == 2 and event in STARTS:  # a request starts
            kept.append({} if event == "start_map" else [])
            _at_most_max(len(kept), shown)
            builder, built = None, 0
            continue
        built += 1
        if built > MAX_ITEM:
            raise StreamTooLarge(f"[{len(kept) - 1}]", MAX_ITEM, "an llmperf request has a dozen fields")
        if depth == 2 and event == "map_key" and isinstance(kept[-1], dict):
            key, builder = value, (ObjectBuilder() if value in wanted else None)
        elif builder is not None:
            builder.event(event, value)
            if depth == 2:  # the field's value is complete
                kept[-1][key], builder = builder.value, None
    return kept


MAX_ITEM = 10_000  # values in one streamed llmperf request (it writes a dozen fields)


def _not_finite(word: str):
    raise ValueError(f"{word} is not a finite number")


def _vllm(data: dict, shown: str) -> pd.DataFrame:
    """vLLM's benchmark_serving / `vllm bench serve` result: per-request arrays, times in seconds."""
    if "duration" not in data:
        raise LogError(shown, "duration", "missing: not a vLLM --save-result file (nor llmperf individual "
                                          "responses, which are a JSON list)")
    needed = ["input_lens", "output_lens", "ttfts", "errors"] + ([] if "latencies" in data else ["itls"])
    missing = [key for key in needed if key not in data]
    if missing:
        raise LogError(shown, ", ".join(missing), f"missing: the per-request arrays are kept only with "
                                                  f"--save-detailed; {SAVE_DETAILED}")
    arrays = {key: data[key] for key in needed + (["latencies"] if "latencies" in data else [])}
    for key, values in arrays.items():
        if not isinstance(values, list):
            raise LogError(shown, key, f"expected a list with one entry per request, found {_json_type(values)}")
    count = len(arrays["errors"])
    for key, values in arrays.items():
        if len(values) != count:
            raise LogError(shown, key, f"{len(values):,} entries where errors has {count:,}: every per-request "
                                       f"array has one entry per request (a truncated or edited file?)")
    _at_most_max(count, shown)
    if count == 0:
        raise LogError(shown, "errors", "no requests")
    failed = np.array([_error_text(e, f"errors[{i}]", shown) != "" for i, e in enumerate(arrays["errors"])])
    ttft_s = _numbers(arrays["ttfts"], "ttfts", shown, failed)
    if "latencies" in arrays:
        latency_s = _numbers(arrays["latencies"], "latencies", shown, failed)
    else:  # older files: the latency is the first token's time plus every gap after it
        latency_s = ttft_s + np.array([_gaps(v, i, shown, failed[i]) for i, v in enumerate(arrays["itls"])])
    completed = data.get("completed")
    if completed is not None and completed != int((~failed).sum()):
        raise LogError(shown, "completed", f"{_shown(completed)}, but {int((~failed).sum()):,} requests have no "
                                           f"error text: the file is inconsistent")
    return _requests(shown, ttft_s, latency_s, input_tokens=_numbers(arrays["input_lens"], "input_lens", shown,
                                                                     whole=True),
                     output_tokens=_numbers(arrays["output_lens"], "output_lens", shown, whole=True), failed=failed,
                     names=("ttfts", "latencies" if "latencies" in arrays else "itls"))


LLMPERF_FIELDS = ("ttft_s", "end_to_end_latency_s", "number_input_tokens", "number_output_tokens")


def _llmperf(items: list, shown: str) -> pd.DataFrame:
    """llmperf's individual_responses: one object per request, times in seconds."""
    _at_most_max(len(items), shown)
    if not items:
        raise LogError(shown, "", "no requests (an empty list)")
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise LogError(shown, f"[{i}]", f"expected an object per request, found {_json_type(item)}")
    # only the fields the method reads, request by request: a table of every key would hold a column for each
    # key any request has (20,000 requests with a key each of their own: 400 million cells)
    for key in LLMPERF_FIELDS:
        if not any(key in item for item in items):
            raise LogError(shown, key, "missing from every request: not an llmperf individual_responses file")
    failed = np.array([_llmperf_failed(item.get("error_code"), item.get("error_msg"), i, shown)
                       for i, item in enumerate(items)], dtype=bool)
    column = {key: [None if _missing(item.get(key)) else item.get(key) for item in items] for key in LLMPERF_FIELDS}
    return _requests(shown, _numbers(column["ttft_s"], "ttft_s", shown, failed, item=True),
                     _numbers(column["end_to_end_latency_s"], "end_to_end_latency_s", shown, failed, item=True),
                     input_tokens=_numbers(column["number_input_tokens"], "number_input_tokens", shown, failed,
                                           whole=True, item=True),
                     output_tokens=_numbers(column["number_output_tokens"], "number_output_tokens", shown, failed,
                                            whole=True, item=True),
                     failed=failed, names=("ttft_s", "end_to_end_latency_s"), item=True)


def _requests(shown: str, ttft_s, latency_s, *, input_tokens, output_tokens, failed, names,
              item=False) -> pd.DataFrame:
    """The requests as one frame, a request's latency checked to end after its first token (`names`: the file's
    fields of the first token's time and of the latency, for the message)."""
    ttft_ms = ttft_s * 1000
    below = np.flatnonzero(~failed & (latency_s * 1000 < ttft_ms))
    if below.size:
        i = int(below[0])
        raise LogError(shown, _field(names[1], i, item), f"{float(latency_s[i])!r} s ends before the first token "
                                                          f"({float(ttft_s[i])!r} s): not a request's latency")
    return pd.DataFrame({"ttft_ms": ttft_ms, "tpot_ms": tpot_ms(latency_s, ttft_ms, output_tokens),
                         "latency_s": latency_s, "input_tokens": input_tokens, "output_tokens": output_tokens,
                         "failed": failed})


def tpot_ms(latency_s, ttft_ms, output_tokens):
    """vLLM's TPOT: (latency − TTFT) / (output tokens − 1) when more than one token came out, else 0; in ms. The
    Requests sheet's formula computes it in the same order: IF(out>1,(latency*1000-TTFT)/(out-1),0)."""
    many = output_tokens > 1
    return np.where(many, (latency_s * 1000 - ttft_ms) / np.where(many, output_tokens - 1, 1), 0.0)


# Fields ------------------------------------------------------------------------------------------------------
def _finite(value) -> float | None:
    """A JSON number as a finite float; None for anything else (text, true/false, null, 1e400, a 400-digit int)."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except OverflowError:
        return None
    return number if math.isfinite(number) else None


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))  # pandas fills absent keys with NaN


def _field(name: str, i: int, item: bool) -> str:
    return f"[{i}].{name}" if item else f"{name}[{i}]"


def _numbers(values: list, name: str, shown: str, failed=None, *, whole=False, item=False) -> np.ndarray:
    """Numbers from 0 to MAX_TOKENS tokens (whole) or MAX_SECONDS seconds; a failed request may leave one out
    (null → 0)."""
    found = np.zeros(len(values))
    unit, top = ("a whole number of tokens", MAX_TOKENS) if whole else ("a number of seconds", MAX_SECONDS)
    for i, value in enumerate(values):
        if value is None and failed is not None and failed[i]:
            continue
        number = _finite(value)
        if number is None or not 0 <= number <= top or (whole and not number.is_integer()):
            raise LogError(shown, _field(name, i, item), f"expected {unit} from 0 to {top:,.0f}, found "
                                                         f"{_shown(value)}")
        found[i] = number
    return found


def _gaps(value, i: int, shown: str, failed: bool) -> float:
    """One request's inter-token latencies, summed (a stream has summed them already: Summed)."""
    if value is None and failed:
        return 0.0
    if isinstance(value, Summed):
        if value.bad is not None:
            j, found = value.bad
            raise LogError(shown, f"itls[{i}][{j}]", f"expected a number of seconds from 0 to {MAX_SECONDS:,.0f}, "
                                                     f"found {_shown(found)}")
        return value.total
    if not isinstance(value, list):
        raise LogError(shown, f"itls[{i}]", f"expected a list of seconds between tokens, found {_shown(value)}")
    return float(np.sum(_numbers(value, f"itls[{i}]", shown))) if value else 0.0


def _error_text(value, field: str, shown: str) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise LogError(shown, field, f"expected the error's text (\"\" when the request succeeded), found "
                                     f"{_shown(value)}")
    return value


def _llmperf_failed(code, message, i: int, shown: str) -> bool:
    if not _missing(code) and _finite(code) is None and not isinstance(code, str):
        raise LogError(shown, f"[{i}].error_code", f"expected an error code or null, found {_shown(code)}")
    text = "" if _missing(message) else _error_text(message, f"[{i}].error_msg", shown)
    return not _missing(code) or text != ""


def _duration(data: dict, key: str, shown: str) -> float:
    value = _finite(data.get(key))
    if value is None or not MIN_DURATION_S <= value <= MAX_SECONDS:
        raise LogError(shown, key, f"expected a number of seconds from {MIN_DURATION_S:g} to {MAX_SECONDS:,.0f}, "
                                   f"found {_shown(data.get(key))}")
    return value


def _at_most_max(count: int, shown: str) -> None:
    if count > MAX_REQUESTS:
        raise LogError(shown, "", f"{count:,} requests; a workbook holds at most {MAX_REQUESTS:,} requests in all "
                                  f"(one row each on its Requests sheet): split the run or sample it")


def _json_type(value) -> str:
    return {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "a number")


def _shown(value) -> str:
    """A JSON value as the file spells it, cut as every message cuts a value (planner.scenario.errors.cut)."""
    return cut(repr(value) if isinstance(value, float) and not math.isfinite(value) else json.dumps(value))


# Benchmarks: file entries → runs ------------------------------------------------------------------------------
@dataclass(frozen=True)
class FileEntry:
    """A file entry of a benchmark as the scenario gives it: a path or glob, with an optional rate and duration."""

    pattern: str
    rate: float | None = None
    duration_s: float | None = None


def expand(entry: FileEntry, folder: Path) -> list[str]:
    """The paths a file entry names, as the scenario would spell them: a relative pattern's matches stay relative
    to `folder`, an absolute one's absolute. A pattern that matches nothing is an error."""
    if not globs.has_magic(entry.pattern):
        return [entry.pattern]
    absolute = os.path.isabs(entry.pattern)
    base = "" if absolute else str(folder)
    try:
        matches = globs.matches(os.path.join(base, entry.pattern))  # each folder once, a bounded walk
    except globs.GlobError as exc:
        raise LogError(entry.pattern, "", exc.problem) from None
    files = [m for m in matches if os.path.isfile(m)]
    if not files:
        raise LogError(entry.pattern, "", f"no file matches (looked in {folder if not absolute else '/'})")
    return files if absolute else [os.path.relpath(m, folder) for m in files]


def _identity(path: str) -> object:
    """A file however it is named (a symbolic or hard link, a linked folder, an absolute or relative path): its
    device and inode; the path itself where it cannot be looked at (reading it then says why)."""
    try:
        info = os.stat(path)
    except OSError:
        return path
    return (info.st_dev, info.st_ino)


def read_benchmarks(benchmarks: list[list[FileEntry]], folder: Path) -> tuple[Logs, list[list[dict]]]:
    """Every benchmark's files read, each benchmark's runs ordered by rate; and each benchmark's file entries as
    read ({path, rate} and, for llmperf, duration_s), in that order. A LogError names the file and the field, and
    carries the benchmark and file entry it came from."""
    runs: list[Run] = []
    frames: list[pd.DataFrame] = []
    entries: list[list[dict]] = []
    total, named = 0, 0
    for b, files in enumerate(benchmarks, start=1):
        found: list[tuple[float, str, LogFile, int]] = []  # (rate, path, file, entry)
        seen: dict[object, tuple[int, str]] = {}  # a file's identity → (its entry, its name there)
        for e, entry in enumerate(files, start=1):
            try:
                paths = expand(entry, folder)
                named += len(paths)
                for shown in paths:
                    advance(READING, 1, total=named, unit="file")
                    path = os.path.normpath(os.path.join(folder, shown))
                    key = _identity(path)
                    if key in seen and seen[key][0] == e:  # a glob's second name of a file (a link): one run
                        continue
                    if key in seen:
                        other = "" if seen[key][1] == shown else f", as {cut(seen[key][1])}"
                        raise LogError(shown, "", f"listed twice (file entries {seen[key][0]} and {e}{other})")
                    seen[key] = (e, shown)
                    log = read_log(Path(path), shown, entry.rate, entry.duration_s)
                    total += len(log.requests)
                    if total > MAX_REQUESTS:
                        raise LogError(shown, "", f"brings the requests to {total:,}; a workbook holds at most "
                                                  f"{MAX_REQUESTS:,} in all (one row each on its Requests sheet)")
                    found.append((log.rate, shown, log, e))
            except LogError as exc:
                exc.entry = (b, e)
                raise
        found.sort(key=lambda f: f[0])
        for (rate, first, _, _), (next_rate, second, _, e) in zip(found, found[1:]):
            if rate == next_rate:
                error = LogError(second, "", f"has the same request rate as {first} ({rate:g}): one run per rate")
                error.entry = (b, e)
                raise error
        listed = []
        for rate, shown, log, _ in found:
            run = Run(len(runs) + 1, b, shown, log.format, rate=rate, duration_s=log.duration_s,
                      vllm_request_goodput=log.vllm_request_goodput)
            runs.append(run)
            frames.append(log.requests.assign(run=run.number))
            listed.append({"path": shown, "rate": rate} |
                          ({"duration_s": log.duration_s} if log.format == "llmperf" else {}))
        entries.append(listed)
    requests = pd.concat(frames, ignore_index=True)[COLUMNS] if frames else pd.DataFrame(
        {c: pd.Series(dtype=bool if c == "failed" else float) for c in COLUMNS})
    return Logs(runs, requests), entries
