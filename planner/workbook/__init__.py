"""The workbook: Cover, Inputs, one sheet per table of the registry, Catalog, Checks, Method (README.md, "What you
get")."""

from __future__ import annotations

import datetime as dt
from typing import Any

from planner.engine import money
from planner.tables import optional, present
from planner.workbook import catalog_sheet, checks, cover, inputs, kit, method, scenarios
from planner.listing import Columns, Input, general_inputs, input_sections

# Every sheet's second row: what the numbers are for, following the inputs.
SCENARIO_LINE = "{model} on {gpu}: {memory_strategy} on {memory_gpus|count} GPUs; {hours_tokens|tera} T training " \
                "tokens on {hours_gpus|count} GPUs"
# right after the Cover (and a sheet placed before Inputs): printed first
FINANCE_SHEETS = ("Budget", "Cost", "GPUs", "API")


def finance_first(book: kit.Book) -> None:
    """The finance pages first (issue 43 item 5): the Cover and any sheet written before Inputs, then Budget, Cost
    and GPUs, then the others in the order written. Only the sheets' order changes: names, formulas, links, charts
    and print areas follow a sheet by its name."""
    order = list(book.sheets)
    front = order[:order.index("Inputs")] if "Inputs" in order else order[:1]
    finance = [name for name in FINANCE_SHEETS if name in book.sheets and name not in front]
    order = front + finance + [name for name in order if name not in front and name not in finance]
    book.sheets = {name: book.sheets[name] for name in order}
    book.wb.worksheets_objs.sort(key=lambda ws: order.index(ws.name))
    for index, ws in enumerate(book.wb.worksheets_objs):
        ws.index = index


# Engineering sheets print their summary block: (the section it starts at, the section it stops before; None: the
# sheet's end), by the sections' titles' beginnings; Memory without its chart, Serving at the users (not the
# closed-loop TTFT's workings, at one sequence nor at B_max: on screen), Goodput and Crossover without their
# notes. Every row stays on screen; the Catalog and Checks print their own summaries (catalog_sheet, checks).
NOTES_OFF_PAPER = {"Goodput", "Crossover"}  # their summaries' notes printed on pages of their own: on screen only
SUMMARY_SECTIONS = {
    "Memory": ("Training memory per GPU", "Serving memory"),
    "Hours": ("The training run", "Beside Meta's"),
    "Serving": ("Capacity", "TTFT at the users"),
    "Crossover": ("Serving, every day", "Each traffic preset"),
    "Cluster": ("The day's totals", "24 hours"),
    "Goodput": ("Servers", None),
    "Sensitivity": ("Training cost over MFU", "The plan's total re-evaluated"),
    "Fleet": ("The demand and the SLO", "The Pareto front"),
}


def converted_price(scenario) -> kit.Row:
    """The price in the reporting currency, below the price (the FX rate is under The plan): converted once, here,
    and read by every table's money on the chosen GPU (Hours, Crossover, Cluster, Serving, Sensitivity, Layouts, the
    Fleet's row for it, Cost)."""
    return kit.Row("price_per_gpu_hour_converted", f"Price per GPU-hour in {scenario.currency}",
                   formula="=price_per_gpu_hour*fx_rate", kind="money", unit="per GPU-hour",
                   note="The price above × the FX rate (The plan): what every cost on this GPU reads",
                   name="price_per_gpu_hour_converted")


def _as_warning(item) -> kit.Warning:
    """A table's warning for the Checks sheet: as declared, or a warning row of the table's own sheet (Cost's),
    read by its name there."""
    return item if isinstance(item, kit.Warning) else kit.Warning(item.key, item.label, formula=item.name,
                                                                  note=item.note)


