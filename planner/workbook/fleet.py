"""The Fleet sheet (docs/method.md §11): every configuration's shown row, the cheapest of each mode, the Pareto
front and the day, as live formulas. The search stays in the engine; each row's integers (B*, B, n or x and y, and
each hour's replicas) are a locked snapshot of what it found (grey, not input cells), and every other column a
formula of them, of Inputs, of the configuration's Catalog rows and of the method constants: the roofline through
the model core's Excel twins (planner/workbook/model.py) over the row's own cells, then the queue (Erlang C in its
POISSON form), the fleet's figures and the checks that say whether the engine's integers still hold. Editing a price
re-ranks the cheapest live; editing the rate or an efficiency turns a check FALSE until the planner runs again."""

from __future__ import annotations

from dataclasses import dataclass, replace

from planner.engine.fleet import AGGREGATED, DAY_HEADLINE, HEADLINE, MIXING_OFF, NO_FLEET, NO_MIXED, mixed_saving
from planner.engine.shared import FLEET_STALE
from planner.workbook import kit, model
from planner.workbook.cost import FLEET_CHOSEN, FLEET_HOURLY
from planner.workbook.serving import draft_kv_bytes_per_token
from planner.workbook.kit import Check, KeyResult, Row

SHEET = "Fleet"
AGG = '{mode}="aggregated"'
RATE = "fleet_served_rate"  # λ, requests per second
BUDGET = "fleet_miss_budget"  # 1 − p
NINE = "gpu_rounding_decimals"  # comparisons and whole-number rounding at 9 decimals
X, Y = "goodput_slo_ttft_ms", "goodput_slo_tpot_ms"
O = "serving_output_tokens"

# A row's replica (aggregated, or the decode pool's) and the replica that prefills (t, or t_p), each on the row's GPU
# and precisions, with the efficiencies on its GPU: the model core's twins read these cells, the model's own, a
# draft's and the prefix cache's from the Serving sheet
ROW = replace(model.SERVING, tensor_parallel="{tensor_parallel}", weight_bytes="{weight_bytes}",
              kv_bytes_per_token="{kv_bytes_per_token}", peak_flops="{peak_flops}", bandwidth="{bandwidth}",
              nvlink_gbps="{nvlink_gbps}", peak_tflops="{peak_tflops}", hbm_tbps="{hbm_tbps}",
              price="{price_per_gpu_hour}", compute_efficiency="{compute_efficiency}", overhead_ms="{overhead_ms}",
              draft=replace(model.DRAFT, kv_per_token="{draft_kv_bytes_per_token}"))
# The replica that prefills reads its own GPU's terms (§15.1: each pool on its own Catalog row; one type: the row's)
FIRST = replace(ROW, tensor_parallel="{first_parallel}", kv_bytes_per_token="{kv_first}",
                peak_flops="{prefill_peak_flops}", bandwidth="{prefill_bandwidth}",
                nvlink_gbps="{prefill_nvlink_gbps}", price="{prefill_price_per_gpu_hour}",
                compute_efficiency="{prefill_compute_efficiency}", overhead_ms="{prefill_overhead_ms}",
                draft=replace(model.DRAFT, kv_per_token="{draft_kv_first}"))
# The efficiencies on a row's GPU (§12.1): fitted on the benchmark's GPU, the inputs on any other
CALIBRATED = {key: f"fleet_calibrated_{key}" for key in ("compute_efficiency", "bandwidth_efficiency", "overhead_ms")}


def _on_its_gpu(key: str, gpu: str = "{decode_gpu}") -> str:
    return f"=IF({gpu}=serving_calibration_gpu,{CALIBRATED[key]},{_given(key)})"


def _given(key: str) -> str:
    """The input of an efficiency the fit may replace: η_c's and η_m's the key, else the engine row's prior (§14.1)."""
    return f"serving_{key}" if key == "overhead_ms" else f"serving_{key}_in"



# The queue, spelled for any cells ---------------------------------------------------------------------------------
def erlang_c(servers: str, load: str) -> str:
    """C(c, a) = IF(a ≥ c, 1, POISSON(c, a) / (POISSON(c, a) + (1 − a/c)·POISSON(c − 1, a, TRUE)))."""
    return (f"IF({load}>={servers},1,POISSON({servers},{load},FALSE)/(POISSON({servers},{load},FALSE)"
            f"+(1-({load})/({servers}))*POISSON({servers}-1,{load},TRUE)))")


def meets(miss: str) -> str:
    """ROUND(miss, 9) ≤ ROUND(1 − p, 9)."""
    return f"ROUND({miss},{NINE})<=ROUND({BUDGET},{NINE})"


def pool_gpus(replicas: str, tensor_parallel: str) -> str:
    """CEIL9(replicas·(1 + r_f))·t: a pool's GPUs, its spares in whole replicas."""
    return f"CEILING(ROUND(({replicas})*(1+fleet_spare),{NINE}),1)*{tensor_parallel}"


@dataclass(frozen=True)
class Served:
    """Where the terms of a sized configuration are, for the miss at other replicas or another rate."""

    batch: str
    cycle_s: str
    tpot_ms: str
    ttft_ms: str
    transfer_ms: str = "0"


DISPATCH = "serving_dispatch_ms_per_layer_used*model_layers"  # δ·L in ms: what the first token pays (§14.6)


def aggregated_miss(replicas: str, rate: str, c: Served, erlang: str | None = None) -> str:
    """P(TTFT > X) of n replicas at λ: 1 below one replica, when unstable (a ≥ c or ρ_pre ≥ 1) or when the first
    token's wait leaves no slack; else C·EXP(−(n·B/cycle − λ)·w). Nested IFs: no error reaches a comparison.
    `erlang`: where C(n·B, λ·cycle) is, if a cell holds it."""
    n, d = f"({replicas})", f"{c.ttft_ms}/1000"
    load, servers, busy = f"{rate}*{c.cycle_s}", f"{n}*{c.batch}", f"{rate}*{d}/{n}"
    slack = f"({X}-({DISPATCH}+{c.tpot_ms}/2+{busy}*{c.ttft_ms}/(1-{busy})+{c.ttft_ms}))/1000"
    return (f"IF({n}<1,1,IF(OR({load}>={servers},{busy}>=1),1,IF({slack}<0,1,{erlang or erlang_c(servers, load)}"
            f"*EXP(-({n}*{c.batch}/{c.cycle_s}-{rate})*{slack}))))")


def disaggregated_miss(prefill: str, decode: str, rate: str, c: Served, prefill_erlang: str | None = None,
                       decode_erlang: str | None = None) -> str:
    """tail_p + C_d of x prefill and y decode replicas at λ (Boole's bound); 1 below one replica in a pool.
    `prefill_erlang`, `decode_erlang`: where C(x, λ·D) and C(y·B, λ·o·TPOT) are, if cells hold them."""
    x, d = f"({prefill})", f"({c.ttft_ms}/1000)"
    load, slack = f"{rate}*{d}", f"({X}-{c.ttft_ms}-{c.transfer_ms})/1000"
    tail = (f"IF({load}>={x},1,IF({slack}<0,1,{prefill_erlang or erlang_c(x, load)}"
            f"*EXP(-({x}/{d}-{rate})*{slack})))")
    servers, decode_load = f"({decode})*{c.batch}", f"{rate}*{O}*{c.tpot_ms}/1000"
    return f"IF(OR({x}<1,({decode})<1),1,{tail}+{decode_erlang or erlang_c(servers, decode_load)})"


# The Candidates table: one row per configuration ----------------------------------------------------------------------
@dataclass(frozen=True)
class FleetColumn:
    """A column of a table of configurations: text (the engine's words), an integer the search chose (role "input":
    written as a locked snapshot), or a formula over the row's cells; `guarded`: "n/a" while the row's integers are
    not valid."""

    key: str
    header: str
    kind: str
    template: str = ""  # a formula; "" for text and input cells
    role: str = "formula"  # "text", "input" or "formula"
    guarded: bool = True
    every_row: bool = False  # a formula on rows with a reason too (of the row's words only)


def _lookup(block: str, column: str, choice: str, *, blank_as_zero: bool = False) -> str:
    found = f"INDEX(catalog_{block}_{column},MATCH({choice},catalog_{block}_ids,0))"
    return f"=IF(ISNUMBER({found}),{found},0)" if blank_as_zero else "=" + found


def _whole(key: str) -> str:
    return f"IF(ISNUMBER({{{key}}}),AND({{{key}}}=INT({{{key}}}),{{{key}}}>=1),FALSE)"


VALID = (f"=IF({AGG},AND({_whole('tensor_parallel')},{_whole('b_star')},{_whole('batch')},{_whole('replicas')}),"
         f"AND({_whole('prefill_tensor_parallel')},{_whole('tensor_parallel')},{_whole('b_star')},{_whole('batch')},"
         f"{_whole('prefill_replicas')},{_whole('decode_replicas')}))")
SERVED = Served(batch="{batch}", cycle_s="{cycle_s}", tpot_ms="{tpot_ms}", ttft_ms="{ttft_ms}",
                transfer_ms="{kv_transfer_ms}")
