"""A number only where its premises hold (issue 32 item 3, issue 34 class 10): money reads "n/a: <reason>" when
serving does not fit, the run is longer than the sheet's months or an input it reads failed, and only then; labels
never embed "n/a"; what a label shows is what the cell holds."""

from __future__ import annotations

import re

import pytest

from planner.engine import budget as average
from planner.engine import compute
from planner.engine import shared
from planner.report import render_html
from planner.workbook import build
from tests.conftest import ROOT
from tests.helpers import address, named, recalculated, scenario_with, set_cells

# The default's run on 1,024 GPUs takes 21.5 days; the same GPU-hours on 2 GPUs take 512 times as long:
# 21.475 · 512 = 10,995 days = 362 average months of 30.4375 days, with 24 serving months more than the Budget's
# 241 average-month rows at most (120 of training and the longest horizon's 121), but within the 519 calendar rows
# at most; on 1 GPU, 21,990 days = 723 calendar months, more than those too.
LONGER_THAN_THE_AVERAGE_MONTHS = {"hours.gpus": 2}
LONGER_THAN_THE_CALENDAR = {"hours.gpus": 1}


# Issue 34 class 10: training longer than the Budget's months -----------------------------------------------------
def test_a_run_longer_than_the_average_months_leaves_their_sums_na_not_zero():
    """Before: serving 0 and a training-only average-month total. The GPU-hours (and so the money) are the
    default's: the plan's total on calendar months stands, equal to the default's; the average-month sums say why
    they have none, and so does every line of the bridge that starts from them."""
    h = compute(scenario_with(**LONGER_THAN_THE_AVERAGE_MONTHS)).headline
    default = compute(scenario_with()).headline
    assert h["budget_training_months"] == 362  # CEIL(10,995.26 / 30.4375)
    for name in ("budget_serving_cost", "budget_standby_cost", "budget_average_month_total_cost"):
        assert h[name] == average.TOO_LONG, name
    assert average.TOO_LONG == ("n/a: the plan needs more months than this workbook holds: run the planner again "
                                "(or raise budget.spare_months)")
    assert h["plan_total_cost"] == pytest.approx(default["plan_total_cost"], rel=1e-9)
    table = compute(scenario_with(**LONGER_THAN_THE_AVERAGE_MONTHS)).tables["cost"]
    assert [line["amount"] for line in table.bridge] == [average.TOO_LONG] * 9
    assert table.checks["tco_calendar_months_without_growth"] and table.checks["tco_average_month_reconciles"]


def test_the_html_says_the_average_months_are_na_and_never_that_the_sheet_has_every_month():
    html = render_html(compute(scenario_with(**LONGER_THAN_THE_AVERAGE_MONTHS)), generated="2026-12-02")
    assert "the average-month budget (where the bridge starts) is n/a" in html
    assert "386 average months, more than the 241" in html
    too_long = render_html(compute(scenario_with(**LONGER_THAN_THE_CALENDAR)), generated="2026-12-02")
    assert "has every month" not in too_long
    assert "The plan is longer than the workbook&#39;s Budget sheet has month rows for" in too_long \
        or "The plan is longer than the workbook's Budget sheet has month rows for" in too_long
    assert "has every month" in render_html(compute(scenario_with()), generated="2026-12-02")


@pytest.mark.spreadsheet
def test_runs_longer_than_the_months_recalculate_to_the_engine(spreadsheet, tmp_path):
    """Both long runs written and recalculated: every formula cell equals the engine (the fiscal years' INDEX
    stays within the rows; the reconciliations hold where the sums they compare are n/a)."""
    paths = []
    for label, keys in (("average", LONGER_THAN_THE_AVERAGE_MONTHS), ("calendar", LONGER_THAN_THE_CALENDAR)):
        paths.append(tmp_path / f"{label}.xlsx")
        build(compute(scenario_with(**keys)), str(paths[-1]))
    values = recalculated(spreadsheet, paths)[0]
    from planner import xlsx
    book = xlsx.read(paths[0])
    assert named(values, book, "budget_serving_cost") == average.TOO_LONG
    assert named(values, book, "plan_total_cost") == pytest.approx(
        compute(scenario_with()).headline["plan_total_cost"], rel=1e-9)


@pytest.mark.spreadsheet
def test_a_copy_typed_longer_reads_na_and_unknown_days_do_not_fail_the_rows_check(spreadsheet, default_workbook,
                                                                                  tmp_path):
    """2 training GPUs typed into the default's workbook: the average-month serving reads the reason, not 0, and the
    rows check fails; the MFU emptied instead: the days are unknown, Hours' MFU check fails, the rows check not."""
    original = default_workbook
    longer, unknown = tmp_path / "longer.xlsx", tmp_path / "unknown.xlsx"
    set_cells(original, longer, {"hours_gpus": 2})
    set_cells(original, unknown, {"hours_mfu": None})
    from planner import xlsx
    book = xlsx.read(original)
    from tests.helpers import UNCOMPARED, build_in_memory
    expected = build_in_memory(scenario_with(**LONGER_THAN_THE_AVERAGE_MONTHS), like=longer)
    typed, blank = recalculated(spreadsheet, [longer, unknown], [expected, UNCOMPARED])
    assert named(typed, book, "budget_serving_cost") == average.TOO_LONG
    assert named(typed, book, "budget_average_month_total_cost") == average.TOO_LONG
    assert named(typed, book, "ok_budget_run_within_rows") in (False, 0)
    assert named(blank, book, "ok_hours_mfu") in (False, 0)
    assert named(blank, book, "ok_budget_run_within_rows") in (True, 1)


