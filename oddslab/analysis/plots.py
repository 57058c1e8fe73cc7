"""Heatmaps and plain words for the analysis plots (sweeps, matchups, efficiency).

- Labels never overlap and are never alike, whatever their length and count: a name wraps
  between words onto lines of :data:`WRAP` characters, at most :data:`MAX_LINES` lines (a
  longer name is cut with "…" and written in full in a footnote under the plot; names that
  would be cut alike are told apart: :mod:`oddslab.analysis.plot_labels`); the figure grows
  to hold the footnote; titles and axis labels wrap to the figure's width; column labels
  turn 90° when they would not fit side by side; the tick labels are measured once drawn, and the figure grows until every
  row and every column has room for its label (a big matrix of long names makes a big figure).
- Cell text is written only where it is readable: the largest size from :data:`CELL_FONT`
  down to :data:`MIN_CELL_FONT` points that fits every cell (points are the same at any DPI:
  7 points are 11.7 pixels in the CLI's 120-DPI files). Smaller than that, or above
  :data:`MAX_ANNOTATED` cells, the numbers are dropped and a note under the plot says that
  the values are in the colour bar and the table.
- A cell with no value (not run, or its scenario does not report the metric) is drawn grey
  and hatched, with a legend entry saying so.
- A simulated probability of 0 is written "< 1/n" (e.g. "<1e-06" for a million trials): the
  estimate is 0, the probability is not shown to be.
- Titles and axes are plain words: ``mean(damage_dealt)`` → "mean of wounds lost",
  ``attacker.weapons.0.models`` → "attacker weapon 1 models",
  ``hexes.0.units.1.he`` → "hex 1 unit 2 he".
"""

from __future__ import annotations

import re
import textwrap
import warnings
from typing import Any

import numpy as np

from oddslab.analysis.plot_labels import (
    MAX_LINES,
    WRAP,
    axis_tag,
    cut_names,
    distinct_labels,
)

__all__ = [
    "plain_key",
    "plain_metric",
    "heatmap",
    "integer_ticks",
    "category_ticks",
    "fit_titles",
    "efficiency_label",
    "MAX_ANNOTATED",
    "WRAP",
    "MAX_LINES",
    "LABEL_FONT",
    "CELL_FONT",
    "MIN_CELL_FONT",
]

#: Size of the tick labels of a heatmap, in points.
LABEL_FONT = 8.0
#: Largest size of the numbers written in heatmap cells, in points.
CELL_FONT = 9.0
#: Smallest size of the numbers written in heatmap cells, in points (7 pt = 11.7 px at the
#: CLI's 120 DPI); cells too small for it have no numbers.
MIN_CELL_FONT = 7.0
#: Above this many cells a heatmap has no numbers written in it.
MAX_ANNOTATED = 400
#: Room left between two neighbouring tick labels, in points.
_GAP = 3.0
#: How much taller text may be drawn than measured (at another DPI), as a fraction.
_SLACK = 0.06
#: Smallest width and height of a plot whose figure grows for its labels, in inches.
_MIN_AXES = 2.0

# plurals the rulesets' list keys use that dropping an "s" gets wrong (the test lists every
# list key of every ruleset's schema)
_SINGULAR = {"dice": "die", "vs": "vs", "aa": "aa", "hexes": "hex", "batteries": "battery"}


def _singular(word: str) -> str:
    """``"weapons"`` → ``"weapon"``, ``"hexes"`` → ``"hex"``, ``"batteries"`` → ``"battery"``;
    the last word of ``"extra rerolls"``; a word that is no plural is kept."""
    head, _, last = word.rpartition(" ")
    if last in _SINGULAR:
        one = _SINGULAR[last]
    elif last.endswith("ies") and len(last) > 4:
        one = last[:-3] + "y"
    elif last.endswith(("xes", "ches", "shes", "sses")):
        one = last[:-2]
    elif last.endswith("s") and not last.endswith(("ss", "us")) and len(last) > 2:
        one = last[:-1]
    else:
        one = last
    return f"{head} {one}" if head else one


