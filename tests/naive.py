"""Slow, obvious reference implementations (pure Python, one die at a time).

They read the scenario dataclasses directly and follow the rule text step by step, sharing no
code with the kernels, so agreement between the two is evidence that both follow the rules.
"""

# ruff: noqa: B023  (generic_trial's helpers run inside the loop iteration that defines them)

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


def _roll_with_reroll(rng, need, crit, mod, mode, nat1, nat6, fail_upto=0) -> int:
    """One roll (re-rolled per ``mode``); an unmodified roll up to ``fail_upto`` always fails
    (Indirect Fire at an unseen target: 1-3)."""

    def result(d: int) -> int:
        return 0 if d <= fail_upto else _result(d, need, crit, mod, nat1, nat6)

    d = rng.randint(1, 6)
    r = result(d)
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
        r = result(d)
    return r


def _save_roll(
    rng, sc: GenericScenario, w: Weapon, critical: bool, left: dict | None = None
) -> bool:
    """True if the target saves; the rule text step by step (no shared lookup tables).
    ``left["save"]``: the defender's one-off re-roll is unspent (used on a failed save that no
    other re-roll touched and that a re-roll could pass)."""
    t, rules = sc.target, sc.rules
    ap = (
        0
        if t.ignore_ap
        else max(0, w.ap + (w.critical_wound_ap if critical else 0) - t.ap_reduction)
    )
    options = []  # (need, re-roll mode)
    sit = sc.situation
    cover = (t.cover or (w.indirect_fire and not sit.target_visible)) and not w.ignores_cover
    if t.save <= 6:
        need = t.save + ap
        if cover and not (rules.cover_limit and t.save <= 3 and ap == 0):
            need -= 1
        options.append((max(need, 2), t.reroll_saves))
    if t.invulnerable is not None:
        order = ("none", "ones", "failed")
        mode = max(t.reroll_saves, t.reroll_invulnerable, key=order.index)
        options.append((t.invulnerable, mode))

    def ok(d: int, need: int) -> bool:
        return d + t.save_modifier >= need and not (d == 1 and rules.natural_one_fails)

    def p_ok(need: int, mode: str) -> float:
        once = sum(ok(d, need) for d in range(1, 7)) / 6
        return (
            sum(
                once
                if (not ok(d, need) and (mode == "failed" or (mode == "ones" and d == 1)))
                else float(ok(d, need))
                for d in range(1, 7)
            )
            / 6
        )

    if not options:
        return False
    best = None
    for need, mode in options:  # the one more likely to save, armour on a tie
        if best is None or p_ok(need, mode) > p_ok(*best) + 1e-12:
            best = (need, mode)
    if best is None or p_ok(*best) == 0.0:
        return False
    need, mode = best
    d = rng.randint(1, 6)
    if not ok(d, need) and (mode == "failed" or (mode == "ones" and d == 1)):
        d = rng.randint(1, 6)
    elif not ok(d, need) and left is not None and left["save"] and mode == "none":
        left["save"] = False
        d = rng.randint(1, 6)
    return ok(d, need)


def damage_roll(rng, w: Weapon, left: dict) -> int:
    """One attack's damage roll: the weapon's re-roll (``ones``: the whole roll when a die shows
    1; ``below-average``), else, while ``left["damage"]`` (the attacker's one-off re-roll is
    unspent), a roll below the average re-rolled once."""
    dice = [rng.randint(1, w.damage.sides) for _ in range(w.damage.n)]
    value = max(0, sum(dice) + w.damage.add)
    if (w.reroll_damage == "ones" and 1 in dice) or (
        w.reroll_damage == "below-average" and value < w.damage.mean()
    ):
        value = roll_expr(rng, w.damage)
    elif (
        left["damage"]
        and dice
        and value < w.damage.mean()
        and not (w.reroll_damage == "ones" and w.damage.n > 1)  # its dice were looked at
    ):
        left["damage"] = False  # the attacker's one-off re-roll: first roll below average
        value = roll_expr(rng, w.damage)
    return value


