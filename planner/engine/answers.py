"""The Cover's answers to the budget owner (docs/method.md §13.16): the paths like for like and the cheapest, the
GPUs held month by month and their peak, the plan's cost per million output tokens, and the commitments. Each is
read from the plan as the cost table priced it (planner/engine/cost.py); the workbook's Cover writes the twin of
each as a formula."""

from __future__ import annotations

from planner.engine import calendar as cal
from planner.engine.shared import HOURS_PER_DAY, PER_MILLION
from planner.engine.values import to_the_cent
from planner.specs import excel_fixed

# The paths side by side: the three of budget.path, and on demand held at each month's peak (with standby)
ANSWER_PATHS = ("on_demand", "on_demand_held", "committed", "owned")
PATH_WORDS = {"on_demand": "On demand, released hour by hour", "on_demand_held": "On demand, held at each month's peak",
              "committed": "Committed baseline + burst", "owned": "Owned GPUs"}
WITH_STANDBY = "On demand, with standby (included)"  # the on-demand path when it includes standby
NO_TOTAL = "n/a: no path has a total"
OF_THOSE = " (of the paths with a total)"  # the cheapest, when a path reads n/a
NO_TOKENS = "n/a: no served tokens"
NOT_COMMITTED = "none: training is not on a committed tier"
NO_BASELINE = "none: no committed serving baseline"
OWNED_TRAINING = "on owned GPUs: their depreciation and running costs to the plan's end"  # the owned path's
NO_LINE = "none: no GPUs bought for training alone (training rents, or trains on the serving GPUs' type)"


def path_words(path: str, include_standby: bool) -> str:
    """A path in words, as the Cover's headings say it."""
    return WITH_STANDBY if path == "on_demand" and include_standby else PATH_WORDS[path]


def cheapest(totals: dict, include_standby: bool) -> tuple[str, float | str]:
    """The cheapest path with a total (the first of those equal to the cent, in ANSWER_PATHS order: totals equal by
    the method differ in their last digits from one application to another) and its total; when a path reads n/a,
    the words say the choice was among the others; without any total, NO_TOTAL twice."""
    found = {path: totals[f"{path}_total"] for path in ANSWER_PATHS}
    numbers = {path: value for path, value in found.items() if not isinstance(value, str)}
    if not numbers:
        return NO_TOTAL, NO_TOTAL
    least = min(numbers.values())
    path = next(path for path in ANSWER_PATHS if path in numbers and to_the_cent(numbers[path]) == to_the_cent(least))
    return path_words(path, include_standby) + (OF_THOSE if len(numbers) < len(found) else ""), least


def saving(plan_total, least) -> float | str:
    """The chosen path's total less the cheapest's, to the cent (two totals equal by the method differ in their
    last digits from one application to another): what taking the cheapest would save (the reason, where either
    has no number)."""
    for value in (plan_total, least):
        if isinstance(value, str):
            return value
    return to_the_cent(plan_total - least)


def _overlaps(row: dict, start: float, end: float) -> bool:
    """Whether [start, end) has days in the row's month (ov_k > 0, §13.5)."""
    return cal.overlap(row["month_start"], row["next_month_start"], start, end) > 0


def gpus_by_month(table) -> list[dict]:
    """Each calendar row: its month, the training GPUs (N_run from the start to the training commitment's end, the
    launch without one), the serving GPUs at the month's peak G_k, both together, the committed baseline B_c in the
    months its terms cover, and the owned GPUs N_own from their purchase to the end of serving; "" beyond the
    plan."""
    s, p = table.scalars, table.plan
    found = []
    for row in table.rows:
        if not row["in_plan"]:
            found.append(dict.fromkeys(("month", "training", "serving", "held", "committed", "owned"), ""))
            continue
        training = p.run_gpus if _overlaps(row, s["start_date"], s["training_commitment_end"]) else 0
        serving = row["committed_gpus"]
        held = serving if isinstance(serving, str) else training + serving
        committed = (s["serving_baseline_gpus_used"]
                     if _overlaps(row, s["launch_date"], s["serving_commitment_end"]) else 0)
        owned = s["own_gpus"] if _overlaps(row, s["own_start"], s["serving_end"]) else 0
        if s.get("own_training_gpus") and not isinstance(s["own_gpus"], str) and _overlaps(row, s["start_date"],
                                                                                           s["serving_end"]):
            owned += s["own_training_gpus"]  # the training GPUs' own line, held from S (§13.15)
        found.append({"month": row["month_start"], "training": training, "serving": serving, "held": held,
                      "committed": committed, "owned": owned})
    return found


def peak_gpus(table, months: list[dict]) -> float | str:
    """The most GPUs held in a plan month: training and serving at the month's peak together (why not, where
    serving does not fit)."""
    if not table.plan.serving_fits and table.pools is None:  # a mixed fleet's pools fit (§15.1)
        return table.plan.serving_na
    return max((row["held"] for row in months if not isinstance(row["held"], str)), default=0)


def busiest_hour(table) -> dict:
    """The sized peak read against the profile's busiest hour, in words (§13.16, demand risk): the most serving GPUs
    held in a plan month, MAX G_k, against the GPUs the busiest hour of the busiest month keeps busy,
    ROUND9(MAX ĝ_k·MAX f), each said as Excel's TEXT says it; serving's reason where serving does not fit."""
    if not table.plan.serving_fits and table.pools is None:  # a mixed fleet's pools fit (§15.1)
        return {"plan_busiest_hour_flag": table.plan.serving_na}
    rows = [row for row in table.rows if not isinstance(row["committed_gpus"], str)]
    sized = max((row["committed_gpus"] for row in rows), default=0.0)
    busiest = float(cal.round9(max((row["scale"] for row in rows), default=0.0) * max(table.plan.profile)))
    return {"plan_busiest_hour_flag": sized_words(sized >= busiest, excel_fixed(sized, 0), excel_fixed(busiest, 1))}


