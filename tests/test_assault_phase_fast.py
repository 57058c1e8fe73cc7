"""The fast assault-phase reference (tests/fast_assault_phase.py) against exact answers.

The fast reference is the independent answer the full combats of tests/test_assault_phase.py
are compared with at 0.5 pp power; here it is checked itself: against the exact enumeration
of a whole turn (tests/test_assault_phase_hand.py: every statistic, with the trials a 0.5 pp
error needs and that power checked on the run, tests/assault_phase_exact.py), and at 100,000
trials (about 1 pp) against the worked morale and sweep odds, later turns worked by hand and
the exact answers of the rule switches it reads (tests/test_assault_phase_switches.py);
against the compiled charts. tests/test_assault_phase.py compares it with the pure-Python
reference. It refuses what it does not model.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from assault_phase_exact import bernoulli, check_exact
from test_assault_phase_hand import TURN_STATS, exact_turn, exact_turn_scenario, morale_and_sweep
from test_assault_phase_switches import G, Unit, _one_blow, _sc, below_half

from oddslab.rulesets.assault_phase import Rules
from tests import fast_assault_phase as fast

SEED = 41


def _check(sc, pmfs: dict) -> None:
    check_exact(sc, pmfs, SEED, trials=100_000, run=fast.simulate, power=False)


def test_whole_turn_matches_exact_enumeration():
    r = exact_turn()
    pmfs = {stat: r[key] for key, stat in TURN_STATS.items()}
    check_exact(exact_turn_scenario(), pmfs, SEED, run=fast.simulate)


@pytest.mark.parametrize("fast_unit, sweep_dice", [(False, 2), (True, 3)])
def test_morale_and_sweep_match_exact(fast_unit, sweep_dice):
    _check(*morale_and_sweep(fast_unit, sweep_dice))


@pytest.mark.parametrize(
    "groups, rules, wound",
    [
        # three T5, two T3, two T4: the most common T5 (5+), or no value held by more than
        # half: the lowest, T3 (3+)
        ("mixed", {"majority": "most-common"}, F(1, 3)),
        ("mixed", {"majority": "more-than-half"}, F(2, 3)),
        # two T5 and two T3: the owner's choice
        ("tied", {"tie_toughness": "higher"}, F(1, 3)),
        ("tied", {"tie_toughness": "lower"}, F(2, 3)),
    ],
)
def test_majority_toughness_matches_exact(groups, rules, wound):
    """One attack (hit on 4+) into a trapped unit of mixed Toughness."""
    dfn = {
        "mixed": (G("x", 3, a=0, ld=10, t=5), G("y", 2, a=0, ld=10, t=3),
                  G("z", 2, a=0, ld=10, t=4)),
        "tied": (G("x", 2, a=0, ld=10, t=5), G("y", 2, a=0, ld=10, t=3)),
    }[groups]  # fmt: skip
    _check(_one_blow(dfn, **rules), {"unsaved_wounds_on_defender": bernoulli(F(1, 2) * wound)})


@pytest.mark.parametrize("penalty", [False, True])
def test_below_half_penalty_matches_exact(penalty):
    sc, stat, pmf = below_half(penalty, 4)
    _check(sc, {stat: pmf})


@pytest.mark.parametrize("defenders", [1, 10])
def test_later_turns_match_exact(defenders):
    """One charger (2 attacks in turn 1, then 1: no charge bonus; 1/4 each) against a lone
    model (slain: the fight is won) or ten Ld7 models (each turn a kill wins the assault and
    a failed Ld7 test, 15/36, ends the combat in a fall back), three turns at most."""
    sc = _sc(Unit("A", (G("a", 1, a=1),)), Unit("D", (G("d", defenders, a=0, ld=7),)),
             max_turns=3)  # fmt: skip
    end = F(1) if defenders == 1 else F(15, 36)  # P(a won turn ends the combat)
    going, ended = F(1), [F(0)] * 5
    for turn, win in enumerate((1 - F(3, 4) ** 2, F(1, 4), F(1, 4)), start=1):
        ended[turn] = going * win * end
        going -= ended[turn]
    ended[4] = going
    _check(sc, {"combat_ended_turn": ended, "attacker_won_fight": bernoulli(1 - going)})


def test_compiled_charts_match_the_charts_written_from_the_docs():
    """The kernel's to-hit and to-wound tables (``Rules.hit_table``, ``wound_table``) against
    the fast reference's charts, written apart from them; and an override is used as given."""
    rules = Rules()
    np.testing.assert_array_equal(rules.hit_table(), fast._chart(rules, "to_hit_chart"))
    np.testing.assert_array_equal(rules.wound_table(), fast._chart(rules, "to_wound_chart"))
    flat = tuple(tuple([5] * 10) for _ in range(10))
    rules = Rules(to_hit_chart=flat, to_wound_chart=flat)
    np.testing.assert_array_equal(rules.hit_table(), fast._chart(rules, "to_hit_chart"))
    np.testing.assert_array_equal(rules.wound_table(), fast._chart(rules, "to_wound_chart"))


def test_same_seed_same_histograms():
    sc = exact_turn_scenario()
    a, b = fast.simulate(sc, 1_000, 3), fast.simulate(sc, 1_000, 3)
    assert a.keys() == b.keys()
    assert all(np.array_equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize(
    "unit_kw, rules",
    [({"in_cover": True}, {}), ({"falling_back": True}, {}), ({}, {"reach": "unit"}),
     ({}, {"unit_leadership": "majority"})],
)  # fmt: skip
def test_refuses_what_it_does_not_model(unit_kw, rules):
    sc = _sc(Unit("A", (G("a", 1),)), Unit("D", (G("d", 1),), **unit_kw), **rules)
    with pytest.raises(NotImplementedError, match="fast assault reference"):
        fast.simulate(sc, 10, 1)
    assert Rules()  # the defaults themselves are modelled
