"""Axis labels: wrapped only between words, at most MAX_LINES lines, never two alike, and a
footnote line for every label that is not the whole name (the plots' own tests check them
drawn: tests/test_analysis_plots.py)."""

from __future__ import annotations

from oddslab.analysis.plot_labels import (
    MAX_LINES,
    WRAP,
    axis_tag,
    cut_names,
    distinct_labels,
    one_line,
    wrap_label,
)


def test_wrap_label_breaks_between_words_and_cuts_a_long_word_with_an_ellipsis():
    text, cut = wrap_label("generic.toml:armoured_infantry squad")
    assert not cut and one_line(text) == "generic.toml:armoured_infantry squad"
    for line in text.split("\n"):
        assert len(line) <= WRAP
    word = "x" * (3 * WRAP)
    text, cut = wrap_label(word)
    assert cut and text.endswith("…") and len(text) <= WRAP
    long = " ".join(f"word{i}" for i in range(40))
    text, cut = wrap_label(long)
    assert cut and len(text.split("\n")) <= MAX_LINES and text.rstrip().endswith("word39")


def test_distinct_labels_keep_what_differs_else_number_and_the_footnote_names_them():
    start = [f"Extremely long-named veteran assault squad with plasma rifles {i:02d}" for i in
             range(1, 21)]  # fmt: skip
    labels = distinct_labels(start, "A")
    texts = [t for t, _ in labels]
    assert len(set(texts)) == 20 and all(cut for _, cut in labels)
    assert texts[6].endswith("07")  # the part that differs is kept
    notes = cut_names(start, labels)
    assert len(notes) == 20 and notes[0].endswith(" = " + start[0])
    same = ["Conscripts", "Conscripts"]  # alike in full: only a position tells them apart
    assert [t for t, _ in distinct_labels(same, "T")] == ["T1", "T2"]
    short = distinct_labels(["a", "b"], "A")
    assert short == [("a", False), ("b", False)] and cut_names(["a", "b"], short) == []


def test_axis_tag_is_the_first_letter_of_the_axis_label():
    assert axis_tag("attacker", "R") == "A" and axis_tag("  target", "C") == "T"
    assert axis_tag("", "R") == "R" and axis_tag("2nd", "C") == "C"


def test_a_library_file_name_is_never_broken():
    text, _ = wrap_label("Shock squad (5 bolt rifles) (x/generic.toml:shock_squad)")
    assert "generic.toml:" in text.replace("\n", "") and "generic.\n" not in text
    for line in text.split("\n"):
        assert not line.endswith("generic.")
