"""Fleet: the cheapest serving fleet that meets an SLO at a request rate (docs/method.md §11).

Every configuration (mode × GPU × precision pair × tensor-parallel size, or prefill and decode sizes for a
disaggregated fleet) is sized at the peak rate: the largest batch meeting the TPOT target, then the fewest
replicas whose TTFT percentile meets the attainment target under Poisson arrivals (Erlang C and the M/M/c waiting
time tail), then spares in whole replicas, GPUs, cost and the per-request and per-token figures. The search orders
the configurations by cost per hour, attainment and tokens per second per user; the Pareto front of tokens per
second per GPU against per user, and the day hour by hour for a fleet sized for the peak and one that follows the
demand, come from the same sizing.

The roofline of one replica is planner/model/replica.py's `Replica`, read only through `ttft_s()`, `tpot_s(B)`,
`prefill_s(B)`, `cycle_s(B)`, `b_max`, `pool`, `kv_g`, `s`, `o`, `tensor_parallel` and `price_per_gpu_hour`, and
built in one place (`replica`). Times are seconds unless a name says ms; rates are requests per second.
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field, replace
from decimal import ROUND_HALF_UP, Decimal
from types import SimpleNamespace
from typing import NamedTuple

import numpy as np

from planner.engine import money
from planner.engine import serving as serving_engine
from planner.engine.layouts import NETWORK_EFFICIENCY, NVLINK_EFFICIENCY  # §10's sustained link shares
from planner.engine.values import excel_round, plain, to_the_cent
from planner.engine.shared import FLEET_MAX_CONFIGURATIONS as MAX_CONFIGURATIONS, HOURS_PER_DAY, SECONDS_PER_HOUR
from planner.method import Constant, Method
from planner.model import passes
from planner.model.replica import Replica

QUEUE_RANGE = 1_000_000  # the most servers a sized queue may have: the sheet's POISSON is exact enough up to here
PARETO_ROWS = 32  # the Pareto table's rows: a longer front is thinned, both ends kept
DECIMALS = 9  # every comparison and whole-number rounding is of values rounded to 9 decimals, as the sheet does
AGGREGATED, DISAGGREGATED = "aggregated", "disaggregated"
MODES = (AGGREGATED, DISAGGREGATED)

# Why a configuration has no row (first that applies)
DOES_NOT_FIT = "does not fit"
TPOT_NOT_REACHABLE = "TPOT not reachable"
TTFT_NOT_REACHABLE = "TTFT not reachable"
BEYOND_QUEUE_RANGE = "beyond the sheet's queue range (c > 1,000,000)"
REASONS = (DOES_NOT_FIT, TPOT_NOT_REACHABLE, TTFT_NOT_REACHABLE, BEYOND_QUEUE_RANGE)

# Erlang C sums Poisson terms only where they matter: within WINDOW standard deviations of the load (plus a margin
# of terms for small loads), beyond which a term is below e^-40 of the sum (Chernoff's bound, e^(-d²/2a)).
WINDOW = 9
WINDOW_MARGIN = 30
PROBES = 64  # batches tried at once by each step of the search for B*


# Rounding as the sheet rounds ------------------------------------------------------------------------------------
def r9(x):
    """ROUND(x, 9): what every comparison compares."""
    return round(float(x), DECIMALS)


def int9(x) -> int:
    """INT9(x) = INT(ROUND(x, 9)): the floor of x rounded to 9 decimals."""
    return int(math.floor(r9(x)))


def ceil9_int(x) -> int:
    """CEIL9(x) = CEILING(ROUND(x, 9), 1) as a Python int: engine/cluster.py's ceil9 for one number."""
    return int(math.ceil(r9(x)))



def meets(miss: float, attainment: float) -> bool:
    """A miss share meets the target when ROUND(m, 9) ≤ ROUND(1 − p, 9)."""
    return r9(miss) <= r9(1 - attainment)


# The queue -------------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=1 << 16)  # the configurations that share a decode replica ask for the same C(y·B, a_d)
def erlang_c(servers: int, load: float) -> float:
    """C(c, a), the probability that a request waits with c servers and a Erlangs offered (Kleinrock 1975, M/M/c):
    IF(a ≥ c, 1, POISSON(c, a) / (POISSON(c, a) + (1 − ρ)·POISSON(c − 1, a, TRUE))), ρ = a/c.

    Written as 1/(1 + (1 − ρ)·R) with R = Σ_{k<c} P(k)/P(c), each ratio the product Π_{i=k+1}^{c} i/a summed in
    logarithms over the window where the Poisson terms matter: accurate (1e-12) and fast for c up to the queue
    range, where the Erlang-B recursion would take c steps."""
    c, a = int(servers), float(load)
    if a >= c:
        return 1.0
    if a <= 0:
        return 0.0
    spread = WINDOW * math.sqrt(a) + WINDOW_MARGIN
    low, high = max(0, int(a - spread)), min(c, int(math.ceil(a + spread)))
    steps = np.log(np.arange(low + 1, high + 1, dtype=float) / a)  # ln(i/a) for i = low+1 … high
    # ln Π_{i=high+1}^{c} i/a: the terms above the window, once (negligible C when it is not 0)
    beyond = 0.0 if high == c else math.lgamma(c + 1) - math.lgamma(high + 1) - (c - high) * math.log(a)
    logs = np.cumsum(steps[::-1]) + beyond  # ln(P(k)/P(c)) for k = high − 1 … low
    top = float(logs.max())
    log_ratio = top + math.log(float(np.exp(logs - top).sum()))  # ln R, summed without overflow
    exponent = log_ratio + math.log1p(-a / c)  # ln((1 − ρ)·R)
    return 1 / (1 + math.exp(exponent)) if exponent < 700 else 0.0  # e^-700 ≈ 1e-304: C underflows there


def wait_tail(erlang: float, drain_rate: float, wait_s: float) -> float:
    """P(W > w) = C·EXP(−(c/S − λ)·w), the M/M/c waiting-time tail (drain rate c/S − λ > 0, w ≥ 0)."""
    return erlang * math.exp(-drain_rate * wait_s)


# One replica -------------------------------------------------------------------------------------------------------
def replica(model, gpu, *, weight, kv, tensor_parallel: int, knobs, price: float) -> Replica:
    """The replica of `model` on `tensor_parallel` GPUs of `gpu` at the `weight` and `kv` precisions (Catalog
    entries), with the serving knobs (lengths, efficiencies, reserve, overhead, prefix hit rate and speculative
    decoding) and the GPU's price. The only place a replica is built."""
    serving = SimpleNamespace(**vars(knobs), tensor_parallel=tensor_parallel)
    return Replica.of(model=model, gpu=gpu, weight=weight, kv=kv, serving=serving, price_per_gpu_hour=price,
                      draft_model=knobs.draft_model)


@dataclass(frozen=True)
class Knobs:
    """The serving section's knobs a fleet's replicas share (§6, §12): lengths, efficiencies, reserve, overhead, the
    prefix hit rate and speculative decoding (the serving section's, and the draft model's Catalog entry)."""

    sequence_length: int
    prompt_tokens: int
    compute_efficiency: float = 0.5
    bandwidth_efficiency: float = 0.7
    memory_reserve: float = 0.10
    overhead_ms: float = 0.0
    overhead_fixed_ms: float = 0.0  # §14.2's known per-pass overhead terms (the engines table's priors, or the keys)
    overhead_per_layer_ms: float = 0.0
    overhead_per_sequence_ms: float = 0.0
    overhead_per_moe_layer_ms: float = 0.0
    dispatch_ms_per_layer: float = 0.0  # δ, the dispatch T_first pays (§14.6)
    prefix_hit_rate: float = 0.0
    speculative: object = None  # serving.speculative; None: no speculative decoding
    draft_model: object = None

    @classmethod
    def of(cls, scenario) -> Knobs:
        sv = serving_engine.knobs_in(scenario)
        draft = sv.speculative.draft_model
        knobs = {key: getattr(sv, key) for key in cls.__dataclass_fields__ if key != "draft_model"}
        return cls(**knobs, draft_model=scenario.merged_catalog.models[draft] if draft else None)



EFFICIENCIES = ("compute_efficiency", "bandwidth_efficiency", "overhead_ms")  # what a calibration fits (§12.1)


@dataclass(frozen=True)
class SLO:
    """What a request must meet and what the fleet keeps spare: X and Y in ms, the attainment p, the quality share
    q and the spare share r_f."""

    ttft_ms: float = 2000.0
    tpot_ms: float = 100.0
    attainment: float = 0.90
    quality: float = 1.0
    spare: float = 0.10

    @property
    def ttft_s(self) -> float:
        return self.ttft_ms / 1000

    @property
    def budget(self) -> float:
        """1 − p: the miss share allowed."""
        return 1 - self.attainment


def served_rate(first_attempts: float, quality: float, retries: bool) -> float:
    """λ = λ_u/q with retries (a response that fails on quality is asked again: attempts geometric, mean 1/q),
    else λ_u."""
    return first_attempts / quality if retries else first_attempts


# Batch rows ----------------------------------------------------------------------------------------------------------
def largest_batch(latency_ms, limit: int, target_ms: float) -> int:
    """The largest B in 1 … limit with ROUND(latency_ms(B), 9) ≤ target, latency growing with B; 0 when not even
    B = 1 meets it. A bisection that tries PROBES batches per step (latency_ms takes an array of them)."""
    good, bad = 0, limit + 1  # latency meets at `good` (0: none yet) and fails at `bad`
    while bad - good > 1:
        batches = np.unique(np.linspace(good + 1, bad - 1, min(PROBES, bad - good - 1)).round().astype(int))
        ok = np.round(np.asarray(latency_ms(batches), dtype=float), DECIMALS) <= target_ms
        good = int(batches[ok].max()) if ok.any() else good
        bad = int(batches[~ok].min()) if (~ok).any() else bad
    return good


def batch_rows(b_star: int) -> list[int]:
    """The batches evaluated: §6's rows 1, 2, 4, … below B*, and B*."""
    rows, b = [], 1
    while b < b_star:
        rows.append(b)
        b *= 2
    return rows + [b_star] if b_star >= 1 else []