def sized_words(covered, sized: str, busiest: str) -> str:
    """The flag's words (the Cover's formula joins the same pieces, the numbers as TEXT gives them)."""
    if covered:
        return f"covered: {sized} serving GPUs at the peak month hold its busiest hour, which keeps {busiest} busy"
    return (f"BELOW: {sized} serving GPUs at the peak month, fewer than the {busiest} its busiest hour keeps busy: "
            "requests wait at that hour")


def cost_per_million_tokens(table) -> float | str:
    """The plan's serving on the budget's path with its contingency per million output tokens served over the
    plan (unit economics, §13.8)."""
    serving, tokens = table.unit["serving_cost"], table.unit["output_tokens"]
    if isinstance(serving, str):
        return serving
    return serving / tokens * PER_MILLION if tokens > 0 else NO_TOKENS


def training_basis(table) -> str:
    """How the budget's path pays for training, the Cover's words: its tier over the run, or, on the owned path that
    owns training, the owned GPUs' accrual (§13.4: held to E)."""
    p = table.plan
    if p.path == "owned" and p.owning.training:
        return OWNED_TRAINING
    return f"at its tier ({p.training_tier.replace('_', '-')}), over the run"


def committed_gpu_price(table) -> float:
    """B_c·p_c an hour: the baseline's GPUs at its price; a mixed fleet's per pool, added (§15.1)."""
    s = table.scalars
    if table.pools is None:
        return s["serving_baseline_gpus_used"] * s["price_baseline"]
    return sum(s[f"serving_baseline_gpus_used{end}"] * s[f"price_baseline{end}"] for end in ("_p", "_d"))


def months_past(end: float, commitment_end: float) -> int:
    """The whole months a commitment outlives the plan's serving: mo(E, C) past E, else 0."""
    return cal.months_to_cover(end, commitment_end) if commitment_end > end else 0


def commitments(table) -> dict:
    """Each commitment's contract value (before contingency), term end and months past the serving's end, and the
    owned path's capex and its day."""
    s = table.scalars
    found = {}
    if s["training_term_months"] > 0:
        found |= {"plan_training_commitment_value": s["training_tier_cost"],
                  "plan_training_commitment_end": s["training_commitment_end"],
                  "plan_training_commitment_months_past": months_past(s["serving_end"],
                                                                      s["training_commitment_end"])}
    else:
        found |= dict.fromkeys(("plan_training_commitment_value", "plan_training_commitment_end",
                                "plan_training_commitment_months_past"), NOT_COMMITTED)
    used = s["serving_baseline_gpus_used"]
    if isinstance(used, str):
        found |= dict.fromkeys(("plan_baseline_commitment_value", "plan_baseline_commitment_end",
                                "plan_baseline_commitment_months_past"), used)
    elif used > 0:
        value = committed_gpu_price(table) * HOURS_PER_DAY * (s["serving_commitment_end"] - s["launch_date"])
        found |= {"plan_baseline_commitment_value": value,
                  "plan_baseline_commitment_end": s["serving_commitment_end"],
                  "plan_baseline_commitment_months_past": months_past(s["serving_end"], s["serving_commitment_end"])}
    else:
        found |= dict.fromkeys(("plan_baseline_commitment_value", "plan_baseline_commitment_end",
                                "plan_baseline_commitment_months_past"), NO_BASELINE)
    priced = isinstance(s["own_capex"], (int, float))
    found["plan_capex_date"] = s["own_start"] if priced else s["own_capex"]
    found["plan_capex"] = s["own_capex"]
    if table.plan.fleet_section:  # the training GPUs' own line (§13.15), when training owns a type of its own
        capex = s["own_training_capex"] if s["own_training_gpus"] else NO_LINE
        found |= {"plan_training_capex_date": capex if isinstance(capex, str) else s["start_date"],
                  "plan_training_capex": capex, "own_training_gpus": s["own_training_gpus"]}  # the label's count
    return found


def headline(table) -> dict:
    """The Cover's answers as named results."""
    totals, include = table.totals, table.plan.include_standby
    words, least = cheapest(totals, include)
    plan_total = totals[f"{table.scalars['path']}_total"]
    months = table.gpus_by_month
    start, count = table.scalars["start_date"], table.scalars["months"]
    found = {"plan_first_month": cal.eomonth(start, -1) + 1, "plan_last_month": cal.eomonth(start, count - 2) + 1,
             "plan_total_on_demand": totals["on_demand_total"], "plan_npv_on_demand": totals["on_demand_npv"],
             "plan_total_on_demand_held": totals["on_demand_held_total"],
             "plan_npv_on_demand_held": totals["on_demand_held_npv"],
             "plan_total_committed": totals["committed_total"], "plan_npv_committed": totals["committed_npv"],
             "plan_total_owned": totals["owned_total"], "plan_npv_owned": totals["owned_npv"],
             "plan_cheapest_path": words, "plan_cheapest_total": least,
             "plan_cheapest_saving": saving(plan_total, least),
             "plan_peak_gpus": peak_gpus(table, months),
             "plan_training_cost": totals[f"{table.scalars['path']}_training"],
             "plan_training_basis": training_basis(table),
             "plan_cost_per_million_tokens": cost_per_million_tokens(table)}
    return found | commitments(table) | busiest_hour(table)

