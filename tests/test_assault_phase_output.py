"""Assault phase output: statistic names and labels, resolved(), WARMUP, the primary
statistic, and determinism across thread counts."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import oddslab
from oddslab import engine, scenario
from oddslab.rulesets.assault_phase import WARMUP, AssaultScenario, ModelGroup, Side, Unit
from oddslab.scenario import ScenarioError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("assault-*.toml"))


def _duel(**unit_kw) -> AssaultScenario:
    att = Unit("Sarge", (ModelGroup("Sergeant", 1, a=1, save=3, weapon="power-fist"),), **unit_kw)
    dfn = Unit("Guard", (ModelGroup("Marine", 1, a=1, save=3),))
    return AssaultScenario(Side("A", (att,)), Side("D", (dfn,)))


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_labels_are_plain_words(path):
    sc = scenario.load(path)
    for st in sc.stats():
        assert "_" not in st.title, st.name
    for h in sc.headlines():
        assert "_" not in h.label, h.label
    assert {h.stat for h in sc.headlines()} <= {s.name for s in sc.stats()}


def test_statistics_named_by_whose_fate_they_are():
    """The marine (I4) kills the sergeant (power fist, I1) first: the attacker lost a model."""
    r = _duel().run_with_dice([4, 4, 1])  # hit, wound, the sergeant's 3+ save fails
    assert r["attacker_models_lost"] == 1
    assert r["defender_models_lost"] == 0
    assert r["attacker_wounds_lost"] == 1
    assert r["attacker.Sarge.Sergeant.models_lost"] == 1
    assert r["hits_on_attacker"] == 1 and r["attacker_attacks_made"] == 0
    assert r["attacker_destroyed"] == 1 and r["defender_won_assault"] == 1


def test_only_statistics_the_scenario_can_produce():
    names = {s.name for s in _duel().stats()}
    assert "attacker_charged" not in names  # nothing can fail the charge
    assert "defender_failed_to_regroup" not in names
    assert "combat_ended_turn" not in names  # one turn: use the won_fight flags
    names = {s.name for s in _duel(difficult_terrain_distance=4).stats()}
    assert "attacker_charged" in names
    # defenders that cannot attack: nothing can happen to the attacker
    att = Unit("A", (ModelGroup("a", 2),))
    dfn = Unit("D", (ModelGroup("d", 2, a=0),))
    names = {s.name for s in AssaultScenario(Side("A", (att,)), Side("D", (dfn,))).stats()}
    assert "attacker_models_lost" not in names and "defender_models_lost" in names


def test_charge_distance_key_was_renamed():
    data = dict(WARMUP)
    data["attacker"] = {"units": [{"name": "A", "charge_distance": 3, "groups": [{}]}]}
    with pytest.raises(ScenarioError, match="difficult_terrain_distance"):
        scenario.from_dict(data, source="old.toml")
    data["attacker"]["units"][0] = {"name": "A", "difficult_terrain_distance": 3, "groups": [{}]}
    sc = scenario.from_dict(data, source="new.toml")
    assert sc.attacker.units[0].difficult_terrain_distance == 3


def test_typo_reported_before_missing_key():
    data = {k: v for k, v in WARMUP.items() if k != "defender"}
    data["defnder"] = WARMUP["defender"]
    with pytest.raises(ScenarioError, match="defnder: unknown key; did you mean 'defender'"):
        scenario.from_dict(data, source="typo.toml")


def test_primary_is_defender_models_lost():
    for path in EXAMPLES:
        assert scenario.load(path).compile().meta["primary"] == "defender_models_lost"


def test_resolved_shows_derived_rolls():
    sc = scenario.load(ROOT / "examples" / "assault-marines-charge-orks-in-cover.toml")
    res = sc.resolved()
    json.dumps(res)  # JSON-ready
    for section in res.values():
        for value in section.values():
            assert isinstance(value, str | int | float | bool)
    sarge = res["attacker group: Tactical Squad / Sergeant"]
    assert sarge["to wound Boyz"].startswith("2+ (S8")
    assert sarge["save of Boyz"].startswith("none")
    assert sarge["strikes at"].startswith("Initiative 1")
    boyz = res["defender group: Boyz / Boyz"]
    assert boyz["models"].startswith("19: 12 in base contact, 7 supporting")
    assert boyz["to wound Tactical Squad"].startswith("5+ (S3 vs majority T4)")
    assert res["rules"]["reading of 'majority' (WS, Toughness, saves)"] == "most-common (default)"
    terrain = _duel(difficult_terrain_distance=4).resolved()["attacker unit: Sarge (A, charging)"]
    assert "P = 3/4" in terrain["charge"]  # 1 - (3/6)^2


def test_warmup_compiles_and_runs():
    out = engine.simulate(scenario.from_dict(WARMUP), trials=1, seed=1)
    assert out.trials == 1


_RUN = """
import json, sys, oddslab
from oddslab.engine import simulate
o = simulate(oddslab.load(sys.argv[1]), trials=300_000, seed=3)
print(json.dumps({k: [int(x) for x in v] for k, v in o.counts.items()}))
"""


def test_deterministic_at_one_and_two_threads():
    path = str(ROOT / "examples" / "assault-archon-retinue-mixed-saves.toml")
    outs = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(
            [sys.executable, "-c", _RUN, path], env=env, capture_output=True, text=True
        )
        assert res.returncode == 0, res.stderr[-2000:]
        outs.append(json.loads(res.stdout))
    assert outs[0] == outs[1]
    assert np.sum(outs[0]["defender_models_lost"]) == 300_000
    assert oddslab.load(path).name
