"""Exact PMFs of a whole game, where the rules make the formations independent.

The strategy roll's statistics are always exact. An army that cannot try to retain the
initiative (policy ``"never"``, or a single formation) tests each unbroken formation exactly
once per turn with no retaining -1, so each of its formations follows its own Markov chain
(:func:`.chain.formation_chain`) whatever the opponent does, and the army's per-turn totals
are sums of independent indicators. Statistics of an army that may retain depend on the
order of play and are left to the simulation.

Joint tables (:func:`game_joint`): the statistics of one such formation jointly from its
chain (:func:`.chain.formation_state` carries them as extra axes), and the product of the
tables of independent parts: different formations, the strategy roll (it decides who
acts and rallies first, never a probability), and an army's totals against anything
outside that army.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from oddslab.rulesets.formation_actions.chain import (
    COUNTERS,
    bernoulli_sum,
    convolve_all,
    formation_chain,
    formation_state,
    strategy_probs,
    strategy_turn_probs,
    strategy_wins_pmf,
)

if TYPE_CHECKING:  # pragma: no cover
    from oddslab.rulesets.formation_actions.compile import FormationActionsScenario

__all__ = ["game_pmfs", "game_joint", "end_state"]


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
            end = formation_state(f, sc.rules, n, ()).sum(axis=(0, 2))  # [broken, withdrawn]
            out[f"{p}_broken_at_end"] = end.sum(axis=1)
            out[f"{p}_out_of_play"] = end.sum(axis=0)
            per_turn["actions"].append(base.passed)
            per_turn["holds"].append(base.held)
            per_turn["broken_after"].append(base.broken_after)
        for m, rows in per_turn.items():
            for t in range(1, n + 1):
                out[f"{ak}_{m}_turn_{t}"] = bernoulli_sum([r[t - 1] for r in rows])
        out[f"{ak}_withdrawals"] = convolve_all(withdrawals)
    names = set(sc.stat_names())  # statistics a scenario cannot produce are not reported
    return {k: v for k, v in out.items() if k in names}


def _sources(sc: FormationActionsScenario) -> dict[str, tuple[frozenset, int | None, str]]:
    """``{stat name: (what it depends on, formation index or None, mark)}`` for every
    statistic with an exact PMF: a formation statistic depends on its formation alone (its
    mark is its name after ``<army>_<formation>_``), an army total (its mark: its name
    after ``<army>_``) on the army's
    formations, a strategy statistic on the strategy rolls."""
    out: dict[str, tuple[frozenset, int | None, str]] = {}
    i = 0
    strategy = frozenset({"strategy"})
    for army in sc.armies:
        idx = range(i, i + len(army.formations))
        i += len(army.formations)
        out[f"{army.key}_won_strategy"] = (strategy, None, "")
        for t in range(1, sc.turns + 1):
            out[f"{army.key}_won_strategy_turn_{t}"] = (strategy, None, "")
        if army.can_retain:
            continue
        whole = frozenset(idx)
        for name in ("withdrawals", "actions_turn_", "holds_turn_", "broken_after_turn_"):
            turns = range(1, sc.turns + 1) if name.endswith("_") else ("",)
            for t in turns:
                out[f"{army.key}_{name}{t}"] = (whole, None, f"{name}{t}")
        for j, f in zip(idx, army.formations, strict=True):
            marks = list(COUNTERS)
            for t in range(1, sc.turns + 1):
                marks += [f"shock_after_turn_{t}", f"broken_by_turn_{t}", f"action_turn_{t}"]
            marks += list(_STATE_AXES)
            for m in marks:
                out[f"{army.key}_{f.key}_{m}"] = (frozenset({j}), j, m)
    return out


def game_joint(sc: FormationActionsScenario, names: tuple[str, ...]) -> np.ndarray | None:
    """The exact joint probability table of the statistics ``names``, or None.

    Axis ``k`` is indexed by the value of ``names[k]`` (as many bins as that statistic has;
    a name given twice gives a diagonal). Exact when the statistics fall into independent
    parts (see the module doc) each of which is exact jointly: any statistics of one
    formation of an army that cannot retain, any strategy statistics, an army's totals
    with any statistics of its formations (the formations' chains carry what each adds to
    a total). None when any statistic has no exact form (an army that may retain).
    """
    reported = {s.name: s.nbins for s in sc.stats()}
    if any(n not in reported for n in names):
        return None
    src = _sources(sc)
    if any(n not in src for n in names):
        return None
    unique = list(dict.fromkeys(names))
    # independent parts: the names joined through shared sources, merged as they come
    parts: list[tuple[frozenset, list[str]]] = []
    for n in unique:
        deps, members, apart = src[n][0], [n], []
        for p_deps, p_members in parts:
            if p_deps & deps:
                deps, members = deps | p_deps, p_members + members
            else:
                apart.append((p_deps, p_members))
        parts = [*apart, (deps, members)]
    forms = [(army, f) for army in sc.armies for f in army.formations]
    pmfs: dict[str, np.ndarray] | None = None
    table = np.ones(())
    order: list[str] = []
    for _deps, part in parts:
        where = {src[n][1] for n in part}
        if _deps == {"strategy"}:
            t = _strategy_table(sc, part)
        elif len(part) == 1 and where == {None}:
            pmfs = pmfs if pmfs is not None else game_pmfs(sc)
            t = pmfs[part[0]]
        elif None not in where and len(where) == 1:
            f = forms[where.pop()][1]
            t = _formation_table(f, sc, [src[n][2] for n in part])
        elif any(src[n][2] in _STATE_AXES for n in part):
            return None  # an end state with an army's totals: not carried by the chains
        else:  # an army's totals with its formations' statistics
            t, part = _army_table(sc, part, src, reported)
        table = np.multiply.outer(table, t)
        order += part
    # the statistics' own bins (a PMF may be shorter than its statistic's bins)
    full = np.zeros([reported[n] for n in order])
    full[tuple(slice(0, m) for m in table.shape)] = table
    return _arrange(full, order, names)


#: the end-state statistics: the axis of formation_state's P each one reads (broken after
#: the last turn's rallies, also when withdrawn; withdrawn from play)
_STATE_AXES = {"broken_at_end": 1, "out_of_play": 3}


def _formation_table(f, sc: FormationActionsScenario, marks: list[str]) -> np.ndarray:
    """The joint table of one formation's statistics ``marks`` (distinct), axis ``k`` for
    ``marks[k]``: the chain's marks and the end state's axes of :func:`formation_state`."""
    chained = tuple(m for m in marks if m not in _STATE_AXES)
    P = formation_state(f, sc.rules, sc.turns, chained)
    axes = [_STATE_AXES[m] if m in _STATE_AXES else 4 + chained.index(m) for m in marks]
    t = P.sum(axis=tuple(a for a in range(P.ndim) if a not in axes))
    kept = sorted(axes)  # the axes sum leaves, in P's order
    return np.transpose(t, [kept.index(a) for a in axes])


#: what a formation adds to an army total: the mark it reads and the value it adds for
#: each value of the mark (None: the value itself)
_ADDS = {
    "actions_turn_": ("action_turn_", (0, 1, 0)),
    "holds_turn_": ("action_turn_", (0, 0, 1)),
    "broken_after_turn_": ("broken_after_turn_", None),
    "withdrawals": ("withdrawals", None),
}


def _army_table(
    sc: FormationActionsScenario, part: list[str], src: dict, reported: dict[str, int]
) -> tuple[np.ndarray, list[str]]:
    """The joint table of one army's totals and statistics of its formations (``part``),
    and the names of its axes in order: each formation's chain with the marks its
    statistics and its part of each total need, added formation by formation."""
    forms = [f for army in sc.armies for f in army.formations]
    totals = [n for n in part if src[n][1] is None]
    own = [n for n in part if src[n][1] is not None]
    feeds = []  # (mark, values added) of each total
    for n in totals:
        kind = next(k for k in _ADDS if src[n][2].startswith(k))
        mark, adds = _ADDS[kind]
        feeds.append((mark + src[n][2][len(kind) :], adds))
    sizes = [reported[n] for n in totals]
    R = np.zeros(sizes)
    R[(0,) * len(totals)] = 1.0
    order: list[str] = []
    for j in sorted(set().union(*(src[n][0] for n in totals))):
        mine = [n for n in own if src[n][1] == j]
        marks = list(dict.fromkeys([src[n][2] for n in mine] + [m for m, _a in feeds]))
        T = formation_state(forms[j], sc.rules, sc.turns, tuple(marks)).sum(axis=(0, 1, 2, 3))
        lead = (slice(None),) * (R.ndim - len(totals))
        new = np.zeros(R.shape[: R.ndim - len(totals)] + T.shape[: len(mine)] + tuple(sizes))
        for at in np.argwhere(T > 0):
            add = [at[marks.index(m)] if a is None else a[at[marks.index(m)]] for m, a in feeds]
            dst = tuple(slice(c, None) for c in add)
            from_ = tuple(slice(0, z - c) for c, z in zip(add, sizes, strict=True))
            new[(*lead, *at[: len(mine)], *dst)] += T[tuple(at)] * R[(*lead, *from_)]
        R = new
        order += mine
    return R, order + totals


def _strategy_table(sc: FormationActionsScenario, names: list[str]) -> np.ndarray:
    """The joint table of strategy statistics ``names`` (axes in that order), from the
    chain on (turns army 0 has won, who won last, who won each turn named): after turn 1 a
    tie goes to the side that did not win the turn before."""
    sp = strategy_probs(sc.armies, sc.rules)
    n = sc.turns
    keys = [a.key for a in sc.armies]
    # each name as (army index, turn or 0 for the count over the game)
    parsed = []
    for name in names:
        a = 0 if name.startswith(keys[0] + "_won_strategy") else 1
        rest = name[len(keys[a]) + len("_won_strategy") :]
        parsed.append((a, int(rest[len("_turn_") :]) if rest else 0))
    marked = sorted({t for _a, t in parsed if t})
    # state: (army 0's wins, last winner, army 0 won each marked turn so far) -> probability
    dist: dict[tuple, float] = {}
    w1 = sp["first_turn1"]
    for w, p in ((0, w1), (1, 1.0 - w1)):
        dist[(1 - w, w, (1 - w,) if marked and marked[0] == 1 else ())] = p
    for t in range(2, n + 1):
        new: dict[tuple, float] = {}
        for (k, last, marks), p in dist.items():
            p0 = sp["first"] + (sp["tie"] if last == 1 else 0.0)  # army 0 wins turn t
            for w, q in ((0, p0), (1, 1.0 - p0)):
                key = (k + 1 - w, w, marks + ((1 - w,) if t in marked else ()))
                new[key] = new.get(key, 0.0) + p * q
        dist = new
    table = np.zeros([n + 1 if t == 0 else 2 for _a, t in parsed])
    for (k, _last, marks), p in dist.items():
        at = []
        for a, t in parsed:
            v = k if t == 0 else marks[marked.index(t)]
            at.append(v if a == 0 else (n if t == 0 else 1) - v)
        table[tuple(at)] += p
    return table


def _arrange(table: np.ndarray, order: list[str], names: tuple[str, ...]) -> np.ndarray:
    """``table`` (axes: the distinct names in ``order``) with axis ``k`` for ``names[k]``; a
    repeated name repeats its axis as a diagonal."""
    first = list(dict.fromkeys(names))
    out = np.moveaxis(table, [order.index(n) for n in first], range(len(first)))
    if len(first) == len(names):
        return out
    grids = np.indices([out.shape[first.index(n)] for n in names], sparse=True)
    val = out[tuple(grids[names.index(n)] for n in first)]
    for k, n in enumerate(names):
        val = val * (grids[k] == grids[names.index(n)])
    return val


def end_state(sc: FormationActionsScenario, army: str, formation: str):
    """The exact end state of one formation of an army that cannot retain the initiative,
    as a tidy DataFrame.

    Returns
    -------
    DataFrame
        Columns ``shock``, ``broken`` (broken after the last turn), ``ever_broken``,
        ``withdrawn`` (withdrawn from play: only under ``withdrawal = "removed"``; under
        ``"stays-broken"`` a formation that fails a rally stays broken),
        ``withdrawals`` (failed rallies over the game) and ``probability``, one row per
        state of positive probability.
    """
    import pandas as pd

    a = next((x for x in sc.armies if x.key == army), None)
    if a is None:
        raise ValueError(f"no army '{army}' (armies: {', '.join(x.key for x in sc.armies)})")
    f = next((x for x in a.formations if x.key == formation), None)
    if f is None:
        keys = ", ".join(x.key for x in a.formations)
        raise ValueError(f"army '{army}' has no formation '{formation}' (formations: {keys})")
    if a.can_retain:
        raise ValueError(f"army '{army}' may retain the initiative: no exact end state")
    P = formation_state(f, sc.rules, sc.turns, ("withdrawals",))
    idx = np.argwhere(P > 0)
    cols = ["shock", "broken", "ever_broken", "withdrawn", "withdrawals"]
    df = pd.DataFrame(idx, columns=cols)
    df["probability"] = P[tuple(idx.T)]
    return df
