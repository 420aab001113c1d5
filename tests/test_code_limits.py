"""Limits the code keeps (the preamble's "simple and clear"), read from planner/'s syntax trees: no function over 60
lines, and no call of one of planner's own functions or classes with six or more positional arguments (keywords
say what each is)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES, MAX_POSITIONAL = 60, 5


def offenders(files: dict[str, str]) -> list[str]:
    """Each function over MAX_LINES lines ("file:line name: N lines") and each call of a function or class defined
    in `files` with more than MAX_POSITIONAL positional arguments ("file:line name(N positional)"); `files`: path →
    source."""
    trees = {path: ast.parse(source) for path, source in files.items()}
    defined = {node.name for tree in trees.values() for node in ast.walk(tree)
               if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    found = []
    for path, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and \
                    node.end_lineno - node.lineno + 1 > MAX_LINES:
                found.append(f"{path}:{node.lineno} {node.name}: {node.end_lineno - node.lineno + 1} lines")
            elif isinstance(node, ast.Call):
                name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
                positional = [a for a in node.args if not isinstance(a, ast.Starred)]
                if name in defined and len(positional) > MAX_POSITIONAL:
                    found.append(f"{path}:{node.lineno} {name}({len(positional)} positional)")
    return sorted(found)


def planner_files() -> dict[str, str]:
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in sorted((ROOT / "planner").rglob("*.py"))}


def test_the_limits_hold_everywhere():
    assert offenders(planner_files()) == []


def test_a_long_function_and_a_long_positional_call_are_named():
    body = "\n".join(f"    x{i} = {i}" for i in range(60))
    source = f"def long():\n{body}\n\n\ndef six(a, b, c, d, e, f):\n    return a\n\n\nsix(1, 2, 3, 4, 5, 6)\n" \
             "six(1, 2, 3, 4, 5, f=6)\nsix(*range(6))\nprint(1, 2, 3, 4, 5, 6)\n"
    assert offenders({"k.py": source}) == ["k.py:1 long: 61 lines", "k.py:68 six(6 positional)"]
