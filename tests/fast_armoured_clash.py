"""Fast numpy reference of an Armoured Clash sequence: the strong oracle of the reference and
rule-switch comparisons (issue 27).

Written from the rule text (/work/shared/rules/armoured-clash.txt) through the readings
``docs/armoured-clash.md`` states. It calls no code of the kernel, its compiled tables or the
pure-Python reference, and computes differently: every trial of a block is one lane of numpy
arrays (unit state as ``[unit, trial]`` arrays), every branch of the rules a boolean mask of
the lanes it applies to, the loops run over the sequence's steps and the units only, an
attack pool is drawn from its exact distribution (``tests/fast_armoured_clash_pool.py``,
worked per die from the rule) and a card by one step of a Fisher-Yates shuffle. About 0.5-1 us
of CPU per trial, so the 0.5 pp-powered comparisons (a few hundred thousand trials) cost
about a second. The scenario objects are read for their fields only (no derived helper of
the package is called, so a mistake in one cannot reach both sides).

It reports the statistics the pure-Python reference ``tests/naive_armoured_clash.py`` reports,
by the same names; the reference and switch tests compare the two on every scenario, and
``tests/test_armoured_clash_fast.py`` checks the pool and the deck against exact answers.

Usage: ``counts = simulate(scenario, trials, seed)`` -> ``{statistic: histogram}``.
"""

from __future__ import annotations

import numpy as np
from fast_armoured_clash_pool import BIT, KIND, TIER_BITS, pool_cdf

from oddslab.rulesets.armoured_clash import ArmouredClashScenario

__all__ = ["simulate", "merge", "BLOCK"]

#: trials per block (memory flat in the trial count); block ``i`` is seeded ``(seed, i)``
BLOCK = 50_000

DECK = np.repeat(np.arange(1, 11), 2)  # the assumed C&C deck: two each of 1 to 10


def _bits(names) -> int:
    return int(sum(BIT[KIND[n]] for n in set(names)))


