"""Checks shared by the command-line front ends (``oddslab`` and its analysis commands).

Both :mod:`oddslab.cli` and :mod:`oddslab.analysis.cli` use these, so neither imports the
other.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = [
    "check_plot",
    "fail",
    "plot_single",
    "save_plot",
    "parse_trials",
    "MAX_TRIALS",
    "McOpt",
    "SCENARIO_HELP",
]

MAX_TRIALS = 10**10  # = oddslab.engine.MAX_TRIALS (tested), kept here to keep --help light


def fail(message: str) -> typer.Exit:
    """Print ``error: message`` on stderr; the ``typer.Exit`` (code 2) to raise."""
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def check_plot(plot: Path | None) -> Path | None:
    """The real file the plot will go to, checked before any work (exit 2 if unwritable)."""
    if plot is None:
        return None
    from oddslab.plotting import check_plot_path

    try:
        return check_plot_path(plot)
    except ValueError as exc:
        raise fail(f"--plot {exc}") from None


def parse_trials(text: str) -> int:
    """``-n``: a whole number of trials written as ``1000000``, ``1_000_000``,
    ``1,000,000`` or ``1e6``, from 1 to :data:`MAX_TRIALS` (else a usage error saying so)."""
    what = f"expected a number of trials from 1 to {MAX_TRIALS:,} (such as 1000000 or 1e6)"
    clean = text.strip().replace("_", "").replace(",", "")
    try:
        value = int(clean) if clean.lstrip("+").isdigit() else float(clean)
    except ValueError:
        raise typer.BadParameter(f"{what}, got '{text}'") from None
    if isinstance(value, float) and not value.is_integer():
        raise typer.BadParameter(f"{what}, got '{text}' (not a whole number)")
    if not 1 <= value <= MAX_TRIALS:
        raise typer.BadParameter(f"{what}, got '{text}'")
    return int(value)


SCENARIO_HELP = "Scenario TOML file, or a shipped example's name (see `oddslab examples`)."
McOpt = Annotated[
    bool,
    typer.Option(
        "--mc",
        metavar="",
        help="Monte Carlo even where the exact engine has the answer (the default then).",
    ),
]


def plot_single(outcome, stat: str, path: Path) -> None:
    """The PMF bars and the P(>= k) curve of ``stat`` side by side, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from oddslab.plotting import plot_at_least, plot_pmf

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    plot_pmf(outcome, stat, ax=a1)
    plot_at_least(outcome, stat, ax=a2)
    a2.set_title(f"P(at least k): {outcome.title(stat)}")
    save_plot(a1, path)


def save_plot(ax, path: Path) -> None:
    """Write the plot, or exit 2 with the reason (the file was checked before the run, but
    the disk may have filled or the folder gone since)."""
    from oddslab.plotting import save

    try:
        save(ax, str(path))
    except OSError as exc:
        raise fail(f"--plot '{path}': cannot write the plot ({exc.strerror or exc})") from None
    typer.echo(f"plot written to {path}", err=True)
