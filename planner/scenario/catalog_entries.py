"""A scenario's own Catalog entries (the `catalog:` section and inline models, GPUs and profiles), declared with
their limits and words, and merged with the shipped catalog by id: a new id needs every field without a default,
a shipped id may give only what changes. The Catalog sheet's columns and their checks read these declarations."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

from pydantic import Field, create_model

from planner import shipped
from planner.engine.shared import HOURS_PER_DAY
from planner.model import fields
from planner.model import engines as engine_rows
from planner.scenario.declare import (ID_MAX, EngineId, Fraction, GPUId, ModelId, OfferId, PrecisionId, PresetId,
                                      ProfileId, Section, divisors, whole)
from planner.scenario.declare import declared as declared_input
from planner.scenario.errors import Problem, quoted

ARCHITECTURE_LIMITS = fields.limits(fields.MODEL)  # the largest value of each whole-number model field
ARCHITECTURE = fields.required(fields.MODEL)  # what a new model must give
PARAMS_MAX = fields.named(fields.MODEL)["params"].le


def annotation(field: fields.Field):
    """A declared field's type and limits, as the scenario validates them."""
    if field.type == "whole":
        return whole(int(field.ge), field.le)
    if field.type == "number":
        return Annotated[float, Field(ge=field.ge, le=field.le)]
    if field.type == "text":
        return Annotated[str, Field(min_length=int(field.ge), max_length=int(field.le))]
    return bool


def _entry(name: str, declared: tuple[fields.Field, ...], doc: str, base: type = Section) -> type:
    """A Catalog entry's section: every declared field optional (a shipped id gives only what changes; a new id is
    checked for its required fields when merged), with its label, unit, note and kind for the sheets."""
    return create_model(name, __base__=base, __doc__=doc, **{
        f.key: (annotation(f) | None, declared_input(None, f.label, f.unit, f.note, kind=f.kind)) for f in declared})


ModelEntry = _entry("ModelEntry", fields.MODEL, "A model in the Catalog (docs/method.md, \"Catalog\"); Ψ is computed "
                    "from the architecture when left out.")
GPUEntry = _entry("GPUEntry", fields.GPU, "A GPU in the Catalog: memory, dense BF16 peak, HBM bandwidth and price per "
                  "GPU-hour, and what Serving and the layout search read besides.")
PrecisionEntry = _entry("PrecisionEntry", fields.PRECISION, "A weight or KV-cache precision in the Catalog "
                        "(docs/method.md §6).")
ApiOfferEntry = _entry("ApiOfferEntry", fields.API_OFFER, "A hosted API's offer in the Catalog, priced per million "
                       "tokens in USD (docs/method.md §13).")


_AnyOr = Annotated[str, Field(min_length=1, max_length=ID_MAX)]  # a Catalog id or the word any (checked on merge)
EngineEntry = create_model(
    "EngineEntry", __base__=Section, __doc__="A row of the engines table (docs/method.md §14.3): priors for one "
    "engine on one GPU and weight precision (or `any`); a blank prior is filled from the rows it falls back to.",
    engine=(EngineId, declared_input(..., "Engine", "", "generic, vllm, trtllm, sglang or an engine of your own.",
                                     kind="text")),
    gpu=(_AnyOr, declared_input(fields.ANY, "GPU", "", "A Catalog GPU id, or any.", kind="text")),
    precision=(_AnyOr, declared_input(fields.ANY, "Weight precision", "", "A Catalog precision id, or any.",
                                      kind="text")),
    **{f.key: (annotation(f) | None, declared_input(None, f.label, f.unit, f.note, kind=f.kind))
       for f in fields.ENGINE},
    source=(Annotated[str, Field(max_length=2000)], declared_input("", "Source", "", "Where each figure comes from.",
                                                                    kind="text")),
    as_of=(Annotated[str, Field(max_length=64)], declared_input("", "As of", "", "When.", kind="text")))


class ModelWithConfig(ModelEntry):
    """A Catalog model that may be read from a Hugging Face config.json (docs/method.md §8), relative to the
    scenario file; fields given beside `config` override the file's."""

    config: Annotated[str, Field(min_length=1, max_length=4096)] | None = None


class CustomModel(ModelWithConfig):
    """A model of the scenario's own, given inline as `model:`; it joins the Catalog under its name."""

    name: ModelId | None = None  # left out with a config: the config's folder name


CustomGPU = create_model(
    "CustomGPU", __base__=GPUEntry, __doc__="A GPU of the scenario's own, given inline as `gpu:`; it joins the Catalog "
    "under its name.", name=(GPUId, ...),
    **{f.key: (annotation(f), ...) for f in fields.GPU if f.new == fields.REQUIRED})


Profile = Annotated[list[Fraction], Field(min_length=HOURS_PER_DAY, max_length=HOURS_PER_DAY)]
# Served tokens are counted: 0 (no traffic: serving never overtakes) or at least one token a day, so the crossing
# day C / (2·Ψ·D) stays finite over the whole allowed range; the plan's last month, grown, keeps within the same
# bound (planner/inputs/budget.py).
TOKENS_PER_DAY_MAX = 10**18
TokensPerDay = whole(0, TOKENS_PER_DAY_MAX)


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
    engines: Annotated[list[EngineEntry], Field(max_length=MAX_OWN_ENTRIES)] = []  # added, or overriding by key
    api_offers: Annotated[dict[OfferId, ApiOfferEntry], Field(max_length=MAX_OWN_ENTRIES)] = {}


