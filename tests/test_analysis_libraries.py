"""Unit libraries: use = "lib.toml:entry" expansion, overrides, nesting, errors, shipped libraries."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

import oddslab
from oddslab._schema import ScenarioError
from oddslab.libraries import (
    expand_uses,
    load_library,
    resolve_entries,
    shipped_libraries,
)
from oddslab.scenario import RULESETS, from_dict, load

LIB = """
ruleset = "generic"
description = "test units"

[units.rifles]
points = 60
name = "rifles"
[[units.rifles.weapons]]
models = 10
attacks = 1
skill = 4
strength = 3

[units.squad]
points_per_model = 7
name = "squad"
models = 10
toughness = 3
save = 5

[units.veteran_squad]
use = "lib.toml:squad"
points = 99
save = 4
name = "veterans"

[units.loop_a]
use = "lib.toml:loop_b"
[units.loop_b]
use = "lib.toml:loop_a"
"""


@pytest.fixture()
def lib(tmp_path: Path) -> Path:
    (tmp_path / "lib.toml").write_text(LIB)
    return tmp_path


def _scenario(folder: Path, target: str) -> Path:
    path = folder / "scenario.toml"
    path.write_text(
        'ruleset = "generic"\n[attacker]\nuse = "lib.toml:rifles"\n' + f"[target]\n{target}\n"
    )
    return path


def test_use_merges_entry_under_table_keys_and_drops_points(lib):
    sc = load(_scenario(lib, 'use = "lib.toml:squad"\nsave = 6\nmodels = 4'))
    assert sc.target.save == 6  # the table's own key wins
    assert sc.target.models == 4
    assert sc.target.toughness == 3  # from the entry
    assert sc.target.name == "squad"
    assert sc.weapons[0].models == 10 and sc.weapons[0].strength == 3


def test_nested_use_is_expanded_relative_to_the_library(lib):
    sub = lib / "sub"
    sub.mkdir()
    (sub / "scenario.toml").write_text(
        'ruleset = "generic"\n[attacker]\nuse = "../lib.toml:rifles"\n'
        '[target]\nuse = "../lib.toml:veteran_squad"\n'
    )
    sc = load(sub / "scenario.toml")
    assert (sc.target.save, sc.target.toughness, sc.target.name) == (4, 3, "veterans")


def test_use_inside_arrays_of_tables(lib):
    data = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"use": str(lib / "lib.toml") + ":squad", "attacks": 1}]},
        "target": {"models": 1},
    }
    with pytest.raises(ScenarioError, match=r"attacker\.weapons\[0\]"):
        from_dict(data)  # a target profile does not fit a weapon table: key named
    expanded = expand_uses(data)
    assert expanded["attacker"]["weapons"][0]["toughness"] == 3
    assert "points_per_model" not in expanded["attacker"]["weapons"][0]
    assert data["attacker"]["weapons"][0] == {"use": str(lib / "lib.toml") + ":squad", "attacks": 1}


def test_no_use_returns_the_same_dict():
    data = {"ruleset": "generic", "target": {"models": 1}}
    assert expand_uses(data) is data


@pytest.mark.parametrize(
    ("target", "match"),
    [
        ('use = "missing.toml:squad"', r"target\.use: library file '.*missing\.toml' not found"),
        (
            'use = "lib.toml:sqaud"',
            r"target\.use: .*lib\.toml: units\.sqaud: no such entry; did you mean 'squad'",
        ),
        ('use = "lib.toml"', r'target\.use: expected "library\.toml:entry"'),
        ("use = 3", r'target\.use: expected "library\.toml:entry", got 3'),
        (
            'use = "lib.toml:loop_a"',
            r"lib\.toml: units\.loop_.\.use: cycle of uses: lib\.toml:loop_a -> lib\.toml:loop_b -> lib\.toml:loop_a",
        ),
        ('use = "lib.toml:squad"\nsave = 9', r"scenario\.toml: target\.save: expected a save"),
        ('use = "lib.toml:squad"\nsaev = 3', r"scenario\.toml: target\.saev: unknown key"),
    ],
)
def test_errors_name_the_file_and_key(lib, target, match):
    with pytest.raises(ScenarioError, match=match):
        load(_scenario(lib, target))


def test_a_library_of_another_ruleset_is_refused(lib):
    (lib / "ac.toml").write_text('ruleset = "armoured-clash"\n[units.x]\nmodels = 2\n')
    with pytest.raises(
        ScenarioError,
        match=r"target\.use: .*ac\.toml is a library for the 'armoured-clash' ruleset, not 'generic'",
    ):
        load(_scenario(lib, 'use = "ac.toml:x"'))


def test_bad_library_files(tmp_path):
    (tmp_path / "empty.toml").write_text('ruleset = "generic"\n')
    (tmp_path / "broken.toml").write_text("units = [\n")
    (tmp_path / "pts.toml").write_text('[units.a]\npoints = "lots"\n')
    (tmp_path / "ppm.toml").write_text("[units.a]\npoints_per_model = 5\n")
    with pytest.raises(ScenarioError, match=r"empty\.toml: units: a library needs"):
        load_library(tmp_path / "empty.toml")
    with pytest.raises(ScenarioError, match=r"broken\.toml: not valid TOML"):
        load_library(tmp_path / "broken.toml")
    with pytest.raises(ScenarioError, match=r"pts\.toml: units\.a\.points: expected a number"):
        load_library(tmp_path / "pts.toml")
    entry = load_library(tmp_path / "ppm.toml")["a"]
    with pytest.raises(ScenarioError, match=r"units\.a\.points_per_model: .*'models'"):
        entry.points()
    with pytest.raises(ScenarioError, match=r"units\.b: no such entry"):
        load_library(tmp_path / "ppm.toml")["b"]


def test_points(lib):
    lb = load_library(lib / "lib.toml")
    assert lb["rifles"].points() == 60
    assert lb["squad"].points() == 70  # 7 per model x 10
    assert lb["squad"].points({"models": 4}) == 28  # priced as fielded
    assert lb["veteran_squad"].points() == 99  # its own price (points are not inherited)
    assert "points" not in lb["veteran_squad"].profile()


def test_resolve_entries(lib):
    path = lib / "lib.toml"
    assert [e.key for e in resolve_entries(f"{path}:squad,rifles")] == ["squad", "rifles"]
    assert [e.key for e in resolve_entries(f"{path}:*squad")] == ["squad", "veteran_squad"]
    assert len(resolve_entries(path)) == 5
    with pytest.raises(ScenarioError, match="no entry matches"):
        resolve_entries(f"{path}:zz*")
    # an item may name its own library; the others are of the library before them
    assert [e.key for e in resolve_entries(f"{path}:squad,{path}:rifles,veteran_squad")] == [
        "squad", "rifles", "veteran_squad"
    ]  # fmt: skip
    for spec in (f"{path}:squad,squad", f"{path}:squad,{path}:squad", f"{path}:*squad,squad"):
        with pytest.raises(ValueError, match="lib.toml:squad is picked twice"):
            resolve_entries(spec)


#: entries that are not meant for the library's matchup template (the slot they would fill
#: refuses them by the rules): an (s)HQ only stacks with its formation (1.3.2) and an aircraft
#: strikes through an air-strike step and is not fired at directly
OUTSIDE_TEMPLATE = {"hex-platoon.toml": {"company-hq", "fighter-bomber"}}


def test_shipped_libraries_cover_the_original_rulesets_and_fill_their_templates():
    libs = {load_library(p).ruleset: p for p in shipped_libraries()}
    assert {"generic", "armoured-clash", "assault-phase"} <= set(libs)
    for path in shipped_libraries():  # whatever libraries exist, every one must work
        lib = load_library(path)
        assert lib.ruleset in RULESETS, path
        assert lib.description, f"{path}: no description"
        assert lib.template is not None, f"{path}: no [matchup.template]"
        for e in lib:
            assert e.points() is not None, f"{path}: {e.key} has no points"
        fits = 0
        fitted: set[str] = set()
        for a, t in itertools.product(lib, lib):
            from oddslab.analysis.matchup import SLOTS, _fill

            data = _fill(lib.template, {SLOTS[0]: f"{path}:{a.key}", SLOTS[1]: f"{path}:{t.key}"})
            try:
                sc = from_dict(expand_uses(data, str(path)), source=str(path))
            except ScenarioError as exc:
                # a pair that does not fit is refused the way bad input is: one line naming
                # the library file
                msg = str(exc)
                # examples/ is a link to oddslab/examples/: the library cache keeps the
                # spelling it was first read by, so the message may name either
                named = str(path) in msg or str(Path(path).resolve()) in msg
                assert named and "\n" not in msg, (a.key, t.key, msg)
                continue
            assert sc.compile().stats
            fits += 1
            fitted |= {a.key, t.key}
        assert fits > 0, f"{path}: no pair of entries fills the matchup template"
        unused = {e.key for e in lib} - fitted - OUTSIDE_TEMPLATE.get(path.name, set())
        assert not unused, f"{path}: entries that fit no pair of the matchup template: {unused}"


def test_use_runs_like_the_written_out_scenario(lib):
    written = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"models": 10, "attacks": 1, "skill": 4, "strength": 3}]},
        "target": {"name": "squad", "models": 10, "toughness": 3, "save": 5},
    }
    used = load(_scenario(lib, 'use = "lib.toml:squad"'))
    a = oddslab.simulate(used, trials=20_000, seed=3)
    b = oddslab.simulate(from_dict(written), trials=20_000, seed=3)
    assert all((a.counts[k] == b.counts[k]).all() for k in a.counts)


# -- entries with roles, weapon picks and not-modelled notes (issue 32: imported rosters) -------
ROLES_LIB = """
ruleset = "generic"
[units.squad]
points = 100
name = "Squad"
not_modelled = ["ability: Stubborn", "keyword Pistol (pistol)"]
[units.squad.roles.attacker]
default_weapons = ["rifle"]
[[units.squad.roles.attacker.weapons]]
name = "rifle"
models = 5
attacks = 2
skill = 3
[[units.squad.roles.attacker.weapons]]
name = "pistol"
models = 5
attacks = 1
skill = 3
[[units.squad.roles.attacker.weapons]]
name = "plasma - standard"
models = 1
attacks = 1
strength = 7
[[units.squad.roles.attacker.weapons]]
name = "plasma - supercharge"
models = 1
attacks = 1
strength = 8
[units.squad.roles.target]
models = 5
toughness = 4
save = 3

