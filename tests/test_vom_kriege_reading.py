"""Vom Kriege scenario files: every example loads; bad input is one ScenarioError naming the
file and the key path."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from oddslab.rulesets.vom_kriege import WARMUP, WARMUP_COMMAND, CommandScenario
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.scenario import ScenarioError, from_dict, load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "oddslab" / "examples").glob("vom-kriege-*.toml"))


def test_there_are_three_kinds_of_example():
    names = [p.stem for p in EXAMPLES]
    assert len(names) >= 3
    kinds = [load(p) for p in EXAMPLES]
    assert any(isinstance(k, CommandScenario) for k in kinds)
    assert any(isinstance(k, VomKriegeScenario) for k in kinds)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_load_and_explain(path):
    sc = load(path)
    res = sc.resolved()
    assert res and all(isinstance(v, dict) for v in res.values())
    for section in res.values():
        for k, v in section.items():
            assert isinstance(k, str) and k
            assert isinstance(v, str | int | float | bool)


def test_warmups_load():
    """The warm-ups read into what they say: three units on their sides, one melee with its
    follow-up; two command points and one assault order on the six command-dice faces."""
    sc = from_dict(WARMUP)
    assert isinstance(sc, VomKriegeScenario)
    assert [(u.name, u.side, u.troop, u.kind) for u in sc.units] == [
        ("hussars", "attacker", "cavalry", "heavy"),
        ("line", "defender", "infantry", ""),
        ("guns", "defender", "artillery", ""),
    ]
    assert [(a.kind, a.actor, a.target, a.follow_up) for a in sc.actions] == [
        ("melee", "hussars", "line", "guns")
    ]
    cmd = from_dict(WARMUP_COMMAND)
    assert isinstance(cmd, CommandScenario)
    assert cmd.cp == 2 and [o.order for o in cmd.orders] == ["assault"]
    assert sorted(cmd.dice.faces) == sorted(
        ("infantry", "infantry", "cavalry", "artillery", "saber", "flag")
    )


def _bad(mutate, key: str, words: str = ""):
    data = copy.deepcopy(WARMUP)
    mutate(data)
    with pytest.raises(ScenarioError) as err:
        from_dict(data, source="x.toml")
    assert err.value.source == "x.toml"
    assert err.value.key == key, str(err.value)
    assert words in err.value.problem


def test_unknown_troop():
    _bad(lambda d: d["units"]["line"].update(troop="dragoon"), "units.line.troop", "one of")


def test_kind_not_of_its_troop():
    _bad(lambda d: d["units"]["line"].update(kind="heavy"), "units.line.kind", "infantry")


def test_open_order_needs_light_infantry():
    _bad(lambda d: d["units"]["line"].update(formation="open_order"), "units.line.formation")


def test_cavalry_square_refused():
    _bad(lambda d: d["units"]["hussars"].update(formation="square"), "units.hussars.formation")


def test_hits_above_strength():
    _bad(lambda d: d["units"]["guns"].update(hits=4), "units.guns.hits", "strength")


def test_typo_in_unit_key():
    _bad(lambda d: d["units"]["line"].update(qualty="elite"), "units.line.qualty", "quality")


def test_unknown_actor():
    _bad(lambda d: d["actions"][0].update(actor="uhlans"), "actions[0].actor", "uhlans")


def test_target_must_defend():
    def m(d):
        d["units"]["line"]["side"] = "attacker"

    _bad(m, "actions[0].target", "defending")


def test_cavalry_cannot_shoot():
    def m(d):
        d["actions"][0] = {"kind": "shoot", "actor": "hussars", "target": "line"}

    _bad(m, "actions[0].actor", "cannot shoot")


def test_range_beyond_24():
    def m(d):
        d["actions"][0] = {"kind": "shoot", "actor": "hussars", "target": "line", "range": 30}

    _bad(m, "actions[0].range", "24")


def test_infantry_cannot_follow_up():
    def m(d):
        d["units"]["hussars"] = {"side": "attacker", "troop": "infantry"}

    _bad(m, "actions[0].follow_up", "cavalry")


def test_bad_reaction():
    _bad(lambda d: d["actions"][0].update(reaction="flee"), "actions[0].reaction", "one of")


def test_disordered_attacker_cannot_melee():
    _bad(lambda d: d["units"]["hussars"].update(disordered=True), "actions[0].actor", "disordered")


def test_battery_must_be_defending_artillery():
    _bad(
        lambda d: d["actions"][0].update(batteries=[{"unit": "line"}]),
        "actions[0].batteries[0].unit",
        "artillery",
    )


def test_unknown_leader():
    _bad(lambda d: d["units"]["line"].update(leader="Blucher"), "units.line.leader", "Blucher")


def test_bad_rule_switch():
    _bad(lambda d: d.update(rules={"halving": "sometimes"}), "rules.halving", "after")


def test_melee_reading_switches():
    data = copy.deepcopy(WARMUP)
    data["rules"] = {
        "square_battle_back": "extra_half",
        "rough_charge": "stopped",
        "skirmish_target": "either",
        "order_support_row": "largest",
        "retire_follow_up": "cavalry",
        "retiring_cavalry_disordered": False,
        "blocked_retreat_disorders": True,
        "cavalry_square_flags": "ignore",
        "cavalry_square_sabers": "attacking",
    }
    r = from_dict(data).rules
    assert (r.square_battle_back, r.rough_charge, r.skirmish_target) == (
        "extra_half",
        "stopped",
        "either",
    )
    assert r.order_support_row == "largest" and r.retire_follow_up == "cavalry"
    assert not r.retiring_cavalry_disordered and r.blocked_retreat_disorders
    assert r.cavalry_square_flags == "ignore" and r.cavalry_square_sabers == "attacking"
    _bad(lambda d: d.update(rules={"square_battle_back": "full"}), "rules.square_battle_back")
    _bad(
        lambda d: d.update(rules={"cavalry_square_sabers": "never"}),
        "rules.cavalry_square_sabers",
        "always, attacking",
    )
    _bad(
        lambda d: d.update(rules={"retiring_cavalry_disordered": "yes"}),
        "rules.retiring_cavalry_disordered",
        "true or false",
    )


def test_infantry_follow_up_only_after_a_retire():
    def m(d):
        d["units"]["hussars"] = {"side": "attacker", "troop": "infantry"}
        d["units"]["guns"] = {"side": "defender", "troop": "cavalry"}
        d["actions"][0].update(target="guns", reaction="retire", follow_up="line")

    assert from_dict(_mutated(m)).actions[0].follow_up == "line"
    _bad(
        lambda d: (m(d), d.update(rules={"retire_follow_up": "cavalry"})),
        "actions[0].follow_up",
        "only cavalry",
    )


def _mutated(mutate):
    data = copy.deepcopy(WARMUP)
    mutate(data)
    return data


def test_bad_die_face():
    _bad(lambda d: d.update(dice={"faces": ["infantry", "eagle"]}), "dice.faces", "eagle")


def test_unit_battles_once():
    def m(d):
        d["actions"].append({"kind": "melee", "actor": "hussars", "target": "guns"})

    _bad(m, "actions[1].actor", "once")


def _bad_command(mutate, key: str, words: str = ""):
    data = copy.deepcopy(WARMUP_COMMAND)
    mutate(data)
    with pytest.raises(ScenarioError) as err:
        from_dict(data, source="c.toml")
    assert err.value.key == key, str(err.value)
    assert words in err.value.problem


def test_command_bad_inputs():
    _bad_command(lambda d: d["command"].update(cp=9), "command.cp")
    _bad_command(lambda d: d["command"].update(units=4), "command.cp", "not both")
    _bad_command(lambda d: d["command"].update(leader_quality="L5"), "command.leader_quality")
    _bad_command(
        lambda d: d["command"]["orders"][0].update(order="charge"), "command.orders[0].order"
    )
    _bad_command(
        lambda d: d["command"]["orders"][0].update(order="rally", double=True),
        "command.orders[0].double",
    )
    _bad_command(lambda d: d.update(kind="battle"), "kind", "combat")
    # the switch was a boolean: say what each old value is called now
    _bad_command(lambda d: d["command"].update(saber_wild=True), "command.saber_wild", "any_symbol")
    _bad_command(lambda d: d["command"].update(saber_wild="yes"), "command.saber_wild", "order")


def test_command_saber_reading():
    data = copy.deepcopy(WARMUP_COMMAND)
    assert from_dict(data).saber_wild == "order"
    data["command"]["saber_wild"] = "any_symbol"
    sc = from_dict(data)
    assert sc.saber_wild == "any_symbol"
    assert "half of a doubled order" in sc.resolved()["rules"]["a saber stands for"]


def test_command_pair_substitution_switch():
    data = copy.deepcopy(WARMUP_COMMAND)
    assert from_dict(data).pair_substitution is True
    data["command"]["pair_substitution"] = False
    sc = from_dict(data)
    assert sc.pair_substitution is False
    assert sc.resolved()["rules"]["pairs swapped for a die of choice"] == "no (switched off)"
    _bad_command(lambda d: d["command"].update(pair_substitution="no"), "command.pair_substitution")


def test_command_cp_from_units():
    data = copy.deepcopy(WARMUP_COMMAND)
    del data["command"]["cp"]
    data["command"].update(units=7, bonus=1, leader_hits=1)
    sc = from_dict(data)
    assert sc.cp == 4  # min(4, 4) + 1 - 1
    assert "base CP" in sc.resolved()["command points"]


def test_unit_library_entries_are_valid_units():
    import tomllib

    lib = tomllib.loads((ROOT / "oddslab/examples/libraries/vom-kriege.toml").read_text())
    assert lib["ruleset"] == "vom-kriege"
    entries = lib["units"]
    assert len(entries) >= 10
    template = lib["matchup"]["template"]
    for att in ("cuirassiers", "line_infantry"):
        for tgt in ("line_infantry", "foot_battery_12pdr"):
            data = copy.deepcopy(template)
            for key, name in (("attacker", att), ("target", tgt)):
                unit = data["units"][key]
                assert unit.pop("use") == "{" + key + "}"
                merged = {k: v for k, v in entries[name].items() if k != "points"}
                unit.update({**merged, **unit})
            data["name"] = data["name"].format(attacker=att, target=tgt)
            sc = from_dict(data)
            assert isinstance(sc, VomKriegeScenario)


def test_a_square_may_initiate_melee():
    """The text bars only artillery and disordered units from initiating melee ("Squares in
    melee - unit has a strength of 1"), so a square attacking cavalry in contact is read."""
    data = copy.deepcopy(WARMUP)
    data["units"]["line"].update(side="attacker", formation="square")
    data["units"]["hussars"].update(side="defender")
    data["actions"] = [{"kind": "melee", "actor": "line", "target": "hussars"}]
    sc = from_dict(data)
    assert sc.resolved()["action 1: line melees hussars"][
        "attacker's melee dice (before reactions)"
    ]
