"""Vom Kriege shooting readings of issue 30 by exact answers through the general kernel: the
halving floor ("no less than 1"), rows joined by "or", and artillery's skirmish target at
3"-6". Each scenario has two actions, so it runs the general kernel (not the single-shot fast
path); each switch is also compared with the pure-Python reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from exact_vom_kriege import assert_exact
from test_vom_kriege_kernel import _compare

import oddslab
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Rules, Unit

N = 400_000  # a 0.5 pp error in a binomial of up to 11 dice fails


def _binom(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)])


def _exact_dice_and_hits(sc, dice: int, p_hit: float, seed: int = 3) -> None:
    """Every trial rolls ``dice`` attacker dice in all, and the hits rolled on the target
    are Bin(dice, p_hit) (chi-square; a 0.5 pp error in it would fail)."""
    out = oddslab.simulate(sc, trials=N, seed=seed)
    assert out.counts["attacker_dice_rolled"][dice] == N
    hits = "hits_on_defender"
    assert_exact({hits: out.counts[hits]}, {hits: _binom(dice, p_hit)}, hits)


# -- halving "no less than 1" ------------------------------------------------------------------
def _halving_probe(**rules):
    """The issue's probe: a light battery of 6 guns, disordered, with a shooting marker, at
    24" against a line: 1 fire point - 2 disordered = -1, halved. A line then fires at close
    range (4 dice), so the scenario runs the general kernel."""
    return VomKriegeScenario(
        units=(
            Unit(
                "guns", "attacker", "artillery", kind="light", disordered=True, shooting_marker=True
            ),
            Unit("line", "attacker", "infantry"),
            Unit("target", "defender", "infantry"),
        ),
        actions=(
            Action("shoot", "guns", "target", range=24),
            Action("shoot", "line", "target", range=3),
        ),
        rules=Rules(**rules),
    )


def test_halving_probe_rolls_one_die_by_the_text():
    """ "When halving Fire points round down but no less than 1": the battery rolls 1 die."""
    text = _halving_probe().resolved()["action 1: guns shoots target"]
    assert text["battle dice (from the starting state)"].startswith("1 = ")
    positive = _halving_probe(halving_floor="positive").resolved()
    assert (
        positive["action 1: guns shoots target"]["battle dice (from the starting state)"][:4]
        == "0 = "
    )


@pytest.mark.rule_switch("vom-kriege", "halving_floor")
@pytest.mark.parametrize(("floor", "dice"), [("always", 5), ("positive", 4)])
def test_halving_floor_in_the_kernel_exact(floor, dice):
    """1 + 4 dice by default, 0 + 4 with ``halving_floor = "positive"``; every die hits
    infantry with 1/2 (two infantry faces and the saber)."""
    _exact_dice_and_hits(_halving_probe(halving_floor=floor), dice, 0.5)


@pytest.mark.rule_switch("vom-kriege", "halving_floor")
@pytest.mark.parametrize("floor", ["always", "positive"])
def test_halving_floor_kernel_matches_reference(floor):
    _compare(_halving_probe(halving_floor=floor))


# -- "Artillery target is skirmish at 3"-6" range" ------------------------------------------
def _guns_at_skirmishers(rng: float, **rules):
    """A 6-gun light battery fires twice at an (sk) line (artillery has two actions): 3 fire
    points at 3", -1 for the skirmish target by default; the second shot is halved by the
    first one's marker."""
    return VomKriegeScenario(
        units=(
            Unit("guns", "attacker", "artillery", kind="light"),
            Unit("sk", "defender", "infantry", skirmish=True),
        ),
        actions=(
            Action("shoot", "guns", "sk", range=rng),
            Action("shoot", "guns", "sk", range=rng),
        ),
        rules=Rules(**rules),
    )


