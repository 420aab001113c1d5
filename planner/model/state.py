"""What training keeps in GPU memory per parameter and per token: the model state's bytes by ZeRO stage and precision,
and a layer's stored activations (docs/method.md §1, §7, §10). The Memory and Layouts tables both read these; one
copy of each, with its Excel twin in planner/workbook/model.py.

Every function takes scalars or numpy arrays (broadcast together).
"""

from __future__ import annotations

import numpy as np

from planner.method import Constant

# Mixed-precision Adam (ZeRO paper, Rajbhandari et al. 2020, §3.1), bytes per parameter:
WEIGHT_BYTES = 2  # BF16 weights used in forward and backward
GRADIENT_BYTES = 2  # BF16 gradients
OPTIMIZER_BYTES = 12  # FP32 master weights, momentum and variance: 4 + 4 + 4 = 12 (the paper's K)
FP8_WEIGHT_COPY_BYTES = 1  # FP8 training: Transformer Engine keeps an FP8 copy of each weight beside the BF16 one
# The first ZeRO stage that shards each (0 shards nothing; FSDP full sharding is ZeRO-3).
SHARDED_FROM_STAGE = {"optimizer": 1, "gradients": 2, "weights": 3}

# Korthikanti et al. 2022 (arXiv 2205.05198), Table 2, with sequence parallelism and without the 5·a·s/h
# attention-score term that FlashAttention-style kernels do not store: bytes per token and h per layer.
ACTIVATION_BYTES_PER_LAYER = 34
UNSPLIT_ACTIVATION_BYTES = 10  # without sequence parallelism t does not divide these: (10 + 24/t)·s·b·h
SPLIT_ACTIVATION_BYTES = 24
CHECKPOINT_BYTES_PER_LAYER = 2  # a checkpointed layer keeps only its BF16 input: 2·s·b·h bytes


def zero_divisor(zero_stage, sharded_from_stage, data_parallel):
    """d where the ZeRO stage shards this quantity (stage ≥ sharded_from_stage), else 1."""
    return np.where(np.asarray(zero_stage) >= sharded_from_stage, data_parallel, 1)


def state_bytes_per_param(zero_stage, data_parallel):
    """Bytes of model state per parameter held: 16 (DDP), 4 + 12/d (ZeRO-1), 2 + 14/d (ZeRO-2), 16/d (ZeRO-3):
    the weights, gradients and Adam state each divided by d from the stage that shards it (ZeRO paper)."""
    z, d = np.asarray(zero_stage), data_parallel
    return np.where(z == 0, WEIGHT_BYTES + GRADIENT_BYTES + OPTIMIZER_BYTES,
                    np.where(z == 1, WEIGHT_BYTES + GRADIENT_BYTES + OPTIMIZER_BYTES / d,
                             np.where(z == 2, WEIGHT_BYTES + (GRADIENT_BYTES + OPTIMIZER_BYTES) / d,
                                      (WEIGHT_BYTES + GRADIENT_BYTES + OPTIMIZER_BYTES) / d)))


def layer_activation_bytes_per_token(hidden, tensor_parallel, sequence_parallel=True):
    """One layer's stored activations per token: 34·h/t with sequence parallelism (or t = 1), else (10 + 24/t)·h
    (Korthikanti et al. 2022, Table 2, without the attention scores)."""
    t = np.asarray(tensor_parallel)
    split = ACTIVATION_BYTES_PER_LAYER * hidden / t
    unsplit = (UNSPLIT_ACTIVATION_BYTES + SPLIT_ACTIVATION_BYTES / t) * hidden
    return np.where(np.asarray(sequence_parallel) | (t == 1), split, unsplit)


def checkpointed_bytes_per_token(hidden, tensor_parallel):
    """A checkpointed layer's kept input per token: 2·h/t (its BF16 input, split by sequence parallelism)."""
    return CHECKPOINT_BYTES_PER_LAYER * hidden / tensor_parallel


CONSTANTS = [  # named cells on the Method sheet, read by the Memory and Layouts sheets
    Constant("weight_bytes_per_param", WEIGHT_BYTES, label="Bytes per weight", unit="bytes",
             source="BF16 weights used in forward and backward (ZeRO paper, §3.1)"),
    Constant("gradient_bytes_per_param", GRADIENT_BYTES, label="Bytes per gradient", unit="bytes",
        source="BF16 gradients (ZeRO paper)"),
    Constant("optimizer_bytes_per_param", OPTIMIZER_BYTES, label="Bytes of Adam state per parameter", unit="bytes",
             source="FP32 master weights, momentum and variance: 4 + 4 + 4 (ZeRO paper's K = 12)"),
    Constant("activation_bytes_per_layer", ACTIVATION_BYTES_PER_LAYER, label="Activation bytes per s·b·h per layer",
             unit="bytes",
                 source="Korthikanti et al. 2022, Table 2, without the attention scores FlashAttention does not store"),
    Constant("checkpoint_bytes_per_layer", CHECKPOINT_BYTES_PER_LAYER, label="Bytes per s·b·h per checkpointed layer",
             unit="bytes", source="A checkpointed layer keeps only its BF16 input (Korthikanti et al. 2022)"),
    Constant("fp8_weight_copy_bytes", FP8_WEIGHT_COPY_BYTES, label="Bytes per parameter of the FP8 weight copy",
             unit="bytes", source="FP8 training: Transformer Engine keeps an FP8 copy beside the BF16 weights"),
]
