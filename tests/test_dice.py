"""Dice expressions and custom dice."""

from __future__ import annotations

import numpy as np
import pytest

from oddslab.dice import DiceExpr, Die


@pytest.mark.parametrize(
    ("text", "n", "sides", "add", "lo", "hi"),
    [
        ("3", 0, 1, 3, 3, 3),
        ("D6", 1, 6, 0, 1, 6),
        ("2D6", 2, 6, 0, 2, 12),
        ("D3+1", 1, 3, 1, 2, 4),
        ("2d3", 2, 3, 0, 2, 6),
        ("D6-1", 1, 6, -1, 0, 5),
    ],
)
def test_parse(text, n, sides, add, lo, hi):
    e = DiceExpr.parse(text)
    assert (e.n, e.sides, e.add, e.min, e.max) == (n, sides, add, lo, hi)
    assert str(DiceExpr.parse(str(e))) == str(e)


@pytest.mark.parametrize("text", ["", "x", "D", "-3", "65D6", "2D0", "D6+", "3.5"])
def test_parse_errors(text):
    with pytest.raises(ValueError):
        DiceExpr.parse(text)


def test_pmfs():
    assert np.allclose(DiceExpr.parse("2D6").pmf()[7], 6 / 36)
    assert np.allclose(DiceExpr.parse("D3+1").pmf(), [0, 0, 1 / 3, 1 / 3, 1 / 3])
    assert DiceExpr.parse("2D3").mean() == pytest.approx(4.0)
    p = DiceExpr.parse("D6-2").pmf()  # floored at 0: 1, 2 and 3 all give 0... 1-2 -> 0, 2-2 -> 0
    assert p[0] == pytest.approx(2 / 6) and p.sum() == pytest.approx(1)
    assert np.array_equal(DiceExpr.parse("D3+1").as_array(), [1, 3, 1])


def test_custom_dice():
    die = Die.symbols({"heroic": 1, "strike": 2, "glancing": 1, "miss": 1, "blank": 1})
    assert die.size == 6
    assert list(die.symbol_indices("strike")) == [1, 2]
    assert Die.numeric(8).values == tuple(range(1, 9))
    assert Die.from_values([0, 0, 1, 1, 1, 2]).values == (0, 0, 1, 1, 1, 2)
    with pytest.raises(ValueError):
        Die.from_values([])
    with pytest.raises(ValueError):
        Die.symbols({"x": -1, "y": 1})
