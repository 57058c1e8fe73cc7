"""Assault phase: small cases worked by hand from the rule text.

Each case is small enough to answer exactly: by exact enumeration (fractions) for the
statistical ones, the kernel's whole distribution of each statistic against the exact PMF
with trials enough that a 0.5 pp error fails, checked on the run (tests/assault_phase_exact.py),
or die by die with scripted dice (``run_with_dice``). Defending units that only soak up blows are ``trapped``: a broken
trapped unit is destroyed (not slain), so no sweeping advance adds kills to the fight's.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest

from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit
from tests.assault_phase_exact import bernoulli, check_exact

G = ModelGroup


def _sc(att: Unit, dfn: Unit, rules: Rules | None = None) -> AssaultScenario:
    return AssaultScenario(Side("att", (att,)), Side("def", (dfn,)), rules or Rules())


def _soak(n: int = 10, **kw) -> Unit:
    """``n`` models that cannot strike back; trapped, so nothing is slain after the fight."""
    prof = {"ws": 4, "t": 4, "i": 1, "a": 0, "ld": 10, **kw}
    return Unit("D", (G("d", n, **prof),), trapped=True)


def _2d6() -> list[Fraction]:
    p = [Fraction(0)] * 13
    for a, b in itertools.product(range(1, 7), repeat=2):
        p[a + b] += Fraction(1, 36)
    return p


P2 = _2d6()


def _fails(ld: int) -> Fraction:
    """P(2D6 > ld): a failed Leadership test."""
    return 1 - sum(P2[: ld + 1])


# -- one blow, weapon by weapon: models slain ~ Binomial(attacks, P(hit) P(wound) P(no save)) --

_BLOWS = [
    # WS2 v WS5: 5+ ("more than twice"); S3 v T5: 6+; 6 attacks (fired: no charge bonus)
    (Unit("A", (G("a", 6, ws=2, s=3, a=1),), fired=True), {"ws": 5, "t": 5}, 6,
     Fraction(1, 3) * Fraction(1, 6)),
    # power fist: S4 doubled to 8 v T4 2+, no armour save (2+), invulnerable 5+; A2 +1 charge
    (Unit("A", (G("a", 1, s=4, a=2, weapon="power-fist"),)), {"save": 2, "invulnerable": 5}, 3,
     Fraction(1, 2) * Fraction(5, 6) * Fraction(4, 6)),
    # a pair of lightning claws: A1 +1 pair +1 charge; WS5 v WS4 3+; 4+ re-rolled; no armour
    (Unit("A", (G("a", 1, ws=5, s=4, a=1, weapon="lightning-claws"),)), {"save": 3}, 3,
     Fraction(2, 3) * Fraction(3, 4)),
    # rending: a 6 to hit wounds with no armour save; 4-5: S3 v T4 5+, then a 3+ save
    (Unit("A", (G("a", 4, s=3, a=1, rending=True),), fired=True), {"save": 3}, 4,
     Fraction(1, 6) + Fraction(2, 6) * Fraction(1, 3) * Fraction(1, 3)),
    # heavy weapon: a 2+ armour save counts as 4+ (the 5+ invulnerable is worse)
    (Unit("A", (G("a", 1, s=4, a=1, heavy=True),)), {"save": 2, "invulnerable": 5}, 2,
     Fraction(1, 2) * Fraction(1, 2) * Fraction(1, 2)),
    # poisoned 4+: wounds T8 although S3 could not (S <= T-4); 5+ save
    (Unit("A", (G("a", 1, s=3, a=1, poisoned=4),)), {"t": 8, "save": 5}, 2,
     Fraction(1, 2) * Fraction(1, 2) * Fraction(2, 3)),
    # power weapon: no armour save, but the 4+ invulnerable save is taken
    (Unit("A", (G("a", 1, s=4, a=1, weapon="power-weapon"),)), {"save": 2, "invulnerable": 4},
     2, Fraction(1, 2) * Fraction(1, 2) * Fraction(1, 2)),
    # monstrous creature in base contact: S6 v T4 2+, armour ignored
    (Unit("A", (G("a", 1, s=6, a=1, monstrous=True),)), {"save": 2}, 2,
     Fraction(1, 2) * Fraction(5, 6)),
]  # fmt: skip


@pytest.mark.parametrize("att, prof, attacks, p", _BLOWS)
def test_models_slain_by_weapon(att, prof, attacks, p):
    """Every attack is independent (40 targets, none striking back, trapped): the whole
    distribution of models slain against Binomial(attacks, p), seed 31."""
    pmf = [_binom(attacks, p)[k] for k in range(attacks + 1)]
    check_exact(_sc(att, _soak(40, **prof)), {"defender_models_lost": pmf}, seed=31)


# -- a whole turn, enumerated exactly -----------------------------------------------------------


def _binom(n: int, p: Fraction) -> dict[int, Fraction]:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


#: the statistics of :func:`exact_turn`, by the keys it used before it gave whole PMFs
TURN_STATS = {
    "aw": "attacker_won_assault",
    "dw": "defender_won_assault",
    "dr": "assault_drawn",
    "dfb": "defender_fell_back",
    "dsw": "defender_swept",
    "afb": "attacker_fell_back",
    "asw": "attacker_swept",
    "dlost": "defender_models_lost",
    "alost": "attacker_models_lost",
}


def exact_turn_scenario() -> AssaultScenario:
    """2 charging marines-like models (WS4 S4 T4 I4 A1 Ld8 4+) v 2 defenders (WS3 S3 T3 I5
    A1 Ld7 5+), one turn."""
    return _sc(
        Unit("A", (G("a", 2, ws=4, s=4, t=4, i=4, a=1, ld=8, save=4),)),
        Unit("D", (G("d", 2, ws=3, s=3, t=3, i=5, a=1, ld=7, save=5),)),
    )


def exact_turn() -> dict[str, list[Fraction]]:
    """The whole PMF of each statistic in ``TURN_STATS`` for :func:`exact_turn_scenario`: the
    defenders strike first (I5), the survivors strike back with 2 attacks each (charge),
    surplus wounds beyond the 2 defenders are discarded, the loser tests morale and may be
    caught by a 2D6 sweeping advance (profile attacks, all hitting)."""
    gt = sum(P2[i] * P2[j] for i in range(13) for j in range(13) if i > j)
    p_d = Fraction(1, 2) * Fraction(1, 3) * Fraction(1, 2)  # 4+ hit, 5+ wound, 4+ save
    p_a = Fraction(2, 3) ** 3  # 3+ hit, 3+ wound, 5+ save
    sweep_a = Fraction(2, 3) * Fraction(2, 3)
    sweep_d = Fraction(1, 3) * Fraction(1, 2)
    r = {key: [Fraction(0)] * 3 for key in TURN_STATS}

    def flag(key: str, p: Fraction) -> None:
        r[key][1] += p

    def sweep(winner: str, loser: str, p: Fraction, k_win: int, n_win: int, n_lose: int,
              ld: int, p_kill: Fraction) -> None:  # fmt: skip
        flag(winner[0] + "w", p)
        if not n_lose:
            r[loser + "lost"][2] += p
            r[winner + "lost"][k_win] += p
            return
        lost = 2 - n_lose
        fail = _fails(ld)
        flag(loser + "fb", p * fail)
        flag(loser + "sw", p * fail * gt)
        r[winner + "lost"][k_win] += p
        r[loser + "lost"][lost] += p * (1 - fail * gt)
        for k, q in _binom(n_win, p_kill).items():
            r[loser + "lost"][lost + min(k, n_lose)] += p * fail * gt * q

    for kd, pkd in _binom(2, p_d).items():
        na = 2 - kd
        for ka_raw, pka in _binom(2 * na, p_a).items():
            ka = min(ka_raw, 2)
            nd = 2 - ka
            p = pkd * pka
            if (na == 0 and nd == 0) or (na and nd and ka == kd):
                flag("dr", p)
                r["dlost"][ka] += p
                r["alost"][kd] += p
            elif nd == 0 or (na > 0 and ka > kd):
                sweep("a", "d", p, kd, na, nd, 7, sweep_a)
            else:
                sweep("d", "a", p, ka, nd, na, 8, sweep_d)
    for key, pmf in r.items():
        if key not in ("dlost", "alost"):
            pmf[0] = 1 - pmf[1]
            del pmf[2]
    return r


def test_one_turn_matches_exact_enumeration():
    """Every statistic's whole distribution against the enumeration."""
    r = exact_turn()
    assert r["aw"][1] + r["dw"][1] + r["dr"][1] == 1
    assert all(sum(pmf) == 1 for pmf in r.values())
    pmfs = {stat: r[key] for key, stat in TURN_STATS.items()}
    check_exact(exact_turn_scenario(), pmfs, seed=21)


