"""The cost of ownership (docs/method.md §13): every number the worked examples 1-7 print, at the precision printed,
from the engine's plain-value functions; the edge cases, checks and warnings of §13.10.

The examples' inputs are the default scenario's §2 and §6 figures (C, H and TokS = 2,013.36 at 32 users for 8B on
an H100, 348.4305 for 70B on 4 × H100), taken from the Hours and Serving engines, and §9's average-month figures
from the Budget engine, where the bridge starts. Start 2027-01-01 (serial 46,388)."""

from __future__ import annotations

import dataclasses
import datetime as dt

import numpy as np
import pytest

from planner import shipped
from planner.engine import calendar as cal
from planner.engine.fleet import PlanFleet
from planner.engine import compute
from planner.engine import cost
from planner.engine.plan import inputs as plan_inputs
from planner.engine.plan import months as plan_months
from planner.engine.plan import prices as plan_prices
from planner.engine import shared
from planner.engine import gpus as side
from tests.helpers import scenario_with

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

S = 46_388
OFFICE, GLOBAL = shipped.PROFILES["office-assistant"], shipped.PROFILES["global-app"]


def printed(value, text: str) -> None:
    """`value` as the worked example prints it: "1,318,370" to the unit, "0.993607" to six decimals."""
    number = float(text.replace(",", ""))
    decimals = len(text.split(".")[1]) if "." in text else 0
    assert abs(value - number) <= 0.5 * 10 ** -decimals * (1 + 1e-9), (value, text)


GENERATED = dt.date(2026, 12, 2)  # the examples' generation date: the default start is 2027-01-01


@pytest.fixture(scope="module")
def figures():
    """Each example scenario's plan as the engine's tables give it (§2's GPU-hours and days, §6's throughput, §9's
    average-month figures), read by `plan_inputs.plan_for`."""
    found = {}
    for key, changes in (("default", {}), ("three_years", {"crossover.horizon_days": 1095}),
                         ("70b", {"model": "llama-3.1-70b", "serving.tensor_parallel": 4})):
        scenario = scenario_with(**changes)
        found[key] = plan_inputs.plan_for(scenario, compute(scenario).tables, GENERATED)
    return found


def plan(figures, key="default", **changes) -> plan_inputs.Plan:
    """An example's plan (8B on H100 at $2.00, N_run 1,024, D = 1e11, 730 days, office-assistant) with changes."""
    return dataclasses.replace(figures[key], **changes)


def owning(figures, **changes) -> plan_inputs.Owning:
    """The default scenario's ownership inputs (H100: $45,000 and 1.275 kW per GPU) with changes."""
    return dataclasses.replace(figures["default"].owning, **changes)


def test_the_plan_starts_on_the_date_given_or_the_first_of_the_month_after_generation(figures):
    assert figures["default"].start == S  # generated 2026-12-02
    scenario = scenario_with(**{"budget.start_date": "2027-03-15", "currency": "EUR", "fx_rate": 0.92})
    p = plan_inputs.plan_for(scenario, compute(scenario).tables, GENERATED)
    assert p.start == S + 31 + 28 + 14 and p.fx == 0.92 and p.currency == "EUR"
    assert p.average_month.training_cost == pytest.approx(0.92 * figures["default"].average_month.training_cost)
    t = cost.cost_of(p)
    assert t.rows[0]["month_start"] == S + 31 + 28 and t.scalars["price_on_demand"] == pytest.approx(1.84)


def in_plan(table):
    return [r for r in table.rows if r["in_plan"]]


def npv_of(table, column):
    return sum(r[column] * r["discount"] for r in in_plan(table))


# Example 1: §9's budget on the calendar ---------------------------------------------------------------------------
def test_example_1_the_budget_on_calendar_months(figures):
    t = cost.cost_of(plan(figures))
    s, months = t.scalars, in_plan(t)
    printed(s["training_days"], "21.4751")
    assert cal.date_of(s["launch_date"]).isoformat() == "2027-01-22" and s["months"] == len(months) == 25
    printed(cal.time_of_day(s["launch_date"]) * 24 * 60, "684")  # 11:24
    printed(figures["default"].tokens_per_s_per_gpu, "2,013.36")
    printed(1e11 / (3600 * figures["default"].tokens_per_s_per_gpu), "13,796.75")  # GPU-hours a day
    first = months[0]
    printed(first["training_days"], "21.4751")
    printed(first["serving_days"], "9.5249")
    printed(first["training"], "1,055,545")
    printed(first["on_demand_serving"], "262,825")
    printed(first["on_demand_total"], "1,318,370")
    assert months[1]["days"] == 28
    printed(months[1]["on_demand_total"], "772,618")
    assert months[23]["days"] == 31 and cal.date_of(months[23]["month_start"]).isoformat() == "2028-12-01"
    printed(months[23]["on_demand_total"], "855,398")
    printed(months[24]["serving_days"], "20.4751")
    printed(months[24]["on_demand_total"], "564,980")
    printed(t.headline["tco_total_cost"], "21,198,797")
    assert t.headline["tco_total_cost"] == pytest.approx(figures["default"].average_month.total_cost, rel=1e-12)
    years = {fy["fiscal_year"]: fy["on_demand_total"] for fy in t.fiscal_years}
    assert list(years) == ["FY2027", "FY2028", "FY2029"]  # calendar years by default
    for label, amount in (("FY2027", "10,534,597"), ("FY2028", "10,099,220"), ("FY2029", "564,980")):
        printed(years[label], amount)
    assert sum(r["days"] for r in months if r["fiscal_year"] == "FY2028") == 366
    assert all(t.checks.values()) and not any(t.warnings.values())


