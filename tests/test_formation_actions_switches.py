"""Every formation-actions rule switch, each value, against independent answers that see a
0.5 percentage-point error.

One mixed game reaches every switch: blue retains the initiative whenever it may (so the
game runs the kernels' retaining paths), red never retains and picks its formations
best-first (under the Shock readings of the -1 that is the kernel picking an order at each
activation); red has outside Shock of every kind, a suppressed formation, formations broken
at the start and one breaking above its units. For every value:

- the exact answer: red tests once per turn whatever blue does, so every red statistic and
  the strategy roll's have exact PMFs (``sc.exact_pmfs()``, the Markov chains, which have
  brute-force and table oracles of their own). The kernel (``N_KERNEL`` games) agrees with
  them on every one, and a 0.5 pp error in the switch's headline statistics would have
  failed (``fast_formation_actions.assert_exact``, checked on every run);
- ``retain_limit`` moves only the retaining army: at ``"once-per-turn"`` the kernel against
  the fast numpy reference (tests/fast_formation_actions.py, ``N_FAST`` games) on every
  statistic, with the power to see 0.5 pp in blue's retain statistics
  (``switches.assert_power``); the fast reference also against the exact PMFs (red) and the
  pure-Python naive reference. The default, ``"in-a-row"``, is what the retaining games of
  tests/test_formation_actions.py compare the same way;
- the pure-Python naive reference (``N_NAIVE`` games, the slow reference of the cascade: it
  shows the switch reached and followed, not the last half point) on every statistic, and a
  value other than the default moves the kernel's answer (``switches.check_switch``).

``rally_action_penalty`` is also checked under the Shock readings of the -1: in the mixed game
with ``action_penalty = "either"``, and (``test_rally_penalty_at_no_shock``) for a suppressed
formation rallying at Shock 0 under "shock" and "either", against its exact PMFs.

``test_every_switch_at_once`` runs all the non-default values together (the picking kernel
with the naturals, the rally -1, removal, accumulating Shock, the end-phase break check
with outside Shock before the rally) against the exact PMFs, the fast reference and the naive
reference.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from fast_formation_actions import assert_exact
from fast_formation_actions import simulate as fast_simulate
from naive_cache import cached_run
from switches import (
    assert_agree,
    assert_power,
    check_switch,
    counts_of,
    kernel_once,
    naive_once,
    switch_params,
)

from oddslab import engine, simulate
from oddslab.dice import DiceExpr
from oddslab.rulesets.formation_actions import (
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
)
from oddslab.rulesets.formation_actions import kernel_block as KB
from tests import naive_formation_actions as naive

N_KERNEL = 1_000_000
N_FAST = 400_000
N_NAIVE = 500
SEED = 27


def mixed(rules: dict) -> FormationActionsScenario:
    """Two turns; blue (four formations: it may retain twice a turn) retains always and goes
    second when it wins the strategy roll, red
    never retains and activates best-first. Red: command 6 (only a natural six can fail),
    outside Shock from dice, a fixed point and a table, a suppressed formation and two
    broken at the start, command 1 near the enemy (its rally passes only on a natural one),
    one breaking above its single unit (Shock capped or accumulating) and one whose rally
    from broken leaves it at its threshold (re-broken only by an end-phase check)."""
    blue = (
        Formation("hq", command=7, units=2),
        Formation("x", command=3, units=3, suppressed=1),
        Formation("y", command=5, units=3),
        Formation("z", command=2, units=2, shock=1),
    )
    red = (
        Formation("hq", command=6, units=2),
        Formation(
            "a",
            command=4,
            units=3,
            shock=1,
            outside_shock=OutsideShock(dice=DiceExpr.parse("D3-1")),
        ),
        Formation(
            "b", command=6, units=3, suppressed=1, broken=True, outside_shock=OutsideShock(fixed=1)
        ),
        Formation("c", command=3, units=2, outside_shock=OutsideShock(table=(0.5, 0.5))),
        Formation("d", command=1, units=2, enemy_within_8=True),
        Formation("e", command=2, units=1, break_at=2),
        Formation("f", command=4, units=4, break_at=2, broken=True),
    )
    armies = (
        Army("blue", blue, strategy=3, retain="always", choose="second"),
        Army("red", red, strategy=3, order="best-first"),
    )
    return FormationActionsScenario(armies, 2, dataclasses.replace(Rules(), **rules))


def _kernel(rules):
    return simulate(mixed(rules), trials=N_KERNEL, seed=SEED).counts


def _naive(rules):
    def run(sc, n, seed):
        return {k: counts_of(v) for k, v in naive.simulate(sc, n, seed).items()}

    return cached_run("formation-actions", mixed(rules), N_NAIVE, SEED, run)


#: the case's name in the session caches of tests/switches.py (shared by every ruleset)
CASE = "formation-actions mixed"


def _key(rules: dict) -> tuple:
    return (CASE, tuple(sorted(rules.items())))


START = {"outside_timing": "start-of-turn"}

CASES = [
    (
        pytest.mark.rule_switch("formation-actions", "action_penalty"),
        ["shock", "either", "both"],
        None,
    ),
    (pytest.mark.rule_switch("formation-actions", "natural_one_passes"), [True], None),
    (pytest.mark.rule_switch("formation-actions", "natural_six_fails"), [True], None),
    (pytest.mark.rule_switch("formation-actions", "rally_action_penalty"), [True], None),
    # the rally's -1 under a Shock reading: "either" gives a suppressed formation with Shock -1
    # (the default reading, "suppressed", never looks at Shock; every_switch_at_once has "both")
    (
        pytest.mark.rule_switch("formation-actions", "rally_action_penalty"),
        [True],
        {"action_penalty": "either"},
    ),
    (pytest.mark.rule_switch("formation-actions", "retain_limit"), ["once-per-turn"], None),
    (pytest.mark.rule_switch("formation-actions", "withdrawal"), ["removed"], None),
    # red f rallies from broken to Shock 2, its threshold: only an end-phase check breaks it
    # again (the end phase with outside Shock drawn in it)
    (pytest.mark.rule_switch("formation-actions", "break_check"), ["end-phase"], None),
    # Shock rises in the action phase only on the formation's own failed test, after it acted:
    # breaking then or at the end phase differs when outside Shock lands at the start of turn
    (pytest.mark.rule_switch("formation-actions", "break_check"), ["end-phase"], START),
    (pytest.mark.rule_switch("formation-actions", "outside_timing"), ["start-of-turn"], None),
    (pytest.mark.rule_switch("formation-actions", "first_turn_tie"), ["blue", "red"], None),
    (pytest.mark.rule_switch("formation-actions", "broken_shock"), ["accumulate"], None),
]

#: per switch, the statistics it moves most (exact PMFs at each value against the default's):
#: a 0.5 pp error in any of them must fail the comparison
HEADLINE = {
    "action_penalty": ("red_a_holds", "red_holds_turn_2"),
    "natural_one_passes": ("red_d_shock_after_turn_2",),
    "natural_six_fails": ("red_hq_actions",),
    "rally_action_penalty": ("red_b_rallied",),
    "withdrawal": ("red_f_withdrawals", "red_b_shock_after_turn_2"),
    "break_check": ("red_b_action_turn_2", "red_f_broken_at_end"),
    "outside_timing": ("red_b_action_turn_2", "red_a_action_turn_1"),
    "first_turn_tie": ("red_won_strategy_turn_1",),
    "broken_shock": ("red_e_shock_after_turn_2", "red_a_shock_after_turn_2"),
    "retain_limit": ("red_a_holds",),
}
#: blue's statistics ``retain_limit`` moves: the kernel against the fast reference
RETAIN_HEADLINE = ("blue_retain_attempts", "blue_actions_turn_2")


def _fast(rules: dict) -> dict[str, np.ndarray]:
    return naive_once(("fast", *_key(rules)), lambda: fast_simulate(mixed(rules), N_FAST, SEED))


@pytest.mark.parametrize("field, value, default, extra", list(switch_params(CASES, Rules())))
def test_switch_value_matches_exact_and_references(field, value, default, extra):
    rules = {**(extra or {}), field: value}
    sc = mixed(rules)
    # the kernel the switch lives in: red's best-first order is picked at each activation
    # when its chances change with Shock, or when the retaining -1 would rank red otherwise
    # (with a natural 1 passing, command 1 passes on 1 face with or without the -1)
    picking = sc.rules.action_penalty != "suppressed" or sc.rules.natural_one_passes
    want = KB.run_formation_actions_picking if picking else KB.run_formation_actions_block
    assert engine._as_job(sc)[0].kernel is want
    check_switch(field, value, default, CASE, _kernel, _naive, extra_rules=extra)
    kernel = kernel_once(_key(rules), lambda: _kernel(rules))
    assert_exact(kernel, sc.exact_pmfs(), f"mixed with {rules}", HEADLINE[field])
    if field == "retain_limit" and value != default:
        # (the default, "in-a-row", is what the retaining games of tests/test_formation_actions.py
        # compare with the fast reference)
        fast = _fast(rules)
        assert_agree(kernel, fast, f"kernel v fast, {rules}")
        assert_power({k: kernel[k] for k in RETAIN_HEADLINE}, fast, "kernel v fast", k=len(kernel))
        # the fast reference itself: against the exact PMFs and the pure-Python reference
        assert_exact(fast, sc.exact_pmfs(), f"fast with {rules}", HEADLINE[field])
        assert_agree(fast, naive_once(_key(rules), lambda: _naive(rules)), f"fast v naive {rules}")


EVERYTHING = {
    "action_penalty": "both",
    "natural_one_passes": True,
    "natural_six_fails": True,
    "rally_action_penalty": True,
    "retain_limit": "once-per-turn",
    "withdrawal": "removed",
    "break_check": "end-phase",
    "first_turn_tie": "red",
    "broken_shock": "accumulate",
}


def test_every_switch_at_once():
    sc = mixed(EVERYTHING)
    assert engine._as_job(sc)[0].kernel is KB.run_formation_actions_picking
    kernel = kernel_once(_key(EVERYTHING), lambda: _kernel(EVERYTHING))
    exact = sc.exact_pmfs()
    headline = tuple(dict.fromkeys(h for v in HEADLINE.values() for h in v))
    assert_exact(kernel, exact, "every switch", headline)
    fast = _fast(EVERYTHING)
    assert_agree(kernel, fast, "every switch: kernel v fast")
    assert_power({k: kernel[k] for k in RETAIN_HEADLINE}, fast, "kernel v fast", k=len(kernel))
    assert_exact(fast, exact, "every switch: fast", ("red_holds_turn_2", "red_f_withdrawals"))
    assert_agree(fast, _naive(EVERYTHING), "every switch: fast v naive")
    assert_agree(kernel, _naive(EVERYTHING), "every switch: kernel v naive")


def broken_without_shock(penalty: str) -> FormationActionsScenario:
    """Red p starts broken and suppressed with no Shock and no outside Shock, so its first
    rally is taken at Shock 0 (the mixed game's broken formations have Shock by then)."""
    red = (
        Formation("p", command=4, units=3, suppressed=1, broken=True),
        Formation("r", command=4, units=2),
    )
    armies = (Army("blue", (Formation("q", command=4, units=2),), strategy=3),
              Army("red", red, strategy=3))  # fmt: skip
    return FormationActionsScenario(
        armies, 2, Rules(action_penalty=penalty, rally_action_penalty=True)
    )


@pytest.mark.rule_switch("formation-actions", "rally_action_penalty")
@pytest.mark.parametrize("penalty", ["shock", "either"])
def test_rally_penalty_at_no_shock(penalty):
    """The rally's -1 at Shock 0 under the Shock readings of the action test's -1: none under
    "shock", the suppressed -1 under "either" (the kernel against the exact PMFs, with the
    power to see 0.5 pp in red p's rallies)."""
    sc = broken_without_shock(penalty)
    kernel = simulate(sc, trials=N_KERNEL, seed=SEED).counts
    assert_exact(kernel, sc.exact_pmfs(), f"broken without Shock, {penalty}", ("red_p_rallied",))
