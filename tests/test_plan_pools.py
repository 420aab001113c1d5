"""The plan with two GPU types (METHOD §15.1, "The plan with two GPU types", worked example D): when the Fleet's
cheapest is mixed, each pool is priced on its own Catalog row month by month, with a committed baseline and owned
GPUs of its own. Example D is example A (10 H100 for prefill, 3 H200 for decode, $27.50 an hour) over 365 days from
2027-01-01, flat, g 0, §13's defaults: every expected number below is METHOD's, or worked by hand from the Catalog's
prices (H100 $2.00, 1-year $1.60, server $45,000; H200 $2.50, 1-year $2.00, server $50,000) and 8,760 hours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from planner.engine import Tables, compute
from planner.engine.shared import FLEET_POOLED
from planner.workbook.cost import PAIR_NEEDED

from tests.helpers import scenario_with

ROOT = Path(__file__).parent.parent
EXAMPLE_D = ROOT / "examples" / "fleet-7-70b-fp8-mixed-pools-in-the-plan.yaml"  # §15.1's A in the plan (D)
SPLITWISE_HA = ROOT / "examples" / "fleet-6-70b-fp8-splitwise-ha.yaml"  # mixed search, the H100 pair chosen
HOURS = 24 * 365


def cost_table(**changes):
    """Example D's Cost table alone (the tables it reads, not the Sensitivity's what-ifs), with `changes`."""
    return Tables(scenario_with(EXAMPLE_D, **changes))["cost"]


def pools(**changes) -> dict:
    """Example D's plan per pool, as the JSON gives it (tables.cost.pools)."""
    return cost_table(**changes).to_json()["cost"]["pools"]


@pytest.fixture(scope="module")
def results_d():
    """Example D computed once for the module's tests."""
    return compute(scenario_with(EXAMPLE_D))


@pytest.fixture(scope="module")
def example_d(results_d) -> dict:
    return results_d.tables["cost"].to_json()["cost"]["pools"]


def test_example_d_the_pools_and_their_gpus(example_d):
    prefill, decode = example_d["prefill"], example_d["decode"]
    assert (prefill["gpu"], prefill["gpus_peak"], decode["gpu"], decode["gpus_peak"]) == ("h100-sxm", 10, "h200", 3)
    first = example_d["months"][0]  # January: each pool's GPUs and GPU-hours (31 days, the launch seconds after S)
    assert (first["prefill_gpus"], first["decode_gpus"]) == (10, 3)
    assert first["prefill_gpu_hours"] == pytest.approx(10 * 24 * 31, abs=0.01)
    assert first["decode_gpu_hours"] == pytest.approx(3 * 24 * 31, abs=0.01)


def test_example_d_on_demand(example_d):
    """$240,900 (H100 $175,200 + H200 $65,700); January $20,460."""
    assert example_d["prefill"]["on_demand_serving"] == pytest.approx(175_200)  # 10 · 8,760 · $2.00
    assert example_d["decode"]["on_demand_serving"] == pytest.approx(65_700)  # 3 · 8,760 · $2.50
    assert example_d["totals"]["on_demand_serving"] == pytest.approx(240_900)
    first = example_d["months"][0]
    assert first["prefill_on_demand_serving"] + first["decode_on_demand_serving"] == pytest.approx(20_460, abs=0.05)


def test_example_d_committed_a_baseline_per_pool(example_d):
    """$192,720: B_c 10 at $1.60 + 3 at $2.00, one term to 2028-01-01; h* = CEILING(24·0.80) = 20 and the flat day
    puts each whole pool in its baseline."""
    prefill, decode = example_d["prefill"], example_d["decode"]
    assert (prefill["baseline_hours"], decode["baseline_hours"]) == (20, 20)
    assert (prefill["serving_baseline_gpus_suggested"], decode["serving_baseline_gpus_suggested"]) == (10, 3)
    assert (prefill["price_baseline"], decode["price_baseline"]) == (pytest.approx(1.60), pytest.approx(2.00))
    assert prefill["committed_serving"] == pytest.approx(10 * HOURS * 1.60)  # 140,160
    assert decode["committed_serving"] == pytest.approx(3 * HOURS * 2.00)  # 52,560
    assert example_d["totals"]["committed_serving"] == pytest.approx(192_720)


