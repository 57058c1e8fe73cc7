"""Armoured Clash: the per-trial records contract (issue 29) for both kernels.

Every kind of job the ruleset makes runs through :func:`records_check.check_records`: the
whole-sequence kernel ``run_armoured_clash`` with each statistic layout the shipped examples
report (ranged fire and suppression, a close quarters attack, a counter-charge, a fire
sequence, a transport and its passengers), and the attack-pool kernel ``run_pool_only`` at
each combat rating. Beyond the column sums, a trial's values must belong together: a single
ranged attack's damage is its hits divided by the target's DEFENCE, trial by trial.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from records_check import check_records

from oddslab.engine import Job
from oddslab.outcome import Stat
from oddslab.rulesets.armoured_clash import AttackDie
from oddslab.rulesets.armoured_clash import kernel as K
from oddslab.scenario import load

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(EXAMPLES_DIR.glob("armoured-clash-*"))


def test_examples_cover_several_layouts():
    layouts = {tuple(s.name for s in load(p).compile().stats) for p in EXAMPLES}
    assert len(EXAMPLES) >= 5 and len(layouts) >= 4  # the checks below see different layouts


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_records(path):
    check_records(load(path).compile())


def test_ranged_records_belong_to_one_trial():
    """The ranged-suppression example: one attack at a DEFENCE 2 unit not taking cover (the
    wall's concealment gives no defence bonus without it), so damage = hits // 2."""
    job = load(EXAMPLES_DIR / "armoured-clash-ranged-suppression.toml").compile()
    rec = check_records(job, seed=11)
    col = {s.name: i for i, s in enumerate(job.stats)}
    hits, dmg = rec[:, col["hits_on_defender"]], rec[:, col["damage_on_defender"]]
    assert np.array_equal(dmg, hits // 2)
    lost = rec[:, col["defender_models_lost"]]
    assert np.all(lost >= np.minimum(dmg, 6)) and lost.max() > 0


@pytest.mark.parametrize("rating", [0, 1, 2])
def test_pool_only_records(rating):
    die = AttackDie()
    job = Job(
        "pool",
        K.run_pool_only,
        (12, rating, die.face_score(), die.explode_mask(), die.tier_table(), die.kinds()),
        (Stat("hits", 49),),
        records=True,
    )
    rec = check_records(job)
    assert rec.max() > 12  # heroic strikes' added dice were recorded too
