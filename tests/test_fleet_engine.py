"""The Fleet's engine (docs/method.md §11) against the numbers its worked examples print: example 1 (8B on an
H100, the queue counted by hand, quality and retries, p = 0.99, the search over five GPUs), example 2 (70B in FP8:
the chat shape, the retrieval shape, the Pareto front), example 3 (DeepSeek-V3) and example 4 (the day). Each
assertion compares at the precision the example prints. Erlang C is checked against the Erlang-B recursion, an
independent way to the same number, and against a value worked by hand."""

from __future__ import annotations

import math
from collections import Counter

import pytest

from planner import shipped
from planner.engine import fleet as F

from tests.helpers import scenario_with

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

PRECISIONS = shipped.PRECISIONS
FIVE_GPUS = ("a100-80gb", "h100-sxm", "h200", "b200", "mi300x")


def about(value: float, expected: float, tolerance: float) -> bool:
    """A figure worked from METHOD's printed ones (so within their rounding), e.g. §14.6's T_first less step/2."""
    return abs(value - expected) <= tolerance


def later(miss: float, drain: float, step_ms: float) -> float:
    """§14.6: T_first waits half the step in flight, not a whole one, so the slack w grows by step/2 and the miss
    C·EXP(−drain·w) shrinks by EXP(−drain·step/2)."""
    return miss * math.exp(-drain * step_ms / 2000)


def printed(value: float, text: str) -> bool:
    """Whether `value` reads as `text` at the precision printed ("0.67610": five decimals; "35,195": whole)."""
    digits = len(text.split(".")[1]) if "." in text else 0
    return f"{value:,.{digits}f}" == text


def configs(model: str, gpus=FIVE_GPUS, precision: str = "bf16", *, sequence=8192, prompt=2048, parallel=(1, 2, 4, 8),
            modes=F.MODES) -> list[F.Configuration]:
    knobs = F.Knobs(sequence_length=sequence, prompt_tokens=prompt)
    pair = [(PRECISIONS[precision], PRECISIONS[precision])]
    return F.configurations(shipped.MODELS[model], [(shipped.GPUS[g], shipped.GPUS[g].price_per_hour) for g in gpus],
                            pair, parallel=parallel, modes=modes, knobs=knobs)


def one(found: list[F.Configuration], mode: str, gpu: str, parallel: tuple) -> F.Configuration:
    return next(c for c in found if (c.mode, c.gpu, c.parallel) == (mode, gpu, parallel))


def shown(search: F.Search, mode: str, gpu: str, parallel: tuple) -> dict:
    return next(c.shown for c in search.candidates if (c.config.mode, c.config.gpu, c.config.parallel) ==
                (mode, gpu, parallel))


def below_b_star(search: F.Search) -> int:
    """How many configurations the Candidates table shows at a batch below their B*."""
    return sum(1 for c in search.candidates if c.rows and c.shown["batch"] < c.b_star)


# The queue ------------------------------------------------------------------------------------------------------------
def erlang_b_recursion(servers: int, load: float) -> float:
    """C(c, a) by the Erlang-B recursion B_k = a·B_{k−1}/(k + a·B_{k−1}), C = B_c/(1 − ρ·(1 − B_c))."""
    b = 1.0
    for k in range(1, servers + 1):
        b = load * b / (k + load * b)
    return b / (1 - load / servers * (1 - b))


def test_erlang_c_by_hand():
    """c = 2, a = 1: P(2)/(P(2) + (1 − 1/2)·(P(0) + P(1))) = (1/2)/(1/2 + (1/2)·2) = 1/3 (the e^−1 cancels)."""
    assert F.erlang_c(2, 1.0) == pytest.approx(1 / 3, rel=1e-14)
    assert F.erlang_c(5, 5.0) == 1.0 and F.erlang_c(5, 7.5) == 1.0  # a ≥ c: every request waits


@pytest.mark.parametrize("servers, load", [
    (1, 0.5), (3, 2.9), (27 * 52, 1341.05), (1352, 1341.05), (54, 48.0), (447, 436.36), (20_000, 19_900.0),
    (150_000, 149_850.0), (150_000, 75_000.0), (1_000_000, 999_000.0), (1_000_000, 500_000.0), (1_000, 1.0)])
def test_erlang_c_agrees_with_the_erlang_b_recursion(servers, load):
    assert F.erlang_c(servers, load) == pytest.approx(erlang_b_recursion(servers, load), rel=1e-11, abs=1e-300)


def test_rounding_as_the_sheet_rounds():
    assert F.ceil9_int(100 * (1 + 0.1)) == 110 and F.ceil9_int(27 * 1.1) == 30 and F.ceil9_int(2.2) == 3
    assert F.int9(10 / (52 / 134.105)) == 25 and F.int9(2.9999999999) == 3 and F.int9(2.99) == 2
    assert F.meets(0.1000000000004, 0.90) and not F.meets(0.100000001, 0.90)


def test_thinning_keeps_both_ends_and_spreads_the_rest():
    assert F.thinned(24, 8) == [1, 4, 8, 11, 14, 17, 21, 24]  # the method's example
    assert F.thinned(24) == list(range(1, 25))  # under 32: all shown
    kept = F.thinned(100)
    assert len(kept) == 32 and kept[0] == 1 and kept[-1] == 100 and kept[1] == 4  # ROUND(99/31) + 1 = 3 + 1


