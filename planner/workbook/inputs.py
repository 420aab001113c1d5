"""The Inputs sheet: every input's cell with its dropdown or allowed range, its value when generated and whether it
changed (what each input is and may hold: planner/listing.py)."""

from __future__ import annotations

from typing import Any

from planner.listing import TYPED_IN, Columns, Input, same_text
from planner.method import Constant
from planner.scenario import named as named_scenarios
from planner.workbook import kit


def write_inputs_sheet(book: kit.Book, general: list[tuple[kit.Row | Input | Constant, Any]],
                       sections: list[tuple[str, list[Input]]], columns: Columns | None = None) -> kit.Sheet:
    """Inputs: the general block (model, GPU, the looked-up price, the currency), then each table's sections; each
    input beside its value when the workbook was generated and whether it has changed since. With named scenarios
    (`columns`), the scenario dropdown first, then each input's Base and scenario columns and the Live one."""
    texts = [len(str(spec.value)) for _, specs in sections for spec in specs if isinstance(spec.value, str)]
    width = min(max(texts + [18]) * 1.05 + 2, 42)  # a server's or benchmark's name whole, not cut
    typed = [("Base", width)] + [(name, width) for name in columns.names] + [("Live", width)] if columns else \
        [("Value", width)]
    sheet = book.sheet("Inputs", typed + [("When generated", width), ("Changed", 10)], unit_width=15)
    sheet.scalar_col = len(typed)
    sheet.title("Inputs", "Blue cells on pale yellow are inputs: change them and every sheet follows. Catalog "
                "values (models, GPUs, prices, presets, profiles) are inputs too, on the Catalog sheet." +
                (" Each scenario's column holds what it changes (blank: as base); the Live column is the chosen "
                 "scenario's, and every input's name names it." if columns else ""))
    sheet.header([name for name, _ in typed] + ["When generated", "Changed"], freeze=True, repeat=True)
    if columns:
        sheet.section("Scenario")
        _write(sheet, columns.chooser, columns.chosen)
        sheet.skip()
    typed = {spec.path: spec for _, specs in sections for spec in specs}
    drivers = [typed[path] for path in PLAN_DRIVERS if path in typed]
    money = [(item, value) for item, value in general if _key(item) in PLAN_MONEY]
    sheet.section("The plan: when it starts, how long it serves, its demand and growth, its path and currency")
    for spec in drivers:
        _write(sheet, spec, spec.value, columns)
    for item, value in money:
        _write(sheet, item, value, columns)
    sheet.skip()
    sheet.section("Model, GPU and price")
    for item, value in general:
        if _key(item) not in PLAN_MONEY:
            _write(sheet, item, value, columns)
    sheet.skip()
    for title, inputs in sections:
        rest = [spec for spec in inputs if spec.path not in PLAN_DRIVERS]
        if not rest:
            continue
        sheet.section(title)
        for spec in rest:
            _write(sheet, spec, spec.value, columns)
        sheet.skip()
    cells = [cell for name, cell in book.changed_cells if name == sheet.name]
    book.define("inputs_changed", sheet.name, f"{cells[0]}:{cells[-1]}")  # whether any input changed since generation
    return sheet


# The plan's drivers, together at the top of Inputs (issue 43 finding 10): their names and scenario keys stay those of
# their sections (PRODUCT.md's contract); only where they are typed moves
PLAN_DRIVERS = ("budget.start_date", "crossover.horizon_days", "crossover.tokens_per_day", "fleet.peak_rate",
                "budget.monthly_growth", "budget.path")
PLAN_MONEY = ("currency", "fx_rate")  # the reporting currency and its rate


def _key(item) -> str:
    """An Inputs row's name: an input's, a constant's or a formula row's."""
    return item.name if isinstance(item, Input) else getattr(item, "name", None) or getattr(item, "key", "")


