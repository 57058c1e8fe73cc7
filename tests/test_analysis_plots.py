"""Analysis plots: plain words, no overlapping labels, cells without a value, p = 0."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from oddslab.analysis.plots import (
    MAX_ANNOTATED,
    MIN_CELL_FONT,
    category_ticks,
    fit_titles,
    heatmap,
    plain_key,
    plain_metric,
)

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


# every key of every ruleset's schema that holds a list (an array of tables, or a list
# value), and how one of its items reads: the test fails when a ruleset adds a list key this
# table does not name, so its plural gets looked at
SINGULAR = {
    "aa": "aa", "actions": "action", "anti": "anti", "attacks": "attack",
    "batteries": "battery", "cards": "card", "defender_extra_rerolls": "defender extra reroll",
    "dice": "die", "extra_rerolls": "extra reroll", "faces": "face", "groups": "group",
    "hexes": "hex", "ignore_keywords": "ignore keyword", "impact": "impact",
    "keywords": "keyword", "leader_quality": "leader quality", "melee": "melee",
    "models": "model", "orders": "order", "outside_shock": "outside shock",
    "points_per_model": "points per model", "quality": "quality", "ranged": "ranged",
    "reroll_hits": "reroll hit", "reroll_wounds": "reroll wound", "saber_wild": "saber wild",
    "secondary": "secondary", "split": "split", "steps": "step", "support": "support",
    "target": "target", "to_hit_chart": "to hit chart", "to_wound_chart": "to wound chart",
    "units": "unit", "vp": "vp", "vs": "vs", "weapons": "weapon",
}  # fmt: skip
LISTS = ("int_list", "str_list", "int_or_list", "int_matrix", "custom")


def test_plain_key_singular_of_every_list_key_of_every_ruleset():
    from oddslab import ruleset

    found = set()
    for name in ruleset.names(plugins=False):
        for path, key in ruleset.get(name).keys.root.walk():
            parts = path.split(" (")[0].split(".")
            found |= {p[:-2] for p in parts if p.endswith("[]")}
            if key.kind in LISTS:
                found.add(parts[-1])
    assert found == set(SINGULAR)
    for key, one in SINGULAR.items():
        assert plain_key(f"{key}[0]") == f"{one} 1"
        assert plain_key(f"side.{key}.1.x") == f"side {one} 2 x"
    assert plain_key("hexes[0].units[1].he") == "hex 1 unit 2 he"
    assert plain_key("vom.batteries.2.range") == "vom battery 3 range"


def _fig():
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=(6, 4))


def test_missing_cells_are_hatched_with_a_legend_and_zero_is_below_one_over_n():
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    values = np.array([[0.0, 0.5], [np.nan, 0.25]])
    trials = np.array([[1_000_000, 1_000_000], [0, 0]])
    heatmap(values, ["a", "b"], ["x", "y"], ax=ax, trials=trials, probability=True)
    texts = [t.get_text() for t in ax.texts]
    assert "<1e-06" in texts and "0.5" in texts and len(texts) == 3
    legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
    assert legends and "no value" in legends[0].get_texts()[0].get_text()
    assert any(p.get_hatch() == "//" for p in ax.patches)
    plt.close(fig)


def _words(n, long=True):
    heads = ["Very long name of a heavy weapons team with lascannons",
             "Extremely long name of an armoured infantry squad in heavy cover",
             "Veteran assault squad with plasma pistols and chainswords",
             "Ordinary line troopers"]  # fmt: skip
    return [f"{heads[i % 4] if long else 'unit'} {i}" for i in range(n)]


def _assert_apart(labels, renderer):
    boxes = [t.get_window_extent(renderer) for t in labels if t.get_text()]
    for a, b in zip(boxes, boxes[1:], strict=False):
        assert not a.overlaps(b), (a, b)


@pytest.mark.parametrize("n, long", [(20, True), (3, True), (30, False)])
def test_tick_labels_never_overlap(n, long):
    """Rows and columns: rendered (Agg, laid out as the CLI saves), no two tick labels'
    boxes meet, for long names and many entries; cut names are in the footnote in full."""
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    names = _words(n, long)
    values = np.linspace(0, 1, n * n).reshape(n, n)
    assert heatmap(values, names, names, ax=ax, title="t", xlabel="target") is ax
    fig.tight_layout()
    fig.draw_without_rendering()  # places every text as a draw does
    renderer = fig.canvas.get_renderer()
    _assert_apart(ax.get_yticklabels(), renderer)
    _assert_apart(ax.get_xticklabels(), renderer)
    foot = [t.get_text() for t in ax.texts if t.get_gid() == "footnote"]
    if long:
        assert "…" in ax.get_yticklabels()[0].get_text()
        full = foot[0].replace("\n    ", " ")
        assert names[0] in full and names[-2] in full
        # the footnote is under the column labels and inside the figure
        low = min(t.get_window_extent(renderer).y0 for t in ax.get_xticklabels())
        box = next(t for t in ax.texts if t.get_gid() == "footnote").get_window_extent(renderer)
        assert box.y1 <= low and box.y0 >= 0
    plt.close(fig)


def test_cell_text_readable_or_dropped_with_a_note():
    """Numbers are written at MIN_CELL_FONT points or more and inside their cells, or not at
    all, with a note saying where the values are."""
    import matplotlib.pyplot as plt

    for n, figsize in [(20, (6, 4)), (10, (9, 7)), (4, (6, 4))]:
        fig, ax = plt.subplots(figsize=figsize)
        heatmap(np.linspace(0, 1, n * n).reshape(n, n), _words(n, False), _words(n, False),
                ax=ax, se=np.full((n, n), 0.01))  # fmt: skip
        fig.tight_layout()
        fig.draw_without_rendering()  # places every text as a draw does
        renderer = fig.canvas.get_renderer()
        cells = [t for t in ax.texts if t.get_gid() == "cell"]
        notes = " ".join(t.get_text() for t in ax.texts if t.get_gid() == "footnote")
        box = ax.get_window_extent(renderer)
        w, h = box.width / n, box.height / n
        if figsize == (6, 4) and n == 20:
            assert not cells and "colour bar" in notes
        else:
            assert len(cells) == n * n and "colour bar" not in notes
        for t in cells:
            assert t.get_fontsize() >= MIN_CELL_FONT
            e = t.get_window_extent(renderer)
            assert e.width <= w and e.height <= h
        plt.close(fig)
    fig, ax = _fig()
    n = int(np.ceil(np.sqrt(MAX_ANNOTATED + 1)))
    heatmap(np.ones((n, n)), [str(i) for i in range(n)], [str(i) for i in range(n)], ax=ax)
    assert not [t for t in ax.texts if t.get_gid() == "cell"]
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


def test_line_of_an_integer_key_has_integer_ticks_and_no_error_bars_when_exact():
    import matplotlib.pyplot as plt

    from oddslab.analysis.sweep import sweep

    res = sweep(SCENARIO, {"attacker.weapons.0.models": [3, 4]}, progress=None)
    ax = res.plot("mean(models_slain)")
    ticks = [t for t in ax.get_xticks() if 3 <= t <= 4]
    assert ticks == [3, 4] and "exact" in ax.get_title() and "CI" not in ax.get_title()
    assert ax.get_xlabel() == "attacker weapon 1 models"
    assert not ax.collections  # the error bars of errorbar() are a LineCollection
    plt.close("all")


@pytest.mark.parametrize("exact", ["auto", "never"])
def test_efficiency_plot_in_plain_words_and_exact_without_intervals(exact):
    import matplotlib.pyplot as plt

    from oddslab.analysis.points import efficiency

    lib = ROOT / "oddslab" / "examples" / "libraries" / "generic.toml"
    res = efficiency(f"{lib}:shock_squad,flame_team", [f"{lib}:conscripts"],
                     metric="mean(damage_dealt)", trials=500, seed=1, exact=exact,
                     progress=None)  # fmt: skip
    ax = res.plot()
    xlabel = ax.get_xlabel().replace("\n", " ")
    assert xlabel.startswith("mean of ") and xlabel.endswith(" per 100 points")
    assert "(" not in xlabel.split(" per 100")[0].replace("(overkill removed)", "")
    if exact == "auto":
        assert ax.get_title().endswith("(exact)") and not ax.lines and not ax.collections
    else:
        assert ax.get_title().endswith("(95% CI)") and ax.collections
    plt.close("all")


def test_line_plot_category_labels_never_overlap():
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    names = [f"D6 re-rolling ones, {i}" for i in range(25)] + [_words(1)[0]]
    ax.plot(range(len(names)), range(len(names)), marker="o")
    ax.set_xlabel("attacker weapon 1 attacks")
    category_ticks(ax, names)
    fig.tight_layout()
    fig.draw_without_rendering()
    _assert_apart(ax.get_xticklabels(), fig.canvas.get_renderer())
    foot = " ".join(t.get_text() for t in ax.texts if t.get_gid() == "footnote")
    assert names[-1] in foot.replace("\n    ", " ")
    plt.close(fig)


# -- labels told apart, whole words, footnotes and titles inside the figure -------------------

PREFIX = [f"Extremely long-named veteran assault squad with plasma rifles {i:02d}" for i in
          range(1, 21)]  # fmt: skip
SUFFIX = [f"Squad {i:02d} of the extremely long-named veteran assault company with plasma "
          "rifles" for i in range(1, 21)]  # fmt: skip
# they differ in a middle too long to show: named by their position
MIDDLE = [
    f"Extremely long shared start of a name, variant {i} with its own long description "
    f"of the many weapons it carries, {i}, and the same long ending"
    for i in range(20)
]


def _saved(fig):
    """Lay ``fig`` out as the CLI saves it (tight layout at the figure's DPI, drawn at 120)
    and return the renderer its texts are measured with."""
    fig.tight_layout()
    fig.set_dpi(120)
    fig.draw_without_rendering()
    return fig.canvas.get_renderer()


def _footnote_map(ax):
    """label → full name, as the footnote writes it."""
    text = " ".join(t.get_text() for t in ax.texts if t.get_gid() == "footnote")
    lines = text.replace("\n    ", " ").split("\n")[1:]
    return dict(line.split(" = ", 1) for line in lines)


def _one_line(label):
    """A wrapped label on one line (a line broken after . : - _ / joins without a space)."""
    return re.sub(r"(?<=[.:\-_/])\n", "", label).replace("\n", " ")


def test_labels_sharing_a_long_start_or_end_are_told_apart():
    """Every row and column label differs, and the footnote gives each cut one its own full
    name: every row can be identified (rows share a long start, columns a long end). On a
    line's category axis too, names that differ only in a long middle (named by position)."""
    import matplotlib.pyplot as plt

    n = 10  # as many as the audit's 20 clash alike; fewer draw faster
    for rows, cols in [(PREFIX[:n], SUFFIX[:n]), (MIDDLE[:n], None)]:
        fig, ax = _fig()
        if cols is None:
            ax.plot(range(n), range(n))
            ax.set_xlabel("attacker weapon 1 name")
            category_ticks(ax, rows)
            pairs = [(ax.get_xticklabels(), rows)]
            assert ax.get_xticklabels()[4].get_text() == "A5"
        else:
            heatmap(np.ones((n, n)), rows, cols, ax=ax, annotate=False, xlabel="target",
                    ylabel="attacker")  # fmt: skip
            pairs = [(ax.get_yticklabels(), rows), (ax.get_xticklabels(), cols)]
        notes = _footnote_map(ax)
        for ticks, full in pairs:
            labels = [_one_line(t.get_text()) for t in ticks]
            assert len(set(labels)) == n
            assert all(notes.get(a, b) == b for a, b in zip(labels, full, strict=True))
        plt.close(fig)


def test_same_named_entries_of_two_libraries_are_told_apart(tmp_path):
    """Two folders' lib.toml with one long-named entry each: the matchup's own labels
    ("… (a/lib.toml:key)") stay apart on the heatmap."""
    import matplotlib.pyplot as plt

    from oddslab.analysis.matchup import matchup

    for folder in "ab":
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "lib.toml").write_text(
            'ruleset = "generic"\n[units.veteran_assault_squad]\npoints = 90\n'
            'name = "Extremely long-named veteran assault squad with plasma rifles"\n'
            "[[units.veteran_assault_squad.weapons]]\nname = \"rifle\"\nmodels = 5\n"
            "attacks = 2\nskill = 3\nstrength = 4\n[units.heavy_veteran_guard_squad]\n"
            'points = 100\nname = "Extremely long-named heavy veteran guard squad in cover"\n'
            "models = 5\ntoughness = 4\nsave = 3\n[matchup.template]\nruleset = \"generic\"\n"
            '[matchup.template.attacker]\nuse = "{attacker}"\n'
            '[matchup.template.target]\nuse = "{target}"\n'
        )  # fmt: skip
    libs = [tmp_path / f / "lib.toml" for f in "ab"]
    res = matchup([f"{lib}:veteran_assault_squad" for lib in libs],
                  [f"{lib}:heavy_veteran_guard_squad" for lib in libs],
                  metric="mean(damage_dealt)")  # fmt: skip
    ax = res.plot()
    notes = _footnote_map(ax)
    for ticks, entries in [(ax.get_yticklabels(), res.attackers),
                           (ax.get_xticklabels(), res.targets)]:  # fmt: skip
        labels = [_one_line(t.get_text()) for t in ticks]
        assert len(set(labels)) == 2
        full = [res.label(e) for e in entries]
        assert "a/lib.toml" in full[0] and "b/lib.toml" in full[1]
        assert [notes.get(a, a) for a in labels] == full
    plt.close("all")


