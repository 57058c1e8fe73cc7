"""``GenericScenario.resolved()``: the inputs as the program read them, for people to check."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oddslab.rulesets.generic.compile import critical_wound_on, derive
from oddslab.rulesets.generic.model import Rules, Target, Weapon

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario

__all__ = ["resolved"]

_DEFAULT = " (default)"


def _signed(x: int) -> str:
    return f"+{x}" if x > 0 else ("0" if x == 0 else f"−{-x}")


def _roll(n: int) -> str:
    return f"{n}+" if n <= 6 else "impossible"


def _d(value: Any, default: Any, text: str | None = None) -> str:
    """``text`` (or the value), labelled "(default)" when it equals the default."""
    shown = text if text is not None else _yes(value) if isinstance(value, bool) else str(value)
    return shown + (_DEFAULT if value == default else "")


def _yes(b: bool) -> str:
    return "yes" if b else "no"


def _save_text(sc: GenericScenario, w: Weapon, critical: bool) -> str:
    t = sc.target
    kind, need, mode = sc.save_plan(w, critical)
    if kind == "none":
        return "none" + (" (no armour or invulnerable save)" if t.save == 7 else " possible")
    parts = []
    if kind == "armour":
        ap = sc.effective_ap(w, critical)
        parts.append(f"{t.save}+ armour, AP {_signed(-ap) if ap else '0'}")
        if t.ignore_ap and (w.ap or critical):
            parts.append("AP ignored")
        elif t.ap_reduction:
            parts.append(f"AP reduced by {t.ap_reduction}")
        if sc.has_cover(w):
            if need < t.save + ap:
                parts.append("cover +1")
            else:
                parts.append("no cover bonus (3+ or better against AP 0)")
    else:
        parts.append(f"{t.invulnerable}+ invulnerable")
    if t.save_modifier:
        parts.append(f"save roll {_signed(t.save_modifier)}")
    if mode != "none":
        parts.append(f"re-roll {'ones' if mode == 'ones' else 'failed saves'}")
    shown = need - t.save_modifier
    return f"{_roll(max(2, shown))} ({', '.join(parts)})"


def _keywords(sc: GenericScenario, given: Weapon) -> dict[str, Any]:
    """What each of the weapon's keywords became in this scenario (for people)."""
    from oddslab.rulesets.generic.keywords import at_half_range, indirect_unseen, keyword_text

    sit = sc.situation
    half = at_half_range(given, sit)
    effects = {
        "Blast": "+1 attack per model for every 5 target models alive when it fires"
        + f" ({sc.target.models} at the start: +{sc.target.models // 5})",
        "Heavy": "+1 to hit"
        if sit.remained_stationary
        else "no effect (did not remain stationary)",
        "Lance": "+1 to wound" if sit.charged else "no effect (did not charge)",
        "Indirect Fire": "−1 to hit, unmodified 1–3 fail, target in cover"
        if indirect_unseen(given, sit)
        else "no effect (target visible)",
        "Ignores Cover": "no cover bonus for the target",
        "Twin-linked": "re-roll failed wound rolls"
        if given.reroll_wounds == "none"
        else f"no effect (reroll_wounds = {given.reroll_wounds!r} given)",
        "Torrent": "hits automatically",
        "Lethal Hits": "critical hits wound automatically",
        "Devastating Wounds": "critical wounds skip the save",
        "Extra Attacks": "fires in addition to the other weapons",
        "Hazardous": "after attacking: a D6 per model firing, a 1 costs a model",
        "Precision": "attacks may be allocated to an attached character",
    }
    out: dict[str, Any] = {}
    for name in keyword_text(given):
        if name in effects:
            out[name] = effects[name]
        elif name.startswith("Sustained Hits"):
            out[name] = f"each critical hit scores {given.sustained_hits} extra hit(s)"
        elif name.startswith(("Melta", "Rapid Fire")):
            x = given.melta if name.startswith("Melta") else given.rapid_fire
            what = "damage per attack" if name.startswith("Melta") else "attacks per model"
            out[name] = f"+{x} {what}" if half else "no effect (not within half range)"
        else:
            out[name] = "critical wounds on X+ against targets with the keyword"
    if given.ignore_keywords:
        out["ignored keywords"] = ", ".join(given.ignore_keywords)
    return out