# What a row's times read: each pass's memory time and the pass (ms), of the replica that prefills at one prompt,
# and of the row's replica at B and at B* + 1 (blank at B_max); grouped out of sight
PASS_FIRST, PASS_B, PASS_NEXT = "pass_first_", "pass_b_", "pass_next_"
AT_FIRST, AT_B, AT_NEXT = (model.pieces_at(prefix) for prefix in (PASS_FIRST, PASS_B, PASS_NEXT))
PASS_COLUMNS = [
    *(FleetColumn(key, f"{words}, one prompt (ms)", "tenths", "=" + expression)
      for key, words, expression in model.piece_specs(FIRST, None, PASS_FIRST)),
    *(FleetColumn(key, f"{words} at B (ms)", "tenths", "=" + expression)
      for key, words, expression in model.piece_specs(ROW, "{batch}", PASS_B)),
    *(FleetColumn(key, f"{words} at B* + 1 (ms)", "tenths", f'=IF({{b_star}}>={{b_max}},"",{expression})')
      for key, words, expression in model.piece_specs(ROW, "{b_star}+1", PASS_NEXT))]
LATENCY_NEXT = (f"IF({AGG},{model.cycle_s(ROW, '{b_star}+1', AT_NEXT)}/{O},"
                f"{model.tpot_s(ROW, '{b_star}+1', AT_NEXT)})*1000")
C_FEWER = "{erlang_c_one_fewer}"  # C with one replica fewer (the miss at n − 1 or x − 1 reads it)
MISS_FEWER_DISAGGREGATED = disaggregated_miss("{prefill_replicas}-1", "{decode_replicas}", RATE, SERVED,
                                              prefill_erlang=C_FEWER, decode_erlang="{erlang_c}")  # C_d at its y
LEFT = f"{BUDGET}-ROUND({{erlang_c}},{NINE})"  # 1 − p − C_d, C_d at 9 decimals (engine.fleet, the percentile)
PERCENTILE = (f"=IF({{ttft_met}},IF({AGG},{{first_token_ms}}+IF({{erlang_c}}<={BUDGET},0,LN({{erlang_c}}/{BUDGET})"
              f"/{{drain_rate}}*1000),{{ttft_ms}}+{{kv_transfer_ms}}+IF({{prefill_erlang_c}}<={LEFT},0,"
              f"LN({{prefill_erlang_c}}/({LEFT}))/{{prefill_drain_rate}}*1000)),\"\")")

IDENTITY = [FleetColumn("mode", "Mode", "text", role="text"), FleetColumn("gpu", "GPU", "text", role="text"),
            FleetColumn("prefill_gpu", "Prefill GPU", "text", role="text"),
            FleetColumn("decode_gpu", "Decode GPU (aggregated: the GPU)", "text", role="text"),
            FleetColumn("weight_precision", "Weights", "text", role="text"),
            FleetColumn("kv_precision", "KV cache", "text", role="text")]
INTEGERS = [FleetColumn(key, header, "count", role="input") for key, header in (
    ("prefill_tensor_parallel", "Prefill GPUs t_p"), ("tensor_parallel", "GPUs t (decode t_d)"),
    ("b_star", "Largest batch B*"), ("batch", "Batch B"), ("replicas", "Replicas n"),
    ("prefill_replicas", "Prefill replicas x"), ("decode_replicas", "Decode replicas y"))]
def _prefill(column: str, *, blank_as_zero: bool = False) -> str:
    """The prefill GPU's Catalog figure, inside a formula."""
    return _lookup("gpu", column, "{prefill_gpu}", blank_as_zero=blank_as_zero)[1:]


PREFILL_LOOKUPS = [  # the GPU that prefills, on its own Catalog row (§15.1); on one GPU type the row's GPU again
    FleetColumn("prefill_price_per_gpu_hour", "Prefill GPU's price per GPU-hour", "money",
                "=IF({prefill_gpu}=gpu,price_per_gpu_hour_converted," + _prefill("price_per_hour") + "*fx_rate)",
                guarded=False),
    FleetColumn("prefill_memory_gb", "Prefill GPU's memory (GB)", "count", "=" + _prefill("memory_gb"),
                guarded=False),
    FleetColumn("prefill_nvlink_gbps", "Prefill GPU's NVLink GB/s", "count",
                "=" + _prefill("nvlink_gbps", blank_as_zero=True), guarded=False),
    FleetColumn("prefill_network_gbps", "Prefill GPU's network GB/s", "count",
                "=" + _prefill("network_gbps", blank_as_zero=True), guarded=False),
    FleetColumn("prefill_compute_efficiency", "Prefill GPU's η_c", "percent",
                _on_its_gpu("compute_efficiency", "{prefill_gpu}"), guarded=False),
    FleetColumn("prefill_overhead_ms", "Prefill GPU's τ (ms)", "decimal", _on_its_gpu("overhead_ms", "{prefill_gpu}"),
                guarded=False),
    FleetColumn("prefill_peak_flops", "Prefill GPU's P_e (TFLOP/s)", "tera",
                "=" + model.effective_peak_flops(_prefill("peak_tflops"), _prefill("fp8_tflops", blank_as_zero=True),
                                                 "{fp8_gemm}", _prefill("fp4_tflops", blank_as_zero=True),
                                                 "{fp4_gemm}"), guarded=False),
    FleetColumn("prefill_bandwidth", "Prefill GPU's BW_e (TB/s)", "tera",
                "=" + model.effective_bandwidth(_prefill("hbm_tbps"),
                                                _on_its_gpu("bandwidth_efficiency", "{prefill_gpu}")[1:]),
                guarded=False),
]
LOOKUPS = [
    FleetColumn("valid", "Integers valid", "bool", VALID, guarded=False),
    FleetColumn("price_per_gpu_hour", "Price per GPU-hour", "money",  # another GPU's USD price × fx, where it enters
                "=IF({decode_gpu}=gpu,price_per_gpu_hour_converted,"
                + _lookup("gpu", "price_per_hour", "{decode_gpu}")[1:] + "*fx_rate)", guarded=False),
    FleetColumn("memory_gb", "GPU memory (GB)", "count", _lookup("gpu", "memory_gb", "{decode_gpu}"), guarded=False),
    FleetColumn("peak_tflops", "BF16 TFLOPS", "count", _lookup("gpu", "peak_tflops", "{decode_gpu}"), guarded=False),
    FleetColumn("fp8_tflops", "FP8 TFLOPS (0: none)", "count",
                _lookup("gpu", "fp8_tflops", "{decode_gpu}", blank_as_zero=True), guarded=False),
    FleetColumn("fp4_tflops", "FP4 TFLOPS (0: none)", "count",
                _lookup("gpu", "fp4_tflops", "{decode_gpu}", blank_as_zero=True), guarded=False),
    FleetColumn("hbm_tbps", "HBM TB/s", "decimal", _lookup("gpu", "hbm_tbps", "{decode_gpu}"), guarded=False),
    FleetColumn("nvlink_gbps", "NVLink GB/s (0: none)", "count",
                _lookup("gpu", "nvlink_gbps", "{decode_gpu}", blank_as_zero=True), guarded=False),
    FleetColumn("network_gbps", "Network GB/s (0: none)", "count",
                _lookup("gpu", "network_gbps", "{decode_gpu}", blank_as_zero=True), guarded=False),
    FleetColumn("gpus_per_node", "GPUs per node", "count", _lookup("gpu", "gpus_per_node", "{decode_gpu}"),
                guarded=False),
    FleetColumn("weight_bits", "Bits per weight", "decimal", _lookup("precision", "weight_bits", "{weight_precision}"),
                guarded=False),
    FleetColumn("fp8_gemm", "FP8 GEMMs", "bool", _lookup("precision", "fp8_gemm", "{weight_precision}"),
                guarded=False),
    FleetColumn("fp4_gemm", "FP4 GEMMs", "bool", _lookup("precision", "fp4_gemm", "{weight_precision}"),
                guarded=False),
    FleetColumn("kv_value_bytes", "Bytes per KV value", "decimal",
                _lookup("precision", "kv_bytes", "{kv_precision}"), guarded=False),
    FleetColumn("weight_bytes", "Bytes per weight b_w", "decimal", "={weight_bits}/8", guarded=False),
    FleetColumn("compute_efficiency", "Compute efficiency η_c", "percent", _on_its_gpu("compute_efficiency"),
                guarded=False),
    FleetColumn("bandwidth_efficiency", "Bandwidth efficiency η_m", "percent", _on_its_gpu("bandwidth_efficiency"),
                guarded=False),
    FleetColumn("overhead_ms", "Overhead per pass τ (ms)", "decimal", _on_its_gpu("overhead_ms"), guarded=False),
    FleetColumn("peak_flops", "Effective peak P_e (TFLOP/s)", "tera",
                "=" + model.effective_peak_flops("{peak_tflops}", "{fp8_tflops}", "{fp8_gemm}", "{fp4_tflops}",
                                                 "{fp4_gemm}"), guarded=False),
    FleetColumn("bandwidth", "Effective bandwidth BW_e (TB/s)", "tera",
                "=" + model.effective_bandwidth("{hbm_tbps}", "{bandwidth_efficiency}"), guarded=False),
    *PREFILL_LOOKUPS,
]
POOL = "%s*(1-serving_memory_reserve)-(model_params+serving_draft_params)*{weight_bytes}/%s/1e9"
REPLICA = [
    FleetColumn("kv_bytes_per_token", "KV bytes per token per GPU KV_g", "count",
                "=" + model.kv_bytes_per_token(ROW.model, "{kv_value_bytes}", "{tensor_parallel}")),
    FleetColumn("draft_kv_bytes_per_token", "Draft KV bytes per token per GPU KV_d", "count",
                draft_kv_bytes_per_token("{kv_bytes_per_token}", "{kv_value_bytes}", "{tensor_parallel}")),
    FleetColumn("pool_gb", "KV pool per GPU (GB)", "gb", "=" + POOL % ("{memory_gb}", "{tensor_parallel}")),
    FleetColumn("b_max", "B_max", "count", f"=IF({{pool_gb}}<=0,0,INT(ROUND({{pool_gb}}*1e9/(serving_sequence_length"
                f"*({{kv_bytes_per_token}}+{{draft_kv_bytes_per_token}})),{NINE})))"),
    FleetColumn("first_parallel", "GPUs of the replica that prefills", "count",
                f"=IF({AGG},{{tensor_parallel}},{{prefill_tensor_parallel}})"),
    FleetColumn("kv_first", "Its KV bytes per token per GPU", "count",
                "=" + model.kv_bytes_per_token(ROW.model, "{kv_value_bytes}", "{first_parallel}")),
    FleetColumn("draft_kv_first", "Its draft's KV bytes per token per GPU", "count",
                draft_kv_bytes_per_token("{kv_first}", "{kv_value_bytes}", "{first_parallel}")),
    FleetColumn("prefill_fits", "One prompt's KV fits it", "bool",
                f"=({POOL % ('{prefill_memory_gb}', '{first_parallel}')})*1e9>=serving_prompt_tokens*({{kv_first}}"
                "+{draft_kv_first})"),
    FleetColumn("kv_one", "KV bytes per token on one GPU KV_1", "count",
                "=" + model.kv_bytes_per_token(ROW.model, "{kv_value_bytes}")),
    *PASS_COLUMNS,
    FleetColumn("ttft_ms", "D: one prompt, idle (ms)", "tenths", f"={model.ttft_s(FIRST, AT_FIRST)}*1000"),
    FleetColumn("tpot_ms", "TPOT(B) (ms)", "tenths", f"={model.tpot_s(ROW, '{batch}', AT_B)}*1000"),
    FleetColumn("prefill_s", "T_pre(B) (s)", "decimal", "=" + model.prefill_s(ROW, "{batch}", AT_B)),
    FleetColumn("cycle_s", "cycle(B) (s)", "decimal", "=" + model.cycle_s(ROW, "{batch}", AT_B)),
    FleetColumn("itl_ms", "ITL(B) = cycle/o (ms)", "tenths", f"={{cycle_s}}/{O}*1000"),
    FleetColumn("latency_next_ms", "ITL or TPOT at B* + 1 (ms)", "tenths",
                f"=IF({{b_star}}>={{b_max}},\"\",{LATENCY_NEXT})"),
    FleetColumn("service_rate", "μ_r = B/cycle (per s)", "decimal", "={batch}/{cycle_s}"),
]
def aggregated_only(expression: str) -> str:
    """A cell only an aggregated row has: blank on a disaggregated one."""
    return f'=IF({AGG},{expression},"")'


