"""The Memory section of the HTML summary (docs/method.md §1): sentences and charts."""

from __future__ import annotations

from markupsafe import Markup

from planner.shipped import STRATEGIES
from planner.report import plot
from planner.report.format import and_list, gb, number

STACK = (("weights_gb", "Weights", plot.BLUE), ("gradients_gb", "Gradients", plot.ORANGE),
         ("optimizer_gb", "Optimizer state", plot.GREY), ("activations_gb", "Activations", plot.YELLOW))


def _fit(fits: bool, headroom: float) -> str:
    return f"it fits, with {gb(headroom)} GB to spare" if fits else f"it does not fit, {gb(-headroom)} GB over"


SUMMARY = [  # (headline name, heading, kind): the batch index's and summary's columns
    ("memory_training_total_gb", "Training memory per GPU (GB)", "gb"),
    ("memory_training_fits", "Training fits", "bool"),
    ("memory_serving_total_gb", "Serving memory per GPU (GB)", "gb"),
]


def findings(results) -> list[str]:
    scenario, table = results.scenario, results.memory
    m, sv, s, chosen = scenario.memory, scenario.serving, table.scalars, table.selected
    gpu = f"the {scenario.gpu} has {number(s['gpu_memory_gb'])} GB"
    split, g = "", results.serving.scalars["gpus_per_replica"]  # the serving replica's t·d_a GPUs (§14.5)
    if m.tensor_parallel * m.pipeline_parallel > 1:
        split = f" (tensor parallel {m.tensor_parallel}, pipeline parallel {m.pipeline_parallel})"
    names = list(STRATEGIES)
    fitting = [name for i, name in enumerate(names) if table.training["fits"][i]]
    others = [name for name in names if name not in fitting]
    if not fitting:
        strategies = f"None of {and_list(others)} fits."
    elif not others:
        strategies = f"All of {and_list(fitting)} fit."
    else:
        strategies = f"{and_list(fitting)} {'fits' if len(fitting) == 1 else 'fit'}; {and_list(others)} " \
                     f"{'does' if len(others) == 1 else 'do'} not."
    return [
        f"{scenario.model} with {table.strategy} on {number(m.gpus)} GPUs{split} needs {gb(chosen['total_gb'])} "
        f"GB per GPU; {gpu}: {_fit(chosen['fits'], chosen['headroom_gb'])}.",
        f"Model state takes {gb(chosen['model_state_gb'])} GB and activations {gb(chosen['activations_gb'])} GB "
        f"(sequence length {number(m.sequence_length)}, micro-batch {number(m.micro_batch)}, activation "
        f"checkpointing {'on' if m.activation_checkpointing else 'off'}).",
        strategies,
        f"Serving {number(sv.users)} users at {number(sv.sequence_length)} tokens each on "
        f"{number(g)} GPU{'s' if g > 1 else ''} needs "
        f"{gb(s['serving_total_gb'])} GB per GPU ({gb(s['serving_weights_gb'])} GB weights + "
        f"{gb(s['serving_kv_gb'])} GB KV cache at {number(s['kv_kib_per_token'])} KiB per token); "
        f"{_fit(s['serving_fits'], s['serving_headroom_gb'])}.",
    ]


def charts(results) -> dict[str, Markup]:
    return {"training": _training(results.memory), "serving": _serving(results.memory)}


def _training(table) -> Markup:
    """Stacked columns per strategy: weights, gradients, optimizer state, activations; the GPU's memory dashed."""
    names, capacity = table.strategies, table.scalars["gpu_memory_gb"]
    chart = plot.Chart("Training memory per GPU by strategy", y_label="GB per GPU", x_label="Strategy")
    chart.columns(names, [(label, table.training[key][:len(names)], colour) for key, label, colour in STACK],
                  stacked=True)
    return chart.hline(capacity, f"GPU memory ({capacity:,g} GB)").svg()


def _serving(table) -> Markup:
    """One stacked column: serving weights and KV cache; the GPU's memory dashed."""
    s = table.scalars
    capacity = s["gpu_memory_gb"]
    chart = plot.Chart("Serving memory per GPU", y_label="GB per GPU", height=260)
    chart.columns(["Serving"], [("Weights", [s["serving_weights_gb"]], plot.BLUE),
                                ("KV cache", [s["serving_kv_gb"]], plot.YELLOW)], stacked=True)
    return chart.hline(capacity, f"GPU memory ({capacity:,g} GB)").svg()
