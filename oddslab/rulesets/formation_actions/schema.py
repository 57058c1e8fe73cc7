"""Every key of a formation-actions scenario file, declared once (:mod:`oddslab.keys`).

Reading and validation (:mod:`.reading`), the JSON Schema (``oddslab schema
formation-actions``) and the key table in ``docs/formation-actions.md`` all come from
:data:`SCHEMA`. Checks between keys (two armies, suppressed units against units, the
first-turn tie naming an army, ``retain_chance`` only with ``"if-chance"``) are the reader's.
"""

from __future__ import annotations

from oddslab._schema import ScenarioError, Table
from oddslab.keys import KINDS, REQUIRED, Key, Schema, Section, run_keys
from oddslab.rulesets.formation_actions.model import (
    BREAK_CHECKS,
    BROKEN_SHOCKS,
    CHOICES,
    ORDER_POLICIES,
    OUTSIDE_TIMINGS,
    PENALTY_READINGS,
    RETAIN_LIMITS,
    RETAIN_POLICIES,
    WITHDRAWALS,
    OutsideShock,
)

__all__ = ["SCHEMA", "read_outside_shock"]


def read_outside_shock(tbl: Table, key: str) -> OutsideShock:
    """``outside_shock``: a number, a dice expression, or probabilities of 0, 1, 2... Shock."""
    raw = tbl.raw(key)
    if isinstance(raw, bool):
        raise tbl.error(key, "expected a number of Shock, a dice expression or probabilities")
    if isinstance(raw, int):
        if not 0 <= raw <= 20:
            raise tbl.error(key, f"expected 0 to 20 Shock per turn, got {raw}")
        return OutsideShock(fixed=raw)
    if isinstance(raw, str):
        expr = tbl.dice(key, min_value=0)
        if expr.max > 20:
            raise tbl.error(key, f"'{expr}' can exceed 20 Shock per turn")
        if expr.n == 0:
            return OutsideShock(fixed=expr.add)
        return OutsideShock(dice=expr)
    if isinstance(raw, list):
        probs = []
        for i, x in enumerate(raw):
            if isinstance(x, bool) or not isinstance(x, int | float) or x < 0:
                raise ScenarioError(
                    tbl.source, f"{tbl.key(key)}[{i}]", f"expected a probability >= 0, got {x!r}"
                )
            probs.append(float(x))
        if not probs or len(probs) > 21:
            raise tbl.error(key, "expected 1 to 21 probabilities: P(0 Shock), P(1), ...")
        if abs(sum(probs) - 1.0) > 1e-9:
            raise tbl.error(
                key, f"probabilities P(0 Shock), P(1), ... must sum to 1, not {sum(probs):g}"
            )
        return OutsideShock(table=tuple(probs))
    raise tbl.error(
        key,
        'expected Shock per turn as a number (1), a dice expression ("D3-1") or probabilities '
        "of 0, 1, 2... Shock ([0.5, 0.3, 0.2])",
    )


_OUTSIDE_JSON = {
    "anyOf": [
        {"type": "integer", "minimum": 0, "maximum": 20},
        KINDS["dice"]["anyOf"][1],  # a dice expression
        {"type": "array", "items": {"type": "number", "minimum": 0}, "minItems": 1, "maxItems": 21},
    ]
}

_FORMATION = Section(
    "formations",
    (
        Key("name", "str", "", "plain-words name (default: the key)"),
        Key(
            "command",
            "int",
            REQUIRED,
            "command rating: a test passes on D6 <= it after modifiers",
            0,
            10,
            what="a command rating from 0 to 10",
        ),
        Key("units", "int", 4, "units in the formation", 1, 50),
        Key("suppressed", "int", 0, "suppressed units: -1 to action tests (0 to units)", 0, 50),
        Key("shock", "int", 0, "Shock at the start", 0, 100),
        Key("broken", "bool", False, "broken at the start"),
        Key(
            "break_at", "int", None, "Shock at which the formation breaks (default: units)", 1, 100
        ),
        Key(
            "enemy_within_8",
            "bool",
            False,
            "enemy units within 8 tiles in the end phase: -1 to rally",
        ),
        Key(
            "outside_shock",
            "custom",
            0,
            'Shock gained every turn besides failed tests: 1, "D3-1" or [0.5, 0.3, 0.2]',
            what="integer, dice expression or array of probabilities",
            custom=(read_outside_shock, _OUTSIDE_JSON),
        ),
        Key("points", "float", None, "cost (unit libraries; not used by the rules)", 0),
        Key(
            "points_per_model",
            "custom",
            None,
            "unit-library bookkeeping; ignored by the rules",
            what="any",
            custom=(lambda t, k: t.raw(k), {}),
        ),
    ),
    "the formations, in the order listed ([armies.<army>.formations.<formation>])",
    mapping=True,
    required=True,
)

_ARMY = Section(
    "armies",
    (
        Key("name", "str", "", "plain-words name in labels (default: the key)"),
        Key(
            "strategy",
            "int",
            REQUIRED,
            "strategy rating, added to the strategy roll's D6",
            0,
            10,
            what="a strategy rating from 0 to 10",
        ),
        Key(
            "retain", "str", "never", "policy for retaining the initiative", choices=RETAIN_POLICIES
        ),
        Key(
            "retain_chance",
            "float",
            0.5,
            'with "if-chance": retain when the test passes with at least this chance',
            0.0,
            1.0,
        ),
        Key(
            "order",
            "str",
            "listed",
            "which unactivated formation acts next",
            choices=ORDER_POLICIES,
        ),
        Key(
            "choose",
            "str",
            "first",
            "what the army picks when it wins the strategy roll",
            choices=CHOICES,
        ),
        _FORMATION,
    ),
    "the two armies ([armies.<army>]); the keys name statistics",
    mapping=True,
    required=True,
)


def _switch(name: str, default: str, choices: tuple[str, ...] | None, help_: str) -> Key:
    return Key(name, "str", default, help_, choices=choices, switch=True)


_RULES = Section(
    "rules",
    (
        _switch(
            "action_penalty", "suppressed", PENALTY_READINGS, "what gives the -1 to action tests"
        ),
        Key("natural_one_passes", "bool", False, "a natural 1 always passes", switch=True),
        Key("natural_six_fails", "bool", False, "a natural 6 always fails", switch=True),
        Key(
            "rally_action_penalty", "bool", False, "the -1 applies to rally tests too", switch=True
        ),
        _switch(
            "retain_limit", "in-a-row", RETAIN_LIMITS, "how often the initiative can be retained"
        ),
        _switch("withdrawal", "stays-broken", WITHDRAWALS, "a withdrawn formation"),
        _switch("break_check", "immediate", BREAK_CHECKS, "when a formation's breaking is checked"),
        _switch("outside_timing", "before-rally", OUTSIDE_TIMINGS, "when outside Shock arrives"),
        _switch(
            "first_turn_tie", "reroll", None, 'a tied first strategy roll: "reroll" or an army key'
        ),
        _switch("broken_shock", "cap", BROKEN_SHOCKS, "Shock of a broken formation"),
    ),
    "readings of the text (docs/formation-actions.md, Readings)",
)

#: The keys of a ``formation-actions`` scenario file.
SCHEMA = Schema(
    "formation-actions",
    Section(
        "",
        (
            *run_keys("formation-actions", "formation actions"),
            Key("turns", "int", 1, "turns to play", 1, 20, unit="turns"),
            Key("primary", "str", None, "the statistic plotted and tabled by default"),
            _ARMY,
            _RULES,
        ),
    ),
    title="oddslab scenario (formation-actions)",
)
