"""A wrong input shows no number and no error value, read from the default workbook as written (openpyxl): every
input has a check on the Checks sheet that reads it and that the master check reads; every formula that an input
reaches, through defined names and references, is guarded by that input's check (or by a rule's check that the
input reaches too), or is written so that no value of the input can make it an error. That each kind of check turns
FALSE on each wrong value, and the guards blank what they guard, in LibreOffice and Gnumeric: test_workbook_recalc.py,
on one input of each kind."""

from __future__ import annotations

import re

import pytest
from openpyxl.utils.cell import coordinate_from_string, range_boundaries

from planner.scenario import ScenarioError
from planner.listing import TYPED_IN
from tests.helpers import scenario_with
from tests.wrong_inputs import (Formulas, above_limit, check_name, error_sources, every_input, parsed, shared_copies,
                                wrong_cases)


@pytest.fixture(scope="session")
def formulas(default_formulas) -> Formulas:
    return default_formulas


@pytest.fixture(scope="session")
def cones(formulas) -> list:
    """Each input, and the formula cells it reaches."""
    specs = every_input(scenario_with())
    reached = formulas.cones([formulas.names[spec.typed_name] for spec in specs], formulas.aggregates())
    return [(spec, reached[formulas.names[spec.typed_name]]) for spec in specs]


def test_every_input_has_a_check_that_reads_it_and_that_the_master_check_reads(formulas):
    master = parsed(formulas.texts[formulas.names["checks_all_pass"]])  # =IFERROR(AND(first:last),FALSE)
    [(_, first_row, _, last_row)] = [range_boundaries(node[1]) for node in master[2][0][2] if node[0] == "ref"]
    specs = every_input(scenario_with())
    assert len(specs) > 50
    for spec in specs:
        sheet, ref = formulas.names[check_name(spec)]
        assert sheet == "Checks" and first_row <= coordinate_from_string(ref)[1] <= last_row, spec.name
        text = formulas.texts[(sheet, ref)]
        assert spec.typed_name in formulas.tokens[(sheet, ref)], (spec.name, text)
        assert text.startswith("=IFERROR(") and text.endswith(",FALSE)"), (spec.name, text)  # never an error
        # with the limits its declaration gives, the list its dropdown offers: a check of its kind refuses what it
        # refuses in test_workbook_recalc.py
        x, allowed = spec.typed_name, spec.typed_allowed

        def bounds(*operators) -> list[float]:
            return [float(number) for operator in operators for number in re.findall(
                rf"(?<![a-z0-9_]){x}{operator}(-?[0-9.]+(?:E[+-]?[0-9]+)?)", text, flags=re.I)]

        assert (allowed.minimum is None or allowed.minimum in bounds(">=", ">")), (spec.name, text)
        assert (allowed.maximum is None or allowed.maximum in bounds("<=")), (spec.name, text)
        if allowed.type in ("choice", "choice_or_number", "choice_or_whole"):
            assert f"MATCH({x},{allowed.choices},0)" in text, (spec.name, text)
        words = {"listed": 'EXACT({x},"{word}")', "word_or_number": '{x}="{word}"'}.get(allowed.type)
        assert all(words.format(x=x, word=word) in text for word in allowed.keywords) if words else True, text


def test_every_formula_an_input_reaches_is_guarded_by_its_check_or_cannot_show_an_error(formulas, cones):
    """A guarded formula (=IF(ok_…,formula,"n/a…")) shows its fallback while its check fails; the checks' own cells
    end in IFERROR(…,FALSE); the rest (the Cover's labels, the sheets' titles, the Changed flags) must not fail on any
    value. A formula that reads an input only where a rule chooses it (the Crossover's serving MFU reads the
    Serving sheet's only for the roofline) may be guarded by that rule's check instead, a check that reads the
    input's results."""
    checks = {name for name in formulas.names if name.startswith("ok_") and not name.startswith("ok_group_")}
    inputs_checks = {check_name(spec) for spec in every_input(scenario_with())}
    unguarded: dict = {}
    by_rules: set = set()
    for spec, cone in cones:
        rules_reached = {check for check in checks - inputs_checks if formulas.names[check] in cone}
        for key in cone:
            needs = formulas.guard(key)
            if needs is None:
                unguarded.setdefault(key, []).append(spec.typed_name)
            elif check_name(spec) not in needs:
                assert needs & rules_reached, (spec.typed_name, key, formulas.texts[key][:200])
                by_rules.add(tuple(sorted(needs & rules_reached)))
    assert by_rules <= {("ok_crossover_roofline_fits",)}  # the one rule that chooses what a formula reads
    failing = {}
    logical = checks | {name for name in formulas.names if name.startswith("ok_group_")}  # a set's cell is an AND
    for key in unguarded:
        found = error_sources(parsed(formulas.texts[key]), lambda token: token in logical)
        if found:
            failing[key] = (formulas.texts[key][:160], found)
    assert failing == {}
    assert len(unguarded) > 100  # the checks, the labels and the Changed flags were looked at


