"""Plot functions: take ax=None, return the Axes they drew on, compose on a caller's Axes."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from oddslab import GenericScenario, Target, Weapon, plot_at_least, plot_compare, plot_pmf, simulate
from oddslab.exact import exact
from oddslab.plotting import check_output_file, check_plot_path

SC = GenericScenario((Weapon(models=5, attacks=2, skill=3),), Target(models=5, save=5))


@pytest.fixture(scope="module")
def outs():
    return simulate(SC, trials=20_000, seed=1), SC.exact_pmfs()


def test_plot_functions_return_axes(outs):
    out, _ = outs
    ax = plot_pmf(out, "models_slain")
    assert ax.get_xlabel() == out.title("models_slain") and len(ax.patches) >= 5
    ax2 = plot_at_least(out, "hits")
    assert ax2.lines and ax2.get_ylabel() == f"P({out.title('hits')} ≥ k)"
    for a in (ax, ax2):  # plain words, never snake_case, on the axes
        assert "_" not in a.get_xlabel() + a.get_ylabel() + a.get_title()
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


def test_long_tail_is_cut_with_a_note():
    from oddslab.pools import parse_roll

    ex = exact(parse_roll("4D6 explode 6 unlimited"))
    ax = plot_pmf(ex, "total")
    assert ax.get_xlim()[1] < 80  # not out to the 2,424 the pool can reach
    assert any("not shown" in t.get_text() for t in ax.texts)
    ax = plot_at_least(ex, "total")
    assert max(ax.lines[0].get_xdata()) < 80
    plt.close("all")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("missing-folder/x.png", "does not exist"),
        ("x.banana", "unknown plot format '.banana'"),
    ],
)
def test_check_plot_path_rejects(tmp_path, name, problem):
    with pytest.raises(ValueError, match=problem):
        check_plot_path(tmp_path / name)


def test_check_plot_path_adds_png_and_keeps_formats(tmp_path):
    assert check_plot_path(tmp_path / "out") == tmp_path / "out.png"
    assert check_plot_path(tmp_path / "o.svg") == tmp_path / "o.svg"
    with pytest.raises(ValueError, match="is a folder"):
        check_plot_path(tmp_path)


@pytest.mark.skipif(not Path("/proc/self").exists(), reason="needs /proc")
def test_check_output_file_opens_the_file_itself():
    # /proc is a writable-looking folder that takes no new file
    with pytest.raises(ValueError, match="cannot write this file"):
        check_output_file(Path("/proc/oddslab-out.csv"), "/proc/oddslab-out.csv")


def test_check_output_file_leaves_no_trace(tmp_path):
    new = tmp_path / "new.csv"
    check_output_file(new, str(new))
    assert not new.exists()  # the probe's file is removed again
    old = tmp_path / "old.csv"
    old.write_text("kept")
    check_output_file(old, str(old))
    assert old.read_text() == "kept"
    with pytest.raises(ValueError, match="does not exist"):
        check_output_file(tmp_path / "no" / "x.csv", "no/x.csv")


def test_joint_cell_numbers_only_where_they_fit():
    """A joint heatmap writes its cells' probabilities only when each fits its cell: on a
    small Axes they would run into each other, and are left to the colour bar."""
    from oddslab.plotting import plot_joint

    sc = GenericScenario((Weapon(models=4, attacks=2, skill=3),), Target(models=10, save=6))
    out = simulate(sc, trials=2_000, seed=1, joint=[("hits", "wounds")])
    ax = plot_joint(out, "hits", "wounds")
    renderer = ax.figure.canvas.get_renderer()
    cell = ax.get_window_extent(renderer).width / len(ax.get_xticks())
    assert ax.texts and all(t.get_window_extent(renderer).width < cell for t in ax.texts)
    _, small = plt.subplots(figsize=(2.5, 2))
    assert not plot_joint(out, "hits", "wounds", ax=small).texts
    plt.close("all")
