"""The Fleet section of the HTML summary (docs/method.md §11): sentences that say which fleet is cheapest and
why its mode wins, the Pareto front of tokens per second per GPU against per user, and the day hour by hour."""

from __future__ import annotations

from collections import Counter

from markupsafe import Markup

from planner.engine import fleet as F
from planner.engine.fleet import AGGREGATED, DISAGGREGATED, prefill_gpus
from planner.engine.serving import knobs_in
from planner.report import plot
from planner.report.format import and_list, money, number, percent


# none in a batch's index and summary: their columns are every table's, and most scenarios have no fleet
SUMMARY: list = []


def share(value: float) -> str:
    """A share to one decimal: "2.5 %"."""
    return f"{value * 100:,.1f} %"


def configuration(row: dict) -> str:
    """How a row's configuration reads: "7 replicas of 2 mi300x GPUs at B 306" or "1 prefill replica of 1 and 7
    decode replicas of 2 h200 GPUs at B 136"."""
    def replicas(n, what=""):
        return f"{number(n)} {what}replica{'s' if n != 1 else ''}"

    def of(t):
        return f"{number(t)} GPU{'s' if t != 1 else ''}"

    precision = f"{row['weight_precision']}/{row['kv_precision']}"
    if row["mode"] == AGGREGATED:
        return f"{replicas(row['replicas'])} of {of(row['tensor_parallel'])} ({row['gpu']}, {precision}) at B " \
               f"{number(row['batch'])}"
    return (f"{replicas(row['prefill_replicas'], 'prefill ')} of {of(row['prefill_tensor_parallel'])} and "
            f"{replicas(row['decode_replicas'], 'decode ')} of {of(row['tensor_parallel'])} ({row['gpu']}, "
            f"{precision}) at B {number(row['batch'])}")


def _refinements(results) -> list[str]:
    """What §12 changes in every candidate's roofline: a calibration (on its benchmark's GPU only), a cached prefix,
    speculative decoding."""
    sv, s, said = knobs_in(results.scenario), results.fleet.scalars, []
    fit = results.serving.fit
    if sv.calibration != "none" and fit:
        said.append(f"The {fit['gpu']} candidates use the efficiencies fitted from the benchmark "
                    f"“{sv.calibration}”: η_c {percent(s['calibrated_compute_efficiency'])}, η_m "
                    f"{percent(s['calibrated_bandwidth_efficiency'])}, τ {s['calibrated_overhead_ms']:,.2f} ms; the "
                    f"other GPUs keep the inputs ({percent(sv.compute_efficiency)}, "
                    f"{percent(sv.bandwidth_efficiency)}, {sv.overhead_ms:g} ms), so measured figures meet assumed "
                    "ones in this comparison.")
    if sv.prefix_hit_rate:
        said.append(f"{percent(sv.prefix_hit_rate)} of each prompt is served from the prefix cache in every "
                    "candidate.")
    if sv.speculative.method != "none":
        said.append(f"Every candidate decodes with speculative decoding ({sv.speculative.method}), its draft's "
                    "weights and KV cache in each replica's memory.")
    return said


