"""The Crossover section of the HTML summary (docs/method.md §3): sentences and charts."""

from __future__ import annotations

from markupsafe import Markup

from planner.engine.crossover import NEVER
from planner.report import plot
from planner.report.format import money, millions, number, percent, sci, tokens

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("crossover_day_flops", "Serving overtakes training: day (operations)", "days"),
    ("crossover_day_gpu_hours", "… day (GPU-hours)", "days"),
    ("crossover_total_cost_over_horizon", "Training plus serving over the horizon", "money0"),
]


def day(value) -> str:
    """A crossing day to one decimal, as the workbook shows it, or "never"."""
    return NEVER if value == NEVER else f"{value:,.1f}"


def findings(results) -> list[str]:
    scenario, s = results.scenario, results.crossover.scalars
    c, symbol, mfu, training_mfu = scenario.crossover, scenario.currency_symbol, s["serving_mfu_used"], \
        results.hours.scalars["mfu_used"]
    daily = tokens(s["tokens_per_day"])
    traffic = f"the Fleet's {daily} tokens a day" if scenario.fleet is not None \
        else f"the {c.tokens_per_day} preset's {daily} tokens a day" if isinstance(c.tokens_per_day, str) \
        else f"{daily} tokens a day"
    matches = (f"Serving matches training's {sci(s['training_flops'])} operations after "
               f"{s['break_even_over_training_tokens']:.4g} times the training tokens: "
               f"{tokens(s['break_even_tokens'])} served tokens.")
    if s["tokens_per_day"] == 0:
        return [f"With no traffic ({traffic}), serving never overtakes training, in operations or in GPU-hours.",
                matches]
    if mfu < training_mfu:
        why = (f"earlier in GPU-hours because serving runs at {percent(mfu)} of peak against training's "
               f"{percent(training_mfu)}")
    elif mfu > training_mfu:
        why = (f"later in GPU-hours because serving runs at {percent(mfu)} of peak against training's "
               f"{percent(training_mfu)}")
    else:
        why = f"the same day, as serving and training both run at {percent(mfu)} of peak"
    horizon = c.horizon_days
    last = results.crossover.cumulative[-1]
    beyond = "" if s["day_flops"] <= horizon else "; in operations serving does not overtake training within it"
    return [
        f"Serving {scenario.model} at {traffic} takes {sci(s['serving_flops_per_day'])} operations, "
        f"{number(round(s['serving_gpu_hours_per_day']))} GPU-hours and {money(s['serving_cost_per_day'], symbol)} "
        f"a day on the {scenario.gpu} at {percent(mfu)} serving MFU.",
        f"Serving overtakes training on day {day(s['day_flops'])} in operations, day {day(s['day_gpu_hours'])} in "
        f"GPU-hours: {why}.",
        matches,
        f"Over the {number(horizon)}-day horizon serving takes {millions(last['serving_gpu_hours'])} GPU-hours "
        f"({money(last['serving_cost'], symbol)}) against training's {millions(s['training_gpu_hours'])} "
        f"({money(s['training_cost'], symbol)}){beyond}.",
    ]


def charts(results) -> dict[str, Markup]:
    table = results.crossover
    return {"flops": _cumulative(table, "flops", "Cumulative operations", "Operations (FLOP)", 1),
            "gpu_hours": _cumulative(table, "gpu_hours", "Cumulative GPU-hours", "Million GPU-hours", 1e6)}


def _cumulative(table, quantity: str, title: str, label: str, scale: float) -> Markup:
    """Training's flat line against serving's rising one from launch to the horizon; the crossing day dotted."""
    rows = table.cumulative
    days = [r["day"] for r in rows]
    chart = plot.Chart(title, x_label="Days after launch", y_label=label)
    for part, name, colour in (("training", "Training (paid once)", plot.BLUE), ("serving", "Serving", plot.ORANGE)):
        chart.xy(name, days, [r[f"{part}_{quantity}"] / scale for r in rows], colour)
    crossing = table.scalars[f"day_{quantity}"]
    if crossing != NEVER and crossing <= days[-1]:
        chart.vline(crossing, f"Crossing: day {day(crossing)}")
    return chart.svg()
