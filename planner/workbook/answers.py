"""The Cover's answers to the budget owner (docs/method.md §13.16; PRODUCT.md, "The Cover's answers"): the plan's
total, the paths like for like by fiscal year and the cheapest, what training and a million output tokens cost in
the plan, the commitments and the capex, the total at ±20 % demand, and the GPUs held month by month. Every figure
is a formula reading the plan's named cells and month rows (Cost, Budget, Sensitivity), guarded like any sheet's,
with its twin in planner/engine/answers.py."""

from __future__ import annotations

from dataclasses import replace

from planner.engine import answers as engine
from planner.engine.plan.prices import NO_SERVER
from planner.workbook import kit
from planner.workbook.budget import fiscal_year_count
from planner.workbook import cost as cost_sheet
from planner.workbook.cost import months_to_cover, text
from planner.answers import (BUSIEST, CHEAPEST, COMMITMENTS, DEMAND, GPU_COLUMNS, MONTHS, PEAK, TRAINING_CAPEX,
                             UNIT_COSTS)
from planner.workbook.kit import KeyResult

PATHS = engine.ANSWER_PATHS
SHOWN = ("plan_total_cost", "tco_npv")  # the Cost table's key results the answers show first
ON_DEMAND_HEADING = (f'=IF(budget_include_standby,"{engine.WITH_STANDBY}",'
                     f'"{engine.PATH_WORDS["on_demand"]}")')
# on demand held at each month's peak: the on-demand path and, unless it is in already, the standby with its
# contingency (§13.5's standby column, the idle hours of the fleet sized for each month's peak)
STANDBY = "IF(budget_include_standby,0,(1+budget_contingency)*{sum})"


def held(on_demand: str, standby_sum: str) -> str:
    return f"IF(ISNUMBER({on_demand}),{on_demand}+{STANDBY.format(sum=standby_sum)},{on_demand})"


TOTAL = {"on_demand": "=tco_on_demand_total_cost", "on_demand_held": "=" + held(
    "tco_on_demand_total_cost", "SUM(calendar_standby)"), "committed": "=tco_committed_total_cost",
    "owned": "=tco_owned_total_cost"}
NPV = {"on_demand": "=tco_on_demand_npv", "on_demand_held": "=" + held(
    "tco_on_demand_npv", "SUMPRODUCT(calendar_standby,calendar_discount)"), "committed": "=tco_committed_npv",
    "owned": "=tco_owned_npv"}
NOT_COMMITTED, NO_BASELINE = text(engine.NOT_COMMITTED), text(engine.NO_BASELINE)
BASELINE_USED = "serving_baseline_gpus_used"


def _baseline(formula: str) -> str:
    """A baseline commitment's figure: the baseline's reason where it has none, "none" without a baseline."""
    return (f"=IF(NOT(ISNUMBER({BASELINE_USED})),{BASELINE_USED},IF({BASELINE_USED}>0,{formula},"
            f"{NO_BASELINE}))")


def _past(end: str) -> str:
    """The whole months a commitment ending at `end` outlives the plan's serving (mo(E, end), or 0)."""
    return f"IF({end}>serving_end,{months_to_cover('serving_end', end)[1:]},0)"


SIZED = "MAX(calendar_committed_gpus)"  # MAX G_k (§13.5): the serving GPUs held at the peak month
BUSIEST_HOUR = "ROUND(MAX(calendar_scale)*MAX(plan_profile),gpu_rounding_decimals)"  # ROUND9(MAX ĝ_k·MAX f)


def sized_words(covered: bool) -> str:
    """engine.sized_words as a formula: its words, the two numbers as TEXT gives them (the engine's excel_fixed)."""
    before, middle, after = engine.sized_words(covered, "\0", "\0").split("\0")
    return (f'{text(before)}&TEXT({SIZED},"#,##0")&{text(middle)}&TEXT({BUSIEST_HOUR},"#,##0.0")'
            f'&{text(after)}')


