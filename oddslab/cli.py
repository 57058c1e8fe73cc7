"""The ``oddslab`` command line: simulate, compare, roll, show, warmup, examples.

Thin: heavy imports (numba kernels, matplotlib, pandas) happen inside the commands that
need them, so ``oddslab --help`` and a table-printing run start fast. User mistakes end in
one ``error: ...`` line and exit code 2; Ctrl-C prints what was done and exits 130.
"""

from __future__ import annotations

import functools
import gc
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from oddslab import cli_questions as q
from oddslab.cli_common import MAX_TRIALS, McOpt, parse_trials  # noqa: F401 (MAX_TRIALS: tests)
from oddslab.cli_common import SCENARIO_HELP as _SCENARIO_HELP
from oddslab.cli_common import check_plot as _check_plot
from oddslab.cli_common import plot_single as _plot_single
from oddslab.cli_common import save_plot as _save

app = typer.Typer(
    name="oddslab",
    help="Monte Carlo and exact combat odds for tabletop wargames.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def _version(value: bool) -> None:
    if value:
        from oddslab import __version__

        typer.echo(f"oddslab {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            callback=_version,
            is_eager=True,
            metavar="",
            help="Print the version and exit.",
        ),
    ] = False,
) -> None:
    """Monte Carlo and exact combat odds for tabletop wargames."""


