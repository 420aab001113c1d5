"""Charts for the HTML summary: matplotlib figures as inline SVG, one function per table.

Labels are fixed words and numbers only: scenario text (names) never reaches a chart, where `$` would start math.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from markupsafe import Markup  # noqa: E402

from planner.catalog import STRATEGIES  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "planner"  # stable element ids: the same scenario gives the same page
# No metadata block: no date, and no creator or Dublin Core URLs in the page.
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
SIZE = (7, 3.6)  # inches
CAPACITY = {"color": "#C00000", "linestyle": "--", "linewidth": 1.5}
COLOURS = {"weights_gb": "#4472C4", "gradients_gb": "#ED7D31", "optimizer_gb": "#A5A5A5",
           "activations_gb": "#FFC000", "serving_kv_gb": "#FFC000"}


def svg(figure) -> Markup:
    """The figure as an `<svg>` element to inline in HTML (no XML prolog or doctype); the figure is closed."""
    buffer = io.StringIO()
    try:
        figure.savefig(buffer, format="svg", metadata=SVG_METADATA, bbox_inches="tight")
    finally:
        plt.close(figure)
    text = buffer.getvalue()
    return Markup(text[text.index("<svg"):])


def memory_charts(results) -> dict[str, Markup]:
    return {"training": training_memory(results.memory), "serving": serving_memory(results.memory)}


def training_memory(table) -> Markup:
    """Stacked bars per strategy (the scenario's in bold): weights, gradients, optimizer state, activations; the
    GPU's memory dashed."""
    strategies, capacity = list(STRATEGIES), table.scalars["gpu_memory_gb"]
    figure, axes = plt.subplots(figsize=SIZE)
    bottom = [0.0] * len(strategies)
    for key, label in (("weights_gb", "Weights"), ("gradients_gb", "Gradients"),
                       ("optimizer_gb", "Optimizer state"), ("activations_gb", "Activations")):
        values = [table.strategies.loc[key, s] for s in strategies]
        axes.bar(strategies, values, 0.6, bottom=bottom, label=label, color=COLOURS[key])
        bottom = [b + v for b, v in zip(bottom, values)]
    axes.axhline(capacity, label=f"GPU memory ({capacity:,g} GB)", **CAPACITY)
    axes.set_title("Training memory per GPU by strategy")
    axes.set_ylabel("GB per GPU")
    axes.get_xticklabels()[strategies.index(table.strategy)].set_fontweight("bold")  # the scenario's own
    _finish(axes, grid="y")
    return svg(figure)


def serving_memory(table) -> Markup:
    """One stacked bar: serving weights and KV cache; the GPU's memory dashed."""
    s = table.scalars
    capacity = s["gpu_memory_gb"]
    figure, axes = plt.subplots(figsize=(SIZE[0], 2.4))  # one bar: a shorter figure
    axes.barh(["Serving"], [s["serving_weights_gb"]], 0.5, label="Weights", color=COLOURS["weights_gb"])
    axes.barh(["Serving"], [s["serving_kv_gb"]], 0.5, left=[s["serving_weights_gb"]], label="KV cache",
              color=COLOURS["serving_kv_gb"])
    axes.axvline(capacity, label=f"GPU memory ({capacity:,g} GB)", **CAPACITY)
    axes.set_title("Serving memory per GPU")
    axes.set_xlabel("GB per GPU")
    _finish(axes, grid="x")
    return svg(figure)


def hours_charts(results) -> dict[str, Markup]:
    return {"reference": reference_hours(results.hours), "allocations": allocation_options(results.hours)}


def reference_hours(table) -> Markup:
    """Grouped bars per Llama 3.1 model (catalog ids: fixed text): calculated against Meta's reported H100-hours."""
    ref = table.reference
    x = range(len(ref))
    figure, axes = plt.subplots(figsize=SIZE)
    for offset, key, label, colour in ((-0.2, "calculated_gpu_hours", "Calculated", "#4472C4"),
                                       (0.2, "reported_gpu_hours", "Reported (Meta)", "#C00000")):
        bars = axes.bar([i + offset for i in x], ref[key] / 1e6, 0.4, label=label, color=colour)
        axes.bar_label(bars, fmt="%.2f", fontsize=8)
    axes.set_xticks(list(x), list(ref.index))
    axes.set_title("Calculated against reported H100-hours")
    axes.set_ylabel("Million H100-hours")
    _finish(axes, grid="y")
    return svg(figure)


def allocation_options(table) -> Markup:
    """Bars of wall-clock days per allocation option; allocated GPU-hours as a line on a second axis."""
    options = table.allocations
    labels = [f"{gpus:,} GPUs\n{mfu * 100:.4g} % MFU" for gpus, mfu in zip(options.gpus, options.mfu)]
    figure, axes = plt.subplots(figsize=SIZE)
    bars = axes.bar(range(len(options)), options.days, 0.5, label="Wall-clock days", color=COLOURS["weights_gb"])
    axes.bar_label(bars, fmt="%.1f", fontsize=8)
    axes.set_xticks(range(len(options)), labels)
    axes.set_ylabel("Wall-clock days")
    axes.set_ylim(0, options.days.max() * 1.4)  # the bars stay below the line
    second = axes.twinx()
    second.plot(range(len(options)), options.allocated_gpu_hours / 1e6, marker="o", label="Allocated GPU-hours",
                color=CAPACITY["color"], linewidth=CAPACITY["linewidth"])
    second.set_ylabel("Million GPU-hours")
    second.set_ylim(0, options.allocated_gpu_hours.max() / 1e6 * 1.1)
    second.spines[["top"]].set_visible(False)
    axes.set_title("Allocation options")
    _finish(axes, grid="y")
    axes.legend(*[a + b for a, b in zip(axes.get_legend_handles_labels(), second.get_legend_handles_labels())],
                loc="upper left", bbox_to_anchor=(1.12, 1), frameon=False)
    return svg(figure)


def _finish(axes, grid: str) -> None:
    axes.grid(axis=grid, alpha=0.3)
    axes.set_axisbelow(True)
    axes.spines[["top", "right"]].set_visible(False)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