FORMULAS = {  # each answer's formula: a named cell on the Cover
    "plan_busiest_hour_flag": f"=IF(NOT(plan_serving_fits),plan_serving_reason,IF({SIZED}>={BUSIEST_HOUR},"
                              f"{sized_words(True)},{sized_words(False)}))",
    "plan_first_month": "=EOMONTH(tco_start_date,-1)+1",
    "plan_last_month": "=EOMONTH(tco_start_date,tco_months-2)+1",
    "plan_training_cost": "=tco_training_cost",
    "plan_cost_per_million_tokens": '=IF(NOT(ISNUMBER(unit_serving_cost)),unit_serving_cost,IF(unit_output_tokens>0,'
                                    f'unit_serving_cost/unit_output_tokens*per_million,{text(engine.NO_TOKENS)}))',
    "plan_training_commitment_value": f"=IF(training_term_months>0,training_tier_cost,{NOT_COMMITTED})",
    "plan_training_commitment_end": f"=IF(training_term_months>0,training_commitment_end,{NOT_COMMITTED})",
    "plan_training_commitment_months_past": f"=IF(training_term_months>0,{_past('training_commitment_end')},"
                                            f"{NOT_COMMITTED})",
    "plan_baseline_commitment_value": _baseline(f"{BASELINE_USED}*hours_per_day*(serving_commitment_end-launch_date)"
                                                "*price_baseline"),
    "plan_baseline_commitment_end": _baseline("serving_commitment_end"),
    "plan_baseline_commitment_months_past": _baseline(_past("serving_commitment_end")),
    "plan_capex_date": "=IF(ISNUMBER(own_capex),own_start,own_capex)",
    "plan_capex": "=own_capex",
    "plan_training_capex_date": f"=IF(own_training_gpus=0,{text(engine.NO_LINE)},IF(ISNUMBER(own_training_capex),"
                                "tco_start_date,own_training_capex))",
    "plan_training_capex": f"=IF(own_training_gpus=0,{text(engine.NO_LINE)},own_training_capex)",
}


POOLED = {  # a mixed fleet (§15.1): its baseline per pool, each at its own GPU's price; its pools' GPUs
    "plan_busiest_hour_flag": FORMULAS["plan_busiest_hour_flag"].replace("NOT(plan_serving_fits)",
                                                                         "NOT(plan_pools_fit)"),
    "plan_baseline_commitment_value": _baseline("(serving_baseline_gpus_used_p*price_baseline_p+serving_baseline_gpus_"
                                                "used_d*price_baseline_d)*hours_per_day*(serving_commitment_end-"
                                                "launch_date)")}


# the owned path's purchase per pool (§15.1: "buys 10 h100-sxm and 3 h200 ($600,000)")
POOLED_CAPEX = ("… the capex, paid once: buys {own_gpus_prefill|count} {fleet_cheapest_prefill_gpu} and "
                "{own_gpus_decode|count} {fleet_cheapest_decode_gpu}")


SAVING = ("=IF(NOT(ISNUMBER(plan_total_cost)),plan_total_cost,IF(ISNUMBER(plan_cheapest_total),"
          "ROUND(plan_total_cost-plan_cheapest_total,2),plan_cheapest_total))")  # to the cent: engine's saving


def _ov_positive(start: str, end: str, k: int, month: str) -> str:
    """Whether [start, end) has days in calendar row k (ov_k > 0, to a billionth of a day)."""
    return (f"ROUND(MIN(INDEX(calendar_next_month_start,{k}),{end})-MAX({month},{start}),day_rounding_decimals)"
            ">0")


