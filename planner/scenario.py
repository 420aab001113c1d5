"""The input model: a YAML scenario file → a validated, typed Scenario with METHOD.md's defaults.

Every error names the file, the key path, the YAML line, the value and what is allowed.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    ValidationError,
    field_validator,
    model_validator,
)

from planner import catalog, yamlfile
from planner.engine.memory import params_from_architecture

Count = Annotated[int, Field(ge=1)]
NonNegativeCount = Annotated[int, Field(ge=0)]
Positive = Annotated[float, Field(gt=0)]
NonNegative = Annotated[float, Field(ge=0)]
Share = Annotated[float, Field(gt=0, le=1)]  # a share of peak or of time: 0 < x ≤ 1
Fraction = Annotated[float, Field(ge=0, le=1)]


class ScenarioError(Exception):
    """A scenario that cannot be used; `problems` holds one line per problem, each naming file, line and key."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


def _did_you_mean(word: str, allowed) -> str:
    close = difflib.get_close_matches(str(word), list(allowed), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def _catalog_id(kind: str, known: dict):
    def check(value: str) -> str:
        if value not in known:
            raise ValueError(
                f"unknown {kind} '{value}'{_did_you_mean(value, known)} allowed: {', '.join(known)},"
                f" or a mapping describing a custom {kind}"
            )
        return value

    return AfterValidator(check)


def _catalog_name(kind: str, shipped: dict):
    """A custom entry's name becomes a Catalog id that spreadsheet MATCH looks up: it ignores case and treats
    * ? ~ as wildcards, so those are refused."""

    def check(name: str) -> str:
        if any(c in name for c in "*?~"):
            raise ValueError(f"a {kind} name may not contain * ? or ~ (spreadsheet wildcards)")
        clash = next((i for i in shipped if i.lower() == name.lower() and i != name), None)
        if clash:
            raise ValueError(f"{kind} name '{name}' differs from the catalog's '{clash}' only by case; spreadsheets "
                             f"match ids ignoring case: use '{clash}' to replace it or another name")
        return name

    return AfterValidator(check)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True)


class CustomModel(Section):
    """A model of the scenario's own; `params` is computed from the architecture when left out. Named like a
    catalog model, it replaces that entry."""

    name: Annotated[str, Field(min_length=1), _catalog_name("model", catalog.MODELS)]
    params: Positive | None = None
    layers: Count
    hidden: Count
    heads: Count
    kv_heads: Count
    head_dim: Count | None = None
    ffn: Count
    vocab: Count

    @model_validator(mode="after")
    def _fill_in(self):
        if self.head_dim is None:
            if self.hidden % self.heads:
                raise ValueError(
                    f"head_dim is not given and hidden {self.hidden} is not divisible by heads {self.heads}")
            self.head_dim = self.hidden // self.heads
        return self

    def to_catalog(self) -> catalog.Model:
        params = self.params
        if params is None:
            params = params_from_architecture(self.vocab, self.hidden, self.layers, self.kv_heads, self.head_dim,
                                              self.ffn)
        return catalog.Model(self.name, params, self.layers, self.hidden, self.heads, self.kv_heads,
                             self.head_dim, self.ffn, self.vocab)


class CustomGPU(Section):
    """A GPU of the scenario's own; named like a catalog GPU, it replaces that entry."""

    name: Annotated[str, Field(min_length=1), _catalog_name("GPU", catalog.GPUS)]
    memory_gb: Positive
    peak_tflops: Positive
    hbm_tbps: Positive

    def to_catalog(self) -> catalog.GPU:
        return catalog.GPU(self.name, self.memory_gb, self.peak_tflops, self.hbm_tbps)


def _by_type(value: Any) -> str:
    return "id" if isinstance(value, str) else "custom"


ModelChoice = Annotated[
    Union[Annotated[Annotated[str, _catalog_id("model", catalog.MODELS)], Tag("id")],
          Annotated[CustomModel, Tag("custom")]],
    Discriminator(_by_type),
]
GPUChoice = Annotated[
    Union[Annotated[Annotated[str, _catalog_id("GPU", catalog.GPUS)], Tag("id")],
          Annotated[CustomGPU, Tag("custom")]],
    Discriminator(_by_type),
]
_UNION_TAGS = {"id", "custom"}

Strategy = Annotated[
    Literal["ddp", "zero1", "zero2", "zero3"],
    BeforeValidator(lambda v: catalog.STRATEGY_ALIASES.get(v, v) if isinstance(v, str) else v),
]


class Memory(Section):
    gpus: Count = 8
    strategy: Strategy = "zero3"
    tensor_parallel: Count = 1
    pipeline_parallel: Count = 1
    sequence_length: Count = 8192
    micro_batch: Count = 1
    activation_checkpointing: bool = False

    @model_validator(mode="after")
    def _whole_data_parallel(self):
        t, p = self.tensor_parallel, self.pipeline_parallel
        if self.gpus % (t * p):
            raise ValueError(
                f"gpus {self.gpus} is not divisible by tensor_parallel {t} × pipeline_parallel {p} = {t * p};"
                " the data-parallel degree gpus / (t·p) must be a whole number")
        return self


