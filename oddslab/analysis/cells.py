"""Cells: one scenario dict + its seed, run to a plain, JSON-ready result.

A study (sweep, matchup, points question) is a list of independent :class:`Cell` s. Each cell
is seeded from (study seed, the cell's own values) by a stable hash, so its answer never
depends on the other cells, their order or where it ran. :func:`run_cell` is the only code a
Dask worker executes; its result is plain data (:class:`CellResult`) that a store can keep and
that rebuilds the exact :class:`oddslab.outcome.Outcome` later.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab.outcome import wilson_interval

__all__ = [
    "Cell",
    "CellResult",
    "cell_seed",
    "canonical",
    "digest",
    "run_cell",
    "exact_outcome",
    "exact_result",
    "EXACT_MODES",
]

#: Seeds are kept below 2**63 so they fit every integer column and CLI option.
_SEED_MASK = (1 << 63) - 1


def canonical(obj: Any) -> str:
    """Canonical JSON of ``obj`` (sorted keys, no spaces); numpy scalars become Python ones."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_plain)


def _plain(x: Any) -> Any:
    if isinstance(x, np.integer):
        return int(x)
    if isinstance(x, np.floating):
        return float(x)
    if isinstance(x, np.bool_):
        return bool(x)
    raise TypeError(f"not JSON-serialisable: {x!r}")


def digest(obj: Any) -> str:
    """SHA-256 hex digest of :func:`canonical` ``(obj)``."""
    return hashlib.sha256(canonical(obj).encode()).hexdigest()


def cell_seed(seed: int, values: dict[str, Any]) -> int:
    """The seed of a cell: a stable hash of (study seed, the cell's values), below 2**63.

    Order of the keys does not matter; Python's salted ``hash()`` is never used, so the seed is
    the same in every process, on every machine.
    """
    h = hashlib.sha256(canonical({"seed": int(seed), "cell": values}).encode()).digest()
    return int.from_bytes(h[:8], "big") & _SEED_MASK


@dataclass(frozen=True)
class Cell:
    """One scenario to run.

    Attributes
    ----------
    values : dict
        What identifies the cell in its study (``{"target.save": 4}``,
        ``{"attacker": "lib.toml:a", "target": "lib.toml:b"}``); JSON-ready.
    spec : dict or callable
        The scenario as a dict (library uses expanded), or a function that builds it: a
        study of many cells keeps only each cell's values and builds its scenario when the
        cell is sent to run (client memory does not grow with the scenarios).
    seed : int
        The cell's master seed (:func:`cell_seed`).
    source : str
        Shown in error messages.
    validated : scenario object, optional
        The object validated when the cell was made: an in-process run uses it instead of
        reading the dict again (and lets go of it); never sent to a worker.
    """

    values: dict[str, Any]
    spec: Any
    seed: int
    source: str = "<dict>"
    validated: Any = field(default=None, compare=False, repr=False)

    @property
    def scenario(self) -> dict[str, Any]:
        """The cell's scenario as a dict (built afresh when the cell keeps a builder)."""
        return self.spec() if callable(self.spec) else self.spec

    @property
    def key(self) -> str:
        """The cell's identity in a store (canonical JSON of its values)."""
        return canonical(self.values)

    @functools.cached_property
    def scenario_hash(self) -> str:
        """Digest of the cell's full scenario and seed (a changed library invalidates it)."""
        return digest({"scenario": self.scenario, "seed": self.seed})

    def payload(self) -> tuple[dict[str, Any], str, str, str, int]:
        """(scenario, source, key, scenario hash, seed): what :func:`run_cell` needs first,
        with the scenario built once (a builder is not called again for the hash)."""
        data = self.scenario
        h = self.__dict__.get("scenario_hash") or digest({"scenario": data, "seed": self.seed})
        return data, self.source, self.key, h, self.seed


#: A study keeps each cell's validated scenario object (for the in-process run) only up to
#: this many cells; bigger studies read each cell again when it runs (bounded memory).
KEEP_VALIDATED = 1_000


