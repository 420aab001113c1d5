"""METHOD.md §5 against numbers worked by hand: the seed's two servers; benchmark logs read in vLLM's and llmperf's
formats (TPOT by vLLM's definition, failed requests, the older "request_goodput:" key, latency rebuilt from TTFT and
the inter-token latencies); DistServe interpolation; bad logs refused with exit 2 naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from planner import logs
from planner.cli import main
from planner.engine import compute
from planner.engine.goodput import HIGHEST_MEETS, NO_RUN_MEETS, NONE_ACCEPTABLE, NONE_COMPLETED, distserve_goodput
from planner.report import render_html
from planner.scenario import ScenarioError, load_scenario, parse_scenario
from tests.conftest import ROOT
from tests.helpers import scenario_with


# The seed's servers (seed 003) ---------------------------------------------------------------------------------
def test_the_seeds_two_servers():
    table = compute(scenario_with()).goodput
    a, b = table.servers
    assert a["cost_per_acceptable_request"] == pytest.approx(2 / 800) == 0.0025
    assert b["cost_per_acceptable_request"] == pytest.approx(2 / 890)  # 0.002247…: "about 0.00225"
    assert round(b["cost_per_acceptable_request"], 5) == 0.00225
    assert (a["cost_per_request"], b["cost_per_request"]) == (pytest.approx(0.002), pytest.approx(2 / 900))
    assert (a["acceptable_share"], b["acceptable_share"]) == (0.8, pytest.approx(890 / 900))
    # B has the lower raw throughput and is the cheaper per acceptable request: 1 − (2/890)/(2/800) = 1 − 800/890
    assert a["completed_per_hour"] > b["completed_per_hour"]
    assert table.headline["goodput_cheapest_server"] == "B"
    assert table.headline["goodput_next_cost_per_acceptable_request"] == 0.0025
    assert table.headline["goodput_cheapest_saving_share"] == pytest.approx(90 / 890)  # 10.1 %


def test_the_seeds_two_servers_in_words():
    html = render_html(compute(load_scenario(ROOT / "examples" / "goodput-1-two-servers.yaml")), generated="x")
    assert "B is the cheapest per acceptable request: $0.00225, 10.1 % less than A at $0.00250, although A " \
           "completes more requests per hour (1,000 against 900): 98.9 % of B&#39;s requests are acceptable, " \
           "80.0 % of A&#39;s." in html


def test_a_server_without_acceptable_requests_has_no_cost_per_acceptable_request():
    table = compute(scenario_with(**{"goodput.servers.1.acceptable_per_hour": 0})).goodput
    assert table.servers[0]["cost_per_acceptable_request"] == NONE_ACCEPTABLE
    assert table.headline["goodput_cheapest_server"] == "B"
    assert table.headline["goodput_cheapest_saving_share"] == "no other server has acceptable requests"


def test_acceptable_above_completed_is_refused():
    with pytest.raises(ScenarioError) as error:
        scenario_with(**{"goodput.servers.2.acceptable_per_hour": 901})
    assert "goodput.servers.2" in str(error.value) and "exceeds completed_per_hour 900" in str(error.value)


# DistServe interpolation ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("attainments, expected", [
    ([1.0, 0.95, 0.85, 0.5], (2, 2 + (0.95 - 0.9) / (0.95 - 0.85) * (4 - 2))),  # between 2 and 4 req/s: 3.0
    ([0.95, 0.8, 0.92, 0.5], (3, 4 + (0.92 - 0.9) / (0.92 - 0.5) * (8 - 4))),  # the highest rate meeting it wins
    ([0.9, 0.5, 0.4, 0.3], (1, 1.0)),  # exactly the target at 1 req/s
    ([0.8, 0.7, 0.6, 0.5], (0, NO_RUN_MEETS)),
    ([1.0, 1.0, 0.99, 0.95], (4, HIGHEST_MEETS)),
])
def test_distserve_goodput_interpolates_between_the_runs_that_straddle_the_target(attainments, expected):
    import numpy as np
    k, goodput = distserve_goodput([1, 2, 4, 8], np.array(attainments), 0.9)
    assert k == expected[0]
    assert goodput == (pytest.approx(expected[1]) if not isinstance(expected[1], str) else expected[1])


# Logs: hand-made files in the real formats ----------------------------------------------------------------------
def vllm_log(path: Path, requests: list[tuple], *, rate=1.0, duration=10.0, older=False, **extra) -> Path:
    """A vLLM result with --save-detailed; each request (input tokens, output tokens, TTFT s, latency s, error).
    Older files have no "latencies" (the inter-token latencies carry the time) and spell "request_goodput:"."""
    itls = [[(lat - ttft) / (out - 1)] * (out - 1) if out > 1 else ([lat - ttft] if lat > ttft else [])
            for _, out, ttft, lat, _ in requests]
    data = {"backend": "vllm", "request_rate": rate, "duration": duration,
            "completed": sum(1 for r in requests if not r[4]),
            "input_lens": [r[0] for r in requests], "output_lens": [r[1] for r in requests],
            "ttfts": [r[2] for r in requests], "itls": itls, "errors": [r[4] for r in requests]}
    if older:
        data["request_goodput:"] = 0.3
    else:
        data |= {"failed": sum(1 for r in requests if r[4]), "request_goodput": None,
                 "latencies": [r[3] for r in requests]}
    path.write_text(json.dumps(data | extra), encoding="utf-8")
    return path


def llmperf_log(path: Path, requests: list[tuple]) -> Path:
    path.write_text(json.dumps([{"error_code": 500 if err else None, "error_msg": err, "ttft_s": ttft,
                                 "end_to_end_latency_s": lat, "number_input_tokens": inp,
                                 "number_output_tokens": out, "inter_token_latency_s": 0.01}
                                for inp, out, ttft, lat, err in requests]), encoding="utf-8")
    return path


# (input tokens, output tokens, TTFT s, latency s, error); worked by hand with the SLO at 2,000 ms and 100 ms:
EDGE = [(100, 21, 0.5, 2.5, ""),  # TPOT (2,500 − 500) / 20 = 100 ms: on the SLO, acceptable
        (200, 41, 2.5, 4.5, ""),  # TTFT 2,500 ms > 2,000: not acceptable; TPOT (4,500 − 2,500) / 40 = 50 ms
        (300, 1, 0.3, 0.3, ""),  # one output token: TPOT 0 (vLLM's definition), acceptable
        (400, 0, 0.0, 0.0, "Request timed out")]  # failed: sent, not completed


def test_tpot_by_vllms_definition_failed_requests_and_percentiles(tmp_path):
    log = logs.read_log(vllm_log(tmp_path / "a.json", EDGE), "a.json")
    r = log.requests
    assert list(r["tpot_ms"]) == [100.0, 50.0, 0.0, 0.0]
    assert list(r["ttft_ms"]) == [500.0, 2500.0, 300.0, 0.0]
    assert list(r["failed"]) == [False, False, False, True]
    assert (log.format, log.rate, log.duration_s, log.vllm_request_goodput) == ("vllm", 1.0, 10.0, None)


def edge_scenario(tmp_path: Path, **goodput) -> Path:
    """Benchmark 1 (vLLM on 2 H200 + 1 standby): runs at 0.5 (all acceptable), 1 (EDGE) and 2 req/s (all failed);
    benchmark 2 (llmperf): one run, 1 req/s, attainment 0.5."""
    vllm_log(tmp_path / "r-0.5.json", [(10, 5, 0.2, 0.6, ""), (10, 5, 0.2, 0.6, "")], rate=0.5, duration=4.0)
    vllm_log(tmp_path / "r-1.json", EDGE, rate=1, duration=10.0)
    vllm_log(tmp_path / "r-2.json", [(10, 0, 0.0, 0.0, "Server disconnected")] * 2, rate=2, duration=2.0)
    llmperf_log(tmp_path / "perf_individual_responses.json", [(10, 3, 0.1, 0.3, ""), (10, 3, 2.1, 2.3, "")])
    path = tmp_path / "edge.yaml"
    path.write_text(json.dumps({"name": "edge", "goodput": {
        "benchmarks": [{"name": "vllm", "files": ["r-*.json"], "gpu": "h200", "gpus": 2, "standby_gpus": 1},
                       {"name": "perf", "files": [{"path": "perf_individual_responses.json", "rate": 1,
                                                   "duration_s": 5}]}], **goodput}}), encoding="utf-8")
    return path


def test_runs_worked_by_hand(tmp_path):
    table = compute(load_scenario(edge_scenario(tmp_path))).goodput
    slow, edge, failing, perf = table.runs
    assert [r["rate"] for r in table.runs] == [0.5, 1, 2, 1]  # each benchmark's runs in ascending rate
    assert (edge["sent"], edge["completed"], edge["acceptable"], edge["attainment"]) == (4, 3, 2, 0.5)
    assert (edge["request_rate"], edge["goodput_rate"]) == (0.3, 0.2)  # 3 and 2 requests in 10 s
    # completed TTFT 300, 500, 2,500 ms: p50 500; p90 at position 1.8: 500 + 0.8 × 2,000; p99: 500 + 0.98 × 2,000
    assert (edge["ttft_p50_ms"], edge["ttft_p90_ms"], edge["ttft_p99_ms"]) == (500, pytest.approx(2100),
                                                                              pytest.approx(2460))
    assert (edge["tpot_p50_ms"], edge["tpot_p90_ms"], edge["tpot_p99_ms"]) == (50, pytest.approx(90),
                                                                              pytest.approx(99))
    # (2 GPUs + 1 standby) × 2.50 per GPU-hour (H200) × 10 s; 2 acceptable requests of 21 and 1 output tokens
    assert edge["cost"] == pytest.approx(3 * 2.5 * 10 / 3600)
    assert edge["cost_per_acceptable_request"] == pytest.approx(3 * 2.5 * 10 / 3600 / 2)
    assert edge["cost_per_million_acceptable_output_tokens"] == pytest.approx(3 * 2.5 * 10 / 3600 / 22 * 1e6)
    assert failing["completed"] == 0 and failing["ttft_p99_ms"] == NONE_COMPLETED
    assert failing["cost_per_acceptable_request"] == NONE_ACCEPTABLE
    vllm, llmperf = table.benchmarks
    # 0.5 req/s meets 90 % (100 %), 1 req/s does not (50 %): 0.5 + (1 − 0.9) / (1 − 0.5) × (1 − 0.5) = 0.6
    assert (vllm["highest_meeting_run"], vllm["goodput"]) == (1, pytest.approx(0.6))
    assert vllm["goodput_per_gpu"] == pytest.approx(0.3)  # the 2 serving GPUs; the standby one serves nothing
    assert (perf["attainment"], llmperf["goodput"]) == (0.5, NO_RUN_MEETS)
    assert slow["highest_meeting"] and not edge["highest_meeting"]


def test_tightening_the_slo_lowers_attainment(tmp_path):
    loose = compute(load_scenario(edge_scenario(tmp_path))).goodput.runs[1]
    tight = compute(load_scenario(edge_scenario(tmp_path, slo={"ttft_ms": 2000, "tpot_ms": 99.9}))).goodput.runs[1]
    assert (loose["acceptable"], tight["acceptable"]) == (2, 1)  # the request at TPOT 100 ms drops out


def test_the_older_key_and_latency_rebuilt_from_the_inter_token_latencies(tmp_path):
    older = logs.read_log(vllm_log(tmp_path / "old.json", EDGE, older=True), "old.json")
    newer = logs.read_log(vllm_log(tmp_path / "new.json", EDGE), "new.json")
    assert older.vllm_request_goodput == 0.3  # "request_goodput:", as older benchmark_serving.py spells it
    # TTFT + the sum of the gaps: 0.5 + 20 × 0.1 = 2.5 s, as the newer file's "latencies" says
    assert list(older.requests["latency_s"]) == pytest.approx([2.5, 4.5, 0.3, 0.0])
    assert list(older.requests["tpot_ms"]) == pytest.approx(list(newer.requests["tpot_ms"]))


def test_llmperf_individual_responses(tmp_path):
    log = logs.read_log(llmperf_log(tmp_path / "x.json", EDGE), "x.json", rate=2, duration_s=30)
    assert (log.format, log.rate, log.duration_s) == ("llmperf", 2, 30)
    assert list(log.requests["failed"]) == [False, False, False, True]
    assert list(log.requests["tpot_ms"]) == [100.0, 50.0, 0.0, 0.0]


def test_the_example_logs_are_what_the_script_writes(tmp_path):
    """examples/make_goodput_logs.py rewrites the committed logs byte for byte: nothing in them is hand-edited."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("make_goodput_logs", ROOT / "examples" / "make_goodput_logs.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    script.main(tmp_path)
    committed = sorted((ROOT / "examples" / "goodput-logs").iterdir())
    assert [p.name for p in committed] == sorted(p.name for p in tmp_path.iterdir())
    for path in committed:
        assert (tmp_path / path.name).read_bytes() == path.read_bytes(), path.name


