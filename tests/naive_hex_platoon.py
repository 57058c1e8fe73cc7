"""Slow, obvious pure-Python reference of the hex platoon rules (``random.Random(seed)``).

Works on the scenario objects directly (names, not arrays) and plays every step kind the
kernel plays, die by die, so tests can compare the two within a few standard errors and the
benchmark can time plain Python. It shares nothing with the kernel but the compiled
per-step numbers (``fire_numbers`` / ``melee_members``) and the statistic programme.
"""

from __future__ import annotations

import random

import numpy as np

from oddslab.rulesets.hex_platoon import layout as K
from oddslab.rulesets.hex_platoon.compile import _conceal_base


def d6(rng: random.Random) -> int:
    return rng.randint(1, 6)


def roll_hits(rng, dice, aug, th, lead=0, mode=1):
    """Roll dice (+ augmentation dice), ignore the lowest ``aug``, count those >= th."""
    if lead > 0:
        if mode == 0:
            dice += lead
        elif mode == 1:
            aug += lead
        elif mode == 2:
            aug += 1
        else:  # augment = "once": one augmentation die in all
            aug = 1
    rolls = sorted((d6(rng) for _ in range(dice + aug)), reverse=True)[:dice]
    return sum(1 for r in rolls if r >= th)


class Trial:
    def __init__(self, sc, rng):
        self.sc, self.rng, self.r = sc, rng, sc.rules
        self.u = {}
        for h in sc.hexes:
            for x in h.units:
                self.u[x.name] = dict(
                    side=1 if x.reduced else 0, dis=int(x.disrupted), ops=int(x.ops_complete),
                    ooc=int(x.out_of_command), clost=0, gone=0, hit=0, kill=0, hex=h.name, obj=x,
                    conc=_conceal_base(x, h), mv=0,
                )  # fmt: skip
        self.stopped = set()
        self.moving = None  # hex of the stack whose movement goes on (no marker yet)
        self.going = None  # hex of the stack in the middle of its movement (either mode)
        self.rec = np.zeros((len(sc.steps), K.NREC), dtype=np.int64)

    # -- helpers ---------------------------------------------------------------------------------
    def alive(self, n):
        return self.u[n]["side"] < 2

    def concealed(self, n):
        s = self.u[n]
        return s["conc"] and not s["ops"] and not s["clost"]

    def lead(self, hq):
        if not hq or not self.alive(hq):
            return 0
        x = self.u[hq]
        return x["obj"].leadership_reduced if x["side"] == 1 else x["obj"].leadership

    def mode(self, assault=False):
        if assault and self.r.hq_assault_bonus == "added":
            return 0
        m = {"added": 0, "augmented-by-rating": 1, "augmented-one-die": 2}[self.r.hq_bonus]
        return 3 if (m and self.r.augment == "once") else m

    def stack(self, h):
        return [x.name for x in self.sc.stack(h)]

    def hit(self, n, h, protect):
        s = self.u[n]
        if h <= 0:
            return 0
        if s["side"] >= 2:
            return h
        if protect:
            if not s["dis"]:
                s["dis"] = 1
                s["hit"] = 1
            return 0
        if self.r.hit_ladder == "one-step-per-attack":
            # this attack's hits so far (passed-on hits reach a unit again in the same attack)
            s["got"] = s.get("got", 0) + h
            was_dis = s["dis0"] if "dis0" in s else s["dis"]
            s.setdefault("dis0", s["dis"])
            s.setdefault("side0", s["side"])
            s["hit"] = 1
            steps = 1 if (was_dis or s["got"] > 1) else 0
            s["dis"] = 1
            s["side"] = min(s["side0"] + steps, 2)
            if s["side"] >= 2 and s["side0"] < 2:
                s["kill"] = 1
                need = 1 if was_dis else 2
                left = max(s["got"] - need, 0)
                s["got"] = need
                return left
            return 0
        left = h
        # hit by hit: the first disrupts a good-order unit, every other steps the unit down
        while left > 0 and s["side"] < 2:
            if not s["dis"]:
                s["dis"] = 1
            else:
                s["side"] += 1
            left -= 1
            s["hit"] = 1
        if s["side"] >= 2:
            s["kill"] = 1
        return left

    def share(self, names, h, protect_any=False, ign_hard=False):
        first = True
        while h > 0:
            living = [n for n in names if self.alive(n)]
            if not living:
                return
            q, r = divmod(h, len(living))
            extra = set(self.rng.sample(living, r))
            excess = 0
            ignoring = [n for n in living if self.u[n]["obj"].hard and q + (n in extra) > 0]
            if self.r.artillery_hard_ignore == "per-attack" and ignoring:
                ignoring = [self.rng.choice(ignoring)]  # one hit of the attack, not one each
            for n in living:
                g = q + (n in extra)
                if ign_hard and first and n in ignoring:
                    g -= 1
                prot = protect_any and self.u[n]["obj"].infantry and self.concealed(n)
                excess += self.hit(n, g, prot)
            first = False
            if self.r.excess_hits != "passed-on":
                return
            h = excess

    def hq_checks(self):
        for h in self.sc.hexes:
            hq = self.sc.hq_of(h.name)
            names = self.stack(h.name)
            if hq is None or not self.alive(hq.name) or not any(self.u[n]["hit"] for n in names):
                continue
            if names and not any(self.alive(n) for n in names):
                self.u[hq.name]["side"] = 2
                continue
            killed = any(self.u[n]["kill"] for n in names)
            if d6(self.rng) - (2 if killed else 0) <= 1:
                x = self.u[hq.name]
                if not (x["side"] == 1 and self.r.hq_reduced_again == "stays-reduced"):
                    x["side"] += 1
        for s in self.u.values():
            s["hit"] = s["kill"] = 0
            for key in ("got", "dis0", "side0"):
                s.pop(key, None)

    def hex_attack(self, h, dice, aug, th, lead, air):
        names = [n for n in self.stack(h) if self.alive(n)]
        if not names:
            return roll_hits(self.rng, dice, aug, th, lead, self.mode()), 0
        hard = any(self.u[n]["obj"].hard for n in names)
        soft = sum(not self.u[n]["obj"].hard for n in names)  # living soft targets
        sd = self.sc.hex(h).defence
        if air:
            c = [self.concealed(n) for n in names]
            sd += any(c) if self.r.air_concealed == "any-unit" else all(c)
        else:
            dice += 1 if (self.r.artillery_extra_die and len(names) > 1) else 0
            sd += hard
            if self.r.artillery_soft_extra_defence and hard and soft:
                sd += soft if self.r.artillery_soft_extra_scope == "per-soft-unit" else 1
        hits = roll_hits(self.rng, dice, aug, th, lead, self.mode())
        ip = self.sc.hex(h).improved_position
        after = self.r.improved_position == "after-saves"
        hh = max(hits - 1, 0) if (ip and not after) else hits
        saves = sum(d6(self.rng) >= 5 for _ in range(sd))
        uns = max(hh - saves, 0)
        if ip and after:
            uns = max(uns - 1, 0)
        prot = (
            self.r.concealed_infantry_not_reduced and self.r.concealed_infantry_scope == "all-fire"
        )
        ign = (not air) and self.r.artillery_ignore_first_hard_hit
        self.share(self.stack(h), uns, prot, ign)
        return hits, uns

    # -- steps ---------------------------------------------------------------------------------
    def can_call(self, n):
        x = self.u[n]
        return x["side"] < 2 and not x["dis"] and not x["ooc"] and not x["ops"]

    def mark(self, n, moving=False):
        """Ops Complete on ``n``; ``moving``: from the movement it is in the middle of."""
        self.u[n]["ops"] = 1
        self.u[n]["mv"] = self.u[n]["mv"] or int(moving)

    def done(self, n):
        """An Ops Complete marker from before its stack's current movement: ``n`` may not
        move, assault, overrun or clear mines (unless the marker bars fire only)."""
        x = self.u[n]
        return self.r.ops_complete_bars == "every-action" and x["ops"] and not x["mv"]

    def forget_movement(self, s):
        """A step that does not carry on the current movement ends it for these rules."""
        h = self.going
        if h is None:
            return
        if (s.kind == "fire" and s.opportunity) or (
            s.kind in ("move", "assault", "overrun") and h in (s.stack, s.attacker)
        ):
            return
        for n in self.u:
            self.u[n]["mv"] = 0
        self.going = None

    def end_movement(self, s):
        """The moving stack gets its Ops Complete markers once a step is not part of its
        movement (a further move, opportunity fire at it, its assault or overrun)."""
        h = self.moving
        if h is None:
            return
        same = (s.kind == "move" and s.stack == h) or (s.kind == "fire" and s.opportunity)
        same = same or (s.kind in ("assault", "overrun") and s.attacker == h)
        if not same:
            for x in self.sc.hex(h).units:
                self.u[x.name]["ops"] = 1
            self.moving = None

    def step(self, k):
        s = self.sc.steps[k]
        rec = self.rec[k]
        rng = self.rng
        self.end_movement(s)
        self.forget_movement(s)
        if s.kind == "fire":
            f, t = self.u[s.firer], self.u[s.target]
            if f["side"] >= 2 or f["dis"] or f["ops"] or t["side"] >= 2:
                return
            if s.opportunity:
                mv = max(j for j in range(k) if self.sc.steps[j].kind == "move")
                if not self.rec[mv, 1]:
                    return
            elif f["ooc"]:
                return
            rec[2] = 1
            fn = self.sc.step_fire(k)
            hits = roll_hits(rng, fn.dice, fn.aug, fn.to_hit, self.lead(s.hq), self.mode())
            f["ops"] = 1
            x = t["obj"]
            conc = int(self.concealed(s.target))
            hexo = self.sc.hex(t["hex"])
            after = self.r.improved_position == "after-saves"
            hh = max(hits - 1, 0) if (hexo.improved_position and not after) else hits
            if x.hard:
                db = hexo.defence_hard
                bonus = min(db, 2) + conc if not self.r.concealment_in_cap else min(db + conc, 2)
                if self.r.armor_bonus_cover_5plus:
                    saves = sum(d6(rng) >= x.save for _ in range(x.armor))
                    saves += sum(d6(rng) >= 5 for _ in range(bonus))
                else:
                    saves = sum(d6(rng) >= x.save for _ in range(x.armor + bonus))
            else:
                saves = sum(d6(rng) >= 5 for _ in range(hexo.defence + conc))
            uns = max(hh - saves, 0)
            if hexo.improved_position and after:
                uns = max(uns - 1, 0)
            rec[0], rec[1] = hits, uns
            if self.r.concealment_lost_after_fire:
                t["clost"] = 1
            self.hit(s.target, uns, self.r.concealed_infantry_not_reduced and x.infantry and conc)
            if s.opportunity and any(self.u[n]["hit"] for n in self.stack(t["hex"])):
                self.stopped.add(t["hex"])
        elif s.kind == "mortar":
            f = self.u[s.firer]
            ok = f["side"] < 2 and not f["dis"] and not f["ops"] and not f["ooc"]
            if s.spotter:
                ok = ok and self.can_call(s.spotter)
            if not ok:
                return
            f["ops"] = 1
            rec[3] = 1
            if s.spotter and self.r.mortar_mission_roll and d6(rng) == 1:
                rec[2] = 1
            else:
                fn = self.sc.step_fire(k)
                rec[0], rec[1] = self.hex_attack(
                    s.target, fn.dice, fn.aug, fn.to_hit, self.lead(s.hq), False
                )
        elif s.kind == "artillery":
            if s.spotter and not self.can_call(s.spotter):
                return
            rec[15] = 1
            if d6(rng) == 1:
                rec[0] = 1
                return
            for m, h in enumerate(s.hexes):
                rec[1 + 2 * m], rec[2 + 2 * m] = self.hex_attack(
                    h, s.firepower, 0, s.to_hit, 0, False
                )
        elif s.kind == "move":
            names = self.stack(s.stack)
            if s.stack in self.stopped or not any(self.alive(n) for n in names):
                return
            if any(self.alive(n) and self.u[n]["ooc"] for n in names):
                return
            if any(self.alive(n) and self.done(n) for n in names):
                return
            rec[1] = 1
            self.going = s.stack
            if self.r.move_ops_complete == "on-entering":
                for x in self.sc.hex(s.stack).units:
                    self.mark(x.name, moving=True)
            else:
                self.moving = s.stack
            if s.mines:
                a, b = d6(rng), d6(rng)
                hits = int(a + b >= 5) if self.r.mine_roll == "sum" else (a >= 5) + (b >= 5)
                rec[0] = hits
                if self.sc.hex(s.stack).improved_position and self.r.mines_improved_position:
                    hits = max(hits - 1, 0)
                self.share(names, hits)
                hit = any(self.u[n]["hit"] for n in names)
                if hit and self.r.mines_stop_movement:
                    self.stopped.add(s.stack)
        elif s.kind == "clear-mines":
            ok = False
            names = s.units or [
                x.name for x in self.sc.stack(s.stack) if x.infantry or x.type == "engineer"
            ]
            for n in names:
                if not self.alive(n) or self.u[n]["ooc"] or self.done(n):
                    continue
                self.u[n]["ops"] = 1
                dice = [d6(rng) for _ in range(2 if self.u[n]["obj"].type == "engineer" else 1)]
                even = (
                    sum(dice) % 2 == 0
                    if self.r.clear_roll == "sum"
                    else any(d % 2 == 0 for d in dice)
                )
                ok = ok or even
            rec[0] = ok
            return
        elif s.kind == "rally":
            for n in self.sc.step_units(k):
                x = self.u[n]
                if x["side"] >= 2 or not x["dis"]:
                    continue
                hq = self.sc.hq_of(x["hex"])
                roll = d6(rng) + d6(rng) + x["ooc"] - self.lead(hq.name if hq else "")
                if roll <= x["obj"].morale:
                    x["dis"] = 0
                    rec[0] += 1
            return
        elif s.kind == "command":
            if d6(rng) + d6(rng) > self.sc.command_morale(k):
                rec[0] = 1
                for n in self.stack(s.stack):
                    self.u[n]["ooc"] = 1
                hq = self.sc.hq_of(s.stack)
                if hq is not None:  # 4.2: the hex is out of command, its (s)HQ too
                    self.u[hq.name]["ooc"] = 1
            return
        elif s.kind in ("assault", "overrun"):
            self.melee(k)
        elif s.kind == "air-strike":
            self.air(k)
        self.hq_checks()

    def melee(self, k):
        s = self.sc.steps[k]
        rec = self.rec[k]
        rng = self.rng
        if s.attacker in self.stopped or not any(self.alive(n) for n in self.stack(s.defender)):
            return
        mem = self.sc.melee_members(k)
        over = s.kind == "overrun"
        part = [
            u.name for (u, side, *_r) in mem
            if side == 0 and self.alive(u.name) and not self.u[u.name]["dis"]
            and not self.u[u.name]["ooc"] and not (over and self.u[u.name]["gone"])
            and not self.done(u.name)
        ]  # fmt: skip
        if not any(dice > 0 for (u, side, dice, *_r) in mem if u.name in part):
            return
        rec[4] = 1
        self.going = s.attacker
        hq_a, hq_d = self.sc.hq_of(s.attacker), self.sc.hq_of(s.defender)
        la = self.lead(hq_a.name if hq_a else "")
        ld = self.lead(hq_d.name if hq_d else "")
        att = dfd = 0
        for u, side, dice, aug, th, gets, ddis, _t in mem:
            x = self.u[u.name]
            if x["side"] >= 2 or (dice == 0 and ddis == 0):
                continue
            if side == 0:
                if u.name not in part:
                    continue
                att += roll_hits(rng, dice, aug, th, la if gets else 0, self.mode(True))
            else:
                if x["dis"]:
                    dfd += roll_hits(rng, ddis, aug, 6, ld if gets else 0, self.mode(True))
                else:
                    dfd += roll_hits(rng, dice, aug, th, ld if gets else 0, self.mode(True))
        for n in self.stack(s.defender):
            self.u[n]["ops"] = 1
        eff = max(att - 1, 0) if self.sc.hex(s.defender).improved_position else att
        rec[0], rec[1], rec[2] = att, eff, dfd
        self.share(self.stack(s.defender), eff)
        self.share(part, dfd)
        if over:
            for n in part:
                self.mark(n, moving=True)
            back = [n for n in part if self.u[n]["hit"] and self.alive(n)]  # not eliminated
            for n in back:
                self.u[n]["gone"] = 1
            rec[3] = len(back)
            return
        for n in part:
            self.mark(n, moving=True)
        if not any(self.alive(n) for n in part):
            return
        if not any(self.alive(n) for n in self.stack(s.defender)):
            rec[6] = 1
            return
        retreat = dfd < eff if self.r.assault_result == "literal" else eff < dfd
        if retreat:
            rec[3] = 1
            return
        rec[6] = 1
        if s.can_retreat:
            rec[7] = 1
            return
        rec[5] = 1
        for n in self.stack(s.defender):
            x = self.u[n]
            if x["side"] < 2:
                x["side"] = 2
                x["hit"] = x["kill"] = 1

    def air(self, k):
        s = self.sc.steps[k]
        rec = self.rec[k]
        rng = self.rng
        air = self.sc.unit(s.aircraft)
        acc = 0
        for n in s.aa:
            x = self.u[n]
            if x["side"] >= 2 or x["dis"] or x["ops"]:
                continue
            o = x["obj"]
            hits = roll_hits(rng, o.aa, int(o.aa_plus), o.to_hit, 0, 0)
            saved = sum(d6(rng) >= air.save for _ in range(air.armor))
            acc += max(hits - saved, 0)
            x["ops"] = 1
        rec[0] = acc
        fate = 0
        if acc >= 2:
            fate = 4
        elif acc == 1:
            fate = 3 if d6(rng) <= 3 else 2
        if acc == 0 or (acc == 1 and self.r.disrupted_aircraft_strikes):
            a = d6(rng)
            rec[2] = 1 if a == 1 else (2 if a == 2 else 3)
            tgt = s.target if a >= 2 else (s.adjacent or None)
            dice = (s.firepower or air.he) - (1 if a == 2 else 0)
            if tgt is not None:
                hits, uns = self.hex_attack(tgt, dice, 0, air.to_hit, 0, True)
            else:
                hits, uns = roll_hits(rng, dice, 0, air.to_hit), 0
            rec[3], rec[4] = hits, uns
            rec[6 if a >= 2 else 7] = uns  # on the target hex / astray on the adjacent one
            if acc == 0:
                ret = 0 if (a == 1 and self.r.air_failed_strike_return == "zero-hits") else hits
                fate = 0 if d6(rng) >= ret else 1
        rec[1] = fate
        rec[5] = int(fate in (0, 2))


