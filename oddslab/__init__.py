"""oddslab: Monte Carlo and exact combat odds for tabletop wargames.

Quick use::

    import oddslab
    sc = oddslab.load("examples/generic-intercessors-vs-guardsmen.toml")
    out = oddslab.simulate(sc, trials=1_000_000, seed=1)
    out.probabilities(); out.at_least("models_slain")

Importing the package is light (numpy only): numba kernels load with the ruleset that needs
them (``GenericScenario`` and friends are imported on first use), pandas with the first
DataFrame, matplotlib with the first plot.
"""

from typing import Any

from oddslab._schema import ScenarioError
from oddslab.dice import DiceExpr, Die, Face
from oddslab.engine import Job, simulate
from oddslab.exact import exact
from oddslab.outcome import Headline, Outcome, Stat
from oddslab.plotting import plot_at_least, plot_compare, plot_pmf
from oddslab.pools import Pool, RollSpec, parse_roll
from oddslab.scenario import from_dict, load

__version__ = "0.1.0"


def examples_dir():
    """The folder of example scenarios shipped with the package (``oddslab examples``).

    ``oddslab.examples_dir() / "generic-intercessors-vs-guardsmen.toml"`` works from any
    working directory, installed or not; ``libraries/`` inside holds the unit libraries.
    """
    from pathlib import Path

    return Path(__file__).resolve().parent / "examples"


#: Names imported on first use (their modules import numba kernels).
_LAZY = {
    "GenericScenario": "oddslab.rulesets.generic",
    "Rules": "oddslab.rulesets.generic",
    "Target": "oddslab.rulesets.generic",
    "Weapon": "oddslab.rulesets.generic",
    # the analysis layer (pandas, matplotlib and dask load inside its functions)
    "sweep": "oddslab.analysis",
    "matchup": "oddslab.analysis",
    "efficiency": "oddslab.analysis",
    "fair_points": "oddslab.analysis",
    "duel_balance": "oddslab.analysis",
    # rosters from list-building apps (defusedxml loads inside)
    "import_roster": "oddslab.importers",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'oddslab' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "DiceExpr",
    "Die",
    "Face",
    "GenericScenario",
    "Headline",
    "Job",
    "Outcome",
    "Pool",
    "RollSpec",
    "Rules",
    "ScenarioError",
    "Stat",
    "Target",
    "Weapon",
    "__version__",
    "duel_balance",
    "efficiency",
    "exact",
    "examples_dir",
    "fair_points",
    "from_dict",
    "import_roster",
    "load",
    "matchup",
    "parse_roll",
    "plot_at_least",
    "plot_compare",
    "plot_pmf",
    "simulate",
    "sweep",
]
