"""METHOD.md §3 against numbers worked by hand: the crossing days, the cumulative table, the presets, "never"
without traffic, the JSON and HTML, and bad crossover inputs."""

from __future__ import annotations

import json

import pytest

from planner.engine import compute
from planner.engine.crossover import NEVER
from planner.output import results_json
from planner.report import render_html
from tests.helpers import refused, scenario_with

PSI_405B, PSI_8B = 405_853_388_800, 8_030_261_248
T = 15.6e12
H100_AT_10 = 989e12 * 0.10 * 3600  # operations per H100-hour at 10 % MFU
H_405B = 6 * PSI_405B * T / (989e12 * 0.40 * 3600)  # 26,673,882.98 training GPU-hours (METHOD.md §2)


def crossover(**changes):
    return compute(scenario_with(**{"model": "llama-3.1-405b", **changes})).crossover


def test_405b_popular_app_crosses_on_day_468_in_operations_and_117_in_gpu_hours():
    s = crossover().scalars
    assert s["tokens_per_day"] == 1e11  # the popular-app preset
    assert s["serving_flops_per_day"] == pytest.approx(2 * PSI_405B * 1e11)  # 8.117e22
    assert s["day_flops"] == pytest.approx(468, rel=1e-12)  # 3 · 15.6e12 / 1e11
    assert s["serving_gpu_hours_per_day"] == pytest.approx(2 * PSI_405B * 1e11 / H100_AT_10)  # 227,981.9
    assert s["day_gpu_hours"] == pytest.approx(117, rel=1e-12)  # 468 × 10 % / 40 %
    assert s["serving_cost_per_day"] == pytest.approx(2 * 2 * PSI_405B * 1e11 / H100_AT_10)  # at 2.00
    # training is read from Hours, H before the productive share
    assert s["training_flops"] == pytest.approx(6 * PSI_405B * T)
    assert s["training_gpu_hours"] == pytest.approx(H_405B)
    assert crossover(**{"hours.productive_share": 0.5}).scalars["training_gpu_hours"] == pytest.approx(H_405B)


def test_the_3t_identity_and_recomputations_4t():
    """Serving matches training after 3·T served tokens (6/2), whatever the model; 4·T with recomputation (8/2)."""
    for model in ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b"):
        s = crossover(model=model, **{"crossover.tokens_per_day": 2.5e11}).scalars
        assert s["break_even_tokens"] == pytest.approx(3 * T)
        assert s["break_even_over_training_tokens"] == pytest.approx(3)
        assert s["day_flops"] == pytest.approx(3 * T / 2.5e11)  # 187.2 days
    s = crossover(**{"hours.activation_recompute": True}).scalars
    assert s["break_even_over_training_tokens"] == pytest.approx(4)
    assert s["day_flops"] == pytest.approx(624, rel=1e-12)  # 4 · 15.6e12 / 1e11
    assert s["day_gpu_hours"] == pytest.approx(156, rel=1e-12)  # H × 8/6 against the same serving: 117 × 4/3


def test_lower_serving_mfu_brings_the_gpu_hours_crossing_earlier():
    s = crossover(**{"crossover.serving_mfu": 0.05}).scalars
    assert s["day_flops"] == pytest.approx(468, rel=1e-12)  # operations do not depend on MFU
    assert s["day_gpu_hours"] == pytest.approx(58.5, rel=1e-12)  # 468 × 5 % / 40 %
    # serving at training's MFU crosses the same day in both; above it, later in GPU-hours
    assert crossover(**{"crossover.serving_mfu": 0.40}).scalars["day_gpu_hours"] == pytest.approx(468)
    assert crossover(**{"crossover.serving_mfu": 0.80}).scalars["day_gpu_hours"] == pytest.approx(936)


def test_the_crossing_scales_with_the_gpu_and_the_tokens():
    s = crossover(gpu="b200", **{"hours.tokens": 2e12, "crossover.tokens_per_day": "product"}).scalars
    assert s["day_flops"] == pytest.approx(3 * 2e12 / 1e10)  # 600 days: the GPU does not matter here
    assert s["day_gpu_hours"] == pytest.approx(150)  # nor here: both sides run on the same B200
    assert s["serving_gpu_hours_per_day"] == pytest.approx(2 * PSI_405B * 1e10 / (2250e12 * 0.10 * 3600))