MODEL_DEFAULTS = fields.defaults(fields.MODEL)  # a dense grouped-query model


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
                                           ("precisions", "precision", shipped.PRECISIONS),
                                           ("api_offers", "API offer", shipped.API_OFFERS)):
        lower = {key.lower(): key for key in shipped_ids}
        for key in getattr(own, key_of_kind):
            if key not in shipped_ids and key.lower() in lower:
                problems.append((("catalog", key_of_kind, key), None, f"{quoted(key)} is the shipped {kind} "
                                 f"{quoted(lower[key.lower()])} in other case; spreadsheets match ids ignoring case: "
                                 f"override it as {lower[key.lower()]}, or give yours another id"))
    return problems


def _offers(own: CatalogSection, problems: list[Problem]) -> dict:
    """The shipped API offers with the scenario's; a new id needs every required field (noted in `problems`)."""
    offers = dict(shipped.API_OFFERS)
    for key, entry in own.api_offers.items():
        values = {**(vars(offers[key]) if key in offers else {"id": key}), **entry.model_dump(exclude_none=True)}
        missing = [f for f in fields.required(fields.API_OFFER) if f not in values]
        if missing:
            problems.append((("catalog", "api_offers", key), None, f"a new API offer needs {', '.join(missing)}"))
            continue
        offers[key] = shipped.ApiOffer(**values)
    return offers


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
        values = {**vars(gpus[key]), **given} if key in gpus else {"id": key, **given}
        missing = [f for f in fields.required(fields.GPU) if f not in values]
        if missing:
            problems.append((("catalog", "gpus", key), None, f"a new GPU needs {', '.join(missing)}"))
            continue
        gpus[key] = shipped.GPU(**values)
    precisions = dict(shipped.PRECISIONS)
    for key, entry in own.precisions.items():
        values = {**(vars(precisions[key]) if key in precisions else {"id": key}),
                  **entry.model_dump(exclude_none=True)}
        missing = [f for f in fields.required(fields.PRECISION) if f not in values]
        if missing:
            problems.append((("catalog", "precisions", key), None, f"a new precision needs {', '.join(missing)}"))
            continue
        precisions[key] = shipped.Precision(**values)
    engines, engine_problems = _engines(own.engines, gpus, precisions)
    problems += engine_problems
    merged = shipped.Catalog(models, gpus, {**shipped.TRAFFIC_PRESETS, **own.traffic_presets},
                             {**shipped.PROFILES, **{k: tuple(v) for k, v in own.profiles.items()}}, precisions,
                             engines=engines, api_offers=_offers(own, problems))
    for kind, key_of_kind, ids in (("model", "models", merged.models), ("GPU", "gpus", merged.gpus),
                                   ("traffic preset", "traffic_presets", merged.traffic_presets),
                                   ("demand profile", "profiles", merged.profiles),
                                   ("precision", "precisions", merged.precisions),
                                   ("API offer", "api_offers", merged.api_offers)):
        lower: dict[str, str] = {}
        for key in ids:
            first = lower.setdefault(key.lower(), key)
            if first == key:
                continue
            problems.append((("catalog", key_of_kind, key), None, f"{kind} ids {quoted(first)} and {quoted(key)} "
                             f"differ only by case; spreadsheets match ids ignoring case: give one of them",
                             ("catalog", key_of_kind, first)))
    return merged, problems


def _engines(own: list, gpus: dict, precisions: dict) -> tuple[dict, list[Problem]]:
    """The shipped engines rows with the scenario's added, or overriding a shipped row's given cells by its engine,
    GPU and precision; each GPU and precision a Catalog id or `any`, each key once; then filled (§14.3)."""
    rows, problems, seen = dict(shipped.ENGINES_GIVEN), [], set()
    for i, entry in enumerate(own):
        at = ("catalog", "engines", i)
        for key, ids, kind in (("gpu", gpus, "GPU"), ("precision", precisions, "precision")):
            value = getattr(entry, key)
            if value != fields.ANY and value not in ids:
                problems.append((at + (key,), value, f"any, or a Catalog {kind} id: "
                                 + ", ".join(quoted(k) for k in ids)))
        key = (entry.engine, entry.gpu, entry.precision)
        if key in seen:
            problems.append((at, None, f"the row {engine_rows.label(key)} is given twice: give it once"))
        seen.add(key)
        given = {p: getattr(entry, p) for p in engine_rows.PRIORS if getattr(entry, p) is not None}
        before = rows.get(key)
        priors = {**(before.priors if before else {}), **given}
        rows[key] = engine_rows.EngineRow(*key, priors=priors, source=entry.source or (before.source if before else ""),
                                          as_of=entry.as_of or (before.as_of if before else ""))
    return engine_rows.filled(rows), problems
