"""The input model: a YAML scenario file → a validated, typed Scenario with the method's defaults.

The Scenario is assembled from the registry: the general inputs below (name, model, GPU, price, currency), then
each table's sections (planner/inputs/K.py), the catalog and the sweep. Reading one goes: validate the types and
limits (pydantic) → fill in what follows from other inputs (`canonical`) → merge the catalog → the rules that join
several inputs (`cross_checks`) → the sweep's variants → the tables' external data. Every error names the file,
the key path, the YAML line (or the workbook cell), the value and what is allowed.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import Field, PrivateAttr, ValidationError, create_model, field_validator

from planner import shipped
from planner.scenario import named as named_scenarios
from planner.scenario import sweep as sweeps
from planner.scenario.catalog_entries import (MODEL_DEFAULTS, CatalogSection, CustomGPU, CustomModel, GPUEntry,
                                              ModelWithConfig, config_id, merge, read_configs, without_shipped)
from planner.scenario.declare import NAME_MAX, UNION_TAGS, GPUId, ModelId, Section, choice, declared
from planner.scenario.errors import (Problem, ScenarioError, cut, describe, describe_problem, quoted, unknown,
                                     where)
from planner.tables import TABLES, optional, sections, table

__all__ = ["Scenario", "ScenarioError", "parse_scenario", "load_scenario", "slugify", "DEFAULT"]

CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹"}


class General(Section):
    """The inputs every table shares, and what a Scenario knows of itself."""

    name: Annotated[str, Field(min_length=1, max_length=NAME_MAX, coerce_numbers_to_str=True)]
    description: Annotated[str, Field(max_length=2000, coerce_numbers_to_str=True)] = ""
    model: choice(ModelId, CustomModel) = declared("llama-3.1-8b", "Model", "", "A Catalog model; choosing another "
                                                   "updates every sheet.", kind="text", choices="catalog_model_ids")
    gpu: choice(GPUId, CustomGPU) = declared("h100-sxm", "GPU", "", "A Catalog GPU: memory, peak, bandwidth and "
                                             "price.", kind="text", choices="catalog_gpu_ids")
    # overrides the chosen GPU's Catalog price (moved there when read); above 0: every cost of the plan reads it
    price_per_gpu_hour: Annotated[float, Field(gt=0, le=1e6)] | None = None
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "USD"
    fx_rate: Annotated[float, Field(gt=0, le=1e6)] = declared(
        1.0, "FX rate", "reporting units per USD", "Money inputs are in USD; every money result is in `currency`, "
        "converted at this rate once. Your treasury's budget rate.", kind="decimal")
    training_precision: Literal["bf16", "fp8"] = declared(
        "bf16", "Training precision", "", "fp8: GEMMs at the GPU's FP8 peak (Hours) and an FP8 copy of the weights "
        "(Memory); a GPU without FP8 keeps its BF16 peak.", kind="text")
    _source: Path | None = PrivateAttr(default=None)  # the file it was read from; relative paths start there
    _merged: shipped.Catalog | None = PrivateAttr(default=None)
    _external: dict = PrivateAttr(default_factory=dict)  # table key → its external data (Goodput's logs)
    _variants: sweeps.Variants | None = PrivateAttr(default=None)  # the sweep's variants, each made when wanted
    _named: list = PrivateAttr(default_factory=list)  # the named scenarios, parsed once when it was checked
    _aliases: dict = PrivateAttr(default_factory=dict)  # key path → the key path it was written at (messages)
    _shown_as: str = PrivateAttr(default="")  # a variant's source in messages (source_name)
    _price: float | None = PrivateAttr(default=None)  # a named scenario's price in one workbook (in_workbook)

    # The merged catalog and the chosen entries -----------------------------------------------------------
    @property
    def merged_catalog(self) -> shipped.Catalog:
        """The shipped catalog with this scenario's entries added or overriding by id."""
        if self._merged is None:
            merged, problems = merge(self.catalog)
            if problems:
                raise ScenarioError([describe_problem(p, self.source_name, {}) for p in problems])
            self._merged = merged
        return self._merged

    @property
    def chosen_model(self) -> shipped.Model:
        return self.merged_catalog.models[self.model]

    @property
    def chosen_gpu(self) -> shipped.GPU:
        return self.merged_catalog.gpus[self.gpu]

    @property
    def gpu_price(self) -> float:
        """Price per GPU-hour: the chosen GPU's Catalog price (the scenario's price_per_gpu_hour lands there), or a
        named scenario's own price in the workbook that holds every scenario (in_workbook)."""
        return self._price if self._price is not None else self.chosen_gpu.price_per_hour

    @property
    def currency_symbol(self) -> str:
        return CURRENCY_SYMBOLS.get(self.currency, self.currency)

    @property
    def slug(self) -> str:
        return slugify(self.name)

    @property
    def source_name(self) -> str:
        """How messages name where the scenario came from: its file, or for a sweep's variant the file's sweep line
        and the variant ("s.yaml:7: sweep variant [memory.gpus=8]")."""
        return self._shown_as or str(self._source or "<scenario>")

    def alias(self, key: tuple, written_at: tuple) -> None:
        """Messages about `key` point at the line of `written_at` (an inline model is written at `model:`)."""
        self._aliases[key] = written_at

    def external(self, key: str):
        """Table `key`'s external data (Goodput's benchmark logs), None when the scenario names none; read on
        first use, relative to the scenario file's folder."""
        hook = table(key).inputs.EXTERNAL
        if key not in self._external:
            folder = self._source.parent if self._source else Path.cwd()
            self._external[key] = hook.load(self, folder, {}) if hook.wanted(self) else None
        return self._external[key]

    def input_files(self) -> list[Path]:
        """The files the scenario was read from: its own and each table's external data (benchmark logs)."""
        folder = self._source.parent if self._source else Path.cwd()
        found = [self._source] if self._source else []
        for t in TABLES:
            data = self.external(t.key) if t.inputs.EXTERNAL is not None else None
            if data is not None:
                found += t.inputs.EXTERNAL.files(data, folder)
        return found

    def normalised(self) -> dict:
        """The scenario with every default filled in, as plain JSON-able data (`scenario:`, the one shown, only
        with named scenarios)."""
        return self.model_dump(mode="json", exclude_none=True, exclude=None if self.scenarios else {"scenario"})

    def variants(self) -> "sweeps.Variants | tuple":
        """The sweep's cartesian product, () without a sweep: its len() and (label, scenario) for each, named after
        its values ("zero3, 8192"), each made (parsed) as it is reached and not kept (planner.scenario.sweep.
        Variants). Every variant was validated when the scenario was."""
        return self._variants if self._variants is not None else ()

    def named_scenarios(self) -> list[tuple[str, "Scenario"]]:
        """The named scenarios (`scenarios:`): (name, the base with its keys changed), in the file's order; []
        without them. Each was validated (and parsed) when the scenario was."""
        return self._named

    def shown(self) -> "Scenario":
        """What the outputs show: the scenario itself, or the named scenario `scenario:` chooses, under this
        scenario's name (its workbook holds every named scenario, and shows that one)."""
        if self.scenario == "base" or not self._named:
            return self
        return self.in_workbook(self.scenario).model_copy(update={"name": self.name})

    def in_workbook(self, name: str) -> "Scenario":
        """A named scenario as the workbook holding every scenario computes it: its own file's scenario, except
        that a price it changes is its own (Inputs' price columns), not the GPU's Catalog price, which is one for
        every scenario."""
        named = dict(self._named)[name]
        price = (self.scenarios or {}).get(name, {}).get("price_per_gpu_hour")
        if price is None:
            return named
        own = named.model_copy(update={"catalog": self.catalog.model_copy(deep=True)})
        own._merged, own._price = None, float(price)
        return own


