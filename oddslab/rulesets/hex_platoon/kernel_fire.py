"""Numba kernel of the hex platoon ruleset, part 4: the single-fire-attack fast path.

A scenario that is one static fire attack runs :data:`run_hex_fire` (contract in
:mod:`oddslab.engine`) instead of the step interpreter of :mod:`.kernel_run`; this module
imports nothing of the interpreter, so such a scenario compiles only this code. Layouts
are those of :mod:`.layout` (``fast`` is built by :func:`.firepower.fast_array`).
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import fill_block, new_block_state, seed_state

from . import layout as K
from .layout import I1, I2, INT, R2, U1, U2, sig

__all__ = ["fire_trials", "run_hex_fire"]


@jit_noalloc(inline="always")
def _pairs(buf, pos, n, tab2, tab1):
    """Sum a d6 table over ``n`` dice read two per d36 value (an odd die uses ``tab1``)."""
    acc = 0
    end = pos + (n >> 1)
    for i in range(np.uint64(pos), np.uint64(end)):
        acc += tab2[buf[i]]
    if n & 1:
        acc += tab1[buf[end]]
        end += 1
    return acc, end


@jit_noalloc(signature_or_function=sig("void", U2, U1, I1, INT, I2, R2, I1, I2, I1))
def fire_trials(bs, raw, buf, n, out, trials, fast, tabs, joint):
    """``n`` single fire attacks: hits, unsaved hits, target state (and detailed state) into
    ``out[0..2 (3), :]``.

    Each trial adds one count to ``joint[hits * (dice + 1) + unsaved]`` (scratch, zero on
    entry); the three histograms are folded from it at the end. ``trials`` int32[r, n_stats]
    (per-trial records, :mod:`oddslab._kernels.chunks`): when ``r > 0`` trial ``t`` also
    writes the values it counts to ``trials[t, :]``.

    Dice come two at a time as d36 values (``6a + b``) from a buffer refilled by
    :func:`~oddslab._kernels.rng.fill_block`; ``tabs[2j]`` / ``tabs[2j + 1]`` count the
    successes of a pair / of the first die for the fire, save and cover rolls. A trial needs
    ``need`` values in a row; values left at the end of a block are dropped (which ones
    depends on positions only, so every die is still an exact, independent d6).
    """
    dice = fast[K.F_DICE]
    roll = fast[K.F_ALL]
    sn = fast[K.F_SAVE_N]
    cn = fast[K.F_COVER_N]
    ipb = fast[K.F_IP_BEFORE]
    ipa = fast[K.F_IP_AFTER]
    need = ((roll + 1) >> 1) + ((sn + 1) >> 1) + ((cn + 1) >> 1)
    stride = dice + 1
    h2 = tabs[0]
    h1 = tabs[1]
    s2 = tabs[2]
    s1 = tabs[3]
    c2 = tabs[4]
    c1 = tabs[5]
    pos = 0
    end = 0
    keep = trials.shape[0] > 0
    detail = trials.shape[1] > 3
    for t in range(n):
        if end - pos < need:
            end = fill_block(bs, raw, buf, 36)
            pos = 0
        succ, pos = _pairs(buf, pos, roll, h2, h1)
        saves, pos = _pairs(buf, pos, sn, s2, s1)
        cov, pos = _pairs(buf, pos, cn, c2, c1)
        saves += cov
        hits = succ if succ < dice else dice
        hh = hits - ipb if hits > ipb else 0
        u = hh - saves if hh > saves else 0
        u = u - ipa if u > ipa else 0
        joint[hits * stride + u] += 1
        if keep:
            code = fast[K.F_TAB + u]
            trials[t, 0] = hits
            trials[t, 1] = u
            trials[t, 2] = code & 7
            if detail:
                trials[t, 3] = code >> 3
    for h in range(dice + 1):  # fold the joint (hits, unsaved) counts into the histograms
        for u in range(h + 1):
            c = joint[h * stride + u]
            out[0, h] += c
            out[1, u] += c
            out[2, fast[K.F_TAB + u] & 7] += c
            if out.shape[0] > 3:  # the detailed state, when listed
                out[3, fast[K.F_TAB + u] >> 3] += c
            joint[h * stride + u] = 0


def fire_tables(fast: np.ndarray) -> np.ndarray:
    """``tabs`` int64[6, 36] of :func:`fire_trials`: successes of a d36 pair / of its first
    die for the fire, save and cover rolls (cover saves on 5+)."""
    v = np.arange(36)
    a = v // 6 + 1  # the pair's first die
    b = v % 6 + 1
    tabs = np.zeros((6, 36), dtype=np.int64)
    for j, need in enumerate((fast[K.F_TH], fast[K.F_SAVE_NEED], 5)):
        tabs[2 * j] = (a >= need).astype(np.int64) + (b >= need)
        tabs[2 * j + 1] = a >= need
    return tabs


def _prologue(seed, n, out, trials, fast):
    """Per-chunk setup (Python): lock-step block streams seeded from ``seed`` (uint64[4]),
    the buffers and the d36 count tables, as the arguments of :func:`fire_trials` (the
    chunk's records ``trials`` handed on as they are)."""
    st = seed_state(seed)
    bs = new_block_state(st, np.int64(K.F_STREAMS))
    raw = np.empty(K.F_BLOCK, dtype=np.uint64)
    buf = np.empty(4 * K.F_BLOCK, dtype=np.int64)
    joint = np.zeros((fast[K.F_DICE] + 1) ** 2, dtype=np.int64)
    return (bs, raw, buf, np.int64(n), out, trials, fast, fire_tables(fast), joint)


#: Engine kernel of the fast path: :func:`fire_trials` on the arguments of :func:`_prologue`,
#: for each chunk of a batch, on threads (:class:`~oddslab._kernels.chunks.ChunkKernel`).
#: Parameters: ``fast`` only.
run_hex_fire = ChunkKernel(fire_trials, "run_hex_fire", prologue=_prologue, records=True)
