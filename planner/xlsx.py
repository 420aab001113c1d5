"""An xlsx workbook read in one pass over its XML: the sheets in order, the workbook-level defined names, and every
cell's formula text, cached value and type. What `planner audit`, `verify` and `import` read from a workbook.

The file is input from outside: its XML is parsed through defusedxml, and the worksheets, for speed, by pyexpat
itself with defusedxml's refusals (no DTD, no entity declarations, no external references); a file that would
unpack to more than MAX_UNPACKED bytes is refused before anything is read, a cell reference beyond Excel's grid
(XFD1048576) is refused, and whatever does not parse raises WorkbookError with a one-line reason, never another
exception.

Values are typed as openpyxl types them: numbers as int when written without a point or an exponent, else float;
TRUE and FALSE as bool; text, error values (#DIV/0!, …) and dates as str; a formula's value is its cached result,
None when the file has none.
"""

from __future__ import annotations

import contextlib
import os
import posixpath
import stat
import struct
import zlib
import re
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, NamedTuple

from xml.parsers import expat

from defusedxml import DefusedXmlException, DTDForbidden, EntitiesForbidden, ExternalReferenceForbidden
from defusedxml import ElementTree

MAX_UNPACKED = 200 * 1024 * 1024  # a planner workbook unpacks to a few MB; 10,000 logged requests to about 5
MAX_ROW, MAX_COLUMN = 1_048_576, 16_384  # Excel's grid ends at XFD1048576
_LAST_COLUMN = "XFD"

_MAIN = "{http://schemas.openxmlformats.org/spreadsheetml/2006/main}"  # ElementTree's spelling; pyexpat's below
_REL = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_PACKAGE = "{http://schemas.openxmlformats.org/package/2006/relationships}"
_C, _F, _V, _IS, _T, _RPH, _ROW, _SI = (_MAIN[1:] + tag for tag in ("c", "f", "v", "is", "t", "rPh", "row", "si"))
_PACKAGE_PARTS = ("[Content_Types].xml", "_rels/.rels", "xl/styles.xml")  # read by applications, not by the planner
_REQUIRED = ("[Content_Types].xml", "_rels/.rels")  # every OOXML package has them
_REFERENCE = re.compile(r"([A-Z]{1,3})([0-9]{1,7})")
_CELL = r"\$?[A-Z]{1,3}\$?[0-9]{1,7}"
_DESTINATION = re.compile(rf"(?:'((?:[^']|'')+)'|([^'!,]+))!({_CELL}(?::{_CELL})?)")


class WorkbookError(ValueError):
    """A file that is not a planner workbook, or a damaged one: a problem of that file alone."""

    @property
    def reason(self) -> str:
        """The message without its opening words ("not an xlsx workbook, or a damaged one: "), to be prefixed."""
        text = str(self)
        for opening in ("not an xlsx workbook, or a damaged one: ", "a damaged xlsx workbook: "):
            text = text.removeprefix(opening)
        return text


class Cell(NamedTuple):
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
    states: dict[str, str] = field(default_factory=dict, repr=False)  # sheet → visible, hidden or veryHidden
    contents: list[str] = field(default_factory=list, repr=False)  # every part's name in the archive
    relationships: list[tuple[str, str]] = field(default_factory=list, repr=False)  # the workbook part's
    # relationships: (type, target part)

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
            ref = match[3].replace("$", "")
            for end in ref.split(":"):
                try:
                    _within_grid(end)
                except WorkbookError as exc:
                    raise WorkbookError(f"a damaged xlsx workbook: xl/workbook.xml: the defined name {name}: "
                                        f"{exc.reason}") from None
            found.append((sheet, ref))
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
    match = _within_grid(ref)
    return column_number(match[1]), int(match[2])


def _within_grid(ref: str) -> re.Match:
    """The reference's letters and row number; WorkbookError when it is none, or lies beyond XFD1048576."""
    match = _REFERENCE.fullmatch(ref)
    if match is None:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: {ref!r} is not a cell reference")
    letters, row = match[1], int(match[2])
    if len(letters) == 3 and letters > _LAST_COLUMN or not 1 <= row <= MAX_ROW:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: the cell {ref} lies beyond Excel's grid "
                            f"(XFD{MAX_ROW})")
    return match


