"""The Sensitivity section of the HTML summary (docs/method.md §9): sentences and the tornado."""

from __future__ import annotations

from markupsafe import Markup, escape

from planner.report import plot
from planner.report.format import money

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("sensitivity_largest_swing", "Moves the total most", "text"),
]


def findings(results) -> list[str]:
    t, symbol = results.sensitivity, results.scenario.currency_symbol
    first, second = t.sorted[0], t.sorted[1]
    if any(isinstance(line[key], str) for line in (first, second) for key in ("total_low", "total_high")) or \
            isinstance(t.scalars["total_cost"], str):
        return [f"The plan's total is {t.scalars['total_cost']}, so the tornado has no swings to rank."]
    return [f"Of {len(t.sorted)} inputs moved by ±20 % one at a time (the whole plan re-evaluated each time), the "
            f"plan's total ({money(t.scalars['total_cost'], symbol)}) moves most with {first['input']}: from "
            f"{money(first['total_low'], symbol)} to {money(first['total_high'], symbol)}; then with "
            f"{second['input']}, from {money(second['total_low'], symbol)} to {money(second['total_high'], symbol)}."]


def charts(results) -> dict[str, Markup]:
    return {"tornado": tornado(results.sensitivity.sorted, results.scenario.currency_symbol)}


def tornado(lines: list[dict], symbol: str, width: int = 640, bar: int = 26) -> Markup:
    """Horizontal bars either side of the scenario's total, the largest swing on top: ×0.8 blue, ×1.2 orange."""
    left, right, top = 190, 20, 30
    lines = [{**line, **{key: line[key] if isinstance(line[key], (int, float)) else 0.0
                         for key in ("change_low", "change_high")}} for line in lines]
    span = max(max(abs(line["change_low"]), abs(line["change_high"])) for line in lines) or 1.0
    middle, half = left + (width - left - right) / 2, (width - left - right) / 2
    height = top + bar * len(lines) + 40
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} '
             f'{height}" font-family="sans-serif" font-size="11">',
             f'<text x="{width / 2}" y="16" text-anchor="middle" font-size="13">Tornado: the plan\'s total at ×0.8 '
             f'and ×1.2 of each input</text>']
    for i, line in enumerate(lines):
        y = top + i * bar
        parts.append(f'<text x="{left - 6}" y="{y + bar / 2 + 4}" text-anchor="end">{escape(line["input"])}</text>')
        for key, colour in (("change_low", plot.BLUE), ("change_high", plot.ORANGE)):
            change = line[key]
            x0, x1 = sorted((middle, middle + change / span * half))
            parts.append(f'<rect x="{x0:.1f}" y="{y + 4}" width="{max(x1 - x0, 0.5):.1f}" height="{bar - 8}" '
                         f'fill="{colour}"><title>{escape(money(change, symbol))}</title></rect>')
    bottom = top + bar * len(lines)
    parts.append(f'<line x1="{middle}" y1="{top - 4}" x2="{middle}" y2="{bottom}" stroke="#333"/>')
    for value, anchor in ((-span, "start"), (0, "middle"), (span, "end")):
        parts.append(f'<text x="{middle + value / span * half:.1f}" y="{bottom + 16}" text-anchor="{anchor}">'
                     f'{escape(("+" if value > 0 else "") + money(value, symbol))}</text>')
    parts.append(f'<text x="{left}" y="{bottom + 34}" fill="{plot.BLUE}">■ at ×0.8</text>'
                 f'<text x="{left + 90}" y="{bottom + 34}" fill="{plot.ORANGE}">■ at ×1.2</text></svg>')
    return Markup("".join(parts))
