"""Shared fixtures: LibreOffice (required under CI=true), scenario helpers and workbook recalculation."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest

from planner import recalc
from planner.engine import compute
from planner.scenario import DEFAULT, parse_scenario
from planner.workbook import build

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.yaml"))


@pytest.fixture(scope="session")
def libreoffice() -> str:
    """The soffice binary; missing, the test skips, or fails under CI=true where skipping would hide it."""
    found = recalc.find_soffice()
    if found is None:
        message = "LibreOffice Calc (soffice) is not installed"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message + ": CI requires it (bash scripts/test.sh installs it as root)")
        pytest.skip(message)
    return found


def scenario_with(**changes):
    """The default scenario with dotted-key changes, e.g. scenario_with(**{"memory.strategy": "ddp"})."""
    data = DEFAULT.normalised()
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node[part]
        node[last] = value
    return parse_scenario(data)


def build_in_memory(scenario):
    """The workbook for a scenario, in memory: its Book records every formula's cached (engine) value."""
    return build(compute(scenario), io.BytesIO())
