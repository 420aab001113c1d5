"""The Goodput sheet (docs/method.md §5): servers compared by cost per acceptable request; with benchmark logs, each
run's attainment, tail latencies and cost, and each benchmark's goodput. The Requests sheet, right after it, holds the
logs' runs and requests (one row each) with the per-request formulas: TPOT, acceptable under the SLO cells, and
TTFT and TPOT of completed requests ("" for a failed one, which PERCENTILE skips).

Runs and benchmarks are keyed by number, in column A (a run's number is its row on the Requests sheet's Runs
table). Per-run formulas count requests with COUNTIFS on the run number and take percentiles over the run's own block of
the Requests sheet, PERCENTILE(INDEX(col, first):INDEX(col, last), p), so no formula is an array formula. A run's
benchmark comes from the Runs table on Requests (runs_benchmark); its GPUs, standby GPUs and price from the
per-benchmark table (goodput_benchmark_gpus, …).
"""

from __future__ import annotations

from planner.engine.goodput import (HIGHEST_MEETS, NO_OTHER_SERVER, NO_RUN_MEETS, NO_SERVER, NONE_ACCEPTABLE,
                                    NONE_COMPLETED)
from planner.workbook import kit
from planner.workbook.kit import Check, Column, KeyResult, Row

SHEET = "Goodput"
REQUESTS_SHEET = "Requests"
COLUMN_WIDTH = 13

SERVERS = [
    Column("name", "Server", template=lambda i: f"=goodput_servers_{i + 1}_name", kind="text"),
    Column("cost_per_hour", "Cost per hour", template=lambda i: f"=goodput_servers_{i + 1}_cost_per_hour*fx_rate",
           kind="money"),  # typed in USD on Inputs: converted here, where it enters
    Column("completed_per_hour", "Completed requests per hour",
           template=lambda i: f"=goodput_servers_{i + 1}_completed_per_hour", kind="count"),
    Column("acceptable_per_hour", "Acceptable requests per hour",
           template=lambda i: f"=goodput_servers_{i + 1}_acceptable_per_hour", kind="count"),
    Column("cost_per_request", "Cost per request", template="={cost_per_hour}/{completed_per_hour}", kind="money5"),
    Column("cost_per_acceptable_request", "Cost per acceptable request",
           template=f'=IF({{acceptable_per_hour}}>0,{{cost_per_hour}}/{{acceptable_per_hour}},"{NONE_ACCEPTABLE}")',
           kind="money5"),
    Column("acceptable_share", "Acceptable share", template="={acceptable_per_hour}/{completed_per_hour}",
        kind="percent"),
]
_COSTS = "{cost_per_acceptable_request:range}"
CHEAPEST = [
    Row("cheapest_server", "Cheapest server per acceptable request",
        formula=f'=IF(COUNT({_COSTS})=0,"{NO_SERVER}",INDEX({{name:range}},MATCH(MIN({_COSTS}),{_COSTS},0)))',
        kind="text", unit="", note="The first of equals.", name="goodput_cheapest_server", bold=True, at="name"),
    Row("cheapest_cost_per_acceptable_request", "Its cost per acceptable request",
        formula=f'=IF(COUNT({_COSTS})=0,"{NO_SERVER}",MIN({_COSTS}))', kind="money5", unit="",
        name="goodput_cheapest_cost_per_acceptable_request", bold=True, at="cost_per_acceptable_request"),
    Row("next_cost_per_acceptable_request", "The next cheapest cost per acceptable request",
        formula=f'=IF(COUNT({_COSTS})=0,"{NO_SERVER}",IF(COUNT({_COSTS})=1,"{NO_OTHER_SERVER}",SMALL({_COSTS},2)))',
        kind="money5", unit="", name="goodput_next_cost_per_acceptable_request", at="cost_per_acceptable_request"),
    Row("cheapest_saving_share", "The cheapest costs less per acceptable request by",
        formula="=IF(ISNUMBER(goodput_next_cost_per_acceptable_request),IF(goodput_next_cost_per_acceptable_request>0,"
        "1-goodput_cheapest_cost_per_acceptable_request/goodput_next_cost_per_acceptable_request,0),"
        "goodput_next_cost_per_acceptable_request)", kind="percent", unit="",
        note="Than the next cheapest (0 when both are free).", name="goodput_cheapest_saving_share", bold=True,
        at="cost_per_acceptable_request"),
]

