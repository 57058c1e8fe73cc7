"""Exact PMFs (oddslab.exact) against icepool and hand-worked cases, to <= 1e-12."""

from __future__ import annotations

import icepool
import numpy as np
import pytest

from oddslab.exact import (
    EXPLODE_CAP,
    binomial_thin,
    chain_pmf,
    compound,
    convolve_n,
    dice_expr_pmf,
    exact,
    keep_pmf,
    opposed_probs,
    pool_max,
    pool_pmf,
    threshold_prob,
)
from oddslab.pools import parse_roll

TOL = 1e-12
D6 = np.arange(1, 7, dtype=np.int64)


def arr(die) -> np.ndarray:
    """icepool Die (non-negative integer outcomes) → float PMF array."""
    outs = [int(o) for o in die.outcomes()]
    p = np.zeros(max(outs) + 1)
    for o, q in zip(outs, die.probabilities(), strict=True):
        p[o] += float(q)
    return p


def close(a, b) -> float:
    n = max(len(a), len(b))
    return float(np.abs(np.pad(a, (0, n - len(a))) - np.pad(b, (0, n - len(b)))).max())


def ice_chain(score, ex, rr, rre, depth, level=0):
    """Our chain semantics built independently in icepool: a face index die, mapped per face."""
    base = icepool.Die(list(range(len(score))))
    sub = ice_chain(score, ex, rr, rre, depth, level + 1) if level < depth else None

    def after_reroll(g):
        return int(score[g]) + (sub if (rre and ex[g] and sub is not None) else 0)

    rerolled = base.map(after_reroll)

    def face(f):
        return (rerolled if rr[f] else int(score[f])) + (sub if (ex[f] and sub is not None) else 0)

    return base.map(face)


# -- primitives ---------------------------------------------------------------------------------
def test_convolve_n_and_dice_expr():
    assert close(convolve_n(dice_expr_pmf("D6"), 3), arr(3 @ icepool.d6)) < TOL
    assert close(dice_expr_pmf("D3+1"), arr(icepool.d3 + 1)) < TOL
    assert convolve_n([0.5, 0.5], 0).tolist() == [1.0]


def test_compound_and_binomial_thin():
    # D6 attacks, each hitting on 4+, each hit doing D3 damage
    hits = binomial_thin(dice_expr_pmf("D6"), 0.5)
    ref_hits = icepool.d6.map(lambda n: n @ icepool.Die([0, 1]))
    assert close(hits, arr(ref_hits)) < TOL
    dmg = compound(hits, dice_expr_pmf("D3"))
    assert close(dmg, arr(ref_hits.map(lambda h: h @ icepool.d3))) < TOL


def test_opposed_and_threshold_hand_worked():
    two = dice_expr_pmf("2D6")
    assert threshold_prob(two, 7, "<=") == pytest.approx(21 / 36, abs=TOL)
    assert threshold_prob(two, 10, ">=") == pytest.approx(6 / 36, abs=TOL)
    win, tie, lose = opposed_probs(dice_expr_pmf("D6"), dice_expr_pmf("D6"))
    assert (win, tie, lose) == pytest.approx((15 / 36, 6 / 36, 15 / 36), abs=TOL)
    ref = 3 @ icepool.d6 - 2 @ icepool.d6
    win, tie, lose = opposed_probs(dice_expr_pmf("3D6"), dice_expr_pmf("2D6"))
    assert win == pytest.approx(float(ref.probability(">", 0)), abs=TOL)
    assert tie == pytest.approx(float(ref.probability(0)), abs=TOL)
    assert lose == pytest.approx(float(ref.probability("<", 0)), abs=TOL)


# -- pools against icepool's own operators --------------------------------------------------------
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_explode_matches_icepool_explode(depth):
    ours = pool_pmf(3, D6, D6 == 6, depth)
    assert close(ours, arr(3 @ icepool.d6.explode([6], depth=depth))) < TOL


def test_unlimited_explode_is_capped_like_icepool_depth_100():
    ours = pool_pmf(1, D6, D6 == 6, -1)
    assert len(ours) == 6 * (EXPLODE_CAP + 1) + 1
    assert close(ours, arr(icepool.d6.explode([6], depth=EXPLODE_CAP))) < TOL


def test_reroll_once_matches_icepool():
    ours = pool_pmf(4, D6, None, 0, D6 <= 2)
    assert close(ours, arr(4 @ icepool.d6.reroll([1, 2], depth=1))) < TOL


def test_count_successes_matches_icepool():
    ours = pool_pmf(10, (D6 >= 4).astype(np.int64), None, 0, D6 == 1)
    per = icepool.d6.reroll([1], depth=1).map(lambda x: int(x >= 4))
    assert close(ours, arr(10 @ per)) < TOL


