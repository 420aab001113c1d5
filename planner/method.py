"""The method in words, its sources and the seeds' caveats: shown on the Method sheet and in the HTML summary."""

from __future__ import annotations

GENERAL = [
    "Units: memory in GB = 1e9 bytes (decimal, as GPU data sheets write 80 GB); KV cache per token in KiB = 1,024 "
    "bytes. Money in the currency of the price per GPU-hour.",
    "Every number in the workbook is a formula fed by the Inputs and Catalog sheets; the generator checks each one "
    "against its own engine after recalculation in LibreOffice Calc.",
]

SECTIONS: dict[str, dict] = {
    "memory": {
        "title": "Memory per GPU",
        "formulas": [
            "Data-parallel degree d = N / (t·p); it must be a whole number.",
            "Weights 2Ψ/(t·p), gradients 2Ψ/(t·p), Adam optimizer state 12Ψ/(t·p) bytes per GPU (mixed-precision "
            "Adam: BF16 weights and gradients, FP32 master weights, momentum and variance, 4 + 4 + 4 = 12 bytes). "
            "ZeRO-1 divides the optimizer state by d, ZeRO-2 also the gradients, ZeRO-3 (FSDP) also the weights.",
            "Activations per layer a = 34·s·b·h / t bytes; without checkpointing L·a; with checkpointing "
            "L·2·s·b·h/t + a (each layer's input kept, plus one layer being recomputed).",
            "Pipeline parallelism divides the model state but not the activations: with a 1F1B schedule the first "
            "stage holds p micro-batches in flight × L/p layers, about one full set.",
            "Serving: weights 2Ψ/t_s; KV cache per token 2·L·kv_heads·head_dim·2 bytes (K and V in BF16); KV cache "
            "u·s_s·(KV per token)/t_s. It fits when the total is at most the GPU's memory.",
        ],
        "sources": [
            "Rajbhandari et al. 2020, ZeRO: Memory Optimizations Toward Training Trillion Parameter Models "
            "(arXiv 1910.02054), §3 and §5.",
            "Korthikanti et al. 2022, Reducing Activation Recomputation in Large Transformer Models "
            "(arXiv 2205.05198), Table 2, without the attention-score term (5·a·s/h) that FlashAttention does not "
            "store.",
            "Meta, Llama 3.1 model cards: layer counts, hidden sizes, heads and KV heads.",
        ],
        "caveats": [
            "Estimates are illustrative. Real frameworks add communication buffers, temporary tensors and "
            "allocator fragmentation, often several GB per GPU.",
            "Sequence parallelism is assumed with tensor parallelism; without it activations are not all divided "
            "by t.",
        ],
    },
}
