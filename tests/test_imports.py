"""How planner's modules import each other: each one imports first, in an interpreter that has imported nothing of
planner yet (no module leans on another having been imported before it); the engine imports nothing from the
layers above it; reading a scenario's schema imports no numpy."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ABOVE_THE_ENGINE = ("planner.inputs", "planner.scenario", "planner.workbook", "planner.report")

# Imports each module named on stdin first: before each, every module of the packages named in argv is taken out
# of sys.modules, so the import runs every module of theirs it needs again, in its own order. Prints each failure
# on one line.
IMPORT_EACH_FIRST = textwrap.dedent("""
    import importlib, sys, traceback
    packages = tuple(sys.argv[1:])
    for name in sys.stdin.read().split():
        for loaded in [m for m in sys.modules if m.split(".")[0] in packages]:
            del sys.modules[loaded]
        try:
            importlib.import_module(name)
        except BaseException as exc:
            print(f"{name}: {traceback.format_exception_only(exc)[-1].strip()}")
""")


def module_names(folder: Path, package: str) -> list[str]:
    """Every module of the package in `folder`, dotted (a package by its own name, not its __init__)."""
    names = []
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        names.append(".".join((package, *parts[:-1]) if parts[-1] == "__init__" else (package, *parts)))
    return names


def failing_first(names: list[str], packages: list[str], path: Path) -> list[str]:
    """The modules of `packages` (found on `path`) that fail to import when imported first, each with its error."""
    done = subprocess.run([sys.executable, "-c", IMPORT_EACH_FIRST, *packages], input="\n".join(names), cwd=path,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.long  # about 5 s: a process per module
def test_every_module_imports_first():
    names = module_names(ROOT / "planner", "planner")
    assert len(names) > 70 and "planner.inputs.hours" in names and "planner.__main__" in names
    assert failing_first(names, ["planner"], ROOT) == []


def test_a_module_that_needs_another_imported_first_is_named(tmp_path):
    """The check above can fail: a package whose __init__ reads a module of another package that imports the
    first package's declarations (the scenario package's shape while it assembled its model on import) imports
    fine first, and fails when that module is imported first."""
    for folder, files in {"hub": {"__init__.py": "import importlib\nfrom hub.declare import Section\n"
                                                 "MODEL = importlib.import_module('layer.table').SECTIONS\n",
                                  "declare.py": "Section = dict\n"},
                          "layer": {"__init__.py": "", "table.py": "from hub.declare import Section\n"
                                                                   "SECTIONS = Section(a=1)\n"}}.items():
        (tmp_path / folder).mkdir()
        for name, text in files.items():
            (tmp_path / folder / name).write_text(text)
    assert failing_first(["hub", "hub.declare"], ["hub", "layer"], tmp_path) == []
    found = failing_first(["hub", "layer.table", "hub.declare"], ["hub", "layer"], tmp_path)
    assert found == ["layer.table: AttributeError: partially initialized module 'layer.table' has no attribute "
                     "'SECTIONS' (most likely due to a circular import)"]


def above_the_engine(folder: Path) -> set[str]:
    """Each import, at the top of a file or inside a function, of the layers above the engine: "file: module"."""
    found = set()
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
            names += [f"{node.module}.{a.name}" for a in node.names] if isinstance(node, ast.ImportFrom) else []
            found |= {f"{path.name}: {name}" for name in names if name.startswith(ABOVE_THE_ENGINE)}
    return found


def test_the_engine_imports_nothing_from_the_layers_above_it(tmp_path):
    """Pure numbers: what the engine needs from a scenario reaches it as values, not by importing the scenario's
    declarations, and nothing of the workbook or the HTML leaks into it."""
    assert above_the_engine(ROOT / "planner" / "engine") == set()
    (tmp_path / "k.py").write_text("import numpy\n\ndef f():\n    from planner.inputs.hours import Hours\n")
    (tmp_path / "j.py").write_text("from planner import workbook\nimport planner.report.plot as plot\n")
    assert above_the_engine(tmp_path) == {"k.py: planner.inputs.hours", "k.py: planner.inputs.hours.Hours",
                                          "j.py: planner.workbook", "j.py: planner.report.plot"}


def test_the_html_imports_nothing_of_the_workbook():
    """The HTML summary and the workbook are siblings: what both show (row specs, labels, the inputs as listed) lives
    below them (planner/specs.py, planner/listing.py), never in the workbook for the HTML to import."""
    found = set()
    for path in sorted((ROOT / "planner" / "report").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found |= {f"{path.name}: {name}" for name in names if name.startswith("planner.workbook")}
    assert found == set()


def test_reading_a_scenarios_schema_imports_no_numpy():
    """`planner schema` and the scenario's declarations stay light: the words and limits they share with the
    engine come from planner/engine/shared.py, which imports no numpy."""
    done = subprocess.run([sys.executable, "-c", "import sys; from planner.scenario import Scenario; "
                           "Scenario.model_json_schema(); print(sorted(m for m in ('numpy', 'pandas') "
                           "if m in sys.modules))"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "[]"), done.stderr


def import_edges(folder: Path, package: str) -> dict[str, set[str]]:
    """Each module of the package → the package's modules it imports, at the top of a file or inside a function
    (`from planner.engine import cost` reads the module cost; `from planner.engine import compute` the package)."""
    paths = {}
    for path in sorted(folder.rglob("*.py")):
        parts = path.relative_to(folder).with_suffix("").parts
        paths[".".join((package, *parts[:-1]) if parts[-1] == "__init__" else (package, *parts))] = path
    edges = {name: set() for name in paths}
    for name, path in paths.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges[name] |= {a.name for a in node.names if a.name in paths}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module in paths:
                edges[name] |= {f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in paths else node.module
                                for a in node.names}
    return edges


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or through others (each reaches every other)."""
    def reach(start: str) -> set[str]:
        seen, todo = set(), [start]
        while todo:
            for other in edges[todo.pop()] - seen:
                seen.add(other)
                todo.append(other)
        return seen

    reached = {name: reach(name) for name in edges}
    groups = {frozenset(n for n in reached[name] if name in reached[n]) for name in edges if name in reached[name]}
    return sorted(sorted(group) for group in groups)


