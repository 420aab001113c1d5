"""What ships with the product: models, GPUs, precisions, strategies, traffic presets and demand profiles
(docs/method.md, "Catalog"), as data; and `Catalog`, the shipped entries with a scenario's own added or overriding
them by id (merged by planner/scenario/catalog_entries.py), which the engine, the Catalog sheet and the dropdowns
read. What a model, a GPU and a precision are (their fields) is planner/model/fields.py's."""

from __future__ import annotations

from dataclasses import dataclass, field

from planner.model.engines import GENERIC, EngineRow, filled
from planner.model.entries import GPU, ApiOffer, Model, Precision
from planner.model.fields import ENGINE


MODELS: dict[str, Model] = {
    row["id"]: Model(**row)
    for row in (
        dict(id="llama-3.1-8b", params=8_030_261_248, layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
             ffn=14_336, vocab=128_256, reported_h100_hours=1.46e6),
        dict(id="llama-3.1-70b", params=70_553_706_496, layers=80, hidden=8192, heads=64, kv_heads=8, head_dim=128,
             ffn=28_672, vocab=128_256, reported_h100_hours=7.0e6),
        dict(id="llama-3.1-405b", params=405_853_388_800, layers=126, hidden=16384, heads=128, kv_heads=8,
             head_dim=128, ffn=53_248, vocab=128_256, reported_h100_hours=30.84e6),
        # Mixture-of-experts models, from their published config.json (docs/method.md §7; tests/fixtures/configs)
        dict(id="mixtral-8x7b", params=46_702_792_704, layers=32, hidden=4096, heads=32, kv_heads=8, head_dim=128,
             ffn=14_336, vocab=32_000, experts=8, experts_per_token=2, expert_ffn=14_336, moe_layers=32),
        dict(id="deepseek-v3", params=671_026_404_352, layers=61, hidden=7168, heads=128, kv_heads=128, head_dim=192,
             ffn=18_432, vocab=129_280, experts=256, experts_per_token=8, expert_ffn=2048, shared_expert_ffn=2048,
             moe_layers=58, kv_lora_rank=512, q_lora_rank=1536, qk_nope_head_dim=128, qk_rope_head_dim=64,
             v_head_dim=128),
        dict(id="gpt-oss-20b", params=20_907_927_360, layers=24, hidden=2880, heads=64, kv_heads=8, head_dim=64,
             ffn=2880, vocab=201_088, experts=32, experts_per_token=4, expert_ffn=2880, moe_layers=24),
    )
}

# Memory, dense BF16 and FP8 TFLOPS (without sparsity), HBM TB/s and NVLink GB/s per direction from the vendors'
# data sheets (docs/method.md, Catalog and §6).
ILLUSTRATIVE = "Illustrative rental price"  # not a quote: replace with your own on Catalog
PRICES_AS_OF = "2026-11-30"
# Server prices per GPU are illustrative: chosen so that the owned cost per GPU-hour at docs/method.md §13's defaults
# lands within 3.2 % of SemiAnalysis's published neocloud owner's cost (InferenceX GPU_SPECS, a 4-year life).
SERVER_PRICES = "Illustrative, see docs/method.md §13"
SERVER_PRICES_AS_OF = "2026-12-02"
NOT_CONFIRMED = "data sheet, not confirmed here"
OWNED = dict(server_price_source=SERVER_PRICES, server_price_as_of=SERVER_PRICES_AS_OF)
RENTED = dict(price_source=ILLUSTRATIVE, price_as_of=PRICES_AS_OF)
# The added GPUs' prices (illustrative, docs/method.md, Catalog): rent is b200's 4.50 (NVIDIA) or mi300x's 2.00 (AMD)
# × the ratio of [InferenceX]'s 3-year rental costs (gb200 3.30, b300 3.48, b200 2.90; mi325x 1.80, mi355x 2.10,
# mi300x 1.55), to the cent; the server price puts §13's owned cost per GPU-hour at InferenceX's neocloud-owned cost
# (2.75, 2.808, 1.59, 1.90), to the thousand. The η of the layout search (§10) is H100's 0.47 scaled by the GPU's
# measured BF16 matmul share of peak over H100's ([ML Engineering], MAMF: 794.5 of 989).
ADDED = dict(price_source="Illustrative: InferenceX rental ratio", price_as_of=PRICES_AS_OF,
             server_price_source="Illustrative: InferenceX owner's cost", server_price_as_of="2026-12-07")


