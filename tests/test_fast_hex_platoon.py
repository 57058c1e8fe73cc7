"""The fast numpy reference of the hex platoon rules (tests/fast_hex_platoon.py) checked on
its own: against every exact PMF of the static cases (chi-square, with the power to see a
0.5 pp error, checked on every run) and against the pure-Python naive reference on
dynamic sequences (whole distributions), so the two references agree with each other and
with the exact engine, not only with the kernel."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_hex_platoon as F  # noqa: E402
import naive_hex_platoon as N  # noqa: E402
from hex_platoon_cases import air_case, assault_case, sequence_case  # noqa: E402
from switches import assert_agree  # noqa: E402
from test_hex_platoon_kernel import STATIC  # noqa: E402

from oddslab.scenario import from_dict  # noqa: E402

N_FAST = 400_000
MORE = {"artillery-hard-per-attack": 700_000}  # where 400,000 lack the 0.5 pp power


@pytest.mark.parametrize("case", sorted(STATIC))
def test_fast_reference_matches_exact(case):
    sc = from_dict(STATIC[case])
    exact = sc.exact_pmfs()
    assert exact
    fast = F.simulate(sc, MORE.get(case, N_FAST), 2027)
    F.check_exact(fast, exact, f"{case} (fast reference)")


@pytest.mark.parametrize(
    "build", [assault_case, air_case, sequence_case], ids=["assault", "air", "sequence"]
)
def test_fast_reference_matches_naive(build):
    sc = from_dict(build())
    naive = N.simulate(sc, 3_000, 5)
    fast = F.simulate(sc, 300_000, 5)
    assert set(fast) == set(naive)
    assert_agree(fast, naive, f"{sc.name}: fast and naive references")


def test_fast_reference_is_deterministic_for_a_seed():
    sc = from_dict(sequence_case())
    a, b = F.simulate(sc, 20_000, 3), F.simulate(sc, 20_000, 3)
    assert all(np.array_equal(a[k], b[k]) for k in a)
