"""The Catalog sheet: models, GPUs and strategies that the Inputs dropdowns choose from (METHOD.md, "Catalog").

Its values are inputs too: edit a GPU's memory here and every sheet follows. Each column has a workbook-level
name (catalog_model_params, catalog_gpu_ids, ...) that INDEX/MATCH formulas read.
"""

from __future__ import annotations

import math

from xlsxwriter.utility import xl_rowcol_to_cell

from planner import catalog
from planner.engine import Results
from planner.workbook import kit

MODEL_COLUMNS = [  # (column key, heading, number format)
    ("params", "Parameters Ψ", "params"), ("layers", "Layers L", "count"), ("hidden", "Hidden h", "count"),
    ("heads", "Heads", "count"), ("kv_heads", "KV heads", "count"), ("head_dim", "Head dim", "count"),
    ("ffn", "FFN", "count"), ("vocab", "Vocabulary V", "count"),
    ("reported_h100_hours", "Reported H100-hours", "hours"),
]
DERIVED_MODEL_COLUMNS = [
    ("params_from_architecture", "Ψ from architecture",
     "=2*{vocab}*{hidden}+{layers}*(2*{hidden}*{hidden}+2*{hidden}*{kv_heads}*{head_dim}+3*{hidden}*{ffn}"
     "+2*{hidden})+{hidden}", "params"),
    ("kv_kib_per_token", "KV cache per token (KiB)", "=2*{layers}*{kv_heads}*{head_dim}*2/1024", "kib"),
]
GPU_COLUMNS = [("memory_gb", "Memory (GB)", "gb"), ("peak_tflops", "Dense BF16 TFLOPS", "count"),
               ("hbm_tbps", "HBM TB/s", "decimal")]


def write(book: kit.Book, results: Results) -> kit.Sheet:
    sheet = book.sheet("Catalog", [("", 14)] * 11, label_width=18, note_width=30)
    sheet.title("Catalog", "Models, GPUs and strategies behind the Inputs dropdowns. Values are inputs.")
    styles = book.styles
    ws = sheet.ws

    # Models -------------------------------------------------------------------------------------------------
    sheet.section("Models (Llama 3.1 from Meta's model cards; Ψ exact)")
    models = results.catalog
    sheet.heading_row(["Model id"] + [h for _, h, _ in MODEL_COLUMNS] + [h for _, h, _, _ in DERIVED_MODEL_COLUMNS])
    first = sheet.row_index
    derived_params = None  # a custom model given by its architecture alone takes Ψ from it
    if not isinstance(results.scenario.model, str) and results.scenario.model.params is None:
        derived_params = results.scenario.model.name
    positive = kit.number(0, exclusive_minimum=True)
    for model_id, model in models.iterrows():
        r = sheet.row_index
        ws.write_string(r, 0, model_id, styles.label)
        cells = {key: xl_rowcol_to_cell(r, col) for col, (key, _, _) in enumerate(MODEL_COLUMNS, start=1)}
        for col, (key, _, template, kind) in enumerate(DERIVED_MODEL_COLUMNS, start=1 + len(MODEL_COLUMNS)):
            cells[key] = sheet.formula(r, col, kit.TEMPLATE.sub(lambda m: cells[m.group(1)], template), model[key],
                                       styles.value(kind))
        for col, (key, _, kind) in enumerate(MODEL_COLUMNS, start=1):
            value = model[key]
            if key == "params" and model_id == derived_params:
                sheet.formula(r, col, "=" + cells["params_from_architecture"], value, styles.value(kind))
            elif value is None or math.isnan(value):
                ws.write_blank(r, col, None, styles.value(kind, input=True))
            else:
                ws.write_number(r, col, float(value), styles.value(kind, input=True))
                sheet.validate(r, col, positive)
        sheet.row_index += 1
    last = sheet.row_index - 1
    _name_columns(book, sheet, "catalog_model", ["ids"] + [k for k, _, _ in MODEL_COLUMNS], first, last)
    sheet.text("A custom model without a given Ψ takes it from its architecture: Ψ = 2·V·h + L·(2·h·h + 2·h·kv·hd "
               "+ 3·h·FFN + 2·h) + h, which reproduces the Llama 3.1 counts exactly.", style=styles.note)
    sheet.skip()

    # GPUs ---------------------------------------------------------------------------------------------------
    sheet.section("GPUs (vendor data sheets; dense BF16 without sparsity)")
    sheet.heading_row(["GPU id"] + [h for _, h, _ in GPU_COLUMNS])
    first = sheet.row_index
    for gpu in results.scenario.gpus():
        r = sheet.row_index
        ws.write_string(r, 0, gpu.id, styles.label)
        for col, (key, _, kind) in enumerate(GPU_COLUMNS, start=1):
            ws.write_number(r, col, float(getattr(gpu, key)), styles.value(kind, input=True))
            sheet.validate(r, col, positive)
        sheet.row_index += 1
    _name_columns(book, sheet, "catalog_gpu", ["ids"] + [k for k, _, _ in GPU_COLUMNS], first, sheet.row_index - 1)
    sheet.skip()

    # Strategies ---------------------------------------------------------------------------------------------
    sheet.section("Training strategies (ZeRO stage: what is sharded across the data-parallel replicas)")
    sheet.heading_row(["Strategy id", "ZeRO stage", "Shards"])
    first = sheet.row_index
    shards = {0: "nothing (every replica holds everything)", 1: "optimizer state", 2: "optimizer state, gradients",
              3: "optimizer state, gradients, weights (FSDP full sharding)"}
    for strategy, stage in catalog.STRATEGIES.items():
        r = sheet.row_index
        ws.write_string(r, 0, strategy, styles.label)
        ws.write_number(r, 1, stage, styles.value("count"))
        ws.write_string(r, 2, shards[stage], styles.label)
        sheet.row_index += 1
    _name_columns(book, sheet, "catalog_strategy", ["ids", "zero_stage"], first, sheet.row_index - 1)
    return sheet


def _name_columns(book: kit.Book, sheet: kit.Sheet, prefix: str, keys: list[str], first: int, last: int) -> None:
    for col, key in enumerate(keys):
        book.define(f"{prefix}_{key}", sheet.name,
                    f"{xl_rowcol_to_cell(first, col)}:{xl_rowcol_to_cell(last, col)}")