# Benchmark runs: one row per run (run i is the Requests sheet's run i) --------------------------------------------
RUNS = [
    Column("name", "Benchmark", template="=INDEX(runs_benchmark_name,{label})", kind="text"),
    Column("rate", "Request rate (req/s)", template="=INDEX(runs_rate,{label})", kind="decimal"),
    Column("duration_s", "Duration (s)", template="=INDEX(runs_duration_s,{label})", kind="tenths"),
    Column("sent", "Requests sent", template="=COUNTIF(requests_run,{label})", kind="count"),
    Column("completed", "Completed", template="=COUNTIFS(requests_run,{label},requests_failed,FALSE)", kind="count"),
    Column("acceptable", "Acceptable", template="=COUNTIFS(requests_run,{label},requests_acceptable,TRUE)",
           kind="count"),
    Column("attainment", "Attainment", template="={acceptable}/{sent}", kind="percent"),
    Column("attainment_target", "Attainment target", template="=goodput_attainment_target", kind="percent"),
    Column("meets_target", "Meets the target", template="={attainment}>=goodput_attainment_target", kind="bool",
        warn="false"),
    Column("highest_meeting", "Highest rate meeting it",
           template='=AND({meets_target},COUNTIFS(runs_benchmark,INDEX(runs_benchmark,{label}),runs_run,">"&{label},'
           "{meets_target:range},TRUE)=0)", kind="bool"),
]
_K = "{highest_meeting_run}"
BETWEEN_RUNS = "between two runs"  # how a goodput is found when one is: interpolated
BENCHMARKS = [
    Column("name", "Benchmark", template=lambda i: f"=goodput_benchmarks_{i + 1}_name", kind="text"),
    Column("gpus", "GPUs", template=lambda i: f"=goodput_benchmarks_{i + 1}_gpus", kind="count"),
    Column("standby_gpus", "Standby GPUs", template=lambda i: f"=goodput_benchmarks_{i + 1}_standby_gpus",
        kind="count"),
    Column("price_per_gpu_hour", "Price per GPU-hour",
           template=lambda i: f"=INDEX(catalog_gpu_price_per_hour,MATCH(goodput_benchmarks_{i + 1}_gpu,"
                              "catalog_gpu_ids,0))*fx_rate",
           kind="money"),  # the Catalog's USD price, converted here, where it enters
    Column("first_run", "First run", template="=MATCH({label},runs_benchmark,0)", kind="count"),
    Column("runs", "Runs", template="=COUNTIF(runs_benchmark,{label})", kind="count"),
    Column("last_run", "Last run", template="={first_run}+{runs}-1", kind="count"),
    Column("highest_meeting_run", "Highest run meeting the target",
           template="=SUMIFS(runs_run,runs_benchmark,{label},{highest_meeting:range},TRUE)", kind="count"),
    Column("goodput", "Goodput (req/s)",  # blank where no rate is found: the next column says why, in words
           template=f'=IF({_K}=0,"",IF({_K}={{last_run}},"",INDEX({{rate:range}},{_K})'
           f"+(INDEX({{attainment:range}},{_K})-goodput_attainment_target)/(INDEX({{attainment:range}},{_K})"
           f"-INDEX({{attainment:range}},{_K}+1))*(INDEX({{rate:range}},{_K}+1)-INDEX({{rate:range}},{_K}))))",
           kind="decimal"),
    Column("goodput_per_gpu", "Goodput per GPU (req/s)",
           template='=IF(ISNUMBER({goodput}),{goodput}/{gpus},"")', kind="decimal"),
    Column("goodput_found", "How the goodput is found",
           template=f'=IF({_K}=0,"{NO_RUN_MEETS}",IF({_K}={{last_run}},"{HIGHEST_MEETS}","{BETWEEN_RUNS}"))',
           kind="words"),
]
BENCHMARK_NAMES = ("gpus", "standby_gpus", "price_per_gpu_hour")  # named goodput_benchmark_<key>: runs read them


def _benchmark_values(bench: dict) -> dict:
    """A benchmark's cells: its goodput a number or blank, and in words how it was found (the engine says it in
    the goodput itself where no rate is found)."""
    found = isinstance(bench["goodput"], str)
    return {**bench, "goodput": "" if found else bench["goodput"],
            "goodput_per_gpu": "" if found else bench["goodput_per_gpu"],
            "goodput_found": bench["goodput"] if found else BETWEEN_RUNS}


