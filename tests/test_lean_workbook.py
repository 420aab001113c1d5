"""Cells that carried nothing the reader needs, gone (issue 42: the default workbook at most 8,000 formulas; it held
8,559): the long sets of checks as the AND of the smaller sets within them instead of rows of parts (162 cells), the
on-demand and committed paths' cash columns that copied their totals (98), Crossover's training columns that
repeated one number at 101 steps (297), and a fiscal-year row no plan can reach (15). The same answers: every
formula still equals the engine (tests/test_workbook_recalc.py, `planner verify`); here, what each change keeps.
All on the session's default Book (conftest's default_book): no workbook is built here."""

from __future__ import annotations

import re

import pytest

from planner.engine.crossover import STEPS
from planner.workbook.budget import CALENDAR, fiscal_year_count
from planner.workbook.kit import LONGEST_AND, in_parts

GROUP = re.compile(r"\bok_group_\d+\b")


def test_a_long_set_of_checks_is_the_and_of_the_smaller_sets_within_it(default_book):
    """Each set's row ANDs checks and other sets; the sets it reads are strictly smaller and within it (no circle),
    and together with its checks they are exactly its checks: the same TRUE and FALSE as the AND of every check.
    Before, 79 of the default's 310 sets were ANDs of 162 rows of parts (92 of 363 with §14.5's layout): now each set
    too long for one AND reads the sets within it."""
    groups, names, texts = default_book.groups, default_book.names, default_book.texts
    composed = 0
    for name, needs in groups.items():
        text = texts[names[name]]
        assert text.startswith("=") and len(text) <= LONGEST_AND, (name, text)
        read = re.findall(r"\bok_[a-z0-9_]+\b", text)
        within = [other for other in read if GROUP.fullmatch(other)]
        assert all(groups[other] < needs for other in within), name
        assert set().union(*(groups[other] for other in within), set(read) - set(within)) == needs, name
        assert bool(within) == (len(in_parts(needs)) > 1), name
        composed += bool(within)
    assert composed >= 79
    labels = [text for (sheet, _), text in texts.items() if sheet == "Checks"]
    assert not any(", part " in str(label) for label in labels)


def test_the_cash_of_the_paths_without_money_back_is_their_total_column(default_book):
    """On demand and committed pay as they accrue (§13.5): their cash per month is their total, so the total's
    column is named calendar_<path>_cash too (the fiscal years and the NPV read it), not copied into a column of
    its own; the owned path, whose cash moves the capex and the money back, keeps its column."""
    names = default_book.names
    for path in ("on_demand", "committed"):
        assert names[f"calendar_{path}_cash"] == names[f"calendar_{path}_total"]
    assert names["calendar_owned_cash"] != names["calendar_owned_total"]
    months = [column.key for column in CALENDAR]
    assert "owned_cash" in months and not {"on_demand_cash", "committed_cash"} & set(months)


def test_crossovers_training_columns_are_written_at_the_first_and_last_step_for_the_flat_line(default_book):
    """Training is paid once: the cumulative table's training columns hold it at day 0 and at the horizon (the
    charts draw the flat line between, spanning the empty steps), and every step's totals add Hours' named cells
    to serving's, so no step's total depends on a training cell."""
    sheet = default_book.sheets["Crossover"]
    texts = default_book.texts
    for key, formula in (("training_flops", "=hours_training_flops"), ("training_gpu_hours", "=hours_gpu_hours"),
                         ("training_cost", "=hours_gpu_hours*price_per_gpu_hour_converted")):
        place = sheet.places[key]
        assert place.last_row - place.row == STEPS
        written = {row: texts.get(("Crossover", f"{col_name(place.col)}{row + 1}"))
                   for row in range(place.row, place.last_row + 1)}
        assert [row for row, text in written.items() if text] == [place.row, place.last_row], key
        assert written[place.row] == written[place.last_row] and formula[1:] in written[place.row]
    total = sheet.places["total_cost"]
    serving = f"{col_name(sheet.places['serving_cost'].col)}{total.row + 51}"
    assert f"hours_gpu_hours*price_per_gpu_hour_converted+${serving}," in \
        texts[("Crossover", f"{col_name(total.col)}{total.row + 51}")]


def col_name(col: int) -> str:
    from xlsxwriter.utility import xl_col_to_name

    return xl_col_to_name(col)


@pytest.mark.parametrize("months, years", [(1, 1), (12, 2), (13, 2), (25, 3), (49, 5), (50, 6), (519, 45)])
def test_the_fiscal_year_rows_are_the_most_the_month_rows_can_touch(months, years):
    """m consecutive months touch at most 1 + ⌈(m − 1)/12⌉ fiscal years (the first month the last of its year):
    49 touch 5 (1 + 48/12), not the 6 rows written before; and some start touches that many."""
    assert fiscal_year_count(months) == years
    touched = [len({(start + k) // 12 for k in range(months)}) for start in range(12)]
    assert max(touched) == years
