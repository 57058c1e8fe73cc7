"""Armoured Clash: attack pool vs exact, hand-worked rule cases, deck, naive reference, input.

Tolerances: chi-square tests fail at p < 1e-4 (tests/stats.py); z-scores against exact or
reference values fail at |z| >= 5.
"""

from __future__ import annotations

import random
from fractions import Fraction
from pathlib import Path

import pytest
from scipy.stats import hypergeom
from stats import Z_MAX, assert_prob, chisquare_pmf, z_prob
from switches import assert_agree, per_trial_counts, planted_shift
from test_armoured_clash_reference import check_strong, kernel_counts

from oddslab._schema import ScenarioError
from oddslab.engine import Job, run_job, simulate
from oddslab.outcome import Stat
from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    AttackDie,
    RangedAttack,
    Situation,
    Unit,
    attack_pool_pmf,
    default_deck,
)
from oddslab.rulesets.armoured_clash import kernel as K
from oddslab.scenario import from_dict, load

ROOT = Path(__file__).resolve().parent.parent
#: a die that always shows a strike: n dice always score exactly n hits
SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)


def _shooter(dice, name="guns", side="attacker", models=None, **kw):
    models = models or len(dice)
    return Unit(
        name,
        side=side,
        type=kw.pop("type", "armour"),
        category="heavy",
        models=models,
        defence=kw.pop("defence", 4),
        damage_limit=kw.pop("damage_limit", 3),
        discipline=7,
        armaments=Armaments(ranged=(RangedAttack("gun", dice=dice, vs=("light", "heavy")),)),
        **kw,
    )


def _one(sc, trials=2000, seed=1):
    return simulate(sc, trials=trials, seed=seed)


# -- the attack pool ---------------------------------------------------------------------------
@pytest.mark.statistical
@pytest.mark.parametrize("rating", [0, 1, 2], ids=["weakened", "neutral", "improved"])
@pytest.mark.parametrize("n", [1, 4, 12])
def test_pool_matches_exact(rating, n):
    die = AttackDie()
    stat = Stat("hits", 4 * n + 1)
    job = Job(
        "pool",
        K.run_pool_only,
        (n, rating, die.face_score(), die.explode_mask(), die.tier_table(), die.kinds()),
        (stat,),
        records=True,
    )
    out = run_job(job, 1_000_000, 20261121 + 10 * n + rating)
    p = chisquare_pmf(out.counts["hits"], attack_pool_pmf(n, rating))
    assert p > 1e-4, p


def _perdie_fraction(rating: int) -> dict[int, Fraction]:
    """Hits of one attack die by hand (default die), as exact fractions."""
    six = Fraction(1, 6)
    base = {2: six, 1: 2 * six, 0: 3 * six}  # one roll that is never re-rolled
    rr = {0: set(), 1: {"glancing"}, 2: {"glancing", "miss"}}[rating]
    # a die that may be re-rolled: strike faces keep, rerollable faces roll `base` again
    once: dict[int, Fraction] = {2: six, 1: 2 * six, 0: Fraction(0)}
    for face in ("glancing", "miss", "blank"):
        if face in rr:
            for h, p in base.items():
                once[h] = once.get(h, Fraction(0)) + six * p
        else:
            once[0] += six
    # an original die: a heroic first roll scores 2 and adds a die that follows `once`
    # (re-rollable, never explodes); other faces follow `once` minus the heroic face
    out: dict[int, Fraction] = {}
    for h2, p2 in once.items():
        out[2 + h2] = out.get(2 + h2, Fraction(0)) + six * p2
    for h, p in once.items():
        q = p - six if h == 2 else p  # the heroic face of the first roll is handled above
        out[h] = out.get(h, Fraction(0)) + q
    return out


@pytest.mark.parametrize("rating", [0, 1, 2])
def test_exact_one_die_by_hand(rating):
    """One die: heroic strike = 2 hits + an added die; the added die is re-rolled but never
    explodes; a re-rolled heroic strike adds no die."""
    want = _perdie_fraction(rating)
    got = attack_pool_pmf(1, rating)
    for h in range(len(got)):
        assert got[h] == pytest.approx(float(want.get(h, 0)), abs=1e-15)


