"""The Catalog sheet: models, GPUs, strategies, traffic presets and demand profiles that the Inputs dropdowns
choose from (docs/method.md, "Catalog"), the scenario's own entries merged in, and a few empty rows per block where
finance can add a model, a GPU, a preset or a profile.

Its values are inputs: edit a GPU's memory or price here and every sheet follows. Each column has a workbook-level
name over its whole block, empty rows included (catalog_model_params, catalog_gpu_ids, …), that INDEX/MATCH
formulas and dropdowns read; each column's limits come from the scenario model's catalog entries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic.fields import FieldInfo
from xlsxwriter.utility import xl_rowcol_to_cell

from planner import shipped
from planner.ledger_figures import LEDGER
from planner.engine.shared import HOURS_PER_DAY
from planner.model import engines as engine_rows
from planner.model import fields
from planner.scenario import catalog_entries as entries
from planner.scenario.declare import Fraction
from planner.workbook import kit, model
from planner.listing import Allowed

SNAPSHOT_COL = 40  # the first of the hidden columns that hold each block's values as generated (right of the widest
# block, its Valid and Changed columns)
EMPTY_ROWS = 10  # rows per block (columns for profiles) where a new entry can be typed
ID_RULE = {"validate": "length", "criteria": "between", "minimum": 1, "maximum": 64, "ignore_blank": True,
           "error_title": "Id", "error_message": "An id of 1 to 64 characters, without * ? or ~."}


@dataclass(frozen=True)
class CatalogColumn:
    key: str  # also the name's suffix: catalog_<block>_<key>
    header: str
    kind: str
    allowed: Allowed | None = None  # None: a formula column
    formula: str = ""  # a derived column's template over the same row's {key} cells


@dataclass(frozen=True)
class Block:
    """One Catalog table: its name prefix, title, id heading and columns, and a rule that joins a row's values
    (a template over the row's {key} cells) beside each value's own limits."""

    prefix: str  # catalog_model, catalog_gpu, …
    title: str
    id_header: str
    columns: tuple[CatalogColumn, ...]
    row_rule: str = ""
    section: str = ""  # its key in the scenario's catalog section (models, gpus, …)
    shape: str = "fields"  # "fields": a row of fields per entry; "value": one value per id; "columns": per column

    @property
    def ids(self) -> str:
        return f"{self.prefix}_ids"

    def name(self, column: CatalogColumn) -> str:
        return f"{self.prefix}_{column.key}"


def _declared(entry, declared: tuple[fields.Field, ...]) -> tuple[CatalogColumn, ...]:
    """A column per declared field of a catalog entry; every one required except those a row may leave blank."""
    optional = {f.key for f in declared if f.sheet_blank}
    columns = []
    for key, info in entry.model_fields.items():
        extra = info.json_schema_extra or {}
        allowed = Allowed.of(info, optional=key in optional)
        header = extra["label"] + (f" ({extra['unit']})" if extra["unit"] not in ("", "parameters", "layers", "heads")
                                   else "")
        columns.append(CatalogColumn(key, header, extra["kind"], allowed))
    return tuple(columns)


BLANK_WHEN_DEFAULT = tuple(f.key for f in fields.MODEL if f.sheet_blank and f.default in (0, False))  # a dense,
# grouped-query, untied model leaves them blank
ROW = model.CATALOG_ROW  # a model row's own cells
MODELS = Block("catalog_model", "Models (Llama 3.1 from Meta's model cards; mixtures of experts from their "
               "config.json; Ψ exact)", "Model id",
               _declared(entries.ModelEntry, fields.MODEL) + (
                   CatalogColumn("attention_params", "Attention per layer A", "params",
                                 formula="=" + model.attention_params(ROW)),
                   CatalogColumn("moe_layer_count", "MoE layers (used)", "count",
                                 formula="=" + model.moe_layer_count(ROW)),
                   CatalogColumn("params_from_architecture", "Ψ from architecture", "params",
                                 formula="=" + model.total_params(ROW)),
                   CatalogColumn("active_params", "Active Ψ_active", "params", formula="=" + model.active_of(ROW)),
                   CatalogColumn("routed_params", "Routed Ψ_routed", "params", formula="=" + model.routed_params(ROW)),
                   CatalogColumn("kv_kib_per_token", "KV cache per token (KiB, BF16)", "kib",
                                 formula=f"={model.kv_bytes_per_token(ROW, 'kv_bytes_per_value')}/1024")),
               row_rule="AND(MOD({heads},{kv_heads})=0,OR({experts}=0,AND({experts_per_token}>=1,"
                        "{experts_per_token}<={experts},{expert_ffn}>=1)),{moe_layers}<={layers})",
               section="models")
GPUS = Block("catalog_gpu", "GPUs (vendor data sheets, dense BF16 without sparsity; illustrative list prices)",
             "GPU id", _declared(entries.GPUEntry, fields.GPU), section="gpus")
PRECISIONS = Block("catalog_precision", "Precisions (weights and KV cache: bits per weight with scales, bytes per KV "
                   "value, FP8 GEMMs)", "Precision id", _declared(entries.PrecisionEntry, fields.PRECISION),
                   section="precisions")
TRAFFIC_PRESETS = Block("catalog_traffic_preset", "Traffic presets (served tokens per day; illustrative)",
                        "Preset id", (CatalogColumn("tokens_per_day", "Tokens per day", "count", Allowed.of(
                            FieldInfo.from_annotation(entries.TokensPerDay))),), section="traffic_presets",
                        shape="value")
PROFILES = Block("catalog_profile", "Demand profiles (inference demand by hour, as fractions of the peak; one "
                 "profile per column)", "Profile id", (CatalogColumn("fractions", "Hours 0 … 23", "percent", Allowed.of(
                     FieldInfo.from_annotation(Fraction))),), section="profiles", shape="columns")
API_OFFERS = Block("catalog_api_offer", "API offers (USD per million tokens; shipped prices illustrative: see "
                   "each row's source and date)", "Offer id", _declared(entries.ApiOfferEntry, fields.API_OFFER),
                   section="api_offers")
# the ones finance edits (strategies: the method's)
BLOCKS = (MODELS, GPUS, PRECISIONS, TRAFFIC_PRESETS, PROFILES, API_OFFERS)
STRATEGY_COLUMNS = ("ids", "zero_stage", "shards_optimizer", "shards_gradients", "shards_weights")
SHIPPED = {"models": shipped.MODELS, "gpus": shipped.GPUS, "precisions": shipped.PRECISIONS,
           "traffic_presets": shipped.TRAFFIC_PRESETS, "profiles": shipped.PROFILES, "api_offers": shipped.API_OFFERS}


def block_length(block: Block) -> int:
    """The most rows (profiles: columns) a block may have, as a workbook that comes back is read: its shipped
    entries, MAX_OWN_ENTRIES of the scenario's own and one inline (model: or gpu: a mapping), and EMPTY_ROWS. The
    planner never writes more; a longer block is refused before its rows are read."""
    return len(SHIPPED[block.section]) + entries.MAX_OWN_ENTRIES + 1 + EMPTY_ROWS


def laid_out(book: kit.Book, block: Block, entries: dict) -> list[tuple[str, object]]:
    """A block's rows (profiles: columns) in order, (id, entry) with ("", None) for an empty one: the entries, then
    EMPTY_ROWS empty rows; or, for the workbook an edited one is compared with, in the order that one has them (a
    row typed into an empty row or inserted inside the block moves no cell)."""
    order = book.catalog_rows.get(block.ids)
    if order is None:
        return list(entries.items()) + [("", None)] * EMPTY_ROWS
    found = [(key, entries[key]) if key in entries else ("", None) for key in order]
    return found + [(key, entry) for key, entry in entries.items() if key not in order]


def write(book: kit.Book, results) -> kit.Sheet:
    merged, own = results.scenario.merged_catalog, results.scenario.catalog
    widths = [17] * (len(MODELS.columns) + 1)
    for key in ("price_source", "price_as_of"):  # GPU text columns as wide as their longest value
        longest = max([len(str(getattr(gpu, key) or "")) for gpu in merged.gpus.values()])
        widths[[column.key for column in GPUS.columns].index(key)] = max(17, min(longest * 1.05 + 2, 40))
    sheet = book.sheet("Catalog", [("", w) for w in widths], label_width=18, note_width=2, unit_width=2)
    sheet.guarded = False  # a row's derived cells are guarded by its own Valid cell
    sheet.protect(insert_rows=True)  # a row inserted inside a block joins it: the names cover it
    sheet.title("Catalog", "Models, GPUs, strategies, traffic presets and demand profiles behind the Inputs "
                "dropdowns. Values are inputs; type a new entry in a block's empty rows.")
    derived = {key for key, entry in own.models.items() if entry.params is None and key not in shipped.MODELS}
    model_rows = [{**vars(m), **results.catalog_columns["models"][key]} for key, m in merged.models.items()]
    chosen = {MODELS.prefix: _block(book, sheet, MODELS, model_rows, formula_params=derived)}
    sheet.text("A model without a given Ψ takes it from its architecture: Ψ = 2·V·h + L·(2·h·h + 2·h·kv·hd + "
               "3·h·FFN + 2·h) + h, which reproduces the Llama 3.1 counts exactly.", style=book.styles.note)
    sheet.skip()
    chosen[GPUS.prefix] = _block(book, sheet, GPUS, [vars(g) for g in merged.gpus.values()])
    sheet.skip()
    _block(book, sheet, PRECISIONS, [vars(p) for p in merged.precisions.values()])
    sheet.skip()
    _engines(book, sheet, merged.engines)
    sheet.skip()
    _ledger(book, sheet)
    sheet.skip()
    _strategies(book, sheet)
    sheet.skip()
    _block(book, sheet, TRAFFIC_PRESETS, [{"id": k, "tokens_per_day": v} for k, v in merged.traffic_presets.items()])
    sheet.skip()
    peaks = {key: row["peak"] for key, row in results.catalog_columns["profiles"].items()}
    _profiles(book, sheet, merged.profiles, peaks)
    width = max(len(block.columns) for block in (MODELS, GPUS, PRECISIONS, TRAFFIC_PRESETS, API_OFFERS)) + 1
    assert SNAPSHOT_COL > width + 1, "the snapshot's columns right of every block's Changed column"
    sheet.hide_columns(SNAPSHOT_COL, SNAPSHOT_COL + width)
    assert min(HELPER_COLS) > width + 1, "the Valid rules' helper columns right of every block's Changed column"
    sheet.hide_columns(min(HELPER_COLS), max(HELPER_COLS))
    _in_use(book, sheet, {block.prefix: chosen[block.prefix].get(book.values.get(chooser)) for block, chooser, _
                          in IN_USE})
    sheet.skip()  # after the summary the Catalog prints, so every cell above stays where it was before API offers
    _block(book, sheet, API_OFFERS, [vars(o) for o in merged.api_offers.values()])
    sheet.print_sections(IN_USE[0][2], stop=API_OFFERS.title)
    sheet.printed_cols = PRINTED_COLS
    return sheet


IN_USE = ((MODELS, "model", "The plan's model"), (GPUS, "gpu", "The plan's GPU"))
PRINTED_COLS = 4  # the summary's last printed column: its text values run over the empty columns beside them


def _in_use(book: kit.Book, sheet: kit.Sheet, rows: dict[str, list]) -> None:
    """The rows of the blocks above that the plan uses (its model and GPU), one field a row, each looked up by the
    input that chooses it: what the Catalog prints (its whole tables stay on screen)."""
    for block, chooser, title in IN_USE:
        sheet.skip()
        sheet.section(f"{title}: its row of the table above, as the plan reads it (Inputs' {chooser})")
        written = rows[block.prefix] or [None] * (len(block.columns) + 1)  # not in the block: n/a
        sheet._label(sheet.row_index, block.id_header)
        sheet.formula(sheet.row_index, 1, f'=IFERROR(INDEX({block.ids},MATCH({chooser},{block.ids},0)),"n/a")',
                      written[0] or "n/a", book.styles.value("text"))
        sheet.row_index += 1
        for column, value in zip(block.columns, written[1:], strict=True):
            found = f"INDEX({block.name(column)},MATCH({chooser},{block.ids},0))"
            sheet._label(sheet.row_index, column.header)
            sheet.formula(sheet.row_index, 1, f'=IFERROR(IF({found}="","",{found}),"n/a")',
                          "n/a" if rows[block.prefix] is None else "" if value is None else kit.plain(value),
                          book.styles.value(column.kind))
            sheet.row_index += 1
    sheet.print_sections(IN_USE[0][2])
    sheet.printed_cols = PRINTED_COLS


CHANGED = "Changed"  # beside Valid: TRUE once a row's typed values differ from those when generated
CHANGED_WIDTH = 8  # characters: FALSE and the heading
VALID = "Valid"  # the last column of each block (the last row of the profiles): TRUE when the row's values are allowed


def valid_rule(block: Block, cells: dict[str, str], id_cell: str, derived=frozenset()) -> str:
    """A row's Valid formula (without "="): blank without an id, else TRUE while its id appears once in the block
    and every value typed in it is within its column's limits (and the block's row rule holds). Scalar functions
    only, so every spreadsheet application reads it alike. `derived`: the row's cells that are formulas."""
    rules = [f"COUNTIF({block.ids},{id_cell})=1"] + [column.allowed.check(cells[column.key])
                                                      for column in block.columns
                                                      if column.allowed is not None and column.key not in derived]
    if block.row_rule:
        rules.append(kit.TEMPLATE.sub(lambda m: cells[m.group(1)], block.row_rule))
    return f'IF({id_cell}="","",IFERROR(AND({",".join(rules)}),FALSE))'


