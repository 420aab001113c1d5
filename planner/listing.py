"""Each input as the workbook's Inputs sheet and the HTML summary list it, and what an input cell may hold: below
both (the workbook writes the sheet, planner/workbook/inputs.py; the HTML lists the same labels and values).

Every input is a field declared on the scenario model (planner/scenario/) with its type, limits, label, unit and
note. `Allowed` reads a declaration once and gives the cell's data validation, the Checks sheet's formula and the
words that say what is allowed, so validation, the workbook's dropdowns and ranges and its Checks cannot disagree.
"""

from __future__ import annotations

import datetime as dt
import re
import types
import typing
from dataclasses import dataclass, replace
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from planner.engine.calendar import date_of, serial
from planner.method import Constant
from planner.scenario import named as named_scenarios
from planner.specs import Row

LIST_CHARACTERS = 255  # the most a dropdown's list written in the rule may hold, joined by commas (Excel's limit)
LARGEST_WHOLE_RULE = 2**31 - 1  # spreadsheets' whole-number validation stops here; beyond it a custom rule
# What each dropdown's list is, in words; the Catalog blocks whose rows have a Valid column (a chosen row must hold
# allowed values for its input's check to pass)
CHOICE_WORDS = {"catalog_model_ids": "a model id from Catalog", "catalog_gpu_ids": "a GPU id from Catalog",
                "catalog_strategy_ids": "ddp, zero1, zero2 or zero3",
                "catalog_traffic_preset_ids": "a traffic preset id from Catalog",
                "catalog_profile_ids": "a demand profile id from Catalog",
                "catalog_precision_ids": "a precision id from Catalog (bf16, fp8, int8, int4-g128, or your own)",
                "catalog_api_offer_ids": "an API offer id from Catalog"}
ROWS_CHECKED = ("catalog_model_ids", "catalog_gpu_ids", "catalog_traffic_preset_ids", "catalog_profile_ids",
                "catalog_precision_ids", "catalog_api_offer_ids")
ACROSS = ("catalog_profile_ids",)  # blocks laid out one entry per column
# Inputs typed in a larger unit than the scenario's (what a cell shows is what is typed): kind → (name suffix,
# scale); the scenario's value is a formula of the typed cell, ROUND(typed · scale, 0)
TYPED_IN = {"tera": ("trillions", 1e12, "1e12")}
WORDS = ((1e18, "quintillion"), (1e15, "quadrillion"), (1e12, "trillion"), (1e9, "billion"), (1e6, "million"))


def same_text(a, b) -> bool:
    """EXACT(a, b) as a spreadsheet reckons it: both as text, numbers to 15 significant digits."""
    def text(v):
        if isinstance(v, bool):
            return "TRUE" if v else "FALSE"
        if isinstance(v, (int, float)):
            return f"{v:.15g}"
        return "" if v is None else str(v)
    return text(a) == text(b)


def plain_number(x: float) -> str:
    """A limit as a reader says it: 1 million, 36,500, 0.001."""
    for size, word in WORDS:
        if abs(x) >= size and (x / size) == round(x / size, 3):
            return f"{x / size:,g} {word}"
    return f"{x:,.6f}".rstrip("0").rstrip(".") if x != int(x) else f"{int(x):,}"


