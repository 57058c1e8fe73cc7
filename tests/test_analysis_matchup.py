"""Matchup matrices from libraries, for every shipped library's template."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis.matchup import matchup, plot_matchup
from oddslab.analysis.metrics import NEVER_NOTE, common_primary
from oddslab.libraries import load_library, shipped_libraries

LIBS = Path(__file__).resolve().parent.parent / "oddslab" / "examples" / "libraries"
GENERIC = LIBS / "generic.toml"


def test_whole_library_pairs_the_entries_that_fit_each_slot():
    res = matchup(GENERIC, GENERIC, trials=4_000, metric="P(wounds_remaining == 0)")
    assert [e.key for e in res.attackers] == [
        "line_troopers", "shock_squad", "heavy_gunners", "flame_team", "lance_walker"
    ]  # fmt: skip
    assert [e.key for e in res.targets] == [
        "conscripts", "armoured_infantry", "bulwark_guard", "hound_swarm", "battle_tank"
    ]  # fmt: skip
    assert len(res.skipped) == 10
    # each in plain words, never the full validation error: target profiles have target
    # keys (models, toughness, ...), attacker profiles the attacker's weapons
    assert (
        "generic.toml:shock_squad (target): not a target profile: it has attacker keys "
        "(weapons)" in res.skipped
    )
    assert all(
        ("(attacker): not an attacker profile: it has target keys (" in s and "models" in s)
        or "(target): not a target profile: it has attacker keys (weapons)" in s
        for s in res.skipped
    ), res.skipped
    grid = res.matrix()
    assert grid.shape == (5, 5) and grid.notna().all().all() and not res.unfit
    # 10 rifles cannot deal the tank's 13 wounds (generic leaves models_slain and destroyed out)
    assert grid.loc["Line troopers (10 rifles)", "Battle tank"] == 0.0
    assert 0 < grid.loc["Lance walker", "Battle tank"] < 1
    # statistics differ between cells: the default metric is one every cell reports, and a
    # cell where the metric's statistic cannot happen (generic leaves it out: meta "never")
    # reads 0, exactly, with a note saying why (a list builder asks for 0, not a blank)
    assert common_primary(res.outcomes) == "damage_dealt"
    slain = res.table("P(models_slain >= 2)")
    assert slain["value"].notna().all()
    never = slain[slain["note"] == NEVER_NOTE]
    assert list(never["attacker"]) == ["generic.toml:line_troopers", "generic.toml:shock_squad"]
    assert set(never["target"]) == {"generic.toml:battle_tank"}
    assert (never["value"] == 0).all() and (never["se"] == 0).all()
    assert (slain.loc[slain["note"] != NEVER_NOTE, "note"] == "").all()
    assert (res.table("P(models_slain <= 2)").loc[never.index, "value"] == 1).all()
    assert res.matrix("P(models_slain >= 2)").loc["Lance walker", "Battle tank"] == 0.0  # 1 model
    with pytest.raises(ValueError, match=r"line_troopers vs generic\.toml:conscripts: .*no stat"):
        res.table("mean(nothing_like_this)")
    tab = res.table(sort_by="per_100_points")
    assert tab["per_100_points"].is_monotonic_decreasing
    row = tab.iloc[0]
    assert row["per_100_points"] == pytest.approx(100 * row["value"] / row["attacker_points"])
    assert row["per_100_points_se"] == pytest.approx(100 * row["se"] / row["attacker_points"])
    per = res.matrix(per_points=True)
    assert per.loc["Line troopers (10 rifles)", "Conscripts"] == pytest.approx(
        grid.loc["Line troopers (10 rifles)", "Conscripts"] * 100 / 60
    )
    # a table the caller already has gives the same matrices (the CLI reads the store once)
    pd.testing.assert_frame_equal(res.matrix(per_points=True, table=res.table()), per)
    pd.testing.assert_frame_equal(res.matrix(se=True, table=res.table()), res.matrix(se=True))


def test_named_entries_must_fit():
    with pytest.raises(
        ScenarioError, match=r"conscripts vs generic\.toml:conscripts\]: attacker\.weapons"
    ):
        matchup(f"{GENERIC}:conscripts", f"{GENERIC}:conscripts", trials=100)


def test_cells_are_seeded_by_pair_only():
    kw = {"trials": 3_000, "seed": 5, "exact": "never"}
    a = matchup(f"{GENERIC}:shock_squad,flame_team", f"{GENERIC}:conscripts", **kw)
    b = matchup(f"{GENERIC}:flame_team", f"{GENERIC}:conscripts,hound_swarm", **kw)
    assert a.results[1].counts == b.results[0].counts


def test_template_file_and_csv_and_plot(tmp_path):
    tpl = tmp_path / "t.toml"
    tpl.write_text(
        'ruleset = "generic"\n[attacker]\nuse = "{attacker}"\n[target]\nuse = "{target}"\ncover = true\n'
    )
    res = matchup(f"{GENERIC}:shock_squad", f"{GENERIC}:armoured_infantry,conscripts",
                  template=tpl, trials=2_000, metric="mean(models_slain)")  # fmt: skip
    assert res.cells[0].scenario["target"]["cover"] is True
    text = res.to_csv(tmp_path / "m.csv")
    assert pd.read_csv(tmp_path / "m.csv").shape[0] == 2 and "per_100_points" in text
    ax = plot_matchup(res)
    assert ax.get_xlabel() == "target" and len(ax.texts) == 2
    with pytest.raises(ScenarioError, match="no use"):
        bad = tmp_path / "bad.toml"
        bad.write_text('ruleset = "generic"\n[target]\nuse = "{target}"\n')
        matchup(f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", template=bad)
    with pytest.raises(ValueError, match="is not a headline or statistic"):
        matchup(f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", trials=100, metric="P(x wins)")


RULESETS = {"generic", "armoured-clash", "assault-phase", "vom-kriege", "hex-platoon",
            "formation-actions"}  # fmt: skip


def test_shipped_libraries_cover_every_ruleset():
    assert {load_library(p).ruleset for p in shipped_libraries()} == RULESETS


@pytest.mark.parametrize("path", shipped_libraries(), ids=lambda p: p.stem)
def test_every_shipped_library_runs_a_small_matchup(path):
    lib = load_library(path)
    res = matchup(path, path, trials=1_000, seed=1)
    assert len(res.attackers) >= 1 and len(res.targets) >= 1
    grid = res.matrix()
    assert grid.shape == (len(res.attackers), len(res.targets))
    # a pair that cannot be fought (no weapon that can engage the target) is NaN with a reason;
    # every other pair ran and has a value, and every kept entry ran at least once
    ran = {(c.values["attacker"], c.values["target"]) for c in res.cells}
    assert len(ran) + len(res.unfit) == grid.size and not ran & set(res.unfit)
    assert all(res.unfit.values())
    tab = res.table()
    assert tab["value"].notna().sum() == len(ran) and tab["value"].isna().sum() == len(res.unfit)
    assert set(tab.loc[tab["value"].isna(), "note"].str.startswith("not run: ")) <= {True}
    assert {a for a, _ in ran} == set(tab["attacker"]) and {t for _, t in ran} == set(tab["target"])
    assert grid.notna().to_numpy().sum() == len(ran)
    assert tab["seed"].dtype.kind == "u" or tab["seed"].dtype.kind == "i"  # exact seeds
    heads = {h.label for o in res.outcomes for h in o.headlines}
    wins = [h for h in heads if h.lower().startswith("p(attacker wins")]
    if wins and len({h for h in wins}) == 1:  # a two-sided ruleset: "P(attacker wins)" works
        grid = matchup(path, path, trials=1_000, seed=1, metric="P(attacker wins)").matrix()
        assert ((grid.isna()) | ((grid >= 0) & (grid <= 1))).all().all()
    assert lib.ruleset in RULESETS


def test_libraries_with_the_same_file_name_do_not_collide(tmp_path):
    text = (GENERIC).read_text()
    for d in ("a", "b"):
        (tmp_path / d).mkdir()
        (tmp_path / d / "generic.toml").write_text(text)
    a, b = tmp_path / "a" / "generic.toml", tmp_path / "b" / "generic.toml"
    res = matchup(f"{a}:shock_squad", [f"{a}:conscripts", f"{b}:conscripts"], trials=500, seed=3)
    # the matrix, its plot and the table's labels tell the two apart as the names do
    told_apart = [
        "Conscripts (a/generic.toml:conscripts)",
        "Conscripts (b/generic.toml:conscripts)",
    ]
    assert list(res.matrix().columns) == told_apart
    assert list(res.matrix(table=res.table()).columns) == told_apart
    ticks = plot_matchup(res).get_xticklabels()  # long labels wrap
    assert [t.get_text().replace("\n", "") for t in ticks] == told_apart
    assert list(res.table()["target_label"]) == told_apart
    assert list(res.matrix().index) == ["Shock squad (5 bolt rifles)"]  # no twin: its words
    assert list(res.table()["target"]) == ["a/generic.toml:conscripts", "b/generic.toml:conscripts"]
    assert res.table()["attacker"].iloc[0] == "a/generic.toml:shock_squad"
    solo = matchup(f"{a}:shock_squad", f"{a}:conscripts", trials=500, seed=3)
    assert solo.table()["target"].iloc[0] == "generic.toml:conscripts"  # no collision: as before
    # one library reached by two spellings of its path is one library: its entry given by
    # both is given twice
    rel = tmp_path / "a" / ".." / "a" / "generic.toml"
    with pytest.raises(ValueError, match=r"generic\.toml:conscripts is given twice"):
        matchup(f"{a}:shock_squad", [f"{a}:conscripts", f"{rel}:conscripts"], trials=500)


@pytest.mark.parametrize(
    ("attackers", "match"),
    [
        (f"{GENERIC}:shock_squad,shock_squad", r"shock_squad is picked twice \('shock_squad' and"),
        (f"{GENERIC}:shock_squad,{GENERIC}:shock_squad", "shock_squad is picked twice"),
        (f"{GENERIC}:*squad*,shock_squad", r"picked twice \('\*squad\*' and 'shock_squad'\)"),
        ([f"{GENERIC}:shock_squad", f"{GENERIC}:flame_team,shock_squad"], "is given twice"),
        ([GENERIC, f"{GENERIC}:shock_squad"], "generic.toml:shock_squad is given twice"),
    ],
)
def test_an_entry_given_twice_is_an_error_naming_it(monkeypatch, attackers, match):
    from oddslab.analysis import distributed

    monkeypatch.setattr(distributed, "run_cells", None)  # refused before any cell
    with pytest.raises(ValueError, match=match):
        matchup(attackers, f"{GENERIC}:conscripts", trials=100)


def _lib20(path: Path) -> Path:
    """20 weapon profiles × 20 target profiles of the generic ruleset."""
    lines = ['ruleset = "generic"']
    for i in range(20):
        dmg = ["1", "D3", "2", "D6"][i % 4]
        lines += [f"[units.w{i}]", f"points = {50 + i}", f"models = {5 + i % 6}",
                  f"attacks = {1 + i % 3}", f"skill = {2 + i % 4}", f"strength = {3 + i % 7}",
                  f"ap = {i % 4}", f'damage = "{dmg}"']  # fmt: skip
        lines += [f"[units.t{i}]", "points = 1", f"models = {1 + i % 10}",
                  f"toughness = {3 + i % 8}", f"wounds = {1 + i % 5}", f"save = {2 + i % 6}"]  # fmt: skip
    lines += ["[matchup.template]", 'ruleset = "generic"', "[[matchup.template.attacker.weapons]]",
              'use = "{attacker}"', "[matchup.template.target]", 'use = "{target}"']  # fmt: skip
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_generic_matchup_is_exact_by_default_and_simulated_on_request(tmp_path):
    import numpy as np

    import oddslab

    lib = _lib20(tmp_path / "l20.toml")
    res = matchup(f"{lib}:w*", f"{lib}:t*", metric="mean(models_slain)")
    assert len(res.cells) == 400 and all(r.exact and r.trials == 0 for r in res.results)
    tab = res.table()
    assert tab["exact"].all() and (tab["se"] == 0).all() and (tab["trials"] == 0).all()
    # every cell is the exact engine's answer for its scenario
    for cell, out in list(zip(res.cells, res.outcomes, strict=True))[::37]:
        ref = oddslab.exact(oddslab.from_dict(cell.scenario))
        for name in ref.stat_names:
            np.testing.assert_array_equal(out.probs[name][: len(ref.probs[name])],
                                          ref.probs[name][: len(out.probs[name])])  # fmt: skip
    mc = matchup(f"{lib}:w0,w1", f"{lib}:t0", trials=2_000, exact="never")
    assert not any(r.exact for r in mc.results) and (mc.table()["se"] > 0).all()


def test_the_exact_matrix_prints_without_se_and_says_exact(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    lib = _lib20(tmp_path / "l20.toml")
    runner = CliRunner(env={"COLUMNS": "200"})
    res = runner.invoke(app, ["matchup", f"{lib}:w0,w1", f"{lib}:t0,t1"])
    assert res.exit_code == 0, res.output
    assert "exact" in res.stdout and "±" not in res.stdout
    res = runner.invoke(app, ["matchup", f"{lib}:w0,w1", f"{lib}:t0", "--exact", "never",
                              "-n", "1000"])  # fmt: skip
    assert res.exit_code == 0 and "±" in res.stdout


def test_a_tiny_exact_answer_is_the_true_value_not_float_noise():
    """The flame team (3 x D6 automatic hits; each wounds the battle tank on a 6 and gets past
    its 2+ save on a 1: 1/36 an attack) slays the 13-wound tank only with 13 or more unsaved
    wounds of at most 18 attacks: P = 4.96e-19. So it removes 180 x 4.96e-19 = 8.93e-17 of
    the tank's points on average, 1.19e-16 per 100 of its own 75: the exact engine's answer is
    that true value (a rational enumeration agrees to 1e-12), not float noise to round to 0.
    A simulation sees 0, as it sees no kill in any number of trials it can run."""
    from fractions import Fraction
    from itertools import product
    from math import comb

    p = Fraction(1, 36)
    slay = sum(
        Fraction(1, 216) * sum(comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(13, n + 1))
        for n in (sum(dice) for dice in product(range(1, 7), repeat=3))
    )
    row = matchup(f"{GENERIC}:flame_team", f"{GENERIC}:battle_tank", metric="points_removed",
                  progress=None).table().iloc[0]  # fmt: skip
    assert row["exact"] and row["value"] == pytest.approx(float(180 * slay), rel=1e-12)
    assert row["per_100_points"] == pytest.approx(float(180 * slay * 100 / 75), rel=1e-12)
    assert 8.9e-17 < row["value"] < 9e-17


def test_event_metrics_in_a_matchup_equal_simulate_with_the_cells_seed():
    import oddslab

    ev = ["clean = models_slain >= 3 and hits <= 12"]
    res = matchup(f"{GENERIC}:shock_squad,flame_team", f"{GENERIC}:conscripts", events=ev,
                  trials=20_000, exact="never", progress=None)  # fmt: skip
    assert res.metric == "P(clean)" and res.events == tuple(ev)
    tab = res.table()
    assert len(tab) == len(res.cells) == 2
    for cell, row in zip(res.cells, tab.itertuples(), strict=True):
        assert (row.attacker, row.target) == (cell.values["attacker"], cell.values["target"])
        single = oddslab.simulate(oddslab.from_dict(cell.scenario), trials=20_000,
                                  seed=cell.seed, events=ev)  # fmt: skip
        r = single.probability("clean")
        assert (row.value, row.se) == (r.probability, r.se)
        assert row.per_100_points == pytest.approx(r.probability * 100 / row.attacker_points)


def test_a_static_metric_makes_an_armoured_clash_matchup_exact():
    import numpy as np

    import oddslab

    lib = LIBS / "armoured-clash.toml"
    pairs = (f"{lib}:rifle_platoon,medium_tanks", f"{lib}:rifle_platoon,mg_team")
    res = matchup(*pairs, metric="mean(hits_on_defender)", trials=500, progress=None)
    tab = res.table()
    assert tab["exact"].all() and (tab["se"] == 0).all() and (tab["trials"] == 0).all()
    for cell, row in zip(res.cells, tab.itertuples(), strict=True):
        p = oddslab.exact(oddslab.from_dict(cell.scenario)).probs["hits_on_defender"]
        assert row.value == pytest.approx(float(np.arange(len(p)) @ p), abs=1e-12)
    # models lost depend on morale and the rest of the fight: simulated
    sim = matchup(*pairs, metric="mean(defender_models_lost)", trials=500, progress=None)
    assert not sim.table()["exact"].any() and all(r.trials == 500 for r in sim.results)


def test_a_mixed_matrix_prints_the_exact_cells_without_se(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    lib = tmp_path / "mixed.toml"  # a Blast weapon after another: its hits are not exact
    lib.write_text("""ruleset = "generic"
