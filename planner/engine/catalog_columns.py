"""The Catalog sheet's derived columns: Ψ from each model's architecture and its KV cache per token; each demand
profile's busiest hour."""

from __future__ import annotations

from planner.engine.memory import kv_bytes_per_token, params_from_architecture
from planner.engine.values import plain


def catalog_columns(merged) -> dict[str, dict[str, dict]]:
    """{"models": {id: {params_from_architecture, kv_kib_per_token}}, "profiles": {id: {peak}}} for every entry
    of the merged catalog."""
    models = {key: {"params_from_architecture": plain(params_from_architecture(
                        m.vocab, m.hidden, layers=m.layers, kv_heads=m.kv_heads, head_dim=m.head_dim, ffn=m.ffn)),
                    "kv_kib_per_token": plain(kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim) / 1024)}
              for key, m in merged.models.items()}
    profiles = {key: {"peak": plain(max(fractions))} for key, fractions in merged.profiles.items()}
    return {"models": models, "profiles": profiles}
