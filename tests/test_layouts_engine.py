"""METHOD.md §10 (layout search) against numbers worked by hand and the figures METHOD.md publishes: Narayanan et
al. 2021's Table 1 and the worked Llama 3.1 405B search on H100s."""

from __future__ import annotations

import dataclasses
import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.engine import hours
from planner.engine import layouts as lay
from planner.engine import memory

# §Catalog and §10's GPU figures: memory GB, BF16 TFLOPS, HBM TB/s, NVLink GB/s, network GB/s, GPUs per node, η
H100 = dict(memory_gb=80, peak_tflops=989, hbm_tbps=3.35, nvlink_gbps=450, network_gbps=50, gpus_per_node=8,
            gemm_efficiency=0.47, price_per_gpu_hour=2.00)
A100 = dict(memory_gb=80, peak_tflops=312, hbm_tbps=2.039, nvlink_gbps=300, network_gbps=25, gpus_per_node=8,
            gemm_efficiency=0.65, price_per_gpu_hour=1.50)
LLAMA_405B = dict(layers=126, hidden=16384, heads=128, kv_heads=8, head_dim=128, ffn=53_248, vocab=128_256,
                  gated=True, tied_embeddings=False)
# the worked search: B = 2048 × 8192, T = 15.6e12, N ≤ 16,384, 120 days, balanced stages, FP32 gradient reduce
WORKED = lay.Problem(**LLAMA_405B, **H100, sequence_length=8192, global_batch=2048, tokens=15.6e12,
                     gpus_max=16384, deadline_days=120, balanced_stages=True, grad_reduce_bytes=4)
META = dict(gpus=16384, tensor_parallel=8, pipeline_parallel=16, context_parallel=1, micro_batch=1, interleave=8,
            zero=2, recompute="none")  # The Llama 3 Herd of Models, Table 4


@pytest.fixture(scope="session")
def worked() -> lay.LayoutSearch:
    return lay.search(WORKED, references=[
        META,
        {**META, "zero": None, "recompute": None},  # blank fields searched
        {},  # every field searched: the fastest layout that fits
        {**META, "tensor_parallel": 3},
        {"gpus": 16384, "tensor_parallel": 3},
    ])


def one(problem, t, p, c, d, b, v, z, recompute) -> dict:
    """evaluate() for one layout given as plain integers (scalars all the way through)."""
    return lay.evaluate(problem, lay.Layout(t, p, c, d, b, v, z, lay.RECOMPUTE.index(recompute)))


