"""Damaged, truncated, foreign and tampered copies of a planner workbook (issue 19, parts 1-4): each a class of what a
workbook that comes back may be, made from a clean one by rewriting its archive. The tests of hostile workbooks
and the workbook fuzz test build their corpus from these."""

from __future__ import annotations

import re
import struct
import zipfile
from pathlib import Path
from typing import Callable

from planner import xlsx
from tests.helpers import address

Edit = Callable[[bytes], "bytes | None"]  # a part's bytes → its new bytes, or None to leave the part out


def rewritten(source: Path, target: Path, edits: dict[str, Edit] | None = None, added: dict[str, bytes] | None = None,
              *, stored: bool = False) -> Path:
    """A copy of `source` whose parts named in `edits` are rewritten (or left out) and with `added` parts; every
    other part as it was."""
    edits, added = edits or {}, added or {}
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w", method) as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename in edits:
                data = edits[item.filename](data)
                if data is None:
                    continue
            zout.writestr(item.filename, data)
        for name, data in added.items():
            zout.writestr(name, data)
    return target


def part_of(source: Path, sheet: str) -> str:
    """The archive part of a sheet (xl/worksheets/sheet5.xml for Inputs, behind the Cover and the finance pages)."""
    return xlsx.read(source, cells=False).parts[sheet]


def replace(old: str, new: str, count: int = 1) -> Edit:
    """An edit replacing `old` by `new` (regular expressions), `count` times (0: all); it must match."""
    def edit(data: bytes) -> bytes:
        text, found = re.subn(old, new, data.decode("utf-8"), count=count)
        assert found, f"no {old!r} in the part"
        return text.encode("utf-8")
    return edit


def defined_name(name: str, refers_to: str) -> Edit:
    """The workbook part's defined name `name` made to refer to `refers_to` (as written: 'Inputs'!$B$7, #REF!)."""
    return replace(rf'(<definedName name="{re.escape(name)}"[^>]*>)[^<]*(</definedName>)',
                   lambda m: m[1] + refers_to.replace("&", "&amp;").replace("<", "&lt;") + m[2])


def cell(ref: str, xml: str) -> Edit:
    """A sheet part's cell `ref` replaced by `xml` (a whole <c …>…</c>)."""
    return replace(rf'<c r="{ref}"(?=[ />])[^>]*?(?:/>|>.*?</c>)', lambda m: xml)


def formula_in(source: Path, target: Path, name: str, formula: str, cached: str = "0") -> str:
    """A copy whose input cell `name` holds `formula` (without "=") with a cached value; returns Sheet!A1."""
    sheet, ref = address(source, name)
    cached_xml = f'<v>{cached}</v>' if re.fullmatch(r"[-0-9.eE]+", cached) else f'<v>{cached}</v>'
    kind = "" if re.fullmatch(r"[-0-9.eE]+", cached) else ' t="str"'
    escaped = formula.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    rewritten(source, target, {part_of(source, sheet): cell(ref, f'<c r="{ref}"{kind}><f>{escaped}</f>{cached_xml}'
                                                                  f'</c>')})
    return f"{sheet}!{ref}"


# Zip-level damage ----------------------------------------------------------------------------------------------------
def _local_header(data: bytes, name: str) -> int:
    """The offset of a part's local file header in the archive's bytes."""
    with zipfile.ZipFile(__import__("io").BytesIO(data)) as archive:
        return archive.getinfo(name).header_offset


def _central_entry(data: bytes, name: str) -> int:
    """The offset of a part's central directory entry."""
    encoded = name.encode()
    at = data.find(b"PK\x01\x02")
    while at != -1:
        length = struct.unpack_from("<H", data, at + 28)[0]
        if data[at + 46:at + 46 + length] == encoded:
            return at
        at = data.find(b"PK\x01\x02", at + 4)
    raise AssertionError(f"no central entry for {name}")


