"""Armoured Clash cases worked by hand from the rule text.

Each case is a small scenario whose answer follows from the text by hand: the attack pool at
each combat rating (heroic strikes exploding once, re-rolls that do not explode), DEFENCE
and DAMAGE LIMIT, the suppression test and its half-models modifier, breaking and falling
back, close quarters (charge, retaliation, defensive advantage, secondary combatants,
withdrawal, stalemate), garrisons, transports, opportunity fire and a behemoth's dice. Most
use a die that always strikes and one-card decks, so the answer is certain; the pool cases
compare the exact PMF with a fraction worked by hand and the kernel with the exact PMF.

Tolerances: chi-square p > 1e-4 (tests/stats.py); z-scores |z| < 5 against exact values.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from stats import assert_prob, chisquare_pmf

from oddslab.engine import simulate
from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    AttackDie,
    RangedAttack,
    Rules,
    Situation,
    Unit,
    attack_pool_pmf,
)

#: a die that always shows a strike: n dice always score exactly n hits
SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)
#: a die that always shows a heroic strike: each die scores 2 hits and adds one die
HEROIC = AttackDie(heroic=1, strike=0, glancing=0, miss=0, blank=0)


def _gun(name: str, dice: tuple[int, ...], side: str = "attacker", **kw) -> Unit:
    """A unit of ``len(dice)`` models with one ranged row (light and heavy)."""
    return Unit(
        name,
        side=side,
        type=kw.pop("type", "armour"),
        category=kw.pop("category", "heavy"),
        models=kw.pop("models", len(dice)),
        defence=kw.pop("defence", 4),
        damage_limit=kw.pop("damage_limit", 1),
        discipline=kw.pop("discipline", 10),
        armaments=Armaments(ranged=(RangedAttack("gun", dice=dice),)),
        **kw,
    )


def _foot(name: str, models: int, side: str = "defender", **kw) -> Unit:
    """Infantry with one melee die per model."""
    return Unit(
        name,
        side=side,
        models=models,
        defence=kw.pop("defence", 1),
        discipline=kw.pop("discipline", 10),
        armaments=Armaments(melee=tuple(range(1, models + 1))),
        **kw,
    )


def _run(sc: ArmouredClashScenario, trials: int = 1000, seed: int = 1):
    return simulate(sc, trials=trials, seed=seed)


def _f(*xs) -> np.ndarray:
    return np.array([float(Fraction(x)) for x in xs])


# -- 1. the attack pool: improved, one die, DEFENCE 2 ------------------------------------------
# The assumed d6 (heroic 1, strike 2, glancing 1, miss 1, blank 1). Improved (aiming, nothing
# else): misses and glancing strikes are re-rolled once. The original die: heroic 1/6 (2 hits
# + one added die X), strike 1/3 (1), glancing or miss 1/3 (re-rolled: 2 at 1/6, 1 at 1/3,
# 0 at 1/2; a re-rolled heroic adds no die), blank 1/6 (0). The added die X is re-rolled the
# same way: X = 2 at 1/6 + 1/3*1/6 = 2/9, 1 at 1/3 + 1/3*1/3 = 4/9, 0 at 1/3.
# hits: 0 = 1/6 + 1/3*1/2 = 1/3; 1 = 1/3 + 1/3*1/3 = 4/9; 2 = 1/3*1/6 + 1/6*1/3 = 1/9;
# 3 = 1/6*4/9 = 2/27; 4 = 1/6*2/9 = 1/27. DEFENCE 2: damage 0 = 7/9, 1 = 5/27, 2 = 1/27.
IMPROVED_HITS = _f("1/3", "4/9", "1/9", "2/27", "1/27")
IMPROVED_DAMAGE = _f("7/9", "5/27", "1/27")


@pytest.mark.statistical
def test_improved_single_die_against_defence_2():
    sc = ArmouredClashScenario(
        (_gun("gun", (1,)), _foot("foot", 4, defence=2)),
        (Attack("gun", "foot", situation=Situation(aiming=True)),),
    )
    assert sc.static_rating(0) == 2
    assert np.allclose(attack_pool_pmf(1, "improved"), IMPROVED_HITS, atol=1e-12)
    ex = sc.exact_pmfs()
    assert np.allclose(ex["hits_on_defender"], IMPROVED_HITS, atol=1e-12)
    assert np.allclose(ex["damage_on_defender"], IMPROVED_DAMAGE, atol=1e-12)
    out = _run(sc, 1_000_000, 101)
    assert chisquare_pmf(out.counts["damage_on_defender"], IMPROVED_DAMAGE) > 1e-4


# -- 2. a garrisoned target: concealed (short range cancels it) and DEFENCE +1 ----------------
# Neutral, one die: only glancing strikes are re-rolled. hits 0 = 1/3 + 1/6*1/2 = 5/12;
# 1 = 1/3 + 1/6*1/3 = 7/18; 2 = 1/6*1/6 + 1/6*15/36 = 21/216 (the added die scores 0 at
# 15/36, 1 at 1/3 + 1/6*1/3 = 14/36, 2 at 7/36); 3 = 1/6*14/36 = 14/216; 4 = 1/6*7/36 = 7/216.
# DEFENCE 1 + 1 (garrison) = 2: damage 0 = 29/36, 1 = 35/216, 2 = 7/216.
NEUTRAL_HITS = _f("5/12", "7/18", "21/216", "14/216", "7/216")
GARRISON_DAMAGE = _f("29/36", "35/216", "7/216")


@pytest.mark.statistical
def test_garrisoned_target_is_concealed_and_defends():
    sc = ArmouredClashScenario(
        (_gun("gun", (1,)), _foot("foot", 6, garrisoned=True)),
        (Attack("gun", "foot", situation=Situation(short_range=True)),),
    )
    assert sc.static_rating(0) == 1  # short range +1, concealed (garrison) -1
    ex = sc.exact_pmfs()
    assert np.allclose(ex["hits_on_defender"], NEUTRAL_HITS, atol=1e-12)
    assert np.allclose(ex["damage_on_defender"], GARRISON_DAMAGE, atol=1e-12)
    out = _run(sc, 1_000_000, 102)
    assert chisquare_pmf(out.counts["damage_on_defender"], GARRISON_DAMAGE) > 1e-4


# -- 3. heroic strikes explode once; re-rolled heroic strikes do not --------------------------
# A two-face die (heroic, glancing), one die. Neutral: a heroic strike (1/2) scores 2 and adds
# a die, which shows heroic (2, no further die) or glancing (re-rolled: heroic 2 without a new
# die, or glancing 0); the first die's glancing (1/2) is re-rolled: 2 or 0.
# hits: 0 = 1/4; 2 = 1/4 + 1/2*1/4 = 3/8; 4 = 1/2*3/4 = 3/8.  Weakened (no re-rolls):
# 0 = 1/2, 2 = 1/4, 4 = 1/4.
TWO_FACE = AttackDie(heroic=1, strike=0, glancing=1, miss=0, blank=0)


@pytest.mark.parametrize(
    "situation, rating, want",
    [
        ({}, "neutral", _f(1 / 4, 0, 3 / 8, 0, 3 / 8)),
        ({"opportunity_fire": True}, "weakened", _f(1 / 2, 0, 1 / 4, 0, 1 / 4)),
    ],
)
@pytest.mark.statistical
def test_heroic_strikes_explode_once_and_rerolls_do_not(situation, rating, want):
    assert np.allclose(attack_pool_pmf(1, rating, TWO_FACE), want, atol=1e-12)
    sc = ArmouredClashScenario(
        (_gun("gun", (1,)), _foot("foot", 4, defence=9)),
        (Attack("gun", "foot", situation=Situation(**situation)),),
        die=TWO_FACE,
    )
    out = _run(sc, 1_000_000, 103)
    assert chisquare_pmf(out.counts["hits_on_defender"], want) > 1e-4


def test_heroic_dice_defence_and_damage_limit():
    """Three dice that always show heroic strikes: 3 x (2 + 2) = 12 hits (added dice add no
    more). DEFENCE 3: 4 damage. DAMAGE LIMIT 2 with 1 token: 5 tokens = 2 models destroyed
    and 1 token left; a second gun's single die (4 hits, 1 damage) then destroys a third."""
    tgt = Unit("hulks", type="armour", category="heavy", models=5, defence=3, damage_limit=2,
               damage=1, discipline=10)  # fmt: skip
    sc = ArmouredClashScenario(
        (_gun("a", (1, 2, 3)), _gun("b", (1,)), tgt),
        (Attack("a", "hulks"), Attack("b", "hulks")),
        die=HEROIC,
    )
    out = _run(sc, 200)
    assert out.prob("hits_on_defender", 16) == 1 and out.prob("hits_on_defender", 17) == 0
    assert out.prob("damage_on_defender", 5) == 1 and out.prob("damage_on_defender", 6) == 0
    assert out.prob("defender_models_lost", 3) == 1 and out.prob("defender_models_lost", 4) == 0
    one = ArmouredClashScenario((_gun("a", (1, 2, 3)), tgt), (Attack("a", "hulks"),), die=HEROIC)
    assert _run(one, 200).pmf("defender_models_lost").probability.iloc[2] == 1


