"""The workbook recalculated from scratch in LibreOffice Calc equals the engine in every formula cell (relative
1e-9), for every example, after input changes, and for random valid scenarios; a canary proves each
recalculation happened (see planner/recalc.py)."""

from __future__ import annotations

from pathlib import Path

import openpyxl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from planner import catalog, recalc
from planner.engine import compute
from planner.scenario import load_scenario, parse_scenario
from planner.verify import compare, same
from planner.workbook import build
from tests.conftest import EXAMPLES, build_in_memory, scenario_with

pytestmark = pytest.mark.usefixtures("libreoffice")


def recalculated(paths: list[Path], tmp_path: Path) -> list[Path]:
    return recalc.recalculate(paths, tmp_path / "recalc")


def assert_equal_to_engine(report) -> None:
    assert report.error == ""
    assert report.checked > 50
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


def set_inputs(source: Path, target: Path, changes: dict) -> None:
    """A test copy with input cells changed (openpyxl drops cached values: fine for a copy that is recalculated)."""
    book = openpyxl.load_workbook(source)
    for name, value in changes.items():
        sheet, ref = next(iter(book.defined_names[name].destinations))
        book[sheet][ref.replace("$", "")].value = value
    book.save(target)


INPUT_CHANGES = {  # workbook input name → new value, and the same change as a scenario key
    "model to 405B": ({"model": "llama-3.1-405b"}, {"model": "llama-3.1-405b"}),
    "GPU to H200": ({"gpu": "h200"}, {"gpu": "h200"}),
    "strategy to DDP": ({"memory_strategy": "ddp"}, {"memory.strategy": "ddp"}),
    "sequence length 32K": ({"memory_sequence_length": 32768}, {"memory.sequence_length": 32768}),
    "checkpointing on": ({"memory_activation_checkpointing": True}, {"memory.activation_checkpointing": True}),
    "recomputation on": ({"hours_activation_recompute": True}, {"hours.activation_recompute": True}),
    "MFU 30 %": ({"hours_mfu": 0.3}, {"hours.mfu": 0.3}),
    "productive share, run GPUs, allocation option": (
        {"hours_productive_share": 0.8, "hours_gpus": 4096, "hours_allocations_2_mfu": 0.37, "hours_tokens": 2e12},
        {"hours.productive_share": 0.8, "hours.gpus": 4096, "hours.allocations": [
            {"gpus": 8192, "mfu": 0.43}, {"gpus": 16384, "mfu": 0.37}], "hours.tokens": 2e12}),
    "70B, t=4, p=2 on 64 B200s, ZeRO-2": (
        {"model": "llama-3.1-70b", "gpu": "b200", "memory_gpus": 64, "memory_tensor_parallel": 4,
         "memory_pipeline_parallel": 2, "memory_strategy": "zero2", "serving_tensor_parallel": 4,
         "serving_users": 100, "price_per_gpu_hour": 3.5},
        {"model": "llama-3.1-70b", "gpu": "b200", "memory.gpus": 64, "memory.tensor_parallel": 4,
         "memory.pipeline_parallel": 2, "memory.strategy": "zero2", "serving.tensor_parallel": 4,
         "serving.users": 100, "price_per_gpu_hour": 3.5}),
}


def test_changed_inputs_recalculate_to_the_engine_on_the_changed_scenario(tmp_path):
    original = tmp_path / "default.xlsx"
    build(compute(scenario_with()), str(original))
    copies = []
    for i, (cells, _) in enumerate(INPUT_CHANGES.values()):
        copy = tmp_path / f"changed-{i}.xlsx"
        set_inputs(original, copy, cells)
        copies.append(copy)
    outputs = recalculated(copies, tmp_path)
    for copy, output, (label, (_, keys)) in zip(copies, outputs, INPUT_CHANGES.items()):
        expected = build_in_memory(scenario_with(**keys))
        report = compare(copy, output, expected)
        assert_equal_to_engine(report)
    by_label = dict(zip(INPUT_CHANGES, outputs))
    # hand-worked: DDP on 8 GPUs is 16Ψ + 34·8192·4096·32 bytes; 405B's serving weights are 2Ψ
    assert named_value(by_label["strategy to DDP"], "memory_training_total_gb") == pytest.approx(164.991401984)
    assert named_value(by_label["model to 405B"], "memory_serving_weights_gb") == pytest.approx(811.7067776)
    assert named_value(by_label["GPU to H200"], "gpu_memory_gb") == 141
    # 8B at 15.6 T tokens: 6Ψ·T / (989e12 · 0.4 · 3600) = 527,773 GPU-hours; recomputation × 8/6; MFU 30 % × 4/3
    assert named_value(by_label["recomputation on"], "hours_gpu_hours") == pytest.approx(527_772.5 * 8 / 6, rel=1e-6)
    assert named_value(by_label["MFU 30 %"], "hours_gpu_hours") == pytest.approx(527_772.5 * 4 / 3, rel=1e-6)


