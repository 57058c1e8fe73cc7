"""Slow, obvious reference for a mixed generic target (groups of models, attached leaders).

One model at a time, the core rules step by step: an attack is allocated to a model (a model
that has lost wounds first; no character while a bodyguard model lives, unless the attack has
Precision; else the defender's order) and then saved with that model's save; damage and
feel-no-pain are that model's. A group's ``damaged`` model starts with those wounds lost; the
one-off re-rolls (``reroll_one``) are spent as in the simple reference ``naive.py``: the first
failed hit / wound roll no re-roll touched, the first damage roll below the average, the first
failed save of an ordinary wound that a re-roll could pass. Shares no code with the kernels (the hit and wound rolls reuse
the simple reference's dice helpers from ``naive.py``).
"""

# ruff: noqa: B023  (the helpers run inside the loop iteration that defines them)

from __future__ import annotations

import random
from dataclasses import replace

from naive import _roll_with_reroll, _save_roll, damage_roll, roll_expr

from oddslab.rulesets.generic import GenericScenario, Weapon, wound_threshold


def mixed_trial(rng: random.Random, sc: GenericScenario) -> dict[str, int]:
    t, rules = sc.target, sc.rules
    groups = list(t.groups)
    n = len(groups)
    alive = [g.models for g in groups]
    cur = [g.wounds - g.damaged for g in groups]
    order = (
        sorted(range(n), key=lambda i: groups[i].wounds)
        if rules.allocation == ("fewest-wounds")
        else list(range(n))
    )
    keywords = set(t.keywords) | {k for g in groups for k in g.keywords}
    out = dict.fromkeys(("attacks", "hits", "wounds", "unsaved", "mortal_wounds", "damage"), 0)
    sit = sc.situation
    # one-off re-rolls still unspent: the attacker's kind and the defender's save
    once = {k: sit.reroll_one == k for k in ("hit", "wound", "damage")}
    once["save"] = t.reroll_one == "save"

    def choose(precision: bool) -> int | None:
        """The model (its group) the rules allocate the next attack to."""
        chars = [i for i in range(n) if groups[i].character and alive[i]]
        if precision and chars:
            hurt = [i for i in chars if cur[i] < groups[i].wounds]
            return hurt[0] if hurt else [i for i in order if i in chars][0]
        bodyguard = any(alive[i] for i in range(n) if not groups[i].character)
        ok = [i for i in range(n) if alive[i] and not (bodyguard and groups[i].character)]
        hurt = [i for i in ok if cur[i] < groups[i].wounds]
        if hurt:
            return hurt[0]
        first = [i for i in order if i in ok]
        return first[0] if first else None

    def view(i: int):
        """The target as a model of group ``i`` meets an attack."""
        g = groups[i]
        return replace(
            sc, target=replace(t, groups=(), models=g.models, wounds=g.wounds, save=g.save,
                               invulnerable=g.invulnerable, feel_no_pain=g.feel_no_pain,
                               reroll_invulnerable="none" if g.invulnerable is None
                               else t.reroll_invulnerable),
            rules=replace(rules, allocation="listed", stack_feel_no_pain=False),
        )  # fmt: skip

    def through(i: int, mortal: bool) -> bool:
        """One damage point on a model of group ``i`` survives its feel-no-pain."""
        thresholds = [x for x in (groups[i].feel_no_pain,) if x is not None]
        if mortal and t.feel_no_pain_mortal is not None:
            thresholds.append(t.feel_no_pain_mortal)
        if not thresholds:
            return True
        if mortal and rules.stack_feel_no_pain and len(thresholds) == 2:
            return rng.randint(1, 6) < thresholds[0] and rng.randint(1, 6) < thresholds[1]
        return rng.randint(1, 6) < min(thresholds)

    def lose(i: int, points: int) -> int:
        """A model of group ``i`` loses ``points`` wounds; returns the excess."""
        if points >= cur[i]:
            excess = points - cur[i]
            alive[i] -= 1
            cur[i] = groups[i].wounds
            return excess
        cur[i] -= points
        return 0

    def inflict(points: int, spill: bool, mortal: bool, precision: bool) -> None:
        if spill:  # point by point, each to the model the rules choose then
            for _ in range(points):
                i = choose(precision)
                if i is None:
                    return
                if through(i, mortal):
                    out["damage"] += 1
                    out["mortal_wounds"] += mortal
                    lose(i, 1)
            return
        i = choose(precision)
        if i is None:
            return
        got = sum(through(i, mortal) for _ in range(points))
        out["damage"] += got
        out["mortal_wounds"] += got if mortal else 0
        if got:
            lose(i, got)

    def damage_of(w: Weapon, critical: bool, devastating: bool) -> int:
        value = damage_roll(rng, w, once)
        modify = not devastating or rules.damage_modifiers_on_devastating
        if modify and t.halve_damage:
            value = -(-value // 2)
        if critical:
            value += w.critical_wound_damage
        if modify and t.damage_reduction and value >= 1:
            value = max(1, value - t.damage_reduction)
        return value

    spill = rules.spill == "spill"
    dev_later: list[tuple[Weapon, int]] = []
    for given, w in zip(sc.weapons, sc.fired, strict=True):
        # situational keywords are the simple reference's concern: use the fired profile
        unseen = given.indirect_fire and not sit.target_visible
        prec = w.precision
        hit_mod, wound_mod = w.hit_modifier, w.wound_modifier
        if rules.modifier_cap:
            hit_mod, wound_mod = max(-1, min(1, hit_mod)), max(-1, min(1, wound_mod))
        # the unit's toughness now: its toughest living bodyguard model, else character
        guards = [g.toughness or t.toughness for i, g in enumerate(groups)
                  if alive[i] and not g.character]  # fmt: skip
        chars = [g.toughness or t.toughness for i, g in enumerate(groups) if alive[i]]
        tough = max(guards) if guards else max(chars, default=t.toughness)
        need_w = w.wound if w.wound is not None else wound_threshold(w.strength, tough)
        crit_w = min([w.critical_wound, *(x for kw, x in w.anti if kw in keywords)])
        split = bool(w.devastating_wounds or w.critical_wound_ap or w.critical_wound_damage
                     or w.critical_wound_mortals.max)  # fmt: skip
        queues = {"crit": 0, "mh": 0, "mw": 0, "dev": 0}

        def roll_hit() -> int:
            if w.torrent:
                return 1
            return _roll_with_reroll(
                rng, w.skill, w.critical_hit, hit_mod, w.reroll_hits, rules.natural_one_fails,
                rules.natural_six_succeeds, 3 if unseen else 0,
            )  # fmt: skip

        def wound_normally(critical: bool) -> None:
            i = choose(prec)
            if i is None:
                return  # the unit is gone: nothing more is rolled for it
            if _save_roll(rng, view(i), w, critical, None if critical else once):
                return
            out["unsaved"] += 1
            inflict(damage_of(w, critical, False), spill, False, prec)

        left = sum(alive)
        n_att = sum(roll_expr(rng, w.attacks) + (left // 5 if w.blast else 0)
                    for _ in range(w.models))  # fmt: skip

        def one_off_hit(codes: list[int]) -> None:
            """The attacker's one-off re-roll: the first failed roll no re-roll touched."""
            if once["hit"] and w.reroll_hits in ("none", ()) and 0 in codes:
                once["hit"] = False
                i = codes.index(0)
                codes[i] = _roll_with_reroll(
                    rng, w.skill, w.critical_hit, hit_mod, "none", rules.natural_one_fails,
                    rules.natural_six_succeeds, 3 if unseen else 0,
                )  # fmt: skip

        rolls = [roll_hit() for _ in range(n_att)]
        if not w.torrent:
            one_off_hit(rolls)
        extra = [roll_hit() for r in rolls if r == 2
                 for _ in range(roll_expr(rng, w.critical_extra_attacks))]  # fmt: skip
        if not w.torrent:
            one_off_hit(extra)
        out["attacks"] += n_att + len(extra)
        hits = []
        for r in rolls + extra:
            if r:
                hits.append(r)
                hits += [1] * (roll_expr(rng, w.sustained_hits) if r == 2 else 0)
                queues["mh"] += r == 2 and w.critical_hit_mortals.max > 0
        out["hits"] += len(hits)
        to_wound = []
        for h in hits:
            if h == 2 and w.critical_hit_mortals.max > 0 and w.critical_hit_mortals_instead:
                continue
            if h == 2 and w.lethal_hits:
                to_wound.append(1)  # an automatic ordinary wound
                continue
            r = _roll_with_reroll(rng, need_w, crit_w, wound_mod, w.reroll_wounds,
                                  rules.natural_one_fails, rules.natural_six_succeeds)  # fmt: skip
            if r == 0 and once["wound"] and w.reroll_wounds in ("none", ()):
                once["wound"] = False  # the attacker's one-off re-roll
                r = _roll_with_reroll(rng, need_w, crit_w, wound_mod, "none",
                                      rules.natural_one_fails, rules.natural_six_succeeds)  # fmt: skip
            if r:
                to_wound.append(r)
        out["wounds"] += len(to_wound)
        for r in to_wound:
            if r == 1 or not split:
                wound_normally(False)
                continue
            queues["mw"] += w.critical_wound_mortals.max > 0
            if w.devastating_wounds:
                out["unsaved"] += 1
                queues["dev"] += 1
            elif not (w.critical_wound_mortals.max > 0 and w.critical_wound_mortals_instead):
                queues["crit"] += 1
        for _ in range(queues["crit"]):
            wound_normally(True)
        for _ in range(queues["mh"]):
            inflict(roll_expr(rng, w.critical_hit_mortals), True, True, False)
        for _ in range(queues["mw"]):
            inflict(roll_expr(rng, w.critical_wound_mortals), True, True, False)
        if rules.devastating_wounds == "legacy":
            for _ in range(queues["dev"]):
                inflict(damage_of(w, True, True), True, True, prec)
        else:
            dev_later.append((w, queues["dev"]))
    for w, k in dev_later:
        for _ in range(k):
            inflict(damage_of(w, True, True), False, False, w.precision)
    lost = {g.name: g.models - alive[i] for i, g in enumerate(groups)}
    out["models_slain"] = sum(lost.values())
    out["destroyed"] = int(sum(alive) == 0)
    out["wounds_remaining"] = sum(
        (alive[i] - 1) * g.wounds + cur[i] for i, g in enumerate(groups) if alive[i]
    )
    start = sum(g.models * g.wounds - g.damaged for g in groups)
    out["damage_dealt"] = start - out["wounds_remaining"]
    out["lost"] = lost
    chars = [i for i, g in enumerate(groups) if g.character]
    out["leader_slain"] = int(bool(chars) and all(alive[i] == 0 for i in chars))
    return out
