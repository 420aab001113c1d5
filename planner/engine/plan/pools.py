"""The plan with two GPU types (METHOD §15.1, "The plan with two GPU types"; §13.15's "One serving GPU" read
per pool): when the Fleet's cheapest configuration is mixed, each pool is priced on its own Catalog row — its GPUs
and GPU-hours by month (x_k = MAX(x, CEIL9(x·λ_k/λ)) and y_k alike), a committed baseline from §13.3's rule on its
own hourly shape and prices (one tier and term for both), N_own = MAX_k G_k of its own and its own δ, φ, σ, ε,
capex, book value and burst — and the paths' money is the two pools' sum, with training and other costs once.

Each pool is §13's plan (planner/engine/plan/, priced by engine.cost.cost_of) with the fleet narrowed to that pool
and the pool's GPU's prices and server: nothing here computes a GPU-hour or a price of its own. The decode pool's
plan carries no training and no other costs, so every money column of the plan is the sum of the pools' columns."""

from __future__ import annotations

from dataclasses import dataclass, replace

from planner.engine.plan.inputs import Owning, Plan, prices_of, trains_apart
from planner.engine.plan.months import PATHS
from planner.engine.plan.prices import NO_SERVER, NO_SERVING, tokens_per_s_per_mw
from planner.engine.shared import HOURS_PER_DAY

POOLS = ("prefill", "decode")
NUMBER_FOR_A_PAIR = "a pair {{prefill: n, decode: m}}: the chosen fleet is mixed ({prefill} for prefill, {decode} " \
    "for decode), one number per pool"
PAIR_FOR_A_NUMBER = "one number: the chosen fleet is not mixed (one GPU type, {gpu})"
PAIR_KEYS = (("pricing", "serving_baseline_gpus"), ("ownership", "gpus"))


class PairRefused(ValueError):
    """A pool pair where the chosen fleet is not mixed, or one number where it is (§15.1): `problems` as
    ScenarioError takes them, each naming its key and what is allowed."""

    def __init__(self, problems: list):
        self.problems = problems
        super().__init__("; ".join(f"{'.'.join(key)}: {words}" for key, _, words in problems))


def is_pair(value) -> bool:
    """A {prefill, decode} pair as the scenario holds it (planner/inputs/cost.py's PoolCounts)."""
    return value is not None and hasattr(value, "prefill") and hasattr(value, "decode")


def typed(number):
    """A count as typed: 10, not the 10.0 a float input holds."""
    return int(number) if float(number).is_integer() else number


def as_typed(value):
    """A count or a {prefill, decode} pair as the scenario gave it, for a refusal's message."""
    return {"prefill": typed(value.prefill), "decode": typed(value.decode)} if is_pair(value) else typed(value)


def training_pool(scenario, best: dict) -> str | None:
    """The pool of a mixed fleet whose GPU type owned training shares (`gpu`'s), or None: training rents, or its GPUs
    are a third type on a line of their own (§15.1)."""
    if not scenario.ownership.training:
        return None
    return next((pool for pool in POOLS if best[f"{pool}_gpu"] == scenario.gpu), None)


def form_problems(scenario, mixed: bool, head: dict) -> list:
    """The pair inputs' form against the chosen fleet (§15.1's table: a pair when mixed, a number when not; the
    other form refused, naming the key); blank is always allowed."""
    problems = []
    for section, key in PAIR_KEYS:
        value = getattr(getattr(scenario, section), key)
        if value is None or (is_pair(value) == mixed):
            continue
        words = (NUMBER_FOR_A_PAIR.format(prefill=head["fleet_cheapest_prefill_gpu"],
                                          decode=head["fleet_cheapest_decode_gpu"]) if mixed
                 else PAIR_FOR_A_NUMBER.format(gpu=head["fleet_cheapest_gpu"]))
        problems.append(((section, key), as_typed(value), f"allowed: {words}, or blank"))
    return problems


