"""The Budget section of the HTML summary (docs/method.md §9): sentences and the stacked chart by month."""

from __future__ import annotations

from markupsafe import Markup

from planner.engine.budget import NOT_SERVED
from planner.report import plot
from planner.report.format import money, number, percent

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("budget_horizon_total_cost", "Training plus serving over the horizon (roofline)", "money0"),
    ("budget_total_cost", "Budget total (with growth)", "money0"),
]


def findings(results) -> list[str]:
    scenario, s = results.scenario, results.budget.scalars
    symbol, b = scenario.currency_symbol, scenario.budget
    plan = (f"The plan takes {number(s['training_months'])} training month{'s' if s['training_months'] != 1 else ''} "
            f"({s['training_days']:,.1f} days on {number(scenario.hours.gpus)} GPUs, "
            f"{money(s['training_cost'], symbol)}), then {number(s['serving_months'])} serving months over the "
            f"{number(s['horizon_days'])}-day horizon.")
    if s["horizon_serving_cost"] == NOT_SERVED:
        return [plan, f"The {number(scenario.serving.users)} users do not fit one serving replica, so the serving "
                      "cost over the horizon is n/a: see the Serving sheet."]
    growth = "" if b.monthly_growth == 0 else (
        f" Growing {percent(b.monthly_growth)} a month, the budget's serving comes to "
        f"{money(s['serving_cost'], symbol)} and its total to {money(s['total_cost'], symbol)}.")
    standby = (f" Standby capacity (the serving pool's idle GPUs) adds {money(s['standby_cost'], symbol)} "
               f"{'and is in the total' if b.include_standby else 'in its own row, not in the total'}.")
    per_million = s["serving_cost_per_million_tokens"]  # a word without traffic
    per_million = f"{money(per_million, symbol, 3)} per million served tokens" if isinstance(
        per_million, (int, float)) else "no traffic to price per token"
    return [plan,
            f"At the roofline's {s['tokens_per_s_per_gpu']:,.0f} output tokens per second per GPU, serving costs "
            f"{money(s['serving_cost_per_day'], symbol)} a day, {money(s['horizon_serving_cost'], symbol)} over "
            f"{number(s['horizon_days'])} days ({per_million}; at Crossover's serving MFU it would be "
            f"{money(s['mfu_serving_cost'], symbol)}); "
            f"with training, {money(s['horizon_total_cost'], symbol)}." + growth + standby]


def charts(results) -> dict[str, Markup]:
    rows = [r for r in results.budget.rows if r["phase"]]
    chart = plot.Chart("Spend by month", x_label="Month", y_label="Spend").columns(
        [r_i + 1 for r_i in range(len(rows))],
        [(name, [r[key] if isinstance(r[key], float) else 0.0 for r in rows], colour)
         for key, name, colour in (("training", "Training", plot.BLUE), ("serving", "Serving", plot.ORANGE),
                                   ("standby", "Standby", plot.GREY))], stacked=True)
    return {"months": chart.svg()}
