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
- **The end is balanced by prediction.** The client knows what each worker holds and, from
  the time the workers report for their recent tasks, what a cell costs; so it predicts when
  each worker would be done and the common end if the rest were shared fairly. A task takes
  :data:`FILL_SHARE` of its worker's fair part of the rest (:func:`fill_batch`), and its
  worker's last task the whole of what remains of that part, once that is under twice
  :data:`TAIL_TASK_SECONDS`: the workers finish within about one small task of each other with
  fewer tasks than a share of the cells left over every task place took (8-12 tasks instead of
  16 for 200 cells of 10 ms on 2 workers: each costs a few ms of CPU).
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from collections.abc import Mapping, Sequence

__all__ = [
    "Dispatch",
    "replay",
    "plan_batch",
    "fill_batch",
    "TARGET_TASK_SECONDS",
    "BALANCE_TASKS",
    "TAIL_TASK_SECONDS",
    "FILL_SHARE",
    "RECENT_TASKS",
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
#: Tasks per thread at least when batches are planned (the predicted end balances the
#: workers, so the plan needs few).
BALANCE_TASKS = 2
#: Work of a worker's last task at most, about (s): below twice this, a worker's next task
#: takes the whole of its part of the rest. A few ms of per-task cost stays small beside it.
TAIL_TASK_SECONDS = 0.05
#: Share of a worker's fair part of the work left that its next task takes: the rest goes in
#: later tasks, sized when the estimate of a cell is fresher. Modelled on two workers
#: (``benchmarks/_schedule_sim.py``: cells of even, rising, falling and noisy cost), 0.6
#: balanced best; 1 (all at once, but the last task) left the workers apart when cells grow
#: dearer along the study.
FILL_SHARE = 0.6
#: A cell's cost is the workers' time over the cells of this many recent tasks.
RECENT_TASKS = 4
#: Cells per task at most (a lost worker re-runs at most this many per task it held).
MAX_BATCH = 2_000
#: Tasks each worker holds beyond its threads: the one it starts when a task ends.
QUEUED_PER_WORKER = 1
#: Cells per thread a study needs for the two-cell pilot tasks and planned batches; smaller
#: studies go one cell per task.
PILOT_CELLS = 16
#: A cell's cost beyond its kernel (s): its dict, validation, seed and result (until the
#: workers' times of whole tasks replace the pilot's kernel time).
CELL_FIXED_SECONDS = 0.5e-3


def plan_batch(cell_seconds: float, cells: int, workers: int) -> int:
    """Cells per task: about :data:`TARGET_TASK_SECONDS` of work, but at least
    :data:`BALANCE_TASKS` tasks per worker thread, between 1 and :data:`MAX_BATCH`.

    ``cell_seconds`` is the measured cost of one cell (s), ``cells`` how many are left and
    ``workers`` the cluster's threads."""
    by_cost = math.ceil(TARGET_TASK_SECONDS / max(cell_seconds, 1e-6))
    by_balance = max(1, cells // (BALANCE_TASKS * max(workers, 1)))
    return max(1, min(by_cost, by_balance, MAX_BATCH))


def fill_batch(fair: float, cell_seconds: float, size: int, left: int, idle: bool) -> int:
    """Cells of a worker's next task.

    ``fair`` is the work (s, on one thread) the worker should still get for every worker to
    finish together; the task takes :data:`FILL_SHARE` of it while the rest of it exceeds
    :data:`TAIL_TASK_SECONDS`, else all of it (the worker's last task), in whole cells
    (rounded: a cell dearer than twice the part is not sent). At most ``size``
    (:func:`plan_batch`) and the ``left`` cells not yet sent. A worker that already holds
    its part or more gets one cell if cells cost at most :data:`TAIL_TASK_SECONDS`, none if
    they cost more (it asks again when its next task ends; the others take the cells
    meanwhile), and always one if it is ``idle`` (holds no task)."""
    c = max(cell_seconds, 1e-9)
    whole = max(round(fair / c), 0)  # all of its part, in whole cells
    n = whole
    if fair * (1 - FILL_SHARE) > TAIL_TASK_SECONDS:  # a share now, the rest later
        n = max(round(fair * FILL_SHARE / c), min(whole, 1))
    # a cell of a few ms more beats the worker waiting a round trip for its next task
    least = 1 if idle or c <= TAIL_TASK_SECONDS else 0
    return max(least, min(n, size, left))


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
    tells :meth:`sent`, and on each finished task :meth:`finished`, each with the time
    (``now``, s, any monotonic clock); :meth:`workers` updates the cluster (new workers get
    tasks, vanished ones none).
    """

    def __init__(self, todo: int, threads: Mapping[str, int], batch: int | None = None):
        self.left = todo
        self.fixed = batch
        self.places: dict[str, int] = {}
        #: task key -> (the worker it was sent to, its cells, when it was sent)
        self.tasks: dict[str, tuple[str, int, float]] = {}
        self.held: dict[str, list[str]] = {}  # worker -> keys of its tasks, in sent order
        self.back: dict[str, float] = {}  # worker -> when its last result came back
        self.pilots: set[str] = set()  # keys of the two-cell pilot tasks
        #: (workers' seconds, cells) of the recent finished tasks after the pilot
        self.recent: deque[tuple[float, int]] = deque(maxlen=RECENT_TASKS)
        self.workers(threads)
        self.pilot = batch is None and todo >= PILOT_CELLS * self.threads
        #: cells per task after the pilot (None until the first pilot task is back)
        self.batch: int | None = batch if batch is not None or self.pilot else 1
        #: the measured cost of a cell (s): a pilot's kernel time, then the workers' time
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
        """The workers to send a task to now, one entry per task, taking the workers in
        turn (a worker's second place after every worker's first)."""
        free = {a: n - len(self.held.get(a, ())) for a, n in self.places.items()}
        return [a for i in range(max(free.values(), default=0)) for a in free if free[a] > i]

    def size(self, where: str | None = None, now: float | None = None) -> int:
        """Cells of the next task, for worker ``where`` at time ``now`` (both needed once
        the pilot is back, unless the batch is fixed); 0: none for that worker now."""
        if self.batch is None:
            return 2  # a pilot task: its second cell is timed with the kernels loaded
        if self.fixed is not None or self.cell_seconds is None:
            return self.batch
        c = self.cell_seconds
        # cells that grow dearer along the study (a sweep over model counts) keep their tasks
        # near TARGET_TASK_SECONDS
        size = min(self.batch, math.ceil(TARGET_TASK_SECONDS / c))
        if where is None or now is None or where not in self.places:
            return max(1, min(size, self.left))
        idle = not self.held.get(where)
        return fill_batch(self.fair(where, now), c, size, self.left, idle)

    def busy(self, worker: str, now: float) -> float:
        """Work the tasks held by ``worker`` still need (s, on one of its threads), predicted
        from the cost of a cell: its running tasks started when its last result came back
        (or when they were sent, if it was idle)."""
        keys = self.held.get(worker)
        if not keys or self.cell_seconds is None:
            return 0.0
        threads = max(1, self.places.get(worker, 1) - QUEUED_PER_WORKER)
        since = max(self.back.get(worker, -math.inf), self.tasks[keys[0]][2])
        work = sum(self.tasks[k][1] for k in keys) * self.cell_seconds
        queued = sum(self.tasks[k][1] for k in keys[threads:]) * self.cell_seconds
        return max(work - threads * max(now - since, 0.0), queued) / threads

    def fair(self, worker: str, now: float) -> float:
        """Work (s, on one thread) ``worker`` should still get so that every worker ends
        together, if the cells not yet sent cost what a cell has cost lately."""
        threads = {a: max(1, n - QUEUED_PER_WORKER) for a, n in self.places.items()}
        busy = {a: self.busy(a, now) for a in threads}
        total = sum(threads[a] * busy[a] for a in threads) + self.left * (self.cell_seconds or 0)
        return total / sum(threads.values()) - busy[worker]

    def sent(self, key: str, where: str, cells: int, now: float = 0.0) -> None:
        """A task of ``cells`` cells went to worker ``where`` at time ``now``."""
        self.tasks[key] = (where, cells, now)
        self.held.setdefault(where, []).append(key)
        if self.batch is None:
            self.pilots.add(key)
        self.left -= cells

    def finished(
        self,
        key: str,
        ran_on: str | None,
        seconds: Sequence[float],
        now: float = 0.0,
        wall: float | None = None,
    ) -> bool:
        """Task ``key`` finished on worker ``ran_on``, its result back at time ``now``;
        ``seconds`` are its cells' kernel times and ``wall`` the worker's time for the whole
        task (s).

        The first pilot task's last cell (its first one may have loaded the kernels) gives
        the cost of a cell that sizes the batches; after the pilot, the workers' time over
        the cells of the :data:`RECENT_TASKS` latest tasks keeps it current. True when the
        task ran elsewhere than it was sent (its worker is likely gone: refresh
        :meth:`workers`).
        """
        to, cells, _ = self.tasks.pop(key)
        self.held[to].remove(key)
        self.back[to] = now
        if key in self.pilots:  # a worker's first cell may have loaded its kernels
            self.pilots.discard(key)
            seconds = seconds[-1:]
            wall = None
        if wall is not None and cells:
            self.recent.append((wall, cells))
            self.cell_seconds = sum(w for w, _ in self.recent) / sum(n for _, n in self.recent)
        elif seconds and not self.recent:
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
    costing ``task_s`` seconds beyond its cells (which the worker does not report: it times
    only its cells, as :func:`~oddslab.analysis.distributed.run_packed` does); a task reaches
    its worker ``latency`` seconds after the result that freed its place came back (a Dask
    round trip).

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
            k = plan.size(where, now)
            if k == 0:  # that worker holds its part: the others take the cells
                continue
            group = list(range(at, min(at + k, len(costs))))
            if not group:
                return
            at, n = at + len(group), n + 1
            plan.sent(f"t{n}", where, len(group), now)
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
        took = [costs[i] for i in group]
        plan.finished(key, where, took, now, sum(took))
        fill(now)
        for a in threads:
            start(a)
    return ends, idle, sent
