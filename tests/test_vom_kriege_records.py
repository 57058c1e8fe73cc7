"""Vom Kriege per-trial records (issue 29): every kind of job the ruleset makes keeps the
records contract (tests/records_check.py: histograms bit-identical with or without records,
each recorded column histograms to its statistic): the combat sequence kernel on every path
(shooting, melee with every reaction, counter-charges, battle back, defensive fire,
batteries, follow-ups, a leader alone, rule switches), the single-shot fast path and the
command dice under every reroll mode and policy; and what only records can show, trial by
trial (the attacker's hits split exactly into battle-back and defensive-fire hits)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from oddslab.engine import Job
from oddslab.rulesets.vom_kriege import WARMUPS
from oddslab.rulesets.vom_kriege import kernel as K
from oddslab.rulesets.vom_kriege import kernel_shot as SK
from oddslab.rulesets.vom_kriege.command import CommandScenario, Order
from oddslab.rulesets.vom_kriege.compile import VomKriegeScenario
from oddslab.rulesets.vom_kriege.kernel_command import run_command
from oddslab.rulesets.vom_kriege.model import Action, Battery, Dice, Leader, Unit
from oddslab.scenario import from_dict, load

sys.path.insert(0, str(Path(__file__).resolve().parent))
from records_check import check_records  # noqa: E402
from test_vom_kriege_kernel import CASES  # noqa: E402 - the reference-checked sequences

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "examples").glob("vom-kriege-*.toml"))


# -- scenarios the examples and the reference cases do not reach -----------------------------
def _two_volleys() -> VomKriegeScenario:
    """Shooting only, two actions: the general kernel, not the single-shot path."""
    return VomKriegeScenario(
        units=(
            Unit("guns", "attacker", "artillery", guns=8, kind="heavy"),
            Unit("line", "attacker", "infantry"),
            Unit("column", "defender", "infantry", formation="column", leader="div"),
        ),
        leaders=(Leader("div", "defender", hits=1),),
        actions=(
            Action("shoot", "guns", "column", range=5),
            Action("shoot", "line", "column", supports=1),
        ),
    )


def _fire_and_battle_back() -> VomKriegeScenario:
    """Defensive fire and a battery on the charger, then the line battles back if it holds."""
    return VomKriegeScenario(
        units=(
            Unit("a", "attacker", "infantry", strength=6),
            Unit("d", "defender", "infantry", strength=10),
            Unit("guns", "defender", "artillery", guns=6, kind="light"),
        ),
        actions=(
            Action(
                "melee",
                "a",
                "d",
                reaction="defensive_fire",
                batteries=(Battery("guns", 4),),
            ),
        ),
    )


def _square() -> VomKriegeScenario:
    """Cavalry on infantry in the open: the form-square test, then sabers on the square."""
    return VomKriegeScenario(
        units=(
            Unit("cuirassiers", "attacker", "cavalry", kind="heavy"),
            Unit("line", "defender", "infantry", hits=1),
        ),
        actions=(Action("melee", "cuirassiers", "line", reaction="auto"),),
    )


def _retire() -> VomKriegeScenario:
    """The defender retires (only sabers hit it) and the infantry follows up; the attacker
    has a leader under an army leader (their statistics)."""
    return VomKriegeScenario(
        units=(
            Unit("grenadiers", "attacker", "infantry", quality="elite", leader="a_div"),
            Unit("hussars", "defender", "cavalry"),
            Unit("line", "defender", "infantry", hits=2),
        ),
        leaders=(
            Leader("a_div", "attacker", hits=2),
            Leader("emperor", "attacker", army=True, hits=2),
        ),
        actions=(Action("melee", "grenadiers", "hussars", reaction="retire", follow_up="line"),),
    )


def _shot(**kw) -> VomKriegeScenario:
    """A single shooting roll (the fast path); ``kw`` replaces the target's fields."""
    target = dict(name="square", side="defender", troop="infantry", leader="d")
    target.update(kw.pop("target", {}))
    return VomKriegeScenario(
        units=(Unit("guns", "attacker", "artillery", guns=8, kind="heavy", **kw), Unit(**target)),
        leaders=(Leader("d", "defender", hits=2),),
        actions=(Action("shoot", "guns", "square", range=5, order_bonus=True),),
    )


