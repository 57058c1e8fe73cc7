"""oddslab._tables: boxed tables drawn directly print the same characters as rich's Table."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from oddslab import _report, _tables
from oddslab._tables import print_table

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples").glob("*.toml"))


def _console(width: int, terminal: bool = False) -> Console:
    return Console(
        file=io.StringIO(),
        highlight=False,
        width=width,
        force_terminal=terminal,
        color_system="truecolor" if terminal else None,
    )


def _rich_only(con, title, columns, rows, *, min_width=0):
    _tables._with_rich(con, title, columns, rows, min_width)


COLS = [("statistic", "left"), ("mean", "right"), ("± SE", "right")]
ROWS = [["alpha [x]", "1.5", "0.01"], ["beta ≥ gamma", "12.25", "0.001"]]


@pytest.mark.parametrize("width", [20, 31, 40, 80, 200])
@pytest.mark.parametrize("min_width", [0, 22, 45])
@pytest.mark.parametrize(
    "title", ["", "Per-trial statistics", "a title much longer than the table"]
)
def test_a_small_table_prints_as_rich_prints_it(width, min_width, title):
    fast, slow = _console(width), _console(width)
    print_table(fast, title, COLS, ROWS, min_width=min_width)
    _rich_only(slow, title, COLS, ROWS, min_width=min_width)
    assert fast.file.getvalue() == slow.file.getvalue()


def test_styles_reach_the_terminal_title_italic_headers_bold():
    con = _console(80, terminal=True)
    print_table(con, "Per-trial statistics", COLS, ROWS)
    out = con.file.getvalue()
    assert "\x1b[3mPer-trial statistics" in out  # table.title: italic
    assert "\x1b[1m statistic" in out  # table.header: bold
    assert "alpha [x]" in out  # user text printed as written, not read as markup


def test_a_table_that_fits_is_drawn_without_rich_table(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("rich.Table used for a table that fits")

    monkeypatch.setattr(_tables, "_with_rich", boom)
    rows = [[f"statistic {i}", f"{i / 7:.4g}", "0.001"] for i in range(300)]
    con = _console(100)
    print_table(con, "Per-trial statistics", COLS, rows)
    lines = con.file.getvalue().splitlines()
    assert len(lines) == 1 + 3 + 300 + 1  # title, top rule + header + rule, rows, bottom


@pytest.mark.parametrize("width", [12, 16, 24, 30, 36, 44])
def test_a_table_wider_than_the_console_wraps_as_rich_wraps_it(width):
    rows = [
        ["a label too long for thirty columns", "1", "2"],
        ["short", "123456789", "0.25"],
        ["an extraordinarilylongwordthatcannotbreak here", "3", "4"],
    ]
    fast, slow = _console(width), _console(width)
    print_table(fast, "Wrapped", COLS, rows)
    _rich_only(slow, "Wrapped", COLS, rows)
    assert fast.file.getvalue() == slow.file.getvalue()


def test_random_tables_print_as_rich_prints_them():
    import random

    rng = random.Random(7)
    words = ["a", "Blue", "formations", "≥", "P(=", "k)", "x" * 14, "[b]", "0.125", "turn"]
    for _ in range(2000):
        ncols = rng.randint(1, 6)
        cols = [(rng.choice(words), rng.choice(["left", "right"])) for _ in range(ncols)]
        rows = [
            [" ".join(rng.choices(words, k=rng.randint(1, 5))) for _ in range(ncols)]
            for _ in range(rng.randint(0, 4))
        ]
        width, min_width = rng.randint(8, 90), rng.choice([0, 0, 20, 50])
        title = rng.choice(["", "Per-trial statistics", "t"])
        fast, slow = _console(width), _console(width)
        print_table(fast, title, cols, rows, min_width=min_width)
        _rich_only(slow, title, cols, rows, min_width=min_width)
        assert fast.file.getvalue() == slow.file.getvalue(), (cols, rows, width, min_width)


def test_plain_wrapping_is_rich_wrapping():
    import random

    from rich.text import Text

    rng = random.Random(11)
    words = ["a", "Blue", "formations", "≥", "(0", "no", "action,", "2", "Hold)", "x" * 9, ""]
    con = _console(80)
    drawn = 0
    for _ in range(5000):
        text = rng.choice(["", " ", "  "]).join(rng.choices(words, k=rng.randint(0, 9)))
        text = rng.choice(["", " "]) + text + rng.choice(["", " ", "   "])
        width, justify = rng.randint(1, 30), rng.choice(["left", "right"])
        got = _tables._wrap(text, width, justify)
        want = [
            ln.plain for ln in Text(text).wrap(con, width, justify=justify, overflow="ellipsis")
        ]
        if got is not None:
            drawn += 1
            assert got == want, (text, width, justify)
    assert drawn > 3000  # most texts are wrapped without rich


def test_only_a_table_wider_than_its_least_width_allows_goes_to_rich(monkeypatch):
    used = []
    monkeypatch.setattr(_tables, "_with_rich", lambda *a: used.append(a))
    print_table(_console(80), "t", COLS, ROWS, min_width=60)  # rich would widen the columns
    assert used


@pytest.fixture(scope="module")
def outcomes():
    from oddslab.engine import simulate
    from oddslab.scenario import load

    return [(p.name, simulate(load(p), trials=3_000, seed=5)) for p in EXAMPLES]


@pytest.mark.parametrize("width", [40, 60, 80, 100, 120, 200])
def test_every_example_prints_as_with_rich_tables(outcomes, width, monkeypatch):
    for name, out in outcomes:
        stat = out.primary_stat()
        fast = _console(width)
        _report.print_outcome(out, stat, fast)
        with monkeypatch.context() as m:
            m.setattr(_report, "print_table", _rich_only)
            slow = _console(width)
            _report.print_outcome(out, stat, slow)
        assert fast.file.getvalue() == slow.file.getvalue(), (name, width)


@pytest.mark.parametrize("width", [50, 80, 160])
def test_a_comparison_prints_as_with_rich_tables(outcomes, width, monkeypatch):
    picked = [out for name, out in outcomes if name.startswith("generic-devastating")]
    names = ["current [rule]", "legacy", "vs terminators"][: len(picked)]
    rows = _report.compare_rows(picked)
    fast = _console(width)
    _report.print_compare(picked, names, rows, fast)
    with monkeypatch.context() as m:
        m.setattr(_report, "print_table", _rich_only)
        slow = _console(width)
        _report.print_compare(picked, names, rows, slow)
    assert fast.file.getvalue() == slow.file.getvalue()
    assert "current [rule]" in fast.file.getvalue()


# -- key/value sections (the resolved inputs) ------------------------------------------------------
def _pairs_both(rows, width, title="Resolved inputs (what was run)", terminal=False):
    fast, slow = _console(width, terminal), _console(width, terminal)
    _tables.print_pairs(fast, title, rows)
    _tables._pairs_with_rich(slow, title, rows)
    return fast.file.getvalue(), slow.file.getvalue()


@pytest.mark.parametrize("width", [20, 40, 60, 80, 120, 200])
def test_every_example_resolved_inputs_print_as_rich_prints_them(width):
    from oddslab.engine import resolved_inputs
    from oddslab.scenario import load

    for path in EXAMPLES:
        fast, slow = _console(width), _console(width)
        resolved = resolved_inputs(load(path))
        _report.print_resolved(resolved, fast)
        rows = []  # the rows print_resolved builds, drawn by rich
        for section, items in resolved.items():
            rows.append((str(section), "", True))
            rows += [(f"  {k}", _report._value_text(v), False) for k, v in items.items()]
        _tables._pairs_with_rich(slow, "Resolved inputs (what was run)", rows)
        assert fast.file.getvalue() == slow.file.getvalue(), (path.name, width)


def test_random_key_value_sections_print_as_rich_prints_them():
    import random

    rng = random.Random(3)
    words = ["a", "Blue", "[x]", "≥", "4+", "re-roll", "x" * 12, "0.5", "turn", "", " "]
    for _ in range(1500):
        rows = []
        for _ in range(rng.randint(1, 6)):
            key = " ".join(rng.choices(words, k=rng.randint(1, 3)))
            value = " ".join(rng.choices(words, k=rng.randint(0, 12)))
            rows.append((key, value, rng.random() < 0.3))
        title = rng.choice(["", "t", "Resolved inputs (what was run)"])
        terminal = rng.random() < 0.5  # with styles: the same ANSI codes too
        fast, slow = _pairs_both(rows, rng.randint(6, 90), title, terminal)
        assert fast == slow, (rows, title, terminal)


def test_key_value_sections_that_fit_are_drawn_without_rich_table(monkeypatch):
    def boom(*args, **kwargs):
        raise AssertionError("rich.Table used for sections that fit")

    monkeypatch.setattr(_tables, "_pairs_with_rich", boom)
    rows = [("scenario", "", True)] + [(f"  key {i}", "a value " * 30, False) for i in range(50)]
    con = _console(80)
    _tables.print_pairs(con, "Resolved inputs", rows)
    assert con.file.getvalue().count("\n") > 100  # long values wrapped under their column


def test_key_value_styles_reach_the_terminal():
    con = _console(80, terminal=True)
    _tables.print_pairs(
        con, "Resolved inputs", [("scenario", "", True), ("  name", "x [y]", False)]
    )
    out = con.file.getvalue()
    assert "\x1b[3mResolved inputs" in out  # table.title: italic
    assert "\x1b[1;2mscenario" in out  # a heading: bold and dim
    assert "\x1b[2m  name" in out  # keys: dim
    assert "x [y]" in out  # user text printed as written, not read as markup