def _percentile(column: str, level: float) -> str:
    block = f"INDEX({column},{{first_request}}):INDEX({column},{{last_request}})"
    return f'=IF(COUNT({block})=0,"{NONE_COMPLETED}",PERCENTILE({block},{level}))'


LATENCIES = [
    Column("first_request", "First request", template="=MATCH({label},requests_run,0)", kind="count"),
    Column("last_request", "Last request", template="={first_request}+COUNTIF(requests_run,{label})-1", kind="count"),
    *[Column(f"ttft_p{p}_ms", f"TTFT p{p} (ms)", template=_percentile("requests_completed_ttft_ms", p / 100),
      kind="ms")
      for p in (50, 90, 99)],
    Column("slo_ttft_ms", "TTFT SLO (ms)", template="=goodput_slo_ttft_ms", kind="ms"),
    *[Column(f"tpot_p{p}_ms", f"TPOT p{p} (ms)", template=_percentile("requests_completed_tpot_ms", p / 100),
      kind="ms")
      for p in (50, 90, 99)],
    Column("slo_tpot_ms", "TPOT SLO (ms)", template="=goodput_slo_tpot_ms", kind="ms"),
]
_OWN = "INDEX(runs_benchmark,{label})"


def _per_second(count: str) -> str:
    """A run's count (its column on the Runs table) per second of its duration."""
    return f"=INDEX({{{count}:range}},{{label}})/INDEX(runs_duration_s,{{label}})"


def _per_acceptable(acceptable: str, cost: str) -> str:
    """The run's cost per acceptable request or token: its words where none is acceptable."""
    return f'=IF({acceptable}>0,{cost},"{NONE_ACCEPTABLE}")'


COSTS = [
    Column("request_rate", "Completed per second", template=_per_second("completed"), kind="decimal"),
    Column("goodput_rate", "Acceptable per second", template=_per_second("acceptable"), kind="decimal"),
    Column("gpus", "GPUs", template=f"=INDEX(goodput_benchmark_gpus,{_OWN})", kind="count"),
    Column("standby_gpus", "Standby GPUs", template=f"=INDEX(goodput_benchmark_standby_gpus,{_OWN})", kind="count"),
    Column("price_per_gpu_hour", "Price per GPU-hour", template=f"=INDEX(goodput_benchmark_price_per_gpu_hour,{_OWN})",
           kind="money"),
    Column("cost", "Run cost, over its duration",
           template="=({gpus}+{standby_gpus})*{price_per_gpu_hour}*INDEX(runs_duration_s,{label})/seconds_per_hour",
           kind="money"),
    Column("cost_per_acceptable_request", "Cost per acceptable request", kind="money5", template=_per_acceptable(
        "INDEX({acceptable:range},{label})", "{cost}/INDEX({acceptable:range},{label})")),
    Column("acceptable_output_tokens", "Acceptable output tokens",
           template="=SUMIFS(requests_output_tokens,requests_run,{label},requests_acceptable,TRUE)", kind="count"),
    Column("cost_per_million_acceptable_output_tokens", "Cost per million acceptable output tokens", kind="money",
           template=_per_acceptable("{acceptable_output_tokens}", "{cost}/{acceptable_output_tokens}*per_million")),
]

COLUMNS = max(len(RUNS), len(BENCHMARKS), len(LATENCIES), len(COSTS))  # the sheet's value columns

# The Requests sheet: the logs' runs, then one row per request --------------------------------------------------
RUN_DATA = [("run", "Run", "count"), ("benchmark", "Benchmark no.", "count"), ("benchmark_name", "Benchmark", "text"),
            ("file", "File", "text"), ("format", "Format", "text"), ("rate", "Request rate (req/s)", "decimal"),
            ("duration_s", "Duration (s)", "tenths")]
REQUEST_DATA = [("run", "Run", "count"), ("input_tokens", "Input tokens", "count"),
                ("output_tokens", "Output tokens", "count"), ("ttft_ms", "TTFT (ms)", "ms"),
                ("latency_s", "Latency (s)", "decimal"), ("failed", "Failed", "bool")]
