"""A scenario's own Catalog entries (the `catalog:` section and inline models, GPUs and profiles), declared with
their limits and words, and merged with the shipped catalog by id: a new id needs every field without a default,
a shipped id may give only what changes. The Catalog sheet's columns and their checks read these declarations."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import Field

from planner import shipped
from planner.scenario.declare import (Fraction, GPUId, ModelId, Money, PrecisionId, PresetId, ProfileId, Section,
                                      declared, divisors, whole)
from planner.scenario.errors import Problem, quoted

ARCHITECTURE_LIMITS = {"layers": 10_000, "hidden": 10**6, "heads": 10**5, "kv_heads": 10**5, "head_dim": 10**5,
                       "ffn": 10**7, "vocab": 10**8, "experts": 10**5, "experts_per_token": 10**4,
                       "expert_ffn": 10**7, "shared_expert_ffn": 10**8, "moe_layers": 10_000, "kv_lora_rank": 10**5,
                       "q_lora_rank": 10**5, "qk_nope_head_dim": 10**5, "qk_rope_head_dim": 10**5,
                       "v_head_dim": 10**5}
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
    gated: bool | None = declared(None, "Gated FFN (SwiGLU)", "", "TRUE: 3·h·F per FFN (Llama, Mixtral, DeepSeek); "
                                  "FALSE: a GeLU MLP, 2·h·F (GPT, MPT). Left out: TRUE.", kind="bool")
    tied_embeddings: bool | None = declared(None, "Tied embeddings", "", "The output projection is the input "
                                            "embedding. Left out: FALSE.", kind="bool")
    experts: whole(0, ARCHITECTURE_LIMITS["experts"]) | None = declared(
        None, "Routed experts E", "experts", "Per MoE layer; blank or 0: a dense model.", kind="count")
    experts_per_token: whole(0, ARCHITECTURE_LIMITS["experts_per_token"]) | None = declared(
        None, "Experts per token k", "experts", "Routed experts each token passes through.", kind="count")
    expert_ffn: whole(0, ARCHITECTURE_LIMITS["expert_ffn"]) | None = declared(
        None, "Expert FFN F_e", "", "Each routed expert's FFN width.", kind="count")
    shared_expert_ffn: whole(0, ARCHITECTURE_LIMITS["shared_expert_ffn"]) | None = declared(
        None, "Shared-expert FFN F_s", "", "Summed over the shared experts; blank: none.", kind="count")
    moe_layers: whole(0, ARCHITECTURE_LIMITS["moe_layers"]) | None = declared(
        None, "MoE layers L_moe", "layers", "Blank: every layer when E > 0; the others are dense.", kind="count")
    kv_lora_rank: whole(0, ARCHITECTURE_LIMITS["kv_lora_rank"]) | None = declared(
        None, "MLA KV rank r_kv", "", "Multi-head latent attention (DeepSeek); blank or 0: grouped-query.",
        kind="count")
    q_lora_rank: whole(0, ARCHITECTURE_LIMITS["q_lora_rank"]) | None = declared(
        None, "MLA query rank r_q", "", "0: a full-rank query projection.", kind="count")
    qk_nope_head_dim: whole(0, ARCHITECTURE_LIMITS["qk_nope_head_dim"]) | None = declared(
        None, "MLA QK head dim (no RoPE)", "", kind="count")
    qk_rope_head_dim: whole(0, ARCHITECTURE_LIMITS["qk_rope_head_dim"]) | None = declared(
        None, "MLA QK head dim (RoPE)", "", kind="count")
    v_head_dim: whole(0, ARCHITECTURE_LIMITS["v_head_dim"]) | None = declared(None, "MLA V head dim", "",
                                                                             kind="count")
    reported_h100_hours: Annotated[float, Field(ge=0, le=1e12)] | None = declared(
        None, "Reported H100-hours", "GPU-hours", "Published training hours, where known.", kind="hours")


class ModelWithConfig(ModelEntry):
    """A Catalog model that may be read from a Hugging Face config.json (docs/method.md §8), relative to the
    scenario file; fields given beside `config` override the file's."""

    config: Annotated[str, Field(min_length=1, max_length=4096)] | None = None


class CustomModel(ModelWithConfig):
    """A model of the scenario's own, given inline as `model:`; it joins the Catalog under its name."""

    name: ModelId | None = None  # left out with a config: the config's folder name


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
    network_gbps: Annotated[float, Field(ge=0.001, le=1e5)] | None = declared(
        None, "Network per GPU", "GB/s", "The scale-out network (InfiniBand, RoCE) per GPU: the layout search's "
        "data-parallel traffic.", kind="number")
    gpus_per_node: whole(1, 1024) | None = declared(None, "GPUs per node", "GPUs", "One NVLink domain. Left out: 8.",
                                                    kind="count")
    gemm_efficiency: Annotated[float, Field(ge=0.001, le=1)] | None = declared(
        None, "GEMM efficiency η", "of peak", "The sustained share of peak of a large GEMM (the layout search).",
        kind="percent")
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