def check_forms(scenario, tables) -> None:
    """Refuse the pair inputs in the wrong form for the chosen fleet (PairRefused); nothing without a fleet (a
    pair there is refused with the fleet's inputs: planner/inputs/cost.py)."""
    if scenario.fleet is None:
        return
    fleet = tables["fleet"]
    mixed = fleet.cheapest is not None and fleet.headline["fleet_cheapest_mixed"] is True
    if problems := form_problems(scenario, mixed, fleet.headline) or training_problems(scenario, tables, mixed):
        raise PairRefused(problems)


def training_problems(scenario, tables, mixed: bool) -> list:
    """Owned training sharing the owned GPUs of its type (the serving GPU, or a mixed fleet's pool on `gpu`): the
    typed count must hold the run's N_run GPUs; on a line of its own, `ownership.gpus` counts serving GPUs only."""
    own, run = scenario.ownership, scenario.hours.gpus
    if not own.training or trains_apart(scenario, tables) or own.gpus is None or is_pair(own.gpus) != mixed:
        return []
    pool = training_pool(scenario, tables["fleet"].cheapest) if mixed else None
    typed_count = pool_value(own.gpus, pool) if pool else own.gpus
    if typed_count is None or typed_count >= run:
        return []
    key = f"{pool} of the pair ({scenario.gpu})" if pool else "the count"
    return [(("ownership", "gpus"), as_typed(own.gpus), f"training on owned GPUs shares the {scenario.gpu} GPUs: "
             f"{key} needs at least the run's {run:,} GPUs (hours.gpus): give at least that, or leave it blank")]


def pool_value(value, pool: str):
    """A pool's share of a pair input (blank stays blank)."""
    return getattr(value, pool) if is_pair(value) else value


@dataclass
class PoolsPlan:
    """The plan with two GPU types: each pool's CostTable (its serving money, baseline, owned GPUs and prices) and
    the paths' totals summed over the pools."""

    pools: dict  # "prefill"/"decode" → (gpu id, CostTable)
    fleet_kw: float | str  # G^p·kW_p + G^d·kW_d at the peak (NO_SERVER without both kW)
    tokens_per_s_per_mw: float | str
    peak_gpus: dict = None  # "prefill"/"decode" → the launch fleet's GPUs at the peak, spares included
    fleet: object = None  # the launch configuration, both pools (engine.fleet.PlanFleet): the Cost sheet's hours

    @property
    def block(self) -> list[dict]:
        """The GPUs sheet's "Mixed fleet" block (§15.1): per pool its GPU, GPUs at the peak, on-demand price,
        share of the fleet's cost per hour, server kW, c_own and u*."""
        found = []
        for pool, (gpu, table) in self.pools.items():
            s = table.scalars
            found.append({"mixed_gpu": gpu, "mixed_gpus": self.peak_gpus[pool], "mixed_price": s["price_on_demand"],
                          "mixed_server_kw": table.plan.owning.server_kw if table.plan.owning.server_kw is not None
                          else NO_SERVER, "mixed_own_cost_per_gpu_hour": s["own_cost_per_gpu_hour"],
                          "mixed_break_even_utilisation": s["own_break_even_utilisation"]})
        hourly = sum(row["mixed_gpus"] * row["mixed_price"] for row in found)
        for row in found:
            row["mixed_share"] = row["mixed_gpus"] * row["mixed_price"] / hourly if hourly else NO_SERVING
        return found

    def total(self, key: str):
        """A total summed over the pools; a pool's reason when it reads n/a."""
        return added(*(table.totals[key] for _, table in self.pools.values()))

    def to_json(self) -> dict:
        per_pool, months = {}, {}
        for pool, (gpu, table) in self.pools.items():
            s = table.scalars
            per_pool[pool] = {"gpu": gpu, "gpus_peak": self.peak_gpus[pool],  # at launch, spares included
                              **{key: s[key] for key in POOL_SCALARS},
                              **{f"{path}_serving": table.totals[f"{path}_serving"] for path in PATHS}}
            for row in table.rows:
                if row["in_plan"]:
                    found = months.setdefault(row["month"], {"month": row["month"]})
                    found |= {f"{pool}_gpus": row["committed_gpus"], f"{pool}_gpu_hours": row["serving_gpu_hours"],
                              **{f"{pool}_{path}_serving": row[f"{path}_serving"] for path in PATHS}}
        totals = {f"{path}_{key}": self.total(f"{path}_{key}") for path in PATHS
                  for key in ("serving", "subtotal", "contingency", "total", "npv")}
        return {**per_pool, "totals": totals, "months": [months[k] for k in sorted(months)],
                "fleet_kw": self.fleet_kw, "tokens_per_s_per_mw": self.tokens_per_s_per_mw}


