"""Vom Kriege scenario compilation: which statistics are reported, plain-words labels,
headlines, the Job, exact PMFs (single shooting roll), the square test, and WARMUP."""

from __future__ import annotations

import numpy as np
import pytest

import oddslab
from oddslab.rulesets.vom_kriege import WARMUP, WARMUPS
from oddslab.rulesets.vom_kriege.compile import STAT_TEXT, VomKriegeScenario
from oddslab.rulesets.vom_kriege.layout import STAT_NAMES
from oddslab.rulesets.vom_kriege.model import Action, Leader, Unit
from oddslab.scenario import from_dict


def U_(name, side, troop, **kw):
    return Unit(name=name, side=side, troop=troop, **kw)


def shot(**kw):
    return VomKriegeScenario(
        units=(U_("line", "attacker", "infantry"), U_("t", "defender", "infantry", **kw)),
        actions=(Action("shoot", "line", "t"),),
    )


def test_every_stat_has_plain_words():
    assert tuple(STAT_TEXT) == STAT_NAMES
    for label, _flag in STAT_TEXT.values():
        assert "_" not in label and label


def test_shooting_only_reports_the_targets_fate():
    names = [s.name for s in shot().stats()]
    assert "hits_on_defender" in names and "defender_removed" in names
    assert not any(n.startswith("attacker_") and n != "attacker_dice_rolled" for n in names)
    assert "defender_formed_square" not in names
    heads = [h.label for h in shot().headlines()]
    assert "P(defender retreats)" in heads and all("_" not in h for h in heads)


def test_melee_stats_follow_the_scenario():
    sc = from_dict(WARMUP)
    names = {s.name for s in sc.stats()}
    assert {"defender_formed_square", "attacker_followed_up", "second_target_removed"} <= names
    assert "defender_leader_hits" not in names  # no leaders in the scenario
    assert "defender_retired" not in names  # no retire reaction
    job = sc.compile()
    assert job.meta["primary"] == "hits_on_defender" and job.ruleset == "vom-kriege"
    assert job.meta["primary"] in names
    assert job.exact is not None  # the form-square test is static (first charge)


def test_leader_stats_when_the_focus_has_leaders():
    sc = VomKriegeScenario(
        units=(
            U_("a", "attacker", "infantry", leader="x"),
            U_("d", "defender", "infantry", leader="y"),
        ),
        leaders=(
            Leader("x", "attacker"),
            Leader("y", "defender"),
            Leader("z", "defender", army=True),
        ),
        actions=(Action("melee", "a", "d"),),
    )
    names = {s.name for s in sc.stats()}
    assert {"defender_leader_hits", "attacker_leader_removed", "defender_army_leader_hits"} <= names
    assert "attacker_army_leader_hits" not in names


def test_dice_bins_cover_every_possible_value():
    """Dice, hit, flag and retreat counts have bins to spare: the (clamping) top bin of a
    generous bound is never reached, so no value is ever clipped."""
    sc = from_dict(WARMUP)
    out = oddslab.simulate(sc, trials=200_000, seed=2)
    for s in out.stats:
        if s.name.startswith(("hits_on", "flags_on")) or s.name.endswith(
            ("dice_rolled", "half_moves")
        ):
            assert out.counts[s.name][-1] == 0, s.name
            assert s.nbins > 4


def test_exact_single_shot():
    sc = shot(hits=2)
    pmfs = sc.exact_pmfs()
    for k, p in pmfs.items():
        assert abs(p.sum() - 1) < 1e-12, k
    # 4 dice against infantry: P(no hit and no flag) = (2/6)^4; mean hits 4 * 1/2
    assert pmfs["hits_on_defender"][0] == pytest.approx((1 / 2) ** 4)
    assert np.dot(np.arange(len(pmfs["hits_on_defender"])), pmfs["hits_on_defender"]) == (
        pytest.approx(2.0)
    )
    ex = oddslab.exact(sc)
    assert ex.exact and ex.prob("defender_removed") == pytest.approx(
        float(pmfs["defender_removed"][1])
    )
    ex = oddslab.exact(from_dict(WARMUP))  # a melee: only the form-square test is static
    assert ex.stat_names == ["defender_formed_square"]
    assert ex.prob("defender_formed_square") == pytest.approx(1 - (4 / 6) ** 4)
    data = dict(WARMUP, actions=[{"kind": "melee", "actor": "hussars", "target": "guns"}])
    with pytest.raises(NotImplementedError):
        oddslab.exact(from_dict(data))


def test_square_test_reported():
    sc = from_dict(WARMUP)
    assert sc.square_test() == (4, pytest.approx(1 - (4 / 6) ** 4))
    assert "form-square test" in sc.resolved()["action 1: hussars melees line"]


def test_focus_defaults_and_override():
    sc = from_dict(WARMUP)
    assert sc._focus == ("hussars", "line")
    data = dict(WARMUP, focus_defender="guns")
    assert from_dict(data)._focus == ("hussars", "guns")


def test_warmups_run_with_one_trial():
    for w in WARMUPS:
        out = oddslab.simulate(from_dict(w), trials=1, seed=1)
        assert out.trials == 1


def test_arrays_are_int64():
    a = from_dict(WARMUP).arrays()
    for k, v in a.items():
        assert v.dtype == np.int64, k
