"""The engines table (docs/method.md §14.3): priors for η_c, η_m, the per-pass overhead terms τ_0 … τ_moe, the
dispatch cost δ and the prefill token budget N, by serving engine × GPU × weight precision, where a GPU or a precision
may be the word `any`. A row's blank cells are filled from the rows it falls back to (its source then says from
which), and a scenario's serving knobs take the first row that exists of eight, from the most specific to
`generic | any | any`. The Catalog sheet writes the filled rows; the Serving sheet's lookup is the same eight MATCHes.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from planner.model.fields import ANY, ENGINE

GENERIC = "generic"
PRIORS = tuple(f.key for f in ENGINE)  # the eight priors, in the table's column order
SYMBOLS = {"compute_efficiency": "η_c", "bandwidth_efficiency": "η_m", "overhead_fixed_ms": "τ_0",
           "overhead_per_layer_ms": "τ_L", "overhead_per_sequence_ms": "τ_seq", "overhead_per_moe_layer_ms": "τ_moe",
           "dispatch_ms_per_layer": "δ", "prefill_token_budget": "N"}


@dataclass(frozen=True)
class EngineRow:
    """One row: its engine, GPU and precision (or `any`), each prior (None: blank), where they come from and when."""

    engine: str
    gpu: str = ANY
    precision: str = ANY
    priors: dict = field(default_factory=dict)  # prior key → value; a key left out is blank
    source: str = ""
    as_of: str = ""
    fitted_on: tuple[int, ...] = ()  # the accuracy ledger's rows (ids) its priors were fitted on: scored on the others

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.engine, self.gpu, self.precision)

    def value(self, key: str):
        return self.priors.get(key)


def label(key: tuple[str, str, str]) -> str:
    """A row as the sheets name it: "vllm | a100-80gb | any"."""
    return " | ".join(key)


def lookup_key(key: tuple[str, str, str]) -> str:
    """A row's key as the catalog_engine_key column holds it: engine|gpu|precision."""
    return "|".join(key)


def levels(engine: str, gpu: str, precision: str) -> list[tuple[str, str, str]]:
    """The eight rows a scenario may take, most specific first (§14.3)."""
    return [(e, g, p) for e in (engine, GENERIC) for g, p in ((gpu, precision), (gpu, ANY), (ANY, precision),
                                                            (ANY, ANY))]


def fallbacks(key: tuple[str, str, str]) -> list[tuple[str, str, str]]:
    """The rows a row's blank cells are filled from, in order (§14.3), each once and never itself."""
    e, g, p = key
    if g != ANY and p != ANY:
        own = [(e, g, ANY), (e, ANY, p), (e, ANY, ANY)]
        generic = [(GENERIC, g, p), (GENERIC, g, ANY), (GENERIC, ANY, p), (GENERIC, ANY, ANY)]
    elif g != ANY:
        own, generic = [(e, ANY, ANY)], [(GENERIC, g, ANY), (GENERIC, ANY, ANY)]
    elif p != ANY:
        own, generic = [(e, ANY, ANY)], [(GENERIC, ANY, p), (GENERIC, ANY, ANY)]
    else:
        own, generic = [], [(GENERIC, ANY, ANY)]
    return [k for k in dict.fromkeys(own + generic) if k != key]


def filled(rows: dict[tuple, EngineRow]) -> dict[tuple, EngineRow]:
    """Every row with its blank cells filled from the first row of its fallbacks that exists and gives the cell
    (given, not itself filled); its source names each filled cell's row ("τ_0, τ_L from generic | any | any")."""
    found = {}
    for key, row in rows.items():
        priors, taken = dict(row.priors), {}
        for prior in PRIORS:
            if priors.get(prior) is not None:
                continue
            for other in fallbacks(key):
                if other in rows and rows[other].value(prior) is not None:
                    priors[prior] = rows[other].value(prior)
                    taken.setdefault(other, []).append(prior)
                    break
        notes = [f"{', '.join(SYMBOLS[p] for p in keys)} from {label(other)}" if len(keys) < len(PRIORS)
                 else f"from {label(other)}" for other, keys in taken.items()]
        source = "; ".join(notes + [row.source] * bool(row.source))
        found[key] = replace(row, priors=priors, source=source)
    return found


def missing(row: EngineRow) -> list[str]:
    """The priors a (filled) row still lacks."""
    return [p for p in PRIORS if row.value(p) is None]


def applying(rows: dict[tuple, EngineRow], engine: str, gpu: str, precision: str) -> EngineRow | None:
    """The row that applies to an engine, GPU and weight precision: the first of the eight levels that exists."""
    return next((rows[k] for k in levels(engine, gpu, precision) if k in rows), None)


def engine_ids(rows: dict[tuple, EngineRow]) -> list[str]:
    """catalog_engine_ids: each engine once, in the table's order."""
    return list(dict.fromkeys(key[0] for key in rows))