def test_a_pareto_row_beaten_in_both_is_dropped_and_a_tie_stays():
    rows = [{"index": i, "batch": 1, "tokens_per_s_per_gpu": g, "tokens_per_s_per_user": u}
            for i, (g, u) in enumerate([(10, 1), (10, 2), (8, 3), (8, 3), (7, 2.5), (5, 5), (4, 4)])]
    front = [(r["tokens_per_s_per_gpu"], r["tokens_per_s_per_user"], r["index"]) for r in F.pareto_front(rows)]
    assert front == [(10, 2, 1), (8, 3, 2), (8, 3, 3), (5, 5, 5)]


# Example 1: Llama 3.1 8B, BF16, H100, λ = 10 --------------------------------------------------------------------------
@pytest.fixture(scope="module")
def example_1() -> tuple[list[F.Configuration], F.Search]:
    found = configs("llama-3.1-8b")
    return found, F.search(found, 10.0, F.SLO())


def h100_t1(found) -> tuple[F.Configuration, F.Roofline]:
    config = one(found, F.AGGREGATED, "h100-sxm", (1,))
    return config, F.Roofline.rows(config.decode, [52], config.ttft_s)[0]


def test_example_1_one_replica(example_1):
    config, roof = h100_t1(example_1[0])
    assert config.decode.b_max == 52
    decode = F.decode_rows(config, F.SLO())
    assert (decode.b_star, decode.reason, decode.latency_next_ms) == (52, None, None)  # ITL(52) ≤ 100 ms: B_max
    assert printed(roof.step * 1000, "21.28") and printed(roof.prefill, "3.348") and printed(roof.cycle, "134.105")
    assert printed(roof.itl * 1000, "21.83") and printed(config.ttft_s * 1000, "64.39")
    assert printed(roof.service_rate, "0.38776") and printed(roof.prefill / roof.cycle * 100, "2.5")


def test_example_1_counts_replicas_from_26(example_1):
    _, roof = h100_t1(example_1[0])
    slo = F.SLO()
    assert printed(10 * roof.cycle, "1,341.05") and F.aggregated_start(10.0, roof) == 26
    at_26, at_27 = (F.aggregated_queue(n, 10.0, roof, slo) for n in (26, 27))
    assert at_26["servers"] == 1352 and printed(at_26["utilisation"], "0.9919")
    assert printed(at_26["erlang_c"], "0.67610")
    assert printed(at_26["prefill_utilisation"], "0.0248") and printed(at_26["prefill_wait_ms"], "1.64")
    # §11's T_first 87.30 ms and slack 1.9127 s, less and plus step(52)/2 = 10.64 ms (§14.6)
    assert about(at_26["first_token_ms"], 87.30 - 10.64, 0.006) and about(at_26["slack_ms"], 1912.7 + 10.64, 0.06)
    assert printed(at_26["drain_rate"], "0.08164") and about(at_26["miss"], later(0.57836, 0.08164, 21.28), 1e-5)
    assert at_27["servers"] == 1404 and printed(at_27["utilisation"], "0.9552")
    assert printed(at_27["erlang_c"], "0.05486")
    assert printed(at_27["prefill_wait_ms"], "1.57") and about(at_27["first_token_ms"], 87.24 - 10.64, 0.006)
    assert about(at_27["slack_ms"], 1912.8 + 10.64, 0.06) and printed(at_27["drain_rate"], "0.46939")
    assert about(at_27["miss"], later(0.02235, 0.46939, 21.28), 1e-5) and F.aggregated_replicas(10.0, roof, slo) == 27


def test_example_1_figures(example_1):
    row = F.size_row(*h100_t1(example_1[0]), 10.0, F.SLO())
    assert row["replicas"] == 27 and row["gpus"] == 30 and row["cost_per_hour"] == 60.0
    attainment = 1 - later(0.02235, 0.46939, 21.28)  # §14.6's T_first (0.97765 before)
    assert about(row["attainment"], attainment, 1e-5) and about(row["ttft_percentile_ms"], 87.2 - 10.64, 0.06)
    assert about(row["acceptable_per_hour"], 36_000 * attainment, 0.5)
    assert printed(row["cost_per_acceptable_request"], "0.001705")
    assert printed(row["cost_per_million_tokens"], "0.2713") and printed(row["tokens_per_s_per_gpu"], "2,048")
    assert printed(row["tokens_per_s_per_user"], "45.81")
    assert row["miss_one_fewer"] > 0.1  # n − 1 = 26 does not meet: n is the fewest


@pytest.mark.parametrize("quality, retries, replicas, gpus, acceptable, per_request", [
    # λ = 10/0.95 = 10.5263; §11's misses 0.08702 and 0.02235 shrink by §14.6's T_first (acceptable 32,867, 33,436)
    (0.95, True, 28, 31, 36_000 * (1 - later(0.08702, 28 * 0.38776 - 10.5263, 21.28)), "0.001886"),
    (0.95, False, 27, 30, 34_200 * (1 - later(0.02235, 0.46939, 21.28)), "0.001794")])
