"""Tables of events and joint distributions for the terminal (``--event``, ``--joint``)."""

from __future__ import annotations

import math
from typing import Any

from oddslab._format import format_probability
from oddslab._tables import print_table

__all__ = ["print_events", "print_joint", "MATRIX_MAX"]

#: Largest number of values per statistic a two-statistic joint is printed as a matrix
#: (wider ones are listed as their most likely combinations).
MATRIX_MAX = 12
#: Combinations listed for a joint too wide for a matrix.
TOP = 20


def _ci(lo: float, hi: float) -> str:
    return f"{format_probability(lo)} – {format_probability(hi)}"


def print_events(outcome: Any, con: Any) -> None:
    """One row per event: P, ± SE, 95% CI, and the trials behind it (for ``A | B``: the
    trials in which B happened)."""
    mc = not outcome.exact
    cols = [("event", "left"), ("P", "right")]
    if mc:
        cols += [("± SE", "right"), ("95% CI", "right"), ("trials", "right")]
    body = []
    for r in outcome.events.values():
        label = r.label if r.label == r.text else f"{r.label}: {r.text}"
        if math.isnan(r.probability):
            body.append([label, "undefined", *((r.note, "", "") if mc else ())])
            if not mc:
                body[-1][1] = f"undefined ({r.note})"
            continue
        cells = [label, format_probability(r.probability)]
        if mc:
            given = " (given)" if r.conditional else ""
            se = format_probability(r.se) if r.se >= 1e-9 else "0"  # as the headlines
            cells += [se, _ci(r.ci_low, r.ci_high), f"{r.trials:,}{given}"]
        body.append(cells)
    print_table(con, "Events", cols, body, min_width=24)


def print_joint(outcome: Any, names: tuple[str, ...], con: Any) -> None:
    """A two-statistic joint as a matrix (rows ``names[0]``, columns ``names[1]``) when it
    is at most :data:`MATRIX_MAX` values each way; otherwise (or for three or more
    statistics) its :data:`TOP` most likely combinations."""
    frame = outcome.joint(*names)
    n = frame.attrs.get("trials")
    src = f" ({n:,} trials)" if n else " (exact)"
    titles = " × ".join(outcome.title(x) for x in names)
    if len(names) == 2:
        table = outcome.joint_table(*names)
        if len(table.index) <= MATRIX_MAX and len(table.columns) <= MATRIX_MAX:
            a, b = names
            cols = [(f"{a} \\ {b}", "left")] + [(str(c), "right") for c in table.columns]
            body = [
                [str(i)] + [format_probability(v) if v > 0 else "·" for v in table.loc[i]]
                for i in table.index
            ]
            print_table(con, f"Joint: {titles}{src}", cols, body, min_width=24)
            return
    top = frame.sort_values("probability", ascending=False).head(TOP)
    cols = [(x, "right") for x in names] + [("P", "right")]
    if n:
        cols += [("± SE", "right")]
    body = []
    for _, row in top.iterrows():
        cells = [str(int(row[x])) for x in names] + [format_probability(row["probability"])]
        if n:
            cells.append(format_probability(row["se"]) if row["se"] >= 1e-9 else "0")
        body.append(cells)
    more = len(frame) - len(top)
    tail = f"; {more:,} more combinations: Outcome.joint() has them all" if more > 0 else ""
    print_table(con, f"Joint: {titles}{src}, most likely first{tail}", cols, body, min_width=24)
