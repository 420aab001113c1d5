"""The Crossover sheet recalculated in LibreOffice: the seed's walk-through as input-cell changes in one workbook,
zero traffic as "never", a number instead of a preset, presets added and overridden in Catalog. Each copy equals
the engine on the changed scenario in every formula cell, and the crossing days equal docs/method.md §3 by hand."""

from __future__ import annotations

import pytest

from planner.audit import audit, same
from planner.engine import compute
from planner.scenario import load_scenario
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import (build_in_memory, catalog_cells, expected_book, named, recalculated, saved_by_libreoffice,
                           scenario_from_workbook, scenario_with, set_cells, sheet_cell)

pytestmark = pytest.mark.spreadsheet

STEP_1 = ROOT / "examples" / "crossover-1-405b-popular-app.yaml"


# Each step of the seed's walk-through is one input-cell change in the step-1 workbook: (cells, scenario keys,
# crossing day in operations, in GPU-hours), by hand: 3·T / D with T = 15.6e12, then × serving MFU / 40 %.
WALKTHROUGH = {
    "pilot": ({"crossover_tokens_per_day": "pilot"}, {"crossover.tokens_per_day": "pilot"}, 468_000, 117_000),
    "team-assistant": ({"crossover_tokens_per_day": "team-assistant"},
                       {"crossover.tokens_per_day": "team-assistant"}, 46_800, 11_700),
    "product": ({"crossover_tokens_per_day": "product"}, {"crossover.tokens_per_day": "product"}, 4_680, 1_170),
    "global-app": ({"crossover_tokens_per_day": "global-app"}, {"crossover.tokens_per_day": "global-app"}, 46.8,
                   11.7),
    "serving MFU 5 %": ({"crossover_serving_mfu": 0.05}, {"crossover.serving_mfu": 0.05}, 468, 58.5),
    # beyond the seed: a number instead of a preset, recomputation's 4·T, a shorter horizon
    "2.5e11 tokens a day": ({"crossover_tokens_per_day": 2.5e11}, {"crossover.tokens_per_day": 2.5e11}, 187.2, 46.8),
    "recomputation": ({"hours_activation_recompute": True}, {"hours.activation_recompute": True}, 624, 156),
    "horizon 90 days": ({"crossover_horizon_days": 90}, {"crossover.horizon_days": 90}, 468, 117),
}


def test_the_seeds_crossover_walkthrough_is_one_cell_change_each(libreoffice, tmp_path):
    original = tmp_path / "crossover.xlsx"
    book = build(compute(load_scenario(STEP_1)), str(original))
    copies = []
    for i, (cells, _, _, _) in enumerate(WALKTHROUGH.values()):
        copy = tmp_path / f"step-{i}.xlsx"
        set_cells(original, copy, cells)
        copies.append(copy)
    outputs = recalculated(libreoffice, [original] + copies, [None] + [
        build_in_memory(scenario_with(STEP_1, **keys), like=copy) for copy, (_, keys, _, _) in zip(
            copies, WALKTHROUGH.values())])
    assert named(outputs[0], book, "crossover_day_flops") == pytest.approx(468, rel=1e-12)
    assert named(outputs[0], book, "crossover_day_gpu_hours") == pytest.approx(117, rel=1e-12)
    for values, (label, (_, _, operations, gpu_hours)) in zip(outputs[1:], WALKTHROUGH.items()):
        assert named(values, book, "crossover_day_flops") == pytest.approx(operations, rel=1e-12), label
        assert named(values, book, "crossover_day_gpu_hours") == pytest.approx(gpu_hours, rel=1e-12), label
    # the horizon rescales the table the charts read: its last day is the horizon
    values = outputs[list(WALKTHROUGH).index("horizon 90 days") + 1]
    place = build_in_memory(load_scenario(STEP_1)).sheets["Crossover"].places["day"]  # the table's Day column
    days = sorted(values[("Crossover", f"B{row + 1}")] for row in range(place.row, place.last_row + 1))
    assert max(days) == 90


