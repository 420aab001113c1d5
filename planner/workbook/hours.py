"""The Hours sheet (METHOD.md §2): training operations, GPU-hours, cost and days; allocation options; the
calculation beside Meta's reported Llama 3.1 H100-hours. Two charts."""

from __future__ import annotations

from planner import catalog, method
from planner.engine import Results
from planner.workbook import kit
from planner.workbook.inputs import Input

SHARE = kit.number(0, 1, exclusive_minimum=True)


def inputs(scenario) -> list[tuple[str, list[Input]]]:
    rows = [
        Input("hours.tokens", "Training tokens T", "tokens", "Llama 3.1 was trained on about 15.6 trillion tokens.",
              "count", kit.number(0, exclusive_minimum=True)),
        Input("hours.mfu", "Model FLOPs utilisation (MFU)", "% of peak", "Share of the dense BF16 peak achieved; "
              "Meta reports 38-43 % for Llama 3.1 405B.", "percent", SHARE),
        Input("hours.activation_recompute", "Activation recomputation", "TRUE/FALSE",
              "One extra forward pass: 8·Ψ·T operations instead of 6·Ψ·T.", "bool", kit.TRUE_FALSE),
        Input("hours.gpus", "GPUs in the run N_run", "GPUs", "Sets the wall-clock days.", "count",
              kit.whole_number(1)),
        Input("hours.productive_share", "Productive share q", "% of time", "Share of allocated time doing useful "
              "training; restarts, checkpointing and failed runs lower it. 100 % = the pure calculation.",
              "percent", SHARE),
    ]
    for i, _ in enumerate(scenario.hours.allocations, start=1):
        rows += [
            Input(f"hours.allocations.{i}.gpus", f"Allocation option {i}: GPUs", "GPUs",
                  "GPUs allocated to the run in this option.", "count", kit.whole_number(1)),
            Input(f"hours.allocations.{i}.mfu", f"Allocation option {i}: MFU", "% of peak", "MFU expected at that "
                  "scale; Meta's Llama 3: 43 % on 8,192 GPUs, 41 % on 16,384.", "percent", SHARE),
        ]
    return [("Training hours and cost", rows)]


ALLOCATION_COLUMNS = [
    kit.Column("gpus", "GPUs", "=hours_allocations_{i}_gpus", "count"),
    kit.Column("mfu", "MFU", "=hours_allocations_{i}_mfu", "percent"),
    kit.Column("gpu_hours", "GPU-hours", "=hours_training_flops/(gpu_peak_tflops*1e12*{mfu}*3600)", "hours"),
    kit.Column("allocated_gpu_hours", "Allocated GPU-hours", "={gpu_hours}/hours_productive_share", "hours"),
    kit.Column("days", "Wall-clock days", "={allocated_gpu_hours}/{gpus}/24", "days"),
    kit.Column("cost", "Cost", "={allocated_gpu_hours}*price_per_gpu_hour", "money0"),
]
REFERENCE_COLUMNS = [
    kit.Column("params", "Parameters Ψ", "=INDEX(catalog_model_params,MATCH({label},catalog_model_ids,0))",
               "params"),
    kit.Column("training_flops", "Operations", "=hours_ops_per_param_token*{params}*hours_tokens", "flops"),
    kit.Column("calculated_gpu_hours", "Calculated H100-hours",
               "={training_flops}/(reference_gpu_peak_tflops*1e12*hours_mfu*3600)", "hours"),
    kit.Column("reported_gpu_hours", "Reported H100-hours (Meta)",
               "=INDEX(catalog_model_reported_h100_hours,MATCH({label},catalog_model_ids,0))", "hours"),
    kit.Column("reported_over_calculated", "Reported ÷ calculated", "={reported_gpu_hours}/{calculated_gpu_hours}",
               "ratio"),
]


