"""oddslab.events: the grammar, its errors, and vectorised evaluation against hand answers."""

from __future__ import annotations

import numpy as np
import pytest

from oddslab.events import EventError, check_stat_names, parse_event, parse_events

NAMES = ["models_slain", "damage_dealt", "destroyed", "attacker_models_lost"]
V = np.arange(6, dtype=np.int32)
COLS = {n: V for n in NAMES}


def mask(text: str) -> tuple[list[bool], list[bool] | None]:
    e = parse_event(text, NAMES)
    a, b = e.masks({s: COLS[s] for s in e.stats}, len(V))
    return a.tolist(), None if b is None else b.tolist()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("models_slain >= 4", [False, False, False, False, True, True]),
        ("models_slain == 0 or destroyed >= 5", [True, False, False, False, False, True]),
        ("not destroyed", [True, False, False, False, False, False]),
        ("destroyed", [False, True, True, True, True, True]),
        ("2 <= models_slain < 4", [False, False, True, True, False, False]),
        ("damage_dealt - 2 * models_slain >= -1", [True, True, False, False, False, False]),
        ("-models_slain + 3 > 0", [True, True, True, False, False, False]),
        ("(models_slain > 1) and not (models_slain > 3)", [False, False, True, True, False, False]),
        ("models_slain != 2 and True", [True, True, False, True, True, True]),
        ("models_slain >= 2.5", [False, False, False, True, True, True]),
    ],
)
def test_conditions(text, expected):
    a, b = mask(text)
    assert a == expected and b is None


def test_conditional_and_named():
    e = parse_event("clean win = models_slain >= 3 | attacker_models_lost == 0", NAMES)
    assert e.label == "clean win" and e.conditional
    assert e.text == "models_slain >= 3 | attacker_models_lost == 0"
    assert e.stats == ("models_slain", "attacker_models_lost")
    cols = {"models_slain": np.array([0, 3, 4, 5]), "attacker_models_lost": np.array([0, 0, 1, 0])}
    ab, b = e.masks(cols, 4)
    assert ab.tolist() == [False, True, False, True] and b.tolist() == [True, True, False, True]


def test_int32_arithmetic_does_not_wrap():
    e = parse_event("models_slain * damage_dealt > 3000000000", NAMES)
    big = np.array([100_000], dtype=np.int32)
    a, _ = e.masks({"models_slain": big, "damage_dealt": big}, 1)
    assert a.tolist() == [True]


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("models_slian >= 2", "did you mean 'models_slain'"),
        ("models_slain = 5", "write 'models_slain == 5'"),
        ("models_slain + 1", "is a number, not a condition"),
        ("models_slain / 2 > 1", "'/' is not allowed"),
        ("__import__('os') > 1", "is not allowed"),
        ("models_slain.real > 1", "is not allowed"),
        ("a >= 1 | b | c", "'|' (given) may appear once"),
        ("(destroyed | models_slain)", "only at the top level"),
        ("x = ", "empty condition"),
        ("models_slain >= ", "cannot read"),
        ("models_slain > (destroyed > 1)", "compare numbers and statistics, not conditions"),
        ("-(destroyed > 1)", "'-' applies to numbers"),
        ("nothing_like_it > 1", "the statistics are"),
        ("models_slain >= 1 |", "empty condition"),
    ],
)
def test_errors_name_the_event_and_the_problem(text, words):
    with pytest.raises(EventError) as err:
        parse_event(text, NAMES)
    assert words in str(err.value)
    assert str(err.value).startswith("event '") or "'|'" in str(err.value)


def test_two_events_with_one_name():
    with pytest.raises(EventError, match="two events are called 'win'"):
        parse_events(["win = destroyed", "win = models_slain > 2"], NAMES)
    assert [e.label for e in parse_events(["destroyed", "win = destroyed"], NAMES)] == [
        "destroyed",
        "win",
    ]


def test_check_stat_names():
    assert check_stat_names([" destroyed", "models_slain"], NAMES, "--joint") == (
        "destroyed",
        "models_slain",
    )
    with pytest.raises(EventError, match="--joint: no statistic 'destroyd'; did you mean"):
        check_stat_names(["destroyd"], NAMES, "--joint")


ODD = [
    "1st_platoon_state",
    "2nd_platoon_state",
    "attacker.Tactical Squad.Marines.models_lost",
    "hits",
]


def test_statistics_whose_names_are_not_plain_words():
    """Names starting with a digit or holding dots and spaces (hex platoon's unit states,
    assault phase's per-group losses) read as written or in backticks."""
    v = np.arange(4)
    e = parse_event("1st_platoon_state >= 2 and `2nd_platoon_state` < 2", ODD)
    assert e.stats == ("1st_platoon_state", "2nd_platoon_state")
    a, _ = e.masks({n: v for n in e.stats}, 4)
    assert a.tolist() == [False, False, False, False]
    e = parse_event("lost = attacker.Tactical Squad.Marines.models_lost >= 3 | hits > 0", ODD)
    assert e.label == "lost" and e.stats == ("attacker.Tactical Squad.Marines.models_lost", "hits")
    with pytest.raises(EventError, match="no statistic '2nd_platon_state'; did you mean"):
        parse_event("2nd_platon_state > 1", ODD)
    with pytest.raises(EventError, match="no statistic 'nope'"):
        parse_event("`nope` > 1", ODD)


def test_a_statistic_named_like_a_keyword():
    e = parse_event("a_wins and pass", ["a_wins", "pass"])
    a, _ = e.masks({"a_wins": np.array([1, 1, 0]), "pass": np.array([1, 0, 1])}, 3)
    assert e.stats == ("a_wins", "pass") and a.tolist() == [True, False, False]
