"""Mixed GPU pools (METHOD §15.1, Splitwise): prefill and decode on different GPUs, against the numbers its worked
examples print. A: §11's example 2(b) over H100 and H200 (mixing wins, $27.50 against $28.00); B: §11's example 1
over five GPUs (mixing does not win); C: Splitwise-HA, H100 prefill and A100 decode (wins only below $1.33 per
A100-hour). Every expected number below is the one METHOD prints, worked there by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner import shipped
from planner.engine import fleet as F
from planner.engine.shared import FLEET_POOLED
from planner.scenario import ScenarioError

from tests.helpers import scenario_with

pytestmark = [pytest.mark.usefixtures("section_6_overheads"),  # METHOD §15.1's examples, at §6's τ alone as §11's
              pytest.mark.xdist_group("fleet-mixed")]  # one worker: example A computed once

RETRIEVAL = Path(__file__).parent.parent / "examples" / "fleet-2b-70b-fp8-retrieval.yaml"  # §11's 2(b)
CHAT_8B = Path(__file__).parent.parent / "examples" / "fleet-1-8b-five-gpus.yaml"  # §11's example 1
SPLITWISE_HA = Path(__file__).parent.parent / "examples" / "fleet-6-70b-fp8-splitwise-ha.yaml"
FIVE_GPUS = ["a100-80gb", "h100-sxm", "h200", "b200", "mi300x"]


def printed(value: float, text: str) -> bool:
    """Whether `value` reads as `text` at the precision printed."""
    digits = len(text.split(".")[1]) if "." in text else 0
    return f"{value:,.{digits}f}" == text


def mixed(**changes) -> F.FleetTable:
    return F.compute(scenario_with(RETRIEVAL, **{"fleet.mixed_gpus": True, **changes}), {})


def best_mixed(table: F.FleetTable) -> dict:
    return next(r for r in table.candidates if r["reason"] is None and r["prefill_gpu"] != r["decode_gpu"])


@pytest.fixture(scope="module")
def example_a() -> F.FleetTable:
    return mixed()


@pytest.fixture(scope="module")
def example_a_results(section_6_overheads):
    """Example A's whole results (compute), for the tests that read the HTML's words, the plan and the sheet."""
    from planner.engine import compute

    return compute(scenario_with(RETRIEVAL, **{"fleet.mixed_gpus": True}))


def test_without_mixing_the_retrieval_service_is_the_h100_pair_at_28():
    table = F.compute(scenario_with(RETRIEVAL), {})
    best = table.cheapest
    assert table.scalars["configurations"] == 40 and table.scalars["mixed_configurations"] == 0
    assert (best["gpu"], best["prefill_tensor_parallel"], best["tensor_parallel"], best["batch"]) == \
        ("h100-sxm", 1, 2, 54)
    assert (best["prefill_replicas"], best["decode_replicas"], best["gpus"], best["cost_per_hour"]) == (9, 1, 14, 28.0)
    assert table.headline["fleet_cheapest_mixed"] is False
    assert table.headline["fleet_cheapest_prefill_gpu"] == table.headline["fleet_cheapest_decode_gpu"] == "h100-sxm"


def test_example_a_h100_prefill_and_h200_decode_at_27_50(example_a):
    """72 configurations (40 + 32 mixed); H100 t_p 1 with H200 t_d 1, B 41, x 9, y 2: 10 H100 + 3 H200, $27.50."""
    table, best = example_a, example_a.cheapest
    assert table.scalars["configurations"] == 72 and table.scalars["mixed_configurations"] == 32
    assert (best["gpu"], best["prefill_gpu"], best["decode_gpu"]) == ("h100-sxm/h200", "h100-sxm", "h200")
    assert (best["prefill_tensor_parallel"], best["tensor_parallel"], best["batch"], best["b_max"]) == (1, 1, 41, 41)
    assert (best["prefill_replicas"], best["decode_replicas"], best["gpus"]) == (9, 2, 13)
    assert best["cost_per_hour"] == pytest.approx(20.00 + 7.50)
    assert printed(best["tpot_ms"], "36.88") and printed(best["ttft_ms"], "1,208.63")
    assert best["kv_transfer_gbps"] == pytest.approx(45.0)  # MIN(1·50, 1·50)·0.90
    assert printed(best["kv_transfer_ms"], "29.13") and printed(best["prefill_tail"], "0.03138")
    assert printed(best["attainment"], "0.96862") and printed(best["ttft_percentile_ms"], "1,526.2")
    assert printed(best["cost_per_million_tokens"], "7.639") and printed(best["tokens_per_s_per_user"], "27.1")
    assert printed(best["output_tokens_per_dollar"], "130,909")  # 3600·5·200/27.50
    head = table.headline
    assert (head["fleet_cheapest_mixed"], head["fleet_cheapest_prefill_gpus"], head["fleet_cheapest_decode_gpus"]) == \
        (True, 10, 3)
    assert (head["fleet_cheapest_single_type_gpu"], head["fleet_cheapest_single_type_gpus"]) == ("h100-sxm", 14)
    assert head["fleet_cheapest_single_type_cost_per_hour"] == pytest.approx(28.0)
    assert head["fleet_cheapest_mixed_cost_per_hour"] == pytest.approx(27.5)


def test_example_a_front_by_output_tokens_per_dollar(example_a):
    """13 rows of 552 sized rows, 10 of them mixed; it starts at h100-sxm/h200 B 32 (130,909 tokens per dollar,
    30.0 tokens/s per user), not the headline row (B 41)."""
    s, front = example_a.scalars, example_a.pareto
    assert (s["pareto_rows"], s["sized_rows"]) == (13, 552)
    assert sum(r["prefill_gpu"] != r["decode_gpu"] for r in front) == 10
    first = front[0]
    assert (first["gpu"], first["batch"]) == ("h100-sxm/h200", 32)
    assert printed(first["output_tokens_per_dollar"], "130,909") and printed(first["tokens_per_s_per_user"], "30.0")
    assert printed(first["attainment"], "0.968619958") and printed(example_a.cheapest["attainment"], "0.968621544")


def test_mixing_off_keeps_the_front_on_tokens_per_gpu():
    """With mixed_gpus FALSE the front's axis stays tokens/s per GPU (§11: 10 rows over 2(b)'s 296 sized rows)."""
    table = F.compute(scenario_with(RETRIEVAL), {})
    assert (table.scalars["pareto_rows"], table.scalars["sized_rows"]) == (10, 296)
    per_gpu = [F.r9(r["tokens_per_s_per_gpu"]) for r in table.pareto]
    assert per_gpu == sorted(per_gpu, reverse=True)


def test_example_a_over_five_gpus_mixing_does_not_win():
    """420 configurations; the cheapest stays MI300X t 1/1 at $18.00; the best mixed is mi300x/h200 at $21.50."""
    table = mixed(**{"fleet.gpus": FIVE_GPUS})
    assert table.scalars["configurations"] == 420
    best = table.cheapest
    assert (best["gpu"], best["mode"], best["prefill_tensor_parallel"], best["tensor_parallel"]) == \
        ("mi300x", "disaggregated", 1, 1)
    assert best["cost_per_hour"] == pytest.approx(18.0)
    other = best_mixed(table)
    assert other["gpu"] == "mi300x/h200" and other["cost_per_hour"] == pytest.approx(21.5)
    assert table.headline["fleet_cheapest_mixed"] is False


def test_example_b_chat_traffic_mixing_does_not_win_and_a_tie_goes_to_one_gpu_type():
    """§11's example 1 with mixing: 420 configurations; MI300X aggregated t 2, B 306, n 7, 16 GPUs, $32.00; the best
    mixed (H100 t_p 1 + MI300X t_d 2, B 306, x 1, y 7, 18 GPUs, $36.00, T_kv 5.97 ms at 45 GB/s) ties MI300X's own
    disaggregated row at $36.00 and ranks after it."""
    table = F.compute(scenario_with(CHAT_8B, **{"fleet.mixed_gpus": True}), {})
    assert table.scalars["configurations"] == 420
    best = table.cheapest
    assert (best["gpu"], best["mode"], best["tensor_parallel"], best["batch"], best["replicas"], best["gpus"]) == \
        ("mi300x", "aggregated", 2, 306, 7, 16)
    assert best["cost_per_hour"] == pytest.approx(32.0)
    other = best_mixed(table)
    assert (other["gpu"], other["prefill_tensor_parallel"], other["tensor_parallel"], other["batch"]) == \
        ("h100-sxm/mi300x", 1, 2, 306)
    assert (other["prefill_replicas"], other["decode_replicas"], other["gpus"]) == (1, 7, 18)
    assert other["cost_per_hour"] == pytest.approx(36.0) and other["kv_transfer_gbps"] == pytest.approx(45.0)
    assert printed(other["kv_transfer_ms"], "5.97")
    before = table.candidates[table.candidates.index(other) - 1]
    assert (before["gpu"], before["mode"], before["cost_per_hour"]) == ("mi300x", "disaggregated", 36.0)
    assert printed(other["gpu_seconds_per_request"], "1.2937")


def test_mixed_configurations_come_after_the_single_type_ones_in_pair_order():
    configs = F.configurations(
        shipped.MODELS["llama-3.1-8b"], [(shipped.GPUS[g], shipped.GPUS[g].price_per_hour) for g in
                                         ("h100-sxm", "h200", "mi300x")],
        [(shipped.PRECISIONS["bf16"], shipped.PRECISIONS["bf16"])], parallel=(1, 2), modes=F.MODES,
        knobs=F.Knobs(sequence_length=8192, prompt_tokens=2048), mixed_pairs=[(2, 0), (0, 1)])
    single = [c for c in configs if not c.mixed]
    assert [c.index for c in configs] == list(range(len(configs))) and len(single) == 3 * (2 + 4)
    assert configs[len(single) - 1].gpu == "mi300x" and not configs[len(single) - 1].mixed
    labels = [(c.gpu, c.parallel) for c in configs[len(single):]]
    assert labels == [("mi300x/h100-sxm", (1, 1)), ("mi300x/h100-sxm", (1, 2)), ("mi300x/h100-sxm", (2, 1)),
                      ("mi300x/h100-sxm", (2, 2)), ("h100-sxm/h200", (1, 1)), ("h100-sxm/h200", (1, 2)),
                      ("h100-sxm/h200", (2, 1)), ("h100-sxm/h200", (2, 2))]
    # each pool on its own Catalog row: D from the prefill GPU's replica, B_max from the decode GPU's
    mi_h100 = configs[len(single)]
    assert (mi_h100.prefill_gpu, mi_h100.decode_gpu) == ("mi300x", "h100-sxm")
    assert mi_h100.terms["prefill_memory_gb"] == 192 and mi_h100.terms["memory_gb"] == 80
    assert (mi_h100.prefill_price, mi_h100.price) == (2.00, 2.00)


def test_example_c_splitwise_ha_loses_at_the_catalog_price():
    """H100 prefill + A100 decode, t_p 1 / t_d 2, B 51, x 9, y 2: 10 H100 + 6 A100, $29.00 against the H100 pair's
    $28.00; the pair crosses at MIN(1·50, 2·25)·0.90 = 45 GB/s."""
    table = mixed(**{"fleet.gpus": ["a100-80gb", "h100-sxm"]})
    best, ha = table.cheapest, best_mixed(table)
    assert (best["gpu"], best["cost_per_hour"]) == ("h100-sxm", 28.0)
    assert (ha["gpu"], ha["prefill_tensor_parallel"], ha["tensor_parallel"], ha["batch"]) == \
        ("h100-sxm/a100-80gb", 1, 2, 51)
    assert (ha["prefill_replicas"], ha["decode_replicas"], ha["gpus"]) == (9, 2, 16)
    assert ha["cost_per_hour"] == pytest.approx(10 * 2.00 + 6 * 1.50)
    assert ha["kv_transfer_gbps"] == pytest.approx(45.0)


def test_the_slower_side_limits_the_kv_link():
    """With t_d 1 the A100's one 25 GB/s NIC limits the pair to 22.5 GB/s; a number given overrides it."""
    h100, a100 = shipped.GPUS["h100-sxm"], shipped.GPUS["a100-80gb"]
    assert F.mixed_transfer_gbps(1, 1, h100, a100) == pytest.approx(22.5)
    assert F.mixed_transfer_gbps(1, 2, h100, a100) == pytest.approx(45.0)
    assert F.mixed_transfer_gbps(4, 2, h100, a100) == pytest.approx(45.0)
    assert F.mixed_transfer_gbps(1, 1, h100, a100, 100.0) == 100.0


