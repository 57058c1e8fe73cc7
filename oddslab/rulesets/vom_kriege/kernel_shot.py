"""Numba fast path for a scenario that is one shooting roll from a known state.

The roll's size is static, and its outcome (every statistic) is a function of its hits and
flags alone, so a trial only rolls the dice and tallies the joint (hits, flags) count; the
chunk then maps each (hits, flags) cell through a table built by the general kernel's own
``resolve`` and ``record`` (:meth:`.compile.VomKriegeScenario.single_shot_table`). The
lane buffer of the generator is kept in registers for the whole chunk. With per-trial
records (:mod:`oddslab._kernels.chunks`) the same trials run in :func:`record_cells`, each
also writing its cell's statistics (see :func:`_prologue`).
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


@jit_noalloc(inline="always")
def roll_cell(st, buf, left, ndice, un, thresh, CODE):
    """One trial's ``ndice`` dice from the lane buffer ``buf`` (``left`` 16-bit lanes unused),
    refilled from ``st``: ``(cell, buf, left)``, the cell being the sum of the faces' codes.
    Inlined (numba IR) into the trial loops of :func:`shot_chunk` and :func:`record_cells`,
    so the buffer stays in registers."""
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
    return cell, buf, left


@jit_noalloc
def shot_chunk(st, n, out, ndice, nf, CODE, TAB, slots, joint):
    """``n`` trials of ``ndice`` dice with ``nf`` faces; ``CODE[face]`` is ``hit + (ndice +
    1) * flag``; ``TAB[cell, s]`` the value of statistic ``s`` for a joint cell; ``joint``
    int64[n cells] zeroed scratch (from :func:`_prologue`; allocates nothing), to which the
    trials add their cells before it is folded into ``out``."""
    un = np.uint64(nf)
    thresh = (np.uint64(65536) - un) % un
    buf = st[4]
    left = st[5]
    for _ in range(n):
        cell, buf, left = roll_cell(st, buf, left, ndice, un, thresh, CODE)
        joint[cell] += 1
    st[4] = buf
    st[5] = left
    for c in range(joint.shape[0]):
        if joint[c] > 0:
            for s in range(TAB.shape[1]):
                row = slots[s]
                if row >= 0:
                    out[row, TAB[c, s]] += joint[c]


@jit_noalloc
def record_cells(st, n, rec, ndice, nf, CODE, TAB, slots, joint):
    """The trials of :func:`shot_chunk` with per-trial records: each trial's cell added to
    ``joint`` and its statistics written to ``rec[t, slots[s]]`` (``rec`` int32[r >= n,
    n_stats]), drawing the same dice from ``st`` as :func:`shot_chunk` would."""
    un = np.uint64(nf)
    thresh = (np.uint64(65536) - un) % un
    buf = st[4]
    left = st[5]
    for t in range(n):
        cell, buf, left = roll_cell(st, buf, left, ndice, un, thresh, CODE)
        joint[cell] += 1
        for s in range(TAB.shape[1]):
            row = slots[s]
            if row >= 0:
                rec[t, row] = TAB[cell, s]
    st[4] = buf
    st[5] = left


def _prologue(seed, n, out, rec, ndice, nf, CODE, TAB, slots):
    """Per-chunk setup (Python): the RNG state from the seed words and the joint counts.

    With records (``rec`` int32[r > 0, n_stats]) the chunk's trials run here, in
    :func:`record_cells`, and :func:`shot_chunk` gets ``n = 0`` trials: it only folds their
    cells into ``out``. Its trial loop is so short (~7 ns a trial) that a records branch in
    it, or a second loop beside it in the same function, cost 10-25% of its speed without
    records (interleaved runs of the shooting benchmark row's kernel on one thread); apart,
    the records loop costs nothing, and is compiled only when records are asked for."""
    st = seed_state(seed)
    joint = np.zeros(TAB.shape[0], dtype=np.int64)
    if rec.shape[0] > 0:
        record_cells(st, n, rec, ndice, nf, CODE, TAB, slots, joint)
        n = 0
    return (st, n, out, ndice, nf, CODE, TAB, slots, joint)


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`shot_chunk` on the arguments of
#: :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_single_shot = ChunkKernel(shot_chunk, "run_single_shot", prologue=_prologue, records=True)
