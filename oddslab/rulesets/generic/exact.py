"""Exact distributions of the generic pipeline's static statistics.

Every attack is independent of the others, so each static statistic is a compound sum: the
number of attacks, and per attack a mixture over miss / hit / critical hit of sums over the
hits it makes (extra hit rolls from critical hits included). Allocation to models
(``models_slain``, ``destroyed``, ``damage_dealt``, ``wounds_remaining``) depends on the
order damage arrives in; :mod:`oddslab.rulesets.generic.chain` computes it exactly by a Markov
chain where the state space is small.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from oddslab.exact import compound, convolve_n
from oddslab.rulesets.generic.compile import (
    blast_bonus,
    hazard,
    weapon_damage_bound,
)
from oddslab.rulesets.generic.exact_packets import (  # noqa: F401 (re-exported)
    Packets,
    _damage_pmf,
    _fail_prob,
    any_one_pmf,
    code_probs,
    packets,
)
from oddslab.rulesets.generic.model import Weapon

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario

__all__ = ["exact_pmfs", "exact_joint", "static_pmfs", "Packets", "packets", "code_probs"]

STATIC = ("attacks", "hits", "wounds", "unsaved", "mortal_wounds", "damage")
HAZARD = ("attacker_models_lost_to_hazards", "attacker_wounds_lost")
_D0 = np.array([1.0])
_D1 = np.array([0.0, 1.0])


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


#: most (unit states x values) a counted statistic's chain may have for :func:`exact_pmfs`
#: (each such statistic is one more run of the chain, kept well under a second)
COUNTED_STATES = 4_000


def _mixed_pmfs(sc: GenericScenario) -> dict[str, np.ndarray]:
    """A mixed unit: ``attacks`` and ``hits`` (they do not depend on the target, Blast aside),
    ``wounds`` when every group has the same toughness (the wound rolls then do not depend on
    who is left), and the allocation chain's statistics; ``unsaved``, ``damage`` and
    ``mortal_wounds`` depend on the models the attacks are allocated to: the chain carries
    each in its state (one run each) when that stays small (:data:`COUNTED_STATES`)."""
    from oddslab.rulesets.generic.chain_mixed import (
        mixed_allocation_joint,
        mixed_allocation_pmfs,
        state_count,
    )
    from oddslab.rulesets.generic.compile_mixed import mixed_names, views

    out: dict[str, np.ndarray] = {}
    vs = views(sc)
    if not any(w.blast for w in sc.fired):
        static = static_pmfs(vs[0])
        out.update({k: static[k] for k in ("attacks", "hits")})
        if len({v.target.toughness for v in vs}) == 1:
            out["wounds"] = static["wounds"]
    alloc = mixed_allocation_pmfs(sc)
    if alloc is None:
        return out
    out.update(alloc)
    states = state_count(sc)
    bins = {s.name: s.nbins for s in sc.stats()}
    for stat in ("unsaved", "damage", "mortal_wounds"):
        if stat in mixed_names(sc) and states * bins[stat] <= COUNTED_STATES:
            table = mixed_allocation_joint(sc, (stat,), (bins[stat],))
            if table is not None:
                out[stat] = table
    return out


def exact_joint(sc: GenericScenario, names: tuple[str, ...]) -> np.ndarray | None:
    """The exact joint probability table of the statistics ``names`` (axis ``k`` indexed by
    the value of ``names[k]``, as long as that statistic's histogram), or None where the exact
    engine cannot give it.

    Given: any tuple of the allocation statistics (``models_slain``, ``destroyed``,
    ``damage_dealt``, ``wounds_remaining``; for a mixed unit also its groups' losses and
    ``leader_slain``), all read off the allocation chain's final state, with at most one of
    ``unsaved``, ``damage``, ``mortal_wounds`` (the chain then carries its value:
    :func:`.chain.allocation_joint`, :func:`.chain_mixed.mixed_allocation_joint`); the two Hazardous
    statistics (both functions of the number of 1s); and any one statistic the exact engine
    gives alone. Hazardous losses are rolled apart from everything else, so their joint with
    the rest is the product. Not given: ``attacks``, ``hits``, ``wounds`` jointly with
    anything but the Hazardous losses, two of the counted statistics at once, and nothing
    with a one-off re-roll.
    """
    names = tuple(names)
    sizes = {s.name: s.nbins for s in sc.stats()}
    if not names or any(n not in sizes for n in names) or len(set(names)) < len(names):
        return None
    if sc.situation.reroll_one != "none" or sc.target.reroll_one != "none":
        return None
    haz = [n for n in names if n in HAZARD]
    rest = [n for n in names if n not in HAZARD]
    table: np.ndarray | None = np.ones(())
    pmf = exact_pmfs(sc).get(rest[0]) if len(rest) == 1 else None
    if pmf is not None:  # one statistic alone: its exact PMF
        table = _fit(pmf, (sizes[rest[0]],))
    elif rest:  # allocation statistics (and one counted), read off the chain's final state
        shape = tuple(sizes[n] for n in rest)
        if sc.mixed:
            from oddslab.rulesets.generic.chain_mixed import mixed_allocation_joint

            table = mixed_allocation_joint(sc, tuple(rest), shape)
        else:
            from oddslab.rulesets.generic.chain import allocation_joint

            table = allocation_joint(sc, tuple(rest), shape)
    if table is None:
        return None
    if haz:
        h = _fit(hazard_joint(sc), (sizes[HAZARD[0]], sizes[HAZARD[1]]))
        if len(haz) == 1:
            h = h.sum(axis=1 - HAZARD.index(haz[0]))
        table = np.multiply.outer(table, h)
    order = rest + haz  # the table's axes; put them in the order asked
    return np.ascontiguousarray(np.transpose(table, [order.index(n) for n in names]))


def _fit(a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """``a`` cut or zero-padded to ``shape`` (nothing lies beyond a histogram's bins)."""
    out = np.zeros(shape)
    cut = tuple(slice(0, min(x, y)) for x, y in zip(a.shape, shape, strict=True))
    out[cut] = a[cut]
    return out


def hazard_joint(sc: GenericScenario) -> np.ndarray:
    """Joint table of the Hazardous losses ``[models lost, wounds lost]`` (all of it at
    ``[0, 0]`` without a Hazardous weapon)."""
    from math import comb

    dice, models, wounds, mortal = hazard(sc)
    out = np.zeros((models + 1, models * wounds + 1))
    for ones in range(dice + 1):
        p = comb(dice, ones) * (1 / 6) ** ones * (5 / 6) ** (dice - ones)
        points = min(3 * ones, models * wounds) if mortal else min(ones, models) * wounds
        out[points // wounds, points] += p
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