def disaggregated_only(expression: str) -> str:
    """A cell only a disaggregated row has: blank on an aggregated one."""
    return f'=IF({AGG},"",{expression})'


QUEUE = [
    FleetColumn("kv_transfer_gbps", "KV link BW_kv (GB/s)", "tenths", disaggregated_only(
        "IF(IF(ISNUMBER(fleet_kv_transfer_gbps),fleet_kv_transfer_gbps>0,FALSE),fleet_kv_transfer_gbps,"
        "IF({prefill_gpu}<>{decode_gpu},MIN({prefill_tensor_parallel}*{prefill_network_gbps},"  # §15.1
        "{tensor_parallel}*{network_gbps})*fleet_network_efficiency,MIN("
        "{prefill_tensor_parallel},{tensor_parallel})*IF({prefill_tensor_parallel}+{tensor_parallel}<="
        "{gpus_per_node},{nvlink_gbps}*fleet_nvlink_efficiency,{network_gbps}*fleet_network_efficiency)))")),
    FleetColumn("kv_transfer_ms", "T_kv (ms)", "decimal",
                disaggregated_only("serving_prompt_tokens*{kv_one}/({kv_transfer_gbps}*1e9)*1000")),
    FleetColumn("load", "Offered load a (Erlangs)", "decimal",
                f"=IF({AGG},{RATE}*{{cycle_s}},{RATE}*{O}*{{tpot_ms}}/1000)"),
    FleetColumn("servers", "Slots c = n·B or y·B", "count", f"=IF({AGG},{{replicas}},{{decode_replicas}})*{{batch}}"),
    FleetColumn("utilisation", "ρ = a/c", "decimal", "={load}/{servers}"),
    FleetColumn("erlang_c", "C(c, a)", "decimal", "=" + erlang_c("{servers}", "{load}")),
    FleetColumn("prefill_utilisation", "ρ_pre = λ·D/n", "decimal",
                aggregated_only(f"{RATE}*{{ttft_ms}}/1000/{{replicas}}")),
    FleetColumn("prefill_wait_ms", "W_pre (ms)", "decimal", aggregated_only(
        'IF({prefill_utilisation}<1,{prefill_utilisation}*{ttft_ms}/(1-{prefill_utilisation}),"")')),
    FleetColumn("first_token_ms", "T_first = δ·L + TPOT/2 + W_pre + D (ms)", "tenths", aggregated_only(
        f'IF({{prefill_utilisation}}<1,{DISPATCH}+{{tpot_ms}}/2+{{prefill_wait_ms}}+{{ttft_ms}},"")')),
    FleetColumn("prefill_load", "Prefill load a_p = λ·D", "decimal", disaggregated_only(f"{RATE}*{{ttft_ms}}/1000")),
    FleetColumn("prefill_erlang_c", "C_p(x, a_p)", "decimal",
                disaggregated_only(erlang_c("{prefill_replicas}", "{prefill_load}"))),
    FleetColumn("prefill_drain_rate", "x/D − λ (per s)", "decimal",
                disaggregated_only(f"{{prefill_replicas}}/({{ttft_ms}}/1000)-{RATE}")),
    FleetColumn("slack_ms", "Slack w (ms)", "tenths",
                f"=IF({AGG},IF({{first_token_ms}}=\"\",\"\",{X}-{{first_token_ms}}),"
                f"{X}-{{ttft_ms}}-{{kv_transfer_ms}})"),
    FleetColumn("prefill_tail", "tail_p", "decimal", disaggregated_only(
        "IF({prefill_load}>={prefill_replicas},1,IF({slack_ms}<0,1,{prefill_erlang_c}"
        "*EXP(-{prefill_drain_rate}*{slack_ms}/1000)))")),
    FleetColumn("drain_rate", "n·μ_r − λ (per s)", "decimal",
                aggregated_only(f"{{replicas}}*{{service_rate}}-{RATE}")),
    FleetColumn("miss", "Miss P(TTFT > X)", "decimal",
                f"=IF({AGG},IF(OR({{load}}>={{servers}},{{prefill_utilisation}}>=1),1,IF({{slack_ms}}<0,1,{{erlang_c}}"
                "*EXP(-{drain_rate}*{slack_ms}/1000))),{prefill_tail}+{erlang_c})"),
    FleetColumn("attainment", "Attainment A = 1 − miss", "decimal", "=1-{miss}"),
    FleetColumn("ttft_met", "TTFT met", "bool", "=" + meets("{miss}")),
    FleetColumn("ttft_percentile_ms", "TTFT at the target's percentile (ms)", "tenths", PERCENTILE),
    FleetColumn("erlang_c_one_fewer", "C at n − 1 (or x − 1)", "decimal",
                f"=IF({AGG},{erlang_c('({replicas}-1)*{batch}', f'{RATE}*{{cycle_s}}')},"
                f"{erlang_c('({prefill_replicas}-1)', f'{RATE}*({{ttft_ms}}/1000)')})"),
    FleetColumn("miss_one_fewer", "Miss at n − 1 (or x − 1)", "decimal",
                f"=IF({AGG},{aggregated_miss('{replicas}-1', RATE, SERVED, C_FEWER)},{MISS_FEWER_DISAGGREGATED})"),
    FleetColumn("miss_one_fewer_decode", "Miss at y − 1", "decimal", disaggregated_only(
        disaggregated_miss("{prefill_replicas}", "{decode_replicas}-1", RATE, SERVED))),
]
FIGURES = [
    FleetColumn("gpus", "GPUs with spares", "count",
                f"=IF({AGG},{pool_gpus('{replicas}', '{tensor_parallel}')},"
                f"{pool_gpus('{prefill_replicas}', '{prefill_tensor_parallel}')}"
                f"+{pool_gpus('{decode_replicas}', '{tensor_parallel}')})"),
    FleetColumn("cost_per_hour", "Cost per hour", "money",  # mixed pools: G_p·p_p + G_d·p_d (§15.1)
                f"=IF({{prefill_gpu}}={{decode_gpu}},{{gpus}}*{{price_per_gpu_hour}},"
                f"{pool_gpus('{prefill_replicas}', '{prefill_tensor_parallel}')}*{{prefill_price_per_gpu_hour}}"
                f"+{pool_gpus('{decode_replicas}', '{tensor_parallel}')}*{{price_per_gpu_hour}})"),
    FleetColumn("acceptable_per_hour", "Acceptable requests per hour", "count",
                f"=seconds_per_hour*{RATE}*{{attainment}}*fleet_quality"),
    FleetColumn("cost_per_acceptable_request", "Cost per acceptable request", "money5",
                "=IF({acceptable_per_hour}>0,{cost_per_hour}/{acceptable_per_hour},\"\")"),
    FleetColumn("cost_per_million_tokens", "Cost per million output tokens", "money",
                "=" + model.cost_per_million_tokens("{cost_per_hour}", f"{RATE}*{O}")),
    FleetColumn("tokens_per_s_per_gpu", "Output tokens/s per GPU", "tenths", f"={RATE}*{O}/{{gpus}}"),
    FleetColumn("tokens_per_s_per_user", "Output tokens/s per user", "tenths",
                f"=IF({AGG},1000/{{itl_ms}},1000/{{tpot_ms}})"),
    FleetColumn("output_tokens_per_dollar", "Output tokens per unit of money", "count",
                f'=IF({{cost_per_hour}}>0,seconds_per_hour*{RATE}*{O}/{{cost_per_hour}},"")'),
]
CHECKS_PER_ROW = [
    FleetColumn("tpot_met", "TPOT met", "bool", f"=ROUND(IF({AGG},{{itl_ms}},{{tpot_ms}}),{NINE})<={Y}"),
    FleetColumn("b_star_largest", "B* the largest", "bool",
                f"=IF({{b_star}}>{{b_max}},FALSE,IF({{b_star}}={{b_max}},TRUE,ROUND({{latency_next_ms}},{NINE})>{Y}))"),
    FleetColumn("batch_row", "B a batch row", "bool",
                "=IF({batch}={b_star},TRUE,IF({batch}<{b_star},2^ROUND(LOG({batch},2),0)={batch},FALSE))"),
    FleetColumn("fewest", "Fewest replicas", "bool",
                f"=IF({AGG},NOT({meets('{miss_one_fewer}')}),AND(NOT({meets('{miss_one_fewer}')}),"
                f"NOT({meets('{miss_one_fewer_decode}')})))"),
    FleetColumn("within_range", "Within the queue range", "bool",
                f"=IF({AGG},{{servers}},MAX({{servers}},{{prefill_replicas}}))<=fleet_queue_range"),
    FleetColumn("on_catalog", "Both pools' GPUs on Catalog", "bool",
                "=AND(ISNUMBER(MATCH({prefill_gpu},catalog_gpu_ids,0)),ISNUMBER(MATCH({decode_gpu},catalog_gpu_ids,0)))",
                guarded=False),
    FleetColumn("holds", "The integers hold", "bool",
                "=AND({on_catalog},{prefill_fits},{tpot_met},{b_star_largest},{batch_row},{ttft_met},{fewest},"
                "{within_range})"),
]
HELPERS = [  # the cheapest of each mode: the cost where the row meets the SLO on a priced GPU, else blank; MIN and
    # MATCH pick it (a GPU priced 0 or blank on Catalog is never the cheapest: its check fails instead)
    FleetColumn("meets", "Meets the SLO", "bool", "=AND({prefill_fits},{tpot_met},{ttft_met},{within_range})"),
    FleetColumn("priced", "Its GPUs priced above 0", "bool",
                "=AND(ISNUMBER({price_per_gpu_hour}),{price_per_gpu_hour}>0,ISNUMBER({prefill_price_per_gpu_hour}),"
                "{prefill_price_per_gpu_hour}>0)", guarded=False),
    FleetColumn("cost_aggregated", "Cost if aggregated and meets", "money",
                f"=IF(AND({AGG},{{meets}},{{priced}}),{{cost_per_hour}},\"\")"),
    FleetColumn("cost_disaggregated", "Cost if disaggregated and meets", "money",
                f"=IF(AND(NOT({AGG}),{{meets}},{{priced}}),{{cost_per_hour}},\"\")"),
    FleetColumn("cost_any", "Cost if it meets", "money", "=IF(AND({meets},{priced}),{cost_per_hour},\"\")"),
    FleetColumn("mixed", "Mixed pools (prefill and decode GPUs differ)", "bool", "={prefill_gpu}<>{decode_gpu}",
                guarded=False, every_row=True),
    FleetColumn("cost_single_type", "Cost if on one GPU type and meets", "money",
                "=IF(AND(NOT({mixed}),{meets},{priced}),{cost_per_hour},\"\")"),
    FleetColumn("cost_mixed", "Cost if mixed and meets", "money",
                "=IF(AND({mixed},{meets},{priced}),{cost_per_hour},\"\")"),
]
ROW_COLUMNS = IDENTITY + INTEGERS + LOOKUPS + REPLICA + QUEUE + FIGURES + CHECKS_PER_ROW
PASS_COL = 1 + ROW_COLUMNS.index(PASS_COLUMNS[0])  # the helper columns, grouped out of sight (the day's beside them)


