"""The Budget section of the HTML summary (docs/method.md §9 and §13): the plan by calendar month (its chosen path
stacked by month, the fiscal years) and the average-month budget the bridge starts from."""

from __future__ import annotations

from markupsafe import Markup

from planner.engine.budget import AVERAGE_ROWS_MAX
from planner.engine.calendar import date_of
from planner.engine.shared import PAST_DEADLINE
from planner.report import plot
from planner.report.format import money, number, percent

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("budget_average_month_total_cost", "Average-month budget", "money0"),
]


def findings(results) -> list[str]:
    scenario, s, cost = results.scenario, results.budget.scalars, results.cost
    symbol, b = scenario.currency_symbol, scenario.budget
    start, end = date_of(cost.scalars["start_date"]), date_of(cost.scalars["path_end"])
    years = [fy for fy in cost.fiscal_years]
    path = cost.scalars["path"]
    plan = (f"The plan runs {number(cost.scalars['months'])} calendar months from {start:%-d %B %Y} to "
            f"{end:%-d %B %Y}, over {len(years)} fiscal year{'s' if len(years) != 1 else ''}"
            + (f" (the first, {years[0]['fiscal_year']}, {money(years[0][f'{path}_total'], symbol)})"
               if years and not isinstance(years[0][f"{path}_total"], str) else "") + ".")
    if isinstance(s["horizon_serving_cost"], str):  # serving does not fit: n/a with the reason
        return [plan, "No Fleet configuration meets the SLO, so serving money is n/a: see the Fleet sheet."
                if scenario.fleet is not None else f"The {number(scenario.serving.users)} users do not fit one serving "
                "replica, so serving money is n/a: see the Serving sheet."]
    if s["run_na"]:
        months = s["training_months"] + s["serving_months"]
        return [plan, f"Training and serving take {number(months)} average months, more than the "
                      f"{AVERAGE_ROWS_MAX} the Budget sheet can hold, so the average-month budget (where the bridge "
                      "starts) is n/a; the plan's total on calendar months stands."]
    if s["total_cost"] == PAST_DEADLINE:
        return [plan, f"Training takes {s['training_days']:,.1f} days, past the layout search's deadline of "
                      f"{scenario.search.deadline_days:g} days, so the plan's totals are n/a; what training and "
                      "serving each cost stands."]
    growth = "" if b.monthly_growth == 0 else f", growing {percent(b.monthly_growth)} a month"
    average = (f"In average months of 30.4375 days{growth}, the budget is {money(s['total_cost'], symbol)}: "
               f"training {money(s['training_cost'], symbol)}, serving {money(s['serving_cost'], symbol)} "
               + ("by the Fleet's cheapest configuration, its replicas grown with the traffic" if scenario.fleet
                  is not None else f"at the roofline's {s['tokens_per_s_per_gpu']:,.0f} output tokens per second "
                  "per GPU") + "; standby, the idle "
               f"hours of a fleet sized for each month's peak, {money(s['standby_cost'], symbol)}, "
               f"{'in' if b.include_standby else 'not in'} the total. At Crossover's assumed serving MFU serving "
               f"would be {money(s['mfu_serving_cost'], symbol)} over the horizon: a comparison of compute, not a "
               "cost of the plan.")
    return [plan, average]


def charts(results) -> dict[str, Markup]:
    """The budget's path stacked by calendar month over the plan's months."""
    rows = [r for r in results.cost.rows if r["in_plan"]]

    def values(key):
        return [r[key] if isinstance(r[key], float) else 0.0 for r in rows]

    chart = plot.Chart("The budget's path by month", x_label="Month", y_label="Spend").columns(
        [f"{date_of(r['month_start']):%b %y}" for r in rows],
        [("Training", values("chosen_training"), plot.BLUE), ("Other costs", values("other"), plot.GREY),
         ("Serving", values("chosen_serving"), plot.ORANGE),
         ("Contingency", values("chosen_contingency"), plot.YELLOW)], stacked=True)
    return {"months": chart.svg()}
