"""How each kind of value shows, in one table (KINDS): the workbook's number format, the unit it carries where no
Unit column stands beside it, and how the HTML summary and its sentences read it. A value names its kind once, where
it is declared (an input) or laid out (a row, a column, a key result); the workbook (planner/workbook/kit.py) and
the HTML (planner/report/format.py) both read the kind here.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Callable

ZFLOP = 1e21  # operations show in ZFLOP, 10^21 FLOP
MONEY_DECIMALS = {"money": 2, "money0": 0, "money5": 5}  # money5: costs per request


# How numbers read in the HTML: thousands separators, units once, scales finance reads ---------------------------
def number(value) -> str:
    """Thousands separators; whole numbers without decimals; true/false as a scenario file writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"
    return str(value)


def gb(value) -> str:
    """GB to one decimal."""
    return f"{value:,.1f}"


def yes_no(value) -> str:
    return "yes" if value else "no"


def millions(value, digits: int = 2) -> str:
    """Hours in millions ("26.67 M"); below 100,000 whole with thousands separators; below 100 to two figures."""
    if value >= 1e5:
        return f"{value / 1e6:,.{digits}f} M"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2g}"


def percent(share) -> str:
    """A share to a tenth of a percent, as the workbook shows it: "3.3 %", "0.2 %"; a whole one as "40 %"."""
    shown = f"{share * 100:.1f}"
    return f"{shown.removesuffix('.0')} %"


def zflop(value) -> str:
    """Operations in ZFLOP, as the workbook shows them: 751.6; below 0.1 ZFLOP to three decimals."""
    zetta = value / ZFLOP
    return f"{zetta:,.3f}" if zetta < 0.1 else f"{zetta:,.1f}"


def money(value, symbol: str = "$", digits: int = 0) -> str:
    """An amount with its currency symbol ("$1,055,545") or code ("1,055,545 CHF")."""
    amount = f"{abs(value):,.{digits}f}"
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{amount}" if len(symbol) == 1 else f"{sign}{amount} {symbol}"


def scaled_count(value) -> str:
    """A count in trillions (T) from 1e12, in billions (B) from 1e9, else whole, as the token_count format shows it."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return number(value)
    for scale, letter in ((1e12, "T"), (1e9, "B")):
        if value >= scale:
            return f"{value / scale:,.1f} {letter}"
    return f"{value:,.0f}"


def days(value) -> str:
    return f"{value:,.1f}"


def serial_date(value) -> dt.date:
    """The day a spreadsheet serial number falls on (1900 date system: serial 1 is 1900-01-01 from March 1900 on)."""
    return dt.date(1899, 12, 30) + dt.timedelta(days=int(value))


Reading = Callable[[object, str], str]  # (value, currency symbol) → the value as the HTML reads it, without its unit


def _read(reader: Callable[[object], str]) -> Reading:
    return lambda value, _: reader(value)


def _fixed(spec: str) -> Reading:
    return lambda value, _: f"{value:{spec}}"


def _money(digits: int) -> Reading:
    return lambda value, symbol: money(value, symbol, digits)


# The table --------------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Kind:
    """How a value shows: its number format, the unit it carries where no Unit column stands beside it, and how the
    HTML reads it."""

    format: str | None
    unit: str = ""
    reads: Reading = _read(number)

    def with_unit(self, unit: str | None = None) -> str | None:
        unit = self.unit if unit is None else unit
        if not unit or self.format is None:
            return self.format
        return f'{self.format}" {unit}"'


# Money formats are made per currency (money_format); "tera" shows trillions (15.6e12 as 15.6); "flops" shows
# operations in ZFLOP (7.52e23 as 751.6; below 0.1 ZFLOP with three decimals, so a small model's serving day does not
# read as 0): each trailing comma of a number format divides by 1,000. Whole things (GPUs, GPU-hours,
# milliseconds) show no decimals.
KINDS = {
    "text": Kind(None),
    "words": Kind(None),  # a phrase in a table: wrapped within its column, clear of the number beside it
    "count": Kind("#,##0", reads=_fixed(",.0f")),
    "gpus": Kind("#,##0", "GPUs", _fixed(",.0f")),
    "number": Kind("#,##0.00", reads=_fixed(",.2f")),
    "decimal": Kind("0.0###", reads=_fixed(",.4g")),
    "small": Kind("0.0##E+0", reads=_fixed(".3g")),  # a share of a millionth (a method constant)
    "token_count": Kind('[>=1000000000000]#,##0.0,,,," T";[>=1000000000]#,##0.0,,," B";#,##0',
                        reads=_read(scaled_count)),  # tokens: 100 billion as "100.0 B"
    "tenths": Kind("#,##0.0", reads=_fixed(",.1f")),  # seconds
    "ms": Kind("#,##0", "ms", _fixed(",.0f")),
    "gb": Kind("#,##0.0", "GB", _read(gb)),
    "kib": Kind("#,##0.0", "KiB", _read(gb)),
    "percent": Kind("0.0%", reads=_read(percent)),
    "flops": Kind('[<100000000000000000000]#,##0.000,,,,,,,;#,##0.0,,,,,,,', "ZFLOP", _read(zflop)),
    "hours": Kind("#,##0", "GPU-hours", _read(millions)),
    "days": Kind("#,##0.0", "days", _read(days)),
    "ratio": Kind("0.00", reads=_fixed(".2f")),
    "date": Kind("yyyy-mm-dd", reads=_read(lambda v: f"{serial_date(v):%Y-%m-%d}")),  # a spreadsheet serial day
    "datetime": Kind("yyyy-mm-dd hh:mm", reads=_read(lambda v: f"{serial_date(v):%Y-%m-%d}")),  # and its time
    "month": Kind("mmm yyyy", reads=_read(lambda v: f"{serial_date(v):%b %Y}")),  # a month's first day
    "bool": Kind('"TRUE";"TRUE";"FALSE"', reads=_read(yes_no)),  # Excel shows TRUE/FALSE anyway; LibreOffice
    # needs the format
    "params": Kind("#,##0", reads=_fixed(",.0f")),
    "tera": Kind("#,##0.0,,,,", "T", lambda value, _: f"{value / 1e12:,.1f}"),
    "giga": Kind("#,##0.0,,,", "G"),  # a count shown in billions (parameters, GB/s, GFLOP)
    # values of different sizes in one column (the tornado's inputs): trillions and billions scaled, the rest as is
    "scaled": Kind('[>=1000000000000]#,##0.0,,,," T";[>=1000000000]#,##0.0,,," B";#,##0.00'),
    **{kind: Kind(None, reads=_money(decimals)) for kind, decimals in MONEY_DECIMALS.items()},
    # money typed in USD (Catalog prices, price_per_gpu_hour, a server's cost per hour): "$" in any report, never
    # the reporting currency's sign; what it converts to reads as money
    "usd": Kind('"$"#,##0.00', reads=lambda value, _: money(value, "$", 2)),
}


def money_format(kind: str, symbol: str = "") -> str:
    """A money kind's number format: "$"#,##0.00 with a one-character symbol, #,##0.00" CHF" with a code, plain
    #,##0.00 without either (where a Currency column says which)."""
    decimals = MONEY_DECIMALS[kind]
    number = "#,##0" + ("." + "0" * decimals if decimals else "")
    symbol = symbol.replace('"', "")
    if not symbol:
        return number
    return f'"{symbol}"{number}' if len(symbol) == 1 else f'{number}" {symbol}"'
