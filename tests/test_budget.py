"""The Budget table (docs/method.md §9) end to end: the totals and budget months worked by hand (a run that ends
mid-month, compounding growth, the last serving month prorated, standby in and out of the total, a year's
subtotal), users that do not fit, the sheet recalculated in LibreOffice and Gnumeric with inputs edited in a copy,
and bad budget keys refused with their key and line."""

from __future__ import annotations

import math

import pytest

from planner.engine import compute
from tests.conftest import as_shipped
from tests.helpers import build_in_memory, named, recalculated, refused, scenario_with, set_cells

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

MONTH = 365.25 / 12  # 30.4375 days
PSI, VOCAB, HIDDEN, LAYERS = 8_030_261_248, 128_256, 4096, 32  # llama-3.1-8b
PRICE, D, HORIZON = 2.00, 1e11, 730  # h100-sxm's price; popular-app; the default horizon
OFFICE = [.05, .05, .05, .05, .05, .08, .15, .35, .70, .95, 1, 1, .90, .95, 1, .95, .80, .55, .30, .20, .15, .10,
          .08, .06]


def training_days(gpus: int) -> float:
    """§2: 6·Ψ·T / (989 TFLOPS · 40 % · 3600) GPU-hours, q = 1, over the run's GPUs."""
    return 6 * PSI * 15.6e12 / (989e12 * 0.40 * 3600) / gpus / 24


def tokens_per_second_per_gpu(users: int = 32) -> float:
    """§6 at the users, 8B on one H100: prefill compute-bound, decode memory-bound (s = 2,048, o = 6,144)."""
    psi_mm, s, o = PSI - VOCAB * HIDDEN, 2048, 6144
    prefill = users * (2 * psi_mm * s + LAYERS * s ** 2 * 2 * 32 * 128) / (989e12 * 0.5)
    tpot = (2 * psi_mm + users * (s + o / 2) * 131_072) / (3.35e12 * 0.7)
    return users * o / (prefill + o * tpot)


def standby(tokens_per_day: float, days: float, tok_s: float) -> float:
    """§9: the month's GPU-hours U = D·days/(3600·TokS); the fleet for its peak hour G = CEIL9(U/(days·Σf)·max f)
    (office assistant: Σf = 10.52, max f = 1); standby = (24·days·G − U) · price."""
    used = tokens_per_day * days / (3600 * tok_s)
    gpus = math.ceil(round(used / (days * sum(OFFICE)) * max(OFFICE), 9))
    return (24 * days * gpus - used) * PRICE


def test_a_run_ending_mid_month_then_growing_serving_months_by_hand():
    """256 GPUs: 85.9 days of training, three months, the third 25.0 days; then 24 serving months growing 5 % a
    month, the last 730 − 23 · 30.4375 = 29.9375 days."""
    results = compute(scenario_with(**{"hours.gpus": 256, "budget.monthly_growth": 0.05}))
    rows, h = results.budget.rows, results.headline
    days = training_days(256)
    assert days == pytest.approx(85.9, abs=0.05)
    assert h["budget_training_months"] == 3 and h["budget_months"] == math.ceil(730 / MONTH) == 24
    cost = 6 * PSI * 15.6e12 / (989e12 * 0.40 * 3600) * PRICE
    assert [r["phase"] for r in rows[:28]] == ["training"] * 3 + ["serving"] * 24 + [""]
    assert rows[2]["days"] == pytest.approx(days - 2 * MONTH)
    assert rows[2]["training"] == pytest.approx(cost * (days - 2 * MONTH) / days)
    tok_s = tokens_per_second_per_gpu()
    first, last = rows[3], rows[26]
    assert first["serving"] == pytest.approx(D * MONTH / (3600 * tok_s) * PRICE)
    assert last["days"] == pytest.approx(29.9375)
    assert last["tokens_per_day"] == pytest.approx(D * 1.05 ** 23)
    assert last["serving"] == pytest.approx(D * 1.05 ** 23 * 29.9375 / (3600 * tok_s) * PRICE)
    serving = sum(D * 1.05 ** (m - 1) * min(MONTH, HORIZON - (m - 1) * MONTH) for m in range(1, 25)) \
        / (3600 * tok_s) * PRICE
    assert h["budget_serving_cost"] == pytest.approx(serving)
    assert h["budget_average_month_total_cost"] == pytest.approx(cost + serving) and rows[26]["cumulative"] == \
        pytest.approx(cost + serving)
    # standby in its own row, not in the total
    assert first["standby"] == pytest.approx(standby(D, MONTH, tok_s))
    assert first["total"] == pytest.approx(first["serving"])