def state_code(x) -> int:
    return 3 if x["side"] >= 2 else (2 if x["side"] == 1 else int(bool(x["dis"])))


def detail_code(x) -> int:
    """0 good order, 1 disrupted, 2 reduced, 3 reduced and disrupted, 4 eliminated."""
    if x["side"] >= 2:
        return 4
    return (2 if x["side"] == 1 else 0) + int(bool(x["dis"]))


def simulate(sc, trials: int, seed: int) -> dict[str, np.ndarray]:
    """Histograms ``{stat name: counts}`` of ``trials`` pure-Python trials."""
    rng = random.Random(seed)
    stats, so, _h, _p = sc.stat_plan()
    names = [u.name for u in sc.units]
    counts = {st.name: np.zeros(st.nbins, dtype=np.int64) for st in stats}
    for _ in range(trials):
        t = Trial(sc, rng)
        for k in range(len(sc.steps)):
            t.step(k)
        for st, (kind, a, b, top) in zip(stats, so, strict=True):
            if kind == K.OK_STATE:
                v = state_code(t.u[names[a]])
            elif kind == K.OK_REC:
                v = int(t.rec[a, b])
            elif kind == K.OK_HEX_GE:
                v = sum(state_code(t.u[x.name]) >= b for x in sc.stack(sc.hexes[a].name))
            elif kind == K.OK_STATE_DETAIL:
                v = detail_code(t.u[names[a]])
            else:
                v = int(state_code(t.u[names[a]]) >= b)
            counts[st.name][min(v, top)] += 1
    return counts