def test_the_example_reads_globs_relative_to_the_scenario_and_spells_out_what_it_read():
    scenario = load_scenario(ROOT / "examples" / "goodput-2-benchmark-logs.yaml")
    files = scenario.normalised()["goodput"]["benchmarks"][0]["files"]
    assert files[0] == {"path": "goodput-logs/h100-vllm-rate-1.json", "rate": 1.0}
    assert [f["rate"] for f in files] == [1, 2, 3, 4, 6]
    # the scenario as read is complete: it reads the same files again, from the same folder, without globs
    again = parse_scenario(scenario.normalised())
    again._source = scenario._source
    assert compute(again).goodput.runs == compute(scenario).goodput.runs


# Bad logs: exit 2 naming the scenario's line, the entry, the log file and its field --------------------------------
def run_with_log(tmp_path: Path, content, entry="log.json") -> tuple[int, str]:
    log = tmp_path / "log.json"
    log.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"name: x\ngoodput:\n  benchmarks:\n    - name: b\n      files:\n        - {entry}\n",
                        encoding="utf-8")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(out)])
    assert not out.exists()
    return result.exit_code, result.output


def good_vllm(**changes) -> dict:
    data = {"request_rate": 2, "duration": 10.0, "completed": 2, "input_lens": [10, 20], "output_lens": [5, 6],
            "ttfts": [0.1, 0.2], "itls": [[0.01] * 4, [0.01] * 5], "latencies": [0.14, 0.25], "errors": ["", ""]}
    return data | changes