def _write(sheet: kit.Sheet, item, value, columns: Columns | None = None) -> None:
    if isinstance(item, Input):
        typed = item.typed_value
        r = sheet.row_index
        kind = "decimal" if item.kind in TYPED_IN else item.kind
        validation = item.typed_allowed.validation(item.label)
        styles = sheet.book.styles
        if columns and item.path != "scenario":  # typed in the Base column (and the scenarios')
            _write_columns(sheet, item, columns, kind, validation)
            then_value, typed_col = columns.base[item.path], 1
        else:
            sheet.input(item.typed_name, item.label, typed, kind=kind, unit=item.unit, note=item.note,
                        validation=validation, check=item.name)
            then_value, typed_col = typed, sheet.own_col
        generated_col = sheet.own_col + 1
        then = sheet.book.as_generated.get(item.typed_name, then_value)
        sheet.value_cell(r, generated_col, then, styles.value(kind, constant=True), None)
        typed_cell, generated = kit.xl_rowcol_to_cell(r, typed_col), kit.xl_rowcol_to_cell(r, generated_col)
        changed = sheet.formula(r, generated_col + 1, f"=NOT(EXACT({typed_cell},{generated}))",
                                not same_text(then_value, then), styles.value("bool"))
        sheet.book.changed_cells.append((sheet.name, changed))
        sheet.warn("changed", r, generated_col + 1, r, generated_col + 1)
        if item.kind in TYPED_IN:  # the scenario's value, converted from the unit shown
            _, scale, written = TYPED_IN[item.kind]
            sheet.row(kit.Row(item.name, "… as a count", formula=f"=ROUND({item.typed_name}*{written},0)",
                              kind="count", unit=item.unit.split(" ", 1)[-1],
                              note=f"The typed value × {written}: what the formulas read.", name=item.name), value)
    elif isinstance(item, Constant):
        sheet.constant(item.name, item.label, item.value, kind="text" if isinstance(item.value, str) else "number",
                       unit=item.unit, note=item.source)
    elif columns and item.name == named_scenarios.PRICE:
        _write_price(sheet, item, value, columns)
        _needs_a_price(sheet.book)
    elif item.name == named_scenarios.PRICE:  # a Catalog value the results read: flagged when edited there too
        r = sheet.row_index
        sheet.row(item, value)
        _flag_changed(sheet, r, sheet.own_col, then=sheet.book.as_generated.get(item.name, value), now=value,
                      kind=item.kind)
        _needs_a_price(sheet.book)
    else:
        sheet.row(item, value)


# The plan's GPU priced above 0 (a blank one fails the GPU block's check, and so the price): the YAML refuses 0, a
# Catalog edit fails this check, and every money figure on the GPU, which reads the price, reads n/a
PRICED = kit.Check("price_above_zero", "The plan's GPU has a price per GPU-hour above 0 (price_per_gpu_hour, on "
                   "Catalog)", formula="AND(ISNUMBER(price_per_gpu_hour),price_per_gpu_hour>0)",
                   note="At 0 every cost of the plan would be 0: its money reads n/a instead.",
                   label_formula='": "&gpu&"\'s price is in "&'
                                 "{catalog_cell:catalog_gpu_price_per_hour,catalog_gpu_ids,gpu}")


def _needs_a_price(book: kit.Book) -> None:
    """What reads the price (its conversion, and through it every money figure on the plan's GPU) needs what the
    price's cell needs and PRICED: a price of 0 reads n/a, never a budget of 0 beside "All checks pass"."""
    cell = book.names[named_scenarios.PRICE]
    book.needs[named_scenarios.PRICE] = book.needs_of_cell(*cell) | {kit.ok_name(PRICED.key)}


def _flag_changed(sheet: kit.Sheet, r: int, col: int, *, then, now, kind: str) -> None:
    """Beside a cell that shows a Catalog value: its value when generated and whether it has changed since."""
    styles, generated_col = sheet.book.styles, sheet.own_col + 1
    sheet.value_cell(r, generated_col, then, styles.value(kind, constant=True), None)
    shown, generated = kit.xl_rowcol_to_cell(r, col), kit.xl_rowcol_to_cell(r, generated_col)
    changed = sheet.formula(r, generated_col + 1, f"=NOT(EXACT({shown},{generated}))", not same_text(now, then),
                            styles.value("bool"))
    sheet.book.changed_cells.append((sheet.name, changed))
    sheet.warn("changed", r, generated_col + 1, r, generated_col + 1)


