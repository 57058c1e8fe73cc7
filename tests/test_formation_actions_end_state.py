"""The end-state statistics of formation actions (``<army>_<f>_broken_at_end``, and
``<army>_<f>_out_of_play`` under ``withdrawal = "removed"``): a hand-worked game, which
scenarios report them, their exact marginals and the simulated joint end state (Shock after
the last turn, broken at the end, out of play) against the exact chain's joint table.
"""

from __future__ import annotations

import numpy as np
import pytest

import oddslab
from oddslab.rulesets.formation_actions import Army, Formation, FormationActionsScenario, Rules
from tests.stats import P_MIN, chisquare_pmf
from tests.switches import assert_exact_power


def _one(withdrawal: str, turns: int = 1) -> FormationActionsScenario:
    """Blue's single formation starts broken (it cannot act; it rallies at 4 - 2 = 2)."""
    blue = (Formation("a", command=4, units=2, broken=True),)
    red = (Formation("x", command=4, units=2),)
    return FormationActionsScenario(
        (Army("blue", blue), Army("red", red)), turns, Rules(withdrawal=withdrawal)
    )


@pytest.mark.parametrize("withdrawal", ["removed", "stays-broken"])
def test_hand_worked_rally_failed_and_passed(withdrawal):
    # strategy 6 v 1: blue first; a is broken and does not act; x passes (1); end phase:
    # a rallies at 2 and rolls 5: fails, withdraws (out of play under "removed")
    sc = _one(withdrawal)
    r = sc.run_with_dice([6, 1, 1, 5])
    assert r["dice_used"] == 4 and r["blue_a_withdrawals"] == 1
    assert r["blue_a_broken_at_end"] == 1
    assert "red_x_broken_at_end" not in r  # x cannot break in one turn: not reported
    if withdrawal == "removed":
        assert r["blue_a_out_of_play"] == 1
    else:
        assert "blue_a_out_of_play" not in r  # never out of play: not reported
    # a rolls 1 instead: it rallies, no longer broken (it was broken by turn 1)
    r = sc.run_with_dice([6, 1, 1, 1])
    assert r["dice_used"] == 4 and r["blue_a_rallied"] == 1
    assert r["blue_a_broken_at_end"] == 0 and r["blue_a_broken_by_turn_1"] == 1
    if withdrawal == "removed":
        assert r["blue_a_out_of_play"] == 0


def test_a_formation_that_cannot_break_reports_no_end_state():
    blue = (Formation("a", command=4, units=2), Formation("z", command=4, units=2, break_at=99))
    sc = FormationActionsScenario(
        (Army("blue", blue), Army("red", (Formation("x"),))), 2, Rules(withdrawal="removed")
    )
    names = sc.stat_names()
    assert "blue_a_broken_at_end" in names and "blue_a_out_of_play" in names
    assert "blue_z_broken_at_end" not in names and "blue_z_out_of_play" not in names


def _two(withdrawal: str) -> FormationActionsScenario:
    """Three turns in which formations break, rally and withdraw often."""
    blue = (
        Formation("a", command=3, units=2, shock=1),
        Formation("b", command=4, units=3, broken=True),
    )
    red = (Formation("x", command=3, units=2, suppressed=1),)
    return FormationActionsScenario(
        (Army("blue", blue), Army("red", red, strategy=3)), 3, Rules(withdrawal=withdrawal)
    )


@pytest.mark.parametrize("withdrawal", ["removed", "stays-broken"])
def test_exact_marginals_are_the_joint_tables_margins(withdrawal):
    sc = _two(withdrawal)
    pmfs = sc.exact_pmfs()
    for f in ("blue_a", "blue_b", "red_x"):
        names = [f"{f}_broken_at_end"] + ([f"{f}_out_of_play"] if withdrawal == "removed" else [])
        table = sc.exact_joint(tuple(names))
        assert table is not None and abs(table.sum() - 1.0) < 1e-12
        for k, n in enumerate(names):
            m = table.sum(axis=tuple(i for i in range(table.ndim) if i != k))
            np.testing.assert_allclose(m[: len(pmfs[n])], pmfs[n], atol=1e-12)
    if withdrawal == "removed":  # out of play implies broken at the end
        t = sc.exact_joint(("blue_b_broken_at_end", "blue_b_out_of_play"))
        assert t[0, 1] == 0.0 and t[1, 1] > 0.0


@pytest.mark.statistical
@pytest.mark.parametrize("withdrawal", ["removed", "stays-broken"])
def test_simulated_joint_end_state_against_the_exact_chain(withdrawal):
    sc = _two(withdrawal)
    for f in ("blue_b", "red_x"):
        names = (f"{f}_shock_after_turn_3", f"{f}_broken_at_end")
        if withdrawal == "removed":
            names += (f"{f}_out_of_play",)
        exact = sc.exact_joint(names)
        assert exact is not None
        run = oddslab.simulate(sc, trials=1_000_000, seed=11, joint=[names])
        table = run.joints[names]
        assert table.counts.sum() == 1_000_000
        dense = np.zeros(exact.shape, dtype=np.int64)
        dense[tuple(table.values.T)] = table.counts
        assert chisquare_pmf(dense.ravel(), exact.ravel()) > P_MIN
        assert_exact_power(dense.ravel(), exact.ravel(), str(names))
