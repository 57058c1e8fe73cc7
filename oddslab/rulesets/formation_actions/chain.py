"""Exact answers: single tests, the strategy roll, and a formation's Shock/broken Markov chain.

A formation whose army never tries to retain the initiative takes exactly one plain action
test per turn while unbroken, whatever the other formations do (activation order and rally
order change which die is rolled when, not any probability). Its state at the end of a turn
is ``(Shock, broken, ever broken, withdrawn from play)``, a small Markov chain; an optional
extra axis counts one event (passed tests, Hold actions, rallies from broken, withdrawals, rally
tests passed while unbroken) so its distribution over the game is exact too. Formations evolve independently, so an army's
per-turn totals are convolutions of its formations' per-turn indicators.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from oddslab.rulesets.formation_actions.model import Army, Formation, Rules

__all__ = [
    "ChainResult",
    "formation_chain",
    "strategy_probs",
    "strategy_turn_probs",
    "strategy_wins_pmf",
    "pass_chances",
    "bernoulli_sum",
]

COUNTERS = ("actions", "holds", "rallied", "withdrawals", "rallied_unbroken")


def _d6_pairs(sa: int, sb: int) -> tuple[float, float, float]:
    a = b = t = 0
    for x in range(1, 7):
        for y in range(1, 7):
            if x + sa > y + sb:
                a += 1
            elif y + sb > x + sa:
                b += 1
            else:
                t += 1
    return a / 36, b / 36, t / 36


def strategy_probs(armies: tuple[Army, Army], rules: Rules) -> dict[str, float]:
    """Exact strategy-roll chances of one turn.

    Returns ``{"first": P(army 0 rolls higher), "second": P(army 1 rolls higher),
    "tie": P(tie), "first_turn1": P(army 0 wins turn 1 after the first-turn tie rule)}``.
    """
    pa, pb, pt = _d6_pairs(armies[0].strategy, armies[1].strategy)
    if rules.first_turn_tie == "reroll":
        w1 = pa / (pa + pb)
    elif rules.first_turn_tie == armies[0].key:
        w1 = pa + pt
    else:
        w1 = pa
    return {"first": pa, "second": pb, "tie": pt, "first_turn1": w1}


def strategy_turn_probs(armies: tuple[Army, Army], rules: Rules, turns: int) -> np.ndarray:
    """``P(army 0 wins the strategy roll of turn t)`` for t = 1..turns; shape ``(turns,)``.

    After turn 1 a tie goes to the side that did not win the previous turn, so
    ``w[t+1] = P(a) + P(tie) (1 - w[t])``.
    """
    sp = strategy_probs(armies, rules)
    out = np.zeros(turns)
    out[0] = sp["first_turn1"]
    for t in range(1, turns):
        out[t] = sp["first"] + sp["tie"] * (1.0 - out[t - 1])
    return out


def strategy_wins_pmf(armies: tuple[Army, Army], rules: Rules, turns: int) -> np.ndarray:
    """PMF of the number of turns army 0 wins the strategy roll; shape ``(turns + 1,)``.

    A tie after turn 1 goes to the side that did not win the previous turn, so the state is
    (wins so far, last winner).
    """
    sp = strategy_probs(armies, rules)
    pa, pb, pt = sp["first"], sp["second"], sp["tie"]
    # dist[k, w]: P(army 0 has k wins, last winner w)
    dist = np.zeros((turns + 1, 2))
    dist[1, 0] = sp["first_turn1"]
    dist[0, 1] = 1.0 - sp["first_turn1"]
    for _ in range(1, turns):
        new = np.zeros_like(dist)
        new[1:, 0] += (pa + pt) * dist[:-1, 1]  # last winner 1: a tie goes to army 0
        new[1:, 0] += pa * dist[:-1, 0]
        new[:, 1] += pb * dist[:, 0] + pt * dist[:, 0]  # last winner 0: a tie goes to army 1
        new[:, 1] += pb * dist[:, 1]
        dist = new
    return dist.sum(axis=1)


def pass_chances(formation: Formation, rules: Rules, shock: int | None = None) -> dict[str, int]:
    """Passing faces (of 6) of every test the formation can take, at Shock ``shock``.

    ``shock`` defaults to the formation's starting Shock (it matters only under the
    ``"shock"``, ``"either"`` and ``"both"`` readings of the action test's -1). Keys:
    ``action``, ``retain`` (trying to retain the initiative), ``rally`` (unbroken, with Shock),
    ``rally_broken``.
    """
    s = formation.shock if shock is None else shock
    pen = rules.penalty(formation.suppressed > 0, s)
    rally_pen = pen if rules.rally_action_penalty else 0
    near = 1 if formation.enemy_within_8 else 0
    c = formation.command
    return {
        "action": rules.faces(c - pen),
        "retain": rules.faces(c - pen - 1),
        "rally": rules.faces(c - near - rally_pen),
        "rally_broken": rules.faces(c - 2 - near - rally_pen),
    }


@dataclass(frozen=True)
class ChainResult:
    """Per-turn exact distributions of one formation (turn ``t`` is row ``t - 1``).

    Attributes
    ----------
    shock : float64[turns, S]
        ``P(Shock == s after turn t)`` (after rallying).
    broken_by : float64[turns]
        ``P(broken at any time up to the end of turn t)`` (broken at the start counts).
    broken_after : float64[turns]
        ``P(broken, or withdrawn from play, at the end of turn t)``.
    passed, held : float64[turns]
        ``P(the formation passes / fails its action test in turn t)``.
    counter : float64[C] or None
        PMF of the counted event over the whole game.
    """

    shock: np.ndarray
    broken_by: np.ndarray
    broken_after: np.ndarray
    passed: np.ndarray
    held: np.ndarray
    counter: np.ndarray | None


def max_shock(formation: Formation, turns: int) -> int:
    """An upper bound on the formation's Shock during a game of ``turns`` turns."""
    per_turn = 1 + formation.outside_shock.max
    return max(formation.shock, formation.units) + turns * per_turn


