"""A scenario's named scenarios (docs/method.md §9): `scenarios: {low: {hours.mfu: 0.30}, high: {…}}`, each a few
dotted keys of scalar inputs changed from the base, validated as a scenario of its own when the file is read.
`planner batch` writes each beside the base, as it writes a sweep's variants."""

from __future__ import annotations

import re
import typing
from typing import Any

from pydantic import BaseModel

from planner.scenario.errors import ScenarioError, did_you_mean, where
from planner.scenario.sweep import with_changes

NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")  # it will suffix defined names: hours_mfu_low
RESERVED = ("base",)  # the column every scenario starts from
MAX_SCENARIOS = 10
NOT_NAMED = ("name", "description", "currency", "catalog", "sweep", "scenarios")  # not inputs a scenario moves


def check_name(name: str) -> None:
    if not NAME.match(name):
        raise ValueError(f"scenario name '{name}': a lower-case letter, then letters, digits or _ (at most 31), as "
                         f"it suffixes the workbook's names (hours_mfu_{name})")
    if name in RESERVED:
        raise ValueError(f"scenario name '{name}' is reserved: the base column every scenario starts from")


def _scalar(annotation) -> bool:
    """Whether a field holds one value (a number, a word, an id) rather than a section, a list or a mapping; an id
    or mapping choice (model, gpu) counts as scalar, its mapping refused by value."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return False
    origin = typing.get_origin(annotation)
    if origin in (list, dict, tuple):
        return False
    if origin is typing.Annotated:
        return _scalar(typing.get_args(annotation)[0])
    return True


def check_key_path(root: type[BaseModel], dotted: str) -> None:
    """A scenario's key names a scalar input: a section's field, not a list (allocations, servers, benchmarks,
    layouts), a mapping or a catalog entry."""
    parts = dotted.split(".")
    if parts[0] in NOT_NAMED:
        raise ValueError(f"scenarios key '{dotted}': '{parts[0]}' is not an input a scenario changes")
    cls: type[BaseModel] = root
    for i, part in enumerate(parts):
        fields = cls.model_fields
        if part not in fields:
            raise ValueError(f"scenarios key '{dotted}': no key '{part}'{did_you_mean(part, fields)}"
                             f" allowed: {', '.join(k for k in fields if k not in NOT_NAMED)}")
        annotation = fields[part].annotation
        last = i == len(parts) - 1
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if last:
                raise ValueError(f"scenarios key '{dotted}': a section; name one of its inputs "
                                 f"({dotted}.{next(iter(annotation.model_fields))})")
            cls = annotation
            continue
        if not last or not _scalar(annotation):
            raise ValueError(f"scenarios key '{dotted}': scenarios change scalar inputs only, not lists "
                             "(allocations, servers, benchmarks, layouts) or catalog entries")


def _one_value(key: str, value) -> None:
    if isinstance(value, (dict, list)):
        raise ValueError(f"scenarios key '{key}': one value (a number, a word or an id), not a "
                         f"{'mapping' if isinstance(value, dict) else 'list'}")


def problems_of(scenario, source: str, lines: dict) -> list[str]:
    """Each scenario name that cannot suffix a defined name and each key that is not a scalar input, at its
    line."""
    found = []
    for name, changes in scenario.scenarios.items():
        checks = [(("scenarios", name), lambda: check_name(name))]
        checks += [(("scenarios", name, key), lambda key=key: check_key_path(type(scenario), key)) for key in changes]
        checks += [(("scenarios", name, key), lambda key=key: _one_value(key, value))
                   for key, value in changes.items()]
        for loc, run in checks:
            try:
                run()
            except ValueError as exc:
                at, dotted = where(loc, source, lines)
                found.append(f"{at}: scenarios.{name}: {exc}")
    return found


def variants(scenario, source: str, lines: dict, parse) -> list[tuple[str, Any]]:
    """Each named scenario: the base with its keys changed, named "<name> [<scenario>]", parsed by `parse`;
    ScenarioError lists every scenario's problems, each at its key's line."""
    if not scenario.scenarios:
        return []
    problems = problems_of(scenario, source, lines)
    if problems:
        raise ScenarioError(problems, [("scenarios",)])
    base = scenario.model_dump(mode="json", exclude_none=True, exclude={"sweep", "scenarios"})
    found = []
    for name, changes in scenario.scenarios.items():
        data = with_changes(base, changes)
        data["name"] = f"{scenario.name} [{name}]"
        at, _ = where(("scenarios", name), source, lines)
        try:
            found.append((name, parse(data, f"{at}: scenario {name}")))
        except ScenarioError as exc:
            problems += exc.problems
    if problems:
        raise ScenarioError(problems, [("scenarios",)])
    return found