class Serving(Section):
    users: Count = 32
    sequence_length: Count | None = None  # default: memory.sequence_length
    tensor_parallel: Count = 1


class Allocation(Section):
    gpus: Count
    mfu: Share


class Hours(Section):
    tokens: Positive = 15.6e12
    mfu: Share = 0.40
    activation_recompute: bool = False
    gpus: Count = 1024
    productive_share: Share = 1.0
    # Meta's Llama 3 report: 8192 GPUs at 43 % MFU and 16384 GPUs at 41 %.
    allocations: Annotated[list[Allocation], Field(min_length=1, max_length=20)] = [
        Allocation(gpus=8192, mfu=0.43), Allocation(gpus=16384, mfu=0.41)]


def _preset_or(kind: str, presets: dict, other: str, parse):
    """A preset name from the catalog, or a value of another form (a number, a list of 24 fractions)."""

    def check(value):
        if isinstance(value, str):
            if value not in presets:
                raise ValueError(f"unknown {kind} '{value}'{_did_you_mean(value, presets)} allowed:"
                                 f" {', '.join(presets)}, or {other}")
            return value
        try:
            return parse(value)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"expected a {kind} ({', '.join(presets)}) or {other}") from exc

    return BeforeValidator(check)


def _tokens_per_day(value):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
        raise ValueError(value)
    return float(value)


def _profile(value):
    if not isinstance(value, list) or len(value) != 24 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1 for v in value):
        raise ValueError(value)
    return [float(v) for v in value]


class Crossover(Section):
    tokens_per_day: Annotated[Union[str, float], _preset_or(
        "traffic preset", catalog.TRAFFIC_PRESETS, "a number of tokens per day ≥ 0", _tokens_per_day)] = \
        "popular-app"
    serving_mfu: Share = 0.10
    horizon_days: Positive = 730


class Cluster(Section):
    gpus: Count = 1024
    inference_peak_gpus: NonNegative = 600
    spare: NonNegative = 0.10
    profile: Annotated[Union[str, list[float]], _preset_or(
        "demand profile", catalog.DEMAND_PROFILES, "a list of 24 fractions of peak between 0 and 1", _profile)] = \
        "office-assistant"
    restart_cost_gpu_hours: NonNegative = 0.25


class SLO(Section):
    ttft_ms: Positive = 2000
    tpot_ms: Positive = 100


class Server(Section):
    name: Annotated[str, Field(min_length=1)]
    cost_per_hour: NonNegative
    completed_per_hour: Positive
    acceptable_per_hour: NonNegative

    @model_validator(mode="after")
    def _acceptable_within_completed(self):
        if self.acceptable_per_hour > self.completed_per_hour:
            raise ValueError(f"acceptable_per_hour {self.acceptable_per_hour} exceeds completed_per_hour "
                             f"{self.completed_per_hour}")
        return self


class BenchmarkFile(Section):
    path: Annotated[str, Field(min_length=1)]
    rate: Positive | None = None


class Benchmark(Section):
    name: Annotated[str, Field(min_length=1)]
    files: Annotated[list[Union[str, BenchmarkFile]], Field(min_length=1)]
    gpus: Count = 1
    standby_gpus: NonNegativeCount = 0


class Goodput(Section):
    slo: SLO = SLO()
    attainment_target: Share = 0.90
    servers: list[Server] = [
        Server(name="A", cost_per_hour=2.0, completed_per_hour=1000, acceptable_per_hour=800),
        Server(name="B", cost_per_hour=2.0, completed_per_hour=900, acceptable_per_hour=890)]
    benchmarks: list[Benchmark] = []