def _archive_file(path: Path):
    """The file, opened for reading only if it is a regular file: a FIFO, a device (/dev/zero), a socket or a folder
    is refused before anything is read from it (opened without blocking, then checked, so a FIFO cannot stall)."""
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise WorkbookError(f"cannot be opened: {exc.strerror or exc}")
    kind = os.fstat(descriptor).st_mode
    if not stat.S_ISREG(kind):
        os.close(descriptor)
        what = ("a named pipe (FIFO)" if stat.S_ISFIFO(kind) else "a device" if stat.S_ISCHR(kind) or
                stat.S_ISBLK(kind) else "a folder" if stat.S_ISDIR(kind) else "a socket" if stat.S_ISSOCK(kind)
                else "not a regular file")
        raise WorkbookError(f"{what}, not a regular file: not read")
    return os.fdopen(descriptor, "rb")


@contextlib.contextmanager
def opened(path: Path) -> Iterator[zipfile.ZipFile]:
    """The xlsx file as a zip archive; a file that is not a regular file or not a zip archive, or that would unpack
    to more than MAX_UNPACKED bytes (a zip bomb), raises WorkbookError before anything is read. Parts are read
    inside through part(), which names the part in its WorkbookError."""
    with _archive_file(Path(path)) as file:
        try:
            archive = zipfile.ZipFile(file)
        except zipfile.BadZipFile as exc:
            empty = os.fstat(file.fileno()).st_size == 0
            raise WorkbookError("the file is empty: not an xlsx workbook" if empty else
                                f"not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): {exc}")
        except (OSError, EOFError, ValueError, zipfile.LargeZipFile, NotImplementedError) as exc:
            raise WorkbookError(f"not an xlsx workbook, or a damaged one: its zip directory: {exc}")
        with archive:
            unpacked = sum(item.file_size for item in archive.infolist())
            if unpacked > MAX_UNPACKED:
                raise WorkbookError(f"too large when unpacked ({unpacked / 2**20:,.0f} MB; a planner workbook "
                                    f"is a few MB, the limit is {MAX_UNPACKED / 2**20:,.0f} MB): not read")
            _check_headers(archive, file)
            yield archive


_LOCAL = struct.Struct("<4sHHHHHIIIHH")  # a zip part's local header: signature, version, flags, method, time, date,
# CRC-32, compressed size, size, name length, extra length


def _check_headers(archive: zipfile.ZipFile, file) -> None:
    """Each part's local header says what the zip directory says (method, CRC-32, sizes, name): a header that lies
    about its part is damage, even where Python's zipfile would read past it."""
    for info in archive.infolist():
        with part(info.filename):
            file.seek(info.header_offset)
            header = file.read(_LOCAL.size)
            if len(header) < _LOCAL.size:
                raise WorkbookError("its local header is cut short")
            signature, _, flags, method, _, _, crc, compressed, size, name_length, _ = _LOCAL.unpack(header)
            if signature != b"PK\x03\x04":
                raise WorkbookError("its local header has no signature")
            found = {"method": method, "name length": name_length}
            said = {"method": info.compress_type, "name length": len(info.orig_filename.encode(
                "utf-8" if info.flag_bits & 0x800 else "cp437"))}
            if not flags & 0x08:  # sizes and CRC in the header, not in a data descriptor after the data
                found.update({"CRC-32": crc, "compressed size": compressed, "size": size})
                said.update({"CRC-32": info.CRC, "compressed size": info.compress_size, "size": info.file_size})
            for what, value in found.items():
                if value != said[what] and not (value == 0xFFFFFFFF and what.endswith("size")):  # ZIP64
                    raise WorkbookError(f"its local header says {what} {value:,}, the zip directory {said[what]:,}")


@contextlib.contextmanager
def part(name: str, sheet: str | None = None) -> Iterator[None]:
    """Reading the archive's part `name` (the sheet's, if given): whatever goes wrong becomes a WorkbookError that
    names the part: a part missing, a damaged stream or CRC, XML that does not parse or declares entities."""
    where = f"{name} (the sheet {sheet})" if sheet is not None else name
    try:
        yield
    except WorkbookError as exc:
        raise WorkbookError(f"a damaged xlsx workbook: {where}: {exc.reason}") from None
    except KeyError:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: it has no part {where}") from None
    except (ElementTree.ParseError, expat.ExpatError) as exc:
        raise WorkbookError(f"a damaged xlsx workbook: {where}: its XML does not parse ({exc})") from None
    except DefusedXmlException as exc:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: {where}: its XML declares entities or a DTD "
                            f"({exc!r})") from None
    except zipfile.BadZipFile as exc:
        raise WorkbookError(f"a damaged xlsx workbook: {where}: {exc}") from None
    except (zlib.error, EOFError, OSError, zipfile.LargeZipFile, NotImplementedError, RuntimeError, ValueError,
            TypeError, IndexError) as exc:  # a damaged stream, an encrypted or unsupported entry, an odd attribute
        raise WorkbookError(f"a damaged xlsx workbook: {where}: {exc}") from None


