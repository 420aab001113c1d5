"""The Hours table's inputs (docs/method.md §2): training tokens, MFU, recomputation, the run's GPUs, the productive
share and the allocation options."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from planner.engine.shared import LAYOUT
from planner.scenario.declare import Count, Section, Share, declared, whole, word_or_number


class Allocation(Section):
    model_config = ConfigDict(title="Allocation option")

    gpus: Count = declared(..., "GPUs", "GPUs", "GPUs allocated to the run in this option.", kind="count")
    mfu: Share = declared(..., "MFU", "of peak", "MFU expected at that scale; Meta's Llama 3: 43 % on 8,192 GPUs, "
                          "41 % on 16,384.", kind="percent")


class Hours(Section):
    model_config = ConfigDict(title="Training hours and cost")

    tokens: whole(10**6, 1e18) = declared(15_600_000_000_000, "Training tokens", "T tokens", "In the "
                                          "scenario file the whole count (15.6e12); on Inputs in trillions: type "
                                          "15.6 for 15.6 T. Llama 3.1: about 15.6 T.", kind="tera", symbol="T")
    mfu: word_or_number((LAYOUT,), Share) = declared(
        0.40, "Model FLOPs utilisation (MFU)", "of peak", "Share of the dense BF16 peak achieved, or the word layout: "
        "the layout search's cheapest layout's predicted MFU. Meta reports 38-43 % for Llama 3.1 405B.",
        kind="percent", words=(LAYOUT,))
    activation_recompute: bool = declared(False, "Activation recomputation", "", "One extra forward pass: 8·Ψ·T "
                                          "operations instead of 6·Ψ·T.", kind="bool")
    gpus: Count = declared(1024, "GPUs in the run", "GPUs", "The run's allocation: sets the wall-clock days "
                           "and is the first row of the allocation options.", kind="count", symbol="N_run")
    productive_share: Share = declared(1.0, "Productive share", "of time", "Share of allocated time doing useful "
                                       "training; restarts, checkpointing and failed runs lower it. 100 % = the "
                                       "pure calculation.", kind="percent", symbol="q")
    # Meta's Llama 3 report: 8192 GPUs at 43 % MFU and 16384 GPUs at 41 %.
    allocations: Annotated[list[Allocation], Field(min_length=1, max_length=20)] = declared(
        [Allocation(gpus=8192, mfu=0.43), Allocation(gpus=16384, mfu=0.41)], "Allocation option")


SECTIONS = {"hours": Hours}


def cross_checks(scenario, catalog) -> list:
    """mfu: layout needs a layout search (its table checks that the search finds a layout)."""
    if scenario.hours.mfu == LAYOUT and scenario.search is None:
        return [(("hours", "mfu"), LAYOUT, "the word layout takes the layout search's cheapest layout's MFU: add a "
                 "search: section, or give a share (0.40 for 40 %)")]
    return []
