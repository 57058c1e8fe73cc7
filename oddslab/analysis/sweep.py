"""Sweeps: every combination of values of any scenario keys, as one tidy table.

>>> res = sweep("examples/generic-intercessors-vs-guardsmen.toml",
...             {"target.save": range(2, 7), "attacker.weapons.0.models": [5, 10, 20]},
...             trials=100_000, seed=1)                                  # doctest: +SKIP
>>> res.frame()          # one row per cell and statistic                # doctest: +SKIP
>>> res.plot("P(wounds_remaining == 0)")                                  # doctest: +SKIP

Keys are dotted paths into the scenario as a dict (``target.save``, ``attacker.weapons.0.models``
or ``attacker.weapons[0].models``); every cell is validated like a file before anything runs.
Each cell's seed is a stable hash of (seed, the cell's values) (:func:`~oddslab.analysis.cells.
cell_seed`), so a cell gives the same answer in any sweep, in any order, on any worker, and
equals ``oddslab.simulate(that cell's scenario, seed=cell.seed)`` bit for bit.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._format import csv_frame
from oddslab._schema import ScenarioError
from oddslab.analysis.cells import KEEP_VALIDATED, Cell, CellResult, cell_seed
from oddslab.analysis.distributed import run_study, stored_seed
from oddslab.analysis.frames import COLUMNS, frame_chunks, write_csv
from oddslab.analysis.metric_cells import MetricReader, common_primary_of, result_pairs
from oddslab.analysis.metrics import check_metric, check_stat_names
from oddslab.analysis.paths import canonical_paths, with_paths
from oddslab.analysis.stored import StoredResults, SweepCells, run_streamed
from oddslab.libraries import expand_uses

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = ["sweep", "SweepResult", "plot_sweep", "read_scenario_dict", "parse_values"]


def read_scenario_dict(scenario: str | Path | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """(the scenario as a dict, its source name) from a path or a dict."""
    if isinstance(scenario, Mapping):
        return dict(scenario), "<dict>"
    if callable(getattr(scenario, "to_dict", None)):  # a scenario object (oddslab.load(...))
        return scenario.to_dict(), "<dict>"
    if not isinstance(scenario, str | Path):
        raise TypeError(
            "sweep needs a scenario file, a scenario object or a scenario dict (what tomllib "
            f"gives); got {type(scenario).__name__}"
        )
    from oddslab.scenario import read_toml

    return read_toml(scenario), str(Path(scenario))


def parse_values(text: str) -> list[Any]:
    """Values of a ``--vary KEY=VALUES`` option.

    ``2..6`` (inclusive integer range), ``0..20..5`` (with a step), ``5,10,20``, ``true,false``,
    ``"D6","2D3"`` or bare strings; each item is read as a TOML value when it is one.
    """
    text = text.strip()
    parts = text.split("..")
    if len(parts) in (2, 3) and all(_is_int(p) for p in parts):
        lo, hi = int(parts[0]), int(parts[1])
        step = int(parts[2]) if len(parts) == 3 else 1
        if step <= 0 or hi < lo:
            raise ValueError(f"'{text}': a range is LOW..HIGH[..STEP] with LOW <= HIGH, STEP >= 1")
        return list(range(lo, hi + 1, step))
    out = []
    for item in _split_items(text):
        try:
            out.append(tomllib.loads(f"v = {item}")["v"])
        except tomllib.TOMLDecodeError:
            out.append(item)
    if not out:
        raise ValueError("no values given")
    return out


def _is_int(s: str) -> bool:
    return s.strip().lstrip("-").isdigit()


def _split_items(text: str) -> list[str]:
    items, depth, cur, quote = [], 0, "", ""
    for ch in text:
        if quote:
            cur += ch
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            cur, quote = cur + ch, ch
        elif ch in "[{":
            depth, cur = depth + 1, cur + ch
        elif ch in "]}":
            depth, cur = depth - 1, cur + ch
        elif ch == "," and depth == 0:
            items.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        items.append(cur.strip())
    return [i for i in items if i]


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclass
class SweepResult:
    """A finished sweep.

    Attributes
    ----------
    keys : list of str
        The varied dotted paths, in the order given.
    cells : sequence of Cell
    results : sequence of CellResult
        One per cell, in cell order (the product of the values, first key slowest). Lists
        for a study of up to :data:`~oddslab.analysis.cells.KEEP_VALIDATED` cells; above,
        a :class:`~oddslab.analysis.stored.SweepCells` made from the grids and a
        :class:`~oddslab.analysis.stored.StoredResults` read from the store (the ``store``
        file, or a temporary one that lives as long as the result), so the client keeps
        nothing per cell.
    seed : int
        The sweep's master seed.
    source : str
    metric : str or None
        The default metric of :meth:`table` and :meth:`plot` (the one given to :func:`sweep`,
        else ``P(<first event>)`` when events were given).
    events : tuple of str
        The events every cell answered (see :mod:`oddslab.analysis.cell_events`).
    """

    keys: list[str]
    cells: list[Cell]
    results: list[CellResult]
    seed: int
    source: str = "<dict>"
    metric: str | None = None
    events: tuple[str, ...] = ()
    _outcomes: list[Any] = field(default_factory=list, repr=False)

    def __repr__(self) -> str:  # a notebook shows this: a line, not every cell's counts
        return (
            f"SweepResult(keys={self.keys!r}, {len(self.results)} cells, seed={self.seed}, "
            f"source={self.source!r})"
        )

    @property
    def outcomes(self) -> list[Any]:
        """One :class:`oddslab.outcome.Outcome` per cell (kept once built)."""
        if not self._outcomes:
            self._outcomes = [r.outcome() for r in self.results]
        return self._outcomes

    def iter_outcomes(self) -> Iterator[Any]:
        """The outcomes one by one; for studies of more than
        :data:`~oddslab.analysis.cells.KEEP_VALIDATED` cells they are built as they are read
        and not kept (an Outcome holds every histogram twice: counts and probabilities)."""
        if self._outcomes or len(self.results) <= KEEP_VALIDATED:
            yield from self.outcomes
            return
        for r in self.results:
            yield r.outcome()

    def primary(self) -> str:
        """The default metric: ``mean(<primary statistic>)``, of a statistic every cell reports.

        See :func:`oddslab.analysis.metrics.common_primary`.
        """
        return f"mean({common_primary_of(d for _, d in result_pairs(self.cells, self.results))})"

    def frame(self, stats: Iterable[str] | None = None) -> pd.DataFrame:
        """Tidy table: one row per cell and statistic.

        Columns: the varied keys, ``kind`` ("mean" or "probability"), ``statistic`` (a
        statistic's name), ``label`` (plain words: the statistic's label or the headline),
        ``value``, ``se``, ``ci_low``, ``ci_high`` (95%), ``trials``, ``seed``, ``exact`` (an
        exact answer: SE 0, trials 0). Means of every statistic come first, then the headline
        probabilities, then the events of the sweep (kind ``event``, ``statistic`` the
        condition, ``label`` ``P(<event label>)``).

        Parameters
        ----------
        stats : iterable of str, optional
            Keep only these statistics (by name); the events rows stay.
        """
        import pandas as pd

        keep = None if stats is None else set(stats)
        if keep:
            check_stat_names(keep, self.iter_outcomes())
        cols = [*self.keys, *COLUMNS]
        # one small DataFrame per chunk (numeric columns as arrays), then one concat: a
        # 10⁵-cell frame peaked at 830 MB when every chunk's Python lists were joined first
        parts = [pd.DataFrame(p, columns=cols) for p in self.frame_chunks(keep)]
        if not parts:
            return pd.DataFrame({c: [] for c in cols}, columns=cols)
        return pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]

    def frame_chunks(self, keep: set[str] | None = None) -> Iterator[dict[str, list[Any]]]:
        """The :meth:`frame`'s columns a chunk of cells at a time (vectorised; read from the
        store for a big study: see :mod:`oddslab.analysis.frames`)."""
        if isinstance(self.results, StoredResults):
            pairs: Iterable = ((v, None, t) for v, t in self.results.rows())
        else:
            pairs = ((c.values, c.seed, r) for c, r in zip(self.cells, self.results, strict=True))
        return frame_chunks(self.keys, pairs, keep)

    def table(self, metric: str | None = None) -> pd.DataFrame:
        """One row per cell: the varied keys, then the metric's value, se, ci_low, ci_high,
        exact, note.

        ``note`` says why a value is NaN (a cell whose scenario does not report the statistic).
        """
        import pandas as pd

        names = (", ".join(f"{k}={cell.values[k]}" for k in self.keys) for cell in self.cells)
        m = check_metric(metric or self.metric or self.primary(), names, self.iter_outcomes())
        reader = MetricReader(m)  # no Outcome per cell: read off each result, bit for bit
        cols: dict[str, list[Any]] = {c: [] for c in (*self.keys, *_TABLE_COLUMNS)}
        for values, d in result_pairs(self.cells, self.results):
            v, note = reader.read(d)
            for k in self.keys:
                cols[k].append(values[k])
            row = (m.text, v.value, v.se, v.ci_low, v.ci_high, d.get("probs") is not None, note)
            for c, x in zip(_TABLE_COLUMNS, row, strict=True):
                cols[c].append(x)
        # a Series per column infers each column's type as a list of row dicts did
        return pd.DataFrame({c: pd.Series(v, dtype=None) for c, v in cols.items()})

    def to_csv(self, path: str | Path | None = None) -> str:
        """The tidy :meth:`frame` as CSV; written to ``path`` if given, returned.

        A study of more than :data:`~oddslab.analysis.cells.KEEP_VALIDATED` cells with a
        ``path`` is written a chunk of cells at a time and ``""`` is returned (the text of a
        10⁵-cell frame is about 200 MB; read the file).
        """
        if path is not None and len(self.cells) > KEEP_VALIDATED:
            write_csv(self.frame_chunks(), path)
            return ""
        text = csv_frame(self.frame())
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_parquet(self, path: str | Path, stats: Iterable[str] | None = None) -> None:
        """The tidy :meth:`frame` (of ``stats`` only, as :meth:`frame`) as Parquet (needs
        pyarrow)."""
        df = self.frame(stats)
        for k in self.keys:  # mixed-type value columns become text, Parquet needs one type
            if df[k].map(type).nunique() > 1:
                df[k] = df[k].astype(str)
        df.to_parquet(path, index=False)

    def plot(self, metric: str | None = None, ax: Any = None) -> Any:
        """:func:`plot_sweep` of this result."""
        return plot_sweep(self, metric, ax=ax)


#: The columns of :meth:`SweepResult.table` after the varied keys.
_TABLE_COLUMNS = ("metric", "value", "se", "ci_low", "ci_high", "exact", "note")


def sweep(
    scenario: str | Path | Mapping[str, Any],
    vary: Mapping[str, Iterable[Any]],
    *,
    trials: int | None = None,
    seed: int | None = None,
    precision: float | None = None,
    store: str | Path | None = None,
    resume: bool = False,
    workers: int | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | str | None = "auto",
    batch: int | None = None,
    exact: str = "auto",
    dashboard: bool = False,
    metric: str | None = None,
    events: Iterable[str] = (),
) -> SweepResult:
    """Run a scenario at every combination of the values of some of its keys.

    Parameters
    ----------
    scenario : path, scenario object or dict
        A scenario file, a scenario object (``oddslab.load(...)``; its ``to_dict()`` is
        used), or a scenario as a dict (what ``tomllib`` gives).
    vary : mapping of dotted path → values
        ``{"target.save": range(2, 7), "attacker.weapons.0.models": [5, 10, 20]}``.
    trials : int, optional
        Trials per cell (default: the scenario's, else 1,000,000); with ``precision`` the
        ceiling per cell.
    seed : int, optional
        Master seed (default: the scenario's ``seed``, else fresh entropy, kept in the result).
    precision : float, optional
        Per-cell target 95% half-width of the headline probabilities.
    store, resume, workers, scheduler, progress, batch, dashboard
        See :func:`oddslab.analysis.distributed.run_cells`.
    exact : {"auto", "never"}
        "auto" (default): a cell whose every statistic has an exact answer (the generic
        ruleset, for one) is answered exactly — SE 0, ``trials`` 0, ``exact`` True in the
        tables; with a ``metric``, so is a cell whose metric and events read only statistics
        with exact answers (it then reports only those:
        :func:`~oddslab.analysis.cells.exact_result`); "never": every cell is simulated
        from its seed.
    metric : str, optional
        The default metric of the result's table and plot; with ``precision``, a probability
        metric is also run to that precision. ``P(<event label>)`` reads an event, and
        ``P(<condition>)`` an event written inline (counted in every cell).
    events : iterable of str, optional
        Events every cell answers in its own run (``"clean win = models_slain >= 5 and not
        destroyed"``; grammar: :mod:`oddslab.events`), read before anything runs; the
        default metric is then the first event's probability.

    Returns
    -------
    SweepResult

    Raises
    ------
    ScenarioError
        A cell is not a valid scenario (the message names the cell and the key).
    StudyInterrupted
        Ctrl-C: a ``KeyboardInterrupt`` carrying the finished cells and the seed
        (:class:`oddslab.analysis.interrupted.StudyInterrupted`; ``exc.save(path)``, then
        ``store=path, resume=True`` runs only the rest).
    """
    from oddslab._seeding import fresh_seed
    from oddslab.analysis.cell_events import study_metric
    from oddslab.scenario import from_dict

    events, metric = study_metric(events, metric)
    raw, source = read_scenario_dict(scenario)
    if not vary:
        raise ValueError("nothing to vary: give at least one key and its values")
    written = list(vary)
    keys = canonical_paths(written)  # labels and seeds use one spelling per key
    grids = []
    for w, k in zip(written, keys, strict=True):
        values = [_plain(v) for v in vary[w]]
        if not values:
            raise ScenarioError(source, k, "no values to vary over")
        grids.append(values)
    if seed is None:
        s = raw.get("seed")
        if isinstance(s, int) and not isinstance(s, bool) and s >= 0:
            seed = s
        else:  # resuming a study whose seed was drawn: the store keeps it
            kept = stored_seed(store) if resume else None
            seed = kept if kept is not None else fresh_seed()
    base = Path(source).parent if source != "<dict>" else Path.cwd()
    expanded = expand_uses(raw, source, base)
    for k, g in zip(keys, grids, strict=True):
        _check_distinct_values(k, g, source)
    lazy = SweepCells(raw, keys, grids, int(seed), source, base)
    small = len(lazy) <= KEEP_VALIDATED
    cells: list[Cell] = []
    meanings = _Meanings(keys, grids, source)
    for values in lazy.iter_values():
        where = f"{source} [{', '.join(f'{k}={v!r}' for k, v in values.items())}]"
        data = with_paths(raw, values, where, base)
        sc = from_dict(data, source=where)  # every cell is validated before any runs
        meanings.add(values, sc)
        if small:
            cells.append(Cell(values, data, cell_seed(seed, values), where, sc))
    study = dict(keys=keys, seed=int(seed), trials=trials, precision=precision, metric=metric,
                 exact=exact, events=events)  # fmt: skip
    run = dict(resume=resume, workers=workers, scheduler=scheduler, progress=progress,
               batch=batch, dashboard=dashboard)  # fmt: skip
    if small:
        results = run_study("sweep", {"scenario": expanded}, cells, store=store, **study, **run)
        return SweepResult(keys, cells, results, int(seed), source, metric, events)
    # a big study: cells made as they run, results only in the store (bounded client memory)
    results = run_streamed("sweep", {"scenario": expanded}, lazy, store, study, run)
    return SweepResult(keys, lazy, results, int(seed), source, metric, events)


def _check_distinct_values(key: str, values: list[Any], source: str) -> None:
    """A value given twice would make two cells of the same values."""
    from oddslab.analysis.cells import canonical

    seen: dict[str, Any] = {}
    for v in values:
        c = canonical(v)
        if c in seen:
            raise ValueError(
                f"two cells of the study have the same values ({key}={v!r}, in "
                f"{source} [{key}={v!r}]): give each value once"
            )
        seen[c] = v


class _Meanings:
    """Two values of a key that the scenario reads alike (``"1"`` and ``1`` for a damage)
    would make two cells of one scenario under two labels: refused naming both spellings.

    Each key's values are compared as the ruleset parsed them (its scenario objects) with
    the other keys at their first values: the cells the study validates anyway (:meth:`add`
    takes each cell's scenario as it is read), so the check reads no scenario of its own.
    """

    def __init__(self, keys: list[str], grids: list[list[Any]], source: str) -> None:
        from oddslab.analysis.cells import canonical

        self.canonical = canonical
        self.keys, self.source = keys, source
        self.first = {k: canonical(g[0]) for k, g in zip(keys, grids, strict=True)}
        self.varied = {k for k, g in zip(keys, grids, strict=True) if len(g) > 1}
        self.seen: dict[str, dict[Any, list[tuple[Any, Any]]]] = {k: {} for k in self.varied}

    def add(self, values: dict[str, Any], sc: Any) -> None:
        """The scenario ``sc`` of the cell of ``values``: compared, for each key whose
        other keys are all at their first values, with that key's values read before."""
        off = [k for k in self.keys if self.canonical(values[k]) != self.first[k]]
        if len(off) > 1:
            return
        for k in off or self.varied:  # the first cell is the first value of every key
            if k not in self.varied:
                continue
            try:
                bucket = hash(sc)
            except TypeError:  # an unhashable scenario object: compared with every other
                bucket = None
            seen = self.seen[k].setdefault(bucket, [])
            for v0, sc0 in seen:
                if _same(sc0, sc):
                    raise ValueError(
                        f"{self.source}: {k}={v0!r} and {k}={values[k]!r} are one value (the "
                        "scenario reads them alike): give it once"
                    )
            seen.append((values[k], sc))


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 (an object whose == cannot say: not the same)
        return False


def plot_sweep(
    result: SweepResult, metric: str | None = None, *, ax: Any = None, annotate: bool = True
) -> Any:
    """Line plot (one varied key) or heatmap (two keys) of a metric over a sweep.

    Parameters
    ----------
    result : SweepResult
    metric : str, optional
        See :func:`oddslab.analysis.metrics.parse_metric`; default the primary statistic's mean.
    ax : matplotlib Axes, optional
    annotate : bool
        Write each cell's value in the heatmap.

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    from oddslab.analysis.metrics import parse_metric
    from oddslab.analysis.plots import (
        category_ticks,
        fit_titles,
        heatmap,
        integer_ticks,
        plain_key,
        plain_metric,
    )

    tab = result.table(metric)
    text = tab["metric"].iloc[0]
    label = plain_metric(text, next(result.iter_outcomes()))
    exact = bool(tab["exact"].all())
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.2))
    if len(result.keys) == 1:
        (k,) = result.keys
        xs = list(tab[k])
        numeric = all(isinstance(x, int | float) and not isinstance(x, bool) for x in xs)
        pos = xs if numeric else list(range(len(xs)))
        # error bars only where some value is simulated: an exact line has none to draw
        yerr = None if exact else [tab["value"] - tab["ci_low"], tab["ci_high"] - tab["value"]]
        ax.errorbar(pos, tab["value"], yerr=yerr, marker="o", capsize=3)
        ax.set_xlabel(plain_key(k))
        ax.set_ylabel(label)
        ax.set_title(f"{label} (exact)" if exact else f"{label} (95% CI)")
        if not numeric:  # labels set last: they are laid out with the title and axis labels
            category_ticks(ax, [str(x) for x in xs])
        else:
            if all(float(x).is_integer() for x in xs):
                integer_ticks(ax.xaxis)  # a count is never ticked at 3.25
            fit_titles(ax)  # a long metric's title and axis label wrap, never cut off
        ax.grid(alpha=0.3)
        return ax
    if len(result.keys) != 2:
        raise ValueError("plot_sweep draws one varied key (line) or two (heatmap)")
    ky, kx = result.keys
    rows = list(dict.fromkeys(map(_hashable, tab[ky])))
    cols = list(dict.fromkeys(map(_hashable, tab[kx])))
    values = np.full((len(rows), len(cols)), np.nan)
    trials = np.zeros((len(rows), len(cols)), dtype=np.int64)
    for r, (y, x, v) in enumerate(zip(tab[ky], tab[kx], tab["value"], strict=True)):
        i, j = rows.index(_hashable(y)), cols.index(_hashable(x))
        values[i, j] = v
        trials[i, j] = result.results[r].trials
    n = "exact" if exact else f"{int(trials.max()):,} trials per cell"
    return heatmap(values, [str(v) for v in rows], [str(v) for v in cols], ax=ax,
                   trials=trials, probability=parse_metric(text).is_probability,
                   annotate=annotate, title=f"{label} ({n})", xlabel=plain_key(kx),
                   ylabel=plain_key(ky))  # fmt: skip


def _hashable(v: Any) -> Any:
    return repr(v) if isinstance(v, list | dict) else v
