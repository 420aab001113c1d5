"""The cost of ownership (docs/method.md §13): the plan's GPU-hours priced at their tiers, placed on the calendar
month by month along three paths (rent on demand, a committed baseline with on-demand burst, owned GPUs), with
escalation, contingency, NPV, fiscal years, the bridge from the average-month budget (§9) and unit economics.

The plan itself (what it reads, its prices and its month rows) is planner/engine/plan/, which the Budget, GPUs and
Sensitivity tables read too; here it is priced, totalled, bridged and reconciled. Nothing computes GPU-hours of its
own: training's allocated GPU-hours and days come from Hours (§2), the
served tokens per day and horizon from Crossover (§3), the throughput from Serving (§6) and, with a fleet (§11), its
monthly GPUs and GPU-hours. What the functions need arrives as plain values (`Plan`); money inputs are USD and are
converted to the reporting currency once, where each enters (× fx). Each function is the twin of one of the sheet's
formulas, named after what it returns.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from planner.engine import answers, calendar as cal
from planner.engine.shared import (DAYS_PER_MONTH, DAYS_PER_YEAR, GPUS_MAX, HOURS_PER_DAY,
                                   PAST_DEADLINE, TOO_LONG, TooManyGPUs)
from planner.engine.plan import pools
from planner.engine.plan.inputs import Plan, fleet_columns, plan_for
from planner.engine.values import to_the_cent
from planner.engine.plan import months
from planner.engine.plan.months import (PATHS, Ownership, Timeline, calendar_row_count, demand_columns, fiscal_years,
                                        held_for_training, npv, owned_columns, owned_training, path_columns, path_end,
                                        plan_end, timeline, training_column, training_line_columns)
from planner.engine.plan.prices import (NO_SERVER, NO_SERVING, TIERS, TRAINING_DAYS_MAX, Baseline,
                                        TierPrices, baseline, break_even_utilisation, tier_prices,
                                        tokens_per_s_per_mw)
from planner.method import Constant, Method
from planner.model.passes import cost_per_million_tokens

FIRST_START, LAST_START = cal.serial(dt.date(2000, 1, 1)), cal.serial(dt.date(2100, 12, 31))  # S's range
RELATIVE = 1e-9  # the reconciliations' tolerance, as the recalculation tests compare
NO_USERS = "n/a: no users"
NO_DEMAND = "n/a: a demand profile of zeros"
NO_REVENUE = "n/a: no revenue"
STANDBY_NOTES = {  # where standby (the idle hours of a peak-sized fleet) is paid, by budget.include_standby and path
    "on_demand": "In the total: the idle hours of a fleet sized for each month's peak, at the on-demand price",
    "other": "In the on-demand path's total only: the committed and owned paths pay for their own capacity",
    "none": "Not in the total: budget.include_standby is FALSE (Inputs)"}



def compute(scenario, tables) -> "CostTable":
    """The cost table of a scenario (the table registry's entry): its plan, on the day the outputs are generated
    (`tables.generated`) and on an edited workbook's rows where it is compared with one (`tables.month_rows`),
    priced month by month."""
    generated = getattr(tables, "generated", None)
    if generated is None:
        raise ValueError("the cost of ownership needs the day the outputs are generated (Tables.generated)")
    held = tables.month_rows
    plan = plan_for(scenario, tables, generated, fleet=fleet_columns(scenario, tables),
                    rows=held.calendar if held else None)
    table = cost_of(plan)
    pools.check_forms(scenario, tables)
    if plan.fleet_mixed:  # the plan with two GPU types (§15.1), priced per pool: the pools' sum is the plan's
        table = pools.merged(table, pools.priced(plan, scenario, tables["fleet"], cost_of), MONEY, unit_of_rows,
                             chosen_columns)
        pooled_bridge(table)
    return table


def pooled_bridge(table: "CostTable") -> None:
    """A mixed fleet's bridge (§15.1): serving at each pool's p_od and its standby, added; the reason first where
    the sheet's says one (the plan's money, the owned path unpriced, the average months); and the checks that read
    it."""
    p, totals = table.plan, table.totals
    reason = money_na(table) or (totals["owned_total"] if p.path == "owned" and isinstance(totals["owned_total"], str)
                                 else "")
    in_plan = [r for r in table.rows if r["in_plan"]]
    if p.average_month is None or reason:
        reason = reason or p.average_month_na
        table.bridge = [{"line": key, "label": label, "amount": reason} for key, label in BRIDGE_LINES
                        + [("total", "Total")]] if reason else []
        return
    at_od = sum(sum(r["serving_gpu_hours"] for r in t.rows) * t.scalars["price_on_demand"]
                for _, t in table.pools.pools.values())
    standby = sum(r["standby"] / r["escalation"] for r in in_plan) if p.include_standby else 0.0
    other = p.other_monthly_cost * p.fx * sum(r["plan_days"] / r["days"] for r in table.rows)
    table.bridge = bridge_lines(p, (table.scalars["training_tier_cost"], at_od, standby, other), totals)
    avg, line = p.average_month, {b["line"]: b["amount"] for b in table.bridge}
    table.checks["tco_calendar_months_without_growth"] = p.monthly_growth != 0 or close(
        line["calendar_months"], 0.0, scale_of=avg.serving_cost)
    held = sum(r["standby"] for r in in_plan) if p.include_standby else 0.0
    table.checks["tco_average_month_reconciles"] = not (
        p.monthly_growth == 0 and p.escalation == 0 and p.training_tier == "on_demand") or isinstance(
        totals["on_demand_subtotal"], str) or close(totals["on_demand_subtotal"] - totals["other"] - held,
                                                    avg.training_cost + avg.serving_cost)


BRIDGE_LINES = [("average_month_total", "Average-month budget (§9)"),
                ("standby", "Standby by calendar month, less §9's"), ("training_tier", "Training at its tier"),
                ("calendar_months", "Calendar months"), ("other", "Other monthly costs"), ("escalation", "Escalation"),
                ("path", "Path"), ("contingency", "Contingency")]


def bridge(p: Plan, t: Timeline, m: cal.Months, c: dict, sums: dict) -> list[dict]:
    """From §9's average-month total to this plan's: standby (the calendar's in place of §9's), the training tier,
    calendar months, other costs at e = 1, escalation, the path and contingency; each line a difference of computed
    totals, so it adds up."""
    avg = p.average_month
    if avg is None:  # no average-month total to start from: each line says why
        return [{"line": key, "label": label, "amount": p.average_month_na} for key, label in BRIDGE_LINES
                + [("total", "Total")]] if p.average_month_na else []
    p_od = tier_prices(p.prices, p.fx).on_demand
    at_od = float(np.sum(c["serving_gpu_hours"] * p_od))
    standby = float(np.sum(c["standby"] / m.escalation)) if p.include_standby else 0.0
    other = p.other_monthly_cost * p.fx * float(np.sum(c["plan_days"] / m.days))
    return bridge_lines(p, (t.training_tier_cost, at_od, standby, other), sums)


def bridge_lines(p: Plan, parts: tuple, sums: dict) -> list[dict]:
    """The bridge's lines from the calendar's parts at e = 1 (training at its tier, serving at p_od, standby, other
    costs) and the paths' sums, each to the cent, and their total."""
    avg, path = p.average_month, p.path
    training_tier, at_od, standby, other = parts
    amounts = [avg.total_cost, standby - avg.standby_cost, training_tier - avg.training_cost,
               at_od - avg.serving_cost, other,
               sums["on_demand_subtotal"] - (training_tier + at_od + standby + other),
               sums[f"{path}_subtotal"] - sums["on_demand_subtotal"], sums[f"{path}_contingency"]]
    lines = [(key, label, to_the_cent(amount)) for (key, label), amount in zip(BRIDGE_LINES, amounts)]
    return [{"line": key, "label": label, "amount": amount} for key, label, amount in lines] + [
        {"line": "total", "label": "Total", "amount": sum(amount for _, _, amount in lines)}]