@dataclass(frozen=True)
class Allowed:
    """What a cell may hold, read from a scenario field's declaration."""

    type: str  # "bool", "choice", "whole", "decimal", "text", "choice_or_number", "choice_or_whole"
    minimum: float | None = None
    maximum: float | None = None
    choices: str | None = None  # a defined name listing the allowed ids
    optional: bool = False
    kind: str = "number"  # how the value shows (a planner.units.KINDS key): percent limits are said as percentages
    unit: str = ""
    keywords: tuple[str, ...] = ()  # the words a number's cell may hold instead ("word_or_number")
    above: bool = False  # the minimum itself is not allowed (gt, not ge: an FX rate above 0)
    step: float | None = None  # a whole number's allowed values are its multiples (2 or 4 bytes: a step of 2)
    word_reads: tuple[str, str] | None = None  # the cell a word stands for, and in words when it holds a number:
    # the word passes only then

    @classmethod
    def of(cls, info: FieldInfo, *, optional: bool = False) -> "Allowed":
        """From a field's declaration. A scenario's optional fields are filled in before they reach a workbook,
        so a cell may be blank only where the caller says so (Catalog's optional columns)."""
        limits = _limits(info.annotation, info.metadata)
        extra = info.json_schema_extra or {}
        optional = optional or bool(extra.get("blank"))
        choices = extra.get("choices")
        kinds = _base_types(info.annotation)
        options = _literal_options(info.annotation)
        if extra.get("kind") == "date":  # ISO text in the scenario, a serial day in the cell
            first, last = (serial(dt.date.fromisoformat(day)) for day in extra["between"])
            return cls("date", first, last, None, optional, "date", extra.get("unit", ""))
        if bool in kinds:
            kind = "bool"
        elif extra.get("words"):
            kind = "word_or_number"
        elif options and not choices:
            return cls("listed", None, None, None, optional, extra.get("kind", "text"), extra.get("unit", ""),
                       options)
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
        return cls(kind, limits.get("ge"), limits.get("le"), choices=choices, optional=optional,
                   kind=extra.get("kind", "number"), unit=extra.get("unit", ""), keywords=tuple(extra.get("words", ())),
                   above=bool(limits.get("above")), step=limits.get("multiple_of"))

    def scaled(self, scale: float, unit: str) -> "Allowed":
        """The same limits in a unit `scale` times larger (tokens typed in trillions), as decimals."""
        return Allowed("decimal", self.minimum / scale, self.maximum / scale, optional=self.optional, kind="decimal",
                       unit=unit)

    def validation(self, title: str = "") -> dict:
        """XlsxWriter data validation: a dropdown or a range; blanks refused; with `title`, a prompt (the input's
        label and what is allowed) shown when the cell is selected."""
        lo, hi = self.minimum, self.maximum
        common = {"ignore_blank": self.optional}
        if title:
            common |= {"input_title": title[:32], "input_message": self.words()[:255]}
        if self.type == "bool":
            return {"validate": "list", "source": ["TRUE", "FALSE"], "error_title": "TRUE or FALSE",
                    "error_message": "Choose TRUE or FALSE.", **common}
        if self.type == "listed":  # a list longer than Excel's 255 characters is read from its range on a sheet
            long = self.choices and len(",".join(self.keywords)) > LIST_CHARACTERS
            return {"validate": "list", "source": f"={self.choices}" if long else list(self.keywords),
                    "error_title": "Not in the list", "error_message": self.words()[:255], **common}
        if self.type == "word_or_number":  # a dropdown of the words; a number is allowed too (Checks check it)
            return {"validate": "list", "source": list(self.keywords), "error_type": "information",
                    "error_title": "A number or a word", "error_message": self.words()[:255], **common}
        if self.type in ("choice", "choice_or_number", "choice_or_whole"):
            rule = {"validate": "list", "source": f"={self.choices}", "error_title": "Not in the list",
                    "error_message": self.words(), **common}
            if self.type != "choice":
                rule["error_type"] = "information"  # a number is allowed too: the Checks sheet checks it
            return rule
        if self.type == "date":
            return {"validate": "date", "criteria": "between", "minimum": date_of(lo), "maximum": date_of(hi),
                    "error_title": "A date", "error_message": self.words(), **common}
        if self.type == "text":
            return {"validate": "length", "criteria": "between", "minimum": 1, "maximum": 64,
                    "error_title": "Text", "error_message": self.words(), **common}
        if self.type == "whole" and hi <= LARGEST_WHOLE_RULE and not self.step:
            return {"validate": "integer", "criteria": "between", "minimum": int(lo), "maximum": int(hi),
                    "error_title": "Whole number", "error_message": self.words(), **common}
        if self.type == "whole":
            return {"validate": "custom", "value": "=" + self.check("{cell}"), "error_title": "Whole number",
                    "error_message": self.words(), **common}
        if self.above:  # above the minimum, not at it: a rule of its own
            return {"validate": "custom", "value": "=" + self.check("{cell}"), "error_title": "Number out of range",
                    "error_message": self.words(), **common}
        return {"validate": "decimal", "criteria": "between", "minimum": lo, "maximum": hi,
                "error_title": "Number out of range", "error_message": self.words(), **common}

    def check(self, ref: str) -> str:
        """A formula (without "=") that is TRUE while `ref` holds an allowed value, FALSE for a blank (unless
        optional), text where a number goes, or a number out of range."""
        if self.type == "bool":  # LibreOffice has no logical type: a 2 pasted into a TRUE/FALSE cell is "logical"
            rule = f"IF(ISLOGICAL({ref}),OR({ref}=TRUE,{ref}=FALSE),FALSE)"
        elif self.type == "choice":
            rule = self._listed(ref)
        elif self.type in ("choice_or_number", "choice_or_whole"):
            whole = f",{ref}=INT({ref})" if self.type == "choice_or_whole" else ""
            rule = (f"OR({self._listed(ref)},"
                    f"IF(ISNUMBER({ref}),AND({ref}>={self.minimum:g},{ref}<={self.maximum:g}{whole}),FALSE))")
        elif self.type == "date":  # a whole day: a serial number from the first to the last date allowed
            rule = f"IF(ISNUMBER({ref}),AND({ref}>={self.minimum:g},{ref}<={self.maximum:g},{ref}=INT({ref})),FALSE)"
        elif self.type == "text":
            rule = f"AND(ISTEXT({ref}),LEN({ref})>=1,LEN({ref})<=64)"
        elif self.type == "listed":
            rule = f"IF(ISTEXT({ref}),OR(" + ",".join(f'EXACT({ref},"{word}")' for word in self.keywords) + "),FALSE)"
        elif self.type == "word_or_number":
            listed = "OR(" + ",".join(f'{ref}="{word}"' for word in self.keywords) + ")"
            if self.word_reads:
                listed = f"AND({listed},ISNUMBER({self.word_reads[0]}))"
            rule = (f"IF(ISTEXT({ref}),{listed},IF(ISNUMBER({ref}),AND({ref}>={self.minimum:g},"
                    f"{ref}<={self.maximum:g}),FALSE))")
        else:
            whole = f",{ref}=INT({ref})" if self.type == "whole" else ""
            least = ">" if self.above else ">="
            whole += f",MOD({ref},{self.step:g})=0" if self.step else ""
            rule = (f"IF(ISNUMBER({ref}),AND({ref}{least}{_exact(self.minimum)},{ref}<={_exact(self.maximum)}{whole}),"
                    "FALSE)")
        return f"OR(ISBLANK({ref}),{rule})" if self.optional else rule

    def _listed(self, ref: str) -> str:
        """An id in the dropdown's list (and its Catalog row valid, where rows are checked); IF, not AND, so a
        number typed instead never reaches the lookup (AND would pass its #N/A on)."""
        found = f"MATCH({ref},{self.choices},0)"
        at = f"1,{found}" if self.choices in ACROSS else f"{found},1"  # row and column: Gnumeric needs both
        listed = f"INDEX({self.choices.removesuffix('_ids')}_valid,{at})=TRUE" if self.choices in ROWS_CHECKED \
            else "TRUE"
        return f"IF(ISTEXT({ref}),IF(ISNUMBER({found}),{listed},FALSE),FALSE)"

    def words(self) -> str:
        """What is allowed, in words and plain numbers (shown when a value is refused or the cell is selected, and
        on the Checks sheet)."""
        blank = " or blank" if self.optional else ""
        unit = f" {self.unit}" if self.unit and self.kind != "percent" else ""
        if self.type == "bool":
            return "TRUE or FALSE."
        if self.type == "choice":
            return f"One of: {CHOICE_WORDS.get(self.choices, self.choices)}{blank}."
        if self.type in ("choice_or_number", "choice_or_whole"):
            what = "a whole number" if self.type == "choice_or_whole" else "a number"
            return (f"{CHOICE_WORDS.get(self.choices, self.choices).capitalize()}, or {what}{unit} from "
                    f"{plain_number(self.minimum)} to {plain_number(self.maximum)}.")
        if self.type == "date":
            return f"A date from {date_of(self.minimum)} to {date_of(self.maximum)} (type 2027-01-01){blank}."
        if self.type == "text":
            return "Text of 1 to 64 characters."
        if self.type == "listed":
            return f"One of: {', '.join(self.keywords)}."
        if self.type == "word_or_number":
            share = (f"a share from {plain_number(self.minimum * 100)} % to {plain_number(self.maximum * 100)} %"
                     if self.kind == "percent" else f"a number from {plain_number(self.minimum)} to "
                     f"{plain_number(self.maximum)}")
            when = f" ({self.word_reads[1]})" if self.word_reads else ""
            return f"The word {' or '.join(self.keywords)}{when}, or {share}."
        if self.kind == "percent":
            return (f"A share from {plain_number(self.minimum * 100)} % to {plain_number(self.maximum * 100)} % "
                    f"(type 40 % or 0.4){blank}.")
        what = "A whole number" if self.type == "whole" else "A number"
        what += f", a multiple of {plain_number(self.step)}" if self.step else ""
        if self.above:
            return f"{what} above {plain_number(self.minimum)}, up to {plain_number(self.maximum)}{unit}{blank}."
        return f"Between {plain_number(self.minimum)} and {plain_number(self.maximum)}{unit}: {what.lower()}{blank}."


