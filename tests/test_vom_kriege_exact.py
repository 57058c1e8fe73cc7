"""Vom Kriege exact joint distributions (oddslab/rulesets/vom_kriege/exact.py, issue 29):
``Job.exact_joint`` of a single shot and of a command roll against independent
enumerations (every face sequence played through the pure-Python reference
tests/naive_vom_kriege.py; every ordered command roll and reroll under the policy), its
marginals against ``exact_pmfs``, and the Monte Carlo per-trial records against it
(chi-square on the joint table). Where no exact engine exists (a melee), the records' joint
of battle-back and defensive-fire hits against the reference's exhaustive enumeration."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

from oddslab.rulesets.vom_kriege.command import NSYM, CommandScenario, Order
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.exact import EXACT_STATS
from oddslab.rulesets.vom_kriege.layout import SYMBOLS
from oddslab.rulesets.vom_kriege.model import Action, Dice, Leader, Rules, Unit
from oddslab.rulesets.vom_kriege.orders import feasible, requirements

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exact_vom_kriege as exact  # noqa: E402
import naive_vom_kriege as naive  # noqa: E402
from records_check import run_with_records  # noqa: E402
from stats import P_MIN, chisquare_pmf  # noqa: E402

MC_CHUNKS = (65_536, 65_536, 65_536, 12_345)  # 208,953 trials, recorded


def _shot(rules=None, **target) -> VomKriegeScenario:
    """A 6-gun heavy battery at 5 inches with the order bonus: 3 + 1 = 4 dice (more at a
    column)."""
    t = {"name": "t", "side": "defender", "troop": "infantry", "leader": "d"} | target
    return VomKriegeScenario(
        units=(Unit("guns", "attacker", "artillery", guns=6, kind="heavy"), Unit(**t)),
        leaders=(Leader("d", "defender", hits=2),),
        actions=(Action("shoot", "guns", "t", range=5, order_bonus=True),),
        rules=rules or Rules(),
    )


SHOTS = {
    "line": lambda: _shot(),
    "square-with-a-hit": lambda: _shot(formation="square", hits=1),
    "column-near-maximum": lambda: _shot(formation="column", hits=3),
    "column-near-maximum-absorb": lambda: _shot(
        Rules(same_roll_at_max="absorb"), formation="column", hits=3
    ),
    "blocked": lambda: _shot(retreat_blocked=True, hits=2),
    "cavalry": lambda: _shot(troop="cavalry", kind="heavy", hits=1),
}


def _columns(outcomes) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """``[(probability, stats)]`` as a probability array and one value array per statistic."""
    p = np.array([o[0] for o in outcomes])
    return p, {k: np.array([o[1][k] for o in outcomes]) for k in outcomes[0][1]}


def _reference_joint(outcomes, names, sizes) -> np.ndarray:
    """The joint table of ``names`` over the outcomes (a list, or :func:`_columns` of one);
    values past the last of ``sizes`` bins count in it, as the histograms do."""
    p, values = _columns(outcomes) if isinstance(outcomes, list) else outcomes
    at = tuple(np.minimum(values[n], s - 1) for n, s in zip(names, sizes, strict=True))
    out = np.zeros(sizes)
    np.add.at(out, at, p)
    return out


def _recorded_joint(job, names, seed=17) -> np.ndarray:
    """Counts of the value combinations of ``names`` in the recorded trials."""
    _, rec = run_with_records(job, seed, MC_CHUNKS)
    cols = [[s.name for s in job.stats].index(n) for n in names]
    sizes = [job.stats[c].nbins for c in cols]
    counts = np.zeros(sizes, dtype=np.int64)
    for i, n in enumerate(MC_CHUNKS):
        np.add.at(counts, tuple(rec[i, :n, c] for c in cols), 1)
    return counts


@pytest.mark.parametrize("case", list(SHOTS))
def test_shot_joint_against_every_face_sequence(case):
    """Every pair of the exact statistics: ``exact_joint`` equals the joint of all 6^n face
    sequences played through the reference, and sums to each statistic's exact PMF."""
    sc = SHOTS[case]()
    job = sc.compile()
    outcomes = naive.enumerate_outcomes(sc)
    exact = sc.exact_pmfs()
    n = int(np.argmax(exact["attacker_dice_rolled"]))
    assert n >= 4 and len(outcomes) == 6**n
    outcomes = _columns(outcomes)
    bins = {s.name: s.nbins for s in job.stats}
    names = [n for n in EXACT_STATS if n in bins]
    assert len(names) == len(EXACT_STATS)
    for a, b in itertools.combinations(names, 2):
        joint = job.exact_joint((a, b))
        assert joint.shape == (bins[a], bins[b])
        ref = _reference_joint(outcomes, (a, b), joint.shape)
        np.testing.assert_allclose(joint, ref, rtol=0, atol=1e-12, err_msg=f"{a}, {b}")
        np.testing.assert_allclose(joint.sum(axis=1), exact[a], rtol=0, atol=1e-12)
        np.testing.assert_allclose(joint.sum(axis=0), exact[b], rtol=0, atol=1e-12)
    three = ("hits_on_defender", "flags_on_defender", "defender_removed")
    ref3 = _reference_joint(outcomes, three, [bins[n] for n in three])
    np.testing.assert_allclose(job.exact_joint(three), ref3, rtol=0, atol=1e-12)