# Unit economics -------------------------------------------------------------------------------------------------------
def unit_economics(p: Plan, c: dict, sums: dict) -> dict:
    """For the chosen path: requests R_k = T_k/o, input tokens R_k·s, the serving cost with its contingency share;
    cost per request and per active user per month; with both prices charged, revenue, margins and the break-even
    output price."""
    serving = sums[f"{p.path}_serving"] * (1 + p.contingency)
    requests, outputs = float(np.sum(c["requests"])), float(np.sum(c["served_tokens"]))
    inputs = float(np.sum(c["input_tokens"]))
    found = {"serving_cost": serving, "requests": requests, "input_tokens": inputs, "output_tokens": outputs,
             "cost_per_request": serving / requests if p.horizon_days > 0 and requests > 0 else NO_SERVING,
             "cost_per_user_per_month": None, "revenue": None, "margin": None, "margin_share": None,
             "plan_margin": None, "break_even_price_output": None}
    if p.active_users is not None:
        months = p.horizon_days / DAYS_PER_MONTH
        found["cost_per_user_per_month"] = (NO_SERVING if p.horizon_days == 0 else NO_USERS
                                            if p.active_users == 0 else serving / months / p.active_users)
    if p.price_input_per_million is None or p.price_output_per_million is None:
        return found
    revenue = float(np.sum(c["revenue"]))
    found |= {"revenue": revenue, "margin": revenue - serving,
              "margin_share": (revenue - serving) / revenue if revenue > 0 else NO_REVENUE,
              "plan_margin": revenue - sums[f"{p.path}_total"],
              "break_even_price_output": ((serving - inputs * p.price_input_per_million * p.fx / 1e6)
                                          / (outputs / 1e6) if outputs > 0 else NO_SERVING)}
    return found


