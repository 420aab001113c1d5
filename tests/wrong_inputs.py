"""Wrong inputs and what they reach, for test_guards.py (every input's check and every formula's guard, on the
workbook as written) and test_workbook_recalc.py (one input of each kind typed wrong and recalculated in both
applications): what finance can leave in an input despite its validation; a written workbook's formulas as
openpyxl reads them, each formula's guard apart from the rest of its text, the cells each input reaches through
defined names and references; whether an unguarded formula can show an error value whatever its inputs hold."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import openpyxl
from openpyxl.formula.tokenizer import Tokenizer
from openpyxl.utils.cell import coordinate_from_string, column_index_from_string, range_boundaries

from planner.listing import TYPED_IN, general_inputs, input_sections


# Inputs and their wrong values -----------------------------------------------------------------------------------
def every_input(scenario) -> list:
    return [i for i, _ in general_inputs(scenario) if hasattr(i, "allowed")] + [
        i for _, items in input_sections(scenario) for i in items]


def wrong_values(spec) -> list:
    """What finance can leave in an input despite its validation (pasting skips it): blank, text, 0 where 0 is not
    allowed, −1, a number just above the limit; for TRUE/FALSE, a number that is neither; for a name, a number and
    65 characters; for a choice, 0, −1 and an unknown id (a fraction where a number may stand in for an id). An input
    that may be left blank (its declaration says so) is not given a blank."""
    found = _wrong_values(spec)
    return [v for v in found if v is not None] if spec.typed_allowed.optional else found


def _wrong_values(spec) -> list:
    allowed = spec.typed_allowed
    if allowed.type == "bool":
        return [None, "text", 2]  # 0 is FALSE in a spreadsheet without a logical type
    if allowed.type == "text":
        return [None, 0, "x" * 65]  # a name: any text of 1 to 64 characters is allowed
    if allowed.choices:
        return [None, 0, -1, "no-such-id"] if allowed.type == "choice" else [None, -1, 2.5, "no-such-id"]
    return [None, "text"] + ([0] if allowed.minimum is None or allowed.minimum > 0 else []) + [-1] + (
        [above_limit(spec)] if allowed.maximum is not None else [])


def above_limit(spec):
    """A number just above the input's limit, in the unit it is typed in."""
    allowed = spec.typed_allowed
    above = allowed.maximum * 1.001 + (1 if allowed.type == "whole" else 0)
    return round(above) if allowed.type == "whole" else above


def check_name(spec) -> str:
    """The defined name of an input's check on the Checks sheet."""
    return f"ok_{spec.name}"


# A written workbook's formulas -----------------------------------------------------------------------------------
_GUARDED = re.compile(r'=IF\((ok_[a-z0-9_]+|AND\((?:ok_[a-z0-9_]+,)*ok_[a-z0-9_]+\)),(.*),"(?:[^"]|"")*"\)',
                      flags=re.S)
_A1 = re.compile(r"\$?[A-Z]{1,3}\$?[0-9]+(?::\$?[A-Z]{1,3}\$?[0-9]+)?")
_STRING = re.compile(r'"(?:[^"]|"")*"')
# A reference: a cell or range, or a name, with its sheet; not a function's name, a number's exponent or TRUE
_REFERENCE = re.compile(r"(?<![A-Za-z0-9_.$'!])((?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!)?"
                        r"(\$?[A-Z]{1,3}\$?[0-9]+(?::\$?[A-Z]{1,3}\$?[0-9]+)?|[A-Za-z_][A-Za-z0-9_.]*)(?![A-Za-z0-9_.(!])")


def references(text: str) -> list[str]:
    """The references a formula's text reads (a cell or range, 'Sheet'!A1, a defined name), in order; what is
    between quotes is text, not a reference. (openpyxl's Tokenizer finds the same, a hundred times slower: it
    reads each of a workbook's tens of thousands of formulas.)"""
    return [sheet + ref for sheet, ref in _REFERENCE.findall(_STRING.sub('""', text)) if ref not in ("TRUE", "FALSE")]