def test_rows_outside_the_plan_keep_days_and_demand_and_blank_money(figures):
    t = cost.cost_of(plan(figures))
    assert len(t.rows) == 25 + 24  # the plan's 25 months and budget.spare_months's 24
    after = t.rows[25]
    assert not after["in_plan"] and after["fiscal_year"] == "" and after["on_demand_total"] == ""
    assert after["days"] == 28 and after["serving_days"] == 0 and after["committed_gpus"] == 0  # February 2029


# Example 2: rent against own --------------------------------------------------------------------------------------
def test_example_2_the_owned_cost_per_gpu_hour(figures):
    s = cost.cost_of(plan(figures, "three_years", horizon_days=1095)).scalars
    printed(s["own_depreciation_per_day"], "27.720739")
    printed(s["own_depreciation_per_day"] * 365.25, "10,125")
    printed(s["own_facility_per_day"], "7.710111")
    printed(s["own_facility_per_day"] * 365.25, "2,816.118")
    printed(s["own_staff_per_day"], "1.368925")
    printed(s["own_staff_per_day"] * 365.25, "500")
    printed(s["own_energy_per_day"], "3.182400")
    printed(s["own_energy_per_day"] / 24, "0.1326")
    printed(s["own_depreciation_per_day"] + s["own_facility_per_day"] + s["own_staff_per_day"]
            + s["own_energy_per_day"], "39.982175")
    printed(s["own_cost_per_gpu_hour"], "1.665924")
    printed(s["own_break_even_utilisation"], "0.833")
    assert s["own_break_even_utilisation_1y"] == s["own_break_even_utilisation_3y"] == plan_prices.NEVER  # 1.041, 1.281
    for key, amount in (("cost_per_million_on_demand", "0.2759"), ("cost_per_million_committed_1y", "0.2207"),
                        ("cost_per_million_committed_3y", "0.1794"), ("own_cost_per_million_tokens", "0.2298"),
                        ("tokens_per_s_per_mw", "1,214,695")):
        printed(s[key], amount)


def test_example_2_office_assistant_owning_loses_to_renting(figures):
    t = cost.cost_of(plan(figures, "three_years", horizon_days=1095))
    s, h, months = t.scalars, t.headline, in_plan(t)
    assert len(months) == 37 and cal.date_of(s["serving_end"]).isoformat() == "2030-01-21"
    printed(sum(r["on_demand_serving"] for r in months), "30,214,878")
    printed(h["tco_on_demand_total_cost"], "31,270,423")
    printed(months[0]["training"] * months[0]["discount"], "1,048,797")
    printed(npv_of(t, "on_demand_serving"), "26,771,604")
    printed(h["tco_on_demand_npv"], "27,820,401")
    printed(s["launch_scale"], "1,311.478")
    assert h["own_gpus"] == 1312
    printed(h["own_utilisation"], "0.4382")
    printed(t.totals["owned_serving"], "57,439,993")
    printed(sum(r["depreciation"] for r in months), "39,824,723")
    printed(sum(r["opex"] for r in months), "17,615,270")
    printed(h["tco_owned_total_cost"], "58,495,538")
    printed(s["own_cost_per_million_tokens_at_plan"], "0.5246")
    assert months[0]["capex"] == h["own_capex"] == 59_040_000
    printed(months[36]["book_value"], "19,215,277")
    assert cal.date_of(months[36]["month_start"]).isoformat() == "2030-01-01"
    printed(months[0]["depreciation"], "346,416")
    printed(months[0]["opex"], "153,227")
    printed(months[0]["capex"] * months[0]["discount"], "58,662,563")
    printed(npv_of(t, "opex"), "15,607,841")
    printed(months[36]["book_value"] * months[36]["discount"], "15,156,191")
    printed(h["tco_owned_npv"], "60,163,011")


def test_example_2_office_assistant_committed_baseline(figures):
    t = cost.cost_of(plan(figures, "three_years", horizon_days=1095))
    s = t.scalars
    printed(s["price_baseline_effective"], "1.60146")
    assert s["serving_commitment_end"] - s["launch_date"] == pytest.approx(1096)
    assert s["baseline_hours"] == 20 and plan_prices.large(OFFICE, 20) == 0.05
    assert s["serving_baseline_gpus_suggested"] == s["serving_baseline_gpus_used"] == 65
    printed(t.headline["tco_committed_total_cost"], "30,589,639")
    printed(t.headline["tco_committed_npv"], "27,216,956")


