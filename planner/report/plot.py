"""Charts for the HTML summary: small inline SVG drawn straight from the numbers, in the workbook's colours.

Why not a charting library: matplotlib's import and charts cost more than the rest of a page, and its SVG is
larger; pygal always embeds a <script>, which a self-contained, script-free page must then strip
(benchmarks/README.md has the figures). These charts (columns, stacked or grouped, lines over categories or over a
numeric axis, reference lines) are drawn straight as SVG, so a batch of hundreds of scenarios stays fast and every
page small.

Value axes start at 0. Text is escaped: a server's name from a scenario is shown as written, never as markup.
"""

from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass, field

from markupsafe import Markup, escape

BLUE, ORANGE, GREY, YELLOW, RED, GREEN = "#4472C4", "#ED7D31", "#A5A5A5", "#FFC000", "#C00000", "#70AD47"
WIDTH, LEFT, TOP, BOTTOM, LEGEND = 660, 64, 34, 46, 176  # the drawing's size and margins, in px
LEGEND_CHARS = 24  # characters of an 11 px legend label per line, within the legend's width
FONT = 'font-family="system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"'


def compact(value: float) -> str:
    """An axis label: 1,500 · 2.5M · 3B · 4T · 1.2e25."""
    size = abs(value)
    if size >= 1e15:
        return f"{value:.1e}".replace("e+", "e")
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if size >= limit:
            return f"{value / limit:,.4g}{suffix}"
    return f"{value:,.4g}" if size < 1e4 else f"{value:,.0f}"


AXIS_RANGE = (1e-300, 1e300)  # tops beyond these are drawn at them: round steps stay normal, finite floats


def nice_ticks(top: float, count: int = 5) -> list[float]:
    """0 and round steps (1, 2, 2.5 or 5 × a power of ten) up to at least `top`; [0, 1] for a top that is not a
    positive finite number. Any finite top gives at most count + 1 steps, tiny (5e-324) and huge (1e308) alike."""
    if not top > 0 or not math.isfinite(top):
        return [0.0, 1.0]
    top = min(max(top, AXIS_RANGE[0]), AXIS_RANGE[1])
    rough = top / count
    power = 10.0 ** math.floor(math.log10(rough))
    step = next((m * power for m in (1, 2, 2.5, 5) if m * power >= rough), 10 * power)
    return [i * step for i in range(int(math.ceil(top / step - 1e-9)) + 1)]


def _along(value: float, top: float) -> float:
    """How far along an axis from 0 to `top` a value lies, kept within -1 … 2 (a sum that overflowed, a value
    beyond a clamped top), so every coordinate is a short finite number."""
    share = value / top if top else 0.0
    return 0.0 if math.isnan(share) else min(max(share, -1.0), 2.0)


def _finite(values) -> list[float]:
    """Values to draw: each a finite float (a value that is not, such as an undefined result, is drawn at 0)."""
    found = []
    for value in values:
        try:
            number = float(value)
        except (TypeError, ValueError):
            number = 0.0
        found.append(number if math.isfinite(number) else 0.0)
    return found


@dataclass
class _Mark:
    kind: str  # "bars", "line", "xy", "hline", "vline"
    label: str
    colour: str
    values: list = field(default_factory=list)
    xs: list = field(default_factory=list)
    right: bool = False
    dashed: bool = False
    markers: bool = False


