"""What a model, a GPU and a precision are: each field declared once, with its type, limits, default, label, unit,
note, the config.json keys it is read from, and what needs it when it is blank (docs/method.md, Catalog, §6, §7, §8,
§10, §13). The scenario's Catalog entries (planner/scenario/catalog_entries.py), the shipped rows
(planner/model/shipped.py), the Catalog sheet's blocks, `planner catalog`, the config.json reader and the docs'
Catalog rows are all derived from these declarations.
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
from typing import Any

REQUIRED, DERIVED, OPTIONAL = "required", "derived", "optional"  # what a new Catalog entry must give
NOT_IN_CONFIG = "not in config.json"  # a model field no config.json holds (said explicitly: see test_fields.py)
# what needs a GPU figure that others may leave blank
SERVING_TP, SEARCH, OWNED = "serving with t > 1", "the layout search", "the owned path"


@dataclass(frozen=True)
class Field:
    """One field of a Catalog entry."""

    key: str  # the scenario's key, the Catalog column's name suffix (catalog_<kind>_<key>), the engine's keyword
    label: str  # the Catalog column's heading (with the unit) and the lookup row's label
    type: str  # "whole", "number", "bool" or "text"
    kind: str  # how the workbook shows it (a kit.KINDS key)
    _: KW_ONLY  # the rest by name, so the tables below say what each figure is
    ge: float | None = None
    le: float | None = None
    unit: str = ""
    note: str = ""  # what it is, for the Inputs and Catalog notes and docs/scenario.md
    new: str = OPTIONAL  # a new entry: REQUIRED, DERIVED (computed when blank) or OPTIONAL
    default: Any = None  # what a blank means (None: nothing, the figure is not known)
    config: tuple[str, ...] | str = ()  # a model field's config.json keys (§8), most preferred first, or NOT_IN_CONFIG
    needed_by: tuple[str, ...] = ()  # what needs it when blank (its check names it), where only some tables read it
    sheet_blank: bool = False  # a Catalog row may leave it blank (its default, or "not known", stands in)

    @property
    def heading(self) -> str:
        """The Catalog column's heading: the label, with the unit where it says more than the label."""
        return self.label + (f" ({self.unit})" if self.unit not in ("", "parameters", "layers", "heads") else "")


def _whole(key, label, le, *, ge=1, unit="", note="", new=OPTIONAL, default=None, config=()) -> Field:
    """A whole-number model field; one that may be 0 (a dense model's experts, grouped-query's latent ranks) may be
    blank on Catalog too."""
    return Field(key, label, "whole", "count", ge=ge, le=le, unit=unit, note=note, new=new, default=default,
                 config=config, sheet_blank=ge == 0)


def _text(key, label, note="") -> Field:
    """A text field of 1 to 64 characters a Catalog row may leave blank (where a price or a power comes from)."""
    return Field(key, label, "text", "text", ge=1, le=64, note=note, sheet_blank=True)


