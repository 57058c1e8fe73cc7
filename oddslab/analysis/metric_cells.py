"""A metric read off many finished cells without building an Outcome for each.

A study's table reads one metric in every cell. Through an :class:`~oddslab.outcome.Outcome`
per cell that cost about a millisecond per cell (the Outcome, its probabilities, its events,
then the metric's lookups). Here cells that report the same statistics, headlines and events
(their *layout*) read the metric the same way, so :meth:`Metric.resolve
<oddslab.analysis.metrics.Metric.resolve>` runs once per layout, on the first such cell's
Outcome, and every cell's value is then read straight off its stored histogram with the very
functions an Outcome's reading uses (:func:`~oddslab.analysis.metrics.mean_value`,
:func:`~oddslab.analysis.metrics.prob_value`, :func:`~oddslab.analysis.metrics.scaled_points`,
the stored event answer): the same numbers to the last bit, tested. Only an inline event the
cells did not count (answered from a joint) builds the cell's Outcome.

Cells arrive as :class:`~oddslab.analysis.cells.CellResult` objects, their ``__dict__`` or
the dict of a store row's JSON, one at a time: a reader holds one entry per layout, never
anything per cell.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from oddslab.analysis.metrics import (
    NEVER_NOTE,
    Metric,
    MetricValue,
    common_primary,
    mean_value,
    metric_plan,
    precision_note,
    prob_value,
    read_metric,
    scaled_points,
)

__all__ = [
    "MetricReader",
    "layout_key",
    "result_dict",
    "result_pairs",
    "outcome_of",
    "common_primary_of",
]


def result_dict(r: Any) -> dict[str, Any]:
    """A cell's result as a dict: a :class:`CellResult`'s ``__dict__``, a dict as it is, or
    the dict of its JSON text."""
    import json

    if isinstance(r, str):
        return json.loads(r)
    return r if isinstance(r, dict) else r.__dict__


def result_pairs(cells: Any, results: Any) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(cell values, result as a dict) of a study in cell order: a big study's read from its
    store a chunk at a time (:class:`~oddslab.analysis.stored.StoredResults`)."""
    from oddslab.analysis.stored import StoredResults

    if isinstance(results, StoredResults):
        for values, text in results.rows():
            yield values, result_dict(text)
    else:
        for c, r in zip(cells, results, strict=True):
            yield c.values, result_dict(r)


def outcome_of(d: dict[str, Any]):
    """The :class:`~oddslab.outcome.Outcome` of a result dict (as ``CellResult.outcome()``)."""
    from oddslab.analysis.cells import CellResult

    d = {**d, "stats": tuple(tuple(s) for s in d["stats"]),
         "headlines": tuple(tuple(h) for h in d["headlines"])}  # fmt: skip
    return CellResult(**d).outcome()


def layout_key(d: dict[str, Any]) -> tuple:
    """What decides how a metric reads a cell: its statistics, which of them it answers
    (exact answers leave some out), headlines, the events it answered or skipped (and why),
    its ruleset and the statistics that cannot happen in it (``meta["never"]``: read as 0)."""
    exact = d.get("probs") is not None
    events = d.get("events") or {}
    return (
        tuple(tuple(s) for s in d["stats"]),
        tuple(d["probs"]) if exact else None,
        tuple(tuple(h) for h in d["headlines"]),
        tuple((k, e.get("skipped"), e.get("label"), e.get("text")) for k, e in events.items()),
        d["meta"].get("ruleset"),
        tuple(d["meta"].get("never") or ()),
    )


def _nbins(d: dict[str, Any], stat: str) -> int:
    for s in d["stats"]:
        if s[0] == stat:
            return int(s[1])
    raise KeyError(stat)


def _arrays(d: dict[str, Any], stat: str) -> tuple[np.ndarray | None, np.ndarray]:
    """(counts, probabilities) of one statistic exactly as an Outcome holds them (same
    length, same division), counts None for an exact answer."""
    n = _nbins(d, stat)
    if d.get("probs") is not None:
        pmf = np.asarray(d["probs"][stat], dtype=float)
        p = np.zeros(max(n, len(pmf)))
        p[: len(pmf)] = pmf
        return None, p
    c = np.zeros(n, dtype=np.int64)
    got = d["counts"][stat]
    c[: len(got)] = got
    t = d["trials"]
    return c, (c / t if t else c.astype(float))


