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
for every chunk ``i`` the kernel builds the chunk's RNG from ``seeds[i]`` with
:func:`oddslab._kernels.rng.new_state` and adds 1 to ``out[i, s, value]`` for every
statistic ``s`` of every trial. Every ruleset's kernel is a
:class:`~oddslab._kernels.chunks.ChunkKernel`: one serial ``nogil`` numba function per chunk,
run on numba's thread count of Python threads (a plain numba dispatcher with that signature
works too).

Batches
-------
A fixed-trials run calls the kernel on batches of :data:`BATCH_CHUNKS` chunks. A precision
run steps finer at first (:func:`precision_batches`: 1, 1, 2, 4, 8, then 16 chunks a batch)
so coarse targets stop after a few hundred thousand trials; the schedule is fixed and the
stopping rule reads only the histograms, so a seed still gives one result. Batches smaller
than the thread count share a kernel call (:func:`oddslab._batches.kernel_calls`), so the
first ones do not leave threads idle; the rule is still checked after each batch.

Compiling
---------
Before the first batch, :func:`prepare_kernel` compiles the kernel for the exact argument
types of the run (numba's ``Dispatcher.compile(signature)``, which loads the machine code
from numba's cache when it is there). That time is reported apart from the run time
(``Outcome.compile_time``), and ``on_compile`` is told beforehand when the kernel is not in
the cache, so a first run can say so instead of sitting silent.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from oddslab._batches import (
    BATCH_CHUNKS,
    fixed_batches,
    kernel_calls,
    precision_batches,
)
from oddslab._compile import kernel_status, no_records, prepare_kernel
from oddslab._kernels.chunks import thread_count
from oddslab._limits import MAX_TRIALS, TRIALS_WHAT
from oddslab._progress import Watcher, merge_finished
from oddslab.outcome import Headline, Outcome, Stat

__all__ = [
    "CHUNK_TRIALS",
    "BATCH_CHUNKS",
    "MAX_TRIALS",
    "MAX_HISTOGRAM_CELLS",
    "Job",
    "Simulatable",
    "simulate",
    "run_job",
    "check_histogram_size",
    "no_records",
    "prepare_kernel",
    "kernel_status",
    "precision_batches",
    "resolved_inputs",
    "trials_needed",
]

#: Trials per chunk. Results for a seed depend on it, so it is a constant, not a setting.
CHUNK_TRIALS = 1 << 16
#: Ceiling on trials for adaptive-precision runs when none is given.
DEFAULT_MAX_TRIALS = 100_000_000
DEFAULT_TRIALS = 1_000_000
#: Largest ``n_stats * n_bins`` a job may count (about 34 MB a copy of the histograms).
MAX_HISTOGRAM_CELLS = 1 << 22


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
    transform : callable, optional
        ``transform(out)`` rewrites a batch's ``int64[c, n_stats, n_bins]`` histograms in
        place after the kernel call (e.g. to shift a total by a constant); None for most jobs.
        A job with a transform cannot keep per-trial records.
    records : bool
        True when ``kernel`` takes a records array after ``out``:
        ``kernel(seeds, ntrials, out, rec, *params)`` with ``rec`` ``int32[c, r, n_stats]``;
        with ``r > 0`` the kernel writes each trial's statistics to ``rec[i, t, :]`` as well
        as to the histograms, with ``r == 0`` nothing (see
        :mod:`oddslab._kernels.chunks`). Events, joint distributions and records
        (:mod:`oddslab.events`) need it; every built-in ruleset's jobs have it.
    exact_joint : callable, optional
        ``exact_joint(names) -> ndarray | None``: the exact joint probability table of the
        named statistics (axis ``k`` indexed by the value of ``names[k]``), or None when
        the exact engine cannot give that joint.
    """

    name: str
    kernel: Any
    params: tuple
    stats: tuple[Stat, ...]
    headlines: tuple[Headline, ...] = ()
    exact: Callable[[], dict[str, np.ndarray]] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    ruleset: str = ""
    transform: Callable[[np.ndarray], None] | None = None
    records: bool = False
    exact_joint: Callable[[tuple[str, ...]], np.ndarray | None] | None = None

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


def _as_job(scenario: Any) -> tuple[Job, int | None, int | None, Any]:
    if isinstance(scenario, str | Path):
        from oddslab.scenario import load

        scenario = load(scenario)
    if isinstance(scenario, Job):
        return scenario, None, None, None
    job = scenario.compile()
    return job, getattr(scenario, "trials", None), getattr(scenario, "seed", None), scenario


def resolved_inputs(scenario: Any) -> dict[str, dict[str, Any]] | None:
    """``scenario.resolved()``, or None when the scenario's ruleset does not provide it.

    Keys become strings and values anything but str/int/float/bool their ``str()``, so the
    result is always JSON-ready.
    """
    fn = getattr(scenario, "resolved", None)
    if not callable(fn):
        return None
    try:
        raw = fn()
    except NotImplementedError:
        return None
    if raw is None:
        return None
    plain = (str, int, float, bool)
    return {
        str(section): {
            str(k): v if isinstance(v, plain) else str(v)
            for k, v in (items.items() if isinstance(items, dict) else {"": items}.items())
        }
        for section, items in raw.items()
    }


def _check_int(name: str, value: Any, lo: int, hi: int | None, what: str) -> int:
    """The same check (and message) as a scenario file's ``trials`` / ``seed`` keys."""
    from oddslab._schema import _type_name

    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name}: expected {what}, got {_type_name(value)} {value!r}")
    if value < lo or (hi is not None and value > hi):
        raise ValueError(f"{name}: expected {what}, got {value}")
    return int(value)


