"""Events in studies: ``--event "clean win = ..."`` counted in every cell, read as metrics.

A study (sweep, matchup, points question) takes events in the grammar of
:mod:`oddslab.events`. Before any cell runs, :func:`check_study` reads every event (and the
metric) against the statistics of the study's cells, so a typo is one line with a
did-you-mean, not a failed study. Each cell then answers its events in its own run
(:func:`answer`):

- an event that reads one statistic is answered from that statistic's distribution (the
  histogram counted in the run, or the exact distribution of an exact cell): the same
  number as counting it trial by trial, at no cost;
- an event that joins statistics is counted in the cell's run by the engine's
  :class:`~oddslab._recorder.Recorder` (per chunk, merged in chunk order, so the answer
  depends only on the cell's seed, never on the worker or thread count); an exact cell
  answers it from the ruleset's exact joint distribution (``Job.exact_joint``, through
  :func:`oddslab._answer.exact_questions`) and is simulated whole when there is none;
- an event that reads a statistic a cell does not report is left out of that cell (its
  metric reads NaN with a note), as a missing statistic is.

A cell's answers are kept in its :class:`~oddslab.analysis.cells.CellResult` (``events``:
plain data, stored with the cell) and come back as ``Outcome.events``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from oddslab.events import Event, EventError, parse_event

__all__ = [
    "study_events",
    "study_metric",
    "fitting",
    "check_study",
    "attach",
    "given_share",
    "probe_outcome",
    "encode",
    "decode",
    "PROBES",
]

#: Cells whose statistics :func:`check_study` reads at most (the first, the last and evenly
#: spaced ones between): each costs a scenario compile (tens of ms).
PROBES = 64


def _norm(text: str) -> str:
    return " ".join(str(text).split())


def study_events(events: Sequence[str] | str | None, metric: str | None) -> tuple[str, ...]:
    """The events a study counts: those given, then the metric's condition when it is one
    written inline (``P(a >= 1 and b == 0)``) and not already given."""
    from oddslab.analysis.metrics import parse_metric

    if events is None:
        events = ()
    if isinstance(events, str):
        events = (events,)
    out: list[str] = []
    for e in events:
        if not isinstance(e, str) or not e.strip():
            raise ValueError(f"--event {e!r}: expected a condition such as 'models_slain >= 5'")
        same = [t for t in out if _split(t)[0] == _split(e)[0]]
        if same:
            raise ValueError(
                f"two events are called '{_split(e)[0]}' ('{same[0]}' and '{_norm(e)}'): "
                "name each event once"
            )
        out.append(_norm(e))
    if metric is not None:
        m = parse_metric(metric)
        if m.kind == "event" and all(m.stat not in _split(t) for t in out):
            out.append(m.stat)
    return tuple(out)


def _split(text: str) -> tuple[str, str]:
    """(label, condition) of an event's text, as :func:`oddslab.events.parse_event` reads it."""
    from oddslab.events import _NAMED

    m = _NAMED.match(text)
    return (m.group(1).strip(), _norm(m.group(2))) if m else (_norm(text), _norm(text))


def study_metric(events: Any, metric: str | None) -> tuple[tuple[str, ...], str | None]:
    """(:func:`study_events`, the metric): ``P(<label of the first event>)`` when none is
    given and there are events (a study given events shows the first by default)."""
    evs = study_events(events, metric)
    if metric is None and evs:
        metric = f"P({_split(evs[0])[0]})"
    return evs, metric


def fitting(
    events: Sequence[str], stat_names: Sequence[str]
) -> tuple[list[tuple[str, Event]], dict[str, str]]:
    """The events a cell with statistics ``stat_names`` can answer, as (text, Event), and
    those it cannot: label → why (a statistic it does not report)."""
    out: list[tuple[str, Event]] = []
    skipped: dict[str, str] = {}
    for text in events:
        try:
            out.append((text, parse_event(text, stat_names)))
        except EventError as exc:
            skipped[_split(text)[0]] = _why(exc)
    return out, skipped


def _why(exc: Exception) -> str:
    import re

    m = re.search(r"no statistic '([^']+)'", str(exc))
    return f"no statistic '{m.group(1)}'" if m else str(exc)


def _probe_order(n: int) -> list[int]:
    if n <= PROBES:
        return list(range(n))
    picks = {0, n - 1, *(round(i * (n - 1) / (PROBES - 1)) for i in range(PROBES))}
    return sorted(picks)


