"""What each step kind does in the fast hex platoon reference (see tests/fast_hex_platoon.py).

:class:`Steps` holds one method per step kind (``step_<kind>``), mixed into
:class:`fast_hex_platoon.Trials`, which keeps the units' states over the trials, the hit
ladder, the fair distribution and the (s)HQ tests; :func:`fire_numbers` works out what a firer
rolls from its counter (6.1, 1.3.4, 11.1). Written from the rule text and docs/hex-platoon.md.
"""

from __future__ import annotations

import numpy as np


def expected_hits(dice: int, aug: int, th: int) -> float:
    """E[min(successes of dice + aug d6 at th+, dice)] (an augmented attack's mean)."""
    from math import comb

    p = min(6, max(0, 7 - th)) / 6
    n = dice + aug
    return sum(comb(n, s) * p**s * (1 - p) ** (n - s) * min(s, dice) for s in range(n + 1))


def fire_numbers(u, vs_hard: bool, band: str, distance, rules, mortar: bool = False):
    """(dice, augmentation dice, To Hit) of ``u`` firing (6.1, 1.3.4, 11.1)."""
    ap = vs_hard and not mortar  # mortars attack hard and soft alike, with their HE
    dice, plus, th = (u.ap, u.ap_plus, u.to_hit) if ap else (u.he, u.he_plus, u.to_hit)
    aa_hard = u.type == "aa" and ap
    if aa_hard:  # 11.1: To Hit 6 at hard targets; AP if the counter has one, else blue
        if rules.aa_vs_hard == "blue" or u.ap == 0:
            dice, plus = u.aa, u.aa_plus
        th = 6
    aug = int(plus)
    reach = u.range
    for sw in u.support:
        if sw.augmented:
            aug += 1
        elif (sw.ap if ap else sw.he) > 0:  # employed only with firepower at this target
            dice += sw.ap if ap else sw.he
            reach += sw.range
    if rules.augment == "once":
        aug = min(aug, 1)
    if distance is not None:
        if distance <= reach // 2 and not u.range_underlined:
            band = "reduced"
        elif distance <= reach:
            band = "normal"
        else:
            band = "extended"
    if band == "reduced":
        th -= 1
    elif band == "extended":
        options = ([(dice, th + 1)] if th < 6 else []) + ([(dice - 1, th)] if dice > 1 else [])
        if rules.extended_range == "best-choice":
            best = max(expected_hits(d, aug, t) for d, t in options)
            dice, th = next(o for o in options if expected_hits(o[0], aug, o[1]) == best)
        else:
            dice, th = options[0]
    return dice, aug, th


