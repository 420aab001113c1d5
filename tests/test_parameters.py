"""Parameter counts, KV bytes and expert-parallel training memory (METHOD.md §7) against published figures and
numbers worked by hand from the method. The MoE models are read from their published config.json files
(tests/fixtures/configs, sources in its README) through the config reader, as `planner model` reads them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from planner.model import counts as P
from planner.engine import memory as M
from planner.engine.memory import STRATEGIES
from planner.model_config import read_config

CONFIGS = Path(__file__).parent / "fixtures" / "configs"


def model(name: str):
    return read_config(CONFIGS / name / "config.json")


def billions(count, places=2):
    return round(count / 1e9, places)


# §Catalog: the dense formula reproduces Meta's counts exactly ------------------------------------------------
LLAMA = {  # METHOD.md §Catalog: (Ψ, L, h, heads, kv heads, head dim, FFN, V)
    "llama-3.1-8b": (8_030_261_248, 32, 4096, 32, 8, 128, 14_336, 128_256),
    "llama-3.1-70b": (70_553_706_496, 80, 8192, 64, 8, 128, 28_672, 128_256),
    "llama-3.1-405b": (405_853_388_800, 126, 16384, 128, 8, 128, 53_248, 128_256),
}


@pytest.mark.parametrize("name", LLAMA)
def test_dense_formula_reproduces_the_catalog_counts_exactly(name):
    params, L, h, a, kv, hd, ffn, V = LLAMA[name]
    architecture = dict(layers=L, hidden=h, heads=a, kv_heads=kv, head_dim=hd, ffn=ffn, vocab=V)
    assert P.total_params(**architecture) == params
    assert P.active_params(**architecture) == params  # a dense model: Ψ_active = Ψ
    assert P.routed_params(**architecture) == 0


def test_counts_broadcast_over_arrays():
    params, L, h, a, kv, hd, ffn, V = zip(*LLAMA.values())
    counts = P.total_params(layers=np.array(L), hidden=np.array(h), heads=np.array(a), kv_heads=np.array(kv),
                            head_dim=np.array(hd), ffn=np.array(ffn), vocab=np.array(V))
    assert counts.tolist() == list(params)


def test_llama_3_1_8b_read_from_its_config_json_is_the_catalog_count():
    m = model("Llama-3.1-8B")
    assert m.params == 8_030_261_248 and m.active_params == 8_030_261_248


# §7's published checks, read from the published config.json files --------------------------------------------
def test_mixtral_8x7b_46_70_b_total_12_88_b_active():
    m = model("Mixtral-8x7B-v0.1")
    assert billions(m.params) == 46.70
    assert billions(m.active_params) == 12.88


def test_deepseek_v3_without_mtp_671_03_b_total_37_55_b_active():
    m = model("DeepSeek-V3")
    assert billions(m.params) == 671.03
    assert billions(m.active_params) == 37.55
    # DeepSeek's README_WEIGHTS: "Activation parameters: 36.6B (including 0.9B for the output Head)", i.e. without
    # the input embedding, a lookup: Ψ_active − V·h.
    assert billions(P.multiplied_params(m.active_params, 129_280, 7168), 1) == 36.6


def test_gpt_oss_20b_20_91_b_total_4_19_b_active_and_its_cards_3_6_b():
    m = model("gpt-oss-20b")
    assert billions(m.params) == 20.91
    assert billions(m.active_params) == 4.19
    assert billions(m.active_params - 201_088 * 2880, 1) == 3.6  # the model card's 3.6 B = Ψ_active − V·h


def test_qwen3_30b_a3b_cards_30_5_b_total_3_3_b_active():
    """Qwen's card: "30.5B in total and 3.3B activated", "29.9B non-embedding". The card cuts to one decimal
    rather than rounds (3.35 B active reads 3.3B), so each count must lie in the card's tenth of a billion."""
    m = model("Qwen3-30B-A3B")
    assert 30.5e9 <= m.params < 30.6e9
    assert 29.9e9 <= m.params - 2 * 151_936 * 2048 < 30.0e9
    assert 3.3e9 <= m.active_params < 3.4e9


