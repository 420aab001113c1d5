"""The Catalog sheet's derived columns: each model's attention per layer, MoE layers, Ψ from its architecture, Ψ_active,
Ψ_routed and KV cache per token (docs/method.md, Catalog and §7); each demand profile's busiest hour."""

from __future__ import annotations

from planner.engine.values import plain
from planner.model import counts
from planner.model.entries import shape


def active_params(model) -> float:
    """Ψ_active of a Catalog model: its Ψ (given or from its architecture) less the routed experts a token skips."""
    return counts.active_of(model.params, **shape(model))


def model_columns(model) -> dict:
    m = model
    return {
        "attention_params": counts.attention_params(m.hidden, m.heads, m.kv_heads, m.head_dim,
                                                    kv_lora_rank=m.kv_lora_rank, q_lora_rank=m.q_lora_rank,
                                                    qk_nope_head_dim=m.qk_nope_head_dim,
                                                    qk_rope_head_dim=m.qk_rope_head_dim, v_head_dim=m.v_head_dim),
        "moe_layer_count": counts.moe_layer_count(m.layers, m.experts, m.moe_layers),
        "params_from_architecture": counts.total_params(**shape(m)),
        "active_params": active_params(m),
        "routed_params": counts.routed_params(**shape(m)),
        "kv_kib_per_token": counts.kv_bytes_per_token(m.layers, m.kv_heads, m.head_dim, kv_lora_rank=m.kv_lora_rank,
                                                      qk_rope_head_dim=m.qk_rope_head_dim) / 1024,
    }


def catalog_columns(merged) -> dict[str, dict[str, dict]]:
    """{"models": {id: {…model_columns}}, "profiles": {id: {peak}}} for every entry of the merged catalog."""
    models = {key: {k: plain(v) for k, v in model_columns(m).items()} for key, m in merged.models.items()}
    profiles = {key: {"peak": plain(max(fractions))} for key, fractions in merged.profiles.items()}
    return {"models": models, "profiles": profiles}
