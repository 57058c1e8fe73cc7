"""Vom Kriege against its rule text: small scenarios worked by hand (or by exact enumeration)
from the text's own sentences — artillery fire, musketry, defensive fire, melee and battle
back, squares, retreats, retire, removal and the leader cascade, command dice.

Deterministic cases use a custom die (``[dice] faces``) so every roll is known: a die of two
flag faces always shows a flag, two blank faces never score."""

from __future__ import annotations

import pytest

import oddslab
from oddslab.rulesets.vom_kriege import (
    Action,
    CommandScenario,
    Dice,
    Leader,
    Order,
    Rules,
    Unit,
    VomKriegeScenario,
    command_points,
)
from tests.stats import assert_prob

N = 2_000  # deterministic answers: any trial count shows them
NS = 500_000  # statistical ones (a 0.5 pp error fails: stats.assert_prob)

FLAGS = ("flag", "flag")
BLANKS = ("blank", "blank")
SABERS = ("saber", "saber")
INFANTRY = ("infantry", "infantry")


def _sc(units, actions, faces=None, leaders=(), **rules):
    return VomKriegeScenario(
        units=tuple(units),
        actions=tuple(actions),
        leaders=tuple(leaders),
        dice=Dice(tuple(faces)) if faces else Dice(),
        rules=Rules(**rules),
    )


def _run(sc, trials=N, seed=11):
    return oddslab.simulate(sc, trials=trials, seed=seed)


# -- shooting ----------------------------------------------------------------------------------
def test_artillery_at_an_enfiladed_column_exact():
    """8-gun light at 12" = 3 fire points; "Artillery target is enfiladed, square, or column
    +1" is one row, so an enfiladed column gets +1 once: 4 dice. Each die hits infantry with
    1/2 (two infantry faces and the saber): P(no hit) = 1/16, mean 2 hits, 2/3 flags."""
    sc = _sc(
        [
            Unit("guns", "attacker", "artillery", kind="light", guns=8),
            Unit("col", "defender", "infantry", formation="column"),
        ],
        [Action("shoot", "guns", "col", range=12, enfilade=True)],
    )
    pmf = sc.exact_pmfs()
    assert len(pmf["attacker_dice_rolled"]) - 1 >= 4 and pmf["attacker_dice_rolled"][4] == 1.0
    assert pmf["hits_on_defender"][0] == pytest.approx(1 / 16)
    assert pmf["hits_on_defender"][4] == pytest.approx(1 / 16)
    flags = pmf["flags_on_defender"]
    assert sum(k * p for k, p in enumerate(flags)) == pytest.approx(4 / 6)


def test_shaken_two_rank_line_at_a_target_in_woods_exact():
    """Musketry: a 2-rank line at close range has 4 fire points, +1 "2-rank line firing at
    close range", -1 "Target in woods", -1 "Shooter is shaken (hits=strength-1)" (3 hits of
    4): 3 dice. Against infantry: P(no hit) = (1/2)^3, P(no hit and no flag) = (2/6)^3."""
    sc = _sc(
        [
            Unit("a", "attacker", "infantry", formation="two_rank_line", hits=3),
            Unit("d", "defender", "infantry", terrain="woods"),
        ],
        [Action("shoot", "a", "d", range=3)],
    )
    pmf = sc.exact_pmfs()
    assert pmf["attacker_dice_rolled"][3] == 1.0
    assert pmf["hits_on_defender"][0] == pytest.approx(1 / 8)
    ex = oddslab.exact(sc)
    # 3 dice cannot bring a fresh unit (4) to maximum: it retreats exactly when a flag shows
    assert ex.prob("defender_retreated") == pytest.approx(1 - (5 / 6) ** 3)
    assert ex.prob("defender_broken") == 0.0


