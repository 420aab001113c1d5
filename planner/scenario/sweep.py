"""A scenario's sweep: dotted keys to lists of values, expanded to their cartesian product, each variant validated
as a scenario of its own when the scenario is read. The product is counted, and the keys and values checked, before
anything is expanded: a key names one value or section, no two keys overlap, and no swept value holds a sweep, so a
variant never sweeps again."""

from __future__ import annotations

import copy
import types
import typing
from typing import Any, Iterator

from pydantic import BaseModel

from planner.scenario.declare import ID_MAX, NAME_MAX
from planner.scenario.errors import ScenarioError, cut, did_you_mean, quoted, where

MAX_VARIANTS = 100_000  # a sweep's cartesian product is capped (`planner batch --yes` lifts it to Excel's rows)
WITH_YES = 1_048_575  # summary.xlsx's rows below its headings: the most even --yes takes
EXPANDING = "expanding the sweep"  # the long work planner.engine.shared.advance is told of
MAX_VALUES = 1000  # values per swept key
NOT_SWEPT = ("sweep", "name")  # a variant cannot sweep again; its name is made from its values


def check_key_path(root: type[BaseModel], dotted: str) -> None:
    """A swept key names one value or section of a scenario: sections are walked; inside a mapping of entries
    (catalog.models) the next part is an id, and the entry is walked on. A key past a plain value (memory.gpus.x),
    into a list's items (hours.allocations.1.mfu) or into an id-or-mapping choice (model.layers) is refused."""
    parts = dotted.split(".")
    shown = cut(dotted)
    if parts[0] in NOT_SWEPT:
        raise ValueError(f"key '{shown}': '{cut(parts[0])}' cannot be swept (a variant is named after its "
                         f"values and does not sweep again)")
    kind, inside, choice = "section", root, False
    for n, part in enumerate(parts):
        walked = ".".join(parts[:n])
        if part == "":
            raise ValueError(f"key '{shown}': an empty part: write dotted keys such as memory.gpus")
        if kind == "entries":
            if len(part) > ID_MAX:
                raise ValueError(f"key '{shown}': the id {cut(part)!r} is longer than {ID_MAX} characters, "
                                 f"the longest a Catalog id may be")
            kind, inside = _kind(inside)
            continue
        if kind == "list":
            raise ValueError(f"key '{shown}': {walked} is a list, whose items cannot be swept one by one: "
                             f"sweep the whole list ({walked}: [[…], […]])")
        if kind == "value":
            hint = (f"; sweep {walked} itself, or an entry's fields under catalog (catalog.models.<id>.layers)"
                    if choice else f"; sweep {walked} itself")
            raise ValueError(f"key '{shown}': {walked} is a value, with no keys inside it{hint}")
        fields = inside.model_fields
        if part not in fields:
            raise ValueError(f"key '{shown}': no key {cut(part)!r}{did_you_mean(part, fields)}"
                             f" allowed: {', '.join(fields)}")
        kind, inside = _kind(fields[part].annotation)
        choice = _is_choice(fields[part].annotation)


