"""Running scenarios: fixed-size seeded chunks, batches, adaptive precision, Ctrl-C.

A ruleset turns a scenario into a :class:`Job`: a parallel numba kernel, the plain arrays
and scalars it needs, and the statistics it histograms. :func:`simulate` runs the job in
batches of fixed-size chunks. Chunk ``i`` always covers the same trials and is seeded from
``SeedSequence(seed, spawn_key=(i,))``, so a seed gives bit-identical histograms whatever
``NUMBA_NUM_THREADS`` is. Each chunk writes its own histogram block, and blocks are summed
serially after the batch, so memory depends on the batch size, never on the trial count.

Kernel contract
---------------
``kernel(seeds, ntrials, out, *params)`` where ``seeds`` is ``uint64[c, 4]``, ``ntrials``
is ``int64[c]`` (trials in each chunk) and ``out`` is ``int64[c, n_stats, n_bins]``, zeroed;
the kernel ``prange``s over ``c``, builds the chunk's RNG with
:func:`oddslab._kernels.rng.new_state` and adds 1 to ``out[chunk, s, value]`` for every
statistic ``s`` of every trial.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from oddslab._seeding import chunk_seeds, fresh_seed
from oddslab.outcome import Headline, Outcome, Stat

__all__ = ["CHUNK_TRIALS", "BATCH_CHUNKS", "Job", "Simulatable", "simulate", "run_job"]

#: Trials per chunk. Results for a seed depend on it, so it is a constant, not a setting.
CHUNK_TRIALS = 1 << 16
#: Chunks per kernel call (a batch): the unit of progress, precision checks and Ctrl-C.
BATCH_CHUNKS = 16
#: Ceiling on trials for adaptive-precision runs when none is given.
DEFAULT_MAX_TRIALS = 100_000_000
DEFAULT_TRIALS = 1_000_000


@dataclass(frozen=True)
class Job:
    """A scenario compiled to arrays for one kernel.

    Parameters
    ----------
    name : str
        Shown in tables and plots.
    kernel : numba dispatcher
        ``kernel(seeds, ntrials, out, *params)``; see the module docstring.
    params : tuple
        numpy arrays and scalars passed after ``out``.
    stats : tuple of Stat
        The histogrammed statistics, in the order of ``out``'s second axis.
    headlines : tuple of Headline
        Probabilities reported up front and targeted by ``precision``.
    exact : callable, optional
        Returns ``{stat name: pmf array}`` exactly, where the scenario allows it.
    meta : dict
        Free-form run info; ``meta["primary"]`` names the statistic plotted by default.
    ruleset : str
        The ruleset's file name (``"generic"``, ``"vom-kriege"``...), for messages such as
        "compiling the generic kernels".
    """

    name: str
    kernel: Any
    params: tuple
    stats: tuple[Stat, ...]
    headlines: tuple[Headline, ...] = ()
    exact: Callable[[], dict[str, np.ndarray]] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    ruleset: str = ""

    @property
    def n_bins(self) -> int:
        return max(s.nbins for s in self.stats)


class Simulatable(Protocol):
    """Anything with ``compile() -> Job`` and run defaults (every ruleset's scenario).

    ``resolved()`` returns the inputs as the program read them, for people to check:
    ordered sections of plain-words label → value, e.g.
    ``{"weapon 1: bolt rifle": {"hit": "3+", "wound": "4+ (S4 vs T3)"}, "target": {...}}``.
    Values are strings, numbers or booleans (JSON-ready).
    """

    name: str
    trials: int | None
    seed: int | None

    def compile(self) -> Job: ...

    def resolved(self) -> dict[str, dict[str, Any]]: ...


def _as_job(scenario: Any) -> tuple[Job, int | None, int | None]:
    if isinstance(scenario, str | Path):
        from oddslab.scenario import load

        scenario = load(scenario)
    if isinstance(scenario, Job):
        return scenario, None, None
    return scenario.compile(), getattr(scenario, "trials", None), getattr(scenario, "seed", None)


def simulate(
    scenario: Any,
    trials: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    *,
    max_trials: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
) -> Outcome:
    """Monte Carlo distribution of a scenario's outcomes.

    Parameters
    ----------
    scenario : scenario object, Job, or path to a TOML scenario file
    trials : int, optional
        Number of trials; defaults to the scenario's ``trials`` or 1,000,000. With
        ``precision`` it is the ceiling instead (see ``max_trials``).
    seed : int, optional
        Master seed; defaults to the scenario's, else fresh entropy (recorded in the Outcome).
    precision : float, optional
        Run batch after batch until the 95% confidence half-width of every headline
        probability is below this (probability units, e.g. 0.001), or the ceiling is hit.
    max_trials : int, optional
        Ceiling for ``precision`` runs (default: ``trials`` if given, else 100,000,000).
    progress : callable, optional
        ``progress(trials_done, trials_total_or_None)`` after every batch.

    Returns
    -------
    Outcome
        Histograms of every statistic. A Ctrl-C stops at the next batch boundary and
        returns the trials done so far with ``interrupted=True``.
    """
    job, s_trials, s_seed = _as_job(scenario)
    if seed is None:
        seed = s_seed if s_seed is not None else fresh_seed()
    if precision is not None:
        if not 0 < precision < 0.5:
            raise ValueError("precision must be a probability half-width in (0, 0.5)")
        ceiling = next(x for x in (max_trials, trials, DEFAULT_MAX_TRIALS) if x is not None)
    else:
        ceiling = next(x for x in (trials, s_trials, DEFAULT_TRIALS) if x is not None)
    if ceiling < 1:
        raise ValueError("trials must be at least 1")
    return run_job(job, ceiling, int(seed), precision=precision, progress=progress)


def run_job(
    job: Job,
    trials: int,
    seed: int,
    *,
    precision: float | None = None,
    progress: Callable[[int, int | None], None] | None = None,
) -> Outcome:
    """Run ``job`` for up to ``trials`` trials (fewer if ``precision`` is reached first)."""
    n_stats = len(job.stats)
    n_bins = job.n_bins
    total = np.zeros((n_stats, n_bins), dtype=np.int64)
    n_chunks_total = -(-trials // CHUNK_TRIALS)
    done = 0
    chunk = 0
    interrupted = False
    started = time.perf_counter()
    buf = np.zeros((BATCH_CHUNKS, n_stats, n_bins), dtype=np.int64)
    try:
        while chunk < n_chunks_total:
            stop = min(chunk + BATCH_CHUNKS, n_chunks_total)
            c = stop - chunk
            seeds = chunk_seeds(seed, chunk, stop)
            ntrials = np.array(
                [min(CHUNK_TRIALS, trials - i * CHUNK_TRIALS) for i in range(chunk, stop)],
                dtype=np.int64,
            )
            out = buf[:c]
            out[...] = 0
            job.kernel(seeds, ntrials, out, *job.params)
            for i in range(c):  # serial merge, fixed order
                total += out[i]
            done += int(ntrials.sum())
            chunk = stop
            if progress is not None:
                progress(done, None if precision is not None else trials)
            if precision is not None and _max_half_width(job, total, done) < precision:
                break
    except KeyboardInterrupt:
        interrupted = True
    elapsed = time.perf_counter() - started
    return Outcome.from_counts(
        job.name,
        job.stats,
        total,
        done,
        seed=seed,
        headlines=job.headlines,
        interrupted=interrupted,
        elapsed=elapsed,
        meta=job.meta,
    )


def _max_half_width(job: Job, total: np.ndarray, n: int) -> float:
    from oddslab.outcome import wilson_interval

    index = {s.name: i for i, s in enumerate(job.stats)}
    worst = 0.0
    heads = job.headlines or tuple(Headline(f"P({s.name} >= 1)", s.name, 1) for s in job.stats)
    for h in heads:
        hits = int(total[index[h.stat], h.k :].sum())
        lo, hi = wilson_interval(hits, n)
        worst = max(worst, (hi - lo) / 2)
    return worst