@pytest.mark.rule_switch("vom-kriege", "skirmish_range")
@pytest.mark.parametrize(
    ("rng", "reading", "dice"),
    [
        (3, "up_to_6", 2 + 1),  # (3 - 1), then (3 - 1) / 2
        (2, "up_to_6", 2 + 1),  # the 3" column: any range up to 3"
        (3, "over_3", 3 + 1),  # 3, then 3 / 2
        (6, "over_3", 1 + 1),  # 2 - 1, then max((2 - 1) / 2, 1)
        (6, "up_to_6", 1 + 1),
    ],
)
def test_skirmish_range_in_the_kernel_exact(rng, reading, dice):
    """Three hits cannot remove the fresh line before the second shot, so the dice are
    fixed; each hits infantry with 1/2."""
    _exact_dice_and_hits(_guns_at_skirmishers(rng, skirmish_range=reading), dice, 0.5)


@pytest.mark.rule_switch("vom-kriege", "skirmish_range")
@pytest.mark.parametrize("reading", ["up_to_6", "over_3"])
def test_skirmish_range_kernel_matches_reference(reading):
    _compare(_guns_at_skirmishers(3, skirmish_range=reading))


# -- rows joined by "or" ---------------------------------------------------------------------
def _or_rows(**rules):
    """A 6-gun light battery fires at an enfiladed column at 12" (2 + "enfiladed, square, or
    column" +1); two lines charge a column in woods uphill on its flank ("Melee into woods or
    uphill" -1); a shaken light battalion in open order charges the first column's flank
    ("shaken, or disordered or in open order" -1 -2). Strength 10 targets and flank attacks
    with no reaction: no removal, no battle back, so every action rolls its dice."""
    return VomKriegeScenario(
        units=(
            Unit("guns", "attacker", "artillery", kind="light"),
            Unit("line1", "attacker", "infantry"),
            Unit("line2", "attacker", "infantry"),
            Unit("lt", "attacker", "infantry", kind="light", formation="open_order", hits=3),
            Unit("col2", "defender", "infantry", formation="column", strength=10),
            Unit("col", "defender", "infantry", formation="column", terrain="woods", strength=10),
        ),
        actions=(
            Action("shoot", "guns", "col2", range=12, enfilade=True),
            Action("melee", "line1", "col", uphill=True, flank=True, reaction="none"),
            Action("melee", "line2", "col", uphill=True, flank=True, reaction="none"),
            Action("melee", "lt", "col2", flank=True, reaction="none"),
        ),
        rules=Rules(**rules),
    )


@pytest.mark.rule_switch("vom-kriege", "or_rows")
@pytest.mark.parametrize(
    ("reading", "dice", "on_col2"),
    [
        ("largest", 3 + 3 + 3 + 2, 3 + 2),  # each row once, its largest item
        ("stack", 3 + 3 + 3 + 1, 3 + 1),  # items add (-1 shaken, -2 open), woods-or-uphill once
        ("each", 4 + 2 + 2 + 1, 4 + 1),  # every condition: enfiladed +1, column +1, ...
    ],
)
def test_or_rows_in_the_kernel_exact(reading, dice, on_col2):
    """Attacker dice in all, and the hits rolled on ``col2`` (the focus), Bin(n, 1/2)."""
    out = oddslab.simulate(_or_rows(or_rows=reading), trials=N, seed=5)
    assert out.counts["attacker_dice_rolled"][dice] == N
    hits = "hits_on_defender"
    assert_exact({hits: out.counts[hits]}, {hits: _binom(on_col2, 0.5)}, hits)


def _battle_back_in_woods(**rules):
    """A line charges a disordered light battalion in open order in woods, uphill: it battles
    back with 4 - 2 (one item: "disordered or in open order"; -4 under ``each``)."""
    return VomKriegeScenario(
        units=(
            Unit("line", "attacker", "infantry"),
            Unit("guns", "attacker", "artillery", kind="heavy"),
            Unit(
                "lt",
                "defender",
                "infantry",
                kind="light",
                formation="open_order",
                disordered=True,
                terrain="woods",
                hits=1,
            ),
        ),
        actions=(
            Action("shoot", "guns", "lt", range=6, enfilade=True),
            Action("melee", "line", "lt", uphill=True, reaction="none"),
        ),
        rules=Rules(**rules),
    )


@pytest.mark.rule_switch("vom-kriege", "or_rows")
@pytest.mark.parametrize("reading", ["largest", "stack", "each"])
def test_or_rows_kernel_matches_reference(reading):
    _compare(_battle_back_in_woods(or_rows=reading))
