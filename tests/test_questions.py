"""Outcome.probability / joint / joint_table / records (oddslab._questions): answers from
events, marginals, joints (counted or exact) and records, each against a hand answer."""

from __future__ import annotations

import math

import numpy as np
import pytest
from stats import assert_prob
from two_dice import STATS, exact_joint, job

from oddslab._recorder import JointTable
from oddslab.engine import simulate
from oddslab.outcome import Outcome

#: trials of the module's run: enough that P(a + b == 7) = 1/6 from the joint sees 0.5 pp
N = 300_000


@pytest.fixture(scope="module")
def run():
    return simulate(job(), trials=N, seed=9, events=["win = a > b"], joint=["a,b"], records=20_000)


def test_counted_events_by_label_or_text(run):
    assert run.probability("win") is run.events["win"]
    assert run.probability("a > b") is run.events["win"]
    assert run.probability("win = a > b") is run.events["win"]
    assert float(run.probability("win")) == run.events["win"].probability


def test_one_statistic_from_its_histogram(run):
    r = run.probability("a >= 5")
    assert r.source == "histogram" and r.trials == N
    assert r.hits == int(run.counts["a"][5:].sum())
    c = run.probability("a >= 5 | a >= 3")
    assert c.trials == int(run.counts["a"][3:].sum()) and c.hits == r.hits


def test_two_statistics_from_the_joint_and_from_records(run):
    j = run.probability("a + b == 7")
    assert j.source == "joint a,b" and j.trials == N
    assert_prob(j.probability, 1 / 6, j.trials)
    bare = simulate(job(), trials=200_000, seed=9, records=20_000)
    r = bare.probability("a + b == 7")
    assert r.source == "records (the first 20,000 trials)" and r.trials == 20_000
    rec = bare.record_array
    assert r.hits == int(np.count_nonzero(rec[:, 0] + rec[:, 1] == 7))


def test_joining_statistics_without_a_joint_says_what_to_ask():
    bare = simulate(job(), trials=1000, seed=9)
    with pytest.raises(ValueError, match=r"run with events=\['a > b'\]"):
        bare.probability("a > b")
    with pytest.raises(ValueError, match="holds no joint distribution of a, b"):
        bare.joint("a", "b")


def test_joint_frames(run):
    f = run.joint("a", "b")
    assert list(f.columns) == ["a", "b", "probability", "count", "se", "ci_low", "ci_high"]
    assert f["count"].sum() == N and len(f) == 36
    swapped = run.joint("b", "a")  # another order: the same table summed the other way
    assert swapped.set_index(["b", "a"])["count"].sort_index().tolist() == (
        f.set_index(["b", "a"])["count"].sort_index().tolist()
    )
    one_way = run.joint("a", "double")  # from the records (the joint counted is a,b)
    assert one_way.attrs["trials"] == 20_000
    t = run.joint_table("a", "b")
    assert t.shape == (6, 6) and abs(t.to_numpy().sum() - 1) < 1e-12


def test_exact_outcomes_answer_exactly():
    probs = {s.name: np.zeros(s.nbins) for s in STATS}
    probs["a"][1:] = probs["b"][1:] = 1 / 6
    probs["double"][:] = [5 / 6, 1 / 6]
    out = Outcome("two dice", STATS, probs)
    r = out.probability("a >= 5")
    assert r.exact and math.isclose(r.probability, 1 / 3) and r.se == 0
    out.joints[("a", "b")] = JointTable.from_dense(("a", "b"), exact_joint())
    assert math.isclose(out.probability("a > b").probability, 15 / 36)
    assert math.isclose(out.probability("a == 6 | a + b >= 11").probability, 2 / 3)
    zero = out.probability("a == 0 | a == 0")
    assert math.isnan(zero.probability) and zero.note == "the condition has probability 0"
    f = out.joint("a", "b")
    assert f["count"].isna().all() and math.isclose(f["probability"].sum(), 1)


def test_exports_carry_the_questions(run):
    d = run.to_dict()
    assert d["events"][0]["label"] == "win" and d["joints"][0]["names"] == ["a", "b"]
    csv = run.to_csv()
    assert "event,a > b,win,,probability," in csv and 'joint,"a,b","a=1, b=1"' in csv
    plain = simulate(job(), trials=1000, seed=1)
    assert "events" not in plain.to_dict()
