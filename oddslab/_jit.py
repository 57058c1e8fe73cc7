"""The one place numba compilation flags are set.

Every kernel in :mod:`oddslab._kernels` and :mod:`oddslab.rulesets` is decorated with
:func:`jit` (serial functions, among them the per-chunk functions the engine runs on threads,
see :mod:`oddslab._kernels.chunks`) or :func:`jit_noalloc` (serial kernel functions that
allocate nothing: no reference counting). There is no ``parallel=True`` flag: a ``prange``
driver cost seconds of compile time per ruleset and bought nothing that ``nogil`` functions
on Python threads do not give (``nogil`` is on for every function). ``cache=True`` makes a warm start load the
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


def jit_noalloc(fn=None, **overrides):
    """:func:`jit` without numba's reference counting (``_nrt=False``), for kernel functions
    that allocate nothing.

    With the NRT (numba runtime) on, every array passed between jitted functions has its
    reference count incremented and decremented (atomic operations on the array's meminfo).
    In a per-trial inner loop those refcounts cost 30–75 % of kernel time, and more when the
    two threads running chunks contend for the counts of the same shared input arrays.
    Compiled without the NRT, arrays are passed as plain pointers and shapes, with no counting.

    The function must not allocate (no ``np.empty``/``np.zeros``/``np.array``, no array
    results); views (slices) of arrays passed in are fine. Numba refuses to compile an
    allocation without the NRT (a ``TypingError``: "No implementation of function ... zeros"),
    so a mistake fails loudly at the first compile, never silently. Allocate scratch arrays
    once per chunk in the per-chunk function (compiled with :func:`jit`) and pass them down.
    """
    opts = {**_COMMON, "_nrt": False, **overrides}
    if fn is None:
        return lambda f: numba.njit(**opts)(f)
    return numba.njit(**opts)(fn)
