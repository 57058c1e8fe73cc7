"""oddslab.web.scenarios and oddslab.web.form: TOML written back, where a key is written, the
generic form derived from the model."""

from __future__ import annotations

import tomllib

import pytest

from oddslab.web.form import generic_form
from oddslab.web.scenarios import examples_dir, locate, to_toml


@pytest.mark.parametrize("path", sorted(examples_dir().rglob("*.toml")), ids=lambda p: p.name)
def test_every_shipped_file_survives_being_written_back(path):
    data = tomllib.loads(path.read_text())
    assert tomllib.loads(to_toml(data)) == data


def test_odd_values_are_written_as_valid_toml():
    data = {"name": 'quote " and \\ and é\nline', "x": 0.5, "big": 10**15, "empty": [],
            "t": {"inline": {"a": 1}, "arr": [{"k": True}, {"k": False, "sub": {"z": "w"}}]}}  # fmt: skip
    assert tomllib.loads(to_toml(data)) == data


def test_locate_finds_keys_in_tables_and_arrays_of_tables():
    text = (
        'name = "x"\n[attacker]\nname = "a"\n[[attacker.weapons]]\nattacks = 1\n'
        "[[attacker.weapons]]\nattacks = 2\nskill = 9\n[attacker.weapons.anti]\ninfantry = 9\n"
        "[target]\nmodels = 5\n"
    )
    lines = text.splitlines()
    assert lines[locate(text, "attacker.weapons[1].skill") - 1] == "skill = 9"
    assert lines[locate(text, "attacker.weapons[0].attacks") - 1] == "attacks = 1"
    assert lines[locate(text, "attacker.weapons[1].anti.infantry") - 1] == "infantry = 9"
    assert lines[locate(text, "target.save") - 1] == "[target]"  # missing: its table
    assert locate(text, "") is None and locate("", "x") is None


def test_the_form_has_every_declared_key_of_the_generic_ruleset():
    from oddslab import ruleset
    from oddslab.keys import Key

    form = generic_form()
    declared = {path: key for path, key in ruleset.get("generic").keys.root.walk()}
    for group, prefix in (
        ("weapon", "attacker.weapons[]."),
        ("target", "target."),
        ("rules", "rules."),
    ):
        keys = [f["key"] for f in form[group]]
        want = [
            p[len(prefix) :]
            for p in declared
            if p.startswith(prefix) and "." not in p[len(prefix) :].replace("[]", "")
        ]
        want = [k for k in want if "[]" not in k]
        assert keys == want, group
        assert all(isinstance(declared[prefix + k], Key) for k in keys)
        for f in form[group]:
            assert f["help"], (group, f["key"])  # plain words for every key
            assert "``" not in f["help"]
    spill = next(f for f in form["rules"] if f["key"] == "spill")
    assert spill["kind"] == "choice" and spill["choices"] == ["none", "spill"]
    assert next(f for f in form["weapon"] if f["key"] == "attacks")["required"]