def plain_key(path: str) -> str:
    """A varied key in plain words: ``attacker.weapons.0.models`` → "attacker weapon 1
    models", ``hexes[0].units[1].he`` → "hex 1 unit 2 he", ``target.save`` → "target save",
    ``units.a.models`` → "units a models" (a named table keeps its plural)."""
    from oddslab.analysis.paths import split_path

    try:
        parts = split_path(path)
    except ValueError:
        return path
    words: list[str] = []
    for i, p in enumerate(parts):
        if isinstance(p, int):
            if words and isinstance(parts[i - 1], str):
                words[-1] = _singular(words[-1])  # "weapons" 0 → "weapon 1"
            words.append(str(p + 1))
        else:
            words.append(p.replace("_", " "))
    return " ".join(words)


def plain_metric(text: str, outcome: Any = None) -> str:
    """A metric in plain words, with the statistic's label when ``outcome`` has it:
    ``mean(damage_dealt)`` → "mean of wounds lost", ``P(models_slain >= 5)`` → "P(target
    models slain ≥ 5)"; headline labels are already plain."""
    from oddslab.analysis.metrics import parse_metric

    try:
        m = parse_metric(text)
    except ValueError:
        return text

    def title(stat: str) -> str:
        if outcome is not None:
            try:
                return str(outcome.title(stat))
            except (KeyError, AttributeError):
                pass
        return stat.replace("_", " ")

    ops = {">=": "≥", "<=": "≤", "!=": "≠", "==": "=", "=": "=", ">": ">", "<": "<"}
    if m.kind == "mean":
        return f"mean of {title(m.stat)}"
    if m.kind == "compare":
        return f"P({title(m.stat)} {ops[m.op]} {m.k})"
    if m.kind == "points_removed":
        return "points removed"
    return re.sub(r"_", " ", m.text)


def efficiency_label(result: Any) -> str:
    """The x-axis of an efficiency plot in plain words: "mean of wounds lost per 100
    points" (``result`` an :class:`~oddslab.analysis.points.EfficiencyResult`)."""
    metric = str(result.table.attrs.get("metric", "the metric"))
    outcome = next(result.matchup.iter_outcomes(), None)
    return textwrap.fill(f"{plain_metric(metric, outcome)} per 100 points", 60)


def integer_ticks(axis: Any) -> None:
    """Ticks at whole numbers only on ``axis`` (``ax.xaxis``): an integer key is never
    ticked at 3.25."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def heatmap(
    values: np.ndarray,
    ylabels: list[str],
    xlabels: list[str],
    *,
    ax: Any = None,
    se: np.ndarray | None = None,
    trials: np.ndarray | None = None,
    probability: bool = False,
    annotate: bool = True,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
) -> Any:
    """Draw ``values`` (rows × columns, NaN = no value) with labels that never overlap.

    Parameters
    ----------
    values : array of float, shape (rows, columns)
    ylabels, xlabels : list of str
        One name per row / column (any length: see the module notes).
    ax : matplotlib Axes, optional
        Its figure grows when the labels need more room.
    se : array of float, same shape, optional
        Adds "± se" under each value.
    trials : array of int, same shape, optional
        0 for exact cells; with ``probability`` a simulated 0 is written "< 1/n".
    annotate : bool
        Write the values in the cells (where readable).
    title, xlabel, ylabel : str
        Set before the layout is measured, so they get room too.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.patches as mpatches

    if ax is None:
        import matplotlib.pyplot as plt

        _, ax = plt.subplots(figsize=(6.4, 4.8))
    values = np.asarray(values, dtype=float)
    im = ax.imshow(np.ma.masked_invalid(values), aspect="auto", cmap="viridis", origin="upper")
    ty, tx = axis_tag(ylabel, "R"), axis_tag(xlabel, "C")
    ty, tx = ("R", "C") if ty == tx else (ty, tx)
    xs, ys = (
        distinct_labels(list(map(str, xlabels)), tx),
        distinct_labels(list(map(str, ylabels)), ty),
    )
    ax.set_xticks(range(len(xs)), [x for x, _ in xs], fontsize=LABEL_FONT)
    ax.set_yticks(range(len(ys)), [y for y, _ in ys], fontsize=LABEL_FONT)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    bar = ax.figure.colorbar(im, ax=ax)
    missing = ~np.isfinite(values)
    if missing.any():
        for i, j in zip(*np.nonzero(missing), strict=True):
            ax.add_patch(mpatches.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="0.85",
                                            hatch="//", edgecolor="0.5", lw=0))  # fmt: skip
        handle = mpatches.Patch(facecolor="0.85", hatch="//", edgecolor="0.5",
                                label="no value\n(not run, or\nnot reported)")  # fmt: skip
        # under the colour bar: clear of the tick labels and the axis label
        bar.ax.legend(handles=[handle], loc="upper left", bbox_to_anchor=(-0.5, -0.03),
                      fontsize=7, frameon=False, handlelength=1.2)  # fmt: skip
    full = cut_names([*ylabels, *xlabels], [*ys, *xs])
    notes = list(full)
    fit_titles(ax, _fit(ax))
    texts = _cell_texts(values, se, trials, probability) if annotate else {}
    if texts and (values.size > MAX_ANNOTATED or _cell_font(ax, values.shape, texts) is None):
        texts = {}
        notes.insert(0, "cells too small to write their values: read them off the colour "
                        "bar, or the table")  # fmt: skip
    if notes:
        if full:
            notes.insert(len(notes) - len(full), "names cut short, in full:")
        _footnote(ax, notes)
        _fit(ax)
    if texts:  # last: they are inside the axes and change no margin
        _write_cells(ax, values, texts, _cell_font(ax, values.shape, texts) or MIN_CELL_FONT)
    return ax