def findings(results) -> list[str]:
    scenario, table = results.scenario, results.fleet
    s, symbol, fleet, goodput = table.scalars, scenario.currency_symbol, scenario.fleet, scenario.goodput
    demand = f"{s['rate']:,.4g} requests per second"
    if s["rate"] != s["first_attempt_rate"]:
        demand += f" ({s['first_attempt_rate']:,.4g} first attempts, retried while {percent(1 - fleet.quality)} fail " \
                  f"on quality)"
    sized = f"{number(s['configurations'])} configuration{'' if s['configurations'] == 1 else 's'}"
    sentences = [f"The search sized {sized} of {scenario.model} at a peak of "
                 f"{demand}, each request of {number(scenario.serving.prompt_tokens)} prompt and "
                 f"{number(s['outputs'])} output tokens, for TTFT within {number(goodput.slo.ttft_ms)} ms for "
                 f"{percent(goodput.attainment_target)} of requests and TPOT within {number(goodput.slo.tpot_ms)} ms: "
                 f"{number(s['feasible'])} meet{'s' if s['feasible'] == 1 else ''} it."]
    sentences += _refinements(results)
    best = table.cheapest
    if best is None:
        sentences.append("No configuration meets the SLO, so there is no fleet to show: " + _reasons(table) + ".")
        return sentences
    sentences.append(f"The cheapest: {best['mode']}, {configuration(best)}; {number(best['gpus'])} GPUs with spares, "
                     f"{money(best['cost_per_hour'], symbol, 2)} per hour, "
                     f"{money(best['cost_per_acceptable_request'] * 1000, symbol, 4)} per thousand acceptable "
                     f"requests, "
                     f"{money(best['cost_per_million_tokens'], symbol, 3)} per million output tokens; "
                     f"{best['tokens_per_s_per_gpu']:,.1f} tokens/s per GPU and {best['tokens_per_s_per_user']:,.1f} "
                     f"per user; TTFT at the {goodput.attainment_target * 100:g}th percentile "
                     f"{best['ttft_percentile_ms']:,.1f} ms (attainment {percent(best['attainment'])}).")
    sentences.append(why_the_mode_wins(table, symbol))
    if s["mixed_gpus"]:
        sentences += why_mixing(table, symbol)
    unmet = _reasons(table)
    if unmet:
        sentences.append(f"{unmet[0].upper()}{unmet[1:]}.")
    if s["pareto_rows"] and s["mixed_gpus"]:  # a GPU of one type is not a unit of another (§15.1)
        front = table.pareto
        sentences.append(f"The Pareto front of output tokens per {symbol} against tokens/s per user has "
                         f"{number(s['pareto_rows'])} of the {number(s['sized_rows'])} sized batch rows"
                         f"{' (' + number(len(front)) + ' shown)' if len(front) < s['pareto_rows'] else ''}: from "
                         f"{front[0]['output_tokens_per_dollar']:,.0f} per {symbol} at "
                         f"{front[0]['tokens_per_s_per_user']:,.1f} per user ({front[0]['gpu']}) to "
                         f"{front[-1]['output_tokens_per_dollar']:,.0f} per {symbol} at "
                         f"{front[-1]['tokens_per_s_per_user']:,.1f} per user ({front[-1]['gpu']}).")
    elif s["pareto_rows"]:
        front = table.pareto
        sentences.append(f"The Pareto front of tokens/s per GPU against tokens/s per user has "
                         f"{number(s['pareto_rows'])} of the {number(s['sized_rows'])} sized batch rows"
                         f"{' (' + number(len(front)) + ' shown)' if len(front) < s['pareto_rows'] else ''}: from "
                         f"{front[0]['tokens_per_s_per_gpu']:,.1f} per GPU at {front[0]['tokens_per_s_per_user']:,.1f} "
                         f"per user to {front[-1]['tokens_per_s_per_gpu']:,.1f} per GPU at "
                         f"{front[-1]['tokens_per_s_per_user']:,.1f} per user.")
    if table.day:
        sentences.append(_day(table, symbol))
    return sentences


