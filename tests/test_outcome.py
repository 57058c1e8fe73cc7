"""Outcome tables: pmf, at_least, summary, probabilities, CSV and JSON export."""

from __future__ import annotations

import io
import json
import math

import numpy as np
import pandas as pd
import pytest

from oddslab.outcome import Headline, Outcome, Stat, format_probability, wilson_interval

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
    assert list(p["label"]) == ["P(2+ kills)", "P(unit broke)"]  # flags by their plain words
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
    assert list(df.columns) == ["section", "stat", "label", "k", "measure", "value"]
    assert set(df.section) == {"run", "headline", "summary", "pmf"}
    counts = df[(df.section == "pmf") & (df.stat == "kills") & (df.measure == "count")]
    assert counts["value"].astype(int).sum() == 100
    head = df[(df.section == "headline") & (df.measure == "probability")]
    assert head["label"].tolist() == ["P(2+ kills)", "P(unit broke)"]
    assert float(head["value"].iloc[0]) == pytest.approx(0.7)
    mean = df[(df.section == "summary") & (df.stat == "kills") & (df.measure == "mean")]
    assert float(mean["value"].iloc[0]) == pytest.approx(2.0)
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


def test_csv_has_no_float_noise():
    table = np.zeros((1, 4), dtype=np.int64)
    table[0, :3] = [1, 2, 7]  # 0.1, 0.2, 0.7 of 10 trials; P(>= 1) = 0.9 (0.2 + 0.7 in floats)
    o = Outcome.from_counts("noise", (Stat("x", 4),), table, 10, seed=0)
    text = o.to_csv()
    assert "0.30000000000000004" not in text and "0.8999999999999999" not in text
    assert ",0.7\n" in text


def test_resolved_and_precision_in_json_and_csv():
    table = np.zeros((1, 2), dtype=np.int64)
    table[0] = [60, 40]
    o = Outcome.from_counts(
        "r", (Stat("x", 2, flag=True),), table, 100, seed=3, precision=0.01, half_width=0.09,
        precision_reached=False, resolved={"target": {"toughness": 4, "save": "4+"}},
    )  # fmt: skip
    data = json.loads(o.to_json())
    assert data["resolved"] == {"target": {"toughness": 4, "save": "4+"}}
    assert data["precision_reached"] is False and data["half_width"] == 0.09
    df = pd.read_csv(io.StringIO(o.to_csv()))
    res = df[df.section == "resolved"]
    assert res["measure"].tolist() == ["toughness", "save"]
    assert res["label"].tolist() == ["target", "target"]


def test_zero_hits_interval_starts_at_exactly_zero():
    for n in (7, 1000, 65536 * 3, 10**9 + 7):
        assert wilson_interval(0, n)[0] == 0.0
        assert wilson_interval(n, n)[1] == 1.0
    table = np.zeros((1, 3), dtype=np.int64)
    table[0, 0] = 1000
    o = Outcome.from_counts("z", (Stat("x", 3),), table, 1000)
    row = o.at_least_rows("x")
    assert row[0]["probability"] == 1.0 and row[0]["se"] == 0.0
    ex = Outcome.from_pmfs("e", (Stat("x", 3),), {"x": np.array([1.0, 0.0, 0.0])})
    p = ex.probability_rows()
    assert all(r["ci_low"] == 0.0 for r in ex.pmf_rows("x") if r["probability"] == 0)
    assert p == []


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0, "0"),
        (1.0, "1"),
        (0.12345, "0.1235"),
        (3.2e-6, "3.2e-06"),
        (0.0001, "0.0001"),
        (0.99999, "0.999990"),
        (1 - 9.2e-05, "0.999908"),
        (1 - 1e-15, "1"),
    ],
)
def test_format_probability_never_hides_an_event(p, text):
    assert format_probability(p) == text


