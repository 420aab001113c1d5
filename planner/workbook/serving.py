"""The Serving sheet (docs/method.md §6): one replica of t GPUs as a roofline. The precisions and the GPU looked up
in Catalog, what a token costs per GPU, the capacity (how many sequences fit), one request on an idle server, the
values at the users, at B = 1 and at B_max, the table over concurrency with its charts, and the measured benchmark
runs beside their predictions. Every formula is the engine's expression (planner/engine/serving.py) spelled in
the sheet's names."""

from __future__ import annotations

from dataclasses import replace

from planner.engine.serving import DOES_NOT_FIT, TABLE_ROWS
from planner.workbook import kit, model
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Serving"

T = "serving_tensor_parallel"
R = model.SERVING  # the scenario's replica: the names below and on Memory

AT = {  # key → (label, unit, kind, the expression at B)
    "tpot_ms": ("Time per output token TPOT(B)", "ms", "tenths", lambda b: f"{model.tpot_s(R, b)}*1000"),
    "itl_ms": ("Inter-token latency under load ITL = cycle / o", "ms", "tenths",
               lambda b: f"{model.cycle_s(R, b)}/serving_output_tokens*1000"),
    "tokens_per_s_per_gpu": ("Output tokens per second per GPU", "tokens/s", "count",
                             lambda b: model.tokens_per_second_per_gpu(R, b)),
    "cost_per_million_tokens": ("Cost per million output tokens", "per M tokens", "money",
                                lambda b: model.cost_per_million_tokens(R, b)),
    "mfu": ("Serving MFU 2·Ψ_active·TokS / BF16 peak", "of peak", "percent", lambda b: model.serving_mfu(R, b)),
}


def _lookup(block: str, column: str, choice: str) -> str:
    return f"INDEX(catalog_{block}_{column},MATCH({choice},catalog_{block}_ids,0))"


LOOKUPS = [
    Row("weight_bits", "Bits per weight (weight precision)",
        formula="=" + _lookup("precision", "weight_bits", "serving_weight_precision"), kind="decimal", unit="bits",
        note="Catalog, the weight precision's row: scales included", name="serving_weight_bits"),
    Row("weight_bytes", "Bytes per weight b_w", formula="=serving_weight_bits/8", kind="decimal", unit="bytes",
        note="bits / 8", name="serving_weight_bytes"),
    Row("fp8_gemm", "GEMMs in FP8", formula="=" + _lookup("precision", "fp8_gemm", "serving_weight_precision"),
        kind="bool", unit="", name="serving_fp8_gemm"),
    Row("kv_value_bytes", "Bytes per KV value (KV precision)",
        formula="=" + _lookup("precision", "kv_bytes", "serving_kv_precision"), kind="decimal", unit="bytes",
        note="Catalog, the KV precision's row: only this column is read", name="serving_kv_value_bytes"),
    Row("fp8_tflops", "GPU dense FP8 peak (0: none)",
        formula=f'=IF(ISNUMBER({_lookup("gpu", "fp8_tflops", "gpu")}),{_lookup("gpu", "fp8_tflops", "gpu")},0)',
        kind="number", unit="TFLOPS", note="Blank on Catalog: no FP8 (FP8 GEMMs run at the BF16 peak)",
        name="gpu_fp8_tflops"),
    Row("nvlink_gbps", "GPU NVLink (0: none)",
        formula=f'=IF(ISNUMBER({_lookup("gpu", "nvlink_gbps", "gpu")}),{_lookup("gpu", "nvlink_gbps", "gpu")},0)',
        kind="number", unit="GB/s", note="Per direction, as listed: the all-reduces are not derated",
        name="gpu_nvlink_gbps"),
    Row("hbm_tbps", "GPU HBM bandwidth", formula="=" + _lookup("gpu", "hbm_tbps", "gpu"), kind="decimal",
        unit="TB/s", name="gpu_hbm_tbps"),
]

