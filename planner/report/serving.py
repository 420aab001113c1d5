"""The Serving section of the HTML summary (docs/method.md §6): sentences and charts."""

from __future__ import annotations

from markupsafe import Markup

from planner.report import plot
from planner.report.format import gb, money, number, percent

SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("serving_max_concurrency", "Sequences that fit", "count"),
    ("serving_ttft_ms", "TTFT (ms)", "tenths"),
    ("serving_cost_per_million_tokens", "Cost per M output tokens", "money"),
]


def _layout(sv, s: dict) -> list[str]:
    """Expert and attention data parallelism in words (docs/method.md §14), where the replica has them."""
    e, d_a = sv.expert_parallel, sv.attention_data_parallel
    if e == 1 and d_a == 1:
        return []
    found = [f"The replica is {number(d_a)} attention rank{'s' if d_a > 1 else ''} of {number(sv.tensor_parallel)} "
             f"GPU{'s' if sv.tensor_parallel > 1 else ''} with the routed experts spread over {number(e)} GPUs: each "
             f"rank holds its own sequences' KV cache ({number(s['rank_sequences'])} of the {number(sv.users)} users "
             f"on the busiest), and the decode step's all-to-all takes {s['all_to_all_ms']:,.2f} ms at the users "
             "(docs/method.md §14)."]
    if not s["experts_busy"]:
        found.append("At these users fewer than one token reaches each expert per step (k·n/E < 1): the all-to-all "
                     "is latency-bound and expert load imbalance, which the planner does not model, matters most.")
    return found


def findings(results) -> list[str]:
    scenario, s = results.scenario, results.serving.scalars
    sv, symbol = scenario.serving, scenario.currency_symbol
    g = s["gpus_per_replica"]  # t·d_a (§14.5): t without attention data parallelism
    replica = f"{number(g)} {scenario.gpu} GPU{'s' if g > 1 else ''}"
    precision = f"{sv.weight_precision} weights and {sv.kv_precision} KV cache"
    if s["max_concurrency"] == 0:
        fit = (f"Serving {scenario.model} on {replica} with {precision}: not one {number(sv.sequence_length)}-token "
               f"sequence fits (the weights take {gb(s['weights_gb'])} GB per GPU of "
               f"{gb(s['pool_gb'] + s['weights_gb'])}"
               f" GB after the reserve).")
    else:
        fit = (f"Serving {scenario.model} on {replica} with {precision}: {number(s['max_concurrency'])} sequences of "
               f"{number(sv.sequence_length)} tokens fit ({gb(s['weights_gb'])} GB of weights and "
               f"{s['kv_bytes_per_token'] / 1024:,.4g} KiB of KV cache per token per GPU); "
               f"{number(sv.users)} users {'fit' if s['fits'] else 'do not fit'}.")
    sentences = [fit,
                 f"A {number(sv.prompt_tokens)}-token prompt on an idle server gets its first token in "
                 f"{s['ttft_ms']:,.1f} ms; one sequence alone decodes a token every {s['tpot_ms_single']:,.2f} ms."]
    sentences.append(f"Engine {sv.engine}: the engines row {s['engine_row']} gives the priors (η_c "
                     f"{percent(s['compute_efficiency_in'])}, η_m {percent(s['bandwidth_efficiency_in'])} where not "
                     f"typed); every pass pays an overhead of {s['pass_overhead_ttft_ms']:,.2f} ms for one sequence "
                     f"and {s['pass_overhead_ms']:,.2f} ms at {number(sv.users)} (τ_pass, docs/method.md §14.2).")
    sentences.append(f"Accuracy ledger for {scenario.gpu} and engine {sv.engine}: {s['ledger_figure']}.")
    if s["fits"]:
        sentences.append(f"As {number(sv.users)} clients of a closed-loop benchmark ({number(sv.client_rounds)} "
                         f"requests each, a prefill budget of {number(s['prefill_token_budget_in'])} tokens), the "
                         f"median TTFT is {s['ttft_median_at_concurrency_ms']:,.1f} ms and the mean "
                         f"{s['ttft_at_concurrency_ms']:,.1f} ms, the opening burst included (a mean over the run, "
                         "not a percentile; docs/method.md §14.4).")
    per_million = (f"{money(s['cost_per_million_tokens'], symbol, 3)} per million" if s["fits"] else
                   "no cost per million (n/a: the users do not fit)")
    sentences.append(f"At {number(sv.users)} users each token takes {s['tpot_ms']:,.2f} ms ({s['itl_ms']:,.2f} ms "
                     f"between tokens under load, prefill included): {s['tokens_per_s_per_gpu']:,.0f} output "
                     f"tokens per second per GPU, {per_million}, at a serving MFU of {percent(s['mfu'])}.")
    sentences += _layout(sv, s)
    spec = sv.speculative
    if spec.method != "none":
        draft = "a draft head of the model's own" if spec.method == "mtp" else f"{spec.draft_model} as the draft"
        sentences.append(f"Speculative decoding with {draft} (k = {number(s['draft_tokens_used'])}): "
                         f"{s['tokens_per_step']:,.2f} tokens per verify step, so at {number(sv.users)} users a token "
                         f"every {s['tpot_ms']:,.2f} ms against {s['tpot_ms_plain']:,.2f} ms without "
                         f"({s['speculation_speedup']:,.2f}×"
                         f"{'; it does not pay here' if s['speculation_speedup'] < 1 else ''}).")
    if sv.prefix_hit_rate > 0:
        sentences.append(f"{percent(sv.prefix_hit_rate)} of each prompt comes from the prefix cache: "
                         f"{number(sv.prompt_tokens - s['cached_tokens'])} of {number(sv.prompt_tokens)} tokens are "
                         "prefilled (each sequence still reserves its whole length in memory).")
    if s["max_concurrency"] > 0:
        sentences.append(f"Filled to B_max = {number(s['max_concurrency'])}: "
                         f"{s['tokens_per_s_per_gpu_at_max']:,.0f} tokens per second per GPU, "
                         f"{money(s['cost_per_million_tokens_at_max'], symbol, 3)} per million output tokens.")
    for run in results.serving.calibration:
        if run["implied_bandwidth_efficiency"] != "":
            sentences.append(f"Benchmark run {run['run']} ({run['gpu']}, {run['mean_concurrency']:,.1f} requests in "
                             f"flight): median TPOT {run['measured_tpot_ms']:,.1f} ms measured against "
                             f"{run['predicted_tpot_ms']:,.1f} ms predicted, which implies η_m = "
                             f"{percent(run['implied_bandwidth_efficiency'])}.")
    return sentences


