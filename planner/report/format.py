"""How numbers read in the HTML summary and its sentences: thousands separators, units once, scales finance reads."""

from __future__ import annotations


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
    """A share as "40 %"."""
    return f"{share * 100:.4g} %"


def sci(value) -> str:
    """Scientific notation without the exponent's sign and zeros: 3.80e25."""
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def zflop(value) -> str:
    """Operations in ZFLOP (10^21), as the workbook shows them: 751.6; below 0.1 ZFLOP to three decimals."""
    zetta = value / 1e21
    return f"{zetta:,.3f}" if zetta < 0.1 else f"{zetta:,.1f}"


def money(value, symbol: str = "$", digits: int = 0) -> str:
    """An amount with its currency symbol ("$1,055,545") or code ("1,055,545 CHF")."""
    amount = f"{abs(value):,.{digits}f}"
    sign = "-" if value < 0 else ""
    return f"{sign}{symbol}{amount}" if len(symbol) == 1 else f"{sign}{amount} {symbol}"


def days(value) -> str:
    return f"{value:,.1f}"


def tokens(count) -> str:
    """A token count in words: "15.6 trillion"."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if count >= size:
            return f"{count / size:,.4g} {word}"
    return number(count)


def and_list(words: list[str]) -> str:
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


def shown(value, kind: str, symbol: str = "$") -> str:
    """A value as the workbook's kind shows it (planner.workbook.kit.KINDS), without the unit; text (an undefined
    result such as "none acceptable") as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool) or kind == "bool":
        return yes_no(value)
    if isinstance(value, str):  # a word where a number would be ("never")
        return value
    return SHOWN.get(kind, lambda v, _: number(v))(value, symbol)


SHOWN = {  # kind → how a value of it reads (the currency symbol second)
    "gb": lambda v, _: gb(v), "kib": lambda v, _: gb(v), "percent": lambda v, _: percent(v),
    "flops": lambda v, _: zflop(v), "hours": lambda v, _: millions(v), "days": lambda v, _: days(v),
    "tera": lambda v, _: f"{v / 1e12:,.1f}", "money0": lambda v, s: money(v, s), "money": lambda v, s: money(v, s, 2),
    "money5": lambda v, s: money(v, s, 5), "ratio": lambda v, _: f"{v:.2f}", "tenths": lambda v, _: f"{v:,.1f}",
    "ms": lambda v, _: f"{v:,.0f}", "decimal": lambda v, _: f"{v:,.4g}", "number": lambda v, _: f"{v:,.2f}",
    "count": lambda v, _: f"{v:,.0f}", "gpus": lambda v, _: f"{v:,.0f}",
    "params": lambda v, _: f"{v:,.0f}"}


def flatten(data, prefix: str = "") -> dict[str, object]:
    """Nested scenario data as dotted keys; list items numbered from 1, lists of plain values kept whole."""
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list) and any(isinstance(item, (dict, list)) for item in data):
        items = ((str(i), item) for i, item in enumerate(data, 1))
    else:
        return {prefix: (", ".join(map(number, data)) or "none") if isinstance(data, list) else data}
    flat: dict[str, object] = {}
    for key, value in items:
        flat.update(flatten(value, f"{prefix}.{key}" if prefix else key))
    return flat


FILTERS = {f.__name__: f for f in (number, gb, yes_no, millions, percent, sci, zflop, money, days, tokens, shown)}