MODEL: tuple[Field, ...] = (
    Field("params", "Parameters Ψ", "number", "params", ge=1, le=1e15, unit="parameters",
          note="Left out: Ψ = 2·V·h + L·(2·h·h + 2·h·kv·hd + 3·h·FFN + 2·h) + h.", new=DERIVED,
          config=NOT_IN_CONFIG),
    _whole("layers", "Layers L", 10_000, unit="layers", new=REQUIRED, note="L.",
           config=("num_hidden_layers", "n_layer", "n_layers")),
    _whole("hidden", "Hidden h", 10**6, new=REQUIRED, note="h.", config=("hidden_size", "n_embd", "d_model")),
    _whole("heads", "Heads", 10**5, unit="heads", new=REQUIRED, note="Attention heads.",
           config=("num_attention_heads", "n_head")),
    _whole("kv_heads", "KV heads", 10**5, unit="heads", new=REQUIRED,
           note="Grouped-query attention; divides the heads.",
           config=("num_key_value_heads", "multi_query")),
    _whole("head_dim", "Head dim", 10**5, new=DERIVED, note="Left out: hidden / heads.", config=("head_dim",)),
    _whole("ffn", "FFN", 10**7, new=REQUIRED, note="F, the dense layers' FFN width.",
           config=("intermediate_size_mlp", "intermediate_size", "n_inner")),
    _whole("vocab", "Vocabulary V", 10**8, unit="tokens", new=REQUIRED, note="V.", config=("vocab_size",)),
    Field("gated", "Gated FFN (SwiGLU)", "bool", "bool", note="TRUE: 3·h·F per FFN (Llama, Mixtral, DeepSeek); "
          "FALSE: a GeLU MLP, 2·h·F (GPT, MPT). Left out: TRUE.", default=True,
          config=("hidden_act", "activation_function")),
    Field("tied_embeddings", "Tied embeddings", "bool", "bool", note="The output projection is the input embedding. "
          "Left out: FALSE.", default=False, config=("tie_word_embeddings",), sheet_blank=True),
    _whole("experts", "Routed experts E", 10**5, ge=0, unit="experts", note="Per MoE layer; blank or 0: a dense model.",
           default=0, config=("num_local_experts", "num_experts", "n_routed_experts")),
    _whole("experts_per_token", "Experts per token k", 10**4, ge=0, unit="experts",
           note="Routed experts each token passes through.", default=0,
           config=("num_experts_per_tok", "experts_per_token")),
    _whole("expert_ffn", "Expert FFN F_e", 10**7, ge=0, note="Each routed expert's FFN width.", default=0,
           config=("moe_intermediate_size", "intermediate_size")),
    _whole("shared_expert_ffn", "Shared-expert FFN F_s", 10**8, ge=0, note="Summed over the shared experts; blank: "
           "none.", default=0, config=("n_shared_experts", "shared_expert_intermediate_size", "intermediate_size")),
    _whole("moe_layers", "MoE layers L_moe", 10_000, ge=0, unit="layers", note="Blank: every layer when E > 0; the "
           "others are dense.", new=DERIVED, default=0,
           config=("first_k_dense_replace", "decoder_sparse_step", "mlp_only_layers",
                                                    "interleave_moe_layer_step", "moe_layers")),
    _whole("kv_lora_rank", "MLA KV rank r_kv", 10**5, ge=0, note="Multi-head latent attention (DeepSeek); blank or 0: "
           "grouped-query.", default=0, config=("kv_lora_rank",)),
    _whole("q_lora_rank", "MLA query rank r_q", 10**5, ge=0, note="0: a full-rank query projection.", default=0,
           config=("q_lora_rank",)),
    _whole("qk_nope_head_dim", "MLA QK head dim (no RoPE)", 10**5, ge=0, default=0, config=("qk_nope_head_dim",)),
    _whole("qk_rope_head_dim", "MLA QK head dim (RoPE)", 10**5, ge=0, default=0, config=("qk_rope_head_dim",)),
    _whole("v_head_dim", "MLA V head dim", 10**5, ge=0, default=0, config=("v_head_dim",)),
    Field("reported_h100_hours", "Reported H100-hours", "number", "hours", ge=0, le=1e12, unit="GPU-hours",
          note="Published training hours, where known.", config=NOT_IN_CONFIG, sheet_blank=True),
)