# Serving that does not fit: money n/a at the users, in the engine, the HTML and the JSON ---------------------------
def test_the_cost_per_million_at_users_who_do_not_fit_is_na_and_null_in_json():
    """100 users where 52 fit (B_max of the default's H100 at 8,192 tokens): before, $0.23 per million was priced
    at a batch that cannot run."""
    results = compute(scenario_with(**{"serving.users": 100}))
    assert results.headline["serving_max_concurrency"] == 52
    assert results.headline["serving_cost_per_million_tokens"] == shared.NOT_SERVED
    data = results.to_json()
    assert data["headline"]["serving_cost_per_million_tokens"] is None
    assert data["not_available"]["serving_cost_per_million_tokens"] == "the users do not fit"
    assert data["headline"]["plan_total_cost"] is None
    assert data["not_available"]["plan_total_cost"] == "the users do not fit"
    assert isinstance(data["headline"]["hours_cost"], float) and "hours_cost" not in data["not_available"]
    html = render_html(results, generated="2026-12-02")
    assert "no cost per million (n/a: the users do not fit)" in html


def test_a_count_label_shows_a_fraction_as_typed_and_a_blank_as_a_question_mark():
    from planner.specs import count_text, text_formula
    assert count_text(1.5) == "1.5" and count_text(32) == "32" and count_text(1024.0) == "1,024"
    assert count_text(2.125) == "2.125"
    formula = text_formula("at {serving_users|count} users", {"serving_users": 1.5})
    assert formula.value == "at 1.5 users"
    assert 'IF(ISNUMBER(serving_users),IF(serving_users=INT(serving_users)' in formula.formula


@pytest.mark.spreadsheet
def test_cover_labels_show_what_the_cells_hold_and_never_n_a(spreadsheet, tmp_path):
    """Copies of a workbook whose Crossover takes the roofline's MFU: 100 users (52 fit) typed in, the users
    emptied, 1.5 users. The labels never read "n/a" nor "0 users" nor "2 users"; with 100 users the cost per million
    and the plan's alternatives say why they have no number (the users do not fit), not "run it again"."""
    scenario = scenario_with(**{"crossover.serving_mfu": "roofline"})
    original = tmp_path / "roofline.xlsx"
    build(compute(scenario), str(original))
    from tests.helpers import UNCOMPARED, build_in_memory
    from planner.workbook.kit import xl_rowcol_to_cell
    book = build_in_memory(scenario)
    cover = book.sheets["Cover"]
    copies = {}
    for label, users in (("too-many", 100), ("blank", None), ("fraction", 1.5)):
        copies[label] = tmp_path / f"{label}.xlsx"
        set_cells(original, copies[label], {"serving_users": users})
    outputs = dict(zip(copies, recalculated(spreadsheet, list(copies.values()), [UNCOMPARED] * len(copies))))

    def label_and_value(values, name):
        place = cover.places[f"key_{name}"]
        return (values.get(("Cover", xl_rowcol_to_cell(place.row, 0))),
                values.get(("Cover", xl_rowcol_to_cell(place.row, place.last_col))))

    for label, values in outputs.items():
        labels = [v for (sheet, a1), v in values.items() if sheet == "Cover" and a1.startswith("A")
                  and isinstance(v, str)]
        assert not [text for text in labels if "n/a" in text], label
        assert not [text for text in labels if text.endswith((" 0 users", " 2 users")) or " 0 users " in text
                    or " 2 users " in text], label
    too_many = outputs["too-many"]
    one_server = "One 1-GPU h100-sxm server at {} users, busy every hour at the on-demand price (Serving's " \
        "roofline, not the plan's months): cost per million output tokens"  # a what-if, not in the plan
    assert label_and_value(too_many, "serving_cost_per_million_tokens") == (one_server.format(100),
                                                                            shared.NOT_SERVED)
    for name in ("plan_total_cost", "plan_assumed_mfu_difference", "plan_growth_difference"):
        assert label_and_value(too_many, name)[1] == shared.NOT_SERVED, name
    assert label_and_value(outputs["fraction"], "serving_cost_per_million_tokens")[0] == one_server.format("1.5")
    assert label_and_value(outputs["blank"], "serving_cost_per_million_tokens")[0] == one_server.format("?")
    assert label_and_value(outputs["blank"], "plan_total_cost")[0].startswith(
        "The plan's total: the on-demand path over ")  # the path in words, not its id on_demand


# Finding 8: the tokens note's advice works -----------------------------------------------------------------------
@pytest.mark.spreadsheet
def test_typing_what_the_tokens_note_says_passes_its_check(spreadsheet, default_workbook, tmp_path):
    """The note on Inputs says to type 15.6 for 15.6 T (the cell is in trillions): a copy with 15.6 typed passes the
    tokens check and trains on 15.6e12 tokens; the whole count (what the note advised before) fails it."""
    original = default_workbook
    from planner import xlsx
    book = xlsx.read(original)
    sheet, ref = book.destinations("hours_tokens_trillions")[0]
    column, row = xlsx.split(ref)
    notes = [cell.value for (name, a1), cell in book.cells.items()
             if name == sheet and xlsx.split(a1)[1] == row and isinstance(cell.value, str)]
    assert any("on Inputs in trillions: type 15.6 for 15.6 T" in note for note in notes), notes
    assert not any("15600000000000" in note for note in notes)
    advised, whole = tmp_path / "advised.xlsx", tmp_path / "whole.xlsx"
    set_cells(original, advised, {"hours_tokens_trillions": 15.6})
    set_cells(original, whole, {"hours_tokens_trillions": 15600000000000})
    from tests.helpers import UNCOMPARED
    typed, counted = recalculated(spreadsheet, [advised, whole], [UNCOMPARED, UNCOMPARED])
    assert named(typed, book, "ok_hours_tokens") in (True, 1)
    assert named(typed, book, "hours_tokens") == 15.6e12
    assert named(counted, book, "ok_hours_tokens") in (False, 0)


