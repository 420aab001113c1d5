"""The Cluster sheet (docs/method.md §4): one GPU cluster over 24 hours, separate pools against a shared cluster with
preemption. The serving pool, the 24 hours (the chosen profile's fractions looked up in Catalog), the day's totals,
and a 24-hour stack for each mode."""

from __future__ import annotations

from planner.specs import CLUSTER_STACKS
from planner.workbook import kit
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Cluster"


def ceil9(x: str) -> str:
    """CEIL9(x) in the sheet: round to gpu_rounding_decimals, then up to a whole GPU."""
    return f"CEILING(ROUND({x},gpu_rounding_decimals),1)"  # LibreOffice's ROUNDUP(2168.000000002,0) gives 2168


POOL = [
    Row("peak_fraction", "Busiest hour of the profile, max f_h",
        formula="=INDEX(catalog_profile_peak,1,MATCH(cluster_profile,catalog_profile_ids,0))", kind="percent",
        unit="of peak", note="The chosen profile's largest fraction, from Catalog.", name="cluster_peak_fraction",
        at="fraction"),
    Row("peak_demand_gpus", "Peak demand max D_h", formula="=cluster_inference_peak_gpus*{peak_fraction}",
        kind="count", unit="GPUs", note="P · max f_h", name="cluster_peak_demand_gpus", at="demand"),
    Row("pool_gpus", "Serving pool", formula="=" + ceil9("{peak_demand_gpus}*(1+cluster_spare)"), kind="count",
        unit="GPUs",
        note="CEIL9(max D_h · (1 + r)): the peak plus spare, in whole GPUs.", name="cluster_pool_gpus", bold=True,
        at="demand"),
    Row("separate_training_gpus", "Training GPUs beside it", formula="=cluster_gpus-{pool_gpus}", kind="count",
        unit="GPUs",
        note="N − pool, every hour. Negative: the pool does not fit in the cluster (see Checks).",
        name="cluster_separate_training_gpus", warn="negative", at="separate_training"),
]

HOURS = [
    Column("fraction", "Fraction of peak f_h",
           template=lambda i: f"=INDEX(catalog_profile_fractions,{i + 1},MATCH(cluster_profile,catalog_profile_ids,0))",
           kind="percent"),
    Column("demand", "Demand D_h (GPUs)", template="=cluster_inference_peak_gpus*{fraction}", kind="count"),
    Column("separate_idle", "Separate: idle (GPUs)", template="={pool_gpus}-{demand}", kind="count"),
    Column("separate_training", "Separate: training (GPUs)", template="={separate_training_gpus}", kind="count"),
    Column("allocated", "Shared: inference A_h (GPUs)",
           template="=MIN(cluster_gpus," + ceil9("{demand}*(1+cluster_spare)") + ")", kind="count"),
    Column("shared_spare", "Shared: spare (GPUs)", template="={allocated}-{demand}", kind="count"),
    Column("shared_training", "Shared: training (GPUs)", template="=cluster_gpus-{allocated}", kind="count"),
    Column("preempted", "Shared: preempted (GPUs)", template="=MAX(0,{allocated}-{allocated:prev})", kind="count"),
]

TOTALS = [
    Row("inference_gpu_hours", "Inference GPU-hours (either mode)", formula="=SUM({demand:range})", kind="hours",
        unit="GPU-hours",
        note="Σ D_h", name="cluster_inference_gpu_hours", at="demand"),
    Row("idle_gpu_hours_separate", "Separate pools: idle GPU-hours", formula="=SUM({separate_idle:range})",
        kind="hours",
        unit="GPU-hours", note="Σ (pool − D_h): the serving pool's unused hours.",
            name="cluster_idle_gpu_hours_separate", at="separate_idle"),
    Row("training_gpu_hours_separate", "Separate pools: training GPU-hours", formula="=SUM({separate_training:range})",
        kind="hours", unit="GPU-hours", note="24 · (N − pool)", name="cluster_training_gpu_hours_separate",
        at="separate_training"),
    Row("idle_gpu_hours_shared", "Shared: spare GPU-hours", formula="=SUM({shared_spare:range})", kind="hours",
        unit="GPU-hours",
        note="Σ (A_h − D_h)", name="cluster_idle_gpu_hours_shared", at="shared_spare"),
    Row("training_gpu_hours_shared", "Shared: training GPU-hours", formula="=SUM({shared_training:range})",
        kind="hours",
        unit="GPU-hours", note="Σ (N − A_h)", name="cluster_training_gpu_hours_shared", at="shared_training"),
    Row("moved_gpu_hours", "GPU-hours moved to training", formula="={training_gpu_hours_shared}-"
        "{training_gpu_hours_separate}", kind="hours", unit="GPU-hours", note="Shared − separate training GPU-hours.",
        name="cluster_moved_gpu_hours", at="shared_training", bold=True),
    Row("preemptions", "Preemptions", formula="=SUM({preempted:range})", kind="count", unit="GPUs",
        note="Training GPUs preempted over "
        "the day; hour 0 follows hour 23.", name="cluster_preemptions", at="preempted"),
    Row("lost_gpu_hours", "Work lost to preemption", formula="={preemptions}*cluster_restart_cost_gpu_hours",
        kind="hours",
        unit="GPU-hours", note="Preemptions · c", name="cluster_lost_gpu_hours", at="preempted"),
    Row("net_gain_gpu_hours", "Net gain of sharing", formula="={moved_gpu_hours}-{lost_gpu_hours}", kind="hours",
        unit="GPU-hours",
        note="Moved − lost. Negative: sharing costs more than it gives.", name="cluster_net_gain_gpu_hours",
        at="shared_training", bold=True,
        warn="negative"),
    Row("net_gain_value", "Its value a day at the GPU's price",
        formula="={net_gain_gpu_hours}*price_per_gpu_hour_converted",
        kind="money", unit="per day",
        note="Net gain × the price per GPU-hour in the reporting currency (Inputs).", name="cluster_net_gain_value",
        at="shared_training", bold=True,
        warn="negative"),
]