def why_the_mode_wins(table, symbol: str) -> str:
    """Which mode wins and why, in the numbers that decide it: the prefill's share of an aggregated replica's time,
    the batches each mode can run within the TPOT target, the cost per hour and the tokens per second per user."""
    agg, dis = table.cheapest_of(AGGREGATED), table.cheapest_of(DISAGGREGATED)
    if agg is None or dis is None:
        mode = AGGREGATED if dis is None else DISAGGREGATED
        other = DISAGGREGATED if dis is None else AGGREGATED
        searched = other in (row["mode"] for row in table.candidates)
        return f"Only {mode} configurations meet the SLO" + (f"; no {other} one does." if searched else
                                                              f"; {other} was not searched.")
    prefill = agg["prefill_s"] / agg["cycle_s"]
    costs = f"{money(agg['cost_per_hour'], symbol, 2)} against {money(dis['cost_per_hour'], symbol, 2)} per hour"
    if agg == table.cheapest:
        if agg["cost_per_hour"] == dis["cost_per_hour"]:
            return (f"Aggregated and disaggregated cost the same, {money(agg['cost_per_hour'], symbol, 2)} per hour; "
                    f"aggregated ranks first on attainment ({percent(agg['attainment'])} against "
                    f"{percent(dis['attainment'])}), so on cost per acceptable request.")
        return (f"Aggregated wins: prefill takes {share(prefill)} of a replica's time here (T_pre/cycle at B "
                f"{number(agg['batch'])}), so separating it only adds a pool ({costs}).")
    return (f"Disaggregated wins: on an aggregated replica prefill takes {share(prefill)} of the time and stalls "
            f"every decode step, so within the TPOT target it runs a batch of {number(agg['batch'])} where a decode "
            f"replica runs {number(dis['batch'])}; apart, the phases cost {money(dis['cost_per_hour'], symbol, 2)} "
            f"per hour against {money(agg['cost_per_hour'], symbol, 2)} together, and give "
            f"{dis['tokens_per_s_per_user']:,.1f} tokens/s per user against {agg['tokens_per_s_per_user']:,.1f}.")


def pools(row: dict, symbol: str) -> str:
    """What each pool of a row costs an hour: "10 h100-sxm for prefill ($20.00) and 3 h200 for decode ($7.50)", or
    "16 mi300x ($32.00)" aggregated."""
    if row["mode"] == AGGREGATED:
        return f"{number(row['gpus'])} {row['decode_gpu']} ({money(row['cost_per_hour'], symbol, 2)})"
    first = prefill_gpus(row)
    second = row["gpus"] - first
    return (f"{number(first)} {row['prefill_gpu']} for prefill "
            f"({money(first * row['prefill_price_per_gpu_hour'], symbol, 2)}) and {number(second)} "
            f"{row['decode_gpu']} for decode ({money(second * row['price_per_gpu_hour'], symbol, 2)})")


def _decode(row: dict) -> str:
    """How a row decodes: "decode at B 41 on 1 h200 per replica"."""
    return f"decode at B {number(row['batch'])} on {number(row['tensor_parallel'])} {row['decode_gpu']} per replica"


def why_mixing(table, symbol: str) -> list[str]:
    """Whether prefill and decode on different GPUs wins (§15.1) and why, in each pool's GPUs and money: the chosen
    fleet against the best on one GPU type, or the best mixed against the chosen; the caveat on the KV transfer."""
    best, single, mixed = table.cheapest, table.single_type, table.cheapest_mixed
    if mixed is None:
        return ["No mixed pool (prefill and decode on different GPUs) meets the SLO."]
    caveat = ("The mixed pools' KV cache crosses the network between two GPU types: the method assumes both "
              "engines share a KV block layout and an RDMA path, which a pair of vendors (an H100 prefill and an "
              "MI300X decode) may not; Splitwise evaluated NVIDIA pairs only.")
    if best is mixed:
        if single is None:
            return [f"Mixed pools win: {pools(best, symbol)}; no fleet on one GPU type meets the SLO.", caveat]
        saving = single["cost_per_hour"] - best["cost_per_hour"]
        return [f"Mixed pools win: {pools(best, symbol)}, {money(best['cost_per_hour'], symbol, 2)} an hour against "
                f"{money(single['cost_per_hour'], symbol, 2)} for the best fleet on one GPU type, "
                f"{pools(single, symbol)}: {money(saving, symbol, 2)} an hour "
                f"({share(saving / single['cost_per_hour'])}) less, because each phase runs on the GPU that does it "
                f"for less ({_decode(best)} against {_decode(single)}). The saving lies within the model's "
                f"approximations and buys a second spare pool and "
                f"a second driver and engine stack.", caveat]
    tied = F.r9(mixed["cost_per_hour"]) == F.r9(best["cost_per_hour"])
    tie = " (a tie goes to one GPU type: one spare, driver and engine to run)" if tied else ""
    return [f"Mixed pools do not win: the best, {pools(mixed, symbol)}, costs "
            f"{money(mixed['cost_per_hour'], symbol, 2)} an hour against {money(best['cost_per_hour'], symbol, 2)} "
            f"for the cheapest, {pools(best, symbol)}{tie}."]


