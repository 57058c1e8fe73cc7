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


# -- Mortars Artillery: "ignore first hit from artillery against Hard Target" --------------

#: an AFV with no saves of its own
AFV = dict(type="afv", ap=1, range=4, assault=1, armor=0, save=7)


@pytest.mark.parametrize(
    "mode,pmf",
    [
        (None, [4 / 9, 5 / 9, 0]),
        ("per-hard-target", [4 / 9, 5 / 9, 0]),
        ("per-attack", [1 / 6, 5 / 9, 5 / 18]),
    ],
    ids=["default", "per-hard-target", "per-attack"],
)
def test_artillery_ignores_the_first_hit_on_hard_targets(mode, pmf):
    """Two AFVs in the open, a mission of 2 dice at 1+ (+1 die for 2 targets: 3 hits; one
    save die at 5+ for the hard targets: 3 unsaved with 2/3, 2 with 1/3), failure 1/6.
    Each AFV ignoring its first hit: 2-1 becomes 1-0, 1-1 becomes 0-0. One hit per attack:
    2-1 becomes 1-1 or 2-0 (2 units hit, or 1), 1-1 becomes 1-0 (1 unit)."""
    hexes = [{"name": "h", "units": [unit("t1", **AFV), unit("t2", **AFV)]}]
    step = {"kind": "artillery", "hexes": ["h"], "firepower": 2, "to_hit": 1}
    rules = None if mode is None else {"artillery_hard_ignore": mode}
    sc = from_dict(scenario(hexes, [step], rules))
    assert np.allclose(sc.exact_pmfs()["h_units_disrupted_or_worse"], pmf)
    out = engine.simulate(sc, trials=200_000, seed=5)
    got = _pmf(out, "h_units_disrupted_or_worse")
    assert np.all(
        np.abs(got - np.array(pmf))
        < 5 * np.sqrt(np.array(pmf) * (1 - np.array(pmf)) / 200_000) + 1e-12
    )
