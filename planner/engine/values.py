"""Plain Python values for results: what JSON and a spreadsheet cell can hold."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np


def prefixed(prefix: str, values: dict, keys) -> dict:
    """A table's headline: each of its values named by the table's prefix (hours_days for Hours' days), in order."""
    return {f"{prefix}_{key}": values[key] for key in keys}


def plain(value):
    """A numpy scalar or 0-d array as a Python bool, int, float or str; NaN and infinity are refused."""
    kind = type(value)
    if kind is float:  # most of them, first: a workbook's 5,000 cached values
        if not math.isfinite(value):
            raise ValueError(f"a result is not a finite number: {value}")
        return value
    if kind is str or kind is int or kind is bool or value is None:
        return value
    if isinstance(value, np.ndarray):
        value = value.item()
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            raise ValueError(f"a result is not a finite number: {value}")
        return float(value)
    return value


def excel_round(x: float) -> int:
    """ROUND(x, 0) as a spreadsheet rounds: halves away from zero (Python's round() rounds halves to even)."""
    return int(math.floor(abs(x) + 0.5)) * (1 if x >= 0 else -1)


def excel_ceiling(x: float) -> int:
    """CEILING(x, 1) as a spreadsheet reckons it: on the 15-digit decimal the cell holds, so a mean concurrency of
    2.0000000000000004 (a sum over a duration) is 2, not 3."""
    return math.ceil(float(f"{x:.15g}"))


def to_the_cent(x: float) -> float:
    """ROUND(x, 2) as a spreadsheet rounds: on the 15-digit decimal the cell holds, halves away from zero. Two sums
    that are equal by the method differ in their last digits from one application to another; to the cent they
    agree."""
    return float(Decimal(f"{x:.15g}").quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
