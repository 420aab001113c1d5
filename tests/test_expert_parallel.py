"""METHOD.md §14.5 (D): expert parallelism e and attention data parallelism d_a, from the scenario through the
engine. Example 5 (DeepSeek-V3, FP8 weights and KV, 8×H200, s 2,048, o 512, A on) in its three layouts, its
closed-loop table and its DEP8 workings, and the Mixtral note; each expected number is METHOD's, typed to the precision
it prints. With e = d_a = 1 every number is §6's; a layout the method does not allow is refused, naming its key."""

from __future__ import annotations

import pytest

from planner.engine import Tables
from planner.engine.serving import replica_of
from planner.scenario import parse_scenario
from tests.helpers import refused

LAYOUTS = {"TP8": {"tensor_parallel": 8},
           "TP8·EP8": {"tensor_parallel": 8, "expert_parallel": 8},
           "DEP8": {"tensor_parallel": 1, "attention_data_parallel": 8, "expert_parallel": 8}}


def scenario(layout: str, users=64, **changes):
    return parse_scenario({"name": "§14.5", "model": "deepseek-v3", "gpu": "h200", "serving": {
        "users": users, "sequence_length": 2560, "prompt_tokens": 2048, "weight_precision": "fp8",
        "kv_precision": "fp8", **LAYOUTS[layout], **changes}}).shown()


def serving(layout: str, users=64, **changes):
    return Tables(scenario(layout, users, **changes))["serving"]


def close(value, expected, decimals):
    assert round(value, decimals) == pytest.approx(expected, abs=10 ** -decimals / 2), (value, expected)


# layout: W_g GB, B_max, TTFT ms, TPOT(64) ms, TPOT(B_max) ms, tokens/s/GPU at B_max, $/M at B_max
EXAMPLE_5 = {"TP8": (83.88, 478, 41.94, 27.05, 44.85, 778.0, 0.8926),
             "TP8·EP8": (83.88, 478, 42.40, 27.52, 45.32, 773.3, 0.8980),
             "DEP8": (98.86, 2488, 144.18, 29.40, 49.06, 1730.0, 0.4014)}


@pytest.mark.parametrize("layout", EXAMPLE_5)
def test_example_5_each_layout(layout):
    s = serving(layout).scalars
    w_g, b_max, ttft, tpot_64, tpot_max, tokens, money = EXAMPLE_5[layout]
    close(s["weights_gb"], w_g, 2)
    assert s["max_concurrency"] == b_max
    close(s["ttft_ms"], ttft, 2)
    close(s["tpot_ms"], tpot_64, 2)
    close(s["tpot_ms_at_max"], tpot_max, 2)
    close(s["tokens_per_s_per_gpu_at_max"], tokens, 1)
    close(s["cost_per_million_tokens_at_max"], money, 4)
    assert s["gpus_per_replica"] == 8


def test_example_5_the_parameters_expert_parallelism_splits():
    s = serving("DEP8").scalars
    assert s["routed_params"] == 58 * 256 * 3 * 7168 * 2048 == 653_908_770_816
    assert s["nonrouted_params"] == 16_190_954_496


def test_example_5_tp8_ep8_trades_the_second_all_reduce_for_the_all_to_all():
    """At B_max 478: AR 4.23 → 2.22 ms, A2A 2.47 ms; the same bytes as TP8."""
    tp, ep = (replica_of(scenario(layout)) for layout in ("TP8", "TP8·EP8"))
    close(tp.all_reduce(478) * 1000, 4.23, 2)
    close(ep.all_reduce(478) * 1000, 2.22, 2)
    close(ep.all_to_all(478) * 1000, 2.47, 2)
    assert tp.all_to_all(478) == 0
    assert ep.decode_pieces(478, ep.target)["memory"] == pytest.approx(tp.decode_pieces(478, tp.target)["memory"],
                                                                       rel=1e-12)


