"""``resolved()``: a formation-actions scenario as the program read it, in plain words."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from oddslab.rulesets.formation_actions.chain import pass_chances, strategy_probs
from oddslab.rulesets.formation_actions.model import Formation, Rules

if TYPE_CHECKING:  # pragma: no cover
    from oddslab.rulesets.formation_actions.compile import FormationActionsScenario

__all__ = ["resolved_view"]

_RULE_TEXT = {
    "action_penalty": {
        "suppressed": "-1 if any unit is suppressed (the text's sentence)",
        "shock": "-1 if the formation has any Shock (the modifier table)",
        "either": "one -1 if any unit is suppressed or it has Shock",
        "both": "-1 for a suppressed unit and another -1 for Shock",
    },
    "retain_limit": {
        "in-a-row": "never twice in a row",
        "once-per-turn": "at most once per army per turn",
    },
    "withdrawal": {
        "stays-broken": "withdraws, stays broken, rallies again next end phase",
        "removed": "withdraws out of play",
    },
    "break_check": {
        "immediate": "as soon as Shock reaches the threshold",
        "end-phase": "at the start of the end phase only",
    },
    "outside_timing": {
        "before-rally": "after the action phase, before rallying",
        "start-of-turn": "at the start of the turn, before the strategy roll",
    },
    "broken_shock": {
        "cap": "at most its units (what it counts as having when it rallies)",
        "accumulate": "keeps every point it gains while broken",
    },
}


def _default_mark(rules: Rules, key: str) -> str:
    return " (default)" if getattr(rules, key) == getattr(Rules(), key) else ""


def _chance(faces: int) -> str:
    return f"{faces}/6 = {100 * faces / 6:.1f}%"


def _modifiers(parts: list[tuple[int, str]]) -> str:
    txt = ", ".join(f"\u2212{v} {why}" for v, why in parts if v)
    return f" ({txt})" if txt else ""


def _formation_section(f: Formation, rules: Rules, can_retain: bool) -> dict[str, Any]:
    ch = pass_chances(f, rules)
    pen = rules.penalty(f.suppressed > 0, f.shock)
    pen_why = {
        "suppressed": "suppressed",
        "shock": "Shock",
        "either": "suppressed or Shock",
        "both": "suppressed and/or Shock",
    }[rules.action_penalty]
    near = 1 if f.enemy_within_8 else 0
    rpen = pen if rules.rally_action_penalty else 0
    sec: dict[str, Any] = {
        "command rating": f.command,
        "units": f.units,
        "suppressed units": f.suppressed,
        "Shock at the start": f.shock,
        "broken at the start": f.starts_broken,
        "breaks at": f"Shock >= {f.threshold}"
        + (" (default: its units)" if f.break_at is None else ""),
        "enemy within 8 tiles (end phase)": f.enemy_within_8,
        "outside Shock": f.outside_shock.describe(),
        "action test now": f"D6 <= {f.command - pen}: {_chance(ch['action'])}"
        + _modifiers([(pen, pen_why)]),
        "rally test (unbroken, with Shock)": f"D6 <= {f.command - near - rpen}: "
        f"{_chance(ch['rally'])}" + _modifiers([(near, "enemy near"), (rpen, pen_why)]),
        "rally test (broken)": f"D6 <= {f.command - 2 - near - rpen}: "
        f"{_chance(ch['rally_broken'])}"
        + _modifiers([(2, "broken"), (near, "enemy near"), (rpen, pen_why)]),
        "Shock after rallying from broken": f"{f.units} - {max(1, f.units // 2)} = "
        f"{f.units - max(1, f.units // 2)}",
    }
    if can_retain:
        sec["retaining test now"] = (
            f"D6 <= {f.command - pen - 1}: {_chance(ch['retain'])}"
            + _modifiers([(pen, pen_why), (1, "retaining")])
        )
    if pen == 0 and rules.action_penalty in ("shock", "either", "both"):
        later = pass_chances(f, rules, shock=1)
        sec["action test once it has Shock"] = _chance(later["action"])
    if f.points is not None:
        sec["points"] = f.points
    return sec


def resolved_view(sc: FormationActionsScenario) -> dict[str, dict[str, Any]]:
    """Ordered sections of label → value (see :class:`oddslab.engine.Simulatable`)."""
    a0, a1 = sc.armies
    r = sc.rules
    sp = strategy_probs(sc.armies, r)
    tie1 = (
        "reroll (default)"
        if r.first_turn_tie == "reroll"
        else f"{next(a.name for a in sc.armies if a.key == r.first_turn_tie)} takes it"
    )
    out: dict[str, dict[str, Any]] = {
        "game": {
            "turns": sc.turns,
            "strategy roll": f"{a0.name} D6+{a0.strategy} vs {a1.name} D6+{a1.strategy}: "
            f"{a0.name} higher {100 * sp['first']:.1f}%, {a1.name} higher "
            f"{100 * sp['second']:.1f}%, tie {100 * sp['tie']:.1f}%",
            "tie on turn 1": tie1,
            "P(" + a0.name + " wins the turn-1 strategy roll)": round(sp["first_turn1"], 6),
            "tie after turn 1": "goes to the side that did not win the previous turn",
            "rally order": "one at a time, alternating, higher strategy rating first "
            "(tie: this turn's strategy-roll winner); order does not change any probability",
        },
        "rules": {
            "action test": "D6 <= command rating after modifiers"
            + (", natural 1 passes" if r.natural_one_passes else "")
            + (", natural 6 fails" if r.natural_six_fails else "")
            + (
                ""
                if r.natural_one_passes or r.natural_six_fails
                else " (default: no natural rolls)"
            ),
            "the action test's -1": _RULE_TEXT["action_penalty"][r.action_penalty]
            + _default_mark(r, "action_penalty"),
            "retaining the initiative": "-1 on the next test; "
            + _RULE_TEXT["retain_limit"][r.retain_limit]
            + _default_mark(r, "retain_limit"),
            "failed action test": "Hold action only, +1 Shock, cannot retain",
            "rally test takes the action test's -1": str(r.rally_action_penalty).lower()
            + _default_mark(r, "rally_action_penalty"),
            "rally passed": "remove half the Shock rounded down, at least 1; a broken "
            "formation first counts as having Shock equal to its units",
            "broken formation fails to rally": _RULE_TEXT["withdrawal"][r.withdrawal]
            + _default_mark(r, "withdrawal"),
            "breaking checked": _RULE_TEXT["break_check"][r.break_check]
            + _default_mark(r, "break_check"),
            "outside Shock lands": _RULE_TEXT["outside_timing"][r.outside_timing]
            + _default_mark(r, "outside_timing"),
            "Shock of a broken formation": _RULE_TEXT["broken_shock"][r.broken_shock]
            + _default_mark(r, "broken_shock"),
        },
    }
    retain_text = {
        "never": "never",
        "always": "always (after every passed test, when allowed)",
    }
    for army in sc.armies:
        if army.retain == "if-chance":
            policy = (
                f"when the next formation's retaining test passes with chance >= "
                f"{army.retain_chance:g} (needs >= {army.retain_min_faces()}/6)"
            )
        else:
            policy = retain_text[army.retain]
        if army.retain != "never" and not army.can_retain:
            policy += " (cannot: a single formation)"
        out[f"army {army.key}: {army.name}"] = {
            "strategy rating": army.strategy,
            "formations": len(army.formations),
            "retain the initiative": policy,
            "next formation to act": {
                "listed": "the first listed not yet activated",
                "best-first": "the one most likely to pass (ties: listed order)",
                "worst-first": "the one least likely to pass (ties: listed order)",
            }[army.order],
            "on winning the strategy roll": f"goes {army.choose}",
        }
        for f in army.formations:
            out[f"formation {army.key}.{f.key}: {army.name} {f.name}"] = _formation_section(
                f, r, army.can_retain
            )
    return out
