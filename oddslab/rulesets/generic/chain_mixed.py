"""Exact allocation for a mixed target unit: a Markov chain over the allocation state.

The state is, per group, the models alive and the wounds left on its front model (at most one
model of a group has lost wounds: attacks go to it first). An ordinary wound is a transition of
its own (allocated by the rules to a model, then saved with that model's save; damage and
feel-no-pain are that model's); mortal wounds and spilling damage go point by point, each point
to the model the rules choose then. The number of wounds per weapon depends on the unit's
toughness when it fires (and Blast on the models alive), so the chain splits its states by
toughness group and Blast bonus (:func:`_classes`) and feeds each part its own attack PMF. The
feeding itself is :mod:`~oddslab.rulesets.generic.chain`'s (same order, same limits).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from oddslab.exact import convolve_n
from oddslab.rulesets.generic import layout as K
from oddslab.rulesets.generic.chain import MAX_STATES, MAX_WORK, _Feed, _fire, _per_attack
from oddslab.rulesets.generic.compile import _raw_damage_max, damage_maps, point_through
from oddslab.rulesets.generic.compile_mixed import group_stat, order_of, views
from oddslab.rulesets.generic.exact_packets import _damage_pmf, packets

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario

__all__ = ["mixed_allocation_pmfs", "mixed_allocation_joint", "state_count"]

State = tuple[int, ...]  # (alive_0, cur_0, alive_1, cur_1, ...)


class _Unit:
    """The allocation rules on a state (the kernel's ``choose_model``, written out again)."""

    def __init__(self, sc: GenericScenario):
        self.groups = sc.target.groups
        self.toughness = [g.toughness or sc.target.toughness for g in self.groups]
        self.order = [int(i) for i in order_of(sc)]
        per = [[(0, g.wounds)] + list(product(range(1, g.models + 1), range(1, g.wounds + 1)))
               for g in self.groups]  # fmt: skip
        self.states: list[State] = [sum(c, ()) for c in product(*per)]
        self.index = {s: i for i, s in enumerate(self.states)}

    def choose(self, s: State, precision: bool) -> int | None:
        g = self.groups
        alive = [s[2 * i] for i in range(len(g))]
        hurt = [i for i in range(len(g)) if alive[i] and s[2 * i + 1] < g[i].wounds]
        if precision:
            chars = [i for i in range(len(g)) if g[i].character and alive[i]]
            if chars:
                return next(
                    (i for i in hurt if i in chars), [i for i in self.order if i in chars][0]
                )
        guard = any(alive[i] for i in range(len(g)) if not g[i].character)
        ok = [i for i in range(len(g)) if alive[i] and not (guard and g[i].character)]
        for i in hurt:
            if i in ok:
                return i
        return next((i for i in self.order if i in ok), None)

    def lose(self, s: State, i: int, points: int) -> State:
        if points <= 0:
            return s
        t = list(s)
        if points >= t[2 * i + 1]:
            t[2 * i] -= 1
            t[2 * i + 1] = self.groups[i].wounds
        else:
            t[2 * i + 1] -= points
        return tuple(t)

    def toughness_group(self, s: State) -> int:
        g = self.groups
        for chars in (False, True):
            alive = [i for i in range(len(g)) if s[2 * i] and g[i].character == chars]
            if alive:
                return max(alive, key=lambda i: (self.toughness[i], -i))
        return 0


def _matrix(unit: _Unit, rows, C: int = 1):
    """The sparse transition matrix of ``rows`` (per state ``{(next state, count added): p}``);
    with ``C > 1`` over (state, counter) pairs, index ``state * C + counter``, the counter
    capped at ``C - 1`` (a statistic's histogram bound: never passed)."""
    from scipy.sparse import csr_matrix

    S = len(unit.states)
    r, c, v, inc = [], [], [], []
    for a, dist in enumerate(rows):
        for (s2, k), p in dist.items():
            if p:
                r.append(a)
                c.append(unit.index[s2])
                v.append(p)
                inc.append(k)
    if C == 1:
        return csr_matrix((v, (r, c)), shape=(S, S))
    cs = np.arange(C)
    rr = (np.array(r, dtype=np.int64)[:, None] * C + cs).ravel()
    to = np.minimum(cs + np.array(inc, dtype=np.int64)[:, None], C - 1)
    cc = (np.array(c, dtype=np.int64)[:, None] * C + to).ravel()
    vv = np.repeat(np.array(v), C)
    return csr_matrix((vv, (rr, cc)), shape=(S * C, S * C))


def _points(unit: _Unit, s: State, pmf, through: list[float], precision: bool) -> dict:
    """Spilling damage: a pre-feel-no-pain PMF, point by point (each point to the model chosen
    then, through that model's feel-no-pain with probability ``through[group]``);
    ``{(state, points through): p}`` (a point with no model left is not counted)."""
    out: dict = defaultdict(float)
    for d, pd in enumerate(pmf):
        if pd == 0.0:
            continue
        dist = {(s, 0): pd}
        for _ in range(d):
            nxt: dict = defaultdict(float)
            for (x, n), px in dist.items():
                i = unit.choose(x, precision)
                if i is None:
                    nxt[(x, n)] += px
                    continue
                nxt[(unit.lose(x, i, 1), n + 1)] += px * through[i]
                nxt[(x, n)] += px * (1.0 - through[i])
            dist = nxt
        for key, px in dist.items():
            out[key] += px
    return out


def _kind(unit: _Unit, pf, post, pre, through, spill: bool, precision: bool, count=None, C=1):
    """Transition of one wound / packet: allocated, saved (``pf[group]``: P(not saved)), damage
    (``post[group]``: after feel-no-pain, or ``pre`` point by point with ``spill``).

    ``count`` says what the counter of a chain over (state, counter) pairs (``C`` values,
    :func:`_matrix`) adds: ``"fail"`` 1 per failed save, ``"always"`` 1 per packet (a
    devastating wound is unsaved even when no model is left), ``"points"`` the damage the
    model takes (overkill included, as the kernel's ``damage``), None nothing."""
    rows = []
    always = 1 if count == "always" else 0
    for s in unit.states:
        i = unit.choose(s, precision)
        if i is None:
            rows.append({(s, always): 1.0})
            continue
        out: dict = defaultdict(float)
        out[(s, always)] += 1.0 - pf[i]
        fail = always + (1 if count == "fail" else 0)
        if spill:
            for (x, n), p in _points(unit, s, pre, through, precision).items():
                out[(x, fail + (n if count == "points" else 0))] += pf[i] * p
        else:
            for d, p in enumerate(post[i]):
                out[(unit.lose(s, i, d), fail + (d if count == "points" else 0))] += pf[i] * p
        rows.append(out)
    return _Feed(_matrix(unit, rows, C))


def _classes(unit: _Unit, w, sc: GenericScenario, C: int = 1):
    """``(Blast bonus, toughness group, mask)`` for each part of the state space (each state
    ``C`` times over: the values of a counter, :func:`_final`)."""
    S = len(unit.states)
    keys: dict[tuple[int, int], np.ndarray] = {}
    for a, s in enumerate(unit.states):
        alive = sum(s[0::2])
        key = (alive // 5 if w.blast else 0, unit.toughness_group(s))
        keys.setdefault(key, np.zeros(S))[a] = 1.0
    for (bonus, tg), mask in sorted(keys.items()):
        yield bonus, tg, np.repeat(mask, C) if C > 1 else mask


def state_count(sc: GenericScenario) -> int:
    """How many allocation states the chain of ``sc``'s mixed unit has."""
    out = 1
    for g in sc.target.groups:
        out *= 1 + g.models * g.wounds  # destroyed, or (alive, wounds left on the front model)
    return out


def mixed_allocation_pmfs(sc: GenericScenario) -> dict[str, np.ndarray] | None:
    """Exact PMFs of the allocation statistics of a mixed unit (``models_slain``, ``destroyed``,
    ``damage_dealt``, ``wounds_remaining``, ``target_<group>_models_lost``, ``leader_slain``),
    or None when the chain would be too large."""
    unit = _Unit(sc)
    final = _final(sc, unit)
    return None if final is None else _statistics(sc, unit, final)


def mixed_allocation_joint(sc: GenericScenario, names: tuple[str, ...], sizes: tuple[int, ...]):
    """The exact joint table ``float[sizes]`` of statistics ``names`` of a mixed unit (axis k
    indexed by the value of ``names[k]``, ``sizes[k]`` values): allocation statistics and at
    most one counted statistic (``unsaved``, ``damage``, ``mortal_wounds``: the chain then
    carries its value, :data:`COUNTS`); None when the chain would be too large or a name is
    neither."""
    unit = _Unit(sc)
    values = _values(sc, unit)
    counted = [n for n in names if n in COUNTS]
    if len(counted) > 1 or any(n not in values and n not in COUNTS for n in names):
        return None
    stat = counted[0] if counted else None
    C = sizes[names.index(stat)] if stat else 1
    final = _final(sc, unit, stat, C)
    if final is None:
        return None
    S = len(unit.states)
    state = np.repeat(np.arange(S), C)
    table = np.zeros(sizes)
    index = tuple(np.tile(np.arange(C), S) if n == stat else values[n][state] for n in names)
    np.add.at(table, index, final)
    return table


#: what each kind of transition adds to a counted statistic: (wounds to save, mortal wounds on
#: criticals, devastating wounds under the current rule, under the legacy rule); see _kind
COUNTS = {
    None: (None, None, None, None),
    "unsaved": ("fail", None, "always", "always"),
    "damage": ("points", "points", "points", "points"),
    "mortal_wounds": (None, "points", None, "points"),
}


def _final(sc: GenericScenario, unit: _Unit, stat: str | None = None, C: int = 1):
    """The exact distribution over ``unit.states`` after every attack (None: too large); with
    ``stat`` (a key of :data:`COUNTS`) over (state, value of ``stat``) pairs, ``float[S * C]``
    (index ``state * C + value``)."""
    S = len(unit.states) * C
    if S > MAX_STATES:
        return None
    vs = views(sc)
    r = sc.rules
    spill = r.spill == "spill"
    current = r.devastating_wounds == "current"
    c_wound, c_mortal, c_dev_now, c_dev_legacy = COUNTS[stat]
    start = np.zeros(S)
    first = sum(((g.models, g.wounds - g.damaged) for g in sc.target.groups), ())
    start[unit.index[first] * C] = 1.0
    dist: dict[tuple[int, ...], np.ndarray] = {(): start}
    later: list[_Feed] = []
    work = 0
    size = _raw_damage_max(sc) + 1
    q_n = [point_through(v, mortal=False) for v in vs]
    q_m = [point_through(v, mortal=True) for v in vs]
    for w in sc.fired:
        ks = [packets(v, w) for v in vs]
        maps = damage_maps(vs[0], w, size)
        d = ks[0].d

        def pre(kind: int, expr, below: int, maps=maps) -> np.ndarray:
            return _damage_pmf(expr.pmf(), below, maps[kind], 1.0, expr)

        prec = w.precision
        normal = _kind(unit, [k.pf for k in ks], [k.normal for k in ks],
                       pre(K.D_NORMAL, w.damage, d.dmg_reroll_below), q_n, spill, prec,
                       c_wound, C)  # fmt: skip
        crit = _kind(unit, [k.pfc for k in ks], [k.crit for k in ks],
                     pre(K.D_CRIT, w.damage, d.dmg_reroll_below), q_n, spill, prec,
                     c_wound, C)  # fmt: skip
        ones = [1.0] * len(vs)
        mh = _kind(unit, ones, [], pre(K.D_IDENTITY, w.critical_hit_mortals, 0), q_m, True,
                   False, c_mortal, C)  # fmt: skip
        mw = _kind(unit, ones, [], pre(K.D_IDENTITY, w.critical_wound_mortals, 0), q_m, True,
                   False, c_mortal, C)  # fmt: skip
        dev_pre = pre(K.D_DEV, w.damage, d.dmg_reroll_below)
        if current:
            dev = _kind(unit, ones, [k.dev for k in ks], dev_pre, q_n, False, prec, c_dev_now, C)
        else:
            dev = _kind(unit, ones, [], dev_pre, q_m, True, prec, c_dev_legacy, C)
        mixed: dict[tuple, np.ndarray] = defaultdict(lambda: np.zeros(S))
        for bonus, tg, mask in _classes(unit, w, sc, C):
            k = replace(packets(vs[tg], w), pf=1.0, pfc=1.0)  # wounds, saved in the transition
            per, _ = _per_attack(vs[tg], w, k)
            pmf = np.concatenate([np.zeros(bonus), w.attacks.pmf()])
            part = {key: v * mask for key, v in dist.items()}
            work = _fire(part, convolve_n(pmf, w.models), per, normal, mixed, S, work)
            if work is None:
                return None
        new: dict[tuple[int, ...], np.ndarray] = defaultdict(lambda: np.zeros(S))
        dev_now = w.devastating_wounds and current
        for (outer, kc, kh, kw, kd), v in mixed.items():
            v = crit.apply(v, kc)
            v = mh.apply(v, kh)
            v = mw.apply(v, kw)
            if dev_now:
                key = (*outer, kd)
            else:
                v = dev.apply(v, kd)
                key = outer
            new[key] = new[key] + v
            work += (kc + kh + kw + kd) * S * 4
        dist = dict(new)
        if dev_now:
            later.append(dev)
        if len(dist) * S > MAX_STATES or work > MAX_WORK:
            return None
    final = np.zeros(S)
    for key, v in dist.items():
        for count, feed in zip(key, later, strict=True):
            v = feed.apply(v, count)
        final += v
    return final


def _values(sc: GenericScenario, unit: _Unit) -> dict[str, np.ndarray]:
    """Per state of ``unit``, the value of each allocation statistic (``int64[S]`` each)."""
    groups = sc.target.groups
    chars = [i for i, g in enumerate(groups) if g.character]
    rows: dict[str, list[int]] = defaultdict(list)
    total = sum(g.models * g.wounds - g.damaged for g in groups)
    for s in unit.states:
        alive = s[0::2]
        left = min(total, sum(  # (a state above ``total`` is one never reached: damaged)
            (a - 1) * g.wounds + c for a, c, g in zip(alive, s[1::2], groups, strict=True) if a
        ))  # fmt: skip
        rows["models_slain"].append(sc.target.models - sum(alive))
        rows["destroyed"].append(int(sum(alive) == 0))
        rows["wounds_remaining"].append(left)
        rows["damage_dealt"].append(total - left)
        for a, g in zip(alive, groups, strict=True):
            rows[group_stat(g.name)].append(g.models - a)
        if chars:
            rows["leader_slain"].append(int(all(alive[i] == 0 for i in chars)))
    return {k: np.array(v, dtype=np.int64) for k, v in rows.items()}


def _statistics(sc: GenericScenario, unit: _Unit, final: np.ndarray) -> dict[str, np.ndarray]:
    groups = sc.target.groups
    total = sum(g.models * g.wounds - g.damaged for g in groups)
    out = {
        "models_slain": np.zeros(sc.target.models + 1),
        "destroyed": np.zeros(2),
        "wounds_remaining": np.zeros(total + 1),
    }
    lost = {group_stat(g.name): np.zeros(g.models + 1) for g in groups}
    chars = [i for i, g in enumerate(groups) if g.character]
    leader = np.zeros(2)
    for s, p in zip(unit.states, final, strict=True):
        alive = s[0::2]
        left = min(total, sum(  # (a state above ``total`` is one never reached: damaged)
            (a - 1) * g.wounds + c for a, c, g in zip(alive, s[1::2], groups, strict=True) if a
        ))  # fmt: skip
        out["models_slain"][sc.target.models - sum(alive)] += p
        out["destroyed"][int(sum(alive) == 0)] += p
        out["wounds_remaining"][left] += p
        for a, g in zip(alive, groups, strict=True):
            lost[group_stat(g.name)][g.models - a] += p
        leader[int(bool(chars) and all(alive[i] == 0 for i in chars))] += p
    out["damage_dealt"] = out["wounds_remaining"][::-1].copy()
    out.update(lost)
    if chars:
        out["leader_slain"] = leader
    return out