def read(path: Path, *, cells: bool = True) -> Workbook:
    """Every sheet's cells (without `cells`, none: the names and sheets alone), the defined names and the sheet
    order, in one pass; WorkbookError says why in one line, naming the part, when the file is not an xlsx workbook
    or is damaged."""
    path = Path(path)
    with opened(path) as archive:
        with part("xl/workbook.xml"):
            book = ElementTree.fromstring(archive.read("xl/workbook.xml"))
        targets = _relationships(archive, "xl/workbook.xml")
        sheets, parts, states = [], {}, {}
        for sheet in book.iter(_MAIN + "sheet"):
            name, rid = sheet.get("name"), sheet.get(_REL + "id")
            if name is None or rid not in targets:
                raise WorkbookError(f"not an xlsx workbook, or a damaged one: xl/workbook.xml: the sheet {name!r} "
                                    f"has no part")
            sheets.append(name)
            parts[name] = targets[rid][1]
            states[name] = sheet.get("state") or "visible"
        names = {n.get("name"): n.text or "" for n in book.iter(_MAIN + "definedName")
                 if n.get("localSheetId") is None and n.get("name")}
        strings_part = next((target for kind, target in targets.values() if kind.endswith("/sharedStrings")), None)
        strings = []
        if cells and strings_part in archive.NameToInfo:
            with part(strings_part):
                strings = _shared_strings(archive, strings_part)
        found: dict[tuple[str, str], Cell] = {}
        for name in sheets if cells else ():
            with part(parts[name], name):
                _read_sheet(archive, parts[name], name, strings, found)
        for name in _PACKAGE_PARTS:  # parts read by every spreadsheet application: they must at least parse
            if name in archive.NameToInfo or name in _REQUIRED:
                with part(name):
                    _parser(None, None, None).Parse(archive.read(name), True)
        contents = archive.namelist()
        relationships = [(kind, target) for kind, target in targets.values()]
    return Workbook(path, sheets, names, cells=found, parts=parts, states=states, contents=contents,
                    relationships=relationships)


def _relationships(archive: zipfile.ZipFile, of: str) -> dict[str, tuple[str, str]]:
    """A part's relationships: id → (type, target part's name in the archive)."""
    folder, base = posixpath.split(of)
    name = posixpath.join(folder, "_rels", base + ".rels")
    with part(name):
        rels = ElementTree.fromstring(archive.read(name))
    found = {}
    for rel in rels.iter(_PACKAGE + "Relationship"):
        target = rel.get("Target") or ""
        target = target.lstrip("/") if target.startswith("/") else posixpath.normpath(posixpath.join(folder, target))
        found[rel.get("Id")] = (rel.get("Type") or "", target)
    return found


def _parser(start, end, data) -> expat.XMLParserType:
    """A pyexpat parser, element names as "namespace}name", refusing what defusedxml refuses (a DTD, entity
    declarations, external references), with these handlers."""
    parser = expat.ParserCreate(namespace_separator="}")
    parser.StartDoctypeDeclHandler = _no_dtd
    parser.EntityDeclHandler = _no_entities
    parser.UnparsedEntityDeclHandler = _no_entities
    parser.ExternalEntityRefHandler = _no_external
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.buffer_text = True
    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, data
    return parser


def _no_dtd(name, sysid, pubid, has_internal_subset):
    raise DTDForbidden(name, sysid, pubid)


def _no_entities(name, *rest):
    raise EntitiesForbidden(name, None, None, None, None, None)


def _no_external(context, base, sysid, pubid):
    raise ExternalReferenceForbidden(context, base, sysid, pubid)


class _Strings:
    """A string item's text as the handlers see it: its <t>s joined, phonetic runs (<rPh>) left out."""

    def __init__(self):
        self.parts: list[str] | None = None  # in an item: its texts so far
        self.text: list[str] | None = None  # in a <t>: its characters so far
        self.phonetic = False

    def start(self, name) -> None:
        if name == _T and self.parts is not None and not self.phonetic:
            self.text = []
        elif name == _RPH:
            self.phonetic = True

    def end(self, name) -> None:
        if name == _T and self.text is not None:
            self.parts.append("".join(self.text))
            self.text = None
        elif name == _RPH:
            self.phonetic = False