def test_example_d_owned_per_pool(example_d):
    """$193,088 (H100 $145,935 at c_own 1.665924; H200 $47,153 at 1.794261); capex $600,000."""
    prefill, decode = example_d["prefill"], example_d["decode"]
    assert round(prefill["own_cost_per_gpu_hour"], 6) == 1.665924
    assert round(decode["own_cost_per_gpu_hour"], 6) == 1.794261
    assert (prefill["own_gpus"], decode["own_gpus"]) == (10, 3)
    assert round(prefill["owned_serving"]) == 145_935 and round(decode["owned_serving"]) == 47_153
    assert round(example_d["totals"]["owned_serving"]) == 193_088
    assert prefill["own_capex"] + decode["own_capex"] == pytest.approx(600_000)  # 10 · 45,000 + 3 · 50,000


def test_example_d_the_plans_own_utilisation_per_pool(results_d):
    """u_plan, one per pool (§15.1): flat demand keeps each pool's owned GPUs busy every hour of the year; a
    pool owning two more H100 than it needs (12) keeps them busy 10/12 of the hours."""
    s = results_d.tables["cost"].scalars
    assert s["own_utilisation_p"] == s["own_utilisation_d"] == 1
    s = cost_table(**{"ownership.gpus": {"prefill": 12, "decode": 3}}).scalars
    assert s["own_utilisation_p"] == pytest.approx(10 / 12) and s["own_utilisation_d"] == 1


def test_example_d_power_of_the_mixed_fleet(example_d):
    """46,409 output tokens/s per MW at the peak (10 · 1.275 + 3 · 1.275 kW, PUE 1.3)."""
    assert example_d["fleet_kw"] == pytest.approx(16.575)
    assert round(example_d["tokens_per_s_per_mw"]) == 46_409  # 5 · 200 · 1000 / (16.575 · 1.3)


def test_the_cost_sheets_tokens_per_mw_is_the_mixed_fleets(results_d):
    """§15.1's table: a mixed fleet's tokens per MW is λ·o·1000/((G^p·kW_p + G^d·kW_d)·PUE), not one GPU's."""
    assert round(results_d.tables["cost"].scalars["tokens_per_s_per_mw"]) == 46_409


def test_example_d_single_type_column():
    """The same plan with mixing off, on 14 H100: on demand $245,280, committed $196,224, owned $204,309 with capex
    $630,000 (METHOD's right-hand column): one serving GPU, as §13 prices it; its JSON has no pools."""
    cost = cost_table(**{"fleet.mixed_gpus": False})
    assert cost.pools is None and "pools" not in cost.to_json()["cost"]
    assert cost.totals["on_demand_serving"] == pytest.approx(14 * HOURS * 2.00)
    assert cost.totals["committed_serving"] == pytest.approx(14 * HOURS * 1.60)
    assert round(cost.totals["owned_serving"]) == 204_309 and cost.scalars["own_capex"] == pytest.approx(630_000)


def test_typed_pairs_price_each_pool():
    """pricing.serving_baseline_gpus {prefill: 8, decode: 2}: the prefill pool commits 8 H100 at $1.60 and bursts 2
    at $2.00, the decode pool commits 2 H200 at $2.00 and bursts 1 at $2.50; ownership.gpus {prefill: 12, decode: 3}
    buys 12 H100 and 3 H200 (capex 12 · 45,000 + 3 · 50,000)."""
    found = pools(**{"pricing.serving_baseline_gpus": {"prefill": 8, "decode": 2},
                     "ownership.gpus": {"prefill": 12, "decode": 3}})
    prefill, decode = found["prefill"], found["decode"]
    assert (prefill["serving_baseline_gpus_used"], decode["serving_baseline_gpus_used"]) == (8, 2)
    assert prefill["committed_serving"] == pytest.approx(HOURS * (8 * 1.60 + 2 * 2.00))  # 147,168
    assert decode["committed_serving"] == pytest.approx(HOURS * (2 * 2.00 + 1 * 2.50))  # 56,940
    assert (prefill["own_gpus"], decode["own_gpus"]) == (12, 3)
    assert prefill["own_capex"] + decode["own_capex"] == pytest.approx(690_000)
    assert prefill["owned_serving"] == pytest.approx(12 / 10 * pools()["prefill"]["owned_serving"])  # 12 all year


