"""The Inputs sheet and what an input cell may hold.

Every input is a field declared on the scenario model (planner/scenario.py) with its type, limits, label, unit and
note. `Allowed` reads a declaration once and gives the cell's data validation, the Checks sheet's formula and the
words that say what is allowed, so validation, the workbook's dropdowns and ranges and its Checks cannot disagree.
"""

from __future__ import annotations

import types
import typing
from dataclasses import dataclass
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from planner.method import Constant
from planner.workbook import kit

LARGEST_WHOLE_RULE = 2**31 - 1  # spreadsheets' whole-number validation stops here; beyond it a custom rule


@dataclass(frozen=True)
class Allowed:
    """What a cell may hold, read from a scenario field's declaration."""

    type: str  # "bool", "choice", "whole", "decimal", "text", "choice_or_number", "choice_or_whole"
    minimum: float | None = None
    maximum: float | None = None
    choices: str | None = None  # a defined name listing the allowed ids
    optional: bool = False

    @classmethod
    def of(cls, info: FieldInfo, *, optional: bool = False) -> "Allowed":
        """From a field's declaration. A scenario's optional fields are filled in before they reach a workbook,
        so a cell may be blank only where the caller says so (Catalog's optional columns)."""
        limits = _limits(info.annotation, info.metadata)
        extra = info.json_schema_extra or {}
        choices = extra.get("choices")
        kinds = _base_types(info.annotation)
        if bool in kinds:
            kind = "bool"
        elif choices and float in kinds:
            kind = "choice_or_number"
        elif choices and int in kinds:
            kind = "choice_or_whole"
        elif choices:
            kind = "choice"
        elif int in kinds:
            kind = "whole"
        elif float in kinds:
            kind = "decimal"
        else:
            kind = "text"
        return cls(kind, limits.get("ge"), limits.get("le"), choices, optional)

    def validation(self) -> dict:
        """XlsxWriter data validation: a dropdown or a range; blanks refused."""
        lo, hi = self.minimum, self.maximum
        common = {"ignore_blank": self.optional}
        if self.type == "bool":
            return {"validate": "list", "source": ["TRUE", "FALSE"], "error_title": "TRUE or FALSE",
                    "error_message": "Choose TRUE or FALSE.", **common}
        if self.type in ("choice", "choice_or_number", "choice_or_whole"):
            rule = {"validate": "list", "source": f"={self.choices}", "error_title": "Not in the list",
                    "error_message": self.words(), **common}
            if self.type != "choice":
                rule["error_type"] = "information"  # a number is allowed too: the Checks sheet checks it
            return rule
        if self.type == "text":
            return {"validate": "length", "criteria": "between", "minimum": 1, "maximum": 64,
                    "error_title": "Text", "error_message": self.words(), **common}
        if self.type == "whole" and hi <= LARGEST_WHOLE_RULE:
            return {"validate": "integer", "criteria": "between", "minimum": int(lo), "maximum": int(hi),
                    "error_title": "Whole number", "error_message": self.words(), **common}
        if self.type == "whole":
            return {"validate": "custom", "value": "=" + self.check("{cell}"), "error_title": "Whole number",
                    "error_message": self.words(), **common}
        return {"validate": "decimal", "criteria": "between", "minimum": lo, "maximum": hi,
                "error_title": "Number out of range", "error_message": self.words(), **common}

    def check(self, ref: str) -> str:
        """A formula (without "=") that is TRUE while `ref` holds an allowed value, FALSE for a blank (unless
        optional), text where a number goes, or a number out of range."""
        if self.type == "bool":  # LibreOffice has no logical type: a 2 pasted into a TRUE/FALSE cell is "logical"
            rule = f"IF(ISLOGICAL({ref}),OR({ref}=TRUE,{ref}=FALSE),FALSE)"
        elif self.type == "choice":
            rule = f"AND(ISTEXT({ref}),ISNUMBER(MATCH({ref},{self.choices},0)))"
        elif self.type in ("choice_or_number", "choice_or_whole"):
            whole = f",{ref}=INT({ref})" if self.type == "choice_or_whole" else ""
            rule = (f"OR(AND(ISTEXT({ref}),ISNUMBER(MATCH({ref},{self.choices},0))),"
                    f"IF(ISNUMBER({ref}),AND({ref}>={self.minimum:g},{ref}<={self.maximum:g}{whole}),FALSE))")
        elif self.type == "text":
            rule = f"AND(ISTEXT({ref}),LEN({ref})>=1,LEN({ref})<=64)"
        else:
            whole = f",{ref}=INT({ref})" if self.type == "whole" else ""
            rule = f"IF(ISNUMBER({ref}),AND({ref}>={self.minimum:g},{ref}<={self.maximum:g}{whole}),FALSE)"
        return f"OR(ISBLANK({ref}),{rule})" if self.optional else rule

    def words(self) -> str:
        """What is allowed, in words (shown when a value is refused, and on the Checks sheet)."""
        blank = " or blank" if self.optional else ""
        if self.type == "bool":
            return "TRUE or FALSE."
        if self.type == "choice":
            return f"One of {self.choices}{blank}."
        if self.type in ("choice_or_number", "choice_or_whole"):
            what = "a whole number" if self.type == "choice_or_whole" else "a number"
            return f"One of {self.choices}, or {what} from {self.minimum:,g} to {self.maximum:,g}."
        if self.type == "text":
            return "Text of 1 to 64 characters."
        what = "A whole number" if self.type == "whole" else "A number"
        return f"{what} from {self.minimum:,g} to {self.maximum:,g}{blank}."


