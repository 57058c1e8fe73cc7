"""Duel balance: the unit size at which a probability crosses a target (50% by default).

``duel_balance(scenario, "attacker.units.0.groups.0.count", 5, 20, metric="P(attacker wins)")``
finds the size ``x`` of side A at which P(A beats B) = 50%. Every evaluation uses the **same
seed** (common random numbers), so neighbouring sizes share their random streams chunk by
chunk and the estimated curve is smooth: its steps are real differences, not noise.

The search is a bisection over whole sizes for the last size below the target and the first at
or above it (the metric is assumed monotone in the size over ``[lo, hi]``; the direction is
read from the two ends), then

- the **crossing** is the linear interpolation between those two sizes;
- its **95% interval** inverts the pointwise 95% Wilson band: the lower end is where the upper
  band crosses the target, the upper end where the lower band does (the curve is evaluated at
  more sizes outward until the band has crossed on both sides, or ``lo``/``hi`` is reached —
  then that end of the interval is open and reported as the range end).

With ``points_per_model`` (and ``base_points``) the crossing and interval are also given in
points: ``points = base_points + points_per_model × size``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oddslab.analysis.metrics import parse_metric
from oddslab.analysis.paths import with_paths

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = ["duel_balance", "DuelResult", "DuelInterrupted"]


@dataclass
class DuelResult:
    """Where a metric crosses the target as one side's size varies.

    Attributes
    ----------
    path : str
        The varied key.
    metric : str
    target : float
    crossing : float
        Interpolated size at which the metric equals ``target``.
    ci_low, ci_high : float
        95% interval of the crossing (open ends are the searched range's ends).
    below, above : int
        The whole sizes either side of the crossing.
    curve : DataFrame
        Every size evaluated: size, value, se, ci_low, ci_high (sorted by size).
    points : (float, float, float) or None
        Crossing and interval in points, if priced.
    seed : int
        The seed every evaluation used.
    """

    path: str
    metric: str
    target: float
    crossing: float
    ci_low: float
    ci_high: float
    below: int
    above: int
    curve: pd.DataFrame
    points: tuple[float, float, float] | None
    seed: int
    notes: list[str] = field(default_factory=list)

    def summary(self) -> pd.DataFrame:
        import pandas as pd

        rows = [
            ("varied key", self.path),
            ("metric", self.metric),
            ("target", f"{self.target:g}"),
            ("crossing (size)", f"{self.crossing:.2f}"),
            ("95% interval (size)", f"{self.ci_low:.2f} – {self.ci_high:.2f}"),
            ("whole sizes either side", f"{self.below} / {self.above}"),
        ]
        if self.points is not None:
            p, lo, hi = self.points
            rows.append(("crossing (points)", f"{p:.1f} ({lo:.1f} – {hi:.1f})"))
        rows.append(("seed (every size)", str(self.seed)))
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def to_dict(self) -> dict[str, Any]:
        """The whole answer as one JSON-ready document (``points duel -f json``): numbers as
        numbers (NaN → None), each interval as its two ends, ``points`` (crossing, ci_low,
        ci_high, or None when not priced), the notes and the ``curve``: every size evaluated
        (size, value, se, ci_low, ci_high), sorted by size."""
        from oddslab._format import json_number as num

        pts = None
        if self.points is not None:
            pts = dict(zip(("crossing", "ci_low", "ci_high"), map(num, self.points), strict=True))
        curve = [{k: num(v) for k, v in r.items()} for r in self.curve.to_dict("records")]
        return {
            "path": self.path,
            "metric": self.metric,
            "target": num(self.target),
            "crossing": num(self.crossing),
            "ci_low": num(self.ci_low),
            "ci_high": num(self.ci_high),
            "below": self.below,
            "above": self.above,
            "points": pts,
            "seed": self.seed,
            "notes": list(self.notes),
            "curve": curve,
        }

    def frame(self) -> pd.DataFrame:
        """One tidy table (``points duel -f csv``): a row per size evaluated (the curve:
        size, value, se, ci_low, ci_high), after the answer's columns repeated on every row:
        path, metric, target, seed, crossing, crossing_ci_low, crossing_ci_high, below,
        above, crossing_points, points_ci_low, points_ci_high (NaN when not priced)."""
        nan = float("nan")
        pts = self.points if self.points is not None else (nan, nan, nan)
        head = {
            "path": self.path,
            "metric": self.metric,
            "target": self.target,
            "seed": self.seed,
            "crossing": self.crossing,
            "crossing_ci_low": self.ci_low,
            "crossing_ci_high": self.ci_high,
            "below": self.below,
            "above": self.above,
            "crossing_points": pts[0],
            "points_ci_low": pts[1],
            "points_ci_high": pts[2],
        }
        df = self.curve.copy()
        for i, (k, v) in enumerate(head.items()):
            df.insert(i, k, v)
        return df


def duel_balance(
    scenario: str | Path | Mapping[str, Any],
    path: str,
    lo: int,
    hi: int,
    *,
    metric: str = "P(attacker wins)",
    target: float = 0.5,
    trials: int | None = None,
    seed: int | None = None,
    points_per_model: float | None = None,
    base_points: float = 0.0,
    progress: Callable[[int, int], None] | None = None,
    events: Any = (),
) -> DuelResult:
    """Find the size at ``path`` (an integer key) where ``metric`` crosses ``target``.

    Parameters
    ----------
    scenario : path or dict
    path : str
        Dotted key of the size to vary (``units.a.models``, ``attacker.units.0.groups.0.count``).
    lo, hi : int
        The range searched; the metric must be on opposite sides of ``target`` at the two ends.
    metric : str
        A probability metric (see :func:`oddslab.analysis.metrics.parse_metric`).
    target : float
        The probability to cross (default 0.5: a balanced duel).
    trials : int, optional
        Trials per evaluated size (default: the scenario's, else 1,000,000).
    seed : int, optional
        The one seed used at every size (default: the scenario's, else 1).
    points_per_model, base_points : float, optional
        Price of the varied side, to report the crossing in points.
    progress : callable, optional
        ``progress(evaluations_done, evaluations_so_far_planned)``.
    events : str or iterable of str, optional
        Events counted at every size (``"A wins clean = ..."``), for ``metric="P(A wins
        clean)"``; an event written inline in the metric is counted too. Read against the
        statistics of the ``lo`` size before anything runs.

    Raises
    ------
    ValueError
        If the metric does not cross ``target`` between ``lo`` and ``hi``.
    DuelInterrupted
        Ctrl-C (a ``KeyboardInterrupt``), with the sizes evaluated in full so far.
    """
    import pandas as pd

    from oddslab.analysis.sweep import read_scenario_dict
    from oddslab.engine import simulate
    from oddslab.scenario import from_dict

    raw, source = read_scenario_dict(scenario)
    if not (isinstance(lo, int) and isinstance(hi, int)) or lo >= hi:
        raise ValueError(f"the size range must be two whole numbers lo < hi, got {lo}..{hi}")
    if not 0 < target < 1:
        raise ValueError("target must be a probability strictly between 0 and 1")
    for what, pts in (("points per model", points_per_model), ("base points", base_points)):
        if pts is not None and not 0 <= pts < math.inf:  # a price is a number of points >= 0
            raise ValueError(f"{what}: expected a number of points >= 0, got {pts:g}")
    m = parse_metric(metric)
    if not m.is_probability:
        raise ValueError(f"'{metric}' is a mean; duel balance needs a probability metric")
    from oddslab.analysis.cell_events import attach, check_study, fitting, study_events

    events = study_events(events, metric)
    if seed is None:
        s = raw.get("seed")
        seed = s if isinstance(s, int) and not isinstance(s, bool) and s >= 0 else 1
    base = Path(source).parent if source != "<dict>" else Path.cwd()
    cache: dict[int, Any] = {}

    def scenario_at(x: int):
        where = f"{source} [{path}={x}]"
        return from_dict(with_paths(raw, {path: x}, where, base), source=where), where

    if events:  # read against the statistics of a size before anything runs
        sc, where = scenario_at(lo)
        check_study([_Probe(sc, where)], events, metric, "never")

    def value(x: int):
        if x not in cache:
            sc, _ = scenario_at(x)
            job = sc.compile()
            evs, _ = fitting(events, [s.name for s in job.stats])
            joined = [t for t, e in evs if len(e.stats) > 1]
            n = trials if trials is not None else getattr(sc, "trials", None)
            try:
                out = simulate(job, trials=n, seed=seed, events=joined)
                if out.interrupted:  # Ctrl-C: a size cut short would move the crossing
                    raise KeyboardInterrupt
                attach(out, evs)
                try:
                    cache[x] = m.evaluate(out)
                except KeyError as exc:  # statistics a size cannot produce are not reported
                    raise ValueError(f"at {path}={x}: {exc.args[0]}") from None
                if progress is not None:
                    progress(len(cache), len(cache) + 1)
            except KeyboardInterrupt:
                raise DuelInterrupted(path, dict(cache)) from None
        return cache[x]

    f_lo, f_hi = value(lo).value - target, value(hi).value - target
    if f_lo * f_hi > 0 or (f_lo == 0 and f_hi == 0):
        raise ValueError(
            f"{m.text} is {value(lo).value:.4f} at {lo} and {value(hi).value:.4f} at {hi}: "
            f"it does not cross {target:g} in that range"
        )
    up = f_hi > f_lo  # the metric rises with the size

    def below(x: int) -> bool:  # on the lo side of the target
        v = value(x).value
        return v < target if up else v > target

    a, b = lo, hi  # invariant: below(a), not below(b)
    if not below(a):
        b = a
    while b - a > 1:
        mid = (a + b) // 2
        if below(mid):
            a = mid
        else:
            b = mid
    crossing = _interp(a, value(a).value, b, value(b).value, target) if a != b else float(a)
    notes: list[str] = []
    # extend outward until the band has crossed the target on both sides
    sign = 1 if up else -1
    x = a
    while x > lo and sign * (value(x).ci_high - target) >= 0:
        x -= 1
        value(x)
    x = b
    while x < hi and sign * (value(x).ci_low - target) <= 0:
        x += 1
        value(x)
    sizes = sorted(cache)
    hi_band = [cache[s].ci_high if up else cache[s].ci_low for s in sizes]
    lo_band = [cache[s].ci_low if up else cache[s].ci_high for s in sizes]
    ci_lo = _first_crossing(sizes, hi_band, target, up, default=float(lo))
    ci_hi = _first_crossing(sizes, lo_band, target, up, default=float(hi))
    if ci_lo == lo and sign * (hi_band[0] - target) >= 0:
        notes.append(f"the interval is open at {lo}: widen the range for its lower end")
    if ci_hi == hi and sign * (lo_band[-1] - target) <= 0:
        notes.append(f"the interval is open at {hi}: widen the range for its upper end")
    curve = pd.DataFrame(
        [
            {"size": s, "value": cache[s].value, "se": cache[s].se,
             "ci_low": cache[s].ci_low, "ci_high": cache[s].ci_high}
            for s in sizes
        ]
    )  # fmt: skip
    pts = None
    if points_per_model is None:
        priced = _library_price(raw, path, source, base)
        if priced is not None:
            points_per_model, base_points = priced
            notes.append(
                f"points from the library entry: {base_points:g} + {points_per_model:g} per model"
            )
    if points_per_model is not None:
        pts = tuple(base_points + points_per_model * v for v in (crossing, ci_lo, ci_hi))
    return DuelResult(
        path, m.text, target, crossing, min(ci_lo, crossing), max(ci_hi, crossing),
        a, b, curve, pts, int(seed), notes,
    )  # fmt: skip


class DuelInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a duel search before its answer; ``evaluated`` holds the sizes that
    finished (size → metric value with its 95% interval), each run in full (a size cut short
    is never kept: it would move the crossing)."""

    def __init__(self, path: str, evaluated: dict[int, Any]) -> None:
        super().__init__(f"interrupted after {len(evaluated)} sizes")
        self.path, self.evaluated = path, evaluated

    def summary(self) -> str:
        """One or two lines for the command line: what finished, and that it has no answer."""
        if not self.evaluated:
            return "interrupted before any size finished: the duel has no answer"
        sizes = "; ".join(
            f"{s}: {v.value:.4g} [{v.ci_low:.4g}, {v.ci_high:.4g}]"
            for s, v in sorted(self.evaluated.items())
        )
        return (
            "interrupted: the duel has no answer yet (the same seed gives these values again)\n"
            f"sizes finished ({self.path}: value [95% interval]): {sizes}"
        )


@dataclass
class _Probe:
    """What :func:`~oddslab.analysis.cell_events.check_study` reads of a cell."""

    validated: Any
    source: str


def _interp(x0: float, y0: float, x1: float, y1: float, t: float) -> float:
    if y1 == y0:
        return (x0 + x1) / 2
    return x0 + (t - y0) * (x1 - x0) / (y1 - y0)


def _first_crossing(xs: list[int], ys: list[float], t: float, up: bool, *, default: float) -> float:
    """Where the piecewise-linear ``ys`` first reaches ``t`` (rising if ``up``)."""
    for i in range(len(xs) - 1):
        y0, y1 = ys[i], ys[i + 1]
        if (up and y0 < t <= y1) or (not up and y0 > t >= y1):
            return _interp(xs[i], y0, xs[i + 1], y1, t)
    if xs and ((up and ys[0] >= t) or (not up and ys[0] <= t)):
        return float(xs[0])
    return default if not math.isnan(default) else float("nan")


def _library_price(
    raw: Mapping[str, Any], path: str, source: str, base: Path
) -> tuple[float, float] | None:
    """(points per model, fixed points) of the library entry whose ``models`` is varied."""
    from oddslab.analysis.paths import split_path
    from oddslab.libraries import load_library, parse_ref

    parts = split_path(path)
    if parts[-1] != "models":
        return None
    node: Any = raw
    for p in parts[:-1]:
        try:
            node = node[p]
        except (KeyError, IndexError, TypeError):
            return None
    if not isinstance(node, dict) or "use" not in node or "points_per_model" in node:
        return None
    lib_path, name = parse_ref(node["use"], base, source, path)
    entry = load_library(lib_path).entries.get(name)
    if entry is None or "points_per_model" not in entry.data:
        return None
    return float(entry.data["points_per_model"]), float(entry.data.get("points", 0.0))
