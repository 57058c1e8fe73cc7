"""Vom Kriege tables: face tables, exact hit/flag PMFs (vs icepool), the form-square test,
and every shooting and melee adjustment row by a hand-worked case; the kernel's dice counts
agree with the Python tables on every combination."""

from __future__ import annotations

from dataclasses import replace

import icepool
import pytest

from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.model import Dice, Rules, Unit
from oddslab.rulesets.vom_kriege.tables import (
    face_tables,
    hit_flag_probs,
    hits_flags_pmf,
    melee_dice,
    shooting_dice,
    square_test_dice,
    square_test_probability,
)

R0 = Rules()


def inf(**kw) -> Unit:
    return Unit(**{"name": "i", "side": "attacker", "troop": "infantry", **kw})


def cav(**kw) -> Unit:
    return Unit(**{"name": "c", "side": "attacker", "troop": "cavalry", **kw})


def art(**kw) -> Unit:
    return Unit(**{"name": "a", "side": "attacker", "troop": "artillery", **kw})


def tgt(**kw) -> Unit:
    return Unit(**{"name": "t", "side": "defender", "troop": "infantry", **kw})


def fire(shooter, target, band=0, rules=R0, **kw) -> int:
    return shooting_dice(shooter, target, band, rules, **kw)[0]


def fight(unit, opp, attacking=True, rules=R0, **kw) -> int:
    return melee_dice(unit, opp, attacking, rules, **kw)[0]


# -- dice --------------------------------------------------------------------------------------
def test_default_die_and_face_tables():
    assert Dice().faces == ("infantry", "infantry", "cavalry", "artillery", "saber", "flag")
    hit, flag, sym = face_tables(Dice(), R0)
    assert hit.shape == (3, 3, 6) and flag.tolist() == [0, 0, 0, 0, 0, 1]
    assert hit[1, L.INF].tolist() == [1, 1, 0, 0, 1, 0]  # two infantry + saber
    assert hit[1, L.CAV].tolist() == [0, 0, 1, 0, 1, 0]
    assert hit[2, L.INF].tolist() == [0, 0, 0, 0, 1, 0]  # sabers only (cavalry v square)
    assert hit_flag_probs(Dice(), R0, 0, "infantry") == (0.5, 1 / 6)
    melee_only = Rules(sabers="melee")
    assert hit_flag_probs(Dice(), melee_only, 0, "infantry") == (1 / 3, 1 / 6)
    assert hit_flag_probs(Dice(), melee_only, 1, "artillery") == (1 / 3, 1 / 6)


@pytest.mark.parametrize("troop", ["infantry", "cavalry", "artillery"])
@pytest.mark.parametrize("n", [1, 3, 5])
def test_hits_flags_pmf_matches_icepool(troop, n):
    ph, pf = hit_flag_probs(Dice(), R0, 0, troop)
    ours = hits_flags_pmf(n, ph, pf)
    faces = Dice().faces
    die = icepool.Die(
        [(int(f == troop or f == "saber"), int(f == "flag")) for f in faces]
    )  # each face -> (hit, flag)
    pool = n @ die.map(lambda hf: hf[0] * 100 + hf[1])
    for outcome, q in pool.items():
        h, f = divmod(outcome, 100)
        assert abs(ours[h, f] - float(q) / pool.denominator()) < 1e-12
    assert abs(ours.sum() - 1) < 1e-12


def test_custom_layout_changes_probabilities():
    d = Dice(("infantry", "cavalry", "artillery", "saber", "flag", "blank"))
    assert hit_flag_probs(d, R0, 1, "infantry") == (2 / 6, 1 / 6)
    with pytest.raises(ValueError, match="faces"):
        Dice(("infantry", "dragon"))


@pytest.mark.parametrize("n", range(0, 5))
def test_form_square_probability(n):
    assert square_test_probability(n, Dice()) == pytest.approx(
        0.0 if n == 0 else 1 - (4 / 6) ** n, abs=1e-15
    )


def test_form_square_dice():
    assert square_test_dice(0, False) == 4
    assert square_test_dice(1, False) == 4
    assert square_test_dice(2, False) == 3
    assert square_test_dice(2, True) == 2
    assert square_test_dice(0, True) == 3


