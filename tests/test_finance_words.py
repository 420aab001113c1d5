"""Finance words and one timeline (issue 43 item 4; findings 10-13 and two of 15): labels in words with the method's
symbols in the Notes column, one timeline (calendar months rolled into fiscal years), the money back of the owned
path said in its labels, the plan's end on its own path, training as columns in the Budget's chart, the Fleet's
integers a locked snapshot, the plan's drivers together at the top of Inputs."""

from __future__ import annotations

import datetime as dt
import re
import zipfile

import openpyxl
import pytest

from planner.engine import compute
from tests.helpers import scenario_with

# a label that is (or ends in) a symbol of the method: p_od, B*, ĝ, u*, N_own, δ φ σ ε, "Tensor parallel t"
SYMBOL = re.compile(r"[_*ĝδφσεκωΣλητρα]| [a-zA-Z]$")


def _labels(path, sheet: str) -> dict[int, tuple[str, str]]:
    """Each written label of column A (not a formula) with its row's note (the sheet's last text column)."""
    ws = openpyxl.load_workbook(path)[sheet]
    found = {}
    for row in ws.iter_rows():
        label = row[0].value
        if isinstance(label, str) and not label.startswith("="):
            texts = [c.value for c in row[1:] if isinstance(c.value, str) and not c.value.startswith("=")]
            found[row[0].row] = (label, texts[-1] if texts else "")
    return found


def test_cost_and_inputs_label_in_words_with_the_symbols_in_the_notes(default_workbook):
    """Finding 11: before, 22 of 117 labels on Cost and 9 of 105 on Inputs were symbols (p_od, B*, ĝ, u*, N_own,
    δ φ σ ε, "Training tokens T"). None now; each symbol opens its row's note instead."""
    for sheet in ("Cost", "Inputs"):
        labels = _labels(default_workbook, sheet)
        assert [label for label, _ in labels.values() if SYMBOL.search(label)] == [], sheet
    notes = {label: note for label, note in _labels(default_workbook, "Cost").values()}
    for label, symbol in (("On demand", "p_od"), ("Suggested baseline", "B*"), ("Owned GPUs", "N_own"),
                          ("Depreciation per GPU", "δ"), ("Break-even utilisation against on demand", "u*"),
                          ("GPUs in use at a profile fraction of 1, launch month", "ĝ")):
        assert notes[label].startswith(symbol), label
    inputs = {label: note for label, note in _labels(default_workbook, "Inputs").values()}
    assert inputs["Training tokens"].startswith("T: ") and inputs["Tensor parallel"].startswith("t: ")
    assert inputs["Contingency"].startswith("κ: ")


def test_one_timeline_no_year_of_twelve_months_from_the_first_training_month(default_workbook):
    """Finding 12: before, the Budget also summed "per year of twelve months from the first training month" (year 1
    €9,470,657 beside FY2027's €5,522,883). Only calendar months rolled into fiscal years remain (METHOD §13.2 maps
    §9's per-year subtotals onto fiscal years), on the sheet and in the JSON."""
    ws = openpyxl.load_workbook(default_workbook)["Budget"]
    texts = [c.value for row in ws.iter_rows() for c in row if isinstance(c.value, str)]
    assert not [t for t in texts if "twelve months" in t or t in ("Training per year", "Total per year")]
    assert any(t.startswith("Per fiscal year") for t in texts)
    data = compute(scenario_with()).to_json()
    assert "years" not in data["tables"]["budget"] and data["tables"]["calendar"]["fiscal_years"]


def test_the_owned_paths_money_back_is_said_in_its_labels(default_workbook):
    """Finding 13: a negative fiscal-year cash and an owned NPV above its total carried no words."""
    words = "money back: the GPUs sold at book value at the end"
    budget = [c.value for row in openpyxl.load_workbook(default_workbook)["Budget"].iter_rows() for c in row
              if isinstance(c.value, str)]
    assert [t for t in budget if t.startswith("Owned: cash per fiscal year") and words in t]
    cost = [label for label, _ in _labels(default_workbook, "Cost").values()]
    assert [t for t in cost if t.startswith("NPV over the plan") and words in t]


