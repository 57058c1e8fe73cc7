"""Sweeps: cells equal single simulate runs, seeds depend only on the cell, tidy output, plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import oddslab
from oddslab._schema import ScenarioError
from oddslab.analysis.cells import cell_seed
from oddslab.analysis.sweep import parse_values, plot_sweep, sweep

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"
LIBS = ROOT / "oddslab" / "examples" / "libraries"


def test_every_cell_equals_simulate_with_its_seed_bit_for_bit():
    res = sweep(SCENARIO, {"target.save": range(3, 6), "attacker.weapons.0.models": [5, 10]},
                trials=70_000, seed=4, exact="never")  # fmt: skip
    assert len(res.cells) == 6
    for cell, out in zip(res.cells, res.outcomes, strict=True):
        assert cell.seed == cell_seed(4, cell.values)
        sc = oddslab.load(SCENARIO)
        data = {k: v for k, v in cell.scenario.items()}
        single = oddslab.simulate(oddslab.from_dict(data), trials=70_000, seed=cell.seed)
        assert single.trials == out.trials
        for name in single.counts:
            np.testing.assert_array_equal(
                single.counts[name], out.counts[name][: len(single.counts[name])]
            )
        assert sc.name == out.name
    # the varied values really reached the kernel
    tab = res.table("mean(attacks)")
    assert list(tab["value"]) == [10.0, 20.0] * 3


def test_a_cell_does_not_depend_on_the_other_cells_or_their_order():
    a = sweep(SCENARIO, {"target.save": [3, 4, 5]}, trials=20_000, seed=8, exact="never")
    b = sweep(SCENARIO, {"target.save": [5, 4]}, trials=20_000, seed=8, exact="never")
    by_a = {c.values["target.save"]: r.counts for c, r in zip(a.cells, a.results, strict=True)}
    by_b = {c.values["target.save"]: r.counts for c, r in zip(b.cells, b.results, strict=True)}
    assert by_a[4] == by_b[4] and by_a[5] == by_b[5]
    assert cell_seed(8, {"x": 1, "y": 2}) == cell_seed(8, {"y": 2, "x": 1})
    assert cell_seed(8, {"x": 1}) != cell_seed(9, {"x": 1})


def test_tidy_frame_has_one_row_per_cell_and_statistic():
    res = sweep(SCENARIO, {"target.save": [4, 5]}, trials=10_000, seed=1)
    df = res.frame()
    stats = res.outcomes[0].stat_names
    heads = len(res.outcomes[0].probabilities())
    assert len(df) == 2 * (len(stats) + heads)
    assert list(df.columns[:4]) == ["target.save", "kind", "statistic", "label"]
    row = df[
        (df["target.save"] == 4) & (df["statistic"] == "models_slain") & (df["kind"] == "mean")
    ]
    out = res.outcomes[0]
    assert row["value"].item() == pytest.approx(out.mean("models_slain"))
    p = df[(df["kind"] == "probability") & (df["label"] == "P(target unit destroyed)")]
    assert len(p) == 2 and ((p["ci_low"] <= p["value"]) & (p["value"] <= p["ci_high"])).all()
    assert set(res.frame(stats=["damage"])["statistic"]) == {"damage"}


def test_export_csv_and_parquet(tmp_path):
    res = sweep(SCENARIO, {"target.save": [4, 5]}, trials=5_000, seed=1)
    res.to_csv(tmp_path / "s.csv")
    back = pd.read_csv(tmp_path / "s.csv")
    pd.testing.assert_frame_equal(back, res.frame(), check_dtype=False)
    res.to_parquet(tmp_path / "s.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "s.parquet"), res.frame())
    res.to_parquet(tmp_path / "d.parquet", ["damage"])  # --out x.parquet --stat damage
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "d.parquet"), res.frame(["damage"]))


def test_paths_reach_into_library_entries_and_can_vary_the_use_itself(tmp_path):
    scen = tmp_path / "s.toml"
    scen.write_text(
        f'ruleset = "generic"\nseed = 3\n[attacker]\nuse = "{LIBS / "generic.toml"}:shock_squad"\n'
        f'[target]\nuse = "{LIBS / "generic.toml"}:conscripts"\n'
    )
    res = sweep(scen, {"attacker.weapons.0.models": [1, 2], "target.save": [2, 6]}, trials=2_000)
    assert list(res.table("mean(attacks)")["value"]) == [2.0, 2.0, 4.0, 4.0]
    uses = [f"{LIBS / 'generic.toml'}:conscripts", f"{LIBS / 'generic.toml'}:battle_tank"]
    res = sweep(scen, {"target.use": uses}, trials=2_000)
    # 20 one-wound conscripts, then a battle tank of 13 wounds: the target really changed
    assert [o.probs["wounds_remaining"].size for o in res.outcomes] == [21, 14]
    # 5 bolt rifles cannot slay the tank: that cell has no models_slain, so the default metric
    # is a statistic both cells report, and models_slain reads 0 there (it cannot happen)
    assert "models_slain" in res.outcomes[0].probs and "models_slain" not in res.outcomes[1].probs
    assert res.table()["metric"].iloc[0] == "mean(damage_dealt)"
    slain = res.table("mean(models_slain)")
    assert slain["value"].iloc[0] > 0 and slain["value"].iloc[1] == 0
    assert list(slain["note"]) == ["", "cannot happen here: 0"]
    assert res.seed == 3  # the scenario's seed


def test_bad_cells_name_the_cell_and_key():
    with pytest.raises(ScenarioError, match=r"\[target\.save=8\]: target\.save: expected a save"):
        sweep(SCENARIO, {"target.save": [7, 8]}, trials=100)
    with pytest.raises(ScenarioError, match=r"target\.sav: unknown key"):
        sweep(SCENARIO, {"target.sav": [4]}, trials=100)
    with pytest.raises(ScenarioError, match=r"attacker\.weapons\.3: no entry 3"):
        sweep(SCENARIO, {"attacker.weapons.3.models": [4]}, trials=100)
    with pytest.raises(ScenarioError, match=r"\]: nothing: no such table"):
        sweep(SCENARIO, {"nothing.here.x": [4]}, trials=100)
    with pytest.raises(ScenarioError, match="file not found"):
        sweep("no-such.toml", {"target.save": [4]})
    with pytest.raises(ValueError, match="nothing to vary"):
        sweep(SCENARIO, {})


def test_parse_values():
    assert parse_values("2..6") == [2, 3, 4, 5, 6]
    assert parse_values("0..20..5") == [0, 5, 10, 15, 20]
    assert parse_values("5,10,20") == [5, 10, 20]
    assert parse_values("true,false") == [True, False]
    assert parse_values('"D6", D3+1, 2.5') == ["D6", "D3+1", 2.5]
    assert parse_values("[1, 2],[3]") == [[1, 2], [3]]
    with pytest.raises(ValueError):
        parse_values("6..2")


def test_plots_return_axes():
    import matplotlib.pyplot as plt

    one = sweep(SCENARIO, {"target.save": [3, 4, 5]}, trials=5_000, seed=2)
    ax = plot_sweep(one, "P(at least 1 target model slain)")
    assert ax.get_xlabel() == "target save" and len(ax.lines) >= 1
    two = sweep(SCENARIO, {"target.save": [3, 4], "attacker.weapons.0.models": [5, 10]},
                trials=5_000, seed=2)  # fmt: skip
    fig, axis = plt.subplots()
    assert two.plot("mean(models_slain)", ax=axis) is axis
    assert axis.images and len(axis.texts) == 4
    plt.close("all")


def test_top_level_names_are_the_analysis_functions():
    import oddslab
    import oddslab.analysis

    assert oddslab.sweep is oddslab.analysis.sweep and callable(oddslab.sweep)
    assert oddslab.matchup is oddslab.analysis.matchup and callable(oddslab.matchup)
    for name in ("sweep", "matchup", "efficiency", "fair_points", "duel_balance"):
        assert name in oddslab.__all__


def test_two_spellings_of_one_key_are_one_canonical_path():
    from oddslab.analysis.paths import canonical_path

    assert canonical_path("target[save]") == canonical_path("target.save") == "target.save"
    assert canonical_path('target["save"]') == "target.save"
    assert canonical_path("attacker.weapons[0].models") == "attacker.weapons.0.models"
    # the bracket spelling runs, labels and seeds exactly as the dotted one
    a = sweep(SCENARIO, {"target[save]": [3, 5]}, trials=3_000, seed=2, exact="never")
    b = sweep(SCENARIO, {"target.save": [3, 5]}, trials=3_000, seed=2, exact="never")
    assert a.keys == ["target.save"] and list(a.table()["target.save"]) == [3, 5]
    assert [r.counts for r in a.results] == [r.counts for r in b.results]
    assert [c.seed for c in a.cells] == [cell_seed(2, {"target.save": v}) for v in (3, 5)]


@pytest.mark.parametrize(
    "vary",
    [
        {"target.save": [2, 3, 4], "target[save]": [5]},
        {"attacker.weapons.0.models": [5], "attacker.weapons[0].models": [6]},
        {"attacker.weapons.0": [{}], "attacker.weapons.0.models": [6]},
    ],
)
def test_varying_a_key_twice_is_an_error_naming_both(vary):
    first, second = list(vary)
    with pytest.raises(ValueError, match="'" + first.replace("[", r"\[") + "' and '"):
        sweep(SCENARIO, vary, trials=100)
    with pytest.raises(ValueError, match=second.replace("[", r"\[").replace(".", r"\.")):
        sweep(SCENARIO, vary, trials=100)


def test_the_same_value_twice_names_the_cell():
    with pytest.raises(ValueError, match=r"same values \(target\.save=4, in .*\[target\.save=4\]"):
        sweep(SCENARIO, {"target.save": [4, 4]}, trials=100)


def test_two_values_the_scenario_reads_alike_are_one_value_naming_both(monkeypatch):
    from oddslab.analysis import distributed

    def never(*a, **k):
        raise AssertionError("a cell ran")

    monkeypatch.setattr(distributed, "run_cells", never)
    key = "attacker.weapons.0.damage"
    with pytest.raises(ValueError, match=f"{key}='1' and {key}=1 are one value"):
        sweep(SCENARIO, {key: ["1", 1], "target.save": [3, 4]}, trials=100, progress=None)
    with pytest.raises(ValueError, match=f"{key}='D3' and {key}='1D3' are one value"):
        sweep(SCENARIO, {key: ["D3", "D6", "1D3"]}, trials=100, progress=None)


def test_unknown_statistic_in_the_frame_gets_did_you_mean():
    res = sweep(SCENARIO, {"target.save": [4]}, trials=1_000, seed=1)
    with pytest.raises(ValueError, match="no statistic 'model_slain'.*did you mean 'models_slain'"):
        res.frame(["model_slain"])


def test_sweep_accepts_a_scenario_object():
    sc = oddslab.load(SCENARIO)
    a = oddslab.sweep(sc, {"target.save": [3, 5]}, trials=2_000, exact="never")
    b = sweep(SCENARIO, {"target.save": [3, 5]}, trials=2_000, exact="never")
    assert a.seed == b.seed == sc.seed  # the object's seed is the file's
    assert [r.counts for r in a.results] == [r.counts for r in b.results]


def test_a_big_sweep_keeps_values_not_scenarios_and_gives_the_same_answers(monkeypatch):
    import importlib

    from oddslab.analysis import cells as cells_mod

    sweep_mod = importlib.import_module("oddslab.analysis.sweep")  # the module, not the function

    vary = {"target.models": [5, 6, 7]}
    small = sweep(SCENARIO, vary, trials=1_000, seed=4, exact="never")
    monkeypatch.setattr(sweep_mod, "KEEP_VALIDATED", 2)  # as if the study were huge
    monkeypatch.setattr(cells_mod, "KEEP_VALIDATED", 2)
    big = sweep(SCENARIO, vary, trials=1_000, seed=4, exact="never")
    assert all(callable(c.spec) and c.validated is None for c in big.cells)
    assert [c.scenario for c in big.cells] == [c.scenario for c in small.cells]
    assert [r.counts for r in big.results] == [r.counts for r in small.results]
    pd.testing.assert_frame_equal(big.frame(), small.frame())
    pd.testing.assert_frame_equal(big.table(), small.table())


# -- events as metrics ----------------------------------------------------------------------
EVENTS = ["clean = models_slain >= 5 and damage <= 12", "hits >= 15 | wounds >= 5"]


def test_event_metrics_equal_simulate_with_the_cells_seed():
    res = sweep(SCENARIO, {"target.save": [4, 6]}, trials=30_000, seed=3, exact="never",
                events=EVENTS, progress=None)  # fmt: skip
    assert res.metric == "P(clean)"  # the first event is the default metric
    tabs = {"clean": res.table(), "hits >= 15 | wounds >= 5": res.table(f"P({EVENTS[1]})")}
    for i, cell in enumerate(res.cells):
        single = oddslab.simulate(oddslab.from_dict(cell.scenario), trials=30_000,
                                  seed=cell.seed, events=EVENTS)  # fmt: skip
        for label, tab in tabs.items():
            r = single.probability(label)
            row = tab.iloc[i]
            assert (row.value, row.se, row.ci_low, row.ci_high) == (r.probability, r.se,
                                                                    r.ci_low, r.ci_high)  # fmt: skip
            assert not row.exact and row.note == ""
        # a condition on one statistic, inline, reads the histogram: the same count
        inline = res.table("P(2 <= models_slain <= 4)").iloc[i]
        assert inline.value == single.probability("2 <= models_slain <= 4").probability
    frame = res.frame()
    ev = frame[frame["kind"] == "event"]
    assert list(ev["label"]) == ["P(clean)", f"P({EVENTS[1]})"] * 2
    assert list(ev["statistic"]) == ["models_slain >= 5 and damage <= 12", EVENTS[1]] * 2
    ax = res.plot()  # the default metric: the first event, with its 95% intervals
    assert ax.get_ylabel() == "P(clean)" and "95% CI" in ax.get_title()


def test_exact_cells_answer_events_from_exact_distributions():
    joint = "kills = models_slain >= 5 and damage_dealt >= 8"  # allocation stats: exact joint
    static = "hits >= 15 and wounds >= 5"  # not given jointly by the exact engine
    one = "models_slain >= 5"
    res = sweep(SCENARIO, {"target.save": [4]}, seed=3, events=[joint, one], progress=None)
    out = res.outcomes[0]
    assert out.exact and out.events["kills"].exact and out.events[one].exact
    p_one = float(out.probs["models_slain"][5:].sum())
    assert res.table(f"P({one})").value[0] == pytest.approx(p_one, abs=1e-12)
    mc = sweep(SCENARIO, {"target.save": [4]}, seed=3, events=[joint], trials=200_000,
               exact="never", progress=None).table().iloc[0]  # fmt: skip
    assert abs(mc.value - res.table().value[0]) < 4 * mc.se
    # a join the exact engine cannot give: the cell is simulated whole
    sim = sweep(SCENARIO, {"target.save": [4]}, seed=3, events=[static], trials=20_000,
                progress=None)  # fmt: skip
    assert not sim.outcomes[0].exact and sim.results[0].trials == 20_000
    assert sim.table().se[0] > 0


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"events": ["many = model_slain >= 5"]}, "did you mean 'models_slain'"),
        ({"events": ["many = models_slain >= 5"], "metric": "P(mny)"}, r"did you mean 'P\(many\)'"),
        ({"metric": "P(models_slain >= 5 and wound >= 2)"}, "did you mean 'wounds'"),
        ({"events": ["models_slain / 2 >= 1"]}, "'/' is not allowed"),
    ],
)
def test_bad_events_fail_before_any_cell_runs(monkeypatch, kw, match):
    from oddslab.analysis import distributed

    def never(*a, **k):
        raise AssertionError("a cell ran")

    monkeypatch.setattr(distributed, "run_cell", never)
    with pytest.raises(ValueError, match=match) as info:
        sweep(SCENARIO, {"target.save": [4, 5]}, trials=1000, seed=1, progress=None, **kw)
    assert "\n" not in str(info.value) and "[target.save=4]" in str(info.value)


def test_cells_without_an_events_statistic_read_nan_with_a_note():
    # 20 shots of damage 1 cannot slay a 25-wound model: generic leaves models_slain out
    res = sweep(SCENARIO, {"target.wounds": [1, 25]}, seed=1, progress=None,
                events=["many = models_slain >= 2"])  # fmt: skip
    tab = res.table()
    assert tab.value[0] > 0 and np.isnan(tab.value[1])
    assert tab.note[1] == "not reported: no statistic 'models_slain' here"


def test_precision_holds_an_event_metric_and_stays_a_plain_run():
    ev = ["rare = models_slain >= 9 and damage <= 12"]
    res = sweep(SCENARIO, {"target.save": [5]}, seed=2, precision=0.002, exact="never",
                events=ev, metric="P(rare)", progress=None)  # fmt: skip
    row, cell, n = res.table().iloc[0], res.cells[0], res.results[0].trials
    assert (row.ci_high - row.ci_low) / 2 < 0.002 and n > 65_536  # one chunk was not enough
    single = oddslab.simulate(oddslab.from_dict(cell.scenario), trials=n, seed=cell.seed,
                              events=ev)  # fmt: skip
    assert row.value == single.probability("rare").probability


def test_a_condition_that_never_happens_reads_nan_and_says_so():
    res = sweep(SCENARIO, {"target.save": [5]}, seed=2, trials=5_000, exact="never",
                metric="P(models_slain >= 1 | hits > 40 and wounds >= 0)", progress=None)  # fmt: skip
    row = res.table().iloc[0]
    assert np.isnan(row.value) and row.note == "the condition never happened in 5,000 trials"


def test_two_events_of_one_name_are_refused():
    with pytest.raises(ValueError, match="two events are called 'a'"):
        sweep(SCENARIO, {"target.save": [4]}, events=["a = hits >= 1", "a = wounds >= 1"])


#: What a scenario read back from its written dict may differ in: only what it records for
#: display (a command's ``cp_inputs``: how its CP were worked out from units and markers).
DISPLAY_ONLY = {"cp_inputs"}


def _examples():
    from oddslab import ruleset as registry
    from oddslab.scenario import read_toml

    out = []
    for path in sorted((ROOT / "oddslab" / "examples").glob("*.toml")):
        name = read_toml(path).get("ruleset", "generic")
        assert name in registry.BUILTIN
        out.append(pytest.param(path, name, id=path.stem))
    return out


@pytest.mark.parametrize(("path", "ruleset"), _examples())
def test_a_scenario_built_in_python_round_trips_through_to_dict(path, ruleset):
    """``dataclasses.replace`` makes an object no file was read for: its ``to_dict()`` is
    written from the object (through the ruleset's declared keys, checked by reading it back)
    and reads back to an equal scenario, the same compiled job and the same histograms, for
    every example of every ruleset."""
    import dataclasses

    sc = oddslab.load(path)
    built = dataclasses.replace(sc)  # no kept source: written from its fields
    back = oddslab.from_dict(built.to_dict())
    differ = {
        f.name for f in dataclasses.fields(sc) if getattr(sc, f.name) != getattr(back, f.name)
    }
    assert differ <= DISPLAY_ONLY, (ruleset, differ)
    a, b = sc.compile(), back.compile()
    assert len(a.params) == len(b.params)
    for x, y in zip(a.params, b.params, strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))
    one = oddslab.simulate(sc, trials=1_000, seed=5)
    two = oddslab.simulate(back, trials=1_000, seed=5)
    assert {k: v.tolist() for k, v in one.counts.items()} == {
        k: v.tolist() for k, v in two.counts.items()
    }


@pytest.mark.parametrize(
    "name",
    [
        "generic-lascannons-vs-tank",
        "armoured-clash-fire-sequence",
        "assault-marines-charge-orks-in-cover",
        "formation-actions-under-fire",
        "hex-platoon-artillery-mission",
        "vom-kriege-cavalry-counter-charge",
        "vom-kriege-command-two-assaults",
    ],
)
def test_sweep_takes_a_scenario_object_built_in_python(name):
    import dataclasses

    sc = dataclasses.replace(oddslab.load(ROOT / "oddslab" / "examples" / f"{name}.toml"))
    res = oddslab.sweep(sc, {"trials": [500, 1000]}, seed=3, exact="never")
    assert [r.trials for r in res.results] == [500, 1000]


CLASH = ROOT / "oddslab" / "examples" / "armoured-clash-ranged-suppression.toml"


def test_a_static_metric_makes_a_sweep_of_another_ruleset_exact():
    # armoured clash: the exact engine gives hits and damage on the defender, 2 of 11 stats
    res = sweep(CLASH, {"units.grenadiers.defence": [2, 3]}, metric="mean(hits_on_defender)",
                trials=1_000, progress=None)  # fmt: skip
    tab = res.table()
    assert tab["exact"].all() and (tab["se"] == 0).all()
    assert all(r.trials == 0 and len(r.stats) == 2 for r in res.results)
    for cell, row in zip(res.cells, tab.itertuples(), strict=True):
        p = oddslab.exact(oddslab.from_dict(cell.scenario)).probs["hits_on_defender"]
        assert row.value == pytest.approx(float(np.arange(len(p)) @ p), abs=1e-12)
    # the tidy frame: the exact statistics only, every row exact
    assert set(res.frame()["statistic"]) == {"hits_on_defender", "damage_on_defender"}
    # a metric on the rest of the fight: simulated, as is every cell with --exact never
    for kw in ({"metric": "mean(defender_models_lost)"},
               {"metric": "mean(hits_on_defender)", "exact": "never"}):  # fmt: skip
        sim = sweep(CLASH, {"units.grenadiers.defence": [2]}, trials=1_000, seed=5, progress=None,
                    **kw)  # fmt: skip
        assert not sim.table()["exact"].any() and sim.results[0].trials == 1_000
        single = oddslab.simulate(oddslab.from_dict(sim.cells[0].scenario), trials=1_000,
                                  seed=sim.cells[0].seed)  # fmt: skip
        for name, c in sim.results[0].counts.items():  # bit for bit the cell's simulation
            np.testing.assert_array_equal(single.counts[name][: len(c)], c)


def test_a_study_mixing_exact_and_simulated_cells_says_which_are_exact():
    from oddslab.analysis.cli_common import _no_se_if_exact

    one = oddslab.load(CLASH).to_dict()["attacks"][0]
    again = dict(one, new_activation=True)  # a second attack: nothing exact any more
    res = sweep(CLASH, {"attacks": [[one], [one, again]]}, metric="mean(hits_on_defender)",
                trials=1_000, seed=2, progress=None)  # fmt: skip
    tab = res.table()
    assert list(tab["exact"]) == [True, False]
    assert tab["se"].iloc[0] == 0 and tab["se"].iloc[1] > 0
    assert [r.trials for r in res.results] == [0, 1_000]
    frame = res.frame()
    assert frame.groupby("exact")["statistic"].nunique().to_dict() == {False: 11, True: 2}
    # the printed table keeps its exact column (and SE) when the cells are mixed
    shown = _no_se_if_exact(tab)
    assert "exact" in shown.columns and "se" in shown.columns
    assert "exact" not in _no_se_if_exact(tab.iloc[:1]).columns  # all exact: in the title


def test_the_repr_is_one_line_for_notebooks():
    res = sweep(SCENARIO, {"target.save": [3, 4]}, trials=1_000)
    text = repr(res)
    assert text.startswith("SweepResult(keys=['target.save'], 2 cells, seed=") and len(text) < 200


def test_a_cell_stopped_by_the_trials_ceiling_says_its_precision_was_not_reached():
    vary = {"target.save": [2, 3]}
    res = sweep(SCENARIO, vary, trials=2_000, precision=0.001, exact="never",
                metric="P(models_slain >= 5)")  # fmt: skip
    tab = res.table()
    assert [r.trials for r in res.results] == [2_000, 2_000]
    assert all(n.startswith("precision not reached: ±0.0") and n.endswith("(2,000)")
               for n in tab["note"])  # fmt: skip
    wide = sweep(SCENARIO, vary, trials=2_000, precision=0.2, exact="never",
                 metric="P(models_slain >= 5)")  # fmt: skip
    assert (wide.table()["note"] == "").all()  # reached: no note
