"""The HTML summary: findings from the engine's numbers, self-contained, scenario text escaped."""

import re

import pytest

from planner.engine import compute
from planner.report import render_html
from planner.scenario import DEFAULT, parse_scenario

SVG_NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def html_of(scenario) -> str:
    return render_html(compute(scenario), generated="2025-01-01")


@pytest.fixture(scope="session")
def default_html():
    return html_of(DEFAULT)


def test_zero3_finding_worked_by_hand(default_html):
    # METHOD.md §1: 16Ψ/8 + 34·8192·4096·32 bytes = 16.06 + 36.51 = 52.57 GB
    assert "llama-3.1-8b with zero3 on 8 GPUs needs 52.6 GB per GPU; the h100-sxm has 80 GB: it fits" \
        in default_html


def test_ddp_does_not_fit():
    html = html_of(parse_scenario({"name": "x", "memory": {"strategy": "ddp"}}))
    assert "llama-3.1-8b with ddp on 8 GPUs needs 165.0 GB per GPU; the h100-sxm has 80 GB: it does not fit" \
        in html


def test_self_contained(default_html):
    assert "<svg" in default_html
    assert "<script" not in default_html.lower()
    assert set(re.findall(r"https?://[^\"'\s<>]*", default_html)) <= SVG_NAMESPACES
    assert "<link" not in default_html and "@import" not in default_html and "@font-face" not in default_html


def test_same_scenario_same_page(default_html):
    assert html_of(DEFAULT) == default_html


def test_scenario_text_is_escaped():
    html = html_of(parse_scenario({"name": "<script>alert(1)</script>",
                                   "description": '=HYPERLINK("http://x","y")'}))
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "<script" not in html.lower()
    assert "=HYPERLINK(&#34;http://x&#34;,&#34;y&#34;)" in html
    assert 'href="http://x"' not in html


def test_custom_model_name_is_escaped():
    model = {"name": "<b>bold</b>", "layers": 2, "hidden": 64, "heads": 4, "kv_heads": 2, "ffn": 128, "vocab": 1000}
    html = html_of(parse_scenario({"name": "x", "model": model}))
    assert "&lt;b&gt;bold&lt;/b&gt; with zero3 on 8 GPUs" in html
    assert "<b>bold</b>" not in html


# Hours (METHOD.md §2), worked by hand: H = 6·Ψ·T / (peak·1e12 · MFU · 3600), Ψ(405B) = 405,853,388,800,
# T = 15.6e12, H100 peak 989 TFLOPS: H = 26,673,883 GPU-hours.


@pytest.fixture(scope="session")
def html_405b():
    return html_of(parse_scenario({"name": "x", "model": "llama-3.1-405b"}))


def test_405b_hours_worked_by_hand(html_405b):
    assert "Training llama-3.1-405b on 15.6 trillion tokens takes 3.80e25 operations: 26.67 M GPU-hours on the " \
           "h100-sxm at 40 % MFU." in html_405b
    # allocated = H (productive share 1); cost at the H100's 2.00 per GPU-hour; days = H / 1024 GPUs / 24
    assert "26.67 M GPU-hours are allocated: they cost $53,347,766 at $2.00 per GPU-hour and take 1,085.4 days on " \
           "1,024 GPUs." in html_405b


def test_405b_against_meta_reported(html_405b):
    # 30.84 M / 26.67 M = 1.16
    assert "Meta reports 30.84 M H100-hours, 1.16 times this calculation: reported hours include restarts" \
        in html_405b
    assert "suggest they ran at a far lower MFU than 405B" in html_405b  # the workbook's note, below the table


def test_405b_allocation_options(html_405b):
    # each option: H at its MFU, days = H / GPUs / 24: 16,384 at 41 %: 26.02 M, 66.2 days; 8,192 at 43 %: 24.81 M,
    # 126.2 days; the run itself, 1,024 GPUs at 40 %: 1,085.4 days
    assert "Against this run, 16,384 GPUs at 41 % MFU finish in 66.2 days (1,085.4 for the run) for 26.0 M " \
           "GPU-hours; 8,192 at 43 % use the fewest, 24.8 M, in 126.2 days." in html_405b


def test_405b_recompute_at_lower_mfu():
    html = html_of(parse_scenario({"name": "x", "model": "llama-3.1-405b",
                                   "hours": {"activation_recompute": True, "mfu": 0.30}}))
    # 26.67 M × 8/6 × 0.40/0.30 = 47.42 M
    assert "with activation recomputation (8 operations per parameter per token instead of 6): 47.42 M GPU-hours " \
           "on the h100-sxm at 30 % MFU." in html


def test_hours_charts(html_405b):
    start = html_405b.index('<section id="hours">')
    hours = html_405b[start:html_405b.index("</section>", start)]
    assert hours.count("<svg") == 2
    assert "Calculated against reported H100-hours" in hours and "The run and its allocation options" in hours