def check_study(
    cells: Sequence[Any], events: Sequence[str], metric: str | None, exact: str = "auto"
) -> None:
    """Read every event and the metric against the cells' statistics, before any runs.

    An event must read statistics that at least one cell reports (cells without them read
    NaN, like a missing statistic), and a metric must be readable in at least one cell: up
    to :data:`PROBES` cells are compiled (the first, the last, evenly spaced ones between),
    stopping as soon as everything is found. An event joining statistics in a ruleset whose
    kernel does not record trials is refused here too.

    Raises
    ------
    ValueError
        One line naming the first cell and the problem (a did-you-mean for a misspelt
        statistic or event name).
    """
    from oddslab.analysis.metrics import parse_metric

    m = parse_metric(metric) if metric is not None else None
    if m is not None and m.kind == "points_removed":
        m = None
    if (not events and m is None) or not cells:
        return
    todo = {t: None for t in events}  # event text -> first failure (cell source, message)
    metric_error: str | None = None
    metric_found = m is None
    order = _probe_order(len(cells))
    for i in order:
        cell = cells[i]
        job = _job(cell)
        names = [s.name for s in job.stats]
        for t in list(todo):
            try:
                e = parse_event(t, names)
            except EventError as exc:
                if todo[t] is None:
                    todo[t] = f"{cell.source}: {exc}"
                if "no statistic" not in str(exc):  # the grammar: wrong in every cell
                    raise ValueError(todo[t]) from None
                continue
            _check_records(e, job, exact, cell.source)
            del todo[t]
        if not metric_found:
            here = {e.label: e for _, e in fitting(events, names)[0]}
            try:
                m.evaluate(probe_outcome(job, here))
                metric_found = True
            except KeyError as exc:
                metric_error = metric_error or f"{cell.source}: {exc.args[0]}"
        if not todo and metric_found:
            return
    where = "" if len(order) == len(cells) else f" (read in {len(order)} of {len(cells)} cells)"
    for problem in todo.values():
        raise ValueError(f"{problem}{where}")
    raise ValueError(f"{metric_error}{where}")


def _job(cell: Any):
    sc = cell.validated
    if sc is None:
        from oddslab.scenario import from_dict

        sc = from_dict(cell.scenario, source=cell.source)
    return sc.compile()


def _check_records(e: Event, job: Any, exact: str, source: str) -> None:
    if len(e.stats) < 2 or job.records:
        return
    if exact == "auto" and job.exact_joint is not None:
        return
    whose = f"the {job.ruleset} ruleset's" if job.ruleset else "this scenario's"
    raise ValueError(
        f"{source}: event '{e.text}' joins {', '.join(e.stats)}, and {whose} kernel does not "
        "record trials, so it cannot be counted (an event on one statistic can)"
    )


def probe_outcome(job: Any, events: dict[str, Event], skipped: dict[str, str] | None = None):
    """An outcome with the job's statistics, headlines and events (and those ``skipped``:
    label → why, as a cell keeps them) and no trials: a metric that evaluates on it can be
    read in a cell of this job."""
    import numpy as np

    from oddslab._recorder import EventResult
    from oddslab.outcome import Outcome

    counts = {s.name: np.zeros(max(s.nbins, 1), dtype=np.int64) for s in job.stats}
    probs = {k: v.astype(float) for k, v in counts.items()}
    nan = float("nan")
    out = Outcome(job.name, tuple(job.stats), probs, trials=0, counts=counts,
                  headlines=tuple(job.headlines), meta=dict(job.meta))  # fmt: skip
    for label, e in events.items():
        out.events[label] = EventResult(
            label, e.text, nan, nan, nan, nan, 0, 0, e.conditional, False
        )
    if skipped:
        out.meta["events_skipped"] = dict(skipped)
    return out


def attach(out: Any, events: Sequence[tuple[str, Event]]) -> None:
    """Put every event's answer into ``out.events`` (by label): those counted in the run are
    there already; the others read one statistic (or a joint the outcome holds)."""
    for _, e in events:
        if e.label not in out.events:
            out.events[e.label] = out.answer_event(e)


def given_share(out: Any, metric: Any, n: int) -> float:
    """The share of trials a probability metric is estimated from: P(B) for an event
    ``A | B`` of the outcome (at least one trial's worth), else 1."""
    key = metric.stat if metric.kind == "event" else metric.text
    for r in out.events.values():
        if key in (r.label, r.text, f"P({r.label})") and r.conditional and r.trials:
            return max(r.trials / n, 1.0 / n)
    return 1.0


def encode(results: dict[str, Any], skipped: dict[str, str]) -> dict[str, dict[str, Any]] | None:
    """A cell's answers as plain data (what its store row keeps)."""
    if not results and not skipped:
        return None
    out: dict[str, dict[str, Any]] = {k: dataclasses.asdict(r) for k, r in results.items()}
    for label, why in skipped.items():
        out[label] = {"skipped": why}
    return out


def decode(data: dict[str, dict[str, Any]] | None) -> tuple[dict[str, Any], dict[str, str]]:
    """:func:`encode` undone: (label → EventResult, label → why it was left out)."""
    from oddslab._recorder import EventResult

    results, skipped = {}, {}
    for label, d in (data or {}).items():
        if "skipped" in d:
            skipped[label] = d["skipped"]
            continue
        fields = {k: (math.nan if v is None and k in _FLOATS else v) for k, v in d.items()}
        results[label] = EventResult(**fields)
    return results, skipped


_FLOATS = ("probability", "se", "ci_low", "ci_high")