def _write_price(sheet: kit.Sheet, item: kit.Row, value: float, columns: Columns) -> None:
    """The price with named scenarios: the Base column looks up the GPU's Catalog price, each scenario's column
    may set its own (blank: the GPU's), and the Live column, which the price's name names, is the chosen one's."""
    book, r, name = sheet.book, sheet.row_index, item.name
    sheet._label(r, item.label)
    style = book.styles.value(item.kind)
    # the Base column: the base GPU's own price, whichever scenario is shown (the Live one looks up the shown GPU's)
    base = sheet.formula(r, 1, item.formula.replace("MATCH(gpu,", "MATCH(gpu_base,"), columns.base_price, style,
                         fallback=kit.NOT_AVAILABLE)
    book.define(f"{name}_base", sheet.name, base, columns.base_price)
    validation = columns.price_allowed.validation("Price per GPU-hour")
    for col, scenario in enumerate(columns.names, start=2):
        own = columns.prices.get(scenario)
        sheet.value_cell(r, col, own, book.styles.value(item.kind, input=True), validation)
        book.define(f"{name}_{scenario}", sheet.name, kit.xl_rowcol_to_cell(r, col), own, scenario=(scenario, name))
        book.needs[f"{name}_{scenario}"] = frozenset({kit.ok_name(name)})
    formula = columns.choose(item.formula.removeprefix("="), [f"{name}_{scenario}" for scenario in columns.names])
    live = sheet.formula(r, sheet.own_col, formula, value, style, fallback=kit.NOT_AVAILABLE)
    sheet.places[item.key] = kit.Place("cell", r, sheet.own_col, r, sheet.own_col, name=name)
    book.define(name, sheet.name, live, value)
    sheet._unit_and_note(r, item.shown_unit, "The Base column is the GPU's Catalog price (edit it on Catalog, in the "
                         "GPU's row); a scenario's column sets its own, blank for the GPU's.")
    sheet.row_index += 1


def _write_columns(sheet: kit.Sheet, item: Input, columns: Columns, kind: str, validation: dict) -> None:
    """An input's typed cells (Base, each scenario's: blank is as base) and its Live cell, the one its name
    names: a formula, guarded like any other, so what reads it needs the input's check and the dropdown's."""
    book, r = sheet.book, sheet.row_index
    sheet._label(r, item.label)
    style = book.styles.value(kind, input=True)
    check = frozenset({kit.ok_name(item.name), kit.ok_name("scenario")})
    values = [columns.base[item.path]] + [columns.own[name].get(item.path) for name in columns.names]
    if item.path in columns.fixed:  # the same in every scenario: only the Base column is typed
        for col in range(2, 2 + len(columns.names)):
            sheet.ws.write_string(r, col, "as base", book.styles.value("text", constant=True))
    for col, (name, value) in enumerate(zip(columns.typed_names(item), values), start=1):
        sheet.value_cell(r, col, value, style, validation if col == 1 else {**validation, "ignore_blank": True})
        book.define(name, sheet.name, kit.xl_rowcol_to_cell(r, col), value,
                    scenario=None if col == 1 else (name.removeprefix(f"{item.typed_name}_"), item.typed_name))
        book.needs[name] = frozenset({kit.ok_name(item.name)})
    live = sheet.own_col
    cell = sheet.formula(r, live, columns.live(item), "" if item.typed_value is None else item.typed_value,
                         book.styles.value(kind), needs=check, fallback=kit.NOT_AVAILABLE)
    book.reads_input(item.typed_name, check, validation)
    sheet.places[item.typed_name] = kit.Place("cell", r, live, r, live, name=item.typed_name)
    book.define(item.typed_name, sheet.name, cell, item.typed_value)
    sheet._unit_and_note(r, item.unit, item.note)
    sheet.row_index += 1