PER_TOKEN = [
    Row("multiplied_params", "Multiplied parameters Ψ_mm = Ψ_active − V·h (untied)",
        formula="=" + model.multiplied_params(R.model), kind="params",
        unit="parameters", note="The input embedding is a lookup: no FLOPs, not streamed; the lm_head stays in (a "
        "tied model's one matrix is its lm_head)", name="serving_multiplied_params"),
    Row("weights_gb", "Weights per GPU W_g = Ψ · b_w / t", formula=f"=model_params*serving_weight_bytes/{T}/1e9",
        kind="gb", note="Every parameter resident", name="serving_weights_gb"),
    Row("kv_bytes_per_token", "KV cache per token per GPU KV_g",
        formula="=" + model.kv_bytes_per_token(R.model, "serving_kv_value_bytes", T),
        kind="count", unit="bytes", note="2 · L · MAX(KV heads / t, 1) · head dim · b_kv: KV heads split over t, "
        "replicated once t exceeds them; latent attention (r_kv + rope) · b_kv · L on every GPU",
        name="serving_kv_bytes_per_token"),
    Row("attention_width", "Attention widths w_qk + w_av",
        formula="=" + model.attention_width(R.model), kind="count",
        unit="", note="heads · head dim each: the query heads (GQA does not reduce FLOPs); latent attention "
        "heads · (nope + rope) and heads · v", name="serving_attention_width"),
    Row("peak_flops", "Effective peak P_e",
        formula="=" + model.effective_peak_flops("gpu_peak_tflops", "gpu_fp8_tflops", "serving_fp8_gemm"), kind="tera",
        unit="TFLOP/s", note="FP8 when the weights' GEMMs are FP8 and the GPU has FP8, else BF16",
        name="serving_peak_flops"),
    Row("bandwidth", "Effective bandwidth BW_e = HBM · η_m",
        formula="=" + model.effective_bandwidth("gpu_hbm_tbps", "serving_bandwidth_efficiency"), kind="tera",
        unit="TB/s",
        name="serving_bandwidth"),
    Row("output_tokens", "Output tokens o = sequence − prompt",
        formula="=serving_sequence_length-serving_prompt_tokens",
        kind="count", unit="tokens", name="serving_output_tokens"),
    Row("mean_context", "Mean context c̄ = s + o / 2", formula="=serving_prompt_tokens+serving_output_tokens/2",
        kind="number", unit="tokens", note="What a decoding sequence attends to, on average",
        name="serving_mean_context"),
]

CAPACITY = [
    Row("reserve_gb", "Reserve r · GPU memory", formula="=gpu_memory_gb*serving_memory_reserve", kind="gb",
        name="serving_reserve_gb"),
    Row("pool_gb", "Pool for the KV cache = memory − reserve − W_g",
        formula="=gpu_memory_gb-serving_reserve_gb-serving_weights_gb", kind="gb", warn="negative",
        note="Negative: the weights alone do not fit", name="serving_pool_gb"),
    Row("sequence_gb", "One sequence at its final length (s + o) · KV_g",
        formula="=serving_sequence_length*serving_kv_bytes_per_token/1e9", kind="gb", name="serving_sequence_gb"),
    Row("max_concurrency", "Sequences that fit B_max",
        formula="=IF(serving_pool_gb<=0,0,INT(ROUND(serving_pool_gb/serving_sequence_gb,gpu_rounding_decimals)))",
        kind="count", unit="sequences", note="Each reserves its final length (no eviction); 0: does not fit",
        name="serving_max_concurrency", bold=True),
    Row("fits", "The users fit (u ≤ B_max)", formula="=serving_users<=serving_max_concurrency", kind="bool", unit="",
        name="serving_fits", warn="false"),
]

IDLE = [
    Row("ttft_compute_ms", "Prefill compute (2·Ψ_mm·s + L·s²·w) / (t · P_e · η_c)",
        formula=f"={model.compute_seconds(R, model.prefill_flops(R))}*1000", kind="tenths", unit="ms"),
    Row("ttft_memory_ms", "Prefill memory (S(s) · b_w / t + s · KV_g) / BW_e",
        formula=f"={model.memory_seconds(R, model.prefill_bytes(R))}*1000", kind="tenths", unit="ms"),
    Row("ttft_all_reduce_ms", "All-reduces AR(s)",
        formula=f"={model.all_reduce_seconds(R, R.prompt_tokens)}*1000", kind="tenths", unit="ms"),
    Row("ttft_ms", "Time to first token TTFT", formula="=MAX({ttft_compute_ms},{ttft_memory_ms})"
        "+{ttft_all_reduce_ms}+serving_overhead_ms", kind="tenths", unit="ms",
        note="The longer of compute and memory, plus the all-reduces and τ", name="serving_ttft_ms", bold=True),
]


def _at(suffix: str, b: str, names: dict[str, str], keys=tuple(AT), guard: str = "") -> list[Row]:
    """Rows of the values at one B, keyed as the engine's scalars (tpot_ms, tpot_ms_single, tpot_ms_at_max, …)."""
    rows = []
    for key in keys:
        what, unit, kind, expression = AT[key]
        formula = expression(b)
        if guard:
            formula = f'IF({guard},"{DOES_NOT_FIT}",{formula})'
        rows.append(Row(key + suffix, what, formula="=" + formula, kind=kind, unit=unit, name=names.get(key)))
    return rows


