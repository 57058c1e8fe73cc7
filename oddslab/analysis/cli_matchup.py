"""What ``oddslab matchup`` prints and writes, for a matchup of any size, without the long table.

The command never builds the whole long table, nor any output whole (it used to: the table,
then its CSV or JSON text — 71 and 160 MB above the warm process for 102,400 pairs, growing
with the pairs). Its outputs are read off the results a chunk of pairs at a time
(:mod:`oddslab.analysis.matchup_table`):

- the default print, value ± SE per pair: the value and SE matrices (two floats a pair, 16 MB
  for 10⁶ pairs, besides the fit map), of which only the target columns that fit the terminal
  are formatted;
- ``--long``, ``--sort``, ``-f csv``/``-f json``: one pass for what the printed form needs of
  every row (all exact? any note? the sort key and a row index: 16 bytes a pair for a
  number column), then the rows a chunk at a time, in that order; CSV and JSON (one
  document) are printed as they come; a printed table shows the first
  :data:`~oddslab.analysis.matchup_table.LONG_ROWS` rows and says how many more (``-f csv``
  or ``--out`` gives them all);
- ``--out``: written in the same pass, a chunk at a time (CSV, Parquet).

Only typer is imported at the top; pandas, numpy and rich load inside the functions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from oddslab.analysis.cli_common import Fmt, _print_frame
from oddslab.analysis.table_fit import DROP_FIRST, fitted_table

__all__ = ["print_matrix", "print_long", "write_out"]


def print_matrix(res: Any, per_points: bool) -> None:
    """The matrix of value ± SE (value alone when exact; ``—`` not run or not reported)."""
    import pandas as pd

    from oddslab.analysis.cli_common import _plain_metric
    from oddslab.analysis.matchup_table import matrix_text, table_columns

    val, err = ("per_100_points", "per_100_points_se") if per_points else ("value", "se")
    tab = table_columns(res, [val, err, "exact"])
    shape = (len(res.attackers), len(res.targets))
    values, errors = (
        tab[val].astype(float, copy=False).reshape(shape),
        tab[err].astype(float, copy=False).reshape(shape),
    )
    exact = tab["exact"].astype(bool, copy=False).reshape(shape)  # exact cells: no "±"
    del tab
    per = " per 100 points" if per_points else ""
    how = ", exact" if exact.all() else (", exact where no ±" if exact.any() else "")
    title = f"{_plain_metric(res.metric, res)}{per}{how} (rows: attackers, columns: targets)"
    rows = [res.label(e) for e in res.attackers]
    cols = [res.label(e) for e in res.targets]

    def frame(k: int) -> pd.DataFrame:  # the first k targets' columns, formatted
        text = matrix_text(values[:, :k], errors[:, :k], exact[:, :k])
        shown = pd.DataFrame(text, columns=cols[:k])
        shown.insert(0, "attacker", rows)
        return shown

    _print_wide(frame, cols, title)


def _print_wide(frame: Any, cols: list[str], title: str) -> None:
    """:func:`_print_frame` of ``frame(len(cols))`` in table form, formatting only the first
    columns that can fit the terminal: a table that does not fit drops its rightmost columns
    first (:func:`fitted_table`), so a prefix of the columns gives the same table and note.
    Every column costs at least 3 characters (its text and padding), so at most width / 3
    fit; more are tried only if all of those fit."""
    from rich.console import Console

    console = Console()
    width = console.width
    k = len(cols)
    if not any(c in DROP_FIRST or c == "attacker" for c in cols):  # else: dropped otherwise
        k = min(len(cols), width // 3 + 1)
    while True:
        t, dropped = fitted_table(frame(k), title, width, names=cols)  # entries as typed
        if k >= len(cols) or dropped:
            break
        k = min(len(cols), 2 * k)
    dropped = [cols[j] for j in range(len(cols) - 1, k - 1, -1)] + dropped
    console.print(t)
    if dropped:
        typer.echo(
            f"note: left out to fit {width} columns: {', '.join(dropped)} "
            "(a wider terminal, or -f csv, shows them)",
            err=True,
        )


def print_long(res: Any, sort: str | None, fmt: Fmt, out: Path | None) -> None:
    """The long table (sorted by ``sort``, largest first) in ``fmt``, and ``--out``."""
    from oddslab.analysis.cli_common import SE_COLUMNS, _plain_metric
    from oddslab.analysis.matchup_table import LONG_ROWS, TableSinks, long_frames, table_summary

    n, exact, note, order = table_summary(res, sort_by=sort)
    # an all-exact printed table: no SE or interval columns, nor the trials (0) and seeds
    # (unused) of its cells; "exact" goes into the title
    se_cols = (*SE_COLUMNS, "trials", "seed") if exact and fmt is Fmt.table else ()
    # the printed title names the metric in plain words: its column (one value) goes
    # (-f csv and -f json print every column, as --out writes them)
    drop = [c for c in (*se_cols, "exact", "metric") if fmt is Fmt.table] + (
        [] if note or fmt is not Fmt.table else ["note"]
    )

    def shown(df):  # as the whole table's print: the note column only if a row has one, ...
        return df.drop(columns=[c for c in drop if c in df.columns])  # ... and no SE columns

    sinks = TableSinks(str(fmt), out, lambda text: typer.echo(text, nl=False), shown)
    for df in long_frames(res, rows=order):
        sinks.write(df)
    sinks.close()
    if fmt is Fmt.table:
        title = _plain_metric(res.metric, res) + (", exact" if exact else "")
        _print_frame(shown(sinks.head_frame()), title, fmt)
        if n > LONG_ROWS:
            how = f", sorted by {sort}" if sort else ""
            typer.echo(
                f"note: printed the first {LONG_ROWS:,} of {n:,} rows{how}; -f csv, -f json "
                "or --out FILE gives every row",
                err=True,
            )
    if out is not None:
        typer.echo(f"table written to {out}", err=True)


def write_out(res: Any, out: Path) -> None:
    """``--out``: the long table, a chunk of pairs at a time (.csv, .json or .parquet)."""
    from oddslab.analysis.matchup_table import TableSinks, long_frames

    sinks = TableSinks(None, out, None, None)
    for df in long_frames(res):
        sinks.write(df)
    sinks.close()
    typer.echo(f"table written to {out}", err=True)