NamedSection = Annotated[dict[str, Annotated[dict[str, Any], Field(max_length=200)]],
                         Field(min_length=1, max_length=named_scenarios.MAX_SCENARIOS)]
SweepSection = Annotated[dict[str, Annotated[list[Any], Field(min_length=1, max_length=sweeps.MAX_VALUES)]],
                         Field(max_length=20)]


class _Tail(Section):
    """The fields after the tables' sections."""

    catalog: CatalogSection = CatalogSection()
    sweep: SweepSection | None = None
    scenarios: NamedSection | None = None
    scenario: Annotated[str, Field(min_length=1, max_length=31)] = "base"  # the named scenario the outputs show


def _sweep_keys_exist(cls, sweep):
    """Each swept key names a scenario key (planner.scenario.sweep.check_key_path)."""
    for key in sweep or {}:
        sweeps.check_key_path(cls, key)
    return sweep


@functools.cache
def _scenario_model() -> type[General]:
    """The Scenario model, assembled from the registry when first asked for (as `planner.scenario.Scenario`):
    the tables' inputs modules that it reads import this package's declarations, so it cannot be assembled while
    the package itself is being imported."""
    return create_model(
        "Scenario", __base__=General, __doc__="A validated scenario: the general inputs, each table's sections, "
        "the catalog and the sweep.",
        **{key: ((cls | None, None) if optional(cls) else (cls, cls())) for key, (_, cls) in sections().items()},
        **{key: (info.annotation, info) for key, info in _Tail.model_fields.items()},
        __validators__={"_sweep_keys_exist": field_validator("sweep")(classmethod(_sweep_keys_exist))},
        __module__=__name__)