def test_the_plans_totals_are_the_pools_sums(results_d):
    """The plan as the sheets, the Cover and the JSON's headline show it: each path's serving the pools' sum (METHOD's
    example D), training (seconds of it) once; January's on demand 10 · 744 h · $2.00 + 3 · 744 h · $2.50 = $20,460;
    the baseline's contract 10 · 8,760 · $1.60 + 3 · 8,760 · $2.00 and the capex 10 · $45,000 + 3 · $50,000; one
    serving GPU's price cells n/a, each pool's its own."""
    head, cost = results_d.headline, results_d.tables["cost"]
    training = head["tco_training_cost"]
    assert 0 < training < 1  # 1e6 tokens: seconds on the H100s
    assert head["tco_on_demand_total_cost"] == pytest.approx(240_900 + training)
    assert head["tco_committed_total_cost"] == pytest.approx(192_720 + training)
    assert round(head["tco_owned_total_cost"] - training) == 193_088
    assert head["plan_total_cost"] == head["tco_on_demand_total_cost"]  # budget.path on_demand
    assert cost.rows[0]["on_demand_serving"] == pytest.approx(20_460, abs=0.05)
    assert (cost.rows[0]["committed_gpus"], cost.rows[0]["committed_gpus_p"], cost.rows[0]["committed_gpus_d"]) == \
        (13, 10, 3)
    assert head["plan_baseline_commitment_value"] == pytest.approx(10 * HOURS * 1.60 + 3 * HOURS * 2.00)
    assert head["plan_capex"] == pytest.approx(600_000) and head["own_gpus"] == 13
    assert head["plan_peak_gpus"] == results_d.scenario.hours.gpus + 13  # January: the run's GPUs and 10 + 3
    # flat: ĝ_k = U_k/(v_k·Σf) = 13 · 24 / 24, the two pools' GPUs all day
    assert head["plan_busiest_hour_flag"] == ("covered: 13 serving GPUs at the peak month hold its busiest hour, "
                                              "which keeps 13.0 busy")
    assert cost.scalars["price_on_demand"] == FLEET_POOLED
    assert (cost.scalars["price_on_demand_p"], cost.scalars["price_on_demand_d"]) == (2.00, 2.50)
    assert (cost.scalars["own_gpus_prefill"], cost.scalars["own_gpus_decode"]) == (10, 3)
    assert head["plan_cost_per_million_tokens"] == pytest.approx(240_900 / (5 * 200 * 3600 * HOURS / 1e6))  # $7.639


def test_a_pool_without_a_baseline_bursts_on_demand_and_owned_pools_burst_above_their_own():
    """Pairs where one pool commits nothing and the owned pools are short, on the owned path: the prefill pool commits
    12 H100 at $1.60 (2 above its 10: no burst), the decode pool none, its 3 H200 on demand at $2.50, so committed
    12 · 8,760 · $1.60 + 3 · 8,760 · $2.50 = $233,892 and the Cover's contract 12 · 8,760 · $1.60 = $168,192; 8 H100
    and 2 H200 owned (capex 8 · $45,000 + 2 · $50,000), the rest bursting on demand. (A pool's blank month cells
    once stopped the plan: the pools' sum took "" for a number.)"""
    results = compute(scenario_with(EXAMPLE_D, **{"budget.path": "owned", "ownership.gpus": {"prefill": 8, "decode": 2},
                                                  "pricing.serving_baseline_gpus": {"prefill": 12, "decode": 0}}))
    cost, head = results.tables["cost"], results.headline
    assert cost.totals["committed_serving"] == pytest.approx(12 * HOURS * 1.60 + 3 * HOURS * 2.50)
    assert head["plan_baseline_commitment_value"] == pytest.approx(12 * HOURS * 1.60)
    assert head["plan_capex"] == pytest.approx(8 * 45_000 + 2 * 50_000)
    assert head["plan_total_cost"] == cost.totals["owned_total"]
    months = [row for row in cost.rows if row["in_plan"]]
    assert sum(row["burst_owned_d"] for row in months) == pytest.approx(1 * HOURS * 2.50)
    assert sum(row["burst_owned_p"] for row in months) == pytest.approx(2 * HOURS * 2.00)


