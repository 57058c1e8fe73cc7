"""Events, joint distributions and per-trial records, built from the kernels' record arrays.

A kernel with records (see :mod:`oddslab._kernels.chunks`) writes each trial's statistics to
an ``int32[ntrials, n_stats]`` block per chunk. :class:`Recorder` turns each block into a
small tally (event counts, joint counts of the combinations that occurred, the rows still
wanted as records) right after its chunk ran, and :meth:`Recorder.merge` adds tallies up in
chunk order, alongside the histograms. So no ruleset implements any of this, memory is
bounded by the chunk size (plus the records asked for and the distinct combinations of a
joint), and a seed gives the same answers whatever the thread count.

The result types, :class:`EventResult` and :class:`JointTable`, are plain data (picklable,
JSON-ready through ``to_dict``): an :class:`~oddslab.outcome.Outcome` carries them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from oddslab.events import Event, EventError, check_joint, parse_events

__all__ = ["Recorder", "EventResult", "JointTable", "MAX_RECORDS", "MAX_JOINT_CELLS"]

#: Most trials ``records=`` may keep (each costs 4 bytes a statistic).
MAX_RECORDS = 10_000_000
#: Most distinct combinations one joint distribution may hold.
MAX_JOINT_CELLS = 4_000_000
#: The records buffer of one kernel call stays below this many bytes (fewer chunks a call).
RECORD_BUFFER_BYTES = 64 << 20


@dataclass(frozen=True)
class EventResult:
    """P(event) with its uncertainty.

    ``probability`` is ``hits / trials`` (for ``"A | B"``: trials in which A and B happened
    over ``trials``, the trials in which B happened), NaN when ``trials`` is 0 (``note`` says
    so). ``exact`` results have ``se`` 0 and ``hits``/``trials`` None (``trials`` of an
    exact conditional is None too; ``given_probability`` is P(B)).
    """

    label: str
    text: str
    probability: float
    se: float
    ci_low: float
    ci_high: float
    hits: int | None
    trials: int | None
    conditional: bool
    exact: bool
    given_probability: float | None = None
    source: str = "trials"
    note: str = ""

    def __float__(self) -> float:
        return float(self.probability)

    def __str__(self) -> str:
        what = f"P({self.label})"
        if math.isnan(self.probability):
            return f"{what}: undefined ({self.note})"
        if self.exact:
            return f"{what} = {self.probability:.6g} (exact)"
        given = (
            f" of {self.trials:,} trials in which the condition held"
            if self.conditional
            else f", {self.trials:,} trials"
        )
        return (
            f"{what} = {self.probability:.4g} ± {self.se:.2g} (SE), 95% CI "
            f"[{self.ci_low:.4g}, {self.ci_high:.4g}]{given}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (NaN as None)."""
        out = dict(self.__dict__)
        for k in ("probability", "se", "ci_low", "ci_high", "given_probability"):
            v = out[k]
            if isinstance(v, float) and math.isnan(v):
                out[k] = None
        return out