def test_example_5_dep8_by_hand():
    """Memory: pool 28.04 GB, 311 sequences of 89.95 MB per rank; decode at B_max (b 311): compute 26.64 ms, memory
    36.64 ms, A2A 8.97 ms, τ_pass(311) 3.45 ms; T_pre(2,488) 66.93 s, cycle 92.04 s; TTFT: 88.19 ms of compute and
    an all-to-all of 53.91 ms."""
    r = replica_of(scenario("DEP8"))
    close(r.pool / 1e9, 28.04, 2)
    close((r.s + r.o) * r.kv_g / 1e6, 89.95, 2)
    assert r.rank_sequences(2488) == 311
    decode = r.decode_pieces(2488, r.target)
    close(decode["compute"] * 1000, 26.64, 2)
    close(decode["memory"] * 1000, 36.64, 2)
    close(r.all_to_all(311) * 1000, 8.97, 2)
    close(r.pass_overhead(311) * 1000, 3.45, 2)
    close(r.prefill_s(2488), 66.93, 2)
    close(r.cycle_s(2488), 92.04, 2)
    idle = r.prefill_pieces(1, r.target)
    close(idle["compute"] * 1000, 88.19, 2)
    close(r.all_to_all(2048) * 1000, 53.91, 2)


# layout: TTFT_c(1), then at c = 64: b, κ, m, T_fill(κ, 64), T_fill(1, 64), ITL(64), TTFT_c(64), TTFT_med(64), ms
CLOSED_LOOP = {"TP8": (90.74, 64, 4, 16, 141.21, 44.16, 31.34, 222.67, 108.63),
               "TP8·EP8": (91.20, 64, 4, 16, 141.67, 44.63, 31.80, 223.69, 109.33),
               "DEP8": (192.98, 8, 4, 2, 864.21, 219.00, 32.77, 390.28, 284.18)}


@pytest.mark.parametrize("layout", CLOSED_LOOP)
def test_example_5_ttft_under_closed_loop_load(layout):
    table = serving(layout)
    s = table.scalars
    at_one, b, kappa, m, fill, fill_one, itl, mean, median = CLOSED_LOOP[layout]
    assert (s["rank_clients"], s["prompts_per_pass"], s["burst_cohorts"]) == (b, kappa, m)
    for key, expected in (("fill_ms", fill), ("fill_one_ms", fill_one), ("itl_at_concurrency_ms", itl),
                          ("ttft_at_concurrency_ms", mean), ("ttft_median_at_concurrency_ms", median)):
        close(s[key], expected, 2)
    row = next(row for row in table.rows if row["batch"] == 1)
    close(row["ttft_at_concurrency_ms"], at_one, 2)
    close(row["ttft_at_concurrency_ms"], 48.8 + s["ttft_ms"], 9)  # δ·L + TTFT at c = 1, in every layout


def test_the_concurrency_table_gives_the_all_to_all_at_each_b():
    """The A2A column: A2A(b) of the decode step, b = CEILING(B/d_a); 0 at e = 1."""
    rows = {row["batch"]: row for row in serving("DEP8").rows if row["batch"] != ""}
    close(rows[2488]["all_to_all_ms"], 8.97, 2)
    assert rows[2488]["pass_overhead_ms"] == pytest.approx(3.45, abs=0.005)  # τ_pass(b), b = 311
    assert all(row["all_to_all_ms"] == 0 for row in serving("TP8").rows if row["batch"] != "")
    close(serving("TP8·EP8", users=478).scalars["all_to_all_ms"], 2.47, 2)


def test_mixtral_gains_nothing_from_attention_data_parallelism():
    """Mixtral-8x7B BF16 on 2×H100 (s 2,048, o 512): B_max 150 at TP2, 140 at DEP2, each rank holding all 8 KV
    heads."""
    def b_max(**layout):
        return Tables(parse_scenario({"name": "mixtral", "model": "mixtral-8x7b", "gpu": "h100-sxm", "serving": {
            "users": 64, "sequence_length": 2560, "prompt_tokens": 2048, **layout}}).shown())["serving"].scalars[
            "max_concurrency"]
    assert b_max(tensor_parallel=2) == 150
    assert b_max(tensor_parallel=1, attention_data_parallel=2, expert_parallel=2) == 140


