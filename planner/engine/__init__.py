"""Pure numbers: one module per table, scalars or numpy arrays in, no I/O. `compute` runs every table of the
registry in order, each seeing the tables before it."""

from __future__ import annotations

from dataclasses import dataclass

from planner.engine.catalog import model_columns
from planner.tables import TABLES


@dataclass
class Results:
    """Every table for one scenario: what the workbook caches, the HTML shows and the JSON holds."""

    scenario: object
    catalog: dict  # the Catalog sheet's derived model columns
    tables: dict  # table key → its result, in table order

    def __getattr__(self, key: str):
        tables = self.__dict__.get("tables", {})
        if key in tables:
            return tables[key]
        raise AttributeError(key)

    @property
    def headline(self) -> dict:
        return {name: value for table in self.tables.values() for name, value in table.headline.items()}

    @property
    def checks(self) -> dict[str, bool]:
        """The engine's side of the Checks sheet's table checks."""
        return {key: value for table in self.tables.values() for key, value in table.checks.items()}

    @property
    def all_checks_pass(self) -> bool:
        return all(self.checks.values())

    def to_json(self) -> dict:
        return {"scenario": self.scenario.normalised(), "headline": self.headline,
                "tables": {key: table.to_json() for key, table in self.tables.items()}}


def compute(scenario) -> Results:
    tables: dict = {}
    for table in TABLES:
        tables[table.key] = table.engine.compute(scenario, dict(tables))
    return Results(scenario, model_columns(scenario.merged_catalog), tables)