def unit_of_rows(p: Plan, rows: list[dict], totals: dict) -> dict:
    """unit_economics on month rows already priced (a mixed fleet's, summed over its pools, §15.1): the plan's
    months' requests, tokens and revenue, each path's summed totals; the serving's reason where it has none."""
    inside = [r for r in rows if r["in_plan"]]
    c = {key: np.array([float(r[key]) for r in inside]) for key in ("requests", "input_tokens", "served_tokens")}
    if p.price_input_per_million is not None and p.price_output_per_million is not None:
        c["revenue"] = np.array([r["revenue"] if isinstance(r["revenue"], float) else 0.0 for r in inside])
    serving, total = totals[f"{p.path}_serving"], totals[f"{p.path}_total"]
    if isinstance(serving, str) or isinstance(total, str):
        reason = serving if isinstance(serving, str) else total
        found = unit_economics(p, c, {f"{p.path}_serving": 0.0, f"{p.path}_total": 0.0})
        return {key: reason if isinstance(value, float) else value for key, value in found.items()}
    return unit_economics(p, c, totals)


def unit_columns(p: Plan, c: dict) -> None:
    """Requests, input tokens and revenue by month: R_k = T_k/o, I_k = R_k·s, (I_k·p_in + O_k·p_out)/1e6·fx."""
    c["requests"] = c["served_tokens"] / p.output_tokens
    c["input_tokens"] = c["requests"] * p.prompt_tokens
    if p.price_input_per_million is not None and p.price_output_per_million is not None:
        c["revenue"] = ((c["input_tokens"] * p.price_input_per_million + c["served_tokens"]
                         * p.price_output_per_million) / 1e6 * p.fx)





# Checks ---------------------------------------------------------------------------------------------------------------
def close(a: float, b: float, scale_of: float | None = None) -> bool:
    """Equal to a relative 1e-9 (of `scale_of` when given, else of the larger)."""
    reference = max(abs(a), abs(b)) if scale_of is None else abs(scale_of)
    return a == b or abs(a - b) <= RELATIVE * reference


def checks(p: Plan, t: Timeline, own: Ownership, sums: dict, extra: dict) -> dict[str, bool]:
    """The failures: inputs the calendar cannot use, the month rows running out, and the reconciliations."""
    at_od_serving = extra["bridge"]["calendar_months"]
    flat = p.monthly_growth == 0
    average = p.average_month
    committed = t.training_term_months > 0
    return {
        "tco_start_date_in_range": FIRST_START <= p.start < LAST_START + 1,
        "tco_first_fiscal_month_valid": p.first_fiscal_month in range(1, 13),
        "tco_fx_rate_positive": p.fx > 0,
        "tco_fx_rate_one_for_usd": p.currency != "USD" or p.fx == 1,
        "tco_profile_has_demand": sum(p.profile) > 0,
        "tco_horizon_not_negative": p.horizon_days >= 0,
        "tco_owned_training_gpus": isinstance(own.gpus, str) or own.gpus >= held_for_training(p),
        "tco_months_within_rows": extra["months"] <= extra["rows"],
        # days to a billionth of a day (a serial date near 50,000 holds a time to about 1e-11 days, so a run of a
        # few seconds ends where the next whole second of the calendar allows), money to a billionth of a day's
        "tco_training_days_add_up": close(sums["training_days"], t.training_days,
                                          scale_of=max(t.training_days, 1.0)),
        "tco_serving_days_add_up": close(sums["serving_days"], p.horizon_days, scale_of=max(p.horizon_days, 1.0)),
        "tco_training_cost_adds_up": (not committed and extra["months"] > extra["rows"]) or close(
            sums["training"] if committed else sums["training_at_e1"], t.training_tier_cost,
            scale_of=t.training_tier_cost / min(t.training_days, 1.0) if t.training_days else None),
        "tco_calendar_months_without_growth": not flat or average is None or close(
            at_od_serving, 0.0, scale_of=average.serving_cost),
        "tco_average_month_reconciles": not (flat and p.escalation == 0 and p.training_tier == "on_demand")
        or average is None or close(sums["on_demand_subtotal"] - sums["other"]
                                    - (sums["standby"] if p.include_standby else 0.0),
                                    average.training_cost + average.serving_cost),
        "tco_fiscal_years_add_up": close(extra["fiscal_year_total"], sums[f"{p.path}_total"]),
        # as the sheet: only while the owned path has a total (a plan past the rows misses E's book value)
        "tco_owned_cash_equals_accrual": owned_na(p, extra) or close(sums["owned_cash"], sums["owned_total"]),
    }


def owned_na(p: Plan, extra: dict) -> bool:
    """The owned path's total reads n/a: a plan past the rows or the deadline, serving that does not fit, or no
    server price or kW (the serving GPU's, or the training GPU's on a line of its own)."""
    return extra["months"] > extra["rows"] or p.past_deadline or not p.serving_fits or not extra["own_priced"]


