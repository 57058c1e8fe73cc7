"""Vom Kriege single-shot fast path: the same distribution as the general sequence kernel
(two-sample chi-square per statistic) and bit-identical at 1 and 2 threads."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

import oddslab
from oddslab.engine import Job
from oddslab.rulesets.vom_kriege import kernel as K
from oddslab.rulesets.vom_kriege import kernel_shot as SK
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Leader, Unit
from oddslab.rulesets.vom_kriege.packing import pack


def scenario():
    return VomKriegeScenario(
        units=(
            Unit("guns", "attacker", "artillery", guns=8, kind="heavy"),
            Unit("square", "defender", "infantry", formation="square", hits=1, leader="d"),
        ),
        leaders=(Leader("d", "defender", hits=2),),
        actions=(Action("shoot", "guns", "square", range=5, order_bonus=True),),
    )


@pytest.mark.statistical
def test_fast_path_matches_general_kernel():
    sc = scenario()
    fast = sc.compile()
    assert fast.kernel is SK.run_single_shot
    general = Job(
        fast.name,
        K.run_vom_kriege,
        (pack(sc.arrays()), fast.params[-1]),
        fast.stats,
        records=True,
    )
    a = oddslab.simulate(fast, trials=1_000_000, seed=1)
    b = oddslab.simulate(general, trials=1_000_000, seed=2)
    for s in fast.stats:
        ca, cb = a.counts[s.name], b.counts[s.name]
        keep = (ca + cb) > 0
        if keep.sum() < 2:
            assert np.array_equal(ca, cb), s.name
            continue
        p = sps.chi2_contingency(np.vstack([ca[keep], cb[keep]]))[1]
        assert p > 1e-4, s.name


def test_fast_path_deterministic_in_process():
    sc = scenario()
    a = oddslab.simulate(sc, trials=200_000, seed=5)
    b = oddslab.simulate(sc, trials=200_000, seed=5)
    for k in a.counts:
        assert np.array_equal(a.counts[k], b.counts[k])
