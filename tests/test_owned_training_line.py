"""Owned training on a GPU type of its own (METHOD §13.15 "One serving GPU": when `gpu` and the Fleet's serving GPU
differ, "the owned path buys two GPU types, each on its own line"; §15.1: with a mixed fleet "and a third GPU for
training, three types, each on its own line"). The rule, as docs/method.md §13 states it: training that shares the
owned fleet of its type holds N_run of it, bought on S; otherwise N_run GPUs of `gpu` are a line of their own,
bought on S at `gpu`'s server price and kW and owned as the fleet is (depreciated by day, running costs to E, the book
value back at E), and their accrual takes the training rental's place on the owned path.

Every expected number is worked by hand from the Catalog (H100 server $45,000, 1.275 kW; A100 $20,000, 6.5/8 kW;
H200 $50,000; MI300X $33,000), the ownership inputs (residual 10 %, 4 years) and the plan's dates."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.engine import Tables
from planner.engine.shared import DAYS_PER_YEAR

from tests.helpers import scenario_with

ROOT = Path(__file__).parent.parent
FLEET_1 = ROOT / "examples" / "fleet-1-8b-five-gpus.yaml"  # serves on 17 MI300X; trains on the H100 (gpu)
EXAMPLE_D = ROOT / "examples" / "fleet-7-70b-fp8-mixed-pools-in-the-plan.yaml"  # 10 H100 prefill + 3 H200 decode
OWNED = {"ownership.training": True, "budget.path": "owned", "budget.start_date": "2027-01-01"}
N_RUN = 1024  # hours.gpus, the default
SUFFIX = {"prefill": "_p", "decode": "_d"}


def cost(example: Path, **changes):
    return Tables(scenario_with(example, **(OWNED | changes)))["cost"]


def running_per_day(scenario, gpu: str) -> float:
    """φ + σ + ε of one owned GPU (METHOD §13.4), from the Catalog's kW and the ownership inputs."""
    kw, o = scenario.merged_catalog.gpus[gpu].server_kw, scenario.ownership
    return (kw * o.datacenter_per_kw_month * 12 / DAYS_PER_YEAR + o.staff_per_1000_gpus / 1000
            * o.staff_cost_per_year / DAYS_PER_YEAR + 24 * kw * o.power_share * o.pue * o.price_per_kwh)


def test_training_on_another_type_than_the_serving_gpu_is_a_line_of_its_own():
    """Fleet 1 serves on MI300X; training owned on the H100: 1,024 H100 bought on S ($46,080,000), δ = 45,000·0.9/
    (4·365.25) a day each, held to E; the serving GPUs are the plan's 17 MI300X bought at launch, not 1,024 of them."""
    table = cost(FLEET_1)
    s, totals = table.scalars, table.totals
    assert (s["own_training_separate"], s["own_training_gpus"], s["own_training_held"]) == (True, N_RUN, 0)
    assert s["own_training_capex"] == pytest.approx(N_RUN * 45_000)
    delta = 45_000 * 0.9 / (4 * DAYS_PER_YEAR)
    assert s["own_training_depreciation_per_day"] == pytest.approx(delta)
    held = s["serving_end"] - s["start_date"]  # S to E: less than the four years of life
    assert s["own_training_book_value"] == pytest.approx(N_RUN * 45_000 - N_RUN * delta * held)
    running = running_per_day(scenario_with(FLEET_1), "h100-sxm")
    assert s["own_training_running_per_day"] == pytest.approx(running)
    assert totals["owned_training"] == pytest.approx(N_RUN * (delta + running) * held)  # no escalation: e = 1
    assert s["own_gpus"] == 17 and s["own_start"] == s["launch_date"] > s["start_date"]  # serving bought on L
    assert s["own_capex"] == pytest.approx(17 * 33_000)
    assert totals["owned_total"] == pytest.approx(totals["owned_training"] + totals["owned_serving"]
                                                  + totals["other"])
    assert totals["owned_cash"] == pytest.approx(totals["owned_total"])  # capex − book value = depreciation
    assert all(table.checks.values())


