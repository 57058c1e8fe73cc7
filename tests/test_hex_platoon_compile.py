"""Hex platoon compile: statistics named by whose fate, plain labels, resolved(), Job, warm-up."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from hex_platoon_cases import air_case, assault_case, fire_case, sequence_case  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.rulesets.hex_platoon import WARMUP  # noqa: E402
from oddslab.scenario import from_dict  # noqa: E402


def test_job_contract_and_primary():
    for d, primary in (
        (fire_case(), "target_state"),
        (assault_case(), "hits_on_defender"),
        (air_case(), "unsaved_hits_by_aircraft"),
    ):
        sc = from_dict(d)
        job = sc.compile()
        assert job.ruleset == "hex-platoon"
        assert job.meta["primary"] == primary
        names = [s.name for s in job.stats]
        assert len(names) == len(set(names))
        for s in job.stats:
            assert s.label and "_" not in s.label, s
        for h in job.headlines:
            assert h.stat in names and h.label.startswith("P(")
        assert all(p.dtype == np.int64 for p in job.params)


def test_statistics_name_whose_fate():
    names = [s.name for s in from_dict(assault_case()).stats()]
    assert {
        "hits_on_defender",
        "hits_on_attacker",
        "attacker_retreated",
        "defender_retreated",
    } <= set(names)
    assert {"attacker_took_hex", "def_state", "d_hq_state", "a_hq_state"} <= set(names)
    names = [s.name for s in from_dict(air_case()).stats()]
    assert {
        "hits_on_aircraft",
        "aircraft_fate",
        "aircraft_back_in_cup",
        "farm_units_eliminated",
    } <= set(names)
    names = [s.name for s in from_dict(sequence_case()).stats()]
    assert "mine_hits_on_road_step1" in names and "at_gun_fired_step2" in names


def test_resolved_shows_derived_numbers():
    r = from_dict(fire_case(hq=True)).resolved()
    step = r["step 1: fire"]
    assert "dice hit on 4+" in step["attack"] and "augmentation" in step["attack"]
    assert r["unit target"]["concealed"].startswith("yes")
    assert "(default)" in r["rules"]["assault result"]
    for sec in r.values():
        for v in sec.values():
            assert isinstance(v, str | int | float | bool)


def test_warmup_compiles_and_runs():
    out = engine.simulate(from_dict(WARMUP), trials=1, seed=1)
    assert out.trials == 1


def test_overrun_defender_augmentation_switch():
    """6.4 "Good Order defending unit counts its hits: unmodified Assault factor": the
    defender's '+' is read as part of its printed factor (kept) unless switched off."""
    from hex_platoon_cases import TANK, scenario, unit

    hexes = [
        {"name": "pz", "units": [unit("panzer", **TANK)]},
        {"name": "open", "units": [unit("sq", type="infantry", assault=2, assault_plus=True)]},
    ]
    steps = [{"kind": "overrun", "attacker": "pz", "defender": "open"}]
    for rules, aug in ((None, 1), ({"overrun_defender_augmented": False}, 0)):
        mem = from_dict(scenario(hexes, steps, rules)).melee_members(0)
        dfd = [m for m in mem if m[1] == 1]
        assert [(m[2], m[3]) for m in dfd] == [(2, aug)]


def test_movement_ends_where_the_stack_stops_moving():
    """The moving stack's Ops Complete marker goes on before the first step that is not its
    move, opportunity fire at it, or its assault (here the rally, step 5)."""
    sc = from_dict(sequence_case())
    kinds = [s.kind for s in sc.steps]
    assert kinds == ["move", "fire", "move", "assault", "overrun", "rally"]
    road = sc.hex_index()["road"]
    assert sc.movement_ends() == [-1, -1, -1, -1, road, -1]


def test_resolved_states_the_mines_and_caller_rules():
    from hex_platoon_cases import RIFLES, scenario, unit

    hexes = [
        {"name": "ip", "improved_position": True, "units": [unit("a", **RIFLES)]},
        {"name": "op", "units": [unit("obs", type="recon")]},
    ]
    steps = [
        {"kind": "move", "stack": "ip", "mines": True},
        {"kind": "artillery", "spotter": "obs", "hexes": ["ip"], "firepower": 2, "to_hit": 4},
    ]
    r = from_dict(scenario(hexes, steps)).resolved()
    assert r["step 1: move"]["improved position"] == "nullifies the first mines hit"
    assert "in command" in r["step 2: artillery"]["called by"]
    off = from_dict(scenario(hexes, steps, {"mines_improved_position": False})).resolved()
    assert "ignored" in off["step 1: move"]["improved position"]