POOL_SCALARS = ("price_on_demand", "price_committed_1y", "price_committed_3y", "price_spot", "price_baseline",
                "baseline_hours", "serving_baseline_gpus_suggested", "serving_baseline_gpus_used", "own_gpus",
                "own_capex", "own_book_value", "own_cost_per_gpu_hour", "own_break_even_utilisation",
                "own_utilisation")


def pool_plans(plan: Plan, scenario, fleet_table, spare: float, whole=None,
               moved=None) -> dict[str, tuple[str, Plan]]:
    """Each pool's plan: the launch configuration narrowed to its pool, its GPU's prices and server, its share of
    a pair input; training and other costs on the prefill pool's only (the decode pool's plan has none). A
    what-if's (the Sensitivity's): `whole`, the configuration at another demand; `moved`, the prices moved."""
    from planner.engine.fleet import PlanFleet

    whole = whole or PlanFleet.of(fleet_table, spare)
    best, own, catalog = fleet_table.cheapest, scenario.ownership, scenario.merged_catalog.gpus
    trains_on = training_pool(scenario, best)
    found = {}
    for i, pool in enumerate(POOLS):
        gpu, narrowed = best[f"{pool}_gpu"], narrow(whole, i)
        owning = Owning(server_price=catalog[gpu].server_price, server_kw=catalog[gpu].server_kw,
                        **(own.model_dump() | {"gpus": pool_value(own.gpus, pool),
                                               "training_gpus": scenario.hours.gpus if pool == trains_on else 0}))
        prices = prices_of(scenario, gpu)
        changes = dict(fleet=narrowed, serving_fits=True, fleet_mixed=False, prices=moved(prices) if moved else prices,
                       owning=owning, baseline_gpus=pool_value(scenario.pricing.serving_baseline_gpus, pool),
                       average_month=None, average_month_na="")  # the bridge is the plan's, from both (merged)
        if i:  # training (rented, or its own owned line) and other costs once, on the first pool's plan
            changes |= dict(allocated_gpu_hours=0.0, run_gpus=0, other_monthly_cost=0.0, training_line=None,
                            price_input_per_million=None, price_output_per_million=None)
        found[pool] = (gpu, replace(plan, **changes))
    return found


def narrow(whole, i: int):
    """The launch configuration's pool i alone (0 prefill, 1 decode): its t, replicas at the peak and each hour."""
    return replace(whole, parallel=(whole.parallel[i],), peak=(whole.peak[i],),
                   hourly=tuple((h[i],) for h in whole.hourly) if whole.hourly is not None else None)


def pool_fleets(scenario, fleet_table, whole) -> list[tuple]:
    """Each pool's configuration and on-demand price in the reporting currency: the average months' (§9) pools."""
    return [(narrow(whole, i), prices_of(scenario, fleet_table.cheapest[f"{pool}_gpu"]).on_demand * scenario.fx_rate)
            for i, pool in enumerate(POOLS)]


