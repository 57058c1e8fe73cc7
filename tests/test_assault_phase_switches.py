"""Every assault-phase rule switch, each value, against an exact answer worked by hand.

The naive reference (tests/naive_assault_phase.py) models one fixed shape of combat and none
of the switches, so each switch is checked in a small combat answered exactly (fractions
from the rule text, docs/assault-phase.md) where its values give different answers: the
kernel's whole distribution of the statistic against the exact PMF (chi-square with rare
outcomes tested alone, tests/stats.py), one kernel run per value, with the trials a 0.5
percentage-point error needs to fail, and that power checked on the run itself
(tests/assault_phase_exact.py). The assault kernel has one path (one trial is one whole
combat), so every case reaches the code that reads the switch. Default profile: WS4 S4 T4
A1 W1, no save, so an attack hits on 4+ and wounds on 4+ (p = 1/4 to kill).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from math import comb

import pytest
from assault_phase_exact import bernoulli, check_exact

from oddslab.rulesets.assault_phase import AssaultScenario, ModelGroup, Rules, Side, Unit

G = ModelGroup
SEED = 27

P2 = [F(0)] * 13
for _a, _b in itertools.product(range(1, 7), repeat=2):
    P2[_a + _b] += F(1, 36)


def fails(ld: int) -> F:
    """P(2D6 > ld)."""
    return 1 - sum(P2[: max(ld, 0) + 1])


#: P(one 2D6 beats another): a sweeping advance catches a unit falling back 2D6
BEATS = sum(P2[i] * P2[j] for i in range(13) for j in range(13) if i > j)


def binom(n: int, p: F) -> list[F]:
    return [comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


def _sc(att: Unit, dfn: Unit, **rules) -> AssaultScenario:
    return AssaultScenario(Side("att", (att,)), Side("def", (dfn,)), Rules(**rules))


def check(sc: AssaultScenario, stat: str, pmf: list[F], **more: list[F]) -> None:
    """The kernel's whole distribution of ``stat`` (and of each statistic in ``more``) against
    the exact PMF, with trials enough that a 0.5 pp error fails (checked on the run)."""
    pmfs = {stat: pmf, **more}
    for name, p in pmfs.items():
        assert sum(p) == 1, f"the worked answer for {name} does not sum to 1"
    check_exact(sc, pmfs, SEED)


#: two 4+/4+ attacks (one model charging) kill a one-wound model with 7/16
WIN = 1 - F(3, 4) ** 2


@pytest.mark.rule_switch("assault-phase", "unit_leadership")
@pytest.mark.parametrize("mode, ld", [("highest", 9), ("majority", 7)])
def test_unit_leadership(mode, ld):
    """Nine Ld7 models and an Ld9 sergeant lose with 7/16 and test on Ld9 (the best living
    model) or Ld7 (the majority value)."""
    dfn = Unit("D", (G("d", 9, a=0, ld=7), G("sgt", 1, a=0, ld=9)))
    check(_sc(Unit("A", (G("a", 1, a=1),)), dfn, unit_leadership=mode),
          "defender_fell_back", bernoulli(WIN * fails(ld)))  # fmt: skip


@pytest.mark.rule_switch("assault-phase", "below_half_penalty")
@pytest.mark.parametrize("penalty", [False, True])
@pytest.mark.parametrize("size", [3, 4])
def test_below_half_penalty(penalty, size):
    check(*below_half(penalty, size))


def below_half(penalty: bool, size: int) -> tuple[AssaultScenario, str, list[F]]:
    """``size // 2`` chargers (two attacks each at 1/4) against ``size`` Ld7 models that lose
    if one falls: Ld6 with the penalty when fewer than half are left (1 of 3, 1 of 4; 2 of 4
    is half, not below half, and 2 of 3 is more); all lost: nobody left to test. The two
    sizes tell "below half" from an off-by-one either way."""
    dfn = Unit("D", (G("d", size, a=0, ld=7),))
    kills = binom(2 * (size // 2), F(1, 4))
    p = sum(pk * fails(7 - (penalty and 2 * (size - k) < size))
            for k, pk in enumerate(kills) if 0 < k < size)  # fmt: skip
    sc = _sc(Unit("A", (G("a", size // 2, a=1),)), dfn, below_half_penalty=penalty)
    return sc, "defender_fell_back", bernoulli(p)


@pytest.mark.rule_switch("assault-phase", "double_one_passes")
@pytest.mark.parametrize("passes", [False, True])
def test_double_one_passes(passes):
    """An Ld1 unit falling back regroups only on double one, and only with the switch."""
    dfn = Unit("D", (G("d", 3, a=0, ld=1),), falling_back=True)
    p = F(35, 36) if passes else F(1)
    check(_sc(Unit("A", (G("a", 1, a=1),)), dfn, double_one_passes=passes),
          "defender_failed_to_regroup", bernoulli(p))  # fmt: skip


@pytest.mark.rule_switch("assault-phase", "fist_strikes_last")
@pytest.mark.parametrize("last", [True, False])
def test_fist_strikes_last(last):
    """A power fist (S8: wounds 2+, no armour save; 2 attacks on the charge kill with
    1 - (7/12)^2 = 95/144) charges with frag grenades into a defender in cover (kills with
    1/4). The fist at Initiative 1 strikes after the cover step; without the switch the frag
    grenades make it strike with the cover step, simultaneously."""
    att = Unit("A", (G("a", 1, i=5, a=1, weapon="power-fist"),), grenades="frag")
    dfn = Unit("D", (G("d", 1, i=1, a=1, ld=10),), in_cover=True)
    k, d = F(95, 144), F(1, 4)
    if last:  # the defender first; the survivor strikes back
        won, lost = (1 - d) * k, d
    else:  # simultaneous: both dead (or neither) is a draw
        won, lost = k * (1 - d), d * (1 - k)
    sc = _sc(att, dfn, fist_strikes_last=last)
    check(sc, "attacker_won_assault", bernoulli(won), defender_won_assault=bernoulli(lost))


@pytest.mark.rule_switch("assault-phase", "sweep_support")
@pytest.mark.parametrize("mode, sweep_attacks", [("profile", 1 + 3), ("one", 1 + 1)])
def test_sweep_support(mode, sweep_attacks):
    """One model in contact (2 attacks on the charge) and one supporting A3 model (exactly one
    attack) against ten Ld7 models: 3 attacks at 1/4. The loser fails Ld7 and is caught by
    the 2D6 sweep; then the model in contact strikes A1 and the supporting one A3 (profile) or
    1, every attack hitting, wounding on 4+."""
    att = Unit("A", (G("a", 1, a=1), G("s", 1, a=3, contact=0, supporting=1)))
    dfn = Unit("D", (G("d", 10, a=0, ld=7),))
    fight = binom(3, F(1, 4))
    sweep = binom(sweep_attacks, F(1, 2))
    caught = fails(7) * BEATS
    pmf = [F(0)] * 8
    for k, pk in enumerate(fight):
        if k == 0:
            pmf[0] += pk
            continue
        pmf[k] += pk * (1 - caught)
        for m, pm in enumerate(sweep):
            pmf[k + m] += pk * caught * pm
    check(_sc(att, dfn, sweep_support=mode), "defender_models_lost", pmf)


@pytest.mark.rule_switch("assault-phase", "reach")
@pytest.mark.parametrize("mode, cap", [("engaged", 1), ("unit", 4)])
def test_reach(mode, cap):
    """Three chargers (6 attacks at 1/4) against four trapped models, one in contact: only it
    can be hit (engaged; more wounds are discarded), or the whole unit."""
    att = Unit("A", (G("a", 3, a=1),))
    dfn = Unit("D", (G("d", 4, a=0, ld=10, contact=1),), trapped=True)
    kills = binom(6, F(1, 4))
    pmf = [F(0)] * (cap + 1)
    for k, pk in enumerate(kills):
        pmf[min(k, cap)] += pk
    check(_sc(att, dfn, reach=mode), "unsaved_wounds_on_defender", pmf)


def _one_blow(dfn_groups, **rules) -> AssaultScenario:
    """One attack (the charger fired: no charge bonus) into a trapped unit."""
    return _sc(Unit("A", (G("a", 1, a=1),), fired=True), Unit("D", dfn_groups, trapped=True),
               **rules)  # fmt: skip


@pytest.mark.rule_switch("assault-phase", "tie_save")
@pytest.mark.parametrize("mode, save_fails", [("better", F(1, 3)), ("worse", F(2, 3))])
def test_tie_save(mode, save_fails):
    """Two 3+ and two 5+ models: a wound (1/4) is saved on 3+ (better) or 5+ (worse)."""
    dfn = (G("x", 2, a=0, ld=10, save=3), G("y", 2, a=0, ld=10, save=5))
    check(_one_blow(dfn, tie_save=mode), "unsaved_wounds_on_defender",
          bernoulli(F(1, 4) * save_fails))  # fmt: skip


@pytest.mark.rule_switch("assault-phase", "tie_toughness")
@pytest.mark.parametrize("mode, wound", [("higher", F(1, 3)), ("lower", F(2, 3))])
def test_tie_toughness(mode, wound):
    """Two T5 and two T3 models: S4 wounds T5 on 5+, T3 on 3+; the hit on 4+."""
    dfn = (G("x", 2, a=0, ld=10, t=5), G("y", 2, a=0, ld=10, t=3))
    check(_one_blow(dfn, tie_toughness=mode), "unsaved_wounds_on_defender",
          bernoulli(F(1, 2) * wound))  # fmt: skip


@pytest.mark.rule_switch("assault-phase", "majority")
@pytest.mark.parametrize("mode, wound", [("most-common", F(1, 3)), ("more-than-half", F(2, 3))])
def test_majority(mode, wound):
    """Three T5, two T3, two T4 models: the most common T5 (wounds 5+), or no value held by
    more than half: the lowest, T3 (3+)."""
    dfn = (G("x", 3, a=0, ld=10, t=5), G("y", 2, a=0, ld=10, t=3), G("z", 2, a=0, ld=10, t=4))
    check(_one_blow(dfn, majority=mode), "unsaved_wounds_on_defender",
          bernoulli(F(1, 2) * wound))  # fmt: skip


def _draw_then_turn_two(**rules) -> AssaultScenario:
    """One of two models in contact; a lone defender that cannot strike."""
    return _sc(Unit("A", (G("a", 2, a=1, contact=1),)), Unit("D", (G("d", 1, a=0),)), **rules)


@pytest.mark.rule_switch("assault-phase", "max_turns")
@pytest.mark.parametrize("turns, won", [(1, WIN), (2, F(175, 256)), (3, None)])
def test_max_turns(turns, won):
    """Turn 1: 2 attacks (charge) kill the lone defender with 7/16; each further turn (pile
    in: both models in contact, no charge bonus) 2 attacks again."""
    if won is None:
        won = 1 - (1 - WIN) * (1 - WIN) ** 2
    check(_draw_then_turn_two(max_turns=turns), "attacker_won_fight", bernoulli(won))


@pytest.mark.rule_switch("assault-phase", "pile_in")
@pytest.mark.parametrize("pile_in, won", [(True, F(175, 256)), (False, F(37, 64))])
def test_pile_in(pile_in, won):
    """Turn 2 without pile in: only the model in contact attacks, once (1/4); with it both
    models attack once (7/16), with no charge bonus. The combat ends in turn 1 (7/16), in
    turn 2, or goes on (turn 3)."""
    check(_draw_then_turn_two(max_turns=2, pile_in=pile_in), "attacker_won_fight",
          bernoulli(won), combat_ended_turn=[0, WIN, won - WIN, 1 - won])  # fmt: skip


def _chart(value: int) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple([value] * 10) for _ in range(10))


@pytest.mark.rule_switch("assault-phase", "to_hit_chart")
@pytest.mark.parametrize(
    "chart, p_hit", [(None, F(1, 2)), (_chart(3), F(2, 3)), (_chart(6), F(1, 6))]
)
def test_to_hit_chart(chart, p_hit):
    """Six attacks (fired) into a trapped unit: hits are binomial at the chart's roll."""
    sc = _sc(Unit("A", (G("a", 6, a=1),), fired=True), Unit("D", (G("d", 10, a=0, ld=10),),
             trapped=True), to_hit_chart=chart)  # fmt: skip
    check(sc, "hits_on_defender", binom(6, p_hit))