def fewest(first: int, last: int, meets_at) -> int | None:
    """The smallest k in first … last for which meets_at(k) holds, given that it holds from some k on (the miss
    falls as replicas are added); None when not even `last` meets. Counts up one at a time, as the method does,
    then in doubling steps and bisects, which finds the same k."""
    k = first
    while k <= min(first + 7, last):
        if meets_at(k):
            return k
        k += 1
    if k > last:
        return None
    failing, step = k - 1, 1
    while True:
        trial = min(failing + step, last)
        if meets_at(trial):
            break
        if trial == last:
            return None
        failing, step = trial, step * 2
    while trial - failing > 1:
        middle = (failing + trial) // 2
        if meets_at(middle):
            trial = middle
        else:
            failing = middle
    return trial


# Aggregated: n replicas of B slots each ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Roofline:
    """§6's figures of one replica at batch B that the fleet reads, in seconds."""

    batch: int
    ttft: float  # D, one request on an idle server
    step: float  # step(B) = TPOT(B), the decode step in flight
    prefill: float  # T_pre(B)
    cycle: float  # T_pre(B) + o·TPOT(B)
    outputs: float  # o
    dispatch: float = 0.0  # δ·L/1000, the dispatch the first token pays (§14.6)

    @classmethod
    def rows(cls, rep: Replica, batches: list[int], ttft_s: float) -> list[Roofline]:
        """The replica at each batch, its passes computed for all of them at once."""
        b = np.asarray(batches)
        step, prefill, cycle = (np.broadcast_to(np.asarray(f(b), dtype=float), b.shape)
                                for f in (rep.tpot_s, rep.prefill_s, rep.cycle_s))
        return [cls(batch=int(k), ttft=ttft_s, step=float(st), prefill=float(pr), cycle=float(cy), outputs=float(rep.o),
                    dispatch=float(rep.dispatch_s))
                for k, st, pr, cy in zip(b, step, prefill, cycle)]

    @property
    def itl(self) -> float:
        """ITL(B) = cycle/o: the stalls other requests' prefills cause are in it."""
        return self.cycle / self.outputs

    @property
    def service_rate(self) -> float:
        """μ_r = B/cycle(B), requests per second per replica."""
        return self.batch / self.cycle


def aggregated_queue(replicas: int, rate: float, roof: Roofline, slo: SLO) -> dict:
    """The queue of n replicas at λ: a = λ·cycle(B) Erlangs on c = n·B slots, C = C(c, a); the prompt's wait on
    its replica ρ_pre = λ·D/n, W_pre = ρ_pre·D/(1 − ρ_pre) (M/M/1 mean); T_first = δ·L/1000 + step(B)/2 + W_pre + D
    (§14.6);
    w = X − T_first; P(TTFT > X) = IF(OR(a ≥ c, ρ_pre ≥ 1), 1, IF(w < 0, 1, C·EXP(−(n·μ_r − λ)·w))). Undefined values
    are None."""
    n, load = replicas, rate * roof.cycle
    servers = n * roof.batch
    erlang = erlang_c(servers, load)
    busy_prefill = rate * roof.ttft / n
    stable = load < servers and busy_prefill < 1
    prefill_wait = busy_prefill * roof.ttft / (1 - busy_prefill) if busy_prefill < 1 else None
    first_token = None if prefill_wait is None else roof.dispatch + roof.step / 2 + prefill_wait + roof.ttft
    slack = None if first_token is None else slo.ttft_s - first_token
    drain = n * roof.service_rate - rate
    miss = wait_tail(erlang, drain, slack) if stable and slack >= 0 else 1.0
    return {"load": load, "servers": servers, "utilisation": load / servers, "erlang_c": erlang,
            "prefill_utilisation": busy_prefill, "prefill_wait_ms": _ms(prefill_wait),
            "first_token_ms": _ms(first_token), "slack_ms": _ms(slack), "drain_rate": drain, "miss": miss}


def aggregated_start(rate: float, roof: Roofline) -> int:
    """n_0 = MAX(INT9(λ/μ_r) + 1, INT9(λ·D) + 1): below it ρ ≥ 1 or ρ_pre ≥ 1, and P = 1."""
    return max(int9(rate / roof.service_rate) + 1, int9(rate * roof.ttft) + 1)


def aggregated_replicas(rate: float, roof: Roofline, slo: SLO) -> int | str:
    """The fewest replicas n whose P(TTFT > X) meets the target, or the reason there is none: TTFT not reachable
    (δ·L + step(B)/2 + D ≥ X: the prompt's wait makes w < 0 for every n) or beyond the queue range (n·B > 1,000,000)."""
    if r9((roof.dispatch + roof.step / 2 + roof.ttft) * 1000) >= r9(slo.ttft_ms):
        return TTFT_NOT_REACHABLE
    found = fewest(aggregated_start(rate, roof), QUEUE_RANGE // roof.batch,
                   lambda n: meets(aggregated_queue(n, rate, roof, slo)["miss"], slo.attainment))
    return BEYOND_QUEUE_RANGE if found is None else found


def aggregated_ttft_percentile_ms(queue: dict, slo: SLO) -> float:
    """TTFT at the p-th percentile = T_first + IF(C ≤ 1 − p, 0, LN(C/(1 − p))/(n·μ_r − λ)), ms."""
    erlang = queue["erlang_c"]
    extra = 0.0 if erlang <= slo.budget else math.log(erlang / slo.budget) / queue["drain_rate"]
    return queue["first_token_ms"] + extra * 1000


# Disaggregated: x prefill replicas, y decode replicas of B slots ------------------------------------------------------
def kv_transfer_gbps(prefill_parallel: int, decode_parallel: int, gpu, given: float | None = None) -> float:
    """BW_kv: the number given, else MIN(t_p, t_d)·IF(t_p + t_d ≤ GPN, NVLink GB/s·0.65, network GB/s·0.90): each
    of MIN(t_p, t_d) GPUs sends its share over its own link; a pair that fits in one node is placed together."""
    if given is not None:
        return float(given)
    one_node = prefill_parallel + decode_parallel <= gpu.gpus_per_node
    link = (gpu.nvlink_gbps or 0) * NVLINK_EFFICIENCY if one_node else (gpu.network_gbps or 0) * NETWORK_EFFICIENCY
    return min(prefill_parallel, decode_parallel) * link


def kv_transfer_s(prompt_tokens: int, kv_bytes_one_gpu: float, gbps: float) -> float:
    """T_kv = s·KV_1/(BW_kv·1e9): one copy of the prompt's KV crosses to the decode replica, not overlapped."""
    return prompt_tokens * kv_bytes_one_gpu / (gbps * 1e9)


def prefill_queue(prefill_replicas: int, rate: float, ttft_s: float, transfer_s: float, slo: SLO) -> dict:
    """x prefill replicas, one prompt at a time, S = D: a_p = λ·D, C_p = C(x, a_p), w = X − D − T_kv,
    tail_p = IF(a_p ≥ x, 1, IF(w < 0, 1, C_p·EXP(−(x/D − λ)·w)))."""
    x, load = prefill_replicas, rate * ttft_s
    erlang = erlang_c(x, load)
    slack = slo.ttft_s - ttft_s - transfer_s
    drain = x / ttft_s - rate
    tail = wait_tail(erlang, drain, slack) if load < x and slack >= 0 else 1.0
    return {"prefill_load": load, "prefill_erlang_c": erlang, "prefill_drain_rate": drain, "prefill_tail": tail,
            "slack_ms": slack * 1000}


def decode_queue(decode_replicas: int, rate: float, roof: Roofline) -> dict:
    """y decode replicas of B slots, each held o·TPOT(B): a_d = λ·o·TPOT(B) on c = y·B slots,
    C_d = C(y·B, a_d)."""
    load, servers = rate * roof.outputs * roof.step, decode_replicas * roof.batch
    return {"load": load, "servers": servers, "utilisation": load / servers, "erlang_c": erlang_c(servers, load)}


def disaggregated_miss(prefill: dict, decode: dict) -> float:
    """Boole's bound: a request misses when it waits too long for a prefill replica or at all for a decode slot."""
    return prefill["prefill_tail"] + decode["erlang_c"]


def pool_cost(replicas: int, tensor_parallel: int, spare: float) -> int:
    """GPUs of one pool with its spares: CEIL9(replicas·(1 + r_f))·t (spares in whole replicas)."""
    return ceil9_int(replicas * (1 + spare)) * tensor_parallel


def disaggregated_replicas(config: Configuration, roof: Roofline, rate: float, slo: SLO) -> tuple[int, int] | str:
    """(x, y): the pair of least cost per hour (spares included; on one GPU type the fewest GPUs; ties: the smaller
    y) whose miss meets the target, or the
    reason there is none. x_full, the fewest prefill replicas whose tail alone meets, bounds x from below; y counts
    up from INT9(a_d/B) + 1, and for each y whose C_d leaves a budget the smallest x ≥ x_full that meets is taken;
    the count stops at the first y whose own pool plus x_full's costs at least the best pair (GPUs grow with y).
    `config` gives D (its ttft_s), T_kv (transfer_s) and (t_p, t_d) (parallel)."""
    ttft_s, transfer_s, (t_p, t_d) = config.ttft_s, config.transfer_s, config.parallel
    if r9((ttft_s + transfer_s) * 1000) > r9(slo.ttft_ms):
        return TTFT_NOT_REACHABLE
    budget = r9(slo.budget)

    def prefill_tail(x):
        return prefill_queue(x, rate, ttft_s, transfer_s, slo)["prefill_tail"]

    x_full = fewest(int9(rate * ttft_s) + 1, QUEUE_RANGE, lambda x: r9(prefill_tail(x)) <= budget)
    last_y = QUEUE_RANGE // roof.batch
    y = fewest(int9(rate * roof.outputs * roof.step / roof.batch) + 1, last_y,
               lambda y: r9(decode_queue(y, rate, roof)["erlang_c"]) < budget)
    if x_full is None or y is None:
        return BEYOND_QUEUE_RANGE
    best, best_gpus = None, None
    while y <= last_y:
        if best is not None and config.pair_cost(pool_cost(x_full, t_p, slo.spare),
                                                 pool_cost(y, t_d, slo.spare)) >= best_gpus:
            break
        waiting = decode_queue(y, rate, roof)["erlang_c"]
        x = fewest(x_full, QUEUE_RANGE, lambda x: r9(prefill_tail(x) + waiting) <= budget)
        if x is None:
            break
        gpus = config.pair_cost(pool_cost(x, t_p, slo.spare), pool_cost(y, t_d, slo.spare))
        if best is None or gpus < best_gpus:
            best, best_gpus = (x, y), gpus
        y += 1
    return BEYOND_QUEUE_RANGE if best is None else best