def warnings(p: Plan, t: Timeline, b: Baseline, own: Ownership, c: dict,
             line: Ownership | None = None) -> dict[str, bool]:
    """Warnings, not failures (TRUE: the warning holds): a pegged-looking rate, a plan that outlives the owned GPUs,
    a baseline above every month's GPUs, a training commitment mostly unused, a serving commitment longer than
    the serving it covers, and serving that does not fit."""
    unused = t.training_tier_cost - p.allocated_gpu_hours * t.training_price
    peak = float(np.max(c["committed_gpus"], initial=0.0))
    return {
        "tco_warn_rate_one_outside_usd": p.currency != "USD" and p.fx == 1,
        "tco_warn_plan_outlives_owned_gpus": any(o is not None and o.rates is not None and t.end > o.life_end
                                                 for o in (own, line)),
        "tco_warn_baseline_above_demand": b.used > 0 and b.used > peak,
        "tco_warn_training_commitment_unused": t.training_term_months > 0 and unused > 0.5 * t.training_tier_cost,
        "tco_warn_commitment_longer_than_serving": b.used > 0 and cal.months_to_cover(t.launch, t.end)
        < b.term_months,
        "tco_warn_serving_does_not_fit": not p.serving_fits,
    }


# The table ---------------------------------------------------------------------------------------------------------
TRAINING_LINE = tuple(f"own_training_{key}" for key in months.TRAINING_LINE)  # the line's month columns
MONEY = ("training", "other", "on_demand_serving", "standby", "baseline", "burst_committed", "burst_owned",
         "depreciation", "opex", "capex", "book_value", "revenue") + TRAINING_LINE + tuple(
    f"{path}_{key}" for path in PATHS for key in ("serving", "subtotal", "contingency", "total", "cash"))
SERVED = ("serving_gpu_hours", "scale", "committed_gpus", "burst_committed_gpu_hours", "burst_owned_gpu_hours")


@dataclass
class CostTable:
    """§13 for one plan: the named cells, every month row of the sheet (money blank outside the plan), the fiscal
    years, the bridge, the unit economics, the checks and the warnings."""

    scalars: dict
    rows: list[dict]
    fiscal_years: list[dict]
    bridge: list[dict]
    unit: dict
    checks: dict[str, bool]
    warnings: dict[str, bool]
    totals: dict = field(default_factory=dict)  # per path: subtotal, contingency, total, npv, cash (or "n/a …")
    plan: Plan | None = None  # what it was computed from: the Sensitivity's what-ifs start there
    pools: "pools.PoolsPlan | None" = None  # the plan with two GPU types, when the Fleet's cheapest is mixed (§15.1)

    @cached_property
    def gpus_by_month(self) -> list[dict]:
        """The Cover's GPUs by month (answers.gpus_by_month), once for the headline, the sheet, the HTML and JSON."""
        return answers.gpus_by_month(self)

    @property
    def headline(self) -> dict:
        s, path, totals, u = self.scalars, self.scalars["path"], self.totals, self.unit
        standby = ("none" if not self.plan.include_standby else "on_demand" if path == "on_demand" else "other")
        found = {"plan_total_cost": totals[f"{path}_total"], "budget_total_cost": totals[f"{path}_total"],
                 "plan_standby_note": STANDBY_NOTES[standby],
                 "tco_total_cost": totals[f"{path}_total"], "tco_npv": totals[f"{path}_npv"],
                 "tco_subtotal": totals[f"{path}_subtotal"], "tco_contingency_cost": totals[f"{path}_contingency"],
                 "tco_training_cost": totals[f"{path}_training"], "tco_serving_cost": totals[f"{path}_serving"],
                 "tco_other_cost": totals["other"], "tco_months": s["months"], "tco_start_date": s["start_date"],
                 "tco_launch_date": s["launch_date"], "tco_end_date": s["serving_end"]}
        for p in PATHS:
            found |= {f"tco_{p}_total_cost": totals[f"{p}_total"], f"tco_{p}_npv": totals[f"{p}_npv"]}
        found |= {"pricing_committed_1y_price": s["price_committed_1y"],
                  "pricing_committed_3y_price": s["price_committed_3y"], "pricing_spot_price": s["price_spot"]}
        found |= {key: s[key] for key in ("serving_baseline_gpus_suggested", "serving_baseline_gpus_used",
                                          "own_gpus", "own_capex", "own_cost_per_gpu_hour",
                                          "own_break_even_utilisation", "own_utilisation",
                                          "own_cost_per_million_tokens", "tokens_per_s_per_mw")}
        found |= answers.headline(self)
        return found | {"unit_cost_per_request": u["cost_per_request"],
                        "unit_cost_per_user_per_month": u["cost_per_user_per_month"], "unit_revenue": u["revenue"],
                        "unit_margin": u["margin"], "unit_margin_share": u["margin_share"],
                        "unit_break_even_price_output": u["break_even_price_output"]}

    def to_json(self) -> dict:
        keep = ("month", "month_start", "days", "fiscal_year", "training_days", "serving_days", "tokens_per_day",
                "serving_gpu_hours", "committed_gpus", "escalation", "discount") + MONEY
        named = {"escalation": "escalation_factor", "discount": "discount_factor"}
        months = [{named.get(key, key): (cal.date_of(r[key]).isoformat() if key == "month_start" else r[key])
                   for key in keep if key in r} for r in self.rows if r["in_plan"]]
        return {"calendar": {"months": months, "fiscal_years": self.fiscal_years},
                "gpus_by_month": [row for row in self.gpus_by_month if row["month"] != ""],
                "cost": {**self.scalars, **self.totals, "bridge": self.bridge, "unit": self.unit,
                         "warnings": self.warnings, **({"pools": self.pools.to_json()} if self.pools else {})}}

    def json_tables(self) -> dict:
        """The JSON's tables.calendar (the months in the plan, the fiscal years) and tables.cost."""
        return self.to_json()


