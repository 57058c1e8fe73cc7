"""Exact outcome of one static step: its recorded numbers and the joint unit states.

Used by :func:`.statistics.scenario_pmfs`; each function mirrors the kernel's step of the same
kind in plain Python (see :mod:`.kernel`), starting from the scenario's initial position.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from . import layout as K
from .exact import (
    DETAIL_TO_STATE,
    LEVEL_TO_DETAIL,
    attack_pmf,
    binom_pmf,
    clear_prob,
    detail_code,
    distribute_exact,
    hq_after,
    lead_dice,
    mines_pmf,
    morale_pass,
    unsaved_pmf,
)

if TYPE_CHECKING:  # pragma: no cover
    from .compile import HexPlatoonScenario

__all__ = ["StepExact", "step_exact"]

HQ_CODE = {0: 0, 1: 2, 2: 4}  # an (s)HQ is never disrupted


@dataclass
class StepExact:
    """``rec[field]`` PMFs and ``groups`` of (unit names, {detailed state codes: probability})."""

    rec: dict[int, np.ndarray] = field(default_factory=dict)
    groups: list[tuple[tuple[str, ...], dict[tuple[int, ...], float]]] = field(default_factory=list)

    def state_pmf(self, name: str, detail: bool = False) -> np.ndarray | None:
        """PMF of the unit's state (4 codes) or, with ``detail``, its detailed state (5)."""
        for names, joint in self.groups:
            if name in names:
                i = names.index(name)
                out = np.zeros(5 if detail else 4)
                for codes, p in joint.items():
                    out[codes[i] if detail else DETAIL_TO_STATE[codes[i]]] += p
                return out
        return None

    def count_pmf(self, names: list[str], level: int) -> np.ndarray | None:
        for gnames, joint in self.groups:
            if all(n in gnames for n in names):
                idx = [gnames.index(n) for n in names]
                out = np.zeros(len(names) + 1)
                lv = LEVEL_TO_DETAIL[level]
                for codes, p in joint.items():
                    out[sum(codes[i] >= lv for i in idx)] += p
                return out
        return None


def _init(u) -> tuple[int, int]:
    return (1 if u.reduced else 0), int(u.disrupted)


def _go(u) -> bool:
    return not u.disrupted and not u.ops_complete


def _lead(sc, name: str) -> int:
    if not name:
        return 0
    u = sc.unit(name)
    return u.leadership_reduced if u.reduced else u.leadership


def _marked(sc, u) -> bool:
    """``u`` starts with an Ops Complete marker that bars moving and clearing mines."""
    return u.ops_complete and sc.rules.ops_complete_bars == "every-action"


def _per_attack(sc) -> bool:
    return sc.rules.hit_ladder == "one-step-per-attack"


def can_call(u) -> bool:
    """A caller of an artillery mission at the start: Good Order, in command, not yet acted
    (rule 11.2 "a Good Order (s)HQ/Reconnaissance Unit ... must be the first action of the
    unit"; 1.3.3.2 "Good Order recon platoon who are in command")."""
    return not u.disrupted and not u.out_of_command and not u.ops_complete


def _mode(sc) -> int:
    return int(sc.rules_array()[K.R_HQ_MODE])


def _ign(sc) -> int:
    """How the artillery's first hit against hard targets is ignored (see distribute_exact)."""
    r = sc.rules
    if not r.artillery_ignore_first_hard_hit:
        return 0
    return 2 if r.artillery_hard_ignore == "per-attack" else 1


def _hex_joint(
    sc, hex_name, unsaved: np.ndarray, protect_all: bool, ign: int, weight=1.0, base=None
):
    """Joint (stack states + HQ) after ``unsaved`` hits (PMF) distributed in ``hex_name``."""
    from .model import _conceal_base

    hexo = sc.hex(hex_name)
    stack = sc.stack(hex_name)
    hq = sc.hq_of(hex_name)
    names = tuple(u.name for u in stack) + ((hq.name,) if hq else ())
    units = []
    for u in stack:
        conc = _conceal_base(u, hexo) and not u.ops_complete
        units.append((*_init(u), bool(u.hard), bool(protect_all and u.infantry and conc)))
    before = [(s, d) for s, d, _h, _p in units]
    joint: dict[tuple[int, ...], float] = dict(base or {})
    passed = sc.rules.excess_hits == "passed-on"
    stays = sc.rules.hq_reduced_again == "stays-reduced"
    for h, ph in enumerate(unsaved):
        if ph == 0:
            continue
        for after, p in distribute_exact(units, h, passed, ign, _per_attack(sc)).items():
            codes = tuple(detail_code(s, d) for s, d in after)
            if hq is None:
                joint[codes] = joint.get(codes, 0.0) + weight * ph * p
                continue
            for side, q in hq_after(_init(hq)[0], before, list(after), stays).items():
                key = codes + (HQ_CODE[side],)
                joint[key] = joint.get(key, 0.0) + weight * ph * p * q
    return names, joint