@dataclass(frozen=True)
class CellResult:
    """A finished cell as plain data (what a store row holds)."""

    key: str
    scenario_hash: str
    name: str
    seed: int
    trials: int
    stats: tuple[tuple[str, int, str, bool, str], ...]
    headlines: tuple[tuple[str, str, int], ...]
    counts: dict[str, list[int]]
    meta: dict[str, Any]
    elapsed: float
    interrupted: bool = False
    probs: dict[str, list[float]] | None = None
    events: dict[str, dict[str, Any]] | None = None

    @property
    def exact(self) -> bool:
        """An exact answer (``probs``: the exact distributions) rather than a simulation."""
        return self.probs is not None

    def outcome(self):
        """The :class:`oddslab.outcome.Outcome` this cell produced (counts identical), with
        the events it answered in ``events`` (see :mod:`oddslab.analysis.cell_events`)."""
        from oddslab.analysis.cell_events import decode

        out = self._outcome()
        out.events, skipped = decode(self.events)
        if skipped:
            out.meta["events_skipped"] = skipped
        return out

    def _outcome(self):
        from oddslab.outcome import Headline, Outcome, Stat

        stats = tuple(Stat(*s) for s in self.stats)
        if self.probs is not None:
            return Outcome.from_pmfs(
                self.name,
                stats,
                {k: np.asarray(v, dtype=float) for k, v in self.probs.items()},
                headlines=tuple(Headline(*h) for h in self.headlines),
                meta=dict(self.meta),
                elapsed=self.elapsed,
            )
        table = np.zeros((len(stats), max(s.nbins for s in stats)), dtype=np.int64)
        for i, s in enumerate(stats):
            c = self.counts[s.name]
            table[i, : len(c)] = c
        return Outcome.from_counts(
            self.name,
            stats,
            table,
            self.trials,
            seed=self.seed,
            headlines=tuple(Headline(*h) for h in self.headlines),
            elapsed=self.elapsed,
            meta=dict(self.meta),
            interrupted=self.interrupted,
        )

    def to_json(self) -> str:
        return canonical(self.__dict__)

    @classmethod
    def from_json(cls, text: str) -> CellResult:
        d = json.loads(text)
        d["stats"] = tuple(tuple(s) for s in d["stats"])
        d["headlines"] = tuple(tuple(h) for h in d["headlines"])
        return cls(**d)


