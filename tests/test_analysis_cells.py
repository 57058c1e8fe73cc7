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
