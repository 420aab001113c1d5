"""Resources (issue 34, class 7, and class 11): logs read keeping only the fields the method reads; one file however
it is named is one run; a config.json many Catalog entries name is read once; validation never runs the layout
search; a gradient reduce of 3 bytes and a global batch larger than every training token are refused naming the key.
The time and memory of the largest logs are measured by benchmarks/logs.py, not here."""

from __future__ import annotations

import json
import os
import shutil
import tracemalloc
from pathlib import Path

import pytest

from planner import logs
from planner.scenario import ScenarioError, load_scenario
from tests.conftest import ROOT


def llmperf_request(i: int, **extra) -> dict:
    return {"ttft_s": 0.1, "end_to_end_latency_s": 1.1, "number_input_tokens": 100, "number_output_tokens": 11,
            "error_code": None, "error_msg": "", **extra}


def test_an_llmperf_log_whose_requests_each_carry_a_key_of_their_own_is_read_in_little_memory(tmp_path):
    """4,000 requests with a key each: a table of every key was 4,000 × 4,000 cells (128 MB of floats alone; 20,000
    such requests took 9.5 GB). Read keeping the four fields the method reads, it is a few MB."""
    path = tmp_path / "llmperf.json"
    path.write_text(json.dumps([llmperf_request(i, **{f"own_key_{i}": i}) for i in range(4000)]))
    tracemalloc.start()
    try:
        found = logs.read_log(path, "llmperf.json", rate=2, duration_s=2000)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(found.requests) == 4000
    assert found.requests.tpot_ms.iloc[0] == pytest.approx((1.1 - 0.1) * 1000 / 10)  # (latency − TTFT)/(out − 1)
    assert peak < 40e6, peak


def vllm_log(rate: float) -> dict:
    return {"request_rate": rate, "duration": 10.0, "completed": 1, "input_lens": [10], "output_lens": [5],
            "ttfts": [0.1], "latencies": [0.14], "errors": [""]}


@pytest.fixture
def one_log(tmp_path) -> Path:
    """runs/a.json, and the scenario folder it is named from."""
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.json").write_text(json.dumps(vllm_log(2)))
    return tmp_path


def runs_of(folder: Path, files: str) -> list[str]:
    scenario = folder / "s.yaml"
    scenario.write_text(f"name: s\ngoodput: {{benchmarks: [{{name: b, files: {files}}}]}}\n")
    return [run.path for run in load_scenario(scenario).external("goodput").runs]


@pytest.mark.parametrize("make", [
    lambda folder: os.symlink("a.json", folder / "runs" / "link.json"),
    lambda folder: os.link(folder / "runs" / "a.json", folder / "runs" / "link.json"),
], ids=["a symbolic link", "a hard link"])
def test_a_file_and_a_link_to_it_in_one_glob_are_one_run(one_log, make):
    """Once two runs at one rate ("has the same request rate as runs/a.json"): now one run, its first name."""
    make(one_log)
    assert runs_of(one_log, "['runs/*.json']") == ["runs/a.json"]


def test_a_linked_folder_or_an_absolute_path_beside_the_relative_one_is_the_same_file(one_log):
    os.symlink("runs", one_log / "linked")
    with pytest.raises(ScenarioError) as error:
        runs_of(one_log, "[runs/a.json, linked/a.json]")
    assert "linked/a.json: listed twice (file entries 1 and 2, as runs/a.json)" in str(error.value)
    with pytest.raises(ScenarioError) as error:
        runs_of(one_log, f"[runs/a.json, '{one_log}/runs/a.json']")
    assert str(error.value).startswith(f"{one_log}/s.yaml:2: goodput.benchmarks.1.files.2: ")  # the path, cut
    assert str(error.value).endswith(": listed twice (file entries 1 and 2, as runs/a.json)")


