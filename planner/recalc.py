"""Recalculate workbooks in a real spreadsheet application, LibreOffice Calc or Gnumeric, headless, and read back
every cell's value (README.md's verification recipe); what `planner verify`, `planner audit` and the tests run.

Each workbook is copied first, with the cached value of its canary cell (`recalc_canary`, the formula 21*2)
poisoned and without what no value depends on (print titles, protection, charts, validations, conditional
formats); the application recalculates the copy and exports every sheet as CSV; a canary that reads 42 again
proves the recalculation happened (LibreOffice without its always-recalculate setting keeps the cached values and
proves nothing). Each workbook gets its values, {(sheet, A1): value}, or a WorkbookError of its own, so one bad
file never sinks the others; RecalcError means the application itself is missing, failed or stalled.

LibreOffice runs with a user profile of its own whose `registrymodifications.xcu` sets OOXMLRecalcMode (and
ODFRecalcMode) to 0, always recalculate. `LibreOffice()` starts it for each call, all workbooks in one conversion
(on three cores or more, two instances side by side, each on its own profile, converting every other workbook);
`LibreOffice(keep_running=True)` (the tests, one per worker) keeps one instance running on that profile, started on
first use and warmed up, stopped by close() or at exit, restarted if it dies: each call's `soffice --convert-to` is
then forwarded to it (LibreOffice's own single-instance pipe) and returns when its conversions are done, without
LibreOffice's start-up. A headless LibreOffice shuts down after a forwarded conversion when no document is open, so
the running instance first opens an empty hidden spreadsheet (a Basic macro in its profile) and keeps it open; the
profile says that it is already set up (ooSetupInstCompleted), else LibreOffice's first start would copy its own
Basic library over that macro.

Gnumeric's `ssconvert --recalc` converts one workbook per process; several run side by side.

Values come back as typed in the CSV: LibreOffice quotes every text cell, so text is text and an unquoted field is
a number or TRUE/FALSE; Gnumeric quotes text only where the CSV needs it, so a text cell that reads as a number or
TRUE/FALSE comes back as that number or truth value. Error values (#DIV/0!, Err:502, …) are text, as openpyxl reads
them. Numbers have 15 significant digits from LibreOffice (a percent format's 40% read as 0.4), more from Gnumeric.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator, Self, Sequence

from planner import xlsx
from planner.xlsx import WorkbookError  # noqa: F401 (part of this module's interface)

CANARY_NAME = "recalc_canary"
CANARY_VALUE = 42
POISON = -1
APPS = ("libreoffice", "gnumeric")

_PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="OOXMLRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Office.Calc/Formula/Load"><prop oor:name="ODFRecalcMode" oor:op="fuse">
<value>0</value></prop></item>
<item oor:path="/org.openoffice.Setup/Office"><prop oor:name="ooSetupInstCompleted" oor:op="fuse">
<value>true</value></prop></item>
</oor:items>
"""
# The running instance's Basic library: one macro that opens an empty spreadsheet, hidden, so that a forwarded
# conversion finds a document open and LibreOffice stays up (user/basic/Standard in the profile).
_LIBRARIES = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE library:libraries PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "libraries.dtd">
<library:libraries xmlns:library="http://openoffice.org/2000/library" xmlns:xlink="http://www.w3.org/1999/xlink">
 <library:library library:name="Standard" xlink:href="$(USER)/basic/Standard/{kind}.xlb/" xlink:type="simple" \
library:link="false"/>
</library:libraries>
"""
_LIBRARY = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE library:library PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "library.dtd">
<library:library xmlns:library="http://openoffice.org/2000/library" library:name="Standard" \
library:readonly="false" library:passwordprotected="false"{elements}
"""
_MODULE = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE script:module PUBLIC "-//OpenOffice.org//DTD OfficeDocument 1.0//EN" "module.dtd">
<script:module xmlns:script="http://openoffice.org/2000/script" script:name="Planner" script:language="StarBasic">
Sub KeepRunning
  Dim args(0) As New com.sun.star.beans.PropertyValue
  args(0).Name = &quot;Hidden&quot;
  args(0).Value = True
  StarDesktop.loadComponentFromURL(&quot;private:factory/scalc&quot;, &quot;_blank&quot;, 0, args())