class _Block:
    """One block of ``n`` trials of the sequence, each trial a lane of every array."""

    def __init__(self, sc: ArmouredClashScenario, n: int, rng: np.random.Generator):
        self.sc, self.n, self.rng = sc, n, rng
        self.rules = sc.rules
        d = sc.die
        counts = [d.heroic, d.strike, d.glancing, d.miss, d.blank]
        self.counts = tuple(counts)  # faces of each kind
        self.units = list(sc.units)
        self.idx = {u.name: i for i, u in enumerate(self.units)}
        nu = len(self.units)
        z = lambda dtype: np.zeros((nu, n), dtype=dtype)  # noqa: E731
        self.models = z(np.int64)
        self.tokens = z(np.int64)
        self.supp, self.dis, self.cover, self.garr = z(bool), z(bool), z(bool), z(bool)
        self.gone, self.off_lost, self.fell_back, self.broke = z(bool), z(bool), z(bool), z(bool)
        self.lost, self.hits = z(np.int64), z(np.int64)
        self.dmg, self.start = z(np.int64), z(np.int64)
        self.held_s, self.held_d, self.rally_failed = z(bool), z(bool), z(bool)
        for i, u in enumerate(self.units):
            self.models[i] = u.models
            self.tokens[i] = u.damage
            self.supp[i], self.dis[i] = u.suppressed, u.disordered
            self.cover[i], self.garr[i] = u.taking_cover, u.garrisoned
        self.passengers: dict[int, int] = {}
        self.carrier: dict[int, int] = {}
        for i, u in enumerate(self.units):
            if u.carrying is not None:
                j = self.idx[u.carrying]
                self.passengers[i], self.carrier[j] = j, i
        self.vp = {"attacker": np.zeros(n, np.int64), "defender": np.zeros(n, np.int64)}
        self.deck, self.ptr = {}, {}
        for side in ("attacker", "defender"):
            cards = np.asarray(sc.decks.get(side, DECK), dtype=np.int64)
            self.deck[side] = np.tile(cards.astype(np.int16), (n, 1))
            self.ptr[side] = np.zeros(n, dtype=np.int64)

    # -- dice and cards ---------------------------------------------------------------------
    def pool(self, ndice: np.ndarray, rating: np.ndarray, extra: np.ndarray) -> np.ndarray:
        """Hits of an attack pool per lane: ``ndice`` dice at the lane's combat rating, with
        the faces ``extra`` (a bit per face kind) also re-rolled; drawn from the exact
        distribution (``fast_armoured_clash_pool.pool_pmf``) of each (dice, re-roll set) the block holds."""
        out = np.zeros(self.n, dtype=np.int64)
        rr = (TIER_BITS[rating] | extra).astype(np.int64)
        key = np.where(ndice > 0, ndice * 32 + rr, -1)
        for combo in np.unique(key[key >= 0]):
            lanes = np.flatnonzero(key == combo)
            cdf = pool_cdf(int(combo) // 32, int(combo) % 32, self.counts)
            u = self.rng.random(lanes.size)
            out[lanes] = np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)
        return out

    def draw(self, side: str, m: np.ndarray) -> np.ndarray:
        """One card per lane in ``m`` from the side's deck, without replacement (one step of
        a Fisher-Yates shuffle per draw); an empty deck is reshuffled whole."""
        deck, ptr = self.deck[side], self.ptr[side]
        size = deck.shape[1]
        lanes = np.flatnonzero(m)
        ptr[lanes[ptr[lanes] >= size]] = 0  # communications breakdown: reshuffle
        p = ptr[lanes]
        j = p + (self.rng.random(lanes.size) * (size - p)).astype(np.int64)
        card = deck[lanes, j]
        deck[lanes, j] = deck[lanes, p]
        deck[lanes, p] = card
        ptr[lanes] += 1
        out = np.zeros(self.n, dtype=np.int64)
        out[lanes] = card
        return out

    # -- casualties -------------------------------------------------------------------------
    def annihilate(self, u: int, m: np.ndarray) -> None:
        m = m & ~self.gone[u]
        if not m.any():
            return
        self.gone[u] |= m
        self.models[u][m] = 0
        self.tokens[u][m] = 0
        p = self.units[u]
        self.vp["attacker" if p.side == "defender" else "defender"] += p.vp_value * m
        c = self.passengers.get(u)
        if c is not None:  # the passengers are lost with their transport
            mc = m & ~self.gone[c]
            self.lost[c] += self.models[c] * mc
            self.off_lost[c] |= mc
            self.annihilate(c, mc)

    def remove(self, u: int, k: np.ndarray, m: np.ndarray, chosen: bool) -> np.ndarray:
        """Destroy ``k`` models of ``u`` in lanes ``m``; the officer rule; models removed."""
        k = np.where(m, np.minimum(k, self.models[u]), 0)
        m = k > 0
        if not m.any():
            return k
        p = self.units[u]
        officer = k == self.models[u]  # the last model is always the officer
        if not chosen:
            mode = p.officer if p.officer is not None else "last"
            if mode == "first":
                officer |= ~self.off_lost[u]
            elif mode == "random":  # each destroyed model is the officer with chance 1/models
                officer |= self.rng.random(self.n) * self.models[u] < k
        officer &= m
        self.off_lost[u] |= officer
        if not p.commander_nearby:
            self.dis[u] |= officer
        self.models[u] -= k
        self.lost[u] += k
        self.annihilate(u, m & (self.models[u] == 0))
        return k

    def destroy(self, u: int, k, m: np.ndarray, chosen: bool) -> np.ndarray:
        """``remove``, then passengers above the transport's new capacity (chosen by their
        general); models destroyed in all."""
        done = self.remove(u, np.broadcast_to(k, (self.n,)), m, chosen)
        c = self.passengers.get(u)
        if c is not None:
            excess = self.models[c] - self.units[u].capacity * self.models[u]
            mc = (done > 0) & ~self.gone[c] & (excess > 0)
            done = done + self.remove(c, excess, mc, True)
        return done

    def damage(self, u: int, d: np.ndarray, m: np.ndarray, exposed) -> np.ndarray:
        m = m & (d > 0) & ~self.gone[u]
        if not m.any():
            return np.zeros(self.n, dtype=np.int64)
        dl = self.units[u].damage_limit
        self.dmg[u] += d * m
        total = self.tokens[u] + d
        k, tok = total // dl, total % dl
        if exposed is not None:  # only the exposed models can be destroyed
            over = k >= exposed
            k, tok = np.where(over, exposed, k), np.where(over, 0, tok)
        tok = np.where(k >= self.models[u], 0, tok)
        self.tokens[u] = np.where(m, tok, self.tokens[u])
        return self.destroy(u, k, m, False)

    def test(self, u: int, m: np.ndarray, no_status: bool) -> np.ndarray:
        """A suppression test in lanes ``m``; the lanes that failed it."""
        p = self.units[u]
        m = m & ~self.gone[u]
        if p.type == "aircraft":  # "Aircraft units cannot be suppressed"
            if self.rules.cannot_be_suppressed == "no_test":
                return np.zeros(self.n, dtype=bool)
            no_status = True
        card = self.draw(p.side, m)
        half = 2 * (self.start[u] - self.models[u]) >= self.start[u]
        fail = m & (card > p.discipline - self.dis[u] - half)
        was = self.supp[u].copy()
        if p.break_limit is not None:
            brk = fail & (self.models[u] <= p.break_limit)
        else:
            brk = np.zeros(self.n, dtype=bool)
        self.broke[u] |= brk
        self.annihilate(u, brk)
        back = fail & ~brk & was
        self.fell_back[u] |= back
        if u not in self.carrier:  # an embarked unit falls back with no losses
            self.garr[u] &= ~back
            self.cover[u] &= ~back
            self.destroy(u, p.fall_back_losses, back, True)
            if p.flees_field:
                self.annihilate(u, back)
        if not no_status:
            self.supp[u] |= fail & ~brk & ~was
        return fail

    def suppression(self, u: int, m: np.ndarray, no_status: bool = False) -> None:
        failed = self.test(u, m, no_status)
        c = self.passengers.get(u)
        if c is not None:
            self.test(c, m & failed if self.rules.embarked_tests == "on_fail" else m, no_status)

    # -- attacks ----------------------------------------------------------------------------
    def ndice(self, u: int, column, half: np.ndarray) -> np.ndarray:
        if column is None:
            return np.zeros(self.n, dtype=np.int64)
        col = np.asarray(column, dtype=np.int64)
        if self.units[u].type == "behemoth":  # its column is read by damage suffered
            return np.where(self.gone[u], 0, col[np.minimum(self.tokens[u], len(col) - 1)])
        m = np.where(half, (self.models[u] + 1) // 2, self.models[u])
        return np.concatenate([[0], col])[m]

    @staticmethod
    def rating(count: np.ndarray, forced) -> np.ndarray:
        if forced is not None:
            return np.full(count.shape, ("weakened", "neutral", "improved").index(forced))
        return np.where(count > 0, 2, np.where(count == 0, 1, 0))

    def extra(self, u: int, faces, source: str) -> np.ndarray:
        """``uint8[n]``, a bit per face kind: the faces a command (not for a disordered unit)
        or a special rule adds to the re-roll set."""
        mask = np.full(self.n, _bits(faces), dtype=np.uint8)
        if source == "command":
            mask[self.dis[u]] = 0
        return mask

    def ranged(self, a, att: int, tgt: int, rally_failed: np.ndarray, m: np.ndarray) -> None:
        s, pa, pt = a.situation, self.units[att], self.units[tgt]
        if s.reforming:  # the exit manoeuvre sets the garrison up outside
            self.garr[att] &= ~m
        conc = self.garr[tgt] | (s.concealed and s.exposed is None)
        count = (
            (s.aiming & ~rally_failed).astype(np.int64)
            + s.short_range
            - s.opportunity_fire
            - s.reforming
            - conc
            - self.supp[att]
        )
        row = next(
            r for r in pa.armaments.ranged
            if (a.weapon is None or r.name == a.weapon) and pt.category in r.vs
        )  # fmt: skip
        n = np.where(m, self.ndice(att, row.dice, self.garr[att]), 0)
        hits = self.pool(n, self.rating(count, s.rating),
                         self.extra(att, s.extra_rerolls, s.extra_rerolls_from))  # fmt: skip
        hits *= m
        self.hits[tgt] += hits
        defence = pt.defence + self.garr[tgt] + (conc & self.cover[tgt])
        k = self.damage(tgt, hits // defence, m, s.exposed)
        hit = m & (k > 0)
        if not s.opportunity_fire:
            self.suppression(tgt, hit)
        elif self.rules.cannot_be_suppressed == "no_status":
            self.suppression(tgt, hit, no_status=True)

    def strike(self, u, t, column, half, count, forced, extra, m) -> np.ndarray:
        n = np.where(m & ~self.gone[u] & ~self.gone[t], self.ndice(u, column, half), 0)
        hits = self.pool(n, self.rating(count - self.supp[u], forced), extra)
        self.hits[t] += hits
        return self.damage(t, hits // self.units[t].defence, n > 0, None)

    def close(self, a, att: int, tgt: int, m: np.ndarray) -> np.ndarray:
        """Close quarters in lanes ``m``: 1 the attacker side won, 2 the defender side, 3 a
        stalemate (0 elsewhere)."""
        s, pa, pt, rules = a.situation, self.units[att], self.units[tgt], self.rules
        secs = [self.idx[x] for x in s.secondary]
        heavy = ("armour", "fortification")
        over = pa.type == "infantry" and pt.type in heavy
        # the charger supported = a unit of its side near the target = the retaliation
        # threatened; the charger threatened = a unit of the target's side near it (a
        # secondary combatant in contact) = the retaliation supported
        supported = bool(s.defender_threatened) if s.supported is None else s.supported
        threatened = s.threatened
        if threatened is None:
            threatened = bool(secs) or s.defender_supported is True
        count_a = int(s.outflanking) + over + supported - threatened
        storming = self.garr[tgt].copy()
        first = storming | s.defensive_advantage
        k_t = np.zeros(self.n, dtype=np.int64)
        k_a = np.zeros(self.n, dtype=np.int64)
        ended = np.zeros(self.n, dtype=bool)
        joins = pt.armaments.melee is not None or rules.secondary_retaliation == "always"
        col_a = pa.armaments.impact if a.weapon == "impact" else pa.armaments.melee

        def charger(mm):
            ex = self.extra(att, s.extra_rerolls, s.extra_rerolls_from)
            half = storming | self.garr[att]
            return self.strike(att, tgt, col_a, half, np.full(self.n, count_a), s.rating, ex, mm)

        def retaliate(mm, strikers):
            done = np.zeros(self.n, dtype=np.int64)
            for r in strikers:
                pr, is_t = self.units[r], r == tgt
                if s.defender_supported is not None:
                    sup = s.defender_supported
                else:
                    sup = (threatened or bool(secs)) if is_t else True
                if s.defender_threatened is not None:
                    thr = s.defender_threatened
                else:
                    thr = is_t and s.supported is True
                over_r = pr.type == "infantry" and pa.type in heavy
                faces = s.defender_extra_rerolls
                if s.defender_extra_rerolls_from == "command":  # one command: the target's
                    ex = self.extra(r, faces if is_t else (), "command")
                else:
                    ex = self.extra(r, faces, "special rule")
                cnt = np.full(self.n, int(over_r) + sup - thr)
                done += self.strike(r, att, pr.armaments.melee, self.garr[r], cnt,
                                    s.defender_rating, ex, mm)  # fmt: skip
            return done

        target_and_secs = [tgt, *secs] if joins else [tgt]
        if rules.secondaries_with_advantage == "after_charger":
            adv = [("target", [tgt]), ("charger", None), ("secs", secs if joins else [])]
        else:
            adv = [("target", target_and_secs), ("charger", None)]
        for lanes, order in ((m & ~first, [("charger", None), ("target", target_and_secs)]),
                             (m & first, adv)):  # fmt: skip
            for step, (who, strikers) in enumerate(order):
                mm = lanes & ~ended
                if who == "charger":
                    k_t += charger(mm)
                    struck = tgt
                else:
                    k_a += retaliate(mm, strikers)
                    struck = att
                # "The action ends if the target unit is annihilated" (a retaliation's too,
                # unless step 4 governs: retaliation_annihilates = "most_kills")
                if step == 0 or rules.retaliation_annihilates == "action_ends":
                    ended |= mm & self.gone[struck]
        for u in (att, tgt, *secs):  # contact ends taking cover
            self.cover[u] &= ~m
        att_side = 1 if pa.side == "attacker" else 2
        result = np.zeros(self.n, dtype=np.int64)
        result[m & ended] = np.where(self.gone[tgt], att_side, 3 - att_side)[m & ended]
        go = m & ~ended
        win, lose, tie = go & (k_t > k_a), go & (k_a > k_t), go & (k_t == k_a)
        for u in (tgt, *secs):  # the losing side withdraws; a garrison exits instead
            out = win & self.garr[u]
            self.garr[u] &= ~out
            self.destroy(u, self.units[u].withdraw_losses, win & ~out, False)
        self.suppression(tgt, win)
        if rules.garrison_exit == "any_loss":
            out = lose & self.garr[att]
        else:
            out = np.zeros(self.n, dtype=bool)
        self.garr[att] &= ~out
        self.destroy(att, pa.withdraw_losses, (lose & ~out) | tie, False)
        self.suppression(att, lose)
        result[win] = att_side
        result[lose] = 3 - att_side
        result[tie] = 3
        return result

    # -- the sequence -----------------------------------------------------------------------
    def run(self, foci: tuple[str, ...]) -> dict[str, dict[str, np.ndarray]]:
        """Play the sequence; the statistics seen from each unit of ``foci``."""
        sc, rules = self.sc, self.rules
        steps = sc.attacks
        # the active unit: the attacker, or the target of opportunity fire (its activation)
        actives = [
            a.target if (a.kind == "ranged" and a.situation.opportunity_fire) else a.attacker
            for a in steps
        ]
        starts = []
        for i, a in enumerate(steps):
            flag = a.situation.new_activation
            starts.append(i == 0 or (actives[i - 1] != actives[i] if flag is None else flag))
        qc = np.zeros(self.n, dtype=np.int64)
        for i, a in enumerate(steps):
            act = self.idx[actives[i]]
            if rules.activations and starts[i]:
                here = ~self.gone[act]
                self.cover[act] &= ~here  # taking cover ends as the activation starts
                self.held_s[act], self.held_d[act] = self.supp[act], self.dis[act]
                self.rally_failed[act] = False
                if rules.rally_test:
                    tst = here & self.supp[act]
                    card = self.draw(self.units[act].side, tst)
                    self.rally_failed[act] = tst & (
                        card > self.units[act].discipline - self.dis[act]
                    )
            att, tgt = self.idx[a.attacker], self.idx[a.target]
            m = ~(self.gone[att] | self.gone[tgt])
            if rules.activations and act == att:
                rf = self.rally_failed[att].copy()
            else:
                rf = np.zeros(self.n, dtype=bool)
            moves = a.situation.charge if a.kind == "close" else a.situation.reforming
            if moves:  # a failed rally test: movement or attack, not both
                m &= ~rf
            self.start[:] = self.models
            if a.kind == "ranged":
                self.ranged(a, att, tgt, rf, m)
            else:
                res = self.close(a, att, tgt, m)
                qc = np.where(res > 0, res, qc)
            ends = i == len(steps) - 1 or starts[i + 1]
            if rules.activations and ends:
                if rules.status_expiry == "all":
                    self.supp[act] = False
                    self.dis[act] = False
                else:
                    self.supp[act] &= ~self.held_s[act]
                    self.dis[act] &= ~self.held_d[act]
                self.held_s[act] = self.held_d[act] = False
                self.rally_failed[act] = False
        out = {}
        for name in foci:  # each focus's rally test draws from the deck as the sequence left it
            held = {side: (d.copy(), self.ptr[side].copy()) for side, d in self.deck.items()}
            out[name] = self.report(qc, self.idx[name])
            for side, (d, ptr) in held.items():
                self.deck[side], self.ptr[side] = d, ptr
        return out

    def report(self, qc: np.ndarray, f: int) -> dict[str, np.ndarray]:
        sc = self.sc
        p = self.units[f]
        me = p.side
        them = "defender" if me == "attacker" else "attacker"
        on = ~self.gone[f]
        supp = on & self.supp[f]
        if sc.rules.rally_test:  # the rally test of its next activation
            card = self.draw(me, supp)
            rally_failed = supp & (card > p.discipline - self.dis[f])
            full = on & ~rally_failed
        else:
            rally_failed = np.zeros(self.n, dtype=bool)
            full = on & ~supp
        side = np.array([u.side for u in self.units])
        out = {
            f"hits_on_{me}": self.hits[f],
            f"damage_on_{me}": self.dmg[f],
            f"{me}_models_lost": self.lost[f],
            f"{me}_officer_lost": self.off_lost[f],
            f"{me}_suppressed": supp,
            f"{me}_fell_back": self.fell_back[f],
            f"{me}_broke": self.broke[f],
            f"{me}_annihilated": self.gone[f],
            f"{them}_vp": self.vp[them],
            f"{me}_vp": self.vp[me],
            f"{them}_models_lost": self.lost[side == them].sum(axis=0),
            f"{me}_side_models_lost": self.lost[side == me].sum(axis=0),
            f"{me}_rally_failed": rally_failed,
            f"{me}_can_move_and_attack": full,
            "attacker_won_close_quarters": qc == 1,
            "defender_won_close_quarters": qc == 2,
            "close_quarters_stalemate": qc == 3,
        }
        c = self.passengers.get(f)
        if c is not None:
            out["passengers_models_lost"] = self.lost[c]
            out["passengers_suppressed"] = ~self.gone[c] & self.supp[c]
            out["passengers_annihilated"] = self.gone[c]
        return {k: np.asarray(v, dtype=np.int64) for k, v in out.items()}


def merge(total: dict[str, np.ndarray], part: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Histograms summed statistic by statistic (a new dict)."""
    out = dict(total)
    for k, h in part.items():
        t = out.get(k, np.zeros(0, dtype=np.int64))
        size = max(len(t), len(h))
        out[k] = np.pad(t, (0, size - len(t))) + np.pad(h, (0, size - len(h)))
    return out


def simulate(
    sc: ArmouredClashScenario,
    trials: int,
    seed: int,
    first_block: int = 0,
    foci: tuple[str, ...] | None = None,
) -> dict:
    """Histograms (index = value) of every statistic over ``trials`` trials of ``sc``, seen
    from its focus unit; with ``foci``, ``{unit: histograms}`` seen from each of those units
    (the same trials).

    Blocks of :data:`BLOCK` trials, block ``i`` drawn from ``Generator(PCG64(SeedSequence((
    seed, i))))`` for ``i`` from ``first_block``: the answer for a seed depends on nothing but
    the trial count, and a run of ``trials`` more from block ``first_block = trials // BLOCK``
    extends a run of ``trials`` (whole blocks) to the run of twice as many.
    """
    names = foci or (sc.focus if sc.focus is not None else sc.attacks[0].target,)
    total: dict[str, dict[str, np.ndarray]] = {f: {} for f in names}
    for i, begin in enumerate(range(0, trials, BLOCK), start=first_block):
        n = min(BLOCK, trials - begin)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence((seed, i))))
        for f, stats in _Block(sc, n, rng).run(names).items():
            total[f] = merge(total[f], {k: np.bincount(v) for k, v in stats.items()})
    return total if foci else total[names[0]]
