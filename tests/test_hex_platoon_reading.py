"""Hex platoon scenario files: every bad input is one ScenarioError naming the key."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hex_platoon_cases import (  # noqa: E402
    HQ,
    RIFLES,
    TANK,
    air_case,
    assault_case,
    fire_case,
    scenario,
    unit,
)

from oddslab._schema import ScenarioError  # noqa: E402
from oddslab.rulesets.hex_platoon import WARMUP, HexPlatoonScenario, Rules  # noqa: E402
from oddslab.scenario import from_dict, load  # noqa: E402


def bad(d, key, words):
    with pytest.raises(ScenarioError) as err:
        from_dict(d, source="bad.toml")
    assert err.value.key == key, str(err.value)
    assert words in err.value.problem, str(err.value)
    assert str(err.value).startswith(f"bad.toml: {key}: ")


def test_reads_the_shared_cases():
    sc = from_dict(fire_case(hq=True))
    assert isinstance(sc, HexPlatoonScenario)
    assert sc.rules == Rules()
    assert from_dict(WARMUP).steps[0].kind == "fire"


def test_unknown_target_names_the_step_key():
    d = fire_case()
    d["steps"][0]["target"] = "nobody"
    bad(d, "steps[0].target", "not a unit")


def test_bad_terrain_and_typo():
    d = fire_case(hex_kw={"terrain": "swamp"})
    bad(d, "hexes[1].terrain", "expected one of")
    d = fire_case()
    d["hexes"][0]["units"][0]["firepwr"] = 3
    bad(d, "hexes[0].units[0].firepwr", "unknown key")


def test_bad_kind_and_step_key():
    d = fire_case()
    d["steps"][0]["kind"] = "shoot"
    bad(d, "steps[0].kind", "expected one of")
    d = fire_case()
    d["steps"][0]["mines"] = True  # a move key on a fire step
    bad(d, "steps[0].mines", "unknown key")


def test_fire_twice_is_ops_complete():
    d = fire_case()
    d["steps"].append(dict(d["steps"][0]))
    bad(d, "steps[1].firer", "Ops Complete")


def test_extended_range_impossible():
    d = fire_case(firer_kw={"he": 1, "to_hit": 6, "he_plus": False}, step_kw={"band": "extended"})
    bad(d, "steps[0].band", "cannot fire at extended range")
    d = fire_case(firer_kw={"range_underlined": True}, step_kw={"band": "reduced"})
    bad(d, "steps[0].band", "underlined")
    d = fire_case(step_kw={"distance": 40})
    bad(d, "steps[0].distance", "beyond the range")


def test_hq_must_share_the_hex_and_lend_once():
    d = fire_case()
    d["hexes"][1]["units"].append(unit("far hq", **HQ))
    d["steps"][0]["hq"] = "far hq"
    bad(d, "steps[0].hq", "not in the hex")


def test_hq_lends_once_across_fire_and_assault():
    # 1.3.2: leadership goes to "1 only unit"; a fire step then an assault may not both use it
    d = assault_case(defender_hq_unit="")
    d["steps"].insert(
        0, {"kind": "fire", "firer": "2nd", "target": "def", "band": "normal", "hq": "A hq"}
    )
    bad(d, "steps[1].attacker_hq_unit", "already lent its leadership in step 1")
    d = assault_case()
    d["steps"].append(dict(d["steps"][0], defender_hq_unit=""))
    bad(d, "steps[1].attacker_hq_unit", "already lent")


def test_two_hqs_in_a_hex():
    d = fire_case(hq=True)
    d["hexes"][0]["units"].append(unit("second hq", **HQ))
    bad(d, "hexes[0].units", "no more than 1 HQ")


def test_hq_alone_in_a_hex():
    # 1.3.2: an (s)HQ "must remain/move with 1+ unit of its formation"
    d = fire_case()
    d["hexes"][1]["units"] = [unit("lonely hq", **HQ)]
    d["steps"] = [{"kind": "mortar", "firer": "mg", "target": "woods"}]
    bad(d, "hexes[1].units", "1+ unit of its formation")


def test_rules_key_and_value():
    d = fire_case(rules={"assault_result": "sideways"})
    bad(d, "rules.assault_result", "expected one of")
    d = fire_case(rules={"armour_bonus": True})
    bad(d, "rules.armour_bonus", "unknown key")


def test_primary_must_be_a_statistic():
    d = fire_case()
    d["primary"] = "nothing"
    bad(d, "primary", "not a statistic")


def test_overrun_and_assault_legality():
    d = scenario(
        [
            {"name": "a", "units": [unit("tank", **TANK)]},
            {"name": "b", "terrain": "wood", "units": [unit("r", **RIFLES)]},
        ],
        [{"kind": "overrun", "attacker": "a", "defender": "b"}],
    )
    bad(d, "steps[0].defender", "open or hill")
    d = scenario(
        [
            {"name": "a", "units": [unit("r", **RIFLES)]},
            {"name": "b", "units": [unit("tank", **TANK)]},
        ],
        [{"kind": "assault", "attacker": "a", "defender": "b", "adjacent_at_start": False}],
    )
    bad(d, "steps[0].adjacent_at_start", "adjacent")
    d = assault_case(attacker_hq_unit="def")
    bad(d, "steps[0].attacker_hq_unit", "not in hex")


def test_opportunity_fire_needs_a_move():
    d = fire_case(step_kw={"opportunity": True})
    bad(d, "steps[0].opportunity", "no earlier move")


def test_artillery_needs_hexes_and_firepower():
    d = scenario(
        [{"name": "a", "units": [unit("r", **RIFLES)]}],
        [{"kind": "artillery", "firepower": 3, "to_hit": 5}],
    )
    bad(d, "steps[0].hexes", "required")
    d = scenario(
        [{"name": "a", "units": [unit("r", **RIFLES)]}],
        [{"kind": "artillery", "hexes": ["a", "x"], "firepower": 3, "to_hit": 5}],
    )
    bad(d, "steps[0].hexes[1]", "not a hex")


def test_missing_file_and_cli_exit_code(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    with pytest.raises(ScenarioError):
        load(tmp_path / "none.toml")
    p = tmp_path / "bad.toml"
    p.write_text(
        'ruleset = "hex-platoon"\n[[hexes]]\nname = "a"\nterrain = "moon"\n[[steps]]\nkind = "rally"\n'
    )
    res = CliRunner().invoke(app, ["simulate", str(p), "--trials", "1000"])
    assert res.exit_code == 2
    assert "hexes[0].terrain" in res.output


def test_unit_library_entries_and_template():
    import tomllib

    root = Path(__file__).resolve().parent.parent
    lib = tomllib.loads((root / "oddslab/examples/libraries/hex-platoon.toml").read_text())
    assert lib["ruleset"] == "hex-platoon"
    entries = {
        k: {kk: v for kk, v in e.items() if kk not in ("points", "points_per_model")}
        for k, e in lib["units"].items()
    }
    for e in entries.values():
        assert "points" not in e
        other = {"name": "other", "type": "infantry"}
        from_dict(scenario([{"name": "a", "units": [e, other]}], [{"kind": "rally", "stack": "a"}]))
    tpl = lib["matchup"]["template"]
    hexes = []
    for h in tpl["hexes"]:
        units = []
        for u in h["units"]:
            key = "mg-platoon" if u["use"] == "{attacker}" else "rifle-platoon"
            units.append({**entries[key], **{k: v for k, v in u.items() if k != "use"}})
        hexes.append({**h, "units": units})
    d = {k: v for k, v in tpl.items() if k not in ("hexes", "name")}
    sc = from_dict({**d, "hexes": hexes})
    assert sc.compile().meta["primary"] == "target_state"


def test_more_than_two_missions_from_one_caller(tmp_path):
    """Rule 11.2: an (s)HQ or recon unit may call up to 2 fire missions; observed mortar fire
    is conducted as an artillery mission and counts."""
    hexes = [
        {"name": "op", "units": [unit("hq", **HQ), unit("x", **RIFLES)]},
        {"name": "target", "units": [unit("inf", **RIFLES)]},
        {"name": "m", "units": [unit("mortar", type="mortar", he=3, range=8, to_hit=4)]},
    ]
    call = {"kind": "artillery", "spotter": "hq", "hexes": ["target"], "firepower": 1, "to_hit": 4}
    bad(scenario(hexes, [call, call, call]), "steps[2].spotter", "already called 2 fire missions")
    observed = {"kind": "mortar", "firer": "mortar", "target": "target", "spotter": "hq"}
    bad(scenario(hexes, [call, observed, call]), "steps[2].spotter", "up to 2 (rule 11.2)")
    from_dict(scenario(hexes, [call, call]))  # two are fine
    from typer.testing import CliRunner

    from oddslab.cli import app

    step = (
        '[[steps]]\nkind = "artillery"\nspotter = "hq"\nhexes = ["t"]\nfirepower = 1\nto_hit = 4\n'
    )
    p = tmp_path / "three.toml"
    p.write_text(
        'ruleset = "hex-platoon"\n[[hexes]]\nname = "op"\n[[hexes.units]]\nname = "hq"\n'
        'type = "hq"\n[[hexes.units]]\nname = "x"\n[[hexes]]\nname = "t"\n[[hexes.units]]\n'
        'name = "inf"\n' + 3 * step
    )
    res = CliRunner().invoke(app, ["simulate", str(p), "--trials", "1000"])
    assert res.exit_code == 2
    assert "three.toml" in res.output and "steps[2].spotter" in res.output


def test_clearing_mines_needs_infantry_or_engineers():
    hexes = [{"name": "lane", "units": [unit("tank", **TANK)]}]
    bad(scenario(hexes, [{"kind": "clear-mines", "stack": "lane"}]), "steps[0].stack", "rule 8.2")
    bad(
        scenario(hexes, [{"kind": "clear-mines", "units": ["tank"]}]),
        "steps[0].units[0]",
        "only infantry and engineers",
    )


def test_new_rule_switches_read_and_checked():
    d = fire_case(rules={"hit_ladder": "one-step-per-attack", "mines_stop_movement": False})
    r = from_dict(d).rules
    assert r.hit_ladder == "one-step-per-attack" and not r.mines_stop_movement
    bad(
        fire_case(rules={"move_ops_complete": "never"}),
        "rules.move_ops_complete",
        "expected one of",
    )


@pytest.mark.parametrize("flag", ["disrupted", "reduced", "ops_complete", "out_of_command"])
def test_an_aircraft_starts_in_good_order(flag):
    """Rule 11.3: a disrupted aircraft goes back in the cup during the Marker Removal Phase,
    so the one that strikes comes out of the cup in good order; the air strike never reads
    these flags, so a scenario setting one would silently be answered without it."""
    d = air_case()
    d["hexes"][0]["units"][0][flag] = True
    bad(d, f"hexes[0].units[0].{flag}", "arrives from the cup in good order")
    d["hexes"][0]["units"][0][flag] = False
    assert from_dict(d).units[0].type == "aircraft"  # (good order reads)


def test_an_aircraft_strikes_once():
    """Rule 11.3: after its strike the aircraft goes back to the cup or its strikes are over
    (and the AA may have shot it down): a second strike of the same aircraft is refused, as
    the strike would not know the first one's outcome."""
    d = air_case()
    d["steps"].append(dict(d["steps"][0]))
    bad(d, "steps[1].aircraft", "already strikes in step 1")
    # a second sortie with its own aircraft reads
    d = air_case()
    d["hexes"][0]["units"].append(unit("stuka2", type="aircraft", he=4, to_hit=4, armor=1, save=5))
    d["steps"].append({**d["steps"][0], "aircraft": "stuka2"})
    assert [s.aircraft for s in from_dict(d).steps] == ["stuka", "stuka2"]
