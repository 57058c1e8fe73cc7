"""Heatmaps and plain words for the analysis plots (sweeps and matchups).

- Labels never overlap: long names wrap onto lines of :data:`WRAP` characters, column labels
  turn 45° when they would not fit side by side, and the figure grows with the labels.
- Cell text is written while it stays readable (font from 8 down to 6 points as cells
  shrink); above :data:`MAX_ANNOTATED` cells it is dropped (the colour bar carries the scale).
- A cell with no value (not run, or its scenario does not report the metric) is drawn grey
  and hatched, with a legend entry saying so.
- A simulated probability of 0 is written "< 1/n" (e.g. "<1e-06" for a million trials): the
  estimate is 0, the probability is not shown to be.
- Titles and axes are plain words: ``mean(damage_dealt)`` → "mean of wounds lost",
  ``attacker.weapons.0.models`` → "attacker weapon 1 models".
"""

from __future__ import annotations

import re
import textwrap
from typing import Any

import numpy as np

__all__ = ["plain_key", "plain_metric", "heatmap", "MAX_ANNOTATED", "WRAP"]

#: Characters per line of a wrapped axis label.
WRAP = 14
#: Above this many cells a heatmap has no numbers written in it.
MAX_ANNOTATED = 400


def plain_key(path: str) -> str:
    """A varied key in plain words: ``attacker.weapons.0.models`` → "attacker weapon 1
    models", ``target.save`` → "target save", ``units.a.models`` → "units a models"."""
    from oddslab.analysis.paths import split_path

    try:
        parts = split_path(path)
    except ValueError:
        return path
    words: list[str] = []
    for i, p in enumerate(parts):
        if isinstance(p, int):
            if words and words[-1].endswith("s") and isinstance(parts[i - 1], str):
                words[-1] = words[-1][:-1]  # "weapons" 0 → "weapon 1"
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


def _wrap(labels: list[str]) -> list[str]:
    return ["\n".join(textwrap.wrap(str(x), WRAP)) or str(x) for x in labels]


def heatmap(
    ax: Any,
    values: np.ndarray,
    ylabels: list[str],
    xlabels: list[str],
    *,
    se: np.ndarray | None = None,
    trials: np.ndarray | None = None,
    probability: bool = False,
    annotate: bool = True,
) -> Any:
    """Draw ``values`` (rows × columns, NaN = no value) on ``ax``; returns the image.

    ``trials`` (same shape, 0 for exact cells) turns a simulated 0 into "< 1/n" when
    ``probability``; ``se`` adds "± se" under each value.
    """
    import matplotlib.patches as mpatches

    values = np.asarray(values, dtype=float)
    im = ax.imshow(np.ma.masked_invalid(values), aspect="auto", cmap="viridis", origin="upper")
    xw, yw = _wrap(xlabels), _wrap(ylabels)
    longest = max((len(line) for x in xw for line in x.split("\n")), default=1)
    rotate = len(xw) * max(longest, 3) > 60  # would not fit side by side
    ax.set_xticks(range(len(xw)), xw, rotation=45 if rotate else 0,
                  ha="right" if rotate else "center", rotation_mode="anchor")  # fmt: skip
    ax.set_yticks(range(len(yw)), yw)
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
    if annotate and values.size <= MAX_ANNOTATED:
        _annotate(ax, values, se, trials, probability)
    return im


def _annotate(ax: Any, values: np.ndarray, se, trials, probability: bool) -> None:
    finite = values[np.isfinite(values)]
    mid = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    size = max(6, min(8, int(8 - (max(values.shape) - 8) / 6)))
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
            ax.text(j, i, text, ha="center", va="center", fontsize=size,
                    color="black" if v > mid else "white")  # fmt: skip