def test_the_average_months_and_the_bridge_price_each_pool(results_d):
    """§9's average months of a mixed fleet: each pool's GPU-hours at its own price, 24 · (10 · $2.00 + 3 · $2.50) =
    $660 a day, $240,900 over 365 days; the bridge from them to the plan's total then adds up with nothing for
    calendar months (flat, g 0), and its checks hold."""
    budget, cost = results_d.tables["budget"].scalars, results_d.tables["cost"]
    assert budget["serving_cost_per_day"] == pytest.approx(24 * (10 * 2.00 + 3 * 2.50))
    assert budget["serving_cost"] == pytest.approx(240_900)
    lines = {line["line"]: line["amount"] for line in cost.bridge}
    assert lines["calendar_months"] == 0 and lines["standby"] == 0
    assert lines["total"] == round(results_d.headline["plan_total_cost"], 2)
    assert cost.checks["tco_average_month_reconciles"] and cost.checks["tco_calendar_months_without_growth"]


def test_the_sensitivity_prices_each_pool(results_d):
    """The Sensitivity's what-ifs of a mixed fleet, each pool at its own price (§15.1): 20 % less demand keeps the
    launch fleet (never below it: $240,900); 20 % more re-sizes each pool by §11's month rule, x = CEIL9(9 · 1.2) =
    11 and y = CEIL9(2 · 1.2) = 3, so CEIL9(11 · 1.1) = 13 H100 and CEIL9(3 · 1.1) = 4 H200 all year,
    13 · 8,760 · $2.00 + 4 · 8,760 · $2.50 = $315,360; every price × 0.8 makes the plan × 0.8."""
    head = results_d.headline
    training = head["tco_training_cost"]
    assert head["plan_total_demand_low"] == pytest.approx(240_900 + training)
    assert head["plan_total_demand_high"] == pytest.approx(13 * HOURS * 2.00 + 4 * HOURS * 2.50 + training)
    price = next(line for line in results_d.tables["sensitivity"].tornado if line["id"] == "price")
    assert price["total_low"] == pytest.approx(0.8 * (240_900 + training))


def test_the_json_has_the_pools_when_the_fleet_is_mixed(results_d):
    from planner.output import results_json

    mixed = json.loads(results_json(results_d))["tables"]["cost"]
    assert mixed["pools"]["totals"]["committed_serving"] == pytest.approx(192_720)
    assert mixed["pools"]["months"][0]["decode_gpus"] == 3
    # the JSON's plan is the pools' sum (§15.1): its totals those of tables.cost.pools, as the sheets show them
    for path, serving in (("on_demand", 240_900), ("committed", 192_720)):
        assert mixed[f"{path}_serving"] == pytest.approx(serving)
        assert mixed[f"{path}_total"] == mixed["pools"]["totals"][f"{path}_total"]
    assert mixed["own_capex"] == pytest.approx(600_000)


def test_the_html_prices_the_plan_per_pool(results_d):
    from planner.report import render_html

    html = render_html(results_d, generated="2026-12-02")
    assert ("The plan with two GPU types (§15.1): on demand $240,901 (h100-sxm $175,200 + h200 $65,700 for "
            "serving); committed $192,721 (a baseline of 10 h100-sxm at $1.60 and 3 h200 at $2.00, one term") in html
    assert "The owned path buys 10 h100-sxm and 3 h200 ($600,000)" in html
    prices = html[html.index("Prices, the baseline and owning"):]
    prices = prices[:prices.index("</table>")]  # each pool's prices side by side (§15.1), no one-GPU n/a
    assert "Prefill: h100-sxm" in prices and "Decode: h200" in prices and FLEET_POOLED not in prices
    assert '<th>On demand</th><td class="n">$2.00</td><td class="n">$2.50</td>' in prices


# Bad input: the pair's form against the chosen fleet (§15.1's table) ---------------------------------------------
def test_one_number_where_the_mixed_fleet_needs_a_pair_exits_2_naming_the_key(tmp_path):
    from tests.helpers import refused

    said, _ = refused(tmp_path, EXAMPLE_D.read_text(encoding="utf-8") + "ownership: {gpus: 13}\n")
    assert ("ownership.gpus: value 13 is not allowed: allowed: a pair {prefill: n, decode: m}: the chosen fleet is "
            "mixed (h100-sxm for prefill, h200 for decode), one number per pool, or blank") in said
    said, _ = refused(tmp_path, EXAMPLE_D.read_text(encoding="utf-8") + "pricing: {serving_baseline_gpus: 10}\n")
    assert "pricing.serving_baseline_gpus: value 10 is not allowed: allowed: a pair {prefill: n, decode: m}" in said


