"""Armoured Clash: consistency checks of a whole scenario (key paths match the file)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from oddslab.rulesets.armoured_clash.layout import MAX_SEC
from oddslab.rulesets.armoured_clash.model import (
    MAX_MODELS,
    OUTFLANKABLE,
    RATINGS,
    REROLLABLE,
    SIDES,
    Attack,
    RangedAttack,
    Unit,
)

if TYPE_CHECKING:
    from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario

__all__ = [
    "problems",
    "ranged_row",
    "close_column",
    "retaliating",
    "active_unit",
    "activation_plan",
    "garrisoned_at",
]


def problems(sc: ArmouredClashScenario) -> list[tuple[str, str]]:
    """Every inconsistency as ``(key path, problem)``; empty when the scenario can run."""
    out: list[tuple[str, str]] = []
    by = {u.name: u for u in sc.units}
    if len(by) != len(sc.units):
        out.append(("units", "unit names must be unique"))
    if not sc.attacks:
        out.append(("attacks", "a scenario needs at least one attack"))
    carried: dict[str, str] = {}
    for u in sc.units:
        if u.carrying is not None:
            c = by.get(u.carrying)
            if c is None:
                out.append((f"units.{u.name}.carrying", f"no unit named '{u.carrying}'"))
            elif c.type != "infantry":
                out.append((f"units.{u.name}.carrying", "only infantry can embark"))
            elif c.side != u.side:
                out.append((f"units.{u.name}.carrying", "the embarked unit must be on its side"))
            elif c.models > u.capacity * u.models:
                out.append(
                    (
                        f"units.{u.name}.carrying",
                        f"'{c.name}' has {c.models} models, above the transport capacity "
                        f"{u.capacity * u.models}",
                    )
                )
            elif c.name in carried:
                out.append((f"units.{u.name}.carrying", f"'{c.name}' is already embarked"))
            else:
                carried[c.name] = u.name
        if u.garrisoned and u.type != "infantry":
            out.append((f"units.{u.name}.garrisoned", "only infantry can garrison"))
    for side in sc.decks:
        if side not in SIDES:
            out.append((f"decks.{side}", "expected attacker or defender"))
    for side, cards in sc.decks.items():
        if not 1 <= len(cards) <= 1000:
            out.append((f"decks.{side}.cards", "expected 1 to 1000 cards"))
    if sc.focus is not None and sc.focus not in by:
        out.append(("focus", f"no unit named '{sc.focus}'"))
    fired_reload: set[str] = set()
    fired_opp: set[str] = set()  # units that used their on lookout status (opportunity fire)
    for i, a in enumerate(sc.attacks):
        key = f"attacks[{i}]"
        s = a.situation
        if a.attacker not in by:
            out.append((f"{key}.attacker", f"no unit named '{a.attacker}'"))
            continue
        if a.target not in by:
            out.append((f"{key}.target", f"no unit named '{a.target}'"))
            continue
        att, tgt = by[a.attacker], by[a.target]
        if att.side == tgt.side:
            out.append((f"{key}.target", "attacker and target are on the same side"))
        for who, name in (("attacker", att.name), ("target", tgt.name)):
            if name in carried:
                out.append(
                    (
                        f"{key}.{who}",
                        f"'{name}' is embarked on '{carried[name]}' and cannot attack or be attacked",
                    )
                )
        if a.kind not in ("ranged", "close"):
            out.append((f"{key}.kind", "expected ranged or close"))
            continue
        out += _manoeuvre_problems(sc, i, att, tgt)
        for r in (s.rating, s.defender_rating):
            if r is not None and r not in RATINGS:
                out.append((f"{key}.rating", f"expected one of {', '.join(RATINGS)}"))
        for rr in (*s.extra_rerolls, *s.defender_extra_rerolls):
            if rr not in REROLLABLE:
                out.append(
                    (f"{key}.extra_rerolls", f"expected faces among {', '.join(REROLLABLE)}")
                )
        if s.exposed is not None and not 1 <= s.exposed <= MAX_MODELS:
            out.append((f"{key}.exposed", "expected 1 or more exposed models"))
        if a.kind == "ranged":
            row = ranged_row(a, att, tgt)
            if row is None:
                want = f"'{a.weapon}'" if a.weapon else "ranged row"
                out.append(
                    (
                        f"{key}.weapon",
                        f"'{att.name}' has no {want} that can attack {tgt.category} targets",
                    )
                )
            else:
                if len(row.dice) < att.column_length():
                    out.append(
                        (
                            f"units.{att.name}.ranged.{row.name}.dice",
                            f"needs {att.column_length()} entries (one per {'damage point' if att.type == 'behemoth' else 'model count'})",
                        )
                    )
                if row.reload and (att.reloading or att.name in fired_reload):
                    # assumed: firing a reload weapon makes the unit reloading, and a sequence
                    # holds no re-arm action (an activation without an attack)
                    why = (
                        "is reloading"
                        if att.reloading
                        else "fired a reload weapon earlier in the sequence, so it is reloading"
                    )
                    out.append(
                        (
                            f"{key}.weapon",
                            f"'{att.name}' {why} and '{row.name}' has the reload quality",
                        )
                    )
                if row.reload:
                    fired_reload.add(att.name)
            if s.opportunity_fire and att.name in fired_opp:
                # it loses on lookout when it opportunity fires, and a sequence holds no go on
                # lookout action (a special action instead of an attack), as for re-arm
                out.append(
                    (
                        f"{key}.opportunity_fire",
                        f"'{att.name}' made opportunity fire earlier in the sequence, so it is "
                        "no longer on lookout (going on lookout again is a special action, "
                        "made instead of an attack, which a sequence of attacks does not hold)",
                    )
                )
            if s.opportunity_fire:
                fired_opp.add(att.name)
            if tgt.type == "aircraft" and not s.opportunity_fire:
                out.append(
                    (
                        f"{key}.opportunity_fire",
                        "aircraft can only be targeted by opportunity fire (set opportunity_fire = true)",
                    )
                )
            if s.exposed is not None and tgt.garrisoned:
                out.append(
                    (
                        f"{key}.exposed",
                        "a garrisoned unit cannot have exposed models prioritised",
                    )
                )
            elif s.exposed is not None and s.exposed >= tgt.models:
                # the text: only "if some, but not all of the models ... are exposed"
                want = (
                    f"expected 1 to {tgt.models - 1} ('{tgt.name}' has {tgt.models} models)"
                    if tgt.models > 1
                    else f"'{tgt.name}' has one model, so it cannot"
                )
                out.append(
                    (
                        f"{key}.exposed",
                        "exposed models can be prioritised only if some, but not all, of the "
                        f"target's models are exposed: {want}",
                    )
                )
        else:
            col = close_column(a, att)
            if a.weapon not in (None, "melee", "impact"):
                out.append((f"{key}.weapon", "close quarters uses melee or impact"))
            elif col is None:
                out.append((f"{key}.weapon", f"'{att.name}' has no {a.weapon or 'melee'} column"))
            elif len(col) < att.column_length():
                out.append(
                    (
                        f"units.{att.name}.{a.weapon or 'melee'}",
                        f"needs {att.column_length()} entries",
                    )
                )
            if tgt.type in ("aircraft", "rotorcraft"):
                out.append((f"{key}.target", "aircraft and rotorcraft cannot be charged"))
            if len(s.secondary) > MAX_SEC:
                out.append((f"{key}.secondary", f"at most {MAX_SEC} secondary combatants"))
            for nm in s.secondary:
                if nm not in by or by[nm].side != tgt.side or nm in (tgt.name,) or nm in carried:
                    out.append(
                        (f"{key}.secondary", f"'{nm}' is not another unit on the target's side")
                    )
            for u in (tgt, *(by[n] for n in s.secondary if n in by)):
                m = u.armaments.melee
                if m is not None and len(m) < u.column_length():
                    out.append((f"units.{u.name}.melee", f"needs {u.column_length()} entries"))
            if s.outflanking and tgt.type not in OUTFLANKABLE:
                out.append(
                    (
                        f"{key}.outflanking",
                        f"only {', '.join(OUTFLANKABLE)} units can be outflanked "
                        f"('{tgt.name}' is {tgt.type})",
                    )
                )
    out += _misplaced_keys(sc)
    if not out:
        out += _activation_problems(sc, by)
    return out


def garrisoned_at(sc: ArmouredClashScenario, i: int, name: str) -> bool:
    """Whether unit ``name`` garrisons its building as step ``i`` is resolved.

    It started garrisoned and made no exit manoeuvre (a ranged attack with ``reforming``) at
    step ``i`` or before: an exit sets the unit up outside the building, so it then counts
    all its models and is no longer concealed by the building nor DEFENCE +1. A garrison that
    falls back or loses a close quarters combat also exits, but only in some trials: the
    kernel follows that; these checks do not (they cannot: in other trials it is still
    inside), and ``show`` notes it.
    """
    u = next(u for u in sc.units if u.name == name)
    return u.garrisoned and not any(
        b.attacker == name and b.kind == "ranged" and b.situation.reforming
        for b in sc.attacks[: i + 1]
    )


def _manoeuvre_problems(
    sc: ArmouredClashScenario, i: int, att: Unit, tgt: Unit
) -> list[tuple[str, str]]:
    """Flags the movement step cannot produce: an active unit makes one manoeuvre (aim,
    charge, disembark / exit), a garrison only exit, an aircraft none (its sortie is approach
    and engage), and outflanking / defensive advantage are defined by a charge."""
    a = sc.attacks[i]
    s = a.situation
    key = f"attacks[{i}]"
    out: list[tuple[str, str]] = []
    # before this step's own exit (if any): still in the building
    garrison = garrisoned_at(sc, i - 1, att.name) if i > 0 else att.garrisoned
    if a.kind == "ranged":
        if att.type == "aircraft" and (s.aiming or s.reforming):
            k = "aiming" if s.aiming else "reforming"
            out.append(
                (
                    f"{key}.{k}",
                    f"'{att.name}' is an aircraft: its sortie (approach, engage) has no "
                    f"movement step, so no {'aim' if s.aiming else 'disembark or exit'} "
                    "manoeuvre",
                )
            )
        elif s.aiming and s.opportunity_fire:
            out.append(
                (
                    f"{key}.aiming",
                    "opportunity fire is made in the enemy's activation, and the firer made no "
                    "aim manoeuvre this turn (the bonus needs one)",
                )
            )
        elif s.aiming and s.reforming:
            out.append(
                (
                    f"{key}.aiming",
                    "a unit makes one manoeuvre in its movement step: aim, or disembark / exit "
                    "(reforming), not both",
                )
            )
        elif s.aiming and garrison:
            out.append(
                (
                    f"{key}.aiming",
                    f"'{att.name}' is garrisoning a building and cannot make any manoeuvres "
                    "other than exit (no aim)",
                )
            )
        return out
    if att.type == "aircraft":
        out.append(
            (
                f"{key}.kind",
                f"'{att.name}' is an aircraft: its sortie engages with a ranged attack, it "
                "cannot charge or fight a close quarters attack",
            )
        )
    elif s.charge and garrison:
        out.append(
            (
                f"{key}.charge",
                f"'{att.name}' is garrisoning a building and cannot make any manoeuvres other "
                "than exit (no charge; set charge = false if it is already in contact)",
            )
        )
    for flag, what in (
        ("outflanking", "the charger's officer outside the target's front arc before charging"),
        ("defensive_advantage", "a model moving through difficult terrain while charging"),
    ):
        if getattr(s, flag) and not s.charge:
            out.append(
                (f"{key}.{flag}", f"{flag} comes from a charge ({what}): not with charge = false")
            )
    if s.outflanking and garrisoned_at(sc, i, tgt.name):
        out.append(
            (
                f"{key}.outflanking",
                f"'{tgt.name}' is garrisoning a building, which gives it a 360° front arc: it "
                "cannot be outflanked",
            )
        )
    return out


_CLOSE_ONLY = {
    "outflanking": False,
    "supported": None,
    "threatened": None,
    "defensive_advantage": False,
    "defender_supported": None,
    "defender_threatened": None,
    "secondary": (),
    "charge": True,
    "defender_extra_rerolls": (),
    "defender_rating": None,
}
_RANGED_ONLY = {
    "aiming": False,
    "short_range": False,
    "concealed": False,
    "exposed": None,
    "opportunity_fire": False,
    "reforming": False,
}


def _misplaced_keys(sc: ArmouredClashScenario) -> list[tuple[str, str]]:
    """A situation key of the other kind of attack would be silently ignored: reject it."""
    out: list[tuple[str, str]] = []
    for i, a in enumerate(sc.attacks):
        wrong = _CLOSE_ONLY if a.kind == "ranged" else _RANGED_ONLY
        for key, default in wrong.items():
            if getattr(a.situation, key) != default:
                other = "close quarters" if a.kind == "ranged" else "ranged"
                out.append((f"attacks[{i}].{key}", f"only applies to {other} attacks"))
    return out


def _activation_problems(sc: ArmouredClashScenario, by: dict[str, Unit]) -> list[tuple[str, str]]:
    """Commands: none to a disordered unit, one per general per activation. Steps: one
    attack step per activation, and opportunity fire in one of its two reaction steps (in
    each of them for an aircraft's sortie: one before its attack, one after)."""
    out: list[tuple[str, str]] = []
    plan = activation_plan(sc)
    ended: set[str] = set()  # units whose first activation in the sequence is over
    issued: dict[str, int] = {}
    attacked = False  # the active unit made its attack step in this activation
    reactions = [0, 0]  # opportunity fire before / after that attack step
    for i, a in enumerate(sc.attacks):
        key = f"attacks[{i}]"
        s = a.situation
        active, start, end = plan[i]
        if s.new_activation is False and i > 0 and plan[i - 1][0] != active:
            out.append(
                (
                    f"{key}.new_activation",
                    f"the previous step belongs to '{plan[i - 1][0]}''s activation, this one "
                    f"to '{active}''s: it must start a new activation",
                )
            )
        if start:
            issued = {}
            attacked = False
            reactions = [0, 0]
        if a.kind == "ranged" and s.opportunity_fire:
            reactions[int(attacked)] += 1
            air = by[active].type == "aircraft"
            if reactions[int(attacked)] > 1 or (not air and sum(reactions) > 1):
                out.append(
                    (
                        f"{key}.opportunity_fire",
                        f"'{active}''s activation already had opportunity fire "
                        + (
                            "in this reaction step (an aircraft's sortie allows one in each)"
                            if air
                            else "against it: the second reaction step is open only if the "
                            "first was not used (only an aircraft's sortie allows one in each)"
                        ),
                    )
                )
        elif attacked:
            out.append(
                (
                    f"{key}.new_activation",
                    f"'{active}' already made its attack step in this activation (one ranged "
                    "or close quarters attack per activation): set new_activation = true if "
                    "this is a later activation of it",
                )
            )
        else:
            attacked = True
        orders = []
        if s.extra_rerolls and s.extra_rerolls_from == "command":
            orders.append(("extra_rerolls", a.attacker))
        if a.kind == "close" and s.defender_extra_rerolls:
            if s.defender_extra_rerolls_from == "command":
                orders.append(("defender_extra_rerolls", a.target))
        for k, name in orders:
            u = by[name]
            if u.disordered and name not in ended:
                out.append(
                    (
                        f"{key}.{k}",
                        f"'{name}' is disordered: commands cannot be issued to it (set "
                        f'{k}_from = "special rule" if a special rule grants the re-rolls)',
                    )
                )
            issued[u.side] = issued.get(u.side, 0) + 1
            if issued[u.side] > 1:
                out.append(
                    (
                        f"{key}.{k}",
                        f"the {u.side} general already issued a command in this activation "
                        f"(one command per activation)",
                    )
                )
        if end and sc.rules.activations:
            ended.add(active)  # its disordered status (held at the start) is gone
    return out


def ranged_row(a: Attack, att: Unit, tgt: Unit) -> RangedAttack | None:
    for row in att.armaments.ranged:
        if (a.weapon is None or row.name == a.weapon) and tgt.category in row.vs:
            return row
    return None


def close_column(a: Attack, att: Unit) -> Sequence[int] | None:
    return att.armaments.impact if a.weapon == "impact" else att.armaments.melee


def retaliating(sc: ArmouredClashScenario, a: Attack) -> tuple[str, ...]:
    """Units of close quarters attack ``a`` that strike the charger (with a MELEE score).

    The target "if [it] has a MELEE score"; secondary combatants with one "retaliate at the
    same time that the target of the charge does", so (``[rules] secondary_retaliation =
    "with_target"``) only when the target does, or always (``"always"``).
    """
    by = {u.name: u for u in sc.units}
    target_strikes = by[a.target].armaments.melee is not None
    names = [a.target] if target_strikes else []
    if target_strikes or sc.rules.secondary_retaliation == "always":
        names += [n for n in a.situation.secondary if by[n].armaments.melee is not None]
    return tuple(names)


def active_unit(a: Attack) -> str:
    """The unit whose activation attack ``a`` belongs to: the attacker, or for opportunity
    fire the target (it is fired upon during its own activation's reaction step)."""
    return a.target if (a.kind == "ranged" and a.situation.opportunity_fire) else a.attacker


def activation_plan(sc: ArmouredClashScenario) -> list[tuple[str, bool, bool]]:
    """``(active unit, starts its activation, ends it)`` for every step of the sequence.

    A step starts a new activation when ``new_activation`` says so, or (``None``) when the
    previous step's active unit is another unit; the first step always starts one. An
    activation ends before the next one starts and at the end of the sequence.
    """
    actives = [active_unit(a) for a in sc.attacks]
    starts = []
    for i, a in enumerate(sc.attacks):
        flag = a.situation.new_activation
        auto = i == 0 or actives[i - 1] != actives[i]
        starts.append(i == 0 or (auto if flag is None else bool(flag)))
    ends = [starts[i + 1] for i in range(len(starts) - 1)] + [True]
    return [(actives[i], starts[i], ends[i]) for i in range(len(actives))]
