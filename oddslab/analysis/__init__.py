"""The analysis layer: questions asked of many scenarios, for every ruleset.

- :mod:`~oddslab.analysis.libraries` — unit libraries with points; ``use = "lib.toml:entry"``.
- :mod:`~oddslab.analysis.sweep` — every combination of values of any scenario keys.
- :mod:`~oddslab.analysis.matchup` — attackers × targets matrices of any metric.
- :mod:`~oddslab.analysis.points` — efficiency per 100 points, fair points, duel balance.
- :mod:`~oddslab.analysis.distributed` / :mod:`~oddslab.analysis.store` — running cells
  in-process or on Dask, streaming them into a resumable store.

Everything works through scenario dicts (:func:`oddslab.scenario.from_dict`) and the ``Job``
protocol, so no ruleset has code here. Names are imported lazily (``oddslab.scenario`` imports
the library hook on every load, and must stay light).
"""

from __future__ import annotations

import importlib
from typing import Any

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

_WHERE = {
    "Library": "libraries",
    "LibraryEntry": "libraries",
    "load_library": "libraries",
    "shipped_libraries": "libraries",
    "sweep": "sweep",
    "SweepResult": "sweep",
    "plot_sweep": "sweep",
    "matchup": "matchup",
    "MatchupResult": "matchup",
    "plot_matchup": "matchup",
    "parse_metric": "metrics",
    "efficiency": "points",
    "fair_points": "points",
    "duel_balance": "duel",
    "basket_sensitivity": "points",
    "plot_efficiency": "points",
}


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f"oddslab.analysis.{_WHERE[name]}"), name)
    raise AttributeError(f"module 'oddslab.analysis' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
