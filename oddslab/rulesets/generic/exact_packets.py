"""One weapon's exact per-attack probabilities and damage-packet PMFs (:func:`packets`).

The building blocks of the generic exact engine (:mod:`.exact`: the static statistics) and
of its allocation chains (:mod:`.chain`, :mod:`.chain_mixed`), kept below all three so none
of them imports another that imports it back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from oddslab.exact import binomial_thin
from oddslab.rulesets.generic import layout as K
from oddslab.rulesets.generic.compile import (
    Derived,
    _raw_damage_max,
    damage_maps,
    derive,
    point_through,
)
from oddslab.rulesets.generic.model import Weapon

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario

__all__ = ["Packets", "any_one_pmf", "code_probs", "packets"]


@dataclass(frozen=True)
class Packets:
    """One weapon's probabilities: hit/wound outcomes and the PMF of each kind of damage packet.

    ``ph``/``pw``: P(fail, success, critical) of one hit / wound roll; ``pf``/``pfc``: P(a
    normal / critical wound is not saved); damage PMFs are after re-rolls, modifiers and
    feel-no-pain (``normal``, ``crit``: critical wounds with their own path, ``dev``:
    devastating wounds, ``mh``/``mw``: mortal wounds per critical hit / wound).
    """

    ph: np.ndarray
    pw: np.ndarray
    pf: float
    pfc: float
    normal: np.ndarray
    crit: np.ndarray
    dev: np.ndarray
    mh: np.ndarray
    mw: np.ndarray
    d: Derived


def code_probs(codes: np.ndarray, rerolls: np.ndarray) -> np.ndarray:
    """P(final code = 0, 1, 2) for one d6 roll with at most one re-roll; shape (3,)."""
    first = np.zeros(3)
    again = 0.0
    for d in range(1, 7):
        if rerolls[d]:
            again += 1 / 6
        else:
            first[codes[d]] += 1 / 6
    once = np.bincount(codes[1:], minlength=3)[:3] / 6
    return first + again * once


def _fail_prob(fail: np.ndarray, rerolls: np.ndarray) -> float:
    return float(code_probs(fail, rerolls)[1])


def any_one_pmf(expr) -> np.ndarray:
    """PMF of ``expr`` (``n`` dice) re-rolled once, whole, when any of its dice shows 1."""
    face = np.zeros(expr.sides + 1)
    face[2:] = 1.0 / expr.sides  # one die that shows no 1 (sub-probability)
    none = np.array([1.0])
    for _ in range(expr.n):
        none = np.convolve(none, face)
    p = expr.pmf()
    out = np.zeros(max(len(p), len(none) + max(expr.add, 0)))
    for v, pv in enumerate(none):  # no die showed 1: the sum stands
        out[max(0, v + expr.add)] += pv
    out[: len(p)] += (1.0 - none.sum()) * p
    return out


def _damage_pmf(
    expr_pmf: np.ndarray, below: int, dmap: np.ndarray, through: float, expr=None
) -> np.ndarray:
    """Rolled damage → re-roll below ``below`` once (-1: when any die of ``expr`` shows 1) →
    ``dmap`` → feel-no-pain per point."""
    p = np.asarray(expr_pmf, dtype=float)
    if below < 0:
        rolled = any_one_pmf(expr)
    else:
        low = p[: max(0, min(below, len(p)))].sum()
        rolled = p.copy()
        rolled[: max(0, min(below, len(p)))] = 0.0
        rolled += low * p
    out = np.zeros(int(dmap[: len(p)].max()) + 1)
    for v, pv in enumerate(rolled):
        out[dmap[v]] += pv
    return out if through >= 1.0 else binomial_thin(out, through)


def packets(sc: GenericScenario, w: Weapon) -> Packets:
    d = derive(sc, w)
    maps = damage_maps(sc, w, _raw_damage_max(sc) + 1)
    q_n = point_through(sc, mortal=False)
    q_m = point_through(sc, mortal=True)
    # current rule: a devastating wound's damage is an attack's damage (no save), not mortal
    # wounds, so only the ordinary feel-no-pain applies to it
    q_dev = q_n if sc.rules.devastating_wounds == "current" else q_m
    dmg = w.damage.pmf()
    ph = np.array([0.0, 1.0, 0.0]) if w.torrent else code_probs(d.hit_codes, d.hit_rerolls)
    return Packets(
        ph=ph,
        pw=code_probs(d.wound_codes, d.wound_rerolls),
        pf=_fail_prob(d.save_fail, d.save_rerolls),
        pfc=_fail_prob(d.crit_save_fail, d.crit_save_rerolls),
        normal=_damage_pmf(dmg, d.dmg_reroll_below, maps[K.D_NORMAL], q_n, w.damage),
        crit=_damage_pmf(dmg, d.dmg_reroll_below, maps[K.D_CRIT], q_n, w.damage),
        dev=_damage_pmf(dmg, d.dmg_reroll_below, maps[K.D_DEV], q_dev, w.damage),
        mh=_damage_pmf(w.critical_hit_mortals.pmf(), 0, maps[K.D_IDENTITY], q_m),
        mw=_damage_pmf(w.critical_wound_mortals.pmf(), 0, maps[K.D_IDENTITY], q_m),
        d=d,
    )
