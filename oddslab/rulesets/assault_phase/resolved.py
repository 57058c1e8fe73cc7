"""``AssaultScenario.resolved()``: the combat as the program read it, in plain words.

Every model group's attacks, strike order, target, and the to-hit / to-wound / save it
gets against each enemy it can strike (derived from the majority WS, Toughness and saves
at the start of the combat), the charge, each unit's Leadership and fall-back dice, and
every rules switch with "(default)" where it was not set.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from oddslab.rulesets.assault_phase.model import (
    SIDES,
    ModelGroup,
    Rules,
    Unit,
)

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.assault_phase.scenario import AssaultScenario

__all__ = ["resolved", "majority_value", "charge_probability"]

_WEAPON_WORDS = {
    "power-weapon": "power weapon",
    "power-fist": "power fist",
    "lightning-claw": "lightning claw",
    "lightning-claws": "lightning claws",
    "force-weapon": "force weapon",
}


def majority_value(
    counts: dict[int, int], rules: Rules, tie_high: bool, lowest_if_tied: bool = False
) -> int:
    """The majority of ``{value: models}`` as the kernel reads it (see ``Rules.majority``).

    Equal counts at the top: the highest (``tie_high``) or lowest of the tied values (the
    owner's choice, for Toughness), or with ``lowest_if_tied`` the lowest value of all (for
    WS: "If there is no majority Weapon Skill type use the lowest Weapon Skill in the unit").
    """
    live = {v: n for v, n in counts.items() if n > 0}
    top = max(live.values())
    best = [v for v, n in live.items() if n == top]
    if lowest_if_tied and len(best) > 1:
        return min(live)
    pick = max(best) if tie_high else min(best)
    total = sum(live.values())
    if rules.majority == "most-common" or 2 * top > total or (2 * top == total and len(live) == 2):
        return pick
    return min(live)


def _ws_words(counts: dict[int, int], rules: Rules, ws: int) -> str:
    """How the WS hit against was found: a majority, or none (the lowest in the unit)."""
    live = {v: n for v, n in counts.items() if n > 0}
    top = max(live.values())
    n_top = sum(n == top for n in live.values())
    total = sum(live.values())
    if n_top == 1 and (rules.majority == "most-common" or 2 * top > total):
        return f"majority WS{ws}"
    return f"WS{ws}: no majority WS type, the lowest in the unit"


def charge_probability(distance: int) -> Fraction:
    """P(the higher of 2D6 >= ``distance``)."""
    if distance <= 1:
        return Fraction(1)
    return 1 - Fraction((distance - 1) ** 2, 36)


def _entities(sc: AssaultScenario, side: int) -> dict[str, tuple[str, list[ModelGroup]]]:
    """Targets on ``side``: unit name -> (description, non-independent groups), and every
    independent character's name -> (description, [his group])."""
    out: dict[str, tuple[str, list[ModelGroup]]] = {}
    for unit in (sc.attacker, sc.defender)[side].units:
        body = [g for g in unit.groups if not g.independent]
        if body:
            out[unit.name] = (f"unit {unit.name}", body)
        for g in unit.groups:
            if g.independent:
                out[g.name] = (f"independent character {g.name} ({unit.name})", [g])
        if not body:  # a unit of characters only: the unit name means its first character
            first = next(g for g in unit.groups if g.independent)
            out.setdefault(unit.name, (f"independent character {first.name}", [first]))
    return out


def _save_text(groups: list[ModelGroup], noarm: bool, heavy: bool, rules: Rules) -> str:
    """The save each save type in reach gets (models within 2" of an enemy count)."""
    kinds: Counter[tuple[int, int]] = Counter()
    for g in groups:
        in_reach = g.count if rules.reach == "unit" else g.in_contact + g.supporting
        kinds[(7 if noarm else g.save, g.invulnerable)] += in_reach
    parts = []
    for (sv, inv), n in sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0])):
        if noarm:
            need = inv
            why = "no armour save"
        else:
            arm = max(sv, 4) if heavy else sv
            need = min(arm, inv)
            why = f"armour {sv}+" if sv < 7 else "no armour"
            if heavy and sv < 4:
                why += " capped at 4+ (heavy weapon)"
        inv_txt = f", invulnerable {inv}+" if inv < 7 else ""
        need_txt = f"{need}+" if need < 7 else "none"
        parts.append(f"{need_txt} ({why}{inv_txt}; {n} models)")
    if len(parts) == 1:
        return parts[0].replace(f"; {sum(kinds.values())} models", "")
    if not parts:
        return "nobody in reach"
    return "majority-save procedure: " + ", ".join(parts)


def _target_unit(sc: AssaultScenario, side: int, g: ModelGroup) -> Unit:
    """The enemy unit ``g`` attacks: its (first) target's unit, else the first enemy unit."""
    units = (sc.attacker, sc.defender)[1 - side].units
    name = g.targets[0] if g.targets else units[0].name
    for u in units:
        if u.name == name or any(h.independent and h.name == name for h in u.groups):
            return u
    raise KeyError(name)  # pragma: no cover - targets are checked when the file is read


