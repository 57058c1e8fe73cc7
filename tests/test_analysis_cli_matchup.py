"""``oddslab matchup``'s outputs read a chunk of pairs at a time: the same bytes as the whole
long table gave, for a matchup in memory and one streamed from its store."""

from __future__ import annotations

import functools
import importlib
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from oddslab._format import csv_frame
from oddslab.analysis import cli_common, cli_matchup, matchup_table
from oddslab.analysis.matchup import matchup
from oddslab.cli import app

G = str(
    Path(__file__).resolve().parent.parent / "oddslab" / "examples" / "libraries" / "generic.toml"
)
CLEAN = "clean = models_slain >= 5 and damage <= 12"
SIM = ["-n", "2000", "--exact", "never"]
runner = CliRunner(env={"COLUMNS": "120"})


def _run(args: list[str]):
    res = runner.invoke(app, ["matchup", *args])
    assert res.exit_code == 0, res.output
    return res


def _streamed(monkeypatch) -> None:
    """Every matchup of more than 2 pairs streams (results read back from its store), and
    the long table is read 4 rows at a time."""
    monkeypatch.setattr(importlib.import_module("oddslab.analysis.matchup"), "KEEP_VALIDATED", 2)
    monkeypatch.setattr(importlib.import_module("oddslab.analysis.cells"), "KEEP_VALIDATED", 2)
    monkeypatch.setattr(matchup_table, "TABLE_CHUNK", 4)


@pytest.mark.parametrize(
    "args",
    [
        [G, f"{G}:conscripts,battle_tank", *SIM, "-m", "mean(damage)", "--per-points"],
        [G, f"{G}:conscripts,battle_tank", "--per-points", "-m", "points_removed"],  # exact
        [f"{G}:shock_squad,flame_team", f"{G}:conscripts,hound_swarm", "-e", CLEAN,
         "-m", "P(clean)", *SIM],
    ],
    ids=["simulated", "exact", "event"],
)  # fmt: skip
def test_the_matrix_and_out_file_are_the_same_streamed(tmp_path, monkeypatch, args):
    small = _run([*args, "--out", str(tmp_path / "small.csv")])
    _streamed(monkeypatch)
    big = _run([*args, "--out", str(tmp_path / "big.csv")])
    assert "±" in small.stdout or ", exact" in small.stdout
    assert big.stdout == small.stdout
    assert (tmp_path / "big.csv").read_bytes() == (tmp_path / "small.csv").read_bytes()


# 3 x 3 pairs; against the battle tank the headline has a note (it is not reported)
PAIRS = [f"{G}:line_troopers,flame_team,lance_walker", f"{G}:conscripts,battle_tank,hound_swarm"]
NOTED = "P(at least 1 target model)"


@functools.lru_cache
def _table(metric: str | None = None, sort: str | None = None) -> tuple[pd.DataFrame, str]:
    """The whole long table of the PAIRS matchup (as the command built it before), and the
    printed table's title: the metric in plain words."""
    res = matchup(*PAIRS, trials=300, exact="never", metric=metric, progress=None)
    return res.table(sort_by=sort), cli_common._plain_metric(res.metric, res)


@pytest.mark.parametrize(
    ("extra", "sort", "fmt"),
    [
        (["--long", "--sort", "per_100_points"], "per_100_points", "table"),
        (["-f", "csv", "-m", NOTED], None, "csv"),
        (["--sort", "attacker", "-f", "json", "-m", NOTED], "attacker", "json"),
    ],
)  # fmt: skip
def test_the_long_outputs_are_the_whole_tables_streamed(
    tmp_path, monkeypatch, capsys, extra, sort, fmt
):
    """Printed and written a chunk at a time (sorted: by the key column and a row index),
    byte for byte what the whole table (``MatchupResult.table``) printed."""
    args = [*PAIRS, "-n", "300", "--exact", "never", *extra]
    small = _run([*args, "--out", str(tmp_path / "small.csv")])
    tab, metric = _table(extra[extra.index("-m") + 1] if "-m" in extra else None, sort)
    if fmt == "csv":  # every column, as --out writes them
        assert small.stdout == csv_frame(tab) and ",note" in small.stdout
    elif fmt == "json":  # every float at full precision
        assert small.stdout == cli_common._json_text(tab) + "\n"
    else:
        assert small.stdout == _printed(monkeypatch, capsys, tab, metric)
    assert (tmp_path / "small.csv").read_text() == csv_frame(tab)
    _streamed(monkeypatch)
    big = _run([*args, "--out", str(tmp_path / "big.csv")])
    assert big.stdout == small.stdout
    assert (tmp_path / "big.csv").read_bytes() == (tmp_path / "small.csv").read_bytes()


