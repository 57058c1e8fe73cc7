"""The vectorised tidy frame equals the per-cell Outcome rows (simulated and exact cells)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from oddslab.analysis.frames import frame_chunks, wilson_arrays, write_csv
from oddslab.analysis.sweep import sweep
from oddslab.outcome import wilson_interval

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"


def _per_outcome(res) -> pd.DataFrame:
    """The frame as the per-cell way built it: an Outcome per cell, its rows."""
    rows = []
    for cell, out in zip(res.cells, res.outcomes, strict=True):
        titles = {s.name: s.title for s in out.stats}
        base = {**cell.values}
        tail = {"trials": out.trials or 0, "seed": cell.seed, "exact": out.exact}
        for r in out.summary_rows():
            rows.append({**base, "kind": "mean", "statistic": r["stat"],
                         "label": titles[r["stat"]], "value": r["mean"], "se": r["se_mean"],
                         "ci_low": r["ci_low"], "ci_high": r["ci_high"], **tail})  # fmt: skip
        for r in out.probability_rows():
            rows.append({**base, "kind": "probability", "statistic": r["stat"],
                         "label": r["label"], "value": r["probability"], "se": r["se"],
                         "ci_low": r["ci_low"], "ci_high": r["ci_high"], **tail})  # fmt: skip
    return pd.DataFrame(rows)


@pytest.mark.parametrize("exact", ["never", "auto"])
def test_vectorised_frame_equals_the_outcome_rows(exact):
    vary = {"target.models": [1, 7, 20], "target.save": [2, 5]}  # layouts of several widths
    res = sweep(SCENARIO, vary, trials=3_000, seed=2, exact=exact)
    assert all(o.exact for o in res.outcomes) == (exact == "auto")
    pd.testing.assert_frame_equal(res.frame(), _per_outcome(res), check_exact=False,
                                  rtol=1e-12, atol=1e-15)  # fmt: skip


def test_chunks_and_streamed_csv_equal_one_frame(tmp_path):
    res = sweep(SCENARIO, {"target.models": [1, 2, 3, 4, 5]}, trials=1_000, seed=3)
    pairs = [(c.values, c.seed, r) for c, r in zip(res.cells, res.results, strict=True)]
    parts = list(frame_chunks(res.keys, pairs, chunk=2))
    assert len(parts) == 3
    whole = pd.concat([pd.DataFrame(p) for p in parts], ignore_index=True)
    pd.testing.assert_frame_equal(whole, res.frame(), check_exact=True)
    write_csv(iter(parts), tmp_path / "s.csv")
    assert (tmp_path / "s.csv").read_text() == res.to_csv()
    # stored JSON text reads the same as the results themselves
    texts = [(c.values, None, r.to_json()) for c, r in zip(res.cells, res.results, strict=True)]
    again = pd.concat([pd.DataFrame(p) for p in frame_chunks(res.keys, texts)], ignore_index=True)
    pd.testing.assert_frame_equal(again, whole, check_exact=True)


def test_wilson_arrays_equal_the_scalar_interval():
    hits = np.array([0, 1, 5, 499, 500, 1000])
    n = np.array([1000] * 6)
    lo, hi = wilson_arrays(hits, n)
    for h, a, b in zip(hits, lo, hi, strict=True):
        assert (a, b) == pytest.approx(wilson_interval(int(h), 1000), rel=1e-14, abs=0)
