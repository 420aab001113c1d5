"""`planner audit` and `planner verify`: is a workbook still the planner's, and do its numbers follow its inputs?

The workbook's inputs and Catalog are read back into a scenario (inputs outside their limits are reported and set
aside); a workbook is generated afresh from that scenario, in memory; then, cell by cell:
- every input within its allowed values;
- every formula the planner writes still there (not overwritten by a constant) and unchanged;
- no error value (#REF!, #DIV/0!, #NAME?, #VALUE!, …) anywhere;
- every cached result present and equal to the engine's (a file saved without recalculation, or edited by hand,
  shows other numbers in every viewer that does not recalculate);
- after a recalculation in LibreOffice (or Gnumeric), every formula cell equal to the engine (relative 1e-9);
- every sheet present.
Each workbook's sheets and names are read first, for the spreadsheet application to start on at once; its cells are
read once (planner/xlsx.py) and checked while it recalculates.
"""

from __future__ import annotations

import math
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence


from planner import __version__, recalc, xlsx
from planner.engine import compute
from planner.engine.shared import NoLayout
from planner.engine.shared import TooManyGPUs
from planner.roundtrip import INPUT_SHEETS, WorkbookData, logical, workbook_data
from planner.scenario import ScenarioError
from planner.scenario.errors import cut, quoted
from planner.workbook.kit import NO_FILE, as_written, unguarded
from planner.workbook import build

REL_TOL = 1e-9
ERRORS = ("#NULL!", "#DIV/0!", "#VALUE!", "#REF!", "#NAME?", "#NUM!", "#N/A", "#GETTING_DATA", "Err:")
KINDS = {  # finding kind → its heading in the report, in report order
    "input": "Inputs outside their allowed values",
    "formula input": "Input cells that hold a formula (its cached value was read as the input)",
    "name": "Defined names that no longer point where the planner put them",
    "foreign": "Parts the planner does not write",
    "sheet": "Sheets",
    "replaced": "Formulas overwritten by a constant",
    "changed": "Formulas changed",
    "added": "Formulas the planner does not write",
    "error": "Error values",
    "uncalculated": "Saved without recalculation",
    "stale": "Cached results that do not follow the inputs",
    "recalculated": "After recalculation in {app}",
}
IMPORT_REFUSES = ("formula input", "name", "foreign", "sheet")  # what `planner import` refuses (all but "name" and
# a missing sheet taken with --take-cached)
FOREIGN_PARTS = {  # a part's name (its start) → what it is
    "xl/vbaProject.bin": "a VBA project (macros): the workbook was saved as .xlsm",
    "xl/externalLinks/": "an external link: a formula reads another workbook",
    "xl/connections.xml": "a data connection: the workbook fetches data from outside",
    "xl/embeddings/": "an embedded object",
    "xl/activeX/": "an ActiveX control",
    "xl/queryTables/": "a query table: the workbook fetches data from outside",
}


def plural(count: int, word: str, words: str | None = None) -> str:
    """"1 problem", "2 problems", "1,214 formula cells"."""
    return f"{count:,} {word if count == 1 else words or word + 's'}"


