"""The Serving table's inputs (docs/method.md §6): the users served at once, their sequence and prompt lengths, the
replica's tensor parallelism, the weight and KV precisions, and the roofline's efficiencies, reserve and overhead.
Memory's serving rows read the same inputs."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import ConfigDict, Field

from planner.model import engines
from planner.model.engines import GENERIC, SYMBOLS
from planner.model.fields import DRAFT_DEFAULTS, ENGINE, named
from planner.scenario.catalog_entries import annotation
from planner.scenario.declare import Count, EngineId, ModelId, PrecisionId, Section, declared, divisors, whole
from planner.scenario.errors import quoted, unknown

MAX_TENSOR_PARALLEL = 8  # one node's NVLink domain: the all-reduce model holds within it
MAX_ATTENTION_DATA_PARALLEL = 8  # d_a: attention ranks per replica (§14.1)
MAX_EXPERT_PARALLEL = MAX_TENSOR_PARALLEL * MAX_ATTENTION_DATA_PARALLEL  # e = t·d_a at most
MAX_DRAFT_TOKENS = 16  # k: drafts beyond a few tokens are rarely accepted whole


def prior(key: str):
    """An engine prior's input type: the Catalog column's (planner/model/fields.py ENGINE), or blank."""
    return annotation(named(ENGINE)[key]) | None


def prior_input(key: str):
    """An engine prior's input: blank takes the prior of the engines row that applies (§14.1, §14.3)."""
    f = named(ENGINE)[key]
    return declared(None, f.label, f.unit, f"{f.note} Blank: the engine row's prior ({f.default:g} generic).",
                    kind=f.kind, blank=True, symbol=SYMBOLS[key])


class Speculative(Section):
    """Speculative decoding (docs/method.md §12.2): a draft proposes k tokens, the model verifies them in one pass."""

    model_config = ConfigDict(title="Speculative decoding")

    method: Literal["none", "mtp", "draft"] = declared(
        "none", "Speculative decoding", "", "none; mtp: self-drafting layers beside the model (DeepSeek-V3's "
        "multi-token prediction, EAGLE); draft: a smaller Catalog model.", kind="text")
    tokens: whole(1, MAX_DRAFT_TOKENS) | None = declared(
        None, "Draft tokens k", "tokens", "Tokens drafted per verify step. Left out: 1 for mtp, 4 for draft.",
        kind="count", blank=True)
    acceptance: Annotated[float, Field(ge=0, le=1)] | None = declared(
        None, "Acceptance α", "per token", "The chance a drafted token is accepted given those before it were "
        "(not vLLM's accepted/draft ratio). Left out: 0.85 for mtp (DeepSeek-V3's 85-90 %), 0.7 for draft.",
        kind="percent", blank=True)
    accept_length: Annotated[float, Field(ge=1, le=MAX_DRAFT_TOKENS + 1)] | None = declared(
        None, "Measured tokens per step", "tokens", "From vLLM's counters: 1 + accepted / drafts; replaces the "
        "formula from α. At most k + 1.", kind="decimal", blank=True, symbol="E")
    draft_model: ModelId | None = declared(None, "Draft model", "", "With draft: a Catalog model with the same "
                                           "vocabulary, served at the same t and precisions.", kind="text",
                                           choices="catalog_model_ids", blank=True)
    draft_layers: whole(1, 16) = declared(1, "MTP layers", "layers", "With mtp: layers shaped like the model's "
                                          "last, with a 2h×h projection, sharing its embedding and head.",
                                          kind="count")


