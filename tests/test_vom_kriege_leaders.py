"""Vom Kriege leaders in melee (issue 30): "A leader, when an enemy unit moves into contact
MUST retire", and at a retiring defender "Only a saber will score a hit"; a leader's third hit
removes it with all its units and gives the army leader a hit. A leader alone as the target, a
leader standing with the target unit, the follow-up after it retires; hand-worked and exact
answers, then the kernel against the pure-Python reference (tests/naive_vom_kriege.py)."""

from __future__ import annotations

import copy
import math

import numpy as np
import pytest
from test_vom_kriege_kernel import _compare

import oddslab
from oddslab.rulesets.vom_kriege import WARMUP
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Leader, Rules, Unit
from oddslab.scenario import ScenarioError, from_dict
from tests.stats import P_MIN, assert_prob, chisquare_pmf
from tests.switches import assert_exact_power

N = 2_000  # deterministic answers
NS = 400_000  # statistical ones


def _binom(n: int, p: float) -> np.ndarray:
    return np.array([math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)])


def _at_least(n: int, p: float, k: int) -> float:
    return float(_binom(n, p)[k:].sum())


def _ride_down(faces=None, leader_hits=2, follow_up="guns", **rules):
    """Hussars with an order bonus (4 + 1 = 5 dice) charge a division leader standing alone;
    the division's line and the army leader are in the scenario; the corps guns (no leader)
    are the follow-up target."""
    return VomKriegeScenario(
        units=(
            Unit("hussars", "attacker", "cavalry"),
            Unit("line", "defender", "infantry", leader="div"),
            Unit("guns", "defender", "artillery", kind="light"),
        ),
        leaders=(
            Leader("div", "defender", hits=leader_hits, units=6),
            Leader("army", "defender", army=True, hits=1),
        ),
        actions=(Action("melee", "hussars", "div", order_bonus=True, follow_up=follow_up),),
        dice=Dice(tuple(faces)) if faces else Dice(),
        rules=Rules(**rules),
    )


# -- a leader alone --------------------------------------------------------------------------
def test_only_a_saber_hits_a_leader():
    """Every die an infantry symbol: nothing hits the leader (troop symbols do not score on
    it, "Only a saber will score a hit"); it retires, and the cavalry follows up."""
    out = oddslab.simulate(_ride_down(faces=("infantry", "infantry")), trials=N, seed=1)
    assert out.prob("defender_leader_retired") == 1.0
    assert out.counts["hits_on_defender_leader"][0] == N
    assert out.prob("defender_leader_removed") == 0.0
    assert out.prob("attacker_followed_up") == 1.0
    # 5 dice at the leader, then 5 in the follow-up melee (the guns' fire and the hussars'
    # infantry symbols score nothing on cavalry and artillery)
    assert out.counts["attacker_dice_rolled"][10] == N


def test_sabers_remove_the_leader_and_its_command():
    """Every die a saber: a fresh leader takes 5 hits (3 remove it): its division (6 units)
    is removed, the line with it, and the army leader takes its second hit. The position is
    vacated by an elimination: the cavalry still follows up (step 6)."""
    out = oddslab.simulate(_ride_down(faces=("saber",) * 2, leader_hits=0), trials=N, seed=1)
    assert out.prob("defender_leader_removed") == 1.0
    assert out.counts["defender_leader_hits"][3] == N
    assert out.counts["hits_on_defender_leader"][5] == N
    assert out.counts["defender_command_units_removed"][6] == N
    assert out.counts["defender_army_leader_hits"][2] == N
    assert out.prob("defender_leader_retired") == 0.0
    assert out.prob("attacker_followed_up") == 1.0


def test_riding_down_a_leader_exact():
    """5 dice, a saber 1/6 each: the hits on the leader are Bin(5, 1/6); with 2 hits already
    one saber removes it: P = 1 - (5/6)^5 = 0.5981, and then the army leader's hit and the
    command's 6 units; otherwise it retires and the hussars follow up."""
    n = 500_000
    out = oddslab.simulate(_ride_down(), trials=n, seed=7)
    p = 1 - (5 / 6) ** 5
    assert chisquare_pmf(out.counts["hits_on_defender_leader"], _binom(5, 1 / 6)) > P_MIN
    assert_exact_power(out.counts["hits_on_defender_leader"], _binom(5, 1 / 6), "ride down")
    assert_prob(out.prob("defender_leader_removed"), p, n)
    assert (
        out.counts["defender_command_units_removed"][6] == out.counts["defender_leader_removed"][1]
    )
    assert out.counts["defender_army_leader_hits"][2] == out.counts["defender_leader_removed"][1]
    assert out.prob("defender_leader_retired") == pytest.approx(
        1 - out.prob("defender_leader_removed")
    )
    assert out.prob("attacker_followed_up") == 1.0