def test_exact_matches_icepool():
    icepool = pytest.importorskip("icepool")
    # faces 0 heroic, 1-2 strike, 3 glancing, 4 miss, 5 blank
    score = {0: 2, 1: 1, 2: 1, 3: 0, 4: 0, 5: 0}
    plain = icepool.Die([2, 1, 1, 0, 0, 0])  # one roll, never re-rolled, never explodes

    def chain(rr):
        def added_face(f):  # an added die: re-rolled like any other, never explodes
            return plain if f in rr else score[f]

        added = icepool.Die(range(6)).map(added_face)

        def first_face(f):
            return 2 + added if f == 0 else (plain if f in rr else score[f])

        return icepool.Die(range(6)).map(first_face)

    for rating, rr in ((0, ()), (1, (3,)), (2, (3, 4))):
        first = chain(rr)
        for n in (1, 2, 3):
            pool = n @ first
            ours = attack_pool_pmf(n, rating)
            for h in range(len(ours)):
                assert float(pool.probability(h)) == pytest.approx(ours[h], abs=1e-12)


def test_extra_rerolls_blank():
    """A special rule re-rolling blanks at neutral moves mass off 0 hits."""
    a = attack_pool_pmf(3, "neutral")
    b = attack_pool_pmf(3, "neutral", extra_rerolls=["blank"])
    assert b[0] < a[0] and abs(b.sum() - 1) < 1e-12


# -- hand-worked cases from the rule text ----------------------------------------------------
def test_defence_3_example():
    """DEFENCE 3: every 3 hits inflict 1 damage, excess hits are lost (8 hits -> 2 damage)."""
    tgt = Unit("foot", models=6, defence=3, discipline=10)
    sc = ArmouredClashScenario((_shooter((8,), models=1), tgt), (Attack("guns", "foot"),), die=SURE)
    out = _one(sc)
    assert out.prob("hits_on_defender", 8) == 1 and out.prob("hits_on_defender", 9) == 0
    assert out.pmf("damage_on_defender").probability.iloc[2] == 1
    assert out.pmf("defender_models_lost").probability.iloc[2] == 1


def test_damage_limit_2_with_one_token():
    """DAMAGE LIMIT 2 with 1 token: 1 damage destroys a model; 3 damage destroys 2."""
    for hits, want in ((1, 1), (3, 2), (2, 1)):
        tgt = Unit("foot", models=5, defence=1, damage_limit=2, damage=1, discipline=10)
        sc = ArmouredClashScenario(
            (_shooter((hits,), models=1), tgt), (Attack("guns", "foot"),), die=SURE
        )
        assert _one(sc, 500).pmf("defender_models_lost").probability.iloc[want] == 1


def test_tokens_carry_over_between_attacks():
    """Two attacks of 1 damage each on DAMAGE LIMIT 2: the second destroys a model."""
    a = _shooter((1,), name="a", models=1)
    b = _shooter((1,), name="b", models=1)
    tgt = Unit("foot", models=5, defence=1, damage_limit=2, discipline=10)
    sc = ArmouredClashScenario((a, b, tgt), (Attack("a", "foot"), Attack("b", "foot")), die=SURE)
    assert _one(sc, 500).pmf("defender_models_lost").probability.iloc[1] == 1


def test_garrison_halves_dice_and_defends():
    """A garrisoned attacker counts half its models (round up); a garrisoned target has
    DEFENCE +1 and is always concealed (a neutral attack becomes weakened)."""
    shooter = Unit(
        "squad",
        side="attacker",
        models=5,
        defence=2,
        discipline=6,
        garrisoned=True,
        armaments=Armaments(ranged=(RangedAttack("rifles", dice=(1, 2, 3, 4, 5)),)),
    )
    tgt = Unit("foot", models=10, defence=1, discipline=10)
    sc = ArmouredClashScenario((shooter, tgt), (Attack("squad", "foot"),), die=SURE)
    assert (
        _one(sc, 500).prob("hits_on_defender", 3) == 1
        and _one(sc, 500).prob("hits_on_defender", 4) == 0
    )
    # garrisoned target: DEFENCE 1 + 1 = 2; 5 hits -> 2 damage
    tgt2 = Unit("foot", models=10, defence=1, discipline=10, garrisoned=True)
    sc2 = ArmouredClashScenario(
        (_shooter((5,), models=1), tgt2), (Attack("guns", "foot"),), die=SURE
    )
    assert _one(sc2, 500).pmf("damage_on_defender").probability.iloc[2] == 1
    # ... and concealed: the exact hits are those of a weakened pool
    sc3 = ArmouredClashScenario((_shooter((5,), models=1), tgt2), (Attack("guns", "foot"),))
    assert sc3.static_rating(0) == 0
    out = simulate(sc3, trials=1_000_000, seed=3)
    pmf = attack_pool_pmf(5, "weakened")
    assert chisquare_pmf(out.counts["hits_on_defender"], pmf) > 1e-4
    shifted = planted_shift(out.counts["hits_on_defender"])  # it sees a 0.5 pp error
    assert chisquare_pmf(shifted[: len(pmf)], pmf) < 1e-4


