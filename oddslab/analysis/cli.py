"""Command-line commands of the analysis layer: sweep, matchup, points, library.

:func:`register` adds them to the ``oddslab`` typer app. Only typer is imported here; the
analysis modules (pandas, numba, dask) are imported inside the commands. Every mistake a user
can type ends as one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import functools
import gc
import sys
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from oddslab.cli_common import parse_trials

__all__ = ["register"]


class Fmt(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def _collecting(fn):
    """Turn Python's garbage collector back on for a long study (``oddslab.cli.main`` turns it
    off for quick commands: see ``oddslab._gc``); a run on Dask makes many reference cycles."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        gc.enable()
        return fn(*args, **kwargs)

    return wrapper


@contextmanager
def _user_errors(store: Path | None = None):
    """Turn every error a user can cause into one line and exit 2 (Ctrl-C: exit 130)."""
    from oddslab._schema import ScenarioError

    try:
        yield
    except typer.Exit:
        raise
    except KeyboardInterrupt:
        hint = f"; finished cells are in {store}: rerun with --resume" if store else ""
        typer.echo(f"interrupted{hint}", err=True)
        raise typer.Exit(code=130) from None
    except (ScenarioError, ValueError, KeyError, TypeError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise _fail(str(msg)) from None
    except RuntimeError as exc:  # DaskMissing and friends
        raise _fail(str(exc)) from None
    except OSError as exc:  # a scheduler that cannot be reached, an unwritable file
        text = str(exc) if exc.errno is None else f"{type(exc).__name__}: {exc}"
        raise _fail(text) from None


@contextmanager
def _progress(what: str):
    """A rich progress bar over cells on an interactive stderr (nothing otherwise)."""
    if not sys.stderr.isatty():
        yield None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cells"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        transient=True,
    )
    task = bar.add_task(what, total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)


# -- shared options -----------------------------------------------------------------------------
TrialsOpt = Annotated[
    int | None,
    typer.Option(
        "--trials",
        "-n",
        parser=parse_trials,  # 1e6, 1_000_000 and 1,000,000 too; says the ceiling
        help="Trials per cell (default: the scenario's).",
    ),
]
SeedOpt = Annotated[int | None, typer.Option("--seed", "-s", min=0, help="Master seed.")]
PrecisionOpt = Annotated[
    float | None,
    typer.Option(help="Per cell: stop when every headline's 95% CI half-width is below this."),
]
MetricOpt = Annotated[
    str | None,
    typer.Option(
        "--metric",
        "-m",
        help='"mean(stat)", "P(stat >= k)" or a headline label ("P(attacker wins)").',
    ),
]
StoreOpt = Annotated[
    Path | None, typer.Option(help="SQLite file that finished cells stream into (for --resume).")
]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Skip cells already in --store.")]
WorkersOpt = Annotated[
    int | None,
    typer.Option(min=1, help="Run on a local Dask cluster of N single-threaded processes."),
]
SchedulerOpt = Annotated[
    str | None, typer.Option(help="Run on an existing Dask cluster (tcp://host:8786).")
]
BatchOpt = Annotated[
    int, typer.Option(min=1, help="Cells per Dask task (for very many small cells).")
]
OutOpt = Annotated[
    Path | None, typer.Option("--out", "-o", help="Write the table (.csv or .parquet).")
]
PlotOpt = Annotated[Path | None, typer.Option("--plot", "-p", help="Write a PNG plot here.")]
FmtOpt = Annotated[Fmt, typer.Option("--format", "-f", help="Output format.")]


def _run_kw(trials, seed, precision, store, resume, workers, scheduler, batch=1) -> dict:
    if resume and store is None:
        raise _fail("--resume needs --store FILE (where the finished cells are)")
    if workers is not None and scheduler is not None:
        raise _fail("give --workers or --scheduler, not both")
    return {
        "trials": trials,
        "seed": seed,
        "precision": precision,
        "store": store,
        "resume": resume,
        "workers": workers,
        "scheduler": scheduler,
        "batch": batch,
    }