GPU: tuple[Field, ...] = (
    Field("memory_gb", "Memory", "number", "gb", ge=0.001, le=1e6, unit="GB", new=REQUIRED),
    Field("peak_tflops", "Dense BF16 peak", "number", "number", ge=0.001, le=1e6, unit="TFLOPS",
          note="Without sparsity.", new=REQUIRED),
    Field("hbm_tbps", "HBM bandwidth", "number", "decimal", ge=0.001, le=1e4, unit="TB/s", new=REQUIRED),
    Field("price_per_hour", "Price", "number", "usd", ge=0, le=1e6, unit="USD per GPU-hour",
          note="Illustrative list price.", default=2.00),
    Field("fp8_tflops", "Dense FP8 peak", "number", "number", ge=0.001, le=1e6, unit="TFLOPS",
          note="Blank: no FP8 (FP8 GEMMs run at the BF16 peak).", sheet_blank=True),
    Field("fp4_tflops", "Dense FP4 peak", "number", "number", ge=0.001, le=1e6, unit="TFLOPS",
          note="Blank: no FP4 (FP4 GEMMs run at the FP8 peak, or BF16 without one).", sheet_blank=True),
    Field("nvlink_gbps", "NVLink", "number", "number", ge=0.001, le=1e5, unit="GB/s",
          note="Per direction, as listed: serving's tensor-parallel all-reduces.", needed_by=(SERVING_TP, SEARCH),
          sheet_blank=True),
    Field("network_gbps", "Network per GPU", "number", "number", ge=0.001, le=1e5, unit="GB/s",
          note="The scale-out network (InfiniBand, RoCE) per GPU: the layout search's data-parallel traffic.",
          needed_by=(SEARCH,), sheet_blank=True),
    Field("gpus_per_node", "GPUs per node", "whole", "count", ge=1, le=1024, unit="GPUs",
          note="One NVLink domain. Left out: 8.", default=8, needed_by=(SEARCH,), sheet_blank=True),
    Field("gemm_efficiency", "GEMM efficiency η", "number", "percent", ge=0.001, le=1, unit="of peak",
          note="The sustained share of peak of a large GEMM (the layout search).", needed_by=(SEARCH,),
          sheet_blank=True),
    _text("price_source", "Price source", note="Where the price comes from: a quote, a contract, a list price."),
    _text("price_as_of", "Price as of", note="When the price was quoted, as text (2026-11-30, Q4 2026)."),
    # Committed, spot and owning (docs/method.md §13): a blank tier price is the scenario's ratio × on-demand
    *(field for tier, label, ratio in (("price_committed_1y", "1-year committed price", "committed_1y_ratio"),
                                       ("price_committed_3y", "3-year committed price", "committed_3y_ratio"),
                                       ("price_spot", "Spot price", "spot_ratio"))
      for field in (Field(tier, label, "number", "usd", ge=0, le=1e6, unit="USD per GPU-hour",
                          note=f"A quote; blank: pricing.{ratio} × the on-demand price.", sheet_blank=True),
                    _text(f"{tier}_source", f"{label.split(' price')[0]} price source"),
                    _text(f"{tier}_as_of", f"{label.split(' price')[0]} price as of"))),
    Field("server_price", "Server price per GPU", "number", "usd", ge=0, le=1e7, unit="USD",
          note="The GPU's share of the server, networking and storage: what owning buys. Blank: the owned path "
          "cannot be priced.", needed_by=(OWNED,), sheet_blank=True),
    _text("server_price_source", "Server price source"),
    _text("server_price_as_of", "Server price as of"),
    Field("server_kw", "Server power per GPU", "number", "decimal", ge=0.001, le=100, unit="kW",
          note="All-in at the server: the system's maximum ÷ its GPUs.", needed_by=(OWNED,), sheet_blank=True),
    _text("server_kw_source", "Server power source"),
)

PRECISION: tuple[Field, ...] = (
    Field("weight_bits", "Bits per weight", "number", "decimal", ge=0.5, le=64, unit="bits",
          note="Including quantisation scales (int4 with a 16-bit scale per 128: 4.125).", new=REQUIRED),
    Field("kv_bytes", "Bytes per KV value", "number", "decimal", ge=0.125, le=8, unit="bytes",
          note="What kv_precision reads: fp8 keeps 1 byte per key or value.", new=REQUIRED),
    Field("fp8_gemm", "GEMMs in FP8", "bool", "bool", note="TRUE: matrix multiplies at the GPU's FP8 peak.",
          new=REQUIRED),
    Field("fp4_gemm", "GEMMs in FP4", "bool", "bool", note="TRUE: matrix multiplies at the GPU's FP4 peak where it "
          "has one (else as GEMMs in FP8 says). Blank or left out: FALSE.", default=False, sheet_blank=True),
)

# An engines-table row's priors (docs/method.md §14.3): each a Catalog column catalog_engine_<key> and, with the same
# key, a `serving` input that overrides it (blank: the prior of the row that applies). Blank on a row: filled from
# the row it falls back to.
ENGINE: tuple[Field, ...] = (
    Field("compute_efficiency", "Compute efficiency", "number", "percent", ge=0.001, le=1, unit="of peak",
          note="η_c: the share of the peak a compute-bound pass (prefill) sustains.", default=0.5),
    Field("bandwidth_efficiency", "Bandwidth efficiency", "number", "percent", ge=0.001, le=1, unit="of HBM",
          note="η_m: the share of HBM bandwidth a memory-bound pass (decode) sustains.", default=0.7),
    Field("overhead_fixed_ms", "Overhead per pass, fixed", "number", "decimal", ge=0, le=1000, unit="ms",
          note="τ_0: paid once per pass (BLIS β7).", default=0.126),
    Field("overhead_per_layer_ms", "Overhead per layer", "number", "decimal", ge=0, le=100, unit="ms per layer",
          note="τ_L: per layer per pass (BLIS β5).", default=0.032),
    Field("overhead_per_sequence_ms", "Overhead per sequence", "number", "decimal", ge=0, le=100,
          unit="ms per sequence", note="τ_seq: per sequence in the pass (BLIS β6).", default=0.0044),
    Field("overhead_per_moe_layer_ms", "Overhead per MoE layer", "number", "decimal", ge=0, le=100,
          unit="ms per MoE layer", note="τ_moe: per MoE layer per pass (BLIS β8: interleaved MoE only).", default=0),
    Field("dispatch_ms_per_layer", "Dispatch per layer", "number", "decimal", ge=0, le=100,
          unit="ms per layer", note="δ: CPU-side dispatch per layer per request (AIConfigurator's vLLM 0.8).",
          default=0.8),
    Field("prefill_token_budget", "Prefill token budget", "whole", "count", ge=64, le=1_048_576, unit="tokens",
          note="Tokens per prefill pass: vLLM max_num_batched_tokens, TensorRT-LLM max_num_tokens.", default=8192),
)
ANY = "any"  # an engines row's gpu or precision for every GPU or precision (never *: MATCH reads it as a wildcard)