def test_example_2_global_app_committed_is_cheapest_and_owning_loses_once_money_costs(figures):
    t = cost.cost_of(plan(figures, "three_years", horizon_days=1095, profile=GLOBAL))
    s, h, months = t.scalars, t.headline, in_plan(t)
    assert sum(GLOBAL) == pytest.approx(21.10)
    printed(s["launch_scale"], "653.874")
    assert h["own_gpus"] == 654
    printed(h["own_utilisation"], "0.8790")
    printed(t.totals["owned_serving"], "28,632,435")
    printed(h["tco_owned_total_cost"], "29,687,980")
    printed(h["tco_on_demand_total_cost"] - h["tco_owned_total_cost"], "1,582,443")
    printed(months[0]["capex"] * months[0]["discount"], "29,241,857")
    printed(months[36]["book_value"] * months[36]["discount"], "7,554,992")
    printed(h["tco_owned_npv"], "30,515,791")
    printed(h["tco_owned_npv"] - h["tco_on_demand_npv"], "2,695,390")
    assert s["serving_baseline_gpus_suggested"] == 510 and plan_prices.large(GLOBAL, 20) == 0.78
    printed(h["tco_committed_total_cost"], "26,071,893")
    printed(h["tco_committed_npv"], "23,212,388")
    assert h["tco_committed_total_cost"] == min(h[f"tco_{p}_total_cost"] for p in plan_months.PATHS)
    assert h["tco_committed_npv"] == min(h[f"tco_{p}_npv"] for p in plan_months.PATHS)


# Example 3: a 70B serving plan, committed baseline plus on-demand burst --------------------------------------------
def example_3(figures, **changes):
    return cost.cost_of(plan(figures, "70b", allocated_gpu_hours=0, training_days=0, tokens_per_day=1e10,
                             horizon_days=365, profile=GLOBAL, path="committed", **changes))


def test_example_3_the_suggested_baseline_and_january(figures):
    t = example_3(figures)
    s, january = t.scalars, in_plan(t)[0]
    printed(figures["70b"].tokens_per_s_per_gpu, "348.4305")
    printed(cost.cost_per_million_tokens(2.0, figures["70b"].tokens_per_s_per_gpu), "1.5945")
    assert s["launch_date"] == S and s["training_tier_cost"] == 0 and january["training"] == 0
    printed(1e10 / (3600 * figures["70b"].tokens_per_s_per_gpu), "7,972.258")
    printed(s["launch_scale"], "377.8321")
    assert s["serving_commitment_end"] == S + 365 and s["price_baseline_effective"] == pytest.approx(1.60)
    assert s["baseline_hours"] == 20 and s["serving_baseline_gpus_suggested"] == 294
    printed(january["serving_gpu_hours"], "247,140.0")
    printed(january["baseline"], "349,978")
    printed(294 / january["scale"], "0.77812")
    assert sum(f > round(294 / january["scale"], 9) for f in GLOBAL) == 20
    printed(sum(f for f in GLOBAL if f > 0.77812), "18.08")
    printed(january["burst_committed"] / 2.0 / 31, "951.205")
    printed(january["burst_committed"] / 2.0, "29,487.35")
    printed(january["burst_committed"], "58,975")
    printed(january["committed_total"], "408,952")
    printed(january["on_demand_total"], "494,280")


def test_example_3_the_year_committed_and_on_demand(figures):
    t = example_3(figures)
    h, months = t.headline, in_plan(t)
    assert len(months) == 12
    printed(h["tco_total_cost"], "4,815,084")
    printed(sum(r["baseline"] for r in months), "4,120,704")
    printed(sum(r["burst_committed"] for r in months), "694,380")
    printed(h["tco_npv"], "4,618,841")
    printed(h["tco_on_demand_total_cost"], "5,819,748")
    printed(h["tco_on_demand_npv"], "5,582,559")
    printed(1 - h["tco_total_cost"] / h["tco_on_demand_total_cost"], "0.173")
    printed(example_3(figures, baseline_gpus=300).headline["tco_total_cost"], "4,815,442")


def test_example_3_a_three_year_term_for_a_one_year_plan(figures):
    t = example_3(figures, baseline_tier="committed_3y")
    s = t.scalars
    assert s["serving_commitment_end"] == cal.serial(dt.date(2030, 1, 1))
    printed(s["price_baseline_effective"], "3.9036")
    assert s["serving_baseline_gpus_suggested"] == 0 and t.scalars["months"] == 12  # commit nothing
    forced = example_3(figures, baseline_tier="committed_3y", baseline_gpus=294)
    months = in_plan(forced)
    assert len(months) == 36 and forced.warnings["tco_warn_commitment_longer_than_serving"]
    printed(forced.headline["tco_total_cost"], "10,747,768")
    printed(sum(r["baseline"] for r in months[12:]), "6,705,317")


