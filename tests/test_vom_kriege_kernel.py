"""Vom Kriege kernel: hits/flags against the exact multinomial (chi-square, 1e6 trials), the
form-square test, hits-then-retreats and the leader cascade by hand-worked cases, the whole
sequence against the pure-Python reference (tests/naive_vom_kriege.py: its exact distribution,
tests/exact_vom_kriege.py, where its rolls can be enumerated, else sampled), and bit-identical
results at 1 and 2 threads."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

import oddslab
from oddslab.rulesets.vom_kriege import kernel as K
from oddslab.rulesets.vom_kriege import layout as L
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Leader, Rules, Unit
from oddslab.rulesets.vom_kriege.packing import fresh_state, pack

sys.path.insert(0, str(Path(__file__).resolve().parent))
import naive_vom_kriege as naive  # noqa: E402
from exact_vom_kriege import assert_exact, exact_pmfs  # noqa: E402
from stats import P_MIN, assert_prob, chisquare_pmf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def U_(name, side, troop, **kw):
    return Unit(name=name, side=side, troop=troop, **kw)


# -- static parts against exact answers --------------------------------------------------------
@pytest.mark.statistical
def test_single_shot_matches_exact_pmfs():
    sc = VomKriegeScenario(
        units=(
            U_("guns", "attacker", "artillery", guns=8, kind="heavy"),
            U_("line", "defender", "infantry", hits=2, formation="column"),
        ),
        actions=(Action("shoot", "guns", "line", range=3, order_bonus=True),),
    )
    out = oddslab.simulate(sc, trials=1_000_000, seed=7)
    exact = sc.exact_pmfs()
    assert exact["attacker_dice_rolled"][7] == 1.0  # 5 + order bonus + column
    assert set(exact) >= {"hits_on_defender", "flags_on_defender", "defender_removed"}
    assert_exact({k: out.counts[k] for k in exact}, exact, "single shot")  # 0.5 pp power


@pytest.mark.statistical
@pytest.mark.parametrize("target", ["infantry", "cavalry", "artillery"])
def test_hits_flags_multinomial_each_target(target):
    sc = VomKriegeScenario(
        units=(U_("line", "attacker", "infantry"), U_("t", "defender", target, strength=10)),
        actions=(Action("shoot", "line", "t", supports=2),),
    )
    out = oddslab.simulate(sc, trials=1_000_000, seed=11)
    n = 6  # line 4 + 2 fire supports
    p_hit = {"infantry": 3 / 6, "cavalry": 2 / 6, "artillery": 2 / 6}[target]
    h = np.array([math.comb(n, k) * p_hit**k * (1 - p_hit) ** (n - k) for k in range(n + 1)])
    f = np.array([math.comb(n, k) * (1 / 6) ** k * (5 / 6) ** (n - k) for k in range(n + 1)])
    names = ("hits_on_defender", "flags_on_defender")
    assert_exact({k: out.counts[k] for k in names}, dict(zip(names, (h, f), strict=True)), target)


@pytest.mark.statistical
@pytest.mark.parametrize(("hits", "diso", "n"), [(0, False, 4), (2, False, 3), (2, True, 2)])
def test_form_square_probability_in_kernel(hits, diso, n):
    sc = VomKriegeScenario(
        units=(
            U_("cuirassiers", "attacker", "cavalry", kind="heavy"),
            U_("line", "defender", "infantry", hits=hits, disordered=diso),
        ),
        actions=(Action("melee", "cuirassiers", "line", reaction="form_square"),),
    )
    trials = 1_000_000
    out = oddslab.simulate(sc, trials=trials, seed=3)
    p = 1 - (4 / 6) ** n
    sq = "defender_formed_square"
    assert_exact({sq: out.counts[sq]}, {sq: np.array([1 - p, p])}, sq)  # 0.5 pp power


# -- hand-worked cases: hits, then retreats; removal; the leader cascade ---------------------
def _state(sc):
    T = pack(sc.arrays())
    return T, fresh_state(T)


def _sc(target: Unit, rules=None, leaders=(), others=()):
    units = (U_("a", "attacker", "infantry"), target, *others)
    return VomKriegeScenario(
        units=units,
        actions=(Action("shoot", "a", target.name),),
        leaders=leaders,
        rules=rules or Rules(),
    )


def _hit(sc, hits, flags, fmode=0, t=1):
    T, W = _state(sc)
    K.resolve(T, W, t, hits, flags, fmode)
    nu = int(T[0, L.R_NU])
    return W[:nu], W[nu : nu + int(T[0, L.R_NL])]


def test_flags_retreat_half_move_each_and_disorder():
    S, _ = _hit(_sc(U_("t", "defender", "infantry")), 1, 3)
    assert S[1, L.S_HITS] == 1 and S[1, L.S_RETREAT_HM] == 3 and S[1, L.S_DISO] == 1
    assert S[1, L.S_REMOVED] == 0


def test_square_takes_a_hit_per_flag():
    S, _ = _hit(_sc(U_("t", "defender", "infantry", formation="square")), 1, 2)
    assert S[1, L.S_HITS] == 3 and S[1, L.S_RETREAT_HM] == 0 and S[1, L.S_DISO] == 0


def test_square_at_maximum_retreats_then_removed_by_more():
    sq = U_("t", "defender", "infantry", formation="square", hits=2)
    S, _ = _hit(_sc(sq), 1, 1)  # 3 hits + 1 flag-hit = 4 = maximum: full-move retreat
    assert S[1, L.S_HITS] == 4 and S[1, L.S_RETREAT_HM] == 2 and S[1, L.S_REMOVED] == 0
    S, _ = _hit(_sc(sq), 1, 2)  # a fifth hit at maximum: removed
    assert S[1, L.S_REMOVED] == 1


def test_reaching_maximum_retreats_a_full_move():
    S, _ = _hit(_sc(U_("t", "defender", "infantry", hits=2)), 2, 0)
    assert S[1, L.S_HITS] == 4 and S[1, L.S_RETREAT_HM] == 2 and S[1, L.S_DISO] == 1
    assert S[1, L.S_REMOVED] == 0


def test_flags_with_the_roll_that_reaches_maximum():
    t = U_("t", "defender", "infantry", hits=2)
    S, _ = _hit(_sc(t), 2, 1)
    assert S[1, L.S_REMOVED] == 1  # default: hits first, then a retreat at maximum = removed
    S, _ = _hit(_sc(t, Rules(same_roll_at_max="absorb")), 2, 1)
    assert S[1, L.S_REMOVED] == 0 and S[1, L.S_RETREAT_HM] == 2
    S, _ = _hit(_sc(t), 3, 0)  # an extra hit in the same roll
    assert S[1, L.S_REMOVED] == 1
    S, _ = _hit(_sc(t, Rules(same_roll_at_max="absorb")), 3, 0)
    assert S[1, L.S_REMOVED] == 0


def test_unit_already_at_maximum_removed_by_hit_flag_or_disorder():
    t = U_("t", "defender", "infantry", hits=4, disordered=True)
    assert _hit(_sc(t), 1, 0)[0][1, L.S_REMOVED] == 1
    assert _hit(_sc(t), 0, 1)[0][1, L.S_REMOVED] == 1
    assert _hit(_sc(t), 0, 0)[0][1, L.S_REMOVED] == 0
    fresh = replace(t, disordered=False)
    T, W = _state(_sc(fresh))
    K.disorder(T, W, 1)
    assert W[1, L.S_REMOVED] == 1


def test_blocked_retreat_is_one_hit():
    t = U_("t", "defender", "infantry", retreat_blocked=True)
    S, _ = _hit(_sc(t), 0, 3)
    assert S[1, L.S_HITS] == 1 and S[1, L.S_RETREAT_HM] == 0
    S, _ = _hit(_sc(replace(t, hits=2)), 1, 1)  # 3 hits + blocked retreat = 4: removed
    assert S[1, L.S_REMOVED] == 1
    S, _ = _hit(_sc(replace(t, hits=3)), 1, 0)  # reaching maximum: blocked full move
    assert S[1, L.S_REMOVED] == 1


def test_a_retreating_battery_limbers():
    """ "Artillery must limber when retreating": after a flag, and after the full-move retreat
    at maximum hits. A blocked retreat is 1 hit and no move, so the guns stay unlimbered."""
    bat = U_("t", "defender", "artillery")
    S, _ = _hit(_sc(bat), 0, 1)
    assert S[1, L.S_RETREAT_HM] == 1 and S[1, L.S_FORM] == L.F_LIMBERED
    S, _ = _hit(_sc(replace(bat, hits=2)), 1, 0)  # 3 hits = maximum: a full move back
    assert S[1, L.S_RETREAT_HM] == 2 and S[1, L.S_FORM] == L.F_LIMBERED
    S, _ = _hit(_sc(replace(bat, retreat_blocked=True)), 0, 1)
    assert S[1, L.S_HITS] == 1 and S[1, L.S_FORM] == L.F_UNLIMBERED


def _battery_driven_back(faces=None, **rules):
    """The attacker's guns fire at battery B, then hussars charge C with B's defensive fire
    ("Only infantry and unlimbered artillery may shoot")."""
    return VomKriegeScenario(
        units=(
            U_("gunsA", "attacker", "artillery", guns=8, kind="heavy"),
            U_("hussars", "attacker", "cavalry"),
            U_("B", "defender", "artillery", guns=8, kind="heavy"),
            U_("C", "defender", "infantry"),
        ),
        actions=(
            Action("shoot", "gunsA", "B", range=6),
            Action("melee", "hussars", "C", reaction="none", batteries=(Battery("B", 3),)),
        ),
        dice=Dice(faces) if faces else Dice(),
        rules=Rules(**rules),
    )


def test_a_battery_driven_back_cannot_fire_again():
    """Every die a flag: B retreats from the first shot, limbered, so it gives no defensive
    fire (unlimbered it would roll 5 - 2 disordered = 3 flags and stop the charge); the
    hussars' 4 flags drive C back, so nobody on the defending side rolls a die."""
    sc = _battery_driven_back(faces=("flag", "flag"))
    out = oddslab.simulate(sc, trials=1_000, seed=1)
    assert out.prob("attacker_reached_melee") == 1.0
    assert out.counts["defender_dice_rolled"][0] == 1_000
    ref = naive.simulate(sc, 50, seed=1)
    assert ref["attacker_reached_melee"] == {1: 50} and ref["defender_dice_rolled"] == {0: 50}