def priced(plan: Plan, scenario, fleet_table, cost_of, *, whole=None, moved=None) -> PoolsPlan:
    """The plan with two GPU types (§15.1): each pool's plan priced by §13 (`cost_of`, engine.cost's, passed in: the
    cost table imports this module) on one set of month rows (the longer pool's: a baseline of 0 ends the other's
    plan at E), and the fleet's kW and tokens per MW at the peak; `whole` and `moved` a what-if's (pool_plans)."""
    plans = pool_plans(plan, scenario, fleet_table, scenario.fleet.spare, whole=whole, moved=moved)
    if plan.rows is None:  # both pools on the same rows: the most either needs
        rows = max(len(cost_of(p).rows) for _, p in plans.values())
        plans = {pool: (gpu, replace(p, rows=rows)) for pool, (gpu, p) in plans.items()}
    tables = {pool: (gpu, cost_of(p)) for pool, (gpu, p) in plans.items()}
    best, head = fleet_table.cheapest, fleet_table.headline
    gpus = {"prefill": head["fleet_cheapest_prefill_gpus"], "decode": head["fleet_cheapest_decode_gpus"]}
    kws = {pool: scenario.merged_catalog.gpus[gpu].server_kw for pool, (gpu, _) in tables.items()}
    kw = NO_SERVER if None in kws.values() else float(sum(gpus[pool] * kws[pool] for pool in POOLS))
    tokens_per_s = best["tokens_per_s_per_gpu"] * best["gpus"]  # λ·o at the peak
    # λ·o·1000/((G^p·kW_p + G^d·kW_d)·PUE): as tokens_per_s_per_mw with the fleet's kW in place of one GPU's
    per_mw = tokens_per_s_per_mw(tokens_per_s, kw, scenario.ownership.pue) if isinstance(kw, float) and kw > 0 \
        else NO_SERVER
    from planner.engine.plan.inputs import sizing_fleet

    whole = sizing_fleet(scenario, {"fleet": fleet_table})
    return PoolsPlan(pools=tables, fleet_kw=kw, tokens_per_s_per_mw=per_mw, peak_gpus=gpus, fleet=whole)


# The plan as the sheets show it (§15.1: "the Budget: a GPUs and a GPU-hours column per pool, and each path's serving
# money per pool. The totals keep their form."): the pools' month columns side by side, each path's money their sum
SUFFIX = {"prefill": "_p", "decode": "_d"}
FLEET_CALENDAR = tuple(f"fleet_gpus_hour_{h}" for h in range(HOURS_PER_DAY)) + ("fleet_gpu_hours_a_day",
                                                                               "fleet_peak_gpus")
POOL_COLUMNS = FLEET_CALENDAR + ("serving_gpu_hours", "committed_gpus", "burst_committed_gpu_hours",
                                 "burst_owned_gpu_hours", "on_demand_serving", "standby", "baseline",
                                 "burst_committed", "committed_serving", "depreciation", "opex", "burst_owned",
                                 "owned_serving", "capex", "book_value")
# one serving GPU's cells, which a mixed fleet reads per pool instead (the Cost sheet's _p and _d cells)
ONE_GPU = ("price_on_demand", "price_committed_1y", "price_committed_3y", "price_spot", "price_baseline",
           "price_baseline_effective", "baseline_hours", "own_depreciation_per_day", "own_facility_per_day",
           "own_staff_per_day", "own_energy_per_day", "own_cost_per_gpu_hour", "own_break_even_utilisation",
           "own_break_even_utilisation_1y", "own_break_even_utilisation_3y", "own_cost_per_million_tokens")
POOL_CELLS = ("price_on_demand", "price_committed_1y", "price_committed_3y", "price_spot", "price_baseline",
              "price_baseline_effective", "baseline_hours", "serving_baseline_gpus_suggested",
              "serving_baseline_gpus_used", "own_depreciation_per_day", "own_facility_per_day", "own_staff_per_day",
              "own_energy_per_day", "own_cost_per_gpu_hour", "own_break_even_utilisation", "own_capex",
              "own_book_value")
POOL_DATES = ("own_start", "own_life_end")  # a pool's purchase: S when training shares its GPUs, else L
SUMMED_CELLS = ("serving_baseline_gpus_used", "own_gpus", "own_capex", "own_book_value")


def pool_name(key: str, pool: str) -> str:
    """A pool's cell: `price_on_demand_p`, `own_cost_per_gpu_hour_d`; the owned GPUs `own_gpus_prefill`."""
    return f"own_gpus_{pool}" if key == "own_gpus" else key + SUFFIX[pool]