def _kind(annotation) -> tuple[str, Any]:
    """What a key of this type holds: ("section", its model), ("entries", each entry's type) for a mapping of ids,
    ("list", None) or ("value", None); an id-or-mapping choice (model, gpu, cluster.profile) is a value."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _kind(typing.get_args(annotation)[0])
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "section", annotation
    if origin is dict:
        return "entries", typing.get_args(annotation)[1]
    if origin is list:
        return "list", None
    if origin in (typing.Union, types.UnionType):
        kinds = [_kind(a) for a in typing.get_args(annotation) if a is not type(None)]
        if len(kinds) == 1:
            return kinds[0]
    return "value", None


def _is_choice(annotation) -> bool:
    """An id or a mapping (model, gpu): a union with a section or list among its alternatives."""
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _is_choice(typing.get_args(annotation)[0])
    return origin in (typing.Union, types.UnionType) and any(
        _kind(a)[0] != "value" for a in typing.get_args(annotation) if a is not type(None))


def check_keys(sweep: dict, base: dict) -> list[str]:
    """Problems with the swept keys taken together, before anything is expanded: two keys that overlap (memory and
    memory.gpus), a key whose parent is a value in the scenario (model.layers where model is an id), and a swept
    value that holds a sweep of its own."""
    problems = []
    keys = list(sweep)
    for i, key in enumerate(keys):
        for other in keys[i + 1:]:
            if other.startswith(key + ".") or key.startswith(other + "."):
                problems.append(f"keys '{cut(key)}' and '{cut(other)}' overlap: one sets the other's value; "
                                f"sweep one of them")
        node, parts = base, key.split(".")
        for n, part in enumerate(parts[:-1]):
            node = node.get(part) if isinstance(node, dict) else None
            if node is None:
                break
            if not isinstance(node, dict):
                walked = ".".join(parts[:n + 1])
                problems.append(f"key '{cut(key)}': {walked} is {quoted(node)} in this scenario, a value with "
                                f"no keys inside it: sweep {walked} itself")
                break
        for value in sweep[key]:
            if _holds_sweep(value):
                problems.append(f"key '{cut(key)}': the value {quoted(value)} holds a sweep of its own: a "
                                f"variant cannot sweep again")
                break
    return problems


def _holds_sweep(value) -> bool:
    """Whether a swept value is or holds a mapping with a `sweep` key (the file nests at most 20 levels)."""
    if isinstance(value, dict):
        return "sweep" in value or any(_holds_sweep(v) for v in value.values())
    if isinstance(value, list):
        return any(_holds_sweep(v) for v in value)
    return False


def count(sweep: dict) -> int:
    found = 1
    for values in sweep.values():
        found *= len(values)
    return found


class Variants:
    """A sweep's variants, made one at a time when asked for: a parsed variant holds about 20 KB, so the 10,000 of a
    large sweep held at once would be 0.2 GB (2 GB at 100,000). Made, the product is counted (at most MAX_VARIANTS)
    and the keys checked, before any variant is; `check` then parses each in turn and lets it go, and ScenarioError
    lists every variant's problems. A variant k is the k-th of the keys' cartesian product (itertools.product's
    order: the last key's values fastest), named after its values."""

    def __init__(self, scenario, source: str, lines: dict, parse):
        self.at, _ = where(("sweep",), source, lines)
        self.total = count(scenario.sweep)
        if self.total > MAX_VARIANTS:
            sizes = " × ".join(f"{len(v):,}" for v in scenario.sweep.values())
            shown = f"{self.total:,}" if self.total < 10**15 else f"{float(self.total):.3g}"
            more = f" (`planner batch --yes`: {WITH_YES:,})" if MAX_VARIANTS < WITH_YES else ""
            raise ScenarioError([f"{self.at}: sweep: {shown} variants ({sizes} values); a sweep may have at most "
                                 f"{MAX_VARIANTS:,}{more}"], [("sweep",)])
        self.keys, self.values = list(scenario.sweep), list(scenario.sweep.values())
        self.base = scenario.model_dump(mode="json", exclude_none=True, exclude={"sweep"})
        problems = check_keys(scenario.sweep, self.base)
        if problems:
            raise ScenarioError([f"{self.at}: sweep: {problem}" for problem in problems], [("sweep",)])
        self.scenario, self.name, self.parse = scenario, scenario.name, parse
        self.ready = None  # (label, variant) → None: what reading the file adds to each variant (its logs)
        self.shares_inputs = False  # every variant reads the files the scenario reads (no swept key changes them)

    def __len__(self) -> int:
        return self.total

    def __iter__(self) -> Iterator[tuple[str, Any]]:
        """(label, variant) for each variant in turn, each made as it is reached."""
        for k in range(self.total):
            yield self.label(k), self.variant(k)

    def chosen(self, k: int) -> tuple:
        """The k-th variant's values, one per key."""
        picked = []
        for values in reversed(self.values):
            k, i = divmod(k, len(values))
            picked.append(values[i])
        return tuple(reversed(picked))

    def label(self, k: int) -> str:
        return ", ".join(f"{key}={plain_text(value)}" for key, value in zip(self.keys, self.chosen(k)))

    def axes(self, k: int) -> dict:
        """The k-th variant's values by swept key, in words (the index's and summary's sweep columns)."""
        return {key: plain_text(value) for key, value in zip(self.keys, self.chosen(k))}

    def variant_name(self, k: int) -> str:
        return variant_name(self.name, self.label(k))

    def variant(self, k: int):
        """The k-th variant, parsed (ScenarioError names the sweep's line and the variant)."""
        label = self.label(k)
        data = with_changes(self.base, dict(zip(self.keys, self.chosen(k))))
        data["name"] = variant_name(self.name, label)
        if "sweep" in data:
            raise ScenarioError([f"{self.at}: sweep variant [{cut(label)}]: a variant cannot have a sweep of its "
                                 f"own"], [("sweep",)])
        made = self.parse(data, f"{self.at}: sweep variant [{cut(label)}]")
        if self.ready is not None:
            self.ready(label, made)
        return made

    def check(self, said: bool = True) -> None:
        """Every variant made in turn and let go (none is kept); ScenarioError lists every one's problems. The
        sweep's size is said (planner.engine.shared.advance) before the first is made, and each counted on its bar
        (not `said`: a second look, at the variants' own files, counted already)."""
        from planner.engine.shared import advance

        problems: list[str] = []
        if said:
            advance(EXPANDING, 0, total=self.total, unit="variant")  # the size said before the work starts
        for k in range(self.total):
            if said:
                advance(EXPANDING, 1, unit="variant")
            try:
                self.variant(k)
            except ScenarioError as exc:
                problems += exc.problems
        if problems:
            raise ScenarioError(problems, [("sweep",)])


def variant_name(name: str, label: str) -> str:
    """"name [label]", cut with "…]" where it would be longer than a scenario's name may be."""
    text = f"{name} [{label}]"
    return text if len(text) <= NAME_MAX else text[:NAME_MAX - 2] + "…]"


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
