"""The workbook recalculated from scratch in LibreOffice Calc equals the engine in every formula cell (relative
1e-9), for every example, after input changes (dropdowns and Catalog edits included), and for random valid
scenarios; blank, zero or text inputs turn the checks FALSE and the Cover red. A canary proves each recalculation
happened (see planner/recalc.py)."""

from __future__ import annotations

import re

from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from planner import recalc, shipped as catalog
from planner.engine import compute
from planner.scenario import ScenarioError, load_scenario, parse_scenario
from planner.verify import compare, expected_book, same
from planner.workbook import build, general_inputs, input_sections
from planner.workbook.cover import NOT_AVAILABLE
from planner.workbook.inputs import TYPED_IN
from planner.workbook.kit import ok_name
from tests.conftest import EXAMPLES, ROOT, build_in_memory, catalog_cells, scenario_with, set_cells

pytestmark = pytest.mark.usefixtures("libreoffice")

H100_8B_GPU_HOURS = 6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.40 * 3600)  # 527,772.5: METHOD.md §2, by hand


def recalculated(paths: list[Path], tmp_path: Path) -> list[Path]:
    return recalc.recalculate(paths, tmp_path / "recalc")


def assert_equal_to_engine(report) -> None:
    assert report.error == ""
    assert report.checked > 150
    assert report.mismatches == [], "\n".join(map(str, report.mismatches[:20]))


def named_value(path: Path, name: str):
    book = openpyxl.load_workbook(path, data_only=True)
    sheet, ref = next(iter(book.defined_names[name].destinations))
    return book[sheet][ref.replace("$", "")].value


def test_every_example_recalculates_to_the_engine(tmp_path):
    paths, books = [], []
    for example in EXAMPLES:
        path = tmp_path / (example.stem + ".xlsx")
        books.append(build(compute(load_scenario(example)), str(path)))
        paths.append(path)
    outputs = recalculated(paths, tmp_path)
    for path, output, book in zip(paths, outputs, books):
        assert_equal_to_engine(compare(path, output, book))
    # and the seed's walk-through, read from the recalculated workbooks (hand-worked in METHOD.md §1)
    by_stem = {p.stem: o for p, o in zip(paths, outputs)}
    assert named_value(by_stem["memory-1-8b-ddp"], "memory_training_total_gb") == pytest.approx(164.991401984)
    assert same(False, named_value(by_stem["memory-1-8b-ddp"], "memory_training_fits"))
    assert same(True, named_value(by_stem["memory-2-8b-zero3"], "memory_training_fits"))
    assert named_value(by_stem["memory-3-8b-zero3-32k"], "memory_activations_gb") == pytest.approx(146.028888064)
    total = named_value(by_stem["memory-4-8b-zero3-32k-checkpointing"], "memory_training_total_gb")
    assert total == pytest.approx(29.21385984)


INPUT_CHANGES = {  # workbook cells → new values, and the same change as scenario keys
    "model to 405B": ({"model": "llama-3.1-405b"}, {"model": "llama-3.1-405b"}),
    "GPU to B200": ({"gpu": "b200"}, {"gpu": "b200"}),
    "strategy to DDP": ({"memory_strategy": "ddp"}, {"memory.strategy": "ddp"}),
    "sequence length 32K": ({"memory_sequence_length": 32768}, {"memory.sequence_length": 32768}),
    "checkpointing on": ({"memory_activation_checkpointing": True}, {"memory.activation_checkpointing": True}),
    "recomputation on": ({"hours_activation_recompute": True}, {"hours.activation_recompute": True}),
    "MFU 30 %": ({"hours_mfu": 0.3}, {"hours.mfu": 0.3}),
    "productive share, run GPUs, allocation option": (
        {"hours_productive_share": 0.8, "hours_gpus": 4096, "hours_allocations_2_mfu": 0.37, "hours_tokens_trillions": 2},
        {"hours.productive_share": 0.8, "hours.gpus": 4096, "hours.allocations": [
            {"gpus": 8192, "mfu": 0.43}, {"gpus": 16384, "mfu": 0.37}], "hours.tokens": 2e12}),
    "70B, t=4, p=2 on 64 H200s, ZeRO-2": (
        {"model": "llama-3.1-70b", "gpu": "h200", "memory_gpus": 64, "memory_tensor_parallel": 4,
         "memory_pipeline_parallel": 2, "memory_strategy": "zero2", "serving_tensor_parallel": 4,
         "serving_users": 100},
        {"model": "llama-3.1-70b", "gpu": "h200", "memory.gpus": 64, "memory.tensor_parallel": 4,
         "memory.pipeline_parallel": 2, "memory.strategy": "zero2", "serving.tensor_parallel": 4,
         "serving.users": 100}),
}


