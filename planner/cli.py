"""The command line: planner run | batch | verify | import | audit | schema | catalog | model (README.md,
"Commands").

Exit codes: 0 success, 1 a check failed, 2 bad usage or bad input. Each command imports what it needs when it runs,
so `planner --help` pays for click alone.
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import sys
from pathlib import Path

import click

from planner import __version__

MAX_PROBLEMS_SHOWN = 20


def _fail_input(problems: list[str]) -> None:
    """Print the first MAX_PROBLEMS_SHOWN problems, then how many more there are, and exit 2."""
    for line in problems[:MAX_PROBLEMS_SHOWN]:
        click.echo(f"error: {line}", err=True)
    if len(problems) > MAX_PROBLEMS_SHOWN:
        click.echo(f"error: … and {len(problems) - MAX_PROBLEMS_SHOWN:,} more problems", err=True)
    sys.exit(2)


COMMAND_LINE = "command_line"  # in the context's obj: the command runs as the process's command line


def _finished() -> None:
    """A command line's `planner run` ends here once its files are written and closed and its lines printed: the
    process exits without the interpreter's teardown, which frees every object of numpy, pydantic and the planner
    one by one (a sixteenth of the run's CPU, benchmarks/README.md) and runs nothing `run` needs (it registers no
    exit handler). Called in-process (main with a list of arguments), it returns as any command does."""
    if not (click.get_current_context().obj or {}).get(COMMAND_LINE):
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:  # a closed pipe: the usual way out says so
        return
    os._exit(0)


@contextlib.contextmanager
def _importing():
    """The planner's modules imported without the cyclic garbage collector, then frozen out of its reach: they
    live as long as the process, and the collections their objects set off, then scanned again at every full
    collection, cost `planner run` a tenth of its CPU (benchmarks/README.md). The collector runs as usual after."""
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.enable()


@contextlib.contextmanager
def _collecting_rarely():
    """The cyclic garbage collector run every 200,000 new objects rather than every 700 while a run computes and
    writes (mypy's setting): a run leaves little cyclic garbage (its peak memory is the same), and the collections
    cost `planner run` of the default scenario a twentieth of its CPU (benchmarks/README.md). Restored after."""
    before = gc.get_threshold()
    gc.set_threshold(200_000, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


class _Commands(click.Group):
    """The commands, each ended by Ctrl-C or SIGTERM with one line and exit 130 or 143 (planner/signals.py): every
    set of files being written is left whole or as it was, and no temporary file is left."""

    def main(self, args=None, *rest, **kwargs):
        from planner import signals

        signals.stop_on_signals()  # kept after the command: a signal then still ends the process as one
        if args is None:  # the process's own command line (not a caller's list: click's test runner, a script)
            kwargs.setdefault("obj", {})[COMMAND_LINE] = True
            # numpy's OpenBLAS threads, started when numpy is imported, do nothing for the planner's small arrays
            # (it multiplies no matrices) and cost `planner run` a tenth of its CPU (benchmarks/README.md); a value
            # the user set stands. Set before any command imports numpy.
            os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
        return super().main(args, *rest, **kwargs)

    def invoke(self, ctx):
        from planner.signals import Stopped

        try:
            return super().invoke(ctx)
        except Stopped as stop:
            click.echo(f"planner: stopped by {stop.name}: the files written before are complete, none is "
                       f"half-written and no temporary file is left", err=True)
            sys.exit(stop.code)


@click.group(cls=_Commands, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="planner")
def main() -> None:
    """Plan the memory, hours and cost of training and serving large language models: a scenario file becomes a
    live Excel workbook, an HTML summary and JSON results."""


@main.command()
@click.argument("scenario", required=False, type=click.Path(dir_okay=False, path_type=Path))
@click.option("-o", "--output", "out_dir", default="output", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Folder for <slug>.xlsx, .html and .json.")
def run(scenario: Path | None, out_dir: Path) -> None:
    """Write the workbook, HTML summary and JSON results for SCENARIO (default: the built-in default scenario)."""
    with _importing():
        from planner import progress
        from planner.scenario import DEFAULT, ScenarioError, load_scenario

    with progress.Bars() as bars:  # long work (thousands of logs, the layout search) said on a terminal
        with _importing():
            try:
                loaded = load_scenario(scenario) if scenario else DEFAULT
            except ScenarioError as exc:
                bars.close()
                _fail_input(exc.problems)
            from planner.output import OutputError, write_outputs  # after validation: a bad file fails fast

        if loaded.search is not None and progress.wanted():
            from planner.engine import layouts

            bars.totals[layouts.SEARCHING] = layouts.run_size(loaded)
        try:
            with _collecting_rarely():
                written = write_outputs(loaded, out_dir)
        except (OutputError, ScenarioError) as exc:  # ScenarioError: what only computing or the workbook finds
            bars.close()
            _fail_input([str(exc)] if isinstance(exc, OutputError) else exc.problems)
    for path in written.values():
        click.echo(str(path))
    if loaded.sweep:
        count = len(loaded.variants())
        click.echo(f"{scenario}: its sweep has {count:,} variant{'s' if count != 1 else ''}; this wrote the scenario "
                   f"without them. `planner batch {scenario}` writes every variant.", err=True)
    _finished()


@main.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("-o", "--output", "out_dir", default="output", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Folder for every scenario's files, index.html "
              "and summary.xlsx.")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None,
              help="Processes to write with [default: the machine's cores].")
@click.option("--date", "date", type=click.DateTime(["%Y-%m-%d"]), default=None,
              help="The generation date shown in every file [default: today]; fixed, the same batch gives the same "
                   "files.")
@click.option("--scheduler", default=None, metavar="ADDRESS|local[:N]",
              help="Run each scenario as a task on a Dask cluster: the scheduler's address (tcp://host:8786), or "
                   "local:N for a LocalCluster of N worker processes on this machine. Needs pip install "
                   "'planner[dask]'.")
@click.option("--resume", is_flag=True, help="Keep each scenario whose three files are in the folder and were "
              "written from the same scenario by the same planner version (its JSON says so); write the rest.")
@click.option("--yes", is_flag=True, help="Write a batch of more than 100,000 scenarios (up to Excel's 1,048,575 "
              "rows in summary.xlsx).")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar.")
def batch(paths: tuple[str, ...], out_dir: Path, jobs: int | None, date, scheduler: str | None, resume: bool,
          yes: bool, quiet: bool) -> None:
    """Write every scenario in PATHS (files, folders of *.yaml, glob patterns; sweeps expanded), then index.html
    and summary.xlsx. A failing scenario is reported and the rest go on; exit 1 if any failed."""
    from planner.batch import run_batch
    from planner.output import OutputError
    from planner.scenario.errors import cut

    if scheduler is not None and jobs is not None:
        _fail_input(["-j and --scheduler: -j is this machine's processes, --scheduler a Dask cluster's workers "
                     "(local:N for N here): give one"])
    try:
        outcomes = run_batch(list(paths), out_dir, jobs=jobs, date=date.date() if date else None,
                             progress=not quiet, scheduler=scheduler, resume=resume, yes=yes)
    except OutputError as exc:
        _fail_input([str(exc)])
    for outcome in outcomes:
        if outcome.renamed:
            click.echo(f"renamed: {outcome.source}: {cut(outcome.name)} is written as {outcome.slug}.xlsx, .html and "
                       f".json: {outcome.renamed}")
    failed = [o for o in outcomes if not o.ok]
    for outcome in failed:
        click.echo(f"FAILED {outcome.source}: {outcome.error}", err=True)
    kept = sum(o.resumed for o in outcomes)
    click.echo(f"{len(outcomes) - len(failed)} of {len(outcomes)} scenarios written to {out_dir}"
               + (f" ({kept} kept as they were: --resume)" if kept else "")
               + f"; {out_dir / 'index.html'}, {out_dir / 'summary.xlsx'}")
    sys.exit(1 if failed else 0)


APP = click.option("--app", "app_name", type=click.Choice(["libreoffice", "gnumeric"]), default="libreoffice",
                   show_default=True, help="The spreadsheet application that recalculates the workbooks.")


def _recalculating(app, paths: list[Path]):
    """Say on stderr what the spreadsheet application is doing: a line, then a line per workbook as it is done (a
    progress bar for several when stderr is a terminal); returns the progress callback and a function that ends
    the bar."""
    count = len(paths)
    if count == 1:
        click.echo(f"planner: recalculating {paths[0]} in {app.name}", err=True)
        return None, lambda: None
    click.echo(f"planner: recalculating {count} workbooks in {app.name}", err=True)
    if sys.stderr.isatty():
        from tqdm import tqdm

        bar = tqdm(total=count, desc=f"recalculating in {app.name}", unit="workbook", file=sys.stderr)
        return (lambda path: bar.update(1)), bar.close
    return (lambda path: click.echo(f"planner: {path} recalculated", err=True)), lambda: None


def _run_audit(paths: list[Path], app_name: str | None) -> list:
    """audit.audit with what it is doing said on stderr; exits 2 when the application is missing or stalls."""
    from planner import recalc
    from planner.audit import audit as audit_all

    if app_name is None:
        return audit_all(paths, app=None)
    app = recalc.application(app_name)
    try:
        app.require()
        progress, finish = _recalculating(app, paths)
        try:
            return audit_all(paths, app=app, progress=progress)
        finally:
            finish()
    except recalc.RecalcError as exc:
        _fail_input([str(exc)])
    finally:
        app.close()


@main.command()
@click.argument("workbooks", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@APP
def verify(workbooks: tuple[Path, ...], app_name: str) -> None:
    """Recalculate WORKBOOKS in LibreOffice Calc (or Gnumeric) and compare every formula cell with the engine; a
    formula overwritten or changed, a stale cached result or a missing sheet fails too. A batch's summary.xlsx is
    skipped. Exit 1 when any file fails, 2 when any cannot be read."""
    from planner.audit import plural

    reports = _run_audit(list(workbooks), app_name)
    for report in reports:
        if report.skipped:
            click.echo(f"{report.path}: skipped: {report.skipped}")
        elif report.ok:
            click.echo(f"{report.path}: OK, {plural(report.checked, 'formula cell')} equal the engine")
        elif report.error:
            click.echo(f"{report.path}: FAILED: {report.error}")
        else:
            for finding in report.findings[:MAX_PROBLEMS_SHOWN]:
                click.echo(f"{report.path}: {finding}")
            click.echo(f"{report.path}: FAILED: {plural(len(report.findings), 'problem')} in "
                       f"{plural(report.checked, 'formula cell')} (planner audit {report.path} explains each)")
    checked = [r for r in reports if not r.skipped]
    sys.exit(2 if any(r.error for r in checked) else 0 if all(r.ok for r in checked) else 1)


@main.command()
@click.argument("workbook", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--no-recalc", is_flag=True, help="Skip the recalculation (the other checks still run).")
@APP
def audit(workbook: Path, no_recalc: bool, app_name: str) -> None:
    """Say whether WORKBOOK is still the planner's: inputs outside their limits, formulas overwritten or changed,
    error values, cached results missing or stale, and results that differ from the engine after a recalculation in
    LibreOffice (or Gnumeric), each with its cell. Exit 1 when anything is wrong, 2 when the file cannot be read."""
    report = _run_audit([workbook], None if no_recalc else app_name)[0]
    if report.error:
        _fail_input([f"{workbook}: {report.error}"])
    click.echo(report.text())
    sys.exit(0 if report.ok or report.skipped else 1)


@main.command(name="import")
@click.argument("workbook", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("-o", "--output", "target", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="The scenario file to write [default: print it]. A workbook's benchmark requests are written "
                   "beside it, as <name>.run-<n>.json.")
@click.option("--take-cached", is_flag=True, help="Import a workbook that is no longer the planner's as it stands: "
              "an input cell holding a formula gives its cached value; VBA, external links and added or hidden "
              "sheets are ignored (each said on stderr). A defined name moved away from its input is refused even so.")
def import_(workbook: Path, target: Path | None, take_cached: bool) -> None:
    """Read WORKBOOK's input cells, Catalog and benchmark requests (as finance left them) into a scenario file that
    `planner run` turns back into the same workbook. A workbook whose inputs hold formulas, whose defined names
    moved, or that holds VBA, external links or sheets the planner does not write is refused (exit 2), unless
    --take-cached."""
    from planner import xlsx
    from planner.audit import IMPORT_REFUSES, inspect
    from planner.recalc import WorkbookError, canary
    from planner.roundtrip import scenario_yaml, workbook_data
    from planner.scenario import ScenarioError

    if target is not None:  # before the workbook is read: a FIFO, a device, a link or the workbook itself is refused
        from planner.output import OutputError, check_targets

        try:
            check_targets(target.parent, [target.name], [workbook])
        except OutputError as exc:
            _fail_input([str(exc)])
    try:
        book = xlsx.read(workbook)
        canary(book)
        scenario = workbook_data(book).scenario()
        report, _ = inspect(workbook, book)
    except WorkbookError as exc:
        _fail_input([f"{workbook}: {exc}"])
    except ScenarioError as exc:
        _fail_input(exc.problems)
    except (OSError, KeyError, ValueError) as exc:
        _fail_input([f"{workbook}: not a planner workbook, or a damaged one: {exc}"])
    if report.error:
        _fail_input([f"{workbook}: {report.error}"])
    refused = [f for f in report.findings if f.kind in IMPORT_REFUSES and not (take_cached and f.kind != "name")
               and not (f.kind == "sheet" and f.message == "the sheet is missing")]
    if refused:
        flag = "" if all(f.kind == "name" for f in refused) else " (or --take-cached to import it as it stands)"
        _fail_input([f"{workbook}: {f}: not imported{flag}" for f in refused])
    for finding in report.findings:
        if finding.kind == "sheet" and finding.message == "the sheet is missing":  # no input on it: said, not refused
            click.echo(f"planner: {workbook}: {finding} (`planner run` on the scenario writes it again)", err=True)
        elif finding.kind in IMPORT_REFUSES and finding.kind != "name" and take_cached:
            click.echo(f"planner: {workbook}: {finding} (--take-cached: imported as it stands)", err=True)
    if target is None:
        try:
            text, _ = scenario_yaml(scenario)
        except ValueError as exc:
            _fail_input([f"{workbook}: {exc} (-o FILE)"])
        click.echo(text, nl=False)
        return
    from planner.output import OutputError, write_files

    text, files = scenario_yaml(scenario, target.stem)
    files = {**files, target.name: text}
    try:
        write_files(target.parent, target.stem, {name: text.encode() for name, text in files.items()},
                    inputs=[workbook])
    except OutputError as exc:
        _fail_input([str(exc)])
    for name in files:
        click.echo(str(target.parent / name))


@main.command()
def schema() -> None:
    """Print the scenario file's JSON schema."""
    from planner.scenario import Scenario

    click.echo(json.dumps(Scenario.model_json_schema(), indent=2))


@main.command(name="catalog")
def list_catalog() -> None:
    """List the catalog's models, GPUs, precisions, strategies, presets and profiles, every field of each."""
    from planner import shipped as catalog
    from planner.model import fields

    for title, entries, declared in (("Models", catalog.MODELS, fields.MODEL), ("GPUs", catalog.GPUS, fields.GPU),
                                     ("Precisions", catalog.PRECISIONS, fields.PRECISION)):
        click.echo(f"{title} ({', '.join(f.key + (f' ({f.unit})' if f.unit else '') for f in declared)})")
        for entry in entries.values():
            click.echo(f"  {entry.id}: " + ", ".join(f"{f.key}={_shown(getattr(entry, f.key))}" for f in declared
                                                      if getattr(entry, f.key) not in (None, f.default)
                                                      or not f.sheet_blank))
    click.echo("Training strategies (ZeRO stage): " + ", ".join(f"{k} ({v})" for k, v in catalog.STRATEGIES.items())
               + "; fsdp = zero3")
    click.echo("Traffic presets (tokens per day): " + ", ".join(f"{k} {v:g}"
                                                                 for k, v in catalog.TRAFFIC_PRESETS.items()))
    click.echo("Demand profiles (24 hourly fractions of peak): " + ", ".join(catalog.PROFILES))


def _shown(value) -> str:
    """A Catalog value as `planner catalog` prints it: counts with separators, flags in lower case."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"
    return "none" if value is None else str(value)


@main.command(name="model")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
def model_entry(files: tuple[Path, ...]) -> None:
    """Read each FILE, a Hugging Face config.json (docs/method.md §8), and print it as a Catalog entry ready to
    paste under `catalog.models:`, with Ψ, Ψ_active and KV bytes per token. Nothing is downloaded."""
    from planner.model_config import ConfigFileError, catalog_entry_yaml, read_config, shipped_differences

    models, problems = [], []
    for path in files:
        try:
            models.append(read_config(path))
        except ConfigFileError as exc:
            problems += exc.problems
    problems += _same_ids(models)
    if problems:
        _fail_input(problems)
    for model in models:
        if changed := shipped_differences(model):
            click.echo(f"note: {model.source}: {model.id} is a shipped model; pasting this entry replaces its "
                       f"{', '.join(changed)}", err=True)
    click.echo("# read from config.json: paste under `catalog:` in a scenario file\nmodels:")
    click.echo("\n".join(catalog_entry_yaml(model, indent=2) for model in models), nl=False)


def _same_ids(models: list) -> list[str]:
    """Two files that make one Catalog id (the same file twice, or two folders of one name: ids are folder names,
    lower case), each named: a scenario holds one entry per id."""
    first: dict[str, object] = {}
    problems = []
    for model in models:
        other = first.setdefault(model.id, model)
        if other is not model:
            same = Path(other.source).resolve() == Path(model.source).resolve()
            problems.append(f"{model.source}: the id {model.id} again ({'the same file as' if same else 'as'} "
                            f"{other.source}): each entry needs its own id; give each file once, or rename a folder")
    return problems


if __name__ == "__main__":
    main()