def disaggregated_ttft_percentile_ms(ttft_s: float, transfer_s: float, prefill: dict, decode: dict,
                                     slo: SLO) -> float:
    """TTFT at the p-th percentile (a bound) = D + T_kv + IF(C_p ≤ 1 − p − C_d, 0,
    LN(C_p/(1 − p − C_d))/(x/D − λ)), ms. C_d at the 9 decimals comparisons use: 1 − p − C_d is a difference of
    near numbers where a row barely meets, and the spreadsheet's POISSON and the engine's sum differ in C_d's
    twelfth digit."""
    left = slo.budget - r9(decode["erlang_c"])
    erlang = prefill["prefill_erlang_c"]
    extra = 0.0 if erlang <= left else math.log(erlang / left) / prefill["prefill_drain_rate"]
    return (ttft_s + transfer_s + extra) * 1000


def _ms(seconds):
    return None if seconds is None else seconds * 1000


# Configurations and their rows -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Configuration:
    """One candidate: a mode, a GPU, a precision pair and its tensor-parallel sizes, with its replicas built."""

    index: int  # its place in the enumeration order
    mode: str
    gpu: str  # its label: one Catalog id, or "prefill/decode" for mixed pools (§15.1)
    weight: str
    kv: str
    parallel: tuple[int, ...]  # (t,) aggregated, (t_p, t_d) disaggregated
    decode: Replica  # the replica whose slots serve the decode: the aggregated one, or the decode pool's
    price: float  # per GPU-hour
    ttft_s: float  # D: one prompt's prefill on an idle replica, the aggregated one or the prefill pool's
    prefill: Replica | None = None  # disaggregated: the prefill pool's replica
    transfer_gbps: float | None = None  # disaggregated: BW_kv
    transfer_s: float = 0.0  # disaggregated: T_kv
    terms: dict = field(default_factory=dict, compare=False)  # what its sheet row looks up and derives
    prefill_gpu: str = ""  # mixed pools (§15.1): the prefill pool's Catalog id ("" = gpu)
    prefill_price: float | None = None  # … and its price per GPU-hour (None = price)

    @property
    def aggregated(self) -> bool:
        return self.mode == AGGREGATED

    @property
    def mixed(self) -> bool:
        """Prefill and decode pools on different GPUs (§15.1)."""
        return bool(self.prefill_gpu) and self.prefill_gpu != self.decode_gpu

    @property
    def decode_gpu(self) -> str:
        """The Catalog id of the GPU that decodes (the aggregated replica's, or the decode pool's)."""
        return self.gpu[len(self.prefill_gpu) + 1:] if self.prefill_gpu else self.gpu

    def cost(self, prefill_gpus: int, decode_gpus: int = 0) -> float:
        """Cost per hour: G·price on one GPU type; G_p·p_p + G_d·p_d for mixed pools (§15.1)."""
        if self.mixed:
            return prefill_gpus * self.prefill_price + decode_gpus * self.price
        return (prefill_gpus + decode_gpus) * self.price

    def pair_cost(self, prefill_gpus: int, decode_gpus: int):
        """What the pair search compares: the GPUs on one type (cost ∝ GPUs), ROUND(cost, 9) when mixed."""
        return r9(self.cost(prefill_gpus, decode_gpus)) if self.mixed else prefill_gpus + decode_gpus

    def latency_ms(self, batch):
        """What the TPOT target bounds: ITL(B) aggregated (the prefill stalls included), TPOT(B) on a decode pool."""
        rep = self.decode
        return (rep.cycle_s(batch) / rep.o if self.aggregated else rep.tpot_s(batch)) * 1000

    def words(self) -> dict:
        """What names the configuration in a row: its place, mode, GPU, precisions and sizes (t_p None
        aggregated)."""
        t_p, t_d = (None, self.parallel[0]) if self.aggregated else self.parallel
        return {"index": self.index, "mode": self.mode, "gpu": self.gpu, "prefill_gpu": self.prefill_gpu or self.gpu,
                "decode_gpu": self.decode_gpu, "weight_precision": self.weight, "kv_precision": self.kv,
                "prefill_tensor_parallel": t_p, "tensor_parallel": t_d}

    def prefill_fits(self) -> bool:
        """A prefill replica keeps one prompt's KV until it is sent: pool ≥ s·(KV_g + KV_d)(t_p)."""
        return self.prefill is None or float(self.prefill.pool) >= self.prefill.s * float(self.prefill.kv_held)


class DecodeRows(NamedTuple):
    """What a decode replica gives every configuration that shares it: B*, the reason it meets no TPOT target (or
    None), its rooflines at the batch rows, and the latency at B* + 1 that shows B* is the largest (None at B_max)."""

    b_star: int
    reason: str | None
    rooflines: list
    latency_next_ms: float | None = None


def decode_rows(config: Configuration, slo: SLO) -> DecodeRows:
    """B* and the rooflines of the configuration's decode replica: does not fit (B_max = 0), TPOT not reachable
    (ITL(1) aggregated, TPOT(1) on a decode pool, above Y)."""
    rep = config.decode
    if rep.b_max == 0:
        return DecodeRows(0, DOES_NOT_FIT, [])
    b_star = largest_batch(config.latency_ms, int(rep.b_max), slo.tpot_ms)
    if b_star == 0:
        return DecodeRows(0, TPOT_NOT_REACHABLE, [])
    ttft = config.ttft_s if config.aggregated else float(rep.ttft_s())
    following = float(config.latency_ms(b_star + 1)) if b_star < rep.b_max else None
    return DecodeRows(b_star, None, Roofline.rows(rep, batch_rows(b_star), ttft), following)


def ttft_reachable(config: Configuration, single: Roofline, slo: SLO) -> bool:
    """Whether some number of replicas can meet X: δ·L + step(1)/2 + D < X aggregated (the prompt's wait is above 0),
    and
    D + T_kv ≤ X disaggregated."""
    if config.aggregated:
        return r9((single.dispatch + single.step / 2 + config.ttft_s) * 1000) < r9(slo.ttft_ms)
    return r9((config.ttft_s + config.transfer_s) * 1000) <= r9(slo.ttft_ms)


def size_row(config: Configuration, roof: Roofline, rate: float, slo: SLO) -> dict | str:
    """The configuration at batch B (its roofline `roof`), sized at λ: its replicas and every figure of the row, or
    the reason it is not sized."""
    if config.aggregated:
        n = aggregated_replicas(rate, roof, slo)
        return n if isinstance(n, str) else aggregated_row(config, roof, n, rate, slo)
    pair = disaggregated_replicas(config, roof, rate, slo)
    return pair if isinstance(pair, str) else disaggregated_row(config, roof, pair, rate, slo)


def aggregated_row(config: Configuration, roof: Roofline, replicas: int, rate: float, slo: SLO) -> dict:
    """A sized aggregated row: §6's figures at B, the queue at n (and the miss at n − 1, which does not meet) and the
    fleet's figures."""
    queue = aggregated_queue(replicas, rate, roof, slo)
    t = config.parallel[0]
    gpus = pool_cost(replicas, t, slo.spare)
    fewer = aggregated_queue(replicas - 1, rate, roof, slo)["miss"] if replicas > 1 else 1.0
    row = {"replicas": replicas, "replicas_with_spares": gpus // t, **queue, "miss_one_fewer": fewer,
           "ttft_percentile_ms": aggregated_ttft_percentile_ms(queue, slo),
           "gpu_seconds_per_request": _gpu_seconds_per_request(config, roof)}
    return _with_figures(config, roof, row, gpus=gpus, rate=rate, slo=slo, per_user=1 / roof.itl)


def disaggregated_row(config: Configuration, roof: Roofline, pair: tuple[int, int], rate: float, slo: SLO) -> dict:
    """A sized disaggregated row: the prefill pool's D and T_kv, the decode pool's figures at B, both queues (and
    the misses with one prefill or one decode replica fewer, which do not meet)."""
    x, y = pair
    t_p, t_d = config.parallel
    ttft_s = config.ttft_s
    prefill = prefill_queue(x, rate, ttft_s, config.transfer_s, slo)
    decode = decode_queue(y, rate, roof)
    fewer_prefill = disaggregated_miss(prefill_queue(x - 1, rate, ttft_s, config.transfer_s, slo), decode) \
        if x > 1 else 1.0
    fewer_decode = disaggregated_miss(prefill, decode_queue(y - 1, rate, roof)) if y > 1 else 1.0
    prefill_gpus, decode_gpus = pool_cost(x, t_p, slo.spare), pool_cost(y, t_d, slo.spare)
    gpus = prefill_gpus + decode_gpus
    row = {"prefill_replicas": x, "decode_replicas": y, "prefill_with_spares": pool_cost(x, 1, slo.spare),
           "decode_with_spares": pool_cost(y, 1, slo.spare), "kv_transfer_gbps": config.transfer_gbps,
           "kv_transfer_ms": config.transfer_s * 1000, **prefill, **decode, "miss": disaggregated_miss(prefill, decode),
           "miss_one_fewer_prefill": fewer_prefill, "miss_one_fewer_decode": fewer_decode,
           "ttft_percentile_ms": disaggregated_ttft_percentile_ms(ttft_s, config.transfer_s, prefill, decode, slo),
           "gpu_seconds_per_request": _gpu_seconds_per_request(config, roof)}
    return _with_figures(config, roof, row, gpus=gpus, rate=rate, slo=slo, per_user=1 / roof.step,
                         cost=config.cost(prefill_gpus, decode_gpus))


def _with_figures(config: Configuration, roof: Roofline, row: dict, *, gpus: int, rate: float, slo: SLO,
                  per_user: float, cost: float | None = None) -> dict:
    """The row's §6 figures and the fleet's: GPUs, cost per hour (G·price), acceptable requests per hour
    (3600·λ·A·q), cost per acceptable request, per million output tokens (and acceptable ones), tokens/s per GPU
    (λ·o/G) and per user."""
    attainment = 1 - row["miss"]
    cost = gpus * config.price if cost is None else cost
    acceptable = SECONDS_PER_HOUR * rate * attainment * slo.quality
    per_million = cost * 1e6 / (SECONDS_PER_HOUR * rate * roof.outputs)
    return {"b_max": int(config.decode.b_max), "batch": roof.batch, "ttft_ms": config.ttft_s * 1000,
            "tpot_ms": roof.step * 1000, "prefill_s": roof.prefill, "cycle_s": roof.cycle, "itl_ms": roof.itl * 1000,
            "service_rate": roof.service_rate, **row, "attainment": attainment, "gpus": gpus, "cost_per_hour": cost,
            "acceptable_per_hour": acceptable, "cost_per_acceptable_request": cost / acceptable if acceptable else None,
            "cost_per_million_tokens": per_million,
            "cost_per_million_acceptable_tokens": per_million / (attainment * slo.quality) if attainment else None,
            "tokens_per_s_per_gpu": rate * roof.outputs / gpus, "tokens_per_s_per_user": per_user,
            "output_tokens_per_dollar": SECONDS_PER_HOUR * rate * roof.outputs / cost if cost else None}