# -- shooting: every row -------------------------------------------------------------------
def test_fire_points_infantry():
    t = tgt()
    assert fire(inf(), t) == 4  # line, close
    assert fire(inf(formation="column"), t) == 2
    assert fire(inf(kind="light", formation="open_order"), t) == 2
    assert fire(inf(terrain="woods"), t) == 2
    assert fire(inf(terrain="bua"), t) == 2
    assert fire(inf(kind="light", formation="open_order", terrain="woods"), t) == 2
    assert fire(inf(formation="square"), t) == 1
    assert fire(inf(formation="march_column"), t) == -1
    assert fire(cav(), t) == -1
    assert fire(inf(), t, band=2) == -1  # infantry range is 3"


def test_square_fire_takes_no_adjustments():
    s = inf(formation="square", disordered=True, shooting_marker=True)
    assert fire(s, tgt(terrain="woods"), order_bonus=True, supports=2, obscured=True) == 1


def test_skirmish_fire():
    t = tgt()
    assert fire(inf(skirmish=True), t, band=1) == 1
    assert fire(inf(skirmish=True, formation="column"), t, band=1) == 1
    sk_open = inf(kind="light", skirmish=True, formation="open_order")
    assert fire(sk_open, t, band=1) == 2
    assert fire(replace(sk_open, terrain="woods"), t, band=1) == 2
    assert fire(inf(skirmish=True, terrain="woods"), t, band=1) == -1
    assert fire(inf(skirmish=True, terrain="bua"), t, band=1) == -1
    assert fire(inf(skirmish=True, formation="square"), t, band=1) == -1
    assert fire(inf(), t, band=1) == -1  # not (sk)
    # no adjustments: disordered, marker, order bonus, supports change nothing
    busy = replace(sk_open, disordered=True, shooting_marker=True)
    assert fire(busy, t, band=1, order_bonus=True, supports=2) == 2
    assert fire(sk_open, t, band=1, rules=Rules(skirmish_dice="one")) == 1


def test_fire_points_artillery():
    t = tgt()
    assert [fire(art(guns=8, kind="heavy"), t, band=b) for b in range(5)] == [5, 4, 3, 2, 1]
    assert [fire(art(guns=8, kind="light"), t, band=b) for b in range(5)] == [4, 3, 3, 2, 1]
    assert [fire(art(guns=6, kind="heavy"), t, band=b) for b in range(5)] == [4, 3, 3, 2, 1]
    assert [fire(art(guns=6, kind="light"), t, band=b) for b in range(5)] == [3, 2, 2, 1, 1]
    assert fire(art(kind="horse"), t) == 3  # reads as 6-gun light by default
    assert fire(art(kind="horse"), t, rules=Rules(horse_artillery="heavy")) == 4
    assert fire(art(formation="limbered"), t) == -1


LARGEST = Rules(order_support_row="largest")


def test_order_bonus_and_fire_support():
    """ "Order bonus, or for each fire support unit: +1": +1 for the order bonus and +1 for
    each support (line 4 + 1 + 2 = 7); ``largest`` counts only the larger (4 + max(1, 2))."""
    assert fire(inf(), tgt(), order_bonus=True) == 5
    assert fire(inf(), tgt(), supports=2) == 6
    assert fire(inf(), tgt(), order_bonus=True, supports=1) == 6
    assert fire(inf(), tgt(), order_bonus=True, supports=2) == 7
    assert fire(inf(), tgt(), rules=LARGEST, order_bonus=True, supports=1) == 5
    assert fire(inf(), tgt(), rules=LARGEST, order_bonus=True, supports=2) == 6
    assert fire(art(guns=8, kind="heavy"), tgt(), order_bonus=True, supports=1) == 7  # 5 + 2


def test_two_rank_line_close():
    assert fire(inf(formation="two_rank_line"), tgt()) == 5


def test_artillery_target_enfiladed_square_column():
    a = art(guns=6, kind="heavy")
    assert fire(a, tgt(), band=1) == 3
    assert fire(a, tgt(formation="column"), band=1) == 4
    assert fire(a, tgt(formation="march_column"), band=1) == 4
    assert fire(a, tgt(formation="square"), band=0) == 5
    assert fire(a, tgt(), band=2, enfilade=True) == 4
    assert fire(a, tgt(formation="square"), band=2, enfilade=True) == 4  # one row: +1 once
    each = Rules(or_rows="each")  # every condition the row names adds
    assert fire(a, tgt(formation="square"), band=2, enfilade=True, rules=each) == 5
    assert (
        fire(a, tgt(formation="square"), band=2, enfilade=True, rules=Rules(or_rows="stack")) == 4
    )
    # read by who fires: infantry firing at a column gets nothing ...
    assert fire(inf(), tgt(formation="column")) == 4
    # ... unless the rows are read by the target
    assert fire(inf(), tgt(formation="column"), rules=Rules(artillery_rows="target")) == 5


