"""A study stopped by Ctrl-C keeps the cells that finished (issue 33).

:func:`~oddslab.analysis.distributed.run_cells` turns a ``KeyboardInterrupt`` into a
:class:`StudyInterrupted` (still a ``KeyboardInterrupt``, so code that catches that works as
before) that carries the finished cells: in memory for a small study, in the study's store
for a big one (the ``store`` given, or the temporary store, kept alive by the exception).
:meth:`StudyInterrupted.save` writes them into a store file that ``--resume`` (or
``resume=True``) finishes; the command line does that in the current folder when no
``--store`` was given (:func:`keep_finished`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from oddslab.analysis.cells import CellResult

__all__ = ["StudyInterrupted", "keep_finished", "default_store"]


class StudyInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a study; the cells that had finished are kept here.

    Attributes
    ----------
    study : str
        The study hash (:func:`~oddslab.analysis.distributed.study_hash`).
    identity : dict or None
        The study's identity (kept in a store: a resumed study reuses its seed).
    results : list of CellResult
        The finished cells held in memory (a study of at most
        :data:`~oddslab.analysis.cells.KEEP_VALIDATED` cells), in cell order; empty when
        they are in ``store`` only.
    store : Path or None
        The store the finished cells were written to, if any: the ``store`` given, or a
        big study's temporary store (``temporary``; it lives as long as this exception).
    finished, total : int
        Cells finished (in ``results`` or in ``store``), cells in the study.
    """

    def __init__(self, study: str, identity: dict[str, Any] | None, results: list[CellResult],
                 store: Path | None, finished: int, total: int) -> None:  # fmt: skip
        super().__init__(f"interrupted after {finished} of {total} cells")
        self.study, self.identity, self.results = study, identity, results
        self.store, self.finished, self.total = store, finished, total
        self.temporary: Any = None  # a TemporaryDirectory holding ``store``, kept alive

    def save(self, path: str | Path) -> int:
        """Write the finished cells into the store file ``path`` (created, or one that
        already holds this study); returns how many. ``resume=True`` with that store then
        runs only the other cells and ends with exactly the uninterrupted study's results.

        Raises
        ------
        ScenarioError
            ``path`` is not a store, or holds another study (it is never altered then).
        OSError, sqlite3.Error
            The file cannot be written.
        """
        from oddslab.analysis.store import CellStore

        with CellStore(path) as db:
            if self.identity is not None:
                db.claim(self.study, self.identity)
            if self.store is not None and Path(self.store).resolve() != Path(path).resolve():
                with CellStore(self.store, create=False) as src:
                    db.copy_cells(src, self.study)
            if self.results:
                db.put_many(self.study, self.results)
            return db.count(self.study)


def default_store(command: str, study: str, folder: Path) -> Path:
    """Where an interrupted study's cells go: ``oddslab-<command>-<hash8>.sqlite`` in
    ``folder``, or ``...-2.sqlite``, ``-3``, ... when a file of that name is not this
    study's store (never altered)."""
    from oddslab._schema import ScenarioError
    from oddslab.analysis.store import CellStore

    stem = f"oddslab-{command}-{study[:8]}"
    for n in range(1, 100):
        path = folder / (f"{stem}.sqlite" if n == 1 else f"{stem}-{n}.sqlite")
        if not path.exists():
            return path
        try:
            with CellStore(path, create=False) as db:
                if db.study() == study:
                    return path
        except ScenarioError:
            pass
    raise OSError(f"{folder}: 99 files named {stem}*.sqlite are in the way")


def keep_finished(exc: StudyInterrupted, command: str, argv: list[str],
                  folder: Path | None = None) -> str:  # fmt: skip
    """Save the finished cells of a study interrupted without ``--store`` into
    :func:`default_store` in ``folder`` (default: the current one) and say, in two lines,
    how many, where, and the command that finishes the study (``argv`` with ``--store FILE
    --resume`` added). Nothing is written when no cell had finished, or when the folder
    cannot be written (the message says so)."""
    import os
    import shlex
    import sqlite3

    from oddslab._schema import ScenarioError

    if exc.finished == 0:
        return "interrupted before any cell finished: nothing to keep"
    folder = Path.cwd() if folder is None else folder
    try:
        if not folder.is_dir() or not os.access(folder, os.W_OK | os.X_OK):
            raise OSError("not a writable folder")
        path = default_store(command, exc.study, folder)
        n = exc.save(path)
    except (OSError, sqlite3.Error, ScenarioError) as err:
        return (
            f"interrupted: {exc.finished} of {exc.total} cells had finished but could not be "
            f"kept in {folder} ({err}); give --store FILE to keep a study's finished cells"
        )
    shown = path.name if path.parent.resolve() == Path.cwd().resolve() else str(path)
    again = shlex.join(["oddslab", *argv, "--store", shown, "--resume"])
    return (
        f"interrupted: {n} of {exc.total} cells had finished; they are kept in {shown}\n"
        f"finish the study with: {again}"
    )
