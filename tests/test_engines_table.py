"""METHOD.md §14.3 and §14.1: the engines table on Catalog (its shipped rows, filled cells and their sources, the
eight-level lookup with the word `any`), the serving inputs that a blank leaves to the row's prior, and §14.7's
checks on ids. Expected values are METHOD's own (its shipped rows and Example 6's row), not the code's."""

from __future__ import annotations

import pytest

from planner import shipped
from planner.engine import Tables
from planner.model import engines
from planner.scenario import ScenarioError, parse_scenario

GENERIC_ROW = {"compute_efficiency": 0.5, "bandwidth_efficiency": 0.7, "overhead_fixed_ms": 0.126,
               "overhead_per_layer_ms": 0.032, "overhead_per_sequence_ms": 0.0044, "overhead_per_moe_layer_ms": 0,
               "dispatch_ms_per_layer": 0.8, "prefill_token_budget": 8192}  # §14.3, "Rows shipped"


def serving(**scenario):
    return Tables(parse_scenario({"name": "engines", **scenario}).shown())["serving"].scalars


def test_the_shipped_rows_are_methods_five_and_every_row_is_complete_after_filling():
    assert [engines.label(k) for k in shipped.ENGINES] == [
        "generic | any | any", "vllm | any | any", "vllm | a100-80gb | any", "trtllm | any | any",
        "sglang | any | any"]
    assert shipped.ENGINES[("generic", "any", "any")].priors == GENERIC_ROW
    for row in shipped.ENGINES.values():
        assert engines.missing(row) == []
    a100 = shipped.ENGINES[("vllm", "a100-80gb", "any")]
    assert a100.priors == {**GENERIC_ROW, "prefill_token_budget": 2048}
    assert "δ from vllm | any | any" in a100.source  # the filled cell names its row
    assert "η_c, η_m, τ_0, τ_L, τ_seq, τ_moe from generic | any | any" in a100.source
    assert shipped.ENGINES[("trtllm", "any", "any")].source.startswith("from generic | any | any")


def test_filling_takes_the_first_row_that_gives_the_cell_never_one_itself_filled():
    rows = {("generic", "any", "any"): engines.EngineRow("generic", priors=dict(GENERIC_ROW)),
            ("generic", "h100-sxm", "any"): engines.EngineRow("generic", "h100-sxm",
                                                              priors={"bandwidth_efficiency": 0.8}),
            ("mine", "any", "any"): engines.EngineRow("mine", priors={"overhead_fixed_ms": 0.3}),
            ("mine", "h100-sxm", "fp8"): engines.EngineRow("mine", "h100-sxm", "fp8")}
    row = engines.filled(rows)[("mine", "h100-sxm", "fp8")]
    # (e, g, p) falls back to (e, g, any), (e, any, p), (e, any, any), then generic's (g, p), (g, any), (any, p) …
    assert row.value("overhead_fixed_ms") == 0.3 and row.value("bandwidth_efficiency") == 0.8
    assert row.value("compute_efficiency") == 0.5
    # (e, any, any) reaches generic only through generic | any | any: not generic | h100-sxm | any
    assert engines.filled(rows)[("mine", "any", "any")].value("bandwidth_efficiency") == 0.7


@pytest.mark.parametrize("engine, gpu, row", [
    ("vllm", "a100-80gb", "vllm | a100-80gb | any"),  # Example 6
    ("vllm", "h100-sxm", "vllm | any | any"),
    ("trtllm", "a100-80gb", "trtllm | any | any"),
    ("generic", "a100-80gb", "generic | any | any")])
def test_the_row_that_applies_is_the_first_of_eight_levels(engine, gpu, row):
    s = serving(gpu=gpu, serving={"engine": engine})
    assert s["engine_row"] == row
    assert s["prefill_token_budget_in"] == (2048 if row.startswith("vllm | a100") else 8192)


def test_a_blank_key_takes_the_prior_and_a_number_overrides_it():
    s = serving(serving={"compute_efficiency": 0.45, "overhead_per_layer_ms": 0.05})
    assert s["compute_efficiency_prior"] == 0.5 and s["compute_efficiency_in"] == 0.45
    assert s["compute_efficiency_used"] == 0.45  # no fit: the input in force
    assert s["overhead_per_layer_ms_prior"] == 0.032 and s["overhead_per_layer_ms_used"] == 0.05
    assert s["bandwidth_efficiency_in"] == 0.7 and s["dispatch_ms_per_layer_used"] == 0.8


def test_a_scenarios_engine_row_is_added_and_looked_up_first_with_its_blanks_from_generic():
    s = serving(serving={"engine": "mine"}, catalog={"engines": [
        {"engine": "mine", "gpu": "h100-sxm", "precision": "bf16", "bandwidth_efficiency": 0.8, "source": "a log"}]})
    assert s["engine_row"] == "mine | h100-sxm | bf16"
    assert s["bandwidth_efficiency_in"] == 0.8 and s["overhead_fixed_ms_in"] == 0.126
    assert s["engine_match_1"] == len(shipped.ENGINES) + 1 and s["engine_match_8"] == 1


@pytest.mark.parametrize("scenario, says", [
    ({"serving": {"engine": "nope"}}, "serving.engine"),
    ({"serving": {"prefill_token_budget": 0}}, "serving.prefill_token_budget"),
    ({"serving": {"overhead_fixed_ms": 1001}}, "serving.overhead_fixed_ms"),
    ({"serving": {"engine": "any"}}, "an engine id may not be the word any"),
    ({"catalog": {"gpus": {"any": {"memory_gb": 80, "peak_tflops": 1, "hbm_tbps": 1}}}}, "may not be the word any"),
    ({"catalog": {"engines": [{"engine": "v*"}]}}, "an engine id may not contain"),
    ({"catalog": {"engines": [{"engine": "mine", "gpu": "h100"}]}}, "catalog.engines"),
])
def test_bad_engine_input_names_the_key(scenario, says):
    with pytest.raises(ScenarioError, match=says.replace(".", r"\.").replace("*", r"\*")):
        parse_scenario({"name": "bad", **scenario}).shown()


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_a_catalog_id_any_or_with_a_wildcard_turns_its_check_false(app, request, default_workbook, default_book,
                                                                    tmp_path):
    """§14.7: a GPU id typed as Any (any case) or holding * on the Catalog sheet fails catalog_ids_plain in both
    applications; the untouched workbook passes it."""
    from helpers import UNCOMPARED, catalog_cells, named, recalculated, set_cells

    spreadsheet = request.getfixturevalue(app)
    copies = []
    for i, typed in enumerate(("Any", "h1*")):
        copy = tmp_path / f"ids-{i}.xlsx"
        set_cells(default_workbook, copy, catalog_cells(default_workbook, [("catalog_gpu", "", "ids", typed)]))
        copies.append(copy)
    found = recalculated(spreadsheet, [default_workbook, *copies], [default_book, UNCOMPARED, UNCOMPARED])
    assert [named(values, default_book, "ok_catalog_ids_plain") for values in found] == [True, False, False]