def test_storming_a_building():
    """Storming: the attacker counts half its models; the garrison strikes first."""
    stormers = Unit(
        "stormers",
        side="attacker",
        models=6,
        defence=1,
        discipline=10,
        armaments=Armaments(melee=(1, 2, 3, 4, 5, 6)),
    )
    garrison = Unit(
        "garrison",
        models=4,
        defence=1,
        discipline=10,
        garrisoned=True,
        armaments=Armaments(melee=(1, 2, 3, 4)),
    )
    sc = ArmouredClashScenario(
        (stormers, garrison), (Attack("stormers", "garrison", kind="close"),), die=SURE
    )
    out = _one(sc, 500)
    # the garrison (4 models, counted as 2) strikes first: 2 hits -> 2 stormers destroyed;
    # 4 stormers left count as 2: 2 hits -> 2 of the garrison destroyed: a stalemate
    assert out.prob("attacker_models_lost", 2) == 1 and out.prob("attacker_models_lost", 3) == 0
    assert out.prob("defender_models_lost", 2) == 1 and out.prob("defender_models_lost", 3) == 0
    assert out.prob("close_quarters_stalemate") == 1


def test_prioritising_exposed_models():
    """Only exposed models can be destroyed; damage beyond them is discarded."""
    tgt = Unit("foot", models=6, defence=1, discipline=10)
    sc = ArmouredClashScenario(
        (_shooter((5,), models=1), tgt),
        (Attack("guns", "foot", situation=Situation(exposed=2, concealed=True)),),
        die=SURE,
    )
    out = _one(sc, 500)
    assert out.pmf("defender_models_lost").probability.iloc[2] == 1
    assert sc.static_rating(0) == 1  # prioritising exposed models drops the concealed penalty


def test_transport_capacity_loss():
    """Capacity 5 per model: losing 1 of 2 transports leaves room for 5 of 8 passengers."""
    truck = Unit(
        "trucks",
        models=2,
        defence=1,
        damage_limit=2,
        discipline=10,
        capacity=5,
        carrying="foot",
        type="armour",
        category="heavy",
    )
    foot = Unit("foot", models=8, defence=2, discipline=10)
    sc = ArmouredClashScenario(
        (_shooter((2,), models=1), truck, foot), (Attack("guns", "trucks"),), die=SURE
    )
    out = _one(sc, 500)
    assert out.pmf("passengers_models_lost").probability.iloc[3] == 1
    assert out.pmf("defender_side_models_lost").probability.iloc[4] == 1


def test_close_quarters_winner_withdraw_and_defensive_advantage():
    att = Unit(
        "raiders",
        side="attacker",
        models=4,
        defence=3,
        discipline=10,
        armaments=Armaments(melee=(1, 2, 3, 4)),
    )
    tgt = Unit(
        "foot",
        models=5,
        defence=2,
        discipline=10,
        withdraw_losses=1,
        armaments=Armaments(melee=(1, 2, 3, 4, 5)),
    )
    # attacker: 4 hits / DEF 2 = 2 destroyed; 3 left retaliate: 3 hits / DEF 3 = 1 destroyed
    sc = ArmouredClashScenario((att, tgt), (Attack("raiders", "foot", kind="close"),), die=SURE)
    out = _one(sc, 500)
    assert out.prob("attacker_won_close_quarters") == 1
    assert out.pmf("defender_models_lost").probability.iloc[3] == 1  # 2 + 1 that cannot withdraw
    assert out.pmf("attacker_models_lost").probability.iloc[1] == 1
    # defensive advantage: 5 hits first -> 1 raider lost; 3 raiders -> 3 hits -> 1: stalemate
    sc2 = ArmouredClashScenario(
        (att, tgt),
        (Attack("raiders", "foot", kind="close", situation=Situation(defensive_advantage=True)),),
        die=SURE,
    )
    out2 = _one(sc2, 500)
    assert out2.prob("close_quarters_stalemate") == 1


