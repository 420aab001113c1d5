"""A workbook back into a scenario: what `planner verify` checks against and `planner import` writes.

Each input cell has a workbook-level name, the scenario key path joined by "_" (memory_tensor_parallel ↔
memory.tensor_parallel). Every Catalog row with an id comes back in the scenario's `catalog:` section; the scenario
model then keeps only what differs from the shipped catalog, so an edited or added row reads back as the scenario's
own entry and an untouched one disappears.
"""

from __future__ import annotations

import types
import typing

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from planner import xlsx
from planner.scenario import Scenario, ScenarioError, parse_scenario
from planner.scenario.errors import section_class
from planner.tables import TABLES
from planner.workbook.catalog_sheet import BLOCKS, PROFILES, TRAFFIC_PRESETS
from planner.workbook.inputs import TYPED_IN

LOGICAL = {"=TRUE()": True, "=FALSE()": False}  # how LibreOffice saves TRUE and FALSE typed into a cell


def key_path(name: str) -> tuple | None:
    """memory_tensor_parallel → ("memory", "tensor_parallel"); hours_allocations_2_gpus → (..., 1, "gpus").
    None when the name is not a scenario key. Field names are matched longest first, as they contain "_"."""
    path: list = []
    section: Any = Scenario  # the model whose fields come next
    in_list = False  # the next part is a 1-based list position
    rest = name
    while rest:
        if in_list:
            index, _, rest = rest.partition("_")
            if not index.isdigit():
                return None
            path.append(int(index) - 1)
            in_list = False
            continue
        if section is None:
            return None
        fields = section.model_fields
        match = max((f for f in fields if rest == f or rest.startswith(f + "_")), key=len, default=None)
        if match is None:
            return None
        path.append(match)
        rest = rest[len(match) + 1:]
        annotation = fields[match].annotation
        in_list = getattr(annotation, "__origin__", None) is list
        section = section_class(annotation) if in_list or _is_section(annotation) else None
    return tuple(path)


def _is_section(annotation) -> bool:
    """A section, or an optional one (Search | None: a table the scenario may leave out)."""
    if isinstance(annotation, type):
        return issubclass(annotation, BaseModel)
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    return typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(args) == 1 and \
        _is_section(args[0])