End Sub
</script:module>
"""
KEEP_RUNNING = "macro:///Standard.Planner.KeepRunning"
# Every sheet as CSV (the last token, -1): comma, double quotes, UTF-8, text cells quoted (the 7th), raw values
# rather than as shown (the 9th: 15 significant digits, TRUE/FALSE, error values as text); <stem>-<Sheet>.csv each.
CSV_FILTER = "csv:Text - txt - csv (StarCalc):44,34,76,1,,0,true,true,false,false,false,-1"
GNUMERIC_CSV = "separator=, format=raw quoting-mode=auto eol=unix charset=UTF-8 locale=C"
START_TIMEOUT = 120.0  # s for LibreOffice to start and convert its first workbook
TIMEOUT = 120.0  # s for a call to convert its first workbook …
TIMEOUT_PER_WORKBOOK = 30.0  # … and for each further one
INSTANCES = 2  # LibreOffice instances side by side for one call of many workbooks (at most this many, one per core
# beside the core that builds the expected workbooks: on 2 cores, since LibreOffice takes less per workbook than that
# build, a second instance only competes with it and costs a second start; benchmarks/README.md)

Progress = Callable[[int], None]  # called with a workbook's position once its values are in (or it failed)


class RecalcError(RuntimeError):
    """The spreadsheet application is missing, failed, or did not finish."""


def not_recalculated(app: str) -> str:
    return f"the recalculation canary kept its poisoned value: {app} did not recalculate"


# Finding the applications -------------------------------------------------------------------------------------------
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


def find_ssconvert() -> str | None:
    return shutil.which("ssconvert")


class Application:
    """What LibreOffice and Gnumeric share: found on the machine or refused with how to install it, and used in a
    `with` block that closes it at its end."""

    name: str
    product: str  # as a refusal names it
    program: str  # the command it is run by
    package: str  # what installs it on Debian or Ubuntu

    def find(self) -> str | None:
        raise NotImplementedError

    def require(self) -> str:
        found = self.find()
        if found is None:
            raise RecalcError(f"{self.product} is not installed ({self.program} not found); on Debian or Ubuntu: "
                              f"apt-get install -y --no-install-recommends {self.package}")
        return found

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Nothing is left running (LibreOffice's own stops its instance)."""


def application(name: str, **options) -> Application:
    """The application `planner verify --app NAME` runs: "libreoffice" or "gnumeric"."""
    if name == "libreoffice":
        return LibreOffice(**options)
    if name == "gnumeric":
        return Gnumeric(**options)
    raise ValueError(f"no spreadsheet application {name!r}; one of {', '.join(APPS)}")


# The workbook copies ------------------------------------------------------------------------------------------------
def canary(book: xlsx.Workbook) -> tuple[str, str]:
    """(sheet, A1) of the canary; WorkbookError, saying why in one line, unless the file is a planner workbook."""
    found = book.destinations(CANARY_NAME)
    if len(found) != 1 or ":" in found[0][1]:
        raise WorkbookError(f"not a planner workbook: it has no defined name {CANARY_NAME}")
    if found[0][0] not in book.parts:
        raise WorkbookError(f"not a planner workbook: the sheet {found[0][0]} of {CANARY_NAME} is missing")
    return found[0]


# What the copy leaves out, none of it a cell's value: the print titles (LibreOffice lays out every sheet's pages
# for them on load: about half its time per workbook), sheet protection, charts, data validations and conditional
# formats (benchmarks/README.md).
_NOT_VALUES = {
    "workbook": [re.compile(rb'<definedName\b[^>]*\bname="_xlnm\.Print_(?:Titles|Area)"[^>]*>[^<]*</definedName>')],
    "sheet": [re.compile(rb"<sheetProtection\b[^>]*/>"), re.compile(rb"<drawing\b[^>]*/>"),
              re.compile(rb"<dataValidations\b(?:[^>]*/>|.*?</dataValidations>)", re.S),
              re.compile(rb"<conditionalFormatting\b(?:[^>]*/>|.*?</conditionalFormatting>)", re.S)],
}
# A date's number format (yyyy-mm-dd, mmm yyyy, hh:mm) as General in the copy: LibreOffice's CSV writes a date cell as
# shown even with raw values asked for, and the serial day is the value
_DATE_FORMAT = re.compile(rb'(<numFmt\b[^>]*\bformatCode=")[^"]*(?:yy|dd|mmm|hh)[^"]*(")')


