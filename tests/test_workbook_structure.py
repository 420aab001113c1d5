"""The workbook as finance receives it (PRODUCT.md, "The workbook"), read back without recalculation."""

from __future__ import annotations

import re
import zipfile

import openpyxl
import pytest

from planner.engine import compute
from planner.scenario import parse_scenario
from planner.workbook import build
from tests.conftest import scenario_with

HEADLINE_NAMES = ["memory_weights_gb", "memory_gradients_gb", "memory_optimizer_gb", "memory_activations_gb",
                  "memory_training_total_gb", "memory_training_fits", "memory_serving_weights_gb",
                  "memory_serving_kv_gb", "memory_serving_total_gb", "memory_serving_fits"]
INPUT_NAMES = ["model", "gpu", "price_per_gpu_hour", "memory_gpus", "memory_strategy", "memory_tensor_parallel",
               "memory_pipeline_parallel", "memory_sequence_length", "memory_micro_batch",
               "memory_activation_checkpointing", "serving_users", "serving_sequence_length",
               "serving_tensor_parallel"]


@pytest.fixture(scope="module")
def workbook(tmp_path_factory):
    path = tmp_path_factory.mktemp("wb") / "default.xlsx"
    book = build(compute(scenario_with(**{"memory.strategy": "ddp"})), str(path))
    return path, book


def cell_of(wb, name):
    sheet, ref = next(iter(wb.defined_names[name].destinations))
    return wb[sheet][ref.replace("$", "")]


def test_sheets_in_order(workbook):
    wb = openpyxl.load_workbook(workbook[0])
    assert wb.sheetnames[:3] == ["Cover", "Inputs", "Memory"]
    assert wb.sheetnames[-3:] == ["Catalog", "Checks", "Method"]


def test_inputs_are_named_styled_unlocked_and_validated(workbook):
    wb = openpyxl.load_workbook(workbook[0])
    validated = {str(ref) for dv in wb["Inputs"].data_validations.dataValidation for ref in dv.sqref.ranges}
    for name in INPUT_NAMES:
        cell = cell_of(wb, name)
        assert cell.parent.title == "Inputs"
        assert cell.data_type != "f"
        assert cell.font.color.rgb == "FF0000FF"
        assert cell.fill.fgColor.rgb == "FFFFF2CC"
        assert cell.protection.locked is False
        assert cell.coordinate in validated, name
    assert cell_of(wb, "memory_strategy").value == "ddp"
    assert cell_of(wb, "memory_activation_checkpointing").value is False


def test_dropdowns_read_the_catalog(workbook):
    wb = openpyxl.load_workbook(workbook[0])
    lists = {str(dv.sqref): dv.formula1 for dv in wb["Inputs"].data_validations.dataValidation if dv.type == "list"}
    assert lists[cell_of(wb, "model").coordinate] == "catalog_model_ids"
    assert lists[cell_of(wb, "gpu").coordinate] == "catalog_gpu_ids"
    assert lists[cell_of(wb, "memory_strategy").coordinate] == "catalog_strategy_ids"
    assert lists[cell_of(wb, "memory_activation_checkpointing").coordinate] == '"TRUE,FALSE"'
    sheet, ref = next(iter(wb.defined_names["catalog_model_ids"].destinations))
    assert [row[0].value for row in wb[sheet][ref.replace("$", "")]] == [
        "llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"]


def test_every_sheet_is_protected_and_prints_landscape_one_page_wide(workbook):
    wb = openpyxl.load_workbook(workbook[0])
    for ws in wb.worksheets:
        assert ws.protection.sheet, ws.title
        assert ws.page_setup.orientation == "landscape"
        assert ws.sheet_properties.pageSetUpPr.fitToPage
        assert (ws.page_setup.fitToWidth or 1) == 1 and ws.page_setup.fitToHeight == 0  # 1 is the default
        assert "default" in ws.oddHeader.left.text


def test_headline_names_point_at_formulas_with_the_engines_cached_values(workbook):
    path, book = workbook
    results = compute(scenario_with(**{"memory.strategy": "ddp"}))
    cached = openpyxl.load_workbook(path, data_only=True)
    formulas = openpyxl.load_workbook(path)
    for name in HEADLINE_NAMES:
        assert cell_of(formulas, name).data_type == "f", name
        assert cell_of(cached, name).value == pytest.approx(results.headline[name]), name
    assert cell_of(cached, "memory_training_total_gb").value == pytest.approx(164.991401984)  # DDP, by hand
    assert cell_of(cached, "memory_training_fits").value is False


def test_every_formula_cell_has_a_cached_value_and_only_portable_functions(workbook):
    path, _ = workbook
    banned = re.compile(r"\b(OFFSET|INDIRECT|NOW|TODAY|RAND|RANDBETWEEN|LET|LAMBDA|XLOOKUP|FILTER|SEQUENCE)\(|_xlfn")
    with zipfile.ZipFile(path) as z:
        sheets = [n for n in z.namelist() if n.startswith("xl/worksheets/sheet")]
        count = 0
        for name in sheets:
            xml = z.read(name).decode()
            for cell in re.findall(r"<c [^>]*>.*?</c>", xml):
                if "<f>" in cell:
                    count += 1
                    assert re.search(r"<v>[^<]+</v>", cell), cell
                    assert not banned.search(cell), cell
    assert count > 80


def test_charts_read_formula_cells(workbook):
    path, _ = workbook
    with zipfile.ZipFile(path) as z:
        charts = [n for n in z.namelist() if n.startswith("xl/charts/chart")]
        assert len(charts) >= 2
        first = z.read(charts[0]).decode()
    assert "<c:barChart>" in first and "<c:lineChart>" in first  # stacked columns and the capacity line
    assert "Memory!$B$" in first


def test_cover_has_master_check_and_contents(workbook):
    wb = openpyxl.load_workbook(workbook[0])
    cover = wb["Cover"]
    texts = [c.value for row in cover.iter_rows() for c in row if isinstance(c.value, str)]
    assert any("checks_all_pass" in t for t in texts if t.startswith("="))
    links = [c.hyperlink.location for row in cover.iter_rows() for c in row if c.hyperlink]
    assert "'Memory'!A1" in links and "'Checks'!A1" in links


def test_text_from_a_scenario_never_becomes_a_formula(tmp_path):
    evil = '=HYPERLINK("http://x","y")'
    scenario = parse_scenario({
        "name": evil, "description": "+1+2", "model": {"name": "@SUM(1)", "layers": 2, "hidden": 64, "heads": 4,
                                                        "kv_heads": 2, "ffn": 128, "vocab": 1000},
        "gpu": {"name": "-3<script>", "memory_gb": 80, "peak_tflops": 900, "hbm_tbps": 3}})
    path = tmp_path / "evil.xlsx"
    build(compute(scenario), str(path))
    wb = openpyxl.load_workbook(path)
    assert cell_of(wb, "scenario_name").value == evil and cell_of(wb, "scenario_name").data_type == "s"
    assert cell_of(wb, "scenario_description").value == "+1+2"
    assert cell_of(wb, "model").value == "@SUM(1)" and cell_of(wb, "model").data_type == "s"
    assert cell_of(wb, "gpu").value == "-3<script>" and cell_of(wb, "gpu").data_type == "s"
    with zipfile.ZipFile(path) as z:
        xml = "".join(z.read(n).decode() for n in z.namelist() if n.endswith(".xml"))
    assert "<f>HYPERLINK" not in xml and "<f>SUM(1)" not in xml
