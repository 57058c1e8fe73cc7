"""Armoured Clash: the inputs as the program read them, in plain words (``resolved()``).

Every unit's derived values (dice by model count, DEFENCE with cover / garrison bonuses,
damage and break limits, officer rule, deck) and every step of the sequence (its
activation, dice, combat rating with the bonuses and penalties counted, re-roll tier,
the DEFENCE it faces, whether it forces a suppression test), then the rules, decks and die.
Ratings are those at the start of the sequence; live changes (a unit becoming suppressed,
a failed rally test dropping the aim bonus) happen per trial.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any

from oddslab.rulesets.armoured_clash.compile import close_static, overwhelming, retaliation_static
from oddslab.rulesets.armoured_clash.model import RATINGS, Situation, Unit, default_deck
from oddslab.rulesets.armoured_clash.validate import (
    activation_plan,
    close_column,
    garrisoned_at,
    ranged_row,
    retaliating,
)

if TYPE_CHECKING:
    from oddslab.rulesets.armoured_clash.scenario import ArmouredClashScenario

__all__ = ["resolved"]

_TIER = ("none (weakened)", "glancing strikes (neutral)", "glancing strikes and misses (improved)")
_OFFICER = {
    "first": "dies with the unit's first casualty (it stands nearest the attacker)",
    "last": "dies only with the last model (its general removes the others first)",
    "random": "each destroyed model is the officer with probability 1/models",
}


def _column(values: Any, u: Unit, half: bool = False) -> str:
    v = tuple(values)
    if u.type == "behemoth":
        return " / ".join(map(str, v)) + " by damage suffered 0, 1, …"  # breakable
    return (
        " / ".join(map(str, v))
        + " for 1, 2, … models"
        + (" (half the models count)" if half else "")
    )


def _dice_now(values: Any, u: Unit, half: bool) -> str:
    v = tuple(values)
    if u.type == "behemoth":
        return f"{v[min(u.damage, len(v) - 1)]} (behemoth with {u.damage} damage)"
    m = (u.models + 1) // 2 if half else u.models
    why = f"{u.models} models, half counted = {m}" if half else f"{u.models} models"
    return f"{v[m - 1]} ({why})"


def _rating_text(d: int, force: str | None, bonuses: list[str], penalties: list[str]) -> str:
    if force is not None:
        return f"{force} (forced)"
    r = RATINGS[2 if d > 0 else (1 if d == 0 else 0)]
    parts = [
        f"bonuses: {', '.join(bonuses) or 'none'}",
        f"penalties: {', '.join(penalties) or 'none'}",
    ]
    return f"{r} ({'; '.join(parts)})"


def _tier(d: int, force: str | None, extra: tuple[str, ...], source: str) -> str:
    r = RATINGS.index(force) if force is not None else (2 if d > 0 else (1 if d == 0 else 0))
    text = _TIER[r]
    if extra:
        text += f" + {', '.join(extra)} ({source})"
    return text


def _unit(sc: ArmouredClashScenario, u: Unit) -> dict[str, Any]:
    out: dict[str, Any] = {
        "side": u.side,
        "type / category": f"{u.type} / {u.category}",
        "models": u.models,
    }
    d = f"{u.defence}"
    if u.garrisoned:
        d += f" ({u.defence + 1} against ranged attacks while garrisoned)"
    if u.taking_cover:
        d += "; +1 against ranged attacks with the concealed penalty while taking cover"
    out["DEFENCE"] = d
    out["DAMAGE LIMIT"] = f"{u.damage_limit} (damage tokens at the start: {u.damage})"
    out["DISCIPLINE"] = f"{u.discipline}" + (" (-1 while disordered)" if u.disordered else "")
    out["BREAK LIMIT"] = "none (cannot break)" if u.break_limit is None else u.break_limit
    vp = u.vp if isinstance(u.vp, int) else "/".join(map(str, u.vp))
    out["VP rating"] = f"{u.vp_value} ({u.reinforcement}; rating {vp})"
    default = "" if u.officer is not None else " (default)"
    out["officer"] = _OFFICER[u.officer_mode] + default
    statuses = [
        s
        for s, on in (
            ("suppressed", u.suppressed),
            ("disordered", u.disordered),
            ("taking cover", u.taking_cover),
            ("garrisoned", u.garrisoned),
            ("reloading", u.reloading),
        )
        if on
    ]
    out["statuses at the start"] = ", ".join(statuses) or "none"
    out['commander within 6"'] = "yes (cannot become disordered)" if u.commander_nearby else "no"
    for row in u.armaments.ranged:
        q = " (reload)" if row.reload else ""
        out[f"ranged: {row.name}"] = f"{_column(row.dice, u)} vs {', '.join(row.vs)}{q}"
    out["melee (MELEE score)"] = (
        _column(u.armaments.melee, u) if u.armaments.melee else "none (cannot retaliate)"
    )
    if u.armaments.impact:
        out["impact"] = _column(u.armaments.impact, u)
    if u.capacity:
        out["transport capacity"] = f"{u.capacity} per model = {u.capacity * u.models}"
        out["carrying"] = u.carrying or "nothing"
    out["models lost if a fall back is blocked"] = f"{u.fall_back_losses} (its general chooses)"
    out["models lost when withdrawing"] = u.withdraw_losses
    out["flees the field when falling back"] = u.flees_field
    return out


def _attack(sc: ArmouredClashScenario, i: int, plan: list[tuple[str, bool, bool]]) -> dict:
    a = sc.attacks[i]
    s = a.situation
    by = {u.name: u for u in sc.units}
    att, tgt = by[a.attacker], by[a.target]
    active, start, end = plan[i]
    out: dict[str, Any] = {}
    if sc.rules.activations:
        when = "starts" if start else "continues"
        out["activation"] = f"{when} {active}'s activation" + (" (ends after it)" if end else "")
    if a.kind == "ranged":
        row = ranged_row(a, att, tgt)
        assert row is not None
        out["weapon"] = row.name
        # an exit (reforming) before this attack sets the unit up outside its building
        a_garr, t_garr = garrisoned_at(sc, i, att.name), garrisoned_at(sc, i, tgt.name)
        out["attack dice"] = _dice_now(row.dice, att, a_garr)
        conc = t_garr or (s.concealed and s.exposed is None)
        bonuses = [n for n, on in (("aiming", s.aiming), ("short range", s.short_range)) if on]
        penalties = [
            n
            for n, on in (
                ("concealed" + (" (garrisoned target)" if t_garr else ""), conc),
                ("suppressed", att.suppressed),
                ("opportunity fire", s.opportunity_fire),
                ("reforming", s.reforming),
            )
            if on
        ]
        d = len(bonuses) - len(penalties)
        out["combat rating"] = _rating_text(d, s.rating, bonuses, penalties)
        out["re-rolls"] = _tier(d, s.rating, s.extra_rerolls, s.extra_rerolls_from)
        cover = tgt.taking_cover and not (sc.rules.activations and s.opportunity_fire)
        defence = tgt.defence + int(t_garr) + int(conc and cover)
        out["target DEFENCE"] = f"{defence} (statuses at the start of the sequence)"
        if s.exposed is not None:
            out["exposed models prioritised"] = f"{s.exposed} (only they can be destroyed)"
        why = "opportunity fire" if s.opportunity_fire else "aircraft"
        if not (s.opportunity_fire or tgt.type == "aircraft"):
            out["suppression test"] = "if at least 1 model is destroyed"
        elif sc.rules.cannot_be_suppressed == "no_test":
            out["suppression test"] = f"no ({why}: the target cannot be suppressed)"
        else:
            out["suppression test"] = (
                f"if at least 1 model is destroyed; a failure does not suppress it ({why}), "
                "but it falls back if already suppressed or breaks at its BREAK LIMIT"
            )
        return out
    col = close_column(a, att)
    assert col is not None
    storming = garrisoned_at(sc, i, tgt.name)
    out["weapon"] = a.weapon or "melee"
    out["attack dice"] = _dice_now(col, att, storming or garrisoned_at(sc, i, att.name))
    out["charge"] = "yes (needs the movement step)" if s.charge else "no (already in contact)"
    flags = _close_flags(s)
    bonuses = [
        n
        for n, on in (
            ("outflanking", s.outflanking),
            ("overwhelming", overwhelming(att, tgt)),
            (_named("supported", flags["supported"]), s.supported_now()),
        )
        if on
    ]
    penalties = [
        n
        for n, on in (
            ("suppressed", att.suppressed),
            (_named("threatened", flags["threatened"]), s.threatened_now()),
        )
        if on
    ]
    out["supported / threatened"] = "; ".join(
        f"{who} {'yes' if s_on else 'no'} ({src})"
        for who, (s_on, src) in (
            ("charger supported", (s.supported_now(), flags["supported"])),
            ("charger threatened", (s.threatened_now(), flags["threatened"])),
            ("target's retaliation supported", (s.retaliation_supported(), flags["r_supported"])),
            (
                "target's retaliation threatened",
                (s.retaliation_threatened(), flags["r_threatened"]),
            ),
        )
    )
    d = close_static(sc, i) - int(att.suppressed)
    out["combat rating"] = _rating_text(d, s.rating, bonuses, penalties)
    out["re-rolls"] = _tier(d, s.rating, s.extra_rerolls, s.extra_rerolls_from)
    out["target DEFENCE"] = tgt.defence
    first = "the target (defensive advantage" + (": storming)" if storming else ")")
    defadv = s.defensive_advantage or storming
    out["strikes first"] = first if defadv else "the charger"
    if defadv and s.secondary:
        out["secondary combatants strike"] = (
            "with the target, first"
            if sc.rules.secondaries_with_advantage == "with_target"
            else "after the charger (the defensive advantage is the target's)"
        )
    strikers = retaliating(sc, a)
    for name in (a.target, *s.secondary):
        u = by[name]
        role = "target" if name == a.target else "secondary combatant"
        if not u.armaments.melee:
            out[f"retaliation: {name} ({role})"] = "none (no MELEE score)"
            continue
        if name not in strikers:
            out[f"retaliation: {name} ({role})"] = (
                "none (the target has no MELEE score, so there is no retaliation to join; "
                '[rules] secondary_retaliation = "always" strikes anyway)'
            )
            continue
        if name == a.target:
            sup, thr = s.retaliation_supported(), s.retaliation_threatened()
            sup_src, thr_src = flags["r_supported"], flags["r_threatened"]
        else:
            sup, thr = s.secondary_supported(), s.secondary_threatened()
            sup_src, thr_src = flags["s_supported"], flags["s_threatened"]
        b2 = [n for n, on in (("overwhelming", overwhelming(u, att)),) if on]
        if sup:
            b2.append(_named("supported", sup_src))
        p2 = [
            n
            for n, on in (("suppressed", u.suppressed), (_named("threatened", thr_src), thr))
            if on
        ]
        d2 = retaliation_static(sc, i, name) - int(u.suppressed)
        dice = _dice_now(u.armaments.melee, u, garrisoned_at(sc, i, name))
        rr = s.defender_extra_rerolls
        if s.defender_extra_rerolls_from == "command" and name != a.target:
            rr = ()
        out[f"retaliation: {name} ({role})"] = (
            f"dice {dice}; {_rating_text(d2, s.defender_rating, b2, p2)}; re-rolls "
            f"{_tier(d2, s.defender_rating, rr, s.defender_extra_rerolls_from)}"
        )
    return out


def _forced_out_after(sc: ArmouredClashScenario, i: int, name: str) -> int | None:
    """The first step before ``i`` that may force garrison ``name`` out of its building in
    some trials (None if none can, or it is not garrisoned at step ``i``).

    A garrison that loses a close quarters combat exits instead of withdrawing (charged, or
    attacking from inside unless ``garrison_exit = "when_charged"``), and one that falls back
    (a failed suppression test while suppressed) exits: both only in some trials.
    """
    if not garrisoned_at(sc, i, name):
        return None
    suppressed = next(u for u in sc.units if u.name == name).suppressed
    any_loss = sc.rules.garrison_exit == "any_loss"
    for j, b in enumerate(sc.attacks[:i]):
        s = b.situation
        if b.kind == "close" and name in (b.target, *s.secondary):
            return j
        if b.kind == "close" and b.attacker == name and any_loss:
            return j
        opp = b.kind == "ranged" and s.opportunity_fire
        if (b.kind == "close" and b.attacker == name) or (
            b.kind == "ranged"
            and b.target == name
            and (not opp or sc.rules.cannot_be_suppressed == "no_status")
        ):
            if suppressed:
                return j
            suppressed = not opp  # a failed test may suppress it
    return None


def _garrison_notes(sc: ArmouredClashScenario, i: int) -> dict[str, str]:
    """A note for each garrison of step ``i`` that an earlier step may have forced out: the
    values above assume it is still inside; the kernel follows each trial."""
    a = sc.attacks[i]
    names = (a.attacker, a.target, *(a.situation.secondary if a.kind == "close" else ()))
    out = {}
    for name in dict.fromkeys(names):
        j = _forced_out_after(sc, i, name)
        if j is not None:
            out[f"garrison: {name}"] = (
                f"shown inside its building; in trials where step {j + 1} or a later one "
                "forced it out (it fell back, or lost a close quarters combat) it has "
                "exited: all its models count, and it is neither concealed by the building "
                "nor DEFENCE +1"
            )
    return out


def _named(flag: str, source: str) -> str:
    """``flag`` with where its value came from, unless the scenario gave it."""
    return flag if source == "given" else f"{flag} ({source})"


def _close_flags(s: Situation) -> dict[str, str]:
    """Where each *supported* / *threatened* flag of a close quarters attack comes from.

    The charger's *supported* is the target retaliation's *threatened* and the charger's
    *threatened* the retaliation's *supported* (the text defines both by the same units), so
    a flag the scenario does not give is read from its counterpart (see
    :class:`~oddslab.rulesets.armoured_clash.model.Situation`).
    """
    sec = "derived: a secondary combatant is in contact"
    out = {
        "supported": "given"
        if s.supported is not None
        else (
            f"derived: defender_threatened = {str(s.defender_threatened).lower()}"
            if s.defender_threatened is not None
            else "not given"
        ),
        "threatened": "given"
        if s.threatened is not None
        else (
            sec
            if s.secondary
            else (
                f"derived: defender_supported = {str(s.defender_supported).lower()}"
                if s.defender_supported is not None
                else "not given, no secondary combatant"
            )
        ),
        "r_supported": "given"
        if s.defender_supported is not None
        else (
            "derived: the charger is threatened"
            if s.threatened_now()
            else (sec if s.secondary else "derived: the charger is not threatened")
        ),
        "r_threatened": "given"
        if s.defender_threatened is not None
        else f"derived: the charger is {'' if s.supported else 'not '}supported",
        "s_supported": "given"
        if s.defender_supported is not None
        else "derived: the target is in contact",
        "s_threatened": "given" if s.defender_threatened is not None else "not given",
    }
    return out


def _deck(cards: Any, default: bool) -> str:
    c = Counter(cards)
    text = ", ".join(f"{v}×{k}" for k, v in sorted(c.items()))
    return f"{len(cards)} cards ({text})" + (" (default)" if default else "")


def resolved(sc: ArmouredClashScenario) -> dict[str, dict[str, Any]]:
    """Ordered sections of plain-words label -> value (see the module docstring)."""
    plan = activation_plan(sc)
    out: dict[str, dict[str, Any]] = {
        "scenario": {
            "focus unit (the statistics describe it)": sc.focus_unit
            + (" (default: the first attack's target)" if sc.focus is None else ""),
            "steps": len(sc.attacks),
        }
    }
    for u in sc.units:
        out[f"unit: {u.name}"] = _unit(sc, u)
    for i, a in enumerate(sc.attacks):
        kind = "ranged attack" if a.kind == "ranged" else "close quarters"
        step = {**_attack(sc, i, plan), **_garrison_notes(sc, i)}
        out[f"step {i + 1}: {a.attacker} → {a.target} ({kind})"] = step
    r = sc.rules
    out["rules"] = {
        "embarked unit tests": (
            "whenever its transport tests" if r.embarked_tests == "always" else "when it fails"
        ),
        "rally tests": "yes" if r.rally_test else "no",
        "activations (statuses expire, rally tests in the sequence)": r.activations,
        "statuses lost at the end of an activation": (
            "those held when it started" if r.status_expiry == "held_at_start" else "all"
        ),
        "secondary combatants retaliate": (
            "alongside the target (not when it has no MELEE score)"
            if r.secondary_retaliation == "with_target"
            else "always, even when the target has no MELEE score"
        ),
        "opportunity fire's target and aircraft (cannot be suppressed)": (
            "take no suppression test"
            if r.cannot_be_suppressed == "no_test"
            else "test; a failure cannot suppress them, but they can fall back or break"
        ),
        "a retaliation annihilates the unit it strikes": (
            "the action ends: the unit left counts as the winner, no withdrawal, no test"
            if r.retaliation_annihilates == "action_ends"
            else "step 4 all the same: the unit that destroyed more models wins"
        ),
        "secondary combatants under a defensive advantage": (
            "strike with the target, first"
            if r.secondaries_with_advantage == "with_target"
            else "strike after the charger"
        ),
        "a garrison that loses a close quarters combat": (
            "exits its building instead of withdrawing (charged, or attacking from inside)"
            if r.garrison_exit == "any_loss"
            else "exits if it was charged; attacking from inside, it withdraws and stays in"
        ),
    }
    out["C&C decks (drawn without replacement)"] = {
        side: _deck(sc.decks.get(side, default_deck()), side not in sc.decks)
        for side in ("attacker", "defender")
    }
    d = sc.die
    out["attack die"] = {
        "faces": f"heroic ×{d.heroic}, strike ×{d.strike}, glancing ×{d.glancing}, "
        f"miss ×{d.miss}, blank ×{d.blank}",
        "hits": "heroic strike 2 (+1 added die, once), strike 1, others 0",
    }
    return out
