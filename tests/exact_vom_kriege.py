"""Exact distributions of the pure-Python Vom Kriege reference, branching on whole rolls.

``naive_vom_kriege.enumerate_outcomes`` branches on every die (faces ** dice sequences: a few
dozen dice of two or three faces at most). Here the reference's :class:`naive_vom_kriege.Trial`
is played with every random event branching on its *outcome* instead:

- a battle roll of ``n`` dice (``Trial.roll``) on its (hits, flags) count, with the multinomial
  probability of that count (each face scored by the reference's own ``roll`` on that face);
- a form-square test (any ``infantry`` among ``k`` command dice) and a leader's contact roll
  (one die at a time, only ``saber`` counts) on whether each die shows that symbol.

The trial is played one action at a time (the reference's own ``run`` on a scenario holding
that action only): the distinct trial states after an action are the starting states of the
next, and an action is played once per distinct state of what its rules read (the counts kept
only for the statistics are added back afterwards). Within an action every branch is replayed
from that action's start (the reference is not resumable), so the cost is the number of roll
outcomes along its paths times the cost of an action: a melee with defensive fire, battle
back and a follow-up is some thousands, a second or so; one with a battery, a retire and a
follow-up that fires and battles back is too many (``limit``). The answer is the reference's
exact distribution, so a kernel histogram of 10^6 trials against it sees a 0.5
percentage-point error without any sampling on the reference side (:func:`assert_exact`).

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


#: what the reference keeps only for the statistics (``Trial.stats`` reads them, for the focus
#: attacker, the focus defender and the follow-up's second target; no rule reads them): counts
#: a trial only adds to, and marks it only sets
_ADDED = ("hits_rolled", "flags_rolled", "bb_hits", "df_hits")
_SET = ("squared", "fellback", "meleed")
_LEADER_ADDED = ("rolled",)


def _forget(sc, state: tuple) -> tuple:
    """``state`` with the statistics-only fields of every unit the statistics never look at
    set to 0, so that states differing only there merge."""
    seen = set(sc._focus)
    fa = sc._fu_action()
    if fa >= 0:
        seen.add(sc.actions[fa].follow_up)
    for name, d in state[0].items():
        if name not in seen:
            for f in _ADDED + _SET:
                d[f] = 0
    return state


def _rules_part(state: tuple) -> tuple:
    """``state`` with every statistics-only field at 0 (dice counts included): what the rules
    of the next action see. Its outcomes, played from here, are combined with each state's
    own counts by :func:`_combine`."""
    u, ldr, _, _ = state
    u0 = {n: {**d, **dict.fromkeys(_ADDED + _SET, 0)} for n, d in u.items()}
    l0 = {n: {**d, **dict.fromkeys(_LEADER_ADDED, 0)} for n, d in ldr.items()}
    return (u0, l0, Counter(), False)


def _combine(state: tuple, after: tuple) -> tuple:
    """The outcome ``after`` (played from ``_rules_part(state)``) with ``state``'s counts
    added and its marks kept."""
    u, ldr, dice, followed = state
    ua, la, da, fa = after
    u2 = {}
    for n, d in ua.items():
        d = dict(d)
        for f in _ADDED:
            d[f] += u[n][f]
        for f in _SET:
            d[f] = d[f] or u[n][f]
        u2[n] = d
    l2 = {}
    for n, d in la.items():
        d = dict(d)
        for f in _LEADER_ADDED:
            d[f] += ldr[n][f]
        l2[n] = d
    return (u2, l2, dice + da, followed or fa)


def _key(state: tuple) -> tuple:
    """A hashable key of ``state``: every field but ``spec`` (the first, checked in
    :func:`outcomes`; the same object in every state)."""
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


def _play(sc, one, states: dict, budget: list[int], resume=None) -> tuple[dict, dict]:
    """The states after playing ``one`` from each of ``states`` (identical ones merged),
    and those paused at the follow-up."""
    done: dict[tuple, tuple[float, tuple]] = {}
    paused: dict[tuple, tuple[float, tuple]] = {}
    played: dict[tuple, list[tuple[float, tuple, bool]]] = {}
    for p, state in states.values():
        rules_part = _rules_part(state)
        rk = _key(rules_part)
        if rk not in played:
            played[rk] = _after(one, rules_part, budget, resume)
        for q, after, stop in played[rk]:
            after = _forget(sc, _combine(state, after))
            k = _key(after)
            into = paused if stop else done
            into[k] = (into[k][0] + p * q, after) if k in into else (p * q, after)
    return done, paused


def outcomes(sc, limit: int = 200_000) -> list[tuple[float, dict[str, int]]]:
    """Exact ``[(probability, statistics)]`` of the reference trial of ``sc``, one action at a
    time: the trial states after each action (identical states merged) are the starting
    states of the next, and each action is played once per distinct state of what its rules
    read (the statistics' counts left out and added back); a melee's follow-up is played
    from the merged states that reach it. ``limit``: scripted trials in all (each one action
    or follow-up long)."""
    budget = [limit]
    start = _Trial(sc, _Script(()))
    for d in (*start.u.values(), *start.ldr.values()):
        assert next(iter(d)) == "spec", "the reference's unit and leader dicts changed shape"
    states = {None: (1.0, _snapshot(start))}
    for i in range(len(sc.actions)):
        one = _OneAction(sc, i)
        states, paused = _play(sc, one, states, budget)
        if paused:
            done, again = _play(sc, one, paused, budget, resume=sc.actions[i])
            assert not again, "a second follow-up in one action"
            for k, (p, state) in done.items():
                states[k] = (states[k][0] + p, state) if k in states else (p, state)
    out = []
    for p, state in states.values():
        t = _Trial(sc, _Script(()))
        _restore(t, state)
        t.final = True
        out.append((p, t.stats()))
    return out


def pmfs(sc, limit: int = 200_000) -> dict[str, np.ndarray]:
    """Exact marginal PMF (index = value) of every statistic the reference reports."""
    acc: dict[str, Counter] = {}
    for p, stats in outcomes(sc, limit):
        for k, v in stats.items():
            acc.setdefault(k, Counter())[v] += p
    out = {}
    for k, c in acc.items():
        a = np.zeros(max(c) + 1)
        for v, p in c.items():
            a[v] = p
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