def write(book: kit.Book, results: Results) -> kit.Sheet:
    table = results.hours
    s = table.scalars
    sheet = book.sheet("Hours", [(c.header, 15) for c in ALLOCATION_COLUMNS])
    sheet.title("Training hours and cost", "METHOD.md §2: operations 6·Ψ·T (8·Ψ·T with recomputation) at the "
                "GPU's dense BF16 peak times MFU.")

    sheet.section("The training run")
    sheet.header([""] * (len(ALLOCATION_COLUMNS) - 1) + ["Scenario"])
    sheet.row("gpu_peak_tflops", "GPU peak (dense BF16)",
              "=INDEX(catalog_gpu_peak_tflops,MATCH(gpu,catalog_gpu_ids,0))", s["gpu_peak_tflops"], "TFLOPS", "",
              "count", name="gpu_peak_tflops")
    sheet.row("ops", "Operations per parameter per token", "=IF(hours_activation_recompute,8,6)",
              s["ops_per_param_token"], "FLOP", "Forward 2 + backward 4; recomputation adds a forward pass (2).",
              "count", name="hours_ops_per_param_token")
    sheet.row("training_flops", "Training operations C", "={ops}*model_params*hours_tokens", s["training_flops"],
              "FLOP", "C = 6·Ψ·T (Kaplan et al. 2020), 8·Ψ·T with recomputation", "flops",
              name="hours_training_flops")
    sheet.row("gpu_hours", "GPU-hours H", "={training_flops}/(gpu_peak_tflops*1e12*hours_mfu*3600)",
              s["gpu_hours"], "GPU-hours", "H = C / (peak · MFU · 3600 s)", "hours", name="hours_gpu_hours")
    sheet.row("allocated_gpu_hours", "Allocated GPU-hours", "={gpu_hours}/hours_productive_share",
              s["allocated_gpu_hours"], "GPU-hours", "H / q: what is paid for", "hours",
              name="hours_allocated_gpu_hours", bold=True)
    sheet.row("cost", "Cost", "={allocated_gpu_hours}*price_per_gpu_hour", s["cost"], "currency",
              "Allocated GPU-hours × price per GPU-hour", "money0", name="hours_cost", bold=True)
    sheet.row("days", "Wall-clock days", "={allocated_gpu_hours}/hours_gpus/24", s["days"], "days",
              "Allocated GPU-hours / GPUs in the run / 24", "days", name="hours_days", bold=True)
    sheet.skip()

    sheet.section("Allocation options: a larger allocation can finish sooner at more GPU-hours (lower MFU at scale)")
    alloc = sheet.records([f"Option {i}" for i in range(1, len(table.allocations) + 1)],
                          ALLOCATION_COLUMNS, table.allocations)
    sheet.skip()

    sheet.section("Beside Meta's reported Llama 3.1 hours (at this scenario's tokens, MFU and recomputation)")
    sheet.row("reference_gpu", "Reference GPU peak (h100-sxm: Meta's hours are H100-hours)",
              f'=INDEX(catalog_gpu_peak_tflops,MATCH("{catalog.REFERENCE_GPU}",catalog_gpu_ids,0))',
              s["reference_gpu_peak_tflops"], "TFLOPS", "", "count", name="reference_gpu_peak_tflops")
    ref = sheet.records(list(table.reference.index), REFERENCE_COLUMNS, table.reference,
                        label_header="Model")
    sheet.text(method.WHY_REPORTED_IS_HIGHER, style=book.styles.note, height=32)
    sheet.skip()

    _reference_chart(book, sheet, ref)
    _allocation_chart(book, sheet, alloc)
    return sheet


def _reference_chart(book: kit.Book, sheet: kit.Sheet, rows: tuple[int, int, int]) -> None:
    header, first, last = rows
    chart = book.wb.add_chart({"type": "column"})
    for col, colour in ((3, "#4472C4"), (4, "#C00000")):
        chart.add_series({"name": [sheet.name, header, col], "categories": [sheet.name, first, 0, last, 0],
                          "values": [sheet.name, first, col, last, col], "fill": {"color": colour}})
    chart.set_title({"name": "Calculated against reported H100-hours"})
    chart.set_y_axis({"name": "H100-hours", "num_format": "#,##0,,\"M\"", "major_gridlines": {"visible": True}})
    chart.set_legend({"position": "bottom"})
    chart.set_size({"width": 620, "height": 320})
    sheet.ws.insert_chart(sheet.row_index, 0, chart)
    sheet.skip(17)


def _allocation_chart(book: kit.Book, sheet: kit.Sheet, rows: tuple[int, int, int]) -> None:
    header, first, last = rows
    days = book.wb.add_chart({"type": "column"})
    days.add_series({"name": [sheet.name, header, 5], "categories": [sheet.name, first, 0, last, 0],
                     "values": [sheet.name, first, 5, last, 5], "fill": {"color": "#4472C4"},
                     "data_labels": {"value": True, "num_format": "#,##0.0"}})
    hours = book.wb.add_chart({"type": "line"})
    hours.add_series({"name": [sheet.name, header, 4], "categories": [sheet.name, first, 0, last, 0],
                      "values": [sheet.name, first, 4, last, 4], "y2_axis": True,
                      "line": {"color": "#C00000", "width": 2.25}, "marker": {"type": "circle"}})
    days.combine(hours)
    days.set_title({"name": "Allocation options: days and allocated GPU-hours"})
    days.set_y_axis({"name": "Wall-clock days", "num_format": "#,##0"})
    hours.set_y2_axis({"name": "Allocated GPU-hours", "num_format": "#,##0,,\"M\""})
    days.set_legend({"position": "bottom"})
    days.set_size({"width": 620, "height": 320})
    sheet.ws.insert_chart(sheet.row_index, 0, days)
    sheet.skip(17)


KEY_RESULTS = [
    ("hours_gpu_hours", "Training GPU-hours (pure calculation)", "GPU-hours", "hours"),
    ("hours_allocated_gpu_hours", "Allocated GPU-hours", "GPU-hours", "hours"),
    ("hours_cost", "Training cost", "currency", "money0"),
    ("hours_days", "Wall-clock days", "days", "days"),
]

CHECKS = [
    ("hours_days_match_allocation", "Days × 24 × GPUs = allocated GPU-hours",
     "=ABS(hours_days*24*hours_gpus-hours_allocated_gpu_hours)<=1e-9*ABS(hours_allocated_gpu_hours)"),
]