class Steps:
    """The steps of a trial block (a mixin of ``Trials``)."""

    def step_fire(self, k, s, rec):
        f, t = self.ix[s.firer], self.ix[s.target]
        go = self.alive(f) & (self.dis[f] == 0) & (self.ops[f] == 0) & self.alive(t)
        if s.opportunity:  # at the stack of the latest move, if it entered the hex
            last = max(j for j in range(k) if self.sc.steps[j].kind == "move")
            go &= self.rec[last, 1] == 1
        else:
            go &= self.ooc[f] == 0  # 4.2: out of command, opportunity fire only
        firer, target = self.units[f], self.units[t]
        dice, aug, th = fire_numbers(firer, target.hard, s.band, s.distance, self.r)
        lead = self.lead(self.ix[s.hq]) if s.hq else 0
        dice, aug = self.with_lead(dice, aug, lead)
        hits = self.roll(dice, aug, th) * go
        self.ops[f] |= go
        hx = self.sc.hex(self.hex_of[target.name])
        conc = self.concealed(t).astype(np.int64)
        ip, after = hx.improved_position, self.r.improved_position == "after-saves"
        counted = np.maximum(hits - 1, 0) if (ip and not after) else hits
        if target.hard:
            db = hx.defence_hard
            bonus = np.minimum(db + conc, 2) if self.r.concealment_in_cap else min(db, 2) + conc
            if self.r.armor_bonus_cover_5plus:  # cover dice on 5+, armor on the Save Number
                saves = self.count(target.armor, target.save) + self.count(bonus, 5)
            else:
                saves = self.count(target.armor + bonus, target.save)
        else:
            saves = self.count(hx.defence + conc, 5)
        uns = np.maximum(counted - saves, 0) * go
        if ip and after:
            uns = np.maximum(uns - 1, 0)
        rec[0], rec[1], rec[2] = hits, uns, go
        if self.r.concealment_lost_after_fire:
            self.lost[t] |= go
        protect = self.r.concealed_infantry_not_reduced and target.infantry
        self.hit(t, uns, protect & (conc == 1))
        if s.opportunity:  # 6.2: a unit disrupted or reduced stops its stack
            h = self.hex_of[target.name]
            for i in self.stack(h):
                self.stopped[h] |= go & self.changed(i)

    def hex_attack(self, h, dice, aug, th, lead, air, go):
        """Mortar, artillery or aircraft attack on hex ``h``: (hits, unsaved)."""
        names = self.stack(h)
        living = np.array([self.alive(i) for i in names]).reshape(len(names), self.n)
        nl = living.sum(0)
        hx = self.sc.hex(h)
        hard = np.zeros(self.n, dtype=bool)
        soft = np.zeros(self.n, dtype=np.int64)
        for j, i in enumerate(names):
            hard |= living[j] & self.units[i].hard
            soft += living[j] & (not self.units[i].hard)
        sd = np.full(self.n, hx.defence)
        if air:  # 11.3: +1 if concealed (the hex: all its units, or any)
            c = np.array([self.concealed(i) | ~living[j] for j, i in enumerate(names)])
            c2 = np.array([self.concealed(i) & living[j] for j, i in enumerate(names)])
            if names:
                sd += c.all(0) if self.r.air_concealed == "all-units" else c2.any(0)
        else:
            if self.r.artillery_extra_die:  # more than 1 target in the hex: +1 die
                dice = dice + (nl > 1)
            sd = sd + hard  # +1 if there is at least 1 Hard Target
            if self.r.artillery_soft_extra_defence:
                per = soft if self.r.artillery_soft_extra_scope == "per-soft-unit" else 1
                sd = sd + np.where(hard & (soft > 0), per, 0)
        d2, a2 = self.with_lead(dice, aug, lead)
        hits = self.roll(d2, a2, th) * go
        ip, after = hx.improved_position, self.r.improved_position == "after-saves"
        counted = np.maximum(hits - 1, 0) if (ip and not after) else hits
        uns = np.maximum(counted - self.count(sd, 5), 0)
        if ip and after:
            uns = np.maximum(uns - 1, 0)
        uns = uns * go * (nl > 0)
        scope = self.r.concealed_infantry_not_reduced and (
            self.r.concealed_infantry_scope == "all-fire"
        )
        ign = (not air) and self.r.artillery_ignore_first_hard_hit
        self.share(names, uns, scope, ign)
        return hits, uns

    def can_call(self, i):
        """11.2: Good Order, in command, not yet acted (calling gives no marker)."""
        return self.alive(i) & (self.dis[i] == 0) & (self.ooc[i] == 0) & (self.ops[i] == 0)

    def step_mortar(self, k, s, rec):
        f = self.ix[s.firer]
        go = self.can_call(f)
        if s.spotter:
            go &= self.can_call(self.ix[s.spotter])
        self.ops[f] |= go
        rec[3] = go
        failed = np.zeros(self.n, dtype=bool)
        if s.spotter and self.r.mortar_mission_roll:  # as an artillery mission: 1 fails
            failed = go & (self.d6()[0] == 1)
        rec[2] = failed
        dice, aug, th = fire_numbers(self.units[f], False, s.band, s.distance, self.r, True)
        lead = self.lead(self.ix[s.hq]) if s.hq else 0
        rec[0], rec[1] = self.hex_attack(s.target, dice, aug, th, lead, False, go & ~failed)

    def step_artillery(self, k, s, rec):
        go = self.can_call(self.ix[s.spotter]) if s.spotter else np.ones(self.n, dtype=bool)
        rec[15] = go
        failed = go & (self.d6()[0] == 1)
        rec[0] = failed
        for m, h in enumerate(s.hexes):
            rec[1 + 2 * m], rec[2 + 2 * m] = self.hex_attack(
                h, s.firepower, 0, s.to_hit, 0, False, go & ~failed
            )

    def step_move(self, k, s, rec):
        names = self.stack(s.stack)
        hexunits = [self.ix[u.name] for u in self.sc.hex(s.stack).units]
        live = [self.alive(i) for i in names]
        go = ~self.stopped[s.stack] & np.any(live, axis=0)
        for i, a in zip(names, live, strict=True):  # out of command or marked: no move
            go &= ~(a & ((self.ooc[i] == 1) | self.done(i)))
        rec[1] = go
        h = self.hexes.index(s.stack)
        self.going = np.where(go, h, self.going)
        if self.r.move_ops_complete == "on-entering":
            for i in hexunits:
                self.ops[i] |= go
                self.mv[i] |= go
        else:
            self.moving = np.where(go, h, self.moving)
        if s.mines:  # 8.2: 2D6, each die >= 5 a hit (or one hit if the sum is >= 5)
            a, b = self.d6(2)
            hits = (
                (a + b >= 5).astype(np.int64)
                if self.r.mine_roll == "sum"
                else (a >= 5).astype(np.int64) + (b >= 5)
            )
            hits = hits * go
            rec[0] = hits
            if self.sc.hex(s.stack).improved_position and self.r.mines_improved_position:
                hits = np.maximum(hits - 1, 0)
            self.share(names, hits)
            if self.r.mines_stop_movement:
                for i in names:
                    self.stopped[s.stack] |= go & self.changed(i)

    def step_clear_mines(self, k, s, rec):
        ok = np.zeros(self.n, dtype=bool)
        for name in self.sc.step_units(k):
            i = self.ix[name]
            go = self.alive(i) & (self.ooc[i] == 0) & ~self.done(i)
            self.ops[i] |= go
            dice = self.d6(2 if self.units[i].type == "engineer" else 1)
            if self.r.clear_roll == "sum":
                even = dice.sum(0) % 2 == 0
            else:
                even = np.any(dice % 2 == 0, axis=0)
            ok |= go & even
        rec[0] = ok

    def step_rally(self, k, s, rec):
        for name in self.sc.step_units(k):
            i = self.ix[name]
            go = self.alive(i) & (self.dis[i] == 1)
            roll = self.d6(2).sum(0) + self.ooc[i] - self.lead(self.hq(self.hex_of[name]))
            back = go & (roll <= self.units[i].morale)
            self.dis[i] = np.where(back, 0, self.dis[i])
            rec[0] += back

    def step_command(self, k, s, rec):
        fail = self.d6(2).sum(0) > self.sc.command_morale(k)
        rec[0] = fail
        for u in self.sc.hex(s.stack).units:  # the hex is out of command, its (s)HQ too
            self.ooc[self.ix[u.name]] |= fail

    def step_assault(self, k, s, rec):
        self.melee(k, s, rec, over=False)

    def step_overrun(self, k, s, rec):
        self.melee(k, s, rec, over=True)

    def melee(self, k, s, rec, over: bool):
        att = [i for i in self.stack(s.attacker) if self.units[i].assault is not None]
        dfd = self.stack(s.defender)
        any_def = np.any([self.alive(i) for i in dfd], axis=0)
        go = ~self.stopped[s.attacker] & any_def
        able = {}
        for i in att:  # Good Order, in command, unmarked (overrun: not forced back)
            a = self.alive(i) & (self.dis[i] == 0) & (self.ooc[i] == 0) & ~self.done(i)
            if over:
                a &= self.gone[i] == 0
            able[i] = a
        rolls = [i for i in att if self.factor(i, s, 0, over)[0] > 0]
        go &= np.any([able[i] for i in rolls], axis=0) if rolls else False
        rec[4] = go
        self.going = np.where(go, self.hexes.index(s.attacker), self.going)
        la = self.lead(self.hq(s.attacker))
        ld = self.lead(self.hq(s.defender))
        a_hits = np.zeros(self.n, dtype=np.int64)
        d_hits = np.zeros(self.n, dtype=np.int64)
        for i in att:
            dice, aug, th = self.factor(i, s, 0, over)
            if dice == 0:
                continue
            lead = la if (not over and self.units[i].name == s.attacker_hq_unit) else 0
            d2, a2 = self.with_lead(dice, aug, lead, assault=True)
            a_hits += self.roll(d2, a2, th) * (go & able[i])
        for i in dfd:
            dice, aug, th = self.factor(i, s, 1, over)
            ddice, _a, _t = self.factor(i, s, 1, over, disrupted=True)
            dis = self.dis[i] == 1
            lead = ld if (not over and self.units[i].name == s.defender_hq_unit) else 0
            d2, a2 = self.with_lead(np.where(dis, ddice, dice), aug, lead, assault=True)
            a2 = np.where(d2 > 0, a2, 0)
            d_hits += self.roll(d2, a2, np.where(dis, 6, th)) * (go & self.alive(i))
        for i in dfd:
            self.ops[i] |= go
        ip = self.sc.hex(s.defender).improved_position
        counted = np.maximum(a_hits - 1, 0) if ip else a_hits
        rec[0], rec[1], rec[2] = a_hits, counted, d_hits
        self.share(dfd, counted)
        self.share_among(att, able, go, d_hits)
        for i in att:
            self.ops[i] |= go & able[i]
            self.mv[i] |= go & able[i]
        if over:  # 6.4: AFVs disrupted or reduced (not eliminated) go back
            back = np.zeros(self.n, dtype=np.int64)
            for i in att:
                b = go & able[i] & self.changed(i) & self.alive(i)
                self.gone[i] |= b
                back += b
            rec[3] = back
            return
        att_alive = np.any([able[i] & self.alive(i) for i in att], axis=0)
        def_alive = np.any([self.alive(i) for i in dfd], axis=0)
        took = go & att_alive & ~def_alive
        fight = go & att_alive & def_alive
        if self.r.assault_result == "literal":
            retreat = d_hits < counted
        else:  # the attacker retreats when it scored fewer hits than the defender
            retreat = counted < d_hits
        rec[3] = fight & retreat
        wins = fight & ~retreat
        rec[6] = took | wins
        rec[7] = wins & s.can_retreat
        trapped = wins & (not s.can_retreat)
        rec[5] = trapped
        for i in dfd:
            self.side[i] = np.where(trapped & self.alive(i), 2, self.side[i])

    def share_among(self, att, able, go, hits):
        """The defender's hits, fairly between the attackers that went in (per trial)."""
        if not att:
            return
        saved = [self.side[i].copy() for i in att]
        out = [~(go & able[i]) for i in att]
        for i, o in zip(att, out, strict=True):  # hide those that stayed behind
            self.side[i] = np.where(o, 2, self.side[i])
        self.share(att, hits * go)
        for i, o, s0 in zip(att, out, saved, strict=True):
            self.side[i] = np.where(o, s0, self.side[i])

    def factor(self, i, s, side: int, over: bool, disrupted: bool = False):
        """(dice, augmentation, Assault To Hit) of unit ``i`` in an assault or overrun (6.3,
        6.4), as a Good Order unit (``disrupted``: the dice it rolls when disrupted)."""
        u = self.units[i]
        if u.assault is None or (side == 0 and u.assault_counter_only and not over):
            return 0, 0, 7
        if over:
            if side == 0:
                return 3 * u.assault, int(u.assault_plus), u.assault_to_hit
            plus = u.assault_plus and self.r.overrun_defender_augmented
            return u.assault, int(plus), u.assault_to_hit
        other = s.defender if side == 0 else s.attacker
        them = self.sc.hex(other).units
        them = [x for x in them if x.type not in ("hq", "aircraft")]
        if side == 1:
            them = [x for x in them if x.assault is not None]
        afv_only = bool(them) and all(x.type == "afv" for x in them)
        city = self.sc.hex(s.defender).terrain == "city"
        dice, th = u.assault, u.assault_to_hit
        always = self.r.city_assault_bonus == "always"
        if disrupted:  # 6.3: hits on 6 only; no Good Order modifiers
            return dice + int(u.infantry and city and always), int(u.assault_plus), 6
        if u.infantry and afv_only:
            th -= 1
        if u.infantry and city and (afv_only or always):
            dice += 1
        return dice, int(u.assault_plus), th

    def step_air_strike(self, k, s, rec):
        plane = self.sc.unit(s.aircraft)
        acc = np.zeros(self.n, dtype=np.int64)
        for name in s.aa:  # 11.3: AA opportunity fire at the aircraft, blue firepower
            i = self.ix[name]
            u = self.units[i]
            go = self.alive(i) & (self.dis[i] == 0) & (self.ops[i] == 0)
            hits = self.roll(u.aa, int(u.aa_plus), u.to_hit)
            saved = self.count(plane.armor, plane.save)
            acc += np.maximum(hits - saved, 0) * go
            self.ops[i] |= go
        rec[0] = acc
        leaves = self.d6()[0] <= 3
        fate = np.where(acc >= 2, 4, np.where(acc == 1, np.where(leaves, 3, 2), 0))
        strikes = (acc == 0) | ((acc == 1) & self.r.disrupted_aircraft_strikes)
        a = self.d6()[0]
        rec[2] = np.where(strikes, np.where(a == 1, 1, np.where(a == 2, 2, 3)), 0)
        dice = (s.firepower or plane.he) - (a == 2)
        on = strikes & (a >= 2)
        astray = strikes & (a == 1)
        h1, u1 = self.hex_attack(s.target, dice, 0, plane.to_hit, 0, True, on)
        if s.adjacent:
            h2, u2 = self.hex_attack(s.adjacent, dice, 0, plane.to_hit, 0, True, astray)
        else:
            h2, u2 = self.roll(dice, 0, plane.to_hit) * astray, np.zeros(self.n, dtype=np.int64)
        hits = h1 + h2
        rec[3], rec[4], rec[6], rec[7] = hits, u1 + u2, u1, u2
        ret = hits
        if self.r.air_failed_strike_return == "zero-hits":
            ret = np.where(a == 1, 0, hits)
        over = self.d6()[0] < ret  # 1D6 >= hits before saves: back in the cup
        fate = np.where(acc == 0, over.astype(np.int64), fate)
        rec[1] = fate
        rec[5] = (fate == 0) | (fate == 2)
