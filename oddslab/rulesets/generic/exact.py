"""Exact distributions of the generic pipeline's statistics."""

from __future__ import annotations

import numpy as np

from oddslab.rulesets.generic import kernel as K
from oddslab.rulesets.generic.compile import arrays
from oddslab.rulesets.generic.model import GenericScenario

__all__ = ["exact_pmfs"]


def exact_pmfs(sc: GenericScenario) -> dict[str, np.ndarray]:
    """Exact PMFs of the static statistics (all but models_slain and destroyed).

    Every attack is independent of the others, so each statistic is a compound sum: the
    number of attacks, and per attack a mixture over miss / hit / critical hit of sums
    over the hits it makes. Allocation (and so models_slain) depends on the order damage
    arrives in, which is left to the simulation.
    """
    from oddslab.exact import compound, convolve_n

    a = arrays(sc)
    fnp_q = float(a["fnp_fail"][1:].mean()) if sc.target.feel_no_pain is not None else 1.0
    totals: dict[str, np.ndarray] = {}
    for i, w in enumerate(sc.weapons):
        faces = a["faces"][i]
        if w.torrent:
            ph = np.array([0.0, 1.0, 0.0])
        else:
            ph = _code_probs(faces[K.F_HIT_CODE], faces[K.F_HIT_REROLL])
        pw = _code_probs(faces[K.F_WOUND_CODE], faces[K.F_WOUND_REROLL])
        pf = float(faces[K.F_SAVE_FAIL][1:].mean())
        dmg = _thin(w.damage.pmf(), fnp_q)
        sus = w.sustained_hits.pmf()
        p_dev = pw[2] if w.devastating_wounds else 0.0
        p_wound = pw[1] + pw[2] - p_dev
        p_unsaved_dmg = p_wound * pf + p_dev
        delta0, delta1 = np.array([1.0]), np.array([0.0, 1.0])
        # per hit that rolls to wound (H) and per automatic wound from lethal hits (L)
        per_h = {
            "wounds": np.array([1 - pw[1] - pw[2], pw[1] + pw[2]]),
            "unsaved": np.array([1 - p_unsaved_dmg, p_unsaved_dmg]),
            "mortal_wounds": _mix([(1 - p_dev, delta0), (p_dev, dmg)]),
            "damage": _mix([(1 - p_unsaved_dmg, delta0), (p_unsaved_dmg, dmg)]),
        }
        per_l = {
            "wounds": delta1,
            "unsaved": np.array([1 - pf, pf]),
            "mortal_wounds": delta0,
            "damage": _mix([(1 - pf, delta0), (pf, dmg)]),
        }
        crit_hits = np.convolve(delta1, sus)  # a critical hit plus its sustained hits
        per_attack = {
            "attacks": delta1,
            "hits": _mix([(ph[0], delta0), (ph[1], delta1), (ph[2], crit_hits)]),
        }
        for stat, h in per_h.items():
            if w.lethal_hits:
                crit = np.convolve(per_l[stat], compound(sus, h))
            else:
                crit = compound(crit_hits, h)
            per_attack[stat] = _mix([(ph[0], delta0), (ph[1], h), (ph[2], crit)])
        n_attacks = convolve_n(w.attacks.pmf(), w.models)
        for stat, per in per_attack.items():
            pmf = compound(n_attacks, per)
            totals[stat] = pmf if stat not in totals else np.convolve(totals[stat], pmf)
    return totals


def _code_probs(codes: np.ndarray, rerolls: np.ndarray) -> np.ndarray:
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


def _mix(parts: list[tuple[float, np.ndarray]]) -> np.ndarray:
    """Mixture of PMFs with the given weights."""
    out = np.zeros(max(len(p) for _, p in parts))
    for weight, pmf in parts:
        out[: len(pmf)] += weight * pmf
    return out


def _thin(pmf: np.ndarray, q: float) -> np.ndarray:
    """Each of a random number of points survives with probability ``q``."""
    if q >= 1.0:
        return pmf
    from oddslab.exact import binomial_thin

    return binomial_thin(pmf, q)
