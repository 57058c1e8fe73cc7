"""Exact distributions of the static parts of the hex platoon rules.

A part is *static* when nothing rolled earlier in the trial can change what it reads (the
first fire at a target, a rally check, a mines attack, one artillery mission ...). For those
steps :func:`.statistics.scenario_pmfs` gives the exact PMF of the step's statistics and, when no other
step touches them, of the final state of the units and (s)HQs involved and of the stack
totals. Everything is enumerated in plain Python/numpy:

* :func:`attack_pmf` — hits of ``dice`` d6 at ``to_hit``+ with augmentation dice (roll
  ``dice + aug``, ignore the ``aug`` lowest: ``min(successes, dice)``);
* :func:`unsaved_pmf` — minus saves and an improved position;
* :func:`state_after` / :func:`distribute_exact` — the disrupt → reduce → eliminate ladder
  for one unit, and the fair distribution of a stack's hits (every set of "odd hit" units
  equally likely), mirroring :func:`.kernel.distribute`;
* :func:`hq_after` — the (s)HQ test after an attack on its hex;
* :func:`morale_pass`, :func:`mines_pmf`, :func:`clear_prob`.
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    pass

__all__ = [
    "p_ge",
    "binom_pmf",
    "attack_pmf",
    "unsaved_pmf",
    "apply_hits",
    "state_code",
    "detail_code",
    "state_after",
    "distribute_exact",
    "hq_after",
    "morale_pass",
    "mines_pmf",
    "clear_prob",
]


def p_ge(need: int) -> float:
    """P(d6 >= need)."""
    return min(6, max(0, 7 - need)) / 6


def binom_pmf(n: int, p: float) -> np.ndarray:
    return np.array([comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(max(n, 0) + 1)])


def attack_pmf(dice: int, aug: int, to_hit: int) -> np.ndarray:
    """Hits of ``dice`` d6 at ``to_hit``+ plus ``aug`` dice, the ``aug`` lowest ignored."""
    succ = binom_pmf(dice + aug, p_ge(to_hit))
    out = np.zeros(max(dice, 0) + 1)
    for s, p in enumerate(succ):
        out[min(s, dice)] += p
    return out


def lead_dice(dice: int, aug: int, lead: int, mode: int) -> tuple[int, int]:
    """(dice, aug) after an (s)HQ's leadership ``lead`` (mode as ``rules[R_HQ_MODE]``)."""
    if lead <= 0:
        return dice, aug
    if mode == 0:
        return dice + lead, aug
    if mode == 3:  # augment = "once": one augmentation die in all
        return dice, 1
    return (dice, aug + lead) if mode == 1 else (dice, aug + 1)


def unsaved_pmf(
    hits: np.ndarray, saves: list[tuple[int, int]], ip: bool, ip_after: bool
) -> np.ndarray:
    """Unsaved hits: ``max(hits [- 1 if ip] - saves, 0) [- 1 if ip_after]``.

    ``saves`` lists (dice, need) groups rolled together.
    """
    sp = np.ones(1)
    for n, need in saves:
        sp = np.convolve(sp, binom_pmf(n, p_ge(need)))
    out = np.zeros(len(hits))
    for h, ph in enumerate(hits):
        hh = max(h - 1, 0) if (ip and not ip_after) else h
        for s, ps in enumerate(sp):
            u = max(hh - s, 0)
            if ip and ip_after:
                u = max(u - 1, 0)
            out[u] += ph * ps
    return out


def apply_hits(
    side: int, dis: int, h: int, protect: bool, per_attack: bool = False, stepped: bool = False
) -> tuple[int, int, int]:
    """(side, disrupted, excess) after ``h`` hits; mirrors :func:`.kernel.apply_hits`.

    ``per_attack``: ``hit_ladder = "one-step-per-attack"``; ``stepped``: the unit already
    stepped down in this attack (hits passed on to it again are absorbed).
    """
    if h <= 0:
        return side, dis, 0
    if side >= 2:
        return side, dis, h
    if protect:
        return side, 1, 0
    if per_attack:
        if stepped or (dis == 0 and h == 1):
            return side, 1, 0
        if side == 1:
            return 2, 1, h - (1 if dis else 2)
        return 1, 1, 0
    cap = (2 - side) + (1 - dis)
    used = min(h, cap)
    side = min(side + used - 1 + dis, 2)
    return side, 1, h - used


def state_code(side: int, dis: int) -> int:
    """0 good order, 1 disrupted, 2 reduced, 3 eliminated."""
    return 3 if side >= 2 else (2 if side == 1 else int(bool(dis)))


def detail_code(side: int, dis: int) -> int:
    """0 good order, 1 disrupted, 2 reduced, 3 reduced and disrupted, 4 eliminated."""
    return 4 if side >= 2 else 2 * side + int(bool(dis))


