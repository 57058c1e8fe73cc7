"""Slow pure-Python reference of an Armoured Clash sequence (the tests' oracle, the benchmark's
baseline).

Written from the rule text (``docs/armoured-clash.md`` lists every reading) with plain objects
and ``random.Random``, independently of the kernel's tables: each unit is a small mutable
object, each deck a shuffled list popped from, each die a face name. It reports the same
statistics, by the same names, as the compiled scenario, so tests compare the two
distributions (not streams).

Usage: ``rows = run(scenario, trials, seed)`` → a list of ``{stat name: value}`` per trial.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from oddslab.rulesets.armoured_clash import ArmouredClashScenario, default_deck
from oddslab.rulesets.armoured_clash.validate import activation_plan, close_column, ranged_row

FACES = ("heroic", "strike", "glancing", "miss", "blank")
SCORE = {"heroic": 2, "strike": 1, "glancing": 0, "miss": 0, "blank": 0}
TIER = {0: (), 1: ("glancing",), 2: ("glancing", "miss")}


@dataclass
class U:
    """One unit's state in a trial."""

    p: object  # the Unit profile
    models: int
    tokens: int
    suppressed: bool
    disordered: bool
    cover: bool
    garrisoned: bool
    gone: bool = False
    officer_lost: bool = False
    fell_back: bool = False
    broke: bool = False
    lost: int = 0
    hits: int = 0
    damage: int = 0
    start: int = 0
    held: tuple = ()
    rally_failed: bool = False
    carrier: object = None
    passengers: object = None


