"""The same traffic on a hosted API (docs/method.md §13): the worked examples E and F, numbers worked by hand from
METHOD.md (365 days from 2027-01-01, `fleet.profile: none`, g 0, on demand, κ 0, h 0 unless stated). A training run
of a million tokens stands in for "no training": it shifts the launch by a fraction of a second, and with g 0 and
no escalation the plan's totals do not depend on when in the month serving starts."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.engine import compute
from planner.scenario import ScenarioError, parse_scenario
from tests.conftest import ROOT
from tests.helpers import scenario_with

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD's examples are worked at §6's overhead τ alone

EXAMPLES = ROOT / "examples"
FIVE_GPUS = EXAMPLES / "fleet-1-8b-five-gpus.yaml"  # §11 example 1: MI300X t 2, B 306, n 7, 16 GPUs, $32.00 an hour
RETRIEVAL = EXAMPLES / "fleet-2b-70b-fp8-retrieval.yaml"  # §11 example 2(b): 70B FP8, 8,000 + 200 tokens, 5 req/s
PLAN = {"budget.start_date": "2027-01-01", "crossover.horizon_days": 365, "hours.tokens": 1e6}


def offers(results) -> dict:
    return {o["offer"]: o for o in results.api.offers}


@pytest.fixture(scope="module")
def example_e(section_6_overheads):
    return compute(scenario_with(FIVE_GPUS, **PLAN))


def test_e_prices_per_attempt_per_day_and_over_the_plan(example_e):
    """(2048·0.18 + 6144·0.18)/1e6 = $0.00147456 and (2048·0.02 + 6144·0.03)/1e6 = $0.00022528 an attempt; 864,000
    requests a day; over 365 days $465,017 and $71,044, against the fleet's $32.00 × 8,760 = $280,320."""
    found = offers(example_e)
    together, deepinfra = found["together-llama-3.1-8b-turbo"], found["deepinfra-llama-3.1-8b-turbo"]
    assert together["cost_per_request"] == pytest.approx(0.00147456, rel=1e-12)
    assert deepinfra["cost_per_request"] == pytest.approx(0.00022528, rel=1e-12)
    assert together["total_cost"] == pytest.approx(864_000 * 365 * 0.00147456, rel=1e-9)  # $465,017.24
    assert round(together["total_cost"]) == 465_017 and round(deepinfra["total_cost"]) == 71_044
    assert together["cost_per_million_output"] == pytest.approx(0.24, rel=1e-12)
    assert deepinfra["cost_per_million_output"] == pytest.approx(0.03667, rel=1e-3)
    assert example_e.api.headline["api_serving_total_cost"] == pytest.approx(280_320, rel=1e-12)
    assert example_e.api.headline["api_cheapest_offer"] == "deepinfra-llama-3.1-8b-turbo"


def test_e_january_on_the_plans_calendar(example_e):
    """January: 31 days × 864,000 requests × $0.00147456 = $39,494.62 (the launch a fraction of a second late)."""
    january = example_e.api.months[0]
    assert january["together-llama-3.1-8b-turbo"] == pytest.approx(31 * 864_000 * 0.00147456, rel=1e-6)
    assert january["attempts"] == pytest.approx(31 * 864_000, rel=1e-6)
    assert january["input_tokens"] == pytest.approx(31 * 864_000 * 2048, rel=1e-6)
    assert january["cached_input_tokens"] == 0