class MetricReader:
    """Reads one metric in cell after cell (see the module docstring).

    Parameters
    ----------
    metric : Metric
        A parsed metric (``points_removed`` included: give each cell's target points per
        model to :meth:`read`).
    """

    def __init__(self, metric: Metric) -> None:
        self.metric = metric
        self._plans: dict[tuple, tuple] = {}

    def read(self, r: Any, points_per_model: float | None = None) -> tuple[MetricValue, str]:
        """The metric's value in one cell and its note (see :meth:`_read`), or that the cell
        stopped at its trials ceiling short of the study's precision."""
        d = result_dict(r)
        v, note = self._read(d, points_per_model)  # (a dict passes result_dict as it is)
        return v, precision_note(note, d["meta"], d.get("trials"))

    def _read(self, r: Any, points_per_model: float | None = None) -> tuple[MetricValue, str]:
        """The metric's value in one cell and its note, as :func:`read_metric` (or, for
        ``points_removed``, :func:`~oddslab.analysis.metrics.points_removed`) gives them.

        Raises
        ------
        ValueError
            A headline metric that fits several headlines of the cell (as read_metric).
        """
        d = result_dict(r)
        key = layout_key(d)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._resolve(d)
        m = self.metric
        kind = plan[0]
        if kind == "points":
            stat = plan[1]
            lost = None
            if stat is not None and points_per_model is not None:
                lost = mean_value(_arrays(d, stat)[1], d["trials"] if d.get("probs") is None
                                  else None, "points_removed")  # fmt: skip
            return scaled_points(lost, stat is not None, d["meta"].get("never"), points_per_model)
        if kind == "mean":
            c, p = _arrays(d, plan[1])
            return mean_value(p, None if c is None else d["trials"], m.text), ""
        if kind == "compare":
            c, p = _arrays(d, plan[1])
            return prob_value(c, p, None if c is None else d["trials"], *plan[2:]), ""
        if kind == "event":
            e = d["events"][plan[1]]
            f = [math.nan if e[k] is None else e[k] for k in ("probability", "se", "ci_low",
                                                               "ci_high")]  # fmt: skip
            v = MetricValue(*f, m.text, e.get("note", ""))
            return v, v.note
        if kind == "nan":
            nan = float("nan")
            return MetricValue(nan, nan, nan, nan, m.text), plan[1]
        if kind == "never":  # a statistic that cannot happen in the cell: 0 in every trial
            return plan[1], plan[1].note
        return read_metric(m, outcome_of(d))  # answered from the outcome (a joint, say)

    def _resolve(self, d: dict[str, Any]) -> tuple:
        out = outcome_of(d)
        plan = metric_plan(self.metric, out)
        if plan is None:  # read_metric's NaN and note (or its ValueError, naming this cell)
            v, note = read_metric(self.metric, out)
            return ("never", v) if note == NEVER_NOTE else ("nan", note)
        return plan


def _primary_key(d: dict[str, Any]) -> tuple:
    """What :meth:`Outcome.primary_stat` and the statistics' names depend on."""
    spread = tuple(int(np.count_nonzero(_arrays(d, s[0])[1] > 0)) > 1
                   for s in d["stats"] if d.get("probs") is None or s[0] in d["probs"])  # fmt: skip
    lengths = tuple(len(v) for v in d["probs"].values()) if d.get("probs") is not None else ()
    return (*layout_key(d), d["meta"].get("primary"), spread, lengths)


def common_primary_of(results: Iterable[Any]) -> str:
    """:func:`~oddslab.analysis.metrics.common_primary` of the cells' outcomes, built once
    per distinct layout (and spread of each statistic) instead of once per cell."""
    seen: dict[tuple, list[Any]] = {}
    for r in results:
        d = result_dict(r)
        key = _primary_key(d)
        if key in seen:
            seen[key][1] += 1
        else:
            seen[key] = [outcome_of(d), 1]

    def repeated() -> Iterator[Any]:
        for out, n in seen.values():
            for _ in range(n):
                yield out

    return common_primary(repeated())