def test_changed_inputs_recalculate_to_the_engine_on_the_changed_scenario(tmp_path):
    original = tmp_path / "default.xlsx"
    build(compute(scenario_with()), str(original))
    copies = []
    for i, (cells, _) in enumerate(INPUT_CHANGES.values()):
        copy = tmp_path / f"changed-{i}.xlsx"
        set_cells(original, copy, cells)
        copies.append(copy)
    outputs = recalculated(copies, tmp_path)
    for copy, output, (label, (_, keys)) in zip(copies, outputs, INPUT_CHANGES.items()):
        assert_equal_to_engine(compare(copy, output, build_in_memory(scenario_with(**keys), like=copy)))
    by_label = dict(zip(INPUT_CHANGES, outputs))
    # hand-worked: DDP on 8 GPUs is 16Ψ + 34·8192·4096·32 bytes; 405B's serving weights are 2Ψ
    assert named_value(by_label["strategy to DDP"], "memory_training_total_gb") == pytest.approx(164.991401984)
    assert named_value(by_label["model to 405B"], "memory_serving_weights_gb") == pytest.approx(811.7067776)
    # the GPU dropdown moves the price with it: a B200 (2,250 TFLOPS) at its Catalog price of 4.50
    assert named_value(by_label["GPU to B200"], "price_per_gpu_hour") == 4.5
    assert named_value(by_label["GPU to B200"], "hours_cost") == pytest.approx(H100_8B_GPU_HOURS * 989 / 2250 * 4.5)
    assert named_value(by_label["GPU to B200"], "scenario_title").startswith("llama-3.1-8b on b200:")
    assert named_value(by_label["model to 405B"], "scenario_title").startswith("llama-3.1-405b on h100-sxm:")
    # recomputation × 8/6; MFU 30 % × 4/3
    assert named_value(by_label["recomputation on"], "hours_gpu_hours") == pytest.approx(H100_8B_GPU_HOURS * 8 / 6)
    assert named_value(by_label["MFU 30 %"], "hours_gpu_hours") == pytest.approx(H100_8B_GPU_HOURS * 4 / 3)


def test_the_seeds_hours_walkthrough_in_the_workbook(tmp_path):
    """405B at 15.6 T: 26.67 M GPU-hours beside Meta's 30.84 M; then recomputation on and MFU 30 %: × 1.78."""
    original = tmp_path / "hours.xlsx"
    build(compute(load_scenario(ROOT / "examples" / "hours-1-405b.yaml")), str(original))
    changed = tmp_path / "hours-changed.xlsx"
    set_cells(original, changed, {"hours_activation_recompute": True, "hours_mfu": 0.30})
    before, after = recalculated([original, changed], tmp_path)
    assert named_value(before, "hours_gpu_hours") == pytest.approx(26_673_882.98, rel=1e-9)
    assert named_value(after, "hours_gpu_hours") == pytest.approx(26_673_882.98 * (8 / 6) * (0.40 / 0.30), rel=1e-9)
    assert round(named_value(after, "hours_gpu_hours") / 1e6, 2) == 47.42


def test_an_edited_unchosen_catalog_row_and_an_added_gpu_verify(tmp_path):
    """Edit the 70B row while 8B is chosen and add a GPU in an empty row: the workbook reads back as a scenario
    whose engine equals LibreOffice in every cell; then choose the new GPU."""
    original = tmp_path / "default.xlsx"
    build(compute(scenario_with()), str(original))
    edits = [("catalog_model", "llama-3.1-70b", "params", 71e9), ("catalog_gpu", "", "ids", "gb200"),
             ("catalog_gpu", "gb200", "memory_gb", 186), ("catalog_gpu", "gb200", "peak_tflops", 2500),
             ("catalog_gpu", "gb200", "hbm_tbps", 8.0), ("catalog_gpu", "gb200", "price_per_hour", 6.0)]
    edited, chosen = tmp_path / "edited.xlsx", tmp_path / "chosen.xlsx"
    set_cells(original, edited, catalog_cells(original, edits))
    set_cells(edited, chosen, {"gpu": "gb200"})
    outputs = recalculated([edited, chosen], tmp_path)
    for path, output in zip([edited, chosen], outputs):
        assert_equal_to_engine(compare(path, output, expected_book(path)))
    # by hand: 6 × 71e9 × 15.6e12 / (989e12 × 0.4 × 3600) H100-hours for the edited 70B reference row
    values = recalc.read_values(outputs[0])
    assert any(v == pytest.approx(6 * 71e9 * 15.6e12 / (989e12 * 0.4 * 3600)) for (s, _), v in values.items()
               if s == "Hours" and isinstance(v, float))
    # the 8B on the new GPU: 2,500 TFLOPS at 6.00 per GPU-hour
    assert named_value(outputs[1], "hours_cost") == pytest.approx(H100_8B_GPU_HOURS * 989 / 2500 * 6.0)
    assert named_value(outputs[1], "gpu_memory_gb") == 186


