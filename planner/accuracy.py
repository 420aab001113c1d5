"""The public accuracy ledger (issue 44, item 2): published serving measurements (docs/accuracy/measurements.csv)
beside the planner's docs/method.md §6 prediction for each at today's defaults (the generic row: η_c 0.5, η_m 0.7,
τ 0), the ratio predicted/measured, and per metric and per GPU × engine the median ratio and the counts within ±15 %
and ±25 % (docs/accuracy/predictions.csv and docs/accuracy.md).

`python -m planner.accuracy` regenerates both files; tests/test_accuracy.py fails when a method or Catalog change moves
a figure and the ledger was not regenerated. A malformed row of the measurements is refused naming file and line
(exit 2)."""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from planner.engine import Tables
from planner.scenario import parse_scenario
from planner.model.engines import GENERIC, applying, engine_ids
from planner.shipped import ENGINES, GPUS, MODELS, PRECISIONS

ROOT = Path(__file__).resolve().parent.parent
MEASUREMENTS = ROOT / "docs" / "accuracy" / "measurements.csv"
PREDICTIONS = ROOT / "docs" / "accuracy" / "predictions.csv"
REPORT = ROOT / "docs" / "accuracy.md"
FIGURES = ROOT / "planner" / "ledger_figures.py"  # what the workbook and the HTML cite, per GPU × engine

COLUMNS = ["id", "source", "source_date", "model", "gpu", "engine", "engine_version", "precision", "kv_precision",
           "t", "e", "d_a", "gpus", "s", "o", "c", "R", "requests", "N", "metric", "statistic", "value", "unit",
           "notes"]
FILLED = ["id", "source", "source_date", "model", "gpu", "engine", "precision", "t", "e", "d_a", "gpus", "s", "o",
          "metric", "statistic", "value", "unit"]  # never blank
WHOLE = ["id", "t", "e", "d_a", "gpus", "s", "o"]  # whole numbers ≥ 1
WHOLE_OR_BLANK = ["c", "R", "requests", "N"]
UNITS = {"ttft": {"ms"}, "tpot": {"ms"}, "itl": {"ms"},
         "output_throughput": {"tokens/s per GPU", "tokens/s total"}, "request_throughput": {"requests/s"}}
STATISTICS = {"mean", "median", "run", "not stated"}  # "run": a whole run's figure (throughput)
WITHIN = (0.15, 0.25)  # the bands the ledger counts

# Published names → Catalog ids. A model is mapped only where its config.json has the Catalog model's shapes.
MODEL_IDS = {
    "llama-3.1-8b-instruct": "llama-3.1-8b",
    "llama-3.1-70b-instruct": "llama-3.1-70b",
    "llama-3.3-70b-instruct": "llama-3.1-70b",  # Llama 3.3 70B: Llama 3.1 70B's architecture, new weights
    "llama-3.1-405b-instruct": "llama-3.1-405b",
    "deepseek-v3": "deepseek-v3",
    "deepseek-r1": "deepseek-v3",  # DeepSeek-R1 and R1-0528: DeepSeek-V3's architecture
    "deepseek-r1-0528": "deepseek-v3",
    "mixtral-8x7b-instruct": "mixtral-8x7b",
    "gpt-oss-20b": "gpt-oss-20b",
}
GPU_IDS = {"A100": "a100-80gb", "H100": "h100-sxm", "H200": "h200", "B200": "b200", "MI300X": "mi300x",
           "GB200": "gb200", "B300": "b300", "MI325X": "mi325x", "MI355X": "mi355x"}

ENGINE_WORDS = {"vllm": "vLLM", "trtllm": "TensorRT-LLM", "sglang": "SGLang"}  # as the sources name them
SCORED = "scored"
HELD_OUT, FITTED = "held out", "fitted"  # a row no engines row was fitted on, or one the row applying was fitted on
NOTHING_LACKING = "- nothing: every row's model, GPU and precision is on it"


def catalog_model(name: str) -> str | None:
    """The shipped Catalog's model for a published name (or a Catalog id given as it is), None if it has none."""
    found = MODEL_IDS.get(name, name)
    return found if found in MODELS else None


def catalog_gpu(name: str) -> str | None:
    found = GPU_IDS.get(name, name)
    return found if found in GPUS else None


class LedgerError(ValueError):
    """A measurements file the ledger cannot read, naming file and line."""