def _strike_at(sc: AssaultScenario, side: int, unit: Unit, g: ModelGroup, contact: bool) -> str:
    r = sc.rules
    fist = g.weapon == "power-fist" and contact
    init = 1 if fist else g.i
    target = _target_unit(sc, side, g)
    text = f"Initiative {init}" + (" (power fist)" if fist else "")
    # the cover first strike needs a charging unit without plasma grenades
    cover_on = not all(u.grenades == "plasma" for u in sc.attacker.units)
    first_strike = False
    why = note = ""
    if side == 1 and unit.in_cover and cover_on:
        if r.plasma_grenades == "all-units" or target.grenades != "plasma":
            first_strike, why = True, "in cover"
        else:
            note = f" (no first strike from cover against {target.name}: plasma grenades)"
    if side == 0 and unit.grenades == "frag" and cover_on:
        if r.frag_grenades == "any-engaged":
            first_strike = any(u.in_cover for u in sc.defender.units)
            why = "frag grenades: with the defenders in cover"
        elif target.in_cover:
            first_strike, why = True, f"frag grenades: with {target.name}, in cover"
        elif any(u.in_cover for u in sc.defender.units):
            note = f" ({target.name} is not in cover: frag grenades give no first strike)"
    if first_strike:
        if fist and r.fist_strikes_last:
            return text + "; first turn too (a power fist always strikes at Initiative 1)"
        return f"first turn: before any Initiative ({why}); later turns: {text}"
    return text + note


def _group_section(sc: AssaultScenario, side: int, unit: Unit, g: ModelGroup) -> dict[str, Any]:
    r = sc.rules
    enemies = _entities(sc, 1 - side)
    first_enemy = (sc.attacker, sc.defender)[1 - side].units[0].name
    targets = g.targets or (first_enemy,)
    out: dict[str, Any] = {}
    out_of_fight = g.count - g.in_contact - g.supporting
    out["models"] = (
        f"{g.count}: {g.in_contact} in base contact, {g.supporting} supporting, "
        f"{out_of_fight} out of the fight" + (" (independent character)" if g.independent else "")
    )
    two = g.two_weapons or g.weapon == "lightning-claws"
    charge = side == 0 and not unit.fired
    a_txt = f"{g.a} profile" + (" + 1 two weapons" if two else "")
    a_txt += " + 1 charge (first turn)" if charge else ""
    total = g.a + two + charge
    out["attacks in base contact"] = f"{a_txt} = {total} per model"
    if g.supporting:
        out["attacks when supporting"] = "1 per model (no special attack forms)"
    special = []
    if g.weapon != "none":
        special.append(_WEAPON_WORDS[g.weapon])
    for flag, word in (
        (g.rending, "rending"),
        (g.heavy, "heavy weapon"),
        (g.monstrous, "monstrous"),
    ):
        if flag:
            special.append(word)
    if g.poisoned:
        special.append(f"poisoned {g.poisoned}+")
    out["special attacks (base contact only)"] = ", ".join(special) if special else "none"
    out["strikes at"] = _strike_at(sc, side, unit, g, True)
    if g.supporting and g.weapon == "power-fist":
        out["supporting models strike at"] = _strike_at(sc, side, unit, g, False)
    if len(targets) > 1:
        w = g.split_weights
        out["target"] = (
            "hits split in turn between "
            + ", ".join(f"{t} ({n} per round)" for t, n in zip(targets, w, strict=True))
            + "; one to-hit roll per attack, against the first of them with models in reach"
        )
    else:
        out["target"] = targets[0] + ("" if g.target else " (default: the first enemy unit)")
    # a target unit that may never join the fight: the group attacks the others instead
    aim = _target_unit(sc, side, g)
    others = [u.name for u in (sc.attacker, sc.defender)[1 - side].units if u is not aim]
    absent = "fails its charge" if aim.difficult_terrain_distance > 0 else ""
    absent = "fails to regroup" if aim.falling_back else absent
    if absent and others:
        out["target"] += f"; if {aim.name} {absent}: {', '.join(others)} (the first in reach)"
    fist = g.weapon == "power-fist"
    s_c = min(2 * g.s, 10) if fist else g.s
    noarm = g.monstrous or g.weapon != "none"
    for t in targets:
        _desc, tg = enemies[t]
        ws_counts: Counter[int] = Counter()
        t_counts: Counter[int] = Counter()
        for h in tg:
            ws_counts[h.ws] += h.count
            t_counts[h.t] += h.count
        mws = majority_value(ws_counts, r, tie_high=False, lowest_if_tied=True)
        mt = majority_value(t_counts, r, tie_high=r.tie_toughness == "higher")
        hit = r.hit_table()[g.ws, mws]
        hit_txt = f"{hit}+" if hit < 7 else "cannot hit"
        out[f"to hit {t}"] = f"{hit_txt} (WS{g.ws} vs {_ws_words(ws_counts, r, mws)})"
        if g.poisoned:
            out[f"to wound {t}"] = f"{g.poisoned}+ (poisoned, whatever S and T)"
        else:
            need = r.wound_table()[s_c, mt]
            need_txt = f"{need}+" if need < 7 else "cannot wound"
            s_txt = f"S{s_c} (power fist doubles S{g.s})" if fist else f"S{g.s}"
            out[f"to wound {t}"] = f"{need_txt} ({s_txt} vs majority T{mt})"
            if g.weapon in ("lightning-claw", "lightning-claws"):
                out[f"to wound {t}"] += ", failed rolls re-rolled once"
        if g.rending:
            out[f"to wound {t}"] += "; a to-hit 6 wounds with no armour save"
        out[f"save of {t}"] = _save_text(tg, noarm, g.heavy, r)
        if g.supporting:
            need = r.wound_table()[g.s, mt]
            need_txt = f"{need}+" if need < 7 else "cannot wound"
            out[f"supporting attacks vs {t}"] = (
                f"hit {hit_txt}, wound {need_txt} (S{g.s} vs T{mt}), save "
                + _save_text(tg, False, False, r)
            )
    return out


