"""METHOD.md §6 (and §7's MoE and MLA terms) against numbers worked by hand, and §6's published worked table.

Every case: s = 2048, o = 6144 (sequence length 8192), η_c 0.5, η_m 0.7, r 0.10, τ 0 unless it says otherwise.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from planner import shipped as catalog
from planner.model import counts, passes
from planner.model import replica as sv

LLAMA_8B = dict(params=8_030_261_248, layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128, vocab=128_256)
LLAMA_70B = dict(params=70_553_706_496, layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128, vocab=128_256)
H100 = dict(memory_gb=80, peak_tflops=989, fp8_tflops=1979, hbm_tbps=3.35, nvlink_gbps=450, price_per_gpu_hour=2.00)
A100 = dict(memory_gb=80, peak_tflops=312, fp8_tflops=None, hbm_tbps=2.039, nvlink_gbps=300, price_per_gpu_hour=1.50)
FP8 = dict(weight_bits=8, fp8_gemm=True, kv_bytes=1)


def replica(model=LLAMA_8B, gpu=H100, **changes):
    return sv.Replica(**model, **gpu, **changes)


def headline(r: sv.Replica) -> dict:
    """The Serving table's headline names for one replica, from its own figures."""
    users, at_max = r.at(r.users), r.at(r.b_max)
    return {"serving_max_concurrency": r.b_max, "serving_fits": bool(r.users <= r.b_max),
            "serving_ttft_ms": sv.number(r.ttft_s() * 1000), "serving_tpot_ms": users["tpot_ms"],
            "serving_tpot_ms_single": r.at(1)["tpot_ms"], "serving_itl_ms": users["itl_ms"],
            "serving_tokens_per_s_per_gpu": users["tokens_per_s_per_gpu"],
            "serving_cost_per_million_tokens": users["cost_per_million_tokens"], "serving_mfu": users["mfu"],
            "serving_tpot_ms_at_max": at_max["tpot_ms"],
            "serving_tokens_per_s_per_gpu_at_max": at_max["tokens_per_s_per_gpu"],
            "serving_cost_per_million_tokens_at_max": at_max["cost_per_million_tokens"],
            "serving_kv_bytes_per_token": sv.number(r.kv_g)}


# The worked table -----------------------------------------------------------------------------------------------------
def test_worked_8b_bf16_on_one_h100_by_hand():
    r = replica()
    h = headline(r)
    # Ψ_mm = 8,030,261,248 − 128,256·4,096
    assert r.psi_mm == 7_504_924_672
    # W_g = 2 bytes · Ψ / 1 = 16.06 GB; KV_g = 2·32·8·128·2 = 131,072 bytes
    assert r.w_g == 16_060_522_496 and round(r.w_g / 1e9, 2) == 16.06
    assert h["serving_kv_bytes_per_token"] == 131_072
    # pool = 72e9 − 16.06e9 = 55.94 GB; per sequence 8,192·131,072 = 1.074 GB → 52.098 → B_max 52
    assert r.pool == pytest.approx(80e9 * 0.9 - 16_060_522_496)
    assert 55_939_477_504 / 1_073_741_824 == pytest.approx(52.098, abs=1e-3)
    assert h["serving_max_concurrency"] == 52
    # TTFT: compute (2·Ψ_mm·2048 + 32·2048²·(4096 + 4096))/(989e12·0.5) = (30.74e12 + 1.10e12)/494.5e12;
    # the memory term (15.01e9 + 2048·131,072)/2.345e12 = 6.5 ms is smaller
    ttft = (30_740_171_456_512 + 1_099_511_627_776) / 494.5e12
    assert h["serving_ttft_ms"] == pytest.approx(ttft * 1000) and round(h["serving_ttft_ms"], 1) == 64.4
    # TPOT(B) memory-bound: (15,009,849,344 + B·5,120·131,072)/2.345e12 at B = 1, 32, 52
    tpot = {b: (15_009_849_344 + b * 5120 * 131_072) / 2.345e12 for b in (1, 32, 52)}
    assert h["serving_tpot_ms_single"] == pytest.approx(tpot[1] * 1000) and round(tpot[1] * 1000, 2) == 6.69
    assert h["serving_tpot_ms"] == pytest.approx(tpot[32] * 1000) and round(tpot[32] * 1000, 2) == 15.56
    assert h["serving_tpot_ms_at_max"] == pytest.approx(tpot[52] * 1000) and round(tpot[52] * 1000, 2) == 21.28
    # cycle = T_pre(52) + 6,144·TPOT(52) = 52·31.84e12/494.5e12 + 6,144·21.28 ms = 3.35 s + 130.76 s = 134.1 s
    cycle = 52 * (30_740_171_456_512 + 1_099_511_627_776) / 494.5e12 + 6144 * tpot[52]
    assert round(cycle, 1) == 134.1
    # 52·6,144 / 134.1 s = 2,382 tokens/s per GPU; $2.00·1e6/(3600·2,382) = $0.233
    assert h["serving_tokens_per_s_per_gpu_at_max"] == pytest.approx(52 * 6144 / cycle)
    assert round(h["serving_tokens_per_s_per_gpu_at_max"]) == 2382
    assert h["serving_cost_per_million_tokens_at_max"] == pytest.approx(2e6 / (3600 * 52 * 6144 / cycle))
    assert round(h["serving_cost_per_million_tokens_at_max"], 3) == 0.233
    assert h["serving_fits"] is True  # 32 users ≤ 52


