"""The Sensitivity table (docs/method.md §9): grid cells and tornado bars worked by hand, a cell above B_max in
words, and the sheet recalculated in LibreOffice and Gnumeric after inputs are edited in a copy: the headings
re-centre and each middle cell equals its headline."""

from __future__ import annotations

import datetime as dt

import pytest

from planner.engine import compute
from tests.conftest import as_shipped
from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells
from tests.test_budget import D, HORIZON, PRICE, PSI, tokens_per_second_per_gpu

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

C = 6 * PSI * 15.6e12  # the default's training operations
PEAK = 989e12


def test_grid_cells_by_hand():
    """Training cost at MFU 30 % (×0.75) and 2.50 (×1.25); days on 512 GPUs (×0.5) at 60 % MFU (×1.5); the
    crossing day at 5e10 tokens a day (×0.5) and 15 % serving MFU (×1.5): 3·T/D · 0.15/0.40 = 351 days; the cost
    per million tokens at 16 users (×0.5) and 1.00 (×0.5)."""
    grids = compute(scenario_with()).sensitivity.grids
    assert grids["training_cost"]["cells"][1][3] == pytest.approx(C / (PEAK * 0.30 * 3600) * 2.50)
    assert grids["days"]["rows"][0] == 512 and grids["days"]["columns"][4] == pytest.approx(0.60)
    assert grids["days"]["cells"][0][4] == pytest.approx(C / (PEAK * 0.60 * 3600) / 512 / 24)
    assert grids["crossing_day"]["cells"][0][4] == pytest.approx(3 * 15.6e12 / 5e10 * 0.15 / 0.40) == 351
    assert grids["cost_per_million_tokens"]["cells"][0][0] == pytest.approx(1.00 * 1e6 /
                                                                            (3600 * tokens_per_second_per_gpu(16)))


def test_the_middle_cells_are_the_headlines_and_users_above_b_max_say_so():
    results = compute(scenario_with(**{"serving.users": 40}))  # ×1.5 = 60 sequences, above B_max = 52
    grids, h = results.sensitivity.grids, results.headline
    for key, name in (("training_cost", "hours_cost"), ("days", "hours_days"),
                      ("crossing_day", "crossover_day_gpu_hours"),
                      ("cost_per_million_tokens", "serving_cost_per_million_tokens")):
        assert grids[key]["cells"][2][2] == pytest.approx(h[name], rel=1e-9), key
    assert grids["cost_per_million_tokens"]["rows"] == [20, 30, 40, 50, 60]
    assert [row[0] for row in grids["cost_per_million_tokens"]["cells"]][3:] == [pytest.approx(
        1.00 * 1e6 / (3600 * tokens_per_second_per_gpu(50))), "B > B_max"]


def test_tornado_bars_by_hand():
    """Price moves the whole total by ±20 %; training tokens move training's part by ±20 %; MFU at ×0.8 costs a
    quarter more training; productive share at ×1.2 is capped at 100 %, so it moves nothing that way."""
    t = compute(scenario_with()).sensitivity
    training = C / (PEAK * 0.40 * 3600) * PRICE
    serving = HORIZON * D / (3600 * tokens_per_second_per_gpu()) * PRICE
    base = training + serving
    assert t.scalars["total_cost"] == pytest.approx(base)
    bars = {line["input"]: line for line in t.sorted}
    assert bars["Price per GPU-hour"]["change_high"] == pytest.approx(0.2 * base)
    assert bars["Training tokens"]["change_low"] == pytest.approx(-0.2 * training)
    assert bars["Training MFU"]["change_low"] == pytest.approx(0.25 * training)
    assert bars["Served tokens per day"]["change_high"] == pytest.approx(0.2 * serving)
    assert bars["Productive share"]["change_high"] == 0 and bars["Productive share"]["change_low"] == \
        pytest.approx(0.25 * training)
    # the horizon at ×0.8 and ×1.2 is 584 and 876 days of serving at D: the same swing as D's (line order keeps D
    # first)
    assert bars["Serving horizon"]["change_low"] == pytest.approx(-0.2 * serving)
    assert bars["Serving horizon"]["change_high"] == pytest.approx(0.2 * serving)
    # growth of 0 moves by +0.01 a month: the m-th month from launch (from one monthly anniversary of L,
    # 2027-01-22 11:24, to the next) serves D·1.01^m a day; 730 days end at 2029-01-21 11:24
    launch = dt.datetime(2027, 1, 1) + dt.timedelta(days=C / (PEAK * 0.40 * 3600) / 1024 / 24)
    end = launch + dt.timedelta(days=HORIZON)
    steps = [launch.replace(year=launch.year + (launch.month - 1 + m) // 12, month=(launch.month - 1 + m) % 12 + 1)
             for m in range(26)]
    days = [(min(b, end) - a).total_seconds() / 86400 for a, b in zip(steps, steps[1:]) if a < end]
    grown = sum(1.01 ** m * d for m, d in enumerate(days)) / HORIZON * serving
    assert bars["Monthly traffic growth"]["change_high"] == pytest.approx(grown - serving, rel=1e-9)
    # swings: price 0.4·base, D and the horizon 0.4·serving, growth, MFU (1/0.8 − 1/1.2)·training, T 0.4·training,
    # q 0.25·training
    order = [line["input"] for line in t.sorted]
    assert [name for name in order if name != "Bandwidth efficiency"] == [
        "Price per GPU-hour", "Served tokens per day", "Serving horizon", "Monthly traffic growth",
        "Training MFU", "Training tokens", "Productive share"]


@pytest.mark.spreadsheet
def test_the_middle_cells_follow_an_edit_in_a_copy(spreadsheet, default_workbook, default_book, tmp_path):
    """MFU 50 %, 20e9 tokens a day and 16 users typed into a copy: the headings re-centre on them and every middle
    cell equals its headline after recalculation (relative 1e-9); the training cost's middle by hand."""
    original, book = default_workbook, default_book
    copy = tmp_path / "edited.xlsx"
    set_cells(original, copy, {"hours_mfu": 0.5, "crossover_tokens_per_day": 20_000_000_000, "serving_users": 16})
    keys = {"hours.mfu": 0.5, "crossover.tokens_per_day": 20_000_000_000, "serving.users": 16}
    with as_shipped():  # the shared default workbook has the shipped engines rows (not section_6_overheads' zeros)
        edited = build_in_memory(scenario_with(**keys), like=copy)
    outputs = recalculated(spreadsheet, [original, copy], [None, edited])
    values = outputs[1]
    for grid, headline in (("training_cost", "hours_cost"), ("days", "hours_days"),
                           ("crossing_day", "crossover_day_gpu_hours"),
                           ("cost_per_million_tokens", "serving_cost_per_million_tokens")):
        assert named(values, book, f"sensitivity_{grid}_middle") == pytest.approx(named(values, book, headline),
                                                                                  rel=1e-9), grid
    assert named(values, book, "sensitivity_training_cost_middle") == pytest.approx(C / (PEAK * 0.5 * 3600) * PRICE)
    sheet, middle = book.names["sensitivity_training_cost_middle"]
    row = int(middle[1:])
    assert values[(sheet, f"A{row}")] == pytest.approx(0.5)  # the middle row's heading: MFU as edited
