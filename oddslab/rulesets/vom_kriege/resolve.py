"""Hits-then-retreats for one roll in Python (for the exact PMFs), and ``resolved()`` text."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oddslab.rulesets.vom_kriege.layout import ARTILLERY_ROWS
from oddslab.rulesets.vom_kriege.model import ROUGH, Rules, Unit, range_band
from oddslab.rulesets.vom_kriege.tables import (
    artillery_row,
    hit_flag_probs,
    melee_dice,
    shooting_dice,
    square_test_dice,
    square_test_probability,
)

if TYPE_CHECKING:
    from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario

__all__ = ["resolve_once", "explain", "rules_section", "RULE_TEXT"]


def resolve_once(unit: Unit, hits: int, flags: int, rules: Rules) -> dict[str, int]:
    """The defender's fate after one shooting roll of ``hits`` and ``flags`` from its start.

    Hits first (reaching maximum hits: retreat 1 move, disordered; a hit at maximum removes
    it), then retreats (½ move per flag; infantry in square take 1 hit per flag instead; a
    unit at maximum hits that must retreat is removed; a blocked retreat is 1 hit).
    """
    strn = unit.max_hits
    h = unit.hits
    diso = int(unit.disordered)
    square = unit.form == "square"
    hm = 0
    retreats = 0
    removed = 0
    reached = False
    absorb = rules.same_roll_at_max == "absorb"
    n = hits + (flags if square else 0)
    for _ in range(n):
        if h >= strn:
            if reached and absorb:
                break
            removed = 1
            break
        h += 1
        if h >= strn:
            reached = True
            if unit.retreat_blocked:
                removed = 1
                break
            hm += 2
            retreats += 1
            diso = 1
    nf = 0 if square else flags
    if not removed and nf > 0:
        if h >= strn:
            if not (reached and absorb):
                removed = 1
        elif unit.retreat_blocked:
            h += 1
            removed = int(h >= strn)
            if not removed and rules.blocked_retreat_disorders:
                diso = 1
        else:
            hm += nf
            retreats += 1
            diso = 1
    atmax = int(not removed and h >= strn)
    return {
        "defender_hits": min(h, strn),
        "defender_retreat_half_moves": hm,
        "defender_retreated": int(retreats > 0),
        "defender_disordered": 0 if removed else diso,
        "defender_removed": removed,
        "defender_at_max_hits": atmax,
        "defender_broken": int(removed or atmax),
    }


#: switch -> (plain words, what each value means)
RULE_TEXT: dict[str, str] = {
    "sabers": "sabers hit in",
    "or_rows": "adjustment rows joined by 'or'",
    "artillery_rows": "'Artillery target ...' rows read by",
    "horse_artillery": "horse artillery fires as",
    "halving": "halving (shooting marker, obscured)",
    "halving_floor": "a halved count is at least 1 die (always, or only from above 0)",
    "min_dice": "fewest battle dice after adjustments",
    "same_roll_at_max": "hits/flags beyond maximum in the same roll",
    "defensive_fire_flags": "flags from defensive fire",
    "dice_state": "melee dice counted from the state",
    "battle_back_supports": "battle back counts defender supports",
    "square_may_fire": "a unit that tests to form square also fires",
    "counter_charge": "counter-charge",
    "retire_vs_cavalry": "units may retire from cavalry too",
    "disordered_follow_up": "disordered cavalry may follow up",
    "skirmish_dice": "skirmish fire dice",
    "square_battle_back": "cavalry retreat after a square's battle back",
    "rough_charge": "cavalry disordered by rough terrain before the melee",
    "skirmish_target": "artillery's skirmish target (-1 at 3-6\")",
    "skirmish_range": "artillery's skirmish-target row applies at",
    "order_support_row": "order bonus and supports",
    "retire_follow_up": "melee follow-up after a retire by",
    "retiring_cavalry_disordered": "retiring cavalry is disordered (step 7)",
    "blocked_retreat_disorders": "a blocked retreat also disorders",
    "cavalry_square_flags": "flags rolled by cavalry against a square",
    "cavalry_square_sabers": "cavalry hits a square only with sabers",
}


def rules_section(rules: Rules) -> dict[str, Any]:
    default = Rules()
    out: dict[str, Any] = {}
    for key, words in RULE_TEXT.items():
        v = getattr(rules, key)
        tag = " (default)" if v == getattr(default, key) else ""
        out[words] = f"{v}{tag}"
    return out


def _unit_section(u: Unit, rules: Rules) -> dict[str, Any]:
    kind = f"{u.unit_kind} {u.troop}"
    if u.troop == "artillery":
        kind += f", {u.guns} guns (fires as {ARTILLERY_ROWS[artillery_row(u, rules)]})"
    bonus = {"elite": " (+1 elite)", "conscript": " (−1 conscript)"}.get(u.quality, "")
    strength = f"{u.max_hits}" + ("" if u.strength is not None else bonus)
    state = (
        "at maximum hits (routing)"
        if u.hits >= u.max_hits
        else ("shaken" if u.hits == u.max_hits - 1 else "steady")
    )
    return {
        "side": u.side,
        "type": kind,
        "quality": u.quality + (" (sk)" if u.skirmish else ""),
        "strength (maximum hits)": strength,
        "hits": f"{u.hits} ({state})",
        "disordered": u.disordered,
        "formation": u.form.replace("_", " "),
        "terrain": u.terrain,
        "shooting marker": u.shooting_marker,
        "leader": u.leader or "none",
        "retreat blocked (1 hit instead)": u.retreat_blocked,
    }


def _cavalry_v_square(r: Rules) -> str:
    """How cavalry battling back against a square that attacked it scores."""
    if r.cavalry_square_sabers == "attacking":
        return (
            "ordinary scoring: infantry symbols and sabers hit, each flag is 1 hit on the "
            'square (cavalry_square_sabers = "attacking")'
        )
    flags = "do nothing" if r.cavalry_square_flags == "ignore" else "are 1 hit each"
    return f"only sabers hit (cavalry v infantry in square); its flags {flags}"


def _leader_contact(sc: VomKriegeScenario, a, att: Unit, ld, terrain: str) -> dict[str, Any]:
    """A leader contacted in melee: the attacker's dice at it, sabers only, and its retire."""
    r = sc.rules
    sec: dict[str, Any] = _batteries(sc, a, att)
    n, lines = melee_dice(
        att,
        None,
        True,
        r,
        order_bonus=a.order_bonus,
        supports=a.supports,
        uphill=a.uphill,
        opp_terrain=terrain,
        disordered=att.disordered or (att.troop == "cavalry" and a.through_rough),
    )
    p = sc.dice.p("saber")
    alone = a.target == ld.name
    if not alone and r.leader_with_unit == "retires":
        sec["the leader's fate"] = 'it retires, no dice at it (leader_with_unit = "retires")'
        return sec
    sec["attacker's dice at the leader"] = _dice_line(n, lines)
    sec["the leader's fate"] = (
        f"it must retire; only sabers hit ({p:.4g} a die), {ld.hits} of 3 hits already: "
        f"P(removed) = {1 - _below(n, p, 3 - ld.hits):.4f}, with its whole command"
    )
    if alone and a.follow_up:
        sec["follow-up"] = f"on {a.follow_up} (reaction {a.follow_up_reaction}) once it is gone"
    return sec


