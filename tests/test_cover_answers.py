"""The Cover answers the budget owner (issue 43 item 1; docs/method.md §13.16): the paths like for like, the cheapest,
GPUs by month and their peak, the plan's cost per million output tokens, the commitments and the total at ±20 %
demand, each worked by hand from METHOD.md §13.5 on a small plan; and the five answers on the first two printed pages
of the default, a fleet, an owned and a EUR workbook (read with openpyxl; tests/test_workbook_recalc.py and
tests/test_recalc.py recalculate every formula cell of them in LibreOffice and compare it with the engine)."""

from __future__ import annotations

import datetime as dt
import math
import re

import openpyxl
import pytest

from planner.engine import answers, compute
from planner.engine.calendar import date_of, edate_keeping_time
from planner.report import render_html
from tests.conftest import DEFAULT_EXAMPLE, ROOT
from tests.helpers import scenario_with

pytestmark = pytest.mark.usefixtures("section_6_overheads")  # METHOD §6-§13 worked at τ alone

DAY = dt.date(2026, 12, 7)
FLAT = {"budget.escalation": 0.0, "budget.contingency": 0.0, "budget.monthly_growth": 0.0}  # §13.5 by hand


def flat(**changes):
    return compute(scenario_with(**(FLAT | changes)), generated=DAY)


def per_day(r) -> float:
    """Used GPU-hours a day at the plan's traffic: D / (3600 · TokS) (§13.5's U_k per serving day, growth 0)."""
    return r.tables["crossover"].scalars["tokens_per_day"] / (3600 * r.headline["serving_tokens_per_s_per_gpu"])


def peak(r) -> int:
    """G_k = CEIL9(ĝ_k · MAX(f)), ĝ_k = U_k/(v_k · Σf): the same every month without growth."""
    profile = r.cost.plan.profile
    return math.ceil(round(per_day(r) / sum(profile) * max(profile), 9))


# The paths like for like -----------------------------------------------------------------------------------------
def test_held_less_released_is_the_standby_hours_at_the_on_demand_price():
    """Without growth, escalation or contingency the fleet held at each month's peak idles 24·G − U_d GPU-hours a
    day over the horizon: held − released = (24·G·H − U_d·H)·p_od."""
    r = flat()
    h, horizon = r.headline, r.scenario.crossover.horizon_days
    price = r.cost.scalars["price_on_demand"]
    assert price == r.scenario.chosen_gpu.price_per_hour  # USD, fx 1
    standby = (24 * peak(r) * horizon - per_day(r) * horizon) * price
    assert standby > 0
    assert h["plan_total_on_demand"] == h["tco_on_demand_total_cost"] == h["plan_total_cost"]
    assert h["plan_total_on_demand_held"] - h["plan_total_on_demand"] == pytest.approx(standby, rel=1e-9)


def test_held_carries_the_contingency_and_adds_up_by_fiscal_year():
    r = flat(**{"budget.contingency": 0.1})
    h = r.headline
    base = flat()
    standby = base.headline["plan_total_on_demand_held"] - base.headline["plan_total_on_demand"]
    assert h["plan_total_on_demand_held"] - h["plan_total_on_demand"] == pytest.approx(1.1 * standby, rel=1e-9)
    years = sum(fy["on_demand_held_total"] for fy in r.cost.fiscal_years)
    assert years == pytest.approx(h["plan_total_on_demand_held"], rel=1e-12)
    assert h["plan_npv_on_demand_held"] > h["plan_npv_on_demand"]


def test_held_is_the_on_demand_path_when_standby_is_in_the_total():
    h = flat(**{"budget.include_standby": True}).headline
    assert h["plan_total_on_demand_held"] == h["plan_total_on_demand"] == h["plan_total_cost"]
    assert h["plan_npv_on_demand_held"] == h["plan_npv_on_demand"]


def test_the_cheapest_path_is_named_among_those_with_a_total():
    totals = {"on_demand_total": 5.0, "on_demand_held_total": 7.0, "committed_total": 4.0,
              "owned_total": "n/a: no server price or kW"}
    assert answers.cheapest(totals, False) == ("Committed baseline + burst (of the paths with a total)", 4.0)
    totals |= {"committed_total": 5.0, "owned_total": 6.0}  # equal totals: the first in the Cover's order
    assert answers.cheapest(totals, False) == ("On demand, released hour by hour", 5.0)
    assert answers.cheapest(totals, True)[0] == "On demand, with standby (included)"
    assert answers.cheapest(dict.fromkeys(totals, "n/a: the users do not fit"), False) == (answers.NO_TOTAL,) * 2
    assert answers.saving(9.0, 4.0) == 5.0 and answers.saving("n/a: x", 4.0) == "n/a: x"