@pytest.mark.parametrize("case, model, changes, expected", [
    # case: W_g GB, KV_g B/token, B_max, TTFT ms, TPOT B=1, B=32, B_max ms, tok/s/GPU at B_max, cost/M at B_max
    ("8B BF16, 1×H100", LLAMA_8B, {}, (16.06, 131_072, 52, 64.4, 6.69, 15.56, 21.28, 2382, 0.233)),
    ("70B BF16, 4×H100", LLAMA_70B, {"tensor_parallel": 4},
     (35.28, 81_920, 54, 165.9, 16.29, 22.10, 26.23, 488, 1.139)),
    ("70B FP8, 2×H100", LLAMA_70B, {"tensor_parallel": 2, **FP8},
     (35.28, 81_920, 54, 159.8, 16.28, 22.01, 26.07, 983, 0.565)),
])
def test_worked_table(case, model, changes, expected):
    r = replica(model, **changes)
    h = headline(r)
    got = (round(r.w_g / 1e9, 2), h["serving_kv_bytes_per_token"], h["serving_max_concurrency"],
           round(h["serving_ttft_ms"], 1), round(h["serving_tpot_ms_single"], 2), round(h["serving_tpot_ms"], 2),
           round(h["serving_tpot_ms_at_max"], 2), round(h["serving_tokens_per_s_per_gpu_at_max"]),
           round(h["serving_cost_per_million_tokens_at_max"], 3))
    assert got == pytest.approx(expected, abs=1e-9), case


def test_70b_on_four_h100_ttft_by_hand():
    r = replica(LLAMA_70B, tensor_parallel=4)
    # Ψ_mm = 70,553,706,496 − 128,256·8,192 = 69,503,033,344
    assert r.psi_mm == 69_503_033_344
    # AR(2048) = 2·80·(8 µs + 2·3/4·2048·8192·2 bytes / 450e9) = 19.18 ms
    ar = 160 * (8e-6 + 1.5 * 2048 * 8192 * 2 / 450e9)
    assert passes.all_reduce_seconds(2048, 80, 8192, 4, 450) == pytest.approx(ar)
    # compute: (2·69,503,033,344·2048 + 80·2048²·(8192 + 8192)) / (4·989e12·0.5) = 146.70 ms, + AR = 165.9 ms
    compute = (284_684_424_577_024 + 5_497_558_138_880) / (4 * 494.5e12)
    assert headline(r)["serving_ttft_ms"] == pytest.approx((compute + ar) * 1000)