# Finding 10: a Catalog price edit raises its Changed flag, and audit lists it -------------------------------------
@pytest.mark.spreadsheet
def test_a_catalog_price_edit_raises_the_changed_flag_and_audit_lists_it(spreadsheet, default_workbook, tmp_path):
    """The H100's price typed from $2 to $3 on Catalog: Inputs' price row (the GPU's, from Catalog) shows $2 when
    generated and Changed TRUE, every formula cell equals the engine of the edited scenario, and the workbook's
    reading lists the change (as `planner audit` prints it)."""
    from planner.roundtrip import workbook_data
    from tests.helpers import build_in_memory, catalog_cells
    original = default_workbook
    copy = tmp_path / "price.xlsx"
    set_cells(original, copy, catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_per_hour", 3.0)]))
    expected = build_in_memory(scenario_with(**{"catalog.gpus.h100-sxm.price_per_hour": 3.0}), like=copy)
    [values] = recalculated(spreadsheet, [copy], [expected])
    sheet, ref = expected.names["price_per_gpu_hour"]
    from planner import xlsx
    column, row = xlsx.split(ref)
    assert values[(sheet, ref)] == 3
    assert values[(sheet, f"{xlsx.column_letter(column + 1)}{row}")] == 2
    assert values[(sheet, f"{xlsx.column_letter(column + 2)}{row}")] in (True, 1)
    assert named(values, expected, "sensitivity_snapshot_current") in (False, 0)  # the tornado's total read it
    [(catalog, price_cell)] = catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_per_hour", 3.0)])
    changed = workbook_data(copy).changed
    assert sorted((where.split(" ")[0], now, then) for where, now, then in changed) == [
        (f"Catalog!{price_cell}", 3.0, 2), (f"Inputs!{ref}", 3.0, 2)]
    flags = expected.names["catalog_gpu_changed"][1].split(":")
    h100 = xlsx.split(price_cell)[1] - xlsx.split(flags[0])[1]
    column = xlsx.column_letter(xlsx.split(flags[0])[0])
    rows = range(xlsx.split(flags[0])[1], xlsx.split(flags[1])[1] + 1)
    assert [values[("Catalog", f"{column}{r}")] in (True, 1) for r in rows].index(True) == h100
    assert sum(values[("Catalog", f"{column}{r}")] in (True, 1) for r in rows) == 1  # only the H100's row


@pytest.mark.spreadsheet
def test_a_model_value_edited_on_catalog_flags_its_row_and_is_listed(spreadsheet, default_workbook, default_book,
                                                                     tmp_path):
    """The 8B model's layers typed from 32 to 40 on Catalog: its row's Changed flag turns TRUE (no other row's),
    and the workbook's reading lists the cell with its value when generated."""
    from planner import xlsx
    from planner.roundtrip import workbook_data
    from tests.helpers import UNCOMPARED, catalog_cells
    original = default_workbook
    copy = tmp_path / "layers.xlsx"
    edits = catalog_cells(original, [("catalog_model", "llama-3.1-8b", "layers", 40)])
    set_cells(original, copy, edits)
    [values] = recalculated(spreadsheet, [copy], [UNCOMPARED])
    book = default_book
    first, last = book.names["catalog_model_changed"][1].split(":")
    column = xlsx.column_letter(xlsx.split(first)[0])
    [(_, cell)] = edits
    flagged = [r for r in range(xlsx.split(first)[1], xlsx.split(last)[1] + 1)
               if values[("Catalog", f"{column}{r}")] in (True, 1)]
    assert flagged == [xlsx.split(cell)[1]]
    assert [(where.split(" ")[0], now, then) for where, now, then in workbook_data(copy).changed] == [
        (f"Catalog!{cell}", 40, 32)]


# Item 5 of issue 32: Scenarios ------------------------------------------------------------------------------------
@pytest.mark.spreadsheet
def test_scenarios_fixed_base_price_column_flags_differences_and_labels(spreadsheet, tmp_path):
    """scenarios-1 (base: H100 at $2.00, 40 % MFU, 15 T; low: 30 %, $1.80; high: H200 at $2.50, 45 %, 20 T).
    Recalculated as generated, every cell equals the engine. High shown: the Base price stays the H100's $2.00
    (before: the H200's $2.50). The low MFU edited to 35 % while base is shown: low's column flag turns FALSE, the
    others stay TRUE. The training cost's high − base and high vs base are §2's costs worked by hand; the labels
    below the snapshot say each column's GPU."""
    from pathlib import Path

    from planner import xlsx
    from planner.scenario import load_scenario
    from tests.helpers import UNCOMPARED
    from tests.test_scenarios import cost_by_hand
    source = Path(__file__).parents[1] / "examples" / "scenarios-1-70b-base-low-high.yaml"
    original = tmp_path / "scenarios.xlsx"
    build(compute(load_scenario(source)), str(original))
    high, low = tmp_path / "high.xlsx", tmp_path / "low.xlsx"
    set_cells(original, high, {"scenario": "high"})
    set_cells(original, low, {"hours_mfu_low": 0.35})
    generated, shown_high, edited_low = recalculated(spreadsheet, [original, high, low],
                                                     [None, UNCOMPARED, UNCOMPARED])
    book = xlsx.read(original)
    assert named(shown_high, book, "price_per_gpu_hour_base") == 2.0
    assert named(shown_high, book, "price_per_gpu_hour") == 2.5
    flags = book.destinations("scenarios_columns_current")[0][1].split(":")
    row = xlsx.split(flags[0])[1]
    columns = [f"{xlsx.column_letter(c)}{row}" for c in range(xlsx.split(flags[0])[0], xlsx.split(flags[1])[0] + 1)]
    assert [generated[("Scenarios", a1)] in (True, 1) for a1 in columns] == [True, True, True]
    assert [edited_low[("Scenarios", a1)] in (True, 1) for a1 in columns] == [True, False, True]
    cells = {a1: generated[("Scenarios", a1)] for (sheet, a1) in generated if sheet == "Scenarios"}
    heads = {value: a1 for a1, value in cells.items() if isinstance(value, str)}
    [cost_row] = [xlsx.split(a1)[1] for a1, value in sorted(cells.items(), key=lambda c: xlsx.split(c[0])[1])
                  if value == "Training cost, paid once, at the …'s price"][:1]
    base, high_cost = cost_by_hand(15e12, 0.40, 2.00), cost_by_hand(20e12, 0.45, 2.50)
    difference = xlsx.split(heads["high − base"])[0]
    share = xlsx.split(heads["high vs base"])[0]
    assert cells[f"{xlsx.column_letter(difference)}{cost_row}"] == pytest.approx(high_cost - base, rel=1e-9)
    assert cells[f"{xlsx.column_letter(share)}{cost_row}"] == pytest.approx(high_cost / base - 1, rel=1e-9)
    labels = [value for value in cells.values() if isinstance(value, str) and value.startswith("Training cost")]
    assert "Training cost, paid once, at the h100-sxm's price" in labels
    assert "Training cost, paid once, at the h200's price" in labels


# Finding 9: failed checks attributed to their real input; a Cover result never an empty cell -------------------------
@pytest.mark.spreadsheet
def test_a_bad_catalog_price_is_named_by_its_catalog_row_and_the_cover_shows_n_a_not_blanks(
        spreadsheet, default_workbook, default_book, tmp_path):
    """The H100's Catalog price typed as −1: the first failing check is the Catalog's, naming the entry and its row
    (before: "GPU (gpu)"); every Cover key result shows a value or "n/a: see Checks", none an empty cell (before: the
    plan's alternatives were blank)."""
    from tests.helpers import UNCOMPARED, catalog_cells
    original = default_workbook
    copy = tmp_path / "bad-price.xlsx"
    edits = catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_per_hour", -1)])
    set_cells(original, copy, edits)
    [values] = recalculated(spreadsheet, [copy], [UNCOMPARED])
    [(sheet, a1)] = edits
    from planner import xlsx
    row = xlsx.split(a1)[1]
    book = default_book
    assert named(values, book, "checks_first_failed") == \
        f"GPUs: every entry valid (Catalog's Valid column): h100-sxm's row fails ('Catalog'!A{row})"
    cover = book.sheets["Cover"]
    from planner.workbook.kit import xl_rowcol_to_cell
    shown = {key: values.get(("Cover", xl_rowcol_to_cell(place.row, place.last_col)))
             for key, place in cover.places.items() if key.startswith("key_")}
    assert [key for key, value in shown.items() if value in (None, "")] == []
    assert shown["key_plan_total_cost"] == "n/a: see Checks"
    assert shown["key_plan_growth_difference"] == "n/a: see Checks"


# Issue 43 finding 3: a plan's GPU priced 0 ----------------------------------------------------------------------------
def test_a_price_of_zero_for_the_plans_gpu_is_refused_naming_the_key(tmp_path):
    """Before: `price_per_gpu_hour: 0` gave a budget of 0. Refused (exit 2), naming the key and its line; the same
    for the plan's GPU priced 0 in the scenario's Catalog; another GPU may still be unpriced (0)."""
    from tests.helpers import refused
    for i, (text, key) in enumerate((("name: x\nprice_per_gpu_hour: 0\n", "price_per_gpu_hour"),
                                     ("name: x\ncatalog: {gpus: {h100-sxm: {price_per_hour: 0}}}\n",
                                      "catalog.gpus.h100-sxm.price_per_hour"))):
        (tmp_path / str(i)).mkdir()
        output, path = refused(tmp_path / str(i), text)
        assert f"{path}:2: {key}: value 0" in output and ("greater than 0" in output or "above 0" in output)
    assert compute(scenario_with(**{"catalog.gpus.h200.price_per_hour": 0})).headline["hours_cost"] > 0


@pytest.mark.spreadsheet
def test_the_plans_gpu_priced_0_or_blank_on_catalog_fails_a_check_and_its_money_reads_na(spreadsheet, tmp_path):
    """tco-4 (EUR) with the H100's Catalog price typed 0: before, a budget of €0 and "All checks pass". Now the check
    of the plan's price fails and every money figure on the GPU reads n/a (no error value anywhere); what needs no
    price (GPU-hours) stands. Emptied, the price fails the GPU block's check, with the same money n/a."""
    from planner.scenario import load_scenario
    from tests.helpers import UNCOMPARED, build_in_memory, catalog_cells
    source = ROOT / "examples" / "tco-4-8b-in-euros-fiscal-years.yaml"
    original = tmp_path / "tco-4.xlsx"
    build(compute(load_scenario(source)), str(original))
    copies = []
    for label, price in (("zero", 0), ("blank", None)):
        copies.append(tmp_path / f"{label}.xlsx")
        set_cells(original, copies[-1], catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_per_hour", price)]))
    zero, blank = recalculated(spreadsheet, copies, [UNCOMPARED, UNCOMPARED])
    book = build_in_memory(load_scenario(source))
    errors = re.compile(r"^(#|Err:)")
    for values, failed in ((zero, "ok_price_above_zero"), (blank, "ok_catalog_gpu")):
        assert [(k, v) for k, v in values.items() if isinstance(v, str) and errors.match(v)] == []
        assert named(values, book, failed) in (False, 0) and named(values, book, "checks_all_pass") in (False, 0)
        for name in ("plan_total_cost", "tco_npv", "hours_cost", "price_per_gpu_hour_converted", "price_on_demand",
                     "serving_cost_per_million_tokens", "crossover_serving_cost_per_million_tokens",
                     "cluster_net_gain_value", "budget_training_cost"):
            assert named(values, book, name) == "n/a: see Checks", (failed, name)
    assert named(zero, book, "price_per_gpu_hour") == 0  # the typed price, as typed
    assert named(zero, book, "ok_catalog_gpu") in (True, 1)  # 0 is a valid Catalog price: for another GPU
    assert named(zero, book, "hours_gpu_hours") == pytest.approx(book.formulas[book.names["hours_gpu_hours"]],
                                                                  rel=1e-9)
    # the label names the Catalog cell to fix (finding 3, finished)
    [(sheet, cell)] = catalog_cells(original, [("catalog_gpu", "h100-sxm", "price_per_hour", 0)])
    assert named(zero, book, "checks_first_failed") == \
        f"The plan's GPU has a price per GPU-hour above 0 (price_per_gpu_hour, on Catalog): h100-sxm's price is in " \
        f"'{sheet}'!{cell}"


# Finding 4: the word layout offered only where the workbook has a layout search ----------------------------------------
def test_the_mfu_dropdown_offers_layout_only_with_a_layout_search():
    from pathlib import Path

    from planner.scenario import load_scenario
    from planner.listing import input_sections

    def mfu(scenario):
        return next(i for _, items in input_sections(scenario) for i in items if i.path == "hours.mfu")

    plain = mfu(scenario_with())
    assert plain.allowed.keywords == () and plain.allowed.validation("MFU")["validate"] == "decimal"
    assert "the word layout needs a layout search" in plain.note
    searched = mfu(load_scenario(Path(__file__).parents[1] / "examples" / "layouts-1-405b-search.yaml"))
    assert searched.allowed.keywords == ("layout",)
    assert searched.allowed.validation("MFU")["source"] == ["layout"]


@pytest.mark.spreadsheet
def test_layout_typed_without_a_search_fails_the_mfu_check_and_nothing_errs(spreadsheet, default_workbook,
                                                                            default_book, tmp_path):
    """"layout" typed as the MFU of a workbook without a layout search: its check FALSE, named first on the Cover;
    no error value anywhere (the results that read it say n/a)."""
    import re

    from tests.helpers import UNCOMPARED
    original = default_workbook
    copy = tmp_path / "layout.xlsx"
    set_cells(original, copy, {"hours_mfu": "layout"})
    [values] = recalculated(spreadsheet, [copy], [UNCOMPARED])
    book = default_book
    assert named(values, book, "ok_hours_mfu") in (False, 0)
    assert named(values, book, "checks_first_failed") == "Model FLOPs utilisation (MFU) (hours_mfu)"
    assert [k for k, v in values.items() if isinstance(v, str) and re.match(r"^(#|Err:)", v)] == []
    assert named(values, book, "hours_cost") in ("", "n/a: see Checks")


# Finding 9: "n/a" follows the inputs a result reads ------------------------------------------------------------------
@pytest.mark.spreadsheet
def test_a_blank_users_leaves_the_crossover_at_a_typed_mfu_and_blanks_it_with_roofline(
        spreadsheet, default_workbook, default_book, tmp_path):
    """The users emptied: at the default's typed 10 % serving MFU the Crossover keeps its numbers (before: n/a,
    though it reads no users): 2·Ψ·D/(peak·0.10·3600) GPU-hours a day and $0.0902 per million served tokens as
    generated; with the word roofline, which reads the Serving table at the users, it reads n/a, and nothing errs."""
    import re

    from tests.helpers import UNCOMPARED
    roofline_workbook = tmp_path / "roofline.xlsx"
    build(compute(scenario_with(**{"crossover.serving_mfu": "roofline"})), str(roofline_workbook))
    paths = []
    for label, original in (("typed", default_workbook), ("roofline", roofline_workbook)):
        paths.append(tmp_path / f"{label}-blank.xlsx")
        set_cells(original, paths[-1], {"serving_users": None})
    typed, roofline = recalculated(spreadsheet, paths, [UNCOMPARED, UNCOMPARED])
    book = default_book
    generated = compute(scenario_with()).headline
    assert named(typed, book, "crossover_serving_cost_per_million_tokens") == pytest.approx(
        generated["crossover_serving_cost_per_million_tokens"], rel=1e-9)
    assert generated["crossover_serving_cost_per_million_tokens"] == pytest.approx(0.0902175, rel=1e-6)
    assert named(typed, book, "ok_serving_users") in (False, 0)
    assert named(roofline, book, "crossover_serving_cost_per_million_tokens") == "n/a: see Checks"
    for values in (typed, roofline):
        assert [k for k, v in values.items() if isinstance(v, str) and re.match(r"^(#|Err:)", v)] == []


# Finding 5: the Layouts sheet's layouts are a snapshot of the search, labelled so -----------------------------------
@pytest.mark.spreadsheet
def test_layouts_are_a_snapshot_flagged_when_the_gpu_or_deadline_no_longer_match(spreadsheet, tmp_path):
    """layouts-1: the shown layouts' integers are locked snapshot cells (before: 240 yellow input cells on a
    calculation sheet); the GPU switched to the H200, or a 30-day deadline typed, turns the check that the search
    was for these FALSE, the cheapest layout's cost, days, GPUs, MFU and deadline read "n/a" with the reason
    (before: the cheapest stood, meeting a deadline it had not been searched for), and so does what reads them: the
    word layout for the training MFU fails its check, the training cost reads n/a; no error value anywhere."""
    from pathlib import Path

    import openpyxl

    from planner.scenario import load_scenario
    from tests.helpers import UNCOMPARED, build_in_memory
    source = Path(__file__).parents[1] / "examples" / "layouts-1-405b-search.yaml"
    original = tmp_path / "layouts.xlsx"
    build(compute(load_scenario(source)), str(original))
    book = build_in_memory(load_scenario(source))
    sheet, cell = book.names["search_cheapest_gpus"]
    assert openpyxl.load_workbook(original)[sheet][cell].protection.locked
    copies = []
    for label, cells in (("h200", {"gpu": "h200"}), ("deadline", {"search_deadline_days": 30})):
        copies.append(tmp_path / f"{label}.xlsx")
        set_cells(original, copies[-1], cells)
    outputs = recalculated(spreadsheet, [original, *copies], [None, UNCOMPARED, UNCOMPARED])
    assert named(outputs[0], book, "ok_search_as_searched") in (True, 1)
    snapshot = re.search(r"ok_search_as_searched,(\$?[A-Z]+\$?\d+),", book.texts[book.names["search_cheapest_gpus"]])
    assert named(outputs[0], book, "search_cheapest_gpus") == outputs[0][("Layouts", snapshot[1].replace("$", ""))]
    stale = "n/a: the GPU, deadline or GPU budget changed since the search; run the planner again"
    for values in outputs[1:]:
        assert named(values, book, "ok_search_as_searched") in (False, 0)
        for key in ("cost", "days", "gpus", "mfu", "meets_deadline"):
            assert named(values, book, f"search_cheapest_{key}") == stale, key
        assert named(values, book, "ok_hours_mfu") in (False, 0)  # mfu: layout reads the search
        assert named(values, book, "hours_cost") == "n/a: see Checks"
        assert [v for v in values.values() if isinstance(v, str) and v.startswith(("#", "Err:"))] == []


# Issue 32 item 3: a run that misses the deadline prices nothing of the plan ---------------------------------------
# The default's run on 1,024 GPUs takes 21.475 days (6 · 8.03e9 · 1e12 FLOPs at 0.4 of 989 TFLOPS); a layout search
# with a deadline of 20 days finds it late, one of 30 days on time. The MFU stays the typed 0.4 (not "layout").
PAST = "n/a: the training run takes longer than the deadline"
LATE = {"search.gpus_max": 1024, "search.deadline_days": 20}


def test_a_run_past_the_deadline_leaves_the_plans_totals_na_and_its_parts_stand():
    """Before: with `search:` and a typed MFU, a 21.5-day run under a 20-day deadline priced a plan total."""
    late = compute(scenario_with(**LATE)).headline
    default = compute(scenario_with()).headline
    assert late["hours_days"] == pytest.approx(21.475, abs=5e-4)
    for name in ("plan_total_cost", "budget_total_cost", "sensitivity_total_cost", "tco_npv",
                 "budget_average_month_total_cost", "budget_horizon_total_cost"):
        assert late[name] == PAST, name
    assert late["hours_cost"] == pytest.approx(default["hours_cost"], rel=1e-12)  # what training costs stands
    assert late["budget_serving_cost"] == pytest.approx(default["budget_serving_cost"], rel=1e-12)
    on_time = compute(scenario_with(**{**LATE, "search.deadline_days": 30})).headline
    assert on_time["plan_total_cost"] == pytest.approx(default["plan_total_cost"], rel=1e-12)
    data = compute(scenario_with(**LATE)).to_json()
    assert data["headline"]["plan_total_cost"] is None
    assert data["not_available"]["plan_total_cost"] == "the training run takes longer than the deadline"
    html = render_html(compute(scenario_with(**LATE)), generated="2026-12-02")
    assert "Training takes 21.5 days, past the layout search&#39;s deadline of 20 days" in html


@pytest.mark.spreadsheet
def test_a_deadline_typed_on_inputs_turns_the_total_na_and_back(spreadsheet, tmp_path):
    """The late workbook recalculated equals the engine (the total reads the reason); the deadline typed as 30 days,
    or emptied, gives the total back: the default's, whose run the deadline no longer stops (the copies' Layouts
    snapshot is stale, as it should be, so they are not compared cell by cell); no error value anywhere."""
    from tests.helpers import UNCOMPARED
    original = tmp_path / "late.xlsx"
    build(compute(scenario_with(**LATE)), str(original))
    met, blank = tmp_path / "met.xlsx", tmp_path / "blank.xlsx"
    set_cells(original, met, {"search_deadline_days": 30})
    set_cells(original, blank, {"search_deadline_days": None})
    from planner import xlsx
    book = xlsx.read(original)
    outputs = recalculated(spreadsheet, [original, met, blank], [None, UNCOMPARED, UNCOMPARED])
    assert named(outputs[0], book, "plan_total_cost") == PAST
    assert named(outputs[0], book, "budget_average_month_total_cost") == PAST
    total = compute(scenario_with()).headline["plan_total_cost"]
    for values in outputs[1:]:
        assert named(values, book, "plan_total_cost") == pytest.approx(total, rel=1e-9)
        assert [v for v in values.values() if isinstance(v, str) and v.startswith(("#", "Err:"))] == []


@pytest.mark.spreadsheet
def test_a_blank_profile_blanks_what_reads_it_and_leaves_the_rest(spreadsheet, default_workbook, default_book,
                                                                  tmp_path):
    """The cluster's demand profile emptied (before: the whole budget n/a): §9's training and serving costs, the
    horizon's total at launch traffic and Hours' cost keep the generated numbers (none reads the profile); standby
    (a fleet sized for each hour's peak), the suggested baseline B* (the h*-th busiest hour) and so the calendar,
    whose plan end reads B* (a commitment in use ends later, §13), read "n/a: see Checks"; the profile's check is
    FALSE and nothing errs."""
    from tests.helpers import UNCOMPARED
    original, blank = default_workbook, tmp_path / "blank.xlsx"
    set_cells(original, blank, {"cluster_profile": None})
    values = recalculated(spreadsheet, [blank], [UNCOMPARED])[0]
    book, results = default_book, compute(scenario_with())
    generated = {**{f"budget_{key}": value for key, value in results.tables["budget"].scalars.items()},
                 **results.headline}
    for name in ("budget_training_cost", "budget_serving_cost", "budget_horizon_total_cost", "hours_cost",
                 "crossover_serving_cost_per_million_tokens", "serving_cost_per_million_tokens"):
        assert named(values, book, name) == pytest.approx(generated[name], rel=1e-9), name
    for name in ("budget_standby_cost", "serving_baseline_gpus_suggested", "plan_end", "plan_total_cost"):
        assert named(values, book, name) == "n/a: see Checks", name
    assert named(values, book, "ok_cluster_profile") in (False, 0)
    assert [v for v in values.values() if isinstance(v, str) and v.startswith(("#", "Err:"))] == []


# Issue 43 item 3: premises that fail say so where finance reads ------------------------------------------------------
FLEET_1 = ROOT / "examples" / "fleet-1-8b-five-gpus.yaml"
ERRORS = re.compile(r"^(#|Err:)")


@pytest.mark.spreadsheet
def test_an_edited_fleet_input_reads_run_the_planner_again_on_the_cover_never_no_configuration(
        spreadsheet, example_files, tmp_path):
    """Finding 2: fleet-1's peak rate typed 10 → 20 in a copy. Before, the Cover's total read "n/a: no fleet
    configuration meets the SLO" (`planner run` at 20 finds one: 28 MI300X replicas). Now the total, its NPV, the
    fleet's answer and every money figure that reads the Fleet say the Fleet's inputs changed; no cell of the Cover
    says no configuration meets the SLO; and the reason, in the Cover's narrow value column, reads whole on paper."""
    from planner import xlsx
    original = example_files(FLEET_1)["xlsx"]
    edited = tmp_path / "rate-20.xlsx"
    set_cells(original, edited, {"fleet_peak_rate": 20})
    from tests.helpers import UNCOMPARED
    [values] = recalculated(spreadsheet, [edited], [UNCOMPARED])
    book = xlsx.read(original)
    stale = "n/a: the Fleet's inputs changed: run the planner again"
    for name in ("plan_total_cost", "tco_npv", "tco_on_demand_total_cost", "tco_committed_total_cost",
                 "fleet_answer", "plan_serving_reason", "unit_cost_per_request"):
        assert named(values, book, name) == stale, name
    cover = {ref: v for (sheet, ref), v in values.items() if sheet == "Cover"}
    assert not [v for v in cover.values() if isinstance(v, str) and "meets the SLO" in v]
    assert stale in cover.values()
    import openpyxl
    ws = openpyxl.load_workbook(original)["Cover"]
    total = next(cell for row in ws.iter_rows() for cell in row if cell.data_type == "f"
                 and cell.value == '=IFERROR(IF(plan_total_cost="","n/a: see Checks",plan_total_cost),'
                                    '"n/a: see Checks")')
    # general alignment: the number right, the reason left, on one line into the empty cells to its right (before:
    # right-aligned, it ran left under the label and was clipped to "…nfiguration meets the SLO")
    assert total.alignment.horizontal in (None, "general") and not total.alignment.wrap_text
    assert [cell.value for cell in ws[total.row][total.column:]] == [None] * (ws.max_column - total.column)


def test_standing_na_texts_are_blank_while_their_premise_holds():
    """Finding 14: before, Cost's "Why serving money reads n/a" read "n/a: the users do not fit" where they fit, and
    fleet-1's "no fleet configuration meets the SLO" beside a TRUE check that one does. Blank while serving fits (the
    engine's value, which the sheet caches); the reason only where it fails."""
    from planner.scenario import load_scenario
    from tests.helpers import build_in_memory
    for scenario in (scenario_with(), load_scenario(FLEET_1)):
        book = build_in_memory(scenario)
        assert book.formulas[book.names["plan_serving_reason"]] == ""
        assert book.formulas[book.names["plan_serving_fits"]] is True
        texts = [v for (sheet, _), v in book.formulas.items() if sheet == "Cost" and isinstance(v, str)]
        assert not [t for t in texts if t in (shared.NOT_SERVED, shared.NO_FLEET_SERVES)]
    book = build_in_memory(scenario_with(**{"serving.users": 100}))  # 52 fit
    assert book.formulas[book.names["plan_serving_reason"]] == shared.NOT_SERVED


@pytest.mark.spreadsheet
def test_a_fleet_gpu_priced_0_or_blank_fails_a_check_naming_its_catalog_cell_and_is_never_the_cheapest(
        spreadsheet, tmp_path):
    """Finding 3: fleet-1's cheapest GPU, the MI300X, priced 0 on Catalog. Before: the cheapest at $0 an hour and a
    serving budget of 0 beside "All checks pass". Now the H200 ($45.00 an hour, the next cheapest: 18 GPUs at $2.50)
    is the Fleet's cheapest, the check of the Fleet's GPUs fails naming the MI300X's Catalog cell, and the plan's
    money reads n/a with the reason; emptied, the price fails the GPU block's check and the money reads n/a too."""
    from planner import xlsx
    from planner.engine import compute
    from planner.workbook import build
    from tests.helpers import UNCOMPARED, catalog_cells, scenario_with
    original = tmp_path / "fleet-1.xlsx"  # at §6's overhead alone, where §11's worked figures hold (METHOD §14)
    build(compute(scenario_with(FLEET_1, **{f"serving.{key}": 0 for key in (
        "overhead_fixed_ms", "overhead_per_layer_ms", "overhead_per_sequence_ms", "dispatch_ms_per_layer")})),
        str(original))
    cells = catalog_cells(original, [("catalog_gpu", "mi300x", "price_per_hour", 0)])
    [(sheet, cell)] = cells
    copies = [tmp_path / "zero.xlsx", tmp_path / "blank.xlsx"]
    set_cells(original, copies[0], cells)
    set_cells(original, copies[1], {key: None for key in cells})
    zero, blank = recalculated(spreadsheet, copies, [UNCOMPARED, UNCOMPARED])
    book = xlsx.read(original)
    for values in (zero, blank):
        assert [(k, v) for k, v in values.items() if isinstance(v, str) and ERRORS.match(v)] == []
        assert named(values, book, "checks_all_pass") in (False, 0)
        assert isinstance(named(values, book, "plan_total_cost"), str)
        assert named(values, book, "plan_total_cost").startswith("n/a")
    assert named(zero, book, "ok_fleet_gpus_priced") in (False, 0)
    assert named(zero, book, "fleet_cheapest_gpu") == "h200"
    assert named(zero, book, "fleet_cheapest_cost_per_hour") == pytest.approx(18 * 2.50)
    assert named(zero, book, "plan_total_cost") == "n/a: a Fleet GPU has no price above 0 on Catalog: see Checks"
    assert named(zero, book, "checks_first_failed") == ("Fleet: every GPU searched has a price per GPU-hour above 0 "
                                                       f"on Catalog: mi300x's price is in '{sheet}'!{cell}")


@pytest.mark.spreadsheet
def test_the_budgets_money_reads_na_when_an_input_fails_and_its_sums_still_add(spreadsheet, default_workbook,
                                                                             tmp_path):
    """Finding 7: the default's MFU emptied. Before, the Budget's month and fiscal-year money cells read "" (a link
    or a SUM of them reads 0) and its NPV was blank while the Cover and Cost said n/a. Now each of them reads
    "n/a: see Checks"; the untouched copy's cells are numbers (or "" outside the plan) and its fiscal years still
    add up to the total (their SUM passes text by)."""
    from planner import xlsx
    from tests.helpers import UNCOMPARED
    blank = tmp_path / "blank.xlsx"
    set_cells(default_workbook, blank, {"hours_mfu": None})
    [values] = recalculated(spreadsheet, [blank], [UNCOMPARED])
    book = xlsx.read(default_workbook)
    na = "n/a: see Checks"
    for column in ("calendar_total", "calendar_on_demand_total", "calendar_owned_cash", "calendar_other"):
        sheet, ref = address(book, column)
        assert values[(sheet, ref.split(":")[0])] == na, column  # the first month's
    formulas = _formulas(default_workbook, "Budget")
    fiscal = [cell for cell, formula in formulas if "SUMIF(calendar_fiscal_year_number" in formula]
    assert len(fiscal) >= 6 and all(values[("Budget", cell)] == na for cell in fiscal)
    budget_npv = next(cell for cell, formula in formulas if "tco_npv" in formula)
    assert values[("Budget", budget_npv)] == na
    for name in ("fiscal_years_total", "tco_npv", "plan_total_cost"):
        assert named(values, book, name) == na
    [untouched] = recalculated(spreadsheet, [default_workbook])
    assert isinstance(untouched[("Budget", fiscal[0])], float | int)
    assert named(untouched, book, "fiscal_years_total") == pytest.approx(named(untouched, book, "plan_total_cost"),
                                                                          rel=1e-9)


def _formulas(path, sheet):
    import openpyxl
    ws = openpyxl.load_workbook(path)[sheet]
    return [(cell.coordinate, cell.value) for row in ws.iter_rows() for cell in row if cell.data_type == "f"]


@pytest.mark.spreadsheet
def test_the_largest_swing_turns_na_once_its_inputs_change(spreadsheet, default_workbook, tmp_path):
    """Finding 8: the training tokens typed ×2 in a copy. Before, "the input that moves the plan's total most" kept
    its answer as generated while the three snapshots above it turned n/a. Now it reads the snapshot's n/a too; the
    untouched workbook names the input (tokens a day for the default: its ±20 % moves serving, the larger part)."""
    from planner import xlsx
    from planner.workbook.sensitivity import STALE
    edited = tmp_path / "tokens.xlsx"
    set_cells(default_workbook, edited, {"hours_tokens": 31.2e12})
    from tests.helpers import UNCOMPARED
    [values] = recalculated(spreadsheet, [edited], [UNCOMPARED])
    book = xlsx.read(default_workbook)
    assert named(values, book, "sensitivity_snapshot_current") in (False, 0)
    assert named(values, book, "sensitivity_largest_swing") == STALE
    assert named(values, book, "plan_growth_difference") == STALE
    cover = [v for (sheet, _), v in values.items() if sheet == "Cover"]
    assert cover.count(STALE) >= 4  # the three differences and the largest swing
