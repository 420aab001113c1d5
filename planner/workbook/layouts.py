"""The Layouts sheet (docs/method.md §10): the step-time model of each shown layout as live formulas. The search
itself stays in the engine; the sheet shows its counts, the ten cheapest layouts that meet the deadline, the front
of days against cost and the reference layouts. Each shown layout's integers (N, t, p, c, b, v, ZeRO, recompute)
are the engine's snapshot as searched (grey, locked), and every term beside them is a formula of them, of Inputs
and of Catalog (η, NET, the price); a check says when the GPU, deadline or GPU budget no longer are those
searched. Every formula is the engine's expression (planner/engine/layouts.py) in the sheet's names."""

from __future__ import annotations

from planner.engine import layouts as engine
from planner.model import fields
from planner.workbook import kit, model
from planner.workbook.kit import Check, KeyResult, Row
from planner.workbook.sensitivity import held

SHEET = "Layouts"


NEEDED = fields.needed_by(fields.GPU, fields.SEARCH)  # the GPU figures only the layout search reads


def _lookup(column: str) -> str:
    return f"INDEX(catalog_gpu_{column},MATCH(gpu,catalog_gpu_ids,0))"


S = "memory_sequence_length"
B = "search_global_batch"
MODEL = [
    Row("network_gbps", "GPU network per GPU NET", formula="=" + _lookup("network_gbps"), kind="count", unit="GB/s",
        note="Catalog: the scale-out network per GPU", name="gpu_network_gbps"),
    Row("gpus_per_node", "GPUs per node GPN", formula="=" + _lookup("gpus_per_node"), kind="count", unit="GPUs",
        note="Catalog: one NVLink domain", name="gpu_gpus_per_node"),
    Row("gemm_efficiency", "Sustained GEMM share η", formula="=" + _lookup("gemm_efficiency"), kind="percent",
        unit="of peak", note="Catalog: fitted on A100 and H100; edit it there", name="gpu_gemm_efficiency"),
    Row("attention_width", "Attention width A = heads · head dim", formula="=model_heads*model_head_dim",
        kind="count", name="search_attention_width"),
    Row("kv_width", "KV width G = KV heads · head dim", formula="=model_kv_heads*model_head_dim", kind="count",
        name="search_kv_width"),
    Row("layer_params", "Layer parameters Ψ_L = L·(2hA + 2hG + (3 or 2)·h·F)",
        formula=f"=model_layers*({model.gqa_attention_params(model.ModelCells())}"
                f"+{model.ffn_matrices(model.ModelCells())}*model_hidden*model_ffn)", kind="giga",
        unit="B parameters",
        note="3 matrices per gated (SwiGLU) MLP, 2 per GeLU MLP; norms left out", name="search_layer_params"),
    Row("embedding_params", "Output layer Ψ_E = V·h", formula="=model_vocab*model_hidden", kind="giga",
        unit="B parameters", name="search_embedding_params"),
    Row("layer_flops", "FLOPs per token and layer f = 6·Ψ_L/L + 12·A·s",
        formula=f"=training_ops_per_param_token*search_layer_params/model_layers+attention_ops_per_token_position"
                f"*search_attention_width*{S}", kind="giga", unit="GFLOP", name="search_layer_flops",
        note="Full s² attention (the Megatron and PaLM convention)"),
    Row("recompute_flops", "… added by full recompute 2·Ψ_L/L + 4·A·s",
        formula=f"=(recompute_ops_per_param_token-training_ops_per_param_token)*search_layer_params/model_layers"
                f"+recompute_attention_ops*search_attention_width*{S}", kind="giga", unit="GFLOP",
        name="search_recompute_flops", note="Selective recompute adds the attention part, 4·A·s, alone"),
    Row("peak_flops", "Peak P = BF16 TFLOPS · 1e12", formula="=gpu_peak_tflops*1e12", kind="tera", unit="TFLOP/s",
        name="search_peak_flops"),
    Row("hbm", "HBM bandwidth", formula="=gpu_hbm_tbps*1e12", kind="giga", unit="GB/s", name="search_hbm"),
    Row("nvlink", "NVLink sustained NVe = NV · 0.65", formula="=gpu_nvlink_gbps*nvlink_efficiency*1e9",
        kind="giga", unit="GB/s", name="search_nvlink"),
    Row("network", "Network sustained NETe = NET · 0.90", formula="=gpu_network_gbps*network_efficiency*1e9",
        kind="giga", unit="GB/s", name="search_network"),
    Row("usable_gb", "Usable memory = headroom · GPU GB · 2^30", formula="=search_headroom*gpu_memory_gb*2^30/1e9",
        kind="gb", note="The GPU's GB counted as GiB, as frameworks count them, unlike the Memory sheet's decimal GB",
        name="search_usable_gb"),
    Row("steps", "Optimizer steps = T / (B · s)", formula=f"=hours_tokens/({B}*{S})", kind="count", unit="steps",
        name="search_steps"),
]

