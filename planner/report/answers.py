"""The HTML summary's answers to the budget owner, first on the page (PRODUCT.md, "The Cover's answers"): the same
five answers as the Cover's, in the reporting currency, from the engine's named results (planner/engine/answers.py)."""

from __future__ import annotations

from markupsafe import Markup

from planner.engine import answers as engine
from planner.report import plot
from planner.report.format import shown
from planner.specs import text_formula
from planner.answers import BUSIEST, COMMITMENTS, DEMAND, GPU_COLUMNS, MONTHS, TRAINING_CAPEX, UNIT_COSTS


def of(results) -> dict:
    """What the template's answers section shows: sentences, the paths side by side, the figures and GPUs by month."""
    cost, h, symbol = results.cost, results.headline, results.scenario.currency_symbol
    include = cost.plan.include_standby
    from planner.listing import scenario_inputs

    values = {i.name: i.value for i in scenario_inputs(results.scenario)} | h

    def label(template: str) -> str:  # as the Cover's label reads for these inputs
        return text_formula(template, values).value

    def figure(name: str, template: str, kind: str) -> tuple[str, str]:
        return label(template), shown(h[name], kind, symbol)

    years = [fy["fiscal_year"] for fy in cost.fiscal_years]
    paths = [{"words": engine.path_words(path, include), "chosen": path == cost.scalars["path"],
              "total": shown(h[f"plan_total_{path}"], "money0", symbol),
              "npv": shown(h[f"plan_npv_{path}"], "money0", symbol),
              "years": [shown(fy[f"{path}_total"], "money0", symbol) for fy in cost.fiscal_years]}
             for path in engine.ANSWER_PATHS]
    months = [row for row in cost.gpus_by_month if row["month"] != ""]
    return {
        "sentences": _sentences(results),
        "years": years, "paths": paths,
        "plan": [figure(k.name, k.label, k.kind) for k in MONTHS],
        "unit": [figure(k.name, k.label, k.kind) for k in UNIT_COSTS],
        "demand": [figure(k.name, k.label, k.kind) for k in DEMAND + BUSIEST],
        "commitments": [figure(k.name, k.label, k.kind) for k in COMMITMENTS
                        + (TRAINING_CAPEX if results.scenario.fleet is not None else [])],
        "gpu_headings": [heading for _, heading in GPU_COLUMNS],
        "gpus": [(shown(row["month"], "month"), [shown(row[key], "count") for key, _ in GPU_COLUMNS])
                 for row in months],
        "chart": _chart(months),
    }


def _sentences(results) -> list[str]:
    """The five answers in a sentence each."""
    h, symbol, currency = results.headline, results.scenario.currency_symbol, results.scenario.currency

    def money(name: str) -> str:
        return shown(h[name], "money0", symbol)

    found = [f"The plan costs {money('plan_total_cost')} in {currency} over {results.cost.scalars['months']} "
             f"calendar months from {shown(h['plan_first_month'], 'month')} to {shown(h['plan_last_month'], 'month')}"
             f" (NPV {money('tco_npv')})."]
    saving = h["plan_cheapest_saving"]
    found.append(f"Compared like for like, the cheapest path is {h['plan_cheapest_path'].lower()} at "
                 f"{money('plan_cheapest_total')}" + (f", {shown(saving, 'money0', symbol)} less than the chosen "
                                                      "path." if not isinstance(saving, str) else "."))
    found.append(f"The plan holds at most {shown(h['plan_peak_gpus'], 'count')} GPUs in a month (training and "
                 "serving at its peak hour).")
    found.append(f"Training costs {money('plan_training_cost')}; serving costs "
                 f"{shown(h['plan_cost_per_million_tokens'], 'money', symbol)} per million output tokens over the "
                 "plan.")
    found.append(f"With 20 % less or more demand the total is {money('plan_total_demand_low')} or "
                 f"{money('plan_total_demand_high')}.")
    return found


def _chart(months: list[dict]) -> Markup:
    """GPUs by month: each path's GPUs as a line."""
    chart = plot.Chart("GPUs by month", x_label="Month", y_label="GPUs")
    step = max(1, -(-len(months) // 8))  # about eight month labels, so they stay apart
    chart.categories = [shown(row["month"], "month") if i % step == 0 else "" for i, row in enumerate(months)]
    for (key, heading), colour in zip(GPU_COLUMNS, (plot.ORANGE, plot.BLUE, "#000000", plot.GREY, plot.GREEN)):
        chart.line(heading, [row[key] if isinstance(row[key], (int, float)) else 0.0 for row in months], colour)
    return chart.svg()
