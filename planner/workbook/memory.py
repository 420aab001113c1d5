"""The Memory sheet (docs/method.md §1): training memory per GPU for every strategy side by side, the scenario's own
strategy in the last column, and serving memory; each table with its chart under it."""

from __future__ import annotations

from planner.model import fields
from planner.shipped import STRATEGIES
from planner.workbook import kit, model
from planner.workbook.kit import Check, KeyResult, Row

SHEET = "Memory"


def _lookup(column: str) -> str:
    return f"=INDEX(catalog_model_{column},MATCH(model,catalog_model_ids,0))"


SHOWN_AS_COUNTED = {"moe_layers": "moe_layer_count"}  # a field the sheet shows as the Catalog's count of it
DERIVED = [  # the Catalog's derived columns for the chosen model
    Row("attention_params", "Attention parameters per layer A", formula=_lookup("attention_params"), kind="params",
        unit="parameters", name="model_attention_params"),
    Row("moe_layer_count", "MoE layers L_moe", formula=_lookup("moe_layer_count"), kind="count", unit="layers",
        note="The others are dense", name="model_moe_layer_count"),
    Row("active_params", "Active parameters Ψ_active", formula=_lookup("active_params"), kind="params",
        unit="parameters", note="Ψ less the routed experts a token does not pass through: what its operations count",
        name="model_active_params"),
    Row("routed_params", "Routed-expert parameters Ψ_routed", formula=_lookup("routed_params"), kind="params",
        unit="parameters", note="The part expert parallelism splits; 0 for a dense model", name="model_routed_params"),
]
LOOKUPS = [  # every model field the sheets read, named model_<field> (planner.workbook.model.ModelCells)
    *(Row(f.key, f.label, formula=_lookup(f.key), kind=f.kind, unit=f.unit, note=f.note, name=f"model_{f.key}")
      for f in fields.MODEL if f.key not in SHOWN_AS_COUNTED and f.key != "reported_h100_hours"),
    *DERIVED,
    Row("gpu_memory_gb", "GPU memory", formula="=INDEX(catalog_gpu_memory_gb,MATCH(gpu,catalog_gpu_ids,0))", kind="gb",
        name="gpu_memory_gb"),
]

_MOE_LAYER = ("memory_sequence_length*memory_micro_batch*(moe_attention_bytes*model_hidden+swiglu_tensor_bytes"
              "*model_shared_expert_ffn+model_experts_per_token*(moe_routed_token_bytes*model_hidden+swiglu_tensor_bytes"
              "*model_expert_ffn)+router_logit_bytes*model_experts)/memory_tensor_parallel/1e9")
