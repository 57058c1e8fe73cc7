"""Per-trial records of formation actions (the contract in :mod:`oddslab._kernels.chunks`):
every kernel (the per-game reference, the lock-step kernels with fixed and picked orders)
writes each game's statistics, lane by lane in the lock-step ones, partial blocks included;
the histograms are the same with and without records; the three kernels record the same
games row for row, and a recorded game is the game the scripted replay reports.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from records_check import check_records

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
from oddslab.scenario import load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(ROOT.glob("examples/formation-actions-*.toml"))


def _mixed(**rules) -> FormationActionsScenario:
    """Every statistic layout at once: an army that retains (its retain statistics
    reported) and one that never does, formations that can break and one that cannot (its
    broken / rally / withdrawal statistics not reported), outside Shock of every kind."""
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
    )
    red = (
        Formation("hq", command=4, units=2),
        Formation("x", command=3, units=4, suppressed=1),
        Formation("z", command=6, units=3, break_at=99),  # cannot break in 3 turns
    )
    return FormationActionsScenario(
        (
            Army("blue", blue, strategy=3, retain="if-chance", retain_chance=0.5),
            Army("red", red, strategy=3),
        ),
        3,
        Rules(**rules),
    )


def _picking() -> FormationActionsScenario:
    """Blue's best-first order changes with Shock: picked at each activation."""
    sc = _mixed(action_penalty="shock")
    blue, red = sc.armies
    return dataclasses.replace(sc, armies=(dataclasses.replace(blue, order="best-first"), red))


def _plain() -> FormationActionsScenario:
    """No outside Shock (the end phase without draws), an army none of whose formations can
    break (no army withdrawal / broken statistics), retaining always, the naturals."""
    blue = (Formation("a", command=4, units=2), Formation("b", command=3, units=3, shock=1))
    red = (
        Formation("x", command=4, units=3, break_at=50),
        Formation("y", command=2, units=2, break_at=50),
    )
    return FormationActionsScenario(
        (Army("blue", blue, retain="always"), Army("red", red, strategy=4, choose="second")),
        2,
        Rules(natural_one_passes=True, natural_six_fails=True),
    )


SCENARIOS = {
    "plain": _plain,
    "fixed": _mixed,
    "fixed-end-phase-removed": lambda: _mixed(
        break_check="end-phase", withdrawal="removed", outside_timing="start-of-turn"
    ),
    "fixed-accumulate": lambda: _mixed(broken_shock="accumulate", retain_limit="once-per-turn"),
    "picking": _picking,
}


@pytest.fixture(scope="module", params=list(SCENARIOS))
def jobs(request):
    """(scenario, {kernel name: job}) with the engine's kernel and the per-game reference."""
    job = SCENARIOS[request.param]().compile()
    return request.param, {
        "engine": job,
        "reference": dataclasses.replace(job, kernel=K.run_formation_actions),
    }


def test_every_kernel_keeps_the_records_contract(jobs):
    name, by_kernel = jobs
    picking = name == "picking"
    assert by_kernel["engine"].kernel is (
        KB.run_formation_actions_picking if picking else KB.run_formation_actions_block
    )
    recs = {k: check_records(job) for k, job in by_kernel.items()}
    # the lock-step lanes record the very games the reference plays, row for row
    np.testing.assert_array_equal(recs["engine"], recs["reference"])


def test_both_lock_step_kernels_and_the_reference_are_records_capable():
    for kernel in (
        K.run_formation_actions,
        KB.run_formation_actions_block,
        KB.run_formation_actions_picking,
    ):
        assert kernel.records


def test_partial_and_single_blocks_record_every_lane():
    job = _mixed().compile()
    assert job.kernel is KB.run_formation_actions_block
    for n in (1, KB.BLOCK - 1, KB.BLOCK + 1):
        check_records(job, seed=3, ntrials=(n, 2 * KB.BLOCK + 5))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_the_examples_keep_the_records_contract(path):
    check_records(load(path).compile(), ntrials=(700, 300))


def test_a_recorded_game_is_the_scripted_replay():
    """Game 0 of a chunk from the seed words ``[seed, 2, 3, 4]`` is the game
    ``run_with_dice([], seed)`` replays: its record holds the values the replay reports."""
    sc = _mixed()
    job = sc.compile()
    names = [s.name for s in job.stats]
    for seed in (1, 5):
        words = np.array([seed, 2, 3, 4], dtype=np.uint64)
        out = np.zeros((1, len(names), job.n_bins), dtype=np.int64)
        rec = np.full((1, 1, len(names)), -1, dtype=np.int32)
        job.kernel(words[None, :], np.array([1]), out, rec, *job.params)
        replay = sc.run_with_dice([], seed=seed)
        assert {n: int(v) for n, v in zip(names, rec[0, 0], strict=True)} == {
            n: replay[n] for n in names
        }