# Example 4: NPV, fiscal years, contingency, escalation, currency ---------------------------------------------------
def example_4(figures):
    average = figures["three_years"].average_month
    in_eur = plan_inputs.AverageMonth(training_cost=average.training_cost * 0.92,
                                      serving_cost=average.serving_cost * 0.92)
    return cost.cost_of(plan(figures, "three_years", horizon_days=1095, currency="EUR", fx=0.92,
                             first_fiscal_month=7, contingency=0.10, escalation=0.03, average_month=in_eur))


def test_example_4_rows_in_eur_with_fiscal_years_escalation_and_contingency(figures):
    t = example_4(figures)
    s, months = t.scalars, in_plan(t)
    printed(s["price_on_demand"], "1.84")
    printed(s["training_tier_cost"], "971,101")
    printed(months[0]["training"], "971,101")
    printed(months[0]["on_demand_serving"], "241,799")
    for k, fy, e, df, total in ((1, "FY2027", "1", "0.993607", "1,334,190"), (12, "FY2028", "1", "0.925926",
                                                                              "865,663"),
                                (13, "FY2028", "1.03", "0.920007", "891,633"),
                                (25, "FY2029", "1.0609", "0.851858", "918,382"),
                                (37, "FY2030", "1.0927", "0.788757", "624,777")):
        row = months[k - 1]
        assert row["fiscal_year"] == fy, k
        printed(row["escalation"], e)
        printed(row["discount"], df)
        printed(row["on_demand_total"], total)
    years = {fy["fiscal_year"]: fy["on_demand_total"] for fy in t.fiscal_years}
    for label, amount in (("FY2027", "5,522,883"), ("FY2028", "10,372,879"), ("FY2029", "10,654,440"),
                          ("FY2030", "6,075,819")):
        printed(years[label], amount)
    assert months[5]["fiscal_year"] == "FY2027" and months[6]["fiscal_year"] == "FY2028"  # June, then July 2027


def test_example_4_totals_npv_and_the_bridge_in_eur(figures):
    t = example_4(figures)
    h = t.headline
    printed(h["tco_subtotal"], "29,660,018")
    printed(h["tco_contingency_cost"], "2,966,002")
    printed(h["tco_total_cost"], "32,626,020")
    printed(h["tco_npv"], "28,978,895")
    lines = {line["line"]: line["amount"] for line in t.bridge}
    printed(lines["average_month_total"], "28,768,789")
    printed((1_055_545 + 30_214_878) * 0.92, "28,768,789")
    for key in ("standby", "training_tier", "other", "path"):
        assert lines[key] == 0, key
    assert lines["calendar_months"] == 0  # to the cent
    printed(lines["escalation"], "891,229")
    printed(lines["contingency"], "2,966,002")
    printed(lines["total"], "32,626,020")
    assert lines["total"] == pytest.approx(h["tco_total_cost"], abs=0.05)  # eight lines, each to the cent
    assert all(t.checks.values())


# Example 5: GPUs side by side --------------------------------------------------------------------------------------
EXAMPLE_5 = {  # gpu: training GPU-h, cost, days, B_max, TokS, $/M at 32 (at B_max), tok/s per MW, rent, fleet, own, u*
    "a100-80gb": ("1,672,971", "2,509,457", "68.07", 52, "1,201.9", "0.3467", "0.2940", "1,137,870", "1,055,208",
                  2197, "1,379,590", "0.573"),
    "h100-sxm": ("527,772", "1,055,545", "21.48", 52, "2,013.4", "0.2759", "0.2332", "1,214,695", "839,877", 1312,
                 "1,596,648", "0.833"),
    "h200": ("527,772", "1,319,431", "21.48", 103, "2,858.7", "0.2429", "0.1761", "1,724,707", "739,397", 924,
             "1,211,094", "0.718"),
    "b200": ("231,985", "1,043,934", "9.44", 135, "4,803.0", "0.2603", "0.1804", "2,066,910", "792,151", 550,
             "948,873", "0.525"),
    "mi300x": ("399,363", "798,725", "16.25", 145, "3,172.1", "0.1751", "0.1204", "1,786,302", "533,074", 833,
               "846,012", "0.695"),
}


