"""Chunk seeds derived from (seed, chunk index).

Each chunk of trials gets four 64-bit words from ``SeedSequence(seed, spawn_key=(index,))``:
the same words as ``SeedSequence(seed).spawn(...)[index]``, independent of how many chunks
are run, of the thread count and of the batch a chunk is run in.
"""

from __future__ import annotations

import numpy as np


def fresh_seed() -> int:
    """A new 128-bit seed from OS entropy (recorded in the Outcome so a run can be replayed)."""
    return int(np.random.SeedSequence().entropy)


def chunk_seeds(seed: int, start: int, stop: int) -> np.ndarray:
    """Seed words for chunks ``start..stop-1``; shape ``(stop - start, 4)``, dtype uint64."""
    out = np.empty((stop - start, 4), dtype=np.uint64)
    for row, index in enumerate(range(start, stop)):
        ss = np.random.SeedSequence(seed, spawn_key=(index,))
        out[row] = ss.generate_state(4, dtype=np.uint64)
    return out
