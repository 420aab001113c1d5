"""The Memory sheet (METHOD.md §1): training memory per GPU for every strategy side by side, the scenario's own
strategy in the last column, and serving memory; two charts against the GPU's capacity."""

from __future__ import annotations

from planner.catalog import STRATEGIES
from planner.engine import Results
from planner.workbook import kit
from planner.workbook.inputs import Input

STATE = "2Ψ bytes of BF16 weights, 2Ψ of gradients, 12Ψ of FP32 master weights, momentum and variance (ZeRO paper)"


def inputs(scenario) -> list[tuple[str, list[Input]]]:
    count = kit.whole_number
    return [
        ("Training memory", [
            Input("memory.gpus", "GPUs N", "GPUs", "Must be a multiple of t × p.", "count", count(1)),
            Input("memory.strategy", "Strategy", "", "ddp replicates everything; zero1 shards the optimizer "
                  "state, zero2 also gradients, zero3 (= FSDP) also weights.", "text",
                  kit.one_of("=catalog_strategy_ids", "strategy")),
            Input("memory.tensor_parallel", "Tensor parallel t", "GPUs", "Divides model state and (with "
                  "sequence parallelism) activations.", "count", count(1)),
            Input("memory.pipeline_parallel", "Pipeline parallel p", "GPUs", "Divides model state; the first "
                  "stage still holds a full set of activations (1F1B).", "count", count(1)),
            Input("memory.sequence_length", "Sequence length s", "tokens", "Tokens per training sequence; "
                  "activations grow linearly with it.", "count", count(1)),
            Input("memory.micro_batch", "Micro-batch b", "sequences", "Sequences per GPU per forward pass.", "count",
                  count(1)),
            Input("memory.activation_checkpointing", "Activation checkpointing", "TRUE/FALSE",
                  "Keep each layer's input and recompute the rest in the backward pass.", "bool", kit.TRUE_FALSE),
        ]),
        ("Serving memory", [
            Input("serving.users", "Concurrent users u", "users", "Each holds a KV cache of s_s tokens.", "count",
                  count(1)),
            Input("serving.sequence_length", "Serving sequence length s_s", "tokens",
                  "Defaults to the training sequence length.", "count", count(1)),
            Input("serving.tensor_parallel", "Serving tensor parallel t_s", "GPUs",
                  "Splits weights and KV cache across GPUs.", "count", count(1)),
        ]),
    ]


