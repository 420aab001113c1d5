"""The HTML summary: findings from the engine's numbers, self-contained, scenario text escaped."""

import re

import pytest

from planner.engine import compute
from planner.report import render_html
from planner.scenario import DEFAULT, parse_scenario

SVG_NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def html_of(scenario) -> str:
    return render_html(compute(scenario), generated="2025-01-01")


@pytest.fixture(scope="module")
def default_html():
    return html_of(DEFAULT)


def test_zero3_finding_worked_by_hand(default_html):
    # METHOD.md §1: 16Ψ/8 + 34·8192·4096·32 bytes = 16.06 + 36.51 GB
    hand = (16 * 8_030_261_248 / 8 + 34 * 8192 * 4096 * 32) / 1e9
    assert f"{hand:.1f}" == "52.6"
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
