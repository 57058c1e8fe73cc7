"""Running a study's cells on Dask: batches sized from a measured cell, a bounded window of
tasks in flight, and a local cluster that serves no HTTP unless a dashboard is asked for.

- **Batches.** A Dask task costs a few milliseconds of CPU whatever it holds (measured on 2
  shared cores: 3-6 ms in the client's process, scheduler and comms together, and 2-7 ms in
  the worker; issue 33), so one 10⁵-trial cell per task (about 10 ms) spends much of its
  time on overhead. With
  ``batch=None`` (the default) the first tasks carry two cells each; the kernel time of the
  second cell of the first to finish gives the cost of a cell, and the rest go in
  batches of about :data:`TARGET_TASK_SECONDS` of work (sized as soon as the first of those
  tasks returns; the workers are never left idle waiting for the others), never fewer than
  :data:`BALANCE_TASKS` tasks per worker (fewer, bigger tasks: each costs a few ms). The
  last tasks shrink (:func:`tail_batch`): once fewer cells are left than one task per
  worker, each task takes the remaining cells over the number of workers, down to
  :data:`TAIL_TASK_SECONDS` of work, so the workers finish together instead of one waiting
  on the other's last full-size task.
- **Window.** At most ``TASKS_PER_WORKER × workers`` tasks are in flight; the next is sent as
  one finishes. The client therefore holds the cells of a bounded number of tasks, not of the
  whole study.
- **Packed.** Each task's cells travel as one bytes object (:func:`pack_cells`: pickled
  once by the client, with each cell's validated scenario object when the study kept it, so a
  worker does not read the scenario again), and its results come back as one. Dask's scheduler
  unpickles and pickles again every argument of a task it forwards, and a worker measures
  the size of every result by walking it; bytes it only copies.
- **No HTTP.** A Dask scheduler and every worker start an HTTP server (the dashboard, health
  and metrics routes). The local cluster's scheduler binds its server to a free port on
  127.0.0.1 and stops it as soon as the cluster is up, and each worker stops its own; with
  ``dashboard=True`` the scheduler keeps its server on 127.0.0.1:8787.
"""

from __future__ import annotations

import itertools
import math
import os
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from oddslab.analysis.cells import Cell, CellResult

INSTALL_HINT = 'Dask is not installed; install it with: pip install "oddslab[dask]"'


class DaskMissing(RuntimeError):
    """``workers`` / ``scheduler`` were asked for but dask.distributed is not importable."""

    def __init__(self) -> None:
        from oddslab._install import pip_install

        # a checkout needs `pip install -e ".[dask]"`, an index install "oddslab[dask]"
        super().__init__(f"Dask is not installed; install it with: {pip_install('dask')}")


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise DaskMissing() from None
    return distributed


__all__ = [
    "DaskMissing",
    "pack",
    "unpack",
    "pack_cells",
    "INSTALL_HINT",
    "local_cluster",
    "run_dask",
    "plan_batch",
    "TARGET_TASK_SECONDS",
    "TASKS_PER_WORKER",
    "BALANCE_TASKS",
    "TAIL_TASK_SECONDS",
    "tail_batch",
    "BALANCED",
]

#: Work per Dask task the batches aim at (s): a few ms of per-task cost are then about 1%.
TARGET_TASK_SECONDS = 0.5
#: Tasks in flight per worker (the window; Dask queues those the workers are not yet running).
TASKS_PER_WORKER = 4
#: Tasks per worker at least when batches are planned: the end of a study is balanced by the
#: shrinking last tasks (:func:`tail_batch`), so the plan needs few; at 2 rather than 4, 200
#: cells of 10⁵ trials on 2 workers are about 9 tasks rather than 13 (each a few ms of CPU).
BALANCE_TASKS = 2
#: Work of the smallest task at the end of a study (s): a few ms of per-task cost stays small.
TAIL_TASK_SECONDS = 0.05
#: Cells per task at most (a lost worker re-runs at most this many per task it held).
MAX_BATCH = 2_000
#: Dask settings of every local cluster: the scheduler hands a worker its next task only when
#: the worker is free (Dask's default, 1.1, keeps a second task queued on each single-threaded
#: worker). The tasks are sent biggest first and shrink as the study ends
#: (:func:`tail_batch`), so handing each to the first free worker balances the end; with a
#: task queued ahead on each worker, the order of the big ones was fixed too early and one
#: worker finished 0.13-0.18 s after the other in a 1.2-s study (200 cells of 10⁵ trials).
#: The cost is one scheduler-to-worker message between tasks (about 1 ms).
BALANCED = {"distributed.scheduler.worker-saturation": 1.0}
#: Address of the dashboard when it is asked for.
DASHBOARD = "127.0.0.1:8787"
#: Dask settings of a local cluster without a dashboard: its housekeeping, which only the
#: dashboard reads, made rare. By default each worker samples its own stacks every 10 ms (the
#: dashboard's profile), and the scheduler, nannies and workers poll psutil every 0.1-0.5 s
#: and check their event loops every 20 ms: measured on 2 cores, 30-33 ms of CPU per second
#: in the client's process and 37-50 ms in two idle workers, 7-10 and 3-7 with these (the
#: cores the workers' kernels need; issue 33). A runaway worker is still stopped at its
#: memory limit, checked every second instead of every 0.1 s; work stealing is off because
#: the client keeps only a few tasks per worker in flight (Dask queues the rest itself).
QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


