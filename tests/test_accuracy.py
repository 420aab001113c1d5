"""The public accuracy ledger (issue 44, item 2; planner/accuracy.py): the measurements file is complete and sourced,
a malformed row is refused naming file and line, a row becomes the §6 scenario it describes, the counts within the
bands are what they say, and the committed predictions and page are what the engine gives today."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import pytest

from planner import accuracy

REQUIRED = ["source", "source_date", "model", "gpu", "engine", "engine_version", "precision", "kv_precision", "t",
            "e", "d_a", "s", "o", "c", "R", "N", "metric", "statistic", "value", "unit", "notes"]  # the brief's list


@pytest.fixture(scope="module")
def measurements():
    return accuracy.read_measurements()


def test_the_measurements_parse_with_every_required_column(measurements):
    plain = pd.read_csv(accuracy.MEASUREMENTS)  # pandas alone reads it: a header and one measurement per row
    assert [c for c in REQUIRED if c not in plain.columns] == []
    assert len(plain) == len(measurements)
    assert plain["value"].dtype.kind == "f" and (plain["value"] > 0).all()


def test_every_row_names_its_source_and_date(measurements):
    assert (measurements["source"].str.strip() != "").all()
    assert (measurements["source_date"].str.strip() != "").all()
    # a repository source names its commit (40 hex digits)
    repo = measurements[measurements["source"].str.startswith("github ")]
    assert repo["source"].str.contains(r"@ [0-9a-f]{40}").all()


def test_at_least_40_rows_five_gpu_types_and_three_engines(measurements):
    assert len(measurements) >= 40
    assert measurements["gpu"].nunique() >= 5
    assert "B200" in set(measurements["gpu"])
    assert measurements["engine"].nunique() >= 3


def _copy_with(tmp_path, line: int, column: str, text: str):
    table = pd.read_csv(accuracy.MEASUREMENTS, dtype=str, keep_default_na=False)
    table.loc[line - 2, column] = text  # line 1 is the header
    path = tmp_path / "measurements.csv"
    table.to_csv(path, index=False)
    return path


@pytest.mark.parametrize("column, text, says", [
    ("value", "fast", "value is 'fast', not a number"),
    ("t", "0", "t is '0', not a whole number of at least 1"),
    ("source", "", "source is blank"),
    ("unit", "ms", "unit 'ms' does not go with metric output_throughput"),
])
def test_a_malformed_row_is_refused_naming_file_and_line(tmp_path, capsys, column, text, says):
    path = _copy_with(tmp_path, 7, column, text)
    assert accuracy.main([str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}, line 7: {says}" in err
    assert not (tmp_path / "predictions.csv").exists()


def test_a_row_with_a_field_too_many_is_refused_from_the_command_line(tmp_path):
    lines = accuracy.MEASUREMENTS.read_text(encoding="utf-8").splitlines()
    lines[4] += ",extra"
    path = tmp_path / "measurements.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "planner.accuracy", str(path)], capture_output=True, text=True)
    assert run.returncode == 2
    assert str(path) in run.stderr and "line 5" in run.stderr


def _row(**changes):
    row = {c: "" for c in accuracy.COLUMNS}
    row |= dict(id="1", source="hand", source_date="2026-12-07", model="llama-3.1-8b-instruct", gpu="H100",
                engine="vllm", precision="bf16", t="1", e="1", d_a="1", gpus="1", s="2048", o="6144",
                metric="output_throughput", statistic="run", value="1000", unit="tokens/s per GPU")
    return pd.Series(row | changes)


def test_a_row_is_predicted_by_the_method_worked_example():
    # docs/method.md §14, Example 7 (8B BF16 on one H100, s 2048, o 6144, with §14.2's overhead): cycle(52) 142.58 s,
    # so 52·6,144/142.58 = 2,240.8 tokens/s per GPU at B_max 52 (a run stating no concurrency is compared there);
    # Example 3 (s 2048, o 256): a median TTFT at c = 8 is compared with TTFT_med(8) = 96.69 ms
    table = accuracy.predictions(pd.DataFrame([
        _row(id="1"), _row(id="2", metric="ttft", statistic="median", unit="ms", c="8", o="256"),
        _row(id="3", unit="tokens/s total", gpus="1", c="52")]))
    assert table["predicted"][0] == pytest.approx(52 * 6144 / 142.58, abs=0.5)
    assert table["ratio"][0] == pytest.approx(2.2408, abs=0.0005)
    assert list(table["b_max"]) == [52, 185, 52]
    assert table["predicted"][1] == pytest.approx(96.69, abs=0.005)
    assert table["compared_with"][1] == "§14.4 median TTFT_med(c) at c = 8"
    assert table["predicted"][2] == pytest.approx(52 * 6144 / 142.58, abs=0.5)
    assert (table["status"] == accuracy.SCORED).all()
    assert list(table["engine_row"]) == ["vllm"] * 3  # vLLM on an H100: the vllm | any | any row, N as generic
    assert list(table["predicted_at_engine_row"]) == list(table["predicted"])


def test_the_itl_at_users_is_compared_with_a_tpot():
    # ITL(32) = cycle/o = T_pre(32)/o + TPOT(32): §6's compute-bound 32·64.39 ms and TPOT(32) 15.56 ms, each pass
    # with §14.2's τ_pass(32) = 0.126 + 0.032·32 + 0.0044·32 = 1.2908 ms
    table = accuracy.predictions(pd.DataFrame([_row(metric="tpot", statistic="median", unit="ms", c="32")]))
    assert table["predicted"][0] == pytest.approx(15.56 + 1.2908 + (32 * 64.39 + 1.2908) / 6144, abs=0.01)


def test_one_request_alone_is_compared_with_tpot_1_and_an_offline_batch_in_requests_per_second():
    # §6's TPOT at B = 1, 6.69 ms, plus τ_pass(1) 1.1544 ms (§14.2); at B_max 52 the 52 requests of 6,144 output
    # tokens finish at μ_r = 0.36471 requests/s (§14's Example 7)
    table = accuracy.predictions(pd.DataFrame([
        _row(id="1", metric="tpot", statistic="median", unit="ms", c="1"),
        _row(id="2", metric="request_throughput", unit="requests/s", c="52", value="0.5")]))
    assert table["predicted"][0] == pytest.approx(6.69 + 1.1544, abs=0.005)
    assert table["compared_with"][0] == "§6 TPOT(1) (one request alone)"
    assert table["predicted"][1] == pytest.approx(0.36471, abs=0.00001)
    assert table["ratio"][1] == pytest.approx(0.36471 / 0.5, abs=0.00002)


def test_rows_outside_the_catalog_or_todays_layouts_are_kept_without_a_prediction():
    table = accuracy.predictions(pd.DataFrame([
        _row(id="1", gpu="H20"), _row(id="2", precision="fp6"), _row(id="3", model="qwen3-235b-a22b"),
        _row(id="4", model="deepseek-r1", precision="fp8", t="1", e="8", d_a="8", gpus="8")]))
    assert list(table["status"]) == ["not on Catalog: GPU H20", "not on Catalog: precision fp6",
                                     "not on Catalog: model qwen3-235b-a22b",
                                     "layout not expressible today (e 8, d_a 8)"]
    assert table["predicted"].isna().all()


def test_the_summary_counts_the_bands():
    table = pd.DataFrame({"gpu": ["H100"] * 5, "status": [accuracy.SCORED] * 4 + ["not on Catalog: GPU X"],
                          "ratio": [1.0, 1.2, 0.8, 2.0, None]})
    [row] = accuracy.summary(table, ["gpu"]).to_dict("records")
    # ratios 0.8, 1.0, 1.2, 2.0: median 1.1; within ±15 % only 1.0; within ±25 % 0.8, 1.0 and 1.2
    assert row == {"gpu": "H100", "rows": 4, "median ratio": pytest.approx(1.1), "within ±15%": 1,
                   "within ±25%": 3}


def test_the_committed_ledger_is_what_the_engine_gives_today(measurements):
    """A method or Catalog change that moves a figure fails here until `python -m planner.accuracy` is rerun; so
    does planner/ledger_figures.py (the Catalog sheet's ledger table, the Serving sheet's and the HTML's citation)."""
    table = accuracy.predictions(measurements)
    assert accuracy.predictions_csv(table) == accuracy.PREDICTIONS.read_text(encoding="utf-8")
    assert accuracy.report(measurements, table) == accuracy.REPORT.read_text(encoding="utf-8")
    assert accuracy.figures_module(table) == accuracy.FIGURES.read_text(encoding="utf-8")


def test_a_ledger_whose_rows_are_all_on_the_catalog_says_it_lacks_nothing():
    measurements = pd.DataFrame([_row(id="1")])
    text = accuracy.report(measurements, accuracy.predictions(measurements))
    assert "What the Catalog lacks for these rows (the GPUs and precisions to add):\n\n- nothing:" in text


def test_an_engines_row_fitted_on_ledger_rows_is_scored_on_the_others(monkeypatch):
    """The mechanism (no fitted row ships): a vllm | h100-sxm | any row fitted on rows 1 and 2 puts them in sample;
    the held-out figures and the figure the workbook cites count row 3 only, and the page shows the halves apart."""
    from planner.model import engines

    given = dict(accuracy.ENGINES) | {("vllm", "h100-sxm", "any"): engines.EngineRow(
        "vllm", "h100-sxm", priors={"compute_efficiency": 0.4}, source="fitted in a test", fitted_on=(1, 2))}
    monkeypatch.setattr(accuracy, "ENGINES", engines.filled(given))
    rows = [_row(id="1"), _row(id="2", value="2000"), _row(id="3", value="1100"), _row(id="4", engine="trtllm")]
    table = accuracy.predictions(pd.DataFrame(rows))
    assert list(table["half"]) == [accuracy.FITTED, accuracy.FITTED, accuracy.HELD_OUT, accuracy.HELD_OUT]
    figures = accuracy.figures(table)
    words, held, *_, fitted = figures[("h100-sxm", "vllm")]
    assert (words, held, fitted) == ("H100 vLLM measurements", 1, 2)
    assert figures[("h100-sxm", "generic")][1] == 4  # the generic row is a documented default: every row
    text = accuracy.report(pd.DataFrame(rows), table)
    held_out = text.split("## Figures at the engines row that applies, held out")[1].split("In sample")[0]
    in_sample = text.split("In sample (the rows an engines row was fitted on, never counted above):")[1]
    assert "| H100 | vllm | vllm | 1 |" in held_out and "| H100 | vllm | vllm | 2 |" in in_sample.split("##")[0]


def test_a_fitted_row_without_a_held_out_measurement_warns(monkeypatch):
    """§14.7: an engines row fitted on every ledger measurement of its GPU and engine has no held-apart score: the
    Serving sheet says so instead of a figure, and the warning applies."""
    from planner.engine import compute, serving
    from planner.scenario import parse_scenario

    monkeypatch.setattr(serving, "LEDGER", {("h100-sxm", "vllm"): ("H100 vLLM measurements", 0, 0, 0, None, 17)})
    scenario = parse_scenario({"name": "x", "model": "llama-3.1-8b", "gpu": "h100-sxm", "serving": {"engine": "vllm"}})
    table = compute(scenario).serving
    assert table.scalars["ledger_figure"] == serving.NOT_HELD_OUT
    assert table.warnings["serving_engine_row_not_held_out"]


def test_the_serving_sheet_cites_the_ledger_for_the_gpu_and_engine_in_use():
    """docs/accuracy.md's held-out table: H100 vLLM, 17 rows, 0 within ±15 %, 2 within ±25 %, median 1.96; the
    generic row on H100 over every engine: 62 rows, 16 and 25; a GPU the ledger lacks says so."""
    from planner.engine import serving

    assert serving.ledger_figure("h100-sxm", "vllm")[1] == (
        "within ±15 % on 0 of 17 published H100 vLLM measurements (±25 %: 2; median predicted/measured 1.96; "
        "docs/accuracy.md)")
    assert serving.ledger_figure("h100-sxm", "generic")[1].startswith(
        "within ±15 % on 16 of 62 published H100 measurements of every engine, at the generic row (±25 %: 25;")
    assert serving.ledger_figure("a100-80gb", "vllm") == (0, serving.NO_LEDGER)


@pytest.mark.spreadsheet
@pytest.mark.parametrize("application", ["libreoffice", "gnumeric"])
def test_the_cited_figure_follows_the_gpu_and_engine_live(application, request, default_workbook, tmp_path):
    """The Serving sheet's citation is a lookup of Catalog's ledger table: the engine vllm on the default's H100 cites
    H100 vLLM's 0 of 17; an A100 has no published measurement; recalculated, every formula equals the engine."""
    from planner.engine.serving import NO_LEDGER
    from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

    app = request.getfixturevalue(application)
    vllm, a100 = tmp_path / "vllm.xlsx", tmp_path / "a100.xlsx"
    set_cells(default_workbook, vllm, {"serving_engine": "vllm"})
    set_cells(default_workbook, a100, {"gpu": "a100-80gb"})
    books = [build_in_memory(scenario_with(**{"serving.engine": "vllm"}), like=vllm),
             build_in_memory(scenario_with(gpu="a100-80gb"), like=a100)]
    values = recalculated(app, [vllm, a100], books)
    assert named(values[0], books[0], "serving_ledger_figure").startswith(
        "within ±15 % on 0 of 17 published H100 vLLM measurements")
    assert named(values[1], books[1], "serving_ledger_figure") == NO_LEDGER
