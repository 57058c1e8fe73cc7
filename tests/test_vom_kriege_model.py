"""Vom Kriege model: defaults from the text, validation of units, leaders, actions, rules."""

from __future__ import annotations

import pytest

from oddslab.rulesets.vom_kriege.model import Action, Dice, Leader, Rules, Unit, range_band


def test_strength_from_the_text():
    assert Unit("a", "attacker", "infantry").max_hits == 4
    assert Unit("a", "attacker", "cavalry").max_hits == 4
    assert Unit("a", "attacker", "artillery").max_hits == 3
    assert Unit("a", "attacker", "infantry", quality="elite").max_hits == 5
    assert Unit("a", "attacker", "cavalry", quality="conscript").max_hits == 3
    assert Unit("a", "attacker", "infantry", strength=6).max_hits == 6


def test_default_formations_and_kinds():
    assert Unit("a", "attacker", "infantry").form == "line"
    assert Unit("a", "attacker", "artillery").form == "unlimbered"
    assert Unit("a", "attacker", "cavalry").unit_kind == "light"
    assert Unit("a", "attacker", "artillery").unit_kind == "heavy"


@pytest.mark.parametrize(
    ("kw", "key"),
    [
        (dict(troop="infantry", formation="limbered"), "formation"),
        (dict(troop="artillery", formation="square"), "formation"),
        (dict(troop="infantry", formation="open_order"), "formation"),  # line infantry
        (dict(troop="infantry", formation="square", terrain="woods"), "formation"),
        (dict(troop="cavalry", kind="horse"), "kind"),
        (dict(troop="cavalry", skirmish=True), "skirmish"),
        (dict(troop="infantry", hits=5), "hits"),
        (dict(troop="artillery", guns=7), "guns"),
        (dict(troop="infantry", side="neutral"), "side"),
    ],
)
def test_unit_validation(kw, key):
    kw = {"side": "attacker", **kw}
    with pytest.raises(ValueError, match=key):
        Unit("u", **kw)


def test_leader_validation():
    Leader("l", "defender", quality=3, hits=2)
    with pytest.raises(ValueError, match="quality"):
        Leader("l", "defender", quality=4)
    with pytest.raises(ValueError, match="hits"):
        Leader("l", "defender", hits=3)


def test_action_and_rules_validation():
    with pytest.raises(ValueError, match="kind"):
        Action("charge", "a", "b")
    with pytest.raises(ValueError, match="range"):
        Action("shoot", "a", "b", range=25)
    with pytest.raises(ValueError, match="supports"):
        Action("melee", "a", "b", supports=9)
    with pytest.raises(ValueError, match="follow_up"):
        Action("shoot", "a", "b", follow_up="c")
    with pytest.raises(ValueError, match="halving"):
        Rules(halving="never")
    with pytest.raises(ValueError, match="min_dice"):
        Rules(min_dice=2)


def test_range_bands():
    assert [range_band(r) for r in (1, 3, 3.5, 6, 7, 12, 18, 24)] == [0, 0, 1, 1, 2, 2, 3, 4]
    with pytest.raises(ValueError):
        range_band(24.5)


def test_dice_layout():
    assert Dice().p("infantry") == pytest.approx(1 / 3)
    with pytest.raises(ValueError):
        Dice(("infantry",))
