"""Exact distributions of the pure-Python Vom Kriege reference, branching on whole rolls.

``naive_vom_kriege.enumerate_outcomes`` branches on every die (faces ** dice sequences: a few
dozen dice of two or three faces at most). Here the reference's :class:`naive_vom_kriege.Trial`
is played with every random event branching on its *outcome* instead:

- a battle roll of ``n`` dice (``Trial.roll``) on its (hits, flags) count, with the multinomial
  probability of that count (each face scored by the reference's own ``roll`` on that face);
- a form-square test (any ``infantry`` among ``k`` command dice) and a leader's contact roll
  (one die at a time, only ``saber`` counts) on whether each die shows that symbol.

The trial is played one action at a time (the reference's own ``run`` on a scenario holding
that action only). What is carried from one action to the next is the distribution of the
*rules state* (every field a rule reads) and, beside each rules state, the distribution of each
statistics-only count or mark (hits rolled on a unit, dice rolled by a side, a retreat, a
square formed, ...) jointly with it: the statistics are marginals, each reads the rules state
and at most one such count, and what happens next depends on the rules state alone, so the
joint of all counts is never needed. A rules state is played through an action with its unit
and leader dicts noting every field read and written (``exact_vom_kriege_state.Seen``): the
reference is deterministic given what it reads, so another state that agrees on every field
those paths read plays the same way, and reuses the outcomes, each kept as the fields its path
wrote (:class:`_Action`). The outcomes are grouped by what they write, with each count's
increment beside it; at the end the states are merged on what ``Trial.stats`` reads
(:class:`_ByStats`). Within an action every branch is replayed from that action's start (the
reference is not resumable), so an action costs the number of roll outcomes along its paths
times the cost of playing it, once per distinct part of the state it reads (the five largest
scenarios of the tests, a melee with a battery, defensive fire, a retire and a follow-up that
fires and battles back among them, take 0.4-1.7 s of CPU). The answer is the reference's exact
distribution, so a kernel histogram of 10^6 trials against it sees a 0.5 percentage-point error
without any sampling on the reference side (:func:`assert_exact`).

The roll-level outcomes are checked against every face sequence
(``naive_vom_kriege.enumerate_outcomes``) in tests/test_vom_kriege_exact.py.
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from collections.abc import Mapping

import naive_vom_kriege as naive
import numpy as np
from exact_vom_kriege_state import Layout, Log, add, is_mark, merge_into, step
from stats import P_MIN, chisquare_pmf
from switches import assert_exact_power

#: the symbol the reference compares each die with, by the function rolling it one at a time
_ONE_SYMBOL = {"melee": "infantry", "contact_leader": "saber"}


class _FollowUp(Exception):
    """The trial reached its follow-up melee: paused there, so the states that reach it are
    merged before it is played."""


class _Branch(Exception):
    def __init__(self, options: int):
        self.options = options


class _Script:
    """Replays the chosen outcome of each random event in turn; raises :class:`_Branch` (with
    the number of outcomes) at the first event past the script."""

    def __init__(self, script: tuple[int, ...]):
        self.script = script
        self.i = 0
        self.p = 1.0

    def pick(self, options: list[tuple[float, object]]) -> object:
        if self.i == len(self.script):
            raise _Branch(len(options))
        p, value = options[self.script[self.i]]
        self.i += 1
        self.p *= p
        return value

    def choice(self, faces):
        """One die of a form-square test or a leader contact: the symbol or not (which symbol
        the caller compares with is told by the function whose generator expression rolls
        the die: ``Trial.melee`` for the square test, ``Trial.contact_leader``)."""
        symbol = _ONE_SYMBOL[sys._getframe(2).f_code.co_name]
        q = faces.count(symbol) / len(faces)
        options = [(q, symbol), (1.0 - q, "<other>")]
        return self.pick([o for o in options if o[0] > 0])


def _face_effect(trial: naive.Trial, face: str, side: str, target: str, mode: str):
    """(hits, flags) the reference's ``roll`` scores for one die showing ``face``."""
    saved = trial.rng, trial.u[target]["hits_rolled"], trial.u[target]["flags_rolled"]
    trial.rng = _Fixed(face)
    try:
        return naive.Trial.roll(trial, 1, side, target, mode)
    finally:
        trial.rng = saved[0]
        trial.u[target]["hits_rolled"], trial.u[target]["flags_rolled"] = saved[1:]
        trial.dice[side] -= 1


class _Fixed:
    def __init__(self, face: str):
        self.face = face

    def choice(self, faces):
        return self.face


