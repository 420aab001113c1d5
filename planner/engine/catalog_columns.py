"""The Catalog sheet's derived columns: each model's attention per layer, MoE layers, Ψ from its architecture, Ψ_active,
Ψ_routed and KV cache per token (docs/method.md, Catalog and §7); each demand profile's busiest hour."""

from __future__ import annotations

from planner.engine.values import plain
from planner.model import counts

SHAPE = ("layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "gated", "tied_embeddings", "experts",
         "experts_per_token", "expert_ffn", "shared_expert_ffn", "moe_layers", "kv_lora_rank", "q_lora_rank",
         "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim")


def shape(model) -> dict:
    """A catalog model's architecture as planner.model.counts' keywords."""
    return {key: getattr(model, key) for key in SHAPE}


def active_params(model) -> float:
    """Ψ_active of a Catalog model: its Ψ (given or from its architecture) less the routed experts a token skips."""
    return counts.active_of(model.params, **shape(model))


def model_columns(model) -> dict:
    fields = shape(model)
    return {
        "attention_params": counts.attention_params(model.hidden, model.heads, model.kv_heads, model.head_dim,
                                                    model.kv_lora_rank, model.q_lora_rank, model.qk_nope_head_dim,
                                                    model.qk_rope_head_dim, model.v_head_dim),
        "moe_layer_count": counts.moe_layer_count(model.layers, model.experts, model.moe_layers),
        "params_from_architecture": counts.total_params(**fields),
        "active_params": active_params(model),
        "routed_params": counts.routed_params(**fields),
        "kv_kib_per_token": counts.kv_bytes_per_token(model.layers, model.kv_heads, model.head_dim,
                                                      model.kv_lora_rank, model.qk_rope_head_dim) / 1024,
    }


def catalog_columns(merged) -> dict[str, dict[str, dict]]:
    """{"models": {id: {…model_columns}}, "profiles": {id: {peak}}} for every entry of the merged catalog."""
    models = {key: {k: plain(v) for k, v in model_columns(m).items()} for key, m in merged.models.items()}
    profiles = {key: {"peak": plain(max(fractions))} for key, fractions in merged.profiles.items()}
    return {"models": models, "profiles": profiles}
