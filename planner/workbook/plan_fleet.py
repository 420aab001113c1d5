"""The Fleet in the plan (docs/method.md §11, "The fleet in the plan"; §13.9): with a `fleet` section the plan's
serving is the Fleet's cheapest configuration at launch, its replicas scaled to each month's rate. The Cost sheet
holds that configuration's two pools (aggregated: one) and its replicas hour by hour; the Budget's month rows hold
its GPUs in each hour at the month's rate, from which the used GPU-hours, the peak-sized GPUs and the burst follow;
the average months read the same row of the calendar. Without a fleet nothing here is written."""

from __future__ import annotations

from planner.engine.shared import HOURS_PER_DAY
from planner.workbook import kit
from planner.workbook.kit import Column, Row

CHOSEN = ("mode", "tensor_parallel", "prefill_tensor_parallel", "replicas", "prefill_replicas", "decode_replicas")
HOURLY = ("replicas", "prefill_replicas", "decode_replicas")  # the Fleet's day columns of replicas each hour
RATE = "(1+budget_monthly_growth)^({label}-launch_month)"  # λ_k/λ: the month's rate from its growth anniversary


def chosen(key: str) -> str:
    """The Fleet's cheapest configuration's value (the Candidates table's first row); 0 when no configuration
    meets the SLO (the first row is then one that does not)."""
    return f"IF(plan_serving_fits,N(fleet_chosen_{key}),0)"


def pool(replicas: str, parallel: str) -> str:
    """A pool's GPUs with spares: CEIL9(n·(1 + r_f))·t."""
    return f"CEILING(ROUND(({replicas})*(1+fleet_spare),gpu_rounding_decimals),1)*{parallel}"


def scaled(replicas: str, rate: str) -> str:
    """n_k = MAX(n, CEIL9(n·λ_k/λ)): the replicas at a month's rate, never below the launch's."""
    return f"MAX({replicas},CEILING(ROUND({replicas}*{rate},gpu_rounding_decimals),1))"


def gpus(first: str, second: str, rate: str | None = None) -> str:
    """Both pools' GPUs with spares at these replicas (scaled to a month's rate when given)."""
    if rate is not None:
        first, second = scaled(first, rate), scaled(second, rate)
    return f"{pool(first, 'fleet_plan_first_parallel')}+{pool(second, 'fleet_plan_second_parallel')}"


AGGREGATED = 'fleet_chosen_mode="aggregated"'
CONFIGURATION = [
    Row("fleet_plan_first_parallel", "First pool's GPUs per replica (t; disaggregated: prefill t_p)",
        formula=f"=IF({AGGREGATED},{chosen('tensor_parallel')},{chosen('prefill_tensor_parallel')})", kind="count",
        unit="GPUs", note="The Fleet's cheapest configuration (its Candidates table's first row)",
        name="fleet_plan_first_parallel"),
    Row("fleet_plan_second_parallel", "Second pool's GPUs per replica (disaggregated: decode t_d)",
        formula=f"=IF({AGGREGATED},0,{chosen('tensor_parallel')})", kind="count", unit="GPUs",
        note="0 aggregated: one pool", name="fleet_plan_second_parallel"),
    Row("fleet_plan_first_peak", "First pool's replicas at the peak (n; prefill x)",
        formula=f"=IF({AGGREGATED},{chosen('replicas')},{chosen('prefill_replicas')})", kind="count",
        unit="replicas", name="fleet_plan_first_peak"),
    Row("fleet_plan_second_peak", "Second pool's replicas at the peak (decode y)",
        formula=f"=IF({AGGREGATED},0,{chosen('decode_replicas')})", kind="count", unit="replicas",
        name="fleet_plan_second_peak"),
]
LAUNCH_TOTAL = Row("fleet_plan_gpu_hours_a_day", "GPU-hours a day at launch (the fleet that follows demand)",
                   formula="=SUM(fleet_plan_launch_gpus)", kind="count", unit="GPU-hours a day",
                   note="Without a profile, the peak-sized fleet all day", name="fleet_plan_gpu_hours_a_day")