def test_a_pair_where_the_fleet_is_not_mixed_exits_2_naming_the_key(tmp_path):
    from tests.helpers import refused

    text = (SPLITWISE_HA.read_text(encoding="utf-8") + "\nownership: {gpus: {prefill: 10, decode: 6}}\n"
            "pricing: {serving_baseline_gpus: {prefill: 10, decode: 6}}\n")
    said, _ = refused(tmp_path, text)
    for key in ("ownership.gpus", "pricing.serving_baseline_gpus"):
        assert (f"{key}: value {{'prefill': 10, 'decode': 6}} is not allowed: allowed: one number: the chosen fleet "
                "is not mixed (one GPU type, h100-sxm), or blank") in said


def test_a_pair_without_a_fleet_is_refused(tmp_path):
    from tests.helpers import refused

    said, _ = refused(tmp_path, "name: no fleet\nownership: {gpus: {prefill: 10, decode: 6}}\n")
    assert "ownership.gpus" in said and "without a fleet section, allowed: one number, or blank" in said


# The workbook: the sheets recalculate with a pair typed, and the pair reads back --------------------------------------
@pytest.mark.spreadsheet
def test_a_workbook_with_pairs_recalculates_and_reads_back(libreoffice, gnumeric, tmp_path):
    """Example D with both pairs typed: the Inputs sheet holds the one-number cell blank and the pair's two cells
    below it, which the pools' baselines and owned GPUs read (§15.1); LibreOffice and Gnumeric recalculate every
    formula equal to the engine, and `planner import` reads the pairs back."""
    from planner import roundtrip
    from planner.workbook import build
    from tests.helpers import named, recalculated

    scenario = scenario_with(EXAMPLE_D, **{"pricing.serving_baseline_gpus": {"prefill": 8, "decode": 2},
                                           "ownership.gpus": {"prefill": 12, "decode": 3}})
    path = tmp_path / "pairs.xlsx"
    build(compute(scenario), str(path))
    [values] = recalculated(libreoffice, [path])
    recalculated(gnumeric, [path])
    from planner import xlsx

    book = xlsx.read(path)
    assert named(values, book, "ownership_gpus_prefill") == 12 and named(values, book, "ownership_gpus_decode") == 3
    assert named(values, book, "tco_committed_serving") == pytest.approx(HOURS * (8 * 1.60 + 2 * 2.00)
                                                                          + HOURS * (2 * 2.00 + 1 * 2.50))
    assert named(values, book, "plan_capex") == pytest.approx(12 * 45_000 + 3 * 50_000)
    back = roundtrip.workbook_data(path).scenario()
    assert back.ownership.gpus.prefill == 12 and back.ownership.gpus.decode == 3
    assert (back.pricing.serving_baseline_gpus.prefill, back.pricing.serving_baseline_gpus.decode) == (8, 2)


def test_example_d_the_gpus_sheets_mixed_fleet_block(results_d):
    """The block's rows (§15.1): GPU, GPUs at the peak, price, share of the fleet's $27.50 an hour (20.00/27.50 and
    7.50/27.50), c_own and u* = c_own/p_od; the fleet's kW and tokens per MW under them."""
    table = results_d.tables["cost"].pools
    prefill, decode = table.block
    assert (prefill["mixed_gpu"], prefill["mixed_gpus"], decode["mixed_gpu"], decode["mixed_gpus"]) == \
        ("h100-sxm", 10, "h200", 3)
    assert prefill["mixed_share"] == pytest.approx(20 / 27.5) and decode["mixed_share"] == pytest.approx(7.5 / 27.5)
    assert round(prefill["mixed_own_cost_per_gpu_hour"], 6) == 1.665924
    assert prefill["mixed_break_even_utilisation"] == pytest.approx(1.665924 / 2.00, abs=1e-6)
    assert decode["mixed_break_even_utilisation"] == pytest.approx(1.794261 / 2.50, abs=1e-6)
    assert table.fleet_kw == pytest.approx(16.575) and round(table.tokens_per_s_per_mw) == 46_409


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_example_d_block_recalculates(app, request, example_files, tmp_path):
    """examples/fleet-7's workbook recalculated in LibreOffice and Gnumeric: every formula equal to the engine (as
    every example's), and the block reads METHOD's numbers."""
    import shutil

    import openpyxl

    from tests.helpers import recalculated

    path = tmp_path / "d.xlsx"
    shutil.copy(example_files(EXAMPLE_D)["xlsx"], path)
    [values] = recalculated(request.getfixturevalue(app), [path])
    labels = {cell.value: cell.row for cell in openpyxl.load_workbook(path)["GPUs"]["A"] if cell.value}

    def row(label):  # what the application computed on the row labelled `label`, columns B to H
        return tuple(values.get(("GPUs", f"{column}{labels[label]}")) for column in "BCDEFGH")

    assert row("Prefill")[:3] == ("h100-sxm", 10, 2) and row("Decode")[:3] == ("h200", 3, 2.5)
    assert round(row("Prefill")[4], 6) == 1.665924 and round(row("Decode")[4], 6) == 1.794261
    assert round(row("Output tokens per second per MW")[1]) == 46_409


