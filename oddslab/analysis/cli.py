"""Command-line commands of the analysis layer: sweep, matchup, library (and, from
:mod:`oddslab.analysis.cli_points`, ``points ...`` and ``store info``).

:func:`register` adds them to the ``oddslab`` typer app. Only typer is imported here; the
analysis modules (pandas, numba, dask) are imported inside the commands. Every mistake a user
can type ends as one line on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from oddslab.analysis.cli_common import (
    BatchOpt,
    DashboardOpt,
    EventOpt,
    ExactMode,
    ExactOpt,
    Fmt,
    FmtOpt,
    MetricOpt,
    OutOpt,
    PlotOpt,
    PrecisionOpt,
    ResumeOpt,
    SchedulerOpt,
    SeedOpt,
    StoreOpt,
    TrialsOpt,
    WorkersOpt,
    _check_files,
    _collecting,
    _Command,
    _fail,
    _matplotlib,
    _no_se_if_exact,
    _print_frame,
    _progress,
    _run_kw,
    _save_plot,
    _shown,
    _user_errors,
    _write_table,
)

__all__ = ["register"]


def _parse_vary(items: list[str]) -> dict:
    from oddslab.analysis.paths import canonical_paths
    from oddslab.analysis.sweep import parse_values

    vary = {}
    for item in items:
        key, sep, values = item.partition("=")
        if not sep or not key.strip() or not values.strip():
            raise _fail(
                f"--vary '{item}': expected KEY=VALUES, e.g. target.save=2..6 or weapons.0.models=5,10"
            )
        if key.strip() in vary:  # the same spelling twice (other spellings: below)
            raise _fail(f"--vary {key.strip()} is given twice: vary it once, with every value")
        try:
            vary[key.strip()] = parse_values(values)
        except ValueError as exc:
            raise _fail(f"--vary {key.strip()}: {exc}") from None
    try:
        canonical_paths(list(vary))
    except ValueError as exc:
        raise _fail(f"--vary {exc}") from None
    return vary


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
    event: EventOpt = None,
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
    batch: BatchOpt = None,
    dashboard: DashboardOpt = False,
    exact: ExactOpt = ExactMode.auto,
    out: OutOpt = None,
    plot: PlotOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Run a scenario at every combination of the values of some of its keys."""
    kw = _run_kw(
        trials, seed, precision, store, resume, workers, scheduler, batch, exact, dashboard
    )
    plot = _check_files(out, plot, store)
    grid = _parse_vary(vary)
    if plot is not None and len(grid) > 2:
        raise _fail("--plot draws one varied key (line) or two (heatmap)")
    with _user_errors(store, "sweep"):
        from oddslab.analysis.sweep import sweep

        with _progress("sweeping") as cb:
            res = sweep(scenario, grid, progress=cb, metric=metric, events=event or (), **kw)
        if stat:
            _check_stats(res, stat)
        if fmt is Fmt.table:
            from oddslab.analysis.cli_common import _plain_metric

            tab = res.table()
            label = _plain_metric(tab["metric"].iloc[0], res)  # plain words, as the heatmaps
            title = f"{label} — {len(res.cells)} cells, seed {res.seed}"
            if tab["exact"].all():
                title = f"{label} — {len(res.cells)} cells, exact"
            tab = _shown(_no_se_if_exact(tab.drop(columns="metric")))
            _print_frame(tab, title, fmt, names=res.keys)  # keys as typed: for --vary
        else:
            _print_frame(res.frame(stat), "", fmt)
        if out is not None:
            if out.suffix == ".parquet":
                res.to_parquet(out, stat)  # the rows -f csv prints
                typer.echo(f"table written to {out}", err=True)
            elif out.suffix.lower() == ".json":  # as -f json prints it
                _write_table(res.frame(stat), out)
            else:  # chunk by chunk: a big study's frame is never held whole
                from oddslab.analysis.frames import write_csv

                write_csv(res.frame_chunks(set(stat) if stat else None), out)
                typer.echo(f"table written to {out}", err=True)
        if plot is not None:
            _matplotlib()
            _save_plot(res.plot(), plot)


def _check_stats(res, stat: list[str]) -> None:
    """``--stat`` names statistics of at least one cell; a cell answered exactly for its
    metric reports only the statistics the exact engine gives, and the error says so."""
    from oddslab.analysis.metrics import check_stat_names

    try:
        check_stat_names(stat, res.iter_outcomes())
    except ValueError as exc:
        if res.metric is not None and any(o.exact for o in res.iter_outcomes()):
            raise ValueError(
                f"{exc}; cells answered exactly for the metric report only the statistics "
                "the exact engine gives: --exact never simulates every statistic"
            ) from None
        raise


def matchup_cmd(
    attackers: Annotated[
        str, typer.Argument(help="Library file, lib.toml:entry or lib.toml:a,b,*glob*.")
    ],
    targets: Annotated[
        str, typer.Argument(help="Library file, lib.toml:entry or lib.toml:a,b,*glob*.")
    ],
    metric: MetricOpt = None,
    event: EventOpt = None,
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
    batch: BatchOpt = None,
    dashboard: DashboardOpt = False,
    exact: ExactOpt = ExactMode.auto,
    out: OutOpt = None,
    plot: PlotOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Attackers × targets: a matrix of any statistic or headline probability.

    Memory stays bounded on a big matchup (:mod:`oddslab.analysis.cli_matchup`): the printed
    matrix holds two floats a pair, the long outputs a sort key and row index (16 bytes a
    pair) and one chunk of rows; a printed long table shows its first 1,000 rows.
    """
    kw = _run_kw(
        trials, seed, precision, store, resume, workers, scheduler, batch, exact, dashboard
    )
    plot = _check_files(out, plot, store)
    if sort is not None:  # a column of the long table: checked before any cell runs
        from oddslab.analysis.matchup_table import TABLE_COLUMNS

        if sort not in TABLE_COLUMNS:
            raise _fail(f"--sort {sort}: no such column; columns: {', '.join(TABLE_COLUMNS)}")
    with _user_errors(store, "matchup"):
        from oddslab.analysis.matchup import matchup

        with _progress("matchup") as cb:
            res = matchup(
                attackers, targets, metric=metric, template=template, progress=cb,
                events=event or (), **kw,
            )  # fmt: skip
        from oddslab.analysis.left_out import left_out_notes

        for note in left_out_notes(res.left_out):  # a library's entries that fit no slot
            typer.echo(f"note: {note}", err=True)
        if res.unfit:
            typer.echo(
                f"note: {len(res.unfit)} pairs do not fit the template and were not run "
                "(— in the matrix; --long gives each reason)",
                err=True,
            )
        # read off the results a chunk of pairs at a time, never the whole long table
        from oddslab.analysis.cli_matchup import print_long, print_matrix, write_out

        if long or fmt is not Fmt.table or sort is not None:
            print_long(res, sort, fmt, out)
        else:
            print_matrix(res, per_points)
            if out is not None:
                write_out(res, out)
        if plot is not None:
            _matplotlib()
            _save_plot(res.plot(per_points=per_points), plot)


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
    """Add ``sweep``, ``matchup``, ``library``, ``points ...`` and ``store ...`` to the
    ``oddslab`` app."""
    from oddslab.analysis.cli_points import points_app, store_app

    app.command("sweep", cls=_Command)(_collecting(sweep_cmd))
    app.command("matchup", cls=_Command)(_collecting(matchup_cmd))
    app.command("library", cls=_Command)(library_cmd)
    app.add_typer(points_app, name="points")
    app.add_typer(store_app, name="store")