_BRACKETS_AND_COMMAS = re.compile(r"[(),]")
HELPER_COLS = range(SNAPSHOT_COL - 1, SNAPSHOT_COL - 4, -1)  # hidden: a long Valid rule's further parts


def valid_parts(rule: str, row: int) -> list[tuple[int, str]]:
    """A row's Valid rule (valid_rule) as (column, formula without "="): itself, or, where it runs over
    kit.LONGEST_AND characters, its first rules in the Valid column ANDed with its further parts, each in a hidden
    helper column of the row (HELPER_COLS) under the same blank-without-an-id guard (no formula over 1,000
    characters)."""
    if len(rule) <= kit.LONGEST_AND:
        return [(-1, rule)]
    head, rules = rule.split("IFERROR(AND(", 1)
    rules = rules.removesuffix("),FALSE))")
    parts, depth, start = [], 0, 0
    for mark in _BRACKETS_AND_COMMAS.finditer(rules):  # the top-level rules, split at their commas
        ch = mark.group()
        depth += (ch == "(") - (ch == ")")
        if ch == "," and depth == 0:
            parts.append(rules[start:mark.start()])
            start = mark.end()
    parts.append(rules[start:])
    runs: list[list[str]] = [[]]
    for part in parts:
        if runs[-1] and len(",".join(runs[-1] + [part])) > kit.LONGEST_AND - 60:
            runs.append([])
        runs[-1].append(part)
    assert len(runs) - 1 <= len(HELPER_COLS), "a Valid rule longer than its helper columns hold"
    helpers = [xl_rowcol_to_cell(row, col) for col in HELPER_COLS[:len(runs) - 1]]
    first = runs[0] + [f"{cell}=TRUE" for cell in helpers]
    found = [(-1, f'{head}IFERROR(AND({",".join(first)}),FALSE))')]
    return found + [(col, f'{head}IFERROR(AND({",".join(run)}),FALSE))') for col, run in zip(HELPER_COLS, runs[1:])]