def _combat_jobs() -> dict[str, Callable[[], Job]]:
    jobs: dict[str, Callable[[], Job]] = {
        f"example:{p.stem}": (lambda p=p: load(p).compile()) for p in EXAMPLES
    }
    jobs.update(
        {f"warmup:{i}": (lambda w=w: from_dict(w).compile()) for i, w in enumerate(WARMUPS)}
    )
    jobs.update({f"case:{k}": (lambda f=f: f().compile()) for k, f in CASES.items()})
    jobs.update(
        {
            "two-volleys": lambda: _two_volleys().compile(),
            "fire-and-battle-back": lambda: _fire_and_battle_back().compile(),
            "form-square": lambda: _square().compile(),
            "retire-follow-up": lambda: _retire().compile(),
            "shot:square-with-leader": lambda: _shot(
                target=dict(formation="square", hits=1)
            ).compile(),
            "shot:column-near-maximum": lambda: _shot(
                target=dict(formation="column", hits=3)
            ).compile(),
            "shot:blocked": lambda: _shot(target=dict(retreat_blocked=True)).compile(),
            "shot:no-dice": lambda: _shot(hits=3).compile(),  # a battery at maximum: 0 dice
        }
    )
    return jobs


def _command(**kw) -> CommandScenario:
    orders = (Order("assault"), Order("infantry", double=True), Order("rally"))
    return CommandScenario(**{"cp": 4, "rerolls": 2, "orders": orders, **kw})


COMMAND = {
    "together-optimal": lambda: _command(),
    "sequential-optimal": lambda: _command(reroll="sequential"),  # the kernel's mode 1
    "together-simple": lambda: _command(policy="simple"),
    "sequential-simple": lambda: _command(reroll="sequential", policy="simple"),
    "no-rerolls": lambda: _command(rerolls=0, cp=6, dice=Dice(("infantry", "saber", "flag"))),
}
JOBS = {
    **_combat_jobs(),
    **{f"command:{k}": (lambda f=f: f().compile()) for k, f in COMMAND.items()},
}


@pytest.mark.parametrize("name", list(JOBS))
def test_records_contract(name):
    job = JOBS[name]()
    assert job.records
    rec = check_records(job)
    assert rec.shape[1] == len(job.stats)


def test_every_kernel_and_path_is_covered():
    """The job list reaches each of the ruleset's three kernels (the general kernel on a
    shooting-only sequence too), and every statistic the ruleset can report."""
    jobs = {k: f() for k, f in JOBS.items()}
    assert {j.kernel for j in jobs.values()} == {K.run_vom_kriege, SK.run_single_shot, run_command}
    assert jobs["two-volleys"].kernel is K.run_vom_kriege
    assert jobs["shot:no-dice"].kernel is SK.run_single_shot
    reported = {s.name for j in jobs.values() if j.kernel is not run_command for s in j.stats}
    from oddslab.rulesets.vom_kriege.layout import STAT_NAMES

    assert reported == set(STAT_NAMES)


def _records(sc: VomKriegeScenario) -> dict[str, np.ndarray]:
    job = sc.compile()
    rec = check_records(job, seed=3, ntrials=(20_000, 777))
    return {s.name: rec[:, i] for i, s in enumerate(job.stats)}


def test_attacker_hits_split_into_battle_back_and_defensive_fire_trial_by_trial():
    """Without a counter-charge every hit rolled on the attacker is a defensive-fire hit
    (the line's and the battery's) or a battle-back hit: the two columns add up to
    ``hits_on_attacker`` in every trial, and each occurs (and co-occurs) somewhere."""
    r = _records(_fire_and_battle_back())
    bb, df = r["hits_on_attacker_by_battle_back"], r["hits_on_attacker_by_defensive_fire"]
    assert np.array_equal(bb + df, r["hits_on_attacker"])
    assert (bb > 0).any() and (df > 0).any() and ((bb > 0) & (df > 0)).any()
    # no battle back without a melee: a charger stopped by the fire took fire hits only
    assert np.all(bb[r["attacker_reached_melee"] == 0] == 0)


def test_recorded_flags_agree_with_each_other():
    """Per trial, the defender is broken exactly when removed or at maximum hits, and a
    removed defender is neither disordered nor at maximum hits."""
    r = _records(CASES["charge"]())
    assert np.array_equal(r["defender_broken"], r["defender_removed"] | r["defender_at_max_hits"])
    gone = r["defender_removed"] == 1
    assert not r["defender_disordered"][gone].any() and not r["defender_at_max_hits"][gone].any()
    assert np.all(r["attacker_followed_up"] <= r["attacker_reached_melee"])