[units.blade_only]
name = "Blade"
[units.blade_only.roles.attacker]
[[units.blade_only.roles.attacker.weapons]]
name = "blade"
attacks = 3
"""


@pytest.fixture
def roles_lib(tmp_path: Path) -> Path:
    (tmp_path / "army.toml").write_text(ROLES_LIB)
    return tmp_path / "army.toml"


def _sc(attacker: dict, target: dict | None = None) -> dict:
    return {"attacker": attacker, "target": target or {"models": 3}}


def test_roles_give_each_table_its_keys(roles_lib):
    ref = f"{roles_lib}:squad"
    data = expand_uses({"attacker": {"use": ref}, "target": {"use": ref, "save": 4}}, "<dict>")
    assert data["attacker"] == {
        "name": "Squad",
        "weapons": [{"name": "rifle", "models": 5, "attacks": 2, "skill": 3}],
    }
    assert data["target"] == {"name": "Squad", "models": 5, "toughness": 4, "save": 4}
    from_dict(data)
    # the whole entry, for pricing and listing, keeps its roles
    assert load_library(roles_lib)["squad"].points() == 100
    assert "roles" in load_library(roles_lib)["squad"].profile()


def test_a_role_the_entry_lacks_is_an_error(roles_lib):
    with pytest.raises(ScenarioError) as exc:
        expand_uses(_sc({"use": f"{roles_lib}:squad"}, {"use": f"{roles_lib}:blade_only"}))
    assert (
        "units.blade_only.roles: cannot be used in a table named 'target': it stands for "
        "a table named attacker" in str(exc.value)
    )
    with pytest.raises(ScenarioError, match="cannot be used here"):
        expand_uses({"use": f"{roles_lib}:squad"})


def test_weapons_by_name(roles_lib):
    ref = f"{roles_lib}:squad"
    data = expand_uses(_sc({"use": ref, "weapons": ["Pistol", "RIFLE", "plasma - supercharge"]}))
    assert [w["name"] for w in data["attacker"]["weapons"]] == [
        "pistol",
        "rifle",
        "plasma - supercharge",
    ]
    # tables as written replace the entry's weapons as before
    data = expand_uses(_sc({"use": ref, "weapons": [{"attacks": 9}]}))
    assert data["attacker"]["weapons"] == [{"attacks": 9}]
    # no default_weapons: every weapon fires
    assert expand_uses(_sc({"use": f"{roles_lib}:blade_only"}))["attacker"]["weapons"] == [
        {"name": "blade", "attacks": 3}
    ]


@pytest.mark.parametrize(
    "names, match",
    [
        (["rilfe"], "no weapon 'rilfe'; did you mean 'rifle'?"),
        (
            ["plasma"],
            "no weapon 'plasma'; did you mean 'plasma - standard' or 'plasma - supercharge'",
        ),
    ],
)
def test_weapon_names_that_fit_nothing(roles_lib, names, match):
    with pytest.raises(ScenarioError) as exc:
        expand_uses(_sc({"use": f"{roles_lib}:squad", "weapons": names}), "s.toml")
    assert str(exc.value).startswith("s.toml: attacker.weapons: ") and match in str(exc.value)


def test_weapon_names_for_an_entry_without_weapons(lib):
    with pytest.raises(ScenarioError, match="the entry used has no \\[\\[weapons\\]\\]"):
        expand_uses({"target": {"use": f"{lib / 'lib.toml'}:squad", "weapons": ["x"]}})


def test_not_modelled_is_kept_from_the_ruleset_and_shown(roles_lib, tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app
    from oddslab.libraries import entry_notes

    sc = tmp_path / "s.toml"
    sc.write_text('[attacker]\nuse = "army.toml:squad"\n[target]\nuse = "army.toml:squad"\n')
    load(sc)  # not_modelled never reaches the ruleset
    notes = entry_notes(sc)
    assert notes == {
        "attacker": "army.toml:squad: ability: Stubborn; keyword Pistol (pistol)",
        "target": "army.toml:squad: ability: Stubborn; keyword Pistol (pistol)",
    }
    res = CliRunner().invoke(app, ["show", str(sc), "--format", "json"])
    assert res.exit_code == 0 and "ability: Stubborn" in res.output
    assert "not modelled (library entries)" in res.output
