"""Jobs: every run the server does, on a thread of its own, with progress and Cancel.

The kernels release the GIL (they are ``nogil``, see :mod:`oddslab._kernels.chunks`), so a
job on a thread never freezes the event loop that answers other requests. A job reports
progress through the engine's ``progress`` callback; Cancel and the wall-time limit are
checked there too (after every batch of chunks, or every cell of a study) and stop the run by
raising :class:`Stopped`. Finished jobs are kept (the newest :data:`KEEP`) for their result.
"""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Job", "JobManager", "Busy", "Stopped", "KEEP"]

#: Finished jobs kept for their results.
KEEP = 64


class Busy(RuntimeError):
    """As many jobs are running as the server allows (HTTP 429)."""


class Stopped(Exception):
    """Raised inside a job's progress callback: Cancel, or the wall-time limit."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class Job:
    """One run: its state, progress and result (the response body, as text)."""

    id: str
    kind: str
    state: str = "queued"  # queued | running | done | error | cancelled | timeout
    done: int = 0
    total: int | None = None
    unit: str = "trials"
    message: str = ""
    result: str | None = None
    csv: Callable[[], str] | None = field(default=None, repr=False)
    error: dict[str, Any] | None = None
    status: int = 200
    started: float = field(default_factory=time.monotonic)
    finished: float | None = None
    cancel_requested: bool = False
    future: Future = field(default_factory=Future, repr=False)

    def info(self) -> dict[str, Any]:
        """What ``GET /api/jobs/{id}`` returns (without the result)."""
        fraction = None
        if self.total:
            fraction = min(1.0, self.done / self.total)
        if self.state == "done":
            fraction = 1.0
        end = self.finished if self.finished is not None else time.monotonic()
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "done": self.done,
            "total": self.total,
            "unit": self.unit,
            "fraction": fraction,
            "seconds": round(end - self.started, 3),
            "message": self.message,
            "error": self.error,
        }


class JobManager:
    """Runs jobs on threads, at most ``max_jobs`` at once, each for at most ``max_seconds``."""

    def __init__(self, max_jobs: int, max_seconds: float):
        self.max_jobs = max_jobs
        self.max_seconds = max_seconds
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._running = 0
        self._ids = itertools.count(1)

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    @property
    def running(self) -> int:
        return self._running

    def submit(self, kind: str, work: Callable[[Callable[[int, int | None], None]], Any]) -> Job:
        """Start ``work(progress)`` on a new thread; it returns ``(status, body_text)`` (and
        optionally a function giving the result as CSV) or raises (a :class:`~oddslab.web.scenarios.BadInput`, :class:`Stopped`...).

        Raises
        ------
        Busy
            When ``max_jobs`` jobs are running.
        """
        with self._lock:
            if self._running >= self.max_jobs:
                raise Busy(
                    f"{self._running} jobs are running, the most this server runs at once; "
                    "try again when one has finished"
                )
            self._running += 1
            job = Job(id=f"{next(self._ids)}-{secrets.token_hex(6)}", kind=kind)
            self._jobs[job.id] = job
            while len(self._jobs) > KEEP + self.max_jobs:
                old_id, old = next(iter(self._jobs.items()))
                if old.finished is None:
                    break
                del self._jobs[old_id]
        thread = threading.Thread(
            target=self._run, args=(job, work), name=f"oddslab-job-{job.id}", daemon=True
        )
        thread.start()
        return job

    def cancel(self, job: Job) -> None:
        job.cancel_requested = True

    def _progress(self, job: Job) -> Callable[[int, int | None], None]:
        deadline = job.started + self.max_seconds

        def progress(done: int, total: int | None) -> None:
            job.done, job.total = int(done), total
            if job.cancel_requested:
                raise Stopped("cancelled")
            if time.monotonic() > deadline:
                raise Stopped("timeout")

        return progress

    def _run(self, job: Job, work) -> None:
        from oddslab.web.scenarios import BadInput

        job.state = "running"
        try:
            status, body, *csv = work(self._progress(job))
            job.csv = csv[0] if csv else None
            job.status, job.result, job.state = status, body, "done"
        except Stopped as stop:
            if stop.reason == "cancelled":
                job.state, job.status = "cancelled", 409
                job.error = {"error": "the job was cancelled"}
            else:
                job.state, job.status = "timeout", 408
                job.error = {
                    "error": f"the job ran past this server's limit of {self.max_seconds:g} s "
                    "and was stopped; ask for fewer trials or a coarser precision"
                }
        except BadInput as exc:
            job.state, job.status, job.error = "error", exc.status, exc.body()
        except (ValueError, NotImplementedError, KeyError, TypeError) as exc:
            msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
            job.state, job.status, job.error = "error", 400, {"error": str(msg)}
        except Exception as exc:  # noqa: BLE001 - a bug, not the client's: say so, keep serving
            job.state, job.status = "error", 500
            job.error = {"error": f"internal error ({type(exc).__name__}); please report it"}
        finally:
            job.finished = time.monotonic()
            with self._lock:
                self._running -= 1
            job.future.set_result(job)