def _print_frame(df, title: str, fmt: Fmt, floats: str = "{:.4g}") -> None:
    from oddslab._format import csv_frame

    if fmt is Fmt.csv:
        typer.echo(csv_frame(df), nl=False)
        return
    if fmt is Fmt.json:
        typer.echo(df.to_json(orient="records", indent=2))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    for c in df.columns:
        t.add_column(str(c), justify="left" if df[c].dtype == object else "right")
    for row in df.itertuples(index=False):
        t.add_row(*(floats.format(v) if isinstance(v, float) else str(v) for v in row))
    Console().print(t)


def _shown(df):
    """``df`` without a ``note`` column that has nothing to say (no NaN cell)."""
    if "note" in df.columns and not df["note"].astype(bool).any():
        return df.drop(columns="note")
    return df


def _check_files(out: Path | None, plot: Path | None) -> Path | None:
    """Check that ``--out`` and ``--plot`` can be written, before any cell runs (exit 2
    naming the option if not); returns the plot's file (``.png`` added to a bare name)."""
    from oddslab.cli_common import check_plot as _check_plot  # simulate's check, same message
    from oddslab.plotting import check_output_file

    if out is not None:
        try:
            check_output_file(out.expanduser(), str(out))
        except ValueError as exc:
            raise _fail(f"--out {exc}") from None
    return _check_plot(plot)


def _save_plot(ax, path: Path) -> None:
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=120)
    typer.echo(f"plot written to {path}", err=True)


def _write_table(df, path: Path) -> None:
    from oddslab._format import csv_frame

    if path.suffix == ".parquet":
        df.to_parquet(path, index=False)
    else:
        csv_frame(df, path)
    typer.echo(f"table written to {path}", err=True)


def _parse_vary(items: list[str]) -> dict:
    from oddslab.analysis.sweep import parse_values

    vary = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise _fail(
                f"--vary '{item}': expected KEY=VALUES, e.g. target.save=2..6 or weapons.0.models=5,10"
            )
        try:
            vary[key.strip()] = parse_values(values)
        except ValueError as exc:
            raise _fail(f"--vary {key.strip()}: {exc}") from None
    return vary


def _parse_basket(items: list[str]) -> dict:
    basket: dict[str, float] = {}
    for item in items:
        spec, sep, w = item.rpartition("=")
        if sep:
            try:
                basket[spec] = float(w)
            except ValueError:
                raise _fail(f"--basket '{item}': the weight after '=' must be a number") from None
        else:
            basket[item] = 1.0
    if not basket:
        raise _fail("give at least one --basket target (lib.toml:entry[=weight])")
    return basket


def _matplotlib() -> None:
    import matplotlib

    matplotlib.use("Agg")


