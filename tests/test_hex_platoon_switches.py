"""Every hex platoon rule switch, each value, against independent answers on the general kernel.

Each case runs on the general kernel (``kernel_run``), not the single-fire fast path: the
issue's example is ``concealment_in_cap = false`` in a two-step fire at a concealed AFV, which
the fast path alone never tested. For every value, with ``N_KERNEL`` kernel trials:

- the kernel's whole distribution of every statistic agrees with the pure-Python reference
  ``tests/naive_hex_platoon.py`` (two-sample chi-square, ``N_NAIVE`` trials run once per
  session) and, for a value other than the default, differs from the kernel's answer at the
  default (tests/switches.py);
- every statistic the exact engine answers (the first, static step's, or all of them) matches
  its exact PMF (chi-square), and would not with 0.5 pp of the kernel's histogram moved
  between two neighbouring outcomes (``switches.planted_shift``), checked on every run;
- every statistic agrees with the fast numpy reference ``tests/fast_hex_platoon.py`` (as
  many trials as ``fast_hex_platoon.fast_trials`` asks), and the case's headline statistics
  (``HEADLINE``, those its switches move) with the power to see a 0.5 pp error
  (``switches.assert_power``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_hex_platoon as F  # noqa: E402
import naive_hex_platoon as N  # noqa: E402
from hex_platoon_cases import HQ, MG, RIFLES, TANK, scenario, unit  # noqa: E402
from naive_cache import cached_run  # noqa: E402
from switches import (  # noqa: E402
    check_switch,
    kernel_once,
    switch_params,
)

from oddslab import engine  # noqa: E402
from oddslab.rulesets.hex_platoon.model import Rules  # noqa: E402
from oddslab.scenario import ScenarioError, from_dict  # noqa: E402

N_KERNEL = 1_000_000
N_NAIVE = 2_000
SEED = 27

AA = dict(type="aa", aa=3, he=2, ap=2, range=4, to_hit=4, assault=0)
BIG_GUN = dict(type="infantry", he=5, ap=4, range=6, to_hit=4, assault=0)


def _twice(target_hex: dict, firer: dict, step_kw: dict | None = None, hq: dict | None = None):
    """The firer fires twice at ``target`` (a two-step fire: the general kernel)."""
    fhex = {"name": "ridge", "units": [unit("gun", **firer)]}
    step = {"kind": "fire", "firer": "gun", "target": "target", **(step_kw or {})}
    if hq is not None:
        fhex["units"].append(unit("coy hq", **hq))
        step["hq"] = "coy hq"
    other = {"name": "ridge2", "units": [unit("gun2", **firer)]}
    step2 = {**step, "firer": "gun2"}
    step2.pop("hq", None)
    return [fhex, other, target_hex], [step, step2]


def concealed_afv(rules):
    # bonus 2 + the concealment die: 2 inside the cap, 3 outside; save 4+ so that the
    # cover dice on 5+ (armor_bonus_cover_5plus) differ from the Save Number
    thex = {"name": "woods", "terrain": "wood", "defence": 2, "defence_hard": 2}
    thex["units"] = [unit("target", **{**TANK, "save": 4})]
    return scenario(*_twice(thex, BIG_GUN), rules)


def concealed_rifles(rules, **step_kw):
    thex = {"name": "woods", "terrain": "wood", "defence": 1}
    thex["units"] = [unit("target", **RIFLES)]
    return scenario(*_twice(thex, BIG_GUN, step_kw), rules)


def extended(rules):
    thex = {"name": "open", "units": [unit("target", **RIFLES)]}
    # text: 3 dice on 6+ (mean 1/2 hit); the better choice: 2 dice on 5+ (mean 2/3)
    firer = dict(type="infantry", he=3, range=4, to_hit=5, assault=0)
    return scenario(*_twice(thex, firer, {"band": "extended"}), rules)


def with_hq(rules):
    thex = {"name": "open", "units": [unit("target", **RIFLES)]}
    hq = {**HQ, "leadership": 2, "leadership_reduced": 2}
    return scenario(*_twice(thex, {**MG, "he": 3}, hq=hq), rules)


def augmented(rules):
    """A ``+`` counter with a ``+`` support weapon: two augmentation dice, or one ("once")."""
    thex = {"name": "open", "units": [unit("target", **RIFLES)]}
    sw = {"name": "hmg", "he": 1, "range": 2, "augmented": True}
    firer = {**MG, "he": 3, "to_hit": 4, "support": [sw]}
    return scenario(*_twice(thex, firer), rules)


def improved(rules):
    """Fire at a tank and at rifles dug in, then artillery on their hex."""
    thex = {"name": "town", "terrain": "city", "defence": 1, "improved_position": True}
    thex["units"] = [unit("target", **TANK), unit("rifles", **RIFLES)]
    hexes, steps = _twice(thex, BIG_GUN)
    steps[1]["target"] = "rifles"
    steps.append({"kind": "artillery", "hexes": ["town"], "firepower": 5, "to_hit": 3})
    return scenario(hexes, steps, rules)


def aa_at_tank(rules):
    thex = {"name": "open", "units": [unit("target", **TANK)]}
    return scenario(*_twice(thex, AA), rules)


_PARK = {
    "name": "park",
    "defence": 1,
    "units": [unit("t1", **TANK), unit("t2", **TANK), unit("r", **RIFLES), unit("hq", **HQ)],
}


def artillery(rules):
    steps = [
        {"kind": "artillery", "hexes": ["park"], "firepower": 5, "to_hit": 3},
        {"kind": "artillery", "hexes": ["park"], "firepower": 4, "to_hit": 4},
    ]
    return scenario([_PARK], steps, rules)


def barrage(rules):
    """A mission on a stack where one platoon is already reduced and disrupted (one hit
    eliminates it): hits dealt to it beyond that are lost, or passed on to the full ones."""
    weak = unit("r1", **RIFLES, reduced=True, disrupted=True)
    hx = {"name": "field", "units": [weak, unit("r2", **RIFLES), unit("r3", **RIFLES)]}
    steps = [{"kind": "artillery", "hexes": ["field"], "firepower": 7, "to_hit": 3}]
    return scenario([hx], steps, rules)


def reduced_hq(rules):
    hx = {
        "name": "park",
        "units": [unit("r", **RIFLES), unit("hq", **HQ, reduced=True), unit("r2", **RIFLES)],
    }
    steps = [
        {"kind": "artillery", "hexes": ["park"], "firepower": 6, "to_hit": 3},
        {"kind": "rally", "stack": "park"},
    ]
    return scenario([hx], steps, rules)


def mortar(rules):
    hexes = [
        {"name": "woods", "terrain": "wood", "defence": 1, "units": [unit("a", **RIFLES)]},
        {
            "name": "m",
            "units": [
                unit("mortar", type="mortar", he=4, range=8, to_hit=4),
                unit("obs", type="recon"),
            ],
        },
    ]
    steps = [
        {"kind": "mortar", "firer": "mortar", "target": "woods", "spotter": "obs"},
        {"kind": "rally", "stack": "woods"},
    ]
    return scenario(hexes, steps, rules)


def mines(rules):
    hexes = [
        {
            "name": "lane",
            "improved_position": True,
            "units": [unit("a", **RIFLES), unit("t", **TANK), unit("b", **RIFLES)],
        },
        {"name": "eng", "units": [unit("e", type="engineer"), unit("e2", type="engineer")]},
        {"name": "farm", "units": [unit("d", **RIFLES)]},
    ]
    steps = [
        {"kind": "move", "stack": "lane", "mines": True},
        {"kind": "clear-mines", "stack": "eng"},
        {"kind": "assault", "attacker": "lane", "defender": "farm"},
    ]
    return scenario(hexes, steps, rules)


def assault(rules, terrain="city", armour=True):
    att_units = [unit("1st", **RIFLES), unit("2nd", **RIFLES, assault_plus=True)]
    att_units.append(unit("A hq", **{**HQ, "leadership": 2, "leadership_reduced": 2}))
    dfd_units = [unit("def", **RIFLES), unit("def2", **RIFLES)]
    if armour:
        dfd_units.append(unit("tank", **TANK))
    hexes = [
        {"name": "start", "units": att_units},
        {"name": "town", "terrain": terrain, "defence": 1, "units": dfd_units},
        {"name": "ridge", "units": [unit("mg", **MG)]},
    ]
    steps = [
        {"kind": "fire", "firer": "mg", "target": "def"},
        {
            "kind": "assault",
            "attacker": "start",
            "defender": "town",
            "attacker_hq_unit": "1st",
            "can_retreat": False,
        },
    ]
    return scenario(hexes, steps, rules)


def overrun(rules):
    hexes = [
        {"name": "road", "units": [unit("tank", **TANK), unit("tank2", **TANK)]},
        {"name": "f1", "units": [unit("s1", **RIFLES, assault_plus=True)]},
        {"name": "f2", "units": [unit("s2", **RIFLES, assault_plus=True)]},
    ]
    steps = [
        {"kind": "overrun", "attacker": "road", "defender": "f1"},
        {"kind": "overrun", "attacker": "road", "defender": "f2"},
    ]
    return scenario(hexes, steps, rules)


def air(rules):
    """(``disrupted_aircraft_strikes`` acts when the AA disrupts the aircraft: one unsaved hit;
    an aircraft cannot start disrupted, rule 11.3)"""
    aa = dict(type="aa", aa=3, he=2, range=4, to_hit=5, assault=0)
    plane = dict(type="aircraft", he=4, to_hit=4, armor=1, save=5)
    hexes = [
        {"name": "sky", "units": [unit("stuka", **plane)]},
        {
            "name": "farm",
            "terrain": "wood",
            "defence": 1,
            "units": [unit("rifles", **RIFLES), unit("tank", **TANK, spotted=True)],
        },
        {"name": "field", "units": [unit("aa2", **aa), unit("trucks", type="recon", he=1)]},
        {"name": "ridge", "units": [unit("mg", **MG)]},
    ]
    steps = [
        {"kind": "fire", "firer": "mg", "target": "rifles"},
        {"kind": "air-strike", "aircraft": "stuka", "target": "farm", "aa": ["aa2"], "adjacent": "field"},
    ]  # fmt: skip
    return scenario(hexes, steps, rules)


def ops(rules):
    """Tanks overrun twice, a platoon fires then moves and assaults, an engineer marked at the
    start (test_hex_platoon_kernel's Ops Complete case)."""
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
    return scenario(hexes, steps, rules)


def entering_wood(rules):
    """Opportunity fire at a platoon entering a wood, then an ordinary fire at it
    (test_hex_platoon_rules' hand-worked case, with a second fire)."""
    hexes = [
        {"name": "entered wood", "terrain": "wood", "defence": 1, "units": [unit("mover", **RIFLES)]},
        {"name": "far", "units": [unit("mg", **MG), unit("mg2", **MG)]},
    ]  # fmt: skip
    steps = [
        {"kind": "move", "stack": "entered wood"},
        {"kind": "fire", "firer": "mg", "target": "mover", "opportunity": True},
        {"kind": "fire", "firer": "mg2", "target": "mover"},
    ]
    return scenario(hexes, steps, rules)


def armour_in_the_open(rules):
    """Rifles assault a tank in the open, not adjacent at the start."""
    hexes = [
        {"name": "start", "units": [unit("1st", **RIFLES), unit("2nd", **RIFLES)]},
        {"name": "open", "units": [unit("tank", **TANK), unit("def", **RIFLES)]},
        {"name": "ridge", "units": [unit("mg", **MG)]},
    ]
    steps = [
        {"kind": "fire", "firer": "mg", "target": "def"},
        {"kind": "assault", "attacker": "start", "defender": "open", "adjacent_at_start": False},
    ]
    return scenario(hexes, steps, rules)


def moving(rules):
    """A stack moves through mines and then assaults; opportunity fire in between."""
    hexes = [
        {"name": "road", "units": [unit("tanks", **TANK), unit("grens", **RIFLES), unit("g2", **RIFLES)]},
        {"name": "ridge", "units": [unit("mg", **MG)]},
        {"name": "farm", "units": [unit("def", **RIFLES)]},
    ]  # fmt: skip
    steps = [
        {"kind": "move", "stack": "road", "mines": True},
        {"kind": "fire", "firer": "mg", "target": "grens", "opportunity": True},
        {"kind": "assault", "attacker": "road", "defender": "farm"},
    ]
    return scenario(hexes, steps, rules)


#: (the switch's mark, its other values, case): each value and the default is checked in the case
CASES = [
    (pytest.mark.rule_switch("hex-platoon", "extended_range"), ["best-choice"], extended),
    (pytest.mark.rule_switch("hex-platoon", "hq_bonus"), ["augmented-one-die", "added"], with_hq),
    (pytest.mark.rule_switch("hex-platoon", "augment"), ["once"], augmented),
    (
        pytest.mark.rule_switch("hex-platoon", "concealed_infantry_not_reduced"),
        [False],
        concealed_rifles,
    ),
    (pytest.mark.rule_switch("hex-platoon", "concealed_infantry_scope"), ["all-fire"], mortar),
    (pytest.mark.rule_switch("hex-platoon", "concealment_in_cap"), [False], concealed_afv),
    (
        pytest.mark.rule_switch("hex-platoon", "concealment_lost_after_fire"),
        [True],
        concealed_rifles,
    ),
    (pytest.mark.rule_switch("hex-platoon", "armor_bonus_cover_5plus"), [True], concealed_afv),
    (pytest.mark.rule_switch("hex-platoon", "artillery_extra_die"), [False], artillery),
    (pytest.mark.rule_switch("hex-platoon", "artillery_ignore_first_hard_hit"), [False], artillery),
    (pytest.mark.rule_switch("hex-platoon", "artillery_soft_extra_defence"), [True], artillery),
    (pytest.mark.rule_switch("hex-platoon", "artillery_hard_ignore"), ["per-attack"], artillery),
    (pytest.mark.rule_switch("hex-platoon", "excess_hits"), ["passed-on"], barrage),
    (pytest.mark.rule_switch("hex-platoon", "assault_result"), ["literal"], assault),
    (pytest.mark.rule_switch("hex-platoon", "city_assault_bonus"), ["always"], assault),
    (pytest.mark.rule_switch("hex-platoon", "hq_assault_bonus"), ["added"], assault),
    (pytest.mark.rule_switch("hex-platoon", "mine_roll"), ["sum"], mines),
    (pytest.mark.rule_switch("hex-platoon", "clear_roll"), ["sum"], mines),
    (pytest.mark.rule_switch("hex-platoon", "air_failed_strike_return"), ["zero-hits"], air),
    (pytest.mark.rule_switch("hex-platoon", "disrupted_aircraft_strikes"), [True], air),
    (pytest.mark.rule_switch("hex-platoon", "air_concealed"), ["any-unit"], air),
    (pytest.mark.rule_switch("hex-platoon", "hq_reduced_again"), ["stays-reduced"], reduced_hq),
    (pytest.mark.rule_switch("hex-platoon", "mortar_mission_roll"), [False], mortar),
    (pytest.mark.rule_switch("hex-platoon", "hit_ladder"), ["one-step-per-attack"], artillery),
    (pytest.mark.rule_switch("hex-platoon", "move_ops_complete"), ["on-entering"], entering_wood),
    (pytest.mark.rule_switch("hex-platoon", "ops_complete_bars"), ["fire"], ops),
    (pytest.mark.rule_switch("hex-platoon", "mines_stop_movement"), [False], moving),
    (pytest.mark.rule_switch("hex-platoon", "mines_improved_position"), [False], mines),
    (pytest.mark.rule_switch("hex-platoon", "overrun_defender_augmented"), [False], overrun),
    (pytest.mark.rule_switch("hex-platoon", "aa_vs_hard"), ["blue"], aa_at_tank),
]


#: per case, the statistics a 0.5 pp error in must fail (those its switches move); the
#: exact ones are checked against the exact engine, the others against the fast reference
HEADLINE = {
    "extended": ("target_state",),
    "with_hq": ("target_state",),
    "augmented": ("target_state",),
    "concealed_rifles": ("target_state", "unsaved_hits_on_target_step2"),
    "mortar": ("a_state", "units_rallied_woods_step2"),
    "concealed_afv": ("target_state", "unsaved_hits_on_target_step2"),
    "artillery": ("park_units_disrupted_or_worse", "t1_state"),
    "barrage": ("r2_state", "field_units_eliminated"),
    "assault": ("hits_on_defender_step2", "attacker_took_hex_step2"),
    "mines": ("lane_units_disrupted_or_worse", "minefield_cleared_step2"),
    "air": ("unsaved_hits_by_aircraft_step2", "aircraft_fate_step2"),
    "air_disrupted": ("unsaved_hits_by_aircraft_step2", "aircraft_fate_step2"),
    "reduced_hq": ("hq_state", "units_rallied_park_step2"),
    "entering_wood": ("mover_state",),
    "ops": ("def_state", "road_units_disrupted_or_worse"),
    "moving": ("grens_state", "assault_made_step3"),
    "overrun": ("hits_on_defender_step2", "s2_state"),
    "aa_at_tank": ("target_state",),
    "improved": ("target_state", "town_units_disrupted_or_worse"),
    "armour_in_the_open": ("def_state", "tank_state"),
}


def check_strong(case, rules: dict) -> None:
    """The kernel (``N_KERNEL`` trials, the run ``check_switch`` shares) against the exact
    engine where it answers and the fast reference elsewhere, with 0.5 pp power on the
    case's headline statistics."""
    key = (case.__name__, tuple(sorted(rules.items())))
    sc = from_dict(case(rules))
    k = kernel_once(key, lambda: _kernel(case)(rules))
    what = f"{case.__name__} with {rules}"
    exact = sc.exact_pmfs()
    F.check_exact(k, exact, what)
    assert set(HEADLINE[case.__name__]) <= set(k), sorted(k)
    head = [n for n in HEADLINE[case.__name__] if n not in exact]
    F.check_kernel(sc, k, head, SEED, what)


_RUNS: dict = {}


def _kernel(case):
    """Kernel histograms of ``case`` with rule overrides, one run per distinct scenario (the
    default of a case is shared by all its switches)."""

    def run(rules):
        sc = from_dict(case(rules))
        key = ("kernel", repr(sc))
        if key not in _RUNS:
            _RUNS[key] = engine.simulate(sc, trials=N_KERNEL, seed=SEED).counts
        return _RUNS[key]

    return run


def _naive(case):
    return lambda rules: cached_run(
        "hex-platoon", from_dict(case(rules)), N_NAIVE, SEED, N.simulate
    )


#: Switches that change no number: ``improved_position`` nullifies the first hit before or
#: after saves, but saves are a count of successful save dice taken off the hits, so
#: max(h - 1 - s, 0) = max(max(h - s, 0) - 1, 0) for every h >= 1 and s (and 0 hits stay 0):
#: the kernel must give bit-identical histograms at both values, both matching the naive run.
EQUIVALENT = [
    (pytest.mark.rule_switch("hex-platoon", "improved_position"), ["after-saves"], improved),
]


@pytest.mark.parametrize("field, value, default, case", list(switch_params(CASES, Rules())))
def test_switch_value_matches_naive(field, value, default, case):
    check_switch(field, value, default, case.__name__, _kernel(case), _naive(case))
    check_strong(case, {field: value})


@pytest.mark.parametrize("field, value, default, case", list(switch_params(EQUIVALENT, Rules())))
def test_equivalent_switch_changes_nothing(field, value, default, case):
    check_switch(field, value, default, case.__name__, _kernel(case), _naive(case), equivalent=True)
    check_strong(case, {field: value})


@pytest.mark.rule_switch("hex-platoon", "infantry_assault_armour_adjacent")
def test_infantry_assault_on_armour_in_the_open():
    """An input check, not a kernel branch: by default (Additional Rule) infantry may not
    close-assault armour in the open unless adjacent at the start, so the scenario is refused
    naming the key; with the switch off the assault runs and matches the naive reference."""
    with pytest.raises(ScenarioError, match="adjacent_at_start"):
        from_dict(armour_in_the_open(None))
    case = armour_in_the_open
    field = "infantry_assault_armour_adjacent"
    check_switch(field, False, False, case.__name__, _kernel(case), _naive(case))
    check_strong(case, {field: False})
