"""The Fleet table's inputs (docs/method.md §11), the `fleet:` section: the peak request rate, the quality share
and retries, the day's profile, the candidates searched (GPUs, precision pairs, tensor-parallel sizes, modes), the
spare share and the KV link between prefill and decode replicas. The request shape, the roofline's knobs and the
SLO are the Serving and Goodput sections'. Without `fleet:` a scenario has no Fleet table."""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal

from pydantic import ConfigDict, Field

from planner.engine.shared import FLEET_MAX_CONFIGURATIONS as MAX_CONFIGURATIONS, HOURS_PER_DAY, SECONDS_PER_HOUR
from planner.scenario.declare import GPUId, PrecisionId, Section, Share, declared, whole
from planner.scenario.errors import quoted, unknown

NO_PROFILE = "none"  # the peak hour only
CLUSTER_PROFILE = "cluster"  # the Cluster section's profile
DEFAULT_PEAK_RATE = 10.0  # requests per second, when neither the rate nor a tokens-per-day is given
MAX_RATE = 1e6  # requests per second, first attempts and served alike
MIN_RATE = 1e-6  # requests per second: a rate of 0 has no fleet
MAX_GPUS = 12  # GPU ids searched
MAX_PRECISIONS = 4  # precision pairs searched
TENSOR_PARALLEL = (1, 2, 4, 8)
MODES = ("aggregated", "disaggregated")
SIZE_KEYS = "fleet.gpus, fleet.precisions, fleet.tensor_parallel and fleet.mixed_pairs"


class PrecisionPair(Section):
    model_config = ConfigDict(title="Precision pair")

    weight: PrecisionId = declared(..., "Weight precision", "", "A precision from Catalog.", kind="text",
                                   choices="catalog_precision_ids")
    kv: PrecisionId = declared(..., "KV-cache precision", "", "A precision from Catalog: its bytes per KV value.",
                               kind="text", choices="catalog_precision_ids")


class MixedPair(Section):
    model_config = ConfigDict(title="Mixed pair")

    prefill: GPUId = declared(..., "Prefill GPU", "", "A GPU of fleet.gpus: the prefill pool's.", kind="text",
                              choices="catalog_gpu_ids")
    decode: GPUId = declared(..., "Decode GPU", "", "Another GPU of fleet.gpus: the decode pool's.", kind="text",
                             choices="catalog_gpu_ids")