# -- 4. the suppression test: at least half the models destroyed, DISCIPLINE -1 ---------------
@pytest.mark.parametrize(
    "models, hits, suppressed",
    [
        (5, 2, 0),  # 2 of 5: below half (3, rounded up): DISCIPLINE 5, the 5 passes
        (5, 3, 1),  # 3 of 5: at least half: DISCIPLINE 4, the 5 fails
        (4, 2, 1),  # 2 of 4: exactly half counts ("at least half")
        (4, 0, 0),  # nothing destroyed: no test
    ],
)
def test_suppression_test_half_models_modifier(models, hits, suppressed):
    shooter = _gun("gun", (hits,), models=1) if hits else _gun("gun", (1,), models=1)
    tgt = _foot("foot", models, defence=1 if hits else 2, discipline=5)
    sc = ArmouredClashScenario(
        (shooter, tgt), (Attack("gun", "foot"),), die=SURE, decks={"defender": (5,)}
    )
    out = _run(sc, 200)
    assert out.prob("defender_suppressed") == suppressed


# -- 5. breaking is checked before falling back ------------------------------------------------
def _break_case(hits: int, suppressed: bool) -> ArmouredClashScenario:
    tgt = _foot("foot", 4, discipline=6, break_limit=2, suppressed=suppressed,
                fall_back_losses=1, vp=(3, 5, 7), reinforcement="reinforced")  # fmt: skip
    return ArmouredClashScenario(
        (_gun("gun", (hits,), models=1), tgt),
        (Attack("gun", "foot"),),
        die=SURE,
        decks={"defender": (10,)},  # every test fails
    )