def test_a_pair_in_a_named_scenario_is_refused_wherever_it_stands(tmp_path):
    """A named scenario changes one value per key: a pair is a mapping, refused naming the key, also when another
    key follows it (each key's own value is checked, not the last one's)."""
    from tests.helpers import refused

    text = (EXAMPLE_D.read_text(encoding="utf-8") + "scenarios:\n"
            "  owned: {ownership.gpus: {prefill: 12, decode: 3}, budget.path: owned}\n")
    said, _ = refused(tmp_path, text)
    assert "scenarios.owned: scenarios key 'ownership.gpus': one value (a number, a word or an id), not a mapping" \
        in said


@pytest.mark.spreadsheet
def test_a_number_typed_for_a_mixed_fleet_fails_its_check_and_reads_n_a(libreoffice, example_files, tmp_path):
    """ownership.gpus and pricing.serving_baseline_gpus typed as one number on Inputs while the cheapest fleet is
    mixed: the Fleet's check is FALSE, the Checks fail, and the owned GPUs, capex and baseline read n/a (not 13
    GPUs priced on one GPU type's server)."""
    from planner import xlsx
    from planner.audit import same
    from tests.helpers import UNCOMPARED, named, recalculated, set_cells

    source = example_files(EXAMPLE_D)["xlsx"]
    book = xlsx.read(source)
    edited = tmp_path / "number.xlsx"
    set_cells(source, edited, {"ownership_gpus": 13, "pricing_serving_baseline_gpus": 10})
    [values] = recalculated(libreoffice, [edited], [UNCOMPARED])
    assert same(False, named(values, book, "ok_fleet_pool_inputs_form"))
    assert same(False, named(values, book, "checks_all_pass"))
    for name in ("own_gpus", "own_capex", "own_book_value", "serving_baseline_gpus_used", "plan_total_cost"):
        assert named(values, book, name) == PAIR_NEEDED, name
    [as_written] = recalculated(libreoffice, [source])  # as generated: the check holds
    assert same(True, named(as_written, book, "ok_fleet_pool_inputs_form"))