class Fleet(Section):
    model_config = ConfigDict(title="Fleet: GPUs that serve the demand within the SLO")
    optional: ClassVar[bool] = True  # without `fleet:` the scenario has no Fleet table

    peak_rate: Annotated[float, Field(ge=MIN_RATE, le=MAX_RATE)] | None = declared(
        None, "Peak request rate λ_u", "requests per second", "First attempts at the busiest hour. Left out: from "
        "crossover.tokens_per_day when that is given, else 10.", kind="decimal")
    quality: Share = declared(1.0, "Quality share", "of responses", "Of the responses meeting the SLO, the share "
                              "also acceptable in quality.", kind="percent", symbol="q")
    retries: bool = declared(True, "Retries", "", "TRUE: a response that fails on quality is asked again, so the "
                             "fleet serves λ_u/q.", kind="bool")
    profile: Annotated[str, Field(min_length=1, max_length=64)] = declared(
        NO_PROFILE, "Demand profile over the day", "", "none (the peak hour only), cluster (the Cluster section's) or "
        "a profile id from Catalog.", kind="text")
    gpus: Annotated[list[GPUId], Field(max_length=MAX_GPUS)] = declared(
        [], "Candidate GPU", "", "Catalog GPUs searched. Left out: every Catalog GPU with a price.", kind="text",
        choices="catalog_gpu_ids")
    precisions: Annotated[list[PrecisionPair], Field(max_length=MAX_PRECISIONS)] = declared(
        [], "Candidate precision pair", "", "Left out: the serving section's weight and KV precisions.")
    tensor_parallel: Annotated[list[whole(1, 8)], Field(min_length=1, max_length=len(TENSOR_PARALLEL))] = declared(
        list(TENSOR_PARALLEL), "Candidate tensor parallel", "GPUs", "1, 2, 4 or 8; a size that does not split the "
        "model is skipped.", kind="count")
    modes: Annotated[list[Literal[MODES]], Field(min_length=1, max_length=len(MODES))] = declared(
        list(MODES), "Candidate mode", "", "aggregated (prefill and decode on each replica) or disaggregated "
        "(separate prefill and decode replicas).", kind="text")
    spare: Annotated[float, Field(ge=0, le=1)] | None = declared(
        None, "Spare share r_f", "of replicas", "Spare replicas for failures, in whole replicas per pool. Left out: "
        "cluster.spare.", kind="percent")
    kv_transfer_gbps: Annotated[float, Field(ge=0.001, le=1e6)] | None = declared(
        None, "KV link prefill → decode", "GB/s", "Blank: MIN(t_p, t_d) links, NVLink within a node, the network "
        "across nodes.", kind="decimal", blank=True)
    mixed_gpus: bool = declared(False, "Mixed GPU pools", "", "TRUE adds disaggregated candidates whose prefill and "
                                "decode pools use different GPUs of fleet.gpus (Splitwise, §15.1).", kind="bool")
    mixed_pairs: Annotated[list[MixedPair], Field(max_length=MAX_GPUS * (MAX_GPUS - 1))] = declared(
        [], "Mixed pair", "", "Left out: every ordered pair of different GPUs of fleet.gpus; searched in the order "
        "given.")

    def pairs(self) -> list[tuple[str, str]]:
        """The mixed (prefill, decode) GPU pairs searched: none unless mixed_gpus; those listed, in their order;
        else every ordered pair of different GPUs, by prefill GPU as listed, then decode GPU as listed."""
        if not self.mixed_gpus:
            return []
        if self.mixed_pairs:
            return [(p.prefill, p.decode) for p in self.mixed_pairs]
        return [(p, d) for p in self.gpus for d in self.gpus if p != d]

    def day_profile(self, cluster_profile: str) -> str | None:
        """The profile id the day follows: None for none (the peak hour only), the Cluster section's for cluster,
        else the one named."""
        if self.profile == NO_PROFILE:
            return None
        return cluster_profile if self.profile == CLUSTER_PROFILE else self.profile


SECTIONS = {"fleet": Fleet}


def priced_gpus(catalog) -> list[str]:
    """Every Catalog GPU with a price above 0, in Catalog order: the GPUs searched when none are listed."""
    return [key for key, gpu in catalog.gpus.items() if gpu.price_per_hour and gpu.price_per_hour > 0]


def profile_id(scenario) -> str | None:
    return scenario.fleet.day_profile(scenario.cluster.profile)


def hours_at_peak(fractions) -> float:
    """Σ_h f̂_h with f̂ = f/MAX(f): the day's requests in hours of the peak rate (24 without a profile)."""
    return sum(fractions) / max(fractions)


def derived_peak_rate(tokens_per_day: float, outputs: int, peak_hours: float) -> float:
    """λ_u = D/(3600·o·Σ_h f̂_h): the peak rate whose output tokens a day are D (first attempts)."""
    return tokens_per_day / (SECONDS_PER_HOUR * outputs * peak_hours)


def canonical(scenario) -> list:
    """The spare share follows the Cluster's and the precision pair the Serving section's unless given; the GPUs
    searched are every Catalog GPU with a price; the peak rate is 10 unless given, or derived from the Crossover's
    tokens per day when that is given."""
    fleet = scenario.fleet
    if fleet is None:
        return []
    from planner.scenario.catalog_entries import merge

    if fleet.spare is None:
        fleet.spare = scenario.cluster.spare
    if not fleet.precisions and "precisions" not in fleet.model_fields_set:
        fleet.precisions = [PrecisionPair(weight=scenario.serving.weight_precision,
                                          kv=scenario.serving.kv_precision)]
    merged, problems = merge(scenario.catalog)
    if problems:
        return []  # the catalog's own problems are said when it is merged
    if not fleet.gpus and "gpus" not in fleet.model_fields_set:
        fleet.gpus = priced_gpus(merged)
    if fleet.peak_rate is None:
        fleet.peak_rate = _rate_from_tokens(scenario, merged)
    return []


