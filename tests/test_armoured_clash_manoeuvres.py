"""Armoured Clash: what one activation can hold (one manoeuvre, one attack step, one
reaction), garrisons and their exit, aircraft sorties. Each impossible combination is an
input error naming the key; the garrison's exit changes the odds of later steps."""

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
    Situation,
    Unit,
)
from oddslab.rulesets.armoured_clash.resolved import resolved
from oddslab.rulesets.armoured_clash.validate import activation_plan
from oddslab.scenario import from_dict

SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)


def _unit(**kw) -> dict:
    d = {"models": 4, "defence": 1, "discipline": 6, "melee": [1, 2, 3, 4]}
    d["ranged"] = [{"name": "rifles", "dice": [1, 2, 3, 4], "vs": ["light", "heavy", "aerial"]}]
    return {**d, **kw}


def _base(attacks: list[dict], a: dict | None = None, t: dict | None = None) -> dict:
    return {
        "ruleset": "armoured-clash",
        "units": {
            "a": _unit(side="attacker", **(a or {})),
            "t": _unit(side="defender", **(t or {})),
        },
        "attacks": attacks,
    }


AIRCRAFT = {"type": "aircraft", "category": "aerial"}
GARRISON = {"garrisoned": True}
OPP = {"attacker": "t", "target": "a", "opportunity_fire": True}
SHOT = {"attacker": "a", "target": "t"}
CHARGE = {"attacker": "a", "target": "t", "kind": "close"}


@pytest.mark.parametrize(
    "d, key",
    [
        # a garrison makes no manoeuvre but exit
        (_base([{**SHOT, "aiming": True}], a=GARRISON), r"attacks\[0\]\.aiming"),
        (_base([CHARGE], a=GARRISON), r"attacks\[0\]\.charge"),
        # a garrison has a 360° front arc
        (_base([{**CHARGE, "outflanking": True}], t=GARRISON), r"attacks\[0\]\.outflanking"),
        # one reaction step used per activation (not an aircraft)
        (_base([OPP, SHOT, OPP]), r"attacks\[2\]\.opportunity_fire"),
        (_base([OPP, OPP]), r"attacks\[1\]\.opportunity_fire"),
        # one attack step per activation
        (_base([SHOT, SHOT]), r"attacks\[1\]\.new_activation"),
        (_base([SHOT, CHARGE]), r"attacks\[1\]\.new_activation"),
        # an aircraft's sortie: no movement step, a ranged attack
        (_base([CHARGE], a=AIRCRAFT), r"attacks\[0\]\.kind"),
        (_base([{**SHOT, "aiming": True}], a=AIRCRAFT), r"attacks\[0\]\.aiming"),
        (_base([{**SHOT, "reforming": True}], a=AIRCRAFT), r"attacks\[0\]\.reforming"),
        # one manoeuvre, made in the unit's own activation
        (
            _base([{**OPP, "aiming": True, "attacker": "a", "target": "t"}]),
            r"attacks\[0\]\.aiming",
        ),
        (_base([{**SHOT, "aiming": True, "reforming": True}]), r"attacks\[0\]\.aiming"),
        # both defined by a charge
        (_base([{**CHARGE, "charge": False, "outflanking": True}]), r"attacks\[0\]\.outflanking"),
        (
            _base([{**CHARGE, "charge": False, "defensive_advantage": True}]),
            r"attacks\[0\]\.defensive_advantage",
        ),
    ],
)
def test_impossible_combinations_are_rejected(d, key):
    with pytest.raises(ScenarioError, match=key):
        from_dict(d, source="bad.toml")


A, AT, T = ("a", True, False), ("a", True, True), ("t", True, True)