def _shift_counter(a: np.ndarray) -> np.ndarray:
    out = np.zeros_like(a)
    out[..., 1:] = a[..., :-1]
    return out


def formation_chain(
    formation: Formation, rules: Rules, turns: int, counter: str | None = None
) -> ChainResult:
    """Exact per-turn distributions of a formation that never tests to retain the initiative.

    Parameters
    ----------
    formation : Formation
    rules : Rules
    turns : int
        Turns to play (>= 1).
    counter : {"actions", "holds", "rallied", "withdrawals", "rallied_unbroken"}, optional
        An event to count over the game (its PMF is ``ChainResult.counter``).
    """
    if counter is not None and counter not in COUNTERS:
        raise ValueError(f"counter must be one of {', '.join(COUNTERS)}")
    S = max_shock(formation, turns) + 1
    C = turns + 1 if counter else 1
    thr = formation.threshold
    units = formation.units
    immediate = rules.break_check == "immediate"
    q = formation.outside_shock.pmf() if formation.outside_shock.active else None
    sup = formation.suppressed > 0
    near = 1 if formation.enemy_within_8 else 0
    c = formation.command
    pen = np.array([rules.penalty(sup, s) for s in range(S)])
    rally_pen = pen if rules.rally_action_penalty else np.zeros(S, dtype=int)
    p_act = np.array([rules.faces(c - pen[s]) for s in range(S)]) / 6.0
    p_r0 = np.array([rules.faces(c - near - rally_pen[s]) for s in range(S)]) / 6.0
    p_r1 = np.array([rules.faces(c - 2 - near - rally_pen[s]) for s in range(S)]) / 6.0
    after_rally = np.array([s - max(1, s // 2) if s > 0 else 0 for s in range(S)])
    s_broken_rallied = units - max(1, units // 2)

    # P[s, broken, ever, gone, counter]
    P = np.zeros((S, 2, 2, 2, C))
    b0 = 1 if formation.starts_broken else 0
    P[formation.shock, b0, b0, 0, 0] = 1.0

    def check_break(L: np.ndarray) -> None:
        """Break unbroken states at or over the threshold; ``L`` is ``P[:, :, :, 0, :]``-shaped
        (formations in play)."""
        m = L[thr:, 0].sum(axis=1)
        L[thr:, 0] = 0.0
        L[thr:, 1, 1] += m

    def outside(P: np.ndarray) -> None:
        live = P[:, :, :, 0, :]
        risen = np.zeros_like(live)
        for k, qk in enumerate(q):
            if qk > 0 and k > 0:
                risen[k:] += qk * live[: S - k]
        if immediate:
            check_break(risen)  # breaking is checked when Shock rises
        P[:, :, :, 0, :] = q[0] * live + risen

    shock_t = np.zeros((turns, S))
    broken_by = np.zeros(turns)
    broken_after = np.zeros(turns)
    passed = np.zeros(turns)
    held = np.zeros(turns)
    for t in range(turns):
        if q is not None and rules.outside_timing == "start-of-turn":
            outside(P)
        # action phase: every unbroken formation in play tests once
        A = P[:, 0, :, 0, :].copy()
        pas = A * p_act[:, None, None]
        fail = A * (1.0 - p_act)[:, None, None]
        passed[t] = pas.sum()
        held[t] = fail.sum()
        if counter == "actions":
            pas = _shift_counter(pas)
        if counter == "holds":
            fail = _shift_counter(fail)
        risen = np.zeros((S, 2, 2, C))
        risen[1:, 0] = fail[:-1]
        if immediate:
            check_break(risen)
        P[:, 0, :, 0, :] = pas
        P[:, :, :, 0, :] += risen
        # end phase
        if q is not None and rules.outside_timing == "before-rally":
            outside(P)
        if not immediate:
            check_break(P[:, :, :, 0, :])
        # rally: unbroken formations with Shock
        U = P[1:, 0, :, 0, :].copy()
        u_pass = U * p_r0[1:, None, None]
        P[1:, 0, :, 0, :] = U - u_pass
        if counter == "rallied_unbroken":
            u_pass = _shift_counter(u_pass)
        for s in range(1, S):
            P[after_rally[s], 0, :, 0, :] += u_pass[s - 1]
        # rally: broken formations
        B = P[:, 1, :, 0, :].copy()
        b_pass = B * p_r1[:, None, None]
        b_fail = B - b_pass
        rallied = b_pass.sum(axis=0)  # (ever, C)
        if counter == "rallied":
            rallied = _shift_counter(rallied)
        if counter == "withdrawals":
            b_fail = _shift_counter(b_fail)
        P[:, 1, :, 0, :] = 0.0
        P[s_broken_rallied, 0, :, 0, :] += rallied
        if rules.withdrawal == "removed":
            P[:, 1, :, 1, :] += b_fail
        else:
            P[:, 1, :, 0, :] += b_fail
        if rules.broken_shock == "cap" and S > units + 1:
            # a formation still broken (in play or withdrawn) keeps at most its units in
            # Shock; nothing reads a broken formation's Shock but "any Shock", which this
            # keeps, so capping once a turn equals capping at every gain
            P[units, 1] += P[units + 1 :, 1].sum(axis=0)
            P[units + 1 :, 1] = 0.0
        shock_t[t] = P.sum(axis=(1, 2, 3, 4))
        broken_by[t] = P[:, :, 1].sum()
        broken_after[t] = P[:, 1].sum()
    cnt = P.sum(axis=(0, 1, 2, 3)) if counter else None
    return ChainResult(shock_t, broken_by, broken_after, passed, held, cnt)


def bernoulli_sum(ps: list[float] | np.ndarray) -> np.ndarray:
    """PMF of a sum of independent Bernoulli(p_i); shape ``(len(ps) + 1,)``."""
    out = np.ones(1)
    for p in ps:
        out = np.convolve(out, np.array([1.0 - p, p]))
    return out


def convolve_all(pmfs: list[np.ndarray]) -> np.ndarray:
    """PMF of a sum of independent counts."""
    out = np.ones(1)
    for p in pmfs:
        out = np.convolve(out, p)
    return out
