"""How a study's cells are cut into Dask tasks and which worker gets each: pure bookkeeping,
no Dask here (:func:`oddslab.analysis.dask_run.run_dask` does the sending), so the plan is
tested and modelled without a cluster (``benchmarks/_schedule_sim.py``).

- **Batches.** A Dask task costs a few milliseconds of CPU whatever it holds (measured on 2
  shared cores: 3-6 ms in the client's process, scheduler and comms together, and 2-7 ms in
  the worker; issue 33). Unless a batch size is given, the first tasks carry two cells each;
  the kernel time of the second cell of the first to finish gives the cost of a cell
  (:meth:`Dispatch.finished`), and the rest go in batches of about
  :data:`TARGET_TASK_SECONDS` of work, never fewer than :data:`BALANCE_TASKS` tasks per
  thread (:func:`plan_batch`).
- **Each worker keeps one task queued.** A worker gets as many tasks as it has threads plus
  one (:data:`QUEUED_PER_WORKER`), each sent to that worker (a Dask worker restriction that
  a lost worker's tasks may leave): when a task ends, the worker starts its queued one at
  once, and the client sends its next one to the worker that just finished. Left to Dask's
  scheduler queue instead, a worker waited for a scheduler round trip between tasks (about
  3.7 ms, 0.07 s a worker over a 200-cell study of 10⁶ trials).
- **The end is balanced.** A queued task is chosen one task ahead, so the last tasks shrink
  early (:func:`tail_batch`): each takes at most the cells not yet sent shared over every
  task place in the cluster, down to :data:`TAIL_TASK_SECONDS` of work, and the workers
  finish within about one small task of each other.
"""

from __future__ import annotations

import heapq
import math
from collections import Counter
from collections.abc import Mapping, Sequence

__all__ = [
    "Dispatch",
    "replay",
    "plan_batch",
    "tail_batch",
    "TARGET_TASK_SECONDS",
    "BALANCE_TASKS",
    "TAIL_TASK_SECONDS",
    "MAX_BATCH",
    "QUEUED_PER_WORKER",
    "PILOT_CELLS",
    "CELL_FIXED_SECONDS",
]

#: Work per Dask task the batches aim at (s). With a task queued on every worker the tasks
#: cost no idle time between them, only their few ms of CPU, so fewer, bigger tasks pay: on 2
#: cores, 200 cells of 10⁶ trials on one warm 2-worker cluster measured 0.948-0.959 per
#: worker at 0.5 s and 0.959-0.968 at 1 s (three studies each; issue 33).
TARGET_TASK_SECONDS = 1.0
#: Tasks per thread at least when batches are planned (the shrinking last tasks balance the
#: end, so the plan needs few).
BALANCE_TASKS = 2
#: Work of the smallest task at the end of a study (s): a few ms of per-task cost stays small.
TAIL_TASK_SECONDS = 0.05
#: Cells per task at most (a lost worker re-runs at most this many per task it held).
MAX_BATCH = 2_000
#: Tasks each worker holds beyond its threads: the one it starts when a task ends.
QUEUED_PER_WORKER = 1
#: Cells per thread a study needs for the two-cell pilot tasks and planned batches; smaller
#: studies go one cell per task.
PILOT_CELLS = 16
#: A cell's cost beyond its kernel (s): its dict, validation, seed and result.
CELL_FIXED_SECONDS = 0.5e-3