FULL, SELECTIVE, NONE = '{recompute}="full"', '{recompute}="selective"', '{recompute}="none"'


def _link(group: str) -> str:
    return f"IF({group}<=gpu_gpus_per_node,search_nvlink,search_network)"


# (key, heading, kind, template or None for an input cell, engine value of one layout)
INTEGERS = [("gpus", "GPUs N"), ("tensor_parallel", "t"), ("pipeline_parallel", "p"), ("context_parallel", "c"),
            ("micro_batch", "b"), ("interleave", "v"), ("zero", "ZeRO"), ("recompute", "Recompute")]
_WHOLE = "IF(ISNUMBER({{{key}}}),AND({{{key}}}=INT({{{key}}}),{{{key}}}>={low}),FALSE)"
VALID = ("=IF(AND(" + ",".join(_WHOLE.format(key=k, low=1) for k, _ in INTEGERS if k not in ("zero", "recompute"))
         + ",IF(ISNUMBER({zero}),AND({zero}=INT({zero}),{zero}>=0,{zero}<=3),FALSE)"
         + ',OR({recompute}="none",{recompute}="selective",{recompute}="full")),'
         "MOD({gpus},{tensor_parallel}*{pipeline_parallel}*{context_parallel})=0,FALSE)")
COLUMNS = [  # each but the first reads "n/a" while its row's integers are not valid (a blank, text, 0, t·p·c ∤ N)
    ("valid", "Integers valid", "bool", VALID),  # whole, in range, t·p·c divides N: the check's note says so
    ("data_parallel", "d = N/(t·p·c)", "count", "={gpus}/({tensor_parallel}*{pipeline_parallel}*{context_parallel})"),
    ("micro_batches", "m = B/(d·b)", "count", f"={B}/({{data_parallel}}*{{micro_batch}})"),
    ("tokens", "tok = b·s/c", "count", f"={{micro_batch}}*{S}/{{context_parallel}}"),
    ("stage_layers", "L/p", "decimal", "=model_layers/{pipeline_parallel}"),
    ("fullest", "Layers of the fullest stage", "count", "=CEILING(model_layers/{pipeline_parallel},1)"),
    ("act", "Activation bytes per token and layer", "count",
     "=" + model.layer_activation_bytes_per_token("model_hidden", "{tensor_parallel}", "search_sequence_parallel")),
    ("att", "Attention-score bytes per token and layer", "count",
     f"=IF(search_flash_attention,0,attention_score_bytes*model_heads*{S}/{{tensor_parallel}})"),
    ("gemm", "GEMM per micro-batch (s)", "decimal",
     f"={{tokens}}*{{stage_layers}}*(search_layer_flops+IF({FULL},search_recompute_flops,IF({SELECTIVE},"
     f"recompute_attention_ops*search_attention_width*{S},0)))/({{tensor_parallel}}*gpu_gemm_efficiency"
     "*search_peak_flops)"),
    ("logit", "Output layer (s)", "decimal",
     "=training_ops_per_param_token*{tokens}*search_embedding_params/({tensor_parallel}*gpu_gemm_efficiency"
     "*search_peak_flops)"),
    ("memory", "Memory-bound (s)", "decimal",
     f"={{tokens}}*({{stage_layers}}*hbm_passes_per_activation_byte*({{act}}*IF({FULL},recompute_traffic_factor,1)"
     f"+{{att}}*IF({NONE},1,recompute_traffic_factor))+logit_traffic_bytes*model_vocab/{{tensor_parallel}})"
     "/search_hbm"),
    ("tp", "TP (s)", "decimal",
     f"=IF({{tensor_parallel}}>1,(tp_collectives_per_layer+recompute_tp_collectives*IF({FULL},1,0))"
     "*{stage_layers}*(2*({tensor_parallel}-1)/{tensor_parallel}*serving_activation_bytes*{tokens}*model_hidden/search_nvlink"
     "+tp_collective_latency_us/per_million),0)"),
    ("cp", "CP (s)", "decimal",
     f"=IF({{context_parallel}}>1,(cp_exchanges_per_layer+recompute_cp_exchanges*IF({FULL},1,0))*{{stage_layers}}"
     "*({context_parallel}-1)*kv_tensors_per_layer*serving_activation_bytes*{tokens}*search_kv_width/{tensor_parallel}"
     f"/{_link('{tensor_parallel}*{context_parallel}')},0)"),
    ("pp", "PP sends (s)", "decimal",
     "=IF({pipeline_parallel}>1,pp_sends_per_micro_batch*{interleave}*(serving_activation_bytes*{tokens}*model_hidden"
     f"/{{tensor_parallel}}/{_link('{tensor_parallel}*{pipeline_parallel}')}+pp_send_latency_us/per_million),0)"),
    ("micro_batch_s", "Micro-batch on a stage (s)", "decimal",
     "=IF(search_tp_overlap,MAX({gemm}+{memory},{tp}),{gemm}+{memory}+{tp})+{cp}+{pp}"),
    ("critical", "Critical stage (s)", "decimal",
     "=IF(AND(search_balanced_stages,{pipeline_parallel}>1),{micro_batch_s}*{fullest}/{stage_layers},"
     "{micro_batch_s}+{logit})"),
    ("bubble", "Bubble (s)", "decimal", "=({pipeline_parallel}-1)/{interleave}*{critical}"),
    ("stage_params", "Parameters per GPU Ψ_g (billions)", "giga",
     "=search_layer_params/({tensor_parallel}*{pipeline_parallel})+search_embedding_params/{tensor_parallel}"),
    ("dp_comm", "DP traffic time (s)", "decimal",
     "=({data_parallel}*{context_parallel}-1)/({data_parallel}*{context_parallel})*{stage_params}"
     "*(IF(AND({zero}=3,search_fsdp_regather),2,1)*serving_activation_bytes+search_grad_reduce_bytes)"
     "/IF({gpus}<=gpu_gpus_per_node,search_nvlink,MIN(search_nvlink,MAX(1,INT(gpu_gpus_per_node/({tensor_parallel}"
     "*{context_parallel}*{pipeline_parallel})))*search_network))"),
    ("dp", "Exposed DP (s)", "decimal",
     "=IF(AND({zero}=3,search_fsdp_regather),{micro_batches},1)*IF(search_dp_overlap,MAX(0,{dp_comm}-{critical}),"
     "{dp_comm})"),
    ("optimizer", "Optimizer (s)", "decimal",
     "={stage_params}/IF({zero}>=1,{data_parallel}*{context_parallel},1)*adam_step_bytes_per_param/search_hbm"),
    ("step", "Step time (s)", "decimal", "={micro_batches}*{critical}+{bubble}+{dp}+{optimizer}"),
    ("mfu", "MFU (planner)", "percent",
     f"=training_ops_per_param_token*model_params*{B}*{S}/({{gpus}}*{{step}}*search_peak_flops)"),
    ("megatron_mfu", "MFU (Megatron)", "percent",
     f"={B}*{S}*(training_ops_per_param_token*(search_layer_params+search_embedding_params)"
     f"+attention_ops_per_token_position*model_layers*search_attention_width*{S})/({{gpus}}*{{step}}"
     "*search_peak_flops)"),
    ("states_gb", "States (GB)", "gb",
     f"={{stage_params}}*{model.state_bytes_per_param('{zero}', '({data_parallel}*{context_parallel})')}/1e9"),
    ("layer_gb", "One layer's activations (GB)", "gb", f"={{tokens}}*({{act}}+IF({SELECTIVE},0,{{att}}))/1e9"),
    ("activations_gb", "Activations (GB)", "gb",
     "=MIN({pipeline_parallel},CEILING({micro_batches},1))*IF({interleave}>1,1+({pipeline_parallel}-1)"
     f"/({{pipeline_parallel}}*{{interleave}}),1)*{{fullest}}*IF({FULL},{{tokens}}"
     f"*{model.checkpointed_bytes_per_token('model_hidden', '{tensor_parallel}')}/1e9,{{layer_gb}})"
     f"+IF({FULL},{{layer_gb}},0)"),
    ("logits_gb", "Logits (GB)", "gb",
     "=IF({pipeline_parallel}=1,logit_bytes*{tokens}*model_vocab/{tensor_parallel},0)/1e9"),
    ("memory_gb", "Memory per GPU (GB)", "gb", "={states_gb}+{activations_gb}+{logits_gb}"),
    ("fits", "Fits", "bool", "={memory_gb}<=search_usable_gb"),
    ("days", "Days", "days", "={step}*search_steps/86400"),
    ("gpu_hours", "GPU-hours", "hours", "={step}*{gpus}*search_steps/seconds_per_hour"),
    ("cost", "Training cost, paid once", "money0", "={gpu_hours}*price_per_gpu_hour_converted"),
    ("meets_deadline", "Fits and meets the deadline", "bool",
     "=AND({fits},OR(ISBLANK(search_deadline_days),{days}<=search_deadline_days))"),
]
WARN = {"fits": "false", "meets_deadline": "false"}
HEADLINE = {"gpus": "search_cheapest_gpus", "days": "search_cheapest_days", "cost": "search_cheapest_cost",
            "mfu": "search_cheapest_mfu", "meets_deadline": "search_cheapest_meets_deadline"}


