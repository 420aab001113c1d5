"""`planner verify`: recalculate workbooks in LibreOffice and compare every formula cell with the engine run on
the scenario that the workbook's input cells describe; a formula overwritten or changed, a stale cached result or a
missing sheet fails it too (planner/audit.py does the comparing; `planner audit` reports the same in full)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path

from planner import recalc
from planner.audit import NOT_RECALCULATED, Report, audit, recalculated_values, same  # noqa: F401 (same: tests)
from planner.engine import compute
from planner.roundtrip import workbook_data
from planner.workbook import build


@dataclass
class Mismatch:
    sheet: str
    cell: str
    expected: object
    got: object
    formula: str = ""

    def __str__(self) -> str:
        return f"{self.sheet}!{self.cell}: engine {self.expected!r}, spreadsheet {self.got!r}  {self.formula}"


@dataclass
class Verification:
    """A recalculated copy compared with a freshly built book (what the tests check)."""

    path: Path
    checked: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and not self.mismatches and self.checked > 0


def expected_book(path: Path):
    """The workbook the scenario read from `path` generates, built in memory with the same Catalog blocks: its
    formulas' cached values are the engine's."""
    found = workbook_data(path)
    return build(compute(found.scenario()), io.BytesIO(), like=found)


def compare(original: Path, recalculated: Path, book) -> Verification:
    """Compare a recalculated copy of `original` with a freshly built book's cached values, cell by cell."""
    result = Verification(original)
    values = recalculated_values(recalculated, book.names)
    if values is None:
        result.error = NOT_RECALCULATED
        return result
    formulas = recalc.formula_cells(original)
    for key in sorted(set(formulas) | set(book.formulas)):
        if key not in book.formulas:
            result.mismatches.append(Mismatch(*key, "(no formula here)", values.get(key), formulas[key]))
        elif key not in formulas:
            result.mismatches.append(Mismatch(*key, book.formulas[key], "(formula replaced by a value)"))
        elif not same(book.formulas[key], values.get(key)):
            result.mismatches.append(Mismatch(*key, book.formulas[key], values.get(key), formulas[key]))
        result.checked += 1
    return result


def verify(paths: list[Path]) -> list[Report]:
    """Verify workbooks, each on its own (one LibreOffice call for all): a file that is not a planner workbook, or
    that LibreOffice cannot open, gets its own error and the others go on. Raises recalc.RecalcError when
    LibreOffice is missing or stalls."""
    return audit([Path(p) for p in paths], recalculate=True)