QUOTE = {"a100-80gb-quote": {**{k: v for k, v in vars(shipped.GPUS["a100-80gb"]).items() if k != "id" and v is not None
                                and not k.endswith(("_source", "_as_of"))}, "price_per_hour": 1.10}}


def test_example_c_splitwise_ha_wins_below_1_33_per_a100_hour():
    """At a $1.10 quote (a scenario Catalog row) h100-sxm/a100-80gb-quote is the cheapest of all: $26.60 =
    10·2.00 + 6·1.10; HA wins below (28.00 − 20.00)/6 = $1.3333."""
    table = mixed(**{"catalog.gpus": QUOTE, "fleet.gpus": ["a100-80gb-quote", "h100-sxm"]})
    best = table.cheapest
    assert best["gpu"] == "h100-sxm/a100-80gb-quote" and best["cost_per_hour"] == pytest.approx(26.60)
    at_threshold = mixed(**{"catalog.gpus": {"a100-80gb-quote": {**QUOTE["a100-80gb-quote"], "price_per_hour": 1.34}},
                            "fleet.gpus": ["a100-80gb-quote", "h100-sxm"]})
    assert at_threshold.cheapest["gpu"] == "h100-sxm"  # 20 + 6·1.34 = 28.04 > 28.00


def test_example_c_one_pair_searched():
    """mixed_pairs [{prefill: h100-sxm, decode: a100-80gb}]: 40 + 16 = 56 configurations, the same $29.00 HA row."""
    table = mixed(**{"fleet.gpus": ["a100-80gb", "h100-sxm"],
                     "fleet.mixed_pairs": [{"prefill": "h100-sxm", "decode": "a100-80gb"}]})
    assert table.scalars["configurations"] == 56 and table.scalars["mixed_configurations"] == 16
    assert best_mixed(table)["cost_per_hour"] == pytest.approx(29.0)