def plan_batch(cell_seconds: float, cells: int, workers: int) -> int:
    """Cells per task: about :data:`TARGET_TASK_SECONDS` of work, but at least
    :data:`BALANCE_TASKS` tasks per worker thread, between 1 and :data:`MAX_BATCH`.

    ``cell_seconds`` is the measured cost of one cell (s), ``cells`` how many are left and
    ``workers`` the cluster's threads."""
    by_cost = math.ceil(TARGET_TASK_SECONDS / max(cell_seconds, 1e-6))
    by_balance = max(1, cells // (BALANCE_TASKS * max(workers, 1)))
    return max(1, min(by_cost, by_balance, MAX_BATCH))


def tail_batch(size: int, left: int, places: int, cell_seconds: float) -> int:
    """Cells of the next task: ``size`` (:func:`plan_batch`) while there is work for it, then
    the ``left`` cells not yet sent shared over the cluster's ``places`` (tasks it holds at
    once: threads plus queued ones), but at least :data:`TAIL_TASK_SECONDS` of work."""
    share = math.ceil(max(left, 0) / max(places, 1))
    floor = math.ceil(TAIL_TASK_SECONDS / max(cell_seconds, 1e-6))
    return max(1, min(size, max(share, floor)))


class Dispatch:
    """The plan of one study's tasks: which worker gets the next task and how many cells.

    Parameters
    ----------
    todo : int
        Cells the study has to run (an estimate is enough: it decides the pilot and the
        balance of the batches).
    threads : mapping of str to int
        The cluster's workers (address: threads), as ``Client.nthreads()`` gives them.
    batch : int, optional
        Cells per task, fixed; None (default) sizes them from a measured cell.

    The caller sends a task of :meth:`size` cells to each address :meth:`room` lists,
    tells :meth:`sent`, and on each finished task :meth:`finished`; :meth:`workers` updates
    the cluster (new workers get tasks, vanished ones none).
    """

    def __init__(self, todo: int, threads: Mapping[str, int], batch: int | None = None):
        self.left = todo
        self.fixed = batch
        self.places: dict[str, int] = {}
        self.where: dict[str, str] = {}  # task key -> the worker it was sent to
        self.pilots: set[str] = set()  # keys of the two-cell pilot tasks
        self.workers(threads)
        self.pilot = batch is None and todo >= PILOT_CELLS * self.threads
        #: cells per task after the pilot (None until the first pilot task is back)
        self.batch: int | None = batch if batch is not None or self.pilot else 1
        #: the measured cost of a cell (s), from the first pilot task
        self.cell_seconds: float | None = None

    @property
    def threads(self) -> int:
        """Threads in the cluster (at least 1)."""
        return max(1, sum(self.places.values()) - QUEUED_PER_WORKER * len(self.places))

    def workers(self, threads: Mapping[str, int]) -> None:
        """The cluster's workers now: new ones get places, vanished ones lose theirs (Dask
        re-runs the tasks they held elsewhere)."""
        for addr in [a for a in self.places if a not in threads]:
            del self.places[addr]
        for addr, n in threads.items():
            if addr not in self.places:
                self.places[addr] = max(1, int(n)) + QUEUED_PER_WORKER

    def room(self) -> list[str]:
        """The workers to send a task to now, one entry per task."""
        held = Counter(self.where.values())  # tasks sent to each worker and not finished
        return [a for a, n in self.places.items() for _ in range(n - held[a])]

    def size(self) -> int:
        """Cells of the next task."""
        if self.batch is None:
            return 2  # a pilot task: its second cell is timed with the kernels loaded
        if self.fixed is None and self.cell_seconds is not None:
            # cells that grow dearer along the study (a sweep over model counts) keep their
            # tasks near TARGET_TASK_SECONDS, and the end's floor in seconds
            by_cost = math.ceil(TARGET_TASK_SECONDS / self.cell_seconds)
            places = sum(self.places.values())
            return tail_batch(min(self.batch, by_cost), self.left, places, self.cell_seconds)
        return self.batch

    def sent(self, key: str, where: str, cells: int) -> None:
        """A task of ``cells`` cells went to worker ``where``."""
        self.where[key] = where
        if self.batch is None:
            self.pilots.add(key)
        self.left -= cells

    def finished(self, key: str, ran_on: str | None, seconds: Sequence[float]) -> bool:
        """Task ``key`` finished on worker ``ran_on``; ``seconds`` are its cells' kernel times.

        The cost of a cell is measured on every task: the first pilot task's last cell (its
        first one may have loaded the kernels) sizes the batches, and each later task's mean
        keeps the estimate current. True when the task ran elsewhere than it was sent (its
        worker is likely gone: refresh :meth:`workers`).
        """
        to = self.where.pop(key)
        if key in self.pilots:  # a worker's first cell may have loaded its kernels
            self.pilots.discard(key)
            seconds = seconds[-1:]
        if seconds:
            self.cell_seconds = sum(seconds) / len(seconds) + CELL_FIXED_SECONDS
        if self.batch is None:
            self.batch = plan_batch(self.cell_seconds or 1.0, max(self.left, 1), self.threads)
        return ran_on is not None and ran_on != to


def replay(
    costs: Sequence[float],
    workers: int = 2,
    task_s: float = 0.004,
    latency: float = 0.005,
    batch: int | None = None,
) -> tuple[dict[str, float], dict[str, float], list[int]]:
    """A model of a study on Dask, without a cluster (for tests and
    ``benchmarks/_schedule_sim.py``).

    ``costs`` (seconds per cell, in the study's order) go through :class:`Dispatch` as
    :func:`~oddslab.analysis.dask_run.run_dask` sends them, to ``workers`` model workers
    with one thread each. A worker runs the tasks sent to it first in, first out, each
    costing ``task_s`` seconds beyond its cells; a task reaches its worker ``latency`` seconds
    after the result that freed its place came back (a Dask round trip).

    Returns
    -------
    ends : dict of str to float
        Each worker's last end (s).
    idle : dict of str to float
        Each worker's time spent waiting for a task between its first start and its last
        end (s).
    sent : list of int
        The cells' indices in the order they were sent.
    """
    threads = {f"w{i}": 1 for i in range(workers)}
    plan = Dispatch(len(costs), threads, batch)
    at, n = 0, 0
    sent: list[int] = []
    inbox: dict[str, list[tuple[float, str, list[int]]]] = {a: [] for a in threads}
    busy = dict.fromkeys(threads, False)
    ends = dict.fromkeys(threads, 0.0)
    idle = dict.fromkeys(threads, 0.0)
    started = dict.fromkeys(threads, False)
    events: list[tuple[float, str, str, list[int]]] = []

    def fill(now: float) -> None:
        nonlocal at, n
        for where in plan.room():
            group = list(range(at, min(at + plan.size(), len(costs))))
            if not group:
                return
            at, n = at + len(group), n + 1
            plan.sent(f"t{n}", where, len(group))
            sent.extend(group)
            inbox[where].append((now + latency, f"t{n}", group))

    def start(where: str) -> None:
        if busy[where] or not inbox[where]:
            return
        arrives, key, group = inbox[where].pop(0)
        begin = max(arrives, ends[where])
        if started[where]:
            idle[where] += begin - ends[where]
        started[where] = busy[where] = True
        end = begin + sum(costs[i] for i in group) + task_s
        heapq.heappush(events, (end, where, key, group))

    fill(0.0)
    for a in threads:
        start(a)
    while events:
        now, where, key, group = heapq.heappop(events)
        busy[where], ends[where] = False, now
        plan.finished(key, where, [costs[i] for i in group])
        fill(now)
        for a in threads:
            start(a)
    return ends, idle, sent
