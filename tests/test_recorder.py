"""oddslab._recorder through the engine: events, joints and records of a two-dice job whose
exact answers are known by hand, deterministic for a seed at any thread count, bit-identical
histograms with and without them, and a Ctrl-C that keeps them consistent."""

from __future__ import annotations

import math
from pathlib import Path

import numba
import numpy as np
import pytest
from stats import assert_prob, chisquare_pmf
from two_dice import exact_joint, job

from oddslab._recorder import JointTable, Recorder
from oddslab.engine import BATCH_CHUNKS, CHUNK_TRIALS, simulate
from oddslab.events import EventError

EVENTS = ["a >= 5 and b >= 5", "dbl = double | a + b >= 10", "never = a == 0 | b == 0"]


@pytest.fixture(scope="module")
def run():
    return simulate(
        job(), trials=1_000_000, seed=5, events=EVENTS, joint=[("a", "b")], records=5000
    )


@pytest.mark.statistical
def test_events_and_joint_against_the_exact_answers(run):
    e = run.events["a >= 5 and b >= 5"]
    assert e.trials == 1_000_000
    assert_prob(e.probability, 4 / 36, e.trials, z_max=4)
    c = run.events["dbl"]
    assert c.conditional and c.label == "dbl"
    assert_prob(c.given_probability, 6 / 36, run.trials, z_max=4)
    # P(double | a + b >= 10) = 2/6 counts only the 1/6 of trials that meet the condition:
    # 2,000,000 trials give it the ~333,000 a 0.5 pp error needs
    big = simulate(job(), trials=2_000_000, seed=6, events=[EVENTS[1]])
    c = big.events["dbl"]
    assert c.trials > 320_000
    assert_prob(c.probability, 2 / 6, c.trials, z_max=4)
    table = run.joints[("a", "b")]
    assert table.counts.sum() == 1_000_000
    dense = np.zeros((7, 7), dtype=np.int64)
    dense[tuple(table.values.T)] = table.counts
    assert chisquare_pmf(dense.ravel(), exact_joint().ravel()) > 1e-4


def test_a_condition_that_never_happens_says_so(run):
    n = run.events["never"]
    assert math.isnan(n.probability) and n.trials == 0
    assert n.note == "the condition never happened in 1,000,000 trials"
    assert n.to_dict()["probability"] is None
    assert "undefined" in str(n)


def test_histograms_are_bit_identical_without_the_questions(run):
    plain = simulate(job(), trials=1_000_000, seed=5)
    for name in plain.stat_names:
        assert np.array_equal(plain.counts[name], run.counts[name])


def test_records_are_the_first_trials_and_agree_with_the_events(run):
    rec = run.record_array
    assert rec.shape == (5000, 3) and rec.dtype == np.int32
    assert np.array_equal(rec[:, 2], (rec[:, 0] == rec[:, 1]).astype(np.int32))
    longer = simulate(job(), trials=300_000, seed=5, records=2 * CHUNK_TRIALS + 7)
    assert np.array_equal(longer.record_array[:5000], rec)  # the same first trials
    assert len(longer.records) == 2 * CHUNK_TRIALS + 7


def test_same_seed_same_answers_at_any_thread_count(run):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate(
            job(), trials=1_000_000, seed=5, events=EVENTS, joint=[("a", "b")], records=5000
        )
    finally:
        numba.set_num_threads(before)
    for k in run.events:  # to_dict: NaN (a condition that never held) as None, comparable
        assert one.events[k].to_dict() == run.events[k].to_dict()
    t1, t2 = one.joints[("a", "b")], run.joints[("a", "b")]
    assert np.array_equal(t1.values, t2.values) and np.array_equal(t1.counts, t2.counts)
    assert np.array_equal(one.record_array, run.record_array)


def test_precision_runs_count_events_on_the_same_trials():
    out = simulate(job(), seed=3, precision=0.01, events=["a == 6 and b == 6"])
    e = out.events["a == 6 and b == 6"]
    assert e.trials == out.trials and (e.ci_high - e.ci_low) / 2 < 0.01