def test_example_1_with_quality(example_1, quality, retries, replicas, gpus, acceptable, per_request):
    config, _ = h100_t1(example_1[0])
    rate = F.served_rate(10.0, quality, retries)
    roof = F.Roofline.rows(config.decode, [52], config.ttft_s)[0]
    row = F.size_row(config, roof, rate, F.SLO(quality=quality))
    assert (row["replicas"], row["gpus"]) == (replicas, gpus)
    assert about(row["acceptable_per_hour"], acceptable, 1) and printed(row["cost_per_acceptable_request"], per_request)
    if retries:
        assert printed(rate, "10.5263") and printed(row["load"], "1,411.6")
        assert printed(row["erlang_c"], "0.16385")
        assert about(row["miss"], later(0.08702, 28 * 0.38776 - 10.5263, 21.28), 1e-5)


def test_example_1_at_mlperf_percentile(example_1):
    config, roof = h100_t1(example_1[0])
    slo = F.SLO(attainment=0.99)
    assert not F.meets(F.aggregated_queue(27, 10.0, roof, slo)["miss"], 0.99)
    row = F.size_row(config, roof, 10.0, slo)
    assert (row["replicas"], row["gpus"], row["cost_per_hour"]) == (28, 31, 62.0)
    assert printed(row["miss"], "0.00021") and about(row["ttft_percentile_ms"], 87.2 - 10.64, 0.06)


@pytest.mark.parametrize("gpu, aggregated, disaggregated", [
    ("a100-80gb", ((4,), 253, 9, 40, 60.00), ((1, 4), 253, (3, 9), 44, 66.00)),
    ("h100-sxm", ((4,), 253, 6, 28, 56.00), ((1, 4), 253, (1, 6), 30, 60.00)),
    ("h200", ((2,), 221, 8, 18, 45.00), ((1, 2), 221, (1, 8), 20, 50.00)),
    ("b200", ((1,), 135, 10, 11, 49.50), ((1, 1), 135, (1, 9), 12, 54.00)),
    ("mi300x", ((2,), 306, 7, 16, 32.00), ((1, 2), 306, (1, 7), 18, 36.00))])
def test_example_1_search_per_gpu(example_1, gpu, aggregated, disaggregated):
    _, search = example_1
    rows = {mode: next(r for r in search.shown if r["gpu"] == gpu and r["mode"] == mode) for mode in F.MODES}
    agg, dis = rows[F.AGGREGATED], rows[F.DISAGGREGATED]
    assert ((agg["tensor_parallel"],), agg["batch"], agg["replicas"], agg["gpus"], agg["cost_per_hour"]) == aggregated
    assert ((dis["prefill_tensor_parallel"], dis["tensor_parallel"]), dis["batch"],
            (dis["prefill_replicas"], dis["decode_replicas"]), dis["gpus"], dis["cost_per_hour"]) == disaggregated


def test_example_1_overall(example_1):
    found, search = example_1
    assert len(found) == 100 and all(c.rows for c in search.candidates)
    best = search.cheapest()
    assert (best["gpu"], best["tensor_parallel"], best["batch"], best["replicas"], best["gpus"]) == \
        ("mi300x", 2, 306, 7, 16)
    assert best["cost_per_hour"] == 32.0 and printed(best["cost_per_million_tokens"], "0.145")
    tied = shown(search, F.AGGREGATED, "mi300x", (1,))  # the same cost, lower attainment
    assert (tied["batch"], tied["replicas"], tied["cost_per_hour"]) == (145, 14, 32.0)
    tied_attainment = 1 - later(1 - 0.9945, tied["drain_rate"], tied["tpot_ms"])  # §14.6's T_first
    assert about(tied["attainment"], tied_attainment, 6e-5) and printed(best["attainment"], "1.0000")
    assert about(tied["cost_per_acceptable_request"] * 1000, 0.8938 * 0.9945 / tied_attainment, 1e-4)
    assert printed(best["cost_per_acceptable_request"] * 1000, "0.8889")
    assert search.shown.index(best) < search.shown.index(tied)
    assert below_b_star(search) == 34
    assert all(row["holds"] for row in search.rows)  # every sized row passes the checks its sheet row makes live


# Example 2: Llama 3.1 70B, FP8 weights and KV, H100 or H200, λ = 5 ----------------------------------------------------
@pytest.fixture(scope="module")
def example_2a() -> F.Search:
    return F.search(configs("llama-3.1-70b", ("h100-sxm", "h200"), "fp8"), 5.0, F.SLO())


@pytest.fixture(scope="module")
def example_2b() -> F.Search:
    return F.search(configs("llama-3.1-70b", ("h100-sxm", "h200"), "fp8", sequence=8200, prompt=8000), 5.0,
                    F.SLO(tpot_ms=50))


