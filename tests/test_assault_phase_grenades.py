"""Assault phase: frag and plasma grenades in combats with several units per side.

"Troops armed with frag grenades that are charging enemy in or behind cover fight
simultaneously with them." / "Troops using them [plasma grenades] fight in Initiative
sequence when assaulting enemy in cover." Read per unit: a frag group strikes with the cover
step when the unit it attacks is in cover; defenders in cover strike first except at a unit
with plasma grenades. The readings of the code before are the switches
``frag_grenades = "any-engaged"`` and ``plasma_grenades = "all-units"``.

Die by die (``run_with_dice``), plus one fixed-seed check of each default against its exact
probability. The tests marked as guards check what the per-unit readings keep.
"""

from __future__ import annotations

import pytest

from oddslab import scenario
from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit
from oddslab.scenario import ScenarioError
from tests.assault_phase_exact import check_exact

# -- frag grenades ------------------------------------------------------------------------------


def _frag(target: str, rules: Rules | None = None, x_a: int = 1) -> AssaultScenario:
    """An I1 frag model (2 attacks with the charge) attacks ``target``: X is in cover (I1,
    ``x_a`` attacks), Y is in the open (I5, one attack). Nobody has a save."""
    att = Unit("A", (ModelGroup("a", 1, i=1, a=1, target=target),), grenades="frag")
    x = Unit("X", (ModelGroup("x", 1, i=1, a=x_a, target="A"),), in_cover=True)
    y = Unit("Y", (ModelGroup("y", 1, i=5, a=1),))
    return AssaultScenario(Side("att", (att,)), Side("def", (x, y)), rules or Rules())


def test_frag_grenades_give_no_first_strike_against_a_unit_in_the_open():
    """A attacks Y (open): Initiative order, Y (I5) first: hit 6, wound 6, A is slain before
    it strikes. X, in cover, strikes first at A but misses (1). The code before let A
    strike with the cover step because X was in cover."""
    r = _frag("Y").run_with_dice([1] + [6, 6])
    assert r["attacker_models_lost"] == 1
    assert r["attacker_attacks_made"] == 0
    assert r["dice_used"] == 3


def test_frag_grenades_any_engaged_switch_keeps_the_old_reading():
    """``frag_grenades = "any-engaged"``: A strikes with X's cover step (hits 6, 6, wounds
    1, 1, then X's miss), then Y at I5."""
    sc = _frag("Y", Rules(frag_grenades="any-engaged"))
    r = sc.run_with_dice([6, 6] + [1, 1] + [1] + [6, 6])
    assert r["attacker_attacks_made"] == 2
    assert r["attacker_models_lost"] == 1
    assert r["dice_used"] == 7


@pytest.mark.parametrize("frag", ["target", "any-engaged"])
def test_frag_grenades_strike_with_the_unit_in_cover_they_attack(frag):
    """Guard: A attacks X (in cover): both at the cover step, simultaneously: A's 2 hits and
    2 wounds, X's hit and wound; both die, and Y (I5) has nobody left to strike."""
    r = _frag("X", Rules(frag_grenades=frag)).run_with_dice([6, 6, 6, 6] + [6, 6])
    assert r["attacker_models_lost"] == 1
    assert r["defender.X.x.models_lost"] == 1
    assert r["dice_used"] == 6


def test_frag_resolved_text():
    att = _frag("Y").resolved()["attacker group: A / a"]["strikes at"]
    assert att == "Initiative 1 (Y is not in cover: frag grenades give no first strike)"
    att = _frag("X").resolved()["attacker group: A / a"]["strikes at"]
    assert att.startswith("first turn: before any Initiative (frag grenades: with X, in cover)")
    att = _frag("Y", Rules(frag_grenades="any-engaged")).resolved()["attacker group: A / a"]
    assert "frag grenades: with the defenders in cover" in att["strikes at"]


# -- plasma grenades ----------------------------------------------------------------------------


