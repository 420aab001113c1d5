"""Named scenarios (docs/method.md §9): `scenarios:` in the scenario file, each checked as a scenario of its own,
written by `planner batch` beside the base; bad names, keys and values exit 2 naming the key and its line."""

from __future__ import annotations

import pytest

from planner.batch import jobs_of
from planner.engine import compute
from tests.helpers import refused

TEXT = """name: cases
scenarios:
  low: {hours.mfu: 0.30, crossover.tokens_per_day: product}
  high:
    hours.mfu: 0.5
    budget.monthly_growth: 0.05
"""


def test_batch_writes_the_base_and_each_scenario(tmp_path):
    path = tmp_path / "cases.yaml"
    path.write_text(TEXT)
    jobs, failed = jobs_of([path])
    assert not failed
    assert [job.scenario.name for job in jobs] == ["cases", "cases [low]", "cases [high]"]
    assert [job.slug for job in jobs] == ["cases", "cases-low", "cases-high"]
    base, low, high = (job.scenario for job in jobs)
    assert (low.hours.mfu, low.crossover.tokens_per_day, low.budget.monthly_growth) == (0.30, "product", 0.0)
    assert (high.hours.mfu, high.crossover.tokens_per_day, high.budget.monthly_growth) == (0.5, "popular-app", 0.05)
    # the low case's training cost by hand: 6·Ψ·T / (989e12 · 0.30 · 3600) × 2.00
    assert compute(low).headline["hours_cost"] == pytest.approx(6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.30 * 3600)
                                                                * 2.00)
    assert base.scenarios and not low.scenarios and not high.scenarios


@pytest.mark.parametrize("scenarios, line, fragment", [
    ("  low: {hours.mfuu: 0.3}", 3, "scenarios.low: scenarios key 'hours.mfuu': no key 'mfuu'; did you mean 'mfu'?"),
    ("  low:\n    hours.mfu: 0.3\n    hours.allocations: []", 5,
     "scenarios.low: scenarios key 'hours.allocations': scenarios change scalar inputs only"),
    ("  base: {hours.mfu: 0.3}", 3, "scenarios.base: scenario name 'base' is reserved"),
    ("  Low: {hours.mfu: 0.3}", 3, "scenarios.Low: scenario name 'Low': a lower-case letter"),
    ("  low: {catalog.gpus.h100-sxm.price_per_hour: 3}", 3, "'catalog' is not an input a scenario changes"),
    ("  low: {hours: 3}", 3, "scenarios key 'hours': a section"),
    ("  low: {model: {name: m, params: 1e9}}", 3, "scenarios key 'model': one value"),
    ("  low: {hours.mfu: 3}", 3, "scenario low: hours.mfu: value 3 is not allowed"),
])
def test_bad_scenarios_exit_2_naming_key_and_line(tmp_path, scenarios, line, fragment):
    output, path = refused(tmp_path, f"name: x\nscenarios:\n{scenarios}\n")
    assert f"{path}:{line}: " in output and fragment in output, output