@pytest.mark.parametrize("n", [20, 40])
def test_footnote_inside_the_saved_figure(n):
    """However many names are cut, the footnote lies inside the figure as the CLI saves it
    (at 120 DPI), under the column labels."""
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    names = [f"{x} {i}" for i, x in enumerate(PREFIX * 2)][:n]
    heatmap(np.ones((n, 2)), names, ["a", "b"], ax=ax, annotate=False, title="t",
            xlabel="target", ylabel="attacker")  # fmt: skip
    renderer = _saved(fig)
    note = next(t for t in ax.texts if t.get_gid() == "footnote").get_window_extent(renderer)
    assert fig.bbox.contains(note.x0, note.y0) and fig.bbox.contains(note.x1, note.y1)
    low = min(t.get_window_extent(renderer).y0 for t in [*ax.get_xticklabels(), ax.xaxis.label])
    assert note.y1 <= low
    plt.close(fig)


def _breaks_between_words(label, text):
    """Every line of ``label`` but a cut one ends where ``text`` has a space, or after one
    of . : - _ /."""
    rest = text
    for line in label.split("\n")[:-1]:
        assert rest.startswith(line), (label, text)
        rest = rest[len(line) :]
        assert line[-1] in ".:-_/" or rest[:1] == " ", (label, text)
        rest = rest.lstrip()