def _renderer(fig: Any) -> Any:
    """The renderer text is measured with (Agg's, or the figure's own on other canvases)."""
    canvas = fig.canvas
    return canvas.get_renderer() if hasattr(canvas, "get_renderer") else fig._get_renderer()


def _layout(fig: Any) -> tuple[Any, bool]:
    """Lay ``fig`` out as it will be saved (tight layout unless it has a layout engine of its
    own: constrained layout); the renderer its sizes are measured with, and False when the tight layout did not
    fit (the figure is too small for its margins: it was left as it was)."""
    renderer = _renderer(fig)
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    ok = True
    if not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", UserWarning)
            fig.tight_layout()
        ok = not caught
    else:
        fig.draw_without_rendering()
    return renderer, ok


def _pitches(ax: Any, axis: str) -> float:
    """How many tick spacings the ``axis`` ("x" or "y") of ``ax`` is long (a heatmap of n
    columns: n); the same however big the axes are drawn."""
    ticks = np.sort(np.asarray(ax.get_xticks() if axis == "x" else ax.get_yticks(), float))
    lo, hi = ax.get_xlim() if axis == "x" else ax.get_ylim()
    step = np.diff(ticks).min() if len(ticks) > 1 else 0.0
    return abs(hi - lo) / step if step > 0 else 0.0


