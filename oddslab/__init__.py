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
from oddslab.outcome import Headline, Outcome, Stat
from oddslab.plotting import plot_at_least, plot_compare, plot_pmf
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
    "Rules",
    "ScenarioError",
    "Stat",
    "Target",
    "Weapon",
    "__version__",
    "exact",
    "from_dict",
    "load",
    "plot_at_least",
    "plot_compare",
    "plot_pmf",
    "simulate",
]


def exact(scenario):  # noqa: D401 - thin lazy wrapper
    """Exact outcome of a scenario's static statistics (see :func:`oddslab.exact.exact`)."""
    from oddslab.exact import exact as _exact

    return _exact(scenario)
