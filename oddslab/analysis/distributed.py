"""Running a study's cells: in-process, on a local Dask cluster, or on an existing one.

- default: in this process, one cell after another, each using numba's threads;
- ``workers=N``: a :class:`dask.distributed.LocalCluster` on 127.0.0.1 (N processes with one
  thread each, ``NUMBA_NUM_THREADS=1`` in every worker so the machine is not oversubscribed,
  no dashboard), closed when the study ends;
- ``scheduler="tcp://host:8786"``: an existing cluster, used as it is.

Finished cells stream into an optional :class:`~oddslab.analysis.store.CellStore` as they
arrive; with ``resume=True`` cells already in the store are not run again. Because a cell's
result depends only on its scenario and seed (never on where or when it ran), a resumed study
ends with exactly the results of an uninterrupted one.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from oddslab._schema import ScenarioError
from oddslab.analysis.cells import EXACT_MODES, Cell, CellResult, digest, run_cell
from oddslab.analysis.dask_run import (  # noqa: F401  (INSTALL_HINT: re-exported)
    INSTALL_HINT,
    DaskMissing,
    _import_distributed,
    pack,
    unpack,
    worker_address,
)
from oddslab.analysis.store import CellStore

__all__ = [
    "DaskMissing",
    "run_cells",
    "run_batch",
    "run_packed",
    "study_hash",
    "study_identity",
    "stored_seed",
    "local_cluster",
]


def local_cluster(workers: int, dashboard: bool = False):
    """See :func:`oddslab.analysis.dask_run.local_cluster`."""
    from oddslab.analysis.dask_run import local_cluster as make

    return make(workers, dashboard)


#: Finished cells are committed to the store at least this often (s), or every SAVE_CELLS.
SAVE_SECONDS = 0.5
SAVE_CELLS = 1_000
#: Seconds to wait for a Dask scheduler before giving up.
CONNECT_TIMEOUT = 20.0


def study_identity(
    kind: str,
    definition: Any,
    keys: Sequence[str],
    seed: int,
    trials: int | None,
    precision: float | None,
    metric: str | None = None,
    exact: str | None = None,
    events: Sequence[str] = (),
) -> dict[str, Any]:
    """What makes a study the study it is, as a store keeps it (JSON-ready).

    ``definition`` is the base scenario (sweeps) or template (matchups) as a dict, kept as its
    digest; ``metric`` counts with ``precision`` (it then decides each cell's trials) and with
    ``exact="auto"`` (it decides which cells are answered exactly:
    :func:`~oddslab.analysis.cells.exact_result`).
    ``events`` (the events every cell answers) count when there are any: a study without
    events keeps the identity it had before events existed.
    """
    import oddslab
    from oddslab.engine import CHUNK_TRIALS

    extra = {"events": list(events)} if events else {}
    return {
        "kind": kind,
        "scenario": digest(definition),
        "keys": list(keys),
        "seed": int(seed),
        "trials": trials,
        "precision": precision,
        "metric": metric if precision is not None or exact == "auto" else None,
        "exact": exact,
        "chunk": CHUNK_TRIALS,
        "oddslab": oddslab.__version__,
        **extra,
    }


def study_hash(identity: dict[str, Any]) -> str:
    """Digest of a study's identity (:func:`study_identity`): the first half of a store key."""
    return digest(identity)


def stored_seed(store: str | Path | CellStore | None) -> int | None:
    """The seed of the study an existing store holds (for ``--resume`` without a seed)."""
    if store is None:
        return None
    if isinstance(store, CellStore):
        ident = store.identity()
    else:
        if not Path(store).is_file():
            return None
        with CellStore(store, create=False) as db:
            ident = db.identity()
    return None if ident is None else int(ident["seed"])


def run_study(
    kind: str,
    definition: dict[str, Any],
    cells: Sequence[Cell],
    *,
    keys: Sequence[str],
    seed: int,
    trials: int | None = None,
    precision: float | None = None,
    metric: str | None = None,
    exact: str = "auto",
    events: Sequence[str] = (),
    **run: Any,
) -> list[CellResult]:
    """Run the cells of one study (a sweep, a matchup): the metric is checked before anything
    runs, the study is identified (:func:`study_identity`), then :func:`run_cells` runs them.

    ``definition`` is what the cells share (base scenario or template); ``keys`` name what
    tells cells apart; ``run`` are :func:`run_cells`'s other options (store, resume, ...).
    ``events`` are answered in every cell (with the metric's condition when it is written
    inline: :func:`~oddslab.analysis.cell_events.study_events`); they and the metric are read
    against the cells' statistics before anything runs
    (:func:`~oddslab.analysis.cell_events.check_study`).
    """
    from oddslab.analysis.cell_events import check_study, study_events
    from oddslab.analysis.metrics import parse_metric

    if metric is not None:
        parse_metric(metric)  # a malformed metric fails before anything runs
    if exact not in EXACT_MODES:
        raise ValueError(f"exact must be one of {', '.join(EXACT_MODES)}, got {exact!r}")
    events = study_events(events, metric)
    check_study(cells, events, metric, exact)
    identity = study_identity(
        kind, definition, keys, seed, trials, precision, metric, exact, events
    )
    return run_cells(
        cells,
        study=study_hash(identity),
        identity=identity,
        trials=trials,
        precision=precision,
        metric=metric,
        exact=exact,
        events=events,
        **run,
    )


def run_cells(
    cells: Iterable[Cell],
    *,
    study: str,
    trials: int | None = None,
    precision: float | None = None,
    store: str | Path | CellStore | None = None,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | str | None = "auto",
    batch: int | None = None,
    metric: str | None = None,
    identity: dict[str, Any] | None = None,
    exact: str = "never",
    dashboard: bool = False,
    events: Sequence[str] = (),
    keep: bool = True,
) -> list[CellResult]:
    """Run every cell (skipping finished ones when resuming); results in cell order.

    Parameters
    ----------
    cells : sequence of Cell
        The study's cells (already validated); with ``keep=False`` any sized iterable (the
        cells are made as they are read, and none is kept after it ran).
    study : str
        The study hash (:func:`study_hash`), the first half of every store key.
    trials, precision
        As :func:`oddslab.simulate`, for every cell.
    store : path or CellStore, optional
        Where finished cells are written as they finish.
    resume : bool
        Skip cells already in ``store``. Without it, a store that already holds cells of this
        study is refused (so results are never silently mixed or overwritten).
    workers : int, optional
        Start a LocalCluster of this many single-threaded worker processes.
    scheduler : str, optional
        Address of an existing Dask scheduler (``tcp://host:8786``).
    progress : callable, "auto" or None
        ``progress(cells_done, cells_total)`` after every finished cell (skipped ones count);
        "auto" (default): a progress bar in a terminal or a Jupyter notebook, nothing
        elsewhere (:mod:`oddslab.analysis.progress`); None: no progress.
    batch : int, optional
        Cells per Dask task. Default: sized from the measured cost of a cell (see
        :mod:`oddslab.analysis.dask_run`), so Dask's per-task cost (a few milliseconds
        of CPU) stays small; a lost worker re-runs at most a batch per task it held.
    dashboard : bool
        Keep the local cluster's dashboard (127.0.0.1:8787); by default no HTTP server listens.
    metric : str, optional
        A probability metric that ``precision`` also applies to (besides the headlines).
    exact : {"never", "auto"}
        "auto": answer a cell exactly when every statistic it reports has an exact answer,
        or, given a ``metric``, every statistic the metric and ``events`` read
        (:func:`~oddslab.analysis.cells.exact_result`).
    identity : dict, optional
        The study's identity (:func:`study_identity`): a store keeps it, and refuses a
        store that holds another study (see :meth:`CellStore.claim`).
    events : sequence of str
        Events every cell answers in its own run (see :mod:`oddslab.analysis.cell_events`).
    keep : bool
        Keep the results in memory and return them (default). ``False`` needs a ``store``:
        results go only there (the client's memory does not grow with the study: at most
        :data:`SAVE_CELLS` unsaved results, or the tasks in flight on Dask), the cells must
        be distinct (not checked) and the list returned is empty; read them with
        :class:`oddslab.analysis.stored.StoredResults`.

    Raises
    ------
    DaskMissing
        ``workers`` / ``scheduler`` without dask.distributed installed.
    ScenarioError
        The store already holds this study and ``resume`` is False.
    StudyInterrupted
        Ctrl-C (a ``KeyboardInterrupt``): it carries the finished cells
        (:mod:`oddslab.analysis.interrupted`).
    """
    if workers is not None and scheduler is not None:
        raise ValueError("give either workers or scheduler, not both")
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")
    if batch is not None and batch < 1:
        raise ValueError("batch must be at least 1")
    if batch is not None and workers is None and scheduler is None:
        raise ValueError("batch applies to Dask runs (workers or scheduler)")
    if precision is not None and not 0 < precision < 0.5:  # even when every cell is exact
        raise ValueError(
            f"precision: expected a 95% half-width between 0 and 0.5 such as 0.005, "
            f"got {precision!r}"
        )
    if not keep and store is None:
        raise ValueError("keep=False needs a store: the results are kept only there")
    if workers is not None or scheduler is not None:
        _import_distributed()
    if progress == "auto":  # a bar in a terminal or a notebook, nothing elsewhere
        from oddslab.analysis.progress import progress_bar

        with progress_bar("study") as bar:
            return run_cells(
                cells, study=study, trials=trials, precision=precision, store=store,
                resume=resume, workers=workers, scheduler=scheduler, progress=bar, batch=batch,
                metric=metric, identity=identity, exact=exact, dashboard=dashboard, keep=keep,
                events=events,
            )  # fmt: skip
    own_store = store is not None and not isinstance(store, CellStore)
    db = CellStore(store) if own_store else store
    if keep:
        cells = list(cells)
        _check_distinct(cells)
    total = len(cells)  # type: ignore[arg-type]
    events = tuple(events)
    results: dict[str, CellResult] = {}
    done = 0
    try:
        stored = 0
        if db is not None:
            if identity is not None:
                db.claim(study, identity)
            stored = db.count(study)
            if stored and not resume:
                raise ScenarioError(
                    str(db.path),
                    "",
                    f"already holds {stored} cells of this study; "
                    "use --resume to continue it, or another store file",
                )
        if keep:
            if stored:
                finished = db.finished(study)
                for c in cells:
                    r = finished.get(c.key)
                    if r is not None and r.scenario_hash == c.scenario_hash and not r.interrupted:
                        results[c.key] = r
                del finished
            done = len(results)
            pending: Iterable[Cell] = [c for c in cells if c.key not in results]
        else:
            pending = _unfinished(cells, db, study) if stored else cells
        if progress is not None:
            progress(done, total)

        unsaved: list[CellResult] = []
        saved_at = time.monotonic()

        def save() -> None:
            nonlocal saved_at
            if db is not None and unsaved:
                db.put_many(study, unsaved)
            unsaved.clear()
            saved_at = time.monotonic()

        shared: dict[Any, Any] = {}

        def finish(rs: list[CellResult]) -> None:
            nonlocal done
            if any(r.interrupted for r in rs):  # Ctrl-C inside a kernel: keep nothing partial
                raise KeyboardInterrupt
            if keep:
                for r in rs:
                    results[r.key] = _compact(r, shared)
            done += len(rs)
            unsaved.extend(rs)
            # one transaction per SAVE_SECONDS (a commit costs ~a millisecond: per tiny cell
            # it doubled the time); a killed study loses at most that much finished work
            if time.monotonic() - saved_at >= SAVE_SECONDS or len(unsaved) >= SAVE_CELLS:
                save()
            if progress is not None:
                progress(done, total)

        def skipped(n: int) -> None:  # finished cells found in the store while resuming
            nonlocal done
            done += n
            if progress is not None:
                progress(done, total)

        if isinstance(pending, _Unfinished):
            pending.skipped = skipped
        try:
            if workers is None and scheduler is None:
                for c in pending:
                    finish([_run(c, trials, precision, metric, exact, events)])
            else:
                from oddslab.analysis.dask_run import run_dask

                run_dask(
                    pending,
                    (trials, precision, metric, exact, events),
                    task=run_packed,
                    workers=workers,
                    scheduler=scheduler,
                    finish=finish,
                    batch=batch,
                    dashboard=dashboard,
                    connect_timeout=CONNECT_TIMEOUT,
                    count=total - (done if keep else stored),
                )
        finally:  # finished cells are written even when the study stops (Ctrl-C, an error)
            save()
    except KeyboardInterrupt:  # the finished cells go with it (oddslab.analysis.interrupted)
        from oddslab.analysis.interrupted import StudyInterrupted

        kept = [results[c.key] for c in cells if c.key in results] if keep else []
        n = len(kept) if keep else db.count(study)  # type: ignore[union-attr]
        where = None if db is None else db.path
        raise StudyInterrupted(study, identity, kept, where, n, total) from None
    finally:
        if own_store and db is not None:
            db.close()
    if not keep:
        return []
    return [results[c.key] for c in cells]


def _check_distinct(cells: Sequence[Cell]) -> None:
    keys = [c.key for c in cells]
    if len(set(keys)) == len(keys):
        return
    seen: set[str] = set()
    for c in cells:
        if c.key in seen:
            raise ValueError(
                f"two cells of the study have the same values ({_values_text(c)}, in "
                f"{c.source}): give each value once"
            )
        seen.add(c.key)


class _Unfinished:
    """The cells not yet in the store, read :data:`~oddslab.analysis.store.READ_CHUNK` at a
    time (a resumed big study never loads the store's rows); ``skipped(n)`` is told how many
    finished cells each chunk had."""

    def __init__(self, cells: Iterable[Cell], db: CellStore, study: str) -> None:
        self.cells, self.db, self.study = cells, db, study
        self.skipped: Callable[[int], None] = lambda n: None

    def __iter__(self) -> Iterator[Cell]:
        import itertools

        from oddslab.analysis.store import READ_CHUNK

        it = iter(self.cells)
        while part := list(itertools.islice(it, READ_CHUNK)):
            found = self.db.hashes(self.study, [c.key for c in part])
            n = 0
            for c in part:
                f = found.get(c.key)
                if f is not None and not f[1] and f[0] == c.scenario_hash:
                    n += 1
                    continue
                yield c
            if n:
                self.skipped(n)


def _unfinished(cells: Iterable[Cell], db: CellStore, study: str) -> _Unfinished:
    return _Unfinished(cells, db, study)


def _compact(r: CellResult, shared: dict[Any, Any]) -> CellResult:
    """``r`` with its statistics, headlines, name and meta shared with the study's earlier
    cells when equal: every cell of a study describes the same few statistics, and these
    strings were most of the client's memory per cell (about 5 kB of a generic cell)."""
    import dataclasses

    from oddslab.analysis.cells import canonical

    meta_key = ("meta", canonical(r.meta))
    return dataclasses.replace(
        r,
        name=shared.setdefault(("name", r.name), r.name),
        stats=shared.setdefault(("stats", r.stats), r.stats),
        headlines=shared.setdefault(("heads", r.headlines), r.headlines),
        meta=shared.setdefault(meta_key, r.meta),
    )


def _values_text(c: Cell) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in c.values.items())


