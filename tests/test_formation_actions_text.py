"""Formation actions: cases worked by hand from the rule text ("Battle Phases"), one per rule
statement, checked against scripted games, the exact answers and the simulation.

Tolerances: exact answers to 1e-12; the simulation's whole distributions against the worked
PMFs, chi-square p > 1e-4 with a Bonferroni correction, and the power to see a 0.5 pp error
checked on the same run (tests/fast_formation_actions.py ``assert_exact``).
"""

from __future__ import annotations

from fractions import Fraction as Fr

import numpy as np
import pytest

import oddslab
from oddslab.rulesets.formation_actions import (
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
)
from oddslab.rulesets.formation_actions.chain import formation_chain, strategy_turn_probs
from tests.fast_formation_actions import assert_exact


def game(blue, red, turns=1, rules=None, blue_kw=None, red_kw=None):
    return FormationActionsScenario(
        (Army("blue", tuple(blue), **(blue_kw or {})), Army("red", tuple(red), **(red_kw or {}))),
        turns,
        rules or Rules(),
    )


def test_strategy_ties_go_to_the_side_that_failed_to_win_last_round():
    # "In the case of a tie, the side that failed to win the initiative last round gets it"
    sc = game(
        [Formation("a", command=6)],
        [Formation("x", command=6)],
        turns=3,
        blue_kw={"strategy": 3},
        red_kw={"strategy": 2},
    )
    # turn 1: 2+3 v 3+2 tie, no last round: roll again, 4+3 v 1+2 blue; a 1, x 1.
    # turn 2: 1+3 v 2+2 tie: red (blue won turn 1); x 1, a 1.
    # turn 3: 1+3 v 2+2 tie: blue (red won turn 2); a 1, x 1.
    r = sc.run_with_dice([2, 3, 4, 1, 1, 1, 1, 2, 1, 1, 1, 2, 1, 1])
    assert r["dice_used"] == 14
    assert [r[f"blue_won_strategy_turn_{t}"] for t in (1, 2, 3)] == [1, 0, 1]
    assert r["blue_won_strategy"] == 2 and r["red_won_strategy"] == 1


def test_strategy_roll_exact_with_the_tie_rule():
    # strategy 4 v 2: D6 difference >= -1 on 26/36 (blue higher), -2 on 4/36 (tie), 6/36 red
    sc = game(
        [Formation("a")], [Formation("x")], turns=3, blue_kw={"strategy": 4}, red_kw={"strategy": 2}
    )
    w1 = Fr(26, 32)  # turn 1: a tie is rolled again
    w2 = Fr(26, 36) + Fr(4, 36) * (1 - w1)  # a tie goes to the side that lost turn 1
    w3 = Fr(26, 36) + Fr(4, 36) * (1 - w2)
    got = strategy_turn_probs(sc.armies, sc.rules, 3)
    assert np.allclose(got, [float(w1), float(w2), float(w3)], atol=1e-12, rtol=0)
    ex = sc.exact_pmfs()
    assert abs(ex["blue_won_strategy_turn_2"][1] - float(w2)) < 1e-12
    n = 400_000
    counts = oddslab.simulate(sc, trials=n, seed=3).counts
    want = {
        f"blue_won_strategy_turn_{t}": np.array([1 - float(w), float(w)])
        for t, w in ((1, w1), (2, w2), (3, w3))
    }
    assert_exact({k: counts[k] for k in want}, want, "strategy", tuple(want))


def test_suppressed_and_retaining_minus_ones_stack():
    # "-1 ... if any unit in the formation is suppressed, and a further -1 ... if trying to
    # retain the initiative": command 4, suppressed, retaining passes on 2 or less
    blue = [Formation("a", command=4), Formation("b", command=4, suppressed=1)]
    sc = game(blue, [Formation("x")], blue_kw={"retain": "always"})
    # 6 v 1 blue first; a 4 passes; b retains, rolls 3 > 2: Hold, +1 Shock; x 1 passes.
    # end phase: b rallies on 4 (no suppression -1 on the rally table), rolls 4: Shock 0
    r = sc.run_with_dice([6, 1, 4, 3, 1, 4])
    assert r["dice_used"] == 6
    assert (r["blue_retain_attempts"], r["blue_retained"]) == (1, 0)
    assert (r["blue_b_holds"], r["blue_b_shock_after_turn_1"]) == (1, 0)
    r = sc.run_with_dice([6, 1, 4, 2, 1])  # b rolls 2: retained, no Shock, nobody rallies
    assert r["dice_used"] == 5
    assert (r["blue_retain_attempts"], r["blue_retained"]) == (1, 1)


