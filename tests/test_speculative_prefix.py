"""Speculative decoding and prefix caching in the roofline (docs/method.md §12.2 and §12.3), against the worked
numbers: s = 2048, o = 6144, η_c 0.5, η_m 0.7, r 0.10, τ 0 unless a case says otherwise."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from planner import shipped
from planner.model import passes
from planner.model.replica import Replica

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

BF16, FP8 = shipped.PRECISIONS["bf16"], shipped.PRECISIONS["fp8"]


def replica(model: str, gpu: str, precision, t: int, sequence=8192, prompt=2048, **knobs) -> Replica:
    serving = SimpleNamespace(users=32, sequence_length=sequence, prompt_tokens=prompt, tensor_parallel=t)
    g = shipped.GPUS[gpu]
    return replace(Replica.of(model=shipped.MODELS[model], gpu=g, weight=precision, kv=precision, serving=serving,
                              price_per_gpu_hour=g.price_per_hour), **knobs)


def ms(seconds) -> float:
    return float(seconds) * 1000


def tokens_per_s(r: Replica, batch: int) -> float:
    return r.at(batch)["tokens_per_s_per_gpu"]


# §12.3 Prefix caching -------------------------------------------------------------------------------------------
def test_a_half_cached_prompt_on_8b_bf16_one_h100():
    plain, cached = replica("llama-3.1-8b", "h100-sxm", BF16, 1), \
        replica("llama-3.1-8b", "h100-sxm", BF16, 1, prefix_hit_rate=0.5)
    # FLOPs 2·7.5049e9·1024 + 32·(2048² − 1024²)·8192 = 1.6195e13
    assert cached.prefill_flops() == pytest.approx(2 * 7_504_924_672 * 1024 + 32 * (2048**2 - 1024**2) * 8192)
    assert round(cached.prefill_flops() / 1e13, 4) == 1.6195
    assert (round(ms(plain.ttft_s()), 2), round(ms(cached.ttft_s()), 2)) == (64.39, 32.75)
    assert (round(float(plain.prefill_s(52)), 3), round(float(cached.prefill_s(52)), 3)) == (3.348, 1.703)
    assert (round(float(plain.cycle_s(52)), 2), round(float(cached.cycle_s(52)), 2)) == (134.11, 132.46)
    assert (round(tokens_per_s(plain, 52), 1), round(tokens_per_s(cached, 52), 1)) == (2382.4, 2412.0)
    assert cached.b_max == plain.b_max == 52  # each sequence still reserves s + o


def test_a_long_shared_prefix_on_70b_fp8_two_h100():
    # Fleet example 2(b): s 8000, o 200; at h 0.8 TTFT 652.20 → 138.25 ms and ITL(9) 48.00 → 24.87 ms
    plain = replica("llama-3.1-70b", "h100-sxm", FP8, 2, sequence=8200, prompt=8000)
    cached = replace(plain, prefix_hit_rate=0.8)
    assert (round(ms(plain.ttft_s()), 2), round(ms(cached.ttft_s()), 2)) == (652.20, 138.25)
    assert (round(plain.at(9)["itl_ms"], 2), round(cached.at(9)["itl_ms"], 2)) == (48.00, 24.87)


def test_a_long_shared_prefix_makes_the_retrieval_fleet_aggregated():
    """§12.3's worked example in §11: example 2(b) (70B FP8 on H100 or H200, s 8000, o 200, 5 requests/s) at h 0.8:
    the cheapest becomes aggregated H100 t 2, B 34, n 2, 6 GPUs, $12.00 per hour (from disaggregated $28.00),
    $3.333 per million output tokens."""
    from planner.engine import compute
    from tests.conftest import ROOT
    from tests.helpers import scenario_with

    retrieval = ROOT / "examples" / "fleet-2b-70b-fp8-retrieval.yaml"
    assert compute(scenario_with(retrieval)).fleet.headline["fleet_cheapest_cost_per_hour"] == 28.0
    best = compute(scenario_with(retrieval, **{"serving.prefix_hit_rate": 0.8})).fleet.cheapest
    assert (best["mode"], best["gpu"], best["tensor_parallel"], best["batch"], best["replicas"], best["gpus"]) == \
        ("aggregated", "h100-sxm", 2, 34, 2, 6)
    assert best["cost_per_hour"] == 12.0 and round(best["cost_per_million_tokens"], 3) == 3.333


# §12.2 Speculative decoding -------------------------------------------------------------------------------------
@pytest.mark.parametrize("k, alpha, expected", [(1, 0.85, 1.8500), (3, 0.7, 2.5330), (4, 0.7, 2.7731), (2, 1.0, 3)])
def test_tokens_per_verify_step(k, alpha, expected):
    assert round(float(passes.tokens_per_verify_step(k, alpha)), 4) == expected


def test_self_drafting_mtp_on_deepseek_v3_fp8_eight_h200():
    plain = replica("deepseek-v3", "h200", FP8, 8)
    mtp = replace(plain, speculative="mtp", draft_tokens=1, acceptance=0.85)
    draft = mtp.draft
    assert draft.params == 11_507_286_016 + 2 * 7168**2 == 11_610_046_464  # one MoE layer and the 2h×h projection
    assert draft.multiplied == 585_318_400 + 102_760_448 + 926_679_040 == 1_614_757_888
    assert (round(plain.w_g / 1e9, 2), round(mtp.w_g / 1e9, 2)) == (83.88, 85.33)
    assert (plain.kv_held, draft.kv_per_token, mtp.kv_held) == (35_136, 576, 35_712)
    assert (plain.b_max, mtp.b_max) == (149, 142)
    assert (round(ms(plain.ttft_s()), 2), round(ms(mtp.ttft_s()), 2)) == (39.86, 40.96)
    # B = 1: plain 2.40 ms; draft pass 0.077, verify over 2 tokens 3.14, step 3.22, TPOT 3.22/1.85 = 1.74 ms
    assert round(ms(plain.tpot_s(1)), 2) == 2.40
    assert round(ms(mtp._decode(1, draft)), 3) == 0.077
    assert round(ms(mtp._decode(1, mtp.target, 2)), 2) == 3.14
    assert (round(ms(mtp.step_s(1)), 2), round(ms(mtp.tpot_s(1)), 2)) == (3.22, 1.74)
    # B = 142: plain 34.21; verify 35.44, step 36.06, TPOT 19.49
    assert round(ms(plain.tpot_s(142)), 2) == 34.21
    assert round(ms(mtp._decode(142, mtp.target, 2)), 2) == 35.44
    assert (round(ms(mtp.step_s(142)), 2), round(ms(mtp.tpot_s(142)), 2)) == (36.06, 19.49)
    # each at its own B_max: 524.5 → 874.2 tokens/s per GPU, $1.324 → $0.794 per million
    plain_max, mtp_max = plain.at(plain.b_max), mtp.at(mtp.b_max)
    assert (round(plain_max["tokens_per_s_per_gpu"], 1), round(mtp_max["tokens_per_s_per_gpu"], 1)) == (524.5, 874.2)
    assert (round(plain_max["cost_per_million_tokens"], 3), round(mtp_max["cost_per_million_tokens"], 3)) == \
        (1.324, 0.794)


def test_a_draft_model_llama_8b_for_70b_fp8_on_two_h100():
    plain = replica("llama-3.1-70b", "h100-sxm", FP8, 2)
    spec = replace(plain, speculative="draft", draft_tokens=4, acceptance=0.7,
                   draft_model=shipped.MODELS["llama-3.1-8b"])
    assert (round(plain.w_g / 1e9, 2), round(spec.w_g / 1e9, 2)) == (35.28, 39.29)
    assert (plain.kv_held, spec.kv_held) == (81_920, 114_688)
    assert (plain.b_max, spec.b_max) == (54, 34)
    assert (round(ms(plain.ttft_s()), 2), round(ms(spec.ttft_s()), 2)) == (159.84, 178.83)
    assert (round(float(plain.prefill_s(34)), 3), round(float(spec.prefill_s(34)), 3)) == (5.392, 6.021)
    # B = 1: plain 16.28; draft 2.185 ms × 4 (its all-reduces at h_d 4,096); verify 16.31; step 25.05; TPOT 9.03
    assert round(ms(plain.tpot_s(1)), 2) == 16.28
    assert round(ms(spec._decode(1, spec.draft)), 3) == 2.185
    assert round(ms(spec._decode(1, spec.target, 5)), 2) == 16.31
    assert (round(ms(spec.step_s(1)), 2), round(ms(spec.tpot_s(1)), 2)) == (25.05, 9.03)
    # B = 34: plain 22.38; step 41.51; TPOT 14.97
    assert (round(ms(plain.tpot_s(34)), 2), round(ms(spec.step_s(34)), 2), round(ms(spec.tpot_s(34)), 2)) == \
        (22.38, 41.51, 14.97)
    assert (round(plain.at(54)["tokens_per_s_per_gpu"], 1), round(spec.at(34)["tokens_per_s_per_gpu"], 1)) == \
        (983.0, 1066.0)
    assert (round(plain.at(54)["cost_per_million_tokens"], 3), round(spec.at(34)["cost_per_million_tokens"], 3)) \
        == (0.565, 0.521)


def test_a_one_layer_draft_head_on_8b_fp8_short_prompts_pays_only_at_small_batches():
    plain = replica("llama-3.1-8b", "h100-sxm", FP8, 1, sequence=768, prompt=512)
    spec = replace(plain, speculative="mtp", draft_tokens=3, acceptance=0.7)
    assert (plain.b_max, spec.b_max) == (1270, 1227)

    def speedup(b):
        return float(plain.tpot_s(b) / spec.tpot_s(b))

    assert round(speedup(1), 2) == 1.93 and round(speedup(64), 2) == 2.02 and round(speedup(256), 2) == 1.14
    verify = spec.target
    flops = passes.decode_flops(verify.multiplied, verify.layers, spec.c_bar, verify.width, 64, 4)
    assert round(ms(spec.decode_bytes(64, verify, 4) / spec.bw_e), 3) == 4.345
    assert round(ms(flops / (spec.p_e * spec.compute_efficiency)), 3) == 3.970
    assert round(ms(spec._decode(256, verify, 4)), 3) == 15.880
    # break-even at B 378: 9.961 ms plain, 9.965 speculative
    assert (round(ms(plain.tpot_s(378)), 3), round(ms(spec.tpot_s(378)), 3)) == (9.961, 9.965)
    assert round(speedup(1227), 2) == 0.78


# The Serving sheet -----------------------------------------------------------------------------------------------
@pytest.mark.spreadsheet
@pytest.mark.parametrize("application", ["libreoffice", "gnumeric"])
def test_the_serving_sheet_follows_speculation_and_the_prefix_cache(application, request, tmp_path):
    """DeepSeek-V3 with MTP and a half-cached prompt, recalculated in each application; copies switched to a draft
    model, to no speculation and to no cached prefix recalculate to the engine run on the edited scenario."""
    from planner.engine import compute
    from planner.workbook import build
    from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

    app = request.getfixturevalue(application)
    mtp = scenario_with(name="mtp", model="deepseek-v3", gpu="h200", serving={
        "tensor_parallel": 8, "weight_precision": "fp8", "kv_precision": "fp8", "users": 64,
        "prefix_hit_rate": 0.5, "speculative": {"method": "mtp", "tokens": 1, "acceptance": 0.85}})
    original = tmp_path / "mtp.xlsx"
    book = build(compute(mtp), str(original))
    changes = {"none": ({"serving_speculative_method": "none", "serving_speculative_tokens": None,
                         "serving_speculative_acceptance": None},
                        {"serving.speculative": {"method": "none"}}),
               "no prefix": ({"serving_prefix_hit_rate": 0}, {"serving.prefix_hit_rate": 0}),
               "two layers": ({"serving_speculative_draft_layers": 2}, {"serving.speculative.draft_layers": 2})}
    copies = []
    for i, (cells, _) in enumerate(changes.values()):
        copies.append(tmp_path / f"changed-{i}.xlsx")
        set_cells(original, copies[-1], cells)
    outputs = recalculated(app, [original] + copies, [None] + [
        build_in_memory(scenario_with(mtp, **keys), like=copy) for copy, (_, keys) in zip(copies, changes.values())])
    # by hand (§12.2): MTP holds 576 more KV bytes per token, so B_max 149 → 142; without it, 149
    assert named(outputs[0], book, "serving_max_concurrency") == 142
    assert named(outputs[1], book, "serving_max_concurrency") == 149
    assert named(outputs[0], book, "serving_tokens_per_step") == pytest.approx(1.85)


@pytest.mark.spreadsheet
def test_a_blank_draft_token_count_turns_its_check_false_and_serving_n_a(libreoffice, tmp_path):
    from planner.engine import compute
    from planner.workbook import build
    from planner.workbook.kit import NOT_AVAILABLE
    from tests.helpers import UNCOMPARED, named, recalculated, scenario_with, set_cells

    mtp = scenario_with(serving={"speculative": {"method": "mtp"}})
    original, blank = tmp_path / "mtp.xlsx", tmp_path / "blank.xlsx"
    book = build(compute(mtp), str(original))
    set_cells(original, blank, {"serving_speculative_tokens": None})
    values = recalculated(libreoffice, [blank], [UNCOMPARED])[0]
    assert named(values, book, "ok_serving_speculative_valid") is False
    assert named(values, book, "serving_tpot_ms") == NOT_AVAILABLE
    # capacity does not read k, so it is still a number; by hand, one MTP layer beside 8B: Ψ_d = 218,112,000 (a dense
    # layer) + 2·4096² = 251,666,432, so W_g = 2·(8,030,261,248 + Ψ_d); KV 131,072 + 131,072/32 bytes per token
    pool = 72e9 - 2 * (8_030_261_248 + 251_666_432)
    assert named(values, book, "serving_max_concurrency") == int(pool / (8192 * (131_072 + 4096))) == 50


# §14.6 in §12.2 and §12.3 (knobs given explicitly, so the module's zero overheads do not matter) -------------------
GENERIC = dict(overhead_fixed_ms=0.126, overhead_per_layer_ms=0.032, overhead_per_sequence_ms=0.0044,
               dispatch_ms_per_layer=0.8)


def test_a_cached_prefix_shortens_the_closed_loop_fill():
    """§14.6, §12.3: s_n = (1 − h)·s replaces s in p_s, κ, q and the fill's GEMMs; the attention is L·(s² − s_h²)·w
    and the KV term keeps j·s·KV_g. 8B BF16 on one H100, s 2,048, h 0.5, N 1,024: s_n 1,024, so p_s = 1 (2 without
    the cache), κ = INT(1,024/1,024) = 1; at c = 4, q = 1,024 + 3 = 1,027 tokens and
    F = 2·7,504,924,672·(1,024 + 3) + 32·(2,048² − 1,024²)·8,192 + 3·2·32·5,120·8,192."""
    r = replica("llama-3.1-8b", "h100-sxm", BF16, 1, prefix_hit_rate=0.5, prefill_token_budget=1024, **GENERIC)
    assert (r.prefill_passes, r.prompts_per_pass(4)) == (1, 1)
    assert replace(r, prefix_hit_rate=0).prefill_passes == 2
    flops, moved, tokens = r.fill_terms(1, 4)
    c_bar = 2048 + 6144 / 2
    assert tokens == 1027
    assert flops == pytest.approx(2 * 7_504_924_672 * 1027 + 32 * (2048 ** 2 - 1024 ** 2) * 8192
                                  + 3 * 2 * 32 * c_bar * 8192, rel=1e-12)
    assert moved == pytest.approx(2 * 7_504_924_672 + (2048 + 3 * c_bar) * 131_072, rel=1e-12)


def test_a_draft_pays_its_own_pass_overhead_and_dispatch():
    """§14.6, §12.2: the draft pass τ_pass(b) with L_d (an MTP head: L_d 1), the draft's prefill (τ + τ_L·L_d)
    only, the verify pass τ_pass(b); TTFT_med's dispatch δ·(L + L_d) = 0.8·33 = 26.4 ms."""
    r = replica("llama-3.1-8b", "h100-sxm", BF16, 1, speculative="mtp", **GENERIC)
    assert ms(r.overhead_s("draft", 16)) == pytest.approx(0.126 + 0.032 * 1 + 0.0044 * 16)
    assert ms(r.overhead_s("draft_prefill", 16)) == pytest.approx(0.032 * 1)
    assert ms(r.overhead_s("verify", 16)) == pytest.approx(0.126 + 0.032 * 32 + 0.0044 * 16)
    at = r.ttft_at(1)
    assert at["ttft_median_at_concurrency_ms"] - at["fill_one_ms"] == pytest.approx(0.8 * 33)