def _roll_pmf(effects: dict[tuple[int, int], float], n: int) -> list[tuple[float, tuple]]:
    """Multinomial distribution of the summed (hits, flags) of ``n`` dice."""
    dist = {(0, 0): 1.0}
    for _ in range(n):
        nxt: dict[tuple[int, int], float] = {}
        for (h, f), p in dist.items():
            for (dh, df), q in effects.items():
                key = (h + dh, f + df)
                nxt[key] = nxt.get(key, 0.0) + p * q
        dist = nxt
    return [(p, hf) for hf, p in sorted(dist.items()) if p > 0]


class _Trial(naive.Trial):
    """The reference trial with whole-roll outcomes scripted; ``stats`` waits for the end."""

    final = False
    pause = False

    def stats(self):
        return super().stats() if self.final else None

    def melee(self, act, att, dfd, follow):
        if follow and self.pause:
            raise _FollowUp
        return super().melee(act, att, dfd, follow)

    def resume(self, act) -> None:
        """What the reference's ``run`` does from its follow-up on, for action ``act``: the
        second melee, then step 7's disorder of the cavalry attacker (``Trial.run``'s last
        two steps of a melee action)."""
        self.melee(act, act.actor, act.follow_up, True)
        if self.u[act.actor]["spec"].troop == "cavalry":
            self.disorder(act.actor)

    #: the (hits, flags) distribution of a roll, by (faces, sabers, target troop, mode, dice)
    PMFS: dict[tuple, list[tuple[float, tuple]]] = {}

    def roll(self, n, side, target, mode):
        key = (tuple(self.faces), self.rules.sabers, self.u[target]["spec"].troop, mode, n)
        if key not in self.PMFS:
            effects: dict[tuple[int, int], float] = {}
            for face in set(self.faces):
                e = _face_effect(self, face, side, target, mode)
                effects[e] = effects.get(e, 0.0) + self.faces.count(face) / len(self.faces)
            self.PMFS[key] = _roll_pmf(effects, n)
        h, f = self.rng.pick(self.PMFS[key])
        self.dice[side] += n
        self.u[target]["hits_rolled"] += h
        self.u[target]["flags_rolled"] += f
        return h, f


class _OneAction:
    """The scenario as the reference's ``run`` sees it, with one action only (its index ``i``
    in the whole sequence decides whether it is the follow-up the statistics report)."""

    def __init__(self, sc, i: int):
        self._sc = sc
        self.actions = (sc.actions[i],)
        self._fu = 0 if sc._fu_action() == i else -1

    def _fu_action(self) -> int:
        return self._fu

    def __getattr__(self, name):
        return getattr(self._sc, name)


def _leaves(sc, lay: Layout, rules: tuple, budget: list[int], resume, log: Log | None):
    """Every outcome of playing ``sc`` (one action, see :class:`_OneAction`) from the rules
    state ``rules``, up to its follow-up melee (``paused``: reached it); with ``resume``
    (that action) the follow-up and what comes after it instead: ``(probability, trial,
    paused, written)``, ``written`` the rules slots the path wrote (with ``log``; else
    every slot). Each scripted trial played takes one from ``budget[0]``."""
    todo: list[tuple[int, ...]] = [()]
    template = _Trial(sc, None)
    everything = range(len(lay.rules))
    while todo:
        script = todo.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise RuntimeError("too many rolls to enumerate (scripted trials over the limit)")
        rng = _Script(script)
        t = copy.copy(template)  # the reference's own set-up, its state replaced below
        t.rng = rng
        lay.load(t, rules, log)
        if log:
            log.writes = set()
        paused = False
        try:
            if resume is None:
                t.pause = True
                t.run()
            else:
                t.resume(resume)
        except _Branch as b:
            todo.extend(script + (k,) for k in range(b.options - 1, -1, -1))
            continue
        except _FollowUp:
            paused = True
        if log:
            written = sorted(lay.slot[w] for w in log.writes if w in lay.slot)
        else:
            written = everything
        yield rng.p, t, paused, written


