"""The Hours sheet (docs/method.md §2): training operations, GPU-hours, cost and days; the run beside its allocation
options; the calculation beside Meta's reported Llama 3.1 H100-hours. Each table with its chart under it."""

from __future__ import annotations

import dataclasses

from planner.engine.hours import REPORTED_RATIOS  # noqa: F401 (the HTML shows it too)
from planner.workbook import kit, model
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Hours"

MFU_USED = Row("mfu_used", "MFU used", formula="=hours_mfu", kind="percent", unit="of peak",
               note="The share typed on Inputs", name="hours_mfu_used")
# with a layout search, the word layout on Inputs takes the cheapest layout's predicted MFU from the Layouts sheet
MFU_FROM_LAYOUTS = dataclasses.replace(
    MFU_USED, formula="=IF(ISNUMBER(hours_mfu),hours_mfu,search_cheapest_mfu)",
    note="The share typed on Inputs, or with the word layout the Layouts sheet's cheapest layout's MFU")

RUN = [
    Row("gpu_peak_tflops", "GPU peak (dense BF16)",
        formula="=INDEX(catalog_gpu_peak_tflops,MATCH(gpu,catalog_gpu_ids,0))",
        kind="count", unit="TFLOPS", name="gpu_peak_tflops"),
    Row("peak_tflops", "Peak used for training",
        formula='=IF(AND(training_precision="fp8",gpu_fp8_tflops>0),gpu_fp8_tflops,gpu_peak_tflops)', kind="count",
        unit="TFLOPS", note="The dense FP8 peak when training in FP8 on a GPU that has it, else BF16",
        name="hours_peak_tflops"),
    Row("ops_per_param_token", "Operations per parameter per token",
        formula="=IF(hours_activation_recompute,recompute_ops_per_param_token,training_ops_per_param_token)",
            kind="count",
        unit="FLOP", note="Forward 2 + backward 4; recomputation adds a forward pass (2).",
            name="hours_ops_per_param_token"),
    Row("training_flops", "Training operations C",
        formula="=hours_ops_per_param_token*model_active_params*hours_tokens",
        kind="flops",
        note="C = 6·Ψ_active·T (Kaplan et al. 2020), 8·Ψ_active·T with recomputation", name="hours_training_flops"),
    Row("gpu_hours", "GPU-hours H",
        formula="=" + model.gpu_hours("hours_training_flops", "hours_peak_tflops", "hours_mfu_used"),
        kind="hours",
        note="H = C / (peak · MFU · 3600 s)", name="hours_gpu_hours"),
    Row("allocated_gpu_hours", "Allocated GPU-hours", formula="=hours_gpu_hours/hours_productive_share", kind="hours",
        note="H / q: what is paid for", name="hours_allocated_gpu_hours", bold=True),
    Row("cost", "Cost", formula="=hours_allocated_gpu_hours*price_per_gpu_hour_converted", kind="money0",
        unit="paid once", note="Allocated GPU-hours × the GPU's price per GPU-hour in the reporting currency (Inputs)",
        name="hours_cost", bold=True),
    Row("days", "Wall-clock days on the run's GPUs", formula="=hours_allocated_gpu_hours/hours_gpus/hours_per_day",
        kind="days",
        note="Allocated GPU-hours / GPUs in the run / 24", name="hours_days", bold=True),
]

ALLOCATIONS = [
    Column("gpus", "GPUs", template=lambda i: "=hours_gpus" if i == 0 else f"=hours_allocations_{i}_gpus",
        kind="count"),
    Column("mfu", "MFU", template=lambda i: "=hours_mfu_used" if i == 0 else f"=hours_allocations_{i}_mfu",
           kind="percent"),
    Column("gpu_hours", "GPU-hours",
           template="=" + model.gpu_hours("hours_training_flops", "hours_peak_tflops", "{mfu}"),
           kind="hours"),
    Column("allocated_gpu_hours", "Allocated GPU-hours", template="={gpu_hours}/hours_productive_share", kind="hours"),
    Column("days", "Wall-clock days", template="={allocated_gpu_hours}/{gpus}/hours_per_day", kind="days"),
    Column("cost", "Cost, paid once", template="={allocated_gpu_hours}*price_per_gpu_hour_converted", kind="money0"),
]

REFERENCE_GPU = Row("reference_gpu_peak_tflops", "Reference GPU peak (Meta's hours are H100-hours)",
                    formula="=INDEX(catalog_gpu_peak_tflops,MATCH(reference_gpu,catalog_gpu_ids,0))", kind="count",
                        unit="TFLOPS",
                    name="reference_gpu_peak_tflops")
