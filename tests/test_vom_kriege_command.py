"""Vom Kriege command dice: CP, order feasibility, the optimal-reroll DP against brute force
and icepool, hand-worked answers, and Monte Carlo under the policy against the exact PMFs."""

from __future__ import annotations

import itertools
from collections import Counter

import icepool
import pytest
from exact_vom_kriege import assert_exact
from switches import note_power

import oddslab
from oddslab.rulesets.vom_kriege.command import (
    NSYM,
    CommandScenario,
    Order,
    command_points,
    feasible,
    requirements,
)
from oddslab.rulesets.vom_kriege.layout import SYMBOLS
from oddslab.rulesets.vom_kriege.model import Dice
from oddslab.rulesets.vom_kriege.orders import SABER_READINGS

FACES = Dice().faces


def counts(faces) -> tuple[int, ...]:
    c = [0] * NSYM
    for f in faces:
        c[SYMBOLS.index(f)] += 1
    return tuple(c)


def test_command_points():
    assert command_points(1) == 1
    assert command_points(5) == 3  # 5 / 2 rounded up
    assert command_points(12) == 4  # at most 4
    assert command_points(6, bonus=3) == 6
    assert command_points(8, bonus=4) == 6  # no more than 6
    assert command_points(2, leader_hits=2) == 1  # no less than 1


def test_feasible_by_hand():
    two = requirements((Order("assault"), Order("assault")))
    assert feasible(counts(["saber", "saber"]), two)
    assert feasible(counts(["saber", "flag", "flag"]), two)  # pair -> saber
    assert not feasible(counts(["flag", "flag", "infantry"]), two)
    inf1 = requirements((Order("infantry"),))
    assert feasible(counts(["saber"]), inf1)  # an Assault: "any unit may move, shoot ..."
    assert feasible(counts(["saber"]), inf1, "any_symbol")
    assert not feasible(counts(["saber"]), inf1, "assault_only")
    inf2 = requirements((Order("infantry", double=True),))
    # a doubled order is two infantry or two sabers: the table lists no mixed pair
    assert not feasible(counts(["infantry", "saber"]), inf2)
    assert feasible(counts(["saber", "saber"]), inf2)
    assert feasible(counts(["infantry", "saber", "flag"]), inf2)  # saber + flag -> infantry
    assert feasible(counts(["infantry", "saber"]), inf2, "any_symbol")  # the old reading
    assert not feasible(counts(["infantry", "saber"]), inf2, "assault_only")
    assert not feasible(counts(["saber", "saber"]), inf2, "assault_only")
    # one saber pair for the doubled order, the infantry die for the single one
    mixed = requirements((Order("infantry", double=True), Order("infantry")))
    assert feasible(counts(["saber", "saber", "infantry"]), mixed)
    assert feasible(counts(["saber", "infantry", "infantry"]), mixed)  # the saber: single
    assert not feasible(counts(["saber", "infantry", "flag"]), mixed)
    far = requirements((Order("cavalry", far=True, disordered=True),))
    assert feasible(counts(["cavalry", "flag", "flag"]), far)
    assert not feasible(counts(["cavalry", "flag"]), far)
    assert feasible(counts(["flag"] * 4), requirements((Order("artillery", far=True),)))


def test_doubled_infantry_order_from_two_dice():
    """2 CP, L0, one doubled infantry order: two infantry (1/3)^2 or two sabers (1/6)^2
    = 5/36 = 0.1389 (no mixed pair; one die after a swap is too few)."""
    orders = (Order("infantry", double=True),)
    sc = CommandScenario(cp=2, rerolls=0, orders=orders)
    assert sc.probability() == pytest.approx((1 / 3) ** 2 + (1 / 6) ** 2, abs=1e-12)
    # the switch's other readings: a saber stands in for one infantry symbol, (1/3 + 1/6)^2;
    # sabers only for Assaults, (1/3)^2
    half = CommandScenario(cp=2, rerolls=0, orders=orders, saber_wild="any_symbol")
    assert half.probability() == pytest.approx((1 / 2) ** 2, abs=1e-12)
    none = CommandScenario(cp=2, rerolls=0, orders=orders, saber_wild="assault_only")
    assert none.probability() == pytest.approx((1 / 3) ** 2, abs=1e-12)


# -- an independent oracle: pair swaps tried one by one, orders filled from the order table --
_PATTERNS = {  # dice an order may be issued with (the order table, "order" reading)
    ("infantry", False): (("infantry",), ("saber",)),
    ("cavalry", False): (("cavalry",), ("saber",)),
    ("artillery", False): (("artillery",), ("saber",)),
    ("assault", False): (("saber",),),
    ("rally", False): (("flag",),),
    ("infantry", True): (("infantry", "infantry"), ("saber", "saber")),
    ("cavalry", True): (("cavalry", "cavalry"), ("saber", "saber")),
    ("artillery", True): (("artillery", "artillery"), ("saber", "saber")),
    ("assault", True): (("saber", "saber"),),
}