def test_a_unit_at_its_break_limit_breaks():
    """2 of 4 destroyed leaves 2 <= BREAK LIMIT 2: a failed test breaks it (annihilated: the
    attacker scores the reinforced VP 5); the 2 removed by breaking are not counted lost."""
    out = _run(_break_case(2, True))
    assert out.prob("defender_broke") == 1 and out.prob("defender_annihilated") == 1
    assert out.pmf("defender_models_lost").probability.iloc[2] == 1
    assert out.pmf("attacker_vp").probability.iloc[5] == 1
    assert out.prob("defender_fell_back") == 0


def test_a_suppressed_unit_above_its_break_limit_falls_back():
    """1 of 4 destroyed leaves 3 > BREAK LIMIT: already suppressed, it falls back, losing the
    1 model blocking its way; it stays on the table, suppressed."""
    out = _run(_break_case(1, True))
    assert out.prob("defender_fell_back") == 1 and out.prob("defender_broke") == 0
    assert out.pmf("defender_models_lost").probability.iloc[2] == 1
    assert out.prob("defender_suppressed") == 1 and out.prob("defender_annihilated") == 0
    fresh = _run(_break_case(1, False))  # not yet suppressed: it becomes suppressed
    assert fresh.prob("defender_suppressed") == 1
    assert fresh.pmf("defender_models_lost").probability.iloc[1] == 1


