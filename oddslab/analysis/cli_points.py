"""The ``points`` commands (efficiency, fair points, duel balance) and ``store info``."""

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
    _estimates,
    _fail,
    _matplotlib,
    _no_se_if_exact,
    _parse_basket,
    _plain_metric,
    _print_frame,
    _progress,
    _run_kw,
    _save_plot,
    _user_errors,
    _write_table,
)

__all__ = ["points_app", "store_app"]


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


@points_app.command("efficiency", cls=_Command)
@_collecting
def efficiency_cmd(
    units: Annotated[str, typer.Argument(help="Library file or lib.toml:a,b: the units to rate.")],
    basket: BasketOpt,
    metric: MetricOpt = None,
    event: EventOpt = None,
    template: Annotated[Path | None, typer.Option(help="Matchup template file.")] = None,
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
    """Rank units by a metric per 100 points against a weighted basket of targets."""
    kw = _run_kw(
        trials, seed, precision, store, resume, workers, scheduler, batch, exact, dashboard
    )
    plot = _check_files(out, plot, store)
    weights = _parse_basket(basket)
    with _user_errors(store, "points-efficiency"):
        from oddslab.analysis.points import efficiency

        with _progress("efficiency") as cb:
            res = efficiency(
                units, weights, metric=metric, template=template, progress=cb,
                events=event or (), **kw,
            )  # fmt: skip
        from oddslab.analysis.left_out import left_out_notes

        for note in left_out_notes(res.matchup.left_out):  # a library's non-fitting entries
            typer.echo(f"note: {note}", err=True)
        if fmt is Fmt.table:  # an exact table: no SE or interval columns, "exact" in the title
            tab, how = _no_se_if_exact(res.table), ", exact" if res.table.attrs["exact"] else ""
            tab = _estimates(tab, _EFFICIENCY_SE)  # the decimals each SE supports
            label = _plain_metric(res.table.attrs["metric"], res.matchup)
            _print_frame(tab, f"{label} per 100 points (ranked{how})", fmt)
        else:  # numbers as numbers, an exact row's SE and interval empty
            _print_frame(res.frame(), "", fmt)
        if out is not None:
            _write_table(res.frame(), out)
        if plot is not None:
            _matplotlib()
            _save_plot(res.plot(), plot)


@points_app.command("fair", cls=_Command)
@_collecting
def fair_cmd(
    candidate: Annotated[str, typer.Argument(help="lib.toml:entry of the unit to price.")],
    reference: Annotated[
        str, typer.Argument(help="lib.toml:entry of a unit whose price is right.")
    ],
    basket: BasketOpt,
    metric: MetricOpt = None,
    event: EventOpt = None,
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
    batch: BatchOpt = None,
    dashboard: DashboardOpt = False,
    exact: ExactOpt = ExactMode.auto,
    out: OutOpt = None,
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Fair points for a candidate unit: equal basket efficiency to a reference unit."""
    kw = _run_kw(
        trials, seed, precision, store, resume, workers, scheduler, batch, exact, dashboard
    )
    _check_files(out, None, store)
    weights = _parse_basket(basket)
    with _user_errors(store, "points-fair"):
        from oddslab.analysis.points import fair_points

        with _progress("fair points") as cb:
            res = fair_points(
                candidate, reference, weights, metric=metric, reference_points=reference_points,
                template=template, progress=cb, events=event or (), **kw,
            )  # fmt: skip
        from oddslab.analysis.left_out import left_out_notes

        for note in left_out_notes(res.matchup.left_out):  # a library's non-fitting entries
            typer.echo(f"note: {note}", err=True)
        if out is not None:  # what -f json (one document) or -f csv (one tidy table) prints
            if out.suffix.lower() == ".json":
                out.write_text(_fair_json(res) + "\n", encoding="utf-8")
                typer.echo(f"table written to {out}", err=True)
            else:
                _write_table(res.frame(), out)
        if fmt is Fmt.json:  # one document
            typer.echo(_fair_json(res))
            return
        if fmt is Fmt.csv:  # one tidy table
            typer.echo(_csv(res.frame()), nl=False)
            return
        how = ", exact" if res.exact else ""  # ... and no ± or intervals
        _print_frame(res.summary(), f"Fair points of {res.candidate}{how}", fmt)
        tab = _estimates(_no_se_if_exact(res.sensitivity()), _FAIR_SE)
        _print_frame(tab, f"How the answer moves with the basket{how}", fmt)


@points_app.command("duel", cls=_Command)
@_collecting
def duel_cmd(
    scenario: Annotated[Path, typer.Argument(help="A two-sided scenario (uses allowed).")],
    vary: Annotated[
        str,
        typer.Option(
            "--vary", "-v", metavar="KEY=LO..HI", help="KEY=LO..HI: the size of side A to vary."
        ),
    ],
    metric: Annotated[
        str, typer.Option("--metric", "-m", help="A probability metric.")
    ] = "P(attacker wins)",
    event: EventOpt = None,
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
        from oddslab.analysis.duel import DuelInterrupted, duel_balance

        try:
            with _progress("duel") as cb:
                res = duel_balance(
                    scenario, key.strip(), int(parts[0]), int(parts[1]), metric=metric,
                    target=target, trials=trials, seed=seed, points_per_model=points_per_model,
                    base_points=base_points, progress=cb, events=event or (),
                )  # fmt: skip
        except DuelInterrupted as exc:  # the sizes that finished, not "interrupted" alone
            typer.echo(exc.summary(), err=True)
            raise typer.Exit(code=130) from None
        if fmt is Fmt.json:  # one document, numbers as numbers, the curve included
            import json

            typer.echo(json.dumps(res.to_dict(), indent=2))
        elif fmt is Fmt.csv:  # one tidy table: a row per size evaluated
            typer.echo(_csv(res.frame()), nl=False)
        else:
            _print_frame(res.summary(), "Duel balance", fmt)
            curve = _estimates(res.curve, {"value": "se", "ci_low": "se", "ci_high": "se"})
            _print_frame(curve, "Evaluated sizes (same seed at every size)", fmt)
        for note in res.notes:
            typer.echo(f"note: {note}", err=True)


store_app = typer.Typer(
    name="store", help="Results stores (--store FILE): what they hold.", no_args_is_help=True
)


@store_app.command("info", cls=_Command)
def store_info_cmd(
    file: Annotated[Path, typer.Argument(help="A results store written with --store.")],
    fmt: FmtOpt = Fmt.table,
) -> None:
    """Show the study a results store holds: scenario digest, keys, seed, trials, cells."""
    with _user_errors():
        import json
        from datetime import UTC, datetime

        import pandas as pd

        from oddslab.analysis.store import FIELDS, CellStore

        with CellStore(file, create=False) as db:
            info = db.summary()
        if fmt is Fmt.json:
            typer.echo(json.dumps(info, indent=2))
            return
        ident = info["identity"] or {}
        if fmt is Fmt.csv:  # one tidy row, numbers as numbers, the fields of -f json
            row = {k: v for k, v in info.items() if k != "identity"}  # times: Unix seconds
            for k in FIELDS:  # a list (the varied keys, the events): its items joined by ";"
                v = ident.get(k)
                row[k] = ";".join(map(str, v)) if isinstance(v, list) else v
            typer.echo(_csv(pd.DataFrame([row])), nl=False)
            return

        def when(t):
            return (
                "—"
                if t is None
                else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
            )

        rows = [(words, _plain_value(ident.get(k))) for k, words in FIELDS.items()]
        if not ident:
            rows = [("study", "none recorded (an empty store, or one from an older oddslab)")]
        rows += [
            ("finished cells", str(info["cells"])),
            ("created", when(info["created"])),
            ("last cell written", when(info["last_cell"])),
            ("file size", f"{info['bytes'] / 1e6:.2f} MB"),
        ]
        df = pd.DataFrame(rows, columns=["quantity", "value"])
        digest = ident.get("scenario")
        if isinstance(digest, str) and len(digest) > 12:  # shortened on purpose, never cut
            # by the width: 12 hex digits name a study, as --resume's refusal says them
            df.loc[df["quantity"] == FIELDS["scenario"], ["quantity", "value"]] = [
                "scenario digest (first 12)",
                digest[:12],
            ]
        _print_frame(df, f"Results store {file}", fmt)


#: A printed table's estimates and the column of each one's standard error.
_EFFICIENCY_SE = {"value": "se", "per_100_points": "per_100_points_se",
                  "ci_low": "per_100_points_se", "ci_high": "per_100_points_se"}  # fmt: skip
_FAIR_SE = {"candidate_value": "candidate_se", "reference_value": "reference_se",
            "fair_points": "se", "ci_low": "se", "ci_high": "se"}  # fmt: skip


def _plain_value(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, list):
        return ", ".join(map(str, v))
    return str(v)


def _fair_json(res) -> str:
    import json

    return json.dumps(res.to_dict(), indent=2)


def _csv(df) -> str:
    from oddslab._format import csv_frame  # no float noise (heavy imports stay in commands)

    return csv_frame(df)
