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
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from oddslab._schema import ScenarioError
from oddslab.analysis.cells import Cell, CellResult, digest, run_cell
from oddslab.analysis.store import CellStore

__all__ = ["DaskMissing", "run_cells", "run_batch", "study_hash", "local_cluster"]

#: Seconds to wait for a Dask scheduler before giving up.
CONNECT_TIMEOUT = 20.0


class DaskMissing(RuntimeError):
    """``workers`` / ``scheduler`` were asked for but dask.distributed is not importable."""

    def __init__(self) -> None:
        from oddslab._install import pip_install

        # a checkout needs `pip install -e ".[dask]"`, an index install "oddslab[dask]"
        super().__init__(f"Dask is not installed; install it with: {pip_install('dask')}")


def study_hash(kind: str, definition: Any, trials: int | None, precision: float | None) -> str:
    """Digest of what a study's cells share (its kind, base scenario/template, run options)."""
    from oddslab.engine import CHUNK_TRIALS

    return digest(
        {
            "kind": kind,
            "definition": definition,
            "trials": trials,
            "precision": precision,
            "chunk": CHUNK_TRIALS,
        }
    )


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise DaskMissing() from None
    return distributed


def local_cluster(workers: int):
    """A LocalCluster of ``workers`` single-threaded processes bound to 127.0.0.1."""
    distributed = _import_distributed()
    env = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    for key in ("NUMBA_CACHE_DIR", "PYTHONPATH"):
        if key in os.environ:
            env[key] = os.environ[key]
    return distributed.LocalCluster(
        n_workers=workers,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        env=env,
        silence_logs=50,  # logging.CRITICAL: no worker heartbeat noise at shutdown
    )


def run_study(
    kind: str,
    definition: dict[str, Any],
    cells: Sequence[Cell],
    *,
    trials: int | None = None,
    precision: float | None = None,
    metric: str | None = None,
    **run: Any,
) -> list[CellResult]:
    """Run the cells of one study (a sweep, a matchup): the metric is checked before anything
    runs, the study is keyed by what its cells share, then :func:`run_cells` runs them.

    ``definition`` is what the cells share (base scenario or template, seed); the metric joins
    it when ``precision`` is set, because it then decides how many trials each cell runs.
    ``run`` are :func:`run_cells`'s other options (store, resume, workers, ...).
    """
    from oddslab.analysis.metrics import parse_metric

    if metric is not None:
        parse_metric(metric)  # a malformed metric fails before anything runs
        if precision is not None:
            definition = {**definition, "metric": metric}
    study = study_hash(kind, definition, trials, precision)
    return run_cells(cells, study=study, trials=trials, precision=precision, metric=metric, **run)


def run_cells(
    cells: Sequence[Cell],
    *,
    study: str,
    trials: int | None = None,
    precision: float | None = None,
    store: str | Path | CellStore | None = None,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
    batch: int = 1,
    metric: str | None = None,
    threads: int | None = None,
) -> list[CellResult]:
    """Run every cell (skipping finished ones when resuming); results in cell order.

    Parameters
    ----------
    cells : sequence of Cell
        The study's cells (already validated).
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
    progress : callable, optional
        ``progress(cells_done, cells_total)`` after every finished cell (skipped ones count).
    batch : int
        Cells per Dask task (default 1). For studies of 10⁵+ small cells, batches of 10–100
        keep the scheduler's per-task cost (about a millisecond) and the client's memory for
        futures small; a lost worker then re-runs at most a batch per task it held.
    metric : str, optional
        A probability metric that ``precision`` also applies to (besides the headlines).
    threads : int, optional
        In-process only: run this many cells at once on threads (the kernels release the GIL;
        a one-chunk cell runs on one core). Results, their order, the store and ``progress``
        are as in a serial run; default one cell at a time.

    Raises
    ------
    DaskMissing
        ``workers`` / ``scheduler`` without dask.distributed installed.
    ScenarioError
        The store already holds this study and ``resume`` is False.
    """
    if workers is not None and scheduler is not None:
        raise ValueError("give either workers or scheduler, not both")
    if workers is not None and workers < 1:
        raise ValueError("workers must be at least 1")
    if batch < 1:
        raise ValueError("batch must be at least 1")
    if workers is not None or scheduler is not None:
        _import_distributed()
    own_store = store is not None and not isinstance(store, CellStore)
    db = CellStore(store) if own_store else store
    keys = [c.key for c in cells]
    if len(set(keys)) != len(keys):
        raise ValueError("two cells of the study have the same values")
    results: dict[str, CellResult] = {}
    try:
        if db is not None:
            done = db.finished(study)
            if done and not resume:
                raise ScenarioError(
                    str(db.path),
                    "",
                    f"already holds {len(done)} cells of this study; "
                    "use --resume to continue it, or another store file",
                )
            for c in cells:
                r = done.get(c.key)
                if r is not None and r.scenario_hash == c.scenario_hash and not r.interrupted:
                    results[c.key] = r
        pending = [c for c in cells if c.key not in results]
        total = len(cells)
        if progress is not None:
            progress(len(results), total)

        def finish(r: CellResult) -> None:
            if r.interrupted:  # Ctrl-C inside a kernel: keep nothing partial
                raise KeyboardInterrupt
            results[r.key] = r
            if db is not None:
                db.put(study, r)
            if progress is not None:
                progress(len(results), total)

        if workers is None and scheduler is None and threads and threads > 1 and pending:
            _run_threads(pending, trials, precision, metric, threads, finish)
        elif workers is None and scheduler is None:
            for c in pending:
                finish(_run(c, trials, precision, metric))
        else:
            _run_dask(pending, trials, precision, workers, scheduler, finish, batch, metric)
    finally:
        if own_store and db is not None:
            db.close()
    return [results[k] for k in keys]


