"""Warnings (docs/method.md §14.7): named on the Checks sheet, counted on the Cover and listed in the JSON and the
HTML; a warning that applies fails no check and turns no result n/a. The serving warnings against METHOD's worked
numbers at the shipped engines rows (the generic row: τ_0 0.126, τ_L 0.032, τ_seq 0.0044 ms, δ 0.8 ms a layer)."""

from __future__ import annotations

import json

import pytest

from planner.engine import compute
from planner.scenario import parse_scenario
from tests.conftest import DEFAULT_EXAMPLE
from tests.helpers import address


def served(users: int, sequence: int, prompt: int, **serving):
    scenario = parse_scenario({"name": "w", "model": "llama-3.1-8b", "gpu": "h100-sxm", "serving": {
        "users": users, "sequence_length": sequence, "prompt_tokens": prompt, **serving}})
    return compute(scenario).serving


def test_the_burst_dominates_a_mean_at_64_clients_but_not_at_8():
    """METHOD §14.4 example 3 (8B BF16, one H100, s 2,048, o 256, R 10): at c = 64 the burst's 2,218.00/10 = 221.80
    ms is over half of TTFT_c 322.76 ms; at c = 8, 388.30/10 = 38.83 ms is under half of 128.41 ms."""
    at_64, at_8 = served(64, 2304, 2048), served(8, 2304, 2048)
    assert (round(at_64.scalars["ttft_burst_ms"], 2), round(at_64.scalars["ttft_at_concurrency_ms"], 2)) == \
        (2218.00, 322.76)
    assert (round(at_8.scalars["ttft_burst_ms"], 2), round(at_8.scalars["ttft_at_concurrency_ms"], 2)) == \
        (388.30, 128.41)
    assert at_64.warnings["serving_ttft_burst_dominates"] and not at_8.warnings["serving_ttft_burst_dominates"]
    assert served(64, 2304, 2048, client_rounds=1000).warnings["serving_ttft_burst_dominates"] is False


def test_itl_may_understate_a_requests_tpot_where_the_stall_bound_fails():
    """METHOD §14.6: 8B BF16 on one H100, o 6,144; T_pre(B) − (B − 1)·D is +6.89 ms at s 2,048, B 52, and at s 256
    negative from B 9 (B 16: −8.29 ms): the warning applies there only."""
    def margin(table, users):
        return table.scalars["prefill_ms_at_users"] - (users - 1) * table.scalars["ttft_ms"]

    long, short, nine, eight = (served(52, 8192, 2048), served(16, 6400, 256), served(9, 6400, 256),
                                served(8, 6400, 256))
    assert (round(margin(long, 52), 2), round(margin(short, 16), 2)) == (6.89, -8.29)
    assert margin(nine, 9) < 0 < margin(eight, 8)
    assert [t.warnings["serving_itl_may_understate_tpot"] for t in (long, short, nine, eight)] == \
        [False, True, True, False]


def test_users_above_b_max_warn_that_the_ttft_at_c_is_blank():
    """B_max 52 at s 2,048, o 6,144: 60 users leave TTFT_c blank (the users-fit check fails too, as METHOD says)."""
    table = served(60, 8192, 2048)
    assert table.scalars["max_concurrency"] == 52 and table.warnings["serving_ttft_at_concurrency_blank"]
    assert not served(52, 8192, 2048).warnings["serving_ttft_at_concurrency_blank"]


def test_a_warning_that_applies_fails_no_check_and_shows_on_cover_checks_json_and_html(example_files, default_book):
    """The default (32 users, s 2,048, o 6,144, R 10): its burst dominates TTFT_c; every check passes."""
    files = example_files(DEFAULT_EXAMPLE)
    data = json.loads(files["json"].read_text())
    assert data["checks_failed"] == [] and [w["name"] for w in data["warnings"]] == ["serving_ttft_burst_dominates"]
    assert "compare a median with TTFT_med" in data["warnings"][0]["take_care"]
    html = files["html"].read_text()
    assert "<h2>Warnings</h2>" in html and "the opening burst is over half the closed-loop mean TTFT" in html
    cached = {name: default_book.formulas[address(default_book, name)]
              for name in ("checks_all_pass", "checks_warnings", "checks_first_warning",
                           "warn_serving_ttft_burst_dominates")}
    assert cached == {"checks_all_pass": True, "checks_warnings": 1,
                      "checks_first_warning": "Serving: the opening burst is over half the closed-loop mean TTFT",
                      "warn_serving_ttft_burst_dominates": True}


@pytest.mark.spreadsheet
@pytest.mark.parametrize("application", ["libreoffice", "gnumeric"])
def test_the_warnings_follow_their_inputs_live(application, request, default_workbook, tmp_path):
    """Recalculated: the default's one warning; R 1000 in a copy turns it off; 60 users (over B_max 52, the users'
    check failing) raise three: TTFT_c blank, the stall bound (margin below 0 past B 52) and Cost's "serving does not
    fit"; the master check stays TRUE while only a warning applies."""
    from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

    app = request.getfixturevalue(application)
    rounds, crowded = tmp_path / "rounds.xlsx", tmp_path / "crowded.xlsx"
    set_cells(default_workbook, rounds, {"serving_client_rounds": 1000})
    set_cells(default_workbook, crowded, {"serving_users": 60})
    books = [build_in_memory(scenario_with(**{"serving.client_rounds": 1000}), like=rounds),
             build_in_memory(scenario_with(**{"serving.users": 60}), like=crowded)]
    values = recalculated(app, [default_workbook, rounds, crowded], [None, *books])
    book = books[0]
    assert [named(v, book, "checks_warnings") for v in values] == [1, 0, 3]
    assert [named(v, book, "checks_all_pass") for v in values] == [True, True, False]
    assert named(values[2], book, "warn_serving_ttft_at_concurrency_blank") is True