def test_officer_loss_disorders_and_lowers_discipline():
    """``officer = "first"``: the officer dies with the first casualty -> disordered (-1
    DISCIPLINE); DISCIPLINE 1 then fails every card (values 1..10). By default (both
    formations) it dies only with the last model."""
    tgt = Unit("foot", models=10, defence=1, discipline=1, officer="first")
    sc = ArmouredClashScenario((_shooter((1,), models=1), tgt), (Attack("guns", "foot"),), die=SURE)
    out = _one(sc, 500)
    assert out.prob("defender_officer_lost") == 1 and out.prob("defender_suppressed") == 1
    default = Unit("foot", models=10, defence=1, discipline=1)
    assert default.officer_mode == "last"
    sc0 = ArmouredClashScenario(
        (_shooter((1,), models=1), default), (Attack("guns", "foot"),), die=SURE
    )
    assert _one(sc0, 500).prob("defender_officer_lost") == 0
    near = Unit("foot", models=10, defence=1, discipline=1, commander_nearby=True, officer="first")
    sc2 = ArmouredClashScenario(
        (_shooter((1,), models=1), near), (Attack("guns", "foot"),), die=SURE
    )
    out2 = simulate(sc2, trials=200_000, seed=5)
    assert_prob(out2.prob("defender_suppressed"), 0.9, 200_000)  # only a 1 passes
    close = Unit("foot", models=10, defence=1, discipline=1, formation="close")
    sc3 = ArmouredClashScenario(
        (_shooter((1,), models=1), close), (Attack("guns", "foot"),), die=SURE
    )
    assert _one(sc3, 500).prob("defender_officer_lost") == 0


def test_aircraft_cannot_be_suppressed():
    plane = Unit("plane", type="aircraft", category="aerial", models=5, defence=1, discipline=0)
    aa = Unit(
        "flak",
        side="attacker",
        models=1,
        defence=2,
        discipline=5,
        armaments=Armaments(ranged=(RangedAttack("flak", dice=(3,), vs=("aerial",)),)),
    )
    sc = ArmouredClashScenario(
        (aa, plane),
        (Attack("flak", "plane", situation=Situation(opportunity_fire=True)),),
        die=SURE,
    )
    out = _one(sc, 500)
    assert out.prob("defender_models_lost", 3) == 1 and out.prob("defender_annihilated") == 0
    assert "defender_suppressed" not in out.counts  # aircraft are never suppressed


# -- the C&C deck: without replacement, carried over ----------------------------------------
@pytest.mark.statistical
def test_deck_without_replacement_is_hypergeometric():
    """Three attacks each destroy 1 of 100 models (no -1 for losses, no disorder): the
    target fails when the card is 8, 9 or 10 (6 of 20 cards). It falls back when at least 2
    of the 3 cards drawn fail: hypergeometric, not binomial (0.2018 vs 0.216)."""
    units = [_shooter((1,), name=f"g{i}", models=1) for i in range(3)]
    tgt = Unit("foot", models=100, defence=1, discipline=7, commander_nearby=True)
    sc = ArmouredClashScenario(
        (*units, tgt), tuple(Attack(f"g{i}", "foot") for i in range(3)), die=SURE
    )
    n = 1_000_000
    out = simulate(sc, trials=n, seed=11)
    fails = hypergeom(20, 6, 3)
    assert_prob(out.prob("defender_fell_back"), fails.sf(1), n)
    assert_prob(out.prob("defender_suppressed"), fails.sf(0), n)
    binom = 1 - 0.7**3 - 3 * 0.3 * 0.7**2
    assert (
        abs(z_prob(out.prob("defender_fell_back"), binom, n)) > Z_MAX
    )  # the test can tell them apart