@dataclass(frozen=True)
class JointTable:
    """The joint distribution of statistics ``names``: the combinations that occurred.

    ``values`` is ``int64[m, len(names)]`` (row ``j``: one combination, sorted), ``weights``
    ``float64[m]`` its probability; ``counts`` ``int64[m]`` its trials for a Monte Carlo
    table (None when exact); ``trials`` the trials behind it (None when exact).
    """

    names: tuple[str, ...]
    values: np.ndarray
    weights: np.ndarray
    counts: np.ndarray | None
    trials: int | None
    source: str = "trials"

    @classmethod
    def from_dense(cls, names: tuple[str, ...], table: np.ndarray) -> JointTable:
        """An exact table from a dense array (axis ``k`` indexed by ``names[k]``'s value)."""
        idx = np.nonzero(table > 0)
        values = np.stack([i.astype(np.int64) for i in idx], axis=1)
        return cls(names, values, table[idx].astype(float), None, None, source="exact")

    def rows(self) -> list[dict[str, Any]]:
        """Tidy rows: each name's value, probability, and (Monte Carlo) count, se, 95% CI."""
        from oddslab._intervals import wilson_interval

        out = []
        for j in range(len(self.weights)):
            row: dict[str, Any] = {n: int(self.values[j, k]) for k, n in enumerate(self.names)}
            p = float(self.weights[j])
            row["probability"] = p
            if self.counts is not None and self.trials:
                c = int(self.counts[j])
                lo, hi = wilson_interval(c, self.trials)
                row.update(count=c, se=math.sqrt(p * (1 - p) / self.trials), ci_low=lo, ci_high=hi)
            else:
                row.update(count=None, se=0.0, ci_low=p, ci_high=p)
            out.append(row)
        return out

    def dense(self) -> np.ndarray:
        """Probabilities as a dense array, axis ``k`` from 0 to the largest value of
        ``names[k]`` that occurred."""
        shape = tuple(
            int(self.values[:, k].max()) + 1 if len(self.values) else 1
            for k in range(len(self.names))
        )
        out = np.zeros(shape)
        if len(self.values):
            out[tuple(self.values.T)] = self.weights
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: names, trials and the tidy rows."""
        return {
            "names": list(self.names),
            "trials": self.trials,
            "source": self.source,
            "rows": self.rows(),
        }


def _radix(nbins: Sequence[int]) -> np.ndarray:
    """Place values to fold a combination of values into one int64 key (mixed radix)."""
    place, out = 1, []
    for nb in reversed(nbins):
        out.append(place)
        place *= max(int(nb), 1)
        if place >= 1 << 62:
            raise EventError(
                "the joint distribution of these statistics has too many possible "
                "combinations to count; ask for fewer or narrower statistics"
            )
    return np.array(out[::-1], dtype=np.int64)


@dataclass
class _Tally:
    hits: np.ndarray
    given: np.ndarray
    joints: list[tuple[np.ndarray, np.ndarray]]
    rows: np.ndarray | None
    trials: int


@dataclass
class Recorder:
    """What a run records besides its histograms: events, joints and the first trials.

    Parameters
    ----------
    stats : sequence of Stat
        The job's statistics, in record-column order.
    events : sequence of str or Event
    joints : sequence of sequence of str
        Each a tuple of two or more statistic names.
    records : int
        Trials to keep whole (the first ones, in chunk order), 0 for none.
    """

    stats: Sequence[Any]
    events: Sequence[Any] = ()
    joints: Sequence[Sequence[str]] = ()
    records: int = 0
    _events: list[Event] = field(init=False)
    _joints: list[tuple[str, ...]] = field(init=False)

    def __post_init__(self) -> None:
        names = [s.name for s in self.stats]
        self.names = names
        self.col = {n: i for i, n in enumerate(names)}
        texts = [e for e in self.events if isinstance(e, str)]
        parsed = parse_events(texts, names)
        self._events = [e if isinstance(e, Event) else parsed.pop(0) for e in self.events]
        self._joints = []
        for j in self.joints:
            self._joints.append(
                check_joint(j, names, f"joint {j if isinstance(j, str) else ','.join(j)}")
            )
        if isinstance(self.records, bool) or not 0 <= int(self.records) <= MAX_RECORDS:
            raise EventError(f"records: expected a number of trials from 0 to {MAX_RECORDS:,}")
        nb = {s.name: s.nbins for s in self.stats}
        self._radix = [_radix([nb[n] for n in js]) for js in self._joints]
        self.hits = np.zeros(len(self._events), dtype=np.int64)
        self.given = np.zeros(len(self._events), dtype=np.int64)
        self.trials = 0
        self._acc: list[list[tuple[np.ndarray, np.ndarray]]] = [[] for _ in self._joints]
        self._rows: list[np.ndarray] = []
        self._kept = 0
        self._pending = 0  # rows promised to processed-but-unmerged chunks

    @property
    def active(self) -> bool:
        return bool(self._events or self._joints or self.records)

    def chunks_per_call(self, threads: int, chunk_trials: int) -> int:
        """Chunks a kernel call may run at once so that its records buffer stays below
        :data:`RECORD_BUFFER_BYTES` (at least one)."""
        per = chunk_trials * max(len(self.stats), 1) * 4
        return max(1, min(threads, RECORD_BUFFER_BYTES // per))

    def process(self, block: np.ndarray, first_trial: int) -> _Tally:
        """The tally of one chunk's records ``block`` (``int32[n, n_stats]``), whose first
        trial is trial ``first_trial`` of the run (0-based, chunk order)."""
        n = block.shape[0]
        cols = {name: block[:, i] for name, i in self.col.items()}
        hits = np.zeros(len(self._events), dtype=np.int64)
        given = np.zeros(len(self._events), dtype=np.int64)
        for k, e in enumerate(self._events):
            a, b = e.masks({s: cols[s] for s in e.stats}, n)
            hits[k] = int(np.count_nonzero(a))
            given[k] = n if b is None else int(np.count_nonzero(b))
        joints = []
        for js, rad in zip(self._joints, self._radix, strict=True):
            key = np.zeros(n, dtype=np.int64)
            for name, place in zip(js, rad, strict=True):
                key += cols[name].astype(np.int64) * place
            uniq, cnt = np.unique(key, return_counts=True)
            joints.append((uniq, cnt.astype(np.int64)))
        rows = None
        if first_trial < self.records:
            rows = block[: min(n, self.records - first_trial)].copy()
        return _Tally(hits, given, joints, rows, n)

    def merge(self, t: _Tally) -> None:
        """Add one chunk's tally (call in chunk order)."""
        self.hits += t.hits
        self.given += t.given
        self.trials += t.trials
        for acc, part in zip(self._acc, t.joints, strict=True):
            acc.append(part)
            if len(acc) >= 16:
                acc[:] = [_fold(acc)]
        if t.rows is not None and self._kept < self.records:
            take = t.rows[: self.records - self._kept]
            self._rows.append(take)
            self._kept += len(take)

    def max_half_width(self) -> float:
        """The widest 95% half-width among the unconditional events (0 with none)."""
        from oddslab._intervals import wilson_interval

        worst = 0.0
        for k, e in enumerate(self._events):
            if not e.conditional and self.trials:
                lo, hi = wilson_interval(int(self.hits[k]), self.trials)
                worst = max(worst, (hi - lo) / 2)
        return worst

    def results(self) -> dict[str, Any]:
        """``{"events": {label: EventResult}, "joints": {names: JointTable}, "records":
        int32[n, n_stats] or None}`` of everything merged."""
        from oddslab._intervals import wilson_interval

        events = {}
        for k, e in enumerate(self._events):
            n, h = int(self.given[k]), int(self.hits[k])
            if n == 0:
                p = lo = hi = se = float("nan")
                note = "the condition never happened" + (
                    f" in {self.trials:,} trials" if self.trials else ""
                )
            else:
                p = h / n
                lo, hi = wilson_interval(h, n)
                se = math.sqrt(p * (1 - p) / n)
                note = ""
            events[e.label] = EventResult(
                e.label, e.text, p, se, lo, hi, h, n, e.conditional, False,
                given_probability=(n / self.trials if self.trials else float("nan")) if e.conditional else None,
                note=note,
            )  # fmt: skip
        joints = {}
        for js, rad, acc in zip(self._joints, self._radix, self._acc, strict=True):
            keys, counts = _fold(acc) if acc else (np.zeros(0, np.int64), np.zeros(0, np.int64))
            values = (
                np.stack([(keys // p) % _span(rad, i) for i, p in enumerate(rad)], axis=1)
                if len(keys)
                else np.zeros((0, len(js)), np.int64)
            )
            w = counts / self.trials if self.trials else counts.astype(float)
            joints[js] = JointTable(js, values, w, counts, self.trials)
        rec = np.concatenate(self._rows) if self._rows else None
        if rec is None and self.records:
            rec = np.zeros((0, len(self.names)), dtype=np.int32)
        return {"events": events, "joints": joints, "records": rec}


def _span(rad: np.ndarray, i: int) -> int:
    """The radix of digit ``i`` (the number of values of the ``i``-th statistic)."""
    return int(rad[i - 1] // rad[i]) if i > 0 else 1 << 62


def _fold(parts: list[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    keys = np.concatenate([k for k, _ in parts])
    counts = np.concatenate([c for _, c in parts])
    uniq, inv = np.unique(keys, return_inverse=True)
    total = np.bincount(inv, weights=counts, minlength=len(uniq)).astype(np.int64)
    if len(uniq) > MAX_JOINT_CELLS:
        raise EventError(
            f"a joint distribution reached {len(uniq):,} distinct combinations (at most "
            f"{MAX_JOINT_CELLS:,}); ask for fewer or narrower statistics"
        )
    return uniq, total


def call_kernel(
    recorder: Recorder, job: Any, seeds: np.ndarray, ntrials: np.ndarray, out: np.ndarray,
    live: dict[str, Any], first_chunk: int, chunk_trials: int,
) -> dict[int, _Tally]:  # fmt: skip
    """Run ``job.kernel`` on a batch with records, a few chunks a call (see
    :meth:`Recorder.chunks_per_call`), and tally each chunk's records as its call returns.

    Returns ``{chunk index in the batch: tally}`` for the caller to :meth:`Recorder.merge`
    in chunk order with the histograms. ``live`` (the engine's call in flight) learns the
    tallies and the records buffer in use, for :func:`rescue` after a Ctrl-C.
    """
    from oddslab._kernels.chunks import thread_count

    c = len(ntrials)
    sub = recorder.chunks_per_call(thread_count(), chunk_trials)
    buf = getattr(recorder, "_buf", None)
    if buf is None or buf.shape[0] < sub:
        buf = recorder._buf = np.empty((sub, chunk_trials, len(recorder.stats)), dtype=np.int32)
    tallies: dict[int, _Tally] = {}
    live.update(tallies=tallies, first=first_chunk, rec=None, chunk_trials=chunk_trials)
    for a in range(0, c, sub):
        b = min(a + sub, c)
        part = buf[: b - a]
        live["rec"] = (a, part)
        job.kernel(seeds[a:b], ntrials[a:b], out[a:b], part, *job.params)
        for i in range(a, b):
            first_trial = (first_chunk + i) * chunk_trials
            tallies[i] = recorder.process(part[i - a, : int(ntrials[i])], first_trial)
    live["rec"] = None
    return tallies


def rescue(recorder: Recorder, live: dict[str, Any], chunks: Sequence[int]) -> None:
    """After a Ctrl-C: merge the tallies of the finished ``chunks`` (batch indices, in
    order) that the histograms kept, tallying from the records buffer those whose call was
    cut short."""
    tallies = live.get("tallies") or {}
    a, part = live.get("rec") or (0, None)
    for i in chunks:
        t = tallies.get(i)
        if t is None and part is not None and a <= i < a + len(part):
            first_trial = (live["first"] + i) * live["chunk_trials"]
            t = recorder.process(part[i - a, : int(live["ntrials"][i])], first_trial)
        if t is not None:
            recorder.merge(t)