def run_batch(
    cells: Sequence[tuple],
    trials: int | None,
    precision: float | None,
    metric: str | None = None,
    exact: str = "never",
    events: Sequence[str] = (),
) -> list[CellResult]:
    """Run several cells in one Dask task (each exactly as :func:`run_cell`).

    Each cell is ``(scenario, source, key, scenario hash, seed)`` (:meth:`Cell.payload`),
    optionally with the validated scenario object last (then ``scenario`` may be None: the
    object is run as the in-process run does, and is not read again).

    Numba reads ``NUMBA_NUM_THREADS`` when it is first imported, which in a Dask worker can
    happen before the nanny's environment is applied; so the task sets the thread count of
    its own thread from the environment (``numba.set_num_threads`` is per calling thread).
    Results do not depend on it (chunks are seeded independently of threads).
    """
    _worker_threads()
    events = tuple(events)
    return [
        run_cell(*c[:5], trials, precision, metric, exact, validated=c[5] if len(c) > 5 else None,
                 events=events)
        for c in cells
    ]  # fmt: skip


def run_packed(packed: bytes, *args: Any) -> bytes:
    """:func:`run_batch` of the cells :func:`~oddslab.analysis.dask_run.pack_cells` packed,
    packed with the address of the worker that ran them (None outside a Dask worker) and its
    time for them (s, from the packed cells to the results) as ``(address, results,
    seconds)``: the Dask task of :func:`run_cells`. Packed, the cells and results cross the
    scheduler and the workers' memory accounting as one bytes object each, which no Dask
    component walks or unpickles (see :mod:`~oddslab.analysis.dask_run`); the address tells
    the client which worker is free for its next task and the time what a cell costs there
    (:mod:`~oddslab.analysis.dask_plan`).
    """
    t0 = time.perf_counter()
    results = run_batch(unpack(packed), *args)
    return pack((worker_address(), results, time.perf_counter() - t0))


def _worker_threads() -> None:
    want = os.environ.get("NUMBA_NUM_THREADS", "")
    if not want.isdigit() or int(want) < 1:
        return
    import numba

    numba.set_num_threads(min(int(want), numba.config.NUMBA_NUM_THREADS))


def _run(
    c: Cell, trials: int | None, precision: float | None, metric: str | None, exact: str,
    events: tuple[str, ...] = (),
) -> CellResult:  # fmt: skip
    sc, c.__dict__["validated"] = c.validated, None  # run once: the object is not kept
    return run_cell(*c.payload(), trials, precision, metric, exact, validated=sc, events=events)