# The sheets: example D on the Cost, Budget and Cover sheets, recalculated ------------------------------------------
def first_cell(values: dict, book, name: str):
    """The first cell of a named month column (the calendar's first month, January 2027)."""
    from tests.helpers import address

    sheet, ref = address(book, name)
    return values[(sheet, ref.split(":")[0])]


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_example_d_on_the_budget_and_the_cover(app, request, example_files, tmp_path):
    """examples/fleet-7's workbook recalculated in LibreOffice and Gnumeric (every formula equal to the engine) reads
    METHOD's example D by name: each path's serving $240,900 / $192,720 / $193,088 and the totals with the seconds of
    training once; January on demand $20,460 = 10 · 744 h · $2.00 ($14,880) + 3 · 744 h · $2.50 ($5,580); 10 + 3
    GPUs a month, each pool at its own price and c_own; the Cover's capex $600,000 and baseline contract $192,720."""
    import shutil

    from planner import xlsx
    from tests.helpers import address, named, recalculated

    path = tmp_path / "d.xlsx"
    shutil.copy(example_files(EXAMPLE_D)["xlsx"], path)
    [values] = recalculated(request.getfixturevalue(app), [path])
    book = xlsx.read(path)

    def value(name):
        return named(values, book, name)

    training = value("tco_training_cost")
    assert 0 < training < 1
    assert value("tco_on_demand_serving") == pytest.approx(240_900)
    assert value("tco_committed_serving") == pytest.approx(192_720)
    assert round(value("tco_owned_serving")) == 193_088
    assert value("plan_total_cost") == value("budget_total_cost") == pytest.approx(240_900 + training)
    assert value("tco_committed_total_cost") == pytest.approx(192_720 + training)
    assert value("plan_capex") == pytest.approx(600_000) and value("own_gpus") == 13
    assert value("plan_baseline_commitment_value") == pytest.approx(10 * HOURS * 1.60 + 3 * HOURS * 2.00)
    assert first_cell(values, book, "calendar_on_demand_serving") == pytest.approx(20_460, abs=0.05)
    assert first_cell(values, book, "calendar_on_demand_serving_p") == pytest.approx(14_880, abs=0.05)
    assert first_cell(values, book, "calendar_on_demand_serving_d") == pytest.approx(5_580, abs=0.05)
    assert tuple(first_cell(values, book, f"calendar_committed_gpus{end}") for end in ("_p", "_d", "")) == (10, 3, 13)
    assert (value("price_on_demand_p"), value("price_on_demand_d")) == (2, 2.5)
    assert (value("price_baseline_p"), value("price_baseline_d")) == (pytest.approx(1.6), 2)
    assert (value("own_gpus_prefill"), value("own_gpus_decode")) == (10, 3)
    assert round(value("own_cost_per_gpu_hour_p"), 6) == 1.665924
    assert round(value("own_cost_per_gpu_hour_d"), 6) == 1.794261
    assert value("own_utilisation_p") == value("own_utilisation_d") == 1  # flat: each pool's GPUs busy every hour
    assert round(value("tokens_per_s_per_mw")) == 46_409  # the mixed fleet's, on Cost as on GPUs
    assert value("price_on_demand") == FLEET_POOLED  # one serving GPU's cell: each pool has its own
    assert value("plan_total_demand_high") == pytest.approx(13 * HOURS * 2.00 + 4 * HOURS * 2.50 + training)
    assert value("plan_busiest_hour_flag").startswith("covered: 13 serving GPUs")
    assert value("budget_serving_cost") == pytest.approx(240_900)  # the average months, each pool at its price
    assert value("tco_bridge_total") == pytest.approx(240_900 + training, abs=0.01)
    sheet, cell = address(book, "plan_capex")  # the Cover's words for the owned path's purchase (§15.1)
    assert values[(sheet, "A" + cell.lstrip("ABCDEFGHIJ"))] == "… the capex, paid once: buys 10 h100-sxm and 3 h200"


@pytest.mark.spreadsheet
def test_example_d_with_a_dearer_h200_recalculates_to_the_engine_at_that_price(libreoffice, example_files,
                                                                             tmp_path):
    """The H200 at $2.60 an hour on Catalog: the mixed fleet still wins (10 · $2.00 + 3 · $2.60 = $27.80 against
    $28.00), its decode pool on demand 3 · 8,760 · $2.60 = $68,328, so the plan's on demand $243,528; its 1-year
    price, the ratio 0.80 · $2.60 = $2.08 (no Catalog quote), makes committed 10 · 8,760 · $1.60 + 3 · 8,760 · $2.08
    = $194,822.40; owned stays $193,088 (the server prices stand). The plan's cells equal the engine's on the edited
    scenario (the Fleet's Candidates table keeps its order as searched, so not every cell of it compares)."""
    from planner import xlsx
    from tests.helpers import UNCOMPARED, catalog_cells, named, recalculated, set_cells

    source = example_files(EXAMPLE_D)["xlsx"]
    edited = tmp_path / "h200.xlsx"
    set_cells(source, edited, catalog_cells(source, [("catalog_gpu", "h200", "price_per_hour", 2.6)]))
    [values] = recalculated(libreoffice, [edited], [UNCOMPARED])
    book = xlsx.read(edited)
    engine = compute(scenario_with(EXAMPLE_D, **{"catalog.gpus.h200.price_per_hour": 2.6}))
    cost = engine.tables["cost"]
    names = [f"tco_{path}_{key}" for path in ("on_demand", "committed", "owned") for key in ("serving", "total_cost",
                                                                                             "npv")]
    names += ["plan_total_cost", "tco_npv", "plan_capex", "plan_baseline_commitment_value",
              "plan_cost_per_million_tokens", "plan_cheapest_total", "price_on_demand_d", "price_baseline_d",
              "baseline_hours_d", "own_gpus_decode", "own_capex_d", "serving_baseline_gpus_used"]
    expected = engine.headline | cost.scalars | {f"tco_{path}_serving": cost.totals[f"{path}_serving"]
                                                 for path in ("on_demand", "committed", "owned")}
    for name in names:
        got = named(values, book, name)
        assert got == pytest.approx(expected[name], rel=1e-9) if isinstance(got, float) else got == expected[name], \
            name
    assert named(values, book, "fleet_cheapest_cost_per_hour") == pytest.approx(27.80)
    assert named(values, book, "tco_on_demand_serving") == pytest.approx(10 * HOURS * 2.00 + 3 * HOURS * 2.60)
    assert named(values, book, "tco_committed_serving") == pytest.approx(10 * HOURS * 1.60 + 3 * HOURS * 2.08)
    assert round(named(values, book, "tco_owned_serving")) == 193_088
    assert named(values, book, "price_on_demand_d") == pytest.approx(2.6)