def test_leader_cascade():
    leaders = (
        Leader("boss", "defender", army=True, hits=2),
        Leader("div", "defender", hits=2, units=6),
    )
    t = U_("t", "defender", "infantry", hits=4, leader="div")
    mate = U_("mate", "defender", "cavalry", leader="div")
    sc = _sc(t, leaders=leaders, others=(mate,))
    S, LS = _hit(sc, 1, 0)
    assert S[1, L.S_REMOVED] == 1 and S[2, L.S_REMOVED] == 1  # whole command gone
    assert LS[1, L.LS_REMOVED] == 1 and LS[1, L.LS_LOST] == 6
    assert LS[0, L.LS_HITS] == 3 and LS[0, L.LS_REMOVED] == 1  # army leader's third hit
    calm = (Leader("div", "defender", hits=0),)
    S, LS = _hit(_sc(replace(t, hits=4), leaders=calm), 1, 0)
    assert LS[0, L.LS_HITS] == 1 and LS[0, L.LS_LOST] == 1 and LS[0, L.LS_REMOVED] == 0


# -- the whole sequence against the pure-Python reference --------------------------------------
def _compare(sc, trials_k=1_000_000, seed=5):
    """Every statistic the kernel reports against the reference's exact distribution (every
    roll of tests/naive_vom_kriege.py branching on its outcomes, tests/exact_vom_kriege.py),
    with the check that a 0.5 pp error in any statistic fails."""
    out = oddslab.simulate(sc, trials=trials_k, seed=seed)
    counts = {s.name: out.counts[s.name] for s in out.stats}
    assert_exact(counts, exact_pmfs(sc), getattr(sc, "name", "vk"))