def _limits(annotation, metadata) -> dict[str, float]:
    """ge and le from a field's constraints, looking inside Optional[...] and Union[...]; gt becomes ge with "above"."""
    found: dict[str, float] = {}
    for item in list(metadata) + _nested_metadata(annotation):
        if isinstance(item, FieldInfo):
            found.update(_limits(None, item.metadata))
            continue
        for key in ("ge", "gt", "le", "lt"):
            if isinstance(item, getattr(annotated_types, key.capitalize())):
                found[{"gt": "ge", "lt": "le"}.get(key, key)] = getattr(item, key)
                if key == "gt":
                    found["above"] = True
        if isinstance(item, annotated_types.MultipleOf):
            found["multiple_of"] = item.multiple_of
    return found


def _nested_metadata(annotation) -> list:
    if typing.get_origin(annotation) is typing.Annotated:
        args = typing.get_args(annotation)
        return list(args[1:]) + _nested_metadata(args[0])
    found = []
    for arg in typing.get_args(annotation) if _is_union(annotation) else ():
        found += _nested_metadata(arg)
    return found


def _literal_options(annotation) -> tuple[str, ...]:
    """The values of a Literal[...] annotation (a field of a few fixed words), else ()."""
    if typing.get_origin(annotation) is typing.Annotated:
        return _literal_options(typing.get_args(annotation)[0])
    if typing.get_origin(annotation) is typing.Literal:
        return tuple(str(v) for v in typing.get_args(annotation))
    return ()


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
    kind: str  # a planner.units.KINDS key
    allowed: Allowed
    value: Any

    @property
    def name(self) -> str:
        return self.path.replace(".", "_")

    # What the cell holds: the value itself, or for a large count the value in the unit shown (TYPED_IN)
    @property
    def typed_name(self) -> str:
        return f"{self.name}_{TYPED_IN[self.kind][0]}" if self.kind in TYPED_IN else self.name

    @property
    def typed_value(self) -> Any:
        if self.kind == "date":  # ISO text as the serial day the cell holds
            return serial(dt.date.fromisoformat(self.value)) if self.value else None
        return self.value / TYPED_IN[self.kind][1] if self.kind in TYPED_IN else self.value

    @property
    def typed_allowed(self) -> Allowed:
        return self.allowed.scaled(TYPED_IN[self.kind][1], self.unit) if self.kind in TYPED_IN else self.allowed