# The concurrency table ------------------------------------------------------------------------------------------------
def test_a_table_row_by_hand():
    rows = replica().table()
    assert len(rows) == sv.TABLE_ROWS == 19
    row = next(r for r in rows if r["batch"] == 8)
    # TPOT(8) = (15,009,849,344 + 8·5,120·131,072)/2.345e12; T_pre(8) = 8·31.84e12/494.5e12 (compute-bound)
    tpot = (15_009_849_344 + 8 * 5120 * 131_072) / 2.345e12
    cycle = 8 * 31_839_683_084_288 / 494.5e12 + 6144 * tpot
    tok_s = 8 * 6144 / cycle
    assert (row["tpot_ms"], row["itl_ms"], row["tokens_per_s_per_gpu"], row["cost_per_million_tokens"]) == \
        pytest.approx((tpot * 1000, cycle / 6144 * 1000, tok_s, 2e6 / (3600 * tok_s)))
    assert round(row["tokens_per_s_per_gpu"]) == 912 and row["fits"] is True
    # the memory stack at 8: 16.06 GB weights, 8·8,192·131,072 = 8.59 GB KV, 8 GB reserve, the rest free
    assert (row["weights_gb"], row["kv_gb"], row["reserve_gb"], row["free_gb"]) == pytest.approx(
        (16.060522496, 8.589934592, 8.0, 80 - 16.060522496 - 8.589934592 - 8.0))


def test_each_pass_in_its_pieces_by_hand():
    """A pass in its pieces, and what the sheets' helper cells hold (Replica.pass_pieces): at B = 32 the verify pass
    (the decode step) is memory-bound, (15,009,849,344 + 32·5,120·131,072)/2.345e12 = 15.56 ms against its compute
    32·(2·Ψ_mm + 2·32·5,120·8,192)/494.5e12 = 1.15 ms; the prefill of 32 prompts compute-bound, 32·31.84e12/
    494.5e12 = 2.06 s; no all-reduce on one GPU; MAX(compute, memory) + AR + τ of each is TPOT, T_pre."""
    r = replica(overhead_ms=2)  # τ 2 ms on every pass
    decode, prefill = r.decode_pieces(32, r.target), r.prefill_pieces(32, r.target)
    memory = (15_009_849_344 + 32 * 5120 * 131_072) / 2.345e12
    compute = 32 * (2 * 7_504_924_672 + 2 * 32 * 5120 * 8192) / 494.5e12
    assert (decode["memory"], decode["compute"], decode["all_reduce"]) == pytest.approx((memory, compute, 0))
    assert round(memory * 1000, 2) == 15.56 and round(compute * 1000, 2) == 1.15
    assert prefill["compute"] == pytest.approx(32 * 31_839_683_084_288 / 494.5e12)
    assert round(prefill["compute"], 2) == 2.06 and prefill["memory"] < prefill["compute"]
    # what the sheets show: each pass's memory time and the pass, MAX(compute, memory) + AR + τ
    shown = r.pass_pieces(32)
    assert (shown["verify_memory_s"], shown["verify_pass_s"]) == pytest.approx((memory, memory + 0.002))
    assert shown["prefill_pass_s"] == pytest.approx(prefill["compute"] + 0.002)
    assert all(shown[f"{kind}_memory_s"] == 0 and shown[f"{kind}_pass_s"] == pytest.approx(0.002)
               for kind in ("draft_prefill", "draft"))  # no draft: nothing moved, the overhead paid (k = 0 of them)
    assert r.tpot_s(32) == pytest.approx(shown["verify_pass_s"]) and r.prefill_s(32) == shown["prefill_pass_s"]


