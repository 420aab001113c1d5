"""The GPUs sheet (docs/method.md §13.7): one row per row of the Catalog's GPU block, each GPU with a price set
beside the others at the scenario's training run, serving set-up and demand. Every value of the GPU is read from
its Catalog row by INDEX (the row's number is its label); the model's terms, the precisions, t, the users and the
efficiencies are the Serving sheet's named cells (the model core's twins on the row's GPU cells); no value is typed
here. Marks on the cheapest rent and the cheapest own."""

from __future__ import annotations

from dataclasses import replace

from planner.engine.gpus import DOES_NOT_FIT, NONE_PRICED
from planner.workbook import kit, model
from planner.workbook.catalog_sheet import GPUS, laid_out
from planner.workbook.cost import NEVER, NO_SERVER, NO_SERVING, PRICE_ZERO, depreciation_per_day, running_per_day, text
from planner.workbook.kit import Column, KeyResult, Row

SHEET = "GPUs"
DNF = text(DOES_NOT_FIT)
NO_DEMAND = text("n/a: a demand profile of zeros")


def catalog(key: str) -> str:
    return f"INDEX(catalog_gpu_{key},{{label}})"


def number(key: str) -> str:
    """A Catalog value that may be blank, as 0."""
    return f"IF(ISNUMBER({catalog(key)}),{catalog(key)},0)"


def listed(formula: str) -> str:
    """Blank on a Catalog row without a GPU or a price."""
    return f'=IF({{gpu}}="","",{formula})'


def served(formula: str) -> str:
    """A serving figure on the row's GPU: "does not fit" when not one sequence fits beside the weights."""
    return listed(f"IF({{max_users}}=0,{DNF},{formula})")


def by_the_month(formula: str) -> str:
    """Rent against own at launch traffic: n/a without serving on this GPU or without demand in the profile."""
    return listed(f"IF(SUM(plan_profile)=0,{NO_DEMAND},IF({{max_users}}=0,{DNF},{formula}))")


def owned(formula: str) -> str:
    """Owning on the row's GPU: n/a without its server price or kW."""
    return f"IF(AND(ISNUMBER({catalog('server_price')}),ISNUMBER({catalog('server_kw')})),{formula},{NO_SERVER})"


def in_force(name: str, given: str = "_in") -> str:
    """An efficiency on the row's GPU: on the scenario's GPU the one in force (a calibration's fit, as Serving's),
    on another the input (or the engine row's prior; τ, which has none, `given` "")."""
    return f"IF({{gpu}}=gpu,{name}_used,{name}{given})"


AT_B, AT_MAX = "pass_b_", "pass_max_"  # the helper columns' keys: the passes at B and at B_max
ROW_GPU = replace(model.SERVING, peak_flops="{peak_flops}", bandwidth="{bandwidth}", nvlink_gbps="{nvlink_gbps}",
                  peak_tflops=catalog("peak_tflops"), hbm_tbps=catalog("hbm_tbps"), price="{price}",
                  compute_efficiency=in_force("serving_compute_efficiency"),
                  overhead_ms=in_force("serving_overhead_ms", ""))
OWN_COST = f"({depreciation_per_day('{label}')}+{running_per_day('{label}')})/hours_per_day"  # c_own on the row