AT_USERS = _at("", "serving_users", {"tpot_ms": "serving_tpot_ms", "itl_ms": "serving_itl_ms",
                                          "tokens_per_s_per_gpu": "serving_tokens_per_s_per_gpu",
                                          "cost_per_million_tokens": "serving_cost_per_million_tokens",
                                          "mfu": "serving_mfu"})
AT_ONE = _at("_single", "1", {"tpot_ms": "serving_tpot_ms_single"}, keys=("tpot_ms",))
AT_MAX = _at("_at_max", "serving_max_concurrency", {"tpot_ms": "serving_tpot_ms_at_max",
                                                "tokens_per_s_per_gpu": "serving_tokens_per_s_per_gpu_at_max",
                                                "cost_per_million_tokens": "serving_cost_per_million_tokens_at_max"},
             guard="serving_max_concurrency=0")


def _batch(i: int) -> str:
    """The table's B: powers of two below B_max, then B_max, then the users (shown once)."""
    if i < TABLE_ROWS - 2:
        return f'=IF({2 ** i}<serving_max_concurrency,{2 ** i},"")'
    if i == TABLE_ROWS - 2:
        return '=IF(serving_max_concurrency=0,"",serving_max_concurrency)'
    return '=IF(COUNTIF({batch:above},serving_users)>0,"",serving_users)'


def _when_shown(expression: str) -> str:
    return f'=IF({{batch}}="","",{expression})'


TABLE = [
    Column("batch", "Sequences B", template=_batch, kind="count"),
    Column("fits", "Fits", template=_when_shown("{batch}<=serving_max_concurrency"), kind="bool", warn="false"),
    *[Column(key, header, template=_when_shown(AT[key][3]("{batch}")), kind=AT[key][2])
      for key, header in (("tpot_ms", "TPOT (ms)"), ("itl_ms", "ITL under load (ms)"),
                          ("tokens_per_s_per_gpu", "Tokens/s per GPU"), ("cost_per_million_tokens", "Cost per M "
                           "output tokens"), ("mfu", "Serving MFU"))],
    Column("weights_gb", "Weights (GB)", template=_when_shown("serving_weights_gb"), kind="gb"),
    Column("kv_gb", "KV cache (GB)", template=_when_shown("{batch}*serving_sequence_gb"), kind="gb"),
    Column("reserve_gb", "Reserve (GB)", template=_when_shown("serving_reserve_gb"), kind="gb"),
    Column("free_gb", "Free (GB)", template=_when_shown("gpu_memory_gb-{weights_gb}-{kv_gb}-{reserve_gb}"),
           kind="gb", warn="negative"),
    Column("capacity_gb", "GPU memory (GB)", template=_when_shown("gpu_memory_gb"), kind="gb"),
]
# the engine's table keys for the memory stack
TABLE_VALUES = {"batch": "batch", "fits": "fits", "tpot_ms": "tpot_ms", "itl_ms": "itl_ms",
                "tokens_per_s_per_gpu": "tokens_per_s_per_gpu", "cost_per_million_tokens": "cost_per_million_tokens",
                "mfu": "mfu", "weights_gb": "weights_gb", "kv_gb": "kv_gb", "reserve_gb": "reserve_gb",
                "free_gb": "free_gb", "capacity_gb": "capacity_gb"}


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.serving
    sheet = book.sheet(SHEET, [("", 13)] * len(TABLE), note_width=44)
    sheet.title("Serving: capacity, latency, throughput and cost", "docs/method.md §6: one replica of t GPUs as a "
                "roofline; prefill bound by compute, decode by memory bandwidth.")
    s = table.scalars
    for title, rows in (("The precisions and the GPU, looked up in Catalog", LOOKUPS),
                        ("Per token and per GPU", PER_TOKEN),
                        ("Capacity: how many sequences fit", CAPACITY),
                        ("One request on an idle server", IDLE),
                        ("At the users (shown even when they do not fit)", AT_USERS),
                        ("At one sequence (B = 1)", AT_ONE),
                        ("At B_max (the most that fit)", AT_MAX)):
        sheet.section(title)
        sheet.rows(rows, s)
        sheet.skip()

    sheet.section("Over concurrency: B = 1, 2, 4, … below B_max, B_max and the users")
    values = [{key: row[source] for key, source in TABLE_VALUES.items()} for row in table.rows]
    header, _, _ = sheet.records([f"Row {i + 1}" for i in range(len(values))], TABLE, values, label_header="")
    sheet.set_height(header, 45)
    _curve_chart(book, sheet)
    _stack_chart(book, sheet)
    if table.calibration:
        _calibration(book, sheet, table.calibration, results)
    return sheet