def test_primary_stat_fallback_prefers_counts_over_turns_and_flags():
    stats = (
        Stat("turns", 3),
        Stat("destroyed", 2, flag=True),
        Stat("models_slain", 2),  # a single-model target: 0/1
        Stat("damage", 9),
    )
    table = np.zeros((4, 9), dtype=np.int64)
    table[0, :3] = [0, 50, 50]
    table[1, :2] = [50, 50]
    table[2, :2] = [50, 50]
    table[3, :5] = [10, 20, 30, 20, 20]
    o = Outcome.from_counts("p", stats, table, 100)
    assert o.primary_stat() == "damage"
    o.meta["primary"] = "turns"
    assert o.primary_stat() == "turns"  # the ruleset's choice wins
    only_flags = Outcome.from_counts("f", stats[:2], table[:2], 100)
    assert only_flags.primary_stat() == "destroyed"  # no count exists: not 'turns'


def test_frames(outcome):
    f = outcome.to_frame()
    assert list(f.columns) == ["stat", "label", "value", "probability", "count"]
    assert f.query("stat == 'kills' and probability > 0")["count"].sum() == 100
    long = outcome.long_frame()
    assert list(long.columns) == ["section", "stat", "label", "k", "measure", "value"]
    assert len(long) == len(outcome.long_rows())


@pytest.mark.parametrize(
    ("value", "se", "text"),
    [
        (0.99999, 0.005, "0.99999"),  # not "1 ± 0.005"
        (2.99742, 0.01, "2.997"),  # not "3 ± 0.01"
        (3.0, 0.01, "3.000"),  # exactly 3: the SE's decimals
        (123.456, 2.1, "123.5"),
        (0.0012345, 0.0001, "0.00123"),
        (5.0, 0.0, "5"),
    ],
)
def test_an_estimate_never_looks_exact(value, se, text):
    from oddslab._format import format_estimate

    assert format_estimate(value, se) == text


def test_json_numbers_are_numbers_and_nan_is_null():
    import json

    import numpy as np

    from oddslab._format import json_number

    got = [json_number(x) for x in (np.float64(0.25), np.int64(3), np.bool_(True), "a", None)]
    assert got == [0.25, 3, True, "a", None] and json.dumps(got) == '[0.25, 3, true, "a", null]'
    assert [json_number(x) for x in (float("nan"), np.float64("inf"), -np.inf)] == [None] * 3


def test_intervals_near_one_have_no_minus_sign():
    """`1 − 1.9e-05 – 1` put a minus and a dash side by side: near 1 prints in decimals."""
    for p in (1 - 1.9e-05, 1 - 2.1e-09, 0.99995):
        text = format_probability(p)
        assert "−" not in text and text.startswith("0.9999") and float(text) != 1.0
        assert abs(float(text) - p) <= 0.05 * (1 - p)


def test_csv_frames_carry_no_float_noise():
    import pandas as pd

    from oddslab._format import csv_frame

    text = csv_frame(pd.DataFrame({"x": [4.4454899999999995, 0.1 + 0.2], "n": [1, 2]}))
    assert text == "x,n\n4.44549,1\n0.3,2\n"


@pytest.mark.parametrize(
    ("se", "text"),
    [(0.00607, "0.0061"), (0.1, "0.10"), (0.0995, "0.10"), (1.234, "1.2"), (123.4, "120"),
     (5.2e-5, "5.2e-05"), (0.0, "0")],
)  # fmt: skip
def test_a_standard_error_prints_two_significant_digits_whatever_its_size(se, text):
    """Never ``± 0.0`` for an SE that is not 0 (a simulated answer looked exact)."""
    from oddslab._format import format_se

    assert format_se(se) == text


def test_json_records_keep_every_bit_of_a_float():
    """``DataFrame.to_json`` rounds to 10 decimals (4.4444444444); these round-trip."""
    import json

    import pandas as pd

    from oddslab._format import json_records

    df = pd.DataFrame({"v": [40 / 9, float("nan")], "n": [1, 2], "ok": [True, False]})
    df["s"] = pd.array(["a", None], dtype="string")
    rows = json.loads(json.dumps(json_records(df)))
    assert rows == [{"v": 40 / 9, "n": 1, "ok": True, "s": "a"},
                    {"v": None, "n": 2, "ok": False, "s": None}]  # fmt: skip