def test_table_rows_powers_below_max_then_max_then_users():
    # B_max 52, 32 users: 1 … 32 (32 is a power below 52), 52; the users' 32 is already shown
    batches = [b for _, b in sv.concurrency_batches(52, 32)]
    assert batches[:6] == [1, 2, 4, 8, 16, 32] and batches[6:17] == [None] * 11
    assert batches[17:] == [52, None]
    assert [b for _, b in sv.concurrency_batches(52, 52)][17:] == [52, None]  # users = B_max: once
    assert [b for _, b in sv.concurrency_batches(52, 20)][17:] == [52, 20]
    # B_max = 64 is not "below B_max": 1 … 32, then 64
    assert [b for _, b in sv.concurrency_batches(64, 32)][:7] == [1, 2, 4, 8, 16, 32, None]
    # up to 2^16: 17 powers, B_max and the users, 19 rows
    big = sv.concurrency_batches(100_000, 7)
    assert [b for _, b in big] == [2 ** k for k in range(17)] + [100_000, 7]


def test_users_above_max_are_still_computed():
    r = replica(users=100)
    users = r.table()[-1]
    # TPOT(100) = (15,009,849,344 + 100·5,120·131,072)/2.345e12 = 35.02 ms
    assert users["batch"] == 100 and users["fits"] is False
    assert users["tpot_ms"] == pytest.approx((15_009_849_344 + 100 * 5120 * 131_072) / 2.345e12 * 1000)
    assert round(users["tpot_ms"], 2) == 35.02
    assert headline(r)["serving_fits"] is False
    assert users["free_gb"] == pytest.approx(80 - 16.060522496 - 100 * 1.073741824 - 8)  # negative: over by 51.4 GB


def test_does_not_fit_gives_blanks_not_errors():
    r = replica(LLAMA_70B)  # 141.1 GB of BF16 weights on one 80 GB GPU: pool = 72e9 − 141.1e9 < 0
    h = headline(r)
    assert h["serving_max_concurrency"] == 0 and h["serving_fits"] is False
    assert h["serving_tpot_ms_at_max"] is None
    assert h["serving_tokens_per_s_per_gpu_at_max"] is None and h["serving_cost_per_million_tokens_at_max"] is None
    rows = r.table()
    assert all(row["batch"] is None for row in rows[:17])
    assert rows[17]["batch"] == 0 and all(rows[17][k] is None for k in rows[17] if k not in ("role", "batch"))
    # the users' values are still shown: TPOT(32) = (2·69,503,033,344 + 32·5,120·327,680)/2.345e12
    assert rows[18]["tpot_ms"] == pytest.approx((139_006_066_688 + 32 * 5120 * 327_680) / 2.345e12 * 1000)
    for value in [*h.values(), *(v for row in rows for v in row.values())]:
        assert value is None or isinstance(value, (bool, int, str)) or math.isfinite(value)


def test_no_output_tokens_gives_blanks_not_a_division_by_zero():
    # a prompt of the whole sequence (the scenario refuses it): o = 0, so ITL = cycle/o and TokS are undefined
    r = replica(prompt_tokens=8192)
    assert r.o == 0 and r.b_max == 52  # the capacity does not depend on the split
    assert r.at(52) == dict.fromkeys(("tpot_ms", "itl_ms", "tokens_per_s_per_gpu", "cost_per_million_tokens", "mfu"))
    assert headline(r)["serving_tokens_per_s_per_gpu"] is None


# KV cache -------------------------------------------------------------------------------------------------------------
def test_fp8_kv_halves_the_kv_cache_whatever_the_weights():
    r = replica(kv_bytes=catalog.PRECISIONS["fp8"].kv_bytes)
    assert r.kv_g == 2 * 32 * 8 * 128 * 1 == 65_536
    assert round(r.w_g / 1e9, 2) == 16.06  # BF16 weights unchanged
    # pool 55,939,477,504 / (8,192·65,536) = 104.2 → 104
    assert r.b_max == 104