@dataclass
class Finding:
    kind: str  # a KINDS key
    where: str  # Sheet!A1, or a sheet's name
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class Report:
    path: Path
    findings: list[Finding] = field(default_factory=list)
    checked: int = 0  # formula cells compared
    error: str = ""  # the file could not be read as a planner workbook at all
    recalculated_in: str = ""  # the spreadsheet application that recalculated it ("": none did)
    changed: list[str] = field(default_factory=list)  # the inputs changed since generation, "Inputs!B26 (name): …"
    skipped: str = ""  # why the file is not a planner workbook to check (a batch's summary.xlsx), when it is one
    older: str = ""  # the planner version that made it, when older than this one (its cells are laid out as that
    # version laid them out: its named results are compared, not its formulas cell by cell)
    located: dict = field(default_factory=dict)  # an older version's named result → (its cell, this version's cell)

    @property
    def inputs_valid(self) -> bool:
        """Inputs outside their limits were set aside: results are then not compared with the engine's."""
        return not any(f.kind == "input" for f in self.findings)

    @property
    def ok(self) -> bool:
        return not self.error and not self.findings and self.checked > 0

    def add(self, kind: str, where: str, message: str) -> None:
        self.findings.append(Finding(kind, where, message))

    def text(self) -> str:
        """The report as a finance reader sees it."""
        if self.error:
            return f"{self.path}: cannot be audited: {self.error}"
        if self.skipped:
            return f"{self.path}: skipped: {self.skipped}"
        if self.ok:
            compared = (f"cached and recalculated in {self.recalculated_in}, equal to the engine"
                        if self.recalculated_in else "their cached results equal to the engine (not recalculated)")
            what = "named result" if self.older else "formula cell"
            how = "compared" if self.older else "unchanged"
            lines = [f"{self.path}: no problems: {plural(self.checked, what)} {how}, {compared}; every input within "
                     "its allowed values"]
        else:
            lines = [f"{self.path}: {plural(len(self.findings), 'problem')}"]
            if not self.recalculated_in:
                lines[0] += " (not recalculated)"
            for kind, heading in KINDS.items():
                found = [f for f in self.findings if f.kind == kind]
                if found:
                    heading = heading.format(app=self.recalculated_in or "a spreadsheet application")
                    lines += [f"  {heading} ({len(found)})"] + [f"    {f}" for f in found[:50]]
                    if len(found) > 50:
                        lines.append(f"    … and {len(found) - 50} more")
            if not self.inputs_valid:
                compared = "Cached and recalculated results were" if self.recalculated_in else \
                    "Cached results were"
                lines.append(f"  {compared} not compared with the engine: an input is outside its allowed values "
                             "(the formulas, names and sheets were checked, with its value when generated standing "
                             "in)")
        if self.changed:
            lines += [f"  Inputs changed since the workbook was generated ({len(self.changed)})"]
            lines += [f"    {line}" for line in self.changed[:50]]
            if len(self.changed) > 50:
                lines.append(f"    … and {len(self.changed) - 50} more")
        if self.older:
            lines.insert(1, f"  Made by planner {self.older}, an older version than {__version__}: its inputs and "
                            "named results are compared, not its formulas cell by cell")
        return "\n".join(lines)


def same(expected, got) -> bool:
    """Equal within REL_TOL for numbers; exactly equal for text and TRUE/FALSE; "" equal to an empty cell.
    LibreOffice has no logical type: a TRUE/FALSE cell without a boolean number format comes back as 1 or 0."""
    if isinstance(expected, bool):
        return got is expected or (type(got) is int and got == int(expected))
    if isinstance(got, bool):
        return False
    if expected == "" and got is None:  # a formula giving "" reads back as an empty cell
        return True
    if isinstance(expected, (int, float)) and isinstance(got, (int, float)):
        return math.isclose(expected, got, rel_tol=REL_TOL, abs_tol=1e-12)
    return expected == got


def shape(formula: str) -> tuple:
    """A formula's meaning, spelled as LibreOffice or Excel may re-save it: numbers as numbers (1e9 =
    1000000000), names in capitals, TRUE() as TRUE, no _xlfn. prefixes, no spaces."""
    from openpyxl.formula.tokenizer import Tokenizer, TokenizerError  # only for a formula an application re-saved

    try:
        items = Tokenizer(formula).items
    except TokenizerError:  # an unterminated string or bracket: compared as written
        return (formula,)
    tokens = []
    for token in items:
        if token.type == "WHITE-SPACE":
            continue
        value = token.value.replace("_xlfn.", "")
        if token.type == "OPERAND" and token.subtype == "NUMBER":
            tokens.append(float(value))
        elif token.type == "OPERAND" and token.subtype == "TEXT":
            tokens.append(value)
        else:
            tokens.append(value.upper().replace("'", ""))
    for i in range(len(tokens) - 1):  # TRUE() and FALSE() → TRUE and FALSE
        if tokens[i] in ("TRUE(", "FALSE(") and tokens[i + 1] == ")":
            tokens[i], tokens[i + 1] = tokens[i][:-1], None
    return tuple(t for t in tokens if t is not None)


