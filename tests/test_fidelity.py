"""METHOD.md §14's worked examples, from the scenario through the engine: the per-pass overhead τ_pass(n) (§14.2,
Examples 1 and 2), §11's T_first under §14 (Example 7), the TTFT at a client concurrency c of a closed loop (§14.4,
Examples 3 and 4) and the engines row that sets N (Example 6). Each expected number is METHOD's, to the precision it
prints; the "before" numbers (overheads at 0) are §6's, unchanged."""

from __future__ import annotations

import pytest

from planner.engine import Tables
from planner.scenario import parse_scenario

ZERO = {"overhead_fixed_ms": 0, "overhead_per_layer_ms": 0, "overhead_per_sequence_ms": 0,
        "overhead_per_moe_layer_ms": 0}  # §14's A off: today's §6


def tables(**scenario):
    return Tables(parse_scenario({"name": "§14", **scenario}).shown())


def serving(**scenario):
    return tables(**scenario)["serving"].scalars


def example_1(users=32, **changes):
    """8B BF16 on one H100, s 2,048, o 256."""
    return serving(serving={"users": users, "sequence_length": 2304, "prompt_tokens": 2048, **changes})


def example_2(users=64, **changes):
    """70B FP8 weights and KV on 4×H100, s 4,096, o 512."""
    return serving(model="llama-3.1-70b", serving={"users": users, "sequence_length": 4608, "prompt_tokens": 4096,
                                                   "tensor_parallel": 4, "weight_precision": "fp8",
                                                   "kv_precision": "fp8", **changes})


def close(value, expected, decimals):
    assert round(value, decimals) == pytest.approx(expected, abs=10 ** -decimals / 2), (value, expected)


def figures(s: dict, expected: tuple) -> None:
    for key, value, decimals in expected:
        close(s[key], value, decimals)


def test_example_1_the_per_pass_overhead_on_every_pass():
    figures(example_1(), (("pass_overhead_ttft_ms", 1.1544, 4), ("pass_overhead_ms", 1.2908, 4), ("ttft_ms", 65.54, 2),
                          ("tpot_ms_single", 7.68, 2), ("tpot_ms", 11.58, 2), ("itl_ms", 19.64, 2),
                          ("tokens_per_s_per_gpu", 1629.6, 1), ("max_concurrency", 185, 0),  # B_max unchanged
                          ("tpot_ms_at_max", 30.87, 2), ("tokens_per_s_per_gpu_at_max", 2390.1, 1),
                          ("cost_per_million_tokens_at_max", 0.2324, 4)))
    close(example_1(users=185)["pass_overhead_ms"], 1.9640, 4)


def test_example_1_with_the_overheads_at_zero_is_todays_section_6():
    figures(example_1(**ZERO), (("ttft_ms", 64.39, 2), ("tpot_ms_single", 6.52, 2), ("tpot_ms", 10.29, 2),
                                ("itl_ms", 18.34, 2), ("tokens_per_s_per_gpu", 1744.7, 1),
                                ("tpot_ms_at_max", 28.90, 2), ("tokens_per_s_per_gpu_at_max", 2452.5, 1),
                                ("cost_per_million_tokens_at_max", 0.2265, 4)))


def test_example_2_eighty_layers_pay_more():
    figures(example_2(), (("pass_overhead_ttft_ms", 2.6904, 4), ("pass_overhead_ms", 2.9676, 4),
                          ("ttft_ms", 189.17, 2), ("tpot_ms_single", 11.46, 2), ("tpot_ms", 17.08, 2),
                          ("itl_ms", 40.24, 2), ("tokens_per_s_per_gpu", 397.6, 1), ("max_concurrency", 288, 0),
                          ("tokens_per_s_per_gpu_at_max", 509.8, 1)))
    figures(example_2(**ZERO), (("ttft_ms", 186.48, 2), ("tpot_ms_single", 8.77, 2), ("tpot_ms", 14.11, 2),
                                ("itl_ms", 37.27, 2), ("tokens_per_s_per_gpu", 429.3, 1),
                                ("tokens_per_s_per_gpu_at_max", 524.5, 1)))


def test_example_7_the_fleet_under_section_14():
    """§11 example 1 (8B BF16 on H100, λ 10, s 2,048, o 6,144, B 52) with τ_pass and T_first = δ·L + step/2 +
    W_pre + D."""
    fleet = tables(serving={"sequence_length": 8192, "prompt_tokens": 2048},
                   goodput={"slo": {"ttft_ms": 2000, "tpot_ms": 100}, "attainment_target": 0.90},
                   fleet={"peak_rate": 10, "gpus": ["h100-sxm"], "precisions": [{"weight": "bf16", "kv": "bf16"}],
                          "tensor_parallel": [1], "modes": ["aggregated"], "spare": 0.10})["fleet"]
    row = next(c for c in fleet.candidates if c["batch"] == 52)
    close(row["tpot_ms"], 22.66, 2)
    close(row["ttft_ms"], 65.54, 2)
    close(row["cycle_s"], 142.58, 2)
    close(row["service_rate"], 0.36471, 5)
    assert row["replicas"] == 29
    close(row["miss_one_fewer"], 0.21296, 5)  # n = 28 fails
    close(row["erlang_c"], 0.01835, 5)
    close(row["prefill_wait_ms"], 1.52, 2)
    close(row["first_token_ms"], 103.99, 2)  # 25.6 + 11.33 + 1.52 + 65.54
    close(row["miss"], 0.00615, 5)
    assert row["gpus"] == 32 and row["cost_per_hour"] == 64.00