def _weapon(sc: GenericScenario, given: Weapon, w: Weapon) -> dict[str, Any]:
    """``given`` as written, ``w`` as it fires (``sc.fired``)."""
    d = derive(sc, w)
    t, r = sc.target, sc.rules
    out: dict[str, Any] = {}
    for name, effect in _keywords(sc, given).items():
        out[f"keyword {name}"] = effect
    if given.range is not None:
        out["range"] = f'{given.range}"'
    out["attacks"] = f"{w.attacks} per model × {w.models} model{'s' if w.models != 1 else ''}"
    if not w.attacks.is_constant and w.models > 1:
        out["attacks"] += " (each model rolls)"
    if w.torrent:
        out["hit"] = "automatic (torrent: no hit roll, no critical hits)"
    else:
        mod = ""
        if w.hit_modifier:
            mod = f" (modifier {_signed(d.hit_mod)}"
            mod += (
                f", capped from {_signed(w.hit_modifier)})" if d.hit_mod != w.hit_modifier else ")"
            )
        out["hit"] = _d(w.skill, 4, f"{w.skill}+{mod}")
        out["hit re-rolls"] = _d(w.reroll_hits, "none", str(w.reroll_hits))
        out["critical hits"] = _d(w.critical_hit, 6, f"{w.critical_hit}+")
    out["sustained hits"] = _d(
        w.sustained_hits.max, 0, str(w.sustained_hits) if w.sustained_hits.max else "none"
    )
    out["lethal hits"] = _d(w.lethal_hits, False)
    out["extra hit rolls per critical hit"] = _d(
        w.critical_extra_attacks.max,
        0,
        str(w.critical_extra_attacks) if w.critical_extra_attacks.max else "none",
    )
    if w.critical_hit_mortals.max:
        how = "instead of its wound roll" if w.critical_hit_mortals_instead else "in addition"
        out["mortal wounds per critical hit"] = f"{w.critical_hit_mortals} ({how})"
    else:
        out["mortal wounds per critical hit"] = "none" + _DEFAULT
    if w.wound is not None:
        why = "critical wounds only" if w.wound == 7 else "fixed"
        wound = f"{_roll(w.wound)} ({why})"
    else:
        wound = f"{d.wound_need}+ (S{w.strength} vs T{t.toughness})"
    if w.wound_modifier:
        wound += f", modifier {_signed(d.wound_mod)}"
        if d.wound_mod != w.wound_modifier:
            wound += f" (capped from {_signed(w.wound_modifier)})"
    out["wound"] = wound
    out["wound re-rolls"] = _d(w.reroll_wounds, "none", str(w.reroll_wounds))
    crit = critical_wound_on(sc, w)
    anti = [f"anti-{kw} {x}+" for kw, x in w.anti if kw in t.keywords]
    crit_text = f"{crit}+" + (f" ({', '.join(anti)} against this target)" if anti else "")
    out["critical wounds"] = _d(crit, 6, crit_text) if not anti else crit_text
    if w.anti and not anti:
        out["anti"] = (
            ", ".join(f"anti-{kw} {x}+" for kw, x in w.anti) + " (target lacks the keyword)"
        )
    if w.devastating_wounds:
        rule = (
            "current rule: damage with no save (not mortal wounds) after all other attacks, "
            "no spill"
            if r.devastating_wounds == "current"
            else "legacy rule: mortal wounds after this weapon, spilling over"
        )
        out["devastating wounds"] = f"yes ({rule})"
    else:
        out["devastating wounds"] = "no" + _DEFAULT
    if w.critical_wound_ap:
        out["extra AP on a critical wound"] = f"AP −{w.critical_wound_ap} more"
    if w.critical_wound_damage:
        out["extra damage on a critical wound"] = f"+{w.critical_wound_damage}"
    if w.critical_wound_mortals.max:
        how = "instead of save and damage" if w.critical_wound_mortals_instead else "in addition"
        out["mortal wounds per critical wound"] = f"{w.critical_wound_mortals} ({how})"
    if sc.mixed:  # the save of the model each attack is allocated to
        from oddslab.rulesets.generic.compile_mixed import views

        for g, v in zip(t.groups, views(sc), strict=True):
            out[f"save ({g.name})"] = _save_text(v, w, False)
    else:
        out["save"] = _save_text(sc, w, False)
    if w.critical_wound_ap and d.crit_save_own:
        out["save against a critical wound"] = _save_text(sc, w, True)
    dmg = str(w.damage)
    mods = []
    if t.halve_damage:
        mods.append("halved, rounding up")
    if t.damage_reduction:
        mods.append(f"−{t.damage_reduction}, minimum 1")
    out["damage"] = _d(str(w.damage), "1", dmg + (f" ({'; '.join(mods)})" if mods else ""))
    out["damage re-rolls"] = _d(w.reroll_damage, "none")
    return out


def _groups(t: Target) -> dict[str, Any]:
    """One line per group of a mixed unit."""
    out: dict[str, Any] = {}
    for g in t.groups:
        bits = [f"{g.models} model{'s' if g.models != 1 else ''}", f"{g.wounds} W",
                f"T{g.toughness or t.toughness}", f"{g.save}+" if g.save <= 6 else "no save"]  # fmt: skip
        if g.invulnerable:
            bits.append(f"{g.invulnerable}++")
        if g.feel_no_pain:
            bits.append(f"feel no pain {g.feel_no_pain}+")
        if g.keywords:
            bits.append(", ".join(g.keywords))
        if g.character:
            bits.append("character: no attacks while bodyguard models live, except Precision")
        if g.damaged:
            bits.append(f"one model has lost {g.damaged} W (takes the group's next attack)")
        out[f"group {g.name}"] = "; ".join(bits)
    return out