def test_tick_labels_wrap_between_words_and_cut_a_long_word_with_an_ellipsis():
    import matplotlib.pyplot as plt

    names = ["dup.toml:conscripts", "generic.toml:armoured_infantry",
             "armoured_infantry in heavy cover", "Supercalifragilisticexpialidocious",
             "generic.toml:a_very_long_key_of_one_word_that_goes_on_forever"]  # fmt: skip
    fig, ax = _fig()
    heatmap(np.ones((5, 5)), names, names, ax=ax, annotate=False)
    for t, name in zip(ax.get_yticklabels(), names, strict=True):
        label = t.get_text()
        if name.startswith("Super"):
            assert label.endswith("…") and len(label) <= 18
            assert _footnote_map(ax)[label] == name
        elif name.endswith("forever"):  # its start and its end, "…" between
            assert label.startswith("generic.toml:") and label.endswith(" … forever")
            assert all(len(line) <= 18 for line in label.split("\n"))
        else:
            _breaks_between_words(label, name)
            assert _one_line(label) == name
    plt.close(fig)


def test_efficiency_plot_of_long_names_fits_its_labels(tmp_path):
    """Long names that share their start: bars labelled apart, the title, the x label and
    the tick labels inside the saved figure and clear of each other, the bars wider than a
    sliver."""
    import matplotlib.pyplot as plt

    from oddslab.analysis.points import efficiency

    units = "".join(
        f'[units.u{i}]\npoints = {50 + i}\nname = "{PREFIX[i]}"\n[[units.u{i}.weapons]]\n'
        f'name = "plasma rifle"\nmodels = {1 + i % 5}\nattacks = 2\nskill = 3\nstrength = 7\n'
        for i in range(8)
    )
    lib = tmp_path / "long.toml"
    lib.write_text(
        f'ruleset = "generic"\n{units}[units.t]\npoints = 100\nmodels = 10\ntoughness = 4\n'
        'save = 4\nname = "Target"\n[matchup.template]\nruleset = "generic"\n'
        '[matchup.template.attacker]\nuse = "{attacker}"\n'
        '[matchup.template.target]\nuse = "{target}"\n'
    )  # fmt: skip
    res = efficiency(f"{lib}:u*", [f"{lib}:t"], metric="mean(models_slain)", progress=None)
    ax = res.plot()
    fig = ax.figure
    renderer = _saved(fig)
    ticks = ax.get_yticklabels()
    assert len({t.get_text() for t in ticks}) == 8
    best = res.table["label"].iloc[0]  # the top bar is the best ranked, its name in full first
    assert _footnote_map(ax)[_one_line(ticks[-1].get_text())] == best
    note = [t for t in ax.texts if t.get_gid() == "footnote"]
    assert len(note) == 1 and PREFIX[3] in note[0].get_text().replace("\n    ", " ")
    texts = [ax.title, ax.xaxis.label, *ticks, *note]
    boxes = [t.get_window_extent(renderer) for t in texts]
    for i, a in enumerate(boxes):
        assert fig.bbox.contains(a.x0, a.y0) and fig.bbox.contains(a.x1, a.y1), a
        assert not any(a.overlaps(b) for b in boxes[i + 1 :]), a
    assert ax.get_window_extent(renderer).width >= 1.9 * fig.dpi
    plt.close(fig)


def test_long_titles_and_axis_labels_wrap_inside_the_figure():
    """A line plot of a long metric (a sweep over numbers): its title and axis labels wrap
    to the figure instead of running off it."""
    import matplotlib.pyplot as plt

    fig, ax = _fig()
    ax.plot([1, 2], [1, 2])
    long = "P(clean win of the extremely long-named veteran assault squad over the guard) "
    ax.set_title(long * 2)
    ax.set_xlabel(long)
    ax.set_ylabel(long)
    fit_titles(ax)
    renderer = _saved(fig)
    for t in (ax.title, ax.xaxis.label, ax.yaxis.label):
        box = t.get_window_extent(renderer)
        assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1), t
    plt.close(fig)
