"""METHOD.md §1 against numbers worked by hand (bytes written out, GB = 1e9 bytes)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.engine import memory as m
from planner.model import counts as parameters
from planner.engine import compute
from tests.helpers import scenario_with

PSI_8B = 8_030_261_248
PSI_70B = 70_553_706_496
PSI_405B = 405_853_388_800


@pytest.mark.parametrize("architecture, params", [
    ((128_256, 4096, 32, 8, 128, 14_336), PSI_8B),
    ((128_256, 8192, 80, 8, 128, 28_672), PSI_70B),
    ((128_256, 16384, 126, 8, 128, 53_248), PSI_405B),
])
def test_llama_parameter_counts_from_their_architectures(architecture, params):
    vocab, hidden, layers, kv_heads, head_dim, ffn = architecture
    assert parameters.total_params(vocab=vocab, hidden=hidden, layers=layers, heads=hidden // head_dim,
                                   kv_heads=kv_heads, head_dim=head_dim, ffn=ffn) == params


@pytest.mark.parametrize("layers, kib", [(32, 128), (80, 320), (126, 504)])
def test_kv_cache_per_token(layers, kib):
    # 2 (K, V) × L × 8 KV heads × 128 head dim × 2 bytes
    assert parameters.kv_bytes_per_token(layers, 8, 128) == kib * 1024


def test_seed_walkthrough_ddp_overflows():
    table = compute(scenario_with(**{"memory.strategy": "ddp"})).memory
    sel = table.selected
    assert sel["model_state_gb"] == pytest.approx(16 * PSI_8B / 1e9)  # 128.48 GB
    assert round(sel["model_state_gb"], 1) == 128.5
    assert sel["activations_gb"] == pytest.approx(34 * 8192 * 4096 * 32 / 1e9)  # 36.51 GB
    assert sel["total_gb"] == pytest.approx(164.991401984)
    assert sel["fits"] is False
    assert sel["headroom_gb"] == pytest.approx(80 - 164.991401984)


def test_seed_walkthrough_zero3_fits():
    sel = compute(scenario_with(**{"memory.strategy": "zero3"})).memory.selected
    assert sel["model_state_gb"] == pytest.approx(16.060522496)
    assert round(sel["activations_gb"], 1) == 36.5
    assert sel["total_gb"] == pytest.approx(52.567744512)
    assert sel["fits"] is True


def test_seed_walkthrough_32k_activations_dominate():
    sel = compute(scenario_with(**{"memory.sequence_length": 32768})).memory.selected
    assert sel["activations_gb"] == pytest.approx(146.028888064)
    assert sel["activations_gb"] > sel["model_state_gb"]
    assert sel["fits"] is False


def test_seed_walkthrough_checkpointing_brings_them_back():
    sel = compute(scenario_with(**{"memory.sequence_length": 32768,
                                        "memory.activation_checkpointing": True})).memory.selected
    # 32 layers × 2·32768·4096 bytes kept (8.59 GB) + 34·32768·4096 for the layer recomputed (4.56 GB)
    assert sel["activations_gb"] == pytest.approx(8.589934592 + 4.563402752)
    assert sel["total_gb"] == pytest.approx(29.21385984)  # + 16.06 GB of ZeRO-3 state: the seed's 29.2 GB
    assert sel["fits"] is True


def test_every_strategy_side_by_side():
    table = compute(scenario_with()).memory  # 8B on 8 GPUs, d = 8
    two_psi, twelve_psi = 2 * PSI_8B / 1e9, 12 * PSI_8B / 1e9
    expected = {  # (weights, gradients, optimizer)
        "ddp": (two_psi, two_psi, twelve_psi),
        "zero1": (two_psi, two_psi, twelve_psi / 8),
        "zero2": (two_psi, two_psi / 8, twelve_psi / 8),
        "zero3": (two_psi / 8, two_psi / 8, twelve_psi / 8),
    }
    for i, (w, g, o) in enumerate(expected.values()):
        t = table.training
        assert (t["weights_gb"][i], t["gradients_gb"][i], t["optimizer_gb"][i]) == pytest.approx((w, g, o))
    assert table.training["fits"][:4] == [False, False, True, True]  # 165.0, 80.7, 66.6, 52.6 GB against 80
    assert table.strategies == list(expected)


def test_fsdp_is_zero3():
    assert scenario_with(**{"memory.strategy": "fsdp"}).memory.strategy == "zero3"


def test_tensor_and_pipeline_parallel_70b():
    # 70B on 64 GPUs, t = 8, p = 2 → d = 4; ZeRO-1 shards only the optimizer state across the 4 replicas
    table = compute(scenario_with(**{
        "model": "llama-3.1-70b", "memory.gpus": 64, "memory.tensor_parallel": 8, "memory.pipeline_parallel": 2,
        "memory.strategy": "zero1"})).memory
    sel = table.selected
    assert table.scalars["data_parallel"] == 4
    assert sel["weights_gb"] == pytest.approx(8.819213312)  # 2Ψ/16 bytes
    assert sel["gradients_gb"] == pytest.approx(8.819213312)
    assert sel["optimizer_gb"] == pytest.approx(13.228819968)  # 12Ψ/16/4
    # activations: 80 layers × 34·8192·8192/8 bytes; p does not divide them (1F1B first stage)
    assert sel["activations_gb"] == pytest.approx(80 * 285_212_672 / 1e9)


def test_checkpointing_with_tensor_parallel_70b():
    sel = compute(scenario_with(**{
        "model": "llama-3.1-70b", "memory.gpus": 64, "memory.tensor_parallel": 8, "memory.pipeline_parallel": 2,
        "memory.activation_checkpointing": True})).memory.selected
    # 80 × 2·8192·8192/8 (each layer's input) + 34·8192·8192/8 (one layer recomputed)
    assert sel["activations_gb"] == pytest.approx((1_342_177_280 + 285_212_672) / 1e9)


def test_serving_memory_70b_on_four_gpus():
    table = compute(scenario_with(**{"model": "llama-3.1-70b", "serving.tensor_parallel": 4})).memory
    s = table.scalars
    assert s["kv_kib_per_token"] == 320 / 4  # KV_g: the 8 KV heads split over 4 GPUs
    assert s["serving_weights_gb"] == pytest.approx(35.276853248)  # 2Ψ/4
    assert s["serving_kv_gb"] == pytest.approx(32 * 8192 * 327_680 / 4 / 1e9)  # 21.47 GB
    assert s["serving_total_gb"] == pytest.approx(56.751689728)
    assert s["serving_fits"] is True


def test_serving_405b_does_not_fit_on_one_h100():
    s = compute(scenario_with(**{"model": "llama-3.1-405b"})).memory.scalars
    assert s["serving_weights_gb"] == pytest.approx(811.7067776)
    assert s["serving_fits"] is False


def test_functions_take_arrays_a_million_configurations_in_one_call():
    gpus = np.repeat([8, 16, 32, 64], 250_000)
    stage = np.tile([0, 1, 2, 3], 250_000)
    rows = m.training_memory_gb(params=PSI_8B, layers=32, hidden=4096, gpus=gpus, tensor_parallel=1,
                                pipeline_parallel=1, zero_stage=stage, sequence_length=8192, micro_batch=1,
                                checkpointing=False, capacity_gb=80)
    weights = rows["weights_gb"]
    assert weights.shape == (1_000_000,)
    assert weights[0] == pytest.approx(2 * PSI_8B / 1e9)  # ddp on 8
    assert weights[3] == pytest.approx(2 * PSI_8B / 8 / 1e9)  # zero3 on 8
    acts = m.moe_activations_gb(32, 0, 4096, 0, 0, 0, 0, np.array([8192, 32768]), 1, 1, np.array([False, True]))
    assert acts == pytest.approx([36.507222016, 13.153337344])