# The stacks: (column key, legend, colour) for each mode, inference at the bottom.


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.cluster
    sheet = book.sheet(SHEET, [(column.header, 10) for column in HOURS], note_width=36, unit_width=10,
                       keys=[column.key for column in HOURS])
    sheet.title("Cluster over 24 hours", "docs/method.md §4: separate pools (a serving pool sized for the peak) "
                "against a shared cluster where training fills what inference does not use and is preempted as it "
                "grows.")
    sheet.header(repeat=True)  # the hours' columns: the pool above and the day's totals below sit under them

    sheet.section("Separate pools: the serving pool is sized for the peak plus spare")
    sheet.rows(POOL, table.scalars)
    sheet.skip()

    sheet.section("Hour by hour: the profile, separate pools, shared with preemption")
    sheet.records([str(row["hour"]) for row in table.hours], HOURS, table.hours, label_header="Hour")
    sheet.skip()

    sheet.section("The day's totals")
    sheet.rows(TOTALS, table.scalars)

    sheet.section("24 hours in each mode")
    _stack(book, sheet, "separate", "Separate pools: the serving pool sits idle off-peak")
    _stack(book, sheet, "shared", "Shared: training fills what inference does not use")
    return sheet


def _stack(book: kit.Book, sheet: kit.Sheet, mode: str, title: str) -> None:
    """Stacked columns per hour: inference, spare or idle, training (they add up to the cluster); on the shared
    chart, the training GPUs preempted each hour as a line."""
    chart = book.wb.add_chart({"type": "column", "subtype": "stacked"})
    categories = sheet.labels_of("demand")
    for key, legend, colour in CLUSTER_STACKS[mode]:
        chart.add_series({"name": legend, "categories": categories, "values": sheet.series(key),
                          "fill": {"color": colour}, "gap": 40})
    if mode == "shared":
        line = book.wb.add_chart({"type": "line"})
        line.add_series({"name": "Training GPUs preempted", "categories": categories,
                         "values": sheet.series("preempted"), "line": {"color": kit.WARNING_RED, "width": 2.25},
                         "marker": {"type": "circle", "size": 4, "fill": {"color": kit.WARNING_RED},
                                    "border": {"color": kit.WARNING_RED}}})
        chart.combine(line)
    sheet.chart(chart, height=400, width=900, title=title, x_axis={"name": "Hour of the day"},
                y_axis={"name": "GPUs", "num_format": "#,##0", "min": 0, "major_gridlines": {"visible": True}},
                legend="bottom")


KEY_RESULTS = [
    KeyResult("cluster_idle_gpu_hours_separate", "Cluster's own pools ({cluster_gpus|count} GPUs, Cluster's inputs, "
              "not the plan's): idle GPU-hours a day on separate pools, {cluster_profile}, peak "
              "{cluster_inference_peak_gpus|count} GPUs", kind="hours", unit="GPU-hours", what_if=True),
    KeyResult("cluster_moved_gpu_hours", "… GPU-hours a day moved to training on a shared cluster", kind="hours",
              unit="GPU-hours", what_if=True),
    KeyResult("cluster_preemptions", "… training GPUs preempted a day", kind="count", unit="GPUs", what_if=True),
    KeyResult("cluster_net_gain_gpu_hours", "… net gain a day after the work lost to preemption", kind="hours",
              unit="GPU-hours", what_if=True),
    KeyResult("cluster_net_gain_value", "… its value a day at the {gpu}'s price", kind="money", unit="",
              what_if=True),
]

CHECKS = [
    Check("cluster_pool_fits", "Separate pools: the serving pool (peak plus spare) fits in the cluster",
          formula="AND(ISNUMBER(cluster_gpus),ISNUMBER(cluster_inference_peak_gpus),ISNUMBER(cluster_spare),"
          "cluster_pool_gpus<=cluster_gpus)", note="CEIL9(max D_h · (1 + r)) ≤ N", about=("cluster_",)),
]
