"""The Goodput section of the HTML summary (METHOD.md §5): sentences and charts. Charts label servers and
benchmarks by position ("Server 1"); the tables beside them give the names."""

from __future__ import annotations

from markupsafe import Markup

from planner.report import plot
from planner.report.format import money, number


def _share(value: float) -> str:
    return f"{value * 100:.1f} %"


def _rate(value: float) -> str:
    return f"{value:,.3g}"


def findings(results) -> list[str]:
    scenario, table = results.scenario, results.goodput
    symbol = scenario.currency_symbol
    return _servers(table.servers, symbol) + [sentence for bench in table.benchmarks
                                              for sentence in _benchmark(scenario, table, bench, symbol)]


def _servers(servers: list[dict], symbol: str) -> list[str]:
    """Which server is cheapest per acceptable request, by how much, and whether it has the lower throughput."""
    priced = sorted((s for s in servers if not isinstance(s["cost_per_acceptable_request"], str)),
                    key=lambda s: s["cost_per_acceptable_request"])
    if not priced:
        return ["No server has acceptable requests, so none has a cost per acceptable request."]
    best = priced[0]
    cost = money(best["cost_per_acceptable_request"], symbol, 5)
    if len(priced) == 1:
        return [f"{best['name']} is the only server with acceptable requests: {cost} each."]
    other = priced[1]
    other_cost = money(other["cost_per_acceptable_request"], symbol, 5)
    if best["cost_per_acceptable_request"] == other["cost_per_acceptable_request"]:
        return [f"{best['name']} and {other['name']} cost the same per acceptable request, {cost}."]
    saving = 1 - best["cost_per_acceptable_request"] / other["cost_per_acceptable_request"]
    sentence = (f"{best['name']} is the cheapest per acceptable request: {cost}, {_share(saving)} less than "
                f"{other['name']} at {other_cost}")
    if other["completed_per_hour"] > best["completed_per_hour"]:
        sentence += (f", although {other['name']} completes more requests per hour "
                     f"({number(other['completed_per_hour'])} against {number(best['completed_per_hour'])})")
    return [sentence + f": {_share(best['acceptable_share'])} of {best['name']}'s requests are acceptable, "
                       f"{_share(other['acceptable_share'])} of {other['name']}'s."]


def _benchmark(scenario, table, bench: dict, symbol: str) -> list[str]:
    """The benchmark's goodput in words, then the tail latencies and cost at the run that decides it."""
    g = scenario.goodput
    own = table.runs[bench["first_run"] - 1:bench["last_run"]]
    slo = f"TTFT ≤ {number(g.slo.ttft_ms)} ms and TPOT ≤ {number(g.slo.tpot_ms)} ms"
    target = _share(g.attainment_target)
    name = bench["name"]
    if bench["highest_meeting_run"] == 0:
        low = own[0]
        sentences = [f"{name}: no run meets the target; even at {_rate(low['rate'])} requests per second only "
                     f"{_share(low['attainment'])} of requests meet {slo} (target {target}): the goodput is below "
                     f"the lowest rate tested."]
        decisive = low
    else:
        decisive = table.runs[bench["highest_meeting_run"] - 1]
        if isinstance(bench["goodput"], str):
            sentences = [f"{name}: even the highest rate tested, {_rate(decisive['rate'])} requests per second, "
                         f"meets the target ({_share(decisive['attainment'])} of requests within {slo}): the goodput "
                         f"is at least that; test higher rates to find it."]
        else:
            after = table.runs[decisive["run"]]
            sentences = [f"{name}: goodput {bench['goodput']:,.2f} requests per second "
                         f"({bench['goodput_per_gpu']:,.2f} per GPU on {number(bench['gpus'])} {bench['gpu']}), "
                         f"the highest rate at which {target} of requests meet {slo}: between "
                         f"{_rate(decisive['rate'])} requests per second ({_share(decisive['attainment'])}) and "
                         f"{_rate(after['rate'])} ({_share(after['attainment'])})."]
    at = f"At {_rate(decisive['rate'])} requests per second"
    if isinstance(decisive["ttft_p99_ms"], str):
        sentences.append(f"{at} no request of {name} completed.")
        return sentences
    cost = decisive["cost_per_acceptable_request"]
    per_million = decisive["cost_per_million_acceptable_output_tokens"]
    standby = decisive["standby_gpus"]
    paid = "" if not standby else f", {number(standby)} standby GPU{'s' if standby > 1 else ''} included"
    costs = "" if isinstance(cost, str) else (f"; at that rate the run costs {money(cost, symbol, 5)} per acceptable "
                                              f"request and {money(per_million, symbol, 2)} per million acceptable "
                                              f"output tokens{paid}")
    sentences.append(f"{at}, p99 TTFT is {number(round(decisive['ttft_p99_ms']))} ms against the "
                     f"{number(g.slo.ttft_ms)} ms SLO and p99 TPOT {decisive['tpot_p99_ms']:,.1f} ms against "
                     f"{number(g.slo.tpot_ms)} ms{costs}.")
    return sentences