def test_example_5_the_gpus_side_by_side(figures):
    rows = []
    for gpu_id in EXAMPLE_5:
        r = compute(scenario_with(gpu=gpu_id))
        sv, g = r.tables["serving"].headline, shipped.GPUS[gpu_id]
        rows.append(side.GPURow(gpu=gpu_id, peak_tflops=g.peak_tflops, fp8_tflops=g.fp8_tflops,
                                price_per_hour=g.price_per_hour, server_price=g.server_price, server_kw=g.server_kw,
                                max_users=sv["serving_max_concurrency"],
                                tokens_per_s_per_gpu=sv["serving_tokens_per_s_per_gpu"],
                                tokens_per_s_per_gpu_at_max=sv["serving_tokens_per_s_per_gpu_at_max"]))
        flops = r.tables["hours"].scalars["training_flops"]
    shared = side.Shared(training_flops=flops, mfu=0.40, productive_share=1.0, run_gpus=1024, fp8=False, users=32,
                         tokens_per_day=1e11, profile=OFFICE, fx=1.0,
                         owning=owning(figures, server_price=None, server_kw=None))
    table = {row["gpu"]: row for row in side.side_by_side(rows, shared)}
    for gpu_id, (hours, money, days, b_max, tok_s, per_m, per_m_max, per_mw, rent, fleet, own, u) in \
            EXAMPLE_5.items():
        row = table[gpu_id]
        printed(row["training_gpu_hours"], hours)
        printed(row["training_cost"], money)
        printed(row["training_days"], days)
        assert row["max_users"] == b_max and row["batch"] == 32 and row["batch_is"] == "users"
        printed(row["tokens_per_s_per_gpu"], tok_s)
        printed(row["cost_per_million"], per_m)
        printed(row["cost_per_million_at_max"], per_m_max)
        printed(row["tokens_per_s_per_mw"], per_mw)
        printed(row["rent_per_month"], rent)
        assert row["owned_fleet"] == fleet, gpu_id
        printed(row["own_per_month"], own)
        printed(row["break_even_utilisation"], u)
        printed(row["fleet_utilisation"], "0.438")  # the profile's mean: renting wins on every GPU
        assert row["fleet_utilisation"] < row["break_even_utilisation"]
    assert [g for g, row in table.items() if row["cheapest_rent"]] == ["mi300x"]
    assert [g for g, row in table.items() if row["cheapest_own"]] == ["mi300x"]


def test_a_gpu_row_that_does_not_fit_or_has_no_server_price_says_so(figures):
    row = side.GPURow(gpu="small", peak_tflops=100, fp8_tflops=None, price_per_hour=1.0, server_price=None,
                      server_kw=None, max_users=0, tokens_per_s_per_gpu=None, tokens_per_s_per_gpu_at_max=None)
    shared = side.Shared(training_flops=3.6e20, mfu=0.5, productive_share=0.5, run_gpus=10, fp8=True, users=4,
                         tokens_per_day=1e9, profile=OFFICE, fx=1.0, owning=owning(figures))
    [found] = side.side_by_side([row], shared)
    assert found["training_gpu_hours"] == pytest.approx(2000)  # 3.6e20/(100e12·0.5·3600): no FP8 peak, BF16
    assert found["training_cost"] == pytest.approx(4000) and found["training_days"] == pytest.approx(4000 / 240)
    assert found["cost_per_million"] == found["rent_per_month"] == side.DOES_NOT_FIT
    assert not found["cheapest_rent"] and not found["cheapest_own"]


# Example 6: unit economics -------------------------------------------------------------------------------------------
def test_example_6_unit_economics(figures):
    t = cost.cost_of(plan(figures, active_users=1_000_000, price_input_per_million=0.10,
                          price_output_per_million=0.40))
    u, h = t.unit, t.headline
    printed(1e11 / 6144, "16,276,041.7")
    printed(u["requests"], "11,881,510,417")
    assert u["input_tokens"] == pytest.approx(2.4333e13, rel=5e-5) and u["output_tokens"] == pytest.approx(7.3e13)
    printed(u["serving_cost"], "20,143,252")
    printed(h["unit_cost_per_request"], "0.001695")
    printed(h["unit_cost_per_user_per_month"], "0.8399")
    printed(u["input_tokens"] * 0.10 / 1e6, "2,433,333")
    printed(h["unit_revenue"], "31,633,333")
    printed(h["unit_margin"], "11,490,081")
    printed(h["unit_margin_share"], "0.363")
    printed(u["plan_margin"], "10,434,536")
    printed(h["unit_break_even_price_output"], "0.2426")
    assert sum(r["revenue"] for r in in_plan(t)) == pytest.approx(u["revenue"])


def test_unit_economics_are_blank_without_prices_and_users(figures):
    t = cost.cost_of(plan(figures))
    assert t.headline["unit_cost_per_user_per_month"] is None and t.headline["unit_revenue"] is None
    assert t.headline["unit_break_even_price_output"] is None
    zero_users = cost.cost_of(plan(figures, active_users=0)).headline["unit_cost_per_user_per_month"]
    assert zero_users == cost.NO_USERS


