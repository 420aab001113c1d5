"""What the engine shares with the scenario's declarations: the words an input may hold in place of a number, and
the longest Crossover horizon, for which the Budget's month rows are made. The engine owns them and the inputs
(planner/inputs/) declare them; plain values without numpy, so that reading a scenario, or `planner schema`, does
not import numpy."""

LAYOUT = "layout"  # hours.mfu: the layout search's cheapest layout's predicted MFU (docs/method.md §10)
ROOFLINE = "roofline"  # crossover.serving_mfu: the Serving table's achieved MFU at its users (docs/method.md §6)
HORIZON_MAX_DAYS = 3653  # crossover.horizon_days: ten years after launch, each month a row of the Budget sheet

NOT_SERVED = "n/a: the users do not fit"  # B > B_max: no roofline throughput to price (§9)
NO_FLEET_SERVES = "n/a: no fleet configuration meets the SLO"  # with a fleet, its serving money instead (§13.15)
PAST_DEADLINE = "n/a: the training run takes longer than the deadline"  # Hours' days > search.deadline_days


def past_deadline(scenario, days: float) -> bool:
    """Training's wall-clock days (Hours) past the layout search's deadline, when the scenario has one: the plan's
    totals read PAST_DEADLINE, as the Layouts sheet compares a layout's days with it."""
    deadline = scenario.search.deadline_days if scenario.search is not None else None
    return deadline is not None and days > deadline
