"""Scenario files (TOML tables) -> the Vom Kriege model; every error names its key."""

from __future__ import annotations

from typing import Any

from oddslab._schema import ScenarioError, Table
from oddslab.rulesets.vom_kriege.layout import (
    FORMATIONS,
    QUALITIES,
    REACTIONS,
    SIDES,
    SYMBOLS,
    TERRAINS,
    TROOPS,
)
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Leader, Rules, Unit

__all__ = ["from_table", "read_dice", "KINDS_OF_SCENARIO"]

KINDS_OF_SCENARIO = ("combat", "command")


def _build(cls: type, tbl: Table, **kw: Any) -> Any:
    """``cls(**kw)``, turning its first validation problem into a ScenarioError on ``tbl``."""
    probe = cls.__new__(cls)
    for k, v in kw.items():
        object.__setattr__(probe, k, v)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise tbl.error(key, text)
    return cls(**kw)


def read_dice(root: Table) -> Dice:
    """The optional ``[dice]`` table: ``faces = [...]`` (default: the text's die)."""
    dt = root.table("dice", {})
    faces = dt.raw("faces", list(Dice().faces))
    if not isinstance(faces, list) or any(not isinstance(f, str) for f in faces):
        raise dt.error("faces", f"expected a list of face symbols among {', '.join(SYMBOLS)}")
    dt.finish()
    return _build(Dice, dt, faces=tuple(faces))


def _read_unit(name: str, t: Table) -> Unit:
    troop = t.str("troop", choices=TROOPS)
    kw = dict(
        name=name,
        side=t.str("side", choices=SIDES),
        troop=troop,
        kind=t.str("kind", ""),
        quality=t.str("quality", "regular", choices=QUALITIES),
        skirmish=t.bool("skirmish", False),
        guns=t.int("guns", 6, min=6, max=8),
        strength=t.int("strength", None, min=1, max=10),
        hits=t.int("hits", 0, min=0, max=10),
        disordered=t.bool("disordered", False),
        formation=t.str("formation", None, choices=FORMATIONS),
        terrain=t.str("terrain", "open", choices=TERRAINS),
        shooting_marker=t.bool("shooting_marker", False),
        leader=t.str("leader", None),
        retreat_blocked=t.bool("retreat_blocked", False),
    )
    t.finish()
    return _build(Unit, t, **kw)


def _read_leader(name: str, t: Table) -> Leader:
    q = t.raw("quality", 1)
    if isinstance(q, str) and q.upper() in ("L0", "L1", "L2", "L3"):
        q = int(q[1])
    if isinstance(q, bool) or not isinstance(q, int) or not 0 <= q <= 3:
        raise t.error("quality", f'expected 0-3 or "L0"-"L3", got {q!r}')
    kw = dict(
        name=name,
        side=t.str("side", choices=SIDES),
        quality=q,
        hits=t.int("hits", 0, min=0, max=2),
        units=t.int("units", None, min=0, max=100),
        army=t.bool("army", False),
        with_unit=t.str("with_unit", None),
    )
    t.finish()
    return _build(Leader, t, **kw)


def _read_action(t: Table) -> Action:
    bats = []
    for bt in t.tables("batteries", []):
        bats.append(Battery(unit=bt.str("unit"), range=bt.float("range", 3.0, min=0.1, max=24.0)))
        bt.finish()
    kw = dict(
        kind=t.str("kind", choices=("shoot", "melee")),
        actor=t.str("actor"),
        target=t.str("target"),
        range=t.float("range", 3.0, min=0.1, max=24.0),
        order_bonus=t.bool("order_bonus", False),
        supports=t.int("supports", 0, min=0, max=6),
        enfilade=t.bool("enfilade", False),
        obscured=t.bool("obscured", False),
        reaction=t.str("reaction", "auto", choices=REACTIONS),
        batteries=tuple(bats),
        flank=t.bool("flank", False),
        uphill=t.bool("uphill", False),
        through_rough=t.bool("through_rough", False),
        defender_supports=t.int("defender_supports", 0, min=0, max=6),
        follow_up=t.str("follow_up", None),
        follow_up_reaction=t.str("follow_up_reaction", "auto", choices=REACTIONS),
        follow_up_supports=t.int("follow_up_supports", 0, min=0, max=6),
        follow_up_flank=t.bool("follow_up_flank", False),
    )
    t.finish()
    return _build(Action, t, **kw)


def read_rules(root: Table) -> Rules:
    rt = root.table("rules", {})
    d = Rules()
    kw: dict[str, Any] = {}
    for key, options in Rules.CHOICES.items():
        kw[key] = rt.str(key, getattr(d, key), choices=options)
    kw["min_dice"] = rt.int("min_dice", 0, min=0, max=1)
    for key in Rules.FLAGS:
        kw[key] = rt.bool(key, getattr(d, key))
    rt.finish()
    return _build(Rules, rt, **kw)


def from_table(root: Table) -> Any:
    """A combat (``kind = "combat"``, default) or command-dice (``kind = "command"``) scenario."""
    from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
    from oddslab.scenario import read_run_options

    kind = root.str("kind", "combat", choices=KINDS_OF_SCENARIO)
    if kind == "command":
        from oddslab.rulesets.vom_kriege.command import read_command

        return read_command(root)
    run = read_run_options(root, "vom kriege")
    dice = read_dice(root)
    rules = read_rules(root)
    ut = root.table("units")
    if len(ut.data) < 2:
        raise root.error("units", "expected at least two units ([units.NAME] tables)")
    units = tuple(_read_unit(n, ut.table(n)) for n in list(ut.data))
    ut.finish()
    lt = root.table("leaders", {})
    leaders = tuple(_read_leader(n, lt.table(n)) for n in list(lt.data))
    lt.finish()
    actions = tuple(_read_action(t) for t in root.tables("actions", min_len=1))
    kw = dict(
        units=units,
        actions=actions,
        leaders=leaders,
        rules=rules,
        dice=dice,
        focus_attacker=root.str("focus_attacker", None),
        focus_defender=root.str("focus_defender", None),
    )
    root.finish()
    probe = VomKriegeScenario.__new__(VomKriegeScenario)
    for k, v in {**kw, **run}.items():
        object.__setattr__(probe, k, v)
    problems = probe.problems()
    if problems:
        key, text = problems[0]
        raise ScenarioError(root.source, key, text)
    return VomKriegeScenario(**kw, **run)
