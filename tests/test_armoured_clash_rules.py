"""Armoured Clash rules fixed to the text (issue 7): activations and status expiry, secondary
combatants' combat-rating flags, the officer kept when the general chooses the casualties, and
the validation the text implies. Each case is hand-worked from the rule text; most use a die
that always strikes and one-card decks so the answer is certain.

Tolerances: chi-square p > 1e-4 (tests/stats.py) for distributions.
"""

from __future__ import annotations

import numpy as np
import pytest
from stats import P_MIN, assert_prob, chisquare_pmf
from switches import assert_exact_power

from oddslab._schema import ScenarioError
from oddslab.engine import simulate
from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    AttackDie,
    RangedAttack,
    Rules,
    Situation,
    Unit,
    attack_pool_pmf,
)
from oddslab.scenario import from_dict

SURE = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=0)


def _rifles(name, side, models=10, **kw):
    return Unit(
        name,
        side=side,
        models=models,
        defence=kw.pop("defence", 1),
        discipline=kw.pop("discipline", 5),
        armaments=Armaments(
            ranged=(RangedAttack("rifles", dice=tuple(range(1, models + 1))),),
            melee=tuple(range(1, models + 1)),
        ),
        **kw,
    )


def _run(sc, trials=2000, seed=1):
    return simulate(sc, trials=trials, seed=seed)


# -- 1. statuses expire inside the sequence -------------------------------------------------
def test_suppressed_unit_that_activates_then_is_shot_does_not_fall_back():
    """The issue's case: a suppressed unit makes an attack (its activation), then is shot.
    Suppressed is lost at the end of that activation, so a failed test only suppresses it
    again: P(fell back) = 0 (the old reading, statuses never expiring, gives about 0.4)."""
    x = _rifles("x", "attacker", suppressed=True)
    y = _rifles("y", "defender")
    attacks = (Attack("x", "y"), Attack("y", "x"))
    sc = ArmouredClashScenario((x, y), attacks, focus="x")
    assert "attacker_fell_back" not in [s.name for s in sc.stats()]  # it cannot happen
    out = _run(sc, 100_000)
    assert out.prob("attacker_models_lost") > 0.5  # it was shot at and lost models
    assert out.prob("attacker_suppressed") > 0.2
    old = ArmouredClashScenario((x, y), attacks, focus="x", rules=Rules(activations=False))
    assert _run(old, 100_000).prob("attacker_fell_back") > 0.3


def test_status_gained_during_the_activation_lasts_to_the_next():
    """Suppressed gained during a unit's own activation (it lost the close quarters it
    started) is kept at its end (reading "held_at_start"); "all" drops it."""
    decks = {"attacker": (10,), "defender": (1,)}  # the attacker fails every test
    # charger: 4 hits on DEFENCE 50 -> nothing; target: 4 hits on DEFENCE 2 -> 2 charger
    # models lost: the target wins, the charger withdraws, fails its test: suppressed
    att = _rifles("att", "attacker", models=4, defence=2)
    tgt = _rifles("tgt", "defender", models=4, defence=50)
    sc = ArmouredClashScenario(
        (att, tgt), (Attack("att", "tgt", kind="close"),), die=SURE, decks=decks, focus="att"
    )
    out = _run(sc, 200)
    assert out.prob("defender_won_close_quarters") == 1
    assert out.prob("attacker_suppressed") == 1
    sc2 = ArmouredClashScenario(
        (att, tgt),
        (Attack("att", "tgt", kind="close"),),
        die=SURE,
        decks=decks,
        focus="att",
        rules=Rules(status_expiry="all"),
    )
    assert _run(sc2, 200).prob("attacker_suppressed") == 0


def test_taking_cover_ends_when_its_activation_starts():
    """y takes cover, then activates (shoots x): when x shoots back with the concealed
    penalty, y's DEFENCE is 1, not 1 + 1 (3 hits -> 3 damage, not 1)."""
    x = _rifles("x", "attacker", models=3, discipline=10, defence=10)  # y's 6 hits: no damage
    y = _rifles("y", "defender", models=6, discipline=10, taking_cover=True)
    conc = Situation(concealed=True)
    shots = (Attack("y", "x"), Attack("x", "y", situation=conc))
    out = _run(ArmouredClashScenario((x, y), shots, die=SURE, focus="y"), 200)
    assert out.prob("damage_on_defender", 3) == 1
    # without y's activation first it still takes cover: 3 hits / DEFENCE 2 = 1 damage
    out2 = _run(ArmouredClashScenario((x, y), shots[1:], die=SURE), 200)
    assert out2.prob("damage_on_defender", 1) == 1 and out2.prob("damage_on_defender", 2) == 0


