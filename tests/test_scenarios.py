"""Named scenarios (docs/method.md §9): `scenarios:` in the scenario file, each checked as a scenario of its own,
written by `planner batch` beside the base; bad names, keys and values exit 2 naming the key and its line."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner import xlsx
from planner.batch import jobs_of
from planner.engine import compute
from planner.scenario import ScenarioError, load_scenario
from tests.helpers import refused

TEXT = """name: cases
scenarios:
  low: {hours.mfu: 0.30, crossover.tokens_per_day: product}
  high:
    hours.mfu: 0.5
    budget.monthly_growth: 0.05
"""


def test_batch_writes_the_base_and_each_scenario(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text(TEXT)
    jobs, failed = jobs_of([path])
    assert not failed
    assert [job.scenario.name for job in jobs] == ["cases", "cases [low]", "cases [high]"]
    assert [job.slug for job in jobs] == ["cases", "cases-low", "cases-high"]
    base, low, high = (job.scenario for job in jobs)
    assert (low.hours.mfu, low.crossover.tokens_per_day, low.budget.monthly_growth) == (0.30, "product", 0.0)
    assert (high.hours.mfu, high.crossover.tokens_per_day, high.budget.monthly_growth) == (0.5, "popular-app", 0.05)
    # the low case's training cost by hand: 6·Ψ·T / (989e12 · 0.30 · 3600) × 2.00
    assert compute(low).headline["hours_cost"] == pytest.approx(6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.30 * 3600)
                                                                * 2.00)
    assert base.scenarios and not low.scenarios and not high.scenarios


@pytest.mark.parametrize("scenarios, line, fragment", [
    ("  low: {hours.mfuu: 0.3}", 3, "scenarios.low: scenarios key 'hours.mfuu': no key 'mfuu'; did you mean 'mfu'?"),
    ("  low:\n    hours.mfu: 0.3\n    hours.allocations: []", 5,
     "scenarios.low: scenarios key 'hours.allocations': scenarios change scalar inputs only"),
    ("  base: {hours.mfu: 0.3}", 3, "scenarios.base: scenario name 'base' is reserved"),
    ("  Low: {hours.mfu: 0.3}", 3, "scenarios.Low: scenario name 'Low': a lower-case letter"),
    ("  low: {catalog.gpus.h100-sxm.price_per_hour: 3}", 3, "'catalog' is a Catalog entry, one for every scenario"),
    ("  low:\n    hours.mfu: 0.3\n    price_per_gpu_hour: -1", 5,
     "scenario low: price_per_gpu_hour: value -1 is not allowed"),
    ("  low: {search.deadline_days: 90}", 3, "'search' is the layout search"),
    ("  low: {scenario: high}", 3, "'scenario' is the scenario shown"),
    ("  low: {hours.mfu: 0.3}\nscenario: mid", 4, "scenario: 'mid' is not one of the file's scenarios; allowed: "
     "base, low"),
    ("  low: {hours: 3}", 3, "scenarios key 'hours': a section"),
    ("  low: {model: {name: m, params: 1e9}}", 3, "scenarios key 'model': one value"),
    ("  low: {hours.mfu: 3}", 3, "scenario low: hours.mfu: value 3 is not allowed"),
])
def test_bad_scenarios_exit_2_naming_key_and_line(tmp_path, scenarios, line, fragment):
    output, path = refused(tmp_path, f"name: x\nscenarios:\n{scenarios}\n")
    assert f"{path}:{line}: " in output and fragment in output, output


# One workbook holding every scenario (docs/method.md §9) --------------------------------------------------------------
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "scenarios-1-70b-base-low-high.yaml"
LLAMA_70B = 70_553_706_496  # Ψ of Llama 3.1 70B (Meta's published count)


def cost_by_hand(tokens: float, mfu: float, price: float) -> float:
    """Training cost, §2: 6·Ψ·T / (peak · MFU · 3600) GPU-hours at the price; H100 and H200 peak 989 TFLOPS."""
    return 6 * LLAMA_70B * tokens / (989e12 * mfu * 3600) * price


def cases_with(scenario: str = "base", **columns):
    """The example with `scenario:` set and its scenarios' keys changed ({"low": {"hours.mfu": None}}: blank)."""
    from planner.scenario import parse_scenario

    data = load_scenario(EXAMPLE).normalised()
    data["scenario"] = scenario
    for name, changes in columns.items():
        for key, value in changes.items():
            data["scenarios"][name].pop(key) if value is None else data["scenarios"][name].update({key: value})
    return parse_scenario(data)


@pytest.fixture(scope="session")
def cases(tmp_path_factory):
    """The example's workbook, as `planner run` writes it."""
    from planner.workbook import build

    path = tmp_path_factory.mktemp("cases") / "cases.xlsx"
    book = build(compute(load_scenario(EXAMPLE)), str(path))
    return path, book


