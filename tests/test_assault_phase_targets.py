"""Assault phase: a group whose target unit never joined the fight attacks another enemy.

"Models engaged with or supporting a model engaged with a single unit must attack that
unit." Every charging unit is engaged with every defending unit in the fight, so a group
whose target unit's charge failed in difficult terrain, or whose target unit failed to
regroup and was destroyed, is engaged only with the other enemy units: it attacks the first
of them with models in reach (as after piling in), in every turn, and its first strike
(cover, grenades) is judged against that unit. The code before left such a group idle in
the first turn. A target wiped out during the turn is not replaced (guard).

Die by die (``run_with_dice``), plus fixed-seed checks against exact probabilities.
"""

from __future__ import annotations

from math import comb

from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit
from tests.assault_phase_exact import check_exact


def _failed_charge(rules: Rules | None = None, **b_kw) -> AssaultScenario:
    """A (through 6" of difficult terrain) and B charge D, whose target is A (the default)."""
    a = Unit("A", (ModelGroup("a", 5),), difficult_terrain_distance=6)
    b = Unit("B", (ModelGroup("b", 5),), **b_kw)
    d = Unit("D", (ModelGroup("d", 5),))
    return AssaultScenario(Side("att", (a, b)), Side("def", (d,)), rules or Rules())


def _failed_regroup(**y_kw) -> AssaultScenario:
    """A charges X (assaulted while falling back; A's target) and Y."""
    a = Unit("A", (ModelGroup("a", 5),))
    x = Unit("X", (ModelGroup("x", 5, ld=8),), falling_back=True)
    y = Unit("Y", (ModelGroup("y", 5),), **y_kw)
    return AssaultScenario(Side("att", (a,)), Side("def", (x, y)))


def test_defender_strikes_the_unit_that_charged_when_its_target_failed_to():
    """A's charge fails (1, 1: 1" < 6"). B's ten attacks miss (1s); D's five hit (6s) and
    wound (6s) B, which has no save and is wiped out. The code before: D struck nobody."""
    r = _failed_charge().run_with_dice([1, 1] + [1] * 10 + [6] * 10)
    assert r["attacker_charged"] == 1
    assert r["defender_attacks_made"] == 5
    assert r["attacker.B.b.models_lost"] == 5
    assert r["defender_won_assault"] == 1
    assert r["dice_used"] == 22


def test_attackers_strike_the_unit_left_when_their_target_failed_to_regroup():
    """X fails to regroup (6, 6 = 12 > Ld 8) and is destroyed. A's ten attacks hit and
    wound Y (6s); Y's five miss (1s). The code before: A struck nobody."""
    r = _failed_regroup().run_with_dice([6, 6] + [6] * 20 + [1] * 5)
    assert r["defender_failed_to_regroup"] == 1
    assert r["attacker_attacks_made"] == 10
    assert r["defender.Y.y.models_lost"] == 5
    assert r["defender.X.x.models_lost"] == 0  # destroyed, not slain
    assert r["dice_used"] == 27


def test_redirected_group_keeps_attacking_in_later_turns_without_pile_in():
    """``pile_in = false``, two turns, every die a 1 (nobody is hurt): D attacks B in both
    turns (5 + 5 attacks); B makes 10 attacks, then 5 (no charge bonus)."""
    r = _failed_charge(Rules(max_turns=2, pile_in=False)).run_with_dice([1] * 27)
    assert r["defender_attacks_made"] == 10
    assert r["attacker_attacks_made"] == 15
    assert r["dice_used"] == 27


def test_cover_first_strike_is_judged_against_the_unit_attacked():
    """A (plasma grenades) fails its charge (1, 1); B (no grenades, I5) charges D (in cover,
    I1, target A). D strikes B first from cover (6, 6 slays it) and B never strikes. Judged
    against A's plasma grenades, D would strike at I1 after B."""
    a = Unit("A", (ModelGroup("a", 1),), grenades="plasma", difficult_terrain_distance=6)
    b = Unit("B", (ModelGroup("b", 1, i=5),))
    d = Unit("D", (ModelGroup("d", 1, i=1),), in_cover=True)
    r = AssaultScenario(Side("att", (a, b)), Side("def", (d,))).run_with_dice([1, 1, 6, 6])
    assert r["attacker.B.b.models_lost"] == 1
    assert r["attacker_attacks_made"] == 0
    assert r["dice_used"] == 4


def test_target_killed_during_the_turn_is_not_replaced():
    """Guard: F (I5) kills D1 (hit 6, wound 6 twice); S (I1, target D1 too) is still
    engaged with D1's dead models ("treated as an Engaged model until the end of the assault
    phase") and attacks nobody, though D2 is in the fight. Nobody is hurt at I1 by D2 (1)."""
    f = Unit("F", (ModelGroup("f", 1, i=5, target="D1"),))
    s = Unit("S", (ModelGroup("s", 1, i=1, target="D1"),))
    d1 = Unit("D1", (ModelGroup("d1", 1, i=1, a=0),))
    d2 = Unit("D2", (ModelGroup("d2", 1, i=1, target="F"),))
    sc = AssaultScenario(Side("att", (f, s)), Side("def", (d1, d2)))
    r = sc.run_with_dice([6, 6, 6, 6] + [1] + [1, 1])
    assert r["defender.D1.d1.models_lost"] == 1
    assert r["attacker_attacks_made"] == 2  # F's two; S none
    assert r["dice_used"] == 7  # F 4, D2 1, D2's morale 2


def test_resolved_text_names_the_units_attacked_instead():
    d = _failed_charge().resolved()["defender group: D / d"]["target"]
    assert d == "A (default: the first enemy unit); if A fails its charge: B (the first in reach)"
    a = _failed_regroup().resolved()["attacker group: A / a"]["target"]
    assert a.endswith("; if X fails to regroup: Y (the first in reach)")
    b = _failed_charge().resolved()["attacker group: B / b"]["target"]
    assert b == "D (default: the first enemy unit)"


# -- exact probabilities, fixed seed ---------------------------------------------------------


def _binom(n: int, p: float) -> list[float]:
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def test_failed_charge_matches_exact():
    """B's models slain by D (seed 17, the trials a 0.5 pp error needs): A's charge fails with 25/36 (the
    higher of 2D6 below 6), and then D's five attacks (4+ to hit, 4+ to wound, no save) go
    at B: Binomial(5, 1/4); when A charges D attacks A and B loses nobody. B is trapped, so
    losing never adds a sweeping advance."""
    exact = [25 / 36 * q for q in _binom(5, 1 / 4)]
    exact[0] += 11 / 36
    check_exact(_failed_charge(trapped=True), {"attacker.B.b.models_lost": exact}, seed=17)


def test_failed_regroup_matches_exact():
    """Y's models slain (seed 17, the trials a 0.5 pp error needs): X (Ld 1) always fails to regroup; A's ten
    attacks go at Y: min(5, Binomial(10, 1/4)). Y is trapped: no sweeping advance."""
    a = Unit("A", (ModelGroup("a", 5),))
    x = Unit("X", (ModelGroup("x", 5, ld=1),), falling_back=True)
    y = Unit("Y", (ModelGroup("y", 5, a=0),), trapped=True)
    sc = AssaultScenario(Side("att", (a,)), Side("def", (x, y)))
    b = _binom(10, 1 / 4)
    exact = b[:5] + [sum(b[5:])]
    check_exact(sc, {"defender.Y.y.models_lost": exact, "defender_failed_to_regroup": [0, 1]},
                seed=17)  # fmt: skip