def rank(row: dict) -> tuple:
    """The one order of both choices: cost per hour (lower first), attainment (higher), tokens/s per user (higher),
    then the enumeration order (so the smaller B), each compared at 9 decimals."""
    return (r9(row["cost_per_hour"]), -r9(row["attainment"]), -r9(row["tokens_per_s_per_user"]), row["index"],
            row["batch"])


def tensor_parallel_fits(model, t: int) -> bool:
    """§6's rules for t: it divides the attention heads, and the KV heads split over it or replicate on it."""
    return model.heads % t == 0 and (model.kv_heads % t == 0 or t % model.kv_heads == 0)


def configurations(model, gpus: list, precisions: list, *, parallel, modes, knobs: Knobs,
                   transfer_gbps: float | None = None, calibrated: dict | None = None,
                   mixed_pairs: list[tuple[int, int]] = ()) -> list[Configuration]:
    """Every configuration in the enumeration order: `gpus` as listed ((Catalog GPU, price) pairs), then
    `precisions` ((weight, kv) Catalog entries), aggregated before disaggregated, then t ascending (t_p, then t_d);
    then the mixed pools (§15.1): by pair ((prefill, decode) places in `gpus`) as given, within a pair by precision
    pair, t_p, t_d. A t that breaks §6's rules is skipped, as is t > 1 on a GPU without an NVLink figure and a
    disaggregated pair whose KV link has no figure. `calibrated`: the efficiencies fitted on one GPU ({GPU id:
    {key: value}}, §12.1), which its candidates read instead of the knobs'."""
    found, built = [], {}  # built: (GPU place, precision place) → {t: replica}, each GPU's replicas built once

    def replicas_of(g: int, p: int) -> tuple[dict, Replica, dict]:
        """The replicas of GPU g at precision pair p for each valid t, the one on one GPU (KV_1) and the terms its
        Catalog row gives."""
        if (g, p) not in built:
            (gpu, price), (weight, kv) = gpus[g], precisions[p]
            knobs_here = replace(knobs, **(calibrated or {}).get(gpu.id, {}))
            sizes = [t for t in sorted(set(parallel)) if tensor_parallel_fits(model, t)
                     and (t == 1 or gpu.nvlink_gbps)]
            each = {t: replica(model, gpu, weight=weight, kv=kv, tensor_parallel=t, knobs=knobs_here, price=price)
                    for t in sizes}
            one_gpu = each[1] if 1 in each else replica(model, gpu, weight=weight, kv=kv, tensor_parallel=1,
                                                        knobs=knobs_here, price=price)
            built[g, p] = each, one_gpu, catalog_terms(gpu, weight, kv, price=price, knobs=knobs_here)
        return built[g, p]

    def disaggregated(g_p: int, g_d: int, p: int) -> None:
        (gpu_p, price_p), (gpu_d, price_d), (weight, kv) = gpus[g_p], gpus[g_d], precisions[p]
        (prefills, one_gpu, terms_p), (decodes, _, terms_d) = replicas_of(g_p, p), replicas_of(g_d, p)
        mixed = g_p != g_d
        common = {"gpu": f"{gpu_p.id}/{gpu_d.id}" if mixed else gpu_d.id, "weight": weight.id, "kv": kv.id,
                  "price": price_d, "prefill_gpu": gpu_p.id if mixed else "", "prefill_price": price_p}
        for t_p, first in prefills.items():
            for t_d, decode in decodes.items():
                gbps = (mixed_transfer_gbps(t_p, t_d, gpu_p, gpu_d, transfer_gbps) if mixed
                        else kv_transfer_gbps(t_p, t_d, gpu_d, transfer_gbps))
                if not gbps > 0:
                    continue
                transfer = kv_transfer_s(one_gpu.s, float(one_gpu.kv_g), gbps)
                found.append(Configuration(
                    len(found), DISAGGREGATED, parallel=(t_p, t_d), decode=decode, ttft_s=float(first.ttft_s()),
                    prefill=first, transfer_gbps=gbps, transfer_s=transfer,
                    terms=terms_d | prefill_terms(terms_p) | replica_terms(decode, first, one_gpu), **common))

    for g, (gpu, price) in enumerate(gpus):
        for p in range(len(precisions)):
            each, one_gpu, terms = replicas_of(g, p)
            common = {"gpu": gpu.id, "weight": precisions[p][0].id, "kv": precisions[p][1].id, "price": price}
            if AGGREGATED in modes:
                found += [Configuration(len(found) + i, AGGREGATED, parallel=(t,), decode=rep,
                                        ttft_s=float(rep.ttft_s()),
                                        terms=terms | prefill_terms(terms) | replica_terms(rep, rep, one_gpu), **common)
                          for i, (t, rep) in enumerate(each.items())]
            if DISAGGREGATED in modes:
                disaggregated(g, g, p)
    if DISAGGREGATED in modes:
        for g_p, g_d in mixed_pairs:
            for p in range(len(precisions)):
                disaggregated(g_p, g_d, p)
    return found


PREFILL_TERMS = ("price_per_gpu_hour", "memory_gb", "peak_flops", "bandwidth", "nvlink_gbps", "network_gbps",
                 "compute_efficiency", "overhead_ms")  # what the replica that prefills reads of its own GPU


def prefill_terms(terms: dict) -> dict:
    """The Catalog terms of the GPU that prefills, as `prefill_<key>`: the row's own on one GPU type, the prefill
    pool's GPU's when mixed (§15.1: each pool on its own Catalog row)."""
    return {f"prefill_{key}": terms[key] for key in PREFILL_TERMS}


def mixed_transfer_gbps(prefill_parallel: int, decode_parallel: int, prefill_gpu, decode_gpu,
                        given: float | None = None) -> float:
    """BW_kv of a mixed pair (§15.1): the number given, else MIN(t_p·NET_p, t_d·NET_d)·0.90. Two GPU types never
    share a node, so the pair talks over the network, each side through its own GPUs' NICs: the slower side limits."""
    if given is not None:
        return float(given)
    return min(prefill_parallel * (prefill_gpu.network_gbps or 0),
               decode_parallel * (decode_gpu.network_gbps or 0)) * NETWORK_EFFICIENCY


def catalog_terms(gpu, weight, kv, *, price: float, knobs: Knobs) -> dict:
    """The Catalog figures a configuration's sheet row looks up (a blank FP8, NVLink or network figure as 0), the
    efficiencies on its GPU (§12.1) and what follows from them alone: bytes per weight, the effective peak and
    bandwidth."""
    fp8, fp4, nvlink, network = (float(passes.blank_as_zero(getattr(gpu, key)))
                                 for key in ("fp8_tflops", "fp4_tflops", "nvlink_gbps", "network_gbps"))
    return {"price_per_gpu_hour": price, "memory_gb": gpu.memory_gb, "peak_tflops": gpu.peak_tflops,
            "fp8_tflops": fp8, "fp4_tflops": fp4, "hbm_tbps": gpu.hbm_tbps, "nvlink_gbps": nvlink,
            "network_gbps": network, "gpus_per_node": gpu.gpus_per_node, "weight_bits": weight.weight_bits,
            "fp8_gemm": weight.fp8_gemm, "fp4_gemm": weight.fp4_gemm,
            "kv_value_bytes": kv.kv_bytes, "weight_bytes": passes.bytes_per_weight(weight.weight_bits),
            "peak_flops": passes.effective_peak_flops(gpu.peak_tflops, fp8, weight.fp8_gemm, fp4, weight.fp4_gemm),
            "compute_efficiency": knobs.compute_efficiency, "bandwidth_efficiency": knobs.bandwidth_efficiency,
            "overhead_ms": knobs.overhead_ms, "bandwidth": passes.effective_bandwidth(gpu.hbm_tbps,
                                                                                      knobs.bandwidth_efficiency)}


def replica_terms(decode: Replica, first: Replica, one_gpu: Replica) -> dict:
    """A configuration's replica terms: the decode (or aggregated) replica's KV bytes per token (the model's and a
    draft's), pool and B_max; the size and KV bytes per token of the replica that prefills, and whether one prompt's
    KV fits it; KV_1, the model's KV bytes per token on one GPU (what crosses to a decode replica)."""
    def draft_kv(r: Replica) -> float:
        return r.kv_held - r.kv_g

    return {"kv_bytes_per_token": decode.kv_g, "draft_kv_bytes_per_token": draft_kv(decode),
            "pool_gb": decode.pool / passes.GB, "b_max": decode.b_max, "first_parallel": first.tensor_parallel,
            "kv_first": first.kv_g, "draft_kv_first": draft_kv(first),
            "prefill_fits": bool(first.pool >= first.s * first.kv_held), "kv_one": one_gpu.kv_g}


@dataclass
class Candidate:
    """A configuration's outcome: its sized rows (one per batch row that meets), the one shown, or its reason."""

    config: Configuration
    b_star: int
    rows: list[dict] = field(default_factory=list)
    reason: str | None = None

    @property
    def shown(self) -> dict | None:
        return min(self.rows, key=rank) if self.rows else None


def evaluate(config: Configuration, rate: float, slo: SLO, shared: dict | None = None) -> Candidate:
    """Size the configuration at each of its batch rows; its reason when none meets, the first that applies: does
    not fit (also a prefill replica without room for one prompt), TPOT not reachable, TTFT not reachable, beyond the
    queue range. `shared` keeps B* and the rooflines of a decode replica that several configurations share."""
    if not config.prefill_fits():
        return Candidate(config, 0, reason=DOES_NOT_FIT)
    shared = {} if shared is None else shared
    key = (id(config.decode), config.mode)
    if key not in shared:
        shared[key] = decode_rows(config, slo)
    decode = shared[key]
    reason = decode.reason
    if reason is None and not ttft_reachable(config, decode.rooflines[0], slo):
        reason = TTFT_NOT_REACHABLE
    found = Candidate(config, decode.b_star, reason=reason)
    if reason:
        return found
    reasons = []
    for roof in decode.rooflines:
        row = size_row(config, roof, rate, slo)
        if isinstance(row, str):
            reasons.append(row)
        else:
            found.rows.append(_labelled(config, decode, row, slo))
    if not found.rows:
        found.reason = min(reasons, key=REASONS.index)
    return found