@pytest.mark.rule_switch("assault-phase", "to_wound_chart")
@pytest.mark.parametrize(
    "chart, p_wound", [(None, F(1, 2)), (_chart(2), F(5, 6)), (_chart(7), F(0))]
)
def test_to_wound_chart(chart, p_wound):
    """Six attacks hitting on 4+; wounds binomial at 1/2 x the chart's roll (7: never)."""
    sc = _sc(Unit("A", (G("a", 6, a=1),), fired=True), Unit("D", (G("d", 10, a=0, ld=10),),
             trapped=True), to_wound_chart=chart)  # fmt: skip
    pmf = binom(6, F(1, 2) * p_wound)
    if p_wound == 0:
        pmf = [F(1)]
    check(sc, "wounds_on_defender", pmf)


def _grenade_fight(grenades: str, **rules) -> AssaultScenario:
    """A charges X (in the open) while Y, also engaged, is in cover; each side one model, I5
    charger, I1 defenders striking back once (1/4 to kill)."""
    att = Unit("A", (G("a", 1, i=5, a=1, target="X"),), grenades=grenades)
    x = Unit("X", (G("x", 1, i=1, a=1, ld=10, target="A"),))
    y = Unit("Y", (G("y", 1, i=1, a=1, ld=10, target="A"),), in_cover=True)
    return AssaultScenario(Side("att", (att,)), Side("def", (x, y)), Rules(**rules))