def test_without_growth_the_budget_equals_the_totals_and_standby_joins_when_asked():
    """Totals: 730 · D / (3600 · TokS) · price; per million served tokens price · 1e6 / (3600 · TokS)."""
    results = compute(scenario_with(**{"budget.include_standby": True}))
    h, tok_s = results.headline, tokens_per_second_per_gpu()
    serving = HORIZON * D / (3600 * tok_s) * PRICE
    assert h["budget_horizon_serving_cost"] == pytest.approx(serving) == h["budget_serving_cost"]
    assert h["budget_serving_cost_per_million_tokens"] == pytest.approx(PRICE * 1e6 / (3600 * tok_s))
    # every month at D: 1e11 / (3600 · TokS) = 13,796.75 GPU-hours a day, ĝ = 1,311.48, G = 1,312 GPUs, so 24 · 1,312
    # − 13,796.75 = 17,691.25 idle GPU-hours a day, $25,829,228 over 730 days
    idle = standby(D, HORIZON, tok_s)
    assert idle == pytest.approx((24 * 1312 - D / (3600 * tok_s)) * HORIZON * PRICE) == pytest.approx(25_829_228, abs=1)
    assert h["budget_standby_cost"] == pytest.approx(idle)
    assert h["budget_average_month_total_cost"] == pytest.approx(h["hours_cost"] + serving + idle)
    assert h["budget_horizon_total_cost"] == pytest.approx(h["hours_cost"] + serving)


def test_users_that_do_not_fit_leave_serving_figures_not_available():
    results = compute(scenario_with(**{"serving.users": 100}))
    h = results.headline
    na = "n/a: the users do not fit"
    assert h["budget_horizon_serving_cost"] == h["budget_serving_cost"] == h["budget_total_cost"] == \
        h["budget_average_month_total_cost"] == h["budget_standby_cost"] == h["plan_total_cost"] == na
    months = [r for r in results.budget.rows if r["phase"]]
    assert months[0]["total"] == h["hours_cost"] and months[1]["serving"] == months[1]["cumulative"] == na


@pytest.mark.spreadsheet
def test_the_sheet_recalculates_to_the_engine_after_edits(spreadsheet, default_workbook, default_book, tmp_path):
    """The default workbook and a copy with the run's GPUs, the growth and standby edited, recalculated."""
    original, book = default_workbook, default_book
    copy = tmp_path / "edited.xlsx"
    set_cells(original, copy, {"hours_gpus": 256, "budget_monthly_growth": 0.05, "budget_include_standby": True})
    keys = {"hours.gpus": 256, "budget.monthly_growth": 0.05, "budget.include_standby": True}
    with as_shipped():  # the shared default workbook has the shipped engines rows (not section_6_overheads' zeros)
        edited = build_in_memory(scenario_with(**keys), like=copy)
    outputs = recalculated(spreadsheet, [original, copy], [None, edited])
    assert named(outputs[1], book, "budget_training_months") == 3
    assert named(outputs[1], book, "budget_months") == 24


@pytest.mark.parametrize("budget, fragment", [
    ("{monthly_growth: 2}", "budget.monthly_growth: value 2 is not allowed"),
    ("{include_standby: maybe}", "budget.include_standby: value 'maybe' is not allowed"),
    ("{growth: 0.05}", "budget.growth: unknown key; did you mean 'monthly_growth'?"),
])
def test_bad_budget_keys_exit_2_naming_key_and_line(tmp_path, budget, fragment):
    output, path = refused(tmp_path, f"name: x\nbudget: {budget}\n")
    assert f"{path}:2: {fragment}" in output


def test_the_example_as_its_comment_works_it():
    """examples/budget-1-…: three training months, the third 25.0 days; 36 serving months, the last 29.6875 days;
    standby in the total."""
    from planner.scenario import load_scenario
    from tests.conftest import ROOT

    results = compute(load_scenario(ROOT / "examples" / "budget-1-8b-growing-traffic-with-standby.yaml"))
    rows, h = results.budget.rows, results.headline
    assert (h["budget_training_months"], h["budget_months"]) == (3, 36)
    assert rows[2]["days"] == pytest.approx(training_days(256) - 2 * MONTH)
    last = rows[3 + 35]
    assert last["days"] == pytest.approx(1095 - 35 * MONTH) and last["serving_month"] == 36
    tok_s = tokens_per_second_per_gpu()
    assert last["serving"] == pytest.approx(1e10 * 1.05 ** 35 * last["days"] / (3600 * tok_s) * PRICE)
    assert last["total"] == pytest.approx(last["serving"] + standby(1e10 * 1.05 ** 35, last["days"], tok_s))
