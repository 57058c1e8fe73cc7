"""The dice, tests and choices a formation-actions game is made of (kernel-only numba helpers
of :mod:`.kernel`): a D6 (scripted or generated), an action or rally test, the test's
modifier, passing faces, outside Shock, the best/worst formation to activate, and the
constants a chunk's games start from.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_inner, jit_noalloc
from oddslab._kernels.rng import GOLDEN, stream_randint, stream_unit
from oddslab.rulesets.formation_actions.layout import (
    A_MINFACES,
    A_NCOLS,
    A_STOP,
    F_BROKEN0,
    F_COMMAND,
    F_NCOLS,
    F_OS_ADD,
    F_OS_KIND,
    F_OS_N,
    F_OS_SIDES,
    F_SUPP,
    H_AOFF,
    H_FOFF,
    H_NF,
    H_POFF,
    H_WOFF,
    R_NAT1,
    R_NAT6,
    R_PENALTY,
    W_SHOCK,
)

__all__ = [
    "d6",
    "passes",
    "faces",
    "penalty",
    "outside_draw",
    "best_faces",
    "game_constants",
]

_ONE = np.uint64(1)


@jit_noalloc(inline="always")
def next_position(st):
    """Advance the game's stream (``st[0]``, :mod:`oddslab._kernels.rng` counter streams) to
    its next position and return that position's counter value."""
    s = st[0] + GOLDEN
    st[0] = s
    return s


@jit_noalloc(inline="always")
def d6(st):
    """One D6 (1-6): the next scripted result if any are left, else the game stream's next
    position (exactly uniform)."""
    if st.shape[0] > 6:
        i = st[6]
        if i < st.shape[0]:
            st[6] = i + _ONE
            return np.int64(st[i])
    return stream_randint(next_position(st), 6) + 1


@jit_inner
def passes(roll, target, nat1, nat6):
    """1 if a D6 ``roll`` passes a test against the modified rating ``target``, else 0
    (``nat1``, ``nat6``: 1 when a natural 1 always passes / a natural 6 always fails, else 0)."""
    ok = np.int64(roll <= target) | (nat1 & np.int64(roll == 1))
    return ok & (1 - (nat6 & np.int64(roll == 6)))


@jit_noalloc
def faces(target, nat1, nat6):
    """Passing faces (of 6) against ``target`` (closed form of counting :func:`passes`)."""
    n = min(max(target, 0), 6)
    if nat1 != 0 and n < 1:
        n = 1
    if nat6 != 0 and n > 5:
        n = 5
    return n


@jit_noalloc
def penalty(suppressed, shock, mode):
    """The action test's modifier (0, 1 or 2) under reading ``mode`` (``R_PENALTY``)."""
    sup = np.int64(suppressed != 0)
    sh = np.int64(shock > 0)
    if mode == 0:
        return sup
    if mode == 1:
        return sh
    if mode == 2:
        return sup | sh
    return sup + sh


@jit_inner(ints="k")
def outside_draw(st, G, cdf, row, f):
    """Outside Shock gained by formation ``f`` (its row offset ``row``) this turn."""
    kind = G[row + F_OS_KIND]
    if kind == 1:
        return G[row + F_OS_N]
    if kind == 2:
        k = G[row + F_OS_ADD]
        for _ in range(G[row + F_OS_N]):
            k += stream_randint(next_position(st), G[row + F_OS_SIDES]) + 1
        return k if k > 0 else 0
    u = stream_unit(next_position(st))
    k = 0
    while k < cdf.shape[1] - 1 and u >= cdf[f, k]:
        k += 1
    return k


@jit_inner(ints="best f")
def best_faces(G, free, start, stop, order, minus, mode, nat1, nat6):
    """(formation, its passing faces) the best/worst-first ``order`` picks among ``free``
    (a mask of formations ``start..stop-1``) with ``minus`` more off the test; ties go to
    the first listed. Used only when the order is not fixed (``A_FIXED`` 0)."""
    fo = G[H_FOFF]
    ws = G[H_WOFF] + W_SHOCK * G[H_NF]
    f = -1
    best = 0
    for g in range(start, stop):
        if ((free >> g) & 1) == 0:
            continue
        row = fo + g * F_NCOLS
        pen = penalty(G[row + F_SUPP], G[ws + g], mode)
        n = faces(G[row + F_COMMAND] - pen - minus, nat1, nat6)
        if f < 0 or (order == 1 and n > best) or (order == 2 and n < best):
            f = g
            best = n
    return f, best


@jit_inner(ints="rok broken gone", flags="any_outside")
def game_constants(G):
    """What every game of ``G`` starts from: ``(broken, rok, any_outside)``.

    ``broken``: the mask of formations broken at the start; ``rok``: the mask of activation
    positions whose retaining test passes often enough (fixed chances); ``any_outside``:
    whether any formation gains outside Shock. Computed once per chunk, not per game.
    """
    nf = G[H_NF]
    fo = G[H_FOFF]
    po = G[H_POFF]
    ao = G[H_AOFF]
    mode = G[R_PENALTY]
    nat1 = np.int64(G[R_NAT1] != 0)
    nat6 = np.int64(G[R_NAT6] != 0)
    stop0 = G[ao + A_STOP]
    minf0 = G[ao + A_MINFACES]
    minf1 = G[ao + A_NCOLS + A_MINFACES]
    any_outside = False
    broken = np.int64(0)
    rok = np.int64(0)
    for f in range(nf):
        row = fo + f * F_NCOLS
        broken |= G[row + F_BROKEN0] << f
        any_outside = any_outside or G[row + F_OS_KIND] != 0
        h = fo + G[po + f] * F_NCOLS
        n = faces(G[h + F_COMMAND] - penalty(G[h + F_SUPP], 0, mode) - 1, nat1, nat6)
        rok |= np.int64(n >= (minf0 if f < stop0 else minf1)) << f
    return broken, rok, any_outside
