"""The GPUs table has no inputs of its own (docs/method.md §13.7): each Catalog GPU with a price is set beside the
others at the scenario's model, training run, serving set-up, demand and ownership inputs."""

from __future__ import annotations

SECTIONS: dict = {}
EXTERNAL = None


def canonical(scenario) -> list:
    return []


def cross_checks(scenario, catalog) -> list:
    return []
