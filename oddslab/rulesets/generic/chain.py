"""Exact allocation to models: a Markov chain over (models alive, wounds left on the model
taking damage), fed one damage packet at a time in the kernel's order.

Within one weapon the kernel allocates, in this order: the ordinary unsaved wounds' damage,
then critical wounds with their own path (critical AP / damage), then mortal wounds from
critical hits, then from critical wounds, then devastating wounds (legacy rule); with the
current devastating-wounds rule those packets wait until every weapon has fired and are then
allocated weapon by weapon. Ordinary packets are independent and identically distributed, so
they can be fed attack by attack; the later kinds are *counted* per attack (the chain's state
carries the pending counts) and fed when their turn comes. Each packet's damage PMF (after
re-rolls, modifiers and feel-no-pain) comes from :func:`oddslab.rulesets.generic.exact.packets`.

The answer is exact (floating point only); it is given when the chain stays small: at most
:data:`MAX_STATES` (pending counts × unit states) at any time and :data:`MAX_WORK` elementary
operations, else ``None`` (the simulation answers alone).
"""

from __future__ import annotations

import functools
from collections import defaultdict
from typing import TYPE_CHECKING

import numpy as np

from oddslab.exact import convolve_n
from oddslab.rulesets.generic.exact_packets import packets

if TYPE_CHECKING:  # the scenario class imports this module
    from oddslab.rulesets.generic.scenario import GenericScenario

__all__ = [
    "allocation_pmfs",
    "allocation_final",
    "allocation_joint",
    "allocation_values",
    "MAX_STATES",
    "MAX_WORK",
    "transition",
]

#: most (pending counts, unit state) pairs the chain may hold at once
MAX_STATES = 100_000
#: most multiply-adds the chain may spend (well under a second)
MAX_WORK = 200_000_000

Vec = tuple[int, int, int, int, int]  # (ordinary packets, critical, mortal-hit, mortal-wound, dev)
_ZERO: Vec = (0, 0, 0, 0, 0)


def _unit(i: int) -> Vec:
    v = [0, 0, 0, 0, 0]
    v[i] = 1
    return tuple(v)  # type: ignore[return-value]


def _mix(parts: list[tuple[float, dict[Vec, float]]]) -> dict[Vec, float]:
    out: dict[Vec, float] = defaultdict(float)
    for w, d in parts:
        if w == 0.0:
            continue
        for k, p in d.items():
            out[k] += w * p
    return dict(out)


def _conv(a: dict[Vec, float], b: dict[Vec, float]) -> dict[Vec, float]:
    out: dict[Vec, float] = defaultdict(float)
    for ka, pa in a.items():
        for kb, pb in b.items():
            out[tuple(x + y for x, y in zip(ka, kb, strict=True))] += pa * pb  # type: ignore[index]
    return dict(out)


def _compound(count_pmf: np.ndarray, item: dict[Vec, float]) -> dict[Vec, float]:
    out: dict[Vec, float] = defaultdict(float)
    power: dict[Vec, float] = {_ZERO: 1.0}
    for n, pn in enumerate(count_pmf):
        if pn != 0.0:
            for k, p in power.items():
                out[k] += pn * p
        if n < len(count_pmf) - 1:
            power = _conv(power, item)
    return dict(out)


def _per_attack(sc: GenericScenario, w, k=None) -> tuple[dict[Vec, float], object]:
    """Joint PMF of (ordinary, critical, mortal-hit, mortal-wound, devastating) packets per attack
    (``k``: the weapon's :class:`~oddslab.rulesets.generic.exact.Packets`, by default
    ``packets(sc, w)``; with ``pf = pfc = 1`` the first two count wounds before their save)."""
    k = packets(sc, w) if k is None else k
    d = k.d
    one = {_ZERO: 1.0}
    ordinary = {_unit(0): k.pf, _ZERO: 1.0 - k.pf}
    has_mw = w.critical_wound_mortals.max > 0
    has_mh = w.critical_hit_mortals.max > 0
    mw = {_unit(3): 1.0} if has_mw else one
    if w.devastating_wounds:
        crit = _conv({_unit(4): 1.0}, mw)
    elif has_mw and w.critical_wound_mortals_instead:
        crit = mw
    elif d.crit_save_own:
        crit = _conv({_unit(1): k.pfc, _ZERO: 1.0 - k.pfc}, mw)
    else:
        crit = ordinary
    hit = _mix([(k.pw[0], one), (k.pw[1], ordinary), (k.pw[2], crit)])  # one hit rolls to wound
    sus = _compound(w.sustained_hits.pmf(), hit)
    if has_mh and w.critical_hit_mortals_instead:
        crit_hit = sus
    elif w.lethal_hits:
        crit_hit = _conv(ordinary, sus)
    else:
        crit_hit = _conv(hit, sus)
    if has_mh:
        crit_hit = _conv(crit_hit, {_unit(2): 1.0})
    roll = _mix([(k.ph[0], one), (k.ph[1], hit), (k.ph[2], crit_hit)])
    if w.critical_extra_attacks.max > 0:
        extra = _compound(w.critical_extra_attacks.pmf(), roll)
        roll = _mix([(k.ph[0], one), (k.ph[1], hit), (k.ph[2], _conv(crit_hit, extra))])
    return {key: p for key, p in roll.items() if p > 0.0}, k


