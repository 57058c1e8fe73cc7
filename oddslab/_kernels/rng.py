"""xoshiro256** random numbers for kernels, with exact integer die faces.

The generator state lives in a ``uint64[6]`` array created per chunk by :func:`new_state`:
words 0-3 are the xoshiro256** state, word 4 buffers the unused 16-bit lanes of the last
64-bit draw and word 5 counts how many lanes are left. A die with ``n`` faces takes one
16-bit lane ``x`` and maps it to ``[0, n)`` by Lemire's multiply-shift ``(x * n) >> 16``,
rejecting the ``65536 % n`` lowest products that would bias it, so every face is exactly
equally likely (no modulo, no floats).

:func:`next_u64` and :func:`randint` are compiled for kernels only
(:func:`~oddslab._jit.jit_inner`: no Python entry point, their code compiled inside each kernel
that calls them, about 0.1 s less compile per ruleset than as functions of their own); call
them from a jitted function.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit, jit_inner, jit_noalloc

_U16 = np.uint64(0xFFFF)
_SHIFT16 = np.uint64(16)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_SEVEN = np.uint64(7)
_FORTYFIVE = np.uint64(45)
_SEVENTEEN = np.uint64(17)
_SIXTYFOUR = np.uint64(64)
_FOUR = np.uint64(4)
_SIX = np.uint64(6)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_THIRTYTWO = np.uint64(32)
_FORTYEIGHT = np.uint64(48)

#: a D6's faces, typed int64: a kernel that passes a literal 6 (``randint(st, 6)``) makes numba
#: compile the callee once more, for the literal's own type
D6 = np.int64(6)


@jit_inner
def _rotl(x, k):
    return (x << k) | (x >> (_SIXTYFOUR - k))


@jit_inner
def next_u64(st):
    """Advance the xoshiro256** state ``st`` (uint64[6]) and return 64 random bits."""
    s0 = st[0]
    s1 = st[1]
    s2 = st[2]
    s3 = st[3]
    result = _rotl(s1 * _FIVE, _SEVEN) * _NINE
    t = s1 << _SEVENTEEN
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _FORTYFIVE)
    st[0] = s0
    st[1] = s1
    st[2] = s2
    st[3] = s3
    return result


@jit
def new_state(seed_words):
    """Return a fresh generator state (uint64[6]) from four 64-bit seed words."""
    st = np.empty(6, dtype=np.uint64)
    st[0] = seed_words[0]
    st[1] = seed_words[1]
    st[2] = seed_words[2]
    st[3] = seed_words[3]
    if st[0] == _ZERO and st[1] == _ZERO and st[2] == _ZERO and st[3] == _ZERO:
        st[0] = _ONE  # the all-zero state is the one xoshiro fixed point
    st[4] = _ZERO
    st[5] = _ZERO
    return st


def seed_state(seed_words: np.ndarray) -> np.ndarray:
    """:func:`new_state` in numpy, for the per-chunk Python prologues (the same uint64[6]
    state; nothing to compile)."""
    st = np.zeros(6, dtype=np.uint64)
    st[:4] = seed_words[:4]
    if not st[:4].any():
        st[0] = 1  # the all-zero state is the one xoshiro fixed point
    return st


@jit_inner
def randint(st, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n <= 65536``, exactly unbiased."""
    un = np.uint64(n)
    # 2**16 mod n; a d6 (the common runtime-valued case) skips the 64-bit division
    thresh = _FOUR if n == 6 else (np.uint64(65536) - un) % un
    while True:
        if st[5] == _ZERO:
            st[4] = next_u64(st)
            st[5] = _FOUR
        lane = st[4] & _U16
        st[4] = st[4] >> _SHIFT16
        st[5] = st[5] - _ONE
        m = lane * un
        if (m & _U16) >= thresh:
            return np.int64(m >> _SHIFT16)


@jit_noalloc(inline="always")
def d6(st):
    """One d6 (1-6): the same lanes and result as ``randint(st, 6) + 1``, inlined into callers
    whose inner loops roll single dice (no call, no reference counting)."""
    while True:
        if st[5] == _ZERO:
            st[4] = next_u64(st)
            st[5] = _FOUR
        lane = st[4] & _U16
        st[4] = st[4] >> _SHIFT16
        st[5] = st[5] - _ONE
        m = lane * _SIX
        if (m & _U16) >= _FOUR:
            return np.int64(m >> _SHIFT16) + 1