# A scenario's own entries per Catalog block. Each block is written with its shipped entries, these and a few empty
# rows; a profile is a column, and Excel's grid has 16,384 columns, so without a cap 16,400 profiles would name a
# range past it. A planning scenario needs far fewer; tests/test_hostile_input.py builds 1,000 of each kind.
MAX_OWN_ENTRIES = 1000


class CatalogSection(Section):
    """Entries added to the shipped catalog, or overriding it by id (a shipped id may give only what changes), at most
    MAX_OWN_ENTRIES of each kind."""

    models: Annotated[dict[ModelId, ModelWithConfig], Field(max_length=MAX_OWN_ENTRIES)] = {}
    gpus: Annotated[dict[GPUId, GPUEntry], Field(max_length=MAX_OWN_ENTRIES)] = {}
    traffic_presets: Annotated[dict[PresetId, TokensPerDay], Field(max_length=MAX_OWN_ENTRIES)] = {}
    profiles: Annotated[dict[ProfileId, Profile], Field(max_length=MAX_OWN_ENTRIES)] = {}
    precisions: Annotated[dict[PrecisionId, PrecisionEntry], Field(max_length=MAX_OWN_ENTRIES)] = {}


MODEL_DEFAULTS = {"gated": True, "tied_embeddings": False, "experts": 0, "experts_per_token": 0, "expert_ffn": 0,
                  "shared_expert_ffn": 0, "kv_lora_rank": 0, "q_lora_rank": 0, "qk_nope_head_dim": 0,
                  "qk_rope_head_dim": 0, "v_head_dim": 0}  # a dense grouped-query model


def complete_architecture(values: dict) -> tuple[dict, str | None]:
    """The one rule for a model's shape, wherever it comes from (Catalog, an inline model, a config.json, a
    workbook row): head dim = hidden / heads when not given (hidden must then divide evenly), KV heads divide the
    heads, a mixture of experts with its k ≤ E and F_e, MoE layers at most the layers (every layer when not given),
    latent attention with its head dims, and Ψ from the architecture when not given (at most PARAMS_MAX). Returns
    the completed values, or a problem in words."""
    values = {**MODEL_DEFAULTS, **{k: v for k, v in values.items() if v is not None}}
    values.pop("config", None)
    if values.get("head_dim") is None:
        if values["hidden"] % values["heads"]:
            return values, (f"head_dim is not given and hidden {values['hidden']} is not divisible by heads "
                            f"{values['heads']}")
        values["head_dim"] = values["hidden"] // values["heads"]
    if values["heads"] % values["kv_heads"]:
        return values, (f"kv_heads {values['kv_heads']} does not divide heads {values['heads']}; allowed "
                        f"kv_heads: {divisors(values['heads'])}")
    if values["experts"]:
        if not 1 <= values["experts_per_token"] <= values["experts"]:
            return values, (f"experts_per_token {values['experts_per_token']} must be from 1 to the "
                            f"{values['experts']} experts")
        if not values["expert_ffn"]:
            return values, "a mixture of experts needs expert_ffn, each routed expert's FFN width"
        values.setdefault("moe_layers", values["layers"])
        if values["moe_layers"] > values["layers"]:
            return values, f"moe_layers {values['moe_layers']} exceeds the {values['layers']} layers"
    else:
        values["moe_layers"] = 0
    if values["kv_lora_rank"] and not (values["qk_rope_head_dim"] and values["qk_nope_head_dim"]
                                       and values["v_head_dim"]):
        return values, "latent attention (kv_lora_rank) needs qk_nope_head_dim, qk_rope_head_dim and v_head_dim"
    if values.get("params") is None:
        from planner.model.counts import total_params  # numpy: when a scenario is checked, not for its schema

        values["params"] = float(total_params(**{k: values[k] for k in ARCHITECTURE + tuple(MODEL_DEFAULTS)
                                                 + ("head_dim", "moe_layers")}))
        if values["params"] > PARAMS_MAX:
            return values, f"Ψ from the architecture is {values['params']:.3g}, above the largest allowed, 1e15"
    return values, None


def config_id(config: str, folder: Path) -> str | None:
    """The Catalog id of a model read from a config.json: its folder's name, slugged."""
    from planner.model_config import model_id

    return model_id(folder / config)