def _validation(key: str) -> dict:
    if key == "recompute":
        return {"validate": "list", "source": list(engine.RECOMPUTE)}
    if key == "zero":
        return {"validate": "integer", "criteria": "between", "minimum": 0, "maximum": 3}
    return {"validate": "integer", "criteria": "between", "minimum": 1, "maximum": 10**9}


def _layouts(sheet: kit.Sheet, table, rows: list[dict], labels: list[str], *, named: bool = False,
             extra: tuple[str, str] | None = None) -> tuple[int, int, int]:
    """A table of layouts: the integers as input cells, then one formula column per term; returns (header, first,
    last row). `named`: the first row's cells carry the headline names; `extra`: a last column of text per row."""
    styles = sheet.book.styles
    headings = [""] + [h for _, h in INTEGERS] + [h for _, h, _, _ in COLUMNS] + ([extra[0]] if extra else [])
    header = sheet.heading_row(headings, height=62)
    first, last = header + 1, header + len(rows)
    keys = [k for k, _ in INTEGERS] + [k for k, _, _, _ in COLUMNS]
    for col, key in enumerate(keys, start=1):
        sheet.places[key] = kit.Place("column", first, col, last, col)
    kinds = {key: kind for key, _, kind, _ in COLUMNS}
    for i, (row, label) in enumerate(zip(rows, labels)):
        r = first + i
        sheet._label(r, label)
        values = {**{key: row[key] for key, _ in INTEGERS}, "valid": True, **table.row_values(row)}
        for col, (key, _) in enumerate(INTEGERS, start=1):  # the engine's snapshot as searched: grey, locked
            sheet.value_cell(r, col, values[key], styles.value("text" if key == "recompute" else "count",
                                                               constant=True), None)
        for col, (key, _, kind, template) in enumerate(COLUMNS, start=1 + len(INTEGERS)):
            if key != "valid":
                template = f'=IF({{valid}},{template[1:]},"n/a")'
            if named and i == 0 and key in HEADLINE:  # the cheapest only while the search's problem stands
                template = f'=IF(ok_search_as_searched,{template[1:]},"{STALE}")'
            cell = sheet.formula(r, col, sheet.expand(template, r, col), values[key], styles.value(kind))
            if named and i == 0 and key in HEADLINE:
                sheet.book.define(HEADLINE[key], sheet.name, cell, values[key])
        if extra:
            sheet.ws.write_string(r, len(keys) + 1, row.get(extra[1]) or "", styles.note)
    for col, key in enumerate(keys, start=1):
        if kinds.get(key) and key in WARN:
            sheet.warn(WARN[key], first, col, last, col)
    sheet.row_index = last + 1
    return header, first, last


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.layouts
    width = len(INTEGERS) + len(COLUMNS)
    sheet = book.sheet(SHEET, [("", 13)] + [("", 11)] * (width - 1), note_width=44, beside=True)
    sheet.title("Layout search: the layouts that finish by the deadline at least cost", "docs/method.md §10: a step "
                "time per layout from its GEMMs, memory-bound work, collectives, pipeline bubble and optimizer; the "
                "search runs in the engine, the rows below are live formulas of their integers.")
    _problem(sheet, table)
    _counts(sheet, table.search)
    shown_tables = _cheapest(sheet, table)  # each table of layouts' (header, first, last row), in sheet order
    shown_tables += _front(sheet, table)
    shown_tables += _references(sheet, table)
    _rows_valid(sheet, shown_tables)
    return sheet


