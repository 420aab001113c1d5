"""The HTML summary: a Jinja environment over templates/ and one section (template, charts, findings) per table.

A new table adds one entry to SECTIONS: its template, its chart function and its findings function.
"""

from __future__ import annotations

import importlib.resources
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import jinja2

import planner
from planner import method
from planner.catalog import REFERENCE_GPU, STRATEGIES
from planner.report import charts


def _loader() -> jinja2.BaseLoader:
    """templates/ in a source checkout; the installed `planner.templates` package data otherwise."""
    folder = Path(__file__).resolve().parents[2] / "templates"
    if folder.is_dir():
        return jinja2.FileSystemLoader(folder)
    package = importlib.resources.files("planner.templates")  # may be a namespace package or a zip: read, not path

    def read(name: str) -> str | None:
        file = package / name
        return file.read_text(encoding="utf-8") if file.is_file() else None

    return jinja2.FunctionLoader(read)


# Formatting ------------------------------------------------------------------------------------------------
def number(value) -> str:
    """Thousands separators; whole numbers without decimals; true/false as a scenario file writes them."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{int(value):,}" if float(value).is_integer() else f"{value:,}"
    return str(value)


def gb(value) -> str:
    """GB to one decimal."""
    return f"{value:,.1f}"


def yes_no(value) -> str:
    return "yes" if value else "no"


def millions(value, digits: int = 2) -> str:
    """Hours in millions ("26.67 M"); below 100,000 whole with thousands separators; below 100 to two figures."""
    if value >= 1e5:
        return f"{value / 1e6:,.{digits}f} M"
    return f"{value:,.0f}" if value >= 100 else f"{value:.2g}"


def percent(share) -> str:
    """A share as "40 %"."""
    return f"{share * 100:.4g} %"


def sci(value) -> str:
    """Scientific notation without the exponent's sign and zeros: 3.80e25."""
    mantissa, exponent = f"{value:.2e}".split("e")
    return f"{mantissa}e{int(exponent)}"


def money(value, digits: int = 0) -> str:
    """An amount in the scenario's currency, with thousands separators."""
    return f"{value:,.{digits}f}"


def days(value) -> str:
    return f"{value:,.1f}"


def _tokens(count) -> str:
    for size, word in ((1e12, "trillion"), (1e9, "billion")):
        if count >= size:
            return f"{count / size:,.4g} {word}"
    return number(count)


def flatten(data, prefix: str = "") -> dict[str, object]:
    """Nested scenario data as dotted keys; list items numbered from 1, lists of plain values kept whole."""
    if isinstance(data, dict):
        items = data.items()
    elif isinstance(data, list) and any(isinstance(item, (dict, list)) for item in data):
        items = ((str(i), item) for i, item in enumerate(data, 1))
    else:
        return {prefix: (", ".join(map(number, data)) or "none") if isinstance(data, list) else data}
    flat: dict[str, object] = {}
    for key, value in items:
        flat.update(flatten(value, f"{prefix}.{key}" if prefix else key))
    return flat


def _and(words: list[str]) -> str:
    return " and ".join([", ".join(words[:-1]), words[-1]]) if len(words) > 1 else "".join(words)


def _fit(fits: bool, headroom: float) -> str:
    return f"it fits, with {gb(headroom)} GB to spare" if fits else f"it does not fit, {gb(-headroom)} GB over"


# Findings: plain sentences from the results, one function per table ----------------------------------------
def memory_findings(results) -> list[str]:
    scenario, table = results.scenario, results.memory
    m, sv, s, chosen = scenario.memory, scenario.serving, table.scalars, table.selected
    gpu = f"the {scenario.gpu_id} has {number(s['gpu_memory_gb'])} GB"
    split = ""
    if m.tensor_parallel * m.pipeline_parallel > 1:
        split = f" (tensor parallel {m.tensor_parallel}, pipeline parallel {m.pipeline_parallel})"
    fitting = [name for name in STRATEGIES if table.strategies.loc["fits", name]]
    others = [name for name in STRATEGIES if name not in fitting]
    if not fitting:
        strategies = f"None of {_and(others)} fits."
    elif not others:
        strategies = f"All of {_and(fitting)} fit."
    else:
        strategies = f"{_and(fitting)} {'fits' if len(fitting) == 1 else 'fit'}; {_and(others)} " \
                     f"{'does' if len(others) == 1 else 'do'} not."
    return [
        f"{scenario.model_id} with {table.strategy} on {number(m.gpus)} GPUs{split} needs {gb(chosen['total_gb'])} "
        f"GB per GPU; {gpu}: {_fit(chosen['fits'], chosen['headroom_gb'])}.",
        f"Model state takes {gb(chosen['model_state_gb'])} GB and activations {gb(chosen['activations_gb'])} GB "
        f"(sequence length {number(m.sequence_length)}, micro-batch {number(m.micro_batch)}, activation "
        f"checkpointing {'on' if m.activation_checkpointing else 'off'}).",
        strategies,
        f"Serving {number(sv.users)} users at {number(sv.sequence_length)} tokens each on "
        f"{number(sv.tensor_parallel)} GPU{'s' if sv.tensor_parallel > 1 else ''} needs "
        f"{gb(s['serving_total_gb'])} GB per GPU ({gb(s['serving_weights_gb'])} GB weights + "
        f"{gb(s['serving_kv_gb'])} GB KV cache at {number(s['kv_kib_per_token'])} KiB per token); "
        f"{_fit(s['serving_fits'], s['serving_headroom_gb'])}.",
    ]