def _duel(**unit_kw) -> AssaultScenario:
    grenades = unit_kw.pop("grenades", "none")
    att = Unit("A", (G("a", 1, ws=4, s=4, t=4, i=5, a=1),), grenades=grenades)
    return _sc(att, Unit("D", (G("d", 1, ws=4, s=4, t=4, i=1, a=1, ld=10),), **unit_kw))


@pytest.mark.parametrize(
    "kw, exact",
    [
        # in cover the I1 defender strikes first: it kills with 1/4; the survivor's two
        # attacks (charge) kill with 7/16
        ({"in_cover": True}, (Fraction(21, 64), Fraction(16, 64), Fraction(27, 64))),
        # frag grenades: simultaneous; both dead is a draw
        ({"in_cover": True, "grenades": "frag"}, (Fraction(21, 64), Fraction(9, 64), Fraction(34, 64))),
        # plasma grenades, or open ground: Initiative order, the I5 charger first
        ({"in_cover": True, "grenades": "plasma"}, (Fraction(28, 64), Fraction(9, 64), Fraction(27, 64))),
        ({}, (Fraction(28, 64), Fraction(9, 64), Fraction(27, 64))),
    ],
)  # fmt: skip
def test_who_strikes_first_duel(kw, exact):
    stats = ("attacker_won_assault", "defender_won_assault", "assault_drawn")
    pmfs = {stat: bernoulli(p) for stat, p in zip(stats, exact, strict=True)}
    check_exact(_duel(**kw), pmfs, seed=3)


