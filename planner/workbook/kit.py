"""A small kit for writing the workbook: styles, named inputs, and "a labelled row: formula, cached value, unit,
note".

Every sheet has the same column layout: A holds labels, then the sheet's value columns, then Unit, then Notes.
Formulas are templates: `{key}` is the cell of the row written earlier under that key (on a per-column row, the
cell in the same column), `{column}` is the column's header cell; anything else is written as given, so
workbook-level defined names such as `model_params` read as themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Sequence

import xlsxwriter
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell  # noqa: F401 (re-exported)

from planner.engine.values import plain

INPUT_BLUE = "#0000FF"
INPUT_FILL = "#FFF2CC"
SECTION_FILL = "#D9E1F2"

# Number formats: each carries its unit where it has one.
FORMATS = {
    "text": None,
    "count": "#,##0",
    "number": "#,##0.00",
    "decimal": "0.0###",
    "gb": '#,##0.0" GB"',
    "kib": '#,##0.0" KiB"',
    "bytes": '#,##0" B"',
    "percent": "0.0%",
    "money": "#,##0.00",
    "money0": "#,##0",
    "flops": "0.00E+00",
    "hours": "#,##0",
    "days": "#,##0.0",
    "ratio": "0.00",
    "bool": '"TRUE";"TRUE";"FALSE"',  # Excel shows TRUE/FALSE anyway; LibreOffice needs the format
    "params": "#,##0",
}


class Styles:
    """The workbook's cell formats, made once: for each number format a formula, an input and a bold variant."""

    def __init__(self, book: xlsxwriter.Workbook):
        self._book = book
        self._cache: dict[tuple, Any] = {}
        self.title = book.add_format({"bold": True, "font_size": 16})
        self.subtitle = book.add_format({"italic": True, "font_color": "#595959"})
        self.section = book.add_format({"bold": True, "bg_color": SECTION_FILL, "bottom": 1})
        self.header = book.add_format({"bold": True, "bottom": 1, "text_wrap": True, "valign": "top"})
        self.label = book.add_format({"valign": "top"})
        self.unit = book.add_format({"valign": "top", "indent": 1})
        self.note = book.add_format({"text_wrap": True, "valign": "top", "font_color": "#595959"})
        self.text = book.add_format({"text_wrap": True, "valign": "top"})
        self.link = book.add_format({"font_color": "#0563C1", "underline": 1})

    def value(self, kind: str = "number", *, input: bool = False, bold: bool = False):
        key = (kind, input, bold)
        if key not in self._cache:
            props: dict[str, Any] = {"valign": "top"}
            if FORMATS[kind]:
                props["num_format"] = FORMATS[kind]
            if input:
                props.update(font_color=INPUT_BLUE, bg_color=INPUT_FILL, locked=False, border=1,
                             border_color="#BFBFBF")
            if bold:
                props["bold"] = True
            self._cache[key] = self._book.add_format(props)
        return self._cache[key]


@dataclass
class Book:
    """An XlsxWriter workbook that records every formula's cached value and every defined name."""

    target: Any  # a path or a binary file object
    header: str = ""  # printed in every sheet's page header, e.g. the scenario name and date
    generated: str = ""  # the generation date shown on the Cover
    formulas: dict[tuple[str, str], Any] = field(default_factory=dict)  # (sheet, A1) → cached value
    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # defined name → (sheet, A1)
    sheets: dict[str, "Sheet"] = field(default_factory=dict)  # by name, with their row keys → cells

    def __post_init__(self):
        options = {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False}
        if not isinstance(self.target, (str, bytes)) and not hasattr(self.target, "__fspath__"):
            options["in_memory"] = True
        self.wb = xlsxwriter.Workbook(self.target, options)
        self.styles = Styles(self.wb)

    def sheet(self, name: str, columns: Sequence[tuple[str, float]] = (("Value", 16),), *, label_width=44,
              note_width=60) -> "Sheet":
        self.sheets[name] = Sheet(self, self.wb.add_worksheet(name), name, list(columns), label_width, note_width)
        return self.sheets[name]

    def define(self, name: str, sheet: str, cell: str) -> None:
        if name in self.names:
            raise ValueError(f"defined name {name} written twice")
        absolute = re.sub(r"([A-Z]+)(\d+)", r"$\1$\2", cell)
        self.wb.define_name(name, f"='{sheet}'!{absolute}")
        self.names[name] = (sheet, cell)

    def close(self) -> None:
        self.wb.close()


