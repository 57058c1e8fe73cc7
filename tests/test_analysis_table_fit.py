"""The analysis commands' tables in a terminal of 80 (and 100, 120) columns: no line wider
than the terminal, every answer column present, no word broken across lines."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from oddslab.analysis.table_fit import _water_fill, fitted_table, wrap_text
from oddslab.cli import app

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = str(ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml")
WEAPONS = str(ROOT / "oddslab" / "examples" / "libraries" / "generic-weapons.toml")
DUEL = str(ROOT / "oddslab" / "examples" / "assault-marines-charge-orks-in-cover.toml")

LONG_NAMES = """\
ruleset = "generic"
description = "Units with long names"

[units.line_troopers_of_the_long_road]
points = 60
name = "Long-named attacking line troopers (10 rifles)"
[[units.line_troopers_of_the_long_road.weapons]]
name = "las-carbine"
models = 10
attacks = 1
skill = 4
strength = 3

[units.shock]
points = 90
name = "Shock squad"
[[units.shock.weapons]]
name = "bolt rifle"
models = 5
attacks = 2
skill = 3
strength = 4
ap = 1

[units.long_named_defending_infantry]
points = 100
name = "Long-named defending infantry of the eastern marches"
models = 10
toughness = 4
save = 4

[units.short]
points = 50
name = "Grots"
models = 10
toughness = 2
save = 7

[matchup.template]
ruleset = "generic"
trials = 2000
[matchup.template.attacker]
use = "{attacker}"
[matchup.template.target]
use = "{target}"
"""

_BREAKS = ".:-_/,;"
_NUMBER = re.compile(r"[-+]?(\d[\d,]*\.?\d*(e[-+]?\d+)?%?|nan|inf|—)")


# -- a checker of printed tables ----------------------------------------------------------------
def _tables(out: str) -> list[dict]:
    """Each rich table printed in ``out``: its headers (lines joined) and its body lines
    split into cells (one list of pieces per column)."""
    tables, cur = [], None
    for line in out.splitlines():
        if line.startswith("┏"):
            cur = {"head": [], "body": []}
        elif cur is not None and line.startswith("┃"):
            cur["head"].append([p.strip() for p in line.strip("┃").split("┃")])
        elif cur is not None and line.startswith("│"):
            cur["body"].append([p.strip() for p in line.strip("│").split("│")])
        elif cur is not None and line.startswith("└"):
            heads = []
            for col in zip(*cur["head"], strict=True):
                heads.append(_joined([p for p in col if p]))
            tables.append({"headers": heads, "body": cur["body"]})
            cur = None
    return tables


def _joined(lines: list[str]) -> str:
    """Lines of one cell as one text: no space after a segment's break character."""
    text = ""
    for line in lines:
        text += line if not text or text[-1] in _BREAKS else " " + line
    return text


_IN_WORD = re.compile(r"(?<![\w.])[-+−]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?%?")


def _bounds(known: str) -> set[int]:
    """Where ``known`` may be cut: at spaces and after break characters, never inside a
    number (``3.09e-`` / ``08``)."""
    cuts = {0, len(known)}
    for i, ch in enumerate(known):
        if ch == " ":
            cuts |= {i, i + 1}
        elif ch in _BREAKS:
            cuts.add(i + 1)
    inside = {i for m in _IN_WORD.finditer(known) for i in range(m.start() + 1, m.end())}
    return cuts - inside


def _whole_words(piece: str, known: list[str]) -> bool:
    """``piece`` (one line of a cell) is a run of whole words and segments of a text printed
    whole in a wide terminal (or ends in ``…`` after the start of one); numbers pass."""
    if _NUMBER.fullmatch(piece) or not piece:
        return True
    short = piece.endswith("…")
    body = piece[:-1] if short else piece
    for k in known:
        cuts = _bounds(k)
        for i in cuts:
            if k.startswith(body, i) and (short or i + len(body) in cuts):
                return True
    return False