def charts(results) -> dict[str, Markup]:
    table = results.goodput
    found = {"servers": _servers_chart(table.servers)}
    if table.runs:
        found["attainment"] = _attainment(table)
        found["latencies"] = _latencies(table)
    return found


def _servers_chart(servers: list[dict]) -> Markup:
    """Completed against acceptable requests per hour, and cost per request against per acceptable request."""
    fig, (left, right) = plot.plt.subplots(1, 2, figsize=(plot.SIZE[0], plot.SIZE[1]))
    x = range(len(servers))
    labels = [f"Server {i}" for i in range(1, len(servers) + 1)]
    for axes, keys, title, scale in (
            (left, (("completed_per_hour", "Completed", plot.GREY), ("acceptable_per_hour", "Acceptable",
                                                                       plot.BLUE)), "Requests per hour", 1),
            (right, (("cost_per_request", "Per request", plot.GREY), ("cost_per_acceptable_request",
                                                                       "Per acceptable request", plot.BLUE)),
             "Cost per request (thousandths)", 1000)):
        for offset, (key, label, colour) in zip((-0.2, 0.2), keys):
            values = [s[key] * scale if not isinstance(s[key], str) else 0 for s in servers]
            bars = axes.bar([i + offset for i in x], values, 0.4, label=label, color=colour)
            axes.bar_label(bars, fmt="%.4g" if scale != 1 else "%.0f", fontsize=7)
        axes.set_xticks(list(x), labels)
        axes.set_title(title, fontsize=10)
        axes.grid(axis="y", alpha=0.3)
        axes.set_axisbelow(True)
        axes.set_ylim(bottom=0)
        axes.spines[["top", "right"]].set_visible(False)
        axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), frameon=False, ncol=2, fontsize=8)
    return plot.svg(fig)


def _attainment(table) -> Markup:
    """Attainment against request rate per benchmark, the target, and each interpolated goodput."""
    fig, axes = plot.figure()
    colours = [plot.BLUE, plot.ORANGE, "#70AD47", "#7030A0", plot.GREY, plot.YELLOW]
    target = table.scalars["attainment_target"]
    for i, bench in enumerate(table.benchmarks):
        own = table.runs[bench["first_run"] - 1:bench["last_run"]]
        colour = colours[i % len(colours)]
        axes.plot([r["rate"] for r in own], [r["attainment"] * 100 for r in own], marker="o", color=colour,
                  label=f"Benchmark {bench['benchmark']}")
        if not isinstance(bench["goodput"], str):
            axes.plot([bench["goodput"]], [target * 100], marker="D", color=colour, markersize=8,
                      markeredgecolor="black", linestyle="none")
            axes.annotate(f"{bench['goodput']:.2f}", (bench["goodput"], target * 100), textcoords="offset points",
                          xytext=(6, 6), fontsize=8)
    axes.axhline(target * 100, label=f"Target {target * 100:.4g} %", **plot.CAPACITY)
    axes.set_xlabel("Request rate (requests per second)")
    axes.set_ylabel("Attainment (%)")
    axes.set_ylim(0, 105)
    axes.set_title("Attainment against request rate (◆ goodput)")
    plot.finish(axes, grid="y")
    axes.set_xlim(left=0)
    return plot.svg(fig)


def _latencies(table) -> Markup:
    """p50, p90 and p99 TTFT and TPOT per run, against their SLO."""
    fig, panels = plot.plt.subplots(1, 2, figsize=(plot.SIZE[0], plot.SIZE[1]))
    runs = table.runs
    x = range(len(runs))
    shades = (("p50", "#9DC3E6"), ("p90", plot.BLUE), ("p99", "#1F3864"))
    for axes, unit in zip(panels, ("ttft", "tpot")):
        for offset, (p, colour) in zip((-0.27, 0, 0.27), shades):
            values = [r[f"{unit}_{p}_ms"] if not isinstance(r[f"{unit}_{p}_ms"], str) else 0 for r in runs]
            axes.bar([i + offset for i in x], values, 0.27, label=p, color=colour)
        axes.axhline(table.scalars[f"slo_{unit}_ms"], label="SLO", **plot.CAPACITY)
        axes.set_xticks(list(x), [str(r["run"]) for r in runs])
        axes.set_xlabel("Run")
        axes.set_title(f"{unit.upper()} (ms)", fontsize=10)
        axes.grid(axis="y", alpha=0.3)
        axes.set_axisbelow(True)
        axes.set_ylim(bottom=0)
        axes.spines[["top", "right"]].set_visible(False)
    panels[1].legend(loc="upper left", bbox_to_anchor=(1.01, 1), frameon=False, fontsize=8)
    return plot.svg(fig)
