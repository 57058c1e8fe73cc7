"""Assault phase: small cases worked by hand from the rule text.

Each case is small enough to answer exactly: by exact enumeration (fractions) for the
statistical ones, checked at |z| < Z_MAX (tests/stats.py), or die by die with scripted
dice (``run_with_dice``). Defending units that only soak up blows are ``trapped``: a broken
trapped unit is destroyed (not slain), so no sweeping advance adds kills to the fight's.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from oddslab import engine
from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit
from tests.stats import Z_MAX, z_prob

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


def _z_mean(counts: np.ndarray, exact: Fraction) -> float:
    v = np.arange(len(counts))
    n = counts.sum()
    p = counts / n
    m = float((p * v).sum())
    sd = math.sqrt(float(((v - m) ** 2 * p).sum()) / n)
    return (m - float(exact)) / sd


# -- one blow, weapon by weapon: E[models slain] = attacks x P(hit) x P(wound) x P(no save) ----

_BLOWS = [
    # WS2 v WS5: 5+ ("more than twice"); S3 v T5: 6+; 6 attacks (fired: no charge bonus)
    (Unit("A", (G("a", 6, ws=2, s=3, a=1),), fired=True), {"ws": 5, "t": 5}, Fraction(1, 3)),
    # power fist: S4 doubled to 8 v T4 2+, no armour save (2+), invulnerable 5+; A2 +1 charge
    (
        Unit("A", (G("a", 1, s=4, a=2, weapon="power-fist"),)),
        {"save": 2, "invulnerable": 5},
        3 * Fraction(1, 2) * Fraction(5, 6) * Fraction(4, 6),
    ),
    # a pair of lightning claws: A1 +1 pair +1 charge; WS5 v WS4 3+; 4+ re-rolled; no armour
    (
        Unit("A", (G("a", 1, ws=5, s=4, a=1, weapon="lightning-claws"),)),
        {"save": 3},
        3 * Fraction(2, 3) * Fraction(3, 4),
    ),
    # rending: a 6 to hit wounds with no armour save; 4-5: S3 v T4 5+, then a 3+ save
    (
        Unit("A", (G("a", 4, s=3, a=1, rending=True),), fired=True),
        {"save": 3},
        4 * (Fraction(1, 6) + Fraction(2, 6) * Fraction(1, 3) * Fraction(1, 3)),
    ),
    # heavy weapon: a 2+ armour save counts as 4+ (the 5+ invulnerable is worse)
    (
        Unit("A", (G("a", 1, s=4, a=1, heavy=True),)),
        {"save": 2, "invulnerable": 5},
        2 * Fraction(1, 2) * Fraction(1, 2) * Fraction(1, 2),
    ),
    # poisoned 4+: wounds T8 although S3 could not (S <= T-4); 5+ save
    (
        Unit("A", (G("a", 1, s=3, a=1, poisoned=4),)),
        {"t": 8, "save": 5},
        2 * Fraction(1, 2) * Fraction(1, 2) * Fraction(2, 3),
    ),
    # power weapon: no armour save, but the 4+ invulnerable save is taken
    (
        Unit("A", (G("a", 1, s=4, a=1, weapon="power-weapon"),)),
        {"save": 2, "invulnerable": 4},
        2 * Fraction(1, 2) * Fraction(1, 2) * Fraction(1, 2),
    ),
    # monstrous creature in base contact: S6 v T4 2+, armour ignored
    (
        Unit("A", (G("a", 1, s=6, a=1, monstrous=True),)),
        {"save": 2},
        2 * Fraction(1, 2) * Fraction(5, 6),
    ),
]


@pytest.mark.parametrize("att, prof, exact", _BLOWS)
def test_expected_slain_by_weapon(att, prof, exact):
    out = engine.simulate(_sc(att, _soak(40, **prof)), trials=200_000, seed=31)
    assert abs(_z_mean(out.counts["defender_models_lost"], exact)) < Z_MAX


# -- a whole turn, enumerated exactly -----------------------------------------------------------


def _binom(n: int, p: Fraction) -> dict[int, Fraction]:
    return {k: math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)}


def _exact_turn() -> dict[str, Fraction]:
    """2 charging marines-like models (WS4 S4 T4 I4 A1 Ld8 4+) v 2 defenders (WS3 S3 T3 I5
    A1 Ld7 5+): the defenders strike first (I5), the survivors strike back with 2 attacks
    each (charge), surplus wounds beyond the 2 defenders are discarded, the loser tests
    morale and may be caught by a 2D6 sweeping advance (profile attacks, all hitting)."""
    gt = sum(P2[i] * P2[j] for i in range(13) for j in range(13) if i > j)
    p_d = Fraction(1, 2) * Fraction(1, 3) * Fraction(1, 2)  # 4+ hit, 5+ wound, 4+ save
    p_a = Fraction(2, 3) ** 3  # 3+ hit, 3+ wound, 5+ save
    sweep_a = Fraction(2, 3) * Fraction(2, 3)
    sweep_d = Fraction(1, 3) * Fraction(1, 2)
    r = dict.fromkeys(("aw", "dw", "dr", "dfb", "dsw", "afb", "asw", "dlost", "alost"), Fraction(0))
    for kd, pkd in _binom(2, p_d).items():
        na = 2 - kd
        for ka_raw, pka in _binom(2 * na, p_a).items():
            ka = min(ka_raw, 2)
            nd = 2 - ka
            p = pkd * pka
            r["dlost"] += p * ka
            r["alost"] += p * kd
            if (na == 0 and nd == 0) or (na and nd and ka == kd):
                r["dr"] += p
                continue
            if nd == 0 or (na > 0 and ka > kd):
                r["aw"] += p
                if nd:
                    r["dfb"] += p * _fails(7)
                    r["dsw"] += p * _fails(7) * gt
                    kills = sum(q * min(k, nd) for k, q in _binom(na, sweep_a).items())
                    r["dlost"] += p * _fails(7) * gt * kills
            else:
                r["dw"] += p
                if na:
                    r["afb"] += p * _fails(8)
                    r["asw"] += p * _fails(8) * gt
                    kills = sum(q * min(k, na) for k, q in _binom(nd, sweep_d).items())
                    r["alost"] += p * _fails(8) * gt * kills
    return r


def test_one_turn_matches_exact_enumeration():
    sc = _sc(
        Unit("A", (G("a", 2, ws=4, s=4, t=4, i=4, a=1, ld=8, save=4),)),
        Unit("D", (G("d", 2, ws=3, s=3, t=3, i=5, a=1, ld=7, save=5),)),
    )
    n = 1_000_000
    out = engine.simulate(sc, trials=n, seed=21)
    r = _exact_turn()
    assert sum(r[k] for k in ("aw", "dw", "dr")) == 1
    for key, stat in (
        ("aw", "attacker_won_assault"),
        ("dw", "defender_won_assault"),
        ("dr", "assault_drawn"),
        ("dfb", "defender_fell_back"),
        ("dsw", "defender_swept"),
        ("afb", "attacker_fell_back"),
        ("asw", "attacker_swept"),
    ):
        assert abs(z_prob(out.prob(stat), float(r[key]), n)) < Z_MAX, stat
    assert abs(_z_mean(out.counts["defender_models_lost"], r["dlost"])) < Z_MAX
    assert abs(_z_mean(out.counts["attacker_models_lost"], r["alost"])) < Z_MAX


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
    n = 400_000
    out = engine.simulate(_duel(**kw), trials=n, seed=3)
    for stat, p in zip(
        ("attacker_won_assault", "defender_won_assault", "assault_drawn"), exact, strict=True
    ):
        assert abs(z_prob(out.prob(stat), float(p), n)) < Z_MAX, stat  # fmt: skip


@pytest.mark.parametrize("fast, sweep_dice", [(False, 2), (True, 3)])
def test_morale_and_sweep_odds(fast, sweep_dice):
    """Won with 7/16 (two 4+/4+ attacks v one model of ten); Ld7 fails 15/36; the sweep
    needs a greater 2D6 (3D6 for a fast unit) than the 2D6 fall back."""
    pk = [Fraction(0)] * 19
    for dice in itertools.product(range(1, 7), repeat=sweep_dice):
        pk[sum(dice)] += Fraction(1, 6**sweep_dice)
    gt = sum(pk[i] * P2[j] for i in range(19) for j in range(13) if i > j)
    sc = _sc(Unit("A", (G("a", 1, a=1),), fast=fast), Unit("D", (G("d", 10, a=0, ld=7),)))
    n = 400_000
    out = engine.simulate(sc, trials=n, seed=4)
    win = 1 - Fraction(3, 4) ** 2
    for stat, p in (
        ("attacker_won_assault", win),
        ("defender_fell_back", win * _fails(7)),
        ("defender_swept", win * _fails(7) * gt),
    ):
        assert abs(z_prob(out.prob(stat), float(p), n)) < Z_MAX, stat


def test_unit_tests_on_its_highest_leadership():
    sc = _sc(
        Unit("A", (G("a", 1, a=1),)),
        Unit("D", (G("d", 9, a=0, ld=7), G("sgt", 1, a=0, ld=9))),
    )
    n = 400_000
    out = engine.simulate(sc, trials=n, seed=12)
    p = (1 - Fraction(3, 4) ** 2) * _fails(9)
    assert abs(z_prob(out.prob("defender_fell_back"), float(p), n)) < Z_MAX


@pytest.mark.parametrize("pile_in, exact", [(True, Fraction(175, 256)), (False, Fraction(37, 64))])
def test_draw_continues_without_charge_bonus(pile_in, exact):
    """One of two models in contact: 2 attacks (charge) kill the lone defender with 7/16; a
    draw (0-0) continues; in turn 2 no charge bonus: with pile in both models attack once
    (7/16), without it the one in contact attacks once (1/4)."""
    sc = _sc(
        Unit("A", (G("a", 2, a=1, contact=1),)),
        Unit("D", (G("d", 1, a=0),)),
        Rules(max_turns=2, pile_in=pile_in),
    )
    n = 400_000
    out = engine.simulate(sc, trials=n, seed=11)
    assert abs(z_prob(out.prob("attacker_won_fight"), float(exact), n)) < Z_MAX
    assert abs(z_prob(out.prob("combat_ended_turn", 3), float(1 - exact), n)) < Z_MAX


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