def _block(book: kit.Book, sheet: kit.Sheet, block: Block, rows: list[dict], formula_params=frozenset()) -> dict:
    """A block of entries and its empty rows, with each row's Valid column; every column named over the whole
    block. Returns each entry's id and values as written, by its id."""
    sheet.section(block.title)
    sheet.heading_row([block.id_header] + [column.header for column in block.columns] + [VALID, CHANGED], height=45)
    first = sheet.row_index
    written: list[list] = []  # each row's id and values as written: the snapshot its Changed flag compares with
    for _, values in laid_out(book, block, {row["id"]: row for row in rows}):
        values = values or {}
        r = sheet.row_index
        sheet.input_cell(r, 0, values.get("id", ""), "text", ID_RULE)
        written.append([values.get("id", "")])
        cells = {column.key: xl_rowcol_to_cell(r, col) for col, column in enumerate(block.columns, start=1)}
        valid_col = len(block.columns) + 1
        valid = xl_rowcol_to_cell(r, valid_col, False, True)
        derived = {"params"} if values.get("id") in formula_params else set()
        for col, column in enumerate(block.columns, start=1):
            value = values.get(column.key)
            if column.key in BLANK_WHEN_DEFAULT and not value and \
                    not getattr(shipped.MODELS.get(values.get("id")), column.key, None):
                value = None  # a dense, grouped-query, untied model leaves them blank (0 overrides a shipped MoE)
            written[-1].append(value)
            if column.formula:  # blank while the row is not valid: never an error value
                template = f'=IF({valid}=TRUE,{column.formula.lstrip("=")},"")'
                sheet.formula(r, col, kit.TEMPLATE.sub(lambda m: cells[m.group(1)], template),
                              "" if value is None else value, book.styles.value(column.kind))
            elif column.key in derived:
                sheet.formula(r, col, "=" + cells["params_from_architecture"], value, book.styles.value(column.kind))
            else:
                sheet.input_cell(r, col, value, column.kind, {**column.allowed.validation(), "ignore_blank": True})
        rule = valid_rule(block, cells, xl_rowcol_to_cell(r, 0, False, True), derived)
        for col, part in valid_parts(rule, r):
            sheet.formula(r, valid_col if col < 0 else col, "=" + part, True if values.get("id") else "",
                          book.styles.value("bool"))
        sheet.row_index += 1
    last = sheet.row_index - 1
    _changed(book, sheet, block, first=first, written=written)
    book.define(block.ids, sheet.name, f"{xl_rowcol_to_cell(first, 0)}:{xl_rowcol_to_cell(last, 0)}")
    for col, column in enumerate(block.columns, start=1):
        book.define(block.name(column), sheet.name, f"{xl_rowcol_to_cell(first, col)}:{xl_rowcol_to_cell(last, col)}")
    valid_col = len(block.columns) + 1
    book.define(f"{block.prefix}_valid", sheet.name,
                f"{xl_rowcol_to_cell(first, valid_col)}:{xl_rowcol_to_cell(last, valid_col)}")
    sheet.warn("false", first, valid_col, last, valid_col)
    return {row[0]: row for row in written if row[0]}