class _Action:
    """One action (or its follow-up, ``resume``) played from rules states, each outcome kept
    as what the path wrote: a start state that agrees with one already played on every
    field that one's paths read plays the same way (the reference is deterministic given
    what it reads), so its outcomes are the cached ones (``memo``: per set of fields read,
    the outcomes by their values)."""

    def __init__(self, sc, i: int, lay: Layout, tracked: tuple, resume=None):
        self.one = _OneAction(sc, i)
        self.lay, self.tracked, self.resume = lay, tracked, resume
        self.memo: list[tuple[tuple[int, ...], dict]] = []

    def steps(self, rules: tuple, budget: list[int], watch: bool) -> list:
        """``[(paused, patch, q, {counter: {increment: q}})]``: the outcomes from ``rules``
        grouped by (paused, the rules slots written and their values)."""
        for read, table in self.memo:
            hit = table.get(tuple(rules[i] for i in read))
            if hit is not None:
                return hit
        log = Log() if watch else None
        groups: dict[tuple, list] = {}
        for q, t, paused, written in _leaves(self.one, self.lay, rules, budget, self.resume, log):
            flat = self.lay.flat(t)
            after = self.lay.rules_of(t, flat)
            k = (paused, tuple((i, after[i]) for i in written))
            if k not in groups:
                groups[k] = [0.0, {c: {} for c in self.tracked}]
            g = groups[k]
            g[0] += q
            for c in self.tracked:
                i = self.lay.count_at.get(c)
                add(g[1][c], self.lay.count(t, c) if i is None else flat[i], q)
        out = [(paused, patch, q, d) for (paused, patch), (q, d) in groups.items()]
        if log:
            read = tuple(sorted(self.lay.slot[r] for r in log.reads if r in self.lay.slot))
            tables = [table for r, table in self.memo if r == read]
            if not tables:
                tables.append({})
                self.memo.append((read, tables[0]))
            tables[0][tuple(rules[i] for i in read)] = out
        return out

    def play(self, dist: dict, budget: list[int], merge=None) -> tuple[dict, dict]:
        """The distributions (see :func:`_distribution`) after this action from ``dist``, and
        of those paused at the follow-up: each count's increment (or mark) on the way is
        added to (or-ed with) the count each state arrived with, as what happens next depends
        on the rules state alone. ``merge``: the key finished states merge on (default: the
        rules state)."""
        done: dict[tuple, list] = {}
        paused: dict[tuple, list] = {}
        watch = len(dist) > 1  # a single start state: nothing to reuse
        marks = [is_mark(c) for c in self.tracked]
        for p, counts, rules in dist.values():
            for stop, patch, q, deltas in self.steps(rules, budget, watch):
                after = list(rules)
                for i, v in patch:
                    after[i] = v
                after = tuple(after)
                into = paused if stop else done
                moved = [
                    step(counts[c], deltas[c], mark)
                    for c, mark in zip(self.tracked, marks, strict=True)
                ]
                merge_into(into, after if stop or merge is None else merge(after), after, p * q,
                            dict(zip(self.tracked, moved, strict=True)))  # fmt: skip
        return done, paused


def _owners(sc, lay: Layout) -> dict[tuple, list[str]]:
    """The statistics each count or mark decides (every statistic reads the rules state and
    at most one of them), found by setting each one in turn at the start."""
    t = _Trial(sc, _Script(()))
    t.final = True
    lay.load(t, lay.start)
    base = t.stats()
    owners: dict[tuple, list[str]] = {}
    for c in lay.counts:
        lay.set_count(t, c, True if is_mark(c) else 1000)
        changed = [k for k, v in t.stats().items() if v != base[k]]
        if changed:
            owners[c] = changed
        lay.set_count(t, c, 0)
    owned = [k for names in owners.values() for k in names]
    assert len(owned) == len(set(owned)), "a statistic reads two statistics-only counts"
    return owners


class _ByStats:
    """The key rules states merge on at the end: what ``Trial.stats`` reads (the rules slots
    it read from one state, and their values; a state that agrees there reads the same and
    reports the same). ``memo``: per set of slots read, the values seen."""

    def __init__(self, sc, lay: Layout):
        self.lay = lay
        self.t = _Trial(sc, _Script(()))
        self.t.final = True
        self.memo: list[tuple[tuple[int, ...], set]] = []

    def __call__(self, rules: tuple) -> tuple:
        for n, (read, seen) in enumerate(self.memo):
            k = tuple(rules[i] for i in read)
            if k in seen:
                return n, k
        log = Log()
        self.lay.load(self.t, rules, log)
        self.t.stats()
        read = tuple(sorted(self.lay.slot[r] for r in log.reads if r in self.lay.slot))
        k = tuple(rules[i] for i in read)
        for n, (r, seen) in enumerate(self.memo):
            if r == read:
                seen.add(k)
                return n, k
        self.memo.append((read, {k}))
        return len(self.memo) - 1, k


