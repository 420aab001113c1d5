"""The method in words, its sources and the seeds' caveats: shown on the Method sheet and in the HTML summary."""

from __future__ import annotations

GENERAL = [
    "Units: memory in GB = 1e9 bytes (decimal, as GPU data sheets write 80 GB); KV cache per token in KiB = 1,024 "
    "bytes. Money in the currency of the price per GPU-hour.",
    "Every number in the workbook is a formula fed by the Inputs and Catalog sheets; the generator checks each one "
    "against its own engine after recalculation in LibreOffice Calc.",
]

# Why Meta's reported hours sit above the pure calculation (the Hours sheet and the HTML say it).
WHY_REPORTED_IS_HIGHER = (
    "Reported hours sit above the pure calculation: they include restarts after failures, checkpointing, "
    "evaluation and lower-MFU phases (Meta measured 38 % to 43 % MFU for 405B), none of which the 6·Ψ·T formula "
    "counts. The ratio is the overhead a plan should expect; the productive share input models it.")

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
    "hours": {
        "title": "Training hours and cost",
        "formulas": [
            "Training operations C = 6·Ψ·T (forward 2 + backward 4 operations per parameter per token); with "
            "activation recomputation C = 8·Ψ·T (one extra forward pass).",
            "GPU-hours H = C / (peak TFLOPS · 1e12 · MFU · 3600), at the GPU's dense BF16 peak.",
            "Allocated GPU-hours = H / q, where q is the productive share of allocated time; cost = allocated "
            "GPU-hours × price per GPU-hour; wall-clock days = allocated GPU-hours / GPUs in the run / 24.",
            "Allocation options: each (GPUs, MFU) row gives its own GPU-hours, days and cost; a larger allocation "
            "at a lower MFU finishes sooner but pays for more GPU-hours.",
            "Reference rows: Llama 3.1 8B, 70B and 405B at the scenario's tokens, MFU and recomputation on the "
            "H100's peak, beside Meta's reported 1.46 M, 7.0 M and 30.84 M H100-hours, with their ratio.",
        ],
        "sources": [
            "Kaplan et al. 2020, Scaling Laws for Neural Language Models (arXiv 2001.08361): C ≈ 6·N·D.",
            "Korthikanti et al. 2022 (arXiv 2205.05198), §5: recomputation costs one more forward pass.",
            "Meta, Llama 3.1 model card: 1.46 M, 7.0 M and 30.84 M H100-80GB GPU-hours; The Llama 3 Herd of "
            "Models (arXiv 2407.21783), Table 4: 8,192 GPUs at 43 % MFU and 16,384 GPUs at 41 %.",
        ],
        "caveats": [
            "Reported hours include restarts, checkpointing and lower-MFU phases, so they sit above the pure "
            "calculation (405B at 40 % MFU: about 26.7 M against 30.84 M).",
            "Compare complete allocation cost, including failed runs and recovery, rather than the hourly rate "
            "alone.",
            "The attention-score operations (about 6·L·s·h per token) are left out, as in 6·Ψ·T.",
        ],
    },
}