def test_halving_never_below_one_die():
    """A conscript column (strength 3) with 2 hits is shaken: 2 - 1 = 1 fire point; its
    shooting marker halves it: "When halving Fire points round down but no less than 1": 1
    die, which hits infantry with 1/2."""
    sc = _sc(
        [
            Unit(
                "a",
                "attacker",
                "infantry",
                quality="conscript",
                formation="column",
                hits=2,
                shooting_marker=True,
            ),
            Unit("d", "defender", "infantry"),
        ],
        [Action("shoot", "a", "d", range=3)],
    )
    pmf = sc.exact_pmfs()
    assert pmf["attacker_dice_rolled"][1] == 1.0
    assert pmf["hits_on_defender"][1] == pytest.approx(1 / 2)


# -- defensive fire ------------------------------------------------------------------------------
def test_defensive_fire_from_a_unit_with_a_shooting_marker():
    """Defensive fire is shooting at close range ("refer melee and shooting"): a line that
    has already fired this initiative (marker: x1/2) fires 4 / 2 = 2 dice at the charging
    line. Two hits cannot bring it to maximum, so the charge reaches melee exactly when no
    flag shows: (5/6)^2 = 0.6944."""
    sc = _sc(
        [
            Unit("a", "attacker", "infantry"),
            Unit("d", "defender", "infantry", shooting_marker=True),
        ],
        [Action("melee", "a", "d", reaction="defensive_fire")],
    )
    out = _run(sc, NS)
    assert_prob(out.prob("attacker_reached_melee"), (5 / 6) ** 2, NS)
    assert out.mean("defender_dice_rolled") >= 2.0  # 2 defensive-fire dice, then battle back


# -- melee, battle back, retreats -----------------------------------------------------------------
def test_flags_drive_the_defender_back_with_no_battle_back():
    """Every die a flag: the line's 4 dice are 4 flags, "Units retreat 1/2 move per flag":
    the column retreats 4 half moves and is disordered; having retreated, it does not battle
    back, and the attacker stays where it is (no fall-back)."""
    sc = _sc(
        [Unit("a", "attacker", "infantry"), Unit("d", "defender", "infantry", formation="column")],
        [Action("melee", "a", "d", reaction="none")],
        faces=FLAGS,
    )
    out = _run(sc)
    assert out.mean("defender_retreat_half_moves") == 4.0
    assert out.prob("defender_disordered") == 1.0
    assert out.mean("defender_hits") == 0.0
    assert out.mean("defender_dice_rolled") == 0.0
    assert out.prob("attacker_fell_back") == 0.0


def test_a_blocked_retreat_is_one_hit_and_the_defender_battles_back():
    """ "Impassable terrain features ... will prevent a unit's retreat, resulting in 1 hit":
    the 4 flags are 1 hit, no move. The column did not retreat and faces the attacker, so it
    battles back with 4 dice (all flags): the attacker retreats 4 half moves, disordered."""
    sc = _sc(
        [
            Unit("a", "attacker", "infantry"),
            Unit("d", "defender", "infantry", formation="column", retreat_blocked=True),
        ],
        [Action("melee", "a", "d", reaction="none")],
        faces=FLAGS,
    )
    out = _run(sc)
    assert out.mean("defender_hits") == 1.0
    assert out.prob("defender_retreated") == 0.0
    assert out.mean("defender_dice_rolled") == 4.0
    assert out.mean("attacker_retreat_half_moves") == 4.0
    assert out.prob("attacker_disordered") == 1.0


def test_irregular_cavalry_battles_back_and_the_attacker_falls_back():
    """Blank dice score nothing. Cossacks (irregular, strength 4) hold and battle back
    against a non-disordered line: 4 - 2 ("Irregular versus non-disordered") = 2 dice. The
    units are "still adjacent at the end of a Battle Back", so the attacker retires 3"; the
    cossacks are disordered ("All cavalry units involved in the melee are disordered")."""
    sc = _sc(
        [
            Unit("a", "attacker", "infantry"),
            Unit("d", "defender", "cavalry", kind="light", quality="irregular"),
        ],
        [Action("melee", "a", "d", reaction="none")],
        faces=BLANKS,
    )
    out = _run(sc)
    assert out.mean("attacker_dice_rolled") == 4.0
    assert out.mean("defender_dice_rolled") == 2.0
    assert out.prob("attacker_fell_back") == 1.0
    assert out.prob("defender_disordered") == 1.0
    assert out.prob("attacker_disordered") == 0.0