def gpu_formulas(k: int, row: int, fleet: bool = False) -> dict[str, str]:
    """Calendar row k's GPUs, on sheet row `row` (0-based): its month in column A, "" beyond the plan; with a fleet
    the owned GPUs count the training GPUs' own line (0 GPUs without it) from S."""
    month, cells = f"$A${row + 1}", {key: kit.xl_rowcol_to_cell(row, col) for col, (key, _) in
                                     enumerate(GPU_COLUMNS, start=1)}
    blank = f'IF({month}="","",'
    owned = f"IF({_ov_positive('own_start', 'serving_end', k, month)},own_gpus,0)"
    line = _ov_positive("tco_start_date", "serving_end", k, month)  # the training GPUs' own line, from S
    return {
        "month": f'=IF(INDEX(calendar_in_plan,{k}),INDEX(calendar_month_start,{k}),"")',
        "training": f"={blank}IF({_ov_positive('tco_start_date', 'training_commitment_end', k, month)},hours_gpus,0))",
        "serving": f"={blank}INDEX(calendar_committed_gpus,{k}))",
        "held": f"={blank}IF(AND(ISNUMBER({cells['training']}),ISNUMBER({cells['serving']})),{cells['training']}+"
                f"{cells['serving']},{cells['serving']}))",
        "committed": f"={blank}IF({_ov_positive('launch_date', 'serving_commitment_end', k, month)},"
                     f"{BASELINE_USED},0))",
        "owned": f"={blank}" + (f"IF(ISNUMBER(own_gpus),{owned}+IF({line},own_training_gpus,0),{owned})" if fleet
                                else owned) + ")",
    }


def write(book: kit.Book, sheet: kit.Sheet, results, key_result) -> None:
    """The answers, under the master check: each section a question of the budget owner's. `key_result` writes a
    named result shown again (the Cover's own)."""
    cost, values = results.cost, results.headline
    answers = {**values}
    formulas = FORMULAS | (POOLED if cost.pools is not None else {})
    first = {k.name: k for k in cost_sheet.KEY_RESULTS if k.name in SHOWN}
    sheet.section("The plan's total, in the reporting currency")
    for name in SHOWN:  # named results shown again: "n/a: see Checks" where theirs are blank, as every key result
        key_result(book, sheet, first[name], values)
    guarded, sheet.guarded = sheet.guarded, True  # the answers' own formulas: guarded as any sheet's
    _row(book, sheet, KeyResult("plan_currency", "Reporting currency (every amount on this page)", kind="text"),
         formula="=currency", value=results.scenario.currency, named=False)
    for spec in MONTHS:
        _row(book, sheet, spec, formula=formulas[spec.name], value=answers[spec.name])
    sheet.skip()

    sheet.section("Which path, compared like for like (each path's total with contingency; NPV as at the first month)")
    _paths(book, sheet, cost, answers)
    sheet.skip()

    sheet.section("What training and a million output tokens cost in the plan")
    for spec in UNIT_COSTS:
        _row(book, sheet, spec, formula=formulas[spec.name], value=answers[spec.name])
    sheet.skip()

    sheet.section("What if demand differs from the traffic the plan is sized for")
    sheet.guarded = guarded
    for result in DEMAND:
        key_result(book, sheet, result, values)
    sheet.guarded = True
    for spec in BUSIEST:
        _row(book, sheet, spec, formula=formulas[spec.name], value=answers[spec.name])
    sheet.skip()

    sheet.section("What we commit to, and when the cash goes out (contract values before contingency)")
    if cost.pools is not None:  # the label's names, for its cached words (their sheets come after the Cover)
        for name in ("own_gpus_prefill", "own_gpus_decode"):
            book.values.setdefault(name, cost.scalars[name])
        for name in ("fleet_cheapest_prefill_gpu", "fleet_cheapest_decode_gpu"):
            book.values.setdefault(name, results.fleet.headline[name])
    for spec in COMMITMENTS + (TRAINING_CAPEX if results.scenario.fleet is not None else []):
        spec = replace(spec, label=POOLED_CAPEX) if cost.pools is not None and spec.name == "plan_capex" else spec
        _row(book, sheet, spec, formula=formulas[spec.name], value=answers[spec.name])
    sheet.skip()

    _gpus(book, sheet, cost, answers)
    sheet.guarded = guarded