def _scenario(found: WorkbookData, report: Report):
    """The workbook's scenario; each input outside its limits is reported with its cell and set aside: its value when
    the workbook was generated stands in (Inputs' "When generated" column), else its default (a Catalog value: the
    shipped one); a list item or entry that still fails is left out whole, so the rest can still be compared."""
    where, path = found.where, found.source
    tried: set = set()
    reported: set = set()
    own = {key for _, key in found.problems}
    for _ in range(50):
        try:
            return found.scenario()
        except ScenarioError as exc:
            if len(exc.keys) != len(exc.problems):
                raise
            for line, key in zip(exc.problems, exc.keys):
                key = tuple(key)
                if key in own:  # the workbook's own problem names its cell first
                    cell, _, message = line.removeprefix(f"{path}: ").partition(": ")
                else:
                    cell = next((where[key[:n]] for n in range(len(key), 0, -1) if key[:n] in where), str(path))
                    message = line.split(f"{cell}: ", 1)[-1].removeprefix(f"{path}: ")
                if (cell, message) not in reported:
                    reported.add((cell, message))
                    report.add("input", cell, message)
                if key in own:  # the workbook's own problem (an id typed twice): the first row is already read
                    found.problems = [(text, k) for text, k in found.problems if k != key]
                    continue
                _set_aside(found, key, tried)
    raise ScenarioError([f"{path}: its inputs cannot be read as a scenario"])


def _set_aside(found: WorkbookData, key: tuple, tried: set) -> None:
    """An input that fails: first its value when generated stands in, then its default (the key removed), then the
    item or entry holding it is removed."""
    if key not in tried and key in found.as_generated:
        tried.add(key)
        _put(found.data, key, found.as_generated[key])
        return
    while ("dropped", key) in tried and len(key) > 1:
        key = key[:-1]
    tried.add(("dropped", key))
    _drop(found.data, key)


def _drop(data: dict, key: tuple) -> None:
    """Remove the value at a key path, so its default stands in."""
    node = data
    for part in key[:-1]:
        found = isinstance(node, dict) and part in node or isinstance(node, list) and isinstance(part, int) \
            and part < len(node)
        if not found:
            return
        node = node[part]
    if key and isinstance(node, dict):
        node.pop(key[-1], None)
    elif key and isinstance(node, list) and isinstance(key[-1], int) and key[-1] < len(node):
        node.pop(key[-1])


def _put(data: dict, key: tuple, value) -> None:
    node = data
    for part in key[:-1]:
        node = node[part] if isinstance(node, list) else node.setdefault(part, {})
    if isinstance(node, list):
        if key[-1] < len(node):
            node[key[-1]] = value
    else:
        node[key[-1]] = value


def read_data(book: xlsx.Workbook) -> WorkbookData:
    """What a planner workbook's inputs and Catalog hold; WorkbookError, in one line, when they cannot be read."""
    recalc.canary(book)
    try:
        return workbook_data(book)
    except ScenarioError as exc:  # what no log or scenario holds (a Requests sheet edited): the cell it names
        raise xlsx.WorkbookError("; ".join(line.removeprefix(f"{book.path}: ") for line in exc.problems)) from None
    except (OSError, KeyError, ValueError) as exc:
        if isinstance(exc, xlsx.WorkbookError):
            raise
        raise xlsx.WorkbookError(f"not a planner workbook, or a damaged one: {exc}") from None


def inspect(path: Path, book: xlsx.Workbook | None = None,
            found: WorkbookData | None = None) -> tuple[Report, object | None]:
    """Everything but the recalculation: inputs, sheets, formulas, error values, cached results. Returns the report
    and the freshly generated Book (None when the file cannot be read); `book` is the file when already read, `found`
    its data (read_data)."""
    report = Report(Path(path))
    made = _generated(report, book, found)
    if made is None:
        return report, None
    book, found, expected = made
    texts, values, sheets = book.formulas(), book.values(), book.sheets
    report.older = made_by(values)
    if report.older:
        _named_results(report, book, values, expected)
        return report, expected
    _structure(report, book, found, expected)
    for (sheet, cell), formula in expected.texts.items():
        if sheet not in sheets:
            continue
        where = f"{sheet}!{cell}"
        report.checked += 1
        saved = texts.get((sheet, cell))
        value = values.get((sheet, cell))
        if saved is None:
            report.add("replaced", where, f"the formula {_shown(formula)} was overwritten by {quoted(value)}")
            continue
        # as the planner wrote it (a string compare), else as an application may respell it (tokenized: slower)
        if saved != formula and saved != as_written(formula) and shape(saved) != shape(formula):
            now, planned = _difference(_as_typed(saved), _as_typed(formula))
            report.add("changed", where, f"the formula is now {now}; the planner writes {planned}")
        if value is None and expected.formulas[(sheet, cell)] not in ("", None):
            report.add("uncalculated", where, "no cached result: the file was saved without recalculating")
        elif report.inputs_valid and not _is_error(value) and not same(expected.formulas[(sheet, cell)], value):
            report.add("stale", where, f"shows {value!r}, but its inputs give {expected.formulas[(sheet, cell)]!r}")
    typed_in = {address for address, *_ in found.formulas}
    for (sheet, cell), formula in texts.items():
        if (sheet, cell) not in expected.texts and logical(formula) is None and f"{sheet}!{cell}" not in typed_in:
            if sheet in INPUT_SHEETS:
                report.add("formula input", f"{sheet}!{cell}", f"holds the formula {_shown(formula)}, where the "
                                                               f"planner writes a value (its cached value: "
                                                               f"{quoted(values.get((sheet, cell)))})")
            else:
                report.add("added", f"{sheet}!{cell}", f"holds the formula {_shown(formula)}")
    for (sheet, cell), value in values.items():
        if _is_error(value):
            report.add("error", f"{sheet}!{cell}", f"shows the error {value}")
    _group_uncalculated(report)
    return report, expected


