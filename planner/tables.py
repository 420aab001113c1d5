"""The table registry: the one place a table is named. The scenario (its sections), `compute`, the workbook (its
sheets, Inputs, Cover key results, Checks and Method), the HTML summary, the JSON results and a batch's summary
all iterate TABLES, in table order; the protocols below say what each of a table's modules holds, and
tests/test_registry.py checks every table against them.

A table with key K is five files and one line below: planner/inputs/K.py, planner/engine/K.py,
planner/workbook/K.py, planner/report/K.py and planner/templates/K.html.j2. A module holds only what its table does:
what it leaves out of its protocol (no sections, rules, external data, constants, Cover results, checks or summary
columns) the registry's DEFAULTS give. Modules are imported when first used, so a command pays only for the layers
it needs.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Callable, Protocol, runtime_checkable


@runtime_checkable
class TableResult(Protocol):
    """What a table's engine computes for one scenario."""

    @property
    def headline(self) -> dict[str, Any]:
        """{defined name: value}: the workbook's named results, the JSON's headline."""

    @property
    def checks(self) -> dict[str, bool]:
        """{check key: passes}: the engine's side of the Checks sheet's rows of the same keys."""

    def to_json(self) -> dict:
        """The table's JSON: plain, finite values."""


@runtime_checkable
class InputsModule(Protocol):
    """planner/inputs/K.py: the table's scenario sections and their rules (each member has a default, DEFAULTS)."""

    SECTIONS: dict[str, type]  # scenario key → its Section class, each a field of the Scenario in this order
    EXTERNAL: Any  # None, or an ExternalData: files the table reads beside the scenario

    def canonical(self, scenario) -> list:
        """Defaults that follow other inputs, filled in place; returns problems (key path, value, message)."""

    def cross_checks(self, scenario, catalog) -> list:
        """Rules that join several inputs or the merged catalog; returns problems (key path, value, message)."""

    def present(self, scenario) -> bool:
        """Whether the scenario has this table once its sections are there (the API sheet: with an offer)."""


@runtime_checkable
class ExternalData(Protocol):
    """Data a table reads from files (Goodput's benchmark logs): loaded with the scenario, read back from a
    workbook, written beside a scenario that `planner import` makes."""

    def wanted(self, scenario) -> bool:
        """Whether the scenario names any such files."""

    def load(self, scenario, folder: Path, lines: dict) -> Any:
        """Read them, relative to `folder`; ScenarioError names the scenario's file, line and key."""

    def from_workbook(self, book, data: dict, source: str) -> Any:
        """What a workbook holds of them (None: nothing), adding its file entries to the scenario `data`."""

    def files_beside(self, scenario, found, stem: str, data: dict) -> dict[str, str]:
        """{file name: text} to write beside an imported scenario, pointing `data`'s entries at them."""

    def files(self, found, folder: Path) -> list[Path]:
        """The files `found` was read from, so no output of the scenario is written over one."""


@runtime_checkable
class EngineModule(Protocol):
    """planner/engine/K.py: pure numbers (CONSTANTS has a default, DEFAULTS)."""

    METHOD: Any  # a planner.method.Method: the table's formulas, sources and caveats in words
    CONSTANTS: list  # planner.method.Constant: the method constants its formulas use, named cells on Method

    def compute(self, scenario, tables) -> TableResult:
        """The table for one scenario; `tables` gives any other table's result by key (Crossover reads Hours)."""


@runtime_checkable
class SheetModule(Protocol):
    """planner/workbook/K.py: the sheet (KEY_RESULTS, CHECKS and WARNINGS have defaults, DEFAULTS)."""

    SHEET: str  # the sheet's name
    KEY_RESULTS: list  # kit.KeyResult rows for the Cover, naming headline results
    CHECKS: list  # kit.Check rows for the Checks sheet, keyed like the engine's checks
    WARNINGS: list  # kit.Warning rows for the Checks sheet, keyed like the engine's warnings
    write: Callable  # write(book, results): the sheet (and any sheet of its own after it, as Goodput's Requests)