def _oracle(roll: tuple[str, ...], orders: tuple[Order, ...], pairs: bool = True) -> bool:
    """Try every pair swap (any two dice -> one die of any symbol; none without ``pairs``)
    and every way of issuing each order from the table; the dice left over pay for the
    any-dice."""
    anyd = sum(o.any_dice for o in orders)
    choices = [_PATTERNS[(o.order, o.double)] for o in orders]
    seen: set[tuple[str, ...]] = set()

    def ok(dice: tuple[str, ...]) -> bool:
        if dice in seen:
            return False
        seen.add(dice)
        for pick in itertools.product(*choices):
            want = Counter(f for pat in pick for f in pat)
            have = Counter(dice)
            if all(have[f] >= n for f, n in want.items()):
                if len(dice) - sum(want.values()) >= anyd:
                    return True
        if not pairs:
            return False
        for i, j in itertools.combinations(range(len(dice)), 2):
            rest = tuple(d for k, d in enumerate(dice) if k not in (i, j))
            for new in ("infantry", "cavalry", "artillery", "saber", "flag"):
                if ok(tuple(sorted(rest + (new,)))):
                    return True
        return False

    return ok(tuple(sorted(roll)))


ORACLE_CASES = [
    (Order("infantry", double=True),),
    (Order("infantry", double=True), Order("infantry")),
    (Order("cavalry", double=True), Order("assault")),
    (Order("artillery"), Order("assault", double=True)),
    (Order("infantry"), Order("cavalry", far=True), Order("rally")),
    (Order("infantry", double=True), Order("cavalry", double=True)),
]


@pytest.mark.parametrize("orders", ORACLE_CASES)
@pytest.mark.parametrize("n", [2, 3, 4])
@pytest.mark.parametrize("pairs", [True, False])
def test_feasible_matches_the_order_table(orders, n, pairs):
    needs = requirements(orders)
    for roll in itertools.combinations_with_replacement(FACES[1:], n):
        want = _oracle(roll, orders, pairs)
        assert feasible(counts(roll), needs, "order", pairs) == want, (roll, orders, pairs)


def test_two_assaults_from_three_cp_with_an_l2_leader():
    """No rerolls: 1 - (5/6)^3 (one saber, and any pair swaps for the second). With two
    rerolls a roll without sabers keeps one die and rerolls two: 1 - (5/6)^2."""
    sc = CommandScenario(cp=3, rerolls=2, orders=(Order("assault"), Order("assault")))
    p0 = 1 - (5 / 6) ** 3
    assert sc.probability() == pytest.approx(p0 + (1 - p0) * (1 - (5 / 6) ** 2), abs=1e-12)
    assert CommandScenario(
        cp=3, rerolls=0, orders=(Order("assault"), Order("assault"))
    ).probability() == pytest.approx(p0, abs=1e-12)


def _brute_together(sc: CommandScenario) -> float:
    needs = requirements(sc.orders)
    n, k = sc.cp, sc.rerolls
    total = 0.0
    for roll in itertools.product(FACES, repeat=n):
        best = float(feasible(counts(roll), needs, sc.saber_wild, sc.pair_substitution))
        for j in range(1, k + 1):
            for pos in itertools.combinations(range(n), j):
                kept = [roll[i] for i in range(n) if i not in pos]
                hit = sum(
                    feasible(counts(kept + list(new)), needs, sc.saber_wild, sc.pair_substitution)
                    for new in itertools.product(FACES, repeat=j)
                )
                best = max(best, hit / 6**j)
        total += best
    return total / 6**n


def _brute_sequential(sc: CommandScenario) -> float:
    needs = requirements(sc.orders)

    def value(roll: tuple[str, ...], r: int) -> float:
        best = float(feasible(counts(roll), needs, sc.saber_wild))
        if r == 0 or best == 1.0:
            return best
        for i in range(len(roll)):
            rest = roll[:i] + roll[i + 1 :]
            v = sum(value(rest + (f,), r - 1) for f in FACES) / 6
            best = max(best, v)
        return best

    return sum(value(r, sc.rerolls) for r in itertools.product(FACES, repeat=sc.cp)) / 6**sc.cp


SMALL = [
    (2, 1, (Order("cavalry"), Order("artillery"))),
    (3, 2, (Order("assault"), Order("cavalry", double=True))),
    (3, 1, (Order("rally"), Order("infantry", far=True))),
    (4, 2, (Order("cavalry"), Order("cavalry"), Order("rally"))),
    (3, 3, (Order("artillery", double=True), Order("infantry"))),
]


@pytest.mark.rule_switch("vom-kriege", "saber_wild")  # every reading against brute force
@pytest.mark.parametrize(("cp", "rr", "orders"), SMALL)
@pytest.mark.parametrize("wild", SABER_READINGS)
def test_dp_together_matches_brute_force(cp, rr, orders, wild):
    sc = CommandScenario(cp=cp, rerolls=rr, orders=orders, saber_wild=wild)
    assert sc.probability() == pytest.approx(_brute_together(sc), abs=1e-12)
    note_power()  # exact against exact: any error fails it