def test_target_terrain_rows():
    assert fire(inf(), tgt(terrain="woods")) == 3
    assert fire(inf(), tgt(terrain="bua")) == 2  # infantry shooting at a BUA: -2
    assert fire(inf(), tgt(terrain="fieldworks")) == 2
    a8 = art(guns=8, kind="heavy")
    assert fire(a8, tgt(terrain="bua")) == 4  # artillery shooting at a BUA: -1
    assert fire(a8, tgt(terrain="woods")) == 4
    by_target = Rules(artillery_rows="target")
    assert fire(a8, tgt(terrain="bua"), rules=by_target) == 3  # infantry target: -2
    gun_target = art(name="t", side="defender", terrain="fieldworks")
    assert fire(inf(), gun_target, rules=by_target) == 3  # artillery target: -1


def test_artillery_at_skirmish_target():
    """ "Artillery target is skirmish at 3"-6"": by default an (sk) unit, in any
    formation; the switch reads it as open order, or either."""
    a = art(guns=6, kind="light")
    sk_line = tgt(skirmish=True)
    screen = tgt(kind="light", formation="open_order")
    sk_screen = tgt(kind="light", formation="open_order", skirmish=True)
    assert fire(a, sk_line, band=1) == 1  # 2 - 1
    assert fire(a, sk_screen, band=1) == 1
    assert fire(a, screen, band=1) == 2  # open order but not (sk): no row
    assert fire(a, sk_line, band=0) == 2  # "at 3-6" range": the 3" column too
    assert fire(a, sk_line, band=0, rules=Rules(skirmish_range="over_3")) == 3
    assert fire(a, sk_line, band=2) == 2
    opened = Rules(skirmish_target="open_order")
    assert fire(a, screen, band=1, rules=opened) == 1
    assert fire(a, sk_line, band=1, rules=opened) == 2
    either = Rules(skirmish_target="either")
    assert fire(a, screen, band=1, rules=either) == 1
    assert fire(a, sk_line, band=1, rules=either) == 1
    assert fire(a, tgt(), band=1, rules=either) == 2


def test_shaken_and_disordered_row():
    assert fire(inf(hits=3), tgt()) == 3
    assert fire(inf(disordered=True), tgt()) == 2
    assert fire(inf(hits=3, disordered=True), tgt()) == 2  # one 'or' row: the larger
    assert fire(inf(hits=3, disordered=True), tgt(), rules=Rules(or_rows="stack")) == 1
    assert fire(inf(quality="elite", hits=4), tgt()) == 3  # elite strength 5: shaken at 4
    assert fire(inf(quality="elite", hits=3), tgt()) == 4


def test_halving_rows():
    assert fire(inf(shooting_marker=True), tgt()) == 2
    assert fire(inf(), tgt(), obscured=True) == 2
    assert fire(inf(shooting_marker=True), tgt(), obscured=True) == 1
    assert fire(inf(formation="column", shooting_marker=True), tgt(), obscured=True) == 1
    # after (default): (4 - 2) / 2 = 1; before: 4 / 2 - 2 = 0
    d = inf(shooting_marker=True, disordered=True)
    assert fire(d, tgt()) == 1
    assert fire(d, tgt(), rules=Rules(halving="before")) == 0
    assert fire(d, tgt(), rules=Rules(halving="before", min_dice=1)) == 1
    # (5 + 1) / 2 = 3 versus 5 / 2 + 1 = 3; 8H at 6": (4 + 1) / 2 = 2 versus 4 / 2 + 1 = 3
    a = art(guns=8, kind="heavy", shooting_marker=True)
    assert fire(a, tgt(formation="column"), band=1) == 2
    assert fire(a, tgt(formation="column"), band=1, rules=Rules(halving="before")) == 3


def test_zero_dice_and_min_dice():
    c = inf(formation="column", disordered=True)
    assert fire(c, tgt()) == 0
    assert fire(c, tgt(), rules=Rules(min_dice=1)) == 1
    # "When halving Fire points round down but no less than 1": 0 halved is 1 die
    assert fire(replace(c, shooting_marker=True), tgt()) == 1
    positive = Rules(halving_floor="positive")  # a count at 0 or below is not halved
    assert fire(replace(c, shooting_marker=True), tgt(), rules=positive) == 0