# Formula columns, over the data columns of the same row (letters as REQUEST_DATA places them: A run … F failed)
REQUEST_FORMULAS = [
    ("tpot_ms", "TPOT (ms)", "=IF(C{r}>1,(E{r}*1000-D{r})/(C{r}-1),0)", "ms"),
    ("acceptable", "Acceptable", "=AND(NOT(F{r}),D{r}<=goodput_slo_ttft_ms,G{r}<=goodput_slo_tpot_ms)", "bool"),
    ("completed_ttft_ms", "TTFT if completed (ms)", '=IF(F{r},"",D{r})', "ms"),
    ("completed_tpot_ms", "TPOT if completed (ms)", '=IF(F{r},"",G{r})', "ms"),
]


def write(book: kit.Book, results) -> kit.Sheet:
    table = results.goodput
    names = [s["name"] for s in table.servers] + [b["name"] for b in table.benchmarks]
    columns = COLUMNS if table.runs else len(SERVERS)  # without logs, the servers' table alone
    widths = [("", _name_width(names))] + [("", COLUMN_WIDTH)] * (columns - 2) + [("", 22 if table.runs else 13)]
    # B: names; the last (with logs): how a benchmark's goodput is found, in words
    sheet = book.sheet(SHEET, widths, note_width=30, keys=[column.key for column in SERVERS])
    sheet.title("Goodput and cost per acceptable request", "docs/method.md §5: what matters is the work that meets the "
                "service-level objective, per unit of cost.")

    sheet.section("Servers: cost per request and per acceptable request (the hourly figures on Inputs)")
    labels = [f"Server {i}" for i in range(1, len(table.servers) + 1)]
    sheet.records(labels, SERVERS, table.servers, label_header="Server")
    for key in ("completed_per_hour", "acceptable_per_hour"):
        book.define(f"goodput_server_{key}", SHEET, sheet.ref(key, "range", 0, 0))
    sheet.rows(CHEAPEST, table.scalars)
    _server_charts(book, sheet)

    if table.runs:
        _benchmark_tables(book, sheet, table)
        write_requests(book, table)
    return sheet


def _benchmark_tables(book: kit.Book, sheet: kit.Sheet, table) -> None:
    runs = [r["run"] for r in table.runs]  # numbers: the formulas read the run's number as {label}
    sheet.section("Benchmark runs: requests sent, completed and acceptable (TTFT and TPOT within the SLO on "
                  "Inputs)")
    sheet.records(runs, RUNS, table.runs, label_header="Run no. (Requests)")
    sheet.skip()
    sheet.section("Each benchmark's goodput: the highest request rate meeting the attainment target, interpolated "
                  "between runs (DistServe)")
    values = [_benchmark_values(b) for b in table.benchmarks]
    _, first, _ = sheet.records([b["benchmark"] for b in table.benchmarks], BENCHMARKS, values,
                                label_header="Benchmark no.")
    width = sheet.width_of(len(BENCHMARKS))
    for i, bench in enumerate(values):  # room for the words on how the goodput is found
        lines = kit.wrapped_lines(bench["goodput_found"], width * 1.2)
        if lines > 1:
            sheet.set_height(first + i, kit.DEFAULT_ROW * lines)
    for key in BENCHMARK_NAMES:  # at least two rows: Gnumeric's INDEX refuses a one-cell range (the next is blank)
        place = sheet.places[key]
        book.define(f"goodput_benchmark_{key}", SHEET, f"{kit.xl_rowcol_to_cell(place.row, place.col)}:"
                    f"{kit.xl_rowcol_to_cell(max(place.last_row, place.row + 1), place.col)}")
    _attainment_chart(book, sheet, table)
    sheet.skip()
    sheet.section("Tail latencies of completed requests against the SLO")
    sheet.records(runs, LATENCIES, table.runs, label_header="Run no.")
    for unit in ("ttft", "tpot"):
        _latency_chart(book, sheet, unit)
    sheet.skip()
    sheet.section("Rates and cost per run: the benchmark's GPUs and standby GPUs at its GPU's price")
    sheet.records(runs, COSTS, table.runs, label_header="Run no.")


