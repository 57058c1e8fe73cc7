"""A fast, independent reference of the Vom Kriege combat rules: numpy, vectorised across trials.

Written from the rule text (/work/shared/rules/vom-kriege.txt) and the readings of
docs/vom-kriege.md, not from the kernel, the compiled tables or the pure-Python reference: it
works out every roll itself (fire points by range band, the shooting and melee adjustment
rows, squares, the form-square test, leaders' contact rolls) from the scenario objects' fields.
From the package it reads only the scenario objects, ``range_band`` (the bands' limits), which
statistics a scenario reports (``statistics.reported``) and whose fate they follow (the
scenario's ``_focus`` and ``_fu_action``). The statistics mean what the pure-Python
reference's ``Trial.stats`` makes them mean (``attacker_followed_up``: the focus attacker's
follow-up; ``hits_on_*``/``flags_on_*``: every symbol rolled at the unit, a retire's flags
and cavalry's flags at a square included, whatever they then do).

Every trial is a column: each unit's state is an array over the trials, each action acts on
all trials at once with masks for its branches (a reaction, a retire, a battle back, a
follow-up), and the loops run only over actions, batteries and the few sub-steps of a melee.
A battle roll draws one face per die (a ``dice x trials`` array) and counts the symbols:
about 1 us a trial. Not modelled (no scenario compared with it reaches them; :class:`Trials`
refuses them): counter-charges. The melee steps are in tests/fast_vom_kriege_melee.py.
"""

from __future__ import annotations

import numpy as np
from fast_vom_kriege_melee import IGNORE_FLAGS, NORMAL, SQUARE_BB, Melee

from oddslab.rulesets.vom_kriege.statistics import reported

SYMBOLS = ("infantry", "cavalry", "artillery", "saber", "flag", "blank")
INF, CAV, ART, SABER, FLAG = range(5)
TROOP = {"infantry": INF, "cavalry": CAV, "artillery": ART}
#: "Artillery Fire Points" by battery and range column 3", 6", 12", 18", 24"
ARTILLERY_FP = {
    (8, "heavy"): (5, 4, 3, 2, 1),
    (8, "light"): (4, 3, 3, 2, 1),
    (6, "heavy"): (4, 3, 3, 2, 1),
    (6, "light"): (3, 2, 2, 1, 1),
}
#: infantry fire points at close range (3") by formation ("Fire Points" table)
CLOSE_FP = {
    "line": 4,
    "two_rank_line": 4,
    "column": 2,
    "open_order": 2,
    "square": 1,
    "march_column": 0,
}
BLOCK = 100_000  # trials per vectorised block (memory flat in the trial count)


