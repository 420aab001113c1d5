"""The Layouts section of the HTML summary (docs/method.md §10): sentences, the front of days against cost."""

from __future__ import annotations

from markupsafe import Markup

from planner.report import plot
from planner.report.format import gb, money, number, percent

# No SUMMARY (the registry's default, none): a batch's index and summary have every table's columns, and most
# scenarios have no search


def _layout(row: dict) -> str:
    """8/14/2/64 (t/p/c/d), b 1, v 9, ZeRO-2, no recompute."""
    recompute = "no recompute" if row["recompute"] == "none" else f"{row['recompute']} recompute"
    return (f"{row['tensor_parallel']}/{row['pipeline_parallel']}/{row['context_parallel']}/{row['data_parallel']} "
            f"(t/p/c/d), b {row['micro_batch']}, v {row['interleave']}, ZeRO-{row['zero']}, {recompute}")


def findings(results) -> list[str]:
    scenario, found = results.scenario, results.layouts.search
    symbol, search = scenario.currency_symbol, scenario.search
    deadline = f"within {search.deadline_days:g} days" if search.deadline_days is not None else "with no deadline"
    sentences = [f"The layout search tried {number(found.valid_layouts)} valid layouts of {scenario.model} on up to "
                 f"{number(search.gpus_max)} {scenario.gpu} GPUs: {number(found.fitting_layouts)} fit in "
                 f"{gb(found.usable_gb)} GB usable per GPU and {number(found.deadline_layouts)} of those finish "
                 f"{deadline}."]
    if found.cheapest:
        best = found.cheapest[0]
        sentences.append(f"The cheapest: {number(best['gpus'])} GPUs at {_layout(best)}, {gb(best['memory_gb'])} GB "
                         f"per GPU, MFU {percent(best['mfu'])} (Megatron's count {percent(best['megatron_mfu'])}), "
                         f"{best['days']:,.1f} days, {money(best['cost'], symbol)}.")
    else:
        sentences.append(f"No layout is the cheapest: {found.reason}.")
    if found.front:
        fastest = found.front[0]
        sentences.append(f"The fastest that fits: {number(fastest['gpus'])} GPUs at {_layout(fastest)}, "
                         f"{fastest['days']:,.1f} days, {money(fastest['cost'], symbol)}.")
    for i, ref in enumerate(found.references, start=1):
        if ref["step_time_s"] is None:
            sentences.append(f"Reference layout {i}: {ref['reason']}.")
        else:
            verdict = "fits" if ref["fits"] else f"does not fit ({ref['reason']})"
            sentences.append(f"Reference layout {i}, {number(ref['gpus'])} GPUs at {_layout(ref)}: "
                             f"{ref['days']:,.1f} days, {money(ref['cost'], symbol)}; it {verdict}.")
    return sentences


def charts(results) -> dict[str, Markup]:
    """The front, days against cost, up to three times the fastest layout's days (the table lists every layout of
    it): beyond that the cheaper layouts take years and would squeeze the rest against the axis."""
    front = results.layouts.search.front
    shown = [row for row in front if row["days"] <= 3 * front[0]["days"]] if front else []
    chart = plot.Chart("Days against cost: the front of the layout search", x_label="Days",
                       y_label=f"Cost ({results.scenario.currency_symbol} millions)")
    chart.xy("Front", [row["days"] for row in shown], [row["cost"] / 1e6 for row in shown], plot.BLUE, markers=True)
    deadline = results.scenario.search.deadline_days
    if deadline is not None and shown and deadline <= 3 * front[0]["days"]:
        chart.vline(deadline, "Deadline")
    return {"front": chart.svg()}