def test_tensor_parallel_beyond_kv_heads_replicates_them():
    # 70B has 8 KV heads: t = 4 splits them (2 per GPU), t = 8 and t = 16 keep one per GPU (replicated at 16)
    assert counts.kv_bytes_per_token(80, 8, 128, kv_bytes=2, tensor_parallel=4) == 2 * 80 * 2 * 128 * 2 == 81_920
    assert counts.kv_bytes_per_token(80, 8, 128, kv_bytes=2, tensor_parallel=8) == 2 * 80 * 1 * 128 * 2 == 40_960
    assert counts.kv_bytes_per_token(80, 8, 128, kv_bytes=2, tensor_parallel=16) == 40_960
    assert bool(counts.kv_heads_split_evenly(8, 16)) and bool(counts.kv_heads_split_evenly(8, 4))
    assert not bool(counts.kv_heads_split_evenly(8, 3))


def test_mla_kv_for_deepseek_v3():
    # 61 layers, r_kv 512 + rope 64, 2 bytes: 61·576·2 = 70,272 bytes per token, the same on every one of 8 GPUs
    for t in (1, 8):
        assert counts.kv_bytes_per_token(61, 128, 128, 512, 64, kv_bytes=2, tensor_parallel=t) == 70_272
    # attention widths: 128 heads·(128 nope + 64 rope) = 24,576 and 128·128 (v_head_dim) = 16,384
    assert counts.attention_qk_width(128, 128, 512, 128, 64) == 24_576
    assert counts.attention_av_width(128, 128, 512, 128) == 16_384
    assert counts.attention_qk_width(32, 128) == counts.attention_av_width(32, 128) == 4096  # GQA: the query heads


# Precision and peak ---------------------------------------------------------------------------------------------------
def test_fp8_weights_on_an_a100_fall_back_to_the_bf16_peak():
    assert passes.effective_peak_flops(312, None, True) == 312e12
    assert passes.effective_peak_flops(989, 1979, True) == 1979e12
    assert passes.effective_peak_flops(989, 1979, False) == 989e12  # int8 weight-only: BF16 GEMMs
    r = replica(gpu=A100, **FP8)
    # TTFT compute-bound at the BF16 peak: (30.74e12 + 1.10e12)/(312e12·0.5) = 204.1 ms; the memory term
    # (7,504,924,672·1 + 2048·65,536)/(2.039e12·0.7) = 5.4 ms
    assert headline(r)["serving_ttft_ms"] == pytest.approx(31_839_683_084_288 / 156e12 * 1000)
    assert round(headline(r)["serving_ttft_ms"], 1) == 204.1


B200 = dict(memory_gb=180, peak_tflops=2250, fp8_tflops=4500, fp4_tflops=9000, hbm_tbps=8.0, nvlink_gbps=900,
            price_per_gpu_hour=4.50)
FP4 = dict(weight_bits=4.5, fp8_gemm=True, fp4_gemm=True, kv_bytes=0.5625)


def test_fp4_weights_take_the_fp4_peak_where_the_gpu_has_one_else_the_next_available():
    # docs/method.md §6: FP4 if the GEMMs are FP4 and the GPU has FP4, else FP8 if it has FP8, else BF16
    assert passes.effective_peak_flops(2250, 4500, True, 9000, True) == 9000e12  # B200
    assert passes.effective_peak_flops(989, 1979, True, None, True) == 1979e12  # H100: no FP4, FP8's peak
    assert passes.effective_peak_flops(312, None, True, None, True) == 312e12  # A100: neither, BF16
    assert passes.effective_peak_flops(2250, 4500, True, 9000, False) == 4500e12  # fp8 weights stay at FP8
    assert passes.effective_peak_flops(2250, 4500, False, 9000, False) == 2250e12  # bf16 at BF16
    r = replica(gpu=B200, **FP4)
    # TTFT compute-bound at the FP4 peak: the same 31,839,683,084,288 FLOPs as above /(9000e12·0.5) = 7.08 ms; the
    # memory term (7,504,924,672·0.5625 + 2048·2·32·8·128·0.5625)/(8e12·0.7) = 4,297,017,600/5.6e12 = 0.77 ms
    assert headline(r)["serving_ttft_ms"] == pytest.approx(31_839_683_084_288 / 4500e12 * 1000)
    assert round(headline(r)["serving_ttft_ms"], 2) == 7.08
    # on an H100 the same weights run at the FP8 peak: /(1979e12·0.5) = 32.18 ms
    assert round(headline(replica(gpu=H100, **FP4))["serving_ttft_ms"], 2) == 32.18