def test_at_e_and_d_a_one_the_layout_pass_is_section_6s():
    """The general pass of §14.5 at e = d_a = 1 (G = t, n_r = n) equals §6's, piece by piece, for a dense and an MoE
    model: the defaults change nothing."""
    for layout, model in (("TP8", "deepseek-v3"), ("TP8", "llama-3.1-70b")):
        r = replica_of(parse_scenario({"name": "x", "model": model, "gpu": "h200", "serving": {
            "users": 64, "sequence_length": 2560, "prompt_tokens": 2048, "tensor_parallel": 8,
            "weight_precision": "fp8", "kv_precision": "fp8"}}).shown())
        assert not r.laid_out and r.gpus == 8
        attention = 2 * r.layers * r.c_bar * r.width
        for b in (1, 64, 300):
            general, plain = r._rank_pieces(b, 1, attention, r.c_bar), r.decode_pieces(b, r.target)
            for key in plain:
                assert general[key] == pytest.approx(plain[key], rel=1e-12), (model, b, key)
        general = r._rank_pieces(1, r.s, r.layers * r.s ** 2 * r.width, r.s)
        for key, value in r.prefill_pieces(1, r.target).items():
            assert general[key] == pytest.approx(value, rel=1e-12), (model, key)


def test_the_defaults_leave_section_6_as_it_was():
    """METHOD §14.7's reconciliation: DeepSeek-V3 FP8 on 8×H200 (s 2,048, o 512) with the overheads at 0 and e = d_a
    = 1 is §6's replica: W_g = Ψ·b_w/t, B_max = INT(pool/((s + o)·KV_g)), TokS per t GPUs."""
    zero = {"overhead_fixed_ms": 0, "overhead_per_layer_ms": 0, "overhead_per_sequence_ms": 0}
    plain = replica_of(scenario("TP8", **zero))
    assert plain.w_g == plain.params * plain.b_w / 8
    assert plain.b_max == int(plain.pool / (2560 * plain.kv_g))
    s = serving("TP8", **zero).scalars
    assert s["all_to_all_ms"] == 0 and s["gpus_per_replica"] == 8
    assert s["tokens_per_s_per_gpu"] == pytest.approx(64 * 512 / (plain.cycle_s(64) * 8), rel=1e-15)


@pytest.mark.parametrize("model, layout, key, words", [
    ("deepseek-v3", "tensor_parallel: 1\n  expert_parallel: 3\n  attention_data_parallel: 3", "expert_parallel",
     "divides the 256 routed experts"),
    ("deepseek-v3", "tensor_parallel: 8\n  expert_parallel: 4", "expert_parallel", "t · d_a = 8"),
    ("llama-3.1-70b", "tensor_parallel: 1\n  expert_parallel: 2\n  attention_data_parallel: 2",
     "expert_parallel", "dense model"),
    ("llama-3.1-70b", "tensor_parallel: 4\n  attention_data_parallel: 2", "attention_data_parallel", "dense model"),
    ("deepseek-v3", "tensor_parallel: 2\n  attention_data_parallel: 8\n  expert_parallel: 16",
     "attention_data_parallel", "GPUs per node"),
    ("deepseek-v3", "tensor_parallel: 1\n  attention_data_parallel: 8", "attention_data_parallel", "with e = 1"),
    ("deepseek-v3", "attention_data_parallel: 9", "attention_data_parallel", "8"),
    ("deepseek-v3", "expert_parallel: 0", "expert_parallel", "1"),
])
def test_a_layout_the_method_does_not_allow_is_refused(tmp_path, model, layout, key, words):
    output, _ = refused(tmp_path, f"name: bad\nmodel: {model}\ngpu: h200\nserving:\n  {layout}\n")
    assert key in output and words in output, output


def test_a_layout_refuses_what_it_does_not_model(tmp_path):
    output, _ = refused(tmp_path, "name: bad\nmodel: deepseek-v3\ngpu: h200\nserving:\n  tensor_parallel: 8\n"
                                  "  expert_parallel: 8\n  weight_precision: fp8\n  speculative:\n    method: mtp\n")
    assert "speculative" in output and "not modelled" in output, output


EXAMPLE = "examples/serving-8-deepseek-v3-dep8-h200.yaml"
SWITCHED = {"TP8": {"serving_tensor_parallel": 8, "serving_attention_data_parallel": 1, "serving_expert_parallel": 1},
            "TP8·EP8": {"serving_tensor_parallel": 8, "serving_attention_data_parallel": 1}}


