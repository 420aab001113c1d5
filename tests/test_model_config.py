"""Reading a local Hugging Face config.json (METHOD.md §8): the published fixtures' fields as each file states them,
every edge case, and bad files refused with one line per problem naming the file, the line and the field."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest

from planner import model_config as mc
from planner import yamlfile
from planner.model_config import ConfigFileError, catalog_entry_yaml, read_config

CONFIGS = Path(__file__).parent / "fixtures" / "configs"
FIXTURES = sorted(p.parent.name for p in CONFIGS.glob("*/config.json"))
PUBLISHED = [name for name in FIXTURES if not name.startswith("edge-")]
PROBLEM = re.compile(r"^\S.*?(:\d+)?: [\w.]+: \S")  # file[:line]: field: what


def read(name: str):
    return read_config(CONFIGS / name / "config.json")


def refused(path) -> list[str]:
    with pytest.raises(ConfigFileError) as caught:
        read_config(path)
    problems = caught.value.problems
    assert problems and all("\n" not in p and "Traceback" not in p for p in problems)
    assert all(p.startswith(str(path)) for p in problems), problems
    return problems


def copy_config(tmp_path: Path, name: str, **changes) -> Path:
    """A fixture copied to tmp_path/<name>/config.json with top-level (or text_config.) keys changed; None removes."""
    data = json.loads((CONFIGS / name / "config.json").read_text())
    for key, value in changes.items():
        node, key = (data["text_config"], key[len("text_config."):]) if key.startswith("text_config.") else (data, key)
        if value is None:
            node.pop(key, None)
        else:
            node[key] = value
    folder = tmp_path / name
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(data, indent=2))
    return folder / "config.json"


# The published configs, field by field -----------------------------------------------------------------------
def test_mixtral_fields():
    m = read("Mixtral-8x7B-v0.1")
    assert m.fields == {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "head_dim": 128, "ffn": 14336,
                        "vocab": 32000, "tied_embeddings": False, "gated": True, "experts": 8,
                        "experts_per_token": 2, "expert_ffn": 14336, "shared_expert_ffn": 0, "moe_layers": 32,
                        "kv_lora_rank": 0, "q_lora_rank": 0, "qk_nope_head_dim": 0, "qk_rope_head_dim": 0,
                        "v_head_dim": 0}
    assert m.defaults == ["head_dim", "shared_expert_ffn", "moe_layers"]  # no head_dim in Mixtral's file: h/a
    assert m.id == "mixtral-8x7b-v0-1"


def test_deepseek_v3_fields_mla_shared_expert_and_first_dense_layers():
    m = read("DeepSeek-V3")
    f = m.fields
    assert (f["experts"], f["experts_per_token"], f["expert_ffn"]) == (256, 8, 2048)  # n_routed_experts
    assert f["shared_expert_ffn"] == 1 * 2048  # n_shared_experts · moe_intermediate_size
    assert f["moe_layers"] == 61 - 3  # first_k_dense_replace 3
    assert f["ffn"] == 18432  # the three dense layers' intermediate_size
    assert (f["kv_lora_rank"], f["q_lora_rank"], f["qk_nope_head_dim"], f["qk_rope_head_dim"], f["v_head_dim"]) == \
        (512, 1536, 128, 64, 128)
    assert f["kv_heads"] == 128 and m.kv_bytes_per_token == 70_272  # num_key_value_heads does not make the cache
    assert m.defaults == []


def test_gpt_oss_20b_head_dim_is_never_h_over_a():
    m = read("gpt-oss-20b")
    assert m.fields["head_dim"] == 64 and 2880 // 64 != 64  # h/a = 45
    assert (m.fields["experts"], m.fields["experts_per_token"], m.fields["expert_ffn"]) == (32, 4, 2880)
    assert m.kv_bytes_per_token == 2 * 24 * 8 * 64 * 2


def test_qwen3_moe_head_dim_decoder_sparse_step_and_no_shared_expert():
    m = read("Qwen3-30B-A3B")
    assert m.fields["head_dim"] == 128 and 2048 // 32 == 64  # given, so never h/a
    assert (m.fields["experts"], m.fields["expert_ffn"], m.fields["moe_layers"]) == (128, 768, 48)
    assert m.fields["shared_expert_ffn"] == 0 and "shared_expert_ffn" in m.defaults
    assert "moe_layers" not in m.defaults  # decoder_sparse_step 1, mlp_only_layers []


def test_qwen_mlp_only_layers_and_sparse_step(tmp_path):
    path = copy_config(tmp_path, "Qwen3-30B-A3B", decoder_sparse_step=2, mlp_only_layers=[1, 3, 4])
    # MoE where (i + 1) % 2 == 0 and i not in [1, 3, 4]: 24 odd-numbered layers less layers 1 and 3
    assert read_config(path).fields["moe_layers"] == 22


def test_qwen2_moe_shared_expert_intermediate_size(tmp_path):
    path = copy_config(tmp_path, "Qwen3-30B-A3B", shared_expert_intermediate_size=5632)
    assert read_config(path).fields["shared_expert_ffn"] == 5632


def test_llama_4_scout_reads_text_config_and_its_schedule():
    m = read("Llama-4-Scout-17B-16E")
    f = m.fields
    assert (f["layers"], f["hidden"], f["heads"], f["kv_heads"], f["head_dim"]) == (48, 5120, 40, 8, 128)
    assert f["ffn"] == 16384  # intermediate_size_mlp
    assert (f["experts"], f["experts_per_token"], f["expert_ffn"], f["shared_expert_ffn"]) == (16, 1, 8192, 8192)
    assert f["moe_layers"] == 48  # interleave_moe_layer_step 1 and its moe_layers list agree
    assert f["tied_embeddings"] is False and "tied_embeddings" not in m.defaults  # read from the top level
    assert f["vocab"] == 202048  # the text model's, not the vision encoder's


def test_llama_4_maverick_interleaves_moe_and_dense_layers():
    m = read("Llama-4-Maverick-17B-128E")
    assert m.fields["moe_layers"] == 24  # interleave_moe_layer_step 2: layers 1, 3, …, 47
    assert m.fields["experts"] == 128


def test_llama_4_interleave_without_a_list(tmp_path):
    path = copy_config(tmp_path, "Llama-4-Scout-17B-16E", **{"text_config.moe_layers": None,
                                                             "text_config.interleave_moe_layer_step": 4})
    assert read_config(path).fields["moe_layers"] == len(range(3, 48, 4)) == 12


def test_gpt2_gelu_names_and_ffn_default():
    m = read("gpt2")
    f = m.fields
    assert (f["layers"], f["hidden"], f["heads"], f["vocab"]) == (12, 768, 12, 50257)  # n_layer, n_embd, n_head
    assert f["gated"] is False  # activation_function gelu_new
    assert f["ffn"] == 4 * 768 and "ffn" in m.defaults  # n_inner absent
    assert f["kv_heads"] == 12 and "kv_heads" in m.defaults
    assert (f["head_dim"], "head_dim" in m.defaults) == (64, True)


def test_gpt2_untied_by_default_as_section_8_says():
    # GPT-2's output layer is its embedding, but its config.json omits tie_word_embeddings; §8 defaults it to
    # FALSE (transformers defaults it to TRUE), so the reader lists it among the defaults for the user to see
    m = read("gpt2")
    assert m.fields["tied_embeddings"] is False and "tied_embeddings" in m.defaults


def test_llama_3_2_tied_embeddings():
    m = read("Llama-3.2-3B")
    assert m.fields["tied_embeddings"] is True and "tied_embeddings" not in m.defaults


def test_falcon_multi_query_missing_head_dim_and_ffn():
    m = read("falcon-7b")
    f = m.fields
    assert f["kv_heads"] == 1 and "kv_heads" not in m.defaults  # multi_query: true
    assert f["head_dim"] == 4544 // 71 == 64 and "head_dim" in m.defaults
    assert f["ffn"] == 4 * 4544 and "ffn" in m.defaults
    assert m.kv_bytes_per_token == 2 * 32 * 1 * 64 * 2


def test_multi_query_false_means_every_head(tmp_path):
    path = copy_config(tmp_path, "falcon-7b", multi_query=False)
    assert read_config(path).fields["kv_heads"] == 71


def test_q_lora_rank_null_is_zero(tmp_path):
    path = copy_config(tmp_path, "DeepSeek-V3", q_lora_rank=None)  # removed: taken by default
    m = read_config(path)
    assert m.fields["q_lora_rank"] == 0 and "q_lora_rank" in m.defaults
    data = json.loads(path.read_text())
    data["q_lora_rank"] = None  # DeepSeek-V2-Lite writes null
    path.write_text(json.dumps(data))
    m = read_config(path)
    assert m.fields["q_lora_rank"] == 0 and "q_lora_rank" not in m.defaults


def test_every_published_fixture_reads(tmp_path):
    for name in PUBLISHED:
        m = read(name)
        assert set(m.fields) == set(mc.FIELDS)
        assert all(isinstance(v, (int, bool)) for v in m.fields.values()), name
        assert set(m.defaults) <= set(mc.FIELDS)


# The safetensors index beside the file -----------------------------------------------------------------------
def test_an_index_that_matches():
    for name, total in (("Llama-3.1-8B", 16_060_522_496), ("Mixtral-8x7B-v0.1", 93_405_585_408)):
        m = read(name)
        assert m.checkpoint["total_size"] == total
        assert m.checkpoint["within_tolerance"] is True
        assert m.checkpoint["difference"] == 0  # both are exactly Ψ × 2 bytes
        assert "within 2 %" in m.notes[-1]


def test_an_index_off_by_more_than_2_percent_is_reported():
    m = read("edge-index-off")  # an index twice Ψ × 2 bytes, as a float32 upload beside torch_dtype bfloat16
    assert m.checkpoint["within_tolerance"] is False
    assert m.checkpoint["difference"] == pytest.approx(1.0)
    assert "more than 2 %" in m.notes[-1] and "model.safetensors.index.json" in m.notes[-1]


def write_index(folder: Path, total) -> None:
    (folder / mc.INDEX_NAME).write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": {}}))


def test_the_2_percent_boundary(tmp_path):
    path = copy_config(tmp_path, "Llama-3.1-8B")
    write_index(path.parent, round(16_060_522_496 * 1.019))
    assert read_config(path).checkpoint["within_tolerance"] is True
    write_index(path.parent, round(16_060_522_496 * 0.979))
    assert read_config(path).checkpoint["within_tolerance"] is False


def test_an_fp8_checkpoint_is_compared_at_one_byte(tmp_path):
    path = copy_config(tmp_path, "DeepSeek-V3")
    write_index(path.parent, 671_026_404_352)  # Ψ × 1 byte
    checkpoint = read_config(path).checkpoint
    assert checkpoint["bytes_per_param"] == 1 and checkpoint["within_tolerance"] is True


def test_a_gptq_checkpoint_is_compared_at_its_bits(tmp_path):
    path = copy_config(tmp_path, "Llama-3.1-8B", quantization_config={"quant_method": "gptq", "bits": 4})
    write_index(path.parent, 8_030_261_248 // 2)
    assert read_config(path).checkpoint["bytes_per_param"] == 0.5


def test_an_mxfp4_checkpoint_is_not_compared_and_says_so(tmp_path):
    path = copy_config(tmp_path, "gpt-oss-20b")
    write_index(path.parent, 13_000_000_000)
    m = read_config(path)
    assert "total_size" not in m.checkpoint
    assert "not compared" in m.notes[-1] and "quantised" in m.notes[-1]


def test_a_bad_index_is_a_note_not_a_failure(tmp_path):
    path = copy_config(tmp_path, "Llama-3.1-8B")
    (path.parent / mc.INDEX_NAME).write_text("{ not json")
    assert "not compared" in read_config(path).notes[-1]
    (path.parent / mc.INDEX_NAME).unlink()
    write_index(path.parent, True)
    assert "not a positive number" in read_config(path).notes[-1]
    (path.parent / mc.INDEX_NAME).unlink()
    os.mkfifo(path.parent / mc.INDEX_NAME)
    assert "named pipe" in read_config(path).notes[-1]


# Edge cases: refused with one line per problem ---------------------------------------------------------------
def test_a_missing_required_field_names_the_file_and_the_field():
    path = CONFIGS / "edge-missing-vocab" / "config.json"
    assert refused(path) == [f"{path}: vocab_size: missing: the vocabulary size is required"]


def test_a_missing_field_inside_text_config(tmp_path):
    path = copy_config(tmp_path, "Llama-4-Scout-17B-16E", **{"text_config.hidden_size": None})
    problems = refused(path)
    assert problems == [f"{path}: text_config.hidden_size: missing (nor n_embd, d_model): the hidden size is"
                        " required"]


def test_head_dim_missing_and_hidden_not_divisible_by_heads():
    path = CONFIGS / "edge-head-dim-indivisible" / "config.json"
    [problem] = refused(path)
    assert problem.startswith(f"{path}: head_dim: missing: hidden size 1,000 is not divisible by"
                              " num_attention_heads 24")


def test_wrong_types_each_name_the_line_and_the_field():
    path = CONFIGS / "edge-wrong-types" / "config.json"
    problems = refused(path)
    expected = [  # line, field, what the file holds (edge-wrong-types/config.json, one key per line)
        (2, "num_hidden_layers", "true is a boolean"),
        (3, "hidden_size", '"4096" is text'),
        (4, "num_attention_heads", "32.5 is not a whole number"),
        (5, "num_key_value_heads", "-8 is out of range"),
        (6, "vocab_size", "Infinity is not a finite number"),
        (7, "intermediate_size", '"' + "x" * 79 + "… (202 characters) is text"),
        (8, "tie_word_embeddings", '"no" is text'),
        (9, "hidden_act", "7 is a number"),
    ]
    assert [p.split(": ", 2)[:2] for p in problems] == [[f"{path}:{line}", name] for line, name, _ in expected]
    for problem, (_, _, what) in zip(problems, expected):
        assert problem.split(": ", 2)[2].startswith(what), problem
    assert all(PROBLEM.match(p) for p in problems)


def test_a_value_is_quoted_to_80_characters():
    assert mc.show("y" * 500) == '"' + "y" * 79 + "… (502 characters)"
    assert mc.show(12) == "12"


@pytest.mark.parametrize("changes, field, what", [
    ({"num_key_value_heads": 7}, "num_key_value_heads", "7 key-value heads do not divide num_attention_heads 32"),
    ({"num_key_value_heads": 64}, "num_key_value_heads", "64 key-value heads do not divide"),
    ({"num_hidden_layers": 10**9}, "num_hidden_layers", "1,000,000,000 is out of range"),
    ({"num_hidden_layers": 0}, "num_hidden_layers", "0 is out of range"),
    ({"vocab_size": [1]}, "vocab_size", "[1] is a list"),
    ({"hidden_size": {"a": 1}}, "hidden_size", '{"a": 1} is an object'),
    ({"num_local_experts": 8}, "num_experts_per_tok", "missing"),
    ({"num_local_experts": 8, "num_experts_per_tok": 9}, "num_experts_per_tok", "9 is out of range"),
    ({"num_local_experts": True}, "num_local_experts", "true is a boolean"),
    ({"multi_query": "yes", "num_key_value_heads": None}, "multi_query", '"yes" is text'),
])
def test_wrong_values_are_refused(tmp_path, changes, field, what):
    problems = refused(copy_config(tmp_path, "Llama-3.1-8B", **changes))
    assert any(f": {field}: " in p and what in p for p in problems), problems


def test_mlp_only_layers_must_be_layer_indices(tmp_path):
    problems = refused(copy_config(tmp_path, "Qwen3-30B-A3B", mlp_only_layers=[0, 48]))
    assert any(": mlp_only_layers.1: 48 is out of range: each of mlp_only_layers is a whole number from 0 to 47"
               in p for p in problems), problems


def test_absurd_sizes_are_refused(tmp_path):
    path = copy_config(tmp_path, "Llama-3.1-8B", num_hidden_layers=10_000, hidden_size=10**6,
                       intermediate_size=10**7, num_attention_heads=10**4, num_key_value_heads=10**4)
    [problem] = refused(path)
    assert "more than 1e+15" in problem and "absurd" in problem


def test_nan_and_infinity_are_refused_where_read(tmp_path):
    folder = tmp_path / "nan"
    folder.mkdir()
    (folder / "config.json").write_text('{"num_hidden_layers": NaN, "hidden_size": 64, "num_attention_heads": 4,\n'
                                        ' "vocab_size": 10, "rope_theta": Infinity}')
    [problem] = refused(folder / "config.json")
    assert problem.startswith(f"{folder / 'config.json'}:1: num_hidden_layers: NaN is not a finite number")


# Bad files ---------------------------------------------------------------------------------------------------
def test_not_json(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{\n  "num_hidden_layers": 32,\n  "hidden_size" 4096\n}\n')
    assert refused(path) == [f"{path}:3: invalid JSON: Expecting ':' delimiter (column 17)"]


def test_a_folder(tmp_path):
    path = tmp_path / "config.json"
    path.mkdir()
    [problem] = refused(path)
    assert problem == f"{path}: not a regular file (a folder): a config.json must be a regular file"


def test_a_named_pipe_is_refused_without_blocking(tmp_path):
    path = tmp_path / "config.json"
    os.mkfifo(path)
    [problem] = refused(path)  # opened without blocking: no writer needed to get here
    assert "not a regular file (a named pipe)" in problem


def test_a_missing_file(tmp_path):
    [problem] = refused(tmp_path / "config.json")
    assert "cannot read the file" in problem


def test_too_large(tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(b" " * mc.MAX_BYTES + b"{}")
    [problem] = refused(path)
    assert "larger than 1 MB" in problem


def test_not_utf8_and_not_an_object(tmp_path):
    path = tmp_path / "config.json"
    path.write_bytes(b'{\n"a": "\xff"}')
    assert refused(path) == [f"{path}:2: not UTF-8 text (byte 0xff): a config.json is UTF-8 JSON"]
    path.write_text("[1, 2]")
    assert refused(path)[0].startswith(f"{path}:1: the top level is a list")


def test_a_key_given_twice(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"num_hidden_layers": 32,\n "num_hidden_layers": 2}')
    assert refused(path) == [f"{path}:2: num_hidden_layers: key given twice: give each key once"]


def test_a_hostile_key_stays_on_one_line(tmp_path):
    path = tmp_path / "config.json"
    key = "a\\nb" + "k" * 300
    path.write_text('{"%s": 1,\n "%s": 2}' % (key, key))
    [problem] = refused(path)
    # 80 = 5 + 75; 306 = 1 + 4 + 300 + 1
    assert problem.startswith(f'{path}:2: "a\\nb' + "k" * 75 + "… (306 characters): key given twice")


def test_nesting_too_deep(tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"a": ' * 25 + "1" + "}" * 25)
    assert "nested deeper than 20 levels" in refused(path)[0]
    path.write_text("[" * 100_000 + "]" * 100_000)  # deeper than the JSON parser's own recursion
    assert "nested deeper than 20 levels" in refused(path)[0]


def test_a_byte_order_mark_is_allowed(tmp_path):
    path = copy_config(tmp_path, "Llama-3.1-8B")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert read_config(path).params == 8_030_261_248


# The Catalog entry -------------------------------------------------------------------------------------------
def entry_data(model, indent=4):
    text = "name: pasted\ncatalog:\n  models:\n" + catalog_entry_yaml(model, indent=indent)
    folder = Path(model.source).parent
    scenario = folder.parent / f"{folder.name}.yaml"
    scenario.write_text(text, encoding="utf-8")
    data, _ = yamlfile.read(scenario)
    return text, data["catalog"]["models"]


@pytest.mark.parametrize("name", PUBLISHED)
def test_the_entry_pastes_under_catalog_models(tmp_path, name):
    shutil.copytree(CONFIGS / name, tmp_path / name)
    m = read_config(tmp_path / name / "config.json")
    text, models = entry_data(m)
    [(key, entry)] = models.items()
    assert key == m.id
    assert entry == {k: v for k, v in m.fields.items() if k in entry}
    assert {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"} <= set(entry)
    assert ("experts" in entry) == (m.fields["experts"] > 0)
    assert ("kv_lora_rank" in entry) == (m.fields["kv_lora_rank"] > 0)
    assert f"Ψ {m.params:,}" in text and f"Ψ_active {m.active_params:,}" in text
    assert f"{m.kv_bytes_per_token:,} bytes per token" in text
    if m.defaults:
        assert "# taken by default: " + ", ".join(m.defaults) in text


def test_mixtral_entry_comments():
    text = catalog_entry_yaml(read("Mixtral-8x7B-v0.1"))
    assert "# Ψ 46,702,792,704 (46.70 B) parameters\n" in text
    assert "# Ψ_active 12,879,925,248 (12.88 B) parameters\n" in text
    assert "# KV cache 131,072 bytes per token (128.0 KiB in BF16)\n" in text
    assert "# taken by default: head_dim, shared_expert_ffn, moe_layers" in text


def test_hostile_names_stay_comments_and_keys(tmp_path):
    folder = tmp_path / "1e3\nname: hacked #"
    folder.mkdir()
    shutil.copy(CONFIGS / "Llama-3.1-8B" / "config.json", folder / "config.json")
    m = read_config(folder / "config.json")
    assert m.id == "1e3-name-hacked"
    text, models = entry_data(m)
    assert list(models) == ["1e3-name-hacked"]  # quoted: a key starting 1e3 is not left to YAML's number rules
    hacked = [line for line in text.splitlines() if "hacked" in line]
    assert hacked[0] == '    "1e3-name-hacked":'
    assert all(line.lstrip().startswith("#") for line in hacked[1:])  # the folder's newline stays in the comment


def test_id_from_name_or_path_for_a_hub_snapshot(tmp_path):
    folder = tmp_path / ("0123456789abcdef" * 3)[:40]
    folder.mkdir()
    path = copy_config(folder, "Llama-3.1-8B")
    data = json.loads(path.read_text())
    data["_name_or_path"] = "meta-llama/Llama-3.1-8B"
    snapshot = folder / "config.json"
    snapshot.write_text(json.dumps(data))
    assert read_config(snapshot).id == "llama-3-1-8b"



# planner model FILE... ----------------------------------------------------------------------------------------
def test_planner_model_prints_each_fixture_with_its_counts(tmp_path):
    from click.testing import CliRunner

    from planner.cli import main
    from planner.scenario import parse_scenario

    files = [str(CONFIGS / name / "config.json") for name in ("Mixtral-8x7B-v0.1", "DeepSeek-V3", "gpt-oss-20b")]
    result = CliRunner().invoke(main, ["model", *files])
    assert result.exit_code == 0, result.output
    # METHOD.md §7's published checks: Mixtral 46.70 B / 12.88 B, DeepSeek-V3 671.03 B / 37.55 B (no MTP layer),
    # gpt-oss-20b 20.91 B / 4.19 B; DeepSeek's latent KV (512 + 64)·2 bytes × 61 layers = 70,272
    for count in ("Ψ 46,702,792,704 (46.70 B)", "Ψ_active 12,879,925,248 (12.88 B)", "Ψ 671,026,404,352 (671.03 B)",
                  "Ψ_active 37,552,282,624 (37.55 B)", "(20.91 B)", "Ψ_active 4,186,416,960 (4.19 B)",
                  "KV cache 70,272 bytes per token"):
        assert count in result.output
    # the output pasted under catalog: is a scenario whose Catalog holds the three models with those counts
    text = "name: pasted\ncatalog:\n" + "".join("  " + line + "\n" for line in result.output.splitlines())
    path = tmp_path / "pasted.yaml"
    path.write_text(text, encoding="utf-8")
    data, lines = yamlfile.read(path)
    merged = parse_scenario(data, str(path), lines).merged_catalog.models
    assert merged["mixtral-8x7b-v0-1"].params == 46_702_792_704
    assert merged["deepseek-v3"].params == 671_026_404_352


def test_planner_model_refuses_a_missing_field_naming_file_and_field():
    from click.testing import CliRunner

    from planner.cli import main

    path = CONFIGS / "edge-missing-vocab" / "config.json"
    result = CliRunner().invoke(main, ["model", str(CONFIGS / "gpt2" / "config.json"), str(path)])
    assert result.exit_code == 2
    assert result.stdout == ""  # nothing printed for the good file either: all or nothing
    assert f"{path}: vocab_size: missing" in result.stderr


def planner_model(*files):
    from click.testing import CliRunner

    from planner.cli import main

    return CliRunner().invoke(main, ["model", *map(str, files)])


def test_planner_model_refuses_one_id_twice_naming_both_files(tmp_path):
    """Ids are folder names in lower case: the same file twice, two folders of one name and two names that differ
    only by case each make one id twice; nothing is printed."""
    one = copy_config(tmp_path, "gpt2")
    (tmp_path / "b").mkdir()
    other = copy_config(tmp_path / "b", "gpt2")
    upper = tmp_path / "c" / "GPT2" / "config.json"
    upper.parent.mkdir(parents=True)
    upper.write_bytes(one.read_bytes())
    for second, words in ((one, "the same file as"), (other, "as"), (upper, "as")):
        result = planner_model(one, second)
        assert result.exit_code == 2 and result.stdout == ""
        assert f"error: {second}: the id gpt2 again ({words} {one})" in result.stderr


def test_planner_model_says_when_an_entry_replaces_a_shipped_model(tmp_path):
    """DeepSeek-V3 read from its own config.json is the shipped entry: no word. With 62 layers it is not: the
    entry names what pasting it replaces, in a comment and on stderr."""
    same = planner_model(CONFIGS / "DeepSeek-V3" / "config.json")
    assert same.exit_code == 0 and "shipped" not in same.output
    changed = copy_config(tmp_path, "DeepSeek-V3", num_hidden_layers=62)
    result = planner_model(changed)
    assert result.exit_code == 0
    assert f"note: {changed}: deepseek-v3 is a shipped model; pasting this entry replaces its layers, moe_layers" \
        in result.stderr
    assert "# deepseek-v3 is a shipped model: this entry replaces its layers, moe_layers" in result.stdout


def test_a_number_of_401_digits_is_named_by_its_length(tmp_path):
    path = copy_config(tmp_path, "gpt2")
    path.write_text(path.read_text().replace('"n_embd": 768', '"n_embd": ' + "9" * 401))
    [problem] = refused(path)
    assert "n_embd: a whole number of 401 digits is out of range: the hidden size is a whole number from 1 to " \
           "1,000,000" in problem


# Issue 42, item 5: text a UTF-8 stream cannot print ------------------------------------------------------------------
def planner_model_in_utf8(*files) -> "subprocess.CompletedProcess":
    """The real command with stdout strictly UTF-8 (a UTF-8 locale's), where a lone surrogate cannot be written."""
    import subprocess
    import sys

    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}
    return subprocess.run([sys.executable, "-m", "planner", "model", *map(str, files)], capture_output=True,
                          env=env, timeout=120)