def _labelled(config: Configuration, decode: DecodeRows, row: dict, slo: SLO) -> dict:
    """A sized row with its configuration's words, terms and integers in front and its checks after: the TPOT target
    met at B, B* the largest (B* = B_max or the latency at B* + 1 above Y), B a batch row, the TTFT target met, the
    replicas the fewest (one fewer does not meet, per pool), every queue within the range."""
    latency = row["itl_ms"] if config.aggregated else row["tpot_ms"]
    fewer = [row["miss_one_fewer"]] if config.aggregated else [row["miss_one_fewer_prefill"],
                                                                  row["miss_one_fewer_decode"]]
    checks = {"tpot_met": r9(latency) <= slo.tpot_ms,
              "b_star_largest": decode.latency_next_ms is None or r9(decode.latency_next_ms) > slo.tpot_ms,
              "batch_row": row["batch"] in batch_rows(decode.b_star), "ttft_met": meets(row["miss"], slo.attainment),
              "fewest": not any(meets(m, slo.attainment) for m in fewer),
              "within_range": max(row["servers"], row.get("prefill_replicas") or 0) <= QUEUE_RANGE}
    return {**config.words(), **config.terms, "b_star": decode.b_star, "latency_next_ms": decode.latency_next_ms,
            **row, **checks, "holds": all(checks.values()),
            "meets": config.terms["prefill_fits"] and checks["tpot_met"] and checks["ttft_met"]
            and checks["within_range"]}


# The search and its outputs ------------------------------------------------------------------------------------------
@dataclass
class Search:
    """Every configuration evaluated at one rate: the Candidates table, the cheapest of each mode and overall, and
    every sized (configuration, batch) row for the Pareto front."""

    candidates: list[Candidate]  # in the Candidates table's order: shown rows by rank, then those with a reason
    rows: list[dict]  # every sized row, in the enumeration order

    @property
    def shown(self) -> list[dict]:
        return [c.shown for c in self.candidates if c.rows]

    def cheapest(self, mode: str | None = None) -> dict | None:
        """The first shown row (of `mode`), or None when none meets."""
        return next((row for row in self.shown if mode is None or row["mode"] == mode), None)


def search(configs: list[Configuration], rate: float, slo: SLO) -> Search:
    """Evaluate every configuration at λ and order them: shown rows by `rank`, then the rest in enumeration order."""
    shared: dict = {}
    evaluated = [evaluate(config, rate, slo, shared) for config in configs]
    met = sorted((c for c in evaluated if c.rows), key=lambda c: rank(c.shown))
    return Search(met + [c for c in evaluated if not c.rows], [row for c in evaluated for row in c.rows])


PER_GPU, PER_DOLLAR = "tokens_per_s_per_gpu", "output_tokens_per_dollar"  # the front's first axis, one type or mixed


def pareto_front(rows: list[dict], axis: str = PER_GPU) -> list[dict]:
    """The rows no other row beats in both `axis` (tokens/s per GPU; output tokens per dollar with mixed pools,
    §15.1: a GPU of one type is not a unit of another) and tokens/s per user (at least as good in both and better
    in one, at 9 decimals), sorted by the axis, then per user, both descending, then the enumeration order."""
    keyed = sorted(((r9(r[axis]), r9(r["tokens_per_s_per_user"]), r) for r in rows),
                   key=lambda k: (-k[0], -k[1], k[2]["index"], k[2]["batch"]))
    front, best_above = [], -math.inf  # best_above: the most tokens/s per user further along the axis
    for _, group in itertools.groupby(keyed, key=lambda k: k[0]):  # rows of equal value on the axis
        group = list(group)
        best_here = group[0][1]  # sorted: the first has the most tokens/s per user
        front += [row for _, per_user, row in group if per_user == best_here and best_here > best_above]
        best_above = max(best_above, best_here)
    return front


def thinned(count: int, rows: int = PARETO_ROWS) -> list[int]:
    """The positions (1-based) a front of `count` rows shows in at most `rows`: all of them, or ROUND((i − 1)·
    (count − 1)/(rows − 1), 0) + 1 for i = 1 … rows (both ends kept, the rest spread evenly)."""
    if count <= rows:
        return list(range(1, count + 1))
    return [excel_round((i - 1) * (count - 1) / (rows - 1)) + 1 for i in range(1, rows + 1)]


# Over the day ---------------------------------------------------------------------------------------------------------
def hourly_rates(rate: float, fractions) -> list[float]:
    """λ_h = λ·f_h/MAX_h(f_h): the profile's busiest hour is the peak rate."""
    peak = max(fractions)
    return [rate * f / peak for f in fractions]


def replicas_at(config: Configuration, roof: Roofline, rate: float, slo: SLO) -> tuple[int, ...] | str:
    """The configuration's replicas at batch B and rate λ by the peak's sizing: (n,) or (x, y); zeros at λ = 0; or
    the reason there are none."""
    if rate == 0:
        return (0,) if config.aggregated else (0, 0)
    if config.aggregated:
        found = aggregated_replicas(rate, roof, slo)
        return found if isinstance(found, str) else (found,)
    return disaggregated_replicas(config, roof, rate, slo)


def pool_gpus(config: Configuration, replicas: tuple[int, ...], spare: float) -> tuple[int, ...]:
    """Each pool's GPUs with spares, in whole replicas: (G,) or (G^p, G^d)."""
    return tuple(pool_cost(n, t, spare) for n, t in zip(replicas, config.parallel))


def fleet_gpus(config: Configuration, replicas: tuple[int, ...], spare: float) -> int:
    """G: every pool's replicas with spares, in whole replicas, times its GPUs."""
    return sum(pool_cost(n, t, spare) for n, t in zip(replicas, config.parallel))


def miss_at(config: Configuration, roof: Roofline, replicas: tuple[int, ...], rate: float, slo: SLO) -> float:
    """The miss share of these replicas at λ: P(TTFT > X) aggregated, tail_p + C_d disaggregated."""
    if config.aggregated:
        return aggregated_queue(replicas[0], rate, roof, slo)["miss"]
    x, y = replicas
    return disaggregated_miss(prefill_queue(x, rate, config.ttft_s, config.transfer_s, slo),
                              decode_queue(y, rate, roof))


def day(config: Configuration, roof: Roofline, *, peak: tuple[int, ...], rate: float, fractions, slo: SLO) -> dict:
    """The day hour by hour for the chosen configuration at its batch: a fleet sized for the peak (its GPUs all day,
    its serving replicas the peak's) and one that follows demand (each hour sized by the same rule), with the busy
    GPUs λ_h·g, g = the GPU-seconds of one request at full batch; an hour of no demand has no replicas, no
    attainment and no acceptable requests. Totals per fleet: GPU-hours, idle GPU-hours, cost, acceptable requests
    and cost per acceptable request."""
    per_request = _gpu_seconds_per_request(config, roof)
    peak_gpus, hours = fleet_gpus(config, peak, slo.spare), []
    for h, (fraction, rate_h) in enumerate(zip(fractions, hourly_rates(rate, fractions))):
        following = replicas_at(config, roof, rate_h, slo)
        if isinstance(following, str):
            raise ValueError(f"hour {h}: {following} at a rate below the peak's")  # the sizing is monotone in λ
        hour = {"hour": h, "fraction": float(fraction), "rate": rate_h, "busy_gpus": rate_h * per_request,
                **dict(zip(_replica_keys(config), following)),
                "gpus_following": fleet_gpus(config, following, slo.spare),
                "cost_following": config.cost(*pool_gpus(config, following, slo.spare)),
                "gpus_peak_sized": peak_gpus}
        hour["miss_following"] = None if rate_h == 0 else miss_at(config, roof, following, rate_h, slo)
        for fleet, replicas in (("following", following), ("peak_sized", peak)):
            attainment = None if rate_h == 0 else 1 - miss_at(config, roof, replicas, rate_h, slo)
            hour[f"attainment_{fleet}"] = attainment
            hour[f"acceptable_{fleet}"] = 0.0 if rate_h == 0 else SECONDS_PER_HOUR * rate_h * attainment * slo.quality
        hours.append(hour | _hour_checks(config, roof, following, rate_h, slo))
    busy = sum(h["busy_gpus"] for h in hours)
    totals = {}
    for fleet in ("peak_sized", "following"):
        gpu_hours = float(sum(h[f"gpus_{fleet}"] for h in hours))
        cost, acceptable = gpu_hours * config.price, sum(h[f"acceptable_{fleet}"] for h in hours)
        if config.mixed:  # Σ_h (G_h^p·p_p + G_h^d·p_d) (§15.1)
            cost = len(hours) * config.cost(*pool_gpus(config, peak, slo.spare)) if fleet == "peak_sized" else \
                sum(h["cost_following"] for h in hours)
        totals |= {f"gpu_hours_{fleet}": gpu_hours, f"idle_gpu_hours_{fleet}": gpu_hours - busy,
                   f"cost_{fleet}": cost, f"acceptable_{fleet}": acceptable,
                   f"cost_per_acceptable_request_{fleet}": cost / acceptable if acceptable else None}
    return {"hours": hours, "busy_gpu_hours": busy, "gpu_seconds_per_request": per_request,
            "requests": SECONDS_PER_HOUR * sum(h["rate"] for h in hours), **totals}


def _hour_checks(config: Configuration, roof: Roofline, replicas: tuple[int, ...], rate: float, slo: SLO) -> dict:
    """An hour's replicas meet the target and are the fewest (one fewer in a pool does not meet); an hour of no
    demand holds with none."""
    if rate == 0:
        return {"meets": all(n == 0 for n in replicas), "fewest": True}
    fewer = [tuple(n - (i == k) for i, n in enumerate(replicas)) for k in range(len(replicas))]
    return {"meets": meets(miss_at(config, roof, replicas, rate, slo), slo.attainment),
            "fewest": not any(min(f) > 0 and meets(miss_at(config, roof, f, rate, slo), slo.attainment)
                              for f in fewer)}