@pytest.mark.parametrize("name", ["Llama-4-Scout-17B-16E", "Llama-4-Maverick-17B-128E"])
def test_llama_4_cards_17_b_active(name):
    # Meta's cards give 17B active for both; the totals (109B, 400B) include the vision encoder, which a
    # config.json's text_config does not describe, so they are not checked here.
    assert billions(model(name).active_params, 0) == 17


def test_llama_4_scout_attention_and_embedding_match_its_published_tensor_sizes():
    # A parameter dump of meta-llama/Llama-4-Scout-17B-16E: q_proj 26,214,400, k_proj 5,242,880, v_proj 5,242,880,
    # o_proj 26,214,400 per layer; embed_tokens 1,034,485,760.
    assert P.gqa_attention_params(5120, 40, 8, 128) == 26_214_400 * 2 + 5_242_880 * 2
    assert P.embedding_params(202_048, 5120, tied_embeddings=True) == 1_034_485_760


def test_llama_3_2_3b_ties_its_embeddings_3_21_b():
    m = model("Llama-3.2-3B")  # Meta's card: 3.21B; the output layer is the embedding, counted once
    assert m.fields["tied_embeddings"] is True
    assert billions(m.params) == 3.21


# Pieces, worked by hand --------------------------------------------------------------------------------------
def test_mla_attention_terms_by_hand():
    # DeepSeek-V3: h 7168, a 128, r_q 1536, r_kv 512, nope 128, rope 64, v 128
    by_hand = (7168 * 1536 + 1536 + 1536 * 128 * 192      # query down, its norm, query up
               + 7168 * 576 + 512                          # KV down (latent + RoPE key), its norm
               + 512 * 128 * 256 + 128 * 128 * 7168)       # K/V up, output
    assert by_hand == 187_107_328
    assert P.attention_params(7168, 128, 128, 192, 512, 1536, 128, 64, 128) == 187_107_328
    # without a query low rank (q_lora_rank 0, DeepSeek-V2-Lite's shape): h·a·(nope+rope) replaces the query path
    assert P.mla_attention_params(2048, 16, 0, 512, 128, 64, 128) == (
        2048 * 16 * 192 + 2048 * 576 + 512 + 512 * 16 * 256 + 16 * 128 * 2048)


def test_moe_layer_by_hand_mixtral():
    attention = 2 * 4096 * 32 * 128 + 2 * 4096 * 8 * 128  # 41,943,040
    assert P.moe_layer_params(attention, 4096, 8, 14336) == 41_943_040 + 8 * 3 * 4096 * 14336 + 4096 * 8 + 2 * 4096
    assert P.moe_layer_params(attention, 4096, 8, 14336, experts_counted=2) == (
        41_943_040 + 2 * 3 * 4096 * 14336 + 4096 * 8 + 2 * 4096)
    assert P.routed_params(layers=32, hidden=4096, experts=8, expert_ffn=14336) == 32 * 8 * 3 * 4096 * 14336


def test_gelu_ffn_has_two_matrices():
    assert P.dense_layer_params(0, 768, 3072, gated=False) == 2 * 768 * 3072 + 2 * 768
    assert P.dense_layer_params(0, 768, 3072, gated=True) == 3 * 768 * 3072 + 2 * 768


def test_tied_embeddings_count_v_h_once():
    assert P.embedding_params(32000, 4096, False) == 2 * 32000 * 4096
    assert P.embedding_params(32000, 4096, True) == 32000 * 4096


def test_moe_layers_default_to_every_layer_and_dense_layers_use_the_dense_ffn():
    fields = dict(layers=4, hidden=8, heads=2, kv_heads=2, head_dim=4, ffn=100, vocab=10, experts=4,
                  experts_per_token=1, expert_ffn=10)
    attention = 2 * 8 * 2 * 4 + 2 * 8 * 2 * 4  # 128
    moe = attention + 4 * 3 * 8 * 10 + 8 * 4 + 2 * 8  # 1,136
    dense = attention + 3 * 8 * 100 + 2 * 8  # 2,544
    assert P.total_params(**fields) == 2 * 10 * 8 + 8 + 4 * moe
    assert P.total_params(**fields, moe_layers=1) == 2 * 10 * 8 + 8 + 3 * dense + 1 * moe


