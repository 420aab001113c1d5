"""`planner run` and `planner verify` on real files: three outputs per scenario, written atomically, JSON with the
workbook's numbers, and verification that fails on a tampered formula."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import openpyxl
import pytest
from click.testing import CliRunner

from planner import output
from planner.cli import main
from planner.scenario import DEFAULT
from tests.conftest import EXAMPLES


def test_run_without_a_scenario_writes_the_default_into_output(tmp_path):
    done = subprocess.run([sys.executable, "-m", "planner", "run"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    written = sorted(p.name for p in (tmp_path / "output").iterdir())
    assert written == ["default.html", "default.json", "default.xlsx"]


def test_json_holds_the_normalised_scenario_headline_and_tables(tmp_path):
    paths = output.write_outputs(DEFAULT, tmp_path)
    data = json.loads(paths["json"].read_text())
    assert set(data) == {"scenario", "headline", "tables"}
    assert data["scenario"]["memory"]["strategy"] == "zero3"
    assert data["scenario"]["serving"]["sequence_length"] == 8192  # the default filled in
    assert data["headline"]["memory_training_total_gb"] == pytest.approx(52.567744512)  # 16Ψ/8 + 34·s·h·L bytes
    assert data["headline"]["memory_training_fits"] is True
    training = {row["strategy"]: row for row in data["tables"]["memory"]["training"]}
    assert training["ddp"]["total_gb"] == pytest.approx(164.991401984)
    assert data["tables"]["memory"]["serving"]["kv_kib_per_token"] == 128
    # 8B at 15.6 T tokens on the H100 at 40 %: 6Ψ·T / (989e12 · 0.4 · 3600) GPU-hours at 2.00
    assert data["headline"]["hours_cost"] == pytest.approx(2 * 6 * 8_030_261_248 * 15.6e12 / (989e12 * 0.4 * 3600))


def test_scenario_text_is_escaped_in_the_html(tmp_path):
    scenario = DEFAULT.model_copy(update={"name": "<script>alert(1)</script>", "description": "a & b"})
    page = output.write_outputs(scenario, tmp_path)["html"].read_text()
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_an_interrupted_run_leaves_the_old_files_and_no_partial_ones(tmp_path, monkeypatch):
    old = output.write_outputs(DEFAULT, tmp_path)
    before = {suffix: path.read_bytes() for suffix, path in old.items()}

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(output, "render_html", interrupted)  # after the workbook is written, before renaming
    with pytest.raises(KeyboardInterrupt):
        output.write_outputs(DEFAULT.model_copy(update={"description": "changed"}), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["default.html", "default.json", "default.xlsx"]
    assert {suffix: path.read_bytes() for suffix, path in old.items()} == before


def test_outputs_are_renamed_from_temporary_names(tmp_path, monkeypatch):
    renames = []
    real_replace = output.os.replace
    monkeypatch.setattr(output.os, "replace", lambda a, b: (renames.append((Path(a).name, Path(b).name)),
                                                             real_replace(a, b)))
    output.write_outputs(DEFAULT, tmp_path)
    assert sorted(b for _, b in renames) == ["default.html", "default.json", "default.xlsx"]
    assert all(a.startswith(".default.") and a.endswith(".part") for a, _ in renames)


@pytest.mark.usefixtures("libreoffice")
def test_verify_passes_on_examples_and_fails_on_a_tampered_formula(tmp_path):
    """Every example is recalculated in test_workbook_recalc.py; here the command line, on two of them."""
    paths = []
    for example in EXAMPLES[:2]:
        result = CliRunner().invoke(main, ["run", str(example), "-o", str(tmp_path)])
        assert result.exit_code == 0, result.output
        paths.append(tmp_path / (Path(result.output.splitlines()[0]).name))
    tampered = tmp_path / "tampered.xlsx"
    _replace_in_sheet(paths[0], tampered, "Memory", "optimizer_bytes_per_param*", "10*")
    result = CliRunner().invoke(main, ["verify", *map(str, paths), str(tampered)])
    assert result.exit_code == 1
    for path in paths:
        assert f"{path}: OK," in result.output
    assert f"{tampered}: mismatch Memory!" in result.output and "10*" in result.output
    assert f"{tampered}: FAILED" in result.output


def _replace_in_sheet(source: Path, target: Path, sheet: str, old: str, new: str) -> None:
    """Copy an xlsx, editing formula text inside one sheet's XML (as a user overwriting formulas would)."""
    wb = openpyxl.load_workbook(source, read_only=True)
    index = wb.sheetnames.index(sheet) + 1
    wb.close()
    with zipfile.ZipFile(source) as zin, zipfile.ZipFile(target, "w") as zout:
        for item in zin.infolist():
            data = zin.read(item.filename)
            if item.filename == f"xl/worksheets/sheet{index}.xml":
                assert old.encode() in data
                data = data.replace(old.encode(), new.encode())
            zout.writestr(item, data)