@jit(inline="always")
def count_d6(st, n, need):
    """Roll ``n`` d6; return (how many are >= ``need``, how many are 6).

    Draws exactly the dice ``n`` calls of ``roll(st, 6)`` would, but keeps the lane buffer
    in registers for the whole loop instead of storing it back to ``st`` after every die,
    and takes a fresh 64-bit word's four lanes at once when all four are accepted (all but
    about 1 in 4,000 words): the four dice are then counted without the one-lane-at-a-time
    dependency chain. Same dice, same order, same counts.
    """
    ge = n - n  # typed int64 zeros: literal 0s cost numba extra typing passes
    six = ge
    buf = st[4]
    left = st[5]
    # a face is >= need exactly when the product (lane * 6) is >= (need - 1) << 16
    lim = np.uint64(need - 1 if need > 1 else 0) << _SHIFT16
    lim6 = np.uint64(5) << _SHIFT16
    k = ge
    while k < n:
        if left == _ZERO:
            buf = next_u64(st)
            left = _FOUR
            if n - k >= 4:
                m0 = (buf & _U16) * _SIX
                m1 = ((buf >> _SHIFT16) & _U16) * _SIX
                m2 = ((buf >> _THIRTYTWO) & _U16) * _SIX
                m3 = (buf >> _FORTYEIGHT) * _SIX
                if (
                    (m0 & _U16) >= _FOUR
                    and (m1 & _U16) >= _FOUR
                    and (m2 & _U16) >= _FOUR
                    and (m3 & _U16) >= _FOUR
                ):
                    ge += np.int64(m0 >= lim) + np.int64(m1 >= lim)
                    ge += np.int64(m2 >= lim) + np.int64(m3 >= lim)
                    six += np.int64(m0 >= lim6) + np.int64(m1 >= lim6)
                    six += np.int64(m2 >= lim6) + np.int64(m3 >= lim6)
                    left = _ZERO
                    k += 4
                    continue
        lane = buf & _U16
        buf = buf >> _SHIFT16
        left = left - _ONE
        m = lane * _SIX
        if (m & _U16) >= _FOUR:
            ge += np.int64(m >= lim)
            six += np.int64(m >= lim6)
            k += 1
    st[4] = buf
    st[5] = left
    return ge, six


@jit
def roll(st, sides):
    """One die with faces ``1..sides``."""
    return randint(st, sides) + 1


@jit
def roll_expr(st, n, sides, add):
    """A dice expression ``nDsides + add`` (``n == 0`` gives the constant ``add``), floored at 0."""
    total = add
    for _ in range(n):
        total += randint(st, sides) + 1
    return total if total > 0 else 0


@jit
def shuffle(st, arr, n):
    """Fisher-Yates shuffle of the first ``n`` entries of ``arr`` in place."""
    for i in range(n - 1, 0, -1):
        j = randint(st, i + 1)
        tmp = arr[i]
        arr[i] = arr[j]
        arr[j] = tmp


#: xoshiro256** jump polynomial: :func:`jump` advances a state by 2**128 draws
_JUMP = (
    np.uint64(0x180EC6D33CFD0ABA),
    np.uint64(0xD5A61266F0C9392C),
    np.uint64(0xA9582618E03FC9AA),
    np.uint64(0x39ABDC4529B1661C),
)


@jit
def jump(st):
    """Advance the xoshiro256** words ``st[0:4]`` by 2**128 draws, in place.

    Streams started ``k`` jumps apart never overlap in any feasible run (the published
    jump function of xoshiro256**).
    """
    t0 = _ZERO
    t1 = _ZERO
    t2 = _ZERO
    t3 = _ZERO
    for i in range(4):
        word = _JUMP[i]
        for b in range(64):
            if (word >> np.uint64(b)) & _ONE:
                t0 ^= st[0]
                t1 ^= st[1]
                t2 ^= st[2]
                t3 ^= st[3]
            next_u64(st)
    st[0] = t0
    st[1] = t1
    st[2] = t2
    st[3] = t3


@jit
def new_block_state(st, lanes):
    """``lanes`` independent xoshiro256** streams for :func:`fill_block`; ``uint64[4, lanes]``.

    Stream ``j`` starts ``j + 1`` jumps (2**128 draws each) after ``st``, so the streams
    overlap neither each other nor ``st``'s own draws; ``st`` itself is not changed.
    """
    tmp = np.empty(6, dtype=np.uint64)
    for i in range(6):
        tmp[i] = st[i]
    out = np.empty((4, lanes), dtype=np.uint64)
    for j in range(lanes):
        jump(tmp)
        for i in range(4):
            out[i, j] = tmp[i]
    return out


_SIXTEEN = np.uint64(16)