@pytest.mark.parametrize("case", ["square-with-a-hit", "column-near-maximum"])
def test_shot_records_against_the_exact_joint(case):
    """The single-shot kernel's per-trial records: the joint of hits and the retreat (and of
    flags and removal) against the exact table (chi-square, 208,953 trials)."""
    job = SHOTS[case]().compile()
    for names in (
        ("hits_on_defender", "defender_retreat_half_moves"),
        ("flags_on_defender", "defender_removed"),
    ):
        counts = _recorded_joint(job, names)
        assert chisquare_pmf(counts.ravel(), job.exact_joint(names).ravel()) > P_MIN, names


def test_no_exact_joint_beyond_the_exact_engine():
    """None for a statistic the exact engine does not give, an unknown name, or a job with
    no exact engine; the form-square test alone for a first cavalry charge."""
    job = SHOTS["line"]().compile()
    assert job.exact_joint(("hits_on_defender", "defender_leader_hits")) is None
    assert job.exact_joint(("hits_on_defender", "no_such_statistic")) is None
    assert job.exact_joint(()) is None
    charge = VomKriegeScenario(
        units=(
            Unit("c", "attacker", "cavalry", kind="heavy"),
            Unit("l", "defender", "infantry", hits=2),
        ),
        actions=(Action("melee", "c", "l"),),
    )
    job = charge.compile()
    p = charge.exact_pmfs()["defender_formed_square"]
    np.testing.assert_array_equal(job.exact_joint(("defender_formed_square",)), p)
    assert job.exact_joint(("defender_formed_square", "defender_removed")) is None
    guns = Unit("g", "attacker", "artillery")
    two = VomKriegeScenario(
        units=(*charge.units, guns), actions=(*charge.actions, Action("shoot", "g", "l"))
    )
    assert two.compile().exact_joint is None  # shot at after its test: no exact engine


# -- command dice ------------------------------------------------------------------------------
def _command(**kw) -> CommandScenario:
    orders = (Order("assault"), Order("infantry", double=True), Order("rally"))
    return CommandScenario(**{"cp": 3, "rerolls": 2, "orders": orders, **kw})


COMMANDS = {
    "together-optimal": lambda: _command(),
    "together-simple": lambda: _command(policy="simple"),
    "sequential-optimal": lambda: _command(reroll="sequential"),
}


def _counts(faces) -> tuple[int, ...]:
    c = [0] * NSYM
    for f in faces:
        c[SYMBOLS.index(f)] += 1
    return tuple(c)


