"""The Memory table's inputs (docs/method.md §1): the training layout (its serving rows read the Serving table's
inputs)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, ConfigDict, model_validator

from planner import shipped
from planner.scenario.declare import Count, Section, declared, divisors

Strategy = Annotated[
    Literal["ddp", "zero1", "zero2", "zero3"],
    BeforeValidator(lambda v: shipped.STRATEGY_ALIASES.get(v, v) if isinstance(v, str) else v),
]


class Memory(Section):
    model_config = ConfigDict(title="Training memory")

    gpus: Count = declared(8, "GPUs in the sharding group", "GPUs", "The GPUs the model state is sharded over "
                           "(t × p × d); a multiple of t × p.", kind="count", symbol="N")
    strategy: Strategy = declared("zero3", "Strategy", "", "ddp replicates everything; zero1 shards the optimizer "
                                  "state, zero2 also gradients, zero3 (= FSDP) also weights.", kind="text",
                                  choices="catalog_strategy_ids")
    tensor_parallel: Count = declared(1, "Tensor parallel t", "GPUs", "Divides the model state and (with sequence "
                                      "parallelism) activations; divides the attention heads.", kind="count")
    pipeline_parallel: Count = declared(1, "Pipeline parallel p", "GPUs", "Divides the model state; at most the "
                                        "layers. The first stage still holds a full set of activations (1F1B).",
                                        kind="count")
    sequence_length: Count = declared(8192, "Sequence length s", "tokens", "Tokens per training sequence; "
                                      "activations grow linearly with it.", kind="count")
    micro_batch: Count = declared(1, "Micro-batch b", "sequences", "Sequences per GPU per forward pass.",
                                  kind="count")
    activation_checkpointing: bool = declared(False, "Activation checkpointing", "", "Keep each layer's input and "
                                              "recompute the rest in the backward pass.", kind="bool")
    expert_parallel: Count = declared(1, "Expert parallel e", "GPUs", "A mixture of experts: the routed experts "
                                      "split over e GPUs (e divides N / p and the experts); 1 for a dense model.",
                                      kind="count")

    @model_validator(mode="after")
    def _whole_data_parallel(self):
        t, p = self.tensor_parallel, self.pipeline_parallel
        if self.gpus % (t * p):
            raise ValueError(
                f"gpus {self.gpus} is not divisible by tensor_parallel {t} × pipeline_parallel {p} = {t * p};"
                " the data-parallel degree gpus / (t·p) must be a whole number")
        return self


SECTIONS = {"memory": Memory}


def cross_checks(scenario, catalog) -> list:
    """Parallelism that fits the chosen model: t divides the heads, p at most the layers."""
    model, problems = catalog.models[scenario.model], []
    t = scenario.memory.tensor_parallel
    if model.heads % t:
        problems.append((("memory", "tensor_parallel"), t, f"tensor parallel {t} does not divide the "
                         f"{model.heads} attention heads of {model.id}; allowed: {divisors(model.heads)}"))
    p, e = scenario.memory.pipeline_parallel, scenario.memory.expert_parallel
    if (scenario.memory.gpus // p) % e or (model.experts % e if model.experts else e != 1):
        allowed = "it must divide N / p and the experts" if model.experts else f"{model.id} is dense: 1"
        problems.append((("memory", "expert_parallel"), e, f"expert parallel {e} does not fit {model.id}: {allowed}"))
    if p > model.layers:
        problems.append((("memory", "pipeline_parallel"), p, f"pipeline parallel {p} exceeds the {model.layers} "
                         f"layers of {model.id}: each stage needs at least one layer"))
    return problems
