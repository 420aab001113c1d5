"""`planner verify`: recalculate workbooks in LibreOffice (or Gnumeric) and compare every formula cell with the
engine run on the scenario that the workbook's input cells describe; a formula overwritten or changed, a stale
cached result or a missing sheet fails it too (planner/audit.py does the checking; `planner audit` reports the same
in full)."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Sequence

from planner.audit import Report, audit


def verify(paths: Sequence[Path], *, app="libreoffice", progress: Callable[[Path], None] | None = None) -> list[Report]:
    """Verify workbooks, each on its own (one call of the spreadsheet application for all): a file that is not a
    planner workbook, or that the application cannot open, gets its own error and the others go on. `app`: a name
    in recalc.APPS or an application already made. Raises recalc.RecalcError when the application is missing or
    stalls."""
    return audit([Path(p) for p in paths], app=app, progress=progress)