@pytest.mark.parametrize(
    "d, plan",
    [
        # first reaction step, then the attack step: one activation of 'a'
        (_base([OPP, SHOT]), [A, ("a", False, True)]),
        # opp fire starting a later activation of 'a', its attack in it
        (_base([SHOT, {**OPP, "new_activation": True}, SHOT]), [AT, A, ("a", False, True)]),
        (_base([SHOT, {**SHOT, "new_activation": True}]), [AT, AT]),  # a later activation
        # the garrison exits (reforming), then the target's own activation
        (_base([{**SHOT, "reforming": True}, {"attacker": "t", "target": "a"}], a=GARRISON), [AT, T]),
        (_base([{**CHARGE, "charge": False}], a=GARRISON), [AT]),  # already in contact
        # a garrison that exited in an earlier activation can charge
        (_base([{**SHOT, "reforming": True}, {**CHARGE, "new_activation": True}], a=GARRISON), [AT, AT]),
    ],
)  # fmt: skip
def test_possible_sequences_are_accepted(d, plan):
    """Accepted, and split into the activations the comments name: (active unit, starts
    its activation, ends it) per step."""
    sc = from_dict(d)
    assert len(sc.attacks) == len(d["attacks"])
    assert activation_plan(sc) == plan


def _sortie_with_two_lookouts(second: str) -> dict:
    """An aircraft's sortie: opportunity fire by 't', its attack, opportunity fire by
    ``second`` (each unit on lookout fires once: it loses the status when it fires)."""
    aa = {"ranged": [{"name": "aa", "dice": [1, 2, 3, 4], "vs": ["aerial"]}]}
    d = _base([OPP, SHOT, {**OPP, "attacker": second}], a=AIRCRAFT, t=aa)
    d["units"]["t2"] = _unit(side="defender", **aa)
    return d


def test_aircraft_sortie_has_a_reaction_step_before_and_after_its_attack():
    from_dict(_sortie_with_two_lookouts("t2"))  # one before its attack, one after
    # the same unit twice: it lost on lookout with its first opportunity fire
    with pytest.raises(ScenarioError, match=r"bad\.toml: attacks\[2\]\.opportunity_fire: 't'"):
        from_dict(_sortie_with_two_lookouts("t"), source="bad.toml")


def test_aircraft_gets_one_opportunity_fire_per_reaction_step_only():
    d = _base([{**OPP}, {**OPP}, SHOT], a=AIRCRAFT)
    with pytest.raises(ScenarioError, match=r"attacks\[1\]\.opportunity_fire"):
        from_dict(d)


def test_repeat_is_the_same_attack_in_later_activations():
    d = _base([{**SHOT, "repeat": 3}], a={"suppressed": True})
    sc = from_dict(d)
    assert [s for _, s, _ in activation_plan(sc)] == [True, True, True]
    # each repetition starts an activation of 'a' (its own rally test, statuses expiring)
    shows = resolved(sc)
    assert sum("starts a's activation" in str(v) for v in shows.values()) == 3


def test_repeat_with_a_second_own_attack_is_reported_at_the_table():
    d = _base([SHOT, {**SHOT}])
    with pytest.raises(ScenarioError, match=r"bad\.toml: attacks\[1\]\.new_activation"):
        from_dict(d, source="bad.toml")