@jit(ints="bad k")
def fill_block(bs, raw, buf, sides):
    """Fill ``buf`` from the lock-step streams ``bs``; return how many values are valid.

    One call draws ``raw.shape[0]`` 64-bit words, ``bs.shape[1]`` streams at a time (the
    loop across streams vectorises), then maps each 16-bit lane ``x`` to
    ``(sides * x) >> 16`` in ``[0, sides)`` (``1 <= sides <= 65536``). Lanes whose low
    product bits fall below ``65536 % sides`` would bias the result and are dropped; that is
    rare (16 in 65536 for a d36), so the mapping first runs branch-free over every lane and
    only a block containing such a lane is redone with compaction. Either way ``buf[0:count]``
    holds exactly the accepted lanes, in a fixed order (lane 0 of every word, then lane 1,
    ...) that does not depend on their values: exactly uniform, independent values.

    Parameters
    ----------
    bs : uint64[4, L]
        Stream states from :func:`new_block_state`, advanced in place.
    raw : uint64[R]
        Scratch for the words; ``R`` a multiple of ``L``.
    buf : int64[>= 4 * R]
        Output values.
    sides : int

    Returns
    -------
    int
        ``count <= 4 * R``.
    """
    lanes = bs.shape[1]
    s0 = bs[0]
    s1 = bs[1]
    s2 = bs[2]
    s3 = bs[3]
    for i in range(0, raw.shape[0], lanes):
        for j in range(lanes):
            a0 = s0[j]
            a1 = s1[j]
            a2 = s2[j]
            a3 = s3[j]
            raw[i + j] = _rotl(a1 * _FIVE, _SEVEN) * _NINE
            t = a1 << _SEVENTEEN
            a2 ^= a0
            a3 ^= a1
            a1 ^= a2
            a0 ^= a3
            a2 ^= t
            a3 = _rotl(a3, _FORTYFIVE)
            s0[j] = a0
            s1[j] = a1
            s2[j] = a2
            s3[j] = a3
    us = np.uint64(sides)
    thresh = np.uint64(65536 % sides)
    r = raw.shape[0]
    bad = 0
    for q in range(4):  # lane q of every word, so stores are contiguous and vectorise
        shift = np.uint64(16 * q)
        for w in range(r):
            m = ((raw[w] >> shift) & _U16) * us
            buf[q * r + w] = np.int64(m >> _SHIFT16)
            bad += np.int64((m & _U16) < thresh)
    if bad == 0:
        return 4 * r
    k = 0
    for q in range(4):
        shift = np.uint64(16 * q)
        for w in range(r):
            m = ((raw[w] >> shift) & _U16) * us
            buf[k] = np.int64(m >> _SHIFT16)
            k += np.int64((m & _U16) >= thresh)
    return k


# -- counter streams: one per trial, any position readable directly ------------------------------
#
# SplitMix64 (Steele, Lea & Flood 2014): position ``k`` of a stream with state ``s`` is
# ``mix64(s + k * GOLDEN)``. A kernel that plays many trials in lock-step gives each its own
# stream (a per-trial state, :func:`stream_state`) and reads a trial's dice at positions it
# can compute, in whatever order the lanes are processed, with no state to gather or select.

#: the SplitMix64 increment (2**64 / golden ratio, odd)
GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_M32 = np.uint64(0xFFFFFFFF)
_THIRTY = np.uint64(30)
_TWENTYSEVEN = np.uint64(27)
_THIRTYONE = np.uint64(31)
_ELEVEN = np.uint64(11)
_INV53 = 1.0 / 9007199254740992.0


@jit_noalloc(inline="always")
def mix64(z):
    """SplitMix64's output function: a bijection of uint64 whose outputs at ``s + k * GOLDEN``
    (k = 1, 2, ...) pass BigCrush."""
    z = (z ^ (z >> _THIRTY)) * _MIX1
    z = (z ^ (z >> _TWENTYSEVEN)) * _MIX2
    return z ^ (z >> _THIRTYONE)


@jit_noalloc(inline="always")
def stream_state(seed_words, j):
    """The stream state of trial ``j`` (int) of a chunk with seed words ``seed_words``
    (uint64[4]): distinct trials get unrelated states."""
    return mix64(seed_words[0] + np.uint64(j + 1) * GOLDEN) ^ seed_words[1]


@jit_noalloc(inline="always")
def stream_face(x, n):
    """Lemire's map of the 64 bits ``x`` to a face ``0..n-1`` (``n`` uint64, 1..2**32) from its
    top 32 bits: ``(-1, face)`` when the product's low bits fall below ``2**32 % n`` (the
    value must be redrawn, about 1 in 10**9 for a d6), else ``(0, face)``."""
    m = (x >> np.uint64(32)) * n
    thresh = (_M32 - n + np.uint64(1)) % n
    return -np.int64((m & _M32) < thresh), np.int64(m >> np.uint64(32))


@jit_noalloc
def stream_randint(s, n):
    """A uniform integer in ``[0, n)`` (``n`` int, 1..2**32) from stream position ``s`` (its
    uint64 counter value): exactly unbiased. A rejected value is redrawn from
    ``mix64(x + GOLDEN)`` of the rejected bits ``x``, so it still takes one position."""
    un = np.uint64(n)
    x = mix64(s)
    while True:
        bad, face = stream_face(x, un)
        if bad == 0:
            return face
        x = mix64(x + GOLDEN)


@jit_noalloc(inline="always")
def stream_unit(s):
    """A float64 in ``[0, 1)`` (53 random bits) from stream position ``s``."""
    return np.float64(mix64(s) >> _ELEVEN) * _INV53
