"""A scenario's own Catalog entries (the `catalog:` section and inline models, GPUs and profiles), declared with
their limits and words, and merged with the shipped catalog by id: a new id needs every field without a default,
a shipped id may give only what changes. The Catalog sheet's columns and their checks read these declarations."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from planner import shipped
from planner.scenario.declare import (Fraction, GPUId, ModelId, Money, PrecisionId, PresetId, ProfileId, Section,
                                      declared, divisors, whole)
from planner.scenario.errors import Problem

ARCHITECTURE_LIMITS = {"layers": 10_000, "hidden": 10**6, "heads": 10**5, "kv_heads": 10**5, "head_dim": 10**5,
                       "ffn": 10**7, "vocab": 10**8}
ARCHITECTURE = ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab")  # what a new model must give
PARAMS_MAX = 1e15


class ModelEntry(Section):
    """A model in the Catalog (docs/method.md, "Catalog"); Ψ is computed from the architecture when left out."""

    params: Annotated[float, Field(ge=1, le=PARAMS_MAX)] | None = declared(
        None, "Parameters Ψ", "parameters", "Left out: Ψ = 2·V·h + L·(2·h·h + 2·h·kv·hd + 3·h·FFN + 2·h) + h.",
        kind="params")
    layers: whole(1, ARCHITECTURE_LIMITS["layers"]) | None = declared(None, "Layers L", "layers", kind="count")
    hidden: whole(1, ARCHITECTURE_LIMITS["hidden"]) | None = declared(None, "Hidden h", "", kind="count")
    heads: whole(1, ARCHITECTURE_LIMITS["heads"]) | None = declared(None, "Heads", "heads", kind="count")
    kv_heads: whole(1, ARCHITECTURE_LIMITS["kv_heads"]) | None = declared(
        None, "KV heads", "heads", "Grouped-query attention; divides the heads.", kind="count")
    head_dim: whole(1, ARCHITECTURE_LIMITS["head_dim"]) | None = declared(
        None, "Head dim", "", "Left out: hidden / heads.", kind="count")
    ffn: whole(1, ARCHITECTURE_LIMITS["ffn"]) | None = declared(None, "FFN", "", kind="count")
    vocab: whole(1, ARCHITECTURE_LIMITS["vocab"]) | None = declared(None, "Vocabulary V", "tokens", kind="count")
    reported_h100_hours: Annotated[float, Field(ge=0, le=1e12)] | None = declared(
        None, "Reported H100-hours", "GPU-hours", "Published training hours, where known.", kind="hours")


class CustomModel(ModelEntry):
    """A model of the scenario's own, given inline as `model:`; it joins the Catalog under its name."""

    name: ModelId
    layers: whole(1, ARCHITECTURE_LIMITS["layers"])
    hidden: whole(1, ARCHITECTURE_LIMITS["hidden"])
    heads: whole(1, ARCHITECTURE_LIMITS["heads"])
    kv_heads: whole(1, ARCHITECTURE_LIMITS["kv_heads"])
    ffn: whole(1, ARCHITECTURE_LIMITS["ffn"])
    vocab: whole(1, ARCHITECTURE_LIMITS["vocab"])


class GPUEntry(Section):
    """A GPU in the Catalog: memory, dense BF16 peak, HBM bandwidth and price per GPU-hour."""

    memory_gb: Annotated[float, Field(ge=0.001, le=1e6)] | None = declared(None, "Memory", "GB", kind="gb")
    peak_tflops: Annotated[float, Field(ge=0.001, le=1e6)] | None = declared(
        None, "Dense BF16 peak", "TFLOPS", "Without sparsity.", kind="number")
    hbm_tbps: Annotated[float, Field(ge=0.001, le=1e4)] | None = declared(None, "HBM bandwidth", "TB/s",
                                                                          kind="decimal")
    price_per_hour: Money | None = declared(None, "Price", "per GPU-hour", "Illustrative list price.",
                                            kind="money")
    fp8_tflops: Annotated[float, Field(ge=0.001, le=1e6)] | None = declared(
        None, "Dense FP8 peak", "TFLOPS", "Blank: no FP8 (FP8 GEMMs run at the BF16 peak).", kind="number")
    nvlink_gbps: Annotated[float, Field(ge=0.001, le=1e5)] | None = declared(
        None, "NVLink", "GB/s", "Per direction, as listed: serving's tensor-parallel all-reduces.", kind="number")
    price_source: Annotated[str, Field(min_length=1, max_length=64)] | None = declared(
        None, "Price source", "", "Where the price comes from: a quote, a contract, a list price.", kind="text")
    price_as_of: Annotated[str, Field(min_length=1, max_length=64)] | None = declared(
        None, "Price as of", "", "When the price was quoted, as text (2026-11-30, Q4 2026).", kind="text")


class CustomGPU(GPUEntry):
    """A GPU of the scenario's own, given inline as `gpu:`; it joins the Catalog under its name."""

    name: GPUId
    memory_gb: Annotated[float, Field(ge=0.001, le=1e6)]
    peak_tflops: Annotated[float, Field(ge=0.001, le=1e6)]
    hbm_tbps: Annotated[float, Field(ge=0.001, le=1e4)]


