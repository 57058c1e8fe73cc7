"""The analysis layer: questions asked of many scenarios, for every ruleset.

- :mod:`~oddslab.libraries` (in the core, re-exported here) — unit libraries with points;
  ``use = "lib.toml:entry"``.
- :mod:`~oddslab.analysis.sweep` — every combination of values of any scenario keys.
- :mod:`~oddslab.analysis.matchup` — attackers × targets matrices of any metric.
- :mod:`~oddslab.analysis.metrics` — "mean(stat)", "P(stat >= k)", headline labels, events
  ("P(clean win)", "P(a >= 1 and b == 0)").
- :mod:`~oddslab.analysis.cell_events` — events (``--event``) checked before a study runs and
  answered in each cell's run.
- :mod:`~oddslab.analysis.points` — efficiency per 100 points, fair points, basket sensitivity.
- :mod:`~oddslab.analysis.baskets` — baskets of targets: their weights, a unit's weighted value.
- :mod:`~oddslab.analysis.duel` — the size at which P(A beats B) = 50%.
- :mod:`~oddslab.analysis.cells` — one scenario + seed → plain results.
- :mod:`~oddslab.analysis.distributed` / :mod:`~oddslab.analysis.dask_run` /
  :mod:`~oddslab.analysis.store` — running cells in-process or on Dask, streaming them into a
  resumable store.
- :mod:`~oddslab.analysis.stored` / :mod:`~oddslab.analysis.frames` — a big sweep's cells and
  results read from its grids and store (nothing per cell in memory), and tidy frames built
  vectorised, a chunk of cells at a time; :mod:`~oddslab.analysis.matchup_cells` — a
  matchup's pairs as a fit map and cells made when read; :mod:`~oddslab.analysis.metric_cells`
  — a metric read off many stored cells without an Outcome each.
- :mod:`~oddslab.analysis.cli` (with ``cli_common``, ``cli_points``) — the ``sweep``,
  ``matchup``, ``points``, ``library`` and ``store`` commands.

Everything works through scenario dicts (:func:`oddslab.scenario.from_dict`) and the ``Job``
protocol, so no ruleset has code here. Importing is light: the package loads each public
name's submodule on first use, and pandas, numba kernels, matplotlib and dask load inside the
functions that need them, because ``oddslab.scenario`` imports the library hook on every load
and the command line registers the analysis commands on every run.

The functions ``sweep`` and ``matchup`` are bound here over the submodules of the same name:
``from oddslab.analysis import sweep`` is the function; import from the modules with
``from oddslab.analysis.sweep import SweepResult``.
"""

from __future__ import annotations

import importlib
import sys
import types

#: Where each public name lives. Loaded on first use (PEP 562): ``oddslab.scenario`` (the
#: library hook) and the command line import this package on every run, and importing every
#: submodule up front cost about 40 ms of each warm ``oddslab simulate``.
_WHERE = {
    "duel_balance": "duel",
    "Library": "oddslab.libraries",  # the core: read with every scenario
    "LibraryEntry": "oddslab.libraries",  # the core: read with every scenario
    "load_library": "oddslab.libraries",  # the core: read with every scenario
    "shipped_libraries": "oddslab.libraries",  # the core: read with every scenario
    "MatchupResult": "matchup",
    "matchup": "matchup",
    "plot_matchup": "matchup",
    "parse_metric": "metrics",
    "basket_sensitivity": "points",
    "efficiency": "points",
    "fair_points": "points",
    "plot_efficiency": "points",
    "StudyInterrupted": "interrupted",
    "SweepResult": "sweep",
    "plot_sweep": "sweep",
    "sweep": "sweep",
}
__all__ = list(_WHERE)


def __getattr__(name: str):
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = where if where.startswith("oddslab.") else f"{__name__}.{where}"
    value = getattr(importlib.import_module(module), name)
    setattr(sys.modules[__name__], name, value)
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE})


class _Package(types.ModuleType):
    """Keeps ``sweep`` and ``matchup`` the functions: importing the submodule of the same name
    would otherwise replace the package's attribute with the module (as an eager import
    followed by binding the function never did)."""

    def __setattr__(self, name: str, value) -> None:
        if isinstance(value, types.ModuleType) and _WHERE.get(name) == name:
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
