"""What the engine shares with the scenario's declarations: the words an input may hold in place of a number, the
longest Crossover horizon and run, the month rows kept past the plan, and the lengths of time. The engine owns them
and the inputs (planner/inputs/) declare them; plain values without numpy, so that reading a scenario, or `planner
schema`, does not import numpy."""

from dataclasses import dataclass

LAYOUT = "layout"  # hours.mfu: the layout search's cheapest layout's predicted MFU (docs/method.md §10)
ROOFLINE = "roofline"  # crossover.serving_mfu: the Serving table's achieved MFU at its users (docs/method.md §6)
HORIZON_MAX_DAYS = 3653  # crossover.horizon_days: ten years after launch
TRAINING_MONTHS_MAX = 120  # the longest run the Budget's average months hold: ten years
SPARE_MONTHS = 24  # budget.spare_months: month rows past the plan's, for edits that lengthen it (§9, §13)
PROGRESS = None  # long work says how far it is through advance(); `planner run` points it at bars (planner/progress.py)
GPUS_MAX = 10**15  # the most GPUs a plan's peak hour may take: whole GPUs as a spreadsheet holds them (15 digits)

# Time, once for every table (the sheets' named method constants and literal 24 and 3600 say the same)
SECONDS_PER_HOUR = 3600
HOURS_PER_DAY = 24
SECONDS_PER_DAY = SECONDS_PER_HOUR * HOURS_PER_DAY
MONTHS_PER_YEAR = 12
PER_MILLION = 1e6  # tokens per million; microseconds per second
DAYS_PER_YEAR = 365.25  # the Julian year: depreciation by day, and whole years of it
DAYS_PER_MONTH = DAYS_PER_YEAR / MONTHS_PER_YEAR  # 30.4375: §9's average month, and "per month" rates

FLEET_MAX_CONFIGURATIONS = 2048  # the Fleet's Candidates table's rows: N, mixed GPU pools or not (METHOD §15.1)
NOT_SERVED = "n/a: the users do not fit"  # B > B_max: no roofline throughput to price (§9)
NO_FLEET_SERVES = "n/a: no fleet configuration meets the SLO"  # with a fleet, its serving money instead (§13.15)
# one serving GPU's figures when the Fleet's cheapest mixes two GPU types (§15.1): the plan prices each pool on its
# own Catalog row (planner/engine/plan/pools.py; the Cost sheet's _p and _d cells, the Budget's pool columns)
FLEET_POOLED = "n/a: mixed GPU types: priced per pool (§15.1)"
# … and where a workbook written for one GPU type finds the cheapest mixed after an edit: its sheets have no pools
FLEET_MIXED = ("n/a: the cheapest fleet mixes two GPU types: run the planner again to price each pool on its own "
               "GPU")
FLEET_STALE = "n/a: the Fleet's inputs changed: run the planner again"  # an edit the search did not see
PAST_DEADLINE = "n/a: the training run takes longer than the deadline"  # Hours' days > search.deadline_days
TOO_LONG = ("n/a: the plan needs more months than this workbook holds: run the planner again (or raise "
            "budget.spare_months)")  # a plan past the month rows (an edit lengthened it): its money (§13.15)


@dataclass(frozen=True)
class MonthRows:
    """The month rows a workbook already has (an edited one, compared with the engine on the scenario it shows): the
    plan is laid on them instead of on its own months and the spare ones, so the two compare cell by cell."""

    calendar: int  # the Budget's calendar months (Cost, §13)
    average: int  # its average months (§9)


def past_deadline(scenario, days: float) -> bool:
    """Training's wall-clock days (Hours) past the layout search's deadline, when the scenario has one: the plan's
    totals read PAST_DEADLINE, as the Layouts sheet compares a layout's days with it."""
    deadline = scenario.search.deadline_days if scenario.search is not None else None
    return deadline is not None and days > deadline


class NoLayout(ValueError):
    """`hours.mfu: layout` when the search finds no layout that fits and meets the deadline: no MFU to train at.
    The message says why (the search's reason); the command line names hours.mfu with it. Here, not in
    engine/layouts.py, so that a run without a search need not import the search to catch it."""


class TooManyGPUs(Exception):
    """Serving a plan's demand needs more than GPUS_MAX GPUs at its peak hour: a serving replica far too slow for
    the traffic at the inputs' caps (1e18 tokens a day on a GPU of 0.001 TB/s), whose GPU counts would be no whole
    numbers (nor, past 2^63, integers at all). `key`: the input a message names; `premise` what the throughput is
    and `remedy` what raises it (a what-if's own: Crossover's assumed serving MFU)."""

    def __init__(self, gpus: float, tokens_per_day: float, tokens_per_s_per_gpu: float, growth: float, *,
                 key: tuple = ("crossover", "tokens_per_day"), premise: str = "the plan's",
                 remedy: str = "serve faster (the model, the GPU, the serving section)"):
        self.figures, self.key = (gpus, tokens_per_day, tokens_per_s_per_gpu, growth), key
        grown = f", growing {growth:.3g} a month," if growth else ""
        super().__init__(f"serving {tokens_per_day:.6g} tokens a day{grown} at {premise} {tokens_per_s_per_gpu:.3g} "
                         f"tokens per second per GPU needs {gpus:.3g} GPUs at the peak hour, above the "
                         f"{GPUS_MAX:.0e} allowed: lower the demand, or {remedy}")

    def at(self, key: tuple, premise: str, remedy: str) -> "TooManyGPUs":
        """The same, named at another input."""
        return TooManyGPUs(*self.figures, key=key, premise=premise, remedy=remedy)


def advance(what: str, done: int, *, total: float | None = None, unit: str = "it") -> None:
    """`done` more steps of the long work `what` (of `total`, where known): said to the PROGRESS hook, if any."""
    if PROGRESS is not None:
        PROGRESS(what, done, total, unit)