@dataclass
class Formulas:
    """Every formula cell of a workbook file, {(sheet, A1): text}, and its defined names, {name: (sheet, A1 or
    range)}, as openpyxl reads them; what follows from them is reckoned here, not taken from the planner."""

    texts: dict
    names: dict
    tokens: dict = field(default_factory=dict)  # a formula cell → the references its text reads outside its guard
    readers: dict = field(default_factory=dict)  # a cell → the formula cells that read it, outside their guards
    guards: dict = field(default_factory=dict)  # a guarded formula cell → the checks it needs (Formulas.guard)

    @classmethod
    def read(cls, path: Path) -> "Formulas":
        book = openpyxl.load_workbook(path)
        texts = {(sheet.title, cell.coordinate): cell.value for sheet in book.worksheets for row in sheet.iter_rows()
                 for cell in row if cell.data_type == "f" and isinstance(cell.value, str)}
        names = {}
        for name, defined in book.defined_names.items():
            (sheet, ref), = defined.destinations
            names[name] = (sheet, ref.replace("$", ""))
        found = cls(texts, names)
        found._read_references()
        return found

    def guard(self, key) -> frozenset | None:
        """The checks a guarded formula cell needs, its groups (ok_group_<n>) read as their checks; None where the
        cell has no guard."""
        if key in self.guards:
            return self.guards[key]
        match = _GUARDED.fullmatch(self.texts[key])
        checks = None
        if match is not None:
            checks = frozenset().union(*(self.checks_of(name) for name in re.findall(r"ok_[a-z0-9_]+", match[1])))
        self.guards[key] = checks
        return checks

    def checks_of(self, name: str) -> frozenset:
        """The checks a check or a set of them (ok_group_<n>) stands for: a long set reads smaller sets (each read as
        its checks in turn) and its checks, or the cells of its parts."""
        group = self.texts.get(self.names[name]) if name.startswith("ok_group_") else None
        if not group:
            return frozenset({name})
        if name not in self.guards:  # each set reckoned once (kept beside the cells' guards, by its name)
            sheet = self.names[name][0]
            parts = ",".join(self.texts[(sheet, cell)] for cell in re.findall(r"\b[A-Z]+\d+\b", group))
            self.guards[name] = frozenset().union(*(self.checks_of(found)
                                                    for found in re.findall(r"ok_[a-z0-9_]+", group + parts)))
        return self.guards[name]

    def body(self, key) -> str:
        """A formula's text without its guard."""
        match = _GUARDED.fullmatch(self.texts[key]) if self.guard(key) is not None else None
        return "=" + match[2] if match else self.texts[key]

    def target(self, sheet: str, token: str) -> tuple[str, str] | None:
        """(sheet, A1 or range) that a reference token read on `sheet` points at; None for a name not defined."""
        if "!" in token:
            where, _, ref = token.rpartition("!")
            return where.strip("'"), ref.replace("$", "")
        if _A1.fullmatch(token):
            return sheet, token.replace("$", "")
        return self.names.get(token)

    def _read_references(self) -> None:
        known: dict = {}  # sheet → {(column, row): A1} of the formula cells and the named single cells
        for sheet, ref in [*self.texts, *self.names.values()]:
            if ":" not in ref:
                column, row = coordinate_from_string(ref)
                known.setdefault(sheet, {})[(column_index_from_string(column), row)] = ref
        cells_of: dict = {}  # (sheet, token) → the known cells it reads: a name is read by many formulas
        for key in self.texts:
            tokens = references(self.body(key))
            self.tokens[key] = tokens
            for token in tokens:
                where = (key[0] if "!" not in token and _A1.fullmatch(token) else "", token)
                if where not in cells_of:
                    cells_of[where] = self._cells(known, self.target(key[0], token))
                for cell in cells_of[where]:
                    self.readers.setdefault(cell, set()).add(key)

    @staticmethod
    def _cells(known: dict, target: tuple[str, str] | None) -> list:
        """The known cells of a reference's target."""
        if target is None:
            return []
        sheet, ref = target
        first_column, first_row, last_column, last_row = range_boundaries(ref)
        cells = known.get(sheet, {})
        if (last_column - first_column + 1) * (last_row - first_row + 1) <= len(cells):
            inside = (cells.get((c, r)) for c in range(first_column, last_column + 1)
                      for r in range(first_row, last_row + 1))
            return [(sheet, a1) for a1 in inside if a1]
        return [(sheet, a1) for (c, r), a1 in cells.items()
                if first_column <= c <= last_column and first_row <= r <= last_row]

    def aggregates(self) -> set:
        """The cells that read every check (the master check, the count of failing checks, the first that fails;
        a group of checks that guards results is not a check of its own), a part of them (Checks' printed summary:
        each part's count that fail and the first of them) or every input's Changed flag: FALSE, or a count,
        whatever fails, so no input's cone goes through them."""
        groups = {ref for name, (sheet, ref) in self.names.items() if name.startswith("ok_group_")}
        checks = {ref for sheet, ref in self.texts if sheet == "Checks"} - groups
        found = set()
        for key, tokens in self.tokens.items():
            if "inputs_changed" in tokens:
                found.add(key)
                continue
            for token in tokens:
                target = self.target(key[0], token)
                if target and target[0] == "Checks" and ":" in target[1]:
                    first_column, first_row, last_column, last_row = range_boundaries(target[1])
                    covered = 0
                    for ref in checks | groups if key[0] == "Checks" else checks:
                        column, row = coordinate_from_string(ref)
                        covered += (first_column <= column_index_from_string(column) <= last_column
                                    and first_row <= row <= last_row)
                    if covered > len(checks) / 2 or key[0] == "Checks" and covered > 1:
                        found.add(key)
        return found

    def cones(self, starts: list, aggregates: set) -> dict:
        """Each start cell → every formula cell that reads it, directly or through others, outside their guards and
        not through the `aggregates`."""
        reached = {}
        for start in starts:
            found, todo = set(), [start]
            while todo:
                for reader in self.readers.get(todo.pop(), ()):
                    if reader not in found and reader not in aggregates:
                        found.add(reader)
                        todo.append(reader)
            reached[start] = found
        return reached


