"""An xlsx workbook read in one pass over its XML: the sheets in order, the workbook-level defined names, and every
cell's formula text, cached value and type. What `planner audit`, `verify` and `import` read from a workbook.

The file is input from outside: its XML is parsed through defusedxml (no entity expansion, no external
references), a file that would unpack to more than MAX_UNPACKED bytes is refused before anything is read, a cell
reference beyond Excel's grid (XFD1048576) is refused, and whatever does not parse raises WorkbookError with a
one-line reason, never another exception.

Values are typed as openpyxl types them: numbers as int when written without a point or an exponent, else float;
TRUE and FALSE as bool; text, error values (#DIV/0!, …) and dates as str; a formula's value is its cached result,
None when the file has none.
"""

from __future__ import annotations

import contextlib
import posixpath
import zlib
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from defusedxml import DefusedXmlException
from defusedxml import ElementTree

MAX_UNPACKED = 200 * 1024 * 1024  # a planner workbook unpacks to a few MB; 10,000 logged requests to about 5
MAX_ROW, MAX_COLUMN = 1_048_576, 16_384  # Excel's grid ends at XFD1048576

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PACKAGE = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_C, _F, _V, _IS, _T, _R, _RPH, _ROW, _SI = (_MAIN + tag for tag in ("c", "f", "v", "is", "t", "r", "rPh", "row", "si"))
_REFERENCE = re.compile(r"([A-Z]{1,3})([0-9]{1,7})")
_CELL = r"\$?[A-Z]{1,3}\$?[0-9]{1,7}"
_DESTINATION = re.compile(rf"(?:'((?:[^']|'')+)'|([^'!,]+))!({_CELL}(?::{_CELL})?)")


class WorkbookError(ValueError):
    """A file that is not a planner workbook, or a damaged one: a problem of that file alone."""


@dataclass(frozen=True)
class Cell:
    """One cell as saved: its value (a constant, or a formula's cached result; None when there is none), its formula
    ("=…", or None for a constant) and the file's type for the value ("n", "s", "str", "inlineStr", "b", "e", "d")."""

    value: Any
    formula: str | None = None
    type: str = "n"


EMPTY = Cell(None)


@dataclass
class Workbook:
    """What an xlsx file holds, read once."""

    path: Path
    sheets: list[str]  # in the workbook's order
    names: dict[str, str]  # workbook-level defined name → what it refers to, as written ('Inputs'!$C$5)
    cells: dict[tuple[str, str], Cell] = field(repr=False)  # (sheet, A1) → every cell with a value or a formula
    parts: dict[str, str] = field(repr=False)  # sheet → its part in the archive (xl/worksheets/sheet1.xml)

    def destinations(self, name: str) -> list[tuple[str, str]]:
        """The ranges a defined name refers to, each as (sheet, A1 or A1:B2 without $); [] for a constant, a
        formula or a name the workbook lacks."""
        text = self.names.get(name, "").strip().removeprefix("=")
        found = []
        for part in text.split(","):
            match = _DESTINATION.fullmatch(part.strip())
            if match is None:
                return []
            sheet = match[1].replace("''", "'") if match[1] is not None else match[2]
            found.append((sheet, match[3].replace("$", "")))
        return found

    def cell(self, sheet: str, ref: str) -> Cell:
        return self.cells.get((sheet, ref), EMPTY)

    def block(self, sheet: str, ref: str) -> list[list[tuple[str, Cell]]]:
        """The cells of a range (A1 or A1:B2), as rows of (A1, Cell); empty cells included."""
        first, _, last = ref.partition(":")
        (c1, r1), (c2, r2) = split(first), split(last or first)
        return [[(f"{column_letter(c)}{r}", self.cell(sheet, f"{column_letter(c)}{r}"))
                 for c in range(min(c1, c2), max(c1, c2) + 1)] for r in range(min(r1, r2), max(r1, r2) + 1)]

    def formulas(self) -> dict[tuple[str, str], str]:
        """(sheet, A1) → formula text, for every formula cell."""
        return {key: cell.formula for key, cell in self.cells.items() if cell.formula is not None}

    def values(self) -> dict[tuple[str, str], Any]:
        """(sheet, A1) → value (cached results included), for every cell that has one."""
        return {key: cell.value for key, cell in self.cells.items() if cell.value is not None}


