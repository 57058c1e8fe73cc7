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

import re
from dataclasses import dataclass

import numpy as np

from oddslab.rulesets.formation_actions.model import Army, Formation, Rules

__all__ = [
    "ChainResult",
    "formation_chain",
    "formation_state",
    "mark_size",
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


def _shift(a: np.ndarray, axis: int, by: int = 1) -> np.ndarray:
    """``a`` moved ``by`` places up along ``axis`` (a count or mark that rises by ``by``;
    nothing reaches the top: a count rises at most once a turn)."""
    out = np.zeros_like(a)
    src = [slice(None)] * a.ndim
    dst = [slice(None)] * a.ndim
    src[axis] = slice(0, a.shape[axis] - by)
    dst[axis] = slice(by, None)
    out[tuple(dst)] = a[tuple(src)]
    return out


#: what a mark records: a count over the game (:data:`COUNTERS`) or one turn's value
_TURN_MARK = re.compile(r"(shock_after|broken_by|broken_after|action)_turn_([0-9]+)")


def mark_size(formation: Formation, turns: int, mark: str) -> int:
    """Values of ``mark`` (a formation statistic's name after ``<army>_<formation>_``: one of
    :data:`COUNTERS`, ``shock_after_turn_<t>``, ``broken_by_turn_<t>`` or
    ``action_turn_<t>``, the bins of that statistic; or ``broken_after_turn_<t>``, 1 when
    broken or withdrawn after turn ``t``: the formation's part of its army's statistic of
    that name); raises ValueError for anything else."""
    if mark in COUNTERS:
        return turns + 1
    m = _TURN_MARK.fullmatch(mark)
    if m is None or not 1 <= int(m.group(2)) <= turns:
        raise ValueError(f"no formation statistic '{mark}' in a {turns}-turn game")
    sizes = {"shock_after": max_shock(formation, turns) + 1, "broken_by": 2, "action": 3}
    return sizes.get(m.group(1), 2)  # broken_after: 0/1


#: the state axis a turn mark copies (Shock, broken now: also when withdrawn, ever broken)
_STATE_AXIS = {"shock_after": 0, "broken_after": 1, "broken_by": 2}


def _snapshot(P: np.ndarray, ax: int, state_axis: int) -> np.ndarray:
    """``P`` with the mark at axis ``ax`` (all mass at 0) set to the index along
    ``state_axis`` (:data:`_STATE_AXIS`)."""
    Pm = np.moveaxis(P, ax, -1)
    new = np.zeros_like(Pm)
    at = [slice(None)] * (Pm.ndim - 1)
    for v in range(P.shape[state_axis]):
        at[state_axis] = v
        new[(*at, v)] = Pm[(*at, 0)]
    return np.moveaxis(new, -1, ax)


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
    res, P = _run_chain(formation, rules, turns, (counter,) if counter else ())
    cnt = P.sum(axis=(0, 1, 2, 3)) if counter else None
    return ChainResult(*res, cnt)


def formation_state(
    formation: Formation, rules: Rules, turns: int, marks: tuple[str, ...] = ()
) -> np.ndarray:
    """The exact joint distribution of a formation's state at the end of the game with any
    of its statistics, for a formation that never tests to retain the initiative.

    Parameters
    ----------
    formation : Formation
    rules : Rules
    turns : int
        Turns to play (>= 1).
    marks : tuple of str
        Statistics to carry jointly, by their name after ``<army>_<formation>_`` (see
        :func:`mark_size`), each at most once.

    Returns
    -------
    float64[S, 2, 2, 2, *sizes]
        ``P[shock, broken, ever broken, withdrawn, *marks]`` after the last turn's rallies:
        Shock ``0..S-1`` (``S = max_shock + 1``); broken now; broken at any time (the
        ``broken_by_turn_<turns>`` statistic); withdrawn from play (only under
        ``withdrawal = "removed"``); then one axis per mark, indexed by its value.
    """
    if len(set(marks)) != len(marks):
        raise ValueError("each mark at most once")
    for m in marks:
        mark_size(formation, turns, m)
    return _run_chain(formation, rules, turns, tuple(marks))[1]


def _run_chain(
    formation: Formation, rules: Rules, turns: int, marks: tuple[str, ...]
) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
    """The chain itself: ``((shock, broken_by, broken_after, passed, held), P)`` with the
    per-turn distributions of :class:`ChainResult` and the final state array of
    :func:`formation_state` (one axis per mark after the four state axes)."""
    S = max_shock(formation, turns) + 1
    sizes = [mark_size(formation, turns, m) for m in marks]
    k = len(marks)
    # the axis of each mark in P (after shock, broken, ever, withdrawn) and in the arrays of
    # one "broken" and "withdrawn" slice (after shock, ever)
    count_ax = {m: 4 + i for i, m in enumerate(marks) if m in COUNTERS}
    turn_marks = [
        (4 + i, _TURN_MARK.fullmatch(m)) for i, m in enumerate(marks) if m not in COUNTERS
    ]
    thr = formation.threshold
    units = formation.units
    immediate = rules.break_check == "immediate"
    q = formation.outside_shock.pmf() if formation.outside_shock.active else None
    sup = formation.suppressed > 0
    near = 1 if formation.enemy_within_8 else 0
    c = formation.command
    pen = np.array([rules.penalty(sup, s) for s in range(S)])
    rally_pen = pen if rules.rally_action_penalty else np.zeros(S, dtype=int)

    def col(v: np.ndarray) -> np.ndarray:  # a per-Shock vector against (shock, ever, *marks)
        return v.reshape((-1,) + (1,) * (k + 1))

    p_act = col(np.array([rules.faces(c - pen[s]) for s in range(S)]) / 6.0)
    p_r0 = col(np.array([rules.faces(c - near - rally_pen[s]) for s in range(S)]) / 6.0)
    p_r1 = col(np.array([rules.faces(c - 2 - near - rally_pen[s]) for s in range(S)]) / 6.0)
    after_rally = np.array([s - max(1, s // 2) if s > 0 else 0 for s in range(S)])
    s_broken_rallied = units - max(1, units // 2)

    # P[s, broken, ever, gone, *marks]
    P = np.zeros((S, 2, 2, 2, *sizes))
    b0 = 1 if formation.starts_broken else 0
    P[(formation.shock, b0, b0, 0) + (0,) * k] = 1.0

    def check_break(L: np.ndarray) -> None:
        """Break unbroken states at or over the threshold; ``L`` is ``P[:, :, :, 0, ...]``-
        shaped (formations in play)."""
        m = L[thr:, 0].sum(axis=1)
        L[thr:, 0] = 0.0
        L[thr:, 1, 1] += m

    def outside(P: np.ndarray) -> None:
        live = P[:, :, :, 0, ...]
        risen = np.zeros_like(live)
        for j, qj in enumerate(q):
            if qj > 0 and j > 0:
                risen[j:] += qj * live[: S - j]
        if immediate:
            check_break(risen)  # breaking is checked when Shock rises
        P[:, :, :, 0, ...] = q[0] * live + risen

    shock_t = np.zeros((turns, S))
    broken_by = np.zeros(turns)
    broken_after = np.zeros(turns)
    passed = np.zeros(turns)
    held = np.zeros(turns)
    for t in range(turns):
        if q is not None and rules.outside_timing == "start-of-turn":
            outside(P)
        # action phase: every unbroken formation in play tests once
        A = P[:, 0, :, 0, ...].copy()
        pas = A * p_act
        fail = A * (1.0 - p_act)
        passed[t] = pas.sum()
        held[t] = fail.sum()
        if "actions" in count_ax:
            pas = _shift(pas, count_ax["actions"] - 2)
        if "holds" in count_ax:
            fail = _shift(fail, count_ax["holds"] - 2)
        for ax, m in turn_marks:  # this turn's action: 1 passed, 2 Hold (else 0)
            if m.group(1) == "action" and int(m.group(2)) == t + 1:
                pas = _shift(pas, ax - 2)
                fail = _shift(fail, ax - 2, 2)
        risen = np.zeros((S, 2, *A.shape[1:]))
        risen[1:, 0] = fail[:-1]
        if immediate:
            check_break(risen)
        P[:, 0, :, 0, ...] = pas
        P[:, :, :, 0, ...] += risen
        # end phase
        if q is not None and rules.outside_timing == "before-rally":
            outside(P)
        if not immediate:
            check_break(P[:, :, :, 0, ...])
        # rally: unbroken formations with Shock
        U = P[1:, 0, :, 0, ...].copy()
        u_pass = U * p_r0[1:]
        P[1:, 0, :, 0, ...] = U - u_pass
        if "rallied_unbroken" in count_ax:
            u_pass = _shift(u_pass, count_ax["rallied_unbroken"] - 2)
        for s in range(1, S):
            P[after_rally[s], 0, :, 0, ...] += u_pass[s - 1]
        # rally: broken formations
        B = P[:, 1, :, 0, ...].copy()
        b_pass = B * p_r1
        b_fail = B - b_pass
        rallied = b_pass.sum(axis=0)  # (ever, *marks)
        if "rallied" in count_ax:
            rallied = _shift(rallied, count_ax["rallied"] - 3)
        if "withdrawals" in count_ax:
            b_fail = _shift(b_fail, count_ax["withdrawals"] - 2)
        P[:, 1, :, 0, ...] = 0.0
        P[s_broken_rallied, 0, :, 0, ...] += rallied
        if rules.withdrawal == "removed":
            P[:, 1, :, 1, ...] += b_fail
        else:
            P[:, 1, :, 0, ...] += b_fail
        if rules.broken_shock == "cap" and S > units + 1:
            # a formation still broken (in play or withdrawn) keeps at most its units in
            # Shock; nothing reads a broken formation's Shock but "any Shock", which this
            # keeps, so capping once a turn equals capping at every gain
            P[units, 1] += P[units + 1 :, 1].sum(axis=0)
            P[units + 1 :, 1] = 0.0
        for ax, m in turn_marks:  # this turn's Shock, broken-by and broken-after
            if int(m.group(2)) == t + 1 and m.group(1) != "action":
                P = _snapshot(P, ax, _STATE_AXIS[m.group(1)])
        shock_t[t] = P.reshape(S, -1).sum(axis=1)
        broken_by[t] = P[:, :, 1].sum()
        broken_after[t] = P[:, 1].sum()
    return (shock_t, broken_by, broken_after, passed, held), P


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