# -- commands -----------------------------------------------------------------------------------
def sweep_cmd(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    vary: Annotated[
        list[str],
        typer.Option(
            "--vary",
            "-v",
            help="KEY=VALUES: target.save=2..6, attacker.weapons.0.models=5,10,20 (repeat).",
        ),
    ],
    metric: MetricOpt = None,
    stat: Annotated[
        list[str] | None,
        typer.Option("--stat", help="Keep only these statistics in the table (repeat)."),
    ] = None,
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    precision: PrecisionOpt = None,
    store: StoreOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    batch: BatchOpt = 1,
    out: OutOpt = None,
    plot: PlotOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Run a scenario at every combination of the values of some of its keys."""
    kw = _run_kw(trials, seed, precision, store, resume, workers, scheduler, batch)
    plot = _check_files(out, plot)
    grid = _parse_vary(vary)
    if plot is not None and len(grid) > 2:
        raise _fail("--plot draws one varied key (line) or two (heatmap)")
    with _user_errors(store):
        from oddslab.analysis.sweep import sweep

        with _progress("sweeping") as cb:
            res = sweep(scenario, grid, progress=cb, metric=metric, **kw)
        if fmt is Fmt.table:
            tab = res.table(metric)
            title = f"{tab['metric'].iloc[0]} — {len(res.cells)} cells, seed {res.seed}"
            _print_frame(_shown(tab.drop(columns="metric")), title, fmt)
        else:
            _print_frame(res.frame(stat), "", fmt)
        if out is not None:
            df = res.frame(stat)
            if out.suffix == ".parquet":
                res.to_parquet(out)
                typer.echo(f"table written to {out}", err=True)
            else:
                _write_table(df, out)
        if plot is not None:
            _matplotlib()
            _save_plot(res.plot(metric), plot)


def matchup_cmd(
    attackers: Annotated[
        str, typer.Argument(help="Library file, lib.toml:entry or lib.toml:a,b,*glob*.")
    ],
    targets: Annotated[
        str, typer.Argument(help="Library file, lib.toml:entry or lib.toml:a,b,*glob*.")
    ],
    metric: MetricOpt = None,
    per_points: Annotated[
        bool, typer.Option("--per-points", help="Per 100 points of the attacker.")
    ] = False,
    template: Annotated[
        Path | None, typer.Option(help='Scenario with use = "{attacker}" / "{target}" tables.')
    ] = None,
    sort: Annotated[str | None, typer.Option(help="Sort the long table by this column.")] = None,
    long: Annotated[
        bool, typer.Option("--long", help="Print the long table (one row per pair).")
    ] = False,
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    precision: PrecisionOpt = None,
    store: StoreOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    batch: BatchOpt = 1,
    out: OutOpt = None,
    plot: PlotOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Attackers × targets: a matrix of any statistic or headline probability."""
    kw = _run_kw(trials, seed, precision, store, resume, workers, scheduler, batch)
    plot = _check_files(out, plot)
    with _user_errors(store):
        from oddslab.analysis.matchup import matchup

        with _progress("matchup") as cb:
            res = matchup(attackers, targets, metric=metric, template=template, progress=cb, **kw)
        for note in res.skipped:
            typer.echo(f"note: left out {note}", err=True)
        if res.unfit:
            typer.echo(
                f"note: {len(res.unfit)} pairs do not fit the template and were not run "
                "(— in the matrix; --long gives each reason)",
                err=True,
            )
        tab = res.table(sort_by=sort)
        if long or fmt is not Fmt.table or sort is not None:
            _print_frame(_shown(tab), f"{res.metric}", fmt)
        else:
            from oddslab._format import format_estimate

            grid = res.matrix(per_points=per_points)
            se = res.matrix(per_points=per_points, se=True)
            shown = grid.copy().astype(object)
            for r in grid.index:
                for c in grid.columns:
                    v = grid.loc[r, c]  # NaN: not run or not reported (--long gives the note)
                    shown.loc[r, c] = (
                        f"{format_estimate(v, se.loc[r, c])} ± {se.loc[r, c]:.1g}"
                        if v == v
                        else "—"
                    )
            shown = shown.reset_index()
            per = " per 100 points" if per_points else ""
            _print_frame(shown, f"{res.metric}{per} (rows: attackers, columns: targets)", fmt)
        if out is not None:
            _write_table(tab, out)
        if plot is not None:
            _matplotlib()
            _save_plot(res.plot(per_points=per_points), plot)


points_app = typer.Typer(
    name="points",
    help="Points: efficiency per 100 points, fair points, duel balance.",
    no_args_is_help=True,
)

BasketOpt = Annotated[
    list[str],
    typer.Option(
        "--basket",
        "-b",
        help="Target lib.toml:entry[=weight] (repeat); a library = all its targets.",
    ),
]


@points_app.command("efficiency")
@_collecting
def efficiency_cmd(
    units: Annotated[str, typer.Argument(help="Library file or lib.toml:a,b: the units to rate.")],
    basket: BasketOpt,
    metric: MetricOpt = None,
    template: Annotated[Path | None, typer.Option(help="Matchup template file.")] = None,
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    precision: PrecisionOpt = None,
    store: StoreOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    batch: BatchOpt = 1,
    out: OutOpt = None,
    plot: PlotOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Rank units by a metric per 100 points against a weighted basket of targets."""
    kw = _run_kw(trials, seed, precision, store, resume, workers, scheduler, batch)
    plot = _check_files(out, plot)
    weights = _parse_basket(basket)
    with _user_errors(store):
        from oddslab.analysis.points import efficiency

        with _progress("efficiency") as cb:
            res = efficiency(units, weights, metric=metric, template=template, progress=cb, **kw)
        _print_frame(res.table, f"{res.table.attrs['metric']} per 100 points (ranked)", fmt)
        if out is not None:
            _write_table(res.table, out)
        if plot is not None:
            _matplotlib()
            _save_plot(res.plot(), plot)


@points_app.command("fair")
@_collecting
def fair_cmd(
    candidate: Annotated[str, typer.Argument(help="lib.toml:entry of the unit to price.")],
    reference: Annotated[
        str, typer.Argument(help="lib.toml:entry of a unit whose price is right.")
    ],
    basket: BasketOpt,
    metric: MetricOpt = None,
    reference_points: Annotated[
        float | None,
        typer.Option(min=0, help="The reference's price (default: its library points)."),
    ] = None,
    template: Annotated[Path | None, typer.Option(help="Matchup template file.")] = None,
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    precision: PrecisionOpt = None,
    store: StoreOpt = None,
    resume: ResumeOpt = False,
    workers: WorkersOpt = None,
    scheduler: SchedulerOpt = None,
    batch: BatchOpt = 1,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Fair points for a candidate unit: equal basket efficiency to a reference unit."""
    kw = _run_kw(trials, seed, precision, store, resume, workers, scheduler, batch)
    weights = _parse_basket(basket)
    with _user_errors(store):
        from oddslab.analysis.points import fair_points

        with _progress("fair points") as cb:
            res = fair_points(
                candidate, reference, weights, metric=metric, reference_points=reference_points,
                template=template, progress=cb, **kw,
            )  # fmt: skip
        _print_frame(res.summary(), f"Fair points of {res.candidate}", fmt)
        _print_frame(res.sensitivity(), "How the answer moves with the basket", fmt)


@points_app.command("duel")
@_collecting
def duel_cmd(
    scenario: Annotated[Path, typer.Argument(help="A two-sided scenario (uses allowed).")],
    vary: Annotated[
        str, typer.Option("--vary", "-v", help="KEY=LO..HI: the size of side A to vary.")
    ],
    metric: Annotated[
        str, typer.Option("--metric", "-m", help="A probability metric.")
    ] = "P(attacker wins)",
    target: Annotated[float, typer.Option(help="The probability to reach.")] = 0.5,
    points_per_model: Annotated[
        float | None, typer.Option(help="Price per model of side A.")
    ] = None,
    base_points: Annotated[float, typer.Option(help="Fixed part of side A's price.")] = 0.0,
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """The unit size (and points) at which P(A beats B) = 50%, with its 95% interval."""
    key, sep, rng = vary.partition("=")
    parts = rng.split("..")
    if not sep or len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
        raise _fail(f"--vary '{vary}': expected KEY=LO..HI, e.g. units.a.models=2..12")
    with _user_errors():
        from oddslab.analysis.duel import duel_balance

        with _progress("duel") as cb:
            res = duel_balance(
                scenario, key.strip(), int(parts[0]), int(parts[1]), metric=metric, target=target,
                trials=trials, seed=seed, points_per_model=points_per_model,
                base_points=base_points, progress=cb,
            )  # fmt: skip
        _print_frame(res.summary(), "Duel balance", fmt)
        if fmt is Fmt.table:
            _print_frame(res.curve, "Evaluated sizes (same seed at every size)", fmt)
        for note in res.notes:
            typer.echo(f"note: {note}", err=True)


def library_cmd(
    library: Annotated[
        Path | None, typer.Argument(help="A library file (default: list the shipped libraries).")
    ] = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """List a unit library's entries and their points (or the libraries shipped with oddslab)."""
    with _user_errors():
        from oddslab.libraries import load_library, shipped_libraries

        if library is None:
            for p in shipped_libraries():
                typer.echo(str(p))
            return
        import pandas as pd

        lib = load_library(library)
        rows = [{"entry": e.key, "name": e.label, "points": e.points()} for e in lib]
        df = pd.DataFrame(rows)
        _print_frame(df, f"{lib.path} ({lib.ruleset}): {lib.description}", fmt)


def register(app: typer.Typer) -> None:
    """Add ``sweep``, ``matchup``, ``points ...`` and ``library`` to the ``oddslab`` app."""
    app.command("sweep")(_collecting(sweep_cmd))
    app.command("matchup")(_collecting(matchup_cmd))
    app.command("library")(library_cmd)
    app.add_typer(points_app, name="points")