def _allocate(dmg: int, spill: bool, alive: int, cur: int, wounds: int) -> tuple[int, int]:
    """One packet of ``dmg`` (the kernel's ``_allocate``, written out again)."""
    if spill:
        while dmg > 0 and alive > 0:
            take = min(dmg, cur)
            dmg -= take
            cur -= take
            if cur == 0:
                alive -= 1
                cur = wounds
    elif alive > 0 and dmg > 0:
        if dmg >= cur:
            alive -= 1
            cur = wounds
        else:
            cur -= dmg
    return alive, cur


def transition(pmf: np.ndarray, spill: bool, models: int, wounds: int):
    """``T[s, s']`` (sparse): one packet with damage PMF ``pmf``; state 0 = destroyed, else
    ``1 + (alive - 1) * wounds + (cur - 1)``.

    Kept for the last few hundred (PMF, spill, models, wounds): a study of many scenarios
    (a matchup) builds the same matrices again and again. The matrices are never modified.
    """
    pmf = np.asarray(pmf, dtype=float)
    return _transition(pmf.tobytes(), bool(spill), int(models), int(wounds))


@functools.lru_cache(maxsize=512)
def _transition(pmf_bytes: bytes, spill: bool, models: int, wounds: int):
    from scipy.sparse import csr_matrix

    pmf = np.frombuffer(pmf_bytes, dtype=float)

    n = models * wounds + 1
    rows, cols, vals = [0], [0], [1.0]
    for s, s2, p, _ in _moves(pmf, spill, models, wounds):
        rows.append(s)
        cols.append(s2)
        vals.append(p)
    return csr_matrix((vals, (rows, cols)), shape=(n, n))


def _moves(pmf: np.ndarray, spill: bool, models: int, wounds: int):
    """``(state, next state, p, damage)`` of one packet from every state but destroyed."""
    for alive in range(1, models + 1):
        for cur in range(1, wounds + 1):
            s = 1 + (alive - 1) * wounds + (cur - 1)
            for dmg, p in enumerate(pmf):
                if p == 0.0:
                    continue
                a2, c2 = _allocate(dmg, spill, alive, cur, wounds)
                yield s, 0 if a2 == 0 else 1 + (a2 - 1) * wounds + (c2 - 1), p, dmg


def _feed(pmf: np.ndarray, spill: bool, models: int, wounds: int) -> _Feed:
    """The :class:`_Feed` of :func:`transition` (kept like the matrix: feeds are read-only)."""
    pmf = np.asarray(pmf, dtype=float)
    return _cached_feed(pmf.tobytes(), bool(spill), int(models), int(wounds))


@functools.lru_cache(maxsize=512)
def _cached_feed(pmf_bytes: bytes, spill: bool, models: int, wounds: int) -> _Feed:
    return _Feed(_transition(pmf_bytes, spill, models, wounds))


class _Feed:
    """``v @ T**k`` by repeated sparse products; counts the work done."""

    def __init__(self, T):
        self.T = T
        self.TT = T.T  # transposed once (the same matrix object every product used)
        self.nnz = T.nnz

    def apply(self, v: np.ndarray, k: int) -> np.ndarray:
        for _ in range(k):
            v = self.TT @ v
        return v

    def ladder(self, v: np.ndarray, k: int) -> list[np.ndarray]:
        """``[v, v T, v T², ..., v T**k]``."""
        out = [v]
        for _ in range(k):
            out.append(self.TT @ out[-1])
        return out


#: what each feed's packet adds to a statistic the chain carries in its state (see
#: :func:`_counted`): 1, its damage (after feel-no-pain, overkill and packets after the unit is
#: gone included, as the kernel counts), or nothing
COUNTS = {
    "unsaved": {"normal": "one", "crit": "one", "mh": None, "mw": None, "dev": "one"},
    "damage": dict.fromkeys(("normal", "crit", "mh", "mw", "dev"), "points"),
    "mortal_wounds": {"normal": None, "crit": None, "mh": "points", "mw": "points", "dev": None},
}


def _counted(pmf: np.ndarray, spill: bool, models: int, wounds: int, mode, C: int) -> _Feed:
    """The :class:`_Feed` of one packet over (unit state, counter) pairs, index ``state * C +
    counter`` (counter capped at ``C - 1``): the counter adds ``mode`` (:data:`COUNTS`)."""
    pmf = np.asarray(pmf, dtype=float)
    return _cached_counted(pmf.tobytes(), bool(spill), int(models), int(wounds), mode, int(C))