def _cached(column: FleetColumn, row: dict):
    """The engine's value of a row's cell (a blank for None): the row's own key, its mode's miss with one prefill
    replica fewer, TRUE for valid integers, the cost in the helper columns of its mode where it meets."""
    if column.key in ("valid", "priced", "on_catalog"):  # the search's integers, on GPUs the scenario prices above 0
        return True
    if column.key == "miss_one_fewer" and row["mode"] != AGGREGATED:
        return row["miss_one_fewer_prefill"]
    if column.key in ("cost_aggregated", "cost_disaggregated", "cost_any"):  # the helpers: the cost where it meets
        return row["cost_per_hour"] if row["meets"] and column.key[5:] in ("any", row["mode"]) else ""
    mixed = row["prefill_gpu"] != row["decode_gpu"]
    if column.key == "mixed":
        return mixed
    if column.key in ("cost_single_type", "cost_mixed"):
        return row["cost_per_hour"] if row["meets"] and mixed == (column.key == "cost_mixed") else ""
    value = row.get(column.key)
    return "" if value is None else value


def _pieces(passes: dict) -> dict:
    """A row's helper cells from the engine (FleetTable.passes): the passes in ms (blank at B* + 1 = B_max + 1)
    and C with one replica fewer."""
    found = model.pieces_in_ms(passes["first"], PASS_FIRST) | model.pieces_in_ms(passes["b"], PASS_B) \
        | {"erlang_c_one_fewer": passes["erlang_c_one_fewer"]}
    if passes["next"] is None:
        return found | {column.key: "" for column in PASS_COLUMNS if column.key.startswith(PASS_NEXT)}
    return found | model.pieces_in_ms(passes["next"], PASS_NEXT)


def configuration_table(sheet: kit.Sheet, rows: list[dict], labels: list, columns: list[FleetColumn], *,
                        passes, reason: bool = False) -> tuple[int, int]:
    """A table of configurations, one per row: the engine's words as text, its integers a locked snapshot, every other
    column a formula of the row; a row with a reason (no batch meets the SLO) shows its words, sizes and reason
    only. Returns the first and last row (0-based)."""
    styles = sheet.book.styles
    header = sheet.heading_row([""] + [c.header for c in columns] + (["Why not (as generated)"] if reason else []),
                               height=75)
    first, last = header + 1, header + len(rows)
    for col, column in enumerate(columns, start=1):
        sheet.places[column.key] = kit.Place("column", first, col, last, col)
    for i, (row, label) in enumerate(zip(rows, labels)):
        r = first + i
        sheet._label(r, label)
        pieces = _pieces(passes(row)) if row.get("reason") is None else {}
        for col, column in enumerate(columns, start=1):
            if column.role == "text":
                sheet.ws.write_string(r, col, row[column.key], styles.value("text"))
            elif column.role == "input":  # the search's integer: a locked snapshot (grey), as generated
                sheet.value_cell(r, col, row[column.key], styles.value("count", constant=True), None)
            elif row.get("reason") is None or column.every_row:
                template = column.template if not column.guarded else \
                    f'=IF({{valid}},{column.template[1:]},"n/a")'
                sheet.formula(r, col, sheet.expand(template, r, col),
                              pieces[column.key] if column.key in pieces else _cached(column, row),
                              styles.value(column.kind))
        if reason and row.get("reason"):
            sheet.ws.write_string(r, len(columns) + 1, row["reason"], styles.note)
    for col, column in enumerate(columns, start=1):
        if column.kind == "bool" and column.key != "fp8_gemm":
            sheet.warn("false", first, col, last, col)
    sheet.group_columns(PASS_COL, PASS_COL + len(PASS_COLUMNS) - 1)
    sheet.row_index = last + 1
    return first, last


def _range(sheet: kit.Sheet, key: str, *, heading: bool = False) -> str:
    """A table column's cells, absolute; with its heading too, so that it is never a single cell (Gnumeric's INDEX
    gives #REF! on a one-cell range)."""
    place = sheet.places[key]
    return f"{kit.xl_rowcol_to_cell(place.row - heading, place.col, True, True)}:" \
           f"{kit.xl_rowcol_to_cell(place.last_row, place.col, True, True)}"


# The answer: the cheapest of each mode, by MIN and MATCH over the helper columns --------------------------------------
SHOWN = [("mode", "Mode", "text"), ("gpu", "GPU", "text"), ("prefill_gpu", "Prefill GPU", "text"),
         ("decode_gpu", "Decode GPU", "text"), ("prefill_tensor_parallel", "t_p", "count"),
         ("tensor_parallel", "t", "count"), ("batch", "B", "count"), ("replicas", "n", "count"),
         ("prefill_replicas", "x", "count"), ("decode_replicas", "y", "count"), ("gpus", "GPUs", "count"),
         ("cost_per_hour", "Cost per hour", "money"),
         ("cost_per_acceptable_request", "Cost per acceptable request", "money5"),
         ("cost_per_million_tokens", "Cost per million output tokens", "money"),
         ("tokens_per_s_per_gpu", "Tokens/s per GPU", "tenths"),
         ("tokens_per_s_per_user", "Tokens/s per user", "tenths"),
         ("ttft_percentile_ms", "TTFT at the percentile (ms)", "tenths"), ("attainment", "Attainment", "decimal")]
