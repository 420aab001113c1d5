"""A small kit for writing the workbook: styles, named cells, and the workbook's one shape of row: a label, a formula
with its cached value, a unit and a note.

Every sheet has the same column layout: A holds labels, then the sheet's value columns, then Unit, then Notes.
Formulas are templates over the keys of rows and columns written earlier on the same sheet:
- `{key}`: a scalar row's cell (its defined name, where it has one); on a per-column row, the same column's cell
  of a per-column row; in a records table, the same row's cell of that column.
- `{key:prev}`: in a records table, the previous row's cell of that column; the first row wraps to the last (a
  repeating day: hour 0 follows hour 23).
- `{key:range}`: the whole of a per-column row or of a records column (for SUM, MAX, COUNTIFS, PERCENTILE.INC).
- `{key:above}`: in a records table, that column from its first row to the row above (never the cell itself: a
  formula reading its own cell is a circular reference); `{key:through}`: the same through this row.
- `{column}`: on a per-column row, the column's header cell; `{label}` and `{i}` in a records table, the row's
  label cell (a number where the label is a whole number) and its 1-based position.
Anything else is written as given, so workbook-level defined names such as `model_params` read as themselves.
Per-column and records references are anchored only where they must be (B$12, $C10), so one formula reads the same
in every column or row.
"""

from __future__ import annotations

import functools
import io
import re
from dataclasses import dataclass, field
from typing import Any, Callable, NamedTuple, Sequence

import xlsxwriter
from xlsxwriter.utility import xl_col_to_name, xl_rowcol_to_cell  # noqa: F401 (re-exported)
from xlsxwriter.worksheet import CellBlankTuple as _BLANK, CellFormulaTuple

from planner.engine.values import plain
from planner.specs import (FRACTION, PLACEHOLDER, TEXT_FORMATS, Check, Column, Formula,  # noqa: F401 (the sheets'
                           KeyResult, Row, Warning, count_text, excel_fixed,  # row specs, read through the kit)
                           text_formula)
from planner.workbook import pages
from planner.units import KINDS, MONEY_DECIMALS, money_format

INPUT_BLUE = "#0000FF"
INPUT_FILL = "#FFF2CC"
CONSTANT_FILL = "#EDEDED"
SECTION_FILL = "#D9E1F2"
WARNING_RED = "#C00000"


class Styles:
    """The workbook's cell formats, made once each."""

    def __init__(self, book: "Book"):
        self._book = book
        self._cache: dict[tuple, Any] = {}
        wb = book.wb
        self.title = wb.add_format({"bold": True, "font_size": 16})
        self.subtitle = wb.add_format({"italic": True, "font_color": "#595959"})
        # the same, wrapped within column A: on a sheet printed in blocks of columns, where only column A repeats
        self.title_wrapped = wb.add_format({"bold": True, "font_size": 16, "text_wrap": True, "valign": "top"})
        self.subtitle_wrapped = wb.add_format({"italic": True, "font_color": "#595959", "text_wrap": True,
                                               "valign": "top"})
        self.section = wb.add_format({"bold": True, "bg_color": SECTION_FILL, "bottom": 1})
        self.header = wb.add_format({"bold": True, "bottom": 1, "text_wrap": True, "valign": "top"})
        self.label = wb.add_format({"valign": "top"})
        self.long_label = wb.add_format({"valign": "top", "text_wrap": True})  # longer than column A is wide
        self.number_label = wb.add_format({"valign": "top", "align": "left"})
        self.unit = wb.add_format({"valign": "top", "align": "left", "indent": 1, "font_color": "#404040",
                                   "text_wrap": True})  # a long unit wraps in its column (Sheet._wrap)
        self.note = wb.add_format({"text_wrap": True, "valign": "top", "font_color": "#595959"})
        self.text = wb.add_format({"text_wrap": True, "valign": "top"})
        self.link = wb.add_format({"font_color": "#0563C1", "underline": 1})
        self.warning = wb.add_format({"font_color": WARNING_RED, "bold": True})
        self.changed = wb.add_format({"font_color": "#C65911", "bold": True})  # an input edited since generation

    def value(self, kind: str = "number", *, input: bool = False, constant: bool = False, bold: bool = False,
              unit: str | None = "", sample: bool = False, right: bool = False):
        """A value cell's format; `unit` is written into the number format (for cells without a Unit column).
        `sample`: an input's colours on a locked cell (the Cover's colour legend), so it cannot pass for one.
        `right`: text and TRUE/FALSE right-aligned like the numbers above and below them, a long text wrapped."""
        key = (kind, input, constant, bold, unit, sample, right)
        if key not in self._cache:
            props: dict[str, Any] = {"valign": "top"}
            number_format = self._book.number_format(kind, unit)
            if number_format:
                props["num_format"] = number_format
            if kind == "bool":
                props["align"] = "center"  # TRUE/FALSE clear of the text beside them
            if kind == "words":
                props.update(text_wrap=True, indent=1)
            if right and kind in ("text", "bool"):  # right-aligned like the numbers above and below, text wrapped
                props.update(align="right", text_wrap=kind == "text")
            # a number's own cell keeps the general alignment: the number right-aligned, and the "n/a: <reason>" that
            # replaces it when its premises fail left-aligned, running on one line into the empty cells to its right
            # (right-aligned it ran left under the label, clipped to "…nfiguration meets the SLO")
            if input or sample:
                props.update(font_color=INPUT_BLUE, bg_color=INPUT_FILL, locked=not input, border=1,
                             border_color="#BFBFBF")
            if constant:
                props.update(bg_color=CONSTANT_FILL, border=1, border_color="#BFBFBF")
            if bold:
                props["bold"] = True
            self._cache[key] = self._book.wb.add_format(props)
        return self._cache[key]


# Guards: no number from a failed input ---------------------------------------------------------------------------
# Every input has a check on the Checks sheet, named ok_<input> (a Catalog block's: ok_<block prefix>; a rule that
# joins inputs: ok_<check key>). A formula cell is guarded by the checks of every input it depends on, directly or
# through other cells: =IF(ok_a,<formula>,"") for one check; for several, a cell at the foot of the Checks sheet
# holds their AND, one per set of checks (ok_group_1: =AND(ok_a,ok_b)): =IF(ok_group_1,<formula>,""). While one
# fails the cell is blank (a named result says NOT_AVAILABLE), never an error value or a plausible number, and the
# sheet's banner says why. (Spelled out in every cell, the ANDs were half the workbook's formula text.)
NOT_AVAILABLE = "n/a: see Checks"


def shown(name: str) -> str:
    """A named result where a sheet shows it again (Cover, Scenarios): what it holds, and NOT_AVAILABLE where it is
    blank (a guarded cell whose inputs fail) or an error, never an empty cell."""
    return f'=IFERROR(IF({name}="","{NOT_AVAILABLE}",{name}),"{NOT_AVAILABLE}")'


def shown_value(value: Any) -> Any:
    """What `shown` gives for a named result's engine value: NOT_AVAILABLE for a blank one."""
    return NOT_AVAILABLE if value is None or value == "" else value
BANNER = "An input fails its check: see Checks"
_STRINGS = re.compile(r'"(?:[^"]|"")*"')
_NAME = re.compile(r"(?<![A-Za-z0-9_.$!'])([a-z_][a-z0-9_]*)(?![A-Za-z0-9_(!])")
_CELL = re.compile(r"(?<![A-Za-z0-9_.$!'])(\$?[A-Z]{1,3}\$?[0-9]+)(?::(\$?[A-Z]{1,3}\$?[0-9]+))?(?![A-Za-z0-9_(!])")
_NOTHING: frozenset = frozenset()
_LOOKUP = re.compile(r"MATCH\(([a-z_][a-z0-9_]*),(catalog_[a-z_]+?)_ids,0\)")


def ok_name(key: str) -> str:
    """The defined name of a check's cell on the Checks sheet."""
    return f"ok_{key}"


_GUARD = re.compile(r"IF\((?:AND\((?:ok_[a-z0-9_]+,)*ok_[a-z0-9_]+\)|ok_[a-z0-9_]+),")


def unguarded(formula: str) -> str:
    """A formula without its guards, as a message shows it: =IF(AND(ok_a,ok_b),X,"") → =X, wherever they sit."""
    while (match := _GUARD.search(formula)) is not None:
        depth, i, quoted, comma = 1, match.end(), False, None
        while i < len(formula) and depth:
            c = formula[i]
            if c == '"':
                quoted = not quoted
            elif not quoted and c in "(,)":
                depth += {"(": 1, ")": -1}.get(c, 0)
                if c == "," and depth == 1:
                    comma = i
            i += 1
        if depth or comma is None:
            return formula
        formula = formula[:match.start()] + formula[match.end():comma] + formula[i:]
    return formula


def all_of(names) -> str:
    """A condition that holds while every named check does."""
    names = sorted(names)
    return names[0] if len(names) == 1 else f"AND({','.join(names)})"


LONGEST_AND = 900  # characters: a longer AND of checks is written in parts (no formula over 1,000 characters)


