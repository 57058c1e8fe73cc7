"""Compiling a job's kernel before its first batch, and asking numba's cache first.

:func:`prepare_kernel` compiles (or loads from numba's cache) the kernel for the exact
argument types of a run, so that time is reported apart from the run time; :func:`kernel_status`
says beforehand whether a compile is coming (``oddslab warmup``, the first-run message).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from oddslab._gc import paused

__all__ = ["prepare_kernel", "kernel_status", "no_records"]


def _signature(kernel: Any, args: tuple) -> tuple:
    return tuple(kernel.typeof_pyval(a) for a in args)


def _dispatcher(kernel: Any, args: tuple) -> tuple[Any, tuple]:
    """The numba dispatcher a call ``kernel(*args)`` compiles, and the arguments it gets:
    the per-chunk function of a :class:`~oddslab._kernels.chunks.ChunkKernel`."""
    chunk = getattr(kernel, "chunk", None)
    if chunk is not None and hasattr(kernel, "chunk_args"):
        return chunk, kernel.chunk_args(args)
    return kernel, args


def kernel_status(kernel: Any, args: tuple) -> str:
    """Whether calling ``kernel(*args)`` needs a compile.

    Returns ``"ready"`` (compiled in this process), ``"cached"`` (numba's cache holds it),
    ``"compile"`` (it will be compiled), ``"python"`` (not a numba dispatcher) or
    ``"unknown"`` (numba's cache could not be inspected; a private part of numba changed).
    """
    try:
        kernel, args = _dispatcher(kernel, args)
    except Exception:  # noqa: BLE001 - not the engine's argument shapes: nothing to look up
        return "unknown"
    if not (hasattr(kernel, "overloads") and hasattr(kernel, "typeof_pyval")):
        return "python"
    try:
        sig = _signature(kernel, args)
    except Exception:  # noqa: BLE001 - an argument numba cannot type: it will say so on call
        return "unknown"
    if sig in kernel.overloads:
        return "ready"
    try:
        # numba's own lookup (Dispatcher.compile → Cache.load_overload) reads this index.
        cache = kernel._cache
        if not getattr(cache, "_enabled", False):
            return "compile"
        key = cache._index_key(sig, kernel.targetctx.codegen())
        index = cache._cache_file._load_index()
    except Exception:  # noqa: BLE001 - private numba API: degrade, never fail the run
        return "unknown"
    return "cached" if key in index else "compile"


def prepare_kernel(
    job: Any, on_compile: Callable[[str], None] | None = None, params: tuple | None = None
) -> tuple[float, bool]:
    """Compile (or load from numba's cache) ``job.kernel`` for the run's argument types.

    Parameters
    ----------
    job : Job
    on_compile : callable, optional
        ``on_compile(ruleset)`` before a compile that is not a cache load. When the cache
        cannot be inspected it is called if the load takes over a second.
    params : tuple, optional
        The kernel's leading arguments ``(seeds, ntrials, out)``; built from the job's
        shapes when not given.

    Returns
    -------
    (seconds, compiled)
        Time spent, and whether the kernel was compiled (not found in the cache).
    """
    kernel = job.kernel
    if params is None:
        n_stats, n_bins = len(job.stats), job.n_bins
        params = (
            np.zeros((1, 4), dtype=np.uint64),
            np.zeros(1, dtype=np.int64),
            np.zeros((1, n_stats, n_bins), dtype=np.int64),
        )
    if job.records and len(params) == 3:
        params = (*params, no_records(job, len(params[0])))
    args = (*params, *job.params)
    started = time.perf_counter()
    with paused():  # ~1 s less per compile: see oddslab._gc
        return _prepare(job, kernel, args, on_compile, started)


def _prepare(job: Any, kernel, args: tuple, on_compile, started: float) -> tuple[float, bool]:
    try:  # a ChunkKernel's prologue may load (or compile) the small helpers it calls
        kernel, args = _dispatcher(kernel, args)
    except Exception:  # noqa: BLE001 - the call itself will report what is wrong
        pass
    status = kernel_status(kernel, args)
    if status in ("ready", "python"):
        return 0.0, False
    what = job.ruleset or job.meta.get("ruleset", "") or "scenario"
    timer = None
    if status == "compile" and on_compile is not None:
        on_compile(what)
    elif status == "unknown" and on_compile is not None:
        import threading

        timer = threading.Timer(1.0, on_compile, args=(what,))
        timer.daemon = True
        timer.start()
    sig = _signature(kernel, args)
    misses = kernel.stats.cache_misses[sig] if hasattr(kernel, "stats") else 0
    try:
        kernel.compile(sig)
    finally:
        if timer is not None:
            timer.cancel()
    seconds = time.perf_counter() - started
    compiled = status == "compile"
    if hasattr(kernel, "stats"):
        compiled = kernel.stats.cache_misses[sig] > misses
    return seconds, compiled


def no_records(job: Any, chunks: int) -> np.ndarray:
    """The empty records array ``int32[chunks, 0, n_stats]`` a records-capable kernel gets
    when no trial is recorded (the same numba type as a full one: one compile)."""
    return np.zeros((chunks, 0, len(job.stats)), dtype=np.int32)
