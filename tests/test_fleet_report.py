"""The Fleet's HTML section and JSON: sentences that say which mode wins and why, in the worked examples' numbers,
both charts, and `tables.fleet` with its candidates (a reason for those that cannot meet the SLO), Pareto rows and
day."""

from __future__ import annotations

import re

import json

import pytest

from planner.engine import compute
from planner.report import fleet as report
from planner.report import render_html
from planner.scenario import load_scenario
from tests.conftest import ROOT

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone


def results_of(stem: str):
    return compute(load_scenario(ROOT / "examples" / f"{stem}.yaml"))


@pytest.fixture(scope="module")
def example_2a():
    return results_of("fleet-2a-70b-fp8-chat")


@pytest.fixture(scope="module")
def example_2b():
    return results_of("fleet-2b-70b-fp8-retrieval")


def test_aggregated_wins_the_chat_shape(example_2a):
    why = report.why_the_mode_wins(example_2a.fleet, "$")
    # T_pre(136)/cycle(136) = 21.566/202.150 on the H200 pair: prefill is a small share, so a pool apart only adds
    assert why == ("Aggregated wins: prefill takes 10.7 % of a replica's time here (T_pre/cycle at B 136), so "
                   "separating it only adds a pool ($45.00 against $47.50 per hour).")


def test_disaggregated_wins_the_retrieval_shape(example_2b):
    why = report.why_the_mode_wins(example_2b.fleet, "$")
    assert why.startswith("Disaggregated wins: on an aggregated replica prefill takes 61.0 % of the time")
    assert "runs a batch of 9 where a decode replica runs 54" in why
    assert "$28.00 per hour against $32.00 together" in why and "31.6 tokens/s per user against 20.8" in why


def test_findings_name_the_cheapest_and_the_day():
    results = results_of("fleet-4-8b-office-day")
    sentences = report.findings(results)
    assert any(s.startswith("The cheapest: aggregated, 27 replicas of 1 GPU (h100-sxm, bf16/bf16) at B 52; 30 GPUs "
                            "with spares, $60.00 per hour") for s in sentences)
    day = next(s for s in sentences if s.startswith("Over the office-assistant day"))
    assert "720 GPU-hours of which 62.3 % are idle, for $1,440.00" in day
    assert "337 GPU-hours for $674.00" in day
    # §11's $3.8267 and $1.8187, a little lower under §14.6's T_first (tests/test_fleet_engine.py works them)
    assert re.search(r"\$3\.8[0-2]\d\d against \$1\.818\d per thousand acceptable requests \(2\.1×\)", day)
    assert sentences[0].startswith("The search sized 1 configuration of llama-3.1-8b")  # before: "1 configurations"
    assert sentences[0].endswith(": 1 meets it.")


def test_no_configuration_meets(tmp_path):
    scenario = tmp_path / "x.yaml"
    scenario.write_text("name: x\ngoodput: {slo: {ttft_ms: 10}}\nfleet: {gpus: [h100-sxm]}\n", encoding="utf-8")
    results = compute(load_scenario(scenario))
    sentences = report.findings(results)
    assert sentences[-1] == ("No configuration meets the SLO, so there is no fleet to show: 20 configurations cannot "
                             "meet it (20 TTFT not reachable).")
    assert report.charts(results) == {}
    assert "No configuration meets the SLO" in render_html(results, generated="2026-12-02")


def test_charts_and_section(example_2a):
    charts = report.charts(example_2a)
    assert set(charts) == {"pareto"} and charts["pareto"].startswith("<svg")
    page = render_html(example_2a, generated="2026-12-02")
    assert "The Pareto front: tokens/s per GPU against tokens/s per user" in page and page.count("<svg") >= 2
    day = report.charts(results_of("fleet-4-8b-office-day"))
    assert set(day) == {"pareto", "day"}


def test_json_tables(example_2a):
    table = json.loads(json.dumps(example_2a.to_json()))["tables"]["fleet"]
    assert len(table["candidates"]) == 40 and len(table["pareto"]) == 24 and table["day"] == []
    first = table["candidates"][0]
    assert (first["mode"], first["gpu"], first["tensor_parallel"], first["batch"], first["reason"]) == \
        ("aggregated", "h200", 2, 136, None)
    assert [row["position"] for row in table["pareto"]] == list(range(1, 25))
    deepseek = results_of("fleet-3-deepseek-v3-fp8").to_json()["tables"]["fleet"]["candidates"]
    assert sum(row["reason"] == "does not fit" for row in deepseek) == 90
    assert all(row["gpus"] is None for row in deepseek if row["reason"])


def test_a_calibrated_fleet_says_which_gpu_reads_the_fit():
    """examples/fleet-5: the H100's fitted efficiencies apply to its candidates only, and the findings say so beside
    the inputs the H200 keeps (η_c 50 %, η_m 70 %, τ 0 ms)."""
    said = " ".join(report.findings(compute(load_scenario(ROOT / "examples" / "fleet-5-8b-calibrated-h100.yaml"))))
    assert "The h100-sxm candidates use the efficiencies fitted from the benchmark “h100 roofline”" in said
    assert "the other GPUs keep the inputs (50 %, 70 %, 0 ms)" in said
    assert "The cheapest: aggregated, 2 replicas of 1 GPU (h200, bf16/bf16) at B 64" in said


def test_the_printed_fleet_sheet_is_its_summary_and_says_why_it_has_no_day(tmp_path):
    """Example 1's 100 configurations stay on screen below the answer, but the Fleet prints its summary block (the
    demand and the SLO, the answer) and not the configurations' table (issue 43 item 5: before, they ran over 37
    printed pages). Example 1 has a configuration that meets the SLO and no profile: its day says fleet.profile is
    none (before: "no configuration meets the SLO")."""
    import openpyxl

    from planner.workbook import build
    path = tmp_path / "fleet-1.xlsx"
    build(results_of("fleet-1-8b-five-gpus"), str(path))
    sheet = openpyxl.load_workbook(path)["Fleet"]
    texts = {cell.row: cell.value for row in sheet.iter_rows(max_col=1) for cell in row if cell.value}
    section = next(r for r, text in texts.items() if str(text).startswith("Every configuration, cheapest first"))
    answer = next(r for r, text in texts.items() if str(text).startswith("The answer: the cheapest"))
    heading = next(r for r in range(section + 1, section + 4) if sheet.cell(r, 2).value == "Mode")
    printed = [area.split("!")[1].replace("$", "") for area in sheet.print_area.split(",")]
    last_printed = max(int("".join(ch for ch in area.split(":")[1] if ch.isdigit())) for area in printed)
    first_printed = min(int("".join(ch for ch in area.split(":")[0] if ch.isdigit())) for area in printed)
    assert first_printed < answer < last_printed < section, printed
    assert sheet.print_title_rows.replace("$", "") == "1:2"  # the sheet's titles on every page
    assert max(r for r, text in texts.items() if isinstance(text, int)) - heading == 100  # rows 1 … 100 below it
    assert "No day: fleet.profile is none (the peak hour only)." in texts.values()
