"""The GPUs section of the HTML summary (docs/method.md §13.7): each Catalog GPU with a price side by side."""

from __future__ import annotations

from markupsafe import Markup

from planner.report.format import money

SUMMARY = [("gpus_cheapest_rent", "Cheapest GPU to rent", "text"), ("gpus_cheapest_own", "Cheapest to own", "text")]


def findings(results) -> list[str]:
    rows, symbol = results.gpus.rows, results.scenario.currency_symbol
    rent = next((r for r in rows if r["cheapest_rent"]), None)
    own = next((r for r in rows if r["cheapest_own"]), None)
    if rent is None:
        return ["No Catalog GPU serves these users: none has room for one sequence beside the weights."]
    said = (f"At launch traffic, {rent['gpu']} is the cheapest of {len(rows)} Catalog GPUs to rent, "
            f"{money(rent['rent_per_month'], symbol)} per average month")
    if own is not None:
        said += f"; {own['gpu']} the cheapest to own, {money(own['own_per_month'], symbol)} per average month"
    return [said + "."]


def charts(results) -> dict[str, Markup]:
    return {}