def _problem(sheet: kit.Sheet, table) -> None:
    """What every layout shares: the model, the GPU and the run, and how a layout fits."""
    sheet.section("The model, the GPU and the run")
    sheet.rows(MODEL, table.problem_values())
    sheet.text("A layout fits when its memory per GPU is at most the usable memory above: the GPU's GB counted as "
               "GiB (2^30 bytes) times the headroom, as frameworks count memory. The Memory sheet counts decimal GB "
               "(1e9 bytes): the two differ on purpose.", style=sheet.book.styles.note, height=30)
    sheet.skip()


def _counts(sheet: kit.Sheet, found) -> None:
    """The engine's counts of the grid's layouts, and why there is no cheapest layout when there is none."""
    sheet.section("What the search found, as searched when generated (the engine's counts and layouts: a snapshot; "
                  "the search itself is not a formula)")
    _searched(sheet)
    for name, label, value in (
            ("search_valid_layouts", "Valid layouts (the grid's rules)", found.valid_layouts),
            ("search_fitting_layouts", "… that fit in memory", found.fitting_layouts),
            ("search_deadline_layouts", "… and meet the deadline", found.deadline_layouts)):
        sheet.constant(name, label, value, kind="count", unit="layouts", note="")
    if found.reason:
        sheet.text(f"No cheapest layout: {found.reason}.", style=sheet.book.styles.note)
    sheet.skip()


