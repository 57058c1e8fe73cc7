"""Dotted key paths into scenario dicts (oddslab.analysis.paths)."""

from __future__ import annotations

import re

import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis.paths import canonical_path, canonical_paths, set_path, split_path, with_paths


def test_paths():
    assert split_path("weapons.0.models") == ["weapons", 0, "models"]
    assert split_path("weapons[0].models") == ["weapons", 0, "models"]
    with pytest.raises(ValueError):
        split_path("a..b")
    d = {"a": {"b": [{"c": 1}]}}
    set_path(d, "a.b.0.c", 2)
    set_path(d, "a.new", 3)
    assert d == {"a": {"b": [{"c": 2}], "new": 3}}
    with pytest.raises(ScenarioError, match="no entry 4"):
        set_path(d, "a.b.4.c", 1)
    raw = {"target": {"models": 1}}
    out = with_paths(raw, {"target.save": 3}, "<dict>")
    assert out == {"target": {"models": 1, "save": 3}} and raw == {"target": {"models": 1}}


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("attacker.weapons[0.models", "'[' has no ']' at character 17"),
        ("attacker.weapons[[0]].models", "'[' has no ']' at character 17"),
        ("attacker.weapons]0.models", "']' has no '[' at character 17"),
        ("attacker.weapons[0]].models", "']' has no '[' at character 20"),
        ("attacker.weapons[].models", "empty '[]' at character 17"),
        ("attacker..save", "an empty key between dots ('..') at character 9"),
        (".target.save", "an empty key (a dot at the start or the end) at character 1"),
        ("target.save.", "an empty key (a dot at the start or the end) at character 12"),
        ("attacker.weapons[0]models", "a '.' or '[' must follow ']' at character 20"),
        ("attacker.weapons.[0]", "a name must follow '.'"),
        ("[0].models", "a key path starts with a name"),
        ('target["save]', "unbalanced quotes"),
    ],
)
def test_a_malformed_path_is_refused_naming_the_key_and_the_position(path, problem):
    with pytest.raises(ValueError, match=re.escape(f"'{path}': {problem}")):
        split_path(path)


def test_well_formed_paths_split_as_before():
    assert split_path("a.b[0][c].d") == split_path("a.b.0.c.d") == ["a", "b", 0, "c", "d"]
    assert split_path(" target[ 'save' ] ") == ["target", "save"]
    assert split_path("units.a-b.models") == ["units", "a-b", "models"]


def test_one_spelling_per_key_and_two_spellings_refused():
    assert canonical_path("target[save]") == canonical_path('target["save"]') == "target.save"
    assert canonical_path("weapons[0].models") == "weapons.0.models"
    with pytest.raises(ValueError, match="'target.save' and 'target\\[save\\]' are the same key"):
        canonical_paths(["target.save", "target[save]"])
    with pytest.raises(ValueError, match="target.save is inside target"):
        canonical_paths(["target", "target.save"])
    assert canonical_paths(["target.save", "weapons[0].models"]) == [
        "target.save",
        "weapons.0.models",
    ]
