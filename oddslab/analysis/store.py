"""A store of finished cells: SQLite, one row per cell, committed as each cell finishes.

Rows are keyed by (study hash, cell key). The study hash covers what every cell of a study
shares (the base scenario or template, trials, seed, precision); the cell key is the canonical
JSON of the cell's values. Each row also keeps the digest of the cell's full scenario, so a
resumed study re-runs a cell whose scenario changed (an edited library entry, say) instead of
trusting a stale row.

SQLite was chosen over Parquet for the live store because each row is its own committed
transaction (WAL journal): a process killed with ``kill -9`` loses at most the cells it had
not yet written, and the file is never left half-written. Finished tables export to CSV or
Parquet (:meth:`oddslab.analysis.sweep.SweepResult.to_parquet`).
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

from oddslab._schema import ScenarioError
from oddslab.analysis.cells import CellResult

__all__ = ["CellStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cells (
    study TEXT NOT NULL,
    cell TEXT NOT NULL,
    scenario_hash TEXT NOT NULL,
    result TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (study, cell)
)
"""


class CellStore:
    """Finished cells of one or more studies in an SQLite file.

    Parameters
    ----------
    path : str or Path
        The store file (created if missing; ``.sqlite`` / ``.db`` by convention).
    """

    def __init__(self, path: str | Path):
        self.path = Path(path)
        try:
            self._db = sqlite3.connect(str(self.path), timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute(_SCHEMA)
            self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise ScenarioError(str(self.path), "", f"not a usable results store ({exc})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> CellStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def count(self, study: str) -> int:
        """Number of finished cells of ``study``."""
        (n,) = self._db.execute("SELECT COUNT(*) FROM cells WHERE study = ?", (study,)).fetchone()
        return int(n)

    def finished(self, study: str) -> dict[str, CellResult]:
        """Every finished cell of ``study``: cell key → result."""
        rows = self._db.execute("SELECT cell, result FROM cells WHERE study = ?", (study,))
        return {cell: CellResult.from_json(text) for cell, text in rows}

    def put(self, study: str, result: CellResult) -> None:
        """Write one finished cell (committed before returning)."""
        self._db.execute(
            "INSERT OR REPLACE INTO cells (study, cell, scenario_hash, result, finished) "
            "VALUES (?, ?, ?, ?, ?)",
            (study, result.key, result.scenario_hash, result.to_json(), time.time()),
        )
        self._db.commit()

    def clear(self, study: str) -> None:
        """Forget every cell of ``study``."""
        self._db.execute("DELETE FROM cells WHERE study = ?", (study,))
        self._db.commit()
