"""Baskets of targets: reading them, and a unit's weighted value against one.

A *basket* is a weighted set of targets: ``{"lib.toml:conscripts": 2, "lib.toml:battle_tank":
1}`` (or a list / a library, equal weights). A unit's basket value is the weighted mean of the
metric over the basket, ``V = Σ w_t m_t / Σ w_t``, with ``SE = sqrt(Σ (w_t / Σw)² se_t²)`` (the
cells are independent runs). :mod:`oddslab.analysis.points` prices units with them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oddslab.analysis.matchup import MatchupResult, Selection, select_entries
from oddslab.libraries import LibraryEntry, _ident, _name

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = [
    "read_basket",
    "read_selection",
    "weights_by_name",
    "basket_value",
    "basket_exact",
]


def read_basket(basket: Any) -> tuple[list[LibraryEntry], dict[str, float]]:
    """Targets and their weights from a mapping spec → weight, or specs with weight 1."""
    sel, weights = read_selection(basket)
    return sel.entries, weights


def read_selection(basket: Any) -> tuple[Selection, dict[str, float]]:
    """:func:`read_basket`, with which targets came with a whole library or a glob: those a
    matchup leaves out when they cannot be targets (attacker profiles), as a library of
    targets in :func:`~oddslab.analysis.matchup.matchup` is read."""
    if isinstance(basket, Mapping):
        items = list(basket.items())
    else:
        specs = [basket] if isinstance(basket, str | Path | LibraryEntry) else list(basket)
        items = [(s, 1.0) for s in specs]
    entries: list[LibraryEntry] = []
    named: list[bool] = []
    globs: list[str] = []
    weights: dict[str, float] = {}
    given: dict[str, Any] = {}
    for spec, w in items:
        if isinstance(w, bool) or not isinstance(w, int | float) or not 0 < w < math.inf:
            raise ValueError(f"basket weight of {spec} must be a positive number, got {w!r}")
        sel = select_entries(spec)
        for e, is_named, g in zip(sel.entries, sel.named, sel.globs, strict=True):
            if _ident(e) in weights:  # never a silent re-weighting
                raise ValueError(
                    f"the basket names {_name(e)} twice ('{given[_ident(e)]}' and '{spec}'): "
                    "give each target once, with its weight"
                )
            entries.append(e)
            named.append(is_named)
            globs.append(g)
            given[_ident(e)] = spec
            weights[_ident(e)] = float(w)
    if not entries:
        raise ValueError("the basket is empty")
    return Selection(entries, tuple(named), tuple(globs)), weights


def weights_by_name(res: MatchupResult, weights: dict[str, float]) -> dict[str, float]:
    """Basket weights keyed by the names of the targets ``res`` kept (read_basket keys by
    identity; a whole library's entries that cannot be targets were left out)."""
    return {res.name(e): weights[_ident(e)] for e in res.targets}


def basket_value(
    tab: pd.DataFrame, unit: str, weights: Mapping[str, float], col: str = "value"
) -> tuple[float, float]:
    """``unit``'s basket value and its SE: the ``weights``-weighted mean of column ``col``
    over its rows of the matchup table ``tab`` (targets by name), and ``sqrt(Σ (w/Σw)² se²)``
    from the column ``se`` (``value``) or ``<col>_se``. NaN, NaN when no weighted target is
    in ``tab``."""
    sub = tab[tab["attacker"] == unit]
    sub = sub[sub["target"].isin(list(weights))]
    w = sub["target"].map(weights).to_numpy(float)
    total = w.sum()
    if total <= 0:
        return float("nan"), float("nan")
    v = float((w * sub[col].to_numpy(float)).sum() / total)
    se_col = "se" if col == "value" else f"{col}_se"
    se = float(math.sqrt(((w / total) ** 2 * sub[se_col].to_numpy(float) ** 2).sum()))
    return v, se


def basket_exact(tab: pd.DataFrame, units: list[str], weights: Mapping[str, float]) -> bool:
    """Every cell of ``units`` against the basket ran exactly: exact cells (and pairs not run,
    whose value is NaN anyway) have 0 trials, simulated cells more."""
    sub = tab[tab["attacker"].isin(units) & tab["target"].isin(list(weights))]
    return bool((sub["trials"] == 0).all())
