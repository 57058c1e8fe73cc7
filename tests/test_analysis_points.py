"""Points: efficiency per 100 points, fair points (known answer), basket sensitivity."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from oddslab.analysis.points import basket_sensitivity, efficiency, fair_points, plot_efficiency

LIBS = Path(__file__).resolve().parent.parent / "oddslab" / "examples" / "libraries"
GENERIC = LIBS / "generic.toml"

# Weapon profiles as library entries: `models` is a key of the entry, so a unit can be bought by
# the model. The template puts the entry in the attacker's first weapon.
WEAPONS = """
ruleset = "generic"
description = "test weapons"

[units.reference]
points = 100
models = 10
attacks = 2
skill = 3
strength = 4
ap = 1

[units.candidate]
points_per_model = 3
models = 5
attacks = 2
skill = 3
strength = 4
ap = 1

[units.horde]
points = 1
models = 40
toughness = 3
save = 5

[units.elite]
points = 1
models = 5
toughness = 5
wounds = 2
save = 3

[units.monster]
points = 1
models = 1
toughness = 9
wounds = 10
save = 2

[units.giant]
points = 1
models = 1
toughness = 9
wounds = 30
save = 2

[matchup.template]
ruleset = "generic"
[[matchup.template.attacker.weapons]]
use = "{attacker}"
[matchup.template.target]
use = "{target}"
"""


@pytest.fixture()
def lib(tmp_path) -> Path:
    path = tmp_path / "weapons.toml"
    path.write_text(WEAPONS)
    return path


def test_fair_points_recovers_the_known_answer(lib):
    """Identical but for model count (5 vs 10): mean damage is linear, so fair = 50 points."""
    basket = {f"{lib}:horde": 2, f"{lib}:elite": 1, f"{lib}:monster": 1}
    fair = fair_points(f"{lib}:candidate", f"{lib}:reference", basket,
                       metric="mean(damage)", trials=60_000, seed=3, exact="never")  # fmt: skip
    assert fair.reference_points == 100
    assert abs(fair.fair_points - 50) < 4 * fair.se
    assert fair.ci_low < 50 < fair.ci_high
    assert 0 < fair.se < 1.0
    # delta method by hand
    rel = math.hypot(
        fair.candidate_se / fair.candidate_value, fair.reference_se / fair.reference_value
    )
    assert fair.se == pytest.approx(fair.fair_points * rel)
    # bought by the model: 10 points per model, bracketed by whole prices
    assert fair.models == 5 and fair.base_points == 0
    assert fair.fair_per_model == pytest.approx(fair.fair_points / 5)
    assert 10 in fair.allowed
    assert [b["per_model"] for b in fair.bracket] in ([9.0, 10.0], [10.0, 11.0], [10.0])
    for b in fair.bracket:
        assert b["unit_points"] == 5 * b["per_model"]
    assert "fair points per model" in set(fair.summary()["quantity"])


def test_sensitivity_rows_reuse_the_cells(lib):
    basket = {f"{lib}:horde": 2, f"{lib}:elite": 1, f"{lib}:monster": 1}
    fair = fair_points(
        f"{lib}:candidate",
        f"{lib}:reference",
        basket,
        metric="mean(models_slain)",
        trials=20_000,
        seed=3,
        exact="never",
    )  # fmt: skip  (simulated: the reference never scores)
    tab = basket_sensitivity(fair)
    notes = dict(zip(tab["basket"], tab["note"], strict=True))
    # 10 wounds: the candidate's most damage (10 attacks) can just slay it, so every cell reports
    # models_slain (generic leaves it out of a scenario that cannot produce it)
    assert notes["only monster"] == "the reference scores 0 here: no fair price"
    assert math.isnan(tab.set_index("basket").loc["only monster", "fair_points"])
    assert notes["whole basket"] == ""
    assert list(tab["basket"])[:4] == ["whole basket", "only horde", "only elite", "only monster"]
    assert len(tab) == 7
    assert tab["fair_points"].iloc[0] == pytest.approx(fair.fair_points)
    # models slain is capped by the target's models: against the monster it is not linear
    assert tab.set_index("basket").loc["only horde", "fair_points"] == pytest.approx(50, abs=3)


def test_efficiency_ranks_units_with_basket_se():
    basket = {f"{GENERIC}:conscripts": 3, f"{GENERIC}:battle_tank": 1}
    res = efficiency(GENERIC, basket, metric="mean(damage)", trials=10_000, seed=2, exact="never")
    t = res.table
    assert list(t["rank"]) == list(range(1, 6))
    assert t["per_100_points"].is_monotonic_decreasing
    m = res.matchup.table()
    unit = t.iloc[0]["unit"]
    sub = m[m["attacker"] == unit].set_index("target")
    c, k = sub.loc["generic.toml:conscripts"], sub.loc["generic.toml:battle_tank"]
    value = (3 * c["value"] + k["value"]) / 4
    se = math.sqrt((0.75 * c["se"]) ** 2 + (0.25 * k["se"]) ** 2)
    assert t.iloc[0]["value"] == pytest.approx(value)
    assert t.iloc[0]["se"] == pytest.approx(se)
    assert t.iloc[0]["per_100_points"] == pytest.approx(100 * value / t.iloc[0]["points"])
    ax = plot_efficiency(res)
    assert len(ax.patches) == 5


def test_errors(lib):
    with pytest.raises(ValueError, match="exactly one candidate"):
        fair_points(f"{lib}:candidate,reference", f"{lib}:reference", [f"{lib}:horde"], trials=10)
    with pytest.raises(ValueError, match="same entry"):
        fair_points(f"{lib}:reference", f"{lib}:reference", [f"{lib}:horde"], trials=10)
    with pytest.raises(ValueError, match="positive number"):
        efficiency(f"{lib}:reference", {f"{lib}:horde": 0}, trials=10)


def test_a_basket_cell_where_the_metric_cannot_happen_counts_zero(lib):
    """Neither unit can deal 30 wounds, so generic leaves models_slain out against the giant
    (it cannot happen there): those cells read 0, and each unit's basket value is half its
    value against the horde alone (weights 1:1)."""
    basket = {f"{lib}:horde": 1, f"{lib}:giant": 1}
    units = f"{lib}:candidate,reference"
    res = efficiency(units, basket, metric="mean(models_slain)", trials=2_000, seed=1)
    horde = efficiency(units, {f"{lib}:horde": 1}, metric="mean(models_slain)", trials=2_000,
                       seed=1)  # fmt: skip
    both, alone = res.table.set_index("unit"), horde.table.set_index("unit")
    assert (alone["value"] > 0).all() and (both["note"] == "").all()
    for u in alone.index:
        assert both.loc[u, "value"] == pytest.approx(alone.loc[u, "value"] / 2, rel=1e-12)
    fair = fair_points(f"{lib}:candidate", f"{lib}:reference", basket,
                       metric="mean(models_slain)", trials=2_000, seed=1)  # fmt: skip
    assert fair.fair_points > 0


def test_a_basket_target_given_twice_is_an_error(lib):
    with pytest.raises(ValueError, match="names weapons.toml:horde twice"):
        efficiency(f"{lib}:reference", {f"{lib}:horde": 1, f"{lib}:horde,elite": 3}, trials=100)


def test_a_library_as_the_basket_is_its_entries_that_can_be_targets():
    res = efficiency(GENERIC, GENERIC, metric="mean(damage)", trials=2_000, seed=1)
    targets = {"conscripts", "armoured_infantry", "bulwark_guard", "hound_swarm", "battle_tank"}
    assert {e.key for e in res.matchup.targets} == targets
    assert set(res.weights) == {f"generic.toml:{k}" for k in targets}
    assert any("shock_squad (target)" in n for n in res.matchup.skipped)
    weapons = LIBS / "generic-weapons.toml"
    fair = fair_points(f"{weapons}:plasma_squad", f"{weapons}:bolt_squad", weapons,
                       metric="mean(models_slain)", trials=2_000, seed=1)  # fmt: skip
    assert set(fair.weights) == {f"generic-weapons.toml:{k}"
                                 for k in ("horde", "veterans", "ogres", "walker")}  # fmt: skip
    assert fair.fair_points > 0


def test_a_basket_with_no_target_is_one_clear_error(tmp_path):
    only_attackers = tmp_path / "att.toml"
    only_attackers.write_text(
        'ruleset = "generic"\n[units.a]\npoints = 10\n[[units.a.weapons]]\nmodels = 1\n'
        "attacks = 1\nskill = 3\nstrength = 4\n"
    )
    with pytest.raises(ValueError, match=r"no attacker/target pair fits .*att\.toml:a\]: target"):
        efficiency(GENERIC, only_attackers, trials=100)


def test_fair_points_exact_is_the_known_answer_exactly(lib):
    basket = {f"{lib}:horde": 2, f"{lib}:elite": 1, f"{lib}:monster": 1}
    fair = fair_points(f"{lib}:candidate", f"{lib}:reference", basket, metric="mean(damage)")
    assert fair.se == 0 and fair.fair_points == pytest.approx(50, rel=1e-12)
    assert all(o.exact for o in fair.matchup.outcomes) and fair.exact
    # an exact answer is printed without "± 0" or an interval of zero width ...
    shown = dict(fair.summary().itertuples(index=False))
    assert "95% interval" not in shown and "whole prices in the interval" not in shown
    assert shown["fair points"] == "50.0" and "±" not in " ".join(shown.values())
    # ... and written as a sweep's or matchup's exact rows: flagged exact, SE 0 (a number, never
    # null or empty) and each interval's ends equal to the value
    doc = fair.to_dict()
    assert doc["exact"] is True and doc["fair_points"] == pytest.approx(50)
    assert doc["se"] == 0 and doc["candidate_se"] == 0 and doc["reference_se"] == 0
    assert doc["ci_low"] == doc["ci_high"] == doc["fair_points"]
    assert doc["per_model_ci"] in (None, [doc["fair_per_model"]] * 2)
    assert all(r["se"] == 0 and r["ci_low"] == r["fair_points"] for r in doc["sensitivity"])
    frame = fair.frame()
    assert frame["exact"].all() and (frame[["candidate_se", "reference_se", "se"]] == 0).all().all()
    assert (frame["ci_low"] == frame["fair_points"]).all()
    assert (frame["ci_high"] == frame["fair_points"]).all()
    assert list(frame.columns[-2:]) == ["exact", "note"]
    eff = efficiency(f"{lib}:candidate,reference", basket, metric="mean(damage)")
    assert eff.table["exact"].all() and (eff.table["se"] == 0).all()  # the Python table: SE 0
    out = eff.frame()  # ... and the written one: the same numbers
    assert (out[["se", "per_100_points_se"]] == 0).all().all()
    assert (out["ci_low"] == out["per_100_points"]).all()
    assert (out["ci_high"] == out["per_100_points"]).all()


def test_a_near_zero_exact_reference_has_no_price_as_in_the_simulation(lib):
    """Against the monster the 5-model unit slays a model with probability 4.9e-15 (ten
    unsaved wounds from ten attacks): the exact engine says so, a simulation never sees it.
    Both must say "no fair price", never a price of millions of points."""
    basket = {f"{lib}:horde": 1, f"{lib}:monster": 1}
    rows = {}
    for exact in ("auto", "never"):
        fair = fair_points(f"{lib}:reference", f"{lib}:candidate", basket,
                           metric="mean(models_slain)", trials=20_000, seed=3, exact=exact)  # fmt: skip
        assert all(o.exact for o in fair.matchup.outcomes) == (exact == "auto")
        rows[exact] = fair.sensitivity().set_index("basket").loc["only monster"]
    assert 0 < rows["auto"]["reference_value"] < 1e-14
    assert rows["never"]["reference_value"] == 0
    for row in rows.values():
        assert math.isnan(row["fair_points"]) and math.isnan(row["ci_high"])
        assert row["note"].startswith("the reference scores ")
        assert row["note"].endswith(": no fair price")
    assert "as good as never" in rows["auto"]["note"]
    # the whole basket of that one target: one clear error, exact or simulated
    for exact in ("auto", "never"):
        with pytest.raises(ValueError, match=r"the reference scores .* at least 1e-06"):
            fair_points(f"{lib}:reference", f"{lib}:candidate", [f"{lib}:monster"],
                        metric="mean(models_slain)", trials=2_000, seed=3, exact=exact)  # fmt: skip
    # a near-zero candidate (against a reference that scores) prices at 0, as one that never
    # scores; the reference just above the line still prices
    from oddslab.analysis.points import _ratio

    assert _ratio(100.0, 3e-8, 0.0, 2.0, 0.0) == (0.0, 0.0)
    assert _ratio(100.0, 1.0, 0.0, 1e-6, 0.0)[0] == pytest.approx(1e8)


def test_points_removed_is_models_slain_times_the_targets_points_per_model(tmp_path, lib):
    from oddslab.analysis.matchup import matchup

    text = lib.read_text().replace(
        "[units.horde]\npoints = 1\n", "[units.horde]\npoints_per_model = 7\n"
    )
    priced = tmp_path / "priced.toml"
    priced.write_text(text)
    res = matchup(f"{priced}:reference", f"{priced}:horde,elite,giant", metric="points_removed")
    tab = res.table().set_index("target")
    slain = res.table("mean(models_slain)").set_index("target")
    horde, elite = "priced.toml:horde", "priced.toml:elite"
    assert tab.loc[horde, "value"] == pytest.approx(7 * slain.loc[horde, "value"])
    assert tab.loc[elite, "value"] == pytest.approx(slain.loc[elite, "value"] / 5)  # 1 pt, 5 models
    # 20 attacks of damage 1 cannot slay a 30-wound giant: 0 removed, said so
    assert tab.loc["priced.toml:giant", "value"] == 0
    assert tab.loc["priced.toml:giant", "note"] == "cannot slay a model: 0 removed"
    # per 100 points of the attacker (100 points): the number efficiency tools rank by
    per = res.matrix(per_points=True)
    assert per.loc["reference", "horde"] == pytest.approx(tab.loc[horde, "value"])
    eff = efficiency(f"{priced}:reference,candidate", f"{priced}:horde", metric="points_removed")
    assert eff.table["per_100_points"].iloc[0] > 0


def test_efficiency_ranks_by_an_event_answered_exactly():
    ev = ["two = models_slain >= 2 and damage_dealt >= 2"]  # allocation statistics: exact joint
    res = efficiency(f"{GENERIC}:shock_squad,flame_team", {f"{GENERIC}:conscripts": 1},
                     metric="P(two)", events=ev, progress=None)  # fmt: skip
    cells = res.matchup.table()
    assert res.table.attrs["metric"] == "P(two)" and res.table.attrs["exact"]
    for row in res.table.itertuples():
        value = cells[cells["attacker"] == row.unit]["value"].iloc[0]
        assert 0 < value < 1 and row.value == value and row.se == 0
        assert row.per_100_points == pytest.approx(100 * value / row.points)


def test_a_simulated_fair_price_prints_its_se_to_two_digits_whatever_its_size():
    """A simulated answer never looks exact: 89.1234 with SE 0.00607 printed "89.1 ± 0.0" and
    "89.1 – 89.1"; its SE has two significant digits, the value and interval the decimals it
    needs."""
    from oddslab.analysis.points import FairPoints

    se, p = 0.00607, 89.1234
    fair = FairPoints(
        "c", "r", "mean(damage)", 4.45617, 0.000301, 5.0, 0.0002, 100.0, p, se,
        p - 1.96 * se, p + 1.96 * se, 10, 0.0, p / 10, ((p - 0.0119) / 10, (p + 0.0119) / 10),
        [], [], None, {},
    )  # fmt: skip
    shown = dict(fair.summary().itertuples(index=False))
    assert shown["fair points"] == "89.1234 ± 0.0061"
    assert shown["95% interval"] == "89.1115 – 89.1353"
    assert shown["candidate basket value"] == "4.45617 ± 0.00030"
    assert shown["fair points per model"] == "8.91234 ± 0.00061 (8.91115 – 8.91353)"
    assert "± 0.0 " not in " ".join(shown.values()) + " "


def test_the_reprs_are_one_line_for_notebooks(lib):
    eff = efficiency(f"{lib}:candidate,reference", {f"{lib}:horde": 1}, trials=1_000, seed=1)
    assert repr(eff).startswith("EfficiencyResult(2 units, metric=") and len(repr(eff)) < 120
    fair = fair_points(f"{lib}:candidate", f"{lib}:reference", {f"{lib}:horde": 1}, seed=1)
    assert repr(fair).startswith("FairPoints('weapons.toml:candidate' against")
    assert len(repr(fair)) < 200