# W_g of a candidate at e = d_a = 1 (§14.6: this table's layouts), whatever the Serving sheet's layout
PLAIN_WEIGHTS = "(model_params+serving_draft_params)*serving_weight_bytes/serving_tensor_parallel/1e9"
COLUMNS = [  # the first PRINTED print (a page wide); the rest, what they are computed from, on screen
    Column("gpu", "GPU", kind="text", template=f'=IF(AND({catalog("ids")}<>"",ISNUMBER({catalog("price_per_hour")})),'
           f'{catalog("ids")},"")'),
    Column("training_cost", "Training cost, paid once", kind="money0",
           template=listed("{training_gpu_hours}/hours_productive_share*{price}")),
    Column("training_days", "Training days", kind="days",
           template=listed("{training_gpu_hours}/hours_productive_share/hours_gpus/hours_per_day")),
    Column("max_users", "Sequences that fit B_max", kind="count",
           template=listed(f"IF({catalog('memory_gb')}*(1-serving_memory_reserve)-{PLAIN_WEIGHTS}<=0,0,INT(ROUND("
                           f"({catalog('memory_gb')}*(1-serving_memory_reserve)-{PLAIN_WEIGHTS})/"
                           "serving_sequence_gb,gpu_rounding_decimals)))")),
    Column("cost_per_million", "Cost per M tokens at B", kind="money",
           template=served(model.cost_per_million_tokens("{price}", "{tokens_per_s_per_gpu}"))),
    Column("tokens_per_s_per_mw", "Tokens/s per MW", kind="count",
           template=served(f"IF(AND(ISNUMBER({catalog('server_kw')}),{number('server_kw')}>0),"
                           f"{{tokens_per_s_per_gpu}}*1000/({catalog('server_kw')}*ownership_pue),{NO_SERVER})")),
    Column("rent_per_month", "Rent per average month", kind="money0",
           template=by_the_month("{serving_gpu_hours_per_day}*budget_days_per_month*{price}")),
    Column("owned_fleet", "Owned fleet (peak hour)", kind="count",
           template=by_the_month("CEILING(ROUND({serving_gpu_hours_per_day}/SUM(plan_profile)*MAX(plan_profile),"
                                 "gpu_rounding_decimals),1)")),
    Column("own_per_month", "Own per average month", kind="money0",
           template=by_the_month(owned("{owned_fleet}*{own_cost_per_gpu_hour}*hours_per_day*budget_days_per_month"))),
    Column("break_even_utilisation", "Break-even utilisation u*", kind="percent",
           template=by_the_month(owned(f"IF({{price}}=0,{PRICE_ZERO},IF({{own_cost_per_gpu_hour}}>{{price}},"
                                       f"{NEVER},{{own_cost_per_gpu_hour}}/{{price}}))"))),  # compared, not divided
    Column("cheapest_rent", "Cheapest to rent", kind="bool",
           template=listed("IF(ISNUMBER({rent_per_month}),{rent_per_month}=MIN({rent_per_month:range}),FALSE)")),
    Column("cheapest_own", "Cheapest to own", kind="bool",
           template=listed("IF(ISNUMBER({own_per_month}),{own_per_month}=MIN({own_per_month:range}),FALSE)")),
    Column("price", "On-demand price per GPU-hour", kind="money",
           template=listed(f"{catalog('price_per_hour')}*fx_rate")),
    Column("training_peak_tflops", "Training peak (TFLOPS)", kind="count",
           template=listed(f'IF(AND(training_precision="fp8",{number("fp8_tflops")}>0),{catalog("fp8_tflops")},'
                           f'{catalog("peak_tflops")})')),
    Column("training_gpu_hours", "Training GPU-hours", kind="count",
           template=listed(model.gpu_hours("hours_training_flops", "{training_peak_tflops}", "hours_mfu_used"))),
    Column("peak_flops", "Serving peak P_e (TFLOP/s)", kind="tera",
           template=listed(model.effective_peak_flops(catalog("peak_tflops"), number("fp8_tflops"),
                                                       "serving_fp8_gemm", number("fp4_tflops"),
                                                       "serving_fp4_gemm"))),
    Column("bandwidth", "Bandwidth BW_e (TB/s)", kind="tera",
           template=listed(model.effective_bandwidth(catalog("hbm_tbps"), in_force("serving_bandwidth_efficiency")))),
    Column("nvlink_gbps", "NVLink (GB/s)", kind="count", template=listed(number("nvlink_gbps"))),
    Column("batch", "At B", kind="count", template=served("MIN(serving_users,{max_users})")),
    Column("batch_is", "B is", kind="text", template=served('IF(serving_users<={max_users},"users","B_max")')),
    Column("tokens_per_s_per_gpu", "Tokens/s per GPU at B", kind="tenths",
           template=served(model.tokens_per_second_per_gpu(ROW_GPU, "{batch}", model.pieces_at(AT_B)))),
    Column("cost_per_million_at_max", "Cost per M tokens at B_max", kind="money",
           template=served(model.cost_per_million_tokens(
               "{price}", model.tokens_per_second_per_gpu(ROW_GPU, "{max_users}", model.pieces_at(AT_MAX))))),
    Column("serving_gpu_hours_per_day", "GPU-hours a day at launch", kind="count",
           template=by_the_month(model.serving_gpu_hours("crossover_served_tokens_per_day", "{tokens_per_s_per_gpu}"))),
    Column("fleet_utilisation", "Its utilisation", kind="percent",
           template=by_the_month(f"IF({{owned_fleet}}>0,{{serving_gpu_hours_per_day}}/(hours_per_day*{{owned_fleet}}),"
                                 f"{NO_SERVING})")),
    Column("own_cost_per_gpu_hour", "Owned cost per GPU-hour", kind="money",
           template=by_the_month(owned(OWN_COST))),
]
# What the serving figures read: each pass's memory time and the pass on the row's GPU, at B and at B_max
# (grouped out of sight, never printed)
PIECE_COLUMNS = [Column(key, f"{words} at {where} (ms)", kind="tenths", template=served(expression))
                 for prefix, batch, where in ((AT_B, "{batch}", "B"), (AT_MAX, "{max_users}", "B_max"))
                 for key, words, expression in model.piece_specs(ROW_GPU, batch, prefix)]
