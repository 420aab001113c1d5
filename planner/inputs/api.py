"""The API table's inputs (docs/method.md §13), the `api:` section: which Catalog API offers the same traffic is
priced on. Left out: every offer whose model is the scenario's model (none when no offer matches)."""

from __future__ import annotations

from typing import Annotated

from pydantic import BeforeValidator, ConfigDict, Field

from planner.scenario.declare import OfferId, Section, declared
from planner.scenario.errors import quoted

MAX_OFFERS = 8  # the API sheet's fixed offer columns
ALL, NONE = "all", "none"


def _words(value):
    """`all` stands for every Catalog offer (expanded once the Catalog is merged), `none` for no offer."""
    if value == NONE:
        return []
    if value == ALL:
        return [ALL]
    return value


class Api(Section):
    model_config = ConfigDict(title="API offers: the same traffic on a hosted API")

    offers: Annotated[list[OfferId], Field(max_length=MAX_OFFERS), BeforeValidator(_words)] = declared(
        [], "API offer compared", "", f"Catalog API offers priced on the plan's traffic, at most {MAX_OFFERS}: "
        "ids, all or none. Left out: every offer whose model is the scenario's model.", kind="text",
        choices="catalog_api_offer_ids")


SECTIONS = {"api": Api}


def present(scenario) -> bool:
    """The API sheet is there when at least one offer is compared."""
    return bool(scenario.api.offers)


def canonical(scenario) -> list:
    """Left out: the offers of the scenario's model, in Catalog order; `all`: every Catalog offer (at most
    MAX_OFFERS)."""
    from planner.scenario.catalog_entries import merge

    api = scenario.api
    merged, problems = merge(scenario.catalog)
    if problems:
        return []  # the catalog's own problems are said when it is merged
    if "offers" not in api.model_fields_set:
        api.offers = [key for key, offer in merged.api_offers.items() if offer.model == scenario.model]
        return _at_most(api.offers, "the offers of the scenario's model")
    if api.offers == [ALL]:
        api.offers = list(merged.api_offers)
        return _at_most(api.offers, "all")
    return []


def _at_most(offers: list[str], what: str) -> list:
    if len(offers) <= MAX_OFFERS:
        return []
    return [(("api", "offers"), None, f"{what} names {len(offers)} offers; at most {MAX_OFFERS} are compared (the "
             f"API sheet's columns): list the ones to compare")]


def cross_checks(scenario, catalog) -> list:
    """Each compared id is a Catalog offer, once; each Catalog offer's model is a Catalog model."""
    problems = []
    for key in scenario.api.offers:
        if key not in catalog.api_offers:
            problems.append((("api", "offers"), key, f"{quoted(key)} is not an API offer on Catalog; allowed: "
                             f"{', '.join(catalog.api_offers)}, all or none"))
    if len(set(scenario.api.offers)) < len(scenario.api.offers):
        problems.append((("api", "offers"), None, "an offer is listed twice: list each once"))
    for key, offer in catalog.api_offers.items():
        if offer.model not in catalog.models:
            problems.append((("catalog", "api_offers", key, "model"), offer.model, f"{quoted(offer.model)} is not a "
                             f"Catalog model; allowed: {', '.join(catalog.models)}"))
    return problems