def path_totals(p: Plan, c: dict, sums: dict, m: cal.Months, in_plan) -> dict:
    """Each path's subtotal, contingency, total, cash and NPV over the plan, and its training and serving parts."""
    found = {"other": sums["other"]}
    for path in PATHS:
        training = owned_training(sums)[0] if path == "owned" and p.owning.training else sums["training"]
        found |= {f"{path}_{key}": sums[f"{path}_{key}"] for key in ("serving", "subtotal", "contingency", "total",
                                                                      "cash")}
        found |= {f"{path}_training": training,
                  f"{path}_npv": npv(np.where(in_plan, c[f"{path}_cash"], 0.0), m.discount)}
    # on demand held at each month's peak: the on-demand path with the standby and its contingency, whether or not
    # budget.include_standby put it in (then the two are one): the Cover's like-for-like row (docs/method.md §13.16)
    loading = 0.0 if p.include_standby else 1 + p.contingency
    found["on_demand_held_total"] = found["on_demand_total"] + loading * sums["standby"]
    found["on_demand_held_npv"] = found["on_demand_npv"] + loading * npv(np.where(in_plan, c["standby"], 0.0),
                                                                         m.discount)
    return found


def named_cells(p: Plan, sums: dict, *, t: Timeline, b: Baseline, own: Ownership, tiers: TierPrices) -> dict:
    """The Cost sheet's named cells (§13): dates, terms, prices, the baseline and the owned fleet."""
    cells = {"path": p.path, "currency": p.currency, "fx_rate": p.fx, "start_date": p.start,
             "training_days": t.training_days, "training_tier_cost": t.training_tier_cost, "launch_date": t.launch,
             "serving_end": t.end, "launch_month": t.launch_month, "training_term_months": t.training_term_months,
             "training_commitment_months": t.training_commitment_months,
             "training_commitment_end": t.training_commitment_end,
             "training_used_cost": p.allocated_gpu_hours * t.training_price * (t.training_term_months > 0),
             "serving_term_months": b.term_months,
             "serving_commitment_months": cal.months_to_cover(t.launch, t.end), "serving_commitment_end": b.end,
             "price_on_demand": tiers.on_demand, "price_committed_1y": tiers.committed_1y,
             "price_committed_3y": tiers.committed_3y, "price_spot": tiers.spot, "price_training": t.training_price,
             "price_baseline": b.price, "price_baseline_effective": b.effective_price, "launch_scale": b.launch_scale,
             "baseline_hours": b.hours, "serving_baseline_gpus_suggested": b.suggested,
             "serving_baseline_gpus_used": b.used, "own_training_held": held_for_training(p),
             "own_gpus": own.gpus, "own_start": own.start,
             "own_life_end": own.life_end, "own_capex": own.capex, "own_book_value": own.book_value}
    cells["training_unused_cost"] = (t.training_tier_cost - cells["training_used_cost"]
                                     if t.training_term_months else 0.0)
    return cells | owned_cells(p, own, tiers, sums)


def owned_cells(p: Plan, own: Ownership, tiers: TierPrices, sums: dict) -> dict:
    """The owned GPU's daily rates, c_own, u* against each rented price, the plan's own utilisation, tokens per MW
    and the cost of a million output tokens rented at each tier and owned."""
    tok_s = p.tokens_per_s_per_gpu if p.serving_fits and p.tokens_per_s_per_gpu > 0 else None
    rented = {f"cost_per_million_{tier}": cost_per_million_tokens(tiers.of(tier), tok_s) if tok_s else p.serving_na
              for tier in TIERS}
    r = own.rates
    if r is None:
        keys = ("own_depreciation_per_day", "own_facility_per_day", "own_staff_per_day", "own_energy_per_day",
                "own_cost_per_gpu_hour", "own_break_even_utilisation", "own_break_even_utilisation_1y",
                "own_break_even_utilisation_3y", "own_utilisation", "own_cost_per_million_tokens",
                "own_cost_per_million_tokens_at_plan", "tokens_per_s_per_mw")
        return rented | dict.fromkeys(keys, NO_SERVER)
    c_own = r.cost_per_gpu_hour
    used = sums["serving_gpu_hours"] - sums["burst_owned_gpu_hours"]
    utilisation = (used / (own.gpus * HOURS_PER_DAY * p.horizon_days) if p.horizon_days > 0 and own.gpus > 0
                   else NO_SERVING)
    full_use = cost_per_million_tokens(c_own, tok_s) if tok_s else p.serving_na
    return rented | {
        "own_depreciation_per_day": r.depreciation, "own_facility_per_day": r.facility,
        "own_staff_per_day": r.staff, "own_energy_per_day": r.energy, "own_cost_per_gpu_hour": c_own,
        "own_break_even_utilisation": break_even_utilisation(c_own, tiers.on_demand),
        "own_break_even_utilisation_1y": break_even_utilisation(c_own, tiers.committed_1y),
        "own_break_even_utilisation_3y": break_even_utilisation(c_own, tiers.committed_3y),
        "own_utilisation": utilisation, "own_cost_per_million_tokens": full_use,
        "own_cost_per_million_tokens_at_plan": (full_use / utilisation if tok_s and not isinstance(utilisation, str)
                                                and utilisation > 0 else NO_SERVING),
        "tokens_per_s_per_mw": (tokens_per_s_per_mw(tok_s, p.owning.server_kw, p.owning.pue) if tok_s
                                else p.serving_na)}


