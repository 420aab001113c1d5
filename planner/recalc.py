"""Recalculate workbooks in LibreOffice Calc, headless, and read back every value (PRODUCT.md, "Verifying a
workbook in a real spreadsheet application").

A fresh user profile sets OOXMLRecalcMode and ODFRecalcMode to 0 (always recalculate); without it LibreOffice keeps
the cached values and proves nothing. Each copy's canary cell (`recalc_canary`, the formula 21*2) has its cached
value poisoned first, so a result of 42 proves the recalculation happened.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import tempfile
import zipfile
from pathlib import Path
from defusedxml import ElementTree  # the workbook is input from outside: no entity expansion

import openpyxl

CANARY_NAME = "recalc_canary"
CANARY_VALUE = 42
POISON = -1

_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
</oor:items>
"""
_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main",
       "r": "http://schemas.openxmlformats.org/officeDocument/2006/relationships",
       "rel": "http://schemas.openxmlformats.org/package/2006/relationships"}


class RecalcError(RuntimeError):
    """LibreOffice is missing, failed, or did not recalculate."""


class WorkbookError(ValueError):
    """A file that is not a planner workbook, or that LibreOffice cannot open: a problem of that file alone."""


def find_soffice() -> str | None:
    for name in ("soffice", "libreoffice"):
        found = shutil.which(name)
        if found:
            return found
    for candidate in ("/usr/bin/soffice", "/usr/lib/libreoffice/program/soffice",
                      "/Applications/LibreOffice.app/Contents/MacOS/soffice"):
        if os.path.exists(candidate):
            return candidate
    return None


def recalculate(paths: list[Path], out_dir: Path, *, timeout: float = 600) -> list[Path]:
    """Recalculate copies of `paths`; returns the recalculated files, in order.

    Raises RecalcError when LibreOffice is missing or fails, or a file does not recalculate."""
    outputs = recalculate_each(paths, out_dir, timeout=timeout)
    failed = [f"{path}: {output}" for path, output in zip(paths, outputs) if isinstance(output, WorkbookError)]
    if failed:
        raise RecalcError("; ".join(failed))
    return outputs


def recalculate_each(paths: list[Path], out_dir: Path, *, timeout: float = 600) -> list[Path | WorkbookError]:
    """Recalculate copies of `paths` in one LibreOffice call, then the ones it left out one at a time; returns, in
    order, each recalculated file or the WorkbookError saying why that file has none, so one bad file does not
    sink the others. Raises RecalcError when LibreOffice is missing or does not finish."""
    soffice = find_soffice()
    if soffice is None:
        raise RecalcError("LibreOffice Calc is not installed (soffice not found); on Debian or Ubuntu: "
                          "apt-get install -y --no-install-recommends libreoffice-calc-nogui")
    out_dir = Path(out_dir)
    staging = out_dir / "in"
    done = out_dir / "out"
    staging.mkdir(parents=True, exist_ok=True)
    done.mkdir(parents=True, exist_ok=True)
    results: list[Path | WorkbookError] = []
    for i, path in enumerate(paths):
        copy = staging / f"{i:04d}-{Path(path).stem[:60]}.xlsx"
        try:
            _copy_with_poisoned_canary(Path(path), copy)
            results.append(copy)
        except WorkbookError as exc:
            results.append(exc)
    copies = [c for c in results if isinstance(c, Path)]
    printed = _convert(soffice, copies, done, timeout) if copies else ""
    for i, copy in enumerate(results):
        if not isinstance(copy, Path):
            continue
        output = done / copy.name
        if not output.exists() and len(copies) > 1:
            printed = _convert(soffice, [copy], done, timeout)  # alone, so what it prints is about this file
        if output.exists():
            results[i] = output
        else:
            last = (printed.strip().splitlines() or ["no message"])[-1]
            results[i] = WorkbookError(f"LibreOffice could not open it: {last}")
    return results


def _convert(soffice: str, copies: list[Path], done: Path, timeout: float) -> str:
    """One LibreOffice call converting `copies` into `done`, with a fresh profile that always recalculates;
    returns what it printed. LibreOffice exits 0 even when it cannot load a file: the missing output tells."""
    with tempfile.TemporaryDirectory(prefix="planner-lo-profile-") as profile:
        user = Path(profile) / "user"
        user.mkdir()
        (user / "registrymodifications.xcu").write_text(_PROFILE, encoding="utf-8")
        command = [soffice, "--headless", "--norestore", "--nolockcheck", "--nodefault", "--nofirststartwizard",
                   f"-env:UserInstallation={Path(profile).as_uri()}", "--convert-to", "xlsx",
                   "--outdir", str(done)] + [str(c) for c in copies]
        try:
            result = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            raise RecalcError(f"LibreOffice did not finish within {timeout:.0f} s") from exc
    return result.stdout + result.stderr