# Reading -------------------------------------------------------------------------------------------------------------
def read_measurements(path: Path = MEASUREMENTS) -> pd.DataFrame:
    """The measurements as a table of text cells, each row checked; line numbers count the header as line 1."""
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except pd.errors.ParserError as exc:  # pandas names the line ("Expected 24 fields in line 7, saw 25")
        raise LedgerError(f"{path}: {exc}") from None
    missing = [c for c in COLUMNS if c not in table.columns]
    if missing:
        raise LedgerError(f"{path}, line 1: the header lacks {', '.join(missing)}")
    for index, row in table.iterrows():
        problem = _problem(row)
        if problem:
            raise LedgerError(f"{path}, line {index + 2}: {problem}")
    if table["id"].duplicated().any():
        line = int(table.index[table["id"].duplicated()][0]) + 2
        raise LedgerError(f"{path}, line {line}: id {table['id'][line - 2]} is used twice")
    return table


def _problem(row) -> str | None:
    for column in FILLED:
        if not row[column].strip():
            return f"{column} is blank"
    for column in WHOLE + WHOLE_OR_BLANK:
        text = row[column].strip()
        if (text or column in WHOLE) and not (text.isdigit() and int(text) >= 1):
            return f"{column} is {text!r}, not a whole number of at least 1"
    try:
        value = float(row["value"])
    except ValueError:
        return f"value is {row['value']!r}, not a number"
    if not value > 0:
        return f"value is {row['value']!r}, not above 0"
    if row["metric"] not in UNITS:
        return f"metric is {row['metric']!r}, not one of {', '.join(UNITS)}"
    if row["unit"] not in UNITS[row["metric"]]:
        return f"unit {row['unit']!r} does not go with metric {row['metric']} ({' or '.join(UNITS[row['metric']])})"
    if row["statistic"] not in STATISTICS:
        return f"statistic is {row['statistic']!r}, not one of {', '.join(sorted(STATISTICS))}"
    return None


# Predicting ----------------------------------------------------------------------------------------------------------
def status(row) -> str:
    """Why a row has no prediction, or SCORED. Rows outside the Catalog or today's layouts are kept and listed."""
    lacking = []
    if catalog_model(row["model"]) is None:
        lacking.append(f"model {row['model']}")
    if catalog_gpu(row["gpu"]) is None:
        lacking.append(f"GPU {row['gpu']}")
    for precision in dict.fromkeys([row["precision"], row["kv_precision"]]):
        if precision and precision not in PRECISIONS:
            lacking.append(f"precision {precision}")
    if lacking:
        return "not on Catalog: " + ", ".join(lacking)
    if row["e"] != "1" or row["d_a"] != "1":
        return f"layout not expressible today (e {row['e']}, d_a {row['d_a']})"
    return SCORED


def scenario_of(row, engine: str = GENERIC):
    """The planner scenario of a measurement at the engines row `engine` (generic: the defaults): its model, GPU, t,
    precisions and lengths, with users = c (1 when the run states no concurrency: its figure is then compared at
    B_max), and its rounds R and prefill budget N where the source states them."""
    s, o = int(row["s"]), int(row["o"])
    serving = {"users": int(row["c"] or 1), "sequence_length": s + o, "prompt_tokens": s,
               "tensor_parallel": int(row["t"]), "weight_precision": row["precision"], "engine": engine}
    if row["R"]:
        serving["client_rounds"] = int(row["R"])
    if row["N"]:
        serving["prefill_token_budget"] = max(int(row["N"]), 64)
    if row["kv_precision"]:
        serving["kv_precision"] = row["kv_precision"]
    return parse_scenario({"name": f"ledger row {row['id']}", "model": catalog_model(row["model"]),
                           "gpu": catalog_gpu(row["gpu"]), "serving": serving})


