"""Formation-actions scenario files: every key read, defaults filled, bad input naming the key."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
from typer.testing import CliRunner

from oddslab.cli import app
from oddslab.rulesets.formation_actions import (
    WARMUP,
    Army,
    Formation,
    FormationActionsScenario,
    Rules,
)
from oddslab.scenario import ScenarioError, from_dict, load

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "oddslab" / "examples").glob("formation-actions-*.toml"))


def test_warmup_reads_with_defaults():
    sc = from_dict(WARMUP)
    assert isinstance(sc, FormationActionsScenario)
    assert sc.turns == 2 and sc.rules == Rules()
    blue, red = sc.armies
    assert blue.retain == "always" and red.retain == "never" and red.order == "listed"
    assert blue.formations[0].threshold == 2  # default: its units
    assert blue.formations[1].outside_shock.dice is not None
    assert red.choose == "first"


def test_every_key_is_read():
    d = copy.deepcopy(WARMUP)
    d.update(turns=3, primary="red_c_shock_after_turn_3", trials=1000, seed=5, description="x")
    d["rules"] = {
        "action_penalty": "both",
        "natural_one_passes": True,
        "natural_six_fails": True,
        "rally_action_penalty": True,
        "retain_limit": "once-per-turn",
        "withdrawal": "removed",
        "break_check": "end-phase",
        "outside_timing": "start-of-turn",
        "first_turn_tie": "red",
    }
    d["armies"]["red"].update(
        name="Red Host", retain="if-chance", retain_chance=0.4, order="best-first", choose="second"
    )
    d["armies"]["red"]["formations"]["c"].update(
        name="Guard",
        suppressed=1,
        shock=1,
        broken=False,
        break_at=3,
        enemy_within_8=True,
        points=95,
    )
    sc = from_dict(d)
    red = sc.armies[1]
    assert (red.name, red.retain, red.retain_chance, red.order, red.choose) == (
        "Red Host",
        "if-chance",
        0.4,
        "best-first",
        "second",
    )
    c = red.formations[0]
    assert (c.name, c.suppressed, c.shock, c.break_at, c.enemy_within_8, c.points) == (
        "Guard",
        1,
        1,
        3,
        True,
        95.0,
    )
    assert sc.rules.first_turn_tie == "red" and sc.rules.withdrawal == "removed"
    assert sc.compile().meta["primary"] == "red_c_shock_after_turn_3"


BAD = [
    (("armies", "blue", "formations", "a", "command"), 11, "armies.blue.formations.a.command"),
    (("armies", "blue", "formations", "a", "commnd"), 3, "armies.blue.formations.a.commnd"),
    (("armies", "blue", "formations", "a", "suppressed"), 3, "armies.blue.formations.a.suppressed"),
    (
        ("armies", "blue", "formations", "a", "outside_shock"),
        [0.5, 0.4],
        "armies.blue.formations.a.outside_shock",
    ),
    (
        ("armies", "blue", "formations", "a", "outside_shock"),
        [0.5, -0.5, 1.0],
        "armies.blue.formations.a.outside_shock[1]",
    ),
    (
        ("armies", "blue", "formations", "a", "outside_shock"),
        "D7x",
        "armies.blue.formations.a.outside_shock",
    ),
    (
        ("armies", "blue", "formations", "a", "outside_shock"),
        True,
        "armies.blue.formations.a.outside_shock",
    ),
    (("armies", "blue", "formations", "a", "break_at"), 0, "armies.blue.formations.a.break_at"),
    (("armies", "blue", "retain"), "sometimes", "armies.blue.retain"),
    (("armies", "blue", "retain_chance"), 1.5, "armies.blue.retain_chance"),
    (("armies", "red", "retain_chance"), 0.5, "armies.red.retain_chance"),  # red never retains
    (("armies", "blue", "strategy"), "high", "armies.blue.strategy"),
    (("armies", "blue", "order"), "random", "armies.blue.order"),
    (("rules", "action_penalty"), "shocked", "rules.action_penalty"),
    (("rules", "first_turn_tie"), "green", "rules.first_turn_tie"),
    (("rules", "withdrawl"), "removed", "rules.withdrawl"),
    (("turns",), 0, "turns"),
    (("primary",), "blue_nothing", "primary"),
]


def _set(d, path, value):
    for k in path[:-1]:
        d = d.setdefault(k, {})
    d[path[-1]] = value


@pytest.mark.parametrize("path,value,key", BAD, ids=[b[2] + "=" + str(b[1]) for b in BAD])
def test_bad_input_names_the_key(path, value, key):
    d = copy.deepcopy(WARMUP)
    _set(d, path, value)
    with pytest.raises(ScenarioError) as exc:
        from_dict(d, source="game.toml")
    assert exc.value.key == key, str(exc.value)
    assert str(exc.value).startswith(f"game.toml: {key}: ")


def test_bad_structure():
    d = copy.deepcopy(WARMUP)
    d["armies"]["green"] = d["armies"]["red"]
    with pytest.raises(ScenarioError, match="exactly two armies") as exc:
        from_dict(d)
    assert exc.value.key == "armies"
    d = copy.deepcopy(WARMUP)
    d["armies"]["Blue Army"] = d["armies"].pop("blue")
    with pytest.raises(ScenarioError) as exc:
        from_dict(d)
    assert exc.value.key == "armies.Blue Army"
    d = copy.deepcopy(WARMUP)
    d["armies"]["red"]["formations"] = {}
    with pytest.raises(ScenarioError) as exc:
        from_dict(d)
    assert exc.value.key == "armies.red.formations"
    d = copy.deepcopy(WARMUP)
    del d["armies"]["red"]["formations"]["c"]["command"]
    with pytest.raises(ScenarioError, match="required") as exc:
        from_dict(d)
    assert exc.value.key == "armies.red.formations.c.command"


def test_model_validation():
    with pytest.raises(ValueError, match="command"):
        Formation("f", command=11)
    with pytest.raises(ValueError, match="key"):
        Formation("Bad Key")
    with pytest.raises(ValueError, match="unique"):
        Army("a", (Formation("f"), Formation("f")))
    with pytest.raises(ValueError, match="first_turn_tie"):
        FormationActionsScenario(
            (Army("a", (Formation("f"),)), Army("b", (Formation("g"),))),
            1,
            Rules(first_turn_tie="c"),
        )
    with pytest.raises(ValueError, match="action_penalty"):
        Rules(action_penalty="x")


def test_cli_bad_file_exits_2(tmp_path):
    p = tmp_path / "bad.toml"
    p.write_text('ruleset = "formation-actions"\n[armies.blue]\nstrategy = 3\n')
    res = CliRunner().invoke(app, ["simulate", str(p), "--trials", "1000"])
    assert res.exit_code == 2
    assert "armies" in res.output and "Traceback" not in res.output


def test_examples_exist_and_load():
    assert len(EXAMPLES) >= 2
    for path in EXAMPLES:
        sc = load(path)
        assert isinstance(sc, FormationActionsScenario)
        assert sc.resolved()


def test_unit_library_entries_are_valid_formations():
    import tomllib

    lib = tomllib.loads((ROOT / "oddslab/examples/libraries/formation-actions.toml").read_text())
    assert lib["ruleset"] == "formation-actions" and len(lib["units"]) >= 6
    template = lib["matchup"]["template"]
    names = list(lib["units"])
    for attacker, target in zip(names, names[1:] + names[:1], strict=True):
        d = copy.deepcopy(template)
        d["name"] = d["name"].format(attacker=attacker, target=target)
        for army, entry in (("blue", attacker), ("red", target)):
            table = d["armies"][army]["formations"]["unit"]
            assert table.pop("use") in ("{attacker}", "{target}")
            d["armies"][army]["formations"]["unit"] = {**lib["units"][entry], **table}
        sc = from_dict(d)
        assert sc.armies[0].formations[0].points == lib["units"][attacker]["points"]
