"""Slow, obvious pure-Python reference of a Vom Kriege action sequence (one trial at a time).

Written from the rule text independently of the kernel: units are dicts, dice are
``random.Random.choice`` over the faces. Used by tests/test_vom_kriege_kernel.py (within 5
standard errors of the kernel) and by benchmarks/bench_vom_kriege.py (speed baseline).
"""

from __future__ import annotations

import random
from collections import Counter

ROUGH = ("woods", "bua", "fieldworks", "rough")
ART_FP = {
    ("8", "heavy"): (5, 4, 3, 2, 1),
    ("8", "light"): (4, 3, 3, 2, 1),
    ("6", "heavy"): (4, 3, 3, 2, 1),
    ("6", "light"): (3, 2, 2, 1, 1),
}


def band_of(r):
    for i, lim in enumerate((3, 6, 12, 18, 24)):
        if r <= lim:
            return i
    raise ValueError(r)


class Trial:
    """One trial of scenario ``sc`` (a VomKriegeScenario, read for its plain fields only)."""

    def __init__(self, sc, rng):
        self.sc = sc
        self.rules = sc.rules
        self.rng = rng
        self.faces = list(sc.dice.faces)
        self.u = {}
        for x in sc.units:
            self.u[x.name] = dict(
                spec=x,
                hits=x.hits,
                diso=x.disordered,
                form=x.form,
                mark=x.shooting_marker,
                removed=False,
                hm=0,
                retreats=0,
                retired=False,
                squared=False,
                fellback=False,
                hits_rolled=0,
                flags_rolled=0,
                bb_hits=0,
                df_hits=0,
                meleed=False,
            )
        self.ldr = {
            x.name: dict(spec=x, hits=x.hits, removed=x.hits >= 3, lost=0, rolled=0, retired=False)
            for x in sc.leaders
        }
        self.dice = Counter()
        self.followed = False

    # -- helpers -------------------------------------------------------------------------
    def strength(self, n):
        return self.u[n]["spec"].max_hits

    def at_max(self, n):
        return self.u[n]["hits"] >= self.strength(n)

    def roll(self, n, side, target, mode):
        """mode: shoot, melee, saber. Returns hits, flags."""
        self.dice[side] += n
        troop = self.u[target]["spec"].troop
        h = f = 0
        for _ in range(n):
            face = self.rng.choice(self.faces)
            if face == "flag":
                f += 1
            elif face == "saber":
                h += 1 if (mode != "shoot" or self.rules.sabers == "both") else 0
            elif face == troop and mode != "saber":
                h += 1
        self.u[target]["hits_rolled"] += h
        self.u[target]["flags_rolled"] += f
        return h, f

    def remove(self, n):
        s = self.u[n]
        if s["removed"]:
            return
        s["removed"] = True
        ln = s["spec"].leader
        if ln is None or self.ldr[ln]["removed"]:
            return
        self.ldr[ln]["lost"] += 1
        self.hit_leader(ln, 1)

    def hit_leader(self, ln, n):
        """'When a leader suffers 3 hits, the leader and all its units are removed from play
        and the Army leader suffers 1 hit.'"""
        ld = self.ldr[ln]
        if ld["removed"] or n == 0:
            return
        ld["hits"] += n
        if ld["hits"] >= 3:
            ld["removed"] = True
            spec = ld["spec"]
            ld["lost"] = (
                spec.units if spec.units is not None else sum(x.leader == ln for x in self.sc.units)
            )
            for other in self.u.values():
                if other["spec"].leader == ln:
                    other["removed"] = True
            for army in self.ldr.values():
                a = army["spec"]
                if a.army and a.side == spec.side and not army["removed"]:
                    army["hits"] += 1
                    if army["hits"] >= 3:
                        army["removed"] = True

    def leader_dice(self, att, order, supp, uphill, hits, diso, terrain):
        """The attacker's melee dice at a leader: strength and its own rows; of the rows that
        look at the opponent, a leader is never disordered (irregulars -2), is no infantry
        (no lancers' +1), no square, and stands in ``terrain``."""
        spec = self.u[att]["spec"]
        base = 1 if self.u[att]["form"] in ("square", "march_column") else spec.max_hits
        adj = self.bonus(order, supp)
        adj += {"elite": 1, "conscript": -1, "irregular": -2}.get(spec.quality, 0)
        if spec.troop == "cavalry" and spec.unit_kind == "heavy":
            adj += 1
        shaken = [-1] if hits == spec.max_hits - 1 else []
        second = [-2] * int(bool(diso)) + [-2] * int(self.u[att]["form"] == "open_order")
        adj += self.or_row(shaken, second)
        first = [-1] * int(terrain == "woods") + [-1] * int(bool(uphill))
        adj += self.or_row(first, [-2] if terrain in ("bua", "fieldworks") else [])
        return max(base + adj, self.rules.min_dice, 0)

    def contact_leader(self, att, ln, k):
        """Retire step 1 at a leader: k dice, only sabers hit; then it retires."""
        self.dice[self.u[att]["spec"].side] += k
        h = sum(self.rng.choice(self.faces) == "saber" for _ in range(k))
        ld = self.ldr[ln]
        ld["rolled"] += h
        self.hit_leader(ln, h)
        if not ld["removed"]:
            ld["retired"] = True

    def disorder(self, n):
        s = self.u[n]
        if s["removed"] or s["diso"]:
            return
        if self.at_max(n):
            self.remove(n)
        else:
            s["diso"] = True

    def apply(self, n, hits, flags, flag_mode="normal"):
        """Hits first, then retreats."""
        s = self.u[n]
        blocked = s["spec"].retreat_blocked
        square = s["form"] == "square"
        absorb = self.rules.same_roll_at_max == "absorb"
        reached = False
        if flag_mode == "ignore":
            flags = 0
        incoming = hits + (flags if square else 0)
        for _ in range(incoming):
            if s["removed"]:
                return
            if self.at_max(n):
                if reached and absorb:
                    break
                self.remove(n)
                return
            s["hits"] += 1
            if self.at_max(n):
                reached = True
                if blocked:
                    self.remove(n)
                    return
                s["hm"] += 2
                s["retreats"] += 1
                s["diso"] = True
                if s["spec"].troop == "artillery":
                    s["form"] = "limbered"  # "Artillery must limber when retreating"
        if s["removed"]:
            return
        nflags = 0 if square else flags
        if flag_mode == "at_least_half":
            nflags = max(nflags, 1)
        elif flag_mode == "half":
            nflags = 1
        elif flag_mode == "extra_half":
            nflags += 1
        if nflags == 0:
            return
        if self.at_max(n):
            if not (reached and absorb):
                self.remove(n)
            return
        if blocked:
            s["hits"] += 1
            if self.at_max(n):
                self.remove(n)
            elif self.rules.blocked_retreat_disorders:
                s["diso"] = True
            return
        s["hm"] += nflags
        s["retreats"] += 1
        s["diso"] = True
        if s["spec"].troop == "artillery":
            s["form"] = "limbered"

    # -- dice counts ---------------------------------------------------------------------
    def or_row(self, *items):
        """One 'X, or Y or Z | v1 v2' row: per item (X; 'Y or Z'), the values of its
        conditions that apply. largest: the row once, its largest penalty; stack: each item
        once; each: every condition."""
        flat = [v for it in items for v in it]
        if not flat:
            return 0
        if self.rules.or_rows == "each":
            return sum(flat)
        if self.rules.or_rows == "stack":
            return sum(it[0] for it in items if it)
        return min(flat)

    def bonus(self, order, supp):
        """'Order bonus, or for each support unit +1': +1 for the order, +1 per support."""
        if self.rules.order_support_row == "stack":
            return int(order) + supp
        return max(int(order), supp)

    def fire_dice(self, n, t, band, order=False, supp=0, enf=False, obs=False):
        s, tg = self.u[n], self.u[t]
        spec, form, terr = s["spec"], s["form"], s["spec"].terrain
        r = self.rules
        if spec.troop == "cavalry":
            return None, False
        if spec.troop == "artillery":
            if form != "unlimbered":
                return None, False
            kind = spec.unit_kind if spec.unit_kind != "horse" else r.horse_artillery
            base = ART_FP[(str(spec.guns), kind)][band]
        else:
            if form == "march_column":
                return None, False
            if band == 0:
                if form == "square":
                    return 1, True
                if terr in ("woods", "bua"):
                    base = 2
                else:
                    base = 4 if form in ("line", "two_rank_line") else 2
            elif band == 1:
                ok = spec.skirmish and form != "square" and terr != "bua"
                ok = ok and (terr != "woods" or form == "open_order")
                if not ok:
                    return None, False
                if r.skirmish_dice == "one":
                    return 1, False
                return (2 if form == "open_order" else 1), False
            else:
                return None, False
        art_reading = spec.troop == "artillery" or r.artillery_rows == "target"
        adj = self.bonus(order, supp)
        if spec.troop == "infantry" and form == "two_rank_line" and band == 0:
            adj += 1
        shape = tg["form"] in ("square", "column", "march_column")
        if art_reading and r.or_rows == "each":
            adj += int(enf) + int(shape)
        elif art_reading and (enf or shape):
            adj += 1
        tt = tg["spec"].terrain
        if tt == "woods":
            adj -= 1
        if tt in ("bua", "fieldworks"):
            if r.artillery_rows == "target":
                adj -= {"infantry": 2, "artillery": 1}.get(tg["spec"].troop, 0)
            else:
                adj -= 1 if spec.troop == "artillery" else 2
        skirmisher = {
            "sk": tg["spec"].skirmish,
            "open_order": tg["form"] == "open_order",
            "either": tg["spec"].skirmish or tg["form"] == "open_order",
        }[r.skirmish_target]
        in_band = band == 1 or (band == 0 and r.skirmish_range == "up_to_6")
        if art_reading and in_band and skirmisher:
            adj -= 1
        shaken = [-1] if s["hits"] == self.strength(n) - 1 else []
        adj += self.or_row(shaken, [-2] if s["diso"] else [])
        halves = int(s["mark"]) + int(obs)
        if r.halving == "before":
            for _ in range(halves):
                base = max(base // 2, 1)
            d = base + adj
        else:
            d = base + adj
            for _ in range(halves):  # "round down but no less than 1"
                if d >= 1 or r.halving_floor == "always":
                    d = max(d // 2, 1)
        return max(d, r.min_dice, 0), True

    def melee_count(
        self, n, opp, attacking, order=False, supp=0, uphill=False, hits=None, diso=None
    ):
        s, o = self.u[n], self.u[opp]
        spec = s["spec"]
        hits = s["hits"] if hits is None else hits
        diso = s["diso"] if diso is None else diso
        if attacking and spec.troop == "cavalry" and o["form"] == "square":
            return 1
        base = 1 if s["form"] in ("square", "march_column") else spec.max_hits
        adj = self.bonus(order, supp)
        adj += {"elite": 1, "conscript": -1}.get(spec.quality, 0)
        if spec.quality == "irregular" and not o["diso"]:
            adj -= 2
        if spec.troop == "cavalry" and spec.unit_kind == "heavy":
            adj += 1
        if attacking and spec.troop == "cavalry" and spec.unit_kind == "lancers":
            adj += 1 if o["spec"].troop == "infantry" else 0
        shaken = [-1] if hits == spec.max_hits - 1 else []
        second = [-2] * int(bool(diso)) + [-2] * int(s["form"] == "open_order")
        adj += self.or_row(shaken, second)
        ot = o["spec"].terrain
        first = [-1] * int(ot == "woods") + [-1] * int(bool(uphill and attacking))
        adj += self.or_row(first, [-2] if ot in ("bua", "fieldworks") else [])
        return max(base + adj, self.rules.min_dice, 0)

    # -- actions -------------------------------------------------------------------------
    def shoot(self, n, t, band, order=False, supp=0, enf=False, obs=False, defensive=False):
        s = self.u[n]
        if s["removed"] or self.at_max(n) or self.u[t]["removed"]:
            return
        d, marks = self.fire_dice(n, t, band, order, supp, enf, obs)
        if d is None or d <= 0:
            return
        h, f = self.roll(d, s["spec"].side, t, "shoot")
        if defensive:
            self.u[t]["df_hits"] += h
        ignore = defensive and self.rules.defensive_fire_flags == "ignore"
        self.apply(t, h, f, "ignore" if ignore else "normal")
        if marks:
            s["mark"] = True

    def reaction(self, att, dfd, chosen):
        A, D = self.u[att]["spec"], self.u[dfd]["spec"]
        form = self.u[dfd]["form"]
        if self.at_max(dfd):
            return "none"
        r = chosen
        if r == "auto":
            if D.troop == "infantry":
                sq = A.troop == "cavalry" and D.terrain == "open" and form != "square"
                r = "form_square" if sq else "defensive_fire"
            elif D.troop == "artillery":
                r = "defensive_fire"
            else:
                r = "counter_charge" if A.troop == "cavalry" else "none"
        if r == "form_square" and not (
            D.troop == "infantry"
            and A.troop == "cavalry"
            and D.terrain == "open"
            and form != "square"
        ):
            return "none"
        if r == "retire":
            if not (D.troop in ("cavalry", "artillery") or form == "open_order"):
                return "none"
            if A.troop != "infantry" and not self.rules.retire_vs_cavalry:
                return "none"
            if D.retreat_blocked:  # it cannot make a basic move towards its side
                return "none"
        if r == "counter_charge" and not (
            D.troop == "cavalry" and A.troop == "cavalry" and not self.u[dfd]["diso"]
        ):
            return "none"
        return r

    def melee(self, act, att, dfd, follow):
        r = self.rules
        a, d = self.u[att], self.u[dfd]
        A, D = a["spec"], d["spec"]
        if follow:
            order, supp, dsupp = act.order_bonus, act.follow_up_supports, 0
            chosen, flank, uphill, rough, bats = (
                act.follow_up_reaction,
                act.follow_up_flank,
                False,
                False,
                (),
            )
        else:
            order, supp, dsupp = act.order_bonus, act.supports, act.defender_supports
            chosen, flank, uphill, rough, bats = (
                act.reaction,
                act.flank,
                act.uphill,
                act.through_rough,
                act.batteries,
            )
        diso_before_move = a["diso"]
        if A.troop == "cavalry" and (rough or D.terrain != "open"):
            a["diso"] = True
        snap = dict(ah=a["hits"], ad=a["diso"], dh=d["hits"], dd=d["diso"])
        stopped_by_rough = r.rough_charge == "stopped"
        a_ret = a["retreats"]
        react = self.reaction(att, dfd, chosen)
        fire = react == "defensive_fire"
        if react == "form_square":
            k = 4 - (d["hits"] >= 2) - int(d["diso"])
            if any(self.rng.choice(self.faces) == "infantry" for _ in range(k)):
                d["form"] = "square"
                d["squared"] = True
            fire = r.square_may_fire
        if fire:
            self.shoot(dfd, att, 0, defensive=True)
        for b in bats:  # they fire before contact, whatever the target's reaction
            self.shoot(b.unit, att, band_of(b.range), defensive=True)
        if a["removed"] or a["retreats"] != a_ret:
            return False
        if a["diso"] and not (diso_before_move if stopped_by_rough else snap["ad"]):
            a["fellback"] = True
            return False
        before = r.dice_state == "before_melee"
        for ln, ld in self.ldr.items():  # a leader with the defender: it must retire
            if ld["spec"].with_unit == dfd and not ld["removed"] and not ld["retired"]:
                if r.leader_with_unit == "rolled":
                    ah = snap["ah"] if before else a["hits"]
                    ad = snap["ad"] if before else a["diso"]
                    k = self.leader_dice(att, order, supp, uphill, ah, ad, D.terrain)
                    self.contact_leader(att, ln, k)
                else:
                    ld["retired"] = True
                if d["removed"]:
                    return True
        if react == "retire":
            ah = snap["ah"] if before else a["hits"]
            ad = snap["ad"] if before else a["diso"]
            k = self.melee_count(att, dfd, True, order, supp, uphill, ah, ad)
            h, _ = self.roll(k, A.side, dfd, "saber")
            self.apply(dfd, h, 0)
            if not d["removed"]:
                d["retired"] = True
                if D.troop == "artillery":
                    d["form"] = "limbered"
                elif D.troop == "cavalry" and r.retiring_cavalry_disordered:
                    self.disorder(dfd)  # involved in the melee (step 7)
            return "retired"
        ah = snap["ah"] if before else a["hits"]
        ad = snap["ad"] if before else a["diso"]
        dh = snap["dh"] if before else d["hits"]
        dd = snap["dd"] if before else d["diso"]
        if react == "counter_charge":
            a["meleed"] = True
            if r.counter_charge == "simultaneous":
                na = self.melee_count(att, dfd, True, order, supp, uphill, ah, ad)
                nd = self.melee_count(dfd, att, True, hits=dh, diso=snap["dd"])
                ha, fa = self.roll(na, A.side, dfd, "melee")
                hd, fd = self.roll(nd, D.side, att, "melee")
                d_ret = d["retreats"]
                self.apply(dfd, ha, fa)
                self.apply(att, hd, fd)
                vac = d["removed"] or d["retreats"] != d_ret
                if not vac and not a["removed"] and a["retreats"] == a_ret:
                    a["fellback"] = True
                self.disorder(dfd)
                return vac
            nd = self.melee_count(dfd, att, True, hits=dh, diso=snap["dd"])
            h, f = self.roll(nd, D.side, att, "melee")
            self.apply(att, h, f)
            if not a["removed"] and a["retreats"] == a_ret:
                bb = supp if r.battle_back_supports else 0
                ah = snap["ah"] if before else a["hits"]  # the state when it rolls
                ad = snap["ad"] if before else a["diso"]
                na = self.melee_count(att, dfd, False, False, bb, False, ah, ad)
                h, f = self.roll(na, A.side, dfd, "melee")
                d["bb_hits"] += h  # the charger battles back
                self.apply(dfd, h, f)
            self.disorder(dfd)
            return False
        na = self.melee_count(att, dfd, True, order, supp, uphill, ah, ad)
        mode = "saber" if (A.troop == "cavalry" and d["form"] == "square") else "melee"
        a["meleed"] = True
        d_ret = d["retreats"]
        h, f = self.roll(na, A.side, dfd, mode)
        sq_flags = mode == "saber" and r.cavalry_square_flags == "ignore"
        self.apply(dfd, h, f, "ignore" if sq_flags else "normal")
        vac = d["removed"] or d["retreats"] != d_ret
        if d["form"] == "square" or D.terrain == "bua":
            flank = False  # no flank or rear: it faces every way
        # a unit at maximum hits faces away from the enemy, so it does not battle back
        if not vac and D.troop in ("infantry", "cavalry") and not flank and not self.at_max(dfd):
            bb = dsupp if r.battle_back_supports else 0
            dh = snap["dh"] if before else d["hits"]
            dd = snap["dd"] if before else d["diso"]
            nd = self.melee_count(dfd, att, False, False, bb, False, dh, dd)
            a_ret1 = a["retreats"]
            # cavalry v a square that attacked it: "only hit with a saber" too (switch)
            sabers = D.troop == "cavalry" and a["form"] == "square"
            sabers = sabers and r.cavalry_square_sabers == "always"
            h, f = self.roll(nd, D.side, att, "saber" if sabers else "melee")
            a["bb_hits"] += h
            sq = d["form"] == "square" and A.troop == "cavalry"
            ign = "ignore" if sabers and r.cavalry_square_flags == "ignore" else "normal"
            self.apply(att, h, f, r.square_battle_back if sq else ign)
            if not a["removed"] and a["retreats"] == a_ret1:
                a["fellback"] = True
        if D.troop == "cavalry":
            self.disorder(dfd)
        return vac

    def melee_leader(self, act):
        """A melee on a leader alone: batteries fire first, then it must retire."""
        att, ln = act.actor, act.target
        a = self.u[att]
        before_move = a["diso"]
        if a["spec"].troop == "cavalry" and act.through_rough:
            a["diso"] = True
        ah, ad, a_ret = a["hits"], a["diso"], a["retreats"]
        for b in act.batteries:
            self.shoot(b.unit, att, band_of(b.range), defensive=True)
        if a["removed"] or a["retreats"] != a_ret:
            return False
        if a["diso"] and not (before_move if self.rules.rough_charge == "stopped" else ad):
            a["fellback"] = True
            return False
        if self.rules.dice_state != "before_melee":
            ah, ad = a["hits"], a["diso"]
        k = self.leader_dice(att, act.order_bonus, act.supports, act.uphill, ah, ad, "open")
        self.contact_leader(att, ln, k)
        return True if self.ldr[ln]["removed"] else "retired"

    def run(self):
        sc = self.sc
        for i, act in enumerate(sc.actions):
            if act.kind == "shoot":
                self.shoot(
                    act.actor,
                    act.target,
                    band_of(act.range),
                    act.order_bonus,
                    act.supports,
                    act.enfilade,
                    act.obscured,
                )
                continue
            a = self.u[act.actor]
            if a["removed"] or self.at_max(act.actor) or a["diso"]:
                continue
            if act.target in self.ldr:
                if self.ldr[act.target]["removed"]:
                    continue
                vac = self.melee_leader(act)
            elif self.u[act.target]["removed"]:
                continue
            else:
                vac = self.melee(act, act.actor, act.target, False)
            fu = act.follow_up
            may = (vac and a["spec"].troop == "cavalry") or (
                vac == "retired" and self.rules.retire_follow_up == "any"
            )
            if (
                may
                and fu
                and not a["removed"]
                and not self.at_max(act.actor)
                and (not a["diso"] or self.rules.disordered_follow_up)
                and not self.u[fu]["removed"]
            ):
                if i == sc._fu_action():
                    self.followed = True
                self.melee(act, act.actor, fu, True)
            if a["spec"].troop == "cavalry":
                self.disorder(act.actor)
        return self.stats()

    def stats(self):
        sc = self.sc
        att, dfd = sc._focus
        out = {
            "attacker_dice_rolled": self.dice["attacker"],
            "defender_dice_rolled": self.dice["defender"],
        }
        for who, n in (("defender", dfd), ("attacker", att)):
            if n not in self.u:
                continue  # a leader alone
            s = self.u[n]
            atmax = not s["removed"] and self.at_max(n)
            out[f"hits_on_{who}"] = s["hits_rolled"]
            out[f"flags_on_{who}"] = s["flags_rolled"]
            out[f"{who}_hits"] = min(s["hits"], self.strength(n))
            out[f"{who}_retreat_half_moves"] = s["hm"]
            out[f"{who}_retreated"] = int(s["retreats"] > 0)
            out[f"{who}_disordered"] = int(s["diso"] and not s["removed"])
            out[f"{who}_removed"] = int(s["removed"])
            out[f"{who}_at_max_hits"] = int(atmax)
        if dfd in self.u:
            out["defender_broken"] = int(out["defender_removed"] or out["defender_at_max_hits"])
            out["defender_retired"] = int(self.u[dfd]["retired"])
            out["defender_formed_square"] = int(self.u[dfd]["squared"])
        out["attacker_fell_back"] = int(self.u[att]["fellback"])
        out["attacker_reached_melee"] = int(self.u[att]["meleed"])
        out["hits_on_attacker_by_battle_back"] = self.u[att]["bb_hits"]
        out["hits_on_attacker_by_defensive_fire"] = self.u[att]["df_hits"]
        out["attacker_followed_up"] = int(self.followed)
        fa = sc._fu_action()
        if fa >= 0:
            t2 = self.u[sc.actions[fa].follow_up]
            out["hits_on_second_target"] = t2["hits_rolled"]
            out["second_target_retreated"] = int(t2["retreats"] > 0)
            out["second_target_removed"] = int(t2["removed"])
        for who, n in (("defender", dfd), ("attacker", att)):
            ln = self.u[n]["spec"].leader if n in self.u else n
            if ln:
                ld = self.ldr[ln]
                out[f"{who}_leader_hits"] = min(ld["hits"], 3)
                out[f"{who}_leader_removed"] = int(ld["removed"])
                out[f"{who}_command_units_removed"] = ld["lost"]
                out[f"hits_on_{who}_leader"] = ld["rolled"]
                out[f"{who}_leader_retired"] = int(ld["retired"])
            for army in self.ldr.values():
                if army["spec"].army and army["spec"].side == who:
                    out[f"{who}_army_leader_hits"] = min(army["hits"], 3)
        for who in ("defender", "attacker"):
            out[f"{who}_side_units_removed"] = sum(
                s["removed"] for s in self.u.values() if s["spec"].side == who
            )
        return out


def simulate(sc, trials, seed=0):
    """``{stat: Counter(value -> count)}`` over ``trials`` trials."""
    rng = random.Random(seed)
    hist: dict[str, Counter] = {}
    for _ in range(trials):
        for k, v in Trial(sc, rng).run().items():
            hist.setdefault(k, Counter())[v] += 1
    return hist


class _Branch(Exception):
    """The scripted trial wants a die beyond its script: ``faces`` outcomes to branch on."""

    def __init__(self, faces):
        self.faces = faces


class _Script:
    """A stand-in for ``random.Random`` whose ``choice`` returns the scripted face indices in
    turn, and raises :class:`_Branch` when the script runs out."""

    def __init__(self, script):
        self.script = script
        self.i = 0

    def choice(self, seq):
        if self.i == len(self.script):
            raise _Branch(len(seq))
        self.i += 1
        return seq[self.script[self.i - 1]]


def enumerate_outcomes(sc, limit=200_000):
    """Exact ``[(probability, stats)]`` of the reference trial: every sequence of faces it
    can roll (depth first, each die branching on every face, equally likely), played through
    :class:`Trial`. Feasible for a few dozen dice of few faces; raises past ``limit``
    trials played."""
    out = []
    todo = [()]
    played = 0
    while todo:
        script = todo.pop()
        played += 1
        if played > limit:
            raise RuntimeError(f"more than {limit} scripted trials: too many dice to enumerate")
        try:
            stats = Trial(sc, _Script(script)).run()
        except _Branch as b:
            todo.extend(script + (k,) for k in range(b.faces - 1, -1, -1))
            continue
        out.append((len(sc.dice.faces) ** -len(script), stats))
    return out