def _charge(**rules):
    return VomKriegeScenario(
        units=(
            U_("cuirassiers", "attacker", "cavalry", kind="heavy", leader="a_div"),
            U_("line", "defender", "infantry", hits=1, leader="d_div"),
            U_("guns", "defender", "artillery", guns=8, kind="heavy", leader="d_div"),
            U_("reserve", "defender", "infantry", quality="conscript", leader="d_div"),
        ),
        leaders=(
            Leader("a_div", "attacker", quality=2),
            Leader("d_div", "defender", hits=2, units=4),
            Leader("army", "defender", army=True, hits=2),
        ),
        actions=(
            Action(
                "melee",
                "cuirassiers",
                "line",
                order_bonus=True,
                supports=1,
                batteries=(Battery("guns", 6),),
                follow_up="reserve",
            ),
        ),
        rules=Rules(**rules),
    )


def _assault(**rules):
    return VomKriegeScenario(
        units=(
            U_("battery", "attacker", "artillery", guns=8, kind="heavy"),
            U_("fusiliers", "attacker", "infantry", formation="two_rank_line"),
            U_("grenadiers", "attacker", "infantry", quality="elite", formation="column"),
            U_("hussars", "attacker", "cavalry", kind="lancers"),
            U_("line", "defender", "infantry", terrain="fieldworks", retreat_blocked=True),
            U_(
                "jaegers",
                "defender",
                "infantry",
                kind="light",
                formation="open_order",
                skirmish=True,
            ),
        ),
        actions=(
            Action("shoot", "battery", "line", range=5),
            Action("shoot", "fusiliers", "line", supports=1),
            Action("melee", "grenadiers", "line", order_bonus=True, supports=2, uphill=True),
            Action("melee", "hussars", "jaegers", reaction="retire", follow_up="line"),
        ),
        rules=Rules(**rules),
    )