CHEAPEST = [("aggregated", "Cheapest aggregated", "cost_aggregated"),
            ("disaggregated", "Cheapest disaggregated", "cost_disaggregated"), (None, "Cheapest overall", "cost_any"),
            ("single_type", "Cheapest on one GPU type", "cost_single_type"),  # §15.1: the Cover's comparison
            ("mixed", "Cheapest mixed (prefill/decode GPUs)", "cost_mixed")]
SINGLE_TYPE_NAMES = ("gpu", "gpus", "cost_per_hour")  # fleet_cheapest_single_type_<key>
ANSWER_ROWS = 19  # rows the answer takes above the Candidates table
NAMES = {key: name for name, key in HEADLINE.items()}  # the overall cheapest's key → its defined name


def _answer(sheet: kit.Sheet, table, symbol: str) -> None:
    """The cheapest of each mode and overall (their values by INDEX at the row MATCH(MIN(…)) finds, ties to the
    earlier row), the headline names, the answer in a sentence, the counts and whether the integers hold."""
    styles, book = sheet.book.styles, sheet.book
    sheet.section("The answer: the cheapest configuration of each mode that meets the SLO")
    sheet.heading_row(["", "Row"] + [header for _, header, _ in SHOWN], height=45)
    picked = {None: table.cheapest, "single_type": table.single_type, "mixed": table.cheapest_mixed}
    for mode, label, helper in CHEAPEST:
        r, best = sheet.row_index, (picked[mode] if mode in picked else table.cheapest_of(mode))
        sheet._label(r, label)
        found = _range(sheet, helper, heading=True)  # its heading is text: MIN, COUNT and MATCH pass it by
        at = sheet.formula(r, 1, f'=IF(COUNT({found})=0,"",MATCH(MIN({found}),{found},0)-1)',
                           table.candidates.index(best) + 1 if best else "", styles.value("count"))
        for col, (key, _, kind) in enumerate(SHOWN, start=2):
            value = "" if best is None or best.get(key) is None else best[key]
            pick = f"INDEX({_range(sheet, key, heading=True)},{at}+1,1)"
            cell = sheet.formula(r, col, f'=IF({at}="","",IF({pick}="","",{pick}))', value, styles.value(kind))
            name = NAMES.get(key, f"fleet_cheapest_{key}") if mode is None else \
                f"fleet_cheapest_{mode}_{key}" if key == "cost_per_hour" or (
                    mode == "single_type" and key in SINGLE_TYPE_NAMES) else None
            if name:
                book.define(name, sheet.name, cell, value)
        sheet.row_index += 1
    sheet.row(Row("answer", "The fleet's answer", formula=_answer_formula(symbol), kind="text", unit="",
                  name="fleet_answer"),
              table.headline["fleet_answer"] if table.checks["fleet_rows_hold"] else FLEET_STALE)
    counts = [Row("configurations", "Configurations searched", formula=f"=COUNTA({_range(sheet, 'mode')})",
                  kind="count", unit="", name="fleet_configurations"),
              Row("feasible", "… meeting the SLO", formula=f"=COUNTIF({_range(sheet, 'meets')},TRUE)", kind="count",
                  unit="", name="fleet_feasible_configurations"),
              Row("mixed_configurations", "… with mixed pools (§15.1)", kind="count", unit="",
                  formula=f"=COUNTIF({_range(sheet, 'mixed')},TRUE)", name="fleet_mixed_configurations"),
              *MIXED_ROWS]
    counts += mixed_answer_rows(symbol)
    head = table.headline
    sheet.rows(counts, {"mixed_answer": head["fleet_mixed_answer"],
                        "mixed_saving": mixed_saving(head, table.cheapest, symbol),
                        "configurations": table.scalars["configurations"], "feasible": table.scalars["feasible"],
                        "mixed_configurations": table.scalars["mixed_configurations"],
                        **{row.key: head[row.name] for row in MIXED_ROWS}})


PREFILL_POOL = pool_gpus("fleet_cheapest_prefill_replicas", "fleet_cheapest_prefill_tensor_parallel")
MIXED_ROWS = [  # the chosen fleet per pool (§15.1): blank when none meets; aggregated: no prefill pool
    Row("cheapest_mixed", "The cheapest is mixed (prefill and decode on different GPUs)", kind="bool", unit="",
        formula='=IF(fleet_cheapest_prefill_gpu="","",fleet_cheapest_prefill_gpu<>fleet_cheapest_decode_gpu)',
        name="fleet_cheapest_mixed"),
    Row("cheapest_prefill_gpus", "… its prefill GPUs with spares", kind="count", unit="GPUs",
        formula=f'=IF(fleet_cheapest_mode="","",IF(fleet_cheapest_mode="aggregated",0,{PREFILL_POOL}))',
        name="fleet_cheapest_prefill_gpus"),
    Row("cheapest_decode_gpus", "… its decode GPUs with spares (aggregated: all)", kind="count", unit="GPUs",
        formula='=IF(fleet_cheapest_mode="","",fleet_cheapest_gpus-fleet_cheapest_prefill_gpus)',
        name="fleet_cheapest_decode_gpus"),
]


def _money(cell: str) -> str:
    return f'fleet_currency_symbol&TEXT({cell},"#,##0.00")'


SINGLE, CHOSEN = "fleet_cheapest_single_type_cost_per_hour", "fleet_cheapest_cost_per_hour"
SAVING = (f'=IF(fleet_cheapest_mixed<>TRUE,"",IF({SINGLE}=""," (no single-type fleet meets the SLO)",'
          f'" ("&{_money(f"{SINGLE}-{CHOSEN}")}&" an hour, "&TEXT(({SINGLE}-{CHOSEN})/{SINGLE}*100,"0.0")&'
          f'" %, below the best single-type fleet: "&fleet_cheapest_single_type_gpus&" "&'
          f'fleet_cheapest_single_type_gpu&", "&{_money(SINGLE)}&")"))')
MIXED_WINS = (f'"Serving: "&fleet_cheapest_prefill_gpus&" "&fleet_cheapest_prefill_gpu&" for prefill and "&'
              f'fleet_cheapest_decode_gpus&" "&fleet_cheapest_decode_gpu&" for decode (mixed pools, §15.1), "&'
              f'{_money(CHOSEN)}&" an hour at the peak"&{{mixed_saving}}')
MIXED_LOSES = (f'IF(fleet_cheapest_mixed_cost_per_hour="","{NO_MIXED}","Mixed pools do not win: the cheapest costs "&'
               f'{_money("fleet_cheapest_mixed_cost_per_hour")}&" an hour, "&'
               f'{_money(f"fleet_cheapest_mixed_cost_per_hour-{CHOSEN}")}&" above the chosen fleet\'s "&'
               f'{_money(CHOSEN)})')


def mixed_answer_rows(symbol: str) -> list[Row]:
    """§15.1's words for the Cover, from the named cells (as planner.engine.fleet.mixed_answer writes them), and the
    saving's bracket they end with when the chosen fleet is mixed."""
    def spelled(formula: str) -> str:
        return formula.replace("fleet_currency_symbol&", f'"{symbol}"&')

    return [Row("mixed_saving", "… when mixed, its saving against the best single-type fleet", kind="text", unit="",
                formula=spelled(SAVING)),
            Row("mixed_answer", "Mixed GPU pools (§15.1)", kind="text", unit="", name="fleet_mixed_answer",
                formula=spelled(f'=IF(fleet_mixed_gpus<>TRUE,"{MIXING_OFF}",IF(fleet_cheapest_mode="","{NO_FLEET}",'
                                f"IF(fleet_cheapest_mixed=TRUE,{MIXED_WINS},{MIXED_LOSES})))"))]


def _answer_formula(symbol: str) -> str:
    """The answer in a sentence, from the overall cheapest's cells (as planner.engine.fleet.answer writes it)."""
    def count(n, noun):
        return f'{n}&IF({n}=1," {noun}"," {noun}s")'

    t, t_p = "fleet_cheapest_tensor_parallel", "fleet_cheapest_prefill_tensor_parallel"
    replicas = (f'IF(fleet_cheapest_mode="aggregated",{count("fleet_cheapest_replicas", "replica")}&" of "&'
                f'{count(t, "GPU")},{count("fleet_cheapest_prefill_replicas", "prefill replica")}&" of "&'
                f'{count(t_p, "GPU")}&" and "&{count("fleet_cheapest_decode_replicas", "decode replica")}&" of "&'
                f'{count(t, "GPU")})')
    return (f'=IF(NOT(fleet_rows_hold),"{FLEET_STALE}",IF(fleet_cheapest_mode="","{NO_FLEET}",'
            f'fleet_cheapest_mode&" on "&fleet_cheapest_gpu&": "&'
            f'{replicas}&" at B "&fleet_cheapest_batch&", "&TEXT(fleet_cheapest_gpus,"#,##0")&'
            f'" GPUs with spares, {symbol}"&TEXT(fleet_cheapest_cost_per_hour,"#,##0.00")&" per hour"))')


