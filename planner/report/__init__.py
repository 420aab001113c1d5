"""The HTML summary: one page per scenario, a section per table of the registry (its template, sentences and
charts), then the inputs and the method. Templates live in templates/ and are rendered with autoescaping."""

from __future__ import annotations

import importlib.resources
import os
from pathlib import Path

import jinja2

import planner
from planner import method
from planner.report.format import FILTERS, flatten
from planner.tables import present


def _loader() -> jinja2.BaseLoader:
    """templates/ in a source checkout; the installed `planner.templates` package data otherwise."""
    folder = Path(__file__).resolve().parents[2] / "templates"
    if folder.is_dir():
        return jinja2.FileSystemLoader(folder)
    package = importlib.resources.files("planner.templates")  # may be a namespace package or a zip: read, not path

    def read(name: str) -> str | None:
        file = package / name
        return file.read_text(encoding="utf-8") if file.is_file() else None

    return jinja2.FunctionLoader(read)


def _bytecode_cache() -> jinja2.BytecodeCache | None:
    """Compiled templates kept in the user's cache folder (Jinja's own bytecode cache): compiling the page's
    templates takes about 60 ms, a third of a small run. None where the folder cannot be made."""
    folder = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "planner" / "jinja"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return jinja2.FileSystemBytecodeCache(str(folder))


environment = jinja2.Environment(loader=_loader(), autoescape=True, undefined=jinja2.StrictUndefined,
                                 trim_blocks=True, lstrip_blocks=True, bytecode_cache=_bytecode_cache())
environment.filters.update(FILTERS)


def render_html(results, *, generated: str) -> str:
    """The self-contained HTML summary of one scenario's results."""
    sections = [{"key": table.key, "template": table.template, "method": table.engine.METHOD,
                 "table": results.tables[table.key], "sheet": table.sheet, "charts": table.report.charts(results),
                 "findings": table.report.findings(results)} for table in present(results.scenario)]
    scenario = results.scenario
    return environment.get_template("base.html.j2").render(
        results=results, scenario=scenario, sections=sections, generated=generated, version=planner.__version__,
        inputs=flatten(scenario.normalised()), general=method.GENERAL, symbol=scenario.currency_symbol)


def render_index(table, columns: list[tuple[str, str, str]], *, generated: str) -> str:
    """The batch's index page: a row per scenario (pandas DataFrame from planner.batch.summary_table), its
    summary results, links to its files, and every failure with its message."""
    return environment.get_template("index.html.j2").render(
        rows=table.to_dict("records"), columns=columns, generated=generated, version=planner.__version__,
        failed=int((table.error != "").sum()) if len(table) else 0)
