"""Per-trial records of the generic kernels (issue 29): every kind of generic job (the lean and
the full single-profile kernel, the mixed-unit kernel; every statistic layout: with and without
``mortal_wounds``, ``models_slain``, ``destroyed``, the Hazardous pair, group rows and
``leader_slain``) keeps the contract of :func:`records_check.check_records`."""

from __future__ import annotations

import numpy as np
import pytest
from records_check import check_records

from oddslab import GenericScenario, Rules, Target, Weapon
from oddslab.rulesets.generic import ModelGroup, Situation
from oddslab.rulesets.generic.kernel import run_generic, run_generic_lean
from oddslab.rulesets.generic.kernel_mixed import run_generic_mixed

RIFLE = Weapon(name="rifle", models=5, attacks=2, skill=3, strength=4, ap=1)
PLASMA = Weapon(name="plasma", models=3, attacks=2, skill=3, strength=7, ap=2, damage="D3+1",
                devastating_wounds=True)  # fmt: skip
UNIT = Target(toughness=4, save=3, groups=(
    ModelGroup("bodyguard", models=5, wounds=2),
    ModelGroup("leader", wounds=4, invulnerable=4, character=True),
))  # fmt: skip

#: name -> (scenario, the kernel its job must use); each a different kernel path or layout
CASES = {
    # lean kernel, fixed damage in closed form; no mortal_wounds row
    "identical": (GenericScenario((RIFLE,), Target(models=10, save=4)), run_generic_lean),
    # one model: models_slain and destroyed may drop out of the layout
    "one-model": (GenericScenario((RIFLE,), Target(models=1, wounds=12, save=3)), run_generic_lean),
    # dice damage, feel-no-pain, current-rule devastating wounds (the queued last pass)
    "fnp-devastating": (
        GenericScenario((PLASMA, RIFLE), Target(models=10, wounds=2, save=3, feel_no_pain=6)),
        run_generic_lean,
    ),
    # mortal wounds (legacy devastating, on critical hits): the mortal_wounds row, spill
    "mortal": (
        GenericScenario(
            (PLASMA, Weapon(models=4, attacks=3, critical_hit_mortals="D3", sustained_hits=1)),
            Target(models=5, wounds=3, save=4, feel_no_pain=5, feel_no_pain_mortal=4, damaged=1),
            Rules(devastating_wounds="legacy", spill="spill"),
        ),
        run_generic_lean,
    ),
    # full kernel: Blast, one-off re-rolls, 2D6 "ones" damage re-roll, Hazardous
    "extras": (
        GenericScenario(
            (
                Weapon(
                    models=2,
                    attacks="D6",
                    skill=4,
                    strength=9,
                    ap=3,
                    damage="2D6",
                    reroll_damage="ones",
                    keywords="Blast, Hazardous",
                ),
                RIFLE,
            ),
            Target(models=6, wounds=3, save=3, reroll_one="save"),
            situation=Situation(reroll_one="wound", attacker_models=5, attacker_wounds=2),
        ),
        run_generic,
    ),
    "extras-hit": (
        GenericScenario(
            (RIFLE, PLASMA),
            Target(models=8, wounds=2, save=4),
            situation=Situation(reroll_one="hit"),
        ),
        run_generic,
    ),
    # mixed unit with an attached leader: group rows and leader_slain
    "mixed-leader": (
        GenericScenario((Weapon(models=10, attacks=2, skill=3, ap=1),), UNIT),
        run_generic_mixed,
    ),
    # mixed: mortal wounds, feel-no-pain per group, Precision, Blast, Hazardous, spill
    "mixed-all": (
        GenericScenario(
            (
                PLASMA,
                Weapon(
                    models=3,
                    attacks="D6",
                    critical_hit_mortals=1,
                    keywords="Blast, Precision, Hazardous",
                ),
            ),
            Target(
                save=4,
                groups=(
                    ModelGroup("sergeant", models=1, wounds=2, feel_no_pain=5),
                    ModelGroup("marines", models=4, wounds=2),
                    ModelGroup("captain", wounds=5, invulnerable=4, character=True, feel_no_pain=6),
                ),
            ),
            Rules(devastating_wounds="legacy", spill="spill"),
            situation=Situation(attacker_models=3, attacker_wounds=2),
        ),
        run_generic_mixed,
    ),
    # mixed: one-off re-rolls (the attacker's damage, the defender's save), a damaged model
    "mixed-one-off": (
        GenericScenario(
            (PLASMA, RIFLE),
            Target(
                save=4,
                reroll_one="save",
                groups=(
                    ModelGroup("troops", models=4, wounds=2),
                    ModelGroup("sergeant", wounds=3, damaged=2),
                ),
            ),
            situation=Situation(reroll_one="damage"),
        ),
        run_generic_mixed,
    ),
    # mixed without a character: no leader_slain row
    "mixed-no-leader": (
        GenericScenario(
            (RIFLE,),
            Target(
                save=4,
                groups=(
                    ModelGroup("sergeant", wounds=2),
                    ModelGroup("troops", models=4),
                ),
            ),
        ),
        run_generic_mixed,
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_records_contract(case):
    sc, kernel = CASES[case]
    job = sc.compile()
    assert job.kernel is kernel, f"{case} no longer reaches the kernel it is meant to test"
    rec = check_records(job)
    names = [s.name for s in job.stats]
    # the recorded statistics hang together trial by trial (the contract checks only margins)
    total = rec[:, names.index("damage_dealt")] + rec[:, names.index("wounds_remaining")]
    assert np.all(total == total[0])
    assert np.all(rec[:, names.index("hits")] >= 0)
    if "destroyed" in names:
        dead = rec[:, names.index("destroyed")] == 1
        assert np.all(rec[dead, names.index("wounds_remaining")] == 0)


def test_layouts_covered():
    """The cases reach every optional row: mortal wounds, hazards, no models_slain, groups."""
    seen = {s.name for sc, _ in CASES.values() for s in sc.compile().stats}
    for name in ("mortal_wounds", "attacker_models_lost_to_hazards", "attacker_wounds_lost",
                 "leader_slain", "target_captain_models_lost", "destroyed"):  # fmt: skip
        assert name in seen
    one = {s.name for s in CASES["one-model"][0].compile().stats}
    assert "models_slain" not in one and "destroyed" not in one