def _label(book: kit.Book, sheet: kit.Sheet, r: int, template: str) -> None:
    """A label that follows the inputs (a text formula), wrapped in column A when longer than it is wide."""
    label = kit.text_formula(template, book.values)
    if label.formula == '="' + template.replace('"', '""') + '"':
        sheet._label(r, template)
        return
    lines = kit.text_lines(label.value, kit.LABEL_WIDTH - 2)  # column A as Sheet._fit_widths leaves it
    sheet.formula(r, 0, label.formula, label.value, book.styles.long_label if lines > 1 else book.styles.label)
    if lines > 1:
        sheet.grow(r, kit.DEFAULT_ROW * lines)


def style(book: kit.Book, kind: str):
    """An answer's format: the kind's number format, right-aligned, a text (a reason) wrapped across the value
    columns it is merged over."""
    key = ("answer", kind)
    if key not in book.styles._cache:
        props = {"valign": "top", "align": "right", "text_wrap": True}
        number_format = book.number_format(kind, "")
        if number_format:
            props["num_format"] = number_format
        book.styles._cache[key] = book.wb.add_format(props)
    return book.styles._cache[key]


def across(sheet: kit.Sheet, r: int, value, cell_style) -> int:
    """Merge row r's value columns for one answer (a reason or a text reads whole, the number at the right edge);
    the row as tall as a text wraps to. Returns the column to write in."""
    sheet.ws.merge_range(r, 1, r, sheet.last_col, "", cell_style)
    if isinstance(value, str):
        sheet.grow(r, kit.DEFAULT_ROW * kit.text_lines(value, sum(map(sheet.width_of, sheet.value_cols)) - 2))
    return 1


def _row(book: kit.Book, sheet: kit.Sheet, spec: KeyResult, *, formula: str, value, named: bool = True) -> None:
    """A labelled answer across the value columns, named."""
    name, label, kind = spec.name, spec.label, spec.kind
    r = sheet.row_index
    _label(book, sheet, r, label)
    cell_style = style(book, kind)
    col = across(sheet, r, value, cell_style)
    cell = sheet.formula(r, col, formula, value, cell_style, fallback=kit.NOT_AVAILABLE if named else "",
                         gated=named and name in book.headline)
    if named:
        book.define(name, sheet.name, cell, value)
    sheet.places[f"answer_{name}"] = kit.Place("cell", r, col, r, col, name=name if named else None)
    sheet.row_index += 1


def _paths(book: kit.Book, sheet: kit.Sheet, cost, answers: dict) -> None:
    """The four paths side by side: total, NPV and each fiscal year; then the cheapest and the saving."""
    styles, include = book.styles, cost.plan.include_standby
    r = sheet.row_index
    sheet.ws.write_string(r, 0, "Over the plan", styles.header)
    headings = {}
    for col, path in enumerate(PATHS, start=1):
        words = engine.path_words(path, include)
        if path == "on_demand":
            sheet.formula(r, col, ON_DEMAND_HEADING, words, styles.header)
        else:
            sheet.ws.write_string(r, col, words, styles.header)
        headings[path] = kit.xl_rowcol_to_cell(r, col, row_abs=True, col_abs=True)
    sheet.set_height(r, sheet.heading_height({c: engine.PATH_WORDS[p] for c, p in enumerate(PATHS, start=1)}))
    sheet.headings.append(r)
    sheet.row_index += 1
    money = styles.value("money0", right=True)
    totals = {}  # each path's total cell
    for key, label, formulas, names in (
            ("total", "Each path's total over the plan (escalation and contingency in)", TOTAL, "plan_total_{path}"),
            ("npv", "… its NPV over the plan at the discount rate", NPV, "plan_npv_{path}")):
        r = sheet.row_index
        _label(book, sheet, r, label)
        for col, path in enumerate(PATHS, start=1):
            name = names.format(path=path)
            cell = sheet.formula(r, col, formulas[path], answers[name], money, fallback=kit.NOT_AVAILABLE,
                                 gated=True)
            book.define(name, sheet.name, cell, answers[name])
            if key == "total":
                totals[path] = kit.xl_rowcol_to_cell(r, col, row_abs=True, col_abs=True)
        sheet.row_index += 1
    _fiscal_years(book, sheet, cost)
    rng = f"{totals[PATHS[0]]}:{totals[PATHS[-1]]}"
    no_total = text(engine.NO_TOTAL)
    # the first path whose total equals the least to the cent (as the engine's answers.cheapest); a text total is not
    # rounded (ROUND of a text is an error value)
    named = "".join(f"IF(IF(ISNUMBER({totals[path]}),ROUND({totals[path]},2)=ROUND(plan_cheapest_total,2),FALSE),"
                    f"{headings[path]}," for path in PATHS[:-1])
    words = (f"=IF(COUNT({rng})=0,{no_total},{named}{headings[PATHS[-1]]}{')' * (len(PATHS) - 1)}"
             f'&IF(OR({",".join(f"ISTEXT({totals[path]})" for path in PATHS)}),"{engine.OF_THOSE}",""))')
    for spec, formula in zip(CHEAPEST, (f"=IF(COUNT({rng})=0,{no_total},MIN({rng}))", words, SAVING)):
        _row(book, sheet, spec, formula=formula, value=answers[spec.name])


