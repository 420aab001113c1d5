"""The Layouts table's inputs (docs/method.md §10), the `search:` section: the GPU budget, the deadline, the global
batch, the usable share of memory, the reference layouts to show beside the search (a field left out is searched)
and the step-time model's flags. Without `search:` a scenario has no Layouts table."""

from __future__ import annotations

import math
from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field

from planner.model import fields
from planner.scenario.declare import COUNT_MAX, Section, declared, whole


class ReferenceLayout(Section):
    """One layout to show beside the search: a field left out is searched (the fastest layout that fits)."""

    model_config = ConfigDict(title="Reference layout")

    gpus: whole(1) | None = declared(None, "GPUs N", "GPUs", "Blank: searched.", kind="count", blank=True)
    tensor_parallel: whole(1) | None = declared(None, "Tensor parallel t", "GPUs", "Blank: searched.", kind="count",
                                                blank=True)
    pipeline_parallel: whole(1) | None = declared(None, "Pipeline parallel p", "stages", "Blank: searched.",
                                                  kind="count", blank=True)
    context_parallel: whole(1) | None = declared(None, "Context parallel c", "GPUs", "Blank: searched.",
                                                 kind="count", blank=True)
    micro_batch: whole(1) | None = declared(None, "Micro-batch b", "sequences", "Blank: searched.", kind="count",
                                            blank=True)
    interleave: whole(1) | None = declared(None, "Interleave v", "virtual stages", "Blank: searched.", kind="count",
                                           blank=True)
    zero: whole(0, 3) | None = declared(None, "ZeRO stage", "", "0 = DDP … 3; blank: searched.", kind="count",
                                        blank=True)
    recompute: Literal["none", "selective", "full"] | None = declared(None, "Recompute", "", "none, selective or "
                                                                       "full; blank: searched.", kind="text",
                                                                       blank=True)


class Search(Section):
    model_config = ConfigDict(title="Layout search")
    optional: ClassVar[bool] = True  # without `search:` the scenario has no Layouts table

    gpus_max: whole(1, COUNT_MAX) = declared(16384, "GPU budget N_max", "GPUs", "The most GPUs a layout may use; "
                                             "layouts use whole nodes.", kind="count")
    deadline_days: Annotated[float, Field(ge=0.01, le=36500)] | None = declared(
        None, "Deadline", "days", "The cheapest layouts must finish within it; blank: no deadline.", kind="decimal",
        blank=True)
    global_batch: whole(1, COUNT_MAX) = declared(1024, "Global batch B", "sequences", "Sequences per optimizer step, "
                                                 "each of the training sequence length (Memory).", kind="count")
    headroom: Annotated[float, Field(ge=0.1, le=1)] = declared(
        0.95, "Usable share of GPU memory", "of GiB", "Of the GPU's memory counted in GiB (2^30 bytes), as "
        "frameworks count it.", kind="percent")
    layouts: Annotated[list[ReferenceLayout], Field(max_length=20)] = declared([], "Reference layout")
    flash_attention: bool = declared(True, "FlashAttention", "", "No attention scores kept or moved.", kind="bool")
    sequence_parallel: bool = declared(True, "Sequence parallelism", "", "Splits the activations that t does not "
                                       "(when t > 1).", kind="bool")
    tp_overlap: bool = declared(False, "Tensor-parallel overlap", "", "The all-reduces hidden behind the GEMMs.",
                                kind="bool")
    dp_overlap: bool = declared(True, "Data-parallel overlap", "", "The gradient reduce hidden behind the critical "
                                "stage's work.", kind="bool")
    grad_reduce_bytes: Annotated[whole(2, 4), Field(multiple_of=2)] = declared(
        2, "Bytes per reduced gradient", "bytes", "2: BF16; 4: an FP32 reduce.", kind="count")
    fsdp_regather: bool = declared(True, "ZeRO-3 gathers per micro-batch", "", "ZeRO-3 gathers the weights again "
                                   "for every micro-batch.", kind="bool")
    balanced_stages: bool = declared(False, "Balanced stages", "", "The first and last stage hold one layer fewer "
                                     "(as Llama 3 did): the slowest stage is a middle one.", kind="bool")


SECTIONS = {"search": Search}
SEARCHED_GPU_FIELDS = fields.needed_by(fields.GPU, fields.SEARCH)


def _refused(scenario, model) -> str:
    """Why §10 does not cover this scenario ("" when it does): dense models trained in BF16 only."""
    if model.experts:
        return f"{model.id} is a mixture of experts"
    if model.kv_lora_rank:
        return f"{model.id} uses multi-head latent attention"
    if scenario.training_precision != "bf16":
        return f"training_precision is {scenario.training_precision}"
    return ""