[units.rifles]
[[units.rifles.weapons]]
models = 5
attacks = 2
skill = 3
strength = 4
[units.blasters]
[[units.blasters.weapons]]
models = 2
attacks = 3
skill = 4
strength = 5
[[units.blasters.weapons]]
models = 2
attacks = "D6"
skill = 4
strength = 4
keywords = "Blast"
[units.horde]
models = 20
toughness = 4
save = 5
[matchup.template]
ruleset = "generic"
[matchup.template.attacker]
use = "{attacker}"
[matchup.template.target]
use = "{target}"
""")
    res = matchup(f"{lib}:rifles,blasters", f"{lib}:horde", metric="mean(hits)", trials=500,
                  progress=None)  # fmt: skip
    assert list(res.table()["exact"]) == [True, False]
    out = CliRunner(env={"COLUMNS": "200"}).invoke(
        app, ["matchup", f"{lib}:rifles,blasters", f"{lib}:horde", "-m", "mean(hits)", "-n", "500"]
    )
    assert out.exit_code == 0, out.output
    assert "exact where no ±" in " ".join(out.stdout.split())  # the title (wrapped)
    rows = {ln.split()[1]: ln for ln in out.stdout.splitlines() if ln.startswith(("│ rifles",
                                                                                  "│ blasters"))}  # fmt: skip
    assert "±" not in rows["rifles"] and "±" in rows["blasters"]


def test_the_repr_is_one_line_for_notebooks():
    res = matchup(f"{GENERIC}:shock_squad,flame_team", f"{GENERIC}:conscripts")
    assert repr(res) == (
        "MatchupResult(2 attackers × 1 targets, metric='mean(models_slain)', 2 cells, "
        f"seed={res.seed})"
    )
