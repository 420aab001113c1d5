"""The Cost section of the HTML summary (docs/method.md §13): the plan's total and its path, the three paths side
by side, prices and owning in sentences, the bridge from the average-month budget and unit economics."""

from __future__ import annotations

from markupsafe import Markup

from planner.report import plot
from planner.report.format import money, percent

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("plan_total_cost", "The plan's total", "money0"),
    ("tco_npv", "Its NPV", "money0"),
    ("tco_on_demand_total_cost", "On demand", "money0"),
    ("tco_committed_total_cost", "Committed", "money0"),
    ("tco_owned_total_cost", "Owned", "money0"),
    ("own_break_even_utilisation", "Owning breaks even at", "percent"),
]
PATH_WORDS = {"on_demand": "renting on demand", "committed": "a committed baseline with on-demand burst",
              "owned": "owning the GPUs"}


def findings(results) -> list[str]:
    t, symbol = results.cost, results.scenario.currency_symbol
    s, h = t.scalars, t.headline
    total = h["plan_total_cost"]
    if t.pools is not None:  # the Fleet's cheapest is mixed: the plan per pool (§15.1)
        return pools_findings(t.pools.to_json(), symbol) + training_line(results)
    if isinstance(total, str):
        return [f"The plan's total is {total}: see the Cost sheet's premises."]
    found = [f"The plan's total, {PATH_WORDS[s['path']]} over {s['months']} calendar months with escalation and "
             f"contingency, is {money(total, symbol)} (NPV {money(h['tco_npv'], symbol)} at "
             f"{percent(results.scenario.budget.discount_rate)} a year)."]
    others = [(path, t.totals[f"{path}_total"]) for path in PATH_WORDS if path != s["path"]]
    said = [f"{PATH_WORDS[path]} {money(value, symbol) if not isinstance(value, str) else value}"
            for path, value in others]
    found.append("Beside it: " + "; ".join(said) + ".")
    u = s["own_break_even_utilisation"]
    plan_use = s["own_utilisation"]
    if not isinstance(u, str) and not isinstance(plan_use, str):
        verdict = "so owning costs more than renting on demand" if plan_use < u else \
            "so owning costs less than renting on demand before the cost of capital"
        found.append(f"An owned GPU costs {money(s['own_cost_per_gpu_hour'], symbol, 4)} per GPU-hour at full use: it "
                     f"breaks even with on-demand rent when busy {percent(u)} of the hours; the plan keeps its own "
                     f"fleet busy {percent(plan_use)}, {verdict}.")
    return found + training_line(results)


def training_line(results) -> list[str]:
    """Owned training on a GPU type no serving GPU is (§13.15, "each on its own line"), in a sentence."""
    s, symbol = results.cost.scalars, results.scenario.currency_symbol
    if not s.get("own_training_gpus"):
        return []
    capex = s["own_training_capex"]
    bought = money(capex, symbol) if not isinstance(capex, str) else capex
    return [f"The owned path trains on GPUs it buys: {s['own_training_gpus']:,} {results.scenario.gpu} ({bought}), a "
            "type the serving fleet does not use, so they are a line of their own, bought at the start and held "
            "to the plan's end like the serving GPUs; the rented paths rent training at its tier."]


def pools_findings(pools: dict, symbol: str) -> list[str]:
    """The plan with two GPU types (§15.1): each path's total with each pool's serving, the baselines and the
    owned purchase."""
    p, d, totals = pools["prefill"], pools["decode"], pools["totals"]

    def amount(value, digits=0):
        return money(value, symbol, digits) if not isinstance(value, str) else value

    def both(key):
        return f"{p['gpu']} {amount(p[key])} + {d['gpu']} {amount(d[key])} for serving"

    found = [f"The plan with two GPU types (§15.1): on demand {amount(totals['on_demand_total'])} "
             f"({both('on_demand_serving')}); committed {amount(totals['committed_total'])} (a baseline of "
             f"{p['serving_baseline_gpus_used']:g} {p['gpu']} at {amount(p['price_baseline'], 2)} and "
             f"{d['serving_baseline_gpus_used']:g} {d['gpu']} at {amount(d['price_baseline'], 2)}, one term; "
             f"{both('committed_serving')}); owned {amount(totals['owned_total'])} ({both('owned_serving')})."]
    if not isinstance(p["own_capex"], str) and not isinstance(d["own_capex"], str):
        found.append(f"The owned path buys {p['own_gpus']:g} {p['gpu']} and {d['own_gpus']:g} {d['gpu']} "
                     f"({amount(p['own_capex'] + d['own_capex'])}), each pool at its own cost per GPU-hour "
                     f"({amount(p['own_cost_per_gpu_hour'], 4)} and {amount(d['own_cost_per_gpu_hour'], 4)}).")
    found.append("The workbook prices each pool on its own GPU: the Cost sheet's prefill and decode cells (_p, _d), "
                 "the Budget's GPUs, GPU-hours and money per pool by month, their sum in each path's total; the "
                 "GPUs sheet's Mixed fleet block shows each pool's price, owned cost and break-even, and the JSON's "
                 "tables.cost.pools holds the plan month by month, per pool.")
    return found


def charts(results) -> dict[str, Markup]:
    """The three paths' totals by calendar month over the plan."""
    rows = [r for r in results.cost.rows if r["in_plan"]]
    chart = plot.Chart("The three paths by month", x_label="Month", y_label="Spend")
    chart.categories = [f"{r['month']}" for r in rows]
    for path, name, colour in (("on_demand", "On demand", plot.BLUE), ("committed", "Committed", plot.ORANGE),
                               ("owned", "Owned", plot.GREY)):
        chart.line(name, [r[f"{path}_total"] if isinstance(r[f"{path}_total"], float) else 0.0 for r in rows], colour)
    return {"paths": chart.svg()}