class PrecisionEntry(Section):
    """A weight or KV-cache precision in the Catalog (docs/method.md §6)."""

    weight_bits: Annotated[float, Field(ge=0.5, le=64)] | None = declared(
        None, "Bits per weight", "bits", "Including quantisation scales (int4 with a 16-bit scale per 128: 4.125).",
        kind="decimal")
    kv_bytes: Annotated[float, Field(ge=0.125, le=8)] | None = declared(
        None, "Bytes per KV value", "bytes", "What kv_precision reads: fp8 keeps 1 byte per key or value.",
        kind="decimal")
    fp8_gemm: bool | None = declared(None, "GEMMs in FP8", "", "TRUE: matrix multiplies at the GPU's FP8 peak.",
                                     kind="bool")


Profile = Annotated[list[Fraction], Field(min_length=shipped.HOURS_PER_DAY, max_length=shipped.HOURS_PER_DAY)]
# Served tokens are counted: 0 (no traffic: serving never overtakes) or at least one token a day, so the crossing
# day C / (2·Ψ·D) stays finite over the whole allowed range.
TokensPerDay = whole(0, 1e18)


class CatalogSection(Section):
    """Entries added to the shipped catalog, or overriding it by id (a shipped id may give only what changes)."""

    models: dict[ModelId, ModelEntry] = {}
    gpus: dict[GPUId, GPUEntry] = {}
    traffic_presets: dict[PresetId, TokensPerDay] = {}
    profiles: dict[ProfileId, Profile] = {}
    precisions: dict[PrecisionId, PrecisionEntry] = {}


def complete_architecture(values: dict) -> tuple[dict, str | None]:
    """The one rule for a model's shape, wherever it comes from (Catalog, an inline model, a workbook row): head
    dim = hidden / heads when not given (hidden must then divide evenly), KV heads divide the heads, and Ψ from the
    architecture when not given (at most PARAMS_MAX). Returns the completed values, or a problem in words."""
    values = dict(values)
    if values.get("head_dim") is None:
        if values["hidden"] % values["heads"]:
            return values, (f"head_dim is not given and hidden {values['hidden']} is not divisible by heads "
                            f"{values['heads']}")
        values["head_dim"] = values["hidden"] // values["heads"]
    if values["heads"] % values["kv_heads"]:
        return values, (f"kv_heads {values['kv_heads']} does not divide heads {values['heads']}; allowed "
                        f"kv_heads: {divisors(values['heads'])}")
    if values.get("params") is None:
        values["params"] = float(shipped.params_from_architecture(
            values["vocab"], values["hidden"], layers=values["layers"], kv_heads=values["kv_heads"],
                head_dim=values["head_dim"],
            ffn=values["ffn"]))
        if values["params"] > PARAMS_MAX:
            return values, f"Ψ from the architecture is {values['params']:.3g}, above the largest allowed, 1e15"
    return values, None


def without_shipped(entry, shipped_entry):
    """An override with the fields equal to the shipped entry's dropped (None: nothing left to say)."""
    if shipped_entry is None:
        return entry
    changed = {k: v for k, v in entry.model_dump(exclude_none=True).items() if getattr(shipped_entry, k) != v}
    return type(entry)(**changed) if changed else None


def merge(own: CatalogSection) -> tuple[shipped.Catalog, list[Problem]]:
    """The shipped catalog with the scenario's entries; a new id needs every field."""
    problems: list[Problem] = []
    models = dict(shipped.MODELS)
    for key, entry in own.models.items():
        given = entry.model_dump(exclude_none=True)
        values = {**vars(models[key]), **given} if key in models else {"id": key, **given}
        missing = [f for f in ARCHITECTURE if f not in values]
        if missing:
            problems.append((("catalog", "models", key), None, f"a new model needs {', '.join(missing)}"))
            continue
        values, problem = complete_architecture(values)
        if problem:
            problems.append((("catalog", "models", key), None, problem))
            continue
        models[key] = shipped.Model(**values)
    gpus = dict(shipped.GPUS)
    for key, entry in own.gpus.items():
        given = entry.model_dump(exclude_none=True)
        values = {**vars(gpus[key]), **given} if key in gpus else {"id": key, "price_per_hour":
                                                                    shipped.CUSTOM_GPU_PRICE, **given}
        missing = [f for f in ("memory_gb", "peak_tflops", "hbm_tbps") if f not in values]
        if missing:
            problems.append((("catalog", "gpus", key), None, f"a new GPU needs {', '.join(missing)}"))
            continue
        gpus[key] = shipped.GPU(**values)
    precisions = dict(shipped.PRECISIONS)
    for key, entry in own.precisions.items():
        values = {**(vars(precisions[key]) if key in precisions else {"id": key}), **entry.model_dump(exclude_none=True)}
        missing = [f for f in ("weight_bits", "kv_bytes", "fp8_gemm") if f not in values]
        if missing:
            problems.append((("catalog", "precisions", key), None, f"a new precision needs {', '.join(missing)}"))
            continue
        precisions[key] = shipped.Precision(**values)
    merged = shipped.Catalog(models, gpus, {**shipped.TRAFFIC_PRESETS, **own.traffic_presets},
                             {**shipped.PROFILES, **{k: tuple(v) for k, v in own.profiles.items()}}, precisions)
    for kind, ids in (("model", merged.models), ("GPU", merged.gpus), ("traffic preset", merged.traffic_presets),
                      ("demand profile", merged.profiles), ("precision", merged.precisions)):
        lower: dict[str, str] = {}
        for key in ids:
            if key.lower() in lower:
                problems.append((("catalog",), key, f"{kind} ids '{lower[key.lower()]}' and '{key}' differ only by "
                                 f"case; spreadsheets match ids ignoring case"))
            lower[key.lower()] = key
    return merged, problems
