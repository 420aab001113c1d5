"""The calendar a plan is laid on (docs/method.md §13): spreadsheet serial dates, calendar months with their real
day counts, fiscal years, commitments in whole terms, and each month's days of training, serving and demand.

Dates are spreadsheet serial numbers, whole days since 1899-12-30, and a fraction is the time of day: a run that
ends at 11:24 launches serving at 11:24. EOMONTH and EDATE work as Excel's do (EDATE clamps to the month's last
day and keeps no time of day, so a commitment's end is EDATE(INT(x), n) + MOD(x, 1)). Every function here is the
Python twin of one spreadsheet formula; the month columns are numpy arrays over the sheet's month rows.
"""

from __future__ import annotations

import calendar as _calendar
import datetime as dt
import math
from dataclasses import dataclass

import numpy as np

from planner.engine.cluster import ROUNDING_DECIMALS  # the Cost table's day_rounding_decimals
from planner.engine.shared import MONTHS_PER_YEAR

EPOCH = dt.date(1899, 12, 30)  # serial day 0 of Excel's 1900 date system (1900-03-01 onwards), LibreOffice, Gnumeric
_EPOCH_ORDINAL = EPOCH.toordinal()


# Serial dates ----------------------------------------------------------------------------------------------------
def serial(day: dt.date) -> int:
    """A date as its spreadsheet serial number: 2027-01-01 is 46,388."""
    return day.toordinal() - _EPOCH_ORDINAL


def date_of(x: float) -> dt.date:
    """The day a serial number falls on (INT(x)); the time of day is MOD(x, 1)."""
    return dt.date.fromordinal(_EPOCH_ORDINAL + math.floor(x))


def time_of_day(x: float) -> float:
    """MOD(x, 1): the fraction of its day a serial number has passed."""
    return x - math.floor(x)


def year(x: float) -> int:
    return date_of(x).year


def month(x: float) -> int:
    return date_of(x).month


def _shifted(x: float, months: int) -> tuple[int, int, int]:
    """The year and month `months` after x's month, and that month's last day."""
    d = date_of(x)
    y, m = divmod(d.month - 1 + months, MONTHS_PER_YEAR)
    return d.year + y, m + 1, _calendar.monthrange(d.year + y, m + 1)[1]


def eomonth(x: float, months: int) -> int:
    """EOMONTH(x, months): the last day of the month `months` after x's, a whole serial day."""
    y, m, last = _shifted(x, months)
    return serial(dt.date(y, m, last))


def edate(x: float, months: int) -> int:
    """EDATE(x, months): the same day `months` later, clamped to that month's last day (31 January + 1 month =
    28 February), a whole serial day: EDATE keeps no time of day."""
    y, m, last = _shifted(x, months)
    return serial(dt.date(y, m, min(date_of(x).day, last)))


def edate_keeping_time(x: float, months: int) -> float:
    """EDATE(INT(x), months) + MOD(x, 1): `months` later at the same time of day."""
    return edate(x, months) + time_of_day(x)


