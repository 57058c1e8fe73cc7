"""Exact joint tables of formation actions (:mod:`oddslab.rulesets.formation_actions.exact`,
``Job.exact_joint``): a hand-worked game, consistency with the exact PMFs, the independent
parts multiplied, what is not exact, and (statistical) the joint against the per-trial
records of the simulation.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from stats import chisquare_pmf
from switches import assert_exact_power

from oddslab._seeding import chunk_seeds
from oddslab.dice import DiceExpr
from oddslab.engine import CHUNK_TRIALS
from oddslab.rulesets.formation_actions import (
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
    formation_state,
)


def _one(formation: Formation, turns: int = 1, **rules) -> FormationActionsScenario:
    return FormationActionsScenario(
        (Army("blue", (formation,)), Army("red", (Formation("x", command=4, units=2),))),
        turns,
        Rules(**rules),
    )


def test_a_hand_worked_turn():
    """Command 3, 2 units, 1 Shock, one turn (default rules: the action test's -1 only for a
    suppressed unit, breaking at 2 Shock as soon as it is reached, a broken formation that
    fails its rally stays broken).

    - passes (1/2), keeps 1 Shock; rallies on 3 (1/2) to 0 Shock, else keeps 1;
    - fails (1/2): Hold, 2 Shock, broken; rallies on 3 - 2 = 1 (1/6): Shock = units = 2,
      halved to 1, no longer broken; else (5/6) withdraws (stays broken, 2 Shock).
    """
    sc = _one(Formation("a", command=3, units=2, shock=1))
    names = (
        "blue_a_shock_after_turn_1",
        "blue_a_broken_by_turn_1",
        "blue_a_withdrawals",
        "blue_a_action_turn_1",
    )
    want = np.zeros((4, 2, 2, 3))  # Shock is at most 1 + 1 + 1 = 3 in one turn: 4 bins
    for (s, b, w, a), p in {
        (0, 0, 0, 1): Fraction(1, 4),
        (1, 0, 0, 1): Fraction(1, 4),
        (1, 1, 0, 2): Fraction(1, 12),
        (2, 1, 1, 2): Fraction(5, 12),
    }.items():
        want[s, b, w, a] = float(p)
    got = sc.exact_joint(names)
    np.testing.assert_allclose(got, want, atol=1e-15, rtol=0)
    # the same table from the job, in any order of the names
    job = sc.compile()
    np.testing.assert_allclose(
        job.exact_joint(names[::-1]), want.transpose(3, 2, 1, 0), atol=1e-15, rtol=0
    )
    # the end state: Shock, broken now, ever broken, withdrawn from play, withdrawals
    end = sc.end_state("blue", "a")
    rows = {tuple(r[:5]): r[5] for r in end.itertuples(index=False)}
    assert rows.keys() == {(0, 0, 0, 0, 0), (1, 0, 0, 0, 0), (1, 0, 1, 0, 0), (2, 1, 1, 0, 1)}
    assert abs(rows[(2, 1, 1, 0, 1)] - 5 / 12) < 1e-15
    assert abs(rows[(1, 0, 0, 0, 0)] - 1 / 4) < 1e-15


def _mixed() -> FormationActionsScenario:
    blue = (
        Formation("a", command=4, units=3, shock=1, outside_shock=OutsideShock(fixed=1)),
        Formation(
            "b", command=3, units=2, suppressed=1, outside_shock=OutsideShock(table=(0.6, 0.4))
        ),
    )
    red = (
        Formation("x", command=4, units=3, outside_shock=OutsideShock(dice=DiceExpr(1, 3, -1))),
        Formation("y", command=5, units=2, break_at=99),  # cannot break
    )
    return FormationActionsScenario(
        (Army("blue", blue, strategy=3), Army("red", red, strategy=2)),
        3,
        Rules(action_penalty="either", withdrawal="removed"),
    )


def test_the_joint_of_every_formation_statistic_has_the_exact_marginals():
    sc = _mixed()
    pmfs = sc.exact_pmfs()
    reported = {s.name: s.nbins for s in sc.stats()}
    for p in ("blue_a", "blue_b", "red_x"):
        names = tuple(n for n in reported if n.startswith(p + "_"))
        # the chain carries at most a few marks at once: the end state with each other one
        end = (f"{p}_shock_after_turn_3", f"{p}_broken_by_turn_3", f"{p}_withdrawals")
        for other in names:
            if other in end:
                continue
            got = sc.exact_joint((*end, other))
            assert got.shape == tuple(reported[n] for n in (*end, other))
            assert abs(got.sum() - 1) < 1e-12
            for k, n in enumerate((*end, other)):
                axes = tuple(i for i in range(4) if i != k)
                np.testing.assert_allclose(got.sum(axis=axes), pmfs[n], atol=1e-12, rtol=0)
    # withdrawn from play ("removed"): at most one withdrawal, and only once broken
    t = sc.exact_joint(("blue_a_broken_by_turn_3", "blue_a_withdrawals"))
    assert t.shape == (2, 4) and t[0, 1:].sum() == 0 and t[1, 2:].sum() < 1e-15


def test_independent_parts_multiply_and_an_army_adds_up_its_formations():
    sc = _mixed()
    pm = sc.exact_pmfs()
    a, x, s, tot = (
        "blue_a_holds",
        "red_x_shock_after_turn_2",
        "blue_won_strategy",
        "red_holds_turn_1",
    )
    np.testing.assert_allclose(
        sc.exact_joint((a, x, s)), np.multiply.outer(np.multiply.outer(pm[a], pm[x]), pm[s])
    )
    # an army's total with the other army's formations: independent
    np.testing.assert_allclose(sc.exact_joint((a, tot)), np.multiply.outer(pm[a], pm[tot]))
    # an army's totals with its formations' statistics: what each formation adds
    names = ("red_holds_turn_2", "red_x_action_turn_2", "red_withdrawals", "red_y_holds")
    t = sc.exact_joint(names)
    for k, n in enumerate(names):
        axes = tuple(i for i in range(4) if i != k)
        np.testing.assert_allclose(t.sum(axis=axes), pm[n], atol=1e-12, rtol=0)
    pair = t.sum(axis=(2, 3))  # red has two formations: 2 Holds only if x held, none if it did
    assert pair[2, :2].sum() == 0 and pair[0, 2] == 0
    # y cannot break: red's withdrawals are x's
    np.testing.assert_allclose(
        sc.exact_joint(("red_withdrawals", "red_x_withdrawals"))[:4],
        np.diag(pm["red_x_withdrawals"]),
    )
    assert sc.exact_joint(("no_such_statistic",)) is None
    assert sc.exact_joint(("red_y_broken_by_turn_1",)) is None  # not reported: cannot break
    # a name twice: the diagonal
    d = sc.exact_joint((a, a))
    np.testing.assert_allclose(d, np.diag(pm[a]))
    # an army that may retain has no exact joint
    blue, red = sc.armies
    retains = FormationActionsScenario(
        (Army("blue", blue.formations, retain="always"), red), 3, sc.rules
    )
    assert retains.exact_joint(("blue_a_holds",)) is None
    assert retains.exact_joint(("red_x_holds", "red_y_actions")) is not None
    with pytest.raises(ValueError, match="may retain"):
        retains.end_state("blue", "a")
    with pytest.raises(ValueError, match="no formation 'q'"):
        sc.end_state("blue", "q")


def test_strategy_statistics_jointly_by_hand():
    """Strategy 3 against 3, a first-turn tie rerolled: each side wins turn 1 with 1/2; after
    that the side that lost the turn before also takes the ties, 6/36: the winner of turn 1
    wins turn 2 with 15/36, the loser with 21/36."""
    sc = _one(Formation("a", command=4, units=2), turns=2)
    names = ("blue_won_strategy_turn_1", "blue_won_strategy_turn_2", "red_won_strategy")
    want = np.zeros((2, 2, 3))
    for (w1, w2), p in {
        (1, 1): Fraction(1, 2) * Fraction(15, 36),
        (1, 0): Fraction(1, 2) * Fraction(21, 36),
        (0, 1): Fraction(1, 2) * Fraction(21, 36),
        (0, 0): Fraction(1, 2) * Fraction(15, 36),
    }.items():
        want[w1, w2, 2 - w1 - w2] = float(p)
    np.testing.assert_allclose(sc.exact_joint(names), want, atol=1e-15, rtol=0)
    # red's turn statistic is blue's turned over, and both with the formation: a product
    t = sc.exact_joint(("blue_won_strategy_turn_1", "red_won_strategy_turn_1", "blue_a_holds"))
    np.testing.assert_allclose(t.sum(axis=2), [[0, 0.5], [0.5, 0]], atol=1e-15)
    np.testing.assert_allclose(t[1, 0], 0.5 * sc.exact_pmfs()["blue_a_holds"], atol=1e-15)


def test_formation_state_rejects_unknown_and_repeated_marks():
    f = Formation("a", command=4, units=2)
    with pytest.raises(ValueError, match="no formation statistic"):
        formation_state(f, Rules(), 2, ("shock_after_turn_3",))
    with pytest.raises(ValueError, match="at most once"):
        formation_state(f, Rules(), 2, ("holds", "holds"))


def _records_joints(job, tables, chunks: int, seed: int, batch: int = 4) -> list[np.ndarray]:
    """The joint counts of each tuple of names in ``tables`` over the per-trial records of
    ``chunks`` full chunks of ``job`` (a few chunks at a time: memory bounded by the
    batch)."""
    names = [s.name for s in job.stats]
    cols = [[names.index(n) for n in t] for t in tables]
    shapes = [tuple(job.stats[c].nbins for c in cc) for cc in cols]
    counts = [np.zeros(shape, dtype=np.int64) for shape in shapes]
    for start in range(0, chunks, batch):
        c = min(batch, chunks - start)
        seeds = chunk_seeds(seed, start, start + c)
        nt = np.full(c, CHUNK_TRIALS, dtype=np.int64)
        out = np.zeros((c, len(job.stats), job.n_bins), dtype=np.int64)
        rec = np.zeros((c, CHUNK_TRIALS, len(job.stats)), dtype=np.int32)
        job.kernel(seeds, nt, out, rec, *job.params)
        rec = rec.reshape(-1, len(job.stats))
        for cc, shape, cnt in zip(cols, shapes, counts, strict=True):
            flat = np.ravel_multi_index(tuple(rec[:, cc].T), shape)
            cnt += np.bincount(flat, minlength=cnt.size).reshape(shape)
    return counts


@pytest.mark.statistical
def test_the_exact_joint_matches_the_simulated_records():
    """At 16 chunks (1,048,576 games) of the engine's kernel: each formation's end state
    (Shock, broken by the end, withdrawals) jointly, a formation's turn-1 action with its
    Holds and Shock after turn 2, two formations of the two armies together, strategy
    statistics together, the independent parts (the strategy roll, a formation, the other
    army's total), and an army's totals with its formations' statistics."""
    sc = _mixed()
    job = sc.compile()
    tables = (
        ("blue_a_shock_after_turn_3", "blue_a_broken_by_turn_3", "blue_a_withdrawals"),
        ("blue_b_shock_after_turn_3", "blue_b_broken_by_turn_3", "blue_b_withdrawals"),
        ("red_x_shock_after_turn_3", "red_x_broken_by_turn_3", "red_x_withdrawals"),
        ("blue_a_action_turn_1", "blue_a_holds", "blue_a_shock_after_turn_2"),
        ("blue_b_broken_by_turn_2", "red_x_rallied", "red_x_rallied_unbroken"),
        ("blue_won_strategy", "red_won_strategy_turn_2", "blue_won_strategy_turn_3"),
        ("blue_won_strategy_turn_1", "blue_a_action_turn_1", "red_holds_turn_1"),
        ("red_holds_turn_2", "red_x_action_turn_2", "red_withdrawals", "red_broken_after_turn_3"),
        ("blue_actions_turn_1", "blue_broken_after_turn_3", "blue_b_shock_after_turn_3"),
    )
    pmfs = sc.exact_pmfs()
    for names, got in zip(tables, _records_joints(job, tables, 16, seed=2029), strict=True):
        assert got.sum() == 16 * CHUNK_TRIALS
        p = chisquare_pmf(got.ravel(), sc.exact_joint(names).ravel())
        assert p > 1e-4, (names, p)
        assert_exact_power(got.ravel(), sc.exact_joint(names).ravel(), str(names))
        # the test has the power to tell a joint from its marginals: it rejects their product
        # (but for the table of independent parts, which is that product)
        product = np.ones(())
        for n in names:
            product = np.multiply.outer(product, pmfs[n])
        if names != tables[6]:
            assert chisquare_pmf(got.ravel(), product.ravel()) < 1e-4, names
