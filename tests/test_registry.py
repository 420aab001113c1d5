"""The registry's protocol, checked on every table: each of its five files is there and holds what
planner/tables.py says, its checks are keyed like its engine's, its Cover and summary rows name real headline
results. A table added without a member fails here, by name."""

from __future__ import annotations

import functools
import importlib
import types
from pathlib import Path

import pytest
from pydantic import BaseModel

from planner.engine import compute
from planner.method import Constant, Method
from planner.scenario import DEFAULT, Scenario
from planner.tables import (DEFAULTS, TABLES, EngineModule, ExternalData, InputsModule, Layer, ReportModule,
                            SheetModule, Table, TableResult, table)

from tests.helpers import scenario_with

ROOT = Path(__file__).resolve().parents[1]
LAYERS = (("inputs", InputsModule), ("engine", EngineModule), ("sheet", SheetModule), ("report", ReportModule))


def members(protocol: type) -> list[str]:
    """The names a protocol asks a module (or object) to have."""
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {name for name, value in vars(protocol).items() if callable(value) or isinstance(value, property)}
    return sorted(name for name in names if not name.startswith("_"))


def problems_of(table: Table, results) -> list[str]:
    """Everything a table's files fail to hold, in words."""
    found = []
    for layer, protocol in LAYERS:
        module = getattr(table, layer)
        missing = [name for name in members(protocol) if not hasattr(module, name)]
        if missing:
            found.append(f"{table.key}: {module.__name__} lacks {', '.join(sorted(missing))}")
    if found:
        return found
    if not (ROOT / "planner" / "templates" / table.template).is_file():
        found.append(f"{table.key}: no planner/templates/{table.template}")
    for key, cls in table.inputs.SECTIONS.items():
        if not (isinstance(cls, type) and issubclass(cls, BaseModel)) or key not in Scenario.model_fields:
            found.append(f"{table.key}: section {key} is not a field of the Scenario")
    if table.inputs.EXTERNAL is not None and not isinstance(table.inputs.EXTERNAL, ExternalData):
        found.append(f"{table.key}: EXTERNAL is neither None nor ExternalData")
    engine = table.engine
    if not isinstance(engine.METHOD, Method) or not engine.METHOD.formulas or not engine.METHOD.sources:
        found.append(f"{table.key}: METHOD needs a title, formulas and sources")
    if not all(isinstance(c, Constant) for c in engine.CONSTANTS):
        found.append(f"{table.key}: CONSTANTS holds something else than Constants")
    result = results.tables[table.key]
    if not isinstance(result, TableResult):
        found.append(f"{table.key}: its engine's result lacks headline, checks or to_json")
        return found
    sheet_checks = [check.key for check in table.sheet.CHECKS]
    if sorted(sheet_checks) != sorted(result.checks):
        found.append(f"{table.key}: CHECKS {sorted(sheet_checks)} against the engine's {sorted(result.checks)}")
    for name in [r.name for r in table.sheet.KEY_RESULTS] + [row[0] for row in table.report.SUMMARY]:
        if name not in result.headline:
            found.append(f"{table.key}: {name} (KEY_RESULTS or SUMMARY) is not a headline result")
    return found


EVERY_TABLE = pytest.mark.xdist_group("registry-every-table")  # one worker computes it once for the four tests


@functools.cache
def every_table():
    """The default scenario with a layout search and a fleet too: every table of the registry present (computed
    once: the tests only read it)."""
    return compute(scenario_with(**{"search.gpus_max": 1024, "fleet.peak_rate": 10}))


@EVERY_TABLE
def test_every_table_holds_what_the_protocol_says():
    results = every_table()
    assert [p for table in TABLES for p in problems_of(table, results)] == []
    assert len({t.sheet.SHEET for t in TABLES}) == len(TABLES)


def without(table: Table, layer: str, *names: str) -> Layer:
    """The table's module of `layer` (inputs, engine, sheet, report) without `names`, with the registry's defaults."""
    found = getattr(table, layer)
    module = types.ModuleType(found.__name__)
    module.__dict__.update({k: v for k, v in vars(found.module).items() if k not in names})
    return Layer(module, next(protocol for name, protocol in LAYERS if name == layer))


