"""Questions that join statistics, asked of an :class:`~oddslab.outcome.Outcome`:
``probability("A and B")``, ``probability("A | B")``, ``joint("a", "b")``, ``records``.

An outcome answers from what it holds, best first: an event counted during the run (every
trial), the marginal histogram when the event reads one statistic (every trial, or exact), a
joint distribution holding every statistic the event reads (counted during the run, or exact),
then the per-trial records kept (the first N trials; the answer says so). When none holds
the statistics jointly, the error says what to ask the run for.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._recorder import EventResult, JointTable
from oddslab.events import Event, check_joint, parse_event

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Questions"]


def _result(
    e: Event, hits: Any, n: Any, trials: int | None, source: str, exact: bool
) -> EventResult:
    """An EventResult from ``hits`` of ``n`` (counts, or probabilities when ``exact``)."""
    from oddslab._intervals import wilson_interval

    cond = e.conditional
    if exact:
        if n <= 0:
            nan = float("nan")
            return EventResult(e.label, e.text, nan, nan, nan, nan, None, None, cond, True,
                               float(n) if cond else None, source, "the condition has probability 0")  # fmt: skip
        p = float(min(max(hits / n, 0.0), 1.0))
        return EventResult(e.label, e.text, p, 0.0, p, p, None, None, cond, True,
                           float(n) if cond else None, source)  # fmt: skip
    hits, n = int(hits), int(n)
    given_p = (n / trials if trials else float("nan")) if cond else None
    if n == 0:
        nan = float("nan")
        note = "the condition never happened" + (f" in {trials:,} trials" if trials else "")
        return EventResult(e.label, e.text, nan, nan, nan, nan, 0, 0, cond, False, given_p, source, note)  # fmt: skip
    p = hits / n
    lo, hi = wilson_interval(hits, n)
    return EventResult(e.label, e.text, p, math.sqrt(p * (1 - p) / n), lo, hi, hits, n, cond,
                       False, given_p, source)  # fmt: skip


class Questions:
    """Mixed into :class:`~oddslab.outcome.Outcome` (its fields ``events``, ``joints``,
    ``record_array``, ``probs``, ``counts``, ``trials``, ``stats``)."""

    events: dict[str, EventResult]
    joints: dict[tuple[str, ...], JointTable]
    record_array: np.ndarray | None

    def attach(self, results: dict[str, Any]) -> None:
        """Take what a run's recorder counted (``events``, ``joints``, ``records``)."""
        self.events.update(results.get("events") or {})
        self.joints.update(results.get("joints") or {})
        if results.get("records") is not None:
            self.record_array = results["records"]

    @property
    def records(self) -> pd.DataFrame | None:
        """Every statistic of the first trials kept (``records=`` of the run), one row a
        trial in run order, one column a statistic; None when none were kept."""
        if self.record_array is None:
            return None
        import pandas as pd

        return pd.DataFrame(self.record_array, columns=[s.name for s in self.stats])

    def _find_joint(self, names: tuple[str, ...]) -> JointTable | None:
        want = set(names)
        for key, table in self.joints.items():
            if want <= set(key):
                return table
        return None

    def probability(self, event: str) -> EventResult:
        """P(event) with SE and 95% interval (``float(result)`` is the probability).

        ``event`` is an event's label or text counted during the run, or any event (see
        :mod:`oddslab.events`) over statistics this outcome holds jointly: one statistic,
        a joint distribution's statistics, or the records kept.

        Raises
        ------
        ValueError
            For an event that cannot be read, or that joins statistics this outcome does
            not hold jointly (the message says what to run with).
        """
        key = " ".join(str(event).split())
        for r in self.events.values():
            if key in (r.label, r.text, f"{r.label} = {r.text}"):
                return r
        e = parse_event(event, [s.name for s in self.stats])
        if e.label in self.events and self.events[e.label].text == e.text:
            return self.events[e.label]
        return self.answer_event(e)

    def answer_event(self, e: Event) -> EventResult:
        """P(``e``) from what this outcome holds (see :meth:`probability`)."""
        event = e.text
        exact = self.trials is None
        if len(e.stats) <= 1:
            name = e.stats[0] if e.stats else self.stats[0].name
            w = self.probs[name] if exact else self.counts[name]
            values = np.arange(len(w))
            return self._weighted(e, {name: values}, w, "histogram", exact)
        table = self._find_joint(e.stats)
        if table is not None:
            cols = {n: table.values[:, k] for k, n in enumerate(table.names)}
            w = table.weights if table.counts is None else table.counts
            return self._weighted(
                e, cols, w, "joint " + ",".join(table.names), table.counts is None
            )
        if self.record_array is not None:
            rec = self.record_array
            cols = {s.name: rec[:, i] for i, s in enumerate(self.stats)}
            a, b = e.masks({s: cols[s] for s in e.stats}, len(rec))
            n = len(rec) if b is None else int(np.count_nonzero(b))
            src = f"records (the first {len(rec):,} trials)"
            return _result(e, int(np.count_nonzero(a)), n, len(rec), src, False)
        raise ValueError(
            f"'{event}' joins {', '.join(e.stats)}, which this outcome does not hold jointly; "
            f"run with events=['{event}'] (--event), joint=[{tuple(e.stats)!r}] or records=N"
        )

    def _weighted(
        self, e: Event, cols: dict[str, np.ndarray], w: np.ndarray, source: str, exact: bool
    ) -> EventResult:
        a, b = e.masks(cols, len(w))
        hits = w[a].sum()
        n = w.sum() if b is None else w[b].sum()
        if exact:
            return _result(e, float(hits), float(n), None, "exact " + source, True)
        return _result(e, int(hits), int(n), self.trials, source, False)

    def joint(self, *names: str) -> pd.DataFrame:
        """The joint distribution of two or more statistics as a tidy frame: one row per
        combination that occurred, with each statistic's value, ``probability`` and, for
        Monte Carlo outcomes, ``count``, ``se`` and the 95% interval.

        From a joint counted during the run (``joint=`` / ``--joint``, or exact), else from
        the records kept (the first N trials).
        """
        import pandas as pd

        names = check_joint(names, [s.name for s in self.stats], "joint")
        table = self._joint_table(names)
        cols = [*names, "probability", "count", "se", "ci_low", "ci_high"]
        frame = pd.DataFrame(table.rows(), columns=[*table.names, *cols[len(names) :]])
        if table.names != names:  # a wider table, or another order: sum out the rest
            value_cols = list(names)
            agg = {"probability": "sum", "count": "sum"}
            frame = frame.groupby(value_cols, as_index=False).agg(agg)
            if table.trials:
                from oddslab._intervals import wilson_interval

                n = table.trials
                p = frame["probability"].to_numpy()
                frame["se"] = np.sqrt(p * (1 - p) / n)
                ci = [wilson_interval(int(c), n) for c in frame["count"]]
                frame["ci_low"], frame["ci_high"] = [c[0] for c in ci], [c[1] for c in ci]
            else:
                frame["count"] = None
                frame["se"], frame["ci_low"], frame["ci_high"] = (
                    0.0,
                    frame["probability"],
                    frame["probability"],
                )
        frame.attrs["source"] = table.source
        frame.attrs["trials"] = table.trials
        return frame[cols].reset_index(drop=True)

    def _joint_table(self, names: tuple[str, ...]) -> JointTable:
        if names in self.joints:
            return self.joints[names]
        table = self._find_joint(names)
        if table is not None:
            return table
        if self.record_array is not None:
            idx = [[s.name for s in self.stats].index(n) for n in names]
            sub = self.record_array[:, idx].astype(np.int64)
            values, counts = np.unique(sub, axis=0, return_counts=True)
            n = len(self.record_array)
            src = f"records (the first {n:,} trials)"
            return JointTable(names, values, counts / max(n, 1), counts.astype(np.int64), n, src)
        raise ValueError(
            f"this outcome holds no joint distribution of {', '.join(names)}; run with "
            f"joint=[{names!r}] (--joint {','.join(names)}) or records=N"
        )

    def joint_table(self, a: str, b: str) -> pd.DataFrame:
        """P(a == i and b == j) as a 2-D table: rows the values of ``a``, columns those of
        ``b`` (0 where a combination did not occur)."""
        frame = self.joint(a, b)
        table = frame.pivot_table(
            index=a, columns=b, values="probability", aggfunc="sum", fill_value=0.0
        )
        table.attrs.update(frame.attrs)
        return table