class Trials(Melee):
    """``n`` trials of scenario ``sc`` played together (``rng``: a numpy Generator)."""

    def __init__(self, sc, n: int, rng: np.random.Generator):
        r = sc.rules
        for a in sc.actions:
            if "counter_charge" in (a.reaction, a.follow_up_reaction):
                raise NotImplementedError("counter-charges are not modelled here")
        self.sc, self.n, self.rng, self.r = sc, n, rng, r
        self.U = list(sc.units)
        self.ix = {u.name: i for i, u in enumerate(self.U)}
        self.Ld = list(sc.leaders)
        self.lix = {ld.name: i for i, ld in enumerate(self.Ld)}
        faces = sc.dice.faces
        self.p = np.array([faces.count(s) / len(faces) for s in SYMBOLS])
        self.face_symbol = np.array([SYMBOLS.index(x) for x in faces], dtype=np.int8)
        nu, nl = len(self.U), len(self.Ld)

        def col(vals, k=nu):
            return np.repeat(np.asarray(vals, dtype=np.int16)[:, None], n, axis=1)

        self.mx = [u.max_hits for u in self.U]
        self.hits = col([u.hits for u in self.U])
        self.diso = col([u.disordered for u in self.U]).astype(bool)
        self.square = col([u.form == "square" for u in self.U]).astype(bool)
        self.limbered = col([u.form == "limbered" for u in self.U]).astype(bool)
        self.marker = col([u.shooting_marker for u in self.U])
        z = np.zeros((nu, n), dtype=np.int16)
        self.removed = z.astype(bool)
        self.retired, self.squared = z.astype(bool), z.astype(bool)
        self.fellback, self.meleed, self.followed = (z.astype(bool) for _ in range(3))
        self.retreats, self.hm = z.copy(), z.copy()
        self.hr, self.fr, self.bb, self.df = z.copy(), z.copy(), z.copy(), z.copy()
        self.lhits = col([ld.hits for ld in self.Ld], nl)
        self.lremoved = self.lhits >= 3
        self.lost = np.zeros((nl, n), dtype=np.int16)
        self.rolled = np.zeros((nl, n), dtype=np.int16)
        self.lretired = np.zeros((nl, n), dtype=bool)
        self.dice = {"attacker": np.zeros(n, dtype=np.int16), "defender": np.zeros(n, np.int16)}
        self.any_follow = np.zeros(n, dtype=bool)
        self.command = {
            ld.name: [i for i, u in enumerate(self.U) if u.leader == ld.name] for ld in self.Ld
        }

    # -- the unit's state ------------------------------------------------------------------------
    def alive(self, i):
        return ~self.removed[i]

    def at_max(self, i):
        return ~self.removed[i] & (self.hits[i] >= self.mx[i])

    def shaken(self, i, hits=None):
        return (self.hits[i] if hits is None else hits) == self.mx[i] - 1

    def set(self, arr, i, m, value):
        arr[i] = np.where(m, value, arr[i])

    # -- removal and the leader cascade ("Retreat outcome") -----------------------------------
    def remove(self, i, m):
        m = m & ~self.removed[i]
        if not m.any():
            return
        self.removed[i] |= m
        ln = self.U[i].leader
        if ln is None:
            return
        j = self.lix[ln]
        m = m & ~self.lremoved[j]
        self.lost[j] += m  # "the unit's leader suffers 1 hit"
        self.hit_leader(j, m.astype(np.int16), m)

    def hit_leader(self, j, k, m):
        """``k`` hits on leader ``j``: at 3 the leader and all its units are removed and the
        army leader of its side suffers 1 hit."""
        m = m & ~self.lremoved[j] & (k > 0)
        self.lhits[j] += np.where(m, k, 0).astype(np.int16)
        gone = m & (self.lhits[j] >= 3)
        if not gone.any():
            return
        ld = self.Ld[j]
        self.lremoved[j] |= gone
        self.set(
            self.lost, j, gone, ld.units if ld.units is not None else len(self.command[ld.name])
        )
        for i in self.command[ld.name]:
            self.removed[i] |= gone  # with the leader, not through it: no further leader hit
        if not ld.army:
            for k2, army in enumerate(self.Ld):
                if army.army and army.side == ld.side:
                    self.hit_leader(k2, gone.astype(np.int16), gone)

    def disorder(self, i, m):
        """Disordered; one at maximum hits that was not disordered is removed ("receive ...
        disorder ... already at their maximum hits")."""
        m = m & self.alive(i)
        self.remove(i, m & self.at_max(i) & ~self.diso[i])
        self.diso[i] |= m & self.alive(i)

    def retreat(self, i, m, half_moves):
        """A retreat of ``half_moves``: disordered, artillery limbers; blocked: 1 hit."""
        if self.U[i].retreat_blocked:
            self.hits[i] += m
            self.remove(i, m & (self.hits[i] >= self.mx[i]))
            if self.r.blocked_retreat_disorders:
                self.disorder(i, m)
            return
        self.hm[i] += np.where(m, half_moves, 0).astype(np.int16)
        self.retreats[i] += m
        self.diso[i] |= m
        if self.U[i].troop == "artillery":
            self.limbered[i] |= m

    def resolve(self, i, h, f, m, fmode=NORMAL, bb_half=None):
        """Hits first, then retreats ("Retreat outcome"); ``fmode``: the roll's flags act
        normally, are ignored, or (a square's battle back against cavalry) the retreat is
        ``bb_half`` half moves whatever the flags."""
        m = m & self.alive(i)
        if fmode == IGNORE_FLAGS:
            f = np.zeros_like(f)
        sq = self.square[i]
        forced = (f > 0) & ~sq
        half = f
        if fmode == SQUARE_BB:
            forced, half = np.ones_like(m), bb_half
        atmax0 = self.at_max(i)
        self.remove(i, m & atmax0 & ((h > 0) | (f > 0) | forced))
        m = m & ~atmax0
        new = self.hits[i] + h + np.where(sq, f, 0)
        self.set(self.hits, i, m, new)
        reach = m & (new >= self.mx[i])
        extra = reach & ((new > self.mx[i]) | forced)
        if self.r.same_roll_at_max == "absorb":
            extra = np.zeros_like(extra)
        self.retreat(i, reach, 2)  # "immediately retreat 1 move ... and become disordered"
        self.remove(i, extra)
        self.retreat(i, m & ~reach & forced, half)

    # -- dice ---------------------------------------------------------------------------------
    def roll(self, k, side, t, m, mode, attacker=None, leader=False):
        """Roll ``k`` battle dice (per trial) at unit ``t`` (or leader ``t``) where ``m``:
        (hits, flags). ``mode``: ``shoot``, ``melee`` or ``retire`` (only sabers hit)."""
        k = np.where(m, np.maximum(k, 0), 0)
        h = np.zeros(self.n, dtype=np.int16)
        f = np.zeros(self.n, dtype=np.int16)
        idx = np.flatnonzero(k)
        if len(idx) == 0:
            return h, f
        kk = k[idx]
        top = int(kk.max())
        # one face per die (a row per die, a column per trial), -1 past the trial's dice
        faces = self.face_symbol[self.rng.integers(0, len(self.face_symbol), (top, len(idx)))]
        faces[np.arange(top)[:, None] >= kk] = -1

        def count(symbol):
            return (faces == symbol).sum(axis=0, dtype=np.int16)

        self.dice[side] += k.astype(np.int16)
        sabers, flags = count(SABER), count(FLAG)
        if leader or mode == "retire":  # only a saber hits; the flags are rolled, and do nothing
            h[idx] = sabers
            if leader:
                self.rolled[t] += h
            else:
                self.hr[t] += h
                self.fr[t][idx] += flags
            return h, f
        T = self.U[t]
        sab = sabers if (mode == "melee" or self.r.sabers == "both") else 0
        hh = count(TROOP[T.troop]) + sab
        ff = flags
        if attacker is not None and self.U[attacker].troop == "cavalry" and T.troop == "infantry":
            # "Cavalry v Infantry in square only hit with a saber"; its flags per the switch
            sq = self.square[t][idx]
            hh = np.where(sq, sabers, hh)
            h[idx] = hh
            self.fr[t][idx] += ff  # rolled, whatever they do
            if self.r.cavalry_square_flags == "ignore":
                ff = np.where(sq, 0, ff)
            f[idx] = ff
        else:
            h[idx], f[idx] = hh, ff
            self.fr[t] += f
        self.hr[t] += h
        return h, f

    def bonus(self, order, supp):
        """ "Order bonus, or for each ... support unit +1" (``order_support_row``)."""
        if self.r.order_support_row == "largest":
            return max(int(order), supp)
        return int(order) + supp

    # -- shooting -------------------------------------------------------------------------------
    def fire_dice(self, s, t, band, order=False, supp=0, enf=False, obs=False):
        """(dice, may fire, places a marker) of unit ``s`` shooting at ``t`` in range ``band``."""
        S, T, r, n = self.U[s], self.U[t], self.r, self.n
        ssq = self.square[s]
        noadj = np.zeros(n, dtype=bool)
        if S.troop == "artillery":
            kind = S.unit_kind
            if kind == "horse":
                kind = r.horse_artillery
            fp = np.full(n, ARTILLERY_FP[(S.guns, kind)][band])
            can = ~self.limbered[s]
        elif S.troop == "cavalry":
            return np.zeros(n, np.int16), np.zeros(n, bool), np.zeros(n, bool)
        elif band == 0:
            close = 2 if S.terrain in ("bua", "woods") else CLOSE_FP[S.form]
            fp = np.where(ssq, 1, close)  # square fire: 1 die, no adjustments
            noadj = ssq.copy()
            can = np.full(n, S.form != "march_column")
        elif band == 1 and S.skirmish and S.terrain != "bua":
            ok = S.terrain != "woods" or S.form == "open_order"
            sk = 2 if (S.form == "open_order" and r.skirmish_dice == "table") else 1
            fp = np.full(n, sk)
            noadj = np.ones(n, dtype=bool)
            can = ~ssq & ok & (S.form != "march_column")
        else:
            return np.zeros(n, np.int16), np.zeros(n, bool), np.zeros(n, bool)
        can = can & self.alive(s) & ~self.at_max(s)
        art_rows = S.troop == "artillery" or r.artillery_rows == "target"
        adj = np.full(n, self.bonus(order, supp))
        if S.form == "two_rank_line" and band == 0:
            adj += ~ssq
        if art_rows:
            tsq = self.square[t]
            tcol = T.form in ("column", "march_column")
            if r.or_rows == "each":
                adj += int(enf) + tsq + int(tcol)
            else:
                adj += enf | tsq | tcol
            sk_t = {"sk": T.skirmish, "open_order": T.form == "open_order"}.get(
                r.skirmish_target, T.skirmish or T.form == "open_order"
            )
            in_band = band <= 1 if r.skirmish_range == "up_to_6" else band == 1
            adj -= int(sk_t and in_band)
        if T.terrain == "woods":
            adj -= 1
        elif T.terrain in ("bua", "fieldworks"):
            if r.artillery_rows == "shooter":
                adj -= 2 if S.troop == "infantry" else 1
            else:
                adj -= {"infantry": 2, "artillery": 1}.get(T.troop, 0)
        sh, di = self.shaken(s), self.diso[s]
        if r.or_rows == "largest":
            adj -= np.maximum(sh * 1, di * 2)
        else:
            adj -= sh * 1 + di * 2
        halves = [self.marker[s] > 0, np.full(n, obs)]
        c = fp.astype(np.int64)
        if r.halving == "before":
            for hv in halves:
                c = np.where(hv, np.maximum(1, c // 2), c)
            c = c + adj
        else:
            c = c + adj
            for hv in halves:
                half = np.maximum(1, c // 2)
                if r.halving_floor == "positive":
                    half = np.where(c > 0, half, c)
                c = np.where(hv, half, c)
        c = np.maximum(c, r.min_dice)
        dice = np.where(noadj, fp, c)
        marks = can & ~(noadj & ~ssq)  # skirmish fire places no marker
        return dice.astype(np.int16), can, marks

    def fire(self, s, t, band, m, side, order=False, supp=0, enf=False, obs=False, defensive=False):
        dice, can, marks = self.fire_dice(s, t, band, order, supp, enf, obs)
        can = can & m & self.alive(t)
        h, f = self.roll(dice, side, t, can, "shoot")
        self.marker[s] |= can & marks
        if defensive:
            self.df[t] += h
        ig = defensive and self.r.defensive_fire_flags == "ignore"
        self.resolve(t, h, f, can, IGNORE_FLAGS if ig else NORMAL)
        return can

    # -- statistics ---------------------------------------------------------------------------
    def values(self) -> dict[str, np.ndarray]:
        """Every statistic's value per trial (the names of ``statistics.reported``)."""
        sc = self.sc
        att, dfd = sc._focus
        out = {"attacker_dice_rolled": self.dice["attacker"]}
        out["defender_dice_rolled"] = self.dice["defender"]
        for who, name in (("defender", dfd), ("attacker", att)):
            if name not in self.ix:
                continue
            i = self.ix[name]
            out[f"hits_on_{who}"] = self.hr[i]
            out[f"flags_on_{who}"] = self.fr[i]
            out[f"{who}_hits"] = np.minimum(self.hits[i], self.mx[i])
            out[f"{who}_retreat_half_moves"] = self.hm[i]
            out[f"{who}_retreated"] = self.retreats[i] > 0
            out[f"{who}_disordered"] = self.diso[i] & ~self.removed[i]
            out[f"{who}_removed"] = self.removed[i]
            out[f"{who}_at_max_hits"] = self.at_max(i)
        if dfd in self.ix:
            d = self.ix[dfd]
            out["defender_broken"] = self.removed[d] | self.at_max(d)
            out["defender_retired"] = self.retired[d]
            out["defender_formed_square"] = self.squared[d]
        a = self.ix[att]
        out["attacker_fell_back"] = self.fellback[a]
        out["attacker_reached_melee"] = self.meleed[a]
        out["hits_on_attacker_by_battle_back"] = self.bb[a]
        out["hits_on_attacker_by_defensive_fire"] = self.df[a]
        out["attacker_followed_up"] = self.any_follow
        fa = sc._fu_action()
        if fa >= 0:
            t2 = self.ix[sc.actions[fa].follow_up]
            out["hits_on_second_target"] = self.hr[t2]
            out["second_target_retreated"] = self.retreats[t2] > 0
            out["second_target_removed"] = self.removed[t2]
        for who, name in (("defender", dfd), ("attacker", att)):
            ln = self.U[self.ix[name]].leader if name in self.ix else name
            if ln:
                j = self.lix[ln]
                out[f"{who}_leader_hits"] = np.minimum(self.lhits[j], 3)
                out[f"{who}_leader_removed"] = self.lremoved[j]
                out[f"{who}_command_units_removed"] = self.lost[j]
                out[f"hits_on_{who}_leader"] = self.rolled[j]
                out[f"{who}_leader_retired"] = self.lretired[j]
            for j, ld in enumerate(self.Ld):
                if ld.army and ld.side == who:
                    out[f"{who}_army_leader_hits"] = np.minimum(self.lhits[j], 3)
        for who in ("defender", "attacker"):
            rows = [i for i, u in enumerate(self.U) if u.side == who]
            out[f"{who}_side_units_removed"] = self.removed[rows].sum(axis=0)
        return out


def simulate(sc, trials: int, seed: int, first_block: int = 0) -> dict[str, np.ndarray]:
    """Histograms ``{statistic: counts}`` (the statistics ``sc`` reports) of ``trials`` trials:
    blocks of ``BLOCK`` trials, block ``b`` drawn from ``numpy.random.default_rng((seed, b))``
    (``first_block``: the index of the first), so the runs for a seed are nested."""
    names = reported(sc)
    counts: dict[str, np.ndarray] = {}
    done, b = 0, first_block
    while done < trials:
        n = min(BLOCK, trials - done)
        vals = Trials(sc, n, np.random.default_rng((seed, b))).run().values()
        for name in names:
            c = np.bincount(np.asarray(vals[name], dtype=np.int64))
            counts[name] = _add(counts.get(name, np.zeros(0, dtype=np.int64)), c)
        done += n
        b += 1
    return counts


# -- checking this reference against exact answers (the tests' helper) -------------------------

FAST_STEP = 100_000  # fast trials are added a block at a time
FAST_MAX = 3_000_000


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    size = max(len(a), len(b))
    return np.pad(a, (0, size - len(a))) + np.pad(b, (0, size - len(b)))


def _weak_exact(fast, exact, k) -> bool:
    from switches import assert_exact_power

    try:
        for name, c in fast.items():
            assert_exact_power(c, exact[name], "", k)
    except AssertionError:
        return True
    return False


def check_exact(sc, exact: dict[str, np.ndarray], seed: int, what: str) -> int:
    """This reference's histograms of ``sc`` against exact PMFs (``exact``: every statistic it
    reports), with the power to see a 0.5 pp error in any of them: ``2 * FAST_STEP`` trials,
    then one more block at a time while a 0.5 pp shift of some statistic would pass
    (``switches.assert_exact_power``); then the comparison and the power check
    (``exact_vom_kriege.assert_exact``). Returns the trials run."""
    from exact_vom_kriege import assert_exact

    n = 2 * FAST_STEP
    fast = simulate(sc, n, seed)
    while n < FAST_MAX and _weak_exact(fast, exact, len(fast)):
        more = simulate(sc, FAST_STEP, seed, first_block=n // FAST_STEP)
        fast = {s: _add(fast[s], more[s]) for s in fast}
        n += FAST_STEP
    assert_exact(fast, exact, f"{what} (fast reference)")
    return n