def in_parts(names, longest: int = LONGEST_AND) -> list[list[str]]:
    """Sorted names in runs whose AND(…) is at most `longest` characters: one run when the whole AND is."""
    parts: list[list[str]] = [[]]
    size = 0  # the names' characters and commas in the last run: its AND(…) is size + 5 long
    for name in sorted(names):
        if parts[-1] and size + 1 + len(name) + 5 + 1 > longest:
            parts.append([])
        size = size + 1 + len(name) if parts[-1] else len(name)
        parts[-1].append(name)
    return parts


# The workbook ---------------------------------------------------------------------------------------------------
class _NoFile:
    def __repr__(self) -> str:
        return "NO_FILE"


NO_FILE = _NoFile()  # a Book's target when only the Book is wanted (what verify compares with): no file is written


class NameClash(ValueError):
    """A named scenario's typed cell whose name (<input>_<scenario>) the workbook also gives another cell: the
    scenario `used` makes hours_mfu_used, the MFU Hours uses. `other` is that cell (Sheet!A1)."""

    def __init__(self, name: str, scenario: str, input_name: str, other: str):
        self.name, self.scenario, self.input_name, self.other = name, scenario, input_name, other
        super().__init__(f"the scenario's column for {input_name} would be named {name}, a name the workbook gives "
                         f"{other}: name the scenario otherwise")


@dataclass
class Book:
    """An XlsxWriter workbook that records every formula's cached value, every defined name and the value of every
    named input, so later cells can show text that follows them."""

    target: Any  # a path, a binary file object, or NO_FILE
    currency_symbol: str = "$"
    header: str = ""  # printed in every sheet's page header: the scenario name and date
    generated: str = ""  # the generation date shown on the Cover
    formulas: dict[tuple[str, str], Any] = field(default_factory=dict)  # (sheet, A1) → cached value
    texts: dict[tuple[str, str], str] = field(default_factory=dict)  # (sheet, A1) → formula text
    names: dict[str, tuple[str, str]] = field(default_factory=dict)  # defined name → (sheet, A1 or range)
    groups: dict[str, frozenset] = field(default_factory=dict)  # a set of checks' name (ok_group_1) → the checks
    values: dict[str, Any] = field(default_factory=dict)  # defined name → its value, for text formulas
    scenario_line: Formula | None = None  # what every sheet's second row says
    catalog_rows: dict[str, list] = field(default_factory=dict)  # Catalog ids name → the ids an edited workbook had
    as_generated: dict[str, Any] = field(default_factory=dict)  # an input's name → its value when an edited workbook
    # was generated (Inputs' "When generated" column); otherwise the value written
    held: dict[str, list] = field(default_factory=dict)  # a snapshot's name (…_snapshot) → the rows of values an
    # edited workbook holds, which a workbook compared with it keeps
    changed_cells: list = field(default_factory=list)  # (sheet, A1) of Inputs' Changed cells
    late: list = field(default_factory=list)  # cells that show a named cell written later: (sheet, row, col,
    # formula, style, name), their cached value the named cell's, once the book is closed
    sheets: dict[str, "Sheet"] = field(default_factory=dict)
    # Guards (see NOT_AVAILABLE), resolved when the book is closed, once every cell is known (a sheet may read a
    # later sheet's names): what inputs and constants need, the guarded cells waiting to be written, what each
    # formula cell needs (as the checks' names)
    needs: dict[str, frozenset] = field(default_factory=dict)
    pending: dict[tuple[str, str], "Pending"] = field(default_factory=dict)
    cell_needs: dict[tuple[str, str], frozenset] = field(default_factory=dict)
    choices: dict[str, str] = field(default_factory=dict)  # an input's name → the ids name its dropdown lists
    catalog_checks: dict[str, str | None] = field(default_factory=dict)  # Catalog block prefix → its check's name
    gates: dict[str, set] = field(default_factory=dict)  # an input's check → checks of rules about that input
    headline: set = field(default_factory=set)  # the named results the rules' checks gate too
    alike: list = field(default_factory=list)  # cells of one formula copied across: guarded alike
    guarded_rows: dict[str, set] = field(default_factory=dict)  # a guard's condition → (sheet, row) it guards
    range_needs: dict = field(default_factory=dict)  # (sheet, first, last) → what a range's cells need
    names_needs: dict = field(default_factory=dict)  # a formula's text without its cells → what its names need
    sheet_needs: dict = field(default_factory=dict)  # a sheet → what its guarded cells need, for its banner
    scenario_cells: dict = field(default_factory=dict)  # a named scenario's typed cell's name → (scenario, input)

    def __post_init__(self):
        options = {"strings_to_formulas": False, "strings_to_urls": False, "strings_to_numbers": False}
        if not isinstance(self.target, (str, bytes)) and not hasattr(self.target, "__fspath__"):
            options["in_memory"] = True
        self.wb = xlsxwriter.Workbook(io.BytesIO() if self.target is NO_FILE else self.target, options)
        self.styles = Styles(self)

    def number_format(self, kind: str, unit: str | None = "") -> str | None:
        """The number format of a kind; with `unit` (None: the kind's own) the unit is shown in the cell."""
        if kind in MONEY_DECIMALS:
            base = money_format(kind, self.currency_symbol)
            return base if not unit else f'{base}" {unit}"'
        return KINDS[kind].with_unit(unit) if unit != "" else KINDS[kind].format

    def sheet(self, name: str, columns: Sequence[tuple[str, float]] = (("Value", 16),), *, label_width=44,
              note_width=40, unit_width=12, keys: Sequence[str] = (), beside: bool = False) -> "Sheet":
        """A sheet in the common layout; `keys` name its value columns, so a scalar row can sit under the heading
        it belongs to (Row.at). `beside`: scalar rows hold their value in column B with the unit and the note
        beside it (a sheet whose tables run wider than a page), not past the last value column."""
        ws = self.wb.add_worksheet(name)
        ws._prepare_formula = _formula_as_written
        self.sheets[name] = Sheet(self, ws, name, list(columns), label_width=label_width, note_width=note_width,
                                  unit_width=unit_width, keys=list(keys), beside=beside)
        return self.sheets[name]

    def needs_of(self, sheet: str, formula: str) -> frozenset:
        """The checks a formula's value depends on: those of the named inputs it reads, of the formula cells it
        reads (by name or, on its own sheet, by address), and of the Catalog rows it looks up (the chosen entry's
        row through the input that chooses it, else every row of the block)."""
        text = _STRINGS.sub('""', formula) if '"' in formula else formula
        parts = _CELL.split(text)  # the text between references, then each reference's two corners
        if len(parts) == 1:
            return self.needs_of_names(text)
        found = set(self.needs_of_names("#".join(parts[::3])))
        for i in range(1, len(parts), 3):
            first, last = parts[i], parts[i + 1]
            if "$" in first:
                first = first.replace("$", "")
            if last is None:
                found |= self.needs_of_cell(sheet, first)
            else:
                found |= self.needs_of_range(sheet, first, last.replace("$", "") if "$" in last else last)
        return frozenset(found)

    def needs_of_names(self, text: str) -> frozenset:
        """What the names in a formula (its strings emptied, its cell references each written as #) need: reckoned
        once for the many cells of a row or column that read the same names (Book.needs_of)."""
        if text in self.names_needs:
            return self.names_needs[text]
        found: set = set()
        chosen = {prefix: self.needs[name] for name, prefix in _LOOKUP.findall(text)
                  if self.choices.get(name) == f"{prefix}_ids"}  # an input whose check covers its row
        for name in _NAME.findall(text):
            if name in self.needs:
                found |= self.needs[name]
            elif name.startswith("catalog_"):
                prefix = max((p for p in self.catalog_checks if name.startswith(p + "_")), key=len, default=None)
                if prefix in chosen:
                    found |= chosen[prefix]
                elif prefix is not None and self.catalog_checks[prefix]:
                    found.add(self.catalog_checks[prefix])
            elif name in self.names:
                named_sheet, ref = self.names[name]
                first, _, last = ref.partition(":")
                found |= self.needs_of_range(named_sheet, first, last or first)
        self.names_needs[text] = frozenset(found)
        return self.names_needs[text]

    def needs_of_range(self, sheet: str, first: str, last: str) -> frozenset:
        """What the cells of a range (its corners, without $) need; a range of many cells is reckoned once (a
        year's SUMIFS over every month row reads the same ranges as the next year's)."""
        if first == last:
            return self.needs_of_cell(sheet, first)
        key = (sheet, first, last)
        if key not in self.range_needs:
            self.range_needs[key] = frozenset().union(*(self.needs_of_cell(sheet, cell)
                                                        for cell in _cells(first, last)))
        return self.range_needs[key]

    def needs_of_cell(self, sheet: str, cell: str) -> frozenset:
        """What a guarded formula cell needs (computed once); nothing for a value, an input or an unguarded cell."""
        key = (sheet, cell)
        needs = self.cell_needs.get(key)
        if needs is not None:
            return needs
        waiting = self.pending.get(key)
        if waiting is None:
            return _NOTHING
        self.cell_needs[key] = _NOTHING  # a circular reference is refused by the spreadsheet anyway
        if isinstance(waiting.needs, tuple):  # as another cell of its column needs (Sheet.records, `alike`)
            needs = self.needs_of_cell(*waiting.needs)
        else:
            needs = waiting.needs if waiting.needs is not None else self.needs_of(sheet, waiting.formula)
        if waiting.gated:
            needs = needs | {gate for need in needs for gate in self.gates.get(need, ())}
        self.cell_needs[key] = needs
        return needs

    def write_guarded(self) -> None:
        """Every guarded formula, written with its guard now that every cell is known."""
        self.range_needs.clear()  # ranges and names reckoned while sheets were written may have held cells
        self.names_needs.clear()  # written later
        for cells in self.alike:
            needs = frozenset().union(*(self.needs_of_cell(*key) for key in cells))
            for key in cells:
                self.cell_needs[key] = needs
        conditions: dict[frozenset, str] = {}
        for (sheet, cell), waiting in self.pending.items():
            needs = self.needs_of_cell(sheet, cell)
            self.sheet_needs.setdefault(sheet, set()).update(needs)
            formula = waiting.formula
            if needs:
                condition = conditions.get(needs) or conditions.setdefault(needs, self.group(needs))
                self.sheets[sheet].guards.add(condition)
                formula = f'=IF({condition},{formula[1:]},"{waiting.fallback}")'
                self.guarded_rows.setdefault(condition, set()).add((sheet, waiting.row))
            self.texts[(sheet, cell)] = formula
            self.sheets[sheet].write_formula(waiting.row, waiting.col, formula, waiting.style,
                                             self.formulas[(sheet, cell)])

    def group(self, needs: frozenset) -> str:
        """The name a guard reads for a set of checks: the check's own, or that of the cell of their AND (written at
        the foot of the Checks sheet by write_groups; without a Checks sheet, the AND itself)."""
        if len(needs) == 1:
            return next(iter(needs))
        if "Checks" not in self.sheets:
            return all_of(needs)
        name = f"ok_group_{len(self.groups) + 1}"
        self.groups[name] = needs
        return name

    def write_groups(self) -> None:
        """Each set of checks that guards formulas, as a row of the Checks sheet below its checks (outside the
        master check's range: a set is not a check of its own)."""
        if not self.groups:
            return
        sheet = self.sheets["Checks"]
        sheet.skip()
        sheet.section("Sets of checks that guard results: a result shows a number while its set is TRUE")
        checked = []
        long: dict[str, tuple[int, list[str], list[list[str]]]] = {}  # still too long: its row, sets, parts
        for name, needs in self.groups.items():
            passes = all(self.formulas.get(self.names.get(check)) is True for check in needs)
            checks = sorted(check.removeprefix("ok_") for check in needs)
            named = ", ".join(checks[:3]) + (f" and {len(checks) - 3} more" if len(checks) > 3 else "")
            label = f"Set {name.removeprefix('ok_group_')} ({name}): {named}"
            within, left = self.sets_within(name)
            parts = in_parts(left, LONGEST_AND - sum(len(other) + 1 for other in within))
            if len(parts) > 1:
                long[name] = (sheet.row_index, within, parts)
            checked.append((sheet.row_index, label, passes))
            sheet.row(Row(name.removeprefix("ok_"), label, formula=f"={all_of(within + left)}", kind="bool",
                          unit="", name=name, warn="false", note=self.guarded_results(name)), passes)
        if long:  # below the sets (outside their count): each long set's parts, which its row ANDs
            sheet.skip()
            sheet.section("The longest sets in parts: each set's row is the AND of its parts")
            col = sheet.own_col
            for name, (row, within, parts) in long.items():
                cells = []
                for k, part in enumerate(parts, start=1):
                    passes = all(self.formulas.get(self.names.get(check)) is True for check in part)
                    cells.append(sheet.row(Row(f"{name}_part_{k}", f"{name}, part {k} of {len(parts)}: "
                                               f"{part[0].removeprefix('ok_')} … {part[-1].removeprefix('ok_')}",
                                               formula=f"={all_of(part)}", kind="bool", unit="", warn="false"),
                                           passes).replace("$", ""))
                passes = self.formulas[(sheet.name, xl_rowcol_to_cell(row, col))]
                sheet.formula(row, col, f"=AND({','.join(within + [c + '=TRUE' for c in cells])})", passes,
                              self.styles.value("bool"))
        sets_end = sheet.row_index
        if sheet.sets_printed is not None:  # what the Checks sheet prints of the sets (checks.sets)
            sheet.sets_printed(sheet, checked)
        sheet.row_index = sets_end

    def sets_within(self, name: str) -> tuple[list[str], list[str]]:
        """A set too long for one AND (in_parts) read as the largest other sets within it, each a smaller set (no
        circle), and the checks they leave: one short AND where rows of its parts stood (issue 42: 162 rows fewer
        in the default workbook); a set that fits one AND, its checks."""
        needs = self.groups[name]
        if sum(len(check) + 1 for check in needs) + 5 <= LONGEST_AND:  # in_parts(needs) is one run
            return [], sorted(needs)
        left, within = set(needs), []
        smaller = [(other, checks) for other, checks in self.groups.items() if len(checks) > 1 and checks < needs]
        while left:  # the first of the largest overlaps, as max() finds it
            best, most = None, 1
            for other, checks in smaller:
                if len(checks) > most and len(overlap := checks & left) > most:
                    best, most = (other, checks), len(overlap)
            if best is None:
                break
            within.append(best[0])
            left -= best[1]
        return within, sorted(left)

    def guarded_results(self, condition: str) -> str:
        """What a set of checks guards, in words: on each sheet, the rows (by their labels) it blanks."""
        rows: dict[str, list[int]] = {}
        for sheet, row in sorted(self.guarded_rows.get(condition, ())):
            rows.setdefault(sheet, []).append(row)
        parts = []
        for sheet, numbers in rows.items():
            labels = [label for label in dict.fromkeys(self.sheets[sheet].long_labels.get(r) for r in numbers)
                      if label]
            shown = "; ".join(labels[:2]) + (f" and {len(labels) - 2} more" if len(labels) > 2 else "")
            parts.append(f"{sheet}: {shown}" if shown else f"{sheet}: {len(numbers)} rows")
        return "Guards " + ". ".join(parts) if parts else ""


    def reads_input(self, name: str, needs: frozenset, validation: dict) -> None:
        """What a formula reading the input `name` needs (its checks), and the Catalog ids its dropdown lists."""
        self.needs[name] = needs
        if validation.get("validate") == "list" and str(validation.get("source", "")).startswith("=catalog_"):
            self.choices[name] = validation["source"][1:]

    def define(self, name: str, sheet: str, ref: str, value: Any = None, *,
               scenario: tuple[str, str] | None = None) -> None:
        """A workbook-level name for a cell or range; `scenario` (a named scenario, the input's name) when it names
        that scenario's typed cell of the input, whose name the scenario's name ends (NameClash)."""
        if scenario is not None:
            self.scenario_cells[name] = scenario
        if name in self.names:
            if name in self.scenario_cells:
                other = self.names[name] if scenario is not None else (sheet, ref.replace("$", ""))
                raise NameClash(name, *self.scenario_cells[name], f"{other[0]}!{other[1]}")
            raise ValueError(f"defined name {name} written twice")
        self.wb.define_name(name, f"='{sheet}'!{_absolute(ref)}")
        self.names[name] = (sheet, ref.replace("$", ""))
        if value is not None:
            self.values[name] = value

    def close(self) -> None:
        """Every guard and banner written; then the file, unless the target is NO_FILE (XlsxWriter's assembling
        and zipping of the sheets is two fifths of a build)."""
        for sheet, row, col, formula, style, name in self.late:
            value = self.formulas.get(self.names[name]) if name in self.names else None
            self.sheets[sheet].formula(row, col, formula, shown_value(value), style)
        self.write_guarded()
        for sheet in self.sheets.values():  # a banner too long as the AND of its sheet's guards: a set of its own
            needs = self.sheet_needs.get(sheet.name)
            if sheet.guarded and sheet.banner_row is not None and needs and \
                    min(len(all_of(needs)), len(all_of(sheet.guards))) > LONGEST_AND:
                sheet.guards = {self.group(frozenset(needs))}
        self.write_groups()
        for sheet in self.sheets.values():
            sheet.finish()
        if self.target is not NO_FILE:
            self.wb.close()