def _distribution(sc, limit: int) -> tuple[Layout, dict, dict, _ByStats]:
    """The distribution at the end of ``sc``: ``{key: [p, {counter: {value: p}}, rules
    state]}`` (each statistics-only count or mark that a statistic reads, jointly with the
    rules state; the states after the last action merged on what the statistics read,
    :class:`_ByStats`, one standing for them all), and the statistics each counter decides
    (:func:`_owners`)."""
    budget = [limit]
    lay = Layout(_Trial(sc, _Script(())))
    owners = _owners(sc, lay)
    tracked = tuple(owners)
    by_stats = _ByStats(sc, lay)
    dist = {lay.start: [1.0, {c: {0: 1.0} for c in tracked}, lay.start]}
    for i in range(len(sc.actions)):
        merge = by_stats if i == len(sc.actions) - 1 else None
        dist, paused = _Action(sc, i, lay, tracked).play(dist, budget, merge)
        if paused:
            follow = _Action(sc, i, lay, tracked, resume=sc.actions[i])
            done, again = follow.play(paused, budget, merge)
            assert not again, "a second follow-up in one action"
            for k, (p, counts, rules) in done.items():
                merge_into(dist, k, rules, p, counts)
    return lay, dist, owners, by_stats


def pmfs(sc, limit: int = 200_000) -> dict[str, np.ndarray]:
    """Exact marginal PMF (index = value) of every statistic the reference reports, one
    action at a time: the rules states after each action (identical ones merged, the
    statistics-only counts kept beside each as their distributions) are the starting states
    of the next; a melee's follow-up is played from the merged states that reach it.
    ``limit``: scripted trials in all (each one action or follow-up long)."""
    lay, dist, owners, by_stats = _distribution(sc, limit)
    owned = {k for names in owners.values() for k in names}
    acc: dict[str, Counter] = {}
    t = _Trial(sc, _Script(()))
    t.final = True
    for p, counts, rules in dist.values():
        read = by_stats.memo[by_stats(rules)[0]][0]
        log = Log()
        lay.load(t, rules, log)
        for k, v in t.stats().items():
            if k not in owned:
                acc.setdefault(k, Counter())[v] += p
        # each statistic reads one count at most: the j-th value of every count at once
        values = {c: list(counts[c].items()) for c in owners}
        for vs in values.values():
            assert abs(sum(pv for _, pv in vs) - p) < 1e-12 * max(1, len(vs))
        for j in range(max(map(len, values.values()), default=0)):
            now = [c for c, vs in values.items() if j < len(vs)]
            for c in now:
                lay.set_count(t, c, values[c][j][0])
            stats = t.stats()
            for c in now:
                for k in owners[c]:
                    acc.setdefault(k, Counter())[stats[k]] += values[c][j][1]
        seen = {lay.slot[r] for r in log.reads if r in lay.slot}
        assert seen <= set(read), "the statistics read other fields at other counts"
    out = {}
    for k, c in acc.items():
        a = np.zeros(max(c) + 1)
        for v, p in c.items():
            a[v] += p
        out[k] = a
    return out


_PMFS: dict[str, dict[str, np.ndarray]] = {}


def exact_pmfs(sc, limit: int = 100_000) -> dict[str, np.ndarray]:
    """:func:`pmfs` of ``sc``, once per test session (keyed by the scenario's repr)."""
    key = repr(sc)
    if key not in _PMFS:
        _PMFS[key] = pmfs(sc, limit)
    return _PMFS[key]


def assert_exact(
    counts: Mapping[str, np.ndarray], exact: Mapping[str, np.ndarray], what: str
) -> None:
    """Every statistic the kernel reports (``counts``, histograms) against the reference's
    exact PMF (chi-square with rare outcomes tested alone, ``stats.chisquare_pmf``;
    Bonferroni over the statistics, p > ``P_MIN``), and the power check on these very runs:
    0.5 pp of any one statistic's histogram moved from its most likely outcome to the more
    likely neighbour among its possible outcomes (``switches.assert_exact_power``) fails the
    same comparison."""
    missing = sorted(set(counts) - set(exact))
    assert not missing, f"{what}: the reference does not report {missing}"
    k = len(counts)
    ps = {name: chisquare_pmf(c, exact[name]) * k for name, c in counts.items()}
    worst = min(ps, key=ps.get)
    assert ps[worst] > P_MIN, (
        f"{what}: the kernel differs from the reference's exact distribution of {worst} "
        f"(Bonferroni p = {ps[worst]:.2e}, {k} statistics)\nkernel {counts[worst]}\n"
        f"exact  {np.round(exact[worst] * sum(counts[worst]), 1)}"
    )
    for name, c in counts.items():
        assert_exact_power(c, exact[name], f"{what}: {name}", k)
