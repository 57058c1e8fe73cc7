"""Baskets: reading them (weights, duplicates) and a unit's weighted value and its SE."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from oddslab.analysis.baskets import basket_exact, basket_value, read_basket

LIB = Path(__file__).resolve().parent.parent / "oddslab" / "examples" / "libraries" / "generic.toml"


def test_basket_value_is_the_weighted_mean_with_the_se_of_independent_cells():
    tab = pd.DataFrame(
        {
            "attacker": ["u", "u", "u", "v"],
            "target": ["a", "b", "c", "a"],
            "value": [1.0, 4.0, 100.0, 7.0],
            "se": [0.3, 0.4, 9.0, 1.0],
            "trials": [0, 1000, 0, 0],
        }
    )
    v, se = basket_value(tab, "u", {"a": 3.0, "b": 1.0})  # "c" is not in the basket
    assert v == pytest.approx((3 * 1.0 + 1 * 4.0) / 4, abs=1e-15)
    assert se == pytest.approx(math.sqrt((0.75 * 0.3) ** 2 + (0.25 * 0.4) ** 2), abs=1e-15)
    assert all(math.isnan(x) for x in basket_value(tab, "u", {"zzz": 1.0}))
    assert basket_exact(tab, ["u"], {"a": 1.0, "c": 1.0})
    assert not basket_exact(tab, ["u", "v"], {"a": 1.0, "b": 1.0})


def test_read_basket_weights_and_refusals():
    entries, weights = read_basket({f"{LIB}:conscripts": 2, f"{LIB}:battle_tank": 1})
    assert [e.key for e in entries] == ["conscripts", "battle_tank"]
    assert sorted(weights.values()) == [1.0, 2.0]
    for bad in (0, -1, math.inf, True, "2"):
        with pytest.raises(ValueError, match="must be a positive number"):
            read_basket({f"{LIB}:conscripts": bad})
    with pytest.raises(ValueError, match="twice"):
        read_basket([f"{LIB}:conscripts", f"{LIB}:conscripts"])