def dgx(name: str, kw: float) -> dict:
    """An NVIDIA server's kW per GPU: the DGX's maximum power over its 8 GPUs, from its data sheet."""
    return dict(server_kw=kw / 8, server_kw_source=f"DGX {name}: {kw} kW max ÷ 8 ({NOT_CONFIRMED})")


def board_power(watts: int, vendor: str = "") -> dict:
    """A server's kW per GPU without a published system maximum: H100's 1.275 scaled by the GPU's board power, to
    the watt (illustrative; MI300X's rule)."""
    return dict(server_kw=round(1.275 * watts / 700, 3),
                server_kw_source=f"H100's 1.275 × {watts:,} W ÷ 700 W ({vendor}board power; illustrative)")


GPUS: dict[str, GPU] = {
    row["id"]: GPU(**(RENTED | OWNED | row))  # an added row states its own provenance (ADDED)
    for row in (
        dict(id="a100-80gb", memory_gb=80, peak_tflops=312, hbm_tbps=2.039, price_per_hour=1.50, nvlink_gbps=300,
             network_gbps=25, gemm_efficiency=0.65, server_price=20_000, **dgx("A100", 6.5)),
        dict(id="h100-sxm", memory_gb=80, peak_tflops=989, hbm_tbps=3.35, price_per_hour=2.00, fp8_tflops=1979,
             nvlink_gbps=450, network_gbps=50, gemm_efficiency=0.47, server_price=45_000, **dgx("H100", 10.2)),
        dict(id="h200", memory_gb=141, peak_tflops=989, hbm_tbps=4.8, price_per_hour=2.50, fp8_tflops=1979,
             nvlink_gbps=450, network_gbps=50, gemm_efficiency=0.47, server_price=50_000, **dgx("H200", 10.2)),
        dict(id="b200", memory_gb=180, peak_tflops=2250, hbm_tbps=8.0, price_per_hour=4.50, fp8_tflops=4500,
             fp4_tflops=9000, nvlink_gbps=900, network_gbps=100, gemm_efficiency=0.45, server_price=65_000,
             **dgx("B200", 14.3)),
        dict(id="mi300x", memory_gb=192, peak_tflops=1307, hbm_tbps=5.3, price_per_hour=2.00, fp8_tflops=2614.9,
             nvlink_gbps=400, network_gbps=50, gemm_efficiency=0.3, server_price=33_000,
             **board_power(750, "AMD ")),
        # Beyond the first five (docs/method.md, Catalog, "Added GPUs"): memory, dense BF16/FP8/FP4 and HBM from
        # [ML Engineering] (vendor figures without sparsity; B300's FP4 from [AIConfigurator]), NVLink and network
        # per direction from NVIDIA's [AIConfigurator] system files, Infinity Fabric per direction from
        # [ML Engineering]'s network table. AMD publishes no network per GPU (the server's NICs): blank.
        dict(id="gb200", memory_gb=186, peak_tflops=2500, hbm_tbps=8.0, price_per_hour=5.12, fp8_tflops=5000,
             fp4_tflops=10000, nvlink_gbps=900, network_gbps=100, gpus_per_node=72, gemm_efficiency=0.43,
             server_price=75_000, **board_power(1200), **ADDED),
        dict(id="b300", memory_gb=288, peak_tflops=2250, hbm_tbps=8.0, price_per_hour=5.40, fp8_tflops=4500,
             fp4_tflops=14000, nvlink_gbps=900, network_gbps=100, gemm_efficiency=0.46,
             server_price=79_000, **board_power(1100), **ADDED),
        dict(id="mi325x", memory_gb=256, peak_tflops=1307.4, hbm_tbps=6.0, price_per_hour=2.32, fp8_tflops=2614.9,
             nvlink_gbps=448, gemm_efficiency=0.35, server_price=34_000, **board_power(1000, "AMD "), **ADDED),
        dict(id="mi355x", memory_gb=288, peak_tflops=2500, hbm_tbps=8.0, price_per_hour=2.71, fp8_tflops=5000,
             fp4_tflops=10100, nvlink_gbps=535.5, gemm_efficiency=0.37, server_price=36_000,
             **board_power(1400, "AMD "), **ADDED),
    )
}
# Weight and KV-cache precisions (docs/method.md §6): GPTQ/AWQ int4 with a 16-bit scale per 128 weights is 4.125 bits.
PRECISIONS: dict[str, Precision] = {
    row["id"]: Precision(**row)
    for row in (
        dict(id="bf16", weight_bits=16, kv_bytes=2, fp8_gemm=False),
        dict(id="fp8", weight_bits=8, kv_bytes=1, fp8_gemm=True),
        dict(id="int8", weight_bits=8, kv_bytes=1, fp8_gemm=False),  # weight-only: BF16 GEMMs
        dict(id="int4-g128", weight_bits=4.125, kv_bytes=1, fp8_gemm=False),
        # NVFP4: 4 bits and one FP8 scale per 16 values, 4.5 bits; its GEMMs at the FP4 peak, or FP8's without one
        dict(id="fp4", weight_bits=4.5, kv_bytes=0.5625, fp8_gemm=True, fp4_gemm=True),
    )
}

