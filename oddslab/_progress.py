"""Progress during a batch, and what a Ctrl-C keeps (for :func:`oddslab.engine.run_job`).

The engine keeps the kernel call in flight in a small dict ``live``: ``out`` (its
``int64[c, n_stats, n_bins]`` histograms), ``ntrials`` (``int64[c]``), ``merged`` (how many of
its chunks are merged), ``transformed`` (whether ``job.transform`` has run on them) and
``base`` (trials merged before the call).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["Watcher", "merge_finished"]


def merge_finished(
    job: Any, live: dict[str, Any], total: np.ndarray, on_merged: Callable | None = None
) -> int:
    """After a Ctrl-C: add to ``total`` every chunk of the call in flight that finished but
    was not merged yet; returns their trials.

    A chunk's kernel adds 1 to every statistic's row per trial, so a chunk is finished when
    each row of its block sums to its trial count (the kernel threads have all returned by
    now: :class:`~oddslab._kernels.chunks.ChunkKernel` lets a running chunk finish, and a
    chunk is never stopped half-way). Unstarted chunks are all zeros.
    """
    out, ntrials = live.get("out"), live.get("ntrials")
    if out is None or ntrials is None:
        return 0
    idx = [
        i
        for i in range(live["merged"], len(ntrials))
        if ntrials[i] > 0 and bool(np.all(out[i].sum(axis=1) == ntrials[i]))
    ]
    if not idx:
        return 0
    part = out[idx]  # a copy: the in-place transform sees only finished chunks
    if job.transform is not None and not live["transformed"]:
        job.transform(part)
    for block in part:  # serial merge, chunk order
        total += block
    if on_merged is not None:  # the same chunks' events, joints and records
        on_merged(idx)
    return int(ntrials[idx].sum())


class Watcher:
    """Calls ``progress(done, total)`` every few tenths of a second from a daemon thread,
    counting the trials finished inside the running batch: kernels add to a chunk's
    histogram block trial by trial, so row 0 of each block counts its finished trials (per
    chunk only for a kernel that histograms locally first). A callback that raises stops
    the watcher; the run goes on."""

    def __init__(self, live: dict[str, Any], progress: Callable, total: int | None) -> None:
        import threading

        self.live, self.progress, self.total = live, progress, total
        self.halt = threading.Event()
        self.thread: Any = None

    def start(self, every: float) -> None:
        import threading

        def loop() -> None:
            last = 0
            while not self.halt.wait(every):
                out, base = self.live.get("out"), self.live.get("base", 0)
                if out is None:
                    continue
                now = base + int(out[:, 0, :].sum())
                if now <= last:
                    continue
                last = now
                try:
                    self.progress(now, self.total)
                except Exception:  # noqa: BLE001 - a display problem never stops a run
                    return

        self.thread = threading.Thread(target=loop, name="oddslab-progress", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.halt.set()
        if self.thread is not None:
            self.thread.join(timeout=1.0)
