"""TOML → :class:`FormationActionsScenario`; every problem names its key.

Layout (key by key in docs/formation-actions.md)::

    ruleset = "formation-actions"
    turns = 6
    [rules]                               # optional switches
    [armies.<army>]                       # exactly two
    strategy = 3
    retain = "never"                      # "if-chance" (with retain_chance), "always"
    [armies.<army>.formations.<formation>]
    command = 4
    units = 4
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.formation_actions.compile import FormationActionsScenario
from oddslab.rulesets.formation_actions.model import (
    BREAK_CHECKS,
    BROKEN_SHOCKS,
    CHOICES,
    KEY_PATTERN,
    ORDER_POLICIES,
    OUTSIDE_TIMINGS,
    PENALTY_READINGS,
    RETAIN_LIMITS,
    RETAIN_POLICIES,
    WITHDRAWALS,
    Army,
    Formation,
    OutsideShock,
    Rules,
)

__all__ = ["from_table"]


def _check_key(parent: Table, key: str, what: str) -> None:
    if not KEY_PATTERN.match(key):
        raise parent.error(
            key,
            f"{what} key must be lower-case letters, digits and '_', starting with a letter "
            "(at most 24 characters): it names statistics",
        )


def _read_outside(tbl: Table) -> OutsideShock:
    raw = tbl.raw("outside_shock", 0)
    key = "outside_shock"
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


def _read_formation(tbl: Table, key: str) -> Formation:
    units = tbl.int("units", 4, min=1, max=50)
    kw: dict[str, Any] = dict(
        key=key,
        name=tbl.str("name", ""),
        command=tbl.int("command", min=0, max=10, what="a command rating from 0 to 10"),
        units=units,
        suppressed=tbl.int(
            "suppressed", 0, min=0, max=units, what=f"0 to units ({units}) suppressed units"
        ),
        shock=tbl.int("shock", 0, min=0, max=100),
        broken=tbl.bool("broken", False),
        break_at=tbl.int("break_at", None, min=1, max=100),
        enemy_within_8=tbl.bool("enemy_within_8", False),
        outside_shock=_read_outside(tbl),
        points=tbl.float("points", None, min=0),
    )
    tbl.raw("points_per_model", None)  # unit-library bookkeeping, not used by the rules
    tbl.finish()
    try:
        return Formation(**kw)
    except ValueError as exc:  # pragma: no cover - the readers above check every field
        raise ScenarioError(tbl.source, tbl.path, str(exc)) from None


def _read_army(tbl: Table, key: str) -> Army:
    name = tbl.str("name", "")
    forms_tbl = tbl.table("formations")
    formations = []
    for fkey in list(forms_tbl.data):
        _check_key(forms_tbl, fkey, "formation")
        formations.append(_read_formation(forms_tbl.table(fkey), fkey))
    if not formations:
        raise tbl.error("formations", "expected at least one formation ([armies.x.formations.y])")
    if len(formations) > 20:
        raise tbl.error("formations", "at most 20 formations per army")
    retain = tbl.str("retain", "never", choices=RETAIN_POLICIES)
    kw: dict[str, Any] = dict(
        key=key,
        name=name,
        formations=tuple(formations),
        strategy=tbl.int("strategy", min=0, max=10, what="a strategy rating from 0 to 10"),
        retain=retain,
        retain_chance=tbl.float("retain_chance", 0.5, min=0.0, max=1.0),
        order=tbl.str("order", "listed", choices=ORDER_POLICIES),
        choose=tbl.str("choose", "first", choices=CHOICES),
    )
    if tbl.has("retain_chance") and retain != "if-chance":
        raise tbl.error("retain_chance", 'only used with retain = "if-chance"')
    tbl.finish()
    return Army(**kw)


def _read_rules(tbl: Table, army_keys: list[str]) -> Rules:
    kw = dict(
        action_penalty=tbl.str("action_penalty", "suppressed", choices=PENALTY_READINGS),
        natural_one_passes=tbl.bool("natural_one_passes", False),
        natural_six_fails=tbl.bool("natural_six_fails", False),
        rally_action_penalty=tbl.bool("rally_action_penalty", False),
        retain_limit=tbl.str("retain_limit", "in-a-row", choices=RETAIN_LIMITS),
        withdrawal=tbl.str("withdrawal", "stays-broken", choices=WITHDRAWALS),
        break_check=tbl.str("break_check", "immediate", choices=BREAK_CHECKS),
        outside_timing=tbl.str("outside_timing", "before-rally", choices=OUTSIDE_TIMINGS),
        first_turn_tie=tbl.str("first_turn_tie", "reroll", choices=["reroll", *army_keys]),
        broken_shock=tbl.str("broken_shock", "cap", choices=BROKEN_SHOCKS),
    )
    tbl.finish()
    return Rules(**kw)


def from_table(root: Table) -> FormationActionsScenario:
    """Build a :class:`FormationActionsScenario` from a scenario file's root table."""
    from oddslab.scenario import read_run_options

    run = read_run_options(root, "formation actions")
    turns = root.int("turns", 1, min=1, max=20)
    armies_tbl = root.table("armies")
    keys = list(armies_tbl.data)
    if len(keys) != 2:
        raise root.error(
            "armies",
            f"expected exactly two armies ([armies.<a>] and [armies.<b>]), got {len(keys)}",
        )
    armies = []
    for key in keys:
        _check_key(armies_tbl, key, "army")
        armies.append(_read_army(armies_tbl.table(key), key))
    rules = _read_rules(root.table("rules", {}), keys)
    primary = root.str("primary", None)
    root.finish()
    try:
        sc = FormationActionsScenario(tuple(armies), turns, rules, primary=None, **run)
    except ValueError as exc:  # pragma: no cover - the readers above check every field
        raise ScenarioError(root.source, "", str(exc)) from None
    if primary is not None:
        names = sc.stat_names()
        if primary not in names:
            import difflib

            close = difflib.get_close_matches(primary, names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise root.error("primary", f"no statistic '{primary}'{hint}")
        sc = FormationActionsScenario(tuple(armies), turns, rules, primary=primary, **run)
    return sc