def predicted(row, serving: dict) -> tuple[float | None, str]:
    """The prediction for the row's metric from the Serving table's scalars, and what was compared."""
    at_max = not row["c"]
    if at_max and serving["max_concurrency"] == 0:
        return None, "does not fit: B_max 0"
    where = "at B_max (the run states no concurrency)" if at_max else f"at B = c = {row['c']}"
    over = (f"; c over B_max {serving['max_concurrency']}"
            if not at_max and int(row["c"]) > serving["max_concurrency"] else "")
    metric = row["metric"]
    if metric == "ttft" and at_max:
        return serving["ttft_ms"], "§6 idle TTFT (one request; the run states no concurrency)"
    if metric == "ttft":  # §14.4: a median with TTFT_med(c), a mean (or a statistic not stated) with TTFT_c
        key, what = (("ttft_median_at_concurrency_ms", "§14.4 median TTFT_med(c)") if row["statistic"] == "median"
                     else ("ttft_at_concurrency_ms", "§14.4 closed-loop mean TTFT_c"))
        if isinstance(serving[key], str):
            return None, f"c {row['c']} over B_max {serving['max_concurrency']}: TTFT at c not modelled"
        return serving[key], f"{what} at c = {row['c']}"
    if metric in ("tpot", "itl") and row["c"] == "1":  # alone: no other request's prefill stalls its decode
        return serving["tpot_ms"], "§6 TPOT(1) (one request alone)"
    if metric in ("tpot", "itl"):
        return serving["itl_ms_at_max" if at_max else "itl_ms"], f"§6 ITL = cycle/o {where}{over}"
    per_gpu = serving["tokens_per_s_per_gpu_at_max" if at_max else "tokens_per_s_per_gpu"]
    if metric == "request_throughput":  # B/cycle = TokS·GPUs/o
        return (per_gpu * int(row["gpus"]) / int(row["o"]),
                f"§6 requests/s = output tokens/s per GPU × {row['gpus']} GPUs / o {where}{over}")
    if row["unit"] == "tokens/s total":
        return per_gpu * int(row["gpus"]), f"§6 output tokens/s per GPU × {row['gpus']} GPUs {where}{over}"
    return per_gpu, f"§6 output tokens/s per GPU {where}{over}"


def predictions(measurements: pd.DataFrame) -> pd.DataFrame:
    """One row per measurement: the Catalog ids, the status, the prediction at today's defaults and the ratio."""
    cache: dict = {}
    out = []
    for _, row in measurements.iterrows():
        state, value, compared, b_max, engine, at_engine = status(row), None, "", None, engine_of(row), None
        half = FITTED if int(row["id"]) in fitted_on(row) else HELD_OUT
        if state == SCORED:
            value, compared, b_max = _predicted(row, GENERIC, cache)
            if value is None:
                state = compared
            at_engine = value if engine == GENERIC else _predicted(row, engine, cache)[0]
        measured = float(row["value"])
        out.append({"id": int(row["id"]), "model": row["model"], "gpu": row["gpu"], "engine": row["engine"],
                    "metric": row["metric"], "statistic": row["statistic"], "c": row["c"], "s": int(row["s"]),
                    "o": int(row["o"]), "t": int(row["t"]), "measured": measured, "unit": row["unit"],
                    "catalog_model": catalog_model(row["model"]) or "", "catalog_gpu": catalog_gpu(row["gpu"]) or "",
                    "status": state, "compared_with": compared, "b_max": b_max, "predicted": value,
                    "ratio": None if value is None else value / measured, "engine_row": engine,
                    "predicted_at_engine_row": at_engine,
                    "ratio_at_engine_row": None if at_engine is None else at_engine / measured, "half": half})
    return pd.DataFrame(out)


def engine_of(row) -> str:
    """The shipped engines row a measurement's engine takes (§14.3): its own where the table has it, else generic."""
    return row["engine"] if row["engine"] in engine_ids(ENGINES) else GENERIC


def fitted_on(row) -> tuple[int, ...]:
    """The ledger rows the engines row that applies to a measurement was fitted on (none for a documented default,
    and none shipped today): a row among them is in sample, scored apart from the others (issue 44)."""
    found = applying(ENGINES, engine_of(row), catalog_gpu(row["gpu"]) or row["gpu"], row["precision"])
    return found.fitted_on if found else ()


def _predicted(row, engine: str, cache: dict) -> tuple:
    """The prediction for a row at an engines row, its words and B_max; each scenario's Serving table computed once."""
    scenario = scenario_of(row, engine)
    key = repr(scenario.normalised())
    if key not in cache:  # the engine's path, as the CLI's compute(): the Serving table of the scenario
        cache[key] = Tables(scenario.shown())["serving"].scalars
    value, compared = predicted(row, cache[key])
    return value, compared, cache[key]["max_concurrency"]