def _check(args: list[str], width: int, answers: list[list[str]]) -> str:
    """Run ``args`` at ``width`` columns and at 400: every line fits, every table has its
    answer columns, no header or body line breaks a word."""
    res = CliRunner(env={"COLUMNS": str(width)}).invoke(app, args)
    assert res.exit_code == 0, res.output
    wide = CliRunner(env={"COLUMNS": "400"}).invoke(app, args)
    lines = res.stdout.splitlines()
    assert max(len(x) for x in lines) <= width, res.stdout
    known = [p for t in _tables(wide.stdout) for r in t["body"] for p in r]
    known += [h for t in _tables(wide.stdout) for h in t["headers"]]
    tables = _tables(res.stdout)
    assert len(tables) == len(answers), res.stdout
    for t, want in zip(tables, answers, strict=True):
        for col in want:
            assert col in t["headers"], (col, t["headers"], res.output)
        for h in t["headers"]:
            assert h in known or _whole_words(h, known), (h, res.stdout)
        for row in t["body"]:
            for piece in row:
                assert _whole_words(piece, known), (piece, res.stdout)
    return res.output


@pytest.fixture(scope="module")
def long_names(tmp_path_factory) -> str:
    path = tmp_path_factory.mktemp("lib") / "long-names.toml"
    path.write_text(LONG_NAMES)
    return str(path)


@pytest.mark.parametrize("width", [80, 100, 120])
def test_the_long_matchup_keeps_its_answer_columns(long_names, width):
    out = _check(["matchup", long_names, long_names, "--long", "-n", "2000", "--exact", "never"],
                 width, [["attacker", "value", "per 100 points"]])  # fmt: skip
    assert "metric" not in _tables(out)[0]["headers"]  # one value: said in the title
    # the title names the metric in plain words (never mean(models_slain)) and the trials
    assert "models slain" in out and " — trials: 2000" in out and "mean(models_slain)" not in out


def test_tables_of_every_command_fit_80_columns(long_names, tmp_path):
    _check(["matchup", long_names, long_names, "-n", "2000", "--exact", "never"], 80,
           [["attacker"]])  # fmt: skip
    _check(["matchup", long_names, long_names, "--long"], 80, [["value", "per 100 points"]])
    _check(["sweep", SCENARIO, "-v", "target.save=2..4", "-v", "attacker.weapons.0.damage=1,2",
            "-v", "attacker.weapons.0.models=5,10", "-n", "2000", "--exact", "never"], 80,
           [["target.save", "attacker.weapons.0.damage", "value"]])  # fmt: skip
    _check(["points", "efficiency", long_names, "-b", f"{long_names}:short=2",
            "-b", f"{long_names}:long_named_defending_infantry", "-n", "2000",
            "--exact", "never"], 80, [["value", "per 100 points"]])  # fmt: skip
    out = _check(["points", "fair", f"{WEAPONS}:plasma_squad", f"{WEAPONS}:bolt_squad",
                  "-b", f"{WEAPONS}:horde=3", "-b", f"{WEAPONS}:veterans=2",
                  "-b", f"{WEAPONS}:ogres", "-b", f"{WEAPONS}:walker", "-n", "2000",
                  "--exact", "never"], 80,
                 [["quantity", "value"], ["basket", "candidate value", "reference value",
                                          "fair points", "note"]])  # fmt: skip
    # a value that fits the terminal is never wrapped
    assert "│ 85 points, efficiency 1.047× reference │" in out
    _check(["points", "duel", DUEL, "--vary", "attacker.units.0.groups.0.count=2..14",
            "--metric", "P(attacker wins the assault)", "--points-per-model", "14",
            "-n", "2000"], 80, [["quantity", "value"], ["size", "value"]])  # fmt: skip
    from oddslab.analysis.sweep import sweep

    sweep(SCENARIO, {"target.save": [3, 4]}, trials=1000, seed=7, store=tmp_path / "s.sqlite")
    out = _check(["store", "info", str(tmp_path / "s.sqlite")], 80, [["quantity", "value"]])
    # the labels stay whole; the digest is shortened on purpose (never cut by the width)
    assert "│ last cell written " in out and "│ scenario digest (first 12) │" in out
    assert "…" not in out


# -- the layout's parts ---------------------------------------------------------------------------
def test_wrap_text_breaks_between_words_and_segments_only():
    assert wrap_text("attacker.weapons.0.damage", 12) == ["attacker.", "weapons.0.", "damage"]
    assert wrap_text("Long-named defending", 10) == ["Long-named", "defending"]
    assert wrap_text("Long-named defending", 6) == ["Long-", "named", "defen…"]
    assert wrap_text("generic.toml:line_troopers", 14) == ["generic.toml:", "line_troopers"]
    assert wrap_text("87.8 – 90.2 ± 3.785", 6) == ["87.8 –", "90.2 ±", "3.785"]  # 3.|785: never
    assert wrap_text("2026-11-27 20:09:56", 12) == ["2026-11-27", "20:09:56"]
    # an entry breaks after its library first, not inside its key, when the key fits a line
    assert wrap_text("generic.toml:flame_team", 20) == ["generic.toml:", "flame_team"]