def bad_crc(source: Path, target: Path, name: str) -> Path:
    """A copy whose part `name` has a CRC-32 that does not match its data (in both headers)."""
    data = bytearray(source.read_bytes())
    for at, offset in ((_local_header(data, name), 14), (_central_entry(data, name), 16)):
        crc = struct.unpack_from("<I", data, at + offset)[0]
        struct.pack_into("<I", data, at + offset, crc ^ 0xFFFF)
    target.write_bytes(bytes(data))
    return target


def lying_size(source: Path, target: Path, name: str, factor: float) -> Path:
    """A copy whose central directory says part `name` unpacks to `factor` times its real size."""
    data = bytearray(source.read_bytes())
    at = _central_entry(data, name)
    size = struct.unpack_from("<I", data, at + 24)[0]
    struct.pack_into("<I", data, at + 24, min(int(size * factor), 2**32 - 1))
    target.write_bytes(bytes(data))
    return target


def corrupt_stream(source: Path, target: Path, name: str) -> Path:
    """A copy whose part `name` has a damaged deflate stream (headers and CRC untouched): its first block's type
    set to the reserved one, which no inflater reads (bytes scrambled in the middle may still inflate, to other
    text, depending on what the workbook holds)."""
    data = bytearray(source.read_bytes())
    at = _local_header(data, name)
    name_length, extra_length = struct.unpack_from("<HH", data, at + 26)
    start = at + 30 + name_length + extra_length
    data[start] |= 0b110  # BTYPE, bits 1-2 of the block header: 11 is reserved (RFC 1951, 3.2.3)
    target.write_bytes(bytes(data))
    return target


def flipped(data: bytes, positions: list[int], mask: int = 0xFF) -> bytes:
    """The bytes with each byte at `positions` XOR-ed with `mask`."""
    found = bytearray(data)
    for at in positions:
        found[at % len(found)] ^= mask
    return bytes(found)


# Foreign content -----------------------------------------------------------------------------------------------------
CONTENT_TYPES = "[Content_Types].xml"
RELS = "xl/_rels/workbook.xml.rels"
WORKBOOK = "xl/workbook.xml"
RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"