TrialsOpt = Annotated[
    int | None,
    typer.Option(
        "--trials",
        "-n",
        parser=parse_trials,
        metavar="N",
        show_default=False,
        help="Number of trials, 1 to 1e10; 1e6 and 1_000_000 work too (default: the "
        "scenario's, else 1,000,000).",
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed",
        "-s",
        min=0,
        metavar="SEED",
        help="Master seed, a whole number (default: the scenario's, else random; printed).",
    ),
]
PlotOpt = Annotated[
    Path | None,
    typer.Option(
        "--plot",
        "-p",
        metavar="FILE",
        help="Write a plot here (.png, .pdf, .svg...; no extension: .png). Checked before running.",
    ),
]
StatOpt = Annotated[
    str | None,
    typer.Option(
        "--stat",
        metavar="NAME",
        help="Statistic to tabulate as P(>= k) and plot (default: the one a player asks about).",
    ),
]
FormatOpt = Annotated[
    Format,
    typer.Option("--format", "-f", metavar="table|csv|json", help="Output format."),
]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def _interruptible(fn):
    """Ctrl-C outside a simulation (loading, printing, plotting) exits 130, no traceback."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except KeyboardInterrupt:
            typer.echo("interrupted (Ctrl-C)", err=True)
            raise typer.Exit(code=130) from None

    return wrapper


def _load(path: Path, target: dict | None = None):
    from oddslab.scenario import ScenarioError, from_dict, load, read_toml

    try:
        if target is None:
            return load(path)
        data = read_toml(path)
        key = next((k for k in ("target", "defender") if k in data), "target")
        data[key] = target
        return from_dict(data, source=str(path))
    except ScenarioError as exc:
        raise _fail(str(exc)) from None


def _main_stat(outcome, stat: str | None) -> str:
    names = outcome.stat_names
    if stat is not None:
        if stat not in names:
            raise _fail(f"--stat: no statistic '{stat}'; choose from {', '.join(names)}")
        return stat
    return outcome.primary_stat()


def _say_compiling(ruleset: str) -> None:
    typer.echo(f"compiling the {ruleset} kernels (first run only)…", err=True)


def _run(scenario, trials, seed, precision, exact: bool, ask=None):
    from oddslab.engine import resolved_inputs, simulate

    if exact:
        from oddslab.exact import exact as exact_outcome

        try:
            out = exact_outcome(scenario)
        except (NotImplementedError, ValueError) as exc:
            raise _fail(str(exc)) from None
        out.resolved = resolved_inputs(scenario)
        return out
    from oddslab._report import progress_runner

    callback, close = progress_runner()
    try:
        return simulate(
            scenario,
            trials=trials,
            seed=seed,
            precision=precision,
            progress=callback,
            on_compile=_say_compiling,
            progress_every=0.25,
            **(ask.simulate_kwargs() if ask is not None else {}),
        )
    except ValueError as exc:
        raise _fail(str(exc)) from None
    finally:
        close()


def _emit(outcome, fmt: Format, stat: str, ask=None) -> None:
    from oddslab import _report

    if outcome.interrupted and not outcome.exact and not outcome.trials:
        return  # Ctrl-C before the first batch: nothing to show (_finish says so)

    if fmt is Format.csv:
        typer.echo(outcome.to_csv(), nl=False)
    elif fmt is Format.json:
        typer.echo(outcome.to_json())
    else:
        con = _report.console()
        _report.print_resolved(outcome.resolved, con)
        _report.print_outcome(outcome, stat, con)
        if ask is not None:
            from oddslab.cli_questions import emit_ask

            emit_ask(outcome, ask, con)
    if fmt is not Format.table:
        note = _report.precision_note(outcome)
        if note:
            typer.echo(f"note: {note}", err=True)


def _finish(outcome) -> None:
    if outcome.interrupted:
        typer.echo(
            f"interrupted (Ctrl-C) after {outcome.trials:,} trials: partial result", err=True
        )
        raise typer.Exit(code=130)


@app.command()
@_interruptible
def simulate(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help=_SCENARIO_HELP)],
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    precision: Annotated[
        float | None,
        typer.Option(
            metavar="P",
            help="Stop when every headline probability's 95% half-width is below P (e.g. 0.001); "
            "--trials is then the ceiling (default 100,000,000).",
        ),
    ] = None,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact",
            metavar="",
            help="Exact distributions only, of the statistics that have one (the default "
            "when every statistic has one).",
        ),
    ] = False,
    mc: McOpt = False,
    fmt: FormatOpt = Format.table,
    plot: PlotOpt = None,
    stat: StatOpt = None,
    event: q.EventOpt = None,
    joint: q.JointOpt = None,
    joint_plot: q.JointPlotOpt = None,
    records: q.RecordsOpt = None,
    record_trials: q.RecordTrialsOpt = None,
) -> None:
    """One scenario file: the inputs as read, then its outcome distribution (exact when
    every statistic has an exact form, else simulated; the inputs say which and why);
    with --event, --joint and --records, questions that join statistics."""
    plot = _check_plot(plot)
    if exact and mc:
        raise _fail("--exact and --mc exclude each other")
    if exact and (trials is not None or seed is not None or precision is not None):
        raise _fail("--exact takes no --trials, --seed or --precision (it is not a simulation)")
    sc = _load(scenario)
    ask = q.check_ask(sc, event, joint, joint_plot, records, record_trials, trials)
    from oddslab._answer import answer

    try:
        outcome = answer(
            sc, trials, seed, precision, exact, mc, run=functools.partial(_run, ask=ask), ask=ask
        )
    except ValueError as exc:
        raise _fail(str(exc)) from None
    main = _main_stat(outcome, stat)
    _emit(outcome, fmt, main, ask)
    if plot is not None and (outcome.trials or outcome.exact):
        _plot_single(outcome, main, plot)
    if outcome.trials or outcome.exact:
        q.finish_ask(outcome, ask)
    _finish(outcome)


@app.command()
@_interruptible
def show(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help=_SCENARIO_HELP)],
    fmt: FormatOpt = Format.table,
) -> None:
    """Print the scenario's inputs as the program reads them (defaults filled in, rolls
    derived), without running it."""
    from oddslab._report import run_settings
    from oddslab.engine import resolved_inputs
    from oddslab.libraries import entry_notes

    sc = _load(scenario)
    resolved = resolved_inputs(sc)
    if notes := entry_notes(scenario):  # what an imported library entry could not model
        resolved = {**(resolved or {}), "not modelled (library entries)": notes}
    resolved = {**(resolved or {}), **q.stat_section(sc)}
    run = run_settings(sc)
    if fmt is Format.json:
        import json

        typer.echo(json.dumps({"run": run, "resolved": resolved}, indent=2, default=str))
    elif fmt is Format.csv:
        from oddslab.outcome import rows_to_csv

        rows = [("run", k, v) for k, v in run.items()]
        rows += [(sec, k, v) for sec, items in (resolved or {}).items() for k, v in items.items()]
        typer.echo(rows_to_csv(("section", "key", "value"), rows), nl=False)
    else:
        from oddslab import _report

        con = _report.console()
        _report.print_resolved({"run": run, **(resolved or {})}, con, title=str(run["name"]))
        if resolved is None:
            con.print("(this ruleset does not list its resolved inputs yet)")


@app.command()
@_interruptible
def compare(
    scenarios: Annotated[
        list[Path],
        typer.Argument(metavar="SCENARIO...", help="Two or more scenario files (same target)."),
    ],
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    target: Annotated[
        Path | None,
        typer.Option(
            "--target",
            "-t",
            metavar="FILE",
            help="A TOML table used as every scenario's target (it replaces each file's "
            "[target]; it may say use = ...), or a unit library entry LIBRARY.toml:ENTRY.",
        ),
    ] = None,
    plot: PlotOpt = None,
    stat: StatOpt = None,
    fmt: FormatOpt = Format.table,
    mc: McOpt = False,
    event: q.EventOpt = None,
) -> None:
    """Run several scenarios with the same trials and seed and show them side by side, each
    with its standard error, and its difference from the first with a 95% interval (exact,
    without sampling error, when every scenario's statistics all have an exact form)."""
    plot = _check_plot(plot)
    if len(scenarios) < 2:
        raise _fail("compare needs at least two scenario files")
    shared = None if target is None else q.read_target(target)
    loaded = [_load(p, shared) for p in scenarios]
    asks = [q.check_ask(sc, event, None, trials=trials) for sc in loaded]
    if shared is None:
        targets = [getattr(sc, "target", None) for sc in loaded]
        if any(t is not None and t != targets[0] for t in targets[1:]):
            typer.echo(
                "note: the scenarios' targets differ; the comparison mixes attackers and "
                "targets (use --target FILE to give them one)",
                err=True,
            )
    from oddslab import _answer as ans

    outcomes, why = ans.compare_exact(loaded, simulate=mc or trials is not None or seed is not None)
    outcomes, why = q.exact_asks(loaded, outcomes, asks, why)
    for sc, ask in zip(loaded[len(outcomes) :], asks[len(outcomes) :], strict=True):
        outcomes.append(_run(sc, trials, seed, None, False, ask))  # Ctrl-C stops them all
        ans.note(outcomes[-1], why[len(outcomes) - 1])
        if outcomes[-1].interrupted:
            break
    if len(outcomes) < len(loaded):
        typer.echo(
            f"interrupted (Ctrl-C) during scenario {len(outcomes)} of {len(loaded)}: "
            "comparing the ones run",
            err=True,
        )
        scenarios = scenarios[: len(outcomes)]
        if len(outcomes) < 2 or not outcomes[-1].trials:
            raise typer.Exit(code=130)
    main = _main_stat(outcomes[0], stat)
    for o, p in zip(outcomes, scenarios, strict=True):
        if main not in o.stat_names:
            raise _fail(f"{p}: has no statistic '{main}' to compare (use --stat)")
    from oddslab import _report

    names = _report.unique_names(
        [o.name or p.stem for o, p in zip(outcomes, scenarios, strict=True)]
    )

    rows = _report.compare_rows(outcomes)
    if fmt is Format.csv:
        typer.echo(_report.compare_csv(names, scenarios, rows), nl=False)
    elif fmt is Format.json:
        typer.echo(_report.compare_json(names, scenarios, outcomes, rows))
    else:
        con = _report.console()
        for o, n in zip(outcomes, names, strict=True):
            _report.print_resolved(o.resolved, con, title=f"{n}: resolved inputs")
        _report.print_compare(outcomes, names, rows, con)
    if plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from oddslab.plotting import plot_compare

        _save(plot_compare(outcomes, main, labels=names), plot)
    for o in outcomes:
        _finish(o)


@app.command()
@_interruptible
def roll(
    expression: Annotated[
        str,
        typer.Argument(
            metavar="POOL",
            help='Dice pool, e.g. "4D6 explode 6", "10D6 count 4+ reroll failed", "3D6+2", '
            '"2D6 <= 7", "3D6 vs 2D6". See docs/dice-pools.md.',
        ),
    ],
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    simulate_: Annotated[
        bool,
        typer.Option("--simulate", metavar="", help="Monte Carlo instead of the exact answer."),
    ] = False,
    fmt: FormatOpt = Format.table,
    plot: PlotOpt = None,
) -> None:
    """Quick answers for a dice pool (exact by default)."""
    plot = _check_plot(plot)
    if not simulate_ and (trials is not None or seed is not None):
        raise _fail("-n/--trials and -s/--seed need --simulate (roll is exact by default)")
    from oddslab.pools import parse_roll

    try:
        spec = parse_roll(expression)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    outcome = _run(spec, trials, seed, None, exact=not simulate_)
    main = _main_stat(outcome, None)
    _emit(outcome, fmt, main)
    if plot is not None:
        _plot_single(outcome, main, plot)
    _finish(outcome)


@app.command()
@_interruptible
def warmup(
    rulesets: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[RULESET]...",
            help="Rulesets to compile (default: all, and the dice pools of `roll`).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Compile the kernels ahead of time. Run it after installing: first runs are quick."""
    from oddslab.warmup import everything, warm

    ALL = everything()  # the built-in rulesets, installed plugins, and the dice pools
    names = list(rulesets or ALL)
    unknown = [n for n in names if n not in ALL]
    if unknown:
        import difflib

        close = difflib.get_close_matches(unknown[0], ALL, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise _fail(f"unknown ruleset '{unknown[0]}'{hint} (choose from {', '.join(ALL)})")
    for name in names:
        typer.echo(warm(name, on_compile=_say_compiling))


@app.command(name="examples")
def list_examples(
    copy: Annotated[
        Path | None,
        typer.Option(
            "--copy",
            metavar="DIR",
            help="Copy the examples (and libraries/) into DIR (made if missing; existing "
            "files are kept).",
        ),
    ] = None,
) -> None:
    """List the example scenario files shipped with the package (or copy them out)."""
    import shutil

    root = Path(__file__).resolve().parent / "examples"
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in (".toml", ".ros"))
    if copy is None:
        for p in files:
            if p.parent == root:
                typer.echo(str(p))
        return
    if copy.exists() and not copy.is_dir():
        raise _fail(f"--copy: '{copy}' is a file, not a folder")
    copied = kept = 0
    for p in files:
        dest = copy / p.relative_to(root)
        if dest.exists():
            kept += 1
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, dest)
        copied += 1
    typer.echo(
        f"copied {copied} file(s) to {copy}" + (f"; kept {kept} existing" if kept else ""),
        err=True,
    )


def main() -> None:  # pragma: no cover - entry point
    # A command builds hundreds of thousands of long-lived objects (numba's registries, and
    # its compiler's on a first run) and little cyclic garbage: with the collector off, a warm
    # run starts ~0.1 s sooner and a compile takes ~1 s less (oddslab._gc). The long analysis
    # commands turn it back on. At the end, freezing what exists spares the interpreter's
    # exit-time collections (~0.15 s).
    gc.disable()
    try:
        app()
    finally:
        gc.freeze()


from oddslab.analysis.cli import register as _register_analysis  # noqa: E402 (issue 14: analysis commands)

_register_analysis(app)
from oddslab.cli_rulesets import register as _register_rulesets  # noqa: E402 (issue 26)

_register_rulesets(app)

from oddslab.web.command import register as _register_web  # noqa: E402 (issue 31: serve)

_register_web(app)

from oddslab.importers.cli import register as _register_import  # noqa: E402 (issue 32: oddslab import)

_register_import(app)