def morale_and_sweep(fast: bool, sweep_dice: int) -> tuple[AssaultScenario, dict]:
    """Won with 7/16 (two 4+/4+ attacks v one model of ten); Ld7 fails 15/36; the sweep
    needs a greater 2D6 (3D6 for a fast unit) than the 2D6 fall back: the scenario and the
    exact PMFs of the three flags."""
    pk = [Fraction(0)] * 19
    for dice in itertools.product(range(1, 7), repeat=sweep_dice):
        pk[sum(dice)] += Fraction(1, 6**sweep_dice)
    gt = sum(pk[i] * P2[j] for i in range(19) for j in range(13) if i > j)
    sc = _sc(Unit("A", (G("a", 1, a=1),), fast=fast), Unit("D", (G("d", 10, a=0, ld=7),)))
    win = 1 - Fraction(3, 4) ** 2
    pmfs = {
        "attacker_won_assault": bernoulli(win),
        "defender_fell_back": bernoulli(win * _fails(7)),
        "defender_swept": bernoulli(win * _fails(7) * gt),
    }
    return sc, pmfs


@pytest.mark.parametrize("fast, sweep_dice", [(False, 2), (True, 3)])
def test_morale_and_sweep_odds(fast, sweep_dice):
    check_exact(*morale_and_sweep(fast, sweep_dice), seed=4)


# The unit's highest Leadership and a draw going on into turn 2 without the charge bonus are
# checked in tests/test_assault_phase_switches.py (test_unit_leadership, test_pile_in: the
# same combats, whole distributions, with 0.5 pp power).


# -- die by die ---------------------------------------------------------------------------------


def test_majority_saves_recounted_after_each_batch():
    """8 wounds on 3 x 5+ and 2 x 3+: 3 saves at 5+ (1, 1, 5: two die); now 2 x 3+ are the
    majority: 2 saves at 3+ (1, 3: one dies); one of each left, equal numbers: the better
    save (1: dies); the last 5+ model saves one (6) and fails the next (1)."""
    sc = _sc(
        Unit("A", (G("a", 4, a=1),)),
        Unit("D", (G("five", 3, i=1, a=0, save=5), G("three", 2, i=1, a=0, save=3))),
    )
    r = sc.run_with_dice([6] * 16 + [1, 1, 5] + [1, 3] + [1] + [6] + [1])
    assert r["defender.D.five.models_lost"] == 3
    assert r["defender.D.three.models_lost"] == 2
    assert r["defender_wounds_lost"] == 5
    assert r["dice_used"] == 24


