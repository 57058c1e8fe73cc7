"""Matchup matrices: attackers × targets from unit libraries, any metric, raw or per 100 points.

A matchup fills a scenario *template* (by default the ``[matchup.template]`` of the attackers'
library) whose tables say ``use = "{attacker}"`` and ``use = "{target}"``, once per pair. When
a whole library is given (``generic.toml``) only the entries that fit a slot are used: an entry
that fails validation in every cell of its row (or column) is left out and listed in
:attr:`MatchupResult.skipped` (attacker profiles do not fit a target slot, and vice versa).
A pair of kept entries that still does not fit (a rifle platoon has no weapon that can
engage a tank) is not run: its value is NaN and :attr:`MatchupResult.unfit` says why.
Entries named explicitly (``generic.toml:conscripts``) on both sides must fit: any error is
raised (with a whole library on one side, an explicit entry must fit at least one cell).

Rulesets report only the statistics a scenario can produce, so two cells may have different
statistics: the default metric is the mean of a statistic every cell reports (the cells'
primary statistic when they share it), and a cell without the metric's statistic is NaN with a
note (the ``note`` column of :meth:`MatchupResult.table`); a metric no cell has is an error.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from oddslab._format import csv_frame
from oddslab._schema import ScenarioError
from oddslab.analysis.cell_events import study_metric
from oddslab.analysis.cells import Cell, CellResult, cell_seed
from oddslab.analysis.distributed import run_study
from oddslab.analysis.metrics import (
    check_metric,
    common_primary,
    parse_metric,
    points_removed,
    read_metric,
)
from oddslab.libraries import (
    LibraryEntry,
    _ident,
    _name,
    entry_names,
    expand_uses,
    load_library,
    resolve_entries,
    resolved,
)

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = ["matchup", "MatchupResult", "plot_matchup", "select_entries", "SLOTS"]

#: Placeholders of a matchup template.
SLOTS = ("{attacker}", "{target}")


@dataclass(frozen=True)
class Selection:
    """Entries for one side of a matchup, and whether they were named one by one."""

    entries: list[LibraryEntry]
    explicit: bool


def select_entries(specs: Any, base: Path | None = None) -> Selection:
    """Library entries from a spec or a list of specs (see :func:`resolve_entries`)."""
    if isinstance(specs, str | Path | LibraryEntry):
        specs = [specs]
    entries: list[LibraryEntry] = []
    explicit = True
    for spec in specs:
        if isinstance(spec, str | Path) and (str(spec).endswith(".toml") or ":" not in str(spec)):
            explicit = False
        for e in resolve_entries(spec, base):
            if all(_ident(e) != _ident(x) for x in entries):
                entries.append(e)
    if not entries:
        raise ValueError("no library entries were given")
    return Selection(entries, explicit)


def _fill(node: Any, refs: dict[str, str]) -> Any:
    if isinstance(node, dict):
        return {k: _fill(v, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [_fill(v, refs) for v in node]
    if isinstance(node, str) and node in refs:
        return refs[node]
    return node


def _slot_overrides(template: Any, slot: str) -> dict[str, Any]:
    """The other keys of the template table that says ``use = slot`` (for pricing)."""
    if isinstance(template, dict):
        if template.get("use") == slot:
            return {k: v for k, v in template.items() if k != "use"}
        for v in template.values():
            found = _slot_overrides(v, slot)
            if found:
                return found
    elif isinstance(template, list):
        for v in template:
            found = _slot_overrides(v, slot)
            if found:
                return found
    return {}


@dataclass
class MatchupResult:
    """A finished matchup.

    Attributes
    ----------
    attackers, targets : list of LibraryEntry
        The rows and columns, in order.
    cells : list of Cell
        Row-major (attacker slowest).
    results : list of CellResult
    metric : str
        The default metric of :meth:`matrix`, :meth:`table` and :func:`plot_matchup`.
    points : dict
        Entry name (``lib.toml:key``) → points of the unit as fielded, or None if unpriced.
    skipped : list of str
        Entries of whole libraries that fit no cell of their side, with the reason.
    seed : int
    unfit : dict
        ``(attacker name, target name)`` → why that pair was not run (its value is NaN).
    names : dict
        Entry identity (resolved library path:key) → its name (:func:`entry_names`).
    target_ppm : dict
        Target name → its points per model as fielded (for ``points_removed``), or None.
    events : tuple of str
        The events every cell answered (:mod:`oddslab.analysis.cell_events`).
    """

    attackers: list[LibraryEntry]
    targets: list[LibraryEntry]
    cells: list[Cell]
    results: list[CellResult]
    metric: str
    points: dict[str, float | None]
    skipped: list[str] = field(default_factory=list)
    seed: int = 0
    unfit: dict[tuple[str, str], str] = field(default_factory=dict)
    names: dict[str, str] = field(default_factory=dict)
    target_ppm: dict[str, float | None] = field(default_factory=dict)
    events: tuple[str, ...] = ()
    _outcomes: list[Any] = field(default_factory=list, repr=False)

    def name(self, e: LibraryEntry) -> str:
        """The entry's name in this matchup's tables (see :func:`entry_names`)."""
        return _name(e, self.names)

    @property
    def outcomes(self) -> list[Any]:
        if not self._outcomes:
            self._outcomes = [r.outcome() for r in self.results]
        return self._outcomes

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

        names = [f"{c.values['attacker']} vs {c.values['target']}" for c in self.cells]
        m = _checked(metric or self.metric, names, self.outcomes)
        ran = {
            (c.values["attacker"], c.values["target"]): (c, o)
            for c, o in zip(self.cells, self.outcomes, strict=True)
        }
        rows = []
        for a in (self.name(e) for e in self.attackers):
            for t in (self.name(e) for e in self.targets):
                pts = self.points.get(a)
                scale = 100.0 / pts if pts else float("nan")
                row = {
                    "attacker": a,
                    "target": t,
                    "attacker_label": self._label(a),
                    "target_label": self._label(t),
                    "attacker_points": pts,
                    "metric": m.text,
                }
                if (a, t) not in ran:
                    nan = float("nan")
                    seed = cell_seed(self.seed, {"attacker": a, "target": t})  # it would have
                    row.update(value=nan, se=nan, ci_low=nan, ci_high=nan, per_100_points=nan,
                               per_100_points_se=nan, trials=0, seed=seed, exact=False)  # fmt: skip
                    row["note"] = f"not run: {self.unfit.get((a, t), 'does not fit')}"
                    rows.append(row)
                    continue
                cell, out = ran[(a, t)]
                if m.kind == "points_removed":
                    v, note = points_removed(out, self.target_ppm.get(t))
                else:
                    v, note = read_metric(m, out)
                row.update(
                    value=v.value,
                    se=v.se,
                    ci_low=v.ci_low,
                    ci_high=v.ci_high,
                    per_100_points=v.value * scale,
                    per_100_points_se=v.se * scale,
                    trials=out.trials or 0,
                    seed=cell.seed,
                    exact=out.exact,
                    note=note,
                )
                rows.append(row)
        df = pd.DataFrame(rows)
        if sort_by is not None:
            if sort_by not in df.columns:
                raise ValueError(f"cannot sort by '{sort_by}'; columns: {', '.join(df.columns)}")
            df = df.sort_values(sort_by, ascending=False, kind="stable").reset_index(drop=True)
        return df

    def _label(self, name: str) -> str:
        for e in (*self.attackers, *self.targets):
            if self.name(e) == name:
                return e.label
        return name

    def matrix(
        self, metric: str | None = None, *, per_points: bool = False, se: bool = False
    ) -> pd.DataFrame:
        """Attackers (rows) × targets (columns) of the metric (or its SE with ``se=True``)."""
        tab = self.table(metric)
        col = ("per_100_points" if per_points else "value") + ("_se" if se and per_points else "")
        if se and not per_points:
            col = "se"
        grid = tab.pivot(index="attacker", columns="target", values=col)
        grid = grid.loc[
            [self.name(e) for e in self.attackers], [self.name(e) for e in self.targets]
        ]
        grid.index = [e.label for e in self.attackers]
        grid.columns = [e.label for e in self.targets]
        grid.index.name, grid.columns.name = "attacker", "target"
        return grid

    def to_csv(self, path: str | Path | None = None, metric: str | None = None) -> str:
        """The long :meth:`table` as CSV; written to ``path`` if given, returned."""
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
        else 1 (so matrices are reproducible).
    events : str or iterable of str, optional
        Events every cell answers, as :func:`~oddslab.analysis.sweep.sweep`.
    """
    from oddslab.scenario import from_dict

    events, metric = study_metric(events, metric)

    att = select_entries(attackers)
    tgt = select_entries(targets)
    names = entry_names([*att.entries, *tgt.entries])

    def nm(e: LibraryEntry) -> str:
        return _name(e, names)

    tpl, tpl_source, tpl_base = _template(template, att.entries[0])
    for slot in SLOTS:
        if not _mentions(tpl, slot):
            raise ScenarioError(tpl_source, "", f'the matchup template has no use = "{slot}"')
    if seed is None:
        s = tpl.get("seed")
        seed = s if isinstance(s, int) and not isinstance(s, bool) and s >= 0 else 1
    cells: dict[tuple[int, int], Cell] = {}
    errors: dict[tuple[int, int], ScenarioError] = {}
    for i, a in enumerate(att.entries):
        for j, t in enumerate(tgt.entries):
            values = {"attacker": nm(a), "target": nm(t)}
            where = f"{tpl_source} [{values['attacker']} vs {values['target']}]"
            filled = _fill(copy.deepcopy(tpl), {SLOTS[0]: _abs_ref(a), SLOTS[1]: _abs_ref(t)})
            try:
                data = copy.deepcopy(expand_uses(filled, where, tpl_base))
                sc = from_dict(data, source=where)
            except ScenarioError as exc:
                errors[(i, j)] = exc
                continue
            cells[(i, j)] = Cell(values, data, cell_seed(seed, values), where, sc)
    rows = [
        i for i in range(len(att.entries)) if any((i, j) in cells for j in range(len(tgt.entries)))
    ]
    cols = [
        j for j in range(len(tgt.entries)) if any((i, j) in cells for i in range(len(att.entries)))
    ]
    skipped = []
    if not att.explicit:
        for i in set(range(len(att.entries))) - set(rows):
            skipped.append(f"{nm(att.entries[i])} (attacker): {_first_error(errors, i, None)}")
    if not tgt.explicit:
        for j in set(range(len(tgt.entries))) - set(cols):
            skipped.append(f"{nm(tgt.entries[j])} (target): {_first_error(errors, None, j)}")
    if att.explicit:
        rows = list(range(len(att.entries)))
    if tgt.explicit:
        cols = list(range(len(tgt.entries)))
    unfit: dict[tuple[str, str], str] = {}
    for i in rows:
        for j in cols:
            if (i, j) not in errors:
                continue
            exc = errors[(i, j)]
            alone = (att.explicit and not any((i, b) in cells for b in cols)) or (
                tgt.explicit and not any((a, j) in cells for a in rows)
            )
            if (att.explicit and tgt.explicit) or alone:
                raise exc
            reason = f"{exc.key}: {exc.problem}" if exc.key else exc.problem
            unfit[(nm(att.entries[i]), nm(tgt.entries[j]))] = reason
    if not rows or not cols:
        first = next(iter(errors.values()), None)
        raise ScenarioError(tpl_source, "", f"no attacker/target pair fits the template ({first})")
    att_kept = [att.entries[i] for i in rows]
    tgt_kept = [tgt.entries[j] for j in cols]
    order = [cells[(i, j)] for i in rows for j in cols if (i, j) in cells]
    points = {}
    over_a = _slot_overrides(tpl, SLOTS[0])
    over_t = _slot_overrides(tpl, SLOTS[1])
    for e in att_kept:
        points[nm(e)] = e.points(over_a)
    target_ppm = {}
    for e in tgt_kept:
        points.setdefault(nm(e), e.points(over_t))
        target_ppm[nm(e)] = _points_per_model(e, over_t)
    results = run_study(
        "matchup",
        {"template": tpl},
        order,
        keys=("attacker", "target"),
        seed=int(seed),
        trials=trials,
        precision=precision,
        metric=metric,
        store=store,
        resume=resume,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        batch=batch,
        exact=exact,
        dashboard=dashboard,
        events=events,
    )
    res = MatchupResult(
        att_kept, tgt_kept, order, results, "", points, sorted(skipped), int(seed), unfit, names,
        target_ppm, events,
    )  # fmt: skip
    if metric is None:
        metric = f"mean({common_primary(res.outcomes)})"
    names = [f"{c.values['attacker']} vs {c.values['target']}" for c in order]
    res.metric = _checked(metric, names, res.outcomes).text
    return res