def _set(data: dict, path: tuple, value: Any) -> None:
    node: Any = data
    for part, following in zip(path, path[1:]):
        if isinstance(part, int):
            while len(node) <= part:
                node.append({})
            node = node[part]
        else:
            node = node.setdefault(part, [] if isinstance(following, int) else {})
    last = path[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
    node[last] = value


def logical(formula) -> bool | None:
    """TRUE or FALSE as LibreOffice saves a typed constant (=TRUE(), =FALSE()); None for any other formula."""
    return LOGICAL.get(str(formula).upper().replace(" ", ""))


def _typed(cell: xlsx.Cell) -> Any:
    """A cell's value as typed: formulas are not inputs, except TRUE and FALSE as LibreOffice saves them."""
    if cell.formula is not None:
        found = logical(cell.formula)
        return FORMULA if found is None else found
    return cell.value


FORMULA = object()  # a formula cell: not an input


@dataclass(frozen=True)
class Cell:
    """A cell as typed: its value (TRUE and FALSE as LibreOffice saves them are booleans; another formula is
    FORMULA) and its address, Sheet!A1."""

    value: Any
    address: str
    formula: str | None = None

    @property
    def written(self) -> Any:
        """The value as typed, or a formula's own text (for a message naming what is there)."""
        return self.formula if self.value is FORMULA else self.value


class _Book:
    """A workbook read through its defined names."""

    def __init__(self, book: xlsx.Workbook):
        self.book = book

    def has(self, name: str) -> bool:
        return name in self.book.names

    def column(self, name: str) -> list[Cell]:
        """The cells of a one-column (or one-row) defined name, in order, as typed."""
        return [cell for row in self.cells(name) for cell in row]

    def cells(self, name: str) -> list[list[Cell]]:
        """The cells a defined name covers, as rows of cells, as typed; KeyError when the workbook lacks it."""
        found = self.book.destinations(name)
        if not found:
            raise KeyError(f"the defined name {name} is missing or names no cells")
        sheet, ref = found[0]
        return [[Cell(_typed(cell), f"{sheet}!{a1}", cell.formula) for a1, cell in row]
                for row in self.book.block(sheet, ref)]


def _catalog(book: _Book, where: dict) -> dict:
    """Every Catalog row (or profile column) with an id, as the scenario's `catalog:` section. A blank where a value
    is required comes back as "" (never as the shipped value), so the scenario refuses it naming its cell."""
    section: dict = {}
    for block_spec in (block for block in BLOCKS if block.shape == "fields"):
        key = block_spec.section
        ids = [row[0] for row in book.cells(block_spec.ids)]
        columns = {c.key: ([row[0] for row in book.cells(block_spec.name(c))], c.allowed.optional)
                   for c in block_spec.columns if c.allowed is not None}
        for i, id_cell in enumerate(ids):
            if id_cell.value in (None, ""):
                continue
            entry = {}
            for field, (cells, optional) in columns.items():
                value = cells[i].value
                if value is None and not optional:
                    value = ""
                if value is not FORMULA and value is not None:
                    entry[field] = value
                    where[("catalog", key, _id(id_cell), field)] = cells[i].address
            section.setdefault(key, {})[_id(id_cell)] = entry
            where[("catalog", key, _id(id_cell))] = id_cell.address
    ids = [row[0] for row in book.cells(TRAFFIC_PRESETS.ids)]
    tokens = [row[0] for row in book.cells(TRAFFIC_PRESETS.name(TRAFFIC_PRESETS.columns[0]))]
    for id_cell, cell in zip(ids, tokens):
        if id_cell.value not in (None, ""):
            section.setdefault("traffic_presets", {})[_id(id_cell)] = "" if cell.written is None else cell.written
            where[("catalog", "traffic_presets", _id(id_cell))] = cell.address
    ids = book.cells(PROFILES.ids)[0]
    hours = book.cells(PROFILES.name(PROFILES.columns[0]))
    for col, id_cell in enumerate(ids):
        if id_cell.value not in (None, ""):
            section.setdefault("profiles", {})[_id(id_cell)] = ["" if row[col].written is None else row[col].written
                                                              for row in hours]
            where[("catalog", "profiles", _id(id_cell))] = id_cell.address
    return section


def _id(cell: Cell) -> str:
    return str(cell.written)


@dataclass
class WorkbookData:
    """What a planner workbook holds, read in one pass: the scenario data its input cells and Catalog hold, as typed
    (not yet validated); where each key came from (Sheet!A1 (name)), for messages; the benchmark logs its Requests
    sheet holds (or None); and each Catalog block's ids in sheet order, empty rows included, so the
    workbook it is compared with is built with the same and a row typed into an empty one moves no cell."""

    source: str
    data: dict
    where: dict
    external: dict  # table key → its external data as the workbook holds it (Goodput's logs), or None
    catalog_rows: dict[str, list[str]]  # each Catalog block's ids in sheet order, "" for an empty row
    generated: dict = None  # an input cell's name → its "When generated" value (Inputs, beside it)

    def scenario(self) -> Scenario:
        """The scenario; ScenarioError names the cells."""
        scenario = parse_scenario(self.data, self.source, self.where)
        scenario._external.update(self.external)
        return scenario


def workbook_data(path: Path | xlsx.Workbook) -> WorkbookData:
    """What a workbook (a file, or one already read) holds; WorkbookError when the file is not an xlsx workbook or
    is damaged, KeyError when it lacks a name the planner writes."""
    book = path if isinstance(path, xlsx.Workbook) else xlsx.read(Path(path))
    source = str(book.path)
    reader = _Book(book)
    data: dict = {}
    where: dict = {}
    generated: dict = {}
    for name in book.names:
        key, scale = _typed_in(name)
        path_parts = key_path(key)
        destinations = book.destinations(name)
        if path_parts is None or len(destinations) != 1 or path_parts[0] == "catalog":
            continue
        sheet, ref = destinations[0]
        if sheet != "Inputs" or ":" in ref:
            continue
        value = _typed(book.cell(sheet, ref))
        if value is FORMULA:
            continue
        column, row = xlsx.split(ref)
        then = _typed(book.cell(sheet, f"{xlsx.column_letter(column + 1)}{row}"))
        generated[name] = None if then is FORMULA else then
        if scale and isinstance(value, (int, float)) and not isinstance(value, bool):
            value = round(value * scale)  # typed in the unit shown; the scenario counts
        _set(data, path_parts, value)
        for n in range(len(path_parts), 0, -1):  # a section's problem points at its first input
            where.setdefault(path_parts[:n], f"{sheet}!{ref} ({name})")
    for name in ("scenario_name", "scenario_description"):
        if reader.has(name):
            data[name.removeprefix("scenario_")] = reader.cells(name)[0][0].written or ""
    data["catalog"] = _catalog(reader, where)
    external = {t.key: t.inputs.EXTERNAL.from_workbook(reader, data, source) for t in TABLES
                if t.inputs.EXTERNAL is not None}
    rows = {block.ids: [str(cell.written) if cell.written not in (None, "") else "" for row in reader.cells(block.ids)
                        for cell in row] for block in BLOCKS}
    return WorkbookData(source, data, where, external, rows, generated)


def _typed_in(name: str) -> tuple[str, float | None]:
    """An input cell's name without the suffix of the unit it is typed in (hours_tokens_trillions → hours_tokens),
    and that unit's scale."""
    for suffix, scale, _ in TYPED_IN.values():
        if name.endswith(f"_{suffix}"):
            return name.removesuffix(f"_{suffix}"), scale
    return name, None


def scenario_from_workbook(path: Path) -> Scenario:
    """The scenario a planner workbook's input cells, Catalog and Requests sheet describe; ScenarioError names the
    cells."""
    return workbook_data(path).scenario()


def scenario_yaml(scenario: Scenario, stem: str | None = None) -> tuple[str, dict[str, str]]:
    """A scenario file for `scenario`, which loads back as the same scenario: every default written out, the
    Catalog's own entries only; and the files each table writes beside it (Goodput's benchmark logs, named after
    `stem`), which its entries then point at: (YAML text, {file name: text})."""
    data = scenario.normalised()
    data["catalog"] = {kind: entries for kind, entries in data["catalog"].items() if entries}
    if not data["catalog"]:
        del data["catalog"]
    files: dict[str, str] = {}
    for t in TABLES:
        hook = t.inputs.EXTERNAL
        found = scenario.external(t.key) if hook is not None else None
        if found is not None:
            if stem is None:
                raise ValueError(f"the scenario holds {t.key} data from files: name the scenario file, so they can be "
                                 f"written beside it")
            files.update(hook.files_beside(scenario, found, stem, data))
    header = "# Read from a planner workbook by `planner import`; `planner run` on this file rebuilds it.\n"
    return header + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100), files


__all__ = ["scenario_from_workbook", "workbook_data", "scenario_yaml", "key_path", "ScenarioError", "FORMULA"]
