"""Armoured Clash kernel vs its two independent references, every statistic, whole
distributions, strong enough that a 0.5 percentage-point error fails (issue 27).

Each scenario (activations with statuses expiring and rally tests, close quarters with
secondary combatants and defensive advantage under every reading, transports, garrisons, fall
backs and breaks, every shipped example) is run three ways and compared pairwise, every
statistic the two runs share by a two-sample chi-square on the whole distribution
(``switches.assert_agree``):

- the kernel (1,000,000 trials) against the fast numpy reference ``tests/fast_armoured_clash.py``
  (trials chosen per scenario from the kernel's histograms, ``fast_counts``: 100,000 to
  about 500,000): the strong check. ``switches.assert_power`` proves on every run that the
  same comparison fails had the kernel moved 0.5 pp of probability between two neighbouring
  outcomes of any of the scenario's headline statistics (``sc.headlines()``);
- the kernel against the slow pure-Python reference ``tests/naive_armoured_clash.py`` (2,000
  trials, kept on disk by ``tests/naive_cache.py``): the cascade's slow reference, enough to
  catch a dropped branch;
- the fast reference against the pure-Python one: the two references agree.

Scenarios the rule-switch tests (tests/test_armoured_clash_switches.py) run the same way (a
charge at a tank beside its escort, a garrison attacking from inside, opportunity fire seen
from the transport, the activations seen from x, small units seen from the charger under
one switched reading) are not repeated here.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from fast_armoured_clash import BLOCK, merge
from fast_armoured_clash import simulate as fast_simulate
from naive_armoured_clash import run as naive_run
from naive_cache import cached_run
from stats import P_MIN
from switches import (
    assert_agree,
    assert_power,
    homogeneity_p,
    kernel_once,
    per_trial_counts,
    planted_shift,
)

from oddslab.engine import simulate
from oddslab.rulesets.armoured_clash import (
    Armaments,
    ArmouredClashScenario,
    Attack,
    RangedAttack,
    Rules,
    Situation,
    Unit,
)
from oddslab.scenario import load

ROOT = Path(__file__).resolve().parent.parent
N_KERNEL = 1_000_000
#: the fast reference runs in blocks of this many trials (``fast_armoured_clash.BLOCK``)
FAST_STEP = BLOCK
#: the most fast-reference trials a comparison may take
FAST_MAX = 2_000_000
N_NAIVE = 2_000

_FAST: dict[tuple, dict[str, np.ndarray]] = {}


def kernel_counts(sc: ArmouredClashScenario, seed: int) -> dict[str, np.ndarray]:
    """The kernel's histograms (``N_KERNEL`` trials), once per session per (scenario, seed)."""
    return kernel_once(("armoured-clash", repr(sc), N_KERNEL, seed),
                       lambda: simulate(sc, trials=N_KERNEL, seed=seed).counts)  # fmt: skip


def _weak(sc, kernel: dict[str, np.ndarray], fast: dict[str, np.ndarray]) -> bool:
    """Would a 0.5 pp error in some headline statistic pass (``switches.assert_power``)?"""
    try:
        assert_power(headline(sc, kernel), fast, "", k=len(set(kernel) & set(fast)))
    except AssertionError:
        return True
    return False


def fast_trials(sc: ArmouredClashScenario, kernel: dict[str, np.ndarray]) -> int:
    """Fast-reference trials at which a 0.5 pp error in each headline statistic would fail
    the comparison with ``kernel`` by a factor 10 on the p-value, computed with the expected
    counts (the run's own fluctuation may still take the power away: see ``fast_counts``)."""
    k = len(kernel)
    for n in range(FAST_STEP, FAST_MAX + 1, FAST_STEP):
        if all(
            homogeneity_p(planted_shift(c), c / c.sum() * n) * k < P_MIN / 10
            for c in headline(sc, kernel).values()
        ):
            return n
    return FAST_MAX