def test_disordered_lost_at_the_end_of_its_activation():
    """A disordered unit (DISCIPLINE 6, every card a 6) activates, then is shot: it tests at
    DISCIPLINE 6 and passes; still disordered (no activation) it would fail (6 > 5)."""
    # close formation: the officer dies only with the last model (no new disorder)
    x = _rifles("x", "attacker", disordered=True, discipline=6, formation="close")
    y = _rifles("y", "defender", models=1, defence=50, discipline=6)  # 1 hit: 1 of x lost
    decks = {"attacker": (6,), "defender": (6,)}
    sc = ArmouredClashScenario(
        (x, y), (Attack("x", "y"), Attack("y", "x")), die=SURE, decks=decks, focus="x"
    )
    assert _run(sc, 200).prob("attacker_suppressed") == 0
    sc_old = ArmouredClashScenario(
        (x, y),
        (Attack("x", "y"), Attack("y", "x")),
        die=SURE,
        decks=decks,
        focus="x",
        rules=Rules(activations=False),
    )
    assert _run(sc_old, 200).prob("attacker_suppressed") == 1


def test_opportunity_fire_is_part_of_the_targets_activation():
    """Opportunity fire by y at x happens in x's activation: x (taking cover) has already
    lost the status, so the concealed shot meets DEFENCE 1."""
    x = _rifles("x", "attacker", models=4, discipline=10, taking_cover=True)
    y = _rifles("y", "defender", models=3, discipline=10)
    opp = Situation(opportunity_fire=True, concealed=True)
    sc = ArmouredClashScenario((x, y), (Attack("y", "x", situation=opp),), die=SURE)
    assert _run(sc, 200).prob("damage_on_attacker", 3) == 1


def test_failed_rally_test_stops_a_charge():
    """A suppressed unit that fails its rally test cannot both move and attack: no charge.
    Already in contact (charge = false) it still fights."""
    att = _rifles("att", "attacker", models=4, suppressed=True, discipline=5)
    tgt = _rifles("tgt", "defender", models=4)
    decks = {"attacker": (10,)}  # every rally test fails
    sc = ArmouredClashScenario(
        (att, tgt), (Attack("att", "tgt", kind="close"),), die=SURE, decks=decks
    )
    out = _run(sc, 200)
    assert out.prob("defender_models_lost") == 0
    assert out.prob("attacker_won_close_quarters") == 0
    assert out.prob("close_quarters_stalemate") == 0
    contact = Attack("att", "tgt", kind="close", situation=Situation(charge=False))
    out2 = _run(ArmouredClashScenario((att, tgt), (contact,), die=SURE, decks=decks), 200)
    assert out2.prob("defender_models_lost") == 1


@pytest.mark.statistical
def test_failed_rally_test_loses_the_aim_bonus():
    """Suppressed, aiming, failing its rally test: the aim bonus is lost, the rating is
    weakened (suppressed penalty only) instead of neutral."""
    gun = _rifles("gun", "attacker", models=6, suppressed=True)
    foot = Unit("foot", models=100, defence=1, discipline=10, commander_nearby=True)
    sc = ArmouredClashScenario(
        (gun, foot),
        (Attack("gun", "foot", situation=Situation(aiming=True)),),
        decks={"attacker": (10,)},
    )
    out = simulate(sc, trials=1_000_000, seed=41)
    assert chisquare_pmf(out.counts["hits_on_defender"], attack_pool_pmf(6, "weakened")) > 1e-4


