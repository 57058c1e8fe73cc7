"""Armoured Clash readings of the close quarters and suppression texts: the charger's
*supported* / *threatened* flags carried over to the retaliation, secondary combatants
retaliating only with the target (and, under a defensive advantage, striking with it),
a retaliation that annihilates (the action ends, or step 4 all the same), opportunity fire
and aircraft that cannot be suppressed, reload weapons and on lookout used once, and
prioritised exposed models. Each case is worked from the rule text; the switched-off
reading is shown to differ.

Tolerances: |z| < 5 (tests/stats.py) against exact probabilities.
"""

from __future__ import annotations

import pytest
from stats import assert_prob, z_prob

from oddslab._schema import ScenarioError
from oddslab.engine import simulate
from oddslab.rulesets.armoured_clash import (
    CATEGORIES,
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
from oddslab.rulesets.armoured_clash import layout as K
from oddslab.scenario import from_dict


def _duel(**situation) -> ArmouredClashScenario:
    """Two one-model units (DEFENCE 1, one melee die) in close quarters."""
    a = Unit(
        "a", side="attacker", models=1, defence=1, discipline=6, armaments=Armaments(melee=(1,))
    )
    t = Unit("t", models=1, defence=1, discipline=6, armaments=Armaments(melee=(1,)))
    return ArmouredClashScenario(
        (a, t), (Attack("a", "t", kind="close", situation=Situation(**situation)),)
    )


def _statics(sc: ArmouredClashScenario) -> tuple[int, int]:
    """(charger, target retaliation) bonuses - penalties of the first attack."""
    row = sc.arrays()["AT"][0]
    return int(row[K.A_STATIC]), int(row[K.A_RSTATIC])


def _hit(rating: str) -> float:
    """P(one attack die scores at least one hit) at ``rating``."""
    return 1.0 - float(attack_pool_pmf(1, rating)[0])


# -- 1. the charger's supported / threatened are the retaliation's threatened / supported ------
@pytest.mark.parametrize(
    "situation, want",
    [
        ({}, (0, 0)),
        ({"supported": True}, (1, -1)),  # the retaliation is threatened
        ({"threatened": True}, (-1, 1)),  # the retaliation is supported
        ({"supported": True, "threatened": True}, (0, 0)),
        ({"defender_threatened": True}, (1, -1)),  # the charger is supported
        ({"defender_supported": True}, (-1, 1)),  # the charger is threatened
        ({"supported": True, "defender_threatened": False}, (1, 0)),  # explicit keys win
        ({"threatened": True, "defender_supported": False}, (-1, 0)),
        ({"supported": False, "defender_threatened": True}, (0, -1)),
    ],
)
def test_supported_and_threatened_carry_over_to_the_retaliation(situation, want):
    assert _statics(_duel(**situation)) == want


def test_a_secondary_is_not_threatened_by_the_chargers_support():
    """The charger's supporting unit is within 2" of the target, not of a secondary: only
    the target's retaliation is threatened; the secondary's stays supported."""
    a = Unit(
        "a", side="attacker", models=2, defence=1, discipline=6, armaments=Armaments(melee=(1, 2))
    )
    t = Unit("t", models=1, defence=1, discipline=6, armaments=Armaments(melee=(1,)))
    s2 = Unit("s2", models=1, defence=1, discipline=6, armaments=Armaments(melee=(1,)))
    sit = Situation(supported=True, secondary=("s2",))
    sc = ArmouredClashScenario((a, t, s2), (Attack("a", "t", kind="close", situation=sit),))
    row = sc.arrays()["AT"][0]
    # charger: supported - threatened = 0; target: supported - threatened = 0; secondary +1
    assert (row[K.A_STATIC], row[K.A_RSTATIC], row[K.A_SST0]) == (0, 0, 1)


def test_show_names_where_the_flags_come_from():
    step = _duel(supported=True).resolved()["step 1: a → t (close quarters)"]
    assert "threatened (derived: the charger is supported)" in step["retaliation: t (target)"]
    assert step["retaliation: t (target)"].split("; ")[1].startswith("weakened")
    assert (
        "target's retaliation threatened yes (derived: the charger is supported)"
        in (step["supported / threatened"])
    )
    step = _duel(threatened=True).resolved()["step 1: a → t (close quarters)"]
    assert "supported (derived: the charger is threatened)" in step["retaliation: t (target)"]


def test_the_flags_are_read_from_a_scenario_file():
    d = {
        "ruleset": "armoured-clash",
        "units": {
            "a": {"side": "attacker", "models": 1, "defence": 1, "discipline": 6, "melee": [1]},
            "t": {"side": "defender", "models": 1, "defence": 1, "discipline": 6, "melee": [1]},
        },
        "attacks": [{"attacker": "a", "target": "t", "kind": "close", "supported": True}],
    }
    assert _statics(from_dict(d)) == (1, -1)
    d["attacks"][0]["defender_threatened"] = False
    assert _statics(from_dict(d)) == (1, 0)
    d["units"]["a"]["ranged"] = [{"name": "gun", "dice": [1]}]
    d["attacks"][0] = {"attacker": "a", "target": "t", "defender_threatened": True}
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.defender_threatened"):
        from_dict(d, source="bad.toml")


@pytest.mark.parametrize("flag", ["supported", "threatened"])
def test_close_quarters_duel_with_a_flag_matches_the_exact_odds(flag):
    """One die each. Supported: the charger is improved, the retaliation threatened
    (weakened); threatened: the charger weakened, the retaliation supported (improved).
    P(charger wins) = p_c, P(target wins) = (1 - p_c) p_t, stalemate (1 - p_c)(1 - p_t).
    Before the fix the retaliation stayed neutral (supported: 0.194 / 0.138 instead of 1/6)."""
    r_c, r_t = ("improved", "weakened") if flag == "supported" else ("weakened", "improved")
    p_c, p_t = _hit(r_c), _hit(r_t)
    n = 500_000
    out = simulate(_duel(**{flag: True}), trials=n, seed=61)
    want = {
        "attacker_won_close_quarters": p_c,
        "defender_won_close_quarters": (1 - p_c) * p_t,
        "close_quarters_stalemate": (1 - p_c) * (1 - p_t),
    }
    for name, p in want.items():
        assert_prob(out.prob(name), p, n, what=name)
    # the old reading (retaliation neutral) is far outside the tolerance
    old = (1 - p_c) * _hit("neutral")
    assert abs(z_prob(out.prob("defender_won_close_quarters"), old, n)) > 20


# -- 5. prioritising exposed models needs some, but not all, exposed -----------------------------
def _ranged_file(models: int, **attack) -> dict:
    return {
        "ruleset": "armoured-clash",
        "units": {
            "a": {
                "side": "attacker",
                "models": 1,
                "defence": 1,
                "discipline": 6,
                "ranged": [{"name": "gun", "dice": [2]}],
            },
            "t": {"side": "defender", "models": models, "defence": 2, "discipline": 6},
        },
        "attacks": [{"attacker": "a", "target": "t", **attack}],
    }


@pytest.mark.parametrize("models, exposed", [(5, 5), (5, 9), (1, 1)])
def test_exposed_all_models_is_rejected(models, exposed):
    d = _ranged_file(models, exposed=exposed, concealed=True)
    with pytest.raises(ScenarioError, match=r"bad\.toml: attacks\[0\]\.exposed: .*some, but not"):
        from_dict(d, source="bad.toml")


def test_exposed_some_models_is_accepted():
    sc = from_dict(_ranged_file(5, exposed=4, concealed=True))
    assert sc.static_rating(0) == 1  # the concealed penalty does not apply


def test_exposed_all_models_is_a_cli_input_error(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    path = tmp_path / "all-exposed.toml"
    path.write_text(
        'ruleset = "armoured-clash"\n'
        '[units.a]\nside = "attacker"\nmodels = 1\ndefence = 1\ndiscipline = 6\n'
        '[[units.a.ranged]]\nname = "gun"\ndice = [2]\n'
        '[units.t]\nside = "defender"\nmodels = 5\ndefence = 2\ndiscipline = 6\n'
        '[[attacks]]\nattacker = "a"\ntarget = "t"\nconcealed = true\nexposed = 5\n'
    )
    res = CliRunner().invoke(app, ["simulate", str(path), "-n", "100"])
    assert res.exit_code == 2, res.output
    assert "attacks[0].exposed" in res.output and "Traceback" not in res.output


# -- 3. secondary combatants retaliate alongside the target --------------------------------------
SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)


def _tank_with_escort(rule: str) -> ArmouredClashScenario:
    """Infantry charge a tank (no MELEE score, DEFENCE 50: no damage) with a 2-model infantry
    escort in contact; every die strikes."""
    att = Unit("att", side="attacker", models=4, defence=1, discipline=10,
               armaments=Armaments(melee=(1, 2, 3, 4)))  # fmt: skip
    tank = Unit("tank", type="armour", category="heavy", models=2, defence=50, discipline=10)
    esc = Unit("esc", models=2, defence=1, discipline=10, armaments=Armaments(melee=(1, 2)))
    sit = Situation(secondary=("esc",))
    return ArmouredClashScenario(
        (att, tank, esc),
        (Attack("att", "tank", kind="close", situation=sit),),
        die=SURE,
        focus="att",
        rules=Rules(secondary_retaliation=rule),
    )


def test_secondaries_do_not_retaliate_when_the_target_cannot():
    """The tank makes no retaliatory attack, so the escort has none to join: nobody loses a
    model, a stalemate. With secondary_retaliation = "always" the escort's 2 strikes kill 2
    chargers and the defender side wins."""
    out = simulate(_tank_with_escort("with_target"), trials=500, seed=71)
    assert out.prob("close_quarters_stalemate") == 1
    assert out.prob("attacker_models_lost", 0) == 1
    assert "hits_on_attacker" not in out.counts  # nothing can strike the charger
    old = simulate(_tank_with_escort("always"), trials=500, seed=71)
    assert old.prob("defender_won_close_quarters") == 1
    assert old.prob("attacker_models_lost", 2) == 1


def test_show_says_the_secondary_has_no_retaliation_to_join():
    step = _tank_with_escort("with_target").resolved()["step 1: att → tank (close quarters)"]
    assert step["retaliation: esc (secondary combatant)"].startswith("none (the target has no")
    step = _tank_with_escort("always").resolved()["step 1: att → tank (close quarters)"]
    assert step["retaliation: esc (secondary combatant)"].startswith("dice 2")


def test_secondary_retaliation_is_read_from_the_rules_table():
    d = _ranged_file(5)
    d["rules"] = {"secondary_retaliation": "always"}
    assert from_dict(d).rules.secondary_retaliation == "always"
    d["rules"] = {"secondary_retaliation": "never"}
    with pytest.raises(ScenarioError, match=r"rules\.secondary_retaliation"):
        from_dict(d, source="bad.toml")


# -- 2. "cannot be suppressed": opportunity fire's target and aircraft ---------------------------
def _opportunity_fire(rule: str, **target) -> ArmouredClashScenario:
    """y's opportunity fire (one die that always strikes) kills one model of x; every card
    of x's side is a 10, so any test it takes fails."""
    kw = {"models": 6, "defence": 1, "discipline": 5, **target}
    x = Unit("x", side="attacker", **kw)
    y = Unit("y", models=1, defence=1, discipline=10,
             armaments=Armaments(ranged=(RangedAttack("gun", dice=(1,), vs=CATEGORIES),)))  # fmt: skip
    opp = Attack("y", "x", situation=Situation(opportunity_fire=True))
    return ArmouredClashScenario(
        (x, y),
        (opp,),
        die=SURE,
        decks={"attacker": (10,)},
        rules=Rules(cannot_be_suppressed=rule),
    )


def test_opportunity_fire_target_takes_no_test():
    """Default reading: no suppression test, so a suppressed target cannot fall back and one
    at its BREAK LIMIT cannot break."""
    sc = _opportunity_fire("no_test", suppressed=True, fall_back_losses=1)
    assert "attacker_fell_back" not in [s.name for s in sc.stats()]
    out = simulate(sc, trials=300, seed=72)
    assert out.prob("attacker_models_lost", 1) == 1
    sc = _opportunity_fire("no_test", models=2, break_limit=1)
    assert simulate(sc, trials=300, seed=72).prob("attacker_annihilated") == 0


def test_opportunity_fire_target_tests_without_the_status():
    """cannot_be_suppressed = "no_status": the failed test falls a suppressed unit back (one
    more model lost), breaks a unit at its BREAK LIMIT, and leaves an unsuppressed one
    unsuppressed."""
    out = simulate(
        _opportunity_fire("no_status", suppressed=True, fall_back_losses=1), trials=300, seed=73
    )
    assert out.prob("attacker_fell_back") == 1 and out.prob("attacker_models_lost", 2) == 1
    out = simulate(_opportunity_fire("no_status", models=2, break_limit=1), trials=300, seed=73)
    assert out.prob("attacker_broke") == 1
    out = simulate(_opportunity_fire("no_status"), trials=300, seed=73)
    assert out.prob("attacker_suppressed") == 0 and out.prob("attacker_models_lost", 1) == 1


def test_aircraft_cannot_be_suppressed_either_way():
    """An aircraft at its BREAK LIMIT: it never tests by default; with "no_status" it tests
    (a fail breaks it) but is never suppressed."""
    plane = {"type": "aircraft", "category": "aerial", "models": 2, "break_limit": 1}
    sc = _opportunity_fire("no_test", **plane)
    assert "attacker_broke" not in [s.name for s in sc.stats()]
    assert simulate(sc, trials=300, seed=74).prob("attacker_annihilated") == 0
    out = simulate(_opportunity_fire("no_status", **plane), trials=300, seed=74)
    assert out.prob("attacker_broke") == 1


def test_show_says_whether_opportunity_fire_tests():
    step = "step 1: y → x (ranged attack)"
    text = _opportunity_fire("no_test").resolved()[step]["suppression test"]
    assert text.startswith("no (opportunity fire")
    text = _opportunity_fire("no_status").resolved()[step]["suppression test"]
    assert "does not suppress it" in text


# -- 4. a reload weapon makes the unit reloading (assumption) ------------------------------------
def test_second_reload_shot_is_rejected_as_reloading():
    d = _ranged_file(4)
    d["units"]["a"]["ranged"][0]["reload"] = True
    d["attacks"].append({"attacker": "a", "target": "t", "new_activation": True})
    with pytest.raises(ScenarioError, match=r"attacks\[1\]\.weapon: .*earlier in the sequence"):
        from_dict(d, source="bad.toml")
    d["attacks"].pop()
    d["units"]["a"]["reloading"] = True
    with pytest.raises(ScenarioError, match=r"attacks\[0\]\.weapon: 'a' is reloading"):
        from_dict(d, source="bad.toml")


# -- 5. on lookout is used once: opportunity fire ends it ----------------------------------------
def _two_opportunity_fires(second: dict) -> dict:
    d = _ranged_file(4)
    d["units"]["t"]["ranged"] = [{"name": "rifles", "dice": [1, 2, 3, 4]}]
    d["attacks"] = [
        {"attacker": "t", "target": "a", "opportunity_fire": True},
        {"attacker": "a", "target": "t"},
        {"new_activation": True, **second},
    ]
    return d


def test_second_opportunity_fire_by_one_unit_is_rejected():
    """'t' loses on lookout when it opportunity fires; going on lookout again is a special
    action instead of an attack, which a sequence does not hold (as for re-arm)."""
    d = _two_opportunity_fires({"attacker": "t", "target": "a", "opportunity_fire": True})
    want = r"bad\.toml: attacks\[2\]\.opportunity_fire: 't' made opportunity fire earlier"
    with pytest.raises(ScenarioError, match=want):
        from_dict(d, source="bad.toml")
    # its own later attack, or another unit's opportunity fire, is fine
    from_dict(_two_opportunity_fires({"attacker": "t", "target": "a"}))
    d = _two_opportunity_fires({"attacker": "u", "target": "a", "opportunity_fire": True})
    d["units"]["u"] = {**d["units"]["t"]}
    from_dict(d)


def test_second_opportunity_fire_is_a_cli_input_error(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    path = tmp_path / "lookout-twice.toml"
    path.write_text(
        'ruleset = "armoured-clash"\n'
        '[units.a]\nside = "attacker"\nmodels = 4\ndefence = 1\ndiscipline = 6\n'
        '[[units.a.ranged]]\nname = "rifles"\ndice = [1, 2, 3, 4]\n'
        '[units.t]\nside = "defender"\nmodels = 4\ndefence = 1\ndiscipline = 6\n'
        '[[units.t.ranged]]\nname = "rifles"\ndice = [1, 2, 3, 4]\n'
        '[[attacks]]\nattacker = "t"\ntarget = "a"\nopportunity_fire = true\nrepeat = 2\n'
    )
    res = CliRunner().invoke(app, ["simulate", str(path), "-n", "100"])
    assert res.exit_code == 2, res.output
    assert "lookout-twice.toml: attacks[0].opportunity_fire: 't' made opportunity fire" in (
        " ".join(res.output.split())
    )
    assert "Traceback" not in res.output


# -- 6. a retaliation that annihilates: the action ends, or step 4 all the same ------------------
def _pyrrhic(rule: str, **charger) -> ArmouredClashScenario:
    """Worked by hand with a die that always strikes: a 3-model charger (DEFENCE 1,
    DISCIPLINE 0, one melee die per model) crosses difficult terrain into a 1-model target
    (two melee dice). The target strikes first: 2 hits, 2 chargers lost; the last one
    strikes: 1 hit, the target is annihilated. Models destroyed: 1 by the charger, 2 by the
    target."""
    c = Unit("c", side="attacker", models=3, defence=1, discipline=0, vp=4,
             armaments=Armaments(melee=(1, 2, 3)), **charger)  # fmt: skip
    t = Unit("t", models=1, defence=1, discipline=10, vp=3, armaments=Armaments(melee=(2,)))
    sit = Situation(defensive_advantage=True)
    return ArmouredClashScenario(
        (c, t),
        (Attack("c", "t", kind="close", situation=sit),),
        die=SURE,
        focus="c",
        rules=Rules(retaliation_annihilates=rule),
    )


def test_charger_annihilating_the_target_ends_the_action():
    """Default: "The action ends if the target unit is annihilated": no step 4, so the
    charger, the unit left, counts as the winner; it neither withdraws nor tests."""
    out = simulate(_pyrrhic("action_ends"), trials=300, seed=81)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.prob("attacker_models_lost", 2) == 1 and out.prob("attacker_models_lost", 3) == 0
    assert out.prob("attacker_suppressed") == 0
    assert out.mean("attacker_vp") == 3


@pytest.mark.parametrize("break_limit", [None, 1])
def test_charger_annihilating_the_target_can_still_lose(break_limit):
    """retaliation_annihilates = "most_kills": step 4 decides by models destroyed (1 < 2),
    so the target's side wins; the charger withdraws and tests at DISCIPLINE 0 - 1 (it lost
    at least half its models): every card fails. It becomes suppressed, or at its BREAK
    LIMIT of 1 it breaks (and the defender scores its 4 VPs)."""
    out = simulate(_pyrrhic("most_kills", break_limit=break_limit), trials=300, seed=82)
    assert out.prob("defender_won_close_quarters") == 1
    assert out.mean("attacker_vp") == 3  # the target is annihilated all the same
    if break_limit is None:
        assert out.prob("attacker_suppressed") == 1 and out.prob("attacker_annihilated") == 0
        assert out.prob("attacker_models_lost", 2) == 1 and out.prob("attacker_models_lost", 3) == 0
    else:
        assert out.prob("attacker_broke") == 1 and out.mean("defender_vp") == 4


def _charger_wiped_out(rule: str) -> ArmouredClashScenario:
    """No defensive advantage: a 2-model charger (3 dice) destroys 3 of a 5-model target
    (DISCIPLINE 0, 1 model lost on withdrawing); the 2 left retaliate with 4 dice and
    annihilate the charger. Models destroyed: 3 by the charger, 2 by the target."""
    c = Unit("c", side="attacker", models=2, defence=1, discipline=10,
             armaments=Armaments(melee=(2, 3)))  # fmt: skip
    t = Unit("t", models=5, defence=1, discipline=0, withdraw_losses=1,
             armaments=Armaments(melee=(2, 4, 4, 4, 4)))  # fmt: skip
    return ArmouredClashScenario(
        (c, t),
        (Attack("c", "t", kind="close"),),
        die=SURE,
        rules=Rules(retaliation_annihilates=rule),
    )


def test_retaliation_annihilating_the_charger_under_either_reading():
    """The same reading applies to the target's retaliation: by default the action ends
    (the target wins, untested); with "most_kills" the charger's side wins on models
    destroyed, and the target withdraws (one more model lost) and fails its test."""
    out = simulate(_charger_wiped_out("action_ends"), trials=300, seed=83)
    assert out.prob("defender_won_close_quarters") == 1
    assert out.prob("defender_models_lost", 3) == 1 and out.prob("defender_models_lost", 4) == 0
    assert out.prob("defender_suppressed") == 0
    out = simulate(_charger_wiped_out("most_kills"), trials=300, seed=83)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.prob("defender_models_lost", 4) == 1 and out.prob("defender_models_lost", 5) == 0
    assert out.prob("defender_suppressed") == 1


# -- 7. secondary combatants under a defensive advantage -----------------------------------------
def _advantage_with_secondary(rule: str) -> ArmouredClashScenario:
    """A 4-model charger (DEFENCE 1, one melee die per model) crosses difficult terrain into
    a 4-model target (DEFENCE 2, one melee die) with a secondary combatant (two melee dice).
    Every die strikes."""
    c = Unit("c", side="attacker", models=4, defence=1, discipline=10,
             armaments=Armaments(melee=(1, 2, 3, 4)))  # fmt: skip
    t = Unit("t", models=4, defence=2, discipline=10, armaments=Armaments(melee=(1, 1, 1, 1)))
    s = Unit("s", models=2, defence=1, discipline=10, armaments=Armaments(melee=(2, 2)))
    sit = Situation(defensive_advantage=True, secondary=("s",))
    return ArmouredClashScenario(
        (c, t, s),
        (Attack("c", "t", kind="close", situation=sit),),
        die=SURE,
        focus="t",
        rules=Rules(secondaries_with_advantage=rule),
    )


def test_secondaries_strike_with_the_target_under_a_defensive_advantage():
    """Default: they strike "at the same time that the target of the charge does", first:
    1 + 2 hits, 3 chargers lost; the last one's 1 hit on DEFENCE 2 does nothing."""
    out = simulate(_advantage_with_secondary("with_target"), trials=300, seed=84)
    assert out.prob("attacker_models_lost", 3) == 1 and out.prob("attacker_models_lost", 4) == 0
    assert out.prob("defender_models_lost", 0) == 1
    assert out.prob("defender_won_close_quarters") == 1


def test_secondaries_strike_after_the_charger_under_the_other_reading():
    """secondaries_with_advantage = "after_charger": the target strikes alone (1 charger
    lost), the 3 chargers left strike (3 hits on DEFENCE 2: 1 of the target lost), then the
    secondary (2 hits: 2 more chargers lost)."""
    out = simulate(_advantage_with_secondary("after_charger"), trials=300, seed=84)
    assert out.prob("attacker_models_lost", 3) == 1 and out.prob("attacker_models_lost", 4) == 0
    assert out.prob("defender_models_lost", 1) == 1 and out.prob("defender_models_lost", 2) == 0
    assert out.prob("defender_won_close_quarters") == 1


def test_show_and_file_name_the_close_quarters_readings():
    step = "step 1: c → t (close quarters)"
    shown = _advantage_with_secondary("with_target").resolved()
    assert shown[step]["secondary combatants strike"] == "with the target, first"
    assert shown["rules"]["a retaliation annihilates the unit it strikes"].startswith(
        "the action ends"
    )
    shown = _advantage_with_secondary("after_charger").resolved()
    assert shown[step]["secondary combatants strike"].startswith("after the charger")
    d = _ranged_file(5)
    d["rules"] = {
        "retaliation_annihilates": "most_kills",
        "secondaries_with_advantage": "after_charger",
    }
    rules = from_dict(d).rules
    assert (rules.retaliation_annihilates, rules.secondaries_with_advantage) == (
        "most_kills",
        "after_charger",
    )
    for key in ("retaliation_annihilates", "secondaries_with_advantage"):
        d["rules"] = {key: "sometimes"}
        with pytest.raises(ScenarioError, match=rf"bad\.toml: rules\.{key}: "):
            from_dict(d, source="bad.toml")