def test_an_owned_path_without_a_server_price_is_left_out_and_the_words_say_so():
    """custom-model-and-gpu's GPU has no server price or kW: the owned path reads n/a, the cheapest is chosen among
    the other three and says so (the workbook's twin is recalculated with every example)."""
    h = _example("custom-model-and-gpu").headline
    assert h["plan_total_owned"] == "n/a: no server price or kW"
    assert h["plan_cheapest_path"].endswith(answers.OF_THOSE)
    assert h["plan_cheapest_total"] == min(h["plan_total_on_demand"], h["plan_total_on_demand_held"],
                                           h["plan_total_committed"])


def test_the_default_names_the_committed_path_and_its_saving():
    """tco-1's worked totals (METHOD §13.12): on demand $21,198,797, committed below it, owned far above."""
    h = compute(scenario_with(), generated=DAY).headline
    assert h["plan_total_committed"] < h["plan_total_on_demand"] < h["plan_total_owned"]
    assert h["plan_cheapest_path"] == "Committed baseline + burst"
    assert h["plan_cheapest_total"] == h["plan_total_committed"]
    assert h["plan_cheapest_saving"] == pytest.approx(h["plan_total_on_demand"] - h["plan_total_committed"],
                                                      rel=1e-12)


# GPUs by month -----------------------------------------------------------------------------------------------------
def test_gpus_by_month_of_the_default():
    """Training: the run's 1,024 GPUs in the months it trains (the first: 21.5 days from 1 January 2027); serving:
    G_k = CEIL9(D/(3600·TokS)/Σf · MAX f) in a whole month (February); the committed baseline B_c and the owned
    N_own (the largest G_k) in every serving month; blank beyond the plan; the peak is the first month's 1,024 + G."""
    r = compute(scenario_with(), generated=DAY)
    months = answers.gpus_by_month(r.cost)
    in_plan = [m for m in months if m["month"] != ""]
    assert len(in_plan) == r.headline["tco_months"] == 25
    assert date_of(in_plan[0]["month"]) == dt.date(2027, 1, 1)
    g = peak(r)
    assert [in_plan[0]["training"], in_plan[1]["training"]] == [r.scenario.hours.gpus, 0] == [1024, 0]
    assert in_plan[1]["serving"] == g == 1312
    assert all(m["serving"] == g and m["held"] == m["training"] + g for m in in_plan)
    baseline = r.headline["serving_baseline_gpus_used"]
    assert baseline > 0 and all(m["committed"] == baseline for m in in_plan)
    assert all(m["owned"] == g for m in in_plan)  # N_own blank: the largest G_k, bought at launch (January)
    assert all(set(m.values()) == {""} for m in months[len(in_plan):])
    assert r.headline["plan_peak_gpus"] == 1024 + g == 2336


def test_peak_gpus_reads_why_not_where_serving_does_not_fit():
    r = compute(scenario_with(**{"serving.users": 100_000}), generated=DAY)
    assert not r.cost.plan.serving_fits
    assert r.headline["plan_peak_gpus"] == r.cost.plan.serving_na


def test_the_sized_peak_is_read_against_the_profiles_busiest_hour():
    """Demand risk (issue 43 item 1, §13.16): without growth every serving month holds G = CEIL9(ĝ·MAX f) GPUs,
    and the profile's busiest hour keeps ĝ·MAX f of them busy, ĝ = U_d/Σf (U_d the GPU-hours a day): covered, each
    number in the words."""
    r = flat()
    profile = r.cost.plan.profile
    busiest = round(per_day(r) / sum(profile) * max(profile), 9)
    assert peak(r) == math.ceil(busiest) > busiest
    assert r.headline["plan_busiest_hour_flag"] == (
        f"covered: {peak(r):,} serving GPUs at the peak month hold its busiest hour, which keeps {busiest:,.1f} busy")
    unfit = compute(scenario_with(**{"serving.users": 100_000}), generated=DAY)
    assert unfit.headline["plan_busiest_hour_flag"] == unfit.cost.plan.serving_na


