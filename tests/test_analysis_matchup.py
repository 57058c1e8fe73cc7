"""Matchup matrices from libraries, for every shipped library's template."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis.matchup import matchup, plot_matchup
from oddslab.analysis.metrics import common_primary
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
    assert all(
        ("(attacker): attacker." in s and "weapons" in s)
        or "(target): target.models: required" in s
        for s in res.skipped
    )  # target profiles lack the attacker's weapons, attacker profiles the target's models
    grid = res.matrix()
    assert grid.shape == (5, 5) and grid.notna().all().all() and not res.unfit
    # 10 rifles cannot deal the tank's 13 wounds (generic leaves models_slain and destroyed out)
    assert grid.loc["Line troopers (10 rifles)", "Battle tank"] == 0.0
    assert 0 < grid.loc["Lance walker", "Battle tank"] < 1
    # statistics differ between cells: the default metric is one every cell reports, and a
    # cell whose scenario cannot produce the metric's statistic is NaN with a note, not 0
    assert common_primary(res.outcomes) == "damage_dealt"
    slain = res.table("P(models_slain >= 2)")
    missing = slain[slain["value"].isna()]
    assert list(missing["attacker"]) == ["generic.toml:line_troopers", "generic.toml:shock_squad"]
    assert set(missing["target"]) == {"generic.toml:battle_tank"}
    assert all(n.startswith("not reported: ") and "models_slain" in n for n in missing["note"])
    assert (slain.loc[slain["value"].notna(), "note"] == "").all()
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


def test_named_entries_must_fit():
    with pytest.raises(
        ScenarioError, match=r"conscripts vs generic\.toml:conscripts\]: attacker\.weapons"
    ):
        matchup(f"{GENERIC}:conscripts", f"{GENERIC}:conscripts", trials=100)


def test_cells_are_seeded_by_pair_only():
    a = matchup(f"{GENERIC}:shock_squad,flame_team", f"{GENERIC}:conscripts", trials=3_000, seed=5)
    b = matchup(f"{GENERIC}:flame_team", f"{GENERIC}:conscripts,hound_swarm", trials=3_000, seed=5)
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
