"""xoshiro256** random numbers for kernels, with exact integer die faces.

The generator state lives in a ``uint64[6]`` array created per chunk by :func:`new_state`:
words 0-3 are the xoshiro256** state, word 4 buffers the unused 16-bit lanes of the last
64-bit draw and word 5 counts how many lanes are left. A die with ``n`` faces takes one
16-bit lane ``x`` and maps it to ``[0, n)`` by Lemire's multiply-shift ``(x * n) >> 16``,
rejecting the ``65536 % n`` lowest products that would bias it, so every face is exactly
equally likely (no modulo, no floats).
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit

_U16 = np.uint64(0xFFFF)
_SHIFT16 = np.uint64(16)
_FIVE = np.uint64(5)
_NINE = np.uint64(9)
_SEVEN = np.uint64(7)
_FORTYFIVE = np.uint64(45)
_SEVENTEEN = np.uint64(17)
_SIXTYFOUR = np.uint64(64)
_FOUR = np.uint64(4)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@jit
def _rotl(x, k):
    return (x << k) | (x >> (_SIXTYFOUR - k))


@jit
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


@jit
def randint(st, n):
    """Uniform integer in ``[0, n)`` for ``1 <= n <= 65536``, exactly unbiased."""
    un = np.uint64(n)
    thresh = (np.uint64(65536) - un) % un  # == 2**16 mod n; a constant when n is
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