SYMBOL = re.compile(r"(.*\S) ([A-Za-zα-ωΑ-Ω](?:_[A-Za-z0-9]+)?)")  # a label that ends in the method's symbol


def declared_inputs(model: BaseModel, prefix: str, title: str = "") -> list[Input]:
    """The inputs of a scenario section: each declared field (one with a label), sub-sections and list items in
    order. `title` prefixes labels of list items ("Allocation option 2: GPUs")."""
    found: list[Input] = []
    for key, info in type(model).model_fields.items():
        extra = info.json_schema_extra or {}
        value = getattr(model, key)
        path = f"{prefix}.{key}" if prefix else key
        if isinstance(value, BaseModel) and "label" in extra:  # a pool pair (§15.1): the one-number cell blank,
            found.append(Input(path, title + extra["label"], extra["unit"], info.description or "",  # the pair below
                               kind=extra["kind"], allowed=Allowed.of(info), value=None))
            found += declared_inputs(value, path, title)
        elif isinstance(value, BaseModel):
            found += declared_inputs(value, path, title)
        elif isinstance(value, list) and all(isinstance(item, BaseModel) for item in value):  # [] too: no input
            if "label" in extra:
                for i, item in enumerate(value, start=1):
                    found += declared_inputs(item, f"{path}.{i}", f"{extra['label']} {i}: ")
        elif isinstance(value, list) and "label" in extra:  # ids or words: a cell each, allowed as the list's items
            item = FieldInfo.from_annotation(typing.get_args(info.annotation)[0])
            item.json_schema_extra = extra
            found += [Input(path=f"{path}.{i}", label=f"{title}{extra['label']} {i}", unit=extra["unit"],
                            note=info.description or "", kind=extra["kind"], allowed=Allowed.of(item), value=v)
                      for i, v in enumerate(value, start=1)]
        elif "label" in extra:
            label, note, symbol = extra["label"], info.description or "", extra.get("symbol")
            if not symbol and (ends := SYMBOL.fullmatch(label)):  # "Tensor parallel t": t goes to the notes
                label, symbol = ends[1], ends[2]
            if symbol:  # the method's symbol in the Notes column, the label in words
                note = f"{symbol}: {note}" if note else symbol
            found.append(Input(path, title + label, extra["unit"], note,
                               kind=extra["kind"], allowed=Allowed.of(info), value=value))
    return found


