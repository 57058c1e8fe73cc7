"""A matchup's long table, its matrices and its outputs, a chunk of pairs at a time.

:func:`table_chunks` reads the long table (one row per attacker × target pair, row-major)
off the results one chunk at a time, in pair order or in any order of rows (a sorted table:
each chunk's results fetched from the store by key). Everything else here is built from it
without ever holding the whole table:

- :func:`table_columns`: a few columns of the whole table (the matrices: a float per pair);
- :func:`table_summary`: what a printed table needs to know of every row (all exact? any
  note?) and a sorted order (the key column and a row index held);
- :func:`long_frames`: the table as DataFrames of :data:`TABLE_CHUNK` rows with the whole
  table's dtypes, in pair order or a sorted order (the rows read back in that order);
- :func:`matrix_text`: the command's printed matrix (value ± SE per pair);
- :class:`TableSinks`: writers that take those frames one by one — CSV and one JSON document
  on stdout, the first :data:`LONG_ROWS` rows for a printed table, a CSV or Parquet file.

So ``oddslab matchup`` on a 1,000 × 1,000 study holds, besides the fit map, a few floats per
pair for its matrix (8 bytes a float; two for the default print) and one chunk of rows, never
the whole table and its text.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab.analysis.cells import cell_seed
from oddslab.analysis.metric_cells import MetricReader, result_dict
from oddslab.analysis.store import READ_CHUNK

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "TABLE_COLUMNS",
    "TABLE_CHUNK",
    "LONG_ROWS",
    "table_chunks",
    "table_columns",
    "table_summary",
    "long_frames",
    "matrix_text",
    "TableSinks",
]

#: Pairs per chunk of :func:`table_chunks`.
TABLE_CHUNK = 5_000
#: Rows of the long table printed as a table (a bigger table: its first rows and a note).
LONG_ROWS = 1_000

#: The columns of :meth:`~oddslab.analysis.matchup.MatchupResult.table`.
TABLE_COLUMNS = ("attacker", "target", "attacker_label", "target_label", "attacker_points",
                 "metric", "value", "se", "ci_low", "ci_high", "per_100_points",
                 "per_100_points_se", "trials", "seed", "exact", "note")  # fmt: skip


def _fit_map(res: Any) -> np.ndarray:
    """bool [attackers, targets]: which pairs ran (every pair but the unfit ones)."""
    rows = {res.name(e): i for i, e in enumerate(res.attackers)}
    cols = {res.name(e): j for j, e in enumerate(res.targets)}
    fits = np.ones((len(rows), len(cols)), dtype=bool)
    why = getattr(res.unfit, "why", None)
    if why is not None and why.shape == fits.shape:
        return why < 0
    for a, t in res.unfit:
        fits[rows[a], cols[t]] = False
    return fits


def _results_at(res: Any, index: Sequence[int]) -> list[Any]:
    """The results of the cells at ``index`` (their positions among the cells): JSON text
    read from the store, or the results in memory (:func:`result_dict` reads either)."""
    from oddslab.analysis.stored import StoredResults

    if isinstance(res.results, StoredResults):
        return res.results.take(index)
    return [res.results[i] for i in index]


def table_chunks(
    res: Any, metric: str | None = None, chunk: int | None = None, rows: Any = None
) -> Iterator[dict[str, list[Any]]]:
    """The long table's columns, ``chunk`` rows at a time, read off the results one by one
    without an Outcome each (:class:`~oddslab.analysis.metric_cells.MetricReader`).

    Parameters
    ----------
    res : MatchupResult
    metric : str, optional
        Default ``res.metric``.
    chunk : int, optional
        Rows per chunk (default :data:`TABLE_CHUNK`).
    rows : int array, optional
        The rows wanted, in the order wanted (row ``i * targets + j``: attacker ``i``,
        target ``j``); default every row in pair order, the results read in cell order.
        Given, the results are fetched by position (from the store by key,
        :data:`~oddslab.analysis.store.READ_CHUNK` rows at a time).
    """
    chunk = chunk or TABLE_CHUNK
    m = res._metric(metric)
    reader = MetricReader(m)
    labels: dict[str, str] = {}
    for e in (*res.attackers, *res.targets):
        labels.setdefault(res.name(e), res.label(e))
    anames = [res.name(e) for e in res.attackers]
    tnames = [res.name(e) for e in res.targets]
    priced = any(res.points.get(a) is not None for a in anames)
    nan = float("nan")

    def row(a: str, t: str, d: dict[str, Any] | None) -> tuple:
        pts = res.points.get(a)
        scale = 100.0 / pts if pts else nan
        if d is not None:
            ppm = res.target_ppm.get(t) if m.kind == "points_removed" else None
            v, note = reader.read(d, ppm)
            exact = d.get("probs") is not None
            out = (v.value, v.se, v.ci_low, v.ci_high, v.value * scale, v.se * scale,
                   0 if exact else int(d["trials"]), d["seed"], exact, note)  # fmt: skip
        else:
            seed = cell_seed(res.seed, {"attacker": a, "target": t})  # it would have
            why = res.unfit.get((a, t), "does not fit")
            out = (nan, nan, nan, nan, nan, nan, 0, seed, False, f"not run: {why}")
        head = (a, t, labels.get(a, a), labels.get(t, t), nan if pts is None and priced
                else pts, m.text)  # fmt: skip
        return (*head, *out)

    def pairs() -> Iterator[tuple]:
        if rows is None:  # pair order: the results in cell order, merged with the unfit pairs
            results = res._result_dicts()
            nxt = next(results, None)
            for a in anames:
                for t in tnames:
                    if nxt is not None and nxt[0]["attacker"] == a and nxt[0]["target"] == t:
                        yield row(a, t, nxt[1])
                        nxt = next(results, None)
                    else:
                        yield row(a, t, None)
            return
        fits = _fit_map(res).ravel()
        rank = np.cumsum(fits) - 1  # a fitting pair's position among the cells
        order = np.asarray(rows, dtype=np.int64)
        # READ_CHUNK rows at a time: as many results (as JSON text) as a query in pair order
        # holds; each parsed only when its row is made
        for start in range(0, len(order), READ_CHUNK):
            block = order[start : start + READ_CHUNK]
            ran = [int(rank[r]) for r in block if fits[r]]
            found = dict(zip(ran, _results_at(res, ran), strict=True))
            for r in block:
                i, j = divmod(int(r), len(tnames))
                d = result_dict(found.pop(int(rank[r]))) if fits[r] else None
                yield row(anames[i], tnames[j], d)

    cols: dict[str, list[Any]] = {c: [] for c in TABLE_COLUMNS}
    n = 0
    for values in pairs():
        for c, x in zip(TABLE_COLUMNS, values, strict=True):
            cols[c].append(x)
        n += 1
        if n >= chunk:
            yield cols
            cols, n = {c: [] for c in TABLE_COLUMNS}, 0
    if n or not anames or not tnames or rows is not None and len(rows) == 0:
        yield cols


def _points_dtype(res: Any) -> Any:
    """The dtype of the whole table's ``attacker_points`` (one chunk alone may infer
    another: whole numbers in a chunk, NaN in the next)."""
    import pandas as pd

    anames = [res.name(e) for e in res.attackers]
    priced = any(res.points.get(a) is not None for a in anames)
    pts = [res.points.get(a) for a in anames]
    return pd.Series([float("nan") if p is None and priced else p for p in pts] or [0.0]).dtype


def _frame(cols: dict[str, list[Any]], points_dtype: Any) -> pd.DataFrame:
    import pandas as pd

    df = pd.DataFrame(cols)
    if "attacker_points" in df and len(df) and df["attacker_points"].dtype != points_dtype:
        df["attacker_points"] = df["attacker_points"].astype(points_dtype)
    return df


def table_columns(
    res: Any, names: Iterable[str], metric: str | None = None, seen: Any = None
) -> dict[str, Any]:
    """Only the columns ``names`` of the whole long table (in pair order): one array each
    (one value a pair, each chunk copied into place: never the whole table's 16 columns, nor
    two copies of a numeric column), with the whole table's dtypes (pandas' string arrays
    for its text columns). ``seen``: called with every
    chunk's columns (all of them) as it is read."""
    import pandas as pd

    names = list(names)
    dtype = _points_dtype(res)
    n = len(res.attackers) * len(res.targets)
    out: dict[str, Any] = {}
    texts: dict[str, list[Any]] = {}  # pandas' own string columns: concatenated at the end
    at = 0
    for cols in table_chunks(res, metric):
        if seen is not None:
            seen(cols)
        part = _frame({c: cols[c] for c in names}, dtype)
        for c in names:
            if not isinstance(part[c].dtype, np.dtype) or c in texts:
                texts.setdefault(c, []).append(part[c])
                continue
            if c not in out:
                out[c] = np.empty(n, dtype=part[c].dtype)
            out[c][at : at + len(part)] = part[c].to_numpy()
        at += len(part)
    for c, parts in texts.items():
        out[c] = pd.concat(parts, ignore_index=True).array
    return {c: out[c] for c in names}


