"""A fast, independent reference of the hex platoon rules: numpy, vectorised across trials.

Written from the rule text (/work/shared/rules/hex-platoon.txt) and the readings of
docs/hex-platoon.md, not from the kernel, the compiled tables or the naive reference: it
works out what each unit rolls itself (firepower, support weapons, range bands, augmentation,
AA at hard targets, assault and overrun factors) from the scenario objects' fields. It reads
only the scenario's bookkeeping from the package: its units, hexes and steps, which units a
``rally`` / ``clear-mines`` step names (``step_units``), a ``command`` step's morale, and the
statistic programme (``stat_plan``: which statistic reads which unit or record).

Every trial is a column: each unit's state is an array over the trials, each step acts on
all trials at once with masks for its branches, and the loops run only over steps, units and
dice. About 1-3 us per trial on the switch scenarios, so the 10^6 trials a 0.5 percentage
point comparison needs cost about a second where the pure-Python reference would take
minutes. Records (per step, ``rec[field]``) follow the layout the statistic programme reads:

- fire: 0 hits, 1 unsaved, 2 fired; mortar: 0 hits, 1 unsaved, 2 mission failed, 3 fired;
- artillery: 0 failed, 1 + 2m / 2 + 2m hits / unsaved on hex m, 15 called;
- move: 0 mine hits, 1 entered; clear-mines, rally, command: 0 cleared / rallied / failed;
- assault, overrun: 0 attacker's hits, 1 counting (improved position), 2 defender's hits,
  3 attacker retreated (overrun: AFVs forced back), 4 made, 5 defender eliminated unable to
  retreat, 6 attacker took the hex, 7 defender retreated;
- air strike: 0 hits on the aircraft, 1 fate, 2 accuracy, 3 hits, 4 unsaved, 5 back in the
  cup, 6 unsaved on the target hex, 7 unsaved astray.
"""

from __future__ import annotations

import numpy as np

from oddslab.rulesets.hex_platoon import layout as K

CONCEALING = ("wood", "city", "rough", "cultivated", "wreck")
NREC = 16
BLOCK = 100_000  # trials per vectorised block (memory stays flat in the trial count)


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