def test_water_fill_shows_short_columns_whole():
    assert _water_fill([4, 4, 6], [10, 30, 6], 30) == [10, 14, 6]
    assert _water_fill([4, 4], [10, 30], 100) == [10, 30]


def test_one_value_columns_go_into_the_title_but_answers_stay():
    df = pd.DataFrame({"unit": ["a", "b"], "metric": ["m", "m"], "value": [1.0, 1.0],
                       "trials": [500, 500], "se": [0.1, 0.2]})  # fmt: skip
    from rich.console import Console

    con = Console(width=80, color_system=None)
    table, dropped = fitted_table(df, "mean(x)", 80)
    with con.capture() as cap:
        con.print(table)
    out = cap.get()
    assert out.splitlines()[0] == "mean(x) — metric: m, trials: 500"
    assert _tables(out)[0]["headers"] == ["unit", "value", "se"] and not dropped


# -- the second audit: identifiers as typed, whole numbers, width where it is needed ----------
# a second "Grots": the matrix tells the two apart by their entries, keys as typed
DUP = (
    LONG_NAMES
    + """
[units.armoured_infantry]
points = 60
name = "Grots"
models = 5
toughness = 4
save = 3
"""
)


@pytest.mark.parametrize("width", [80, 120])
def test_identifiers_keep_their_underscores(width):
    key = "attacker.weapons.0.sustained_hits"  # copied back into --vary as printed
    out = _check(["sweep", SCENARIO, "-v", f"{key}=0,1", "-v", "target.save=4,5"], width,
                 [[key, "target.save", "value"]])  # fmt: skip
    assert "sustained hits" not in out


def test_matrix_entries_keep_their_underscores(tmp_path):
    lib = tmp_path / "dup.toml"
    lib.write_text(DUP)
    out = _check(["matchup", str(lib), str(lib)], 80, [["attacker"]])
    assert "Grots (dup.toml:armoured_infantry)" in _tables(out)[0]["headers"], out


FAIR = ["points", "fair", f"{WEAPONS}:plasma_squad", f"{WEAPONS}:bolt_squad", "-b",
        f"{WEAPONS}:horde=3", "-b", f"{WEAPONS}:veterans=2", "-b", f"{WEAPONS}:ogres",
        "-b", f"{WEAPONS}:walker", "-m", "mean(models_slain)"]  # fmt: skip


@pytest.mark.parametrize("width", [80, 100])
def test_numbers_stay_whole_and_labels_get_the_room(width):
    out = _check(FAIR, width, [["quantity", "value"], ["basket", "note"]])
    assert "3.09e-08" in out  # never 3.09e- / 08 (the note wraps at spaces only)
    # the basket labels show whole: a number column's header wraps before a label does
    assert "│ without Veterans │" in out


def test_wrap_text_never_cuts_a_number():
    assert wrap_text("scores 3.09e-08 here", 10) == ["scores", "3.09e-08", "here"]
    assert wrap_text("at 1.2e+05, −0.5 or 12.5%", 8) == ["at", "1.2e+05,", "−0.5 or", "12.5%"]
    # a prose column (a note) wraps at spaces only
    assert wrap_text("a well-known price", 10) == ["a well-", "known", "price"]
    assert wrap_text("a well-known price", 10, prose=True) == ["a", "well-known", "price"]


def test_ids_keep_two_lines_and_their_labels_go_first():
    lib = str(ROOT / "oddslab" / "examples" / "libraries" / "generic.toml")
    res = CliRunner(env={"COLUMNS": "80"}).invoke(app, ["matchup", lib, lib, "--long"])
    assert res.exit_code == 0, res.output
    (table,) = _tables(res.stdout)
    assert (
        table["headers"][:2] == ["attacker", "target"] and "attacker label" not in table["headers"]
    )
    assert "left out to fit 80 columns: attacker_label" in res.stderr
    rows: list[int] = []  # lines per row: a row starts where its attacker id starts
    for line in table["body"]:
        if line[0].startswith("generic."):
            rows.append(0)
        rows[-1] += 1
    assert rows and max(rows) <= 2, res.stdout