# Summaries -----------------------------------------------------------------------------------------------------------
def summary(table: pd.DataFrame, by: list[str], ratio: str = "ratio") -> pd.DataFrame:
    """Per group of the scored rows: how many, the median ratio and the counts within ±15 % and ±25 % (of the
    prediction at the generic row, or of `ratio`: at the engines row that applies)."""
    scored = table[table["status"] == SCORED].copy()
    scored["ratio"] = scored[ratio]
    off = (scored["ratio"] - 1).abs()
    for band in WITHIN:
        scored[f"within ±{band:.0%}"] = off <= band + 1e-12
    grouped = scored.groupby(by, sort=True)
    return pd.DataFrame({"rows": grouped.size(), "median ratio": grouped["ratio"].median(),
                         **{f"within ±{b:.0%}": grouped[f"within ±{b:.0%}"].sum() for b in WITHIN}}).reset_index()


def markdown(table: pd.DataFrame) -> str:
    """A pipe table; ratios to three significant figures."""
    def cell(value):
        return f"{value:.3g}" if isinstance(value, float) else str(value)
    lines = ["| " + " | ".join(table.columns) + " |", "|" + "---|" * len(table.columns)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in table.itertuples(index=False)]
    return "\n".join(lines)


def metric_label(table: pd.DataFrame) -> pd.Series:
    """TTFT under load (closed loop at c > 1) is kept apart from one request alone."""
    loaded = (table["metric"] == "ttft") & ~table["c"].isin(["", "1"])
    return table["metric"].where(~loaded, "ttft under load (c > 1)")


def report(measurements: pd.DataFrame, table: pd.DataFrame) -> str:
    labelled = table.assign(metric=metric_label(table))
    unscored = table[table["status"] != SCORED]
    reasons = unscored.groupby("status").size().reset_index(name="rows")
    lacking = sorted({part.strip() for s in unscored["status"] if s.startswith("not on Catalog")
                      for part in s.removeprefix("not on Catalog: ").split(",")})
    sources = measurements.groupby(["source", "source_date"]).size().reset_index(name="rows")
    scored = table[table["status"] == SCORED]
    over = scored[pd.to_numeric(scored["c"], errors="coerce") > scored["b_max"]]
    held, fitted = (labelled[labelled["half"] == half] for half in (HELD_OUT, FITTED))
    by_row = ["gpu", "engine", "engine_row"]
    return TEMPLATE.format(
        held_out=markdown(summary(held, by_row, "ratio_at_engine_row")),
        in_sample=markdown(summary(fitted, by_row, "ratio_at_engine_row")) if len(fitted) else NOT_FITTED,
        rows=len(table), scored=len(scored), over=len(over), gpus=", ".join(sorted(measurements["gpu"].unique())),
        engines=", ".join(sorted(measurements["engine"].unique())),
        by_metric=markdown(summary(labelled, ["metric"])),
        by_gpu_engine=markdown(summary(labelled, ["gpu", "engine"])),
        by_gpu_engine_metric=markdown(summary(labelled, ["gpu", "engine", "metric"])),
        reasons=markdown(reasons), lacking="\n".join(f"- {item}" for item in lacking) or NOTHING_LACKING,
        sources="\n".join(f"- {r.source} — {r.source_date} ({r.rows} rows)" for r in sources.itertuples()))


NOT_FITTED = ("none. An engines row beyond the documented defaults names the ledger rows it was fitted on (`fitted_on` "
              "in planner/shipped.py) and is scored on the others; no such row ships yet, so every row above is "
              "held out (tests/test_accuracy.py fits one in a test and checks the halves stay apart).")
