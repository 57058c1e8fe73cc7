"""The kernel RNG: xoshiro256** reference values, exactly unbiased faces, uniformity."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from stats import P_MIN, chisquare_pmf

from oddslab._kernels.rng import count_d6, new_state, next_u64, randint, roll, roll_expr, shuffle

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


@numba.njit
def _next_u64(st):
    """:func:`next_u64` from Python (it is compiled for kernels only: no Python entry point)."""
    return next_u64(st)


def test_xoshiro_matches_reference():
    seed = np.array([1, 2, 3, 4], dtype=np.uint64)
    st = new_state(seed)
    ref = [1, 2, 3, 4]
    for _ in range(100):
        assert int(_next_u64(st)) == _ref_xoshiro(ref)


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
    assert len({int(_next_u64(st)) for _ in range(100)}) > 90


# -- block generator (lock-step streams) ----------------------------------------------------------

_JUMP = (0x180EC6D33CFD0ABA, 0xD5A61266F0C9392C, 0xA9582618E03FC9AA, 0x39ABDC4529B1661C)


def _ref_jump(s):
    """Reference xoshiro256** jump (2**128 draws), from the published algorithm."""
    t = [0, 0, 0, 0]
    for word in _JUMP:
        for b in range(64):
            if (word >> b) & 1:
                t = [t[i] ^ s[i] for i in range(4)]
            _ref_xoshiro(s)
    s[:] = t


def test_jump_matches_reference():
    from oddslab._kernels.rng import jump

    st = new_state(np.array([11, 22, 33, 44], dtype=np.uint64))
    ref = [11, 22, 33, 44]
    jump(st)
    _ref_jump(ref)
    assert [int(x) for x in st[:4]] == ref


def test_block_streams_are_successive_jumps():
    from oddslab._kernels.rng import new_block_state

    st = new_state(np.array([5, 6, 7, 8], dtype=np.uint64))
    bs = new_block_state(st, 3)
    ref = [5, 6, 7, 8]
    for j in range(3):
        _ref_jump(ref)
        assert [int(bs[i, j]) for i in range(4)] == ref
    assert [int(x) for x in st[:4]] == [5, 6, 7, 8]  # the chunk's own state is untouched


@pytest.mark.parametrize("sides", [6, 36, 40000])
def test_fill_block_matches_python_reference(sides):
    """Every value of several blocks, rejections included, against a pure-Python model:
    words from each stream in turn, lane q of every word, biased lanes dropped."""
    from oddslab._kernels.rng import fill_block, new_block_state

    lanes, words = 4, 16
    st = new_state(np.array([9, 8, 7, 6], dtype=np.uint64))
    bs = new_block_state(st, lanes)
    streams = [[int(bs[i, j]) for i in range(4)] for j in range(lanes)]
    raw = np.empty(words, dtype=np.uint64)
    buf = np.empty(4 * words, dtype=np.int64)
    thresh = 65536 % sides
    seen_rejection = False
    for _ in range(200):
        count = fill_block(bs, raw, buf, sides)
        ref_words = []
        for _i in range(0, words, lanes):
            for j in range(lanes):
                ref_words.append(_ref_xoshiro(streams[j]))
        expected = []
        for q in range(4):
            for w in ref_words:
                m = ((w >> (16 * q)) & 0xFFFF) * sides
                if (m & 0xFFFF) >= thresh:
                    expected.append(m >> 16)
                else:
                    seen_rejection = True
        assert list(buf[:count]) == expected
    if sides == 40000:  # 65536 % 40000 = 25536: ~39% of lanes rejected, compaction exercised
        assert seen_rejection


@numba.njit
def _count_both_ways(n, need):
    a = new_state(np.array([3, 1, 4, 1], dtype=np.uint64))
    b = new_state(np.array([3, 1, 4, 1], dtype=np.uint64))
    ge = 0
    six = 0
    for _ in range(n):
        d = roll(a, 6)
        ge += d >= need
        six += d == 6
    ge2, six2 = count_d6(b, n, need)
    same_state = True
    for i in range(6):
        same_state = same_state and a[i] == b[i]
    return ge, six, ge2, six2, same_state


@pytest.mark.parametrize(("n", "need"), [(1, 4), (7, 3), (1000, 5)])
def test_count_d6_draws_the_same_dice_as_roll(n, need):
    ge, six, ge2, six2, same_state = _count_both_ways(n, need)
    assert (ge, six) == (ge2, six2) and same_state


@pytest.mark.parametrize(
    "words", [[0, 0, 0, 0], [1, 2, 3, 4], [2**64 - 1, 0, 7, 2**63], [0, 0, 0, 5]]
)
def test_seed_state_equals_new_state(words):
    """The prologues' numpy state is the kernels' state, word for word."""
    from oddslab._kernels.rng import seed_state

    w = np.array(words, dtype=np.uint64)
    got = seed_state(w)
    assert got.dtype == np.uint64 and got.shape == (6,)
    assert np.array_equal(got, new_state(w))
