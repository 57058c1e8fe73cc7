"""Assault phase: rule-text fixes, each replayed die by die.

Every test here failed on the code before its fix (except the guards, which check what a
fix keeps):
sweeping advances in multi-unit combats, supporting monstrous creatures, the two readings
of "majority" and a WS with no majority type, an independent character splitting his
hits, and a force weapon in the sweeping advance. Dice are scripted (``run_with_dice``), so
nothing is statistical.
"""

from __future__ import annotations

import pytest

from oddslab import scenario
from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit
from oddslab.rulesets.assault_phase.resolved import majority_value
from oddslab.scenario import ScenarioError
from tests import naive_assault_phase as naive

# -- sweeping advance: "only ... if all of the units they are Engaged with fall back" ---------


def _one_v_two() -> AssaultScenario:
    att = Unit("A", (ModelGroup("a", 5, ws=4, s=4, t=4, i=5, a=1, target="D1"),))
    d1 = Unit("D1", (ModelGroup("d1", 5, ws=4, t=4, i=1, a=0, ld=8),))
    d2 = Unit("D2", (ModelGroup("d2", 5, ws=4, t=4, i=1, a=0, ld=8),))
    return AssaultScenario(Side("att", (att,)), Side("def", (d1, d2)))


# 10 attacks (5 models, +1 charge) all hit; two of ten wound; no saves: D1 loses two
_FIGHT = [6] * 10 + [6, 6] + [1] * 8


def test_no_sweep_while_another_engaged_unit_holds():
    """D1 breaks (12, falls back 2"), D2 holds (2): the winner may not advance at all, so
    no sweep die is rolled (the old code swept D1 with the next two dice)."""
    r = _one_v_two().run_with_dice(_FIGHT + [6, 6, 1, 1] + [1, 1] + [6, 6])
    assert r["attacker_won_assault"] == 1
    assert r["defender_fell_back"] == 1
    assert r["defender_swept"] == 0
    assert r["dice_used"] == 26  # fight 20, D1 morale 2 + fall back 2, D2 morale 2


def test_sweep_when_every_engaged_unit_falls_back():
    """Both units break; the sweep roll (12) beats both fall-back rolls (2 and 3)."""
    dice = _FIGHT + [6, 6, 1, 1] + [6, 6, 1, 2] + [6, 6] + [6] * 5
    r = _one_v_two().run_with_dice(dice)
    assert r["defender_swept"] == 1
    # the five sweeping attacks hit D1 automatically, all five wound: D1 is wiped out
    assert r["defender.D1.d1.models_lost"] == 5
    assert r["defender.D2.d2.models_lost"] == 0


# -- supporting monstrous creatures: "no benefit from any special close combat attack forms" --


def _monster() -> AssaultScenario:
    att = Unit("Brood", (ModelGroup("Beast", 2, ws=4, s=6, i=4, a=1, monstrous=True,
                                    contact=1, supporting=1),))  # fmt: skip
    dfn = Unit("Squad", (ModelGroup("Marines", 3, ws=4, t=4, i=1, a=0, save=3),))
    return AssaultScenario(Side("att", (att,)), Side("def", (dfn,)))


def test_supporting_monstrous_creature_allows_armour_saves():
    """Contact model: 2 attacks miss (1, 1). Supporting model: 1 attack hits (6) and wounds
    (6); the Marine takes his 3+ armour save (6: saved). Old code rolled no save."""
    r = _monster().run_with_dice([1, 1] + [6] + [6] + [6])
    assert r["wounds_on_defender"] == 1
    assert r["unsaved_wounds_on_defender"] == 0
    assert r["dice_used"] == 5


def test_monstrous_creature_in_contact_still_ignores_armour():
    r = _monster().run_with_dice([6, 6] + [6, 6] + [1])
    assert r["unsaved_wounds_on_defender"] == 2
    assert r["defender_models_lost"] == 2
    assert r["dice_used"] == 5  # no armour save die rolled


