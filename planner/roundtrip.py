"""A workbook back into a scenario: what `planner verify` checks against and `planner import` writes.

Each input cell has a workbook-level name, the scenario key path joined by "_" (memory_tensor_parallel ↔
memory.tensor_parallel). Every Catalog row with an id comes back in the scenario's `catalog:` section; the scenario
model then keeps only what differs from the shipped catalog, so an edited or added row reads back as the scenario's
own entry and an untouched one disappears.
"""

from __future__ import annotations

import datetime as dt
import math
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel

from planner import xlsx
from planner.engine.budget import AVERAGE_ROWS_MAX
from planner.engine.calendar import date_of
from planner.engine.plan.months import CALENDAR_ROWS_MAX
from planner.engine.shared import MonthRows
from planner.scenario import Scenario, ScenarioError, parse_scenario
from planner.scenario.catalog_entries import MAX_OWN_ENTRIES
from planner.scenario.errors import cut, dotted, quoted, section_class
from planner.tables import TABLES
from planner.workbook.catalog_sheet import API_OFFERS, BLOCKS, EMPTY_ROWS, PROFILES, TRAFFIC_PRESETS, block_length
from planner.listing import TYPED_IN, same_text

LOOKED_UP = ("price_per_gpu_hour",)  # inputs' names the Inputs sheet fills with a formula (the chosen GPU's price
# from Catalog, whose cell is the input)
INPUT_SHEETS = ("Inputs", "Catalog")  # where the input cells are
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
        section = section_class(annotation) if in_list or _is_section(annotation) else _pair(annotation)
    return tuple(path)


