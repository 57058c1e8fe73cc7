"""Exact joint distributions of the generic ruleset (``Job.exact_joint``, issue 29): against a
direct enumeration of every die written from the rule text (a small case), against the
Monte Carlo records of the kernels by chi-square (>= 1e6 trials), and what it refuses."""

from __future__ import annotations

from collections import defaultdict
from itertools import product

import numpy as np
import pytest
from generic_power import assert_table
from records_check import run_with_records

from oddslab import GenericScenario, Rules, Target, Weapon
from oddslab.rulesets.generic import ModelGroup, Situation

#: 3 attacks, hit 3+, S4 vs T4 (wound 4+), AP1 against a 4+ save (5+), D3 damage, FNP 6+,
#: into 3 two-wound models, the first already wounded once
SMALL = GenericScenario(
    (Weapon(attacks=3, skill=3, strength=4, ap=1, damage="D3"),),
    Target(models=3, wounds=2, toughness=4, save=4, feel_no_pain=6, damaged=1),
)


def enumerate_small() -> dict[tuple[int, int, int], float]:
    """P(models alive, wounds left on the model taking damage, damage) after :data:`SMALL`,
    die by die: each attack rolls to hit (3+), to wound (4+), the target saves (5+ after AP 1),
    D3 damage, one 6+ feel-no-pain die per point; the damage goes to the model that has lost
    wounds, excess lost (``damage`` counts it all)."""
    M, W = 3, 2
    state = {(M, W - 1, 0): 1.0}
    for _attack in range(3):
        nxt: dict[tuple[int, int, int], float] = defaultdict(float)
        for (alive, cur, done), p in state.items():
            for h, w, s, d in product(range(1, 7), range(1, 7), range(1, 7), range(1, 4)):
                q = p / (6 * 6 * 6 * 3)
                if h < 3 or w < 4 or s >= 5:
                    nxt[(alive, cur, done)] += q
                    continue
                for fnp in product(range(1, 7), repeat=d):
                    through = sum(1 for f in fnp if f < 6)
                    a, c = alive, cur
                    if a > 0 and through >= c:
                        a, c = a - 1, W
                    elif a > 0 and through > 0:
                        c -= through
                    nxt[(a, c, done + through)] += q / 6**d
        state = nxt
    return state


def small_table(which: str) -> np.ndarray:
    """The enumeration as a joint table of ``models_slain`` and ``which`` (``damage_dealt``
    or ``damage``)."""
    M, W, total = 3, 2, 5
    table = np.zeros((M + 1, 10 if which == "damage" else total + 1))
    for (alive, cur, done), p in enumerate_small().items():
        left = (alive - 1) * W + cur if alive else 0
        table[M - alive, done if which == "damage" else total - left] += p
    return table


def test_joint_against_enumeration():
    ex = SMALL.exact_joint(("models_slain", "damage_dealt"))
    want = small_table("damage_dealt")
    assert ex.shape == want.shape
    assert np.max(np.abs(ex - want)) < 1e-12
    # damage (overkill included), carried in the chain's state
    dmg = SMALL.exact_joint(("models_slain", "damage"))
    want = small_table("damage")
    assert dmg.shape == want.shape
    assert np.max(np.abs(dmg - want)) < 1e-12
    # the axes follow the names asked; every pair and triple agrees with the marginals
    assert np.array_equal(SMALL.exact_joint(("damage_dealt", "models_slain")), ex.T)
    pmfs = SMALL.exact_pmfs()
    triple = SMALL.exact_joint(("destroyed", "wounds_remaining", "models_slain"))
    for k, name in enumerate(("destroyed", "wounds_remaining", "models_slain")):
        margin = triple.sum(axis=tuple(i for i in range(3) if i != k))
        assert np.max(np.abs(margin[: len(pmfs[name])] - pmfs[name])) < 1e-12


def test_joint_refusals():
    """None where the exact engine has no joint: static statistics together, a one-off
    re-roll, a name the scenario does not report, a name twice."""
    assert SMALL.exact_joint(("hits", "damage")) is None
    assert SMALL.exact_joint(("models_slain", "wounds")) is None
    assert SMALL.exact_joint(("damage", "unsaved")) is None
    assert SMALL.exact_joint(("models_slain", "no_such")) is None
    assert SMALL.exact_joint(("models_slain", "models_slain")) is None
    mixed = JOINT_CASES["mixed-damage"][0]
    assert mixed.exact_joint(("damage", "unsaved")) is None  # one counted statistic at a time
    assert mixed.exact_joint(("hits", "models_slain")) is None
    once = GenericScenario(SMALL.weapons, SMALL.target, situation=Situation(reroll_one="hit"))
    assert once.exact_joint(("models_slain", "damage_dealt")) is None
    hits, want = SMALL.exact_joint(("hits",)), SMALL.exact_pmfs()["hits"]  # one alone: its PMF
    assert np.max(np.abs(hits[: len(want)] - want)) < 1e-15


