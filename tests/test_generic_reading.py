"""Generic scenario files and the Python API: keys, errors naming the key, resolved(), WARMUP,
primary statistic, reported statistics, determinism across thread counts."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from oddslab import GenericScenario, Rules, ScenarioError, Target, Weapon, from_dict, simulate
from oddslab.rulesets.generic import WARMUP

BASE = {
    "ruleset": "generic",
    "attacker": {"weapons": [{"attacks": 2, "models": 10, "skill": 3, "strength": 4, "ap": 1}]},
    "target": {"models": 10, "toughness": 3, "save": 5},
}


def with_keys(weapon=None, target=None, rules=None) -> dict:
    d = {
        "ruleset": "generic",
        "attacker": {"weapons": [{**BASE["attacker"]["weapons"][0], **(weapon or {})}]},
        "target": {**BASE["target"], **(target or {})},
    }
    if rules is not None:
        d["rules"] = rules
    return d


def test_every_new_key_is_read():
    sc = from_dict(
        with_keys(
            weapon={
                "damage": "D6+1",
                "reroll_damage": "ones",
                "devastating_wounds": True,
                "critical_extra_attacks": "D3",
                "critical_hit_mortals": 1,
                "critical_hit_mortals_instead": True,
                "critical_wound_mortals": "D3",
                "critical_wound_ap": 1,
                "critical_wound_damage": 2,
                "anti": {"Infantry": 4},
            },
            target={
                "keywords": ["Infantry", "Battleline"],
                "save_modifier": -1,
                "reroll_saves": "ones",
                "reroll_invulnerable": "failed",
                "invulnerable": 5,
                "ignore_ap": True,
                "ap_reduction": 1,
                "damage_reduction": 1,
                "halve_damage": True,
                "feel_no_pain_mortal": 5,
                "feel_no_pain": 6,
            },
            rules={
                "devastating_wounds": "legacy",
                "modifier_cap": False,
                "stack_feel_no_pain": True,
                "damage_modifiers_on_devastating": False,
            },
        )
    )
    w, t, r = sc.weapons[0], sc.target, sc.rules
    assert w.reroll_damage == "ones" and str(w.critical_extra_attacks) == "D3"
    assert w.critical_hit_mortals_instead and str(w.critical_wound_mortals) == "D3"
    assert (w.critical_wound_ap, w.critical_wound_damage, w.anti) == (1, 2, (("infantry", 4),))
    assert t.keywords == ("infantry", "battleline") and t.save_modifier == -1
    assert (t.reroll_saves, t.reroll_invulnerable, t.ignore_ap, t.ap_reduction) == (
        "ones",
        "failed",
        True,
        1,
    )
    assert (t.damage_reduction, t.halve_damage, t.feel_no_pain_mortal) == (1, True, 5)
    assert r == Rules(
        devastating_wounds="legacy",
        modifier_cap=False,
        stack_feel_no_pain=True,
        damage_modifiers_on_devastating=False,
    )


@pytest.mark.parametrize(
    ("doc", "key"),
    [
        (with_keys(weapon={"reroll_damage": "twos"}), "attacker.weapons[0].reroll_damage"),
        (with_keys(weapon={"anti": {"infantry": 7}}), "attacker.weapons[0].anti.infantry"),
        (with_keys(weapon={"anti": 4}), "attacker.weapons[0].anti"),
        (with_keys(weapon={"critical_wound_ap": -1}), "attacker.weapons[0].critical_wound_ap"),
        (with_keys(weapon={"reroll_damage": "ones", "damage": 2}), "attacker.weapons[0]"),
        (
            with_keys(weapon={"devastating_wounds": True, "critical_wound_mortals": 1,
                              "critical_wound_mortals_instead": True}),
            "attacker.weapons[0]",
        ),
        (with_keys(target={"reroll_saves": "all"}), "target.reroll_saves"),
        (with_keys(target={"keywords": [1]}), "target.keywords"),
        (with_keys(target={"feel_no_pain_mortal": 1}), "target.feel_no_pain_mortal"),
        (with_keys(rules={"devastating_wounds": "new"}), "rules.devastating_wounds"),
        (with_keys(rules={"modifer_cap": False}), "rules.modifer_cap"),
        (with_keys(weapon={"damage": 10**12}), "attacker.weapons[0].damage"),
        (with_keys(weapon={"attacks": "D6+100"}), "attacker.weapons[0].attacks"),
        # switches that need a partner (issue 28): rejected, never silently ignored
        (with_keys(weapon={"critical_hit_mortals_instead": True}), "attacker.weapons[0]"),
        (with_keys(weapon={"critical_wound_mortals_instead": True}), "attacker.weapons[0]"),
        (with_keys(target={"reroll_invulnerable": "ones"}), "target"),
        (with_keys(target={"feel_no_pain": 5}, rules={"stack_feel_no_pain": True}),
         "rules.stack_feel_no_pain"),
        (with_keys(rules={"damage_modifiers_on_devastating": False}),
         "rules.damage_modifiers_on_devastating"),
    ],
)  # fmt: skip
def test_bad_input_names_the_key(doc, key):
    with pytest.raises(ScenarioError) as err:
        from_dict(doc, source="bad.toml")
    assert err.value.key == key, str(err.value)
    assert "bad.toml" in str(err.value)


def test_weapon_models_zero_and_single_weapon():
    """A sweep may start at 0 models; one Weapon where a tuple is expected is accepted."""
    sc = GenericScenario(Weapon(models=0, attacks=3), Target(models=2))
    assert sc.weapons == (Weapon(models=0, attacks=3),)
    out = simulate(sc, trials=10_000, seed=1)
    assert out.counts["attacks"][0] == 10_000
    assert from_dict(with_keys(weapon={"models": 0})).weapons[0].models == 0
    with pytest.raises(ValueError, match="Weapon"):
        GenericScenario(("not a weapon",), Target())


def test_resolved_shows_derived_rolls_and_defaults():
    sc = from_dict(
        {
            "ruleset": "generic",
            "attacker": {"weapons": [{"name": "bolt rifle", "attacks": 2, "models": 10,
                                      "skill": 3, "strength": 4, "ap": 1, "damage": "D3+1"}]},
            "target": {"models": 10, "toughness": 3, "save": 3},
        }
    )  # fmt: skip
    res = sc.resolved()
    assert list(res) == ["weapon 1: bolt rifle", "target: target", "rules"]
    w = res["weapon 1: bolt rifle"]
    assert w["attacks"] == "2 per model × 10 models"
    assert w["hit"] == "3+"
    assert w["wound"] == "3+ (S4 vs T3)"
    assert w["save"] == "4+ (3+ armour, AP −1)"
    assert w["damage"] == "D3+1"
    assert w["hit re-rolls"] == "none (default)"
    assert res["target: target"]["feel no pain"] == "— (default)"
    assert res["rules"]["devastating wounds rule"] == "current (default)"
    for section in res.values():
        assert all(isinstance(v, str | int | float | bool) for v in section.values())


def test_resolved_mentions_caps_anti_and_invulnerable():
    sc = GenericScenario(
        (Weapon(skill=3, hit_modifier=-2, strength=3, anti={"infantry": 4}, ap=3),),
        Target(toughness=4, save=4, invulnerable=5, keywords=("infantry",)),
    )
    w = sc.resolved()["weapon 1: weapon"]
    assert w["hit"] == "3+ (modifier −1, capped from −2)"
    assert w["critical wounds"] == "4+ (anti-infantry 4+ against this target)"
    assert w["save"] == "5+ (5+ invulnerable)"


def test_warmup_compiles_and_runs():
    out = simulate(from_dict(WARMUP), trials=1, seed=1)
    assert sum(out.counts["attacks"]) == 1


def test_primary_headlines_and_reported_stats():
    big = GenericScenario((Weapon(attacks=3, damage="D6"),), Target(models=1, wounds=12))
    job = big.compile()
    assert job.meta["primary"] == "damage_dealt"
    assert job.ruleset == "generic"
    assert [h.label for h in job.headlines] == [
        "P(target loses at least 1 wound)",
        "P(target loses at least 6 wounds)",
        "P(target model destroyed)",
    ]
    names = [s.name for s in job.stats]
    assert "mortal_wounds" not in names  # nothing can inflict mortal wounds
    assert all("_" not in s.title for s in job.stats)
    squad = GenericScenario((Weapon(critical_hit_mortals=1),), Target(models=10)).compile()
    assert squad.meta["primary"] == "models_slain"
    assert "mortal_wounds" in [s.name for s in squad.stats]
    # a devastating wound's damage is mortal wounds under the legacy rule only
    dev = (Weapon(devastating_wounds=True),)
    legacy = GenericScenario(dev, Target(models=10), Rules(devastating_wounds="legacy"))
    assert "mortal_wounds" in [s.name for s in legacy.stats()]
    assert "mortal_wounds" not in [s.name for s in GenericScenario(dev, Target()).stats()]
    assert dict((s.name, s.title) for s in squad.stats)["models_slain"] == "target models slain"
    # 2 attacks of at most 3 damage cannot slay a 10-wound model: no models_slain, destroyed
    small = GenericScenario((Weapon(attacks=2, damage="D3"),), Target(models=3, wounds=10))
    job = small.compile()
    assert {"models_slain", "destroyed"}.isdisjoint(s.name for s in job.stats)
    assert job.meta["primary"] == "damage_dealt"
    assert [h.stat for h in job.headlines] == ["damage_dealt", "damage_dealt"]
    assert set(small.exact_pmfs()) == {s.name for s in job.stats}


_SCRIPT = """
import hashlib
from oddslab import GenericScenario, Rules, Target, Weapon, simulate
sc = GenericScenario(
    (Weapon(models=4, attacks="D3", skill=3, critical_wound=5, devastating_wounds=True,
            damage="D3", critical_hit_mortals=1, reroll_damage="ones", sustained_hits="D3"),
     Weapon(models=3, attacks=2, strength=5, ap=1, damage=2, critical_wound_ap=1)),
    Target(models=5, wounds=3, toughness=4, save=3, feel_no_pain=6, feel_no_pain_mortal=5),
)
out = simulate(sc, trials=300_000, seed=77)
h = hashlib.sha256()
for k in sorted(out.counts):
    h.update(out.counts[k].tobytes())
print(h.hexdigest())
"""


def test_bit_identical_across_thread_counts(root):
    digests = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": str(root)}
        res = subprocess.run(
            [sys.executable, "-c", _SCRIPT], env=env, capture_output=True, text=True, check=True
        )
        digests.append(res.stdout.strip())
    assert digests[0] == digests[1] and len(digests[0]) == 64


def test_exact_gives_allocation_or_none_when_too_large():
    small = GenericScenario((Weapon(models=5, attacks=2),), Target(models=5, wounds=2))
    assert "models_slain" in small.exact_pmfs()
    huge = GenericScenario((Weapon(models=200, attacks="2D6", devastating_wounds=True),),
                           Target(models=400, wounds=3))  # fmt: skip
    pmfs = huge.exact_pmfs()
    assert "models_slain" not in pmfs and "hits" in pmfs
    assert np.isclose(pmfs["hits"].sum(), 1.0)
