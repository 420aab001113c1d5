"""The Layouts table through the product (docs/method.md §10): the `search:` section, Narayanan et al.'s Table 1 as
reference layouts of scenarios, the worked 405B search of examples/layouts-1-405b-search.yaml, Hours reading the
cheapest layout's MFU, the Layouts sheet recalculated in LibreOffice and Gnumeric (also with η and the price edited
in a copy), and bad search inputs refused with their key and line."""

from __future__ import annotations

import re

import openpyxl
import pytest
from xlsxwriter.utility import xl_rowcol_to_cell

from planner.engine import compute
from planner.engine import layouts as lay
from planner.report import render_html
from planner.scenario import load_scenario
from planner.workbook import build
from planner.workbook import layouts as layouts_sheet
from tests.conftest import ROOT
from tests.helpers import catalog_cells, named, recalculated, refused, scenario_with, set_cells, sheet_cell

EXAMPLE = ROOT / "examples" / "layouts-1-405b-search.yaml"


@pytest.fixture(scope="session")
def worked():
    return compute(load_scenario(EXAMPLE))


# Narayanan et al. 2021, Table 1, as reference layouts given in full ----------------------------------------------
@pytest.mark.parametrize("h, layers, heads, t, p, v, b, batch, n, overlap, predicted", [
    (2304, 24, 24, 1, 1, 1, 16, 512, 32, True, 157),  # 1.7B
    (4096, 36, 32, 4, 1, 1, 16, 512, 128, True, 149),  # 7.5B
    (8192, 48, 64, 8, 2, 1, 4, 1536, 512, False, 135),  # 39B: above 18B, no DP overlap
    (12288, 80, 96, 8, 8, 2, 2, 2304, 1536, False, 148),  # 145B
    (25600, 128, 160, 8, 64, 1, 1, 3072, 3072, False, 153),  # 1T
])
def test_narayanan_table_1_as_reference_layouts(h, layers, heads, t, p, v, b, batch, n, overlap, predicted):
    """A GPT (GeLU MLP, multi-head attention, tied embeddings) on A100s at s = 2048, V = 51,200, full recompute, no
    FlashAttention, no sequence parallelism, ZeRO 0: the reference row's step time gives the paper's TFLOP/s per
    GPU, 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h)) / (N·T_step), to the digits §10's table shows."""
    gpt = {"layers": layers, "hidden": h, "heads": heads, "kv_heads": heads, "head_dim": h // heads, "ffn": 4 * h,
           "vocab": 51_200, "gated": False, "tied_embeddings": True}
    scenario = scenario_with(**{
        "model": "gpt", "catalog.models.gpt": gpt, "gpu": "a100-80gb", "memory.sequence_length": 2048,
        "search.gpus_max": n, "search.global_batch": batch, "search.flash_attention": False,
        "search.sequence_parallel": False, "search.dp_overlap": overlap,
        "search.layouts": [{"gpus": n, "tensor_parallel": t, "pipeline_parallel": p, "context_parallel": 1,
                            "micro_batch": b, "interleave": v, "zero": 0, "recompute": "full"}]})
    [row] = compute(scenario).layouts.search.references
    assert row["searched"] == [] and row["valid"]
    flops = 96 * batch * 2048 * layers * h**2 * (1 + 2048 / (6 * h) + 51_200 / (16 * layers * h))
    assert round(flops / (n * row["step_time_s"]) / 1e12) == predicted


# The worked 405B search ---------------------------------------------------------------------------------------------
def test_the_worked_search_counts_cheapest_and_fastest(worked):
    found = worked.layouts.search
    assert (found.valid_layouts, found.fitting_layouts, found.deadline_layouts) == (149_008, 27_305, 181)
    best = found.cheapest[0]
    assert (best["gpus"], best["tensor_parallel"], best["pipeline_parallel"], best["context_parallel"],
            best["data_parallel"], best["micro_batch"], best["interleave"], best["zero"], best["recompute"]) == \
        (14_336, 8, 14, 2, 64, 1, 9, 2, "none")
    assert (round(best["memory_gb"], 1), round(best["megatron_mfu"], 3), round(best["mfu"], 3),
            round(best["days"], 1), round(best["cost"] / 1e6, 2)) == (47.8, 0.366, 0.339, 91.4, 62.89)
    fastest = found.front[0]
    assert (fastest["gpus"], fastest["tensor_parallel"], fastest["pipeline_parallel"], fastest["context_parallel"],
            fastest["data_parallel"], fastest["interleave"], fastest["zero"]) == (16_384, 8, 8, 2, 128, 16, 2)
    assert (round(fastest["memory_gb"], 1), round(fastest["days"], 1), round(fastest["cost"] / 1e6, 2)) == \
        (51.9, 82.0, 64.51)