def write_requests(book: kit.Book, table) -> kit.Sheet:
    """The Requests sheet: one row per request on the left, the runs read from the logs on the right, under one
    header row. Read from the logs and locked: to change them, change the logs and run planner again."""
    request_columns = len(REQUEST_DATA) + len(REQUEST_FORMULAS)
    runs_at = request_columns + 1  # one empty column between the two tables
    sheet = book.sheet(REQUESTS_SHEET, [("", COLUMN_WIDTH)] * (runs_at + len(RUN_DATA) - 1), label_width=9,
                       note_width=4, unit_width=4)
    sheet.title("Requests read from the benchmark logs", "Data from the logs, locked (run planner again on new "
                "logs); the four formula columns follow the SLO on Inputs. The runs are on the right.")
    styles = book.styles
    ws = sheet.ws
    sheet.set_width(request_columns, 3)
    sheet.set_width(runs_at + 1, 11)  # the benchmark's number
    sheet.set_width(runs_at + 2, _name_width([run["name"] for run in table.runs]))
    sheet.set_width(runs_at + 3, min(max([len(str(run["path"])) for run in table.runs] + [12]) * 1.05 + 1, 60))
    sheet.set_width(runs_at + 4, 9)  # the log's format
    labels = [label for _, label, _ in REQUEST_DATA] + [label for _, label, _, _ in REQUEST_FORMULAS] + [""] + \
        [label for _, label, _ in RUN_DATA]
    header = sheet.heading_row(labels, repeat=True)  # on every printed page
    ws.freeze_panes(header + 1, 1)
    first = header + 1

    requests = table.requests
    data = [requests[key].tolist() for key, _, _ in REQUEST_DATA]
    cached = [requests[key].tolist() for key, _, _, _ in REQUEST_FORMULAS]
    data_styles = [styles.value(kind) for _, _, kind in REQUEST_DATA]
    formula_styles = [styles.value(kind) for _, _, _, kind in REQUEST_FORMULAS]
    width = len(REQUEST_DATA)
    # every row's formulas read the same inputs (the SLO), so they share the first row's guard, found once
    needs = [book.needs_of(sheet.name, template.format(r=first + 1)) for _, _, template, _ in REQUEST_FORMULAS]
    for i in range(len(requests)):
        r = first + i
        for col in range(width):
            value = data[col][i]
            if isinstance(value, bool):
                ws.write_boolean(r, col, value, data_styles[col])
            else:
                ws.write_number(r, col, value, data_styles[col])
        for j, (_, _, template, _) in enumerate(REQUEST_FORMULAS):
            sheet.formula(r, width + j, template.format(r=r + 1), cached[j][i], formula_styles[j], needs=needs[j])
    _define_columns(book, "requests", [key for key, *_ in REQUEST_DATA + REQUEST_FORMULAS], first_col=0,
                    first=first, last=first + len(requests) - 1)

    for i, run in enumerate(table.runs):
        values = {"run": run["run"], "benchmark": run["benchmark"], "file": run["path"], "format": run["format"],
                  "rate": run["rate"], "duration_s": run["duration_s"]}
        for col, (key, _, kind) in enumerate(RUN_DATA, start=runs_at):
            if key == "benchmark_name":
                sheet.formula(first + i, col, f"=goodput_benchmarks_{run['benchmark']}_name", run["name"],
                              styles.value("text"))
            else:
                sheet.value_cell(first + i, col, values[key], styles.value(kind), None)
    _define_columns(book, "runs", [key for key, _, _ in RUN_DATA], first_col=runs_at, first=first,
                    last=first + len(table.runs) - 1)
    sheet.row_index = first + len(requests)
    return sheet


def _name_width(names) -> float:
    """A column wide enough for every name in it (within reason: a longer one is cut on screen, never on the
    Goodput sheet's charts, which read the cells)."""
    return min(max([len(str(name)) for name in names] + [14]) * 1.05 + 2, 42)


def _define_columns(book: kit.Book, prefix: str, keys: list[str], *, first_col: int, first: int, last: int) -> None:
    """Workbook names <prefix>_<key> over each column's rows, for the Goodput sheet's formulas; at least two rows,
    as Gnumeric's INDEX refuses a one-cell range (nothing stands below the Requests sheet's tables)."""
    last = max(last, first + 1)
    for col, key in enumerate(keys, start=first_col):
        book.define(f"{prefix}_{key}", REQUESTS_SHEET, f"{kit.xl_rowcol_to_cell(first, col)}:"
                                                        f"{kit.xl_rowcol_to_cell(last, col)}")