def _erlang_terms(config: Configuration, roof: Roofline, replicas: tuple[int, ...], rate: float) -> tuple:
    """(C of the first pool, C_d of the decode pool or None aggregated) at these replicas: C(n·B, λ·cycle)
    aggregated; C(x, λ·D) and C(y·B, λ·o·TPOT) disaggregated."""
    if config.aggregated:
        return erlang_c(replicas[0] * roof.batch, rate * roof.cycle), None
    x, y = replicas
    return erlang_c(x, rate * config.ttft_s), erlang_c(y * roof.batch, rate * roof.outputs * roof.step)


def _miss_or_one(config: Configuration, roof: Roofline, replicas: tuple[int, ...], rate: float, slo: SLO) -> float:
    """The miss at these replicas, 1 where a pool has none."""
    return 1.0 if min(replicas) < 1 else miss_at(config, roof, replicas, rate, slo)


def _gpu_seconds_per_request(config: Configuration, roof: Roofline) -> float:
    """g = t·cycle(B)/B aggregated, t_p·D + t_d·o·TPOT(B)/B disaggregated: a request's work at full batch."""
    if config.aggregated:
        return config.parallel[0] * roof.cycle / roof.batch
    t_p, t_d = config.parallel
    return t_p * config.ttft_s + t_d * roof.outputs * roof.step / roof.batch


def _replica_keys(config: Configuration) -> tuple[str, ...]:
    return ("replicas",) if config.aggregated else ("prefill_replicas", "decode_replicas")


# The fleet in the plan: month by month -------------------------------------------------------------------------------
def tokens_per_day(first_attempt_rate: float, outputs: int, fractions) -> float:
    """The plan's demand with a fleet: D = 3600·o·λ_u·Σ_h f̂_h (f̂ = f/MAX(f)), 86,400·o·λ_u without a profile;
    first attempts only (retries are cost, not served tokens)."""
    peak_hours = HOURS_PER_DAY if fractions is None else sum(fractions) / max(fractions)
    return SECONDS_PER_HOUR * outputs * first_attempt_rate * peak_hours


def month_replicas(replicas: int, rate_ratio: float) -> int:
    """n_k = MAX(n, CEIL9(n·λ_k/λ)): replicas scaled with the load keep the launch month's utilisation (and its SLO,
    as a larger pool at the same utilisation waits less), never below the launch fleet. Also x_k, y_k and n_{h,k}."""
    return max(replicas, ceil9_int(replicas * rate_ratio))


@dataclass(frozen=True, kw_only=True)
class PlanFleet:
    """The configuration chosen at launch, as the plan's months read it (§11, "The fleet in the plan"): its pools'
    tensor-parallel sizes (t,) or (t_p, t_d), its replicas at the peak rate, the following fleet's replicas in each
    hour of the day (None without a profile) and the spare share."""

    parallel: tuple[int, ...]
    peak: tuple[int, ...]
    hourly: tuple[tuple[int, ...], ...] | None
    spare: float

    def gpus(self, replicas: tuple[int, ...], rate_ratio: float) -> int:
        """The GPUs with spares of these replicas scaled to a month's rate: Σ_pools CEIL9(n_k·(1 + r_f))·t."""
        return sum(pool_cost(month_replicas(n, rate_ratio), t, self.spare) for n, t in zip(replicas, self.parallel))

    def hours(self, rate_ratio: float) -> list[int]:
        """G_{h,k}: the following fleet's GPUs in each hour at a month's rate (the peak-sized fleet every hour
        without a profile)."""
        if self.hourly is None:
            return [self.gpus(self.peak, rate_ratio)] * HOURS_PER_DAY
        return [self.gpus(replicas, rate_ratio) for replicas in self.hourly]

    def scaled(self, rate_ratio: float) -> "PlanFleet":
        """The launch fleet at another demand, by the month rule (never below the launch's replicas)."""
        def each(replicas):
            return tuple(month_replicas(n, rate_ratio) for n in replicas)

        return replace(self, peak=each(self.peak),
                       hourly=tuple(map(each, self.hourly)) if self.hourly is not None else None)

    @classmethod
    def of(cls, table: "FleetTable", spare: float) -> "PlanFleet | None":
        """From a Fleet table: its overall cheapest configuration (None when none meets the SLO)."""
        best = table.cheapest
        if best is None:
            return None
        aggregated = best["mode"] == AGGREGATED
        keys = ("replicas",) if aggregated else ("prefill_replicas", "decode_replicas")
        parallel = (best["tensor_parallel"],) if aggregated else (best["prefill_tensor_parallel"],
                                                                   best["tensor_parallel"])
        hourly = tuple(tuple(int(h[key] or 0) for key in keys) for h in table.day) if table.day else None
        return cls(parallel=parallel, peak=tuple(int(best[key]) for key in keys), hourly=hourly, spare=spare)


# The table for one scenario ---------------------------------------------------------------------------------------
CANDIDATE_KEYS = (
    "index", "mode", "gpu", "prefill_gpu", "decode_gpu", "weight_precision", "kv_precision",
    "prefill_tensor_parallel", "tensor_parallel",
    "price_per_gpu_hour", "b_max", "b_star", "batch", "ttft_ms", "tpot_ms", "prefill_s", "cycle_s", "itl_ms",
    "service_rate", "replicas", "prefill_replicas", "decode_replicas", "replicas_with_spares", "prefill_with_spares",
    "decode_with_spares", "load", "servers", "utilisation", "erlang_c", "prefill_utilisation", "prefill_wait_ms",
    "first_token_ms", "kv_transfer_gbps", "kv_transfer_ms", "prefill_load", "prefill_erlang_c", "prefill_drain_rate",
    "prefill_tail", "slack_ms", "drain_rate", "miss", "miss_one_fewer", "miss_one_fewer_prefill",
    "miss_one_fewer_decode", "attainment", "ttft_percentile_ms", "gpus", "cost_per_hour", "acceptable_per_hour",
    "cost_per_acceptable_request", "cost_per_million_tokens", "cost_per_million_acceptable_tokens",
    "tokens_per_s_per_gpu", "tokens_per_s_per_user", "gpu_seconds_per_request", "memory_gb", "peak_tflops",
    "fp8_tflops", "fp4_tflops", "hbm_tbps", "nvlink_gbps", "network_gbps", "gpus_per_node", "weight_bits",
    "fp8_gemm", "fp4_gemm", "kv_value_bytes", "weight_bytes", "compute_efficiency", "bandwidth_efficiency",
    "overhead_ms", "peak_flops", "bandwidth", "kv_bytes_per_token", "draft_kv_bytes_per_token", "pool_gb",
    "first_parallel", "kv_first",
    "draft_kv_first", "prefill_fits", "kv_one", "latency_next_ms", "tpot_met", "b_star_largest", "batch_row",
    "ttft_met", "fewest", "within_range", "holds", "meets", "reason", "output_tokens_per_dollar",
    *(f"prefill_{key}" for key in PREFILL_TERMS))
HEADLINE = {  # defined name → the overall cheapest row's key
    "fleet_cheapest_mode": "mode", "fleet_cheapest_gpu": "gpu", "fleet_cheapest_gpus": "gpus",
    "fleet_cheapest_cost_per_hour": "cost_per_hour",
    "fleet_cheapest_cost_per_acceptable_request": "cost_per_acceptable_request",
    "fleet_cheapest_cost_per_million_tokens": "cost_per_million_tokens",
    "fleet_cheapest_tokens_per_s_per_gpu": "tokens_per_s_per_gpu",
    "fleet_cheapest_tokens_per_s_per_user": "tokens_per_s_per_user", "fleet_cheapest_ttft_ms": "ttft_percentile_ms",
    "fleet_cheapest_attainment": "attainment"}
DAY_HEADLINE = {  # defined name → the day's total
    "fleet_day_gpu_hours_peak_sized": "gpu_hours_peak_sized", "fleet_day_gpu_hours_following": "gpu_hours_following",
    "fleet_day_idle_gpu_hours_peak_sized": "idle_gpu_hours_peak_sized",
    "fleet_day_idle_gpu_hours_following": "idle_gpu_hours_following",
    "fleet_day_cost_peak_sized": "cost_peak_sized", "fleet_day_cost_following": "cost_following",
    "fleet_day_cost_per_acceptable_request_peak_sized": "cost_per_acceptable_request_peak_sized",
    "fleet_day_cost_per_acceptable_request_following": "cost_per_acceptable_request_following"}