def _checked(metric: str, names: list[str], outcomes: list[Any]):
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


def _mentions(node: Any, slot: str) -> bool:
    if isinstance(node, dict):
        return any(_mentions(v, slot) for v in node.values())
    if isinstance(node, list):
        return any(_mentions(v, slot) for v in node)
    return node == slot


def _first_error(errors: dict, i: int | None, j: int | None) -> str:
    for (a, b), exc in errors.items():
        if (i is None or a == i) and (j is None or b == j):
            return f"{exc.key}: {exc.problem}" if exc.key else exc.problem
    return "does not fit"


def _template(
    template: Mapping[str, Any] | str | Path | None, first: LibraryEntry
) -> tuple[dict[str, Any], str, Path]:
    if template is None:
        lib = load_library(first.library)
        if lib.template is None:
            raise ScenarioError(
                str(lib.path), "matchup.template", "this library has no [matchup.template]"
            )
        return copy.deepcopy(lib.template), f"{lib.path}:matchup.template", lib.path.parent
    if isinstance(template, Mapping):
        return copy.deepcopy(dict(template)), "<template>", Path.cwd()
    from oddslab.analysis.sweep import read_scenario_dict

    data, source = read_scenario_dict(template)
    if isinstance(data.get("matchup"), dict) and "template" in data["matchup"]:
        data = data["matchup"]["template"]
    return data, source, Path(source).parent


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

    from oddslab.analysis.plots import heatmap, plain_metric

    values = result.matrix(metric, per_points=per_points)
    ses = result.matrix(metric, per_points=per_points, se=True)
    tab = result.table(metric)
    grid = tab.pivot(index="attacker", columns="target", values="trials")
    trials = grid.loc[[result.name(e) for e in result.attackers],
                      [result.name(e) for e in result.targets]].to_numpy()  # fmt: skip
    if ax is None:
        w = max(5.0, 1.1 * values.shape[1] + 3)
        h = max(3.5, 0.6 * values.shape[0] + 2)
        _, ax = plt.subplots(figsize=(w, h))
    m = parse_metric(metric or result.metric)
    heatmap(ax, values.to_numpy(float), list(values.index), list(values.columns),
            se=ses.to_numpy(float), trials=trials, probability=m.is_probability and not per_points,
            annotate=annotate)  # fmt: skip
    label = plain_metric(m.text, result.outcomes[0] if result.outcomes else None)
    per = " per 100 points of the attacker" if per_points else ""
    n = "exact" if tab["exact"].all() else f"{int(tab['trials'].max()):,} trials per cell"
    ax.set_title(f"{label}{per} ({n})")
    ax.set_xlabel("target")
    ax.set_ylabel("attacker")
    return ax