def local_cluster(workers: int, dashboard: bool = False):
    """A LocalCluster of ``workers`` single-threaded processes bound to 127.0.0.1, with no
    HTTP server listening unless ``dashboard`` (then the scheduler's, on 127.0.0.1:8787, and
    Dask's usual housekeeping; without it, :data:`QUIET`)."""
    import dask

    distributed = _import_distributed()
    env = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    for key in ("NUMBA_CACHE_DIR", "PYTHONPATH"):
        if key in os.environ:
            env[key] = os.environ[key]
    # the scheduler and nannies read their settings when made, and each nanny hands its
    # settings on to its worker process
    with dask.config.set(BALANCED if dashboard else {**QUIET, **BALANCED}):
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=DASHBOARD if dashboard else "127.0.0.1:0",
            env=env,
            silence_logs=50,  # logging.CRITICAL: no worker heartbeat noise at shutdown
        )
    if not dashboard:
        _stop_http(cluster.scheduler, cluster.loop)
    return cluster


def _stop_http(server: Any, loop: Any) -> None:
    """Stop ``server``'s HTTP listener on its own event loop and wait until it is closed."""
    import threading

    http = getattr(server, "http_server", None)
    if http is None:
        return
    done = threading.Event()

    def stop() -> None:
        try:
            http.stop()  # closes the listening sockets
        finally:
            done.set()

    loop.add_callback(stop)
    done.wait(10)


def stop_worker_http(dask_worker: Any = None) -> None:
    """Run on each worker (``client.run``): stop its HTTP server."""
    http = getattr(dask_worker, "http_server", None)
    if http is not None:
        http.stop()


def pack(obj: Any) -> bytes:
    """``obj`` pickled (protocol 5): a task's cells or results as one bytes object."""
    import pickle

    return pickle.dumps(obj, protocol=5)


def unpack(data: bytes) -> Any:
    """What :func:`pack` packed."""
    import pickle

    return pickle.loads(data)


def pack_cells(group: Sequence[Cell]) -> bytes:
    """The cells of one task for :func:`oddslab.analysis.distributed.run_packed`: each
    :meth:`Cell.payload` with the cell's validated scenario object (the dict left out, as the
    object replaces it), or without objects when one does not pickle (a plugin's scenario).
    The cells let go of their objects once packed (they run once, as in-process)."""
    import pickle

    payload = [c.payload() for c in group]  # each scenario built once, here
    try:
        data = pack([
            (None, *p[1:], c.validated) if c.validated is not None else p
            for c, p in zip(group, payload, strict=True)
        ])  # fmt: skip
    except (pickle.PicklingError, TypeError, AttributeError):
        data = pack(payload)
    for c in group:
        c.__dict__["validated"] = None
    return data


