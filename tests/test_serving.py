"""The Serving table (docs/method.md §6) end to end: the worked table's three cases by hand, a concurrency row by
hand, the workbook recalculated in LibreOffice with inputs edited in copies, Crossover's roofline MFU, calibration
from the benchmark logs, and bad serving inputs refused with their key and line."""

from __future__ import annotations

import pytest

from planner.engine import compute
from planner.report import render_html
from planner.scenario import load_scenario
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import build_in_memory, named, recalculated, refused, scenario_with, set_cells

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

EXAMPLES = {key: ROOT / "examples" / f"serving-{key}.yaml" for key in (
    "1-8b-bf16-one-h100", "2-70b-bf16-four-h100", "3-70b-fp8-two-h100", "4-405b-fp8-eight-h200",
    "5-calibrated-from-benchmark-logs")}
# docs/method.md §6's worked table: W_g GB, KV_g B/token, B_max, TTFT ms, TPOT ms at B = 1, 32 and B_max, tokens/s
# per GPU and cost per million at B_max, each to the digits the table shows
WORKED = {
    "1-8b-bf16-one-h100": (16.06, 131_072, 52, 64.4, 6.69, 15.56, 21.28, 2_382, 0.233),
    "2-70b-bf16-four-h100": (35.28, 81_920, 54, 165.9, 16.29, 22.10, 26.23, 488, 1.139),
    "3-70b-fp8-two-h100": (35.28, 81_920, 54, 159.8, 16.28, 22.01, 26.07, 983, 0.565),
}


def shown(values) -> tuple:
    weights, kv, b_max, ttft, single, at_32, at_max, tokens, cost = values
    return (round(weights, 2), kv, b_max, round(ttft, 1), round(single, 2), round(at_32, 2), round(at_max, 2),
            round(tokens), round(cost, 3))


@pytest.mark.parametrize("case", list(WORKED))
def test_the_worked_table_reproduces_in_the_engine(case):
    results = compute(load_scenario(EXAMPLES[case]))
    s, h = results.serving.scalars, results.headline
    assert shown((s["weights_gb"], h["serving_kv_bytes_per_token"], h["serving_max_concurrency"],
                  h["serving_ttft_ms"], h["serving_tpot_ms_single"], h["serving_tpot_ms"],
                  h["serving_tpot_ms_at_max"], h["serving_tokens_per_s_per_gpu_at_max"],
                  h["serving_cost_per_million_tokens_at_max"])) == WORKED[case]


def test_the_8b_case_by_hand():
    """docs/method.md §6, 8B on one H100: pool = 72e9 − 16.06e9 = 55.94 GB; a sequence 8,192 · 131,072 bytes =
    1.074 GB → 52; TTFT (30.74e12 + 1.10e12) / 494.5e12; TPOT(52) = (15.01e9 + 52 · 5,120 · 131,072) / 2.345e12."""
    h = compute(load_scenario(EXAMPLES["1-8b-bf16-one-h100"])).headline
    psi_mm = 8_030_261_248 - 128_256 * 4096  # 7,504,924,672
    pool = 80e9 * 0.9 - 2 * 8_030_261_248
    assert h["serving_max_concurrency"] == int(pool / (8192 * 131_072)) == 52
    flops = 2 * psi_mm * 2048 + 32 * 2048 ** 2 * (2 * 32 * 128)
    assert h["serving_ttft_ms"] == pytest.approx(flops / (989e12 * 0.5) * 1000)
    tpot_52 = (2 * psi_mm + 52 * (2048 + 6144 / 2) * 131_072) / (3.35e12 * 0.7)
    assert h["serving_tpot_ms_at_max"] == pytest.approx(tpot_52 * 1000)
    prefill_52 = 52 * flops / (989e12 * 0.5)  # compute-bound: 3.35 s
    cycle = prefill_52 + 6144 * tpot_52  # 134.1 s
    assert h["serving_tokens_per_s_per_gpu_at_max"] == pytest.approx(52 * 6144 / cycle)
    assert h["serving_cost_per_million_tokens_at_max"] == pytest.approx(2.00 * 1e6 / (3600 * 52 * 6144 / cycle))


def test_a_concurrency_row_by_hand():
    """The table's B = 8 row of the 8B case: decode memory-bound, (2·Ψ_mm + 8 · 5,120 · 131,072) / 2.345e12."""
    rows = compute(load_scenario(EXAMPLES["1-8b-bf16-one-h100"])).serving.rows
    psi_mm = 8_030_261_248 - 128_256 * 4096
    row = next(r for r in rows if r["batch"] == 8)
    tpot = (2 * psi_mm + 8 * 5120 * 131_072) / (3.35e12 * 0.7)
    prefill = 8 * (2 * psi_mm * 2048 + 32 * 2048 ** 2 * 8192) / (989e12 * 0.5)
    assert row["tpot_ms"] == pytest.approx(tpot * 1000)
    assert row["tokens_per_s_per_gpu"] == pytest.approx(8 * 6144 / (prefill + 6144 * tpot))
    assert row["kv_gb"] == pytest.approx(8 * 8192 * 131_072 / 1e9) and row["fits"] is True
    # B = 1, 2, 4, …, 32 below B_max = 52, then 52; the users (32) are shown once, in their power-of-two row
    assert [r["batch"] for r in rows if r["batch"] != ""] == [1, 2, 4, 8, 16, 32, 52]


