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

import itertools
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from oddslab._format import csv_frame, format_estimate
from oddslab._schema import ScenarioError
from oddslab.analysis.cells import Cell, CellResult, cell_seed, with_paths
from oddslab.analysis.distributed import run_study
from oddslab.analysis.metrics import check_metric, common_primary, read_metric
from oddslab.libraries import expand_uses

if TYPE_CHECKING:  # pandas loads inside the functions: scenario loading stays light
    import pandas as pd

__all__ = ["sweep", "SweepResult", "plot_sweep", "read_scenario_dict", "parse_values"]


def read_scenario_dict(scenario: str | Path | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """(the scenario as a dict, its source name) from a path or a dict."""
    if isinstance(scenario, Mapping):
        return dict(scenario), "<dict>"
    if not isinstance(scenario, str | Path):
        raise TypeError(
            "sweep needs a scenario file or a scenario dict (what tomllib gives); "
            f"got {type(scenario).__name__}"
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
    cells : list of Cell
    results : list of CellResult
        One per cell, in cell order (the product of the values, first key slowest).
    seed : int
        The sweep's master seed.
    source : str
    metric : str or None
        The default metric of :meth:`table` and :meth:`plot` (the one given to :func:`sweep`).
    """

    keys: list[str]
    cells: list[Cell]
    results: list[CellResult]
    seed: int
    source: str = "<dict>"
    metric: str | None = None
    _outcomes: list[Any] = field(default_factory=list, repr=False)

    @property
    def outcomes(self) -> list[Any]:
        """One :class:`oddslab.outcome.Outcome` per cell."""
        if not self._outcomes:
            self._outcomes = [r.outcome() for r in self.results]
        return self._outcomes

    def primary(self) -> str:
        """The default metric: ``mean(<primary statistic>)``, of a statistic every cell reports.

        See :func:`oddslab.analysis.metrics.common_primary`.
        """
        return f"mean({common_primary(self.outcomes)})"

    def frame(self, stats: Iterable[str] | None = None) -> pd.DataFrame:
        """Tidy table: one row per cell and statistic.

        Columns: the varied keys, ``kind`` ("mean" or "probability"), ``statistic`` (a
        statistic's name), ``label`` (plain words: the statistic's label or the headline),
        ``value``, ``se``, ``ci_low``, ``ci_high`` (95%), ``trials``, ``seed``. Means of every
        statistic come first, then the headline probabilities.

        Parameters
        ----------
        stats : iterable of str, optional
            Keep only these statistics (by name).
        """
        import pandas as pd

        from oddslab.outcome import Z95

        keep = None if stats is None else set(stats)
        rows = []
        for cell, out in zip(self.cells, self.outcomes, strict=True):
            base = {k: cell.values[k] for k in self.keys}
            summ = out.summary()
            for s in out.stats:
                if keep is not None and s.name not in keep:
                    continue
                r = summ.loc[s.name]
                rows.append(
                    {
                        **base,
                        "kind": "mean",
                        "statistic": s.name,
                        "label": s.title,
                        "value": float(r["mean"]),
                        "se": float(r["se_mean"]),
                        "ci_low": float(r["mean"] - Z95 * r["se_mean"]),
                        "ci_high": float(r["mean"] + Z95 * r["se_mean"]),
                        "trials": out.trials,
                        "seed": cell.seed,
                    }
                )
            for r in out.probabilities().itertuples():
                if keep is not None and r.stat not in keep:
                    continue
                rows.append(
                    {
                        **base,
                        "kind": "probability",
                        "statistic": r.stat,
                        "label": r.label,
                        "value": float(r.probability),
                        "se": float(r.se),
                        "ci_low": float(r.ci_low),
                        "ci_high": float(r.ci_high),
                        "trials": out.trials,
                        "seed": cell.seed,
                    }
                )
        return pd.DataFrame(rows)

    def table(self, metric: str | None = None) -> pd.DataFrame:
        """One row per cell: the varied keys, then the metric's value, se, ci_low, ci_high, note.

        ``note`` says why a value is NaN (a cell whose scenario does not report the statistic).
        """
        import pandas as pd

        names = [", ".join(f"{k}={cell.values[k]}" for k in self.keys) for cell in self.cells]
        m = check_metric(metric or self.metric or self.primary(), names, self.outcomes)
        rows = []
        for cell, out in zip(self.cells, self.outcomes, strict=True):
            v, note = read_metric(m, out)
            rows.append(
                {
                    **{k: cell.values[k] for k in self.keys},
                    "metric": m.text,
                    "value": v.value,
                    "se": v.se,
                    "ci_low": v.ci_low,
                    "ci_high": v.ci_high,
                    "note": note,
                }
            )
        return pd.DataFrame(rows)

    def to_csv(self, path: str | Path | None = None) -> str:
        """The tidy :meth:`frame` as CSV; written to ``path`` if given, returned."""
        text = csv_frame(self.frame())
        if path is not None:
            Path(path).write_text(text)
        return text

    def to_parquet(self, path: str | Path) -> None:
        """The tidy :meth:`frame` as Parquet (needs pyarrow)."""
        df = self.frame()
        for k in self.keys:  # mixed-type value columns become text, Parquet needs one type
            if df[k].map(type).nunique() > 1:
                df[k] = df[k].astype(str)
        df.to_parquet(path, index=False)

    def plot(self, metric: str | None = None, ax: Any = None) -> Any:
        """:func:`plot_sweep` of this result."""
        return plot_sweep(self, metric, ax=ax)


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
    progress: Callable[[int, int], None] | None = None,
    batch: int = 1,
    metric: str | None = None,
) -> SweepResult:
    """Run a scenario at every combination of the values of some of its keys.

    Parameters
    ----------
    scenario : path or dict
        A scenario file, or a scenario as a dict (what ``tomllib`` gives).
    vary : mapping of dotted path → values
        ``{"target.save": range(2, 7), "attacker.weapons.0.models": [5, 10, 20]}``.
    trials : int, optional
        Trials per cell (default: the scenario's, else 1,000,000); with ``precision`` the
        ceiling per cell.
    seed : int, optional
        Master seed (default: the scenario's ``seed``, else fresh entropy, kept in the result).
    precision : float, optional
        Per-cell target 95% half-width of the headline probabilities.
    store, resume, workers, scheduler, progress, batch
        See :func:`oddslab.analysis.distributed.run_cells`.
    metric : str, optional
        The default metric of the result's table and plot; with ``precision``, a probability
        metric is also run to that precision.

    Returns
    -------
    SweepResult

    Raises
    ------
    ScenarioError
        A cell is not a valid scenario (the message names the cell and the key).
    """
    from oddslab._seeding import fresh_seed
    from oddslab.scenario import from_dict

    raw, source = read_scenario_dict(scenario)
    if not vary:
        raise ValueError("nothing to vary: give at least one key and its values")
    keys = list(vary)
    grids = []
    for k in keys:
        values = [_plain(v) for v in vary[k]]
        if not values:
            raise ScenarioError(source, k, "no values to vary over")
        grids.append(values)
    if seed is None:
        s = raw.get("seed")
        seed = s if isinstance(s, int) and not isinstance(s, bool) and s >= 0 else fresh_seed()
    base = Path(source).parent if source != "<dict>" else Path.cwd()
    expanded = expand_uses(raw, source, base)
    cells = []
    for combo in itertools.product(*grids):
        values = dict(zip(keys, combo, strict=True))
        where = f"{source} [{', '.join(f'{k}={v!r}' for k, v in values.items())}]"
        data = with_paths(raw, values, where, base)
        from_dict(data, source=where)  # every cell is validated before any runs
        cells.append(Cell(values, data, cell_seed(seed, values), where))
    results = run_study(
        "sweep",
        {"scenario": expanded, "seed": seed},
        cells,
        trials=trials,
        precision=precision,
        metric=metric,
        store=store,
        resume=resume,
        workers=workers,
        scheduler=scheduler,
        progress=progress,
        batch=batch,
    )
    return SweepResult(keys, cells, results, int(seed), source, metric)


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

    tab = result.table(metric)
    label = tab["metric"].iloc[0]
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.2))
    if len(result.keys) == 1:
        (k,) = result.keys
        xs = list(tab[k])
        numeric = all(isinstance(x, int | float) and not isinstance(x, bool) for x in xs)
        pos = xs if numeric else list(range(len(xs)))
        ax.errorbar(
            pos,
            tab["value"],
            yerr=[tab["value"] - tab["ci_low"], tab["ci_high"] - tab["value"]],
            marker="o",
            capsize=3,
        )
        if not numeric:
            ax.set_xticks(pos, [str(x) for x in xs])
        ax.set_xlabel(k)
        ax.set_ylabel(label)
        ax.set_title(f"{label} (95% CI)")
        ax.grid(alpha=0.3)
        return ax
    if len(result.keys) != 2:
        raise ValueError("plot_sweep draws one varied key (line) or two (heatmap)")
    ky, kx = result.keys
    grid = tab.pivot_table(index=ky, columns=kx, values="value", sort=False)
    _heatmap(ax, grid.to_numpy(), [str(v) for v in grid.index], [str(v) for v in grid.columns])
    if annotate:
        _annotate(ax, grid.to_numpy())
    ax.set_xlabel(kx)
    ax.set_ylabel(ky)
    ax.set_title(label)
    return ax


def _heatmap(ax: Any, values: np.ndarray, ylabels: list[str], xlabels: list[str]) -> None:
    im = ax.imshow(values, aspect="auto", cmap="viridis", origin="upper")
    ax.set_xticks(
        range(len(xlabels)),
        xlabels,
        rotation=45 if len(xlabels) > 6 else 0,
        ha="right" if len(xlabels) > 6 else "center",
    )
    ax.set_yticks(range(len(ylabels)), ylabels)
    ax.figure.colorbar(im, ax=ax)


def _annotate(ax: Any, values: np.ndarray, se: np.ndarray | None = None) -> None:
    finite = values[np.isfinite(values)]
    mid = (finite.min() + finite.max()) / 2 if finite.size else 0.0
    for i in range(values.shape[0]):
        for j in range(values.shape[1]):
            v = values[i, j]
            if not np.isfinite(v):
                continue
            text = f"{v:.3g}" if se is None else f"{format_estimate(v, se[i, j])}\n±{se[i, j]:.2g}"
            ax.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=7,
                color="black" if v > mid else "white",
            )
