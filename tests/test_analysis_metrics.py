"""Metrics read off outcomes: forms, standard errors, headline labels, errors."""

from __future__ import annotations

import math

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