def test_the_day_of_a_mixed_fleet_prices_each_pool_on_its_own_gpu():
    """Cost per day = Σ_h (G_h^p·p_p + G_h^d·p_d): sized for the peak, 24·$27.50; following, each hour's pools at
    their own prices."""
    table = mixed(**{"fleet.profile": "office-assistant"})
    s = table.scalars
    assert s["cost_peak_sized"] == pytest.approx(24 * 27.50)
    assert s["gpu_hours_peak_sized"] == 24 * 13
    by_hand = sum(F.ceil9_int(h["prefill_replicas"] * 1.1) * 2.00 + F.ceil9_int(h["decode_replicas"] * 1.1) * 2.50
                  for h in table.day)
    assert s["cost_following"] == pytest.approx(by_hand)
    assert s["cost_following"] != pytest.approx(s["gpu_hours_following"] * 2.50)


# Bad input: exit 2 naming the key and what is allowed -----------------------------------------------------------------
@pytest.mark.parametrize("changes, words", [
    ({"fleet.mixed_pairs": [{"prefill": "h100-sxm", "decode": "b200"}]},
     ["fleet.mixed_pairs", "b200", "not in fleet.gpus", "allowed: h100-sxm, h200"]),
    ({"fleet.mixed_pairs": [{"prefill": "h200", "decode": "h200"}]},
     ["fleet.mixed_pairs", "both the prefill and the decode GPU"]),
    ({"fleet.mixed_pairs": [{"prefill": "h100-sxm", "decode": "h200"}, {"prefill": "h100-sxm", "decode": "h200"}]},
     ["fleet.mixed_pairs", "listed twice"]),
    ({"fleet.modes": ["aggregated"]}, ["fleet.modes", "disaggregated"]),
])
def test_a_bad_mixed_pair_is_refused_naming_the_key(changes, words):
    with pytest.raises(ScenarioError) as refused:
        scenario_with(RETRIEVAL, **{"fleet.mixed_gpus": True, **changes})
    text = str(refused.value)
    assert all(w in text for w in words), text