def _changed(book: kit.Book, sheet: kit.Sheet, block: Block, *, first: int, written: list[list]) -> None:
    """Each row's id and typed values as generated, in hidden columns (a snapshot an edited workbook keeps,
    <block>_snapshot), and its Changed flag beside Valid: TRUE once a value a result reads was edited since."""
    from planner.workbook.sensitivity import held

    kept = held(book, f"{block.prefix}_snapshot", [["" if v is None else v for v in row] for row in written])
    typed = [0] + [col for col, column in enumerate(block.columns, start=1) if column.allowed is not None]
    changed_col = len(block.columns) + 2
    for i, (now, then) in enumerate(zip(written, kept)):
        r = first + i
        for col, value in enumerate(then):
            sheet.value_cell(r, SNAPSHOT_COL + col, None if value == "" else value,
                             book.styles.value("text", constant=True), None)
        pairs = ",".join(f"EXACT({xl_rowcol_to_cell(r, col)},{xl_rowcol_to_cell(r, SNAPSHOT_COL + col)})"
                         for col in typed)
        edited = not all(_same(now[col], then[col]) for col in typed)
        sheet.formula(r, changed_col, f"=NOT(AND({pairs}))", edited, book.styles.value("bool"))
    last = first + len(written) - 1
    book.define(f"{block.prefix}_snapshot", sheet.name, f"{xl_rowcol_to_cell(first, SNAPSHOT_COL)}:"
                f"{xl_rowcol_to_cell(last, SNAPSHOT_COL + len(block.columns))}")
    book.define(f"{block.prefix}_changed", sheet.name,
                f"{xl_rowcol_to_cell(first, changed_col)}:{xl_rowcol_to_cell(last, changed_col)}")
    sheet.warn("changed", first, changed_col, last, changed_col)
    if sheet.width_of(changed_col) < CHANGED_WIDTH:  # TRUE and FALSE, not ###, whichever block's column it is
        sheet.set_width(changed_col, CHANGED_WIDTH)