def test_shipped_precisions_and_gpu_figures_are_sections_six():
    # NVFP4: 4 bits plus one 8-bit scale per 16 values = 4.5 bits, 0.5625 bytes
    assert {k: (p.weight_bits, p.kv_bytes, p.fp8_gemm, p.fp4_gemm) for k, p in catalog.PRECISIONS.items()} == {
        "bf16": (16, 2, False, False), "fp8": (8, 1, True, False), "int8": (8, 1, False, False),
        "int4-g128": (4.125, 1, False, False), "fp4": (4.5, 0.5625, True, True)}
    assert {k: g.fp8_tflops for k, g in catalog.GPUS.items()} == {
        "h100-sxm": 1979, "h200": 1979, "b200": 4500, "mi300x": 2614.9, "a100-80gb": None,
        "gb200": 5000, "b300": 4500, "mi325x": 2614.9, "mi355x": 5000}
    # dense FP4: DGX B200 (ML Engineering 9,000), GB200 10,000, B300 14,000 (AIConfigurator), MI355X 10,100 (AMD)
    assert {k: g.fp4_tflops for k, g in catalog.GPUS.items()} == {
        "h100-sxm": None, "h200": None, "b200": 9000, "mi300x": None, "a100-80gb": None,
        "gb200": 10000, "b300": 14000, "mi325x": None, "mi355x": 10100}
    assert {k: g.nvlink_gbps for k, g in catalog.GPUS.items()} == {
        "h100-sxm": 450, "h200": 450, "b200": 900, "mi300x": 400, "a100-80gb": 300,
        "gb200": 900, "b300": 900, "mi325x": 448, "mi355x": 535.5}
    assert passes.bytes_per_weight(4.125) == pytest.approx(0.515625)


def test_all_reduce_only_with_tensor_parallelism():
    assert passes.all_reduce_seconds(2048, 80, 8192, 1, None) == 0
    # t = 2, 32 tokens: 2·80·(8 µs + 2·1/2·32·8192·2/450e9)
    assert passes.all_reduce_seconds(32, 80, 8192, 2, 450) == pytest.approx(160 * (8e-6 + 524_288 / 450e9))
    with pytest.raises(ValueError, match="nvlink"):
        passes.all_reduce_seconds(32, 80, 8192, 2, None)


# Mixture of experts ---------------------------------------------------------------------------------------------------
def test_moe_streams_the_experts_its_tokens_touch():
    # Ψ_mm 10e9, 2 MoE layers of E = 4 experts, k = 1, each expert 3·1000·500 = 1.5e6 parameters
    moe = dict(hidden=1000, experts=4, experts_per_token=1, expert_ffn=500, moe_layers=2)
    # n = 1 touches exactly k experts: S = Ψ_mm
    assert counts.streamed_params(10e9, 1, **moe) == pytest.approx(10e9)
    # n = 2: 4·(1 − (3/4)²) = 1.75 experts per layer: 10e9 − 2·1·1.5e6 + 2·1.5e6·1.75 = 10,002,250,000
    assert counts.expected_experts(4, 1, 2) == pytest.approx(1.75)
    assert counts.streamed_params(10e9, 2, **moe) == pytest.approx(10_002_250_000)
    # many tokens touch all 4: 10e9 + 2·(4 − 1)·1.5e6
    assert counts.streamed_params(10e9, 10_000, **moe) == pytest.approx(10_009_000_000)
    assert counts.streamed_params(10e9, 10_000) == 10e9  # dense
    # a Replica takes L_moe = L when not given; Ψ_mm = Ψ_active − V·h = 10,001,000,000 − 1000·1000
    r = sv.Replica(params=2e10, active_params=10_001_000_000, layers=2, hidden=1000, heads=8, kv_heads=8,
                   head_dim=125, vocab=1000, experts=4, experts_per_token=1, expert_ffn=500, **H100)
    assert r.streamed(2) == pytest.approx(10_002_250_000)


