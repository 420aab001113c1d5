"""A workbook's input cells back into a scenario: what `planner verify` checks against and `planner import` writes.

Each input cell has a workbook-level name, the scenario key path joined by "_" (memory_tensor_parallel ↔
memory.tensor_parallel); the chosen model's and GPU's rows are read from Catalog, so an edited catalog entry comes
back as the scenario's own entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import openpyxl
from pydantic import BaseModel

from planner import catalog
from planner.scenario import Scenario, ScenarioError, _section_class, parse_scenario

MODEL_KEYS = ("params", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab")
GPU_KEYS = ("memory_gb", "peak_tflops", "hbm_tbps")


def key_path(name: str) -> tuple | None:
    """memory_tensor_parallel → ("memory", "tensor_parallel"); hours_allocations_2_gpus → (..., 1, "gpus").
    None when the name is not a scenario key. Field names are matched longest first, as they contain "_"."""
    path: list = []
    section: Any = Scenario  # the model whose fields come next
    in_list = False  # the next part is a 1-based list position
    rest = name
    while rest:
        if in_list:
            index, _, rest = rest.partition("_")
            if not index.isdigit():
                return None
            path.append(int(index) - 1)
            in_list = False
            continue
        if section is None:
            return None
        fields = section.model_fields
        match = max((f for f in fields if rest == f or rest.startswith(f + "_")), key=len, default=None)
        if match is None:
            return None
        path.append(match)
        rest = rest[len(match) + 1:]
        annotation = fields[match].annotation
        in_list = getattr(annotation, "__origin__", None) is list
        section = _section_class(annotation) if in_list or _is_section(annotation) else None
    return tuple(path)


def _is_section(annotation) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, BaseModel)


def _set(data: dict, path: tuple, value: Any) -> None:
    node: Any = data
    for part, following in zip(path, path[1:]):
        if isinstance(part, int):
            while len(node) <= part:
                node.append({})
            node = node[part]
        else:
            node = node.setdefault(part, [] if isinstance(following, int) else {})
    last = path[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
    node[last] = value


def _table_row(book, ids_name: str, columns: dict[str, str], wanted: str) -> dict | None:
    """The Catalog row whose id is `wanted`, as {column: value}; formula cells are left out."""
    ids = _cells(book, ids_name)
    for i, cell in enumerate(ids):
        if cell.value == wanted:
            row = {}
            for key, name in columns.items():
                target = _cells(book, name)[i]
                if target.data_type != "f" and target.value is not None:
                    row[key] = target.value
            return row
    return None


def _cells(book, name: str) -> list:
    sheet, ref = next(iter(book.defined_names[name].destinations))
    cells = book[sheet][ref.replace("$", "")]
    if isinstance(cells, tuple):
        return [row[0] for row in cells]
    return [cells]


def _catalog_choice(book, kind: str, chosen: str, shipped: dict, keys: tuple) -> Any:
    """The chosen id, or its Catalog row as the scenario's own entry when it differs from what ships."""
    columns = {key: f"catalog_{kind}_{key}" for key in keys}
    row = _table_row(book, f"catalog_{kind}_ids", columns, chosen)
    if row is None:
        return chosen  # not in Catalog: validation reports it
    known = shipped.get(chosen)
    if known is not None and all(k in row and row[k] == getattr(known, k) for k in keys):
        return chosen
    return {"name": chosen, **row}


def scenario_from_workbook(path: Path) -> Scenario:
    """The scenario a planner workbook's input cells describe."""
    book = openpyxl.load_workbook(path)
    try:
        data: dict = {}
        where: dict = {}
        for name, defined in book.defined_names.items():
            path_parts = key_path(name)
            destinations = list(defined.destinations)
            if path_parts is None or len(destinations) != 1:
                continue
            sheet, ref = destinations[0]
            if sheet != "Inputs" or ":" in ref:
                continue
            _set(data, path_parts, book[sheet][ref.replace("$", "")].value)
            for n in range(len(path_parts), 0, -1):  # a section's problem points at its first input
                where.setdefault(path_parts[:n], f"{sheet}!{ref.replace('$', '')} ({name})")
        for name in ("scenario_name", "scenario_description"):
            if name in book.defined_names:
                sheet, ref = next(iter(book.defined_names[name].destinations))
                data[name.removeprefix("scenario_")] = book[sheet][ref.replace("$", "")].value or ""
        if isinstance(data.get("model"), str):
            data["model"] = _catalog_choice(book, "model", data["model"], catalog.MODELS, MODEL_KEYS)
        if isinstance(data.get("gpu"), str):
            data["gpu"] = _catalog_choice(book, "gpu", data["gpu"], catalog.GPUS, GPU_KEYS)
    finally:
        book.close()
    return parse_scenario(data, str(path), where)


__all__ = ["scenario_from_workbook", "key_path", "ScenarioError"]
