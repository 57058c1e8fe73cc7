"""``resolved()``: the scenario as the program read it, in plain words, for a person to check."""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any

from .compile import _conceal_base
from .model import Rules

if TYPE_CHECKING:  # pragma: no cover
    from .compile import HexPlatoonScenario

__all__ = ["resolved"]


def _unit_text(u, hexo) -> dict[str, Any]:
    d: dict[str, Any] = {"type": u.type + (" (hard target)" if u.hard else " (soft target)")}
    if u.infantry:
        d["infantry"] = True
    if u.he or u.ap:
        d["firepower"] = (
            f"HE {u.he}{'+' if u.he_plus else ''} / AP {u.ap}{'+' if u.ap_plus else ''}"
        )
        d["range"] = (
            f"{u.range}{' (underlined: no extended/reduced range)' if u.range_underlined else ''}"
        )
        d["to hit"] = f"{u.to_hit}+"
    if u.aa:
        d["AA firepower"] = f"{u.aa}{'+' if u.aa_plus else ''} on {u.to_hit}+"
    for sw in u.support:
        d[f"support weapon {sw.name}"] = (
            "augmented (+1 die, lowest ignored)"
            if sw.augmented
            else f"+{sw.he} HE / +{sw.ap} AP, +{sw.range} range"
        )
    if u.assault is None:
        d["assault"] = "none (may not attack or counter-attack)"
    else:
        star = " * (counter-attack only)" if u.assault_counter_only else ""
        d["assault"] = f"{u.assault}{'+' if u.assault_plus else ''}{star} on {u.assault_to_hit}+"
    if u.hard:
        d["armor / save"] = f"{u.armor} dice on {u.save}+"
    if u.is_hq:
        d["leadership"] = f"{u.leadership} (reduced side {u.leadership_reduced})"
    d["morale"] = f"{u.morale} (Moral Check passes on 2D6 ≤ {u.morale})"
    state = [
        "reduced side" if u.reduced else "full side",
        "disrupted" if u.disrupted else "good order",
    ]
    if u.ops_complete:
        state.append("Ops Complete")
    if u.out_of_command:
        state.append("out of command")
    d["starting state"] = ", ".join(state)
    if u.type not in ("hq", "aircraft"):
        base = _conceal_base(u, hexo)
        why = (
            "forced"
            if u.concealed != "auto"
            else (
                f"terrain {hexo.terrain}{', improved position' if hexo.improved_position else ''}"
                + (", adjacent enemy" if u.adjacent_enemy else "")
                + (", spotted by recon" if u.spotted else "")
            )
        )
        concealed = base and not u.ops_complete
        d["concealed"] = (
            f"{'yes (+1 defensive die)' if concealed else 'no'} ({why}{', Ops Complete' if u.ops_complete and base else ''})"
        )
    return d