def test_pairs_without_mixing_are_refused():
    with pytest.raises(ScenarioError, match="fleet.mixed_pairs.*fleet.mixed_gpus TRUE"):
        scenario_with(RETRIEVAL, **{"fleet.mixed_pairs": [{"prefill": "h100-sxm", "decode": "h200"}]})


def test_a_search_past_the_limit_is_refused_naming_the_keys():
    """Six GPUs with four precision pairs: 4·6·20 + 4·30·16 = 2,400 > 2,048; five GPUs: 1,680, allowed."""
    sixth = {"a100-40gb-custom": {**QUOTE["a100-80gb-quote"], "memory_gb": 40}}
    pairs = [{"weight": w, "kv": k} for w, k in (("fp8", "fp8"), ("fp8", "bf16"), ("bf16", "bf16"), ("bf16", "fp8"))]
    common = {"catalog.gpus": sixth, "fleet.precisions": pairs, "fleet.mixed_gpus": True}
    with pytest.raises(ScenarioError) as refused:
        scenario_with(RETRIEVAL, **common, **{"fleet.gpus": FIVE_GPUS + ["a100-40gb-custom"]})
    text = str(refused.value)
    assert "2,400 configurations" in text and "2,048" in text
    assert all(key in text for key in ("fleet.gpus", "fleet.precisions", "fleet.tensor_parallel", "fleet.mixed_pairs"))
    scenario_with(RETRIEVAL, **common, **{"fleet.gpus": FIVE_GPUS})  # 1,680: allowed


