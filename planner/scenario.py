"""The input model: a YAML scenario file → a validated, typed Scenario with METHOD.md's defaults.

Each input is declared once, here: its type, default, allowed range, label, unit and note. Validation, the
workbook's Inputs sheet (data validation included) and its Checks sheet all read these declarations, so they cannot
disagree. Every error names the file, the key path, the YAML line (or the workbook cell), the value and what is
allowed.
"""

from __future__ import annotations

import copy
import difflib
import itertools
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

from planner import catalog
from planner.catalog import params_from_architecture

COUNT_MAX = 10**9  # the largest count any input takes (GPUs, users, sequence length, …)
MAX_VARIANTS = 10_000  # a sweep's cartesian product is capped


class ScenarioError(Exception):
    """A scenario that cannot be used; `problems` holds one line per problem, each naming file, line and key;
    `keys` the key path of each problem, where known (an audit sets those inputs aside and reads the rest)."""

    def __init__(self, problems: list[str], keys: list[tuple] | None = None):
        super().__init__("\n".join(problems))
        self.problems = problems
        self.keys = keys or []


def _did_you_mean(word: str, allowed) -> str:
    close = difflib.get_close_matches(str(word), [str(a) for a in allowed], n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


# Types and declarations ------------------------------------------------------------------------------------
def _whole(value):
    """YAML writes 15.6e12 and 1e3 as floats: a whole float is a count; 8.5 stays a float and is refused."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def whole(ge: int = 1, le: float = COUNT_MAX):
    return Annotated[int, BeforeValidator(_whole), Field(ge=ge, le=le)]


Count = whole(1)
Share = Annotated[float, Field(ge=0.001, le=1)]  # MFU, productive share, attainment: 0.1 % … 100 %
Money = Annotated[float, Field(ge=0, le=1e6)]


def declared(default: Any = ..., label: str = "", unit: str = "", note: str = "", *, kind: str = "number",
             choices: str | None = None, **limits) -> Any:
    """An input's default, allowed range and words, read by validation, the Inputs sheet and the Checks sheet.

    `kind` is how the workbook shows it (a kit.KINDS key); `choices` a workbook name whose values a dropdown
    offers (catalog_model_ids, …)."""
    extra = {"label": label, "unit": unit, "kind": kind}
    if choices:
        extra["choices"] = choices
    return Field(default, description=note or None, json_schema_extra=extra, **limits)


class Section(BaseModel):
    model_config = ConfigDict(extra="forbid", validate_default=True, strict=True, allow_inf_nan=False)


def _catalog_id(kind: str):
    """A Catalog id: spreadsheet MATCH ignores case and treats * ? ~ as wildcards, so those are refused."""

    def check(name: str) -> str:
        if any(c in name for c in "*?~"):
            raise ValueError(f"a {kind} id may not contain * ? or ~ (spreadsheet wildcards)")
        if name != name.strip():
            raise ValueError(f"a {kind} id may not start or end with a space")
        return name

    return Annotated[str, Field(min_length=1, max_length=64), AfterValidator(check)]


ModelId = _catalog_id("model")
GPUId = _catalog_id("GPU")
PresetId = _catalog_id("traffic preset")
ProfileId = _catalog_id("demand profile")

# Catalog entries: a new id needs every field without a default; a shipped id may override any of them.
ARCHITECTURE_LIMITS = {"layers": 10_000, "hidden": 10**6, "heads": 10**5, "kv_heads": 10**5, "head_dim": 10**5,
                       "ffn": 10**7, "vocab": 10**8}


class ModelEntry(Section):
    """A model in the Catalog (METHOD.md, "Catalog"); Ψ is computed from the architecture when left out."""

    params: Annotated[float, Field(ge=1, le=1e15)] | None = declared(
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

    @model_validator(mode="after")
    def _heads_fit(self):
        if self.heads and self.kv_heads and self.heads % self.kv_heads:
            raise ValueError(f"kv_heads {self.kv_heads} does not divide heads {self.heads}; allowed kv_heads: "
                             f"{_divisors(self.heads)}")
        return self


class CustomModel(ModelEntry):
    """A model of the scenario's own, given inline as `model:`; it joins the Catalog under its name."""

    name: ModelId
    layers: whole(1, ARCHITECTURE_LIMITS["layers"])
    hidden: whole(1, ARCHITECTURE_LIMITS["hidden"])
    heads: whole(1, ARCHITECTURE_LIMITS["heads"])
    kv_heads: whole(1, ARCHITECTURE_LIMITS["kv_heads"])
    ffn: whole(1, ARCHITECTURE_LIMITS["ffn"])
    vocab: whole(1, ARCHITECTURE_LIMITS["vocab"])

    @model_validator(mode="after")
    def _head_dim_from_hidden(self):
        if self.head_dim is None and self.hidden % self.heads:
            raise ValueError(f"head_dim is not given and hidden {self.hidden} is not divisible by heads {self.heads}")
        return self


class GPUEntry(Section):
    """A GPU in the Catalog: memory, dense BF16 peak, HBM bandwidth and price per GPU-hour."""

    memory_gb: Annotated[float, Field(ge=0.001, le=1e6)] | None = declared(None, "Memory", "GB", kind="gb")
    peak_tflops: Annotated[float, Field(ge=0.001, le=1e6)] | None = declared(
        None, "Dense BF16 peak", "TFLOPS", "Without sparsity.", kind="number")
    hbm_tbps: Annotated[float, Field(ge=0.001, le=1e4)] | None = declared(None, "HBM bandwidth", "TB/s",
                                                                          kind="decimal")
    price_per_hour: Money | None = declared(None, "Price", "per GPU-hour", "Illustrative list price.",
                                            kind="money")


class CustomGPU(GPUEntry):
    """A GPU of the scenario's own, given inline as `gpu:`; it joins the Catalog under its name."""

    name: GPUId
    memory_gb: Annotated[float, Field(ge=0.001, le=1e6)]
    peak_tflops: Annotated[float, Field(ge=0.001, le=1e6)]
    hbm_tbps: Annotated[float, Field(ge=0.001, le=1e4)]


Fraction = Annotated[float, Field(ge=0, le=1)]
Profile = Annotated[list[Fraction], Field(min_length=catalog.HOURS_PER_DAY, max_length=catalog.HOURS_PER_DAY)]
# Served tokens are counted: 0 (no traffic: serving never overtakes) or at least one token a day, so the crossing
# day C / (2·Ψ·D) stays finite over the whole allowed range.
TokensPerDay = whole(0, 1e18)


class CatalogSection(Section):
    """Entries added to the shipped catalog, or overriding it by id (a shipped id may give only what changes)."""

    models: dict[ModelId, ModelEntry] = {}
    gpus: dict[GPUId, GPUEntry] = {}
    traffic_presets: dict[PresetId, TokensPerDay] = {}
    profiles: dict[ProfileId, Profile] = {}


def _by_type(value: Any) -> str:
    return "id" if isinstance(value, str) else "custom"


def _choice(id_type, custom):
    return Annotated[Union[Annotated[id_type, Tag("id")], Annotated[custom, Tag("custom")]], Discriminator(_by_type)]


_UNION_TAGS = {"id", "custom", "number"}

Strategy = Annotated[
    Literal["ddp", "zero1", "zero2", "zero3"],
    BeforeValidator(lambda v: catalog.STRATEGY_ALIASES.get(v, v) if isinstance(v, str) else v),
]


# The inputs, one section per table -------------------------------------------------------------------------
class Memory(Section):
    model_config = ConfigDict(title="Training memory")

    gpus: Count = declared(8, "GPUs in the sharding group N", "GPUs", "The GPUs the model state is sharded over "
                           "(t × p × d); a multiple of t × p.", kind="count")
    strategy: Strategy = declared("zero3", "Strategy", "", "ddp replicates everything; zero1 shards the optimizer "
                                  "state, zero2 also gradients, zero3 (= FSDP) also weights.", kind="text",
                                  choices="catalog_strategy_ids")
    tensor_parallel: Count = declared(1, "Tensor parallel t", "GPUs", "Divides the model state and (with sequence "
                                      "parallelism) activations; divides the attention heads.", kind="count")
    pipeline_parallel: Count = declared(1, "Pipeline parallel p", "GPUs", "Divides the model state; at most the "
                                        "layers. The first stage still holds a full set of activations (1F1B).",
                                        kind="count")
    sequence_length: Count = declared(8192, "Sequence length s", "tokens", "Tokens per training sequence; "
                                      "activations grow linearly with it.", kind="count")
    micro_batch: Count = declared(1, "Micro-batch b", "sequences", "Sequences per GPU per forward pass.",
                                  kind="count")
    activation_checkpointing: bool = declared(False, "Activation checkpointing", "", "Keep each layer's input and "
                                              "recompute the rest in the backward pass.", kind="bool")

    @model_validator(mode="after")
    def _whole_data_parallel(self):
        t, p = self.tensor_parallel, self.pipeline_parallel
        if self.gpus % (t * p):
            raise ValueError(
                f"gpus {self.gpus} is not divisible by tensor_parallel {t} × pipeline_parallel {p} = {t * p};"
                " the data-parallel degree gpus / (t·p) must be a whole number")
        return self


class Serving(Section):
    model_config = ConfigDict(title="Serving memory")

    users: Count = declared(32, "Concurrent users u", "users", "Each holds a KV cache of s_s tokens.", kind="count")
    sequence_length: Count | None = declared(None, "Serving sequence length s_s", "tokens",
                                             "Defaults to the training sequence length.", kind="count")
    tensor_parallel: Count = declared(1, "Serving tensor parallel t_s", "GPUs", "Splits weights and KV cache "
                                      "across GPUs; divides the attention heads.", kind="count")


class Allocation(Section):
    model_config = ConfigDict(title="Allocation option")

    gpus: Count = declared(..., "GPUs", "GPUs", "GPUs allocated to the run in this option.", kind="count")
    mfu: Share = declared(..., "MFU", "of peak", "MFU expected at that scale; Meta's Llama 3: 43 % on 8,192 GPUs, "
                          "41 % on 16,384.", kind="percent")


class Hours(Section):
    model_config = ConfigDict(title="Training hours and cost")

    tokens: whole(10**6, 1e18) = declared(15_600_000_000_000, "Training tokens T", "T tokens", "Shown in "
                                          "trillions: type the whole count (15.6 T = 15600000000000). Llama 3.1: "
                                          "about 15.6 T.", kind="tera")
    mfu: Share = declared(0.40, "Model FLOPs utilisation (MFU)", "of peak", "Share of the dense BF16 peak achieved; "
                          "Meta reports 38-43 % for Llama 3.1 405B.", kind="percent")
    activation_recompute: bool = declared(False, "Activation recomputation", "", "One extra forward pass: 8·Ψ·T "
                                          "operations instead of 6·Ψ·T.", kind="bool")
    gpus: Count = declared(1024, "GPUs in the run N_run", "GPUs", "The run's allocation: sets the wall-clock days "
                           "and is the first row of the allocation options.", kind="count")
    productive_share: Share = declared(1.0, "Productive share q", "of time", "Share of allocated time doing useful "
                                       "training; restarts, checkpointing and failed runs lower it. 100 % = the "
                                       "pure calculation.", kind="percent")
    # Meta's Llama 3 report: 8192 GPUs at 43 % MFU and 16384 GPUs at 41 %.
    allocations: Annotated[list[Allocation], Field(min_length=1, max_length=20)] = declared(
        [Allocation(gpus=8192, mfu=0.43), Allocation(gpus=16384, mfu=0.41)], "Allocation option")


class Crossover(Section):
    model_config = ConfigDict(title="Crossover: serving against training")

    tokens_per_day: Annotated[Union[Annotated[PresetId, Tag("id")], Annotated[TokensPerDay, Tag("number")]],
                              Discriminator(lambda v: "id" if isinstance(v, str) else "number")] = declared(
        "popular-app", "Served tokens per day D", "tokens per day", "A traffic preset from Catalog, or a whole "
        "number of tokens (0: no traffic).", kind="count", choices="catalog_traffic_preset_ids")
    serving_mfu: Share = declared(0.10, "Serving MFU", "of peak", "Decode is bound by memory bandwidth: serving "
                                  "often reaches a small share of peak.", kind="percent")
    horizon_days: whole(1, 36_500) = declared(730, "Horizon", "days", "Days after launch the table covers.",
                                              kind="count")


class Cluster(Section):
    model_config = ConfigDict(title="Cluster over 24 hours")

    gpus: Count = declared(1024, "Cluster GPUs N", "GPUs", "The whole cluster, for inference and training.",
                           kind="count")
    inference_peak_gpus: whole(0) = declared(600, "Inference peak P", "GPUs", "GPUs inference needs at its busiest "
                                             "hour.", kind="count")
    spare: Annotated[float, Field(ge=0, le=10)] = declared(0.10, "Spare share r", "of demand", "Held ready for "
                                                            "failures and spikes: separate pools add it to the "
                                                            "peak, a shared cluster to each hour's demand.",
                                                            kind="percent")
    profile: _choice(ProfileId, Profile) = declared("office-assistant", "Demand profile", "", "24 hourly fractions of "
                                                  "the peak, one profile per column on Catalog; add your own there.",
                                                  kind="text",
                                                  choices="catalog_profile_ids")
    restart_cost_gpu_hours: Annotated[float, Field(ge=0, le=1000)] = declared(
        0.25, "Restart cost c", "GPU-hours", "Per preempted GPU: work since the last checkpoint plus restart.",
        kind="decimal")


class SLO(Section):
    model_config = ConfigDict(title="Service-level objective")

    ttft_ms: Annotated[float, Field(ge=0.001, le=1e9)] = declared(2000, "SLO: time to first token", "ms",
                                                                   kind="number")
    tpot_ms: Annotated[float, Field(ge=0.001, le=1e9)] = declared(100, "SLO: time per output token", "ms",
                                                                   kind="number")


class Server(Section):
    model_config = ConfigDict(title="Server")

    name: Annotated[str, Field(min_length=1, max_length=64)] = declared(..., "Name", "", kind="text")
    cost_per_hour: Money = declared(..., "Cost", "per hour", kind="money")
    completed_per_hour: Annotated[float, Field(ge=0.001, le=1e12)] = declared(..., "Completed requests per hour",
                                                                              "requests", kind="number")
    acceptable_per_hour: Annotated[float, Field(ge=0, le=1e12)] = declared(..., "Acceptable requests per hour",
                                                                           "requests", kind="number")

    @model_validator(mode="after")
    def _acceptable_within_completed(self):
        if self.acceptable_per_hour > self.completed_per_hour:
            raise ValueError(f"acceptable_per_hour {self.acceptable_per_hour} exceeds completed_per_hour "
                             f"{self.completed_per_hour}")
        return self


class BenchmarkFile(Section):
    """A benchmark log file (or glob) with what its log may not say: the request rate (vLLM writes 'inf' for an
    unpaced run; llmperf runs at a concurrency) and, for llmperf, the run's duration."""

    path: Annotated[str, Field(min_length=1, max_length=4096)]
    rate: Annotated[float, Field(gt=0, le=1e9)] | None = None  # requests per second
    duration_s: Annotated[float, Field(ge=0.001, le=1e6)] | None = None  # planner.logs' bounds on a duration


class Benchmark(Section):
    model_config = ConfigDict(title="Benchmark")

    name: Annotated[str, Field(min_length=1, max_length=64)] = declared(..., "Name", "", kind="text")
    files: Annotated[list[_choice(Annotated[str, Field(min_length=1, max_length=4096)], BenchmarkFile)],
                     Field(min_length=1, max_length=100)]  # read into the Requests sheet: one run per file
    gpu: GPUId | None = declared(None, "GPU", "", "The GPU the benchmark ran on (a Catalog id; left out: the "
                                 "scenario's GPU): its price costs the runs.", kind="text",
                                 choices="catalog_gpu_ids")
    gpus: Count = declared(1, "GPUs", "GPUs", "GPUs serving during the benchmark; per-GPU goodput divides by "
                           "them.", kind="count")
    standby_gpus: whole(0) = declared(0, "Standby GPUs", "GPUs", "Idle capacity held ready, paid for.",
                                      kind="count")


class Goodput(Section):
    model_config = ConfigDict(title="Goodput")

    slo: SLO = SLO()
    attainment_target: Share = declared(0.90, "Attainment target", "of requests", "DistServe goodput: the highest "
                                        "request rate at which this share meets the SLO.", kind="percent")
    servers: Annotated[list[Server], Field(min_length=1, max_length=20)] = declared(
        [Server(name="A", cost_per_hour=2.0, completed_per_hour=1000, acceptable_per_hour=800),
         Server(name="B", cost_per_hour=2.0, completed_per_hour=900, acceptable_per_hour=890)], "Server")
    benchmarks: Annotated[list[Benchmark], Field(max_length=20)] = declared([], "Benchmark")


CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹"}


class Scenario(Section):
    name: Annotated[str, Field(min_length=1, max_length=200, coerce_numbers_to_str=True)]
    description: Annotated[str, Field(max_length=2000, coerce_numbers_to_str=True)] = ""
    model: _choice(ModelId, CustomModel) = declared("llama-3.1-8b", "Model", "", "A Catalog model; choosing another "
                                                    "updates every sheet.", kind="text", choices="catalog_model_ids")
    gpu: _choice(GPUId, CustomGPU) = declared("h100-sxm", "GPU", "", "A Catalog GPU: memory, peak, bandwidth and "
                                              "price.", kind="text", choices="catalog_gpu_ids")
    price_per_gpu_hour: Money | None = None  # overrides the chosen GPU's Catalog price (moved there when read)
    currency: Annotated[str, Field(pattern=r"^[A-Z]{3}$")] = "USD"
    memory: Memory = Memory()
    serving: Serving = Serving()
    hours: Hours = Hours()
    crossover: Crossover = Crossover()
    cluster: Cluster = Cluster()
    goodput: Goodput = Goodput()
    catalog: CatalogSection = CatalogSection()
    sweep: Annotated[dict[str, Annotated[list[Any], Field(min_length=1, max_length=1000)]], Field(max_length=20)] \
        | None = None
    _source: Path | None = PrivateAttr(default=None)  # the file it was read from; relative paths start there
    _merged: catalog.Catalog | None = PrivateAttr(default=None)
    _logs: Any = PrivateAttr(default=None)  # planner.logs.Logs: the benchmark logs, read once
    _variants: list = PrivateAttr(default_factory=list)  # the sweep's variants, parsed once when it was checked

    @model_validator(mode="after")
    def _canonical(self):
        """One spelling per scenario, so a workbook reads back as the scenario that made it: inline custom entries
        join `catalog` under their names, the price override becomes the chosen GPU's Catalog price, overrides equal
        to what ships are dropped, and defaults that follow other inputs are filled in."""
        own = self.catalog
        if not isinstance(self.model, str):
            entry = self.model
            own.models[entry.name] = ModelEntry(**entry.model_dump(exclude={"name"}, exclude_none=True))
            self.model = entry.name
        if not isinstance(self.gpu, str):
            entry = self.gpu
            own.gpus[entry.name] = GPUEntry(**entry.model_dump(exclude={"name"}, exclude_none=True))
            self.gpu = entry.name
        if not isinstance(self.cluster.profile, str):
            own.profiles["custom"] = self.cluster.profile
            self.cluster.profile = "custom"
        if self.price_per_gpu_hour is not None:
            entry = own.gpus.get(self.gpu) or GPUEntry()
            own.gpus[self.gpu] = entry.model_copy(update={"price_per_hour": self.price_per_gpu_hour})
            self.price_per_gpu_hour = None
        for entries, shipped in ((own.models, catalog.MODELS), (own.gpus, catalog.GPUS)):
            for key in list(entries):
                entries[key] = _without_shipped(entries[key], shipped.get(key))
                if not entries[key].model_fields_set and key in shipped:
                    del entries[key]
        for entries, shipped in ((own.traffic_presets, catalog.TRAFFIC_PRESETS), (own.profiles, catalog.PROFILES)):
            for key in [k for k, v in entries.items() if k in shipped and tuple(_listed(v)) == tuple(_listed(
                    shipped[k]))]:
                del entries[key]
        if self.serving.sequence_length is None:
            self.serving.sequence_length = self.memory.sequence_length
        for bench in self.goodput.benchmarks:
            bench.gpu = bench.gpu or self.gpu  # a benchmark ran on its own hardware: fixed when first read
        return self

    @field_validator("sweep")
    @classmethod
    def _sweep_keys_exist(cls, sweep):
        for key in sweep or {}:
            _check_key_path(key)
        return sweep

    # The merged catalog and the chosen entries -----------------------------------------------------------
    @property
    def merged_catalog(self) -> catalog.Catalog:
        """The shipped catalog with this scenario's entries added or overriding by id."""
        if self._merged is None:
            merged, problems = _merge(self.catalog)
            if problems:
                raise ScenarioError([f"{'.'.join(map(str, loc))}: {message}" for loc, _, message in problems])
            self._merged = merged
        return self._merged

    @property
    def chosen_model(self) -> catalog.Model:
        return self.merged_catalog.models[self.model]

    @property
    def chosen_gpu(self) -> catalog.GPU:
        return self.merged_catalog.gpus[self.gpu]

    @property
    def gpu_price(self) -> float:
        """Price per GPU-hour: the chosen GPU's Catalog price (the scenario's price_per_gpu_hour lands there)."""
        return self.chosen_gpu.price_per_hour

    @property
    def currency_symbol(self) -> str:
        return CURRENCY_SYMBOLS.get(self.currency, self.currency)

    @property
    def benchmark_logs(self):
        """The benchmark logs' runs and requests (planner.logs.Logs), None without benchmarks: read from the files
        on first use, relative to the scenario file's folder; a scenario read from a workbook brings them from its
        Requests sheet."""
        if self._logs is None and self.goodput.benchmarks:
            self.read_logs()
        return self._logs

    def read_logs(self, lines: dict | None = None) -> None:
        """Read every benchmark's log files; each file entry then names one file with its rate (a glob's matches
        each become an entry, ordered by rate), so the scenario says exactly what was read. Raises ScenarioError
        naming the scenario file, the line, the entry, the log file and its field."""
        if not self.goodput.benchmarks:
            return
        from planner import logs  # pandas is imported only by scenarios with benchmarks

        folder = self._source.parent if self._source else Path.cwd()
        entries = [[logs.FileEntry(f, None, None) if isinstance(f, str) else logs.FileEntry(f.path, f.rate,
                                                                                          f.duration_s)
                    for f in bench.files] for bench in self.goodput.benchmarks]
        try:
            self._logs, read = logs.read_benchmarks(entries, folder)
        except logs.LogError as exc:
            b, e = exc.entry
            source = str(self._source or "<scenario>")
            where, key = _where(("goodput", "benchmarks", b - 1, "files", e - 1), source, lines or {})
            raise ScenarioError([f"{where}: {key}: {exc}"]) from None
        for bench, files in zip(self.goodput.benchmarks, read):
            bench.files = [BenchmarkFile(**f) for f in files]

    @property
    def slug(self) -> str:
        return slugify(self.name)

    def normalised(self) -> dict:
        """The scenario with every default filled in, as plain JSON-able data."""
        return self.model_dump(mode="json", exclude_none=True)

    def variants(self) -> list[tuple[str, "Scenario"]]:
        """The sweep's cartesian product: (label, scenario) for each, named after its values ("zero3, 8192");
        [] without a sweep. Every variant was validated (and parsed) when the scenario was."""
        for _, variant in self._variants:
            variant._source = self._source
            if variant.goodput.benchmarks == self.goodput.benchmarks:
                variant._logs = self._logs  # the same files: read once
        return self._variants


def _variant_data(scenario: Scenario) -> list[tuple[str, dict]]:
    if not scenario.sweep:
        return []
    keys = list(scenario.sweep)
    base = scenario.model_dump(mode="json", exclude_none=True, exclude={"sweep"})
    found = []
    for values in itertools.product(*scenario.sweep.values()):
        data = _with_changes(base, dict(zip(keys, values)))
        label = ", ".join(f"{key}={_plain_text(value)}" for key, value in zip(keys, values))
        data["name"] = f"{scenario.name} [{label}]"
        found.append((label, data))
    return found


def _sweep_problems(scenario: Scenario, source: str, lines: dict) -> list[str]:
    """Every variant of a sweep validated as a scenario of its own; at most MAX_VARIANTS of them."""
    if not scenario.sweep:
        return []
    where, _ = _where(("sweep",), source, lines)
    count = 1
    for values in scenario.sweep.values():
        count *= len(values)
    if count > MAX_VARIANTS:
        return [f"{where}: sweep: {count:,} variants; a sweep may have at most {MAX_VARIANTS:,}"]
    problems, scenario._variants = [], []
    for label, data in _variant_data(scenario):
        try:
            scenario._variants.append((label, parse_scenario(data, f"{where}: sweep variant [{label}]")))
        except ScenarioError as exc:
            problems += exc.problems
    return problems


def _plain_text(value) -> str:
    return value if isinstance(value, str) else repr(value) if isinstance(value, float) else str(value)


def _with_changes(data: dict, changes: dict) -> dict:
    """A deep copy of `data` with dotted keys set."""
    data = copy.deepcopy(data)
    for dotted, value in changes.items():
        *parents, last = dotted.split(".")
        node = data
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return data


def _listed(value):
    return value if isinstance(value, (list, tuple)) else [value]


def _without_shipped(entry, shipped):
    """An override with the fields equal to the shipped entry's dropped; a new entry with head_dim filled in."""
    if shipped is None:
        if isinstance(entry, ModelEntry) and entry.head_dim is None and entry.hidden and entry.heads \
                and entry.hidden % entry.heads == 0:
            return entry.model_copy(update={"head_dim": entry.hidden // entry.heads})
        return entry
    changed = {k: v for k, v in entry.model_dump(exclude_none=True).items() if getattr(shipped, k) != v}
    return type(entry)(**changed)


def _divisors(n: int) -> str:
    found = [d for d in range(1, min(n, 10**6) + 1) if n % d == 0]
    return ", ".join(map(str, found[:12])) + (", …" if len(found) > 12 else "")


Problem = tuple[tuple, Any, str]  # (key path, value, message)


def _merge(own: CatalogSection) -> tuple[catalog.Catalog, list[Problem]]:
    """The shipped catalog with the scenario's entries: a new id needs every field; Ψ and head_dim follow from the
    architecture when left out."""
    problems: list[Problem] = []
    models = dict(catalog.MODELS)
    for key, entry in own.models.items():
        given = entry.model_dump(exclude_none=True)
        values = {**vars(models[key]), **given} if key in models else {"id": key, **given}
        missing = [f for f in ("layers", "hidden", "heads", "kv_heads", "ffn", "vocab") if f not in values]
        if missing:
            problems.append((("catalog", "models", key), None, f"a new model needs {', '.join(missing)}"))
            continue
        if values.get("head_dim") is None:
            if values["hidden"] % values["heads"]:
                problems.append((("catalog", "models", key), None, f"head_dim is not given and hidden "
                                 f"{values['hidden']} is not divisible by heads {values['heads']}"))
                continue
            values["head_dim"] = values["hidden"] // values["heads"]
        if values["heads"] % values["kv_heads"]:
            problems.append((("catalog", "models", key, "kv_heads"), values["kv_heads"],
                             f"kv_heads {values['kv_heads']} does not divide heads {values['heads']}"))
            continue
        if values.get("params") is None:
            values["params"] = float(params_from_architecture(values["vocab"], values["hidden"], values["layers"],
                                                              values["kv_heads"], values["head_dim"], values["ffn"]))
            if values["params"] > 1e15:
                problems.append((("catalog", "models", key), None, f"Ψ from the architecture is "
                                 f"{values['params']:.3g}, above the largest allowed, 1e15"))
                continue
        models[key] = catalog.Model(**values)
    gpus = dict(catalog.GPUS)
    for key, entry in own.gpus.items():
        given = entry.model_dump(exclude_none=True)
        values = {**vars(gpus[key]), **given} if key in gpus else {"id": key, "price_per_hour":
                                                                    catalog.CUSTOM_GPU_PRICE, **given}
        missing = [f for f in ("memory_gb", "peak_tflops", "hbm_tbps") if f not in values]
        if missing:
            problems.append((("catalog", "gpus", key), None, f"a new GPU needs {', '.join(missing)}"))
            continue
        gpus[key] = catalog.GPU(**values)
    merged = catalog.Catalog(models, gpus, {**catalog.TRAFFIC_PRESETS, **own.traffic_presets},
                             {**catalog.PROFILES, **{k: tuple(v) for k, v in own.profiles.items()}})
    for kind, ids in (("model", merged.models), ("GPU", merged.gpus), ("traffic preset", merged.traffic_presets),
                      ("demand profile", merged.profiles)):
        lower: dict[str, str] = {}
        for key in ids:
            if key.lower() in lower:
                problems.append((("catalog",), key, f"{kind} ids '{lower[key.lower()]}' and '{key}' differ only by "
                                 f"case; spreadsheets match ids ignoring case"))
            lower[key.lower()] = key
    return merged, problems


def _unknown(kind: str, value: str, known) -> str:
    return f"unknown {kind} '{value}'{_did_you_mean(value, known)} allowed: {', '.join(known)}"


def _cross_checks(scenario: Scenario) -> list[Problem]:
    """Rules that join several inputs: ids in the merged catalog, a serving pool within the cluster, parallelism
    that fits the chosen model."""
    merged, problems = _merge(scenario.catalog)
    if problems:
        return problems
    scenario._merged = merged
    choices = [(("model",), scenario.model, "model", merged.models, ", or a mapping describing a custom model"),
               (("gpu",), scenario.gpu, "GPU", merged.gpus, ", or a mapping describing a custom GPU"),
               (("cluster", "profile"), scenario.cluster.profile, "demand profile", merged.profiles,
                ", or a list of 24 fractions of peak")]
    if isinstance(scenario.crossover.tokens_per_day, str):
        choices.append((("crossover", "tokens_per_day"), scenario.crossover.tokens_per_day, "traffic preset",
                        merged.traffic_presets, ", or a number of tokens per day"))
    for i, bench in enumerate(scenario.goodput.benchmarks):
        if bench.gpu is not None:
            choices.append((("goodput", "benchmarks", i, "gpu"), bench.gpu, "GPU", merged.gpus, ""))
    for loc, value, kind, known, other in choices:
        if value not in known:
            problems.append((loc, value, _unknown(kind, value, known) + other))
    if problems:
        return problems
    c = scenario.cluster
    busiest = max(merged.profiles[c.profile])
    from planner.engine.cluster import serving_pool  # numpy: imported when a scenario is checked, not for its schema

    pool = serving_pool(c.inference_peak_gpus, merged.profiles[c.profile], c.spare)
    if pool > c.gpus:
        problems.append((("cluster", "inference_peak_gpus"), c.inference_peak_gpus,
                         f"the serving pool, peak demand {c.inference_peak_gpus * busiest:,.6g} GPUs ({c.profile}'s "
                         f"busiest hour, {busiest * 100:.4g} % of the peak) plus {c.spare * 100:.4g} % spare rounded "
                         f"up, is {pool:,.0f} GPUs: more than the cluster's {c.gpus:,} (cluster.gpus)"))
    model = merged.models[scenario.model]
    for section in ("memory", "serving"):
        t = getattr(scenario, section).tensor_parallel
        if model.heads % t:
            problems.append(((section, "tensor_parallel"), t, f"tensor parallel {t} does not divide the "
                             f"{model.heads} attention heads of {model.id}; allowed: {_divisors(model.heads)}"))
    p = scenario.memory.pipeline_parallel
    if p > model.layers:
        problems.append((("memory", "pipeline_parallel"), p, f"pipeline parallel {p} exceeds the {model.layers} "
                         f"layers of {model.id}: each stage needs at least one layer"))
    return problems


def _check_key_path(dotted: str) -> None:
    cls: type[BaseModel] | None = Scenario
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


# Error messages --------------------------------------------------------------------------------------------
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


def _where(loc: tuple, source: str, lines: dict) -> tuple[str, str]:
    """("file:line" or "file: Sheet!A1 (name)", "dotted.key") for a key path."""
    key = ".".join(str(p + 1) if isinstance(p, int) else str(p) for p in loc) or "(top level)"
    line = next((lines[loc[:n]] for n in range(len(loc), 0, -1) if loc[:n] in lines), None)
    # `lines` holds YAML line numbers, or cell addresses for a scenario read from a workbook
    where = f"{source}:{line}" if isinstance(line, int) else f"{source}: {line}" if line else source
    return where, key


def _describe(error: dict, source: str, lines: dict) -> str:
    loc = tuple(p for p in error["loc"] if p not in _UNION_TAGS)
    where, key = _where(loc, source, lines)
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


def _describe_problem(problem: Problem, source: str, lines: dict) -> str:
    loc, value, message = problem
    where, key = _where(loc, source, lines)
    if value is None:
        return f"{where}: {key}: {message}"
    return f"{where}: {key}: value {value!r} is not allowed: {message}"


def parse_scenario(data: Any, source: str = "<scenario>", lines: dict | None = None) -> Scenario:
    """Validate already-loaded data; raise ScenarioError with every problem found."""
    if not isinstance(data, dict):
        raise ScenarioError([f"{source}: the file must be a mapping of keys (name: ..., model: ...),"
                             f" not {type(data).__name__}"])
    lines = lines or {}
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        raise ScenarioError([_describe(e, source, lines) for e in exc.errors()],
                            [tuple(p for p in e["loc"] if p not in _UNION_TAGS) for e in exc.errors()]) from None
    problems = _cross_checks(scenario)
    if problems:
        raise ScenarioError([_describe_problem(p, source, lines) for p in problems], [p[0] for p in problems])
    problems = _sweep_problems(scenario, source, lines)
    if problems:
        raise ScenarioError(problems, [("sweep",)])
    return scenario


def __getattr__(name: str):
    """DEFAULT, the built-in default scenario (METHOD.md's defaults), made when first asked for: validating it
    imports the engine, which `planner schema` does not need."""
    if name == "DEFAULT":
        globals()["DEFAULT"] = parse_scenario({"name": "default", "description": "METHOD.md's defaults"})
        return globals()["DEFAULT"]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def load_scenario(path: str | Path) -> Scenario:
    """Read and validate a scenario file."""
    path = Path(path)
    from planner import yamlfile

    try:
        data, lines = yamlfile.read(path)
    except yamlfile.YAMLFileError as exc:
        raise ScenarioError(exc.problems) from None
    scenario = parse_scenario(data, str(path), lines)
    scenario._source = path
    scenario.read_logs(lines)  # a bad log stops here, before anything is written
    return scenario
