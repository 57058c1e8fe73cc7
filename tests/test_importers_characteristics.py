"""Characteristic values and abilities (oddslab/importers/characteristics.py)."""

from __future__ import annotations

import pytest

from oddslab.importers.characteristics import (
    RosterError,
    read_unit_profile,
    read_weapon_profile,
    saves_from_ability,
)

RIFLE = {"Range": '24"', "A": "2", "BS": "3+", "S": "4", "AP": "-1", "D": "1", "Keywords": "-"}


def test_weapon_values():
    assert read_weapon_profile(RIFLE, False, "f", "u") == {
        "range": 24,
        "attacks": 2,
        "skill": 3,
        "strength": 4,
        "ap": 1,
        "damage": 1,
        "keywords": "",
    }
    melee = {
        "Range": "Melee",
        "A": "D6+1",
        "WS": "2+",
        "S": "10",
        "AP": "0",
        "D": "d3 + 3",
        "Keywords": "Anti-Vehicle 4+,  Devastating Wounds",
    }
    assert read_weapon_profile(melee, True, "f", "u") == {
        "range": None,
        "attacks": "D6+1",
        "skill": 2,
        "strength": 10,
        "ap": 0,
        "damage": "D3+3",
        "keywords": "Anti-Vehicle 4+, Devastating Wounds",
    }
    torrent = {**RIFLE, "BS": "N/A", "A": "D6"}
    assert read_weapon_profile(torrent, False, "f", "u")["skill"] is None


@pytest.mark.parametrize(
    "key, value, match",
    [
        ("A", "lots", "A = 'lots': expected a number or dice like D6+1"),
        ("A", "D6000", "A = 'D6000'"),
        ("BS", "7+", "BS = '7+': expected a roll from 2+ to 6+"),
        ("Range", "far", "Range = 'far'"),
        ("AP", "-9", "AP = '-9'"),
        ("S", "", "S = ''"),
    ],
)
def test_garbled_weapon_values(key, value, match):
    with pytest.raises(RosterError) as exc:
        read_weapon_profile({**RIFLE, key: value}, False, "army.ros", "Squad / rifle")
    assert str(exc.value).startswith("army.ros: Squad / rifle: ") and match in str(exc.value)


def test_unit_values_10e_and_11e():
    assert read_unit_profile({"M": '6"', "T": "4", "SV": "3+", "W": "2"}, "f", "u") == {
        "toughness": 4,
        "wounds": 2,
        "save": 3,
        "invulnerable": None,
    }
    assert (
        read_unit_profile({"T": "5", "Sv": "2+", "W": "6", "InSv": "4+"}, "f", "u")["invulnerable"]
        == 4
    )
    assert read_unit_profile({"T": "3", "Sv": "-", "W": "1", "InSv": "-"}, "f", "u")["save"] == 7
    with pytest.raises(RosterError, match="no W characteristic"):
        read_unit_profile({"T": "3", "SV": "5+"}, "f", "u")


@pytest.mark.parametrize(
    "name, text, expected",
    [
        ("Invulnerable Save", "4+", {"invulnerable": 4}),
        ("Invulnerable Save", "5+ ", {"invulnerable": 5}),
        ("Iron Halo", "The bearer has a 4+ invulnerable save.", {"invulnerable": 4}),
        (
            "Feel No Pain 5+",
            "Each time a model would lose a wound, roll one D6: ...",
            {"feel_no_pain": 5},
        ),
        ("Stubborn", "This model has the Feel No Pain 6+ ability.", {"feel_no_pain": 6}),
        # conditions: not read (listed as not modelled instead)
        ("Invulnerable Save (Ranged)", "4+", {}),
        (
            "Shield Field",
            "Models in this unit have a 5+ invulnerable save against ranged attacks.",
            {},
        ),
        ("Feel No Pain 5+", "... against mortal wounds.", {}),
        ("Ward", "While this unit is in cover, it has the Feel No Pain 5+ ability.", {}),
        ("Oath", "Re-roll hit rolls.", {}),
    ],
)
def test_saves_from_abilities(name, text, expected):
    assert saves_from_ability(name, text) == expected