def _target(t: Target) -> dict[str, Any]:
    if t.groups:
        shown = {"models": f"{t.models} in {len(t.groups)} groups", **_groups(t)}
        rest = _target_keys(t)
        for key in ("models", "wounds per model", "toughness", "save", "invulnerable save",
                    "feel no pain", "wounds already lost by the first model"):  # fmt: skip
            rest.pop(key)
        return {
            **shown,
            "toughness (unit)": "the toughest living bodyguard group's, else the leader's",
            **rest,
        }
    return _target_keys(t)


def _target_keys(t: Target) -> dict[str, Any]:
    return {
        "models": t.models,
        "wounds per model": _d(t.wounds, 1),
        "toughness": _d(t.toughness, 4),
        "save": _d(t.save, 7, f"{t.save}+" if t.save <= 6 else "none"),
        "invulnerable save": _d(
            t.invulnerable, None, f"{t.invulnerable}+" if t.invulnerable else "—"
        ),
        "feel no pain": _d(t.feel_no_pain, None, f"{t.feel_no_pain}+" if t.feel_no_pain else "—"),
        "feel no pain against mortal wounds": _d(
            t.feel_no_pain_mortal,
            None,
            f"{t.feel_no_pain_mortal}+" if t.feel_no_pain_mortal else "—",
        ),
        "wounds already lost by the first model": _d(t.damaged, 0),
        "cover": _d(t.cover, False),
        "keywords": _d(t.keywords, (), ", ".join(t.keywords) if t.keywords else "none"),
        "save modifier": _d(t.save_modifier, 0, _signed(t.save_modifier)),
        "save re-rolls": _d(t.reroll_saves, "none"),
        "invulnerable save re-rolls": _d(t.reroll_invulnerable, "none"),
        "ignore AP": _d(t.ignore_ap, False),
        "AP reduction": _d(t.ap_reduction, 0),
        "damage reduction": _d(
            t.damage_reduction, 0, f"−{t.damage_reduction}" if t.damage_reduction else "0"
        ),
        "halve damage": _d(t.halve_damage, False),
        "one-off re-roll (defender)": _d(t.reroll_one, "none"),
    }


def _rules(r: Rules) -> dict[str, Any]:
    dflt = Rules()
    return {
        "damage spill": _d(
            r.spill,
            dflt.spill,
            "excess damage lost" if r.spill == "none" else "spills to the next model",
        ),
        "devastating wounds rule": _d(r.devastating_wounds, dflt.devastating_wounds),
        "natural 1 always fails": _d(r.natural_one_fails, dflt.natural_one_fails),
        "critical roll always succeeds": _d(r.natural_six_succeeds, dflt.natural_six_succeeds),
        "cover limit (3+ saves vs AP 0)": _d(r.cover_limit, dflt.cover_limit),
        "hit/wound modifiers capped at ±1": _d(r.modifier_cap, dflt.modifier_cap),
        "stack feel-no-pain against mortal wounds": _d(
            r.stack_feel_no_pain, dflt.stack_feel_no_pain
        ),
        "damage modifiers on devastating wounds": _d(
            r.damage_modifiers_on_devastating, dflt.damage_modifiers_on_devastating
        ),
        "allocation in a mixed unit": _d(r.allocation, dflt.allocation),
    }


def resolved(sc: GenericScenario) -> dict[str, dict[str, Any]]:
    """Ordered sections of plain-words label → value (see the engine's ``Simulatable``)."""
    out: dict[str, dict[str, Any]] = {}
    for i, (given, w) in enumerate(zip(sc.weapons, sc.fired, strict=True)):
        out[f"weapon {i + 1}: {w.name}"] = _weapon(sc, given, w)
    out[f"target: {sc.target.name}"] = _target(sc.target)
    sit = sc.situation
    if sit != type(sit)() or any(w.hazardous for w in sc.weapons):
        out["situation"] = {
            "attacker remained stationary": _yes(sit.remained_stationary),
            "attacker charged": _yes(sit.charged),
            "within half range (all weapons)": _yes(sit.half_range),
            "target visible": _yes(sit.target_visible),
            "one-off re-roll (attacker)": sit.reroll_one,
        }
        if any(w.hazardous for w in sc.weapons):
            from oddslab.rulesets.generic.compile import hazard

            dice, models, wounds, mortal = hazard(sc)
            how = "3 mortal wounds per 1" if mortal else "a model per 1"
            out["situation"]["Hazardous"] = (
                f"{dice} D6 after the attacks; {how}; {models} attacking models of {wounds} W"
            )
    out["rules"] = _rules(sc.rules)
    return out
