"""Hex platoon per-trial records: the contract (tests/records_check.py) on every kind of job
the ruleset makes, on both kernels (the single-fire-attack fast path
:data:`~oddslab.rulesets.hex_platoon.kernel_fire.run_hex_fire` and the step interpreter
:data:`~oddslab.rulesets.hex_platoon.kernel_run.run_hex_platoon`), every step kind and every
statistic layout; then what the records say trial by trial (a unit's detailed state against
its state, an air strike's hits on the target hex against those gone astray, a hex's counts
against its units' states) and that the engine's histograms for a seed are the records'."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))

from hex_platoon_cases import (  # noqa: E402
    HQ,
    RIFLES,
    TANK,
    air_case,
    assault_case,
    fire_case,
    orders_case,
    scenario,
    sequence_case,
    unit,
)
from records_check import check_records, run_with_records  # noqa: E402

from oddslab import engine  # noqa: E402
from oddslab.rulesets.hex_platoon import layout as K  # noqa: E402
from oddslab.scenario import from_dict, load  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "oddslab" / "examples").glob("hex-platoon-*.toml"))

_TARGETS = {
    "name": "woods",
    "terrain": "wood",
    "defence": 1,
    "units": [unit("a", **RIFLES), unit("t", **TANK), unit("hq", **HQ)],
}
_MORTARS = {
    "name": "m",
    "units": [unit("mortar", type="mortar", he=3, range=8, to_hit=4), unit("obs", type="recon")],
}

#: name -> (scenario dict, the kernel it must run on: "fire" fast path or "run" interpreter)
CASES = {
    # the fast path: hits, unsaved hits, state; and with the detailed state of a reduced unit
    "fast-fire": (fire_case(), "fire"),
    "fast-fire-detail": (fire_case(target_kw={"reduced": True}), "fire"),
    "fast-fire-per-attack": (
        fire_case(firer_kw={"he": 4, "to_hit": 3}, rules={"hit_ladder": "one-step-per-attack"}),
        "fire",
    ),
    # one fire step the fast path does not take (an (s)HQ in the target hex)
    "fire-at-hq-hex": (
        scenario(
            [
                {"name": "ridge", "units": [unit("mg", **{**RIFLES, "he": 4, "to_hit": 4})]},
                {
                    "name": "field",
                    "units": [unit("a", **RIFLES), unit("b", **RIFLES), unit("hq", **HQ)],
                },
            ],
            [{"kind": "fire", "firer": "mg", "target": "a"}],
        ),
        "run",
    ),
    "fire-twice-detail": (
        scenario(
            [
                {
                    "name": "ridge",
                    "units": [unit(n, **{**RIFLES, "he": 2, "to_hit": 4}) for n in ("mg", "mg2")],
                },
                {"name": "field", "units": [unit("a", **RIFLES, reduced=True)]},
            ],
            [
                {"kind": "fire", "firer": "mg", "target": "a"},
                {"kind": "fire", "firer": "mg2", "target": "a"},
            ],
        ),
        "run",
    ),
    "mortar-observed": (
        scenario(
            [_TARGETS, _MORTARS],
            [{"kind": "mortar", "firer": "mortar", "target": "woods", "spotter": "obs"}],
        ),
        "run",
    ),
    "artillery": (
        scenario(
            [_TARGETS, {"name": "n1", "units": [unit("c", **RIFLES)]}, {"name": "n2"}],
            [{"kind": "artillery", "hexes": ["woods", "n1", "n2"], "firepower": 5, "to_hit": 4}],
        ),
        "run",
    ),
    "mines": (scenario([_TARGETS], [{"kind": "move", "stack": "woods", "mines": True}]), "run"),
    "clear-mines": (
        scenario(
            [{"name": "w", "units": [unit("a", **RIFLES), unit("e", type="engineer")]}],
            [{"kind": "clear-mines", "stack": "w"}],
        ),
        "run",
    ),
    "rally": (
        scenario(
            [
                {
                    "name": "w",
                    "units": [
                        unit("a", **RIFLES, disrupted=True, reduced=True),
                        unit("b", **RIFLES, disrupted=True),
                        unit("hq", **HQ),
                    ],
                }
            ],
            [{"kind": "rally", "stack": "w"}],
        ),
        "run",
    ),
    "command": (
        scenario(
            [{"name": "w", "units": [unit("a", **RIFLES)]}],
            [{"kind": "command", "stack": "w", "morale": 7}],
        ),
        "run",
    ),
    "assault": (assault_case(), "run"),
    "assault-no-retreat": (assault_case(can_retreat=False), "run"),
    "air-strike": (air_case(), "run"),
    "air-strike-disrupted-strikes": (
        air_case(
            rules={"disrupted_aircraft_strikes": True, "air_failed_strike_return": "zero-hits"}
        ),
        "run",
    ),
    # move with mines, opportunity fire, assault, overrun, rally in one trial
    "sequence": (sequence_case(), "run"),
    # command checks, observed artillery, clear-mines, every order kind in one trial
    "orders": (orders_case(), "run"),
}


def _job(case: str) -> engine.Job:
    return from_dict(CASES[case][0]).compile()


@pytest.mark.parametrize("case", sorted(CASES))
def test_records_contract(case):
    job = _job(case)
    want = {"fire": "run_hex_fire", "run": "run_hex_platoon"}[CASES[case][1]]
    assert job.kernel.__name__ == want, f"{case} runs on {job.kernel.__name__}"
    check_records(job)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_records_contract_examples(path):
    check_records(load(path).compile())


def test_every_layout_is_covered():
    """The cases list every kind of statistic the kernels read (``so`` programme kinds,
    and every per-step record field of every step kind), so the contract runs on each."""
    kinds: set[int] = set()
    fields: set[tuple[int, int]] = set()
    for case in CASES:
        sc = from_dict(CASES[case][0])
        _stats, so, _h, _p = sc.stat_plan()
        kinds |= {int(k) for k in so[:, K.O_KIND]}
        for row in so[so[:, K.O_KIND] == K.OK_REC]:
            fields.add((int(sc.arrays()["sp"][row[K.O_A], K.S_KIND]), int(row[K.O_B])))
    assert kinds == {K.OK_STATE, K.OK_REC, K.OK_HEX_GE, K.OK_STATE_DETAIL}
    step_kinds = {k for k, _f in fields}
    assert step_kinds == {
        K.K_FIRE, K.K_MORTAR, K.K_ARTILLERY, K.K_MOVE, K.K_CLEAR, K.K_RALLY,
        K.K_COMMAND, K.K_ASSAULT, K.K_OVERRUN, K.K_AIR,
    }  # fmt: skip
    air = {f for k, f in fields if k == K.K_AIR}
    assert air == set(range(8)), "an air strike's every statistic, target and astray hits too"


def _records(case: str) -> tuple[engine.Job, dict[str, np.ndarray]]:
    job = _job(case)
    rec = check_records(job)
    return job, {s.name: rec[:, i] for i, s in enumerate(job.stats)}


#: the state a detailed state reads as (reduced and disrupted is reduced)
_DETAIL_TO_STATE = np.array([0, 1, 2, 2, 3])


@pytest.mark.parametrize("case", ["fast-fire-detail", "fire-twice-detail", "rally"])
def test_detailed_state_agrees_with_state_trial_by_trial(case):
    _job_, r = _records(case)
    details = [n for n in r if n.endswith("_state_detail")]
    assert details
    for n in details:
        state = r[n.removesuffix("_detail")]
        assert np.array_equal(_DETAIL_TO_STATE[r[n]], state), n
    assert any(((r[n] == 2) | (r[n] == 3)).any() for n in details), "no reduced unit recorded"
    if case == "rally":  # a rallied reduced unit ends reduced in good order: 2, not 3
        assert set(np.unique(r["a_state_detail"])) == {2, 3}


@pytest.mark.parametrize("case", ["air-strike", "air-strike-disrupted-strikes"])
def test_air_strike_target_and_astray_trial_by_trial(case):
    """Each trial's unsaved strike hits land on the target hex (accuracy 2 or 3) or astray
    on the adjacent hex (accuracy 1), never both; no strike (0) hits nothing."""
    _job_, r = _records(case)
    acc = r["strike_accuracy"]
    total = r["unsaved_hits_by_aircraft"]
    on = r["unsaved_hits_by_aircraft_on_farm"]
    astray = r["unsaved_hits_by_aircraft_on_field"]
    assert np.array_equal(on + astray, total)
    assert not np.any((on > 0) & (astray > 0))
    assert np.all(on[acc <= 1] == 0) and np.all(astray[acc != 1] == 0)
    assert np.all(r["hits_by_aircraft"][acc == 0] == 0)
    assert (on > 0).any() and (astray > 0).any(), "both landings happen in 3000 trials"
    # a strike happens only when the aircraft was not shot down or disrupted away
    fate = r["aircraft_fate"]
    assert np.all(acc[fate == 4] == 0)


def test_hex_counts_agree_with_unit_states_trial_by_trial():
    _job_, r = _records("artillery")
    states = np.stack([r["a_state"], r["t_state"]])
    for lvl, word in ((1, "disrupted_or_worse"), (2, "reduced_or_eliminated"), (3, "eliminated")):
        assert np.array_equal(r[f"woods_units_{word}"], (states >= lvl).sum(axis=0)), word


@pytest.mark.parametrize("case", ["fast-fire-detail", "orders"])
def test_engine_histograms_are_the_records(case):
    """``simulate`` for a seed (normal run, empty records) counts exactly what a records
    run of the same chunks wrote, trial by trial."""
    sc = from_dict(CASES[case][0])
    job = sc.compile()
    n = 70_000  # two chunks, the second partial
    out = engine.simulate(sc, trials=n, seed=11)
    sizes = (engine.CHUNK_TRIALS, n - engine.CHUNK_TRIALS)
    _hist, rec = run_with_records(job, 11, sizes)
    rows = np.concatenate([rec[0, : sizes[0]], rec[1, : sizes[1]]])
    for i, s in enumerate(job.stats):
        counts = np.bincount(rows[:, i], minlength=s.nbins)
        assert np.array_equal(counts, out.counts[s.name]), s.name