# Example 7: the training run on each tier --------------------------------------------------------------------------
def test_example_7_training_on_each_tier(figures):
    on_demand = cost.cost_of(plan(figures)).scalars
    printed(on_demand["training_tier_cost"], "1,055,545")
    printed(on_demand["training_days"], "21.4751")
    spot = cost.cost_of(plan(figures, training_tier="spot")).scalars
    printed(figures["default"].allocated_gpu_hours * 1.10, "580,549.7")
    assert spot["price_training"] == 1.0
    printed(spot["training_tier_cost"], "580,550")
    printed(spot["training_days"], "23.6226")
    one = cost.cost_of(plan(figures, training_tier="committed_1y"))
    printed(one.scalars["training_tier_cost"], "14,352,384")
    assert one.scalars["training_commitment_end"] == cal.serial(dt.date(2028, 1, 1))
    printed(one.scalars["training_used_cost"], "844,436")
    printed(one.scalars["training_unused_cost"], "13,507,948")
    printed(one.scalars["training_unused_cost"] / one.scalars["training_tier_cost"], "0.941")
    assert sum(r["training"] for r in in_plan(one)) == pytest.approx(14_352_384, abs=0.5)
    assert one.warnings["tco_warn_training_commitment_unused"] and all(one.checks.values())
    three = cost.cost_of(plan(figures, training_tier="committed_3y")).scalars
    printed(three["training_tier_cost"], "35,015,885")
    printed(three["training_unused_cost"] / three["training_tier_cost"], "0.980")


def test_the_plan_end_covers_a_training_commitment_and_the_months_bill_it(figures):
    t = cost.cost_of(plan(figures, training_tier="committed_1y"))
    months = in_plan(t)
    s = t.scalars  # the plan ends with the serving baseline's two 1-year terms, after training's one
    assert s["training_commitment_end"] < s["serving_end"] < s["plan_end"] == s["serving_commitment_end"]
    assert s["serving_commitment_end"] - s["launch_date"] == 731 and s["months"] == len(months) == 25
    assert months[0]["training"] == pytest.approx(1024 * 24 * 31 * 1.6)  # every hour of January, used or not
    assert months[12]["training"] == 0  # January 2028: the term ended on 1 January


# Growth: the bridge's calendar-months line ------------------------------------------------------------------------
def test_with_growth_the_calendar_months_line_is_small_and_ignores_everything_but_growth_and_price(figures):
    r = compute(scenario_with(**{"budget.monthly_growth": 0.05, "crossover.horizon_days": 500,
                                 "cluster.profile": "consumer-evening"}))
    hours, budget = r.tables["hours"].scalars, r.tables["budget"].scalars
    lines = {}
    for fx, extra in ((1.0, {}), (1.1, {"currency": "EUR", "escalation": 0.03, "contingency": 0.1})):
        average = plan_inputs.AverageMonth(training_cost=hours["cost"] * fx, serving_cost=budget["serving_cost"] * fx)
        t = cost.cost_of(plan(figures, horizon_days=500, monthly_growth=0.05, profile=shipped.PROFILES[
            "consumer-evening"], training_tier="spot", fx=fx, average_month=average, **extra))
        lines[fx] = {line["line"]: line["amount"] for line in t.bridge}
        assert lines[fx]["total"] == pytest.approx(t.headline["tco_total_cost"], abs=0.05)  # lines to the cent
    printed(lines[1.0]["calendar_months"], "26,206")
    printed(lines[1.0]["average_month_total"] / 1e6, "21.71")
    printed(lines[1.0]["calendar_months"] / lines[1.0]["average_month_total"], "0.00121")
    printed(lines[1.1]["calendar_months"], "28,827")
    printed(lines[1.1]["average_month_total"] / 1e6, "23.9")


# Prices, currency and the edge cases of §13.10 --------------------------------------------------------------------
def test_a_quote_overrides_its_ratio_and_fx_applies_once(figures):
    prices = dataclasses.replace(figures["default"].prices, committed_1y=1.5)
    tiers = plan_prices.tier_prices(prices, 0.92)
    assert tiers.on_demand == pytest.approx(1.84) and tiers.committed_1y == pytest.approx(1.38)
    assert tiers.committed_3y == pytest.approx(0.65 * 1.84) and tiers.spot == pytest.approx(0.92)
    raised = plan_prices.tier_prices(dataclasses.replace(prices, on_demand=3.0), 1.0)
    assert raised.committed_1y == 1.5 and raised.committed_3y == pytest.approx(1.95)  # no quote: follows p_od


def test_a_quote_of_zero_commits_to_the_peak_hour(figures):
    t = cost.cost_of(plan(figures, prices=dataclasses.replace(figures["default"].prices, committed_1y=0.0)))
    assert t.scalars["baseline_hours"] == 1
    assert t.scalars["serving_baseline_gpus_suggested"] == 1311  # INT(1,311.478 × LARGE(f, 1) = 1)


def test_an_on_demand_price_of_zero(figures):
    zero = dataclasses.replace(figures["default"].prices, on_demand=0.0)
    t = cost.cost_of(plan(figures, prices=zero, training_prices=zero))
    assert t.scalars["baseline_hours"] == plan_prices.PRICE_ZERO and t.scalars["serving_baseline_gpus_suggested"] == 0
    assert t.headline["own_break_even_utilisation"] == plan_prices.PRICE_ZERO
    assert t.headline["tco_on_demand_total_cost"] == 0