def _same(now, then) -> bool:
    """EXACT of a cell as written and its snapshot: a blank as "" (an empty cell reads as "")."""
    from planner.listing import same_text

    return same_text("" if now is None else now, "" if then is None else then)


def _profiles(book: kit.Book, sheet: kit.Sheet, profiles: dict[str, tuple], peaks: dict[str, float]) -> None:
    """Demand profiles, one per column (ids across the top, hours 0 … 23 down), and empty columns; under the hours
    each profile's busiest hour (the Cluster sheet's peak fraction) and its Valid row."""
    sheet.section(PROFILES.title)
    heading = sheet.heading_row([PROFILES.id_header], height=15)
    columns = laid_out(book, PROFILES, profiles)
    fraction = PROFILES.columns[0]
    rule = {**fraction.allowed.validation(), "ignore_blank": True}
    hours = HOURS_PER_DAY
    peak_row, valid_row = heading + hours + 1, heading + hours + 2
    for col, (key, values) in enumerate(columns, start=1):
        sheet.input_cell(heading, col, key, "text", ID_RULE)
        for hour in range(hours):
            sheet.input_cell(heading + 1 + hour, col, None if values is None else values[hour], fraction.kind, rule)
        id_cell = xl_rowcol_to_cell(heading, col, True, False)
        column = (f"{xl_rowcol_to_cell(heading + 1, col, True, False)}:"
                  f"{xl_rowcol_to_cell(heading + hours, col, True, False)}")
        valid = xl_rowcol_to_cell(valid_row, col, True, False)
        sheet.formula(peak_row, col, f'=IF({valid}=TRUE,MAX({column}),"")', peaks.get(key, ""),
                      book.styles.value(fraction.kind))
        within = (f'COUNTIFS({column},">={fraction.allowed.minimum:g}",{column},"<={fraction.allowed.maximum:g}")'
                  "=hours_per_day")  # every hour of the day
        sheet.formula(valid_row, col, f'=IF({id_cell}="","",IFERROR(AND(COUNTIF({PROFILES.ids},{id_cell})=1,'
                      f"{within}),FALSE))", True if key else "", book.styles.value("bool"))
    for hour in range(hours):
        sheet.ws.write_string(heading + 1 + hour, 0, f"Hour {hour}", book.styles.label)
    sheet.ws.write_string(peak_row, 0, "Busiest hour", book.styles.label)
    sheet.ws.write_string(valid_row, 0, VALID, book.styles.label)
    last_col, last_row = len(columns), heading + hours
    book.define(PROFILES.ids, sheet.name, f"{xl_rowcol_to_cell(heading, 1)}:{xl_rowcol_to_cell(heading, last_col)}")
    book.define(PROFILES.name(fraction), sheet.name,
                f"{xl_rowcol_to_cell(heading + 1, 1)}:{xl_rowcol_to_cell(last_row, last_col)}")
    for row, key in ((peak_row, "peak"), (valid_row, "valid")):
        book.define(f"{PROFILES.prefix}_{key}", sheet.name,
                    f"{xl_rowcol_to_cell(row, 1)}:{xl_rowcol_to_cell(row, last_col)}")
    sheet.warn("false", valid_row, 1, valid_row, last_col)
    sheet.row_index = valid_row + 1