#: detailed state -> state (reduced, disrupted or not, is 2)
DETAIL_TO_STATE = (0, 1, 2, 2, 3)
#: a level of the state (1 disrupted or worse, 2 reduced or worse, 3 eliminated) as a level
#: of the detailed state
LEVEL_TO_DETAIL = {0: 0, 1: 1, 2: 2, 3: 4}


def state_after(
    side: int, dis: int, unsaved: np.ndarray, protect: bool, per_attack: bool = False
) -> np.ndarray:
    """PMF of the state code of one unit after ``unsaved`` hits (a PMF)."""
    out = np.zeros(4)
    for h, p in enumerate(unsaved):
        s, d, _ = apply_hits(side, dis, h, protect, per_attack)
        out[state_code(s, d)] += p
    return out


def distribute_exact(
    units: list[tuple[int, int, bool, bool]],
    h: int,
    passed_on: bool,
    ign_hard: int,
    per_attack: bool = False,
) -> dict[tuple[tuple[int, int], ...], float]:
    """Joint distribution of ``(side, dis)`` per unit after fairly distributing ``h`` hits.

    ``units`` = (side, dis, hard, protect) each; mirrors :func:`.kernel.distribute`.
    ``ign_hard``: 0 no hit ignored, 1 each hard target ignores its first hit, 2 one hit of
    the attack is ignored, that of one hard target given hits (each equally likely).
    """
    out: dict[tuple[tuple[int, int], ...], float] = {}

    def go(states, h, first, p):
        alive = [i for i, (s, _d, _x) in enumerate(states) if s < 2]
        if h <= 0 or not alive:
            key = tuple((s, d) for s, d, _x in states)
            out[key] = out.get(key, 0.0) + p
            return
        n = len(alive)
        q, r = divmod(h, n)
        subsets = list(combinations(alive, r))
        for sub in subsets:
            given = {i: q + (1 if i in sub else 0) for i in alive}
            hard_hit = [i for i in alive if units[i][2] and given[i] > 0]
            # which hard targets ignore a hit: all of them, or one drawn at random
            if not (ign_hard and first):
                choices = [()]
            elif ign_hard == 2 and hard_hit:
                choices = [(i,) for i in hard_hit]
            else:
                choices = [tuple(hard_hit)]
            for ignoring in choices:
                new = list(states)
                excess = 0
                for i in alive:
                    g = given[i] - (1 if i in ignoring else 0)
                    s0, d0, x0 = new[i]
                    s, d, e = apply_hits(s0, d0, g, units[i][3], per_attack, x0)
                    new[i] = (s, d, x0 or s != s0)
                    excess += e
                w = p / len(subsets) / len(choices)
                if passed_on and excess > 0:
                    go(new, excess, False, w)
                else:
                    key = tuple((s, d) for s, d, _x in new)
                    out[key] = out.get(key, 0.0) + w

    go([(s, d, False) for s, d, _h, _p in units], h, True, 1.0)
    return out


def hq_after(
    hq_side: int, before: list[tuple[int, int]], after: list[tuple[int, int]], stays: bool
) -> dict[int, float]:
    """Distribution of the (s)HQ's side (0, 1, 2 = eliminated) after an attack on its hex."""
    if hq_side >= 2:
        return {hq_side: 1.0}
    hit = any(a != b for a, b in zip(after, before, strict=True))
    kill = any(a[0] >= 2 and b[0] < 2 for a, b in zip(after, before, strict=True))
    if before and all(a[0] >= 2 for a in after):
        return {2: 1.0} if (hit or kill) else {hq_side: 1.0}
    if not hit:
        return {hq_side: 1.0}
    p = (3 if kill else 1) / 6
    if hq_side == 1 and stays:
        return {1: 1.0}
    return {hq_side: 1 - p, hq_side + 1: p}


def morale_pass(morale: int, modifier: int = 0) -> float:
    """P(2D6 + modifier <= morale)."""
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b + modifier <= morale) / 36


def mines_pmf(mode: str) -> np.ndarray:
    """Mine hits: each of 2 d6 >= 5 ('each-die'), or one hit if 2D6 >= 5 ('sum')."""
    if mode == "sum":
        return np.array([6 / 36, 30 / 36])
    return binom_pmf(2, 1 / 3)


def clear_prob(dice: list[int], mode: str) -> float:
    """P(minefield cleared) when units rolling ``dice`` dice each try (any of them succeeds)."""
    fail = 1.0
    for d in dice:
        p = 0.5 if mode == "sum" else 1 - 0.5**d
        fail *= 1 - p
    return 1 - fail