class Trials:
    """``n`` trials of scenario ``sc`` played together (``rng``: a numpy Generator)."""

    def __init__(self, sc, n: int, rng: np.random.Generator):
        self.sc, self.n, self.rng, self.r = sc, n, rng, sc.rules
        self.units = list(sc.units)
        self.ix = {u.name: i for i, u in enumerate(self.units)}
        self.hex_of = {u.name: h.name for h in sc.hexes for u in h.units}
        nu = len(self.units)
        z = np.zeros((nu, n), dtype=np.int8)  # small states: cheap copies

        def col(f):
            v = np.array([f(u) for u in self.units], dtype=np.int8)[:, None]
            return np.broadcast_to(v, (nu, n)).copy()

        self.side = col(lambda u: 1 if u.reduced else 0)  # 0 full, 1 reduced, 2 eliminated
        self.dis = col(lambda u: int(u.disrupted))
        self.ops = col(lambda u: int(u.ops_complete))
        self.ooc = col(lambda u: int(u.out_of_command))
        self.mv = z.copy()  # marker from the movement under way (does not stop it)
        self.lost = z.copy()  # concealment lost (concealment_lost_after_fire)
        self.gone = z.copy()  # AFV forced back by an overrun
        self.conc0 = np.array([self._conceal(u) for u in self.units], dtype=bool)
        self.stopped = {h.name: np.zeros(n, dtype=bool) for h in sc.hexes}
        self.moving = np.full(n, -1)  # hex index of the stack that moved and is not marked
        self.going = np.full(n, -1)  # hex index of the stack whose movement goes on
        self.hexes = [h.name for h in sc.hexes]
        self.rec = np.zeros((len(sc.steps), NREC, n), dtype=np.int16)

    # -- the rules' vocabulary ------------------------------------------------------------------
    def _conceal(self, u) -> bool:
        """6.1: concealing terrain (cultivated: infantry only) or an improved position, not
        adjacent to a Good Order enemy, not spotted (the Ops Complete part is per trial)."""
        if u.concealed != "auto":
            return u.concealed == "yes"
        hx = self.sc.hex(self.hex_of[u.name])
        terrain = hx.terrain in CONCEALING and (hx.terrain != "cultivated" or u.infantry)
        return bool((terrain or hx.improved_position) and not u.adjacent_enemy and not u.spotted)

    def d6(self, k: int = 1) -> np.ndarray:
        return self.rng.integers(1, 7, size=(k, self.n), dtype=np.int8)

    def alive(self, i):
        return self.side[i] < 2

    def concealed(self, i):
        return self.conc0[i] & (self.ops[i] == 0) & (self.lost[i] == 0)

    def done(self, i):
        """A marker from before the movement under way: no move, assault, overrun, clearing."""
        if self.r.ops_complete_bars == "fire":
            return np.zeros(self.n, dtype=bool)
        return (self.ops[i] == 1) & (self.mv[i] == 0)

    def stack(self, h: str) -> list[int]:
        """Units of hex ``h`` that take hits (not (s)HQs or aircraft)."""
        return [self.ix[u.name] for u in self.sc.hex(h).units if u.type not in ("hq", "aircraft")]

    def hq(self, h: str) -> int | None:
        return next((self.ix[u.name] for u in self.sc.hex(h).units if u.type == "hq"), None)

    def lead(self, i) -> np.ndarray:
        """Leadership an (s)HQ lends now: its side's rating, none once eliminated."""
        if i is None:
            return np.zeros(self.n, dtype=np.int64)
        u = self.units[i]
        s = self.side[i]
        return np.where(s == 0, u.leadership, np.where(s == 1, u.leadership_reduced, 0))

    def with_lead(self, dice, aug, lead, assault: bool = False):
        """Dice and augmentation after an (s)HQ's leadership (Additional Rule: an augmented
        firepower bonus, one die per point by default)."""
        mode = self.r.hq_bonus
        if assault and self.r.hq_assault_bonus == "added":
            mode = "added"
        if mode == "added":
            return dice + lead, aug
        if mode == "augmented-by-rating":
            aug = aug + lead
        else:
            aug = aug + (lead > 0)
        # augment = "once": the counter's +, a + weapon and the (s)HQ give one die in all
        return dice, (np.minimum(aug, 1) if self.r.augment == "once" else aug)

    def roll(self, dice, aug, th) -> np.ndarray:
        """Hits: successes of ``dice + aug`` d6 at ``th``+, the ``aug`` lowest dice ignored
        (so at most ``dice``); every argument a scalar or an array over the trials."""
        dice = np.broadcast_to(np.asarray(dice, dtype=np.int64), (self.n,))
        tot = dice + np.broadcast_to(np.asarray(aug, dtype=np.int64), (self.n,))
        m = int(tot.max(initial=0))
        if m == 0:
            return np.zeros(self.n, dtype=np.int64)
        d = self.d6(m)
        ok = (d >= np.asarray(th)) & (np.arange(m)[:, None] < tot)
        return np.minimum(ok.sum(0), dice)

    def count(self, dice, need) -> np.ndarray:
        """Successes of ``dice`` d6 at ``need``+ (saves)."""
        return self.roll(dice, 0, need)

    # -- hits ----------------------------------------------------------------------------------
    def begin_attack(self):
        self.side0, self.dis0 = self.side.copy(), self.dis.copy()
        if self.r.hit_ladder == "one-step-per-attack":
            self.got = np.zeros(self.side.shape, dtype=np.int64)

    def hit(self, i, h, protect=False) -> np.ndarray:
        """``h`` hits on unit ``i`` (arrays); returns the hits beyond its elimination."""
        left = np.where(self.side[i] >= 2, h, 0)
        h = np.where(self.side[i] < 2, h, 0)
        if np.any(protect):
            p = np.broadcast_to(protect, (self.n,)) & (h > 0)
            self.dis[i] = np.where(p, 1, self.dis[i])  # disrupted at worst, surplus spent
            h = np.where(p, 0, h)
        if self.r.hit_ladder == "one-step-per-attack":
            # one attack (its passed-on hits included) disrupts and steps down at most once
            self.got[i] += h
            g = self.got[i]
            took = g > 0
            step = took & ((self.dis0[i] == 1) | (g > 1))
            new = np.where(took, np.minimum(self.side0[i] + step, 2), self.side[i])
            killed = (new >= 2) & (self.side0[i] < 2) & (self.side[i] < 2) & took
            need = np.where(self.dis0[i] == 1, 1, 2)
            extra = np.where(killed, np.maximum(g - need, 0), 0)
            self.got[i] = np.where(killed, need, g)
            self.side[i] = new
            self.dis[i] = np.where(took, 1, self.dis[i])
            return left + extra
        # 6.1: the first hit disrupts a Good Order unit, every further hit steps it down
        first = (h > 0) & (self.dis[i] == 0)
        self.dis[i] = np.where(h > 0, 1, self.dis[i])
        steps = h - first
        room = 2 - self.side[i]
        self.side[i] = self.side[i] + np.minimum(steps, room)
        return left + np.maximum(steps - room, 0)

    def share(self, names: list[int], h, protect_any=False, ign_hard=False):
        """Fair distribution: floor(h / n) each, the odd hits to distinct living units drawn
        at random; the excess lost or passed on to the units still alive (excess_hits)."""
        h = np.asarray(h, dtype=np.int64).copy()
        first = True
        while np.any(h > 0) and names:
            living = np.array([self.alive(i) for i in names])  # (units, n)
            nl = living.sum(0)
            q = np.where(nl > 0, h // np.maximum(nl, 1), 0)
            odd = np.where(nl > 0, h % np.maximum(nl, 1), 0)
            key = np.where(living, self.rng.random(living.shape), 2.0)
            rank = sum((key[j] < key).astype(np.int64) for j in range(len(names)))
            g = (q + (rank < odd)) * living  # hits given to each unit, (units, n)
            if ign_hard and first:
                hard = np.array([self.units[i].hard for i in names])[:, None] & (g > 0)
                if self.r.artillery_hard_ignore == "per-attack":  # one hit of the attack
                    k2 = np.where(hard, self.rng.random(hard.shape), 2.0)
                    hard = hard & (k2 == k2.min(0)) & (k2 < 2)
                g = g - hard
            excess = np.zeros(self.n, dtype=np.int64)
            for j, i in enumerate(names):
                prot = protect_any & self.units[i].infantry & self.concealed(i)
                excess += self.hit(i, g[j], prot)
            first = False
            if self.r.excess_hits != "passed-on":
                return
            h = np.where(nl > 0, excess, 0)

    def hq_checks(self):
        """1.3.2 after an attack: an (s)HQ whose hex's units are all eliminated goes too;
        one whose hex had a unit disrupted or reduced rolls 1D6 (-2 if one was destroyed):
        1 reduces it (reduced again: eliminated, or stays reduced)."""
        for h in self.hexes:
            q = self.hq(h)
            names = self.stack(h)
            if q is None or not names:
                continue
            hit = np.zeros(self.n, dtype=bool)
            kill = np.zeros(self.n, dtype=bool)
            for i in names:
                hit |= (self.side[i] != self.side0[i]) | (self.dis[i] != self.dis0[i])
                kill |= (self.side[i] >= 2) & (self.side0[i] < 2)
            live = self.alive(q) & hit
            all_dead = np.all([self.side[i] >= 2 for i in names], axis=0)
            roll = self.d6()[0] - 2 * kill <= 1
            red = live & ~all_dead & roll
            if self.r.hq_reduced_again == "stays-reduced":
                red &= self.side[q] == 0
            self.side[q] = np.where(live & all_dead, 2, self.side[q] + red)

    def changed(self, i):
        return (self.side[i] != self.side0[i]) | (self.dis[i] != self.dis0[i])

    # -- steps ---------------------------------------------------------------------------------
    def run(self):
        for k, s in enumerate(self.sc.steps):
            self.movement(s)
            self.begin_attack()
            getattr(self, "step_" + s.kind.replace("-", "_"))(k, s, self.rec[k])
            if s.kind not in ("rally", "command", "clear-mines"):
                self.hq_checks()
        return self

    def movement(self, s):
        """5.0: a moving stack is marked when its movement is over: the first step that is not
        its move, its assault or overrun or opportunity fire. Markers from the movement under
        way do not stop it; once it is over they do."""
        opp = s.kind == "fire" and s.opportunity
        mover = s.stack if s.kind == "move" else s.attacker
        goes = self.hexes.index(mover) if s.kind in ("move", "assault", "overrun") else -2
        if not opp:
            over = (self.moving >= 0) & (self.moving != goes)
            for h, name in enumerate(self.hexes):
                m = over & (self.moving == h)
                for u in self.sc.hex(name).units:
                    self.ops[self.ix[u.name]] |= m
            self.moving = np.where(over, -1, self.moving)
            forget = (self.going >= 0) & (self.going != goes)
            self.mv[:, forget] = 0
            self.going = np.where(forget, -1, self.going)

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


def _state(side, dis):
    return np.where(side >= 2, 3, np.where(side == 1, 2, dis))


def _detail(side, dis):
    return np.where(side >= 2, 4, np.where(side == 1, 2, 0) + dis)


def simulate(sc, trials: int, seed: int) -> dict[str, np.ndarray]:
    """Histograms ``{statistic: counts}`` of ``trials`` trials (``numpy`` PCG64 from
    ``seed``; blocks of ``BLOCK`` trials, so memory stays flat)."""
    stats, so, _h, _p = sc.stat_plan()
    names = [u.name for u in sc.units]
    counts = {st.name: np.zeros(st.nbins, dtype=np.int64) for st in stats}
    rng = np.random.default_rng(seed)
    done = 0
    while done < trials:
        n = min(BLOCK, trials - done)
        t = Trials(sc, n, rng).run()
        for st, row in zip(stats, so, strict=True):
            kind, a, b, top = (int(x) for x in row[:4])
            if kind == K.OK_STATE:
                v = _state(t.side[a], t.dis[a])
            elif kind == K.OK_REC:
                v = t.rec[a, b]
            elif kind == K.OK_HEX_GE:
                v = sum(
                    (_state(t.side[t.ix[x]], t.dis[t.ix[x]]) >= b).astype(np.int64)
                    for x in (u.name for u in sc.stack(sc.hexes[a].name))
                )
            elif kind == K.OK_STATE_DETAIL:
                v = _detail(t.side[a], t.dis[a])
            else:
                v = (_state(t.side[a], t.dis[a]) >= b).astype(np.int64)
            v = np.minimum(np.broadcast_to(v, (n,)), top)
            counts[st.name] += np.bincount(v, minlength=st.nbins)[: st.nbins]
        done += n
    _ = names
    return counts


# -- comparing the kernel with this reference (the tests' helpers) ------------------------------

#: fast trials tried, the first with the power wins (see :func:`fast_trials`)
N_FAST = tuple(range(200_000, 2_000_001, 100_000))
_RUNS: dict = {}


def fast_trials(head: dict[str, np.ndarray]) -> int:
    """The fewest of ``N_FAST`` fast trials with which, at the expected counts, a 0.5 pp error
    in each headline statistic (kernel histograms ``head``) fails with a factor 10^6 of margin
    on the p-value (about 2.5 standard errors, so a run's own noise does not hide it);
    deterministic, since the kernel's histograms are for a seed. ``switches.assert_power``
    then checks the power on the actual runs."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from stats import P_MIN
    from switches import homogeneity_p, planted_shift

    for n in N_FAST:
        ok = True
        for c in head.values():
            p = homogeneity_p(planted_shift(c), c / c.sum() * n) * len(head)
            ok &= p < P_MIN * 1e-6
        if ok:
            return n
    return N_FAST[-1]


def check_kernel(sc, kernel: dict[str, np.ndarray], headline, seed: int, what: str) -> None:
    """The kernel's histograms of ``sc`` against this reference: every statistic's whole
    distribution agrees, and the ``headline`` statistics with the power to see a 0.5 pp error
    (the reference runs as many trials as :func:`fast_trials` asks; one run per scenario and
    seed in a session)."""
    from switches import assert_agree, assert_power

    head = {n: np.asarray(kernel[n]) for n in headline}
    key = (repr(sc), seed)
    if key not in _RUNS:
        _RUNS[key] = simulate(sc, fast_trials(head), seed)
    fast = _RUNS[key]
    assert_agree(kernel, fast, f"{what} (fast reference)")
    if head:
        assert_agree(head, fast, f"{what} (fast reference, headline)")
        assert_power(head, fast, f"{what} (fast reference, headline)")


def check_exact(counts: dict[str, np.ndarray], exact: dict[str, np.ndarray], what: str) -> None:
    """Kernel histograms against exact PMFs (chi-square, Bonferroni over the statistics), and
    the power check: with 0.5 pp of a histogram moved between two neighbouring outcomes
    (``switches.planted_shift``) the same comparison fails."""
    from stats import P_MIN, chisquare_pmf
    from switches import planted_shift

    k = len(exact)
    for name, pmf in exact.items():
        p = chisquare_pmf(counts[name], pmf) * k
        assert p > P_MIN, f"{what}: {name} against the exact PMF, p = {p:.2e}"
        moved = chisquare_pmf(planted_shift(counts[name]), pmf) * k
        assert moved < P_MIN, f"{what}: a 0.5 pp error in {name} would pass (p = {moved:.1e})"
