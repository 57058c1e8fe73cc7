"""Plots of outcome distributions. Every function takes ``ax=None`` and returns the Axes.

pyplot is imported only when a plot is made, so importing oddslab stays light and works
without a display (the CLI and tests use the Agg backend).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.outcome import Z95, Outcome, format_probability

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = [
    "plot_pmf",
    "plot_at_least",
    "plot_compare",
    "plot_joint",
    "check_plot_path",
    "check_output_file",
    "save",
    "TAIL",
]

#: Plots stop where the rest of the distribution is less likely than this (an exploding pool
#: can reach hundreds with a vanishing probability); the axes say so when they stop early.
TAIL = 1e-4

#: Formats matplotlib writes without extra packages (the file name's extension picks one).
PLOT_FORMATS = (
    "png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp", "pgf",
)  # fmt: skip


def check_plot_path(path: str | Path) -> Path:
    """Check, before any work is done, that a plot can be written to ``path``.

    A name without an extension gets ``.png`` (``out`` → ``out.png``); the returned path is
    the file that will be written, to report to the user.

    Raises
    ------
    ValueError
        When the folder does not exist (or is not a folder, or is not writable), the file
        cannot be written (:func:`check_output_file`), or the extension is not a format
        matplotlib writes (see :data:`PLOT_FORMATS`).
    """
    p = Path(path).expanduser()
    if p.is_dir():
        raise ValueError(f"'{path}' is a folder; give a file name such as {p / 'plot.png'}")
    if p.suffix == "" or p.suffix == ".":
        p = p.with_name(p.name.rstrip(".") + ".png")
    fmt = p.suffix[1:].lower()
    if fmt not in PLOT_FORMATS:
        raise ValueError(
            f"'{path}': unknown plot format '.{fmt}'; use one of {', '.join(PLOT_FORMATS)}"
        )
    if p.is_dir():
        raise ValueError(f"'{path}' is a folder; give a file name such as {p / 'plot.png'}")
    check_output_file(p, str(path))
    return p


def check_output_file(p: Path, shown: str) -> None:
    """Check that the file ``p`` (named ``shown`` in messages) can be written, before any
    work: its folder exists, is a folder and is writable, and the file itself can be opened
    for writing (some folders accept nothing, e.g. ``/proc``; an existing file may be
    read-only). Opening does not change an existing file; a file created by the check is
    removed again.

    Raises
    ------
    ValueError
        Naming the file and the reason.
    """
    import os

    folder = p.parent
    if p.is_dir():
        raise ValueError(f"'{shown}' is a folder; give a file name")
    if not folder.exists():
        raise ValueError(f"'{shown}': the folder '{folder}' does not exist")
    if not folder.is_dir():
        raise ValueError(f"'{shown}': '{folder}' is not a folder")
    if not os.access(folder, os.W_OK):
        raise ValueError(f"'{shown}': the folder '{folder}' is not writable")
    existed = p.exists()
    try:
        with open(p, "ab"):
            pass
    except OSError as exc:
        raise ValueError(f"'{shown}': cannot write this file ({exc.strerror or exc})") from None
    if not existed:
        try:
            p.unlink()
        except OSError:  # pragma: no cover - created a moment ago in a writable folder
            pass


def _shown_max(outcome: Outcome, stat: str) -> tuple[int, float]:
    """Largest value to draw and the probability left beyond it (0 when nothing is cut)."""
    p = outcome.probs[stat]
    nz = np.nonzero(p > 0)[0]
    last = int(nz[-1]) if len(nz) else 0
    tail = np.cumsum(p[::-1])[::-1]  # tail[k] = P(stat >= k)
    beyond = np.nonzero(tail[1:] < TAIL)[0]  # tail[k + 1] < TAIL: values above k are rare
    kmax = int(beyond[0]) if len(beyond) else last
    kmax = max(min(kmax, last), 1)
    left = float(tail[kmax + 1]) if kmax + 1 < len(tail) else 0.0
    return kmax, left


def _note_cut(ax: Axes, kmax: int, left: float) -> None:
    if left > 0:
        ax.text(
            0.99,
            0.97,
            f"values above {kmax} (P = {left:.1e}) not shown",
            transform=ax.transAxes,
            ha="right",
            va="top",
            fontsize=8,
            color="0.35",
        )


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
    kmax, left = _shown_max(outcome, stat)
    rows = outcome.pmf_rows(stat)[: kmax + 1]
    x = [r["value"] for r in rows]
    y = [r["probability"] for r in rows]
    err = None if outcome.exact else [Z95 * r["se"] for r in rows]
    ax.bar(x, y, yerr=err, capsize=2, **{"alpha": 0.85, **bar_kw})
    _note_cut(ax, kmax, left)
    ax.set_xlabel(outcome.title(stat))
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
    kmax, left = _shown_max(outcome, stat)
    rows = outcome.at_least_rows(stat)[: kmax + 2]
    k = [r["k"] for r in rows]
    p = [r["probability"] for r in rows]
    (line,) = ax.plot(k, p, marker="o", ms=3.5, label=label or outcome.name, **line_kw)
    if not outcome.exact:
        lo = [r["ci_low"] for r in rows]
        hi = [r["ci_high"] for r in rows]
        ax.fill_between(k, lo, hi, color=line.get_color(), alpha=0.2, lw=0)
    if ax.get_legend() is None and not ax.texts:
        _note_cut(ax, kmax, left)
    title = outcome.title(stat)
    ax.set_xlabel(f"k ({title})")
    ax.set_ylabel(f"P({title} ≥ k)")
    ax.set_ylim(-0.02, 1.02)
    ax.xaxis.set_major_locator(_int_locator())
    ax.grid(alpha=0.3)
    if ax.get_title() == "":
        ax.set_title(f"P(at least k): {title}")
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
        kmax = max(_shown_max(o, stat)[0] for o in outcomes)
        for i, (o, lab) in enumerate(zip(outcomes, labels, strict=True)):
            rows = o.pmf_rows(stat)[: kmax + 1]
            x = [r["value"] + (i - (len(outcomes) - 1) / 2) * width for r in rows]
            ax.bar(x, [r["probability"] for r in rows], width=width, label=lab, alpha=0.85)
        ax.set_xlabel(outcomes[0].title(stat) if outcomes else stat)
        ax.set_ylabel("probability")
        ax.xaxis.set_major_locator(_int_locator())
        ax.grid(axis="y", alpha=0.3)
    ax.set_title(f"{outcomes[0].title(stat) if outcomes else stat}: comparison")
    ax.legend()
    return ax


def plot_joint(
    outcome: Outcome, a: str, b: str, ax: Axes | None = None, annotate: int = 12
) -> Axes:
    """Heatmap of the joint distribution ``P(a == i and b == j)``.

    Rows are the values of ``a`` (bottom to top), columns those of ``b``; the colour is the
    probability on a log scale from the smallest occurring probability; combinations that
    never occurred are blank. Each cell is written out when the table is at most
    ``annotate`` values each way and every value fits its cell at 7 points (else the cells
    would not be readable, or their numbers would run into each other).

    Parameters
    ----------
    outcome : Outcome
        With the joint of ``a`` and ``b`` (``simulate(joint=[(a, b)])``, an exact joint, or
        records kept).
    a, b : str
        Statistic names.
    ax : matplotlib Axes, optional
    annotate : int
        Largest number of values per axis for which cell text is written.
    """
    from matplotlib.colors import LogNorm

    table = outcome.joint_table(a, b)
    ax = _axes(ax)
    z = table.to_numpy(dtype=float)
    shown = np.where(z > 0, z, np.nan)
    lo = float(np.nanmin(shown)) if np.isfinite(shown).any() else 1e-9
    hi = float(np.nanmax(shown)) if np.isfinite(shown).any() else 1.0
    mesh = ax.imshow(
        shown, origin="lower", aspect="auto", cmap="viridis", norm=LogNorm(lo, max(hi, lo * 1.0001))
    )
    rows, cols = list(table.index), list(table.columns)
    ax.set_yticks(range(len(rows)), [str(v) for v in rows])
    ax.set_xticks(range(len(cols)), [str(v) for v in cols])
    if len(cols) > 20:  # keep tick labels apart
        ax.xaxis.set_major_locator(_int_locator())
    if len(rows) > 20:
        ax.yaxis.set_major_locator(_int_locator())
    ax.figure.colorbar(mesh, ax=ax, label="probability (blank: never happened)")
    ax.set_xlabel(outcome.title(b))
    ax.set_ylabel(outcome.title(a))
    src = table.attrs.get("source", "")
    extra = f", {src}" if src and src not in ("trials", "exact") else ""
    ax.set_title(f"{_title(outcome)}{extra}")
    # cell numbers last, measured against the cells as laid out with everything else
    texts = {(i, j): format_probability(z[i, j]) for i, j in zip(*np.nonzero(z > 0), strict=True)}
    if len(rows) <= annotate and len(cols) <= annotate and _fits(ax, texts, z.shape, 7):
        for (i, j), text in texts.items():
            ax.text(j, i, text, ha="center", va="center", fontsize=7,
                    color="white" if z[i, j] < (lo * hi) ** 0.5 else "black")  # fmt: skip
    return ax


def _fits(ax: Axes, texts: dict, shape: tuple[int, int], size: float) -> bool:
    """True when the widest of ``texts`` at ``size`` points fits a cell of ``ax`` (a table
    of ``shape`` cells, as laid out now): else cell numbers would run into each other."""
    if not texts:
        return False
    fig = ax.figure
    canvas = fig.canvas
    renderer = canvas.get_renderer() if hasattr(canvas, "get_renderer") else fig._get_renderer()
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        fig.draw_without_rendering()
    else:
        fig.tight_layout()  # the layout it is saved with (``save``, the CLI)
    box = ax.get_window_extent(renderer)
    probe = ax.text(0, 0, max(texts.values(), key=len), fontsize=size)
    wide = probe.get_window_extent(renderer).width
    probe.remove()
    return wide + 2 * fig.dpi / 72 <= box.width / shape[1]


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
