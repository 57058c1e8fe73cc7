"""Running a study's cells on Dask: batches sized from a measured cell, each worker with one
task queued (:mod:`oddslab.analysis.dask_plan` decides which and where), and a local cluster
that serves no HTTP unless a dashboard is asked for.

- **Plan.** :class:`~oddslab.analysis.dask_plan.Dispatch` cuts the cells into tasks (two-cell
  pilot tasks, then batches of about a second of work that shrink at the end) and names the
  worker of each: a worker holds one task more than its threads, so it starts the next one
  as soon as one ends; the client sends it another when a result comes back. The client
  therefore holds the cells of a bounded number of tasks, not of the whole study.
- **Packed.** Each task's cells travel as one bytes object (:func:`pack_cells`: pickled
  once by the client, with each cell's validated scenario object when the study kept it, so a
  worker does not read the scenario again), and its results come back as one, with the
  address of the worker that ran them. Dask's scheduler unpickles and pickles again every
  argument of a task it forwards, and a worker measures the size of every result by walking
  it; bytes it only copies.
- **No HTTP.** A Dask scheduler and every worker start an HTTP server (the dashboard, health
  and metrics routes) whatever their settings. Without a dashboard the local cluster gives
  them no routes (:data:`NO_ROUTES`: every path answers 404), binds the scheduler's to a
  free port on 127.0.0.1 and stops it as soon as the cluster is up, and each worker stops
  its own; with ``dashboard=True`` the scheduler keeps its server, with Dask's routes, on
  127.0.0.1:8787.
"""

from __future__ import annotations

import itertools
import os
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from oddslab.analysis.cells import Cell, CellResult
from oddslab.analysis.dask_plan import Dispatch

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
    "worker_address",
    "INSTALL_HINT",
    "local_cluster",
    "run_dask",
    "current_client",
    "QUIET",
    "NO_ROUTES",
    "cluster_settings",
    "dask_setup",
    "WORKERS_SECONDS",
]

#: How often a running study asks the scheduler which workers it has (s): workers that
#: joined get tasks, and a task that comes back from another worker than it was sent to
#: (its worker left) asks at once.
WORKERS_SECONDS = 5.0
#: Address of the dashboard when it is asked for.
DASHBOARD = "127.0.0.1:8787"
#: Dask settings of a local cluster without a dashboard: its housekeeping, which only the
#: dashboard reads, made rare. By default each worker samples its own stacks every 10 ms (the
#: dashboard's profile), and the scheduler, nannies and workers poll psutil every 0.1-0.5 s
#: and check their event loops every 20 ms: measured on 2 cores, 30-33 ms of CPU per second
#: in the client's process and 37-50 ms in two idle workers, 7-10 and 3-7 with these (the
#: cores the workers' kernels need; issue 33). A runaway worker is still stopped at its
#: memory limit, checked every second instead of every 0.1 s; work stealing is off because
#: the client names each task's worker and keeps one queued on each.
QUIET = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.scheduler.work-stealing": False,
}


#: Dask settings of a local cluster without a dashboard: no HTTP routes. Dask starts an HTTP
#: server in the scheduler and in every worker whatever its settings (``start_http_server``
#: is called unconditionally), which :func:`local_cluster` and :func:`stop_worker_http` stop
#: once the cluster is up; with no routes, nothing is served in the moment before (every path
#: answers 404 but Tornado's own ``/sitemap.json``, which lists only itself).
NO_ROUTES = {"distributed.scheduler.http.routes": [], "distributed.worker.http.routes": []}


#: The module every local worker preloads: its :func:`dask_setup` runs as the worker starts.
PRELOAD = "oddslab.analysis.dask_run"


def cluster_settings(dashboard: bool) -> dict[str, Any]:
    """The Dask settings a local cluster is made with: Dask's own with a dashboard, else
    :data:`QUIET` and :data:`NO_ROUTES`; either way the workers preload :data:`PRELOAD`
    (after any preloads of the user's Dask settings)."""
    import dask

    preload = [*dask.config.get("distributed.worker.preload", default=[]), PRELOAD]
    quiet = {} if dashboard else {**QUIET, **NO_ROUTES}
    return {**quiet, "distributed.worker.preload": preload}


def dask_setup(worker: Any) -> None:
    """Run by Dask in each worker of a local cluster as it starts (a preload): ignore SIGINT.

    Ctrl-C at a terminal reaches every process of the group; the client then stops the
    study, keeps its finished cells and closes the cluster. A worker that took the signal
    itself died with a traceback of its own (two per worker) under the client's message."""
    import signal
    import threading

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.SIG_IGN)


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
    with dask.config.set(cluster_settings(dashboard)):
        cluster = distributed.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=DASHBOARD if dashboard else "127.0.0.1:0",
            env=env,
            silence_logs=50,  # logging.CRITICAL: no worker heartbeat noise at shutdown
            # no dashboard pages (nor Dask's "install bokeh" page) on the short-lived server
            scheduler_kwargs=None if dashboard else {"dashboard": False},
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