def _fiscal_years(book: kit.Book, sheet: kit.Sheet, cost) -> None:
    """A row per fiscal year the month rows can touch (those beyond the plan blank and out of sight): each path's
    total in it (SUMIF over the month rows, as the Budget's fiscal years)."""
    found = {fy["fiscal_year"]: fy for fy in cost.fiscal_years}
    first_fy = cost.rows[0]["fiscal_year_number"]
    money = book.styles.value("money0", right=True)
    hidden = []
    for i in range(fiscal_year_count(len(cost.rows))):
        r = sheet.row_index
        number = f"(INDEX(calendar_fiscal_year_number,1)+{i})"
        label = f"FY{first_fy + i}"
        fy = found.get(label)
        inside = (f"{number}<=INDEX(calendar_fiscal_year_number,MAX(1,MIN(tco_months,"
                  "ROWS(calendar_fiscal_year_number))))")  # FY_1 … the last plan month's
        sheet.formula(r, 0, f'="Spent over fiscal year FY"&{number}', f"Spent over fiscal year {label}",
                      book.styles.label)
        blank = f'IF(NOT({inside}),"",'
        on_demand = kit.xl_rowcol_to_cell(r, 1)
        for col, path in enumerate(PATHS, start=1):
            source = "on_demand" if path == "on_demand_held" else path
            found_sum = f"SUMIF(calendar_fiscal_year_number,{number},calendar_{source}_total)"
            if path == "owned":
                found_sum = f"IF(own_path_priced,{found_sum},{text(NO_SERVER)})"
            if path == "on_demand_held":
                formula = (f"={blank}" + held(on_demand, f"SUMIF(calendar_fiscal_year_number,{number},"
                                                           "calendar_standby)") + ")")
            else:
                formula = f'={blank}IF(plan_money_na<>"",plan_money_na,{found_sum}))'
            sheet.formula(r, col, formula, fy[f"{path}_total"] if fy else "", money, fallback=kit.NOT_AVAILABLE)
        if fy is None:
            hidden.append(r)
        sheet.row_index += 1
    sheet.hide(hidden)


