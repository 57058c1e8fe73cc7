"""Plots of outcome distributions. Every function takes ``ax=None`` and returns the Axes.

pyplot is imported only when a plot is made, so importing oddslab stays light and works
without a display (the CLI and tests use the Agg backend).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from oddslab.outcome import Z95, Outcome

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["plot_pmf", "plot_at_least", "plot_compare"]


def _axes(ax: Axes | None) -> Axes:
    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(7, 4.2))
    return ax


def _title(outcome: Outcome) -> str:
    if outcome.exact:
        return f"{outcome.name} (exact)"
    return f"{outcome.name} ({outcome.trials:,} trials)"


def plot_pmf(outcome: Outcome, stat: str, ax: Axes | None = None, **bar_kw: Any) -> Axes:
    """Bar chart of ``P(stat == k)`` with ±1.96 standard-error whiskers (Monte Carlo runs).

    Parameters
    ----------
    outcome : Outcome
    stat : str
        Statistic name, e.g. ``"models_slain"``.
    ax : matplotlib Axes, optional
    **bar_kw
        Passed to ``ax.bar``.
    """
    ax = _axes(ax)
    df = outcome.pmf(stat)
    err = None if outcome.exact else Z95 * df["se"].to_numpy()
    ax.bar(df["value"], df["probability"], yerr=err, capsize=2, **{"alpha": 0.85, **bar_kw})
    ax.set_xlabel(stat.replace("_", " "))
    ax.set_ylabel("probability")
    ax.xaxis.set_major_locator(_int_locator())
    ax.set_title(_title(outcome))
    ax.grid(axis="y", alpha=0.3)
    return ax


def plot_at_least(
    outcome: Outcome,
    stat: str,
    ax: Axes | None = None,
    label: str | None = None,
    **line_kw: Any,
) -> Axes:
    """``P(stat >= k)`` against ``k``, with a shaded 95% interval for Monte Carlo runs."""
    ax = _axes(ax)
    df = outcome.at_least(stat)
    k = df["k"].to_numpy()
    p = df["probability"].to_numpy()
    (line,) = ax.plot(k, p, marker="o", ms=3.5, label=label or outcome.name, **line_kw)
    if not outcome.exact:
        ax.fill_between(k, df["ci_low"], df["ci_high"], color=line.get_color(), alpha=0.2, lw=0)
    ax.set_xlabel(f"k ({stat.replace('_', ' ')})")
    ax.set_ylabel(f"P({stat} ≥ k)")
    ax.set_ylim(-0.02, 1.02)
    ax.xaxis.set_major_locator(_int_locator())
    ax.grid(alpha=0.3)
    if ax.get_title() == "":
        ax.set_title(f"P(at least k): {stat.replace('_', ' ')}")
    return ax


def plot_compare(
    outcomes: Sequence[Outcome],
    stat: str,
    kind: str = "at_least",
    ax: Axes | None = None,
    labels: Sequence[str] | None = None,
) -> Axes:
    """Several outcomes of the same statistic overlaid.

    Parameters
    ----------
    outcomes : sequence of Outcome
    stat : str
    kind : {"at_least", "pmf"}
        Curves of ``P(stat >= k)``, or side-by-side PMF bars.
    labels : sequence of str, optional
        Legend entries (default: each outcome's name).
    """
    if kind not in ("at_least", "pmf"):
        raise ValueError("kind must be 'at_least' or 'pmf'")
    ax = _axes(ax)
    labels = list(labels) if labels is not None else [o.name for o in outcomes]
    if kind == "at_least":
        for o, lab in zip(outcomes, labels, strict=True):
            plot_at_least(o, stat, ax=ax, label=lab)
    else:
        width = 0.8 / max(len(outcomes), 1)
        for i, (o, lab) in enumerate(zip(outcomes, labels, strict=True)):
            df = o.pmf(stat)
            x = df["value"].to_numpy() + (i - (len(outcomes) - 1) / 2) * width
            ax.bar(x, df["probability"], width=width, label=lab, alpha=0.85)
        ax.set_xlabel(stat.replace("_", " "))
        ax.set_ylabel("probability")
        ax.xaxis.set_major_locator(_int_locator())
        ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"{stat.replace('_', ' ')}: comparison")
    ax.legend()
    return ax


def _int_locator():
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(integer=True)


def save(ax: Axes, path: str, dpi: int = 120) -> None:
    """Save the figure holding ``ax`` and close it."""
    import matplotlib.pyplot as plt

    fig = ax.figure
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
