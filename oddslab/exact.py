"""Exact distributions by convolution (numpy), shared by the dice pools and the rulesets.

Every PMF here is a 1-D float array ``p`` with ``p[v] = P(value == v)`` for ``v = 0..len-1``
(values are non-negative integers; trailing zeros are allowed). The primitives are:

- :func:`convolve_n` — the sum of ``n`` iid values;
- :func:`compound` — the sum of a random number of iid values;
- :func:`binomial_thin` — how many of a random count succeed, each with probability ``p``;
- :func:`dice_expr_pmf` — a dice expression such as ``"D3+1"``;
- :func:`chain_pmf` / :func:`pool_pmf` — the exploding / re-rolling / keep-drop dice pool of
  :mod:`oddslab.pools` (same semantics and same arguments as the kernel
  :func:`oddslab._kernels.pools.roll_pool`);
- :func:`keep_pmf` — the sum of the ``k`` highest (or lowest) of ``n`` iid values, by an exact
  order-statistics dynamic programme over the outcome values;
- :func:`opposed_probs`, :func:`threshold_prob` — opposed rolls and target-number tests;
- :func:`exact` — the exact :class:`~oddslab.outcome.Outcome` of a scenario, where it has one.

Unlimited explosions (``explode_depth = -1``) stop at :data:`EXPLODE_CAP` levels, exactly as
the kernel does, so exact and Monte Carlo answers describe the same (truncated) process.
"""

from __future__ import annotations

from math import comb
from typing import Any

import numpy as np

__all__ = [
    "EXPLODE_CAP",
    "MAX_TOTAL",
    "binomial_thin",
    "chain_max",
    "chain_pmf",
    "compound",
    "convolve_n",
    "dice_expr_pmf",
    "effective_depth",
    "exact",
    "exact_job",
    "keep_pmf",
    "opposed_probs",
    "pool_max",
    "pool_pmf",
    "threshold_prob",
]

#: Levels of explosion an "unlimited" explosion (depth -1) is allowed: a die 100 explosions
#: down the chain no longer explodes. For a d6 exploding on 6 the mass cut off is 6**-101.
EXPLODE_CAP = 100
#: Largest pool total the kernel histograms (bins per statistic); larger pools are refused.
MAX_TOTAL = 50_000


# -- generic primitives ----------------------------------------------------------------------
def _trim(p: np.ndarray) -> np.ndarray:
    """Drop trailing exact zeros (keeps at least one entry)."""
    nz = np.flatnonzero(p)
    return p[: (nz[-1] + 1 if nz.size else 1)]


def _add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elementwise sum of two sub-PMFs of different lengths."""
    out = np.zeros(max(len(a), len(b)))
    out[: len(a)] += a
    out[: len(b)] += b
    return out


def convolve_n(pmf: np.ndarray, n: int) -> np.ndarray:
    """PMF of the sum of ``n`` iid values with PMF ``pmf`` (``n = 0`` gives the point mass at 0).

    Uses binary exponentiation, so it costs ``O(log n)`` convolutions.
    """
    if n < 0:
        raise ValueError("n must be non-negative")
    pmf = np.asarray(pmf, dtype=float)
    result = np.ones(1)
    base = pmf
    while n:
        if n & 1:
            result = np.convolve(result, base)
        n >>= 1
        if n:
            base = np.convolve(base, base)
    return result


def compound(count_pmf: np.ndarray, per_item_pmf: np.ndarray) -> np.ndarray:
    """PMF of ``X_1 + ... + X_N`` with ``N ~ count_pmf`` and iid ``X_i ~ per_item_pmf``.

    Parameters
    ----------
    count_pmf : array, shape (n_max + 1,)
        ``P(N == n)``.
    per_item_pmf : array, shape (m,)
        ``P(X == x)``.

    Returns
    -------
    ndarray, shape (n_max * (m - 1) + 1,)
    """
    count_pmf = np.asarray(count_pmf, dtype=float)
    item = np.asarray(per_item_pmf, dtype=float)
    n_max = len(count_pmf) - 1
    out = np.zeros(n_max * (len(item) - 1) + 1)
    power = np.ones(1)
    for n, pn in enumerate(count_pmf):
        if pn != 0.0:
            out[: len(power)] += pn * power
        if n < n_max:
            power = np.convolve(power, item)
    return out


def binomial_thin(count_pmf: np.ndarray, p: float) -> np.ndarray:
    """PMF of the number of successes when each of ``N ~ count_pmf`` items succeeds with ``p``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError("p must be a probability")
    return compound(count_pmf, np.array([1.0 - p, p]))