def test_the_search_size_formula():
    """N = |P|·|G|·(|T| + |T|²) + [mixed]·|P|·M·|T|²: five GPUs, one pair, four t: 100 + 320 = 420."""
    from planner.inputs.fleet import search_size

    scenario = scenario_with(CHAT_8B, **{"fleet.mixed_gpus": True})
    assert search_size(scenario.fleet, 4) == 420
    assert search_size(scenario_with(CHAT_8B).fleet, 4) == 100


# The words: the Cover's line, the HTML's sentence on which wins and why ---------------------------------------------
COVER_A = ("Serving: 10 h100-sxm for prefill and 3 h200 for decode (mixed pools, §15.1), $27.50 an hour at the peak "
           "($0.50 an hour, 1.8 %, below the best single-type fleet: 14 h100-sxm, $28.00)")  # METHOD §15.1, verbatim


def test_the_covers_words_when_mixing_wins(example_a):
    assert example_a.headline["fleet_mixed_answer"] == COVER_A


def test_the_covers_words_when_mixing_does_not_win_or_is_off():
    ha = mixed(**{"fleet.gpus": ["a100-80gb", "h100-sxm"]}).headline["fleet_mixed_answer"]
    assert ha == "Mixed pools do not win: the cheapest costs $29.00 an hour, $1.00 above the chosen fleet's $28.00"
    off = F.compute(scenario_with(RETRIEVAL), {}).headline["fleet_mixed_answer"]
    assert off == "not searched: fleet.mixed_gpus is FALSE"


def test_the_html_says_which_wins_and_why(example_a_results):
    from planner.engine import compute
    from planner.report import fleet as report

    said = " ".join(report.findings(example_a_results))
    assert ("Mixed pools win: 10 h100-sxm for prefill ($20.00) and 3 h200 for decode ($7.50), $27.50 an hour "
            "against $28.00 for the best fleet on one GPU type, 10 h100-sxm for prefill ($20.00) and 4 h100-sxm for "
            "decode ($8.00): $0.50 an hour (1.8 %) less") in said
    assert "decode at B 41 on 1 h200 per replica against decode at B 54 on 2 h100-sxm per replica" in said
    assert "Splitwise evaluated NVIDIA pairs only" in said
    assert "output tokens per $ against tokens/s per user has 13 of the 552 sized batch rows: from 130,909" in said
    chat = " ".join(report.findings(compute(scenario_with(CHAT_8B, **{"fleet.mixed_gpus": True}))))
    assert ("Mixed pools do not win: the best, 2 h100-sxm for prefill ($4.00) and 16 mi300x for decode ($32.00), "
            "costs $36.00 an hour against $32.00 for the cheapest, 16 mi300x ($32.00).") in chat  # x 1, y 7:
    # CEIL9(1.1)·1 = 2 H100 and CEIL9(7.7)·2 = 16 MI300X