def test_a_unit_at_maximum_hits_does_not_battle_back():
    """A unit at maximum hits has retreated and faces away from the enemy ("face away from
    the enemy"; it may change facing "except if at maximum hits"), and Battle Back needs a
    defender that "is facing the attacking unit". The attacker's 4 blank dice leave the
    routing line in place: no battle back, so the attacker stays in contact."""
    sc = _sc(
        [Unit("a", "attacker", "infantry"), Unit("d", "defender", "infantry", hits=4)],
        [Action("melee", "a", "d", reaction="none")],
        faces=BLANKS,
    )
    out = _run(sc)
    assert out.mean("attacker_dice_rolled") == 4.0
    assert out.mean("defender_dice_rolled") == 0.0
    assert out.prob("attacker_fell_back") == 0.0
    assert "maximum hits" in sc.resolved()["action 1: a melees d"]["battle back"]


def test_elite_attack_removes_a_conscript_and_its_leader_cascades():
    """Every die an infantry symbol. Elite line: strength 5 + 1 ("Elite / Conscript +1/-1")
    = 6 dice = 6 hits on a conscript line (strength 3): the third hit is its maximum (it
    retreats 1 move), the fourth is a hit on a unit "already at their maximum hits": removed.
    Its leader had 2 hits: the third removes him with all his units, and the Army leader
    "suffers 1 hit"."""
    units = [
        Unit("a", "attacker", "infantry", quality="elite"),
        Unit("d", "defender", "infantry", quality="conscript", leader="div"),
        Unit("d2", "defender", "infantry", leader="div"),
    ]
    leaders = [
        Leader("div", "defender", hits=2, units=3),
        Leader("army", "defender", hits=0, army=True),
    ]
    sc = _sc(units, [Action("melee", "a", "d", reaction="none")], faces=INFANTRY, leaders=leaders)
    out = _run(sc)
    assert out.mean("attacker_dice_rolled") == 6.0
    assert out.prob("defender_removed") == 1.0
    assert out.prob("defender_leader_removed") == 1.0
    assert out.mean("defender_command_units_removed") == 3.0
    assert out.mean("defender_army_leader_hits") == 1.0
    assert out.mean("defender_side_units_removed") == 2.0


def test_cavalry_brought_to_maximum_in_a_melee_routs():
    """A march column melees at strength 1: 1 die, a saber. The cavalry (3 hits of 4) reaches
    its maximum: it retreats 1 move and is disordered. Step 7 ("All cavalry units involved in
    the melee are disordered") finds it disordered already, so it is not a unit that
    "receive[s] a ... disorder" at maximum hits: it routs, it is not removed (the reading on
    the doc page)."""
    sc = _sc(
        [
            Unit("a", "attacker", "infantry", formation="march_column"),
            Unit("d", "defender", "cavalry", kind="light", hits=3),
        ],
        [Action("melee", "a", "d", reaction="none")],
        faces=SABERS,
    )
    out = _run(sc)
    assert out.mean("attacker_dice_rolled") == 1.0
    assert out.prob("defender_at_max_hits") == 1.0
    assert out.prob("defender_removed") == 0.0
    assert out.mean("defender_retreat_half_moves") == 2.0


def test_battle_back_into_woods():
    """Battle back is Step 3 "in the same manner as the attacker": a line battling back at an
    attacker standing in woods melees into woods, 4 - 1 = 3 dice (the reading on the doc
    page)."""
    sc = _sc(
        [Unit("a", "attacker", "infantry", terrain="woods"), Unit("d", "defender", "infantry")],
        [Action("melee", "a", "d", reaction="none")],
        faces=BLANKS,
    )
    out = _run(sc)
    assert out.mean("attacker_dice_rolled") == 4.0
    assert out.mean("defender_dice_rolled") == 3.0


