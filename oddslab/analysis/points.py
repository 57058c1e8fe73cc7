"""Points: efficiency per 100 points against a basket of targets, and fair points.

A *basket* is a weighted set of targets: ``{"lib.toml:conscripts": 2, "lib.toml:battle_tank": 1}``
(or a list / a library, equal weights). A unit's basket value is the weighted mean of the
metric over the basket, ``V = Σ w_t m_t / Σ w_t``, with ``SE = sqrt(Σ (w_t / Σw)² se_t²)`` (the
cells are independent runs). Its efficiency is ``100 V / points``.

**Fair points.** A candidate unit is fairly priced when its efficiency equals a reference
unit's: ``P* = P_ref · V_cand / V_ref``. Its standard error follows from the delta method on
the ratio of two independent estimates, ``SE(P*) = P* · sqrt((se_c / V_c)² + (se_r / V_r)²)``,
and the 95% interval is ``P* ± 1.96 SE``. A unit bought by the model (``points_per_model`` in
its library entry, with ``models`` of them) cannot cost any number of points: the fair price
per model is ``(P* − points) / models`` and the report gives the bracket of whole points per
model around it (and the unit costs they give), plus every whole price the interval allows.
A basket value under :data:`NEGLIGIBLE` (10⁻⁶) counts as 0, exact or simulated: a reference
that scores less has no fair price (an exact 3e-8 would otherwise price a unit at 10⁸ points
where a simulation never sees a score). :func:`basket_sensitivity` shows how ``P*`` moves when the basket changes: each target alone
and the basket without each target.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from oddslab.analysis.baskets import (
    basket_exact,
    basket_value,
    read_basket,
    read_selection,
    weights_by_name,
)
from oddslab.analysis.matchup import MatchupResult, matchup, select_entries
from oddslab.libraries import _ident
from oddslab.outcome import Z95

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = [
    "efficiency",
    "EfficiencyResult",
    "fair_points",
    "FairPoints",
    "basket_sensitivity",
    "plot_efficiency",
    "read_basket",
    "NEGLIGIBLE",
]


@dataclass
class EfficiencyResult:
    """Basket efficiency of several units. ``table`` is ranked, best first."""

    table: pd.DataFrame
    matchup: MatchupResult
    weights: dict[str, float]

    def __repr__(self) -> str:  # a notebook shows this: a line, not the matchup's cells
        return (
            f"EfficiencyResult({len(self.table)} units, metric={self.table.attrs.get('metric')!r}, "
            f"basket of {len(self.weights)} targets)"
        )

    def plot(self, ax: Any = None) -> Any:
        return plot_efficiency(self, ax=ax)

    def frame(self) -> pd.DataFrame:
        """The table as ``points efficiency -f csv|json`` and ``--out`` write it: numbers as
        numbers, as a sweep's or matchup's rows: an exact row has ``exact`` true, its se and
        per_100_points_se 0 and its interval's ends equal to its per_100_points (NaN only
        where a value does not exist: a unit without points)."""
        return self.table.copy()


def efficiency(
    units: Any, basket: Any, *, metric: str | None = None, **run: Any
) -> EfficiencyResult:
    """Each unit's basket metric per 100 points, with SE, ranked.

    Parameters
    ----------
    units : library spec(s)
        The units to rate (each needs points in its library entry).
    basket : mapping spec → weight, or spec(s)
        The targets they are rated against.
    metric : str, optional
        Default ``mean(<primary statistic>)``.
    **run
        ``trials``, ``seed``, ``precision``, ``template``, ``store``, ``resume``, ``workers``,
        ``scheduler``, ``progress``, ``events`` as :func:`oddslab.analysis.matchup.matchup`
        (``metric="P(clean win)"`` with ``events=["clean win = ..."]``).

    Returns
    -------
    EfficiencyResult
        ``table`` columns: rank, unit, label, points, value, se, per_100_points,
        per_100_points_se, ci_low, ci_high (of per_100_points), exact (every cell of the
        unit's basket answered exactly: se 0, interval of zero width), note (why a unit has
        no value: the first basket cell that does not report the metric, or no points; it
        is ranked last).
    """
    import pandas as pd

    targets, weights = read_selection(basket)
    res = matchup(units, targets, metric=metric, **run)
    weights = weights_by_name(res, weights)
    tab = res.table()
    # each unit's rows once (a big matchup has units × targets rows: never scan it per unit)
    by_unit = dict(tuple(tab.groupby("attacker", sort=False)))
    rows = []
    for e in res.attackers:
        name = res.name(e)
        pts = res.points.get(name)
        sub = by_unit.get(name, tab.iloc[:0])
        v, se = basket_value(sub, name, weights)
        per = 100 * v / pts if pts else float("nan")
        per_se = 100 * se / pts if pts else float("nan")
        note = ""  # why a unit has no value (it is ranked last: never silently)
        if math.isnan(v):
            bad = sub[sub["target"].isin(list(weights)) & sub["value"].isna()]
            note = (
                f"no basket value: {bad['target'].iloc[0]}: {bad['note'].iloc[0]}"
                if len(bad)
                else "no basket value: no cell of the basket ran"
            )
        elif not pts:
            note = "no points in its library entry"
        rows.append(
            {
                "unit": name,
                "label": res.label(e),
                "points": pts,
                "value": v,
                "se": se,
                "per_100_points": per,
                "per_100_points_se": per_se,
                "ci_low": per - Z95 * per_se,
                "ci_high": per + Z95 * per_se,
                "exact": basket_exact(sub, [name], weights),
                "note": note,
            }
        )
    df = pd.DataFrame(rows).sort_values("per_100_points", ascending=False, kind="stable")
    df.insert(0, "rank", range(1, len(df) + 1))
    df.attrs["metric"] = res.metric
    # every cell that ran is exact: exact cells and pairs not run have 0 trials, simulated
    # cells more (read off the table: never an Outcome per cell)
    df.attrs["exact"] = bool((tab["trials"] == 0).all())
    return EfficiencyResult(df.reset_index(drop=True), res, weights)


def plot_efficiency(result: EfficiencyResult, *, ax: Any = None) -> Any:
    """Horizontal bars of the ranked efficiency with 95% intervals. Returns the Axes.

    The entries' names are labelled as a heatmap's (:func:`oddslab.analysis.plots
    .category_ticks`: wrapped, never alike, cut names in full in a footnote), the figure
    grows to fit them, and the title and axis label wrap to its width."""
    import matplotlib.pyplot as plt

    from oddslab.analysis.plots import category_ticks, efficiency_label

    df = result.table.iloc[::-1]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 0.45 * len(df) + 1.5))
    exact = bool(result.table.attrs.get("exact", False))  # no interval to draw or name
    xerr = None if exact else Z95 * df["per_100_points_se"]
    ax.barh(range(len(df)), df["per_100_points"], xerr=xerr, capsize=3, color="tab:blue",
            alpha=0.8)  # fmt: skip
    ax.set_xlabel(efficiency_label(result))
    ax.set_title(f"Efficiency against the basket ({'exact' if exact else '95% CI'})")
    ax.grid(axis="x", alpha=0.3)
    category_ticks(ax, [str(x) for x in df["label"]], axis="y", tag="A")
    return ax


@dataclass
class FairPoints:
    """The fair price of a candidate unit against a reference unit and a basket.

    Attributes
    ----------
    candidate, reference : str
        Entry names (``lib.toml:key``).
    metric : str
    candidate_value, candidate_se, reference_value, reference_se : float
        Basket values of the metric and their SEs.
    reference_points : float
    fair_points, se, ci_low, ci_high : float
        ``P*`` and its delta-method SE and 95% interval (points for the unit as fielded).
    models : int or None
        Models in the candidate when it is bought by the model.
    base_points : float
        The candidate's per-unit points (0 when bought purely by the model).
    fair_per_model, per_model_ci : float, (float, float)
        ``(P* − base_points) / models`` and its interval (None when not bought by the model).
    bracket : list of dict
        Whole points per model just below and above ``fair_per_model``: for each, the unit's
        points and its efficiency relative to the reference (1 = fair).
    allowed : list of int
        Whole points per model inside the 95% interval.
    exact : bool
        Every cell of both units against the basket was answered exactly (SEs 0): the
        printed answer has no ± or interval, :meth:`to_dict` and :meth:`frame` leave the SEs
        and intervals empty.
    """

    candidate: str
    reference: str
    metric: str
    candidate_value: float
    candidate_se: float
    reference_value: float
    reference_se: float
    reference_points: float
    fair_points: float
    se: float
    ci_low: float
    ci_high: float
    models: int | None
    base_points: float
    fair_per_model: float | None
    per_model_ci: tuple[float, float] | None
    bracket: list[dict[str, float]]
    allowed: list[int]
    matchup: MatchupResult
    weights: dict[str, float]
    exact: bool = False

    def __repr__(self) -> str:  # a notebook shows this: the answer, not the matchup's cells
        how = "exact" if self.exact else f"SE {self.se:.2g}"
        return (
            f"FairPoints({self.candidate!r} against {self.reference!r}: "
            f"{self.fair_points:.4g} points, {how}; metric={self.metric!r})"
        )

    def summary(self) -> pd.DataFrame:
        """The answer as a two-column table (quantity, value) for printing."""
        import pandas as pd

        from oddslab._format import format_estimate as est  # never "1 ± 0.005" for 0.99999
        from oddslab._format import format_se

        ex = self.exact  # exact: no "± 0", no interval of zero width

        def value(v: float, se: float) -> str:  # a simulated value: as many decimals as its SE
            return f"{v:.4g}" if ex else f"{est(v, se)} ± {format_se(se)}"

        def span(lo: float, hi: float, se: float) -> str:
            return f"{est(lo, se)} – {est(hi, se)}"

        rows = [
            ("metric", self.metric),
            ("candidate basket value", value(self.candidate_value, self.candidate_se)),
            ("reference basket value", value(self.reference_value, self.reference_se)),
            ("reference points", f"{self.reference_points:g}"),
            ("fair points", f"{self.fair_points:.1f}" if ex else value(self.fair_points, self.se)),
        ]
        if not ex:
            rows.append(("95% interval", span(self.ci_low, self.ci_high, self.se)))
        if self.fair_per_model is not None and self.per_model_ci is not None:
            lo, hi = self.per_model_ci
            fpm, se_pm = self.fair_per_model, self.se / (self.models or 1)
            text = f"{fpm:.2f}" if ex else f"{value(fpm, se_pm)} ({span(lo, hi, se_pm)})"
            rows.append(("fair points per model", text))
            for b in self.bracket:
                rows.append(
                    (
                        f"at {b['per_model']:g} per model",
                        f"{b['unit_points']:g} points, efficiency {b['relative_efficiency']:.3f}× reference",
                    )
                )
            if not ex:
                rows.append(
                    ("whole prices in the interval", ", ".join(map(str, self.allowed)) or "none")
                )
        return pd.DataFrame(rows, columns=["quantity", "value"])

    def sensitivity(self) -> pd.DataFrame:
        """:func:`basket_sensitivity` of this answer (no new simulation)."""
        return basket_sensitivity(self)

    def frame(self) -> pd.DataFrame:
        """One tidy table (what ``points fair -f csv`` writes): one row per basket (the whole
        basket first, then the :meth:`sensitivity` rows), numbers as numbers.

        Columns: candidate, reference, metric, reference_points, basket, candidate_value,
        candidate_se, reference_value, reference_se, fair_points, se, ci_low, ci_high,
        fair_per_model, per_model_ci_low, per_model_ci_high (NaN for a unit not bought by the
        model), exact, note. An exact row (every cell of its basket answered exactly) has
        ``exact`` true, its SEs 0 and its intervals' ends equal to its value, as a sweep's or
        matchup's rows (NaN only where a value does not exist: no fair price).
        """
        df = self.sensitivity()
        nan = float("nan")
        m = self.models
        df["fair_per_model"] = (df["fair_points"] - self.base_points) / m if m else nan
        df["per_model_ci_low"] = (df["ci_low"] - self.base_points) / m if m else nan
        df["per_model_ci_high"] = (df["ci_high"] - self.base_points) / m if m else nan
        for col, value in (
            ("reference_points", self.reference_points),
            ("metric", self.metric),
            ("reference", self.reference),
            ("candidate", self.candidate),
        ):
            df.insert(0, col, value)
        return df[[c for c in df.columns if c not in ("exact", "note")] + ["exact", "note"]]

    def to_dict(self) -> dict[str, Any]:
        """The whole answer as one JSON-ready document (``points fair -f json``): every
        number a number (NaN → None), the bracket, the allowed prices, the weights, ``exact``
        and the sensitivity rows. An exact answer has ``exact`` true, its SEs 0 and its
        intervals' ends equal to its value (``allowed``: the whole prices in that interval of
        zero width), as :meth:`frame`; None only where a value does not exist."""
        from oddslab._format import json_number as num
        from oddslab._format import json_records

        ex = self.exact
        rows = json_records(self.sensitivity())
        return {
            "candidate": self.candidate,
            "reference": self.reference,
            "metric": self.metric,
            "candidate_value": num(self.candidate_value),
            "candidate_se": num(self.candidate_se),
            "reference_value": num(self.reference_value),
            "reference_se": num(self.reference_se),
            "reference_points": num(self.reference_points),
            "fair_points": num(self.fair_points),
            "se": num(self.se),
            "ci_low": num(self.ci_low),
            "ci_high": num(self.ci_high),
            "exact": ex,
            "models": self.models,
            "base_points": self.base_points,
            "fair_per_model": num(self.fair_per_model),
            "per_model_ci": None if self.per_model_ci is None else [*map(num, self.per_model_ci)],
            "bracket": [{k: num(v) for k, v in b.items()} for b in self.bracket],
            "allowed": list(self.allowed),
            "weights": dict(self.weights),
            "sensitivity": rows,
        }


#: A basket value below this is "never scores" for pricing: an exact answer of 3e-8 (an event
#: a simulation of millions of trials never sees) would otherwise price a unit at 10⁸ points.
NEGLIGIBLE = 1e-6


def _ratio(pr: float, vc: float, sc: float, vr: float, sr: float) -> tuple[float, float]:
    if not vr >= NEGLIGIBLE or not math.isfinite(vc):
        return float("nan"), float("nan")
    if abs(vc) < NEGLIGIBLE:  # delta method through zero: use the absolute form
        return 0.0, pr * sc / vr
    p = pr * vc / vr
    rel_c = (sc / vc) ** 2
    return p, abs(p) * math.sqrt(rel_c + (sr / vr) ** 2)


def fair_points(
    candidate: Any,
    reference: Any,
    basket: Any,
    *,
    metric: str | None = None,
    reference_points: float | None = None,
    **run: Any,
) -> FairPoints:
    """The points at which a candidate's basket efficiency equals a reference unit's.

    Parameters
    ----------
    candidate, reference : library spec naming one entry each
    basket : mapping spec → weight, or spec(s)
    metric : str, optional
        The metric that is "worth points" (default ``mean(<primary statistic>)``).
    reference_points : float, optional
        The reference's price; default its library points.
    **run
        As :func:`efficiency`.
    """
    cand = select_entries(candidate).entries
    ref = select_entries(reference).entries
    if len(cand) != 1 or len(ref) != 1:
        raise ValueError("fair points needs exactly one candidate entry and one reference entry")
    c, r = cand[0], ref[0]
    if _ident(c) == _ident(r):
        raise ValueError("the candidate and the reference are the same entry")
    if reference_points is not None and not 0 < reference_points < math.inf:
        raise ValueError(
            f"reference points: expected a price above 0, got {reference_points:g} "
            "(a reference that costs nothing prices every unit at 0)"
        )
    targets, weights = read_selection(basket)
    res = matchup([c, r], targets, metric=metric, **run)
    weights = weights_by_name(res, weights)
    tab = res.table()
    cn, rn = res.name(c), res.name(r)
    pr = reference_points if reference_points is not None else res.points.get(rn)
    if pr is None:
        raise ValueError(f"{rn} has no points in its library entry; give reference_points")
    vc, sc = basket_value(tab, cn, weights)
    vr, sr = basket_value(tab, rn, weights)
    for unit, v in ((cn, vc), (rn, vr)):
        if math.isnan(v):  # a cell whose scenario does not report the metric
            bad = tab[(tab["attacker"] == unit) & tab["target"].isin(list(weights))]
            bad = bad[bad["value"].isna()]
            raise ValueError(
                f"{unit} vs {bad['target'].iloc[0]}: {bad['note'].iloc[0]}; fair points need "
                "a metric every cell of the basket reports"
            )
    if not vr >= NEGLIGIBLE:
        raise ValueError(
            f"the reference scores {vr:.3g} on '{res.metric}' against this basket"
            f"{_too_rare(vr)}; fair points need a reference that scores at least "
            f"{NEGLIGIBLE:g}"
        )
    p, se = _ratio(float(pr), vc, sc, vr, sr)
    lo, hi = p - Z95 * se, p + Z95 * se
    flat = c.profile() | {k: c.data[k] for k in ("points", "points_per_model") if k in c.data}
    models = flat.get("models") if "points_per_model" in flat else None
    base = float(flat.get("points", 0.0)) if models else 0.0
    fair_pm = ci_pm = None
    bracket: list[dict[str, float]] = []
    allowed: list[int] = []
    if isinstance(models, int) and models > 0:
        fair_pm = (p - base) / models
        ci_pm = ((lo - base) / models, (hi - base) / models)
        for q in sorted({math.floor(fair_pm), math.ceil(fair_pm)}):
            if q < 0:
                continue
            unit = base + q * models
            bracket.append(
                {
                    "per_model": float(q),
                    "unit_points": float(unit),
                    "relative_efficiency": (p / unit) if unit > 0 else float("inf"),
                }
            )
        allowed = [q for q in range(max(0, math.ceil(ci_pm[0])), math.floor(ci_pm[1]) + 1)]
    else:
        models = None
    return FairPoints(
        cn, rn, res.metric, vc, sc, vr, sr, float(pr), p, se, lo, hi,
        models, base, fair_pm, ci_pm, bracket, allowed, res, weights,
        basket_exact(tab, [cn, rn], weights),
    )  # fmt: skip


def _too_rare(v: float) -> str:
    """Why a score that is not 0 counts as 0 (see :data:`NEGLIGIBLE`)."""
    return f" (under {NEGLIGIBLE:g}: as good as never)" if 0 < abs(v) < NEGLIGIBLE else ""


def basket_sensitivity(fair: FairPoints) -> pd.DataFrame:
    """How the fair points move with the basket: whole basket, each target alone, each left out.

    Uses the cells already run for ``fair`` (no new simulation).

    Returns
    -------
    DataFrame
        Columns: basket, candidate_value, candidate_se, reference_value, reference_se,
        fair_points, se, ci_low, ci_high, exact (every cell of the row's basket answered
        exactly: its SEs 0), note (why a row has no fair price).
    """
    import pandas as pd

    tab = fair.matchup.table()
    labels = {fair.matchup.name(e): fair.matchup.label(e) for e in fair.matchup.targets}
    baskets: list[tuple[str, dict[str, float]]] = [("whole basket", dict(fair.weights))]
    names = list(fair.weights)
    for t in names:
        baskets.append((f"only {labels.get(t, t)}", {t: fair.weights[t]}))
    if len(names) > 2:
        for t in names:
            baskets.append(
                (f"without {labels.get(t, t)}", {k: w for k, w in fair.weights.items() if k != t})
            )
    rows = []
    for label, weights in baskets:
        vc, sc = basket_value(tab, fair.candidate, weights)
        vr, sr = basket_value(tab, fair.reference, weights)
        p, se = _ratio(fair.reference_points, vc, sc, vr, sr)
        note = ""
        if math.isnan(vc) or math.isnan(vr):
            note = "a cell of this basket does not report the metric: no fair price"
        elif not vr >= NEGLIGIBLE:
            note = f"the reference scores {vr:.3g} here{_too_rare(vr)}: no fair price"
        elif abs(vc) < NEGLIGIBLE:
            note = f"the candidate scores {vc:.3g} here{_too_rare(vc)}"
        rows.append(
            {
                "basket": label,
                "candidate_value": vc,
                "candidate_se": sc,
                "reference_value": vr,
                "reference_se": sr,
                "fair_points": p,
                "se": se,
                "ci_low": p - Z95 * se,
                "ci_high": p + Z95 * se,
                "exact": basket_exact(tab, [fair.candidate, fair.reference], weights),
                "note": note,
            }
        )
    return pd.DataFrame(rows)
