"""Chart drawing for the HTML summary: matplotlib figures as inline SVG, in the workbook's colours.

Labels are fixed words and numbers only: scenario text (names) never reaches a chart, where `$` would start math.
"""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from markupsafe import Markup  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "planner"  # stable element ids: the same scenario gives the same page
# No metadata block: no date, and no creator or Dublin Core URLs in the page.
SVG_METADATA = {"Date": None, "Creator": None, "Format": None, "Type": None}
SIZE = (7, 3.6)  # inches
BLUE, ORANGE, GREY, YELLOW, RED = "#4472C4", "#ED7D31", "#A5A5A5", "#FFC000", "#C00000"
CAPACITY = {"color": RED, "linestyle": "--", "linewidth": 1.5}


def figure(height: float = SIZE[1]):
    return plt.subplots(figsize=(SIZE[0], height))


def svg(fig) -> Markup:
    """The figure as an `<svg>` element to inline in HTML (no XML prolog or doctype); the figure is closed."""
    buffer = io.StringIO()
    try:
        fig.savefig(buffer, format="svg", metadata=SVG_METADATA, bbox_inches="tight")
    finally:
        plt.close(fig)
    text = buffer.getvalue()
    return Markup(text[text.index("<svg"):])


def finish(axes, grid: str) -> None:
    """Light grid behind the data, no top or right spine, the legend outside on the right; value axes from 0."""
    axes.grid(axis=grid, alpha=0.3)
    axes.set_axisbelow(True)
    axes.spines[["top", "right"]].set_visible(False)
    if grid == "y":
        axes.set_ylim(bottom=0)
    else:
        axes.set_xlim(left=0)
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False)