def write(book: kit.Book, results: Results) -> kit.Sheet:
    table = results.memory
    s, strat = table.scalars, table.strategies
    strategies = list(STRATEGIES)

    def values(key: str) -> list:  # every strategy's value, then the scenario's own
        return [*strat.loc[key], table.selected[key]]

    sheet = book.sheet("Memory", [(name, 12) for name in strategies] + [("Scenario", 14)])
    sheet.title("Memory per GPU", "METHOD.md §1: training state and activations by strategy; serving weights and "
                "KV cache. GB = 1e9 bytes.")

    sheet.section("Model and GPU, looked up in Catalog")
    lookup = "=INDEX(catalog_model_{0},MATCH(model,catalog_model_ids,0))"
    sheet.row("params", "Parameters Ψ", lookup.format("params"), s["params"], "parameters", "", "params",
              name="model_params")
    sheet.row("layers", "Layers L", lookup.format("layers"), s["layers"], "layers", "", "count", name="model_layers")
    sheet.row("hidden", "Hidden size h", lookup.format("hidden"), s["hidden"], "", "", "count", name="model_hidden")
    sheet.row("kv_heads", "KV heads", lookup.format("kv_heads"), s["kv_heads"], "heads", "Grouped-query attention",
              "count", name="model_kv_heads")
    sheet.row("head_dim", "Head dimension", lookup.format("head_dim"), s["head_dim"], "", "", "count",
              name="model_head_dim")
    sheet.row("gpu_memory_gb", "GPU memory", "=INDEX(catalog_gpu_memory_gb,MATCH(gpu,catalog_gpu_ids,0))",
              s["gpu_memory_gb"], "GB", "", "gb", name="gpu_memory_gb")
    sheet.skip()

    sheet.section("Training memory per GPU")
    header = sheet.header(strategies + ["Scenario"])
    tp = "(memory_tensor_parallel*memory_pipeline_parallel)"
    sheet.row("data_parallel", "Data-parallel degree d = N / (t·p)", f"=memory_gpus/{tp}", s["data_parallel"],
              "replicas", "ZeRO shards across the d replicas, not across all GPUs.", "decimal",
              name="memory_data_parallel")
    sheet.row("layer_activations_gb", "One layer's activations a = 34·s·b·h / t",
              "=34*memory_sequence_length*memory_micro_batch*model_hidden/memory_tensor_parallel/1e9",
              s["layer_activations_gb"], "GB", "Korthikanti et al. 2022, Table 2, without the attention scores "
              "(FlashAttention); sequence parallelism divides by t.", "gb")
    stage = "=INDEX(catalog_strategy_zero_stage,MATCH({0},catalog_strategy_ids,0))"
    per_col = dict(per_column=True)
    sheet.row("zero_stage", "ZeRO stage", [stage.format("{column}")] * 4 + [stage.format("memory_strategy")],
              values("zero_stage"), "stage", "0 = DDP; the Scenario column is the strategy chosen in Inputs.",
              "count", **per_col)
    shard = "IF({{zero_stage}}>={0},{{data_parallel}},1)"
    sheet.row("weights_gb", "Weights", f"=2*model_params/{tp}/{shard.format(3)}/1e9", values("weights_gb"),
              "GB", "2Ψ/(t·p), ÷ d under ZeRO-3", "gb", name="memory_weights_gb", **per_col)
    sheet.row("gradients_gb", "Gradients", f"=2*model_params/{tp}/{shard.format(2)}/1e9",
              values("gradients_gb"), "GB", "2Ψ/(t·p), ÷ d under ZeRO-2 and 3", "gb",
              name="memory_gradients_gb", **per_col)
    sheet.row("optimizer_gb", "Adam optimizer state", f"=12*model_params/{tp}/{shard.format(1)}/1e9",
              values("optimizer_gb"), "GB", "12Ψ/(t·p): FP32 master weights, momentum, variance (4+4+4 bytes); "
              "÷ d under ZeRO-1, 2 and 3", "gb", name="memory_optimizer_gb", **per_col)
    sheet.row("model_state_gb", "Model state", "={weights_gb}+{gradients_gb}+{optimizer_gb}",
              values("model_state_gb"), "GB", STATE, "gb", **per_col)
    sheet.row("activations_gb", "Activations",
              "=IF(memory_activation_checkpointing,model_layers*2*memory_sequence_length*memory_micro_batch"
              "*model_hidden/memory_tensor_parallel/1e9+{layer_activations_gb},model_layers*{layer_activations_gb})",
              values("activations_gb"), "GB", "L·a; with checkpointing each layer's input L·2·s·b·h/t plus one "
              "layer recomputed, a. Pipeline parallelism does not divide it (1F1B first stage).", "gb",
              name="memory_activations_gb", **per_col)
    sheet.row("total_gb", "Total per GPU", "={model_state_gb}+{activations_gb}", values("total_gb"), "GB", "",
              "gb", name="memory_training_total_gb", bold=True, **per_col)
    sheet.row("capacity_gb", "GPU memory", "=gpu_memory_gb", values("capacity_gb"), "GB", "", "gb", **per_col)
    sheet.row("fits", "Fits on the GPU", "={total_gb}<=gpu_memory_gb", values("fits"), "TRUE/FALSE", "", "bool",
              name="memory_training_fits", **per_col)
    sheet.row("headroom_gb", "Headroom", "=gpu_memory_gb-{total_gb}", values("headroom_gb"), "GB",
              "Negative: the total overflows the GPU.", "gb", **per_col)
    sheet.skip()

    sheet.section("Serving memory per GPU")
    sheet.row("kv_bytes_per_token", "KV cache per token", "=2*model_layers*model_kv_heads*model_head_dim*2",
              s["kv_bytes_per_token"], "bytes", "2 (K and V) · L · KV heads · head dim · 2 bytes", "count")
    sheet.row("kv_kib_per_token", "KV cache per token", "={kv_bytes_per_token}/1024", s["kv_kib_per_token"], "KiB",
              "128, 320 and 504 KiB for Llama 3.1 8B, 70B and 405B", "kib")
    sheet.row("serving_weights_gb", "Weights", "=2*model_params/serving_tensor_parallel/1e9",
              s["serving_weights_gb"], "GB", "2Ψ / t_s", "gb", name="memory_serving_weights_gb")
    sheet.row("serving_kv_gb", "KV cache",
              "=serving_users*serving_sequence_length*{kv_bytes_per_token}/serving_tensor_parallel/1e9",
              s["serving_kv_gb"], "GB", "u · s_s · KV per token / t_s", "gb", name="memory_serving_kv_gb")
    sheet.row("serving_total_gb", "Total per GPU", "={serving_weights_gb}+{serving_kv_gb}", s["serving_total_gb"],
              "GB", "", "gb", name="memory_serving_total_gb", bold=True)
    sheet.row("serving_capacity_gb", "GPU memory", "=gpu_memory_gb", s["gpu_memory_gb"], "GB", "", "gb")
    sheet.row("serving_fits", "Fits on the GPU", "={serving_total_gb}<=gpu_memory_gb", s["serving_fits"],
              "TRUE/FALSE", "", "bool", name="memory_serving_fits")
    sheet.row("serving_headroom_gb", "Headroom", "=gpu_memory_gb-{serving_total_gb}", s["serving_headroom_gb"],
              "GB", "", "gb")
    sheet.skip()

    _training_chart(book, sheet, header)
    _serving_chart(book, sheet)
    return sheet