def dice_expr_pmf(expr: Any) -> np.ndarray:
    """PMF of a dice expression (``"2D6"``, ``"D3+1"``, ``3``, or a :class:`DiceExpr`)."""
    from oddslab.dice import DiceExpr

    e = expr if isinstance(expr, DiceExpr) else DiceExpr.parse(expr)
    return e.pmf()


# -- dice pools --------------------------------------------------------------------------------
def effective_depth(explode_depth: int) -> int:
    """Explosion levels actually allowed: ``-1`` (unlimited) becomes :data:`EXPLODE_CAP`."""
    if explode_depth < -1:
        raise ValueError("explode_depth must be -1 (unlimited), 0 (none) or a positive count")
    return EXPLODE_CAP if explode_depth == -1 else min(int(explode_depth), EXPLODE_CAP)


def _faces(face_score, explode_mask, reroll_mask):
    score = np.asarray(face_score, dtype=np.int64)
    k = len(score)
    if k == 0:
        raise ValueError("a die needs at least one face")
    if np.any(score < 0):
        raise ValueError("face scores must be non-negative")
    ex = np.zeros(k, bool) if explode_mask is None else np.asarray(explode_mask, dtype=bool)
    rr = np.zeros(k, bool) if reroll_mask is None else np.asarray(reroll_mask, dtype=bool)
    if len(ex) != k or len(rr) != k:
        raise ValueError("explode_mask and reroll_mask need one entry per face")
    return score, ex, rr


def chain_max(
    face_score,
    explode_mask=None,
    explode_depth: int = 0,
    reroll_mask=None,
    reroll_explodes: bool = False,
) -> int:
    """Largest possible chain total (one original die plus everything its explosions add).

    Computed with Python integers, so it never overflows even for absurd settings.
    """
    score, ex, rr = _faces(face_score, explode_mask, reroll_mask)
    depth = effective_depth(explode_depth)
    best_next = 0  # max chain total one level further down (0 below the last level)
    for level in range(depth, -1, -1):
        can = level < depth
        sub = best_next if can else 0
        reroll_best = max(
            int(s) + (sub if (reroll_explodes and e) else 0) for s, e in zip(score, ex, strict=True)
        )
        best = 0
        for s, e, r in zip(score, ex, rr, strict=True):
            v = (reroll_best if r else int(s)) + (sub if e else 0)
            best = max(best, v)
        best_next = best
    return best_next


def pool_max(
    n_dice: int,
    face_score,
    explode_mask=None,
    explode_depth: int = 0,
    reroll_mask=None,
    reroll_explodes: bool = False,
    keep_n: int = 0,
    keep_highest: bool = True,
) -> int:
    """Largest possible pool total (an exact upper bound for histogram sizes)."""
    kept = n_dice if keep_n <= 0 else min(keep_n, n_dice)
    return kept * chain_max(face_score, explode_mask, explode_depth, reroll_mask, reroll_explodes)