def _rate_from_tokens(scenario, merged) -> float:
    """λ_u from crossover.tokens_per_day when the file gives it (a number, or a preset of the merged Catalog),
    else 10 requests per second."""
    given = scenario.crossover.tokens_per_day
    if "tokens_per_day" not in scenario.crossover.model_fields_set:
        return DEFAULT_PEAK_RATE
    tokens = merged.traffic_presets.get(given) if isinstance(given, str) else given
    chosen = profile_id(scenario)
    fractions = merged.profiles.get(chosen) if chosen else [1.0] * HOURS_PER_DAY
    outputs = scenario.serving.sequence_length - scenario.serving.prompt_tokens
    if not tokens or outputs < 1 or not fractions or max(fractions) <= 0:
        return DEFAULT_PEAK_RATE  # the preset, the profile or the lengths are refused below
    return derived_peak_rate(tokens, outputs, hours_at_peak(fractions))


def cross_checks(scenario, catalog) -> list:
    """Every GPU, precision and the profile known to the merged Catalog; no list empty or with an id twice; a GPU
    with a price; an attainment target below 1; a served rate within range; the spare share within 0 … 1; one
    demand, not two."""
    fleet = scenario.fleet
    if fleet is None:
        return []
    problems = _candidates(fleet, catalog) + _profile(scenario, catalog) + _demand(scenario, catalog)
    problems += _mixed(fleet) + _search_size(scenario, catalog)
    if scenario.goodput.attainment_target >= 1:
        problems.append((("goodput", "attainment_target"), scenario.goodput.attainment_target,
                         "with a fleet the attainment target must be below 1: under Poisson arrivals some requests "
                         "always wait, so no finite fleet meets every TTFT", ("fleet",)))
    if fleet.spare > 1:
        problems.append((("fleet", "spare"), None, f"the spare share follows cluster.spare, {fleet.spare:g}, above "
                         "the fleet's 1 (100 %): give fleet.spare"))
    served = fleet.peak_rate / fleet.quality if fleet.retries else fleet.peak_rate
    if served > MAX_RATE:
        problems.append((("fleet", "quality"), fleet.quality, f"with retries the fleet serves λ_u/q = "
                         f"{served:,.6g} requests per second, above {MAX_RATE:,.0f}"))
    return problems


def _candidates(fleet, catalog) -> list:
    problems = []
    for key, values in (("gpus", fleet.gpus), ("precisions", fleet.precisions),
                        ("tensor_parallel", fleet.tensor_parallel), ("modes", fleet.modes)):
        if not values:
            problems.append((("fleet", key), None, "an empty list: give at least one, or leave the key out"))
        seen = []
        for i, value in enumerate(values):
            if value in seen:
                problems.append((("fleet", key, i), None, f"{_shown(value)} is listed twice"))
            seen.append(value)
    for i, gpu in enumerate(fleet.gpus):
        if gpu not in catalog.gpus:
            problems.append((("fleet", "gpus", i), gpu, unknown("GPU", gpu, catalog.gpus)))
        elif not catalog.gpus[gpu].price_per_hour or catalog.gpus[gpu].price_per_hour <= 0:
            problems.append((("fleet", "gpus", i), gpu, f"{gpu} has no price: give catalog.gpus.{gpu}.price_per_hour "
                             "or leave it out of fleet.gpus"))
    for i, pair in enumerate(fleet.precisions):
        for key in ("weight", "kv"):
            value = getattr(pair, key)
            if value not in catalog.precisions:
                problems.append((("fleet", "precisions", i, key), value, unknown("precision", value,
                                                                                 catalog.precisions)))
    for i, t in enumerate(fleet.tensor_parallel):
        if t not in TENSOR_PARALLEL:
            problems.append((("fleet", "tensor_parallel", i), t, "allowed: 1, 2, 4, 8"))
    return problems


