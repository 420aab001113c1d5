"""A scenario's named scenarios (docs/method.md §9): `scenarios: {low: {hours.mfu: 0.30}, high: {…}}`, each a few
dotted keys of the Inputs sheet's inputs changed from the base, validated as a scenario of its own when the file is
read. The workbook holds them all (a column each on Inputs, `scenario:` the one it shows); `planner batch` also
writes each beside the base, as it writes a sweep's variants."""

from __future__ import annotations

import re
import typing
from typing import Any

from pydantic import BaseModel

from planner.scenario.errors import ScenarioError, did_you_mean, dotted, quoted, where
from planner.scenario.sweep import with_changes
from planner.tables import present

NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")  # it will suffix defined names: hours_mfu_low
RESERVED = ("base",)  # the column every scenario starts from
MAX_SCENARIOS = 10
PRICE = "price_per_gpu_hour"  # a scenario's own price: the chosen GPU's, in its Catalog row or its Inputs column
NOT_NAMED = {  # keys a scenario does not change, and why
    "name": "not an input a scenario changes", "description": "not an input a scenario changes",
    "currency": "not an input a scenario changes", "sweep": "not an input a scenario changes",
    "scenarios": "not an input a scenario changes", "scenario": "the scenario shown, not an input a scenario changes",
    "catalog": "a Catalog entry, one for every scenario (choose another model or gpu instead)",
    "search": "the layout search, whose Layouts rows are found once for the workbook",
}


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
        raise ValueError(f"scenarios key '{dotted}': '{parts[0]}' is {NOT_NAMED[parts[0]]}")
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


def changes(root: type[BaseModel], dotted: str) -> bool:
    """Whether a scenario may change the input at a key path (hours.mfu yes; hours.allocations.1.gpus no)."""
    try:
        check_key_path(root, dotted)
    except ValueError:
        return False
    return True


def _one_value(key: str, value) -> None:
    if isinstance(value, (dict, list)):
        raise ValueError(f"scenarios key '{key}': one value (a number, a word or an id), not a "
                         f"{'mapping' if isinstance(value, dict) else 'list'}")


def problems_of(scenario, source: str, lines: dict) -> tuple[list[str], list[tuple]]:
    """Each scenario name that cannot suffix a defined name and each key that is not a scalar input, at its
    line; a `scenario:` (the one shown) that names none of them. Returns the problems and each one's key path."""
    found, keys = [], []
    if scenario.scenario != "base" and scenario.scenario not in (scenario.scenarios or {}):
        at, _ = where(("scenario",), source, lines)
        named = ", ".join(["base", *(scenario.scenarios or {})])
        found.append(f"{at}: scenario: {quoted(scenario.scenario)} is not one of the file's scenarios; allowed: "
                     f"{named}")
        keys.append(("scenario",))
    for name, changes in (scenario.scenarios or {}).items():
        checks = [(("scenarios", name), lambda: check_name(name))]
        checks += [(("scenarios", name, key), lambda key=key: check_key_path(type(scenario), key)) for key in changes]
        checks += [(("scenarios", name, key), lambda key=key, value=value: _one_value(key, value))
                   for key, value in changes.items()]  # each its own value (a late-bound one checked only the last)
        for loc, run in checks:
            try:
                run()
            except ValueError as exc:
                at, dotted = where(loc, source, lines)
                found.append(f"{at}: scenarios.{name}: {exc}")
                keys.append(loc)
    return found, keys


def variants(scenario, source: str, lines: dict, parse) -> list[tuple[str, Any]]:
    """Each named scenario: the base with its keys changed, named "<name> [<scenario>]", parsed by `parse`;
    ScenarioError lists every scenario's problems, each at its key's line, with its key path (a variant's own
    problem at its scenario's key: ("scenarios", "low", "hours.mfu"))."""
    problems, keys = problems_of(scenario, source, lines)
    if not scenario.scenarios and not problems:
        return []
    if problems:
        raise ScenarioError(problems, keys)
    base = scenario.model_dump(mode="json", exclude_none=True, exclude={"sweep", "scenarios", "scenario"})
    tables = [t.key for t in present(scenario)]
    found = []
    for name, changes in scenario.scenarios.items():
        data = with_changes(base, {k: v for k, v in changes.items() if k != PRICE})
        if PRICE in changes:  # in its own files, the chosen GPU's Catalog price (one workbook: Scenario.in_workbook)
            gpus = data.setdefault("catalog", {}).setdefault("gpus", {})
            gpus.setdefault(str(data.get("gpu", "h100-sxm")), {})["price_per_hour"] = changes[PRICE]
        data["name"] = f"{scenario.name} [{name}]"
        at, _ = where(("scenarios", name), source, lines)
        shown_as = f"{at}: scenario {name}"
        try:
            variant = parse(data, shown_as)
        except ScenarioError as exc:
            found_keys = [_changed_key(name, key, changes) for key in exc.keys] \
                if len(exc.keys) == len(exc.problems) else [("scenarios", name)] * len(exc.problems)
            for problem, key in zip(exc.problems, found_keys):  # at the changed key's own line (or cell)
                own, _ = where(key, source, lines)
                problems.append(problem.replace(shown_as, f"{own}: scenario {name}", 1).replace(
                    f"catalog.gpus.{data.get('gpu')}.price_per_hour", PRICE))
                keys.append(key)
            continue
        if [t.key for t in present(variant)] != tables:  # a key into a section the base leaves out
            problems.append(f"{at}: scenarios.{name}: gives the workbook other tables than the base "
                            f"({', '.join(t.key for t in present(variant))} against {', '.join(tables)}): a scenario "
                            "changes the base's inputs")
            keys.append(("scenarios", name))
            continue
        found.append((name, variant))
    if problems:
        raise ScenarioError(problems, keys)
    return found


def _changed_key(name: str, key: tuple, changes: dict) -> tuple:
    """A variant's problem at a key path, as the scenario's own key that changed it (or the scenario, when the
    problem is elsewhere: a rule joining a changed input with the base's)."""
    changed = PRICE if PRICE in changes and key[:2] == ("catalog", "gpus") and key[-1:] == ("price_per_hour",) \
        else dotted(key)
    return ("scenarios", name, changed) if changed in changes else ("scenarios", name)