def simulate(
    scenario: Any,
    trials: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    *,
    max_trials: int | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    on_compile: Callable[[str], None] | None = None,
    progress_every: float | None = None,
    events: Sequence[str] = (),
    joint: Sequence[Sequence[str] | str] = (),
    records: int = 0,
) -> Outcome:
    """Monte Carlo distribution of a scenario's outcomes.

    Parameters
    ----------
    scenario : scenario object, Job, or path to a TOML scenario file
    trials : int, optional
        Number of trials (1 to 10,000,000,000); defaults to the scenario's ``trials`` or
        1,000,000. With ``precision`` it is the ceiling instead (see ``max_trials``).
    seed : int, optional
        Master seed (an integer >= 0); defaults to the scenario's, else fresh entropy
        (recorded in the Outcome).
    precision : float, optional
        Run batch after batch until the 95% confidence half-width of every headline
        probability is below this (probability units, e.g. 0.001), or the ceiling is hit;
        ``Outcome.precision_reached`` says which.
    max_trials : int, optional
        Ceiling for ``precision`` runs (default: ``trials`` if given, else 100,000,000).
    progress : callable, optional
        ``progress(trials_done, trials_total_or_None)`` after every batch.
    progress_every : float, optional
        Seconds: also call ``progress`` this often during a batch, from a helper thread,
        with the trials finished so far (so a heavy scenario's progress moves within a
        batch); exceptions it raises there are ignored.
    on_compile : callable, optional
        ``on_compile(ruleset)`` is called before the kernel is compiled when it is not in
        numba's cache (the first run of a ruleset), e.g. to tell the user to wait.
    events : sequence of str, optional
        Events to count, such as ``"clean win = defender_destroyed and not
        attacker_destroyed"`` or ``"models_slain >= 5 | charge_succeeded"`` (see
        :mod:`oddslab.events`); ``Outcome.probability(label)`` reads them, with SE and 95%
        interval. With ``precision``, their half-widths join the stopping rule.
    joint : sequence, optional
        Joint distributions to count, each two or more statistic names (``("a", "b")`` or
        ``"a,b"``); ``Outcome.joint(*names)`` reads them.
    records : int, optional
        Keep every statistic of the first ``records`` trials (``Outcome.records``, a
        DataFrame; 4 bytes a statistic a trial, at most 10,000,000 trials).

    Events, joints and records are counted from per-chunk record arrays of
    ``65,536 x n_stats`` int32 (a few chunks at a time, below 64 MB), never a Python loop
    over trials; the histograms stay bit-identical to a run without them.

    Returns
    -------
    Outcome
        Histograms of every statistic, the resolved inputs (``scenario.resolved()`` where
        the ruleset provides it), run and compile times apart. A Ctrl-C stops the run once
        the chunks running finish, and returns every finished chunk's trials with
        ``interrupted=True``.

    Raises
    ------
    ValueError
        For a ``trials``, ``seed`` or ``precision`` out of range, with the same words as a
        scenario file's error for the same key.
    """
    from oddslab._seeding import fresh_seed

    if trials is not None:
        trials = _check_int("trials", trials, 1, MAX_TRIALS, TRIALS_WHAT)
    if max_trials is not None:
        max_trials = _check_int("max_trials", max_trials, 1, MAX_TRIALS, TRIALS_WHAT)
    if seed is not None:
        seed = _check_int("seed", seed, 0, None, "an integer >= 0")
    job, s_trials, s_seed, sc = _as_job(scenario)
    if seed is None and s_seed is not None:
        seed = _check_int("seed", s_seed, 0, None, "an integer >= 0")
    if seed is None:
        seed = fresh_seed()
    if precision is not None:
        if isinstance(precision, bool) or not isinstance(precision, int | float):
            raise ValueError(f"precision: expected a number, got {precision!r}")
        if not 0 < precision < 0.5:
            raise ValueError(
                f"precision: expected a 95% half-width between 0 and 0.5 such as 0.001, got {precision}"
            )
        ceiling = next(x for x in (max_trials, trials, DEFAULT_MAX_TRIALS) if x is not None)
    else:
        ceiling = next(x for x in (trials, s_trials, DEFAULT_TRIALS) if x is not None)
    recorder = None
    if events or joint or records:
        from oddslab._recorder import Recorder

        recorder = Recorder(job.stats, tuple(events), tuple(joint), records)
    out = run_job(
        job,
        ceiling,
        int(seed),
        precision=precision,
        progress=progress,
        on_compile=on_compile,
        progress_every=progress_every,
        recorder=recorder,
    )
    out.resolved = resolved_inputs(sc) if sc is not None else None
    return out


