"""Pure numbers: one module per table, scalars or numpy arrays in, no I/O. `compute` runs every table of the
registry that the scenario has (Layouts only with `search:`); a table may read any other table's result (Crossover
reads Hours), computed once when first asked for."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from planner.engine.shared import MonthRows
from planner.tables import present, table


@dataclass
class Results:
    """Every table for one scenario: what the workbook caches, the HTML shows and the JSON holds."""

    scenario: object  # the scenario shown (Scenario.shown): the named one chosen, else the file's own
    catalog_columns: dict  # the Catalog sheet's derived columns: {"models": {id: …}, "profiles": {id: …}}
    tables: dict  # table key → its result, in table order
    file: object = None  # the scenario as the file gives it: the base, its named scenarios and the one shown
    named: dict = field(default_factory=dict)  # with named scenarios: "base" and each name → its Results
    generated: dt.date = None  # the day the outputs were generated: a blank start date is the first of the next month

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
    def warnings(self) -> dict[str, bool]:
        """The engine's side of the Checks sheet's warnings: {key: applies}. A warning fails no check."""
        return {key: value for table in self.tables.values() for key, value in getattr(table, "warnings", {}).items()}

    @property
    def all_checks_pass(self) -> bool:
        return all(self.checks.values())

    def to_json(self) -> dict:
        tables = {}
        for key, result in self.tables.items():  # a table may give several (the cost table: calendar and cost)
            tables |= result.json_tables() if hasattr(result, "json_tables") else {key: result.to_json()}
        found = {"scenario": (self.file or self.scenario).normalised(), **json_headline(self.headline),
                 "tables": tables}
        if self.named:  # each named scenario's headline, as the workbook's Scenarios sheet snapshots it
            shown = {name: json_headline(named.headline) for name, named in self.named.items()}
            found["scenarios"] = {name: one["headline"] for name, one in shown.items()}
            missing = {name: one["not_available"] for name, one in shown.items() if one["not_available"]}
            if missing:  # why a named scenario's result is null, as for the headline's
                found["scenarios_not_available"] = missing
        return found


def json_headline(headline: dict) -> dict:
    """The headline as JSON gives it: a result whose premise fails ("n/a: <reason>") is null, its reason in
    `not_available` under the same name, so a reader that wants numbers never parses a reason as one."""
    missing = {name: value.removeprefix("n/a: ") for name, value in headline.items()
               if isinstance(value, str) and value.startswith("n/a")}
    return {"headline": {name: None if name in missing else value for name, value in headline.items()},
            "not_available": missing}


# The generation date when none is given: the worked examples' (docs/method.md §13), so a library call or a test
# without a date gives the same numbers on any day. `planner run` and `planner batch` give today's (or --date).
EXAMPLES_GENERATED = dt.date(2026, 12, 2)


class Tables:
    """The tables of one scenario, each computed when first asked for; a table that asks for itself, directly or
    through others, is a bug in the registry and says which. `generated`: the day the outputs are generated, which
    a blank start date of the plan follows (the first of the next month); `month_rows`: an edited workbook's."""

    def __init__(self, scenario, generated: dt.date = EXAMPLES_GENERATED, month_rows: MonthRows | None = None):
        self.scenario = scenario
        self.generated = generated
        self.month_rows = month_rows
        self.done: dict = {}
        self.asking: list[str] = []

    def __getitem__(self, key: str):
        if key not in self.done:
            if key in self.asking:
                raise RuntimeError(f"tables read each other in a circle: {' → '.join(self.asking + [key])}")
            self.asking.append(key)
            try:
                self.done[key] = table(key).engine.compute(self.scenario, self)
            finally:
                self.asking.pop()
        return self.done[key]


def compute(scenario, *, generated: dt.date | None = None, month_rows: MonthRows | None = None) -> Results:
    """Every table of the scenario shown (Scenario.shown); with named scenarios, each of them too. `generated`: the
    day the outputs are generated (None: EXAMPLES_GENERATED); the engine reads no clock. `month_rows`: an edited
    workbook's month rows, which the plan is laid on (None: its own months and budget.spare_months more)."""
    generated = generated or EXAMPLES_GENERATED
    shown = scenario.shown()
    results = _compute(shown, generated, month_rows)
    results.file = scenario
    if scenario.named_scenarios():
        results.named = {name: results if name == scenario.scenario else _compute(named, generated, month_rows)
                         for name, named in [("base", scenario), *((name, scenario.in_workbook(name))
                                                                   for name, _ in scenario.named_scenarios())]}
    return results


def _compute(scenario, generated: dt.date, month_rows: MonthRows | None = None) -> Results:
    from planner.engine.catalog_columns import catalog_columns  # numpy: not for what imports engine/shared.py

    tables = Tables(scenario, generated, month_rows)
    return Results(scenario, catalog_columns(scenario.merged_catalog),
                   {t.key: tables[t.key] for t in present(scenario)}, generated=generated)
