"""Outcome distributions as tidy pandas tables, with standard errors and 95% intervals.

An :class:`Outcome` holds one histogram per statistic (trial counts for Monte Carlo runs,
exact probabilities for exact runs). Probabilities from Monte Carlo runs come with the
binomial standard error ``sqrt(p (1 - p) / n)`` and a 95% Wilson score interval; means come
with ``sd / sqrt(n)``. Exact outcomes report standard error 0.

pandas is imported only by the methods that return DataFrames, so a command-line run that
prints tables or JSON does not pay for it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._format import format_number, format_probability, rows_to_csv
from oddslab._intervals import Z95, wilson_interval
from oddslab._questions import Questions

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["Stat", "Headline", "Outcome", "wilson_interval", "format_probability", "format_number"]


@dataclass(frozen=True)
class Stat:
    """A per-trial integer statistic.

    Parameters
    ----------
    name : str
        Column name, e.g. ``"models_slain"``.
    nbins : int
        Values are ``0..nbins-1``.
    description : str
        One line for tables and docs.
    flag : bool
        True for yes/no statistics (0 or 1), reported as a probability.
    label : str
        Plain words naming whose fate it is, for tables and plot axes, e.g.
        ``"defender models lost"``; defaults to the description, else the name without
        underscores.
    """

    name: str
    nbins: int
    description: str = ""
    flag: bool = False
    label: str = ""

    @property
    def title(self) -> str:
        """The label shown to people (never snake_case)."""
        return self.label or self.description or self.name.replace("_", " ")


@dataclass(frozen=True)
class Headline:
    """A headline probability ``P(stat >= k)`` with a label such as ``"P(unit destroyed)"``."""

    label: str
    stat: str
    k: int = 1


@dataclass
class Outcome(Questions):
    """Distributions of a scenario's statistics.

    Attributes
    ----------
    name : str
    stats : tuple of Stat
    probs : dict[str, ndarray]
        ``probs[stat][v] = P(stat == v)``; shape ``(nbins,)``.
    trials : int or None
        Monte Carlo trials behind the estimate, or None for an exact result.
    counts : dict[str, ndarray] or None
        Raw trial counts (Monte Carlo only).
    seed : int or None
    headlines : tuple of Headline
    interrupted : bool
        True when Ctrl-C stopped the run early.
    elapsed : float
        Wall-clock seconds spent running trials (kernel calls), compiling excluded.
    compile_time : float
        Wall-clock seconds spent compiling the kernel, or loading it from numba's cache,
        before the first trial (0 when it was already in memory).
    compiled : bool
        True when the kernel was compiled in this run (not found in numba's cache).
    precision : float or None
        The ``precision`` target of an adaptive run (95% half-width), else None.
    half_width : float or None
        The widest 95% half-width among the headline probabilities at the end of an adaptive
        run.
    precision_reached : bool or None
        Whether ``half_width < precision`` (False when the trial ceiling or Ctrl-C stopped
        the run first); None for runs without a precision target.
    resolved : dict or None
        The scenario's inputs as the program read them (``scenario.resolved()``).
    meta : dict
        Run information from the job (``meta["primary"]``: the statistic a player asks about).
    events : dict[str, EventResult]
        Events counted during the run (``simulate(events=...)``), by label; see
        :meth:`probability`.
    joints : dict[tuple[str, ...], JointTable]
        Joint distributions counted during the run (or exact); see :meth:`joint`.
    record_array : ndarray or None
        ``int32[n, n_stats]``: every statistic of the first ``n`` trials kept
        (``simulate(records=n)``); :attr:`records` is the DataFrame.
    """

    name: str
    stats: tuple[Stat, ...]
    probs: dict[str, np.ndarray]
    trials: int | None = None
    counts: dict[str, np.ndarray] | None = None
    seed: int | None = None
    headlines: tuple[Headline, ...] = ()
    interrupted: bool = False
    elapsed: float = 0.0
    meta: dict[str, Any] = field(default_factory=dict)
    compile_time: float = 0.0
    compiled: bool = False
    precision: float | None = None
    half_width: float | None = None
    precision_reached: bool | None = None
    resolved: dict[str, dict[str, Any]] | None = None
    events: dict[str, Any] = field(default_factory=dict)
    joints: dict[tuple[str, ...], Any] = field(default_factory=dict)
    record_array: np.ndarray | None = None

    # -- construction -----------------------------------------------------------------------
    @classmethod
    def from_counts(
        cls,
        name: str,
        stats: tuple[Stat, ...],
        table: np.ndarray,
        trials: int,
        **kw: Any,
    ) -> Outcome:
        """From a ``int64[n_stats, n_bins]`` count table of ``trials`` trials."""
        counts = {s.name: table[i, : s.nbins].copy() for i, s in enumerate(stats)}
        probs = {k: v / trials if trials else v.astype(float) for k, v in counts.items()}
        return cls(name, tuple(stats), probs, trials=trials, counts=counts, **kw)

    @classmethod
    def from_pmfs(
        cls, name: str, stats: tuple[Stat, ...], pmfs: dict[str, np.ndarray], **kw: Any
    ) -> Outcome:
        """An exact outcome from ``{stat: pmf}`` (missing stats are dropped)."""
        keep = tuple(s for s in stats if s.name in pmfs)
        probs = {}
        for s in keep:
            p = np.zeros(max(s.nbins, len(pmfs[s.name])))
            p[: len(pmfs[s.name])] = pmfs[s.name]
            probs[s.name] = p
        heads = tuple(h for h in kw.pop("headlines", ()) if h.stat in probs)
        return cls(name, keep, probs, trials=None, headlines=heads, **kw)

    # -- basic accessors --------------------------------------------------------------------
    @property
    def exact(self) -> bool:
        return self.trials is None

    @property
    def stat_names(self) -> list[str]:
        return [s.name for s in self.stats]

    def stat(self, name: str) -> Stat:
        """The :class:`Stat` called ``name``."""
        for s in self.stats:
            if s.name == name:
                return s
        raise KeyError(f"no statistic '{name}'; this outcome has: {', '.join(self.stat_names)}")

    def title(self, name: str) -> str:
        """Plain-words label of statistic ``name`` (for tables and plot axes)."""
        try:
            return self.stat(name).title
        except KeyError:
            return name.replace("_", " ")

    def primary_stat(self) -> str:
        """The statistic a player asks about, tabulated and plotted by default.

        ``meta["primary"]`` when the ruleset sets it (and this outcome has it); otherwise the
        first of the usual count names present (``defender_models_lost``, ``models_slain``,
        ``damage``, ``wounds``...); otherwise the first statistic that is a count, not a
        yes/no flag, not a turn or round counter and not constant. Never a 0/1 statistic
        when a count exists.
        """
        names = self.stat_names
        if not names:
            raise KeyError("this outcome has no statistics")
        primary = self.meta.get("primary")
        if primary in names:
            return primary
        by_name = {s.name: s for s in self.stats}
        usable = [s for s in self.stats if not s.flag and not _is_turn_counter(s.name)]
        varying = [s for s in usable if self._spread(s.name)]
        counts = [s for s in (varying or usable) if len(self.probs[s.name]) > 2]
        pool = counts or varying or usable
        for guess in _PRIMARY_GUESSES:
            for s in pool:
                if s.name == guess or s.name.endswith("_" + guess):
                    return by_name[s.name].name
        if pool:
            return pool[0].name
        flags = [s for s in self.stats if not _is_turn_counter(s.name)]
        return flags[0].name if flags else names[0]

    def _spread(self, stat: str) -> bool:
        return int(np.count_nonzero(self.probs[stat] > 0)) > 1

    def _p(self, stat: str) -> np.ndarray:
        if stat not in self.probs:
            raise KeyError(f"no statistic '{stat}'; this outcome has: {', '.join(self.stat_names)}")
        return self.probs[stat]

    def _interval(self, p: float, hits: int | None = None) -> tuple[float, float, float]:
        """(se, ci_low, ci_high) for a probability estimate ``p`` (``hits`` of ``trials``)."""
        if self.trials is None:
            return 0.0, p, p
        n = self.trials
        se = math.sqrt(max(p * (1 - p), 0.0) / n) if n else float("nan")
        lo, hi = wilson_interval(round(p * n) if hits is None else hits, n)
        return se, lo, hi

    def _hits(self, stat: str, k: int) -> int | None:
        if self.counts is None:
            return None
        c = self.counts[stat]
        return int(c[max(k, 0) :].sum()) if k < len(c) else 0

    def prob(self, stat: str, k: int = 1) -> float:
        """``P(stat >= k)``."""
        p = self._p(stat)
        return float(p[max(k, 0) :].sum()) if k < len(p) else 0.0

    def mean(self, stat: str) -> float:
        p = self._p(stat)
        return float(np.dot(np.arange(len(p)), p))

    # -- rows (plain Python; the DataFrame methods wrap these) -------------------------------
    def pmf_rows(self, stat: str) -> list[dict[str, Any]]:
        """Rows of :meth:`pmf` as dicts."""
        p = _trim(self._p(stat))
        c = self.counts[stat] if self.counts is not None else None
        return [
            dict(
                zip(
                    ("value", "probability", "se", "ci_low", "ci_high"),
                    (v, float(pv), *self._interval(float(pv), None if c is None else int(c[v]))),
                    strict=True,
                )
            )
            for v, pv in enumerate(p)
        ]

    def at_least_rows(self, stat: str) -> list[dict[str, Any]]:
        """Rows of :meth:`at_least` as dicts."""
        p = _trim(self._p(stat))
        if self.counts is not None and self.trials:
            c = self.counts[stat][: len(p)]
            tail = np.cumsum(c[::-1])[::-1] / self.trials  # exact ratios: P(>= 0) is 1
        else:
            tail = np.cumsum(p[::-1])[::-1]
            tail[0] = 1.0 if abs(tail[0] - 1.0) < 1e-9 else tail[0]
        rows = []
        for k, t in enumerate(tail):
            pk = float(min(t, 1.0))
            se, lo, hi = self._interval(pk, self._hits(stat, k))
            rows.append({"k": k, "probability": pk, "se": se, "ci_low": lo, "ci_high": hi})
        return rows

    def summary_rows(self) -> list[dict[str, Any]]:
        """Rows of :meth:`summary` as dicts (with the statistic's name under ``"stat"``)."""
        rows = []
        for s in self.stats:
            p = self._p(s.name)
            v = np.arange(len(p))
            mean = float(np.dot(v, p))
            sd = math.sqrt(max(float(np.dot((v - mean) ** 2, p)), 0.0))
            se = sd / math.sqrt(self.trials) if self.trials else 0.0
            cdf = np.cumsum(p)
            q = {f"q{int(x * 100):02d}": _quantile(cdf, x) for x in (0.05, 0.25, 0.5, 0.75, 0.95)}
            support = np.nonzero(p > 0)[0]
            rows.append(
                {
                    "stat": s.name,
                    "mean": mean,
                    "sd": sd,
                    "se_mean": se,
                    "ci_low": mean - Z95 * se,
                    "ci_high": mean + Z95 * se,
                    **q,
                    "min": int(support[0]) if len(support) else 0,
                    "max": int(support[-1]) if len(support) else 0,
                    "label": s.title,
                    "description": s.description,
                }
            )
        return rows

    def probability_rows(self) -> list[dict[str, Any]]:
        """Rows of :meth:`probabilities` as dicts."""
        heads = list(self.headlines)
        named = {h.stat for h in heads if h.k == 1}
        for s in self.stats:
            if s.flag and s.name not in named:
                heads.append(Headline(f"P({s.title})", s.name, 1))
        rows = []
        for h in heads:
            if h.stat not in self.probs:
                continue
            p = self.prob(h.stat, h.k)
            se, lo, hi = self._interval(p, self._hits(h.stat, h.k))
            rows.append(
                {
                    "label": h.label,
                    "stat": h.stat,
                    "k": h.k,
                    "probability": p,
                    "se": se,
                    "ci_low": lo,
                    "ci_high": hi,
                }
            )
        return rows

    # -- tables -----------------------------------------------------------------------------
    def pmf(self, stat: str) -> pd.DataFrame:
        """``P(stat == value)`` per value: columns value, probability, se, ci_low, ci_high."""
        import pandas as pd

        cols = ["value", "probability", "se", "ci_low", "ci_high"]
        return pd.DataFrame(self.pmf_rows(stat), columns=cols)

    def at_least(self, stat: str) -> pd.DataFrame:
        """``P(stat >= k)`` per k: columns k, probability, se, ci_low, ci_high."""
        import pandas as pd

        cols = ["k", "probability", "se", "ci_low", "ci_high"]
        return pd.DataFrame(self.at_least_rows(stat), columns=cols)

    def summary(self) -> pd.DataFrame:
        """One row per statistic: mean, sd, se of the mean, 95% CI of the mean, quantiles,
        min, max, label (plain words), description; indexed by the statistic's name."""
        import pandas as pd

        return pd.DataFrame(self.summary_rows()).set_index("stat")

    def probabilities(self) -> pd.DataFrame:
        """Headline probabilities (and every yes/no statistic): probability, se, 95% CI."""
        import pandas as pd

        cols = ["label", "stat", "k", "probability", "se", "ci_low", "ci_high"]
        return pd.DataFrame(self.probability_rows(), columns=cols)

    # -- export -----------------------------------------------------------------------------
    def run_info(self) -> dict[str, Any]:
        """Run information: name, ruleset, exact, trials, seed, times, precision, interrupted."""
        return {
            "name": self.name,
            "ruleset": self.meta.get("ruleset", ""),
            "exact": self.exact,
            "trials": self.trials,
            "seed": self.seed,
            "interrupted": self.interrupted,
            "run_seconds": round(self.elapsed, 6),
            "compile_seconds": round(self.compile_time, 6),
            "compiled": self.compiled,
            "precision": self.precision,
            "half_width": self.half_width,
            "precision_reached": self.precision_reached,
        }

    def long_rows(self) -> list[tuple[str, str, str, Any, str, Any]]:
        """Everything in tidy long form: ``(section, stat, label, k, measure, value)`` rows.

        Sections: ``run`` (run information), ``resolved`` (the inputs as read; ``label`` is
        the section of :attr:`resolved`), ``headline`` (probability, se, ci_low, ci_high of
        each headline; ``k`` its threshold), ``event`` (probability, se, ci_low, ci_high,
        hits, trials of each event; ``stat`` its text), ``joint`` (probability and count of
        each combination; ``stat`` the statistics, ``label`` the values), ``summary`` (mean, sd, se_mean, ci_low, ci_high,
        quantiles, min, max of each statistic) and ``pmf`` (probability and, for Monte Carlo
        runs, count of every value ``k`` of each statistic).
        """
        rows: list[tuple[str, str, str, Any, str, Any]] = []
        for key, value in self.run_info().items():
            rows.append(("run", "", "", None, key, value))
        for section, items in (self.resolved or {}).items():
            for key, value in items.items():
                rows.append(("resolved", "", section, None, key, value))
        for r in self.probability_rows():
            for m in ("probability", "se", "ci_low", "ci_high"):
                rows.append(("headline", r["stat"], r["label"], r["k"], m, r[m]))
        measures = ("mean", "sd", "se_mean", "ci_low", "ci_high", "q05", "q25", "q50", "q75", "q95")
        for r in self.summary_rows():
            for m in (*measures, "min", "max"):
                rows.append(("summary", r["stat"], r["label"], None, m, r[m]))
        for r in self.events.values():
            d = r.to_dict()
            for m in ("probability", "se", "ci_low", "ci_high", "hits", "trials"):
                rows.append(("event", r.text, r.label, None, m, d[m]))
        for names, t in self.joints.items():
            for row in t.rows():
                label = ", ".join(f"{n}={row[n]}" for n in names)
                rows.append(
                    ("joint", ",".join(names), label, None, "probability", row["probability"])
                )
                if row["count"] is not None:
                    rows.append(("joint", ",".join(names), label, None, "count", row["count"]))
        for s in self.stats:
            p = _trim(self._p(s.name))
            for v, pv in enumerate(p):
                rows.append(("pmf", s.name, s.title, v, "probability", float(pv)))
                if self.counts is not None:
                    rows.append(("pmf", s.name, s.title, v, "count", int(self.counts[s.name][v])))
        return rows

    def to_frame(self) -> pd.DataFrame:
        """The distributions in long form: one row per (stat, value) with columns stat,
        label, value, probability, count (None for exact outcomes)."""
        import pandas as pd

        rows = []
        for s in self.stats:
            p = _trim(self._p(s.name))
            for v, pv in enumerate(p):
                c = int(self.counts[s.name][v]) if self.counts is not None else None
                rows.append((s.name, s.title, v, float(pv), c))
        return pd.DataFrame(rows, columns=["stat", "label", "value", "probability", "count"])

    def long_frame(self) -> pd.DataFrame:
        """Everything in one tidy long table (what :meth:`to_csv` writes; see
        :meth:`long_rows`): columns section, stat, label, k, measure, value."""
        import pandas as pd

        return pd.DataFrame(self.long_rows(), columns=list(LONG_COLUMNS))

    def to_csv(self, path: str | Path | None = None) -> str:
        """Tidy long-format CSV of everything (see :meth:`long_rows`); written to ``path`` if
        given, returned. Numbers are written without float noise (12 significant digits)."""
        text = rows_to_csv(LONG_COLUMNS, self.long_rows())
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: run info, resolved inputs, headline probabilities, summary, pmfs."""
        return {
            **self.run_info(),
            "resolved": self.resolved,
            "probabilities": self.probability_rows(),
            "summary": self.summary_rows(),
            "pmf": {s.name: [float(x) for x in _trim(self._p(s.name))] for s in self.stats},
            "counts": None
            if self.counts is None
            else {k: [int(x) for x in _trim(v)] for k, v in self.counts.items()},
            **({"events": [r.to_dict() for r in self.events.values()]} if self.events else {}),
            **({"joints": [t.to_dict() for t in self.joints.values()]} if self.joints else {}),
        }

    def to_json(self, path: str | Path | None = None) -> str:
        """:meth:`to_dict` as JSON; written to ``path`` if given, returned."""
        text = json.dumps(self.to_dict(), indent=2)
        if path is not None:
            Path(path).write_text(text)
        return text

    def __repr__(self) -> str:
        kind = "exact" if self.exact else f"{self.trials:,} trials, seed {self.seed}"
        return f"<Outcome {self.name!r}: {kind}; stats {', '.join(self.stat_names)}>"


#: Statistic names tried, in order, when a job names no ``meta["primary"]``.
_PRIMARY_GUESSES = (
    "models_lost",
    "models_slain",
    "models_destroyed",
    "casualties",
    "damage",
    "wounds_lost",
    "unsaved",
    "wounds",
    "hits",
    "total",
    "total_a",
)


def _is_turn_counter(name: str) -> bool:
    parts = name.lower().split("_")
    return any(p in ("turn", "turns", "round", "rounds") for p in parts)


#: Columns of :meth:`Outcome.to_csv` / :meth:`Outcome.to_frame`.
LONG_COLUMNS = ("section", "stat", "label", "k", "measure", "value")


def _trim(p: np.ndarray) -> np.ndarray:
    nz = np.nonzero(p > 0)[0]
    return p[: (nz[-1] + 1 if len(nz) else 1)]


def _quantile(cdf: np.ndarray, q: float) -> int:
    return int(np.searchsorted(cdf, q - 1e-12, side="left"))
