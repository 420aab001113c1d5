"""A batch's index.html and summary.xlsx as people search them: one row per scenario with its key results, sorted
and filtered in headless Chromium by the page's own script (and at 10,000 rows, within a second or two); the page
reads without the script; a scenario's text never becomes markup or a formula; summary.xlsx's autofilter, frozen
headings and a two-axis sweep's pivot-style sheet."""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from pathlib import Path

import openpyxl
import pytest
from markupsafe import escape

from planner import xlsx
from planner.audit import is_summary
from planner.batch import KEY_COLUMNS, Outcome, Spool, record_of, run_batch, write_index
from tests.conftest import _required

HOSTILE = "<img src=x onerror=alert(1)> =HYPERLINK(\"http://x\")"
PRICES = (3, 1, 2)  # the sweep's order, not the plan total's


@pytest.fixture
def swept(tmp_path, small_workbooks):
    """A two-axis sweep (price × strategy: 6 variants) and a scenario with a hostile name, written."""
    (tmp_path / "a.yaml").write_text(f"name: p\nsweep:\n  price_per_gpu_hour: {list(PRICES)}\n"
                                     f"  memory.strategy: [ddp, zero3]\n")
    (tmp_path / "b.yaml").write_text(f"name: {json.dumps(HOSTILE)}\ndescription: '=1+1'\n")
    out = tmp_path / "out"
    outcomes = run_batch([str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml")], out, jobs=1, progress=False)
    assert len(outcomes) == 7 and all(o.ok for o in outcomes)
    totals = {o.name: json.loads((out / f"{o.slug}.json").read_text())["headline"]["plan_total_cost"]
              for o in outcomes}
    return out, totals


def name_of(price, strategy) -> str:
    return f"p [price_per_gpu_hour={price}, memory.strategy={strategy}]"


def test_the_index_has_a_row_per_scenario_with_its_key_results_and_files(swept):
    out, totals = swept
    page = (out / "index.html").read_text()
    headings = re.findall(r"<th(?: class=\"n\")?>([^<]*)</th>", page[page.index("<thead>"):page.index("</thead>")])
    assert [html.unescape(h) for h in headings] == ["Scenario", *[h for _, h, _ in KEY_COLUMNS], "Failed checks",
                                                    "Files"]
    body = page[page.index("<tbody>"):page.index("</tbody>")]
    assert body.count("<tr") == 7
    for name, total in totals.items():
        row = next(r for r in body.split("<tr")[1:] if str(escape(name)) in r)
        assert f'data-v="{total!r}"' in row  # the plan's total as its JSON gives it
    assert 'href="p-price-per-gpu-hour-1-memory-strategy-zero3.xlsx"' in body


def test_a_scenarios_text_never_becomes_markup_or_a_formula(swept):
    out, _ = swept
    page = (out / "index.html").read_text()
    assert "<img" not in page and str(escape(HOSTILE)) in page
    sheet = openpyxl.load_workbook(out / "summary.xlsx")["Summary"]
    cell = next(row[0] for row in sheet.iter_rows(min_row=2) if row[0].value == HOSTILE)
    assert cell.data_type == "s"  # text, not a formula
    assert all(c.data_type != "f" for row in sheet.iter_rows() for c in row)


def test_the_summary_has_an_autofilter_frozen_headings_and_a_pivot_sheet_per_two_axis_sweep(swept):
    out, totals = swept
    book = openpyxl.load_workbook(out / "summary.xlsx")
    assert book.sheetnames == ["Summary", "Sweep 1"]
    summary = book["Summary"]
    assert summary.auto_filter.ref == f"A1:{openpyxl.utils.get_column_letter(summary.max_column)}8"
    assert summary.freeze_panes == "B2"
    headings = [c.value for c in summary[1]]
    assert headings[4:4 + len(KEY_COLUMNS)] == [heading for _, heading, _ in KEY_COLUMNS]
    assert is_summary(xlsx.read(out / "summary.xlsx"))  # verify and audit skip it, pivot sheet and all
    pivot = [list(row) for row in book["Sweep 1"].iter_rows(values_only=True)]
    assert pivot[0][0].endswith("a.yaml: the sweep's price_per_gpu_hour down, memory.strategy across")
    assert pivot[2][0] == "The plan's total" and pivot[3] == ["price_per_gpu_hour \\ memory.strategy", "ddp", "zero3"]
    for i, price in enumerate(PRICES, start=4):  # the sweep's own order
        assert pivot[i] == [str(price), pytest.approx(totals[name_of(price, "ddp")], rel=1e-15),
                            pytest.approx(totals[name_of(price, "zero3")], rel=1e-15)]


# In the browser -----------------------------------------------------------------------------------------------------
CHECK = """<pre id="result"></pre><script>
(function () {
  var table = document.getElementById("scenarios"), heads = table.tHead.rows[0].cells;
  var inputs = table.tHead.rows[1].querySelectorAll("input"), found = {};
  function names() {
    return Array.prototype.filter.call(table.tBodies[0].rows, function (row) { return !row.hidden; })
      .map(function (row) { return row.cells[0].firstChild.textContent; });
  }
  function typed(i, text) { inputs[i].value = text; inputs[i].dispatchEvent(new Event("input")); }
  found.opened = performance.now();
  found.initial = names();
  var start = performance.now();
  heads[COLUMN].click();
  found.sort_ms = performance.now() - start;
  found.ascending = names();
  heads[COLUMN].click();
  found.descending = names();
  start = performance.now();
  typed(COLUMN, "> THRESHOLD");
  found.filter_ms = performance.now() - start;
  found.above = names();
  found.shown = document.getElementById("shown").textContent;
  typed(0, "ZERO3");
  found.both = names();
  typed(COLUMN, "");
  typed(0, "");
  found.cleared = names().length;
  document.getElementById("result").textContent = JSON.stringify(found);
}());
</script></body>"""


def in_chromium(page: Path, column: int, threshold: float, tmp_path: Path) -> dict:
    """The index page opened in headless Chromium with CHECK after its own script: what it showed after each step."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    _required(chromium, "Chromium (apt-get install chromium)")
    check = page.with_name("check.html")
    script = CHECK.replace("COLUMN", str(column)).replace("THRESHOLD", repr(threshold))
    check.write_text(page.read_text().replace("</body>", script))
    done = subprocess.run([chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                           "--disable-component-update", "--disable-sync", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'chromium'}", "--dump-dom", check.as_uri()],
                          capture_output=True, text=True, timeout=120)
    found = re.search(r'<pre id="result">(.*?)</pre>', done.stdout, re.S)
    assert found and found.group(1), done.stderr[-2000:]
    return json.loads(html.unescape(found.group(1)))


@pytest.mark.long
def test_chromium_sorts_by_a_heading_and_filters_by_a_box(swept, tmp_path):
    out, totals = swept
    column = 1 + [name for name, _, _ in KEY_COLUMNS].index("plan_total_cost")
    threshold = (totals[name_of(1, "ddp")] + totals[name_of(2, "ddp")]) / 2  # between the $1 and $2 plans
    found = in_chromium(out / "index.html", column, threshold, tmp_path)
    assert found["initial"] == [name_of(p, s) for p in PRICES for s in ("ddp", "zero3")] + [HOSTILE]
    swept = [name_of(p, s) for p in (1, 2, 3) for s in ("ddp", "zero3")]  # by price, each price's in sweep order
    ascending, descending = ([n for n in found[way] if n != HOSTILE] for way in ("ascending", "descending"))
    # a higher price, a higher total (every GPU-hour is paid at the price); equal totals keep the sweep's order
    assert ascending == sorted(swept, key=lambda n: totals[n])
    assert [n.split(",")[0] for n in ascending] == [n.split(",")[0] for n in swept]
    assert [totals[n] for n in descending] == sorted((totals[n] for n in swept), reverse=True)
    assert [totals[n] for n in found["ascending"]] == sorted(totals.values())
    above = [n for n in totals if totals[n] > threshold]
    assert sorted(found["above"]) == sorted(above) and len(above) >= 4
    assert found["shown"] == f"Showing {len(above)} of 7 scenarios."
    assert found["both"] == [n for n in found["above"] if "zero3" in n]
    assert found["cleared"] == 7


@pytest.mark.long
def test_an_index_of_10000_rows_opens_and_sorts_within_seconds(tmp_path):
    """10,000 rows spooled as a batch spools them (no scenario computed), the index written and searched."""
    out = tmp_path / "out"
    with Spool() as spool:
        for i in range(10_000):
            record = {"headline": {"plan_total_cost": float((i * 7919) % 10_000), "tco_npv": i * 0.5,
                                   "plan_cheapest_path": ["On demand", "Committed"][i % 2], "plan_peak_gpus": i % 97,
                                   "serving_cost_per_million_tokens": 0.25, "fleet_answer": ""},
                      "not_available": {}, "checks_failed": []}
            spool.add(Outcome(f"scenario {i}", f"scenario-{i}", "sweep.yaml", "USD", record=record, seq=i))
        write_index(spool, out, __import__("datetime").date(2026, 1, 1))
    found = in_chromium(out / "index.html", 1, 4999.5, tmp_path)
    assert found["ascending"][:2] == ["scenario 0", "scenario 7679"]  # totals 0 and 1: 7919 × 7679 = 6,081 × 10,000 + 1
    assert len(found["above"]) == 5000 and found["shown"] == "Showing 5000 of 10000 scenarios."
    assert found["sort_ms"] < 2000 and found["filter_ms"] < 2000, found
    assert found["opened"] < 10_000, found  # the page parsed and its script run, in ms since it was asked for


def test_a_pivot_sheet_follows_the_sweeps_order_whatever_order_the_scenarios_finished_in(tmp_path):
    """On Dask (or -j 2) scenarios finish in any order: the pivot's rows and columns are still the sweep's."""
    out = tmp_path / "out"
    variants = [(seq, price, strategy) for seq, (price, strategy) in
                enumerate((p, s) for p in PRICES for s in ("ddp", "zero3"))]
    with Spool() as spool:
        for seq, price, strategy in reversed(variants):  # the last variant finished first
            record = record_of({"headline": {"plan_total_cost": 1000.0 * price + (strategy == "zero3")}})
            spool.add(Outcome(name_of(price, strategy), f"v{seq}", "a.yaml", "USD", record=record, seq=seq),
                      {"price_per_gpu_hour": str(price), "memory.strategy": strategy})
        write_index(spool, out, __import__("datetime").date(2026, 1, 1))
    pivot = [list(row) for row in openpyxl.load_workbook(out / "summary.xlsx")["Sweep 1"].iter_rows(values_only=True)]
    assert pivot[3] == ["price_per_gpu_hour \\ memory.strategy", "ddp", "zero3"]
    assert [row[:3] for row in pivot[4:7]] == [["3", 3000, 3001], ["1", 1000, 1001], ["2", 2000, 2001]]