def _holds(sheet: kit.Sheet, tables: list[tuple[int, int]], day: tuple[int, int] | None, value: bool) -> None:
    """Whether every shown row's integers still hold (valid, and each of its checks TRUE; each hour's replicas
    meet and are the fewest), and what to do when they do not."""
    col = {key: 1 + i for i, key in enumerate(c.key for c in ROW_COLUMNS)}

    def none_false(key: str, first: int, last: int, column: int | None = None) -> str:
        c = col[key] if column is None else column
        return f"COUNTIF({kit.xl_rowcol_to_cell(first, c, True, True)}:{kit.xl_rowcol_to_cell(last, c, True, True)}" \
               f",FALSE)=0"

    parts = [none_false(key, first, last) for first, last in tables for key in ("valid", "holds")]
    if day:
        parts += [none_false("", day[0], day[1], DAY_COLUMN[key]) for key in ("meets", "fewest")]
    parts.append("fleet_mixed_pairs_valid=TRUE")  # a pair typed on Inputs that the search did not see (§15.1)
    sheet.row(Row("rows_hold", "Every shown row's integers hold at these inputs", formula=f"=AND({','.join(parts)})",
                  kind="bool", unit="", name="fleet_rows_hold", warn="false",
                  note="FALSE after an edit of the rate, an efficiency or the SLO: the engine's batches and replicas "
                  "no longer meet it, or are no longer the fewest"), value)
    sheet.row(Row("status", "What to do", kind="text", unit="", formula='=IF(fleet_rows_hold,"Nothing: the search\'s '
                  'integers hold","An input changed since the planner ran: run the planner again")'),
              "Nothing: the search's integers hold" if value else
              "An input changed since the planner ran: run the planner again")


DEMAND = [
    Row("rate", "Requests served per second at the peak λ", kind="decimal", unit="requests/s", name=RATE,
        formula="=IF(fleet_retries,fleet_peak_rate/fleet_quality,fleet_peak_rate)",
        note="λ_u/q with retries (a response that fails on quality is asked again), else λ_u"),
    Row("miss_budget", "Miss share allowed 1 − p", formula="=1-goodput_attainment_target", kind="percent", unit="",
        name=BUDGET, note="p, the attainment target: the share of requests whose TTFT must be within X"),
]


PAIRS_PER_ROW = 6  # mixed pairs checked per row: each row's formula within 1,000 characters


def mixed_pairs_rows(book: kit.Book, fleet) -> list[Row]:
    """Whether each mixed pair on Inputs names two different GPUs of fleet.gpus (§15.1's check), live: a pair typed
    outside fleet.gpus, or of one GPU, turns it FALSE and the Fleet's results n/a; TRUE without pairs. A pair listed
    twice is refused when the scenario is read (its rows would only repeat)."""
    first, last = (book.names.get(f"fleet_gpus_{i}") for i in (1, len(fleet.gpus)))
    listed = f"'{first[0]}'!${first[1][0]}${first[1][1:]}:${last[1][0]}${last[1][1:]}" if first and last and \
        first[1][0] == last[1][0] and first[1][1].isdigit() else None
    terms = []
    for i in range(1, len(fleet.mixed_pairs) + 1):
        p, d = f"fleet_mixed_pairs_{i}_prefill", f"fleet_mixed_pairs_{i}_decode"
        inside = (f"COUNTIF({listed},{p})>0,COUNTIF({listed},{d})>0" if listed else
                  ",".join(f"OR({','.join(f'{x}=fleet_gpus_{g}' for g in range(1, len(fleet.gpus) + 1))})"
                           for x in (p, d)))
        terms.append(f"AND({p}<>{d},{inside})")
    chunks = [terms[i:i + PAIRS_PER_ROW] for i in range(0, len(terms), PAIRS_PER_ROW)]
    rows = [Row(f"mixed_pairs_valid_{k}", f"Mixed pairs {k * PAIRS_PER_ROW + 1}–{k * PAIRS_PER_ROW + len(chunk)} "
                "name two different GPUs of fleet.gpus", kind="bool", unit="", formula=f"=AND({','.join(chunk)})")
            for k, chunk in enumerate(chunks)] if len(chunks) > 1 else []
    formula = (f"=AND({','.join('{' + row.key + '}' for row in rows)})" if rows else
               f"=AND({','.join(terms)})" if terms else "=TRUE")
    return rows + [Row("mixed_pairs_valid", "Each mixed pair names two different GPUs of fleet.gpus", kind="bool",
                       unit="", formula=formula, name="fleet_mixed_pairs_valid", warn="false",
                       note="fleet.mixed_pairs (§15.1): a pair outside fleet.gpus or of one GPU is refused")]


def calibrated_rows(benchmarks: bool) -> list[Row]:
    """The efficiencies fitted on the benchmark serving.calibration names (§12.1), which the candidates on its GPU
    read; the inputs without a calibration (the Serving sheet's fit exists only with benchmarks)."""
    def row(key: str, label: str, kind: str, unit: str) -> Row:
        formula = (f'=IF(serving_calibration="none",{_given(key)},serving_fit_{key})' if benchmarks
                   else f"={_given(key)}")
        return Row(f"calibrated_{key}", label, formula=formula, kind=kind, unit=unit, name=CALIBRATED[key],
                   note="On the GPU of the benchmark calibrated from (Serving); every other GPU keeps the input")

    return [row("compute_efficiency", "Compute efficiency η_c fitted", "percent", "of peak"),
            row("bandwidth_efficiency", "Bandwidth efficiency η_m fitted", "percent", "of HBM"),
            row("overhead_ms", "Overhead per pass τ fitted", "decimal", "ms")]


def write(book: kit.Book, results) -> kit.Sheet:
    table, scenario = results.fleet, results.scenario
    width = len(ROW_COLUMNS) + len(HELPERS) + 1
    sheet = book.sheet(SHEET, [("", 13)] + [("", 11)] * (width - 1), note_width=44, beside=True)
    sheet.title("Fleet: the cheapest serving fleet that meets the SLO", "docs/method.md §11: the search runs in the "
                "engine; each row's integers are input cells and every other column a live formula of them, Inputs "
                "and Catalog.")
    sheet.section("The demand and the SLO (Goodput's X, Y and p; Serving's request shape and roofline)")
    sheet.rows(DEMAND, {"rate": table.scalars["rate"], "miss_budget": table.scalars["miss_budget"]})
    sheet.rows(calibrated_rows(bool(scenario.goodput.benchmarks)),
               {f"calibrated_{key}": table.scalars[f"calibrated_{key}"] for key in CALIBRATED})
    pairs = mixed_pairs_rows(book, scenario.fleet)
    sheet.rows(pairs, {row.key: True for row in pairs})
    sheet.skip()
    answer_at = sheet.row_index
    sheet.skip(ANSWER_ROWS)
    tables = []
    mixing = table.scalars["mixed_gpus"]  # a GPU of one type is not a unit of another: per unit of money (§15.1)
    axis = ("output_tokens_per_dollar", "output tokens per unit of money") if mixing else \
        ("tokens_per_s_per_gpu", "tokens/s per GPU")
    sheet.section(f"The Pareto front: {axis[1]} against tokens/s per user, every sized batch row")
    if table.pareto:
        tables.append(configuration_table(sheet, table.pareto, [f"Front {r['position']}" for r in table.pareto],
                                          ROW_COLUMNS, passes=table.passes))
        sheet.front_chart(name="Pareto front", x="tokens_per_s_per_user", y=axis[0],
                          title=f"{axis[1][0].upper()}{axis[1][1:]} against tokens/s per user: the Pareto front"
                          if mixing else "Output tokens/s per GPU against per user: the Pareto front",
                          x_axis={"name": "Tokens/s per user", "num_format": "#,##0"},
                          y_axis={"name": "Tokens per unit of money" if mixing else "Tokens/s per GPU",
                                  "num_format": "#,##0"})
    else:
        sheet.text("No configuration meets the SLO: no front.", style=book.styles.note)
    sheet.skip()
    day = _day(sheet, table)
    sheet.skip()
    # last, so that its headings repeat on every page it runs onto (one range of rows repeats per sheet)
    sheet.section("Every configuration, cheapest first; those no batch of which meets the SLO last, with the reason")
    tables.insert(0, configuration_table(sheet, table.candidates, list(range(1, len(table.candidates) + 1)),
                                         ROW_COLUMNS + HELPERS, passes=table.passes, reason=True))
    candidate_places = {key: place for key, place in sheet.places.items()}
    book.define("fleet_candidate_priced", SHEET, _range(sheet, "priced"))
    book.define("fleet_candidate_gpu", SHEET, _range(sheet, "gpu"))
    for key in dict.fromkeys(FLEET_CHOSEN + tuple(key for key, _, _ in DAY_CONFIG)):
        place = candidate_places[key]  # the cheapest configuration, which the day and the plan's months read (§11)
        book.define(f"fleet_chosen_{key}", SHEET, kit.xl_rowcol_to_cell(place.row, place.col, True, True))
    end = sheet.row_index
    sheet.places.update(candidate_places)
    sheet.row_index = answer_at
    _answer(sheet, table, scenario.currency_symbol)
    _holds(sheet, tables, day, table.checks["fleet_rows_hold"])
    if sheet.row_index > answer_at + ANSWER_ROWS:
        raise RuntimeError("the Fleet sheet's answer outgrew its rows")
    sheet.row_index = end
    return sheet


# Over the day: the cheapest configuration (the Candidates table's first row) hour by hour -----------------------------
DAY_AGG = 'fleet_day_mode="aggregated"'
DAY = Served(batch="fleet_day_batch", cycle_s="fleet_day_cycle_s", tpot_ms="fleet_day_tpot_ms",
             ttft_ms="fleet_day_ttft_ms", transfer_ms="fleet_day_kv_transfer_ms")
