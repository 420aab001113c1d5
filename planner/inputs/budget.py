"""The Budget table's inputs (docs/method.md §9): the monthly growth of served traffic, and whether standby serving
capacity counts in the total. The months themselves follow Hours' wall-clock days and Crossover's horizon."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from planner.scenario.declare import Section, declared


class Budget(Section):
    model_config = ConfigDict(title="Monthly budget")

    monthly_growth: Annotated[float, Field(ge=-0.5, le=1)] = declared(
        0.0, "Monthly traffic growth g", "per month", "Served tokens per day grow by this share each month after "
        "launch, compounding: month m serves D·(1 + g)^(m − 1). 0: flat, and the budget's serving total equals "
        "the serving cost over the horizon.", kind="percent")
    include_standby: bool = declared(False, "Standby capacity in the total", "", "TRUE adds the serving pool's idle "
                                     "GPU-hours (Cluster, separate pools) to each serving month's total; FALSE "
                                     "shows them in their own row only.", kind="bool")


SECTIONS = {"budget": Budget}