PRINTED = 12
WIDTHS = {"gpu": 12, "batch_is": 8, "nvlink_gbps": 9, "batch": 7, "cheapest_rent": 9, "cheapest_own": 9}


def write(book: kit.Book, results) -> kit.Sheet:
    merged = results.scenario.merged_catalog
    rows = {row["gpu"]: row for row in results.gpus.rows}
    order = [key for key, _ in laid_out(book, GPUS, merged.gpus)]
    passes = dict(zip((row["gpu"] for row in results.gpus.rows), results.gpus.passes))
    blank = dict.fromkeys((c.key for c in COLUMNS + PIECE_COLUMNS), "")
    values = [rows[key] | _pieces(passes[key]) if key in rows else blank for key in order]
    sheet = book.sheet(SHEET, [(c.header, WIDTHS.get(c.key, 11)) for c in COLUMNS], label_width=8, unit_width=2,
                       note_width=2)
    sheet.scalar_col = 2  # the cheapest GPUs' names under the training cost, their labels across the cells before
    sheet.title("GPUs side by side", "docs/method.md §13.7: each Catalog GPU with a price at this scenario's model, "
                "training run, serving set-up and launch traffic; every value read from its Catalog row.")
    sheet.section("Training at the scenario's MFU, serving on each GPU's roofline, rent against own per average "
                  "month (30.4375 days) at launch traffic")
    _, first, _ = sheet.records(list(range(1, len(order) + 1)), COLUMNS, values, label_header="Catalog row",
                                helpers=PIECE_COLUMNS, alike=True)  # each row reads its Catalog row alike
    sheet.printed_cols = PRINTED  # the key columns, a page wide; the chart and the cheapest GPUs under them
    _chart(book, sheet)
    sheet.rows(CHEAPEST, results.gpus.headline)
    if results.cost.pools is not None:  # the Fleet's cheapest is mixed (§15.1): only then, the sheet follows the data
        _mixed_fleet(sheet, results.cost.pools, order)
    empty = [first + i for i, key in enumerate(order) if key not in rows]  # a Catalog row without a GPU or price
    for r in empty:  # grouped out of sight, not printed; a GPU typed into its Catalog row fills it (+ shows it)
        sheet.ws.set_row(r, None, None, {"level": 1, "hidden": True})
        sheet.heights[r] = 0
    return sheet


def _pieces(passes: dict) -> dict:
    """A row's helper columns: the engine's passes at B and at B_max in ms, "does not fit" where none fits."""
    if passes is None:
        return {column.key: DOES_NOT_FIT for column in PIECE_COLUMNS}
    return model.pieces_in_ms(passes["b"], AT_B) | model.pieces_in_ms(passes["max"], AT_MAX)


def _chart(book: kit.Book, sheet: kit.Sheet) -> None:
    """Renting against owning each GPU's fleet for an average month at launch traffic."""
    sheet.skip()
    sheet.column_chart([(name, sheet.series("gpu"), sheet.series(key), colour) for key, name, colour in (
        ("rent_per_month", "Rent on demand per average month", "#4472C4"),
        ("own_per_month", "Own the peak-hour fleet per average month", "#ED7D31"))],
        title="Rent against own, per average month at launch traffic",
        y_axis={"num_format": book.number_format("money0")}, height=300, width=720)


NONE = f'"{NONE_PRICED}"'
CHEAPEST = [
    Row("gpus_cheapest_rent", "Cheapest to rent", kind="text", unit="", name="gpus_cheapest_rent",
        formula=f"=IFERROR(INDEX({{gpu:range}},MATCH(TRUE,{{cheapest_rent:range}},0)),{NONE})"),
    Row("gpus_cheapest_own", "Cheapest to own", kind="text", unit="", name="gpus_cheapest_own",
        formula=f"=IFERROR(INDEX({{gpu:range}},MATCH(TRUE,{{cheapest_own:range}},0)),{NONE})"),
]
KEY_RESULTS: list[KeyResult] = []
CHECKS: list = []


# The Fleet's cheapest with two GPU types (§15.1): each pool's GPU, GPUs at the peak, price, share of the fleet's cost
# per hour, kW, c_own and u*; under them the fleet's kW and tokens per MW. Written only when the chosen fleet mixes.
POOLS = ("prefill", "decode")
MIXED_ROW = "MATCH({mixed_gpu},catalog_gpu_ids,0)"


