"""File sizes: the default scenario's workbook and HTML summary, and a workbook with a 10,000-request benchmark log
(Goodput's Requests sheet). Issue 14's targets: default workbook ≤ 120 KB, HTML ≤ 250 KB.

    python benchmarks/sizes.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from timing import ROOT

from planner.output import write_outputs
from planner.scenario import DEFAULT, load_scenario

sys.path.insert(0, str(ROOT / "examples"))
from make_goodput_logs import simulate, vllm  # noqa: E402 (the examples' own log writer)


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        default = write_outputs(DEFAULT, Path(work) / "default")
        log = Path(work) / "rate-4.json"
        log.write_text(json.dumps(vllm(simulate(1, 4.0, capacity=5.0, requests=10_000), 4.0, "llama", False)))
        scenario = Path(work) / "logs.yaml"
        scenario.write_text("name: ten thousand requests\ngoodput:\n  benchmarks:\n"
                            "    - {name: h100, files: [rate-4.json]}\n")
        logged = write_outputs(load_scenario(scenario), Path(work) / "logs")
        for label, path, target in (("default workbook", default["xlsx"], 120), ("default HTML summary",
                                    default["html"], 250), ("default JSON", default["json"], None),
                                    ("workbook with a 10,000-request log", logged["xlsx"], None),
                                    ("its HTML summary", logged["html"], None)):
            size = path.stat().st_size / 1024
            verdict = f"  target ≤ {target} KB: {'met' if size <= target else 'MISSED'}" if target else ""
            print(f"{label:38s} {size:8,.0f} KB{verdict}")


if __name__ == "__main__":
    main()