def test_example_2a_aggregated_h200_t2(example_2a):
    row = shown(example_2a, F.AGGREGATED, "h200", (2,))
    assert (row["b_max"], row["b_star"], row["batch"], row["replicas"], row["gpus"]) == (136, 136, 136, 8, 18)
    assert printed(row["ttft_ms"], "159.84") and printed(row["itl_ms"], "32.90") and printed(row["tpot_ms"], "29.39")
    assert printed(row["prefill_s"], "21.566") and printed(row["cycle_s"], "202.150")
    assert printed(row["service_rate"], "0.67277") and printed(row["load"], "1,010.75")
    assert printed(row["utilisation"], "0.9290") and printed(row["erlang_c"], "0.00955")
    assert printed(row["prefill_utilisation"], "0.0999") and printed(row["prefill_wait_ms"], "17.74")
    assert about(row["first_token_ms"], 206.97 - 29.39 / 2, 0.006)  # §14.6: less step/2
    assert about(row["slack_ms"], 1793.0 + 29.39 / 2, 0.06)
    assert printed(row["drain_rate"], "0.38215") and about(row["miss"], later(0.00481, 0.38215, 29.39), 1e-5)
    assert row["cost_per_hour"] == 45.0 and printed(row["cost_per_million_tokens"], "0.407")
    assert printed(row["tokens_per_s_per_gpu"], "1,706.7") and printed(row["tokens_per_s_per_user"], "30.4")
    assert about(row["ttft_percentile_ms"], 206.97 - 29.39 / 2, 0.006) and printed(row["attainment"], "0.9952")
    assert row["miss_one_fewer"] == 1.0  # n = 7 is unstable (ρ 1.0617)


def test_example_2a_disaggregated_h200_t1_t2(example_2a):
    row = shown(example_2a, F.DISAGGREGATED, "h200", (1, 2))
    assert (row["prefill_replicas"], row["decode_replicas"], row["gpus"], row["cost_per_hour"]) == (2, 7, 19, 47.5)
    assert printed(row["ttft_ms"], "293.26") and printed(row["kv_transfer_ms"], "1.15")
    assert row["kv_transfer_gbps"] == pytest.approx(292.5) and printed(row["slack_ms"], "1,705.6")
    assert printed(row["load"], "902.92") and row["servers"] == 952 and printed(row["utilisation"], "0.9484")
    assert printed(row["erlang_c"], "0.06672") and printed(row["prefill_load"], "1.4663")
    assert printed(row["prefill_erlang_c"], "0.62027") and printed(row["prefill_drain_rate"], "1.8199")
    assert printed(row["prefill_tail"], "0.02783") and printed(row["miss"], "0.09455")
    assert printed(row["cost_per_million_tokens"], "0.430") and printed(row["tokens_per_s_per_gpu"], "1,616.8")
    assert printed(row["tokens_per_s_per_user"], "34.0") and printed(row["attainment"], "0.9054")
    assert printed(row["ttft_percentile_ms"], "1,901.8")
    assert row["miss_one_fewer_prefill"] >= 1 and row["miss_one_fewer_decode"] >= 1  # x = 1, y = 6 unstable


def test_example_2a_search(example_2a):
    assert len(example_2a.candidates) == 40 and all(c.rows for c in example_2a.candidates)
    best = example_2a.cheapest()
    assert (best["mode"], best["gpu"], best["tensor_parallel"], best["cost_per_hour"]) == \
        (F.AGGREGATED, "h200", 2, 45.0)
    dis = example_2a.cheapest(F.DISAGGREGATED)
    assert (dis["gpu"], dis["prefill_tensor_parallel"], dis["tensor_parallel"], dis["batch"],
            dis["prefill_replicas"], dis["decode_replicas"], dis["cost_per_hour"]) == ("h200", 1, 4, 325, 2, 3, 47.5)
    assert printed(dis["attainment"], "0.9547")
    assert below_b_star(example_2a) == 8


def test_example_2b_aggregated_h100_t2(example_2b):
    row = shown(example_2b, F.AGGREGATED, "h100-sxm", (2,))
    assert (row["b_max"], row["b_star"], row["batch"], row["replicas"], row["gpus"]) == (54, 9, 9, 7, 16)
    assert printed(row["ttft_ms"], "652.20") and printed(row["itl_ms"], "48.00")
    assert printed(row["prefill_s"], "5.860") and printed(row["tpot_ms"], "18.70") and printed(row["cycle_s"], "9.599")
    assert printed(row["service_rate"], "0.93758") and printed(row["load"], "48.00")
    assert row["servers"] == 63 and printed(row["utilisation"], "0.7618") and printed(row["erlang_c"], "0.02489")
    assert printed(row["prefill_utilisation"], "0.4659") and printed(row["prefill_wait_ms"], "568.81")
    assert about(row["first_token_ms"], 1239.71 - 18.70 / 2, 0.006)  # §14.6: less step/2
    assert about(row["slack_ms"], 760.3 + 18.70 / 2, 0.06)
    assert printed(row["drain_rate"], "1.56303") and about(row["miss"], later(0.00758, 1.56303, 18.70), 1e-5)
    assert row["cost_per_hour"] == 32.0 and printed(row["cost_per_million_tokens"], "8.889")
    assert printed(row["tokens_per_s_per_gpu"], "62.5") and printed(row["tokens_per_s_per_user"], "20.8")
    assert about(row["ttft_percentile_ms"], 1239.71 - 18.70 / 2, 0.006)
    assert about(row["miss_one_fewer"], later(0.21306, 6 * 0.93758 - 5, 18.70), 1e-5)
    config = one(configs("llama-3.1-70b", ("h100-sxm",), "fp8", sequence=8200, prompt=8000), F.AGGREGATED,
                 "h100-sxm", (2,))
    assert printed(config.latency_ms(10), "51.54") and printed(row["latency_next_ms"], "51.54")  # B* = 9
    assert row["b_star_largest"] and row["holds"]