def _shared_strings(archive: zipfile.ZipFile, part: str) -> list[str]:
    strings: list[str] = []
    item = _Strings()

    def start(name, attrs):
        if name == _SI:
            item.parts = []
        else:
            item.start(name)

    def end(name):
        if name == _SI:
            strings.append("".join(item.parts))
            item.parts = None
        else:
            item.end(name)

    def data(text):
        if item.text is not None:
            item.text.append(text)

    with archive.open(part) as stream:
        _parser(start, end, data).ParseFile(stream)
    return strings


def _number(text: str) -> int | float:
    """A number as openpyxl reads it: int unless written with a point or an exponent."""
    return float(text) if "." in text or "E" in text or "e" in text else int(text)


class _Sheet:
    """A worksheet's cells, read element by element: each <c>'s reference (or the next column of its <row>), type,
    formula (shared formulas translated to their cells), value (<v>) and inline string (<is>)."""

    def __init__(self, sheet: str, strings: list[str], cells: dict):
        self.sheet, self.strings, self.cells = sheet, strings, cells
        self.shared: dict[str, tuple[str, str]] = {}  # a shared formula's id → (its first cell, formula)
        self.row = 0  # the row's number
        self.last: str | None = None  # the row's last cell
        self.ref = self.kind = self.formula = self.formula_attributes = self.raw = None
        self.text: list[str] | None = None  # in a <v> or <f>: its characters so far
        self.inline = _Strings()

    def start(self, name, attributes):
        if name == _C:
            self.ref, self.kind = attributes.get("r"), attributes.get("t") or "n"
            self.formula = self.formula_attributes = self.raw = self.inline.parts = None
        elif name == _V or name == _F:
            self.text = []
            if name == _F:
                self.formula_attributes = attributes
        elif name == _IS:
            self.inline.parts = []
        elif name == _ROW:
            self.row = int(attributes["r"]) if "r" in attributes else self.row + 1
            if not 1 <= self.row <= MAX_ROW:
                raise WorkbookError(f"the row {self.row} lies beyond Excel's grid (XFD{MAX_ROW})")
            self.last = None
        else:
            self.inline.start(name)

    def end(self, name):
        if name == _V:
            self.raw, self.text = "".join(self.text), None
        elif name == _F:
            self.formula, self.text = "".join(self.text), None
        elif name == _C:
            self.place()
        else:
            self.inline.end(name)

    def data(self, text):
        if self.text is not None:
            self.text.append(text)
        elif self.inline.text is not None:
            self.inline.text.append(text)

    def place(self) -> None:
        ref = self.ref
        if ref is None:  # the file may leave it out: the next column of its row
            ref = f"{column_letter(split(self.last)[0] + 1 if self.last else 1)}{self.row}"
        _within_grid(ref)
        self.last = ref
        formula = self.formula
        if formula is not None:
            attributes = self.formula_attributes
            key = attributes.get("si")
            if attributes.get("t") == "shared" and key is not None:
                if "ref" in attributes or key not in self.shared:
                    self.shared[key] = (ref, formula)
                else:
                    origin, first = self.shared[key]
                    formula = _translated(first, origin, ref)
            formula = "=" + formula
        raw, kind = self.raw, self.kind
        try:
            if kind == "inlineStr":
                value = "".join(self.inline.parts) if self.inline.parts is not None else None
            elif raw is None:
                value = None
            elif kind == "s":
                value = self.strings[int(raw)]
            elif kind == "b":
                value = bool(int(raw))
            elif kind in ("str", "e", "d"):
                value = raw
            else:
                value = _number(raw) if raw.strip() else None
        except (ValueError, IndexError):
            raise WorkbookError(f"not an xlsx workbook, or a damaged one: the cell {ref} holds {raw!r} as {kind!r}")
        if value is not None or formula is not None:
            self.cells[(self.sheet, ref)] = Cell(value, formula, kind)


def _read_sheet(archive: zipfile.ZipFile, part: str, sheet: str, strings: list[str], cells: dict) -> None:
    reader = _Sheet(sheet, strings, cells)
    with archive.open(part) as stream:
        _parser(reader.start, reader.end, reader.data).ParseFile(stream)


def _translated(formula: str, origin: str, ref: str) -> str:
    """A shared formula as it reads in `ref`: its first cell's formula with relative references moved."""
    from openpyxl.formula.translate import Translator

    return Translator("=" + formula, origin).translate_formula(ref)[1:]
