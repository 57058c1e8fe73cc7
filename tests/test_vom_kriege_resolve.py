"""Vom Kriege one-roll resolution in Python (the exact PMFs' engine) equals the kernel's on
every (hits, flags) for many target states; resolved() sections and rule defaults."""

from __future__ import annotations

import itertools

import pytest

from oddslab.rulesets.vom_kriege import kernel as K
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Rules, Unit
from oddslab.rulesets.vom_kriege.packing import fresh_state, pack
from oddslab.rulesets.vom_kriege.resolve import RULE_TEXT, resolve_once, rules_section

TARGETS = [
    dict(),
    dict(hits=2),
    dict(hits=3, disordered=True),
    dict(hits=4, disordered=True),
    dict(formation="square", hits=1),
    dict(formation="square", hits=3),
    dict(retreat_blocked=True, hits=2),
    dict(retreat_blocked=True),
    dict(quality="elite", hits=3),
]


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(same_roll_at_max="absorb"), Rules(blocked_retreat_disorders=True)],
    ids=["remove", "absorb", "blocked-disorders"],
)
def test_python_resolution_equals_kernel(rules):
    for kw, h, f in itertools.product(TARGETS, range(6), range(4)):
        t = Unit("t", "defender", "infantry", **kw)
        sc = VomKriegeScenario(
            units=(Unit("a", "attacker", "infantry"), t),
            actions=(Action("shoot", "a", "t"),),
            rules=rules,
        )
        T = pack(sc.arrays())
        W = fresh_state(T)
        K.resolve(T, W, 1, h, f, 0)
        S = W
        fate = resolve_once(t, h, f, rules)
        removed = int(S[1, L.S_REMOVED])
        assert fate["defender_removed"] == removed, (kw, h, f)
        assert fate["defender_hits"] == min(S[1, L.S_HITS], t.max_hits), (kw, h, f)
        assert fate["defender_retreat_half_moves"] == S[1, L.S_RETREAT_HM], (kw, h, f)
        assert fate["defender_retreated"] == int(S[1, L.S_RETREATS] > 0)
        assert fate["defender_disordered"] == (0 if removed else S[1, L.S_DISO])


def test_rules_section_marks_defaults():
    sec = rules_section(Rules(halving="before"))
    assert len(sec) == len(RULE_TEXT)
    assert sec["halving (shooting marker, obscured)"] == "before"
    assert sec["sabers hit in"] == "both (default)"


def test_resolved_shows_derived_dice():
    sc = VomKriegeScenario(
        units=(
            Unit("g", "attacker", "artillery", guns=8),
            Unit("t", "defender", "infantry", formation="column"),
        ),
        actions=(Action("shoot", "g", "t", range=5, order_bonus=True),),
    )
    res = sc.resolved()
    line = res["action 1: g shoots t"]["battle dice (from the starting state)"]
    assert line.startswith("6 = 4 fire points") and "+1 order bonus" in line
    assert res["unit: t"]["formation"] == "column"
    assert "rules" in res and "dice" in res


def _square_at_cavalry(**rules):
    return VomKriegeScenario(
        units=(
            Unit("sq", "attacker", "infantry", formation="square"),
            Unit("hus", "defender", "cavalry"),
        ),
        actions=(Action("melee", "sq", "hus", reaction="none"),),
        rules=Rules(**rules),
    )


def test_show_says_how_cavalry_battles_back_against_a_square():
    """A square attacking cavalry: ``show`` says how the cavalry's battle back scores, and
    lists the switch with the others."""
    key = "defender's battle back against the square"

    def shown(**rules):
        return _square_at_cavalry(**rules).resolved()

    res = shown()
    assert res["action 1: sq melees hus"][key].startswith("only sabers hit")
    assert "1 hit each" in res["action 1: sq melees hus"][key]
    assert res["rules"]["cavalry hits a square only with sabers"] == "always (default)"
    assert "do nothing" in shown(cavalry_square_flags="ignore")["action 1: sq melees hus"][key]
    res = shown(cavalry_square_sabers="attacking")
    assert res["action 1: sq melees hus"][key].startswith("ordinary scoring")
    assert res["rules"]["cavalry hits a square only with sabers"] == "attacking"