@dataclass
class FleetTable:
    """docs/method.md §11 for one scenario: the demand and SLO, every configuration's row (the Candidates
    table), the cheapest of each mode and overall, the Pareto front as shown (at most 32 rows) and the day."""

    scalars: dict
    candidates: list[dict]  # one per configuration, in the Candidates table's order; a reason row's numbers None
    pareto: list[dict]  # the front's shown rows, each with its `position` on the whole front
    day: list[dict]  # 24 hours with a profile, else none
    configurations: list[Configuration] = field(default_factory=list, repr=False)  # for the sheet's rooflines
    day_terms: tuple | None = field(default=None, repr=False)  # the day's (configuration, roofline, peak, SLO)

    @property
    def cheapest(self) -> dict | None:
        return next((row for row in self.candidates if row["reason"] is None), None)

    def cheapest_of(self, mode: str) -> dict | None:
        return next((row for row in self.candidates if row["reason"] is None and row["mode"] == mode), None)

    @property
    def headline(self) -> dict:
        """The headline names; a blank ("") for each that has no value: the cheapest's when none meets, the day's
        without a profile."""
        best, s = self.cheapest, self.scalars
        found = {"fleet_answer": answer(best, s["currency_symbol"])}
        found |= {name: (best[key] if best else BLANK) for name, key in HEADLINE.items()}
        for mode in MODES:
            row = self.cheapest_of(mode)
            found[f"fleet_cheapest_{mode}_cost_per_hour"] = row["cost_per_hour"] if row else BLANK
        found |= {"fleet_configurations": s["configurations"], "fleet_feasible_configurations": s["feasible"]}
        found |= self.mixed_headline
        return found | {name: BLANK if s.get(key) is None else s[key] for name, key in DAY_HEADLINE.items()}

    @property
    def single_type(self) -> dict | None:
        """The cheapest row whose pools (or one) use one GPU type, by §11's ranking: the Cover's comparison."""
        return next((row for row in self.candidates if row["reason"] is None
                     and row["prefill_gpu"] == row["decode_gpu"]), None)

    @property
    def cheapest_mixed(self) -> dict | None:
        """The cheapest row whose prefill and decode GPUs differ (§15.1)."""
        return next((row for row in self.candidates if row["reason"] is None
                     and row["prefill_gpu"] != row["decode_gpu"]), None)

    @property
    def mixed_headline(self) -> dict:
        """§15.1's names: the chosen fleet's GPU and GPUs per pool (one type: both pools the one GPU; aggregated:
        its GPUs in the decode pool's name, none in prefill), whether it is mixed, the cheapest mixed row's cost and
        the cheapest single-type row's GPU, GPUs and cost; blanks where there is none."""
        best, single, mixed = self.cheapest, self.single_type, self.cheapest_mixed
        found = {"fleet_cheapest_prefill_gpu": best["prefill_gpu"] if best else BLANK,
                 "fleet_cheapest_decode_gpu": best["decode_gpu"] if best else BLANK,
                 "fleet_cheapest_mixed": best["prefill_gpu"] != best["decode_gpu"] if best else BLANK,
                 "fleet_cheapest_prefill_gpus": prefill_gpus(best) if best else BLANK,
                 "fleet_cheapest_decode_gpus": best["gpus"] - prefill_gpus(best) if best else BLANK,
                 "fleet_cheapest_mixed_cost_per_hour": mixed["cost_per_hour"] if mixed else BLANK,
                 "fleet_mixed_configurations": self.scalars["mixed_configurations"]}
        found |= {f"fleet_cheapest_single_type_{key}": single[key] if single else BLANK
                  for key in ("gpu", "gpus", "cost_per_hour")}
        return found | {"fleet_mixed_answer": mixed_answer(self.scalars["mixed_gpus"], found, best,
                                                           self.scalars["currency_symbol"])}

    @property
    def checks(self) -> dict[str, bool]:
        rows = [row for row in self.candidates + self.pareto if row["reason"] is None]
        return {"fleet_some_configuration_meets_slo": self.cheapest is not None,
                "fleet_search_within_limit": self.scalars["configurations"] <= MAX_CONFIGURATIONS,
                "fleet_mixed_pairs_valid": True,  # the scenario refuses another pair (planner.inputs.fleet)
                "fleet_pool_inputs_form": True,  # the plan refuses the other form (planner.engine.plan.pools)
                "fleet_gpus_priced": all(min(row["price_per_gpu_hour"], row["prefill_price_per_gpu_hour"]) > 0
                                         for row in rows),  # the scenario's refuses 0
                "fleet_rows_hold": all(row["holds"] for row in rows) and all(h["meets"] and h["fewest"]
                                                                              for h in self.day)}

    def to_json(self) -> dict:
        return {**self.scalars, "candidates": self.candidates, "pareto": self.pareto, "day": self.day}

    def passes(self, row: dict) -> dict:
        """A sized row's Replica.pass_pieces, where its sheet row shows them (not in the JSON): the replica that
        prefills at one prompt ("first"), the row's replica at B ("b") and at B* + 1 ("next"; None at B_max)."""
        config = self.configurations[row["index"]]
        rep = config.decode
        first = rep if config.aggregated else config.prefill
        return {"first": first.pass_pieces(1), "b": rep.pass_pieces(row["batch"]),
                "next": rep.pass_pieces(row["b_star"] + 1) if row["b_star"] < rep.b_max else None,
                "erlang_c_one_fewer": self.erlang_c_one_fewer(row)}

    def day_queues(self) -> list[dict]:
        """Each hour's queue terms, where the sheet's day shows them beside the misses that read them (not in the
        JSON): C of the first pool (aggregated, or the prefill pool) and C_d of the decode pool, following demand,
        sized for the peak and with one replica fewer, and the misses with one fewer (1 below one replica); none at
        an hour of no demand."""
        config, roof, peak, slo = self.day_terms
        found = []
        for hour in self.day:
            rate = hour["rate"]
            if rate == 0:
                found.append({})
                continue
            following = tuple(hour[key] for key in _replica_keys(config))
            fewer = (following[0] - 1, *following[1:])
            terms = {}
            for name, replicas in (("following", following), ("peak", peak), ("fewer", fewer)):
                first, decode = _erlang_terms(config, roof, replicas, rate)
                terms |= {f"erlang_{name}": first, f"decode_erlang_{name}": decode}
            if not config.aggregated:
                terms["decode_erlang_fewer"] = _erlang_terms(config, roof, (following[0], following[1] - 1), rate)[1]
                terms["miss_fewer_decode"] = _miss_or_one(config, roof, (following[0], following[1] - 1), rate, slo)
            terms["miss_fewer"] = _miss_or_one(config, roof, fewer, rate, slo)
            terms["miss_peak"] = miss_at(config, roof, peak, rate, slo)
            if not config.aggregated:
                terms["miss_peak_disaggregated"] = terms["miss_peak"]
            found.append(terms)
        return found

    def erlang_c_one_fewer(self, row: dict) -> float:
        """C with one replica fewer: C((n − 1)·B, λ·cycle) aggregated, C(x − 1, λ·D) disaggregated (the miss at n − 1
        or x − 1 reads it)."""
        rate = self.scalars["rate"]
        if row["mode"] == AGGREGATED:
            return erlang_c((row["replicas"] - 1) * row["batch"], rate * row["cycle_s"])
        return erlang_c(row["prefill_replicas"] - 1, rate * row["ttft_ms"] / 1000)


def compute(scenario, tables) -> FleetTable:
    fleet, sv, goodput = scenario.fleet, serving_engine.knobs_in(scenario), scenario.goodput
    merged = scenario.merged_catalog
    knobs = Knobs.of(scenario)
    fit = tables["serving"].fit if sv.calibration != "none" else None
    on_benchmark_gpu = serving_engine.fitted(fit) if fit else {key: getattr(sv, key) for key in EFFICIENCIES}
    calibrated = {fit["gpu"]: on_benchmark_gpu} if fit else None
    slo = SLO(goodput.slo.ttft_ms, goodput.slo.tpot_ms, goodput.attainment_target, fleet.quality, fleet.spare)
    gpus = [(merged.gpus[g], money.gpu_price(scenario) if g == scenario.gpu  # in the reporting currency
             else money.converted(merged.gpus[g].price_per_hour, scenario)) for g in fleet.gpus]
    precisions = [(merged.precisions[p.weight], merged.precisions[p.kv]) for p in fleet.precisions]
    pairs = [(fleet.gpus.index(p), fleet.gpus.index(d)) for p, d in fleet.pairs()]
    configs = configurations(scenario.chosen_model, gpus, precisions, parallel=fleet.tensor_parallel,
                             modes=fleet.modes, knobs=knobs, transfer_gbps=fleet.kv_transfer_gbps,
                             calibrated=calibrated, mixed_pairs=pairs)
    rate = served_rate(fleet.peak_rate, fleet.quality, fleet.retries)
    found = search(configs, rate, slo)
    front = pareto_front(found.rows, PER_DOLLAR if fleet.mixed_gpus else PER_GPU)
    pareto = [{"position": i, **_plain_row({key: front[i - 1].get(key) for key in CANDIDATE_KEYS})}
              for i in thinned(len(front))]
    profile = fleet.day_profile(scenario.cluster.profile)
    best = found.cheapest()
    fractions = merged.profiles[profile] if profile else None
    scalars = {"first_attempt_rate": fleet.peak_rate, "rate": rate, "miss_budget": slo.budget,
               "tokens_per_day": tokens_per_day(fleet.peak_rate, knobs.sequence_length - knobs.prompt_tokens,
                                                fractions),
               "outputs": knobs.sequence_length - knobs.prompt_tokens, "configurations": len(configs),
               "feasible": sum(1 for c in found.candidates if c.rows), "sized_rows": len(found.rows),
               "pareto_rows": len(front), "profile": profile or "", "currency_symbol": scenario.currency_symbol,
               "mixed_gpus": fleet.mixed_gpus, "mixed_configurations": sum(1 for c in configs if c.mixed),
               **{f"calibrated_{key}": value for key, value in on_benchmark_gpu.items()}}
    hours, day_terms = [], None
    if profile and best:
        config = configs[best["index"]]
        roof = Roofline.rows(config.decode, [best["batch"]], config.ttft_s if config.aggregated
                             else float(config.decode.ttft_s()))[0]
        peak = tuple(best[key] for key in _replica_keys(config))
        totals = day(config, roof, peak=peak, rate=rate, fractions=merged.profiles[profile], slo=slo)
        day_terms = (config, roof, peak, slo)
        hours = [_plain_row(h) for h in totals.pop("hours")]
        scalars["peak_fraction"] = float(max(merged.profiles[profile]))
        scalars |= {k: plain(v) if v is not None else None for k, v in totals.items()}
    candidates = [_candidate_row(c) for c in found.candidates]
    return FleetTable(scalars, candidates, pareto, hours, configs, day_terms=day_terms)


def prefill_gpus(row: dict) -> int:
    """A sized row's prefill pool's GPUs with spares, CEIL9(x·(1 + r_f))·t_p; 0 aggregated."""
    return 0 if row["mode"] == AGGREGATED else row["prefill_with_spares"] * row["prefill_tensor_parallel"]


NO_FLEET = "none meets the SLO"  # the answer when no configuration meets it
MIXING_OFF = "not searched: fleet.mixed_gpus is FALSE"
NO_MIXED = "none of the mixed pools meets the SLO"


def mixed_saving(names: dict, best: dict | None, symbol: str) -> str:
    """The bracket of §15.1's words when the chosen fleet is mixed: " ($0.50 an hour, 1.8 %, below the best
    single-type fleet: 14 h100-sxm, $28.00)", or that none on one type meets the SLO; "" when it is not mixed."""
    if best is None or names["fleet_cheapest_mixed"] is not True:
        return ""
    cost, single = best["cost_per_hour"], names["fleet_cheapest_single_type_cost_per_hour"]
    if single == BLANK:
        return " (no single-type fleet meets the SLO)"

    def cents(x: float) -> str:
        return f"{symbol}{to_the_cent(x):,.2f}"

    share = Decimal(f"{(single - cost) / single * 100:.15g}").quantize(Decimal("0.1"), rounding=ROUND_HALF_UP)
    return (f" ({cents(single - cost)} an hour, {share} %, below the best single-type fleet: "
            f"{names['fleet_cheapest_single_type_gpus']} {names['fleet_cheapest_single_type_gpu']}, {cents(single)})")