SEARCHED = ("gpu", "search_deadline_days", "search_gpus_max")  # what the shown layouts were searched for
STALE = "n/a: the GPU, deadline or GPU budget changed since the search; run the planner again"


def _searched(sheet: kit.Sheet) -> None:
    """The GPU, deadline and GPU budget the search ran for (a snapshot an edited workbook keeps), which the check
    search_as_searched compares with Inputs: the shown layouts are the search's only while they stand."""
    book, r = sheet.book, sheet.row_index
    rows = [[book.values.get(name, "")] for name in SEARCHED]
    kept = held(book, "search_problem_snapshot", [["" if v is None else v] for [v] in rows])
    for i, (name, [value]) in enumerate(zip(SEARCHED, kept)):
        sheet._label(r + i, f"Searched for: {name} (as generated)")
        sheet.value_cell(r + i, sheet.own_col, None if value == "" else value, book.styles.value("text", constant=True),
                         None)
    book.define("search_problem_snapshot", sheet.name, f"{kit.xl_rowcol_to_cell(r, sheet.own_col)}:"
                f"{kit.xl_rowcol_to_cell(r + len(SEARCHED) - 1, sheet.own_col)}")
    sheet.row_index = r + len(SEARCHED)


def _cheapest(sheet: kit.Sheet, table) -> list[tuple[int, int, int]]:
    """The ten cheapest layouts, the first carrying the headline names (constants saying "none" when no layout fits
    and meets the deadline); returns the table's (header, first, last row), if any."""
    found, shown = table.search, []
    sheet.section("The ten cheapest layouts that fit and meet the deadline, one per (N, t, p, c), as searched when "
                  "generated")
    if found.cheapest:
        shown.append(_layouts(sheet, table, found.cheapest,
                              [f"Cheapest {i}" for i in range(1, len(found.cheapest) + 1)], named=True))
        sheet.row(Row("cheapest_gpus", "Cheapest layout's GPUs N, while the search stands", kind="count",
                      unit="GPUs", formula=f'=IF(ok_search_as_searched,{kit.xl_rowcol_to_cell(shown[-1][1], 1)},'
                      f'"{STALE}")', name=HEADLINE["gpus"], note="As searched when generated"),
                  found.cheapest[0]["gpus"])
    else:
        for key in ("gpus", "days", "cost", "mfu"):
            sheet.constant(HEADLINE[key], f"Cheapest layout: {key}", engine.NO_LAYOUT, kind="text", unit="",
                           note="No layout fits and meets the deadline")
        sheet.constant(HEADLINE["meets_deadline"], "Cheapest layout meets the deadline", False, kind="bool",
                       unit="", note="none")
    sheet.skip()
    return shown