def _json_meta(meta: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in meta.items():
        try:
            canonical(v)
        except TypeError:
            continue
        out[k] = v
    return out


def run_cell(
    scenario: dict[str, Any],
    source: str,
    key: str,
    scenario_hash: str,
    seed: int,
    trials: int | None,
    precision: float | None,
    metric: str | None = None,
    exact: str = "never",
    validated: Any = None,
    events: tuple[str, ...] = (),
) -> CellResult:
    """Validate and simulate one cell; the function a Dask worker runs.

    ``trials`` defaults to the scenario's own, else 1,000,000 (as :func:`oddslab.simulate`);
    with ``precision`` it is the ceiling. With ``precision``, every headline probability and
    the probability ``metric`` (if one is given) are run to that 95% half-width.
    With ``exact="auto"``, a cell is answered exactly (no simulation: ``probs`` holds the
    distributions, ``trials`` is 0) when every statistic it reports has an exact answer, or,
    given a ``metric``, when every statistic the metric and ``events`` read has one (the cell
    then reports only the statistics the exact engine gives: :func:`exact_result`).
    ``events`` (texts in the grammar of :mod:`oddslab.events`) are answered in the cell's
    run (see :mod:`oddslab.analysis.cell_events`): the cell equals
    ``oddslab.simulate(scenario, trials=..., seed=seed, events=events)``.
    """
    from oddslab.analysis.cell_events import attach, encode, fitting
    from oddslab.engine import simulate
    from oddslab.scenario import from_dict

    sc = validated if validated is not None else from_dict(scenario, source=source)
    job = sc.compile()
    evs, skipped = fitting(events, [s.name for s in job.stats])
    joined = [text for text, e in evs if len(e.stats) > 1]  # counted trial by trial
    if exact == "auto":
        done = exact_result(sc, job, (key, scenario_hash, int(seed)), metric, evs, skipped)
        if done is not None:
            return done
    if precision is None:
        n = trials if trials is not None else getattr(sc, "trials", None)
        out = simulate(job, trials=n, seed=seed, events=joined)
        attach(out, evs)
    else:
        out = _run_to_precision(job, trials, seed, precision, metric, evs)
    counts = {k: [int(x) for x in _trim(v)] for k, v in out.counts.items()}
    return CellResult(
        key=key,
        scenario_hash=scenario_hash,
        name=out.name,
        seed=int(seed),
        trials=int(out.trials),
        stats=tuple((s.name, s.nbins, s.description, s.flag, s.label) for s in out.stats),
        headlines=tuple((h.label, h.stat, h.k) for h in out.headlines),
        counts=counts,
        meta=_json_meta(out.meta),
        elapsed=float(out.elapsed),
        interrupted=bool(out.interrupted),
        events=encode(out.events, skipped),
    )


#: What ``exact`` may be: "auto" (exact where every statistic has an exact answer) or "never".
EXACT_MODES = ("auto", "never")


def exact_outcome(sc: Any, job: Any = None, whole: bool = True):
    """The exact :class:`~oddslab.outcome.Outcome` of a scenario when *every* statistic it
    reports has an exact answer, else None (the cell is simulated: a cell never mixes exact
    and simulated statistics). ``job``: ``sc.compile()`` when already made. ``whole=False``:
    the statistics that have an exact answer, when at least one has (the others are left
    out), else None."""
    from oddslab.exact import exact

    job = sc.compile() if job is None else job
    if job.exact is None:
        return None
    try:
        out = exact(job)
    except NotImplementedError:  # no statistic of this cell has an exact answer
        return None
    return out if not whole or len(out.stats) == len(job.stats) else None  # exact() drops the rest


def exact_result(
    sc: Any, job: Any, ids: tuple[str, str, int], metric: str | None,
    events: list[tuple[str, Any]], skipped: dict[str, str],
) -> CellResult | None:  # fmt: skip
    """A cell answered exactly, or None when it must be simulated.

    Without a ``metric`` (a study reporting every statistic) the cell is exact only when every
    statistic has an exact answer. With one, it is exact when the metric and every one of
    ``events`` ((text, Event) pairs of :func:`~oddslab.analysis.cell_events.fitting`) read
    only statistics that have exact answers (a join: from ``Job.exact_joint``), and the
    metric is read in the same place (the same statistic, headline or event) as in the
    cell's full list of statistics; the cell then keeps only the statistics the exact engine
    gives (its headlines on them), and ``trials`` 0 marks it exact. ``ids``: the cell's
    (key, scenario hash, seed).
    """
    from oddslab._answer import exact_questions
    from oddslab.analysis.cell_events import encode

    t0 = time.perf_counter()
    ex = exact_outcome(sc, job, whole=metric is None)
    if ex is None:
        return None
    partial = len(ex.stats) < len(job.stats)
    have = set(ex.stat_names)
    if partial and any(not set(e.stats) <= have for _, e in events):
        return None  # an event reads a statistic the exact engine does not give
    # a join the exact engine cannot give (no Job.exact_joint) makes the cell simulated
    if exact_questions(job, ex, [t for t, _ in events], ()) is not None:
        return None
    key, scenario_hash, seed = ids
    result = CellResult(
        key=key,
        scenario_hash=scenario_hash,
        name=ex.name,
        seed=seed,
        trials=0,
        stats=tuple((s.name, s.nbins, s.description, s.flag, s.label) for s in ex.stats),
        headlines=tuple((h.label, h.stat, h.k) for h in ex.headlines),
        counts={},
        meta=_json_meta(ex.meta),
        elapsed=time.perf_counter() - t0,
        probs={k: [float(x) for x in _trim(v)] for k, v in ex.probs.items()},
        events=encode(ex.events, skipped),
    )
    if partial and not _reads_alike(metric, job, result, events, skipped):
        return None
    return result


def _reads_alike(
    metric: str, job: Any, result: CellResult, events: list[tuple[str, Any]],
    skipped: dict[str, str],
) -> bool:  # fmt: skip
    """Whether ``metric`` reads ``result`` (an exact cell that left out some statistics)
    where it would read the cell with all its statistics: the same statistic, headline or
    event (a headline metric matched by its start could otherwise find another headline
    among fewer)."""
    from oddslab.analysis.cell_events import probe_outcome
    from oddslab.analysis.metrics import metric_plan, parse_metric

    m = parse_metric(metric)
    full = probe_outcome(job, {e.label: e for _, e in events}, skipped)
    plan = metric_plan(m, full)
    if plan is None or plan[0] == "probability" or plan == ("points", None):
        return False  # NaN in this cell, or read from what only a simulation counts
    return plan == metric_plan(m, result.outcome())


def _run_to_precision(
    job: Any, trials: int | None, seed: int, precision: float, metric: str | None = None,
    events: list[tuple[str, Any]] | None = None,
):  # fmt: skip
    """Pilot, then final: the fewest whole chunks that bring every headline within precision.

    The engine's own ``precision`` stops at batch boundaries (16 chunks, about 10⁶ trials),
    far more than a ±0.5 pp cell needs. Here a one-chunk pilot (65,536 trials) estimates
    ``n = z² p (1 − p) / h²`` for every headline, and the cell is run again from its seed with
    ``n`` rounded up to whole chunks (repeated while any headline is still too wide, up to the
    ceiling ``trials``, default 100,000,000). Because chunk seeds are prefix-stable, the result
    is exactly ``oddslab.simulate(scenario, trials=<its trials>, seed=seed)``. ``events``
    ((text, Event) pairs of :func:`~oddslab.analysis.cell_events.fitting`) are answered in
    every run (a probability metric that is an event is held to the precision too).
    """
    from oddslab.analysis.cell_events import attach, given_share
    from oddslab.engine import CHUNK_TRIALS, DEFAULT_MAX_TRIALS, run_job
    from oddslab.outcome import Z95, Headline

    if not 0 < precision < 0.5:
        raise ValueError("precision must be a probability half-width in (0, 0.5)")
    events = events or []
    joined = [e for _, e in events if len(e.stats) > 1]
    ceiling = trials if trials is not None else DEFAULT_MAX_TRIALS
    heads = job.headlines or tuple(Headline(f"P({s.name} >= 1)", s.name, 1) for s in job.stats)
    target = None
    if metric is not None:
        from oddslab.analysis.metrics import parse_metric

        target = parse_metric(metric)
        if not target.is_probability:
            target = None
    n = min(CHUNK_TRIALS, ceiling)
    while True:
        recorder = None
        if joined:
            from oddslab._recorder import Recorder

            recorder = Recorder(job.stats, joined)
        out = run_job(job, n, int(seed), recorder=recorder)
        attach(out, events)
        if out.interrupted:
            return out
        need = 0
        worst = 0.0
        for h in heads:
            c = out.counts[h.stat]
            hits = int(c[h.k :].sum())
            lo, hi = wilson_interval(hits, n)
            worst = max(worst, (hi - lo) / 2)
            p = min(max(hits / n, 0.5 / n), 1 - 0.5 / n)
            need = max(need, math.ceil(1.05 * Z95 * Z95 * p * (1 - p) / precision**2))
        if target is not None:
            try:
                v = target.evaluate(out)
            except KeyError:  # reported by the study with the cell's name
                v = None
            if v is not None and math.isfinite(v.value):  # NaN: a condition never met
                worst = max(worst, (v.ci_high - v.ci_low) / 2)
                p = min(max(v.value, 0.5 / n), 1 - 0.5 / n)
                # a conditional event "A | B" sees only the trials in which B happened
                share = given_share(out, target, n)
                need = max(need, math.ceil(1.05 * Z95 * Z95 * p * (1 - p) / precision**2 / share))
        if worst < precision:
            return out
        if n >= ceiling:  # stopped by the trials ceiling: the tables say so (never silently)
            out.meta["precision_missed"] = float(worst)
            return out
        chunks = max(-(-need // CHUNK_TRIALS), n // CHUNK_TRIALS + 1)
        n = min(chunks * CHUNK_TRIALS, ceiling)


def _trim(c: np.ndarray) -> np.ndarray:
    nz = np.nonzero(c)[0]
    return c[: (nz[-1] + 1 if len(nz) else 1)]
