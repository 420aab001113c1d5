"""The cost of ownership's inputs (docs/method.md §13.1): their defaults, the Catalog's new GPU columns with the
shipped values, and bad input refused with the file, line, key and what is allowed, writing nothing."""

from __future__ import annotations

import datetime as dt

import pytest

from planner import shipped
from planner.engine.plan import inputs as plan_inputs
from planner.engine.plan import prices as plan_prices
from planner.engine.calendar import serial
from planner.scenario import DEFAULT, parse_scenario
from tests.helpers import refused


@pytest.mark.parametrize("text, expected", [
    ("name: x\nbudget: {start_date: 2027-02-30}\n", ["scenario.yaml:2:", "budget.start_date", "'2027-02-30'",
                                                     "not a date", "YYYY-MM-DD"]),
    ("name: x\nbudget:\n  start_date: next spring\n", ["scenario.yaml:3:", "budget.start_date", "not a date"]),
    ("name: x\nbudget: {start_date: 20270101}\n", ["scenario.yaml:2:", "budget.start_date", "not a date"]),
    ("name: x\nbudget: {start_date: 1999-12-31}\n", ["budget.start_date", "from 2000-01-01 to 2100-12-31"]),
    ("name: x\nbudget:\n  first_fiscal_month: 13\n", ["scenario.yaml:3:", "budget.first_fiscal_month", "value 13",
                                                      "less than or equal to 12"]),
    ("name: x\ncurrency: EUR\nfx_rate: 0\n", ["scenario.yaml:3:", "fx_rate", "value 0", "greater than 0"]),
    ("name: x\nfx_rate: 0.92\n", ["scenario.yaml:2:", "fx_rate", "value 0.92", "USD report takes a rate of 1",
                                  "set currency"]),
    ("name: x\ngpu: {name: mine, memory_gb: 80, peak_tflops: 900, hbm_tbps: 3}\nbudget:\n  path: owned\n",
     ["scenario.yaml:4:", "budget.path", "server_price and server_kw of GPU 'mine'",
      "catalog.gpus.mine.server_price", "choose on_demand or committed"]),
    ("name: x\ncatalog: {gpus: {h100-sxm: {server_price: 1}}}\nbudget: {path: owned}\n"
     "gpu: {name: other, memory_gb: 80, peak_tflops: 900, hbm_tbps: 3, server_price: 40000}\n",
     ["budget.path", "server_kw of GPU 'other'"]),
    ("name: x\nownership: {training: true, gpus: 512}\n", ["scenario.yaml:2:", "ownership.gpus", "value 512",
                                                          "at least the run's 1,024 GPUs"]),
    ("name: x\npricing: {training_tier: reserved}\n", ["pricing.training_tier", "'on_demand'", "'spot'"]),
    ("name: x\npricing: {committed_1y_ratio: 0}\n", ["pricing.committed_1y_ratio", "value 0"]),
    ("name: x\npricing: {serving_baseline_gpus: -1}\n", ["pricing.serving_baseline_gpus", "value -1"]),
    ("name: x\nbudget: {contingency: text}\n", ["budget.contingency", "'text'"]),
    ("name: x\nownership: {useful_life_years: 0}\n", ["ownership.useful_life_years", "value 0"]),
    ("name: x\ncatalog: {gpus: {h100-sxm: {price_spot: -1}}}\n", ["catalog.gpus.h100-sxm.price_spot", "value -1"]),
])
def test_bad_cost_input_exits_2_naming_the_key_and_line(tmp_path, text, expected):
    output, _ = refused(tmp_path, text)
    for fragment in expected:
        assert fragment in output


def test_the_defaults_are_the_methods():
    d = DEFAULT
    assert d.fx_rate == 1 and d.currency == "USD"
    assert d.budget.start_date is None  # the first of the month after the generation date, when it is run
    assert (d.budget.first_fiscal_month, d.budget.escalation, d.budget.contingency, d.budget.discount_rate,
            d.budget.other_monthly_cost, d.budget.path) == (1, 0, 0, 0.08, 0, "on_demand")
    p = d.pricing
    assert (p.training_tier, p.serving_baseline_tier, p.serving_baseline_gpus, p.committed_1y_ratio,
            p.committed_3y_ratio, p.spot_ratio, p.spot_overhead) == ("on_demand", "committed_1y", None, 0.80, 0.65,
                                                                     0.50, 0.10)
    o = d.ownership
    assert (o.gpus, o.training, o.useful_life_years, o.residual_value, o.pue, o.price_per_kwh, o.power_share,
            o.datacenter_per_kw_month, o.staff_per_1000_gpus, o.staff_cost_per_year) == (
        None, False, 4, 0.10, 1.3, 0.08, 1.0, 184.06, 2, 250_000)
    assert (d.unit.active_users, d.unit.price_input_per_million, d.unit.price_output_per_million) == (None, None,
                                                                                                      None)