TEMPLATE = re.compile(r"\{(\w+)\}")


@dataclass
class Sheet:
    """One worksheet in the common layout: label | value columns | Unit | Notes."""

    book: Book
    ws: Any
    name: str
    columns: list[tuple[str, float]]
    label_width: float
    note_width: float
    row_index: int = 0
    cells: dict[str, list[str] | str] = field(default_factory=dict)  # row key → its cell(s)

    def __post_init__(self):
        self.ws.set_column(0, 0, self.label_width)
        for i, (_, width) in enumerate(self.columns, start=1):
            self.ws.set_column(i, i, width)
        self.ws.set_column(self.unit_col, self.unit_col, 12)
        self.ws.set_column(self.note_col, self.note_col, self.note_width)
        self.ws.set_landscape()
        self.ws.set_paper(9)  # A4
        self.ws.fit_to_pages(1, 0)
        self.ws.set_header(f"&L{_header_text(self.book.header)}&R&A")
        self.ws.set_footer("&CPage &P of &N")
        self.ws.protect("", {"select_locked_cells": True, "select_unlocked_cells": True,
                             "format_columns": True, "format_rows": True})

    # Layout -----------------------------------------------------------------------------------------------
    @property
    def value_cols(self) -> range:
        return range(1, 1 + len(self.columns))

    @property
    def last_col(self) -> int:  # the scenario's own column
        return len(self.columns)

    @property
    def unit_col(self) -> int:
        return len(self.columns) + 1

    @property
    def note_col(self) -> int:
        return len(self.columns) + 2

    def row_of(self, key: str) -> int:
        """The 0-based row written under a key."""
        cell = self.cells[key]
        return int((cell[0] if isinstance(cell, list) else cell).split("$")[-1]) - 1

    def skip(self, rows: int = 1) -> None:
        self.row_index += rows

    def title(self, text: str, subtitle: str = "") -> None:
        self.ws.write_string(self.row_index, 0, text, self.book.styles.title)
        self.ws.set_row(self.row_index, 24)
        self.row_index += 1
        if subtitle:
            self.ws.write_string(self.row_index, 0, subtitle, self.book.styles.subtitle)
            self.row_index += 1
        self.ws.freeze_panes(self.row_index, 1)  # the title and the label column stay in view
        self.row_index += 1

    def section(self, text: str) -> None:
        for col in range(0, self.note_col + 1):
            self.ws.write_blank(self.row_index, col, None, self.book.styles.section)
        self.ws.write_string(self.row_index, 0, text, self.book.styles.section)
        self.row_index += 1

    def header(self, labels: Sequence[str] | None = None, *, freeze: bool = False) -> int:
        """The column headings (by default the sheet's own); returns the header row."""
        labels = list(labels) if labels is not None else [c for c, _ in self.columns]
        row = self.row_index
        self.ws.write_string(row, 0, "", self.book.styles.header)
        for col, text in enumerate(labels, start=1):
            self.ws.write_string(row, col, text, self.book.styles.header)
        self.ws.write_string(row, self.unit_col, "Unit", self.book.styles.header)
        self.ws.write_string(row, self.note_col, "Notes", self.book.styles.header)
        self.header_row = row
        if freeze:
            self.ws.freeze_panes(row + 1, 1)
        self.row_index += 1
        return row

    def text(self, text: str, *, style=None, height: float | None = None) -> None:
        """A line of prose across the sheet."""
        self.ws.merge_range(self.row_index, 0, self.row_index, self.note_col, "", style or self.book.styles.text)
        self.ws.write_string(self.row_index, 0, text, style or self.book.styles.text)
        if height:
            self.ws.set_row(self.row_index, height)
        self.row_index += 1

    # Cells ------------------------------------------------------------------------------------------------
    def formula(self, row: int, col: int, formula: str, value: Any, style) -> str:
        """Write one formula with the engine's value as its cached result; returns the cell's A1 address."""
        value = plain(value)
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            value = int(value)  # the XML then holds 8, not 8.0, as Excel writes it
        self.ws.write_formula(row, col, formula, style, value)
        cell = xl_rowcol_to_cell(row, col)
        self.book.formulas[(self.name, cell)] = value
        return cell

    def expand(self, template: str, col: int | None = None) -> str:
        """Replace {key} by the row's cell: the same column's on a per-column row, else the row's own cell;
        {column} by the column's header cell and {row} by the row being written."""

        def ref(match: re.Match) -> str:
            key = match.group(1)
            if key == "row":
                return str(self.row_index + 1)
            if key == "column":
                return xl_col_to_name(col) + "$" + str(self.header_row + 1)
            target = self.cells[key]
            if isinstance(target, list):
                if col is None:
                    raise ValueError(f"{{{key}}} is a per-column row; use it from a per-column row")
                return target[col - 1]
            return target

        return TEMPLATE.sub(ref, template)

    def row(self, key: str, label: str, formula: str | Sequence[str], value: Any, unit: str = "", note: str = "",
            kind: str = "number", *, name: str | None = None, per_column: bool = False, bold: bool = False):
        """A labelled row. A scalar row writes one formula in the last value column; a per-column row writes the
        template in every value column (a list of templates gives each column its own) with a list of values."""
        r = self.row_index
        style = self.book.styles.value(kind, bold=bold)
        self.ws.write_string(r, 0, label, self.book.styles.label)
        if per_column:
            templates = [formula] * len(self.columns) if isinstance(formula, str) else list(formula)
            values = list(value)
            cells = [self.formula(r, c, self.expand(t, c), v, style)
                     for c, t, v in zip(self.value_cols, templates, values, strict=True)]
            self.cells[key] = [_absolute(c) for c in cells]
            own = cells[-1]
        else:
            own = self.formula(r, self.last_col, self.expand(formula), value, style)
            self.cells[key] = _absolute(own)
        self._unit_and_note(r, unit, note)
        if name:
            self.book.define(name, self.name, own)
        self.row_index += 1
        return own

    def heading_row(self, labels: Sequence[str]) -> int:
        """A row of bold, wrapped column headings from column A; returns its 0-based row."""
        row = self.row_index
        for col, text in enumerate(labels):
            self.ws.write_string(row, col, text, self.book.styles.header)
        self.ws.set_row(row, 30)
        self.row_index += 1
        return row

    def records(self, labels: Sequence[str], columns: Sequence["Column"], values, *,
                label_header: str = "") -> tuple[int, int, int]:
        """A table with one row per item (labels in column A) and one formula column per Column. In a template,
        {other_column_key} is the same row's cell of that column, {label} the row's label cell and {i} the row's
        1-based position. `values` is a DataFrame with a row per label and a column per Column key.
        Returns (header row, first row, last row), 0-based."""
        header = self.heading_row([label_header] + [column.header for column in columns])
        first = header + 1
        position = {column.key: col for col, column in enumerate(columns, start=1)}
        for i, label in enumerate(labels):
            r = first + i
            self.ws.write_string(r, 0, str(label), self.book.styles.label)

            def ref(match: re.Match, r=r, i=i) -> str:
                word = match.group(1)
                if word == "label":
                    return _absolute(xl_rowcol_to_cell(r, 0))
                if word == "i":
                    return str(i + 1)
                return _absolute(xl_rowcol_to_cell(r, position[word]))

            for column in columns:
                formula = TEMPLATE.sub(ref, column.template)
                self.formula(r, position[column.key], formula, values.iloc[i][column.key],
                             self.book.styles.value(column.kind))
        self.row_index = first + len(labels)
        return header, first, first + len(labels) - 1

    def _unit_and_note(self, row: int, unit: str, note: str) -> None:
        if unit:
            self.ws.write_string(row, self.unit_col, unit, self.book.styles.unit)
        if note:
            self.ws.write_string(row, self.note_col, note, self.book.styles.note)
            lines = 1 + int(len(note) / (self.note_width * 1.15))  # wrapped notes need taller rows
            if lines > 1:
                self.ws.set_row(row, 15 * lines)

    def validate(self, row: int, col: int, validation: dict) -> None:
        """Data validation on one cell; {cell} in a custom rule becomes the cell's address."""
        if isinstance(validation.get("value"), str):
            validation = {**validation, "value": validation["value"].replace("{cell}", xl_rowcol_to_cell(row, col))}
        self.ws.data_validation(row, col, row, col, validation)

    def input(self, key: str, label: str, value: Any, unit: str, note: str, kind: str, validation: dict,
              *, name: str) -> str:
        """An input cell: blue on pale yellow, unlocked, validated, with a workbook-level name."""
        r, c = self.row_index, self.last_col
        style = self.book.styles.value(kind, input=True)
        self.ws.write_string(r, 0, label, self.book.styles.label)
        value = plain(value)
        if isinstance(value, bool):
            self.ws.write_boolean(r, c, value, style)
        elif isinstance(value, str):
            self.ws.write_string(r, c, value, style)
        else:
            self.ws.write_number(r, c, value, style)
        cell = xl_rowcol_to_cell(r, c)
        self.validate(r, c, validation)
        self._unit_and_note(r, unit, note)
        self.cells[key] = _absolute(cell)
        self.book.define(name, self.name, cell)
        self.row_index += 1
        return cell


