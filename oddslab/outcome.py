"""Outcome distributions as tidy pandas tables, with standard errors and 95% intervals.

An :class:`Outcome` holds one histogram per statistic (trial counts for Monte Carlo runs,
exact probabilities for exact runs). Probabilities from Monte Carlo runs come with the
binomial standard error ``sqrt(p (1 - p) / n)`` and a 95% Wilson score interval; means come
with ``sd / sqrt(n)``. Exact outcomes report standard error 0.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Stat", "Headline", "Outcome", "wilson_interval"]

Z95 = 1.959963984540054


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


def wilson_interval(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion ``hits / n``."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Outcome:
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
        Wall-clock seconds spent in kernels.
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

    def _p(self, stat: str) -> np.ndarray:
        if stat not in self.probs:
            raise KeyError(f"no statistic '{stat}'; this outcome has: {', '.join(self.stat_names)}")
        return self.probs[stat]

    def _interval(self, p: float) -> tuple[float, float, float]:
        """(se, ci_low, ci_high) for a probability estimate ``p``."""
        if self.trials is None:
            return 0.0, p, p
        n = self.trials
        se = math.sqrt(max(p * (1 - p), 0.0) / n) if n else float("nan")
        lo, hi = wilson_interval(round(p * n), n)
        return se, lo, hi

    def prob(self, stat: str, k: int = 1) -> float:
        """``P(stat >= k)``."""
        p = self._p(stat)
        return float(p[max(k, 0) :].sum()) if k < len(p) else 0.0

    def mean(self, stat: str) -> float:
        p = self._p(stat)
        return float(np.dot(np.arange(len(p)), p))

    # -- tables -----------------------------------------------------------------------------
    def pmf(self, stat: str) -> pd.DataFrame:
        """``P(stat == value)`` per value: columns value, probability, se, ci_low, ci_high."""
        p = _trim(self._p(stat))
        rows = [(v, float(pv), *self._interval(float(pv))) for v, pv in enumerate(p)]
        return pd.DataFrame(rows, columns=["value", "probability", "se", "ci_low", "ci_high"])

    def at_least(self, stat: str) -> pd.DataFrame:
        """``P(stat >= k)`` per k: columns k, probability, se, ci_low, ci_high."""
        p = _trim(self._p(stat))
        tail = np.cumsum(p[::-1])[::-1]
        rows = [
            (k, float(min(t, 1.0)), *self._interval(float(min(t, 1.0)))) for k, t in enumerate(tail)
        ]
        return pd.DataFrame(rows, columns=["k", "probability", "se", "ci_low", "ci_high"])

    def summary(self) -> pd.DataFrame:
        """One row per statistic: mean, sd, se of the mean, quantiles, min, max."""
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
                    "description": s.description,
                }
            )
        return pd.DataFrame(rows).set_index("stat")

    def probabilities(self) -> pd.DataFrame:
        """Headline probabilities (and every yes/no statistic): probability, se, 95% CI."""
        heads = list(self.headlines)
        named = {h.stat for h in heads if h.k == 1}
        for s in self.stats:
            if s.flag and s.name not in named:
                heads.append(Headline(f"P({s.name})", s.name, 1))
        rows = []
        for h in heads:
            if h.stat not in self.probs:
                continue
            p = self.prob(h.stat, h.k)
            rows.append((h.label, h.stat, h.k, p, *self._interval(p)))
        return pd.DataFrame(
            rows, columns=["label", "stat", "k", "probability", "se", "ci_low", "ci_high"]
        )

    # -- export -----------------------------------------------------------------------------
    def to_frame(self) -> pd.DataFrame:
        """Long format: one row per (stat, value) with probability and count."""
        rows = []
        for s in self.stats:
            p = _trim(self._p(s.name))
            for v, pv in enumerate(p):
                c = int(self.counts[s.name][v]) if self.counts is not None else None
                rows.append((s.name, v, float(pv), c))
        return pd.DataFrame(rows, columns=["stat", "value", "probability", "count"])

    def to_csv(self, path: str | Path | None = None) -> str:
        """Long-format CSV (see :meth:`to_frame`); written to ``path`` if given, returned."""
        text = self.to_frame().to_csv(index=False)
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: run info, headline probabilities, summary and pmfs."""
        return {
            "name": self.name,
            "exact": self.exact,
            "trials": self.trials,
            "seed": self.seed,
            "interrupted": self.interrupted,
            "probabilities": self.probabilities().to_dict(orient="records"),
            "summary": self.summary().reset_index().to_dict(orient="records"),
            "pmf": {s.name: [float(x) for x in _trim(self._p(s.name))] for s in self.stats},
            "counts": None
            if self.counts is None
            else {k: [int(x) for x in _trim(v)] for k, v in self.counts.items()},
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


def _trim(p: np.ndarray) -> np.ndarray:
    nz = np.nonzero(p > 0)[0]
    return p[: (nz[-1] + 1 if len(nz) else 1)]


def _quantile(cdf: np.ndarray, q: float) -> int:
    return int(np.searchsorted(cdf, q - 1e-12, side="left"))
