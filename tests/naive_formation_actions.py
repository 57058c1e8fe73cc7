"""Slow, obviously-correct pure-Python reference for formation-actions games.

Plays a game straight from the scenario objects, following docs/formation-actions.md step by
step with ``random.Random``. Used by the tests (agreement within 5 standard errors) and by
``benchmarks/bench_formation_actions.py`` (the pure-Python rate).
"""

from __future__ import annotations

import random
from collections import Counter

from oddslab.rulesets.formation_actions import FormationActionsScenario


class _F:
    def __init__(self, army: int, index: int, spec):
        self.army = army
        self.index = index
        self.spec = spec
        self.shock = spec.shock
        self.broken = spec.starts_broken
        self.ever = self.broken
        self.gone = False
        self.done = False


def _penalty(rules, f: _F) -> int:
    return rules.penalty(f.spec.suppressed > 0, f.shock)


def _passes(rules, roll: int, target: int) -> bool:
    if rules.natural_one_passes and roll == 1:
        return True
    if rules.natural_six_fails and roll == 6:
        return False
    return roll <= target


def _outside(rng: random.Random, f: _F) -> int:
    o = f.spec.outside_shock
    if o.dice is not None:
        return max(0, sum(rng.randint(1, o.dice.sides) for _ in range(o.dice.n)) + o.dice.add)
    if o.table is not None:
        return rng.choices(range(len(o.table)), weights=o.table)[0]
    return o.fixed


def _cap(rules, f: _F) -> None:
    """broken_shock "cap": a broken formation has at most as many Shock points as units."""
    if rules.broken_shock == "cap" and f.broken:
        f.shock = min(f.shock, f.spec.units)


def _gain(rules, f: _F, k: int) -> None:
    f.shock += k
    if k > 0 and rules.break_check == "immediate" and not f.broken and f.shock >= f.spec.threshold:
        f.broken = True
        f.ever = True
    _cap(rules, f)