def added(*values):
    """The pools' sum, or the first pool's reason (as the sheet's IF(ISNUMBER(p),IF(ISNUMBER(d),p+d,d),p))."""
    reason = next((v for v in values if isinstance(v, str)), None)
    return reason if reason is not None else sum(values)


def merged(single, pp: PoolsPlan, money: tuple, unit_of_rows, chosen_columns):
    """The cost table the sheets, the Cover, the HTML and the JSON read for a mixed fleet: one serving GPU's
    table (`single`: its calendar, training and other costs, its one-GPU cells n/a) with the pools' month columns
    beside its own, each path's money and the GPUs the pools' sum, the totals and fiscal years summed. engine.cost's
    MONEY columns, unit_of_rows and chosen_columns are passed in: the cost table imports this module."""
    summed = FLEET_CALENDAR + ("serving_gpu_hours", "committed_gpus", "scale", "burst_committed_gpu_hours",
                               "burst_owned_gpu_hours") + tuple(
        key for key in money if key not in ("training", "other", "revenue"))
    (_, first), (_, second) = pp.pools["prefill"], pp.pools["decode"]
    na = single.plan.serving_na
    rows = []
    for a, b in zip(first.rows, second.rows):
        row = dict(a)
        row |= {key: added(a[key], b[key]) if a["in_plan"] or key not in money else "" for key in summed
                if key in a}
        for pool, pool_row in (("prefill", a), ("decode", b)):
            row |= {key + SUFFIX[pool]: pool_row[key] for key in POOL_COLUMNS if key in pool_row}
        rows.append(row)
    totals = {key: pp.total(key) for key in first.totals}
    years = [{key: (value if key in ("fiscal_year", "months") else added(value, y2[key]))
              for key, value in y1.items()} for y1, y2 in zip(first.fiscal_years, second.fiscal_years)]
    scalars = dict(single.scalars) | {key: max(first.scalars[key], second.scalars[key])
                                      for key in ("plan_end", "months", "path_end")}  # the longer pool's
    scalars |= dict.fromkeys(ONE_GPU, na) | {"tokens_per_s_per_mw": pp.tokens_per_s_per_mw}  # the fleet's (§15.1)
    for pool, (_, table) in pp.pools.items():
        scalars |= {pool_name(key, pool): table.scalars[key] for key in POOL_CELLS + POOL_DATES + ("own_gpus",
                                                                                                "own_utilisation")}
    scalars |= {key: added(first.scalars[key], second.scalars[key]) for key in SUMMED_CELLS}
    table = replace(single, scalars=scalars, rows=rows, fiscal_years=years, totals=totals, pools=pp)
    table.unit = unit_of_rows(single.plan, rows, totals)
    used, peak = scalars["serving_baseline_gpus_used"], max(
        (r["committed_gpus"] for r in rows if r["in_plan"] and not isinstance(r["committed_gpus"], str)), default=0)
    both_priced = all(t.plan.owning.server_price is not None and t.plan.owning.server_kw is not None
                      for _, t in pp.pools.values())
    table.warnings = dict(single.warnings) | {
        "tco_warn_plan_outlives_owned_gpus": both_priced and scalars["serving_end"] > scalars["own_life_end"]
        or (scalars["own_training_separate"] and scalars["own_training_priced"]
            and scalars["serving_end"] > scalars["own_training_life_end"]),
        "tco_warn_baseline_above_demand": not isinstance(used, str) and 0 < used and used > peak,
        "tco_warn_commitment_longer_than_serving": not isinstance(used, str) and used > 0
        and scalars["serving_commitment_months"] < scalars["serving_term_months"],
        "tco_warn_serving_does_not_fit": False}
    table.checks = dict(single.checks) | {
        key: first.checks[key] and second.checks[key] for key in ("tco_fiscal_years_add_up",
                                                                    "tco_owned_cash_equals_accrual",
                                                                    "tco_owned_training_gpus")}
    chosen_columns(table, single.plan)
    return table

