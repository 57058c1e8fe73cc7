"""Progress bars over a study's cells, in a terminal and in a Jupyter notebook.

:func:`progress_bar` draws a rich progress bar (cells done of all, time elapsed and left)
where someone can see it: on an interactive stderr, or in a notebook (rich renders its live
display through IPython there). Elsewhere (a pipe, a log, a test) it draws nothing. The
studies' ``progress="auto"`` (the default of :func:`~oddslab.analysis.sweep.sweep` and
:func:`~oddslab.analysis.matchup.matchup`) uses it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["progress_bar", "in_notebook"]


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


@contextmanager
def progress_bar(what: str) -> Iterator[Callable[[int, int], None] | None]:
    """A ``progress(done, total)`` callback drawing a bar, or None where nobody sees it."""
    notebook = in_notebook()
    if not notebook and not sys.stderr.isatty():
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
        console=Console(stderr=not notebook),
        transient=not notebook,  # a notebook keeps the finished bar as the cell's record
    )
    task = bar.add_task(what, total=None)
    with bar:
        yield lambda done, total: bar.update(task, completed=done, total=total)