def test_a_training_only_plan(figures):
    training_only = plan_inputs.AverageMonth(training_cost=figures["default"].average_month.training_cost,
                                             serving_cost=0)
    t = cost.cost_of(plan(figures, horizon_days=0, average_month=training_only))
    s, h = t.scalars, t.headline
    assert s["price_baseline_effective"] == s["baseline_hours"] == plan_prices.NO_SERVING
    assert s["serving_baseline_gpus_suggested"] == 0 and s["plan_end"] == s["launch_date"] and s["months"] == 1
    assert h["own_utilisation"] == h["unit_cost_per_request"] == plan_prices.NO_SERVING
    assert h["tco_serving_cost"] == 0
    printed(h["tco_total_cost"], "1,055,545")
    assert all(t.checks.values())


def test_no_training_commits_nothing_for_training(figures):
    t = cost.cost_of(plan(figures, allocated_gpu_hours=0, training_days=0, training_tier="committed_3y"))
    assert t.scalars["training_term_months"] == 0 and t.scalars["launch_date"] == S
    assert t.headline["tco_training_cost"] == 0


def test_serving_that_does_not_fit_reads_na_and_training_stays(figures):
    t = cost.cost_of(plan(figures, serving_fits=False))
    h = t.headline
    assert h["tco_total_cost"] == h["tco_serving_cost"] == h["tco_npv"] == shared.NOT_SERVED
    printed(h["tco_training_cost"], "1,055,545")
    first = in_plan(t)[0]
    assert first["serving_gpu_hours"] == first["on_demand_total"] == shared.NOT_SERVED
    printed(first["training"], "1,055,545")
    assert h["serving_baseline_gpus_suggested"] == h["own_gpus"] == shared.NOT_SERVED
    assert t.warnings["tco_warn_serving_does_not_fit"]


def test_a_plan_longer_than_the_rows_fails_its_check_and_reads_na(figures):
    t = cost.cost_of(plan(figures, rows=24))
    assert not t.checks["tco_months_within_rows"] and t.scalars["months"] == 25
    assert t.headline["tco_total_cost"] == t.headline["tco_training_cost"] == shared.TOO_LONG


# Checks and warnings -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("changes, failing", [
    ({"fx": 0.0, "currency": "EUR", "average_month": None}, "tco_fx_rate_positive"),
    ({"fx": 0.92, "average_month": None}, "tco_fx_rate_one_for_usd"),
    ({"first_fiscal_month": 13}, "tco_first_fiscal_month_valid"),
    ({"start": cal.serial(dt.date(1999, 12, 31))}, "tco_start_date_in_range"),
    ({"profile": (0.0,) * 24}, "tco_profile_has_demand"),
    ({"owning": {"training": True, "gpus": 512}}, "tco_owned_training_gpus"),
])
def test_each_failure_names_its_input(figures, changes, failing):
    if "owning" in changes:
        changes = {**changes, "owning": owning(figures, **changes["owning"])}
    t = cost.cost_of(plan(figures, **changes))
    assert [key for key, ok in t.checks.items() if not ok] == [failing]


@pytest.mark.parametrize("changes, warning", [
    ({"currency": "PAB", "fx": 1.0}, "tco_warn_rate_one_outside_usd"),
    ({"horizon_days": 1095, "owning": {"useful_life_years": 2}}, "tco_warn_plan_outlives_owned_gpus"),
    ({"baseline_gpus": 5000}, "tco_warn_baseline_above_demand"),
    ({"training_tier": "committed_3y"}, "tco_warn_training_commitment_unused"),
])
def test_each_warning_holds_only_when_asked(figures, changes, warning):
    if "owning" in changes:
        changes = {**changes, "owning": owning(figures, **changes["owning"])}
    t = cost.cost_of(plan(figures, "three_years" if changes.get("horizon_days") else "default", **changes))
    assert [key for key, raised in t.warnings.items() if raised] == [warning]
    assert all(t.checks.values())


def test_owning_outlived_stops_depreciating_at_the_end_of_its_life(figures):
    t = cost.cost_of(plan(figures, "three_years", owning=owning(figures, useful_life_years=2)))
    s = t.scalars
    depreciated = sum(r["depreciation"] for r in in_plan(t))
    assert depreciated == pytest.approx(1312 * 45_000 * 0.9)  # to the residual, two years in
    assert s["own_book_value"] == pytest.approx(1312 * 45_000 * 0.1)


def test_owned_training_buys_at_the_start_and_drops_the_training_rental(figures):
    t = cost.cost_of(plan(figures, owning=owning(figures, training=True)))
    first = in_plan(t)[0]
    assert t.headline["own_gpus"] == 1312 and t.scalars["own_start"] == S  # the larger of 1,312 and N_run 1,024
    assert t.totals["owned_training"] == 0 and first["on_demand_total"] > first["training"] > 0
    assert first["depreciation"] == pytest.approx(1312 * t.scalars["own_depreciation_per_day"] * 31)
    assert all(t.checks.values())