def check_histogram_size(job: Job) -> None:
    """Raise ValueError, naming the widest statistic, when ``job``'s histograms
    (``n_stats * n_bins`` counts, kept in ``BATCH_CHUNKS + 1`` copies) would exceed
    :data:`MAX_HISTOGRAM_CELLS`: legal but extreme inputs (a thousand models with a hundred
    attacks of a hundred damage) would otherwise fail allocating tens of gigabytes."""
    if not job.stats:
        return
    cells = len(job.stats) * job.n_bins
    if cells > MAX_HISTOGRAM_CELLS:
        widest = max(job.stats, key=lambda s: s.nbins)
        raise ValueError(
            f"this scenario's outcomes are too wide to count: '{widest.name}' can reach "
            f"{widest.nbins - 1:,}, so its {len(job.stats)} statistics need {cells:,} "
            f"histogram bins (at most {MAX_HISTOGRAM_CELLS:,}); use fewer models, attacks "
            "or damage"
        )


def run_job(
    job: Job,
    trials: int,
    seed: int,
    *,
    precision: float | None = None,
    progress: Callable[[int, int | None], None] | None = None,
    on_compile: Callable[[str], None] | None = None,
    progress_every: float | None = None,
    recorder: Any = None,
) -> Outcome:
    """Run ``job`` for up to ``trials`` trials (fewer if ``precision`` is reached first).

    The kernel is compiled (or loaded from cache) first and that time is reported apart
    (``Outcome.compile_time``); ``Outcome.elapsed`` is the time running trials.
    ``progress_every`` (seconds): also call ``progress`` that often from a helper thread
    with the trials finished so far inside the running batch (see :func:`simulate`).
    A Ctrl-C keeps every chunk that finished, merged batch or not.
    ``recorder`` (an :class:`oddslab._recorder.Recorder`) also counts events, joints and
    records from the same chunks.
    """
    from oddslab._seeding import chunk_seeds

    if recorder is not None and recorder.active:
        if not job.records:
            raise ValueError(
                f"the {job.ruleset or 'scenario'}'s kernel does not record trials, so events, "
                "joint distributions and records are not available for it"
            )
    else:
        recorder = None

    if isinstance(trials, bool) or not 1 <= trials <= MAX_TRIALS:
        raise ValueError(f"trials: expected {TRIALS_WHAT}, got {trials!r}")
    check_histogram_size(job)
    n_stats = len(job.stats)
    n_bins = job.n_bins
    total = np.zeros((n_stats, n_bins), dtype=np.int64)
    n_chunks_total = -(-trials // CHUNK_TRIALS)
    batches = (
        precision_batches(n_chunks_total)
        if precision is not None
        else fixed_batches(n_chunks_total)
    )
    done = 0
    interrupted = False
    buf = np.zeros((BATCH_CHUNKS, n_stats, n_bins), dtype=np.int64)
    compile_time, compiled = 0.0, False
    started = time.perf_counter()
    # The call in flight, for Ctrl-C and the progress watcher: its histograms, trials per
    # chunk, how many of its chunks are merged, whether job.transform has run on them.
    live: dict[str, Any] = {"out": None, "ntrials": None, "merged": 0, "transformed": False}
    watcher = None
    try:
        compile_time, compiled = prepare_kernel(
            job, on_compile, (chunk_seeds(seed, 0, 1), np.zeros(1, dtype=np.int64), buf[:1])
        )
        started = time.perf_counter()
        if progress is not None and progress_every:
            watcher = Watcher(live, progress, None if precision is not None else trials)
            watcher.start(progress_every)
        for group in kernel_calls(batches, thread_count()):
            first, last = group[0][0], group[-1][1]
            seeds = chunk_seeds(seed, first, last)
            ntrials = np.array(
                [min(CHUNK_TRIALS, trials - i * CHUNK_TRIALS) for i in range(first, last)],
                dtype=np.int64,
            )
            out = buf[: last - first]
            live["out"] = None
            out[...] = 0
            live.update(out=out, ntrials=ntrials, merged=0, transformed=False, base=done)
            if recorder is not None:
                from oddslab._recorder import call_kernel

                tallies = call_kernel(recorder, job, seeds, ntrials, out, live, first, CHUNK_TRIALS)
            elif job.records:
                job.kernel(seeds, ntrials, out, no_records(job, len(ntrials)), *job.params)
            else:
                job.kernel(seeds, ntrials, out, *job.params)
            if job.transform is not None:
                job.transform(out)
            live["transformed"] = True
            stopped = False
            for chunk, stop in group:  # each batch's checkpoint in turn, as if run alone
                for i in range(chunk - first, stop - first):  # serial merge, fixed order
                    total += out[i]
                    if recorder is not None:
                        recorder.merge(tallies.pop(i))
                    done += int(ntrials[i])
                    live["merged"] = i + 1
                if progress is not None:
                    progress(done, None if precision is not None else trials)
                if (
                    precision is not None
                    and _max_half_width(job, total, done, recorder) < precision
                ):
                    stopped = True  # later chunks of this call are dropped, unmerged
                    break
            live["out"] = None
            if stopped:
                break
    except KeyboardInterrupt:
        interrupted = True
        hook = None
        if recorder is not None:
            from oddslab._recorder import rescue

            def hook(idx: list[int]) -> None:
                rescue(recorder, live, idx)

        done += merge_finished(job, live, total, hook)
    finally:
        if watcher is not None:
            watcher.stop()
    elapsed = time.perf_counter() - started
    half = reached = None
    if precision is not None:
        half = _max_half_width(job, total, done, recorder) if done else 1.0
        reached = bool(half < precision)
    result = Outcome.from_counts(
        job.name,
        job.stats,
        total,
        done,
        seed=seed,
        headlines=job.headlines,
        interrupted=interrupted,
        elapsed=elapsed,
        meta={"ruleset": job.ruleset, **job.meta} if job.ruleset else dict(job.meta),
        compile_time=compile_time,
        compiled=compiled,
        precision=precision,
        half_width=half,
        precision_reached=reached,
    )
    if recorder is not None:
        result.attach(recorder.results())
    return result


def trials_needed(outcome: Outcome) -> int | None:
    """Trials a precision run that stopped short would need for its target (an estimate:
    the half-width shrinks as ``1/sqrt(n)``), rounded up to whole chunks; None when the
    target was reached or there was none."""
    if outcome.precision is None or outcome.precision_reached or not outcome.trials:
        return None
    n = outcome.trials * (outcome.half_width / outcome.precision) ** 2
    return int(-(-n // CHUNK_TRIALS) * CHUNK_TRIALS)


def _max_half_width(job: Job, total: np.ndarray, n: int, recorder: Any = None) -> float:
    from oddslab.outcome import wilson_interval

    index = {s.name: i for i, s in enumerate(job.stats)}
    worst = 0.0
    heads = job.headlines or tuple(Headline(f"P({s.name} >= 1)", s.name, 1) for s in job.stats)
    for h in heads:
        hits = int(total[index[h.stat], h.k :].sum())
        lo, hi = wilson_interval(hits, n)
        worst = max(worst, (hi - lo) / 2)
    if recorder is not None:
        worst = max(worst, recorder.max_half_width())
    return worst