def test_meta_reference_does_not_fit_and_says_why_and_blank_fields_are_searched(worked):
    meta, searched = worked.to_json()["tables"]["layouts"]["references"]
    assert (round(meta["days"], 1), round(meta["cost"] / 1e6, 2), meta["fits"]) == (83.9, 66.01, False)
    assert meta["reason"] == "needs 88.7 GB per GPU, 81.6 GB usable at 95 % headroom"
    # 16,384 GPUs at t = 8, the rest searched: the fastest fitting layout of those, the front's fastest
    assert searched["fits"] and searched["searched"] == ["pipeline_parallel", "context_parallel", "micro_batch",
                                                         "interleave", "zero", "recompute"]
    assert (searched["pipeline_parallel"], searched["context_parallel"], searched["interleave"]) == (8, 2, 16)
    for key in ("step_time_s", "mfu", "memory_gb", "fits", "reason", "days", "cost"):
        assert key in meta


def test_hours_takes_the_cheapest_layouts_mfu_and_gives_its_gpu_hours(worked):
    """hours.mfu: layout: 6·Ψ·T at the cheapest layout's planner MFU on its GPUs is its GPU-hours and cost."""
    best = worked.layouts.search.cheapest[0]
    assert worked.headline["hours_mfu_used"] == best["mfu"]
    assert worked.headline["hours_gpu_hours"] == pytest.approx(best["gpu_hours"], rel=1e-12)
    assert worked.headline["hours_cost"] == pytest.approx(best["cost"], rel=1e-12)
    assert worked.headline["hours_days"] == pytest.approx(best["days"], rel=1e-12)  # hours.gpus is its 14,336
    number = compute(scenario_with(EXAMPLE, **{"hours.mfu": 0.4}))
    assert number.headline["hours_mfu_used"] == 0.4  # a number stays a number


def test_the_tensor_parallel_term_by_hand(worked):
    """The cheapest layout's TP time per micro-batch: t = 8, L/p = 126/14 = 9 layers, tok = 1 · 8192 / 2 = 4096,
    no recompute: 4 all-reduces · 9 · (2·7/8 · 2 bytes · 4096 · 16,384 / (450 GB/s · 0.65) + 10 µs)."""
    best = worked.layouts.search.cheapest[0]
    q = worked.layouts.problem
    x = lay.Layout(8, 14, 2, 64, 1, 9, 2, lay.NONE)
    by_hand = 4 * 9 * (2 * 7 / 8 * 2 * 4096 * 16_384 / (450e9 * 0.65) + 10e-6)
    assert by_hand == pytest.approx(0.029268, rel=1e-4)
    assert lay.step_terms(q, x)["tp"] == pytest.approx(by_hand, rel=1e-12)
    assert best["share_tp"] == pytest.approx(by_hand * best["micro_batches"] / best["step_time_s"], rel=1e-12)


def test_no_search_no_layouts_table(worked):
    assert "layouts" not in compute(scenario_with()).tables
    assert "layouts" in worked.tables


def test_the_html_shows_the_front_and_the_reasons(worked):
    html = render_html(worked, generated="2026-12-01")
    assert "The cheapest: 14,336 GPUs at 8/14/2/64 (t/p/c/d), b 1, v 9, ZeRO-2, no recompute" in html
    assert "Days against cost: the front of the layout search" in html
    assert "needs 88.7 GB per GPU, 81.6 GB usable at 95 % headroom" in html


# The Layouts sheet ----------------------------------------------------------------------------------------------------
def test_the_sheet_comes_after_sensitivity_and_before_catalog(tmp_path, worked):
    """The table order, the finance pages (Budget, Cost, GPUs) moved up behind the Cover (issue 43)."""
    path = tmp_path / "layouts.xlsx"
    build(worked, str(path))
    names = openpyxl.load_workbook(path, read_only=True).sheetnames
    assert names.index("Layouts") == names.index("Sensitivity") + 1 and names[names.index("Layouts") + 1] == "Catalog"
    assert names[1:4] == ["Budget", "Cost", "GPUs"]