def test_ctrl_c_keeps_events_consistent_with_the_histograms():
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 1:
            raise KeyboardInterrupt

    out = simulate(
        job(), trials=BATCH_CHUNKS * CHUNK_TRIALS * 3, seed=6, progress=progress,
        events=["double"], joint=["a,b"],
    )  # fmt: skip
    assert out.interrupted and out.trials == BATCH_CHUNKS * CHUNK_TRIALS
    assert out.events["double"].trials == out.trials
    assert out.events["double"].hits == out.counts["double"][1]
    assert out.joints[("a", "b")].counts.sum() == out.trials


def test_rescue_tallies_chunks_whose_call_was_cut_short():
    """After a Ctrl-C inside a kernel call, the finished chunks of that call are tallied
    from the records buffer (their histograms are kept, so their events must be too)."""
    from oddslab._recorder import call_kernel, rescue
    from oddslab._seeding import chunk_seeds

    j = job()
    rec = Recorder(j.stats, ["double"])
    seeds, nt = chunk_seeds(1, 0, 2), np.array([100, 50], dtype=np.int64)
    out = np.zeros((2, 3, 7), dtype=np.int64)
    live: dict = {"ntrials": nt}
    call_kernel(rec, j, seeds, nt, out, live, 0, CHUNK_TRIALS)
    live["tallies"].clear()  # as if the Ctrl-C came before any chunk was tallied
    live["rec"] = (0, rec._buf[:2])
    rescue(rec, live, [0, 1])
    assert rec.trials == 150 and rec.hits[0] == out[:, 2, 1].sum()


def test_bad_questions_fail_before_any_work():
    j = job()
    with pytest.raises(EventError, match="did you mean 'double'"):
        Recorder(j.stats, ["doubel"])
    with pytest.raises(EventError, match="two or more different statistics"):
        Recorder(j.stats, joints=[("a", "a")])
    with pytest.raises(EventError, match="records"):
        Recorder(j.stats, records=-1)
    with pytest.raises(ValueError, match="does not record trials"):
        from dataclasses import replace

        simulate(replace(j, records=False), trials=10, seed=1, events=["double"])


def test_a_wide_joint_is_refused_before_it_overflows():
    from oddslab.outcome import Stat

    wide = [Stat(f"s{i}", 1 << 21) for i in range(3)]
    with pytest.raises(EventError, match="too many possible combinations"):
        Recorder(wide, joints=[("s0", "s1", "s2")])


def test_exact_joint_tables_from_dense():
    t = JointTable.from_dense(("a", "b"), exact_joint())
    assert t.counts is None and t.trials is None and len(t.weights) == 36
    assert np.allclose(t.dense()[1:, 1:], 1 / 36)
    assert t.rows()[0] == {"a": 1, "b": 1, "probability": 1 / 36, "count": None, "se": 0.0,
                           "ci_low": 1 / 36, "ci_high": 1 / 36}  # fmt: skip


EXAMPLES = sorted(
    p.stem for p in (Path(__file__).resolve().parent.parent / "examples").glob("*.toml")
)


@pytest.mark.parametrize("name", EXAMPLES)
def test_every_example_counts_events_and_joints_as_its_records_say(name):
    """Every ruleset, every example: the events and the joint counted during a run equal
    what its per-trial records give for the same trials (two chunks, so the chunk boundary
    and a partial chunk are crossed), and the records histogram to the run's histograms."""
    import oddslab

    sc = oddslab.load(oddslab.examples_dir() / f"{name}.toml")
    stats = sc.compile().stats
    a, b = stats[0].name, stats[-1].name
    ev = [f"`{a}` >= 1 and not `{b}` >= 1", f"`{a}` + `{b}` >= 2 | `{b}` <= 1"]
    n = CHUNK_TRIALS + 1000
    out = simulate(sc, trials=n, seed=11, events=ev, joint=[(a, b)], records=n)
    rec = out.records
    assert len(rec) == n
    for s in stats:
        assert np.array_equal(np.bincount(rec[s.name], minlength=s.nbins), out.counts[s.name])
    first, cond = out.events.values()
    assert first.hits == int(((rec[a] >= 1) & ~(rec[b] >= 1)).sum()) and first.trials == n
    given = rec[b] <= 1
    assert cond.trials == int(given.sum())
    assert cond.hits == int(((rec[a] + rec[b] >= 2) & given).sum())
    table = out.joints[(a, b)]
    values, counts = np.unique(rec[[a, b]].to_numpy(), axis=0, return_counts=True)
    assert np.array_equal(table.values, values) and np.array_equal(table.counts, counts)
