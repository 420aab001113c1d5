"""The Sensitivity table has no inputs of its own (docs/method.md §9): its grids and tornado move the inputs of
Hours, Crossover and Serving around the scenario's values."""

from __future__ import annotations

SECTIONS: dict = {}
EXTERNAL = None


def canonical(scenario) -> list:
    return []


def cross_checks(scenario, catalog) -> list:
    return []
