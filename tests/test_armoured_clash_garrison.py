"""Armoured Clash: a garrison that loses a close quarters combat exits its building instead
of withdrawing, whether it was charged or attacked from inside ("If a garrisoned unit loses a
close quarters combat, it immediately makes an exit manoeuvre instead of withdrawing"). The
exit replaces the withdrawal only: no withdrawal losses, the suppression test still taken,
and later steps find the unit outside. The switch ``garrison_exit = "when_charged"`` keeps
an attacking garrison's ordinary withdrawal. Every case is worked by hand with a die that
always strikes.
"""

from __future__ import annotations

import pytest

from oddslab._schema import ScenarioError
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
)
from oddslab.rulesets.armoured_clash.resolved import resolved
from oddslab.scenario import from_dict

SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)
IN_CONTACT = Situation(charge=False)


def _sally(rule: str, discipline: int, shot: bool) -> ArmouredClashScenario:
    """A 6-model garrison (DEFENCE 1, 1 model lost on withdrawing) attacks the 6-model unit
    in contact from inside its building: half its models count (3), one melee die, 1 hit:
    1 of the target lost. The 5 left retaliate with two dice: 2 of the garrison lost, so it
    loses the combat (1 < 2). With ``shot`` the target then fires three dice at it."""
    g = Unit("g", side="attacker", models=6, defence=1, discipline=discipline,
             garrisoned=True, withdraw_losses=1, armaments=Armaments(melee=(1,) * 6))  # fmt: skip
    rifles = RangedAttack("rifles", dice=(3,) * 6)
    t = Unit("t", models=6, defence=1, discipline=10,
             armaments=Armaments(melee=(2,) * 6, ranged=(rifles,)))  # fmt: skip
    attacks = (Attack("g", "t", kind="close", situation=IN_CONTACT),)
    if shot:
        attacks += (Attack("t", "g"),)
    return ArmouredClashScenario(
        (g, t), attacks, die=SURE, focus="g", rules=Rules(garrison_exit=rule)
    )


def test_a_garrison_losing_its_own_attack_exits_without_withdrawal_losses():
    """Default: it exits instead of withdrawing, so the withdrawal's lost model is not
    lost (2 lost, not 3); it still takes the suppression test ("Then, the losing unit takes
    a suppression test"): DISCIPLINE 0, every card fails, it becomes suppressed."""
    out = simulate(_sally("any_loss", 0, False), trials=200, seed=91)
    assert out.prob("defender_won_close_quarters") == 1
    assert out.prob("attacker_models_lost", 2) == 1 and out.prob("attacker_models_lost", 3) == 0
    assert out.prob("attacker_suppressed") == 1


def test_the_other_reading_keeps_the_ordinary_withdrawal():
    """garrison_exit = "when_charged": only a charged garrison exits, so this one withdraws
    (1 more model lost: 3 of 6, so DISCIPLINE -1) and tests."""
    out = simulate(_sally("when_charged", 0, False), trials=200, seed=91)
    assert out.prob("defender_won_close_quarters") == 1
    assert out.prob("attacker_models_lost", 3) == 1 and out.prob("attacker_models_lost", 4) == 0
    assert out.prob("attacker_suppressed") == 1


def test_a_garrison_forced_out_by_its_own_attack_loses_the_building_after():
    """The return fire (3 hits; its test passes at DISCIPLINE 10) finds the garrison that
    exited outside: DEFENCE 1, 3 damage, 2 + 3 = 5 models lost. Under "when_charged" it is
    still inside: DEFENCE 1 + 1, 1 damage, 2 + 1 (withdrawal) + 1 = 4."""
    out = simulate(_sally("any_loss", 10, True), trials=200, seed=92)
    assert out.prob("attacker_models_lost", 5) == 1 and out.prob("attacker_models_lost", 6) == 0
    assert out.prob("damage_on_attacker", 5) == 1 and out.prob("damage_on_attacker", 6) == 0
    old = simulate(_sally("when_charged", 10, True), trials=200, seed=92)
    assert old.prob("attacker_models_lost", 4) == 1 and old.prob("attacker_models_lost", 5) == 0
    assert old.prob("damage_on_attacker", 3) == 1 and old.prob("damage_on_attacker", 4) == 0


def _stormed(rule: str) -> ArmouredClashScenario:
    """A 6-model unit storms a 4-model garrison (1 model lost on withdrawing). The garrison
    (counted as 2: one melee die) strikes first: 1 stormer lost; the 5 left (counted as 3)
    strike: 3 of the garrison lost. It exits (no withdrawal loss), passes its test, and the
    guns' 2 hits find it outside: DEFENCE 1, its last model lost."""
    c = Unit("c", side="attacker", models=6, defence=1, discipline=10,
             armaments=Armaments(melee=(1, 2, 3, 4, 5, 6)))  # fmt: skip
    g = Unit("g", models=4, defence=1, discipline=10, garrisoned=True, withdraw_losses=1,
             armaments=Armaments(melee=(1, 1, 1, 1)))  # fmt: skip
    guns = Unit("guns", side="attacker", models=1, defence=1, discipline=10,
                armaments=Armaments(ranged=(RangedAttack("gun", dice=(2,)),)))  # fmt: skip
    return ArmouredClashScenario(
        (c, g, guns),
        (Attack("c", "g", kind="close"), Attack("guns", "g")),
        die=SURE,
        rules=Rules(garrison_exit=rule),
    )


@pytest.mark.parametrize("rule", ["any_loss", "when_charged"])
def test_a_stormed_garrison_exits_under_either_reading(rule):
    out = simulate(_stormed(rule), trials=200, seed=93)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.prob("defender_models_lost", 4) == 1
    assert out.prob("defender_annihilated") == 1


def test_show_notes_the_garrison_forced_out_by_its_own_attack():
    """The ``garrison: g`` note on the return fire: possible only when its own lost attack
    makes it exit (under "when_charged" it starts unsuppressed, so one test cannot make it
    fall back)."""
    step = "step 2: t → g (ranged attack)"
    shown = resolved(_sally("any_loss", 10, True))
    assert "step 1 or a later one forced it out" in shown[step]["garrison: g"]
    assert shown["rules"]["a garrison that loses a close quarters combat"].startswith("exits")
    shown = resolved(_sally("when_charged", 10, True))
    assert "garrison: g" not in shown[step]
    assert "withdraws" in shown["rules"]["a garrison that loses a close quarters combat"]


def test_the_switch_is_read_from_the_rules_table():
    d = {
        "ruleset": "armoured-clash",
        "units": {
            "g": {
                "side": "attacker",
                "models": 4,
                "defence": 1,
                "discipline": 6,
                "garrisoned": True,
                "melee": [1, 1, 1, 1],
            },
            "t": {
                "side": "defender",
                "models": 4,
                "defence": 1,
                "discipline": 6,
                "melee": [1, 2, 3, 4],
            },
        },
        "attacks": [{"attacker": "g", "target": "t", "kind": "close", "charge": False}],
    }
    assert from_dict(d).rules.garrison_exit == "any_loss"
    d["rules"] = {"garrison_exit": "when_charged"}
    assert from_dict(d).rules.garrison_exit == "when_charged"
    d["rules"] = {"garrison_exit": "never"}
    with pytest.raises(ScenarioError, match=r"bad\.toml: rules\.garrison_exit: "):
        from_dict(d, source="bad.toml")
    with pytest.raises(ValueError, match="garrison_exit"):
        Rules(garrison_exit="never")
