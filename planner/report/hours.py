"""The Hours section of the HTML summary (docs/method.md §2): sentences and charts."""

from __future__ import annotations

from markupsafe import Markup

from planner.shipped import REFERENCE_GPU
from planner.engine.shared import LAYOUT
from planner.report import plot
from planner.report.format import days, millions, money, number, percent, sci, tokens


SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("hours_gpu_hours", "Training GPU-hours", "hours"),
    ("hours_days", "Wall-clock days", "days"),
    ("hours_cost", "Training cost, paid once", "money0"),
]


def findings(results) -> list[str]:
    scenario, table = results.scenario, results.hours
    h, s, symbol = scenario.hours, table.scalars, scenario.currency_symbol
    recompute = " with activation recomputation (8 operations per parameter per token instead of 6)" \
        if h.activation_recompute else ""
    sentences = [
        f"Training {scenario.model} on {tokens(h.tokens)} tokens takes {sci(s['training_flops'])} operations"
        f"{recompute}: {millions(s['gpu_hours'])} GPU-hours on the {scenario.gpu} at {percent(s['mfu_used'])} MFU"
        + (" (the layout search's cheapest layout's)." if h.mfu == LAYOUT else "."),
        f"With a productive share of {percent(h.productive_share)}, {millions(s['allocated_gpu_hours'])} GPU-hours "
        f"are allocated: they cost {money(s['cost'], symbol)} at {money(s['price_per_gpu_hour'], symbol, 2)} per "
        f"GPU-hour and take {days(s['days'])} days on {number(s['gpus'])} GPUs.",
    ]
    run, options = table.allocations[0], table.allocations[1:]
    fast = min(options, key=lambda o: o["days"])
    lean = min(options, key=lambda o: o["allocated_gpu_hours"])
    compared = (f"Against this run, {number(fast['gpus'])} GPUs at {percent(fast['mfu'])} MFU finish in "
                f"{days(fast['days'])} days ({days(run['days'])} for the run) for "
                f"{millions(fast['allocated_gpu_hours'], 1)} GPU-hours")
    if lean is not fast:
        compared += (f"; {number(lean['gpus'])} at {percent(lean['mfu'])} use the fewest, "
                     f"{millions(lean['allocated_gpu_hours'], 1)}, in {days(lean['days'])} days")
    sentences.append(compared + ".")
    reference = {row["model"]: row for row in table.reference}
    if scenario.model in reference:
        row = reference[scenario.model]
        where = "" if scenario.gpu == REFERENCE_GPU else f" at the {REFERENCE_GPU}'s peak"
        ratio = row["reported_over_calculated"]
        why = "reported hours include restarts, checkpointing and lower-MFU phases" if ratio >= 1 else \
            "this scenario's assumptions cost more than Meta's actual run"
        sentences.append(f"Meta reports {millions(row['reported_gpu_hours'])} H100-hours, {ratio:.2f} times this "
                         f"calculation{where}: {why}.")
    return sentences


def charts(results) -> dict[str, Markup]:
    return {"reference": _reference(results.hours), "allocations": _allocations(results.hours)}


def _reference(table) -> Markup:
    """Grouped columns per Llama 3.1 model (catalog ids: fixed text): calculated against Meta's reported
    H100-hours."""
    rows = table.reference
    chart = plot.Chart("Calculated against reported H100-hours", y_label="Million H100-hours")
    chart.columns([r["model"] for r in rows], [
        ("Calculated", [r["calculated_gpu_hours"] / 1e6 for r in rows], plot.BLUE),
        ("Reported (Meta)", [r["reported_gpu_hours"] / 1e6 for r in rows], plot.RED)],
        value_labels=lambda v: f"{v:.2f}")
    return chart.svg()


def _allocations(table) -> Markup:
    """Columns of wall-clock days for the run and each option; allocated GPU-hours as a line on a second axis."""
    rows = table.allocations
    chart = plot.Chart("The run and its allocation options", y_label="Wall-clock days",
                       y2_label="Million GPU-hours", height=320)
    chart.columns([f"{r['option']}\n{r['gpus']:,.0f} GPUs\n{r['mfu'] * 100:.4g} % MFU" for r in rows],
                  [("Wall-clock days", [r["days"] for r in rows], plot.BLUE)], value_labels=lambda v: f"{v:,.1f}")
    chart.line("Allocated GPU-hours", [r["allocated_gpu_hours"] / 1e6 for r in rows], plot.RED, right=True,
               markers=True)
    return chart.svg()