def test_example_2b_disaggregated_h100_t1_t2(example_2b):
    row = shown(example_2b, F.DISAGGREGATED, "h100-sxm", (1, 2))
    assert (row["b_max"], row["batch"], row["prefill_replicas"], row["decode_replicas"], row["gpus"]) == \
        (54, 54, 9, 1, 14)
    assert printed(row["ttft_ms"], "1,208.63") and printed(row["kv_transfer_ms"], "4.48")
    assert printed(row["slack_ms"], "786.9") and printed(row["tpot_ms"], "31.69") and printed(row["load"], "31.69")
    assert printed(row["utilisation"], "0.5869") and printed(row["erlang_c"], "0.00020")
    assert printed(row["prefill_load"], "6.0431") and printed(row["prefill_erlang_c"], "0.20254")
    assert printed(row["prefill_drain_rate"], "2.4465") and printed(row["prefill_tail"], "0.02954")
    assert printed(row["miss"], "0.02975") and row["cost_per_hour"] == 28.0
    assert printed(row["cost_per_million_tokens"], "7.778") and printed(row["tokens_per_s_per_gpu"], "71.4")
    assert printed(row["tokens_per_s_per_user"], "31.6") and printed(row["ttft_percentile_ms"], "1,502.4")
    assert printed(row["miss_one_fewer_prefill"] - row["erlang_c"], "0.1027")  # x = 8's tail fails


def test_example_2b_search(example_2b):
    assert len(example_2b.candidates) == 40 and all(c.rows for c in example_2b.candidates)
    best = example_2b.cheapest()
    assert (best["mode"], best["gpu"], best["prefill_tensor_parallel"], best["tensor_parallel"],
            best["cost_per_hour"]) == (F.DISAGGREGATED, "h100-sxm", 1, 2, 28.0)
    agg = example_2b.cheapest(F.AGGREGATED)
    assert (agg["gpu"], agg["tensor_parallel"], agg["cost_per_hour"]) == ("h100-sxm", 2, 32.0)
    assert below_b_star(example_2b) == 20
    looser = F.search(configs("llama-3.1-70b", ("h100-sxm", "h200"), "fp8", sequence=8200, prompt=8000), 5.0,
                      F.SLO(tpot_ms=100))
    assert (looser.cheapest()["mode"], looser.cheapest()["cost_per_hour"]) == (F.AGGREGATED, 24.0)
    assert looser.cheapest(F.DISAGGREGATED)["cost_per_hour"] == 28.0


def test_example_2c_pareto_front(example_2a):
    assert len(example_2a.rows) == 320
    front = F.pareto_front(example_2a.rows)
    assert len(front) == 24 and F.thinned(len(front)) == list(range(1, 25))
    first, last = front[0], front[-1]
    assert (first["mode"], first["gpu"], first["tensor_parallel"], first["batch"], first["cost_per_hour"]) == \
        (F.AGGREGATED, "h200", 2, 128, 45.0)
    assert printed(first["tokens_per_s_per_gpu"], "1,706.7") and printed(first["tokens_per_s_per_user"], "31.6")
    assert about(first["attainment"], 1 - later(1 - 0.9608, first["drain_rate"], first["tpot_ms"]), 6e-5)
    assert (last["mode"], last["gpu"], last["prefill_tensor_parallel"], last["tensor_parallel"], last["batch"]) == \
        (F.DISAGGREGATED, "h200", 1, 8, 1)
    assert printed(last["tokens_per_s_per_gpu"], "25.3") and printed(last["tokens_per_s_per_user"], "255.9")
    assert printed(last["cost_per_hour"], "3,030")
    before = front[-2]
    assert (before["mode"], before["tensor_parallel"], before["batch"]) == (F.AGGREGATED, 8, 1)
    assert printed(before["tokens_per_s_per_gpu"], "26.3") and printed(before["tokens_per_s_per_user"], "255.3")
    assert printed(before["cost_per_hour"], "2,920")
    middle = next(r for r in front if (r["mode"], r["tensor_parallel"], r["batch"]) == (F.AGGREGATED, 8, 64))
    assert printed(middle["tokens_per_s_per_gpu"], "768.0") and printed(middle["tokens_per_s_per_user"], "140.5")
    assert middle["cost_per_hour"] == 100.0
    assert F.thinned(len(front), 8) == [1, 4, 8, 11, 14, 17, 21, 24]


# Example 3: DeepSeek-V3, FP8, λ = 2, Y = 80 ms ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def example_3() -> tuple[list[F.Configuration], F.Search]:
    found = configs("deepseek-v3", precision="fp8")
    return found, F.search(found, 2.0, F.SLO(tpot_ms=80))


