"""Formation actions: hand-worked games die by die (policies, retaining, breaking, rallying,
the strategy tie rule), every test's chance through the kernel, the simulation against the
exact PMFs and, where both armies retain, against the fast numpy reference and the
pure-Python reference, determinism.

Tolerances: chi-square p > 1e-4 after a Bonferroni correction over the statistics compared
(tests/stats.py, tests/switches.py); every comparison with an exact or reference answer also
checks, on the same run, that a 0.5 percentage-point error in its headline statistics would
have failed it (``switches.planted_shift``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import oddslab
from oddslab.rulesets.formation_actions import (
    WARMUP,
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
    pass_chances,
)
from oddslab.scenario import from_dict
from tests import naive_formation_actions as naive
from tests.fast_formation_actions import assert_exact
from tests.fast_formation_actions import simulate as fast_simulate
from tests.naive_cache import cached_run
from tests.switches import assert_agree, assert_power, counts_of

ROOT = Path(__file__).resolve().parent.parent


def game(blue, red, turns=1, rules=None, **army_kw):
    blue_kw = {k[5:]: v for k, v in army_kw.items() if k.startswith("blue_")}
    red_kw = {k[4:]: v for k, v in army_kw.items() if k.startswith("red_")}
    return FormationActionsScenario(
        (Army("blue", tuple(blue), **blue_kw), Army("red", tuple(red), **red_kw)),
        turns,
        rules or Rules(),
    )


def F(key, command=4, **kw):
    return Formation(key, command=command, **kw)


# -- hand-worked games ---------------------------------------------------------------------------


def test_retain_always_hand_worked():
    sc = game([F("a"), F("b"), F("c")], [F("x"), F("y")], blue_retain="always")
    # strategy 5 v 2: blue first. a passes (3) and blue retains: b tests at 3, passes (3).
    # red x fails (5): Hold, Shock 1. blue c passes (1), nothing left to retain with.
    # red y passes (4). End phase: x rallies on 4, rolls 2: Shock 1 - max(1, 0) = 0.
    r = sc.run_with_dice([5, 2, 3, 3, 5, 1, 4, 2])
    assert r["dice_used"] == 8
    assert r["blue_won_strategy"] == 1 and r["red_won_strategy"] == 0
    assert r["blue_actions_turn_1"] == 3 and r["blue_holds_turn_1"] == 0
    assert r["blue_retain_attempts"] == 1 and r["blue_retained"] == 1
    assert r["red_actions_turn_1"] == 1 and r["red_holds_turn_1"] == 1
    assert r["red_x_holds"] == 1 and r["red_x_shock_after_turn_1"] == 0
    assert r["red_x_rallied_unbroken"] == 1  # a rally test passed while not broken
    assert "red_retain_attempts" not in r  # red never retains: not reported


def test_retaining_test_takes_minus_one():
    sc = game([F("a"), F("b")], [F("x")], blue_retain="always")
    # a passes, blue retains; b rolls 4 against command 4 - 1: fails, +1 Shock, no retained
    r = sc.run_with_dice([6, 1, 1, 4, 1, 6])
    assert r["blue_retain_attempts"] == 1 and r["blue_retained"] == 0
    assert r["blue_b_holds"] == 1 and r["blue_a_actions"] == 1


def test_retain_limit_in_a_row_vs_once_per_turn():
    blue = [F("a"), F("b"), F("c"), F("d")]
    red = [F("x"), F("y"), F("z"), F("w")]
    # in a row: a 4 pass -> retain: b 3 pass -> x 1 pass -> c 2 pass -> retain again:
    # d 6 fails -> y, z, w pass (4s; blue has no formation left, so no -1) -> d rallies (1)
    sc = game(blue, red, blue_retain="always")
    r = sc.run_with_dice([6, 1, 4, 3, 1, 2, 6, 4, 4, 4, 1])
    assert r["dice_used"] == 11
    assert r["blue_retain_attempts"] == 2 and r["blue_retained"] == 1
    assert (r["blue_actions_turn_1"], r["blue_holds_turn_1"]) == (3, 1)
    assert r["red_actions_turn_1"] == 4 and r["blue_d_shock_after_turn_1"] == 0
    # once per turn: after b's retaining test, c passes but may not retain again
    sc = game(blue, red, rules=Rules(retain_limit="once-per-turn"), blue_retain="always")
    r = sc.run_with_dice([6, 1, 4, 3, 1, 2, 6, 4, 4, 4, 6])
    # a 4, b 3 (retaining), x 1, c 2 (no retain), y 6 fails, d 4, z 4, w 4; y rallies: 6 fails
    assert r["dice_used"] == 11
    assert r["blue_retain_attempts"] == 1 and r["blue_retained"] == 1
    assert r["blue_actions_turn_1"] == 4
    assert (r["red_actions_turn_1"], r["red_holds_turn_1"]) == (3, 1)
    assert r["red_y_shock_after_turn_1"] == 1  # failed rally: keeps its Shock


def test_no_retain_after_a_failed_test():
    sc = game([F("a"), F("b")], [F("x")], blue_retain="always")
    r = sc.run_with_dice([6, 1, 5, 2, 2, 1])  # a fails (5): initiative passes to red
    assert r["blue_retain_attempts"] == 0
    assert r["blue_a_holds"] == 1 and r["red_x_actions"] == 1 and r["blue_b_actions"] == 1


def test_if_chance_policy_threshold():
    # after a passes, the next listed formation b (command 3) retains at 3 - 1 = 2: 2/6
    blue = [F("a"), F("b", 3)]
    dice = [6, 1, 1, 1, 1, 1, 1]
    sc = game(blue, [F("x")], blue_retain="if-chance", blue_retain_chance=0.5)
    assert sc.run_with_dice(dice)["blue_retain_attempts"] == 0
    sc = game(blue, [F("x")], blue_retain="if-chance", blue_retain_chance=1 / 3)
    assert sc.run_with_dice(dice)["blue_retain_attempts"] == 1


def test_order_best_first_and_worst_first():
    blue = [F("weak", 2), F("strong", 5)]
    # strategy 6 v 1; blue's first activation rolls 5: passes only for the strong formation
    for order, acted in (("best-first", "strong"), ("worst-first", "weak")):
        sc = game(blue, [F("x")], blue_order=order)
        r = sc.run_with_dice([6, 1, 5, 1, 1])
        assert r[f"blue_{acted}_actions" if acted == "strong" else "blue_weak_holds"] == 1
    sc = game(blue, [F("x")])  # listed: weak first, fails on 5
    assert sc.run_with_dice([6, 1, 5, 1, 1])["blue_weak_holds"] == 1


def test_a_retaining_pick_ranks_chances_with_the_minus_one():
    # commands 6 and 7 both pass now on 6 faces (a tie: listed order), but a retaining test
    # passes on 5 and 6: best-first retains with the 7, worst-first with a 6
    blue = [F("x", 6), F("y", 6), F("z", 7)]
    sc = game(blue, [F("r", 4)], blue_retain="always", blue_order="best-first")
    # blue wins the roll; x passes on 6; retaining, z (7 - 1 = 6) passes on 6; red; y on 6
    r = sc.run_with_dice([6, 1, 6, 6, 1, 6])
    assert (r["blue_x_actions"], r["blue_z_actions"], r["blue_y_actions"]) == (1, 1, 1)
    assert r["blue_retained"] == 1
    # worst-first: x listed first of the three ties at 6/6; retaining, the least likely is a
    # 6 (5/6: fails on 6), here y, not z
    blue = [F("x", 7), F("z", 7), F("y", 6)]
    sc = game(blue, [F("r", 4)], blue_retain="always", blue_order="worst-first")
    r = sc.run_with_dice([6, 1, 6, 6, 1, 6])
    assert (r["blue_y_holds"], r["blue_retained"], r["blue_z_actions"]) == (1, 0, 1)


def test_activation_order_is_fixed_only_when_the_minus_one_keeps_it():
    from oddslab.rulesets.formation_actions.compile import _activation_order

    r = Rules()
    army = Army("blue", (F("x", 6), F("y", 6), F("z", 7)), order="best-first")
    assert _activation_order(army, r, 0) == ([0, 1, 2], False)
    army = Army("blue", (F("x", 3), F("y", 5), F("z", 4)), order="best-first")
    assert _activation_order(army, r, 3) == ([4, 5, 3], True)
    assert _activation_order(Army("b", army.formations), r, 0) == ([0, 1, 2], True)
    # chances that change with Shock: chosen at each activation
    assert not _activation_order(army, Rules(action_penalty="shock"), 0)[1]


def test_if_chance_looks_at_the_formation_the_order_picks_next():
    blue = [F("a", 3), F("b", 5), F("c", 4)]
    dice = [6, 1, 1, 1, 1, 1, 1, 1]
    # best-first: b acts first (passes on 1); next is c, retaining at 4 - 1 = 3: 3/6
    sc = game(
        blue, [F("x")], blue_order="best-first", blue_retain="if-chance", blue_retain_chance=0.5
    )
    assert sc.run_with_dice(dice)["blue_retain_attempts"] >= 1
    assert sc.run_with_dice(dice)["blue_b_actions"] == 1
    # worst-first: a first; next is c (3/6), not b (4/6): a 0.6 threshold is not met
    sc = game(
        blue, [F("x")], blue_order="worst-first", blue_retain="if-chance", blue_retain_chance=0.6
    )
    assert sc.run_with_dice(dice)["blue_retain_attempts"] == 0
    sc = game(
        blue, [F("x")], blue_order="worst-first", blue_retain="if-chance", blue_retain_chance=0.5
    )
    assert sc.run_with_dice(dice)["blue_retain_attempts"] >= 1


def test_winner_may_go_second():
    sc = game([F("a")], [F("x")], blue_choose="second", red_retain="always")
    # blue wins (6 v 1) and goes second: red's x tests first (rolls 6: fails, Shock 1)
    r = sc.run_with_dice([6, 1, 6, 1, 1])
    assert r["red_x_holds"] == 1 and r["blue_a_actions"] == 1


def test_break_withdraw_tie_rule_and_rally_from_broken():
    rules = Rules(first_turn_tie="red")
    sc = game([F("f", 3, units=2, shock=1)], [F("g", 4)], turns=2, rules=rules)
    # turn 1: 4 v 4 tie -> red (scenario input). g passes (2); f fails (5): Shock 2 = units,
    # broken. Rally: 3 - 2 = 1, rolls 2: fails, withdraws (stays broken).
    # turn 2: 3 v 3 tie -> blue (red won last round). f is broken, cannot act; g fails (6).
    # Rally, blue first (equal ratings: this turn's winner): f needs 1, rolls 1: rallies,
    # Shock 2 (its units) halved to 1. g needs 4, rolls 5: keeps Shock 1.
    r = sc.run_with_dice([4, 4, 2, 5, 2, 3, 3, 6, 1, 5])
    assert r["dice_used"] == 10
    assert r["red_won_strategy"] == 1 and r["blue_won_strategy"] == 1
    assert r["blue_f_broken_by_turn_1"] == 1 and r["blue_broken_after_turn_1"] == 1
    assert r["blue_f_withdrawals"] == 1 and r["blue_withdrawals"] == 1
    assert r["blue_f_rallied"] == 1 and r["blue_broken_after_turn_2"] == 0
    assert r["blue_f_shock_after_turn_1"] == 2 and r["blue_f_shock_after_turn_2"] == 1
    assert (r["blue_f_actions"], r["blue_f_holds"]) == (0, 1)
    assert (r["red_g_actions"], r["red_g_holds"]) == (1, 1)
    assert r["red_g_shock_after_turn_2"] == 1


def test_withdrawal_removed_and_first_turn_reroll():
    rules = Rules(withdrawal="removed")
    sc = game([F("f", 3, units=2, broken=True)], [F("g", 4)], turns=2, rules=rules)
    # turn 1: 2 v 2 tie, reroll (default): 5 v 1 blue. f broken, g passes (1).
    # rally f: 3 - 2 = 1, rolls 3: withdraws and leaves play; no more rallies.
    # turn 2: 1 v 6 red; g passes (1). No rally.
    r = sc.run_with_dice([2, 2, 5, 1, 1, 3, 1, 6, 1])
    assert r["dice_used"] == 9
    assert r["blue_won_strategy"] == 1 and r["blue_f_withdrawals"] == 1
    assert r["blue_broken_after_turn_2"] == 1 and r["blue_f_broken_by_turn_1"] == 1


def test_outside_shock_start_of_turn_breaks_before_acting():
    o = OutsideShock(fixed=2)
    rules = Rules(outside_timing="start-of-turn")
    sc = game([F("f", 6, units=2, outside_shock=o)], [F("g")], rules=rules)
    r = sc.run_with_dice([6, 1, 1, 6])  # f breaks before the action phase; g acts (1)
    assert r["blue_f_actions"] + r["blue_f_holds"] == 0 and r["blue_f_broken_by_turn_1"] == 1
    assert r["dice_used"] == 4  # strategy, g's test, f's rally (6 fails)
    sc = game([F("f", 6, units=2, outside_shock=o)], [F("g")])  # default: before rallying
    r = sc.run_with_dice([6, 1, 1, 1, 6])
    assert r["blue_f_actions"] == 1 and r["blue_f_broken_by_turn_1"] == 1


def test_shock_reading_of_the_minus_one():
    # a formation with 1 Shock and no suppressed unit, command 4: the text's sentence gives
    # no -1 (a roll of 4 passes); the table's reading gives -1 (4 fails)
    for reading, passed in (("suppressed", 1), ("shock", 0), ("either", 0), ("both", 0)):
        sc = game([F("f", shock=1)], [F("g")], rules=Rules(action_penalty=reading))
        assert sc.run_with_dice([6, 1, 4, 1, 6, 6])["blue_f_actions"] == passed
    sc = game([F("f", shock=1, suppressed=1)], [F("g")], rules=Rules(action_penalty="both"))
    assert sc.run_with_dice([6, 1, 2, 1, 6, 6])["blue_f_actions"] == 1  # 4 - 2: 2 passes
    assert sc.run_with_dice([6, 1, 3, 1, 6, 6])["blue_f_actions"] == 0


# -- every test's chance, through the kernel ----------------------------------------------------

READINGS = [
    Rules(),
    Rules(action_penalty="shock", rally_action_penalty=False),
    Rules(action_penalty="both", natural_one_passes=True, natural_six_fails=True),
]


@pytest.mark.parametrize("rules", READINGS, ids=["default", "shock", "both-naturals"])
@pytest.mark.parametrize("command", [0, 1, 3, 4, 6, 7])
def test_every_test_chance_matches_the_kernel(rules, command):
    """Replay each test with each face; the passing faces must equal pass_chances()."""
    f = Formation("f", command=command, units=4, suppressed=1, shock=1, enemy_within_8=True)
    fb = Formation(
        "f", command=command, units=4, suppressed=1, shock=1, broken=True, enemy_within_8=True
    )
    ch = pass_chances(f, rules)
    got = {"action": 0, "retain": 0, "rally": 0, "rally_broken": 0}
    for d in range(1, 7):
        # action test: f acts first (blue wins 6 v 1)
        sc = game([f], [F("g", 6)], rules=rules)
        got["action"] += sc.run_with_dice([6, 1, d])["blue_f_actions"]
        # retaining test: a (command 6) passes on 1, then f retains
        sc = game([F("a", 6), f], [F("g", 6)], rules=rules, blue_retain="always")
        got["retain"] += sc.run_with_dice([6, 1, 1, d])["blue_retained"]
        # rally tests: the formation cannot act (red's 6 v 1 first, g passes on 1, f command
        # 0 cannot pass an action test unless naturals) -- use end-phase Shock directly
        sc = game(
            [
                Formation(
                    "f",
                    command=command,
                    units=4,
                    suppressed=1,
                    shock=1,
                    enemy_within_8=True,
                    broken=False,
                )
            ],
            [F("g", 6)],
            turns=1,
            rules=rules,
        )
        r = sc.run_with_dice([1, 6, 1, 6, d])  # red first: g 1 passes; f rolls 6
        if r["blue_f_holds"] == 1:  # f failed: Shock 2 at the rally (still under 4)
            s_at_rally = 2
        else:
            s_at_rally = 1
        passed_rally = r["blue_f_shock_after_turn_1"] < s_at_rally
        got["rally"] += passed_rally
        sc = game([fb], [F("g", 6)], rules=rules)
        got["rally_broken"] += sc.run_with_dice([6, 1, 1, d])["blue_f_rallied"]
    assert got == ch


# -- simulation against exact answers -----------------------------------------------------------


def _three_formation_scenario(rules: Rules, turns: int = 4) -> FormationActionsScenario:
    blue = (
        Formation(
            "inf",
            command=4,
            units=4,
            suppressed=1,
            outside_shock=OutsideShock(table=(0.5, 0.3, 0.2)),
        ),
        Formation("arm", command=5, units=3, enemy_within_8=True, break_at=2),
    )
    red = (
        Formation(
            "x",
            command=3,
            units=2,
            outside_shock=OutsideShock(dice=oddslab.dice.DiceExpr(1, 3, -1)),
        ),
    )
    return FormationActionsScenario(
        (Army("blue", blue, strategy=4), Army("red", red, strategy=2)), turns, rules
    )


#: the statistics of the three-formation game a 0.5 pp error in must fail the comparison
EXACT_HEADLINE = (
    "blue_inf_shock_after_turn_4",
    "blue_arm_broken_by_turn_4",
    "blue_actions_turn_4",
    "red_x_holds",
)


@pytest.mark.statistical
@pytest.mark.parametrize(
    "rules",
    [
        Rules(),
        Rules(action_penalty="shock", withdrawal="removed", first_turn_tie="red"),
        Rules(
            action_penalty="either",
            break_check="end-phase",
            outside_timing="start-of-turn",
            natural_six_fails=True,
            rally_action_penalty=False,
        ),
    ],
    ids=["default", "shock-removed", "either-endphase-start"],
)
def test_simulation_matches_exact_pmfs(rules):
    sc = _three_formation_scenario(rules)
    ex = sc.exact_pmfs()
    assert len(ex) == len(sc.stats())  # no army retains: every statistic is exact
    out = oddslab.simulate(sc, trials=1_000_000, seed=20261122)
    for name, pmf in ex.items():
        assert abs(pmf.sum() - 1) < 1e-12, name
    assert_exact(dict(out.counts), ex, str(rules), EXACT_HEADLINE)


@pytest.mark.statistical
@pytest.mark.rule_switch("formation-actions", "broken_shock")
@pytest.mark.parametrize("broken_shock", ["cap", "accumulate"])
def test_broken_shock_simulation_matches_exact_pmfs(broken_shock):
    """A broken formation's Shock capped at its units (default) or accumulating: the lock-step
    kernel against the exact chains over 6 turns of outside Shock (2-unit red x breaks and
    keeps gaining 0-2 a turn)."""
    sc = _three_formation_scenario(Rules(broken_shock=broken_shock), turns=6)
    ex = sc.exact_pmfs()
    out = oddslab.simulate(sc, trials=1_000_000, seed=30)
    assert_exact(dict(out.counts), ex, broken_shock, ("red_x_shock_after_turn_6",))
    top = ex["red_x_shock_after_turn_6"]
    beyond = top[3:].sum()  # Shock above x's 2 units: only a broken x accumulating gets there
    assert (beyond == 0) if broken_shock == "cap" else (beyond > 0.05)


#: kernel games, fast-reference games and naive games of the retaining comparison: the fast
#: reference sees a 0.5 pp error in the headline statistics (``assert_power``), the naive
#: reference (the slow reference of the cascade, 6,000 games before the fast reference took
#: over the strong check) checks the fast one and the kernel
N_RETAIN = (4_000_000, 400_000, 2_000)
RETAIN_HEADLINE = (
    "blue_retain_attempts",
    "red_retain_attempts",
    "blue_retained",
    "red_x_shock_after_turn_3",
)


@pytest.mark.statistical
@pytest.mark.rule_switch("formation-actions", "broken_shock")
@pytest.mark.rule_switch("formation-actions", "retain_limit")
@pytest.mark.parametrize(
    "reading, broken_shock",
    [("either", "cap"), ("suppressed", "cap"), ("suppressed", "accumulate")],
)
def test_simulation_matches_the_references_with_retaining(reading, broken_shock):
    """Both armies retain (blue when the chance is good, ordering best-first; red always,
    worst-first, going second; ``retain_limit`` at its default, "in-a-row"): no exact answer,
    so the kernel against the fast numpy reference (tests/fast_formation_actions.py) on every
    statistic's whole distribution, with the power to see a 0.5 pp error in the headline
    statistics; both against the pure-Python reference."""
    blue = (
        Formation("a", command=4, units=3),
        Formation("b", command=3, units=2, suppressed=1),
        Formation("c", command=5, units=3),
    )
    red = (
        Formation("x", command=4, units=2, outside_shock=OutsideShock(table=(0.6, 0.4))),
        Formation("y", command=3, units=3),
    )
    sc = FormationActionsScenario(
        (
            Army(
                "blue", blue, strategy=3, retain="if-chance", retain_chance=0.5, order="best-first"
            ),
            Army("red", red, strategy=3, retain="always", order="worst-first", choose="second"),
        ),
        3,
        # "suppressed": fixed orders; "either": chances change
        Rules(action_penalty=reading, broken_shock=broken_shock),
    )
    n_kernel, n_fast, games = N_RETAIN
    run = lambda sc, n, seed: {k: counts_of(v) for k, v in naive.simulate(sc, n, seed).items()}  # noqa: E731
    ref = cached_run("formation-actions", sc, games, 7, run)
    out = oddslab.simulate(sc, trials=n_kernel, seed=8)
    kernel = {s.name: out.counts[s.name] for s in sc.stats()}
    fast = fast_simulate(sc, n_fast, 9)
    what = f"{reading}/{broken_shock}"
    assert_agree(kernel, fast, f"{what}: kernel v fast")
    headline = {k: kernel[k] for k in RETAIN_HEADLINE}
    assert_power(headline, fast, f"{what}: kernel v fast", k=len(kernel))
    assert_agree(kernel, ref, f"{what}: kernel v naive")
    assert_agree(fast, ref, f"{what}: fast v naive")


# -- determinism ------------------------------------------------------------------------------

_DET = """
import json, sys
import oddslab
from oddslab.scenario import from_dict
from oddslab.rulesets.formation_actions import WARMUP
out = oddslab.simulate(from_dict(WARMUP), trials=3 * 65536 + 17, seed=99)
print(json.dumps({k: v.tolist() for k, v in out.counts.items()}))
"""


def test_deterministic_across_thread_counts():
    res = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": str(ROOT)}
        p = subprocess.run(
            [sys.executable, "-c", _DET], env=env, capture_output=True, text=True, timeout=600
        )
        assert p.returncode == 0, p.stderr[-2000:]
        res.append(json.loads(p.stdout))
    assert res[0] == res[1]
    again = oddslab.simulate(from_dict(WARMUP), trials=3 * 65536 + 17, seed=99)
    assert {k: v.tolist() for k, v in again.counts.items()} == res[0]


# -- job protocol ---------------------------------------------------------------------------------


def test_job_meta_stats_and_labels():
    sc = from_dict(WARMUP)
    job = sc.compile()
    assert job.ruleset == "formation-actions"
    assert job.meta["primary"] == "blue_actions_turn_1"
    names = [s.name for s in job.stats]
    assert len(names) == len(set(names))
    assert all("_" not in s.title for s in job.stats)  # plain-words labels
    assert all(h.stat in names for h in job.headlines)
    assert all("_" not in h.label for h in job.headlines)
    assert "red_retain_attempts" not in names  # red never retains
    res = sc.resolved()
    assert all(
        isinstance(v, str | int | float | bool) for sec in res.values() for v in sec.values()
    )


def test_stat_bounds_hold_in_extreme_games():
    """Worst cases stay inside every statistic's bins (the histogram would overflow)."""
    o = OutsideShock(fixed=3)
    blue = tuple(Formation(f"f{i}", command=0, units=1, outside_shock=o) for i in range(3))
    red = tuple(Formation(f"g{i}", command=6, units=5, shock=4, outside_shock=o) for i in range(2))
    sc = FormationActionsScenario(
        (Army("blue", blue, retain="always"), Army("red", red, retain="always")), 5
    )
    out = oddslab.simulate(sc, trials=20_000, seed=1)
    assert out.trials == 20_000
    for s in sc.stats():
        assert out.counts[s.name].sum() == 20_000, s.name


@pytest.mark.parametrize("example", sorted(ROOT.glob("examples/formation-actions-*.toml")))
def test_a_game_counts_what_the_scripted_replay_reports(example):
    """The simulation counts each turn's statistics into the histogram as the turn ends (the
    scripted replay reads them back from a histogram of its own): one simulated game from a
    seed gives, statistic by statistic, the values ``run_with_dice`` reports for that seed."""
    from oddslab.rulesets.formation_actions import kernel as K
    from oddslab.scenario import load

    sc = load(example)
    job = sc.compile()
    for seed in (1, 2, 3, 11):
        out = np.zeros((len(job.stats), job.n_bins), dtype=np.int64)
        words = np.array([seed, 2, 3, 4], dtype=np.uint64)
        rec = np.zeros((0, len(job.stats)), dtype=np.int32)  # no per-trial records
        K.run_games(*K._prologue(words, 1, out, rec, *job.params))
        assert (out.sum(axis=1) == 1).all()  # every statistic counted once
        played = {s.name: int(out[i].argmax()) for i, s in enumerate(job.stats)}
        replay = sc.run_with_dice([], seed=seed)
        replay.pop("dice_used")
        assert played == replay
        assert any(v for k, v in played.items() if "_turn_" in k)  # not a game of zeros