DAY_CONFIG = [("mode", "Mode", "text"), ("batch", "Batch B", "count"),
              ("tensor_parallel", "GPUs t (decode t_d)", "count"),
              ("prefill_tensor_parallel", "Prefill GPUs t_p", "count"), ("cycle_s", "cycle(B)", "decimal"),
              ("tpot_ms", "TPOT(B)", "tenths"), ("ttft_ms", "D", "tenths"), ("kv_transfer_ms", "T_kv", "decimal"),
              ("replicas", "Replicas at the peak n", "count"), ("prefill_replicas", "… prefill x", "count"),
              ("decode_replicas", "… decode y", "count"), ("gpus", "GPUs at the peak, with spares", "count"),
              ("price_per_gpu_hour", "Price per GPU-hour", "money"), ("prefill_gpu", "Prefill GPU", "text"),
              ("decode_gpu", "Decode GPU", "text"),
              ("prefill_price_per_gpu_hour", "Prefill GPU's price per GPU-hour", "money"),
              ("cost_per_hour", "Cost per hour at the peak", "money")]
DAY_MIXED = "fleet_day_prefill_gpu<>fleet_day_decode_gpu"  # two GPU types: each pool at its own price (§15.1)


def _miss_at(replicas: tuple[str, str, str], rate: str, erlang: tuple[str, str]) -> str:
    """The chosen configuration's miss at these replicas ((n, x, y) cells) and rate, by its mode; `erlang`: where
    its C (aggregated, or the prefill pool's) and its decode pool's C_d are."""
    n, x, y = replicas
    return (f"IF({DAY_AGG},{aggregated_miss(n, rate, DAY, erlang[0])},"
            f"{disaggregated_miss(x, y, rate, DAY, prefill_erlang=erlang[0], decode_erlang=erlang[1])})")


PEAK = ("fleet_day_replicas", "fleet_day_prefill_replicas", "fleet_day_decode_replicas")
HOUR = ("{replicas}", "{prefill_replicas}", "{decode_replicas}")
DAY_COLUMNS = [
    FleetColumn("fraction", "Share of the peak f_h", "percent",
                "=INDEX(catalog_profile_fractions,{label}+1,MATCH(fleet_day_profile,catalog_profile_ids,0))"),
    FleetColumn("rate", "Requests per second λ_h", "decimal", f"={RATE}*{{fraction}}/fleet_day_peak_fraction"),
    *[FleetColumn(key, header, "count", role="input") for key, header in (
        ("replicas", "Replicas n_h"), ("prefill_replicas", "Prefill x_h"), ("decode_replicas", "Decode y_h"))],
    FleetColumn("gpus_following", "GPUs following demand", "count",
                f"=IF({DAY_AGG},{pool_gpus('{replicas}', 'fleet_day_tensor_parallel')},"
                f"{pool_gpus('{prefill_replicas}', 'fleet_day_prefill_tensor_parallel')}"
                f"+{pool_gpus('{decode_replicas}', 'fleet_day_tensor_parallel')})"),
    FleetColumn("gpus_peak_sized", "GPUs sized for the peak", "count", "=fleet_day_gpus"),
    FleetColumn("cost_following", "Cost, following demand", "money",
                f"=IF({DAY_AGG},{{gpus_following}}*fleet_day_price_per_gpu_hour,"
                f"{pool_gpus('{prefill_replicas}', 'fleet_day_prefill_tensor_parallel')}"
                f"*fleet_day_prefill_price_per_gpu_hour+{pool_gpus('{decode_replicas}', 'fleet_day_tensor_parallel')}"
                "*fleet_day_price_per_gpu_hour)"),
    FleetColumn("busy_gpus", "Busy GPUs λ_h·g", "decimal", "={rate}*fleet_day_gpu_seconds"),
    FleetColumn("miss_following", "Miss, following", "decimal",
                f'=IF({{rate}}=0,"",{_miss_at(HOUR, "{rate}", ("{erlang_following}", "{decode_erlang_following}"))})'),
    FleetColumn("attainment_following", "Attainment, following", "decimal",
                '=IF({rate}=0,"",1-{miss_following})'),
    FleetColumn("attainment_peak_sized", "Attainment, sized for the peak", "decimal", '=IF({rate}=0,"",1-{miss_peak})'),
    FleetColumn("acceptable_following", "Acceptable requests, following", "count",
                "=IF({rate}=0,0,seconds_per_hour*{rate}*{attainment_following}*fleet_quality)"),
    FleetColumn("acceptable_peak_sized", "Acceptable requests, sized for the peak", "count",
                "=IF({rate}=0,0,seconds_per_hour*{rate}*{attainment_peak_sized}*fleet_quality)"),
    FleetColumn("meets", "Meets the SLO", "bool", f"=IF({{rate}}=0,{{gpus_following}}=0,{meets('{miss_following}')})"),
    FleetColumn("fewest", "Fewest replicas", "bool",
                f"=IF({{rate}}=0,TRUE,IF({DAY_AGG},NOT({meets('{miss_fewer}')}),"
                f"AND(NOT({meets('{miss_fewer}')}),NOT({meets('{miss_fewer_decode}')}))))"),
]


def _erlang_at(replicas: tuple[str, str, str], rate: str) -> str:
    """C of the chosen configuration's first pool at these replicas ((n, x, y) cells): C(n·B, λ·cycle) aggregated,
    C(x, λ·D) disaggregated."""
    n, x, _ = replicas
    return (f"IF({DAY_AGG},{erlang_c(f'({n})*{DAY.batch}', f'{rate}*{DAY.cycle_s}')},"
            f"{erlang_c(f'({x})', f'{rate}*({DAY.ttft_ms}/1000)')})")


def _decode_erlang_at(y: str, rate: str) -> str:
    """C_d(y·B, λ·o·TPOT) of a decode pool of y replicas (blank aggregated)."""
    return f'IF({DAY_AGG},"",{erlang_c(f"({y})*{DAY.batch}", f"{rate}*{O}*{DAY.tpot_ms}/1000")})'


FEWER = ("{replicas}-1", "{prefill_replicas}-1", "{decode_replicas}")  # one replica fewer in the first pool


def _when_demand(expression: str, *, disaggregated: bool = False) -> str:
    """An hour's helper: blank at no demand (and aggregated, for a disaggregated fleet's own terms)."""
    blank = f"OR({{rate}}=0,{DAY_AGG})" if disaggregated else "{rate}=0"
    return f'=IF({blank},"",{expression})'


DAY_HELPERS = [  # what the misses read, each hour: C of the first pool (n, or the prefill pool's x) and C_d of the
    # decode pool's y, following demand, sized for the peak and with one replica fewer; the misses that read them
    *(column for key, words, first, decode in (
        ("following", "following", HOUR, HOUR[2]), ("peak", "sized for the peak", PEAK, PEAK[2]),
        ("fewer", "at one replica fewer (n_h − 1, x_h − 1, y_h − 1)", FEWER, "{decode_replicas}-1"))
      for column in (FleetColumn(f"erlang_{key}", f"C {words}", "decimal", _when_demand(_erlang_at(first, "{rate}"))),
                     FleetColumn(f"decode_erlang_{key}", f"C_d {words}", "decimal",
                                 _when_demand(_decode_erlang_at(decode, "{rate}"))))),
    FleetColumn("miss_peak_disaggregated", "Miss sized for the peak, disaggregated", "decimal", _when_demand(
        disaggregated_miss(*PEAK[1:], "{rate}", DAY, prefill_erlang="{erlang_peak}",
                           decode_erlang="{decode_erlang_peak}"), disaggregated=True)),
    FleetColumn("miss_peak", "Miss, sized for the peak", "decimal", _when_demand(
        f'IF({DAY_AGG},{aggregated_miss(PEAK[0], "{rate}", DAY, "{erlang_peak}")},{{miss_peak_disaggregated}})')),
    FleetColumn("miss_fewer", "Miss at n_h − 1 (or x_h − 1)", "decimal",
                _when_demand(_miss_at(FEWER, "{rate}", ("{erlang_fewer}", "{decode_erlang_following}")))),
    FleetColumn("miss_fewer_decode", "Miss at y_h − 1", "decimal", _when_demand(disaggregated_miss(
        "{prefill_replicas}", "{decode_replicas}-1", "{rate}", DAY, prefill_erlang="{erlang_following}",
        decode_erlang="{decode_erlang_fewer}"), disaggregated=True)),
]
DAY_COLUMN = {column.key: i for i, column in enumerate(DAY_COLUMNS, start=1)}
DAY_TOTALS = [  # (key, label, formula, kind, the engine's total)
    ("gpu_hours_peak_sized", "GPU-hours, sized for the peak", "=SUM({gpus_peak_sized:range})", "count"),
    ("gpu_hours_following", "GPU-hours, following demand", "=SUM({gpus_following:range})", "count"),
    ("busy_gpu_hours", "Busy GPU-hours (the work at full batch)", "=SUM({busy_gpus:range})", "tenths"),
    ("idle_gpu_hours_peak_sized", "Idle GPU-hours, sized for the peak",
     "={day_gpu_hours_peak_sized}-{day_busy_gpu_hours}", "tenths"),
    ("idle_gpu_hours_following", "Idle GPU-hours, following demand",
     "={day_gpu_hours_following}-{day_busy_gpu_hours}", "tenths"),
    ("cost_peak_sized", "Cost per day, sized for the peak", f"=IF({DAY_MIXED},COUNT({{rate:range}})"
     "*fleet_day_cost_per_hour,{day_gpu_hours_peak_sized}*fleet_day_price_per_gpu_hour)", "money"),
    ("cost_following", "Cost per day, following demand", f"=IF({DAY_MIXED},SUM({{cost_following:range}}),"
     "{day_gpu_hours_following}*fleet_day_price_per_gpu_hour)", "money"),
    ("acceptable_peak_sized", "Acceptable requests a day, sized for the peak", "=SUM({acceptable_peak_sized:range})",
     "count"),
    ("acceptable_following", "Acceptable requests a day, following demand", "=SUM({acceptable_following:range})",
     "count"),
    ("cost_per_acceptable_request_peak_sized", "Cost per acceptable request, sized for the peak",
     '=IF({day_acceptable_peak_sized}>0,{day_cost_peak_sized}/{day_acceptable_peak_sized},"")', "money5"),
    ("cost_per_acceptable_request_following", "Cost per acceptable request, following demand",
     '=IF({day_acceptable_following}>0,{day_cost_following}/{day_acceptable_following},"")', "money5"),
]
DAY_NAMES = {key: name for name, key in DAY_HEADLINE.items()}  # a day total's key → its headline name