def column_letter(column: int) -> str:
    """1 → A, 27 → AA, 16384 → XFD."""
    letters = ""
    while column:
        column, rest = divmod(column - 1, 26)
        letters = chr(65 + rest) + letters
    return letters


def column_number(letters: str) -> int:
    """A → 1, AA → 27, XFD → 16384."""
    number = 0
    for letter in letters:
        number = number * 26 + ord(letter) - 64
    return number


def split(ref: str) -> tuple[int, int]:
    """"B7" → (2, 7), refusing references beyond Excel's grid."""
    match = _REFERENCE.fullmatch(ref)
    if match is None:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: {ref!r} is not a cell reference")
    column, row = column_number(match[1]), int(match[2])
    if not (1 <= column <= MAX_COLUMN and 1 <= row <= MAX_ROW):
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: the cell {ref} lies beyond Excel's grid "
                            f"(XFD{MAX_ROW})")
    return column, row


@contextlib.contextmanager
def opened(path: Path) -> Iterator[zipfile.ZipFile]:
    """The xlsx file as a zip archive; a file that is not one, or that would unpack to more than MAX_UNPACKED bytes
    (a zip bomb), raises WorkbookError before anything is read; so does XML that does not parse, read inside."""
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(item.file_size for item in archive.infolist())
            if unpacked > MAX_UNPACKED:
                raise WorkbookError(f"too large when unpacked ({unpacked / 2**20:,.0f} MB; a planner workbook "
                                    f"is a few MB, the limit is {MAX_UNPACKED / 2**20:,.0f} MB): not read")
            yield archive
    except zipfile.BadZipFile as exc:
        empty = Path(path).stat().st_size == 0
        raise WorkbookError("the file is empty: not an xlsx workbook" if empty else
                            f"not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): {exc}")
    except KeyError as exc:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: {exc.args[0]}")
    except ElementTree.ParseError as exc:
        raise WorkbookError(f"a damaged xlsx workbook: its XML does not parse ({exc})")
    except DefusedXmlException as exc:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: its XML declares entities or a DTD ({exc!r})")
    except WorkbookError:
        raise
    except (zlib.error, EOFError, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError,
            TypeError) as exc:  # a damaged stream, an encrypted or unsupported entry, an attribute that is no number
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: {exc}")


def read(path: Path, *, cells: bool = True) -> Workbook:
    """Every sheet's cells (without `cells`, none: the names and sheets alone), the defined names and the sheet
    order, in one pass; WorkbookError says why in one line when the file is not an xlsx workbook or is damaged."""
    path = Path(path)
    with opened(path) as archive:
        book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        targets = _relationships(archive, "xl/workbook.xml")
        sheets, parts = [], {}
        for sheet in book.iter(_MAIN + "sheet"):
            name, rid = sheet.get("name"), sheet.get(_REL + "id")
            if name is None or rid not in targets:
                raise WorkbookError(f"not an xlsx workbook, or a damaged one: the sheet {name!r} has no part")
            sheets.append(name)
            parts[name] = targets[rid][1]
        names = {n.get("name"): n.text or "" for n in book.iter(_MAIN + "definedName")
                 if n.get("localSheetId") is None and n.get("name")}
        strings_part = next((target for kind, target in targets.values() if kind.endswith("/sharedStrings")), None)
        strings = _shared_strings(archive, strings_part) if cells and strings_part in archive.NameToInfo else []
        found: dict[tuple[str, str], Cell] = {}
        for name in sheets if cells else ():
            _read_sheet(archive, parts[name], name, strings, found)
    return Workbook(path, sheets, names, found, parts)