def table_summary(
    res: Any, metric: str | None = None, sort_by: str | None = None
) -> tuple[int, bool, bool, np.ndarray | None]:
    """One pass over the long table for what its printed form needs to know of every row:
    (rows, every row exact, any row with a note, the row order sorted by ``sort_by`` or
    None). Sorted as :meth:`~oddslab.analysis.matchup.MatchupResult.table` sorts (largest
    first, stable, NaN last: the same pandas sort, on the key column and a row index only)."""
    import pandas as pd

    if sort_by is not None and sort_by not in TABLE_COLUMNS:
        raise ValueError(f"cannot sort by '{sort_by}'; columns: {', '.join(TABLE_COLUMNS)}")
    flags = {"exact": True, "note": False}

    def seen(cols: dict[str, list[Any]]) -> None:
        flags["exact"] = flags["exact"] and all(cols["exact"])
        flags["note"] = flags["note"] or any(map(bool, cols["note"]))

    key = table_columns(res, [] if sort_by is None else [sort_by], metric, seen)
    order = None
    if sort_by is not None:
        frame = pd.DataFrame(key, copy=False)
        del key
        order = frame.sort_values(sort_by, ascending=False, kind="stable").index.to_numpy()
    n = len(res.attackers) * len(res.targets)
    return n, flags["exact"], flags["note"], order