def test_example_3_on_eight_h200(example_3):
    found, search = example_3
    config = one(found, F.AGGREGATED, "h200", (8,))
    assert config.decode.b_max == 149 and printed(config.ttft_s * 1000, "39.86")
    row = shown(search, F.AGGREGATED, "h200", (8,))
    assert (row["batch"], row["replicas"], row["gpus"], row["cost_per_hour"]) == (149, 4, 40, 100.0)
    assert printed(row["tpot_ms"], "34.68") and printed(row["prefill_s"], "5.098")
    assert printed(row["cycle_s"], "218.182") and printed(row["itl_ms"], "35.51")
    assert printed(row["service_rate"], "0.68292") and printed(row["load"], "436.36")
    assert row["servers"] == 596 and printed(row["utilisation"], "0.7322") and f"{row['erlang_c']:.1e}" == "2.6e-13"
    assert about(row["miss"], later(6.4e-14, 4 * 0.68292 - 2, 34.68), 0.06e-14)
    assert printed(row["cost_per_million_tokens"], "2.261")
    assert printed(row["tokens_per_s_per_gpu"], "307.2") and printed(row["tokens_per_s_per_user"], "28.2")
    roof = F.Roofline.rows(config.decode, [149], config.ttft_s)[0]
    three = F.aggregated_queue(3, 2.0, roof, F.SLO(tpot_ms=80))
    assert three["servers"] == 447 and printed(three["utilisation"], "0.9762") and printed(three["erlang_c"], "0.50317")
    assert about(three["first_token_ms"], 75.63 - 34.68 / 2, 0.006)
    assert about(three["miss"], later(0.45811, 3 * 0.68292 - 2, 34.68), 1e-5)


def test_example_3_disaggregated_8_8(example_3):
    _, search = example_3
    row = shown(search, F.DISAGGREGATED, "h200", (8, 8))
    assert row["kv_transfer_gbps"] == pytest.approx(360) and printed(row["kv_transfer_ms"], "0.20")
    assert printed(row["prefill_load"], "0.0797") and row["prefill_replicas"] == 1
    assert f"{row['prefill_tail']:.1e}" == "1.8e-21" and printed(row["load"], "426.17")
    assert row["decode_replicas"] == 4 and f"{row['erlang_c']:.1e}" == "5.0e-15"
    assert printed(row["miss_one_fewer_decode"], "0.22648")  # y = 3 fails
    assert (row["gpus"], row["cost_per_hour"]) == (56, 140.0)


def test_example_3_search(example_3):
    found, search = example_3
    assert len(found) == 100
    assert Counter(c.reason for c in search.candidates) == {None: 10, F.DOES_NOT_FIT: 90}
    assert one(found, F.AGGREGATED, "mi300x", (4,)).decode.b_max == 17
    best = search.cheapest()
    assert (best["gpu"], best["tensor_parallel"], best["batch"], best["replicas"], best["gpus"]) == \
        ("mi300x", 8, 308, 2, 24)
    assert best["cost_per_hour"] == 48.0 and printed(best["cost_per_million_tokens"], "1.085")
    b200 = shown(search, F.AGGREGATED, "b200", (8,))
    assert (b200["batch"], b200["replicas"], b200["gpus"], b200["cost_per_hour"]) == (256, 2, 24, 108.0)
    assert below_b_star(search) == 2


# Example 4: example 1's H100 fleet (t 1, B 52) over the office-assistant day ------------------------------------------
HOURS = {  # hours: (rate, n_h, G_h, attainment following)
    (0, 1, 2, 3, 4): (0.50, 2, 3, "0.99999"), (5, 22): (0.80, 3, 4, "1.00000"), (6, 20): (1.50, 5, 6, "0.99998"),
    (7,): (3.50, 10, 11, "0.99377"), (8,): (7.00, 19, 21, "0.96514"), (9, 13, 15): (9.50, 26, 29, "0.99406"),
    (10, 11, 14): (10.00, 27, 30, "0.97765"), (12,): (9.00, 24, 27, "0.90875"), (16,): (8.00, 22, 25, "0.99319"),
    (17,): (5.50, 15, 17, "0.95741"), (18,): (3.00, 9, 10, "0.99968"), (19,): (2.00, 6, 7, "0.99711"),
    (21,): (1.00, 3, 4, "0.96972"), (23,): (0.60, 2, 3, "0.99471")}


@pytest.fixture(scope="module")
def example_4() -> dict:
    config, roof = h100_t1(configs("llama-3.1-8b", ("h100-sxm",), parallel=(1,), modes=(F.AGGREGATED,)))
    return F.day(config, roof, peak=(27,), rate=10.0, fractions=shipped.PROFILES["office-assistant"], slo=F.SLO())


def test_example_4_hour_by_hour(example_4):
    hours = example_4["hours"]
    for listed, (rate, replicas, gpus, attainment) in HOURS.items():
        for h in listed:
            hour = hours[h]
            assert printed(hour["rate"], f"{rate:.2f}") and hour["replicas"] == replicas
            drain = replicas * 0.38776 - rate  # n·μ_r − λ; §14.6's T_first shrinks §11's miss
            expected = 1 - later(1 - float(attainment), drain, 21.28)
            assert hour["gpus_following"] == gpus and about(hour["attainment_following"], expected, 1.5e-5), h
            assert hour["gpus_peak_sized"] == 30
    assert sorted(h for listed in HOURS for h in listed) == list(range(24))