def _poisoned_copy(book: xlsx.Workbook, target: Path) -> None:
    """Copy the workbook's file, changing the canary's cached value to POISON inside its sheet's XML and leaving
    out what no value depends on (_NOT_VALUES)."""
    sheet, cell = canary(book)
    part = book.parts[sheet]
    sheets = set(book.parts.values())
    with xlsx.opened(book.path) as zin, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as zout:
        for item in zin.infolist():
            with xlsx.part(item.filename):  # a damaged part (a bad CRC) is the file's own WorkbookError
                data = zin.read(item.filename)
            kind = "workbook" if item.filename == "xl/workbook.xml" else "sheet" if item.filename in sheets else None
            for pattern in _NOT_VALUES.get(kind, ()):
                data = pattern.sub(b"", data)
            if item.filename == "xl/styles.xml":
                data = _DATE_FORMAT.sub(rb"\g<1>General\g<2>", data)
            if item.filename == part:
                # the canary's <f …>…</f> (LibreOffice adds attributes) then <v>…</v>, <v/> or no value
                pattern = re.compile(
                    rf'(<c r="{cell}"[^>]*>\s*<f[^>]*>[^<]*</f>)\s*(?:<v>[^<]*</v>|<v\s*/>)?'.encode())
                data, count = pattern.subn(rb"\g<1><v>" + str(POISON).encode() + rb"</v>", data)
                if count != 1:
                    raise WorkbookError(f"not a planner workbook: no canary formula in {cell} of {part}")
            zout.writestr(item, data)


class _Job:
    """One workbook on its way through an application: its copy, then its values or the error saying why not."""

    def __init__(self, index: int, book: xlsx.Workbook, copy: Path):
        self.index, self.book, self.copy = index, book, copy
        self.result: dict | WorkbookError | None = None


def _jobs(workbooks: Sequence[Path | xlsx.Workbook], folder: Path,
          copied: Callable[[], None] | None = None) -> tuple[list, list[_Job]]:
    """Each workbook read (its sheets and names, when given as a path) and copied with its canary poisoned; a file
    that cannot be gets its WorkbookError at its position. `copied()` once they are all copied."""
    results: list = [None] * len(workbooks)
    jobs = []
    for i, found in enumerate(workbooks):
        try:
            book = found if isinstance(found, xlsx.Workbook) else xlsx.read(Path(found), cells=False)
            copy = folder / f"{i:04d}.xlsx"
            _poisoned_copy(book, copy)
            jobs.append(_Job(i, book, copy))
        except WorkbookError as exc:
            results[i] = exc
    if copied is not None:
        copied()
    return results, jobs


# Reading the CSV -----------------------------------------------------------------------------------------------------
_FIELD = re.compile(r'"((?:[^"]|"")*)"|([^,\n"]*)')
_NUMBER = re.compile(r"[-+]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")


def _rows(text: str) -> Iterator[list[tuple[str, bool]]]:
    """A CSV file's rows, each field as (text, quoted)."""
    pos, end = 0, len(text)
    row: list[tuple[str, bool]] = []
    while True:
        match = _FIELD.match(text, pos)
        quoted, plain = match.groups()
        row.append((quoted.replace('""', '"'), True) if quoted is not None else (plain, False))
        pos = match.end()
        if pos >= end:
            yield row
            return
        separator = text[pos]
        pos += 1
        if separator == "\n":
            yield row
            row = []
            if pos >= end:
                return
        elif separator != ",":
            raise ValueError(f"a stray quote at character {pos}")


