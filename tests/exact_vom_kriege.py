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
joint of all counts is never needed. Each distinct rules state is played once per action,
its outcomes grouped by the rules state they reach with each count's increment beside it.
Within an action every branch is replayed from that action's start (the reference is not
resumable), so an action costs the number of roll outcomes along its paths times the cost of
playing it. The answer is the reference's exact distribution, so a kernel histogram of 10^6
trials against it sees a 0.5 percentage-point error without any sampling on the reference
side (:func:`assert_exact`).

The roll-level outcomes are checked against every face sequence
(``naive_vom_kriege.enumerate_outcomes``) in tests/test_vom_kriege_exact.py.
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from collections.abc import Mapping
from itertools import islice

import naive_vom_kriege as naive
import numpy as np
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


def _snapshot(t: naive.Trial) -> tuple:
    return (
        {k: dict(v) for k, v in t.u.items()},
        {k: dict(v) for k, v in t.ldr.items()},
        Counter(t.dice),
        t.followed,
    )


#: what the reference keeps only for the statistics (``Trial.stats`` reads them; no rule
#: does: the retreats a melee counts are compared with their count at its start only):
#: counts a trial only adds to, and marks it only sets
_ADDED = ("hits_rolled", "flags_rolled", "bb_hits", "df_hits", "hm", "retreats")
_SET = ("squared", "fellback", "meleed")
_LEADER_ADDED = ("rolled",)


def _counters(state: tuple) -> list[tuple]:
    """Every statistics-only count or mark of ``state``, by id: ``("u", unit, field)``,
    ``("l", leader, field)``, ``("dice", side)``, ``("followed",)``."""
    u, ldr, _, _ = state
    out = [("u", n, f) for n in u for f in _ADDED + _SET]
    out += [("l", n, f) for n in ldr for f in _LEADER_ADDED]
    return [*out, ("dice", "attacker"), ("dice", "defender"), ("followed",)]


def _get(state: tuple, c: tuple):
    if c[0] == "u":
        return state[0][c[1]][c[2]]
    if c[0] == "l":
        return state[1][c[1]][c[2]]
    return state[2][c[1]] if c[0] == "dice" else state[3]


def _set(state: tuple, c: tuple, v) -> tuple:
    """``state`` with count or mark ``c`` at ``v`` (its dicts changed in place)."""
    if c[0] == "u":
        state[0][c[1]][c[2]] = v
    elif c[0] == "l":
        state[1][c[1]][c[2]] = v
    elif c[0] == "dice":
        state[2][c[1]] = v
    else:
        state = (*state[:3], v)
    return state


def _is_mark(c: tuple) -> bool:
    return c[0] == "followed" or c[-1] in _SET


def _rules_part(state: tuple) -> tuple:
    """``state`` with every statistics-only field at 0 (dice counts included): what the rules
    of the next action see."""
    u, ldr, _, _ = state
    u0 = {n: {**d, **dict.fromkeys(_ADDED + _SET, 0)} for n, d in u.items()}
    l0 = {n: {**d, **dict.fromkeys(_LEADER_ADDED, 0)} for n, d in ldr.items()}
    return (u0, l0, Counter(), False)


def _key(state: tuple) -> tuple:
    """A hashable key of ``state``: every field but ``spec`` (the first, checked in
    :func:`_distribution`; the same object in every state)."""
    u, ldr, dice, followed = state
    return (
        tuple(tuple(islice(d.values(), 1, None)) for d in u.values()),
        tuple(tuple(islice(d.values(), 1, None)) for d in ldr.values()),
        tuple(sorted((k, v) for k, v in dice.items() if v)),
        followed,
    )


def _restore(t: naive.Trial, state: tuple) -> None:
    u, ldr, dice, followed = state
    t.u = {k: dict(v) for k, v in u.items()}
    t.ldr = {k: dict(v) for k, v in ldr.items()}
    t.dice = Counter(dice)
    t.followed = followed


def _after(sc, state: tuple, budget: list[int], resume=None) -> list[tuple[float, tuple, bool]]:
    """Every outcome ``(probability, state, paused)`` of playing ``sc`` (one action, see
    :class:`_OneAction`) from ``state``, up to its follow-up melee (``paused``: reached it);
    with ``resume`` (that action) the follow-up and what comes after it instead. Each scripted
    trial played takes one from ``budget[0]``."""
    out = []
    todo: list[tuple[int, ...]] = [()]
    template = _Trial(sc, None)
    while todo:
        script = todo.pop()
        budget[0] -= 1
        if budget[0] < 0:
            raise RuntimeError("too many rolls to enumerate (scripted trials over the limit)")
        rng = _Script(script)
        t = copy.copy(template)  # the reference's own set-up, its state replaced below
        t.rng = rng
        _restore(t, state)
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
        out.append((rng.p, _snapshot(t), paused))
    return out


def _add(acc: dict, k, p: float) -> None:
    acc[k] = acc.get(k, 0.0) + p