def test_e_break_even_and_never(example_e):
    """Floor 1.1·2·$2.00·cycle/(3600·306) = $0.00078428 a request: below Together's a_req, above DeepInfra's (never).
    Together: the $384 step (n 3, 8 GPUs) meets the API's $127.40 per request a second at 384/127.4 = 3.0141 req/s =
    1,600,000,000 output tokens a day (260,417 requests); searched to 10.6384 req/s."""
    found = offers(example_e)
    together, deepinfra = found["together-llama-3.1-8b-turbo"], found["deepinfra-llama-3.1-8b-turbo"]
    assert together["floor_per_request"] == pytest.approx(0.00078428, rel=1e-4)
    per_rate = 86_400 * 0.00147456  # $127.40 a day per request a second
    assert together["break_even_rate"] == pytest.approx(384 / per_rate, rel=1e-12)
    assert together["break_even_tokens_per_day"] == pytest.approx(1_600_000_000, rel=1e-9)
    assert round(together["break_even_requests_per_day"]) == 260_417
    # METHOD gives 10.6384 req/s; §14's T_first (its queue term step/2) moves the step's end to 10.6388 at τ alone
    assert together["break_even_searched_to"] == pytest.approx(10.6384, abs=5e-4)
    assert together["break_even_replicas"] == [3]
    assert deepinfra["break_even"] == "never" and deepinfra["break_even_rate"] is None
    assert example_e.api.headline["api_cheapest_break_even_tokens_per_day"] == ""


def test_e_cover_words(example_e):
    found = offers(example_e)
    assert found["together-llama-3.1-8b-turbo"]["words"] == (
        "The same traffic on together-llama-3.1-8b-turbo would cost $465,017 over the plan, against $280,320 for "
        "renting on demand (the plan's serving cost). On a flat day at launch prices, self-hosting this "
        "configuration costs less at any traffic above 1,600,000,000 output tokens a day (260,417 requests of 2,048 "
        "prompt and 6,144 output tokens).")
    assert found["deepinfra-llama-3.1-8b-turbo"]["words"] == (
        "The same traffic on deepinfra-llama-3.1-8b-turbo would cost $71,044 over the plan, against $280,320 for "
        "renting on demand (the plan's serving cost). On a flat day at launch prices, self-hosting this "
        "configuration costs more at any traffic: its cost never falls below $0.0007843 a request, the offer's price "
        "is $0.0002253.")  # METHOD's words print 6 decimals ($0.000784, $0.000225); 7 here: at 6 a half such as
    # $0.0000275 (0.11 per million × 250 tokens) reads $0.000027 in Gnumeric and $0.000028 in LibreOffice


def test_e_with_retries_the_break_even_scales_by_the_quality():
    """q 0.9 with retries: Y_λ = 0.9·3.0141 = 2.7127 first-attempt req/s = 1,440,000,000 output tokens a day; the
    "never" test does not move."""
    results = compute(scenario_with(FIVE_GPUS, **PLAN, **{"fleet.quality": 0.9, "fleet.retries": True}))
    found = offers(results)
    together = found["together-llama-3.1-8b-turbo"]
    assert results.api.headline["api_retry_factor"] == pytest.approx(1 / 0.9, rel=1e-12)
    assert together["break_even_rate"] == pytest.approx(0.9 * 384 / (86_400 * 0.00147456), rel=1e-9)
    assert together["break_even_tokens_per_day"] == pytest.approx(1_440_000_000, rel=1e-9)
    assert found["deepinfra-llama-3.1-8b-turbo"]["break_even"] == "never"


def test_f_prices_of_prompt_heavy_traffic():
    """F: 432,000 requests a day of 8,000 input and 200 output tokens. Together (8,200·0.88)/1e6 = $0.007216,
    $3,117.31 a day, $1,137,819 over the plan; DeepInfra $0.00328, $1,416.96, $517,190; the cached row (8,000·0.60 +
    200·0.80)/1e6 = $0.00496, $2,142.72, $782,093."""
    results = compute(scenario_with(RETRIEVAL, **PLAN, **{"api.offers": "all"}))
    found = offers(results)
    for key, a_req, day, total in (("together-llama-3.1-70b-turbo", 0.007216, 3_117.31, 1_137_819),
                                   ("deepinfra-llama-3.1-70b-turbo", 0.00328, 1_416.96, 517_190),
                                   ("illustrative-70b-cached", 0.00496, 2_142.72, 782_093)):
        assert found[key]["cost_per_request"] == pytest.approx(a_req, rel=1e-12)
        assert round(432_000 * found[key]["cost_per_request"], 2) == day
        assert round(found[key]["total_cost"]) == total
    assert "(together-llama-3.1-8b-turbo serves llama-3.1-8b, not the plan's model)" in \
        found["together-llama-3.1-8b-turbo"]["words"]