# -- 2. secondary combatants set threatened / supported ------------------------------------------
def _charge(secondary_melee, **situation):
    att = Unit(
        "att",
        side="attacker",
        models=6,
        defence=50,
        discipline=10,
        armaments=Armaments(melee=(1, 2, 3, 4, 5, 6)),
    )
    tgt = Unit("tgt", models=4, defence=50, discipline=10, armaments=Armaments(melee=(1, 2, 3, 4)))
    sec = Unit(
        "sec", models=4, defence=2, discipline=10, armaments=Armaments(melee=secondary_melee)
    )
    sit = Situation(secondary=("sec",), **situation)
    return ArmouredClashScenario(
        (att, tgt, sec), (Attack("att", "tgt", kind="close", situation=sit),)
    )


def test_secondary_combatant_makes_the_charger_threatened():
    assert _charge(None).static_rating(0) == 0  # threatened: weakened
    assert _charge(None, threatened=False).static_rating(0) == 1  # override
    assert (
        _charge(None)
        .resolved()["step 1: att → tgt (close quarters)"]["combat rating"]
        .startswith("weakened")
    )


@pytest.mark.statistical
def test_secondary_combatant_supports_the_retaliation():
    """The charge target's retaliation is supported (improved) when a secondary combatant is
    in contact; the charger's pool is threatened (weakened). Nothing dies (DEFENCE 50), so the
    hits are pure pools."""
    n = 1_000_000
    sc = _charge(None)
    sc_att = ArmouredClashScenario(sc.units, sc.attacks, focus="att")
    out = simulate(sc_att, trials=n, seed=43)
    assert chisquare_pmf(out.counts["hits_on_attacker"], attack_pool_pmf(4, "improved")) > 1e-4
    out_t = simulate(sc, trials=n, seed=44)
    assert chisquare_pmf(out_t.counts["hits_on_defender"], attack_pool_pmf(6, "weakened")) > 1e-4
    off = _charge(None, defender_supported=False)
    off_att = ArmouredClashScenario(off.units, off.attacks, focus="att")
    out_off = simulate(off_att, trials=n, seed=45)
    assert chisquare_pmf(out_off.counts["hits_on_attacker"], attack_pool_pmf(4, "neutral")) > 1e-4


# -- 3. the general chooses: the officer stays ------------------------------------------------
def test_passengers_lost_to_capacity_keep_their_officer():
    truck = Unit(
        "trucks",
        type="armour",
        category="heavy",
        models=2,
        defence=1,
        damage_limit=2,
        discipline=10,
        capacity=5,
        carrying="foot",
        officer="first",
    )
    foot = Unit("foot", models=8, defence=2, discipline=10, officer="first")
    gun = _rifles("gun", "attacker", models=2)
    sc = ArmouredClashScenario((gun, truck, foot), (Attack("gun", "trucks"),), die=SURE)
    out = _run(sc, 200)
    assert out.prob("passengers_models_lost", 3) == 1
    # the truck's own officer died (its first casualty); the passengers' did not, although
    # theirs would die first to damage: their general chooses these models
    assert out.prob("defender_officer_lost") == 1
    sc2 = ArmouredClashScenario(
        (gun, truck, foot), (Attack("gun", "trucks"),), die=SURE, focus="foot"
    )
    assert _run(sc2, 200).prob("defender_officer_lost") == 0


def test_blocked_fall_back_losses_keep_the_officer():
    """Models removed so that a fall back is possible are chosen by the unit's general: the
    officer stays. One damage casualty, then a failed test (every card a 10) while suppressed:
    it falls back losing 2 more."""
    att = _rifles("att", "attacker", models=1, discipline=10)
    foot = Unit("foot", models=6, defence=1, damage_limit=2, damage=1, discipline=1,
                suppressed=True, fall_back_losses=2, officer="last")  # fmt: skip
    # 1 hit -> 1 damage -> 1 model (officer "last": not the officer); test fails: falls back
    decks = {"defender": (10,)}
    sc = ArmouredClashScenario((att, foot), (Attack("att", "foot"),), die=SURE, decks=decks)
    out = _run(sc, 200)
    assert out.prob("defender_fell_back") == 1 and out.prob("defender_models_lost", 3) == 1
    assert out.prob("defender_officer_lost") == 0
    foot_r = Unit("foot", models=6, defence=1, damage_limit=2, damage=1, discipline=1,
                  suppressed=True, fall_back_losses=2, officer="random")  # fmt: skip
    sc_r = ArmouredClashScenario((att, foot_r), (Attack("att", "foot"),), die=SURE, decks=decks)
    out_r = simulate(sc_r, trials=300_000, seed=3)
    # only the damage casualty can be the officer: 1/6 (the old code: 1/6 + 5/6 * 2/5 = 1/2)
    assert_prob(out_r.prob("defender_officer_lost"), 1 / 6, 300_000)