def test_batteries_fire_before_the_charge_reaches_a_leader():
    """Every die a flag: the battery's fire drives the hussars back before contact, so the
    leader is never reached (no dice at it)."""
    sc = VomKriegeScenario(
        units=(
            Unit("hussars", "attacker", "cavalry"),
            Unit("guns", "defender", "artillery", kind="light"),
        ),
        leaders=(Leader("div", "defender"),),
        actions=(Action("melee", "hussars", "div", batteries=(Battery("guns", 6),)),),
        dice=Dice(("flag", "flag")),
    )
    out = oddslab.simulate(sc, trials=N, seed=1)
    assert out.prob("attacker_retreated") == 1.0
    assert out.prob("defender_leader_retired") == 0.0
    assert out.counts["attacker_dice_rolled"][0] == N


# -- a leader with its unit ------------------------------------------------------------------
def _with_unit(**rules):
    """A line charges a line its division leader (1 hit) stands with; no reaction."""
    return VomKriegeScenario(
        units=(
            Unit("attackers", "attacker", "infantry"),
            Unit("line", "defender", "infantry", leader="div"),
            Unit("guns", "defender", "artillery", leader="div"),
        ),
        leaders=(Leader("div", "defender", hits=1, units=2, with_unit="line"),),
        actions=(Action("melee", "attackers", "line", reaction="none"),),
        rules=Rules(**rules),
    )


def test_leader_with_the_target_retires_first():
    """The leader is contacted with the line: 4 dice at it, sabers only; two sabers (its
    third hit) remove it and its division, the line included: 1 - (5/6)^4 - 4 (1/6)(5/6)^3 =
    0.1319; otherwise it retires and the melee with the line goes on."""
    out = oddslab.simulate(_with_unit(), trials=NS, seed=5)
    p = _at_least(4, 1 / 6, 2)
    assert_prob(out.prob("defender_leader_removed"), p, NS)
    assert out.prob("defender_leader_retired") == pytest.approx(
        1 - out.prob("defender_leader_removed")
    )
    # the line can reach maximum hits in the melee, but 4 dice never remove it (4 hits plus a
    # flag need 5 dice): removal comes only with its leader
    assert out.counts["defender_removed"][1] == out.counts["defender_leader_removed"][1]
    assert chisquare_pmf(out.counts["hits_on_defender_leader"], _binom(4, 1 / 6)) > P_MIN


def test_leader_with_unit_retires_without_a_roll_under_the_switch():
    out = oddslab.simulate(_with_unit(leader_with_unit="retires"), trials=N, seed=5)
    assert out.prob("defender_leader_retired") == 1.0
    assert out.counts["hits_on_defender_leader"][0] == N
    assert out.prob("defender_leader_removed") == 0.0


# -- the kernel against the reference --------------------------------------------------------
def _leaders_everywhere(**rules):
    """Lancers charge an army leader's aide-de-camp ... : a leader alone (with a battery's fire
    and a follow-up into a line its leader stands with), then a line charges a column whose
    leader stands with it (the division's third hit removes everything)."""
    return VomKriegeScenario(
        units=(
            Unit("lancers", "attacker", "cavalry", kind="lancers", quality="elite"),
            Unit("line", "attacker", "infantry", hits=1),
            Unit("guns", "defender", "artillery", kind="light", leader="d1"),
            Unit("col", "defender", "infantry", formation="column", leader="d1", terrain="woods"),
            Unit("reserve", "defender", "infantry", leader="d2", hits=2),
        ),
        leaders=(
            Leader("d1", "defender", hits=1, units=4, with_unit="col"),
            Leader("d2", "defender", hits=2, units=3, with_unit="reserve"),
            Leader("army", "defender", army=True, hits=1),
        ),
        actions=(
            Action(
                "melee",
                "lancers",
                "army",
                order_bonus=True,
                batteries=(Battery("guns", 5),),
                follow_up="reserve",
            ),
            Action("melee", "line", "col", supports=1, uphill=True, reaction="none"),
        ),
        focus_defender="d1",
        rules=Rules(**rules),
    )


@pytest.mark.statistical
@pytest.mark.parametrize("reading", ["rolled", "retires"])
def test_leaders_kernel_matches_reference(reading):
    """The whole scenario under both readings: the kernel against the reference's exact
    distribution (0.5 pp power)."""
    _compare(_leaders_everywhere(leader_with_unit=reading))


