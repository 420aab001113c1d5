"""Hostile input (issue 8): bad scenario files and output paths each get a one-line error naming the file, line and
key, exit 2, no traceback and nothing written; malformed YAML never raises anything but ScenarioError."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner import yamlfile
from planner.cli import main
from planner.scenario import ScenarioError, load_scenario
from tests.conftest import ROOT
from tests.helpers import refused

BOMB = ('a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
        + "".join(f"{b}: &{b} [{','.join([f'*{a}'] * 9)}]\n" for a, b in zip("abcdefgh", "bcdefghi")))


def assert_refused(tmp_path: Path, text: str | bytes, expected: list[str]) -> str:
    output, _ = refused(tmp_path, text)
    for fragment in expected:
        assert fragment in output
    return output


@pytest.mark.parametrize("text, expected", [
    # YAML 1.1 surprises: 010 is octal in 1.1 and 10 in 1.2, so it is refused; 1:30 is text in 1.2, not 90
    ("name: x\nmemory:\n  gpus: 010\n", ["scenario.yaml:3: memory.gpus: value 010 is not allowed",
                                        "leading zero is octal in YAML 1.1", "without the leading zero"]),
    ("name: x\nmemory:\n  gpus: 1:30\n", ["scenario.yaml:3: memory.gpus: value '1:30' is not allowed"]),
    ("name: x\nhours:\n  tokens: .inf\n", ["scenario.yaml:3: hours.tokens: value .inf is not allowed:",
                                          "numbers must be finite"]),
    ("name: x\nhours: {mfu: .nan}\n", ["scenario.yaml:2: hours.mfu: value .nan is not allowed:",
                                       "numbers must be finite"]),
    ("name: x\nhours:\n  tokens: 1e400\n", ["scenario.yaml:3: hours.tokens: value 1e400 is not allowed:",
                                          "numbers must be finite"]),
    ("name: x\nhours:\n  allocations:\n    - {gpus: 8, mfu: -.inf}\n",
     ["scenario.yaml:4: hours.allocations.1.mfu: value -.inf is not allowed: numbers must be finite"]),
    # keys are text
    ("name: x\n~: 1\n", ["scenario.yaml:2: ~: the key is null: keys must be text"]),
    ("name: x\nmemory:\n  gpus: 8\n  1: 2\n", ["scenario.yaml:4: memory.1: the key is a number: keys must be text"]),
    ("name: x\ntrue: 1\n", ["scenario.yaml:2: true: the key is a boolean: keys must be text"]),
    ("name: x\n[a, b]: 1\n", ["scenario.yaml:2: (top level): a key that is a list or a mapping:",
                              "keys must be text"]),
    ("name: x\nmemory: {gpus: 8}\nmemory: {gpus: 4}\n", ["scenario.yaml:3: memory: key given twice"]),
    # no anchors, aliases, tags or second documents
    ("name: &n x\ndescription: *n\n", ["scenario.yaml:1: name: anchors and aliases (&name, *name) are not allowed",
                                       "write each value out in full"]),
    ("name: x\nmemory: {gpus: !!int '8'}\n", ["scenario.yaml:2: memory.gpus: the tag !!int is not allowed"]),
    ("name: x\nmemory: !!python/object:os.system {}\n", ["scenario.yaml:2: memory: the tag !!python/object:os.system"
                                                         " is not allowed"]),
    ("name: x\n---\nname: y\n", ["scenario.yaml:2: a second YAML document (---): a scenario file holds one"]),
    # the file itself
    (b"name: x\ndescription: caf\xe9\n", ["scenario.yaml:2: not UTF-8 text (byte 0xe9):",
                                          "a scenario file must be UTF-8"]),
    ("name: x\ndescription: a\x00b\n", ["scenario.yaml:2: character U+0000 is not allowed"]),
    # the key path where libyaml hands over its events one by one; newer libyaml refuses the whole line at once
    ("[" * 5000, ["scenario.yaml:1: ", "nested deeper than 20 levels: a scenario nests at most 20 levels"]),
    ("".join(f"{' ' * i}k{i}:\n" for i in range(30)), ["scenario.yaml:21: k0.k1.k2.k3.k4.k5.k6.k7.k8.k9.k10.k11.k12."
                                                       "k13.k14.k15.k16.k17.k18.k19: nested deeper than 20 levels"]),
    ("name: x\nmemory: {gpus: 8\n", ["scenario.yaml:3: YAML syntax error: did not find expected ',' or '}'"]),
    ("name: x\n" + "padding: " + "a" * yamlfile.MAX_BYTES + "\n",
     ["scenario.yaml: the file is larger than 1 MB: a scenario file may be at most 1 MB (1,048,576 bytes)"]),
], ids=lambda v: repr(v)[:40] if isinstance(v, (str, bytes)) else None)
def test_a_hostile_scenario_exits_2_with_one_line_naming_file_line_and_key(tmp_path, text, expected):
    output = assert_refused(tmp_path, text, expected)
    assert all(line.startswith("error: ") for line in output.splitlines())


def test_plain_values_are_read_as_yaml_1_2(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("a: 1:30\nb: [yes, no, on, off, y, n]\nc: [true, false, TRUE]\nd: [15.6e12, 1e9, 8, 0x10, 0o17]\n"
                    "e: ['8', \"010\"]\nf: [~, null, Null]\ng: 2024-01-01\nh: 1_000\ni:\n")
    data, lines = yamlfile.read(path)
    assert data == {"a": "1:30", "b": ["yes", "no", "on", "off", "y", "n"], "c": [True, False, True],
                    "d": [15.6e12, 1e9, 8, 16, 15], "e": ["8", "010"], "f": [None, None, None], "g": "2024-01-01",
                    "h": "1_000", "i": None}
    assert [type(v) for v in data["d"]] == [float, float, int, int, int]
    assert lines[("b",)] == 2 and lines[("d", 2)] == 4 and lines[("h",)] == 8


def test_nesting_of_20_levels_is_read_and_21_is_refused(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("[" * 20 + "]" * 20)
    data, _ = yamlfile.read(path)
    for _ in range(19):
        data = data[0]
    assert data == []
    path.write_text("[" * 21 + "]" * 21)
    with pytest.raises(yamlfile.YAMLFileError, match="nested deeper than 20 levels"):
        yamlfile.read(path)


def test_a_350_byte_alias_bomb_is_refused_at_its_first_anchor(tmp_path):
    path = tmp_path / "bomb.yaml"
    path.write_text(BOMB)
    assert len(BOMB) < 350
    start = time.perf_counter()
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert time.perf_counter() - start < 30  # a hang guard: expanded, it took 79 s and 8.9 GB
    assert error.value.problems == [f"{path}:1: a: anchors and aliases (&name, *name) are not allowed:"
                                    " write each value out in full"]


def test_thousands_of_problems_print_the_first_20_and_a_count(tmp_path):
    output = assert_refused(tmp_path, "name: x\n" + "".join(f"unknown_{i}: 1\n" for i in range(100)), [
        "scenario.yaml:2: unknown_0: unknown key", "scenario.yaml:21: unknown_19:", "error: … and 80 more problems"])
    assert len(output.splitlines()) == 21
    assert "unknown_20:" not in output


@pytest.mark.parametrize("make, kind", [
    (lambda p: p.symlink_to("/dev/zero"), "a character device"),  # it never ends: read as a file, it fills memory
    (lambda p: p.mkdir(), "a folder"),
])
def test_a_scenario_that_is_not_a_regular_file_is_refused(tmp_path, make, kind):
    path = tmp_path / "scenario.yaml"
    make(path)
    with pytest.raises(ScenarioError) as error:
        load_scenario(path)
    assert error.value.problems == [f"{path}: not a regular file ({kind}): a scenario must be a regular file"]


def test_a_named_pipe_exits_2_from_the_real_command_without_hanging(tmp_path):
    fifo = tmp_path / "scenario.yaml"
    os.mkfifo(fifo)  # without a writer, open() blocks: the subprocess's timeout catches a hang
    done = subprocess.run([sys.executable, "-m", "planner", "run", str(fifo), "-o", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 2
    assert done.stderr == f"error: {fifo}: not a regular file (a named pipe): a scenario must be a regular file\n"
    assert not (tmp_path / "out").exists()


# Output paths ---------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("arrange, out, expected", [
    (lambda t: (t / "file").write_text("x"), "file/out", "{t}/file: not a folder: the outputs need a folder"),
    (lambda t: (t / "link").symlink_to(t / "gone"), "link",
     "{t}/link: a symbolic link to {t}/gone, which does not exist: the outputs need a folder"),
    (lambda t: (t / "link").symlink_to(t / "gone"), "link/sub",
     "{t}/link: a symbolic link to {t}/gone, which does not exist: the outputs need a folder"),
    (lambda t: None, "/dev/null", "/dev/null: not a folder: the outputs need a folder"),
    (lambda t: (t / "out" / "default.html").mkdir(parents=True), "out",
     "{t}/out/default.html: a folder is where this output file goes: move or remove it"),
])
def test_an_unusable_output_path_exits_2_naming_it(tmp_path, arrange, out, expected):
    arrange(tmp_path)
    before = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    target = out if out.startswith("/") else str(tmp_path / out)
    result = CliRunner().invoke(main, ["run", "-o", target])
    assert result.exit_code == 2
    assert result.output == f"error: {expected.format(t=tmp_path)}\n"
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*")) == before


def test_a_read_only_output_folder_exits_2_naming_it(tmp_path):
    folder = tmp_path / "read-only"
    folder.mkdir()
    with read_only(folder):
        result = CliRunner().invoke(main, ["run", "-o", str(folder)])
        assert list(folder.iterdir()) == []
    assert result.exit_code == 2
    assert result.output.startswith(f"error: {folder}: cannot write default.xlsx there: ")
    assert len(result.output.splitlines()) == 1


class read_only:
    """A folder no one can write into: chmod for a normal user; for root, which ignores modes, the immutable
    attribute (chattr +i, ext4 and others); skips where neither holds."""

    def __init__(self, path: Path):
        self.path = path

    def __enter__(self):
        if os.geteuid() != 0:
            self.path.chmod(0o555)
        elif subprocess.run(["chattr", "+i", str(self.path)], capture_output=True).returncode != 0:
            pytest.skip("root here, and chattr +i does not work on this file system")
        return self.path

    def __exit__(self, *exc):
        if os.geteuid() != 0:
            self.path.chmod(0o755)
        else:
            subprocess.run(["chattr", "-i", str(self.path)], check=True)


# Fuzzing the loader -----------------------------------------------------------------------------------------------
TRICKY_SCALARS = ["010", "1:30", "yes", "on", "~", "null", ".inf", "-.inf", ".nan", "1e400", "1e-400", "-0", "0x1F",
                  "0o17", "0b101", "1_000", "'8'", '"8"', "8", "8.0", "1e9", "true", "&a 1", "*a", "!!int 8", "[]",
                  "{}", "[1, [2, [3]]]", "{a: {b: c}}", "- x", "? x", "|\n  text", ">-\n  text", "9" * 400, "",
                  "'unterminated", "[unclosed", "%YAML 1.1", "---", "...", "\t8", "@x", "`x", "#comment"]
keys = st.sampled_from(["name", "memory", "gpus", "hours", "tokens", "mfu", "allocations", "model", "~", "1",
                        "true", "? [a]", "<<", "x"])
scalars = st.one_of(st.sampled_from(TRICKY_SCALARS), st.text(max_size=12),
                    st.floats(allow_nan=True, allow_infinity=True).map(repr), st.integers().map(str))


def yaml_documents():
    """YAML-ish text: random keys, flow and block nesting, tricky scalars in number fields and anywhere."""
    values = st.recursive(scalars, lambda inner: st.one_of(
        st.lists(inner, max_size=4).map(lambda items: "[" + ", ".join(items) + "]"),
        st.dictionaries(keys, inner, max_size=4).map(
            lambda d: "{" + ", ".join(f"{k}: {v}" for k, v in d.items()) + "}")), max_leaves=12)
    lines = st.lists(st.tuples(st.integers(0, 3), keys, values).map(lambda t: "  " * t[0] + f"{t[1]}: {t[2]}"),
                     max_size=8)
    return st.one_of(lines.map(lambda ls: "name: x\n" + "\n".join(ls) + "\n"),
                     st.sampled_from(["gpus", "tokens", "mfu", "sequence_length"]).flatmap(
                         lambda field: scalars.map(lambda v: f"name: x\nmemory: {{{field}: {v}}}\n"
                                                             f"hours: {{{field}: {v}}}\n")),
                     st.text(max_size=200))


@pytest.mark.long
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(content=st.one_of(yaml_documents().map(lambda text: text.encode("utf-8")),
                         st.binary(max_size=200)))
def test_malformed_yaml_loads_or_raises_scenario_error_only(tmp_path, content):
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(content)
    try:
        load_scenario(path)
    except ScenarioError as exc:
        assert exc.problems and all(problem.startswith(str(path)) and "\n" not in problem
                                    for problem in exc.problems)


# Sweeps (issue 19) ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sweep, expected", [
    ("{memory.gpus.foo: [1]}", "scenario.yaml:3: sweep: key 'memory.gpus.foo': memory.gpus is a value, with no keys "
                               "inside it; sweep memory.gpus itself"),
    ("{model.layers: [1]}", "scenario.yaml:3: sweep: key 'model.layers': model is a value, with no keys inside it; "
                            "sweep model itself, or an entry's fields under catalog (catalog.models.<id>.layers)"),
    ("{hours.allocations.1.mfu: [0.5]}", "scenario.yaml:3: sweep: key 'hours.allocations.1.mfu': hours.allocations "
                                         "is a list, whose items cannot be swept one by one"),
    ("{memory.gpuz: [8]}", "scenario.yaml:3: sweep: key 'memory.gpuz': no key 'gpuz'; did you mean 'gpus'?"),
    ("{memory: [{gpus: 8}], memory.gpus: [8]}", "scenario.yaml:3: sweep: keys 'memory' and 'memory.gpus' overlap"),
    ("{sweep.memory.gpus: [8]}", "scenario.yaml:3: sweep: key 'sweep.memory.gpus': 'sweep' cannot be swept"),
    # a swept value that holds a sweep: as a preset id, and inside a section
    ("{catalog.traffic_presets: [{sweep: 1}, {sweep: 2}]}", "scenario.yaml:3: sweep: key 'catalog.traffic_presets': "
                                                            "the value {'sweep': 1} holds a sweep of its own"),
    ("{memory: [{gpus: 8, sweep: {memory.gpus: [1, 2]}}]}", "holds a sweep of its own: a variant cannot sweep again"),
    ("{catalog.models." + "x" * 100 + ".layers: [1]}", "is longer than 64 characters, the longest a Catalog id may"),
], ids=lambda v: v[:40])
def test_a_sweep_key_that_names_no_single_value_exits_2_naming_the_sweep(tmp_path, sweep, expected):
    output = assert_refused(tmp_path, f"name: s\nmodel: llama-3.1-8b\nsweep: {sweep}\n", [expected])
    assert len(output.splitlines()) == 1 and len(output) < 400


def test_a_sweep_of_nested_sweeps_is_refused_before_any_variant_is_made(tmp_path):
    inner = "{sweep: {hours.mfu: [" + ", ".join(["0.5"] * 100) + "]}}"
    text = ("name: s\nsweep:\n  memory: [" + ", ".join([f"{{gpus: {8 * (i + 1)}, sweep: {inner}}}" for i in range(100)])
            + "]\n  hours.gpus: [" + ", ".join(str(i) for i in range(1, 101)) + "]\n")
    start = time.perf_counter()
    assert_refused(tmp_path, text, ["holds a sweep of its own"])
    assert time.perf_counter() - start < 30  # a hang guard: 10,000 variants are never parsed


def test_the_variant_count_is_said_before_any_is_made(tmp_path):
    keys = "".join(f"  catalog.traffic_presets.p{i}: [1, 2, 3]\n" for i in range(20))
    start = time.perf_counter()
    assert_refused(tmp_path, "name: s\nsweep:\n" + keys, [
        "scenario.yaml:2: sweep: 3,486,784,401 variants (3 × 3 × 3", "a sweep may have at most 100,000 (`planner batch --yes`: 1,048,575)"])
    assert time.perf_counter() - start < 30  # a hang guard: none of the variants is made


def test_a_long_name_with_a_sweep_gives_variants_named_within_the_limit(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(f"name: {'n' * 200}\nsweep: {{memory.strategy: [ddp, zero3]}}\n")
    names = [variant.name for _, variant in load_scenario(path).variants()]
    assert [len(n) for n in names] == [200, 200] and all(n.endswith("…]") for n in names)


# Text written as escapes, and long keys ------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ('name: "a\\x01b"\n', "scenario.yaml:1: name: value 'a\\x01b' holds character U+0001 (written as an escape)"),
    ('name: x\ndescription: "\\uFFFE"\n', "scenario.yaml:2: description: value '\\ufffe' holds character U+FFFE"),
    ('name: x\nmemory: {"gpus\\x00": 8}\n', "scenario.yaml:2: memory: the key 'gpus\\x00' holds character U+0000 "
                                            "(written as an escape)"),
    ('name: x\n"\\e[31mred": 1\n', "scenario.yaml:2: (top level): the key '\\x1b[31mred' holds character U+001B"),
    ("name: x\ngoodput: {servers: [{name: \"\\x7f\", cost_per_hour: 1, completed_per_hour: 1, "
     "acceptable_per_hour: 1}]}\n", "scenario.yaml:2: goodput.servers.1.name: value '\\x7f' holds character U+007F"),
])
def test_a_control_character_written_as_an_escape_is_refused_as_a_raw_one_is(tmp_path, text, expected):
    output = assert_refused(tmp_path, text, [expected])
    assert not any(ord(c) < 32 and c != "\n" for c in output)  # the message shows the character escaped


def test_escapes_of_characters_a_file_may_hold_raw_are_read(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text('name: "tab\\there, é \\u00e9"\n')
    assert load_scenario(path).name == "tab\there, é é"


def test_a_5000_character_key_is_quoted_in_80(tmp_path):
    output = assert_refused(tmp_path, "name: x\nmemory:\n  ? " + "g" * 5000 + "\n  : 1\n", [
        "scenario.yaml:3: memory." + "g" * 73 + "… (5,007 characters): unknown key; allowed here: gpus, strategy"])
    assert len(output) < 400


# One id, one definition -------------------------------------------------------------------------------------------
MY_3B = "{layers: 28, hidden: 3072, heads: 24, kv_heads: 8, ffn: 8192, vocab: 128256}"
PROFILE = "[1, 1, 1, 1, .5, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .1, .2, .3]"


@pytest.mark.parametrize("text, expected", [
    (f"name: x\nmodel: {{name: my-3b, {MY_3B[1:]}\ncatalog:\n  models:\n    my-3b: {MY_3B.replace('28', '20')}\n",
     "scenario.yaml:2: model: 'my-3b' is given here and in catalog.models with other fields: give it once "
     "(the other: {path}:5: catalog.models.my-3b)"),
    ("name: x\ngpu: {name: mine, memory_gb: 96, peak_tflops: 800, hbm_tbps: 4}\ncatalog:\n  gpus:\n"
     "    mine: {memory_gb: 80, peak_tflops: 800, hbm_tbps: 4}\n",
     "scenario.yaml:2: gpu: 'mine' is given here and in catalog.gpus with other fields: give it once "
     "(the other: {path}:5: catalog.gpus.mine)"),
    (f"name: x\ncluster:\n  profile: {PROFILE}\ncatalog:\n  profiles:\n    custom: {PROFILE.replace('.3]', '.4]')}\n",
     "scenario.yaml:3: cluster.profile: the inline profile is named 'custom' on Catalog, and catalog.profiles.custom "
     "gives other fractions: give one of them (the other: {path}:6: catalog.profiles.custom)"),
    # a shipped id: given inline with other fields, or in other case
    ("name: x\ngpu: {name: h100-sxm, memory_gb: 96, peak_tflops: 800, hbm_tbps: 4}\n",
     "scenario.yaml:2: gpu: 'h100-sxm' is a shipped GPU and this mapping gives it other fields: change what ships "
     "under catalog.gpus.h100-sxm (only what changes), or give yours another name"),
    ("name: x\ncatalog:\n  gpus:\n    H100-SXM: {price_per_hour: 3}\n",
     "scenario.yaml:4: catalog.gpus.H100-SXM: 'H100-SXM' is the shipped GPU 'h100-sxm' in other case"),
    ("name: x\ncatalog:\n  profiles:\n    Office-Assistant: " + PROFILE + "\n",
     "scenario.yaml:4: catalog.profiles.Office-Assistant: 'Office-Assistant' is the shipped demand profile "
     "'office-assistant' in other case"),
    # two of the scenario's own
    ("name: x\ncatalog:\n  traffic_presets:\n    mine: 5\n    MINE: 6\n",
     "scenario.yaml:5: catalog.traffic_presets.MINE: traffic preset ids 'mine' and 'MINE' differ only by case; "
     "spreadsheets match ids ignoring case: give one of them (the other: {path}:4: catalog.traffic_presets.mine)"),
    ("name: x\ngpu: {name: Mine, memory_gb: 96, peak_tflops: 800, hbm_tbps: 4}\ncatalog:\n  gpus:\n"
     "    mine: {memory_gb: 96, peak_tflops: 800, hbm_tbps: 4}\n",
     "scenario.yaml:2: gpu: GPU ids 'mine' and 'Mine' differ only by case"),
    # one price, twice
    ("name: x\nprice_per_gpu_hour: 3\ncatalog:\n  gpus:\n    h100-sxm: {price_per_hour: 2.5}\n",
     "scenario.yaml:2: price_per_gpu_hour: 3 here and 2.5 as the price_per_hour of 'h100-sxm': give the price once "
     "(the other: {path}:5: catalog.gpus.h100-sxm)"),
    ("name: x\ngpu: {name: mine, memory_gb: 96, peak_tflops: 800, hbm_tbps: 4, price_per_hour: 1}\n"
     "price_per_gpu_hour: 3\n",
     "scenario.yaml:3: price_per_gpu_hour: 3 here and 1 as the price_per_hour of 'mine': give the price once "
     "(the other: {path}:2: catalog.gpus.mine)"),
], ids=lambda v: v[:50])
def test_one_id_defined_twice_with_other_fields_is_refused_naming_both_places(tmp_path, text, expected):
    output, path = refused(tmp_path, text)
    assert expected.format(path=path) in output
    assert len(output.splitlines()) == 1


@pytest.mark.parametrize("text", [
    f"name: x\nmodel: {{name: my-3b, {MY_3B[1:]}\ncatalog:\n  models:\n    my-3b: {MY_3B}\n",
    "name: x\ngpu: {name: h100-sxm, memory_gb: 80, peak_tflops: 989, hbm_tbps: 3.35}\n",
    "name: x\nprice_per_gpu_hour: 3\ncatalog:\n  gpus:\n    h100-sxm: {price_per_hour: 3}\n",
])
def test_one_id_given_twice_alike_is_read_once(tmp_path, text):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    load_scenario(path)


@pytest.mark.long
def test_16400_profiles_are_refused_at_the_stated_cap_before_any_defined_name_is_past_excels_grid(tmp_path):
    profile = "[" + ",".join(["1"] * 24) + "]"  # 16,400 of them in just under 1 MB
    text = "name: x\ncatalog:\n  profiles:\n" + "".join(f"    p{i}: {profile}\n" for i in range(16_400))
    assert_refused(tmp_path, text, ["scenario.yaml:3: catalog.profiles: 16,400 entries; at most 1,000 are allowed "
                                    "here"])


@pytest.mark.long
def test_a_thousand_entries_of_each_kind_fit_in_the_catalog_sheet():
    import io

    import openpyxl
    from xlsxwriter.utility import xl_cell_to_rowcol

    from planner.engine import compute
    from planner.scenario import parse_scenario
    from planner.scenario.catalog_entries import MAX_OWN_ENTRIES
    from planner.workbook import build

    n = MAX_OWN_ENTRIES
    scenario = parse_scenario({"name": "x", "catalog": {
        "profiles": {f"p{i}": [0.5] * 24 for i in range(n)}, "traffic_presets": {f"t{i}": i for i in range(n)},
        "gpus": {f"g{i}": {"memory_gb": 80, "peak_tflops": 100, "hbm_tbps": 1} for i in range(n)},
        "models": {f"m{i}": {"layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 128, "vocab": 100}
                   for i in range(n)}}})
    file = io.BytesIO()
    build(compute(scenario), file)
    names = openpyxl.load_workbook(file, read_only=True).defined_names
    last = [xl_cell_to_rowcol(ref.split(":")[-1].replace("$", "")) for name in names
            for _, ref in names[name].destinations]
    assert max(col for _, col in last) < 16_384 and max(row for row, _ in last) < 1_048_576


# Messages quote at most 80 characters of a value ------------------------------------------------------------------
def test_an_unknown_id_among_a_thousand_lists_twelve_and_counts_the_rest(tmp_path):
    gpus = "".join(f"    g{i}: {{memory_gb: 80, peak_tflops: 100, hbm_tbps: 1}}\n" for i in range(1000))
    output = assert_refused(tmp_path, "name: x\ngpu: nope\ncatalog:\n  gpus:\n" + gpus, [
        "scenario.yaml:2: gpu: value 'nope' is not allowed: unknown GPU 'nope' allowed: a100-80gb, h100-sxm, h200, "
        "b200, mi300x, gb200, b300, mi325x, mi355x, g0, g1, g2, … (1,009 in all), or a mapping describing a custom GPU"])
    assert len(output) < 400


def test_a_long_log_path_and_a_long_sweep_label_are_cut_in_messages(tmp_path):
    long = "d" * 3000
    output = assert_refused(tmp_path, f"name: x\ngoodput: {{benchmarks: [{{name: b, files: [{long}.json]}}]}}\n", [
        f"scenario.yaml:2: goodput.benchmarks.1.files.1: {'d' * 80}… (3,005 characters): cannot be read: "
        "File name too long"])
    assert len(output) < 400
    sweep = "".join(f"  catalog.traffic_presets.{'p' * 60}{i}: [{'1' * 15}]\n" for i in range(19))
    output = assert_refused(tmp_path, "name: x\nsweep:\n" + sweep + "  crossover.tokens_per_day: [nope]\n", [
        "scenario.yaml:2: sweep variant [catalog.traffic_presets.pppp", "characters)]: crossover.tokens_per_day"])
    assert len(output) < 1200  # the label cut to 80, twelve ids of the allowed listed


BIG = "{layers: 10000, hidden: 1000000, heads: 1000, kv_heads: 1000, ffn: 10000000, vocab: 1000}"


@pytest.mark.parametrize("text, expected", [
    (f"name: s\nmodel: big\ncatalog:\n  models:\n    big: {BIG}\n", "scenario.yaml:5: catalog.models.big: Ψ from"),
    (f"name: s\nmodel: {{name: big, {BIG[1:]}\n", "scenario.yaml:2: model: Ψ from"),
    (f"name: s\nsweep:\n  model: [{{name: big, {BIG[1:]}]\n", "scenario.yaml:2: sweep variant [model={'name': 'big',"),
    (f"name: s\nsweep:\n  model: [{{name: big, {BIG[1:]}]\n", "]: model: Ψ from the architecture is "
                                                             "3.4e+17, above the largest allowed, 1e15"),
])
def test_an_architecture_whose_parameters_exceed_the_limit_is_refused_naming_file_and_line(tmp_path, text, expected):
    assert_refused(tmp_path, text, [expected])


# Issue 34, class 3: a named scenario whose name makes one of the workbook's names twice ------------------------------
@pytest.mark.parametrize("name, typed, other", [
    ("used", "hours_mfu_used", "hours_mfu"), ("layers", "model_layers", "model"), ("vocab", "model_vocab", "model"),
    ("experts", "model_experts", "model"), ("head_dim", "model_head_dim", "model"),
    ("memory_gb", "gpu_memory_gb", "gpu"), ("peak_tflops", "gpu_peak_tflops", "gpu"),
    ("nvlink_gbps", "gpu_nvlink_gbps", "gpu")])
def test_a_scenario_name_that_makes_a_defined_name_twice_exits_2_naming_the_clash(tmp_path, name, typed, other):
    """hours_mfu_used is the MFU Hours uses, model_layers the chosen model's layers: a scenario `used` or `layers`
    would name its column of hours_mfu or model the same. Refused at the scenario's line, nothing written."""
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"name: s\nscenarios:\n  low: {{hours.mfu: 0.3}}\n  {name}: {{hours.mfu: 0.5}}\n")
    result = CliRunner().invoke(main, ["run", str(scenario), "-o", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert "\n" not in line and "Traceback" not in line
    assert line.startswith(f"error: {scenario}:4: scenarios.{name}: the scenario's column for {other} would be "
                           f"named {typed}, a name the workbook gives ")
    assert line.endswith(": name the scenario otherwise")
    assert not (tmp_path / "out").exists()  # refused before anything is made: once an empty folder was left behind


def test_a_batch_reports_a_scenario_whose_name_clashes_and_writes_the_others(tmp_path):
    (tmp_path / "a.yaml").write_text("name: a\nscenarios: {used: {hours.mfu: 0.5}}\n")
    (tmp_path / "b.yaml").write_text("name: b\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["batch", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "-o", str(out),
                                       "-q", "-j", "1"])
    assert result.exit_code == 1
    assert (f"FAILED {tmp_path}/a.yaml: {tmp_path}/a.yaml:2: scenarios.used: the scenario's column for hours_mfu "
            f"would be named hours_mfu_used") in result.output
    assert sorted(p.name for p in out.iterdir()) == sorted(  # the scenario's own file, b's, the index
        ["index.html", "summary.xlsx"] + [f"{s}.{x}" for s in ("a-used", "b") for x in ("xlsx", "html", "json")])


# Issue 34, class 9: the word roofline where serving does not fit -------------------------------------------------------
@pytest.mark.parametrize("serving, fit", [
    ("{users: 5000}", "the 5,000 serving users do not fit: at most 52 sequences do (B_max)"),
    ("{users: 1}\nmodel: llama-3.1-70b", "not one sequence fits beside the weights (B_max = 0)"),
], ids=["users above B_max", "B_max of 0"])
def test_the_word_roofline_where_serving_does_not_fit_is_refused_naming_the_key(tmp_path, serving, fit):
    """Once costed at the roofline MFU of a replica that does not exist (1.4e12 over the horizon)."""
    output, path = refused(tmp_path, f"name: x\ncrossover: {{serving_mfu: roofline}}\nserving: {serving}\n")
    assert output == (f"error: {path}:2: crossover.serving_mfu: value 'roofline' is not allowed: the word roofline "
                      f"takes the Serving table's MFU at its users, and {fit}: give a share (0.10 for 10 %), or fewer "
                      f"serving.users\n")


# Issue 42, item 5: a scenario at the caps ------------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("name: x\ncrossover: {horizon_days: 3653, tokens_per_day: 1e18}\nbudget: {monthly_growth: 1.0}\n",
     ":3: budget.monthly_growth: value 1.0 is not allowed: the demand grows 1.33e+36-fold by month 121 of the "
     "3,653-day horizon, from 1e+18 to 1.33e+54 tokens a day (crossover.tokens_per_day), above the 1e+18 allowed: "
     "lower budget.monthly_growth, crossover.horizon_days or the demand (the other: {path}:2: crossover.horizon_days)"),
    ("name: x\ncrossover: {horizon_days: 3653, tokens_per_day: 1}\nbudget: {monthly_growth: 1.0}\n",
     ":3: budget.monthly_growth: value 1.0 is not allowed: the demand grows 1.33e+36-fold by month 121 of the "
     "3,653-day horizon, from 1 to 1.33e+36 tokens a day"),
    ("name: x\ncrossover: {horizon_days: 3653}\nbudget: {monthly_growth: 0.3}\nfleet: {gpus: [h100-sxm]}\n",
     ":3: budget.monthly_growth: value 0.3 is not allowed: the demand grows 4.71e+13-fold by month 121 of the "
     "3,653-day horizon, from 10 to 4.71e+14 requests per second at the peak (the fleet's served rate, "
     "fleet.peak_rate), above the 1e+06 allowed"),
    # no growth: a fitting replica at 8.75e-07 tokens per second per GPU (a GPU of 0.001 TB/s) serving 1e18 a day
    ("name: x\nmodel: {name: huge, params: 4e14, layers: 100, hidden: 8192, heads: 64, kv_heads: 8, ffn: 28672, "
     "vocab: 128256}\ngpu: {name: slow, memory_gb: 1000000, peak_tflops: 1000, hbm_tbps: 0.001, price_per_hour: 2}\n"
     "hours: {tokens: 1000000}\nserving: {users: 1}\ncrossover:\n  tokens_per_day: 1e18\n",
     ":7: crossover.tokens_per_day: serving 1e+18 tokens a day at the plan's 8.75e-07 tokens per second per GPU "
     "needs 3.02e+19 GPUs at the peak hour, above the 1e+15 allowed: lower the demand, or serve faster"),
    # the Sensitivity's what-if at Crossover's assumed MFU, where the plan's replica does not fit (its money n/a)
    ("name: x\nmodel: {name: huge, params: 1e14, layers: 100, hidden: 8192, heads: 64, kv_heads: 8, ffn: 28672, "
     "vocab: 128256}\nhours: {tokens: 1000000}\ncrossover: {tokens_per_day: 1e18, serving_mfu: 0.001}\n",
     ":4: crossover.serving_mfu: serving 1e+18 tokens a day at Crossover's assumed serving MFU, 0.00494 tokens per "
     "second per GPU needs 5.34e+15 GPUs at the peak hour, above the 1e+15 allowed: lower the demand, or raise "
     "crossover.serving_mfu"),
], ids=["growth at the caps", "growth from one token", "a fleet's growth", "a slow replica", "the assumed MFU"])
def test_a_demand_past_what_a_plan_holds_exits_2_naming_the_key(tmp_path, text, expected):
    """Once OverflowError: Python int too large to convert to C long (a GPU count past 2^63), a traceback."""
    output, path = refused(tmp_path, text)
    assert output.startswith(f"error: {path}" + expected.format(path=path)), output
    assert output.count("\n") == 1
