"""Vom Kriege melee readings by hand-worked answers: retire (a blocked retreat forbids it,
batteries still fire at the charger, the attacker's follow-up, retiring cavalry disordered),
a square's battle back against cavalry, cavalry battling back against a square that attacked
it, cavalry disordered by rough terrain, the order bonus and supports row, skirmish targets
and blocked retreats; then the kernel against the pure-Python reference
(tests/naive_vom_kriege.py) under every one of these switches."""

from __future__ import annotations

import math

import pytest
from test_vom_kriege_kernel import _compare

import oddslab
from oddslab.rulesets.vom_kriege import kernel as K
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Rules, Unit
from oddslab.rulesets.vom_kriege.packing import fresh_state, pack
from tests.stats import P_MIN, assert_prob, chisquare_pmf

N = 20_000  # deterministic answers: any trial count shows them
NS = 1_000_000  # statistical ones


def _run(sc, trials=N, seed=3):
    return oddslab.simulate(sc, trials=trials, seed=seed)


def _infantry_at_cavalry(blocked=False, batteries=(), follow_up=None, **rules):
    """A line charges cavalry that chooses to retire (the text's case: "contacted by
    infantry")."""
    units = [
        Unit("inf", "attacker", "infantry"),
        Unit("cav", "defender", "cavalry", retreat_blocked=blocked),
        Unit("bat", "defender", "artillery", kind="heavy", guns=8),
        Unit("inf2", "defender", "infantry"),
    ]
    act = Action("melee", "inf", "cav", reaction="retire", batteries=batteries, follow_up=follow_up)
    return VomKriegeScenario(units=tuple(units), actions=(act,), rules=Rules(**rules))


# -- retire ----------------------------------------------------------------------------------
def test_a_unit_whose_retreat_is_blocked_cannot_retire():
    """ "A unit ... may not Retire if it cannot make a basic move towards its side": the
    reaction is not available, so the cavalry stands and the charge reaches melee."""
    out = _run(_infantry_at_cavalry(blocked=True))
    assert out.prob("defender_retired") == 0.0
    assert out.prob("attacker_reached_melee") == 1.0
    free = _run(_infantry_at_cavalry(blocked=False))
    assert free.prob("defender_retired") == 1.0  # 4 saber dice cannot remove it (strength 4)
    assert free.prob("attacker_reached_melee") == 0.0
    text = _infantry_at_cavalry(blocked=True).resolved()["action 1: inf melees cav"]
    assert "not possible" in text["reaction"]


def test_batteries_fire_at_a_charger_whose_target_retires():
    """The 8-gun heavy battery at 6" (4 dice, 1/2 hit and 1/6 flag against infantry) fires
    "before it makes contact": the charge goes on only with no flag and fewer than 4 hits,
    (5/6)^4 - (1/2)^4 = 0.41975, and only then does the cavalry retire."""
    sc = _infantry_at_cavalry(batteries=(Battery("bat", 6),))
    out = _run(sc, NS)
    p = (5 / 6) ** 4 - (1 / 2) ** 4
    assert_prob(out.prob("defender_retired"), p, NS)
    # stopped: a flag, or a fourth hit (maximum: a full move back); never removed here
    assert_prob(out.prob("attacker_retreated"), 1 - p, NS)
    assert out.prob("attacker_reached_melee") == 0.0  # a retire is no exchange of melee dice


def test_infantry_follows_up_after_a_retire():
    """Retire step 3: "The attacking unit may conduct a melee follow-up after occupying the
    vacated position" — the attacker here is infantry (retire is against infantry)."""
    out = _run(_infantry_at_cavalry(follow_up="inf2"))
    assert out.prob("attacker_followed_up") == 1.0
    with pytest.raises(ValueError, match="only cavalry"):
        _infantry_at_cavalry(follow_up="inf2", retire_follow_up="cavalry")
    with pytest.raises(ValueError, match="retires"):  # no retire, no infantry follow-up
        VomKriegeScenario(
            units=(Unit("a", "attacker", "infantry"), Unit("d", "defender", "infantry")),
            actions=(Action("melee", "a", "d", follow_up="d2"),),
        )


def test_retiring_cavalry_is_disordered():
    """Step 7, "All cavalry units involved in the melee are disordered": the retiring
    cavalry had the melee dice rolled against it. Switched off, it is disordered only by
    reaching maximum hits: four sabers, (1/6)^4."""
    assert _run(_infantry_at_cavalry()).prob("defender_disordered") == 1.0
    out = _run(_infantry_at_cavalry(retiring_cavalry_disordered=False), NS)
    assert_prob(out.prob("defender_disordered"), (1 / 6) ** 4, NS)


