"""The Hours section of the HTML summary (METHOD.md §2): sentences and charts."""

from __future__ import annotations

from markupsafe import Markup

from planner.catalog import REFERENCE_GPU
from planner.report import plot
from planner.report.format import days, millions, money, number, percent, sci, tokens


SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("hours_gpu_hours", "Training GPU-hours", "hours"),
    ("hours_days", "Wall-clock days", "days"),
    ("hours_cost", "Training cost", "money0"),
]


def findings(results) -> list[str]:
    scenario, table = results.scenario, results.hours
    h, s, symbol = scenario.hours, table.scalars, scenario.currency_symbol
    recompute = " with activation recomputation (8 operations per parameter per token instead of 6)" \
        if h.activation_recompute else ""
    sentences = [
        f"Training {scenario.model} on {tokens(h.tokens)} tokens takes {sci(s['training_flops'])} operations"
        f"{recompute}: {millions(s['gpu_hours'])} GPU-hours on the {scenario.gpu} at {percent(h.mfu)} MFU.",
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
    """Grouped bars per Llama 3.1 model (catalog ids: fixed text): calculated against Meta's reported H100-hours."""
    rows = table.reference
    x = range(len(rows))
    fig, axes = plot.figure()
    for offset, key, label, colour in ((-0.2, "calculated_gpu_hours", "Calculated", plot.BLUE),
                                       (0.2, "reported_gpu_hours", "Reported (Meta)", plot.RED)):
        bars = axes.bar([i + offset for i in x], [r[key] / 1e6 for r in rows], 0.4, label=label, color=colour)
        axes.bar_label(bars, fmt="%.2f", fontsize=8)
    axes.set_xticks(list(x), [r["model"] for r in rows])
    axes.set_title("Calculated against reported H100-hours")
    axes.set_ylabel("Million H100-hours")
    plot.finish(axes, grid="y")
    return plot.svg(fig)


def _allocations(table) -> Markup:
    """Bars of wall-clock days for the run and each option; allocated GPU-hours as a line on a second axis."""
    rows = table.allocations
    labels = [f"{r['option']}\n{r['gpus']:,.0f} GPUs\n{r['mfu'] * 100:.4g} % MFU" for r in rows]
    x = range(len(rows))
    fig, axes = plot.figure()
    bars = axes.bar(x, [r["days"] for r in rows], 0.5, label="Wall-clock days", color=plot.BLUE)
    axes.bar_label(bars, fmt="%.1f", fontsize=8)
    axes.set_xticks(x, labels)
    axes.set_ylabel("Wall-clock days")
    axes.set_ylim(0, max(r["days"] for r in rows) * 1.4)  # the bars stay below the line
    second = axes.twinx()
    second.plot(x, [r["allocated_gpu_hours"] / 1e6 for r in rows], marker="o", label="Allocated GPU-hours",
                color=plot.RED, linewidth=plot.CAPACITY["linewidth"])
    second.set_ylabel("Million GPU-hours")
    second.set_ylim(0, max(r["allocated_gpu_hours"] for r in rows) / 1e6 * 1.1)
    second.spines[["top"]].set_visible(False)
    axes.set_title("The run and its allocation options")
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)
    axes.spines[["top"]].set_visible(False)
    axes.legend(*[a + b for a, b in zip(axes.get_legend_handles_labels(), second.get_legend_handles_labels())],
                loc="upper left", bbox_to_anchor=(1.12, 1), frameon=False)
    return plot.svg(fig)
