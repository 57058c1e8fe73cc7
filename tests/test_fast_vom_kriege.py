"""The fast numpy reference of the Vom Kriege rules (tests/fast_vom_kriege.py) checked on its
own: against the exact distributions of the pure-Python reference (tests/exact_vom_kriege.py),
chi-square on every statistic with the power to see a 0.5 pp error checked on every run, on
enumerable scenarios that between them reach every mechanic and rule switch it models and on
the five largest whole scenarios of the kernel's tests. Two references written apart from the
rule text (one vectorised, one a trial at a time) agree exactly in distribution, so neither
hides a misreading the other does not share."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fast_vom_kriege as F  # noqa: E402
import test_vom_kriege_kernel as TK  # noqa: E402
import test_vom_kriege_leaders as TL  # noqa: E402
import test_vom_kriege_melee_readings as TM  # noqa: E402
import test_vom_kriege_switches as TS  # noqa: E402
from exact_vom_kriege import exact_pmfs  # noqa: E402

#: enumerable scenarios: between them every mechanic and rule switch the whole scenarios
#: (``WHOLE``) reach, each against the reference's exact distribution
EXACT = {
    # form square, a battery's fire, the cavalry follow-up, the leader cascade
    "charge": TK.CASES["charge"],
    "charge-flags-ignored": lambda: TS.charge({"defensive_fire_flags": "ignore"}),
    "charge-square-fires": lambda: TS.charge({"square_may_fire": True}),
    "charge-before-melee": lambda: TS.charge(
        {"dice_state": "before_melee", "or_rows": "stack", "same_roll_at_max": "absorb"}
    ),
    # squares, flank attacks, min_dice
    "flank-attacks-absorb": TK.CASES["flank-attacks-absorb"],
    # shooting (artillery by band, fieldworks, a blocked retreat), defensive fire, battle back
    "assault-switched": lambda: TS.assault(
        {
            "battle_back_supports": True,
            "halving": "before",
            "min_dice": 1,
            "artillery_rows": "target",
            "sabers": "melee",
        }
    ),
    "fire-halving-before": lambda: TS.fire_line({"halving": "before"}),
    "supported-defence": lambda: TS.supported_defence({"battle_back_supports": True}),
    # squares attacked and attacking, woods, a rough charge stopped, skirmish targets
    "squares-and-woods-switched": TM.CASES["squares-and-woods-switched"],
    "squares-attack": TM.CASES["squares-attack"],
    # retires (from cavalry too), batteries limbering, the follow-ups after them
    "assault-retire": lambda: TS.assault_retire({"retire_vs_cavalry": True}),
    "retires-switched": lambda: TS.retires(
        {"retiring_cavalry_disordered": False, "dice_state": "before_melee"}
    ),
    "battery-driven-back": TK.CASES["battery-driven-back"],
    "disordered-follow-up": lambda: TS.rough_follow_up({"disordered_follow_up": True}),
    # leaders: alone, with the charged unit (both readings)
    "ride-down": lambda: TL._ride_down(),
    "with-unit": lambda: TL._with_unit(),
    "with-unit-retires": lambda: TL._with_unit(leader_with_unit="retires"),
}

#: the largest whole scenarios of the kernel's tests (a melee with a battery, defensive fire and
#: a follow-up; two shots, two melees and a retire; retires before batteries; leaders
#: everywhere): also against the exact distribution, which now enumerates them
WHOLE = {
    "charge-switches": TK.CASES["charge-switches"],
    "assault-switches": TK.CASES["assault-switches"],
    "retires": TM.CASES["retires"],
    "retires-switched": TM.CASES["retires-switched"],
    "leaders-rolled": lambda: TL._leaders_everywhere(leader_with_unit="rolled"),
    "leaders-retires": lambda: TL._leaders_everywhere(leader_with_unit="retires"),
}


@pytest.mark.parametrize("case", sorted(EXACT) + sorted(WHOLE))
def test_fast_reference_matches_exact(case):
    sc = (EXACT | WHOLE)[case]()
    F.check_exact(sc, exact_pmfs(sc), 2027, case)


def test_fast_reference_is_deterministic_and_nested(monkeypatch):
    """The same seed gives the same histograms; block ``b`` of a run is drawn from ``(seed,
    b)``, so a longer run extends a shorter one."""
    monkeypatch.setattr(F, "BLOCK", 10_000)
    sc = WHOLE["retires"]()
    a, b = F.simulate(sc, 25_000, 3), F.simulate(sc, 25_000, 3)
    assert all(np.array_equal(a[k], b[k]) for k in a)
    first = F.simulate(sc, 10_000, 3)
    rest = F.simulate(sc, 15_000, 3, first_block=1)
    for k in a:
        np.testing.assert_array_equal(a[k], F._add(first[k], rest[k]), err_msg=k)


def test_refuses_what_it_does_not_model():
    with pytest.raises(NotImplementedError, match="counter-charge"):
        F.simulate(TK.CASES["counter-charge"](), 10, 1)
