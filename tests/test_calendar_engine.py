"""The calendar (docs/method.md §13.2 and §13.3): serial dates, EOMONTH and EDATE as spreadsheets compute them,
commitments in whole terms, fiscal years, the month rows and the growth steps on monthly anniversaries. Every
expected number is worked by hand from the method or printed in its worked examples."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from planner.engine import calendar as cal

S = 46_388  # 2027-01-01, the worked examples' start


def serial(text: str) -> int:
    return cal.serial(dt.date.fromisoformat(text))


def test_serial_dates_count_days_from_1899_12_30():
    assert serial("2027-01-01") == S
    assert serial("1900-03-01") == 61  # Excel's 1900 system agrees with this epoch from March 1900 on
    assert cal.date_of(S + 0.475) == dt.date(2027, 1, 1)
    assert cal.time_of_day(S + 0.475) == pytest.approx(0.475)


def test_eomonth_gives_the_last_day_of_the_month_counted_from_the_start():
    assert cal.eomonth(S, -1) == serial("2026-12-31")
    assert cal.eomonth(S, 0) + 1 == serial("2027-02-01")
    assert cal.eomonth(S + 0.9, 1) == serial("2027-02-28")  # the time of day is dropped
    assert cal.eomonth(serial("2028-01-15"), 1) == serial("2028-02-29")  # a leap year


def test_edate_clamps_to_the_month_end_and_keeps_no_time_of_day():
    jan31 = serial("2027-01-31")
    assert cal.edate(jan31, 1) == serial("2027-02-28")
    assert cal.edate(jan31, 2) == serial("2027-03-31")  # from 31 January, not from 28 February
    assert cal.edate(serial("2028-01-31"), 1) == serial("2028-02-29")
    assert cal.edate(jan31 + 0.5, 1) == serial("2027-02-28")  # whole days, as in LibreOffice and Gnumeric
    assert cal.edate_keeping_time(jan31 + 0.5, 1) == serial("2027-02-28") + 0.5  # EDATE(INT(x), n) + MOD(x, 1)
    assert cal.edate(serial("2027-03-31"), -1) == serial("2027-02-28")


def test_the_default_start_is_the_first_of_the_next_month():
    assert cal.first_of_next_month(dt.date(2026, 12, 2)) == dt.date(2027, 1, 1)
    assert cal.first_of_next_month(dt.date(2027, 3, 31)) == dt.date(2027, 4, 1)


@pytest.mark.parametrize("x, y, months", [
    ("2027-01-01", "2028-01-01", 12),  # example 3: a 365-day plan from 1 January is twelve months exactly
    ("2027-01-01", "2027-02-01", 1),  # y on EDATE(x, m0): no month more
    ("2027-01-01", "2027-02-01T00:00:01", 2),
    ("2027-01-31", "2027-02-28", 1),  # EDATE clamps: one month covers it
    ("2027-01-31", "2027-03-01", 2),
])
def test_months_to_cover_is_the_fewest_whole_months(x, y, months):
    def at(text):
        day = dt.datetime.fromisoformat(text)
        return cal.serial(day.date()) + (day - dt.datetime.combine(day.date(), dt.time())).total_seconds() / 86400

    assert cal.months_to_cover(at(x), at(y)) == months


def test_commitments_run_in_whole_terms():
    # Example 2: serving from 2027-01-22 11:24 for 1,095 days takes three 1-year terms, to 2030-01-22 11:24
    launch = S + 21.4751
    end = cal.commitment_end(launch, launch + 1095, 12)
    assert cal.months_to_cover(launch, launch + 1095) == 36
    assert end - launch == pytest.approx(1096)  # 2028 is a leap year
    assert cal.date_of(end) == dt.date(2030, 1, 22) and cal.time_of_day(end) == pytest.approx(0.4751)
    # Example 7: 21.5 days of training on a 1-year term end on 2028-01-01 (365 days), on a 3-year term 1,096 days
    assert cal.commitment_end(S, launch, 12) == serial("2028-01-01")
    assert cal.commitment_end(S, launch, 36) - S == 1096
    # Example 3: a 365-day plan is one 1-year term; a 3-year term runs to 2030-01-01
    assert cal.commitment_end(S, S + 365, 36) == serial("2030-01-01")
    assert cal.terms(0, 12) == 1 and cal.terms(13, 12) == 2 and cal.terms(36, 36) == 1


def test_fiscal_years_are_named_by_the_calendar_year_they_end_in():
    assert cal.fiscal_year(serial("2026-07-01"), 7) == 2027  # FY2027 = July 2026 to June 2027
    assert cal.fiscal_year(serial("2027-06-01"), 7) == 2027
    assert cal.fiscal_year(serial("2027-12-01"), 7) == 2028
    assert cal.fiscal_year(serial("2027-12-01"), 1) == 2027  # calendar years
    assert cal.fiscal_year(serial("2027-01-01"), 2) == 2027 and cal.fiscal_year(serial("2027-02-01"), 2) == 2028
    assert cal.fiscal_label(2027) == "FY2027"


def test_month_rows_have_their_real_days_and_escalate_on_the_start_month_anniversary():
    m = cal.months(S + 30.5, 26, first_fiscal_month=7, escalation=0.03, discount_rate=0.08)  # start 2027-01-31 12:00
    assert m.start[0] == S and m.next[0] == serial("2027-02-01")  # the calendar starts on the first of the month
    assert list(m.days[:3]) == [31, 28, 31] and m.days[13] == 29  # February 2028
    assert list(m.fiscal_year[[0, 5, 6, 17, 18]]) == [2027, 2027, 2028, 2028, 2029]
    assert m.escalation[11] == 1 and m.escalation[12] == pytest.approx(1.03)  # month 13 is January 2028
    assert m.escalation[24] == pytest.approx(1.0609)


def test_discount_factors_weigh_every_month_a_twelfth_of_a_year():
    # Example 4 at 8 % a year: r_m = 1.08^(1/12) − 1 = 0.0064340; DF_1 0.993607, DF_12 0.925926, DF_36 0.793832
    m = cal.months(S, 37, first_fiscal_month=1, escalation=0, discount_rate=0.08)
    assert 1.08 ** (1 / 12) - 1 == pytest.approx(0.0064340, abs=5e-8)
    assert round(m.discount[0], 6) == 0.993607 and round(m.discount[11], 6) == 0.925926
    assert round(m.discount[35], 6) == 0.793832 and round(m.discount[36], 6) == 0.788757
    assert round(m.discount[:36].sum(), 5) == 32.04333  # (1 − 1.08^−3)/r_m
    assert round(1_000_000 * m.discount[:36].sum()) == 32_043_331  # $1 M a month for 36 months


def test_growth_steps_on_each_monthly_anniversary_of_the_launch():
    # A launch on 31 January 2027 at 00:00, D = 1 token a day, g = 10 %: January has 1 day at 1; February 27 days
    # at 1 and, from its anniversary on 28 February (EDATE clamps), 1 day at 1.1; March 30 days at 1.1 and from
    # 31 March 1 day at 1.21
    launch = serial("2027-01-31")
    m = cal.months(S, 4, first_fiscal_month=1, escalation=0, discount_rate=0)
    ann = cal.anniversaries(4, launch, 1)
    assert list(ann[:3]) == [launch, serial("2027-02-28"), serial("2027-03-31")]
    tokens = cal.served_tokens(m, ann, launch=launch, end=launch + 100, launch_month=1, tokens_per_day=1,
                               growth=0.1)
    assert tokens[:3] == pytest.approx([1, 27 + 1.1, 30 * 1.1 + 1.21])
    flat = cal.served_tokens(m, cal.anniversaries(4, launch + 0.25, 1), launch=launch + 0.25, end=launch + 40.25,
                             launch_month=1, tokens_per_day=3, growth=0)
    assert flat == pytest.approx(3 * m.overlap(launch + 0.25, launch + 40.25))  # g = 0: T_k = D·v_k
    assert flat.sum() == pytest.approx(3 * 40)


def test_the_launch_month_and_the_plan_months():
    launch = S + 21.4751  # example 1: 2027-01-22 11:24, serving to 2029-01-21 11:24
    assert cal.month_of(S, launch) == 1 and cal.month_of(S, serial("2028-03-05")) == 15
    assert cal.plan_months(S, launch + 730) == 25  # January 2027 to January 2029
    assert cal.plan_months(S, serial("2028-01-01")) == 12  # an end at a month's first midnight opens no month
    assert cal.plan_months(S, serial("2028-01-01") + 0.01) == 13


def test_overlap_counts_the_days_of_an_interval_in_each_month():
    m = cal.months(S, 3, first_fiscal_month=1, escalation=0, discount_rate=0)
    assert list(m.overlap(S + 10.5, serial("2027-03-02"))) == [20.5, 28, 1]
    assert np.all(m.overlap(S + 5, S + 5) == 0)
