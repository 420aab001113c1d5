"""The package as a user installs it: a wheel built from the checkout, installed without -e into a fresh virtual
environment (its dependencies from the package index), then `planner run` and `planner verify` run from a folder
outside the checkout, so nothing of the checkout can be imported by accident."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import openpyxl
import pytest

import planner

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK_EXAMPLE = ROOT / "examples" / "goodput-2-benchmark-logs.yaml"  # pandas and the log readers too


def _run(args: list, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, (args, done.stdout[-3000:], done.stderr[-3000:])
    return done


@pytest.mark.long
@pytest.mark.spreadsheet
def test_the_wheel_installs_and_runs_outside_the_checkout(tmp_path, libreoffice):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    # the wheel, built from a copy of what it is made of (a build in the checkout leaves build/ behind, whose stale
    # files a later wheel would take)
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(ROOT / "planner", source / "planner", ignore=shutil.ignore_patterns("__pycache__"))
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", source, "-w", tmp_path / "wheels"],
         tmp_path, env)
    wheel = next((tmp_path / "wheels").glob("planner-*.whl"))
    # a fresh environment, the wheel and what it depends on installed as pip resolves them
    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", venv], tmp_path, env)
    python, command = venv / "bin" / "python", venv / "bin" / "planner"
    _run([python, "-m", "pip", "install", "--quiet", "--no-compile", wheel], tmp_path, env)

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    found = _run([python, "-c", "import planner; print(planner.__file__)"], elsewhere, env).stdout.strip()
    assert Path(found).is_relative_to(venv), found  # the installed copy, not the checkout
    assert _run([command, "--version"], elsewhere, env).stdout.split()[-1] == planner.__version__

    written = _run([command, "run", "-o", "out"], elsewhere, env).stdout.split()
    assert written == ["out/default.xlsx", "out/default.html", "out/default.json"]
    _run([command, "run", BENCHMARK_EXAMPLE, "-o", "out"], elsewhere, env)
    for stem in ("default", BENCHMARK_EXAMPLE.stem):
        book = openpyxl.load_workbook(elsewhere / "out" / f"{stem}.xlsx", read_only=True)
        assert book.sheetnames[:3] == ["Cover", "Budget", "Cost"]  # the finance pages first (issue 43)
        book.close()
        html = (elsewhere / "out" / f"{stem}.html").read_text(encoding="utf-8")
        assert html.startswith("<!DOCTYPE html>") and "<h2" in html  # the templates came with the package
        data = json.loads((elsewhere / "out" / f"{stem}.json").read_text(encoding="utf-8"))
        assert {"scenario", "headline", "tables"} <= set(data)

    verified = _run([command, "verify", "out/default.xlsx", f"out/{BENCHMARK_EXAMPLE.stem}.xlsx"], elsewhere, env)
    lines = verified.stdout.splitlines()
    assert len(lines) == 2 and all(": OK, " in line and "equal the engine" in line for line in lines), lines