def _limits(annotation, metadata) -> dict[str, float]:
    """ge and le from a field's constraints, looking inside Optional[...] and Union[...]; gt becomes ge."""
    found: dict[str, float] = {}
    for item in list(metadata) + _nested_metadata(annotation):
        if isinstance(item, FieldInfo):
            found.update(_limits(None, item.metadata))
            continue
        for key in ("ge", "gt", "le", "lt"):
            if isinstance(item, getattr(annotated_types, key.capitalize())):
                found[{"gt": "ge", "lt": "le"}.get(key, key)] = getattr(item, key)
    return found


def _nested_metadata(annotation) -> list:
    if typing.get_origin(annotation) is typing.Annotated:
        args = typing.get_args(annotation)
        return list(args[1:]) + _nested_metadata(args[0])
    found = []
    for arg in typing.get_args(annotation) if _is_union(annotation) else ():
        found += _nested_metadata(arg)
    return found


def _is_union(annotation) -> bool:
    return typing.get_origin(annotation) in (typing.Union, types.UnionType)


def _base_types(annotation) -> set:
    if typing.get_origin(annotation) is typing.Annotated:
        return _base_types(typing.get_args(annotation)[0])
    if _is_union(annotation):
        return set().union(*(_base_types(a) for a in typing.get_args(annotation)))
    if typing.get_origin(annotation) is typing.Literal:
        return {str}
    return {annotation}


# Inputs: the declared fields of the scenario's sections ----------------------------------------------------
@dataclass(frozen=True)
class Input:
    """One input cell. Its defined name is the scenario key path joined by "_" (memory.gpus → memory_gpus)."""

    path: str  # dotted scenario key path; list items are 1-based: hours.allocations.1.gpus
    label: str
    unit: str
    note: str
    kind: str  # a kit.KINDS key
    allowed: Allowed
    value: Any

    @property
    def name(self) -> str:
        return self.path.replace(".", "_")


def declared_inputs(model: BaseModel, prefix: str, title: str = "") -> list[Input]:
    """The inputs of a scenario section: each declared field (one with a label), sub-sections and list items in
    order. `title` prefixes labels of list items ("Allocation option 2: GPUs")."""
    found: list[Input] = []
    for key, info in type(model).model_fields.items():
        extra = info.json_schema_extra or {}
        value = getattr(model, key)
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, BaseModel):
            found += declared_inputs(value, path, title)
        elif isinstance(value, list) and all(isinstance(item, BaseModel) for item in value):  # [] too: no input
            if "label" in extra:
                for i, item in enumerate(value, start=1):
                    found += declared_inputs(item, f"{path}.{i}", f"{extra['label']} {i}: ")
        elif "label" in extra:
            found.append(Input(path, title + extra["label"], extra["unit"], info.description or "", extra["kind"],
                               Allowed.of(info), value))
    return found


def write_inputs_sheet(book: kit.Book, general: list[tuple[kit.Row | Input | Constant, Any]],
                       sections: list[tuple[str, list[Input]]]) -> kit.Sheet:
    """Inputs: the general block (model, GPU, the looked-up price, the currency), then each table's sections."""
    sheet = book.sheet("Inputs", [("Value", 20)])
    sheet.title("Inputs", "Blue cells on pale yellow are inputs: change them and every sheet follows. Catalog "
                "values (models, GPUs, prices, presets, profiles) are inputs too, on the Catalog sheet.")
    sheet.header(["Value"], freeze=True)
    sheet.section("Model, GPU and price")
    for item, value in general:
        _write(sheet, item, value)
    sheet.skip()
    for title, inputs in sections:
        sheet.section(title)
        for spec in inputs:
            _write(sheet, spec, spec.value)
        sheet.skip()
    return sheet


def _write(sheet: kit.Sheet, item, value) -> None:
    if isinstance(item, Input):
        sheet.input(item.name, item.label, value, kind=item.kind, unit=item.unit, note=item.note,
                    validation=item.allowed.validation())
    elif isinstance(item, Constant):
        sheet.constant(item.name, item.label, item.value, kind="text" if isinstance(item.value, str) else "number",
                       unit=item.unit, note=item.source)
    else:
        sheet.row(item, value)
