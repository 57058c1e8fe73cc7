"""Turn-by-turn curves, the formation summary and the P(broken by turn t) plot."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import oddslab
from oddslab.exact import exact
from oddslab.rulesets.formation_actions import (
    WARMUP,
    Army,
    Formation,
    FormationActionsScenario,
    Rules,
    army_summary,
    formation_summary,
    plot_broken_by_turn,
    turn_curves,
)
from oddslab.scenario import from_dict
from tests.fast_formation_actions import assert_exact
from tests.stats import P_MIN, assert_prob, chisquare_pmf
from tests.switches import assert_exact_power


def _scenario():
    return FormationActionsScenario(
        (
            Army(
                "blue", (Formation("inf", command=3, units=2), Formation("arm", command=5, units=3))
            ),
            Army("red", (Formation("x", command=4, units=2, suppressed=1),)),
        ),
        4,
        Rules(),
    )


@pytest.mark.statistical
def test_turn_curves_exact_and_simulated_agree():
    sc = _scenario()
    ex = turn_curves(exact(sc))
    out = oddslab.simulate(sc, trials=1_000_000, seed=3)
    # the simulation itself: every statistic's whole distribution against its exact PMF, with
    # the power to see a 0.5 pp error in these
    headline = ("blue_inf_broken_by_turn_4", "blue_actions_turn_4", "blue_arm_holds")
    assert_exact(dict(out.counts), sc.exact_pmfs(), "curves scenario", headline)
    mc = turn_curves(out)
    assert list(ex.columns) == [
        "who",
        "army",
        "formation",
        "turn",
        "measure",
        "description",
        "value",
        "se",
        "stat",
    ]
    assert set(ex["measure"]) == {
        "actions",
        "holds",
        "broken_after",
        "won_strategy",
        "p_action",
        "p_hold",
        "shock",
        "broken_by",
    }
    assert (ex["se"] == 0).all() and (mc["se"] >= 0).all()
    merged = ex.merge(mc, on=["stat", "measure"], suffixes=("_ex", "_mc"))
    assert len(merged) == len(ex) == len(mc)
    z = (merged["value_mc"] - merged["value_ex"]) / merged["se_mc"].where(merged["se_mc"] > 0, 1)
    assert np.abs(z).max() < 5
    # P(broken by turn t) never decreases
    for _who, g in ex[ex["measure"] == "broken_by"].groupby("who"):
        assert np.all(np.diff(g.sort_values("turn")["value"]) >= -1e-15)
    assert set(ex["who"]) == {"blue", "red", "blue inf", "blue arm", "red x"}


def test_formation_summary():
    n = 150_000
    out = oddslab.simulate(_scenario(), trials=n, seed=4)
    df = formation_summary(out)
    assert list(df["who"]) == ["blue inf", "blue arm", "red x"]
    # red x: command 4 - 1 suppressed: each test passes with 3/6. The share passed of all its
    # tests (about 3.8 a trial) has the binomial SE of that many tests (each test's pass is a
    # fresh 1/2 whatever came before: Wald's identities), 576,000 here: a 0.5 pp error fails
    x = df[df["who"] == "red x"].iloc[0]
    tests = round((x["mean_actions"] + x["mean_holds"]) * n)
    assert_prob(x["p_action_passes"], 0.5, tests, what="red x passes")
    assert {"p_broken_by_turn_4", "p_rallied", "mean_withdrawals"} <= set(df.columns)


def test_army_summary():
    out = oddslab.simulate(from_dict(WARMUP), trials=100_000, seed=5)
    df = army_summary(out)
    assert list(df["army"]) == ["blue", "red"]
    red = df[df["army"] == "red"].iloc[0]
    assert red["p_retained"] == 0.0 and red["mean_strategy_wins"] == out.mean("red_won_strategy")
    # equal ratings: turn 1 is 1/2 each (a tie rolled again); in turn 2 a tie (1/6) goes to
    # the loser of turn 1, so red wins both with 1/2 * 5/12 and neither with 1/2 * 5/12: the
    # wins are 0, 1, 2 with 5/24, 14/24, 5/24 (mean 1), the whole distribution checked
    wins = out.counts["red_won_strategy"]
    pmf = np.array([5, 14, 5]) / 24
    assert chisquare_pmf(wins, pmf) > P_MIN
    assert_exact_power(wins, pmf, "red strategy wins")
    blue = df[df["army"] == "blue"].iloc[0]
    assert 0 < blue["p_retained"] < 1 and blue["mean_retain_attempts"] > 0
    assert list(army_summary(exact(_scenario()))["army"]) == ["blue", "red"]


def test_plot_broken_by_turn_returns_axes():
    import matplotlib.pyplot as plt

    out = oddslab.simulate(from_dict(WARMUP), trials=20_000, seed=1)
    ax = plot_broken_by_turn(out)
    assert ax.get_xlabel() == "turn"
    assert len(ax.get_lines()) == 3
    fig, ax2 = plt.subplots()
    assert plot_broken_by_turn(exact(_scenario()), ax=ax2, who=["red x"], label="c4") is ax2
    assert len(ax2.get_lines()) == 1
    plt.close("all")


def test_curves_reject_other_outcomes():
    from oddslab.outcome import Outcome, Stat

    o = Outcome("x", (Stat("a", 2),), {"a": np.array([0.5, 0.5])})
    with pytest.raises(ValueError, match="formation-actions"):
        turn_curves(o)