def hours_findings(results) -> list[str]:
    scenario, table = results.scenario, results.hours
    h, s, options = scenario.hours, table.scalars, table.allocations
    recompute = " with activation recomputation (8 operations per parameter per token instead of 6)" \
        if h.activation_recompute else ""
    sentences = [
        f"Training {scenario.model_id} on {_tokens(h.tokens)} tokens takes {sci(s['training_flops'])} operations"
        f"{recompute}: {millions(s['gpu_hours'])} GPU-hours on the {scenario.gpu_id} at {percent(h.mfu)} MFU.",
        f"With a productive share of {percent(h.productive_share)}, {millions(s['allocated_gpu_hours'])} GPU-hours "
        f"are allocated: they cost {money(s['cost'])} at {money(scenario.price_per_gpu_hour, 2)} per GPU-hour and "
        f"take {days(s['days'])} days on {number(s['gpus'])} GPUs.",
    ]
    fast, lean = options.loc[options.days.idxmin()], options.loc[options.allocated_gpu_hours.idxmin()]
    if fast.name == lean.name:
        best = "" if len(options) == 1 else ": the soonest finish and the fewest GPU-hours of the allocation options"
        sentences.append(f"{number(fast.gpus)} GPUs at {percent(fast.mfu)} take {days(fast.days)} days for "
                         f"{millions(fast.allocated_gpu_hours, 1)} GPU-hours{best}.")
    else:
        sentences.append(f"{number(fast.gpus)} GPUs at {percent(fast.mfu)} finish in {days(fast.days)} days but use "
                         f"{millions(fast.allocated_gpu_hours, 1)} GPU-hours; {number(lean.gpus)} at "
                         f"{percent(lean.mfu)} take {days(lean.days)} days for "
                         f"{millions(lean.allocated_gpu_hours, 1)}.")
    if scenario.model_id in table.reference.index:
        row = table.reference.loc[scenario.model_id]
        where = "" if scenario.gpu_id == REFERENCE_GPU else f" at the {REFERENCE_GPU}'s peak"
        ratio = row.reported_over_calculated
        why = "reported hours include restarts, checkpointing and lower-MFU phases" if ratio >= 1 else \
            "this scenario's assumptions cost more than Meta's actual run"
        sentences.append(f"Meta reports {millions(row.reported_gpu_hours)} H100-hours, {ratio:.2f} times this "
                         f"calculation{where}: {why}.")
    return sentences


# Sections --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Section:
    name: str  # its key in results.tables and planner.method.SECTIONS
    template: str
    charts: Callable  # results → {name: inline SVG}
    findings: Callable  # results → [sentence]


SECTIONS = [
    Section("memory", "memory.html.j2", charts.memory_charts, memory_findings),
    Section("hours", "hours.html.j2", charts.hours_charts, hours_findings),
]

environment = jinja2.Environment(
    loader=_loader(),
    autoescape=True,
    undefined=jinja2.StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
)
environment.filters.update(number=number, gb=gb, yes_no=yes_no, millions=millions, percent=percent, sci=sci,
                           money=money, days=days)


def render_html(results, *, generated: str) -> str:
    """The self-contained HTML summary of one scenario's results."""
    sections = [{"name": s.name, "template": s.template, "title": method.SECTIONS[s.name]["title"],
                 "table": results.tables[s.name], "charts": s.charts(results), "findings": s.findings(results)}
                for s in SECTIONS]
    return environment.get_template("base.html.j2").render(
        results=results, scenario=results.scenario, sections=sections, generated=generated,
        version=planner.__version__, inputs=flatten(results.scenario.normalised()), method=method,
        strategies=list(STRATEGIES), why_reported_is_higher=method.WHY_REPORTED_IS_HIGHER)
