"""Metrics read off outcomes: forms, standard errors, headline labels, errors."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from oddslab.analysis.metrics import parse_metric
from oddslab.outcome import Headline, Outcome, Stat


def _outcome() -> Outcome:
    stats = (Stat("models_slain", 4), Stat("attacker_wins", 2, flag=True))
    table = np.array([[10, 20, 30, 40], [60, 40, 0, 0]], dtype=np.int64)
    heads = (
        Headline("P(attacker wins the assault)", "attacker_wins", 1),
        Headline("P(at least half slain, >= 2)", "models_slain", 2),
    )
    return Outcome.from_counts("t", stats, table, 100, headlines=heads)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("P(models_slain >= 2)", 0.7),
        ("P(models_slain>2)", 0.4),
        ("P(models_slain <= 1)", 0.3),
        ("P(models_slain < 1)", 0.1),
        ("P(models_slain == 2)", 0.3),
        ("P(models_slain = 2)", 0.3),
        ("P(models_slain != 2)", 0.7),
        ("P(attacker wins the assault)", 0.4),
        ("P(attacker wins)", 0.4),
        ("P(A wins)", 0.4),
        ("p(Attacker  wins)", 0.4),
        ("P(at least half slain)", 0.7),
        ("P(attacker_wins)", 0.4),
        ("mean(models_slain)", 2.0),
        ("models_slain", 2.0),
    ],
)
def test_values(text, value):
    v = parse_metric(text).evaluate(_outcome())
    assert v.value == pytest.approx(value)
    assert v.ci_low <= v.value <= v.ci_high


def test_standard_errors():
    o = _outcome()
    p = parse_metric("P(models_slain >= 2)").evaluate(o)
    assert p.se == pytest.approx(math.sqrt(0.7 * 0.3 / 100))
    m = parse_metric("mean(models_slain)").evaluate(o)
    assert m.se == pytest.approx(1.0 / 10)  # sd 1 over sqrt(100)


def test_errors():
    o = _outcome()
    with pytest.raises(KeyError, match="headlines: P\\(attacker wins the assault\\)"):
        parse_metric("P(defender wins)").evaluate(o)
    with pytest.raises(KeyError, match="no statistic 'kills'"):
        parse_metric("mean(kills)").evaluate(o)
    with pytest.raises(KeyError, match="several headlines"):
        parse_metric("P(a)").evaluate(o)
    with pytest.raises(ValueError, match="cannot read the metric"):
        parse_metric("median(x)")
    with pytest.raises(ValueError):
        parse_metric("  ")


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("P(models_slain >= )", "'P(models_slain >= )': a number is missing after >="),
        ("P(models_slain >=)", "a number is missing after >="),
        ("P(models_slain == )", "a number is missing after =="),
        ("P(>= 2)", "a statistic is missing before >="),
        ("P( = 2)", "a statistic is missing before ="),
        ("P(models_slain => 2)", "'=>' is not a comparison"),
        ("mean()", "nothing inside mean()"),
        ("P()", "nothing inside P()"),
        ("P( )", "nothing inside P()"),
        ("mean(models_slain >= 2)", "mean(...) takes one statistic name"),
        ("P(models_slain >= 2", "'(' at character 2 has no ')'"),
        ("P((models_slain >= 2)", "'(' at character 2 has no ')'"),
        ("P(models_slain >= 2))", "')' at character 21 has no '('"),
        ("P(models_slain >= 2) x", "'x' after the ')' at character 20: give one metric"),
        ("mean(models_slain)junk", "'junk' after the ')'"),
        ("P(models_slain >= 2) and P(attacker_wins)", "'and P(attacker_wins)' after the ')'"),
    ],
)
def test_a_malformed_metric_is_refused_saying_what_is_wrong(text, problem):
    with pytest.raises(ValueError, match=re.escape(problem)):
        parse_metric(text)


def test_a_label_may_hold_brackets_and_comparisons_of_its_own():
    heads = (Headline("P(mission failed (1D6 = 1))", "models_slain", 1),)
    o = Outcome.from_counts("t", (Stat("models_slain", 2),), np.array([[30, 70]]), 100,
                            headlines=heads)  # fmt: skip
    assert parse_metric("P(mission failed (1D6 = 1))").evaluate(o).value == pytest.approx(0.7)
    # the ruleset's label, as printed: read by its words, never as P(at least half slain >= 1)
    assert parse_metric("P(at least half slain, >= 2)").evaluate(_outcome()).value == 0.7


def _reduced(primary: str) -> Outcome:
    """A cell whose scenario cannot produce models_slain: only damage_dealt is reported."""
    stats = (Stat("damage_dealt", 3), Stat("destroyed", 2, flag=True))
    table = np.array([[50, 30, 20], [100, 0, 0]], dtype=np.int64)
    return Outcome.from_counts("r", stats, table, 100, meta={"primary": primary})


def test_cells_with_different_statistics():
    from oddslab.analysis.metrics import check_metric, common_primary, read_metric

    full = _outcome()
    full.stats = (*full.stats, Stat("damage_dealt", 3))
    full.probs["damage_dealt"] = np.array([0.2, 0.3, 0.5])
    full.counts["damage_dealt"] = np.array([20, 30, 50])
    full.meta["primary"] = "models_slain"
    red = _reduced("damage_dealt")
    # models_slain is the first cell's primary but the second lacks it; damage_dealt is shared
    assert common_primary([full, red, full]) == "damage_dealt"
    assert common_primary([full, full]) == "models_slain"
    m = check_metric("P(models_slain >= 2)", ["a", "b"], [full, red])
    v, note = read_metric(m, red)
    assert math.isnan(v.value) and math.isnan(v.se) and note.startswith("not reported: ")
    assert "models_slain" in note
    assert read_metric(m, full) == (m.evaluate(full), "")
    v, note = read_metric(parse_metric("P(attacker wins)"), red)
    assert math.isnan(v.value) and "headline 'P(attacker wins)'" in note
    with pytest.raises(ValueError, match=r"^b: 'mean\(nothing\)': no statistic 'nothing'"):
        check_metric("mean(nothing)", ["b", "c"], [red, red])
    with pytest.raises(ValueError, match="no statistic in common"):
        common_primary([_outcome(), red])


# -- events as metrics ----------------------------------------------------------------------
def _with_event() -> Outcome:
    from oddslab._recorder import EventResult

    o = _outcome()
    se = math.sqrt(0.3 * 0.7 / 100)
    o.events["clean win"] = EventResult(
        "clean win", "models_slain >= 2 and attacker_wins", 0.3, se, 0.22, 0.39, 30, 100,
        False, False,
    )  # fmt: skip
    return o


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("P(clean win)", "label"),  # a name: an event of the study or a headline
        ("P(models_slain >= 2 and attacker_wins)", "event"),
        ("P(models_slain >= 2 | attacker_wins)", "event"),
        ("P(1 <= models_slain <= 2)", "event"),
        ("P(not attacker_wins)", "event"),
        ("P(attacker_wins)", "label"),  # a statistic alone: P(stat >= 1), as before
        ("P(models_slain >= 2)", "compare"),
        ("P(attacker wins the assault)", "label"),
    ],
)
def test_inline_conditions_are_events_and_names_are_labels(text, kind):
    assert parse_metric(text).kind == kind
    assert parse_metric(text).is_probability


def test_an_event_of_the_outcome_is_a_metric_with_its_se():
    o = _with_event()
    v = parse_metric("P(clean win)").evaluate(o)
    assert (v.value, v.se, v.ci_low, v.ci_high) == (0.3, math.sqrt(0.21 / 100), 0.22, 0.39)
    # the condition written inline finds the same counted event
    assert parse_metric("P(models_slain >= 2  and attacker_wins)").evaluate(o).value == 0.3


def test_an_inline_condition_on_one_statistic_reads_its_histogram():
    v = parse_metric("P(1 <= models_slain <= 2)").evaluate(_outcome())
    assert v.value == pytest.approx(0.5)
    assert v.se == pytest.approx(math.sqrt(0.25 / 100))
    # a join the outcome did not count is an error saying how to count it
    with pytest.raises(ValueError, match="does not hold jointly"):
        parse_metric("P(models_slain >= 2 and attacker_wins)").evaluate(_outcome())


def test_an_unknown_event_name_gets_a_did_you_mean():
    with pytest.raises(KeyError, match=r"did you mean 'P\(clean win\)'\?.*events: P\(clean win\)"):
        parse_metric("P(clean wn)").evaluate(_with_event())


def test_an_event_a_cell_cannot_answer_is_nan_with_a_note():
    from oddslab.analysis.metrics import read_metric

    o = _outcome()
    o.meta["events_skipped"] = {"clean win": "no statistic 'defender_destroyed'"}
    v, note = read_metric(parse_metric("P(clean win)"), o)
    assert math.isnan(v.value) and note == "not reported: no statistic 'defender_destroyed' here"
    v, note = read_metric(parse_metric("P(shock >= 2 and attacker_wins)"), o)
    assert math.isnan(v.value) and note == "not reported: no statistic 'shock' here"
