"""The steps of a formation-actions turn over a block of games in lock-step (helpers of
:mod:`.kernel_block`).

Each function is one or a few loops over the ``nb`` lanes (games) of a block. A lane's state
is column ``g`` of the work array ``W`` (int64[L_NROWS + nf, B]: the rows ``L_*`` below, then
each formation's Shock), its counter stream ``SM[g]`` (uint64[B]) and its statistics row
``RT[:, g]`` (int64[n_slots, B]). Formation flags are bit masks (bit ``f`` = formation ``f``)
as in :func:`~.kernel.play_game`, whose rules each step repeats and whose dice each step
reads, at the same stream positions.
"""

from __future__ import annotations

import numpy as np
from numba.np.unsafe.ndarray import to_fixed_tuple

from oddslab._jit import jit_inner
from oddslab._kernels.bits import lowest_bit
from oddslab._kernels.rng import D6, GOLDEN, mix64, stream_face, stream_randint, stream_unit
from oddslab.rulesets.formation_actions.layout import (
    A_CHOOSE,
    A_NCOLS,
    A_STAT0,
    A_STRAT,
    AS_WON,
    F_NCOLS,
    F_OS_ADD,
    F_OS_KIND,
    F_OS_N,
    F_OS_SIDES,
    H_AOFF,
    H_FOFF,
    H_NF,
    H_POFF,
    R_FIRST_TIE,
    TA_NCOLS,
    TA_WON,
)

__all__ = [
    "L_NROWS",
    "roll",
    "count_values",
    "outside_lanes",
    "strategy",
    "action_setup",
    "action_step",
    "action_step_picking",
    "action_finish",
]

# lane state rows of W
L_FREE0 = 0  # army 0's formations yet to activate (positions)
L_FREE1 = 1
L_SIDE = 2  # the side to act
L_RET = 3  # 1: the next test is a retaining one
L_PASS = 4  # passed tests (positions)
L_TRIES = 5  # retain tries / retained, packed as in play_game
L_BROKEN = 6
L_GONE = 7
L_EVER = 8
L_LAST = 9  # who won the last strategy roll (-1: none yet)
L_W = 10  # who won this turn's
L_DIE = 11
L_DIE2 = 12
L_ACT = 13  # 1: the lane takes part in this step
L_HELD = 14
L_ACTED = 15
L_NEED = 16  # formations to rally
L_SHP = 17  # formations with Shock (positions), for the Shock readings of the test modifier
L_K = 18  # outside Shock drawn
L_PASSF = 19  # passed tests (formations)
L_OVER = 20
L_SOME = 21
L_FIRST = 22  # the army that rallies first
L_PT0 = 23  # each army's next rally die (stream counter values, as int64)
L_PT1 = 24
L_NROWS = 25

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@jit_inner
def roll(SM, act, D, nb, n):
    """``D[g]`` = a face 1..``n`` from the next position of each lane's stream for the lanes
    with ``act[g]`` 1 (their streams advance one position); other lanes' ``D`` is garbage."""
    un = np.uint64(n)
    nbad = 0
    for g in range(nb):
        s = SM[g] + (GOLDEN & (_ZERO - np.uint64(act[g])))
        SM[g] = s
        bad, face = stream_face(mix64(s), un)
        D[g] = face + 1
        nbad += bad & act[g]
    if nbad != 0:  # about 1 die in 10**9: redraw exactly as play_game does
        for g in range(nb):
            if act[g] != 0:
                D[g] = stream_randint(SM[g], n) + 1


@jit_inner
def count_values(hist, b, V, nb):
    """``hist[b + V[g]] += 1`` for every lane ``g < nb``: one vectorised counting pass per
    value in the lanes' range when it is narrow. A plain loop of increments would run at
    the speed of one store-to-load round trip per lane, most lanes adding to the same bin."""
    lo = V[0]
    hi = V[0]
    for g in range(nb):
        v = V[g]
        lo = min(lo, v)
        hi = max(hi, v)
    if hi - lo > 24:
        for g in range(nb):
            hist[b + V[g]] += 1
        return
    for v in range(lo, hi + 1):
        c = 0
        for g in range(nb):
            c += np.int64(V[g] == v)
        hist[b + v] += c