@dataclass(frozen=True)
class Column:
    """A formula column of a records table: its key (also the engine's column), heading, template, format."""

    key: str
    header: str
    template: str
    kind: str = "number"


def _absolute(cell: str) -> str:
    return re.sub(r"([A-Z]+)(\d+)", r"$\1$\2", cell)


def _header_text(text: str) -> str:
    """Page-header text with '&' escaped (it starts a control code) and within Excel's 255 characters."""
    return text.replace("&", "&&")[:200]


# Data validation ------------------------------------------------------------------------------------------
def whole_number(minimum: int = 1, maximum: int = 10**9) -> dict:
    return {"validate": "integer", "criteria": "between", "minimum": minimum, "maximum": maximum,
            "error_title": "Whole number", "error_message": f"Enter a whole number from {minimum:,} to {maximum:,}."}


def number(minimum: float, maximum: float = 1e30, *, exclusive_minimum: bool = False) -> dict:
    """A decimal in [minimum, maximum]; with exclusive_minimum a custom rule for (minimum, maximum] on {cell}."""
    text = f"more than {minimum:g}" if exclusive_minimum else f"at least {minimum:g}"
    message = f"Enter a number {text}" + (f" and at most {maximum:g}." if maximum < 1e30 else ".")
    if exclusive_minimum:
        return {"validate": "custom", "value": f"=AND(ISNUMBER({{cell}}),{{cell}}>{minimum},{{cell}}<={maximum})",
                "error_title": "Number out of range", "error_message": message}
    return {"validate": "decimal", "criteria": "between", "minimum": minimum, "maximum": maximum,
            "error_title": "Number out of range", "error_message": message}


def one_of(source: str | list[str], what: str) -> dict:
    """A dropdown list: a range reference such as =catalog_model_ids, or literal choices."""
    return {"validate": "list", "source": source, "error_title": f"Unknown {what}",
            "error_message": f"Choose a {what} from the list."}


TRUE_FALSE = {"validate": "list", "source": ["TRUE", "FALSE"], "error_title": "TRUE or FALSE",
              "error_message": "Choose TRUE or FALSE."}