def _fit(ax: Any, x: bool = True, y: bool = True) -> Any:
    """Grow the figure until the tick labels of ``ax`` (on ``x``, on ``y``) are apart: each
    tick spacing wider / taller than its label (measured). Column labels turn 90° when
    that takes less room. Returns the renderer of the layout it leaves."""
    fig = ax.figure
    renderer, ok = _layout(fig)
    gap = _GAP * fig.dpi / 72
    xt = ax.get_xticklabels() if x else []
    yt = ax.get_yticklabels() if y else []
    nx, ny = _pitches(ax, "x") if x else 0.0, _pitches(ax, "y") if y else 0.0
    if xt:
        across = max(t.get_window_extent(renderer).width for t in xt) + gap
        tall = max(t.get_window_extent(renderer).height for t in xt) + gap
        if across * nx > ax.get_window_extent(renderer).width and tall < across:
            for t in xt:
                t.set_rotation(90)
                t.set_horizontalalignment("center")
            renderer, ok = _layout(fig)
    for _ in range(20):  # the colour bar takes a share of the width: a few rounds settle it
        w, h = fig.get_size_inches()
        if not ok:  # the margins alone take more than the figure: grow it and lay out again
            fig.set_size_inches(w * 1.25, h * 1.25)
            renderer, ok = _layout(fig)
            continue
        box = ax.get_window_extent(renderer)
        need_w = nx * (max((t.get_window_extent(renderer).width for t in xt), default=0) + gap)
        need_h = ny * (max((t.get_window_extent(renderer).height for t in yt), default=0) + gap)
        # and never a sliver of a plot between tall labels: at least _MIN_AXES inches each way
        need_w, need_h = max(need_w, _MIN_AXES * fig.dpi), max(need_h, _MIN_AXES * fig.dpi)
        dw, dh = max(0.0, need_w - box.width), max(0.0, need_h - box.height)
        if dw == 0 and dh == 0:
            return renderer
        grow = 1.15  # a little more than the gap: the margins move with the labels
        fig.set_size_inches(w + grow * dw / fig.dpi + (dw > 0) * 0.1,
                            h + grow * dh / fig.dpi + (dh > 0) * 0.1)  # fmt: skip
        renderer, ok = _layout(fig)
    return renderer


def category_ticks(ax: Any, labels: list[str], axis: str = "x", tag: str = "") -> None:
    """Name the positions 0, 1, ... of ``axis`` ("x", or "y" for horizontal bars) of ``ax``
    with ``labels`` (values that are not numbers: dice, names) so that they never overlap
    and are never alike: wrapped and cut as heatmap labels (a cut label is written in full
    in a footnote; labels that would be one are told apart, or named ``tag`` and their
    position: "A1"), turned 90° when crowded, the figure grown to fit; the title and the
    x-axis label wrapped to the figure's width."""
    name = ax.get_xlabel() if axis == "x" else ax.get_ylabel()
    step = 1 if axis == "x" else -1  # a y axis reads from the top: "A1" and the footnote too
    ws = distinct_labels([str(x) for x in labels][::step], tag or axis_tag(name, "V"))[::step]
    (ax.set_xticks if axis == "x" else ax.set_yticks)(range(len(ws)), [x for x, _ in ws])
    fit_titles(ax, _fit(ax, x=axis == "x", y=axis == "y"))
    full = cut_names(list(labels)[::step], ws[::step])
    if full:
        _footnote(ax, ["names cut short, in full:", *full])
        _fit(ax, x=axis == "x", y=axis == "y")


def fit_titles(ax: Any, renderer: Any = None) -> None:
    """Wrap the title, the x-axis label and the y-axis label of ``ax`` to the room they
    have: centred on the axes, they reach no further than the figure's nearer edge (never
    cut off). ``renderer``: the one of the figure's current layout (None: lay it out)."""
    fig = ax.figure
    if renderer is None:
        renderer, _ = _layout(fig)
    box = ax.get_window_extent(renderer)
    gap = 2 * _GAP * fig.dpi / 72
    mx, my = (box.x0 + box.x1) / 2, (box.y0 + box.y1) / 2
    across = 2 * min(mx, fig.bbox.width - mx) - gap
    along = 2 * min(my, fig.bbox.height - my) - gap  # the y label is turned 90°
    changed = False
    for t, room, side in [(ax.title, across, "width"), (ax.xaxis.label, across, "width"),
                          (ax.yaxis.label, along, "height")]:  # fmt: skip
        flat = " ".join(t.get_text().split())
        chars = len(flat)
        while flat and getattr(t.get_window_extent(renderer), side) > room and chars > 12:
            chars = int(chars * 0.9)
            t.set_text(textwrap.fill(flat, chars, break_long_words=False))
            changed = True
    if changed:
        _layout(fig)