def _plasma(target: str, rules: Rules | None = None) -> AssaultScenario:
    """P (plasma grenades, I5, 2 attacks with the charge) and B (no grenades, fired: no
    attacks) charge X (in cover, I1, one attack at ``target``). Nobody has a save."""
    p = Unit("P", (ModelGroup("p", 1, i=5, a=1),), grenades="plasma")
    b = Unit("B", (ModelGroup("b", 1, i=5, a=0),), fired=True)
    x = Unit("X", (ModelGroup("x", 1, i=1, a=1, target=target),), in_cover=True)
    return AssaultScenario(Side("att", (p, b)), Side("def", (x,)), rules or Rules())


def test_plasma_grenades_fight_in_initiative_order_in_a_mixed_charge():
    """X attacks P: P's plasma grenades take X's first strike away, so P (I5) strikes first
    (6, 6 hit, 6, 6 wound) and X dies before striking. The code before kept the cover first
    strike because B has no plasma grenades."""
    r = _plasma("P").run_with_dice([6, 6, 6, 6])
    assert r["attacker_models_lost"] == 0
    assert r["defender_models_lost"] == 1
    assert r["dice_used"] == 4


def test_plasma_grenades_all_units_switch_keeps_the_old_reading():
    """``plasma_grenades = "all-units"``: B has none, so X strikes first and slays P."""
    r = _plasma("P", Rules(plasma_grenades="all-units")).run_with_dice([6, 6])
    assert r["attacker.P.p.models_lost"] == 1
    assert r["attacker_attacks_made"] == 0
    assert r["dice_used"] == 2


def test_cover_still_strikes_first_at_a_unit_without_plasma_grenades():
    """Guard: X attacks B: first strike (6, 6 slays B), then P at I5 misses (1, 1)."""
    r = _plasma("B").run_with_dice([6, 6] + [1, 1])
    assert r["attacker.B.b.models_lost"] == 1
    assert r["defender_models_lost"] == 0
    assert r["dice_used"] == 4


def test_plasma_resolved_text():
    x = _plasma("P").resolved()["defender group: X / x"]["strikes at"]
    assert x == "Initiative 1 (no first strike from cover against P: plasma grenades)"
    x = _plasma("B").resolved()["defender group: X / x"]["strikes at"]
    assert x.startswith("first turn: before any Initiative (in cover)")
    x = _plasma("P", Rules(plasma_grenades="all-units")).resolved()["defender group: X / x"]
    assert x["strikes at"].startswith("first turn: before any Initiative (in cover)")


# -- exact probabilities, fixed seed ---------------------------------------------------------


@pytest.mark.parametrize(
    ("sc", "stat", "p_lost"),
    [
        # X makes no attack; Y strikes first: hit 1/2 x wound 1/2 (before: 9/16 x 1/4)
        (_frag("Y", x_a=0), "attacker.A.a.models_lost", 1 / 4),
        # P's two attacks first (each slays X with 1/4), then X's one at P (before: 1/4)
        (_plasma("P"), "attacker.P.p.models_lost", 9 / 16 * 1 / 4),
    ],
    ids=["frag-at-open-unit", "plasma-in-mixed-charge"],
)
def test_grenade_readings_match_exact(sc, stat, p_lost):
    """P(the model is slain), chi-square, seed 13, the trials a 0.5 pp error needs."""
    check_exact(sc, {stat: [1 - p_lost, p_lost]}, seed=13)


# -- reading the switches ------------------------------------------------------------------------


def test_grenade_switches_read_and_checked():
    data = {
        "ruleset": "assault-phase",
        "attacker": {"units": [{"name": "A", "groups": [{"name": "a"}]}]},
        "defender": {"units": [{"name": "D", "groups": [{"name": "d"}]}]},
        "rules": {"frag_grenades": "any-engaged", "plasma_grenades": "all-units"},
    }
    sc = scenario.from_dict(data, source="ok.toml")
    assert (sc.rules.frag_grenades, sc.rules.plasma_grenades) == ("any-engaged", "all-units")
    assert Rules().frag_grenades == "target" and Rules().plasma_grenades == "per-unit"
    data["rules"] = {"frag_grenades": "all"}
    with pytest.raises(ScenarioError, match=r"rules\.frag_grenades"):
        scenario.from_dict(data, source="bad.toml")
    data["rules"] = {"plasma_grenades": "unit"}
    with pytest.raises(ScenarioError, match=r"rules\.plasma_grenades"):
        scenario.from_dict(data, source="bad.toml")
