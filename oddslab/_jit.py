"""The one place numba compilation flags are set.

Every kernel in :mod:`oddslab._kernels` and :mod:`oddslab.rulesets` is decorated with
:func:`jit` (serial helpers, inlined into callers) or :func:`jit_parallel` (the chunk
drivers that ``prange`` over fixed-size chunks). ``cache=True`` makes a warm start load the
compiled machine code from ``__pycache__`` (or ``NUMBA_CACHE_DIR``) instead of recompiling.
``fastmath`` stays off: results must be bit-identical across machines and thread counts.
"""

from __future__ import annotations

import numba

_COMMON = {"cache": True, "nogil": True, "fastmath": False, "error_model": "numpy"}


def jit(fn=None, **overrides):
    """``numba.njit`` with the project's flags (serial)."""
    opts = {**_COMMON, **overrides}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)


def jit_parallel(fn=None, **overrides):
    """``numba.njit(parallel=True)`` with the project's flags, for chunk drivers."""
    opts = {**_COMMON, "parallel": True, **overrides}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)