def check_workbook(path: Path) -> None:
    """Raise WorkbookError, saying why in one line, unless `path` is an xlsx workbook with the canary's name."""
    with _opened(path) as book:
        _canary_location(book)


MAX_UNPACKED = 200 * 1024 * 1024  # a planner workbook unpacks to a few MB; 10,000 logged requests to about 5


@contextlib.contextmanager
def _opened(path: Path):
    """The xlsx file as a zip archive; a file that is not one, or that would unpack to more than MAX_UNPACKED
    bytes (a zip bomb), raises WorkbookError before anything is read."""
    try:
        with zipfile.ZipFile(path) as book:
            unpacked = sum(item.file_size for item in book.infolist())
            if unpacked > MAX_UNPACKED:
                raise WorkbookError(f"too large when unpacked ({unpacked / 2**20:,.0f} MB; a planner workbook "
                                    f"is a few MB, the limit is {MAX_UNPACKED / 2**20:,.0f} MB): not read")
            yield book
    except zipfile.BadZipFile as exc:
        empty = Path(path).stat().st_size == 0
        raise WorkbookError("the file is empty: not an xlsx workbook" if empty else
                            f"not an xlsx workbook, or a damaged one (a text file, or a copy cut short?): {exc}")
    except KeyError as exc:
        raise WorkbookError(f"not an xlsx workbook, or a damaged one: {exc.args[0]}")
    except ElementTree.ParseError as exc:
        raise WorkbookError(f"a damaged xlsx workbook: its XML does not parse ({exc})")


def _copy_with_poisoned_canary(source: Path, target: Path) -> None:
    """Copy an xlsx, changing the canary's cached value to POISON inside the sheet's XML."""
    with _opened(source) as zin:
        sheet_xml, cell = _canary_location(zin)
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zout:
            for item in zin.infolist():
                data = zin.read(item.filename)
                if item.filename == sheet_xml:
                    # the canary's <f …>…</f> (LibreOffice adds attributes) then <v>…</v>, <v/> or no value
                    pattern = re.compile(
                        rf'(<c r="{cell}"[^>]*>\s*<f[^>]*>[^<]*</f>)\s*(?:<v>[^<]*</v>|<v\s*/>)?'.encode())
                    data, count = pattern.subn(rb"\g<1><v>" + str(POISON).encode() + rb"</v>", data)
                    if count != 1:
                        raise WorkbookError(f"not a planner workbook: no canary formula in {cell} of {sheet_xml}")
                zout.writestr(item, data)


def _canary_location(book: zipfile.ZipFile) -> tuple[str, str]:
    workbook = ElementTree.fromstring(book.read("xl/workbook.xml"))
    for name in workbook.iterfind("m:definedNames/m:definedName", _NS):
        if name.get("name") == CANARY_NAME:
            sheet_name, cell = name.text.rsplit("!", 1)
            sheet_name = sheet_name.strip("'").replace("''", "'")
            break
    else:
        raise WorkbookError(f"not a planner workbook: it has no defined name {CANARY_NAME}")
    rels = ElementTree.fromstring(book.read("xl/_rels/workbook.xml.rels"))
    targets = {r.get("Id"): r.get("Target") for r in rels.iterfind("rel:Relationship", _NS)}
    for sheet in workbook.iterfind("m:sheets/m:sheet", _NS):
        if sheet.get("name") == sheet_name:
            target = targets[sheet.get(f"{{{_NS['r']}}}id")]
            return "xl/" + target.lstrip("/").removeprefix("xl/"), cell.replace("$", "")
    raise WorkbookError(f"not a planner workbook: the sheet {sheet_name} of {CANARY_NAME} is missing")


def read_values(path: Path) -> dict[tuple[str, str], object]:
    """Every non-empty cell's value, as a spreadsheet application last calculated it: (sheet, A1) → value."""
    book = openpyxl.load_workbook(path, data_only=True)
    try:
        return {(ws.title, cell.coordinate): cell.value for ws in book.worksheets for row in ws.iter_rows()
                for cell in row if cell.value is not None}
    finally:
        book.close()


def formula_cells(path: Path) -> dict[tuple[str, str], str]:
    """Every formula cell: (sheet, A1) → formula text."""
    book = openpyxl.load_workbook(path)
    try:
        return {(ws.title, cell.coordinate): cell.value for ws in book.worksheets for row in ws.iter_rows()
                for cell in row if cell.data_type == "f"}
    finally:
        book.close()


def canary_recalculated(values: dict, book_names: dict[str, tuple[str, str]]) -> bool:
    sheet, cell = book_names[CANARY_NAME]
    return values.get((sheet, cell)) == CANARY_VALUE