def _footnote(ax: Any, lines: list[str]) -> None:
    """``lines`` under the x-axis label (or the tick labels), left-aligned with the axes and
    wrapped to the figure's width (so the layout never squeezes the axes to make room); in
    points below the axes, so they stay in place however the axes grow.

    Text is a few per cent taller, in points, at the CLI's 120 DPI than at the 100 DPI it
    is laid out at (glyph sizes round to whole pixels): the footnote keeps that much room
    above it, and an invisible mark under it makes the layout keep that much room below
    (the figure grows to hold the footnote, never cuts it)."""
    from matplotlib.transforms import offset_copy

    fig = ax.figure
    renderer, _ = _layout(fig)
    ax.get_tightbbox(renderer)  # puts the tick labels where the layout has them
    box = ax.get_window_extent(renderer)
    below = [ax.xaxis.label] if ax.get_xlabel() else []
    below += list(ax.get_xticklabels())
    low = min((t.get_window_extent(renderer).y0 for t in below), default=box.y0)
    drop = (box.y0 - low) * 72 / fig.dpi * (1 + _SLACK) + 6
    room = (fig.bbox.width - box.x0) * 72 / fig.dpi - 12  # points, to the figure's edge
    chars = max(30, int(room / (7 * 0.62)))  # 7-point characters are narrower than this
    text = "\n".join(textwrap.fill(line, chars, subsequent_indent="    ",
                                   break_on_hyphens=False) for line in lines)  # fmt: skip
    where = offset_copy(ax.transAxes, fig=fig, y=-drop, units="points")
    note = ax.text(0, 0, text, transform=where, ha="left", va="top", fontsize=7,
                   color="0.3", gid="footnote")  # fmt: skip
    tall = note.get_window_extent(renderer).height * 72 / fig.dpi * (1 + _SLACK) + 2
    below = offset_copy(ax.transAxes, fig=fig, y=-drop - tall, units="points")
    ax.text(0, 0, ".", transform=below, va="top", fontsize=2, alpha=0, gid="footnote-room")


def _cell_texts(values: np.ndarray, se, trials, probability: bool) -> dict:
    out = {}
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            if not np.isfinite(v):
                continue
            n = 0 if trials is None else int(trials[i, j])
            if probability and v == 0 and n > 0:
                text = f"<{1 / n:.0e}"  # none in n trials: the estimate is 0, not the answer
            else:
                text = f"{v:.3g}"
                if se is not None and np.isfinite(se[i, j]) and se[i, j] > 0:
                    text += f"\n±{se[i, j]:.2g}"
            out[i, j] = text
    return out


def _cell_font(ax: Any, shape: tuple[int, int], texts: dict) -> float | None:
    """The largest size, in half points from :data:`CELL_FONT` down to
    :data:`MIN_CELL_FONT`, at which every text fits its cell of ``ax``; None when none
    does."""
    fig = ax.figure
    renderer = _renderer(fig)
    box = ax.get_window_extent(renderer)
    cell_w, cell_h = box.width / shape[1], box.height / shape[0]
    pad = 2 * fig.dpi / 72
    # measure the widest and the tallest texts once, at CELL_FONT (sizes scale linearly);
    # the longest in characters are the widest, give or take a glyph: measure a few of them
    longest = sorted(set(texts.values()), key=lambda t: max(map(len, t.split("\n"))))[-8:]
    tallest = max(texts.values(), key=lambda t: t.count("\n"))
    probe = ax.text(0, 0, "", fontsize=CELL_FONT)
    w = h = 0.0
    for text in {*longest, tallest}:
        probe.set_text(text)
        e = probe.get_window_extent(renderer)
        w, h = max(w, e.width), max(h, e.height)
    probe.remove()
    scale = min(1.0, (cell_w - pad) / max(w, 1e-9), (cell_h - pad) / max(h, 1e-9))
    size = float(np.floor(CELL_FONT * scale * 2) / 2)
    return size if size >= MIN_CELL_FONT else None


def _write_cells(ax: Any, values: np.ndarray, texts: dict, size: float) -> None:
    finite = values[np.isfinite(values)]
    mid = (finite.min() + finite.max()) / 2
    for (i, j), text in texts.items():
        ax.text(j, i, text, ha="center", va="center", fontsize=size,
                color="black" if values[i, j] > mid else "white", gid="cell")  # fmt: skip