def _unchanged(sc, hex_name):
    stack = sc.stack(hex_name)
    hq = sc.hq_of(hex_name)
    codes = tuple(detail_code(*_init(u)) for u in stack) + ((HQ_CODE[_init(hq)[0]],) if hq else ())
    return {codes: 1.0}


def _hex_saves(sc, hex_name) -> int:
    r = sc.rules
    stack = sc.stack(hex_name)
    hard = any(u.hard for u in stack)
    soft = sum(not u.hard for u in stack)
    extra = 0
    if r.artillery_soft_extra_defence and hard and soft:
        extra = soft if r.artillery_soft_extra_scope == "per-soft-unit" else 1
    return sc.hex(hex_name).defence + hard + extra


def _mix(a: np.ndarray, b: np.ndarray, w: float) -> np.ndarray:
    n = max(len(a), len(b))
    out = np.zeros(n)
    out[: len(a)] += w * a
    out[: len(b)] += (1 - w) * b
    return out


def fire_dice(sc: HexPlatoonScenario, k: int) -> tuple[np.ndarray, list[tuple[int, int]], bool]:
    """(hits PMF, save groups (dice, need), target concealed) of fire step ``k``, as
    :func:`.kernel.fire` rolls them."""
    from .model import _conceal_base

    s = sc.steps[k]
    r = sc.rules
    t = sc.unit(s.target)
    hexo = sc.hex(sc.hex_of_name(s.target))
    fn = sc.step_fire(k)
    d, a = lead_dice(fn.dice, fn.aug, _lead(sc, s.hq), _mode(sc))
    hits = attack_pmf(d, a, fn.to_hit)
    conc = bool(_conceal_base(t, hexo) and not t.ops_complete)
    if t.hard:
        db = hexo.defence_hard
        bonus = min(db, 2) + conc if not r.concealment_in_cap else min(db + conc, 2)
        saves = (
            [(t.armor, t.save), (bonus, 5)]
            if r.armor_bonus_cover_5plus
            else [(t.armor + bonus, t.save)]
        )
    else:
        saves = [(hexo.defence + conc, 5)]
    return hits, saves, conc