@dataclass
class Chart:
    """A chart over categories (columns, stacked or grouped, and lines through them) or over a numeric x axis
    (lines), with reference lines; `svg()` draws it."""

    title: str
    x_label: str = ""
    y_label: str = ""
    y2_label: str = ""  # a second value axis on the right, for lines drawn with right=True
    height: int = 300
    categories: list[str] = field(default_factory=list)
    stacked: bool = False
    value_labels: object = None  # a function formatting a value shown above each bar
    marks: list[_Mark] = field(default_factory=list)

    def columns(self, categories, series, *, stacked: bool = False, value_labels=None) -> "Chart":
        """Bars per category: series as (label, values, colour), side by side or stacked."""
        self.categories = [str(c) for c in categories]
        self.stacked, self.value_labels = stacked, value_labels
        self.marks += [_Mark("bars", label, colour, _finite(values)) for label, values, colour in series]
        return self

    def line(self, label: str, values, colour: str, *, right: bool = False, dashed: bool = False,
             markers: bool = False) -> "Chart":
        """A line through the categories (on the right-hand axis with right=True)."""
        self.marks.append(_Mark("line", label, colour, _finite(values), right=right, dashed=dashed,
                                markers=markers))
        return self

    def xy(self, label: str, xs, ys, colour: str, *, dashed: bool = False, markers: bool = False) -> "Chart":
        """A line over a numeric x axis."""
        self.marks.append(_Mark("xy", label, colour, _finite(ys), _finite(xs), dashed=dashed, markers=markers))
        return self

    def hline(self, value: float, label: str, colour: str = RED) -> "Chart":
        """A dashed reference across the plot (a GPU's memory, an SLO)."""
        self.marks.append(_Mark("hline", label, colour, _finite([value]), dashed=True))
        return self

    def vline(self, x: float, label: str, colour: str = GREY) -> "Chart":
        """A dotted marker at a numeric x (a crossing day)."""
        self.marks.append(_Mark("vline", label, colour, xs=_finite([x]), dashed=True))
        return self

    # Drawing ------------------------------------------------------------------------------------------------
    def svg(self) -> Markup:
        right_axis = any(m.right for m in self.marks)
        plot_left, plot_top = LEFT, TOP
        plot_right = WIDTH - LEGEND - (56 if right_axis else 8)
        plot_bottom = self.height - BOTTOM - 12 * max((c.count("\n") for c in self.categories), default=0)
        width, height = plot_right - plot_left, plot_bottom - plot_top
        left_ticks = nice_ticks(self._top(right=False))
        right_ticks = nice_ticks(self._top(right=True)) if right_axis else []
        numeric = any(m.kind == "xy" for m in self.marks)
        x_ticks = nice_ticks(max((x for m in self.marks for x in m.xs), default=1)) if numeric else []

        def y(value: float, right: bool = False) -> float:
            return plot_bottom - height * _along(value, (right_ticks if right else left_ticks)[-1])

        def x(value: float) -> float:
            return plot_left + width * _along(value, x_ticks[-1])

        band = width / max(len(self.categories), 1)
        out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {self.height}" width="{WIDTH}" '
               f'height="{self.height}" role="img" aria-label="{escape(self.title)}" {FONT} font-size="11">',
               f'<text x="{WIDTH / 2:.0f}" y="18" text-anchor="middle" font-size="13" font-weight="bold">'
               f'{escape(self.title)}</text>']
        for tick in left_ticks:  # grid and left axis
            out.append(f'<line x1="{plot_left}" x2="{plot_right}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" '
                       f'stroke="#e4e4e4"/><text x="{plot_left - 6}" y="{y(tick) + 4:.1f}" text-anchor="end">'
                       f'{compact(tick)}</text>')
        for tick in right_ticks:
            out.append(f'<text x="{plot_right + 6}" y="{y(tick, True) + 4:.1f}">{compact(tick)}</text>')
        out.append(f'<line x1="{plot_left}" x2="{plot_right}" y1="{plot_bottom}" y2="{plot_bottom}" stroke="#666"/>')
        for tick in x_ticks:
            out.append(f'<text x="{x(tick):.1f}" y="{plot_bottom + 16}" text-anchor="middle">{compact(tick)}</text>')
        for i, category in enumerate(self.categories):
            lines = category.split("\n")
            spans = "".join(f'<tspan x="{plot_left + band * (i + 0.5):.1f}" dy="{0 if n == 0 else 12}">'
                            f'{escape(line)}</tspan>' for n, line in enumerate(lines))
            out.append(f'<text y="{plot_bottom + 16}" text-anchor="middle">{spans}</text>')
        out += self._bars(band, plot_left, y)
        for mark in self.marks:
            out += self._draw(mark, band, left=plot_left, right=plot_right, top=plot_top, bottom=plot_bottom, x=x,
                              y=y)
        axis_y = (plot_top + plot_bottom) / 2
        for label, placed in ((self.y_label, f'transform="translate(14 {axis_y:.0f}) rotate(-90)"'),
                              (self.y2_label, f'transform="translate({plot_right + 50} {axis_y:.0f}) rotate(90)"'),
                              (self.x_label, f'x="{(plot_left + plot_right) / 2:.0f}" y="{self.height - 6}"')):
            if label:  # each axis's title, centred along it
                out.append(f'<text {placed} text-anchor="middle">{escape(label)}</text>')
        out += self._legend(WIDTH - LEGEND + 12, plot_top)
        out.append("</svg>")
        return Markup("".join(out))

    def _top(self, right: bool) -> float:
        marks = [m for m in self.marks if m.right == right and m.kind != "vline"]
        bars = [m for m in marks if m.kind == "bars"]
        tops = [max(m.values, default=0) for m in marks if m.kind != "bars"]
        if bars:
            tops.append(max(map(sum, zip(*(m.values for m in bars)))) if self.stacked
                        else max(max(m.values, default=0) for m in bars))
        room = 1.4 if not right and any(m.right for m in self.marks) else 1.12 if self.value_labels else 1
        # labels above bars, and a right-hand line above them, need room; a stack near the largest float stays finite
        return min(max(tops, default=0), AXIS_RANGE[1]) * room

    def _bars(self, band: float, left: float, y) -> list[str]:
        bars = [m for m in self.marks if m.kind == "bars"]
        out = []
        base = [0.0] * len(self.categories)
        for n, mark in enumerate(bars):
            bar = band * 0.6 / (1 if self.stacked else len(bars))
            for i, value in enumerate(mark.values):
                x0 = left + band * (i + 0.2) + (0 if self.stacked else n * bar)
                bottom = base[i] if self.stacked else 0.0
                top = y(bottom + value)
                out.append(f'<rect x="{x0:.1f}" y="{top:.1f}" width="{bar:.1f}" height="{y(bottom) - top:.1f}" '
                           f'fill="{mark.colour}"/>')
                if self.value_labels:
                    out.append(f'<text x="{x0 + bar / 2:.1f}" y="{top - 4:.1f}" text-anchor="middle" '
                               f'font-size="10">{escape(self.value_labels(value))}</text>')
                if self.stacked:
                    base[i] += value
        return out

    def _draw(self, mark: _Mark, band: float, *, left: float, right: float, top: float, bottom: float, x, y):
        dash = ' stroke-dasharray="6 4"' if mark.dashed else ""
        if mark.kind == "hline":
            level = y(mark.values[0])
            return [f'<line x1="{left}" x2="{right}" y1="{level:.1f}" y2="{level:.1f}" stroke="{mark.colour}" '
                    f'stroke-width="2"{dash}/>']
        if mark.kind == "vline":
            at = x(mark.xs[0])
            return [f'<line x1="{at:.1f}" x2="{at:.1f}" y1="{top}" y2="{bottom}" stroke="{mark.colour}" '
                    f'stroke-width="1.5" stroke-dasharray="2 3"/>']
        if mark.kind == "line":
            points = [(left + band * (i + 0.5), y(v, mark.right)) for i, v in enumerate(mark.values)]
        elif mark.kind == "xy":
            points = [(x(a), y(b)) for a, b in zip(mark.xs, mark.values)]
        else:
            return []
        path = " ".join(f"{a:.1f},{b:.1f}" for a, b in points)
        out = [f'<polyline points="{path}" fill="none" stroke="{mark.colour}" stroke-width="2"{dash}/>']
        if mark.markers:
            out += [f'<circle cx="{a:.1f}" cy="{b:.1f}" r="3" fill="{mark.colour}"/>' for a, b in points]
        return out

    def _legend(self, left: float, top: float) -> list[str]:
        """A swatch and a label per mark; a label longer than the legend is wide wraps onto more lines."""
        out = []
        row = top
        for mark in self.marks:
            lines = textwrap.wrap(mark.label, LEGEND_CHARS) or [""]
            if mark.kind == "bars":
                swatch = f'<rect x="{left}" y="{row - 9}" width="12" height="10" fill="{mark.colour}"/>'
            else:
                dash = ' stroke-dasharray="4 3"' if mark.dashed else ""
                swatch = (f'<line x1="{left}" x2="{left + 14}" y1="{row - 4}" y2="{row - 4}" stroke="{mark.colour}" '
                          f'stroke-width="2"{dash}/>')
            spans = "".join(f'<tspan x="{left + 20}" dy="{0 if n == 0 else 13}">{escape(line)}</tspan>'
                            for n, line in enumerate(lines))
            out.append(f'{swatch}<text x="{left + 20}" y="{row}">{spans}</text>')
            row += 16 + 13 * (len(lines) - 1)
        return out