def test_the_cumulative_table_has_101_rows_from_launch_to_the_horizon():
    table = crossover()
    rows = table.cumulative
    assert len(rows) == 101 and [r["step"] for r in rows] == list(range(101))
    assert rows[0]["day"] == 0 and rows[1]["day"] == pytest.approx(7.3) and rows[50]["day"] == 365
    assert rows[-1]["day"] == 730
    per_day = 2 * PSI_405B * 1e11
    for row in (rows[0], rows[37], rows[-1]):
        assert row["training_flops"] == pytest.approx(6 * PSI_405B * T)  # flat: paid once
        assert row["serving_flops"] == pytest.approx(row["day"] * per_day)
        assert row["total_flops"] == pytest.approx(6 * PSI_405B * T + row["day"] * per_day)
        assert row["training_gpu_hours"] == pytest.approx(H_405B)
        assert row["serving_gpu_hours"] == pytest.approx(row["day"] * per_day / H100_AT_10)
        assert row["total_cost"] == pytest.approx(2.0 * (H_405B + row["day"] * per_day / H100_AT_10))
    # at the horizon serving has taken 730 × 227,981.9 = 166.4 M GPU-hours, 6.24 times training's 26.67 M
    assert rows[-1]["serving_gpu_hours"] == pytest.approx(730 * per_day / H100_AT_10)
    assert rows[-1]["serving_gpu_hours"] / rows[-1]["training_gpu_hours"] == pytest.approx(730 / 117)
    # the horizon rescales the table
    assert crossover(**{"crossover.horizon_days": 90}).cumulative[-1]["day"] == 90
    assert crossover(**{"crossover.horizon_days": 90}).cumulative[1]["day"] == pytest.approx(0.9)


def test_every_preset_with_its_two_crossing_days():
    presets = {row["preset"]: row for row in crossover().presets}
    assert list(presets) == ["pilot", "team-assistant", "product", "popular-app", "global-app"]
    by_hand = {"pilot": (468_000, 117_000), "team-assistant": (46_800, 11_700), "product": (4_680, 1_170),
               "popular-app": (468, 117), "global-app": (46.8, 11.7)}
    for name, (operations, gpu_hours) in by_hand.items():
        assert presets[name]["day_flops"] == pytest.approx(operations, rel=1e-12), name
        assert presets[name]["day_gpu_hours"] == pytest.approx(gpu_hours, rel=1e-12), name


def test_presets_added_and_overridden_in_the_scenarios_catalog():
    table = crossover(**{"catalog.traffic_presets": {"viral": 5e12, "popular-app": 2e11},
                         "crossover.tokens_per_day": "viral"})
    presets = {row["preset"]: row for row in table.presets}
    assert list(presets)[-1] == "viral"
    assert presets["popular-app"]["day_flops"] == pytest.approx(234)  # 3 · 15.6e12 / 2e11
    assert table.scalars["day_flops"] == pytest.approx(9.36)  # 3 · 15.6e12 / 5e12
    assert table.scalars["day_gpu_hours"] == pytest.approx(2.34)


def test_zero_traffic_never_crosses():
    results = compute(scenario_with(**{"model": "llama-3.1-405b", "crossover.tokens_per_day": 0,
                                       "catalog.traffic_presets": {"idle": 0}}))
    s = results.crossover.scalars
    assert (s["day_flops"], s["day_gpu_hours"]) == (NEVER, NEVER) == ("never", "never")
    assert results.headline["crossover_day_flops"] == "never"
    assert results.crossover.cumulative[-1]["serving_gpu_hours"] == 0
    assert results.crossover.cumulative[-1]["total_flops"] == pytest.approx(6 * PSI_405B * T)
    idle = {row["preset"]: row for row in results.crossover.presets}["idle"]
    assert (idle["day_flops"], idle["day_gpu_hours"]) == ("never", "never")
    data = json.loads(results_json(results))
    assert data["headline"]["crossover_day_gpu_hours"] == "never"
    assert data["tables"]["crossover"]["day_flops"] == "never"
    html = render_html(results, generated="2026-01-01")
    assert "With no traffic (0 tokens a day), serving never overtakes training, in operations or in GPU-hours." \
        in html


def test_json_holds_the_table():
    data = json.loads(results_json(compute(scenario_with(model="llama-3.1-405b"))))
    table = data["tables"]["crossover"]
    assert data["headline"]["crossover_day_flops"] == pytest.approx(468)
    assert len(table["cumulative"]) == 101 and len(table["presets"]) == 5
    assert data["scenario"]["crossover"] == {"tokens_per_day": "popular-app", "serving_mfu": 0.1, "horizon_days": 730}


def test_html_findings_worked_by_hand():
    html = render_html(compute(scenario_with(model="llama-3.1-405b")), generated="2026-01-01")
    start = html.index('<section id="crossover">')
    section = html[start:html.index("</section>", start)]
    # 2Ψ·1e11 = 8.12e22 operations a day; ÷ (989e12 · 0.10 · 3600) = 227,982 GPU-hours, at 2.00: 455,964
    assert "Serving llama-3.1-405b at the popular-app preset&#39;s 100 billion tokens a day takes 8.12e22 " \
           "operations, 227,982 GPU-hours and $455,964 a day on the h100-sxm at 10 % serving MFU." in html
    assert "Serving overtakes training on day 468.0 in operations, day 117.0 in GPU-hours: earlier in GPU-hours " \
           "because serving runs at 10 % of peak against training&#39;s 40 %." in html
    assert "after 3 times the training tokens: 46.8 trillion served tokens." in html
    # 730 × 227,981.9 = 166.43 M GPU-hours, at 2.00 = 332,853,583
    assert "Over the 730-day horizon serving takes 166.43 M GPU-hours ($332,853,583) against training&#39;s " \
           "26.67 M ($53,347,766)." in html
    assert section.count("<svg") == 2
    assert "Crossing: day 468.0" in section and "Crossing: day 117.0" in section
    assert '<tr class="chosen"><th>popular-app</th><td class="n">100 billion</td>' in section


