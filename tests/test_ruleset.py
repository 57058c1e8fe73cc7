"""The ruleset protocol and registry (oddslab.ruleset): built-ins, entry points, errors."""

from __future__ import annotations

import dataclasses
import tomllib

import pytest

from oddslab import ruleset
from oddslab._schema import ScenarioError
from oddslab.scenario import from_dict, load


def test_builtins_are_registered_in_pyproject_like_plugins(root):
    eps = tomllib.loads((root / "pyproject.toml").read_text())["project"]["entry-points"]
    assert eps[ruleset.ENTRY_POINT_GROUP] == ruleset.BUILTIN


@pytest.mark.parametrize("name", list(ruleset.BUILTIN))
def test_every_builtin_implements_the_protocol(name):
    game = ruleset.get(name)
    assert isinstance(game, ruleset.Ruleset)
    assert (
        game.name == name
        and game.title
        and (game.rules is None or dataclasses.is_dataclass(game.rules))
    )
    examples = game.examples()
    assert examples, name
    for path in examples:  # its examples are its own, and read through its reader
        assert load(path).compile().ruleset == name, path
    lib = game.library()
    assert lib is not None and lib.exists()
    assert tomllib.loads(lib.read_text()).get("ruleset", "generic") == name
    for spec in game.warmup:  # warm-up scenarios are valid scenarios of the game
        assert from_dict(spec).compile().ruleset == name


def test_every_shipped_example_belongs_to_exactly_one_ruleset(examples_dir):
    owned = [p for n in ruleset.BUILTIN for p in ruleset.get(n).examples()]
    assert sorted(owned) == sorted(examples_dir.resolve().glob("*.toml"))


def test_unknown_name_has_did_you_mean():
    with pytest.raises(ruleset.RulesetError, match="did you mean 'vom-kriege'"):
        ruleset.get("vom-krieg")
    with pytest.raises(
        ScenarioError, match="ruleset: expected one of .*did you mean 'hex-platoon'"
    ):
        from_dict({"ruleset": "hex-platon"})


class _EP:
    def __init__(self, name, value, obj=None, exc=None):
        self.name, self.value, self._obj, self._exc = name, value, obj, exc

    def load(self):
        if self._exc:
            raise self._exc
        return self._obj


@pytest.fixture
def fake_plugins(monkeypatch):
    found: dict = {}
    monkeypatch.setattr(ruleset, "_PLUGINS", found)
    monkeypatch.setattr(ruleset, "_LOADED", {})
    return found


def test_broken_plugin_is_a_clear_error(fake_plugins):
    fake_plugins["broken"] = _EP("broken", "pkg:R", exc=ImportError("no module named pkg"))
    with pytest.raises(ruleset.RulesetError, match="'broken' .* failed to load: ImportError"):
        ruleset.get("broken")
    with pytest.raises(ScenarioError, match="ruleset: the ruleset plugin 'broken'"):
        from_dict({"ruleset": "broken"})


def test_plugin_that_does_not_fit_the_protocol(fake_plugins):
    fake_plugins["half"] = _EP("half", "pkg:R", obj=object())
    with pytest.raises(ruleset.RulesetError, match="does not implement the Ruleset protocol"):
        ruleset.get("half")
    game = dataclasses.replace(ruleset.get("generic"), name="other")
    fake_plugins["mine"] = _EP("mine", "pkg:R", obj=game)
    with pytest.raises(ruleset.RulesetError, match="says its name is 'other'"):
        ruleset.get("mine")


def test_plugin_reads_scenarios_by_its_name(fake_plugins):
    def reader(root):
        root.raw("ruleset")
        return ("read by my-game", root.source, root.int("dice"))

    game = dataclasses.replace(ruleset.get("generic"), name="my-game", reader=reader, keys=None)
    fake_plugins["my-game"] = _EP("my-game", "pkg:R", obj=game)
    assert ruleset.names()[-1] == "my-game"
    assert from_dict({"ruleset": "my-game", "dice": 3}, "f.toml") == (
        "read by my-game",
        "f.toml",
        3,
    )


def test_a_plugin_may_not_take_a_builtin_name(monkeypatch):
    class Dist:
        pass

    def fake(group):
        return [_EP("generic", "evil:RULESET")]

    monkeypatch.setattr(ruleset, "_PLUGINS", None)
    monkeypatch.setattr("importlib.metadata.entry_points", fake)
    with pytest.raises(ruleset.RulesetError, match="uses the name of a built-in ruleset"):
        ruleset.names()


def test_builtin_names_resolve_without_scanning_distributions(monkeypatch):
    def boom(group):
        raise AssertionError("scanned the installed distributions")

    monkeypatch.setattr(ruleset, "_PLUGINS", None)
    monkeypatch.setattr("importlib.metadata.entry_points", boom)
    from oddslab import examples_dir

    load(examples_dir() / "generic-intercessors-vs-guardsmen.toml")


def test_schema_command_for_a_ruleset_without_declared_keys(fake_plugins):
    from typer.testing import CliRunner

    from oddslab.cli import app

    game = dataclasses.replace(ruleset.get("generic"), name="bare", keys=None)
    fake_plugins["bare"] = _EP("bare", "pkg:R", obj=game)
    res = CliRunner().invoke(app, ["schema", "bare"])
    assert res.exit_code == 2 and "does not declare its keys" in res.output
    res = CliRunner().invoke(app, ["schema", "generic", "--markdown"])
    assert res.exit_code == 0 and "| `attacker.weapons[].attacks` |" in res.output