def first_of_next_month(day: dt.date) -> dt.date:
    """The default start date: the first day of the month after `day` (generated 2026-12-02 → 2027-01-01)."""
    return dt.date(day.year + day.month // MONTHS_PER_YEAR, day.month % MONTHS_PER_YEAR + 1, 1)


def months_between(x: float, y: float) -> int:
    """12·(YEAR(y) − YEAR(x)) + MONTH(y) − MONTH(x): calendar months from x's month to y's."""
    return MONTHS_PER_YEAR * (year(y) - year(x)) + month(y) - month(x)


def month_of(start: float, x: float) -> int:
    """The month row k (1-based) that holds serial x on a calendar starting at `start`'s month: the launch month
    k_L = 12·(YEAR(L) − YEAR(S)) + MONTH(L) − MONTH(S) + 1."""
    return months_between(start, x) + 1


def plan_months(start: float, end: float) -> int:
    """The months k with M_k < end: the plan's month rows, from start's month to the one `end` falls in (not
    counting a month `end` opens at its first midnight)."""
    k = month_of(start, end)
    return k - 1 if end == eomonth(end, -1) + 1 else k


# Commitments in whole terms -------------------------------------------------------------------------------------------
def months_to_cover(x: float, y: float) -> int:
    """mo(x, y) = m0 + IF(y > EDATE(INT(x), m0) + MOD(x, 1), 1, 0), m0 = 12·(YEAR(y) − YEAR(x)) + MONTH(y) −
    MONTH(x): the fewest whole months m with EDATE(x, m) ≥ y."""
    m0 = months_between(x, y)
    return m0 + (1 if y > edate_keeping_time(x, m0) else 0)


def terms(months: int, term_months: int) -> int:
    """n = MAX(1, CEILING(mo / m_T, 1)): the whole terms of m_T months that cover `months`; at least one."""
    return max(1, -(-months // term_months))


def commitment_end(x: float, y: float, term_months: int) -> float:
    """C = EDATE(INT(x), m_T·n) + MOD(x, 1): the end of the whole terms that cover [x, y), every hour of which is
    paid for, used or not."""
    return edate_keeping_time(x, term_months * terms(months_to_cover(x, y), term_months))


# Fiscal years ------------------------------------------------------------------------------------------------------
def fiscal_year(month_start: float, first_fiscal_month: int) -> int:
    """FY_k = YEAR(M_k) + IF(AND(F > 1, MONTH(M_k) ≥ F), 1, 0): a fiscal year is named by the calendar year it
    ends in (F = 7: July 2026 to June 2027 is FY2027)."""
    return _fiscal(year(month_start), month(month_start), first_fiscal_month)


def _fiscal(calendar_year: int, calendar_month: int, first_fiscal_month: int) -> int:
    return calendar_year + (1 if first_fiscal_month > 1 and calendar_month >= first_fiscal_month else 0)


def fiscal_label(fy: int) -> str:
    return f"FY{fy}"


# The month rows ----------------------------------------------------------------------------------------------------
def overlap(starts, ends, x, y):
    """ov_k(x, y) = ROUND(MAX(0, MIN(M_{k+1}, y) − MAX(M_k, x)), 9): the days of [x, y) in each month, to a
    billionth of a day. A serial date near 50,000 holds its time of day to about 1e-11 days, and spreadsheet
    applications compute a date's last bits differently (Gnumeric in extended precision), so a sliver of a month
    (the second a short run takes) would differ between them by more than a billionth of itself unrounded."""
    return round9(np.maximum(0.0, np.minimum(ends, y) - np.maximum(starts, x)))


@dataclass(frozen=True)
class Months:
    """The calendar's columns over the sheet's month rows k = 1 … rows, computed on every row (the sheet blanks
    only labels and money outside the plan, so nothing the plan's end reads depends on its own row flag)."""

    k: np.ndarray  # 1 … rows
    start: np.ndarray  # M_k = EOMONTH(S, k − 2) + 1
    next: np.ndarray  # M_{k+1} = EOMONTH(S, k − 1) + 1
    days: np.ndarray  # d_k, 28 to 31
    fiscal_year: np.ndarray
    escalation: np.ndarray  # e_k = (1 + esc)^INT((k − 1)/12)
    discount: np.ndarray  # DF_k = (1 + r_d)^(−k/12)

    @property
    def rows(self) -> int:
        return len(self.k)

    def overlap(self, x, y):
        return overlap(self.start, self.next, x, y)


def months(start: float, rows: int, *, first_fiscal_month: int, escalation: float, discount_rate: float) -> Months:
    """The month rows of a calendar starting at `start`'s month."""
    k = np.arange(1, rows + 1)
    first = date_of(start)
    shifted = [divmod(first.month - 1 + i, MONTHS_PER_YEAR) for i in range(rows + 1)]  # (years on, month − 1)
    bounds = np.array([serial(dt.date(first.year + y, m + 1, 1)) for y, m in shifted], dtype=float)  # M_1 …
    starts, ends = bounds[:-1], bounds[1:]
    return Months(k=k, start=starts, next=ends, days=ends - starts,
                  fiscal_year=np.array([_fiscal(first.year + y, m + 1, first_fiscal_month) for y, m in shifted[:-1]]),
                  escalation=(1 + escalation) ** ((k - 1) // MONTHS_PER_YEAR),
                  discount=(1 + discount_rate) ** (-k / MONTHS_PER_YEAR))


def anniversaries(rows: int, launch: float, launch_month: int) -> np.ndarray:
    """Ann_k = EDATE(INT(L), k − k_L) + MOD(L, 1) in the months from the launch on, else 0: the day the month's
    growth step falls on (a launch on 31 January steps on 28 February, then on 31 March). EDATE over the rows at
    once: the launch day's month n months on, its day clamped to that month's last."""
    day = date_of(launch)
    steps = np.arange(1, rows + 1) - launch_month
    months = np.datetime64(f"{day.year:04d}-{day.month:02d}", "M") + steps
    first = months.astype("datetime64[D]")
    length = ((months + 1).astype("datetime64[D]") - first).astype(int)
    found = (first - np.datetime64(EPOCH, "D")).astype(int) + np.minimum(day.day, length) - 1
    return np.where(steps >= 0, found + time_of_day(launch), 0.0)


def served_tokens(m: Months, ann, *, launch: float, end: float, launch_month: int, tokens_per_day: float,
                  growth: float) -> np.ndarray:
    """T_k = D·[(1 + g)^(k − k_L − 1)·ov_k(L, MIN(E, Ann_k)) + (1 + g)^(k − k_L)·ov_k(MAX(L, Ann_k), E)]: the days
    before the month's anniversary `ann` at the old level, the days from it at the new one; 0 without serving
    days."""
    before, after, step = growth_parts(m, ann, launch=launch, end=end, launch_month=launch_month)
    tokens = tokens_per_day * ((1 + growth) ** (step - 1) * before + (1 + growth) ** step * after)
    return np.where(m.overlap(launch, end) > 0, tokens, 0.0)


def growth_parts(m: Months, ann, *, launch: float, end: float, launch_month: int):
    """Each month's serving days before its growth anniversary and from it, ov_k(L, MIN(E, Ann_k)) and
    ov_k(MAX(L, Ann_k), E), and the growth steps k − k_L of the days from it."""
    before = round9(np.maximum(0.0, np.minimum(np.minimum(m.next, end), ann) - np.maximum(m.start, launch)))
    after = round9(np.maximum(0.0, np.minimum(m.next, end) - np.maximum(np.maximum(m.start, launch), ann)))
    return before, after, (m.k - launch_month).astype(float)


_SCALE = 10.0 ** ROUNDING_DECIMALS


def round9(x):
    """ROUND(x, 9), as the sheet rounds before a whole-GPU or whole-hour step (15-digit arithmetic). A Python float
    is rounded as numpy rounds it (x · 10⁹ to the nearest, halves to even, ÷ 10⁹; the sign of a zero kept), without
    numpy's cost per call: the Cover's month rows call it thousands of times (benchmarks/run_ratio.py)."""
    if type(x) is float and math.isfinite(x * _SCALE):
        rounded = round(x * _SCALE) / _SCALE
        return rounded if rounded else math.copysign(0.0, x)
    return np.round(x, ROUNDING_DECIMALS)