# KV cache per token ------------------------------------------------------------------------------------------
def test_deepseek_v3_mla_kv_70272_bytes_per_token():
    assert P.kv_bytes_per_token(61, 128, 192, kv_lora_rank=512, qk_rope_head_dim=64) == 61 * 576 * 2 == 70_272
    assert model("DeepSeek-V3").kv_bytes_per_token == 70_272


def test_gqa_kv_128_320_504_kib_for_llama():
    assert [P.kv_bytes_per_token(L, kv, hd) / 1024 for _, L, _, _, kv, hd, _, _ in LLAMA.values()] == [128, 320, 504]


def test_kv_bytes_at_another_precision():
    assert P.kv_bytes_per_token(32, 8, 128, kv_bytes=1) == 64 * 1024


# Expected distinct experts and streamed parameters -----------------------------------------------------------
def test_expected_distinct_experts_by_hand():
    assert P.expected_experts(8, 2, 1) == pytest.approx(2)  # one token touches its k experts
    assert P.expected_experts(8, 2, 2) == pytest.approx(8 * (1 - 0.75 ** 2))  # 3.5
    assert P.expected_experts(8, 2, 10_000) == pytest.approx(8)  # a big batch touches them all
    assert P.expected_experts(0, 0, 100) == 0  # dense
    assert P.expected_experts(np.array([8, 0]), np.array([2, 0]), 2).tolist() == pytest.approx([3.5, 0])


def test_streamed_params_go_from_the_active_experts_to_all_of_them():
    m = model("Mixtral-8x7B-v0.1")
    mm = P.multiplied_params(m.active_params, 32000, 4096)
    one = P.streamed_params(mm, 1, 4096, 8, 2, 14336, moe_layers=32)
    many = P.streamed_params(mm, 100_000, 4096, 8, 2, 14336, moe_layers=32)
    assert one == pytest.approx(m.active_params - 32000 * 4096)  # one token: Ψ_mm
    assert many == pytest.approx(m.params - 32000 * 4096)  # every expert: Ψ less the input embedding


# Training memory with expert parallelism ---------------------------------------------------------------------
MIXTRAL_64 = dict(layers=32, moe_layers=32, hidden=4096, experts=8, experts_per_token=2, expert_ffn=14336,
                  shared_expert_ffn=0, gpus=64, tensor_parallel=1, pipeline_parallel=1, expert_parallel=8,
                  sequence_length=4096, micro_batch=1, checkpointing=False, capacity_gb=80)


def mixtral_memory(**changes):
    m = model("Mixtral-8x7B-v0.1")
    return M.training_memory_gb(**{"params": m.params, "routed": m.routed_params, "zero_stage": 1,
                                       **MIXTRAL_64, **changes})


def test_mixtral_on_64_h100_expert_parallel_8_zero1():
    """METHOD.md §7's worked case: 1.606 B non-expert and 5.637 B expert parameters per GPU; model state
    1.606·(2+2+12/64) + 5.637·(2+2+12/8) = 37.73 GB; one MoE layer's activations 1.074 GB."""
    rows = mixtral_memory()
    assert rows["data_parallel"] == 64 and rows["expert_data_parallel"] == 8
    assert billions(rows["non_expert_params_per_gpu"], 3) == 1.606
    assert billions(rows["expert_params_per_gpu"], 3) == 5.637
    assert round(float(rows["model_state_gb"]), 2) == 37.73
    assert round(1.606 * (2 + 2 + 12 / 64) + 5.637 * (2 + 2 + 12 / 8), 2) == 37.73  # the method's own arithmetic
    one_layer = M.moe_layer_activations_gb(4096, 1, 4096, 8, 2, 14336, 0, 1)
    assert round(float(one_layer), 3) == 1.074  # 4096·(18·4096 + 2·(2·4096 + 6·14336) + 4·8) bytes
    assert float(rows["activations_gb"]) == pytest.approx(32 * 4096 * 262_176 / 1e9)