def _generated(report: Report, book: xlsx.Workbook | None, found: WorkbookData | None):
    """The file's cells, what its inputs hold and the Book they generate; None, with the report's error (or why it
    is skipped), when the file is not a planner workbook whose inputs make a scenario."""
    try:
        book = book if book is not None else xlsx.read(report.path)
        if is_summary(book):
            report.skipped = SUMMARY
            return None
        found = found if found is not None else read_data(book)
        results = compute(_scenario(found, report), generated=found.generated_on, month_rows=found.month_rows)
        return book, found, build(results, NO_FILE, like=found)
    except xlsx.WorkbookError as exc:
        report.error = str(exc)
    except ScenarioError as exc:
        report.error = "\n".join(exc.problems)
    except NoLayout as exc:  # the workbook's inputs leave hours.mfu: layout no layout
        report.error = f"hours.mfu: {exc}"
    except TooManyGPUs as exc:  # its demand needs more GPUs than a plan may take
        report.error = f"{'.'.join(exc.key)}: {exc}"
    except (OSError, KeyError, ValueError) as exc:
        report.error = f"not a planner workbook, or a damaged one: {exc}"
    return None


def made_by(values: dict) -> str:
    """The planner version on the Cover ("planner 0.1.0 on 2026-12-02") when it is not this one; "" otherwise."""
    for (sheet, _), value in values.items():
        match = GENERATED.match(value) if sheet == "Cover" and isinstance(value, str) else None
        if match and match[1] != __version__:
            return match[1]
    return ""


GENERATED = re.compile(r"planner (\d+\.\d+\.\d+\S*) on ")


def _named_results(report: Report, book: xlsx.Workbook, values: dict, expected) -> None:
    """An older version's workbook: each named result this version writes that the file names too, its cached value
    against the engine's (the cells moved between versions; the names did not)."""
    for name, (sheet, ref) in expected.names.items():
        if ":" in ref or (sheet, ref) not in expected.formulas:
            continue
        found = book.destinations(name)
        if len(found) != 1 or ":" in found[0][1]:
            continue
        report.checked += 1
        report.located[name] = (found[0], (sheet, ref))
        value = values.get(found[0])
        if report.inputs_valid and not _is_error(value) and not same(expected.formulas[(sheet, ref)], value):
            report.add("stale", f"{found[0][0]}!{found[0][1]} ({name})",
                       f"shows {value!r}, but its inputs give {expected.formulas[(sheet, ref)]!r}")
        elif _is_error(value):
            report.add("error", f"{found[0][0]}!{found[0][1]} ({name})", f"shows the error {value}")


SUMMARY = "not a planner workbook: a batch's summary.xlsx (finished results, no formulas to check)"


def _outline(path: Path) -> xlsx.Workbook | xlsx.WorkbookError:
    try:
        return xlsx.read(path, cells=False)
    except xlsx.WorkbookError as exc:
        return exc


def is_summary(book: xlsx.Workbook) -> bool:
    """A batch's summary.xlsx (planner/workbook/summary.py): Summary, headed Scenario, then its sweeps' pivot
    sheets."""
    return _summary_outline(book) and book.cell("Summary", "A1").value == "Scenario"