def shown_rows(path) -> dict[int, tuple]:
    """The Layouts sheet's layout rows as written: {0-based row: (N, t, p, c, b, v, ZeRO, recompute)}."""
    sheet = openpyxl.load_workbook(path)["Layouts"]
    return {cell.row - 1: tuple(c.value for c in sheet[cell.row][1:1 + len(layouts_sheet.INTEGERS)])
            for cell in sheet["A"] if re.fullmatch(r"(Cheapest|Front|Reference) \d+", str(cell.value))}


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_the_sheet_recalculates_and_follows_eta_and_the_price(app, request, tmp_path, worked):
    """The worked search's workbook recalculated equals the engine in every formula cell. In a copy with the H100's
    η and price edited on Catalog, every shown layout's row gives what the engine gives for that layout in the
    changed scenario (the search itself stays in the engine: the rows keep their integers), and Hours, reading the
    cheapest row's MFU, follows it."""
    spreadsheet = request.getfixturevalue(app)
    original = tmp_path / "layouts.xlsx"
    book = build(worked, str(original))
    copy = tmp_path / "edited.xlsx"
    set_cells(original, copy, catalog_cells(original, [("catalog_gpu", "h100-sxm", "gemm_efficiency", 0.55),
                                                       ("catalog_gpu", "h100-sxm", "price_per_hour", 2.5)]))
    before = recalculated(spreadsheet, [original])[0]
    [after] = spreadsheet.recalculate([copy])
    q = lay.problem(scenario_with(EXAMPLE, **{"catalog.gpus.h100-sxm.gemm_efficiency": 0.55,
                                              "catalog.gpus.h100-sxm.price_per_hour": 2.5}))
    column = {key: 1 + len(layouts_sheet.INTEGERS) + i for i, (key, *_) in enumerate(layouts_sheet.COLUMNS)}
    rows = shown_rows(original)
    found = worked.layouts.search
    assert len(rows) == 10 + len(found.front) + 2  # the ten cheapest, the front, the two references
    for row, (n, t, p, c, b, v, z, recompute) in rows.items():
        x = lay.Layout(t, p, c, n // (t * p * c), b, v, z, lay.RECOMPUTE.index(recompute))
        expected = lay.evaluate(q, x)
        for key, engine_key in (("step", "step_s"), ("mfu", "mfu"), ("memory_gb", "total_bytes"),
                                ("days", "days"), ("cost", "cost"), ("fits", "fits")):
            value = after[("Layouts", xl_rowcol_to_cell(row, column[key]))]
            want = expected[engine_key] / (1e9 if key == "memory_gb" else 1)
            assert value == (bool(want) if key == "fits" else pytest.approx(float(want), rel=1e-9)), (row, key)
    cheapest = lay.evaluate(q, lay.Layout(8, 14, 2, 64, 1, 9, 2, lay.NONE))
    assert named(after, book, "search_cheapest_cost") == pytest.approx(float(cheapest["cost"]), rel=1e-9)
    assert named(after, book, "search_cheapest_cost") != pytest.approx(named(before, book, "search_cheapest_cost"))
    assert named(after, book, "hours_cost") == pytest.approx(float(cheapest["cost"]), rel=1e-9)


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_a_blank_text_zero_or_indivisible_layout_integer_makes_its_row_n_a_and_the_check_false(app, request,
                                                                                                  tmp_path, worked):
    """Typed over a shown layout's integers (pasting skips validation): a blank t, the text "eight", ZeRO 0 → 4 and
    N = 1,000 (not a multiple of t·p·c) each make that row's every term "n/a", never an error value, and turn the
    check search_rows_valid FALSE; the other rows keep their numbers."""
    spreadsheet = request.getfixturevalue(app)
    original = tmp_path / "layouts.xlsx"
    book = build(worked, str(original))
    rows = sorted(shown_rows(original))
    columns = {key: 1 + i for i, (key, _) in enumerate(layouts_sheet.INTEGERS)}
    edits = [("tensor_parallel", None), ("tensor_parallel", "eight"), ("zero", 4), ("gpus", 1000)]
    copies = []
    for i, (key, value) in enumerate(edits):
        copies.append(tmp_path / f"bad-{i}.xlsx")
        set_cells(original, copies[-1], {("Layouts", xl_rowcol_to_cell(rows[1], columns[key])): value})
    step = 1 + len(layouts_sheet.INTEGERS) + [k for k, *_ in layouts_sheet.COLUMNS].index("step")
    for (key, value), values in zip(edits, spreadsheet.recalculate(copies)):
        errors = [(cell, v) for cell, v in values.items() if isinstance(v, str) and v.startswith(("#", "Err:"))]
        assert errors == [], (key, value, errors[:5])
        assert values[("Layouts", xl_rowcol_to_cell(rows[1], step))] == "n/a", (key, value)
        assert isinstance(values[("Layouts", xl_rowcol_to_cell(rows[0], step))], float), (key, value)
        assert named(values, book, "search_rows_valid") is False, (key, value)
        assert values[("Checks", sheet_cell(book.sheets["Checks"], "all"))] is False, (key, value)


@pytest.mark.parametrize("search, fragment", [
    ("{layouts: [{tensor_parallel: 3}]}", "search.layouts.1.tensor_parallel: value 3 is not allowed: t = 3 does "
                                          "not divide the 32 heads"),
    ("{global_batch: 1000, layouts: [{gpus: 1024, tensor_parallel: 8, pipeline_parallel: 4, context_parallel: 1, "
     "micro_batch: 2}]}", "search.global_batch: value 1000 is not allowed: reference layout 1 has d = 32 "
                          "data-parallel replicas of micro-batch 2: the global batch must be a multiple of d·b = 64"),
    ("{gpus_max: 4}", "search.gpus_max: value 4 is not allowed: a GPU budget of 4 is below one node of 8 h100-sxm "
                      "GPUs"),
    ("{layouts: [{gpus: 1000, tensor_parallel: 8, pipeline_parallel: 4, context_parallel: 1}]}",
     "search.layouts.1.gpus: 1,000 GPUs is not a multiple of t·p·c"),
    ("{layouts: [{recompute: sometimes}]}", "search.layouts.1.recompute: value 'sometimes' is not allowed"),
    ("{deadline: 120}", "search.deadline: unknown key; did you mean 'deadline_days'?"),
])
def test_bad_search_inputs_exit_2_naming_key_and_line(tmp_path, search, fragment):
    output, path = refused(tmp_path, f"name: x\nsearch: {search}\n")
    assert f"{path}:2: {fragment}" in output


def test_search_is_refused_for_moe_models_and_layout_mfu_needs_a_search(tmp_path):
    output, path = refused(tmp_path, "name: x\nmodel: mixtral-8x7b\nsearch: {}\n")
    assert f"{path}:3: search: the layout search covers dense models trained in BF16" in output
    assert "mixtral-8x7b is a mixture of experts" in output
    output, path = refused(tmp_path, "name: x\ntraining_precision: fp8\nsearch: {}\n")
    assert "training_precision is fp8" in output
    output, path = refused(tmp_path, "name: x\nhours: {mfu: layout}\n")
    assert f"{path}:2: hours.mfu: value 'layout' is not allowed: the word layout takes the layout search's" in output
    output, path = refused(tmp_path, "name: x\nhours: {mfu: layout}\nsearch: {deadline_days: 0.5}\n")
    assert (f"{path}:2: hours.mfu: value 'layout' is not allowed: the word layout needs a layout that fits and "
            "meets the deadline: no fitting layout finishes within 0.5 days") in output


FLAGGED = {  # every flag away from its default, and reference layouts through the recompute and ZeRO branches
    "no flash, no sequence parallelism, ZeRO-3 regathering": {
        "model": "llama-3.1-70b", "gpu": "a100-80gb", "search.gpus_max": 1024, "search.global_batch": 512,
        "search.flash_attention": False, "search.sequence_parallel": False, "search.tp_overlap": True,
        "search.dp_overlap": False, "search.grad_reduce_bytes": 4, "search.deadline_days": None,
        "search.layouts": [{"gpus": 512, "tensor_parallel": 4, "pipeline_parallel": 4, "context_parallel": 1,
                            "micro_batch": 2, "interleave": 2, "zero": 3, "recompute": "selective"},
                           {"gpus": 256, "tensor_parallel": 2, "recompute": "full"}]},
    "balanced stages, no regathering, on MI300X": {
        "gpu": "mi300x", "search.gpus_max": 512, "search.global_batch": 256, "search.fsdp_regather": False,
        "search.balanced_stages": True, "search.deadline_days": 30, "memory.sequence_length": 32768,
        "search.layouts": [{"gpus": 64, "tensor_parallel": 8, "pipeline_parallel": 2, "context_parallel": 4,
                            "micro_batch": 1, "interleave": 1, "zero": 1, "recompute": "full"}]},
}


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_every_flag_and_recompute_branch_recalculates_to_the_engine(app, request, tmp_path):
    """The sheet's formulas against the engine where the worked search does not go: no FlashAttention or sequence
    parallelism, overlapped TP, exposed DP, FP32 reduces, ZeRO-3 with and without regathering, balanced stages,
    selective and full recompute, context parallelism across nodes, no deadline."""
    paths = []
    for i, changes in enumerate(FLAGGED.values()):
        paths.append(tmp_path / f"flagged-{i}.xlsx")
        build(compute(scenario_with(**changes)), str(paths[-1]))
    recalculated(request.getfixturevalue(app), paths)