def _training_chart(book: kit.Book, sheet: kit.Sheet, header: int) -> None:
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    name = sheet.name
    for key, colour in (("weights_gb", "#4472C4"), ("gradients_gb", "#ED7D31"), ("optimizer_gb", "#A5A5A5"),
                        ("activations_gb", "#FFC000")):
        r = sheet.row_of(key)
        chart.add_series({"name": [name, r, 0], "categories": [name, header, 1, header, 4],
                          "values": [name, r, 1, r, 4], "fill": {"color": colour}, "gap": 60})
    capacity = book.wb.add_chart({"type": "line"})
    r = sheet.row_of("capacity_gb")
    capacity.add_series({"name": "GPU memory", "categories": [name, header, 1, header, 4],
                         "values": [name, r, 1, r, 4], "line": {"color": "#C00000", "width": 2.25,
                                                                "dash_type": "dash"}})
    chart.combine(capacity)
    chart.set_title({"name": "Training memory per GPU by strategy"})
    chart.set_y_axis({"name": "GB per GPU", "num_format": "#,##0", "major_gridlines": {"visible": True}})
    chart.set_x_axis({"name": "Strategy"})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 620, "height": 340})
    sheet.ws.insert_chart(sheet.row_index, 0, chart)
    sheet.skip(18)


def _serving_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    chart = book.wb.add_chart({"type": "bar"})
    first, last = sheet.row_of("serving_weights_gb"), sheet.row_of("serving_capacity_gb")
    chart.add_series({"name": "Serving memory per GPU", "categories": [sheet.name, first, 0, last, 0],
                      "values": [sheet.name, first, sheet.last_col, last, sheet.last_col],
                      "points": [{"fill": {"color": "#4472C4"}}, {"fill": {"color": "#FFC000"}},
                                 {"fill": {"color": "#7F7F7F"}}, {"fill": {"color": "#C00000"}}],
                      "data_labels": {"value": True, "num_format": "#,##0.0"}})
    chart.set_title({"name": "Serving memory per GPU against the GPU's memory"})
    chart.set_x_axis({"name": "GB per GPU", "num_format": "#,##0"})
    chart.set_y_axis({"reverse": True})
    chart.set_legend({"none": True})
    chart.set_size({"width": 620, "height": 260})
    sheet.ws.insert_chart(sheet.row_index, 0, chart)
    sheet.skip(14)


KEY_RESULTS = [  # (defined name, label, unit, number format) for the Cover
    ("memory_training_total_gb", "Training memory per GPU (scenario's strategy)", "GB", "gb"),
    ("memory_training_fits", "Training fits on the GPU", "TRUE/FALSE", "bool"),
    ("memory_serving_total_gb", "Serving memory per GPU", "GB", "gb"),
    ("memory_serving_fits", "Serving fits on the GPU", "TRUE/FALSE", "bool"),
]

CHECKS = [  # (engine check key, label, formula) for the Checks sheet
    ("memory_data_parallel_whole", "Data-parallel degree N / (t·p) is a whole number ≥ 1",
     "=AND(memory_data_parallel>=1,memory_data_parallel=INT(memory_data_parallel))"),
    ("memory_training_adds_up", "Training total = weights + gradients + optimizer + activations",
     "=ABS(memory_training_total_gb-(memory_weights_gb+memory_gradients_gb+memory_optimizer_gb"
     "+memory_activations_gb))<=1e-9*ABS(memory_training_total_gb)"),
    ("memory_serving_adds_up", "Serving total = weights + KV cache",
     "=ABS(memory_serving_total_gb-(memory_serving_weights_gb+memory_serving_kv_gb))"
     "<=1e-9*ABS(memory_serving_total_gb)"),
]