def test_a_config_json_that_many_catalog_entries_name_is_read_once(tmp_path, monkeypatch):
    """50 entries naming one config.json: read 50 times before (1,000 entries of a 0.96 MB file took 4 min 44 s)."""
    from planner import model_config

    shutil.copy(ROOT / "examples" / "models" / "Mixtral-8x7B-v0.1" / "config.json", tmp_path / "config.json")
    reads = []
    real = model_config.read_config
    monkeypatch.setattr(model_config, "read_config", lambda path: (reads.append(path), real(path))[1])
    entries = "".join(f"    m{i}: {{config: config.json}}\n" for i in range(50))
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"name: s\nmodel: m7\ncatalog:\n  models:\n{entries}")
    found = load_scenario(scenario)
    assert len(reads) == 1
    assert found.chosen_model.layers == 32 and found.merged_catalog.models["m49"].experts == 8  # Mixtral's config


def test_validation_never_runs_the_layout_search_and_each_variant_written_runs_it_once(tmp_path, monkeypatch):
    """hours.mfu: layout over a sweep of three prices: the search ran for every variant while the file was checked
    (10,000 variants kept planner run busy for 46 minutes); now it runs when a variant is written: once for the plan
    and once for each of the tornado's token swings (−20 %, +20 %: the layout, so the MFU, may change with them)."""
    from planner.batch import run_batch
    from planner.engine import layouts

    calls = []
    real = layouts.search
    layouts._searched.cache_clear()
    monkeypatch.setattr(layouts, "search", lambda *args, **kwargs: (calls.append(1), real(*args, **kwargs))[1])
    scenario = tmp_path / "s.yaml"
    scenario.write_text((ROOT / "examples" / "layouts-1-405b-search.yaml").read_text()
                        + "sweep: {price_per_gpu_hour: [1.5, 2.0, 2.5]}\n")
    load_scenario(scenario)
    assert calls == []
    outcomes = run_batch([str(scenario)], tmp_path / "out", jobs=1, progress=False)
    assert [o.ok for o in outcomes] == [True] * 3
    assert len(calls) == 3 * 3


LAYOUTS = (ROOT / "examples" / "layouts-1-405b-search.yaml").read_text()


@pytest.mark.parametrize("changed, expected", [
    ("grad_reduce_bytes: 4", "search.grad_reduce_bytes: value 3 is not allowed: Input should be a multiple of 2"),
    ("tokens: 15.6e12", "search.global_batch: value 2048 is not allowed: a global batch of 2,048 sequences of 8,192 "
                        "tokens is 16,777,216 tokens a step, more than all 10,000,000 training tokens (hours.tokens): "
                        "fewer than one optimizer step"),
], ids=["a gradient reduce of 3 bytes", "fewer than one optimizer step"])
def test_a_search_without_a_meaningful_premise_is_refused_naming_the_key(tmp_path, changed, expected):
    scenario = tmp_path / "s.yaml"
    replacement = {"grad_reduce_bytes: 4": "grad_reduce_bytes: 3", "tokens: 15.6e12": "tokens: 1e7"}[changed]
    assert changed in LAYOUTS
    scenario.write_text(LAYOUTS.replace(changed, replacement))
    with pytest.raises(ScenarioError) as error:
        load_scenario(scenario)
    assert expected in str(error.value)


def test_hours_mfu_layout_without_a_layout_in_time_exits_2_naming_the_key_when_written(tmp_path):
    from click.testing import CliRunner

    from planner.cli import main

    scenario = tmp_path / "s.yaml"
    scenario.write_text(LAYOUTS.replace("deadline_days: 120", "deadline_days: 1"))
    load_scenario(scenario)  # validation does not search
    result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {scenario}:13: hours.mfu: value 'layout' is not allowed: the word layout needs a layout that fits and "
                                    f"meets the deadline: no fitting layout finishes within 1 days: the fastest "
                                    f"takes ")
    assert not list((tmp_path / "out").glob("*.*"))