def _command_outcomes(sc: CommandScenario):
    """Every ordered first roll, then every ordered reroll the policy asks for (together:
    the dice of ``decisions()`` at once; sequential: one at a time, the optimal table's
    choice after each), with the prefix of orders each final roll can issue."""
    faces = sc.dice.faces
    nf = len(faces)

    def prefix(m):
        k = 0
        for i in range(1, len(sc.orders) + 1):
            if not feasible(m, requirements(sc.orders[:i]), sc.saber_wild, sc.pair_substitution):
                break
            k = i
        return k

    def stats(m, used):
        k = prefix(m)
        return {
            "orders_in_sequence": k,
            "orders_issued": int(k == len(sc.orders)),
            "dice_rerolled": used,
        }

    def sequential(m, left, p, used):
        s = sc._seq(m, left)[1] if left > 0 else -1
        if s < 0:
            yield p, stats(m, used)
            return
        for f in faces:
            kept = list(m)
            kept[s] -= 1
            kept[SYMBOLS.index(f)] += 1
            yield from sequential(tuple(kept), left - 1, p / nf, used + 1)

    choice = sc.decisions()
    for first in itertools.product(faces, repeat=sc.cp):
        m = _counts(first)
        p = nf**-sc.cp
        if sc.reroll == "sequential":
            yield from sequential(m, sc.rerolls, p, 0)
            continue
        s = choice[m]
        k = sum(s)
        kept = tuple(a - b for a, b in zip(m, s, strict=True))
        for again in itertools.product(faces, repeat=k):
            final = tuple(a + b for a, b in zip(kept, _counts(again), strict=True))
            yield p * nf**-k, stats(final, k)


@pytest.mark.parametrize("case", list(COMMANDS))
def test_command_joint_against_every_ordered_roll(case):
    sc = COMMANDS[case]()
    job = sc.compile()
    outcomes = list(_command_outcomes(sc))
    names = tuple(s.name for s in job.stats)
    joint = job.exact_joint(names)
    np.testing.assert_allclose(joint, _reference_joint(outcomes, names, joint.shape), atol=1e-12)
    pair = job.exact_joint(("orders_in_sequence", "dice_rerolled"))
    np.testing.assert_allclose(pair, joint.sum(axis=1), rtol=0, atol=1e-15)
    exact = sc.exact_pmfs()
    np.testing.assert_allclose(pair.sum(axis=1), exact["orders_in_sequence"], atol=1e-12)
    np.testing.assert_allclose(pair.sum(axis=0), exact["dice_rerolled"], atol=1e-12)
    assert job.exact_joint(("orders_issued", "defender_removed")) is None


@pytest.mark.parametrize("case", ["together-optimal", "sequential-optimal"])
def test_command_records_against_the_exact_joint(case):
    job = COMMANDS[case]().compile()
    names = ("orders_in_sequence", "dice_rerolled")
    counts = _recorded_joint(job, names)
    assert chisquare_pmf(counts.ravel(), job.exact_joint(names).ravel()) > P_MIN


# -- a melee: no exact engine, the reference enumerated -----------------------------------------
def _melee(faces) -> VomKriegeScenario:
    """Defensive fire (4 dice) on a charging line of strength 3, whose dice strike a line of
    strength 4, which battles back if it holds: dice of 2 or 3 faces, a few thousand face
    sequences (a flag stops the charge or drives a line back)."""
    return VomKriegeScenario(
        units=(
            Unit("a", "attacker", "infantry", strength=3),
            Unit("d", "defender", "infantry", strength=4),
        ),
        actions=(Action("melee", "a", "d", reaction="defensive_fire"),),
        dice=Dice(faces),
    )


