"""The documentation a user reads.

- docs/method.md defines each section once, and every "§N" cited in README.md, examples/, planner/templates/ and docs/
  points at a section it defines.
- No file a user sees names the private method document (METHOD.md) or the seed documents it came from.
- docs/scenario.md lists every key of the scenario's JSON schema, as its full dotted path in backticks
  (`memory.gpus`, `hours.allocations[].mfu`, `catalog.models.<id>.params`, `sweep.<key>`); each key it documents
  exists, its default and range agree with the schema, and each of its YAML examples is a valid scenario.
"""

from __future__ import annotations

import io
import json
import re
import tokenize
from collections import Counter
from pathlib import Path

import pytest

from planner import yamlfile
from planner.scenario import Scenario, parse_scenario

ROOT = Path(__file__).resolve().parents[1]
METHOD_DOC = ROOT / "docs" / "method.md"
SCENARIO_DOC = ROOT / "docs" / "scenario.md"


def _relative(path: Path) -> str:
    return str(path.relative_to(ROOT))


# (a) docs/method.md's sections, and the citations of them ---------------------------------------------------
HEADING = re.compile(r"^## §(\d+)\b(.*)$", re.MULTILINE)
CITATION = re.compile(r"§(\d+)(?![.\d])")  # "docs/method.md §3", "§3"; not a paper's "§3.1"
TITLES = {1: "Memory per GPU", 2: "Training hours and cost", 3: "Crossover: serving against training",
          4: "Cluster over 24 hours", 5: "Goodput and cost per acceptable request", 6: "Serving",
          10: "Layout search", 11: "Fleet: the cheapest serving fleet that meets the SLO"}  # the implemented sections, which the sheets cite, and the first and last to come


def defined_sections() -> Counter:
    return Counter(int(number) for number, _ in HEADING.findall(METHOD_DOC.read_text(encoding="utf-8")))


def citing_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "examples").glob("*.yaml")),
            *sorted((ROOT / "planner" / "templates").glob("*.j2")), *sorted((ROOT / "docs").glob("*.md"))]


def test_method_defines_each_section_once():
    text = METHOD_DOC.read_text(encoding="utf-8")
    assert defined_sections() == Counter(range(1, 15)), "§1 to §14, each exactly once"
    assert len(re.findall(r"^## Catalog$", text, re.MULTILINE)) == 1
    titles = {int(number): title.strip() for number, title in HEADING.findall(text)}
    for number, title in TITLES.items():
        assert titles[number] == title, f"docs/method.md: '## §{number} {titles[number]}', expected '{title}'"


@pytest.mark.parametrize("path", citing_files(), ids=_relative)
def test_every_section_cited_exists(path):
    defined = set(defined_sections())
    lines = path.read_text(encoding="utf-8").splitlines()
    wrong = [f"{_relative(path)}:{n}: §{number}" for n, line in enumerate(lines, start=1)
             for number in CITATION.findall(line) if int(number) not in defined]
    assert not wrong, "cites a section docs/method.md does not define:\n" + "\n".join(wrong)


# (b) no trace of the private documents ----------------------------------------------------------------------
PRIVATE = re.compile(r"METHOD(?:\.md|'s)")  # the private method document (docs/method.md is the public one)
# the seed documents, as files cite them today: "seed 000", "the seed's two servers", "Seeds"
SEED = re.compile(r"\bseed(?:s|'s)?\b", re.IGNORECASE)


def user_files() -> list[Path]:
    """What a user of the repository reads: the README, the docs, the examples (logs included) and the
    templates."""
    found = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in ("examples", "planner/templates"):
        found += sorted(p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return found


def _prose(path: Path, text: str) -> list[tuple[int, str]]:
    """(line number, line) of the text to search for the seed documents: every line, or of a Python file its
    comments and strings only, so that a random seed in its code (random.Random(seed)) is not one."""
    if path.suffix != ".py":
        return list(enumerate(text.splitlines(), start=1))
    tokens = tokenize.generate_tokens(io.StringIO(text).readline)
    return [(t.start[0] + i, line) for t in tokens if t.type in (tokenize.COMMENT, tokenize.STRING)
            for i, line in enumerate(t.string.splitlines())]


@pytest.mark.parametrize("path", user_files(), ids=_relative)
def test_no_user_file_cites_the_private_documents(path):
    text = path.read_text(encoding="utf-8")
    found = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if PRIVATE.search(line)]
    found += [(n, line) for n, line in _prose(path, text) if SEED.search(line)]
    assert not found, "cites METHOD.md or the seed documents:\n" + "\n".join(
        f"{_relative(path)}:{n}: {line.strip()}" for n, line in sorted(set(found)))


def test_no_user_file_is_named_after_the_seed_documents():
    named = [_relative(path) for path in user_files() if SEED.search(path.name)]
    assert not named, "file names that name the seed documents: " + ", ".join(named)