def test_the_workbook_names_live_cells_and_typed_columns(cases):
    """With scenarios each input's name names its Live cell (a formula), the typed cells are <name>_base and
    <name>_<scenario>, the dropdown is `scenario`; the Scenarios sheet sits after the tables every scenario has
    (Sensitivity, the finance pages moved up behind the Cover: issue 43). The cached values are the
    base's; the snapshot columns hold each scenario's training cost as worked by hand."""
    path, book = cases
    assert list(book.sheets).index("Scenarios") == list(book.sheets).index("Sensitivity") + 1
    sheet, live = book.names["hours_mfu"]
    assert book.texts[(sheet, live)].startswith("=IF(") and "hours_mfu_low" in book.texts[(sheet, live)]
    for name in ("hours_mfu_base", "hours_mfu_low", "hours_mfu_high", "gpu_base", "hours_tokens_trillions_high",
                 "price_per_gpu_hour_base", "price_per_gpu_hour_low", "scenario", "scenario_names",
                 "scenarios_match_snapshot"):
        assert name in book.names, name
    values = xlsx.read(path)
    assert [values.cell(*book.names[n]).value for n in ("hours_mfu_base", "hours_mfu_low", "hours_mfu_high")] == \
        [0.40, 0.30, 0.45]
    assert values.cell(*book.names["gpu_low"]).value is None  # blank: as base
    assert values.cell(*book.names["hours_tokens_trillions_high"]).value == 20
    assert values.cell(*book.names["price_per_gpu_hour_low"]).value == 1.80
    assert values.cell(*book.names["price_per_gpu_hour_high"]).value is None  # the GPU's Catalog price
    assert values.cell(*book.names["scenario"]).value == "base"
    assert book.values["hours_cost"] == pytest.approx(cost_by_hand(15e12, 0.40, 2.00), rel=1e-12)
    row = {values.cell("Scenarios", f"A{r}").value: r for r in range(60, 0, -1)}  # the snapshot's rows first
    cost_row = next(r for label, r in row.items() if str(label).startswith("Training cost"))
    snapshot = [values.cell("Scenarios", f"{col}{cost_row}").value for col in "BCD"]
    assert snapshot == pytest.approx([cost_by_hand(15e12, 0.40, 2.00), cost_by_hand(15e12, 0.30, 1.80),
                                      cost_by_hand(20e12, 0.45, 2.50)], rel=1e-12)
    assert values.cell("Scenarios", f"E{cost_row}").formula is not None  # Live: a formula of the headline


def test_without_scenarios_the_inputs_are_typed_cells_as_before(default_book):
    from tests.helpers import scenario_with

    book = default_book
    assert "Scenarios" not in book.sheets and "scenario" not in book.names and "hours_mfu_base" not in book.names
    assert ("Inputs", book.names["hours_mfu"][1]) not in book.texts  # a typed value, not a formula
    assert "scenario" not in compute(scenario_with()).to_json()["scenario"]


def test_import_reads_the_columns_back_into_scenarios(cases, tmp_path):
    """The typed columns come back as `scenarios:` (a blank cell: as base) and the dropdown as `scenario:`; a
    copy switched to high and with its low MFU changed reads back so."""
    from tests.helpers import scenario_from_workbook
    from tests.helpers import set_cells

    path, _ = cases
    back = scenario_from_workbook(path)
    assert back.scenarios == {"low": {"hours.mfu": 0.30, "crossover.tokens_per_day": "product",
                                      "price_per_gpu_hour": 1.80},
                              "high": {"gpu": "h200", "hours.mfu": 0.45, "hours.tokens": 20_000_000_000_000,
                                       "crossover.tokens_per_day": "global-app"}}
    assert back.scenario == "base" and back.hours.mfu == 0.40
    edited = tmp_path / "edited.xlsx"
    set_cells(path, edited, {"scenario": "high", "hours_mfu_low": 0.35, "gpu_low": "a100-80gb"})
    back = scenario_from_workbook(edited)
    assert back.scenario == "high" and back.scenarios["low"] == {"hours.mfu": 0.35, "gpu": "a100-80gb",
                                                                 "crossover.tokens_per_day": "product",
                                                                 "price_per_gpu_hour": 1.80}
    shown = back.shown()
    assert (shown.gpu, shown.hours.mfu, shown.hours.tokens, shown.name) == ("h200", 0.45, 20e12, back.name)