def fast_counts(
    scs: dict[str, ArmouredClashScenario], seed: int, kernels: dict[str, dict[str, np.ndarray]]
) -> dict[str, dict[str, np.ndarray]]:
    """The fast reference's histograms seen from each focus of ``scs`` (one scenario, the
    same trials), with the power to see a 0.5 pp error against each focus's kernel run:
    ``fast_trials`` trials (the most any focus needs), then one more block at a time while
    ``assert_power`` would fail for one (its blocks are seeded by index, so the runs for a seed
    are nested and the answer does not depend on the order tests run in); at most
    ``FAST_MAX``. Once per session per (scenarios, seed)."""
    key = (tuple(repr(sc) for sc in scs.values()), seed)
    if key not in _FAST:
        sc = next(iter(scs.values()))
        foci = tuple(scs)
        n = max(fast_trials(scs[f], kernels[f]) for f in foci)
        fast = fast_simulate(sc, n, seed, foci=foci)
        while n < FAST_MAX and any(_weak(scs[f], kernels[f], fast[f]) for f in foci):
            more = fast_simulate(sc, FAST_STEP, seed, first_block=n // FAST_STEP, foci=foci)
            fast = {f: merge(fast[f], more[f]) for f in foci}
            n += FAST_STEP
        _FAST[key] = fast
    return _FAST[key]


def naive_counts(sc: ArmouredClashScenario, n: int, seed: int) -> dict[str, np.ndarray]:
    run = lambda s, k, sd: per_trial_counts(naive_run(s, k, sd))  # noqa: E731
    return cached_run("armoured-clash", sc, n, seed, run)


def headline(sc: ArmouredClashScenario, counts: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The scenario's headline statistics (the ruleset's ``headlines()``) among ``counts``."""
    names = {h.stat for h in sc.headlines()} & set(counts)
    assert names, "no headline statistic reported"
    return {k: counts[k] for k in sorted(names)}


def check_strong(sc: ArmouredClashScenario, seed: int, what: str, foci: tuple[str, ...] = ()):
    """The kernel against the fast reference, every statistic, with the power to see a 0.5 pp
    error in each headline statistic checked on these very runs; seen from the scenario's
    focus, or from each unit of ``foci`` (one fast run for all). Returns ``{focus: (kernel
    counts, fast counts)}``."""
    scs = {
        f: sc if f == sc.focus_unit else dataclasses.replace(sc, focus=f)
        for f in foci or (sc.focus_unit,)
    }
    kernels = {f: kernel_counts(x, seed) for f, x in scs.items()}
    fasts = fast_counts(scs, seed, kernels)
    for f, x in scs.items():
        kernel, fast = kernels[f], fasts[f]
        assert len(kernel) >= 5
        assert_agree(kernel, fast, f"{what} seen from {f}: kernel vs fast reference")
        common = len(set(kernel) & set(fast))
        assert_power(headline(x, kernel), fast, f"{what} seen from {f}: kernel vs fast", k=common)
    return {f: (kernels[f], fasts[f]) for f in scs}


def _compare(sc, seed, foci: tuple[str, ...] = ()):
    """The kernel, the fast reference and the pure-Python reference, pairwise (see above),
    seen from the scenario's focus or from each unit of ``foci``."""
    for f, (kernel, fast) in check_strong(sc, seed, sc.name, foci).items():
        naive = naive_counts(sc if f == sc.focus_unit else dataclasses.replace(sc, focus=f),
                             N_NAIVE, seed)  # fmt: skip
        assert_agree(kernel, naive, f"{sc.name} seen from {f}: kernel vs naive reference")
        assert_agree(fast, naive, f"{sc.name} seen from {f}: fast vs naive reference")


def _unit(name, side, models, **kw):
    dice = tuple(range(1, models + 1))
    kw.setdefault("armaments", Armaments(ranged=(RangedAttack("rifles", dice=dice),), melee=dice))
    return Unit(name, side=side, models=models, **kw)


def test_activations_and_status_expiry():
    """x starts suppressed and disordered, shoots, is shot at, then shoots again in a new
    activation (a rally test each time); y takes cover, fires opportunity fire, then shoots.
    Seen from y, every status lost at the end of an activation; seen from x under the default
    readings, the same sequence is the ``activations`` case of the switch tests."""
    x = _unit("x", "attacker", 8, defence=1, discipline=6, suppressed=True, disordered=True,
              break_limit=2, vp=5)  # fmt: skip
    y = _unit("y", "defender", 6, defence=1, discipline=6, taking_cover=True, vp=4,
              fall_back_losses=1)  # fmt: skip
    attacks = (
        Attack("y", "x", situation=Situation(opportunity_fire=True)),
        Attack("x", "y", situation=Situation(aiming=True, concealed=True)),
        Attack("y", "x"),
        Attack("x", "y", situation=Situation(new_activation=True)),
    )
    _compare(
        ArmouredClashScenario((x, y), attacks, focus="y", rules=Rules(status_expiry="all")), 102
    )


def close_quarters() -> ArmouredClashScenario:
    """Close quarters with a secondary combatant and a defensive advantage (also the
    ruleset's strong case in tests/test_naive_power.py)."""
    att = _unit("att", "attacker", 6, defence=2, damage_limit=2, discipline=7, break_limit=1,
                vp=6, withdraw_losses=1)  # fmt: skip
    tgt = _unit("tgt", "defender", 4, defence=2, discipline=6, break_limit=1, vp=4,
                withdraw_losses=1)  # fmt: skip
    sec = _unit("sec", "defender", 3, defence=1, discipline=5, vp=2, suppressed=True)
    sit = Situation(secondary=("sec",), defensive_advantage=True, outflanking=True)
    return ArmouredClashScenario(
        (att, tgt, sec), (Attack("att", "tgt", kind="close", situation=sit),)
    )


def test_close_quarters_with_secondary_and_defensive_advantage():
    _compare(close_quarters(), seed=103, foci=("tgt", "att"))


@pytest.mark.parametrize(
    "annihilates, secondaries",
    [
        ("most_kills", "with_target"),
        ("action_ends", "after_charger"),
        ("most_kills", "after_charger"),
    ],
)
def test_close_quarters_under_the_other_readings(annihilates, secondaries):
    """Small units, so that a retaliation often annihilates: with and without a defensive
    advantage, a secondary combatant striking with the target or after the charger. Seen
    from the charger under a defensive advantage with one reading switched, this is the
    ``close_small`` case of the switch tests (not repeated here)."""
    att = _unit("att", "attacker", 3, defence=1, discipline=5, break_limit=1, vp=6,
                withdraw_losses=1)  # fmt: skip
    tgt = _unit("tgt", "defender", 2, defence=1, discipline=4, vp=4, withdraw_losses=1)
    sec = _unit("sec", "defender", 2, defence=1, discipline=5, vp=2)
    rules = Rules(retaliation_annihilates=annihilates, secondaries_with_advantage=secondaries)
    for i, adv in enumerate((True, False)):
        sit = Situation(secondary=("sec",), defensive_advantage=adv)
        attacks = (Attack("att", "tgt", kind="close", situation=sit),)
        sc = ArmouredClashScenario((att, tgt, sec), attacks, rules=rules)
        both = annihilates != "action_ends" and secondaries != "with_target"
        _compare(sc, seed=120 + i, foci=("tgt", "att") if both or not adv else ("tgt",))


def test_close_quarters_flags_carried_to_the_retaliation():
    """The charger supported (so the target's retaliation is threatened, a secondary's not);
    then a retaliation said to be supported (so the charger is threatened)."""
    att = _unit("att", "attacker", 6, defence=1, discipline=7, break_limit=1, vp=6)
    tgt = _unit("tgt", "defender", 4, defence=1, discipline=6, vp=4, withdraw_losses=1)
    sec = _unit("sec", "defender", 3, defence=1, discipline=5, vp=2)
    sit = Situation(secondary=("sec",), supported=True)
    sc = ArmouredClashScenario(
        (att, tgt, sec), (Attack("att", "tgt", kind="close", situation=sit),), focus="att"
    )
    _compare(sc, seed=108)
    sit2 = Situation(defender_supported=True, outflanking=True)
    _compare(
        ArmouredClashScenario((att, tgt), (Attack("att", "tgt", kind="close", situation=sit2),)),
        seed=109,
    )


@pytest.mark.parametrize("rule", ["no_test", "no_status"])
def test_opportunity_fire_and_aircraft_under_either_reading(rule):
    """Opportunity fire at a suppressed transport (passengers aboard) that activates, then at
    an aircraft with a BREAK LIMIT, seen from the aircraft (seen from the transport it is the
    ``opportunity`` case of the switch tests)."""
    truck = Unit("truck", side="attacker", type="armour", category="heavy", models=3, defence=1,
                 discipline=5, capacity=3, carrying="foot", vp=6, suppressed=True,
                 fall_back_losses=1, break_limit=1)  # fmt: skip
    foot = Unit("foot", side="attacker", models=6, defence=1, discipline=5, break_limit=2, vp=4)
    plane = Unit("plane", side="attacker", type="aircraft", category="aerial", models=2,
                 defence=1, discipline=5, break_limit=1, vp=3)  # fmt: skip
    flak = _unit("flak", "defender", 4, defence=1, discipline=6,
                 armaments=Armaments(ranged=(RangedAttack("gun", dice=(2, 3, 4, 5),
                                                          vs=("heavy", "aerial")),)))  # fmt: skip
    flak2 = Unit("flak2", **{k: getattr(flak, k) for k in ("models", "defence", "discipline")},
                 armaments=flak.armaments)  # fmt: skip
    opp = Situation(opportunity_fire=True)
    # one unit on lookout each: opportunity fire ends the status
    attacks = (Attack("flak", "truck", situation=opp), Attack("flak2", "plane", situation=opp))
    rules = Rules(cannot_be_suppressed=rule)
    units = (truck, foot, plane, flak, flak2)
    _compare(ArmouredClashScenario(units, attacks, rules=rules, focus="plane"), seed=112)


def test_transport_garrison_and_random_officer():
    truck = Unit("truck", type="armour", category="heavy", models=3, defence=2, damage_limit=2,
                 discipline=6, capacity=3, carrying="foot", vp=6)  # fmt: skip
    foot = Unit("foot", models=9, defence=1, discipline=6, break_limit=3, officer="random", vp=4)
    guns = _unit("guns", "attacker", 3, defence=2, discipline=7,
                 armaments=Armaments(ranged=(RangedAttack("at", dice=(3, 5, 7), vs=("heavy",)),)))  # fmt: skip
    garr = _unit("garr", "defender", 6, defence=1, discipline=6, garrisoned=True, vp=3)
    attacks = (
        Attack("guns", "truck", situation=Situation(short_range=True)),
        Attack("guns", "truck", situation=Situation(new_activation=True)),
    )
    _compare(ArmouredClashScenario((guns, truck, foot, garr), attacks), seed=105)
    storm = _unit("storm", "attacker", 8, defence=1, discipline=7)
    _compare(
        ArmouredClashScenario((storm, garr), (Attack("storm", "garr", kind="close"),)), seed=106
    )


@pytest.mark.parametrize(
    "path", sorted(ROOT.glob("examples/armoured-clash-*.toml")), ids=lambda p: p.stem
)
def test_examples_match_the_reference(path):
    _compare(load(path), seed=107)


def test_garrison_exit_and_repeated_activations():
    """A garrison exits (reforming) and fires with all its models; return fire then finds it
    outside the building; a suppressed unit fires in two activations (``repeat``), rallying
    at the start of each."""
    g = _unit("g", "attacker", 6, defence=2, discipline=6, garrisoned=True, vp=3)
    t = _unit("t", "defender", 8, defence=1, discipline=6, break_limit=2, vp=4)
    attacks = (
        Attack("g", "t", situation=Situation(reforming=True)),
        Attack("t", "g", situation=Situation(short_range=True)),
    )
    _compare(ArmouredClashScenario((g, t), attacks), seed=108)
    s = _unit("s", "attacker", 4, defence=2, discipline=6, suppressed=True)
    again = Attack("s", "t", situation=Situation(new_activation=True))
    _compare(ArmouredClashScenario((s, t), (Attack("s", "t"), again)), seed=109)
