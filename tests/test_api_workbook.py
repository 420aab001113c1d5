"""The API sheet (docs/method.md §13) recalculated in LibreOffice and Gnumeric: example E's figures, worked by hand
in METHOD.md, read from the recalculated workbook; every formula cell equal to the engine (as `planner verify`
compares); a bad offer (an id not on Catalog, a negative price) turns its check FALSE and the offer's figures n/a,
never an error value."""

from __future__ import annotations

import re

import pytest

from planner import xlsx
from planner.audit import same
from planner.workbook.cover import NOT_AVAILABLE
from tests.conftest import ROOT
from tests.helpers import UNCOMPARED, address, catalog_cells, named, recalculated, set_cells

pytestmark = pytest.mark.spreadsheet

EXAMPLE = ROOT / "examples" / "api-1-8b-chat-against-hosted-apis.yaml"  # the worked example E


def first_cell(book, name: str) -> tuple[str, str]:
    """The first cell of a range name (an offer column's slot 1)."""
    sheet, ref = address(book, name)
    return sheet, ref.split(":")[0]


def slot(book, name: str, k: int) -> tuple[str, str]:
    sheet, a1 = first_cell(book, name)
    column, row = re.fullmatch(r"([A-Z]+)(\d+)", a1).groups()
    return sheet, f"{column}{int(row) + k - 1}"


@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_example_e_on_the_api_sheet(app, example_files, request):
    """Every formula cell equals the engine; DeepInfra is the cheapest at $71,044 over the plan against the fleet's
    $280,320; Together costs 864,000 × 365 × $0.00147456 = $465,017.24 and breaks even at 384/127.40 req/s =
    1,600,000,000 output tokens a day, where the fleet's 3 replicas (8 GPUs, $384 a day) meet the API."""
    path = example_files(EXAMPLE)["xlsx"]
    book = xlsx.read(path, cells=False)
    if app == "libreoffice":  # every formula cell against the engine, as `planner verify` compares
        [values] = recalculated(request.getfixturevalue(app), [path])
    else:  # the API sheet's and the Cover's cells (main's catalog_ids_plain check is FALSE in Gnumeric: a TRUE
        # added to a number inside SUMPRODUCT is #VALUE! there; its own tests say so)
        [values] = recalculated(request.getfixturevalue(app), [path], [UNCOMPARED])
        written = xlsx.read(path)
        cached = written.values()
        compared = [(cell, cached.get(cell, "")) for cell in written.formulas() if cell[0] == "API"]
        assert len(compared) > 100
        for cell, value in compared:
            assert same(value, values.get(cell)), (cell, value, values.get(cell))
    assert named(values, book, "api_cheapest_offer") == "deepinfra-llama-3.1-8b-turbo"
    assert round(named(values, book, "api_cheapest_total_cost")) == 71_044
    assert named(values, book, "api_serving_total_cost") == pytest.approx(280_320, rel=1e-9)
    assert named(values, book, "api_cheapest_cost_per_request") == pytest.approx(0.00022528, rel=1e-12)
    assert named(values, book, "api_cheapest_break_even_tokens_per_day") in ("", None)  # never
    assert values[slot(book, "api_offer_total_cost", 1)] == pytest.approx(864_000 * 365 * 0.00147456, rel=1e-9)
    assert values[slot(book, "api_offer_break_even_tokens_per_day", 1)] == pytest.approx(1.6e9, rel=1e-9)
    assert values[slot(book, "api_offer_break_even_day_cost", 1)] == pytest.approx(384, rel=1e-12)
    assert values[slot(book, "api_offer_break_even", 2)] == "never"
    assert values[slot(book, "api_offer_floor_per_request", 2)] == pytest.approx(0.00078428, rel=1e-4)
    answer = named(values, book, "api_answer")
    assert answer.startswith("The same traffic on deepinfra-llama-3.1-8b-turbo would cost $71,044 over the plan")
    assert "above 1,600,000,000 output tokens a day (260,417 requests of 2,048 prompt and 6,144 output tokens)" in \
        answer
    assert same(True, named(values, book, "ok_api_break_even_holds"))


@pytest.mark.parametrize("app", ["libreoffice", "gnumeric"])
def test_a_bad_offer_turns_its_check_false_and_its_figures_na(app, example_files, request, tmp_path):
    """An offer id typed on Inputs that Catalog lacks; a negative price typed on Catalog: the input's check FALSE (an
    id from Catalog whose row is valid; the row's Valid too), the slot's price per attempt, per output million and
    total "n/a: see Checks", the master check failing, no error value."""
    path = example_files(EXAMPLE)["xlsx"]
    book = xlsx.read(path, cells=False)
    unknown, negative = tmp_path / "unknown.xlsx", tmp_path / "negative.xlsx"
    set_cells(path, unknown, {"api_offers_1": "no-such-offer"})
    set_cells(path, negative, catalog_cells(path, [("catalog_api_offer", "deepinfra-llama-3.1-8b-turbo",
                                                    "price_output_per_million", -0.03)]))
    found = recalculated(request.getfixturevalue(app), [unknown, negative], [UNCOMPARED, UNCOMPARED])
    for values in found:
        errors = [(cell, v) for cell, v in values.items() if isinstance(v, str) and v.startswith(("#", "Err:"))]
        assert errors == []
        assert same(False, named(values, book, "checks_all_pass"))
    unknown_values, negative_values = found
    assert same(False, named(unknown_values, book, "ok_api_offers_1"))  # "an API offer id from Catalog"
    assert same(False, named(negative_values, book, "ok_catalog_api_offer"))  # the row's Valid column
    assert same(False, named(negative_values, book, "ok_api_offers_2"))  # it chooses an invalid row
    for values, k in ((unknown_values, 1), (negative_values, 2)):
        for name in ("api_offer_cost_per_request", "api_offer_total_cost", "api_offer_cost_per_million_output"):
            assert values[slot(book, name, k)] == NOT_AVAILABLE, (k, name)
    # the other offer stands beside an unknown id (a Catalog row outside its limits fails the whole block's check)
    assert unknown_values[slot(book, "api_offer_total_cost", 2)] == pytest.approx(71_044, abs=0.5)