def test_the_plans_end_is_the_last_day_its_path_pays_for():
    """Finding 15: the default (on demand) suggests a committed baseline of 12 months from launch; before, its
    "… and ends" followed that commitment (the calendar's end, where the committed path still pays). Now it is
    E = S + D_tr + 730 days, the end of serving; on the committed path the baseline's end."""
    s = compute(scenario_with()).tables["cost"].scalars
    start = dt.date(2027, 1, 1).toordinal() - dt.date(1899, 12, 30).toordinal()
    assert s["start_date"] == start
    end = start + s["training_days"] + 730
    assert s["path_end"] == pytest.approx(end, abs=1e-9)
    assert s["plan_end"] > s["path_end"]  # the calendar runs on to the committed path's terms
    committed = compute(scenario_with(**{"budget.path": "committed"})).tables["cost"].scalars
    assert committed["path_end"] == committed["plan_end"] > end


def test_the_budget_chart_draws_training_as_columns(default_workbook):
    """Finding 15: before, a stacked area drew training as a ramp between months though it is paid in them."""
    with zipfile.ZipFile(default_workbook) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    [budget] = [c for c in charts if "path by month" in c]
    assert "<c:barChart>" in budget and '<c:barDir val="col"/>' in budget and "<c:areaChart>" not in budget
    assert '<c:grouping val="stacked"/>' in budget
    # a column a month wide on the date axis (without a base unit LibreOffice draws each a day wide, a hairline)
    assert '<c:lblOffset val="100"/><c:baseTimeUnit val="months"/>' in budget


def test_the_fleets_integers_are_a_locked_snapshot(example_files):
    """Finding 10: before, the Fleet's replica integers (840 in fleet-1) were unlocked input cells on a protected
    sheet. Now grey and locked: a stray keystroke cannot change what the search found (an edit of its inputs says
    "run the planner again" instead)."""
    from tests.conftest import ROOT
    path = example_files(ROOT / "examples" / "fleet-1-8b-five-gpus.yaml")["xlsx"]
    ws = openpyxl.load_workbook(path)["Fleet"]
    assert ws.protection.sheet
    headers = {"Replicas n", "Batch B", "Largest batch B*", "Replicas n_h"}
    columns = {cell.column for row in ws.iter_rows() for cell in row if cell.value in headers}
    integers = [cell for row in ws.iter_rows() for cell in row if cell.column in columns
                and isinstance(cell.value, (int, float)) and not isinstance(cell.value, bool)]
    assert len(integers) > 100
    assert all(cell.protection.locked for cell in integers)
    unlocked = [cell.coordinate for row in ws.iter_rows() for cell in row if not cell.protection.locked]
    assert unlocked == []


def test_the_plans_drivers_stand_together_at_the_top_of_inputs_under_their_own_names(default_workbook):
    """Finding 10: before, the plan's length was "Horizon" under Crossover, the demand a preset name among engineering
    inputs, the path, growth and start date under Budget and Cost. Now "The plan" is Inputs' first section: start
    date, horizon, demand, growth, path, currency and FX rate, each input under the defined name PRODUCT.md gives it
    (the scenario keys do not move; import reads the workbook back as its scenario, tests/test_roundtrip.py)."""
    from planner import xlsx
    from tests.helpers import address
    ws = openpyxl.load_workbook(default_workbook)["Inputs"]
    sections = [(cell.row, cell.value) for cell in ws["A"] if isinstance(cell.value, str) and cell.value.strip()
                and cell.font.bold and cell.row > 4]
    first, title = sections[0]
    assert title.startswith("The plan")
    end = sections[1][0]
    book = xlsx.read(default_workbook)
    for name in ("budget_start_date", "crossover_horizon_days", "crossover_tokens_per_day", "budget_monthly_growth",
                 "budget_path", "currency", "fx_rate"):
        sheet, ref = address(book, name)
        assert sheet == "Inputs" and first < xlsx.split(ref)[1] < end, name
    model = xlsx.split(address(book, "model")[1])[1]
    assert model > end