def test_destroying_the_enemy_wins_with_fewer_wounds():
    """The I5 defender kills two of three chargers first; the third kills him: 1 wound
    inflicted against 2, but the defender is destroyed, so the attacker wins."""
    sc = _sc(
        Unit("A", (G("a", 3, i=2, a=1),)),
        Unit("D", (G("boss", 1, i=5, a=2, ld=10),)),
    )
    r = sc.run_with_dice([6, 6, 6, 6] + [6, 1, 6])
    assert r["attacker_wounds_lost"] == 2
    assert r["defender_wounds_lost"] == 1
    assert r["attacker_won_assault"] == 1
    assert r["defender_destroyed"] == 1
    assert r["dice_used"] == 7


def test_force_weapon_slays_but_counts_wounds_inflicted():
    """Two unsaved wounds (no armour save, no invulnerable) on a W3 model, psychic test 6
    against Ld9: slain outright; the assault result counts the 2 wounds inflicted."""
    sc = _sc(
        Unit("A", (G("psyker", 1, a=1, ld=9, weapon="force-weapon"),)),
        Unit("D", (G("big", 1, w=3, i=1, a=0, save=3),)),
    )
    r = sc.run_with_dice([6, 6, 6, 6, 3, 3])
    assert r["defender_models_lost"] == 1
    assert r["defender_wounds_lost"] == 2
    r = sc.run_with_dice([6, 6, 6, 6, 6, 5])  # 11 > 9: the test fails
    assert r["defender_models_lost"] == 0


def test_sweep_uses_profile_attacks_that_hit_automatically():
    """2 models A2 with two weapons: 8 attacks in the fight (one kill); the Ld2 loser fails
    (3, 3) and falls back 2; the sweep rolls 12: 4 attacks (profile, no two-weapon or
    charge bonus), no hit dice, wound dice 6, 6, 1, 1."""
    sc = _sc(
        Unit("A", (G("a", 2, a=2, two_weapons=True),)),
        Unit("D", (G("d", 10, i=1, a=0, ld=2),)),
    )
    r = sc.run_with_dice([6] + [1] * 7 + [6] + [3, 3] + [1, 1] + [6, 6] + [6, 6, 1, 1])
    assert r["defender_swept"] == 1
    assert r["attacker_attacks_made"] == 12
    assert r["defender_models_lost"] == 3
    assert r["dice_used"] == 19
    # a sweep roll equal to the fall back (7 v 7) is not greater: no sweep
    r = sc.run_with_dice([6] + [1] * 7 + [6] + [3, 3] + [3, 4] + [4, 3])
    assert r["defender_fell_back"] == 1
    assert r["defender_swept"] == 0


def test_surplus_wounds_beyond_the_danger_zone_are_discarded():
    """8 unsaved wounds on a unit with 1 model in contact and 1 supporting: 2 slain, 2
    inflicted for the assault result, the rest discarded."""
    sc = _sc(
        Unit("A", (G("a", 4, a=1),)),
        Unit("D", (G("d", 10, i=1, a=0, ld=10, contact=1, supporting=1),)),
    )
    r = sc.run_with_dice([6] * 16 + [1, 1])
    assert r["defender_models_lost"] == 2
    assert r["defender_wounds_lost"] == 2
    assert r["attacker_won_assault"] == 1


def test_independent_character_is_hit_and_wounded_apart():
    """A trooper (T3) with an independent character (T5): attacks at the unit use T3 (one
    model each: the character does not count), wound on 3s, and the second wound is
    discarded, not passed to the character."""
    sc = _sc(
        Unit("A", (G("a", 1, a=2),), fired=True),
        Unit("D", (G("trooper", 1, t=3, i=1, a=0), G("ic", 1, t=5, i=1, a=0, independent=True))),
    )
    r = sc.run_with_dice([6, 6, 3, 3])
    assert r["wounds_on_defender"] == 2
    assert r["defender.D.trooper.models_lost"] == 1
    assert r["defender.D.ic.models_lost"] == 0
    assert r["defender_wounds_lost"] == 1


def test_models_slain_by_cover_strike_do_not_strike_back():
    sc = _sc(
        Unit("A", (G("a", 2, i=5, a=1),)),
        Unit("D", (G("d", 1, i=1, a=2, ld=10),), in_cover=True),
    )
    r = sc.run_with_dice([6, 6, 6, 6])
    assert r["attacker_models_lost"] == 2
    assert r["attacker_attacks_made"] == 0
    assert r["defender_won_assault"] == 1
    assert r["dice_used"] == 4