TEMPLATE = re.compile(r"\{(\w+)(?::(prev|range|above|through))?\}")


@functools.lru_cache(maxsize=4096)
def _template_parts(template: str) -> tuple:
    """A template split once into its literal text and its tokens: (text, (key, modifier), text, …, text)."""
    parts: list = []
    at = 0
    for match in TEMPLATE.finditer(template):
        parts += [template[at:match.start()], match.groups()]
        at = match.end()
    return (*parts, template[at:])


_a1 = functools.lru_cache(maxsize=1 << 16)(xl_rowcol_to_cell)  # the same few addresses are written again and again


class Pending(NamedTuple):  # a tuple: made for every formula cell, faster than a frozen dataclass (benchmarks/)
    """A guarded formula cell, written when the book closes (Book.write_guarded)."""

    row: int
    col: int
    formula: str
    style: Any
    needs: frozenset | tuple | None  # given by the writer, (sheet, A1) of a cell that needs the same, or None: read
    # from the formula
    fallback: str
    gated: bool


def _runs(rows) -> list[tuple[int, int]]:
    """The runs of consecutive rows among `rows`, each as (its first, its last)."""
    present = set(rows)
    ordered = sorted(present)
    return list(zip([row for row in ordered if row - 1 not in present],
                    [row for row in ordered if row + 1 not in present]))


