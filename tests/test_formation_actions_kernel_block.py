"""The lock-step kernels (:mod:`oddslab.rulesets.formation_actions.kernel_block`) play exactly
the games of the per-game kernel: the same histograms, bit for bit, for the same chunk seed,
over the examples, every rule switch they read and every activation order (fixed, and picked
at each activation); partial blocks included.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from oddslab import engine
from oddslab._seeding import chunk_seeds
from oddslab.dice import DiceExpr
from oddslab.rulesets.formation_actions import (
    Army,
    Formation,
    FormationActionsScenario,
    OutsideShock,
    Rules,
)
from oddslab.rulesets.formation_actions import kernel as K
from oddslab.rulesets.formation_actions import kernel_block as KB
from oddslab.rulesets.formation_actions import layout as L
from oddslab.scenario import load

EXAMPLES = sorted(Path(__file__).resolve().parent.parent.glob("examples/formation-actions-*.toml"))


def _mixed() -> FormationActionsScenario:
    """Both armies fixed-order; outside Shock of every kind, starting Shock and broken,
    retaining always / if-chance, the second player chosen."""
    blue = (
        Formation("hq", command=5, units=2),
        Formation(
            "a",
            command=4,
            units=4,
            shock=2,
            outside_shock=OutsideShock(dice=DiceExpr.parse("2D3-2")),
        ),
        Formation(
            "b", command=4, units=4, suppressed=1, broken=True, outside_shock=OutsideShock(fixed=1)
        ),
        Formation("c", command=5, units=3, outside_shock=OutsideShock(table=(0.5, 0.2, 0.3))),
        Formation("d", command=3, units=2),
    )
    red = (
        Formation("hq", command=4, units=2),
        Formation("x", command=3, units=4, suppressed=1),
        Formation("y", command=10, units=3),
        Formation("z", command=0, units=3),
    )
    return FormationActionsScenario(
        (
            Army("blue", blue, strategy=3, retain="always"),
            Army("red", red, strategy=3, retain="if-chance", retain_chance=0.6, choose="second"),
        ),
        5,
        Rules(),
    )


RULES = [
    {},
    {"action_penalty": "shock"},
    {"action_penalty": "either", "break_check": "end-phase"},
    {"action_penalty": "both", "natural_one_passes": True, "natural_six_fails": True},
    {"outside_timing": "start-of-turn", "withdrawal": "removed"},
    {
        "outside_timing": "start-of-turn",
        "break_check": "end-phase",
        "retain_limit": "once-per-turn",
    },
    {"rally_action_penalty": True, "action_penalty": "shock", "first_turn_tie": "red"},
    {"broken_shock": "accumulate"},
    {"broken_shock": "accumulate", "outside_timing": "start-of-turn", "withdrawal": "removed"},
]


def _histograms(kernel, prologue, sc, n: int, seed: int = 5) -> np.ndarray:
    job = engine._as_job(sc)[0]
    G0, cdf, slots, offs = job.params
    out = np.zeros((len(slots), job.n_bins), dtype=np.int64)
    rec = np.zeros((0, len(slots)), dtype=np.int32)  # no per-trial records
    kernel(*prologue(chunk_seeds(seed, 0, 1)[0], n, out, rec, G0, cdf, slots, offs))
    return out


def _assert_same_games(sc, n: int = 3 * KB.BLOCK + 77) -> None:
    a = _histograms(K.run_games, K._prologue, sc, n)
    b = _histograms(engine._as_job(sc)[0].kernel.chunk, KB._prologue, sc, n)
    assert a[:, 0].sum() > 0
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_block_kernel_plays_the_examples_exactly(path):
    _assert_same_games(load(path))


@pytest.mark.parametrize(
    "rules", RULES, ids=lambda r: "-".join(f"{k}={v}" for k, v in r.items()) or "default"
)
def test_block_kernel_plays_every_rule_switch_exactly(rules):
    sc = _mixed()
    _assert_same_games(dataclasses.replace(sc, rules=dataclasses.replace(sc.rules, **rules)))


def test_partial_and_single_blocks():
    sc = _mixed()
    for n in (1, 2, KB.BLOCK - 1, KB.BLOCK, KB.BLOCK + 1):
        _assert_same_games(sc, n)


@pytest.mark.parametrize(
    "orders",
    [
        ("best-first", "listed"),
        ("worst-first", "best-first"),
        ("listed", "worst-first"),
        ("best-first", "best-first"),
    ],
    ids="-".join,
)
@pytest.mark.parametrize("penalty", ["suppressed", "shock", "either", "both"])
def test_block_kernel_picks_orders_at_each_activation_exactly(orders, penalty):
    sc = _mixed()
    blue, red = sc.armies
    blue = dataclasses.replace(blue, order=orders[0], retain="if-chance", retain_chance=0.5)
    red = dataclasses.replace(red, order=orders[1], retain="always")
    rules = dataclasses.replace(sc.rules, action_penalty=penalty, natural_six_fails=True)
    _assert_same_games(dataclasses.replace(sc, armies=(blue, red), rules=rules))


def test_retaining_reorders_a_best_first_army():
    # commands 7 and 6 both pass on 6 faces, retaining on 6 and 5: the order is picked at each
    # activation even under the "suppressed" reading
    blue = Army(
        "blue",
        (Formation("a", command=6, units=2), Formation("b", command=7, units=2)),
        retain="always",
        order="best-first",
    )
    red = Army("red", (Formation("x", command=4, units=3),))
    sc = FormationActionsScenario((blue, red), 3, Rules())
    assert engine._as_job(sc)[0].kernel is KB.run_formation_actions_picking
    _assert_same_games(sc)


def test_the_engine_runs_fixed_orders_on_the_kernel_without_picking():
    sc = _mixed()
    assert engine._as_job(sc)[0].kernel is KB.run_formation_actions_block
    blue, red = sc.armies
    picked = dataclasses.replace(
        sc,
        armies=(dataclasses.replace(blue, order="best-first"), red),
        rules=dataclasses.replace(sc.rules, action_penalty="shock"),
    )
    assert engine._as_job(picked)[0].kernel is KB.run_formation_actions_picking


def test_step_constants_pack_targets_by_activation_position():
    formations = tuple(
        Formation(f"f{i}", command=i % 11, units=2, suppressed=i % 3 == 0) for i in range(20)
    )
    sc = FormationActionsScenario(
        (Army("a", formations, retain="always"), Army("b", formations[:18])),
        2,
        Rules(action_penalty="either"),
    )
    G = sc.arrays()["G"]
    P = KB.step_constants(G)
    fo, po, nf = G[L.H_FOFF], G[L.H_POFF], G[L.H_NF]
    for i in range(nf):
        f = G[po + i]
        cmd = G[fo + f * L.F_NCOLS + L.F_COMMAND]
        sup = int(G[fo + f * L.F_NCOLS + L.F_SUPP] != 0)
        # "either": -1 for a suppressed unit or Shock
        assert (int(P[i // 16]) >> (4 * (i % 16))) & 15 == cmd - sup + 2
        assert (int(P[3]) >> i) & 1 == 1 - sup
        ok = [min(max(cmd - pen - 1, 0), 6) >= 3 for pen in (sup, 1)]  # retain at 50%
        if i < len(formations):
            assert [(int(P[4]) >> i) & 1, (int(P[5]) >> i) & 1] == ok
    assert P[11] == nf - 1
    assert P[40] == 0 and P[41] == 0  # none broken, no outside Shock
    assert list(P[12:16]) == [0, 0, 0, 0]  # listed orders: fixed
    for i in range(nf):  # passing on k faces or more, without / with Shock, with no -1
        f = G[po + i]
        cmd = G[fo + f * L.F_NCOLS + L.F_COMMAND]
        sup = int(G[fo + f * L.F_NCOLS + L.F_SUPP] != 0)
        for k in range(1, 7):
            bits = [(int(P[16 + 2 * (k - 1) + s]) >> i) & 1 for s in (0, 1)]
            assert bits == [int(min(max(cmd - pen, 0), 6) >= k) for pen in (sup, 1)]
    _assert_same_games(sc, 700)