EXAMPLE_3 = [  # c, κ, m, T_fill(κ, c), burst, T_fill(1, c), steady, TTFT_c, TTFT_med (ms)
    (1, 1, 1, 65.54, 65.54, 65.54, 65.54, 91.14, 91.14),
    (8, 4, 2, 258.87, 388.30, 65.80, 71.09, 128.41, 96.69),
    (64, 4, 16, 260.94, 2218.00, 67.88, 83.74, 322.76, 109.34),
    (128, 4, 32, 263.31, 4344.68, 70.25, 98.19, 548.44, 123.79)]


@pytest.mark.parametrize("c, kappa, m, fill, burst, fill_one, steady, mean, median", EXAMPLE_3)
def test_example_3_ttft_at_a_client_concurrency(c, kappa, m, fill, burst, fill_one, steady, mean, median):
    s = example_1(users=c)
    assert (s["prefill_passes"], s["prompts_per_pass"], s["burst_cohorts"]) == (1, kappa, m)
    figures(s, (("fill_ms", fill, 2), ("ttft_burst_ms", burst, 2), ("fill_one_ms", fill_one, 2),
                ("ttft_steady_ms", steady, 2), ("ttft_at_concurrency_ms", mean, 2),
                ("ttft_median_at_concurrency_ms", median, 2)))


def test_example_3_the_seventy_b_at_sixty_four_clients():
    s = example_2()
    assert (s["prompts_per_pass"], s["burst_cohorts"]) == (2, 32)
    figures(s, (("fill_ms", 377.55, 2), ("ttft_burst_ms", 6229.50, 2), ("fill_one_ms", 192.39, 2),
                ("itl_ms", 40.24, 2), ("ttft_steady_ms", 212.51, 2), ("ttft_at_concurrency_ms", 878.21, 2)))


@pytest.mark.parametrize("c, fill_one, burst, steady, mean", [
    (1, 2349.82, 2349.82, 2349.82, 2450.62), (8, 2352.00, 10583.99, 2381.65, 3302.68),
    (64, 2369.46, 77007.35, 2532.43, 10080.72), (128, 2389.41, 154116.91, 2704.76, 17946.77)])
def test_example_4_a_prompt_longer_than_the_budget_is_chunked(c, fill_one, burst, steady, mean):
    s = serving(model="llama-3.1-405b", gpu="h200", serving={
        "users": c, "sequence_length": 16896, "prompt_tokens": 16384, "tensor_parallel": 8,
        "weight_precision": "fp8", "kv_precision": "fp8"})
    assert (s["max_concurrency"], s["prefill_passes"], s["prompts_per_pass"], s["burst_cohorts"]) == (139, 2, 1, c)
    close(s["ttft_ms"], 2343.64, 2)
    figures(s, (("fill_one_ms", fill_one, 2), ("ttft_burst_ms", burst, 2), ("ttft_steady_ms", steady, 2),
                ("ttft_at_concurrency_ms", mean, 2)))


@pytest.mark.parametrize("engine, means", [("generic", (449.05, 631.64, 1166.38)),
                                           ("vllm", (450.21, 613.59, 1161.15)),
                                           ("trtllm", (449.05, 631.64, 1166.38))])
def test_example_6_vllm_on_an_a100_takes_its_budget_of_2048(engine, means):
    for c, mean in zip((1, 8, 32), means):
        s = serving(gpu="a100-80gb", serving={"engine": engine, "users": c, "sequence_length": 4352,
                                              "prompt_tokens": 4096})
        assert s["max_concurrency"] == 98
        assert s["prefill_passes"] == (2 if engine == "vllm" else 1)
        close(s["ttft_at_concurrency_ms"], mean, 2)


def test_the_concurrency_table_gives_ttft_at_each_b_and_blank_above_b_max():
    table = tables(serving={"users": 200, "sequence_length": 2304, "prompt_tokens": 2048})["serving"]
    rows = {row["batch"]: row for row in table.rows if row["batch"] != ""}
    close(rows[8]["ttft_at_concurrency_ms"], 128.41, 2)
    close(rows[64]["ttft_median_at_concurrency_ms"], 109.34, 2)
    close(rows[185]["pass_overhead_ms"], 1.9640, 4)
    assert rows[200]["ttft_at_concurrency_ms"] == "" and rows[200]["pass_overhead_ms"] != ""
    assert table.scalars["ttft_at_concurrency_ms"].startswith("n/a")