class Serving(Section):
    model_config = ConfigDict(title="Serving")

    users: Count = declared(32, "Concurrent users (sequences served at once)", "users", "Requests served at once; "
                            "each keeps a KV cache of its whole sequence.", kind="count", symbol="u, B")
    sequence_length: whole(2) | None = declared(None, "Serving sequence length", "tokens", "Prompt plus output per "
                                                "request; defaults to the training sequence length.", kind="count")
    prompt_tokens: Count | None = declared(None, "Prompt tokens s", "tokens", "Below the sequence length; defaults to "
                                           "a quarter of it (2,048 of 8,192). Output o = sequence − prompt.",
                                           kind="count")
    tensor_parallel: whole(1, MAX_TENSOR_PARALLEL) = declared(1, "Serving tensor parallel t", "GPUs", "One replica's "
                                                              "GPUs; divides the attention heads, at most 8 (one "
                                                              "node).", kind="count")
    expert_parallel: whole(1, MAX_EXPERT_PARALLEL) = declared(
        1, "Serving expert parallel", "GPUs", "The routed experts sharded whole over e GPUs: 1, or t · d_a (the "
        "replica's GPUs), dividing the model's routed experts (docs/method.md §14.5).", kind="count", symbol="e")
    attention_data_parallel: whole(1, MAX_ATTENTION_DATA_PARALLEL) = declared(
        1, "Serving attention data parallel", "ranks", "Attention ranks per replica, each of t GPUs holding its own "
        "sequences' KV cache; above 1 only with e = t · d_a, for a mixture-of-experts model (DeepSeek's DEP: t 1, "
        "d_a = e).", kind="count", symbol="d_a")
    weight_precision: PrecisionId = declared("bf16", "Weight precision", "", "A precision from Catalog: bits per "
                                             "weight and whether GEMMs run in FP8.", kind="text",
                                             choices="catalog_precision_ids")
    kv_precision: PrecisionId = declared("bf16", "KV-cache precision", "", "A precision from Catalog: only its bytes "
                                         "per KV value are read.", kind="text", choices="catalog_precision_ids")
    engine: EngineId = declared(GENERIC, "Serving engine", "", "A row of Catalog's engines table: the priors of "
                                "the row that applies (engine, GPU, weight precision) fill the blank keys below.",
                                kind="text", choices="catalog_engine_ids")
    compute_efficiency: prior("compute_efficiency") = prior_input("compute_efficiency")
    bandwidth_efficiency: prior("bandwidth_efficiency") = prior_input("bandwidth_efficiency")
    memory_reserve: Annotated[float, Field(ge=0, le=0.9)] = declared(
        0.10, "Memory reserve r", "of GPU memory", "Held back for activations and fragmentation: 1 − vLLM's "
        "gpu_memory_utilization (0.9).", kind="percent")
    overhead_ms: Annotated[float, Field(ge=0, le=1e4)] = declared(0, "Overhead per pass", "ms", "Kernel launches "
                                                                  "and sampling: a knob to calibrate with.",
                                                                  kind="count", symbol="τ")
    overhead_fixed_ms: prior("overhead_fixed_ms") = prior_input("overhead_fixed_ms")
    overhead_per_layer_ms: prior("overhead_per_layer_ms") = prior_input("overhead_per_layer_ms")
    overhead_per_sequence_ms: prior("overhead_per_sequence_ms") = prior_input("overhead_per_sequence_ms")
    overhead_per_moe_layer_ms: prior("overhead_per_moe_layer_ms") = prior_input("overhead_per_moe_layer_ms")
    dispatch_ms_per_layer: prior("dispatch_ms_per_layer") = prior_input("dispatch_ms_per_layer")
    prefill_token_budget: prior("prefill_token_budget") = prior_input("prefill_token_budget")
    client_rounds: Annotated[float, Field(ge=1, le=1e6)] = declared(
        10, "Rounds per client R", "requests per client", "A closed-loop benchmark's requests per client "
        "(num_prompts / c; InferenceMAX runs 10): the share of the opening burst in the mean TTFT at c clients.",
        kind="decimal")
    prefix_hit_rate: Annotated[float, Field(ge=0, le=0.99)] = declared(
        0, "Prefix-cache hit rate h", "of prompt tokens", "The share of prompt tokens served from the prefix cache "
        "(vLLM's hits / queries, in tokens): only the new tokens are prefilled. Below 1.", kind="percent")
    speculative: Speculative = Speculative()
    calibration: Annotated[str, Field(min_length=1, max_length=64)] = declared(
        "none", "Calibrate from the benchmark", "", "none, or a goodput.benchmarks name: η_c, η_m and τ fitted "
        "from its runs stand in for the inputs on its GPU.", kind="text")


