"""Exact distributions of the generic pipeline's static statistics.

Every attack is independent of the others, so each static statistic is a compound sum: the
number of attacks, and per attack a mixture over miss / hit / critical hit of sums over the
hits it makes (extra hit rolls from critical hits included). Allocation to models
(``models_slain``, ``destroyed``, ``damage_dealt``, ``wounds_remaining``) depends on the
order damage arrives in; :mod:`oddslab.rulesets.generic.chain` computes it exactly by a Markov
chain where the state space is small.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oddslab.exact import binomial_thin, compound, convolve_n
from oddslab.rulesets.generic import layout as K
from oddslab.rulesets.generic.compile import (
    Derived,
    _raw_damage_max,
    blast_bonus,
    damage_maps,
    derive,
    hazard,
    point_through,
    weapon_damage_bound,
)
from oddslab.rulesets.generic.model import GenericScenario, Weapon

__all__ = ["exact_pmfs", "static_pmfs", "Packets", "packets", "code_probs"]

STATIC = ("attacks", "hits", "wounds", "unsaved", "mortal_wounds", "damage")
_D0 = np.array([1.0])
_D1 = np.array([0.0, 1.0])


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


def _mix(parts: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """Mixture of PMFs with the given weights."""
    out = np.zeros(max(len(p) for _, p in parts))
    for weight, pmf in parts:
        out[: len(pmf)] += weight * pmf
    return out


def _conv(*pmfs: np.ndarray) -> np.ndarray:
    out = _D0
    for p in pmfs:
        out = np.convolve(out, p)
    return out


def _weapon_static(sc: GenericScenario, w: Weapon) -> dict[str, np.ndarray]:
    """Static PMFs of one weapon profile's contribution."""
    k = packets(sc, w)
    d = k.d
    pw0, pw1, pw2 = k.pw
    has_mw = w.critical_wound_mortals.max > 0
    has_mh = w.critical_hit_mortals.max > 0
    mw_add = k.mw if has_mw else _D0
    normal_dmg = _mix([(k.pf, k.normal), (1 - k.pf, _D0)])
    if w.devastating_wounds:
        crit_unsaved, crit_dmg = _D1, _conv(k.dev, mw_add)
        crit_mortal = mw_add if sc.rules.devastating_wounds == "current" else crit_dmg
    elif has_mw and w.critical_wound_mortals_instead:
        crit_unsaved, crit_dmg, crit_mortal = _D0, k.mw, k.mw
    elif d.crit_save_own:
        crit_unsaved = np.array([1 - k.pfc, k.pfc])
        crit_dmg = _conv(_mix([(k.pfc, k.crit), (1 - k.pfc, _D0)]), mw_add)
        crit_mortal = mw_add
    else:
        crit_unsaved, crit_dmg, crit_mortal = np.array([1 - k.pf, k.pf]), normal_dmg, _D0
    # per hit that rolls to wound
    h = {
        "wounds": np.array([pw0, pw1 + pw2]),
        "unsaved": _mix([(pw0, _D0), (pw1, np.array([1 - k.pf, k.pf])), (pw2, crit_unsaved)]),
        "mortal_wounds": _mix([(pw0 + pw1, _D0), (pw2, crit_mortal)]),
        "damage": _mix([(pw0, _D0), (pw1, normal_dmg), (pw2, crit_dmg)]),
    }
    # per automatic wound from a lethal hit (an ordinary wound: save, normal damage)
    lethal = {
        "wounds": _D1,
        "unsaved": np.array([1 - k.pf, k.pf]),
        "mortal_wounds": _D0,
        "damage": normal_dmg,
    }
    sus = w.sustained_hits.pmf()
    xatt = w.critical_extra_attacks.pmf()
    mh = k.mh if has_mh else _D0
    crit_hits = np.convolve(_D1, sus)  # a critical hit plus its sustained hits

    def crit_branch(stat: str, extra: bool) -> np.ndarray:
        """What a critical hit roll contributes (its extra hit rolls with ``extra``)."""
        if stat == "attacks":
            base = _D1
        elif stat == "hits":
            base = crit_hits
        else:
            if has_mh and w.critical_hit_mortals_instead:
                base = compound(sus, h[stat])  # the critical hit itself rolls no wound
            elif w.lethal_hits:
                base = np.convolve(lethal[stat], compound(sus, h[stat]))
            else:
                base = compound(crit_hits, h[stat])
            if stat in ("mortal_wounds", "damage"):
                base = np.convolve(base, mh)
        if extra:
            base = np.convolve(base, compound(xatt, per_roll(stat, False)))
        return base

    def per_roll(stat: str, extra: bool) -> np.ndarray:
        """PMF per hit roll (a critical grants extra rolls only with ``extra``)."""
        if stat == "attacks":
            return _mix([(1 - k.ph[2], _D1), (k.ph[2], crit_branch(stat, extra))])
        plain = _D1 if stat == "hits" else h[stat]
        return _mix([(k.ph[0], _D0), (k.ph[1], plain), (k.ph[2], crit_branch(stat, extra))])

    extra = w.critical_extra_attacks.max > 0
    bonus = blast_bonus(sc, sc.target.models) if w.blast else 0  # see static_pmfs
    n_attacks = convolve_n(np.concatenate([np.zeros(bonus), w.attacks.pmf()]), w.models)
    return {stat: compound(n_attacks, per_roll(stat, extra)) for stat in STATIC}