# -- "majority": most common (default) or more than half (switch) -----------------------------


def _mixed(groups: list[ModelGroup], majority: str, **att_kw) -> AssaultScenario:
    kw = {"ws": 4, "s": 4, "i": 5, "a": 0, **att_kw}
    att = Unit("A", (ModelGroup("a", 1, **kw),))  # one attack: the +1 charge
    return AssaultScenario(
        Side("att", (att,)), Side("def", (Unit("U", tuple(groups)),)), Rules(majority=majority)
    )


def test_majority_ws_readings():
    """3 × WS5, 2 × WS2, 2 × WS3: most common WS5 (WS4 hits on 4+); no value has more than
    half, so the other reading takes the lowest, WS2 (hits on 3+). The die is a 3."""
    groups = [
        ModelGroup("vets", 3, ws=5, a=0),
        ModelGroup("grots", 2, ws=2, a=0),
        ModelGroup("mid", 2, ws=3, a=0),
    ]
    assert _mixed(groups, "most-common").run_with_dice([3])["hits_on_defender"] == 0
    assert _mixed(groups, "more-than-half").run_with_dice([3, 1])["hits_on_defender"] == 1


def test_majority_toughness_readings():
    """3 × T5, 2 × T3, 2 × T4 v S4: most common T5 (5+), more than half: none, lowest T3 (3+)."""
    groups = [
        ModelGroup("big", 3, t=5, a=0),
        ModelGroup("small", 2, t=3, a=0),
        ModelGroup("mid", 2, t=4, a=0),
    ]
    assert _mixed(groups, "most-common").run_with_dice([6, 3])["wounds_on_defender"] == 0
    assert _mixed(groups, "more-than-half").run_with_dice([6, 3])["wounds_on_defender"] == 1


def test_majority_save_readings():
    """3 × 3+, 2 × 5+, 2 × 6+: most common 3+ (a 4 saves); more than half: none, the worst
    save, 6+ (a 4 fails and a 6+ model dies)."""
    groups = [
        ModelGroup("heavy", 3, a=0, save=3),
        ModelGroup("light", 2, a=0, save=5),
        ModelGroup("none", 2, a=0, save=6),
    ]
    r = _mixed(groups, "most-common").run_with_dice([6, 6, 4])
    assert r["unsaved_wounds_on_defender"] == 0
    r = _mixed(groups, "more-than-half").run_with_dice([6, 6, 4])
    assert r["unsaved_wounds_on_defender"] == 1
    assert r["defender.U.none.models_lost"] == 1


def test_two_halves_use_the_owners_choice_in_both_readings():
    """2 × 3+ and 2 × 5+: "an equal number ... the owning player chooses" (tie_save)."""
    groups = [ModelGroup("heavy", 2, a=0, save=3), ModelGroup("light", 2, a=0, save=5)]
    for reading in ("most-common", "more-than-half"):
        assert _mixed(groups, reading).run_with_dice([6, 6, 4])["unsaved_wounds_on_defender"] == 0


def test_majority_value_helper():
    strict = Rules(majority="more-than-half")
    assert majority_value({5: 3, 2: 2, 3: 2}, Rules(), tie_high=False) == 5
    assert majority_value({5: 3, 2: 2, 3: 2}, strict, tie_high=False) == 2
    assert majority_value({5: 4, 2: 3}, strict, tie_high=False) == 5
    assert majority_value({5: 2, 2: 2}, strict, tie_high=True) == 5
    # no majority WS type: the lowest WS in the unit, not the lowest of the tied values
    for rules in (Rules(), strict):
        assert majority_value({5: 2, 4: 2, 1: 1}, rules, False, lowest_if_tied=True) == 1
    assert majority_value({5: 2, 4: 2, 1: 0}, Rules(), False, lowest_if_tied=True) == 4
    # Toughness: "If there is an equal number the owning player chooses" (tie_toughness)
    assert majority_value({5: 2, 4: 2, 1: 1}, Rules(), tie_high=True) == 5
    assert majority_value({5: 2, 4: 2, 1: 1}, Rules(), tie_high=False) == 4