SECTIONS = {"serving": Serving}


def canonical(scenario) -> list:
    """The serving sequence follows the training one unless given; the prompt is a quarter of it unless given."""
    sv = scenario.serving
    if sv.sequence_length is None:
        sv.sequence_length = max(2, scenario.memory.sequence_length)
    if sv.prompt_tokens is None:
        sv.prompt_tokens = max(1, sv.sequence_length // 4)
    spec = sv.speculative
    if spec.method != "none":  # the method's own k and α where not given
        k, alpha = DRAFT_DEFAULTS[spec.method]
        spec.tokens = k if spec.tokens is None else spec.tokens
        spec.acceptance = alpha if spec.acceptance is None and spec.accept_length is None else spec.acceptance
    return []


def cross_checks(scenario, catalog) -> list:
    """The precisions in the merged Catalog; a prompt below the sequence length; t that splits the model."""
    sv, problems = scenario.serving, []
    for key in ("weight_precision", "kv_precision"):
        value = getattr(sv, key)
        if value not in catalog.precisions:
            problems.append((("serving", key), value, unknown("precision", value, catalog.precisions)))
    if sv.prompt_tokens >= sv.sequence_length:
        problems.append((("serving", "prompt_tokens"), sv.prompt_tokens, f"the prompt must be shorter than the "
                         f"serving sequence length {sv.sequence_length:,}: at least one output token"))
    model, gpu, t = catalog.models[scenario.model], catalog.gpus[scenario.gpu], sv.tensor_parallel
    if model.heads % t:
        problems.append((("serving", "tensor_parallel"), t, f"tensor parallel {t} does not divide the "
                         f"{model.heads} attention heads of {model.id}; allowed: {divisors(model.heads)}"))
    elif model.kv_heads % t and t % model.kv_heads:
        problems.append((("serving", "tensor_parallel"), t, f"the {model.kv_heads} KV heads of {model.id} can be "
                         f"neither split over nor replicated on {t} GPUs: t must divide them or they t"))
    if t > 1 and not gpu.nvlink_gbps:
        problems.append((("serving", "tensor_parallel"), t, f"tensor parallel {t} needs the {gpu.id}'s NVLink GB/s "
                         f"(catalog.gpus.{gpu.id}.nvlink_gbps) for its all-reduces"))
    engine_ids = engines.engine_ids(catalog.engines)
    if sv.engine not in engine_ids:
        problems.append((("serving", "engine"), sv.engine, f"an engine of Catalog's engines table: "
                         f"{', '.join(quoted(e) for e in engine_ids)} (or add rows under catalog.engines)"))
    names = [b.name for b in scenario.goodput.benchmarks]
    if sv.calibration != "none" and sv.calibration not in names:
        problems.append((("serving", "calibration"), sv.calibration, "none, or the name of one of goodput.benchmarks"
                         + (f": {', '.join(quoted(n) for n in names)}" if names else " (the scenario has none)")))
    return problems + _layout_checks(sv, model, gpu) + _speculative_checks(sv.speculative, model, catalog, t)


def layout_problems(sv, model, gpu) -> list[tuple[str, str]]:
    """What is wrong with the replica's layout (docs/method.md §14.5, §14.7), as (key, what is allowed): e = 1, or
    e = t·d_a dividing the routed experts; d_a > 1 only with e = t·d_a; a layout only for a mixture of experts;
    t·d_a GPUs within one node; its all-to-all on NVLink; no speculative decoding or calibration in a layout (not
    modelled)."""
    t, e, d_a, experts = sv.tensor_parallel, sv.expert_parallel, sv.attention_data_parallel, model.experts or 0
    g, node, found = t * d_a, gpu.gpus_per_node or 8, []
    if (e > 1 or d_a > 1) and experts == 0:
        key = "expert_parallel" if e > 1 else "attention_data_parallel"
        found.append((key, f"1: {model.id} is a dense model (no routed experts), so e = d_a = 1"))
    elif e > 1 and e != g:
        found.append(("expert_parallel", f"1, or t · d_a = {g} (the replica's GPUs, {t} × {d_a})"))
    elif e > 1 and experts % e:
        found.append(("expert_parallel", f"1, or a number that divides the {experts} routed experts of {model.id} "
                      f"and equals t · d_a = {g}"))
    elif d_a > 1 and e == 1:
        found.append(("attention_data_parallel", f"1 with e = 1 (d_a copies of §6's replica are d_a replicas), or "
                      f"set expert_parallel to t · d_a = {g}"))
    if g > node:
        found.append(("attention_data_parallel" if d_a > 1 else "tensor_parallel",
                      f"t · d_a at most the {gpu.id}'s {node} GPUs per node (catalog.gpus.{gpu.id}.gpus_per_node): "
                      "the all-to-all stays on NVLink"))
    if e > 1 and not gpu.nvlink_gbps:
        found.append(("expert_parallel", f"1: expert parallelism needs the {gpu.id}'s NVLink GB/s "
                      f"(catalog.gpus.{gpu.id}.nvlink_gbps) for its all-to-all"))
    return found


def _layout_checks(sv, model, gpu) -> list:
    """The layout's problems, each naming its key; speculative decoding and a calibration are not modelled in a
    layout (e > 1 or d_a > 1)."""
    values = {"expert_parallel": sv.expert_parallel, "attention_data_parallel": sv.attention_data_parallel,
              "tensor_parallel": sv.tensor_parallel}
    problems = [(("serving", key), values[key], f"allowed: {allowed}") for key, allowed in
                layout_problems(sv, model, gpu)]
    if sv.expert_parallel > 1 or sv.attention_data_parallel > 1:
        if sv.speculative.method != "none":
            problems.append((("serving", "speculative", "method"), sv.speculative.method, "none with expert "
                             "parallelism or attention data parallelism (e > 1 or d_a > 1): not modelled"))
        if sv.calibration != "none":
            problems.append((("serving", "calibration"), sv.calibration, "none with expert parallelism or "
                             "attention data parallelism (e > 1 or d_a > 1): benchmark runs are compared at e = "
                             "d_a = 1"))
    return problems


def _speculative_checks(spec, model, catalog, t) -> list:
    """A draft model in the Catalog, with the model's vocabulary and split evenly over t; a measured E within k + 1;
    each key read only by the method that reads it."""
    at, problems = ("serving", "speculative"), []
    if spec.method == "draft":
        if spec.draft_model is None:
            return [(at + ("draft_model",), None, "speculative decoding with a draft needs draft_model, a Catalog "
                     "model id")]
        if spec.draft_model not in catalog.models:
            return [(at + ("draft_model",), spec.draft_model, unknown("model", spec.draft_model, catalog.models))]
        draft = catalog.models[spec.draft_model]
        if draft.vocab != model.vocab:
            problems.append((at + ("draft_model",), spec.draft_model, f"the draft's vocabulary {draft.vocab:,} is not "
                             f"the model's {model.vocab:,}: a draft proposes the model's own tokens"))
        if draft.heads % t or (draft.kv_heads % t and t % draft.kv_heads):
            problems.append((at + ("draft_model",), spec.draft_model, f"the draft's {draft.heads} heads and "
                             f"{draft.kv_heads} KV heads do not split over the serving tensor parallel {t}"))
    elif spec.draft_model is not None:
        problems.append((at + ("draft_model",), spec.draft_model, "a draft model is read only with method: draft"))
    if spec.method == "none":
        given = [key for key in ("tokens", "acceptance", "accept_length") if getattr(spec, key) is not None]
        problems += [(at + (key,), getattr(spec, key), "read only with speculative decoding (method mtp or draft)")
                     for key in given]
    k = spec.tokens or 0
    if spec.accept_length is not None and spec.accept_length > k + 1:
        problems.append((at + ("accept_length",), spec.accept_length, f"at most k + 1 = {k + 1} tokens per verify "
                         "step"))
    return problems