def test_no_minus_one_once_the_opponent_has_nothing_left():
    # "if one army has no formations left to activate ... the opponent may keep on activating
    # formations without suffering the -1 modifier for retaining the initiative"
    blue = [Formation("a"), Formation("b"), Formation("c")]
    sc = game(blue, [Formation("x")], blue_kw={"retain": "always"})
    # 6 v 1: a 4 passes; b retains (target 3), rolls 3: passes; x 4 passes; c alone, no -1:
    # 4 passes (it would fail with the -1)
    r = sc.run_with_dice([6, 1, 4, 3, 4, 4])
    assert r["dice_used"] == 6
    assert r["blue_actions_turn_1"] == 3 and r["blue_holds_turn_1"] == 0
    assert (r["blue_retain_attempts"], r["blue_retained"]) == (1, 1)
    # red's only formation broken: blue activates all three one after another, no retaining;
    # x's rally when broken: 4 - 2 = 2, rolls 3: withdraws
    sc = game(blue, [Formation("x", broken=True)], blue_kw={"retain": "always"})
    r = sc.run_with_dice([6, 1, 4, 4, 4, 3])
    assert r["dice_used"] == 6
    assert r["blue_actions_turn_1"] == 3 and r["blue_retain_attempts"] == 0
    assert r["red_x_withdrawals"] == 1 and r["red_broken_after_turn_1"] == 1


def test_winner_going_second_and_alternating_activations():
    # "The army going first then carries out an action with one formation, and then their
    # opponent does likewise ... If one side runs out of formations to activate, then the
    # opposing side may keep on activating formations one after the other"
    red = [Formation("x"), Formation("y"), Formation("z")]
    sc = game(
        [Formation("a", command=1)], red, blue_kw={"choose": "second"}, red_kw={"retain": "always"}
    )
    # blue wins 6 v 1 and goes second: x 5 fails (Hold, no retaining); a 1 passes (command 1);
    # y 4 passes; blue has nothing left, so z tests without -1: 4 passes. x rallies: 4, Shock 0
    r = sc.run_with_dice([6, 1, 5, 1, 4, 4, 4])
    assert r["dice_used"] == 7
    assert r["red_x_holds"] == 1 and r["blue_a_actions"] == 1
    assert r["red_y_actions"] == 1 and r["red_z_actions"] == 1
    assert r["red_retain_attempts"] == 0 and r["red_x_shock_after_turn_1"] == 0


def test_break_and_rally_from_broken_counts_shock_as_units():
    # "A broken formation that rallies is no longer broken. It counts as having as many Shock
    # points as units, half of which will be removed"; 5 units: 5 - 2 = 3
    sc = game([Formation("f", command=4, units=5, shock=4)], [Formation("g", command=6)], turns=2)
    # turn 1: f 5 fails: Shock 5 = units, broken; g 1. Rally: 4 - 2 = 2, rolls 2: Shock 3.
    # turn 2: f 4 passes; g 1. Rally (unbroken, Shock 3): 4, rolls 4: 3 - 1 = 2
    r = sc.run_with_dice([6, 1, 5, 1, 2, 6, 1, 4, 1, 4])
    assert r["dice_used"] == 10
    assert r["blue_f_broken_by_turn_1"] == 1 and r["blue_broken_after_turn_1"] == 0
    assert r["blue_f_rallied"] == 1 and r["blue_f_shock_after_turn_1"] == 3
    assert (r["blue_f_actions"], r["blue_f_holds"]) == (1, 1)
    assert r["blue_f_shock_after_turn_2"] == 2
    # "Both armies take turns to rally formations that have Shock or that are broken": the
    # turn-2 rally of f, no longer broken, is a rally test passed while not broken (issue 29)
    assert r["blue_f_rallied_unbroken"] == 1 and r["red_g_rallied_unbroken"] == 0


@pytest.mark.parametrize("broken_shock", ["cap", "accumulate"])
def test_shock_of_a_broken_formation(broken_shock):
    # "A broken formation that rallies ... counts as having as many Shock points as units":
    # a 2-unit formation, broken with Shock 2, gains 1 outside Shock a turn and fails its
    # rallies (D6 <= 1 - 2: never). Capped (default) its Shock stays 2; accumulating: 3, 4.
    # Each turn: strategy 6 v 1 (blue), g passes (1), f's rally fails (6).
    f = Formation("f", command=1, units=2, shock=2, outside_shock=OutsideShock(fixed=1))
    sc = game([f], [Formation("g", command=6)], turns=2, rules=Rules(broken_shock=broken_shock))
    r = sc.run_with_dice([6, 1, 1, 6, 6, 1, 1, 6])
    assert r["dice_used"] == 8
    assert r["blue_f_broken_by_turn_1"] == 1 and r["blue_f_withdrawals"] == 2
    want = (2, 2) if broken_shock == "cap" else (3, 4)
    assert (r["blue_f_shock_after_turn_1"], r["blue_f_shock_after_turn_2"]) == want