# -- a square's battle back against cavalry --------------------------------------------------
def _cavalry_at_elite_square(**rules):
    """Hussars charge an elite square (no reaction): the square battles back with 2 dice
    (strength 1 + elite), each a flag with 1/6; the hussars' 1 die never moves it."""
    return VomKriegeScenario(
        units=(
            Unit("hus", "attacker", "cavalry"),
            Unit("sq", "defender", "infantry", formation="square", quality="elite"),
        ),
        actions=(Action("melee", "hus", "sq", reaction="none"),),
        rules=Rules(**rules),
    )


@pytest.mark.parametrize(
    ("reading", "pmf"),
    [
        ("at_least_half", [0, 35 / 36, 1 / 36, 0]),  # max(flags, 1)
        ("half", [0, 1, 0, 0]),  # always exactly half a move
        ("extra_half", [0, 25 / 36, 10 / 36, 1 / 36]),  # flags + 1
    ],
)
def test_square_battle_back_drives_cavalry_back(reading, pmf):
    out = _run(_cavalry_at_elite_square(square_battle_back=reading), NS)
    assert out.prob("attacker_retreated") == 1.0
    counts = out.counts["attacker_retreat_half_moves"]
    if reading == "half":
        assert counts[1] == counts.sum()
    else:
        assert chisquare_pmf(counts, pmf) > P_MIN


def _cavalry_at_square(faces=None, **rules):
    return VomKriegeScenario(
        units=(
            Unit("hus", "attacker", "cavalry"),
            Unit("sq", "defender", "infantry", formation="square"),
        ),
        actions=(Action("melee", "hus", "sq", reaction="none"),),
        dice=Dice(faces) if faces else Dice(),
        rules=Rules(**rules),
    )


def test_a_flag_rolled_by_cavalry_is_a_hit_on_a_square():
    """The hussars' 1 die against a square: "only hit with a saber" (troop symbols score
    nothing), and by default a flag is a hit too (squares "take 1 hit per flag");
    ``cavalry_square_flags = "ignore"``: the flag does nothing. All-flag dice show it."""
    flags = ("flag", "flag")
    assert _run(_cavalry_at_square(flags)).counts["defender_hits"][1] == N
    out = _run(_cavalry_at_square(flags, cavalry_square_flags="ignore"))
    assert out.counts["defender_hits"][0] == N
    assert out.prob("defender_retreated") == 0.0 and out.prob("attacker_retreated") == 1.0
    # the text's die: saber or flag, 1/3; flags ignored, saber only, 1/6
    for reading, p in (("hit", 1 / 3), ("ignore", 1 / 6)):
        out = _run(_cavalry_at_square(cavalry_square_flags=reading), NS)
        assert_prob(out.prob("defender_hits"), p, NS, what=reading)


# -- a square that attacks cavalry -----------------------------------------------------------
def _square_at_cavalry(faces=None, **rules):
    """A square (1 die, strength 1) attacks hussars, which stand (no reaction) and battle
    back with 4 dice unless the square's die is a flag (they retreat ½ move)."""
    return VomKriegeScenario(
        units=(
            Unit("sq", "attacker", "infantry", formation="square"),
            Unit("hus", "defender", "cavalry"),
        ),
        actions=(Action("melee", "sq", "hus", reaction="none"),),
        dice=Dice(faces) if faces else Dice(),
        rules=Rules(**rules),
    )


def test_cavalry_battling_back_hits_a_square_only_with_sabers():
    """ "Cavalry v Infantry in square only hit with a saber", whoever attacked: all-infantry
    dice (the square's die hits no cavalry) give the hussars' 4 battle-back dice no hit on
    the square; ``cavalry_square_sabers = "attacking"`` scores them as usual, 4 hits, the
    square's maximum (it retreats a full move)."""
    inf = ("infantry", "infantry")
    out = _run(_square_at_cavalry(inf))
    assert out.counts["attacker_dice_rolled"][1] == N
    assert out.counts["defender_dice_rolled"][4] == N
    assert out.counts["attacker_hits"][0] == N
    assert out.counts["hits_on_attacker"][0] == N
    assert out.prob("attacker_fell_back") == 1.0  # still adjacent after the battle back
    old = _run(_square_at_cavalry(inf, cavalry_square_sabers="attacking"))
    assert old.counts["attacker_hits"][4] == N
    assert old.prob("attacker_at_max_hits") == 1.0
    assert old.counts["attacker_retreat_half_moves"][2] == N


def _binom(n, p):
    return [math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1)]