def cost_of(p: Plan, *, rows: bool = True) -> CostTable:
    """§13 for one plan: the timeline, the month columns, the three paths, the totals, fiscal years, the bridge,
    unit economics, checks and warnings; without the month rows when only the totals are wanted (`rows`)."""
    tiers = tier_prices(p.prices, p.fx)
    t = timeline(p, tiers)
    b = baseline(p, tiers, t.launch, t.end, t.launch_month)
    end = plan_end(t, b)
    m = cal.months(p.start, calendar_row_count(p, t, end), first_fiscal_month=p.first_fiscal_month,
                   escalation=p.escalation, discount_rate=p.discount_rate)
    c = demand_columns(p, m, t)
    if (peak := max(float(np.max(c["committed_gpus"], initial=0.0)), b.suggested)) > GPUS_MAX:
        raise TooManyGPUs(peak, p.tokens_per_day, p.tokens_per_s_per_gpu, p.monthly_growth)
    in_plan = m.start < end
    c["training"] = training_column(p, m, t, c["training_days"])
    own, owned = owned_columns(p, m, t, c["committed_gpus"])
    line, line_columns = training_line_columns(p, m, t)
    c |= owned | line_columns
    path_columns(p, m, c, t=t, b=b, own=own)
    unit_columns(p, c)
    sums = {key: float(np.sum(np.where(in_plan, value, 0.0))) for key, value in c.items()}
    sums["training_at_e1"] = float(np.sum(np.where(in_plan, c["training"] / m.escalation, 0.0)))
    totals = path_totals(p, c, sums, m, in_plan)
    years = fiscal_years(m, in_plan, c)
    loading = 0.0 if p.include_standby else 1 + p.contingency
    for year in years:  # the held path by fiscal year, as its total (path_totals)
        inside = in_plan & (m.fiscal_year == int(year["fiscal_year"].removeprefix("FY")))
        year["on_demand_held_total"] = year["on_demand_total"] + loading * float(c["standby"][inside].sum())
    lines = bridge(p, t, m, c, sums)
    extra = {"months": cal.plan_months(p.start, end), "rows": m.rows,
             "own_priced": own.rates is not None and (line is None or line.rates is not None),
             "fiscal_year_total": sum(y[f"{p.path}_total"] for y in years),
             "bridge": {line["line"]: line["amount"] for line in lines} or {"calendar_months": 0.0}}
    scalars = named_cells(p, sums, t=t, b=b, own=own, tiers=tiers) | {"plan_end": end, "months": extra["months"],
                                                                       "path_end": path_end(t, b, p.path)}
    if p.fleet_section:
        scalars |= training_line_cells(p, line)
    table = CostTable(scalars=scalars, rows=month_rows(m, c, in_plan) if rows else [], fiscal_years=years,
                      bridge=lines,
                      unit=unit_economics(p, c, sums), checks=checks(p, t, own, sums, extra),
                      warnings=warnings(p, t, b, own, c, line=line), totals=totals, plan=p)
    table = _marked(table, p, extra["own_priced"])
    if rows:
        chosen_columns(table, p)
    return table


CALENDAR = ("days", "plan_days", "training_days", "serving_days", "escalation", "discount", "anniversary",
            "served_tokens", "tokens_per_day", "serving_gpu_hours", "scale", "committed_gpus", "requests",
            "input_tokens", "burst_committed_gpu_hours", "burst_owned_gpu_hours")
FLEET_CALENDAR = pools.FLEET_CALENDAR


def month_rows(m: cal.Months, c: dict, in_plan) -> list[dict]:
    """Every row of the sheet: the calendar and demand columns on every row, labels and money only in the plan."""
    columns = {"days": m.days, "escalation": m.escalation, "discount": m.discount, **c}
    calendar = {key: np.asarray(columns[key], dtype=float).tolist() for key in CALENDAR + FLEET_CALENDAR
                if key in columns}
    money = {key: np.asarray(columns[key], dtype=float).tolist() for key in MONEY if key in columns}
    starts, nexts, years = m.start.tolist(), m.next.tolist(), m.fiscal_year.tolist()
    rows = []
    for i, inside in enumerate(in_plan.tolist()):
        row = {"month": i + 1, "month_start": starts[i], "next_month_start": nexts[i], "in_plan": inside,
               "fiscal_year_number": years[i], "fiscal_year": cal.fiscal_label(years[i]) if inside else ""}
        row |= {key: values[i] for key, values in calendar.items()}
        row |= {key: values[i] if inside else "" for key, values in money.items()}
        rows.append(row)
    return rows