def test_users_beyond_b_max_are_computed_and_fail_their_check():
    results = compute(scenario_with(**{"serving.users": 100}))
    assert results.headline["serving_fits"] is False and results.checks["serving_users_fit"] is False
    assert results.headline["serving_tpot_ms"] > results.headline["serving_tpot_ms_at_max"]
    assert [r["batch"] for r in results.serving.rows if r["batch"] != ""][-2:] == [52, 100]


def test_crossover_roofline_mfu_turns_gpu_hours_into_tokens_over_tokens_per_second():
    """With serving_mfu roofline, serving GPU-hours a day = D / (3600 · TokS at the users): 2·Ψ cancels."""
    results = compute(scenario_with(**{"crossover.serving_mfu": "roofline"}))
    tokens_a_day, tok_s = 1e11, results.headline["serving_tokens_per_s_per_gpu"]
    assert results.crossover.scalars["serving_gpu_hours_per_day"] == pytest.approx(tokens_a_day / (3600 * tok_s))
    assert results.headline["crossover_serving_mfu_used"] == results.headline["serving_mfu"]


def test_calibration_from_the_benchmark_logs_recovers_the_measurement():
    """Each run's implied η_m, put back into the decode step at its mean concurrency, gives its measured median
    TPOT (decode memory-bound on the toy logs); the prediction uses the run's own mean lengths."""
    scenario = load_scenario(EXAMPLES["5-calibrated-from-benchmark-logs"])
    results = compute(scenario)
    runs = results.serving.calibration
    assert len(runs) == 5 and all(r["gpu"] == "h100-sxm" for r in runs)
    requests = scenario.external("goodput").requests
    psi_mm = 8_030_261_248 - 128_256 * 4096
    for run in runs:
        done = requests[(requests.run == run["run"]) & ~requests.failed]
        b = done.latency_s.sum() / next(r for r in results.goodput.runs if r["run"] == run["run"])["duration_s"]
        assert run["mean_concurrency"] == pytest.approx(b)
        context = done.input_tokens.mean() + done.output_tokens.mean() / 2
        step_bytes = 2 * psi_mm + b * context * 131_072
        assert step_bytes / (3.35e12 * run["implied_bandwidth_efficiency"]) * 1000 == pytest.approx(
            run["measured_tpot_ms"])


def test_the_html_shows_the_worked_figures():
    html = render_html(compute(load_scenario(EXAMPLES["1-8b-bf16-one-h100"])), generated="2026-12-01")
    assert "52 sequences of 8,192 tokens fit" in html and "first token in 64.4 ms" in html
    assert "2,382 tokens per second per GPU, $0.233 per million output tokens" in html
    assert "16.1 GB of weights and 128 KiB of KV cache per token per GPU" in html


@pytest.mark.spreadsheet
def test_the_sheet_recalculates_to_the_engine_and_follows_its_inputs(libreoffice, tmp_path):
    """The 8B case and copies with the GPU, the precision and the users changed, recalculated in LibreOffice."""
    example = EXAMPLES["1-8b-bf16-one-h100"]
    original = tmp_path / "serving.xlsx"
    book = build(compute(load_scenario(example)), str(original))
    changes = {"h200": ({"gpu": "h200"}, {"gpu": "h200"}),
               "fp8": ({"serving_weight_precision": "fp8", "serving_kv_precision": "fp8"},
                       {"serving.weight_precision": "fp8", "serving.kv_precision": "fp8"}),
               "100 users, t = 2": ({"serving_users": 100, "serving_tensor_parallel": 2},
                                    {"serving.users": 100, "serving.tensor_parallel": 2})}
    copies = []
    for i, (cells, _) in enumerate(changes.values()):
        copies.append(tmp_path / f"changed-{i}.xlsx")
        set_cells(original, copies[-1], cells)
    outputs = recalculated(libreoffice, [original] + copies, [None] + [
        build_in_memory(scenario_with(example, **keys), like=copy) for copy, (_, keys) in zip(
            copies, changes.values())])
    # by hand: FP8 weights halve W_g (8.03 GB) and FP8 KV halves KV_g (65,536 bytes): (72 − 8.03) / 0.537 → 119
    assert named(outputs[2], book, "serving_max_concurrency") == int((72e9 - 8_030_261_248) / (8192 * 65_536)) == 119


@pytest.mark.parametrize("serving, fragment", [
    ("{users: 0}", "serving.users: value 0 is not allowed"),
    ("{sequence_length: 4096, prompt_tokens: 4096}", "serving.prompt_tokens: value 4096 is not allowed: the prompt "
                                                     "must be shorter"),
    ("{tensor_parallel: 3}", "serving.tensor_parallel: value 3 is not allowed: tensor parallel 3 does not divide"),
    ("{tensor_parallel: 16}", "serving.tensor_parallel: value 16 is not allowed: Input should be less than or equal "
                              "to 8"),
    ("{weight_precision: fp6}", "serving.weight_precision: value 'fp6' is not allowed: unknown precision"),
    ("{compute_efficiency: 0}", "serving.compute_efficiency: value 0 is not allowed"),
    ("{memory_reserve: 0.95}", "serving.memory_reserve: value 0.95 is not allowed"),
    ("{overhead_ms: -1}", "serving.overhead_ms: value -1 is not allowed"),
    ("{prompt: 10}", "serving.prompt: unknown key; did you mean 'prompt_tokens'?"),
])
def test_bad_serving_inputs_exit_2_naming_key_and_line(tmp_path, serving, fragment):
    output, path = refused(tmp_path, f"name: x\nserving: {serving}\n")
    assert f"{path}:2: {fragment}" in output