def test_a_start_date_reads_as_a_date_and_is_kept_as_written():
    s = parse_scenario({"name": "x", "budget": {"start_date": "2027-01-31"}, "currency": "EUR", "fx_rate": 0.92})
    assert s.budget.start_date == "2027-01-31" and serial(dt.date(2027, 1, 31)) == 46_418
    assert s.normalised()["budget"]["start_date"] == "2027-01-31"
    again = parse_scenario({"name": "x", "budget": {"start_date": dt.date(2027, 1, 31)}})
    assert again.budget.start_date == "2027-01-31"


@pytest.mark.parametrize("gpu, price, kw", [("a100-80gb", 20_000, 0.8125), ("h100-sxm", 45_000, 1.275),
                                            ("h200", 50_000, 1.275), ("b200", 65_000, 1.7875),
                                            ("mi300x", 33_000, 1.366)])
def test_the_shipped_server_prices_and_power(gpu, price, kw):
    g = shipped.GPUS[gpu]
    assert (g.server_price, g.server_kw) == (price, kw)
    assert g.server_price_source and g.server_kw_source and len(g.server_kw_source) <= 64
    assert g.price_committed_1y is g.price_committed_3y is g.price_spot is None  # blank: the ratios


@pytest.mark.parametrize("gpu, owned", [("a100-80gb", "0.8596"), ("h100-sxm", "1.6659"), ("h200", "1.7943"),
                                        ("b200", "2.3617"), ("mi300x", "1.3903")])
def test_the_shipped_servers_owned_cost_per_gpu_hour_at_the_defaults(gpu, owned):
    """§13.1's table: c_own at the defaults, within 3.2 % of SemiAnalysis's neocloud figures."""
    g = shipped.GPUS[gpu]
    own = DEFAULT.ownership  # the defaults: 4 years, 10 %, PUE 1.3, $0.08 per kWh, $184.06 per kW-month, 2 FTE
    rates = plan_prices.owned_rates(plan_inputs.Owning(server_price=g.server_price, server_kw=g.server_kw,
                                                       **own.model_dump()), 1.0)
    assert round(rates.cost_per_gpu_hour, 4) == float(owned)


def test_a_catalog_quote_reaches_the_merged_catalog():
    s = parse_scenario({"name": "x", "catalog": {"gpus": {"h100-sxm": {"price_committed_1y": 1.45,
                                                                       "price_committed_1y_source": "our quote"}}}})
    g = s.merged_catalog.gpus["h100-sxm"]
    assert g.price_committed_1y == 1.45 and g.price_committed_1y_source == "our quote" and g.server_price == 45_000


def test_an_nvidia_servers_kw_per_gpu_is_its_dgx_maximum_over_eight():
    """The shipped NVIDIA GPUs' server kW, one rule (planner/shipped.dgx): the DGX's maximum power ÷ its 8 GPUs, its
    source naming the system; the MI300X's is its own."""
    from planner import shipped

    assert shipped.dgx("H100", 10.2) == {"server_kw": 1.275,
                                         "server_kw_source": f"DGX H100: 10.2 kW max ÷ 8 ({shipped.NOT_CONFIRMED})"}
    assert [shipped.GPUS[g].server_kw for g in ("a100-80gb", "h100-sxm", "h200", "b200")] == [
        6.5 / 8, 1.275, 1.275, 14.3 / 8]
    assert shipped.GPUS["mi300x"].server_kw == 1.366
    first_five = ("a100-80gb", "h100-sxm", "h200", "b200", "mi300x")
    assert {shipped.GPUS[g].price_source for g in first_five} == {shipped.ILLUSTRATIVE}
    # the added GPUs (tests/test_catalog_hardware.py): illustrative too, by InferenceX's ratios
    assert {g.price_source for g in shipped.GPUS.values() if g.id not in first_five} == {
        shipped.ADDED["price_source"]} and shipped.ADDED["price_source"].startswith("Illustrative")