@pytest.mark.parametrize(("cp", "rr", "orders"), SMALL[:4])
def test_dp_sequential_matches_brute_force(cp, rr, orders):
    sc = CommandScenario(cp=cp, rerolls=rr, orders=orders, reroll="sequential")
    assert sc.probability() == pytest.approx(_brute_sequential(sc), abs=1e-12)
    together = CommandScenario(cp=cp, rerolls=rr, orders=orders).probability()
    assert sc.probability() >= together - 1e-12  # seeing each result never hurts


def test_simple_policy_never_beats_optimal():
    for cp, rr, orders in SMALL:
        opt = CommandScenario(cp=cp, rerolls=rr, orders=orders).probability()
        simple = CommandScenario(cp=cp, rerolls=rr, orders=orders, policy="simple")
        assert simple.probability() <= opt + 1e-12


@pytest.mark.parametrize("cp", [1, 3, 5, 6])
def test_no_reroll_matches_icepool(cp):
    orders = (Order("assault"), Order("infantry", double=True), Order("rally", disordered=True))
    sc = CommandScenario(cp=cp, rerolls=0, orders=orders)
    needs = requirements(orders)
    pool = icepool.Die(list(FACES)).pool(cp).expand()
    p = pool.map(lambda t: feasible(counts(t), needs))
    expected = float(p.probability(True)) if True in p else 0.0
    assert sc.probability() == pytest.approx(expected, abs=1e-12)


@pytest.mark.statistical
@pytest.mark.rule_switch("vom-kriege", "reroll")  # the kernel under both readings vs exact
@pytest.mark.parametrize(
    ("reroll", "policy"),
    [("together", "optimal"), ("sequential", "optimal"), ("together", "simple")],
)
def test_monte_carlo_under_policy_matches_exact(reroll, policy):
    sc = CommandScenario(
        cp=5,
        rerolls=3,
        orders=(Order("assault", double=True), Order("cavalry", far=True), Order("rally")),
        reroll=reroll,
        policy=policy,
    )
    out = oddslab.simulate(sc, trials=1_000_000, seed=17)
    exact = sc.exact_pmfs()
    assert_exact({k: out.counts[k] for k in exact}, exact, f"{reroll}/{policy}")


@pytest.mark.parametrize(("cp", "rr", "orders"), SMALL)
def test_dp_without_pair_substitution_matches_brute_force(cp, rr, orders):
    sc = CommandScenario(cp=cp, rerolls=rr, orders=orders, pair_substitution=False)
    assert sc.probability() == pytest.approx(_brute_together(sc), abs=1e-12)
    with_pairs = CommandScenario(cp=cp, rerolls=rr, orders=orders).probability()
    assert sc.probability() <= with_pairs + 1e-12  # the swap never hurts


def test_pair_substitution_by_hand():
    """ "Any pairs of command dice can be substituted by a single die of the player's choice":
    2 CP, an L0 leader, one Assault order. With the swap any roll works (no saber: the pair
    becomes one); without it a saber must show: 1 - (5/6)^2 = 11/36. Two Assaults from 3 CP
    (L0): with the swap 1 - (5/6)^3 (one saber, the other two dice swap for the second);
    without it two sabers must show: 3 (1/6)^2 (5/6) + (1/6)^3 = 16/216."""
    one = (Order("assault"),)
    assert CommandScenario(cp=2, rerolls=0, orders=one).probability() == pytest.approx(1.0)
    off = CommandScenario(cp=2, rerolls=0, orders=one, pair_substitution=False)
    assert off.probability() == pytest.approx(11 / 36, abs=1e-12)
    two = (Order("assault"), Order("assault"))
    on3 = CommandScenario(cp=3, rerolls=0, orders=two).probability()
    assert on3 == pytest.approx(1 - (5 / 6) ** 3, abs=1e-12)
    off3 = CommandScenario(cp=3, rerolls=0, orders=two, pair_substitution=False)
    assert off3.probability() == pytest.approx(16 / 216, abs=1e-12)
    assert off3.resolved()["rules"]["pairs swapped for a die of choice"].startswith("no")


@pytest.mark.rule_switch("vom-kriege", "pair_substitution")
@pytest.mark.parametrize("pairs", [True, False])
def test_kernel_honours_pair_substitution(pairs):
    """The Monte Carlo kernel (its feasibility and decision tables) against the exact PMFs,
    with and without the swap: they differ (2 Assaults and a doubled cavalry order from 5
    CP, an L2 leader)."""
    orders = (Order("assault", double=True), Order("cavalry", double=True))
    sc = CommandScenario(cp=5, rerolls=2, orders=orders, pair_substitution=pairs)
    out = oddslab.simulate(sc, trials=1_000_000, seed=23)
    exact = sc.exact_pmfs()
    assert_exact({k: out.counts[k] for k in exact}, exact, f"pair_substitution={pairs}")
    other = CommandScenario(cp=5, rerolls=2, orders=orders, pair_substitution=not pairs)
    assert abs(sc.probability() - other.probability()) > 0.05


def test_bad_cp_and_orders():
    with pytest.raises(ValueError, match="cp"):
        CommandScenario(cp=7, rerolls=1, orders=(Order("assault"),))
    with pytest.raises(ValueError, match="order"):
        Order("charge")
    with pytest.raises(ValueError, match="double"):
        Order("rally", double=True)
