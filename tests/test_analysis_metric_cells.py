"""A metric read off stored cells (no Outcome per cell) equals reading each cell's Outcome."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from oddslab.analysis.matchup import matchup
from oddslab.analysis.metric_cells import MetricReader, common_primary_of
from oddslab.analysis.metrics import common_primary, parse_metric, points_removed, read_metric

GENERIC = Path(__file__).resolve().parent.parent / "oddslab" / "examples" / "libraries" / "generic.toml"  # fmt: skip
EVENTS = ["clean = models_slain >= 2 and wounds_remaining > 0"]
METRICS = ["mean(damage_dealt)", "P(models_slain >= 2)", "P(models_slain != 1)",
           "P(wounds_remaining == 0)", "P(at least 1 target model slain)", "P(clean)",
           "P(models_slain >= 1 and models_slain <= 3)", "mean(hits)"]  # fmt: skip


def _same(a, b) -> bool:
    return all(x == y or (math.isnan(x) and math.isnan(y)) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("exact", ["never", "auto"])
def test_every_cell_reads_as_its_outcome_to_the_last_bit(exact):
    res = matchup(GENERIC, GENERIC, trials=300, seed=2, exact=exact, events=EVENTS,
                  progress=None)  # fmt: skip
    outs = [r.outcome() for r in res.results]
    texts = [r.to_json() for r in res.results]  # as a store row holds them
    for text in METRICS:
        m = parse_metric(text)
        reader = MetricReader(m)
        for r, t, out in zip(res.results, texts, outs, strict=True):
            want, note = read_metric(m, out)
            for got, got_note in (reader.read(r), reader.read(t)):
                assert got_note == note, text
                assert _same((got.value, got.se, got.ci_low, got.ci_high),
                             (want.value, want.se, want.ci_low, want.ci_high)), text  # fmt: skip
    reader = MetricReader(parse_metric("points_removed"))
    for r, out in zip(res.results, outs, strict=True):
        for ppm in (None, 7.5):
            want, note = points_removed(out, ppm)
            got, got_note = reader.read(r, ppm)
            assert got_note == note and _same((got.value, got.se), (want.value, want.se))
    assert common_primary_of(res.results) == common_primary(outs)
    assert common_primary_of(texts[3:]) == common_primary(outs[3:])


def test_a_headline_that_fits_several_is_refused_naming_the_cell():
    res = matchup(f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", trials=100, progress=None)
    with pytest.raises(ValueError, match="shock_squad|matches several headlines") as exc:
        MetricReader(parse_metric("P(at least)")).read(res.results[0])
    with pytest.raises(ValueError) as want:
        read_metric(parse_metric("P(at least)"), res.results[0].outcome())
    assert str(exc.value) == str(want.value)
