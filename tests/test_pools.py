"""Dice pools: kernel vs exact (chi-square), a naive roller, the parser, determinism."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import numpy as np
import pytest
from stats import P_MIN, chisquare_pmf

from oddslab.engine import simulate
from oddslab.exact import exact
from oddslab.pools import Pool, RollSpec, parse_roll

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# >= 6 configurations covering explode depths, re-roll tiers, keep/drop, custom dice, opposed
KERNEL_CASES = [
    "4D6 explode 6",
    "3D6 explode 6 depth 2 reroll 1 exploding",
    "5D10 explode 10 unlimited keep 3",
    "10D6 count 4+ reroll 1,2,3",
    "10D6 count 5+ explode 6 reroll 1",
    "4D6 drop 1 lowest",
    "5D6 explode 5+ depth 2 keep 2 lowest",
    "6d[0,0,1,1,1,2] explode 2 reroll 0",
    "3D6 vs 2D6 explode 6 <= 10",
]


@pytest.mark.statistical
@pytest.mark.parametrize("text", KERNEL_CASES)
def test_kernel_matches_exact(text):
    spec = parse_roll(text)
    mc = simulate(spec, trials=1_000_000, seed=20261121)
    ex = exact(spec)
    for s in mc.stats:
        p = chisquare_pmf(mc.counts[s.name], ex.probs[s.name])
        assert p > P_MIN, f"{text}: {s.name} chi-square p = {p:.2e}"


# -- a naive roller that follows the documented steps literally ------------------------------
def naive_pool(rng: random.Random, pool: Pool) -> int:
    """Roll → explosions → re-rolls → keep → sum, with an explicit list of dice."""
    n, score, ex, depth, rr, rre, keep, high = pool.kernel_args()
    depth = 100 if depth == -1 else depth
    k = len(score)
    dice = []  # [chain, level, face]

    def add(chain, level):
        # a new die: roll it, and its initial face may explode (adds another new die)
        f = rng.randrange(k)
        dice.append([chain, level, f])
        if ex[f] and level < depth:
            add(chain, level + 1)

    for c in range(n):
        add(c, 0)
    i = 0
    while i < len(dice):  # re-roll tier: every die once, including dice added meanwhile
        chain, level, f = dice[i]
        if rr[f]:
            g = rng.randrange(k)
            dice[i][2] = g
            if rre and ex[g] and level < depth:
                add(chain, level + 1)
        i += 1
    totals = [0] * n
    for chain, _, f in dice:
        totals[chain] += int(score[f])
    totals.sort(reverse=high)
    return sum(totals[:keep] if keep else totals)


@pytest.mark.statistical
def test_naive_roller_matches_exact():
    spec = parse_roll("3D6 explode 5,6 depth 2 reroll 1,6 exploding keep 2")
    rng = random.Random(7)
    top = spec.pool.max_total()
    counts = np.zeros(top + 1)
    trials = 100_000  # pure Python: a chi-square on 1e5 trials still detects any real bias
    for _ in range(trials):
        counts[naive_pool(rng, spec.pool)] += 1
    p = chisquare_pmf(counts, spec.pool.pmf())
    assert p > P_MIN, p


def test_roll_pool_is_callable_from_another_kernel():
    """The serial helper used by other rulesets: a tiny jitted loop calling it directly."""
    from oddslab._jit import jit
    from oddslab._kernels.pools import roll_pool
    from oddslab._kernels.rng import new_state

    @jit(cache=False)
    def loop(seed, n, out, args_score, ex, depth, rr, rre, keep, high):
        st = new_state(seed)
        scratch = np.zeros(8, dtype=np.int64)
        for _ in range(n):
            out[roll_pool(st, 5, args_score, ex, depth, rr, rre, keep, high, scratch)] += 1

    pool = parse_roll("5D6 explode 6 reroll 1 keep 3").pool
    _, score, ex, depth, rr, rre, keep, high = pool.kernel_args()
    out = np.zeros(pool.max_total() + 1, dtype=np.int64)
    loop(
        np.array([1, 2, 3, 4], dtype=np.uint64), 200_000, out, score, ex, depth, rr, rre, keep, high
    )
    assert chisquare_pmf(out, pool.pmf()) > P_MIN


# -- determinism ----------------------------------------------------------------------------------
def test_same_seed_same_histograms():
    spec = parse_roll("5D10 explode 10 depth 2 keep 3 vs 4D10")
    a = simulate(spec, trials=300_000, seed=5)
    b = simulate(spec, trials=300_000, seed=5)
    c = simulate(spec, trials=300_000, seed=6)
    for s in a.stat_names:
        assert np.array_equal(a.counts[s], b.counts[s])
    assert not np.array_equal(a.counts["total_a"], c.counts["total_a"])


def test_thread_count_does_not_change_results():
    code = (
        "import json; from oddslab.pools import parse_roll; from oddslab.engine import simulate;"
        "o = simulate(parse_roll('10D6 count 4+ reroll 1 explode 6'), trials=400_000, seed=9);"
        "print(json.dumps(o.counts['total'].tolist()))"
    )
    results = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": ROOT}
        r = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        results.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert results[0] == results[1]


# -- the parser -----------------------------------------------------------------------------------
def test_parse_required_forms():
    p = parse_roll("4D6 explode 6").pool
    assert (p.n, p.die.size, p.explode, p.explode_depth) == (4, 6, (6,), 1)
    assert parse_roll("3D6 explode 6 depth 2").pool.explode_depth == 2
    assert parse_roll("5D10 explode 10 unlimited").pool.explode_depth == -1
    p = parse_roll("10D6 count 4+ reroll 1").pool
    assert (p.count_at_least, p.reroll, p.reroll_explodes) == (4, (1,), False)
    assert parse_roll("10D6 count 4+ reroll 1,2,3").pool.reroll == (1, 2, 3)
    p = parse_roll("5D6 keep 3").pool
    assert (p.keep, p.keep_highest) == (3, True)
    p = parse_roll("4D6 drop 1 lowest").pool
    assert (p.keep, p.keep_highest) == (3, True)
    p = parse_roll("4D6 drop 1 highest").pool
    assert (p.keep, p.keep_highest) == (3, False)
    assert parse_roll("2D6 <= 7").test == ("<=", 7)
    s = parse_roll("3D6 vs 2D6")
    assert s.vs is not None and s.vs.n == 2
    p = parse_roll("6d[0,0,1,1,1,2]").pool
    assert p.die.values == (0, 0, 1, 1, 1, 2)
    assert parse_roll("d[0, 0, 1, 1, 1, 2]").pool.n == 1
    p = parse_roll("3d[hit,hit,crit,miss,miss,miss] count hit,crit explode crit").pool
    assert p.face_score.tolist() == [1, 1, 1, 0, 0, 0]
    assert p.explode == ("crit",)
    assert parse_roll("4d6 EXPLODE 6 Reroll 1 exploding").pool.reroll_explodes


def test_parse_round_trips_through_str():
    for text in KERNEL_CASES:
        spec = parse_roll(text)
        again = parse_roll(spec.label if not spec.name else str(spec.pool))
        assert again.pool == spec.pool


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("", "empty"),
        ("4D6 explod 6", r"word 2 'explod'.*expected explode, reroll"),
        ("4D6 explode", "ends too early; expected the faces to explode"),
        ("4D6 explode x", "word 3 'x'"),
        ("4D6 explode 7", "no face 7"),
        ("4D6 keep 7", "word 3 '7'.*keep from 1 to 4"),
        ("4D6 drop 4", "fewer dice to drop"),
        ("2D6 <= x", "word 3 'x'.*target"),
        ("3D6 vs", "ends too early; expected dice"),
        ("4x6", "word 1 '4x6'.*4D6"),
        ("2D6 <= 7 keep 1", "word 4 'keep'.*end of the expression"),
        ("4D6 explode 6 explode 5", "word 4 'explode'.*at most once"),
        ("4D6 explode 6 depth two", "word 5 'two'.*depth"),
        ("0D6", "1 to 200 dice"),
        ("3d[a,b]", "symbol die needs 'count"),
        ("200D6 explode 6 unlimited", "limit"),
    ],
)
def test_parse_errors_name_the_word(text, match):
    with pytest.raises(ValueError, match=match):
        parse_roll(text)


def test_rollspec_api_and_stats():
    spec = RollSpec(Pool(2), test=("<=", 7), name="2D6 test")
    job = spec.compile()
    assert [s.name for s in job.stats] == ["total", "pass"]
    assert job.stats[0].nbins == 13
    out = exact(spec)
    assert out.prob("pass") == pytest.approx(21 / 36, abs=1e-12)
    with pytest.raises(ValueError, match="keep"):
        Pool(3, keep=4)


# -- thresholds with modifiers and natural 1 / natural max rules -----------------------------------


@pytest.mark.parametrize(
    ("text", "faces"),
    [
        ("10D6 count 4+", [0, 0, 0, 1, 1, 1]),
        ("10D6 count 4+ mod -1", [0, 0, 0, 0, 1, 1]),
        ("10D6 count 2+ mod +2", [0, 1, 1, 1, 1, 1]),  # a natural 1 still fails
        ("10D6 count 2+ mod +2 natural off", [1, 1, 1, 1, 1, 1]),
        ("10D6 count 7+ mod -3", [0, 0, 0, 0, 0, 1]),  # a natural 6 still succeeds
    ],
)
def test_threshold_modifiers_and_natural_rules(text, faces):
    spec = parse_roll(text)
    assert list(spec.pool.face_score) == faces
    assert str(parse_roll(str(spec.pool)).pool) == str(spec.pool)


def test_threshold_modifier_exact_vs_icepool():
    import icepool

    ours = parse_roll("6D6 count 5+ mod -1 reroll 1").pool.pmf()
    ice = 6 @ icepool.d6.reroll([1], depth=1).map(lambda d: int(d == 6 or (d != 1 and d - 1 >= 5)))
    ref = np.array([ice.probability(k) for k in range(7)], dtype=float)
    assert np.max(np.abs(ours - ref)) <= 1e-12


def test_modifier_errors():
    with pytest.raises(ValueError, match="modifier such as"):
        parse_roll("10D6 count 4+ mod x")
    with pytest.raises(ValueError, match="needs a threshold"):
        Pool(n=3, modifier=1)


# -- forms scenario files accept: constants (3D6+2), reroll failed / ones -------------------------
@pytest.mark.statistical
@pytest.mark.parametrize("text", ["3D6+2 >= 10", "2D6-3 <= 2", "2D6-4 >= 1", "D6+1 >= 0"])
def test_constant_kernel_matches_exact(text):
    spec = parse_roll(text)
    out = simulate(spec, trials=1_000_000, seed=21)
    ex = exact(spec)
    for stat in out.stat_names:
        assert out.counts[stat].sum() == 1_000_000
        assert chisquare_pmf(out.counts[stat], ex.probs[stat]) > P_MIN, (text, stat)


def test_constant_exact_values():
    assert exact(parse_roll("3D6+2 >= 10")).prob("pass") == pytest.approx(1 - 35 / 216)
    ex = exact(parse_roll("2D6-4"))  # floored at 0: 2,3,4 -> 0 (6/36), 5 -> 1 ...
    assert ex.probs["total"][0] == pytest.approx(6 / 36) and len(ex.probs["total"]) >= 9
    assert ex.mean("total") == pytest.approx(
        sum(max(0, a + b - 4) for a in range(1, 7) for b in range(1, 7)) / 36
    )
    assert parse_roll("3D6 + 2").pool.add == 2 and parse_roll("d[0,1]+1").pool.add == 1
    assert str(parse_roll("3D6+2 reroll 1").pool) == "3D6+2 reroll 1"
    with pytest.raises(ValueError, match="exact answer only"):
        simulate(parse_roll("2D6+1 vs 2D6"), trials=10)
    assert exact(parse_roll("2D6+1 vs 2D6")).prob("a_wins") > exact(parse_roll("2D6 vs 2D6")).prob(
        "a_wins"
    )


def test_reroll_failed_and_ones():
    p = parse_roll("10D6 count 4+ reroll failed").pool
    assert p.reroll == (1, 2, 3)
    assert parse_roll("10D6 count 4+ mod -1 reroll failed").pool.reroll == (1, 2, 3, 4)
    assert parse_roll("3d[hit,crit,miss] count hit,crit reroll failed").pool.reroll == ("miss",)
    assert parse_roll("5D6 reroll ones").pool.reroll == (1,)
    with pytest.raises(ValueError, match="needs a count"):
        parse_roll("5D6 reroll failed")


def test_resolved_inputs_and_plain_labels():
    spec = parse_roll("4D6 explode 6 unlimited reroll 1 keep 3 vs 2D6 count 4+ >= 2")
    r = spec.resolved()
    assert list(r) == ["pool A", "pool B", "opposed", "test"]
    assert r["pool A"]["explode"].startswith("on 6") and "unlimited" in r["pool A"]["explode"]
    assert r["pool A"]["keep"] == "the 3 highest"
    assert "natural 1 always fails" in r["pool B"]["score"]
    assert r["test"]["passes when"] == "pool A's total ≥ 2"
    assert all(isinstance(v, str) for sec in r.values() for v in sec.values())
    stats = {s.name: s.title for s in spec.compile().stats}
    assert stats["total_b"] == "opposing pool's successes" and "_" not in "".join(stats.values())
    assert parse_roll("5D6 count 5+ >= 2").compile().headlines[0].label == "P(successes ≥ 2)"