def _typed(text: str, quoted: bool):
    if quoted:
        return text
    if text == "":
        return None
    if text in ("TRUE", "FALSE"):
        return text == "TRUE"
    if _NUMBER.fullmatch(text):
        return float(text) if "." in text or "e" in text or "E" in text else int(text)
    if text.endswith("%") and _NUMBER.fullmatch(text[:-1]):  # LibreOffice keeps a percent format's sign
        return float(text[:-1]) / 100
    return text


def _sheet_values(values: dict, sheet: str, text: str, first_row: int = 1, first_column: int = 1) -> None:
    for r, row in enumerate(_rows(text)):
        for c, (field, quoted) in enumerate(row):
            value = _typed(field, quoted)
            if value is not None:
                values[(sheet, f"{xlsx.column_letter(first_column + c)}{first_row + r}")] = value


def _checked(app: str, job: _Job, values: dict) -> dict | WorkbookError:
    """The values, or an error when the canary shows that no recalculation happened."""
    sheet, cell = canary(job.book)
    if values.get((sheet, cell)) != CANARY_VALUE:
        return WorkbookError(not_recalculated(app))
    return values


def _last_line(printed: str) -> str:
    lines = [line for line in printed.strip().splitlines() if not line.startswith(("Warning: failed to launch",
                                                                                     "convert ", "Writing sheet"))]
    return (lines or ["no message"])[-1]