# A large log read as a stream (planner.logs.STREAM_BYTES): the same requests, the same messages -----------------------
def read_both_ways(path: Path, monkeypatch, **given) -> list:
    """read_log's result (or its message) by json.load and as a stream."""
    found = []
    for limit in (logs.MAX_FILE_BYTES, 0):
        monkeypatch.setattr(logs, "STREAM_BYTES", limit)
        try:
            log = logs.read_log(path, path.name, **given)
            found.append((log.format, log.rate, log.duration_s, log.vllm_request_goodput, log.requests.to_dict("list")))
        except logs.LogError as exc:
            found.append(str(exc))
    return found


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "examples" / "goodput-logs").glob("*.json")))
def test_a_log_read_as_a_stream_gives_the_same_requests(name, monkeypatch):
    path = ROOT / "examples" / "goodput-logs" / name
    given = {"rate": 3, "duration_s": 30.3} if "llmperf" in name else {}
    by_json, by_stream = read_both_ways(path, monkeypatch, **given)
    assert not isinstance(by_json, str) and by_stream == by_json


def vllm_with_gaps(**changes) -> dict:
    return {"request_rate": 2, "duration": 10.0, "completed": 2, "input_lens": [10, 20], "output_lens": [3, 4],
            "ttfts": [0.1, 0.2], "itls": [[0.01, 0.02], [0.01, 0.01, 0.01]], "errors": ["", ""]} | changes


@pytest.mark.parametrize("changes, message", [
    ({"ttfts": [0.1, "abc"]}, 'x.json: ttfts[1]: expected a number of seconds from 0 to 1,000,000, found "abc"'),
    ({"itls": [[0.01, -1], [0.01]]}, "x.json: itls[0][1]: expected a number of seconds from 0 to 1,000,000, found -1"),
    ({"itls": [[0.01, [1]], [0.01]]}, "x.json: itls[0][1]: expected a number of seconds from 0 to 1,000,000, found "
                                      "[]"),
    ({"itls": [[0.01], 5]}, "x.json: itls[1]: expected a list of seconds between tokens, found 5"),
    ({"itls": 5}, "x.json: itls: expected a list with one entry per request, found a number"),
    ({"itls": [[0.01]]}, "x.json: itls: 1 entries where errors has 2"),
    ({"itls": [None, [0.01]], "errors": ["boom", ""], "completed": 1}, None),
], ids=["a text TTFT", "a negative gap", "a list among the gaps", "a number for a request", "itls a number",
        "one request short", "null for a failed request"])
def test_a_bad_log_read_as_a_stream_is_named_as_the_whole_files_reader_names_it(tmp_path, monkeypatch, changes,
                                                                               message):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(vllm_with_gaps(**changes)))
    by_json, by_stream = read_both_ways(path, monkeypatch)
    if message is None:
        assert not isinstance(by_stream, str) and by_stream == by_json
    elif message.endswith("found []"):  # the whole file's reader shows the list found, the stream that it is one
        assert by_stream == message and by_json == message.replace("found []", "found [1]")
    else:
        assert by_json == by_stream and by_json.startswith(message)


def test_a_log_cut_short_is_said_as_a_stream_too(tmp_path, monkeypatch):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(vllm_with_gaps())[:90])
    by_json, by_stream = read_both_ways(path, monkeypatch)
    assert by_json.startswith("x.json: not valid JSON at line 1, column ")
    assert by_stream.startswith("x.json: not valid JSON: ") and by_stream.endswith("(the file ends early: cut short?)")


