"""Scenario files (TOML tables) -> the Vom Kriege model; every error names its key.

Every key is declared once in :mod:`.schema` (a combat and a command-dice roll are its two
variants); this module reads the file through that declaration and builds the model, whose
own checks (and :mod:`.validate`'s) cover what involves more than one key.
"""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.keys import Values
from oddslab.rulesets.vom_kriege.command import command_from_values
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Leader, Rules, Unit
from oddslab.rulesets.vom_kriege.schema import KINDS_OF_SCENARIO, SCHEMA

__all__ = ["from_table", "KINDS_OF_SCENARIO"]


def _build(cls: type, v: Values, **kw: Any) -> Any:
    """``cls(**kw)``, turning its first validation problem into a ScenarioError on ``v``."""
    probe = cls.__new__(cls)
    for k, x in kw.items():
        object.__setattr__(probe, k, x)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise v.error(key, text)
    return cls(**kw)


def _action(v: Values) -> Action:
    kw = {k: x for k, x in v.items() if k != "batteries"}
    kw["batteries"] = tuple(Battery(unit=b["unit"], range=b["range"]) for b in v["batteries"])
    return _build(Action, v, **kw)


def from_table(root: Table) -> Any:
    """A combat (``kind = "combat"``, default) or command-dice (``kind = "command"``) scenario."""
    from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario

    v = SCHEMA.read(root)
    run = {k: v[k] for k in ("name", "description", "trials", "seed")}
    dice = _build(Dice, v["dice"], faces=tuple(v["dice"]["faces"]))
    if v["kind"] == "command":
        run["name"] = run["name"] if run["name"] is not None else "command dice"
        return command_from_values(v["command"], dice, run)
    run["name"] = run["name"] if run["name"] is not None else "vom kriege"
    rules = _build(Rules, v["rules"], **v["rules"])
    if len(v["units"]) < 2:
        raise root.error("units", "expected at least two units ([units.NAME] tables)")
    units = tuple(_build(Unit, u, name=n, **u) for n, u in v["units"].items())
    leaders = tuple(_build(Leader, x, name=n, **x) for n, x in v["leaders"].items())
    actions = tuple(_action(a) for a in v["actions"])
    kw = dict(
        units=units,
        actions=actions,
        leaders=leaders,
        rules=rules,
        dice=dice,
        focus_attacker=v["focus_attacker"],
        focus_defender=v["focus_defender"],
    )
    probe = VomKriegeScenario.__new__(VomKriegeScenario)
    for k, x in {**kw, **run}.items():
        object.__setattr__(probe, k, x)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise ScenarioError(root.source, key, text)
    return VomKriegeScenario(**kw, **run)