OWNED = ("depreciation", "opex", "capex", "book_value", "burst_owned") + TRAINING_LINE  # the owned path's columns


def _unpriced_owning(table: CostTable, p: Plan) -> None:
    """Without the GPU's server price or kW the owned path reads "n/a", not on-demand's money under its name."""
    def owned(key):
        return key.startswith("owned_") or key in OWNED

    table.totals = {key: NO_SERVER if owned(key) else value for key, value in table.totals.items()}
    table.fiscal_years = [{key: NO_SERVER if owned(key) else value for key, value in fy.items()}
                          for fy in table.fiscal_years]
    for row in table.rows:
        if row["in_plan"]:
            row |= {key: NO_SERVER for key in row if owned(key)}
    if p.path == "owned":
        table.unit = {key: NO_SERVER if isinstance(value, float) else value for key, value in table.unit.items()}
        table.bridge = [{**line, "amount": NO_SERVER} for line in table.bridge]


def rows_na(table: CostTable) -> str:
    """Why every money figure of the plan is n/a, as the Cost sheet's plan_rows_na says it ("" while it holds): a
    plan longer than the sheet's month rows, or a training run past the layout search's deadline."""
    if not table.checks["tco_months_within_rows"]:
        return TOO_LONG
    return PAST_DEADLINE if table.plan.past_deadline else ""


def money_na(table: CostTable) -> str:
    """Why the plan's money is n/a, as the Cost sheet's plan_money_na says it ("" while it holds)."""
    return rows_na(table) or ("" if table.plan.serving_fits or table.pools else table.plan.serving_na)


def _marked(table: CostTable, p: Plan, own_priced: bool) -> CostTable:
    """Money whose premises fail reads "n/a" with the reason: an owned path without a server price; serving that
    does not fit (every path's serving and the totals; training and other costs stay); a plan longer than the
    sheet's month rows or a run past the deadline (every total)."""
    if not own_priced:
        _unpriced_owning(table, p)
    na = p.serving_na
    reason = rows_na(table) or (na if not p.serving_fits else None)
    if reason is None:
        return table
    kept = ("other",) + tuple(f"{path}_training" for path in PATHS) if reason == na else ()
    table.totals = {key: value if key in kept else reason for key, value in table.totals.items()}
    table.unit = {key: reason if isinstance(value, float) else value for key, value in table.unit.items()}
    table.bridge = [{**line, "amount": reason} for line in table.bridge]
    table.fiscal_years = [{key: value if key in ("fiscal_year", "months") else reason for key, value in fy.items()}
                          for fy in table.fiscal_years]
    stay = ("training", "other") if reason == na else ()
    for row in table.rows:
        if row["in_plan"]:
            row |= {key: reason for key in MONEY if key in row and key not in stay}
            if not p.serving_fits:
                row |= dict.fromkeys(SERVED, na)
    if p.serving_fits:  # the baseline and the owned fleet read the plan's end: a plan too long leaves them be
        return table
    s = table.scalars  # read the serving, not the plan's length: its reason, whatever else fails
    s |= {"serving_baseline_gpus_suggested": na, "launch_scale": na, "own_utilisation": na,
          "own_cost_per_million_tokens_at_plan": na}
    if p.baseline_gpus is None:
        s["serving_baseline_gpus_used"] = na
    if p.owning.gpus is None:
        s |= {"own_gpus": na, "own_capex": na, "own_book_value": na}
    return table


def owned_training_of(row: dict):
    """A month's training on the owned path that owns it: its line's accrual, or why it has none."""
    reason = next((row[key] for key in TRAINING_LINE if isinstance(row.get(key), str)), None)
    return reason if reason is not None else owned_training(row)[0]


def training_line_cells(p: Plan, line: Ownership | None) -> dict:
    """The Cost sheet's cells of the owned training GPUs' line (with a fleet): whether training owns GPUs of a type
    no serving GPU is, how many, their daily rates, useful life, capex and book value (0 without the line)."""
    if line is None:
        return {"own_training_separate": False, "own_training_gpus": 0, "own_training_priced": True,
                "own_training_depreciation_per_day": 0.0, "own_training_running_per_day": 0.0,
                "own_training_life_end": p.start + DAYS_PER_YEAR * p.owning.useful_life_years,
                "own_training_capex": 0.0, "own_training_book_value": 0.0}
    rates = line.rates
    return {"own_training_separate": True, "own_training_gpus": line.gpus, "own_training_priced": rates is not None,
            "own_training_depreciation_per_day": rates.depreciation if rates else NO_SERVER,
            "own_training_running_per_day": rates.running if rates else NO_SERVER,
            "own_training_life_end": line.life_end, "own_training_capex": line.capex,
            "own_training_book_value": line.book_value}