def run_batch(
    cells: Sequence[tuple[dict[str, Any], str, str, str, int]],
    trials: int | None,
    precision: float | None,
    metric: str | None = None,
) -> list[CellResult]:
    """Run several cells in one Dask task (each exactly as :func:`run_cell`).

    Numba reads ``NUMBA_NUM_THREADS`` when it is first imported, which in a Dask worker can
    happen before the nanny's environment is applied; so the task sets the thread count of
    its own thread from the environment (``numba.set_num_threads`` is per calling thread).
    Results do not depend on it (chunks are seeded independently of threads).
    """
    _worker_threads()
    return [run_cell(*c, trials, precision, metric) for c in cells]


def _worker_threads() -> None:
    want = os.environ.get("NUMBA_NUM_THREADS", "")
    if not want.isdigit() or int(want) < 1:
        return
    import numba

    numba.set_num_threads(min(int(want), numba.config.NUMBA_NUM_THREADS))


def _run_threads(pending, trials, precision, metric, threads: int, finish) -> None:
    """Cells on ``threads`` threads; each finished in cell order (the store and ``progress``
    see what a serial run shows). An error or a stop raised by ``finish`` drops the cells not
    yet started."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads, thread_name_prefix="oddslab-cell") as pool:
        futures = [pool.submit(_run, c, trials, precision, metric) for c in pending]
        try:
            for f in futures:
                finish(f.result())
        except BaseException:
            for f in futures:
                f.cancel()
            raise


def _run(c: Cell, trials: int | None, precision: float | None, metric: str | None) -> CellResult:
    return run_cell(c.scenario, c.source, c.key, c.scenario_hash, c.seed, trials, precision, metric)


def _run_dask(
    pending: Sequence[Cell],
    trials: int | None,
    precision: float | None,
    workers: int | None,
    scheduler: str | None,
    finish: Callable[[CellResult], None],
    batch: int,
    metric: str | None,
) -> None:
    distributed = _import_distributed()
    cluster = local_cluster(workers) if workers is not None else None
    client = None
    try:
        try:
            client = distributed.Client(
                cluster if cluster is not None else scheduler, timeout=CONNECT_TIMEOUT
            )
        except (OSError, TimeoutError) as exc:
            where = scheduler if scheduler is not None else "the local cluster"
            raise OSError(f"cannot reach the Dask scheduler at {where} ({exc})") from None
        groups = [pending[i : i + batch] for i in range(0, len(pending), batch)]
        futures = [
            client.submit(
                run_batch,
                [(c.scenario, c.source, c.key, c.scenario_hash, c.seed) for c in group],
                trials,
                precision,
                metric,
                key=f"oddslab-cells-{group[0].scenario_hash[:16]}-{i}",
                pure=False,
                retries=2,  # a task that raises (e.g. out of memory) is tried again; tasks of
                # a lost worker are rescheduled by Dask itself (allowed-failures)
            )
            for i, group in enumerate(groups)
        ]
        try:
            for fut in distributed.as_completed(futures):
                for r in fut.result():
                    finish(r)
        except BaseException:
            client.cancel(futures)
            raise
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
