"""The bit-mask primitives: lowest set bit and popcount against Python integers."""

from __future__ import annotations

import numba
import numpy as np

from oddslab._kernels.bits import lowest_bit, popcount


@numba.njit
def _both(masks):
    out = np.empty((masks.shape[0], 2), dtype=np.int64)
    for i in range(masks.shape[0]):
        out[i, 0] = lowest_bit(masks[i])
        out[i, 1] = popcount(masks[i])
    return out


def test_lowest_bit_and_popcount_match_python():
    rng = np.random.default_rng(1)
    masks = [0, 1, 2, 3, 6, 1 << 40, (1 << 62) + (1 << 5), (1 << 63) - 1]
    masks += [int(x) for x in rng.integers(0, 1 << 62, size=200)]
    got = _both(np.array(masks, dtype=np.int64))
    for m, (low, count) in zip(masks, got, strict=True):
        assert count == bin(m).count("1")
        # a zero mask gives the bit width, never an undefined value
        assert low == ((m & -m).bit_length() - 1 if m else 64)