_PER_TOKEN = model.layer_activation_bytes_per_token("model_hidden", "memory_tensor_parallel")
_KEPT_PER_TOKEN = model.checkpointed_bytes_per_token("model_hidden", "memory_tensor_parallel")
SHARED = [  # the same for every strategy: computed once
    Row("data_parallel", "Data-parallel degree d = N / (t·p)",
        formula="=memory_gpus/(memory_tensor_parallel*memory_pipeline_parallel)", kind="decimal", unit="replicas",
        note="ZeRO shards across the d replicas, not across all N GPUs.", name="memory_data_parallel"),
    Row("expert_data_parallel", "Expert data-parallel degree d_e = N / (p·e)",
        formula="=memory_gpus/(memory_pipeline_parallel*memory_expert_parallel)", kind="decimal", unit="replicas",
        note="The replicas of each routed expert: ZeRO shards expert state over d_e, not d.",
        name="memory_expert_data_parallel"),
    Row("non_expert_params_per_gpu", "Non-expert parameters per GPU (Ψ − Ψ_routed) / (t·p)",
        formula="=(model_params-model_routed_params)/(memory_tensor_parallel*memory_pipeline_parallel)",
        kind="params", unit="parameters",
        note="Tensor and pipeline parallelism split the model; a dense model: Ψ/(t·p)."),
    Row("expert_params_per_gpu", "Expert parameters per GPU Ψ_routed / (p·e)",
        formula="=model_routed_params/(memory_pipeline_parallel*memory_expert_parallel)", kind="params",
        unit="parameters", note="Expert parallelism splits the routed experts."),
    Row("layer_activations_gb", "One dense layer's activations a = 34·s·b·h / t",
        formula=f"=memory_sequence_length*memory_micro_batch*{_PER_TOKEN}/1e9", kind="gb",
        note="Korthikanti et al. 2022, Table 2, without the attention scores (FlashAttention); sequence parallelism "
        "divides by t."),
    Row("moe_layer_activations_gb", "One MoE layer's activations s·b·(18h + 6F_s + k·(2h + 6F_e) + 4E) / t",
        formula=f"=IF(model_experts>0,{_MOE_LAYER},0)", kind="gb",
        note="Each routed token's permuted copies, SwiGLU's three tensors, FP32 router logits (llm-analysis)"),
    Row("stage_activations_gb", "Activations on the first pipeline stage",
        formula="=IF(memory_activation_checkpointing,model_layers*memory_sequence_length*memory_micro_batch*"
        f"{_KEPT_PER_TOKEN}/1e9+MAX(IF(model_layers>model_moe_layer_count,"
        "{layer_activations_gb},0),IF(model_moe_layer_count>0,{moe_layer_activations_gb},0)),"
        "(model_layers-model_moe_layer_count)*{layer_activations_gb}+model_moe_layer_count"
        "*{moe_layer_activations_gb})", kind="gb",
        note="Dense and MoE layers' own; with checkpointing each layer's input L·2·s·b·h/t plus the largest layer "
        "recomputed. Pipeline parallelism does not divide it (1F1B first stage).", name="memory_activations_gb"),
]


def _state(bytes_name: str, shards: str) -> str:
    """bytes · (non-expert / d + expert / d_e), each divided where the strategy shards this quantity."""
    return (f"={bytes_name}*({{non_expert_params_per_gpu}}/IF({{{shards}}},memory_data_parallel,1)"
            f"+{{expert_params_per_gpu}}/IF({{{shards}}},memory_expert_data_parallel,1))/1e9")


def _strategy(column: str) -> str:
    return f"=INDEX(catalog_strategy_{column},MATCH({{strategy}},catalog_strategy_ids,0))"


BY_STRATEGY = [
    Row("zero_stage", "ZeRO stage", formula=_strategy("zero_stage"), kind="count", unit="",
        note="0 = DDP; the Scenario column is the "
        "strategy chosen in Inputs."),
    Row("shards_optimizer", "Shards the optimizer state", formula=_strategy("shards_optimizer"), kind="bool", unit=""),
    Row("shards_gradients", "Shards the gradients", formula=_strategy("shards_gradients"), kind="bool", unit=""),
    Row("shards_weights", "Shards the weights", formula=_strategy("shards_weights"), kind="bool", unit=""),
    Row("weights_gb", "Weights", formula=_state("weight_bytes_per_param", "shards_weights"), kind="gb",
        note="2 bytes per parameter; ÷ d (experts ÷ d_e) under ZeRO-3", name="memory_weights_gb"),
    Row("fp8_weight_copy_gb", "FP8 weight copy (FP8 training)",
        formula='=IF(training_precision="fp8",' + _state("fp8_weight_copy_bytes", "shards_weights")[1:] + ",0)",
        kind="gb", note="1 byte per parameter beside the BF16 weights, sharded as they are"),
    Row("gradients_gb", "Gradients", formula=_state("gradient_bytes_per_param", "shards_gradients"), kind="gb",
        note="2 bytes per parameter; ÷ d (experts ÷ d_e) under ZeRO-2 and 3", name="memory_gradients_gb"),
    Row("optimizer_gb", "Adam optimizer state", formula=_state("optimizer_bytes_per_param", "shards_optimizer"),
        kind="gb", note="12 bytes: FP32 master weights, momentum, variance (4+4+4); ÷ d (experts ÷ d_e) under ZeRO-1, "
        "2 and 3", name="memory_optimizer_gb"),
    Row("model_state_gb", "Model state", formula="={weights_gb}+{fp8_weight_copy_gb}+{gradients_gb}+{optimizer_gb}",
        kind="gb"),
    Row("activations_gb", "Activations", formula="=memory_activations_gb", kind="gb",
        note="The same for every strategy."),
    Row("total_gb", "Total per GPU", formula="={model_state_gb}+{activations_gb}", kind="gb",
        name="memory_training_total_gb",
        bold=True),
    Row("capacity_gb", "GPU memory", formula="=gpu_memory_gb", kind="gb"),
    Row("fits", "Fits on the GPU", formula="={total_gb}<=gpu_memory_gb", kind="bool", unit="",
        name="memory_training_fits",
        warn="false"),
    Row("headroom_gb", "Headroom", formula="=gpu_memory_gb-{total_gb}", kind="gb",
        note="Negative: the total overflows the GPU.",
        warn="negative"),
]
BY_STRATEGY = [Row(**{**vars(r), "per_column": True}) for r in BY_STRATEGY]

