"""Mixture-of-experts, latent attention and FP8 training through every table (docs/method.md §7, §8): the example
scenarios read from config.json, with the figures worked by hand from the method."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.engine import compute
from planner.scenario import load_scenario
from tests.helpers import scenario_with

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
MIXTRAL_PARAMS, MIXTRAL_ACTIVE = 46_702_792_704, 12_879_925_248  # §7's published check, 46.70 B / 12.88 B
DEEPSEEK_PARAMS, DEEPSEEK_ACTIVE = 671_026_404_352, 37_552_282_624  # 671.03 B / 37.55 B without the MTP layer


@pytest.fixture(scope="session")
def mixtral():
    return compute(load_scenario(EXAMPLES / "moe-1-mixtral-from-config-json.yaml"))


@pytest.fixture(scope="session")
def deepseek():
    return compute(load_scenario(EXAMPLES / "moe-2-deepseek-v3-fp8.yaml"))


def test_a_model_read_from_config_json_has_its_published_counts(mixtral):
    model = mixtral.scenario.chosen_model
    assert (model.id, model.params) == ("mixtral-8x7b-v0-1", MIXTRAL_PARAMS)
    assert mixtral.memory.headline["model_active_params"] == MIXTRAL_ACTIVE


def test_mixtral_memory_is_section_7s_worked_case(mixtral):
    # 64 H100, e = 8, ZeRO-1: 1.606 B non-expert params over d = 64, 5.637 B expert params over d_e = 8
    h = mixtral.memory.headline
    state = h["memory_weights_gb"] + h["memory_gradients_gb"] + h["memory_optimizer_gb"]
    assert round(state, 2) == 37.73
    assert h["memory_optimizer_gb"] == pytest.approx(12 * 1_605_636_096 / 64 / 1e9 + 12 * 5_637_144_576 / 8 / 1e9)
    assert h["memory_activations_gb"] == pytest.approx(32 * 1.073_873_7e9 / 1e9, rel=1e-6)  # 32 × 1.074 GB
    assert h["memory_serving_weights_gb"] == pytest.approx(2 * MIXTRAL_PARAMS / 2 / 1e9)  # every expert, t = 2


def test_training_and_serving_operations_count_active_parameters(mixtral):
    h = mixtral.headline
    assert h["hours_training_flops"] == pytest.approx(6 * MIXTRAL_ACTIVE * 2e12)  # C = 6·Ψ_active·T
    c = mixtral.crossover.scalars
    assert c["serving_flops_per_day"] == pytest.approx(2 * MIXTRAL_ACTIVE * c["tokens_per_day"])  # 2·Ψ_active·D


def test_deepseek_fp8_training_runs_at_the_fp8_peak(deepseek):
    # C = 6·37.55 B·14.8 T; H = C / (1,979 TFLOPS (H200 FP8) · 0.30 · 3600)
    flops = 6 * DEEPSEEK_ACTIVE * 14.8e12
    assert deepseek.headline["hours_gpu_hours"] == pytest.approx(flops / (1979e12 * 0.30 * 3600))
    assert deepseek.hours.checks["hours_fp8_peak_found"] is True


def test_deepseek_keeps_an_fp8_copy_of_its_weights(deepseek):
    # weights 2 + 1 bytes per parameter, sharded as the weights: ZeRO-1 leaves them whole on each of p = 16 stages
    mem = deepseek.memory
    non_expert = (DEEPSEEK_PARAMS - mem.scalars["routed_params"]) / 16
    expert = mem.scalars["routed_params"] / (16 * 64)
    assert mem.selected["fp8_weight_copy_gb"] == pytest.approx((non_expert + expert) / 1e9)
    assert mem.selected["weights_gb"] == pytest.approx(2 * (non_expert + expert) / 1e9)


def test_deepseek_routed_parameters_by_hand(deepseek):
    # Ψ_routed = L_moe·E·3·h·F_e = 58·256·3·7168·2048
    assert deepseek.memory.scalars["routed_params"] == 58 * 256 * 3 * 7168 * 2048


def test_mla_kv_cache_is_replicated_on_every_tensor_parallel_gpu(deepseek):
    # (512 + 64) · 1 byte (FP8) × 61 layers = 35,136 bytes per token, not divided by t = 8
    assert deepseek.serving.headline["serving_kv_bytes_per_token"] == 35_136
    kv = deepseek.memory.headline["memory_serving_kv_gb"]
    assert kv == pytest.approx(32 * 32768 * 35_136 / 1e9)


def test_an_a100_has_no_fp8_peak_and_a_check_says_so():
    tables = compute(scenario_with(**{"gpu": "a100-80gb", "training_precision": "fp8"}))
    assert tables.hours.checks["hours_fp8_peak_found"] is False
    assert tables.hours.scalars["peak_tflops"] == 312  # its BF16 peak stands in


def test_expert_parallel_must_divide_the_experts():
    from planner.scenario import ScenarioError

    with pytest.raises(ScenarioError, match="expert parallel 3 does not fit mixtral-8x7b"):
        scenario_with(**{"model": "mixtral-8x7b", "memory.gpus": 24, "memory.expert_parallel": 3})
    with pytest.raises(ScenarioError, match="llama-3.1-8b is dense: 1"):
        scenario_with(**{"memory.expert_parallel": 2})


@pytest.mark.spreadsheet
@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_switching_the_model_dropdown_between_dense_and_moe_follows_the_engine(app, request, default_workbook,
                                                                              example_files, tmp_path):
    """The default workbook (Llama 3.1 8B) switched to Mixtral-8x7B with e = 8 in its dropdown, and the Mixtral
    example switched to Llama 3.1 70B with e = 1: every formula cell recalculates to the engine on the switched
    scenario, in LibreOffice and Gnumeric; the parameter counts are the published ones and training operations
    follow the active count (6·Ψ_active·T)."""
    from planner import xlsx
    from tests.helpers import build_in_memory, named, recalculated, set_cells

    spreadsheet = request.getfixturevalue(app)
    example = EXAMPLES / "moe-1-mixtral-from-config-json.yaml"
    dense, moe = default_workbook, example_files(example)["xlsx"]  # as the session wrote them (conftest)
    book = xlsx.read(moe, cells=False)  # where each name points
    to_moe, to_dense = tmp_path / "to-moe.xlsx", tmp_path / "to-dense.xlsx"
    set_cells(dense, to_moe, {"model": "mixtral-8x7b", "memory_expert_parallel": 8})
    set_cells(moe, to_dense, {"model": "llama-3.1-70b", "memory_expert_parallel": 1})
    expected = [build_in_memory(scenario_with(**{"model": "mixtral-8x7b", "memory.expert_parallel": 8}), like=to_moe),
                build_in_memory(scenario_with(example, **{"model": "llama-3.1-70b", "memory.expert_parallel": 1}),
                                like=to_dense)]
    switched_to_moe, switched_to_dense = recalculated(spreadsheet, [to_moe, to_dense], expected)
    assert named(switched_to_moe, expected[0], "model_params") == MIXTRAL_PARAMS
    assert named(switched_to_moe, expected[0], "model_active_params") == MIXTRAL_ACTIVE
    tokens = named(switched_to_moe, expected[0], "hours_tokens")
    assert named(switched_to_moe, expected[0], "hours_training_flops") == pytest.approx(6 * MIXTRAL_ACTIVE * tokens)
    assert named(switched_to_dense, expected[1], "model_active_params") == \
        named(switched_to_dense, expected[1], "model_params") == 70_553_706_496  # Llama 3.1 70B: Ψ_active = Ψ
    assert named(switched_to_dense, book, "model_params") == 70_553_706_496