@pytest.mark.parametrize("content, entry, expected", [
    (json.dumps(good_vllm())[:120], "log.json", ["log.json: not valid JSON", "cut short"]),
    (good_vllm(ttfts=[0.1, "abc"]), "log.json", ["log.json: ttfts[1]: expected a number of seconds", '"abc"']),
    (good_vllm(ttfts=[0.1, True]), "log.json", ["ttfts[1]", "true"]),
    (good_vllm(output_lens=[5, 6.5]), "log.json", ["output_lens[1]: expected a whole number of tokens"]),
    (good_vllm(ttfts=[0.1]), "log.json", ["log.json: ttfts: 1 entries where errors has 2"]),
    (good_vllm(errors=["", 500]), "log.json", ["errors[1]: expected the error's text"]),
    (good_vllm(latencies=[0.14, 0.1]), "log.json", ["latencies[1]: 0.1 s ends before the first token"]),
    (good_vllm(completed=3), "log.json", ["log.json: completed: 3, but 2 requests have no error text"]),
    (good_vllm(duration=-1), "log.json", ["log.json: duration: expected a number of seconds"]),
    (good_vllm(request_rate="inf"), "log.json", ["request_rate: 'inf' is not a request rate", "rate beside"]),
    ({k: v for k, v in good_vllm().items() if k not in ("ttfts", "itls", "errors")}, "log.json",
     ["log.json: ttfts, errors: missing", "--save-result --save-detailed"]),
    ('{"duration": NaN}', "log.json", ["log.json: not valid JSON", "NaN"]),
    ("[1, 2]", "{path: log.json, rate: 1, duration_s: 5}", ["log.json: [0]: expected an object per request"]),
    ([{"ttft_s": 0.1, "end_to_end_latency_s": 0.2, "number_input_tokens": 5, "number_output_tokens": "x"}],
     "{path: log.json, rate: 1, duration_s: 5}", ["log.json: [0].number_output_tokens: expected a whole number"]),
    ([{"ttft_s": 0.1, "end_to_end_latency_s": 0.2, "number_input_tokens": 5, "number_output_tokens": 3}],
     "log.json", ["llmperf individual_responses file has no request rate", "give rate and duration_s"]),
    ({"results_num_completed_requests": 5, "name": "x_summary"}, "log.json", ["llmperf's summary"]),
    ('"text"', "log.json", ["expected a vLLM result", "found text"]),
    ({}, "logs/*.json", ["logs/*.json: no file matches"]),
    ({}, "missing.json", ["missing.json: no such file"]),
])
def test_a_bad_log_exits_2_naming_the_file_and_the_field(tmp_path, content, entry, expected):
    code, output = run_with_log(tmp_path, content, entry)
    assert code == 2, output
    assert "s.yaml:6: goodput.benchmarks.1.files.1: " in output, output
    for fragment in expected:
        assert fragment in output, output
    assert "Traceback" not in output