def step_exact(sc: HexPlatoonScenario, k: int) -> StepExact:
    """Exact outcome of step ``k`` from the initial position (the step must be static)."""
    s = sc.steps[k]
    r = sc.rules
    ip_after = r.improved_position == "after-saves"
    res = StepExact()
    if s.kind == "fire":
        f, t = sc.unit(s.firer), sc.unit(s.target)
        hname = sc.hex_of_name(s.target)
        hexo = sc.hex(hname)
        if not (_go(f) and not f.out_of_command):
            res.rec = {0: np.ones(1), 1: np.ones(1), 2: np.array([1.0, 0.0])}
            res.groups.append(((tuple(u.name for u in sc.stack(hname))), {}))
            res.groups[-1] = (
                _hex_joint(sc, hname, np.ones(1), False, False)[0],
                _unchanged(sc, hname),
            )
            return res
        hits, saves, conc = fire_dice(sc, k)
        uns = unsaved_pmf(hits, saves, hexo.improved_position, ip_after)
        res.rec = {0: hits, 1: uns, 2: np.array([0.0, 1.0])}
        protect = r.concealed_infantry_not_reduced and t.infantry and conc
        # only the target takes hits: a one-unit "stack" inside the hex
        stack = sc.stack(hname)
        i = [u.name for u in stack].index(t.name)
        names, joint = _hex_joint(sc, hname, np.ones(1), False, False)
        joint = {}
        hq = sc.hq_of(hname)
        before = [_init(u) for u in stack]
        from .exact import apply_hits

        for h, ph in enumerate(uns):
            s2, d2, _e = apply_hits(*_init(t), h, protect, _per_attack(sc))
            after = list(before)
            after[i] = (s2, d2)
            codes = tuple(detail_code(*x) for x in after)
            if hq is None:
                joint[codes] = joint.get(codes, 0.0) + ph
            else:
                for side, q in hq_after(
                    _init(hq)[0], before, after, r.hq_reduced_again == "stays-reduced"
                ).items():
                    key = codes + (HQ_CODE[side],)
                    joint[key] = joint.get(key, 0.0) + ph * q
        res.groups.append((names, joint))
    elif s.kind == "mortar":
        f = sc.unit(s.firer)
        spot_ok = not s.spotter or can_call(sc.unit(s.spotter))
        if not (_go(f) and not f.out_of_command and spot_ok):
            res.rec = {0: np.ones(1), 1: np.ones(1), 2: np.ones(1), 3: np.array([1.0, 0.0])}
            res.groups.append(
                (_hex_joint(sc, s.target, np.ones(1), False, False)[0], _unchanged(sc, s.target))
            )
            return res
        fn = sc.step_fire(k)
        n = len(sc.stack(s.target))
        d, a = lead_dice(
            fn.dice + (1 if (r.artillery_extra_die and n > 1) else 0),
            fn.aug,
            _lead(sc, s.hq),
            _mode(sc),
        )
        if n == 0:
            d, a = lead_dice(fn.dice, fn.aug, _lead(sc, s.hq), _mode(sc))
        hits = attack_pmf(d, a, fn.to_hit)
        uns = (
            unsaved_pmf(
                hits, [(_hex_saves(sc, s.target), 5)], sc.hex(s.target).improved_position, ip_after
            )
            if n
            else np.ones(1)
        )
        fail = 1 / 6 if (s.spotter and r.mortar_mission_roll) else 0.0
        res.rec = {
            0: _mix(np.ones(1), hits, fail),
            1: _mix(np.ones(1), uns, fail),
            2: np.array([1 - fail, fail]),
            3: np.array([0.0, 1.0]),
        }
        protect = r.concealed_infantry_not_reduced and r.concealed_infantry_scope == "all-fire"
        base = {c: fail * p for c, p in _unchanged(sc, s.target).items()}
        res.groups.append(_hex_joint(sc, s.target, uns, protect, _ign(sc), 1 - fail, base))
    elif s.kind == "artillery":
        called = not s.spotter or can_call(sc.unit(s.spotter))
        fail = 1 / 6 if called else 1.0
        res.rec = {0: np.array([1 - fail, fail]) if called else np.ones(1)}
        res.rec[15] = np.array([0.0, 1.0]) if called else np.array([1.0, 0.0])
        protect = r.concealed_infantry_not_reduced and r.concealed_infantry_scope == "all-fire"
        for m, h in enumerate(s.hexes):
            n = len(sc.stack(h))
            hits = attack_pmf(
                s.firepower + (1 if (r.artillery_extra_die and n > 1) else 0), 0, s.to_hit
            )
            if n == 0:
                hits = attack_pmf(s.firepower, 0, s.to_hit)
                uns = np.ones(1)
            else:
                uns = unsaved_pmf(
                    hits, [(_hex_saves(sc, h), 5)], sc.hex(h).improved_position, ip_after
                )
            res.rec[1 + 2 * m] = _mix(np.ones(1), hits, fail)
            res.rec[2 + 2 * m] = _mix(np.ones(1), uns, fail)
            base = {c: fail * p for c, p in _unchanged(sc, h).items()}
            res.groups.append(_hex_joint(sc, h, uns, protect, _ign(sc), 1 - fail, base))
    elif s.kind == "move":
        # out of command, the hex "may only opportunity fire" (4.2): it does not move; nor
        # does a stack with a unit marked Ops Complete (r.ops_complete_bars)
        if any(u.out_of_command or _marked(sc, u) for u in sc.stack(s.stack)):
            res.rec = {0: np.ones(1), 1: np.array([1.0, 0.0])}
            res.groups.append(
                (_hex_joint(sc, s.stack, np.ones(1), False, False)[0], _unchanged(sc, s.stack))
            )
            return res
        res.rec[1] = np.array([0.0, 1.0])
        if s.mines:
            hits = mines_pmf(r.mine_roll)
            res.rec[0] = hits
            if sc.hex(s.stack).improved_position and r.mines_improved_position:
                hits = np.append(hits[0] + hits[1], hits[2:])  # the first hit is nullified
            res.groups.append(_hex_joint(sc, s.stack, hits, False, False))
    elif s.kind == "rally":
        probs = []
        for name in sc.step_units(k):
            u = sc.unit(name)
            hq = sc.hq_of(sc.hex_of_name(name))
            side, dis = _init(u)
            if side >= 2 or not dis:
                res.groups.append(((name,), {(detail_code(side, dis),): 1.0}))
                continue
            lead = _lead(sc, hq.name) if hq else 0
            p = morale_pass(u.morale, int(u.out_of_command) - lead)
            probs.append(p)
            res.groups.append(
                ((name,), {(detail_code(side, 0),): p, (detail_code(side, 1),): 1 - p})
            )
        cnt = np.ones(1)
        for p in probs:
            cnt = np.convolve(cnt, np.array([1 - p, p]))
        res.rec[0] = cnt
    elif s.kind == "command":
        p = morale_pass(sc.command_morale(k))
        res.rec[0] = np.array([p, 1 - p])
    elif s.kind == "clear-mines":
        able = [
            n
            for n in sc.step_units(k)
            if not sc.unit(n).out_of_command and not _marked(sc, sc.unit(n))
        ]
        dice = [2 if sc.unit(n).type == "engineer" else 1 for n in able]
        p = clear_prob(dice, r.clear_roll)
        res.rec[0] = np.array([1 - p, p])
    _ = binom_pmf
    return res