@pytest.mark.long  # about 5 s: a stream of 2 million gaps
def test_two_million_gaps_read_as_a_stream_hold_a_few_mb(tmp_path, monkeypatch):
    """As one file, json.load held every gap as a Python float in a list (about 64 MB for these 2 million); the
    stream holds one request's at a time."""
    path = tmp_path / "x.json"
    requests, gaps = 1000, 2000
    path.write_text(json.dumps(vllm_with_gaps(completed=requests, input_lens=[10] * requests,
                                              output_lens=[gaps + 1] * requests, ttfts=[0.1] * requests,
                                              itls=[[0.01] * gaps] * requests, errors=[""] * requests)))
    monkeypatch.setattr(logs, "STREAM_BYTES", 0)
    tracemalloc.start()
    try:
        found = logs.read_log(path, "x.json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found.requests.latency_s.iloc[0] == pytest.approx(0.1 + 0.01 * gaps)  # TTFT + the gaps
    assert peak < 16e6, peak


@pytest.mark.parametrize("content, expected", [
    (vllm_with_gaps(ttfts=[0.1] * 300_000), "x.json: ttfts: holds more than 200,000 values; a log has one per "
                                            "request, at most 50,000: not the shape of a benchmark log"),
    ([llmperf_request(0, tokens=list(range(20_000)))], "x.json: [0]: holds more than 10,000 values; an llmperf "
                                                       "request has a dozen fields: not the shape of a benchmark log"),
], ids=["a vLLM array of 300,000", "an llmperf request of 20,000 values"])
def test_a_streamed_log_of_another_shape_is_refused_before_it_is_held(tmp_path, monkeypatch, content, expected):
    path = tmp_path / "x.json"
    path.write_text(json.dumps(content))
    monkeypatch.setattr(logs, "STREAM_BYTES", 0)
    with pytest.raises(logs.LogError) as error:
        logs.read_log(path, "x.json", rate=2, duration_s=10)
    assert str(error.value).startswith(expected)


# Issue 42, item 5: a layout search too large to wait for -------------------------------------------------------------
def big_search(named: int = 10, references: int = 20) -> str:
    """A 405B search at 131,072 tokens without FlashAttention, a GPU budget of 1e9 and a global batch of 1,344
    divisors (735,134,400 = 2^6·3^3·5^2·7·11·13·17): 124,613,880 candidates a scan; twenty blank references, and
    named scenarios that each change the sequence length, so each searches again."""
    return ("name: big\nmodel: llama-3.1-405b\nmemory: {sequence_length: 131072}\nhours: {tokens: 1e18}\nsearch:\n"
            "  global_batch: 735134400\n  gpus_max: 1000000000\n  flash_attention: false\n"
            + ("  layouts:\n" + "    - {}\n" * references if references else "")
            + ("scenarios:\n" + "".join(f"  s{i}: {{memory.sequence_length: {131072 - 4096 * (i + 1)}}}\n"
                                        for i in range(named)) if named else ""))


def test_a_layout_search_past_the_stated_limit_exits_2_with_its_size_naming_the_keys(tmp_path):
    """Once no answer in minutes (each of 11 problems scanning 21 times). Estimated before any layout is evaluated,
    refused at search's line with the size and what sets it; nothing written."""
    from tests.helpers import refused

    output, path = refused(tmp_path, big_search())
    assert output.startswith(f"error: {path}:5: search: the layout search would evaluate about 2.74e+09 candidate "
                             "layouts, above the 2e+09 a run may: 249,227,760 for the search and its 1 distinct "
                             "reference layouts with a blank field (search.layouts), for each of 11 searches"), output
    for key in ("scenarios that changes", "memory.sequence_length", "search.gpus_max (1,000,000,000)",
                "the 1,344 divisors of search.global_batch (735,134,400)"):
        assert key in output


def test_blank_reference_layouts_alike_are_searched_once_and_the_count_is_exact(tmp_path, monkeypatch):
    """Twenty blank references were twenty scans of the grid: now one, beside the search's own; every candidate the
    search evaluates is counted through the progress hook, and search_size says the same number beforehand."""
    from planner.engine import layouts, shared

    scenario = tmp_path / "s.yaml"
    scenario.write_text(big_search(named=0, references=0).replace("gpus_max: 1000000000", "gpus_max: 16384"))
    q, references = layouts.problem(load_scenario(scenario)), [{}] * 20 + [{"zero": 1}]
    counted = []
    monkeypatch.setattr(shared, "PROGRESS", lambda what, done, total, unit: counted.append(done))
    found = layouts.search(q, references)
    assert sum(counted) == layouts.search_size(q, references)
    assert sum(counted) == 2 * layouts.scan_size(q, {}) + layouts.scan_size(q, {"zero": 1})
    assert found.references[:20] == [found.references[0]] * 20 and found.references[0] is not found.references[1]


def test_planner_run_shows_the_search_s_progress_on_stderr_when_forced_and_not_otherwise(tmp_path, monkeypatch):
    from click.testing import CliRunner

    from planner import progress
    from planner.cli import main
    from planner.engine import layouts

    scenario = tmp_path / "s.yaml"
    scenario.write_text(LAYOUTS)
    plain = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "a")])
    assert plain.exit_code == 0 and "layout search" not in plain.stderr  # not a terminal: no bar
    monkeypatch.setattr(progress, "SHOWN", True)
    layouts._searched.cache_clear()  # the search just made is kept: make it again
    shown = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "b")])
    assert shown.exit_code == 0, shown.output
    assert "layout search: 100%" in shown.stderr and "layout/s]" in shown.stderr


