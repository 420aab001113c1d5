"""A workbook's input cells read back into the scenario that made it (what `planner verify` checks against)."""

from __future__ import annotations

import openpyxl
import pytest

from planner.engine import compute
from planner.roundtrip import key_path, scenario_from_workbook
from planner.scenario import ScenarioError, load_scenario
from planner.workbook import build
from tests.conftest import EXAMPLES, ROOT


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


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
def test_every_example_reads_back_as_itself(example, tmp_path):
    scenario = load_scenario(example)
    path = tmp_path / "w.xlsx"
    build(compute(scenario), str(path))
    assert scenario_from_workbook(path).normalised() == scenario.normalised()


def test_an_edited_catalog_row_comes_back_as_the_scenarios_own_entry(tmp_path):
    path = tmp_path / "w.xlsx"
    build(compute(load_scenario(ROOT / "examples" / "default.yaml")), str(path))
    book = openpyxl.load_workbook(path)
    sheet, ref = next(iter(book.defined_names["catalog_gpu_memory_gb"].destinations))
    cells = [row[0] for row in book[sheet][ref.replace("$", "")]]
    ids = [row[0].value for row in book[sheet][next(iter(book.defined_names["catalog_gpu_ids"].destinations))[1]
                                               .replace("$", "")]]
    cells[ids.index("h100-sxm")].value = 94
    book.save(path)
    gpu = scenario_from_workbook(path).gpu
    assert (gpu.name, gpu.memory_gb, gpu.peak_tflops) == ("h100-sxm", 94, 989)


def test_an_invalid_input_cell_is_reported_with_its_address(tmp_path):
    path = tmp_path / "w.xlsx"
    build(compute(load_scenario(ROOT / "examples" / "default.yaml")), str(path))
    book = openpyxl.load_workbook(path)
    for name, value in (("memory_gpus", 7), ("memory_tensor_parallel", 2)):
        sheet, ref = next(iter(book.defined_names[name].destinations))
        book[sheet][ref.replace("$", "")].value = value
    book.save(path)
    with pytest.raises(ScenarioError) as error:
        scenario_from_workbook(path)
    assert "gpus 7 is not divisible by tensor_parallel 2" in str(error.value)
    assert f"{path}: Inputs!" in str(error.value)
