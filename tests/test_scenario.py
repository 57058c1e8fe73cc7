"""Scenario files: loading, and one clear message (file, key, problem) for every bad input."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from oddslab import GenericScenario, ScenarioError, from_dict, load

GOOD = {
    "ruleset": "generic",
    "name": "demo",
    "trials": 1000,
    "seed": 1,
    "attacker": {
        "name": "a",
        "weapons": [
            {
                "name": "gun",
                "models": 5,
                "attacks": "D3+1",
                "skill": 3,
                "strength": 4,
                "ap": 1,
                "damage": "D3",
            }
        ],
    },
    "target": {"models": 10, "wounds": 2, "toughness": 4, "save": 3, "invulnerable": 5},
    "rules": {"spill": "spill"},
}


def test_good_dict_loads():
    sc = from_dict(copy.deepcopy(GOOD))
    assert isinstance(sc, GenericScenario)
    assert sc.weapons[0].attacks.max == 4 and sc.rules.spill == "spill" and sc.trials == 1000


def test_example_files_load(examples_dir):
    files = sorted(Path(examples_dir).glob("*.toml"))
    assert len(files) >= 5
    for f in files:
        load(f)


def _bad(mutate, tmp_path=None):
    data = copy.deepcopy(GOOD)
    mutate(data)
    with pytest.raises(ScenarioError) as info:
        from_dict(data, source="bad.toml")
    return str(info.value)


@pytest.mark.parametrize(
    ("mutate", "key", "words"),
    [
        (
            lambda d: d["attacker"]["weapons"][0].update(skil=3),
            "attacker.weapons[0].skil",
            "did you mean 'skill'",
        ),
        (
            lambda d: d["attacker"]["weapons"][0].update(skill=9),
            "attacker.weapons[0].skill",
            "from 2 (2+) to 6 (6+), got 9",
        ),
        (
            lambda d: d["attacker"]["weapons"][0].update(skill="3+"),
            "attacker.weapons[0].skill",
            "got a string",
        ),
        (lambda d: d["target"].update(models=-3), "target.models", "from 1 to 1000, got -3"),
        (lambda d: d["target"].pop("models"), "target.models", "required key is missing"),
        (lambda d: d.pop("target"), "target", "required key is missing"),
        (
            lambda d: d["attacker"]["weapons"][0].update(attacks="2X6"),
            "attacker.weapons[0].attacks",
            "not a dice expression",
        ),
        (
            lambda d: d["attacker"]["weapons"][0].update(damage=True),
            "attacker.weapons[0].damage",
            "dice expression",
        ),
        (lambda d: d["rules"].update(spill="some"), "rules.spill", "expected one of none, spill"),
        (lambda d: d.update(ruleset="warhammer"), "ruleset", "expected one of"),
        (lambda d: d["target"].update(damaged=2), "target.damaged", "less than wounds"),
        (lambda d: d["attacker"].update(weapons=[]), "attacker.weapons", "at least 1"),
        (lambda d: d["attacker"].update(weapons={"a": 1}), "attacker.weapons", "array of tables"),
        (
            lambda d: d["attacker"]["weapons"][0].update(reroll_hits=[1, 9]),
            "attacker.weapons[0].reroll_hits[1]",
            "from 1 to 6",
        ),
        (lambda d: d.update(trials=0), "trials", "from 1 to 10,000,000,000, got 0"),
        (lambda d: d.update(sead=1), "sead", "did you mean 'seed'"),
    ],
)
def test_bad_values_name_the_key(mutate, key, words):
    msg = _bad(mutate)
    assert msg.startswith(f"bad.toml: {key}: "), msg
    assert words in msg, msg


def test_file_errors(tmp_path):
    with pytest.raises(ScenarioError, match="file not found"):
        load(tmp_path / "missing.toml")
    p = tmp_path / "broken.toml"
    p.write_text("[target\nmodels = 3\n")
    with pytest.raises(ScenarioError, match=r"broken.toml: not valid TOML"):
        load(p)


# -- hypothesis: random and mutated documents never escape as anything but ScenarioError -----------

_scalar = st.one_of(
    st.integers(-5, 40),
    st.booleans(),
    st.text(max_size=6),
    st.floats(allow_nan=False, width=16),
    st.just("D6"),
    st.just("D3+1"),
)


def _paths(d, prefix=()):
    for k, v in d.items():
        yield (*prefix, k)
        if isinstance(v, dict):
            yield from _paths(v, (*prefix, k))
        if isinstance(v, list):
            for i, item in enumerate(v):
                if isinstance(item, dict):
                    yield from _paths(item, (*prefix, k, i))


ALL_PATHS = list(_paths(GOOD))


def _set(d, path, value):
    for p in path[:-1]:
        d = d[p]
    d[path[-1]] = value


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(ALL_PATHS), value=_scalar)
def test_mutated_values_give_scenario_errors_only(path, value):
    data = copy.deepcopy(GOOD)
    _set(data, path, value)
    try:
        from_dict(data, source="fuzz.toml")
    except ScenarioError as exc:
        assert str(exc).startswith("fuzz.toml")


@settings(max_examples=200, deadline=None)
@given(
    doc=st.recursive(
        _scalar,
        lambda c: st.dictionaries(st.text(max_size=8), c, max_size=4) | st.lists(c, max_size=3),
        max_leaves=12,
    )
)
def test_random_documents_give_scenario_errors_only(doc):
    if not isinstance(doc, dict):
        doc = {"attacker": doc}
    try:
        from_dict(doc, source="fuzz.toml")
    except ScenarioError as exc:
        assert str(exc).startswith("fuzz.toml")


@settings(max_examples=150, deadline=None)
@given(cut=st.integers(0, 400), junk=st.text(max_size=5))
def test_mutated_files_give_scenario_errors_only(tmp_path_factory, examples_dir, cut, junk):
    text = (Path(examples_dir) / "generic-lascannons-vs-tank.toml").read_text()
    mutated = text[:cut] + junk + text[cut:]
    p = tmp_path_factory.mktemp("m") / "m.toml"
    p.write_text(mutated)
    try:
        tomllib.loads(mutated)
    except tomllib.TOMLDecodeError:
        with pytest.raises(ScenarioError, match="not valid TOML"):
            load(p)
        return
    try:
        load(p)
    except ScenarioError as exc:
        assert str(exc).startswith(str(p))


# -- a typo is reported as itself, before the missing key it causes ------------------------------
@pytest.mark.parametrize(
    ("mutate", "key", "words"),
    [
        (lambda d: d.update(targte=d.pop("target")), "targte", "did you mean 'target'?"),
        (lambda d: d.update(atacker=d.pop("attacker")), "atacker", "did you mean 'attacker'?"),
        (lambda d: d.update(rulset=d.pop("ruleset")), "rulset", "did you mean 'ruleset'?"),
        (lambda d: d.update(Target=d.pop("target")), "Target", "did you mean 'target'?"),
    ],
)
def test_typo_comes_before_required_key_is_missing(mutate, key, words):
    msg = _bad(mutate)
    assert msg.startswith(f"bad.toml: {key}: unknown key"), msg
    assert words in msg and "required key is missing" not in msg


def test_typod_ruleset_does_not_fall_back_to_generic():
    doc = {"rulset": "assault-phase", "attackers": {}, "defenders": {}}
    with pytest.raises(ScenarioError, match="rulset: unknown key; did you mean 'ruleset'") as e:
        from_dict(doc)
    assert "attacker" not in e.value.key


def test_missing_key_without_a_lookalike_is_still_missing():
    doc = copy.deepcopy(GOOD)
    del doc["target"]
    with pytest.raises(ScenarioError, match="target: required key is missing"):
        from_dict(doc, source="bad.toml")


def test_read_toml_and_trials_ceiling_shared_with_the_engine():
    from oddslab.engine import MAX_TRIALS
    from oddslab.scenario import read_toml

    assert MAX_TRIALS == 10**10
    with pytest.raises(ScenarioError, match="file not found"):
        read_toml("nope.toml")
    doc = copy.deepcopy(GOOD)
    doc["trials"] = MAX_TRIALS
    assert from_dict(doc).trials == MAX_TRIALS


def test_a_rules_table_is_not_a_misspelt_ruleset():
    doc = copy.deepcopy(GOOD)
    del doc["ruleset"]  # generic by default; its [rules] table looks like 'ruleset'
    assert from_dict(doc).rules.spill == "spill"


def test_a_bare_example_name_finds_the_shipped_example(tmp_path, monkeypatch):
    """Installed outside a checkout, `oddslab simulate generic-intercessors-vs-guardsmen`
    works from any folder (with or without .toml)."""
    from oddslab import examples_dir
    from oddslab.scenario import shipped_example

    monkeypatch.chdir(tmp_path)
    for name in ("generic-intercessors-vs-guardsmen", "generic-intercessors-vs-guardsmen.toml"):
        assert shipped_example(name) == examples_dir() / "generic-intercessors-vs-guardsmen.toml"
        assert load(name).name == "10 bolt rifles vs 20 guardsmen"
    (tmp_path / "generic-intercessors-vs-guardsmen.toml").write_text('name = "mine"\n')
    assert shipped_example("generic-intercessors-vs-guardsmen.toml").parent == Path(".")


def test_a_missing_examples_path_says_where_the_examples_are(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ScenarioError) as err:
        load("examples/generic-intercessors-vs-guardsmen.toml")
    msg = str(err.value)
    assert "file not found" in msg and "oddslab simulate generic-intercessors-vs-guardsmen" in msg
    assert "oddslab examples --copy" in msg
    with pytest.raises(ScenarioError, match=r"file not found$"):
        load("mine/nothing.toml")  # not an example: no hint


def test_an_empty_file_says_so(tmp_path):
    for text in ("", "# only a comment\n"):
        (tmp_path / "e.toml").write_text(text)
        with pytest.raises(ScenarioError, match="the file is empty"):
            load(tmp_path / "e.toml")


_EXAMPLES = Path(__file__).resolve().parent.parent / "oddslab" / "examples"


@pytest.mark.parametrize(
    "ruleset",
    ["generic", "armoured-clash", "assault", "vom-kriege", "hex-platoon", "formation-actions"],
)
def test_to_dict_round_trips_through_from_dict_for_every_ruleset(ruleset):
    files = sorted(_EXAMPLES.glob(f"{ruleset}-*.toml"))
    assert files
    for path in files:
        sc = load(path)
        data = sc.to_dict()
        assert from_dict(data) == sc, path.name
        data["name"] = "edited"  # a copy: editing it leaves the scenario alone
        assert sc.to_dict()["name"] != "edited"


def test_a_generic_scenario_built_in_python_writes_every_key():
    from oddslab import DiceExpr, Rules, Target, Weapon

    sc = GenericScenario(
        (Weapon(name="melta", attacks=DiceExpr.parse("D3+1"), strength=9, ap=4,
                damage=DiceExpr.parse("D6"), reroll_hits=(1, 2), anti=(("vehicle", 4),)),),
        Target(models=1, wounds=12, toughness=10, save=3, invulnerable=5, keywords=("vehicle",)),
        Rules(spill="spill"),
        seed=3,
    )  # fmt: skip
    assert from_dict(sc.to_dict()) == sc