# -- brute-force reference: ranged attacks + suppression cascade ----------------------------
FACES = ("heroic", "strike", "strike", "glancing", "miss", "blank")


def _naive_pool(rng: random.Random, n: int, rating: int) -> int:
    rr = {0: (), 1: ("glancing",), 2: ("glancing", "miss")}[rating]
    dice = [rng.choice(FACES) for _ in range(n)]
    dice += [rng.choice(FACES) for f in list(dice) if f == "heroic"]  # added dice, no chain
    final = [rng.choice(FACES) if f in rr else f for f in dice]
    return sum(2 if f == "heroic" else 1 if f == "strike" else 0 for f in final)


def _naive_trial(rng: random.Random) -> dict[str, int]:
    """Two shooters (neutral, then improved) at a DL 2 / 1-token unit: open formation,
    DISCIPLINE 6, BREAK LIMIT 2, already suppressed? no; fall back costs 1 model."""
    deck = list(default_deck())
    rng.shuffle(deck)
    models, tokens, suppressed, disordered = 6, 1, False, False
    officer = fell = broke = gone = False
    destroyed = 0
    for n, rating in ((5, 1), (4, 2)):
        if gone:
            break
        start = models
        dmg = _naive_pool(rng, n, rating) // 2
        killed = 0
        for _ in range(dmg):
            tokens += 1
            if tokens == 2:
                tokens = 0
                if models > 0:
                    models -= 1
                    killed += 1
        if models == 0:
            gone = True
        if killed and not officer:
            officer, disordered = True, True
        destroyed += killed
        if killed and not gone:
            card = deck.pop()
            disc = 6 - disordered - (2 * (start - models) >= start)
            if card > disc:
                if models <= 2:
                    broke = gone = True
                elif suppressed:
                    fell = True
                    models -= 1
                    destroyed += 1
                    gone = models == 0
                else:
                    suppressed = True
    rally_failed = 0
    if not gone and suppressed:
        rally_failed = int(deck.pop() > 6 - disordered)
    return {
        "defender_models_lost": destroyed,
        "defender_suppressed": int(suppressed and not gone),
        "defender_fell_back": int(fell),
        "defender_broke": int(broke),
        "defender_annihilated": int(gone),
        "defender_rally_failed": rally_failed,
    }


def test_cascade_matches_naive_reference():
    """The kernel against the fast reference (0.5 pp power, tests/test_armoured_clash_reference.py)
    and against the hand-written trial above (20,000 trials), whole distributions."""
    a = _shooter((5,), name="a", models=1)
    b = _shooter((4,), name="b", models=1)
    tgt = Unit(
        "foot",
        models=6,
        defence=2,
        damage_limit=2,
        damage=1,
        discipline=6,
        break_limit=2,
        fall_back_losses=1,
        vp=5,
        officer="first",  # the reference loses the officer with the first casualty
    )
    sc = ArmouredClashScenario(
        (a, b, tgt),
        (Attack("a", "foot"), Attack("b", "foot", situation=Situation(aiming=True))),
    )
    kernel = kernel_counts(sc, 17)
    check_strong(sc, 17, "two shooters at a damaged unit")
    rng = random.Random(99)
    rows = [_naive_trial(rng) for _ in range(20_000)]
    assert_agree(kernel, per_trial_counts(rows), "two shooters: kernel vs the reference above")
    vp = kernel["attacker_vp"]
    assert vp[5] == kernel["defender_annihilated"][1] and vp.sum() == vp[0] + vp[5]


# -- scenario files -----------------------------------------------------------------------------
EXAMPLES = sorted(ROOT.glob("examples/armoured-clash-*.toml"))


def test_examples_exist_and_run():
    assert len(EXAMPLES) >= 2
    for path in EXAMPLES:
        out = simulate(load(path), trials=20_000, seed=1)
        assert out.trials == 20_000


def _base() -> dict:
    return {
        "ruleset": "armoured-clash",
        "units": {
            "tanks": {
                "side": "attacker",
                "type": "armour",
                "category": "heavy",
                "models": 2,
                "defence": 4,
                "damage_limit": 3,
                "discipline": 7,
                "ranged": [{"name": "gun", "dice": [3, 6]}],
            },
            "foot": {"side": "defender", "models": 6, "defence": 2, "discipline": 6},
        },
        "attacks": [{"attacker": "tanks", "target": "foot"}],
    }