@pytest.mark.rule_switch("assault-phase", "frag_grenades")
@pytest.mark.parametrize("mode", ["target", "any-engaged"])
def test_frag_grenades(mode):
    """Y (in cover) strikes first, at the cover step. With frag grenades A strikes at I5
    after it when its target X is in the open ("target"), or with the cover step,
    simultaneously, since a unit in cover is engaged ("any-engaged"). A (2 attacks) kills X
    with 7/16 if it strikes; Y kills A with 1/4; X (I1) strikes back if alive and A is."""
    sc = _grenade_fight("frag", frag_grenades=mode)
    y, k, x = F(1, 4), WIN, F(1, 4)
    # Y first, A only if alive ("target"); Y and A together ("any-engaged")
    x_dead = (1 - y) * k if mode == "target" else k
    # either way A dies to Y, or survives it and X survives A and strikes back
    check(sc, "attacker_models_lost", bernoulli(y + (1 - y) * (1 - k) * x),
          **{"defender.X.x.models_lost": bernoulli(x_dead)})  # fmt: skip


def _plasma_fight(**rules) -> AssaultScenario:
    """Two charging units, only A with plasma grenades, into one defender in cover who
    strikes A (I1, 1/4 to kill); A (I5, 2 attacks) and B (I5, A0: its charge bonus attack)
    strike it."""
    a = Unit("A", (G("a", 1, i=5, a=1),), grenades="plasma")
    b = Unit("B", (G("b", 1, i=5, a=0),))
    d = Unit("D", (G("d", 1, i=1, a=1, ld=10, target="A"),), in_cover=True)
    return AssaultScenario(Side("att", (a, b)), Side("def", (d,)), Rules(**rules))


@pytest.mark.rule_switch("assault-phase", "plasma_grenades")
@pytest.mark.parametrize("mode", ["per-unit", "all-units"])
def test_plasma_grenades(mode):
    """D's target A has plasma grenades: D strikes in Initiative order (after the I5 blows of
    A and B: it strikes only if alive, 9/16 x 3/4) under "per-unit"; under "all-units" B has
    none, so D keeps its cover first strike (1/4)."""
    a_dead = (1 - WIN) * F(3, 4) * F(1, 4) if mode == "per-unit" else F(1, 4)
    check(_plasma_fight(plasma_grenades=mode), "attacker.A.a.models_lost", bernoulli(a_dead))
