"""The method in words and its named constants: each table's engine module declares a `METHOD` and its
`CONSTANTS`; the Method sheet and the HTML summary show them (docs/method.md is the contract)."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field

GENERAL = [
    "Units: memory in GB = 1e9 bytes (decimal, as GPU data sheets write 80 GB); KV cache per token in KiB = 1,024 "
    "bytes. Money in the scenario's currency, per GPU-hour as priced in Catalog.",
    "Every number in the workbook is a formula fed by the Inputs and Catalog sheets and the method constants below; "
    "the generator checks each one against its own engine after recalculation in LibreOffice Calc.",
    "Estimates are illustrative: they follow the published formulas cited below, not a measurement of your system.",
]


@dataclass(frozen=True)
class Method:
    """A table's method: what it computes, where the formulas come from, and what they leave out."""

    title: str
    formulas: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    caveats: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Constant:
    """A method constant: a named, labelled cell on the Method sheet that formulas use by name, and the engine's
    value of the same name."""

    name: str  # the workbook's defined name
    value: float | str
    _: KW_ONLY
    label: str
    unit: str
    source: str