# Issue 42, item 5: a glob of thousands of one-request logs -----------------------------------------------------------
@pytest.mark.long  # about 5 s: thousands of logs
def test_a_glob_of_many_logs_says_its_progress_on_stderr_when_forced_and_not_otherwise(tmp_path, monkeypatch):
    """A glob of 10,000 one-request files ran for minutes without a word (reading them, then Goodput's runs and the
    calibration, each a loop over the runs). Each says its progress on a terminal; 200 files show it here."""
    from click.testing import CliRunner

    from planner import progress
    from planner.cli import main

    (tmp_path / "runs").mkdir()
    for i in range(200):
        (tmp_path / "runs" / f"rate-{i + 1}.json").write_text(json.dumps({
            "request_rate": i + 1, "duration": 10.0, "completed": 1, "input_lens": [10], "output_lens": [5],
            "ttfts": [0.1], "latencies": [0.14], "errors": [""]}))
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: many logs\nserving: {calibration: h100-vllm}\ngoodput:\n  benchmarks:\n"
                        "    - {name: h100-vllm, files: [runs/*.json], gpu: h100-sxm}\n")
    plain = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "a")])
    assert plain.exit_code == 0, plain.output
    assert plain.stderr == ""  # not a terminal: no bar
    monkeypatch.setattr(progress, "SHOWN", True)
    shown = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "b")])
    assert shown.exit_code == 0, shown.output
    for line in ("reading benchmark logs: 100%", "| 200/200 [", "benchmark runs' attainment: 100%",
                 "calibrating against benchmark runs: 100%", "comparing predictions with benchmark runs: 100%"):
        assert line in shown.stderr, line


def test_one_bar_for_each_kind_of_work_grown_by_a_second_glob_and_again_for_a_second_pass(monkeypatch):
    from planner import progress
    from planner.engine.shared import advance

    made = []
    monkeypatch.setattr(progress, "bar", lambda total, desc, unit: made.append(FakeBar(total, desc)) or made[-1])
    with progress.Bars():
        for total in (3, 3, 3, 5, 5):  # a glob of 3 files, then another of 2
            advance("reading", 1, total=total)
        for _ in range(2):  # the same comparison twice: before and after a fit
            for _ in range(2):
                advance("comparing", 1, total=2)
    assert [(b.desc, b.total, b.n, b.closed) for b in made] == [("reading", 5, 5, True), ("comparing", 2, 2, True),
                                                                ("comparing", 2, 2, True)]


class FakeBar:
    def __init__(self, total, desc):
        self.total, self.desc, self.n, self.closed = total, desc, 0, False

    def update(self, n):
        self.n += n

    def close(self):
        self.closed = True