def _day(sheet: kit.Sheet, table) -> tuple[int, int] | None:
    """The chosen configuration's terms (named, read from the Candidates table's first row below), the 24 hours and the
    day's totals for both fleets; without a profile (or a configuration) only the totals' names, blank."""
    book, s = sheet.book, table.scalars
    sheet.section("Over the day: the cheapest configuration sized for the peak, and following demand hour by hour")
    if not table.day:
        why = "no configuration meets the SLO." if table.cheapest is None else \
            "fleet.profile is none (the peak hour only)."
        sheet.text("No day: " + why, style=book.styles.note)
        for key, label, _, kind in DAY_TOTALS:
            sheet.row(Row(f"day_{key}", label, formula='=""', kind=kind, unit="", name=DAY_NAMES.get(key)), "")
        return None
    best = table.cheapest
    for key, label, kind in DAY_CONFIG:
        cell = f"fleet_chosen_{key}"
        value = "" if best.get(key) is None else best[key]
        sheet.row(Row(f"config_{key}", f"The cheapest configuration: {label}", kind=kind, unit="",
                      formula=f'=IF(ISBLANK({cell}),"",{cell})', name=f"fleet_day_{key}"), value)
    sheet.rows([
        Row("gpu_seconds", "GPU-seconds per request at full batch g", kind="decimal", unit="GPU-s",
            name="fleet_day_gpu_seconds", note="t·cycle/B aggregated; t_p·D + t_d·o·TPOT/B disaggregated",
            formula=f"=IF({DAY_AGG},fleet_day_tensor_parallel*fleet_day_cycle_s/fleet_day_batch,"
                    f"fleet_day_prefill_tensor_parallel*fleet_day_ttft_ms/1000+fleet_day_tensor_parallel*{O}"
                    "*fleet_day_tpot_ms/1000/fleet_day_batch)"),
        Row("profile", "Demand profile", formula='=IF(fleet_profile="cluster",cluster_profile,fleet_profile)',
            kind="text", unit="", name="fleet_day_profile"),
        Row("peak_fraction", "Its busiest hour's share", kind="percent", unit="", name="fleet_day_peak_fraction",
            formula="=INDEX(catalog_profile_peak,1,MATCH(fleet_day_profile,catalog_profile_ids,0))")],
        {"gpu_seconds": s["gpu_seconds_per_request"], "profile": s["profile"], "peak_fraction": s["peak_fraction"]})
    first, last = _hours(sheet, table.day, table.day_queues())
    _day_chart(book, sheet)
    for key, label, formula, kind in DAY_TOTALS:
        sheet.row(Row(f"day_{key}", label, formula=formula, kind=kind, unit="", name=DAY_NAMES.get(key)), s[key])
    sheet.text("The fleet that follows demand starts replicas within the hour (no scale-up lag, no cold start): a "
               "floor for what autoscaling saves.", style=book.styles.note)
    return first, last


def _hours(sheet: kit.Sheet, hours: list[dict], helpers: list[dict]) -> tuple[int, int]:
    """The 24 hours, and beside them (in the Candidates table's helper columns, grouped out of sight) what their
    misses read (`helpers`: the engine's FleetTable.day_queues)."""
    styles = sheet.book.styles
    header = sheet.heading_row(["Hour"] + [c.header for c in DAY_COLUMNS], height=60)
    first, last = header + 1, header + len(hours)
    placed = [*enumerate(DAY_COLUMNS, start=1), *enumerate(DAY_HELPERS, start=PASS_COL)]
    for col, column in placed:
        sheet.places[column.key] = kit.Place("column", first, col, last, col)
        if column.key in FLEET_HOURLY:
            sheet.book.define(f"fleet_hour_{column.key}", SHEET, f"{kit.xl_rowcol_to_cell(first, col, True, True)}:"
                                                                f"{kit.xl_rowcol_to_cell(last, col, True, True)}")
    for col, column in enumerate(DAY_HELPERS, start=PASS_COL):
        sheet.ws.write_string(header, col, column.header, styles.header)
    for i, (hour, helper) in enumerate(zip(hours, helpers, strict=True)):
        r = first + i
        sheet._label(r, hour["hour"])
        for col, column in placed:
            value = hour.get(column.key, helper.get(column.key))
            value = "" if value is None else value
            if column.role == "input":  # the search's integer: a locked snapshot (grey), as generated
                sheet.value_cell(r, col, value, styles.value("count", constant=True), None)
            else:
                sheet.formula(r, col, sheet.expand(column.template, r, col, {"label": kit.xl_rowcol_to_cell(r, 0)}),
                              value, styles.value(column.kind))
    for key in ("meets", "fewest"):
        sheet.warn("false", first, DAY_COLUMN[key], last, DAY_COLUMN[key])
    sheet.row_index = last + 1
    return first, last


def _day_chart(book: kit.Book, sheet: kit.Sheet) -> None:
    chart = book.wb.add_chart({"type": "column"})
    chart.add_series({"name": "GPUs following demand", "values": sheet.series("gpus_following"),
                      "fill": {"color": "#4472C4"}})
    line = book.wb.add_chart({"type": "line"})
    line.add_series({"name": "GPUs sized for the peak", "values": sheet.series("gpus_peak_sized"),
                     "line": {"color": "#ED7D31", "width": 2}})
    line.add_series({"name": "Busy GPUs (the work)", "values": sheet.series("busy_gpus"),
                     "line": {"color": "#A5A5A5", "width": 2, "dash_type": "dash"}})
    chart.combine(line)
    sheet.chart(chart, height=300, title="GPUs over the day: sized for the peak against following demand",
                x_axis={"name": "Hour"},
                y_axis={"name": "GPUs", "num_format": "#,##0", "major_gridlines": {"visible": True}})


KEY_RESULTS = [
    KeyResult("fleet_answer", "The cheapest fleet meeting the SLO at {fleet_peak_rate|decimal} requests per second "
              "at the peak", kind="text", unit=""),
    KeyResult("fleet_cheapest_cost_per_hour", "… its cost per hour", kind="money", unit=""),
    KeyResult("fleet_cheapest_cost_per_acceptable_request", "… per acceptable request", kind="money5", unit=""),
    KeyResult("fleet_mixed_answer", "Prefill and decode on different GPUs (mixed pools, Splitwise)", kind="text",
              unit=""),
]

CHECKS = [
    Check("fleet_mixed_pairs_valid", "Fleet: each mixed pair names two different GPUs of fleet.gpus, none twice",
          formula="fleet_mixed_pairs_valid", note="fleet.mixed_pairs", about=("fleet_mixed_pairs",)),
    Check("fleet_search_within_limit", "Fleet: the search holds at most fleet_max_configurations configurations",
          formula="fleet_configurations<=fleet_max_configurations",
          note="Fewer in fleet.gpus, fleet.precisions, fleet.tensor_parallel or fleet.mixed_pairs"),
    Check("fleet_some_configuration_meets_slo", "Fleet: some configuration meets the SLO",
          formula="OR(NOT(fleet_rows_hold),fleet_feasible_configurations>0)",
          note="Fleet: the Candidates table's Meets column (after an edit the search did not see, the next check fails "
               "instead: its rows no longer say)"),
    Check("fleet_pool_inputs_form", "Fleet: with a mixed cheapest fleet, ownership.gpus and "
          "pricing.serving_baseline_gpus are blank on Inputs (its pools take a pair)",
          formula='OR(fleet_cheapest_mixed<>TRUE,AND(ownership_gpus="",pricing_serving_baseline_gpus=""))',
          note="ownership.gpus, pricing.serving_baseline_gpus: one number prices one GPU type; give a pair "
               "{prefill: n, decode: m} in the scenario (docs/method.md §11, mixed GPU pools: the plan per pool) "
               "or leave them blank"),
    Check("fleet_rows_hold", "Fleet: the search's batches and replicas hold at these inputs",
          formula="fleet_rows_hold", note="FALSE after an edit the search did not see: run the planner again"),
    Check("fleet_gpus_priced", "Fleet: every GPU searched has a price per GPU-hour above 0 on Catalog",
          formula="COUNTIF(fleet_candidate_priced,FALSE)=0",
          note="A GPU priced 0 or blank is never the cheapest; the plan's serving money reads n/a until it has one",
          label_formula='": "&INDEX(fleet_candidate_gpu,MATCH(FALSE,fleet_candidate_priced,0))&"\'s price is in "&'
                        "{catalog_cell:catalog_gpu_price_per_hour,catalog_gpu_ids,"
                        "INDEX(fleet_candidate_gpu,MATCH(FALSE,fleet_candidate_priced,0))}"),
]