def test_no_modules_import_each_other(tmp_path):
    """One way down: a module never needs, through any chain of imports, a module that needs it (the plan's average
    months and calendar imported each other to share the sheet's row count)."""
    assert circles(import_edges(ROOT / "planner", "planner")) == []
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from pkg import b\n")
    (tmp_path / "b.py").write_text("def f():\n    from pkg.c import x\n")
    (tmp_path / "c.py").write_text("import pkg.a\n")
    (tmp_path / "d.py").write_text("from pkg import a\n")
    assert circles(import_edges(tmp_path, "pkg")) == [["pkg.a", "pkg.b", "pkg.c"]]


def test_a_run_without_a_fleet_or_a_search_imports_neither(tmp_path):
    """`planner run` pays for the tables the scenario has: without `fleet:` or `search:` no module of the Fleet or
    the layout search is imported (their engines once cost a run 15 ms: planner/engine/plan imported the Fleet's
    for a type, output.py the search's for its error, the Cover every table's sheet for the checks' labels); and
    the cyclic garbage collector, held off while the planner's modules are imported (cli._importing), runs after."""
    code = ("import gc, sys; from planner.cli import main\n"
            f"try: main(['run', '-o', {str(tmp_path)!r}])\n"
            "except SystemExit as end: assert not end.code, end\n"
            "print(gc.isenabled(), sorted(m for m in sys.modules if m.rsplit('.', 1)[-1] in ('fleet', 'layouts') "
            "and not m.startswith('planner.inputs')))")
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout.strip().splitlines()[-1]) == (0, "True []"), done.stderr


def test_a_command_line_run_ends_without_the_interpreters_teardown(tmp_path):
    """`planner run` from its own command line exits once its files are written and its lines printed, without
    the teardown (exit handlers among it: this one's line is never printed); called with a list of arguments, as
    click's test runner calls it, it returns and the process ends as usual."""
    def run(call: str, folder: Path) -> list[str]:
        code = (f"import atexit, sys; atexit.register(print, 'torn down'); sys.argv = ['planner', 'run', '-o', "
                f"{str(folder)!r}]\nfrom planner.cli import main\n{call}")
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return done.stdout.splitlines()

    lines = run("main()", tmp_path / "a")
    assert [Path(line).name for line in lines] == ["default.xlsx", "default.html", "default.json"]
    assert all(Path(line).stat().st_size > 0 for line in lines)
    assert run(f"main(['run', '-o', {str(tmp_path / 'b')!r}])", tmp_path / "b")[-1] == "torn down"