# -- 6. close quarters: charge, retaliation, withdrawal, loser's test ---------------------------
def test_charger_wins_target_withdraws_and_tests():
    """4 chargers (DEFENCE 2) strike 4 hits on 3 targets at DEFENCE 2: 2 destroyed. The last
    one retaliates: 1 hit, 0 damage. 2 - 0: the charger wins. The target withdraws (no losses
    here) and tests: 2 of 3 lost is at least half, DISCIPLINE 3 - 1 = 2, the card 3 fails."""
    a = _foot("a", 4, side="attacker", defence=2)
    t = _foot("t", 3, defence=2, discipline=3)
    sc = ArmouredClashScenario(
        (a, t), (Attack("a", "t", kind="close"),), die=SURE, decks={"defender": (3,)}
    )
    out = _run(sc)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.pmf("defender_models_lost").probability.iloc[2] == 1
    assert out.prob("attacker_models_lost") == 0
    assert out.prob("defender_suppressed") == 1
    # with 1 model unable to complete the withdrawal the target is annihilated: VP 4
    t2 = _foot("t", 3, defence=2, discipline=3, withdraw_losses=1, vp=4)
    out2 = _run(ArmouredClashScenario((a, t2), (Attack("a", "t", kind="close"),), die=SURE))
    assert (
        out2.prob("defender_annihilated") == 1 and out2.pmf("attacker_vp").probability.iloc[4] == 1
    )


def test_stalemate_when_nobody_loses_a_model():
    """DEFENCE 5 on both sides, 2 hits each way: no damage. A stalemate: the attacking unit
    withdraws (its 1 blocked model is destroyed) and neither side tests (DISCIPLINE 1 against
    a 10 would fail any test)."""
    a = _foot("a", 2, side="attacker", defence=5, discipline=1, withdraw_losses=1)
    t = _foot("t", 2, defence=5, discipline=1, withdraw_losses=1)
    decks = {"attacker": (10,), "defender": (10,)}
    sc = ArmouredClashScenario((a, t), (Attack("a", "t", kind="close"),), die=SURE, decks=decks)
    out = _run(sc)
    assert out.prob("close_quarters_stalemate") == 1
    assert out.pmf("attacker_models_lost").probability.iloc[1] == 1
    assert out.prob("defender_models_lost") == 0 and out.prob("defender_suppressed") == 0
    at = ArmouredClashScenario(
        (a, t), (Attack("a", "t", kind="close"),), die=SURE, decks=decks, focus="a"
    )
    assert _run(at).prob("attacker_suppressed") == 0


def test_a_suppressed_loser_falls_back_after_withdrawing():
    """4 chargers (DEFENCE 2) destroy 2 of 4 suppressed targets (DEFENCE 2); the 2 left
    retaliate: 2 hits, 1 charger destroyed. 2 - 1: the target loses, withdraws (1 model
    cannot: destroyed), fails its test (DISCIPLINE 1, -1 for half lost, against a 10) while
    suppressed and falls back; its last model blocks the way and is removed: annihilated
    (VP 3), having fallen back."""
    a = _foot("a", 4, side="attacker", defence=2)
    t = _foot("t", 4, defence=2, discipline=1, suppressed=True, withdraw_losses=1,
              fall_back_losses=1, vp=3)  # fmt: skip
    sc = ArmouredClashScenario(
        (a, t), (Attack("a", "t", kind="close"),), die=SURE, decks={"defender": (10,)}
    )
    out = _run(sc)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.pmf("attacker_models_lost").probability.iloc[1] == 1
    assert out.prob("defender_fell_back") == 1 and out.prob("defender_annihilated") == 1
    assert out.pmf("defender_models_lost").probability.iloc[4] == 1
    assert out.pmf("attacker_vp").probability.iloc[3] == 1


