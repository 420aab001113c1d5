"""Pure numbers: one module per table, scalars or numpy arrays in, no I/O. `compute` runs them all."""

from __future__ import annotations

from dataclasses import dataclass

from planner.engine.hours import HoursTable, hours_table
from planner.engine.memory import MemoryTable, memory_table, model_catalog


@dataclass
class Results:
    """Every table for one scenario: what the workbook caches, the HTML shows and the JSON holds."""

    scenario: object
    catalog: object  # the models in the workbook's Catalog, with the quantities derived from their architecture
    memory: MemoryTable
    hours: HoursTable

    @property
    def tables(self) -> dict:
        return {"memory": self.memory, "hours": self.hours}

    @property
    def headline(self) -> dict:
        return {name: value for table in self.tables.values() for name, value in table.headline.items()}

    @property
    def checks(self) -> dict[str, bool]:
        """The Checks sheet's table checks (inputs are valid by construction: the scenario was validated)."""
        return {key: value for table in self.tables.values() for key, value in table.checks.items()}

    @property
    def all_checks_pass(self) -> bool:
        return all(self.checks.values())

    def to_json(self) -> dict:
        return {"scenario": self.scenario.normalised(), "headline": self.headline,
                "tables": {name: table.to_json() for name, table in self.tables.items()}}


def compute(scenario) -> Results:
    return Results(scenario, model_catalog(scenario), memory_table(scenario), hours_table(scenario))
