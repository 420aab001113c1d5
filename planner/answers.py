"""The Cover's answers to the budget owner as the workbook and the HTML summary both show them (PRODUCT.md, "The
Cover's answers"): each answer's name, label (a text template that follows the inputs) and kind. The workbook's
formulas are planner/workbook/answers.py, the engine's values planner/engine/answers.py."""

from __future__ import annotations

from planner.specs import KeyResult

MONTHS = [
    KeyResult("plan_first_month", "The plan's first month", kind="month", unit=""),
    KeyResult("plan_last_month", "… and its last ({tco_months|count} calendar months)", kind="month", unit=""),
]
CHEAPEST = [
    KeyResult("plan_cheapest_total", "The cheapest path's total over the plan", kind="money0", unit=""),
    KeyResult("plan_cheapest_path", "The cheapest path (of those with a total)", kind="text", unit=""),
    KeyResult("plan_cheapest_saving", "What it saves over the plan against the chosen path ({budget_path|words}): "
              "the plan's total less the cheapest", kind="money0", unit=""),
]
PEAK = KeyResult("plan_peak_gpus", "The most GPUs held in any month (training + serving at its peak hour)",
                 kind="count", unit="")
UNIT_COSTS = [
    KeyResult("plan_training_cost", "Training {plan_training_basis}",
              kind="money0", unit=""),
    KeyResult("plan_cost_per_million_tokens", "Serving per million output tokens served over the plan (the "
              "{budget_path|words} path's serving with contingency ÷ the plan's output tokens)", kind="money", unit=""),
]
COMMITMENTS = [
    KeyResult("plan_training_commitment_value", "Training commitment: its contract value over whole terms",
              kind="money0", unit=""),
    KeyResult("plan_training_commitment_end", "… its term ends", kind="date", unit=""),
    KeyResult("plan_training_commitment_months_past", "… months it outlives the plan's serving", kind="count",
              unit=""),
    KeyResult("plan_baseline_commitment_value", "Serving baseline ({pricing_serving_baseline_tier|words}): "
              "contract over its terms", kind="money0", unit=""),
    KeyResult("plan_baseline_commitment_end", "… its term ends", kind="date", unit=""),
    KeyResult("plan_baseline_commitment_months_past", "… months it outlives the plan's serving", kind="count",
              unit=""),
    KeyResult("plan_capex_date", "Owned path: the GPUs are bought (the capex goes out) on", kind="date", unit=""),
    KeyResult("plan_capex", "… the capex, paid once", kind="money0", unit=""),
]
TRAINING_CAPEX = [  # with a fleet: owned training on a GPU type of its own (§13.15, "each on its own line")
    KeyResult("plan_training_capex_date", "Owned path: the training GPUs, a type of their own, are bought on",
              kind="date", unit=""),
    KeyResult("plan_training_capex", "… their capex, paid once: buys {own_training_gpus|count} {gpu}", kind="money0",
              unit=""),
]
DEMAND = [  # the Sensitivity's snapshot, shown while current
    KeyResult("plan_total_demand_low", "At 20 % less demand (tokens a day × 0.8), over the plan",
              kind="money0", unit="", snapshot=True),
    KeyResult("plan_total_demand_high", "… at 20 % more demand (× 1.2), over the plan", kind="money0", unit="",
              snapshot=True),
]
BUSIEST = [  # the sized peak against the profile's busiest hour (live: the words follow the sheet's GPUs)
    KeyResult("plan_busiest_hour_flag", "The sized peak against the demand profile's busiest hour", kind="text",
              unit=""),
]
GPU_COLUMNS = [("training", "Training (the run's GPUs)"), ("serving", "Serving at the month's peak hour"),
               ("held", "Held: training + serving"), ("committed", "Committed baseline (its terms)"),
               ("owned", "Owned (the owned path)")]
