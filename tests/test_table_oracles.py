"""Independent oracles for each ruleset's compiled tables.

The exact engines and the kernels are built from the same compiled tables (the generic
ruleset's ``derive`` / ``damage_maps``, the other rulesets' ``compile`` arrays), so a mistake
in a table moves both sides of a kernel-vs-exact test. Here each table is checked against a
direct enumeration written from the rule text in this file (no import from ``compile``),
over a grid of inputs, to 1e-12: a table built with ``>`` where the rule says ``>=`` fails.
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F

import numpy as np
import pytest

from oddslab import GenericScenario, Rules, Target, Weapon

TOL = 1e-12


def _binomial(n: int, p: F) -> np.ndarray:
    """PMF of the number of successes in ``n`` independent trials at ``p`` (exact, then float)."""
    from math import comb

    return np.array([float(comb(n, k) * p**k * (1 - p) ** (n - k)) for k in range(n + 1)])


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    n = max(len(a), len(b))
    return bool(np.all(np.abs(np.pad(a, (0, n - len(a))) - np.pad(b, (0, n - len(b)))) < TOL))


# -- generic: hit, wound and save rolls from the rule text -------------------------------------


def _generic_roll(need: int, mod: int, cap: bool, nat1_fails: bool, nat6_succeeds: bool) -> F:
    """P(a hit or wound roll succeeds): natural roll + modifier (net, capped at +-1 when
    ``cap``) >= need; a natural 1 always fails and a natural 6 (the critical) always
    succeeds when those rules are on."""
    if cap:
        mod = max(-1, min(1, mod))
    ok = 0
    for d in range(1, 7):
        if d == 6 and nat6_succeeds:
            ok += 1
        elif d == 1 and nat1_fails:
            continue
        elif d + mod >= need:
            ok += 1
    return F(ok, 6)


def _generic_wound_need(s: int, t: int) -> int:
    """S at least double T: 2+; S above T: 3+; equal: 4+; below: 5+; at most half: 6+."""
    if s >= 2 * t:
        return 2
    if s > t:
        return 3
    if s == t:
        return 4
    return 6 if 2 * s <= t else 5


def _generic_save(save: int, ap: int, cover: bool, cover_limit: bool, inv: int | None) -> F:
    """P(save): armour save on (save + AP), cover improving it by 1 except for a 3+ or better
    save against AP 0 (with the cover limit), an invulnerable save unaffected by AP and cover,
    the better of the two taken; a save roll needs at least 2 (a natural 1 fails)."""
    best = 0
    if save <= 6:
        need = save + ap - (1 if cover and not (cover_limit and save <= 3 and ap == 0) else 0)
        best = max(best, sum(1 for d in range(2, 7) if d >= need))
    if inv is not None:
        best = max(best, sum(1 for d in range(2, 7) if d >= inv))
    return F(best, 6)


N_ATT = 4


def _generic_grid():
    rules = [Rules(), Rules(modifier_cap=False, natural_one_fails=False)]
    rules.append(Rules(natural_six_succeeds=False, cover_limit=False))
    for skill, hit_mod, r in itertools.product(range(2, 7), (-2, -1, 0, 1, 2), rules):
        yield "hit", (skill, hit_mod, r)
    for (s, t), wmod, r in itertools.product(
        [(8, 4), (5, 4), (4, 4), (3, 4), (2, 4), (3, 7)], (-1, 0, 2), rules
    ):
        yield "wound", (s, t, wmod, r)
    for save, ap, cover, inv, r in itertools.product(
        (2, 3, 4, 5, 6, 7), (0, 1, 2, 4), (False, True), (None, 4, 6), rules
    ):
        yield "save", (save, ap, cover, inv, r)


def _generic_case(kind, args):
    """(scenario, statistic, oracle PMF) for one grid point; the other rolls always pass."""
    if kind == "hit":
        skill, hit_mod, r = args
        w = Weapon(attacks=N_ATT, skill=skill, hit_modifier=hit_mod, strength=8)
        p = _generic_roll(
            skill, hit_mod, r.modifier_cap, r.natural_one_fails, r.natural_six_succeeds
        )
        return GenericScenario((w,), Target(models=9, toughness=1), rules=r), "hits", p
    if kind == "wound":
        s, t, wmod, r = args
        w = Weapon(attacks=N_ATT, torrent=True, strength=s, wound_modifier=wmod)
        need = _generic_wound_need(s, t)
        p = _generic_roll(need, wmod, r.modifier_cap, r.natural_one_fails, r.natural_six_succeeds)
        return GenericScenario((w,), Target(models=9, toughness=t), rules=r), "wounds", p
    save, ap, cover, inv, r = args
    w = Weapon(attacks=N_ATT, torrent=True, strength=8, ap=ap)
    tgt = Target(models=9, toughness=1, save=save, cover=cover, invulnerable=inv)
    p_wound = _generic_roll(2, 0, r.modifier_cap, r.natural_one_fails, r.natural_six_succeeds)
    p = p_wound * (1 - _generic_save(save, ap, cover, r.cover_limit, inv))
    return GenericScenario((w,), tgt, rules=r), "unsaved", p


def test_generic_tables_against_the_rule_text():
    """Hit, wound and save probabilities of every grid point: the exact engine (built from
    ``derive``) against binomials of the probabilities enumerated above."""
    bad = []
    for kind, args in _generic_grid():
        sc, stat, p = _generic_case(kind, args)
        got = sc.exact_pmfs()[stat]
        if not _close(got, _binomial(N_ATT, p)):
            bad.append((kind, args, stat, float(p), got.round(4).tolist()))
    assert not bad, f"{len(bad)} grid points differ; first: {bad[:3]}"


@pytest.mark.parametrize("kind", ["hit", "wound", "save"])
def test_generic_grid_reaches_every_outcome(kind):
    """The grid is not degenerate: its probabilities span impossible to certain."""
    ps = {float(_generic_case(k, a)[2]) for k, a in _generic_grid() if k == kind}
    assert len(ps) >= 4 and (kind == "save" or max(ps) > 0.8)