def _pool(template: str):
    """A column whose formula names its pool's Fleet cell (fleet_cheapest_prefill_… or …_decode_…)."""
    return lambda i: template.format(pool=POOLS[i])


MIXED_OWNED = (f"IF(AND(ISNUMBER(INDEX(catalog_gpu_server_price,{{mixed_catalog_row}})),ISNUMBER({{mixed_server_kw}})),"
               f"{OWN_COST.replace('{label}', '{mixed_catalog_row}')},{NO_SERVER})")
MIXED_COLUMNS = [
    Column("mixed_gpu", "GPU", kind="text", template=_pool("=fleet_cheapest_{pool}_gpu")),
    Column("mixed_gpus", "GPUs at the peak (with spares)", kind="count", template=_pool("=fleet_cheapest_{pool}_gpus")),
    Column("mixed_price", "On-demand price per GPU-hour", kind="money",
           template="=IF({mixed_gpu}=gpu,price_per_gpu_hour_converted,INDEX(catalog_gpu_price_per_hour,"
                    "{mixed_catalog_row})*fx_rate)"),
    Column("mixed_share", "Share of the fleet's cost per hour", kind="percent",
           template=f"=IF(SUMPRODUCT({{mixed_gpus:range}},{{mixed_price:range}})>0,{{mixed_gpus}}*{{mixed_price}}/"
                    f"SUMPRODUCT({{mixed_gpus:range}},{{mixed_price:range}}),{NO_SERVING})"),
    Column("mixed_own_cost_per_gpu_hour", "Owned cost per GPU-hour c_own", kind="money", template="=" + MIXED_OWNED),
    Column("mixed_break_even_utilisation", "Break-even utilisation u*", kind="percent",
           template=f"=IF(ISTEXT({{mixed_own_cost_per_gpu_hour}}),{{mixed_own_cost_per_gpu_hour}},IF({{mixed_price}}=0,"
                    f"{PRICE_ZERO},IF({{mixed_own_cost_per_gpu_hour}}>{{mixed_price}},{NEVER},"
                    "{mixed_own_cost_per_gpu_hour}/{mixed_price})))"),  # compared, not divided
    Column("mixed_server_kw", "Server kW per GPU", kind="decimal",
           template=f"=IF(ISNUMBER(INDEX(catalog_gpu_server_kw,{{mixed_catalog_row}})),INDEX(catalog_gpu_server_kw,"
                    f"{{mixed_catalog_row}}),{NO_SERVER})"),
]
MIXED_HELPERS = [Column("mixed_catalog_row", "Catalog row", kind="count", template="=" + MIXED_ROW)]
MIXED_TOTALS = [
    Row("mixed_fleet_kw", "The fleet's kW at the peak", kind="decimal", unit="kW",
        formula=f"=IF(COUNT({{mixed_server_kw:range}})<2,{NO_SERVER},SUMPRODUCT({{mixed_gpus:range}},"
                "{mixed_server_kw:range}))", note="G_p · kW_p + G_d · kW_d, spares included"),
    Row("mixed_tokens_per_s_per_mw", "Output tokens per second per MW", kind="count", unit="tokens/s per MW",
        formula=f"=IF(ISTEXT({{mixed_fleet_kw}}),{{mixed_fleet_kw}},IF({{mixed_fleet_kw}}>0,"
                "fleet_cheapest_tokens_per_s_per_gpu*fleet_cheapest_gpus*1000/({mixed_fleet_kw}*ownership_pue),"
                f"{NO_SERVER}))", note="λ · o · 1000 / (the fleet's kW · PUE) at the peak",
        name="mixed_tokens_per_s_per_mw"),
]


def _mixed_fleet(sheet: kit.Sheet, pools, order: list) -> None:
    """The "Mixed fleet" block: two rows (prefill and decode) and the fleet's kW and tokens per MW under them;
    `order` the Catalog block's GPU ids as laid out (MATCH's positions)."""
    sheet.skip()
    sheet.section("Mixed fleet (docs/method.md §11, mixed GPU pools): the Fleet's cheapest prefills on one GPU "
                  "type and decodes on another, each pool at its own Catalog row's price and owned cost")
    rows = pools.block
    for row in rows:
        row["mixed_catalog_row"] = order.index(row["mixed_gpu"]) + 1
    sheet.records(["Prefill", "Decode"], MIXED_COLUMNS, rows, label_header="Pool", helpers=MIXED_HELPERS)
    sheet.rows(MIXED_TOTALS, {"mixed_fleet_kw": pools.fleet_kw,
                              "mixed_tokens_per_s_per_mw": pools.tokens_per_s_per_mw})