TEMPLATE = """# Accuracy ledger: the serving roofline against published measurements

*Generated by `python -m planner.accuracy` from `docs/accuracy/measurements.csv`; do not edit by hand (the test
tests/test_accuracy.py fails when the engine moves a figure and this page and `predictions.csv` were not regenerated).*

## What it is

Every row of `docs/accuracy/measurements.csv` is one published serving measurement, read from the source it cites
(a repository, file and commit, or a URL) with the source's date: the model, GPU, engine and version, weight and KV
precision, tensor parallel t, expert parallel e, attention data parallel d_a, prompt tokens s, output tokens o, the
client concurrency c, rounds R, requests and prefill token budget N where the source states them, the metric, its
statistic, value and unit. No value is estimated or read off a chart: a source that gives a chart only was skipped.

`docs/accuracy/predictions.csv` holds, for each row, the planner's prediction at the generic engines row
(docs/method.md §14.3: η_c 0.5, η_m 0.7, the per-pass overhead τ_0 0.126 ms, τ_L 0.032 ms per layer, τ_seq 0.0044 ms
per sequence, the dispatch δ 0.8 ms per layer, the prefill budget N 8,192 and R 10 where the source states neither;
τ 0 and the reserve 0.10; the KV precision is the row's where the source states it, else the default bf16) and the
ratio predicted/measured; and the prediction at the engines row of the row's engine where the table has one
(vllm, trtllm, sglang: `predicted_at_engine_row`; nim and tgi take generic). The method includes §14's per-pass
overhead, the TTFT at a client concurrency and the engines table; expert parallelism and attention data parallelism
are not yet in it. No engines row beyond the documented defaults was fitted on these rows: every figure below is out
of sample.

How a row is predicted (docs/method.md §6; the engine's Serving table for a scenario with the row's model, GPU, t,
precisions, s and o = sequence length − s, users = c):
- **TTFT** measured at c clients of a closed loop is compared as §14.4 says: a median with TTFT_med(c) (the
  steady-state request: dispatch, one prompt beside c − 1 decoders, half the loaded pass in flight), a mean or a
  statistic not stated with the closed-loop mean TTFT_c (the opening burst over R rounds included). Rows at c > 1 are
  kept apart below ("ttft under load (c > 1)"). A row whose c is over B_max has no prediction (the admission queue
  is not modelled); one that states no concurrency is compared with §6's idle TTFT.
- **TPOT / ITL** at c = 1 is compared with §6's TPOT(1); at c > 1 with §6's ITL(c) = cycle/o, which counts the
  prefill stalls a closed-loop benchmark's TPOT contains (§12.1).
- **Output tokens per second** is compared with §6's tokens/s per GPU at B = c, times the GPUs when the source gives
  a total; **requests per second** with B/cycle = tokens/s per GPU × GPUs / o. A run that states no concurrency (an
  offline throughput run at maximum load) is compared at B_max. An offline run that submits c requests at once is
  §6's cycle at B = c. Where c is over §6's B_max the comparison says so (the engine then queued or preempted).
- A row whose model, GPU or precision the Catalog lacks is kept, marked "not on Catalog" and not predicted; a row
  with expert parallelism or attention data parallelism (e > 1 or d_a > 1) is kept and marked "layout not
  expressible today". A model is mapped to a Catalog model only where its config.json has that model's
  shapes: Llama 3.3 70B → llama-3.1-70b, DeepSeek-R1 and R1-0528 → deepseek-v3.

What the generic row does not know, and so counts against today's method rather than being guessed: the KV
precision where the source does not state it (ModelOpt and AMD FP8 checkpoints may carry FP8 KV scales; bf16 is
taken), an engine's own memory fraction (TensorRT-LLM's runs used 0.90-0.95; the reserve stays 0.10), chunked
prefill and its token budget N, and the engine's efficiency (η_c, η_m and τ are today's defaults on every GPU and
engine: the coming engine priors are where they will differ).

## How the rows were chosen

Sources that publish their numbers as text (tables, or a benchmark's raw output file) with the layout and lengths
they ran: the TensorRT-LLM performance overviews (offline throughput at fixed ISL/OSL on H100, H200, B200 and
GB200); dstack's DeepSeek-R1 benchmark (closed-loop runs at c = 4 … 128 and offline batches on 8×H200 and 8×MI300X
with vLLM, SGLang and TensorRT-LLM, raw CSVs of SGLang's bench_serving and vLLM's benchmark_throughput); dstack's
Llama 3.1 405B FP8 offline batches on 8×H100 and 8×MI300X (vLLM) and its single-request runs of Llama 3.1 405B BF16
on 8×MI300X (vLLM and TGI); NVIDIA's NIM benchmarking page (Llama 3.3 70B FP8 on 2×H100 at c = 1 … 250, AIPerf);
Oracle Cloud's Llama 3.1 405B FP8 on 8×MI300X (vLLM batches of 1 … 256 and two offline runs). Every row of a table
was taken (no selection by agreement); left out were runs with prefix-cache hits, layouts the source does not give,
offline batches over 256 requests (the engine's cap on running sequences, not stated, then sets the concurrency) and
a TensorRT-LLM offline run on an engine built from another branch in BF16. Sources that give variable output lengths
(ShareGPT, or random prompts without a fixed output) were skipped: o would be a mean.
{rows} rows, {scored} predicted; GPUs: {gpus}; engines: {engines}. In {over} of the predicted rows c is above §6's
B_max at the generic row (column b_max of predictions.csv): there §6's figure at B = c assumes sequences that do not
fit, and the engine queued or preempted instead.

## Figures at today's defaults

Per metric:

{by_metric}

Per GPU × engine (all metrics):

{by_gpu_engine}

Per GPU × engine × metric:

{by_gpu_engine_metric}

## Figures at the engines row that applies, held out

Each row predicted at the engines row its engine, GPU and precision take (docs/method.md §14.3; engine_row in
predictions.csv), scored only on the rows that row was not fitted on. These are the figures the workbook's Serving
sheet and the HTML cite for the GPU × engine in use ("within ±15 % on … of … published … measurements").

{held_out}

In sample (the rows an engines row was fitted on, never counted above):

{in_sample}

## Rows not predicted

{reasons}

What the Catalog lacks for these rows (the GPUs and precisions to add):

{lacking}

## Sources

{sources}
"""


