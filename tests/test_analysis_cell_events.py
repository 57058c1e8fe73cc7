"""Events in studies: the study's events and default metric, what a cell can answer, the
plain data a store keeps (the numbers themselves: test_analysis_sweep/matchup/points)."""

from __future__ import annotations

import math

import pytest

from oddslab._recorder import EventResult
from oddslab.analysis.cell_events import (
    PROBES,
    _probe_order,
    decode,
    encode,
    fitting,
    study_events,
    study_metric,
)
from oddslab.analysis.cells import CellResult


def test_the_study_counts_the_given_events_then_an_inline_metric_once():
    given = ["clean win =  a >= 1 and   b == 0"]
    assert study_events(given, None) == ("clean win = a >= 1 and b == 0",)
    assert study_events(given, "P(a >= 2 and b)") == (*study_events(given, None), "a >= 2 and b")
    assert study_events(given, "P(a >= 1 and b == 0)") == study_events(given, None)  # its body
    assert study_events("a >= 1 and b", None) == ("a >= 1 and b",)  # one event as a string
    assert study_events((), "P(attacker wins)") == ()  # a headline label is not an event
    assert study_metric(given, None) == (study_events(given, None), "P(clean win)")
    assert study_metric(given, "mean(a)")[1] == "mean(a)"
    with pytest.raises(ValueError, match="two events are called 'x'"):
        study_events(["x = a >= 1", "x = b >= 1"], None)


def test_a_cell_answers_the_events_its_statistics_allow():
    evs, skipped = fitting(["w = a >= 1 and b == 0", "c >= 1", "a | b"], ["a", "b"])
    assert [e.label for _, e in evs] == ["w", "a | b"]
    assert skipped == {"c >= 1": "no statistic 'c'"}


def test_answers_round_trip_through_a_store_row():
    nan = float("nan")
    results = {
        "w": EventResult("w", "a >= 1", 0.25, 0.01, 0.23, 0.27, 25, 100, False, False),
        "a | b": EventResult("a | b", "a | b", nan, nan, nan, nan, 0, 0, True, False,
                             given_probability=0.0, note="the condition never happened"),
    }  # fmt: skip
    data = encode(results, {"c": "no statistic 'c'"})
    row = CellResult("k", "h", "n", 1, 100, (("a", 2, "", True, "a"), ("b", 2, "", True, "b")),
                     (), {"a": [75, 25], "b": [50, 50]}, {}, 0.1, events=data)  # fmt: skip
    out = CellResult.from_json(row.to_json()).outcome()
    assert out.events["w"] == results["w"]
    assert math.isnan(out.events["a | b"].probability) and out.events["a | b"].note
    assert out.meta["events_skipped"] == {"c": "no statistic 'c'"}
    assert decode(None) == ({}, {}) and encode({}, {}) is None  # rows without events


def test_events_are_checked_in_a_bounded_sample_of_cells():
    assert _probe_order(5) == [0, 1, 2, 3, 4]
    big = _probe_order(10_000)
    assert len(big) == PROBES and big[0] == 0 and big[-1] == 9_999
    assert big == sorted(set(big))