def test_two_runs_at_one_rate_or_one_file_twice_are_refused(tmp_path):
    for name in ("a.json", "b.json"):
        (tmp_path / name).write_text(json.dumps(good_vllm()), encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\ngoodput: {benchmarks: [{name: b, files: [a.json, b.json]}]}\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"b\.json: has the same request rate as a\.json \(2\)"):
        load_scenario(scenario)
    scenario.write_text("name: x\ngoodput: {benchmarks: [{name: b, files: [a.json, '*.json']}]}\n")
    with pytest.raises(ScenarioError, match=r"a\.json: listed twice \(file entries 1 and 2\)"):
        load_scenario(scenario)


def test_a_log_with_more_requests_than_a_workbook_holds_is_refused(tmp_path):
    n = logs.MAX_REQUESTS + 1
    code, output = run_with_log(tmp_path, good_vllm(completed=n, input_lens=[1] * n, output_lens=[1] * n,
                                                    ttfts=[0.1] * n, latencies=[0.1] * n, errors=[""] * n))
    assert code == 2
    assert "log.json: 50,001 requests; a workbook holds at most 50,000 requests in all" in output


def test_requests_over_several_files_are_counted_together(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "MAX_REQUESTS", 3)
    for rate in (1, 2):
        (tmp_path / f"r{rate}.json").write_text(json.dumps(good_vllm(request_rate=rate)), encoding="utf-8")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\ngoodput: {benchmarks: [{name: b, files: ['r*.json']}]}\n")
    with pytest.raises(ScenarioError, match=r"r2\.json: brings the requests to 4; a workbook holds at most 3"):
        load_scenario(scenario)