def every_input(scenario) -> list:
    return [i for i, _ in general_inputs(scenario) if hasattr(i, "allowed")] + [
        i for _, items in input_sections(scenario) for i in items]


def test_a_blank_zero_text_or_out_of_range_input_turns_its_check_false_and_the_cover_red(tmp_path):
    """Every input in turn, pressed Delete on or pasted over (pasting skips validation) with 0, text, −1, a number
    just above its limit or an unknown id: its check, the master check and the Cover say so; no sheet shows an
    error value; every Cover key result that depends on the input says "n/a" (no plausible number). The scenario
    validator refuses the same out-of-range value."""
    scenario = scenario_with()
    original = tmp_path / "default.xlsx"
    book = build(compute(scenario), str(original))
    cases = []
    for spec in every_input(scenario):
        allowed = spec.typed_allowed
        wrong = [None, "text"] + ([0] if allowed.minimum is None or allowed.minimum > 0 else []) + [-1]
        if allowed.maximum is not None:
            above = allowed.maximum * 1.001 + (1 if allowed.type == "whole" else 0)
            above = round(above) if allowed.type == "whole" else above
            wrong.append(above)
            with pytest.raises(ScenarioError):
                scale = TYPED_IN[spec.kind][1] if spec.kind in TYPED_IN else None
                scenario_with(**{spec.path: round(above * scale) if scale else above})
        if allowed.type == "bool":
            wrong = [None, "text", 2]  # 0 is FALSE in a spreadsheet without a logical type
        if allowed.type == "text":
            wrong = [None, 0, "x" * 65]  # a name: any text of 1 to 64 characters is allowed
        if allowed.choices:
            wrong = [None, 0, -1, "no-such-id"] if allowed.type == "choice" else [None, -1, 2.5, "no-such-id"]
        for value in wrong:
            copy = tmp_path / f"wrong-{len(cases)}.xlsx"
            set_cells(original, copy, {spec.typed_name: value})
            cases.append((spec, value, copy))
    outputs = recalculated([copy for _, _, copy in cases], tmp_path)
    checks, cover = book.sheets["Checks"], book.sheets["Cover"]
    key_results = {cover.cell(f"key_{name}"): name for name in book.headline if f"key_{name}" in cover.places}
    for (spec, value, _), output in zip(cases, outputs):
        values = recalc.read_values(output)
        errors = [(cell, v) for cell, v in values.items() if isinstance(v, str) and v.startswith(("#", "Err:"))]
        assert errors == [], (spec.name, value, errors[:5])
        assert same(False, values[("Checks", checks.cell(f"input_{spec.name}"))]), (spec.name, value)
        assert same(False, values[("Checks", checks.cell("all"))]), (spec.name, value)
        assert re.fullmatch(r"[1-9]\d* checks? fails?: see Checks", values[("Cover", cover.cell("master"))]), \
            (spec.name, value)
        for cell, name in key_results.items():  # no plausible number from a failed input
            if ok_name(spec.name) in book.needs[name]:
                assert values[("Cover", cell)] == NOT_AVAILABLE, (spec.name, value, name, values[("Cover", cell)])


def test_impossible_parallelism_pasted_into_the_workbook_fails_its_check(tmp_path):
    """The scenario's own rules hold in the workbook too: t divides the heads, p ≤ layers."""
    original = tmp_path / "default.xlsx"
    book = build(compute(scenario_with()), str(original))
    broken = tmp_path / "broken.xlsx"
    set_cells(original, broken, {"memory_gpus": 3072, "memory_tensor_parallel": 3, "memory_pipeline_parallel": 64,
                                 "serving_tensor_parallel": 64})
    values = recalc.read_values(recalculated([broken], tmp_path)[0])
    checks = book.sheets["Checks"]
    for key in ("memory_tensor_parallel_divides_heads", "memory_pipeline_within_layers",
                "serving_tensor_parallel_divides_heads", "all"):
        assert same(False, values[("Checks", checks.cell(key))]), key
    assert same(True, values[("Checks", checks.cell("memory_data_parallel_whole"))])  # 3072 / (3·64) = 16


# Random valid scenarios ----------------------------------------------------------------------------------
names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)
catalog_names = st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zs"), blacklist_characters="*?~<>="),
                        min_size=1, max_size=30).filter(
    lambda n: n.lower() not in {i.lower() for i in catalog.MODELS} | {i.lower() for i in catalog.GPUS})