def blast_count_fixed(sc: GenericScenario) -> bool:
    """Every Blast weapon fires before any model can have been slain (so its attacks are known
    from the unit's size); else the static statistics depend on allocation and the exact
    engine gives the allocation chain's statistics only."""
    first = sc.target.wounds - sc.target.damaged
    before = 0
    for w in sc.fired:
        if w.blast and before >= first:
            return False
        before += weapon_damage_bound(sc, w)
    return True


def static_pmfs(sc: GenericScenario) -> dict[str, np.ndarray]:
    """Exact PMFs of ``attacks``, ``hits``, ``wounds``, ``unsaved``, ``mortal_wounds``, ``damage``
    (none when a Blast weapon's attacks depend on earlier weapons: :func:`blast_count_fixed`)."""
    if not blast_count_fixed(sc):
        return {}
    totals: dict[str, np.ndarray] = {}
    for w in sc.fired:
        for stat, pmf in _weapon_static(sc, w).items():
            totals[stat] = pmf if stat not in totals else np.convolve(totals[stat], pmf)
    return totals


def exact_pmfs(sc: GenericScenario) -> dict[str, np.ndarray]:
    """Exact PMFs of every reported statistic the exact engine can give.

    The static ones always; ``models_slain``, ``destroyed``, ``damage_dealt`` and
    ``wounds_remaining`` too when the allocation chain's state space is small enough
    (:func:`oddslab.rulesets.generic.chain.allocation_pmfs`).
    """
    from oddslab.rulesets.generic.chain import allocation_pmfs
    from oddslab.rulesets.generic.compile import reported

    if sc.situation.reroll_one != "none" or sc.target.reroll_one != "none":
        return {}  # a one-off re-roll ties the attacks together: Monte Carlo only
    if sc.mixed:
        return {**_mixed_pmfs(sc), **hazard_pmfs(sc)}
    out = static_pmfs(sc)
    out.update(hazard_pmfs(sc))
    alloc = allocation_pmfs(sc)
    if alloc is not None:
        out.update(alloc)
    names = reported(sc)
    return {k: v for k, v in out.items() if k in names}


def _mixed_pmfs(sc: GenericScenario) -> dict[str, np.ndarray]:
    """A mixed unit: ``attacks`` and ``hits`` (they do not depend on the target, Blast aside)
    and the allocation chain's statistics; wounds, saves and damage depend on the models the
    attacks are allocated to, so they are Monte Carlo only."""
    from oddslab.rulesets.generic.chain_mixed import mixed_allocation_pmfs
    from oddslab.rulesets.generic.compile_mixed import views

    out: dict[str, np.ndarray] = {}
    if not any(w.blast for w in sc.fired):
        static = static_pmfs(views(sc)[0])
        out.update({k: static[k] for k in ("attacks", "hits")})
    alloc = mixed_allocation_pmfs(sc)
    if alloc is not None:
        out.update(alloc)
    return out


def hazard_pmfs(sc: GenericScenario) -> dict[str, np.ndarray]:
    """Hazardous losses (independent of everything else): the 1s among the D6 are
    binomial(dice, 1/6); each destroys a model, or inflicts 3 mortal wounds spilling from model
    to model (a character, monster or vehicle)."""
    from math import comb

    dice, models, wounds, mortal = hazard(sc)
    if not dice:
        return {}
    lost = np.zeros(models + 1)
    hurt = np.zeros(models * wounds + 1)
    for ones in range(dice + 1):
        p = comb(dice, ones) * (1 / 6) ** ones * (5 / 6) ** (dice - ones)
        points = min(3 * ones, models * wounds) if mortal else min(ones, models) * wounds
        lost[points // wounds] += p
        hurt[points] += p
    return {"attacker_models_lost_to_hazards": lost, "attacker_wounds_lost": hurt}