@dataclass(frozen=True)
class Columns:
    """With named scenarios (docs/method.md §9), what Inputs' typed columns hold: each input's typed value in the
    Base column and, in each scenario's column, its value where it differs from the base (else the cell is blank:
    as base). The Live column beside them is the chosen column's value, what every formula reads."""

    names: tuple[str, ...]  # the named scenarios, in the file's order
    chosen: str  # "base" or one of names: the scenario the workbook shows
    base: dict[str, Any]  # input path → its typed value in the base
    catalog_price: float  # the shown GPU's Catalog price: what a blank price column reads
    base_price: float  # the base GPU's Catalog price: what the price's Base column looks up
    own: dict[str, dict[str, Any]]  # scenario → input path → its typed value where it differs from the base
    fixed: frozenset[str]  # the paths a scenario cannot change (list items: allocations, servers, benchmarks)
    prices: dict[str, float]  # scenario → the price per GPU-hour it sets (its Inputs column; else the GPU's)

    @classmethod
    def of(cls, results) -> "Columns | None":
        """From the engine's results of every named scenario; None without them."""
        if not results.named:
            return None
        typed = {name: {i.path: i.typed_value for i in scenario_inputs(named.scenario)}
                 for name, named in results.named.items()}
        base = typed.pop("base")
        return cls(tuple(typed), results.file.scenario, base, results.scenario.chosen_gpu.price_per_hour,
                   results.named["base"].scenario.chosen_gpu.price_per_hour,
                   {name: {path: value for path, value in values.items() if not same_value(value, base[path])}
                    for name, values in typed.items()},
                   frozenset(path for path in base if not named_scenarios.changes(type(results.file), path)),
                   {name: float(changes[named_scenarios.PRICE]) for name, changes in results.file.scenarios.items()
                    if named_scenarios.PRICE in changes})

    @property
    def chooser(self) -> Input:
        """The `scenario` dropdown: which column the Live column shows."""
        return Input("scenario", "Scenario shown (the Live column, which every formula reads)", "",
                     "base or a named scenario; a blank cell in its column means as base. Scenarios compares its "
                     "results with those when the workbook was generated.", kind="text",
                     allowed=Allowed("listed", kind="text", keywords=("base", *self.names), choices="scenario_names"),
                     value=self.chosen)

    def typed_names(self, item: Input) -> list[str]:
        """The typed cells' names: <name>_base, then <name>_<scenario> for each a scenario may change."""
        return [f"{item.typed_name}_{name}" for name in ("base", *self.names)
                if name == "base" or item.path not in self.fixed]

    def live(self, item: Input) -> str:
        """The Live cell's formula: the chosen column's value, a blank one as the base's; an input that may be blank
        passes a blank base through as "" (a reference to an empty cell reads as 0)."""
        base, *own = self.typed_names(item)
        return self.choose(base, own, blank=item.typed_allowed.optional)

    def choose(self, base: str, own: list[str], blank: bool = False) -> str:
        """=the cell of the scenario the dropdown chooses (own: one per scenario, or none), `base` where blank."""
        formula = f'IF(ISBLANK({base}),"",{base})' if blank else base
        shown = formula
        for name, cell in reversed(list(zip(self.names, own))):
            formula = f'IF(scenario="{name}",IF(ISBLANK({cell}),{shown},{cell}),{formula})'
        return "=" + formula

    @property
    def price_allowed(self) -> Allowed:
        """What a scenario's price cell may hold: blank (the GPU's Catalog price) or a price."""
        from planner.scenario import Scenario

        return Allowed.of(Scenario.model_fields[named_scenarios.PRICE], optional=True)

    def price_check(self) -> str:
        """Every scenario's price cell blank or a price."""
        name = named_scenarios.PRICE
        return "AND(" + ",".join(self.price_allowed.check(f"{name}_{scenario}") for scenario in self.names) + ")"

    def price_check_shown(self) -> str:
        """The shown scenario's price cell blank or a price (ok_price_per_gpu_hour; the base's is the Catalog's)."""
        name, formula = named_scenarios.PRICE, "TRUE"
        for scenario in reversed(self.names):
            formula = f'IF(scenario="{scenario}",{self.price_allowed.check(f"{name}_{scenario}")},{formula})'
        return formula

    def column_checks(self, item: Input) -> list[str]:
        """The input's check in each of its columns: the base allowed, each scenario's blank or allowed."""
        allowed = item.typed_allowed
        base, *own = self.typed_names(item)
        return [allowed.check(base)] + [f"OR(ISBLANK({cell}),{allowed.check(cell)})" for cell in own]

    def check(self, item: Input, at: list[str] | None = None) -> str:
        """The input's check across its columns: each of column_checks (`at`: the cells that hold them)."""
        return "AND(" + ",".join(at or self.column_checks(item)) + ")"

    def check_shown(self, item: Input, at: list[str] | None = None) -> str:
        """The input's check in the scenario shown, what its results read (ok_<input>): the chosen column's value,
        the base's where that is blank, as `live` chooses; another column's error blanks only its own scenario.
        `at`: the cells that hold column_checks (a column's is its own check where it is not blank)."""
        base, *own = self.typed_names(item)
        formula = shown = (at or self.column_checks(item))[0]
        own_checks = at[1:] if at else [item.typed_allowed.check(cell) for cell in own]
        for name, cell, checked in reversed(list(zip(self.names, own, own_checks))):
            formula = f'IF(scenario="{name}",IF(ISBLANK({cell}),{shown},{checked}),{formula})'
        return formula