if TYPE_CHECKING:
    Scenario = General  # for annotations: the assembled model is a General with each table's sections


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80].strip("-")
    return slug or "scenario"


# Reading a scenario ------------------------------------------------------------------------------------------
def _shipped_clash(field: str, kind: str, name: str, entry, shipped_entries) -> Problem | None:
    """An inline entry under a shipped id that gives it other fields (one id, one definition)."""
    if hasattr(entry, "config"):
        entry = entry.model_copy(update={"config": None})
    if name not in shipped_entries or without_shipped(entry, shipped_entries[name]) is None:
        return None
    return ((field,), None, f"{quoted(name)} is a shipped {field.replace('gpu', 'GPU')} and this mapping gives it "
            f"other fields: change what ships under catalog.{kind}.{name} (only what changes), or give yours another "
            "name")


def _canonical(scenario, folder: Path) -> list[Problem]:
    """One spelling per scenario, so a workbook reads back as the scenario that made it: inline custom entries
    join `catalog` under their names, models read from a config.json get its fields, the price override becomes
    the chosen GPU's Catalog price, overrides equal to what ships are dropped, and each table fills in what follows
    from other inputs."""
    problems = _inline_entries(scenario, folder)
    for model in scenario.catalog.models.values():  # the config.json's fields stand in place of its path
        model.config = None
    problems += _price_in_catalog(scenario)
    _as_catalog_rows(scenario.catalog)
    for t in TABLES:
        problems += t.inputs.canonical(scenario)
    return problems


def _inline_entries(scenario, folder: Path) -> list[Problem]:
    """A model or GPU given inline (a mapping) joins `catalog` under its name, which the scenario then chooses;
    models read from a config.json get its fields."""
    own, problems, from_config = scenario.catalog, [], []
    for field, entries, entry_type, shipped_entries in (("model", own.models, ModelWithConfig, shipped.MODELS),
                                                        ("gpu", own.gpus, GPUEntry, shipped.GPUS)):
        inline = getattr(scenario, field)
        if isinstance(inline, str):
            continue
        entry = entry_type(**inline.model_dump(exclude={"name"}, exclude_none=True))
        kind = "models" if field == "model" else "gpus"
        if inline.name is None:  # a model read from its config.json, named after the file's folder
            inline.name = config_id(entry.config, folder) if entry.config else None
            if inline.name is None:
                problems.append(((field,), None, "a model of your own needs a name (or a config)"))
                continue
        if inline.name in entries and entries[inline.name] != entry:
            problems.append(((field,), None, f"{quoted(inline.name)} is given here and in catalog.{kind} with other "
                             f"fields: give it once", ("catalog", kind, inline.name)))
            continue
        if getattr(entry, "config", None):  # a config's fields are compared with what ships once read, below
            from_config.append(inline.name)
        elif clash := _shipped_clash(field, kind, inline.name, entry, shipped_entries):
            problems.append(clash)
            continue
        entries[inline.name] = entry
        setattr(scenario, field, inline.name)
        scenario.alias(("catalog", kind, inline.name), (field,))
    problems += read_configs(own, folder)
    for name in from_config:
        if clash := _shipped_clash("model", "models", name, own.models[name], shipped.MODELS):
            problems.append(clash)
    return problems


