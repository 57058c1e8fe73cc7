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

import difflib

from oddslab._schema import ScenarioError, Table
from oddslab.keys import Values
from oddslab.rulesets.formation_actions.compile import FormationActionsScenario
from oddslab.rulesets.formation_actions.model import KEY_PATTERN, Army, Formation, Rules
from oddslab.rulesets.formation_actions.schema import SCHEMA

__all__ = ["from_table"]


def _check_key(parent: Table, key: str, what: str) -> None:
    if not KEY_PATTERN.match(key):
        raise parent.error(
            key,
            f"{what} key must be lower-case letters, digits and '_', starting with a letter "
            "(at most 24 characters): it names statistics",
        )


def _check_names(root: Table) -> None:
    """Army and formation keys name statistics: check them (and the number of armies) first."""
    armies = root.data.get("armies")
    if not isinstance(armies, dict):
        return  # the schema's reader says what is wrong
    if len(armies) != 2:
        raise root.error(
            "armies",
            f"expected exactly two armies ([armies.<a>] and [armies.<b>]), got {len(armies)}",
        )
    armies_tbl = Table(armies, root.source, root.key("armies"))
    for key, army in armies.items():
        _check_key(armies_tbl, key, "army")
        forms = army.get("formations") if isinstance(army, dict) else None
        if isinstance(forms, dict):
            forms_tbl = Table(forms, root.source, f"{armies_tbl.key(key)}.formations")
            for fkey in forms:
                _check_key(forms_tbl, fkey, "formation")


def _formation(v: Values, key: str) -> Formation:
    if v["suppressed"] > v["units"]:
        units = v["units"]
        raise v.error(
            "suppressed",
            f"expected 0 to units ({units}) suppressed units, got {v['suppressed']}",
        )
    kw = {k: x for k, x in v.items() if k != "points_per_model"}
    try:
        return Formation(key=key, **kw)
    except ValueError as exc:  # pragma: no cover - the schema checks every field
        raise ScenarioError(v.table.source, v.table.path, str(exc)) from None


def _army(v: Values, key: str) -> Army:
    formations = tuple(_formation(f, k) for k, f in v["formations"].items())
    if not formations:
        raise v.error("formations", "expected at least one formation ([armies.x.formations.y])")
    if len(formations) > 20:
        raise v.error("formations", "at most 20 formations per army")
    if v.table.has("retain_chance") and v["retain"] != "if-chance":
        raise v.error("retain_chance", 'only used with retain = "if-chance"')
    kw = {k: x for k, x in v.items() if k != "formations"}
    return Army(key=key, formations=formations, **kw)


def from_table(root: Table) -> FormationActionsScenario:
    """Build a :class:`FormationActionsScenario` from a scenario file's root table."""
    _check_names(root)
    v = SCHEMA.read(root)
    run = {k: v[k] for k in ("name", "description", "trials", "seed")}
    keys = list(v["armies"])
    armies = tuple(_army(a, k) for k, a in v["armies"].items())
    tie = v["rules"]["first_turn_tie"]
    if tie not in ("reroll", *keys):
        options = ["reroll", *keys]
        close = difflib.get_close_matches(tie, options, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise v["rules"].error(
            "first_turn_tie", f"expected one of {', '.join(options)}, got '{tie}'{hint}"
        )
    rules = Rules(**dict(v["rules"]))
    primary = v["primary"]
    try:
        sc = FormationActionsScenario(armies, v["turns"], rules, primary=None, **run)
    except ValueError as exc:  # pragma: no cover - the readers above check every field
        raise ScenarioError(root.source, "", str(exc)) from None
    if primary is not None:
        names = sc.stat_names()
        if primary not in names:
            close = difflib.get_close_matches(primary, names, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else ""
            raise root.error("primary", f"no statistic '{primary}'{hint}")
        sc = FormationActionsScenario(armies, v["turns"], rules, primary=primary, **run)
    return sc
