"""The ``oddslab`` command line: simulate, compare, roll. Thin: heavy imports live inside commands."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    name="oddslab",
    help="Monte Carlo and exact combat odds for tabletop wargames.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


class Format(StrEnum):
    table = "table"
    csv = "csv"
    json = "json"


TrialsOpt = Annotated[
    int | None,
    typer.Option(
        "--trials", "-n", min=1, help="Number of trials (default: the scenario's, else 1,000,000)."
    ),
]
SeedOpt = Annotated[
    int | None,
    typer.Option(
        "--seed", "-s", min=0, help="Master seed (default: the scenario's, else random; printed)."
    ),
]
PlotOpt = Annotated[Path | None, typer.Option("--plot", "-p", help="Write a PNG plot here.")]
StatOpt = Annotated[
    str | None,
    typer.Option(
        "--stat", help="Statistic to plot / tabulate as P(>= k) (default: the scenario's main one)."
    ),
]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def _load(path: Path):
    from oddslab.scenario import ScenarioError, load

    try:
        return load(path)
    except ScenarioError as exc:
        raise _fail(str(exc)) from None


def _main_stat(outcome, stat: str | None) -> str:
    names = outcome.stat_names
    if stat is not None:
        if stat not in names:
            raise _fail(f"--stat: no statistic '{stat}'; choose from {', '.join(names)}")
        return stat
    primary = outcome.meta.get("primary")
    if primary in names:
        return primary
    for guess in ("models_slain", "models_destroyed", "total", "damage", "unsaved"):
        if guess in names:
            return guess
    return next((s.name for s in outcome.stats if not s.flag), names[0])


def _progress_runner():
    """A progress callback that shows a rich bar once a run has taken more than ~1 s."""
    import time

    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    state = {"start": time.perf_counter(), "bar": None, "task": None}

    def callback(done: int, total: int | None) -> None:
        if state["bar"] is None:
            if time.perf_counter() - state["start"] < 1.0 or not sys.stderr.isatty():
                return
            bar = Progress(
                TextColumn("simulating"),
                BarColumn(),
                TextColumn("{task.completed:,} trials"),
                TimeElapsedColumn(),
                transient=True,
            )
            bar.start()
            state["bar"], state["task"] = bar, bar.add_task("run", total=total)
        state["bar"].update(state["task"], completed=done, total=total)

    def close() -> None:
        if state["bar"] is not None:
            state["bar"].stop()

    return callback, close


def _run(scenario, trials, seed, precision, exact: bool):
    from oddslab.engine import simulate

    if exact:
        from oddslab.exact import exact as exact_outcome

        try:
            return exact_outcome(scenario)
        except NotImplementedError as exc:
            raise _fail(str(exc)) from None
    callback, close = _progress_runner()
    try:
        return simulate(scenario, trials=trials, seed=seed, precision=precision, progress=callback)
    except ValueError as exc:
        raise _fail(str(exc)) from None
    finally:
        close()


def _print_tables(outcome, stat: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if outcome.exact:
        head = "exact"
    else:
        head = f"{outcome.trials:,} trials, seed {outcome.seed}, {outcome.elapsed:.2f} s"
        if outcome.interrupted:
            head += " — interrupted (Ctrl-C): partial result"
    console.print(f"[bold]{outcome.name}[/bold]  ({head})")

    probs = outcome.probabilities()
    if len(probs):
        t = Table(title="Headline probabilities", title_justify="left")
        for col in ("outcome", "P", "± SE", "95% CI"):
            t.add_column(col, justify="left" if col == "outcome" else "right")
        for r in probs.itertuples():
            t.add_row(
                r.label, f"{r.probability:.4f}", f"{r.se:.4f}", f"{r.ci_low:.4f} – {r.ci_high:.4f}"
            )
        console.print(t)

    summ = outcome.summary()
    t = Table(title="Per-trial statistics", title_justify="left")
    for col in ("stat", "mean", "± SE", "sd", "5%", "median", "95%", "max"):
        t.add_column(col, justify="left" if col == "stat" else "right")
    for name, r in summ.iterrows():
        t.add_row(
            name,
            f"{r['mean']:.3f}",
            f"{r['se_mean']:.3f}",
            f"{r['sd']:.3f}",
            str(r["q05"]),
            str(r["q50"]),
            str(r["q95"]),
            str(r["max"]),
        )
    console.print(t)

    al = outcome.at_least(stat)
    t = Table(title=f"P({stat} ≥ k)", title_justify="left")
    for col in ("k", "P", "± SE"):
        t.add_column(col, justify="right")
    for r in al.itertuples():
        if r.k == 0:
            continue
        t.add_row(str(r.k), f"{r.probability:.4f}", f"{r.se:.4f}")
    console.print(t)


def _emit(outcome, fmt: Format, stat: str) -> None:
    if fmt is Format.csv:
        typer.echo(outcome.to_csv(), nl=False)
    elif fmt is Format.json:
        typer.echo(outcome.to_json())
    else:
        _print_tables(outcome, stat)


def _plot_single(outcome, stat: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from oddslab.plotting import plot_at_least, plot_pmf, save

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    plot_pmf(outcome, stat, ax=a1)
    plot_at_least(outcome, stat, ax=a2)
    a2.set_title(f"P(at least k {stat.replace('_', ' ')})")
    save(a1, str(path))
    typer.echo(f"plot written to {path}", err=True)


@app.command()
def simulate(
    scenario: Annotated[Path, typer.Argument(help="Scenario TOML file.")],
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    precision: Annotated[
        float | None,
        typer.Option(
            help="Stop when every headline probability's 95% CI half-width is below this (e.g. 0.001)."
        ),
    ] = None,
    exact: Annotated[
        bool,
        typer.Option(
            "--exact", help="Exact distributions (static statistics only) instead of simulation."
        ),
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    plot: PlotOpt = None,
    stat: StatOpt = None,
) -> None:
    """Simulate one scenario file and print its outcome distribution."""
    sc = _load(scenario)
    outcome = _run(sc, trials, seed, precision, exact)
    main = _main_stat(outcome, stat)
    _emit(outcome, fmt, main)
    if plot is not None:
        _plot_single(outcome, main, plot)


@app.command()
def compare(
    scenarios: Annotated[
        list[Path], typer.Argument(help="Two or more scenario files (same target).")
    ],
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    plot: PlotOpt = None,
    stat: StatOpt = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
) -> None:
    """Run several scenarios and show them side by side (and overlaid in one plot)."""
    if len(scenarios) < 2:
        raise _fail("compare needs at least two scenario files")
    loaded = [_load(p) for p in scenarios]
    targets = [getattr(sc, "target", None) for sc in loaded]
    if any(t is not None and t != targets[0] for t in targets[1:]):
        typer.echo(
            "note: the scenarios' targets differ; the comparison mixes attackers and targets",
            err=True,
        )
    outcomes = [_run(sc, trials, seed, None, False) for sc in loaded]
    main = _main_stat(outcomes[0], stat)
    for o, p in zip(outcomes, scenarios, strict=True):
        if main not in o.stat_names:
            raise _fail(f"{p}: has no statistic '{main}' to compare (use --stat)")
    import pandas as pd

    cols = {}
    for o, p in zip(outcomes, scenarios, strict=True):
        col = {}
        for r in o.probabilities().itertuples():
            col[r.label] = r.probability
        for name, r in o.summary().iterrows():
            col[f"mean {name}"] = r["mean"]
        cols[f"{o.name} [{p.name}]"] = col
    table = pd.DataFrame(cols)
    if fmt is Format.csv:
        typer.echo(table.to_csv(), nl=False)
    elif fmt is Format.json:
        typer.echo(table.to_json(indent=2))
    else:
        from rich.console import Console
        from rich.table import Table

        t = Table(
            title=f"Comparison ({', '.join(f'{o.trials:,}' for o in outcomes)} trials)",
            title_justify="left",
        )
        t.add_column("")
        for c in table.columns:
            t.add_column(c, justify="right")
        for idx, row in table.iterrows():
            t.add_row(str(idx), *("" if pd.isna(v) else f"{v:.4f}" for v in row))
        Console().print(t)
    if plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from oddslab.plotting import plot_compare, save

        ax = plot_compare(outcomes, main, labels=[f"{o.name}" for o in outcomes])
        save(ax, str(plot))
        typer.echo(f"plot written to {plot}", err=True)


@app.command()
def roll(
    expression: Annotated[
        str,
        typer.Argument(
            help='Dice pool, e.g. "4D6 explode 6", "10D6 count 4+ reroll 1", "2D6 <= 7", "3D6 vs 2D6". See docs/dice-pools.md.'
        ),
    ],
    trials: TrialsOpt = None,
    seed: SeedOpt = None,
    simulate_: Annotated[
        bool, typer.Option("--simulate", help="Monte Carlo instead of the exact answer.")
    ] = False,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.table,
    plot: PlotOpt = None,
) -> None:
    """Quick answers for a dice pool (exact by default)."""
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


@app.command(name="examples")
def list_examples() -> None:
    """List the example scenario files shipped with the package."""
    root = Path(__file__).resolve().parent / "examples"
    for p in sorted(root.glob("*.toml")):
        typer.echo(str(p))


def main() -> None:  # pragma: no cover - entry point
    app()


from oddslab.analysis.cli import register as _register_analysis  # noqa: E402 (issue 14: analysis commands)

_register_analysis(app)