def recorded_joint(sc: GenericScenario, names: tuple[str, ...], chunks: int = 16) -> np.ndarray:
    """Counts of ``names`` jointly over ``chunks * 65536`` trials of the scenario's kernel,
    from the per-trial records."""
    job = sc.compile()
    stat = [s.name for s in job.stats]
    shape = tuple(job.stats[stat.index(n)].nbins for n in names)
    counts = np.zeros(shape, dtype=np.int64)
    for first in range(0, chunks, 4):  # four chunks a call: the records stay small
        _, rec = run_with_records(job, 2901 + first, (65536,) * 4)
        rows = rec.reshape(-1, len(stat))
        np.add.at(counts, tuple(rows[:, stat.index(n)] for n in names), 1)
    return counts


#: dice damage, feel-no-pain, devastating wounds held to the end (current rule), spill off
ALLOCATION = GenericScenario(
    (Weapon(name="plasma", models=3, attacks=2, skill=3, strength=7, ap=2, damage="D3+1",
            devastating_wounds=True),
     Weapon(name="rifle", models=5, attacks=2, skill=3, strength=4, ap=1)),
    Target(models=6, wounds=2, toughness=4, save=3, feel_no_pain=6),
)  # fmt: skip

JOINT_CASES = {
    "allocation": (ALLOCATION, ("models_slain", "damage_dealt")),
    "allocation-unsaved": (ALLOCATION, ("unsaved", "destroyed", "models_slain")),
    "legacy-mortal": (
        GenericScenario(
            (Weapon(models=3, attacks=2, skill=3, strength=7, ap=2, damage="D3",
                    devastating_wounds=True, critical_hit_mortals=1),),
            Target(models=4, wounds=3, toughness=4, save=3, feel_no_pain_mortal=5),
            Rules(devastating_wounds="legacy"),
        ),
        ("mortal_wounds", "models_slain"),
    ),
    # mortal wounds spilling, Hazardous losses (independent of the target's fate)
    "mortal-hazard": (
        GenericScenario(
            (Weapon(models=4, attacks=3, critical_hit_mortals="D3", damage=2,
                    keywords="Hazardous"),),
            Target(models=4, wounds=3, save=5), Rules(spill="spill"),
            situation=Situation(attacker_models=4, attacker_wounds=1),
        ),
        ("damage", "models_slain", "attacker_models_lost_to_hazards"),
    ),
    # a mixed unit with an attached leader
    "mixed": (
        GenericScenario(
            (Weapon(models=10, attacks=2, skill=3, ap=1, damage=2),),
            Target(toughness=4, save=3, groups=(
                ModelGroup("bodyguard", models=4, wounds=2),
                ModelGroup("leader", wounds=4, invulnerable=4, character=True),
            )),
        ),
        ("target_bodyguard_models_lost", "leader_slain", "damage_dealt"),
    ),
    # a mixed unit: damage (carried in the chain's state) with the leader's fate, spill
    "mixed-damage": (
        GenericScenario(
            (Weapon(models=3, attacks=2, skill=3, strength=5, ap=1, damage="D3",
                    critical_hit_mortals=1, keywords="Precision"),),
            Target(toughness=4, groups=(
                ModelGroup("bodyguard", models=2, wounds=2, save=3),
                ModelGroup("leader", wounds=3, save=3, feel_no_pain=5, character=True),
            )),
            Rules(spill="spill"),
        ),
        ("damage", "leader_slain", "models_slain"),
    ),
}  # fmt: skip


@pytest.mark.statistical
@pytest.mark.parametrize("case", sorted(JOINT_CASES))
def test_joint_against_records(case):
    """1,048,576 trials' records, counted jointly, against the exact table by chi-square; 0.5 pp
    moved between neighbouring cells would fail (checked, tests/generic_power.py)."""
    sc, names = JOINT_CASES[case]
    table = sc.compile().exact_joint(names)
    assert table is not None and abs(table.sum() - 1) < 1e-9
    counts = recorded_joint(sc, names)
    assert_table(counts, table, case)
