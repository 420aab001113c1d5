"""A workbook's input cells and Catalog read back into the scenario that made it (what `planner verify` checks
against and `planner import` will write)."""

from __future__ import annotations

import openpyxl
import pytest

from planner.engine import compute
from planner.roundtrip import key_path
from planner.scenario import ScenarioError, load_scenario
from tests.conftest import every_example
from tests.helpers import address, catalog_cells, scenario_from_workbook, set_cells


@pytest.mark.parametrize("name, path", [
    ("memory_tensor_parallel", ("memory", "tensor_parallel")),
    ("price_per_gpu_hour", ("price_per_gpu_hour",)),
    ("hours_allocations_2_mfu", ("hours", "allocations", 1, "mfu")),
    ("goodput_slo_ttft_ms", ("goodput", "slo", "ttft_ms")),
    ("model_params", None),
    ("catalog_model_ids", None),
])
def test_defined_names_map_to_scenario_keys(name, path):
    assert key_path(name) == path


@pytest.mark.parametrize("example", every_example())
def test_every_example_reads_back_as_itself(example, example_files):
    scenario = load_scenario(example)
    assert scenario_from_workbook(example_files(example)["xlsx"]).normalised() == scenario.normalised()


def test_an_edited_unchosen_model_and_an_added_gpu_come_back_in_the_catalog_section(default_workbook, tmp_path):
    edited = tmp_path / "edited.xlsx"
    set_cells(default_workbook, edited, catalog_cells(default_workbook, [
        ("catalog_model", "llama-3.1-70b", "params", 71e9),
        ("catalog_gpu", "", "ids", "my-gpu"),  # the GPU block's first empty row
        ("catalog_gpu", "my-gpu", "memory_gb", 186), ("catalog_gpu", "my-gpu", "peak_tflops", 2500),
        ("catalog_gpu", "my-gpu", "hbm_tbps", 8.0), ("catalog_gpu", "my-gpu", "price_per_hour", 6.0),
        ("catalog_gpu", "my-gpu", "gpus_per_node", 72)]))
    scenario = scenario_from_workbook(edited)
    own = scenario.normalised()["catalog"]
    assert own["models"] == {"llama-3.1-70b": {"params": 71e9}}  # only what differs from the shipped entry
    assert own["gpus"] == {"my-gpu": {"memory_gb": 186, "peak_tflops": 2500, "hbm_tbps": 8.0, "price_per_hour": 6.0,
                                     "gpus_per_node": 72}}
    # the reference rows read the edited 70B: 6 × 71e9 × 15.6e12 / (989e12 × 0.4 × 3600)
    reference = {row["model"]: row for row in compute(scenario).hours.reference}
    assert reference["llama-3.1-70b"]["calculated_gpu_hours"] == pytest.approx(6 * 71e9 * 15.6e12 / 1.424160e18)
    assert scenario.merged_catalog.gpus["my-gpu"].price_per_hour == 6.0


def test_an_edited_price_reads_back_as_that_gpus_price(default_workbook, tmp_path):
    edited = tmp_path / "edited.xlsx"
    set_cells(default_workbook, edited, catalog_cells(default_workbook, [
        ("catalog_gpu", "h100-sxm", "price_per_hour", 2.4), ("catalog_gpu", "b200", "memory_gb", 192)]))
    scenario = scenario_from_workbook(edited)
    assert scenario.gpu_price == 2.4
    assert scenario.normalised()["catalog"]["gpus"] == {"h100-sxm": {"price_per_hour": 2.4},
                                                       "b200": {"memory_gb": 192}}


def test_an_invalid_input_cell_is_reported_with_its_address(default_workbook, tmp_path):
    edited = tmp_path / "edited.xlsx"
    set_cells(default_workbook, edited, {"memory_gpus": 7, "memory_tensor_parallel": 2})
    with pytest.raises(ScenarioError) as error:
        scenario_from_workbook(edited)
    assert "gpus 7 is not divisible by tensor_parallel 2" in str(error.value)
    assert f"{edited}: Inputs!" in str(error.value)


def test_an_incomplete_new_catalog_row_is_reported_with_its_cell(default_workbook, tmp_path):
    edited = tmp_path / "edited.xlsx"
    set_cells(default_workbook, edited, catalog_cells(default_workbook, [
        ("catalog_gpu", "", "ids", "my-gpu"), ("catalog_gpu", "my-gpu", "memory_gb", 186)]))
    with pytest.raises(ScenarioError) as error:
        scenario_from_workbook(edited)
    # each blank cell named: never a silent default
    for column, key in (("C", "peak_tflops"), ("D", "hbm_tbps"), ("E", "price_per_hour")):
        assert f"{edited}: Catalog!{column}" in str(error.value)
        assert f"catalog.gpus.my-gpu.{key}: blank, where a value is needed" in str(error.value)


def test_true_and_false_as_libreoffice_saves_them_read_back(default_workbook, tmp_path):
    """LibreOffice writes a TRUE typed into a cell as the formula TRUE()."""
    book = openpyxl.load_workbook(default_workbook)
    sheet, ref = address(book, "memory_activation_checkpointing")
    book[sheet][ref].value = "=TRUE()"
    edited = tmp_path / "edited.xlsx"
    book.save(edited)
    assert scenario_from_workbook(edited).memory.activation_checkpointing is True


def test_an_impossible_parallelism_names_its_own_cell(default_workbook, tmp_path):
    edited = tmp_path / "edited.xlsx"
    set_cells(default_workbook, edited, {"memory_gpus": 64, "memory_tensor_parallel": 64})
    with pytest.raises(ScenarioError) as error:
        scenario_from_workbook(edited)
    sheet, ref = address(default_workbook, "memory_tensor_parallel")
    assert f"{edited}: Inputs!{ref} (memory_tensor_parallel): memory.tensor_parallel: value 64 " \
           f"is not allowed: tensor parallel 64 does not divide the 32 attention heads" in str(error.value)
