"""A tiny records-capable job for the engine's event, joint and records tests: each trial
rolls two D6 (``a`` and ``b``) and notes whether they are equal (``double``). Its exact
answers are known by hand: each pair (i, j) has probability 1/36."""

from __future__ import annotations

import numpy as np

from oddslab._jit import jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import d6, seed_state
from oddslab.engine import Job
from oddslab.outcome import Stat


@jit_noalloc
def _two_dice(st, ntrials, hist, rec):
    r = rec.shape[0]
    for t in range(ntrials):
        a = d6(st)
        b = d6(st)
        hist[0, a] += 1
        hist[1, b] += 1
        hist[2, 1 if a == b else 0] += 1
        if r > 0:
            rec[t, 0] = a
            rec[t, 1] = b
            rec[t, 2] = 1 if a == b else 0


def _prologue(seed, ntrials, hist, rec):
    return (seed_state(seed), ntrials, hist, rec)


run_two_dice = ChunkKernel(_two_dice, "run_two_dice", prologue=_prologue, records=True)

STATS = (Stat("a", 7, "first die"), Stat("b", 7, "second die"), Stat("double", 2, flag=True))


def job() -> Job:
    """The two-dice job (records on)."""
    return Job("two dice", run_two_dice, (), STATS, records=True)


def exact_joint() -> np.ndarray:
    """P(a == i, b == j), ``float[7, 7]``."""
    t = np.zeros((7, 7))
    t[1:, 1:] = 1 / 36
    return t
