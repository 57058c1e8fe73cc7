"""Metrics: one number (with its standard error) read off an outcome.

Accepted forms (whitespace is free)::

    mean(models_slain)          mean of a statistic; SE = sd / sqrt(trials)
    P(models_slain >= 5)        also >, <=, <, ==, = and !=; SE = sqrt(p (1 - p) / trials)
    P(destroyed)                a yes/no statistic (or any statistic): P(stat >= 1)
    P(target unit destroyed)    a headline label of the scenario, exactly as printed
    P(attacker wins)            an unambiguous start of a headline label
                                ("P(attacker wins the assault)", "P(attacker wins close quarters)")
    P(A wins), P(B wins)        the same with A = attacker, B = defender
    P(clean win)                an event of the study (``--event "clean win = ..."``)
    P(a >= 1 and b == 0)        an event written inline (the grammar of :mod:`oddslab.events`)
    models_slain                a statistic's name alone: its mean

Metrics are resolved against each outcome, so a headline whose label depends on the cell
("P(at least half the target slain, ≥ 10)") is found by its start in every cell.

Rulesets report only the statistics (and headlines) a scenario can produce, so the cells of a
study may differ: a cell without the metric reads as NaN with a note (:func:`read_metric`),
a metric no cell has is an error (:func:`check_metric`), and :func:`common_primary` picks a
default statistic that every cell reports.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from oddslab.analysis.metric_syntax import is_condition, malformed
from oddslab.outcome import Z95, Outcome, wilson_interval

__all__ = [
    "Metric",
    "MetricValue",
    "NotReported",
    "parse_metric",
    "check_metric",
    "read_metric",
    "precision_note",
    "never_value",
    "NEVER_NOTE",
    "metric_plan",
    "common_primary",
    "check_stat_names",
    "did_you_mean",
    "points_removed",
    "MODELS_LOST",
]

_OPS = {
    ">=": lambda v, k: v >= k,
    ">": lambda v, k: v > k,
    "<=": lambda v, k: v <= k,
    "<": lambda v, k: v < k,
    "==": lambda v, k: v == k,
    "=": lambda v, k: v == k,
    "!=": lambda v, k: v != k,
}
_COMPARE = re.compile(
    r"^\s*P\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*(>=|<=|==|!=|>|<|=)\s*(-?\d+)\s*\)\s*$",
    re.I,
)
_MEAN = re.compile(r"^\s*mean\s*\(\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)\s*$", re.I)
_PROB = re.compile(r"^\s*P\s*\((.*)\)\s*$", re.S | re.I)
_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*$")


#: Statistics that count the target's models removed, for ``points_removed`` (first found).
MODELS_LOST = ("models_slain", "defender_models_lost")


@dataclass(frozen=True)
class MetricValue:
    """A metric's value in one outcome: estimate, standard error, 95% CI, and a note when
    the value is NaN for a reason (a condition that never happened)."""

    value: float
    se: float
    ci_low: float
    ci_high: float
    label: str
    note: str = ""


class NotReported(KeyError):
    """The outcome does not report what a metric reads; ``note`` says so in a few words."""

    def __init__(self, message: str, note: str) -> None:
        super().__init__(message)
        self.note = note


@dataclass(frozen=True)
class Metric:
    """A parsed metric; :meth:`evaluate` it against outcomes.

    Attributes
    ----------
    text : str
        As written.
    kind : str
        ``"mean"``, ``"compare"``, ``"label"`` (a headline or an event of the study, by
        its label) or ``"event"`` (a condition written inline: ``stat`` holds it).
    stat, op, k : str, str, int
        For ``mean`` and ``compare``.
    """

    text: str
    kind: str
    stat: str = ""
    op: str = ">="
    k: int = 1

    @property
    def is_probability(self) -> bool:
        return self.kind not in ("mean", "points_removed")

    def evaluate(self, outcome: Outcome) -> MetricValue:
        """Value, SE and 95% CI of this metric in ``outcome``.

        Raises
        ------
        KeyError
            The outcome has no such statistic or headline (the message lists what it has).
        """
        return self.read(outcome, self.resolve(outcome))

    def resolve(self, outcome: Outcome) -> tuple:
        """Where this metric is read in ``outcome``, without reading it: ``("mean", stat)``,
        ``("compare", stat, op, k, label)``, ``("event", key)`` (an event the cell counted,
        ``outcome.events[key]``) or ``("probability", condition)`` (answered from the
        outcome's histograms or joint). It depends only on the outcome's statistics,
        headlines and events, so cells that share them share it (a study's table reads many
        stored cells with one resolution: :mod:`oddslab.analysis.metric_cells`).

        Raises
        ------
        KeyError
            As :meth:`evaluate`.
        """
        if self.kind == "mean":
            if self.stat not in outcome.probs:
                raise _missing(outcome, self.stat, self.text)
            return ("mean", self.stat)
        if self.kind == "points_removed":
            raise KeyError(
                "'points_removed' is a matchup metric (it needs the target's points per model)"
            )
        if self.kind == "compare":
            if self.stat not in outcome.probs:
                raise _missing(outcome, self.stat, self.text)
            return ("compare", self.stat, self.op, self.k, self.text)
        if self.kind == "event":
            for key, r in outcome.events.items():
                if self.stat in (r.label, r.text):
                    return ("event", key)
            return ("probability", self.stat)
        return self._label(outcome)

    def read(self, outcome: Outcome, plan: tuple) -> MetricValue:
        """The value :meth:`resolve` points at."""
        if plan[0] == "mean":
            return _mean(outcome, plan[1], self.text)
        if plan[0] == "compare":
            return _prob(outcome, *plan[1:])
        if plan[0] == "event":
            return _event_value(outcome.events[plan[1]], self.text)
        return _event(outcome, plan[1], self.text)

    def _label(self, outcome: Outcome) -> tuple:
        want = _norm(self.text)
        for key, r in outcome.events.items():  # an event of the study, by its label
            if _norm(f"P({r.label})") == want:
                return ("event", key)
        skipped = outcome.meta.get("events_skipped") or {}
        for label, why in skipped.items():
            if _norm(f"P({label})") == want:
                raise NotReported(
                    f"'{self.text}': {why} in '{outcome.name}'", f"not reported: {why} here"
                )
        for short, side in (("p(a ", "p(attacker "), ("p(b ", "p(defender ")):
            if want.startswith(short):  # "P(A wins)": A is the attacker (the matchup's row)
                want = side + want[len(short) :]
        heads = list(outcome.headlines)
        exact = [h for h in heads if _norm(h.label) == want]
        if not exact:
            stem = want[:-1] if want.endswith(")") else want
            exact = [h for h in heads if _norm(h.label).startswith(stem)]
        if len(exact) == 1:
            h = exact[0]
            if h.stat not in outcome.probs:
                raise _missing(outcome, h.stat, h.label)
            return ("compare", h.stat, ">=", h.k, h.label)
        inner = _PROB.match(self.text)
        if inner and re.fullmatch(r"[\w ]+", inner.group(1).strip()):
            # "P(attacker wins)" -> a statistic named attacker_wins (words only: never
            # "P(models_slain >= )", which parse_metric refuses)
            name = re.sub(r"\W+", "_", inner.group(1).strip()).strip("_")
            if name in outcome.probs:
                return ("compare", name, ">=", 1, self.text)
        labels = "; ".join(h.label for h in heads) or "none"
        if len(exact) > 1:
            raise KeyError(
                f"'{self.text}' matches several headlines: {'; '.join(h.label for h in exact)}"
            )
        events = [f"P({label})" for label in [*outcome.events, *skipped]]
        hint = did_you_mean(self.text.strip(), [*events, *(h.label for h in heads)])
        what = "an event, headline or statistic" if events else "a headline or statistic"
        listed = f"events: {'; '.join(events)}; " if events else ""
        raise KeyError(
            f"'{self.text}' is not {what} of '{outcome.name}'{hint} "
            f"({listed}headlines: {labels}; statistics: {', '.join(outcome.stat_names)})"
        )


def did_you_mean(word: str, choices: list[str]) -> str:
    """``"; did you mean 'x'?"`` for the closest of ``choices`` (empty when none is close)."""
    import difflib

    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def check_stat_names(names: set[str] | list[str], outcomes: Iterable[Outcome]) -> None:
    """Every name must be a statistic of at least one outcome (ValueError with did-you-mean)."""
    known = list(dict.fromkeys(n for o in outcomes for n in o.stat_names))
    for name in names:
        if name not in known:
            raise ValueError(
                f"no statistic '{name}' in any cell{did_you_mean(name, known)} "
                f"(statistics: {', '.join(known)})"
            )


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text.strip()).lower()


def parse_metric(text: str) -> Metric:
    """Parse a metric (see the module docstring for the forms).

    Raises
    ------
    ValueError
        If ``text`` is none of the accepted forms.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError('a metric is needed, e.g. "mean(models_slain)" or "P(models_slain >= 5)"')
    if re.sub(r"\s+", "", text).lower() in ("points_removed", "mean(points_removed)"):
        return Metric("points_removed", "points_removed", MODELS_LOST[0])
    m = _COMPARE.match(text)
    if m:
        return Metric(text.strip(), "compare", m.group(1), m.group(2), int(m.group(3)))
    m = _MEAN.match(text)
    if m:
        return Metric(text.strip(), "mean", m.group(1))
    m = _NAME.match(text)
    if m:
        return Metric(f"mean({m.group(1)})", "mean", m.group(1))
    problem = malformed(text)
    if problem:
        raise ValueError(f"'{text.strip()}': {problem}")
    m = _PROB.match(text)
    if m:
        inner = " ".join(m.group(1).split())
        if is_condition(inner):
            return Metric(f"P({inner})", "event", inner)
        return Metric(text.strip(), "label")
    raise ValueError(
        f"cannot read the metric '{text}': use mean(stat), P(stat >= k) or a headline "
        'label such as "P(target unit destroyed)"'
    )


def common_primary(outcomes: Iterable[Outcome]) -> str:
    """The statistic to show by default across cells whose statistics may differ.

    The cells' primary statistic reported by every cell (the most frequent primary first),
    else the first statistic every cell reports that is not a yes/no flag.

    Raises
    ------
    ValueError
        If no statistic is reported by every cell.
    """
    common: set[str] | None = None
    tally: dict[str, int] = {}
    first = None
    for o in outcomes:  # one pass: ``outcomes`` may be a generator over a big study
        first = first or o
        common = set(o.stat_names) if common is None else common & set(o.stat_names)
        p = o.primary_stat()
        tally[p] = tally.get(p, 0) + 1
    if first is None or common is None:
        raise ValueError("the study has no cells")
    ranked = sorted(tally, key=lambda s: -tally[s])  # stable: first seen first among ties
    for stat in ranked:
        if stat in common:
            return stat
    for flags in (False, True):
        for s in first.stats:
            if s.name in common and s.flag == flags:
                return s.name
    raise ValueError("the cells have no statistic in common: give a metric")


def check_metric(metric: str, names: list[str], outcomes: list[Outcome]) -> Metric:
    """Parse ``metric`` and check it can be read in at least one cell, before any table.

    Rulesets report only what a scenario can produce, so a statistic (or headline) may be
    missing from some cells of a study: those cells read as NaN with a note
    (:func:`read_metric`); only a metric that no cell can read is an error.

    Parameters
    ----------
    metric : str
    names : list of str
        One name per cell, for messages (``"a.toml:x vs b.toml:y"``, ``"target.save=4"``).
    outcomes : list of Outcome
        The cells' outcomes, in the same order.

    Raises
    ------
    ValueError
        If no cell has the metric: names the first cell, and lists its statistics and
        headlines.
    """
    m = parse_metric(metric)
    first = None
    for name, out in zip(names, outcomes, strict=False):  # outcomes may be a generator
        try:
            m.evaluate(out)
            return m
        except KeyError as exc:
            first = first or f"{name}: {exc.args[0]}"
    raise ValueError(first or f"'{m.text}': there are no cells")


def precision_note(note: str, meta: dict, trials: int | None) -> str:
    """``note``, or when it is empty and the cell stopped at its trials ceiling before
    reaching the study's precision (``meta["precision_missed"]``: its widest 95% half-width),
    a note that says so."""
    missed = meta.get("precision_missed")
    if note or missed is None:
        return note
    return f"precision not reached: ±{missed:.2g} at the trials ceiling ({int(trials or 0):,})"


def read_metric(metric: Metric, outcome: Outcome) -> tuple[MetricValue, str]:
    """The metric's value in one cell, and a note: :func:`_read_metric`'s, or that the cell
    stopped at its trials ceiling short of the study's precision (:func:`precision_note`)."""
    v, note = _read_metric(metric, outcome)
    return v, precision_note(note, outcome.meta, outcome.trials)


def _read_metric(metric: Metric, outcome: Outcome) -> tuple[MetricValue, str]:
    """The metric's value in one cell, and a note: ``""``, or why the value is NaN.

    A cell whose scenario does not report the statistic or headline (a ruleset leaves out what
    a scenario cannot produce) gives NaN and ``"not reported: ..."``: no value is invented.

    Raises
    ------
    ValueError
        If a headline metric fits several headlines of the cell.
    """
    try:
        v = metric.evaluate(outcome)
        return v, v.note
    except NotReported as exc:
        nan = float("nan")
        return MetricValue(nan, nan, nan, nan, metric.text), exc.note
    except KeyError as exc:
        nan = float("nan")
        if metric.kind == "label" and "matches several headlines" in str(exc.args[0]):
            raise ValueError(f"'{outcome.name}': {exc.args[0]}") from None
        never = never_value(metric, outcome.meta)
        if never is not None:
            return never, never.note
        what = f"statistic '{metric.stat}'" if metric.stat else f"headline '{metric.text}'"
        return MetricValue(nan, nan, nan, nan, metric.text), f"not reported: no {what} here"


#: The note of a metric on a statistic that cannot happen in a cell (:func:`never_value`).
NEVER_NOTE = "cannot happen here: 0"


def never_value(metric: Metric, meta: dict) -> MetricValue | None:
    """The value of ``mean(stat)`` or ``P(stat op k)`` in a cell whose ruleset left ``stat``
    out because it cannot happen there (``meta["never"]``: the generic ruleset leaves out
    ``models_slain`` when the most damage possible cannot slay a model, ``destroyed`` when it
    cannot destroy the unit, ...): the statistic is 0 in every trial, so the mean is 0 and
    the probability is 1 or 0 — exact, SE 0, with :data:`NEVER_NOTE`. None otherwise (the
    metric is not reported: NaN)."""
    if metric.kind not in ("mean", "compare") or metric.stat not in (meta.get("never") or ()):
        return None
    v = 0.0 if metric.kind == "mean" else float(bool(_OPS[metric.op](0, metric.k)))
    return MetricValue(v, 0.0, v, v, metric.text, NEVER_NOTE)


def metric_plan(metric: Metric, outcome: Outcome) -> tuple | None:
    """Where ``metric`` is read in ``outcome``: :meth:`Metric.resolve`'s plan, or
    ``("points", stat)`` for ``points_removed`` (the models-lost statistic it reads, None
    when the outcome has none); None when the outcome cannot answer the metric (it reads NaN
    there: :func:`read_metric` says why)."""
    if metric.kind == "points_removed":
        return ("points", next((s for s in MODELS_LOST if s in outcome.probs), None))
    try:
        return metric.resolve(outcome)
    except KeyError:
        return None


def _missing(outcome: Outcome, stat: str, text: str) -> KeyError:
    names = list(outcome.stat_names)
    return KeyError(
        f"'{text}': no statistic '{stat}' in '{outcome.name}'{did_you_mean(stat, names)} "
        f"(statistics: {', '.join(names)})"
    )


def _event_value(r, text: str) -> MetricValue:
    """A metric value from an :class:`~oddslab._recorder.EventResult`."""
    return MetricValue(r.probability, r.se, r.ci_low, r.ci_high, text, r.note)


def _event(outcome: Outcome, condition: str, text: str) -> MetricValue:
    """P(condition): counted in the cell's run (an event of the study), else answered from
    what the outcome holds (one statistic's histogram or exact distribution, a joint)."""
    from oddslab.events import EventError

    for r in outcome.events.values():
        if condition in (r.label, r.text):
            return _event_value(r, text)
    try:
        return _event_value(outcome.probability(condition), text)
    except EventError as exc:  # a statistic this cell does not report
        missing = re.search(r"no statistic '([^']+)'", str(exc))
        why = f"no statistic '{missing.group(1)}'" if missing else str(exc)
        raise NotReported(
            f"'{text}' in '{outcome.name}': {exc}", f"not reported: {why} here"
        ) from None


def _mean(outcome: Outcome, stat: str, text: str) -> MetricValue:
    if stat not in outcome.probs:
        raise _missing(outcome, stat, text)
    return mean_value(outcome.probs[stat], outcome.trials, text)


def mean_value(p: np.ndarray, trials: int | None, text: str) -> MetricValue:
    """The mean of a statistic from its probabilities ``p`` (``float[bins]``, as
    :attr:`Outcome.probs` holds them: the length matters to the last bit), SE from ``trials``
    (None or 0: exact, SE 0)."""
    v = np.arange(len(p))
    mean = float(np.dot(v, p))
    sd = math.sqrt(max(float(np.dot((v - mean) ** 2, p)), 0.0))
    se = sd / math.sqrt(trials) if trials else 0.0
    return MetricValue(mean, se, mean - Z95 * se, mean + Z95 * se, text)


def _prob(outcome: Outcome, stat: str, op: str, k: int, text: str) -> MetricValue:
    if stat not in outcome.probs:
        raise _missing(outcome, stat, text)
    c = outcome.counts[stat] if outcome.counts is not None else None
    return prob_value(c, outcome.probs[stat], outcome.trials, op, k, text)


def prob_value(
    c: np.ndarray | None, p_all: np.ndarray, trials: int | None, op: str, k: int, text: str
) -> MetricValue:
    """P(stat ``op`` ``k``) from a statistic's counts ``c`` (``int64[bins]``, None for an
    exact answer) or, exact, its probabilities ``p_all``; Wilson 95% interval."""
    test = _OPS[op]
    if c is not None:
        hits = int(sum(int(c[v]) for v in range(len(c)) if test(v, k)))
        n = int(trials or 0)
        p = hits / n if n else float("nan")
        se = math.sqrt(max(p * (1 - p), 0.0) / n) if n else float("nan")
        lo, hi = wilson_interval(hits, n)
        return MetricValue(p, se, lo, hi, text)
    p = float(sum(float(p_all[v]) for v in range(len(p_all)) if test(v, k)))
    return MetricValue(p, 0.0, p, p, text)


def points_removed(outcome: Outcome, points_per_model: float | None) -> tuple[MetricValue, str]:
    """Mean points of the target removed: the mean of its models lost (the first of
    :data:`MODELS_LOST` the cell reports) × the target's points per model; and a note.

    A cell whose ruleset left its models-lost statistic out because it cannot happen there
    (``meta["never"]``: the generic ruleset's ``models_slain`` when no attack can slay a
    model) removes 0 points; any other cell without a models-lost statistic, or a target
    without points per model, is NaN with a note.
    """
    stat = next((s for s in MODELS_LOST if s in outcome.probs), None)
    lost = None
    if stat is not None and points_per_model is not None:
        lost = _mean(outcome, stat, "points_removed")
    return scaled_points(lost, stat is not None, outcome.meta.get("never"), points_per_model)


def scaled_points(
    lost: MetricValue | None, reported: bool, never: Any, points_per_model: float | None
) -> tuple[MetricValue, str]:
    """:func:`points_removed` from the mean models lost (``lost``; ``reported``: the cell
    has a models-lost statistic) and the statistics its ruleset says cannot happen in it
    (``meta["never"]``, or None)."""
    nan = float("nan")
    text = "points_removed"
    if points_per_model is None:
        return MetricValue(nan, nan, nan, nan, text), "not reported: the target has no points"
    if not reported or lost is None:
        if any(s in (never or ()) for s in MODELS_LOST):
            return MetricValue(0.0, 0.0, 0.0, 0.0, text), "cannot slay a model: 0 removed"
        return MetricValue(nan, nan, nan, nan, text), "not reported: no models-lost statistic"
    k = float(points_per_model)
    v = lost
    return MetricValue(v.value * k, v.se * k, v.ci_low * k, v.ci_high * k, text), ""
