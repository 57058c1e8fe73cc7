"""Exact answers of formation actions: single tests, the strategy roll and the Markov chain,
each against an independent brute force (exact fractions / enumeration of every die).

Tolerance: 1e-12 for float results against exact rationals.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from oddslab.dice import DiceExpr
from oddslab.rulesets.formation_actions import (
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
    formation_chain,
    pass_chances,
    strategy_probs,
    strategy_turn_probs,
    strategy_wins_pmf,
)
from oddslab.rulesets.formation_actions.chain import bernoulli_sum
from oddslab.rulesets.formation_actions.model import pass_faces

# -- single tests --------------------------------------------------------------------------------


@pytest.mark.parametrize("target", range(-3, 10))
def test_pass_faces_plain_and_natural(target):
    assert pass_faces(target) == min(max(target, 0), 6)  # plain D6 <= rating
    assert pass_faces(target, True, False) == min(max(target, 1), 6)
    assert pass_faces(target, False, True) == min(max(target, 0), 5)
    assert pass_faces(target, True, True) == min(max(target, 1), 5)


def test_pass_chances_every_modifier():
    f = Formation("f", command=5, units=4, suppressed=2, shock=1, enemy_within_8=True)
    # the text's sentence: -1 suppressed; the rally test takes only the rally table (default)
    assert pass_chances(f, Rules()) == {"action": 4, "retain": 3, "rally": 4, "rally_broken": 2}
    assert pass_chances(f, Rules(rally_action_penalty=True)) == {
        "action": 4,
        "retain": 3,
        "rally": 3,
        "rally_broken": 1,
    }
    assert pass_chances(f, Rules(action_penalty="both"))["action"] == 3
    assert pass_chances(f, Rules(action_penalty="either"))["action"] == 4
    g = Formation("g", command=5, units=4)
    assert pass_chances(g, Rules(action_penalty="shock"))["action"] == 5
    assert pass_chances(g, Rules(action_penalty="shock"), shock=2)["action"] == 4


# -- strategy roll -------------------------------------------------------------------------------


@pytest.mark.parametrize("sa,sb", [(3, 3), (4, 2), (0, 5)])
@pytest.mark.parametrize("tie", ["reroll", "blue", "red"])
def test_strategy_wins_pmf_by_enumeration(sa, sb, tie):
    """Every sequence of per-turn outcomes (blue higher / red higher / tie), exactly."""
    armies = (
        Army("blue", (Formation("a"),), strategy=sa),
        Army("red", (Formation("b"),), strategy=sb),
    )
    rules = Rules(first_turn_tie=tie)
    pa = Fraction(sum(x + sa > y + sb for x in range(1, 7) for y in range(1, 7)), 36)
    pb = Fraction(sum(y + sb > x + sa for x in range(1, 7) for y in range(1, 7)), 36)
    pt = 1 - pa - pb
    turns = 4
    want = [Fraction(0)] * (turns + 1)
    for seq in itertools.product("abt", repeat=turns):
        p = Fraction(1)
        last = None
        wins = 0
        for i, o in enumerate(seq):
            p *= {"a": pa, "b": pb, "t": pt}[o]
            if o == "t":
                if i == 0:
                    if tie == "reroll":
                        break  # handled by conditioning below
                    w = 0 if tie == "blue" else 1
                else:
                    w = 1 - last
            else:
                w = 0 if o == "a" else 1
            last = w
            wins += w == 0
        else:
            if tie == "reroll" and seq[0] != "t":
                p /= pa + pb  # turn 1 is rerolled until someone is higher
            want[wins] += p
    per_turn = [Fraction(0)] * turns
    for seq in itertools.product("abt", repeat=turns):
        if tie == "reroll" and seq[0] == "t":
            continue  # turn 1 is rerolled until someone is higher
        p = Fraction(1)
        winners = []
        for i, o in enumerate(seq):
            p *= {"a": pa, "b": pb, "t": pt}[o]
            if o == "t":
                winners.append((0 if tie == "blue" else 1) if i == 0 else 1 - winners[-1])
            else:
                winners.append(0 if o == "a" else 1)
        if tie == "reroll":
            p /= pa + pb
        for i, w in enumerate(winners):
            if w == 0:
                per_turn[i] += p
    assert np.allclose(
        strategy_turn_probs(armies, rules, turns), [float(x) for x in per_turn], atol=1e-12
    )
    got = strategy_wins_pmf(armies, rules, turns)
    assert np.allclose(got, [float(x) for x in want], atol=1e-12, rtol=0)
    sp = strategy_probs(armies, rules)
    assert abs(sp["first"] - float(pa)) < 1e-15 and abs(sp["tie"] - float(pt)) < 1e-15


# -- the Markov chain against a brute-force recursion --------------------------------------------


def _brute(f: Formation, rules: Rules, turns: int):
    """Exact per-turn P(Shock = s), P(broken by t) by enumerating every die and outside draw,
    with Fractions; written from the rules, independently of chain.py. Turn by turn: the
    states a turn can end in (Shock, broken, ever broken, out of play) carry their summed
    probability into the next turn (the same branches as a recursion over every path, which
    took 25 s for case ``g``)."""
    q = [Fraction(x).limit_denominator(10**6) for x in f.outside_shock.pmf()]
    thr = f.threshold
    shock_t = [dict() for _ in range(turns)]
    broken_by = [Fraction(0)] * turns
    passed = [Fraction(0)] * turns
    rallied_unbroken = [Fraction(0)] * turns  # P(a rally test passed while not broken)
    sixth = Fraction(1, 6)

    def pen(s):
        return rules.penalty(f.suppressed > 0, s)

    def _passes(d, target):
        if rules.natural_one_passes and d == 1:
            return True
        if rules.natural_six_fails and d == 6:
            return False
        return d <= target

    def cap(state):
        # broken_shock "cap": a broken formation has at most as many Shock points as units
        s, b, e, g = state
        if rules.broken_shock == "cap" and b:
            s = min(s, f.units)
        return (s, b, e, g)

    def gain(state, k):
        s, b, e, g = state
        s += k
        if k > 0 and rules.break_check == "immediate" and not b and s >= thr:
            b, e = True, True
        return cap((s, b, e, g))

    def outside_branches(state):
        if state[3]:
            return [(Fraction(1), state)]
        return [(qk, gain(state, k)) for k, qk in enumerate(q) if qk > 0]

    def turn(t, state, p, after):
        if p == 0:
            return
        starts = (
            outside_branches(state)
            if rules.outside_timing == "start-of-turn"
            else [(Fraction(1), state)]
        )
        for p1, st in starts:
            s, b, e, g = st
            if not b and not g:
                acts = []
                for d in range(1, 7):
                    if _passes(d, f.command - pen(s)):
                        acts.append((sixth, (s, b, e, g), True))
                    else:
                        acts.append((sixth, gain((s, b, e, g), 1), False))
            else:
                acts = [(Fraction(1), st, False)]
            for p2, st2, was_pass in acts:
                if was_pass:
                    passed[t] += p * p1 * p2
                ends = (
                    outside_branches(st2)
                    if rules.outside_timing == "before-rally"
                    else [(Fraction(1), st2)]
                )
                for p3, st3 in ends:
                    s, b, e, g = st3
                    if rules.break_check == "end-phase" and not g and not b and s >= thr:
                        b, e = True, True
                    s, b, e, g = cap((s, b, e, g))
                    outcomes = []
                    if g or (s == 0 and not b):
                        outcomes = [(Fraction(1), (s, b, e, g))]
                    else:
                        target = (
                            f.command
                            - 2 * b
                            - f.enemy_within_8
                            - (pen(s) if rules.rally_action_penalty else 0)
                        )
                        for d in range(1, 7):
                            if _passes(d, target):
                                s2 = f.units if b else s
                                outcomes.append((sixth, (s2 - max(1, s2 // 2), False, e, g)))
                                if not b:
                                    rallied_unbroken[t] += p * p1 * p2 * p3 * sixth
                            elif b:
                                outcomes.append(
                                    (sixth, (s, True, e, rules.withdrawal == "removed"))
                                )
                            else:
                                outcomes.append((sixth, (s, b, e, g)))
                    for p4, st4 in outcomes:
                        pp = p * p1 * p2 * p3 * p4
                        shock_t[t][st4[0]] = shock_t[t].get(st4[0], 0) + pp
                        if st4[2]:
                            broken_by[t] += pp
                        after[st4] = after.get(st4, 0) + pp

    b0 = f.starts_broken
    states = {cap((f.shock, b0, b0, False)): Fraction(1)}
    for t in range(turns):
        after: dict = {}
        for state, p in states.items():
            turn(t, state, p, after)
        states = after
    return shock_t, broken_by, passed, rallied_unbroken


CHAIN_CASES = [
    (Formation("a", command=4, units=3, suppressed=1), Rules()),
    (
        Formation(
            "b", command=3, units=2, shock=1, outside_shock=OutsideShock(table=(0.5, 0.25, 0.25))
        ),
        Rules(action_penalty="shock"),
    ),
    (
        Formation(
            "c",
            command=5,
            units=4,
            break_at=2,
            enemy_within_8=True,
            outside_shock=OutsideShock(dice=DiceExpr(1, 3, -1)),
        ),
        Rules(
            action_penalty="both",
            break_check="end-phase",
            outside_timing="start-of-turn",
            withdrawal="removed",
        ),
    ),
    (
        Formation("d", command=2, units=3, broken=True),
        Rules(natural_one_passes=True, natural_six_fails=True, rally_action_penalty=False),
    ),
    # a broken formation under outside Shock, its Shock capped at its units (default) or not
    (
        Formation(
            "e", command=3, units=2, shock=5, broken=True, outside_shock=OutsideShock(fixed=1)
        ),
        Rules(),
    ),
    (
        Formation(
            "f", command=3, units=2, shock=1, outside_shock=OutsideShock(table=(0.5, 0.25, 0.25))
        ),
        Rules(action_penalty="shock", broken_shock="accumulate"),
    ),
    (
        Formation(
            "g",
            command=5,
            units=3,
            break_at=5,
            outside_shock=OutsideShock(dice=DiceExpr(1, 3, 0)),
        ),
        Rules(outside_timing="start-of-turn", withdrawal="removed"),
    ),
]


@pytest.mark.parametrize("f,rules", CHAIN_CASES, ids=[c[0].key for c in CHAIN_CASES])
def test_chain_matches_brute_force(f, rules):
    turns = 3
    shock_t, broken_by, passed, rallied_unbroken = _brute(f, rules, turns)
    res = formation_chain(f, rules, turns)
    # the expected count of rally tests passed while unbroken: the sum over the turns
    unbroken = formation_chain(f, rules, turns, counter="rallied_unbroken").counter
    want = float(sum(rallied_unbroken))
    assert abs(np.dot(np.arange(len(unbroken)), unbroken) - want) < 1e-12
    for t in range(turns):
        want = np.zeros(res.shock.shape[1])
        for s, p in shock_t[t].items():
            want[s] = float(p)
        assert np.allclose(res.shock[t], want, atol=1e-12, rtol=0), t
        assert abs(res.broken_by[t] - float(broken_by[t])) < 1e-12
        assert abs(res.passed[t] - float(passed[t])) < 1e-12


def test_chain_counters_are_consistent():
    f, rules = CHAIN_CASES[1]
    n = 6
    res = {
        c: formation_chain(f, rules, n, counter=c)
        for c in ("actions", "holds", "rallied", "withdrawals", "rallied_unbroken")
    }
    for r in res.values():
        assert abs(r.counter.sum() - 1) < 1e-12
        assert np.allclose(r.shock, res["actions"].shock)
    # expected passed tests over the game = sum of per-turn pass probabilities
    mean_actions = np.dot(np.arange(n + 1), res["actions"].counter)
    assert abs(mean_actions - res["actions"].passed.sum()) < 1e-12
    mean_holds = np.dot(np.arange(n + 1), res["holds"].counter)
    assert abs(mean_holds - res["holds"].held.sum()) < 1e-12


def test_bernoulli_sum():
    assert np.allclose(bernoulli_sum([0.5, 0.5]), [0.25, 0.5, 0.25])
    assert np.allclose(bernoulli_sum([]), [1.0])


def test_exact_pmfs_cover_only_non_retaining_armies():
    blue = Army("blue", (Formation("a"), Formation("b")), retain="always")
    red = Army("red", (Formation("x"), Formation("y")))
    sc = FormationActionsScenario((blue, red), 3)
    ex = sc.exact_pmfs()
    assert "blue_won_strategy" in ex and "red_won_strategy" in ex
    assert not any(k.startswith("blue_a") for k in ex)
    assert "red_x_shock_after_turn_3" in ex and "red_actions_turn_2" in ex


def test_worked_examples_of_the_docs():
    f = Formation(
        "rifles",
        command=4,
        units=4,
        suppressed=1,
        outside_shock=OutsideShock(table=(0.5, 0.3, 0.2)),
    )
    assert pass_chances(f, Rules()) == {"action": 3, "retain": 2, "rally": 4, "rally_broken": 2}
    r = formation_chain(f, Rules(), 3)
    turn1 = [
        0.25 + 0.4 * 4 / 6,
        0.4 * 2 / 6 + 0.25 * 4 / 6,
        0.25 * 2 / 6 + 0.1 * 4 / 6,
        0.1 * 2 / 6,
    ]
    assert np.allclose(r.shock[0][:5], [*turn1, 0.0], atol=1e-15)
    assert abs(r.broken_by[0]) < 1e-15 and abs(r.broken_by[1] - 0.1075) < 1e-12
    assert round(r.broken_by[2], 4) == 0.2637
    r = formation_chain(f, Rules(action_penalty="shock"), 3)
    assert (round(r.broken_by[1], 4), round(r.broken_by[2], 4)) == (0.0872, 0.2258)
    r = formation_chain(f, Rules(rally_action_penalty=True), 3)
    assert np.allclose(r.shock[0][:5], [0.45, 0.325, 0.175, 0.05, 0.0], atol=1e-15)
    assert abs(r.broken_by[1] - 0.13125) < 1e-12 and round(r.broken_by[2], 4) == 0.3235


def test_worked_example_files():
    from pathlib import Path

    from oddslab.exact import exact
    from oddslab.scenario import load

    ex = Path(__file__).resolve().parent.parent / "oddslab" / "examples"
    o = exact(load(ex / "formation-actions-under-fire.toml"))
    curve = [round(o.prob(f"blue_rifles_broken_by_turn_{t}", 1), 3) for t in range(1, 9)]
    assert curve == [0.0, 0.179, 0.418, 0.615, 0.753, 0.845, 0.903, 0.94]
    o = exact(load(ex / "formation-actions-command-and-suppression.toml"))
    assert np.allclose(o.probs["blue_actions_turn_1"] * 36, [1, 6, 13, 12, 4], atol=1e-12)
