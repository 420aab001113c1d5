"""Error text: every problem names the file, the key path, the YAML line (or the workbook cell), the value and
what is allowed, in one line."""

from __future__ import annotations

import difflib
from typing import Any

from pydantic import BaseModel

from planner.scenario.declare import UNION_TAGS

QUOTED = 80  # characters of a value a message quotes; the rest is counted


class ScenarioError(Exception):
    """A scenario that cannot be used; `problems` holds one line per problem, each naming file, line and key;
    `keys` the key path of each problem, where known (an audit sets those inputs aside and reads the rest)."""

    def __init__(self, problems: list[str], keys: list[tuple] | None = None):
        super().__init__("\n".join(problems))
        self.problems = problems
        self.keys = keys or []


# (key path, value or None, message[, another key path]): a rule that joins several inputs failed; another place,
# when given (the other definition of a clashing id), is said too: "… (the other: s.yaml:12: catalog.gpus.x)"
Problem = tuple


def quoted(value: Any) -> str:
    """repr(value), cut to QUOTED characters with the length said: a 900 KB name is not echoed whole."""
    return cut(repr(value))


def cut(text: str) -> str:
    """Text as a message shows it: at most QUOTED characters, then "… (N characters)"."""
    return text if len(text) <= QUOTED else f"{text[:QUOTED]}… ({len(text):,} characters)"


def did_you_mean(word: str, allowed) -> str:
    close = difflib.get_close_matches(str(word)[:200], [str(a) for a in allowed], n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


LISTED = 12  # ids a message lists of those allowed; the rest are counted


def unknown(kind: str, value: str, known) -> str:
    known = list(known)
    listed = ", ".join(known[:LISTED]) + (f", … ({len(known):,} in all)" if len(known) > LISTED else "")
    return f"unknown {kind} {quoted(value)}{did_you_mean(value, known)} allowed: {listed}"


def dotted(path: tuple) -> str:
    """A key path as a dotted key, list items numbered from 1: ("hours", "allocations", 1, "gpus") →
    hours.allocations.2.gpus."""
    return ".".join(str(p + 1) if isinstance(p, int) else str(p) for p in path)


def where(loc: tuple, source: str, lines: dict) -> tuple[str, str]:
    """("file:line" or "file: Sheet!A1 (name)", "dotted.key") for a key path; the nearest enclosing key that has
    a line gives it."""
    key = cut(dotted(loc)) or "(top level)"
    line = next((lines[loc[:n]] for n in range(len(loc), -1, -1) if loc[:n] in lines), None)
    # `lines` holds YAML line numbers, or cell addresses for a scenario read from a workbook
    at = f"{source}:{line}" if isinstance(line, int) else f"{source}: {line}" if line else source
    return at, key


def section_class(annotation):
    """The BaseModel class inside an annotation such as list[Allocation] or Union[str, CustomModel]."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or getattr(annotation, "__metadata__", ()):
        found = section_class(arg)
        if found is not None:
            return found
    origin = getattr(annotation, "__origin__", None)
    return section_class(origin) if origin is not None and origin is not annotation else None


def allowed_keys(root: type[BaseModel], loc: tuple) -> list[str]:
    """The keys allowed at a key path, for "unknown key" messages."""
    cls: Any = root
    for part in loc:
        if isinstance(part, int) or part in UNION_TAGS:
            continue
        field = cls.model_fields.get(part) if isinstance(cls, type) and issubclass(cls, BaseModel) else None
        if field is None:
            return []
        cls = section_class(field.annotation)
    return list(cls.model_fields) if isinstance(cls, type) and issubclass(cls, BaseModel) else []


def describe(root: type[BaseModel], error: dict, source: str, lines: dict) -> str:
    """One pydantic validation error as a line."""
    loc = tuple(p for p in error["loc"] if p not in UNION_TAGS)
    at, key = where(loc, source, lines)
    kind = error["type"]
    if kind == "extra_forbidden":
        allowed = allowed_keys(root, loc[:-1])
        return (f"{at}: {key}: unknown key{did_you_mean(loc[-1], allowed) or ';'}"
                f" allowed here: {', '.join(allowed)}")
    if kind == "missing":
        return f"{at}: {key}: required key is missing"
    if kind == "too_long":  # a list or a mapping: its size, not its whole value
        things = "entries" if isinstance(error["input"], dict) else "items"
        size = error["ctx"].get("actual_length") or len(error["input"])  # pydantic 2.14 stops counting: None
        return f"{at}: {key}: {size:,} {things}; at most {error['ctx']['max_length']:,} are allowed here"
    message = error["msg"].removeprefix("Value error, ")
    if error["input"] == "" and kind != "string_too_short":
        return f"{at}: {key}: blank, where a value is needed ({message.lower()})"
    if isinstance(error["input"], (dict, list)):
        return f"{at}: {key}: {message}"
    return f"{at}: {key}: value {quoted(error['input'])} is not allowed: {message}"


def describe_problem(problem: Problem, source: str, lines: dict) -> str:
    loc, value, message, *also = problem
    at, key = where(loc, source, lines)
    if also:
        other_at, other_key = where(also[0], source, lines)
        message += f" (the other: {other_at}: {other_key})"
    if value is None:
        return f"{at}: {key}: {message}"
    return f"{at}: {key}: value {quoted(value)} is not allowed: {message}"