# The workbook ---------------------------------------------------------------------------------------------------------
def test_the_plan_prices_each_pool_when_the_cheapest_is_mixed(example_a_results):
    """One serving GPU cannot price two GPU types: its price cells read n/a with the reason, not a wrong price, and
    the plan is the two pools' sum (§15.1): capex 10 H100 servers at $45,000 and 3 H200 at $50,000; the Fleet's
    names say what was chosen, per pool."""
    from planner.engine import compute

    head, cost = example_a_results.headline, example_a_results.tables["cost"]
    assert cost.scalars["price_on_demand"] == cost.scalars["own_cost_per_gpu_hour"] == FLEET_POOLED
    assert head["plan_capex"] == pytest.approx(10 * 45_000 + 3 * 50_000)
    assert head["plan_total_on_demand"] == pytest.approx(cost.pools.total("on_demand_total"))
    single = compute(scenario_with(RETRIEVAL, **{"fleet.mixed_gpus": True, "fleet.gpus": ["a100-80gb", "h100-sxm"]}))
    assert isinstance(single.headline["plan_total_cost"], float)  # the H100 pair is chosen: today's plan
    assert single.headline["plan_total_cost"] == compute(scenario_with(RETRIEVAL)).headline["plan_total_cost"]


def test_the_fleet_sheet_defines_the_mixed_names(example_a_results):
    from planner.workbook import build
    from planner.workbook.kit import NO_FILE

    book = build(example_a_results, NO_FILE)
    values = book.values
    assert values["fleet_cheapest_gpu"] == "h100-sxm/h200"
    assert (values["fleet_cheapest_prefill_gpu"], values["fleet_cheapest_decode_gpu"]) == ("h100-sxm", "h200")
    assert (values["fleet_cheapest_prefill_gpus"], values["fleet_cheapest_decode_gpus"]) == (10, 3)
    assert values["fleet_cheapest_mixed"] is True and values["fleet_mixed_configurations"] == 32
    assert values["fleet_cheapest_single_type_cost_per_hour"] == 28.0
    assert values["fleet_mixed_answer"] == COVER_A
    assert values["fleet_day_cost_peak_sized"] == "" and values["plan_serving_reason"] == FLEET_POOLED


def test_the_new_formulas_are_within_1000_characters():
    """§15.1's columns and rows on the Fleet sheet, as templates (a cell reference is no longer than its {key}, and
    the n/a guard adds 20 characters)."""
    from planner.workbook import fleet as W

    added = {"kv_transfer_gbps", "cost_per_hour", "output_tokens_per_dollar", "on_catalog", "priced", "mixed",
             "cost_single_type", "cost_mixed", "cost_following", *(c.key for c in W.PREFILL_LOOKUPS)}
    columns = [c for c in W.ROW_COLUMNS + W.HELPERS + W.DAY_COLUMNS if c.key in added]
    assert len(columns) == len(added)
    assert max(len(c.template) for c in columns) + 20 <= 1000
    assert max(len(r.formula) for r in W.mixed_answer_rows("€") + W.MIXED_ROWS) <= 1000


def test_planner_run_exits_2_on_a_bad_pair_naming_the_key_and_line(tmp_path):
    from tests.helpers import refused

    text = (RETRIEVAL.read_text(encoding="utf-8") + "  mixed_gpus: true\n"
            "  mixed_pairs: [{prefill: h100-sxm, decode: mi300x}]\n")
    said, path = refused(tmp_path, text)
    assert "fleet.mixed_pairs" in said and "mi300x" in said and "allowed: h100-sxm, h200" in said


def test_a_pair_where_the_plan_needs_one_number_exits_2_naming_the_key(tmp_path):
    """ownership.gpus and pricing.serving_baseline_gpus take one number when the chosen fleet is not mixed (here the
    H100 pair): a {prefill, decode} pair is refused, naming each key and what is allowed (§15.1's table)."""
    from tests.helpers import refused

    text = (SPLITWISE_HA.read_text(encoding="utf-8") + "\nownership: {gpus: {prefill: 10, decode: 6}}\n"
            "pricing: {serving_baseline_gpus: {prefill: 10, decode: 6}}\n")
    said, _ = refused(tmp_path, text)
    assert "ownership.gpus: value {'prefill': 10, 'decode': 6} is not allowed: allowed: one number" in said
    assert "pricing.serving_baseline_gpus: value {'prefill': 10, 'decode': 6} is not allowed: allowed: one number" \
        in said
