"""The table registry: the one place a table is named. `compute`, the workbook (its sheets, Inputs, Cover key
results, Checks and Method), the HTML summary and the JSON results all iterate TABLES, in table order.

A table with key K is four files and one line below:
- `planner/engine/K.py`, pure numbers: `compute(scenario, earlier) -> result`, where `earlier` maps the keys of the
  tables before it to their results (Crossover reads Hours). The result has `headline` ({defined name: value}),
  `checks` ({check key: bool}, the engine's side of the Checks sheet) and `to_json()`. The module also holds
  `METHOD` (a Method: title, formulas, sources, caveats in words) and `CONSTANTS` (the method constants its
  formulas use, each a named cell on the Method sheet).
- `planner/workbook/K.py`, the sheet: `SHEET` (its name), `INPUTS` (the scenario sections whose fields it lists on
  Inputs; labels, units and limits are declared on the scenario model), `write(book, results)` (which may add a
  sheet of its own after its table's, as Goodput adds Requests), `KEY_RESULTS` (kit.KeyResult rows for the Cover)
  and `CHECKS` (kit.Check rows for the Checks sheet, keyed like the engine's).
- `planner/report/K.py`, the HTML section: `findings(results)` (sentences), `charts(results)` ({name: SVG}) and
  `SUMMARY` ((headline name, heading, kind) rows: the table's columns in a batch's index and summary).
- `templates/K.html.j2`, the section's tables and charts.

Modules are imported when first used, so a command pays only for the layers it needs.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class Table:
    key: str  # names its modules, its template, its JSON table and its Method section

    @property
    def engine(self) -> ModuleType:
        return importlib.import_module(f"planner.engine.{self.key}")

    @property
    def sheet(self) -> ModuleType:
        return importlib.import_module(f"planner.workbook.{self.key}")

    @property
    def report(self) -> ModuleType:
        return importlib.import_module(f"planner.report.{self.key}")

    @property
    def template(self) -> str:
        return f"{self.key}.html.j2"


TABLES = [
    Table("memory"),
    Table("hours"),
    Table("crossover"),
    Table("cluster"),
    Table("goodput"),
]
