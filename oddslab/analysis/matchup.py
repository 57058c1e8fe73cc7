"""Matchup matrices: attackers × targets from unit libraries, any metric, raw or per 100 points.

A matchup fills a scenario *template* (by default the ``[matchup.template]`` of the attackers'
library) whose tables say ``use = "{attacker}"`` and ``use = "{target}"``, once per pair. When
a whole library is given (``generic.toml``) only the entries that fit a slot are used: an entry
that fails validation in every cell of its row (or column) is left out and listed in
:attr:`MatchupResult.skipped` (attacker profiles do not fit a target slot, and vice versa).
A pair of kept entries that still does not fit (a rifle platoon has no weapon that can
engage a tank) is not run: its value is NaN and :attr:`MatchupResult.unfit` says why.
Entries picked by a glob (``generic.toml:*squad*``) are read like a whole library's (a glob
that keeps none is an error); the notes say why in plain words
(:mod:`oddslab.analysis.left_out`). Entries named one by one (``generic.toml:conscripts``) on
both sides must fit: any error is raised (with a whole library on one side, an explicit entry must fit at least one cell); this
is decided entry by entry (a side may hold a whole library and named entries). An entry given
twice is an error naming it (:func:`select_entries`).

Rulesets report only the statistics a scenario can produce, so two cells may have different
statistics: the default metric is the mean of a statistic every cell reports (the cells'
primary statistic when they share it), and a cell without the metric's statistic is NaN with a
note (the ``note`` column of :meth:`MatchupResult.table`); a metric no cell has is an error.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._format import csv_frame
from oddslab._schema import ScenarioError
from oddslab.analysis.cell_events import study_metric
from oddslab.analysis.cells import KEEP_VALIDATED, Cell, CellResult
from oddslab.analysis.distributed import run_study
from oddslab.analysis.left_out import Side, check_globs, explain_left_out
from oddslab.analysis.matchup_cells import (
    SLOTS,
    MatchupCells,
    Unfit,
    pair_error,
    read_template,
    slot_overrides,
    template_mentions,
    validate_pairs,
)
from oddslab.analysis.matchup_cells import fill as _fill  # noqa: F401  (tests use this name)
from oddslab.analysis.matchup_table import table_chunks, table_columns
from oddslab.analysis.metric_cells import common_primary_of, outcome_of, result_pairs
from oddslab.analysis.metrics import check_metric, parse_metric
from oddslab.analysis.stored import StoredResults, run_streamed
from oddslab.libraries import (
    LibraryEntry,
    _ident,
    _name,
    _ref_items,
    entry_labels,
    entry_names,
    load_library,
    resolve_entries,
    resolved,
)

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = ["matchup", "MatchupResult", "plot_matchup", "select_entries", "SLOTS"]


@dataclass(frozen=True)
class Selection:
    """Entries for one side of a matchup and, for each, whether it was named one by one
    (``lib.toml:x``: it must fit) or came with a whole library or a glob (``lib.toml:*o*``:
    left out when it fits no pair). ``globs`` holds, per entry, the glob spec that picked it
    ("" for the others): a glob that keeps no entry is an error."""

    entries: list[LibraryEntry]
    named: tuple[bool, ...]
    globs: tuple[str, ...] = ()

    @property
    def explicit(self) -> bool:
        """Every entry was named one by one."""
        return all(self.named)


def select_entries(specs: Any, base: Path | None = None) -> Selection:
    """Library entries from a spec or a list of specs (see :func:`resolve_entries`).

    Raises
    ------
    ValueError
        An entry given twice, in one spec or two (a library and one of its entries, the same
        file by two paths, a glob and a name): a matchup never silently drops or repeats one.
    """
    if isinstance(specs, Selection):
        return specs
    if isinstance(specs, str | Path | LibraryEntry):
        specs = [specs]
    entries: list[LibraryEntry] = []
    named: list[bool] = []
    globs: list[str] = []
    given: dict[str, str] = {}
    for spec in specs:
        whole = isinstance(spec, str | Path) and (
            str(spec).endswith(".toml") or ":" not in str(spec)
        )
        picked = _globbed(spec, base) if isinstance(spec, str) and not whole else set()
        for e in resolve_entries(spec, base):
            if _ident(e) in given:
                raise ValueError(
                    f"{_name(e)} is given twice ('{given[_ident(e)]}' and '{spec}'): "
                    "give each entry once"
                )
            given[_ident(e)] = str(spec.ref if isinstance(spec, LibraryEntry) else spec)
            entries.append(e)
            named.append(not whole and _ident(e) not in picked)
            globs.append(str(spec) if _ident(e) in picked else "")
    if not entries:
        raise ValueError("no library entries were given")
    return Selection(entries, tuple(named), tuple(globs))


def _globbed(spec: str, base: Path | None) -> set[str]:
    """Identities of the entries a glob item of ``spec`` picks (``lib.toml:a,*squad*``)."""
    out: set[str] = set()
    for path, name in _ref_items(spec, base or Path.cwd()):
        if any(c in name for c in "*?["):
            lib = load_library(path, source=spec)
            out |= {_ident(e) for k, e in lib.entries.items() if fnmatch.fnmatchcase(k, name)}
    return out


@dataclass
class MatchupResult:
    """A finished matchup.

    Attributes
    ----------
    attackers, targets : list of LibraryEntry
        The rows and columns, in order.
    cells : sequence of Cell
        The pairs that ran, row-major (attacker slowest).
    results : sequence of CellResult
        One per cell. Lists for a matchup of up to
        :data:`~oddslab.analysis.cells.KEEP_VALIDATED` pairs; above, a
        :class:`~oddslab.analysis.matchup_cells.MatchupCells` made from the fit map and a
        :class:`~oddslab.analysis.stored.StoredResults` read from the store (the ``store``
        file, or a temporary one that lives as long as the result).
    metric : str
        The default metric of :meth:`matrix`, :meth:`table` and :func:`plot_matchup`.
    points : dict
        Entry name (``lib.toml:key``) → points of the unit as fielded, or None if unpriced.
    skipped : list of str
        Entries of whole libraries (or globs) that fit no cell of their side, with the
        reason in plain words: ``"lib.toml:x (target): not a target profile: ..."``.
    seed : int
    unfit : mapping
        ``(attacker name, target name)`` → why that pair was not run (its value is NaN).
    names : dict
        Entry identity (resolved library path:key) → its name (:func:`entry_names`).
    target_ppm : dict
        Target name → its points per model as fielded (for ``points_removed``), or None.
    events : tuple of str
        The events every cell answered (:mod:`oddslab.analysis.cell_events`).
    left_out : list of (str, str, str)
        :attr:`skipped` as (entry name, ``"attacker"`` or ``"target"``, reason), sorted
        (:func:`~oddslab.analysis.left_out.left_out_notes` makes the printed notes).
    """

    attackers: list[LibraryEntry]
    targets: list[LibraryEntry]
    cells: list[Cell]
    results: list[CellResult]
    metric: str
    points: dict[str, float | None]
    skipped: list[str] = field(default_factory=list)
    seed: int = 0
    unfit: Mapping[tuple[str, str], str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    target_ppm: dict[str, float | None] = field(default_factory=dict)
    events: tuple[str, ...] = ()
    left_out: list[tuple[str, str, str]] = field(default_factory=list)
    _outcomes: list[Any] = field(default_factory=list, repr=False)
    _labels: dict[str, str] = field(default_factory=dict, repr=False)

    def __repr__(self) -> str:  # a notebook shows this: a line, not every cell's counts
        return (
            f"MatchupResult({len(self.attackers)} attackers × {len(self.targets)} targets, "
            f"metric={self.metric!r}, {len(self.results)} cells, seed={self.seed})"
        )

    def name(self, e: LibraryEntry) -> str:
        """The entry's name in this matchup's tables (see :func:`entry_names`)."""
        return _name(e, self.names)

    def label(self, e: LibraryEntry) -> str:
        """The entry's label in matrices and plots: its ``name`` in words, and its name in
        tables after it when another entry here has the same words (two ``Conscripts`` of
        two libraries: ``Conscripts (a/units.toml:conscripts)``; see :func:`entry_labels`)."""
        if not self._labels:
            self._labels = entry_labels([*self.attackers, *self.targets], self.names)
        return self._labels.get(_ident(e), e.label)

    @property
    def outcomes(self) -> list[Any]:
        """One :class:`oddslab.outcome.Outcome` per cell (kept once built; for a big
        matchup use :meth:`iter_outcomes`)."""
        if not self._outcomes:
            self._outcomes = [r.outcome() for r in self.results]
        return self._outcomes

    def iter_outcomes(self) -> Iterator[Any]:
        """The outcomes one by one, built as they are read (not kept) for a big matchup."""
        if self._outcomes or len(self.results) <= KEEP_VALIDATED:
            yield from self.outcomes
            return
        for r in self.results:
            yield r.outcome()

    def _result_dicts(self) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
        """(cell values, result as a dict) in cell order (read from the store if big)."""
        return result_pairs(self.cells, self.results)

    def _metric(self, metric: str | None):
        names = (f"{c['attacker']} vs {c['target']}" for c, _ in self._result_dicts())
        outcomes = (outcome_of(d) for _, d in self._result_dicts())
        return _checked(metric or self.metric, names, outcomes)

    def table(self, metric: str | None = None, *, sort_by: str | None = None) -> pd.DataFrame:
        """One row per pair: attacker, target, points, value, se, 95% CI, per 100 points.

        Parameters
        ----------
        metric : str, optional
            Default :attr:`metric`.
        sort_by : str, optional
            A column to sort by, largest first (e.g. ``"per_100_points"``).
        """
        import pandas as pd

        parts = [pd.DataFrame(p) for p in self.table_chunks(metric)]
        df = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
        if sort_by is not None:
            if sort_by not in df.columns:
                raise ValueError(f"cannot sort by '{sort_by}'; columns: {', '.join(df.columns)}")
            df = df.sort_values(sort_by, ascending=False, kind="stable").reset_index(drop=True)
        return df

    def table_chunks(
        self, metric: str | None = None, chunk: int | None = None
    ) -> Iterator[dict[str, list[Any]]]:
        """The :meth:`table`'s columns, ``chunk`` pairs at a time, read off the results one
        by one without an Outcome each (:func:`~oddslab.analysis.matchup_table.table_chunks`)."""
        return table_chunks(self, metric, chunk)

    def matrix(
        self,
        metric: str | None = None,
        *,
        per_points: bool = False,
        se: bool = False,
        table: pd.DataFrame | None = None,
    ) -> pd.DataFrame:
        """Attackers (rows) × targets (columns) of the metric (or its SE with ``se=True``).

        ``table``: this matchup's :meth:`table` for ``metric`` when the caller already has it;
        without it only the one column is read (a float per pair, never the whole table)."""
        import pandas as pd

        col = ("per_100_points" if per_points else "value") + ("_se" if se and per_points else "")
        if se and not per_points:
            col = "se"
        if table is None:
            values = table_columns(self, [col], metric)[col]
            grid = pd.DataFrame(values.reshape(len(self.attackers), len(self.targets)))
        else:
            grid = table.pivot(index="attacker", columns="target", values=col)
            grid = grid.loc[
                [self.name(e) for e in self.attackers], [self.name(e) for e in self.targets]
            ]
        grid.index = [self.label(e) for e in self.attackers]
        grid.columns = [self.label(e) for e in self.targets]
        grid.index.name, grid.columns.name = "attacker", "target"
        return grid

    def to_csv(self, path: str | Path | None = None, metric: str | None = None) -> str:
        """The long :meth:`table` as CSV; written to ``path`` if given, returned.

        A matchup of more than :data:`~oddslab.analysis.cells.KEEP_VALIDATED` pairs with a
        ``path`` is written a chunk of pairs at a time (never the whole table) and ``""`` is
        returned.
        """
        if path is not None and isinstance(self.results, StoredResults):
            from oddslab.analysis.frames import write_csv

            write_csv(self.table_chunks(metric), path)
            return ""
        text = csv_frame(self.table(metric))
        if path is not None:
            Path(path).write_text(text)
        return text

    def plot(self, metric: str | None = None, *, per_points: bool = False, ax: Any = None) -> Any:
        return plot_matchup(self, metric, per_points=per_points, ax=ax)


def matchup(
    attackers: Any,
    targets: Any,
    *,
    metric: str | None = None,
    template: Mapping[str, Any] | str | Path | None = None,
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
    events: Any = (),
) -> MatchupResult:
    """Run every attacker against every target.

    Parameters
    ----------
    attackers, targets : str, Path, LibraryEntry or a list of them
        A library file (its entries that fit the slot), ``"lib.toml:entry"``,
        ``"lib.toml:a,b"``, ``"lib.toml:*squad*"``.
    metric : str, optional
        Default metric of the result (``"P(models_slain >= 5)"``, ``"mean(damage)"``,
        ``"P(attacker wins)"``...); default ``mean(<primary statistic>)``. With ``precision``,
        a probability metric is run to that precision too (besides the headlines).
    template : dict or path, optional
        A scenario with ``use = "{attacker}"`` / ``use = "{target}"`` tables; default the
        ``[matchup.template]`` of the first attacker's library. Relative ``use`` paths in a
        template dict are relative to the current folder; in a file, to the file.
    trials, seed, precision, store, resume, workers, scheduler, progress, batch, exact,
    dashboard
        As :func:`oddslab.analysis.sweep.sweep`. The default seed is the template's ``seed``,
        else 1 (so matrices are reproducible). Ctrl-C raises
        :class:`~oddslab.analysis.interrupted.StudyInterrupted` with the finished cells.
    events : str or iterable of str, optional
        Events every cell answers, as :func:`~oddslab.analysis.sweep.sweep`.
    """
    events, metric = study_metric(events, metric)

    att = select_entries(attackers)
    tgt = select_entries(targets)
    names = entry_names([*att.entries, *tgt.entries])

    def nm(e: LibraryEntry) -> str:
        return _name(e, names)

    tpl, tpl_source, tpl_base = read_template(template, att.entries[0])
    for slot in SLOTS:
        if not template_mentions(tpl, slot):
            raise ScenarioError(tpl_source, "", f'the matchup template has no use = "{slot}"')
    if seed is None:
        s = tpl.get("seed")
        seed = s if isinstance(s, int) and not isinstance(s, bool) and s >= 0 else 1
    small = len(att.entries) * len(tgt.entries) <= KEEP_VALIDATED
    refs = ([_abs_ref(e) for e in att.entries], [_abs_ref(e) for e in tgt.entries])
    labels = ([nm(e) for e in att.entries], [nm(e) for e in tgt.entries])
    why, reasons, cells = validate_pairs(tpl, tpl_source, tpl_base, refs, labels, int(seed),
                                         keep=small)  # fmt: skip
    fits = why < 0

    def error(i: int, j: int) -> Exception:
        return pair_error(tpl, tpl_source, tpl_base, refs[0][i], refs[1][j],
                          (labels[0][i], labels[1][j]))  # fmt: skip

    # an entry of a whole library (or a glob) that fits no pair is left out (and listed); a
    # named entry is always kept (entries of both kinds may share a side: a basket of a
    # library and named targets)
    named_a, named_t = np.array(att.named, bool), np.array(tgt.named, bool)
    rows = [int(i) for i in np.flatnonzero(fits.any(axis=1) | named_a)]
    cols = [int(j) for j in np.flatnonzero(fits.any(axis=0) | named_t)]
    sides = (Side(att, rows, labels[0], refs[0]), Side(tgt, cols, labels[1], refs[1]))
    left_out = explain_left_out(sides, why, reasons, tpl, tpl_source, tpl_base)
    check_globs(sides, left_out, fits, tpl, tpl_source, tpl_base)  # a glob keeping nothing
    if not rows or not cols:  # nothing fits: a named entry's own error says most
        mine = ~fits & (named_a[:, None] | named_t[None, :])
        if mine.any():
            raise error(*np.argwhere(mine)[0])
        first = next(iter(np.argwhere(~fits)), None)
        first = None if first is None else error(*first)
        raise ScenarioError(tpl_source, "", f"no attacker/target pair fits the template ({first})")
    sub = fits[np.ix_(rows, cols)]
    na, nt = named_a[rows], named_t[cols]
    # a named entry that fits nothing kept on the other side (or a pair of two named
    # entries that does not fit) is the user's mistake: raise the first such pair's error
    bad = ~sub & (
        (na[:, None] & nt[None, :])
        | (na & ~sub.any(axis=1))[:, None]
        | (nt & ~sub.any(axis=0))[None, :]
    )
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise error(rows[r], cols[c])
    att_kept = [att.entries[i] for i in rows]
    tgt_kept = [tgt.entries[j] for j in cols]
    kept_names = ([labels[0][i] for i in rows], [labels[1][j] for j in cols])
    unfit = Unfit(why[np.ix_(rows, cols)], reasons, kept_names)
    points = {}
    over_a = slot_overrides(tpl, SLOTS[0])
    over_t = slot_overrides(tpl, SLOTS[1])
    for e in att_kept:
        points[nm(e)] = e.points(over_a)
    target_ppm = {}
    for e in tgt_kept:
        points.setdefault(nm(e), e.points(over_t))
        target_ppm[nm(e)] = _points_per_model(e, over_t)
    study = dict(keys=("attacker", "target"), seed=int(seed), trials=trials, precision=precision,
                 metric=metric, exact=exact, events=events)  # fmt: skip
    run = dict(resume=resume, workers=workers, scheduler=scheduler, progress=progress,
               batch=batch, dashboard=dashboard)  # fmt: skip
    if small:
        order: Any = [cells[(i, j)] for i in rows for j in cols if (i, j) in cells]
        results: Any = run_study("matchup", {"template": tpl}, order, store=store, **study, **run)
    else:  # a big matchup: cells made as they run, results only in the store
        order = MatchupCells(tpl, tpl_source, tpl_base, ([refs[0][i] for i in rows],
                             [refs[1][j] for j in cols]), kept_names, sub, int(seed))  # fmt: skip
        results = run_streamed("matchup", {"template": tpl}, order, store, study, run)
    res = MatchupResult(
        att_kept, tgt_kept, order, results, "", points, [f"{n} ({side}): {why}" for n, side, why
        in left_out], int(seed), unfit, names, target_ppm, events, left_out=left_out,
    )  # fmt: skip
    if metric is None:
        metric = f"mean({common_primary_of(d for _, d in res._result_dicts())})"
    res.metric = res._metric(metric).text
    return res


def _checked(metric: str, names: Any, outcomes: Any):
    """:func:`check_metric`, which also knows ``points_removed`` (read with the targets)."""
    m = parse_metric(metric)
    return m if m.kind == "points_removed" else check_metric(metric, names, outcomes)


def _points_per_model(e: LibraryEntry, overrides: dict[str, Any]) -> float | None:
    """The target's points per model as fielded: its points over its ``models`` (None when
    it has no points or no integer ``models``)."""
    pts = e.points(overrides)
    models = {**e.profile(), **{k: v for k, v in overrides.items() if k != "use"}}.get("models")
    if pts is None or isinstance(models, bool) or not isinstance(models, int) or models < 1:
        return None
    return pts / models


def _abs_ref(e: LibraryEntry) -> str:
    return f"{resolved(e.library)}:{e.key}"


def plot_matchup(
    result: MatchupResult,
    metric: str | None = None,
    *,
    per_points: bool = False,
    ax: Any = None,
    annotate: bool = True,
) -> Any:
    """Annotated heatmap of a matchup matrix (value and ± SE in every cell).

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt
    import pandas as pd

    from oddslab.analysis.plots import heatmap, plain_metric

    # the four columns of the table it draws, read once (never the whole table)
    val, err = ("per_100_points", "per_100_points_se") if per_points else ("value", "se")
    tab = table_columns(result, [val, err, "trials", "exact"], metric)
    shape = (len(result.attackers), len(result.targets))
    values = pd.DataFrame(tab[val].reshape(shape),
                          index=[result.label(e) for e in result.attackers],
                          columns=[result.label(e) for e in result.targets])  # fmt: skip
    ses = tab[err].reshape(shape)
    trials = tab["trials"].reshape(shape)
    if ax is None:  # room for a value and its SE in each cell (the labels get theirs)
        w = min(16.0, max(5.0, 1.1 * values.shape[1] + 3))
        h = min(12.0, max(3.5, 0.6 * values.shape[0] + 2))
        _, ax = plt.subplots(figsize=(w, h))
    m = parse_metric(metric or result.metric)
    label = plain_metric(m.text, next(result.iter_outcomes(), None))
    per = " per 100 points of the attacker" if per_points else ""
    n = "exact" if tab["exact"].all() else f"{int(tab['trials'].max()):,} trials per cell"
    return heatmap(values.to_numpy(float), list(values.index), list(values.columns), ax=ax,
                   se=ses.astype(float), trials=trials,
                   probability=m.is_probability and not per_points, annotate=annotate,
                   title=f"{label}{per} ({n})", xlabel="target", ylabel="attacker")  # fmt: skip