def test_expert_state_is_sharded_over_the_expert_data_parallel_degree():
    rows = mixtral_memory(zero_stage=3)
    # ZeRO-3: non-expert 16·1.6056e9/64, expert 16·5.6371e9/8 (2 + 2 + 12 bytes over d and d_e)
    assert float(rows["model_state_gb"]) == pytest.approx(16 * 1_605_636_096 / 64 / 1e9 + 16 * 5_637_144_576 / 8 / 1e9)


def test_fp8_adds_one_byte_per_parameter_sharded_as_the_weights():
    zero1 = mixtral_memory(fp8=True)
    assert float(zero1["fp8_weight_copy_gb"]) == pytest.approx((1_605_636_096 + 5_637_144_576) / 1e9)
    zero3 = mixtral_memory(fp8=True, zero_stage=3)
    assert float(zero3["fp8_weight_copy_gb"]) == pytest.approx(1_605_636_096 / 64 / 1e9 + 5_637_144_576 / 8 / 1e9)
    assert float(mixtral_memory()["fp8_weight_copy_gb"]) == 0  # BF16 training keeps no FP8 copy
    assert float(zero1["gradients_gb"]) == float(mixtral_memory()["gradients_gb"])  # gradients unchanged


def test_checkpointing_keeps_each_layers_input_plus_the_largest_layer():
    rows = mixtral_memory(checkpointing=True)
    kept = 32 * 2 * 4096 * 4096 / 1e9
    assert float(rows["activations_gb"]) == pytest.approx(kept + 4096 * 262_176 / 1e9)
    # a mixed model: the larger of the dense layer (34·s·b·h) and the MoE layer is recomputed
    mixed = M.moe_activations_gb(4, 1, 4096, 8, 2, 14336, 0, 4096, 1, 1, True)
    assert float(mixed) == pytest.approx(4 * 2 * 4096 * 4096 / 1e9 + max(34, 262_176 / 4096) * 4096 * 4096 / 1e9)


def test_a_dense_model_gives_section_1s_seed_walk_through():
    """§1: 8B on 8 H100, s = 8192: DDP → 128.5 GB of model state; ZeRO-3 → 16.06 GB state + 36.5 GB
    activations; s = 32,768 with checkpointing → 8.6 + 4.6 GB activations, total ≈ 29.2 GB."""
    base = dict(params=8_030_261_248, routed=0, layers=32, moe_layers=0, hidden=4096, experts=0,
                experts_per_token=0, expert_ffn=0, shared_expert_ffn=0, gpus=8, tensor_parallel=1,
                pipeline_parallel=1, expert_parallel=1, sequence_length=8192, micro_batch=1, checkpointing=False,
                capacity_gb=80)
    ddp = M.training_memory_gb(**base, zero_stage=STRATEGIES["ddp"])
    assert round(float(ddp["model_state_gb"]), 1) == 128.5
    zero3 = M.training_memory_gb(**base, zero_stage=STRATEGIES["zero3"])
    assert round(float(zero3["model_state_gb"]), 2) == 16.06
    assert round(float(zero3["activations_gb"]), 1) == 36.5
    long = M.training_memory_gb(**{**base, "sequence_length": 32768, "checkpointing": True},
                                    zero_stage=STRATEGIES["zero3"])
    assert round(float(long["activations_gb"]), 1) == round(8.6 + 4.6, 1)
    assert round(float(long["total_gb"]), 1) == 29.2


def test_memory_rows_broadcast_over_strategies():
    rows = mixtral_memory(zero_stage=np.array([0, 1, 2, 3]))
    assert rows["optimizer_gb"].shape == (4,)
    assert rows["optimizer_gb"][0] > rows["optimizer_gb"][1]  # ZeRO-1 shards the optimizer state
    assert rows["weights_gb"][2] > rows["weights_gb"][3]  # only ZeRO-3 shards the weights
