"""Outcome tables: pmf, at_least, summary, probabilities, CSV and JSON export."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from oddslab.outcome import Headline, Outcome, Stat, wilson_interval

STATS = (Stat("kills", 5, "kills"), Stat("broke", 2, "unit broke", flag=True))


@pytest.fixture()
def outcome():
    table = np.zeros((2, 5), dtype=np.int64)
    table[0, :4] = [10, 20, 30, 40]  # kills 0..3 in 100 trials
    table[1, :2] = [75, 25]
    return Outcome.from_counts(
        "demo", STATS, table, 100, seed=1, headlines=(Headline("P(2+ kills)", "kills", 2),)
    )


def test_pmf_and_at_least(outcome):
    pmf = outcome.pmf("kills")
    assert list(pmf["value"]) == [0, 1, 2, 3]
    assert np.allclose(pmf["probability"], [0.1, 0.2, 0.3, 0.4])
    assert math.isclose(pmf["se"][3], math.sqrt(0.4 * 0.6 / 100))
    al = outcome.at_least("kills")
    assert np.allclose(al["probability"], [1.0, 0.9, 0.7, 0.4])
    assert outcome.prob("kills", 2) == pytest.approx(0.7)
    assert outcome.prob("kills", 9) == 0.0


def test_summary(outcome):
    s = outcome.summary()
    assert s.loc["kills", "mean"] == pytest.approx(2.0)
    assert s.loc["kills", "sd"] == pytest.approx(1.0)
    assert s.loc["kills", "se_mean"] == pytest.approx(0.1)
    assert s.loc["kills", "q50"] == 2 and s.loc["kills", "q05"] == 0 and s.loc["kills", "q95"] == 3
    assert s.loc["broke", "mean"] == pytest.approx(0.25)


def test_probabilities_include_flags_and_headlines(outcome):
    p = outcome.probabilities()
    assert list(p["label"]) == ["P(2+ kills)", "P(broke)"]
    assert p["probability"].tolist() == pytest.approx([0.7, 0.25])
    lo, hi = wilson_interval(25, 100)
    assert p["ci_low"][1] == pytest.approx(lo) and p["ci_high"][1] == pytest.approx(hi)


def test_wilson_known_values():
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)


def test_csv_and_json_round_trip(outcome, tmp_path):
    text = outcome.to_csv(tmp_path / "o.csv")
    df = pd.read_csv(io.StringIO(text))
    assert set(df.columns) == {"stat", "value", "probability", "count"}
    assert df[df.stat == "kills"]["count"].sum() == 100
    data = json.loads(outcome.to_json(tmp_path / "o.json"))
    assert data["trials"] == 100 and data["seed"] == 1
    assert data["pmf"]["kills"] == pytest.approx([0.1, 0.2, 0.3, 0.4])
    assert json.loads((tmp_path / "o.json").read_text()) == data


def test_exact_outcome_has_zero_standard_error():
    o = Outcome.from_pmfs("exact", STATS, {"kills": np.array([0.5, 0.5])})
    assert o.exact and o.stat_names == ["kills"]
    assert (o.pmf("kills")["se"] == 0).all()
    assert o.summary().loc["kills", "se_mean"] == 0


def test_unknown_stat_message(outcome):
    with pytest.raises(KeyError, match="kills, broke"):
        outcome.pmf("nope")