def _cells(first: str, last: str):
    """The A1 addresses of a range, without $."""
    from xlsxwriter.utility import xl_cell_to_rowcol

    (r1, c1), (r2, c2) = xl_cell_to_rowcol(first.replace("$", "")), xl_cell_to_rowcol(last.replace("$", ""))
    for r in range(min(r1, r2), max(r1, r2) + 1):
        for c in range(min(c1, c2), max(c1, c2) + 1):
            yield _a1(r, c)


@dataclass
class Place:
    """Where a key's cells are: one cell, a per-column row (row, first..last column) or a records column
    (col, first..last row). 0-based."""

    shape: str  # "cell" | "row" | "column"
    row: int
    col: int
    last_row: int
    last_col: int
    name: str | None = None  # a cell's defined name: templates read it by name


@dataclass
class Sheet:
    """One worksheet in the common layout: label | value columns | Unit | Notes."""

    book: Book
    ws: Any
    name: str
    columns: list[tuple[str, float]]
    label_width: float
    note_width: float
    unit_width: float
    row_index: int = 0
    header_row: int = 0
    places: dict[str, Place] = field(default_factory=dict)
    sections: list[int] = field(default_factory=list)  # rows where a section starts: pages break only there
    flowing: set[int] = field(default_factory=set)  # sections that run on from the page before (pages.page_breaks)
    heights: dict[int, float] = field(default_factory=dict)  # rows taller than the default, in points
    label_chars: int = 0  # the longest label written in column A
    guarded: bool = True  # formulas are guarded by the checks of the inputs they need (not on Checks, Catalog, …)
    money_na: bool = False  # a money cell whose inputs fail reads NOT_AVAILABLE, not "" (where finance reads the
    # money, so a link or a SUM of it never reads 0 as a figure)
    scalar_col: int | None = None  # where scalar rows and named values go (None: the last value column)
    banner_row: int | None = None  # where the title leaves room for "an input fails its check"
    keys: list[str] = field(default_factory=list)  # the value columns' keys, for Row.at
    widths: dict[int, float] = field(default_factory=dict)  # each column's width, in characters
    charts: list[tuple[int, int]] = field(default_factory=list)  # (first row, rows) of each chart: never split
    title_rows: int = 2  # the rows printed at the top of every page: the titles, and a heading row under them
    block_starts: list[int] = field(default_factory=list)  # columns a printed block of columns best starts at
    hidden: set[int] = field(default_factory=set)  # rows grouped out of sight: empty as generated, not printed
    hidden_cols: set[int] = field(default_factory=set)  # columns out of sight (Catalog's snapshots): never printed
    grouped_cols: set[int] = field(default_factory=set)  # hidden columns grouped (group_columns): a + shows them
    long_labels: dict[int, str] = field(default_factory=dict)  # row → its label, wrapped where column A is narrower
    notes: dict[int, str] = field(default_factory=dict)  # row → its note in the Notes column
    prose: dict[int, str] = field(default_factory=dict)  # row → a line of prose across the sheet (Sheet.text)
    validations: dict = field(default_factory=dict)  # (column, rule) → rows of unnamed input cells it validates
    warned: dict = field(default_factory=dict)  # (column, warn) → the rows of one-cell warnings (_warn_runs)
    units: dict[int, str] = field(default_factory=dict)  # row → its unit in the Unit column
    printed_cols: int | None = None  # the last column that prints (None: the last written)
    printed_rows: int | None = None  # the last row that prints (None: the last written)
    printed_from: int = 0  # the first row that prints below the titles (a summary block: print_sections)
    section_titles: dict[int, str] = field(default_factory=dict)  # a section's row → its title
    sets_row: int | None = None  # Checks: where the sets of checks' printed lines go (Book.write_groups)
    sets_printed: Any = None  # Checks: (sheet, [(row, label, passes) of each set]) → None, writes those lines
    checked: list = field(default_factory=list)  # Checks: (row, label, passes) of each check of its list
    subtitle: tuple[int, str] | None = None  # its row and text (title), wrapped across the page where long
    guards: set[str] = field(default_factory=set)  # the checks and sets of checks its formulas are guarded by
    numbers: dict[tuple[int, Any], list] = field(default_factory=dict)  # (column, format) → [the largest number
    # written, whether one was negative]: how wide the column must be (never "###")
    beside: bool = False  # scalar rows in column B, their unit in C and their note from D (Book.sheet)
    title_text: str = ""
    headings: list[int] = field(default_factory=list)  # the rows of column headings (heading_row)

    def __post_init__(self):
        for i, (_, width) in enumerate(self.columns, start=1):
            self.set_width(i, width)
        if self.beside:
            self.scalar_col = 1
        else:
            self.set_width(self.unit_col, self.unit_width)
            self.set_width(self.note_col, self.note_width)
        self.ws.set_landscape()
        self.ws.set_paper(9)  # A4
        self.ws.fit_to_pages(1, 0)
        self.ws.set_header(f"&L{_header_text(self.book.header)}&R&A")
        self.ws.set_footer("&CPage &P of &N")
        self.protect()

    def protect(self, *, insert_rows: bool = False) -> None:
        """Protected without a password, so a stray keystroke cannot overwrite a formula; `insert_rows` lets a row
        be inserted (Catalog: inside a block, which its names then cover)."""
        self.ws.protect("", {"select_locked_cells": True, "select_unlocked_cells": True, "format_columns": True,
                             "format_rows": True, "insert_rows": insert_rows})

    # Layout -----------------------------------------------------------------------------------------------
    @property
    def value_cols(self) -> range:
        return range(1, 1 + len(self.columns))

    @property
    def last_col(self) -> int:  # the scenario's own column
        return max(len(self.columns), 1)

    @property
    def own_col(self) -> int:  # where a scalar row or a named value is written
        return self.last_col if self.scalar_col is None else self.scalar_col

    @property
    def unit_col(self) -> int:
        return 2 if self.beside else self.last_col + 1

    @property
    def note_col(self) -> int:
        return 3 if self.beside else self.last_col + 2

    @property
    def note_end(self) -> int:
        """The Notes' last column: beside the values, the columns a note is merged over (note_width wide)."""
        if not self.beside:
            return self.note_col
        end, width = self.note_col, self.width_of(self.note_col)
        while width < self.note_width and end < self.last_col:
            end += 1
            width += self.width_of(end)
        return end

    @property
    def edge(self) -> int:
        """The sheet's last column: its value columns' or its Notes'."""
        return max(self.last_col, self.note_end)

    def row_of(self, key: str) -> int:
        return self.places[key].row

    def col_of(self, key: str) -> int:
        """The value column a key names (Sheet.keys)."""
        return 1 + self.keys.index(key)

    def set_width(self, col: int, width: float) -> None:
        hidden = {"hidden": True, "level": 1} if col in self.grouped_cols else {"hidden": True}
        self.ws.set_column(col, col, width, None, hidden if col in self.hidden_cols else None)
        self.widths[col] = width

    def hide_columns(self, first: int, last: int) -> None:
        """Columns kept out of sight and off the printed pages (a snapshot an edited workbook keeps)."""
        self.hidden_cols.update(range(first, last + 1))
        self.ws.set_column(first, last, None, None, {"hidden": True})

    def group_columns(self, first: int, last: int) -> None:
        """Helper columns a reader does not need (the pieces a formula beside them reads): grouped and hidden, the
        + above them shows them; never printed."""
        self.grouped_cols.update(range(first, last + 1))
        self.hidden_cols.update(range(first, last + 1))
        for col in range(first, last + 1):
            self.set_width(col, self.width_of(col))

    def print_sections(self, first: str, stop: str | None = None, *, charts: bool = True, notes: bool = True) -> None:
        """Print only a summary block: from the section whose title starts `first` to the row above the section
        whose title starts `stop` (None: to the end), the titles repeated above it; without `charts`, to the row
        above its first chart; without `notes`, to its last value column and its units (notes that would print on a
        page of their own). Every row stays on screen and is recalculated; only the printed pages leave the rest
        out (a print area: a print setting, not data)."""
        def row_of(title: str) -> int:
            return next(r for r, text in self.section_titles.items() if text.startswith(title))
        self.printed_from = row_of(first)
        self.printed_rows = row_of(stop) - 1 if stop is not None else None
        if not charts:
            last = self.row_index - 1 if self.printed_rows is None else self.printed_rows
            self.printed_rows = min([r - 1 for r, _ in self.charts if self.printed_from < r <= last], default=last)
        if not notes:  # the values and their units
            self.printed_cols = self.last_col if self.beside else self.unit_col

    def width_of(self, col: int) -> float:
        return self.widths.get(col, self.label_width if col == 0 else pages.DEFAULT_WIDTH)

    def repeat_through(self, row: int) -> None:
        """Print rows 1 … row (0-based) at the top of every page: the titles and the column headings under them,
        so a table that runs onto another page keeps its headings. Only the rows above the first table can be
        repeated (one range per sheet), so a sheet repeats the heading row of its columns, placed right under
        its titles."""
        self.ws.repeat_rows(0, row)
        self.title_rows = row + 1

    def heading_height(self, texts: dict[int, str]) -> float:
        """The height of a row of bold, wrapped headings ({column: text}): the most lines any of them wraps to."""
        lines = max((wrapped_lines(text, self.width_of(col)) for col, text in texts.items() if text), default=1)
        return DEFAULT_ROW * max(lines, 1)

    def skip(self, rows: int = 1) -> None:
        self.row_index += rows

    def set_height(self, row: int, points: float) -> None:
        self.ws.set_row(row, points)
        self.heights[row] = points

    def grow(self, row: int, points: float) -> None:
        """A row at least `points` tall (wrapped text in it)."""
        if points > self.heights.get(row, DEFAULT_ROW):
            self.set_height(row, points)

    def measure(self, col: int, value: float, style) -> None:
        """Note a number written in a column in a format, so the column is made wide enough to show it."""
        seen = self.numbers.get((col, style))
        if seen is None:
            self.numbers[(col, style)] = [abs(value), value < 0]
        else:
            if abs(value) > seen[0]:
                seen[0] = abs(value)
            if value < 0:
                seen[1] = True

    def hide(self, rows: Sequence[int]) -> None:
        """Rows empty as generated (a table's rows beyond what the inputs fill): grouped and hidden, so they
        neither print nor read as empty rows; the + beside them shows them (an edit that fills them)."""
        self.hidden.update(rows)

    def finish(self) -> None:
        """The banner, saying so while an input this sheet needs fails its check; column A fitted to its labels,
        every column wide enough for its numbers; the print set-up (_print_setup)."""
        if self.guarded and self.banner_row is not None:
            needs = self.book.sheet_needs.get(self.name)
            if needs:
                # the sets its formulas read (together, the checks it needs), short of the checks one by one
                shorter = min(all_of(needs), all_of(self.guards), key=len) if self.guards else all_of(needs)
                banner = f'=IF({shorter},"","{BANNER}")'
                self.ws.merge_range(self.banner_row, 0, self.banner_row, min(self.note_col, 6), "",
                                    self.book.styles.warning)
                self.write_formula(self.banner_row, 0, banner, self.book.styles.warning, "")
                cell = xl_rowcol_to_cell(self.banner_row, 0)
                self.book.formulas[(self.name, cell)] = ""
                self.book.texts[(self.name, cell)] = banner
        self._warn_runs()
        self._validate_runs()
        self._fit_widths()
        self._wrap()
        self._wrap_subtitle()
        self._hide_rows()
        self._print_setup()

    def _wrap_subtitle(self) -> None:
        """A subtitle longer than the printed page is wide (its first block of columns) wraps across it, merged,
        its row as tall as its lines: it would run past the page's edge, clipped (the API sheet's)."""
        if self.subtitle is None:
            return
        row, text = self.subtitle
        if row < self.printed_from:  # not printed (a sheet on screen only): it runs across the empty cells beside
            return
        last = self._last_printed()
        widths = [self.width_of(c) for c in range(last + 1)]
        breaks = pages.column_blocks(widths, self.block_starts)
        last = breaks[0] - 1 if breaks else last
        width = sum(w for c, w in enumerate(widths[:last + 1]) if c not in self.hidden_cols)
        lines = text_lines(text, width)
        if lines > 1 and last > 0:
            self.ws.merge_range(row, 0, row, last, text, self.book.styles.subtitle_wrapped)
            self.set_height(row, max(DEFAULT_ROW * lines, self.heights.get(row, DEFAULT_ROW)))

    def _fit_widths(self) -> None:
        """Every column wide enough for its numbers (never "###"); column A as wide as its longest label, at most
        LABEL_WIDTH; then, where that makes the sheet fit across a page at pages.PRINT_SCALE, column A and the
        Notes narrowed (their text wraps), down to pages.NARROW_LABEL and pages.NARROW_NOTE."""
        for (col, style), (largest, negative) in self.numbers.items():
            length = pages.shown_length(largest, style.num_format or None, negative)
            needed = pages.fitting_width(length, bold=bool(style.bold))
            if needed > self.width_of(col):
                self.set_width(col, needed)
        self.set_width(0, min(max(self.label_width, self.label_chars * 1.05 + 2), LABEL_WIDTH))
        widths = [self.width_of(c) for c in range(self._last_printed() + 1)]
        if self.beside or self.printed_cols not in (None, self.note_col):
            self.set_width(0, pages.narrowed(widths, None)[0])
        else:
            label, note = pages.narrowed(widths, self.note_col)
            self.set_width(0, label)
            self.set_width(self.note_col, note)

    def _last_printed(self) -> int:
        if self.printed_cols is not None:
            return self.printed_cols
        last = max(self.ws.dim_colmax or 0, self.edge)
        if self.printed_from:  # a summary block: as wide as what it and the repeated titles hold
            last_row = self.row_index - 1 if self.printed_rows is None else self.printed_rows
            rows = [*range(self.title_rows), *range(self.printed_from, last_row + 1)]
            last = max((c for r in rows for c, cell in self.ws.table.get(r, {}).items()
                        if _shows(cell) and r >= 2), default=1)
            if last >= self.note_col:  # a note merged across columns beside the values: all of them
                last = max(last, self.note_end)
        while last in self.hidden_cols:
            last -= 1
        return last

    def _wrap(self) -> None:
        """Labels longer than column A is wide wrap; rows as tall as their wrapped labels and notes."""
        label_width = self.width_of(0)
        note_width = sum(self.width_of(c) for c in range(self.note_col, self.note_end + 1))
        for row, text in self.long_labels.items():
            if len(text) * 1.05 + 2 > label_width:
                self.ws.write_string(row, 0, text, self.book.styles.long_label)
                self.grow(row, DEFAULT_ROW * text_lines(text, label_width))
        for row, note in self.notes.items():
            self.grow(row, DEFAULT_ROW * text_lines(note, note_width))
        for row, unit in self.units.items():
            self.grow(row, DEFAULT_ROW * text_lines(unit, self.width_of(self.unit_col) - 1))
        across = sum(self.width_of(c) for c in range(self.note_end + 1))
        for row, line in self.prose.items():
            self.grow(row, DEFAULT_ROW * text_lines(str(line), across))

    def _hide_rows(self) -> None:
        for r in sorted(self.hidden):
            self.ws.set_row(r, self.heights.get(r), None, {"level": 1, "hidden": True})
            if r + 1 not in self.hidden:  # the row under a group holds its + button
                self.ws.set_row(r + 1, self.heights.get(r + 1), None, {"collapsed": True})

    def _print_setup(self) -> None:
        """Fitted to one page wide where that prints at pages.PRINT_SCALE or more. Else at a fixed scale in blocks
        of columns (pages.column_blocks), column A repeated on each: the first block prints every row, a later
        block only the rows that hold something in its columns (a wide table's rows, not the rows above it), each
        run of them a print area of its own. Pages break before sections that would not fit on the rest of a
        page (pages.page_breaks), so a table and the chart under it print on one page where they fit on one."""
        widths = [self.width_of(c) for c in range(self._last_printed() + 1)]
        breaks = pages.column_blocks(widths, self.block_starts)
        last_row = max(self.row_index - 1, 0) if self.printed_rows is None else self.printed_rows
        if breaks:
            scale = pages.block_scale(widths, breaks)
            self.ws.set_print_scale(round(scale * 100))
            self.ws.repeat_columns(0)
            self._wrap_titles()
            edges = [1, *breaks, len(widths)]
            areas = [(self.printed_from, 0, last_row, edges[1] - 1)]
            for first, stop in zip(edges[1:], edges[2:]):
                rows = [r for r in self._rows_holding(first, stop - 1) if self.printed_from <= r <= last_row]
                runs = pages.runs(rows, self.sections, self.hidden)
                areas += [(top, first, bottom, stop - 1) for top, bottom in runs]
            self.ws.print_area_range = ",".join(self.ws._convert_name_area(*area) for area in areas)
        else:
            scale = pages.fitted_scale(widths)
            if self.printed_cols is not None or self.printed_rows is not None or self.printed_from:
                self.ws.print_area(self.printed_from, 0, last_row, self._last_printed())
        titles = sum(self.heights.get(r, DEFAULT_ROW) for r in range(self.title_rows))
        heights = {**self.heights, **{r: 0 for r in self.hidden}}
        capacity = pages.page_capacity(scale, titles)
        heading = self._long_table_heading(heights, last_row, capacity)
        if heading is not None:  # its headings on every page it runs onto, in place of the titles
            self.ws.repeat_rows(heading)
            capacity = pages.page_capacity(scale, heights.get(heading, DEFAULT_ROW))
        self.ws.set_h_pagebreaks(pages.page_breaks([r for r in self.sections if self.printed_from <= r <= last_row],
                                                   self.charts, heights, last_row + 1, capacity=capacity,
                                                   first=max(self.title_rows, self.printed_from),
                                                   flowing=self.flowing))

    def _long_table_heading(self, heights: dict[int, float], last_row: int, capacity: float) -> int | None:
        """The heading row of the table that ends the printed rows, where that table runs longer than a page and no
        heading repeats under the titles already: printed at the top of every page after the one it starts on
        (one range of rows repeats per sheet, on every page after it, so only the last table's headings can; the
        page header still names the sheet and the scenario)."""
        last_section = max((r for r in self.sections if r <= last_row), default=0)
        found = [h for h in self.headings if last_section < h <= last_row]
        if self.title_rows > 2 or not found:
            return None
        heading = found[-1]
        charted = {r for first, rows in self.charts for r in range(first, first + rows)}  # a chart under it: no
        height = sum(heights.get(r, DEFAULT_ROW) for r in range(heading + 1, last_row + 1) if r not in charted)
        return heading if height > capacity else None

    def _wrap_titles(self) -> None:
        """The title and the scenario line wrapped within column A, which every block of columns repeats (their
        text would otherwise run into columns that only the first block prints)."""
        width = self.width_of(0)
        for row, style, points, narrow in ((0, self.book.styles.title_wrapped, 21, 1.6),
                                           (1, self.book.styles.subtitle_wrapped, DEFAULT_ROW, 1.0)):
            cell = self.ws.table.get(row, {}).get(0)
            if cell is None:
                continue
            text = self.title_text if row == 0 else str(cell.value)
            lines = text_lines(text, width / narrow)
            if lines > 1:
                self.ws.table[row][0] = cell._replace(format=style)
                self.set_height(row, max(points * lines + 3 * (row == 0), self.heights.get(row, DEFAULT_ROW)))

    def _rows_holding(self, first_col: int, last_col: int) -> list[int]:
        """The rows below the printed titles, not hidden, with a value, text or formula in these columns."""
        return sorted(r for r, cells in self.ws.table.items()
                      if r >= self.title_rows and r not in self.hidden
                      and any(first_col <= c <= last_col and _shows(cell) for c, cell in cells.items()))

    def _label(self, row: int, text: str | int, style=None) -> None:
        """A row label; a whole number (a records table keyed by number, such as Goodput's runs) stays a number, so
        formulas can read it as {label}."""
        if isinstance(text, int):
            self.ws.write_number(row, 0, text, style or self.book.styles.number_label)
        else:
            if style is None:
                self.long_labels[row] = text  # wrapped if longer than column A turns out wide (_wrap)
            self.ws.write_string(row, 0, text, style or self.book.styles.label)
        self.label_chars = max(self.label_chars, len(str(text)))

    def title(self, text: str, subtitle: str = "") -> None:
        """The sheet's title and, below it, the scenario line (a formula of the inputs, `scenario_title`): both
        repeat at the top of every printed page, so a printout always says what its numbers are for."""
        styles = self.book.styles
        self.ws.write_string(0, 0, text, styles.title)
        self.title_text = text
        self.set_height(0, 24)
        line = self.book.scenario_line
        if line is not None:
            if "scenario_title" in self.book.names:
                self.formula(1, 0, "=scenario_title", line.value, styles.subtitle)
            else:
                self.formula(1, 0, line.formula, line.value, styles.subtitle)
                self.book.define("scenario_title", self.name, "A2", line.value)
        self.repeat_through(1)
        self.row_index = 2
        if subtitle:
            self.ws.write_string(self.row_index, 0, subtitle, styles.subtitle)
            self.subtitle = (self.row_index, subtitle)
            self.row_index += 1
        self.ws.freeze_panes(self.row_index, 1)  # the titles and the label column stay in view
        self.banner_row = self.row_index
        self.row_index += 1

    def section(self, text: str, *, flowing: bool = False) -> None:
        """A section's heading row; `flowing`: a long table that starts on the page before when a few rows fit."""
        if flowing:
            self.flowing.add(self.row_index)
        self.sections.append(self.row_index)
        self.section_titles[self.row_index] = text
        for col in range(0, self.edge + 1):
            self.ws.write_blank(self.row_index, col, None, self.book.styles.section)
        self.ws.write_string(self.row_index, 0, text, self.book.styles.section)
        self.row_index += 1

    def header(self, labels: Sequence[str | Formula] | None = None, *, key: str | None = None, label: str = "",
               freeze: bool = False, repeat: bool = False) -> int:
        """The column headings (by default the sheet's own); a heading may be a Formula. With a key, later
        per-column rows read the headings as {key}; `repeat` prints them at the top of every page (right under the
        titles only). Returns the header row."""
        labels = list(labels) if labels is not None else [c for c, _ in self.columns]
        row = self.row_index
        styles = self.book.styles
        self.ws.write_string(row, 0, label, styles.header)
        for col, text in enumerate(labels, start=1):
            if isinstance(text, Formula):
                self.formula(row, col, text.formula, text.value, styles.header)
            else:
                self.ws.write_string(row, col, text, styles.header)
        self.ws.write_string(row, self.unit_col, "Unit", styles.header)
        self.ws.write_string(row, self.note_col, "Notes", styles.header)
        texts = {col: text.value if isinstance(text, Formula) else text for col, text in enumerate(labels, start=1)}
        self.set_height(row, self.heading_height({0: label, **texts}))
        self.header_row = row
        if key:
            self.places[key] = Place("row", row, 1, row, len(labels))
        if freeze:
            self.ws.freeze_panes(row + 1, 1)
        if repeat:
            self.repeat_through(row)
        self.headings.append(row)
        self.row_index += 1
        return row

    def text(self, text: str | Formula, *, style=None, height: float | None = None) -> None:
        """A line of prose across the sheet."""
        style = style or self.book.styles.text
        self.ws.merge_range(self.row_index, 0, self.row_index, self.note_end, "", style)
        if isinstance(text, Formula):
            self.formula(self.row_index, 0, text.formula, text.value, style)
        else:
            self.ws.write_string(self.row_index, 0, text, style)
        if height:
            self.set_height(self.row_index, height)
        else:  # as tall as it wraps to, once the columns' widths are known (_wrap)
            self.prose[self.row_index] = text.value if isinstance(text, Formula) else text
        self.row_index += 1

    # Cells ------------------------------------------------------------------------------------------------
    def write_formula(self, row: int, col: int, formula: str, style, value: Any) -> None:
        """XlsxWriter's write_formula, less its search of every formula for dynamic-array functions (FILTER, SORT,
        …; a tenth of a workbook's build), which the planner does not write (the workbook structure tests allow
        only portable functions); with _formula_as_written, what it stores is the same."""
        if self.ws._check_dimensions(row, col):
            raise ValueError(f"{self.name}!{xl_rowcol_to_cell(row, col)} lies beyond the sheet's last cell")
        self.ws.table[row][col] = CellFormulaTuple(_formula_as_written(formula), style, value)

    def formula(self, row: int, col: int, formula: str, value: Any, style, *, needs: frozenset | None = None,
                fallback: str = "", gated: bool = False) -> str:
        """Write one formula with the engine's value as its cached result; returns the cell's A1 address. On a
        guarded sheet the formula is guarded by the checks it needs (given, or read from the formula): blank, or
        `fallback`, while one fails; `gated` adds the checks of rules about those inputs (a named result)."""
        value = plain(value)
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            value = int(value)  # the XML then holds 8, not 8.0, as Excel writes it
        if type(value) in (int, float):
            self.measure(col, value, style)
        if col == 0:  # a label written as a formula over a text one: _wrap must not write the text back
            self.long_labels.pop(row, None)
        cell = _a1(row, col)
        if self.guarded:
            # _make: tuple.__new__ itself, without the keyword call of a named tuple's __new__ (less than half as long)
            self.book.pending[(self.name, cell)] = Pending._make((row, col, formula, style, needs, fallback, gated))
        else:
            self.write_formula(row, col, formula, style, value)
        self.book.formulas[(self.name, cell)] = value
        self.book.texts[(self.name, cell)] = formula
        return cell

    def ref(self, key: str, modifier: str | None, row: int, col: int) -> str:
        """The reference a template token stands for, written from cell (row, col)."""
        place = self.places[key]
        if modifier == "range":
            return f"{_a1(place.row, place.col, True, True)}:" \
                   f"{_a1(place.last_row, place.last_col, True, True)}"
        if modifier in ("above", "through"):
            last = row - 1 if modifier == "above" else row
            if not place.row <= last <= place.last_row:
                raise ValueError(f"{{{key}:{modifier}}} is used outside the rows of its records column")
            return f"{_a1(place.row, place.col, True, True)}:" \
                   f"{_a1(last, place.col, True, True)}"
        if place.shape == "cell":
            return place.name or _a1(place.row, place.col, True, True)
        if place.shape == "row":
            if not place.col <= col <= place.last_col:
                raise ValueError(f"{{{key}}} is a per-column row; use it from a per-column row")
            return _a1(place.row, col, True, False)
        target = row
        if modifier == "prev":
            target = place.last_row if row == place.row else row - 1
        if not place.row <= target <= place.last_row:
            raise ValueError(f"{{{key}}} is a records column; use it from its own table")
        return _a1(target, place.col, False, True)

    def expand(self, template: str, row: int, col: int, extra: dict[str, str] | None = None) -> str:
        parts = _template_parts(template)  # literal text, then each token and the text after it
        if len(parts) == 1:
            return template
        out = [parts[0]]
        for i in range(1, len(parts), 2):
            key, modifier = parts[i]
            if extra and key in extra and modifier is None:
                out.append(extra[key])
            elif key == "column":
                out.append(_a1(self.header_row, col, True, False))
            else:
                out.append(self.ref(key, modifier, row, col))
            out.append(parts[i + 1])
        return "".join(out)

    def money(self, kind: str) -> bool:
        """Whether a cell of this kind reads NOT_AVAILABLE while its inputs fail (`money_na`)."""
        return self.money_na and kind.startswith("money")

    def row(self, spec: Row, value: Any) -> str:
        """A labelled row; returns the scenario cell's address. A per-column row takes one value per column."""
        r = self.row_index
        style = self.book.styles.value(spec.kind, bold=spec.bold)
        self._label(r, spec.label)
        guard = {"fallback": NOT_AVAILABLE if spec.name or self.money(spec.kind) else "",
                 "gated": spec.name in self.book.headline}
        if spec.per_column:  # one formula copied across: the guard of every column's cell alike (the widest)
            values = list(value)
            cells = [self.formula(r, c, self.expand(spec.formula, r, c), v, style, **guard)
                     for c, v in zip(self.value_cols, values, strict=True)]
            self.book.alike.append([(self.name, cell) for cell in cells])
            self.places[spec.key] = Place("row", r, 1, r, len(values))
            own = cells[-1]
            self.warn(spec.warn, r, 1, r, len(values))
        else:
            c = self.col_of(spec.at) if spec.at else self.own_col
            own = self.formula(r, c, self.expand(spec.formula, r, c), value, style, **guard)
            self.places[spec.key] = Place("cell", r, c, r, c, name=spec.name)
            self.warn(spec.warn, r, c, r, c)
        self._unit_and_note(r, spec.shown_unit, spec.note)
        if spec.name:
            self.book.define(spec.name, self.name, own, value if not spec.per_column else value[-1])
        self.row_index += 1
        return own

    def rows(self, specs: Sequence[Row], values: dict) -> None:
        for spec in specs:
            self.row(spec, values[spec.key])

    def blocks(self, blocks: Sequence[tuple[str, Sequence[Row]]], values: dict) -> None:
        """Sections of rows, each under its title and followed by a blank row."""
        for title, specs in blocks:
            self.section(title)
            self.rows(specs, values)
            self.skip()

    def warn(self, warn: str | None, first_row: int, first_col: int, last_row: int, last_col: int) -> None:
        """Red where the value is FALSE ("false"), TRUE ("true": a warning that holds), below zero ("negative"), or
        while a check fails ("failed")."""
        if warn is None:
            return
        if first_row == last_row and first_col == last_col:  # one cell: with the cells below it alike (_warn_runs)
            self.warned.setdefault((first_col, warn), []).append(first_row)
        else:
            self._red_where(warn, first_row, first_col, last_row, last_col)

    def _red_where(self, warn: str, first_row: int, first_col: int, last_row: int, last_col: int) -> None:
        corner = xl_rowcol_to_cell(first_row, first_col)
        rule = {"false": f"=AND(ISLOGICAL({corner}),NOT({corner}))",
                "negative": f"=AND(ISNUMBER({corner}),{corner}<0)",
                "positive": f"=AND(ISNUMBER({corner}),{corner}>0)",
                "failed": "=NOT(IFERROR(checks_all_pass,FALSE))",
                "changed": f"=AND(ISLOGICAL({corner}),{corner})",
                "true": f"=AND(ISLOGICAL({corner}),{corner})"}[warn]
        style = self.book.styles.changed if warn == "changed" else self.book.styles.warning
        self.ws.conditional_format(first_row, first_col, last_row, last_col,
                                   {"type": "formula", "criteria": rule, "format": style})

    def heading_row(self, labels: Sequence[str], *, height: float | None = None, first_col: int = 0,
                    repeat: bool = False) -> int:
        """A row of bold, wrapped column headings from column A (or `first_col`), as tall as the longest wraps;
        `repeat` prints it at the top of every page (right under the titles only). Returns its 0-based row."""
        row = self.row_index
        for col, text in enumerate(labels, start=first_col):
            self.ws.write_string(row, col, text, self.book.styles.header)
        self.set_height(row, height or self.heading_height(dict(enumerate(labels, start=first_col))))
        if repeat:
            self.repeat_through(row)
        self.headings.append(row)
        self.row_index += 1
        return row

    def records(self, labels: Sequence[str | int], columns: Sequence[Column], values: Sequence[dict], *,
                label_header: str = "", repeat: bool = False, alike: bool = False, helpers: Sequence[Column] = (),
                helper_col: int | None = None) -> tuple[int, int, int]:
        """A table with one row per item (labels in column A) and one formula column per Column, registered under
        the columns' keys. `values` holds one dict per row, keyed by column. A whole-number label (a step, a
        position) is written as a number, so formulas can read it as {label}. `alike`: every row's formulas are the
        same but for their row (a calendar's months), so the third row on needs what the second does (its guard
        reckoned once per column). `helpers`: columns a reader does not need (what the others read), from
        `helper_col` on (right after the columns without it), grouped out of sight. Returns (header row, first
        row, last row), 0-based."""
        header = self.heading_row([label_header] + [column.header for column in columns], repeat=repeat)
        first, last = header + 1, header + len(labels)
        at = helper_col or len(columns) + 1
        placed = [*enumerate(columns, start=1), *enumerate(helpers, start=at)]
        for col, column in placed:
            self.places[column.key] = Place("column", first, col, last, col)
        for col, column in enumerate(helpers, start=at):
            self.ws.write_string(header, col, column.header, self.book.styles.header)
        for i, label in enumerate(labels):
            r = first + i
            self._label(r, label if isinstance(label, int) else str(label))
            extra = {"label": _a1(r, 0, False, True), "i": str(i + 1)}
            for col, column in placed:
                if column.snapshot:
                    self.value_cell(r, col, values[i][column.key], self.book.styles.value(column.kind,
                                                                                          constant=True), None)
                    continue
                template = column.template(i) if callable(column.template) else column.template
                if template is None:  # a row the column leaves empty (a flat line's ends only: Crossover)
                    continue
                needs = (self.name, _a1(first + 1, col)) if alike and i >= 2 else None
                self.formula(r, col, self.expand(template, r, col, extra), values[i][column.key],
                             self.book.styles.value(column.kind), needs=needs,
                             fallback=NOT_AVAILABLE if self.money(column.kind) else "")
        for col, column in placed:
            self.warn(column.warn, first, col, last, col)
        if helpers:
            self.group_columns(at, at + len(helpers) - 1)
        self.row_index = last + 1
        return header, first, last

    def series(self, key: str, columns: int | None = None) -> list:
        """A chart's values (or categories) by key: a records column or a per-column row (its first `columns`)."""
        place = self.places[key]
        last_col = place.last_col if columns is None else place.col + columns - 1
        return [self.name, place.row, place.col, place.last_row, last_col]

    def front_chart(self, *, name: str, x: str, y: str, title: str, x_axis: dict, y_axis: dict) -> None:
        """A front (each point better on one axis than every point before it on the other) as a scatter of column
        `y` against column `x`: one line with markers, gridlines on both axes, no legend."""
        chart = self.book.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
        chart.add_series({"name": name, "categories": self.series(x), "values": self.series(y),
                          "line": {"color": "#4472C4", "width": 1.5}, "marker": {"type": "circle", "size": 6}})
        chart.set_title({"name": title})
        chart.set_x_axis({**x_axis, "major_gridlines": {"visible": True}})
        chart.set_y_axis({**y_axis, "major_gridlines": {"visible": True}})
        chart.set_legend({"none": True})
        self.chart(chart, height=320)

    def heading_of(self, key: str) -> list:
        """The heading cell above a records column: a chart's series named by it."""
        place = self.places[key]
        return [self.name, place.row - 1, place.col]

    def labels_of(self, key: str) -> list:
        """The row labels (column A) beside a records column: a chart's categories."""
        place = self.places[key]
        return [self.name, place.row, 0, place.last_row, 0]

    def column_chart(self, series: list[tuple], *, title: str, y_axis: dict, height: int = 320, width: int = 640,
                     over: Callable[[], Any] | None = None) -> None:
        """Clustered columns, a series each (name, categories, values, colour), the y axis from 0 with gridlines and
        the legend below, placed as `chart` places one; `over` makes a chart drawn over them (an SLO's line)."""
        chart = self.book.wb.add_chart({"type": "column"})
        for name, categories, values, colour in series:
            chart.add_series({"name": name, "categories": categories, "values": values, "fill": {"color": colour}})
        if over is not None:
            chart.combine(over())
        self.chart(chart, height=height, width=width, title=title, legend="bottom",
                   y_axis={**y_axis, "min": 0, "major_gridlines": {"visible": True}})

    def chart(self, chart, *, height: int = 320, width: int = 640, title: str | None = None,
              x_axis: dict | None = None, y_axis: dict | None = None, legend: str | None = None) -> None:
        """A chart right under the rows written so far: it prints on the same page as its table. Its title, axes
        and legend position, when given, are set here (before `readable` sizes their fonts)."""
        if title is not None:
            chart.set_title({"name": title})
        if x_axis is not None:
            chart.set_x_axis(x_axis)
        if y_axis is not None:
            chart.set_y_axis(y_axis)
        if legend is not None:
            chart.set_legend({"position": legend})
        chart.set_size({"width": width, "height": height})
        readable(chart)
        self.ws.insert_chart(self.row_index + 1, 0, chart, {"object_position": 1})
        rows = 2 + -(-height // 20)  # rows of the default 20 px (15 points)
        self.charts.append((self.row_index, rows))
        self.row_index += rows

    def _unit_and_note(self, row: int, unit: str, note: str) -> None:
        if unit:
            self.ws.write_string(row, self.unit_col, unit, self.book.styles.unit)
            self.units[row] = unit
        if note:
            if self.note_end > self.note_col:
                self.ws.merge_range(row, self.note_col, row, self.note_end, "", self.book.styles.note)
            self.ws.write_string(row, self.note_col, note, self.book.styles.note)
            self.notes[row] = note  # wrapped: its row made tall enough once the column's width is known (_wrap)

    def input(self, name: str, label: str, value: Any, *, kind: str, unit: str, note: str, validation: dict,
              check: str | None = None) -> str:
        """An input cell: blue on pale yellow, unlocked, validated, with a workbook-level name; what reads it needs
        its check (ok_<name>, or ok_<check>)."""
        self.book.reads_input(name, frozenset({ok_name(check or name)}), validation)
        return self._named_value(name, label, value, self.book.styles.value(kind, input=True), unit=unit, note=note,
                                 validation=validation)

    def constant(self, name: str, label: str, value: Any, *, kind: str, unit: str, note: str) -> str:
        """A fixed, named value (a method constant, the currency): grey, locked, read by formulas by name."""
        self.book.needs[name] = frozenset()
        return self._named_value(name, label, value, self.book.styles.value(kind, constant=True), unit=unit,
                                 note=note, validation=None)

    def _named_value(self, name: str, label: str, value: Any, style, *, unit: str, note: str,
                     validation: dict | None) -> str:
        r, c = self.row_index, self.own_col
        self._label(r, label)
        self.value_cell(r, c, value, style, validation)
        self._unit_and_note(r, unit, note)
        cell = xl_rowcol_to_cell(r, c)
        self.places[name] = Place("cell", r, c, r, c, name=name)
        self.book.define(name, self.name, cell, value)
        self.row_index += 1
        return cell

    def input_cell(self, row: int, col: int, value: Any, kind: str, validation: dict | None) -> None:
        """An unnamed input cell (a Catalog value). Its rule, unless it names its own cell, is written once for
        the run of rows of its column that share it (_validate_runs): a Catalog column's 80 rows, one rule."""
        if validation and "{cell}" not in str(validation.get("value", "")):
            rule = tuple(sorted((key, str(value)) for key, value in validation.items()))
            self.validations.setdefault((col, rule), (validation, []))[1].append(row)
            validation = None
        self.value_cell(row, col, value, self.book.styles.value(kind, input=True), validation)

    def _warn_runs(self) -> None:
        """Each one-cell warning over each run of consecutive rows of its column that have it: one rule, whose
        corner reference each cell reads as its own (the Checks sheet's 472 rules → a few)."""
        warned, self.warned = self.warned, {}
        for (col, warn), rows in warned.items():
            for first, last in _runs(rows):
                self._red_where(warn, first, col, last, col)

    def _validate_runs(self) -> None:
        """Each rule of the unnamed input cells over each run of consecutive rows of its column."""
        for (col, _), (validation, rows) in self.validations.items():
            for first, last in _runs(rows):
                self.ws.data_validation(first, col, last, col, validation)

    def value_cell(self, row: int, col: int, value: Any, style, validation: dict | None) -> None:
        """A value as its type: blank, TRUE/FALSE, text or number; with data validation if given."""
        value = plain(value)
        if value is None or value == "":
            self.ws.write_blank(row, col, None, style)
        elif isinstance(value, bool):
            self.ws.write_boolean(row, col, value, style)
        elif isinstance(value, str):
            self.ws.write_string(row, col, value, style)
        else:
            self.ws.write_number(row, col, value, style)
            self.measure(col, value, style)
        if validation:
            if validation.get("validate") == "custom":  # the rule's "{cell}" is the cell it validates
                validation = {**validation, "value": validation["value"].replace("{cell}",
                                                                                 xl_rowcol_to_cell(row, col))}
            self.ws.data_validation(row, col, row, col, validation)


# Printed pages (planner/workbook/pages.py): the sections' page breaks, the print scale and the blocks of columns
DEFAULT_ROW = pages.DEFAULT_ROW
LABEL_WIDTH = 60  # column A at its widest, in characters: a longer label wraps


def wrapped_lines(text: str, width: float) -> int:
    """The lines a bold heading wraps to in a column `width` characters wide (bold digits and capitals run about
    a fifth wider than the width's unit; a word longer than the column breaks)."""
    import textwrap

    return len(textwrap.wrap(str(text), max(1, int(width / 1.2)))) or 1


CHART_POINTS = 11  # chart text as large as the cells' type (charts default to 10 points)


def readable(chart) -> None:
    """A chart's axis numbers, axis titles and legend at CHART_POINTS where the chart sets no size of its own, so a
    page of charts prints as large as a page of cells. XlsxWriter keeps the fonts it was given on the chart (made by
    its _convert_font_args) and has no call that sets them once the axes are set."""
    def sized(font: dict | None, **extra) -> dict:
        if font and font.get("size"):
            return font
        if font:
            return {**font, "size": CHART_POINTS * 100}
        return chart._convert_font_args({"size": CHART_POINTS, **extra})

    for part in (chart, getattr(chart, "combined", None)):
        for axis in (part.x_axis, part.y_axis, part.x2_axis, part.y2_axis) if part is not None else ():
            if axis:
                axis["num_font"] = sized(axis.get("num_font"))
                title = axis.get("title")
                if title is not None and title.name:
                    title.font = sized(title.font, bold=True)
    if chart.legend:
        chart.legend["font"] = sized(chart.legend.get("font"))


def _shows(cell) -> bool:
    """Whether a cell as written shows anything: not a blank, nor a formula whose value is empty text."""
    if type(cell) is _BLANK:
        return False
    return type(cell) is not CellFormulaTuple or cell.value not in ("", None)


def text_lines(text: str, width: float) -> int:
    """The lines plain text wraps to in a column `width` characters wide (letters run narrower than the digits
    the width counts)."""
    text, columns = str(text), max(1, int(width * 1.15))  # at 1.25 a 50-letter note in a 40-wide column
    # counted one line and printed two, over the next row (the Checks of scenarios-1)
    if len(text) <= columns and "\t" not in text:  # one line, as textwrap would say, without its regexes: half
        return 1  # of a workbook's texts
    words = text.split(" ")
    if "-" in text or "  " in text or not text.strip(" ").isprintable() or text != text.strip(" ") or \
            max(map(len, words)) > columns:
        import textwrap  # hyphens, runs of spaces, other white space and long words break as textwrap breaks them

        return len(textwrap.wrap(text, columns)) or 1
    lines, used = 1, len(words[0])  # words on single spaces, as textwrap fills them greedily (3× faster)
    for word in words[1:]:
        if used + 1 + len(word) <= columns:
            used += 1 + len(word)
        else:
            lines, used = lines + 1, len(word)
    return lines


def _formula_as_written(formula: str, expand_future_functions: bool = False) -> str:
    """What XlsxWriter stores for a formula, without its search for functions newer than Excel 2007 (about 30
    regular expressions per formula, adding _xlfn. prefixes): the planner writes none of them (the workbook
    structure tests ban them), and on a large Requests sheet that search took most of the build
    (benchmarks/README.md). Every formula passes here on its way to the file: a number in exponent form is spelled
    as Excel writes it."""
    formula = formula[1:] if formula.startswith("=") else formula
    return as_excel_numbers(formula) if _EXPONENT_HINT.search(formula) else formula


def as_written(formula: str) -> str:
    """A formula ("=…") as the file holds it: its numbers in exponent form spelled as Excel writes them."""
    return "=" + _formula_as_written(formula)


_EXPONENT_HINT = re.compile(r"[0-9.][eE][+-]?[0-9]")
_EXPONENT = re.compile(r"(?<![A-Za-z0-9_.$])([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[eE]([+-]?)([0-9]+)(?![A-Za-z0-9_.(])")


def as_excel_numbers(formula: str) -> str:
    """Number literals in exponent form as Excel writes them, outside text in quotes: 1e12 → 1E+12, 1e-09 →
    1E-09, 2.5e6 → 2.5E+06."""
    def excel(match: re.Match) -> str:
        mantissa, sign, exponent = match.groups()
        return f"{mantissa}E{sign or '+'}{int(exponent):02d}"

    if '"' not in formula:
        return _EXPONENT.sub(excel, formula)
    pieces = _STRINGS.split(formula)
    quoted = _STRINGS.findall(formula)
    return "".join(_EXPONENT.sub(excel, piece) + (quoted[i] if i < len(quoted) else "")
                   for i, piece in enumerate(pieces))


def _absolute(ref: str) -> str:
    return _CORNER.sub(r"$\1$\2", ref)


_CORNER = re.compile(r"\$?([A-Z]+)\$?(\d+)")


def _header_text(text: str) -> str:
    """Page-header text with '&' escaped (it starts a control code) and within Excel's 255 characters."""
    return text.replace("&", "&&")[:200]
