"""A fast, independent reference for formation-actions games: numpy, many games at once.

Written from the rule text (/work/shared/rules/formation-actions.txt, "Battle Phases") and the
readings of docs/formation-actions.md, not from the kernels, the compiled tables or the naive
reference: the games of a block are the columns of arrays (``shock[formation, game]`` and
flags), every step of the rules is a few array operations over the games, with masks for the
branches; the loops run over turns, activations and formations only. Dice come from an
explicitly seeded numpy Generator (block ``i`` from ``default_rng([seed, i])``). About 3-8 us
a game for the tests' scenarios against 300-550 us for the pure-Python reference (noisy: a
shared machine at load 10), so the 300,000-400,000 reference games a 0.5 percentage-point
error needs (tests/switches.py ``assert_power``) cost one to three CPU-seconds.

Also here: :func:`assert_exact`, simulated histograms against exact PMFs with the power to see
a 0.5 pp error checked on the same run (:func:`assert_exact_power`).
"""

from __future__ import annotations

import numpy as np
from stats import P_MIN, chisquare_pmf
from switches import assert_exact_power

from oddslab.rulesets.formation_actions import FormationActionsScenario

__all__ = ["simulate", "assert_exact"]

_POLICY = {"listed": 0, "best-first": 1, "worst-first": 2}


def _faces(target: np.ndarray, rules) -> np.ndarray:
    """Passing faces of "roll under or equal to" ``target`` on a D6; the faces that pass are
    always 1..faces (a natural 1 passing adds face 1, a natural 6 failing removes face 6)."""
    f = np.clip(target, 0, 6)
    if rules.natural_one_passes:
        f = np.maximum(f, 1)
    if rules.natural_six_fails:
        f = np.minimum(f, 5)
    return f


def _penalty(rules, suppressed: np.ndarray, shock: np.ndarray) -> np.ndarray:
    """The action test's -1 (0, 1 or 2) under ``rules.action_penalty``: "-1 ... if any unit
    in the formation is suppressed" (the sentence), "Any Shock Points -1" (the table), one -1
    for either, or -1 for each."""
    reading = rules.action_penalty
    sup = suppressed.astype(np.int64)
    if reading == "suppressed":
        return sup + np.zeros_like(shock)
    sh = (shock > 0).astype(np.int64)
    if reading == "shock":
        return sh
    return np.maximum(sup, sh) if reading == "either" else sup + sh