def chain_pmf(
    face_score,
    explode_mask=None,
    explode_depth: int = 0,
    reroll_mask=None,
    reroll_explodes: bool = False,
) -> np.ndarray:
    """Exact PMF of one chain: an original die plus every die its explosions add, scored.

    Semantics are those of :func:`oddslab._kernels.pools.roll_pool`: the die's initial face
    explodes if ``explode_mask`` says so (while the level is below the depth), then a face in
    ``reroll_mask`` is re-rolled once; the re-rolled face explodes too only if
    ``reroll_explodes``. Added dice are new dice at the next level and follow the same rules.
    Computed by recursion from the deepest level up: ``C_L = A_L + B_L * C_{L+1}``.

    Parameters
    ----------
    face_score : int array, shape (k,)
        Score of each of the ``k`` equally likely faces (non-negative).
    explode_mask, reroll_mask : bool array, shape (k,), optional
    explode_depth : int
        0 none, N levels, -1 unlimited (capped at :data:`EXPLODE_CAP`).
    reroll_explodes : bool

    Returns
    -------
    ndarray, shape (chain_max + 1,)
    """
    score, ex, rr = _faces(face_score, explode_mask, reroll_mask)
    top = chain_max(score, ex, explode_depth, rr, reroll_explodes)
    if top > MAX_TOTAL:
        raise ValueError(
            f"one die's chain can total up to {top}, above the limit of {MAX_TOTAL}; "
            "lower the explosion depth"
        )
    depth = effective_depth(explode_depth)
    k = len(score)
    w = 1.0 / k
    smax = int(score.max())
    # point masses of the faces' scores, weighted 1/k
    plain = np.zeros(smax + 1)  # faces that neither re-roll nor explode: their score
    np.add.at(plain, score[~rr & ~ex], w)
    plain_ex = np.zeros(smax + 1)  # faces that explode and are not re-rolled
    np.add.at(plain_ex, score[~rr & ex], w)
    n_rr_noex = float(np.count_nonzero(rr & ~ex)) * w  # weight of re-rolled faces, no explosion
    n_rr_ex = float(np.count_nonzero(rr & ex)) * w  # re-rolled faces whose first face exploded
    g_noex = np.zeros(smax + 1)  # re-rolled result: faces that do not (re-)explode
    g_ex = np.zeros(smax + 1)  # re-rolled result: faces that explode
    if reroll_explodes:
        np.add.at(g_noex, score[~ex], w)
        np.add.at(g_ex, score[ex], w)
    else:
        np.add.at(g_noex, score, w)
    chain = None
    for level in range(depth, -1, -1):
        can = level < depth
        if not can:  # the last level: nothing explodes
            reroll = _add(g_noex, g_ex)
            c = _add(_add(plain, plain_ex), (n_rr_noex + n_rr_ex) * reroll)
        else:
            reroll = _add(g_noex, np.convolve(g_ex, chain))  # distribution of a re-rolled die
            c = _add(plain, n_rr_noex * reroll)
            c = _add(c, np.convolve(plain_ex, chain))
            if n_rr_ex:
                c = _add(c, n_rr_ex * np.convolve(reroll, chain))
        chain = c
    out = np.zeros(top + 1)
    out[: min(len(chain), top + 1)] = chain[: top + 1]
    return out


def keep_pmf(item_pmf: np.ndarray, n: int, keep_n: int, highest: bool = True) -> np.ndarray:
    """PMF of the sum of the ``keep_n`` highest (or lowest) of ``n`` iid values.

    An exact order-statistics dynamic programme: outcome values are visited from best to
    worst; the state is (how many dice have been placed so far, sum of the kept ones); at value
    ``v`` the number of still-unplaced dice showing exactly ``v`` is binomial with probability
    ``P(X = v) / P(X <= v)`` (``>=`` for lowest). Once ``keep_n`` dice are placed the rest
    cannot change the sum, so those states are absorbed. Cost is
    ``O(values * keep_n * n * sum)``, vectorised over the sum.

    ``keep_n <= 0`` or ``keep_n >= n`` keeps every die (a plain ``n``-fold convolution).
    """
    item = np.asarray(item_pmf, dtype=float)
    if keep_n <= 0 or keep_n >= n:
        return convolve_n(item, n)
    m = len(item) - 1
    size = keep_n * m + 1
    values = np.flatnonzero(item)
    order = values[::-1] if highest else values
    # tail[v] = P(X <= v) for highest, P(X >= v) for lowest: the mass not yet visited
    probs = item[order]
    remaining = np.cumsum(probs[::-1])[::-1]
    # dp[j] = sub-PMF over kept sums with j dice placed (j < keep_n); done collects the rest
    dp = np.zeros((keep_n, size))
    dp[0, 0] = 1.0
    done = np.zeros(size)
    for v, pv, rem in zip(order, probs, remaining, strict=True):
        q = min(pv / rem, 1.0) if rem > 0 else 1.0
        new = np.zeros_like(dp)
        for j in range(keep_n):
            row = dp[j]
            if not row.any():
                continue
            left = n - j
            for c in range(left + 1):
                pc = comb(left, c) * q**c * (1.0 - q) ** (left - c)
                if pc == 0.0:
                    continue
                jj = j + c
                add = (min(jj, keep_n) - j) * int(v)
                shifted = row[: size - add] * pc
                if jj >= keep_n:
                    done[add:] += shifted
                else:
                    new[jj, add:] += shifted
        dp = new
    return done


def pool_pmf(
    n_dice: int,
    face_score,
    explode_mask=None,
    explode_depth: int = 0,
    reroll_mask=None,
    reroll_explodes: bool = False,
    keep_n: int = 0,
    keep_highest: bool = True,
) -> np.ndarray:
    """Exact PMF of :func:`oddslab._kernels.pools.roll_pool` with the same arguments.

    The chain PMF (:func:`chain_pmf`) is computed once; then ``n_dice`` chains are summed by
    convolution, or the ``keep_n`` highest/lowest chain totals by :func:`keep_pmf`.

    Returns
    -------
    ndarray, shape (pool_max + 1,)
    """
    if n_dice < 0:
        raise ValueError("n_dice must be non-negative")
    chain = chain_pmf(face_score, explode_mask, explode_depth, reroll_mask, reroll_explodes)
    p = keep_pmf(chain, n_dice, keep_n, keep_highest)
    top = pool_max(
        n_dice, face_score, explode_mask, explode_depth, reroll_mask, reroll_explodes, keep_n
    )
    out = np.zeros(top + 1)
    out[: min(len(p), top + 1)] = p[: top + 1]
    return out