def _strategies(book: kit.Book, sheet: kit.Sheet) -> None:
    """The training strategies: what each ZeRO stage shards across the data-parallel replicas (the method's, so
    constants, not inputs)."""
    sheet.section("Training strategies (ZeRO stage: what is sharded across the data-parallel replicas)")
    sheet.heading_row(["Strategy id", "ZeRO stage", "Shards optimizer state", "Shards gradients", "Shards weights",
                       "What is sharded"])
    first = sheet.row_index
    constant, logical = book.styles.value("count", constant=True), book.styles.value("bool", constant=True)
    for strategy, stage in shipped.STRATEGIES.items():
        r = sheet.row_index
        sheet.value_cell(r, 0, strategy, constant, None)
        sheet.value_cell(r, 1, stage, constant, None)
        for col, what in enumerate(("optimizer", "gradients", "weights"), start=2):
            sheet.value_cell(r, col, stage >= shipped.SHARDED_FROM_STAGE[what], logical, None)
        sheet.ws.write_string(r, 5, shipped.STRATEGY_SHARDS[stage], book.styles.unit)  # indented: clear of the
        # TRUE/FALSE beside it
        sheet.row_index += 1
    for col, key in enumerate(STRATEGY_COLUMNS):
        book.define(f"catalog_strategy_{key}", sheet.name,
                    f"{xl_rowcol_to_cell(first, col)}:{xl_rowcol_to_cell(sheet.row_index - 1, col)}")


LEDGER_COLUMNS = (("gpu", "GPU", "text"), ("engine", "Engine", "text"), ("words", "Measurements of", "text"),
                  ("rows", "Held out", "count"), ("within_15", "Within ±15 %", "count"),
                  ("within_25", "Within ±25 %", "count"), ("median_ratio", "Median ratio", "ratio"),
                  ("fitted", "Fitted on", "count"))