@EVERY_TABLE
def test_a_table_lacking_a_member_is_named(monkeypatch):
    """The check above can fail: a table whose sheet module lost write and SHEET (no default stands in)."""
    results = every_table()
    hours = table("hours")
    sheet = without(hours, "sheet", "write", "SHEET")
    monkeypatch.setattr(Table, "sheet", property(lambda self: sheet if self.key == "hours" else
                                                 Layer(importlib.import_module(f"planner.workbook.{self.key}"),
                                                       SheetModule)))
    assert problems_of(hours, results) == ["hours: planner.workbook.hours lacks SHEET, write"]


def test_a_member_left_out_reads_as_its_default():
    """A module holds only what its table does: Sensitivity's inputs module holds nothing, its sheet no checks, Goodput's engine no constants, Layouts' report no summary columns; each reads as the protocol's
    default, and a module's own member wins over it."""
    sensitivity = table("sensitivity").inputs
    assert not {"SECTIONS", "EXTERNAL", "canonical", "cross_checks"} & set(vars(sensitivity.module))
    assert (sensitivity.SECTIONS, sensitivity.EXTERNAL, sensitivity.canonical(DEFAULT),
            sensitivity.cross_checks(DEFAULT, DEFAULT.merged_catalog)) == ({}, None, [], [])
    assert "CHECKS" not in vars(table("sensitivity").sheet.module) and table("sensitivity").sheet.CHECKS == []
    assert "CONSTANTS" not in vars(table("goodput").engine.module) and table("goodput").engine.CONSTANTS == []
    assert "SUMMARY" not in vars(table("layouts").report.module) and table("layouts").report.SUMMARY == []
    assert [c.key for c in table("hours").sheet.CHECKS][0] == "hours_fp8_peak_found"
    assert table("goodput").inputs.EXTERNAL is vars(table("goodput").inputs.module)["EXTERNAL"] is not None
    for protocol, defaults in DEFAULTS.items():  # every default is a member of its protocol
        assert set(defaults) <= set(members(protocol)), protocol


# The plan as one table (issue 42, item 2): a module and a Cover result belong to the table whose sheet they write ---
WORKBOOK_OWN = {"__init__", "kit", "model", "pages", "cover", "answers", "inputs", "catalog_sheet", "checks",
                "method", "scenarios", "summary"}  # the toolkit, the Excel twins, printing and the sheets no table owns
# (answers: the Cover's answers to the budget owner, read from several tables' names)


def test_every_workbook_module_is_a_tables_or_the_workbooks_own():
    """A sheet's code lives in its table's planner/workbook/K.py: no module of planner/workbook/ belongs to no table
    (the Fleet in the plan, once plan_fleet.py, is the Cost table's)."""
    modules = {path.stem for path in (ROOT / "planner" / "workbook").glob("*.py")}
    assert modules - WORKBOOK_OWN - {t.key for t in TABLES} == set()


@EVERY_TABLE
def test_every_cover_result_is_written_on_its_tables_sheet():
    """A table declares as Cover key results only the names it writes on its own sheet: the plan's total is the Cost
    table's (computed by engine/cost.py, declared in workbook/cost.py, named on the Cost sheet; the Budget shows it
    as budget_total_cost)."""
    from planner.workbook import build
    from planner.workbook.kit import NO_FILE

    book = build(every_table(), NO_FILE)
    found = [(t.key, k.name, book.names[k.name][0]) for t in TABLES for k in t.sheet.KEY_RESULTS
             if book.names[k.name][0] != t.sheet.SHEET]
    assert found == []
    assert book.names["plan_total_cost"] == book.names["tco_total_cost"]
    assert book.names["budget_total_cost"][0] == "Budget"


@EVERY_TABLE
def test_a_tables_headline_is_its_values_under_its_prefix():
    """engine/values.prefixed names each value by its table's prefix, in the order given (the JSON's order):
    Hours, Crossover, Cluster and Goodput name their headlines so."""
    from planner.engine.values import prefixed

    assert list(prefixed("hours", {"cost": 2.0, "days": 3, "other": 9}, ("days", "cost")).items()) == [
        ("hours_days", 3), ("hours_cost", 2.0)]
    results = every_table()
    hours = results.tables["hours"]
    assert hours.headline["hours_days"] == hours.scalars["days"]
    assert [k for k in results.tables["crossover"].headline][:3] == [
        "crossover_serving_mfu_used", "crossover_day_flops", "crossover_day_gpu_hours"]