def test_the_seeds_hours_walkthrough_in_the_workbook(tmp_path):
    """405B at 15.6 T: 26.67 M GPU-hours beside Meta's 30.84 M; then recomputation on and MFU 30 %: × 1.78."""
    from tests.conftest import ROOT
    original = tmp_path / "hours.xlsx"
    build(compute(load_scenario(ROOT / "examples" / "hours-1-405b.yaml")), str(original))
    changed = tmp_path / "hours-changed.xlsx"
    set_inputs(original, changed, {"hours_activation_recompute": True, "hours_mfu": 0.30})
    before, after = recalculated([original, changed], tmp_path)
    assert named_value(before, "hours_gpu_hours") == pytest.approx(26_673_882.98, rel=1e-9)
    assert named_value(after, "hours_gpu_hours") == pytest.approx(26_673_882.98 * (8 / 6) * (0.40 / 0.30), rel=1e-9)
    assert round(named_value(after, "hours_gpu_hours") / 1e6, 2) == 47.42


# Random valid scenarios ----------------------------------------------------------------------------------
names = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)
catalog_names = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="*?~"), min_size=1,
                        max_size=30).filter(lambda n: n.lower() not in {i.lower() for i in catalog.MODELS}
                                            | {i.lower() for i in catalog.GPUS})


@st.composite
def custom_models(draw):
    heads = draw(st.integers(1, 64))
    return {"name": draw(catalog_names), "layers": draw(st.integers(1, 160)), "hidden": heads * draw(st.integers(1, 256)),
            "heads": heads, "kv_heads": draw(st.integers(1, heads)), "ffn": draw(st.integers(1, 60_000)),
            "vocab": draw(st.integers(1, 300_000)),
            "params": draw(st.none() | st.floats(1e6, 2e12))}


@st.composite
def custom_gpus(draw):
    return {"name": draw(catalog_names), "memory_gb": draw(st.floats(1, 1024)), "peak_tflops": draw(st.floats(1, 5000)),
            "hbm_tbps": draw(st.floats(0.1, 20))}


@st.composite
def scenarios(draw):
    t, p = draw(st.sampled_from([1, 2, 4, 8])), draw(st.sampled_from([1, 2, 4]))
    share = st.floats(0.01, 1)
    data = {
        "name": draw(names),
        "description": draw(st.text(max_size=60)),
        "model": draw(st.sampled_from(list(catalog.MODELS)) | custom_models()),
        "gpu": draw(st.sampled_from(list(catalog.GPUS)) | custom_gpus()),
        "price_per_gpu_hour": draw(st.floats(0, 50)),
        "memory": {"gpus": t * p * draw(st.integers(1, 512)), "tensor_parallel": t, "pipeline_parallel": p,
                   "strategy": draw(st.sampled_from(["ddp", "zero1", "zero2", "zero3", "fsdp"])),
                   "sequence_length": draw(st.integers(1, 131_072)), "micro_batch": draw(st.integers(1, 32)),
                   "activation_checkpointing": draw(st.booleans())},
        "serving": {"users": draw(st.integers(1, 1024)), "tensor_parallel": draw(st.integers(1, 16)),
                    "sequence_length": draw(st.integers(1, 131_072))},
        "hours": {"tokens": draw(st.floats(1e6, 1e14)), "mfu": draw(share),
                  "activation_recompute": draw(st.booleans()), "gpus": draw(st.integers(1, 100_000)),
                  "productive_share": draw(share),
                  "allocations": draw(st.lists(st.fixed_dictionaries(
                      {"gpus": st.integers(1, 100_000), "mfu": share}), min_size=1, max_size=4))},
    }
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


def test_out_of_range_inputs_turn_the_checks_and_the_cover_red(tmp_path):
    """Pasting skips data validation; the Checks sheet still catches it, and the Cover says so."""
    original = tmp_path / "default.xlsx"
    book = build(compute(scenario_with()), str(original))
    broken = tmp_path / "broken.xlsx"
    set_inputs(original, broken, {"hours_mfu": 1.5, "memory_gpus": 7, "memory_tensor_parallel": 2})
    values = recalc.read_values(recalculated([broken], tmp_path)[0])

    def value(sheet: str, key: str):
        return values[(sheet, book.sheets[sheet].cells[key].replace("$", ""))]

    assert same(False, value("Checks", "input_hours_mfu"))
    assert same(False, value("Checks", "memory_data_parallel_whole"))  # 7 GPUs / t = 2: 3.5 replicas
    assert same(True, value("Checks", "input_memory_gpus"))  # 7 alone is a whole number
    assert same(False, value("Checks", "all"))
    assert value("Cover", "master") == "A check has failed: see Checks"