@jit_inner
def outside_lanes(SM, act, K, D, nb, G, cdf, f):
    """``K[g]`` = outside Shock gained by formation ``f`` in the lanes with ``act[g]`` 1 (the
    draws of :func:`~.kernel_rolls.outside_draw`), 0 in the others."""
    row = G[H_FOFF] + f * F_NCOLS
    kind = G[row + F_OS_KIND]
    if kind == 1:
        for g in range(nb):
            K[g] = act[g] * G[row + F_OS_N]
    elif kind == 2:
        for g in range(nb):
            K[g] = G[row + F_OS_ADD]
        for _ in range(G[row + F_OS_N]):
            roll(SM, act, D, nb, G[row + F_OS_SIDES])
            for g in range(nb):
                K[g] += D[g]
        for g in range(nb):
            k = K[g]
            K[g] = act[g] * (k if k > 0 else 0)
    else:
        top = cdf.shape[1] - 1
        for g in range(nb):
            s = SM[g] + (GOLDEN & (_ZERO - np.uint64(act[g])))
            SM[g] = s
            u = stream_unit(s)
            k = 0
            for c in range(top):  # cdf rows are non-decreasing: the count is the first above u
                k += np.int64(u >= cdf[f, c])
            K[g] = act[g] * k


@jit_inner
def strategy(W, SM, RT, hist, G, ta, nb):
    """The strategy roll of every lane: ``W[L_W]`` = who won, ``W[L_SIDE]`` = who acts
    first; counts the won-roll statistics."""
    ao = G[H_AOFF]
    a1 = ao + A_NCOLS
    s0 = G[ao + A_STRAT]
    s1 = G[a1 + A_STRAT]
    ft = G[R_FIRST_TIE]
    D = W[L_DIE]
    D2 = W[L_DIE2]
    A = W[L_ACT]
    WN = W[L_W]
    LAST = W[L_LAST]
    for g in range(nb):
        A[g] = 1
    while True:
        roll(SM, A, D, nb, D6)  # army 0's die, then army 1's
        roll(SM, A, D2, nb, D6)
        again = 0
        for g in range(nb):
            r0 = D[g] + s0
            r1 = D2[g] + s1
            lt = LAST[g]
            tie = np.int64(r0 == r1)
            w = np.int64(r1 > r0)
            if tie:
                w = 1 - lt if lt >= 0 else (ft if ft >= 0 else 0)
            a = A[g]
            WN[g] = w if a else WN[g]
            re = a & tie & np.int64(lt < 0) & np.int64(ft < 0)  # first turn, "reroll"
            A[g] = re
            again += re
        if again == 0:
            break
    r0w = G[ao + A_STAT0] + AS_WON
    r1w = G[a1 + A_STAT0] + AS_WON
    c0 = G[ao + A_CHOOSE]
    c1 = G[a1 + A_CHOOSE]
    SIDE = W[L_SIDE]
    won1 = 0
    for g in range(nb):
        w = WN[g]
        LAST[g] = w
        RT[r0w, g] += 1 - w
        RT[r1w, g] += w
        won1 += w
        SIDE[g] = w ^ np.int64((c1 if w else c0) != 0)
    b0 = G[ta + TA_WON]
    b1 = G[ta + TA_NCOLS + TA_WON]
    hist[b0 + 1] += nb - won1
    hist[b0] += won1
    hist[b1 + 1] += won1
    hist[b1] += nb - won1


@jit_inner
def action_setup(W, G, nb, m0, m1, shock_bits):
    """Each lane's formations able to act, as activation positions in ``W[L_FREE0/1]``; with
    ``shock_bits``, the positions whose formation has Shock in ``W[L_SHP]``. Returns how
    many lanes have a formation to activate (``W[L_ACT]``)."""
    nf = G[H_NF]
    po = G[H_POFF]
    BR = W[L_BROKEN]
    GO = W[L_GONE]
    ACTED = W[L_ACTED]
    F0 = W[L_FREE0]
    F1 = W[L_FREE1]
    SHP = W[L_SHP]
    both = m0 | m1
    for g in range(nb):
        ACTED[g] = ~(BR[g] | GO[g]) & both
        F0[g] = 0
        W[L_PASS, g] = 0
        W[L_RET, g] = 0
        W[L_TRIES, g] = 0
        SHP[g] = 0
    for i in range(nf):
        f = G[po + i]
        for g in range(nb):
            F0[g] |= ((ACTED[g] >> f) & 1) << i
    n = 0
    for g in range(nb):
        pos = F0[g]
        F0[g] = pos & m0
        F1[g] = pos & m1
        a = np.int64(pos != 0)
        W[L_ACT, g] = a
        n += a
    if shock_bits:
        for i in range(nf):
            S = W[L_NROWS + G[po + i]]
            for g in range(nb):
                SHP[g] |= np.int64(S[g] > 0) << i
    return n