# Speculative decoding's draft tokens k and acceptance α when not given, by method (docs/method.md §12.2): DeepSeek-V3
# reports 85-90 % acceptance of its one MTP token; a separate draft model's 0.7 is illustrative (measure it).
DRAFT_DEFAULTS = {"mtp": (1, 0.85), "draft": (4, 0.7)}

# A hosted API's offer of a model (docs/method.md §13): USD per million tokens, as GPU prices are USD
def _price(key, label, note, new=REQUIRED) -> Field:
    return Field(key, label, "number", "usd", ge=0, le=1e6, unit="USD per million", note=note, new=new,
                 sheet_blank=new != REQUIRED)


def _words(key, label, note="") -> Field:
    """Text of 1 to 64 characters a row may leave blank (where and when a price was read)."""
    return Field(key, label, "text", "text", ge=1, le=64, note=note, sheet_blank=True)


API_OFFER: tuple[Field, ...] = (
    Field("provider", "Provider", "text", "text", ge=1, le=64, note="Who sells it.", new=REQUIRED),
    Field("model", "Model", "text", "text", ge=1, le=64, note="The Catalog model id the offer serves.",
          new=REQUIRED),
    _price("price_input_per_million", "Input price p_in", "Per million prompt tokens not found in the provider's "
           "cache."),
    _price("price_cached_input_per_million", "Cached input price p_ci", "Per million cached prompt tokens. Blank: "
           "p_in, no cache discount.", new=OPTIONAL),
    _price("price_output_per_million", "Output price p_out", "Per million output tokens."),
    _words("source", "Source", "Where the price was read."),
    _words("as_of", "As of", "When it was read (2026-12-07)."),
)

KINDS = {"models": MODEL, "gpus": GPU, "precisions": PRECISION}  # the scenario's catalog keys


def needed_by(fields: tuple[Field, ...], need: str) -> tuple[str, ...]:
    """The keys `need` reads that a Catalog row may otherwise leave blank."""
    return tuple(f.key for f in fields if need in f.needed_by)


def named(fields: tuple[Field, ...]) -> dict[str, Field]:
    return {f.key: f for f in fields}


def required(fields: tuple[Field, ...]) -> tuple[str, ...]:
    """The keys a new entry must give."""
    return tuple(f.key for f in fields if f.new == REQUIRED)


def defaults(fields: tuple[Field, ...]) -> dict[str, Any]:
    """What a blank optional field means, where it means something (a dense, grouped-query, untied model; 8 GPUs
    per node)."""
    return {f.key: f.default for f in fields if f.new == OPTIONAL and f.default is not None}


def limits(fields: tuple[Field, ...]) -> dict[str, float]:
    """The largest value of each whole-number field."""
    return {f.key: f.le for f in fields if f.type == "whole"}


def out_of_range(field: Field, value) -> str | None:
    """Why a value is not allowed for the field, or None."""
    if value is None:
        return None
    if field.type == "bool":
        return None if isinstance(value, bool) else "TRUE or FALSE"
    if field.type == "text":
        return None if isinstance(value, str) and field.ge <= len(value) <= field.le else \
            f"text of {field.ge:g} to {field.le:g} characters"
    whole = field.type == "whole"
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (whole and value != int(value)) \
            or not field.ge <= value <= field.le:
        return f"{'a whole number' if whole else 'a number'} from {field.ge:,g} to {field.le:,g}"
    return None