@pytest.mark.parametrize("goodput, expected", [
    ({"benchmarks": [{"name": "b", "files": ["x.json"], "gpu": "h300"}]},
     ["goodput.benchmarks.1.gpu", "unknown GPU 'h300'", "did you mean 'h200'"]),
    ({"servers": []}, ["goodput.servers", "at least 1 item"]),
    ({"benchmarks": [{"name": "b", "files": []}]}, ["goodput.benchmarks.1.files", "at least 1 item"]),
    ({"benchmarks": [{"name": "b", "files": [{"path": "x.json", "rate": 0}]}]},
     ["goodput.benchmarks.1.files.1.rate", "greater than or equal to 0.000001"]),
    ({"benchmarks": [{"name": "b", "files": [{"path": "x.json", "rate": 5e-324}]}]},
     ["goodput.benchmarks.1.files.1.rate", "value 5e-324 is not allowed", "greater than or equal to 0.000001"]),
    ({"slo": {"ttft_ms": 0}}, ["goodput.slo.ttft_ms", "value 0"]),
])
def test_bad_goodput_inputs_are_refused(goodput, expected):
    with pytest.raises(ScenarioError) as error:
        parse_scenario({"name": "x", "goodput": goodput})
    for fragment in expected:
        assert fragment in str(error.value)


@pytest.mark.parametrize("cost, completed, acceptable", [
    (0, 0.001, 0), (1e6, 0.001, 0.001), (1e6, 1e12, 1e12), (0, 1e12, 0.001)])
def test_servers_at_their_limits_stay_finite(cost, completed, acceptable):
    """Every server figure at its declared bound: the workbook, the HTML and the JSON still build."""
    import io
    import math

    from planner.output import results_json
    from planner.workbook import build
    server = {"name": "edge", "cost_per_hour": cost, "completed_per_hour": completed,
              "acceptable_per_hour": acceptable}
    results = compute(parse_scenario({"name": "x", "goodput": {"servers": [server, server]}}))
    for value in results.goodput.servers[0].values():
        assert not isinstance(value, float) or math.isfinite(value)
    assert json.loads(results_json(results))["headline"]["goodput_cheapest_server"] in ("edge", "no server has "
                                                                                                "acceptable requests")
    build(results, io.BytesIO())
    assert "<svg" in render_html(results, generated="x")


# Every number that reaches a chart or a sentence -----------------------------------------------------------------
def test_the_scenarios_least_rate_is_the_logs():
    from planner.inputs.goodput import MIN_RATE, BenchmarkFile
    assert MIN_RATE == logs.MIN_RATE == 1 / logs.MAX_SECONDS
    assert [m.ge for m in BenchmarkFile.model_fields["rate"].annotation.__args__[0].__metadata__[0].metadata
            if hasattr(m, "ge")] == [MIN_RATE]


def test_a_log_whose_request_rate_is_below_the_least_is_refused(tmp_path):
    code, output = run_with_log(tmp_path, good_vllm(request_rate=5e-324))
    assert code == 2
    assert ("s.yaml:6: goodput.benchmarks.1.files.1: log.json: request_rate: expected a request rate from 1e-06 to "
            "1e+09 requests per second, found 5e-324") in output