@functools.lru_cache(maxsize=128)
def _cached_counted(pmf_bytes: bytes, spill: bool, models: int, wounds: int, mode, C: int):
    from scipy.sparse import csr_matrix

    pmf = np.frombuffer(pmf_bytes, dtype=float)
    n = models * wounds + 1
    # the destroyed unit stays so, but a packet still counts (the kernel counts it too)
    gone = [(0, 0, p, dmg) for dmg, p in enumerate(pmf) if p != 0.0]
    rows, cols, vals, incs = [], [], [], []
    for s, s2, p, dmg in [*gone, *_moves(pmf, spill, models, wounds)]:
        rows.append(s)
        cols.append(s2)
        vals.append(p)
        incs.append(1 if mode == "one" else dmg if mode == "points" else 0)
    cs = np.arange(C)
    rr = (np.array(rows, dtype=np.int64)[:, None] * C + cs).ravel()
    to = np.minimum(cs + np.array(incs, dtype=np.int64)[:, None], C - 1)
    cc = (np.array(cols, dtype=np.int64)[:, None] * C + to).ravel()
    T = csr_matrix((np.repeat(np.array(vals), C), (rr, cc)), shape=(n * C, n * C))
    return _Feed(T)


def _blast_classes(w, models: int, wounds: int, C: int = 1):
    """``(attacks added per model, mask over unit states)`` pairs: one pair without Blast
    (each state ``C`` times over: the values of a counter, :func:`allocation_final`)."""
    S = models * wounds + 1
    if not w.blast:
        yield 0, np.ones(S * C)
        return
    alive = np.zeros(S, dtype=np.int64)
    for a in range(1, models + 1):
        alive[1 + (a - 1) * wounds : 1 + a * wounds] = a
    for bonus in sorted(set((alive // 5).tolist())):
        yield bonus, np.repeat((alive // 5 == bonus).astype(float), C)


def _fire(dist, n_att, per, normal: _Feed, mixed, S: int, work: int) -> int | None:
    """Feed one weapon's attacks (``n_att``: PMF of their number) into ``mixed`` (summed in
    place), keyed ``(outer pending, crit, mh, mw, dev)``; the work done so far, or None when
    the chain grows too large."""
    kmax = max(key[0] for key in per)
    # within the weapon: {(outer pending, crit, mh, mw, dev): vector}
    cur: dict[tuple, np.ndarray] = {(key, 0, 0, 0, 0): v for key, v in dist.items()}
    for n in range(len(n_att)):
        if n_att[n] != 0.0:
            for key, v in cur.items():
                mixed[key] = mixed[key] + n_att[n] * v
        if n == len(n_att) - 1:
            break
        nxt: dict[tuple, np.ndarray] = defaultdict(lambda: np.zeros(S))
        for key, v in cur.items():
            vs = normal.ladder(v, kmax)
            for (kn, kc, kh, kw, kd), p in per.items():
                nk = (key[0], key[1] + kc, key[2] + kh, key[3] + kw, key[4] + kd)
                nxt[nk] = nxt[nk] + p * vs[kn]
        work += len(cur) * (kmax * normal.nnz + len(per) * S)
        cur = dict(nxt)
        if len(cur) * S > MAX_STATES or work > MAX_WORK:
            return None
    return work


def allocation_final(sc: GenericScenario, stat: str | None = None, C: int = 1):
    """The exact distribution of the unit's state after every attack, ``float[M * W + 1]``
    (state 0: destroyed, else ``1 + (alive - 1) * W + (cur - 1)``; see :func:`transition`),
    or ``None`` when the chain would be too large; with ``stat`` (a key of :data:`COUNTS`)
    over (state, value of ``stat``) pairs, ``float[(M * W + 1) * C]``, index ``state * C +
    value``."""
    t, r = sc.target, sc.rules
    M, W = t.models, t.wounds
    S = (M * W + 1) * C
    if S > MAX_STATES:
        return None
    spill = r.spill == "spill"
    current = r.devastating_wounds == "current"
    dev_current = [i for i, w in enumerate(sc.fired) if w.devastating_wounds and current]
    start = np.zeros(S)
    start[(1 + (M - 1) * W + (W - t.damaged - 1)) * C] = 1.0
    modes = dict(COUNTS[stat]) if stat else {}
    if stat == "mortal_wounds" and not current:
        modes["dev"] = "points"  # legacy devastating wounds are mortal wounds

    def feeder(pmf, spill_it: bool, kind: str) -> _Feed:
        if stat is None:
            return _feed(pmf, spill_it, M, W)
        return _counted(pmf, spill_it, M, W, modes[kind], C)

    # state: {pending devastating counts (current rule), one per such weapon: vector over S}
    dist: dict[tuple[int, ...], np.ndarray] = {(): start}
    work = 0
    later: list[_Feed] = []
    for i, w in enumerate(sc.fired):
        per, k = _per_attack(sc, w)
        feed = {
            "normal": feeder(k.normal, spill, "normal"),
            "crit": feeder(k.crit, spill, "crit"),
            "mh": feeder(k.mh, True, "mh"),
            "mw": feeder(k.mw, True, "mw"),
            "dev": feeder(k.dev, not current, "dev"),
        }
        mixed: dict[tuple, np.ndarray] = defaultdict(lambda: np.zeros(S))
        for bonus, mask in _blast_classes(w, M, W, C):
            # Blast: the attacks depend on the models alive when the weapon fires
            pmf = np.concatenate([np.zeros(bonus), w.attacks.pmf()])
            n_att = convolve_n(pmf, w.models)
            part = {key: v * mask for key, v in dist.items()}
            work = _fire(part, n_att, per, feed["normal"], mixed, S, work)
            if work is None:
                return None
        new: dict[tuple[int, ...], np.ndarray] = defaultdict(lambda: np.zeros(S))
        for (outer, kc, kh, kw, kd), v in mixed.items():
            v = feed["crit"].apply(v, kc)
            v = feed["mh"].apply(v, kh)
            v = feed["mw"].apply(v, kw)
            if i in dev_current:
                key = (*outer, kd)
            else:
                v = feed["dev"].apply(v, kd)
                key = outer
            new[key] = new[key] + v
        work += sum(
            sum(key[1:4]) * max(f.nnz for f in feed.values()) + key[4] * feed["dev"].nnz
            for key in mixed
        )
        dist = dict(new)
        if i in dev_current:
            later.append(feed["dev"])
        if len(dist) * S > MAX_STATES or work > MAX_WORK:
            return None
    final = np.zeros(S)
    for key, v in dist.items():
        for count, powers in zip(key, later, strict=True):
            v = powers.apply(v, count)
        final += v
    return final


def allocation_values(sc: GenericScenario) -> dict[str, np.ndarray]:
    """Per unit state of :func:`allocation_final`, the value of each allocation statistic
    (``int64[M * W + 1]`` each): a joint distribution of any of them is the final
    distribution summed by these values."""
    t = sc.target
    M, W = t.models, t.wounds
    total = M * W - t.damaged
    state = np.arange(M * W + 1)
    alive = np.where(state == 0, 0, (state - 1) // W + 1)
    left = np.where(state == 0, 0, np.minimum(total, (alive - 1) * W + (state - 1) % W + 1))
    return {
        "models_slain": M - alive,
        "destroyed": (state == 0).astype(np.int64),
        "damage_dealt": total - left,
        "wounds_remaining": left,
    }


def allocation_joint(sc: GenericScenario, names: tuple[str, ...], sizes: tuple[int, ...]):
    """The exact joint table ``float[sizes]`` of ``names`` (axis k indexed by the value of
    ``names[k]``): allocation statistics and at most one of ``unsaved``, ``damage``,
    ``mortal_wounds`` (the chain then carries its value); None when the chain would be too
    large or a name is neither."""
    values = allocation_values(sc)
    counted = [n for n in names if n in COUNTS]
    if len(counted) > 1 or any(n not in values and n not in COUNTS for n in names):
        return None
    stat = counted[0] if counted else None
    C = sizes[names.index(stat)] if stat else 1
    final = allocation_final(sc, stat, C)
    if final is None:
        return None
    state = np.repeat(np.arange(len(final) // C), C)
    index = tuple(np.tile(np.arange(C), len(final) // C) if n == stat else values[n][state]
                  for n in names)  # fmt: skip
    table = np.zeros(sizes)
    np.add.at(table, index, final)
    return table


def allocation_pmfs(sc: GenericScenario) -> dict[str, np.ndarray] | None:
    """Exact PMFs of ``models_slain``, ``destroyed``, ``damage_dealt`` and
    ``wounds_remaining``, or ``None`` when the chain would be too large."""
    final = allocation_final(sc)
    if final is None:
        return None
    t = sc.target
    M, W = t.models, t.wounds
    total = M * W - t.damaged
    slain = np.zeros(M + 1)
    left = np.zeros(total + 1)
    slain[M] += final[0]
    left[0] += final[0]
    for alive in range(1, M + 1):
        for c in range(1, W + 1):
            p = final[1 + (alive - 1) * W + (c - 1)]
            slain[M - alive] += p
            left[min(total, (alive - 1) * W + c)] += p
    return {
        "models_slain": slain,
        "destroyed": np.array([1.0 - final[0], final[0]]),
        "damage_dealt": left[::-1].copy(),
        "wounds_remaining": left,
    }