def _pair(annotation):
    """A number's alternative pair of pools (§15.1: ownership.gpus {prefill, decode}), whose cells follow it."""
    found = section_class(annotation)
    return found if getattr(found, "pool_pair", False) else None


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
            if node.get(part) is None:  # a pair's cell after its blank one-number cell (§15.1)
                node[part] = [] if isinstance(following, int) else {}
            node = node[part]
    last = path[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
    if value is None and not isinstance(last, int) and isinstance(node.get(last), dict):  # a pair's blank number
        return
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
    cached: Any = None  # a formula's cached result

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

    def cells(self, name: str, longest: int | None = None) -> list[list[Cell]]:
        """The cells a defined name covers, as rows of cells, as typed; WorkbookError when the workbook lacks it,
        when it reaches past Excel's grid or, with `longest`, when it covers more rows or columns than that."""
        found = self.book.destinations(name)
        if not found:
            text = self.book.names.get(name)
            why = "is missing" if text is None else f"names no cells ({quoted(text)})"
            raise xlsx.WorkbookError(f"not a planner workbook, or a damaged one: the defined name {name} {why}")
        sheet, ref = found[0]
        try:
            (c1, r1), (c2, r2) = (xlsx.split(end) for end in (ref.partition(":")[0], ref.partition(":")[2] or ref))
        except xlsx.WorkbookError as exc:
            raise xlsx.WorkbookError(f"a damaged planner workbook: the defined name {name}: {exc.reason}") from None
        length = max(abs(r2 - r1), abs(c2 - c1)) + 1
        if longest is not None and length > longest:
            raise xlsx.WorkbookError(f"{sheet}!{ref} ({name}): a Catalog block of {length:,} rows; the planner "
                                     f"reads at most {longest:,} (its shipped entries, {MAX_OWN_ENTRIES:,} of the "
                                     f"scenario's own and {EMPTY_ROWS} empty rows): not read")
        return [[Cell(_typed(cell), f"{sheet}!{a1}", cell.formula, cell.value) for a1, cell in row]
                for row in self.book.block(sheet, ref)]

    def block(self, block_spec, name: str) -> list[Cell]:
        """A Catalog block's column (profiles: its row of ids, or its rows of hours), capped at block_length."""
        return self.cells(name, block_length(block_spec))


def _catalog(book: _Book, where: dict, problems: list) -> dict:
    """Every Catalog row (or profile column) with an id, as the scenario's `catalog:` section. A blank where a value
    is required comes back as "" (never as the shipped value), so the scenario refuses it naming its cell. An id
    typed twice in a block is a problem (line, key) naming both cells; the first row is read."""
    section: dict = {}
    seen: dict = {}  # (block, id) → the cell it was first typed in

    def first(key: str, id_cell: Cell) -> bool:
        """True the first time an id is met in its block; else the problem is noted."""
        at = seen.setdefault((key, _id(id_cell)), id_cell.address)
        if at != id_cell.address:
            problems.append((f"{book.book.path}: {id_cell.address}: catalog.{key}.{cut(_id(id_cell))}: the id is "
                             f"typed twice in its block, first in {at}: one row per id (the first is read, the other "
                             f"is not)", ("catalog", key, _id(id_cell))))
            return False
        return True

    for block_spec in (block for block in BLOCKS if block.shape == "fields" and (
            book.has(block.ids) or block is not API_OFFERS)):  # a workbook from before API offers has no such block
        key = block_spec.section
        ids = [row[0] for row in book.block(block_spec, block_spec.ids)]
        columns = {c.key: ([row[0] for row in book.block(block_spec, block_spec.name(c))]
                           if book.has(block_spec.name(c)) or not c.allowed.optional else None, c.allowed.optional)
                   for c in block_spec.columns if c.allowed is not None}  # None: a column an older version lacked
        for i, id_cell in enumerate(ids):
            if id_cell.value in (None, "") or not first(key, id_cell):
                continue
            entry = {}
            for key_name, (cells, optional) in columns.items():
                if cells is None:  # a column the planner version that made the workbook did not write: blank
                    continue
                if i >= len(cells):
                    raise xlsx.WorkbookError(f"a damaged planner workbook: the defined name "
                                             f"{block_spec.name(block_spec.columns[0])} is shorter than "
                                             f"{block_spec.ids}")
                value = cells[i].value
                if value is FORMULA and key_name != "params":  # typed over a value (audit names it; import takes
                    value = cells[i].cached  # it only with --take-cached): its cached value, as for Inputs
                if value is None and not optional:
                    value = ""
                if value is not FORMULA and value is not None:
                    entry[key_name] = value
                    where[("catalog", key, _id(id_cell), key_name)] = cells[i].address
            section.setdefault(key, {})[_id(id_cell)] = entry
            where[("catalog", key, _id(id_cell))] = id_cell.address
    section |= {"engines": _engines(book)} if book.has("catalog_engine_engine") else {}
    ids = [row[0] for row in book.block(TRAFFIC_PRESETS, TRAFFIC_PRESETS.ids)]
    tokens = [row[0] for row in book.block(TRAFFIC_PRESETS, TRAFFIC_PRESETS.name(TRAFFIC_PRESETS.columns[0]))]
    for id_cell, cell in zip(ids, tokens):
        if id_cell.value not in (None, "") and first("traffic_presets", id_cell):
            section.setdefault("traffic_presets", {})[_id(id_cell)] = "" if cell.written is None else cell.written
            where[("catalog", "traffic_presets", _id(id_cell))] = cell.address
    ids = book.block(PROFILES, PROFILES.ids)[0]
    hours = book.block(PROFILES, PROFILES.name(PROFILES.columns[0]))
    for col, id_cell in enumerate(ids):
        if id_cell.value not in (None, "") and first("profiles", id_cell):
            section.setdefault("profiles", {})[_id(id_cell)] = ["" if col >= len(row) or row[col].written is None
                                                              else row[col].written for row in hours]
            where[("catalog", "profiles", _id(id_cell))] = id_cell.address
    return section


def _engines(book: _Book) -> list[dict]:
    """The engines table's rows other than the shipped ones as written (docs/method.md §14.3), as catalog.engines:
    its cells are the planner's (filled), so each comes back given."""
    from planner.shipped import ENGINES
    from planner.workbook.catalog_sheet import ENGINE_COLUMNS

    columns = {key: [row[0].value for row in book.cells(f"catalog_engine_{key}")] for key, _, _ in ENGINE_COLUMNS}
    found = []
    for i in range(len(columns["engine"])):
        entry = {key: values[i] for key, values in columns.items() if values[i] not in (None, "")}
        shipped = ENGINES.get((entry.get("engine"), entry.get("gpu"), entry.get("precision")))
        if shipped is None or any(entry.get(key) != value for key, value in
                                  {**shipped.priors, "source": shipped.source, "as_of": shipped.as_of}.items()):
            found.append(entry)
    return found


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
    problems: list = field(default_factory=list)  # (line, key) of what the workbook holds that no scenario can:
    # a Catalog id typed twice
    as_generated: dict = field(default_factory=dict)  # an input's key path → its value when generated, as the
    # scenario counts it
    formulas: list = field(default_factory=list)  # (Sheet!A1, name, formula, cached value) of each input cell that
    # holds a formula: its cached value is read as the input
    changed: list = field(default_factory=list)  # (Sheet!A1 (name), value, value when generated) of each input
    # changed since generation, in sheet order
    snapshots: list | None = None  # the Scenarios sheet's snapshot values as held (rows of key results), if any
    held: dict = field(default_factory=dict)  # every other snapshot (a name ending _snapshot) → its rows of values
    generated_on: Any = None  # the day it was generated (the Cost sheet's generated_on), which a blank start follows
    month_rows: MonthRows | None = None  # the Budget's month rows, which the engine lays the plan on to compare

    def scenario(self) -> Scenario:
        """The scenario; ScenarioError names the cells (the workbook's own problems first)."""
        lines, keys = [line for line, _ in self.problems], [key for _, key in self.problems]
        try:
            scenario = parse_scenario(self.data, self.source, self.where)
        except ScenarioError as exc:
            raise ScenarioError(lines + exc.problems, keys + exc.keys) from None
        if lines:
            raise ScenarioError(lines, keys)
        scenario._external.update(self.external)
        return scenario


def workbook_data(path: Path | xlsx.Workbook) -> WorkbookData:
    """What a workbook (a file, or one already read) holds; WorkbookError when the file is not an xlsx workbook or
    is damaged, KeyError when it lacks a name the planner writes."""
    book = path if isinstance(path, xlsx.Workbook) else xlsx.read(Path(path))
    for sheet in INPUT_SHEETS:
        if sheet not in book.sheets:
            raise xlsx.WorkbookError(f"the sheet {sheet} is missing: it holds the workbook's inputs, so nothing can be "
                                     f"read back")
    source = str(book.path)
    reader = _Book(book)
    found = WorkbookData(source=source, data={}, where={}, external={}, catalog_rows={}, generated={})
    named = _scenario_names(reader, found.problems)
    for name in book.names:
        _read_input(book, name, named, found)
    data = found.data
    if named:  # in the workbook's order, a scenario whose column is blank as the base
        data["scenarios"] = {scenario: data.get("scenarios", {}).get(scenario, {}) for scenario in named}
    for name in ("scenario_name", "scenario_description"):
        if reader.has(name):
            data[name.removeprefix("scenario_")] = reader.cells(name)[0][0].written or ""
    data["catalog"] = _catalog(reader, found.where, found.problems)
    found.external = {t.key: t.inputs.EXTERNAL.from_workbook(reader, data, source) for t in TABLES
                      if t.inputs.EXTERNAL is not None}
    found.catalog_rows = {block.ids: [str(cell.written) if cell.written not in (None, "") else ""
                                      for row in reader.block(block, block.ids) for cell in row] for block in BLOCKS
                          if reader.has(block.ids) or block is not API_OFFERS}
    found.snapshots = [[cell.value for cell in row] for row in reader.cells("scenario_snapshots")] \
        if reader.has("scenario_snapshots") and _on_a_sheet(book, "scenario_snapshots") else None
    found.held = {name: [[cell.value for cell in row] for row in reader.cells(name)] for name in book.names
                  if name.endswith("_snapshot")}
    found.generated_on = _day(reader.cells("generated_on")[0][0].value) if reader.has("generated_on") else None
    if reader.has("calendar_in_plan") and reader.has("budget_month_phase"):
        found.month_rows = MonthRows(calendar=len(reader.cells("calendar_in_plan", longest=CALENDAR_ROWS_MAX)),
                                     average=len(reader.cells("budget_month_phase", longest=AVERAGE_ROWS_MAX)))
    _read_price(book, found)
    _catalog_changes(reader, found)
    found.changed.sort(key=lambda item: xlsx.split(item[0].split("!")[1].split(" ")[0])[::-1])
    return found


def _catalog_changes(reader: _Book, found: WorkbookData) -> None:
    """Each Catalog value typed since generation, against the block's snapshot (its hidden columns): where, what
    it is now and what it was; a workbook without the snapshot (an older planner's) has nothing to compare."""
    for block in BLOCKS:
        name = f"{block.prefix}_snapshot"
        if block.shape != "fields" or not reader.has(name) or not reader.has(block.ids):
            continue
        snapshot = reader.cells(name)
        columns = [(0, block.ids)] + [(i, block.name(c)) for i, c in enumerate(block.columns, start=1)
                                      if c.allowed is not None and reader.has(block.name(c))]
        cells = {i: reader.column(cell_name) for i, cell_name in columns}
        for r, row in enumerate(snapshot):
            entry = cells[0][r].value if r < len(cells[0]) else None
            for i, cell_name in columns:
                if r >= len(cells[i]) or i >= len(row) or cells[i][r].value is FORMULA:
                    continue
                now, then = cells[i][r].value, row[i].value
                if not same_text("" if now is None else now, "" if then is None else then):
                    what = f"{cell_name}, {entry or then or 'a new row'}"
                    found.changed.append((f"{cells[i][r].address} ({what})", now, then))


def _read_price(book: xlsx.Workbook, found: WorkbookData) -> None:
    """The chosen GPU's Catalog price, shown on Inputs beside its value when generated: changed since, when the
    Catalog row now holds another (a Catalog value the results read, edited on Catalog)."""
    name = LOOKED_UP[0]
    if name in found.generated or len(book.destinations(name)) != 1:
        return
    sheet, ref = book.destinations(name)[0]
    column, row = xlsx.split(ref)
    then = _typed(book.cell(sheet, f"{xlsx.column_letter(column + 1)}{row}"))
    if sheet != "Inputs" or then is FORMULA or then is None or f"{name}_base" in book.names:
        return
    found.generated[name] = then
    entry = found.data.get("catalog", {}).get("gpus", {}).get(str(found.data.get("gpu")), {})
    now = entry.get("price_per_hour") if isinstance(entry, dict) else None
    if now is not None and not same_text(now, then):
        found.changed.append((f"{sheet}!{ref} ({name}, the GPU's Catalog price)", now, then))


def _day(value) -> dt.date | None:
    """A serial day as a date; None for anything else."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 1 <= value < 2_958_466:
        return date_of(value)
    return None


def _read_input(book: xlsx.Workbook, name: str, named: list[str], found: WorkbookData) -> None:
    """The input a defined name names on Inputs, if it names one, into `found`: its value (a Base column's with
    named scenarios, and each scenario's beside it), where it is, its value when generated, and whether it holds a
    formula or changed since generation."""
    owner, column = _column_of(name, named, book.names)
    if column is not None:  # a scenario's typed cell: what it changes, read beside its input
        return
    key, scale = _typed_in(owner)
    path_parts = key_path(key)
    destinations = book.destinations(name)
    if path_parts is None or len(destinations) != 1 or path_parts[0] == "catalog":
        return
    sheet, ref = live_sheet, live_ref = destinations[0]
    if sheet != "Inputs" or ":" in ref:
        return
    if f"{name}_base" in book.names and book.destinations(f"{name}_base"):  # the Live cell: the typed one is the
        sheet, ref = book.destinations(f"{name}_base")[0]  # Base column's
        for scenario in named:
            _scenario_cell(book, f"{name}_{scenario}", scenario, path_parts, scale=scale, found=found)
    typed = book.cell(sheet, ref)
    value = _typed(typed)
    if value is FORMULA and (name in LOOKED_UP or any(f"{name}_{suffix}" in book.names
                                                      for suffix, _, _ in TYPED_IN.values())):
        return  # the planner's own formula: the input is read from the cell it reads
    if value is FORMULA:  # typed over an input: its cached value stands in, and the formula is noted
        found.formulas.append((f"{sheet}!{ref}", name, typed.formula, typed.value))
        value = typed.value
    column, row = xlsx.split(live_ref)  # "When generated" is right of the cell the input's name names
    then = _typed(book.cell(live_sheet, f"{xlsx.column_letter(column + 1)}{row}"))
    found.generated[name] = None if then is FORMULA else then
    value, then_value = _counted(value, scale, key), _counted(found.generated[name], scale, key)
    if then_value is not None:
        found.as_generated[path_parts] = then_value
    typed_value = typed.value if value is typed.value else _typed(typed)
    if found.generated[name] is not None and not same_text(typed_value, found.generated[name]):
        found.changed.append((f"{sheet}!{ref} ({name})", typed_value, found.generated[name]))
    if _overflows(value):  # refused naming its cell; its value when generated stands in for what else is read
        found.problems.append((_overflow(found.source, f"{sheet}!{ref} ({name})", path_parts, typed_value, name),
                               path_parts))
        value = then_value
    _set(found.data, path_parts, value)
    for n in range(len(path_parts), 0, -1):  # a section's problem points at its first input
        found.where.setdefault(path_parts[:n], f"{sheet}!{ref} ({name})")


def _scenario_names(reader: _Book, problems: list) -> list[str]:
    """The named scenarios, in their columns' order, as Inputs' typed cells' names give them (<input>_<scenario>
    on the row of <input>_base); the Scenarios sheet's headings (scenario_names) must say the same: each that
    does not is a problem naming its cell (a heading blanked or retyped)."""
    book = reader.book
    columns: dict[str, int] = {}
    bases = {name.removesuffix("_base"): book.destinations(name) for name in book.names if name.endswith("_base")}
    for name in book.names:
        owner, _, scenario = name.rpartition("_")
        while owner and owner not in bases:
            owner, _, rest = owner.rpartition("_")
            scenario = f"{rest}_{scenario}"
        found, base = book.destinations(name), bases.get(owner)
        if not owner or scenario == "base" or len(found) != 1 or not base or found[0][0] != base[0][0] or \
                xlsx.split(found[0][1].partition(":")[0])[1] != xlsx.split(base[0][1].partition(":")[0])[1]:
            continue
        column = xlsx.split(found[0][1].partition(":")[0])[0]
        columns[scenario] = min(column, columns.get(scenario, column))
    named = sorted(columns, key=columns.get)
    if named and reader.has("scenario_names") and _on_a_sheet(book, "scenario_names"):
        headings = reader.column("scenario_names")
        for cell, expected in zip(headings, ["base", *named]):
            if cell.written != expected:
                shown = "blank" if cell.written in (None, "") else quoted(cell.written)
                problems.append((f"{book.path}: {cell.address} (scenario_names): the heading of the scenario "
                                 f"{expected}'s column is {shown}, but its cells on Inputs are named for {expected} "
                                 f"(…_{expected}): the heading was edited; type {expected} back",
                                 ("scenarios", expected)))
    return named


def _on_a_sheet(book: xlsx.Workbook, name: str) -> bool:
    """Whether a defined name's sheet is in the workbook (a deleted sheet leaves its names pointing nowhere)."""
    found = book.destinations(name)
    return bool(found) and found[0][0] in book.sheets


def _column_of(name: str, named: list[str], names) -> tuple[str, str | None]:
    """A scenario column's typed cell (hours_mfu_low → ("hours_mfu", "low")), or (name, None) for any other name;
    the Base column's (hours_mfu_base) counts too, as it is read beside its input."""
    for scenario in ("base", *named):
        owner = name.removesuffix(f"_{scenario}")
        if owner != name and owner in names:
            return owner, scenario
    return name, None


def _scenario_cell(book: xlsx.Workbook, name: str, scenario: str, path: tuple, *, scale: float | None,
                   found: WorkbookData) -> None:
    """What a scenario's column holds for an input: nothing when blank (as base), else a key of its scenario."""
    cells = book.destinations(name)
    if len(cells) != 1:
        return
    sheet, ref = cells[0]
    cell = book.cell(sheet, ref)
    value = _typed(cell)
    if value is FORMULA:
        value = cell.value  # typed over: its cached value stands in (audit names the formula)
    if value is None or value == "":
        return
    key = dotted(path)
    found.where.setdefault(("scenarios", scenario), f"{sheet}, column {xlsx.column_letter(xlsx.split(ref)[0])} "
                                                    f"({scenario})")
    found.where[("scenarios", scenario, key)] = f"{sheet}!{ref} ({name})"
    if _overflows(_counted(value, scale)):  # refused naming its cell; as base for what else is read
        found.problems.append((_overflow(found.source, f"{sheet}!{ref} ({name})", ("scenarios", scenario, key),
                                         value, name), ("scenarios", scenario, key)))
        return
    found.data.setdefault("scenarios", {}).setdefault(scenario, {})[key] = _counted(value, scale, "_".join(path))


def _overflows(value) -> bool:
    return isinstance(value, float) and not math.isfinite(value)


def _overflow(source: str, cell: str, path: tuple, typed, name: str) -> str:
    """A number typed in the unit shown (trillions) that no number can hold once counted: what to say."""
    unit = next((suffix for suffix, _, _ in TYPED_IN.values() if f"_{suffix}" in name), "in the unit shown")
    return f"{source}: {cell}: {dotted(path)}: {quoted(typed)} {unit} is more than any number holds: not allowed"


def _counted(value, scale: float | None, name: str = ""):
    """A value typed in the unit shown (trillions of tokens) as the scenario counts it; a date input's serial day
    as the scenario writes a date (2027-01-01); any other as typed (a number where a date goes stays one, which the
    scenario refuses naming the cell)."""
    if scale and isinstance(value, (int, float)) and not isinstance(value, bool):
        counted = value * scale
        return round(counted) if math.isfinite(counted) else counted  # past any limit: refused naming the cell
    if name in _dates() and isinstance(value, (int, float)) and not isinstance(value, bool) and value == int(value):
        day = _day(value)
        return day.isoformat() if day is not None else value
    return value


def _dates() -> frozenset:
    """The names of the inputs typed as dates."""
    global _DATES
    if _DATES is None:
        from planner.scenario import DEFAULT
        from planner.listing import scenario_inputs

        _DATES = frozenset(i.name for i in scenario_inputs(DEFAULT) if i.kind == "date")
    return _DATES


_DATES: frozenset | None = None


def _typed_in(name: str) -> tuple[str, float | None]:
    """An input cell's name without the suffix of the unit it is typed in (hours_tokens_trillions → hours_tokens),
    and that unit's scale."""
    for suffix, scale, _ in TYPED_IN.values():
        if name.endswith(f"_{suffix}"):
            return name.removesuffix(f"_{suffix}"), scale
    return name, None


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


__all__ = ["workbook_data", "scenario_yaml", "key_path", "ScenarioError", "FORMULA"]
