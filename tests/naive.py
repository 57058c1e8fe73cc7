"""Slow, obvious reference implementations (pure Python, one die at a time).

They read the scenario dataclasses directly and follow the rule text step by step, sharing no
code with the kernels, so agreement between the two is evidence that both follow the rules.
"""

from __future__ import annotations

import random

from oddslab.dice import DiceExpr
from oddslab.rulesets.generic import GenericScenario, Weapon, wound_threshold


def roll_expr(rng: random.Random, e: DiceExpr) -> int:
    return max(0, sum(rng.randint(1, e.sides) for _ in range(e.n)) + e.add)


def _result(d: int, need: int, crit: int, mod: int, nat1: bool, nat6: bool) -> int:
    if d >= crit:
        return 2 if (nat6 or d + mod >= need) else 0
    if d == 1 and nat1:
        return 0
    if d == 6 and nat6:
        return 1
    return 1 if d + mod >= need else 0


def _roll_with_reroll(rng, need, crit, mod, mode, nat1, nat6) -> int:
    d = rng.randint(1, 6)
    r = _result(d, need, crit, mod, nat1, nat6)
    if isinstance(mode, tuple):
        again = d in mode
    else:
        again = {
            "none": False,
            "ones": d == 1 and r == 0,
            "failed": r == 0,
            "non-critical": r != 2,
            "all": r != 2,
        }[mode]
    if again:
        d = rng.randint(1, 6)
        r = _result(d, need, crit, mod, nat1, nat6)
    return r


def generic_trial(rng: random.Random, sc: GenericScenario) -> dict[str, int]:
    """One trial of the generic pipeline, attack by attack."""
    t, rules = sc.target, sc.rules
    out = dict.fromkeys(
        ("attacks", "hits", "wounds", "unsaved", "mortal_wounds", "damage", "models_slain"), 0
    )
    alive = t.models
    cur = t.wounds - t.damaged

    def lose(points: int, spill: bool) -> None:
        nonlocal alive, cur
        if spill:
            for _ in range(points):
                if alive == 0:
                    return
                cur -= 1
                if cur == 0:
                    alive -= 1
                    out["models_slain"] += 1
                    cur = t.wounds
        elif alive > 0 and points > 0:
            if points >= cur:
                alive -= 1
                out["models_slain"] += 1
                cur = t.wounds
            else:
                cur -= points

    def damage_points(w: Weapon) -> int:
        dmg = roll_expr(rng, w.damage)
        if t.feel_no_pain is not None:
            dmg = sum(1 for _ in range(dmg) if rng.randint(1, 6) < t.feel_no_pain)
        return dmg

    for w in sc.weapons:
        mortal_queue = 0
        attacks = sum(roll_expr(rng, w.attacks) for _ in range(w.models))
        out["attacks"] += attacks
        need_w = w.wound if w.wound is not None else wound_threshold(w.strength, t.toughness)
        save = sc.save_needed(w)
        for _ in range(attacks):
            if w.torrent:
                hit = 1
            else:
                hit = _roll_with_reroll(
                    rng,
                    w.skill,
                    w.critical_hit,
                    w.hit_modifier,
                    w.reroll_hits,
                    rules.natural_one_fails,
                    rules.natural_six_succeeds,
                )
            if hit == 0:
                continue
            n_hits = 1 + (roll_expr(rng, w.sustained_hits) if hit == 2 else 0)
            out["hits"] += n_hits
            auto = 1 if (hit == 2 and w.lethal_hits) else 0
            wound_results = [1] * auto
            for _ in range(n_hits - auto):
                wound_results.append(
                    _roll_with_reroll(
                        rng,
                        need_w,
                        w.critical_wound,
                        w.wound_modifier,
                        w.reroll_wounds,
                        rules.natural_one_fails,
                        rules.natural_six_succeeds,
                    )
                )
            for r in wound_results:
                if r == 0:
                    continue
                out["wounds"] += 1
                if r == 2 and w.devastating_wounds:
                    out["unsaved"] += 1
                    mortal_queue += 1
                    continue
                d = rng.randint(1, 6)
                if save <= 6 and d >= save and not (d == 1 and rules.natural_one_fails):
                    continue
                out["unsaved"] += 1
                dmg = damage_points(w)
                out["damage"] += dmg
                lose(dmg, rules.spill == "spill")
        for _ in range(mortal_queue):
            dmg = damage_points(w)
            out["mortal_wounds"] += dmg
            out["damage"] += dmg
            lose(dmg, True)
    out["destroyed"] = int(alive == 0)
    return out
