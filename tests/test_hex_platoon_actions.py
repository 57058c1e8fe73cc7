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

import fast_hex_platoon as F  # noqa: E402
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


def _happened(out, stat, v):
    """Yes/no statistic ``stat`` was always ``v``; one the program does not list (it
    cannot fail: the step always happens) counts as always 1."""
    if stat not in out.counts:
        return v == 1
    return _pmf(out, stat)[v] == 1.0


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
    out = engine.simulate(sc, trials=1_000_000, seed=5)
    F.check_exact(out.counts, {"h_units_disrupted_or_worse": np.array(pmf)}, str(mode))


# -- 6.1 / 11.2: an Ops Complete marker ends a unit's actions ("has no Ops Complete marker";
# calling artillery "is not marked with an Ops Complete marker") ---------------------------

#: an AFV whose overrun dice always hit
SURE_AFV = dict(type="afv", ap=1, range=4, assault=1, assault_to_hit=1, armor=1, save=7)


def _assault(marked, rules=None):
    hexes = [
        {"name": "att", "units": [unit("a", **SURE, ops_complete=marked)]},
        {"name": "def", "units": [unit("d", **BLANK)]},
    ]
    return scenario(hexes, [{"kind": "assault", "attacker": "att", "defender": "def"}], rules)


@pytest.mark.parametrize(
    "marked,rules,made",
    [(False, None, 1), (True, None, 0), (True, {"ops_complete_bars": "fire"}, 1)],
    ids=["unmarked", "marked", "marked-fire-only"],
)
def test_a_unit_marked_ops_complete_does_not_assault(marked, rules, made):
    """6 certain hits against a unit that never hits: with a marker from the start the
    stack makes no assault (the defender untouched); barring fire only, it eliminates it."""
    out = _run(_assault(marked, rules))
    assert _happened(out, "assault_made", made)
    assert _pmf(out, "d_state")[3 if made else 0] == 1.0


@pytest.mark.parametrize(
    "rules,moved", [(None, 0), ({"ops_complete_bars": "fire"}, 1)], ids=["default", "fire-only"]
)
def test_a_unit_that_fired_neither_moves_nor_assaults(rules, moved):
    """Fire (never hitting), then move and assault (always hitting) with the same unit: its
    fire gave it the marker, so the move is refused and the assault not made; barring fire
    only, both happen."""
    hexes = [
        {"name": "att", "units": [unit("a", **{**SURE, "to_hit": 7})]},
        {"name": "def", "units": [unit("d", **{**BLANK, "he": 0, "range": 0, "assault": 6})]},
    ]
    steps = [
        {"kind": "fire", "firer": "a", "target": "d"},
        {"kind": "move", "stack": "att"},
        {"kind": "assault", "attacker": "att", "defender": "def"},
    ]
    out = _run(scenario(hexes, steps, rules))
    assert _happened(out, "att_entered_hex_step2", moved)
    assert _happened(out, "assault_made_step3", moved)
    assert _pmf(out, "d_state")[3 if moved else 0] == 1.0


def test_the_stack_keeps_moving_with_its_own_markers():
    """Marked as it enters each hex (move_ops_complete = "on-entering"), the stack still
    makes its second move and its assault: those markers come from this movement."""
    hexes = [
        {"name": "att", "units": [unit("a", **SURE)]},
        {"name": "def", "units": [unit("d", **BLANK)]},
    ]
    steps = [
        {"kind": "move", "stack": "att"},
        {"kind": "move", "stack": "att"},
        {"kind": "assault", "attacker": "att", "defender": "def"},
    ]
    out = _run(scenario(hexes, steps, {"move_ops_complete": "on-entering"}))
    assert _happened(out, "att_entered_hex_step2", 1)
    assert _happened(out, "assault_made_step3", 1)
    assert _pmf(out, "d_state")[3] == 1.0


@pytest.mark.parametrize("marked", [False, True], ids=["unmarked", "marked"])
def test_repeated_overruns_are_the_exception(marked):
    """6.4 "a Good Order AFV may conduct as many overruns as its MF allows": an AFV makes
    its second overrun though its first marked it; marked from the start, it makes none."""
    hexes = [
        {"name": "road", "units": [unit("tank", **SURE_AFV, ops_complete=marked)]},
        {"name": "f1", "units": [unit("d1", **BLANK)]},
        {"name": "f2", "units": [unit("d2", **BLANK)]},
    ]
    steps = [
        {"kind": "overrun", "attacker": "road", "defender": "f1"},
        {"kind": "overrun", "attacker": "road", "defender": "f2"},
    ]
    out = _run(scenario(hexes, steps))
    for name in ("d1_state", "d2_state"):
        assert _pmf(out, name)[0 if marked else 3] == 1.0


def test_a_marked_unit_does_not_clear_mines():
    """Two engineers (2 dice each, cleared on an even die); the marked one does not try:
    P(cleared) = 1 - 1/4 = 3/4 instead of 1 - 1/16 (exact)."""
    hexes = [
        {
            "name": "lane",
            "units": [unit("e1", type="engineer"), unit("e2", type="engineer", ops_complete=True)],
        }
    ]
    steps = [{"kind": "clear-mines", "stack": "lane"}]
    for rules, p in ((None, 3 / 4), ({"ops_complete_bars": "fire"}, 15 / 16)):
        sc = from_dict(scenario(hexes, steps, rules))
        assert np.allclose(sc.exact_pmfs()["minefield_cleared"], [1 - p, p])


def test_a_marked_stack_does_not_move_exact():
    """A stack with one marked unit stays put, so the mines never attack it (exact)."""
    hexes = [{"name": "road", "units": [unit("r", **SURE), unit("m", **SURE, ops_complete=True)]}]
    sc = from_dict(scenario(hexes, [{"kind": "move", "stack": "road", "mines": True}]))
    exact = sc.exact_pmfs()
    assert np.allclose(exact["road_entered_hex"], [1, 0])
    assert np.allclose(exact["mine_hits_on_road"], [1, 0, 0])
    out = _run(scenario(hexes, [{"kind": "move", "stack": "road", "mines": True}]))
    assert _pmf(out, "road_entered_hex")[0] == 1.0
