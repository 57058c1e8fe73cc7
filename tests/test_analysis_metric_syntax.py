"""The written form of a metric: what is wrong with a malformed P(...) or mean(...), and
which P(...) hold an inline condition (the CLI's refusals are in test_analysis_cli.py)."""

from __future__ import annotations

import pytest

from oddslab.analysis.metric_syntax import is_condition, malformed


@pytest.mark.parametrize(
    "text, why",
    [
        ("P(models_slain >= )", "missing after >="),
        ("P(models_slain >= 2", "has no ')'"),
        ("P(models_slain >= 2))", "has no '('"),
        ("mean()", "nothing inside mean()"),
        ("P()", "nothing inside P()"),
        ("mean(models_slain >= 2)", "a condition goes in P"),
        ("P(models_slain >= 2) + 1", "give one metric"),
    ],
)
def test_malformed_metrics_say_what_is_wrong(text, why):
    assert why in malformed(text)


@pytest.mark.parametrize(
    "text",
    ["P(models_slain >= 2)", "P(artillery mission failed (1D6 = 1))", "P(target unit destroyed)",
     "P(a >= 1 and b == 0)", "models_slain"],
)  # fmt: skip
def test_well_formed_probabilities_and_labels_with_brackets_pass(text):
    # (parse_metric asks only for texts that mean(stat) and P(stat >= k) did not match: a
    # mean(...) that gets here is malformed by then)
    assert malformed(text) == ""


def test_is_condition_reads_inline_events():
    assert is_condition("a >= 1 and b == 0")
    assert not is_condition("target unit destroyed")