# The engines table (docs/method.md §14.3): priors by engine × GPU × weight precision; a blank cell is filled from the
# rows it falls back to. Only `generic | any | any` gives every cell; the others only what a public source gives.
ENGINES_AS_OF = "2026-12-07"
BLIS = ("inference-sim (BLIS) trained-physics coefficients β7, β5, β6 (τ_0, τ_L, τ_seq; fitted on H100 vLLM, beside "
        "BLIS's own multiplicative corrections: priors for the ledger to test); β8 0 for uniform MoE and dense")
DISPATCH = "AIConfigurator vllm_backend.py _prefill_dispatch_overhead_ms: 0.8 ms × layers (δ)"
BUDGET = "vLLM arg_utils.py EngineArgs.get_batch_defaults: max_num_batched_tokens 8192 on GPUs of 70 GiB or more (N)"
ENGINES_GIVEN: dict[tuple, EngineRow] = {
    row.key: row for row in (
        EngineRow(GENERIC, priors={f.key: f.default for f in ENGINE},
                  source=f"§6's η defaults; {BLIS}; {DISPATCH}; {BUDGET}", as_of=ENGINES_AS_OF),
        EngineRow("vllm", priors={"prefill_token_budget": 8192, "dispatch_ms_per_layer": 0.8},
                  source=f"{DISPATCH}; {BUDGET}", as_of=ENGINES_AS_OF),
        EngineRow("vllm", "a100-80gb", priors={"prefill_token_budget": 2048},
                  source="vLLM arg_utils.py: max_num_batched_tokens 2048 on A100 (\"Setting large "
                  "max_num_batched_tokens for A100 reduces throughput\")", as_of=ENGINES_AS_OF),
        EngineRow("trtllm", source="no public source yet", as_of=ENGINES_AS_OF),
        EngineRow("sglang", source="no public source yet", as_of=ENGINES_AS_OF),
    )
}
ENGINES: dict[tuple, EngineRow] = filled(ENGINES_GIVEN)  # as the Catalog sheet writes them

# Hosted API offers (docs/method.md §13): list prices, illustrative. Read on 2026-12-07 from the Bifrost model library
# (getmaxim.ai/bifrost), which republishes BerriAI/LiteLLM's model_prices_and_context_window.json; not confirmed on
# the providers' own pages. Re-read before citing.
API_PRICES = "Illustrative: Bifrost/LiteLLM, not on the provider's page"
API_PRICES_AS_OF = "2026-12-07"
API_OFFERS: dict[str, ApiOffer] = {
    row["id"]: ApiOffer(**(dict(source=API_PRICES, as_of=API_PRICES_AS_OF) | row))
    for row in (
        dict(id="together-llama-3.1-8b-turbo", provider="Together AI", model="llama-3.1-8b",
             price_input_per_million=0.18, price_output_per_million=0.18),
        dict(id="deepinfra-llama-3.1-8b-turbo", provider="DeepInfra", model="llama-3.1-8b",
             price_input_per_million=0.02, price_output_per_million=0.03),
        dict(id="together-llama-3.1-70b-turbo", provider="Together AI", model="llama-3.1-70b",
             price_input_per_million=0.88, price_output_per_million=0.88),
        dict(id="deepinfra-llama-3.1-70b-turbo", provider="DeepInfra", model="llama-3.1-70b",
             price_input_per_million=0.40, price_output_per_million=0.40),
        dict(id="illustrative-70b-cached", provider="Illustrative", model="llama-3.1-70b",
             price_input_per_million=0.60, price_cached_input_per_million=0.30, price_output_per_million=0.80,
             source="Not a provider's price: cached input at half, to show it"),
    )
}

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
    engines: dict[tuple, EngineRow] = field(default_factory=lambda: dict(ENGINES))  # filled (§14.3)
    api_offers: dict[str, ApiOffer] = field(default_factory=lambda: dict(API_OFFERS))