# -- "If there is no majority Weapon Skill type use the lowest Weapon Skill in the unit" --------


def _ws_tie(**grot_kw) -> list[ModelGroup]:
    """2 × WS5, 2 × WS4, 1 × WS1: no WS is the majority type (WS5 and WS4 tie)."""
    return [
        ModelGroup("grot", 1, ws=1, a=0, **grot_kw),
        ModelGroup("vets", 2, ws=5, a=0),
        ModelGroup("regs", 2, ws=4, a=0),
    ]


@pytest.mark.parametrize("reading", ["most-common", "more-than-half"])
def test_no_majority_ws_type_uses_the_lowest_ws_in_the_unit(reading):
    """WS2 against the lowest WS1 hits on 3+: the die (3) hits. The code before took the
    lower of the two tied values (WS4: 4+) under the default reading."""
    sc = _mixed(_ws_tie(), reading, ws=2)
    assert sc.run_with_dice([3, 1])["hits_on_defender"] == 1
    to_hit = sc.resolved()["attacker group: A / a"]["to hit U"]
    assert to_hit.startswith("3+ (WS2 vs WS1: no majority WS type")


def test_no_majority_ws_type_counts_the_living_models():
    """An I5 attacker kills the WS1 grot (listed first, so the first casualty); at I3 the
    unit is 2 × WS5, 2 × WS4: still no majority type, now the lowest is WS4 (4+), so the
    second attacker's 3 misses. The unit holds (1, 1)."""
    att = Unit("A", (
        ModelGroup("fast", 1, ws=2, s=4, i=5, a=0),
        ModelGroup("slow", 1, ws=2, s=4, i=3, a=0),
    ))  # fmt: skip
    sc = AssaultScenario(Side("att", (att,)), Side("def", (Unit("U", tuple(_ws_tie())),)))
    r = sc.run_with_dice([3, 6] + [3] + [1, 1])
    assert r["defender.U.grot.models_lost"] == 1
    assert r["hits_on_defender"] == 1
    assert r["defender_fell_back"] == 0 and r["dice_used"] == 5


def test_toughness_tie_is_still_the_owners_choice():
    """Guard: 2 × T5, 2 × T4, 1 × T1 is the owner's choice between T5 and T4 (higher by
    default: S4 wounds on 5+, the 4 fails), never the lowest Toughness in the unit."""
    groups = [
        ModelGroup("small", 1, t=1, a=0),
        ModelGroup("big", 2, t=5, a=0),
        ModelGroup("mid", 2, t=4, a=0),
    ]
    assert _mixed(groups, "most-common").run_with_dice([6, 4])["wounds_on_defender"] == 0
    sc = _mixed(groups, "most-common")
    sc = AssaultScenario(sc.attacker, sc.defender, Rules(tie_toughness="lower"))
    assert sc.run_with_dice([6, 4, 1, 1])["wounds_on_defender"] == 1  # T4: 4+; unit holds


def test_reference_reads_no_majority_ws_type_the_same_way():
    assert naive._majority([(5, 2), (4, 2), (1, 1)], "lowest-in-unit") == 1
    assert naive._majority([(5, 2), (4, 2), (1, 0)], "lowest-in-unit") == 4
    assert naive._majority([(5, 2), (4, 2), (1, 1)], "highest") == 5
    assert naive._majority([(5, 3), (4, 2), (1, 1)], "lowest-in-unit") == 5


# -- an independent character may split his hits -----------------------------------------------


def _split(split=None) -> AssaultScenario:
    hero = ModelGroup("Captain", 1, ws=5, s=4, i=5, a=3, independent=True,
                      target=("U1", "U2"), split=split)  # fmt: skip
    u1 = Unit("U1", (ModelGroup("g1", 3, ws=4, t=3, i=1, a=0),))
    u2 = Unit("U2", (ModelGroup("g2", 3, ws=4, t=5, i=1, a=0),))
    return AssaultScenario(Side("att", (Unit("Hero", (hero,)),)), Side("def", (u1, u2)))