@st.composite
def custom_models(draw):
    kv_heads = draw(st.integers(1, 16))
    heads = kv_heads * draw(st.sampled_from([1, 2, 4, 8]))
    return {"name": draw(catalog_names), "layers": draw(st.integers(4, 160)),
            "hidden": heads * draw(st.integers(1, 256)), "heads": heads, "kv_heads": kv_heads,
            "ffn": draw(st.integers(1, 60_000)), "vocab": draw(st.integers(1, 300_000)),
            "params": draw(st.none() | st.floats(1e6, 2e12))}


@st.composite
def custom_gpus(draw):
    return {"name": draw(catalog_names), "memory_gb": draw(st.floats(1, 1024)),
            "peak_tflops": draw(st.floats(1, 5000)), "hbm_tbps": draw(st.floats(0.1, 20)),
            "price_per_hour": draw(st.floats(0, 50))}


@st.composite
def scenarios(draw):
    model = draw(st.sampled_from(list(catalog.MODELS)) | custom_models())
    heads = catalog.MODELS[model].heads if isinstance(model, str) else model["heads"]
    divisors = [d for d in (1, 2, 4, 8) if heads % d == 0]
    t, p = draw(st.sampled_from(divisors)), draw(st.sampled_from([1, 2, 4]))
    share = st.floats(0.01, 1)
    data = {
        "name": draw(names),
        "description": draw(st.text(max_size=60)),
        "model": model,
        "gpu": draw(st.sampled_from(list(catalog.GPUS)) | custom_gpus()),
        "memory": {"gpus": t * p * draw(st.integers(1, 512)), "tensor_parallel": t, "pipeline_parallel": p,
                   "strategy": draw(st.sampled_from(["ddp", "zero1", "zero2", "zero3", "fsdp"])),
                   "sequence_length": draw(st.integers(1, 131_072)), "micro_batch": draw(st.integers(1, 32)),
                   "activation_checkpointing": draw(st.booleans())},
        "serving": {"users": draw(st.integers(1, 1024)), "tensor_parallel": draw(st.sampled_from(divisors)),
                    "sequence_length": draw(st.integers(1, 131_072))},
        "hours": {"tokens": draw(st.integers(10**6, 10**14)), "mfu": draw(share),
                  "activation_recompute": draw(st.booleans()), "gpus": draw(st.integers(1, 100_000)),
                  "productive_share": draw(share),
                  "allocations": draw(st.lists(st.fixed_dictionaries(
                      {"gpus": st.integers(1, 100_000), "mfu": share}), min_size=1, max_size=4))},
    }
    peak, spare = draw(st.integers(0, 5000)), draw(st.floats(0, 2))
    data["cluster"] = {"inference_peak_gpus": peak, "spare": spare,
                       "gpus": int(peak * (1 + spare)) + 1 + draw(st.integers(0, 50_000)),  # the pool fits
                       "profile": draw(st.sampled_from(list(catalog.PROFILES)) | st.lists(
                           st.floats(0, 1), min_size=24, max_size=24)),
                       "restart_cost_gpu_hours": draw(st.floats(0, 1000))}
    if draw(st.booleans()):  # one price per GPU: the override or a custom GPU's own (both would clash)
        data["price_per_gpu_hour"] = draw(st.floats(0, 50))
        if isinstance(data["gpu"], dict):
            del data["gpu"]["price_per_hour"]
    return parse_scenario(data)


@settings(max_examples=3, deadline=None, phases=[Phase.explicit, Phase.reuse, Phase.generate],  # no shrinking:
          # each step would be a LibreOffice call
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(batch=st.lists(scenarios(), min_size=10, max_size=10))
def test_random_valid_scenarios_recalculate_to_the_engine(batch, tmp_path_factory):
    """3 batches × 10 scenarios, one LibreOffice call per batch."""
    work = tmp_path_factory.mktemp("random")
    paths, books = [], []
    for i, scenario in enumerate(batch):
        path = work / f"s{i}.xlsx"
        books.append(build(compute(scenario), str(path)))
        paths.append(path)
    for path, output, book in zip(paths, recalculated(paths, work), books):
        assert_equal_to_engine(compare(path, output, book))


def test_recalculation_without_the_setting_is_caught(tmp_path, monkeypatch):
    """With a profile that keeps cached values the poisoned canary survives, and compare() says so."""
    path = tmp_path / "default.xlsx"
    book = build(compute(scenario_with()), str(path))
    monkeypatch.setattr(recalc, "_PROFILE", recalc._PROFILE.replace("<value>0</value>", "<value>1</value>"))
    output = recalculated([path], tmp_path)[0]
    report = compare(path, output, book)
    assert "canary" in report.error
