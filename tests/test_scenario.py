"""Scenario files: defaults, catalog ids or custom entries, and bad input that exits 2 naming file, line, key and
what is allowed, writing nothing."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from click.testing import CliRunner

from planner.cli import main
from planner.scenario import DEFAULT, ScenarioError, load_scenario
from tests.conftest import EXAMPLES, ROOT
from tests.helpers import refused


@pytest.mark.parametrize("text, expected", [
    ("name: x\nmemory: {gpus: 8\n", ["scenario.yaml:3:", "YAML syntax error"]),
    ("name: x\nmemory:\n  gpuz: 8\n", ["scenario.yaml:3:", "memory.gpuz", "unknown key", "did you mean 'gpus'",
                                      "allowed here: gpus, strategy"]),
    ("name: x\nmemory:\n  gpus: eight\n", ["scenario.yaml:3:", "memory.gpus", "'eight'", "valid integer"]),
    ("name: x\nmemory:\n  gpus: 0\n", ["scenario.yaml:3:", "memory.gpus", "value 0", "greater than or equal to 1"]),
    ("name: x\nserving:\n  users: -4\n", ["scenario.yaml:3:", "serving.users", "value -4"]),
    ("name: x\nmemory:\n  gpus: 12\n  tensor_parallel: 8\n",
     ["scenario.yaml:2:", "memory", "gpus 12", "tensor_parallel 8", "pipeline_parallel 1", "whole number"]),
    ("name: x\nmodel: llama-3.1-8c\n", ["scenario.yaml:2:", "model", "did you mean 'llama-3.1-8b'",
                                        "llama-3.1-70b"]),
    ("name: x\nmemory: {strategy: zero4}\n", ["scenario.yaml:2:", "memory.strategy", "'ddp', 'zero1'"]),
    ("description: no name\n", ["scenario.yaml", "name: required key is missing"]),
    ("- a list\n", ["scenario.yaml", "must be a mapping"]),
    ("name: x\nmodel: {name: m, layers: 2}\n", ["scenario.yaml:2:", "model: a new model needs hidden, heads"]),
    ("name: x\nmemory: {gpus: 8}\nmemory: {gpus: 4}\n", ["scenario.yaml:3:", "memory: key given twice"]),
])
def test_bad_input_exits_2_with_a_clear_message_and_writes_nothing(tmp_path, text, expected):
    output, _ = refused(tmp_path, text)
    for fragment in expected:
        assert fragment in output


def test_every_problem_is_reported_at_once(tmp_path):
    output, _ = refused(tmp_path, "name: x\nmemory:\n  gpus: 0\n  micro_batch: 0\n")
    assert "memory.gpus" in output and "memory.micro_batch" in output
    assert "scenario.yaml:3:" in output and "scenario.yaml:4:" in output


def test_real_command_exit_code(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhours: {mfu: 1.5}\n")
    done = subprocess.run([sys.executable, "-m", "planner", "run", str(bad), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 2
    assert f"{bad}:2: hours.mfu: value 1.5" in done.stderr
    assert not (tmp_path / "out").exists()


def test_missing_file_is_bad_input(tmp_path):
    result = CliRunner().invoke(main, ["run", str(tmp_path / "nope.yaml"), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2
    assert "cannot read the file" in result.output


def test_defaults_are_methods():
    s = load_scenario(ROOT / "examples" / "default.yaml")
    assert s.normalised() == DEFAULT.normalised()
    assert (s.model, s.gpu, s.gpu_price) == ("llama-3.1-8b", "h100-sxm", 2.0)
    assert (s.memory.gpus, s.memory.strategy, s.memory.sequence_length) == (8, "zero3", 8192)
    assert (s.serving.users, s.serving.sequence_length, s.serving.tensor_parallel) == (32, 8192, 1)
    assert (s.hours.tokens, s.hours.mfu, s.hours.gpus) == (15.6e12, 0.40, 1024)


def test_serving_sequence_length_defaults_to_training(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: x\nmemory: {sequence_length: 4096}\n")
    assert load_scenario(path).serving.sequence_length == 4096


def test_yaml_numbers_in_exponent_form(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: x\nhours: {tokens: 15.6e12}\ncrossover: {tokens_per_day: 1e9}\n")
    s = load_scenario(path)
    assert s.hours.tokens == 15.6e12 and s.crossover.tokens_per_day == 1e9


def test_custom_model_params_from_architecture(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("name: x\nmodel: {name: tiny, layers: 2, hidden: 64, heads: 4, kv_heads: 2, ffn: 128, "
                    "vocab: 1000}\n")
    model = load_scenario(path).chosen_model
    # 2·1000·64 + 2·(2·64·64 + 2·64·2·16 + 3·64·128 + 2·64) + 64, head_dim = 64/4 = 16
    assert model.head_dim == 16
    assert model.params == 128_000 + 2 * (8192 + 4096 + 24_576 + 128) + 64


def test_examples_are_valid():
    assert len(EXAMPLES) >= 6
    for path in EXAMPLES:
        load_scenario(path)


def test_schema_and_catalog_commands():
    runner = CliRunner()
    schema = runner.invoke(main, ["schema"])
    assert schema.exit_code == 0
    properties = json.loads(schema.output)["properties"]
    assert {"name", "model", "gpu", "memory", "serving", "hours"} <= set(properties)
    listing = runner.invoke(main, ["catalog"])
    assert listing.exit_code == 0
    assert "llama-3.1-405b: params=405,853,388,800, layers=126," in listing.output
    assert "h200: memory_gb=141, peak_tflops=989, hbm_tbps=4.8, price_per_hour=2.5, fp8_tflops=1,979," in listing.output
    assert "deepseek-v3: " in listing.output and "kv_lora_rank=512, q_lora_rank=1,536," in listing.output  # MLA
    assert "  fp8: weight_bits=8, kv_bytes=1, fp8_gemm=true" in listing.output  # precisions are listed too
    assert "popular-app 1e+11" in listing.output


def test_scenario_error_lists_problems():
    with pytest.raises(ScenarioError) as error:
        load_scenario(ROOT / "no-such-file.yaml")
    assert error.value.problems
