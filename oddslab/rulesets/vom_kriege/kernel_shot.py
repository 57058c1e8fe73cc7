"""Numba fast path for a scenario that is one shooting roll from a known state.

The roll's size is static, and its outcome (every statistic) is a function of its hits and
flags alone, so a trial only rolls the dice and tallies the joint (hits, flags) count; the
chunk then maps each (hits, flags) cell through a table built by the general kernel's own
``resolve`` and ``record`` (:meth:`.compile.VomKriegeScenario.single_shot_table`). The
lane buffer of the generator is kept in registers for the whole chunk. Per-trial records
(:mod:`oddslab._kernels.chunks`) keep the trial loop as lean: it notes each trial's cell in
its records row, which the chunk then expands into the cell's statistics.
"""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import next_u64, seed_state

_U16 = np.uint64(0xFFFF)
_SHIFT16 = np.uint64(16)
_FOUR = np.uint64(4)
_ZERO = np.uint64(0)
_ONE = np.uint64(1)


@jit_noalloc
def shot_chunk(st, n, out, rec, ndice, nf, CODE, TAB, slots, joint):
    """``n`` trials of ``ndice`` dice with ``nf`` faces; ``CODE[face]`` is ``hit + (ndice +
    1) * flag``; ``TAB[cell, s]`` the value of statistic ``s`` for a joint cell; ``joint``
    int64[n cells] zeroed scratch (from :func:`_prologue`; allocates nothing). ``rec``
    int32[r, n_stats]: with ``r > 0`` trial ``t``'s values go to ``rec[t, slots[s]]`` too."""
    un = np.uint64(nf)
    thresh = (np.uint64(65536) - un) % un
    buf = st[4]
    left = st[5]
    r = rec.shape[0]
    for t in range(n):
        cell = 0
        k = 0
        while k < ndice:
            if left == _ZERO:
                buf = next_u64(st)
                left = _FOUR
            m = (buf & _U16) * un
            buf = buf >> _SHIFT16
            left = left - _ONE
            if (m & _U16) >= thresh:
                cell += CODE[np.int64(m >> _SHIFT16)]
                k += 1
        joint[cell] += 1
        if r > 0:
            rec[t, 0] = cell  # expanded below: the loop stays as lean as without records
    st[4] = buf
    st[5] = left
    if r > 0:
        for t in range(n):
            c = rec[t, 0]
            for s in range(TAB.shape[1]):
                row = slots[s]
                if row >= 0:
                    rec[t, row] = TAB[c, s]
    for c in range(joint.shape[0]):
        if joint[c] > 0:
            for s in range(TAB.shape[1]):
                row = slots[s]
                if row >= 0:
                    out[row, TAB[c, s]] += joint[c]


def _prologue(seed, n, out, rec, ndice, nf, CODE, TAB, slots):
    """Per-chunk setup (Python): the RNG state from the seed words and the joint counts."""
    joint = np.zeros(TAB.shape[0], dtype=np.int64)
    return (seed_state(seed), n, out, rec, ndice, nf, CODE, TAB, slots, joint)


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`shot_chunk` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_single_shot = ChunkKernel(shot_chunk, "run_single_shot", prologue=_prologue, records=True)
