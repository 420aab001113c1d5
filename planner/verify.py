"""`planner verify`: recalculate workbooks in LibreOffice and compare every formula cell with the engine run on
the scenario that the workbook's input cells describe."""

from __future__ import annotations

import io
import math
import tempfile
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from planner import recalc
from planner.engine import compute
from planner.roundtrip import catalog_rows, scenario_from_workbook
from planner.scenario import ScenarioError
from planner.workbook import build

REL_TOL = 1e-9


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
    path: Path
    checked: int = 0
    mismatches: list[Mismatch] = field(default_factory=list)
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and not self.mismatches and self.checked > 0


def same(expected, got) -> bool:
    """Equal within REL_TOL for numbers; exactly equal for text and TRUE/FALSE. LibreOffice has no logical type:
    a TRUE/FALSE cell with a boolean number format comes back as 1 or 0."""
    if isinstance(expected, bool):
        return got is expected or (type(got) is int and got == int(expected))
    if isinstance(got, bool):
        return False
    if expected == "" and got is None:  # a formula giving "" reads back as an empty cell
        return True
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return math.isclose(expected, got, rel_tol=REL_TOL, abs_tol=1e-12)
    return expected == got


def expected_book(path: Path):
    """The workbook the scenario read from `path` generates, built in memory with the same Catalog blocks: its
    formulas' cached values are the engine's."""
    return build(compute(scenario_from_workbook(path)), io.BytesIO(), catalog_rows=catalog_rows(path))


def compare(original: Path, recalculated: Path, book) -> Verification:
    """Compare a recalculated copy of `original` with a freshly built book's cached values, cell by cell."""
    result = Verification(original)
    values = recalc.read_values(recalculated)
    if not recalc.canary_recalculated(values, book.names):
        result.error = "the recalculation canary kept its poisoned value: LibreOffice did not recalculate"
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


def verify(paths: list[Path]) -> list[Verification]:
    """Verify workbooks, each on its own: a file that is not a planner workbook, or that LibreOffice cannot open,
    gets its own error and the others go on. Raises recalc.RecalcError when LibreOffice is missing or stalls."""
    results: list[Verification] = []
    books = {}
    for path in map(Path, paths):
        try:
            recalc.check_workbook(path)
            books[path] = expected_book(path)
        except recalc.WorkbookError as exc:
            results.append(Verification(path, error=str(exc)))
        except ScenarioError as exc:
            results.append(Verification(path, error=f"its inputs are not a valid scenario:\n{exc}"))
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            results.append(Verification(path, error=f"cannot read it as a planner workbook: {exc}"))
    if books:
        with tempfile.TemporaryDirectory(prefix="planner-verify-") as work:
            recalculated = recalc.recalculate_each(list(books), Path(work))
            results += [compare(p, r, books[p]) if isinstance(r, Path) else Verification(p, error=str(r))
                        for p, r in zip(books, recalculated)]
    order = {Path(p): i for i, p in enumerate(paths)}
    return sorted(results, key=lambda v: order[v.path])