@jit_inner(always_inline=True)
def _at_least(P, k, rt, shp):
    """Positions whose test passes on ``k`` faces or more (:func:`.kernel_block.step_constants`
    ``P[16:40]``), with 1 more off when ``rt`` (retaining), for a lane whose positions with
    Shock are ``shp``."""
    o = 16 + 2 * k - 2
    # both loaded, then selected: a load under a condition keeps the loop from vectorising
    u0 = P[o]
    v0 = P[o + 1]
    u1 = P[o + 12]
    v1 = P[o + 13]
    u = u1 if rt else u0
    v = v1 if rt else v0
    return (u & ~shp) | (v & shp)


@jit_inner(always_inline=True)
def _lane_state(W, P, g):
    """Lane ``g`` before its activation: ``(free0, free1, side, retaining, mine, other,
    policy, Shock positions, retain-worthy positions)``; the side to act passes to the other
    army when it has no formation left (and that test is not a retaining one)."""
    rok0, rok1, pol0, pol1 = P[4], P[5], P[9], P[10]
    f0 = W[L_FREE0, g]
    f1 = W[L_FREE1, g]
    sd = W[L_SIDE, g]
    rt = W[L_RET, g]
    empty = np.int64((f1 if sd else f0) == 0)
    sd ^= empty
    rt &= 1 - empty
    mine = f1 if sd else f0
    other = f0 if sd else f1
    pol = pol1 if sd else pol0
    shp = W[L_SHP, g]
    rok = (rok1 & shp) | (rok0 & ~shp)  # retaining passes often enough to try
    return f0, f1, sd, rt, mine, other, pol, shp, rok


@jit_inner(always_inline=True)
def _lane_test(W, P, D, g, f0, f1, sd, rt, mine, other, pol, shp, p, ok_next):
    """Lane ``g`` activates position ``p`` (``mine``: its army's positions left after it)
    with the die ``D[g]``; updates the lane and returns 1 if it takes part in the next step."""
    c0, c1, c2, extra = P[0], P[1], P[2], P[3]
    nat1, nat6, per_turn = P[6], P[7], P[8]
    # the target at position p: a 4-bit field, 16 positions a word, less 1 for Shock
    wp = c0 if p < 16 else (c1 if p < 32 else c2)
    target = ((wp >> (4 * (p & 15))) & 15) - 2 - (((extra & shp) >> p) & 1) - rt
    r = D[g]
    ok = np.int64(r <= target) | (nat1 & np.int64(r == 1))
    ok &= (1 - (nat6 & np.int64(r == 6))) & W[L_ACT, g]
    W[L_PASS, g] |= ok << p
    tr = W[L_TRIES, g]
    sh = 16 * sd
    # retain after a passed test that was not itself retaining, while both sides still have
    # formations to activate, if the army's policy and the limit allow
    again = (
        ok
        & (1 - rt)
        & np.int64(pol != 0)
        & np.int64(mine != 0)
        & np.int64(other != 0)
        & (np.int64(per_turn == 0) | np.int64(((tr >> sh) & 0xFFFF) == 0))
        & (np.int64(pol == 2) | ok_next)
    )
    W[L_TRIES, g] = tr + (again << sh) + ((ok & rt) << (32 + sh))
    f0 = f0 if sd else mine
    f1 = mine if sd else f1
    W[L_FREE0, g] = f0
    W[L_FREE1, g] = f1
    W[L_RET, g] = again
    W[L_SIDE, g] = sd ^ (1 - again)  # after any other test the initiative passes
    a = np.int64((f0 | f1) != 0)
    W[L_ACT, g] = a
    return a