# -- 4. validation the text implies -------------------------------------------------------------
def _base() -> dict:
    return {
        "ruleset": "armoured-clash",
        "units": {
            "raiders": {
                "side": "attacker",
                "models": 4,
                "defence": 2,
                "discipline": 7,
                "melee": [1, 2, 3, 4],
            },
            "foot": {"side": "defender", "models": 6, "defence": 2, "discipline": 6},
        },
        "attacks": [{"attacker": "raiders", "target": "foot", "kind": "close"}],
    }


@pytest.mark.parametrize(
    "patch, key",
    [
        (
            lambda d: (
                d["units"]["foot"].update(type="armour"),
                d["attacks"][0].update(outflanking=True),
            ),
            r"attacks\[0\]\.outflanking",
        ),
        (
            lambda d: d["units"]["foot"].update(garrisoned=True, models=13),
            r"units\.foot\.garrisoned",
        ),
        (
            lambda d: d["units"]["foot"].update(disordered=True, commander_nearby=True),
            r"units\.foot\.disordered",
        ),
        (
            lambda d: (
                d["units"]["raiders"].update(disordered=True),
                d["attacks"][0].update(extra_rerolls=["miss"]),
            ),
            r"attacks\[0\]\.extra_rerolls",
        ),
        (
            lambda d: (
                d["units"]["foot"].update(disordered=True, melee=[1, 1, 1, 1, 1, 1]),
                d["attacks"][0].update(defender_extra_rerolls=["miss"]),
            ),
            r"attacks\[0\]\.defender_extra_rerolls",
        ),
        (
            # the defender general's command to the opportunity fire, then to the retaliation
            lambda d: (
                d["units"]["foot"].update(
                    melee=[1, 1, 1, 1, 1, 1], ranged=[{"name": "r", "dice": [1] * 6}]
                ),
                d["attacks"].insert(
                    0,
                    {
                        "attacker": "foot",
                        "target": "raiders",
                        "opportunity_fire": True,
                        "extra_rerolls": ["miss"],
                    },
                ),
                d["attacks"][1].update(defender_extra_rerolls=["miss"]),
            ),
            r"attacks\[1\]\.defender_extra_rerolls",
        ),
        (
            lambda d: (
                d["units"]["foot"].update(melee=[1, 1, 1, 1, 1, 1]),
                d["attacks"].append(
                    {
                        "attacker": "foot",
                        "target": "raiders",
                        "kind": "close",
                        "new_activation": False,
                    }
                ),
            ),
            r"attacks\[1\]\.new_activation",
        ),
        (lambda d: d.update(rules={"status_expiry": "never"}), r"rules\.status_expiry"),
        (lambda d: d["attacks"][0].update(aiming=True), r"attacks\[0\]\.aiming"),
        (
            lambda d: d["attacks"][0].update(extra_rerolls_from="card"),
            r"attacks\[0\]\.extra_rerolls_from",
        ),
    ],
)
def test_validation_names_the_key(patch, key):
    d = _base()
    patch(d)
    with pytest.raises(ScenarioError, match=key):
        from_dict(d, source="bad.toml")


def test_special_rule_rerolls_allowed_for_a_disordered_unit():
    d = _base()
    d["units"]["raiders"]["disordered"] = True
    d["attacks"][0].update(extra_rerolls=["miss"], extra_rerolls_from="special rule")
    assert from_dict(d).attacks[0].situation.extra_rerolls == ("miss",)


