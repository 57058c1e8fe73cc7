"""Dice pools: the per-trial records contract (issue 29) for ``run_pools``.

Every statistic layout a :class:`~oddslab.pools.RollSpec` compiles to runs through
:func:`records_check.check_records`: one pool, one pool with a test, opposed pools with and
without a test, and pools with a constant (``3D6+2``, ``2D6-3``), which the kernel adds to
each trial's total, so the records hold the total the user asked about. Explosions,
re-rolls and keep/drop (the kernel's scratch path) are among them. A trial's recorded values
must belong together: ``pass`` is its own total against the target, the opposed flags its
own two totals compared.
"""

from __future__ import annotations

import numpy as np
import pytest
from records_check import check_records
from stats import P_MIN, chisquare_pmf
from switches import assert_exact_power

from oddslab.pools import parse_roll

CASES = [
    "3D6",
    "10D6 count 5+ explode 6 reroll 1",
    "4D6 drop 1 lowest <= 9",
    "5D10 explode 10 unlimited keep 3 >= 20",
    "3D6 vs 2D6 explode 6",
    "4D6 keep 3 vs 3D6 reroll 1 >= 11",
    "6d[0,0,1,1,2,3] explode 3 depth 2 vs 5d[0,0,1,1,2,3]",
    "3D6+2 >= 12",
    "2D6-3",
    "2D6-3 <= 2",
]


@pytest.mark.parametrize("text", CASES)
def test_records(text):
    spec = parse_roll(text)
    job = spec.compile()
    rec = check_records(job)
    col = {s.name: i for i, s in enumerate(job.stats)}
    a = rec[:, col["total" if spec.vs is None else "total_a"]]
    if spec.test is not None:
        op, t = spec.test
        want = a <= t if op == "<=" else a >= t
        assert np.array_equal(rec[:, col["pass"]], want.astype(np.int32)), text
    if spec.vs is not None:
        b = rec[:, col["total_b"]]
        for name, want in (("a_wins", a > b), ("tie", a == b), ("b_wins", a < b)):
            assert np.array_equal(rec[:, col[name]], want.astype(np.int32)), (text, name)


def test_constant_is_in_the_recorded_total():
    rec = check_records(parse_roll("2D6-3").compile(), ntrials=(200_000, 1234))[:, 0]
    assert rec.min() == 0 and rec.max() == 9  # 2D6 - 3, floored at 0
    # the recorded totals against 2D6 - 3 worked by hand: 2 and 3 -> 0 (1 + 2 ways of 36),
    # then 4..12 -> 1..9 (3, 4, 5, 6, 5, 4, 3, 2, 1 ways)
    pmf = np.array([3, 3, 4, 5, 6, 5, 4, 3, 2, 1]) / 36
    assert chisquare_pmf(np.bincount(rec), pmf) > P_MIN
    assert_exact_power(np.bincount(rec), pmf, "2D6-3 records")
    rec = check_records(parse_roll("3D6+2").compile())[:, 0]
    assert rec.min() >= 5 and rec.max() <= 20