def _unit_section(sc: AssaultScenario, side: int, unit: Unit) -> dict[str, Any]:
    r = sc.rules
    lds = [g.ld for g in unit.groups]
    if r.unit_leadership == "highest":
        ld = f"{max(lds)} (the highest among living models)"
    else:
        ld_counts = Counter({g.ld: 0 for g in unit.groups})
        for g in unit.groups:
            ld_counts[g.ld] += g.count
        top = max(ld_counts.values())
        ld = f"{max(v for v, n in ld_counts.items() if n == top)} (the majority Ld)"
    out: dict[str, Any] = {
        "models": sum(g.count for g in unit.groups),
        "Leadership tested on": ld,
        "falls back": '3D6" (fast)' if unit.fast else '2D6"',
        "sweeping advance": '3D6" (fast)' if unit.fast else '2D6"',
        "trapped (destroyed if it falls back)": unit.trapped,
    }
    if side == 0:
        if unit.difficult_terrain_distance:
            d = unit.difficult_terrain_distance
            p = charge_probability(d)
            out["charge"] = (
                f'through difficult terrain: {d}", goes in if the higher of 2D6 >= {d} '
                f"(P = {p.numerator}/{p.denominator} = {float(p):.4f})"
            )
        else:
            out["charge"] = "always goes in (no difficult terrain)"
        out["charge bonus"] = "none (fired this turn)" if unit.fired else "+1 attack, first turn"
        out["grenades"] = unit.grenades
    else:
        out["in cover (strikes first when charged, first turn)"] = unit.in_cover
        if unit.falling_back:
            out["assaulted while falling back"] = "tests to regroup (no modifiers) or is destroyed"
    return out


def _rules_section(r: Rules) -> dict[str, Any]:
    d = Rules()
    words = {
        "max_turns": "turns of close combat at most",
        "double_one_passes": "double one always passes a Leadership test",
        "below_half_penalty": "-1 Ld for a loser below half strength",
        "unit_leadership": "unit Leadership",
        "reach": "models that can be hit",
        "tie_save": "equal numbers, different saves: save used first",
        "tie_toughness": "equal numbers, different Toughness: Toughness used",
        "majority": "reading of 'majority' (WS, Toughness, saves)",
        "frag_grenades": "frag grenades: simultaneous with the cover for",
        "plasma_grenades": "plasma grenades: cover first strike lost",
        "fist_strikes_last": "power fists strike at Initiative 1 even from cover",
        "sweep_support": "supporting models' attacks in a sweeping advance",
        "pile_in": "survivors pile into base contact after the first turn",
    }
    out: dict[str, Any] = {}
    for key, label in words.items():
        v = getattr(r, key)
        out[label] = f"{v}" + (" (default)" if v == getattr(d, key) else "")
    out["to-hit chart"] = "custom" if r.to_hit_chart else "standard (default)"
    out["to-wound chart"] = "custom" if r.to_wound_chart else "standard (default)"
    out["engagement"] = "every unit is engaged with every enemy unit in the combat"
    return out


def resolved(sc: AssaultScenario) -> dict[str, dict[str, Any]]:
    """Ordered sections of plain-words label -> value (str, int, float, bool)."""
    out: dict[str, dict[str, Any]] = {}
    for s, side in enumerate((sc.attacker, sc.defender)):
        role = "charging" if s == 0 else "charged"
        for unit in side.units:
            out[f"{SIDES[s]} unit: {unit.name} ({side.name}, {role})"] = _unit_section(sc, s, unit)
            for g in unit.groups:
                out[f"{SIDES[s]} group: {unit.name} / {g.name}"] = _group_section(sc, s, unit, g)
    out["rules"] = _rules_section(sc.rules)
    return out