def _price_in_catalog(scenario) -> list[Problem]:
    """price_per_gpu_hour becomes the chosen GPU's Catalog price (unless the Catalog gives it another)."""
    if scenario.price_per_gpu_hour is None:
        return []
    own = scenario.catalog
    entry = own.gpus.get(scenario.gpu) or GPUEntry()
    if entry.price_per_hour is not None and entry.price_per_hour != scenario.price_per_gpu_hour:
        return [(("price_per_gpu_hour",), None, f"{scenario.price_per_gpu_hour:g} here and {entry.price_per_hour:g} "
                 f"as the price_per_hour of {quoted(scenario.gpu)}: give the price once",
                 ("catalog", "gpus", scenario.gpu))]
    own.gpus[scenario.gpu] = entry.model_copy(update={"price_per_hour": scenario.price_per_gpu_hour})
    scenario.price_per_gpu_hour = None
    return []


def _as_catalog_rows(own) -> None:
    """The scenario's Catalog entries as the Catalog sheet's rows show them: what equals what ships dropped, a new
    model's head dim filled in and a dense grouped-query model's defaults (blank cells) left out."""
    for entries, shipped_entries in ((own.models, shipped.MODELS), (own.gpus, shipped.GPUS),
                                     (own.precisions, shipped.PRECISIONS), (own.api_offers, shipped.API_OFFERS)):
        for key in list(entries):
            entries[key] = without_shipped(entries[key], shipped_entries.get(key))
            if entries[key] is None:
                del entries[key]
    for key, model in own.models.items():
        if model.head_dim is None and model.hidden and model.heads and model.hidden % model.heads == 0:
            model.head_dim = model.hidden // model.heads
        if key not in shipped.MODELS:
            for field, default in MODEL_DEFAULTS.items():
                if getattr(model, field) == default:
                    setattr(model, field, None)
    for key, gpu in own.gpus.items():
        if key not in shipped.GPUS and gpu.gpus_per_node == shipped.GPU.gpus_per_node:
            gpu.gpus_per_node = None
    for entries, shipped_entries in ((own.traffic_presets, shipped.TRAFFIC_PRESETS),
                                     (own.profiles, shipped.PROFILES)):
        for key in [k for k, v in entries.items() if k in shipped_entries and tuple(sweeps.listed(v)) == tuple(
                sweeps.listed(shipped_entries[k]))]:
            del entries[key]


def _cross_checks(scenario) -> list[Problem]:
    """The catalog merged, the chosen ids in it, then each table's rules."""
    merged, problems = merge(scenario.catalog)
    if problems:
        return problems
    scenario._merged = merged
    for loc, value, kind, known, other in (
            (("model",), scenario.model, "model", merged.models, ", or a mapping describing a custom model"),
            (("gpu",), scenario.gpu, "GPU", merged.gpus, ", or a mapping describing a custom GPU")):
        if value not in known:
            problems.append((loc, value, unknown(kind, value, known) + other))
    if problems:
        return problems
    price = merged.gpus[scenario.gpu].price_per_hour
    if not (price and price > 0):  # the plan's GPU: every cost of the plan reads its price
        problems.append((("catalog", "gpus", scenario.gpu, "price_per_hour"), price, f"the plan's GPU {scenario.gpu} "
                         "needs a price per GPU-hour above 0: every cost of the plan reads it"))
        return problems
    for t in TABLES:
        problems += t.inputs.cross_checks(scenario, merged)
    return problems


def _written_at(key: tuple, aliases: dict) -> tuple:
    """A key path as the user wrote it: catalog.models.<name>.x of an inline model is model.x."""
    for alias, at in aliases.items():
        if key[:len(alias)] == alias:
            return at + key[len(alias):]
    return key