# Whether a formula can show an error value ---------------------------------------------------------------------------
_PRECEDENCE = {"=": 1, "<>": 1, "<": 1, ">": 1, "<=": 1, ">=": 1, "&": 2, "+": 3, "-": 3, "*": 4, "/": 4, "^": 5}
_ARITHMETIC = {"+", "-", "*", "/", "^"}
_TESTS = {"ISNUMBER", "ISTEXT", "ISBLANK", "ISLOGICAL", "ISERROR", "ISERR", "ISNA"}
_ANY_VALUE = {"SUBSTITUTE", "EXACT", "LEN", "CONCATENATE"}  # no error from any value that is not one itself
_OF_NUMBERS = {"TEXT", "INT", "ABS", "ROUND"}  # no error from numbers (TEXT's second argument is its format)


def parsed(text: str):
    """A formula's text as a tree: ("ref", token), ("number", n), ("text" | "bool" | "error", token),
    ("op", operator, left, right), ("neg", operand), ("percent", operand), ("call", NAME, [arguments])."""
    tokens = [t for t in Tokenizer(text).items if t.type != "WHITE-SPACE"]
    at = 0

    def peek():
        return tokens[at] if at < len(tokens) else None

    def take():
        nonlocal at
        at += 1
        return tokens[at - 1]

    def operand():
        token = take()
        if token.type == "OPERATOR-PREFIX":
            return ("neg", expression(6)) if token.value == "-" else expression(6)
        if token.type == "OPERAND":
            kind = {"RANGE": "ref", "NUMBER": "number", "TEXT": "text", "LOGICAL": "bool", "ERROR": "error"}[
                token.subtype]
            return (kind, float(token.value) if kind == "number" else token.value)
        if token.type == "FUNC" and token.subtype == "OPEN":
            name, arguments = token.value[:-1].upper(), []
            if peek().type == "FUNC" and peek().subtype == "CLOSE":
                take()
                return ("call", name, arguments)
            while True:
                arguments.append(expression(0))
                closing = take()
                if closing.type == "FUNC":
                    return ("call", name, arguments)
        if token.type == "PAREN" and token.subtype == "OPEN":
            inner = expression(0)
            take()
            return inner
        raise ValueError(f"{text}: unexpected {token.value!r}")

    def expression(least: int):
        left = operand()
        while (token := peek()) is not None:
            if token.type == "OPERATOR-POSTFIX":
                take()
                left = ("percent", left)
                continue
            if token.type != "OPERATOR-INFIX" or _PRECEDENCE[token.value] < least:
                return left
            take()
            left = ("op", token.value, left, expression(_PRECEDENCE[token.value] + 1))
        return left

    tree = expression(0)
    assert at == len(tokens), text
    return tree