# Calibration ----------------------------------------------------------------------------------------------------------
def test_little_mean_concurrency():
    assert passes.mean_concurrency(3600, 300) == 12  # 3,600 s of request latencies in a 300 s run
    assert passes.mean_concurrency(3600, 0) is None


def measured(r, *, ttft, tpot):
    """A run of 12 requests in flight (3,600 s of latencies over 300 s), prompts 1,000 and outputs 500 tokens."""
    return r.calibration(latency_sum_s=3600, duration_s=300, mean_prompt_tokens=1000, mean_output_tokens=500,
                         median_ttft_ms=ttft, median_tpot_ms=tpot)


def test_calibration_recovers_the_efficiencies_of_a_synthetic_run():
    # 8B, τ = 1 ms; the run: 12 requests in flight, prompts 1,000 and outputs 500 tokens: c̄ = 1,250
    r = replica(overhead_ms=1)
    # decode step at 12: 15,009,849,344 + 12·1,250·131,072 bytes, measured as if η_m were 0.6
    step_bytes = 15_009_849_344 + 12 * 1250 * 131_072
    tpot_ms = (step_bytes / (3.35e12 * 0.6) + 0.001) * 1000
    # prefill of 1,000 tokens: 2·7,504,924,672·1,000 + 32·1,000²·8,192 FLOPs, measured as if η_c were 0.4
    flops = 15_009_849_344_000 + 262_144_000_000
    prefill_ms = (flops / (989e12 * 0.4) + 0.001) * 1000
    # §14.6: the run's median TTFT is its own prefill plus the closed-loop excess TTFT_med(12) − TTFT predicted at
    # the inputs; P = TTFT − that excess is what implies η_c
    excess = measured(r, ttft=prefill_ms, tpot=tpot_ms)
    excess = excess["predicted_ttft_median_ms"] - excess["predicted_ttft_ms"]
    got = measured(r, ttft=prefill_ms + excess, tpot=tpot_ms)
    assert got["mean_concurrency"] == 12 and got["clients"] == 12
    assert got["own_prefill_ms"] == pytest.approx(prefill_ms)
    assert got["implied_bandwidth_efficiency"] == pytest.approx(0.6)
    assert got["implied_compute_efficiency"] == pytest.approx(0.4)
    # the prediction at 12 with the defaults (η_m 0.7): memory-bound, + τ
    assert got["predicted_tpot_ms"] == pytest.approx((step_bytes / 2.345e12 + 0.001) * 1000)
    assert got["predicted_ttft_ms"] == pytest.approx((flops / 494.5e12 + 0.001) * 1000)


def test_calibration_takes_the_all_reduce_off_first():
    r = replica(LLAMA_70B, tensor_parallel=4)
    # AR(12) = 2·80·(8 µs + 2·3/4·12·8192·2/450e9); decode bytes 2·69,503,033,344/4 + 12·1,250·81,920
    ar = 160 * (8e-6 + 1.5 * 12 * 8192 * 2 / 450e9)
    step_bytes = 34_751_516_672 + 12 * 1250 * 81_920
    tpot_ms = (step_bytes / (3.35e12 * 0.65) + ar) * 1000
    got = measured(r, ttft=1000, tpot=tpot_ms)
    assert got["implied_bandwidth_efficiency"] == pytest.approx(0.65)
    # a measurement no longer than AR + τ implies nothing
    assert measured(r, ttft=1000, tpot=ar * 1000)["implied_bandwidth_efficiency"] is None