def _relationships(archive: zipfile.ZipFile, part: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id → (type, target part's name in the archive)."""
    folder, base = posixpath.split(part)
    rels = ElementTree.fromstring(archive.read(posixpath.join(folder, "_rels", base + ".rels")))
    found = {}
    for rel in rels.iter(_PACKAGE + "Relationship"):
        target = rel.get("Target") or ""
        target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found[rel.get("Id")] = (rel.get("Type") or "", target)
    return found


def _text(element) -> str:
    """A string item's text: its <t>, or its runs' <t>s joined (phonetic runs left out)."""
    direct = element.find(_T)
    if direct is not None:
        return direct.text or ""
    return "".join(t.text or "" for r in element.iter(_R) for t in r.iter(_T))


def _shared_strings(archive: zipfile.ZipFile, part: str) -> list[str]:
    strings = []
    with archive.open(part) as stream:
        for _, element in ElementTree.iterparse(stream):
            if element.tag == _SI:
                strings.append(_text(element))
                element.clear()
    return strings


def _number(text: str) -> int | float:
    """A number as openpyxl reads it: int unless written with a point or an exponent."""
    return float(text) if "." in text or "E" in text or "e" in text else int(text)


def _read_sheet(archive: zipfile.ZipFile, part: str, sheet: str, strings: list[str], cells: dict) -> None:
    shared: dict[str, tuple[str, str]] = {}  # a shared formula's id → (its first cell, formula)
    row = 0  # the last row's number
    unplaced: list = []  # the row's cells written without a reference: placed when the row ends
    column = 0  # the last cell's column in the row
    with archive.open(part) as stream:
        for _, element in ElementTree.iterparse(stream):
            tag = element.tag
            if tag == _C:
                ref = element.get("r")
                if ref is None:  # the file may leave it out: the next column of its row
                    column += 1
                    unplaced.append((column, element))
                    continue
                column, _ = split(ref)
                cell = _cell(element, ref, strings, shared)
                if cell is not None:
                    cells[(sheet, ref)] = cell
                element.clear()
            elif tag == _ROW:
                row = int(element.get("r") or row + 1)
                for number, c in unplaced:
                    ref = f"{column_letter(number)}{row}"
                    split(ref)
                    cell = _cell(c, ref, strings, shared)
                    if cell is not None:
                        cells[(sheet, ref)] = cell
                unplaced.clear()
                column = 0
                element.clear()


def _cell(element, ref: str, strings: list[str], shared: dict) -> Cell | None:
    kind = element.get("t") or "n"
    formula = None
    f = element.find(_F)
    if f is not None:
        text = f.text or ""
        if f.get("t") == "shared" and f.get("si") is not None:
            if f.get("ref") is not None or f.get("si") not in shared:
                shared[f.get("si")] = (ref, text)
            else:
                origin, text = shared[f.get("si")]
                text = _translated(text, origin, ref)
        formula = "=" + text
    raw = element.findtext(_V)
    try:
        if kind == "inlineStr":
            inline = element.find(_IS)
            value = _text(inline) if inline is not None else None
        elif raw is None:
            value = None
        elif kind == "s":
            value = strings[int(raw)]
        elif kind == "b":
            value = bool(int(raw))
        elif kind in ("str", "e", "d"):
            value = raw
        else:
            value = _number(raw) if raw.strip() else None
    except (ValueError, IndexError):
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: the cell {ref} holds {raw!r} as {kind!r}")
    if value is None and formula is None:
        return None
    return Cell(value, formula, kind)


def _translated(formula: str, origin: str, ref: str) -> str:
    """A shared formula as it reads in `ref`: its first cell's formula with relative references moved."""
    from openpyxl.formula.translate import Translator

    return Translator("=" + formula, origin).translate_formula(ref)[1:]
