"""Write a scenario's workbook, HTML summary and JSON results: each to a temporary name in the target folder,
renamed only once all three are complete, so an interrupted run never leaves a half-written file."""

from __future__ import annotations

import datetime as dt
import json
import os
import uuid
from pathlib import Path

from planner.engine import Results, compute
from planner.report import render_html
from planner.scenario import Scenario
from planner.workbook import build


def results_json(results: Results) -> str:
    return json.dumps(results.to_json(), indent=2, allow_nan=False, ensure_ascii=False) + "\n"


def write_outputs(scenario: Scenario, out_dir: Path, *, generated: dt.date | None = None) -> dict[str, Path]:
    """Compute and write <slug>.xlsx, .html and .json into out_dir; returns {suffix: path}."""
    results = compute(scenario)
    date = generated or dt.date.today()
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    final = {suffix: out_dir / f"{scenario.slug}.{suffix}" for suffix in ("xlsx", "html", "json")}
    parts: dict[str, Path] = {}
    try:
        for suffix in final:  # a fresh name per run: two runs into one folder never share a part file
            parts[suffix] = out_dir / f".{scenario.slug}.{uuid.uuid4().hex}.{suffix}.part"
        build(results, str(parts["xlsx"]), generated=date)
        parts["html"].write_text(render_html(results, generated=date.isoformat()), encoding="utf-8")
        parts["json"].write_text(results_json(results), encoding="utf-8")
        for suffix, part in parts.items():
            os.replace(part, final[suffix])
    finally:
        for part in parts.values():
            part.unlink(missing_ok=True)
    return final
