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
from fast_hex_platoon_steps import Steps, fire_numbers  # noqa: F401 (fire_numbers: public)

from oddslab.rulesets.hex_platoon import layout as K

CONCEALING = ("wood", "city", "rough", "cultivated", "wreck")
NREC = 16
BLOCK = 100_000  # trials per vectorised block (memory stays flat in the trial count)


class Trials(Steps):
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
    among the possible outcomes (``switches.assert_exact_power``) the same comparison fails."""
    from stats import P_MIN, chisquare_pmf
    from switches import assert_exact_power

    k = len(exact)
    for name, pmf in exact.items():
        p = chisquare_pmf(counts[name], pmf) * k
        assert p > P_MIN, f"{what}: {name} against the exact PMF, p = {p:.2e}"
        assert_exact_power(counts[name], pmf, f"{what}: {name}", k)
