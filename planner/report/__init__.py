"""The HTML summary: one page per scenario, a section per table of the registry (its template, sentences and
charts), then the inputs and the method. Templates live in planner/templates/ and are rendered with autoescaping."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2

import planner
from planner import method
from planner.report import answers
from planner.report.format import FILTERS, flatten, shown
from planner.scenario import CURRENCY_SYMBOLS
from planner.tables import present, raised_warnings


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user's cache folder (Jinja's own bytecode cache): compiling them again on
    every run was a large part of a small run (benchmarks/README.md). None where the folder cannot be made."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "planner" / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))


# The templates are planner/templates/, package data of an installed planner
environment = jinja2.Environment(loader=jinja2.PackageLoader("planner"), autoescape=True,
                                 undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True,
                                 bytecode_cache=_bytecode_cache())
environment.filters.update(FILTERS)


def input_rows(scenario) -> tuple[list[tuple[str, list[tuple[str, str, str]]]], dict[str, object]]:
    """The inputs as the workbook's Inputs sheet shows them: each section's (label, value as its kind shows it,
    unit); and what else the scenario file holds (its Catalog entries, benchmark files) as dotted keys."""
    from planner.listing import general_inputs, input_sections

    symbol = scenario.currency_symbol

    def value(item, raw) -> str:
        kind = getattr(item, "kind", "text")
        if raw is None:  # left blank: no deadline, a reference layout's field searched
            return "blank"
        if isinstance(raw, bool):
            return "TRUE" if raw else "FALSE"
        return shown(raw, kind, symbol)

    general = [(item.label, value(item, raw), getattr(item, "shown_unit", getattr(item, "unit", "")) or "")
               for item, raw in general_inputs(scenario)]
    sections = [(title, [(i.label, value(i, i.value), i.unit) for i in items])
                for title, items in input_sections(scenario)]
    shown_paths = {i.path for _, items in input_sections(scenario) for i in items}
    other = {key: raw for key, raw in flatten(scenario.normalised()).items()
             if key not in shown_paths and key not in ("name", "description", "model", "gpu", "currency",
                                                       "price_per_gpu_hour")}
    return [("Model, GPU and price", general)] + sections, other


def scenario_table(results) -> dict | None:
    """With named scenarios: each one's key results (as the workbook's Scenarios sheet snapshots them) and what
    each changes from the base, in words; None without them."""
    if not results.named:
        return None
    from planner.listing import Columns, scenario_inputs
    from planner.units import KINDS
    from planner.specs import text_formula

    symbol = results.scenario.currency_symbol
    columns = Columns.of(results)
    values = {i.name: i.value for i in scenario_inputs(results.scenario)} | results.headline
    inputs = {i.path: i for i in scenario_inputs(results.file)}

    def typed(path: str, value) -> str:  # as the Inputs sheet shows it: 30 %, 20 T tokens, h200
        if path not in inputs:  # the price, the one not typed on Inputs without scenarios
            return f"Price per GPU-hour: {shown(value, 'usd', symbol)}"
        spec = inputs[path]
        kind = "decimal" if spec.kind == "tera" else spec.kind
        unit = f" {spec.unit}" if spec.unit and kind != "percent" and not isinstance(value, str) else ""
        return f"{spec.label}: {shown(value, kind, symbol)}{unit}"

    rows = [(text_formula(k.label, values).value,
             [shown(named.headline[k.name], k.kind, symbol) for named in results.named.values()],
             KINDS[k.kind].unit if k.unit is None else k.unit)
            for table in present(results.scenario) for k in table.sheet.KEY_RESULTS]
    changes = {name: "; ".join([typed(path, value) for path, value in own.items()] +
                               ([typed("price_per_gpu_hour", columns.prices[name])] if name in columns.prices
                                else [])) or "nothing" for name, own in columns.own.items()}
    return {"names": list(results.named), "chosen": columns.chosen, "rows": rows, "changes": changes}


def render_html(results, *, generated: str) -> str:
    """The self-contained HTML summary of one scenario's results."""
    sections = [{"key": table.key, "template": table.template, "method": table.engine.METHOD,
                 "table": results.tables[table.key], "sheet": table.sheet, "charts": table.report.charts(results),
                 "findings": table.report.findings(results)} for table in present(results.scenario)]
    scenario = results.scenario
    return environment.get_template("base.html.j2").render(
        results=results, scenario=scenario, sections=sections, generated=generated, version=planner.__version__,
        inputs=input_rows(scenario), general=method.GENERAL, symbol=scenario.currency_symbol,
        scenarios=scenario_table(results), answers=answers.of(results), warnings=raised_warnings(results))


def render_index(spool, columns: list[tuple[str, str, str]], *, generated: str, done=None):
    """The batch's index page, in pieces as it is made (a generator of text): a row per scenario of `spool`
    (planner.batch.Spool, read in the batch's order) with its key results `columns`, the checks that fail, links to
    its files and its failure; an inline script sorts and filters the rows in the browser. `done(1)` is called as
    each row is made (a progress bar)."""

    def rows():
        for row in spool.rows():
            yield row
            if done is not None:
                done(1)

    return environment.get_template("index.html.j2").generate(
        rows=rows(), count=spool.count, failed=spool.failed, columns=columns, generated=generated,
        version=planner.__version__, symbols=CURRENCY_SYMBOLS)