@dataclass
class Trial:
    sc: ArmouredClashScenario
    rng: random.Random
    units: dict = field(default_factory=dict)
    decks: dict = field(default_factory=dict)
    vp: dict = field(default_factory=lambda: {"attacker": 0, "defender": 0})

    # -- dice and cards ---------------------------------------------------------------------
    def face(self) -> str:
        d = self.sc.die
        return self.rng.choice(
            [k for k, n in zip(FACES, d.counts(), strict=True) for _ in range(n)]
        )

    def pool(self, n: int, rating: int, extra: tuple) -> int:
        rr = set(TIER[rating]) | set(extra)
        dice = [self.face() for _ in range(n)]
        dice += [self.face() for f in list(dice) if f == "heroic"]  # added dice add none
        final = [self.face() if f in rr else f for f in dice]  # one re-roll, no explosion
        return sum(SCORE[f] for f in final)

    def draw(self, side: str) -> int:
        if not self.decks[side]:  # communications breakdown: the discards are reshuffled
            self.decks[side] = list(self.sc.decks.get(side, default_deck()))
            self.rng.shuffle(self.decks[side])
        return self.decks[side].pop()

    # -- casualties -------------------------------------------------------------------------
    def annihilate(self, u: U) -> None:
        if u.gone:
            return
        u.gone, u.models, u.tokens = True, 0, 0
        self.vp["attacker" if u.p.side == "defender" else "defender"] += u.p.vp_value
        c = u.passengers
        if c is not None and not c.gone:
            c.lost += c.models
            c.officer_lost = True
            self.annihilate(c)

    def remove(self, u: U, k: int, chosen: bool) -> int:
        k = min(k, u.models)
        if k <= 0:
            return 0
        mode = u.p.officer_mode
        if k == u.models:
            officer = True
        elif chosen:
            officer = False  # the general picks the models and keeps the officer
        elif mode == "first":
            officer = not u.officer_lost
        elif mode == "random":
            officer = self.rng.randrange(u.models) < k
        else:
            officer = False
        if officer:
            u.officer_lost = True
            if not u.p.commander_nearby:
                u.disordered = True
        u.models -= k
        u.lost += k
        if u.models == 0:
            self.annihilate(u)
        return k

    def destroy(self, u: U, k: int, chosen: bool) -> int:
        done = self.remove(u, k, chosen)
        c = u.passengers
        if done and c is not None and not c.gone:
            cap = u.p.capacity * u.models
            if c.models > cap:
                done += self.remove(c, c.models - cap, True)
        return done

    def damage(self, u: U, dmg: int, exposed: int | None) -> int:
        if dmg <= 0 or u.gone:
            return 0
        u.damage += dmg
        total = u.tokens + dmg
        k, u.tokens = divmod(total, u.p.damage_limit)
        if exposed is not None and k >= exposed:
            k, u.tokens = exposed, 0
        if k >= u.models:
            u.tokens = 0
        return self.destroy(u, k, False)

    def test_one(self, u: U, no_status: bool) -> bool:
        # "cannot be suppressed" (aircraft; the target of opportunity fire): no test, or, with
        # cannot_be_suppressed = "no_status", a test whose failure gives no suppressed status
        if u.gone:
            return False
        if u.p.type == "aircraft":
            if self.sc.rules.cannot_be_suppressed == "no_test":
                return False
            no_status = True
        card = self.draw(u.p.side)
        disc = u.p.discipline - u.disordered - (2 * (u.start - u.models) >= u.start)
        if card <= disc:
            return False
        if u.p.break_limit is not None and u.models <= u.p.break_limit:
            u.broke = True
            self.annihilate(u)
        elif u.suppressed:
            u.fell_back = True
            if u.carrier is None:
                u.garrisoned = u.cover = False
                self.destroy(u, u.p.fall_back_losses, True)
                if u.p.flees_field:
                    self.annihilate(u)
        elif not no_status:
            u.suppressed = True
        return True

    def suppression(self, u: U, no_status: bool = False) -> None:
        failed = self.test_one(u, no_status)
        if u.passengers is not None and (self.sc.rules.embarked_tests == "always" or failed):
            self.test_one(u.passengers, no_status)

    # -- attacks ----------------------------------------------------------------------------
    def dice(self, u: U, column, half: bool) -> int:
        if column is None or u.gone:
            return 0
        if u.p.type == "behemoth":
            return column[u.tokens]
        m = (u.models + 1) // 2 if half else u.models
        return column[m - 1] if m > 0 else 0

    @staticmethod
    def rating(count: int, forced: str | None) -> int:
        if forced is not None:
            return ("weakened", "neutral", "improved").index(forced)
        return 2 if count > 0 else (1 if count == 0 else 0)

    def extra(self, u: U, rerolls: tuple, source: str) -> tuple:
        return () if (source == "command" and u.disordered) else rerolls

    def ranged(self, a, att: U, tgt: U, rally_failed: bool) -> None:
        s = a.situation
        if s.reforming:
            att.garrisoned = False  # an exit manoeuvre sets the unit up outside the building
        conc = tgt.garrisoned or (s.concealed and s.exposed is None)
        aim = s.aiming and not rally_failed
        count = aim + s.short_range - s.opportunity_fire - s.reforming - conc - att.suppressed
        row = ranged_row(a, att.p, tgt.p)
        n = self.dice(att, row.dice, att.garrisoned)
        extra = self.extra(att, s.extra_rerolls, s.extra_rerolls_from)
        hits = self.pool(n, self.rating(count, s.rating), extra)
        tgt.hits += hits
        defence = tgt.p.defence + tgt.garrisoned + (conc and tgt.cover)
        k = self.damage(tgt, hits // defence, s.exposed)
        if k > 0:
            if not s.opportunity_fire:
                self.suppression(tgt)
            elif self.sc.rules.cannot_be_suppressed == "no_status":
                self.suppression(tgt, no_status=True)

    def strike(self, u: U, t: U, column, half, count, forced, extra) -> int:
        n = self.dice(u, column, half)
        if n <= 0 or t.gone:
            return 0
        hits = self.pool(n, self.rating(count - u.suppressed, forced), extra)
        t.hits += hits
        return self.damage(t, hits // t.p.defence, None)

    def close(self, a, att: U, tgt: U) -> int:
        s = a.situation
        secs = [self.units[n] for n in s.secondary]
        over = att.p.type == "infantry" and tgt.p.type in ("armour", "fortification")
        # the charger's supported / threatened are the target retaliation's threatened /
        # supported (the same units within 2"): a flag not given is read from its counterpart
        supported = bool(s.defender_threatened) if s.supported is None else s.supported
        threatened = s.threatened
        if threatened is None:
            threatened = bool(secs) or s.defender_supported is True
        count_a = s.outflanking + over + supported - threatened
        storming = tgt.garrisoned
        first_target = s.defensive_advantage or storming
        k_t = k_a = 0
        ended = False
        rules = self.sc.rules
        if not first_target:
            order = ("charger", "target and secondaries")
        elif rules.secondaries_with_advantage == "after_charger":
            order = ("target", "charger", "secondaries")
        else:
            order = ("target and secondaries", "charger")
        for n, phase in enumerate(order):
            if phase == "charger":
                extra = self.extra(att, s.extra_rerolls, s.extra_rerolls_from)
                col = close_column(a, att.p)
                k_t += self.strike(
                    att, tgt, col, storming or att.garrisoned, count_a, s.rating, extra
                )
                struck = tgt
            else:
                # secondaries strike "at the same time that the target ... does": not when the
                # target has no MELEE score (unless the rule switch says always)
                joins = tgt.p.armaments.melee is not None
                joins = joins or rules.secondary_retaliation == "always"
                strikers = [] if phase == "secondaries" else [tgt]
                if phase != "target" and joins:
                    strikers += secs
                for r in strikers:
                    is_target = r is tgt
                    if s.defender_supported is not None:
                        sup = s.defender_supported
                    else:  # a secondary is in contact with the charger, and so is the target
                        sup = (threatened or bool(secs)) if is_target else True
                    if s.defender_threatened is not None:
                        thr = s.defender_threatened
                    else:  # the charger's support is near the target, not near a secondary
                        thr = is_target and s.supported is True
                    over_r = r.p.type == "infantry" and att.p.type in ("armour", "fortification")
                    cmd = s.defender_extra_rerolls_from == "command"
                    extra = s.defender_extra_rerolls
                    if cmd:
                        extra = extra if (is_target and not r.disordered) else ()
                    k_a += self.strike(
                        r,
                        att,
                        r.p.armaments.melee,
                        r.garrisoned,
                        over_r + sup - thr,
                        s.defender_rating,
                        extra,
                    )
                struck = att
            # "The action ends if the target unit is annihilated" (with "most_kills" only at
            # the first strike: a retaliation continues to step 4)
            if struck.gone and (n == 0 or rules.retaliation_annihilates == "action_ends"):
                ended = True
                break
        for u in (att, tgt, *secs):
            u.cover = False
        a_side = att.p.side
        att_wins = 1 if a_side == "attacker" else 2
        tgt_wins = 3 - att_wins
        if ended:  # no step 4: the unit left on the table won
            return att_wins if tgt.gone else tgt_wins
        if k_t > k_a:
            for u in (tgt, *secs):
                if u.garrisoned:
                    u.garrisoned = False
                else:
                    self.destroy(u, u.p.withdraw_losses, False)
            self.suppression(tgt)
            return att_wins
        if k_a > k_t:
            # a garrison attacking from inside exits instead of withdrawing (by default)
            if att.garrisoned and rules.garrison_exit == "any_loss":
                att.garrisoned = False
            else:
                self.destroy(att, att.p.withdraw_losses, False)
            self.suppression(att)
            return tgt_wins
        self.destroy(att, att.p.withdraw_losses, False)  # a stalemate: the attacker withdraws
        return 3

    # -- the sequence -----------------------------------------------------------------------
    def run(self) -> dict[str, int]:
        sc = self.sc
        for side in ("attacker", "defender"):
            self.decks[side] = list(sc.decks.get(side, default_deck()))
            self.rng.shuffle(self.decks[side])
        for p in sc.units:
            self.units[p.name] = U(
                p, p.models, p.damage, p.suppressed, p.disordered, p.taking_cover, p.garrisoned
            )
        for p in sc.units:
            if p.carrying is not None:
                self.units[p.name].passengers = self.units[p.carrying]
                self.units[p.carrying].carrier = self.units[p.name]
        rules = sc.rules
        plan = activation_plan(sc)
        qc = 0
        for i, a in enumerate(sc.attacks):
            active_name, start, end = plan[i]
            act = self.units[active_name]
            if rules.activations and start and not act.gone:
                act.cover = False  # taking cover ends when its activation starts
                act.held = (act.suppressed, act.disordered)
                act.rally_failed = False
                if act.suppressed and rules.rally_test:
                    card = self.draw(act.p.side)
                    act.rally_failed = card > act.p.discipline - act.disordered
            att, tgt = self.units[a.attacker], self.units[a.target]
            if not (att.gone or tgt.gone):
                rally_failed = rules.activations and act is att and att.rally_failed
                needs_move = a.situation.charge if a.kind == "close" else a.situation.reforming
                if not (rally_failed and needs_move):
                    for u in self.units.values():
                        u.start = u.models
                    if a.kind == "ranged":
                        self.ranged(a, att, tgt, rally_failed)
                    else:
                        qc = self.close(a, att, tgt) or qc
            if rules.activations and end:
                if rules.status_expiry == "all":
                    act.suppressed = act.disordered = False
                else:
                    if act.held and act.held[0]:
                        act.suppressed = False
                    if act.held and act.held[1]:
                        act.disordered = False
                act.held = ()
                act.rally_failed = False
        return self.report(qc)

    def report(self, qc: int) -> dict[str, int]:
        sc = self.sc
        f = self.units[sc.focus_unit]
        me = f.p.side
        them = "defender" if me == "attacker" else "attacker"
        rally_failed = 0
        full = int(not f.gone)
        if not f.gone and f.suppressed:
            if sc.rules.rally_test:
                rally_failed = int(self.draw(me) > f.p.discipline - f.disordered)
                full = 1 - rally_failed
            else:
                full = 0
        out = {
            f"hits_on_{me}": f.hits,
            f"damage_on_{me}": f.damage,
            f"{me}_models_lost": f.lost,
            f"{me}_officer_lost": int(f.officer_lost),
            f"{me}_suppressed": int(f.suppressed and not f.gone),
            f"{me}_fell_back": int(f.fell_back),
            f"{me}_broke": int(f.broke),
            f"{me}_annihilated": int(f.gone),
            f"{them}_vp": self.vp[them],
            f"{me}_vp": self.vp[me],
            f"{them}_models_lost": sum(u.lost for u in self.units.values() if u.p.side == them),
            f"{me}_side_models_lost": sum(u.lost for u in self.units.values() if u.p.side == me),
            f"{me}_rally_failed": rally_failed,
            f"{me}_can_move_and_attack": full,
            "attacker_won_close_quarters": int(qc == 1),
            "defender_won_close_quarters": int(qc == 2),
            "close_quarters_stalemate": int(qc == 3),
        }
        c = f.passengers
        if c is not None:
            out["passengers_models_lost"] = c.lost
            out["passengers_suppressed"] = int(c.suppressed and not c.gone)
            out["passengers_annihilated"] = int(c.gone)
        return out


def run(sc: ArmouredClashScenario, trials: int, seed: int) -> list[dict[str, int]]:
    """``trials`` independent trials of ``sc``; one dict of statistics per trial."""
    rng = random.Random(seed)
    return [Trial(sc, rng).run() for _ in range(trials)]
