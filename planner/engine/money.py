"""Money typed in USD in the reporting currency (docs/method.md §13, "Currency"): the Catalog's prices, the
scenario's `price_per_gpu_hour`, server prices and the Goodput servers' cost per hour are USD; every money result
is in `currency`, each input × `fx_rate` once, where it enters a table. Plain floats, no numpy: the scenario's
validation reads nothing here."""

from __future__ import annotations


def converted(usd: float, scenario) -> float:
    """A USD amount in the reporting currency: × fx_rate (reporting units per USD)."""
    return usd * scenario.fx_rate


def gpu_price(scenario) -> float:
    """The chosen GPU's price per GPU-hour in the reporting currency: `price_per_gpu_hour` (the GPU's Catalog price,
    or a named scenario's own) × fx_rate; the twin of Inputs' price_per_gpu_hour_converted, which every table's
    money on this GPU reads."""
    return converted(scenario.gpu_price, scenario)