def test_a_garrison_charging_is_a_cli_input_error(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    path = tmp_path / "garrison-charges.toml"
    path.write_text(
        'ruleset = "armoured-clash"\n'
        '[units.a]\nside = "attacker"\nmodels = 4\ndefence = 1\ndiscipline = 6\n'
        "garrisoned = true\nmelee = [1, 2, 3, 4]\n"
        '[units.t]\nside = "defender"\nmodels = 4\ndefence = 1\ndiscipline = 6\n'
        '[[attacks]]\nattacker = "a"\ntarget = "t"\nkind = "close"\n'
    )
    res = CliRunner().invoke(app, ["simulate", str(path), "-n", "100"])
    assert res.exit_code == 2, res.output
    assert "attacks[0].charge" in res.output and "Traceback" not in res.output


def _garrison_exits(reforming: bool) -> ArmouredClashScenario:
    dice = tuple(range(1, 7))
    g = Unit("g", side="attacker", models=6, defence=2, discipline=10, garrisoned=True,
             armaments=Armaments(ranged=(RangedAttack("rifles", dice=dice),)))  # fmt: skip
    t = Unit("t", models=12, defence=1, discipline=10,
             armaments=Armaments(ranged=(RangedAttack("rifles", dice=(4,) * 12),)))  # fmt: skip
    return ArmouredClashScenario(
        (g, t),
        (
            Attack("g", "t", situation=Situation(reforming=reforming)),
            Attack("t", "g"),
        ),
        die=SURE,
        focus="g",
    )


def test_an_exit_ends_the_garrison_effects():
    """A sure die (every die one hit). Inside the building: 3 dice (half of 6), and the
    return fire's 4 hits on DEFENCE 2 + 1 = 3 make 1 damage. After the exit: 6 dice, and 4
    hits on DEFENCE 2 (not concealed by the building, no +1) make 2."""
    stay = simulate(_garrison_exits(False), trials=100, seed=1)
    out = simulate(_garrison_exits(True), trials=100, seed=1)
    assert stay.prob("defender_models_lost", 3) == 1 and stay.prob("defender_models_lost", 4) == 0
    assert out.prob("defender_models_lost", 6) == 1 and out.prob("defender_models_lost", 7) == 0
    assert stay.prob("damage_on_attacker", 1) == 1 and stay.prob("damage_on_attacker", 2) == 0
    assert out.prob("damage_on_attacker", 2) == 1 and out.prob("damage_on_attacker", 3) == 0


def test_show_follows_the_exit():
    shows = resolved(_garrison_exits(True))
    text = " ".join(str(v) for v in shows.values())
    assert "garrisoned target" not in text


def _stormed_then_shot() -> ArmouredClashScenario:
    """Every die strikes. The garrison (4 models, counted as 2: one melee die) strikes first:
    1 of 6 stormers lost; the 5 left (counted as 3) strike: 3 of the garrison lost. It loses
    the combat and exits (its test passes: every card a 1). Then 'guns' shoot it (2 hits):
    outside it is DEFENCE 1, 2 damage (inside DEFENCE 2, 1 damage)."""
    c = Unit("c", side="attacker", models=6, defence=1, discipline=10,
             armaments=Armaments(melee=(1, 2, 3, 4, 5, 6)))  # fmt: skip
    g = Unit("g", models=4, defence=1, discipline=10, garrisoned=True,
             armaments=Armaments(melee=(1, 1, 1, 1)))  # fmt: skip
    guns = Unit("guns", side="attacker", models=1, defence=1, discipline=10,
                armaments=Armaments(ranged=(RangedAttack("gun", dice=(2,)),)))  # fmt: skip
    return ArmouredClashScenario(
        (c, g, guns),
        (Attack("c", "g", kind="close"), Attack("guns", "g")),
        die=SURE,
        decks={"defender": (1,)},
    )


def test_a_garrison_forced_out_is_noted_by_show():
    sc = _stormed_then_shot()
    out = simulate(sc, trials=100, seed=1)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.prob("damage_on_defender", 5) == 1  # 3 in the combat, 2 outside the building
    shows = resolved(sc)
    assert not any(k.startswith("garrison:") for k in shows["step 1: c → g (close quarters)"])
    note = shows["step 2: guns → g (ranged attack)"]["garrison: g"]
    assert "step 1 or a later one forced it out" in note and "DEFENCE +1" in note


def test_show_notes_a_garrison_only_once_a_fall_back_is_possible():
    """Shot three times: the first failed test only suppresses it, so from the third shot
    on (after the second, which may find it suppressed) it may have fallen back."""
    g = Unit("g", models=8, defence=1, discipline=5, garrisoned=True)
    guns = Unit("guns", side="attacker", models=1, defence=1, discipline=10,
                armaments=Armaments(ranged=(RangedAttack("gun", dice=(2,)),)))  # fmt: skip
    again = Situation(new_activation=True)
    shots = (Attack("guns", "g"),) + (Attack("guns", "g", situation=again),) * 2
    shows = resolved(ArmouredClashScenario((g, guns), shots))
    noted = ["garrison: g" in v for k, v in shows.items() if k.startswith("step")]
    assert noted == [False, False, True]
    assert "step 2 or a later one" in shows["step 3: guns → g (ranged attack)"]["garrison: g"]