def test_example_4_totals(example_4):
    day = example_4
    assert printed(day["requests"], "378,720") and printed(day["gpu_seconds_per_request"], "2.5789")
    assert printed(day["busy_gpu_hours"], "271.31")
    assert day["gpu_hours_peak_sized"] == 720 and printed(day["idle_gpu_hours_peak_sized"], "448.69")
    # §11's 376,303 acceptable requests; §14.6's T_first misses fewer, never more than all 378,720
    assert day["cost_peak_sized"] == 1440.0 and 376_303 < day["acceptable_peak_sized"] < 378_720
    assert about(day["cost_per_acceptable_request_peak_sized"], 1440 / day["acceptable_peak_sized"], 1e-12)
    assert day["gpu_hours_following"] == 337 and printed(day["idle_gpu_hours_following"], "65.69")
    following = sum(rate * 3600 * (1 - later(1 - float(att), n * 0.38776 - rate, 21.28))
                    for listed, (rate, n, _, att) in HOURS.items() for _ in listed)  # 370,599 under §11's T_first
    assert day["cost_following"] == 674.0 and about(day["acceptable_following"], following, 1.0)
    assert about(day["cost_per_acceptable_request_following"], 674 / following, 1e-8)
    assert printed(day["idle_gpu_hours_peak_sized"] / day["gpu_hours_peak_sized"] * 100, "62")
    assert printed(day["cost_per_acceptable_request_peak_sized"] / day["cost_per_acceptable_request_following"], "2.1")


def test_an_hour_without_demand_has_no_fleet():
    config, roof = h100_t1(configs("llama-3.1-8b", ("h100-sxm",), parallel=(1,), modes=(F.AGGREGATED,)))
    day = F.day(config, roof, peak=(27,), rate=10.0, fractions=[0.0] + [1.0] * 23, slo=F.SLO())
    quiet = day["hours"][0]
    assert (quiet["replicas"], quiet["gpus_following"], quiet["busy_gpus"]) == (0, 0, 0.0)
    assert quiet["attainment_following"] is None and quiet["acceptable_following"] == 0.0
    assert quiet["attainment_peak_sized"] is None and quiet["gpus_peak_sized"] == 30


# The fleet in the plan: month by month --------------------------------------------------------------------------------
def test_month_replicas_follow_growth_and_never_fall_below_launch():
    assert F.month_replicas(27, 1.1) == 30 and F.month_replicas(27, 0.5) == 27 and F.month_replicas(0, 2.0) == 0
    peak_sized = F.PlanFleet(parallel=(1,), peak=(27,), hourly=None, spare=0.1)
    assert peak_sized.hours(1.1) == [33] * 24  # CEIL9(30·1.1) = 33 GPUs at t 1, every hour without a profile
    following = F.PlanFleet(parallel=(1,), peak=(27,), hourly=((2,),) * 12 + ((27,),) * 12, spare=0.1)
    # n_{h,k} = MAX(2, CEIL9(2.2)) = 3 → CEIL9(3.3) = 4 GPUs; 30 → 33 GPUs
    assert following.hours(1.1) == [4] * 12 + [33] * 12
    pair = F.PlanFleet(parallel=(1, 2), peak=(2, 7), hourly=None, spare=0.1)
    assert pair.gpus(pair.peak, 2.0) == 5 * 1 + 16 * 2  # x 4 → CEIL9(4.4) = 5; y 14 → CEIL9(15.4) = 16 replicas of 2


# Why a configuration has no row ---------------------------------------------------------------------------------------
def reasons(model: str, rate: float, slo: F.SLO, **kwargs) -> Counter:
    return Counter(c.reason for c in F.search(configs(model, **kwargs), rate, slo).candidates)


def test_reasons_in_order():
    assert reasons("llama-3.1-405b", 1.0, F.SLO(), gpus=("h100-sxm",), parallel=(1,)) == {F.DOES_NOT_FIT: 2}
    assert reasons("llama-3.1-8b", 1.0, F.SLO(tpot_ms=1), gpus=("h100-sxm",), parallel=(1,)) == \
        {F.TPOT_NOT_REACHABLE: 2}
    assert reasons("llama-3.1-8b", 1.0, F.SLO(ttft_ms=50), gpus=("h100-sxm",), parallel=(1,)) == \
        {F.TTFT_NOT_REACHABLE: 2}  # D = 64.4 ms > 50
    # 8B on one H100 at 10,000 requests per second offers 1.34e6 Erlangs at B 52: that row is beyond the queue
    # range (smaller batches are not); at 30,000 every row is, B = 1's 41.2 s cycle offering 1.24e6 Erlangs
    config, roof = h100_t1(configs("llama-3.1-8b", ("h100-sxm",), parallel=(1,), modes=(F.AGGREGATED,)))
    assert printed(10_000 * roof.cycle / 1e6, "1.34")
    assert F.size_row(config, roof, 10_000.0, F.SLO()) == F.BEYOND_QUEUE_RANGE
    assert reasons("llama-3.1-8b", 30_000.0, F.SLO(), gpus=("h100-sxm",), parallel=(1,)) == \
        {F.BEYOND_QUEUE_RANGE: 2}