@pytest.mark.parametrize(
    "shock, roll, after",
    [(7, 4, 4), (7, 5, 7), (3, 1, 2), (2, 1, 1), (1, 4, 0), (5, 2, 3)],
)
def test_rally_removes_half_rounded_down_at_least_one(shock, roll, after):
    # "remove half the Shock points from the formation, rounding down to a minimum of 1";
    # a failed rally of an unbroken formation: "may not remove any Shock" (and gains none)
    sc = game([Formation("f", command=4, units=10, shock=shock)], [Formation("g", command=6)])
    r = sc.run_with_dice([6, 1, 1, 1, roll])  # f passes its action test (1)
    assert r["dice_used"] == 5
    assert r["blue_f_shock_after_turn_1"] == after


def test_rally_modifiers_broken_and_enemy_within_8():
    # "-2 ... if the formation is broken, as well as a -1 ... if enemy units are within 8
    # tiles": command 5, broken and near rallies on 2 or less
    f = Formation("f", command=5, units=2, shock=2, enemy_within_8=True)  # broken at start
    sc = game([f], [Formation("g", command=6)], turns=2)
    # turn 1: f broken, no action; g 1. f rallies on 2, rolls 3: withdraws (stays broken).
    # turn 2: g 1; f rolls 2: rallies, Shock 2 (units) - 1 = 1
    r = sc.run_with_dice([6, 1, 1, 3, 6, 1, 1, 2])
    assert r["dice_used"] == 8
    assert r["blue_f_withdrawals"] == 1 and r["blue_f_rallied"] == 1
    assert r["blue_f_shock_after_turn_2"] == 1 and r["blue_broken_after_turn_2"] == 0
    assert r["blue_f_actions"] + r["blue_f_holds"] == 0
    # unbroken and near: 5 - 1 = 4; 5 fails (keeps its 1 Shock), 4 passes (Shock 0)
    g = Formation("f", command=5, units=4, shock=1, enemy_within_8=True)
    sc = game([g], [Formation("g", command=6)])
    assert sc.run_with_dice([6, 1, 1, 1, 5])["blue_f_shock_after_turn_1"] == 1
    assert sc.run_with_dice([6, 1, 1, 1, 4])["blue_f_shock_after_turn_1"] == 0


def test_formation_chain_by_hand():
    # command 4, 2 units (breaks at 2 Shock), 2 turns. Turn 1: fail 1/3 -> Shock 1, rallied
    # on 4/6 -> 0: P(0, 1) = 8/9, 1/9. Turn 2: from 1 a failed test (1/3) breaks it; the broken
    # rally passes on 2/6 (Shock 2 - 1 = 1), else it withdraws and stays broken
    res = formation_chain(Formation("f", command=4, units=2), Rules(), 2, counter="withdrawals")
    assert np.allclose(res.shock[0][:3], [8 / 9, 1 / 9, 0], atol=1e-12)
    assert np.allclose(res.shock[1][:3], [68 / 81, 11 / 81, 2 / 81], atol=1e-12)
    assert res.broken_by[0] == 0 and abs(res.broken_by[1] - 3 / 81) < 1e-12
    assert abs(res.broken_after[1] - 2 / 81) < 1e-12
    assert np.allclose(res.counter[:2], [79 / 81, 2 / 81], atol=1e-12)
    assert np.allclose(
        [res.passed[1], res.held[1]], [8 / 9 * 4 / 6 + 1 / 9 * 4 / 6, 1 / 3], atol=1e-12
    )


def test_retaining_chances_simulated():
    # blue (strategy 10) always first: a passes on 4/6 and then b retains on 3/6; after a
    # failure b tests on 4/6 after red. P(blue acts with 0, 1, 2) = 1/9, 5/9, 1/3
    sc = game(
        [Formation("a"), Formation("b")],
        [Formation("x")],
        blue_kw={"strategy": 10, "retain": "always"},
        red_kw={"strategy": 0},
    )
    n = 400_000
    out = oddslab.simulate(sc, trials=n, seed=7)
    want = {
        "blue_actions_turn_1": np.array([1 / 9, 5 / 9, 1 / 3]),
        "blue_retained": np.array([2 / 3, 1 / 3]),
        "blue_retain_attempts": np.array([1 / 3, 2 / 3]),
    }
    assert_exact({k: out.counts[k] for k in want}, want, "retaining", tuple(want))