def _front(sheet: kit.Sheet, table) -> list[tuple[int, int, int]]:
    """The front of days against cost and its chart; returns the table's (header, first, last row), if any."""
    found, shown = table.search, []
    sheet.section("The front: each layout cheaper than every faster one (days against cost)")
    if found.front:
        shown.append(_layouts(sheet, table, found.front, [f"Front {i}" for i in range(1, len(found.front) + 1)]))
        sheet.front_chart(name="Front: days against cost", x="days", y="cost",
                          title="Days against cost: the front of the layout search",
                          x_axis={"name": "Days (log scale)", "num_format": "#,##0", "log_base": 10},
                          y_axis={"name": f"Cost ({sheet.book.currency_symbol} millions)",
                                  "num_format": '#,##0.0,,"M"'})
    sheet.skip()
    return shown


def _references(sheet: kit.Sheet, table) -> list[tuple[int, int, int]]:
    """The reference layouts that could be evaluated as a table, the others as a line of why; returns the table's
    (header, first, last row), if any."""
    found, tables = table.search, []
    shown = [(i, ref) for i, ref in enumerate(found.references, start=1) if ref["step_time_s"] is not None]
    if found.references:
        sheet.section("Reference layouts (search.layouts; blank fields searched: the fastest that fits)")
        if shown:
            tables.append(_layouts(sheet, table, [ref for _, ref in shown], [f"Reference {i}" for i, _ in shown],
                                   extra=("Why it does not fit (as generated)", "reason")))
        for i, ref in enumerate(found.references, start=1):
            if ref["step_time_s"] is None:
                sheet.text(f"Reference {i}: {ref['reason']}", style=sheet.book.styles.note)
    sheet.skip()
    return tables


def _rows_valid(sheet: kit.Sheet, shown_tables: list[tuple[int, int, int]]) -> None:
    """search_rows_valid: no shown table's "Integers valid" column reads FALSE."""
    valid = 1 + len(INTEGERS)  # each shown table's "Integers valid" column
    every = ",".join(f"COUNTIF({kit.xl_rowcol_to_cell(first, valid, True, True)}:"
                     f"{kit.xl_rowcol_to_cell(last, valid, True, True)},FALSE)=0"
                     for _, first, last in shown_tables) or "TRUE"
    sheet.row(Row("rows_valid", "Every shown layout's integers are valid", formula=f"=AND({every})", kind="bool",
                  unit="", name="search_rows_valid", note="A blank, text, 0 or a t·p·c that does not divide N "
                  "makes its row n/a and this FALSE"), True)


KEY_RESULTS = [
    KeyResult("search_cheapest_cost", "Cheapest layout that fits and meets the deadline: training cost, paid once",
              kind="money0", unit=""),
    KeyResult("search_cheapest_days", "… its days", kind="days", unit="days"),
    KeyResult("search_cheapest_gpus", "… its GPUs", kind="count", unit="GPUs"),
    KeyResult("search_cheapest_mfu", "… its predicted MFU (planner's)", kind="percent", unit=""),
]

CHECKS = [
    Check("search_layout_found", "Layout search: a layout fits and meets the deadline",
          formula="search_cheapest_meets_deadline=TRUE", note="The cheapest row on Layouts, as its integers now stand"),
    Check("search_gpu_known", "Layout search: the GPU's NVLink, network, GPUs per node and GEMM efficiency are given "
          "(Catalog, the GPU's row)", formula="AND(" + ",".join(f"ISNUMBER({_lookup(key)})" for key in NEEDED) + ")",
          note="Blank on Catalog: only the layout search needs them", about=("search_",)),
    Check("search_as_searched", "Layout search: the GPU, the deadline and the GPU budget are those searched (else "
          "run the planner again)", formula="AND(" + ",".join(f"EXACT({name},INDEX(search_problem_snapshot,{i},1))"
                                                             for i, name in enumerate(SEARCHED, start=1)) + ")",
          note="The shown layouts, their counts and the cheapest are a snapshot of the search for those"),
    Check("search_rows_valid", "Layout search: every shown layout's integers are whole numbers in range",
          formula="search_rows_valid", note="Layouts: a blank, text or 0, or t·p·c not dividing N"),
]