def generic_trial(rng: random.Random, sc: GenericScenario) -> dict[str, int]:
    """One trial of the generic pipeline, attack by attack, in the documented order of allocation:
    per weapon the ordinary damage (as each attack resolves), then critical wounds with their
    own save/damage, then mortal wounds from critical hits, then from critical wounds, then
    devastating wounds (legacy rule); current-rule devastating wounds after every weapon."""
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

    def fnp(points: int, mortal: bool) -> int:
        thresholds = [t.feel_no_pain] if t.feel_no_pain is not None else []
        if mortal and t.feel_no_pain_mortal is not None:
            thresholds.append(t.feel_no_pain_mortal)
        if not thresholds:
            return points
        if mortal and rules.stack_feel_no_pain and len(thresholds) == 2:
            return sum(
                1
                for _ in range(points)
                if rng.randint(1, 6) < thresholds[0] and rng.randint(1, 6) < thresholds[1]
            )
        best = min(thresholds)
        return sum(1 for _ in range(points) if rng.randint(1, 6) < best)

    def attack_damage(w: Weapon, critical: bool, devastating: bool) -> int:
        """The damage characteristic of one attack: roll (re-roll), Melta, halve, add, subtract."""
        value = damage_roll(rng, w, left)
        if w.melta and half_range(w):
            value += w.melta
        modify = not devastating or rules.damage_modifiers_on_devastating
        if modify and t.halve_damage:
            value = -(-value // 2)
        if critical:
            value += w.critical_wound_damage
        if modify and t.damage_reduction and value >= 1:
            value = max(1, value - t.damage_reduction)
        return value

    def inflict(points: int, spill: bool, mortal: bool) -> None:
        points = fnp(points, mortal)
        out["damage"] += points
        if mortal:
            out["mortal_wounds"] += points
        lose(points, spill)

    sit = sc.situation
    # one-off re-rolls still unspent: the attacker's kind and the defender's save
    left = {k: sit.reroll_one == k for k in ("hit", "wound", "damage")}
    left["save"] = t.reroll_one == "save"

    def half_range(w: Weapon) -> bool:
        return sit.half_range if w.half_range is None else w.half_range

    spill = rules.spill == "spill"
    dev_later: list[tuple[Weapon, int]] = []
    for w in sc.weapons:
        unseen = w.indirect_fire and not sit.target_visible
        hit_mod = w.hit_modifier + (w.heavy and sit.remained_stationary) - unseen
        wound_mod = w.wound_modifier + (w.lance and sit.charged)
        if rules.modifier_cap:
            hit_mod = max(-1, min(1, hit_mod))
            wound_mod = max(-1, min(1, wound_mod))
        reroll_wounds = "failed" if w.twin_linked and w.reroll_wounds == "none" else w.reroll_wounds
        need_w = w.wound if w.wound is not None else wound_threshold(w.strength, t.toughness)
        crit_w = w.critical_wound
        for kw, x in w.anti:
            if kw in t.keywords:
                crit_w = min(crit_w, x)
        split = bool(
            w.devastating_wounds
            or w.critical_wound_ap
            or w.critical_wound_damage
            or w.critical_wound_mortals.max
        )
        mh_instead = w.critical_hit_mortals.max > 0 and w.critical_hit_mortals_instead
        mw_instead = w.critical_wound_mortals.max > 0 and w.critical_wound_mortals_instead
        crit_queue = 0
        mh_queue = 0
        mw_queue = 0
        dev_queue = 0

        def wound_normally(critical: bool) -> None:
            """A wound that goes to the save (critical: with the critical extras)."""
            if _save_roll(rng, sc, w, critical, None if critical else left):
                return
            out["unsaved"] += 1
            inflict(attack_damage(w, critical, False), spill, False)

        def roll_hit(mode) -> int:
            """One hit roll (re-rolled per ``mode``): 0 miss, 1 hit, 2 critical hit."""
            if w.torrent:
                return 1
            return _roll_with_reroll(
                rng, w.skill, w.critical_hit, hit_mod, mode,
                rules.natural_one_fails, rules.natural_six_succeeds, 3 if unseen else 0,
            )  # fmt: skip

        def one_off_hit(codes: list[int]) -> None:
            """The attacker's one-off re-roll: the first failed roll no re-roll touched."""
            if left["hit"] and w.reroll_hits in ("none", ()) and 0 in codes:
                left["hit"] = False
                codes[codes.index(0)] = roll_hit("none")

        def scored(r: int) -> list[int]:
            """The hits one hit roll scores (sustained hits after a critical)."""
            nonlocal mh_queue
            if r == 0:
                return []
            results = [r]
            if r == 2:
                results += [1] * roll_expr(rng, w.sustained_hits)
                if w.critical_hit_mortals.max > 0:
                    mh_queue += 1
            return results

        per_model = (w.rapid_fire if half_range(w) else 0) + (alive // 5 if w.blast else 0)
        n_attacks = sum(roll_expr(rng, w.attacks) + per_model for _ in range(w.models))
        first = [roll_hit(w.reroll_hits) for _ in range(n_attacks)]
        one_off_hit(first)
        hits: list[int] = []
        extra: list[int] = []
        for r in first:
            hits += scored(r)
            if r == 2:  # extra hit rolls (they grant none themselves)
                extra += [roll_hit(w.reroll_hits)
                          for _ in range(roll_expr(rng, w.critical_extra_attacks))]  # fmt: skip
        one_off_hit(extra)
        for r in extra:
            hits += scored(r)
        out["attacks"] += n_attacks + len(extra)
        for _ in range(1):
            for h in hits:
                out["hits"] += 1
                if h == 2 and mh_instead:
                    continue  # the mortal wounds replace the wound roll
                if h == 2 and w.lethal_hits:
                    out["wounds"] += 1
                    wound_normally(False)  # an ordinary (not critical) wound
                    continue
                r = _roll_with_reroll(
                    rng, need_w, crit_w, wound_mod, reroll_wounds,
                    rules.natural_one_fails, rules.natural_six_succeeds,
                )  # fmt: skip
                if r == 0 and left["wound"] and reroll_wounds in ("none", ()):
                    left["wound"] = False  # the attacker's one-off re-roll
                    r = _roll_with_reroll(
                        rng, need_w, crit_w, wound_mod, "none",
                        rules.natural_one_fails, rules.natural_six_succeeds,
                    )  # fmt: skip
                if r == 0:
                    continue
                out["wounds"] += 1
                if r == 1 or not split:
                    wound_normally(False)
                    continue
                if w.critical_wound_mortals.max > 0:
                    mw_queue += 1
                if w.devastating_wounds:
                    out["unsaved"] += 1
                    dev_queue += 1
                elif not mw_instead:
                    crit_queue += 1
        # the weapon's queued packets, in the documented order
        for _ in range(crit_queue):
            wound_normally(True)
        for _ in range(mh_queue):
            inflict(roll_expr(rng, w.critical_hit_mortals), True, True)
        for _ in range(mw_queue):
            inflict(roll_expr(rng, w.critical_wound_mortals), True, True)
        if rules.devastating_wounds == "legacy":
            for _ in range(dev_queue):
                inflict(attack_damage(w, True, True), True, True)
        else:
            dev_later.append((w, dev_queue))
    for w, n in dev_later:  # current rule: after every weapon, allocated without spill; an
        for _ in range(n):  # attack's damage with no save, not mortal wounds
            inflict(attack_damage(w, True, True), False, False)
    out["destroyed"] = int(alive == 0)
    # Hazardous: after the attacks, a D6 per model that fired such a weapon; a 1 destroys a
    # model, or a character / monster / vehicle suffers 3 mortal wounds instead
    dice = sum(w.models for w in sc.weapons if w.hazardous)
    if dice:
        a_models = sit.attacker_models or max(w.models for w in sc.weapons) or 1
        ones = sum(rng.randint(1, 6) == 1 for _ in range(dice))
        tough = {"character", "monster", "vehicle"} & set(sit.attacker_keywords)
        lost_w = (
            min(3 * ones, a_models * sit.attacker_wounds)
            if tough
            else (min(ones, a_models) * sit.attacker_wounds)
        )
        out["attacker_wounds_lost"] = lost_w
        out["attacker_models_lost_to_hazards"] = lost_w // sit.attacker_wounds
    total = t.models * t.wounds - t.damaged
    out["wounds_remaining"] = (alive - 1) * t.wounds + cur if alive > 0 else 0
    out["damage_dealt"] = total - out["wounds_remaining"]
    return out