def test_command_rerolls_lost_when_the_unit_becomes_disordered():
    """A command cannot be issued to a unit that became disordered during the sequence.
    Opportunity fire (6 dice, strike or blank) kills X ~ Bin(6, 1/2) of 4 raiders (DEFENCE 1);
    any casualty is the officer (disordered), so the raiders' command re-roll of blanks only
    applies when X = 0: the 4 - X survivors roll one die each, a hit with 3/4 if X = 0 (a
    blank re-rolled) else 1/2, so P(hits = k) = sum_x P(X = x) Bin(k; 4 - x, 3/4 or 1/2),
    E[hits] = sum_x P(X = x) (4 - x) (3/4 if x = 0 else 1/2). The whole distribution is
    compared, with the check that a 0.5 pp error in it would fail."""
    from math import comb

    from scipy.stats import binom

    die = AttackDie(heroic=0, strike=1, glancing=0, miss=0, blank=1)
    raiders = _rifles("raiders", "attacker", models=4, discipline=10, officer="first")
    foot = Unit("foot", models=50, defence=1, discipline=10,
                armaments=Armaments(ranged=(RangedAttack("rifles", dice=(6,) * 50),)))  # fmt: skip
    opp = Attack("foot", "raiders", situation=Situation(opportunity_fire=True))
    shot = Attack("raiders", "foot", situation=Situation(extra_rerolls=("blank",)))
    sc = ArmouredClashScenario((raiders, foot), (opp, shot), die=die, focus="foot")
    n = 400_000
    out = simulate(sc, trials=n, seed=9)
    px = [comb(6, x) / 64 for x in range(7)]
    pmf = sum(px[x] * binom.pmf(np.arange(5), max(4 - x, 0), 0.75 if x == 0 else 0.5)
              for x in range(7))  # fmt: skip
    c = out.counts["hits_on_defender"]
    assert chisquare_pmf(c, pmf) > P_MIN
    assert_exact_power(c, pmf, "command re-rolls lost")
    always = sum(px[x] * max(4 - x, 0) * 0.75 for x in range(7))
    assert abs(out.mean("hits_on_defender") - always) > 0.1


@pytest.mark.statistical
def test_exact_damage_of_opportunity_fire_on_a_unit_taking_cover():
    """Opportunity fire hits the active unit, which stopped taking cover as it activated: the
    exact damage uses DEFENCE 2, not 3, and agrees with the kernel."""
    x = _rifles("x", "attacker", models=6, defence=2, discipline=10, taking_cover=True)
    y = _rifles("y", "defender", models=6, discipline=10)
    opp = Situation(opportunity_fire=True, concealed=True)
    sc = ArmouredClashScenario((x, y), (Attack("y", "x", situation=opp),))
    exact = sc.exact_pmfs()
    hits = exact["hits_on_attacker"]
    want = np.zeros(len(hits) // 2 + 1)
    np.add.at(want, np.arange(len(hits)) // 2, hits)
    assert np.allclose(exact["damage_on_attacker"], want)
    out = simulate(sc, trials=1_000_000, seed=47)
    assert chisquare_pmf(out.counts["damage_on_attacker"], exact["damage_on_attacker"]) > 1e-4


def test_issue_probe_secondary_lowers_the_chargers_chance():
    """The issue's probe: 6 models charge 4 with a 4-model secondary (all DEFENCE 2, one
    melee die per model): about 0.50 -> 0.33 once the charger is threatened and the
    retaliations supported; the kernel agrees with the fast reference (0.5 pp power) and the
    pure-Python one, whole distributions."""
    from switches import assert_agree
    from test_armoured_clash_reference import check_strong, kernel_counts, naive_counts

    def units(n, name, side):
        return Unit(name, side=side, models=n, defence=2, discipline=6,
                    armaments=Armaments(melee=tuple(range(1, n + 1))))  # fmt: skip

    def scen(flags):
        sit = Situation(secondary=("s2",), threatened=flags, defender_supported=flags)
        return ArmouredClashScenario(
            (units(6, "ch", "attacker"), units(4, "t", "defender"), units(4, "s2", "defender")),
            (Attack("ch", "t", kind="close", situation=sit),),
        )

    new = kernel_counts(scen(None), 53)["attacker_won_close_quarters"]
    old = kernel_counts(scen(False), 52)["attacker_won_close_quarters"]
    assert old[1] / old.sum() - new[1] / new.sum() > 0.1
    [(kernel, fast)] = check_strong(scen(None), 53, "the issue's probe").values()
    naive = naive_counts(scen(None), 2_000, 53)
    assert_agree(kernel, naive, "the issue's probe: kernel vs naive")
    assert_agree(fast, naive, "the issue's probe: fast vs naive")