def charts(results) -> dict[str, Markup]:
    rows = [row for row in results.serving.rows if row["batch"] not in ("", None) and row["tpot_ms"] != ""]
    rows.sort(key=lambda row: row["batch"])
    return {"curve": _curve(rows), "latency": _latency(rows), "stack": _stack(rows)}


def _curve(rows) -> Markup:
    chart = plot.Chart("Throughput and latency against concurrency", x_label="Sequences B",
                       y_label="Tokens per second per GPU")
    batches = [row["batch"] for row in rows]
    chart.xy("Tokens per second per GPU", batches, [row["tokens_per_s_per_gpu"] for row in rows], plot.BLUE,
             markers=True)
    return chart.svg()


def _latency(rows) -> Markup:
    chart = plot.Chart("Inter-token latency under load", x_label="Sequences B", y_label="ITL (ms)")
    chart.xy("ITL (ms)", [row["batch"] for row in rows], [row["itl_ms"] for row in rows], plot.RED, markers=True)
    return chart.svg()


def _stack(rows) -> Markup:
    chart = plot.Chart("GPU memory at each B", y_label="GB per GPU", x_label="Sequences B")
    chart.columns([number(row["batch"]) for row in rows],
                  [("Weights", [row["weights_gb"] for row in rows], plot.BLUE),
                   ("KV cache", [row["kv_gb"] for row in rows], plot.YELLOW),
                   ("Reserve", [row["reserve_gb"] for row in rows], plot.GREY),
                   ("Free", [max(0.0, row["free_gb"]) for row in rows], plot.GREEN)], stacked=True)
    return chart.hline(rows[0]["capacity_gb"] if rows else 0, "GPU memory").svg()