# With a fleet (§11's columns) --------------------------------------------------------------------------------------
def test_a_fleets_columns_replace_the_roofline_demand(figures):
    """A fleet that keeps 10 GPUs busy every hour and commits 12: on demand pays 240 GPU-hours a day, owning buys
    12 GPUs, and a baseline of 8 bursts 2 GPUs every hour."""
    p = plan(figures, horizon_days=365, allocated_gpu_hours=0, training_days=0, profile=(1.0,) * 24,
             baseline_gpus=8)
    fleet = PlanFleet(parallel=(1,), peak=(12,), hourly=((10,),) * 24, spare=0.0)
    p = dataclasses.replace(p, fleet=fleet, fleet_section=True, average_months=12)
    t = cost.cost_of(p)
    assert t.headline["tco_on_demand_total_cost"] == pytest.approx(240 * 365 * 2.0)
    assert t.headline["own_gpus"] == 12
    burst = sum(r["burst_committed"] for r in in_plan(t))
    assert burst == pytest.approx(2 * 24 * 365 * 2.0)
    assert in_plan(t)[0]["committed_gpus"] == 12
    suggested = cost.cost_of(dataclasses.replace(p, baseline_gpus=None)).scalars
    assert suggested["launch_scale"] == pytest.approx(10) and suggested["serving_baseline_gpus_suggested"] == 10


def test_the_month_columns_add_up_to_the_plan(figures):
    t = cost.cost_of(plan(figures, monthly_growth=0.03, training_tier="spot", escalation=0.05, contingency=0.2,
                          other_monthly_cost=10_000, path="owned"))
    months = in_plan(t)
    # each month's days to a billionth of a day (ROUND(x, 9)): the months' days add up within that, month by month
    assert sum(r["training_days"] for r in months) == pytest.approx(t.scalars["training_days"], abs=1e-9)
    assert sum(r["serving_days"] for r in months) == pytest.approx(730, abs=len(months) * 1e-9)
    assert sum(r["plan_days"] for r in months) == pytest.approx(730 + t.scalars["training_days"],
                                                               abs=len(months) * 1e-9)
    assert sum(fy["owned_total"] for fy in t.fiscal_years) == pytest.approx(t.headline["tco_total_cost"])
    other = sum(r["other"] / r["escalation"] for r in months)
    assert other == pytest.approx(10_000 * sum(r["plan_days"] / r["days"] for r in months))
    assert all(t.checks.values())
    assert np.isclose(t.headline["tco_contingency_cost"], 0.2 * t.headline["tco_subtotal"])


def test_without_a_server_price_the_owned_path_reads_na(figures):
    t = cost.cost_of(plan(figures, owning=owning(figures, server_price=None)))
    h, first = t.headline, in_plan(t)[0]
    assert h["tco_owned_total_cost"] == h["tco_owned_npv"] == h["own_cost_per_gpu_hour"] == plan_prices.NO_SERVER
    assert first["owned_total"] == first["depreciation"] == plan_prices.NO_SERVER
    printed(h["tco_total_cost"], "21,198,797")  # the on-demand budget stands
    assert all(t.checks.values())


def test_the_json_months_are_the_plans_with_iso_dates(figures):
    found = cost.cost_of(plan(figures)).to_json()
    months = found["calendar"]["months"]
    assert len(months) == 25 and months[0]["month_start"] == "2027-01-01" and months[1]["days"] == 28
    assert months[0]["fiscal_year"] == "FY2027" and round(months[0]["discount_factor"], 6) == 0.993607
    assert [line["line"] for line in found["cost"]["bridge"]][-1] == "total"


def test_standby_joins_the_on_demand_path_only_when_asked(figures):
    """Standby_k = (24·v_k·G_k − U_k)·p_od·e_k: the idle hours of a fleet sized for each month's peak hour, 1,312
    GPUs all plan long on the office profile; the committed and owned paths pay for their own capacity."""
    nine = dataclasses.replace(figures["default"].average_month, standby_cost=1_000_000.0)  # §9's, in its total
    t = cost.cost_of(plan(figures, include_standby=True, average_month=nine))
    per_day = 1e11 / (3600 * figures["default"].tokens_per_s_per_gpu)
    standby = 730 * (24 * 1312 - per_day) * 2.0
    assert sum(r["standby"] for r in in_plan(t)) == pytest.approx(standby, rel=1e-12)
    plain = cost.cost_of(plan(figures))
    h, without = t.headline, plain.headline
    assert h["tco_on_demand_total_cost"] == pytest.approx(without["tco_on_demand_total_cost"] + standby)
    assert h["tco_committed_total_cost"] == without["tco_committed_total_cost"]
    assert h["tco_owned_total_cost"] == without["tco_owned_total_cost"]
    lines = {line["line"]: line["amount"] for line in t.bridge}
    assert lines["standby"] == pytest.approx(standby - 1_000_000)
    assert lines["total"] == pytest.approx(h["tco_total_cost"], abs=0.05) and all(t.checks.values())