def _batteries(sc: VomKriegeScenario, a, att: Unit) -> dict[str, Any]:
    """The dice of each battery firing at the charger before contact."""
    by = {u.name: u for u in sc.units}
    out: dict[str, Any] = {}
    for b in a.batteries:
        n, lines = shooting_dice(by[b.unit], att, range_band(b.range), sc.rules)
        out[f'defensive fire by {b.unit} at {b.range:g}"'] = _dice_line(n, lines)
    return out


def _below(n: int, p: float, k: int) -> float:
    """P(fewer than ``k`` successes in ``n`` dice of chance ``p``)."""
    from math import comb

    return sum(comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(min(k, n + 1)))


def _dice_line(n: int, lines: list[str]) -> str:
    return f"{n} = " + ", ".join(lines) if n >= 0 else "cannot: " + lines[0]


def explain(sc: VomKriegeScenario) -> dict[str, dict[str, Any]]:
    """Sections for ``resolved()``: dice, units, leaders, each action's derived dice."""
    r = sc.rules
    by = {u.name: u for u in sc.units}
    att_f, def_f = sc._focus
    out: dict[str, dict[str, Any]] = {}
    dice = {"faces": ", ".join(sc.dice.faces)}
    for troop in ("infantry", "cavalry", "artillery"):
        ph, pf = hit_flag_probs(sc.dice, r, 0, troop)
        pm, _ = hit_flag_probs(sc.dice, r, 1, troop)
        dice[f"P(hit) per die vs {troop}"] = f"shooting {ph:.4g}, melee {pm:.4g}"
    dice["P(flag) per die"] = f"{pf:.4g}"
    out["dice"] = dice
    out["statistics report"] = {"attacker": att_f, "defender": def_f}
    for u in sc.units:
        out[f"unit: {u.name}"] = _unit_section(u, r)
    for ld in sc.leaders:
        n = sum(u.leader == ld.name for u in sc.units)
        out[f"leader: {ld.name}"] = {
            "side": ld.side,
            "role": "army leader" if ld.army else "command leader",
            "quality": f"L{ld.quality} ({ld.quality} command-dice rerolls)",
            "hits": f"{ld.hits} of 3",
            "units in command": ld.units if ld.units is not None else n,
            "stands with": ld.with_unit or "no unit (alone, or not in reach of a melee)",
        }
    leaders = {ld.name: ld for ld in sc.leaders}
    with_leader = {ld.with_unit: ld for ld in sc.leaders if ld.with_unit}
    for i, a in enumerate(sc.actions):
        att = by[a.actor]
        if a.target in leaders:
            out[f"action {i + 1}: {a.actor} melees leader {a.target}"] = _leader_contact(
                sc, a, att, leaders[a.target], "open"
            )
            continue
        tgt = by[a.target]
        sec: dict[str, Any] = {}
        if a.kind == "shoot":
            band = range_band(a.range)
            n, lines = shooting_dice(
                att,
                tgt,
                band,
                r,
                order_bonus=a.order_bonus,
                supports=a.supports,
                enfilade=a.enfilade,
                obscured=a.obscured,
            )
            sec["range"] = f'{a.range:g}" (band {band}: up to {(3, 6, 12, 18, 24)[band]}")'
            sec["battle dice (from the starting state)"] = _dice_line(n, lines)
            out[f"action {i + 1}: {a.actor} shoots {a.target}"] = sec
            continue
        sec["reaction"] = a.reaction + (" (policy: see docs)" if a.reaction == "auto" else "")
        if a.reaction == "retire" and tgt.retreat_blocked:
            sec["reaction"] = "retire: not possible, its retreat is blocked (none instead)"
        if att.troop == "cavalry" and (a.through_rough or tgt.terrain in ROUGH):
            sec["charge"] = "through/into rough terrain: attacker disordered before the melee"
        sq = sc.square_test() if i == 0 else None
        if sq is not None:
            sec["form-square test"] = f"{sq[0]} command dice, P(success) = {sq[1]:.4f}"
        elif tgt.troop == "infantry" and att.troop == "cavalry" and a.reaction == "form_square":
            nsq = square_test_dice(tgt.hits, tgt.disordered)
            p = square_test_probability(nsq, sc.dice)
            sec["form-square test"] = f"{nsq} command dice, P(success) = {p:.4f}"
        n, lines = shooting_dice(tgt, att, 0, r)
        squares = a.reaction == "form_square" or (
            a.reaction == "auto"
            and tgt.troop == "infantry"
            and att.troop == "cavalry"
            and tgt.terrain == "open"
            and tgt.form != "square"
        )
        fires = a.reaction == "defensive_fire" or (a.reaction == "auto" and tgt.troop != "cavalry")
        if n >= 0 and ((fires and not squares) or (squares and r.square_may_fire)):
            sec["defensive fire (from the starting state)"] = _dice_line(n, lines)
        sec.update(_batteries(sc, a, att))
        n, lines = melee_dice(
            att,
            tgt,
            True,
            r,
            order_bonus=a.order_bonus,
            supports=a.supports,
            uphill=a.uphill,
            disordered=att.disordered
            or (att.troop == "cavalry" and (a.through_rough or tgt.terrain in ROUGH)),
        )
        sec["attacker's melee dice (before reactions)"] = _dice_line(n, lines)
        ld = with_leader.get(a.target)
        if ld is not None:
            sec[f"leader {ld.name} stands with {a.target}"] = (
                "contacted too, it must retire first: "
                + _leader_contact(sc, a, att, ld, tgt.terrain)["the leader's fate"]
            )
        faces = not a.flank or tgt.form == "square" or tgt.terrain == "bua"
        retires = (
            a.reaction == "retire"
            and not tgt.retreat_blocked
            and (tgt.troop in ("cavalry", "artillery") or tgt.form == "open_order")
            and (att.troop == "infantry" or r.retire_vs_cavalry)
        )
        if retires:
            sec["battle back"] = "none (it retires: the attacker's dice hit only with sabers)"
        elif tgt.hits >= tgt.max_hits:
            sec["battle back"] = "none (at maximum hits: it faces away from the enemy)"
        elif tgt.troop in ("infantry", "cavalry") and faces:
            bb = a.defender_supports if r.battle_back_supports else 0
            n, lines = melee_dice(tgt, att, False, r, supports=bb)
            sec["defender's battle back dice (if it holds, before hits)"] = _dice_line(n, lines)
            if tgt.troop == "cavalry" and att.form == "square":
                sec["defender's battle back against the square"] = _cavalry_v_square(r)
        else:
            sec["battle back"] = "none (" + ("flank/rear attack)" if a.flank else "artillery)")
        if a.follow_up:
            when = "retreats, retires or is removed" if att.troop == "cavalry" else "retires"
            sec["follow-up"] = (
                f"on {a.follow_up} (reaction {a.follow_up_reaction}) if {a.target} {when}"
            )
            fl = with_leader.get(a.follow_up)
            if fl is not None:
                sec[f"leader {fl.name} stands with {a.follow_up}"] = (
                    "contacted too by the follow-up, it must retire first"
                )
        out[f"action {i + 1}: {a.actor} melees {a.target}"] = sec
    return out
