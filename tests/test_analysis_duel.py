"""Duel balance: stochastic root finding with common random numbers, on an exact case."""

from __future__ import annotations

import pytest
from scipy.stats import binom

from oddslab.analysis.duel import duel_balance

# n models with one automatic hit each, wounding on 4+ (exactly 1/2), no save, against one
# model with 3 wounds: P(destroyed | n) = P(Bin(n, 1/2) >= 3), which is exactly 1/2 at n = 5.
EXACT = {
    "ruleset": "generic",
    "attacker": {"weapons": [{"models": 1, "attacks": 1, "torrent": True, "strength": 4}]},
    "target": {"models": 1, "wounds": 3, "toughness": 4, "save": 7},
}
# The target destroyed, read off a statistic every size reports (generic leaves `destroyed` out
# of a scenario whose most damage cannot reach the target's wounds, e.g. 1 or 2 attackers).
DESTROYED = "P(wounds_remaining == 0)"


def test_exact_crossing_is_found():
    assert binom.sf(2, 5, 0.5) == 0.5
    res = duel_balance(EXACT, "attacker.weapons.0.models", 1, 16, metric=DESTROYED,
                       trials=200_000, seed=7, points_per_model=12, base_points=10)  # fmt: skip
    assert res.ci_low <= 5 <= res.ci_high
    assert abs(res.crossing - 5) < 0.05
    assert {res.below, res.above} <= {4, 5, 6}
    assert res.points[0] == pytest.approx(10 + 12 * res.crossing)
    # every size ran with the same seed: the curve matches the binomial
    for row in res.curve.itertuples():
        exact = binom.sf(2, row.size, 0.5)
        assert abs(row.value - exact) < 5 * max(row.se, 1e-3)
    assert res.seed == 7 and not res.notes


def test_decreasing_metric_and_other_targets():
    res = duel_balance(EXACT, "target.wounds", 1, 10, metric=DESTROYED, target=0.5,
                       trials=100_000, seed=1)  # fmt: skip
    # one attack... fixed models=1 wounds 4+: P = 1/2 at 1 wound, 0 beyond: crossing at 1
    assert res.below == 1 and res.crossing == pytest.approx(1.0, abs=0.05)


def test_no_crossing_is_an_error():
    with pytest.raises(ValueError, match="does not cross"):
        duel_balance(EXACT, "attacker.weapons.0.models", 6, 10, metric=DESTROYED,
                     trials=2_000, seed=1)  # fmt: skip
    with pytest.raises(ValueError, match="needs a probability"):
        duel_balance(EXACT, "attacker.weapons.0.models", 1, 10, metric="mean(damage)")


def test_points_come_from_a_library_entry_bought_by_the_model():
    from oddslab.libraries import library_dir

    lib = library_dir() / "generic-weapons.toml"
    data = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"use": f"{lib}:bolt_squad"}]},
        "target": {"use": f"{lib}:horde"},
    }
    res = duel_balance(data, "attacker.weapons.0.models", 10, 40, metric=DESTROYED,
                       trials=5_000, seed=2)  # fmt: skip
    assert res.points is not None
    assert res.points[0] == pytest.approx(10 * res.crossing)  # 10 points per model, no base
    assert any("library entry" in n for n in res.notes)


def test_an_event_metric_gives_the_curve_of_the_statistic_it_equals():
    # one 3-wound model: destroyed exactly when 3 damage is dealt, so the joined event (counted
    # trial by trial) and the one-statistic metric agree size by size for one seed
    kw = dict(trials=30_000, seed=7)
    plain = duel_balance(EXACT, "attacker.weapons.0.models", 1, 12, metric=DESTROYED, **kw)
    ev = duel_balance(EXACT, "attacker.weapons.0.models", 1, 12, metric="P(dead)",
                      events=["dead = wounds_remaining == 0 and damage_dealt >= 3"], **kw)  # fmt: skip
    assert list(ev.curve["value"]) == list(plain.curve["value"])
    assert ev.crossing == plain.crossing and ev.metric == "P(dead)"
    with pytest.raises(ValueError, match="did you mean 'damage_dealt'"):
        duel_balance(EXACT, "attacker.weapons.0.models", 1, 12, metric="P(damage_delt >= 3)")


def test_ctrl_c_stops_the_search_and_keeps_the_sizes_that_finished(monkeypatch):
    """Ctrl-C inside a size's run (the engine returns its finished chunks, marked interrupted)
    stops the search: the size cut short is not used, the finished ones come with the error.
    The search used to carry on with the cut-short size as if it were whole."""
    import dataclasses

    import oddslab.engine
    from oddslab.analysis.duel import DuelInterrupted

    real, calls = oddslab.engine.simulate, []

    def second_run_interrupted(*args, **kwargs):
        calls.append(1)
        out = real(*args, **kwargs)
        return dataclasses.replace(out, interrupted=True) if len(calls) == 2 else out

    monkeypatch.setattr(oddslab.engine, "simulate", second_run_interrupted)
    with pytest.raises(DuelInterrupted) as info:
        duel_balance(EXACT, "attacker.weapons.0.models", 1, 16, metric=DESTROYED,
                     trials=2_000, seed=7)  # fmt: skip
    assert isinstance(info.value, KeyboardInterrupt) and len(calls) == 2
    assert sorted(info.value.evaluated) == [1]
    lines = info.value.summary().splitlines()
    assert lines[0].startswith("interrupted: the duel has no answer yet")
    assert lines[1].startswith(
        "sizes finished (attacker.weapons.0.models: value [95% interval]): 1: "
    )