def _summary_outline(book: xlsx.Workbook) -> bool:
    """What a summary's sheets and names say, its cells unread: Summary, then Sweep 1, Sweep 2 … (a two-axis
    sweep's pivot tables), and no defined name."""
    return book.sheets[:1] == ["Summary"] and book.sheets[1:] == [f"Sweep {n}" for n in range(1, len(book.sheets))] \
        and not book.names


def _structure(report: Report, book: xlsx.Workbook, found: WorkbookData, expected) -> None:
    """What is not a cell's value: inputs that hold formulas, defined names that moved, parts and sheets the
    planner does not write, sheets hidden or missing; and the inputs changed since generation (not problems)."""
    for address, name, formula, cached in found.formulas:
        report.add("formula input", f"{address} ({name})", f"holds the formula {_shown(formula)}, not a value (its "
                                                           f"cached value: {quoted(cached)})")
    for name, (sheet, ref) in expected.names.items():
        planned = f"'{sheet}'!{_absolute(ref)}"
        if name not in book.names:
            report.add("name", name, f"the defined name is missing; the planner writes it as {planned}")
        elif book.destinations(name) != [(sheet, ref)]:
            report.add("name", name, f"the defined name points at {cut(book.names[name])}; the planner writes "
                                     f"{planned}")
    for name, text in book.names.items():
        if name not in expected.names and not name.startswith("_xlnm."):
            report.add("name", name, f"a defined name the planner does not write, pointing at {cut(text)}")
    for part in book.contents:
        what = next((what for start, what in FOREIGN_PARTS.items() if part.startswith(start)), None)
        if what is not None:
            report.add("foreign", part, what)
    for name in expected.sheets:
        if name not in book.sheets:
            report.add("sheet", name, "the sheet is missing")
    for name in book.sheets:
        state = book.states.get(name, "visible")
        hidden = {"hidden": "hidden", "veryHidden": "very hidden (only a macro can show it)"}.get(state, "")
        if name not in expected.sheets:
            report.add("sheet", name, "a sheet the planner does not write" + (f", {hidden}" if hidden else ""))
        elif hidden:
            report.add("sheet", name, f"the sheet is {hidden}")
    report.changed = [f"{address}: {quoted(value)}, when generated {quoted(then)}"
                      for address, value, then in found.changed]


def _absolute(ref: str) -> str:
    return ":".join(re.sub(r"([A-Z]+)([0-9]+)", r"$\1$\2", end) for end in ref.split(":"))


def _shown(formula: str) -> str:
    """A formula as a finding quotes it: without its guard, at most 160 characters."""
    text = _as_typed(formula)
    return text if len(text) <= 160 else f"{text[:160]}… ({len(text):,} characters)"


def _as_typed(formula) -> str:
    """A formula without its guard and without the _xlfn./_xlws. prefixes a re-saving application may add: as the
    formula bar shows it."""
    return re.sub(r"_xl(?:fn|ws)\.", "", unguarded(str(formula)))


def _difference(saved: str, planned: str, context: int = 40) -> tuple[str, str]:
    """Two formulas cut to where they differ, with `context` characters either side (… where cut)."""
    start = 0
    while start < min(len(saved), len(planned)) and saved[start] == planned[start]:
        start += 1
    end = 0
    while end < min(len(saved), len(planned)) - start and saved[-1 - end] == planned[-1 - end]:
        end += 1

    def cut(text: str) -> str:
        first, last = max(0, start - context), len(text) - max(0, end - context)
        return ("…" if first else "") + text[first:last] + ("…" if last < len(text) else "")

    return _shown(cut(saved)), _shown(cut(planned))


def _is_error(value) -> bool:
    return isinstance(value, str) and value.startswith(ERRORS)


def _group_uncalculated(report: Report) -> None:
    """A file saved without recalculation misses every cached result: one line per sheet says so."""
    missing = [f for f in report.findings if f.kind == "uncalculated"]
    if len(missing) <= 3:
        return
    report.findings = [f for f in report.findings if f.kind != "uncalculated"]
    by_sheet: dict[str, int] = {}
    for finding in missing:
        sheet = finding.where.split("!")[0]
        by_sheet[sheet] = by_sheet.get(sheet, 0) + 1
    for sheet, count in by_sheet.items():
        report.add("uncalculated", sheet, f"{plural(count, 'formula cell')} {'has' if count == 1 else 'have'} no "
                                          "cached result: the file was saved "
                                          "without recalculating (open it in Excel or LibreOffice and save it)")


