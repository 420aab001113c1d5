"""The Crossover table's inputs (docs/method.md §3): served tokens per day, serving MFU and the horizon."""

from __future__ import annotations

from pydantic import ConfigDict

from planner.engine.shared import HORIZON_MAX_DAYS, ROOFLINE
from planner.scenario.catalog_entries import TokensPerDay
from planner.scenario.declare import PresetId, Section, Share, declared, id_or_number, whole, word_or_number
from planner.scenario.errors import unknown


class Crossover(Section):
    model_config = ConfigDict(title="Crossover: serving against training")

    tokens_per_day: id_or_number(PresetId, TokensPerDay) = declared(
        "popular-app", "Served tokens per day", "tokens per day", "A traffic preset from Catalog, or a whole "
        "number of tokens (0: no traffic).", kind="count", choices="catalog_traffic_preset_ids", symbol="D")
    serving_mfu: word_or_number((ROOFLINE,), Share) = declared(
        0.10, "Serving MFU", "of peak", "A share of peak, or the word roofline: the Serving table's MFU at its "
        "users. Decode is bound by memory bandwidth: serving often reaches a small share of peak.", kind="percent",
        words=(ROOFLINE,))
    horizon_days: whole(1, HORIZON_MAX_DAYS) = declared(
        730, "Horizon", "days", "Days after launch the table covers, up to ten years (3,653 days): the Budget sheet "
        "has a row for each month.", kind="count")


SECTIONS = {"crossover": Crossover}


def cross_checks(scenario, catalog) -> list:
    """A traffic preset's id is in the merged Catalog; the word roofline only where the Serving table's users fit
    (its MFU is then a served replica's: with users > B_max, or B_max = 0, there is none to cost serving at)."""
    choice = scenario.crossover.tokens_per_day
    if isinstance(choice, str) and choice not in catalog.traffic_presets:
        return [(("crossover", "tokens_per_day"), choice, unknown("traffic preset", choice, catalog.traffic_presets)
                 + ", or a number of tokens per day")]
    if scenario.crossover.serving_mfu == ROOFLINE:
        b_max, users = serving_capacity(scenario, catalog), scenario.serving.users
        if users > b_max or b_max == 0:
            fit = "not one sequence fits beside the weights (B_max = 0)" if b_max == 0 else \
                f"the {users:,} serving users do not fit: at most {b_max:,} sequences do (B_max)"
            return [(("crossover", "serving_mfu"), ROOFLINE, f"the word roofline takes the Serving table's MFU at its "
                     f"users, and {fit}: give a share (0.10 for 10 %), or fewer serving.users")]
    return []


def serving_capacity(scenario, catalog) -> int:
    """B_max: the sequences the scenario's serving replica holds beside its weights (docs/method.md §6)."""
    from planner.model.replica import Replica  # numpy: when a scenario is checked, not for its schema

    sv = scenario.serving
    draft = sv.speculative.draft_model
    return Replica.of(model=catalog.models[scenario.model], gpu=catalog.gpus[scenario.gpu],
                      weight=catalog.precisions[sv.weight_precision], kv=catalog.precisions[sv.kv_precision],
                      serving=sv, price_per_gpu_hour=catalog.gpus[scenario.gpu].price_per_hour,
                      draft_model=catalog.models.get(draft) if draft else None).b_max

