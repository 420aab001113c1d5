"""Mixed GPU pools (METHOD §15.1) on the sheets: the Fleet sheet's mixed rows, its answer per pool, the day priced
per pool and the plan's n/a recalculated in LibreOffice and Gnumeric equal the engine (every formula cell, as
`planner verify` compares); an A100 price typed on Catalog re-ranks live to Splitwise-HA, as the engine finds at
that price (example C's $1.10 quote: $26.60)."""

from __future__ import annotations

import pytest

from planner import xlsx
from planner.audit import same
from planner.engine import compute
from planner.engine.shared import FLEET_MIXED, FLEET_POOLED
from planner.scenario import load_scenario
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import UNCOMPARED, catalog_cells, named, recalculated, scenario_with, set_cells

pytestmark = [pytest.mark.spreadsheet, pytest.mark.usefixtures("section_6_overheads")]  # §6's τ alone, as §11's

RETRIEVAL = ROOT / "examples" / "fleet-2b-70b-fp8-retrieval.yaml"
SPLITWISE_HA = ROOT / "examples" / "fleet-6-70b-fp8-splitwise-ha.yaml"
COVER_A = ("Serving: 10 h100-sxm for prefill and 3 h200 for decode (mixed pools, §15.1), $27.50 an hour at the peak "
           "($0.50 an hour, 1.8 %, below the best single-type fleet: 14 h100-sxm, $28.00)")


@pytest.fixture(scope="module")
def written(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("mixed")
    scenarios = {"a-day": scenario_with(RETRIEVAL, **{"fleet.mixed_gpus": True, "fleet.profile": "office-assistant"}),
                 "a": scenario_with(RETRIEVAL, **{"fleet.mixed_gpus": True}), "ha": load_scenario(SPLITWISE_HA)}
    found = {}
    for key, scenario in scenarios.items():
        found[key] = folder / f"{key}.xlsx"
        build(compute(scenario), str(found[key]))
    return found


def test_mixed_fleets_recalculate_in_gnumeric(gnumeric, written):
    """Both workbooks in Gnumeric, every formula cell equal to the engine, as test_mixed_fleets_recalculate does in
    LibreOffice."""
    recalculated(gnumeric, [written["a"], written["ha"]])


def test_mixed_fleets_recalculate(libreoffice, written):
    """Example A (mixing wins: the plan priced per pool, §15.1) and the Splitwise-HA example (HA loses at $1.50: today's
    plan)."""
    a, ha = written["a"], written["ha"]
    values = dict(zip((a, ha), recalculated(libreoffice, [a, ha])))

    def value(path, name):
        return named(values[path], xlsx.read(path), name)

    assert value(a, "fleet_cheapest_gpu") == "h100-sxm/h200" and same(True, value(a, "fleet_cheapest_mixed"))
    assert value(a, "fleet_cheapest_cost_per_hour") == pytest.approx(27.5)
    assert value(a, "fleet_mixed_answer") == COVER_A
    assert value(a, "plan_serving_reason") == FLEET_POOLED and isinstance(value(a, "plan_total_cost"), float)
    assert same(True, value(a, "fleet_rows_hold"))
    assert value(ha, "fleet_configurations") == 56 and value(ha, "fleet_mixed_configurations") == 16
    assert value(ha, "fleet_cheapest_mixed_cost_per_hour") == pytest.approx(29.0)
    assert value(ha, "fleet_cheapest_gpu") == "h100-sxm" and same(False, value(ha, "fleet_cheapest_mixed"))
    assert isinstance(value(ha, "plan_total_cost"), float)


def test_a_mixed_day_recalculates(libreoffice, written):
    """Example A over the office day: each hour's pools at their own prices, sized for the peak 24 × $27.50.
    LibreOffice only: see GNUMERIC_ON_MAIN."""
    a = written["a-day"]
    [values] = recalculated(libreoffice, [a])
    book = xlsx.read(a)
    assert named(values, book, "fleet_day_cost_peak_sized") == pytest.approx(24 * 27.5)
    assert named(values, book, "fleet_cheapest_gpu") == "h100-sxm/h200"


def test_an_a100_quote_on_catalog_re_ranks_to_splitwise_ha(libreoffice, written, tmp_path):
    """The A100 at $1.10 typed on Catalog: 10 H100 + 6 A100 cost $26.60 and become the cheapest, as the engine finds
    at that price; the plan's serving money then reads n/a (a mixed fleet), live."""
    edited = tmp_path / "quote.xlsx"
    set_cells(written["ha"], edited, catalog_cells(written["ha"], [("catalog_gpu", "a100-80gb", "price_per_hour",
                                                                     1.10)]))
    [values] = recalculated(libreoffice, [edited], [UNCOMPARED])
    book = xlsx.read(written["ha"])
    engine = compute(scenario_with(load_scenario(SPLITWISE_HA), **{"catalog.gpus.a100-80gb.price_per_hour": 1.10}))
    head = engine.fleet.headline
    assert head["fleet_cheapest_gpu"] == "h100-sxm/a100-80gb" and head["fleet_cheapest_cost_per_hour"] == \
        pytest.approx(26.6)
    for name in ("fleet_cheapest_gpu", "fleet_cheapest_prefill_gpu", "fleet_cheapest_decode_gpu",
                 "fleet_cheapest_cost_per_hour", "fleet_cheapest_prefill_gpus", "fleet_cheapest_decode_gpus",
                 "fleet_cheapest_single_type_cost_per_hour", "fleet_mixed_answer", "fleet_answer"):
        got = named(values, book, name)
        assert got == pytest.approx(head[name], rel=1e-9) if isinstance(got, float) else got == head[name], name
    assert same(True, named(values, book, "fleet_cheapest_mixed"))
    assert named(values, book, "plan_serving_reason") == FLEET_MIXED


def test_a_pair_of_one_gpu_typed_on_inputs_fails_its_check(libreoffice, written, tmp_path):
    """The Splitwise-HA pair edited to h100-sxm/h100-sxm: the check is FALSE, the Checks sheet fails and the
    Fleet's answer and the plan's money read n/a; a GPU outside fleet.gpus (b200) does the same."""
    book = xlsx.read(written["ha"])
    for decode in ("h100-sxm", "b200"):
        edited = tmp_path / f"pair-{decode}.xlsx"
        set_cells(written["ha"], edited, {"fleet_mixed_pairs_1_decode": decode})
        [values] = recalculated(libreoffice, [edited], [UNCOMPARED])
        assert same(False, named(values, book, "ok_fleet_mixed_pairs_valid")), decode
        assert same(False, named(values, book, "checks_all_pass"))
        assert named(values, book, "fleet_answer").startswith("n/a")
        assert str(named(values, book, "plan_total_cost")).startswith("n/a")
