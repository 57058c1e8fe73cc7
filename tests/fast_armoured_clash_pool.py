"""The attack pool of the fast Armoured Clash reference (tests/fast_armoured_clash.py): the
exact distribution of a pool's hits, worked per die from the rule text (ATTACK ROLLS) and
convolved over the pool, independently of the package's exact engine (which
tests/test_armoured_clash_fast.py checks it against)."""

from __future__ import annotations

from functools import cache

import numpy as np

__all__ = ["die_pmf", "pool_pmf", "pool_cdf", "BIT", "KIND", "TIER_BITS"]

HEROIC, STRIKE, GLANCING, MISS, BLANK = range(5)
KIND = {"heroic": HEROIC, "strike": STRIKE, "glancing": GLANCING, "miss": MISS, "blank": BLANK}
#: hits a face kind scores: a heroic strike 2, a strike 1, the rest none
SCORE = (2, 1, 0, 0, 0)
#: a bit per face kind, so a re-roll set is one small integer
BIT = (1 << np.arange(5)).astype(np.uint8)
#: the re-roll set of each combat rating: weakened none, neutral glancing strikes,
#: improved glancing strikes and misses
TIER_BITS = np.array([0, BIT[GLANCING], BIT[GLANCING] | BIT[MISS]], dtype=np.uint8)


def die_pmf(rr: int, face_p: np.ndarray) -> np.ndarray:
    """Hits one original attack die scores, ``float[5]`` (0 to 4 hits), with the faces in the
    bit set ``rr`` re-rolled.

    The rules (ATTACK ROLLS): a heroic strike scores 2 hits and adds one die, which does not
    add another; a strike scores 1; every die, original or added, showing a face of the
    re-roll set is re-rolled once and the new result is final (a re-rolled heroic strike
    scores 2 and adds no die). So a die's hits (its added die's included) do not depend on
    the other dice: the pool's hits are a sum of independent copies of this.
    """
    once = np.zeros(5)  # a die that may be re-rolled but adds no die
    rerolled = np.zeros(5)  # a re-rolled die: final, adds no die
    for k in range(5):
        rerolled[SCORE[k]] += face_p[k]
    for k in range(5):
        if rr >> k & 1:
            once += face_p[k] * rerolled
        else:
            once[SCORE[k]] += face_p[k]
    out = np.zeros(5)
    for k in range(5):
        if k == HEROIC and not rr >> k & 1:
            out[2:] += face_p[k] * once[:3]  # 2 hits, plus its added die's
        elif rr >> k & 1:
            out += face_p[k] * rerolled
        else:
            out[SCORE[k]] += face_p[k]
    return out


def pool_pmf(n: int, rr: int, face_p: np.ndarray) -> np.ndarray:
    """Hits of ``n`` attack dice, ``float[4 n + 1]``: ``n`` independent dice (:func:`die_pmf`)."""
    one, out = die_pmf(rr, face_p), np.ones(1)
    for _ in range(n):
        out = np.convolve(out, one)
    return out


@cache
def pool_cdf(n: int, rr: int, counts: tuple[int, ...]) -> np.ndarray:
    return np.cumsum(pool_pmf(n, rr, np.asarray(counts, dtype=float) / sum(counts)))