@pytest.mark.rule_switch("vom-kriege", "leader_with_unit")
@pytest.mark.parametrize("reading", ["rolled", "retires"])
def test_leader_with_the_target_kernel_matches_the_exact_reference(reading):
    """A line charges a line its leader stands with (:func:`_with_unit`), under both
    readings: the kernel against the reference's exact distribution (0.5 pp power)."""
    _compare(_with_unit(leader_with_unit=reading))


@pytest.mark.parametrize(
    "rules",
    [
        {},
        {"dice_state": "before_melee", "rough_charge": "stopped", "or_rows": "each"},
    ],
)
def test_leader_alone_kernel_matches_reference(rules):
    sc = _ride_down(**rules)
    _compare(sc)


# -- reading, checks and show ----------------------------------------------------------------
def _bad(mutate, key, words=""):
    data = copy.deepcopy(WARMUP)
    data["leaders"] = {"div": {"side": "defender", "with_unit": "line"}}
    data["units"]["line"]["leader"] = "div"
    mutate(data)
    with pytest.raises(ScenarioError) as err:
        from_dict(data, source="l.toml")
    assert err.value.key == key, str(err.value)
    assert words in err.value.problem


def test_leader_keys_are_checked():
    _bad(
        lambda d: d["leaders"]["div"].update(with_unit="lines"), "leaders.div.with_unit", "no unit"
    )
    _bad(
        lambda d: d["leaders"]["div"].update(with_unit="hussars"),
        "leaders.div.with_unit",
        "other side",
    )
    _bad(
        lambda d: d["leaders"].update(aide={"side": "defender", "with_unit": "line"}),
        "leaders.aide.with_unit",
        "already",
    )
    _bad(lambda d: d["leaders"].update(guns={"side": "defender"}), "leaders.guns", "same name")
    _bad(
        lambda d: (
            d["units"].update(foot={"side": "attacker", "troop": "infantry"}),
            d["actions"].append({"kind": "shoot", "actor": "foot", "target": "div"}),
        ),
        "actions[1].target",
        "only in melee",
    )
    _bad(
        lambda d: d["actions"][0].update(target="nobody"), "actions[0].target", "no unit or leader"
    )


def test_a_leader_target_reads_and_shows():
    data = copy.deepcopy(WARMUP)
    data["leaders"] = {"div": {"side": "defender", "hits": 2, "with_unit": "line"}}
    data["actions"] = [{"kind": "melee", "actor": "hussars", "target": "div", "follow_up": "guns"}]
    sc = from_dict(data)
    text = sc.resolved()
    sec = text["action 1: hussars melees leader div"]
    assert sec["attacker's dice at the leader"].startswith("5 = ")  # heavy cavalry 4 + 1
    assert "P(removed) = 0.5981" in sec["the leader's fate"]
    assert text["leader: div"]["stands with"] == "line"
    names = [s.name for s in sc.stats()]
    assert "hits_on_defender_leader" in names and "defender_hits" not in names
    assert sc.compile().meta["primary"] == "hits_on_defender_leader"


def test_show_names_a_leader_standing_with_a_target_or_follow_up_target():
    text = _leaders_everywhere().resolved()
    assert "it must retire first" in text["action 2: line melees col"]["leader d1 stands with col"]
    sc = VomKriegeScenario(
        units=(
            Unit("hus", "attacker", "cavalry"),
            Unit("line", "defender", "infantry"),
            Unit("l2", "defender", "infantry"),
        ),
        leaders=(Leader("div", "defender", with_unit="l2"),),
        actions=(Action("melee", "hus", "line", follow_up="l2"),),
    )
    sec = sc.resolved()["action 1: hus melees line"]
    assert "follow-up" in sec["leader div stands with l2"]


def test_the_example_gives_its_hand_worked_answer(examples_dir):
    """examples/vom-kriege-hussars-ride-down-a-general.toml: P(the general removed) =
    1 - (5/6)^5 = 0.5981; the hussars always follow up (he retired or was removed)."""
    from oddslab.scenario import load

    sc = load(examples_dir / "vom-kriege-hussars-ride-down-a-general.toml")
    out = oddslab.simulate(sc, trials=500_000, seed=3)
    p = 1 - (5 / 6) ** 5
    assert_prob(out.prob("defender_leader_removed"), p, 500_000)
    assert out.prob("attacker_followed_up") == 1.0
    assert out.counts["defender_army_leader_hits"][2] == out.counts["defender_leader_removed"][1]
