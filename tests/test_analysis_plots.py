"""Analysis plots: plain words, no overlapping labels, cells without a value, p = 0."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pytest

from oddslab.analysis.plots import MAX_ANNOTATED, heatmap, plain_key, plain_metric

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"


def test_plain_words():
    assert plain_key("attacker.weapons.0.models") == "attacker weapon 1 models"
    assert plain_key("attacker.weapons[1].damage") == "attacker weapon 2 damage"
    assert plain_key("target.save") == "target save"
    assert plain_metric("mean(damage_dealt)") == "mean of damage dealt"
    assert plain_metric("P(models_slain >= 5)") == "P(models slain ≥ 5)"
    assert plain_metric("P(target unit destroyed)") == "P(target unit destroyed)"


def _fig():
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6, 4))


def test_missing_cells_are_hatched_with_a_legend_and_zero_is_below_one_over_n():
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    values = np.array([[0.0, 0.5], [np.nan, 0.25]])
    trials = np.array([[1_000_000, 1_000_000], [0, 0]])
    heatmap(ax, values, ["a", "b"], ["x", "y"], trials=trials, probability=True)
    texts = [t.get_text() for t in ax.texts]
    assert "<1e-06" in texts and "0.5" in texts and len(texts) == 3
    legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
    assert legends and "no value" in legends[0].get_texts()[0].get_text()
    assert any(p.get_hatch() == "//" for p in ax.patches)
    plt.close(fig)


def test_long_labels_wrap_and_turn_and_big_grids_have_no_numbers():
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    names = [f"A rather long unit name number {i}" for i in range(12)]
    heatmap(ax, np.arange(144.0).reshape(12, 12), names, names)
    labels = ax.get_xticklabels()
    assert all("\n" in t.get_text() for t in labels) and labels[0].get_rotation() == 45
    plt.close(fig)
    fig, ax = _fig()
    n = int(np.ceil(np.sqrt(MAX_ANNOTATED + 1)))
    heatmap(ax, np.ones((n, n)), [str(i) for i in range(n)], [str(i) for i in range(n)])
    assert len(ax.texts) == 0
    plt.close(fig)


def test_sweep_heatmap_titles_in_plain_words():
    import matplotlib.pyplot as plt

    from oddslab.analysis.sweep import sweep

    res = sweep(SCENARIO, {"target.save": [3, 4], "attacker.weapons.0.models": [5, 10]},
                trials=2_000, seed=1, exact="never")  # fmt: skip
    ax = res.plot("mean(models_slain)")
    assert ax.get_title() == "mean of target models slain (2,000 trials per cell)"
    assert ax.get_xlabel() == "attacker weapon 1 models" and ax.get_ylabel() == "target save"
    plt.close("all")


@pytest.mark.parametrize("per_points", [False, True])
def test_matchup_heatmap_title(per_points):
    import matplotlib.pyplot as plt

    from oddslab.analysis.matchup import matchup

    lib = ROOT / "oddslab" / "examples" / "libraries" / "generic.toml"
    res = matchup(f"{lib}:shock_squad,flame_team", f"{lib}:conscripts,battle_tank",
                  metric="mean(damage_dealt)")  # fmt: skip
    ax = res.plot(per_points=per_points)
    assert ax.get_title().startswith("mean of ") and ax.get_title().endswith("(exact)")
    assert ("per 100 points" in ax.get_title()) == per_points
    plt.close("all")
