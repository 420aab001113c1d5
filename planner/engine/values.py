"""Plain Python values for results: what JSON and a spreadsheet cell can hold."""

from __future__ import annotations

import math

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