REFERENCE = [
    Column("params", "Parameters Ψ", template="=INDEX(catalog_model_params,MATCH({label},catalog_model_ids,0))",
        kind="params"),
    Column("training_flops", "Operations (ZFLOP)", template="=hours_ops_per_param_token*{params}*hours_tokens",
           kind="flops"),
    Column("calculated_gpu_hours", "Calculated H100-hours",
           template="=" + model.gpu_hours("{training_flops}", "reference_gpu_peak_tflops", "hours_mfu_used"),
           kind="hours"),
    Column("reported_gpu_hours", "Reported H100-hours (Meta)",
           template="=INDEX(catalog_model_reported_h100_hours,MATCH({label},catalog_model_ids,0))", kind="hours"),
    Column("reported_over_calculated", "Reported ÷ calculated", template="={reported_gpu_hours}/{calculated_gpu_hours}",
           kind="ratio"),
]


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.hours
    sheet = book.sheet(SHEET, [("", 12)] * len(ALLOCATIONS))
    sheet.title("Training hours and cost", "docs/method.md §2: operations 6·Ψ·T (8·Ψ·T with recomputation) at the "
                "GPU's dense BF16 peak times MFU.")

    sheet.section("The training run")
    sheet.row(MFU_FROM_LAYOUTS if results.scenario.search is not None else MFU_USED, table.scalars["mfu_used"])
    sheet.rows(RUN, table.scalars)
    sheet.skip()

    sheet.section("The run beside its allocation options: a larger allocation can finish sooner at more GPU-hours")
    labels = [row["option"] for row in table.allocations]
    sheet.records(labels, ALLOCATIONS, table.allocations, label_header="Allocation")
    _allocation_chart(book, sheet)

    sheet.section("Beside Meta's reported Llama 3.1 hours (at this scenario's tokens, MFU and recomputation)")
    sheet.row(REFERENCE_GPU, table.scalars["reference_gpu_peak_tflops"])
    sheet.records([row["model"] for row in table.reference], REFERENCE, table.reference, label_header="Model")
    sheet.text(REPORTED_RATIOS, style=book.styles.note, height=46)
    _reference_chart(book, sheet)
    return sheet


def _reference_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    sheet.column_chart([(sheet.heading_of(key), sheet.labels_of(key), sheet.series(key), colour) for key, colour in
                        (("calculated_gpu_hours", "#4472C4"), ("reported_gpu_hours", kit.WARNING_RED))],
                       title="Calculated against reported H100-hours",
                       y_axis={"name": "H100-hours", "num_format": '#,##0.0,,"M"'})


def _allocation_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    days = book.wb.add_chart({"type": "column"})
    categories = sheet.labels_of("days")
    days.add_series({"name": sheet.heading_of("days"), "categories": categories, "values": sheet.series("days"),
                     "fill": {"color": "#4472C4"}, "data_labels": {"value": True, "num_format": "#,##0.0"}})
    hours = book.wb.add_chart({"type": "line"})
    hours.add_series({"name": sheet.heading_of("allocated_gpu_hours"), "categories": categories,
                      "values": sheet.series("allocated_gpu_hours"), "y2_axis": True,
                      "line": {"color": kit.WARNING_RED, "width": 2.25}, "marker": {"type": "circle"}})
    days.combine(hours)
    hours.set_y2_axis({"name": "Allocated GPU-hours", "num_format": '#,##0.0,,"M"', "min": 0})
    sheet.chart(days, title="The run and its options: days and allocated GPU-hours", legend="bottom",
                y_axis={"name": "Wall-clock days", "num_format": "#,##0", "min": 0})


KEY_RESULTS = [
    KeyResult("hours_gpu_hours", "Training GPU-hours: {model} on {hours_tokens|tera} T tokens, {gpu} at "
              "{hours_mfu_used|percent} MFU", kind="hours", unit="GPU-hours"),
    KeyResult("hours_allocated_gpu_hours", "Allocated GPU-hours at {hours_productive_share|percent} productive",
              kind="hours", unit="GPU-hours"),
    KeyResult("hours_cost", "Training cost, paid once, at the {gpu}'s price", kind="money0", unit=""),
    KeyResult("hours_days", "Wall-clock days on {hours_gpus|count} GPUs", kind="days", unit="days"),
]

CHECKS = [
    Check("hours_fp8_peak_found", "FP8 training: the GPU has an FP8 peak (else it trains at its BF16 peak)",
          formula='OR(training_precision<>"fp8",gpu_fp8_tflops>0)'),
    Check("hours_reference_gpu_in_catalog", "The reference GPU for Meta's hours is in Catalog",
          formula="ISNUMBER(MATCH(reference_gpu,catalog_gpu_ids,0))"),
]
