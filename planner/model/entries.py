"""A Catalog entry as the engine reads it: a model, a GPU or a precision, its fields those of
planner/model/fields.py (every field a value, or None where the figure is not known). Frozen dataclasses made from
the declarations, so a field added there is a field here."""

from __future__ import annotations

import dataclasses
from dataclasses import MISSING

from planner.model import fields


def _entry(name: str, declared: tuple[fields.Field, ...], doc: str) -> type:
    """A frozen dataclass: `id`, then each declared field, keyword-only; a field a new entry must give (or that is
    derived, and so always filled in before the entry is made) has no default, the others their declared one."""
    members = [("id", str)]
    for f in declared:
        default = f.default if f.new == fields.OPTIONAL or f.default is not None else MISSING
        python = {"whole": int, "number": float, "bool": bool, "text": str}[f.type]
        members.append((f.key, python | None, dataclasses.field(default=default, kw_only=True)))
    cls = dataclasses.make_dataclass(name, members, frozen=True)
    cls.__doc__, cls.__module__ = doc, __name__
    return cls


Model = _entry("Model", fields.MODEL, "A decoder-only transformer: grouped-query or multi-head latent attention, a "
               "SwiGLU or GeLU FFN, dense or mixture-of-experts layers (docs/method.md, Catalog and §7).")
GPU = _entry("GPU", fields.GPU, "A GPU: memory, peaks, bandwidths, links and price (docs/method.md, Catalog, §6, §10).")
Precision = _entry("Precision", fields.PRECISION, "How weights and the KV cache are stored: bits per weight with "
                   "scales, bytes per KV value, and whether GEMMs run in FP8 (docs/method.md §6).")
ApiOffer = _entry("ApiOffer", fields.API_OFFER, "A hosted API's offer of a Catalog model, priced per million input, "
                  "cached-input and output tokens in USD (docs/method.md §13).")


def shape(model) -> dict:
    """A model's fields as planner.model.counts' keywords (its architecture, without Ψ and the reported hours)."""
    return {f.key: getattr(model, f.key) for f in fields.MODEL if f.key not in ("params", "reported_h100_hours")}