def _ledger(book: kit.Book, sheet: kit.Sheet) -> None:
    """The accuracy ledger's figures per GPU × engine (docs/accuracy.md; planner/ledger_figures.py, regenerated
    with it): what the Serving sheet cites for the GPU and engine in use, by the key gpu|engine (catalog_ledger_key).
    The planner's published figures, not inputs: a constant table, as the engines table is."""
    sheet.section("Accuracy ledger (docs/accuracy.md): published measurements predicted within ±15 % and ±25 %, per "
                  "GPU × engine, held out")
    sheet.heading_row([header for _, header, _ in LEDGER_COLUMNS] + ["Key"], height=30)
    first = sheet.row_index
    for (gpu, engine), figures in LEDGER.items():
        r, values = sheet.row_index, dict(zip([key for key, _, _ in LEDGER_COLUMNS], (gpu, engine, *figures)))
        for col, (key, _, kind) in enumerate(LEDGER_COLUMNS):
            sheet.value_cell(r, col, values[key] if values[key] is not None else "",
                             book.styles.value(kind, constant=True), None)
        sheet.value_cell(r, len(LEDGER_COLUMNS), f"{gpu}|{engine}", book.styles.value("text", constant=True), None)
        sheet.row_index += 1  # the key a constant too: the table is the planner's, not an input
    last = sheet.row_index - 1
    for col, (key, _, _) in enumerate(LEDGER_COLUMNS + (("key", "", ""),)):
        book.define(f"catalog_ledger_{key}", sheet.name,
                    f"{xl_rowcol_to_cell(first, col)}:{xl_rowcol_to_cell(last, col)}")


ENGINE_COLUMNS = (("engine", "Engine", "text"), ("gpu", "GPU", "text"), ("precision", "Weight precision", "text"),
                  *((f.key, f.heading, f.kind) for f in fields.ENGINE), ("source", "Source", "text"),
                  ("as_of", "As of", "text"))


def _engines(book: kit.Book, sheet: kit.Sheet, rows: dict) -> None:
    """The engines table (docs/method.md §14.3): priors by engine, GPU and weight precision (`any`: every one), each
    row's blank cells filled from the rows it falls back to (its source names them), and the key column the Serving
    sheet's lookup MATCHes (catalog_engine_key, engine|gpu|precision). Its values are the planner's: a scenario adds
    or overrides rows under catalog.engines. Then the engines' ids (catalog_engine_ids, the Inputs dropdown)."""
    sheet.section("Engines (priors by serving engine × GPU × weight precision; docs/method.md §14.3; add or override "
                  "rows under catalog.engines)")
    sheet.heading_row([header for _, header, _ in ENGINE_COLUMNS] + ["Key"], height=45)
    first = sheet.row_index
    for row in rows.values():
        r = sheet.row_index
        values = {"engine": row.engine, "gpu": row.gpu, "precision": row.precision, **row.priors,
                  "source": row.source, "as_of": row.as_of}
        for col, (key, _, kind) in enumerate(ENGINE_COLUMNS):
            sheet.value_cell(r, col, values[key], book.styles.value(kind, constant=True), None)
        cells = [xl_rowcol_to_cell(r, col) for col in range(3)]
        sheet.formula(r, len(ENGINE_COLUMNS), '=' + '&"|"&'.join(cells), engine_rows.lookup_key(row.key),
                      book.styles.value("text"))
        sheet.row_index += 1
    last = sheet.row_index - 1
    for col, (key, _, _) in enumerate(ENGINE_COLUMNS + (("key", "", ""),)):
        book.define(f"catalog_engine_{key}", sheet.name,
                    f"{xl_rowcol_to_cell(first, col)}:{xl_rowcol_to_cell(last, col)}")
    sheet.skip()
    sheet.section("Engine ids (the Inputs dropdown of serving.engine)")
    first = sheet.row_index
    for engine in engine_rows.engine_ids(rows):
        sheet.value_cell(sheet.row_index, 0, engine, book.styles.value("text", constant=True), None)
        sheet.row_index += 1
    book.define("catalog_engine_ids", sheet.name,
                f"{xl_rowcol_to_cell(first, 0)}:{xl_rowcol_to_cell(sheet.row_index - 1, 0)}")
