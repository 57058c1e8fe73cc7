"""Checks shared by the command-line front ends (``oddslab`` and its analysis commands).

Both :mod:`oddslab.cli` and :mod:`oddslab.analysis.cli` use these, so neither imports the
other.
"""

from __future__ import annotations

from pathlib import Path

import typer

__all__ = ["check_plot", "fail"]


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