def test_a_bad_scenario_cell_names_its_cell(cases, tmp_path):
    from tests.helpers import scenario_from_workbook
    from tests.helpers import set_cells

    path, book = cases
    edited = tmp_path / "bad.xlsx"
    set_cells(path, edited, {"hours_mfu_low": 3})
    with pytest.raises(ScenarioError) as caught:
        scenario_from_workbook(edited)
    assert f"Inputs!{book.names['hours_mfu_low'][1]} (hours_mfu_low)" in str(caught.value)
    assert "hours.mfu: value 3 is not allowed" in str(caught.value)


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_switching_the_scenario_dropdown_follows_the_engine(app, request, cases, tmp_path):
    """Copies of the example switched to low and to high recalculate, every formula cell, to the engine run on
    that scenario (what `planner verify` compares), the training cost as worked by hand, the snapshot check TRUE;
    a blank in the chosen column reads as base (the price: the GPU's Catalog price); an edit after generation
    turns the snapshot check FALSE (and not the master check); text in the high column, or an unknown GPU there,
    fails that input's every-column check and the master check, and blanks only high: with base shown its results
    are base's, with high shown they say n/a."""
    from tests.helpers import UNCOMPARED, build_in_memory, named, recalculated, set_cells

    spreadsheet = request.getfixturevalue(app)
    path, book = cases
    copies = {"low": {"scenario": "low"}, "high": {"scenario": "high"},
              "blank": {"scenario": "low", "hours_mfu_low": None, "price_per_gpu_hour_low": None},
              "edited": {"scenario": "high", "hours_mfu_high": 0.50},
              "text": {"hours_mfu_high": "fast"}, "text shown": {"scenario": "high", "hours_mfu_high": "fast"},
              "gpu": {"gpu_high": "no-such-gpu"}, "gpu shown": {"scenario": "high", "gpu_high": "no-such-gpu"}}
    paths = []
    for label, changes in copies.items():
        paths.append(tmp_path / f"{label}.xlsx")
        set_cells(path, paths[-1], changes)
    expected = [build_in_memory(cases_with(**changes), like=copy) if changes is not None else None
                 for changes, copy in zip([{"scenario": "low"}, {"scenario": "high"},
                                           {"scenario": "low", "low": {"hours.mfu": None,
                                                                       "price_per_gpu_hour": None}},
                                           {"scenario": "high", "high": {"hours.mfu": 0.50}}, None, None, None,
                                           None], paths)]
    expected[-4:] = [UNCOMPARED] * 4
    low, high, blank, edited, text, text_shown, gpu, gpu_shown = recalculated(spreadsheet, paths, expected)
    assert named(low, book, "hours_cost") == pytest.approx(cost_by_hand(15e12, 0.30, 1.80), rel=1e-9)
    assert named(high, book, "hours_cost") == pytest.approx(cost_by_hand(20e12, 0.45, 2.50), rel=1e-9)
    assert named(blank, book, "hours_cost") == pytest.approx(cost_by_hand(15e12, 0.40, 2.00), rel=1e-9)
    assert named(edited, book, "hours_cost") == pytest.approx(cost_by_hand(20e12, 0.50, 2.50), rel=1e-9)
    for values in (low, high):
        assert named(values, book, "scenarios_match_snapshot") is True
    assert named(blank, book, "crossover_tokens_per_day") == "product"  # the rest of low's column stays
    for values in (blank, edited):  # an edit since generation: the snapshot no longer matches
        assert named(values, book, "scenarios_match_snapshot") is False
    assert named(edited, book, "checks_all_pass") is True
    for values, column in ((text, "ok_hours_mfu_columns"), (gpu, "ok_gpu_columns")):  # base shown: base's results
        assert named(values, book, column) is False and named(values, book, "checks_all_pass") is False
        assert named(values, book, "ok_hours_mfu") is True and named(values, book, "ok_gpu") is True
        assert named(values, book, "hours_cost") == pytest.approx(cost_by_hand(15e12, 0.40, 2.00), rel=1e-9)
    assert named(text_shown, book, "ok_hours_mfu") is False and named(gpu_shown, book, "ok_gpu") is False
    for values in (text_shown, gpu_shown):
        assert named(values, book, "hours_cost") == "n/a: see Checks"
    for values in (text, text_shown, gpu, gpu_shown):
        assert [v for v in values.values() if isinstance(v, str) and v.startswith(("#", "Err:"))] == []


@pytest.mark.spreadsheet
def test_a_copy_saved_by_libreoffice_reads_back_as_the_scenario_it_shows(libreoffice, cases, tmp_path):
    """Switched to high and saved by LibreOffice, the workbook imports as the same base, the same scenarios and
    `scenario: high`, and verifies."""
    from tests.helpers import scenario_from_workbook
    from tests.helpers import recalculated, saved_by_libreoffice, set_cells

    path, _ = cases
    switched = tmp_path / "switched.xlsx"
    set_cells(path, switched, {"scenario": "high"})
    saved = saved_by_libreoffice(libreoffice, switched, tmp_path / "saved")
    back, original = scenario_from_workbook(saved), load_scenario(EXAMPLE)
    assert back.scenario == "high" and back.scenarios == original.scenarios
    assert back.model_dump(exclude={"scenario"}) == original.model_dump(exclude={"scenario"})
    values, = recalculated(libreoffice, [saved])
    assert values[("Inputs", _cell(saved, "gpu"))] == "h200"


def _cell(path, name: str) -> str:
    from tests.helpers import address

    return address(path, name)[1]