def test_dict_scenario_loads():
    sc = from_dict(_base())
    assert isinstance(sc, ArmouredClashScenario) and sc.focus_unit == "foot"


@pytest.mark.parametrize(
    "patch, key",
    [
        (lambda d: d["units"]["tanks"].update(defence=0), r"units\.tanks\.defence"),
        (lambda d: d["units"]["foot"].update(damage=3), r"units\.foot\.damage"),
        (lambda d: d["units"]["foot"].update(colour="red"), r"units\.foot\.colour"),
        (lambda d: d["attacks"][0].update(target="ghosts"), r"attacks\[0\]\.target"),
        (lambda d: d["attacks"][0].update(weapon="laser"), r"attacks\[0\]\.weapon"),
        (lambda d: d["attacks"][0].update(kind="close"), r"attacks\[0\]\.weapon"),
        (lambda d: d.update(decks={"attacker": {"cards": []}}), r"decks\.attacker\.cards"),
        (lambda d: d["units"]["tanks"]["ranged"][0].update(dice=[3]), r"units\.tanks\.ranged"),
        (lambda d: d.update(die={"heroic": -1}), r"die\.heroic"),
        (
            lambda d: d["attacks"][0].update(extra_rerolls=["strike"]),
            r"attacks\[0\]\.extra_rerolls",
        ),
    ],
)
def test_bad_input_names_the_key(patch, key):
    d = _base()
    patch(d)
    with pytest.raises(ScenarioError, match=key):
        from_dict(d, source="bad.toml")


def test_same_histograms_at_1_and_2_threads():
    """Chunks are reseeded, so the thread count cannot change the result."""
    import json
    import os
    import subprocess
    import sys

    code = (
        "import json; from oddslab.engine import simulate; from oddslab.scenario import load;"
        "o = simulate(load('examples/armoured-clash-fire-sequence.toml'), trials=200000, seed=3);"
        "print(json.dumps({k: v.tolist() for k, v in o.counts.items()}))"
    )
    outs = []
    for threads in ("1", "2"):
        env = {**os.environ, "NUMBA_NUM_THREADS": threads, "PYTHONPATH": str(ROOT)}
        res = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert res.returncode == 0, res.stderr
        outs.append(json.loads(res.stdout.strip().splitlines()[-1]))
    assert outs[0] == outs[1]


