"""What ships with the product: models, GPUs, strategies, traffic presets and demand profiles (docs/method.md,
"Catalog"), and `Catalog`, the shipped entries with a scenario's own added or overriding them by id (merged by
planner/scenario/catalog_entries.py), which the engine, the Catalog sheet and the dropdowns read."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field


@dataclass(frozen=True)
class Model:
    """A decoder-only transformer: untied embeddings, SwiGLU FFN, grouped-query attention."""

    id: str
    params: float  # Ψ, parameter count
    _: KW_ONLY
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int
    vocab: int
    reported_h100_hours: float | None = None  # Meta's reported training hours (Llama 3.1 model card)


@dataclass(frozen=True)
class GPU:
    id: str
    memory_gb: float
    _: KW_ONLY
    peak_tflops: float  # dense BF16
    hbm_tbps: float
    price_per_hour: float  # per GPU-hour, in the scenario's currency (illustrative list prices in USD)
    price_source: str | None = None  # where the price comes from
    price_as_of: str | None = None  # when it was quoted, as text
    fp8_tflops: float | None = None  # dense FP8; None: no FP8 tensor cores (FP8 GEMMs run at the BF16 peak)
    nvlink_gbps: float | None = None  # NVLink (Infinity Fabric) GB/s per direction, as listed


@dataclass(frozen=True)
class Precision:
    """How weights and the KV cache are stored (docs/method.md §6): bits per weight including quantisation scales,
    bytes per KV-cache value, and whether GEMMs run in FP8."""

    id: str
    weight_bits: float
    _: KW_ONLY
    kv_bytes: float
    fp8_gemm: bool


def params_from_architecture(vocab, hidden, *, layers, kv_heads, head_dim, ffn):
    """Ψ = 2·V·h + L·(2·h·h + 2·h·kv·hd + 3·h·ffn + 2·h) + h.

    Untied input and output embeddings (2·V·h); per layer the query and output projections (2·h·h), the key and
    value projections (2·h·kv·hd), SwiGLU's three matrices (3·h·ffn) and two RMSNorm weights (2·h); a final norm (h).
    """
    per_layer = 2 * hidden * hidden + 2 * hidden * kv_heads * head_dim + 3 * hidden * ffn + 2 * hidden
    return 2 * vocab * hidden + layers * per_layer + hidden


MODELS: dict[str, Model] = {
    m.id: m
    for m in (
        Model("llama-3.1-8b", 8_030_261_248, layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
              ffn=14_336, vocab=128_256, reported_h100_hours=1.46e6),
        Model("llama-3.1-70b", 70_553_706_496, layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128,
              ffn=28_672, vocab=128_256, reported_h100_hours=7.0e6),
        Model("llama-3.1-405b", 405_853_388_800, layers=126, hidden=16384, heads=128, kv_heads=8, head_dim=128,
              ffn=53_248, vocab=128_256, reported_h100_hours=30.84e6),
    )
}

# Memory, dense BF16 and FP8 TFLOPS (without sparsity), HBM TB/s and NVLink GB/s per direction from the vendors'
# data sheets (docs/method.md, Catalog and §6).
ILLUSTRATIVE = "Illustrative rental price"  # not a quote: replace with your own on Catalog
PRICES_AS_OF = "2026-11-30"
GPUS: dict[str, GPU] = {
    g.id: g
    for g in (
        GPU("a100-80gb", 80, peak_tflops=312, hbm_tbps=2.039, price_per_hour=1.50,
            price_source=ILLUSTRATIVE, price_as_of=PRICES_AS_OF, nvlink_gbps=300),
        GPU("h100-sxm", 80, peak_tflops=989, hbm_tbps=3.35, price_per_hour=2.00,
            price_source=ILLUSTRATIVE, price_as_of=PRICES_AS_OF, fp8_tflops=1979, nvlink_gbps=450),
        GPU("h200", 141, peak_tflops=989, hbm_tbps=4.8, price_per_hour=2.50,
            price_source=ILLUSTRATIVE, price_as_of=PRICES_AS_OF, fp8_tflops=1979, nvlink_gbps=450),
        GPU("b200", 180, peak_tflops=2250, hbm_tbps=8.0, price_per_hour=4.50,
            price_source=ILLUSTRATIVE, price_as_of=PRICES_AS_OF, fp8_tflops=4500, nvlink_gbps=900),
        GPU("mi300x", 192, peak_tflops=1307, hbm_tbps=5.3, price_per_hour=2.00,
            price_source=ILLUSTRATIVE, price_as_of=PRICES_AS_OF, fp8_tflops=2614.9, nvlink_gbps=400),
    )
}
# Weight and KV-cache precisions (docs/method.md §6): GPTQ/AWQ int4 with a 16-bit scale per 128 weights is 4.125 bits.
PRECISIONS: dict[str, Precision] = {
    p.id: p
    for p in (
        Precision("bf16", 16, kv_bytes=2, fp8_gemm=False),
        Precision("fp8", 8, kv_bytes=1, fp8_gemm=True),
        Precision("int8", 8, kv_bytes=1, fp8_gemm=False),  # weight-only: BF16 GEMMs
        Precision("int4-g128", 4.125, kv_bytes=1, fp8_gemm=False),
    )
}
CUSTOM_GPU_PRICE = 2.00  # a GPU of the scenario's own without a price (the H100's price)

# ZeRO stage of each training strategy: 0 shards nothing, 1 the optimizer state, 2 also the gradients,
# 3 also the weights (ZeRO paper, Rajbhandari et al. 2020). FSDP full sharding is ZeRO-3.
STRATEGIES: dict[str, int] = {"ddp": 0, "zero1": 1, "zero2": 2, "zero3": 3}
STRATEGY_ALIASES: dict[str, str] = {"fsdp": "zero3"}
SHARDED_FROM_STAGE = {"optimizer": 1, "gradients": 2, "weights": 3}  # the first ZeRO stage that shards each
STRATEGY_SHARDS = {0: "nothing (every replica holds everything)", 1: "optimizer state",
                   2: "optimizer state, gradients", 3: "optimizer state, gradients, weights (FSDP full sharding)"}

# The reference GPU for Meta's reported hours (they are H100-hours).
REFERENCE_GPU = "h100-sxm"
REFERENCE_MODELS = ("llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b")

# Served tokens per day (docs/method.md §3; illustrative).
TRAFFIC_PRESETS: dict[str, float] = {
    "pilot": 1e8,
    "team-assistant": 1e9,
    "product": 1e10,
    "popular-app": 1e11,
    "global-app": 1e12,
}

# Inference demand by hour, as fractions of the peak (docs/method.md §4; illustrative).
HOURS_PER_DAY = 24
PROFILES: dict[str, tuple[float, ...]] = {
    "office-assistant": (.05, .05, .05, .05, .05, .08, .15, .35, .70, .95, 1, 1,
                         .90, .95, 1, .95, .80, .55, .30, .20, .15, .10, .08, .06),
    "global-app": (.80, .78, .76, .75, .75, .76, .80, .85, .90, .94, .97, 1,
                   1, .99, .97, .95, .93, .92, .92, .91, .90, .88, .85, .82),
    "consumer-evening": (.30, .20, .12, .08, .06, .06, .10, .20, .30, .35, .40, .45,
                         .50, .50, .48, .50, .55, .65, .80, .95, 1, .95, .75, .50),
}


@dataclass(frozen=True)
class Catalog:
    """The shipped catalog with a scenario's own entries added or overriding by id, in sheet order."""

    models: dict[str, Model] = field(default_factory=lambda: dict(MODELS))
    gpus: dict[str, GPU] = field(default_factory=lambda: dict(GPUS))
    traffic_presets: dict[str, float] = field(default_factory=lambda: dict(TRAFFIC_PRESETS))
    profiles: dict[str, tuple[float, ...]] = field(default_factory=lambda: dict(PROFILES))
    precisions: dict[str, Precision] = field(default_factory=lambda: dict(PRECISIONS))

