"""Shared parts of the analysis commands: options, errors, progress, output checks and
tables printed (laid out to fit the terminal by :mod:`oddslab.analysis.table_fit`).

Only typer is imported here; pandas, rich tables and the analysis modules load inside the
functions that need them.
"""

from __future__ import annotations

import functools
import gc
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
import typer.core

from oddslab.cli_common import parse_trials


class ExactMode(StrEnum):
    auto = "auto"
    never = "never"


class Fmt(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


#: What each option's value is called in --help (instead of click's "<int range>").
METAVARS = {
    "trials": "N",
    "seed": "SEED",
    "precision": "P",
    "metric": "METRIC",
    "event": "EVENT",
    "stat": "NAME",
    "store": "FILE",
    "workers": "N",
    "scheduler": "ADDRESS|FILE",
    "batch": "K",
    "out": "FILE",
    "plot": "FILE",
    "fmt": "table|csv|json",
    "exact": "auto|never",
    "vary": "KEY=VALUES",
    "basket": "SPEC[=WEIGHT]",
    "template": "FILE",
    "sort": "COLUMN",
    "reference_points": "POINTS",
    "target": "P",
    "points_per_model": "POINTS",
    "base_points": "POINTS",
}


class _Command(typer.core.TyperCommand):
    """A command whose --help names every value in words: options get :data:`METAVARS`,
    arguments their name in capitals, and the usage line has no ``{braces}``."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for p in self.params:
            if isinstance(p, typer.core.TyperArgument):
                p.metavar = (p.metavar or p.name or "").upper()
            elif p.metavar is None and not getattr(p, "is_flag", False) and p.name in METAVARS:
                p.metavar = METAVARS[p.name]

    def collect_usage_pieces(self, ctx):
        pieces = super().collect_usage_pieces(ctx)
        return [x[1:-1] if x.startswith("{") and x.endswith("}") else x for x in pieces]


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
def _user_errors(store: Path | None = None, command: str | None = None):
    """Turn every error a user can cause into one line and exit 2 (Ctrl-C: exit 130).

    A study (``command``: its name in the kept file's name) stopped by Ctrl-C without
    ``--store`` keeps its finished cells in a store in the current folder and says how to
    finish it (:func:`oddslab.analysis.interrupted.keep_finished`)."""
    from oddslab._schema import ScenarioError

    try:
        yield
    except typer.Exit:
        raise
    except KeyboardInterrupt as exc:
        from oddslab.analysis.interrupted import StudyInterrupted, keep_finished

        text = "interrupted"
        if store:
            text = f"interrupted; finished cells are in {store}: rerun with --resume"
        elif command is not None and isinstance(exc, StudyInterrupted):
            import sys

            text = keep_finished(exc, command, sys.argv[1:])
        typer.echo(text, err=True)
        raise typer.Exit(code=130) from None
    except (ScenarioError, ValueError, KeyError, TypeError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise _fail(str(msg)) from None
    except RuntimeError as exc:  # DaskMissing and friends
        raise _fail(str(exc)) from None
    except OSError as exc:  # a scheduler that cannot be reached, an unwritable file
        text = str(exc) if exc.errno is None else f"{type(exc).__name__}: {exc}"
        raise _fail(text) from None


def _progress(what: str):
    """A progress bar over cells on an interactive stderr (nothing otherwise)."""
    from oddslab.analysis.progress import progress_bar

    return progress_bar(what)


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
        help='"mean(stat)", "P(stat >= k)", a headline label ("P(attacker wins)"), or in '
        "matchups points_removed (target points removed; with --per-points: per 100 points).",
    ),
]
EventOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--event",
        "-e",
        help='Count an event in every cell: "clean win = defender_destroyed and not '
        'attacker_destroyed" (repeat); --metric "P(clean win)" reads it (the default metric '
        "is the first event's).",
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
    str | None,
    typer.Option(
        help="Run on an existing Dask cluster: its address (tcp://host:8786, tls://...) or "
        "the JSON file of dask scheduler --scheduler-file."
    ),
]
BatchOpt = Annotated[
    int | None,
    typer.Option(
        min=1, help="Cells per Dask task (default: sized from the measured cost of a cell)."
    ),
]
DashboardOpt = Annotated[
    bool,
    typer.Option("--dashboard", help="With --workers: serve Dask's dashboard on 127.0.0.1:8787."),
]
OutOpt = Annotated[
    Path | None,
    typer.Option("--out", "-o", help="Write the table (.csv, .json or .parquet: as -f csv|json)."),
]
PlotOpt = Annotated[Path | None, typer.Option("--plot", "-p", help="Write a PNG plot here.")]
FmtOpt = Annotated[Fmt, typer.Option("--format", "-f", help="Output format.")]
ExactOpt = Annotated[
    ExactMode,
    typer.Option(
        "--exact",
        help="auto: answer exactly every cell whose statistics all have exact answers (with "
        "a metric: those the metric and events read); never: simulate every cell.",
    ),
]


def _run_kw(
    trials, seed, precision, store, resume, workers, scheduler, batch=None,
    exact=ExactMode.auto, dashboard=False,
) -> dict:  # fmt: skip
    if resume and store is None:
        raise _fail("--resume needs --store FILE (where the finished cells are)")
    if workers is not None and scheduler is not None:
        raise _fail("give --workers or --scheduler, not both")
    if dashboard and workers is None:
        raise _fail("--dashboard is for the local cluster of --workers N")
    if scheduler is not None and "://" not in scheduler:  # a file, or host:port
        where = Path(scheduler).expanduser()
        if where.is_dir() or (scheduler.lower().endswith(".json") and not where.is_file()):
            what = "is a folder" if where.is_dir() else "no such file"
            raise _fail(
                f"--scheduler {scheduler}: {what}; give the JSON file of dask scheduler "
                "--scheduler-file, or an address such as tcp://host:8786"
            )
    if batch is not None and workers is None and scheduler is None:
        raise _fail("--batch applies to Dask runs (--workers or --scheduler)")
    if precision is not None and not 0 < precision < 0.5:  # checked whatever --exact says
        raise _fail(
            f"--precision: expected a 95% half-width between 0 and 0.5 such as 0.005, "
            f"got {precision:g}"
        )
    return {
        "trials": trials,
        "seed": seed,
        "precision": precision,
        "store": store,
        "resume": resume,
        "workers": workers,
        "scheduler": scheduler,
        "batch": batch,
        "exact": str(exact),
        "dashboard": dashboard,
    }


def _print_frame(df, title: str, fmt: Fmt, floats: str = "{:.4g}", names=()) -> None:
    """``df`` in ``fmt``; a table fits the terminal (``names``: columns named by an
    identifier, printed exactly as typed; see :func:`oddslab.analysis.table_fit.fitted_table`)."""
    if fmt is Fmt.csv:
        from oddslab._format import csv_frame  # 12 significant digits: no float noise

        typer.echo(csv_frame(df), nl=False)
        return
    if fmt is Fmt.json:  # full precision (DataFrame.to_json rounds to 10 decimals)
        typer.echo(_json_text(df))
        return
    from rich.console import Console

    from oddslab.analysis.table_fit import fitted_table

    console = Console()
    t, dropped = fitted_table(df, title, console.width, floats, names)
    console.print(t)
    if dropped:
        typer.echo(
            f"note: left out to fit {console.width} columns: {', '.join(dropped)} "
            "(a wider terminal, or -f csv, shows them)",
            err=True,
        )


def _json_text(df) -> str:
    """``df`` as one JSON document (a list of records), every float at full precision."""
    import json

    from oddslab._format import json_records

    return json.dumps(json_records(df), indent=2)


def _no_se_if_exact(df):
    """An all-exact table has no SE or interval columns (they would all be 0 wide); the
    ``exact`` column goes into the title. A table mixing exact and simulated cells keeps
    its ``exact`` column (which rows are exact)."""
    if "exact" not in df.columns:
        return df
    if df["exact"].all():
        df = df.drop(columns=[c for c in SE_COLUMNS if c in df.columns])
    return df if df["exact"].any() and not df["exact"].all() else df.drop(columns="exact")


def _estimates(df, pairs: dict[str, str]):
    """A printed table's estimates as text: each column of ``pairs`` (column → the column
    of its standard error) with the decimals that SE needs, then each SE to two significant
    digits (:func:`~oddslab._format.format_estimate`, :func:`~oddslab._format.format_se`):
    never ``89.1`` beside an SE of ``0.0061``. Columns not in ``df`` (an exact table has no
    SE columns) are left as they are."""
    from oddslab._format import format_estimate, format_se

    df = df.copy()
    pairs = {c: e for c, e in pairs.items() if c in df.columns and e in df.columns}
    for col, err in pairs.items():
        df[col] = [format_estimate(v, e) for v, e in zip(df[col], df[err], strict=True)]
    for err in set(pairs.values()):
        df[err] = [format_se(e) for e in df[err]]
    return df


def _shown(df):
    """``df`` without a ``note`` column that has nothing to say (no NaN cell)."""
    if "note" in df.columns and not df["note"].astype(bool).any():
        return df.drop(columns="note")
    return df


#: The standard-error and interval columns of the study tables (none in an all-exact one).
SE_COLUMNS = ("se", "ci_low", "ci_high", "per_100_points_se", "candidate_se", "reference_se")


def _plain_metric(text: str, res) -> str:
    """A metric in plain words for a table's title, as the heatmaps' titles have it (the
    statistics' labels read off the first cell of the study ``res``)."""
    from oddslab.analysis.plots import plain_metric

    return plain_metric(text, next(res.iter_outcomes(), None))


#: Table formats ``--out`` writes, by suffix, and the module each needs (None: pandas alone).
OUT_FORMATS = {".csv": None, ".json": None, ".parquet": "pyarrow"}


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _check_files(out: Path | None, plot: Path | None, store: Path | None = None) -> Path | None:
    """Check every output before any cell runs (exit 2 naming the option if not): ``--out``'s
    format (.csv or .parquet), the optional module it needs and its folder; ``--plot``;
    ``--store``'s folder. Returns the plot's file (``.png`` added to a bare name)."""
    from oddslab.cli_common import check_plot as _check_plot  # simulate's check, same message
    from oddslab.plotting import check_output_file

    if out is not None:
        suffix = out.suffix.lower()
        if suffix not in OUT_FORMATS:
            raise _fail(
                f"--out '{out}': give a .csv, .json or .parquet file (got '{suffix or out.name}')"
            )
        need = OUT_FORMATS[suffix]
        if need is not None and not _has_module(need):
            raise _fail(
                f"--out '{out}': writing Parquet needs {need} (pip install {need}); "
                "or give a .csv or .json file"
            )
        try:
            check_output_file(out.expanduser(), str(out))
        except ValueError as exc:
            raise _fail(f"--out {exc}") from None
    if store is not None:
        try:
            check_output_file(store.expanduser(), str(store))
        except ValueError as exc:
            raise _fail(f"--store {exc}") from None
    return _check_plot(plot)


def _save_plot(ax, path: Path) -> None:
    ax.figure.tight_layout()
    ax.figure.savefig(path, dpi=120)
    typer.echo(f"plot written to {path}", err=True)


def _write_table(df, path: Path) -> None:
    """``--out``: what ``-f csv`` / ``-f json`` print (the same text), or Parquet."""
    if path.suffix.lower() == ".parquet":
        df.to_parquet(path, index=False)
    elif path.suffix.lower() == ".json":
        path.write_text(_json_text(df) + "\n", encoding="utf-8")
    else:
        from oddslab._format import csv_frame

        csv_frame(df, path)
    typer.echo(f"table written to {path}", err=True)


def _parse_basket(items: list[str]) -> dict:
    basket: dict[str, float] = {}
    for item in items:
        spec, sep, w = item.rpartition("=")
        if not sep:
            spec, w = item, "1"
        if spec in basket:
            raise _fail(f"--basket {spec} is given twice: give each target once, with its weight")
        try:
            basket[spec] = float(w)
        except ValueError:
            raise _fail(f"--basket '{item}': the weight after '=' must be a number") from None
    if not basket:
        raise _fail("give at least one --basket target (lib.toml:entry[=weight])")
    return basket


def _matplotlib() -> None:
    import matplotlib

    matplotlib.use("Agg")
