"""Hex platoon rules from a second reading of the text: what an Ops Complete marker ends,
(s)HQ leadership in an assault, the artillery's ignored first hit against hard targets;
each case worked by hand in its docstring.

Dice that cannot fail (To Hit 1) or cannot succeed (To Hit 7) make the outcomes certain.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hex_platoon_cases import HQ, scenario, unit  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.scenario import from_dict  # noqa: E402

#: a unit whose every die hits (fire and assault)
SURE = dict(type="infantry", he=6, ap=6, range=6, to_hit=1, assault=6, assault_to_hit=1)
#: a unit whose dice never hit
BLANK = dict(type="infantry", he=1, range=6, to_hit=7, assault=1, assault_to_hit=7)
#: an HQ of leadership 2 on both sides
LEADER2 = {**HQ, "leadership": 2, "leadership_reduced": 2}


def _run(d, n=2_000, seed=4):
    return engine.simulate(from_dict(d), trials=n, seed=seed)


def _pmf(out, stat):
    """The statistic's estimated PMF."""
    c = np.asarray(out.counts[stat], dtype=float)
    return c / c.sum()


# -- (s)HQ leadership bonus: "not added to firepower but treated as an augmented firepower
# bonus" -- in an assault as in fire ---------------------------------------------------------


@pytest.mark.parametrize(
    "mode,hits", [(None, 1), ("as-fire", 1), ("added", 3)], ids=["default", "as-fire", "added"]
)
def test_hq_leadership_in_an_assault(mode, hits):
    """Assault factor 1 hitting on 1+, an HQ of leadership 2 lending to it: augmented (the
    default) it rolls 1 + 2 dice and keeps 1 (1 hit); added it rolls 3 dice (3 hits)."""
    hexes = [
        {"name": "att", "units": [unit("a", **{**SURE, "assault": 1}), unit("h", **LEADER2)]},
        {"name": "def", "units": [unit("d", **BLANK)]},
    ]
    step = {"kind": "assault", "attacker": "att", "defender": "def", "attacker_hq_unit": "a"}
    rules = None if mode is None else {"hq_assault_bonus": mode}
    out = _run(scenario(hexes, [step], rules))
    assert _pmf(out, "hits_on_defender")[hits] == 1.0