class Scenario(Section):
    name: Annotated[str, Field(min_length=1, coerce_numbers_to_str=True)]
    description: Annotated[str, Field(coerce_numbers_to_str=True)] = ""
    model: ModelChoice = "llama-3.1-8b"
    gpu: GPUChoice = "h100-sxm"
    price_per_gpu_hour: NonNegative = 2.00
    memory: Memory = Memory()
    serving: Serving = Serving()
    hours: Hours = Hours()
    crossover: Crossover = Crossover()
    cluster: Cluster = Cluster()
    goodput: Goodput = Goodput()
    sweep: dict[str, Annotated[list[Any], Field(min_length=1)]] | None = None
    _source: Path | None = PrivateAttr(default=None)  # the file it was read from; relative paths start there

    @model_validator(mode="after")
    def _defaults_from_other_sections(self):
        if self.serving.sequence_length is None:
            self.serving.sequence_length = self.memory.sequence_length
        return self

    @field_validator("sweep")
    @classmethod
    def _sweep_keys_exist(cls, sweep):
        for key in sweep or {}:
            _check_key_path(key)
        return sweep

    # Resolved catalog entries ------------------------------------------------------------------------
    def models(self) -> list[catalog.Model]:
        """The catalog's models with the scenario's own replacing or joining them."""
        own = catalog.MODELS[self.model] if isinstance(self.model, str) else self.model.to_catalog()
        return _with_own(catalog.MODELS, own)

    def gpus(self) -> list[catalog.GPU]:
        return _with_own(catalog.GPUS, self.gpu_spec())

    def model_spec(self) -> catalog.Model:
        if isinstance(self.model, str):
            return catalog.MODELS[self.model]
        return next(m for m in self.models() if m.id == self.model.name)

    def gpu_spec(self) -> catalog.GPU:
        return catalog.GPUS[self.gpu] if isinstance(self.gpu, str) else self.gpu.to_catalog()

    @property
    def model_id(self) -> str:
        return self.model if isinstance(self.model, str) else self.model.name

    @property
    def gpu_id(self) -> str:
        return self.gpu if isinstance(self.gpu, str) else self.gpu.name

    @property
    def slug(self) -> str:
        return slugify(self.name)

    def normalised(self) -> dict:
        """The scenario with every default filled in, as plain JSON-able data."""
        return self.model_dump(mode="json", exclude_none=True)


def _with_own(shipped: dict, own) -> list:
    """The shipped entries with the scenario's own in its place (or appended); a replaced model keeps Meta's
    reported hours, a fact about that id."""
    entries = dict(shipped)
    if getattr(own, "reported_h100_hours", 0) is None and own.id in shipped:
        own = dataclasses.replace(own, reported_h100_hours=shipped[own.id].reported_h100_hours)
    entries[own.id] = own
    return list(entries.values())


def _check_key_path(dotted: str) -> None:
    cls: type[BaseModel] = Scenario
    for part in dotted.split("."):
        fields = cls.model_fields
        if part not in fields:
            raise ValueError(f"sweep key '{dotted}': no key '{part}'{_did_you_mean(part, fields)}"
                             f" allowed: {', '.join(fields)}")
        annotation = fields[part].annotation
        cls = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
        if cls is None:
            break


def slugify(name: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:80].strip("-")
    return slug or "scenario"


DEFAULT = Scenario(name="default", description="METHOD.md's defaults: Llama 3.1 8B on H100 SXM")


def _allowed_keys(loc: tuple) -> list[str]:
    cls: Any = Scenario
    for part in loc:
        if isinstance(part, int) or part in _UNION_TAGS:
            continue
        field = cls.model_fields.get(part) if isinstance(cls, type) and issubclass(cls, BaseModel) else None
        if field is None:
            return []
        cls = _section_class(field.annotation)
    return list(cls.model_fields) if isinstance(cls, type) and issubclass(cls, BaseModel) else []


def _section_class(annotation):
    """The BaseModel class inside an annotation such as list[Allocation] or Union[str, CustomModel]."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()) or getattr(annotation, "__metadata__", ()):
        found = _section_class(arg)
        if found is not None:
            return found
    origin = getattr(annotation, "__origin__", None)
    return _section_class(origin) if origin is not None and origin is not annotation else None


def _describe(error: dict, source: str, lines: dict) -> str:
    loc = tuple(p for p in error["loc"] if p not in _UNION_TAGS)
    key = ".".join(str(p + 1) if isinstance(p, int) else p for p in loc) or "(top level)"
    line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), None)
    # `lines` holds YAML line numbers, or cell addresses for a scenario read from a workbook
    where = f"{source}:{line}" if isinstance(line, int) else f"{source}: {line}" if line else source
    kind = error["type"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(loc[:-1])
        return (f"{where}: {key}: unknown key{_did_you_mean(loc[-1], allowed)}"
                f" allowed here: {', '.join(allowed)}")
    if kind == "missing":
        return f"{where}: {key}: required key is missing"
    message = error["msg"].removeprefix("Value error, ")
    if isinstance(error["input"], (dict, list)):
        return f"{where}: {key}: {message}"
    return f"{where}: {key}: value {error['input']!r} is not allowed: {message}"


def parse_scenario(data: Any, source: str = "<scenario>", lines: dict | None = None) -> Scenario:
    """Validate already-loaded data; raise ScenarioError with every problem found."""
    if not isinstance(data, dict):
        raise ScenarioError([f"{source}: the file must be a mapping of keys (name: ..., model: ...),"
                             f" not {type(data).__name__}"])
    try:
        return Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError([_describe(e, source, lines or {}) for e in exc.errors()]) from None


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file."""
    path = Path(path)
    try:
        data, lines = yamlfile.read(path)
    except yamlfile.YAMLFileError as exc:
        raise ScenarioError(exc.problems) from None
    scenario = parse_scenario(data, str(path), lines)
    scenario._source = path
    return scenario