def compare_recalculated(report: Report, expected, values: dict, app: str) -> None:
    """Every formula cell of a workbook as `app` recalculated it, {(sheet, A1): value}, against the engine's value
    in the freshly generated Book `expected`."""
    report.recalculated_in = app
    cells = expected.formulas
    if report.older:  # its cells are laid out as its own version laid them out: its named results, by name
        cells = {there: expected.formulas[here] for there, here in report.located.values()}
    for key, engine in cells.items():
        got = values.get(key)
        if not same(engine, got):
            report.add("recalculated", f"{key[0]}!{key[1]}", f"{app} gives {got!r}, the engine {engine!r}")


def _recalculating(application, outlines: dict, found: dict, progress: Callable[[int], None] | None):
    """The application recalculating the workbooks `outlines` gives by key, in a thread of its own that this waits
    for until their copies are made; each one's values (or error) land in `found` under its key, an exception as
    found["raised"]."""
    copied = threading.Event()

    def run() -> None:
        try:
            values = application.recalculate(list(outlines.values()), copied=copied.set, progress=progress)
            found.update(zip(outlines, values))
        except BaseException as exc:  # raised again in the caller's thread
            found["raised"] = exc
        finally:
            copied.set()

    application.require()
    worker = threading.Thread(target=run, name="recalculate", daemon=True)
    worker.start()
    # the copies first: made while this thread builds the expected workbooks, they waited for it (the two share
    # Python's lock), and the application with them (benchmarks/README.md)
    copied.wait()
    return worker


def _read_each(paths: list[Path]) -> tuple[list, dict[int, WorkbookData]]:
    """Each file's cells (or the WorkbookError reading it raised), and what each planner workbook's inputs hold
    by position (a batch's summary, which inspect skips, holds none)."""
    books: list[xlsx.Workbook | xlsx.WorkbookError] = []
    data: dict[int, WorkbookData] = {}
    for i, path in enumerate(paths):
        try:
            book = xlsx.read(path)
            if not is_summary(book):
                data[i] = read_data(book)
            books.append(book)
        except xlsx.WorkbookError as exc:
            books.append(exc)
    return books, data


def _compare_all(inspected: list, recalculated: dict, app: str) -> None:
    """Each inspected workbook's recalculated values (by its position) against its expected Book; where an input is
    outside its limits, recalculated but not compared (the report says so)."""
    for i, (report, expected) in enumerate(inspected):
        found = recalculated.get(i)
        if expected is None or found is None:
            continue
        if isinstance(found, Exception):
            report.error = str(found)
        elif report.inputs_valid:
            compare_recalculated(report, expected, found, app)
        else:
            report.recalculated_in = app


def audit(paths: Sequence[Path], *, app: "str | recalc.LibreOffice | recalc.Gnumeric | None" = "libreoffice",
          progress: Callable[[Path], None] | None = None) -> list[Report]:
    """Audit each workbook on its own, its cells read once. With `app` (its name, or an application already
    made; None: no recalculation) one call of that spreadsheet application recalculates them all while the other
    checks run; `progress(path)` as each one's recalculation is done. Raises recalc.RecalcError when the
    application is missing or stalls; a file that cannot be read, or recalculated, gets its own error."""
    paths = [Path(p) for p in paths]
    application = recalc.application(app) if isinstance(app, str) else app
    try:
        # each file's sheets and names first (milliseconds), so that the application starts on them at once
        outlines = [_outline(path) for path in paths]
        readable = [i for i, book in enumerate(outlines)
                    if isinstance(book, xlsx.Workbook) and not _summary_outline(book)]
        worker, recalculated = None, {}
        if application is not None and readable:
            worker = _recalculating(application, {i: outlines[i] for i in readable}, recalculated,
                                    (lambda n: progress(paths[readable[n]])) if progress is not None else None)
        books, data = _read_each(paths)  # each one's cells, while the application recalculates
        inspected = [inspect(path, book, data.get(i)) if isinstance(book, xlsx.Workbook)
                     else (Report(path, error=str(book)), None) for i, (path, book) in enumerate(zip(paths, books))]
        if worker is not None:
            worker.join()
            if "raised" in recalculated:
                raise recalculated["raised"]
        _compare_all(inspected, recalculated, application.name if application is not None else "")
    finally:
        if isinstance(app, str) and application is not None:
            application.close()
    return [report for report, _ in inspected]
