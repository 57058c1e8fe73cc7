"""Assault phase: the per-trial records contract (issue 29) for ``run_assault``.

Every kind of job the ruleset makes runs through :func:`records_check.check_records`: each
shipped example (one turn and several, cover, grenades, mixed saves, split hits: different
statistic layouts) and a combat that can end before any blow (a charge through difficult
terrain, a defender falling back that must regroup), which takes the kernel's early exit
and adds the optional statistics to the layout. The recorded values of a trial must belong
together: the first turn's result is exactly one of won, lost or drawn when the charge went
in, and none of them when it did not.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
import pytest
from records_check import check_records

from oddslab.scenario import from_dict, load

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("assault-*.toml"))


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_records(path):
    check_records(load(path).compile(), ntrials=(700, 301))


def _charge_can_fail():
    """The marines' charge through 5" of difficult terrain into Orks falling back, 3 turns."""
    data = tomllib.loads(
        (EXAMPLES[0].parent / "assault-marines-charge-orks-in-cover.toml").read_text()
    )
    data["attacker"]["units"][0]["difficult_terrain_distance"] = 5
    data["defender"]["units"][0]["falling_back"] = True
    data["rules"] = {"max_turns": 3}
    return from_dict(data)


def test_records_when_the_charge_can_fail():
    job = _charge_can_fail().compile()
    col = {s.name: i for i, s in enumerate(job.stats)}
    assert {"attacker_charged", "defender_failed_to_regroup", "combat_ended_turn"} <= set(col)
    rec = check_records(job, ntrials=(700, 301))
    charged = rec[:, col["attacker_charged"]]
    assert 0 < charged.sum() < len(charged)  # both the early exit and the combat were taken
    result = sum(rec[:, col[n]] for n in ("attacker_won_assault", "defender_won_assault"))
    assert np.array_equal(result + rec[:, col["assault_drawn"]], charged)
    assert np.all(rec[charged == 0, col["combat_ended_turn"]] == 0)