def test_independent_character_splits_hits_in_turn():
    """4 attacks (3 + charge) all hit; dealt U1, U2, U1, U2: U1 (T3) wounds on 3+ (3, 3),
    U2 (T5) on 5+ (4, 4)."""
    r = _split().run_with_dice([6] * 4 + [3, 3] + [4, 4])
    assert r["defender.U1.g1.models_lost"] == 2
    assert r["defender.U2.g2.models_lost"] == 0


def test_independent_character_split_weights():
    """split = [2, 1]: U1, U1, U2, then U1 again: three wound dice on U1, one on U2."""
    r = _split((2, 1)).run_with_dice([6] * 4 + [3, 3, 3] + [5])
    assert r["defender.U1.g1.models_lost"] == 3
    assert r["defender.U2.g2.models_lost"] == 1


def test_only_an_independent_character_may_split():
    data = {
        "ruleset": "assault-phase",
        "attacker": {"units": [{"name": "A", "groups": [{"name": "a", "target": ["B", "C"]}]}]},
        "defender": {"units": [{"name": "B", "groups": [{}]}, {"name": "C", "groups": [{}]}]},
    }
    with pytest.raises(ScenarioError, match=r"attacker\.units\[0\]\.groups\[0\]\.target"):
        scenario.from_dict(data, source="bad.toml")
    data["attacker"]["units"][0]["groups"][0]["independent"] = True
    data["attacker"]["units"][0]["groups"][0]["split"] = [1, 2, 3]
    with pytest.raises(ScenarioError, match=r"groups\[0\]\.split"):
        scenario.from_dict(data, source="bad.toml")
    del data["attacker"]["units"][0]["groups"][0]["split"]
    sc = scenario.from_dict(data, source="ok.toml")
    assert sc.attacker.units[0].groups[0].targets == ("B", "C")


# -- force weapons: "a single psychic test ... you may not use another psychic power in the same
# turn" --------------------------------------------------------------------------------------


def _psyker(max_turns: int = 1, ld: int = 2) -> AssaultScenario:
    lib = Unit("Lib", (ModelGroup("psyker", 1, ld=10, weapon="force-weapon"),))
    dfn = Unit("D", (ModelGroup("big", 2, w=3, a=0, ld=ld),))
    return AssaultScenario(Side("att", (lib,)), Side("def", (dfn,)), Rules(max_turns=max_turns))


def test_force_weapon_makes_no_psychic_test_in_the_sweeping_advance():
    """Two attacks hit (6, 6) and wound (6, 6); the test (1, 1) slays the wounded model. D
    breaks (6, 6), falls back 2" (1, 1) and is swept (6, 6): the sweep's attack wounds (6)
    the second model, which has three wounds and lives. The code before took a second
    psychic test (1, 1) in the sweep and slew it too."""
    r = _psyker().run_with_dice([6, 6, 6, 6, 1, 1, 6, 6, 1, 1, 6, 6, 6] + [1, 1])
    assert r["defender_swept"] == 1
    assert r["defender_models_lost"] == 1
    assert r["defender_wounds_lost"] == 3  # two in the fight, one in the sweep
    assert r["dice_used"] == 13  # no psychic test after the sweep's wound die


def test_force_weapon_tests_once_in_each_turn():
    """Guard: each turn of the combat is a new turn for the psyker. Turn 1 as above, D holds
    (1, 1); turn 2 (no charge bonus): hit 6, wound 6, test 1, 1 slays the second model."""
    r = _psyker(max_turns=2, ld=10).run_with_dice([6, 6, 6, 6, 1, 1, 1, 1] + [6, 6, 1, 1])
    assert r["defender_models_lost"] == 2
    assert r["defender_destroyed"] == 1
    assert r["dice_used"] == 12
