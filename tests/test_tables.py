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