def test_a_prefill_replica_without_room_for_one_prompt_does_not_fit():
    """70B in FP8 on one H100 keeps 1.45 GB for a prompt's KV: 8,000 tokens (1.311 GB) fit, 16,000 do not."""
    fits = configs("llama-3.1-70b", ("h100-sxm",), "fp8", sequence=8200, prompt=8000, parallel=(1, 2),
                   modes=(F.DISAGGREGATED,))
    assert one(fits, F.DISAGGREGATED, "h100-sxm", (1, 2)).prefill_fits()
    tight = configs("llama-3.1-70b", ("h100-sxm",), "fp8", sequence=16200, prompt=16000, parallel=(1, 2),
                    modes=(F.DISAGGREGATED,))
    assert not one(tight, F.DISAGGREGATED, "h100-sxm", (1, 2)).prefill_fits()
    assert F.evaluate(one(tight, F.DISAGGREGATED, "h100-sxm", (1, 2)), 1.0, F.SLO()).reason == F.DOES_NOT_FIT


def test_a_tensor_parallel_size_that_does_not_split_the_model_is_skipped():
    """DeepSeek-V3 has 128 heads and 128 KV heads, Llama 8 KV heads: every t of 1, 2, 4, 8 splits them; a custom
    model of 6 heads keeps t 1 and 2."""
    model = shipped.Model(id="six-heads", params=1e9, layers=8, hidden=768, heads=6, kv_heads=6, head_dim=128, ffn=3072,
                          vocab=32000)
    knobs = F.Knobs(sequence_length=4096, prompt_tokens=1024)
    found = F.configurations(model, [(shipped.GPUS["h100-sxm"], 2.0)], [(PRECISIONS["bf16"], PRECISIONS["bf16"])],
                             parallel=(1, 2, 4, 8), modes=F.MODES, knobs=knobs)
    assert [c.parallel for c in found] == [(1,), (2,), (1, 1), (1, 2), (2, 1), (2, 2)]


# The table for a scenario ---------------------------------------------------------------------------------------------
def test_compute_with_a_profile_reads_the_day_and_the_headline():
    scenario = scenario_with(**{"fleet.peak_rate": 10, "fleet.gpus": ["h100-sxm"], "fleet.tensor_parallel": [1],
                                "fleet.modes": ["aggregated"], "fleet.profile": "office-assistant"})
    table = F.compute(scenario, {})
    headline = table.headline
    assert headline["fleet_cheapest_gpus"] == 30 and headline["fleet_configurations"] == 1
    assert headline["fleet_cheapest_disaggregated_cost_per_hour"] == ""  # blank: no disaggregated configuration
    assert headline["fleet_day_gpu_hours_following"] == 337 and headline["fleet_day_cost_peak_sized"] == 1440.0
    assert len(table.day) == 24 and table.day[12]["replicas"] == 24
    assert table.checks == {"fleet_some_configuration_meets_slo": True, "fleet_rows_hold": True,
                            "fleet_gpus_priced": True, "fleet_search_within_limit": True,
                            "fleet_mixed_pairs_valid": True, "fleet_pool_inputs_form": True}
    assert table.headline["fleet_answer"] == "aggregated on h100-sxm: 27 replicas of 1 GPU at B 52, 30 GPUs with " \
        "spares, $60.00 per hour"
    assert all(h["meets"] and h["fewest"] for h in table.day)


def test_compute_when_nothing_meets_the_slo_leaves_the_headline_blank():
    scenario = scenario_with(**{"fleet.peak_rate": 10, "fleet.gpus": ["h100-sxm"], "fleet.profile":
                                "office-assistant", "goodput.slo.ttft_ms": 10})
    table = F.compute(scenario, {})
    assert table.checks == {"fleet_some_configuration_meets_slo": False, "fleet_rows_hold": True,
                            "fleet_gpus_priced": True, "fleet_search_within_limit": True,
                            "fleet_mixed_pairs_valid": True, "fleet_pool_inputs_form": True}
    assert table.headline["fleet_answer"] == F.NO_FLEET
    assert all(value == "" for name, value in table.headline.items() if name.startswith(("fleet_cheapest",
                                                                                           "fleet_day")))
    assert table.pareto == [] and table.day == [] and table.headline["fleet_feasible_configurations"] == 0
    assert {row["reason"] for row in table.candidates} == {F.TTFT_NOT_REACHABLE}
    assert all(row["gpus"] is None for row in table.candidates)


FIRST_FIVE = ["a100-80gb", "h100-sxm", "h200", "b200", "mi300x"]  # the Catalog's GPUs before the added ones


def test_a_gpu_price_moves_the_ranking():
    base = F.compute(scenario_with(**{"fleet.peak_rate": 10, "fleet.gpus": FIRST_FIVE}), {})
    assert base.headline["fleet_cheapest_gpu"] == "mi300x"
    dearer = F.compute(scenario_with(**{"fleet.peak_rate": 10, "fleet.gpus": FIRST_FIVE,
                                        "catalog.gpus.mi300x.price_per_hour": 3.0}), {})
    assert dearer.headline["fleet_cheapest_gpu"] == "h200"  # 18 GPUs at $2.50, $45 < 16·$3 = $48
    assert math.isclose(dearer.headline["fleet_cheapest_cost_per_hour"], 45.0)