def test_the_rented_paths_and_a_plan_without_owned_training_are_unchanged():
    """ownership.training FALSE: no line (0 GPUs), the owned path rents training as the others do."""
    table = cost(FLEET_1, **{"ownership.training": False})
    s, totals = table.scalars, table.totals
    assert (s["own_training_separate"], s["own_training_gpus"], s["own_training_capex"]) == (False, 0, 0)
    assert totals["owned_training"] == totals["on_demand_training"] > 0
    assert all(r["own_training_depreciation"] == 0 for r in table.rows if r["in_plan"])
    owned = cost(FLEET_1)  # the rented paths do not move when the owned path trains on its own GPUs
    assert owned.totals["on_demand_total"] == totals["on_demand_total"]


def test_training_on_the_serving_gpu_shares_the_owned_fleet():
    """gpu = the Fleet's MI300X: training shares the owned fleet (§13.4): MAX(17, 1,024) MI300X bought on S, no line."""
    s = cost(FLEET_1, gpu="mi300x").scalars
    assert (s["own_training_separate"], s["own_training_gpus"], s["own_training_held"]) == (False, 0, N_RUN)
    assert s["own_gpus"] == N_RUN and s["own_start"] == s["start_date"]
    assert s["own_capex"] == pytest.approx(N_RUN * 33_000)


def test_a_mixed_fleet_with_a_third_gpu_for_training_owns_three_types():
    """Example D trained on the A100: 10 H100 and 3 H200 bought at launch, 1,024 A100 on S ($20,480,000)."""
    table = cost(EXAMPLE_D, gpu="a100-80gb")
    s, totals = table.scalars, table.totals
    assert (s["own_gpus_prefill"], s["own_gpus_decode"], s["own_training_gpus"]) == (10, 3, N_RUN)
    assert s["own_capex"] == pytest.approx(10 * 45_000 + 3 * 50_000)
    assert s["own_training_capex"] == pytest.approx(N_RUN * 20_000)
    assert s["own_start_p"] == s["own_start_d"] == s["launch_date"]
    delta = 20_000 * 0.9 / (4 * DAYS_PER_YEAR)
    held = s["serving_end"] - s["start_date"]
    running = running_per_day(scenario_with(EXAMPLE_D), "a100-80gb")
    assert totals["owned_training"] == pytest.approx(N_RUN * (delta + running) * held)
    assert totals["owned_total"] == pytest.approx(totals["owned_training"] + totals["owned_serving"])
    assert round(totals["owned_serving"]) == 193_088  # example D's pools, as without owned training


@pytest.mark.parametrize("gpu, pool, other", [("h100-sxm", "prefill", "decode"), ("h200", "decode", "prefill")])
def test_a_mixed_fleet_trains_on_the_pool_of_its_gpu(gpu, pool, other):
    """Trained on a pool's GPU type: that pool holds MAX(its GPUs, 1,024), bought on S; the other at launch."""
    s = cost(EXAMPLE_D, gpu=gpu).scalars
    assert s["own_training_gpus"] == 0 and s[f"own_gpus_{pool}"] == N_RUN
    assert s[f"own_gpus_{other}"] == {"prefill": 10, "decode": 3}[other]
    assert s["own_start" + SUFFIX[pool]] == s["start_date"] and s["own_start" + SUFFIX[other]] == s["launch_date"]
    assert s["own_capex"] == pytest.approx(N_RUN * {"h100-sxm": 45_000, "h200": 50_000}[gpu]
                                           + {"prefill": 10 * 45_000, "decode": 3 * 50_000}[other])


def test_the_cover_and_the_json_name_the_training_purchase():
    table = cost(FLEET_1)
    head = table.headline
    assert head["plan_training_capex"] == pytest.approx(N_RUN * 45_000)
    assert head["plan_training_capex_date"] == table.scalars["start_date"]
    months = [row for row in table.gpus_by_month if row["month"] != ""]
    assert {row["owned"] for row in months} == {N_RUN + 17}  # the launch (day 22) falls in the first month
    without = cost(FLEET_1, **{"ownership.training": False}).headline
    assert without["plan_training_capex"].startswith("none: no GPUs bought for training alone")
    assert head["plan_training_basis"] == "on owned GPUs: their depreciation and running costs to the plan's end"
    assert without["plan_training_basis"] == "at its tier (on-demand), over the run"  # the Cover's words