def test_a_parquet_file_written_in_chunks_is_the_table(tmp_path, monkeypatch):
    pytest.importorskip("pyarrow")
    _streamed(monkeypatch)
    _run([*PAIRS, "-n", "300", "--exact", "never", "--sort", "se", "-f", "csv",
          "--out", str(tmp_path / "m.parquet")])  # fmt: skip
    pd.testing.assert_frame_equal(pd.read_parquet(tmp_path / "m.parquet"), _table(None, "se")[0],
                                  check_exact=True)  # fmt: skip


def _printed(monkeypatch, capsys, tab, title: str) -> str:
    """What the command printed of a whole table (before it streamed)."""
    monkeypatch.setenv("COLUMNS", "120")
    capsys.readouterr()
    tab = tab.drop(columns=["metric"], errors="ignore")  # the title names it, in plain words
    cli_common._print_frame(cli_common._shown(cli_common._no_se_if_exact(tab)), title,
                            cli_common.Fmt.table)  # fmt: skip
    return capsys.readouterr().out


def test_a_long_printed_table_shows_its_first_rows_and_says_how_many_more(monkeypatch, capsys):
    monkeypatch.setattr(matchup_table, "LONG_ROWS", 4)
    _streamed(monkeypatch)
    out = _run([*PAIRS, "-n", "300", "--exact", "never", "--long", "--sort", "value"])
    assert "printed the first 4 of 9 rows, sorted by value; -f csv" in out.stderr
    tab, metric = _table(None, "value")
    assert out.stdout == _printed(monkeypatch, capsys, tab.head(4), metric)


def test_an_exact_long_table_has_no_se_columns_and_a_title_in_plain_words():
    """All cells exact: no SE, interval, per-100-points SE, trials (all 0) or seed columns,
    and the title says exact, in plain words (as the heatmaps': never mean(damage_dealt))."""
    wide = CliRunner(env={"COLUMNS": "250"})
    out = wide.invoke(app, ["matchup", *PAIRS, "--long", "-m", "mean(damage_dealt)"])
    assert out.exit_code == 0, out.output
    head = out.stdout.splitlines()[:4]
    assert head[0].split() == "mean of wounds lost by the target (overkill removed), exact".split()
    columns = [c.strip() for c in head[2].strip().strip("┃").split("┃")]
    assert columns[-2:] == ["value", "per 100 points"], columns
    out = wide.invoke(app, ["matchup", *PAIRS, "--per-points", "-m", "points_removed"])
    assert out.stdout.splitlines()[0].split()[:6] == "points removed per 100 points, exact".split()
    simulated = wide.invoke(app, ["matchup", *PAIRS, "--long", *SIM])
    assert "per 100 points se" in simulated.stdout and "exact" not in simulated.stdout


@pytest.mark.parametrize("width", [40, 90])
def test_a_wide_matrix_formats_only_the_columns_that_fit(capsys, monkeypatch, width):
    """The first columns that can fit, the same table and note as the whole frame."""
    cols = [f"target number {j}" if j % 3 else f"t{j}" for j in range(60)]
    df = pd.DataFrame([[f"{i * j / 7:.4g} ± 0.{j % 9 + 1}" for j in range(60)] for i in range(3)],
                      columns=cols)  # fmt: skip
    df.insert(0, "attacker", ["Line troopers (10 rifles)", "a", "Lance walker"])
    monkeypatch.setenv("COLUMNS", str(width))
    cli_common._print_frame(df, "a title", cli_common.Fmt.table)
    whole = capsys.readouterr()
    asked = []

    def frame(k):
        asked.append(k)
        return df.iloc[:, : k + 1]

    cli_matchup._print_wide(frame, cols, "a title")
    assert capsys.readouterr() == whole
    assert max(asked) < len(cols)  # the rest were never formatted


def test_the_matrix_prints_a_simulated_se_to_two_digits_and_no_se_when_exact():
    """``89.1 ± 0.0`` made a simulated cell look exact: the SE has two significant digits."""
    import numpy as np

    text = matchup_table.matrix_text(
        np.array([[89.1234, 0.5]]), np.array([[0.00607, 0.0]]), np.array([[False, True]])
    )
    assert text.tolist() == [["89.1234 ± 0.0061", "0.5"]]
