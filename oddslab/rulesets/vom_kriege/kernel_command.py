"""Numba kernel for command-dice rolls under a reroll policy table (see :mod:`.command`)."""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import randint, seed_state


@jit_noalloc(ints="code k mul rerolled")
def command_chunk(st, n, out, rec, ndice, nf, CLS, POL, mode, FEAS, PREFIX, NSYM, cnt):
    """``n`` command-dice rolls under the reroll policy table ``POL`` (see :mod:`.command`).

    A roll is coded ``sum(count[c] * (ndice + 1) ** c)`` over the symbol classes ``c``.
    ``mode`` 0: ``POL[code, c]`` dice of class ``c`` are rerolled together; mode 1:
    ``POL[code, r]`` is the class to reroll next with ``r`` rerolls left (-1 = stop).
    ``cnt`` int64[NSYM] is scratch from :func:`_prologue` (allocates nothing). ``rec``
    int32[r, 3]: with ``r > 0`` roll ``t``'s three statistics go to ``rec[t]`` too (the
    records contract of :mod:`oddslab._kernels.chunks`).
    """
    base = ndice + 1
    r = rec.shape[0]
    for t in range(n):
        for c in range(NSYM):
            cnt[c] = 0
        for _d in range(ndice):
            cnt[CLS[randint(st, nf)]] += 1
        code = 0
        mul = 1
        for c in range(NSYM):
            code += cnt[c] * mul
            mul *= base
        rerolled = 0
        if mode == 0:
            k = 0
            for c in range(NSYM):
                k += POL[code, c]
                cnt[c] -= POL[code, c]
            for _d in range(k):
                cnt[CLS[randint(st, nf)]] += 1
            rerolled = k
        else:
            left = POL.shape[1] - 1
            while left > 0:
                c = POL[code, left]
                if c < 0:
                    break
                cnt[c] -= 1
                cnt[CLS[randint(st, nf)]] += 1
                rerolled += 1
                left -= 1
                code = 0
                mul = 1
                for cc in range(NSYM):
                    code += cnt[cc] * mul
                    mul *= base
        code = 0
        mul = 1
        for c in range(NSYM):
            code += cnt[c] * mul
            mul *= base
        # stats: orders_in_sequence, orders_issued, dice_rerolled
        out[0, PREFIX[code]] += 1
        out[1, FEAS[code]] += 1
        out[2, rerolled] += 1
        if r > 0:
            rec[t, 0] = PREFIX[code]
            rec[t, 1] = FEAS[code]
            rec[t, 2] = rerolled


def _prologue(seed, n, out, rec, ndice, nf, CLS, POL, mode, FEAS, PREFIX, NSYM):
    """Per-chunk setup (Python): the RNG state from the seed words and the symbol counts."""
    cnt = np.zeros(int(NSYM), dtype=np.int64)
    return (seed_state(seed), n, out, rec, ndice, nf, CLS, POL, mode, FEAS, PREFIX, NSYM, cnt)


#: Engine kernel (contract in :mod:`oddslab.engine`): :func:`command_chunk` on the arguments
#: of :func:`_prologue`, for each chunk of a batch, on threads
#: (:class:`~oddslab._kernels.chunks.ChunkKernel`).
run_command = ChunkKernel(command_chunk, "run_command", prologue=_prologue, records=True)
