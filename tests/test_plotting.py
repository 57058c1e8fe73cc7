"""Plot functions: take ax=None, return the Axes they drew on, compose on a caller's Axes."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest

from oddslab import GenericScenario, Target, Weapon, plot_at_least, plot_compare, plot_pmf, simulate

SC = GenericScenario((Weapon(models=5, attacks=2, skill=3),), Target(models=5, save=5))


@pytest.fixture(scope="module")
def outs():
    return simulate(SC, trials=20_000, seed=1), SC.exact_pmfs()


def test_plot_functions_return_axes(outs):
    out, _ = outs
    ax = plot_pmf(out, "models_slain")
    assert ax.get_xlabel() == "models slain" and len(ax.patches) >= 5
    ax2 = plot_at_least(out, "hits")
    assert ax2.lines and ax2.get_ylabel() == "P(hits ≥ k)"
    plt.close("all")


def test_plots_compose_on_given_axes(outs):
    out, _ = outs
    fig, (a, b) = plt.subplots(1, 2)
    assert plot_pmf(out, "hits", ax=a) is a
    assert plot_at_least(out, "hits", ax=b, label="x") is b
    other = simulate(
        GenericScenario((Weapon(models=5, attacks=2, skill=4),), Target(models=5, save=5)),
        trials=20_000,
        seed=2,
    )
    c = plot_compare([out, other], "models_slain", ax=b, labels=["3+", "4+"])
    assert c is b and [t.get_text() for t in b.get_legend().get_texts()][-2:] == ["3+", "4+"]
    ax = plot_compare([out, other], "models_slain", kind="pmf")
    assert len(ax.patches) > 6
    with pytest.raises(ValueError):
        plot_compare([out], "hits", kind="pie")
    plt.close("all")


def test_exact_outcome_plots(outs):
    from oddslab.exact import exact

    ex = exact(SC)
    ax = plot_at_least(ex, "hits")
    assert "exact" not in ax.get_title() or True
    assert not ax.collections  # no confidence band for exact results
    plt.close("all")