def _curve_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The throughput-latency curve: tokens per second per GPU and ITL against B."""
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    batch = sheet.series("batch")
    tokens = sheet.series("tokens_per_s_per_gpu")
    chart.add_series({"name": "Output tokens per second per GPU", "categories": batch, "values": tokens,
                      "line": {"color": "#4472C4", "width": 2}, "marker": {"type": "circle"}})
    chart.add_series({"name": "ITL under load (ms, right axis)", "categories": batch, "values": sheet.series("itl_ms"),
                      "y2_axis": True, "line": {"color": kit.WARNING_RED, "width": 2}, "marker": {"type": "diamond"}})
    chart.set_title({"name": "Throughput and latency against concurrency"})
    chart.set_x_axis({"name": "Sequences B (log scale)", "log_base": 2, "min": 1})
    chart.set_y_axis({"name": "Tokens per second per GPU", "num_format": "#,##0", "min": 0,
                      "major_gridlines": {"visible": True}})
    chart.set_y2_axis({"name": "ITL (ms)", "num_format": "#,##0", "min": 0})
    chart.set_legend({"position": "bottom"})
    sheet.chart(chart, height=340)


def _stack_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """The memory stack at each B against the GPU's memory."""
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    batch = sheet.series("batch")
    for key, legend, colour in (("weights_gb", "Weights", "#4472C4"), ("kv_gb", "KV cache", "#FFC000"),
                                ("reserve_gb", "Reserve", "#A5A5A5"), ("free_gb", "Free", "#70AD47")):
        chart.add_series({"name": legend, "categories": batch, "values": sheet.series(key),
                          "fill": {"color": colour}, "gap": 50})
    chart.set_title({"name": "GPU memory at each B: weights, KV cache, reserve, free"})
    chart.set_x_axis({"name": "Sequences B"})
    chart.set_y_axis({"name": "GB per GPU", "num_format": '#,##0" GB"', "min": 0, "major_gridlines": {"visible": True}})
    capacity = book.wb.add_chart({"type": "line"})
    capacity.add_series({"name": "GPU memory", "categories": batch, "values": sheet.series("capacity_gb"),
                         "line": {"color": kit.WARNING_RED, "width": 2.25, "dash_type": "dash"}})
    chart.combine(capacity)
    chart.set_legend({"position": "bottom"})
    sheet.chart(chart, height=320)


CALIBRATION_VALUES = ("mean_concurrency", "mean_prompt_tokens", "mean_output_tokens", "measured_ttft_ms",
                      "predicted_ttft_ms", "measured_tpot_ms", "predicted_tpot_ms", "implied_compute_efficiency",
                      "implied_bandwidth_efficiency")