@pytest.mark.spreadsheet
def test_example_d_without_the_h200_price_reads_n_a(libreoffice, example_files, tmp_path):
    """The H200's price blanked on Catalog: its check fails (Checks), and the pools' prices, money, the plan's total
    and the Cover's read n/a with the reason, not an error value."""
    from planner import xlsx
    from planner.audit import same
    from planner.workbook.kit import NOT_AVAILABLE
    from tests.helpers import UNCOMPARED, catalog_cells, named, recalculated, set_cells

    source = example_files(EXAMPLE_D)["xlsx"]
    edited = tmp_path / "blank.xlsx"
    set_cells(source, edited, catalog_cells(source, [("catalog_gpu", "h200", "price_per_hour", None)]))
    [values] = recalculated(libreoffice, [edited], [UNCOMPARED])
    book = xlsx.read(source)
    assert same(False, named(values, book, "checks_all_pass"))
    for name in ("price_on_demand_d", "plan_pools_fit", "tco_on_demand_serving", "tco_committed_total_cost",
                 "tco_owned_total_cost", "plan_total_cost", "budget_total_cost", "own_capex", "plan_capex"):
        assert named(values, book, name) == NOT_AVAILABLE, name
    assert first_cell(values, book, "calendar_on_demand_serving_d") == NOT_AVAILABLE
    errors = {where: v for where, v in values.items() if isinstance(v, str) and v.startswith("#")}
    assert errors == {}


@pytest.mark.spreadsheet
def test_example_d_over_a_longer_horizon_recalculates_to_the_engine(libreoffice, example_files, tmp_path):
    """crossover.horizon_days typed as 400 on Inputs: every formula cell equals the engine on that scenario, laid on
    the workbook's month rows (the Fleet's search does not read the horizon); each pool on demand 400 days, 400 · 24 ·
    (10 · $2.00 + 3 · $2.50) = $264,000. A 1-year baseline would now take two terms (731 days) for 400 served:
    p_eff = $1.60 · 731/400 = $2.92 above the H100's $2.00 (H200: $3.66 above $2.50), so B* = 0 in both pools and the
    committed path rents on demand too."""
    from planner import xlsx
    from tests.helpers import build_in_memory, named, recalculated, set_cells

    source = example_files(EXAMPLE_D)["xlsx"]
    edited = tmp_path / "longer.xlsx"
    set_cells(source, edited, {"crossover_horizon_days": 400})
    longer = scenario_with(EXAMPLE_D, **{"crossover.horizon_days": 400})
    [values] = recalculated(libreoffice, [edited], [build_in_memory(longer, like=edited)])
    book = xlsx.read(edited)
    assert named(values, book, "tco_on_demand_serving") == pytest.approx(400 * 24 * (10 * 2.00 + 3 * 2.50))
    assert named(values, book, "price_baseline_effective_p") == pytest.approx(1.60 * 731 / 400)
    assert (named(values, book, "serving_baseline_gpus_used_p"), named(values, book, "serving_baseline_gpus_used_d")) \
        == (0, 0)
    assert named(values, book, "tco_committed_serving") == pytest.approx(264_000)