def error_sources(node, is_check, numbers: frozenset = frozenset()) -> list[str]:
    """Where a formula (a tree from `parsed`) could show an error value when an input it reads holds anything a
    cell can hold (a blank, text, any number or TRUE/FALSE) and each cell it reads holds a value, not an error:
    arithmetic on what may not be a number, a division by what may be 0, a function outside those known not to
    fail. `is_check(token)`: the reference is a check's cell (TRUE or FALSE); `numbers`: references known to hold
    numbers here (the branch of IF(ISNUMBER(x), …) where x does)."""
    kind = node[0]
    if kind in ("ref", "number", "text", "bool"):
        return []
    if kind == "error":
        return [f"the error value {node[1]}"]
    if kind == "op":
        _, operator, left, right = node
        found = error_sources(left, is_check, numbers) + error_sources(right, is_check, numbers)
        if operator in _ARITHMETIC:
            found += [f"{operator} of what may not be a number" for side in (left, right)
                      if not _numeric(side, numbers)]
            if operator == "/" and not (right[0] == "number" and right[1] != 0):
                found.append("a division by what may be 0")
        return found
    if kind in ("neg", "percent"):
        return error_sources(node[1], is_check, numbers) + (
            [] if _numeric(node[1], numbers) else [f"{kind} of what may not be a number"])
    _, name, arguments = node
    if name in _TESTS:
        return []
    if name == "IFERROR":
        return error_sources(arguments[1], is_check, numbers)
    if name == "IF":
        condition, *branches = arguments
        known = numbers | {condition[2][0][1]} if (
            condition[:2] == ("call", "ISNUMBER") and condition[2][0][0] == "ref") else numbers
        return error_sources(condition, is_check, numbers) + error_sources(branches[0], is_check, known) + [
            reason for branch in branches[1:] for reason in error_sources(branch, is_check, numbers)]
    found = [reason for argument in arguments for reason in error_sources(argument, is_check, numbers)]
    if name in _ANY_VALUE:
        return found
    if name in _OF_NUMBERS:
        return found + [f"{name} of what may not be a number" for argument in arguments[:1]
                        if not _numeric(argument, numbers)]
    if name in ("AND", "OR", "NOT"):
        return found + [f"{name} of what may not be TRUE or FALSE" for argument in arguments
                        if not _logical(argument, is_check)]
    return found + [f"{name}, which may fail on a wrong value"]


def _numeric(node, numbers: frozenset) -> bool:
    kind = node[0]
    if kind == "number":
        return True
    if kind == "ref":
        return node[1] in numbers
    if kind == "op" and node[1] in _ARITHMETIC:
        return _numeric(node[2], numbers) and _numeric(node[3], numbers)
    if kind in ("neg", "percent"):
        return _numeric(node[1], numbers)
    return kind == "call" and node[1] in _OF_NUMBERS - {"TEXT"} and all(_numeric(a, numbers) for a in node[2])