def test_a_count_too_small_for_shared_training_is_refused_and_one_for_serving_alone_is_not(tmp_path):
    from tests.helpers import refused

    own = "ownership: {training: true, gpus: 20}\n"
    said, _ = refused(tmp_path, FLEET_1.read_text(encoding="utf-8") + "gpu: mi300x\n" + own)
    assert ("ownership.gpus: value 20 is not allowed: training on owned GPUs shares the mi300x GPUs: the count needs "
            "at least the run's 1,024 GPUs (hours.gpus)") in said
    said, _ = refused(tmp_path, EXAMPLE_D.read_text(encoding="utf-8")
                      + "ownership: {training: true, gpus: {prefill: 12, decode: 3}}\n")
    assert "prefill of the pair (h100-sxm) needs at least the run's 1,024 GPUs" in said
    table = Tables(scenario_with(FLEET_1, **{"ownership.training": True, "ownership.gpus": 20}))["cost"]
    assert table.scalars["own_gpus"] == 20 and table.scalars["own_training_gpus"] == N_RUN  # serving only


# The sheets, recalculated ------------------------------------------------------------------------------------------
@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_the_training_line_recalculates_and_follows_its_inputs(app, request, tmp_path):
    """Fleet 1 with owned training on the H100 and example D trained on the A100: every formula equal to the engine
    in LibreOffice and Gnumeric; then ownership.training FALSE and the training GPU switched to the serving GPU on
    Inputs, each equal to the engine on the edited scenario; the line's server price blanked reads "n/a: no server
    price or kW", no error value."""
    from planner import xlsx
    from planner.audit import same
    from planner.engine import compute
    from planner.workbook import build
    from planner.engine.plan.prices import NO_SERVER
    from tests.helpers import UNCOMPARED, build_in_memory, catalog_cells, named, recalculated, set_cells

    paths = []
    for example, changes in ((FLEET_1, {}), (EXAMPLE_D, {"gpu": "a100-80gb"})):
        paths.append(tmp_path / f"{example.stem}.xlsx")
        build(compute(scenario_with(example, **OWNED, **changes)), str(paths[-1]))
    off, shared, blank = (tmp_path / name for name in ("off.xlsx", "shared.xlsx", "blank.xlsx"))
    set_cells(paths[0], off, {"ownership_training": False})
    set_cells(paths[0], shared, {"gpu": "mi300x"})
    set_cells(paths[1], blank, catalog_cells(paths[1], [("catalog_gpu", "a100-80gb", "server_price", None)]))
    edits = [build_in_memory(scenario_with(FLEET_1, **(OWNED | change)), like=path)
             for path, change in ((off, {"ownership.training": False}), (shared, {"gpu": "mi300x"}))]
    values = recalculated(request.getfixturevalue(app), paths + [off, shared, blank], [None, None, *edits, UNCOMPARED])
    book = xlsx.read(paths[0])
    assert named(values[0], book, "own_training_capex") == pytest.approx(N_RUN * 45_000)
    assert named(values[0], book, "plan_training_capex") == pytest.approx(N_RUN * 45_000)
    assert named(values[0], book, "plan_training_basis").startswith("on owned GPUs")
    assert named(values[2], book, "own_training_gpus") == 0  # ownership.training FALSE: rented
    assert named(values[2], book, "plan_training_basis") == "at its tier (on-demand), over the run"
    assert named(values[2], book, "tco_owned_training") == pytest.approx(
        named(values[2], book, "tco_on_demand_training"))
    assert named(values[3], book, "own_gpus") == N_RUN and named(values[3], book, "own_training_gpus") == 0
    assert same(False, named(values[3], book, "own_training_separate"))  # trained on the serving MI300X
    mixed = xlsx.read(paths[1])
    for name in ("tco_owned_total_cost", "own_training_capex", "plan_training_capex"):
        assert named(values[4], mixed, name) == NO_SERVER, name  # a blank server price is allowed: unpriced
    assert named(values[4], mixed, "tco_on_demand_total_cost") == pytest.approx(
        named(values[1], mixed, "tco_on_demand_total_cost"))
    errors = {where: v for where, v in values[4].items() if isinstance(v, str) and v.startswith("#")}
    assert errors == {}


def test_the_html_says_why_the_training_gpus_are_a_line_of_their_own():
    from planner.engine import compute
    from planner.report.cost import findings

    said = findings(compute(scenario_with(FLEET_1, **OWNED)))
    assert ("The owned path trains on GPUs it buys: 1,024 h100-sxm ($46,080,000), a type the serving fleet does not "
            "use") in said[-1]