def parse_scenario(data: Any, source: str = "<scenario>", lines: dict | None = None,
                   folder: Path | None = None) -> Scenario:
    """Validate already-loaded data; raise ScenarioError with every problem found. Files it names (a model's
    config.json) are read relative to `folder` (default: the working folder)."""
    folder = folder or Path.cwd()
    if not isinstance(data, dict):
        raise ScenarioError([f"{source}: the file must be a mapping of keys (name: ..., model: ...),"
                             f" not {type(data).__name__}"])
    lines, model = lines or {}, _scenario_model()
    try:
        scenario = model.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError([describe(model, e, source, lines) for e in exc.errors()],
                            [tuple(p for p in e["loc"] if p not in UNION_TAGS) for e in exc.errors()]) from None
    problems = _canonical(scenario, folder)
    problems = problems or _cross_checks(scenario)
    if problems:
        located = {**lines, **{key: lines[at] for key, at in scenario._aliases.items() if at in lines}}
        problems = [(_written_at(p[0], scenario._aliases), *p[1:]) for p in problems]
        raise ScenarioError([describe_problem(p, source, located) for p in problems], [p[0] for p in problems])
    if scenario.sweep:  # each variant parsed and checked in turn, none kept: each is made again when it is wanted
        scenario._variants = sweeps.Variants(scenario, source, lines,
                                             lambda data, at: parse_scenario(data, at, folder=folder))
        scenario._variants.check()
    scenario._named = named_scenarios.variants(scenario, source, lines,
                                               lambda data, at: parse_scenario(data, at, folder=folder))
    return scenario


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file, and the files it names (each table's external data, the sweep's
    variants' too): a bad one stops here, before anything is written."""
    path = Path(path)
    from planner import yamlfile

    try:
        data, lines = yamlfile.read(path)
    except yamlfile.YAMLFileError as exc:
        raise ScenarioError(exc.problems) from None
    scenario = parse_scenario(data, str(path), lines, path.parent)
    load_external(scenario, path, lines)
    return scenario


def load_external(scenario, path: Path | None, lines: dict) -> None:
    """Each table's external data, for the scenario, for each named scenario, and for each variant of its sweep as
    the variant is made (shared where the variant's sections of that table equal the scenario's); a sweep that
    changes those sections has its variants' data read once here, each variant let go, so that a missing log stops
    the file before anything is written."""
    scenario._source = path
    before = {t.key: {k: scenario.model_dump(include={k}) for k in t.inputs.SECTIONS} for t in TABLES
              if t.inputs.EXTERNAL is not None}
    folder = path.parent if path else Path.cwd()
    for key in before:
        hook = table(key).inputs.EXTERNAL
        scenario._external[key] = hook.load(scenario, folder, lines) if hook.wanted(scenario) else None
    at, _ = where(("sweep",), str(path or "<scenario>"), lines)

    def ready(label: str, variant) -> None:
        variant._source = path
        variant._shown_as = f"{at}: sweep variant [{cut(label)}]"
        for key, sections_before in before.items():
            hook = table(key).inputs.EXTERNAL
            if {k: variant.model_dump(include={k}) for k in sections_before} == sections_before:
                variant._external[key] = scenario._external[key]
                for k in sections_before:  # the file entries as read
                    setattr(variant, k, getattr(scenario, k).model_copy(deep=True))
            else:  # its messages name the sweep's line and the variant (source_name)
                variant._external[key] = hook.load(variant, folder, {}) if hook.wanted(variant) else None

    for label, variant in scenario.named_scenarios():
        ready(label, variant)
    if scenario._variants is not None:
        scenario._variants.ready = ready
        sections = {k for t in TABLES if t.inputs.EXTERNAL is not None for k in t.inputs.SECTIONS}
        scenario._variants.shares_inputs = not any(key.split(".")[0] in sections for key in scenario._variants.keys)
        if not scenario._variants.shares_inputs:  # each variant's own files read once here, and let go
            scenario._variants.check(said=False)


def __getattr__(name: str):
    """Scenario, the model (_scenario_model), and DEFAULT, the built-in default scenario (the method's defaults),
    each made when first asked for: validating DEFAULT imports the engine, which `planner schema` does not need."""
    if name == "Scenario":
        return _scenario_model()
    if name == "DEFAULT":
        globals()["DEFAULT"] = parse_scenario({"name": "default", "description": "The method's defaults "
                                                                                 "(docs/method.md)"})
        return globals()["DEFAULT"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