def worker_address() -> str | None:
    """The address of the Dask worker running this task, or None outside one."""
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return None


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
    in; packed out, the address of the worker that ran them, their results and the worker's
    time for them); ``count`` is how many cells ``pending`` holds (default ``len(pending)``;
    an estimate is enough: it decides the pilot and the batches' balance). ``pending`` is read as tasks are sent, so
    the cells of a big study are made as they go and never held all at once. With a
    ``scheduler`` that the process's default client is connected to, the study uses that
    client (:func:`current_client`) and leaves it open; else it makes its own and closes it.
    Returns what was done: ``{"batch": cells per task after the pilot, "tasks": n,
    "cell_seconds": measured cost of a cell or None}``.
    """
    dist = _import_distributed()
    if task is None:
        raise TypeError("run_dask needs the task that runs one batch (distributed.run_packed)")
    cluster = local_cluster(workers, dashboard) if workers is not None else None
    client = None
    own = True  # a client this study made (and closes), not the process's own
    info: dict[str, Any] = {"batch": batch, "tasks": 0, "cell_seconds": None}
    try:
        try:
            if cluster is None and (client := current_client(scheduler)) is not None:
                own = False
            elif cluster is None and scheduler is not None and Path(scheduler).is_file():
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
        threads = client.nthreads()
        if not threads:  # restricted tasks need a worker to name
            try:
                client.wait_for_workers(1, timeout=connect_timeout)
            except (OSError, TimeoutError) as exc:
                raise OSError(
                    f"the Dask scheduler at {scheduler or 'the local cluster'} has no workers "
                    f"(waited {connect_timeout:g} s: {exc})"
                ) from None
        todo = count if count is not None else len(pending)  # type: ignore[arg-type]
        plan = Dispatch(todo, threads or client.nthreads(), batch)
        info["batch"] = plan.batch
        queue = iter(pending)
        exhausted = False
        n = 0
        token = uuid.uuid4().hex[:16]
        checked = time.monotonic()

        def fill() -> None:
            nonlocal n, exhausted
            for where in plan.room():
                if exhausted:
                    return
                k = plan.size(where, time.monotonic())
                if k == 0:  # that worker holds its part of the rest: the others take it
                    continue
                group = list(itertools.islice(queue, k))
                exhausted = len(group) < k
                if not group:
                    return
                n += 1
                key = f"oddslab-cells-{token}-{n}"  # unique on a scheduler shared by studies
                running.add(
                    client.submit(
                        task,
                        pack_cells(group),
                        *args,
                        key=key,
                        pure=False,
                        retries=2,  # a task that raises (e.g. out of memory) is tried again
                        workers=[where],  # queued on that worker (see dask_plan)
                        allow_other_workers=True,  # a lost worker's tasks go elsewhere
                    )
                )
                plan.sent(key, where, len(group), time.monotonic())

        running = dist.as_completed()
        try:
            fill()
            for fut in running:
                ran_on, rs, wall = unpack(fut.result())
                now = time.monotonic()
                moved = plan.finished(fut.key, ran_on, [r.elapsed for r in rs], now, wall)
                info["batch"], info["cell_seconds"] = plan.batch, plan.cell_seconds
                finish(rs)
                if moved or time.monotonic() - checked > WORKERS_SECONDS:
                    plan.workers(client.nthreads())  # workers that left or joined
                    checked = time.monotonic()
                fill()
        except BaseException:
            client.cancel(list(getattr(running, "futures", ())))
            raise
        info["tasks"] = n
        return info
    finally:
        if client is not None and own:
            client.close()
        if cluster is not None:
            cluster.close()


def current_client(scheduler: str | None) -> Any:
    """The process's default Dask client (``distributed.Client(...)`` made in a notebook, for
    one) when it is connected to ``scheduler``, else None: a study uses it as Dask's own
    computations do, rather than connecting and disconnecting a client of its own (20 ms a
    study; issue 33), and leaves it open."""
    if scheduler is None:
        return None
    try:
        from distributed import default_client

        client = default_client()
    except (ImportError, ValueError):  # no client made in this process
        return None
    if client.asynchronous or client.status != "running":
        return None
    address = getattr(client.scheduler, "address", None)
    return client if address is not None and address == scheduler else None