def test_f_prefix_hit_rate_cuts_both_bills():
    """h 0.8 on the cached row: (1,600·0.60 + 6,400·0.30 + 200·0.80)/1e6 = $0.00304, $1,313.28 a day, $479,347. The
    fleet: aggregated H100 t 2, B 34, n 2, 6 GPUs, $12.00 an hour; Y = 0.7310 req/s = 12,631,579 output tokens a
    day."""
    results = compute(scenario_with(RETRIEVAL, **PLAN, **{"serving.prefix_hit_rate": 0.8,
                                                          "api.offers": ["illustrative-70b-cached"]}))
    cached = offers(results)["illustrative-70b-cached"]
    assert cached["cost_per_request"] == pytest.approx(0.00304, rel=1e-12)
    assert round(432_000 * cached["cost_per_request"], 2) == 1_313.28
    assert round(cached["total_cost"]) == 479_347
    assert results.fleet.headline["fleet_cheapest_cost_per_hour"] == pytest.approx(12.00)
    assert cached["break_even_rate"] == pytest.approx(0.7310, abs=5e-5)
    assert round(cached["break_even_tokens_per_day"]) == 12_631_579


@pytest.mark.parametrize("users, together", [(32, "at no traffic"), (128, "at any traffic")])
def test_without_a_fleet_the_words_say_at_any_traffic_or_at_none(users, together):
    """The default 8B plan on one H100 at $2.00 costs 2·1e6/(3600·TokS) per output million whatever the traffic: at
    32 users about $0.28, above Together's $0.24 (no traffic); at 128 users below it (any traffic); DeepInfra's
    $0.0367 is below both (no traffic)."""
    results = compute(scenario_with(None, **{"serving.users": users}))
    found = offers(results)
    own = 2.00 * 1e6 / (3600 * results.serving.headline["serving_tokens_per_s_per_gpu"])
    assert (own <= 0.24) == (together == "at any traffic") and own > 0.0367
    assert found["together-llama-3.1-8b-turbo"]["break_even"] == together
    assert found["deepinfra-llama-3.1-8b-turbo"]["break_even"] == "at no traffic"
    assert found["together-llama-3.1-8b-turbo"]["break_even_tokens_per_day"] is None


@pytest.mark.parametrize("changes, key, allowed", [
    ({"api.offers": ["no-such-offer"]}, "api.offers", "together-llama-3.1-8b-turbo"),
    ({"catalog.api_offers": {"mine": {"provider": "Me", "model": "no-such-model", "price_input_per_million": 1,
                                      "price_output_per_million": 1}}, "api.offers": ["mine"]},
     "catalog.api_offers.mine.model", "llama-3.1-8b"),
    ({"api.offers": ["together-llama-3.1-8b-turbo"] * 9}, "api.offers", "at most 8"),
    ({"catalog.api_offers": {"mine": {"provider": "Me", "model": "llama-3.1-8b", "price_input_per_million": -1,
                                      "price_output_per_million": 1}}}, "catalog.api_offers.mine", "greater than or "
     "equal to 0"),
])
def test_bad_offers_are_refused_naming_the_key_and_what_is_allowed(changes, key, allowed):
    with pytest.raises(ScenarioError) as error:
        scenario_with(None, **changes)
    said = str(error.value)
    assert key in said and allowed in said