def _naive_qc(rng: random.Random) -> dict[str, int]:
    """5 raiders (melee 1 die per model) charge 4 defenders (melee 1 per model); both
    DEFENCE 2, DAMAGE LIMIT 1, DISCIPLINE 6, officer lost with the first casualty; target
    BREAK LIMIT 1."""
    decks = {side: list(default_deck()) for side in ("a", "d")}
    for d in decks.values():
        rng.shuffle(d)
    a, t = 5, 4
    dis_a = dis_t = False
    sup_t = broke = gone = False
    k_t = _naive_pool(rng, a, 1) // 2
    k_t = min(k_t, t)
    t -= k_t
    dis_t = k_t > 0
    winner = 0
    sup_a = False
    if t == 0:
        gone, winner = True, 1
    else:
        k_a = min(_naive_pool(rng, t, 1) // 2, a)
        a -= k_a
        dis_a = k_a > 0
        if k_t > k_a:
            winner = 1
            disc = 6 - dis_t - (2 * k_t >= 4)
            if decks["d"].pop() > disc:
                if t <= 1:
                    broke = gone = True
                else:
                    sup_t = True
        elif k_a > k_t:
            winner = 2
            disc = 6 - dis_a - (2 * k_a >= 5)
            sup_a = decks["a"].pop() > disc
        else:
            winner = 3
    rally_failed = int(sup_t and not gone and decks["d"].pop() > 6 - dis_t)
    return {
        "attacker_won_close_quarters": int(winner == 1),
        "defender_won_close_quarters": int(winner == 2),
        "close_quarters_stalemate": int(winner == 3),
        "defender_suppressed": int(sup_t and not gone),
        "defender_broke": int(broke),
        "defender_annihilated": int(gone),
        "defender_rally_failed": rally_failed,
        "attacker_suppressed": int(sup_a),
    }


def test_close_quarters_matches_naive_reference():
    """The kernel against the fast reference (0.5 pp power) and against the hand-written
    close quarters above (20,000 trials), whole distributions."""
    att = Unit(
        "raiders", side="attacker", models=5, defence=2, discipline=6, officer="first",
        armaments=Armaments(melee=(1, 2, 3, 4, 5)),
    )  # fmt: skip
    tgt = Unit(
        "foot", models=4, defence=2, discipline=6, break_limit=1, officer="first",
        armaments=Armaments(melee=(1, 2, 3, 4)),
    )  # fmt: skip
    sc = ArmouredClashScenario((att, tgt), (Attack("raiders", "foot", kind="close"),))
    check_strong(sc, 23, "raiders charge")
    rng = random.Random(5)
    rows = [_naive_qc(rng) for _ in range(20_000)]
    assert_agree(kernel_counts(sc, 23), per_trial_counts(rows), "raiders charge: kernel vs above")


# -- resolved(), WARMUP, names -------------------------------------------------------------------
def test_resolved_shows_derived_values():
    sc = load(ROOT / "examples/armoured-clash-ranged-suppression.toml")
    r = sc.resolved()
    assert list(r)[0] == "scenario"
    for section in r.values():
        for label, value in section.items():
            assert isinstance(value, (str, int, float, bool)), (label, value)
    step = r["step 1: panzers → grenadiers (ranged attack)"]
    assert step["attack dice"] == "6 (3 models)"
    assert step["combat rating"].startswith("neutral (bonuses: short range; penalties: concealed")
    assert step["re-rolls"].startswith("glancing strikes")
    assert r["unit: grenadiers"]["BREAK LIMIT"] == 3
    assert r["unit: grenadiers"]["VP rating"].startswith("6 (reinforced")


def test_warmup_compiles_the_kernel_with_the_real_dtypes():
    from oddslab.rulesets.armoured_clash import WARMUP

    warm = from_dict(WARMUP).compile()
    real = load(ROOT / "examples/armoured-clash-close-quarters.toml").compile()
    assert warm.kernel is real.kernel
    for a, b in zip(warm.params, real.params, strict=True):
        assert (a.dtype, a.ndim) == (b.dtype, b.ndim)
    assert simulate(from_dict(WARMUP), trials=10, seed=1).trials == 10


def test_names_say_whose_fate_and_primary():
    sc = load(ROOT / "examples/armoured-clash-close-quarters.toml")
    job = sc.compile()
    names = [s.name for s in job.stats]
    assert job.meta["primary"] == "defender_models_lost"
    assert "defender_models_lost" in names and "attacker_models_lost" in names
    assert "defender_fell_back" not in names  # one test, not suppressed: cannot fall back
    assert "defender_vp" not in names  # the stormtroopers cannot be annihilated here
    for s in job.stats:
        assert "_" not in s.title, s.title
    for h in job.headlines:
        assert "_" not in h.label, h.label
    # a single-model focus unit: damage, not a 0/1 model count
    tank = Unit("tank", type="behemoth", category="heavy", models=1, defence=2,
                damage_limit=6, discipline=8)  # fmt: skip
    one = ArmouredClashScenario((_shooter((6,), models=1), tank), (Attack("guns", "tank"),))
    assert one.compile().meta["primary"] == "damage_on_defender"


def test_unit_library_entries_are_valid_units():
    """Every entry of the Armoured Clash unit library is a valid unit table (points aside):
    it fires at, or is fired at by, a plain target in a scenario that loads."""
    import tomllib

    lib = tomllib.loads((ROOT / "oddslab/examples/libraries/armoured-clash.toml").read_text())
    assert lib["ruleset"] == "armoured-clash"
    for name, entry in lib["units"].items():
        unit = {k: v for k, v in entry.items() if k not in ("points", "points_per_model")}
        d = _base()
        d["units"]["entry"] = {**unit, "side": "defender"}
        d["attacks"] = [{"attacker": "tanks", "target": "entry"}]
        if unit.get("category") == "heavy":
            d["units"]["tanks"]["ranged"][0]["vs"] = ["light", "heavy"]
        assert from_dict(d, source=name).compile().stats, name