@pytest.mark.spreadsheet
def test_the_busiest_hour_flag_turns_when_the_sized_peak_falls_below_it(libreoffice, default_workbook, default_book,
                                                                        tmp_path):
    """The flag is live: the peak months' sized GPUs typed down to one below the GPUs the busiest hour keeps busy
    (on Budget), LibreOffice turns the Cover's line to BELOW with the numbers; as written it reads covered."""
    from tests.helpers import UNCOMPARED, recalculated, set_cells

    sheet, ref = default_book.names["calendar_committed_gpus"]
    first, last = ref.replace("$", "").split(":")
    column, top, bottom = first.rstrip("0123456789"), int(first.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")), int(
        last.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    cells = {f"{column}{r}": default_book.formulas[(sheet, f"{column}{r}")] for r in range(top, bottom + 1)}
    sized = max(v for v in cells.values() if isinstance(v, (int, float)))
    flag = default_book.formulas[default_book.names["plan_busiest_hour_flag"]]
    busiest = float(re.search(r"which keeps ([\d,.]+) busy", flag)[1].replace(",", ""))
    assert flag.startswith(f"covered: {sized:,} serving GPUs") and busiest <= sized <= busiest + 1 and busiest > 1
    copy = tmp_path / "below.xlsx"
    lower = math.floor(busiest) - 1
    set_cells(default_workbook, copy, {(sheet, a1): lower for a1, value in cells.items() if value == sized})
    [recalc] = recalculated(libreoffice, [copy], [UNCOMPARED])
    assert recalc[default_book.names["plan_busiest_hour_flag"]] == (
        f"BELOW: {lower:,} serving GPUs at the peak month, fewer than the {busiest:,.1f} its busiest hour keeps "
        "busy: requests wait at that hour")


# The plan's unit costs ----------------------------------------------------------------------------------------------
def test_cost_per_million_tokens_of_the_plan_is_the_price_over_the_throughput():
    """On demand, no growth, no escalation or contingency: serving = T/(3600·TokS)·p_od, so a million output tokens
    cost p_od·1e6/(3600·TokS); training is the Hours table's cost."""
    r = flat()
    h = r.headline
    expected = r.cost.scalars["price_on_demand"] * 1e6 / (3600 * h["serving_tokens_per_s_per_gpu"])
    assert h["plan_cost_per_million_tokens"] == pytest.approx(expected, rel=1e-9)
    assert h["plan_training_cost"] == pytest.approx(h["hours_cost"], rel=1e-9)  # the months to a billionth of a day


# Commitments --------------------------------------------------------------------------------------------------------
def _example(stem: str):
    return compute(scenario_with(next((ROOT / "examples").glob(f"{stem}*.yaml"))), generated=DAY)


def test_the_serving_baseline_commitment_of_tco_3():
    """B_c GPUs for every hour of whole 12-month terms from the launch L: B_c·24·(EDATE(L, 12·n) − L)·p_c."""
    r = _example("tco-3")
    s, h = r.cost.scalars, r.headline
    used, launch, end = s["serving_baseline_gpus_used"], s["launch_date"], s["serving_end"]
    assert used > 0 and s["serving_term_months"] == 12
    terms = math.ceil((end - launch) / 365)  # the horizon's whole years
    term_end = edate_keeping_time(launch, 12 * terms)
    assert h["plan_baseline_commitment_end"] == pytest.approx(term_end, abs=1e-9)
    assert h["plan_baseline_commitment_value"] == pytest.approx(used * 24 * (term_end - launch)
                                                                * s["price_committed_1y"], rel=1e-12)
    past = 0 if term_end <= end else 1 + (date_of(term_end).year - date_of(end).year) * 12 \
        + date_of(term_end).month - date_of(end).month - 1
    assert h["plan_baseline_commitment_months_past"] == past
    assert h["plan_training_commitment_value"] == answers.NOT_COMMITTED


def test_the_training_commitment_and_the_capex():
    """Training on a 1-year commitment: N_run GPUs for every hour from S to EDATE(S, 12) at p_1y; the owned path's
    capex N_own·server price goes out at the launch."""
    r = _example("tco-7-8b-training-committed")
    s, h = r.cost.scalars, r.headline
    start = s["start_date"]
    term_end = edate_keeping_time(start, 12)
    assert h["plan_training_commitment_end"] == pytest.approx(term_end, abs=1e-9)
    assert h["plan_training_commitment_value"] == pytest.approx(
        r.scenario.hours.gpus * 24 * (term_end - start) * s["price_committed_1y"], rel=1e-12)
    assert h["plan_training_commitment_months_past"] == 0  # the run's year ends before serving does
    server = r.scenario.chosen_gpu.server_price
    assert h["plan_capex"] == pytest.approx(s["own_gpus"] * server, rel=1e-12)
    assert h["plan_capex_date"] == s["launch_date"]


# Demand risk --------------------------------------------------------------------------------------------------------
def test_the_total_at_less_and_more_demand_is_the_tornados_demand_bar():
    """On demand, flat: total(D) = training + U·p_od with U ∝ D, so at ×0.8 and ×1.2 of the served tokens a day
    (whole tokens) the serving part moves in proportion."""
    r = flat()
    h = r.headline
    training, serving = h["plan_training_cost"], h["plan_total_cost"] - h["plan_training_cost"]
    tokens = r.tables["crossover"].scalars["tokens_per_day"]
    for name, factor in (("plan_total_demand_low", 0.8), ("plan_total_demand_high", 1.2)):
        moved = math.floor(tokens * factor + 0.5)
        assert h[name] == pytest.approx(training + serving * moved / tokens, rel=1e-9)
    line = next(line for line in r.sensitivity.tornado if line["id"] == "tokens_per_day")
    assert (h["plan_total_demand_low"], h["plan_total_demand_high"]) == (line["total_low"], line["total_high"])


# On the Cover: the five answers on its first two printed pages --------------------------------------------------
SHOWN = ("plan_total_cost", "tco_npv", "plan_total_demand_low", "plan_total_demand_high")  # named elsewhere
ANSWERS = SHOWN + ("plan_first_month", "plan_last_month", "plan_total_on_demand",
           "plan_total_on_demand_held", "plan_total_committed", "plan_total_owned", "plan_cheapest_path",
           "plan_cheapest_saving", "plan_training_cost", "plan_cost_per_million_tokens",
           "plan_baseline_commitment_value", "plan_capex", "plan_peak_gpus")
COVER_EXAMPLES = [DEFAULT_EXAMPLE] + [next((ROOT / "examples").glob(f"{stem}*.yaml")) for stem in (
    "fleet-1", "tco-2", "tco-4")]


def _cell(book, name: str):
    """(sheet, row, column) of a defined name's first cell."""
    sheet, ref = book.defined_names[name].attr_text.split("!")
    first = ref.split(":")[0].replace("$", "")
    cell = openpyxl.utils.cell.coordinate_from_string(first)
    return sheet.strip("'"), cell[1], openpyxl.utils.cell.column_index_from_string(cell[0])


@pytest.mark.parametrize("example", COVER_EXAMPLES, ids=lambda p: p.stem)
def test_the_five_answers_stand_on_the_covers_first_two_pages(example_files, example):
    path = example_files(example)["xlsx"]
    formulas, cached = openpyxl.load_workbook(path), openpyxl.load_workbook(path, data_only=True)
    cover = cached["Cover"]
    breaks = sorted(b.id for b in formulas["Cover"].row_breaks.brk)
    second_page_ends = breaks[1] if len(breaks) > 1 else cover.max_row  # rows 1 … breaks[1] print on pages 1-2
    shown_at = {name: (cell.row, cell.column) for line in formulas["Cover"].iter_rows() for cell in line
                for name in SHOWN if isinstance(cell.value, str) and f"IF({name}=" in cell.value}
    for name in ANSWERS + ("plan_gpus_by_month",):  # its first month; a long plan's months run on
        sheet, row, col = ("Cover", *shown_at[name]) if name in SHOWN else _cell(formulas, name)
        assert sheet == "Cover", name
        assert row <= second_page_ends, (name, row, breaks)
        value = cover.cell(row, col).value
        assert value is not None and value != "" and not str(value).startswith("n/a: see"), (name, value)
        if name not in ("plan_cheapest_path",):
            assert isinstance(value, (int, float, dt.datetime)), (name, value)  # every premise holds in these
    # GPUs by month: the plan's months, each printed (not hidden) and inside the first two pages
    sheet, first, _ = _cell(formulas, "plan_gpus_by_month")
    last = int(formulas.defined_names["plan_gpus_by_month"].attr_text.split("$")[-1])
    shown = [r for r in range(first, last + 1) if not formulas["Cover"].row_dimensions[r].hidden]
    assert len(shown) == compute_months(cover, first, last) and shown[0] <= second_page_ends
    assert "FY" in str(cover.cell(_cell(formulas, "plan_total_on_demand")[1] + 2, 1).value)  # the fiscal years


def compute_months(cover, first: int, last: int) -> int:
    """The months the Cover's table shows (column A holds a month where the plan has one, else "")."""
    return sum(isinstance(cover.cell(r, 1).value, dt.datetime) for r in range(first, last + 1))


def test_the_eur_cover_answers_in_euros(example_files):
    path = example_files(next((ROOT / "examples").glob("tco-4*.yaml")))["xlsx"]
    book = openpyxl.load_workbook(path)
    for name in ("plan_total_on_demand_held", "plan_cheapest_saving", "plan_cost_per_million_tokens"):
        sheet, row, col = _cell(book, name)
        assert "€" in book[sheet].cell(row, col).number_format, name


def test_figures_from_other_premises_stand_apart_as_what_ifs(default_workbook):
    """Cluster's own pools, Goodput's example servers, Crossover's assumed MFU and Serving's single server: under
    "What-ifs, not in the plan", each label naming its premise; none among the key results."""
    cover = openpyxl.load_workbook(default_workbook, data_only=True)["Cover"]
    labels = [str(cover.cell(r, 1).value or "") for r in range(1, cover.max_row + 1)]
    key_results = labels.index("Key results")
    what_ifs = next(i for i, label in enumerate(labels) if label.startswith("What-ifs, not in the plan"))
    assert key_results < what_ifs
    for premise in ("Cluster's own pools", "Goodput's example servers", "Crossover at its assumed serving MFU",
                    "Serving at Crossover's assumed", "(Serving's roofline, not the plan's months)"):
        rows = [i for i, label in enumerate(labels) if premise in label]
        assert rows and all(i > what_ifs for i in rows), premise
    assert not any("Cheapest server per acceptable request" == label for label in labels)


def test_the_html_answers_first():
    r = compute(scenario_with(), generated=DAY)
    html = render_html(r, generated=DAY.isoformat())
    assert html.index("The answers") < html.index("Findings")
    answers_part = html[html.index("The answers"):html.index("Findings")]
    for words in ("On demand, held at each month&#39;s peak", "Committed baseline + burst", "GPUs by month",
                  f"${r.headline['plan_total_on_demand_held']:,.0f}", "2,336"):
        assert words in answers_part, words


def test_the_json_headline_holds_the_answers():
    from planner.output import results_json
    import json

    r = compute(scenario_with(), generated=DAY)
    payload = json.loads(results_json(r))
    for name in ANSWERS:
        assert name in payload["headline"], name
    months = payload["tables"]["gpus_by_month"]
    assert len(months) == 25 and months[0]["training"] == 1024



@pytest.mark.spreadsheet
def test_a_failed_input_turns_every_answer_n_a_never_blank_or_an_error(libreoffice, default_workbook, default_book,
                                                                        tmp_path):
    """Contingency typed as text: its check fails, and every answer on the Cover (the paths, their fiscal years, the
    cheapest, the GPUs by month that read the plan's money or months) reads a value or "n/a: see Checks", never an
    empty cell or an error value, once LibreOffice recalculates."""
    from tests.helpers import UNCOMPARED, recalculated, set_cells
    from planner.workbook.kit import xl_rowcol_to_cell

    copy = tmp_path / "text-contingency.xlsx"
    set_cells(default_workbook, copy, {"budget_contingency": "ten percent"})
    [values] = recalculated(libreoffice, [copy], [UNCOMPARED])
    cover = default_book.sheets["Cover"]
    answers_at = {key: values.get(("Cover", xl_rowcol_to_cell(place.row, place.col)))
                  for key, place in cover.places.items() if key.startswith(("answer_", "key_"))}
    assert [key for key, value in answers_at.items() if value in (None, "")] == []
    for name in ("plan_total_on_demand", "plan_total_on_demand_held", "plan_total_committed", "plan_cheapest_path"):
        sheet, a1 = default_book.names[name]
        assert values[(sheet, a1)] == "n/a: see Checks", name
    errors = [cell for cell, value in values.items() if cell[0] == "Cover" and isinstance(value, str)
              and value.startswith("#")]
    assert errors == []


def test_the_crossover_days_label_names_the_traffic_it_was_computed_from(example_files):
    """Issue 43 finding 5: fleet-1's crossover day is computed from the Fleet's traffic, so its label says that
    traffic, not the Crossover's own preset: 3600 s · 6,144 output tokens · 10 requests a second · 24 hours of a flat
    day = 5,308,416,000 tokens a day. The default, without a fleet, reads its preset popular-app's tokens a day."""
    def label(example) -> str:
        cover = openpyxl.load_workbook(example_files(example)["xlsx"], data_only=True)["Cover"]
        return next(str(c.value) for line in cover.iter_rows(max_col=1) for c in line
                    if str(c.value).startswith("Day serving overtakes training in operations"))

    fleet = label(next((ROOT / "examples").glob("fleet-1*.yaml")))
    assert fleet.endswith(f"serving {3600 * 6144 * 10 * 24:,} tokens a day") and "popular-app" not in fleet
    popular_app = compute(scenario_with(), generated=DAY).scenario.merged_catalog.traffic_presets["popular-app"]
    assert label(DEFAULT_EXAMPLE).endswith(f"serving {popular_app:,.0f} tokens a day")
