"""How numbers read in the HTML summary and its sentences: thousands separators, units once, scales finance reads.
A kind of value reads as planner/units.py's table says (`shown`), the readings its kinds use are there too."""

from __future__ import annotations

from planner.units import KINDS, days, gb, millions, money, number, percent, yes_no, zflop


def sci(value) -> str:
    """Scientific notation without the exponent's sign and zeros: 3.80e25."""
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def tokens(count) -> str:
    """A token count in words: "15.6 trillion"."""
    for size, word in ((1e12, "trillion"), (1e9, "billion"), (1e6, "million")):
        if count >= size:
            return f"{count / size:,.4g} {word}"
    return number(count)


def and_list(words: list[str]) -> str:
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


def shown(value, kind: str, symbol: str = "$") -> str:
    """A value as its kind reads (planner.units.KINDS), without the unit; text (an undefined result such as "none
    acceptable") as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return yes_no(value)
    return KINDS[kind].reads(value, symbol)


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
