"""A big study's cells and results without holding them: cells made from the grids when read,
results read from the store in cell order, a chunk at a time.

A sweep of more than :data:`~oddslab.analysis.cells.KEEP_VALIDATED` cells keeps neither its
cells nor its results in memory (issue 33: a 10⁶-cell study): :class:`SweepCells` rebuilds
cell ``i`` from the varied values (first key slowest), and :class:`StoredResults` reads the
finished cells from the study's store (the ``--store`` file, or a temporary one that lives as
long as the result). Both are sequences, so ``len(res.cells)``, ``res.results[i]`` and
``zip(res.cells, res.results)`` work as for a small study.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from oddslab.analysis.cells import Cell, CellResult, canonical, cell_seed
from oddslab.analysis.paths import with_paths

__all__ = ["SweepCells", "StoredResults", "run_streamed"]


class SweepCells(Sequence):
    """The cells of a sweep (every combination of ``grids``), made when read.

    Parameters
    ----------
    raw : dict
        The base scenario as written (library uses not yet expanded).
    keys : list of str
        The canonical varied paths.
    grids : list of list
        Each key's values, in order.
    seed : int
        The study's seed (each cell's is :func:`cell_seed` of it and the cell's values).
    source : str
        The scenario's name in messages.
    base : Path
        The folder relative library paths are read from.
    """

    def __init__(self, raw: dict[str, Any], keys: list[str], grids: list[list[Any]], seed: int,
                 source: str, base: Path) -> None:  # fmt: skip
        self.raw, self.keys, self.grids = raw, list(keys), [list(g) for g in grids]
        self.seed, self.source, self.base = int(seed), source, base
        self._n = math.prod(len(g) for g in self.grids)

    def __len__(self) -> int:
        return self._n

    def values(self, i: int) -> dict[str, Any]:
        """The values of cell ``i`` (mixed-radix: the last key changes fastest)."""
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(f"cell {i} of {self._n}")
        out = []
        for g in reversed(self.grids):
            i, r = divmod(i, len(g))
            out.append(g[r])
        return dict(zip(self.keys, reversed(out), strict=True))

    def iter_values(self) -> Iterator[dict[str, Any]]:
        """Every cell's values, in cell order."""
        for combo in itertools.product(*self.grids):
            yield dict(zip(self.keys, combo, strict=True))

    def cell(self, values: dict[str, Any]) -> Cell:
        """The cell of these values (its scenario is built when it runs)."""
        where = f"{self.source} [{', '.join(f'{k}={v!r}' for k, v in values.items())}]"
        build = functools.partial(with_paths, self.raw, values, where, self.base)
        return Cell(values, build, cell_seed(self.seed, values), where)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(self._n))]
        return self.cell(self.values(i))

    def __iter__(self) -> Iterator[Cell]:
        for values in self.iter_values():
            yield self.cell(values)


class StoredResults(Sequence):
    """A finished study's results, read from its store in cell order.

    Parameters
    ----------
    path : Path
        The store file.
    study : str
        The study hash (the rows' first key).
    cells : SweepCells or MatchupCells
        The study's cells (their values give the rows' second key and the order): any
        sequence with ``values(i)`` and ``iter_values()``.
    keep : object, optional
        Kept alive as long as this object (a temporary folder holding the store).
    """

    def __init__(self, path: Path, study: str, cells: SweepCells, keep: Any = None) -> None:
        self.path, self.study, self.cells, self._keep = Path(path), study, cells, keep

    def __len__(self) -> int:
        return len(self.cells)

    def rows(self, chunk: int = 500) -> Iterator[tuple[dict[str, Any], str]]:
        """(cell values, result JSON) of every cell in cell order, ``chunk`` cells per query."""
        from oddslab.analysis.store import CellStore

        with CellStore(self.path, create=False) as db:
            it = self.cells.iter_values()
            while True:
                part = list(itertools.islice(it, chunk))
                if not part:
                    return
                keys = [canonical(v) for v in part]
                found = db.rows(self.study, keys)
                for values, key in zip(part, keys, strict=True):
                    if key not in found:
                        raise KeyError(f"{self.path}: no finished cell {key} in the store")
                    yield values, found[key]

    def take(self, index: Sequence[int]) -> list[str]:
        """The result JSON of the cells at ``index`` (positions in cell order), in that
        order: read by key, :data:`~oddslab.analysis.store.READ_CHUNK` keys per query."""
        from oddslab.analysis.store import CellStore

        keys = [canonical(self.cells.values(int(i))) for i in index]
        with CellStore(self.path, create=False) as db:
            found = db.rows(self.study, keys)
        missing = next((k for k in keys if k not in found), None)
        if missing is not None:
            raise KeyError(f"{self.path}: no finished cell {missing} in the store")
        return [found[k] for k in keys]

    def __iter__(self) -> Iterator[CellResult]:
        for _, text in self.rows():
            yield CellResult.from_json(text)

    def __getitem__(self, i: Any) -> Any:
        from oddslab.analysis.store import CellStore

        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        key = canonical(self.cells.values(i))
        with CellStore(self.path, create=False) as db:
            found = db.rows(self.study, [key])
        if key not in found:
            raise KeyError(f"{self.path}: no finished cell {key} in the store")
        return CellResult.from_json(found[key])


def run_streamed(
    kind: str, definition: dict[str, Any], cells: Sequence[Cell], store: Any,
    study: dict[str, Any], run: dict[str, Any],
) -> StoredResults:  # fmt: skip
    """Run a big study's cells with nothing kept in memory: each finished cell goes to
    ``store`` (a temporary one, living as long as the results, when None), read back as
    :class:`StoredResults`.

    ``study`` are :func:`~oddslab.analysis.distributed.run_study`'s study options (keys,
    seed, trials, precision, metric, exact, events), ``run`` its running options (resume,
    workers, scheduler, progress, batch, dashboard).
    """
    from oddslab.analysis.distributed import run_study, study_hash, study_identity
    from oddslab.analysis.store import CellStore

    tmp = None
    if store is None:
        import tempfile

        tmp = tempfile.TemporaryDirectory(prefix=f"oddslab-{kind}-")
        store = Path(tmp.name) / "study.sqlite"
    try:
        run_study(kind, definition, cells, store=store, keep=False, **study, **run)
    except KeyboardInterrupt as exc:  # its finished cells are in the temporary store: keep it
        if tmp is not None and hasattr(exc, "temporary"):
            exc.temporary = tmp
        raise
    ident = study_identity(kind, definition, **study)
    path = store.path if isinstance(store, CellStore) else Path(store)
    return StoredResults(path, study_hash(ident), cells, keep=tmp)