@pytest.mark.spreadsheet
def test_example_5_on_the_serving_sheet(spreadsheet, example_files, tmp_path):
    """Example 5 on the Serving sheet, recalculated: the DEP8 example as written, and its copies switched on Inputs
    to TP8·EP8 and to TP8. Every formula cell equals the engine on the workbook's own inputs, and the named results
    are METHOD's figures, in LibreOffice and in Gnumeric."""
    from pathlib import Path

    from tests.helpers import build_in_memory, named, recalculated, scenario_with, set_cells

    dep8 = example_files(EXAMPLE)["xlsx"]
    copies = {layout: tmp_path / f"{i}.xlsx" for i, layout in enumerate(SWITCHED)}
    expected = [None]
    for layout, copy in copies.items():
        set_cells(dep8, copy, SWITCHED[layout])
        changes = {key.replace("serving_", "serving.", 1): value for key, value in SWITCHED[layout].items()}
        expected.append(build_in_memory(scenario_with(Path(EXAMPLE), **changes), like=copy))
    paths = {"DEP8": dep8, **copies}
    found = dict(zip(paths, recalculated(spreadsheet, list(paths.values()), expected)))
    for layout, values in found.items():
        w_g, b_max, ttft, tpot_64, tpot_max, tokens, money = EXAMPLE_5[layout]
        at_one, b, kappa, m, fill, fill_one, itl, mean, median = CLOSED_LOOP[layout]
        for name, expected, decimals in (
                ("serving_weights_gb", w_g, 2), ("serving_max_concurrency", b_max, 0), ("serving_ttft_ms", ttft, 2),
                ("serving_tpot_ms", tpot_64, 2), ("serving_tpot_ms_at_max", tpot_max, 2),
                ("serving_tokens_per_s_per_gpu_at_max", tokens, 1),
                ("serving_cost_per_million_tokens_at_max", money, 4),
                ("serving_rank_clients", b, 0), ("serving_prompts_per_pass", kappa, 0), ("serving_burst_cohorts", m, 0),
                ("serving_ttft_at_concurrency_ms", mean, 2), ("serving_ttft_median_at_concurrency_ms", median, 2),
                ("serving_gpus_per_replica", 8, 0)):
            close(named(values, paths[layout], name), expected, decimals)
        assert named(values, paths[layout], "serving_layout_valid") is True or \
            named(values, paths[layout], "serving_layout_valid") == 1


@pytest.mark.spreadsheet
def test_a_layout_edited_into_one_not_allowed_turns_its_check_false(spreadsheet, example_files, tmp_path):
    """The DEP8 workbook with e = 3 (not t·d_a, nor a divisor of 256) or d_a = 8 with e = 1: the layout's check and
    the master check are FALSE, the results that read the layout say n/a, and no cell shows an error value, in
    LibreOffice and in Gnumeric."""
    from tests.helpers import UNCOMPARED, named, recalculated, set_cells

    dep8 = example_files(EXAMPLE)["xlsx"]
    copies = [tmp_path / "e3.xlsx", tmp_path / "e1.xlsx"]
    set_cells(dep8, copies[0], {"serving_expert_parallel": 3})
    set_cells(dep8, copies[1], {"serving_expert_parallel": 1})
    for values in recalculated(spreadsheet, copies, [UNCOMPARED, UNCOMPARED]):
        errors = [(cell, v) for cell, v in values.items() if isinstance(v, str) and v.startswith(("#", "Err:"))]
        assert errors == []
        for name in ("serving_layout_valid", "ok_serving_layout_valid", "checks_all_pass"):
            assert named(values, dep8, name) in (False, 0), name
        for name in ("serving_all_to_all_ms", "serving_gpus_per_replica", "serving_max_concurrency",
                     "serving_ttft_ms", "serving_tokens_per_s_per_gpu", "serving_ttft_at_concurrency_ms"):
            assert str(named(values, dep8, name)).startswith("n/a"), (name, named(values, dep8, name))


def test_the_summary_says_the_layout_in_words():
    """The HTML's Serving findings name the replica's G GPUs and its ranks, and the all-to-all at the users: DEP8 at
    64 users has b = 8 on each rank and A2A(8) = 116·(8 µs + 8·8·7168·2·(7/8)/450e9) = 1.135 ms."""
    from planner.output import computed
    from planner.report.serving import findings
    from planner.scenario import load_scenario

    results = computed(load_scenario(EXAMPLE))
    close(results.serving.scalars["all_to_all_ms"], 1.135, 3)
    words = " ".join(findings(results))
    assert "on 8 h200 GPUs" in words and "8 attention ranks of 1 GPU" in words, words
    assert "8 of the 64 users on the busiest" in words and "all-to-all takes 1.13 ms" in words, words