@pytest.mark.parametrize(
    ("n", "k", "high"), [(5, 3, True), (4, 3, True), (4, 1, False), (6, 2, False)]
)
def test_keep_matches_icepool(n, k, high):
    ours = pool_pmf(n, D6, keep_n=k, keep_highest=high)
    pool = icepool.Pool([icepool.d6] * n)
    ref = (pool.highest(k) if high else pool.lowest(k)).sum()
    assert close(ours, arr(ref)) < TOL


# -- our full semantics against the icepool chain construction -------------------------------
CHAIN_CASES = [
    # (score, explode, reroll, reroll_explodes, depth)
    (D6, D6 == 6, D6 == 1, False, 1),
    (D6, D6 == 6, D6 == 1, True, 2),
    (D6, D6 >= 5, D6 <= 2, True, 3),
    (D6, D6 == 6, D6 == 6, True, 2),  # the exploding face is also re-rolled
    ((D6 >= 4).astype(np.int64), D6 == 6, D6 <= 3, False, 2),
    (
        np.array([0, 0, 1, 1, 1, 2]),
        np.array([0, 0, 0, 0, 0, 1]),
        np.array([1, 0, 0, 0, 0, 0]),
        True,
        2,
    ),
]


@pytest.mark.parametrize("case", range(len(CHAIN_CASES)))
def test_chain_matches_icepool_construction(case):
    score, ex, rr, rre, depth = CHAIN_CASES[case]
    ex, rr = np.asarray(ex, bool), np.asarray(rr, bool)
    ref = ice_chain(score, ex, rr, rre, depth)
    ours = chain_pmf(score, ex, depth, rr, rre)
    assert close(ours, arr(ref)) < TOL
    assert len(ours) - 1 == max(int(o) for o in ref.outcomes())  # exact upper bound
    # and pooled: sum of 3, and keep 2 highest / 1 lowest of 3 chains
    assert close(pool_pmf(3, score, ex, depth, rr, rre), arr(3 @ ref)) < TOL
    hi = icepool.Pool([ref] * 3).highest(2).sum()
    assert close(pool_pmf(3, score, ex, depth, rr, rre, 2, True), arr(hi)) < TOL
    lo = icepool.Pool([ref] * 3).lowest(1).sum()
    assert close(pool_pmf(3, score, ex, depth, rr, rre, 1, False), arr(lo)) < TOL


def test_pool_max_is_the_support():
    p = pool_pmf(4, D6, D6 == 6, 2, D6 == 1, True, 3)
    assert len(p) == pool_max(4, D6, D6 == 6, 2, D6 == 1, True, 3) + 1
    assert p[-1] > 0 and p.sum() == pytest.approx(1.0, abs=TOL)


def test_keep_all_is_plain_convolution():
    item = dice_expr_pmf("D6")
    assert close(keep_pmf(item, 4, 0), convolve_n(item, 4)) < TOL
    assert close(keep_pmf(item, 4, 4), convolve_n(item, 4)) < TOL


def test_exact_scenario():
    """Exact answers (how fast they come is for benchmarks/ to say, not a test)."""
    spec = parse_roll("3D6 vs 2D6 >= 12")
    out = exact(spec)
    assert out.exact
    assert out.prob("a_wins") == pytest.approx(1009 / 1296, abs=TOL)
    assert out.prob("pass") == pytest.approx(float((3 @ icepool.d6).probability(">=", 12)), abs=TOL)
    for text in ("10D6 count 4+ reroll 1", "5D10 explode 10 unlimited", "6D6 keep 3 explode 6"):
        assert exact(parse_roll(text)).exact


def test_exact_without_exact_form_raises():
    from oddslab.engine import Job

    job = Job(name="x", kernel=None, params=(), stats=())
    with pytest.raises(NotImplementedError, match="no exact form"):
        exact(job)


def test_exact_form_giving_no_statistic_raises():
    from oddslab.engine import Job
    from oddslab.outcome import Stat

    # an exact form that covers none of the job's statistics (a hex-platoon assault)
    job = Job(name="x", kernel=None, params=(), stats=(Stat("a", 3),), exact=dict)
    with pytest.raises(NotImplementedError, match="no statistic the exact engine can give"):
        exact(job)


def test_too_large_pool_is_refused():
    with pytest.raises(ValueError, match="limit"):
        chain_pmf(D6, D6 == 6, -1, D6 == 6, True)  # doubles per level: 2**100 dice


def test_exact_generic_file_gives_allocation(root):
    """`oddslab.exact(path)` on a generic example answers the allocation statistics exactly
    (the Markov chain), and they agree with the static ones where they must: with 1-wound
    models and 1 damage, models slain = min(unsaved, models)."""
    out = exact(root / "examples" / "generic-intercessors-vs-guardsmen.toml")
    assert out.exact
    unsaved = out.probs["unsaved"]
    slain = out.probs["models_slain"]
    want = np.zeros(len(slain))
    for u, p in enumerate(unsaved):
        want[min(u, len(slain) - 1)] += p
    assert close(slain, want) < TOL
    assert out.prob("destroyed") == pytest.approx(float(want[-1]), abs=TOL)
