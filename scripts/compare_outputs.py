"""Compare two folders of planner outputs (a batch of examples before and after a change), cell for cell.

    python scripts/compare_outputs.py BEFORE_DIR AFTER_DIR [--formulas]

For every .xlsx: each sheet's cached values (and with --formulas, each formula's text) and the defined names; for
every .json: the parsed data; for every .html: the text. Prints each difference (at most 20 per file) and exits 1
when any. A refactor that keeps the outputs is one that leaves this silent.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import openpyxl


def _cells(path: Path, formulas: bool) -> tuple[dict, dict]:
    book = openpyxl.load_workbook(path, data_only=not formulas, read_only=False)
    cells = {}
    for ws in book.worksheets:
        for row in ws.iter_rows():
            for cell in row:
                if cell.value is not None:
                    cells[(ws.title, cell.coordinate)] = cell.value
    names = {name: str(defined.attr_text) for name, defined in book.defined_names.items()}
    return cells, names


def _differences(before: dict, after: dict, what: str) -> list[str]:
    found = []
    for key in sorted(set(before) | set(after), key=str):
        a, b = before.get(key), after.get(key)
        if a != b and not (isinstance(a, float) and isinstance(b, float) and abs(a - b) <= 1e-12 * max(abs(a), 1)):
            found.append(f"{what} {key}: {a!r} → {b!r}")
    return found


def compare(before: Path, after: Path, formulas: bool) -> list[str]:
    problems = []
    names_before = {p.name for p in before.iterdir() if p.is_file()}
    names_after = {p.name for p in after.iterdir() if p.is_file()}
    for name in sorted(names_before ^ names_after):
        problems.append(f"{name}: only in {'before' if name in names_before else 'after'}")
    for name in sorted(names_before & names_after):
        a, b = before / name, after / name
        if name.endswith(".xlsx"):
            found = []
            for use_formulas in ([False, True] if formulas else [False]):
                (cells_a, names_a), (cells_b, names_b) = _cells(a, use_formulas), _cells(b, use_formulas)
                found += _differences(cells_a, cells_b, "formula" if use_formulas else "value")
                found += _differences(names_a, names_b, "name")
        elif name.endswith(".json"):
            found = _differences(_flat(json.loads(a.read_text())), _flat(json.loads(b.read_text())), "json")
        else:
            found = [] if a.read_bytes() == b.read_bytes() else ["text differs"]
        problems += [f"{name}: {line}" for line in found[:20]]
        if len(found) > 20:
            problems.append(f"{name}: … {len(found) - 20} more")
    return problems


def _flat(data, prefix=()) -> dict:
    if isinstance(data, dict):
        return {k: v for key, value in data.items() for k, v in _flat(value, prefix + (key,)).items()}
    if isinstance(data, list):
        return {k: v for i, value in enumerate(data) for k, v in _flat(value, prefix + (i,)).items()}
    return {prefix: data}


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    problems = compare(Path(args[0]), Path(args[1]), "--formulas" in sys.argv)
    print("\n".join(problems) or "no differences")
    sys.exit(1 if problems else 0)