READ_ONCE_MAX = 256  # config.json files kept read, by identity (device, inode, size, time of change)
_read_once: dict = {}  # a file many entries name (or many variants of a sweep) is read once


def read_configs(own: CatalogSection, folder: Path) -> list[Problem]:
    """Every model given as `config: path/config.json` (relative to `folder`) filled in with the file's fields;
    fields given beside it win. A file that cannot be read is a problem naming it, its line and its field."""
    from planner.model_config import ConfigFileError

    problems: list[Problem] = []
    for key, entry in own.models.items():
        if not entry.config:
            continue
        try:
            found = _config_once(folder / entry.config)
        except ConfigFileError as exc:
            problems += [(("catalog", "models", key, "config"), None, line) for line in exc.problems]
            continue
        given = entry.model_dump(exclude_none=True)
        own.models[key] = type(entry)(**{**found.fields, **given})
    return problems


def _config_once(path: Path):
    """read_config, once per file however many entries name it (by its identity, so a link or another spelling of
    the path is the same file); a file that cannot be read raises its ConfigFileError each time it is named."""
    from planner.model_config import ConfigFileError, read_config

    try:
        info = os.stat(path)
        identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
    except OSError:
        return read_config(path)  # which says what is wrong with the path
    if identity not in _read_once:
        try:
            _read_once[identity] = read_config(path)
        except ConfigFileError as exc:
            _read_once[identity] = exc
        while len(_read_once) > READ_ONCE_MAX:
            _read_once.pop(next(iter(_read_once)))
    found = _read_once[identity]
    if isinstance(found, ConfigFileError):
        raise found
    return found


def without_shipped(entry, shipped_entry):
    """An override with the fields equal to the shipped entry's dropped (None: nothing left to say)."""
    if shipped_entry is None:
        return entry
    changed = {k: v for k, v in entry.model_dump(exclude_none=True).items() if getattr(shipped_entry, k, None) != v}
    return type(entry)(**changed) if changed else None


def _case_of_shipped(own: CatalogSection) -> list[Problem]:
    """An entry whose id is a shipped id in other case (H100-SXM): spreadsheets would match it to the shipped one."""
    problems: list[Problem] = []
    for key_of_kind, kind, shipped_ids in (("models", "model", shipped.MODELS), ("gpus", "GPU", shipped.GPUS),
                                           ("traffic_presets", "traffic preset", shipped.TRAFFIC_PRESETS),
                                           ("profiles", "demand profile", shipped.PROFILES),
                                           ("precisions", "precision", shipped.PRECISIONS)):
        lower = {key.lower(): key for key in shipped_ids}
        for key in getattr(own, key_of_kind):
            if key not in shipped_ids and key.lower() in lower:
                problems.append((("catalog", key_of_kind, key), None, f"{quoted(key)} is the shipped {kind} "
                                 f"{quoted(lower[key.lower()])} in other case; spreadsheets match ids ignoring case: "
                                 f"override it as {lower[key.lower()]}, or give yours another id"))
    return problems


def merge(own: CatalogSection) -> tuple[shipped.Catalog, list[Problem]]:
    """The shipped catalog with the scenario's entries; a new id needs every field."""
    problems = _case_of_shipped(own)
    if problems:
        return shipped.Catalog(), problems
    models = dict(shipped.MODELS)
    for key, entry in own.models.items():
        given = entry.model_dump(exclude_none=True, exclude={"config"})
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
        values = {**(vars(precisions[key]) if key in precisions else {"id": key}),
                  **entry.model_dump(exclude_none=True)}
        missing = [f for f in ("weight_bits", "kv_bytes", "fp8_gemm") if f not in values]
        if missing:
            problems.append((("catalog", "precisions", key), None, f"a new precision needs {', '.join(missing)}"))
            continue
        precisions[key] = shipped.Precision(**values)
    merged = shipped.Catalog(models, gpus, {**shipped.TRAFFIC_PRESETS, **own.traffic_presets},
                             {**shipped.PROFILES, **{k: tuple(v) for k, v in own.profiles.items()}}, precisions)
    for kind, key_of_kind, ids in (("model", "models", merged.models), ("GPU", "gpus", merged.gpus),
                                   ("traffic preset", "traffic_presets", merged.traffic_presets),
                                   ("demand profile", "profiles", merged.profiles),
                                   ("precision", "precisions", merged.precisions)):
        lower: dict[str, str] = {}
        for key in ids:
            first = lower.setdefault(key.lower(), key)
            if first == key:
                continue
            problems.append((("catalog", key_of_kind, key), None, f"{kind} ids {quoted(first)} and {quoted(key)} "
                             f"differ only by case; spreadsheets match ids ignoring case: give one of them",
                             ("catalog", key_of_kind, first)))
    return merged, problems