def _cavalry_fight(**rules):
    return VomKriegeScenario(
        units=(
            U_("dragoons", "attacker", "cavalry", kind="heavy", hits=1),
            U_("cossacks", "defender", "cavalry", kind="light", quality="irregular"),
            U_("guns", "defender", "artillery", kind="horse"),
        ),
        actions=(
            Action("melee", "dragoons", "cossacks", reaction="counter_charge", follow_up="guns"),
        ),
        rules=Rules(**rules),
    )


def _flanks(**rules):
    return VomKriegeScenario(
        units=(
            U_("hussars", "attacker", "cavalry", hits=2),
            U_("uhlans", "attacker", "cavalry", kind="lancers", quality="elite"),
            U_("square", "defender", "infantry", formation="square", quality="conscript"),
            U_("line", "defender", "infantry", hits=2, disordered=True),
            U_("gunners", "defender", "artillery", terrain="bua"),
        ),
        actions=(
            Action("melee", "hussars", "square", flank=True),
            Action(
                "melee",
                "uhlans",
                "line",
                flank=True,
                follow_up="gunners",
                follow_up_reaction="none",
            ),
        ),
        rules=Rules(**rules),
    )


CASES = {
    "flank-attacks": lambda: _flanks(),
    "flank-attacks-absorb": lambda: _flanks(same_roll_at_max="absorb", min_dice=1),
    "charge": lambda: _charge(),
    "charge-switches": lambda: _charge(
        same_roll_at_max="absorb",
        defensive_fire_flags="ignore",
        dice_state="before_melee",
        square_may_fire=True,
        or_rows="stack",
        disordered_follow_up=True,
    ),
    "assault": lambda: _assault(),
    "assault-switches": lambda: _assault(
        battle_back_supports=True,
        retire_vs_cavalry=True,
        halving="before",
        min_dice=1,
        artillery_rows="target",
        sabers="melee",
    ),
    "counter-charge": lambda: _cavalry_fight(),
    "counter-charge-simultaneous": lambda: _cavalry_fight(counter_charge="simultaneous"),
    "battery-driven-back": lambda: _battery_driven_back(),
}


@pytest.mark.statistical
@pytest.mark.parametrize("case", list(CASES))
def test_kernel_matches_naive_reference(case):
    _compare(CASES[case]())