# LibreOffice ---------------------------------------------------------------------------------------------------------
class LibreOffice(Application):
    """LibreOffice Calc, headless, on a user profile of its own that always recalculates."""

    name, product, program, package = "LibreOffice", "LibreOffice Calc", "soffice", "libreoffice-calc-nogui"

    def __init__(self, *, keep_running: bool = False, timeout: float | None = None):
        self.keep_running = keep_running
        self.timeout = timeout  # s per call; None: TIMEOUT plus TIMEOUT_PER_WORKBOOK for each workbook after the first
        self._home: Path | None = None  # the profile and the running instance's log
        self._server: subprocess.Popen | None = None
        self._lock = threading.Lock()
        self.starts = 0  # how many instances keep_running has started (the tests check it stays at 1)
        if keep_running:
            atexit.register(self.close)

    # the application's life ------------------------------------------------------------------------------------------
    def find(self) -> str | None:
        return find_soffice()

    def close(self) -> None:
        """Stop the running instance, if any, and remove the profile."""
        self._stop()
        if self._home is not None:
            shutil.rmtree(self._home, ignore_errors=True)
            self._home = None

    @property
    def running(self) -> bool:
        return self._server is not None and self._server.poll() is None

    def _profile(self) -> Path:
        """The user profile (made on first use): always recalculate; the keep-running macro."""
        if self._home is None:
            self._home = Path(tempfile.mkdtemp(prefix="planner-libreoffice-"))
            basic = self._home / "profile" / "user" / "basic"
            (basic / "Standard").mkdir(parents=True)
            (self._home / "profile" / "user" / "registrymodifications.xcu").write_text(_PROFILE, encoding="utf-8")
            for kind in ("script", "dialog"):
                (basic / f"{kind}.xlc").write_text(_LIBRARIES.format(kind=kind), encoding="utf-8")
            elements = '>\n <library:element library:name="Planner"/>\n</library:library>'
            (basic / "Standard" / "script.xlb").write_text(_LIBRARY.format(elements=elements), encoding="utf-8")
            (basic / "Standard" / "dialog.xlb").write_text(_LIBRARY.format(elements="/>"), encoding="utf-8")
            (basic / "Standard" / "Planner.xba").write_text(_MODULE, encoding="utf-8")
        return self._home / "profile"

    def _command(self, soffice: str) -> list[str]:
        return [soffice, "--headless", "--norestore", "--nolockcheck", "--nodefault", "--nofirststartwizard",
                f"-env:UserInstallation={self._profile().as_uri()}"]

    def _start(self, soffice: str) -> None:
        """Start the instance that stays running, wait until it listens, and warm it up with a small workbook."""
        self._stop()
        pipe = f"planner-{os.getpid()}-{os.urandom(4).hex()}"
        log = open(self._home_log(), "ab")
        try:
            self._server = subprocess.Popen(
                self._command(soffice) + ["--invisible", f"--accept=pipe,name={pipe};urp;", KEEP_RUNNING],
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            log.close()
        self.starts += 1
        address = f"/tmp/OSL_PIPE_{os.getuid()}_{pipe}"
        deadline = time.monotonic() + START_TIMEOUT
        while not _listening(address):
            if self._server.poll() is not None:
                raise RecalcError(f"LibreOffice stopped while starting: {_last_line(self._log_since(0))}")
            if time.monotonic() > deadline:
                self._stop()
                raise RecalcError(f"LibreOffice did not start within {START_TIMEOUT:.0f} s")
            time.sleep(0.05)
        warm = self._home / "warm-up"
        warm.mkdir(exist_ok=True)
        _tiny_workbook(warm / "warm-up.xlsx")
        self._client(soffice, [warm / "warm-up.xlsx"], warm, target=CSV_FILTER, timeout=START_TIMEOUT, progress=None)

    def _home_log(self) -> Path:
        self._profile()
        return self._home / "libreoffice.log"

    def _log_since(self, offset: int) -> str:
        path = self._home_log()
        if not path.exists():
            return ""
        with open(path, "rb") as log:
            log.seek(offset)
            return log.read().decode("utf-8", "replace")

    def _stop(self) -> None:
        server, self._server = self._server, None
        if server is None or server.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=20)

    # converting --------------------------------------------------------------------------------------------------
    def convert(self, paths: Sequence[Path], out: Path, *, target: str = CSV_FILTER,
                progress: Callable[[int], None] | None = None, timeout: float | None = None) -> str:
        """One `soffice --convert-to TARGET` of `paths` into `out` (forwarded to the running instance when it keeps
        running); returns what LibreOffice printed. LibreOffice exits 0 even when it cannot load a file: a missing
        output tells. `progress(i)` once the i-th file is done."""
        soffice = self.require()
        timeout = timeout or self.timeout or TIMEOUT + TIMEOUT_PER_WORKBOOK * max(len(paths) - 1, 0)
        with self._lock:
            if self.keep_running and not self.running:
                self._start(soffice)
            offset = self._home_log().stat().st_size if self._home_log().exists() else 0
            printed = self._client(soffice, paths, out, target=target, timeout=timeout, progress=progress)
            return printed + self._log_since(offset)

    def _client(self, soffice: str, paths: Sequence[Path], out: Path, *, target: str, timeout: float,
                progress) -> str:
        out.mkdir(parents=True, exist_ok=True)
        stems = [Path(p).stem for p in paths]
        command = self._command(soffice) + ["--convert-to", target, "--outdir", str(out)] + [str(p) for p in paths]
        with tempfile.TemporaryFile() as printed:
            client = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=printed, stderr=subprocess.STDOUT,
                                      start_new_session=True)
            deadline = time.monotonic() + timeout
            done = 0
            while client.poll() is None:
                if time.monotonic() > deadline:
                    with contextlib.suppress(ProcessLookupError):
                        os.killpg(client.pid, signal.SIGKILL)
                    client.wait()
                    self._stop()  # a running instance stuck on a file: the next call starts a fresh one
                    raise RecalcError(f"LibreOffice did not finish within {timeout:.0f} s")
                if progress is not None:
                    done = _report_started(out, stems, done, progress)
                time.sleep(0.05)
            if progress is not None:
                for i in range(done, len(stems)):
                    progress(i)
            printed.seek(0)
            return printed.read().decode("utf-8", "replace")

    def recalculate(self, workbooks: Sequence[Path | xlsx.Workbook], *, progress: Progress | None = None,
                    copied: Callable[[], None] | None = None) -> list[dict | WorkbookError]:
        """Every cell's value after a recalculation in LibreOffice, for each workbook (or the WorkbookError saying
        why it has none); all in one conversion, then any file it left out on its own, so that what LibreOffice
        prints is about that file. `copied()` once the copies are made, before LibreOffice starts on them."""
        self.require()
        with tempfile.TemporaryDirectory(prefix="planner-recalc-") as work:
            results, jobs = _jobs(workbooks, Path(work), copied)
            out = Path(work) / "csv"
            if jobs:
                positions = [job.index for job in jobs]
                printed = self._convert_all([job.copy for job in jobs], out,
                                            (lambda i: progress(positions[i])) if progress else None)
                for job in jobs:
                    found = self._read(job, out)
                    if found is None and (len(jobs) > 1 or self.keep_running):
                        printed = self.convert([job.copy], out)  # alone (by a fresh instance, had the last one died)
                        found = self._read(job, out)
                    results[job.index] = found if found is not None else WorkbookError(
                        f"LibreOffice could not open it: {_last_line(printed)}")
            return results

    def _convert_all(self, paths: list[Path], out: Path, progress: Callable[[int], None] | None) -> str:
        """One conversion of `paths`; for a call of its own (not keep_running) on several cores, one per core but one
        up to INSTANCES, side by side, each instance on its own profile converting every so many files (LibreOffice
        converts one file at a time: `planner verify` of many workbooks waits for it)."""
        count = 1 if self.keep_running else max(1, min(INSTANCES, (os.cpu_count() or 1) - 1, len(paths)))
        if count == 1:
            return self.convert(paths, out, progress=progress)
        parts = [list(range(k, len(paths), count)) for k in range(count)]
        others = [LibreOffice(timeout=self.timeout) for _ in range(count - 1)]
        done: set[int] = set()
        reported = [0]
        lock = threading.Lock()

        def in_order(i: int) -> None:  # progress said file by file in their order, as one instance says it
            with lock:
                done.add(i)
                while reported[0] in done:
                    progress(reported[0])
                    reported[0] += 1

        try:
            with ThreadPoolExecutor(max_workers=count) as pool:
                futures = [pool.submit(app.convert, [paths[i] for i in part], out,
                                       progress=(lambda n, part=part: in_order(part[n])) if progress else None)
                           for app, part in zip([self, *others], parts)]
                return "".join(future.result() for future in futures)
        finally:
            for app in others:
                app.close()

    def _read(self, job: _Job, out: Path) -> dict | WorkbookError | None:
        """The job's values from its CSV files; None when LibreOffice wrote none of them."""
        files = [out / f"{job.copy.stem}-{sheet}.csv" for sheet in job.book.sheets]
        if not any(f.exists() for f in files):
            return None
        values: dict = {}
        try:
            for sheet, path in zip(job.book.sheets, files):
                if not path.exists():
                    return WorkbookError(f"LibreOffice wrote no values for the sheet {sheet}")
                _sheet_values(values, sheet, path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            return WorkbookError(f"LibreOffice's values cannot be read: {exc}")
        return _checked(self.name, job, values)


def _report_started(out: Path, stems: list[str], done: int, progress) -> int:
    """LibreOffice converts in order: a file is done once the next one's first CSV appears."""
    names = None
    while done < len(stems) - 1:
        names = names if names is not None else {name.split("-", 1)[0] for name in os.listdir(out)}
        if stems[done + 1] not in names:
            break
        progress(done)
        done += 1
    return done


def _listening(address: str) -> bool:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
        try:
            probe.connect(address)
            return True
        except OSError:
            return False


def _tiny_workbook(path: Path) -> None:
    """A workbook with one formula, to load LibreOffice's xlsx import and CSV export before the first real one."""
    import xlsxwriter

    book = xlsxwriter.Workbook(str(path))
    book.add_worksheet("Warm-up").write_formula("A1", "=21*2", None, 42)
    book.close()


# Gnumeric ------------------------------------------------------------------------------------------------------------
# A cell holding a value or a formula (its <f>, <v> or <is> follows), and any cell element
_FILLED_CELL = re.compile(rb'<c\b[^>]*?\br="([A-Z]{1,3})([0-9]{1,7})"[^>]*>\s*<(?:f|v|is)\b')
_ANY_CELL, _CELL_WITH_REF = re.compile(rb"<(?:[\w.-]+:)?c[\s/>]"), re.compile(rb'<c\b[^>]*?\br="')


def _origins(job: _Job) -> dict[str, tuple[int, int]]:
    """Where Gnumeric's CSV of each sheet starts: it writes the used range, from the first row and the first column
    that hold a value or a formula, not from A1. Found in the copy's XML (a fraction of the time reading its cells
    takes; benchmarks/README.md), or from its cells where a cell lacks its reference or the XML uses a prefix."""
    origins: dict[str, tuple[int, int]] = {}
    with xlsx.opened(job.copy) as archive:
        for sheet, part in job.book.parts.items():
            data = archive.read(part) if part in archive.NameToInfo else b""
            if len(_ANY_CELL.findall(data)) != len(_CELL_WITH_REF.findall(data)):
                return _origins_of(xlsx.read(job.copy).cells)
            filled = set(_FILLED_CELL.findall(data))
            if filled:
                origins[sheet] = (min(int(row) for _, row in filled),
                                  min(xlsx.column_number(column.decode()) for column in {c for c, _ in filled}))
    return origins


def _origins_of(cells) -> dict[str, tuple[int, int]]:
    origins: dict[str, tuple[int, int]] = {}
    for sheet, ref in cells:
        column, row = xlsx.split(ref)
        first = origins.get(sheet)
        origins[sheet] = (row, column) if first is None else (min(first[0], row), min(first[1], column))
    return origins


class Gnumeric(Application):
    """Gnumeric's ssconvert: one process per workbook, several side by side."""

    name, product, program, package = "Gnumeric", "Gnumeric", "ssconvert", "gnumeric"

    def __init__(self, *, timeout: float = TIMEOUT, jobs: int | None = None):
        self.timeout = timeout  # s per workbook
        self.jobs = jobs or os.cpu_count() or 2
        self.flags = ["--recalc"]  # without it Gnumeric keeps the cached values (the canary would say so)

    def find(self) -> str | None:
        return find_ssconvert()

    def recalculate(self, workbooks: Sequence[Path | xlsx.Workbook], *, progress: Progress | None = None,
                    copied: Callable[[], None] | None = None) -> list[dict | WorkbookError]:
        ssconvert = self.require()
        with tempfile.TemporaryDirectory(prefix="planner-recalc-") as work:
            results, jobs = _jobs(workbooks, Path(work), copied)

            def run(job: _Job) -> None:
                job.result = self._convert(ssconvert, job, Path(work))
                if progress is not None:
                    progress(job.index)

            with ThreadPoolExecutor(max_workers=self.jobs) as pool:
                for future in [pool.submit(run, job) for job in jobs]:
                    future.result()
            for job in jobs:
                results[job.index] = job.result
            return results

    def _convert(self, ssconvert: str, job: _Job, work: Path) -> dict | WorkbookError:
        out = work / f"{job.copy.stem}-csv"
        out.mkdir()
        command = [ssconvert, *self.flags, "-S", "-T", "Gnumeric_stf:stf_assistant", "-O", GNUMERIC_CSV,
                   str(job.copy), str(out / "%n.csv")]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=self.timeout,
                                  env={**os.environ, "LC_ALL": "C.UTF-8"}, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired as exc:
            raise RecalcError(f"Gnumeric did not finish within {self.timeout:.0f} s") from exc
        if done.returncode != 0 or not (out / "0.csv").exists():
            return WorkbookError(f"Gnumeric could not open it: {_last_line(done.stdout + done.stderr)}")
        origins = _origins(job)
        values: dict = {}
        try:
            for n, sheet in enumerate(job.book.sheets):
                path = out / f"{n}.csv"
                if not path.exists():
                    return WorkbookError(f"Gnumeric wrote no values for the sheet {sheet}")
                row, column = origins.get(sheet, (1, 1))
                _sheet_values(values, sheet, path.read_text(encoding="utf-8"), row, column)
        except (ValueError, UnicodeDecodeError) as exc:
            return WorkbookError(f"Gnumeric's values cannot be read: {exc}")
        return _checked(self.name, job, values)