def _play(one, dist: dict, tracked: tuple, budget: list[int], resume=None) -> tuple[dict, dict]:
    """The distributions (see :func:`_distribution`) after playing ``one`` from ``dist``,
    and of those paused at the follow-up. Each rules state is played once; its outcomes are
    grouped by the rules state they reach, with each count's increment (or mark) beside it,
    and the increments added to (marks or-ed with) the counts each state arrived with: the
    count's distribution jointly with the rules state is all the statistics need, as what
    happens next depends on the rules state alone."""
    done: dict[tuple, list] = {}
    paused: dict[tuple, list] = {}
    for p, rules, counts in dist.values():
        steps: dict[tuple, list] = {}  # (stop, key) -> [q, rules, {counter: {step: q}}]
        for q, after, stop in _after(one, rules, budget, resume):
            r2 = _rules_part(after)
            k = (stop, _key(r2))
            if k not in steps:
                steps[k] = [0.0, r2, {c: {} for c in tracked}]
            e = steps[k]
            e[0] += q
            for c in tracked:
                _add(e[2][c], _get(after, c), q)
        for (stop, k), (q, r2, deltas) in steps.items():
            into = paused if stop else done
            if k not in into:
                into[k] = [0.0, r2, {c: {} for c in tracked}]
            e = into[k]
            e[0] += p * q
            for c in tracked:
                acc, mark = e[2][c], _is_mark(c)
                for v, pv in counts[c].items():
                    for dv, qd in deltas[c].items():
                        _add(acc, (v or dv) if mark else v + dv, pv * qd)
    return done, paused


def _owners(sc, state: tuple) -> dict[tuple, list[str]]:
    """The statistics each count or mark of ``state`` decides (each statistic but those of
    the rules state read from at most one), found by setting each one in turn."""
    t = _Trial(sc, _Script(()))
    t.final = True
    _restore(t, state)
    base = t.stats()
    owners: dict[tuple, list[str]] = {}
    for c in _counters(state):
        _restore(t, _set(_snapshot(t), c, True if _is_mark(c) else 1000))
        changed = [k for k, v in t.stats().items() if v != base[k]]
        if changed:
            owners[c] = changed
        _restore(t, state)
    owned = [k for names in owners.values() for k in names]
    assert len(owned) == len(set(owned)), "a statistic reads two statistics-only counts"
    return owners


def _distribution(sc, limit: int) -> tuple[dict, dict]:
    """The distribution at the end of ``sc``: ``{key: [p, rules state, {counter: {value: p}}]}``
    (each statistics-only count or mark that a statistic reads, jointly with the rules
    state), and the statistics each counter decides (:func:`_owners`)."""
    budget = [limit]
    start = _Trial(sc, _Script(()))
    for d in (*start.u.values(), *start.ldr.values()):
        assert next(iter(d)) == "spec", "the reference's unit and leader dicts changed shape"
    state = _snapshot(start)
    assert all(not _get(state, c) for c in _counters(state)), "a count starts above 0"
    owners = _owners(sc, state)
    tracked = tuple(owners)
    dist = {None: [1.0, _rules_part(state), {c: {0: 1.0} for c in tracked}]}
    for i in range(len(sc.actions)):
        one = _OneAction(sc, i)
        dist, paused = _play(one, dist, tracked, budget)
        if paused:
            done, again = _play(one, paused, tracked, budget, resume=sc.actions[i])
            assert not again, "a second follow-up in one action"
            for k, (p, rules, counts) in done.items():
                if k not in dist:
                    dist[k] = [0.0, rules, {c: {} for c in tracked}]
                e = dist[k]
                e[0] += p
                for c in tracked:
                    for v, pv in counts[c].items():
                        _add(e[2][c], v, pv)
    return dist, owners


def pmfs(sc, limit: int = 200_000) -> dict[str, np.ndarray]:
    """Exact marginal PMF (index = value) of every statistic the reference reports, one
    action at a time: the rules states after each action (identical ones merged, the
    statistics-only counts kept beside each as their distributions) are the starting states
    of the next, each played once; a melee's follow-up is played from the merged states that
    reach it. ``limit``: scripted trials in all (each one action or follow-up long)."""
    dist, owners = _distribution(sc, limit)
    owned = {k for names in owners.values() for k in names}
    acc: dict[str, Counter] = {}
    t = _Trial(sc, _Script(()))
    t.final = True
    for p, rules, counts in dist.values():
        _restore(t, rules)
        for k, v in t.stats().items():
            if k not in owned:
                acc.setdefault(k, Counter())[v] += p
        for c, names in owners.items():
            assert abs(sum(counts[c].values()) - p) < 1e-12
            for v, pv in counts[c].items():
                state = _set(_snapshot(t), c, v)
                _restore(t, state)
                stats = t.stats()
                for k in names:
                    acc.setdefault(k, Counter())[stats[k]] += pv
            _restore(t, rules)
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
