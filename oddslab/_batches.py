"""The batches of a run: which chunks each kernel call gets, where a precision run may stop.

A run is cut into fixed-size chunks (:data:`oddslab.engine.CHUNK_TRIALS` trials each,
seeded from their index). A *batch* is the span between two points where the engine merges
what is done, reports progress and, for a precision run, checks its stopping rule. The
batches depend only on the trial ceiling, never on timing or thread count, so a seed gives
one result; how batches are grouped into kernel calls (:func:`kernel_calls`) depends on
the thread count and changes only the speed.
"""

from __future__ import annotations

__all__ = ["BATCH_CHUNKS", "precision_batches", "fixed_batches", "kernel_calls"]

#: Most chunks per kernel call (a batch): the unit of progress, precision checks and Ctrl-C.
BATCH_CHUNKS = 16


def precision_batches(n_chunks_total: int) -> list[tuple[int, int]]:
    """Chunk ranges ``(start, stop)`` of a precision run: 1, 1, 2, 4, 8, then 16 chunks.

    Fixed (it depends only on the ceiling), so where a run can stop never depends on timing
    or thread count.
    """
    out = []
    start, size = 0, 1
    while start < n_chunks_total:
        stop = min(start + size, n_chunks_total)
        out.append((start, stop))
        start = stop
        if len(out) > 1:
            size = min(size * 2, BATCH_CHUNKS)
    return out


def kernel_calls(batches: list[tuple[int, int]], threads: int) -> list[list[tuple[int, int]]]:
    """The batches grouped into kernel calls of at least ``threads`` chunks (at most
    :data:`BATCH_CHUNKS`), whole batches only.

    A precision run's first batches hold one or two chunks: alone, they would leave all but
    one or two threads idle. Run together, every thread has a chunk, and the stopping rule
    is still checked batch by batch on the same merged chunks, so the result is the one a
    run of the batches one by one gives (a call's chunks after the stopping batch are
    dropped: at most ``threads - 1`` chunks of work, done in the same wall time).
    """
    calls: list[list[tuple[int, int]]] = []
    for batch in batches:
        if calls:
            group = calls[-1]
            size = group[-1][1] - group[0][0]
            if size < threads and batch[1] - group[0][0] <= BATCH_CHUNKS:
                group.append(batch)
                continue
        calls.append([batch])
    return calls


def fixed_batches(n_chunks_total: int) -> list[tuple[int, int]]:
    """Chunk ranges ``(start, stop)`` of a fixed-trials run: :data:`BATCH_CHUNKS` each."""
    return [
        (c, min(c + BATCH_CHUNKS, n_chunks_total)) for c in range(0, n_chunks_total, BATCH_CHUNKS)
    ]