def long_frames(
    res: Any, metric: str | None = None, rows: np.ndarray | None = None
) -> Iterator[pd.DataFrame]:
    """The long table as frames of :data:`TABLE_CHUNK` rows with the whole table's dtypes,
    in pair order or in the order ``rows`` (:func:`table_summary`'s sorted order)."""
    dtype = _points_dtype(res)
    for cols in table_chunks(res, metric, rows=rows):
        yield _frame(cols, dtype)


def matrix_text(values: np.ndarray, errors: np.ndarray, exact: bool | np.ndarray) -> np.ndarray:
    """The printed matrix's cells: ``value ± SE`` (``value`` when exact, ``—`` for NaN: not
    run or not reported), an object array of the shape of ``values``. ``exact``: every cell,
    or which cells (a bool array of that shape)."""
    from oddslab._format import format_estimate, format_se

    flags = np.broadcast_to(np.asarray(exact, dtype=bool), values.shape).ravel()
    texts = [
        "—" if v != v else (f"{v:.4g}" if x else f"{format_estimate(v, e)} ± {format_se(e)}")
        for v, e, x in zip(values.ravel(), errors.ravel(), flags, strict=True)
    ]
    return np.asarray(texts, dtype=object).reshape(values.shape)


def _json_body(df: pd.DataFrame) -> str:
    """The records of ``df`` as JSON text without the list's brackets (between ``[\n`` and
    ``\n]``), every float at full precision; empty for no rows."""
    import json

    from oddslab._format import json_records

    return json.dumps(json_records(df), indent=2)[2:-2] if len(df) else ""