@pytest.mark.parametrize(
    ("rules", "p"),
    [
        ({}, 2 / 6),  # saber, or a flag (1 hit on a square)
        ({"cavalry_square_flags": "ignore"}, 1 / 6),  # saber only
        ({"cavalry_square_sabers": "attacking"}, 4 / 6),  # infantry x2, saber, flag
    ],
    ids=["default", "flags-ignored", "attacking-only"],
)
def test_square_hits_from_cavalry_battle_back(rules, p):
    """The text's die: the square's die is a flag with 1/6 (the hussars retreat, no battle
    back); otherwise 4 dice each putting a hit on the square with ``p``."""
    out = _run(_square_at_cavalry(**rules), NS)
    pmf = [5 / 6 * q for q in _binom(4, p)]
    pmf[0] += 1 / 6
    assert chisquare_pmf(out.counts["attacker_hits"], pmf) > P_MIN


# -- cavalry disordered by rough terrain -----------------------------------------------------
def _cavalry_into_woods(**rules):
    return VomKriegeScenario(
        units=(
            Unit("hus", "attacker", "cavalry"),
            Unit("line", "defender", "infantry", terrain="woods"),
        ),
        actions=(Action("melee", "hus", "line", reaction="none"),),
        rules=Rules(**rules),
    )


def test_cavalry_disordered_by_rough_terrain():
    """Default: disordered "prior to the melee", the hussars fight at 4 - 2 (disordered) - 1
    (into woods) = 1 die. ``rough_charge = "stopped"``: an attacker that becomes disordered
    retires 3" (step 2) and never reaches melee."""
    out = _run(_cavalry_into_woods())
    assert out.prob("attacker_reached_melee") == 1.0
    assert out.counts["attacker_dice_rolled"][1] == N
    stopped = _run(_cavalry_into_woods(rough_charge="stopped"))
    assert stopped.prob("attacker_reached_melee") == 0.0
    assert stopped.prob("attacker_fell_back") == 1.0
    assert stopped.counts["attacker_dice_rolled"][0] == N


# -- the order bonus and supports row; skirmish targets --------------------------------------
def test_order_bonus_and_each_support_add_in_a_melee():
    """A flank attack (no battle back, no reaction) with the order bonus and 2 supports:
    4 + 1 + 2 = 7 dice; ``largest``: 4 + max(1, 2) = 6."""

    def sc(**rules):
        return VomKriegeScenario(
            units=(Unit("a", "attacker", "infantry"), Unit("d", "defender", "infantry")),
            actions=(
                Action(
                    "melee", "a", "d", order_bonus=True, supports=2, flank=True, reaction="none"
                ),
            ),
            rules=Rules(**rules),
        )

    assert _run(sc()).counts["attacker_dice_rolled"][7] == N
    assert _run(sc(order_support_row="largest")).counts["attacker_dice_rolled"][6] == N


def test_skirmish_target_exact():
    """A 6-gun light battery at 5" (2 fire points) at an (sk) line: 2 - 1 = 1 die, so
    P(1 hit) = 1/2 exactly; at open-order light infantry that is not (sk): 2 dice."""

    def shot(target, **rules):
        return VomKriegeScenario(
            units=(Unit("g", "attacker", "artillery", kind="light"), target),
            actions=(Action("shoot", "g", "t", range=5),),
            rules=Rules(**rules),
        ).exact_pmfs()

    sk = shot(Unit("t", "defender", "infantry", skirmish=True))
    assert sk["attacker_dice_rolled"][1] == 1.0
    assert sk["hits_on_defender"][1] == pytest.approx(1 / 2, abs=1e-12)
    screen = Unit("t", "defender", "infantry", kind="light", formation="open_order")
    assert shot(screen)["attacker_dice_rolled"][2] == 1.0
    assert shot(screen, skirmish_target="open_order")["attacker_dice_rolled"][1] == 1.0


# -- blocked retreats ------------------------------------------------------------------------
def test_blocked_retreat_disorders_only_with_the_switch():
    for flag, diso in ((False, 0), (True, 1)):
        sc = VomKriegeScenario(
            units=(
                Unit("a", "attacker", "infantry"),
                Unit("t", "defender", "infantry", retreat_blocked=True),
            ),
            actions=(Action("shoot", "a", "t"),),
            rules=Rules(blocked_retreat_disorders=flag),
        )
        T = pack(sc.arrays())
        W = fresh_state(T)
        K.resolve(T, W, 1, 0, 2, K.FM_NORMAL)  # two flags, nowhere to go: 1 hit
        assert W[1, L.S_HITS] == 1 and W[1, L.S_RETREAT_HM] == 0
        assert W[1, L.S_DISO] == diso