def test_zero_traffic_is_never_in_the_sheet_the_cover_and_the_engine(libreoffice, tmp_path):
    """Typing 0 tokens a day, or 0 into a Catalog preset, gives the text "never", not #DIV/0!."""
    original = tmp_path / "crossover.xlsx"
    book = build(compute(load_scenario(STEP_1)), str(original))
    zero, preset = tmp_path / "zero.xlsx", tmp_path / "zero-preset.xlsx"
    set_cells(original, zero, {"crossover_tokens_per_day": 0})
    set_cells(original, preset, catalog_cells(original, [("catalog_traffic_preset", "pilot", "tokens_per_day", 0)]))
    outputs = recalculated(libreoffice, [zero, preset], [expected_book(zero), expected_book(preset)])
    for values in outputs:
        assert not [v for v in values.values() if isinstance(v, str) and v.startswith("#")]
    assert named(outputs[0], book, "crossover_day_flops") == "never"
    assert named(outputs[0], book, "crossover_day_gpu_hours") == "never"
    assert "never" in {v for (sheet, _), v in outputs[0].items() if sheet == "Cover"}
    assert same(True, named(outputs[0], book, "checks_all_pass"))  # no traffic is a valid plan
    engine = compute(scenario_with(STEP_1, **{"crossover.tokens_per_day": 0})).crossover.scalars
    assert (engine["day_flops"], engine["day_gpu_hours"]) == ("never", "never")
    # the zeroed pilot preset's row says never twice; the chosen popular-app still crosses on day 468
    row = [v for (sheet, _), v in sorted(outputs[1].items()) if sheet == "Crossover"]
    assert row.count("never") == 2
    assert named(outputs[1], book, "crossover_day_flops") == pytest.approx(468)


def test_presets_added_and_overridden_in_catalog_follow_the_engine(libreoffice, tmp_path):
    """A preset typed into Catalog's empty row appears in the Crossover presets table and can be chosen; an edited
    shipped preset moves its crossing; the workbook reads back as the scenario with those presets."""
    original = tmp_path / "crossover.xlsx"
    book = build(compute(load_scenario(STEP_1)), str(original))
    added, chosen = tmp_path / "added.xlsx", tmp_path / "chosen.xlsx"
    set_cells(original, added, catalog_cells(original, [
        ("catalog_traffic_preset", "", "ids", "viral"), ("catalog_traffic_preset", "viral", "tokens_per_day", 5e12),
        ("catalog_traffic_preset", "popular-app", "tokens_per_day", 2e11)]))
    set_cells(added, chosen, {"crossover_tokens_per_day": "viral"})
    outputs = recalculated(libreoffice, [added, chosen], [expected_book(added), expected_book(chosen)])
    assert named(outputs[0], book, "crossover_day_flops") == pytest.approx(234)  # 3 · 15.6e12 / 2e11
    assert named(outputs[1], book, "crossover_day_flops") == pytest.approx(9.36)  # 3 · 15.6e12 / 5e12
    assert named(outputs[1], book, "crossover_day_gpu_hours") == pytest.approx(2.34)
    assert "viral" in {v for (sheet, _), v in outputs[1].items() if sheet == "Crossover"}
    presets = scenario_from_workbook(chosen).merged_catalog.traffic_presets
    assert (presets["viral"], presets["popular-app"]) == (5e12, 2e11)


def test_a_fraction_of_a_token_or_an_unknown_preset_turns_the_check_false(libreoffice, tmp_path):
    original = tmp_path / "crossover.xlsx"
    book = build(compute(load_scenario(STEP_1)), str(original))
    cases = [2.5, "Viral", -1]
    copies = []
    for i, value in enumerate(cases):
        copy = tmp_path / f"bad-{i}.xlsx"
        set_cells(original, copy, {"crossover_tokens_per_day": value})
        copies.append(copy)
    check = ("Checks", sheet_cell(book.sheets["Checks"], "input_crossover_tokens_per_day"))
    for value, values in zip(cases, libreoffice.recalculate(copies)):
        assert same(False, values[check]), value
        assert values[("Cover", sheet_cell(book.sheets["Cover"], "master"))] == "1 check fails: see Checks", value


def test_planner_verify_passes_on_a_workbook_with_a_model_and_a_preset_typed_into_empty_catalog_rows(libreoffice,
                                                                                                    tmp_path):
    """The workbook verify builds to compare with keeps the edited workbook's Catalog blocks (one empty row fewer
    where a row was typed), so no cell of the Catalog or of the Crossover presets table moves."""
    original = tmp_path / "crossover.xlsx"
    build(compute(load_scenario(STEP_1)), str(original))
    model = {"params": 1e9, "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "head_dim": 16, "ffn": 128,
             "vocab": 1000, "gated": True}
    edited = tmp_path / "edited.xlsx"
    set_cells(original, edited, catalog_cells(original, [("catalog_model", "", "ids", "tiny")] + [
        ("catalog_model", "tiny", key, value) for key, value in model.items()] + [
        ("catalog_traffic_preset", "", "ids", "viral"), ("catalog_traffic_preset", "viral", "tokens_per_day", 5e12)]))
    saved = saved_by_libreoffice(libreoffice, edited, tmp_path / "saved")
    [report] = audit([saved], app=libreoffice)
    assert report.ok, report.text()