def test_lone_surrogates_in_every_printed_field_are_printed_escaped(tmp_path):
    """JSON may write "\\udc80", a lone surrogate no UTF-8 stream holds; a file name may hold a byte that is not
    UTF-8 (Python reads it as one). Each text `planner model` prints from the file (the activation, the checkpoint's
    dtype and quantisation, the file's own path) comes out as the escape \\udc80, once a UnicodeEncodeError."""
    folder = tmp_path / os.fsdecode(b"odd\x80name")
    folder.mkdir()
    path = copy_config(folder, "Llama-3.1-8B", hidden_act="\udc80", torch_dtype="b\udc81")
    write_index(path.parent, 16_060_522_496)
    quantised = copy_config(tmp_path, "Llama-3.2-3B", quantization_config={"quant_method": "q\udc82"})
    write_index(quantised.parent, 6_425_499_648)
    done = planner_model_in_utf8(path, quantised)
    assert done.returncode == 0, done.stderr.decode()
    out = done.stdout.decode("utf-8")  # strict: every byte printed is UTF-8
    comments = re.sub(r"\n\s*# ", " ", out)  # a comment's lines joined
    for shown in ("odd\\udc80name/Llama-3.1-8B/model.safetensors.index.json: metadata.total_size",
                  'hidden_act "\\udc80" is neither silu nor gelu', '(torch_dtype "b\\udc81" unknown',
                  'quantised ("q\\udc82")'):
        assert shown in comments, shown
    text = "name: pasted\ncatalog:\n" + "".join("  " + line + "\n" for line in out.splitlines())
    (tmp_path / "pasted.yaml").write_text(text, encoding="utf-8")
    data, _ = yamlfile.read(tmp_path / "pasted.yaml")  # still entries to paste: the escapes are in comments
    assert list(data["catalog"]["models"]) == ["llama-3-1-8b", "llama-3-2-3b"]