def with_vba(source: Path, target: Path) -> Path:
    """An .xlsm's VBA project in a copy (what renaming a macro workbook to .xlsx leaves)."""
    return rewritten(source, target, {
        CONTENT_TYPES: replace("</Types>", '<Default Extension="bin" ContentType="application/vnd.ms-office.'
                                           'vbaProject"/></Types>'),
        RELS: replace("</Relationships>", '<Relationship Id="rIdVba" Type="http://schemas.microsoft.com/office/2006/'
                                          'relationships/vbaProject" Target="vbaProject.bin"/></Relationships>')},
        {"xl/vbaProject.bin": b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\0" * 504})


def with_external_link(source: Path, target: Path) -> Path:
    """A copy with an external-link part (a formula that reads another workbook leaves one)."""
    link = ('<externalLink xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><externalBook '
            f'xmlns:r="{RELATIONSHIPS}" r:id="rId1"><sheetNames><sheetName val="Prices"/></sheetNames>'
            '</externalBook></externalLink>')
    link_rels = ('<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship '
                 f'Id="rId1" Type="{RELATIONSHIPS}/externalLinkPath" Target="https://example.com/prices.xlsx" '
                 'TargetMode="External"/></Relationships>')
    return rewritten(source, target, {
        CONTENT_TYPES: replace("</Types>", '<Override PartName="/xl/externalLinks/externalLink1.xml" ContentType='
                                           '"application/vnd.openxmlformats-officedocument.spreadsheetml.'
                                           'externalLink+xml"/></Types>'),
        RELS: replace("</Relationships>", f'<Relationship Id="rIdLink" Type="{RELATIONSHIPS}/externalLink" '
                                          'Target="externalLinks/externalLink1.xml"/></Relationships>'),
        WORKBOOK: replace("</sheets>", '</sheets><externalReferences><externalReference r:id="rIdLink"/>'
                                       '</externalReferences>')},
        {"xl/externalLinks/externalLink1.xml": link.encode(),
         "xl/externalLinks/_rels/externalLink1.xml.rels": link_rels.encode()})


EXTRA_SHEET = ('<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'
               '<row r="1"><c r="A1" t="inlineStr"><is><t>added</t></is></c></row></sheetData></worksheet>')


def with_extra_sheet(source: Path, target: Path, state: str | None = None, name: str = "Notes") -> Path:
    """A copy with one more sheet, `name`, last; `state` "hidden" or "veryHidden" hides it."""
    shown = f' state="{state}"' if state else ""
    return rewritten(source, target, {
        CONTENT_TYPES: replace("</Types>", '<Override PartName="/xl/worksheets/extra.xml" ContentType="application/'
                                           'vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/></Types>'),
        RELS: replace("</Relationships>", f'<Relationship Id="rIdExtra" Type="{RELATIONSHIPS}/worksheet" '
                                          'Target="worksheets/extra.xml"/></Relationships>'),
        WORKBOOK: replace("</sheets>", f'<sheet name="{name}" sheetId="99"{shown} r:id="rIdExtra"/></sheets>')},
        {"xl/worksheets/extra.xml": EXTRA_SHEET.encode()})


def with_sheet_hidden(source: Path, target: Path, sheet: str, state: str = "hidden") -> Path:
    """A copy with one of the planner's own sheets hidden."""
    return rewritten(source, target, {WORKBOOK: replace(rf'<sheet name="{sheet}" ', f'<sheet name="{sheet}" '
                                                                                   f'state="{state}" ')})


def _constant_xml(ref: str, value) -> str:
    if isinstance(value, bool):
        return f'<c r="{ref}" t="b"><v>{int(value)}</v></c>'
    if isinstance(value, (int, float)):
        return f'<c r="{ref}"><v>{value!r}</v></c>'
    text = str(value).replace("&", "&amp;").replace("<", "&lt;")
    return f'<c r="{ref}" t="inlineStr"><is><t>{text}</t></is></c>'


def with_catalog_rows(source: Path, target: Path, prefix: str, count: int) -> Path:
    """A copy whose Catalog block `prefix` (catalog_gpu, catalog_traffic_preset: a block of rows) has `count` more
    entries (ids added-1, added-2, …, each a copy of the block's first entry): the block's typed values moved below
    the sheet's last row, each of its names widened over the moved rows and the added ones."""
    book = xlsx.read(source)
    names = {name: book.destinations(name)[0] for name in book.names if name.startswith(prefix + "_")}
    sheet = next(iter(names.values()))[0]
    first_row = xlsx.split(names[prefix + "_ids"][1].split(":")[0])[1]
    last_row = xlsx.split(names[prefix + "_ids"][1].split(":")[1])[1]
    start = max(xlsx.split(ref)[1] for s, ref in book.cells if s == sheet) + 2
    columns = {name: xlsx.split(ref.split(":")[0])[0] for name, (_, ref) in names.items()}
    rows = []
    template = None
    for r in range(first_row, last_row + 1 + count):
        found = {}
        for name, column in columns.items():
            letter = xlsx.column_letter(column)
            if r <= last_row:
                typed = book.cell(sheet, f"{letter}{r}")
                value = typed.value if typed.formula is None else None
            else:
                value = f"added-{r - last_row}" if name == prefix + "_ids" else template.get(name)
            if value is not None:
                found[name] = value
        if r == first_row:
            template = found
        at = start + r - first_row
        cells = "".join(_constant_xml(f"{xlsx.column_letter(columns[name])}{at}", value)
                        for name, value in sorted(found.items(), key=lambda item: columns[item[0]]))
        rows.append(f'<row r="{at}">{cells}</row>')
    end = start + last_row + count - first_row
    edits = [defined_name(name, f"'{sheet}'!${xlsx.column_letter(column)}${start}:${xlsx.column_letter(column)}${end}")
             for name, column in columns.items()]

    def workbook(data: bytes) -> bytes:
        for edit in edits:
            data = edit(data)
        return data

    block = "".join(rows)
    return rewritten(source, target, {WORKBOOK: workbook, book.parts[sheet]: replace("</sheetData>", lambda m: block
                                                                                     + "</sheetData>")})
