"""Hex platoon exact joint distributions (``Job.exact_joint``, :mod:`.exact_joint`).

Each joint is checked three ways: its one-statistic margins are the exact PMFs the ruleset
already gives (:func:`.statistics.scenario_pmfs`); small cases against a brute-force
enumeration of every die face written here from the rule text (not from the exact engine);
and the per-trial records of >= 1e6 Monte Carlo trials against it (chi-square over every
cell of the joint table, tests/stats.py), on both kernels and across two steps.
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hex_platoon_cases import (  # noqa: E402
    HQ,
    RIFLES,
    TANK,
    assault_case,
    fire_case,
    rally_case,
    scenario,
    unit,
)
from stats import P_MIN, chisquare_pmf  # noqa: E402

from oddslab._seeding import chunk_seeds  # noqa: E402
from oddslab.engine import CHUNK_TRIALS  # noqa: E402
from oddslab.scenario import from_dict, load  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

#: a reduced rifle platoon in a wood under 3 HE+ (4 dice at 4+, at most 3 hits), 2 save dice
#: at 5+ (defence 1 + concealment); the concealed-infantry rule off so it can be eliminated
FIRE = fire_case(
    target_kw={"reduced": True}, firer_kw={"he": 3}, rules={"concealed_infantry_not_reduced": False}
)
#: two rifle platoons (one disrupted) and their HQ in a wood under a 2-dice artillery
#: mission at 4+
ART = scenario(
    [
        {
            "name": "woods",
            "terrain": "wood",
            "defence": 1,
            "units": [unit("a", **RIFLES), unit("b", **RIFLES, disrupted=True), unit("hq", **HQ)],
        }
    ],
    [{"kind": "artillery", "hexes": ["woods"], "firepower": 2, "to_hit": 4}],
)
#: two disrupted platoons (one reduced) rally under their HQ
RALLY = rally_case()
#: two static steps: an artillery mission over two hexes (a tank among the rifles), then a
#: command check elsewhere
TWO_STEPS = scenario(
    [
        {
            "name": "woods",
            "terrain": "wood",
            "defence": 1,
            "units": [unit("a", **RIFLES), unit("t", **TANK), unit("hq", **HQ)],
        },
        {"name": "n1", "units": [unit("c", **RIFLES)]},
        {"name": "far", "units": [unit("d", **RIFLES)]},
    ],
    [
        {"kind": "artillery", "hexes": ["woods", "n1"], "firepower": 4, "to_hit": 4},
        {"kind": "command", "stack": "far", "morale": 7},
    ],
)


def _d6(n: int):
    return itertools.product(range(1, 7), repeat=n)


def _ladder(start: int, hits: int) -> int:
    """Detailed state (0 good order, 1 disrupted, 2 reduced, 3 reduced and disrupted,
    4 eliminated) after ``hits`` hits of one attack: the first hit on a unit in good order
    disrupts it, every other hit takes a step (full -> reduced -> eliminated)."""
    side, dis = divmod(start, 2)
    for _ in range(hits):
        if side >= 2:
            break
        if not dis:
            dis = 1
        else:
            side += 1
    return 4 if side >= 2 else 2 * side + dis


# -- margins: the exact PMFs the ruleset gives --------------------------------------------------
@pytest.mark.parametrize(
    "case",
    [FIRE, ART, RALLY, TWO_STEPS, ROOT / "oddslab/examples/hex-platoon-artillery-mission.toml"],
    ids=["fire", "artillery", "rally", "two-steps", "artillery-example"],
)
def test_margins_are_the_exact_pmfs(case):
    sc = load(case) if isinstance(case, Path) else from_dict(case)
    pmfs = sc.exact_pmfs()
    names = [s.name for s in sc.stats()]
    exact = [n for n in names if sc.exact_joint((n,)) is not None]
    assert set(pmfs) <= set(exact)
    for n in pmfs:
        assert np.allclose(sc.exact_joint((n,)), pmfs[n], atol=1e-12), n
    # pairs (at most ~40 of them): a table summing to 1 whose margins are the single
    # tables, in either order
    pairs = list(itertools.combinations(exact, 2))
    for a, b in pairs[:: max(1, len(pairs) // 40)]:
        t = sc.exact_joint((a, b))
        assert t.sum() == pytest.approx(1.0)
        assert np.allclose(t.sum(axis=1), sc.exact_joint((a,)))
        assert np.allclose(t.sum(axis=0), sc.exact_joint((b,)))
        assert np.array_equal(sc.exact_joint((b, a)), t.T)


def test_none_where_not_exact_and_unknown_names():
    sc = from_dict(assault_case())
    assert sc.compile().exact_joint(("hits_on_defender",)) is None
    two = from_dict(TWO_STEPS)
    assert two.exact_joint(("mission_failed_step1", "t_state")) is not None
    with pytest.raises(KeyError, match="not a statistic"):
        two.exact_joint(("mission_failed",))


# -- brute force from the rule text -------------------------------------------------------------
def test_fire_joint_by_enumerating_every_die():
    """4 dice at 4+ (3 firepower, one augmentation die: at most 3 hits), 2 save dice at 5+
    for the wood and concealment; a reduced unit: 1 unsaved hit disrupts, 2 eliminate."""
    want = np.zeros((4, 4, 4, 5))
    for faces in _d6(6):
        hits = min(sum(f >= 4 for f in faces[:4]), 3)
        uns = max(hits - sum(f >= 5 for f in faces[4:]), 0)
        detail = _ladder(2, uns)
        want[hits, uns, (0, 1, 2, 2, 3)[detail], detail] += 6.0**-6
    got = from_dict(FIRE).exact_joint(
        ("hits_on_target", "unsaved_hits_on_target", "target_state", "target_state_detail")
    )
    assert np.allclose(got, want, atol=1e-15)


def test_artillery_joint_by_enumerating_every_die():
    """The mission fails on a 1; else 3 dice at 4+ (2 firepower + 1 for two units in the
    hex), 1 save die at 5+ (defence 1); the unsaved hits shared fairly (an odd hit to either
    unit, equally likely; b starts disrupted, so 2 hits eliminate it); then the HQ: eliminated with its stack, else after any hit a d6
    (-2 if a unit was eliminated) of 1 or less reduces it."""
    want = np.zeros((2, 4, 4, 4, 4, 4, 3))  # failed, hits, unsaved, a, b, hq, units eliminated
    for fail, f1, f2, f3, save in _d6(5):
        p = 6.0**-5
        if fail == 1:
            want[1, 0, 0, 0, 1, 0, 0] += p
            continue
        hits = (f1 >= 4) + (f2 >= 4) + (f3 >= 4)
        uns = max(hits - (save >= 5), 0)
        for odd in (0, 1):  # which unit gets the odd hit
            ga = uns // 2 + (uns % 2 if odd == 0 else 0)
            gb = uns // 2 + (uns % 2 if odd == 1 else 0)
            a, b = _ladder(0, ga), _ladder(1, gb)
            q = p / 2
            killed = (a == 4) + (b == 4)
            if killed == 2:
                hq = {2: 1.0}
            elif uns == 0:
                hq = {0: 1.0}
            else:
                low = sum(d - (2 if killed else 0) <= 1 for d in range(1, 7)) / 6
                hq = {0: 1 - low, 1: low}
            for side, r in hq.items():
                sa, sb = (0, 1, 2, 2, 3)[a], (0, 1, 2, 2, 3)[b]
                want[0, hits, uns, sa, sb, (0, 2, 3)[side], killed] += q * r
    got = from_dict(ART).exact_joint(
        (
            "mission_failed",
            "hits_on_woods",
            "unsaved_hits_on_woods",
            "a_state",
            "b_state",
            "hq_state",
            "woods_units_eliminated",
        )
    )
    assert np.allclose(got, want, atol=1e-15)


def test_rally_joint_by_enumerating_every_die():
    """Each disrupted unit rallies on 2D6 - 1 (its HQ's leadership) <= morale 8."""
    want = np.zeros((3, 5, 5, 3))  # rallied, a detail, b detail, units disrupted or worse
    for d in _d6(4):
        ra = d[0] + d[1] - 1 <= 8
        rb = d[2] + d[3] - 1 <= 8
        a = 2 if ra else 3  # a starts reduced and disrupted
        b = 0 if rb else 1
        want[ra + rb, a, b, (a != 0) + (b != 0)] += 6.0**-4
    got = from_dict(RALLY).exact_joint(
        ("units_rallied_w", "a_state_detail", "b_state_detail", "w_units_disrupted_or_worse")
    )
    assert np.allclose(got, want, atol=1e-15)


# -- the Monte Carlo records against the exact joint (>= 1e6 trials) ---------------------------
def _joint_counts(job, names: tuple[str, ...], seed: int, chunks: int) -> np.ndarray:
    """Counts of every combination of ``names`` in the records of ``chunks`` full chunks."""
    index = [next(i for i, s in enumerate(job.stats) if s.name == n) for n in names]
    dims = tuple(job.stats[i].nbins for i in index)
    counts = np.zeros(int(np.prod(dims)), dtype=np.int64)
    for first in range(0, chunks, 4):
        last = min(first + 4, chunks)
        c = last - first
        nt = np.full(c, CHUNK_TRIALS, dtype=np.int64)
        out = np.zeros((c, len(job.stats), job.n_bins), dtype=np.int64)
        rec = np.zeros((c, CHUNK_TRIALS, len(job.stats)), dtype=np.int32)
        job.kernel(chunk_seeds(seed, first, last), nt, out, rec, *job.params)
        rows = rec.reshape(-1, len(job.stats))[:, index]
        flat = np.ravel_multi_index(tuple(rows.T), dims)
        counts += np.bincount(flat, minlength=counts.size)
    return counts


MC = {
    "fire-fast-path": (
        FIRE,
        ("hits_on_target", "unsaved_hits_on_target", "target_state", "target_state_detail"),
    ),
    "artillery": (
        ART,
        ("mission_failed", "unsaved_hits_on_woods", "a_state", "b_state", "hq_state"),
    ),
    "rally": (RALLY, ("units_rallied_w", "a_state_detail", "b_state_detail")),
    "two-steps": (
        TWO_STEPS,
        (
            "mission_failed_step1",
            "unsaved_hits_on_woods_step1",
            "a_state",
            "t_state",
            "hq_state",
            "c_state",
            "far_out_of_command_step2",
        ),
    ),
}


@pytest.mark.statistical
@pytest.mark.parametrize("case", sorted(MC))
def test_records_match_the_exact_joint(case):
    d, names = MC[case]
    job = from_dict(d).compile()
    want = job.exact_joint(names)
    assert want is not None
    if case == "fire-fast-path":
        assert job.kernel.__name__ == "run_hex_fire"
    counts = _joint_counts(job, names, seed=20261127, chunks=16)  # 1,048,576 trials
    p = chisquare_pmf(counts, want.ravel())
    assert p > P_MIN, f"{case}: p = {p:.2e}"