def test_html_says_when_the_crossing_falls_beyond_the_horizon():
    html = render_html(compute(scenario_with(**{"model": "llama-3.1-405b", "crossover.tokens_per_day": "product"})),
                       generated="2026-01-01")
    assert "on day 4,680.0 in operations, day 1,170.0 in GPU-hours" in html
    assert "in operations serving does not overtake training within it." in html


@pytest.mark.parametrize("section, fragment", [
    ("{tokens_per_day: viral}", "crossover.tokens_per_day: value 'viral' is not allowed: unknown traffic preset "
                                "'viral' allowed: pilot, team-assistant, product, popular-app, global-app, or a "
                                "number of tokens per day"),
    ("{tokens_per_day: popular_app}", "crossover.tokens_per_day: value 'popular_app' is not allowed: unknown "
                                      "traffic preset 'popular_app'; did you mean 'popular-app'?"),
    ("{tokens_per_day: -1e9}", "crossover.tokens_per_day: value -1000000000 is not allowed: Input should be "
                               "greater than or equal to 0"),
    ("{tokens_per_day: 2.5}", "crossover.tokens_per_day: value 2.5 is not allowed: Input should be a valid integer"),
    ("{tokens_per_day: 2e18}",
     "crossover.tokens_per_day: value 2000000000000000000 is not allowed: Input should be less than or "
                               "equal to 1000000000000000000"),
    ("{tokens_per_day: true}", "crossover.tokens_per_day: value True is not allowed: Input should be a valid "
                               "integer"),
    ("{serving_mfu: 0}", "crossover.serving_mfu: value 0 is not allowed: Input should be greater than or equal to "
                         "0.001"),
    ("{serving_mfu: 1.5}", "crossover.serving_mfu: value 1.5 is not allowed: Input should be less than or equal "
                           "to 1"),
    ("{serving_mfu: 10%}", "crossover.serving_mfu: value '10%' is not allowed: the word roofline, or a number "
                           "(0.10 for 10 %)"),
    ("{horizon_days: 0}", "crossover.horizon_days: value 0 is not allowed: Input should be greater than or equal "
                          "to 1"),
    ("{horizon_days: 3654}", "crossover.horizon_days: value 3654 is not allowed: Input should be less than or "
                             "equal to 3653"),
    ("{horizon_days: 7.5}", "crossover.horizon_days: value 7.5 is not allowed: Input should be a valid integer"),
    ("{horizon: 730}", "crossover.horizon: unknown key; did you mean 'horizon_days'?"),
])
def test_bad_crossover_inputs_exit_2(tmp_path, section, fragment):
    output, path = refused(tmp_path, f"name: x\ncrossover: {section}\n")
    assert f"{path}:2: {fragment}" in output


@pytest.mark.parametrize("presets, fragment", [
    ("{viral: -5}", "catalog.traffic_presets.viral: value -5 is not allowed: Input should be greater than or equal "
                    "to 0"),
    ("{viral: lots}", "catalog.traffic_presets.viral: value 'lots' is not allowed: Input should be a valid integer"),
    ("{'a*': 5}", "catalog.traffic_presets.a*.[key]: value 'a*' is not allowed: a traffic preset id may not contain "
                  "* ? or ~"),
])
def test_bad_traffic_presets_exit_2(tmp_path, presets, fragment):
    output, path = refused(tmp_path, f"name: x\ncatalog:\n  traffic_presets: {presets}\n")
    assert fragment in output and f"{path}:3" in output


def test_totals_over_the_horizon_by_hand():
    """Finance's totals: 8B served at popular-app traffic (1e11 tokens a day) at 10 % serving MFU on an H100 at
    2.00 for 730 days, beside the training cost (527,772.48 GPU-hours at 40 % MFU)."""
    from planner.engine import compute
    from planner.scenario import DEFAULT

    headline = compute(DEFAULT).headline
    serving_hours_a_day = 2 * 8_030_261_248 * 1e11 / (989e12 * 0.10 * 3600)  # 4,510.9 GPU-hours a day
    training = 6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.40 * 3600) * 2.00  # $1,055,545
    assert headline["crossover_serving_cost_over_horizon"] == pytest.approx(730 * serving_hours_a_day * 2.00)
    assert headline["crossover_total_cost_over_horizon"] == pytest.approx(training + 730 * serving_hours_a_day * 2)
    assert headline["crossover_serving_cost_per_million_tokens"] == pytest.approx(serving_hours_a_day * 2 / 1e5)
    assert round(headline["crossover_serving_cost_over_horizon"]) == 6_585_879  # 730 × 4,510.9 × 2.00
