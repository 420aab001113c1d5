"""The API section of the HTML summary (docs/method.md §13): which wins and why, one sentence per compared offer
(the cheapest over the plan first), and the caveat once."""

from __future__ import annotations

from markupsafe import Markup

from planner.engine.api import CAVEAT

SUMMARY = [("api_cheapest_offer", "Cheapest API offer", "text"),
           ("api_cheapest_total_cost", "API over the plan", "money0")]


def findings(results) -> list[str]:
    offers = sorted(results.api.offers, key=lambda o: o["total_cost"])
    return [o["words"] for o in offers] + [CAVEAT]


def charts(results) -> dict[str, Markup]:
    return {}