def test_charts_escape_their_text_and_start_their_value_axes_at_zero():
    from planner.report import plot
    svg = plot.Chart('costs of <b>"A"</b>').columns(["<script>x</script>", "B"], [("cost", [3, 7], plot.BLUE)]).svg()
    assert "<script>" not in svg and "&lt;script&gt;x&lt;/script&gt;" in svg and "&lt;b&gt;" in svg
    assert '>0</text>' in svg and '>8</text>' in svg  # ticks 0, 2, 4, 6, 8 for a top value of 7
    assert plot.nice_ticks(7) == [0, 2, 4, 6, 8] and plot.nice_ticks(26.67) == [0, 10, 20, 30]
    assert [plot.compact(v) for v in (1500, 2.5e6, 3e9, 7.52e23)] == ["1,500", "2.5M", "3B", "7.5e23"]


def test_each_axis_title_is_drawn_centred_along_its_axis_and_escaped():
    """The three axis titles, one way: the left rotated up, the right rotated down, the bottom one level; each
    centred (text-anchor middle) and escaped; a title left empty draws nothing."""
    from planner.report import plot
    chart = plot.Chart("t", x_label="days <1>", y_label="GPU-hours", y2_label="cost & more")
    svg = chart.columns(["A"], [("x", [1], plot.BLUE)]).svg()
    assert svg.count('text-anchor="middle">GPU-hours</text>') == 1 and 'rotate(-90)" text-anchor="middle">GPU' in svg
    assert 'rotate(90)" text-anchor="middle">cost &amp; more</text>' in svg
    assert 'text-anchor="middle">days &lt;1&gt;</text>' in svg
    bare = plot.Chart("t").columns(["A"], [("x", [1], plot.BLUE)]).svg()
    assert "rotate(" not in bare


def test_the_inputs_show_labels_units_and_values_as_the_workbook_does(default_html):
    start = default_html.index("<h2>Inputs</h2>")
    inputs = default_html[start:default_html.index("<h2>Method and caveats</h2>")]
    assert '<th>Model FLOPs utilisation (MFU)</th><td class="n">40 %</td><td>of peak</td>' in inputs
    assert '<th>Training tokens T</th><td class="n">15.6</td><td>T tokens</td>' in inputs
    assert '<th>SLO: time to first token</th><td class="n">2,000</td><td>ms</td>' in inputs
    assert "Training hours and cost" in inputs  # each table's section, titled as on the Inputs sheet
    assert "hours.mfu" not in inputs and "15,600,000,000,000" not in inputs


def test_the_attainment_chart_names_its_benchmarks_and_its_caption_what_it_draws():
    from planner.scenario import load_scenario
    from tests.conftest import ROOT

    html = html_of(load_scenario(ROOT / "examples" / "goodput-2-benchmark-logs.yaml"))
    start = html.index("Attainment against request rate")
    chart = html[start:html.index("</figure>", start)]
    assert "Benchmark 1" not in chart and "1: h100 vLLM" in chart
    assert "diamond" not in chart and "dotted vertical line" in chart
    # a long name wraps within the legend instead of running off the drawing
    assert "2: h200 vLLM (older" in chart and "benchmark_serving.py)</tspan>" in chart


def test_the_costs_dates_read_as_dates_not_serial_days(default_html):
    """The default's plan starts 2027-01-01 (the first of the month after 2026-12-02); training runs 21.475 days,
    so the owned GPUs are bought on launch, 2027-01-22, and their 4-year useful life (4 × 365.25 days) ends on
    2031-01-22. Before: "46409.47511712167" and "47870.47511712167", serial days."""
    def shown(label: str) -> str:
        return re.search(re.escape(label) + r'</th><td class="n">([^<]*)<', default_html)[1]

    assert shown("Bought on") == "2027-01-22"
    assert shown("Useful life ends") == "2031-01-22"
    assert not re.search(r">\d{5}\.\d+<", default_html)


def test_wide_tables_fit_a4_text_cells_wrap_and_the_gpus_come_in_two_tables():
    """Measured with scripts/layout-check.js in Chromium at 680 px (A4's 180 mm): the GPUs' eleven columns ran to
    960 px, the Scenarios' text cells to 1,090 px (a sentence that may not wrap). Now the GPUs print as two tables
    (training and serving; rent against own) and a cell of words in a number column may wrap."""
    from pathlib import Path

    from planner.scenario import load_scenario
    html = html_of(load_scenario(Path(__file__).parents[1] / "examples" / "scenarios-1-70b-base-low-high.yaml"))
    gpus = html[html.index('<section id="gpus">'):]
    gpus = gpus[:gpus.index("</section>")]
    assert "<h3>Training and serving</h3>" in gpus and "<h3>Rent against own</h3>" in gpus
    assert [table.count("<th class=\"n wrap\">") for table in gpus.split("<table")[1:]] == [6, 4]
    cells = re.findall(r'<td class="n([^"]*)">Not in the total[^<]*</td>', html)
    assert cells and all("wrap" in classes for classes in cells)