def test_more_than_eight_offers_with_all_are_refused():
    many = {f"offer-{i}": {"provider": "Me", "model": "llama-3.1-8b", "price_input_per_million": 1,
                           "price_output_per_million": 1} for i in range(4)}
    with pytest.raises(ScenarioError) as error:
        scenario_with(None, **{"catalog.api_offers": many, "api.offers": "all"})
    assert "api.offers" in str(error.value) and "at most 8" in str(error.value)


def test_an_offer_added_on_catalog_is_compared_like_the_others():
    mine = {"provider": "Me", "model": "llama-3.1-8b", "price_input_per_million": 0.10,
            "price_output_per_million": 0.20, "source": "a quote", "as_of": "2026-12-07"}
    results = compute(parse_scenario({"name": "mine", "catalog": {"api_offers": {"mine": mine}}}))
    found = offers(results)
    assert list(found) == ["together-llama-3.1-8b-turbo", "deepinfra-llama-3.1-8b-turbo", "mine"]
    assert found["mine"]["cost_per_request"] == pytest.approx((2048 * 0.10 + 6144 * 0.20) / 1e6, rel=1e-12)


def test_no_offer_no_table():
    """`none`, or a model no offer serves: no API table."""
    assert "api" not in compute(scenario_with(None, **{"api.offers": "none"})).tables
    assert scenario_with(None, **{"api.offers": "none"}).api.offers == []
    assert scenario_with(Path(EXAMPLES / "moe-1-mixtral-from-config-json.yaml")).api.offers == []


def _without_api(data):
    """A results JSON without what the API comparison adds: its table, its headline names, its inputs."""
    if isinstance(data, dict):
        return {k: _without_api(v) for k, v in data.items()
                if not (k == "api" or k.startswith("api_") or k == "api_offers")}
    if isinstance(data, list):
        return [_without_api(v) for v in data]
    return data


@pytest.mark.parametrize("example", ["default.yaml", "fleet-1-8b-five-gpus.yaml", "tco-4-8b-in-euros-fiscal-years.yaml",
                                     "scenarios-1-70b-base-low-high.yaml"])
def test_the_comparison_changes_no_other_number(example):
    """With `api.offers` at its default (the model's offers) every other figure of the JSON is what it is with no
    offer compared: the comparison adds a table and names, nothing else."""
    import json

    from planner.output import results_json

    path = EXAMPLES / example
    compared = json.loads(results_json(compute(scenario_with(path))))
    alone = json.loads(results_json(compute(scenario_with(path, **{"api.offers": "none"}))))
    assert compared["tables"]["api"]["offers"] and "api" not in alone["tables"]
    assert _without_api(compared) == _without_api(alone)


def test_f_break_even_on_the_mixed_fleet():
    """F on example A's mixed fleet (H100 prefill, H200 decode, $27.50 an hour): the walk over the (x, y) steps at
    $2.00 and $2.50 an hour; Together breaks even where its $623.46 per request a second reaches the $264 step, 264/
    623.46 = 0.4234 req/s = 7,317,073 output tokens a day (36,585 requests); DeepInfra at 1.1009 (19,024,390), the
    cached row at 0.7280 (12,580,645)."""
    results = compute(scenario_with(RETRIEVAL, **PLAN, **{"fleet.mixed_gpus": True, "api.offers": "all"}))
    assert results.fleet.headline["fleet_cheapest_cost_per_hour"] == pytest.approx(27.50)
    found = offers(results)
    together = found["together-llama-3.1-70b-turbo"]
    assert together["break_even_rate"] == pytest.approx(264 / (86_400 * 0.007216), rel=1e-9)
    assert round(together["break_even_tokens_per_day"]) == 7_317_073
    assert round(together["break_even_requests_per_day"]) == 36_585
    assert round(found["deepinfra-llama-3.1-70b-turbo"]["break_even_tokens_per_day"]) == 19_024_390
    assert round(found["illustrative-70b-cached"]["break_even_tokens_per_day"]) == 12_580_645
    assert together["floor_per_request"] == pytest.approx(0.000876, abs=5e-7)
