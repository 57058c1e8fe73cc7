"""Progress bars over a study's cells, in a terminal and in a Jupyter notebook.

:func:`progress_bar` draws a bar (cells done of all, time elapsed and left) where someone can
see it, and nothing elsewhere (a pipe, a log, a test). The studies' ``progress="auto"`` (the
default of :func:`~oddslab.analysis.sweep.sweep` and :func:`~oddslab.analysis.matchup.matchup`)
uses it.

- On an interactive stderr: rich's live bar, gone when the study ends (the table follows).
- In a notebook: one text output updated in place (an IPython display with a display id, no
  widgets needed), which ends as a record of the run, ``study: 40/40 cells in 2.1 s``. A
  notebook run by nbclient or nbconvert saves that last update, so the saved notebook shows
  the record (rich's live display in a notebook is an ``ipywidgets.Output`` whose contents a
  saved notebook loses: it kept ``Output()`` and an empty ``<pre>``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["progress_bar", "in_notebook", "notebook_line"]

#: Least time between two updates of a notebook's bar (seconds): each is a message to the
#: front end.
NOTEBOOK_EVERY = 0.2


def in_notebook() -> bool:
    """True inside a Jupyter kernel (an IPython ZMQ shell)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    try:
        shell = ipython.get_ipython()
    except Exception:  # an IPython too old or too odd to ask: no notebook bar
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


def notebook_line(what: str, done: int, total: int | None, elapsed: float, end: bool) -> str:
    """The notebook's bar as one line of text; at the ``end``, the run's record."""
    of = f"{done:,}/{total:,} cells" if total is not None else f"{done:,} cells"
    if end:
        stopped = "" if total is None or done >= total else " (stopped)"
        return f"{what}: {of} in {elapsed:.1f} s{stopped}"
    width = 30
    filled = width * done // total if total else 0
    left = ""
    if total and 0 < done < total:
        left = f", about {_clock(elapsed / done * (total - done))} left"
    bar = "█" * filled + "░" * (width - filled)
    return f"{what} {bar} {of}, {_clock(elapsed)} elapsed{left}"


@contextmanager
def _notebook_bar(what: str) -> Iterator[Callable[[int, int], None]]:
    from IPython.display import display

    start = time.perf_counter()
    state: dict[str, Any] = {"done": 0, "total": None, "shown": 0.0}

    def text(end: bool = False) -> dict[str, str]:
        elapsed = time.perf_counter() - start
        return {"text/plain": notebook_line(what, state["done"], state["total"], elapsed, end)}

    handle = display(text(), raw=True, display_id=True)

    def update(done: int, total: int) -> None:
        state["done"], state["total"] = done, total
        now = time.perf_counter()
        if now - state["shown"] >= NOTEBOOK_EVERY or done == total:
            state["shown"] = now
            handle.update(text(), raw=True)

    try:
        yield update
    finally:  # the record, also of a study that stopped (Ctrl-C, an error)
        handle.update(text(end=True), raw=True)


@contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing a bar, or None where nobody sees it."""
    if in_notebook():
        with _notebook_bar(what) as update:
            yield update
        return
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(
        TextColumn(what),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("cells"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=True,
    )
    task = bar.add_task(what, total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)