def figures(table: pd.DataFrame) -> dict[tuple[str, str], tuple]:
    """What the workbook and the HTML cite per Catalog GPU × engines-table engine: (words, rows held out, within
    ±15 %, within ±25 %, median ratio, rows fitted on). An engine of the table (vllm, trtllm, sglang): its
    measurements at the row that applies, held out; generic: every measurement on the GPU at the generic row."""
    found = {}
    scored = table[(table["status"] == SCORED) & (table["catalog_gpu"] != "")]
    for gpu, rows in scored.groupby("catalog_gpu", sort=True):
        name = rows["gpu"].iloc[0]
        groups = [(GENERIC, rows, "ratio", f"{name} measurements of every engine, at the generic row")]
        groups += [(engine, own, "ratio_at_engine_row", f"{name} {ENGINE_WORDS.get(engine, engine)} measurements")
                   for engine, own in rows.groupby("engine", sort=True) if engine in engine_ids(ENGINES)
                   and engine != GENERIC]
        for engine, group, ratio, words in groups:
            held = group[group["half"] == HELD_OUT] if engine != GENERIC else group
            off = (held[ratio] - 1).abs()
            found[(gpu, engine)] = (words, len(held), int((off <= WITHIN[0] + 1e-12).sum()),
                                    int((off <= WITHIN[1] + 1e-12).sum()),
                                    round(float(held[ratio].median()), 6) if len(held) else None,
                                    int((group["half"] == FITTED).sum()) if engine != GENERIC else 0)
    return found


def figures_module(table: pd.DataFrame) -> str:
    """planner/ledger_figures.py's text."""
    lines = [f"    {key!r}: {value!r}," for key, value in figures(table).items()]
    return FIGURES_MODULE.format(rows="\n".join(lines))


FIGURES_MODULE = '''"""The accuracy ledger's figures per Catalog GPU × engine (docs/accuracy.md), as the Catalog sheet's
ledger table, the Serving sheet and the HTML cite them. Generated by `python -m planner.accuracy`; do not edit by hand
(tests/test_accuracy.py fails when it is stale).

(GPU id, engine id) → (words, rows held out, within ±15 %, within ±25 %, median ratio, rows fitted on).
"""

LEDGER = {{
{rows}
}}
'''


def write(measurements_path: Path = MEASUREMENTS, predictions_path: Path = PREDICTIONS,
          report_path: Path = REPORT, figures_path: Path | None = FIGURES) -> pd.DataFrame:
    measurements = read_measurements(measurements_path)
    table = predictions(measurements)
    predictions_path.write_text(predictions_csv(table), encoding="utf-8")
    report_path.write_text(report(measurements, table), encoding="utf-8")
    if figures_path is not None:
        figures_path.write_text(figures_module(table), encoding="utf-8")
    return table


def predictions_csv(table: pd.DataFrame) -> str:
    return table.to_csv(index=False, float_format="%.6g", lineterminator="\n")


def main(argv: list[str] | None = None) -> int:
    """`python -m planner.accuracy [MEASUREMENTS.csv]`: the shipped ledger, or another file's, whose predictions.csv
    and accuracy.md are then written beside it."""
    args = sys.argv[1:] if argv is None else argv
    paths = (MEASUREMENTS, PREDICTIONS, REPORT, FIGURES)
    if args:  # another file's ledger: the shipped figures stay as they are
        given = Path(args[0])
        paths = (given, given.with_name("predictions.csv"), given.with_name("accuracy.md"), None)
    try:
        table = write(*paths)
    except (LedgerError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    scored = table[table["status"] == SCORED]
    print(f"{len(table)} measurements, {len(scored)} predicted: wrote {paths[1]} and {paths[2]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