def test_runs_at_the_least_and_greatest_rates_and_without_output_tokens_give_a_summary(tmp_path):
    """A run at 1e-6 requests per second, one at 1e9, one whose requests all have zero output tokens (which gave
    TypeError in the cost sentence): the workbook, the HTML and its charts are made."""
    import re

    vllm_log(tmp_path / "slow.json", [(10, 5, 0.1, 0.5, "")], rate=logs.MIN_RATE, duration=1e6)
    vllm_log(tmp_path / "fast.json", [(10, 5, 0.1, 0.5, "")], rate=logs.MAX_RATE, duration=0.001)
    vllm_log(tmp_path / "none.json", [(10, 0, 0.1, 0.1, "")] * 3, rate=2)
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\ngoodput: {benchmarks: [{name: a, files: [slow.json, fast.json]}, "
                        "{name: b, files: [none.json]}]}\n")
    result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    page = (tmp_path / "out" / "x.html").read_text()
    assert "no acceptable output tokens" in page and not re.search(r"\b(?:inf|nan)\b", page)
    assert page.count("<svg") >= 4


@pytest.mark.parametrize("value", [5e-324, 1e-310, 1e-300, 0.3, 7, 1e15, 1e300, 1.7976931348623157e308, -1e308])
def test_chart_axes_take_any_finite_number(value):
    import re

    from planner.report import plot
    assert plot.nice_ticks(value)[0] == 0 and len(plot.nice_ticks(value)) <= 7
    chart = (plot.Chart("t", x_label="x").columns(["a", "b"], [("s", [value, value], plot.BLUE), ("t", [value, 1],
                                                  plot.GREY)], stacked=True, value_labels=lambda v: f"{v:.3g}")
             .line("l", [value, 0], plot.ORANGE, right=True).hline(value, "h"))
    numeric = plot.Chart("n").xy("r", [value, 1], [value, 2], plot.BLUE, markers=True).vline(value, "v")
    for svg in (str(chart.svg()), str(numeric.svg())):
        coordinates = re.findall(r' (?:x|y|x1|x2|y1|y2|cx|cy|height|width)="([^"]*)"', svg)
        assert all(len(c) < 12 and "inf" not in c and "nan" not in c for c in coordinates), svg


def test_a_log_missing_only_in_a_sweep_variant_is_refused_when_the_file_is_read(tmp_path):
    from tests.helpers import refused

    (tmp_path / "good.json").write_text(json.dumps(good_vllm()), encoding="utf-8")
    output, path = refused(tmp_path, "name: v\ngoodput:\n  benchmarks: [{name: b, files: [good.json]}]\nsweep:\n"
                                     "  goodput.benchmarks:\n    - [{name: b, files: [good.json]}]\n"
                                     "    - [{name: b, files: [missing.json]}]\n")
    assert output == (f"error: {path}:4: sweep variant [goodput.benchmarks=[{{'name': 'b', 'files': "
                      f"['missing.json']…]: goodput.benchmarks.1.files.1: missing.json: no such file\n")
    result = CliRunner().invoke(main, ["batch", path, "-o", str(tmp_path / "batch"), "-q"])
    assert result.exit_code == 1 and f"FAILED {path}: {path}:4: sweep variant [" in result.output
    assert sorted(p.name for p in (tmp_path / "batch").iterdir()) == ["index.html", "summary.xlsx"]


def test_a_log_glob_over_symbolic_link_loops_reads_each_file_once_and_a_large_one_stops(tmp_path, monkeypatch):
    from planner import globs

    for sub, rate in (("a", 1), ("b", 2)):
        (tmp_path / "runs" / sub).mkdir(parents=True)
        (tmp_path / "runs" / sub / "up").symlink_to("..")
        (tmp_path / "runs" / sub / f"r{rate}.json").write_text(json.dumps(good_vllm(request_rate=rate)))
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: x\ngoodput: {benchmarks: [{name: b, files: ['runs/**/*.json']}]}\n")
    loaded = load_scenario(scenario)
    assert [f.path for f in loaded.goodput.benchmarks[0].files] == ["runs/a/r1.json", "runs/b/r2.json"]
    monkeypatch.setattr(globs, "MAX_ENTRIES", 3)
    with pytest.raises(ScenarioError) as error:
        load_scenario(scenario)
    assert error.value.problems == [f"{scenario}:2: goodput.benchmarks.1.files.1: runs/**/*.json: the pattern looked "
                                    f"through more than 3 folder entries, the most one pattern may: name a smaller "
                                    f"folder, or fewer levels than **"]
