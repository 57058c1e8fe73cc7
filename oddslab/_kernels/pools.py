"""Dice-pool kernels: exploding dice, one re-roll tier, keep/drop, scored by face.

:func:`roll_pool` is the serial, inlinable helper every kernel can call for one pool; the
engine kernel :data:`run_pools` (per chunk: :func:`pools_trials`) histograms one pool, or two
opposed pools, per trial (and can record each trial's values: :mod:`oddslab._kernels.chunks`).

Semantics of one pool (the same as :func:`oddslab.exact.pool_pmf`)
-------------------------------------------------------------------
A die has ``k = len(face_score)`` equally likely faces, indexed ``0..k-1``.

1. **Roll** ``n_dice`` original dice (level 0).
2. **Explosions.** A die whose *initial* face is in ``explode_mask`` adds one new die to the
   pool, one level further down, if its level is below the depth (``explode_depth``: 0 none,
   1 only the original dice explode, N levels, -1 unlimited capped at
   :data:`oddslab.exact.EXPLODE_CAP` = 100 levels). Added dice follow the same rules.
3. **Re-rolls.** Every die (original or added) whose initial face is in ``reroll_mask`` is
   re-rolled once; the new face is final (a die is never re-rolled twice). An explosion
   already earned by the initial face stands. The re-rolled face explodes (adds a die, same
   depth rule) only if ``reroll_explodes``.
4. **Keep.** Each original die's *chain* total is the sum of the scores of its final face and
   of every die its explosions (and their explosions) added. ``keep_n > 0`` keeps the
   ``keep_n`` highest (``keep_highest``) or lowest chain totals; ``keep_n == 0`` keeps all.
5. **Score.** The pool total is the sum of the kept chain totals.

Because each die's fate depends only on its own faces and level, the kernel processes dice
level by level with counters instead of a stack: ``cnt`` dice at this level produce ``nxt``
dice at the next one.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import randint, seed_state

#: Explosion levels allowed for ``explode_depth == -1`` (keep equal to oddslab.exact.EXPLODE_CAP).
EXPLODE_CAP = 100

# threshold-test modes for run_pools
TEST_NONE = 0
TEST_LE = 1  # pass when total <= target
TEST_GE = 2  # pass when total >= target


@jit(inline="always")
def _roll_chains(st, cnt, face_score, explode_mask, depth, reroll_mask, reroll_explodes, has_rr):
    """Total score of ``cnt`` level-0 dice and everything their explosions add."""
    k = face_score.shape[0]
    total = np.int64(0)
    level = 0
    rre = np.int64(1) if reroll_explodes else np.int64(0)
    while cnt > 0:
        can = np.int64(1) if level < depth else np.int64(0)
        nxt = np.int64(0)
        if has_rr:
            for _ in range(cnt):
                f = randint(st, k)
                g = randint(st, k)  # always rolled: a select is cheaper than a branch
                r = np.int64(reroll_mask[f] != 0)
                fin = f + r * (g - f)
                total += face_score[fin]
                nxt += can * (
                    np.int64(explode_mask[f] != 0) + r * rre * np.int64(explode_mask[g] != 0)
                )
        else:
            for _ in range(cnt):
                f = randint(st, k)
                total += face_score[f]
                nxt += can * np.int64(explode_mask[f] != 0)
        cnt = nxt
        level += 1
    return total


@jit(inline="always")
def roll_pool(
    st,
    n_dice,
    face_score,
    explode_mask,
    explode_depth,
    reroll_mask,
    reroll_explodes,
    keep_n,
    keep_highest,
    scratch,
):
    """Roll one pool and return its int64 total (see the module docstring for the rules).

    Parameters
    ----------
    st : uint64[6]
        RNG state from :func:`oddslab._kernels.rng.new_state`.
    n_dice : int
        Original dice (>= 0).
    face_score : int64[k]
        Score of each face (a value, a 0/1 success, a symbol count...), non-negative.
    explode_mask : uint8/bool[k]
        Faces whose initial roll adds one die.
    explode_depth : int
        0 none, N levels, -1 unlimited (capped at 100 levels).
    reroll_mask : uint8/bool[k]
        Faces re-rolled once (all zero: no re-rolls).
    reroll_explodes : bool
        Whether a re-rolled face can explode.
    keep_n : int
        Chains kept (0 = all).
    keep_highest : bool
        Keep the highest (True) or lowest (False) chain totals.
    scratch : int64[>= n_dice]
        Work space for the chain totals; only used when ``0 < keep_n < n_dice``.

    Returns
    -------
    int64
        The pool total; at most :func:`oddslab.exact.pool_max` of the same arguments.
    """
    depth = explode_depth if explode_depth >= 0 else EXPLODE_CAP
    if depth > EXPLODE_CAP:
        depth = EXPLODE_CAP
    has_rr = False
    for i in range(reroll_mask.shape[0]):
        has_rr = has_rr or reroll_mask[i] != 0
    if keep_n <= 0 or keep_n >= n_dice:
        return _roll_chains(
            st, n_dice, face_score, explode_mask, depth, reroll_mask, reroll_explodes, has_rr
        )
    for i in range(n_dice):
        v = _roll_chains(
            st, 1, face_score, explode_mask, depth, reroll_mask, reroll_explodes, has_rr
        )
        # insertion sort, descending for highest and ascending for lowest (n is small)
        j = i
        if keep_highest:
            while j > 0 and scratch[j - 1] < v:
                scratch[j] = scratch[j - 1]
                j -= 1
        else:
            while j > 0 and scratch[j - 1] > v:
                scratch[j] = scratch[j - 1]
                j -= 1
        scratch[j] = v
    total = np.int64(0)
    for i in range(keep_n):
        total += scratch[i]
    return total


@jit_noalloc
def pools_trials(
    st,
    ntrials,
    hist,
    rec,
    n_a,
    score_a,
    explode_a,
    depth_a,
    reroll_a,
    rre_a,
    keep_a,
    high_a,
    opposed,
    n_b,
    score_b,
    explode_b,
    depth_b,
    reroll_b,
    rre_b,
    keep_b,
    high_b,
    test_mode,
    target,
    add_a,
    scr_a,
    scr_b,
):
    """One chunk of :data:`run_pools`: histograms of a pool total, an opposed pool and a
    threshold test, ``ntrials`` trials from the RNG state ``st``, on the scratch arrays
    ``scr_a`` / ``scr_b`` of :func:`_prologue` (allocates nothing).

    Statistics in ``hist[s, value]`` order: 0 total of pool A (its constant ``add_a``
    included, floored at 0); if ``opposed``: 1 total of pool B, 2 ``a_wins`` (A > B), 3
    ``tie``, 4 ``b_wins`` (flags); then if ``test_mode`` is :data:`TEST_LE` /
    :data:`TEST_GE`: a ``pass`` flag for ``total_a <= target`` / ``>= target``. Pool B
    arguments are ignored unless ``opposed``. With ``rec`` (int32[r, n_stats]) not empty,
    trial ``t`` also writes those values to ``rec[t]`` (the records contract of
    :mod:`oddslab._kernels.chunks`).
    """
    s_test = 5 if opposed else 1
    keep = rec.shape[0] > 0
    for t in range(ntrials):
        ta = roll_pool(st, n_a, score_a, explode_a, depth_a, reroll_a, rre_a, keep_a, high_a, scr_a)
        ta += add_a
        if ta < 0:
            ta = 0
        hist[0, ta] += 1
        tb = np.int64(0)
        if opposed:
            tb = roll_pool(
                st, n_b, score_b, explode_b, depth_b, reroll_b, rre_b, keep_b, high_b, scr_b
            )
            hist[1, tb] += 1
            hist[2, np.int64(ta > tb)] += 1
            hist[3, np.int64(ta == tb)] += 1
            hist[4, np.int64(ta < tb)] += 1
        passed = np.int64(0)
        if test_mode == TEST_LE:
            passed = np.int64(ta <= target)
            hist[s_test, passed] += 1
        elif test_mode == TEST_GE:
            passed = np.int64(ta >= target)
            hist[s_test, passed] += 1
        if keep:
            rec[t, 0] = ta
            if opposed:
                rec[t, 1] = tb
                rec[t, 2] = np.int64(ta > tb)
                rec[t, 3] = np.int64(ta == tb)
                rec[t, 4] = np.int64(ta < tb)
            if test_mode != TEST_NONE:
                rec[t, s_test] = passed


def _prologue(seed, ntrials, hist, rec, *params):
    """Per-chunk setup (Python): the RNG state from the seed words ``seed`` (uint64[4]) and
    the two pools' scratch arrays, as the arguments of :func:`pools_trials` (the chunk's
    records ``rec`` handed on as they are)."""
    n_a, n_b = params[0], params[9]
    scr_a = np.zeros(max(int(n_a), 1), dtype=np.int64)
    scr_b = np.zeros(max(int(n_b), 1), dtype=np.int64)
    return (seed_state(seed), ntrials, hist, rec, *params, scr_a, scr_b)


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`pools_trials` on the arguments
#: of :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_pools = ChunkKernel(pools_trials, "run_pools", prologue=_prologue, records=True)