def test_a_value_above_an_inputs_limit_is_refused_by_the_scenario_too():
    """What the workbook's check refuses (wrong_inputs.above_limit, typed in the workbook's unit), the scenario's
    validation refuses."""
    specs = [spec for spec in every_input(scenario_with()) if spec.typed_allowed.maximum is not None]
    assert len(specs) > 40
    for spec in specs:
        scale = TYPED_IN[spec.kind][1] if spec.kind in TYPED_IN else None
        with pytest.raises(ScenarioError):
            scenario_with(**{spec.path: round(above_limit(spec) * scale) if scale else above_limit(spec)})


def test_the_wrong_values_share_copies_only_where_no_formula_reads_two_of_them(formulas):
    """The packing of test_workbook_recalc.py's copies: each wrong value of each input it types is typed into
    exactly one copy, and the inputs of a copy reach disjoint cells (the memory total reads the GPUs and the
    strategy: never in one copy)."""
    cases = wrong_cases(formulas, scenario_with())
    copies = shared_copies(formulas, cases)
    typed = sorted((name, repr(value)) for copy in copies for name, value in copy.items())
    assert typed == sorted((name, repr(value)) for name, values in cases.items() for value in values)
    assert {"memory_gpus", "memory_strategy"} <= set(cases)
    assert not any({"memory_gpus", "memory_strategy"} <= set(copy) for copy in copies)
    starts = {name: formulas.names[name] for name in cases}
    cones = formulas.cones(list(starts.values()), formulas.aggregates())
    for copy in copies:
        reach = [cones[starts[name]] | {starts[name]} for name in copy]
        assert sum(len(cells) for cells in reach) == len(set().union(*reach)), sorted(copy)
    assert len(copies) < len(typed) * 0.8  # some share: those the plan's total does not read


@pytest.mark.parametrize("text, sources", [
    ('="Wall-clock days on "&IF(ISNUMBER(x),TEXT(x,"#,##0"),"?")&" GPUs"', []),
    ('="on "&TEXT(x,"#,##0")', ["TEXT of what may not be a number"]),
    ('=IF(ISNUMBER(x),TEXT(x/1e+12,"0.0"),"?")', []),
    ('=IF(ISNUMBER(x),TEXT(1/x,"0.0"),"?")', ["a division by what may be 0"]),
    ('=IFERROR(1/x,"n/a")', []),
    ("=NOT(EXACT(B7,C7))", []),
    ("=NOT(B7)", ["NOT of what may not be TRUE or FALSE"]),
    ("=AND(ok_a,ok_b)", []),
    ('=VLOOKUP(x,y,2,FALSE)&""', ["VLOOKUP, which may fail on a wrong value"]),
], ids=["a guarded number", "an unguarded number", "scaled", "divided by it", "IFERROR", "Changed", "NOT of a value",
        "a group of checks", "a lookup"])
def test_what_can_show_an_error_is_told_apart(text, sources):
    assert error_sources(parsed(text), lambda token: token.startswith("ok_")) == sources


def test_references_are_found_as_openpyxl_finds_them(formulas):
    """wrong_inputs.references against openpyxl's Tokenizer, on every formula of the Cover, Checks and Inputs
    sheets and a hundred of each other sheet's."""
    from openpyxl.formula.tokenizer import Tokenizer

    from tests.wrong_inputs import references

    seen: dict = {}
    for (sheet, ref), text in formulas.texts.items():
        if sheet in ("Cover", "Checks", "Inputs") or seen.setdefault(sheet, 0) < 100:
            seen[sheet] = seen.get(sheet, 0) + 1
            assert references(text) == [t.value for t in Tokenizer(text).items
                                        if t.type == "OPERAND" and t.subtype == "RANGE"], (sheet, ref, text)
    assert references("=IF(ok_a,'Budget'!$A$1:B3*x_1-1e+12,\"B7 y\")&SUM(c)+LOG10(d)") == [
        "ok_a", "'Budget'!$A$1:B3", "x_1", "c", "d"]
