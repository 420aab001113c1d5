"""The Cluster section of the HTML summary (docs/method.md §4): sentences and the two 24-hour charts."""

from __future__ import annotations

from markupsafe import Markup

from planner.report import plot
from planner.report.format import money, number, percent
from planner.specs import CLUSTER_STACKS


def gpu_hours(value) -> str:
    """GPU-hours with thousands separators and at most two decimals: 9,528 or 173.25."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("cluster_moved_gpu_hours", "Cluster: GPU-hours moved to training a day", "hours"),
    ("cluster_preemptions", "… preemptions a day", "count"),
    ("cluster_net_gain_gpu_hours", "… net gain in GPU-hours a day", "hours"),
]


def findings(results) -> list[str]:
    scenario, s = results.scenario, results.cluster.scalars
    c, symbol = scenario.cluster, scenario.currency_symbol
    pool = s["pool_gpus"]
    idle = f"the pool sits idle for {gpu_hours(s['idle_gpu_hours_separate'])} GPU-hours a day"
    if pool > 0:
        idle += f" ({s['idle_gpu_hours_separate'] / (24 * pool) * 100:.0f} % of its GPU-hours)"
    sentences = [
        f"On separate pools, the {c.profile} profile's peak demand of {number(s['peak_demand_gpus'])} GPUs plus "
        f"{percent(c.spare)} spare takes a serving pool of {number(pool)} of the {number(c.gpus)} GPUs; training "
        f"runs on the other {number(s['separate_training_gpus'])}, and {idle}.",
        f"Shared with preemption, training gets {gpu_hours(s['training_gpu_hours_shared'])} GPU-hours a day instead "
        f"of {gpu_hours(s['training_gpu_hours_separate'])}: {gpu_hours(s['moved_gpu_hours'])} GPU-hours move to "
        f"training, for {number(s['preemptions'])} training GPUs preempted as inference grows (the day repeating, "
        f"hour 0 follows hour 23).",
    ]
    gain = s["net_gain_gpu_hours"]
    lost = (f"At {gpu_hours(c.restart_cost_gpu_hours)} GPU-hours lost per preemption "
            f"({gpu_hours(s['lost_gpu_hours'])} GPU-hours)")
    value = money(abs(s["net_gain_value"]), symbol, 2)
    price = money(s["price_per_gpu_hour"], symbol, 2)
    if gain >= 0:
        sentences.append(f"{lost}, the net gain is {gpu_hours(gain)} GPU-hours a day, worth {value} at {price} per "
                         f"GPU-hour.")
    else:
        sentences.append(f"{lost}, sharing loses {gpu_hours(-gain)} GPU-hours a day, {value} at {price} per "
                         f"GPU-hour: separate pools are the better choice here.")
    return sentences


def charts(results) -> dict[str, Markup]:
    table = results.cluster
    return {"separate": _stack(table, "separate", "Separate pools: the serving pool sits idle off-peak"),
            "shared": _stack(table, "shared", "Shared: training fills what inference does not use")}


def _stack(table, mode: str, title: str) -> Markup:
    """Stacked columns per hour (inference, spare or idle, training: the whole cluster); on the shared chart the
    training GPUs preempted each hour as a line."""
    chart = plot.Chart(title, x_label="Hour of the day", y_label="GPUs")
    chart.columns([row["hour"] for row in table.hours],
                  [(label, [row[key] for row in table.hours], colour) for key, label, colour in CLUSTER_STACKS[mode]],
                  stacked=True)
    if mode == "shared":
        chart.line("Training GPUs preempted", [row["preempted"] for row in table.hours], plot.RED, markers=True)
    return chart.svg()
