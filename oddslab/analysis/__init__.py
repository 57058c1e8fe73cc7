"""The analysis layer: questions asked of many scenarios, for every ruleset.

- :mod:`~oddslab.analysis.libraries` — unit libraries with points; ``use = "lib.toml:entry"``.
- :mod:`~oddslab.analysis.sweep` — every combination of values of any scenario keys.
- :mod:`~oddslab.analysis.matchup` — attackers × targets matrices of any metric.
- :mod:`~oddslab.analysis.metrics` — "mean(stat)", "P(stat >= k)", headline labels.
- :mod:`~oddslab.analysis.points` — efficiency per 100 points, fair points, basket sensitivity.
- :mod:`~oddslab.analysis.duel` — the size at which P(A beats B) = 50%.
- :mod:`~oddslab.analysis.cells` — one scenario + seed → plain results.
- :mod:`~oddslab.analysis.distributed` / :mod:`~oddslab.analysis.store` — running cells
  in-process or on Dask, streaming them into a resumable store.
- :mod:`~oddslab.analysis.cli` — the ``sweep``, ``matchup``, ``points``, ``library`` commands.

Everything works through scenario dicts (:func:`oddslab.scenario.from_dict`) and the ``Job``
protocol, so no ruleset has code here. Importing is light (pandas is already loaded by oddslab;
numba kernels, matplotlib and dask load inside the functions that need them), because
``oddslab.scenario`` imports the library hook on every load.

The functions ``sweep`` and ``matchup`` are bound here over the submodules of the same name:
``from oddslab.analysis import sweep`` is the function; import from the modules with
``from oddslab.analysis.sweep import SweepResult``.
"""

from __future__ import annotations

from oddslab.analysis.duel import duel_balance
from oddslab.analysis.libraries import Library, LibraryEntry, load_library, shipped_libraries
from oddslab.analysis.matchup import MatchupResult, matchup, plot_matchup
from oddslab.analysis.metrics import parse_metric
from oddslab.analysis.points import basket_sensitivity, efficiency, fair_points, plot_efficiency
from oddslab.analysis.sweep import SweepResult, plot_sweep, sweep

__all__ = [
    "Library",
    "LibraryEntry",
    "load_library",
    "shipped_libraries",
    "sweep",
    "SweepResult",
    "plot_sweep",
    "matchup",
    "MatchupResult",
    "plot_matchup",
    "parse_metric",
    "efficiency",
    "fair_points",
    "duel_balance",
    "basket_sensitivity",
    "plot_efficiency",
]
