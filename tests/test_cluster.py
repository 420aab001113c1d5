"""METHOD.md §4 against numbers worked by hand: a small cluster hour by hour, CEIL9's rounding edge, the day wrapping
round, the seed's walk-through (the office assistant on separate pools and shared, then the global app) in the
engine, the HTML and the workbook recalculated by LibreOffice, the serving pool rounded alike by the engine,
LibreOffice and Gnumeric at every allowed spare, a serving pool larger than the cluster refused, and profiles
switched, edited and added on Catalog."""

from __future__ import annotations

import math
import re

import openpyxl
import pytest
from click.testing import CliRunner
from openpyxl.formula.tokenizer import Tokenizer

from planner import xlsx
from planner.audit import same
from planner.cli import main
from planner.engine import cluster as engine
from planner.engine import compute
from planner.report import render_html
from planner.scenario import ScenarioError, load_scenario
from tests.conftest import ROOT
from tests.helpers import (address, build_in_memory, expected_book, named, recalculated, refused,
                           scenario_from_workbook, scenario_with, set_cells, sheet_cell)

OFFICE = ROOT / "examples" / "cluster-1-office-assistant.yaml"
GLOBAL = ROOT / "examples" / "cluster-2-global-app.yaml"
NIGHTLY = ROOT / "examples" / "cluster-3-nightly-batch-custom-profile.yaml"

# Worked by hand (METHOD.md §4) for N = 1,024, P = 600, r = 0.10, c = 0.25 at 2.00 per GPU-hour. The office
# assistant's fractions add up to 10.52 (Σ D_h = 6,312) and the global app's to 21.10 (Σ D_h = 12,660); both peak
# at 1, so the serving pool is CEIL9(600 · 1.1) = 660 and training gets 1,024 − 660 = 364 GPUs, 8,736 GPU-hours.
# Shared, A_h = CEIL9(660 · f_h) adds up to 6,944 (office) and 13,933 (global); training gets 24,576 − Σ A_h.
# Preemptions are the allocation's rises: office 33 → 660 in the morning (627) and the dip at noon 594 → 660 (66),
# 693 in all; global 495 → 660, 165.
OFFICE_HAND = {"cluster_idle_gpu_hours_separate": 15_840 - 6_312, "cluster_training_gpu_hours_separate": 8_736,
               "cluster_training_gpu_hours_shared": 24_576 - 6_944, "cluster_moved_gpu_hours": 17_632 - 8_736,
               "cluster_preemptions": 693, "cluster_net_gain_gpu_hours": 8_896 - 693 * 0.25,
               "cluster_net_gain_value": (8_896 - 693 * 0.25) * 2.0}
GLOBAL_HAND = {"cluster_idle_gpu_hours_separate": 15_840 - 12_660, "cluster_training_gpu_hours_separate": 8_736,
               "cluster_training_gpu_hours_shared": 24_576 - 13_933, "cluster_moved_gpu_hours": 10_643 - 8_736,
               "cluster_preemptions": 165, "cluster_net_gain_gpu_hours": 1_907 - 165 * 0.25,
               "cluster_net_gain_value": (1_907 - 165 * 0.25) * 2.0}


def small_cluster(**changes):
    """N = 10, P = 4, r = 0.25, c = 0.5: four six-hour blocks at 50 %, 100 %, 25 % and 75 % of the peak."""
    profile = [0.5] * 6 + [1.0] * 6 + [0.25] * 6 + [0.75] * 6
    return scenario_with(**{"cluster.gpus": 10, "cluster.inference_peak_gpus": 4, "cluster.spare": 0.25,
                            "cluster.profile": profile, "cluster.restart_cost_gpu_hours": 0.5, **changes})