def cross_checks(scenario, catalog) -> list:
    """What §10's step-time model needs, and the rules of its grid where a reference layout or the search inputs
    break them: the model dense and trained in BF16; the GPU's NVLink, network and GEMM share known; a GPU budget
    of at least one node; the search's rules for each reference layout's given fields."""
    search = scenario.search
    if search is None:
        return []
    from planner.engine import layouts as engine  # the grid's rules are the engine's

    model, gpu = catalog.models[scenario.model], catalog.gpus[scenario.gpu]
    refused = _refused(scenario, model)
    if refused:
        return [(("search",), None, f"the layout search covers dense models trained in BF16 (docs/method.md §10): "
                 f"{refused}; leave out search:")]
    problems = [(("catalog", "gpus", gpu.id, key), None, f"the layout search needs the {gpu.id}'s {key}")
                for key in SEARCHED_GPU_FIELDS if not getattr(gpu, key)]
    if search.gpus_max < gpu.gpus_per_node:
        problems.append((("search", "gpus_max"), search.gpus_max, f"a GPU budget of {search.gpus_max:,} is below "
                         f"one node of {gpu.gpus_per_node} {gpu.id} GPUs: every layout uses whole nodes"))
    if problems:
        return problems
    step_tokens = search.global_batch * scenario.memory.sequence_length
    if step_tokens > scenario.hours.tokens:  # not one optimizer step: no step time makes a training run
        return [(("search", "global_batch"), search.global_batch, f"a global batch of {search.global_batch:,} "
                 f"sequences of {scenario.memory.sequence_length:,} tokens is {step_tokens:,} tokens a step, more "
                 f"than all {scenario.hours.tokens:,} training tokens (hours.tokens): fewer than one optimizer step")]
    q = engine.problem(scenario, catalog)  # the search itself runs once per variant written (hours.mfu: layout)
    for i, ref in enumerate(search.layouts):
        at = ("search", "layouts", i)
        fixed = {key: value for key, value in ref.model_dump().items() if value is not None}
        for key, value in fixed.items():
            reasons = engine.FIELD_RULES[key](q, value)
            if reasons:
                allowed = _allowed(q, key)
                problems.append(((*at, key), value, "; ".join(reasons) + (f"; allowed: {allowed}" if allowed else "")))
        for reason in engine.fixed_join_reasons(q, fixed):
            problems.append(((*at, "gpus" if "gpus" in fixed else "interleave"), None, reason))
        group = [fixed.get(k) for k in ("gpus", "tensor_parallel", "pipeline_parallel", "context_parallel")]
        if None not in group and group[0] % (group[1] * group[2] * group[3]) == 0:
            d, b = group[0] // (group[1] * group[2] * group[3]), fixed.get("micro_batch", 1)
            if search.global_batch % (d * b):
                problems.append((("search", "global_batch"), search.global_batch, f"reference layout {i + 1} has "
                                 f"d = {d:,} data-parallel replicas of micro-batch {b}: the global batch must be a "
                                 f"multiple of d·b = {d * b:,}"))
    return problems or _size(scenario, q)


def _size(scenario, q) -> list:
    """The candidate layouts a run evaluates, estimated before any is: the scenario's search and its distinct
    reference layouts with a blank field (three times with hours.mfu: layout), once more for each named scenario
    that changes what the search reads (the model, the GPU, its price or the FX rate, the sequence length or the
    tokens); refused above engine.SEARCH_MAX, naming the keys that set it."""
    from planner.engine import layouts as engine

    search = scenario.search
    each = engine.scenario_size(scenario, q)
    runs = len({tuple(changes.get(key) for key in engine.PROBLEM_KEYS)  # one search per problem (it is cached)
                for changes in [{}, *(scenario.scenarios or {}).values()]})
    if each * runs <= engine.SEARCH_MAX:
        return []
    batch = search.global_batch
    divisors = len({d for i in range(1, math.isqrt(batch) + 1) if batch % i == 0 for d in (i, batch // i)})
    layout = f", {engine.LAYOUT_MFU_SEARCHES} times over (hours.mfu: layout)" if scenario.hours.mfu == "layout" else ""
    blank = len({tuple(ref.model_dump().items()) for ref in search.layouts if None in ref.model_dump().values()})
    return [(("search",), None, f"the layout search would evaluate about {each * runs:.3g} candidate layouts, above "
             f"the {engine.SEARCH_MAX:.0e} a run may: {each:,} for the search and its {blank} distinct reference "
             f"layouts with a blank field (search.layouts){layout}, for each of {runs} searches (this scenario's and "
             f"one for each of scenarios that changes {', '.join(engine.PROBLEM_KEYS)}); the grid grows with "
             f"search.gpus_max ({search.gpus_max:,}) and the {divisors:,} divisors of search.global_batch "
             f"({batch:,}): give fewer reference layouts or more of their fields, fewer scenarios, a smaller "
             "search.gpus_max or a global batch with fewer divisors")]


def _allowed(q, key: str) -> str:
    """The values the search allows for a field that has a short list of them (t, c, b), in words."""
    from planner.engine import layouts as engine

    grid = {"tensor_parallel": engine.TENSOR_PARALLEL, "context_parallel": engine.CONTEXT_PARALLEL,
            "micro_batch": engine.MICRO_BATCH}.get(key)
    if grid is None:
        return ""
    return ", ".join(str(v) for v in grid if not engine.FIELD_RULES[key](q, v))