def test_defensive_fire_flags_reading_moves_reaching_melee():
    base = dict(
        units=(
            U_("cuirassiers", "attacker", "cavalry", kind="heavy"),
            U_("line", "defender", "infantry"),
        ),
        actions=(Action("melee", "cuirassiers", "line", reaction="defensive_fire"),),
    )
    n = 500_000
    p_retreat = oddslab.simulate(VomKriegeScenario(**base), n, seed=1).prob(
        "attacker_reached_melee"
    )
    p_ignore = oddslab.simulate(
        VomKriegeScenario(**base, rules=Rules(defensive_fire_flags="ignore")), 200_000, seed=1
    ).prob("attacker_reached_melee")
    # 4 dice of defensive fire must show no flag and fewer than 4 hits (4 hits = maximum:
    # the charger retreats a full move): (5/6)^4 - (2/6)^4 = 0.4700 (the issue's ~0.47)
    assert_prob(p_retreat, (5 / 6) ** 4 - (2 / 6) ** 4, n)
    # flags ignored: only 4 hits (maximum) stop it: 1 - (2/6)^4 = 0.9877 (the issue's ~0.99)
    assert_prob(p_ignore, 1 - (2 / 6) ** 4, 200_000)


# -- determinism -----------------------------------------------------------------------------
_SCRIPT = """
import json, sys
sys.path.insert(0, {tests!r})
import oddslab
from test_vom_kriege_kernel import CASES
from oddslab.scenario import from_dict
from oddslab.rulesets.vom_kriege import WARMUP_SHOT, WARMUP_COMMAND
res = {{}}
for i, sc in enumerate((CASES["assault"](), from_dict(WARMUP_SHOT), from_dict(WARMUP_COMMAND))):
    out = oddslab.simulate(sc, trials=300_000, seed=123)
    res.update({{f"{{i}}:{{k}}": v.tolist() for k, v in out.counts.items()}})
print(json.dumps(res))
"""


def test_deterministic_across_thread_counts():
    script = _SCRIPT.format(tests=str(ROOT / "tests"))
    results = []
    for threads in ("1", "2"):
        env = dict(os.environ, NUMBA_NUM_THREADS=threads, PYTHONPATH=str(ROOT))
        res = subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True
        )
        results.append(json.loads(res.stdout.strip().splitlines()[-1]))
    assert results[0] == results[1]


# -- hits on the attacker by battle back and by defensive fire (issue 29) --------------------
def _fire_then_battle_back(reaction):
    """A die of infantry and blank faces (no flags, no sabers): the defending line (strength 10)
    fires 4 dice if it reacts with defensive fire, the attacker (strength 6: 4 hits leave it
    steady) melees with 6, which cannot bring the defender near its maximum, and the
    defender battles back with all 10."""
    return VomKriegeScenario(
        units=(
            U_("a", "attacker", "infantry", strength=6),
            U_("d", "defender", "infantry", strength=10),
        ),
        actions=(Action("melee", "a", "d", reaction=reaction),),
        dice=Dice(("infantry", "blank")),
    )


@pytest.mark.parametrize(("reaction", "fire"), [("none", 0), ("defensive_fire", 4)])
def test_hits_on_the_attacker_by_battle_back_and_by_defensive_fire(reaction, fire):
    """Exact: battle back Bin(10, 1/2), defensive fire Bin(4, 1/2) (or none), and together
    the hits rolled on the attacker, Bin(14, 1/2) (or Bin(10, 1/2))."""
    out = oddslab.simulate(_fire_then_battle_back(reaction), trials=200_000, seed=9)

    def binom(n):
        return np.array([math.comb(n, k) / 2**n for k in range(n + 1)])

    assert chisquare_pmf(out.counts["hits_on_attacker_by_battle_back"], binom(10)) > P_MIN
    if fire:
        df = out.counts["hits_on_attacker_by_defensive_fire"]
        assert chisquare_pmf(df, binom(fire)) > P_MIN
    else:
        assert out.counts["hits_on_attacker_by_defensive_fire"][0] == 200_000
    assert chisquare_pmf(out.counts["hits_on_attacker"], binom(10 + fire)) > P_MIN
    total = out.mean("hits_on_attacker_by_battle_back") + out.mean(
        "hits_on_attacker_by_defensive_fire"
    )
    assert total == pytest.approx(out.mean("hits_on_attacker"), abs=1e-12)  # same trials
