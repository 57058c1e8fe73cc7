"""The engine's kernel object: a serial per-chunk kernel fanned out to threads from Python.

Every ruleset compiles one serial function per kernel,
``chunk(seed, ntrials, hist, *params)``: ``seed`` uint64[4] (the chunk's seed words),
``ntrials`` int64, ``hist`` int64[n_stats, n_bins] (the chunk's own histogram block). It is
compiled with ``nogil`` (see :mod:`oddslab._jit`), so Python threads run chunks truly in
parallel. :class:`ChunkKernel` wraps it in the engine's contract
``kernel(seeds, ntrials, out, *params)`` over ``c`` chunks (see :mod:`oddslab.engine`).

A ruleset may give a Python ``prologue`` that turns those arguments into the chunk
function's own (the RNG state, scratch arrays, lookup tables), so that the compiled function
is the allocation-free trial loop itself. Each level of compiled functions costs compile
time of its own, because numba links every callee's code into its caller and optimises and
emits the whole again: the generic ruleset's numba per-chunk wrapper around its trial loop
cost 3 s of its first run, the Python prologue that replaced it about 30 µs a chunk.

Why not a numba ``prange`` driver: a parallel function is a second, large compile. Numba
outlines the loop body into a gufunc and re-optimises the whole linked call graph under it,
which cost 2.5–4 s of every ruleset's first run (measured with numba's compile events), and
loading it from the cache starts numba's threading layer. A Python loop over chunks costs
about 20 µs a chunk (argument unboxing), against the milliseconds a chunk of
:data:`~oddslab.engine.CHUNK_TRIALS` trials takes.

False sharing: the arrays a prologue makes for its chunk are small (a 48-byte generator
state, a result row) and come from the same allocator in both threads, so two chunks' arrays
could share a 64-byte cache line; each write by one thread then takes the line from the
other core. Where the allocator put them depended on what the process had run before: the
assault benchmark ran at 2.1-4.0 M trials/s after the analysis benchmark's many small runs
(4.0 M alone), and at 3.9-4.0 M every time once :class:`ChunkKernel` gave each such array
cache lines of its own.

Determinism: chunk ``i`` always reads ``seeds[i]`` and writes only ``out[i]``; which thread
runs it does not matter, so results are bit-identical at any thread count.

Per-trial records
-----------------
A kernel made with ``records=True`` takes one more array after ``out``: ``rec``,
``int32[c, r, n_stats]``, and its chunk function ``chunk(seed, ntrials, hist, rec, *params)``
gets ``rec[i]`` (``int32[r, n_stats]``). When ``r > 0`` (``r >= ntrials``) the chunk writes
every statistic of trial ``t`` to ``rec[t, s]``, the same value it adds to the histogram;
when ``r == 0`` it writes nothing. The chunk consumes its generator the same way either
way, so a seed gives the same histograms with or without records (see :mod:`oddslab.events`).
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["ChunkKernel", "own_lines", "thread_count"]

_POOL: Any = None
_POOL_SIZE = 0
_POOL_LOCK = threading.Lock()


def thread_count() -> int:
    """Threads a batch of chunks runs on: numba's thread count, as the user set it.

    That is ``NUMBA_NUM_THREADS`` (default: the number of cores), or what
    ``numba.set_num_threads`` set in the calling thread (it is per thread; a Dask task sets
    its own). Numba's threading layer is not started just to ask.
    """
    import numba

    try:
        from numba.np.ufunc import parallel

        started = bool(parallel._is_initialized)
    except (ImportError, AttributeError):  # a private part of numba moved: ask numba itself
        started = True
    if started:
        return max(1, int(numba.get_num_threads()))
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def _pool(workers: int) -> Any:
    """A process-wide thread pool with at least ``workers`` threads (grown, never shrunk)."""
    global _POOL, _POOL_SIZE
    with _POOL_LOCK:
        if _POOL is None or _POOL_SIZE < workers:
            from concurrent.futures import ThreadPoolExecutor

            old = _POOL
            _POOL = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="oddslab-chunk")
            _POOL_SIZE = workers
            if old is not None:
                old.shutdown(wait=False)
        return _POOL


#: bytes kept between a chunk's own arrays and any other data: two 64-byte cache lines, as
#: Intel cores fetch lines in aligned pairs
_LINES = 128


def own_lines(a: np.ndarray) -> np.ndarray:
    """A copy of the C-contiguous array ``a`` that shares no cache line with any other data.

    Its data starts on a 128-byte boundary, with at least 128 bytes of padding before and
    after it that nothing else uses. Same dtype, shape and flags as ``a``, so a numba kernel
    sees the same type (no new compile).
    """
    if a.size == 0:
        return a.copy()  # no data: nothing to share
    raw = np.empty(a.nbytes + 3 * _LINES, dtype=np.uint8)
    start = _LINES + (-raw.ctypes.data) % _LINES
    out = raw[start : start + a.nbytes].view(a.dtype).reshape(a.shape)
    out[...] = a
    return out


def _own_lines_all(args: tuple, shared: tuple) -> tuple:
    """``args`` with each writable C-contiguous array the prologue made (one that shares no
    memory with the batch's ``shared`` arrays) moved onto cache lines of its own."""
    inputs = [x for x in shared if isinstance(x, np.ndarray)]
    return tuple(
        own_lines(a)
        if isinstance(a, np.ndarray)
        and a.flags.c_contiguous
        and a.flags.writeable
        and not any(np.may_share_memory(a, x) for x in inputs)
        else a
        for a in args
    )


class ChunkKernel:
    """Engine kernel ``kernel(seeds, ntrials, out, *params)`` running ``chunk`` per chunk.

    Parameters
    ----------
    chunk : numba dispatcher
        ``chunk(seed, ntrials, hist, *params)``, serial and ``nogil``: runs ``ntrials``
        trials from the seed words ``seed`` (uint64[4]) and adds 1 to ``hist[s, value]``
        (int64[n_stats, n_bins]) for every statistic ``s`` of every trial.
    name : str, optional
        Shown in ``repr`` (defaults to the chunk function's name).
    prologue : callable, optional
        ``prologue(seed, ntrials, hist, *params) -> tuple``: the arguments ``chunk`` is
        called with instead (plain Python, run per chunk in the chunk's thread). Each
        writable C-contiguous array among them that shares no memory with ``out`` or the
        parameters (the chunk's own state: generator, work arrays, result rows) is moved onto
        cache lines of its own first (:func:`own_lines`).
    records : bool
        True when ``chunk`` takes a records block after its histogram block
        (``chunk(seed, ntrials, hist, rec, *params)``; see "Per-trial records" above): the
        batch call is then ``kernel(seeds, ntrials, out, rec, *params)`` and chunk ``i`` gets
        ``rec[i]``.

    Calling it runs chunk ``i`` of the batch as ``chunk(seeds[i], ntrials[i], out[i],
    *params)`` (or ``chunk(*prologue(...))`` of those), on :func:`thread_count` threads: the
    calling thread and pool threads take chunks in turn from a shared counter until none is
    left.
    """

    def __init__(
        self, chunk: Any, name: str | None = None, prologue: Any = None, records: bool = False
    ) -> None:
        self.chunk = chunk
        self.prologue = prologue
        #: whether the batch arguments carry a records array after ``out`` (see above)
        self.records = records
        self.__name__ = name or getattr(chunk, "__name__", "chunk_kernel")
        self.__doc__ = getattr(chunk, "__doc__", None)

    def __repr__(self) -> str:
        return f"ChunkKernel({self.__name__})"

    def chunk_args(self, args: tuple) -> tuple:
        """The arguments ``chunk`` gets for chunk 0, from the batch arguments ``(seeds,
        ntrials, out, *params)`` (for compiling and cache checks: they have its types)."""
        seeds, ntrials, out, *params = args
        if self.records:
            one = (seeds[0], ntrials[0], out[0], params[0][0], *params[1:])
        else:
            one = (seeds[0], ntrials[0], out[0], *params)
        if self.prologue is None:
            return one
        return _own_lines_all(self.prologue(*one), (out, *params))

    def _run(self, i: int, seeds: Any, ntrials: Any, out: Any, params: tuple) -> None:
        if self.records:  # params[0] is the batch's records array: the chunk gets its block
            own = (seeds[i], ntrials[i], out[i], params[0][i], *params[1:])
        else:
            own = (seeds[i], ntrials[i], out[i], *params)
        if self.prologue is None:
            self.chunk(*own)
        else:
            args = self.prologue(*own)
            self.chunk(*_own_lines_all(args, (out, *params)))

    def __call__(self, seeds: Any, ntrials: Any, out: Any, *params: Any) -> None:
        """Run every chunk; with ``records=True`` the first of ``params`` is ``rec``."""
        c = int(seeds.shape[0])
        run = self._run
        workers = min(thread_count(), c)
        if workers <= 1:
            for i in range(c):
                run(i, seeds, ntrials, out, params)
            return
        lock = threading.Lock()
        state = {"next": 0, "stop": False}

        def work() -> None:
            while True:
                with lock:
                    i = state["next"]
                    if i >= c or state["stop"]:
                        return
                    state["next"] = i + 1
                run(i, seeds, ntrials, out, params)

        pool = _pool(workers - 1)
        futures = [pool.submit(work) for _ in range(workers - 1)]
        try:
            work()  # the calling thread takes chunks too
        except BaseException:  # Ctrl-C or an error: let the other threads finish their chunk
            with lock:
                state["stop"] = True
            for f in futures:
                f.exception()
            raise
        for f in futures:
            if not f.cancel():  # a task still queued behind other work is simply dropped
                f.result()  # re-raises a worker's error in the caller