def _mixed(fleet) -> list:
    """A mixed pair names two different GPUs of fleet.gpus, no pair twice; pairs only with mixed_gpus TRUE, whose
    candidates are disaggregated (METHOD §15.1's checks)."""
    problems = []
    if fleet.mixed_pairs and not fleet.mixed_gpus:
        problems.append((("fleet", "mixed_pairs"), None, "mixed pairs are searched only with fleet.mixed_gpus TRUE: "
                         "set it, or leave the pairs out"))
    if fleet.mixed_gpus and "disaggregated" not in fleet.modes:
        problems.append((("fleet", "modes"), None, "mixed GPU pools are disaggregated candidates: list "
                         "disaggregated in fleet.modes, or set fleet.mixed_gpus FALSE"))
    seen = []
    for i, pair in enumerate(fleet.mixed_pairs):
        for key in ("prefill", "decode"):
            gpu = getattr(pair, key)
            if gpu not in fleet.gpus:
                problems.append((("fleet", "mixed_pairs", i, key), gpu, f"{quoted(gpu)} is not in fleet.gpus: "
                                 f"allowed: {', '.join(fleet.gpus)}"))
        if pair.prefill == pair.decode:
            problems.append((("fleet", "mixed_pairs", i), None, f"{quoted(pair.prefill)} is both the prefill and "
                             "the decode GPU: a mixed pair names two different GPUs of fleet.gpus"))
        if (pair.prefill, pair.decode) in seen:
            problems.append((("fleet", "mixed_pairs", i), None, f"prefill {pair.prefill}, decode {pair.decode} is "
                             "listed twice"))
        seen.append((pair.prefill, pair.decode))
    return problems


def search_size(fleet, sizes: int) -> int:
    """N = |P|·|G|·(|T| + |T|²) + [mixed]·|P|·M·|T|², by the modes searched: |P| precision pairs, |G| GPUs, |T|
    tensor-parallel sizes that split the model, M mixed pairs (METHOD §15.1)."""
    aggregated, disaggregated = ("aggregated" in fleet.modes), ("disaggregated" in fleet.modes)
    single = len(fleet.gpus) * (aggregated * sizes + disaggregated * sizes ** 2)
    return len(fleet.precisions) * (single + disaggregated * len(fleet.pairs()) * sizes ** 2)


def _search_size(scenario, catalog) -> list:
    """N ≤ 2,048 configurations, mixed or not, naming the keys that set it."""
    from planner.engine.fleet import tensor_parallel_fits

    fleet, model = scenario.fleet, catalog.models[scenario.model]
    sizes = len([t for t in set(fleet.tensor_parallel) if model is None or tensor_parallel_fits(model, t)])
    found = search_size(fleet, sizes)
    if found <= MAX_CONFIGURATIONS:
        return []
    return [(("fleet", "gpus"), None, f"the search holds {found:,} configurations, above the {MAX_CONFIGURATIONS:,} "
             f"the Candidates table takes: fewer in {SIZE_KEYS}")]


def _profile(scenario, catalog) -> list:
    chosen = scenario.fleet.profile
    if chosen in (NO_PROFILE, CLUSTER_PROFILE):
        fractions = catalog.profiles.get(profile_id(scenario)) if chosen == CLUSTER_PROFILE else None
    elif chosen not in catalog.profiles:
        return [(("fleet", "profile"), chosen, unknown("demand profile", chosen, catalog.profiles)
                 + f", or {NO_PROFILE} or {CLUSTER_PROFILE}")]
    else:
        fractions = catalog.profiles[chosen]
    if fractions is not None and not max(fractions) > 0:
        return [(("fleet", "profile"), chosen, f"the profile {quoted(profile_id(scenario))} has no hour above 0: no "
                 "peak to size for")]
    return []


def _demand(scenario, catalog) -> list:
    """A file that gives both the fleet's peak rate and the Crossover's tokens per day states the demand twice:
    refused unless they agree (a workbook read back holds the tokens per day beside the rate derived from it) or
    the tokens per day is the Crossover's default preset, which an imported workbook writes out."""
    crossover, fleet = scenario.crossover, scenario.fleet
    if "peak_rate" not in fleet.model_fields_set or "tokens_per_day" not in crossover.model_fields_set:
        return []
    from planner.inputs.crossover import Crossover

    if crossover.tokens_per_day == Crossover.model_fields["tokens_per_day"].default:
        return []
    derived = _rate_from_tokens(scenario, catalog)
    if abs(derived - fleet.peak_rate) <= 1e-9 * max(derived, fleet.peak_rate):
        return []
    return [(("fleet", "peak_rate"), None, f"the demand is given twice: {fleet.peak_rate:,.6g} requests per second "
             f"here and {_shown(crossover.tokens_per_day)} tokens per day in crossover.tokens_per_day (that is "
             f"{derived:,.6g} requests per second at the peak): give one of them", ("crossover", "tokens_per_day"))]


def _shown(value) -> str:
    if isinstance(value, Section):
        return ", ".join(f"{k} {v}" for k, v in value.model_dump().items())
    return quoted(value) if isinstance(value, str) else f"{value:g}"


EXTERNAL = None