def _step_text(sc: HexPlatoonScenario, k: int) -> dict[str, Any]:
    s = sc.steps[k]
    d: dict[str, Any] = {}
    if s.label:
        d["label"] = s.label
    if s.kind in ("fire", "mortar"):
        fn = sc.step_fire(k)
        d["firer"] = s.firer
        d["target"] = s.target + ("" if s.kind == "fire" else " (hex)")
        d["range band"] = fn.band + (f" ({s.distance} hexes)" if s.distance is not None else "")
        d["attack"] = fn.text
        if s.hq:
            d["(s)HQ leadership"] = f"{s.hq}: {sc.rules.hq_bonus}"
        if s.opportunity:
            d["opportunity fire"] = (
                "at the stack that just moved (skipped if it was stopped earlier)"
            )
        if s.kind == "fire":
            t = sc.unit(s.target)
            hexo = sc.hex(sc.hex_of_name(t.name))
            if t.hard:
                d["saves"] = (
                    f"{t.armor} armor dice + defensive bonus {hexo.defence_hard} (+1 if concealed), "
                    f"bonus capped at 2 {'with' if sc.rules.concealment_in_cap else 'before'} the concealment die, on {t.save}+"
                )
            else:
                d["saves"] = f"{hexo.defence} defensive dice (+1 if concealed) on 5+"
        else:
            d["saves"] = (
                "terrain infantry defensive bonus +1 if a hard target is present"
                + (
                    (
                        ", +1 more per soft target with it"
                        if sc.rules.artillery_soft_extra_scope == "per-soft-unit"
                        else ", +1 more if soft targets too"
                    )
                    if sc.rules.artillery_soft_extra_defence
                    else ""
                )
                + ", on 5+"
            )
            if s.spotter:
                d["observed by"] = (
                    f"{s.spotter} (artillery mission: 1D6 = 1 fails)"
                    if sc.rules.mortar_mission_roll
                    else s.spotter
                )
    elif s.kind == "artillery":
        d["mission"] = f"{s.firepower} dice on {s.to_hit}+ per hex; 1D6 = 1: mission failure"
        d["hexes"] = ", ".join(s.hexes) + " (impact hex first)"
        if s.spotter:
            d["called by"] = (
                f"{s.spotter} (if Good Order, in command and without Ops Complete; "
                "calling gives no Ops Complete)"
            )
    elif s.kind == "move":
        d["moving stack"] = s.stack + (
            " (does not move if out of command or marked Ops Complete before this movement)"
            if sc.rules.ops_complete_bars == "every-action"
            else " (does not move if out of command)"
        )
        d["mines"] = f"yes: {sc.rules.mine_roll}" if s.mines else "no"
        if s.mines and sc.hex(s.stack).improved_position:
            d["improved position"] = (
                "nullifies the first mines hit"
                if sc.rules.mines_improved_position
                else "ignored by mines (mines_improved_position = false)"
            )
    elif s.kind in ("clear-mines", "rally"):
        d["units"] = ", ".join(sc.step_units(k))
        if s.kind == "clear-mines":
            d["roll"] = (
                f"infantry 1 die, engineers 2 dice; cleared on an even number ({sc.rules.clear_roll})"
            )
        else:
            d["roll"] = (
                "each disrupted unit: 2D6 (+1 out of command, − leadership of an (s)HQ in its hex) ≤ morale"
            )
    elif s.kind == "command":
        d["stack"] = s.stack
        d["morale"] = f"{sc.command_morale(k)} (fail: out of command)"
    elif s.kind in ("assault", "overrun"):
        d["attacker"] = s.attacker
        d["defender"] = s.defender
        for u, side, _d, _a, _t, _g, _dd, text in sc.melee_members(k):
            d[f"{'attacker' if side == 0 else 'defender'} {u.name}"] = text
        going = {u.name for u in sc.melee_attackers(k)}
        for u in sc.stack(s.attacker):
            if u.name not in going:
                d[f"attacker {u.name}"] = "no Assault factor: stays behind (6.3)"
        if s.kind == "assault":
            d["defender can retreat"] = s.can_retreat
            d["result"] = sc.rules.assault_result
    elif s.kind == "air-strike":
        air = sc.unit(s.aircraft)
        d["aircraft"] = (
            f"{air.name}: {s.firepower or air.he} dice on {air.to_hit}+, armor {air.armor} on {air.save}+"
        )
        d["target hex"] = s.target
        d["astray hex"] = s.adjacent or "none (an empty hex)"
        d["AA fire"] = (
            ", ".join(f"{n} ({sc.unit(n).aa} on {sc.unit(n).to_hit}+)" for n in s.aa) or "none"
        )
    return d


def resolved(sc: HexPlatoonScenario) -> dict[str, dict[str, Any]]:
    """Ordered sections of label → value (see :class:`oddslab.engine.Simulatable`)."""
    out: dict[str, dict[str, Any]] = {}
    for h in sc.hexes:
        sec: dict[str, Any] = {
            "terrain": h.terrain,
            "defensive bonus": f"{h.defence} dice (hard targets {h.defence_hard})",
            "improved position": "yes (nullifies the first hit of any attack)"
            if h.improved_position
            else "no",
            "units": ", ".join(u.name for u in h.units) or "none",
        }
        out[f"hex {h.name}"] = sec
        for u in h.units:
            out[f"unit {u.name}"] = _unit_text(u, h)
    for k, s in enumerate(sc.steps):
        out[f"step {k + 1}: {s.kind}"] = _step_text(sc, k)
    default = Rules()
    rules: dict[str, Any] = {}
    for f in fields(Rules):
        v = getattr(sc.rules, f.name)
        mark = " (default)" if v == getattr(default, f.name) else ""
        rules[f.name.replace("_", " ")] = f"{v}{mark}"
    out["rules"] = rules
    return out