# Narayanan et al. 2021, Table 1 -----------------------------------------------------------------------------
@pytest.mark.parametrize("h, layers, heads, t, p, v, b, batch, n, overlap, measured, predicted", [
    (2304, 24, 24, 1, 1, 1, 16, 512, 32, True, 137, 157),  # 1.7B
    (4096, 36, 32, 4, 1, 1, 16, 512, 128, True, 142, 149),  # 7.5B
    (8192, 48, 64, 8, 2, 1, 4, 1536, 512, False, 138, 135),  # 39B: above 18B, no DP overlap
    (12288, 80, 96, 8, 8, 2, 2, 2304, 1536, False, 148, 148),  # 145B
    (25600, 128, 160, 8, 64, 1, 1, 3072, 3072, False, 163, 153),  # 1T
])
def test_narayanan_table_1(h, layers, heads, t, p, v, b, batch, n, overlap, measured, predicted):
    s, vocab = 2048, 51200
    problem = lay.Problem(layers=layers, hidden=h, heads=heads, kv_heads=heads, head_dim=h // heads, ffn=4 * h,
                          vocab=vocab, gated=False, tied_embeddings=True, **A100, sequence_length=s,
                          global_batch=batch, gpus_max=n, flash_attention=False, sequence_parallel=False,
                          dp_overlap=overlap, grad_reduce_bytes=2, balanced_stages=False)
    step = one(problem, t, p, 1, n // (t * p), b, v, 0, "full")["step_s"]
    # the paper's FLOPs per step, recomputation included: 96·B·s·L·h²·(1 + s/(6h) + V/(16·L·h))
    flops = 96 * batch * s * layers * h**2 * (1 + s / (6 * h) + vocab / (16 * layers * h))
    tflops = flops / (n * step) / 1e12
    assert round(tflops) == predicted
    assert 0.93 <= tflops / measured <= 1.15


# The worked 405B search ------------------------------------------------------------------------------------
def test_worked_counts(worked):
    assert (worked.valid_layouts, worked.fitting_layouts, worked.deadline_layouts) == (149_008, 27_305, 181)
    assert worked.eligible_layouts == 181  # no money budget
    assert worked.reason == ""


def test_worked_cheapest(worked):
    best = worked.cheapest[0]
    assert best["gpus"] == 14_336
    assert (best["tensor_parallel"], best["pipeline_parallel"], best["context_parallel"],
            best["data_parallel"]) == (8, 14, 2, 64)
    assert (best["micro_batch"], best["interleave"], best["zero"], best["recompute"]) == (1, 9, 2, "none")
    assert round(best["memory_gb"], 1) == 47.8
    assert round(best["megatron_mfu"], 3) == 0.366
    assert round(best["mfu"], 3) == 0.339
    assert round(best["days"], 1) == 91.4
    assert round(best["cost"] / 1e6, 2) == 62.89
    assert worked.headline == {"search_cheapest_gpus": 14_336, "search_cheapest_days": best["days"],
                               "search_cheapest_cost": best["cost"], "search_cheapest_mfu": best["mfu"],
                               "search_valid_layouts": 149_008, "search_fitting_layouts": 27_305}


def test_worked_top_ten_one_row_per_n_t_p_c(worked):
    rows = worked.cheapest
    assert len(rows) == 10
    keys = {(r["gpus"], r["tensor_parallel"], r["pipeline_parallel"], r["context_parallel"]) for r in rows}
    assert len(keys) == 10
    assert all(r["fits"] and r["days"] <= 120 for r in rows)
    assert [r["cost"] for r in rows] == sorted(r["cost"] for r in rows)


def test_worked_fastest_of_the_front(worked):
    fastest = worked.front[0]
    assert fastest["gpus"] == 16_384
    assert (fastest["tensor_parallel"], fastest["pipeline_parallel"], fastest["context_parallel"],
            fastest["data_parallel"]) == (8, 8, 2, 128)
    assert (fastest["interleave"], fastest["zero"]) == (16, 2)
    assert round(fastest["memory_gb"], 1) == 51.9
    assert round(fastest["days"], 1) == 82.0
    assert round(fastest["cost"] / 1e6, 2) == 64.51
    # a front: slower is strictly cheaper, and the cheapest in time is on it
    days = [r["days"] for r in worked.front]
    costs = [r["cost"] for r in worked.front]
    assert days == sorted(days) and all(a > b for a, b in zip(costs, costs[1:]))
    assert worked.cheapest[0] in worked.front


def test_meta_layout_does_not_fit_and_says_why(worked):
    meta = worked.references[0]
    assert round(meta["days"], 1) == 83.9
    assert round(meta["cost"] / 1e6, 2) == 66.01
    assert round(meta["memory_gb"], 1) == 88.7 and round(meta["usable_gb"], 1) == 81.6
    assert meta["fits"] is False and meta["valid"] is True
    assert meta["reason"] == "needs 88.7 GB per GPU, 81.6 GB usable at 95 % headroom"
    assert meta["searched"] == []


def test_meta_layout_memory_by_hand():
    # Ψ_L = 126·(2·16384² + 2·16384·1024 + 3·16384·53248) = 401,646,551,040; Ψ_E = 128,256·16384 = 2,101,346,304
    # Ψ_g = Ψ_L/(8·16) + Ψ_E/8 = 3,137,863,680 + 262,668,288 = 3,400,531,968; d_z = 128
    # ZeRO-2 states = Ψ_g·(2 + 14/128) = 7,172,997,120
    # per layer = 1·8192·(34·16384/8) = 570,425,344; in flight = MIN(16, 16)·(1 + 15/(16·8)) = 17.875
    # activations = 17.875·CEILING(126/16)·per layer = 17.875·8·570,425,344 = 81,570,824,192; no logits (p > 1)
    x = one(WORKED, 8, 16, 1, 128, 1, 8, 2, "none")
    assert x["states_bytes"] == pytest.approx(7_172_997_120, rel=1e-12)
    assert x["activations_bytes"] == pytest.approx(81_570_824_192, rel=1e-12)
    assert x["logits_bytes"] == 0
    assert x["total_bytes"] == pytest.approx(88_743_821_312, rel=1e-12)
    assert lay.usable_bytes(WORKED) == 0.95 * 80 * 2**30 == 81_604_378_624
    assert not x["fits"]


def test_cheapest_layout_term_by_term_by_hand():
    # t 8, p 14, c 2, d 64, b 1, v 9, ZeRO-2, no recompute; tok = 1·8192/2 = 4096, L/p = 126/14 = 9 (even stages)
    x = one(WORKED, 8, 14, 2, 64, 1, 9, 2, "none")
    peak = 8 * 0.47 * 989e12  # t·η·P
    nve, nete = 450 * 0.65e9, 50 * 0.9e9  # 292.5 GB/s and 45 GB/s
    f = 6 * 3_187_671_040 + 12 * 16384 * 8192  # 6·Ψ_L/L + 12·A·s = 20,736,638,976 FLOPs per token and layer
    gemm = 4096 * 9 * f / peak
    logit = 6 * 4096 * 2_101_346_304 / peak
    mem = 4096 * (9 * 4 * (34 * 16384 / 8) + 12 * 128_256 / 8) / 3.35e12  # β·act per layer + logit traffic
    tp = 4 * 9 * (2 * 7 / 8 * 2 * 4096 * 16384 / nve + 10e-6)  # 4 all-reduces per layer, within the node
    cp = 2 * 9 * 1 * 4 * 4096 * 1024 / 8 / nete  # t·c = 16 GPUs span two nodes: the network
    pp = 2 * 9 * (2 * 4096 * 16384 / 8 / nete + 20e-6)  # t·p = 112: the network
    micro = gemm + mem + tp + cp + pp
    critical = micro * 9 / 9  # balanced stages: a middle stage of CEILING(126/14) = 9 layers, no output layer
    pipe = (32 + 13 / 9) * critical  # m = 2048/(64·1) = 32
    psi_g = 401_646_551_040 / 112 + 2_101_346_304 / 8  # 3,848,798,208
    bw = min(nve, 1 * nete)  # k = MAX(1, INT(8/(8·2·14))) = 1
    dp = max(0.0, 127 / 128 * psi_g * (4 + 2) / bw - critical)  # d_z = 128, FP32 reduce + BF16 gather, overlapped
    opt = psi_g / 128 * 32 / 3.35e12
    step = pipe + dp + opt
    for key, value in (("gemm_s", gemm), ("logit_s", logit), ("memory_s", mem), ("tp_s", tp), ("cp_s", cp),
                       ("pp_s", pp), ("critical_s", critical), ("pipeline_s", pipe), ("data_parallel_s", dp),
                       ("optimizer_s", opt), ("step_s", step)):
        assert x[key] == pytest.approx(value, rel=1e-12), key
    steps = 15.6e12 / (2048 * 8192)
    assert x["days"] == pytest.approx(steps * step / 86400, rel=1e-12)
    assert x["gpu_hours"] == pytest.approx(14336 * steps * step / 3600, rel=1e-12)
    assert x["mfu"] == pytest.approx(6 * 405_853_388_800 * 2048 * 8192 / (14336 * step * 989e12), rel=1e-12)
    # memory: ZeRO-2 states Ψ_g·(2 + 14/128); 14 + 13/9 micro-batches in flight of 9 layers of 4096·69,632 bytes
    assert x["states_bytes"] == pytest.approx(psi_g * (2 + 14 / 128), rel=1e-12)
    assert x["activations_bytes"] == pytest.approx(14 * (1 + 13 / (14 * 9)) * 9 * 4096 * 69_632, rel=1e-12)


def test_shares_add_up_to_the_step():
    for problem, layout in ((WORKED, (8, 14, 2, 64, 1, 9, 2, "none")), (WORKED, (8, 6, 2, 128, 2, 1, 3, "full")),
                            (dataclasses.replace(WORKED, balanced_stages=False, tp_overlap=True),
                             (4, 7, 1, 64, 1, 3, 1, "full"))):
        x = one(problem, *layout)
        assert sum(x[f"share_{key}"] for key in lay.SHARES) == pytest.approx(1, rel=1e-12)


# References with blank fields, and requests that cannot be met ---------------------------------------------
def test_reference_with_blank_fields_is_searched(worked):
    ref = worked.references[1]
    # without recompute even ZeRO-3 needs 3,400,531,968·16/128 + 81,570,824,192 = 81,995,890,688 B > 81,604,378,624:
    # full recompute keeps 2·8192·16384/8 = 33,554,432 B per layer: 17.875·8·33,554,432 + 570,425,344 = 5,368,709,120;
    # ZeRO-1 and ZeRO-2 take the same time (both shard the optimizer step), ZeRO-2 needs less memory
    assert (ref["zero"], ref["recompute"]) == (2, "full")
    assert ref["memory_gb"] == pytest.approx((7_172_997_120 + 5_368_709_120) / 1e9, rel=1e-12)
    assert ref["fits"] and ref["valid"] and ref["reason"] == ""
    assert ref["searched"] == ["zero", "recompute"]
    zero3 = lay.reference_layout(WORKED, lay.Reference(**{**META, "zero": 3}))
    assert zero3["memory_gb"] == pytest.approx(81_995_890_688 / 1e9, rel=1e-12) and not zero3["fits"]


def test_reference_with_every_field_blank_is_the_fastest(worked):
    ref = worked.references[2]
    assert (ref["gpus"], ref["tensor_parallel"], ref["pipeline_parallel"], ref["context_parallel"]) == \
        (16_384, 8, 8, 2)
    assert round(ref["days"], 1) == 82.0 and ref["fits"]


def test_reference_breaking_a_rule_says_which(worked):
    complete = worked.references[3]  # every field given: evaluated as it is
    assert complete["valid"] is False
    assert "t = 3 does not divide the 128 heads" in complete["reason"]
    assert "t = 3 does not divide the 8 KV heads" in complete["reason"]
    assert "16,384 GPUs is not a multiple of t·p·c = 48" in complete["reason"]
    partial = worked.references[4]  # 16,384 = 2^14 has no factor 3: nothing to search
    assert partial["reason"].startswith("t = 3 does not divide the 128 heads")
    assert partial["reason"].endswith("no valid layout has these fields")
    assert partial["days"] is None and partial["fits"] is False


def test_reference_that_cannot_fit_shows_the_fastest():
    # 405B on 8 GPUs: whatever the split (t·p·c·d = 8), ZeRO-3's states alone are at least
    # 16·Ψ_L/8 = 16 · 401,646,551,040 / 8 = 803.3 GB per GPU, far above 81.6 GB usable
    ref = lay.reference_layout(WORKED, lay.Reference(gpus=8))
    assert ref["memory_gb"] > 803.2
    assert ref["reason"].startswith("no layout with these fields fits: the fastest needs ")
    assert ref["reason"].endswith("GB per GPU, 81.6 GB usable at 95 % headroom")
    assert ref["fits"] is False and ref["days"] > 0


@pytest.mark.parametrize("changes, words", [
    ({"global_batch": 0}, "the global batch must be a whole number of sequences, at least 1: got 0"),
    ({"global_batch": 2.5}, "the global batch must be a whole number of sequences, at least 1: got 2.5"),
    ({"gpus_max": 4}, "a GPU budget of 4 is below one node of 8 GPUs"),
])
def test_impossible_requests_give_a_reason(changes, words):
    result = lay.search(dataclasses.replace(WORKED, **changes), references=[META])
    assert words in result.reason
    assert (result.valid_layouts, result.cheapest, result.front) == (0, [], [])
    assert words in result.references[0]["reason"]
    json.dumps(result.to_json(), allow_nan=False)


def test_counts_as_whole_floats_are_accepted():
    # a scenario file may give 2048.0 sequences: the same search as 2048
    assert lay.search(dataclasses.replace(WORKED, global_batch=2048.0, gpus_max=16384.0)).valid_layouts == 149_008


def test_money_budget_below_the_cheapest(worked):
    result = lay.search(dataclasses.replace(WORKED, budget=60e6))
    assert result.deadline_layouts == 181 and result.eligible_layouts == 0 and result.cheapest == []
    assert result.reason == f"no layout that finishes in time costs at most 60,000,000: the cheapest costs " \
                            f"{worked.cheapest[0]['cost']:,.0f}"


def test_budget_without_deadline():
    result = lay.search(dataclasses.replace(WORKED, deadline_days=None, budget=62.9e6))
    assert result.deadline_layouts == result.fitting_layouts == 27_305  # no deadline: every fitting layout
    assert 0 < result.eligible_layouts < 27_305
    assert result.cheapest[0]["cost"] <= 62.9e6 and result.reason == ""


def test_nothing_fits():
    result = lay.search(dataclasses.replace(WORKED, memory_gb=1))  # the grid does not depend on the memory
    assert result.valid_layouts == 149_008 and result.fitting_layouts == 0 and result.cheapest == []
    assert result.reason.startswith("none of the 149,008 valid layouts fits: the smallest needs ")
    assert result.reason.endswith(" GB per GPU, 1.0 GB usable at 95 % headroom")  # 0.95·2^30 = 1.02e9 bytes


def test_deadline_nobody_meets():
    result = lay.search(dataclasses.replace(WORKED, deadline_days=60))
    assert result.fitting_layouts == 27_305 and result.deadline_layouts == 0
    assert result.reason == "no fitting layout finishes within 60 days: the fastest takes 82.0 days"


def test_json_is_plain(worked):
    text = json.dumps(worked.to_json(), allow_nan=False)
    back = json.loads(text)
    assert back["references"][0]["reason"] == worked.references[0]["reason"]

    def plain(value):
        if isinstance(value, dict):
            return all(plain(v) for v in value.values())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or type(value) in (bool, int, float, str)

    assert plain(worked.to_json())


# One formula for scalars and arrays -------------------------------------------------------------------------
FLAGS = st.fixed_dictionaries({
    "flash_attention": st.booleans(), "sequence_parallel": st.booleans(), "tp_overlap": st.booleans(),
    "dp_overlap": st.booleans(), "fsdp_regather": st.booleans(), "balanced_stages": st.booleans(),
    "grad_reduce_bytes": st.sampled_from([2, 4])})
LAYOUT = st.tuples(st.sampled_from([1, 2, 4, 8]), st.integers(1, 64), st.sampled_from([1, 2, 4]),
                   st.sampled_from([1, 2, 8, 64, 128]), st.sampled_from([1, 2, 4, 16]), st.sampled_from([1, 2, 3]),
                   st.integers(0, 3), st.sampled_from([0, 1, 2]))


@settings(max_examples=25, deadline=None)
@given(FLAGS, st.lists(LAYOUT, min_size=1, max_size=12))
def test_scalar_and_vector_agree(flags, layouts):
    problem = dataclasses.replace(WORKED, **flags)
    columns = [np.array(column, dtype=np.int64) for column in zip(*layouts)]
    vector = lay.evaluate(problem, lay.Layout(*columns))
    for i, layout in enumerate(layouts):
        scalar = lay.evaluate(problem, lay.Layout(*layout))
        for key, value in scalar.items():
            expected = np.broadcast_to(vector[key], (len(layouts),))[i]
            assert float(value) == pytest.approx(float(expected), rel=1e-12, abs=0), key


def test_search_rows_match_a_single_layout(worked):
    row = worked.cheapest[3]
    x = one(WORKED, row["tensor_parallel"], row["pipeline_parallel"], row["context_parallel"],
            row["data_parallel"], row["micro_batch"], row["interleave"], row["zero"], row["recompute"])
    assert row["step_time_s"] == pytest.approx(float(x["step_s"]), rel=1e-12)
    assert row["memory_gb"] == pytest.approx(float(x["total_bytes"]) / 1e9, rel=1e-12)


# Constants ------------------------------------------------------------------------------------------------
def test_method_constants_are_section_10s():
    assert (lay.HBM_PASSES, lay.NVLINK_EFFICIENCY, lay.NETWORK_EFFICIENCY) == (4, 0.65, 0.90)
    assert (lay.TP_LATENCY_US, lay.PP_LATENCY_US, lay.ADAM_BYTES, lay.RECOMPUTE_TRAFFIC) == (10, 20, 32, 4 / 3)
    names = [c.name for c in lay.CONSTANTS]
    assert len(names) == len(set(names))
    assert not set(names) & {c.name for c in memory.CONSTANTS + hours.CONSTANTS}
    assert all(c.label and c.unit and c.source for c in lay.CONSTANTS)


def test_model_params_from_the_architecture():
    assert lay.model_params(WORKED) == 405_853_388_800  # §Catalog's exact count
    assert math.isclose(lay.layer_params(WORKED), 401_646_551_040)