SERVING = [  # the users held at once, at the Serving sheet's precisions, without its reserve (docs/method.md §1, §6)
    Row("kv_bytes_per_token", "KV cache per token per GPU KV_g", formula="=serving_kv_bytes_held_per_token",
        kind="count", unit="bytes", note="Serving: 2 · L · MAX(KV heads / t_s, 1) · head dim · bytes per KV value, "
        "and a speculative draft's beside it"),
    Row("kv_kib_per_token", "KV cache per token per GPU", formula="={kv_bytes_per_token}/1024", kind="kib",
        note="128, 320 and 504 KiB for Llama 3.1 8B, 70B and 405B in BF16 on one GPU"),
    Row("serving_weights_gb", "Weights", formula="=serving_weights_gb", kind="gb",
        note="W_g (Serving): Ψ · bytes per weight / t_s, the routed experts over G in a layout",
        name="memory_serving_weights_gb"),
    Row("serving_kv_gb", "KV cache", formula="=CEILING(serving_users/serving_layout_ranks,1)*serving_sequence_length"
        "*{kv_bytes_per_token}/1e9", kind="gb", note="b · s_s · KV_g, b = CEILING(u / d_a) on the busiest rank (u "
        "without attention data parallelism)", name="memory_serving_kv_gb"),
    Row("serving_total_gb", "Total per GPU", formula="={serving_weights_gb}+{serving_kv_gb}", kind="gb",
        name="memory_serving_total_gb", bold=True),
    Row("serving_capacity_gb", "GPU memory", formula="=gpu_memory_gb", kind="gb"),
    Row("serving_fits", "Fits on the GPU", formula="={serving_total_gb}<=gpu_memory_gb", kind="bool", unit="",
        name="memory_serving_fits", warn="false"),
    Row("serving_headroom_gb", "Headroom", formula="=gpu_memory_gb-{serving_total_gb}", kind="gb", warn="negative"),
]


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.memory
    strategies = list(STRATEGIES)
    values = {**table.scalars, **table.training}
    sheet = book.sheet(SHEET, [(name, 12) for name in strategies] + [("Scenario", 14)])
    sheet.title("Memory per GPU", "docs/method.md §1: training state and activations by strategy; serving weights and "
                "KV cache. GB = 1e9 bytes.")
    # the sheet's columns: a strategy each, then the scenario's; under the titles, on every printed page
    sheet.header(strategies + [kit.Formula("=memory_strategy", table.strategy)], key="strategy",
                 label="Strategy (last column: the scenario's)", freeze=True, repeat=True)

    sheet.section("Model and GPU, looked up in Catalog")
    sheet.rows(LOOKUPS, values)
    sheet.skip()

    sheet.section("Training memory per GPU")
    sheet.rows(SHARED, values)
    sheet.rows(BY_STRATEGY, values)
    _training_chart(book, sheet, len(strategies))

    sheet.section("Serving memory per GPU")
    sheet.rows(SERVING, values)
    _serving_chart(book, sheet)
    return sheet


