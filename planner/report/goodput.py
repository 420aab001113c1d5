"""The Goodput section of the HTML summary (docs/method.md §5): sentences and charts. The server charts label servers
by position ("Server 1", as the table beside them numbers them); the attainment chart's legend names each benchmark
("1: h100 vLLM")."""

from __future__ import annotations

from markupsafe import Markup

from planner.report import plot
from planner.report.format import money, number

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("goodput_cheapest_server", "Cheapest server per acceptable request", "text"),
    ("goodput_cheapest_cost_per_acceptable_request", "… its cost per acceptable request", "money5"),
]


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
    tokens = ("no acceptable output tokens" if isinstance(per_million, str) else
              f"{money(per_million, symbol, 2)} per million acceptable output tokens")
    costs = "" if isinstance(cost, str) else (f"; at that rate the run costs {money(cost, symbol, 5)} per acceptable "
                                              f"request and {tokens}{paid}")
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
    labels = [f"Server {i}" for i in range(1, len(servers) + 1)]

    def values(key: str, scale: float = 1) -> list[float]:
        return [s[key] * scale if not isinstance(s[key], str) else 0 for s in servers]

    requests = plot.Chart("Requests per hour", y_label="Requests per hour", height=260).columns(labels, [
        ("Completed", values("completed_per_hour"), plot.GREY),
        ("Acceptable", values("acceptable_per_hour"), plot.BLUE)], value_labels=lambda v: f"{v:,.0f}")
    cost = plot.Chart("Cost per request", y_label="Thousandths of the currency", height=260).columns(labels, [
        ("Per request", values("cost_per_request", 1000), plot.GREY),
        ("Per acceptable request", values("cost_per_acceptable_request", 1000), plot.BLUE)],
        value_labels=lambda v: f"{v:.4g}")
    return requests.svg() + cost.svg()


def _attainment(table) -> Markup:
    """Attainment against request rate per benchmark, the target, and each interpolated goodput."""
    target = table.scalars["attainment_target"]
    chart = plot.Chart("Attainment against request rate",
                       x_label="Request rate (requests per second)", y_label="Attainment (%)")
    colours = [plot.BLUE, plot.ORANGE, plot.GREEN, "#7030A0", plot.GREY, plot.YELLOW]
    for i, bench in enumerate(table.benchmarks):
        own = table.runs[bench["first_run"] - 1:bench["last_run"]]
        colour = colours[i % len(colours)]
        chart.xy(f"{bench['benchmark']}: {bench['name']}", [r["rate"] for r in own],
                 [r["attainment"] * 100 for r in own], colour, markers=True)
        if not isinstance(bench["goodput"], str):
            chart.vline(bench["goodput"], f"{bench['benchmark']}: goodput {bench['goodput']:.2f}/s", colour)
    return chart.hline(target * 100, f"Target {target * 100:.4g} %").svg()


def _latencies(table) -> Markup:
    """p50, p90 and p99 TTFT and TPOT per run, against their SLO."""
    runs = table.runs
    shades = (("p50", "#9DC3E6"), ("p90", plot.BLUE), ("p99", "#1F3864"))
    out = Markup()
    for unit in ("ttft", "tpot"):
        chart = plot.Chart(f"{unit.upper()} per run against the SLO", x_label="Run", y_label="ms", height=260)
        chart.columns([str(r["run"]) for r in runs], [
            (p, [r[f"{unit}_{p}_ms"] if not isinstance(r[f"{unit}_{p}_ms"], str) else 0 for r in runs], colour)
            for p, colour in shades])
        out += chart.hline(table.scalars[f"slo_{unit}_ms"], "SLO").svg()
    return out
