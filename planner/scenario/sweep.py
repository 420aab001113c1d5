"""A scenario's sweep: dotted keys to lists of values, expanded to their cartesian product, each variant validated
as a scenario of its own when the scenario is read. The product is counted before anything is expanded."""

from __future__ import annotations

import copy
import itertools
from typing import Any

from pydantic import BaseModel

from planner.scenario.errors import ScenarioError, did_you_mean, where

MAX_VARIANTS = 10_000  # a sweep's cartesian product is capped
MAX_VALUES = 1000  # values per swept key
NOT_SWEPT = ("sweep", "name")  # a variant cannot sweep again; its name is made from its values


def check_key_path(root: type[BaseModel], dotted: str) -> None:
    """A swept key names a scenario key (sections are walked; inside a mapping of entries any id goes)."""
    if dotted.split(".")[0] in NOT_SWEPT:
        raise ValueError(f"sweep key '{dotted}': '{dotted.split('.')[0]}' cannot be swept (a variant is named after "
                         f"its values and does not sweep again)")
    cls: type[BaseModel] | None = root
    for part in dotted.split("."):
        fields = cls.model_fields
        if part not in fields:
            raise ValueError(f"sweep key '{dotted}': no key '{part}'{did_you_mean(part, fields)}"
                             f" allowed: {', '.join(fields)}")
        annotation = fields[part].annotation
        cls = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
        if cls is None:
            break


def count(sweep: dict) -> int:
    found = 1
    for values in sweep.values():
        found *= len(values)
    return found


def variants(scenario, source: str, lines: dict, parse) -> list[tuple[str, Any]]:
    """Every variant of the sweep, parsed by `parse` (at most MAX_VARIANTS of them); ScenarioError lists every
    variant's problems."""
    if not scenario.sweep:
        return []
    at, _ = where(("sweep",), source, lines)
    total = count(scenario.sweep)
    if total > MAX_VARIANTS:
        raise ScenarioError([f"{at}: sweep: {total:,} variants; a sweep may have at most {MAX_VARIANTS:,}"],
                            [("sweep",)])
    keys = list(scenario.sweep)
    base = scenario.model_dump(mode="json", exclude_none=True, exclude={"sweep"})
    problems, found = [], []
    for values in itertools.product(*scenario.sweep.values()):
        label = ", ".join(f"{key}={plain_text(value)}" for key, value in zip(keys, values))
        data = with_changes(base, dict(zip(keys, values)))
        data["name"] = f"{scenario.name} [{label}]"
        if isinstance(data.get("sweep"), dict):
            problems.append(f"{at}: sweep variant [{label}]: a variant cannot have a sweep of its own")
            continue
        try:
            found.append((label, parse(data, f"{at}: sweep variant [{label}]")))
        except ScenarioError as exc:
            problems += exc.problems
    if problems:
        raise ScenarioError(problems, [("sweep",)])
    return found


def plain_text(value) -> str:
    """A swept value as its variant's label says it: text as itself, numbers as written; anything else (a list, a
    mapping) in a few characters."""
    if isinstance(value, str):
        return value[:40]
    if isinstance(value, bool) or isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "…"


def with_changes(data: dict, changes: dict) -> dict:
    """A deep copy of `data` with dotted keys set."""
    data = copy.deepcopy(data)
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return data


def listed(value):
    return value if isinstance(value, (list, tuple)) else [value]