class _Game:
    """The state of ``n`` games: one row per formation (both armies, army 0's first), one
    column per game (``shock[formation, game]``: a formation's row is contiguous)."""

    def __init__(self, sc: FormationActionsScenario, n: int, rng: np.random.Generator):
        self.sc, self.rules, self.n, self.rng = sc, sc.rules, n, rng
        specs = [(a, f) for a, army in enumerate(sc.armies) for f in army.formations]
        self.specs = specs
        F = len(specs)

        def col(values, dtype=np.int64):  # per formation, broadcasting over the games
            return np.array(values, dtype=dtype)[:, None]

        self.command = col([f.command for _, f in specs])
        self.units = col([f.units for _, f in specs])
        self.thresh = col([f.threshold for _, f in specs])
        self.suppressed = col([f.suppressed > 0 for _, f in specs], bool)
        self.near = col([int(f.enemy_within_8) for _, f in specs])
        sizes = [len(army.formations) for army in sc.armies]
        self.slices = [(0, sizes[0]), (sizes[0], sizes[0] + sizes[1])]
        self.shock = np.repeat(col([f.shock for _, f in specs]), n, axis=1)
        starts_broken = [f.broken or f.shock >= f.threshold for _, f in specs]
        self.broken = np.repeat(col(starts_broken, bool), n, axis=1)
        self.ever = self.broken.copy()
        self.gone = np.zeros((F, n), dtype=bool)
        self._cap()
        self.actions, self.holds, self.rallied, self.unbroken, self.withdrawals = (
            np.zeros((F, n), dtype=np.int64) for _ in range(5)
        )
        self.retain_attempts = np.zeros((2, n), dtype=np.int64)
        self.retained = np.zeros((2, n), dtype=np.int64)
        self.won = np.zeros((2, n), dtype=np.int64)
        self.stats: dict[str, np.ndarray] = {}

    # -- Shock ---------------------------------------------------------------------------------

    def _cap(self) -> None:
        # broken_shock "cap": "It counts as having as many Shock points as units" while broken
        if self.rules.broken_shock == "cap":
            np.minimum(self.shock, self.units, out=self.shock, where=self.broken)

    def _gain(self, k: np.ndarray) -> None:
        """Shock ``k[formation, game]``; with ``break_check = "immediate"`` a formation breaks
        when its Shock rises to its threshold."""
        self.shock += k
        if self.rules.break_check == "immediate":
            new = (k > 0) & ~self.broken & (self.shock >= self.thresh)
            self.broken |= new
            self.ever |= new
        self._cap()

    def _outside(self) -> np.ndarray:
        """Each formation's outside Shock this turn (0 for one out of play)."""
        n, rng = self.n, self.rng
        k = np.zeros((len(self.specs), n), dtype=np.int64)
        for j, (_a, f) in enumerate(self.specs):
            o = f.outside_shock
            if o.dice is not None:
                d = o.dice
                roll = rng.integers(1, d.sides + 1, size=(d.n, n)).sum(axis=0) if d.n else 0
                k[j] = np.maximum(0, roll + d.add)
            elif o.table is not None:
                cum = np.cumsum(o.table)
                k[j] = np.minimum(np.searchsorted(cum, rng.random(n), side="right"), o.max)
            else:
                k[j] = o.fixed
        k[self.gone] = 0
        return k

    # -- the strategy phase ----------------------------------------------------------------

    def strategy(self, t: int, last: np.ndarray) -> np.ndarray:
        """The army winning turn ``t``'s strategy roll (0-based turn), per game."""
        s0, s1 = (a.strategy for a in self.sc.armies)
        r0 = self.rng.integers(1, 7, self.n) + s0
        r1 = self.rng.integers(1, 7, self.n) + s1
        win = np.where(r0 > r1, 0, 1)
        tie = r0 == r1
        if t > 0:  # "the side that failed to win the initiative last round gets it"
            win = np.where(tie, 1 - last, win)
        elif self.rules.first_turn_tie != "reroll":
            keys = [a.key for a in self.sc.armies]
            win = np.where(tie, keys.index(self.rules.first_turn_tie), win)
        else:
            while tie.any():  # no last round: roll again
                idx = np.flatnonzero(tie)
                r0 = self.rng.integers(1, 7, idx.size) + s0
                r1 = self.rng.integers(1, 7, idx.size) + s1
                win[idx] = np.where(r0 > r1, 0, 1)
                tie[idx] = r0 == r1
        return win

    # -- the action phase ------------------------------------------------------------------

    def _faces_at(self, j: np.ndarray, retaining: np.ndarray) -> np.ndarray:
        """Passing faces of the test formation ``j[g]`` of game ``g`` takes now (with the
        retaining -1 where ``retaining``)."""
        shock = self.shock.reshape(-1)[j * self.n + np.arange(self.n)]
        pen = _penalty(self.rules, self.suppressed[j, 0], shock)
        return _faces(self.command[j, 0] - pen - retaining, self.rules)

    def _pick(self, side: np.ndarray, retaining: np.ndarray, free: np.ndarray) -> np.ndarray:
        """The formation each game's acting army activates next: its ``order`` among its
        unbroken formations in play that have not acted (``free``), ranked by the chance of
        the test each is about to take (ties: listed order)."""
        pick = np.zeros(self.n, dtype=np.int64)
        for a, (s, e) in enumerate(self.slices):
            sub = free[s:e]
            pol = _POLICY[self.sc.armies[a].order]
            if self.rules.action_penalty == "suppressed":
                # the chances do not change in the game: two fixed rankings, without and with
                # the retaining -1; the first free formation in the ranking
                ranked = []
                for m in (0, 1):
                    faces = _faces(self.command[s:e, 0] - self.suppressed[s:e, 0] - m, self.rules)
                    key = [
                        (0 if pol == 0 else -f if pol == 1 else f, i) for i, f in enumerate(faces)
                    ]
                    j = np.zeros(self.n, dtype=np.int64)
                    for _k, i in sorted(key, reverse=True):
                        j = np.where(sub[i], i, j)
                    ranked.append(j)
                j = np.where(retaining != 0, ranked[1], ranked[0])
                pick = np.where(side == a, s + j, pick)
                continue
            if pol == 0:  # the first listed
                score = sub
            else:
                pen = _penalty(self.rules, self.suppressed[s:e], self.shock[s:e])
                faces = _faces(self.command[s:e] - pen - retaining, self.rules)
                score = np.where(sub, faces if pol == 1 else 6 - faces, -1)
            # the first row with the highest score (a loop over the few rows: numpy's
            # argmax along the first axis is slow)
            j = np.zeros(self.n, dtype=np.int64)
            top = score[0]
            for r in range(1, e - s):
                better = score[r] > top
                j[better] = r
                top = np.maximum(top, score[r])
            pick = np.where(side == a, s + j, pick)
        return pick

    def action_phase(self, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Alternate activations; returns (passed, held) flags ``[formation, game]``."""
        n, rules, rng = self.n, self.rules, self.rng
        games = np.arange(n)
        F = len(self.specs)
        free = ~self.broken & ~self.gone  # "Only unbroken formations act, each once"
        passed = np.zeros((F, n), dtype=bool)
        held = np.zeros((F, n), dtype=bool)
        # flat views ([formation * n + game]) for the one formation each game activates
        free_, passed_, held_ = free.reshape(-1), passed.reshape(-1), held.reshape(-1)
        shock_, broken_, ever_ = (x.reshape(-1) for x in (self.shock, self.broken, self.ever))
        tried = [np.zeros(n, dtype=bool), np.zeros(n, dtype=bool)]  # once-per-turn
        side = first.copy()
        retaining = np.zeros(n, dtype=bool)
        armies = self.sc.armies
        can = [a.retain != "never" and len(a.formations) > 1 for a in armies]
        always = [a.retain == "always" for a in armies]
        need = [int(np.ceil(a.retain_chance * 6 - 1e-9)) for a in armies]
        immediate = rules.break_check == "immediate"
        cap = rules.broken_shock == "cap"
        # per army: how many unbroken formations in play have not acted, per game
        count = [free[s:e].sum(axis=0) for s, e in self.slices]
        for _ in range(F):
            left0, left1 = count[0] > 0, count[1] > 0
            live = left0 | left1
            if not live.any():
                break
            # an army with nothing left to activate: the other keeps on, with no -1
            out = ~np.where(side == 0, left0, left1)
            side = np.where(live & out, 1 - side, side)
            retaining &= ~out
            j = self._pick(side, retaining, free)
            faces = self._faces_at(j, retaining)
            ok = rng.integers(1, 7, n) <= faces
            pas = live & ok
            hold = live & ~ok
            flat = j * n + games
            free_[flat[live]] = False
            passed_[flat[pas]] = True
            fh = flat[hold]
            held_[fh] = True
            for a in (0, 1):
                self.retained[a] += pas & retaining & (side == a)
            # a Hold: "the formation gains a point of Shock" (it has acted: breaking now or
            # later in the turn changes nothing in this action phase)
            jh = j[hold]
            s = shock_[fh] + 1
            if immediate:
                new = ~broken_[fh] & (s >= self.thresh[jh, 0])
                broken_[fh[new]] = True
                ever_[fh[new]] = True
                if cap:
                    s = np.where(new, np.minimum(s, self.units[jh, 0]), s)
            shock_[fh] = s
            # who acts next: after a retaining test the initiative passes to the opponent;
            # after a passed test the army may retain (its policy, the limit, both sides
            # having a formation left)
            for a in (0, 1):
                count[a] -= live & (side == a)
            left0, left1 = count[0] > 0, count[1] > 0
            mine = np.where(side == 0, left0, left1)
            other = np.where(side == 0, left1, left0)
            go = pas & ~retaining & mine & other
            for a in (0, 1):
                here = side == a
                if not can[a]:
                    go &= ~here
                    continue
                if rules.retain_limit == "once-per-turn":
                    go &= ~(here & tried[a])
                if not always[a]:
                    ones = np.ones(n, dtype=np.int64)
                    f2 = self._faces_at(self._pick(side, ones, free), ones)
                    go &= ~here | (f2 >= need[a])
            for a in (0, 1):
                mark = go & (side == a)
                self.retain_attempts[a] += mark
                tried[a] |= mark
            side = np.where(go | ~other, side, 1 - side)
            retaining = go
        self.actions += passed
        self.holds += held
        return passed, held

    # -- the end phase -----------------------------------------------------------------

    def end_phase(self) -> None:
        rules, rng = self.rules, self.rng
        if rules.outside_timing == "before-rally":
            self._gain(self._outside())
        if rules.break_check == "end-phase":
            new = ~self.gone & ~self.broken & (self.shock >= self.thresh)
            self.broken |= new
            self.ever |= new
            self._cap()
        # rallying: every formation in play with Shock or broken; the order changes nothing
        rally = ~self.gone & ((self.shock > 0) | self.broken)
        target = self.command - 2 * self.broken - self.near
        if rules.rally_action_penalty:
            target = target - _penalty(rules, self.suppressed, self.shock)
        roll = rng.integers(1, 7, size=self.shock.shape)
        ok = rally & (roll <= _faces(target, rules))
        fail = rally & ~ok
        # "A broken formation that rallies ... counts as having as many Shock points as
        # units, half of which will be removed"; remove half, rounding down, at least 1
        s = np.where(self.broken, self.units, self.shock)
        s = s - np.maximum(1, s // 2)
        self.shock = np.where(ok, s, self.shock)
        self.rallied += ok & self.broken
        self.unbroken += ok & ~self.broken
        wd = fail & self.broken
        self.withdrawals += wd
        if rules.withdrawal == "removed":
            self.gone |= wd
        self.broken &= ~ok
        self._cap()

    # -- a whole game ------------------------------------------------------------------

    def play(self) -> dict[str, np.ndarray]:
        sc, rules, n = self.sc, self.rules, self.n
        keys = [a.key for a in sc.armies]
        names = [f"{keys[a]}_{f.key}" for a, f in self.specs]
        st = self.stats
        last = np.zeros(n, dtype=np.int64)
        goes_first = np.array([a.choose == "first" for a in sc.armies])
        for t in range(sc.turns):
            T = t + 1
            if rules.outside_timing == "start-of-turn":
                self._gain(self._outside())
            win = self.strategy(t, last)
            last = win
            for a in (0, 1):
                st[f"{keys[a]}_won_strategy_turn_{T}"] = win == a
                self.won[a] += win == a
            passed, held = self.action_phase(np.where(goes_first[win], win, 1 - win))
            self.end_phase()
            out = self.broken | self.gone
            for j, nm in enumerate(names):
                st[f"{nm}_action_turn_{T}"] = passed[j] + 2 * held[j]
                st[f"{nm}_shock_after_turn_{T}"] = self.shock[j].copy()
                st[f"{nm}_broken_by_turn_{T}"] = self.ever[j].copy()
            for a, (s, e) in enumerate(self.slices):
                st[f"{keys[a]}_actions_turn_{T}"] = passed[s:e].sum(axis=0)
                st[f"{keys[a]}_holds_turn_{T}"] = held[s:e].sum(axis=0)
                st[f"{keys[a]}_broken_after_turn_{T}"] = out[s:e].sum(axis=0)
        out = self.broken | self.gone
        for j, nm in enumerate(names):
            st[f"{nm}_actions"] = self.actions[j]
            st[f"{nm}_holds"] = self.holds[j]
            st[f"{nm}_rallied"] = self.rallied[j]
            st[f"{nm}_rallied_unbroken"] = self.unbroken[j]
            st[f"{nm}_withdrawals"] = self.withdrawals[j]
            st[f"{nm}_broken_at_end"] = out[j]
            st[f"{nm}_out_of_play"] = self.gone[j]
        for a, (s, e) in enumerate(self.slices):
            st[f"{keys[a]}_won_strategy"] = self.won[a]
            st[f"{keys[a]}_withdrawals"] = self.withdrawals[s:e].sum(axis=0)
            st[f"{keys[a]}_retain_attempts"] = self.retain_attempts[a]
            st[f"{keys[a]}_retained"] = self.retained[a]
        return st


#: games per block: memory stays flat in the number of games
BLOCK = 100_000


def simulate(sc: FormationActionsScenario, games: int, seed: int) -> dict[str, np.ndarray]:
    """``games`` games; ``{statistic: histogram (int64, index = value)}`` for every statistic
    the rules define (a superset of what the kernel reports for the scenario). Blocks of
    ``BLOCK`` games, block ``i`` from ``numpy.random.default_rng([seed, i])``."""
    total: dict[str, np.ndarray] = {}
    for i, start in enumerate(range(0, games, BLOCK)):
        m = min(BLOCK, games - start)
        stats = _Game(sc, m, np.random.default_rng([seed, i])).play()
        for k, v in stats.items():
            h = np.bincount(np.asarray(v, dtype=np.int64))
            t = total.get(k, np.zeros(0, dtype=np.int64))
            size = max(len(t), len(h))
            total[k] = np.pad(t, (0, size - len(t))) + np.pad(h, (0, size - len(h)))
    return total


def assert_exact(
    counts: dict[str, np.ndarray],
    pmfs: dict[str, np.ndarray],
    what: str,
    headline: tuple[str, ...] = (),
) -> None:
    """Every statistic in ``counts`` with an exact PMF agrees with it (chi-square with the rare
    outcomes tested alone, tests/stats.py; Bonferroni over the statistics compared: the
    smallest p times their number must exceed ``P_MIN``), and had the simulation moved 0.5
    percentage points of any ``headline`` statistic between its most likely outcome and a
    neighbour (:func:`shifted_on_support`) the same comparison would have failed."""
    common = sorted(set(counts) & set(pmfs))
    assert common, f"{what}: no statistic has an exact PMF"
    assert set(headline) <= set(common), f"{what}: {sorted(set(headline) - set(common))}"
    k = len(common)
    ps = {name: chisquare_pmf(counts[name], pmfs[name]) for name in common}
    worst = min(ps, key=ps.get)
    assert ps[worst] * k > P_MIN, (
        f"{what}: {worst} differs from its exact PMF (p = {ps[worst]:.2e}, {k} statistics)\n"
        f"counts {counts[worst]}\npmf    {pmfs[worst]}"
    )
    for name in headline:
        assert_exact_power(counts[name], pmfs[name], f"{what}: {name}", k)
