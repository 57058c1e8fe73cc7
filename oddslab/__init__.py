"""oddslab: Monte Carlo and exact combat odds for tabletop wargames.

Quick use::

    import oddslab
    sc = oddslab.load("examples/generic-intercessors-vs-guardsmen.toml")
    out = oddslab.simulate(sc, trials=1_000_000, seed=1)
    out.probabilities(); out.at_least("models_slain")
"""

from oddslab._schema import ScenarioError
from oddslab.dice import DiceExpr, Die, Face
from oddslab.engine import Job, simulate
from oddslab.exact import exact
from oddslab.outcome import Headline, Outcome, Stat
from oddslab.plotting import plot_at_least, plot_compare, plot_pmf
from oddslab.pools import Pool, RollSpec, parse_roll
from oddslab.rulesets.generic import GenericScenario, Rules, Target, Weapon
from oddslab.scenario import from_dict, load

__version__ = "0.1.0"

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
    "exact",
    "from_dict",
    "load",
    "parse_roll",
    "plot_at_least",
    "plot_compare",
    "plot_pmf",
    "simulate",
]
