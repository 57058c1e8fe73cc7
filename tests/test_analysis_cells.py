"""Cells: stable seeds, canonical keys, dotted paths."""

from __future__ import annotations

import subprocess
import sys

from oddslab.analysis.cells import canonical, cell_seed


def test_cell_seed_is_stable_across_processes_and_below_2_63():
    code = "from oddslab.analysis.cells import cell_seed; print(cell_seed(7, {'target.save': 4}))"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert int(other.stdout) == cell_seed(7, {"target.save": 4})
    assert 0 <= cell_seed(2**100, {"a": "x"}) < 2**63


def test_canonical_is_order_free():
    assert (
        canonical({"b": 1, "a": [1, 2]}) == canonical({"a": [1, 2], "b": 1}) == '{"a":[1,2],"b":1}'
    )


def test_precision_cells_stop_at_whole_chunks_and_equal_simulate():
    import oddslab
    from oddslab.analysis.cells import run_cell
    from oddslab.engine import CHUNK_TRIALS

    data = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"models": 5, "attacks": 2, "skill": 3, "strength": 4}]},
        "target": {"models": 10, "toughness": 4, "save": 4},
    }
    r = run_cell(data, "<dict>", "k", "h", 17, None, 0.002)
    assert r.trials % CHUNK_TRIALS == 0 and CHUNK_TRIALS < r.trials < 16 * CHUNK_TRIALS
    out = r.outcome()
    widths = (out.probabilities()["ci_high"] - out.probabilities()["ci_low"]) / 2
    assert (widths < 0.002).all()
    single = oddslab.simulate(oddslab.from_dict(data), trials=r.trials, seed=17)
    assert all((single.counts[k][: len(r.counts[k])] == r.counts[k]).all() for k in r.counts)
    capped = run_cell(data, "<dict>", "k", "h", 17, 70_000, 0.0001)  # the ceiling wins
    assert capped.trials == 70_000


def test_precision_also_covers_a_probability_metric():
    from oddslab.analysis.cells import run_cell
    from oddslab.analysis.metrics import parse_metric

    data = {
        "ruleset": "generic",
        "attacker": {"weapons": [{"models": 10, "attacks": 2, "skill": 3, "strength": 4}]},
        "target": {"models": 1, "wounds": 40, "toughness": 4, "save": 4},  # headlines ~0 or 1
    }
    metric = "P(damage >= 5)"
    plain = run_cell(data, "<dict>", "k", "h", 3, None, 0.002)
    aimed = run_cell(data, "<dict>", "k", "h", 3, None, 0.002, metric)
    v = parse_metric(metric).evaluate(aimed.outcome())
    assert (v.ci_high - v.ci_low) / 2 < 0.002
    assert aimed.trials > plain.trials


HEX = "oddslab/examples/hex-platoon-platoon-fire-concealed.toml"
STATIC = "mean(hits_on_enemy_platoon_step1)"  # the first fire step: static, exact


def _hex_cell(metric, exact="auto", events=()):
    from pathlib import Path

    from oddslab.analysis.cells import run_cell
    from oddslab.scenario import load

    sc = load(Path(__file__).parent.parent / HEX)
    return sc, run_cell(sc.to_dict(), HEX, "k", "h", 11, 2_000, None, metric, exact,
                        events=events)  # fmt: skip


def test_a_cell_whose_metric_reads_only_static_statistics_is_exact():
    import numpy as np

    import oddslab

    sc, r = _hex_cell(STATIC)
    ref = oddslab.exact(sc)  # the exact engine gives 2 of the 7 statistics
    assert r.exact and r.trials == 0 and r.counts == {}
    assert [s[0] for s in r.stats] == ref.stat_names == [
        "hits_on_enemy_platoon_step1", "unsaved_hits_on_enemy_platoon_step1"]  # fmt: skip
    for k, p in r.probs.items():
        np.testing.assert_allclose(p, ref.probs[k][: len(p)], rtol=0, atol=1e-12)
    out = r.outcome()
    assert out.exact and out.headlines == ()  # the headlines read the non-static state
    # an event on a static statistic: answered from its exact distribution
    _, ev = _hex_cell(STATIC, events=("two = hits_on_enemy_platoon_step1 >= 2",))
    assert ev.exact and ev.outcome().events["two"].probability == ref.probs[
        "hits_on_enemy_platoon_step1"][2:].sum()  # fmt: skip


def test_a_cell_is_simulated_whole_when_the_metric_or_an_event_is_not_static():
    import oddslab

    for metric, events in (
        (None, ()),  # no metric: every statistic must be exact (the rule before metrics)
        ("P(enemy platoon eliminated)", ()),  # a headline on the end state
        ("mean(hits_on_enemy_platoon_step2)", ()),  # after the first step's dice
        (STATIC, ("hit = enemy_platoon_state >= 1",)),  # an event on the end state
    ):
        sc, r = _hex_cell(metric, events=events)
        assert not r.exact and r.trials == 2_000 and len(r.stats) == 7, metric
    # --exact never: exactly the simulation of the cell from its seed, as before
    sc, r = _hex_cell(STATIC, exact="never")
    sim = oddslab.simulate(sc, trials=2_000, seed=11)
    assert not r.exact and all((sim.counts[k][: len(c)] == c).all() for k, c in r.counts.items())


def test_a_headline_metric_is_exact_only_where_it_finds_the_same_headline():
    from oddslab.analysis.cells import exact_result
    from oddslab.scenario import load

    sc = load("oddslab/examples/vom-kriege-cuirassiers-charge-square.toml")
    job = sc.compile()  # 36 statistics; only defender_formed_square is static

    def exact(metric):
        return exact_result(sc, job, ("k", "h", 1), metric, [], {}) is not None

    assert exact("P(defender forms square)") and exact("P(defender forms)")
    # "P(defender)" starts many headlines (not a metric of this cell) but only one of the
    # exact ones: the exact cell must not read it as P(defender forms square)
    assert not exact("P(defender)") and not exact("P(defender retreats)")
    assert not exact("mean(defender_removed)") and exact("mean(defender_formed_square)")
