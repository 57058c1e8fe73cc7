"""Slow, obvious pure-Python reference for a one-turn assault (the benchmark combat's shape).

One unit per side, every model in base contact, open ground, one turn: Initiative steps
(power fists at Initiative 1), to hit by WS, to wound by S v T, armour saves (power fists
ignore them), casualties removed after each step in the listed order of the groups, the
assault result, the loser's Leadership test (2D6 <= the best living Ld), fall back 2D6,
sweeping advance 2D6 (profile Attacks, every attack hitting automatically, no strike
back). Dice come from ``random.Random(seed)``, one ``randint(1, 6)`` at a time.

Used by ``tests/test_assault_phase_naive.py`` as the oracle for the kernel and by
``benchmarks/bench_assault_phase.py`` as the pure-Python speed reference.
"""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass
class Group:
    """Models sharing a profile (every one of them in base contact, one wound each)."""

    name: str
    count: int
    ws: int
    s: int
    t: int
    i: int
    a: int
    ld: int
    save: int
    two_weapons: bool = False
    power_fist: bool = False


def to_hit(ws: int, target_ws: int) -> int:
    if ws > target_ws:
        return 3
    if target_ws > 2 * ws:
        return 5
    return 4


def to_wound(s: int, t: int) -> int:
    return {2: 2, 1: 3, 0: 4, -1: 5, -2: 6, -3: 6}.get(s - t, 2 if s - t > 2 else 7)


def _majority(values: list[tuple[int, int]], tie: str) -> int:
    """The most common value among (value, models) pairs of living models.

    Several values equally common: ``tie = "highest"`` takes the highest of them (the owner
    chooses his Toughness), ``tie = "lowest-in-unit"`` the lowest value any living model
    has ("If there is no majority Weapon Skill type use the lowest Weapon Skill in the unit").
    """
    counts: dict[int, int] = {}
    for v, n in values:
        if n > 0:
            counts[v] = counts.get(v, 0) + n
    top = max(counts.values())
    best = [v for v, n in counts.items() if n == top]
    if len(best) == 1:
        return best[0]
    return max(best) if tie == "highest" else min(counts)


def play(attacker: list[Group], defender: list[Group], rng: random.Random) -> dict[str, int]:
    """One combat; returns the kernel's statistics (the subset this reference models)."""

    def d6() -> int:
        return rng.randint(1, 6)

    sides = [attacker, defender]
    alive = [[g.count for g in attacker], [g.count for g in defender]]
    start = [sum(alive[0]), sum(alive[1])]
    inflicted = [0, 0]  # wounds inflicted BY each side

    def majorities(side: int) -> tuple[int, int]:
        gs = sides[side]
        ws = _majority([(g.ws, n) for g, n in zip(gs, alive[side], strict=True)], "lowest-in-unit")
        t = _majority([(g.t, n) for g, n in zip(gs, alive[side], strict=True)], "highest")
        return ws, t

    def strike(side: int, g: int, attacks: int, auto_hit: bool, pend: list[list[int]]) -> None:
        grp = sides[side][g]
        enemy = 1 - side
        if sum(alive[enemy]) == 0:
            return
        e_ws, e_t = majorities(enemy)
        hits = attacks if auto_hit else sum(d6() >= to_hit(grp.ws, e_ws) for _ in range(attacks))
        s = min(2 * grp.s, 10) if grp.power_fist else grp.s
        need = to_wound(s, e_t)
        wounds = sum(d6() >= need for _ in range(hits))
        pend[side].append(wounds if not grp.power_fist else -wounds - 1)

    def apply(side: int, pend: list[list[int]]) -> None:
        """Saves and casualties for the wounds ``side`` scored (negative: no armour save)."""
        enemy = 1 - side
        no_armour = sum(-w - 1 for w in pend[side] if w < 0)
        normal = sum(w for w in pend[side] if w >= 0)
        save = sides[enemy][0].save  # one save per unit in the benchmark shapes
        unsaved = no_armour + sum(d6() < save for _ in range(normal))
        for g in range(len(alive[enemy])):
            k = min(unsaved, alive[enemy][g])
            alive[enemy][g] -= k
            unsaved -= k
            inflicted[side] += k

    # -- one turn of Initiative steps ---------------------------------------------------------
    for step in range(10, 0, -1):
        pend: list[list[int]] = [[], []]
        for side in (0, 1):
            for g, grp in enumerate(sides[side]):
                init = 1 if grp.power_fist else grp.i
                if init != step or alive[side][g] == 0:
                    continue
                per = grp.a + (1 if grp.two_weapons else 0) + (1 if side == 0 else 0)
                strike(side, g, alive[side][g] * per, False, pend)
        # simultaneous: casualties after both sides' blows of this step
        apply(0, pend)
        apply(1, pend)
    left = [sum(alive[0]), sum(alive[1])]
    res = {
        "attacker_won_assault": 0,
        "defender_won_assault": 0,
        "assault_drawn": 0,
        "defender_fell_back": 0,
        "attacker_fell_back": 0,
        "defender_swept": 0,
        "attacker_swept": 0,
    }
    if left[0] == 0 or left[1] == 0:
        winner = 0 if left[0] > 0 else (1 if left[1] > 0 else -1)
    elif inflicted[0] != inflicted[1]:
        winner = 0 if inflicted[0] > inflicted[1] else 1
    else:
        winner = -1
    if winner < 0:
        res["assault_drawn"] = 1
    else:
        loser = 1 - winner
        res[("attacker", "defender")[winner] + "_won_assault"] = 1
        if left[loser] > 0:
            ld = max(g.ld for g, n in zip(sides[loser], alive[loser], strict=True) if n > 0)
            if d6() + d6() > ld:
                name = ("attacker", "defender")[loser]
                res[name + "_fell_back"] = 1
                fall = d6() + d6()
                if d6() + d6() > fall:
                    res[name + "_swept"] = 1
                    pend = [[], []]
                    for g, grp in enumerate(sides[winner]):
                        if alive[winner][g]:
                            strike(winner, g, alive[winner][g] * grp.a, True, pend)
                    apply(winner, pend)
    res["attacker_models_lost"] = start[0] - sum(alive[0])
    res["defender_models_lost"] = start[1] - sum(alive[1])
    return res


def benchmark_sides() -> tuple[list[Group], list[Group]]:
    """The benchmark combat: 10 marines (sergeant: power fist) charge 19 boyz and a Nob."""
    marines = [
        Group("Marines", 9, ws=4, s=4, t=4, i=4, a=1, ld=8, save=3),
        Group("Sergeant", 1, ws=4, s=4, t=4, i=4, a=2, ld=9, save=3, power_fist=True),
    ]
    boyz = [
        Group("Boyz", 19, ws=4, s=3, t=4, i=2, a=2, ld=7, save=6, two_weapons=True),
        Group("Nob", 1, ws=4, s=4, t=4, i=3, a=3, ld=7, save=6, power_fist=True),
    ]
    return marines, boyz


def run(attacker: list[Group], defender: list[Group], trials: int, seed: int) -> list[dict]:
    """``trials`` combats from ``random.Random(seed)``."""
    rng = random.Random(seed)
    return [play(attacker, defender, rng) for _ in range(trials)]