def test_a_small_cluster_hour_by_hour():
    table = compute(small_cluster()).cluster
    # pool = CEIL9(4 · 1 · 1.25) = 5; separate training 10 − 5 = 5 every hour. Per block: D = 2, 4, 1, 3; idle
    # 5 − D = 3, 1, 4, 2; shared A = ⌈2.5⌉, 5, ⌈1.25⌉, ⌈3.75⌉ = 3, 5, 2, 4; spare A − D = 1 each; training 10 − A
    # = 7, 5, 8, 6; preemptions at the blocks' first hours: 3 − 4 < 0 at hour 0 (after hour 23), 5 − 3 = 2 at
    # hour 6, none at 12, 4 − 2 = 2 at hour 18.
    blocks = [(0.5, 2, 3, 3, 1, 7), (1.0, 4, 1, 5, 1, 5), (0.25, 1, 4, 2, 1, 8), (0.75, 3, 2, 4, 1, 6)]
    for h, row in enumerate(table.hours):
        fraction, demand, idle, allocated, spare, training = blocks[h // 6]
        assert row["hour"] == h
        assert (row["fraction"], row["demand"], row["separate_idle"], row["separate_training"]) == \
            (fraction, demand, idle, 5), h
        assert (row["allocated"], row["shared_spare"], row["shared_training"]) == (allocated, spare, training), h
        assert row["preempted"] == {6: 2, 18: 2}.get(h, 0), h
    s = table.scalars
    assert (s["peak_demand_gpus"], s["pool_gpus"], s["separate_training_gpus"]) == (4, 5, 5)
    assert s["inference_gpu_hours"] == 6 * (2 + 4 + 1 + 3)  # 60
    assert s["idle_gpu_hours_separate"] == 6 * (3 + 1 + 4 + 2)  # 60
    assert s["training_gpu_hours_separate"] == 24 * 5
    assert s["idle_gpu_hours_shared"] == 24 * 1
    assert s["training_gpu_hours_shared"] == 6 * (7 + 5 + 8 + 6)  # 156
    assert s["moved_gpu_hours"] == 156 - 120
    assert (s["preemptions"], s["lost_gpu_hours"]) == (4, 4 * 0.5)
    assert s["net_gain_gpu_hours"] == 36 - 2
    assert s["net_gain_value"] == 34 * 2.0  # the H100's 2.00 per GPU-hour


def test_ceil9_gives_110_for_100_times_1_1():
    assert 100 * (1 + 0.1) == 110.00000000000001 and math.ceil(100 * (1 + 0.1)) == 111  # the trap
    assert engine.ceil9(100 * (1 + 0.1)) == 110
    assert engine.ceil9(110.5) == 111 and engine.ceil9(0) == 0
    # a cluster of exactly 110 GPUs holds that pool, with nothing left for training
    s = compute(scenario_with(**{"cluster.gpus": 110, "cluster.inference_peak_gpus": 100})).cluster.scalars
    assert (s["pool_gpus"], s["separate_training_gpus"], s["training_gpu_hours_separate"]) == (110, 0, 0)
    with pytest.raises(ScenarioError):
        scenario_with(**{"cluster.gpus": 109, "cluster.inference_peak_gpus": 100})


def test_the_day_wraps_round():
    # a day of three hours with allocations 5, 1, 2: hour 0 follows hour 2 (5 − 2 = 3), then 1 − 5 < 0, 2 − 1 = 1
    assert list(engine.preemptions([5, 1, 2])) == [3, 0, 1]
    # the nightly batch: hour 23 at 30 % (CEIL9(198) = 198 GPUs), hour 0 at 100 % (660): 462 preempted at midnight
    table = compute(load_scenario(NIGHTLY)).cluster
    assert (table.hours[23]["allocated"], table.hours[0]["allocated"]) == (198, 660)
    assert table.hours[0]["preempted"] == 660 - 198
    assert [h for h, row in enumerate(table.hours) if row["preempted"]] == [0, 22, 23]  # 66 → 132 → 198
    assert table.scalars["preemptions"] == 462 + 66 + 66


@pytest.mark.parametrize("example, hand", [(OFFICE, OFFICE_HAND), (GLOBAL, GLOBAL_HAND)], ids=["office", "global"])
def test_the_seeds_walkthrough_in_the_engine(example, hand):
    headline = compute(load_scenario(example)).headline
    for name, value in hand.items():
        assert headline[name] == pytest.approx(value, rel=1e-12), name


def test_the_global_app_leaves_less_to_borrow():
    office, global_app = (compute(load_scenario(p)).cluster.scalars for p in (OFFICE, GLOBAL))
    assert global_app["moved_gpu_hours"] < office["moved_gpu_hours"] / 4  # 1,907 against 8,896
    assert global_app["idle_gpu_hours_separate"] < office["idle_gpu_hours_separate"]


def test_findings_in_sentences():
    html = render_html(compute(load_scenario(OFFICE)), generated="2026-01-01")
    assert ("On separate pools, the office-assistant profile&#39;s peak demand of 600 GPUs plus 10 % spare takes a "
            "serving pool of 660 of the 1,024 GPUs; training runs on the other 364, and the pool sits idle for 9,528 "
            "GPU-hours a day (60 % of its GPU-hours).") in html  # 9,528 / (24 · 660) = 60.2 %
    assert ("Shared with preemption, training gets 17,632 GPU-hours a day instead of 8,736: 8,896 GPU-hours move to "
            "training, for 693 training GPUs preempted as inference grows") in html
    assert ("At 0.25 GPU-hours lost per preemption (173.25 GPU-hours), the net gain is 8,722.75 GPU-hours a day, "
            "worth $17,445.50 at $2.00 per GPU-hour.") in html
    start = html.index('<section id="cluster">')
    assert html[start:html.index("</section>", start)].count("<svg") == 2
    # a restart cost high enough turns the gain into a loss: 8,896 − 693 · 20 = −4,964
    costly = render_html(compute(scenario_with(**{"cluster.restart_cost_gpu_hours": 20})), generated="2026-01-01")
    assert "sharing loses 4,964 GPU-hours a day, $9,928.00 at $2.00 per GPU-hour" in costly


@pytest.mark.parametrize("text, expected", [
    ("name: x\ncluster:\n  gpus: 512\n", ["scenario.yaml:2:", "cluster.inference_peak_gpus: value 600 is not "
                                          "allowed", "is 660 GPUs: more than the cluster's 512 (cluster.gpus)"]),
    ("name: x\ncluster:\n  gpus: 1024\n  inference_peak_gpus: 1000\n",
     ["scenario.yaml:4:", "cluster.inference_peak_gpus: value 1000", "1,100 GPUs", "cluster's 1,024"]),
    ("name: x\ncluster:\n  gpus: 1024\n  inference_peak_gpus: 1000\n  spare: 0\n  profile: global-app\n", []),
    ("name: x\ncluster: {profile: office-asistant}\n", ["scenario.yaml:2:", "cluster.profile",
                                                      "did you mean 'office-assistant'", "a list of 24 fractions"]),
    ("name: x\ncluster: {profile: [0.5, 0.5]}\n", ["scenario.yaml:2:", "cluster.profile:", "at least 24 items"]),
    ("name: x\ncluster:\n  profile:\n" + "    - 0.5\n" * 23 + "    - 1.5\n",
     ["scenario.yaml:27:", "cluster.profile.24: value 1.5", "less than or equal to 1"]),
    ("name: x\ncluster: {spare: 11}\n", ["scenario.yaml:2:", "cluster.spare: value 11", "less than or equal to 10"]),
    ("name: x\ncluster: {spare: ten}\n", ["cluster.spare: value 'ten'", "valid number"]),
    ("name: x\ncluster: {inference_peak_gpus: -1}\n", ["cluster.inference_peak_gpus: value -1"]),
    ("name: x\ncluster: {gpus: 0}\n", ["cluster.gpus: value 0", "greater than or equal to 1"]),
    ("name: x\ncluster: {restart_cost_gpu_hours: 1001}\n", ["cluster.restart_cost_gpu_hours: value 1001"]),
])
def test_bad_cluster_input_exits_2_naming_file_line_and_key(tmp_path, text, expected):
    if not expected:  # 1,000 GPUs at the global app's peak without spare fit in 1,024
        (tmp_path / "scenario.yaml").write_text(text, encoding="utf-8")
        result = CliRunner().invoke(main, ["run", str(tmp_path / "scenario.yaml"), "-o", str(tmp_path / "out")])
        assert result.exit_code == 0, result.output
        return
    output, _ = refused(tmp_path, text)
    for fragment in expected:
        assert fragment in output


# The workbook ------------------------------------------------------------------------------------------------------
def test_cluster_formulas_use_named_constants_and_look_up_each_hour(default_workbook):
    """No number in a Cluster formula but 0 and 1 (CEIL9 reads gpu_rounding_decimals), except each hour's row in
    the profile (hour h is row h + 1 of catalog_profile_fractions); every other column is one formula copied down."""
    path = default_workbook
    sheet = openpyxl.load_workbook(path)["Cluster"]
    shapes: dict[int, set] = {}
    for row in sheet.iter_rows():
        for cell in (c for c in row if c.data_type == "f"):
            numbers = {t.value for t in Tokenizer(cell.value).items if t.subtype == "NUMBER"}
            if "catalog_profile_fractions," in cell.value and "MAX(" not in cell.value:
                assert numbers - {"0"} == {str(int(sheet.cell(cell.row, 1).value) + 1)}, cell.value
                continue
            assert numbers <= {"0", "1"}, (cell.coordinate, cell.value)
            if "ROUNDUP(" in cell.value:
                assert "ROUND(" in cell.value and ",gpu_rounding_decimals),0)" in cell.value, cell.value
            if str(sheet.cell(cell.row, 1).value).isdigit():  # the hour-by-hour table
                relative = re.sub(r"(\$?[A-Z]+)(\d+)", lambda m: f"{m[1]}[{int(m[2]) - cell.row}]", cell.value)
                shapes.setdefault(cell.column, set()).add(relative)
    assert len(shapes) == 7 and all(len(shape) == 1 for shape in list(shapes.values())[:-1])
    assert len(shapes[max(shapes)]) == 2  # preemptions: hour 0 reads hour 23, the others the hour before


# The workbook, recalculated by LibreOffice and Gnumeric --------------------------------------------------------------
@pytest.mark.spreadsheet
def test_the_seeds_walkthrough_is_input_cell_changes_in_one_workbook(libreoffice, default_workbook, default_book,
                                                                    tmp_path):
    """The office assistant (the default cluster): separate pools and shared side by side (steps 1 and 2); then the
    profile dropdown to the global app (step 3), the spare share to 20 %, another profile and peak: every formula
    cell equals the engine on the changed scenario, and the headline numbers are the hand-worked ones."""
    assert scenario_with().cluster == load_scenario(OFFICE).cluster
    original, book = default_workbook, default_book
    changes = [({"cluster_profile": "global-app"}, {"cluster.profile": "global-app"}),
               ({"cluster_spare": 0.2}, {"cluster.spare": 0.2}),
               ({"cluster_profile": "consumer-evening", "cluster_inference_peak_gpus": 300, "cluster_gpus": 512},
                {"cluster.profile": "consumer-evening", "cluster.inference_peak_gpus": 300, "cluster.gpus": 512})]
    copies = []
    for i, (cells, _) in enumerate(changes):
        copies.append(tmp_path / f"changed-{i}.xlsx")
        set_cells(original, copies[-1], cells)
    office, global_app, spare, _ = recalculated(libreoffice, [original] + copies, [None] + [
        build_in_memory(scenario_with(**keys), like=copy) for copy, (_, keys) in zip(copies, changes)])
    for name, value in OFFICE_HAND.items():
        assert named(office, book, name) == pytest.approx(value, rel=1e-9), name
    for name, value in GLOBAL_HAND.items():
        assert named(global_app, book, name) == pytest.approx(value, rel=1e-9), name
    assert named(global_app, book, "cluster_moved_gpu_hours") < named(office, book, "cluster_moved_gpu_hours")
    # spare 20 %: pool CEIL9(600 · 1.2) = 720, training 1,024 − 720 = 304 GPUs, 7,296 GPU-hours
    assert named(spare, book, "cluster_pool_gpus") == 720
    assert named(spare, book, "cluster_training_gpu_hours_separate") == 24 * 304


# peak GPUs, spare share, cluster GPUs → the serving pool by hand: CEIL9 rounds P · (1 + r) to 9 decimals, then up
# to whole GPUs. A spare of 1e-12 adds 1e-10 GPUs to 100, 6e-10 to 600 and 2.168e-9 to 2168: the last two survive
# 9 decimals; 1e-9 always does.
POOLS = [(peak, spare, 2500, pool) for peak, pools in [
    (100, [100, 100, 101, 110]), (600, [600, 601, 601, 660]), (2168, [2168, 2169, 2169, 2385])]
    for spare, pool in zip([0, 1e-12, 1e-9, 0.1], pools)] + [(100, 0.1, 110, 110)]  # 100 · 1.1 fills 110 exactly


@pytest.mark.spreadsheet
def test_the_pool_rounds_alike_in_the_engine_and_both_spreadsheets(spreadsheet, default_workbook, default_book,
                                                                   tmp_path):
    """Every allowed spare rounds the serving pool to the same whole GPUs in the engine, LibreOffice and Gnumeric:
    0, 1e-12 (the draw that once failed CI: 2168 · (1 + 1e-12) is 2169 GPUs, not 2168), 1e-9 and 0.1 (100 · 1.1 is
    110.00000000000001 in floating point, and 110 GPUs), at a few peaks; a cluster of exactly the pool holds it."""
    original, book = default_workbook, default_book
    copies, expected = [], []
    for i, (peak, spare, gpus, pool) in enumerate(POOLS):
        keys = {"cluster.inference_peak_gpus": peak, "cluster.spare": spare, "cluster.gpus": gpus}
        engine = compute(scenario_with(**keys))
        assert engine.cluster.scalars["pool_gpus"] == pool, (peak, spare)
        copies.append(tmp_path / f"pool-{i}.xlsx")
        set_cells(original, copies[-1], {k.replace(".", "_"): v for k, v in keys.items()})
        expected.append(build_in_memory(scenario_with(**keys), like=copies[-1]))  # generated with the default
    for (peak, spare, _, pool), values in zip(POOLS, recalculated(spreadsheet, copies, expected)):
        assert named(values, book, "cluster_pool_gpus") == pool, (peak, spare)
        assert same(True, values[("Checks", sheet_cell(book.sheets["Checks"], "cluster_pool_fits"))]), (peak, spare)


@pytest.mark.spreadsheet
def test_a_serving_pool_larger_than_the_cluster_turns_its_check_false(libreoffice, default_workbook, default_book,
                                                                      tmp_path):
    """Pasted into the workbook (validation skipped), a pool larger than the cluster fails its check and turns the
    Cover red (a blank or text cluster input does too: test_workbook_recalc.py's blank, zero and text inputs)."""
    original, book = default_workbook, default_book
    cases = [{"cluster_gpus": 512}, {"cluster_inference_peak_gpus": 1000}]
    copies = []
    for i, cells in enumerate(cases):
        copies.append(tmp_path / f"broken-{i}.xlsx")
        set_cells(original, copies[-1], cells)
    checks, cover = book.sheets["Checks"], book.sheets["Cover"]
    for cells, values in zip(cases, libreoffice.recalculate(copies)):
        assert same(False, values[("Checks", sheet_cell(checks, "cluster_pool_fits"))]), cells
        assert same(False, values[("Checks", sheet_cell(checks, "all"))]), cells
        assert re.fullmatch(r"[1-9]\d* checks? fails?: see Checks", values[("Cover", sheet_cell(cover, "master"))]), cells
    with pytest.raises(ScenarioError) as error:
        scenario_from_workbook(copies[0])
    assert "Inputs!" in str(error.value) and "cluster.inference_peak_gpus" in str(error.value)


def profile_cells(path, profile: str, fractions: list | None = None, *, new: bool = False) -> dict:
    """{(sheet, A1): value} typing a profile's 24 fractions on Catalog: into its own column, or with `new` into the
    first empty column under the id `profile`."""
    book = xlsx.read(path)
    sheet, ref = address(book, "catalog_profile_ids")
    ids = book.block(sheet, ref)[0]
    a1 = next(a1 for a1, cell in ids if cell.value is None) if new else next(
        a1 for a1, cell in ids if cell.value == profile)
    column, row = xlsx.split(a1)
    changes = {(sheet, a1): profile} if new else {}
    for hour, value in enumerate(fractions or []):
        changes[(sheet, f"{xlsx.column_letter(column)}{row + 1 + hour}")] = value
    return changes


@pytest.mark.spreadsheet
def test_profiles_edited_and_added_on_catalog_follow_and_come_back_by_name(libreoffice, example_files, tmp_path):
    """Finance adds a profile on Catalog and chooses it, or edits the chosen one: the sheet follows, and the workbook
    reads back as a scenario with that profile under its name."""
    original = example_files(OFFICE)["xlsx"]
    book = xlsx.read(original, cells=False)  # where each name points
    night_shift = [1.0] * 8 + [0.5] * 16  # 600 GPUs until 8:00, then 300
    added, edited = tmp_path / "added.xlsx", tmp_path / "edited.xlsx"
    set_cells(original, added, {**profile_cells(original, "night-shift", night_shift, new=True),
                                "cluster_profile": "night-shift"})
    office = list(load_scenario(OFFICE).merged_catalog.profiles["office-assistant"])
    set_cells(original, edited, profile_cells(original, "office-assistant", office[:3] + [0.9] + office[4:]))
    values, edited_values = recalculated(libreoffice, [added, edited], [expected_book(added), expected_book(edited)])
    assert scenario_from_workbook(added).normalised()["catalog"]["profiles"] == {"night-shift": night_shift}
    assert scenario_from_workbook(edited).merged_catalog.profiles["office-assistant"][3] == 0.9
    # by hand: pool 660; shared A = 660 for 8 hours, CEIL9(330) = 330 for 16; one rise, 330 → 660 at hour 0
    assert named(values, book, "cluster_preemptions") == 330
    assert named(values, book, "cluster_moved_gpu_hours") == 16 * (660 - 330)
    # the edit: hour 3 at 90 % is a 594-GPU allocation between two of 33: 561 more preemptions, 561 fewer
    # training GPU-hours shared
    assert named(edited_values, book, "cluster_preemptions") == 693 + 594 - 33
    assert named(edited_values, book, "cluster_moved_gpu_hours") == 8_896 - (594 - 33)