def chosen_columns(table: CostTable, p: Plan) -> None:
    """The chosen path's training, serving, contingency and total on each plan row, its cumulative, and the month
    the Budget's chart places each row at: its own in the plan, the plan's last month after it (so a date axis
    spans the plan's months, however many rows follow)."""
    path, cumulative = p.path, None
    last = next((r["month_start"] for r in reversed(table.rows) if r["in_plan"]), table.rows[0]["month_start"])
    for row in table.rows:
        row["chart_month"] = row["month_start"] if row["in_plan"] else last
        if not row["in_plan"]:
            row |= dict.fromkeys(("chosen_training", "chosen_serving", "chosen_contingency", "total", "cumulative"),
                                 "")
            continue
        own_training = path == "owned" and p.owning.training
        total = row[f"{path}_total"]
        row |= {"chosen_training": owned_training_of(row) if own_training else row["training"],
                "chosen_serving": row[f"{path}_serving"], "chosen_contingency": row[f"{path}_contingency"],
                "total": total}
        if cumulative is None:
            cumulative = total
        elif isinstance(total, str) or isinstance(cumulative, str):
            cumulative = total if isinstance(total, str) else cumulative
        else:
            cumulative += total
        row["cumulative"] = cumulative


CONSTANTS = [
    Constant("days_per_year", DAYS_PER_YEAR, label="Days per year (Julian)", unit="days",
             source="365.25: depreciation and staff by day, and whole years of a useful life"),
    Constant("training_days_max", TRAINING_DAYS_MAX, label="The longest run the calendar places", unit="days",
             source="A century: a longer run is past the Budget's month rows (its money n/a), and its dates stay "
             "within what a spreadsheet's date functions take"),
    Constant("day_rounding_decimals", cal.ROUNDING_DECIMALS, label="Decimals a month's days are rounded to",
             unit="decimals", source="A billionth of a day: a serial date holds its time of day to about 1e-11 days, "
             "which spreadsheet applications compute alike only once rounded"),
]

METHOD = Method(
    title="Cost of ownership on the calendar: three paths, the plan's total",
    formulas=[
        "The calendar: the plan starts on the start date S (blank: the first of the month after the workbook was "
        "generated); month k runs from M_k = EOMONTH(S, k − 2) + 1 to the next month's start, 28 to 31 days. "
        "Training takes D_tr = §2's days (× (1 + ω) on spot) from S; launch L = S + D_tr; serving ends E = L + "
        "horizon. A month's training, serving and plan days are the overlaps of those spans with it.",
        "Served tokens step up by the growth g on each monthly anniversary of the launch (EDATE), the days before "
        "it at the old level; U_k = T_k/(3600·TokS) GPU-hours; ĝ_k = U_k/(v_k·Σf) GPUs at a profile fraction of 1; "
        "G_k = CEIL9(ĝ_k·MAX(f)), the month's peak hour.",
        "Prices per GPU-hour, each × fx where it enters: on demand p_od (the scenario's price or the Catalog's), "
        "committed 1- and 3-year and spot from the Catalog's quotes, else the scenario's ratios × p_od. Training "
        "at its tier: on demand and spot by the day (× e_k), committed as whole terms of N_run GPUs.",
        "On demand: U_k·p_od·e_k, plus the standby (24·v_k·G_k − U_k)·p_od·e_k when it is included. Committed: a "
        "baseline B_c (blank: the suggested B*, the newsvendor rule at the launch month's demand) paid for every "
        "hour of whole terms from L, plus the burst above it on demand. Owned: N_own GPUs (blank: the largest "
        "G_k) bought at L (or S when training shares them), depreciated straight-line by day to the residual over "
        "the useful life, with facility, staff and energy by day; the burst above N_own on demand.",
        "Owned training: on a serving GPU's type it shares that fleet (≥ N_run GPUs, bought at S); else N_run of gpu "
        "are a line of their own, S to E, in place of the rental. A mixed fleet: each pool on its own Catalog row.",
        "Each path's subtotal = training + other costs + serving; contingency = κ × subtotal; total = subtotal + "
        "contingency; escalation e_k = (1 + esc)^INT((k − 1)/12) on on-demand and spot prices, owned running "
        "costs and other costs, not on commitments or purchases. Cash = total on the rented paths; on the owned "
        "path, capex when bought and the book value back when serving ends. NPV = SUMPRODUCT(cash, (1 + r)^(−k/12)).",
        "The plan's total is the chosen path's total: the Budget's total, the Sensitivity's and the Cover's. The "
        "bridge from the average-month budget: its standby, the training tier, calendar months, other costs, "
        "escalation, the path and contingency, each a difference of computed totals.",
    ],
    sources=[
        "The Hours (§2), Crossover (§3), Serving (§6) and Budget (§9) tables' GPU-hours, placed on calendar months.",
        "Prices, server prices and kW per GPU are illustrative Catalog values (docs/method.md §13 names sources).",
        "EOMONTH and EDATE as Excel, LibreOffice and Gnumeric compute them (EDATE clamps to a month's last day).",
    ],
    caveats=[
        "Not modelled: taxes and the tax effect of depreciation; leases and financing other than through the "
        "discount rate; prepayments; replacing owned GPUs after their useful life; spot capacity that is not "
        "there when wanted; price changes inside a commitment's term.",
        "Commitments renew at the same rate and do not escalate; with escalation the paths compare an escalating "
        "on-demand price against a flat committed one.",
    ],
)