def _reasons(table) -> str:
    """How many configurations have which reason, in words ("90 do not fit, 2 TTFT not reachable"), or ""."""
    counts = Counter(row["reason"] for row in table.candidates if row["reason"])
    if not counts:
        return ""
    parts = [f"{number(n)} {reason}" for reason, n in counts.items()]
    return f"{number(sum(counts.values()))} configuration{'s' if sum(counts.values()) != 1 else ''} cannot meet " \
           f"it ({and_list(parts)})"


def _day(table, symbol: str) -> str:
    s = table.scalars
    idle = s["idle_gpu_hours_peak_sized"] / s["gpu_hours_peak_sized"]
    ratio = s["cost_per_acceptable_request_peak_sized"] / s["cost_per_acceptable_request_following"]
    return (f"Over the {s['profile']} day the fleet sized for the peak keeps {number(table.day[0]['gpus_peak_sized'])} "
            f"GPUs all day, {number(s['gpu_hours_peak_sized'])} GPU-hours of which {share(idle)} are idle, for "
            f"{money(s['cost_peak_sized'], symbol, 2)}; one that follows demand takes "
            f"{number(s['gpu_hours_following'])} GPU-hours for {money(s['cost_following'], symbol, 2)}: "
            f"{money(s['cost_per_acceptable_request_peak_sized'] * 1000, symbol, 4)} against "
            f"{money(s['cost_per_acceptable_request_following'] * 1000, symbol, 4)} per thousand acceptable requests "
            f"({ratio:,.1f}×). The following fleet starts replicas within the hour: a floor for what autoscaling "
            f"saves.")


def charts(results) -> dict[str, Markup]:
    table = results.fleet
    found = {}
    if table.pareto:
        chart = plot.Chart("Tokens/s per GPU against tokens/s per user: the Pareto front",
                           x_label="Output tokens/s per user", y_label="Output tokens/s per GPU")
        front, axis = table.pareto, F.PER_DOLLAR if table.scalars["mixed_gpus"] else F.PER_GPU
        if table.scalars["mixed_gpus"]:
            chart = plot.Chart("Output tokens per unit of money against tokens/s per user: the Pareto front",
                               x_label="Output tokens/s per user", y_label="Output tokens per unit of money")
        chart.xy("The front (each point a batch row)", [r["tokens_per_s_per_user"] for r in front],
                 [r[axis] for r in front], plot.BLUE, markers=True)
        best = table.cheapest
        chart.xy("The cheapest fleet", [best["tokens_per_s_per_user"]], [best[axis]], plot.ORANGE, markers=True)
        found["pareto"] = chart.svg()
    if table.day:
        chart = plot.Chart("GPUs over the day: sized for the peak against following demand", x_label="Hour",
                           y_label="GPUs")
        chart.columns([str(h["hour"]) for h in table.day],
                      [("GPUs following demand", [h["gpus_following"] for h in table.day], plot.BLUE)])
        chart.line("GPUs sized for the peak", [h["gpus_peak_sized"] for h in table.day], plot.ORANGE)
        chart.line("Busy GPUs (the work)", [h["busy_gpus"] for h in table.day], plot.GREY, dashed=True)
        found["day"] = chart.svg()
    return found
