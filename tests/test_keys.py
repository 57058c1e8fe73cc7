"""Declared scenario keys (oddslab.keys): reading, messages, JSON Schema, docs tables."""

from __future__ import annotations

import jsonschema
import pytest

from oddslab._schema import ScenarioError
from oddslab.keys import REQUIRED, Key, Schema, Section, run_keys

SCHEMA = Schema(
    "toy",
    Section(
        "",
        (
            *run_keys("toy", "toy game"),
            Key("dice", "int", 2, "dice rolled", 1, 20, unit="dice"),
            Key("skill", "int", REQUIRED, "hits on", 2, 6),
            Key("weight", "float", 1.0, "a weight", 0, 10),
            Key("mode", "str", "fast", "a rule switch", choices=("fast", "slow"), switch=True),
            Key("damage", "dice", 1, "damage per hit"),
            Key("faces", "int_list", [], "faces that explode", 1, 6),
            Key("loud", "bool", False, "shout"),
            Section("side", (Key("models", "int", 1, "models", 1, 50),), "a side", required=True),
            Section("extras", (Key("label", "str", "", "a label"),), "entries", array=True),
        ),
    ),
)


def test_read_gives_defaults_and_nested_values():
    v = SCHEMA.read_dict({"ruleset": "toy", "skill": 3, "side": {"models": 5}, "extras": [{}]})
    assert v["dice"] == 2 and v["skill"] == 3 and v["mode"] == "fast" and v["name"] == "toy game"
    assert v["side"] == {"models": 5} and v["extras"] == [{"label": ""}]
    assert v["trials"] is None and str(v["damage"]) == "1"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"skill": 3, "side": {}}, "f.toml: ruleset: required key is missing"),
        ({"ruleset": "toy", "side": {}}, "f.toml: skill: required key is missing"),
        (
            {"ruleset": "toy", "skill": 9, "side": {}},
            "skill: expected an integer from 2 to 6, got 9",
        ),
        ({"ruleset": "toy", "skill": 3, "side": {}, "mode": "fats"}, "did you mean 'fast'"),
        ({"ruleset": "toy", "skil": 3, "side": {}}, "skil: unknown key; did you mean 'skill'?"),
        (
            {"ruleset": "toy", "skill": 3, "side": {"model": 2}},
            "side.model: unknown key; did you mean 'models'",
        ),
        ({"ruleset": "toy", "skill": 3}, "side: required key is missing"),
        (
            {"ruleset": "toy", "skill": 3, "side": {}, "extras": [{"lable": ""}]},
            r"extras\[0\].lable: unknown key",
        ),
        (
            {"ruleset": "toy", "skill": 3, "side": {}, "faces": [7]},
            r"faces\[0\]: expected an integer from 1 to 6",
        ),
        ({"ruleset": "toy", "skill": 3, "side": {}, "damage": "D7x"}, "damage: "),
    ],
)
def test_messages_name_file_key_and_problem(data, message):
    with pytest.raises(ScenarioError, match=message):
        SCHEMA.read_dict(data, source="f.toml")


def test_json_schema_is_valid_and_agrees_with_reading():
    doc = SCHEMA.json_schema()
    jsonschema.Draft202012Validator.check_schema(doc)
    good = {"ruleset": "toy", "skill": 3, "side": {"models": 5}, "damage": "D3+1"}
    jsonschema.validate(good, doc)
    SCHEMA.read_dict(good)
    for bad in (
        {**good, "skill": 9},
        {**good, "mode": "fats"},
        {**good, "skil": 3},
        {"ruleset": "toy", "skill": 3},
        {**good, "ruleset": "other"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, doc)
        with pytest.raises(ScenarioError):
            SCHEMA.read_dict(bad)


def test_markdown_table_lists_every_key_once():
    table = SCHEMA.markdown()
    paths = [path for path, _ in SCHEMA.root.walk()]
    assert len(paths) == len(set(paths))
    for path in paths:
        assert f"| `{path}` |" in table
    assert '| `mode` | string | `"fast"` | `fast`, `slow` | a rule switch *Rule switch.* |' in table
    assert SCHEMA.switches() == ("mode",)


def test_generic_files_may_leave_out_ruleset():
    keys = {k.name: k for k in run_keys("generic", "g")}
    assert keys["ruleset"].default == "generic"
    assert run_keys("toy", "t")[0].required


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError, match="unknown kind"):
        Key("x", "complex")