# -- the kernel against the reference under the switches -------------------------------------
def _retires(**rules):
    return VomKriegeScenario(
        units=(
            Unit("inf", "attacker", "infantry"),
            Unit("hus", "attacker", "cavalry", kind="lancers"),
            Unit("cav", "defender", "cavalry", hits=1),
            Unit("bat", "defender", "artillery", kind="heavy", guns=8),
            Unit("gren", "defender", "infantry", quality="elite"),
            Unit(
                "screen",
                "defender",
                "infantry",
                kind="light",
                formation="open_order",
                skirmish=True,
                retreat_blocked=True,
            ),
        ),
        actions=(
            Action(
                "melee",
                "inf",
                "cav",
                reaction="retire",
                batteries=(Battery("bat", 5),),
                follow_up="gren",
                follow_up_reaction="defensive_fire",
            ),
            Action("melee", "hus", "screen", reaction="retire", follow_up="bat"),
        ),
        rules=Rules(**rules),
    )


def _squares_and_woods(**rules):
    return VomKriegeScenario(
        units=(
            Unit("guns", "attacker", "artillery", kind="light", guns=8),
            Unit("line", "attacker", "infantry", formation="two_rank_line"),
            Unit("hus", "attacker", "cavalry", hits=1),
            Unit("drag", "attacker", "cavalry", kind="heavy"),
            Unit("sq", "defender", "infantry", formation="square", quality="elite"),
            Unit("wood", "defender", "infantry", terrain="woods", skirmish=True, hits=1),
            Unit("edge", "defender", "infantry", retreat_blocked=True, hits=1),
        ),
        actions=(
            Action("shoot", "guns", "wood", range=5, order_bonus=True, supports=1),
            Action("shoot", "line", "edge", order_bonus=True, supports=2),
            Action("melee", "hus", "sq", reaction="defensive_fire"),
            Action("melee", "drag", "wood", order_bonus=True, supports=1, reaction="none"),
        ),
        rules=Rules(**rules),
    )


def _squares_attack(**rules):
    """Two squares attack cavalry: an elite one (2 dice) hussars, a shaken one heavy cavalry
    with 1 hit (the battle back: 4 + 1 heavy dice)."""
    return VomKriegeScenario(
        units=(
            Unit("gren", "attacker", "infantry", formation="square", quality="elite"),
            Unit("sq", "attacker", "infantry", formation="square", hits=2),
            Unit("hus", "defender", "cavalry"),
            Unit("cuir", "defender", "cavalry", kind="heavy", hits=1),
        ),
        actions=(
            Action("melee", "gren", "hus", order_bonus=True),
            Action("melee", "sq", "cuir", reaction="none"),
        ),
        rules=Rules(**rules),
    )


CASES = {
    "retires": lambda: _retires(retire_vs_cavalry=True),
    "retires-switched": lambda: _retires(
        retire_vs_cavalry=True, retiring_cavalry_disordered=False, dice_state="before_melee"
    ),
    "squares-and-woods": lambda: _squares_and_woods(),
    "squares-and-woods-switched": lambda: _squares_and_woods(
        square_battle_back="extra_half",
        rough_charge="stopped",
        skirmish_target="either",
        order_support_row="largest",
        blocked_retreat_disorders=True,
        cavalry_square_flags="ignore",
    ),
    "squares-half": lambda: _squares_and_woods(
        square_battle_back="half", skirmish_target="open_order"
    ),
    "squares-attack": lambda: _squares_attack(),
    "squares-attack-flags-ignored": lambda: _squares_attack(cavalry_square_flags="ignore"),
    "squares-attack-attacking-only": lambda: _squares_attack(cavalry_square_sabers="attacking"),
}


@pytest.mark.statistical
@pytest.mark.parametrize("case", list(CASES))
def test_kernel_matches_naive_reference(case):
    _compare(CASES[case]())


def test_retire_follow_up_switch_keeps_cavalry_follow_ups():
    """With ``retire_follow_up = "cavalry"`` hussars still follow up after a screen retires
    from them (``retire_vs_cavalry``): the retire vacates the position like a retreat (their
    4 saber-only dice cannot remove the screen)."""
    sc = VomKriegeScenario(
        units=(
            Unit("hus", "attacker", "cavalry"),
            Unit("screen", "defender", "infantry", kind="light", formation="open_order"),
            Unit("bat", "defender", "artillery"),
        ),
        actions=(Action("melee", "hus", "screen", reaction="retire", follow_up="bat"),),
        rules=Rules(retire_vs_cavalry=True, retire_follow_up="cavalry"),
    )
    out = _run(sc)
    assert out.prob("defender_retired") == 1.0
    assert out.prob("attacker_followed_up") == 1.0
