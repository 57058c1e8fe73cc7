"""Scenario builders shared by the hex platoon tests (plain dicts, as TOML would give)."""

from __future__ import annotations

import copy
from typing import Any


def unit(name: str, **kw: Any) -> dict[str, Any]:
    return {"name": name, **kw}


RIFLES = dict(type="infantry", he=3, ap=1, range=4, to_hit=5, assault=3, assault_to_hit=5, morale=8)
MG = dict(type="infantry", he=2, ap=0, range=6, to_hit=4, he_plus=True, assault=1, morale=8)
TANK = dict(
    type="afv",
    he=2,
    ap=3,
    range=6,
    to_hit=4,
    assault=2,
    assault_to_hit=5,
    armor=2,
    save=5,
    morale=8,
)
HQ = dict(type="hq", leadership=1, leadership_reduced=1, assault=1, morale=8)


def scenario(hexes: list[dict], steps: list[dict], rules: dict | None = None, **top: Any) -> dict:
    d = {"ruleset": "hex-platoon", "name": top.pop("name", "test"), "hexes": hexes, "steps": steps}
    if rules:
        d["rules"] = rules
    d.update(top)
    return copy.deepcopy(d)


def fire_case(target_kw=None, hex_kw=None, firer_kw=None, step_kw=None, rules=None, hq=False):
    """One firer (with optional HQ) at one target in a hex."""
    t = {**RIFLES, **(target_kw or {})}
    f = {**MG, **(firer_kw or {})}
    fhex = {"name": "ridge", "units": [unit("mg", **f)]}
    if hq:
        fhex["units"].append(unit("coy hq", **HQ))
    thex = {
        "name": "woods",
        "terrain": "wood",
        "defence": 1,
        **(hex_kw or {}),
        "units": [unit("target", **t)],
    }
    step = {"kind": "fire", "firer": "mg", "target": "target", **(step_kw or {})}
    if hq:
        step["hq"] = "coy hq"
    return scenario([fhex, thex], [step], rules)


def assault_case(rules=None, **step_kw):
    """Two rifle platoons and their HQ assault a platoon dug in a city with its sHQ."""
    att = {
        "name": "start",
        "units": [
            unit("1st", **RIFLES),
            unit("2nd", **RIFLES, assault_plus=True),
            unit("A hq", **HQ),
        ],
    }
    dfd = {
        "name": "town",
        "terrain": "city",
        "defence": 2,
        "improved_position": True,
        "units": [unit("def", **RIFLES), unit("mg nest", **MG, disrupted=True), unit("D hq", **HQ)],
    }
    step = {
        "kind": "assault",
        "attacker": "start",
        "defender": "town",
        "attacker_hq_unit": "1st",
        "defender_hq_unit": "def",
        **step_kw,
    }
    return scenario([att, dfd], [step], rules)


def air_case(rules=None):
    """A fighter-bomber strikes a concealed stack under two AA guns; astray hex next door."""
    aa = dict(type="aa", aa=3, he=2, range=4, to_hit=5, assault=0)
    hexes = [
        {"name": "sky", "units": [unit("stuka", type="aircraft", he=4, to_hit=4, armor=1, save=5)]},
        {
            "name": "farm",
            "terrain": "wood",
            "defence": 1,
            "units": [
                unit("rifles", **RIFLES),
                unit("tank", **TANK),
                unit("flak", **aa),
                unit("hq", **HQ),
            ],
        },
        {
            "name": "field",
            "units": [unit("aa2", **aa, aa_plus=True), unit("trucks", type="recon", he=1)],
        },
    ]
    step = {
        "kind": "air-strike",
        "aircraft": "stuka",
        "target": "farm",
        "aa": ["flak", "aa2"],
        "adjacent": "field",
    }
    return scenario(hexes, [step], rules)


def sequence_case(rules=None):
    """A stack moves through a minefield under opportunity fire, then assaults; overrun after."""
    hexes = [
        {"name": "road", "units": [unit("tanks", **TANK), unit("grens", **RIFLES)]},
        {
            "name": "ridge",
            "units": [unit("at gun", type="infantry", he=1, ap=3, range=6, to_hit=4, assault=0)],
        },
        {
            "name": "woods",
            "terrain": "wood",
            "defence": 1,
            "units": [unit("def", **RIFLES), unit("hq", **HQ)],
        },
        {"name": "pz", "units": [unit("panzer", **TANK)]},
        {
            "name": "open",
            "units": [unit("squad", **RIFLES), unit("squad2", **RIFLES, disrupted=True)],
        },
    ]
    steps = [
        {"kind": "move", "stack": "road", "mines": True},
        {"kind": "fire", "firer": "at gun", "target": "tanks", "opportunity": True},
        {"kind": "move", "stack": "road"},
        {"kind": "assault", "attacker": "road", "defender": "woods", "can_retreat": False},
        {"kind": "overrun", "attacker": "pz", "defender": "open"},
        {"kind": "rally", "stack": "woods"},
    ]
    return scenario(hexes, steps, rules)


def orders_case(rules=None):
    """Command checks, an observer calling artillery, a stack leaving command before it moves
    through mines into a dug-in wood under fire and assaults, engineers and a tank clearing."""
    recon = dict(type="recon", he=1, range=4, to_hit=5, assault=1, morale=7)
    hexes = [
        {
            "name": "wood",
            "terrain": "wood",
            "defence": 1,
            "improved_position": True,
            "units": [unit("tanks", **TANK), unit("grens", **RIFLES), unit("w hq", **HQ)],
        },
        {"name": "ridge", "units": [unit("mg", **MG), unit("recon", **recon)]},
        {"name": "farm", "units": [unit("def", **RIFLES), unit("def2", **RIFLES, disrupted=True)]},
        {"name": "lane", "units": [unit("eng", type="engineer"), unit("tank2", **TANK)]},
    ]
    steps = [
        {"kind": "command", "stack": "ridge", "morale": 7},
        {"kind": "artillery", "spotter": "recon", "hexes": ["farm"], "firepower": 3, "to_hit": 4},
        {"kind": "command", "stack": "wood", "morale": 8},
        {"kind": "move", "stack": "wood", "mines": True},
        {"kind": "fire", "firer": "mg", "target": "grens", "opportunity": True},
        # the assault right after the movement: a step in between would end the movement
        # and its Ops Complete markers would keep the stack from assaulting
        {"kind": "assault", "attacker": "wood", "defender": "farm"},
        {"kind": "fire", "firer": "recon", "target": "grens"},
        {"kind": "clear-mines", "stack": "lane"},
        {"kind": "rally", "stack": "wood"},
    ]
    return scenario(hexes, steps, rules)


def rally_case(rules=None):
    """Two disrupted platoons, one of them reduced, rally under their HQ."""
    units = [
        unit("a", **RIFLES, disrupted=True, reduced=True),
        unit("b", **RIFLES, disrupted=True),
        unit("hq", **HQ),
    ]
    return scenario([{"name": "w", "units": units}], [{"kind": "rally", "stack": "w"}], rules)