def _gpus(book: kit.Book, sheet: kit.Sheet, cost, answers: dict) -> None:
    """GPUs by month: a row per calendar row (beyond the plan blank and out of sight), its chart, and the peak."""
    sheet.section("How many GPUs we hold or commit each month (each path's GPUs; the peak hour sizes serving)",
                  flowing=True)  # its peak and first months on the answers' second page
    months = cost.gpus_by_month
    first = sheet.row_index + 2  # under the peak and the headings
    last = first + len(months) - 1
    held_range = (f"{kit.xl_rowcol_to_cell(first, 3, True, True)}:"
                  f"{kit.xl_rowcol_to_cell(last, 3, True, True)}")
    fits = "plan_pools_fit" if cost.pools is not None else "plan_serving_fits"  # a mixed fleet's: its pools (§15.1)
    _row(book, sheet, PEAK, formula=f"=IF(NOT({fits}),plan_serving_reason,MAX({held_range}))",
         value=answers["plan_peak_gpus"])
    header = sheet.heading_row(["Month"] + [heading for _, heading in GPU_COLUMNS])
    assert header + 1 == first
    count = book.styles.value("count", right=True)
    month_style = book.wb.add_format({"valign": "top", "align": "left", "num_format": "mmm yyyy"})
    for k, row in enumerate(months, start=1):
        r = sheet.row_index
        formulas = gpu_formulas(k, r, cost.plan.fleet_section)
        sheet.formula(r, 0, formulas["month"], row["month"], month_style)
        for col, (key, _) in enumerate(GPU_COLUMNS, start=1):
            value = row[key]
            style = book.styles.value("text", right=True) if isinstance(value, str) and value else count
            sheet.formula(r, col, formulas[key], value, style, fallback=kit.NOT_AVAILABLE)
        sheet.row_index += 1
    # the rows beyond the plan out of sight, but for those the chart beside the first months needs (the table's cells
    # stand where they stood whatever the plan's length: an edited copy lays out as the planner's run of it)
    hidden = [first + i for i, row in enumerate(months) if row["month"] == "" and i >= CHART_LEAST_ROWS]
    sheet.hide(hidden)
    sheet.heights.update(dict.fromkeys(hidden, 0))
    book.define("plan_gpus_by_month", sheet.name, f"{kit.xl_rowcol_to_cell(first, 0, True, True)}:"
                f"{kit.xl_rowcol_to_cell(last, len(GPU_COLUMNS), True, True)}")
    _gpu_chart(book, sheet, first, shown=sum(1 for row in months if row["month"] != ""))
    sheet.skip(max(CHART_LEAST_ROWS - len(months), 0) + 1)  # a blank row after the table (and the chart, if taller)

LEGEND = {"training": "Training", "serving": "Serving at the peak", "held": "Held", "committed": "Committed",
          "owned": "Owned"}  # the table's headings, short enough for the chart's legend
CHART_LEFT, CHART_WIDTH, CHART_LEAST, CHART_MOST = 80, 340, 236, 416  # pixels: beside the months, in column A
CHART_LEAST_ROWS = -(-CHART_LEAST // 20)  # the rows of the default 20 px the shortest chart stands beside


def _gpu_chart(book: kit.Book, sheet: kit.Sheet, first: int, shown: int) -> None:
    """GPUs by month as lines, in column A beside the month names (which stand at its left), as tall as the plan's
    months (at least CHART_LEAST pixels: rows follow the table where it is shorter; at most CHART_MOST, beside the
    first 21 months: a longer plan's months run on to the next page)."""
    chart = book.wb.add_chart({"type": "line"})
    last = first + shown - 1  # the plan's months (the rows beyond it are hidden)
    for col, (key, _), colour in zip(range(1, 6), GPU_COLUMNS,
                                     ("#ED7D31", "#4472C4", "#000000", "#A5A5A5", "#70AD47")):
        chart.add_series({"name": LEGEND[key], "categories": [sheet.name, first, 0, last, 0],
                          "values": [sheet.name, first, col, last, col],
                          "line": {"color": colour, "width": 2.25 if key == "held" else 1.5}})
    chart.set_title({"none": True})  # the section's title says it
    chart.set_x_axis({"num_format": "mmm yy", "date_axis": True, "base_unit": "months"})
    chart.set_y_axis({"num_format": "#,##0", "min": 0, "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "right"})
    height = min(max(shown * 20 - 4, CHART_LEAST), CHART_MOST)  # rows of the default 20 px
    chart.set_size({"width": CHART_WIDTH, "height": height})
    kit.readable(chart)
    sheet.ws.insert_chart(first, 0, chart, {"x_offset": CHART_LEFT, "y_offset": 2, "object_position": 1})
    rows = -(-height // 20)
    sheet.charts.append((first, rows))  # the chart whole; a long plan's months flow on to the next page
