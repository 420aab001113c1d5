"""How an input is declared: its type, default, allowed range, label, unit and note, once. Validation, the
workbook's Inputs sheet (its data validation included) and its Checks sheet all read these declarations."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Discriminator, Field, Tag

COUNT_MAX = 10**9  # the largest count any input takes (GPUs, users, sequence length, …)
NAME_MAX = 200  # the longest scenario name (a sweep's variants are named within it)
ID_MAX = 64  # the longest Catalog id
UNION_TAGS = {"id", "custom", "number"}  # the tags of _choice unions, left out of key paths in messages


def _whole(value):
    """YAML writes 15.6e12 and 1e3 as floats: a whole float is a count; 8.5 stays a float and is refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def whole(ge: int = 1, le: float = COUNT_MAX):
    return Annotated[int, Field(ge=ge, le=le), BeforeValidator(_whole)]  # limits first: JSON Schema minimum/maximum


Count = whole(1)
Share = Annotated[float, Field(ge=0.001, le=1)]  # MFU, productive share, attainment: 0.1 % … 100 %
Money = Annotated[float, Field(ge=0, le=1e6)]
Fraction = Annotated[float, Field(ge=0, le=1)]


def declared(default: Any = ..., label: str = "", unit: str = "", note: str = "", *, kind: str = "number",
             choices: str | None = None, words: tuple[str, ...] = (), blank: bool = False, sheet: bool = True,
             between: tuple | None = None, symbol: str = "", **limits) -> Any:
    """An input's default, allowed range and words, read by validation, the Inputs sheet and the Checks sheet.

    `kind` is how the workbook shows it (a planner.units.KINDS key); `choices` a workbook name whose values a dropdown
    offers (catalog_model_ids, …); `words` the words a number's cell may hold instead (roofline); `blank` that
    its cell may be left blank (None: no deadline); `sheet=False` that no sheet reads it yet, so the Inputs sheet
    leaves it out (its label, unit and kind wait under "pending" until its sheets are written); `between` the
    first and last dates a date input takes (ISO text); `symbol` the method's symbol for it, shown in the Notes
    column before the note (the label stays in words)."""
    extra = {"label": label, "unit": unit, "kind": kind}
    if symbol:
        extra["symbol"] = symbol
    if choices:
        extra["choices"] = choices
    if words:
        extra["words"] = list(words)
    if blank:
        extra["blank"] = True
    if between:
        extra["between"] = [str(day) for day in between]
    if not sheet:
        extra = {"pending": extra}
    return Field(default, description=note or None, json_schema_extra=extra, **limits)


class Section(BaseModel):
    """A group of inputs: unknown keys, wrong types and non-finite numbers are refused."""

    model_config = ConfigDict(extra="forbid", validate_default=True, strict=True, allow_inf_nan=False)


def catalog_id(kind: str, reserved: tuple[str, ...] = ()):
    """A Catalog id: spreadsheet MATCH ignores case and treats * ? ~ as wildcards, so those are refused; so are the
    `reserved` words (the engines table's `any`, §14.3), in any case."""

    article = "an" if kind[:1].lower() in "aeiou" else "a"

    def check(name: str) -> str:
        if any(c in name for c in "*?~"):
            raise ValueError(f"{article} {kind} id may not contain * ? or ~ (spreadsheet wildcards)")
        if name.lower() in reserved:
            raise ValueError(f"{article} {kind} id may not be the word {name.lower()} (the engines table's word for "
                             f"every {kind})")
        if name != name.strip():
            raise ValueError(f"{article} {kind} id may not start or end with a space")
        return name

    return Annotated[str, Field(min_length=1, max_length=ID_MAX), AfterValidator(check)]


ModelId = catalog_id("model")
GPUId = catalog_id("GPU", ("any",))
PresetId = catalog_id("traffic preset")
ProfileId = catalog_id("demand profile")
PrecisionId = catalog_id("precision", ("any",))
EngineId = catalog_id("engine", ("any",))
OfferId = catalog_id("API offer")


def _by_type(value: Any) -> str:
    return "id" if isinstance(value, str) else "custom"


def choice(id_type, custom):
    """A Catalog id, or a mapping describing an entry of the scenario's own."""
    return Annotated[Union[Annotated[id_type, Tag("id")], Annotated[custom, Tag("custom")]], Discriminator(_by_type)]


def id_or_number(id_type, number_type):
    """A Catalog id, or a number typed instead (a traffic preset or tokens per day)."""
    return Annotated[Union[Annotated[id_type, Tag("id")], Annotated[number_type, Tag("number")]],
                     Discriminator(lambda v: "id" if isinstance(v, str) else "number")]


def word_or_number(words: tuple[str, ...], number_type):
    """One of a few words, or a number typed instead (serving_mfu: roofline or a share)."""
    def known(value):
        if isinstance(value, str) and value not in words:
            raise ValueError(f"the word {' or '.join(words)}, or a number (0.10 for 10 %)")
        return value

    return Annotated[Union[Annotated[Literal[words], Tag("id")], Annotated[number_type, Tag("number")]],
                     Discriminator(lambda v: "id" if isinstance(v, str) else "number"), BeforeValidator(known)]


def divisors(n: int) -> str:
    """The divisors of n, as a message lists them (the first 12)."""
    found = [d for d in range(1, min(n, 10**6) + 1) if n % d == 0]
    return ", ".join(map(str, found[:12])) + (", …" if len(found) > 12 else "")