def opposed_probs(pmf_a: np.ndarray, pmf_b: np.ndarray) -> tuple[float, float, float]:
    """``(P(A > B), P(A == B), P(A < B))`` for independent totals ``A`` and ``B``."""
    a = np.asarray(pmf_a, dtype=float)
    b = np.asarray(pmf_b, dtype=float)
    size = max(len(a), len(b))
    a = np.pad(a, (0, size - len(a)))
    b = np.pad(b, (0, size - len(b)))
    cdf_b = np.cumsum(b)
    below_b = np.concatenate(([0.0], cdf_b[:-1]))  # P(B < v)
    a_wins = float(np.dot(a, below_b))
    tie = float(np.dot(a, b))
    b_wins = float(np.dot(a, 1.0 - cdf_b))  # P(B > v) summed over A's values
    return a_wins, tie, b_wins


def threshold_prob(pmf: np.ndarray, target: int, op: str) -> float:
    """``P(total <= target)`` (``op="<="``) or ``P(total >= target)`` (``op=">="``)."""
    p = np.asarray(pmf, dtype=float)
    if op == "<=":
        return float(p[: max(target + 1, 0)].sum())
    if op == ">=":
        return float(p[max(target, 0) :].sum())
    raise ValueError(f"op must be '<=' or '>=', got {op!r}")


# -- scenarios -----------------------------------------------------------------------------------
def exact(scenario: Any, events: Any = (), joint: Any = ()):
    """Exact :class:`~oddslab.outcome.Outcome` of a scenario: ``scenario.compile().exact()``.

    Accepts a scenario object, a compiled :class:`~oddslab.engine.Job`, or a path to a TOML
    scenario file. ``events`` and ``joint`` are answered exactly as well (as
    :func:`oddslab.simulate`'s; ``Outcome.probability`` and ``Outcome.joint`` read them): an
    event reading one statistic from its distribution, joints from the ruleset's exact
    engine (``Job.exact_joint``).

    Raises
    ------
    NotImplementedError
        If the scenario's job has no exact form (``job.exact is None``), gives none of its
        statistics exactly, or does not give a joint asked for (or read by an event).
    """
    from pathlib import Path

    from oddslab.engine import Job

    if isinstance(scenario, str | Path):
        from oddslab.scenario import load

        scenario = load(scenario)
    job = scenario if isinstance(scenario, Job) else scenario.compile()
    out = exact_job(job)
    if events or joint:
        from oddslab._answer import exact_questions

        joints = [tuple(j.split(",")) if isinstance(j, str) else tuple(j) for j in joint]
        why_not = exact_questions(job, out, list(events), joints)
        if why_not is not None:
            raise NotImplementedError(why_not.removeprefix("Monte Carlo: ").split(" (asked")[0])
    return out


def exact_job(job: Any, pmfs: dict[str, np.ndarray] | None = None):
    """Exact :class:`~oddslab.outcome.Outcome` of a compiled :class:`~oddslab.engine.Job`
    (``pmfs``: ``job.exact()``'s answer when it was already computed). Raises as
    :func:`exact`."""
    from oddslab.engine import check_histogram_size
    from oddslab.outcome import Outcome

    if job.exact is None:
        raise NotImplementedError(
            f"'{job.name}' has no exact form (its statistics depend on sequential choices or "
            "state the exact engine does not model); run it with Monte Carlo (simulate) instead"
        )
    check_histogram_size(job)  # the exact distributions are as wide as the histograms
    if pmfs is None:
        pmfs = job.exact()
    if not any(s.name in pmfs for s in job.stats):
        # e.g. a hex-platoon assault: every statistic depends on the dice of earlier steps
        raise NotImplementedError(
            f"'{job.name}' has no statistic the exact engine can give (each depends on "
            "sequential choices or state it does not model); run it with Monte Carlo "
            "(simulate) instead"
        )
    return Outcome.from_pmfs(
        job.name,
        job.stats,
        pmfs,
        headlines=job.headlines,
        meta={"ruleset": job.ruleset, **job.meta} if job.ruleset else dict(job.meta),
    )