def _logical(node, is_check) -> bool:
    kind = node[0]
    if kind == "bool":
        return True
    if kind == "ref":
        return is_check(node[1])
    if kind == "op":
        return node[1] in ("=", "<>", "<", ">", "<=", ">=")
    return kind == "call" and (node[1] in _TESTS | {"EXACT", "AND", "OR", "NOT"})


# One input of each kind, typed wrong in as few copies as they fit ----------------------------------------------------
def kind_of(spec, check: str) -> tuple:
    """What makes one input's wrong values act as another's: its declared type, whether it may be blank, whether it
    is typed in a larger unit than the scenario's (TYPED_IN), and the form of its check's formula (`check`), its own
    name, numbers, quoted words (how many: one of the listed words) and Catalog block put aside."""
    form = re.sub(rf"(?<![a-z0-9_]){re.escape(spec.typed_name)}(?![a-z0-9_])", "X", _STRING.sub('""', check))
    form = re.sub(r"catalog_[a-z_]+?_(ids|valid)", r"catalog_\1", form)
    form = re.sub(r"(?<![A-Za-z_])[0-9.]+(?:[eE][+-]?[0-9]+)?", "0", form)
    form = re.sub(r'(EXACT\(X,""\))(?:,EXACT\(X,""\))+', r"\1", form)  # one of two words, or of four
    return spec.typed_allowed.type, spec.typed_allowed.optional, spec.kind in TYPED_IN, form


def one_of_each_kind(specs: list, formulas: Formulas) -> list:
    """For each kind of input (kind_of), the first with the most wrong values."""
    chosen: dict = {}
    for spec in specs:
        kind = kind_of(spec, formulas.texts[formulas.names[check_name(spec)]])
        if kind not in chosen or len(wrong_values(spec)) > len(wrong_values(chosen[kind])):
            chosen[kind] = spec
    return list(chosen.values())


def shared_copies(formulas: Formulas, cases: dict) -> list[dict]:
    """Each input's wrong values (`cases`: input's typed name → its values), typed into as few copies as they fit:
    a copy holds one wrong value of each of several inputs whose cones are disjoint, so that no formula reads two
    of them and every cell recalculates as in the copy with that input's edit alone (the cells that read every
    check aside: the master check is FALSE and the Cover red either way). Returns each copy's {input's name:
    value}."""
    starts = {name: formulas.names[name] for name in cases}
    cones = formulas.cones(list(starts.values()), formulas.aggregates())
    bins: list[tuple[set, list]] = []  # (the cells the bin's inputs reach, its inputs)
    for name in cases:
        reach = cones[starts[name]] | {starts[name]}
        for cells, members in bins:
            if not cells & reach:
                cells |= reach
                members.append(name)
                break
        else:
            bins.append((set(reach), [name]))
    copies = []
    for _, members in bins:
        for k in range(max(len(cases[name]) for name in members)):
            copies.append({name: cases[name][k] for name in members if k < len(cases[name])})
    return copies


POOL = ("cluster_gpus", "cluster_inference_peak_gpus", "cluster_spare", "cluster_profile")  # what sizes the serving
# pool: a blank, text or unknown id in one turns the pool's check (ok_cluster_pool_fits) FALSE as well as its own


def wrong_cases(formulas: Formulas, scenario) -> dict:
    """The inputs typed wrong in both applications, {typed name: wrong values}: one input of each kind with all its
    wrong values, and each of the serving pool's inputs with its blank, text and unknown id. (Every input's guards
    are checked on the workbook itself: test_guards.py.)"""
    specs = every_input(scenario)
    cases = {spec.typed_name: wrong_values(spec) for spec in one_of_each_kind(specs, formulas)}
    for spec in specs:
        if spec.name in POOL and spec.typed_name not in cases:
            cases[spec.typed_name] = [v for v in wrong_values(spec) if v in (None, "text", "no-such-id")]
    return cases
