"""What the workbook and the HTML summary both read, below both: the row specs (a labelled formula row, a records
column, a Cover key result, a Checks row), labels that follow the inputs (a text template as a formula and the text it
gives), and the Cluster chart's stacks. A label, a unit or a colour is written once here and shown by each."""

from __future__ import annotations

import re
from dataclasses import KW_ONLY, dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Any, Callable

from planner.units import KINDS


# Row specs: written once, read by the sheet (and by the Cover, the Checks and the HTML where they show them) ----
@dataclass(frozen=True)
class Row:
    """A labelled formula row. A per-column row writes its template in every value column; a scalar row in the
    last (the scenario's) column. `warn` colours the value red: "false" when FALSE, "negative" below 0."""

    key: str
    label: str
    _: KW_ONLY
    formula: str
    kind: str = "number"
    unit: str | None = None  # None: the kind's unit
    note: str = ""
    name: str | None = None  # a workbook-level defined name for the scenario's cell
    per_column: bool = False
    bold: bool = False
    warn: str | None = None
    at: str | None = None  # a scalar row's value column, by the sheet column's key (Sheet.keys): under its heading

    @property
    def shown_unit(self) -> str:
        return KINDS[self.kind].unit if self.unit is None else self.unit


@dataclass(frozen=True)
class Column:
    """A formula column of a records table: its key (also the engine's field), heading, template, format. The
    template may be a function of the row's 0-based position, for rows that read different inputs."""

    key: str
    header: str
    _: KW_ONLY
    template: str | Callable[[int], str]
    kind: str = "number"
    warn: str | None = None
    snapshot: bool = False  # a value as the engine computed it when generated (grey, locked), not a formula


@dataclass(frozen=True)
class KeyResult:
    """A Cover key result: a headline name, its label (a text template: {name} or {name|count}, {name|tera},
    {name|percent}, {name|choice} read inputs, so the label follows them), its kind and unit (shown in the number
    format)."""

    name: str
    label: str
    _: KW_ONLY
    kind: str
    unit: str | None = None
    first: bool = False  # shown first on the Cover, under the plan's total, apart from the other key results
    snapshot: bool = False  # a value as the engine computed it when generated: not compared across scenarios
    what_if: bool = False  # from premises other than the plan's (its label says which): apart, under "What-ifs"


@dataclass(frozen=True)
class Check:
    """A Checks-sheet row: its key (the engine's check of the same key), label, and a formula that is TRUE when the
    workbook is sound. The kit wraps it in IFERROR(…, FALSE): a blank or text input turns it FALSE, never an error."""

    key: str
    label: str
    _: KW_ONLY
    formula: str
    note: str = ""
    about: tuple[str, ...] = ()  # inputs (name prefixes) this rule is about: their named results need it too
    # what the label adds while the check fails, a text formula naming the cell to fix: {catalog_cell:<column name>,
    # <ids name>,<id expression>} is the address of that entry's Catalog cell; "": the label as written
    label_formula: str = ""


@dataclass(frozen=True)
class Warning:
    """A Checks-sheet warning: its key (the engine's warning of the same key), label, and a formula that is TRUE when
    the warning applies. A warning does not fail the master check or make a result n/a: the results stand, and its
    note says which input or reading to take care about. The kit wraps it in IFERROR(…, FALSE)."""

    key: str
    label: str
    _: KW_ONLY
    formula: str
    note: str = ""


@dataclass(frozen=True)
class Formula:
    """A header or text cell that is a formula with a cached value."""

    formula: str
    value: Any


# Text formulas: labels that follow the inputs -----------------------------------------------------------------
TEXT_FORMATS = {  # placeholder format → (Excel TEXT format, divisor applied first, decimals shown)
    "count": ("#,##0", None, 0),
    "whole": ("#,##0", None, 0),  # a measure shown to the unit (tokens a day): 2,326,855,680.0000005 as 2,326,855,680
    "decimal": ("#,##0.0", None, 1),
    "tera": ("#,##0.0", 1e12, 1),
    "percent": ("0%", None, 0),
}
PLACEHOLDER = re.compile(r"\{(\w+)(?:\|(\w+))?\}")


def excel_fixed(value: float, decimals: int) -> str:
    """A number as Excel's TEXT shows it with thousands separators: 15 significant digits, halves rounded away from
    zero (Python's own formatting rounds half to even)."""
    exact = Decimal(f"{value:.15g}").quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_HALF_UP)
    return f"{exact:,.{decimals}f}"


FRACTION = "#,##0.0########"  # a count that is not whole, to nine decimals (TEXT's own rounding)


def count_text(value: float) -> str:
    """A count as a label shows it: a whole number with separators; a fraction with its decimals (to nine)."""
    if value == int(value):
        return excel_fixed(value, 0)
    shown = excel_fixed(value, 9).rstrip("0")
    return shown + "0" if shown.endswith(".") else shown


def text_formula(template: str, values: dict[str, Any]) -> Formula:
    """A text template ("{model} on {gpu}, {memory_gpus|count} GPUs", {budget_path|words}) as a formula joining
    literal text and named cells, with the text it gives for `values` as its cached value."""
    parts, texts, at = [], [], 0
    for match in PLACEHOLDER.finditer(template):
        literal = template[at:match.start()]
        if literal:
            parts.append('"' + literal.replace('"', '""') + '"')
            texts.append(literal)
        name, kind = match.groups()
        if kind is None:
            parts.append(name)
            texts.append(str(values[name]))
        elif kind == "choice":  # an id from a dropdown as itself, or the number typed instead with separators
            parts.append(f'IFERROR(IF(ISNUMBER({name}),TEXT({name},"#,##0"),{name}),"?")')
            texts.append(str(values[name]) if isinstance(values[name], str) else excel_fixed(values[name], 0))
        elif kind == "words":  # an id of words joined by "_" as the words hyphenated: on_demand → on-demand
            parts.append(f'SUBSTITUTE({name},"_","-")')
            texts.append(str(values[name]).replace("_", "-"))
        elif kind == "count":  # a whole number as one; a fraction typed in (1.5 users) as itself, never rounded
            parts.append(f'IF(ISNUMBER({name}),IF({name}=INT({name}),TEXT({name},"#,##0"),TEXT({name},'
                         f'"{FRACTION}")),"?")')
            texts.append(count_text(values[name]))
        else:  # a blank, text or an "n/a" where a number belongs shows "?": a label never reads 0 or "n/a"
            excel_format, divisor, decimals = TEXT_FORMATS[kind]
            number = f"{name}/{divisor:g}" if divisor else name
            parts.append(f'IF(ISNUMBER({name}),TEXT({number},"{excel_format}"),"?")')
            value = values[name] / (divisor or 1)
            texts.append(excel_fixed(value * 100, decimals) + "%" if kind == "percent"
                         else excel_fixed(value, decimals))
        at = match.end()
    if template[at:]:
        parts.append('"' + template[at:].replace('"', '""') + '"')
        texts.append(template[at:])
    return Formula("=" + "&".join(parts), "".join(texts))


# The Cluster sheet's and section's stacked bars: (column, legend, colour) by mode
CLUSTER_STACKS = {
    "separate": (("demand", "Inference", "#4472C4"), ("separate_idle", "Serving pool idle", "#A5A5A5"),
                 ("separate_training", "Training", "#ED7D31")),
    "shared": (("demand", "Inference", "#4472C4"), ("shared_spare", "Spare", "#A5A5A5"),
               ("shared_training", "Training", "#ED7D31")),
}
