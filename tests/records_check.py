"""Checks of the per-trial records contract (see :mod:`oddslab._kernels.chunks`), shared by
every ruleset's records tests.

:func:`check_records` runs a job's kernel on two chunks twice, without and with a records
array, and asserts what the contract promises: the histograms are bit-identical either way,
and each statistic's recorded column histograms to exactly that statistic's histogram row
(so every value a trial added to the histograms is the value it recorded, trial by trial).
"""

from __future__ import annotations

import numpy as np

from oddslab._seeding import chunk_seeds
from oddslab.engine import Job, no_records


def run_with_records(
    job: Job, seed: int, ntrials: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """``(hist int64[c, n_stats, n_bins], rec int32[c, max(ntrials), n_stats])`` of one call
    of ``job.kernel`` on chunks ``0..c-1`` of ``seed`` with ``ntrials[i]`` trials each."""
    c = len(ntrials)
    seeds = chunk_seeds(seed, 0, c)
    nt = np.array(ntrials, dtype=np.int64)
    out = np.zeros((c, len(job.stats), job.n_bins), dtype=np.int64)
    rec = np.full((c, max(ntrials), len(job.stats)), -1, dtype=np.int32)
    job.kernel(seeds, nt, out, rec, *job.params)
    return out, rec


def run_without_records(job: Job, seed: int, ntrials: tuple[int, ...]) -> np.ndarray:
    """The histograms of the same call with an empty records array."""
    c = len(ntrials)
    seeds = chunk_seeds(seed, 0, c)
    nt = np.array(ntrials, dtype=np.int64)
    out = np.zeros((c, len(job.stats), job.n_bins), dtype=np.int64)
    job.kernel(seeds, nt, out, no_records(job, c), *job.params)
    return out


def check_records(job: Job, seed: int = 7, ntrials: tuple[int, ...] = (3000, 1234)) -> np.ndarray:
    """Assert the records contract for ``job``; returns the records of the first chunk.

    ``ntrials`` deliberately gives chunks of different sizes, neither a multiple of 64 (a
    kernel that runs trials in blocks must still record each one)."""
    assert job.records, f"{job.name}: the job does not declare records=True"
    plain = run_without_records(job, seed, ntrials)
    hist, rec = run_with_records(job, seed, ntrials)
    assert np.array_equal(plain, hist), f"{job.name}: records changed the histograms"
    for i, n in enumerate(ntrials):
        assert np.all(rec[i, n:] == -1), f"{job.name}: chunk {i} wrote past its trials"
        block = rec[i, :n]
        assert block.min() >= 0, f"{job.name}: chunk {i} left a trial's statistic unrecorded"
        for s, stat in enumerate(job.stats):
            counts = np.bincount(block[:, s], minlength=job.n_bins)
            assert np.array_equal(counts, hist[i, s]), (
                f"{job.name}: recorded '{stat.name}' does not histogram to its row (chunk {i})"
            )
    return rec[0, : ntrials[0]]