def same_value(a, b) -> bool:
    return type(a) is type(b) and a == b or (isinstance(a, (int, float)) and isinstance(b, (int, float)) and
                                             not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def general_declared(scenario) -> list[Input]:
    """The general inputs the Inputs sheet types: model, GPU, training precision."""
    return [i for i in declared_inputs(scenario, "") if i.path in GENERAL]


def input_sections(scenario) -> list[tuple[str, list[Input]]]:
    """Each table's scenario sections, with their declared inputs, in registry order."""
    from planner.tables import present

    return [(type(getattr(scenario, key)).model_config.get("title", key),
             [offered(item, scenario) for item in declared_inputs(getattr(scenario, key), key)])
            for table in present(scenario) for key in table.inputs.SECTIONS]


def offered(item: Input, scenario) -> Input:
    """An input as this workbook offers it: the word layout for the MFU only where the workbook has a layout search
    (without one it has no layout to read: the dropdown does not list it and the MFU's check is FALSE on it)."""
    if item.path != "hours.mfu" or not item.allowed.keywords:
        return item
    if getattr(scenario, "search", None) is None:
        words = "A share of the dense BF16 peak achieved (the word layout needs a layout search: `search:` in the " \
                "scenario file)."
        return replace(item, allowed=replace(item.allowed, type="decimal", keywords=()),
                       note=words + item.note.split("the layout search's cheapest layout's predicted MFU.")[-1])
    return replace(item, allowed=replace(item.allowed, word_reads=(  # the search is a snapshot of the engine's
        "search_cheapest_mfu",
        "while the GPU, deadline and GPU budget are those searched, else run the planner again")))


def scenario_inputs(scenario) -> list[Input]:
    """Every input the Inputs sheet types: the general ones and each table's."""
    return general_declared(scenario) + [i for _, items in input_sections(scenario) for i in items]


GENERAL = ("model", "gpu", "training_precision", "fx_rate")  # the general inputs typed on Inputs


PRICE = Row("price_per_gpu_hour", "Price per GPU-hour (the GPU's, from Catalog)",
                formula="=INDEX(catalog_gpu_price_per_hour,MATCH(gpu,catalog_gpu_ids,0))", kind="usd",
                unit="USD per GPU-hour", note="Edit it on Catalog, in the GPU's row.", name="price_per_gpu_hour")


def general_inputs(scenario) -> list[tuple[Any, Any]]:
    model_and_gpu = general_declared(scenario)
    currency = Constant("currency", scenario.currency, label="Currency", unit="",
                        source="Set in the scenario file (currency:); money "
                        "formats show its symbol.")
    fx = [(i, i.value) for i in model_and_gpu if i.path == "fx_rate"]  # after the currency it converts to
    return [(i, i.value) for i in model_and_gpu if i.path != "fx_rate"] + [(PRICE, scenario.gpu_price),
                                                                           (currency, scenario.currency)] + fx


def _exact(value: float) -> str:
    """A limit as a formula writes it: short (1e+09), unless that loses digits (1048576, not 1.04858e+06)."""
    short = f"{value:g}"
    return short if float(short) == value else f"{value:.15g}"