@jit_inner
def action_step(W, SM, nb, P):
    """One activation in every lane with ``W[L_ACT]`` 1 (a formation left to activate),
    both armies' orders fixed; sets ``W[L_ACT]`` for the next step and returns how many lanes
    take part in it. ``P`` int64[42]: the army constants
    (:func:`~.kernel_block.step_constants`)."""
    D = W[L_DIE]
    roll(SM, W[L_ACT], D, nb, D6)
    top = P[11]
    n = 0
    for g in range(nb):
        f0, f1, sd, rt, mine, other, pol, shp, rok = _lane_state(W, P, g)
        # the army's next position, and whether the one after it would retain
        p = min(lowest_bit(mine), top)
        mine &= mine - 1
        ok_next = (rok >> min(lowest_bit(mine), top)) & 1
        n += _lane_test(W, P, D, g, f0, f1, sd, rt, mine, other, pol, shp, p, ok_next)
    return n


@jit_inner
def action_step_picking(W, SM, nb, P):
    """:func:`action_step` when an army picks its order at each activation (its positions
    are its formations' indices): the first listed of those passing on the most faces
    (best-first) or fewest (worst-first), with this test's -1, from masks of the positions
    passing on k faces or more (1-6)."""
    D = W[L_DIE]
    roll(SM, W[L_ACT], D, nb, D6)
    # the constants as a tuple: values in registers, where loads from P inside the loop
    # need run-time checks that P and W do not overlap (too many for the vectoriser)
    C = to_fixed_tuple(P, 40)
    top, pick0, pick1, ord0, ord1 = C[11], C[12], C[13], C[14], C[15]
    n = 0
    for g in range(nb):
        f0, f1, sd, rt, mine, other, pol, shp, rok = _lane_state(W, C, g)
        best = (ord1 if sd else ord0) == 1
        a1 = _at_least(C, 1, rt, shp)
        a2 = _at_least(C, 2, rt, shp)
        a3 = _at_least(C, 3, rt, shp)
        a4 = _at_least(C, 4, rt, shp)
        a5 = _at_least(C, 5, rt, shp)
        a6 = _at_least(C, 6, rt, shp)
        # the first non-empty of (best-first) 6+, 5+, ... 1+ faces, (worst-first) 0, 1 or
        # fewer, ... 5 or fewer; all of them when none is
        sel = mine
        c = mine & (a1 if best else ~a6)
        sel = c if c != 0 else sel
        c = mine & (a2 if best else ~a5)
        sel = c if c != 0 else sel
        c = mine & (a3 if best else ~a4)
        sel = c if c != 0 else sel
        c = mine & (a4 if best else ~a3)
        sel = c if c != 0 else sel
        c = mine & (a5 if best else ~a2)
        sel = c if c != 0 else sel
        c = mine & (a6 if best else ~a1)
        sel = c if c != 0 else sel
        pick = (pick1 if sd else pick0) != 0
        p = min(lowest_bit(sel if pick else mine), top)
        mine &= ~(np.int64(1) << p)
        # would the next retain? a fixed order: the next position; picking: the best
        # passes often enough if any does, the worst if all do
        ok_fixed = (rok >> min(lowest_bit(mine), top)) & 1
        ok_pick = np.int64((mine & rok) != 0) if best else np.int64((mine & ~rok) == 0)
        ok_next = ok_pick if pick else ok_fixed
        n += _lane_test(W, C, D, g, f0, f1, sd, rt, mine, other, pol, shp, p, ok_next)
    return n


@jit_inner
def action_finish(W, RT, G, nb, r0, r1):
    """Passed tests back to formations (``W[L_PASSF]``), Holds (``W[L_HELD]``) and the
    retain counts into the statistics rows ``r0``, ``r1`` (each army's retain_attempts)."""
    nf = G[H_NF]
    po = G[H_POFF]
    PS = W[L_PASS]
    PF = W[L_PASSF]
    for g in range(nb):
        PF[g] = 0
    for i in range(nf):
        f = G[po + i]
        for g in range(nb):
            PF[g] |= ((PS[g] >> i) & 1) << f
    for g in range(nb):
        W[L_HELD, g] = W[L_ACTED, g] & ~PF[g]
        tr = W[L_TRIES, g]
        RT[r0, g] += tr & 0xFFFF
        RT[r0 + 1, g] += (tr >> 32) & 0xFFFF
        RT[r1, g] += (tr >> 16) & 0xFFFF
        RT[r1 + 1, g] += (tr >> 48) & 0xFFFF