class TableSinks:
    """Where the command's long-table frames go, one frame at a time.

    Parameters
    ----------
    fmt : {"table", "csv", "json", None}
        Printed on stdout: ``"csv"`` (one header), ``"json"`` (one document, written as
        the frames come), ``"table"`` (the first :data:`LONG_ROWS` rows are kept, for
        :attr:`head`), None (nothing).
    out : Path, optional
        A ``.csv``, ``.json`` (as ``-f csv|json`` print) or ``.parquet`` file, written a frame at a time (one frame alone: as
        ``DataFrame.to_parquet`` writes it).
    echo : callable
        Prints text on stdout (``typer.echo(text, nl=False)``).
    shown : callable
        The printed frame of a frame (columns left out); the file gets every column.
    """

    def __init__(self, fmt: str | None, out: Path | None, echo: Any, shown: Any) -> None:
        self.fmt, self.out, self.echo, self.shown = fmt, out, echo, shown
        self.rows = 0
        self.head: list[pd.DataFrame] = []
        self._first_json = True
        self._file: Any = None
        self._pending: pd.DataFrame | None = None  # a Parquet file's first frame
        self._json_rows = 0  # records written to a .json file

    def write(self, df: pd.DataFrame) -> None:
        from oddslab._format import csv_frame

        if self.fmt == "csv":
            text = csv_frame(self.shown(df))
            self.echo(text if self.rows == 0 else text.split("\n", 1)[1])
        elif self.fmt == "json":
            body = _json_body(self.shown(df))
            if body:
                self.echo(("[\n" if self._first_json else ",\n") + body)
                self._first_json = False
        elif self.fmt == "table" and self.rows < LONG_ROWS:
            self.head.append(df.iloc[: LONG_ROWS - self.rows])
        if self.out is not None:
            self._write_out(df)
        self.rows += len(df)

    def _write_out(self, df: pd.DataFrame) -> None:
        from oddslab._format import csv_frame

        if self.out.suffix.lower() == ".json":  # as -f json prints it
            if self._file is None:
                self._file = open(self.out, "w", encoding="utf-8")  # noqa: SIM115
            if len(df):
                self._file.write(("[\n" if not self._json_rows else ",\n") + _json_body(df))
                self._json_rows += len(df)
            return
        if self.out.suffix == ".parquet":
            if self._pending is None and self._file is None:
                self._pending = df
                return
            self._parquet(self._pending)
            self._pending = None
            self._parquet(df)
        else:
            if self._file is None:
                self._file = open(self.out, "w", encoding="utf-8", newline="")  # noqa: SIM115
                self._file.write(csv_frame(df))
            else:
                self._file.write(csv_frame(df).split("\n", 1)[1])

    def _parquet(self, df: pd.DataFrame | None) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        if df is None:
            return
        table = pa.Table.from_pandas(df, preserve_index=False)
        if self._file is None:
            self._file = pq.ParquetWriter(self.out, table.schema)
        self._file.write_table(table.cast(self._file.schema))

    def close(self) -> None:
        """Finish the JSON document and the file."""
        if self.fmt == "json":
            self.echo("[]\n" if self._first_json else "\n]\n")
        if self._pending is not None:  # one frame: written as DataFrame.to_parquet writes it
            self._pending.to_parquet(self.out, index=False)
            self._pending = None
        if self.out is not None and self.out.suffix.lower() == ".json" and self._file is None:
            self._file = open(self.out, "w", encoding="utf-8")  # noqa: SIM115  (no rows)
        if self._file is not None:
            if self.out.suffix.lower() == ".json":
                self._file.write("[]\n" if not self._json_rows else "\n]\n")
            self._file.close()
            self._file = None

    def head_frame(self) -> pd.DataFrame:
        """The first :data:`LONG_ROWS` rows kept for a printed table."""
        import pandas as pd

        return pd.concat(self.head, ignore_index=True) if len(self.head) > 1 else self.head[0]