# Charts --------------------------------------------------------------------------------------------------------
def _server_charts(book: kit.Book, sheet: kit.Sheet) -> None:
    """Per server, clustered columns: a series per key, the servers' names as categories."""
    for keys, title, axis, number_format in (
            ((("completed_per_hour", "#A5A5A5"), ("acceptable_per_hour", "#4472C4")),
             "Completed against acceptable requests per hour", "Requests per hour", "#,##0"),
            ((("cost_per_request", "#A5A5A5"), ("cost_per_acceptable_request", "#4472C4")),
             "Cost per request and per acceptable request", "Cost per request", book.number_format("money5"))):
        sheet.column_chart([(sheet.heading_of(key), sheet.series("name"), sheet.series(key), colour)
                            for key, colour in keys], title=title, height=280,
                           y_axis={"name": axis, "num_format": number_format})


def _attainment_chart(book: kit.Book, sheet: kit.Sheet, table) -> None:
    """Attainment against request rate: a line per benchmark (named by the benchmark table's name cell), and the
    target as a dashed line."""
    chart = book.wb.add_chart({"type": "scatter", "subtype": "straight_with_markers"})
    rate, attainment, names = sheet.series("rate"), sheet.series("attainment"), sheet.series("name")
    colours = ["#4472C4", "#ED7D31", "#70AD47", "#7030A0", "#A5A5A5", "#FFC000"]
    for i, b in enumerate(table.benchmarks):
        top = rate[1] + b["first_run"] - 1
        bottom = top + b["runs"] - 1
        colour = colours[i % len(colours)]
        chart.add_series({"name": [sheet.name, names[1] + i, names[2]],
                          "categories": [sheet.name, top, rate[2], bottom, rate[2]],
                          "values": [sheet.name, top, attainment[2], bottom, attainment[2]],
                          "line": {"color": colour, "width": 2},
                          "marker": {"type": "circle", "fill": {"color": colour}, "border": {"color": colour}}})
    chart.add_series({"name": sheet.heading_of("attainment_target"), "categories": rate,
                      "values": sheet.series("attainment_target"),
                      "line": {"color": kit.WARNING_RED, "dash_type": "dash", "width": 1.5},
                      "marker": {"type": "none"}})
    sheet.chart(chart, title="Attainment against request rate", legend="bottom",
                x_axis={"name": "Request rate (requests per second)", "min": 0, "major_gridlines": {"visible": True}},
                y_axis={"name": "Attainment", "num_format": "0%", "min": 0, "max": 1})


def _latency_chart(book: kit.Book, sheet: kit.Sheet, unit: str) -> None:
    """p50, p90 and p99 per run as columns, the SLO as a dashed line."""
    name, slo = unit.upper(), f"slo_{unit}_ms"

    def slo_line():
        line = book.wb.add_chart({"type": "line"})
        line.add_series({"name": sheet.heading_of(slo), "categories": sheet.labels_of(slo), "values": sheet.series(slo),
                         "line": {"color": kit.WARNING_RED, "dash_type": "dash", "width": 1.5},
                         "marker": {"type": "none"}})
        return line

    sheet.column_chart([(sheet.heading_of(key), sheet.labels_of(key), sheet.series(key), colour) for key, colour in
                        ((f"{unit}_p50_ms", "#9DC3E6"), (f"{unit}_p90_ms", "#4472C4"), (f"{unit}_p99_ms", "#1F3864"))],
                       title=f"{name} of completed requests against the SLO", over=slo_line, height=280,
                       y_axis={"name": f"{name} (ms)", "num_format": "#,##0"})


KEY_RESULTS = [
    KeyResult("goodput_cheapest_server", "Goodput's example servers (Goodput's inputs, not the plan's): the cheapest "
              "per acceptable request", kind="text", what_if=True),
    KeyResult("goodput_cheapest_cost_per_acceptable_request", "… its cost per acceptable request", kind="money5",
              unit="", what_if=True),
    KeyResult("goodput_cheapest_saving_share", "… its saving per acceptable request against the next cheapest "
              "example server", kind="percent", unit="", what_if=True),
]

CHECKS = [
    Check("goodput_servers_acceptable_within_completed", "Servers: acceptable requests per hour at most completed",
          formula="SUMPRODUCT((goodput_server_acceptable_per_hour>goodput_server_completed_per_hour)*1)=0",
          note="A request that meets the SLO was completed.", about=("goodput_servers_",)),
]