def play_game(sc: FormationActionsScenario, rng: random.Random) -> dict[str, int]:
    """One game; returns ``{statistic name: value}`` for every statistic of the scenario."""
    rules = sc.rules
    n = sc.turns
    keys = [a.key for a in sc.armies]
    forms = [
        [_F(a, i, spec) for i, spec in enumerate(army.formations)]
        for a, army in enumerate(sc.armies)
    ]
    for f in forms[0] + forms[1]:
        _cap(rules, f)  # broken at the start with more Shock than units
    res: Counter = Counter()

    def name(f: _F, what: str) -> str:
        return f"{keys[f.army]}_{f.spec.key}_{what}"

    def pen(f: _F) -> int:
        return _penalty(rules, f)

    def chance(f: _F, extra: int) -> int:
        return sum(_passes(rules, d, f.spec.command - pen(f) - extra) for d in range(1, 7))

    def eligible(a: int) -> list[_F]:
        return [f for f in forms[a] if not f.done and not f.broken and not f.gone]

    def choose(a: int, extra: int) -> _F:
        cands = eligible(a)
        order = sc.armies[a].order
        if order == "listed":
            return cands[0]
        scores = [chance(f, extra) for f in cands]
        best = max(scores) if order == "best-first" else min(scores)
        return cands[scores.index(best)]

    last = None
    for t in range(1, n + 1):
        if rules.outside_timing == "start-of-turn":
            for f in forms[0] + forms[1]:
                if not f.gone:
                    _gain(rules, f, _outside(rng, f))
        # strategy phase
        while True:
            r = [rng.randint(1, 6) + sc.armies[a].strategy for a in (0, 1)]
            if r[0] != r[1]:
                winner = 0 if r[0] > r[1] else 1
                break
            if last is not None:
                winner = 1 - last
                break
            if rules.first_turn_tie != "reroll":
                winner = keys.index(rules.first_turn_tie)
                break
        last = winner
        res[f"{keys[winner]}_won_strategy"] += 1
        res[f"{keys[winner]}_won_strategy_turn_{t}"] = 1
        side = winner if sc.armies[winner].choose == "first" else 1 - winner
        # action phase
        for f in forms[0] + forms[1]:
            f.done = False
        retaining = False
        retains = [0, 0]
        while eligible(0) or eligible(1):
            if not eligible(side):
                side = 1 - side
                retaining = False
            f = choose(side, 1 if retaining else 0)
            target = f.spec.command - pen(f) - (1 if retaining else 0)
            ok = _passes(rules, rng.randint(1, 6), target)
            f.done = True
            ak = keys[side]
            res[name(f, f"action_turn_{t}")] = 1 if ok else 2
            if ok:
                res[name(f, "actions")] += 1
                res[f"{ak}_actions_turn_{t}"] += 1
                if retaining:
                    res[f"{ak}_retained"] += 1
            else:
                res[name(f, "holds")] += 1
                res[f"{ak}_holds_turn_{t}"] += 1
                _gain(rules, f, 1)
            if retaining:
                retaining = False
                side = 1 - side
                continue
            army = sc.armies[side]
            if ok and army.can_retain and eligible(1 - side) and eligible(side):
                if rules.retain_limit == "in-a-row" or retains[side] == 0:
                    if army.retain == "always":
                        go = True
                    else:
                        go = chance(choose(side, 1), 1) >= army.retain_min_faces()
                    if go:
                        retaining = True
                        retains[side] += 1
                        res[f"{ak}_retain_attempts"] += 1
                        continue
            side = 1 - side
        # end phase
        for f in forms[0] + forms[1]:
            if f.gone:
                continue
            k = _outside(rng, f) if rules.outside_timing == "before-rally" else 0
            _gain(rules, f, k)
            if rules.break_check == "end-phase" and not f.broken and f.shock >= f.spec.threshold:
                f.broken = True
                f.ever = True
            _cap(rules, f)
        queues = [[f for f in forms[a] if not f.gone and (f.shock > 0 or f.broken)] for a in (0, 1)]
        s0, s1 = sc.armies[0].strategy, sc.armies[1].strategy
        side = 0 if s0 > s1 else 1 if s1 > s0 else winner
        while queues[0] or queues[1]:
            if not queues[side]:
                side = 1 - side
            f = queues[side].pop(0)
            side = 1 - side
            target = f.spec.command - 2 * f.broken - f.spec.enemy_within_8
            if rules.rally_action_penalty:
                target -= pen(f)
            if _passes(rules, rng.randint(1, 6), target):
                if f.broken:
                    f.broken = False
                    f.shock = f.spec.units
                    res[name(f, "rallied")] += 1
                else:
                    res[name(f, "rallied_unbroken")] += 1
                f.shock -= max(1, f.shock // 2)
            elif f.broken:
                res[name(f, "withdrawals")] += 1
                res[f"{keys[f.army]}_withdrawals"] += 1
                if rules.withdrawal == "removed":
                    f.gone = True
        for a in (0, 1):
            for f in forms[a]:
                res[name(f, f"shock_after_turn_{t}")] = f.shock
                res[name(f, f"broken_by_turn_{t}")] = int(f.ever)
            res[f"{keys[a]}_broken_after_turn_{t}"] = sum(f.broken or f.gone for f in forms[a])
    for f in forms[0] + forms[1]:  # the end state, after the last turn's rallies
        res[name(f, "broken_at_end")] = int(f.broken or f.gone)
        res[name(f, "out_of_play")] = int(f.gone)
    return {s: int(res[s]) for s in sc.stat_names()}


def simulate(sc: FormationActionsScenario, games: int, seed: int) -> dict[str, list[int]]:
    """``games`` games; ``{statistic: list of per-game values}``."""
    rng = random.Random(seed)
    out: dict[str, list[int]] = {s: [] for s in sc.stat_names()}
    for _ in range(games):
        for k, v in play_game(sc, rng).items():
            out[k].append(v)
    return out