@pytest.mark.parametrize("faces", [("infantry", "blank"), ("infantry", "blank", "flag")])
def test_melee_records_joint_against_the_enumerated_reference(faces):
    """The general kernel's per-trial records: the joint of battle-back and defensive-fire
    hits on the attacker (and of hits on it and its fate) against every face sequence of
    the reference (chi-square, 208,953 trials)."""
    sc = _melee(faces)
    job = sc.compile()
    outcomes = naive.enumerate_outcomes(sc)
    for names in (
        ("hits_on_attacker_by_battle_back", "hits_on_attacker_by_defensive_fire"),
        ("hits_on_attacker", "attacker_retreated"),
        ("defender_hits", "attacker_reached_melee"),
    ):
        counts = _recorded_joint(job, names)
        ref = _reference_joint(outcomes, names, counts.shape)
        assert ref.sum() == pytest.approx(1.0, abs=1e-12)
        assert chisquare_pmf(counts.ravel(), ref.ravel()) > P_MIN, names


def _square_and_leader(faces) -> VomKriegeScenario:
    """Cavalry of strength 2 charges a line of strength 2 in the open (it tests to form
    square: 4 command dice), then another rides down a leader standing alone (only sabers
    hit him) and follows up at the line."""
    return VomKriegeScenario(
        units=(
            Unit("hus", "attacker", "cavalry", strength=2),
            Unit("uhl", "attacker", "cavalry", strength=2),
            Unit("line", "defender", "infantry", strength=2, leader="d"),
        ),
        leaders=(Leader("d", "defender", hits=1),),
        actions=(
            Action("melee", "hus", "line"),
            Action("melee", "uhl", "d", follow_up="line"),
        ),
        dice=Dice(faces),
    )


def _shot_then_leader(faces) -> VomKriegeScenario:
    """A column shoots at a unit of strength 1 (its removal is the division leader's second
    hit), then hussars charge a line that leader stands with (it must retire first: a third
    hit removes both units and hits the army leader) and follow up at another line. The
    charge reads neither the first target nor what the statistics keep, so its outcomes
    from one state are reused for the others (and the follow-up's likewise), the cascade
    writing the first target's removal unread; at the end the states differing only in what
    the statistics do not read merge."""
    return VomKriegeScenario(
        units=(
            Unit("col", "attacker", "infantry", formation="column"),
            Unit("hus", "attacker", "cavalry", strength=2),
            Unit("x", "defender", "infantry", strength=1, leader="d"),
            Unit("y", "defender", "infantry", strength=2, leader="d"),
            Unit("z", "defender", "infantry", strength=2),
        ),
        leaders=(
            Leader("d", "defender", hits=1, with_unit="y"),
            Leader("army", "defender", army=True, hits=1),
        ),
        actions=(
            Action("shoot", "col", "x"),
            Action("melee", "hus", "y", reaction="none", follow_up="z"),
        ),
        dice=Dice(faces),
    )


@pytest.mark.parametrize(
    "case",
    [
        _melee(("infantry", "blank", "flag")),
        _square_and_leader(("infantry", "saber")),
        _shot_then_leader(("saber", "flag")),
    ],
    ids=["melee", "square-and-leader", "shot-then-leader"],
)
def test_whole_roll_enumeration_equals_every_face_sequence(case):
    """tests/exact_vom_kriege.py (each roll branching on its (hits, flags), one die at a time
    for the square test and a leader's contact; the rules states merged between actions with
    each statistics-only count's distribution beside them, an action's outcomes reused for
    every state that agrees on what its paths read, the final states merged on what the
    statistics read) gives the reference's distribution exactly as every face sequence
    played through it does."""
    got = exact.pmfs(case)
    want: dict[str, dict[int, float]] = {}
    for p, stats in naive.enumerate_outcomes(case):
        for k, v in stats.items():
            want.setdefault(k, {}).setdefault(v, 0.0)
            want[k][v] += p
    assert set(got) == set(want)
    for k, pmf in want.items():
        ref = np.zeros(len(got[k]))
        for v, p in pmf.items():
            ref[v] = p
        np.testing.assert_allclose(got[k], ref, rtol=0, atol=1e-10, err_msg=k)