def mixed_answer(searched: bool, names: dict, best: dict | None, symbol: str) -> str:
    """§15.1's words for the Cover: "Serving: 10 h100-sxm for prefill and 3 h200 for decode (mixed pools, §15.1),
    $27.50 an hour at the peak ($0.50 an hour, 1.8 %, below the best single-type fleet: 14 h100-sxm, $28.00)"; when
    mixing does not win, by how much the cheapest mixed fleet costs more. Money to the cent and the share to one
    decimal, rounded half up as a spreadsheet's TEXT does."""
    if not searched:
        return MIXING_OFF
    if best is None:
        return NO_FLEET

    def cents(x: float) -> str:
        return f"{symbol}{to_the_cent(x):,.2f}"

    cost = best["cost_per_hour"]
    if names["fleet_cheapest_mixed"]:
        return (f"Serving: {names['fleet_cheapest_prefill_gpus']} {names['fleet_cheapest_prefill_gpu']} for prefill "
                f"and {names['fleet_cheapest_decode_gpus']} {names['fleet_cheapest_decode_gpu']} for decode (mixed "
                f"pools, §15.1), {cents(cost)} an hour at the peak" + mixed_saving(names, best, symbol))
    mixed = names["fleet_cheapest_mixed_cost_per_hour"]
    if mixed == BLANK:
        return NO_MIXED
    return (f"Mixed pools do not win: the cheapest costs {cents(mixed)} an hour, {cents(mixed - cost)} above the "
            f"chosen fleet's {cents(cost)}")
BLANK = ""  # a headline result without a value, as its cell shows it


def answer(row: dict | None, symbol: str) -> str:
    """The fleet's answer in a sentence, as the Cover shows it: "aggregated on mi300x: 7 replicas of 2 GPUs at B 306,
    16 GPUs with spares, $32.00 per hour"; money to cents rounded half up, as a spreadsheet's TEXT does."""
    if row is None:
        return NO_FLEET
    def count(n, noun):
        return f"{n} {noun}{'' if n == 1 else 's'}"

    if row["mode"] == AGGREGATED:
        replicas = f"{count(row['replicas'], 'replica')} of {count(row['tensor_parallel'], 'GPU')}"
    else:
        replicas = (f"{count(row['prefill_replicas'], 'prefill replica')} of "
                    f"{count(row['prefill_tensor_parallel'], 'GPU')} and "
                    f"{count(row['decode_replicas'], 'decode replica')} of {count(row['tensor_parallel'], 'GPU')}")
    cents = to_the_cent(row["cost_per_hour"])
    return (f"{row['mode']} on {row['gpu']}: {replicas} at B {row['batch']}, {row['gpus']:,} GPUs with spares, "
            f"{symbol}{cents:,.2f} per hour")


def _candidate_row(candidate: Candidate) -> dict:
    """A configuration's row of the Candidates table: its shown row, or its words and reason with blank numbers."""
    if candidate.rows:
        row = {**candidate.shown, "reason": None}
    else:
        config = candidate.config
        row = {**config.words(), **config.terms, "b_star": candidate.b_star, "reason": candidate.reason}
    return _plain_row({key: row.get(key) for key in CANDIDATE_KEYS})


def _plain_row(row: dict) -> dict:
    return {k: (None if v is None else plain(v)) for k, v in row.items()}


CONSTANTS = [
    Constant("fleet_queue_range", QUEUE_RANGE, label="Most servers a sized queue may have", unit="servers",
             source="The sheet's POISSON is within 1e-9 of the exact Erlang C up to here (LibreOffice 7.4)"),
    Constant("fleet_pareto_rows", PARETO_ROWS, label="Rows of the Pareto table", unit="rows",
             source="A longer front is thinned evenly, both ends kept"),
    Constant("fleet_max_configurations", MAX_CONFIGURATIONS, label="Most configurations a search may hold",
             unit="configurations", source="The Candidates table's rows, mixed GPU pools or not (§15.1 of the method)"),
    Constant("fleet_nvlink_efficiency", NVLINK_EFFICIENCY, label="Sustained share of NVLink for the KV transfer",
             unit="share", source="As the layout search's collectives (0.65)"),
    Constant("fleet_network_efficiency", NETWORK_EFFICIENCY, label="Sustained share of the network for the KV "
             "transfer", unit="share", source="As the layout search's collectives (0.90)"),
]

METHOD = Method(
    title="Fleet: the cheapest serving fleet that meets the SLO at a request rate",
    formulas=[
        "Every configuration (aggregated or disaggregated, each candidate GPU, precision pair and tensor-parallel "
        "size, or prefill and decode sizes t_p/t_d) is sized at the peak rate λ = λ_u/q with retries (else λ_u), "
        "with the Serving sheet's roofline of one replica and the Goodput sheet's SLO: TTFT ≤ X for a share p of "
        "requests, TPOT ≤ Y.",
        "Batch: B* is the largest B ≤ B_max with ITL(B) = cycle(B)/o ≤ Y (aggregated: other requests' prefills "
        "stall the decode) or TPOT(B) ≤ Y (a decode replica). The rows tried are B = 1, 2, 4, … below B*, and B*.",
        "Queue (Erlang C, Poisson arrivals): with c servers and a = λ·S Erlangs, C = POISSON(c, a) / (POISSON(c, a) "
        "+ (1 − a/c)·POISSON(c − 1, a, TRUE)), 1 when a ≥ c; the wait exceeds w with probability "
        "C·EXP(−(c/S − λ)·w).",
        "Aggregated, n replicas: c = n·B slots each held S = cycle(B); the prompt then waits on its replica "
        "W_pre = ρ_pre·D/(1 − ρ_pre) with ρ_pre = λ·D/n; T_first = δ·L/1000 + TPOT(B)/2 + W_pre + D (§14.6), "
        "w = X − T_first; the miss is C·EXP(−(n·B/cycle − λ)·w). n is the fewest replicas whose miss, rounded to "
        "9 decimals, is at most "
        "1 − p.",
        "Disaggregated, x prefill and y decode replicas: prefill serves one prompt at a time (S = D), the prompt's "
        "KV crosses in T_kv = s·KV_1/(BW_kv·1e9); decode slots c = y·B are held o·TPOT(B); the miss is at most the "
        "prefill wait's tail beyond X − D − T_kv plus the decode pool's probability of waiting (Boole); (x, y) is "
        "the pair of fewest GPUs that meets.",
        "Spares in whole replicas per pool: CEILING(ROUND(n·(1 + r_f), 9), 1)·t GPUs; cost per hour = GPUs · price; "
        "acceptable requests per hour = 3600·λ·A·q with A = 1 − miss; cost per million output tokens = cost per "
        "hour·1e6/(3600·λ·o); tokens/s per GPU = λ·o/GPUs; per user 1/ITL(B), or 1/TPOT(B) disaggregated.",
        "Order: cost per hour, then attainment (higher), then tokens/s per user (higher), then the enumeration "
        "order; each configuration is shown at its first batch row. The Pareto front keeps the rows no other beats "
        "in both tokens/s per GPU and per user; over 32 rows it is thinned evenly, both ends kept.",
        "Mixed GPU pools (fleet.mixed_gpus, Splitwise): prefill on one GPU and decode on another, one precision "
        "pair for both; each pool on its own Catalog row; the KV crosses the network at MIN(t_p·NET_p, "
        "t_d·NET_d)·0.90; cost per hour = G_p·p_p + G_d·p_d; listed after the single-type configurations, so a "
        "full tie goes to one GPU type; the Pareto front then compares output tokens per unit of money, "
        "3600·λ·o/cost per hour.",
        "The plan with two GPU types: when the cheapest fleet is mixed, the Cost and Budget sheets price each pool "
        "on its own GPU's Catalog row (on-demand and tier prices, server price and kW), with its own GPUs and "
        "GPU-hours by month, committed baseline and owned GPUs (pricing.serving_baseline_gpus and ownership.gpus "
        "then a pair {prefill, decode}); the plan's totals are the pools' sums.",
        "The Cover's serving line names both pools (\"10 h100-sxm for prefill and 3 h200 for decode\"), the cost "
        "per hour at the peak and the saving against the best single-type fleet, in money and as a share of its "
        "cost; the GPUs sheet's Mixed fleet block shows each pool's GPU, GPUs, price, share of the cost, c_own and "
        "u*.",
        "Over the day: λ_h = λ·f_h/MAX(f); a fleet sized for the peak keeps its GPUs all day, one that follows "
        "demand is sized each hour by the same rule; busy GPUs λ_h·g with g the GPU-seconds of a request at full "
        "batch; idle GPU-hours = GPU-hours − busy.",
    ],
    sources=[
        "Kleinrock 1975, Queueing Systems vol. 1: the M/M/c queue, Erlang C and its waiting-time tail.",
        "Zhong et al. 2024, DistServe (arXiv 2401.09670): goodput at an attainment target; prefill and decode on "
        "separate instances. Patel et al. 2024, Splitwise (arXiv 2311.18677).",
        "Yu et al. 2022, Orca: iteration-level scheduling (each batch slot a server); vLLM's disaggregated prefill "
        "(TTFT read at the decode instance); MLPerf Inference's Server scenario (Poisson arrivals).",
        "NVIDIA AIConfigurator and inference-fleet-sim: minimum-cost fleets at a latency target.",
    ],
    caveats=[
        "M/M/c with exponential service, one router queue over every slot, every request of the same prompt and "
        "output length: fixed lengths wait less, a spread of lengths more.",
        "The prompt's wait on its replica counts by its mean, not its tail: optimistic when prefill is busy (long "
        "prompts on few replicas).",
        "The fleet that follows demand starts replicas within the hour (no scale-up lag, no cold start): a floor "
        "for what autoscaling saves. KV links are placed pair by pair; MI300X's NVLink figure is an aggregate.",
        "Both pools of a disaggregated fleet use one GPU type unless fleet.mixed_gpus is TRUE; then the KV transfer "
        "between two vendors' GPUs assumes both engines share a KV block layout and an RDMA path (Splitwise "
        "evaluated NVIDIA pairs only). No expert or attention data parallelism.",
        "A mixed fleet's saving lies within the model's approximations (M/M/c, Boole's bound, per-pair placement) "
        "and buys a second spare pool and a second driver and engine stack to run.",
        "Efficiencies fitted from benchmark logs (serving.calibration) apply on the benchmark's GPU only; the other "
        "GPUs' candidates keep the inputs, so a comparison across GPUs sets measured figures against assumed ones.",
    ],
)
