"""Exact PMFs of a whole game, where the rules make the formations independent.

The strategy roll's statistics are always exact. An army that cannot try to retain the
initiative (policy ``"never"``, or a single formation) tests each unbroken formation exactly
once per turn with no retaining -1, so each of its formations follows its own Markov chain
(:func:`.chain.formation_chain`) whatever the opponent does, and the army's per-turn totals
are sums of independent indicators. Statistics of an army that may retain depend on the
order of play and are left to the simulation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from oddslab.rulesets.formation_actions.chain import (
    COUNTERS,
    bernoulli_sum,
    convolve_all,
    formation_chain,
    strategy_turn_probs,
    strategy_wins_pmf,
)

if TYPE_CHECKING:  # pragma: no cover
    from oddslab.rulesets.formation_actions.compile import FormationActionsScenario

__all__ = ["game_pmfs"]


def game_pmfs(sc: FormationActionsScenario) -> dict[str, np.ndarray]:
    """``{stat name: exact PMF}`` for every statistic with an exact form (see module doc)."""
    n = sc.turns
    out: dict[str, np.ndarray] = {}
    wins0 = strategy_wins_pmf(sc.armies, sc.rules, n)
    out[f"{sc.armies[0].key}_won_strategy"] = wins0
    out[f"{sc.armies[1].key}_won_strategy"] = wins0[::-1].copy()
    for t, w in enumerate(strategy_turn_probs(sc.armies, sc.rules, n), start=1):
        out[f"{sc.armies[0].key}_won_strategy_turn_{t}"] = np.array([1.0 - w, w])
        out[f"{sc.armies[1].key}_won_strategy_turn_{t}"] = np.array([w, 1.0 - w])
    for army in sc.armies:
        if army.can_retain:
            continue
        ak = army.key
        per_turn = {"actions": [], "holds": [], "broken_after": []}
        withdrawals = []
        for f in army.formations:
            p = f"{ak}_{f.key}"
            base = None
            for cnt in COUNTERS:
                res = formation_chain(f, sc.rules, n, counter=cnt)
                out[f"{p}_{cnt}"] = res.counter
                base = res
            assert base is not None
            withdrawals.append(out[f"{p}_withdrawals"])
            for t in range(1, n + 1):
                out[f"{p}_shock_after_turn_{t}"] = base.shock[t - 1]
                q = base.broken_by[t - 1]
                out[f"{p}_broken_by_turn_{t}"] = np.array([1.0 - q, q])
                a, h = base.passed[t - 1], base.held[t - 1]
                out[f"{p}_action_turn_{t}"] = np.array([max(0.0, 1.0 - a - h), a, h])
            per_turn["actions"].append(base.passed)
            per_turn["holds"].append(base.held)
            per_turn["broken_after"].append(base.broken_after)
        for m, rows in per_turn.items():
            for t in range(1, n + 1):
                out[f"{ak}_{m}_turn_{t}"] = bernoulli_sum([r[t - 1] for r in rows])
        out[f"{ak}_withdrawals"] = convolve_all(withdrawals)
    names = set(sc.stat_names())  # statistics a scenario cannot produce are not reported
    return {k: v for k, v in out.items() if k in names}