@pytest.mark.statistical
def test_retaliation_counts_its_own_rating():
    """One model each, DEFENCE 1, one die. The charger outflanks: improved, P(hit) = 2/3,
    which annihilates the target (the action ends). Otherwise the suppressed target retaliates
    weakened (its own penalty; outflanking is the charger's bonus): P(hit) = 1/2.
    Attacker wins 2/3, defender wins 1/3 * 1/2 = 1/6, stalemate 1/6."""
    a = _foot("a", 1, side="attacker")
    t = _foot("t", 1, suppressed=True)
    sc = ArmouredClashScenario(
        (a, t), (Attack("a", "t", kind="close", situation=Situation(outflanking=True)),)
    )
    n = 1_000_000
    out = _run(sc, n, 104)
    for stat, p in (
        ("attacker_won_close_quarters", 2 / 3),
        ("defender_won_close_quarters", 1 / 6),
        ("close_quarters_stalemate", 1 / 6),
    ):
        assert_prob(out.prob(stat), p, n, what=stat)


def test_defensive_advantage_reverses_the_order():
    """2 chargers, 3 targets, DEFENCE 1, one die per model. Normally: 2 hits destroy 2
    targets, the last retaliates and destroys 1 charger: 2 - 1, the charger wins. With a
    defensive advantage the target strikes first: 3 hits annihilate the 2 chargers and the
    action ends (defender side wins, the target loses nothing)."""
    a = _foot("a", 2, side="attacker")
    t = _foot("t", 3)
    plain = _run(ArmouredClashScenario((a, t), (Attack("a", "t", kind="close"),), die=SURE))
    assert plain.prob("attacker_won_close_quarters") == 1
    assert plain.pmf("defender_models_lost").probability.iloc[2] == 1
    assert plain.pmf("attacker_models_lost").probability.iloc[1] == 1
    adv = Situation(defensive_advantage=True)
    sc = ArmouredClashScenario((a, t), (Attack("a", "t", kind="close", situation=adv),), die=SURE)
    out = _run(sc)
    assert out.prob("defender_won_close_quarters") == 1
    assert out.prob("defender_models_lost") == 0
    assert out.pmf("attacker_models_lost").probability.iloc[2] == 1


def test_secondary_combatants_withdraw_untested():
    """4 chargers (DEFENCE 2) against 6 targets (DEFENCE 1) with a 2-model secondary
    combatant. Charger: 4 hits, 4 targets destroyed. The 2 targets left and the 2 secondaries
    retaliate at the same time, 2 hits each: 1 damage each, 2 chargers destroyed. 4 - 2 (the
    secondary's kills count for the target's side): the charger wins. The target
    withdraws and tests (4 of 6 lost, DISCIPLINE 9 - 1 = 8, the 10 fails); the secondary
    withdraws (1 model lost) and takes no test (DISCIPLINE 1 would fail it)."""
    a = _foot("a", 4, side="attacker", defence=2)
    t = _foot("t", 6, discipline=9)
    s2 = _foot("s2", 2, discipline=1, withdraw_losses=1)
    att = Attack("a", "t", kind="close", situation=Situation(secondary=("s2",)))
    decks = {"defender": (10,)}
    out = _run(ArmouredClashScenario((a, t, s2), (att,), die=SURE, decks=decks))
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.pmf("attacker_models_lost").probability.iloc[2] == 1
    assert out.pmf("defender_models_lost").probability.iloc[4] == 1
    assert out.pmf("defender_side_models_lost").probability.iloc[5] == 1
    assert out.prob("defender_suppressed") == 1
    sec = _run(ArmouredClashScenario((a, t, s2), (att,), die=SURE, decks=decks, focus="s2"))
    assert sec.pmf("defender_models_lost").probability.iloc[1] == 1
    assert sec.prob("defender_suppressed") == 0


