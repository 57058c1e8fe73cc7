"""The one place numba compilation flags are set.

Every kernel in :mod:`oddslab._kernels` and :mod:`oddslab.rulesets` is decorated with
:func:`jit` (serial functions, among them the per-chunk functions the engine runs on threads,
see :mod:`oddslab._kernels.chunks`) or :func:`jit_noalloc` (serial kernel functions that
allocate nothing: no reference counting). There is no ``parallel=True`` flag: a ``prange``
driver cost seconds of compile time per ruleset and bought nothing that ``nogil`` functions
on Python threads do not give (``nogil`` is on for every function). ``cache=True`` makes a
warm start load the compiled machine code from the cache (:func:`cache_dir`) instead of
recompiling.
``fastmath`` stays off: results must be bit-identical across machines and thread counts.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import numba

__all__ = ["jit", "jit_noalloc", "cache_dir", "source_digest"]

_PACKAGE = Path(__file__).resolve().parent


def source_digest(package: Path = _PACKAGE) -> str:
    """16 hex digits of SHA-256 over every source file a kernel is compiled from or reads
    constants from: ``_jit.py``, ``_kernels/*.py`` and ``rulesets/**/*.py`` (names and bytes).

    numba's cache checks only the source file of the function it loads: a kernel whose helper
    in another file (the RNG, a layout constant, a casualty rule) changed would load stale
    machine code. Caching under a directory named by this digest makes any such edit, or an
    upgrade, compile afresh.
    """
    h = hashlib.sha256()
    files = [package / "_jit.py", *package.glob("_kernels/*.py"), *package.glob("rulesets/**/*.py")]
    for f in sorted(files):
        h.update(f.relative_to(package).as_posix().encode())
        h.update(b"\0")
        h.update(f.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def cache_dir() -> str:
    """Where numba caches oddslab's kernels: ``$NUMBA_CACHE_DIR/oddslab-<digest>``, or
    ``~/.cache/oddslab/oddslab-<digest>`` (``$XDG_CACHE_HOME`` honoured) when
    ``NUMBA_CACHE_DIR`` is not set; ``<digest>`` is :func:`source_digest`. Empty when that
    directory cannot be created (numba then uses its own default places)."""
    base = os.environ.get("NUMBA_CACHE_DIR", "")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "oddslab")
    path = os.path.join(base, f"oddslab-{source_digest()}")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError:
        return ""
    return path if os.access(path, os.W_OK) else ""


# numba reads the cache directory when a cached function is decorated, so this runs before
# any kernel module decorates one
_CACHE = cache_dir()
if _CACHE:
    numba.config.CACHE_DIR = _CACHE

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
