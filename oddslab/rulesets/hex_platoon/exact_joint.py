"""Exact joint distributions of the statistics of the static hex platoon steps.

:func:`.statistics.scenario_pmfs` gives each statistic of a static step (see :mod:`.exact`)
on its own; :func:`exact_joint` gives any set of them jointly (``Job.exact_joint``): the
hits, unsaved hits and every final state of one attack together, the units of a hex, the
hexes of one artillery mission, and statistics of different static steps.

Each static step is enumerated as *branches* (the step cannot be made, the mission fails,
it goes ahead), each with the values it fixes and independent *parts*: the outcomes of one
hex (its hits, unsaved hits and the detailed states of its units and (s)HQ, jointly), of
one rally, of one check. Parts of a branch are independent (different dice), so are
different static steps, so the joint of statistics from different parts or steps is the
product of their own joints. A statistic is exact when its step is static and, for a
state or a hex count, when that step is the only one that can change the units it reads
(as for :func:`.statistics.scenario_pmfs`; a hex count may also read units no step
touches).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from . import layout as K
from .exact import (
    DETAIL_TO_STATE,
    LEVEL_TO_DETAIL,
    apply_hits,
    attack_pmf,
    clear_prob,
    detail_code,
    distribute_exact,
    hq_after,
    lead_dice,
    mines_pmf,
    morale_pass,
    unsaved_pmf,
)
from .exact_steps import (
    HQ_CODE,
    _go,
    _hex_saves,
    _ign,
    _init,
    _lead,
    _marked,
    _mode,
    _per_attack,
    can_call,
    fire_dice,
)

if TYPE_CHECKING:  # pragma: no cover
    from .compile import HexPlatoonScenario

__all__ = ["exact_joint", "step_branches", "Branch"]

#: a variable of a step's outcome: ("rec", field) or ("unit", name) (a detailed state code)
Var = tuple[str, object]


@dataclass
class Branch:
    """One way a step goes, with probability ``weight``: the values it ``fixes`` and its
    independent ``parts`` (variables, {values in that order: probability})."""

    weight: float
    fixed: dict[Var, int] = field(default_factory=dict)
    parts: list[tuple[tuple[Var, ...], dict[tuple[int, ...], float]]] = field(default_factory=list)


#: per-step record fields the enumeration models, by step kind (artillery: see below)
_FIELDS = {
    "fire": {0, 1, 2},
    "mortar": {0, 1, 2, 3},
    "move": {0, 1},
    "rally": {0},
    "command": {0},
    "clear-mines": {0},
}


def _modelled(sc: HexPlatoonScenario, k: int, f: int) -> bool:
    s = sc.steps[k]
    if s.kind == "artillery":
        return f in (0, 15) or 1 <= f <= 2 * len(s.hexes)
    return f in _FIELDS.get(s.kind, set())


def _hex_vars(sc: HexPlatoonScenario, hex_name: str) -> tuple[Var, ...]:
    hq = sc.hq_of(hex_name)
    return tuple(("unit", u.name) for u in sc.stack(hex_name)) + (
        (("unit", hq.name),) if hq else ()
    )


def _hex_outcomes(sc, hex_name, hits: np.ndarray, unsaved_of, protect_all, ign, target=None):
    """{(hits, unsaved, *codes of the hex's stack and (s)HQ): p} of one attack on a hex.

    ``unsaved_of(h)`` is the PMF of unsaved hits given ``h`` hits. With ``target`` only that
    unit takes the hits (a fire attack), else they are distributed over the stack.
    """
    from .model import _conceal_base

    hexo = sc.hex(hex_name)
    stack = sc.stack(hex_name)
    hq = sc.hq_of(hex_name)
    units = []
    for u in stack:
        conc = _conceal_base(u, hexo) and not u.ops_complete
        units.append((*_init(u), bool(u.hard), bool(protect_all and u.infantry and conc)))
    before = [(s, d) for s, d, _h, _p in units]
    passed = sc.rules.excess_hits == "passed-on"
    stays = sc.rules.hq_reduced_again == "stays-reduced"
    spread: dict[int, dict] = {}
    out: dict[tuple[int, ...], float] = {}
    for h, ph in enumerate(hits):
        if ph == 0:
            continue
        for u, pu in enumerate(unsaved_of(h)):
            if pu == 0:
                continue
            if u not in spread:
                if target is None:
                    spread[u] = distribute_exact(units, u, passed, ign, _per_attack(sc))
                else:
                    i, protect = target
                    after = list(before)
                    after[i] = apply_hits(*before[i], u, protect, _per_attack(sc))[:2]
                    spread[u] = {tuple(after): 1.0}
            for after, pa in spread[u].items():
                codes = tuple(detail_code(s, d) for s, d in after)
                if hq is None:
                    key = (h, u, *codes)
                    out[key] = out.get(key, 0.0) + ph * pu * pa
                    continue
                for side, q in hq_after(_init(hq)[0], before, list(after), stays).items():
                    key = (h, u, *codes, HQ_CODE[side])
                    out[key] = out.get(key, 0.0) + ph * pu * pa * q
    return out


def _given(hits_len: int, saves, ip: bool, ip_after: bool):
    """``unsaved_of(h)``: PMF of unsaved hits after exactly ``h`` hits; ``saves`` None: an
    empty hex, where nothing is unsaved (:func:`.kernel.hex_attack`)."""

    def unsaved_of(h: int) -> np.ndarray:
        if saves is None:
            return np.ones(1)
        one = np.zeros(hits_len)
        one[h] = 1.0
        return unsaved_pmf(one, saves, ip, ip_after)

    return unsaved_of


def _fire(sc, k) -> list[Branch]:
    s = sc.steps[k]
    r = sc.rules
    f, t = sc.unit(s.firer), sc.unit(s.target)
    hname = sc.hex_of_name(s.target)
    hexo = sc.hex(hname)
    if not (_go(f) and not f.out_of_command):
        return [Branch(1.0, {("rec", 0): 0, ("rec", 1): 0, ("rec", 2): 0})]
    hits, saves, conc = fire_dice(sc, k)
    ip_after = r.improved_position == "after-saves"
    protect = bool(r.concealed_infantry_not_reduced and t.infantry and conc)
    i = [u.name for u in sc.stack(hname)].index(t.name)
    out = _hex_outcomes(
        sc, hname, hits, _given(len(hits), saves, hexo.improved_position, ip_after), False, 0,
        target=(i, protect),
    )  # fmt: skip
    part = ((("rec", 0), ("rec", 1), *_hex_vars(sc, hname)), out)
    return [Branch(1.0, {("rec", 2): 1}, [part])]


def _hex_attack_part(sc, hex_name, dice, aug, to_hit, m0, m1, lead=0):
    """The part of one mortar or artillery attack on ``hex_name`` (its record fields ``m0``
    hits and ``m1`` unsaved hits), as :func:`.kernel.hex_attack` plays it."""
    r = sc.rules
    n = len(sc.stack(hex_name))
    extra = 1 if (r.artillery_extra_die and n > 1) else 0
    d, a = lead_dice(dice + (extra if n else 0), aug, lead, _mode(sc))
    hits = attack_pmf(d, a, to_hit)
    if n:
        saves = [(_hex_saves(sc, hex_name), 5)]
        given = _given(len(hits), saves, sc.hex(hex_name).improved_position, _after(sc))
    else:
        given = _given(len(hits), None, False, False)
    protect = r.concealed_infantry_not_reduced and r.concealed_infantry_scope == "all-fire"
    out = _hex_outcomes(sc, hex_name, hits, given, protect, _ign(sc))
    return ((("rec", m0), ("rec", m1), *_hex_vars(sc, hex_name)), out)


def _after(sc) -> bool:
    return sc.rules.improved_position == "after-saves"


def _mortar(sc, k) -> list[Branch]:
    s = sc.steps[k]
    f = sc.unit(s.firer)
    zero = {("rec", 0): 0, ("rec", 1): 0, ("rec", 2): 0}
    if not (_go(f) and not f.out_of_command and (not s.spotter or can_call(sc.unit(s.spotter)))):
        return [Branch(1.0, {**zero, ("rec", 3): 0})]
    fn = sc.step_fire(k)
    fail = 1 / 6 if (s.spotter and sc.rules.mortar_mission_roll) else 0.0
    part = _hex_attack_part(sc, s.target, fn.dice, fn.aug, fn.to_hit, 0, 1, _lead(sc, s.hq))
    out = [Branch(1 - fail, {("rec", 2): 0, ("rec", 3): 1}, [part])]
    if fail:
        out.append(Branch(fail, {**zero, ("rec", 2): 1, ("rec", 3): 1}))
    return out


def _artillery(sc, k) -> list[Branch]:
    s = sc.steps[k]
    zero = {("rec", f): 0 for f in range(1, 2 * len(s.hexes) + 1)}
    if s.spotter and not can_call(sc.unit(s.spotter)):
        return [Branch(1.0, {**zero, ("rec", 0): 0, ("rec", 15): 0})]
    parts = [
        _hex_attack_part(sc, h, s.firepower, 0, s.to_hit, 1 + 2 * m, 2 + 2 * m)
        for m, h in enumerate(s.hexes)
    ]
    return [
        Branch(5 / 6, {("rec", 0): 0, ("rec", 15): 1}, parts),
        Branch(1 / 6, {**zero, ("rec", 0): 1, ("rec", 15): 1}),
    ]


def _move(sc, k) -> list[Branch]:
    s = sc.steps[k]
    r = sc.rules
    if any(u.out_of_command or _marked(sc, u) for u in sc.stack(s.stack)):
        return [Branch(1.0, {("rec", 0): 0, ("rec", 1): 0})]
    if not s.mines:
        return [Branch(1.0, {("rec", 0): 0, ("rec", 1): 1})]
    hits = mines_pmf(r.mine_roll)
    nullify = sc.hex(s.stack).improved_position and r.mines_improved_position

    def given(h: int) -> np.ndarray:  # the first hit nullified in an improved position
        one = np.zeros(len(hits))
        one[max(h - 1, 0) if nullify else h] = 1.0
        return one

    # a mines attack is an attack: the hit hex's (s)HQ tests after it, as after fire
    out = _hex_outcomes(sc, s.stack, hits, given, False, 0)
    vars_ = (("rec", 0), ("mines", "after improved position"), *_hex_vars(sc, s.stack))
    return [Branch(1.0, {("rec", 1): 1}, [(vars_, out)])]


def _rally(sc, k) -> list[Branch]:
    names = sc.step_units(k)
    joint: dict[tuple[int, ...], float] = {(0,): 1.0}
    for name in names:
        u = sc.unit(name)
        hq = sc.hq_of(sc.hex_of_name(name))
        side, dis = _init(u)
        if side >= 2 or not dis:
            opts = [(0, detail_code(side, dis), 1.0)]
        else:
            lead = _lead(sc, hq.name) if hq else 0
            p = morale_pass(u.morale, int(u.out_of_command) - lead)
            opts = [(1, detail_code(side, 0), p), (0, detail_code(side, 1), 1 - p)]
        new: dict[tuple[int, ...], float] = {}
        for key, p in joint.items():
            for add, code, q in opts:
                nk = (key[0] + add, *key[1:], code)
                new[nk] = new.get(nk, 0.0) + p * q
        joint = new
    vars_ = (("rec", 0), *(("unit", n) for n in names))
    return [Branch(1.0, {}, [(vars_, joint)])]


def _check(p_one: float) -> list[Branch]:
    return [Branch(1.0, {}, [((("rec", 0),), {(0,): 1 - p_one, (1,): p_one})])]


def step_branches(sc: HexPlatoonScenario, k: int) -> list[Branch] | None:
    """The branches of static step ``k`` from the initial position (None: not enumerated)."""
    kind = sc.steps[k].kind
    if kind == "fire":
        return _fire(sc, k)
    if kind == "mortar":
        return _mortar(sc, k)
    if kind == "artillery":
        return _artillery(sc, k)
    if kind == "move":
        return _move(sc, k)
    if kind == "rally":
        return _rally(sc, k)
    if kind == "command":
        return _check(1 - morale_pass(sc.command_morale(k)))
    if kind == "clear-mines":
        able = [
            n
            for n in sc.step_units(k)
            if not sc.unit(n).out_of_command and not _marked(sc, sc.unit(n))
        ]
        dice = [2 if sc.unit(n).type == "engineer" else 1 for n in able]
        return _check(clear_prob(dice, sc.rules.clear_roll))
    return None


@dataclass(frozen=True)
class _Read:
    """How one statistic reads its step's variables: ``value(vals) -> int``, clipped."""

    step: int
    vars: tuple[Var, ...]
    kind: int
    level: int
    nbins: int

    def value(self, vals: tuple[int, ...]) -> int:
        if self.kind == K.OK_REC or self.kind == K.OK_STATE_DETAIL:
            v = vals[0]
        elif self.kind == K.OK_STATE:
            v = DETAIL_TO_STATE[vals[0]]
        else:
            lv = LEVEL_TO_DETAIL[self.level]
            v = sum(c >= lv for c in vals)
        return min(v, self.nbins - 1)


def _reads(sc: HexPlatoonScenario, names: tuple[str, ...]) -> list[_Read] | None:
    from .statistics import state_steps, static_steps

    stats, so, _h, _p = sc.stat_plan()
    index = {st.name: i for i, st in enumerate(stats)}
    static = static_steps(sc)
    touch: dict[str, list[int]] = {}
    for k in range(len(sc.steps)):
        for n in state_steps(sc, k):
            touch.setdefault(n, []).append(k)
    units = sc.units
    out = []
    for name in names:
        if name not in index:
            raise KeyError(f"'{name}' is not a statistic of this scenario")
        st = stats[index[name]]
        kind, a, b = (int(x) for x in so[index[name], :3])
        if kind == K.OK_REC:
            if not (static[a] and _modelled(sc, a, b)):
                return None
            out.append(_Read(a, (("rec", b),), kind, 0, st.nbins))
            continue
        if kind == K.OK_HEX_GE:
            who = [u.name for u in sc.stack(sc.hexes[a].name)]
        else:
            who = [units[a].name]
        # a unit of the hex no step touches keeps its starting state (:func:`_default`)
        ks = {tuple(touch.get(n, [])) for n in who} - {()}
        if len(ks) != 1:
            return None
        only = next(iter(ks))
        if len(only) != 1 or not static[only[0]]:
            return None
        out.append(_Read(only[0], tuple(("unit", n) for n in who), kind, b, st.nbins))
    return out


def _default(sc: HexPlatoonScenario, var: Var) -> int:
    """A variable's value when a branch neither fixes it nor plays it: a record field not
    written is 0, a unit not hit keeps its starting state."""
    if var[0] == "unit":
        u = sc.unit(str(var[1]))
        return HQ_CODE[_init(u)[0]] if u.is_hq else detail_code(*_init(u))
    return 0


def _step_table(
    sc: HexPlatoonScenario, branches: list[Branch], reads: list[_Read]
) -> np.ndarray | None:
    """Joint table of ``reads`` (all of one step), axis ``i`` indexed by read ``i``'s value."""
    shape = tuple(r.nbins for r in reads)
    table = np.zeros(shape)
    for br in branches:
        where: dict[Var, int] = {}
        for j, (vars_, _o) in enumerate(br.parts):
            for v in vars_:
                where[v] = j
        groups: dict[int | None, list[int]] = {}
        for i, r in enumerate(reads):
            homes = {where.get(v) for v in r.vars}
            if len(homes) != 1:
                return None  # a statistic read across independent parts: not enumerated
            groups.setdefault(next(iter(homes)), []).append(i)
        acc = np.ones(())
        order: list[int] = []
        for j, idx in groups.items():
            sub = np.zeros(tuple(shape[i] for i in idx))
            if j is None:
                vals = [
                    reads[i].value(tuple(br.fixed.get(v, _default(sc, v)) for v in reads[i].vars))
                    for i in idx
                ]
                sub[tuple(vals)] = 1.0
            else:
                vars_, outcomes = br.parts[j]
                pos = [[vars_.index(v) for v in reads[i].vars] for i in idx]
                for key, p in outcomes.items():
                    cell = tuple(
                        reads[i].value(tuple(key[q] for q in ps))
                        for i, ps in zip(idx, pos, strict=True)
                    )
                    sub[cell] += p
            acc = np.multiply.outer(acc, sub)
            order += idx
        table += br.weight * np.transpose(acc, np.argsort(order))
    return table


def exact_joint(sc: HexPlatoonScenario, names: tuple[str, ...]) -> np.ndarray | None:
    """Exact joint probability table of the statistics ``names`` of ``sc`` (axis ``i``
    indexed by the value of ``names[i]``, as many bins as the statistic has), or None when
    one of them is not exact (see the module docstring).

    Raises
    ------
    KeyError
        A name that is not a statistic of the scenario.
    """
    reads = _reads(sc, tuple(names))
    if reads is None or not reads:
        return None
    by_step: dict[int, list[int]] = {}
    for i, r in enumerate(reads):
        by_step.setdefault(r.step, []).append(i)
    acc = np.ones(())
    order: list[int] = []
    for k, idx in by_step.items():
        branches = step_branches(sc, k)
        if branches is None:
            return None
        t = _step_table(sc, branches, [reads[i] for i in idx])
        if t is None:
            return None
        acc = np.multiply.outer(acc, t)  # different static steps roll different dice
        order += idx
    return np.transpose(acc, np.argsort(order))