# -- 7. garrisons ------------------------------------------------------------------------------
def test_storming_halves_the_chargers_dice_and_the_garrison_strikes_first():
    """6 stormers (count 3) against a 4-model garrison (count 2), DEFENCE 1. The garrison
    strikes first (defensive advantage): 2 stormers destroyed. 4 left count 2: 2 hits, 2 of
    the garrison destroyed. 2 - 2: stalemate; the garrison keeps its building and its
    DEFENCE +1 (a later 2-hit ranged attack does 1 damage, not 2)."""
    st = _foot("st", 6, side="attacker")
    g = _foot("g", 4, garrisoned=True)
    gun = _gun("gun", (2,), models=1)
    sc = ArmouredClashScenario(
        (st, g, gun), (Attack("st", "g", kind="close"), Attack("gun", "g")), die=SURE
    )
    out = _run(sc)
    assert out.prob("close_quarters_stalemate") == 1
    assert out.pmf("attacker_models_lost").probability.iloc[2] == 1
    assert out.pmf("defender_models_lost").probability.iloc[3] == 1


def test_a_garrison_falls_back_by_exiting():
    """A suppressed garrison (6 models, DEFENCE 1 + 1) loses 1 model to 2 hits and fails its
    test: it falls back by exiting the building. A second gun's 2 hits then meet DEFENCE 1:
    2 more destroyed (3 in all; 2 if it had stayed inside)."""
    g = _foot("g", 6, garrisoned=True, suppressed=True, discipline=1)
    sc = ArmouredClashScenario(
        (_gun("a", (2,), models=1), _gun("b", (2,), models=1), g),
        (Attack("a", "g"), Attack("b", "g")),
        die=SURE,
        decks={"defender": (10,)},
    )
    out = _run(sc)
    assert out.prob("defender_fell_back") == 1
    assert out.pmf("defender_models_lost").probability.iloc[3] == 1


def test_garrisoned_attacker_counts_half_its_models_rounded_up():
    """A 5-model garrison fires its column for 3 models (5 / 2 rounded up): 3 hits."""
    g = _gun("g", (1, 2, 3, 4, 5), type="infantry", category="light", garrisoned=True)
    sc = ArmouredClashScenario((g, _foot("foot", 10, defence=1)), (Attack("g", "foot"),), die=SURE)
    out = _run(sc, 200)
    assert out.prob("hits_on_defender", 3) == 1 and out.prob("hits_on_defender", 4) == 0


# -- 8. transports -----------------------------------------------------------------------------
def test_transport_loses_capacity_and_both_units_test():
    """2 trucks, Capacity 4 (8 places), carrying 7. One truck destroyed: 4 places, 3
    passengers destroyed (they count as destroyed). The trucks test (1 of 2 lost: DISCIPLINE
    5 - 1 = 4, the first 5 fails: suppressed); the passengers test apart (3 of 7 is below
    half: DISCIPLINE 5, the second 5 passes)."""
    trucks = Unit("trucks", type="armour", category="heavy", models=2, defence=1,
                  discipline=5, capacity=4, carrying="foot")  # fmt: skip
    foot = _foot("foot", 7, discipline=5)
    sc = ArmouredClashScenario(
        (_gun("gun", (1,), models=1), trucks, foot),
        (Attack("gun", "trucks"),),
        die=SURE,
        decks={"defender": (5, 5)},
    )
    out = _run(sc)
    assert out.pmf("defender_models_lost").probability.iloc[1] == 1
    assert out.pmf("passengers_models_lost").probability.iloc[3] == 1
    assert out.prob("defender_suppressed") == 1 and out.prob("passengers_suppressed") == 0