def _calibration(book: kit.Book, sheet: kit.Sheet, runs: list[dict], results) -> None:
    """Each benchmark run (Goodput, Requests) beside the prediction at its mean concurrency on its GPU: live
    formulas of the Requests sheet's rows and of the run's benchmark GPU's Catalog row."""
    sheet.section("Calibration: measured benchmark runs beside the prediction at their mean concurrency")
    numbers = [row["run"] for row in runs]

    def cells(i: int) -> model.ReplicaCells:  # the run's benchmark GPU and its own lengths
        fp8, peak, hbm, nvlink = (_lookup("gpu", column, f"goodput_benchmarks_{runs[i]['benchmark']}_gpu")
                                  for column in ("fp8_tflops", "peak_tflops", "hbm_tbps", "nvlink_gbps"))
        gpu = replace(R, peak_flops=f"(IF(AND(serving_fp8_gemm,ISNUMBER({fp8})),{fp8},{peak})*1e12)",
                            bandwidth=f"({hbm}*1e12*serving_bandwidth_efficiency)",
                            nvlink_gbps=f"IF(ISNUMBER({nvlink}),{nvlink},0)", peak_tflops=peak, hbm_tbps=hbm)
        return model.at_run(gpu, prompt_tokens="{mean_prompt_tokens}", output_tokens="{mean_output_tokens}")

    def left(c: model.ReplicaCells, measured: str, tokens: str) -> str:  # the measured time less AR and τ
        return f"({{{measured}}}/1000-{model.all_reduce_seconds(c, tokens)}-serving_overhead_ms/1000)"

    block = "INDEX(requests_completed_{0},MATCH({{label}},requests_run,0)):INDEX(requests_completed_{0}," \
            "MATCH({{label}},requests_run,0)+COUNTIF(requests_run,{{label}})-1)"
    done = "COUNTIFS(requests_run,{label},requests_failed,FALSE)"
    columns = [
        Column("mean_concurrency", "Mean concurrency (Little's law)",
               template="=SUMIFS(requests_latency_s,requests_run,{label},requests_failed,FALSE)"
                        "/INDEX(runs_duration_s,{label})", kind="decimal"),
        Column("mean_prompt_tokens", "Mean prompt tokens",
               template=f"=SUMIFS(requests_input_tokens,requests_run,{{label}},requests_failed,FALSE)/{done}",
               kind="number"),
        Column("mean_output_tokens", "Mean output tokens",
               template=f"=SUMIFS(requests_output_tokens,requests_run,{{label}},requests_failed,FALSE)/{done}",
               kind="number"),
        Column("measured_ttft_ms", "Measured median TTFT (ms)", template=f"=PERCENTILE({block.format('ttft_ms')},0.5)",
               kind="tenths"),
        Column("predicted_ttft_ms", "Predicted TTFT (ms)", kind="tenths",
               template=lambda i: f"={model.ttft_s(cells(i))}*1000"),
        Column("measured_tpot_ms", "Measured median TPOT (ms)", template=f"=PERCENTILE({block.format('tpot_ms')},0.5)",
               kind="tenths"),
        Column("predicted_tpot_ms", "Predicted TPOT (ms)", kind="tenths",
               template=lambda i: f"={model.tpot_s(cells(i), '{mean_concurrency}')}*1000"),
        Column("implied_compute_efficiency", "Implied η_c", kind="percent",
               template=lambda i: f"={model.prefill_flops(cells(i))}/({T}*{cells(i).peak_flops}"
                                  f"*{left(cells(i), 'measured_ttft_ms', '{mean_prompt_tokens}')})"),
        Column("implied_bandwidth_efficiency", "Implied η_m", kind="percent",
               template=lambda i: f"={model.decode_bytes(cells(i), '{mean_concurrency}')}/({cells(i).hbm_tbps}"
                                  f"*1e12*{left(cells(i), 'measured_tpot_ms', '{mean_concurrency}')})"),
    ]
    values = [{key: row[key] for key in CALIBRATION_VALUES} for row in runs]
    header, _, _ = sheet.records(numbers, columns, values, label_header="Run no. (Requests)")
    sheet.set_height(header, 45)
    sheet.text("η_m implied = the decode step's bytes / (HBM · (median TPOT − AR − τ)); η_c implied = the prefill "
               "FLOPs / (t · P_e · (median TTFT − AR − τ)). A TTFT measured under load includes queueing, so the η_c "
               "it implies is a floor. Set η_c and η_m on Inputs from these.", style=book.styles.note, height=32)


KEY_RESULTS = [
    KeyResult("serving_max_concurrency", "Sequences that fit on {serving_tensor_parallel|count} {gpu} GPU(s) at "
              "{serving_sequence_length|count} tokens", kind="count", unit="sequences"),
    KeyResult("serving_ttft_ms", "Time to first token, {serving_prompt_tokens|count}-token prompt, idle server",
              kind="tenths", unit="ms"),
    KeyResult("serving_itl_ms", "Inter-token latency at {serving_users|count} users", kind="tenths", unit="ms"),
    KeyResult("serving_tokens_per_s_per_gpu", "Output tokens per second per GPU at {serving_users|count} users",
              kind="count", unit="tokens/s"),
    KeyResult("serving_cost_per_million_tokens", "Cost per million output tokens at {serving_users|count} users",
              kind="money"),
]

CHECKS = [
    Check("serving_users_fit", "Serving: the users fit (u ≤ B_max)", formula="serving_users<=serving_max_concurrency",
          note="The values at the users are shown even when they do not fit."),
    Check("serving_tensor_parallel_divides_heads", "Serving tensor parallel t divides the attention heads",
          formula=f"MOD(model_heads,{T})=0", about=(T,)),
    Check("serving_kv_heads_split_evenly", "Serving: t divides the KV heads, or they divide t",
          formula=f"OR(MOD(model_kv_heads,{T})=0,MOD({T},model_kv_heads)=0)", about=(T,)),
    Check("serving_prompt_below_sequence", "Serving: the prompt is shorter than the sequence (at least one output "
          "token)", formula="serving_prompt_tokens<serving_sequence_length",
          about=("serving_prompt_tokens", "serving_sequence_length")),
    Check("serving_nvlink_known", "Serving: the GPU's NVLink GB/s is known where t > 1",
          formula=f"OR({T}=1,gpu_nvlink_gbps>0)", about=(T,)),
]
