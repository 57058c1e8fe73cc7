"""The kernel RNG: xoshiro256** reference values, exactly unbiased faces, uniformity."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from stats import P_MIN, chisquare_pmf

from oddslab._kernels.rng import new_state, next_u64, randint, roll_expr, shuffle

M64 = (1 << 64) - 1


def _ref_xoshiro(s):
    """Reference xoshiro256** in Python integers (from the published algorithm)."""

    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & M64

    result = (rotl((s[1] * 5) & M64, 7) * 9) & M64
    t = (s[1] << 17) & M64
    s[2] ^= s[0]
    s[3] ^= s[1]
    s[1] ^= s[2]
    s[0] ^= s[3]
    s[2] ^= t
    s[3] = rotl(s[3], 45)
    return result


def test_xoshiro_matches_reference():
    seed = np.array([1, 2, 3, 4], dtype=np.uint64)
    st = new_state(seed)
    ref = [1, 2, 3, 4]
    for _ in range(100):
        assert int(next_u64(st)) == _ref_xoshiro(ref)


@pytest.mark.parametrize("n", [2, 3, 6, 7, 10, 20])
def test_every_lane_maps_exactly_evenly(n):
    """Feed all 65,536 16-bit lanes: accepted lanes hit every face exactly equally often."""

    @numba.njit
    def faces_for_all_lanes(n):
        st = new_state(np.array([1, 2, 3, 4], dtype=np.uint64))
        counts = np.zeros(n, dtype=np.int64)
        thresh = 65536 % n
        for lane in range(65536):
            if (lane * n) & 0xFFFF < thresh:
                continue  # rejected lane: randint would draw again
            st[4] = np.uint64(lane)
            st[5] = np.uint64(1)
            counts[randint(st, n)] += 1
        return counts

    counts = faces_for_all_lanes(n)
    assert (counts == 65536 // n).all()


@numba.njit
def _many(n, draws):
    st = new_state(np.array([7, 8, 9, 10], dtype=np.uint64))
    counts = np.zeros(n, dtype=np.int64)
    for _ in range(draws):
        counts[randint(st, n)] += 1
    return counts


@pytest.mark.statistical
@pytest.mark.parametrize("n", [3, 6, 10])
def test_uniform_chisquare(n):
    counts = _many(n, 1_000_000)
    assert chisquare_pmf(counts, np.full(n, 1 / n)) > P_MIN


@numba.njit
def _exprs(draws):
    st = new_state(np.array([5, 6, 7, 8], dtype=np.uint64))
    counts = np.zeros(13, dtype=np.int64)
    for _ in range(draws):
        counts[roll_expr(st, 2, 6, 0)] += 1
    return counts


@pytest.mark.statistical
def test_roll_expr_2d6():
    from oddslab.dice import DiceExpr

    assert chisquare_pmf(_exprs(1_000_000), DiceExpr.parse("2D6").pmf()) > P_MIN


@numba.njit
def _shuffles(draws):
    st = new_state(np.array([1, 1, 1, 1], dtype=np.uint64))
    first = np.zeros(5, dtype=np.int64)
    arr = np.arange(5)
    for _ in range(draws):
        shuffle(st, arr, 5)
        first[arr[0]] += 1
    return first


def test_shuffle_is_uniform():
    assert chisquare_pmf(_shuffles(200_000), np.full(5, 0.2)) > P_MIN


def test_zero_seed_is_not_stuck():
    """The all-zero state is xoshiro's fixed point (it would output 0 forever); it is replaced."""
    st = new_state(np.zeros(4, dtype=np.uint64))
    assert len({int(next_u64(st)) for _ in range(100)}) > 90
