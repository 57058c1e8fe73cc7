"""A store of finished cells: SQLite, one row per cell, committed as cells finish (one
transaction per batch of finished cells: see :func:`oddslab.analysis.distributed.run_cells`).

Rows are keyed by (study hash, cell key). The study hash covers what every cell of a study
shares (the base scenario or template, trials, seed, precision); the cell key is the canonical
JSON of the cell's values. Each row also keeps the digest of the cell's full scenario, so a
resumed study re-runs a cell whose scenario changed (an edited library entry, say) instead of
trusting a stale row.

SQLite was chosen over Parquet for the live store because each batch of rows is its own committed
transaction (WAL journal): a process killed with ``kill -9`` loses at most the cells it had
not yet written, and the file is never left half-written. Finished tables export to CSV or
Parquet (:meth:`oddslab.analysis.sweep.SweepResult.to_parquet`).

**Identity.** A store holds one study. Its ``study`` table keeps the study's identity (kind,
digest of the scenario or template, varied keys, seed, trials, precision, metric, exact mode,
events, chunk size, oddslab version: :func:`oddslab.analysis.distributed.study_identity`); a study whose identity
differs is refused with one line saying what differs (:meth:`CellStore.claim`), and
``--resume`` reads the seed from it. An SQLite file that is not a store is refused, never
altered.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from oddslab._schema import ScenarioError
from oddslab.analysis.cells import CellResult

__all__ = ["CellStore"]

#: Cell keys per ``IN (...)`` query (below SQLite's default limit of bound parameters).
READ_CHUNK = 500

_SCHEMA = """
CREATE TABLE IF NOT EXISTS cells (
    study TEXT NOT NULL,
    cell TEXT NOT NULL,
    scenario_hash TEXT NOT NULL,
    result TEXT NOT NULL,
    finished REAL NOT NULL,
    PRIMARY KEY (study, cell)
);
CREATE TABLE IF NOT EXISTS study (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    hash TEXT NOT NULL,
    identity TEXT NOT NULL,
    created REAL NOT NULL
);
"""

#: What the identity's fields are called in messages, in the order they are compared.
FIELDS = {
    "kind": "kind of study",
    "scenario": "scenario",
    "keys": "varied keys",
    "seed": "seed",
    "trials": "trials",
    "precision": "precision",
    "metric": "metric",
    "exact": "exact mode",
    "events": "events",
    "chunk": "chunk size",
    "oddslab": "oddslab version",
}


class CellStore:
    """Finished cells of one or more studies in an SQLite file.

    Parameters
    ----------
    path : str or Path
        The store file (created if missing; ``.sqlite`` / ``.db`` by convention).
    """

    def __init__(self, path: str | Path, *, create: bool = True):
        self.path = Path(path)
        if self.path.is_dir():
            raise ScenarioError(str(self.path), "", "is a folder, not a store file")
        if not create and not self.path.is_file():
            raise ScenarioError(str(self.path), "", "file not found")
        try:
            self._db = sqlite3.connect(str(self.path), timeout=30)
            tables = {
                name
                for (name,) in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
            }
            if not create and not tables:
                self._db.close()
                raise ScenarioError(str(self.path), "", "an empty file, not a results store")
            if tables and "cells" not in tables:  # someone else's database: never alter it
                self._db.close()
                raise ScenarioError(
                    str(self.path),
                    "",
                    "an SQLite file but not an oddslab results store "
                    f"(its tables: {', '.join(sorted(tables))}); give another --store file",
                )
            if create or tables:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._db.executescript(_SCHEMA)
                self._db.commit()
        except sqlite3.DatabaseError as exc:
            raise ScenarioError(str(self.path), "", f"not a usable results store ({exc})") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> CellStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def identity(self) -> dict[str, Any] | None:
        """The identity of the study this store holds (None for a new store)."""
        row = self._db.execute("SELECT identity FROM study WHERE id = 1").fetchone()
        return None if row is None else json.loads(row[0])

    def study(self) -> str | None:
        """The hash of the study this store holds (None for a new store)."""
        row = self._db.execute("SELECT hash FROM study WHERE id = 1").fetchone()
        return None if row is None else str(row[0])

    def claim(self, study: str, identity: dict[str, Any]) -> None:
        """Make this store the store of ``study`` (a new store), or check it already is.

        Raises
        ------
        ScenarioError
            The store holds another study (the message says what differs), or was written
            by an oddslab that kept no identity.
        """
        mine = self.identity()
        if mine is None:
            (n,) = self._db.execute("SELECT COUNT(*) FROM cells").fetchone()
            if n:
                raise ScenarioError(
                    str(self.path),
                    "",
                    f"holds {n} cells written by an older oddslab that kept no study "
                    "identity; give a new --store file",
                )
            self._db.execute(
                "INSERT INTO study (id, hash, identity, created) VALUES (1, ?, ?, ?)",
                (study, json.dumps(identity, sort_keys=True), time.time()),
            )
            self._db.commit()
            return
        if self.study() == study:
            return
        raise ScenarioError(str(self.path), "", f"holds another study ({differences(mine, identity)}); "
                            "give another --store file")  # fmt: skip

    def summary(self) -> dict[str, Any]:
        """What ``oddslab store info`` shows: identity, cells, first and last write, size."""
        (n, first, last) = self._db.execute(
            "SELECT COUNT(*), MIN(finished), MAX(finished) FROM cells"
        ).fetchone()
        row = self._db.execute("SELECT created FROM study WHERE id = 1").fetchone()
        return {
            "file": str(self.path),
            "bytes": self.path.stat().st_size if self.path.exists() else 0,
            "identity": self.identity(),
            "cells": int(n),
            "created": row[0] if row else None,
            "first_cell": first,
            "last_cell": last,
        }

    def count(self, study: str) -> int:
        """Number of finished cells of ``study``."""
        (n,) = self._db.execute("SELECT COUNT(*) FROM cells WHERE study = ?", (study,)).fetchone()
        return int(n)

    def finished(self, study: str) -> dict[str, CellResult]:
        """Every finished cell of ``study``: cell key → result."""
        rows = self._db.execute("SELECT cell, result FROM cells WHERE study = ?", (study,))
        return {cell: CellResult.from_json(text) for cell, text in rows}

    def rows(self, study: str, keys: Sequence[str]) -> dict[str, str]:
        """The stored result JSON of those of ``keys`` that are finished: cell key → JSON.

        Read :data:`READ_CHUNK` keys per query (SQLite's limit on bound parameters), through
        the primary key's index: the memory is that of the answer, never of the whole store.
        """
        out: dict[str, str] = {}
        for i in range(0, len(keys), READ_CHUNK):
            part = list(keys[i : i + READ_CHUNK])
            marks = ",".join("?" * len(part))
            q = f"SELECT cell, result FROM cells WHERE study = ? AND cell IN ({marks})"
            out.update(self._db.execute(q, (study, *part)))
        return out

    def hashes(self, study: str, keys: Sequence[str]) -> dict[str, tuple[str, bool]]:
        """For those of ``keys`` that are finished: cell key → (scenario hash, interrupted)."""
        out: dict[str, tuple[str, bool]] = {}
        for i in range(0, len(keys), READ_CHUNK):
            part = list(keys[i : i + READ_CHUNK])
            marks = ",".join("?" * len(part))
            q = (
                "SELECT cell, scenario_hash, instr(result, '\"interrupted\":true') > 0 "
                f"FROM cells WHERE study = ? AND cell IN ({marks})"
            )
            for cell, h, stopped in self._db.execute(q, (study, *part)):
                out[cell] = (h, bool(stopped))
        return out

    def put(self, study: str, result: CellResult) -> None:
        """Write one finished cell (committed before returning)."""
        self._db.execute(
            "INSERT OR REPLACE INTO cells (study, cell, scenario_hash, result, finished) "
            "VALUES (?, ?, ?, ?, ?)",
            (study, result.key, result.scenario_hash, result.to_json(), time.time()),
        )
        self._db.commit()

    def put_many(self, study: str, results: list[CellResult]) -> None:
        """Write several finished cells in one transaction (a Dask task's batch)."""
        now = time.time()
        self._db.executemany(
            "INSERT OR REPLACE INTO cells (study, cell, scenario_hash, result, finished) "
            "VALUES (?, ?, ?, ?, ?)",
            [(study, r.key, r.scenario_hash, r.to_json(), now) for r in results],
        )
        self._db.commit()

    def copy_cells(self, other: CellStore, study: str) -> None:
        """Copy every finished cell of ``study`` from ``other`` (:data:`READ_CHUNK` rows at
        a time, one transaction)."""
        rows = other._db.execute(
            "SELECT study, cell, scenario_hash, result, finished FROM cells WHERE study = ?",
            (study,),
        )
        while part := rows.fetchmany(READ_CHUNK):
            self._db.executemany(
                "INSERT OR REPLACE INTO cells (study, cell, scenario_hash, result, finished) "
                "VALUES (?, ?, ?, ?, ?)",
                part,
            )
        self._db.commit()

    def clear(self, study: str) -> None:
        """Forget every cell of ``study``."""
        self._db.execute("DELETE FROM cells WHERE study = ?", (study,))
        self._db.commit()


def differences(stored: dict[str, Any], wanted: dict[str, Any]) -> str:
    """``"trials: 2000 here, 1000 in the store; seed: ..."`` for the fields that differ."""
    out = []
    for field, words in FIELDS.items():
        a, b = wanted.get(field), stored.get(field)
        if a == b:
            continue
        if field == "scenario":
            out.append(f"{words} differs (digest {str(a)[:12]} here, {str(b)[:12]} in the store)")
        elif field == "events":
            out.append(f"{words}: {_quoted(a)} here, {_quoted(b)} in the store")
        else:
            out.append(f"{words}: {_show(a)} here, {_show(b)} in the store")
            if field == "metric" and wanted.get("exact") == "auto" and not wanted.get("precision"):
                out[-1] += " (with --exact auto the metric decides which cells are exact)"
    return "; ".join(out) or "its definition differs"


def _quoted(v: Any) -> str:
    return ", ".join(f"'{x}'" for x in v) if v else "none"


def _show(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, list):
        return ", ".join(map(str, v)) or "none"
    return str(v)