# -- squares -------------------------------------------------------------------------------------
def test_form_square_with_two_hits_and_disorder():
    """ "Roll up to 4 command dice ... Subtract 1 command die if 2 or more hits, and subtract
    1 command dice if unit is disordered": 2 dice, a square with P = 1 - (4/6)^2 = 5/9."""
    sc = _sc(
        [
            Unit("hussars", "attacker", "cavalry", kind="light"),
            Unit("line", "defender", "infantry", hits=2, disordered=True),
        ],
        [Action("melee", "hussars", "line", reaction="form_square")],
    )
    assert sc.square_test() == (2, pytest.approx(5 / 9))
    assert oddslab.exact(sc).prob("defender_formed_square") == pytest.approx(5 / 9)


def test_cavalry_against_a_square_with_flags_only():
    """Every die a flag. Cavalry attacking a square rolls 1 die ("the battle dice rolled is 1
    with no adjustments"): its flag is 1 hit on the square ("infantry in square which take 1
    hit per flag"), which does not retreat. The square battles back (strength 1: 1 die, a
    flag) and "will always result in a retreat of half a move by the cavalry": 1 half move;
    the cavalry is disordered."""
    sc = _sc(
        [
            Unit("cuir", "attacker", "cavalry", kind="heavy"),
            Unit("sq", "defender", "infantry", formation="square"),
        ],
        [Action("melee", "cuir", "sq", reaction="none")],
        faces=FLAGS,
    )
    out = _run(sc)
    assert out.mean("attacker_dice_rolled") == 1.0
    assert out.mean("defender_hits") == 1.0
    assert out.prob("defender_retreated") == 0.0
    assert out.mean("defender_dice_rolled") == 1.0
    assert out.mean("attacker_retreat_half_moves") == 1.0
    assert out.prob("attacker_disordered") == 1.0


# -- retire --------------------------------------------------------------------------------------
def test_cavalry_retires_from_infantry_and_flags_do_nothing():
    """Retire step 1: "Only a saber will score a hit on the defending unit": 4 flags score
    nothing, the cavalry retires (not a retreat: no half moves), no battle back."""
    sc = _sc(
        [Unit("a", "attacker", "infantry"), Unit("d", "defender", "cavalry", kind="light")],
        [Action("melee", "a", "d", reaction="retire")],
        faces=FLAGS,
    )
    out = _run(sc)
    assert out.prob("defender_retired") == 1.0
    assert out.mean("defender_hits") == 0.0
    assert out.mean("defender_retreat_half_moves") == 0.0
    assert out.mean("defender_dice_rolled") == 0.0
    assert out.prob("attacker_reached_melee") == 0.0


# -- command dice --------------------------------------------------------------------------------
def test_command_points_from_the_text():
    """CP = units / 2 rounded up, at most 4, + bonus markers - leader hits, within 1-6."""
    assert command_points(7) == 4
    assert command_points(7, bonus=1, leader_hits=2) == 3
    assert command_points(3, leader_hits=2) == 1  # 2 - 2 = 0: no less than 1
    assert command_points(9, bonus=3) == 6  # 7: no more than 6


def test_rally_order_from_one_die_with_an_l1_reroll():
    """A Rally order needs its symbol (the flag): one die, 1/6; an L1 leader rerolls it once:
    1 - (5/6)^2 = 11/36."""
    rally = (Order("rally"),)
    assert CommandScenario(cp=1, rerolls=0, orders=rally).probability() == pytest.approx(1 / 6)
    assert CommandScenario(cp=1, rerolls=1, orders=rally).probability() == pytest.approx(11 / 36)


def test_far_unit_costs_an_extra_die():
    """ "Unit/group further than 12 inches from the command leader": 1 additional die. Two
    dice, an L0 leader, a cavalry order for a far unit: one die showing cavalry or a saber
    (an Assault order orders any unit) and any second die; a pair swap would leave one die.
    P = 1 - (4/6)^2 = 5/9."""
    sc = CommandScenario(cp=2, rerolls=0, orders=(Order("cavalry", far=True),))
    assert sc.probability() == pytest.approx(5 / 9)