# -- 9. opportunity fire ----------------------------------------------------------------------
def test_opportunity_fire_cannot_suppress_or_break():
    """Opportunity fire destroys 2 of 4 models of a suppressed unit at its BREAK LIMIT 2 with
    DISCIPLINE 1: no suppression test, so it neither breaks nor falls back. It is the active
    unit: its rally test is drawn and its suppressed status (held at the start) ends with the
    activation."""
    spotters = _gun("spot", (2,), models=1)
    foot = _foot("foot", 4, side="defender", discipline=1, break_limit=2, suppressed=True)
    opp = Situation(opportunity_fire=True)
    sc = ArmouredClashScenario(
        (spotters, foot),
        (Attack("spot", "foot", situation=opp),),
        die=SURE,
        decks={"defender": (10,)},
    )
    out = _run(sc)
    assert out.pmf("defender_models_lost").probability.iloc[2] == 1
    assert "defender_broke" not in out.counts  # no test can be taken: not reported
    assert out.prob("defender_annihilated") == 0 and out.prob("defender_suppressed") == 0
    # the other reading (a test whose failure gives no status) breaks it
    other = ArmouredClashScenario(
        (spotters, foot),
        (Attack("spot", "foot", situation=opp),),
        die=SURE,
        decks={"defender": (10,)},
        rules=Rules(cannot_be_suppressed="no_status"),
    )
    assert _run(other).prob("defender_broke") == 1


# -- 10. a behemoth's dice follow its damage ----------------------------------------------------
def test_behemoth_reads_its_column_by_damage():
    """A behemoth with DAMAGE LIMIT 3 and dice (4, 3, 2) for 0, 1, 2 damage fires 3 dice with
    1 damage token; after a 1-damage hit, its next attack (a later activation) fires 2."""
    beh = Unit("beh", side="attacker", type="behemoth", category="heavy", models=1, defence=1,
               damage_limit=3, damage=1, discipline=10,
               armaments=Armaments(ranged=(RangedAttack("guns", dice=(4, 3, 2)),)))  # fmt: skip
    foot = _foot("foot", 20, defence=1)
    sc = ArmouredClashScenario((beh, foot), (Attack("beh", "foot"),), die=SURE)
    out = _run(sc, 200)
    assert out.prob("hits_on_defender", 3) == 1 and out.prob("hits_on_defender", 4) == 0
    rifles = Unit("rifles", models=1, defence=1, discipline=10,
                  armaments=Armaments(ranged=(RangedAttack("r", dice=(1,)),)))  # fmt: skip
    sc2 = ArmouredClashScenario(
        (beh, foot, rifles),
        (Attack("rifles", "beh"), Attack("beh", "foot")),
        die=SURE,
        focus="foot",
    )
    out2 = _run(sc2, 200)
    assert out2.prob("hits_on_defender", 2) == 1 and out2.prob("hits_on_defender", 3) == 0


# -- 11. readings the text leaves open (documented, no switch) ---------------------------------
def test_behemoth_close_quarters_column_follows_damage():
    """Reading: the text gives the by-damage column for the ranged attack dice; a behemoth is
    one model, so its melee column is read by damage too. DAMAGE LIMIT 3, melee (3, 2, 1),
    2 damage tokens: 1 die, 1 hit."""
    beh = Unit("beh", side="attacker", type="behemoth", category="heavy", models=1, defence=9,
               damage_limit=3, damage=2, discipline=10,
               armaments=Armaments(melee=(3, 2, 1)))  # fmt: skip
    foot = Unit("foot", models=20, defence=1, discipline=10)  # no MELEE: no retaliation
    sc = ArmouredClashScenario((beh, foot), (Attack("beh", "foot", kind="close"),), die=SURE)
    out = _run(sc, 200)
    assert out.prob("hits_on_defender", 1) == 1 and out.prob("hits_on_defender", 2) == 0


@pytest.mark.parametrize("target_type, rating", [("armour", 2), ("behemoth", 1)])
def test_overwhelming_names_armour_and_fortifications_only(target_type, rating):
    """*Overwhelming*: "the target is armour or a fortification"; a behemoth is its own type
    (reading: not armour), so infantry charging it is neutral, not improved."""
    a = _foot("a", 4, side="attacker")
    t = Unit("t", type=target_type, category="heavy", models=1, defence=3, damage_limit=3,
             discipline=10)  # fmt: skip
    sc = ArmouredClashScenario((a, t), (Attack("a", "t", kind="close"),))
    assert sc.static_rating(0) == rating