def test_the_implied_eta_m_subtracts_ar_and_the_pass_overhead_at_the_ceiled_concurrency():
    """§14.6: η_m implied = bytes(B̄)/(HBM·(TPOT − AR(b̄) − τ_pass(b̄))), b̄ = CEILING(B̄) = 13 at B̄ 12.1 (3,630 s of
    latencies over 300 s): 70B on four H100s, τ_pass(13) = (0.126 + 0.032·80 + 0.0044·13)/1000 s."""
    r = replica(LLAMA_70B, tensor_parallel=4, overhead_fixed_ms=0.126, overhead_per_layer_ms=0.032,
                overhead_per_sequence_ms=0.0044)
    ar13 = 160 * (8e-6 + 1.5 * 13 * 8192 * 2 / 450e9)
    tau13 = (0.126 + 0.032 * 80 + 0.0044 * 13) / 1000
    step_bytes = 34_751_516_672 + 12.1 * 1250 * 81_920
    got = r.calibration(latency_sum_s=3630, duration_s=300, mean_prompt_tokens=1000, mean_output_tokens=500,
                        median_ttft_ms=1000, median_tpot_ms=30)
    assert got["mean_concurrency"] == pytest.approx(12.1) and got["clients"] == 12
    assert got["implied_bandwidth_efficiency"] == pytest.approx(step_bytes / (3.35e12 * (0.030 - ar13 - tau13)))


def test_from_catalog_parts_takes_section_six_defaults():
    serving = SimpleNamespace(users=32, sequence_length=8192, tensor_parallel=1)  # prompt_tokens: a quarter
    bf16, fp8 = catalog.PRECISIONS["bf16"], catalog.PRECISIONS["fp8"]
    r = sv.Replica.of(model=catalog.MODELS["llama-3.1-8b"], gpu=catalog.GPUS["h100-sxm"], weight=bf16, kv=bf16,
                      serving=serving, price_per_gpu_hour=2.00)
    assert (r.s, r.o, r.b_max) == (2048, 6144, 52)
    two = SimpleNamespace(users=32, sequence_length=8192, tensor_parallel=2)
    r = sv.Replica.of(model=catalog.MODELS["llama-3.1-70b"], gpu=catalog.GPUS["h100-sxm"], weight=fp8, kv=fp8,
                      serving=two, price_per_gpu_hour=2.00)
    assert (r.p_e, r.kv_g, r.b_max) == (1979e12, 81_920, 54)


def test_a_replicas_terms_are_reckoned_once_and_a_changed_replica_reckons_its_own():
    """The passes read the replica's terms (Ψ_mm, KV_g, the width, B_max) thousands of times in a Fleet search or the
    accuracy ledger: a frozen replica reckons each once (it was each time, half of a fleet's compute). A replica at
    other lengths is another replica with its own: Llama 3.1 8B's KV_g is 2·32·8·128·2 = 131,072 bytes a token on
    both, and B_max follows the sequence length, INT(pool / ((s + o)·KV_g))."""
    r = replica(users=32, sequence_length=4096)
    assert r.target is r.target and r.kv_g is r.kv_g and r.b_max == r.b_max
    assert float(r.kv_g) == 2 * 32 * 8 * 128 * 2
    longer = r.at_run(prompt_tokens=8192, output_tokens=8192)  # 16,384 tokens a sequence: 4 × 4,096
    assert longer.target is not r.target and float(longer.kv_g) == float(r.kv_g)
    assert longer.b_max == r.b_max // 4 and r.b_max > 4