# -- melee: every row ------------------------------------------------------------------------
def test_melee_strength_and_quality():
    t = tgt()
    assert fight(inf(), t) == 4
    assert fight(inf(quality="elite"), t) == 6  # strength 5, +1
    assert fight(inf(quality="conscript"), t) == 2  # strength 3, -1
    assert fight(inf(strength=6), t) == 6


def test_melee_order_and_supports():
    assert fight(inf(), tgt(), order_bonus=True) == 5
    assert fight(inf(), tgt(), supports=2) == 6
    assert fight(inf(), tgt(), order_bonus=True, supports=2) == 7  # +1 and +1 each
    assert fight(inf(), tgt(), rules=LARGEST, order_bonus=True, supports=2) == 6
    # the worked example's cuirassiers: 4 + 1 heavy + 1 order bonus + 1 support = 7
    assert fight(cav(kind="heavy"), tgt(), order_bonus=True, supports=1) == 7


def test_irregulars():
    cossacks = cav(kind="light", quality="irregular")
    assert fight(cossacks, tgt()) == 2
    assert fight(cossacks, tgt(disordered=True)) == 4


def test_heavy_cavalry_and_lancers():
    assert fight(cav(kind="heavy"), tgt()) == 5
    assert fight(cav(kind="heavy"), tgt(), attacking=False) == 5
    lancers = cav(kind="lancers")
    assert fight(lancers, tgt()) == 5
    assert fight(lancers, tgt(), attacking=False) == 4  # not charging
    horse = cav(name="t", side="defender")
    assert fight(lancers, horse) == 4  # only against infantry


def test_melee_shaken_disordered_open_order():
    assert fight(inf(hits=3), tgt()) == 3
    assert fight(inf(disordered=True), tgt()) == 2
    assert fight(inf(kind="light", formation="open_order"), tgt()) == 2
    assert fight(inf(hits=3, disordered=True), tgt()) == 2
    assert fight(inf(hits=3, disordered=True), tgt(), rules=Rules(or_rows="stack")) == 1
    # "disordered or in open order" is one item of the row with one value: -2 once ...
    lt = inf(kind="light", formation="open_order", hits=3, disordered=True)
    assert fight(lt, tgt()) == 2
    assert fight(lt, tgt(), rules=Rules(or_rows="stack")) == 1  # -1 shaken, -2 once
    # ... unless every condition counts: -1 - 2 - 2
    assert fight(lt, tgt(), rules=Rules(or_rows="each")) == 0
    assert fight(replace(lt, hits=0), tgt(), rules=Rules(or_rows="each")) == 0
    assert fight(replace(lt, hits=0), tgt(), rules=Rules(or_rows="stack")) == 2


def test_melee_terrain_rows():
    assert fight(inf(), tgt(terrain="woods")) == 3
    assert fight(inf(), tgt(), uphill=True) == 3
    assert fight(inf(), tgt(terrain="woods"), uphill=True) == 3  # one 'or' row
    # "into woods or uphill" is one item with one value: -1 once when the items stack
    assert fight(inf(), tgt(terrain="woods"), uphill=True, rules=Rules(or_rows="stack")) == 3
    assert fight(inf(), tgt(terrain="woods"), uphill=True, rules=Rules(or_rows="each")) == 2
    assert fight(inf(), tgt(terrain="bua")) == 2
    assert fight(inf(), tgt(terrain="fieldworks"), uphill=True) == 2
    assert fight(inf(), tgt(terrain="bua"), uphill=True, rules=Rules(or_rows="stack")) == 1
    assert fight(inf(), tgt(terrain="bua"), uphill=True, rules=Rules(or_rows="each")) == 1
    assert fight(inf(), tgt(), uphill=True, attacking=False) == 4  # uphill is the attacker's


def test_squares_and_march_columns():
    assert fight(tgt(formation="square"), inf(), attacking=False) == 1
    assert fight(tgt(formation="square", quality="elite"), inf(), attacking=False) == 2
    assert fight(inf(formation="march_column"), tgt()) == 1
    heavy = cav(kind="heavy", quality="elite")
    assert fight(heavy, tgt(formation="square"), order_bonus=True, supports=3) == 1


def test_melee_floor():
    worst = inf(quality="conscript", hits=2, disordered=True)
    assert fight(worst, tgt(terrain="bua")) == 0
    assert fight(worst, tgt(terrain="bua"), rules=Rules(min_dice=1)) == 1
