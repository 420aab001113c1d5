"""The Serving table's inputs (docs/method.md §6): the users served at once, their sequence and prompt lengths, the
replica's tensor parallelism, the weight and KV precisions, and the roofline's efficiencies, reserve and overhead.
Memory's serving rows read the same inputs."""

from __future__ import annotations

from typing import Annotated

from pydantic import ConfigDict, Field

from planner.scenario.declare import Count, PrecisionId, Section, Share, declared, divisors, whole
from planner.scenario.errors import unknown

MAX_TENSOR_PARALLEL = 8  # one node's NVLink domain: the all-reduce model holds within it


class Serving(Section):
    model_config = ConfigDict(title="Serving")

    users: Count = declared(32, "Concurrent users u (sequences B)", "users", "Requests served at once; each keeps a "
                            "KV cache of its whole sequence.", kind="count")
    sequence_length: whole(2) | None = declared(None, "Serving sequence length", "tokens", "Prompt plus output per "
                                                "request; defaults to the training sequence length.", kind="count")
    prompt_tokens: Count | None = declared(None, "Prompt tokens s", "tokens", "Below the sequence length; defaults to "
                                           "a quarter of it (2,048 of 8,192). Output o = sequence − prompt.",
                                           kind="count")
    tensor_parallel: whole(1, MAX_TENSOR_PARALLEL) = declared(1, "Serving tensor parallel t", "GPUs", "One replica's "
                                                              "GPUs; divides the attention heads, at most 8 (one "
                                                              "node).", kind="count")
    weight_precision: PrecisionId = declared("bf16", "Weight precision", "", "A precision from Catalog: bits per "
                                             "weight and whether GEMMs run in FP8.", kind="text",
                                             choices="catalog_precision_ids")
    kv_precision: PrecisionId = declared("bf16", "KV-cache precision", "", "A precision from Catalog: only its bytes "
                                         "per KV value are read.", kind="text", choices="catalog_precision_ids")
    compute_efficiency: Share = declared(0.5, "Compute efficiency η_c", "of peak", "The share of the peak a "
                                         "compute-bound pass (prefill) sustains.", kind="percent")
    bandwidth_efficiency: Share = declared(0.7, "Bandwidth efficiency η_m", "of HBM", "The share of HBM bandwidth a "
                                           "memory-bound pass (decode) sustains.", kind="percent")
    memory_reserve: Annotated[float, Field(ge=0, le=0.9)] = declared(
        0.10, "Memory reserve r", "of GPU memory", "Held back for activations and fragmentation: 1 − vLLM's "
        "gpu_memory_utilization (0.9).", kind="percent")
    overhead_ms: Annotated[float, Field(ge=0, le=1e4)] = declared(0, "Overhead per pass τ", "ms", "Kernel launches "
                                                                  "and sampling: a knob to calibrate with.",
                                                                  kind="count")


SECTIONS = {"serving": Serving}


def canonical(scenario) -> list:
    """The serving sequence follows the training one unless given; the prompt is a quarter of it unless given."""
    sv = scenario.serving
    if sv.sequence_length is None:
        sv.sequence_length = max(2, scenario.memory.sequence_length)
    if sv.prompt_tokens is None:
        sv.prompt_tokens = max(1, sv.sequence_length // 4)
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
    return problems