def _training_chart(book: kit.Book, sheet: kit.Sheet, strategies: int) -> None:
    """Stacked columns per strategy (not the Scenario column, which repeats one of them) against the GPU."""
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    categories = sheet.series("strategy", strategies)
    for key, colour in (("weights_gb", "#4472C4"), ("gradients_gb", "#ED7D31"), ("optimizer_gb", "#A5A5A5"),
                        ("activations_gb", "#FFC000")):
        chart.add_series({"name": [sheet.name, sheet.row_of(key), 0], "categories": categories,
                          "values": sheet.series(key, strategies), "fill": {"color": colour}, "gap": 60})
    capacity = book.wb.add_chart({"type": "line"})
    capacity.add_series({"name": "GPU memory", "categories": categories,
                         "values": sheet.series("capacity_gb", strategies),
                         "line": {"color": kit.WARNING_RED, "width": 2.25, "dash_type": "dash"}})
    chart.combine(capacity)
    sheet.chart(chart, height=340, title="Training memory per GPU by strategy", x_axis={"name": "Strategy"},
                y_axis={"name": "GB per GPU", "num_format": '#,##0" GB"', "min": 0,
                        "major_gridlines": {"visible": True}}, legend="bottom")


def _serving_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    chart = book.wb.add_chart({"type": "bar"})
    first, last = sheet.row_of("serving_weights_gb"), sheet.row_of("serving_capacity_gb")
    chart.add_series({"name": "Serving memory per GPU", "categories": [sheet.name, first, 0, last, 0],
                      "values": [sheet.name, first, sheet.last_col, last, sheet.last_col],
                      "points": [{"fill": {"color": "#4472C4"}}, {"fill": {"color": "#FFC000"}},
                                 {"fill": {"color": "#7F7F7F"}}, {"fill": {"color": kit.WARNING_RED}}],
                      "data_labels": {"value": True, "num_format": '#,##0.0" GB"'}})
    chart.set_legend({"none": True})
    sheet.chart(chart, height=260, title="Serving memory per GPU against the GPU's memory",
                x_axis={"name": "GB per GPU", "num_format": '#,##0" GB"', "min": 0}, y_axis={"reverse": True})


KEY_RESULTS = [
    KeyResult("memory_training_total_gb", "Training memory per GPU: {model}, {memory_strategy} on "
              "{memory_gpus|count} GPUs, {gpu}", kind="gb", unit="GB"),
    KeyResult("memory_training_fits", "Training fits on the {gpu}", kind="bool", unit=""),
    KeyResult("memory_serving_total_gb", "Serving memory per GPU: {serving_users|count} users on "
              "{serving_gpus_per_replica|count} GPU(s)", kind="gb", unit="GB"),
    KeyResult("memory_serving_fits", "Serving fits on the {gpu}", kind="bool", unit=""),
]

CHECKS = [
    Check("memory_data_parallel_whole", "Data-parallel degree N / (t·p) is a whole number ≥ 1",
          formula="AND(memory_data_parallel>=1,memory_data_parallel=INT(memory_data_parallel))",
          about=("memory_gpus", "memory_tensor_parallel", "memory_pipeline_parallel")),
    Check("memory_tensor_parallel_divides_heads", "Tensor parallel t divides the model's attention heads",
          formula="MOD(model_heads,memory_tensor_parallel)=0", about=("memory_tensor_parallel",)),
    Check("memory_expert_parallel_divides", "Expert parallel e divides N / p and the experts (1 for a dense model)",
          formula="AND(MOD(INT(memory_gpus/memory_pipeline_parallel),memory_expert_parallel)=0,IF(model_experts>0,"
                  "MOD(model_experts,memory_expert_parallel)=0,memory_expert_parallel=1))",
          about=("memory_expert_parallel",)),
    Check("memory_pipeline_within_layers", "Pipeline parallel p is at most the model's layers",
          formula="memory_pipeline_parallel<=model_layers", about=("memory_pipeline_parallel",)),
]