# (c) docs/scenario.md against the scenario's schema ---------------------------------------------------------
SCHEMA = Scenario.model_json_schema()


def _resolve(node: dict) -> dict:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def _dotted(path: list[str]) -> str:
    text = ""
    for part in path:
        text += part if part == "[]" else ("." if text else "") + part
    return text.removesuffix("[]")  # a list of plain values is documented as the list: `cluster.profile`


def schema_keys() -> dict[str, dict]:
    """Every key path of the schema → {"declared": the field's own schema (its default) or None, "values": the
    schemas of the plain values it may hold, "leaf": whether it holds a plain value}. A key that is an id or a
    mapping (model, gpu) is both a leaf and the parent of the mapping's keys."""
    found: dict[str, dict] = {}

    def walk(node: dict, path: list[str], declared: dict | None) -> None:
        node = _resolve(node)
        for alternative in node.get("anyOf") or node.get("oneOf") or ():
            walk(alternative, path, declared)
        if "anyOf" in node or "oneOf" in node or node.get("type") == "null":
            return
        entry = found.setdefault(_dotted(path), {"declared": declared, "values": [], "leaf": False})
        if node.get("type") == "object" and "properties" in node:
            for key, child in node["properties"].items():
                walk(child, path + [key], child)
        elif node.get("type") == "object" and isinstance(node.get("additionalProperties"), dict):
            walk(node["additionalProperties"], path + ["<key>" if path == ["sweep"] else "<id>"], None)
        elif node.get("type") == "array":
            walk(node.get("items", {}), path + ["[]"], None)
        else:
            entry["leaf"] = True
            entry["values"].append(node)

    walk(SCHEMA, [], None)
    found.pop("", None)
    return found


KEYS = schema_keys()
DOC = SCENARIO_DOC.read_text(encoding="utf-8")
BACKTICKED = set(re.findall(r"`([^`\n]+)`", DOC))
ROW = re.compile(r"^\| `([^`]+)` \|(.*)\|$", re.MULTILINE)
NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*(?:\.\d+)?(?:e[+-]?\d+)?")


def documented_rows() -> list[tuple[str, list[str]]]:
    """(key, [type, default, allowed, unit, meaning]) for each row of the tables in docs/scenario.md."""
    return [(key, [cell.strip() for cell in rest.split("|")]) for key, rest in ROW.findall(DOC)]


def test_every_schema_key_is_documented():
    missing = [key for key, entry in KEYS.items() if entry["leaf"] and key not in BACKTICKED]
    assert not missing, "docs/scenario.md does not list: " + ", ".join(missing)


def test_every_documented_key_exists():
    unknown = [key for key, _ in documented_rows() if key not in KEYS]
    assert not unknown, "docs/scenario.md documents keys the schema does not have: " + ", ".join(unknown)


def _literal(text: str):
    try:
        return json.loads(text)
    except ValueError:
        return text  # an id such as zero3 or llama-3.1-8b


def _bounds(node: dict) -> set[float]:
    low = next((node[k] for k in ("minimum", "ge", "exclusiveMinimum") if k in node), None)
    high = next((node[k] for k in ("maximum", "le", "exclusiveMaximum") if k in node), None)
    return {float(b) for b in (low, high) if b is not None}


@pytest.mark.parametrize("key, cells", documented_rows(), ids=[key for key, _ in documented_rows()])
def test_documented_default_and_range_agree_with_the_schema(key, cells):
    _, default, allowed, *_ = cells
    entry = KEYS[key]
    declared = entry["declared"] or {}
    if default.startswith("`"):  # a literal default: `8`, `zero3`, `false`, `""`; words are read by people only
        assert "default" in declared, f"{key}: documented default {default}, but the schema has none"
        assert _literal(default[1:default.index("`", 1)]) == declared["default"], \
            f"{key}: documented default {default}, schema {declared['default']!r}"
    if entry["values"] and all(v.get("type") in ("number", "integer") for v in entry["values"]):
        limits = set().union(*(_bounds(v) for v in entry["values"]))
        written = {float(n.replace(",", "")) for n in NUMBER.findall(allowed)}
        assert written == limits, f"{key}: documented range '{allowed}', schema {sorted(limits)}"
    for value in declared.get("enum", ()):
        assert f"`{value}`" in allowed, f"{key}: allowed value {value!r} is not documented"


YAML_BLOCK = re.compile(r"^```yaml\n(.*?)^```$", re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("block", YAML_BLOCK.findall(DOC), ids=lambda b: b.splitlines()[0])
def test_every_yaml_example_is_a_valid_scenario(tmp_path, block):
    path = tmp_path / "example.yaml"
    path.write_text(block, encoding="utf-8")
    data, lines = yamlfile.read(path)
    parse_scenario(data, str(path), lines)  # raises ScenarioError, naming the key, for a wrong example