def plan_batch(cell_seconds: float, cells: int, workers: int) -> int:
    """Cells per task: about :data:`TARGET_TASK_SECONDS` of work, but at least
    :data:`BALANCE_TASKS` tasks per worker, between 1 and :data:`MAX_BATCH`."""
    by_cost = math.ceil(TARGET_TASK_SECONDS / max(cell_seconds, 1e-6))
    by_balance = max(1, cells // (BALANCE_TASKS * max(workers, 1)))
    return max(1, min(by_cost, by_balance, MAX_BATCH))


def tail_batch(size: int, left: int, workers: int, cell_seconds: float) -> int:
    """Cells of the next task: ``size`` (:func:`plan_batch`) until fewer than ``size`` cells
    per worker are left, then the ``left`` cells shared over the ``workers``, but at least
    :data:`TAIL_TASK_SECONDS` of work (the tasks shrink as the study ends)."""
    share = math.ceil(max(left, 0) / max(workers, 1))
    floor = math.ceil(TAIL_TASK_SECONDS / max(cell_seconds, 1e-6))
    return max(1, min(size, max(share, floor)))


def run_dask(
    pending: Iterable[Cell],
    args: tuple,
    *,
    workers: int | None,
    scheduler: str | None,
    finish: Callable[[list[CellResult]], None],
    batch: int | None,
    dashboard: bool = False,
    connect_timeout: float = 20.0,
    task: Callable | None = None,
    count: int | None = None,
) -> dict[str, Any]:
    """Run ``pending`` cells on Dask, calling ``finish(results)`` once per finished task.

    ``args`` are the run options after the cells (trials, precision, metric, exact, events);
    ``task`` runs one batch (:func:`oddslab.analysis.distributed.run_packed`: packed cells
    in, packed results out); ``count`` is
    how many cells ``pending`` holds (default ``len(pending)``; an estimate is enough: it
    decides the pilot and the batches' balance). ``pending`` is read as tasks are sent, so
    the cells of a big study are made as they go and never held all at once.
    Returns what was done: ``{"batch": cells per task after the pilot, "tasks": n,
    "cell_seconds": measured cost of a cell or None}``.
    """
    dist = _import_distributed()
    if task is None:
        raise TypeError("run_dask needs the task that runs one batch (distributed.run_packed)")
    cluster = local_cluster(workers, dashboard) if workers is not None else None
    client = None
    info: dict[str, Any] = {"batch": batch, "tasks": 0, "cell_seconds": None}
    try:
        try:
            if cluster is None and scheduler is not None and Path(scheduler).is_file():
                # a scheduler file (dask scheduler --scheduler-file): address and protocol
                client = dist.Client(scheduler_file=scheduler, timeout=connect_timeout)
            else:
                client = dist.Client(
                    cluster if cluster is not None else scheduler, timeout=connect_timeout
                )
        except (OSError, TimeoutError, TypeError, ValueError) as exc:
            where = scheduler if scheduler is not None else "the local cluster"
            hint = ""
            if str(scheduler).startswith("tls://"):
                hint = "; a tls:// scheduler needs Dask's TLS settings (see docs/scaling.md)"
            raise OSError(f"cannot reach the Dask scheduler at {where} ({exc}){hint}") from None
        if cluster is not None and not dashboard:
            client.run(stop_worker_http)
        nworkers = workers or max(1, len(client.scheduler_info().get("workers", {})))
        queue = iter(pending)
        todo = count if count is not None else len(pending)  # type: ignore[arg-type]
        left = todo
        exhausted = False
        size = batch
        pilot = batch is None and todo >= 4 * TASKS_PER_WORKER * nworkers
        if batch is None and not pilot:
            size = 1
        info["batch"] = size
        window = TASKS_PER_WORKER * nworkers
        n = 0
        token = uuid.uuid4().hex[:16]

        def submit(group: Sequence[Cell]):
            nonlocal n
            n += 1
            return client.submit(
                task,
                pack_cells(group),
                *args,
                key=f"oddslab-cells-{token}-{n}",  # unique on a scheduler shared by studies
                pure=False,
                retries=2,  # a task that raises (e.g. out of memory) is tried again; tasks of
                # a lost worker are rescheduled by Dask itself (allowed-failures)
            )

        def take(k: int) -> list[Cell]:
            nonlocal left, exhausted
            group = list(itertools.islice(queue, k))
            left -= len(group)
            exhausted = exhausted or len(group) < k
            return group

        def fill() -> None:
            while not exhausted and running.count() < window:
                k = size
                if batch is None and info["cell_seconds"] is not None:
                    k = tail_batch(size, left, nworkers, info["cell_seconds"])
                group = take(k)
                if group:
                    running.add(submit(group))

        running = dist.as_completed()
        try:
            if pilot:  # two cells a task; the first result sizes the batches, while the
                # second pilot task of each worker keeps it busy (no idle round trip)
                for _ in range(2 * nworkers):
                    group = take(2)
                    if group:
                        running.add(submit(group))
            if size is not None:
                fill()
            for fut in running:
                rs = unpack(fut.result())
                if size is None:  # the first pilot task: its last cell's kernel time
                    cost = rs[-1].elapsed + 0.5e-3  # + the cell's fixed cost
                    info["cell_seconds"] = cost
                    size = plan_batch(cost, max(left, 1), nworkers)
                    info["batch"] = size
                finish(rs)
                fill()
        except BaseException:
            client.cancel(list(getattr(running, "futures", ())))
            raise
        info["tasks"] = n
        return info
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