def hour_columns(with_day: bool) -> list[Column]:
    """The Cost sheet's 24 hours: each pool's replicas in hour h of the launch month (the Fleet's day, or the peak's
    every hour without a profile) and their GPUs with spares."""
    def first(i: int) -> str:
        if not with_day:
            return "=fleet_plan_first_peak"
        return (f"=IF({AGGREGATED},INDEX(fleet_hour_replicas,{i + 1}),"
                f"INDEX(fleet_hour_prefill_replicas,{i + 1}))")

    def second(i: int) -> str:
        return f"=IF({AGGREGATED},0,INDEX(fleet_hour_decode_replicas,{i + 1}))" if with_day else \
            "=fleet_plan_second_peak"

    return [Column("first_replicas", "First pool's replicas", kind="count", template=first),
            Column("second_replicas", "Second pool's replicas", kind="count", template=second),
            Column("launch_gpus", "GPUs at launch G_h", kind="count",
                   template="=" + gpus("{first_replicas}", "{second_replicas}"))]


def cost_section(book: kit.Book, sheet: kit.Sheet, results) -> None:
    """The Fleet's configuration at launch and its replicas hour by hour (named ranges the month rows read)."""
    fleet, table = results.cost.plan.fleet, results.fleet
    sheet.section("Serving sized by the Fleet: its cheapest configuration at launch (§11)")
    aggregated = fleet is None or len(fleet.parallel) == 1
    parallel = (fleet.parallel + (0,))[:2] if fleet else (0, 0)
    peak = (fleet.peak + (0,))[:2] if fleet else (0, 0)
    sheet.rows(CONFIGURATION, {"fleet_plan_first_parallel": parallel[0], "fleet_plan_second_parallel": parallel[1],
                               "fleet_plan_first_peak": peak[0], "fleet_plan_second_peak": peak[1]})
    hours = fleet.hourly if fleet and fleet.hourly else [peak] * HOURS_PER_DAY
    launch = fleet.hours(1.0) if fleet else [0] * HOURS_PER_DAY
    rows = [{"first_replicas": h[0], "second_replicas": 0 if aggregated else h[1], "launch_gpus": g}
            for h, g in zip(hours, launch)]
    _, first, last = sheet.records(list(range(HOURS_PER_DAY)), hour_columns(bool(table.day)), rows,
                                   label_header="Hour")
    for key in ("first_replicas", "second_replicas", "launch_gpus"):
        col = sheet.places[key].col
        book.define(f"fleet_plan_{key}", sheet.name,
                    f"{kit.xl_rowcol_to_cell(first, col, True, True)}:{kit.xl_rowcol_to_cell(last, col, True, True)}")
    sheet.row(LAUNCH_TOTAL, float(sum(launch)))
    sheet.skip()


# The Budget's month rows ----------------------------------------------------------------------------------------------
SERVES = "AND({label}>=launch_month,{label}<=launch_month+budget_months)"  # the rows serving can touch: the
# calendar's and the average months' (k_L + m − 1); 0 beyond, where growth would compound to no purpose


def calendar_columns() -> list[Column]:
    """G_{h,k} in each hour at the month's rate, their GPU-hours a day, and the peak-sized GPUs, on the rows from
    launch to the horizon's last month."""
    hours = [Column(f"fleet_gpus_hour_{h}", f"Fleet: GPUs in hour {h}", kind="count",
                    template=f"=IF({SERVES}," + gpus(f"INDEX(fleet_plan_first_replicas,{h + 1})",
                                                    f"INDEX(fleet_plan_second_replicas,{h + 1})", RATE) + ",0)")
             for h in range(HOURS_PER_DAY)]
    return hours + [
        Column("fleet_gpu_hours_a_day", "Fleet: GPU-hours a day", kind="count",
               template="=SUM({fleet_gpus_hour_0}:{fleet_gpus_hour_23})"),
        Column("fleet_peak_gpus", "Fleet: peak-sized GPUs", kind="count",
               template=f"=IF({SERVES}," + gpus("fleet_plan_first_peak", "fleet_plan_second_peak", RATE) + ",0)"),
    ]


def used_gpu_hours(served, before: str, after: str):
    """U_k: the days before the month's growth anniversary at the previous row's GPU-hours a day (its rate), the
    days from it at this row's; `served` wraps a demand column (n/a when serving is not priced)."""
    def template(i: int) -> str:
        earlier = f"{before}*{{fleet_gpu_hours_a_day:prev}}+" if i else ""
        return served(f"IF({{serving_days}}>0,{earlier}{after}*{{fleet_gpu_hours_a_day}},0)")
    return template


def burst(served, baseline: str) -> str:
    """X_k(B) = v_k·Σ_h MAX(0, G_{h,k} − B) over the row's hours (whole GPUs: SUMIF and COUNTIF above B)."""
    hours = "{fleet_gpus_hour_0}:{fleet_gpus_hour_23}"
    return served(f'{{serving_days}}*(SUMIF({hours},">"&{baseline})-{baseline}*COUNTIF({hours},">"&{baseline}))')