def _guards(book: kit.Book, results, inputs: list[Input], table_checks: list[kit.Check]) -> None:
    """What the guards know before any sheet is written: each Catalog block's check, the headline results, and
    the rules' checks that gate the named results of the inputs they are about."""
    book.catalog_checks.update({block.prefix: kit.ok_name(block.prefix) for block in catalog_sheet.BLOCKS})
    book.catalog_checks["catalog_strategy"] = None  # the method's, not inputs
    book.headline.update(results.headline)
    for check in table_checks:
        for spec in inputs:
            if any(spec.name.startswith(prefix) for prefix in check.about):
                book.gates.setdefault(kit.ok_name(spec.name), set()).add(kit.ok_name(check.key))


def build(results, target: Any, *, generated: dt.date | None = None,
          like=None) -> kit.Book:
    """Write the workbook for `results` to a path or binary file; returns the Book with every formula's cached
    value and every defined name. `like` (a roundtrip.WorkbookData) lays it out as an edited workbook was: its
    Catalog blocks' rows and the values its inputs had when it was generated, so the two compare cell by cell."""
    scenario = results.scenario
    # the day the engine's plan was computed from (a blank start date is the first of the next month): the Cover's
    # date and the one the workbook's start-date formula reads, so the two cannot differ
    generated = getattr(results, "generated", None) or generated or dt.date.today()
    date = generated.isoformat()
    book = kit.Book(target, currency_symbol=scenario.currency_symbol, header=f"{scenario.name} · {date}",
                    generated=date, catalog_rows=like.catalog_rows if like else {},
                    as_generated=like.generated if like else {}, held=like.held if like else {})
    general, sections = general_inputs(scenario), input_sections(scenario)
    general.append((converted_price(scenario), money.gpu_price(scenario)))  # the workbook's; the HTML shows the input
    columns = Columns.of(results)  # with named scenarios: Inputs' Base, scenario and Live columns
    every_input = [i for i, _ in general if isinstance(i, Input)] + [i for _, items in sections for i in items]
    every_input = ([columns.chooser] if columns else []) + every_input
    book.values.update({i.name: i.value for i in every_input})
    book.values.update(results.headline)
    book.scenario_line = kit.text_formula(SCENARIO_LINE, book.values)
    tables = present(scenario)
    table_checks = [check for table in tables for check in table.sheet.CHECKS]
    _guards(book, results, every_input, table_checks)

    key_results = [row for table in tables for row in table.sheet.KEY_RESULTS]
    snapshot, matching = None, True
    if columns:
        compared = [k for k in key_results if not k.snapshot]  # a snapshot of the shown scenario only: not compared
        snapshot = scenarios.snapshots(results, compared, columns, like.snapshots if like else None)
        matching = scenarios.all_match(results, compared, snapshot, columns.chosen)
    cover.write(book, results, key_results, matching, columns)
    inputs.write_inputs_sheet(book, general, sections, columns)
    every_scenario_has = next((i for i, t in enumerate(tables) if any(map(optional, t.inputs.SECTIONS.values()))),
                              len(tables))  # the Scenarios sheet comes after these tables, before Layouts
    for i, table in enumerate(tables + [None]):
        if columns and i == every_scenario_has:
            scenarios.write(book, results, compared, columns, snapshot=snapshot, matching=matching)
        if table is not None:
            table.sheet.write(book, results)
    catalog_sheet.write(book, results)
    checks.write(book, results, every_input, table_checks, columns=columns,
                 table_warnings=[_as_warning(item) for table in tables for item in table.sheet.WARNINGS])
    method.write(book, tables)
    for name, (first, stop) in SUMMARY_SECTIONS.items():
        if name in book.sheets:
            book.sheets[name].print_sections(first, stop, charts=name != "Memory", notes=name not in NOTES_OFF_PAPER)
    finance_first(book)
    cover.contents(book)
    # the file's own creation time is the generation date: the same scenario and date give the same bytes
    book.wb.set_properties({"title": f"LLM plan: {scenario.name}"[:250], "comments": "Generated by planner",
                            "created": dt.datetime.combine(generated, dt.time())})
    book.close()
    return book