@runtime_checkable
class ReportModule(Protocol):
    """planner/report/K.py: the HTML section, its template planner/templates/K.html.j2 (SUMMARY has a default,
    DEFAULTS)."""

    SUMMARY: list  # (headline name, heading, kind): the table's columns in a batch's index and summary
    findings: Callable  # findings(results) -> list of sentences
    charts: Callable  # charts(results) -> {name: inline SVG}


def _no_problems(*_) -> list:
    return []


def _always(_) -> bool:
    return True


# What a table's module may leave out, and what the registry then gives in its place (as pandas' Excel readers fall
# back to a default engine): a module holds only what it does.
DEFAULTS: dict[type, dict[str, Any]] = {
    InputsModule: {"SECTIONS": {}, "EXTERNAL": None, "canonical": _no_problems, "cross_checks": _no_problems,
                   "present": _always},
    EngineModule: {"CONSTANTS": []},
    SheetModule: {"KEY_RESULTS": [], "CHECKS": [], "WARNINGS": []},
    ReportModule: {"SUMMARY": []},
}


class Layer:
    """One of a table's modules as the registry hands it out: its own members, then the protocol's DEFAULTS."""

    __slots__ = ("module", "defaults")

    def __init__(self, module: ModuleType, protocol: type):
        self.module, self.defaults = module, DEFAULTS[protocol]

    def __getattr__(self, name: str) -> Any:
        try:
            return getattr(self.module, name)
        except AttributeError:
            if name in self.defaults:
                return self.defaults[name]
            raise


class _LayerOf:
    """A table's module of one layer, read as an attribute of the Table (table.sheet: planner/workbook/K.py), imported
    when first read and handed out as a Layer of its protocol."""

    def __init__(self, package: str, protocol: type):
        self.package, self.protocol = package, protocol

    def __get__(self, table: Table | None, owner: type) -> Any:
        if table is None:
            return self
        return Layer(importlib.import_module(f"planner.{self.package}.{table.key}"), self.protocol)


@dataclass(frozen=True)
class Table:
    key: str  # names its modules, its template, its JSON table and its Method section

    inputs = _LayerOf("inputs", InputsModule)  # an InputsModule
    engine = _LayerOf("engine", EngineModule)  # an EngineModule
    sheet = _LayerOf("workbook", SheetModule)  # a SheetModule
    report = _LayerOf("report", ReportModule)  # a ReportModule

    @property
    def template(self) -> str:
        return f"{self.key}.html.j2"

    def present(self, scenario) -> bool:
        """Whether the scenario has this table: every table does, except one whose sections the scenario leaves
        out (a section declared with `optional = True` defaults to None: Layouts without `search:`)."""
        return all(getattr(scenario, key, None) is not None for key in self.inputs.SECTIONS) and \
            self.inputs.present(scenario)


TABLES = [
    Table("memory"),
    Table("hours"),
    Table("serving"),
    Table("crossover"),
    Table("cluster"),
    Table("goodput"),
    Table("fleet"),
    Table("sensitivity"),
    Table("budget"),
    Table("cost"),
    Table("gpus"),
    Table("api"),
    Table("layouts"),
]


def present(scenario) -> list[Table]:
    """The scenario's tables, in table order: those whose sections it has."""
    return [t for t in TABLES if t.present(scenario)]


def raised_warnings(results) -> list[tuple[str, str, str]]:
    """The warnings that apply (docs/method.md §14.7; Cost's own): (key, label, what to take care about), in table
    order. The results stand: a warning fails no check."""
    found = []
    for t in present(results.scenario):
        for item in t.sheet.WARNINGS:
            if results.warnings.get(item.key):
                found.append((item.key, item.label, item.note))
    return found


def table(key: str) -> Table:
    """The table of that key."""
    return next(t for t in TABLES if t.key == key)


def optional(cls: type) -> bool:
    """A section the scenario may leave out (its table is then absent): its class says `optional = True`."""
    return bool(getattr(cls, "optional", False))


def sections() -> dict[str, tuple[Table, type]]:
    """Every table's scenario sections, in registry order: scenario key → (its table, its Section class)."""
    return {key: (t, cls) for t in TABLES for key, cls in t.inputs.SECTIONS.items()}
