"""The melee half of the fast Vom Kriege reference (tests/fast_vom_kriege.py): the seven steps
of a melee (the rough ground's disorder, the defender's reaction and the batteries' fire, a
leader standing with the target, the retire, the attack, the battle back, the follow-up and
the cavalry's disorder) and a melee on a leader alone, written from the rule text and
docs/vom-kriege.md, vectorised across trials (masks for the branches)."""

from __future__ import annotations

import numpy as np

from oddslab.rulesets.vom_kriege.model import ROUGH, range_band

INF = 0  # the infantry symbol's index in the symbol counts
NORMAL, IGNORE_FLAGS, SQUARE_BB = range(3)  # how a roll's flags act on the unit hit


class Melee:
    """Melee for :class:`fast_vom_kriege.Trials` (which holds the state, the dice, shooting
    and ``resolve``)."""

    def melee_dice(self, a, role, order, supp, state, opp):
        """Melee battle dice of unit ``a`` ("Strength of unit +/- adjustments"). ``role``:
        ``attack`` or ``battle_back``; ``state``: (hits, disordered) the dice are counted from;
        ``opp``: (opponent is infantry, opponent disordered array, opponent in square array,
        terrain row's terrain, uphill)."""
        A, r = self.U[a], self.r
        o_inf, o_diso, o_sq, terrain, uphill = opp
        hits, diso = state
        base = np.where(self.square[a] | (A.form == "march_column"), 1, self.mx[a])
        c = base + self.bonus(order, supp)
        c = c + {"elite": 1, "conscript": -1}.get(A.quality, 0)
        if A.quality == "irregular":
            c = c - 2 * ~o_diso
        if A.troop == "cavalry" and A.unit_kind == "heavy":
            c = c + 1
        if A.unit_kind == "lancers" and role == "attack" and o_inf:
            c = c + 1
        sh, oo = self.shaken(a, hits), A.form == "open_order"
        if r.or_rows == "largest":
            c = c - np.maximum(sh * 1, (diso | oo) * 2)
        elif r.or_rows == "stack":
            c = c - sh * 1 - (diso | oo) * 2
        else:
            c = c - sh * 1 - diso * 2 - int(oo) * 2
        woods, bua = terrain == "woods", terrain in ("bua", "fieldworks")
        if r.or_rows == "largest":
            c = c - (2 if bua else 1 if (woods or uphill) else 0)
        elif r.or_rows == "stack":
            c = c - int(woods or uphill) - 2 * int(bua)
        else:
            c = c - int(woods) - int(uphill) - 2 * int(bua)
        c = np.maximum(c, r.min_dice)
        if role == "attack" and A.troop == "cavalry" and o_inf:
            c = np.where(o_sq, 1, c)  # "For cavalry attacking a square ... 1 with no adjustments"
        return c.astype(np.int16)

    def state(self, i):
        return self.hits[i].copy(), self.diso[i].copy()

    def reaction(self, chosen, a, d, m):
        """Masks of the defender's one reaction: ``{kind: mask}``."""
        A, D = self.U[a], self.U[d]
        m = m & ~self.at_max(d)
        vs_cav_open = A.troop == "cavalry" and D.troop == "infantry" and D.terrain not in ROUGH
        if chosen == "auto":
            if vs_cav_open:
                return {"form_square": m & ~self.square[d], "defensive_fire": m & self.square[d]}
            return {"defensive_fire": m} if D.troop in ("infantry", "artillery") else {}
        if chosen == "form_square":
            return {"form_square": m & ~self.square[d]} if vs_cav_open else {}
        if chosen == "retire":
            kinds = D.troop in ("cavalry", "artillery") or D.form == "open_order"
            who = A.troop == "infantry" or self.r.retire_vs_cavalry
            ok = kinds and who and not D.retreat_blocked
            return {"retire": m} if ok else {}
        if chosen == "defensive_fire":
            return {"defensive_fire": m}
        return {}

    def contact_leaders(self, act, a, d, go, order, supp, uphill, st):
        """A leader standing with unit ``d`` is contacted: it must retire, after the
        attacker's roll at it (sabers only) under ``leader_with_unit = "rolled"``."""
        for j, ld in enumerate(self.Ld):
            if ld.with_unit != self.U[d].name:
                continue
            mj = go & ~self.lremoved[j] & ~self.lretired[j]
            if self.r.leader_with_unit == "rolled":
                no = np.zeros(self.n, dtype=bool)
                opp = (False, no, no, self.U[d].terrain, uphill)
                k = self.melee_dice(a, "attack", order, supp, st, opp)
                h, _ = self.roll(k, self.U[a].side, j, mj, "melee", leader=True)
                self.hit_leader(j, h, mj)
            self.lretired[j] |= mj & ~self.lremoved[j]

    def charge_fire(self, act, a, d, m, react, follow, d0=None):
        """Step 2: the defender's reaction fire and the batteries' fire at the charger; the
        trials where the charge goes on. The batteries fire at every charger, whatever the
        target does (docs: "Defending batteries fire at every charger they can reach"); then a
        charger that retreated, was removed or became disordered retires 3" and never reaches
        melee."""
        go = m.copy()
        r0 = self.retreats[a].copy()
        d0 = self.diso[a].copy() if d0 is None else d0

        if d is not None:
            fs = react.get("form_square")
            if fs is not None and fs.any():
                D = self.U[d]
                k = 4 - (self.hits[d] >= 2) - self.diso[d]
                p = 1 - (1 - self.p[INF]) ** np.maximum(k, 0)
                ok = fs & (self.rng.random(self.n) < p)
                self.square[d] |= ok
                self.squared[d] |= ok
                if self.r.square_may_fire and D.troop == "infantry":
                    self.fire(d, a, 0, fs, D.side, defensive=True)
            dfm = react.get("defensive_fire")
            if dfm is not None:
                self.fire(d, a, 0, dfm, self.U[d].side, defensive=True)
        if not follow:
            for b in act.batteries:
                i = self.ix[b.unit]
                self.fire(i, a, range_band(b.range), go, self.U[i].side, defensive=True)
        halted = go & (self.removed[a] | (self.retreats[a] > r0) | (self.diso[a] & ~d0))
        self.fellback[a] |= halted & self.alive(a) & (self.retreats[a] == r0)
        return go & ~halted

    def melee(self, act, a, d, m, follow=False):
        """Steps 1-5 and 7 (the defender's part) of a melee of ``a`` on unit ``d`` where ``m``;
        the trials where the position was vacated, and those where the defender retired."""
        A, D, r = self.U[a], self.U[d], self.r
        m = m & self.alive(a) & ~self.at_max(a) & self.alive(d)
        if not follow:
            m = m & ~self.diso[a]
        supp = act.follow_up_supports if follow else act.supports
        flank = act.follow_up_flank if follow else act.flank
        uphill = False if follow else act.uphill
        d_move = self.diso[a].copy()
        if A.troop == "cavalry" and ((act.through_rough and not follow) or D.terrain in ROUGH):
            self.disorder(a, m)  # "disordered prior to the melee"
        st_a0, st_d0 = self.state(a), self.state(d)  # the state before the melee (dice_state)
        react = self.reaction(act.follow_up_reaction if follow else act.reaction, a, d, m)
        # rough_charge = "stopped": the rough ground's disorder stops the charge like fire's
        d0 = d_move if r.rough_charge == "stopped" else None
        go = self.charge_fire(act, a, d, m, react, follow, d0)
        before = r.dice_state == "before_melee"
        st_a = st_a0 if before else self.state(a)
        self.contact_leaders(act, a, d, go, act.order_bonus, supp, uphill, st_a)
        go = go & self.alive(d)
        r_d = self.retreats[d].copy()
        ret = go & react.get("retire", np.zeros(self.n, dtype=bool))
        fight = go & ~ret
        st_a = st_a0 if before else self.state(a)
        opp = (D.troop == "infantry", self.diso[d], self.square[d], D.terrain, uphill)
        k = self.melee_dice(a, "attack", act.order_bonus, supp, st_a, opp)
        if ret.any():  # Retire step 1: only a saber hits; then 1 move back
            h, _ = self.roll(k, A.side, d, ret, "retire")
            self.resolve(d, h, np.zeros_like(h), ret)
            self.retired[d] |= ret & self.alive(d)
            if D.troop == "artillery":
                self.limbered[d] |= ret
            if D.troop == "cavalry" and r.retiring_cavalry_disordered:
                self.disorder(d, ret)
        self.meleed[a] |= fight
        h, f = self.roll(k, A.side, d, fight, "melee", attacker=a)
        self.resolve(d, h, f, fight)
        # step 5: battle back, by infantry or cavalry that did not retreat and faces the attacker
        bbm = fight & self.alive(d) & ~self.at_max(d) & (self.retreats[d] == r_d)
        if D.troop in ("infantry", "cavalry"):
            if flank:
                bbm &= self.square[d] | (D.terrain == "bua")
            st_d = st_d0 if before else self.state(d)
            dsupp = act.defender_supports if (r.battle_back_supports and not follow) else 0
            opp = (A.troop == "infantry", self.diso[a], self.square[a], A.terrain, False)
            kb = self.melee_dice(d, "battle_back", False, dsupp, st_d, opp)
            cav_sq = D.troop == "cavalry" and A.troop == "infantry"
            att = d if (cav_sq and r.cavalry_square_sabers == "always") else None
            h, f = self.roll(kb, D.side, a, bbm, "melee", attacker=att)
            self.bb[a] += h
            r_a = self.retreats[a].copy()
            sq_bb = bbm & self.square[d] & (A.troop == "cavalry")
            if sq_bb.any():
                half = {
                    "at_least_half": np.maximum(f, 1),
                    "half": np.ones_like(f),
                    "extra_half": f + 1,
                }[r.square_battle_back]
                self.resolve(a, h, f, sq_bb, SQUARE_BB, half)
            self.resolve(a, h, f, bbm & ~sq_bb)
            self.fellback[a] |= bbm & self.alive(a) & (self.retreats[a] == r_a)
        else:
            bbm[:] = False
        if D.troop == "cavalry":
            self.disorder(d, fight)  # step 7: cavalry that fought
        # a retire vacates the position even when the roll at the retiring unit removed it
        # (Retire step 3: "The attacking unit may conduct a melee follow-up after occupying
        # the vacated position")
        vac = m & (self.removed[d] | (self.retreats[d] > r_d) | ret)
        return vac, ret

    def melee_leader(self, act, a, j, m):
        """A melee on a leader alone: the batteries' fire, then the attacker's roll at it
        (only sabers hit); it retires unless removed. Vacated everywhere the charge went."""
        A = self.U[a]
        m = m & self.alive(a) & ~self.at_max(a) & ~self.diso[a] & ~self.lremoved[j]
        go = self.charge_fire(act, a, None, m, {}, False)
        no = np.zeros(self.n, dtype=bool)
        opp = (False, no, no, "open", False)
        k = self.melee_dice(a, "attack", act.order_bonus, act.supports, self.state(a), opp)
        h, _ = self.roll(k, A.side, j, go, "melee", leader=True)
        self.hit_leader(j, h, go)
        self.lretired[j] |= go & ~self.lremoved[j]
        return go, go & ~self.lremoved[j]

    def action(self, act, focus_follow_up: bool = False):
        a = self.ix[act.actor]
        A = self.U[a]
        m = np.ones(self.n, dtype=bool)
        if act.kind == "shoot":
            t = self.ix[act.target]
            band = range_band(act.range)
            self.fire(a, t, band, m, A.side, act.order_bonus, act.supports, act.enfilade,
                      act.obscured)  # fmt: skip
            return
        acted = self.alive(a) & ~self.at_max(a) & ~self.diso[a]
        if act.target in self.lix:
            vac, ret = self.melee_leader(act, a, self.lix[act.target], m)
        else:
            vac, ret = self.melee(act, a, self.ix[act.target], m)
        if act.follow_up is not None:
            who = A.troop == "cavalry" or self.r.retire_follow_up == "any"
            fu = np.where(A.troop == "cavalry", vac, ret) if who else np.zeros_like(vac)
            fu = fu & self.alive(a) & ~self.at_max(a) & ~self.followed[a]
            if not self.r.disordered_follow_up:
                fu &= ~self.diso[a]
            t2 = self.ix[act.follow_up]
            fu &= self.alive(t2)
            self.followed[a] |= fu
            if focus_follow_up:  # the statistic follows the focus attacker's follow-up
                self.any_follow |= fu
            self.melee(act, a, t2, fu, follow=True)
        if A.troop == "cavalry":
            self.disorder(a, acted)  # step 7: the cavalry attacker

    def run(self):
        fa = self.sc._fu_action()
        for i, act in enumerate(self.sc.actions):
            self.action(act, i == fa)
        return self
