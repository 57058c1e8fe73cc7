"""Hex platoon kernel: every static part against its exact PMF (chi-square, 1e6 trials),
the dynamic parts against the naive reference and the fast one (whole distributions, 0.5 pp
power on the headline statistics), determinism at 1 and 2 threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

import fast_hex_platoon as F  # noqa: E402
import naive_hex_platoon as N  # noqa: E402
from hex_platoon_cases import (  # noqa: E402
    HQ,
    RIFLES,
    TANK,
    air_case,
    assault_case,
    fire_case,
    scenario,
    sequence_case,
    unit,
)
from stats import P_MIN, assert_prob, chisquare_pmf  # noqa: E402
from switches import assert_agree  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.scenario import from_dict  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

_HEXES = [
    {
        "name": "woods",
        "terrain": "wood",
        "defence": 1,
        "improved_position": True,
        "units": [
            unit("a", **RIFLES),
            unit("b", **RIFLES, disrupted=True),
            unit("t", **TANK),
            unit("hq", **HQ),
        ],
    },
    {"name": "n1", "units": [unit("c", **RIFLES)]},
    {"name": "n2", "units": [unit("d", **TANK), unit("e", **RIFLES, reduced=True)]},
    {"name": "n3"},
    {"name": "n4"},
    {"name": "n5"},
    {"name": "n6"},
    {
        "name": "m",
        "units": [
            unit("mortar", type="mortar", he=3, range=8, to_hit=4),
            unit("obs", type="recon"),
        ],
    },
]

#: two hard targets and a soft one in a hex (the artillery's ignored hits)
_PARK = [
    {
        "name": "park",
        "defence": 1,
        "units": [unit("t1", **TANK), unit("t2", **TANK), unit("r", **RIFLES, disrupted=True)],
    }
]

STATIC = {
    "fire-soft-concealed": fire_case(),
    "fire-hq-augmented": fire_case(hq=True),
    "fire-hq-added-reduced-range": fire_case(
        step_kw={"distance": 2}, rules={"hq_bonus": "added"}, hq=True
    ),
    "fire-extended": fire_case(step_kw={"band": "extended"}),
    "fire-hard-cover": fire_case(
        target_kw=TANK,
        firer_kw={"ap": 3, "to_hit": 4},
        hex_kw={"defence_hard": 2},
        rules={"armor_bonus_cover_5plus": True, "concealment_in_cap": False},
    ),  # fmt: skip
    "fire-ip-disrupted": fire_case(
        hex_kw={"improved_position": True}, target_kw={"disrupted": True}
    ),
    "artillery-7-hexes": scenario(
        _HEXES,
        [
            {
                "kind": "artillery",
                "hexes": ["woods", "n1", "n2", "n3", "n4", "n5", "n6"],
                "firepower": 5,
                "to_hit": 4,
            }
        ],
    ),
    "artillery-passed-on": scenario(
        _HEXES,
        [{"kind": "artillery", "hexes": ["woods", "n2"], "firepower": 7, "to_hit": 3}],
        rules={"excess_hits": "passed-on", "concealed_infantry_scope": "all-fire"},
    ),  # fmt: skip
    "artillery-per-attack-passed-on": scenario(
        _HEXES,
        [{"kind": "artillery", "hexes": ["woods", "n2"], "firepower": 7, "to_hit": 3}],
        rules={"excess_hits": "passed-on", "hit_ladder": "one-step-per-attack"},
    ),  # fmt: skip
    "artillery-hard-per-attack": scenario(
        _PARK,
        [{"kind": "artillery", "hexes": ["park"], "firepower": 5, "to_hit": 3}],
        rules={"artillery_hard_ignore": "per-attack", "excess_hits": "passed-on"},
    ),  # fmt: skip
    "fire-per-attack-fast-path": fire_case(
        firer_kw={"he": 4, "to_hit": 3},
        rules={"hit_ladder": "one-step-per-attack", "concealed_infantry_not_reduced": False},
    ),  # fmt: skip
    "mines-improved-position": scenario(
        _HEXES, [{"kind": "move", "stack": "woods", "mines": True}]
    ),
    "mines-improved-position-off": scenario(
        _HEXES,
        [{"kind": "move", "stack": "woods", "mines": True}],
        rules={"mines_improved_position": False},
    ),
    "mortar-observed": scenario(
        _HEXES, [{"kind": "mortar", "firer": "mortar", "target": "woods", "spotter": "obs"}]
    ),
    "mines": scenario(_HEXES, [{"kind": "move", "stack": "n2", "mines": True}]),
    "mines-sum": scenario(
        _HEXES, [{"kind": "move", "stack": "n2", "mines": True}], rules={"mine_roll": "sum"}
    ),
    "rally": scenario(
        [
            {
                "name": "w",
                "units": [
                    unit("a", **RIFLES, disrupted=True),
                    unit("b", **RIFLES, disrupted=True, out_of_command=True),
                    unit("hq", **HQ),
                ],
            }
        ],
        [{"kind": "rally", "stack": "w"}],
    ),
    "fire-at-hq-hex": scenario(
        [
            {"name": "ridge", "units": [unit("mg", **{**RIFLES, "he": 4, "to_hit": 4})]},
            {
                "name": "field",
                "units": [unit("a", **RIFLES), unit("b", **RIFLES), unit("hq", **HQ)],
            },
        ],
        [{"kind": "fire", "firer": "mg", "target": "a"}],
    ),
    "command": scenario(
        [{"name": "w", "units": [unit("a", **RIFLES)]}],
        [{"kind": "command", "stack": "w", "morale": 7}],
    ),
    "clear": scenario(
        [{"name": "w", "units": [unit("a", **RIFLES), unit("e", type="engineer")]}],
        [{"kind": "clear-mines", "stack": "w"}],
    ),
}


@pytest.mark.statistical
@pytest.mark.parametrize("case", sorted(STATIC))
def test_static_parts_match_exact(case):
    sc = from_dict(STATIC[case])
    exact = sc.exact_pmfs()
    assert exact, "the static case must have exact PMFs"
    out = engine.simulate(sc, trials=1_000_000, seed=20261122)
    for name, pmf in exact.items():
        assert pmf.sum() == pytest.approx(1.0)
        p = chisquare_pmf(out.counts[name], pmf)
        assert p > P_MIN, f"{case}: {name} p = {p:.2e}"


def test_fair_distribution_hand_worked_in_the_kernel():
    """5 certain hits on 3 good-order units (mortar 5 dice on 1+, no saves, no extra die):
    always exactly one unit disrupted and two reduced; each unit reduced with P = 2/3."""
    hexes = [
        {"name": "m", "units": [unit("mortar", type="mortar", he=5, range=8, to_hit=1)]},
        {"name": "x", "units": [unit("a", **RIFLES), unit("b", **RIFLES), unit("c", **RIFLES)]},
    ]
    d = scenario(
        hexes,
        [{"kind": "mortar", "firer": "mortar", "target": "x"}],
        rules={"artillery_extra_die": False},
    )
    out = engine.simulate(from_dict(d), trials=1_000_000, seed=8)
    assert out.prob("x_units_reduced_or_eliminated", 2) == 1.0
    assert out.prob("x_units_reduced_or_eliminated", 3) == 0.0
    assert out.prob("x_units_disrupted_or_worse", 3) == 1.0
    F.check_exact(out.counts, {f"{u}_state": np.array([0, 1, 2, 0]) / 3 for u in "abc"}, "fair")


#: pure-Python reference trials of the dynamic comparisons: a whole-distribution check of
#: the slow reference; the 0.5 pp power comes from the fast reference (tests/fast_hex_platoon.py)
N_NAIVE = 4_000


def _compare(d, extra=(), seed=11):
    """The kernel (10^6 trials) against the naive reference (``N_NAIVE`` trials) and the fast
    one, every statistic's whole distribution (two-sample chi-square, Bonferroni), with the
    power to see a 0.5 pp error in the headline statistics (the primary and ``extra``)."""
    sc = from_dict(d)
    out = engine.simulate(sc, trials=1_000_000, seed=seed)
    kernel = {name: np.asarray(c) for name, c in out.counts.items()}
    assert_agree(kernel, N.simulate(sc, N_NAIVE, seed), f"{sc.name} (naive reference)")
    F.check_kernel(sc, kernel, [out.primary_stat(), *extra], seed, sc.name)
    return sc, out


@pytest.mark.statistical
def test_assault_with_hqs_matches_naive():
    sc, out = _compare(assault_case(), ["attacker_took_hex"])
    assert 0 < out.prob("attacker_took_hex", 1) < 1


@pytest.mark.statistical
def test_assault_switches_match_naive():
    _compare(
        assault_case(
            rules={"assault_result": "literal", "hq_bonus": "added", "excess_hits": "passed-on"},
            can_retreat=False,
        ),
        ["attacker_took_hex"],
    )


@pytest.mark.statistical
@pytest.mark.parametrize("mode", ["per-hard-target", "per-attack"])
def test_artillery_on_hard_targets_matches_naive(mode):
    steps = [{"kind": "artillery", "hexes": ["park"], "firepower": 5, "to_hit": 3}]
    _compare(scenario(_PARK, steps, rules={"artillery_hard_ignore": mode}))


@pytest.mark.statistical
@pytest.mark.parametrize(
    "rules",
    [None, {"ops_complete_bars": "fire"}, {"move_ops_complete": "on-entering"}],
    ids=["default", "fire-only", "on-entering"],
)
def test_ops_complete_markers_match_naive(rules):
    """Who a marker keeps from moving, overrunning, assaulting and clearing mines: tanks
    overrun twice, a platoon fires then moves and assaults, an engineer marked at the start."""
    hexes = [
        {"name": "road", "units": [unit("tank", **TANK), unit("tank2", **TANK, ops_complete=True)]},
        {"name": "f1", "units": [unit("s1", **RIFLES)]},
        {"name": "f2", "units": [unit("s2", **RIFLES, disrupted=True)]},
        {"name": "lane", "units": [unit("inf", **RIFLES), unit("eng", type="engineer", ops_complete=True)]},
        {"name": "wood", "terrain": "wood", "units": [unit("def", **RIFLES)]},
    ]  # fmt: skip
    steps = [
        {"kind": "overrun", "attacker": "road", "defender": "f1"},
        {"kind": "overrun", "attacker": "road", "defender": "f2"},
        {"kind": "clear-mines", "stack": "lane"},
        {"kind": "fire", "firer": "inf", "target": "def"},
        {"kind": "move", "stack": "lane"},
        {"kind": "assault", "attacker": "lane", "defender": "wood"},
    ]
    _compare(scenario(hexes, steps, rules), ["def_state"])


@pytest.mark.statistical
@pytest.mark.rule_switch("hex-platoon", "artillery_soft_extra_defence")
@pytest.mark.rule_switch("hex-platoon", "artillery_soft_extra_scope")
@pytest.mark.parametrize(
    "rules",
    [None, {"artillery_soft_extra_scope": "per-hex"}, {"artillery_soft_extra_defence": False}],
    ids=["per-soft-unit", "per-hex", "restatement"],
)
def test_soft_target_extra_defence_after_fire_matches_naive(rules):
    """Two steps through the general kernel: a platoon (1 die on 4+) fires at a reduced,
    disrupted platoon (eliminated with P 1/2), then a mortar fires at its hex, which holds a
    second platoon and a tank: the extra defence dice count the soft targets still alive
    (2 or 1 per soft target, 1 per hex, none as a restatement of 6.1's +1)."""
    hexes = [
        {
            "name": "guns",
            "units": [
                unit("mortar", type="mortar", he=2, range=10, to_hit=3),
                unit("shooter", type="infantry", he=1, range=6, to_hit=4),
            ],
        },
        {
            "name": "field",
            "units": [
                unit("rifles", type="infantry", he=1),
                unit("rifles2", type="infantry", he=1, reduced=True, disrupted=True),
                unit("tank", type="afv", ap=1),
            ],
        },
    ]
    steps = [
        {"kind": "fire", "firer": "shooter", "target": "rifles2", "band": "normal"},
        {"kind": "mortar", "firer": "mortar", "target": "field", "band": "normal"},
    ]
    _compare(scenario(hexes, steps, rules), ["unsaved_hits_on_field_step2"])


@pytest.mark.statistical
def test_air_strike_into_aa_matches_naive():
    sc, out = _compare(air_case(), ["aircraft_fate"])
    assert out.prob("aircraft_fate", 4) > 0  # shot down sometimes


@pytest.mark.statistical
def test_air_strike_switches_match_naive():
    _compare(
        air_case(
            {
                "disrupted_aircraft_strikes": True,
                "air_failed_strike_return": "zero-hits",
                "air_concealed": "any-unit",
            }
        )
    )


def test_air_strike_hits_on_the_target_hex_and_astray():
    """11.3 strike accuracy "1 : failure, the defending chose an adjacent hex for the strike
    to hit; 2 : firepower is reduced -1D; 3-6 : successfull strike". No AA; 3 dice on 1+;
    one platoon in the open in each hex (no save dice): hits on the target hex 3 with P 4/6,
    2 with P 1/6, 0 with P 1/6 (astray); on the adjacent hex 3 with P 1/6, else 0."""
    hexes = [
        {"name": "sky", "units": [unit("stuka", type="aircraft", he=3, to_hit=1)]},
        {"name": "farm", "units": [unit("r1", type="infantry", he=1)]},
        {"name": "field", "units": [unit("r2", type="infantry", he=1)]},
    ]
    step = {"kind": "air-strike", "aircraft": "stuka", "target": "farm", "adjacent": "field"}
    out = engine.simulate(from_dict(scenario(hexes, [step])), trials=1_000_000, seed=29)
    on = out.counts["unsaved_hits_by_aircraft_on_farm"]
    astray = out.counts["unsaved_hits_by_aircraft_on_field"]
    want = {
        "unsaved_hits_by_aircraft_on_farm": np.array([1, 0, 1, 4]) / 6,
        "unsaved_hits_by_aircraft_on_field": np.array([5, 0, 0, 1]) / 6,
    }
    F.check_exact(out.counts, want, "air strike on target and astray")
    assert on[0] == astray[3]  # every trial's strike lands on one hex or the other


@pytest.mark.statistical
def test_sequence_mines_opportunity_assault_overrun_matches_naive():
    sc, out = _compare(sequence_case(), ["def_state"])
    assert out.prob("road_entered_hex_step3", 1) < 1  # mines and opportunity fire stop the stack


def test_disrupted_attackers_and_no_defenders():
    """Hand-checkable corner: the only defender is eliminated by hits → attacker takes the hex."""
    d = assault_case()
    sc = from_dict(d)
    out = engine.simulate(sc, trials=50_000, seed=3)
    took = out.prob("attacker_took_hex", 1)
    ret = out.prob("attacker_retreated", 1)
    dret = out.prob("defender_retreated", 1)
    assert took + ret <= 1 + 1e-12
    assert dret <= took + 1e-12


_DET = """
import json, sys
sys.path.insert(0, "tests")
from hex_platoon_cases import fire_case, sequence_case
from oddslab import engine
from oddslab.scenario import from_dict
res = {}
for name, d in (("sequence", sequence_case()), ("fire", fire_case())):
    out = engine.simulate(from_dict(d), trials=300_000, seed=99)
    res[name] = {k: v.tolist() for k, v in out.counts.items()}
print(json.dumps(res))
"""


def test_deterministic_at_1_and_2_threads():
    res = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads, PYTHONPATH=str(ROOT))
        p = subprocess.run(
            [sys.executable, "-c", _DET],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        res.append(json.loads(p.stdout.strip().splitlines()[-1]))
    assert res[0] == res[1]
    assert set(res[0]) == {"sequence", "fire"}


def test_single_fire_uses_the_fast_path():
    from oddslab.rulesets.hex_platoon import layout as R

    assert from_dict(fire_case()).compile().params[-1][R.F_ON] == 1
    with_hq = fire_case()
    with_hq["hexes"][1]["units"].append(unit("hq", **HQ))  # the (s)HQ test needs the full kernel
    assert from_dict(with_hq).compile().params[-1][R.F_ON] == 0
    assert from_dict(sequence_case()).compile().params[-1][R.F_ON] == 0


def _run(d, n=20_000, seed=4):
    return engine.simulate(from_dict(d), trials=n, seed=seed)


def test_certain_outcomes_follow_the_rules():
    """Dice that cannot fail (To Hit 1) or cannot succeed (To Hit 7) pin the documented rules."""
    sure = dict(
        type="infantry", he=6, ap=6, range=6, to_hit=1, assault=6, assault_to_hit=1, morale=2
    )
    # opportunity fire that always disrupts stops the stack: it never enters the next hex
    hexes = [
        {"name": "road", "units": [unit("movers", **RIFLES)]},
        {"name": "ridge", "units": [unit("gun", **sure)]},
    ]
    steps = [
        {"kind": "move", "stack": "road"},
        {"kind": "fire", "firer": "gun", "target": "movers", "opportunity": True},
        {"kind": "move", "stack": "road"},
    ]
    out = _run(scenario(hexes, steps))
    assert out.prob("road_entered_hex_step3", 1) == 0.0
    assert out.prob("movers_state", 3) == 1.0  # 6 certain hits, no saves in the open
    # a disrupted attacker may not attack: its side scores nothing
    hexes = [
        {
            "name": "a",
            "units": [
                unit("att", **{**sure, "disrupted": True}),
                unit("att2", **RIFLES, assault_counter_only=True),
            ],
        },
        {"name": "b", "units": [unit("def", **RIFLES)]},
    ]
    out = _run(scenario(hexes, [{"kind": "assault", "attacker": "a", "defender": "b"}]))
    assert out.prob("hits_on_defender", 1) == 0.0
    # a failed command check (morale 2 fails unless double one) keeps the firer from firing
    hexes = [
        {"name": "a", "units": [unit("shooter", **sure)]},
        {"name": "b", "units": [unit("target", **RIFLES)]},
    ]
    steps = [
        {"kind": "command", "stack": "a"},
        {"kind": "fire", "firer": "shooter", "target": "target"},
    ]
    out = _run(scenario(hexes, steps), n=200_000)
    assert_prob(out.prob("shooter_fired_step2", 1), 1 / 36, 200_000)
    # AA that always hits twice (no armor): the aircraft is always shot down, never strikes
    aa = dict(type="aa", aa=2, range=4, to_hit=1)
    hexes = [
        {"name": "sky", "units": [unit("plane", type="aircraft", he=3, to_hit=4, armor=0, save=6)]},
        {"name": "t", "units": [unit("r", **RIFLES), unit("flak", **aa)]},
    ]
    out = _run(
        scenario(
            hexes, [{"kind": "air-strike", "aircraft": "plane", "target": "t", "aa": ["flak"]}]
        )
    )
    assert out.prob("aircraft_fate", 4) == 1.0
    assert out.prob("strike_accuracy", 1) == 0.0
    assert out.prob("r_state", 1) == 0.0
