"""The analysis commands: output, files, and one-line errors with exit code 2."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from oddslab.cli import app

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = str(ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml")
GENERIC = str(ROOT / "oddslab" / "examples" / "libraries" / "generic.toml")
runner = CliRunner(env={"COLUMNS": "220"})


def _ok(args: list[str]):
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    return res


def _err(args: list[str], match: str):
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = [ln for ln in res.output.strip().splitlines() if ln.strip()]
    assert lines and lines[-1].startswith("error: ") and match in lines[-1], res.output
    return res


def test_sweep_csv_table_plot_and_store(tmp_path):
    res = _ok(["sweep", SCENARIO, "--vary", "target.save=3..5", "-n", "5000", "--seed", "1",
               "--format", "csv", "--stat", "models_slain"])  # fmt: skip
    df = pd.read_csv(io.StringIO(res.stdout))
    assert set(df["target.save"]) == {3, 4, 5} and set(df["statistic"]) == {"models_slain"}
    res = _ok(["sweep", SCENARIO, "-v", "target.save=3,4", "-v", "attacker.weapons.0.models=5,10",
               "-n", "2000", "-m", "P(models_slain >= 3)", "--plot", str(tmp_path / "h.png"),
               "--out", str(tmp_path / "s.parquet"), "--store", str(tmp_path / "s.sqlite")])  # fmt: skip
    assert "P(target models slain ≥ 3) — 4 cells, exact" in res.stdout  # plain words
    assert (tmp_path / "h.png").stat().st_size > 0
    assert len(pd.read_parquet(tmp_path / "s.parquet")) > 0
    _ok(["sweep", SCENARIO, "-v", "target.save=3,4", "-v", "attacker.weapons.0.models=5,10",
         "-n", "2000", "-m", "P(models_slain >= 3)", "--store", str(tmp_path / "s.sqlite"),
         "--resume"])  # fmt: skip


def test_matchup_points_and_library(tmp_path):
    res = _ok(["matchup", GENERIC, f"{GENERIC}:conscripts,battle_tank", "-n", "2000",
               "-m", "mean(damage)", "--per-points", "--out", str(tmp_path / "m.csv"),
               "--plot", str(tmp_path / "m.png")])  # fmt: skip
    assert "per 100 points" in " ".join(res.stdout.split()) and "Conscripts" in res.stdout
    assert "left out" in res.output
    assert len(pd.read_csv(tmp_path / "m.csv")) == 10
    # above the streaming threshold: tests/test_analysis_cli_matchup.py
    res = _ok(["points", "efficiency", GENERIC, "-b", f"{GENERIC}:conscripts=2",
               "-b", f"{GENERIC}:battle_tank", "-n", "2000", "-m", "mean(damage)"])  # fmt: skip
    assert "ranked" in res.stdout
    res = _ok(["points", "fair", f"{GENERIC}:flame_team", f"{GENERIC}:shock_squad",
               "-b", f"{GENERIC}:conscripts", "-b", f"{GENERIC}:hound_swarm",
               "-n", "2000", "-m", "mean(damage)"])  # fmt: skip
    assert "fair points" in res.stdout and "only Conscripts" in res.stdout
    res = _ok(["library", GENERIC])
    assert "conscripts" in res.stdout and "120" in res.stdout
    assert GENERIC.split("/")[-1] in _ok(["library"]).stdout


def test_a_library_as_the_basket_uses_its_entries_that_can_be_targets():
    res = _ok(["points", "efficiency", GENERIC, "-b", GENERIC, "-n", "2000"])
    assert "Shock squad" in res.stdout  # five attacker profiles left out as targets: one line
    assert (
        "left out 5 entries as targets (not a target profile): generic.toml:flame_team,"
        "heavy_gunners,lance_walker,line_troopers,shock_squad" in res.output
    )
    res = _ok(["points", "fair", f"{WEAPONS}:plasma_squad", f"{WEAPONS}:bolt_squad", "-b", WEAPONS,
               "-n", "2000", "-f", "json"])  # fmt: skip
    assert "left out generic-weapons.toml:plasma_squad (target): not a target profile" in res.output


WEAPONS = str(ROOT / "oddslab" / "examples" / "libraries" / "generic-weapons.toml")


def _notes(res) -> list[str]:
    return [ln for ln in res.output.splitlines() if ln.startswith("note: left out")]


def test_left_out_entries_get_one_short_line_each_in_plain_words():
    for args in (["points", "efficiency", WEAPONS, "-b", WEAPONS],
                 ["points", "fair", f"{WEAPONS}:plasma_squad", f"{WEAPONS}:bolt_squad",
                  "-b", WEAPONS], ["matchup", WEAPONS, WEAPONS]):  # fmt: skip
        notes = _notes(_ok(args))
        assert (
            "note: left out generic-weapons.toml:pulse_squad (target): not a target profile: "
            "it has attacker keys (attacks, skill, strength, ap, ...)" in notes
        ), notes
        assert all(len(n) < 160 and "known keys" not in n for n in notes), notes
        if args[0] != "points" or args[1] == "efficiency":  # the target profiles as attackers
            assert any(n.startswith("note: left out 4 entries as attackers (not an attacker "
                                    "profile): generic-weapons.toml:horde,ogres") for n in notes)  # fmt: skip
    # an entry named one by one must fit: the full validation error
    _err(["matchup", f"{WEAPONS}:plasma_squad", f"{WEAPONS}:bolt_squad"],
         "target.attacks: unknown key (known keys here:")  # fmt: skip


def test_entries_picked_by_a_glob_are_read_like_a_whole_library():
    glob = f"{WEAPONS}:*o*"  # bolt_squad, horde, ogres: bolt_squad is no target
    res = _ok(["points", "efficiency", WEAPONS, "-b", glob])
    assert "ranked" in res.stdout
    assert (
        "note: left out generic-weapons.toml:bolt_squad (target): not a target profile: "
        "it has attacker keys (attacks, skill, strength, ap)" in _notes(res)
    )
    res = _ok(["matchup", f"{WEAPONS}:plasma_squad", glob])
    assert "Horde" in res.stdout and "Ogres" in res.stdout and "Bolt" not in res.stdout
    assert any("bolt_squad (target): not a target profile" in n for n in _notes(res))
    # a glob that keeps nothing is one clear error naming it
    for args in (["points", "efficiency", WEAPONS, "-b", f"{WEAPONS}:*squad*"],
                 ["matchup", f"{WEAPONS}:plasma_squad", f"{WEAPONS}:*squad*"]):  # fmt: skip
        _err(args, "generic-weapons.toml:*squad*: no entry it picks fits the target slot")


def test_duel(tmp_path):
    scen = tmp_path / "d.toml"
    scen.write_text(
        'ruleset = "generic"\n[[attacker.weapons]]\nmodels = 1\nattacks = 1\ntorrent = true\n'
        "strength = 4\n[target]\nmodels = 1\nwounds = 3\ntoughness = 4\nsave = 7\n"
    )
    args = ["points", "duel", str(scen), "--vary", "attacker.weapons.0.models=1..12",
            "-m", "P(wounds_remaining == 0)", "-n", "20000", "--points-per-model", "10"]  # fmt: skip
    res = _ok(args)
    assert "crossing (size)" in res.stdout and "crossing (points)" in res.stdout
    # -f json: one document, numbers as numbers, intervals as two numbers, the curve
    import json

    doc = json.loads(_ok([*args, "-f", "json"]).stdout)
    assert isinstance(doc["crossing"], float) and doc["ci_low"] <= doc["crossing"] <= doc["ci_high"]
    assert doc["points"]["crossing"] == pytest.approx(10 * doc["crossing"])
    sizes = [row["size"] for row in doc["curve"]]
    assert sizes == sorted(sizes) and {doc["below"], doc["above"]} <= set(sizes)
    assert all(isinstance(row["value"], float) for row in doc["curve"])
    # -f csv: one tidy table, a row per size tried
    df = pd.read_csv(io.StringIO(_ok([*args, "-f", "csv"]).stdout))
    assert list(df["size"]) == sizes and df["value"].tolist() == pytest.approx(
        [row["value"] for row in doc["curve"]]
    )
    assert df["crossing"].tolist() == pytest.approx([doc["crossing"]] * len(df))


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["sweep", SCENARIO, "--vary", "target.save"], "expected KEY=VALUES"),
        (["sweep", SCENARIO, "--vary", "target.save=6..2"], "LOW..HIGH"),
        (["sweep", SCENARIO, "--vary", "target.save=9"], "target.save: expected a save"),
        (["sweep", "nope.toml", "--vary", "target.save=2"], "file not found"),
        (["sweep", SCENARIO, "--vary", "target.save=2", "--resume"], "--resume needs --store"),
        (
            ["sweep", SCENARIO, "--vary", "target.save=2", "-n", "10", "-m", "P(nothing)"],
            "not a headline",
        ),
        (
            [
                "sweep",
                SCENARIO,
                "--vary",
                "target.save=2",
                "--workers",
                "2",
                "--scheduler",
                "tcp://x:1",
            ],
            "not both",
        ),
        (["matchup", GENERIC, "missing.toml"], "not found"),
        (["sweep", str(ROOT / "oddslab"), "-v", "target.save=4"], "is a folder, not a TOML file"),
        (["matchup", GENERIC, str(ROOT / "oddslab")], "is a folder, not a library file"),
        (
            ["points", "duel", str(ROOT / "oddslab"), "-v", "target.models=1..9"],
            "is a folder, not a TOML file",
        ),
        (["matchup", f"{GENERIC}:nobody", GENERIC], "no such entry"),
        (
            ["points", "fair", f"{GENERIC}:shock_squad", f"{GENERIC}:shock_squad", "-b", GENERIC],
            "same entry",
        ),
        (["points", "efficiency", GENERIC, "-b", f"{GENERIC}:conscripts=x"], "must be a number"),
        (["points", "duel", SCENARIO, "--vary", "target.save"], "KEY=LO..HI"),
        (["library", "missing.toml"], "not found"),
        (
            ["sweep", SCENARIO, "-v", "target.save=2..4", "-v", "target[save]=5"],
            "'target.save' and 'target[save]' are the same key",
        ),
        (["sweep", SCENARIO, "-v", "target.save=2..4", "-v", "target.save=5"], "given twice"),
        (
            ["matchup", f"{GENERIC}:shock_squad,shock_squad", f"{GENERIC}:conscripts"],
            "generic.toml:shock_squad is picked twice ('shock_squad' and 'shock_squad')",
        ),
        (
            ["points", "efficiency", f"{GENERIC}:*squad*,shock_squad", "-b", GENERIC],
            "generic.toml:shock_squad is picked twice ('*squad*' and 'shock_squad')",
        ),
        (
            [
                "points",
                "fair",
                f"{GENERIC}:shock_squad",
                f"{GENERIC}:flame_team",
                "-b",
                f"{GENERIC}:conscripts,{GENERIC}:conscripts",
            ],
            "generic.toml:conscripts is picked twice",
        ),  # fmt: skip
        (
            ["sweep", SCENARIO, "-v", 'attacker.weapons.0.damage="1",1'],
            "attacker.weapons.0.damage='1' and attacker.weapons.0.damage=1 are one value",
        ),
        (
            ["sweep", SCENARIO, "-v", "attacker.weapons[0.models=3"],
            "--vary 'attacker.weapons[0.models': '[' has no ']' at character 17",
        ),
        (
            ["sweep", SCENARIO, "-v", "target.save=4", "-n", "100", "--stat", "model_slain"],
            "did you mean 'models_slain'",
        ),
        (
            ["sweep", SCENARIO, "-v", "target.save=4", "-n", "100", "-m", "mean(model_slain)"],
            "did you mean 'models_slain'",
        ),
        (
            ["sweep", SCENARIO, "-v", "target.save=4", "-n", "100", "-m", "points_removed"],
            "is a matchup metric",
        ),
        (
            ["sweep", SCENARIO, "-v", "target.save=4", "-n", "100", "-m", "P(models_slain >= )"],
            "'P(models_slain >= )': a number is missing after >=",
        ),
        (
            ["matchup", f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", "-m", "P(>= 2)"],
            "a statistic is missing before >=",
        ),
        (
            [
                "points",
                "efficiency",
                f"{GENERIC}:shock_squad",
                "-b",
                f"{GENERIC}:conscripts",
                "-m",
                "mean()",
            ],
            "nothing inside mean()",
        ),  # fmt: skip
        (
            [
                "points",
                "efficiency",
                GENERIC,
                "-b",
                f"{GENERIC}:conscripts",
                "-b",
                f"{GENERIC}:conscripts=3",
            ],
            "given twice",
        ),  # fmt: skip
    ],
)
def test_errors_are_one_line_exit_2(args, match):
    _err(args, match)


@pytest.mark.parametrize(
    "cmd",
    [
        ["sweep", SCENARIO, "-v", "target.save=4"],
        ["matchup", f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts"],
        ["points", "efficiency", f"{GENERIC}:shock_squad", "-b", f"{GENERIC}:conscripts"],
        ["points", "fair", f"{GENERIC}:shock_squad", f"{GENERIC}:flame_team", "-b", GENERIC],
    ],
)
@pytest.mark.parametrize(
    ("extra", "match"),
    [
        (["--batch", "3"], "--batch applies to Dask runs (--workers or --scheduler)"),
        (["--precision", "0"], "--precision: expected a 95% half-width"),
        (["--precision", "-1"], "--precision: expected a 95% half-width"),
        (["--precision", "0.5"], "--precision: expected a 95% half-width"),
    ],
)
def test_run_options_are_checked_before_any_cell_whatever_the_exact_mode(
    monkeypatch, cmd, extra, match
):
    from oddslab.analysis import distributed

    def never(*a, **k):  # every cell here is exact: nothing would check --precision later
        raise AssertionError("a cell ran")

    monkeypatch.setattr(distributed, "run_cells", never)
    _err([*cmd, *extra], match)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["matchup", f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", "--sort", "nosuch"],
         "--sort nosuch: no such column; columns: attacker, target"),
        (["points", "efficiency", f"{GENERIC}:shock_squad", "-b", f"{GENERIC}:conscripts=inf"],
         "must be a positive number, got inf"),
        (["points", "fair", f"{GENERIC}:shock_squad", f"{GENERIC}:flame_team", "-b", GENERIC,
          "--reference-points", "0"], "reference points: expected a price above 0, got 0"),
        (["points", "duel", SCENARIO, "-v", "target.models=1..9", "--points-per-model", "-3"],
         "points per model: expected a number of points >= 0, got -3"),
        (["points", "duel", SCENARIO, "-v", "target.models=1..9", "--base-points", "-1"],
         "base points: expected a number of points >= 0, got -1"),
        (["sweep", SCENARIO, "-v", "target.save=4", "--scheduler", "nosuch.json"],
         "--scheduler nosuch.json: no such file; give the JSON file of dask scheduler"),
        (["matchup", f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", "--scheduler", str(ROOT)],
         "is a folder; give the JSON file"),
    ],
)  # fmt: skip
def test_values_no_study_can_use_are_refused_before_any_cell(monkeypatch, args, match):
    from oddslab.analysis import distributed, duel

    monkeypatch.setattr(distributed, "run_cells", None)  # refused before any cell
    monkeypatch.setattr(duel, "with_paths", None)  # and before any size of a duel
    _err(args, match)


def test_a_batch_or_precision_the_run_cannot_use_is_refused_in_python():
    from oddslab.analysis import sweep

    with pytest.raises(ValueError, match="batch applies to Dask runs"):
        sweep(SCENARIO, {"target.save": [4]}, batch=3, progress=None)
    with pytest.raises(ValueError, match="precision: expected a 95% half-width"):
        sweep(SCENARIO, {"target.save": [4]}, precision=0, progress=None)


@pytest.mark.parametrize("cmd", ["sweep", "matchup", "efficiency"])
@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_unwritable_out_and_plot_fail_before_any_cell(tmp_path, monkeypatch, cmd, option):
    from oddslab.analysis import distributed

    def boom(*a, **k):  # no cell may run
        raise AssertionError(f"ran before checking {option}")

    monkeypatch.setattr(distributed, "run_cell", boom)
    args = {
        "sweep": ["sweep", SCENARIO, "--vary", "target.save=3,4"],
        "matchup": ["matchup", GENERIC, GENERIC],
        "efficiency": ["points", "efficiency", GENERIC, "-b", f"{GENERIC}:conscripts"],
    }[cmd]
    name = "x.png" if option == "--plot" else "x.csv"
    _err([*args, "-n", "100", option, str(tmp_path / "missing" / name)],
         f"{option} '{tmp_path / 'missing' / name}': the folder")  # fmt: skip


def test_dask_missing_is_one_line(monkeypatch):
    from oddslab.analysis import distributed

    def missing():
        raise distributed.DaskMissing()

    monkeypatch.setattr(distributed, "_import_distributed", missing)
    _err(["sweep", SCENARIO, "--vary", "target.save=4", "-n", "100", "--workers", "2"],
         'pip install -e ".[dask]"')  # fmt: skip


def test_unreachable_scheduler_is_one_line(monkeypatch):
    pytest.importorskip("distributed")
    from oddslab.analysis import distributed

    monkeypatch.setattr(distributed, "CONNECT_TIMEOUT", 2.0)
    _err(["sweep", SCENARIO, "--vary", "target.save=4", "-n", "100",
          "--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler")  # fmt: skip


def test_points_fair_json_is_one_document_and_csv_one_tidy_table():
    import json

    args = ["points", "fair", f"{GENERIC}:flame_team", f"{GENERIC}:shock_squad",
            "-b", f"{GENERIC}:conscripts", "-b", f"{GENERIC}:hound_swarm",
            "-n", "2000", "-m", "mean(damage)", "--seed", "2", "--exact", "never"]  # fmt: skip
    doc = json.loads(_ok([*args, "-f", "json"]).stdout)  # one valid document
    assert isinstance(doc["fair_points"], float) and isinstance(doc["se"], float)
    assert doc["exact"] is False and isinstance(doc["sensitivity"][0]["se"], float)
    assert doc["sensitivity"][0]["basket"] == "whole basket"
    assert doc["sensitivity"][0]["fair_points"] == pytest.approx(doc["fair_points"])
    df = pd.read_csv(io.StringIO(_ok([*args, "-f", "csv"]).stdout))
    assert list(df.columns[:5]) == [
        "candidate",
        "reference",
        "metric",
        "reference_points",
        "basket",
    ]
    assert df["fair_points"].dtype == float and df["basket"].iloc[0] == "whole basket"
    assert df["fair_points"].iloc[0] == pytest.approx(doc["fair_points"])


def test_exact_points_print_no_se_or_interval_and_say_exact(tmp_path):
    """Exact cells (the default for generic units): no "± 0", no zero-width interval, no SE
    columns, "exact" said; JSON and CSV keep numbers as numbers, as a sweep's or matchup's
    exact rows: ``exact`` true, SEs 0 and intervals' ends equal to the value (never null:
    a reader's arithmetic and error bars work on every row); ``--out x.csv|x.json`` writes
    what ``-f csv|json`` prints."""
    import json

    fair = ["points", "fair", f"{GENERIC}:flame_team", f"{GENERIC}:shock_squad",
            "-b", f"{GENERIC}:conscripts", "-b", f"{GENERIC}:hound_swarm", "-m", "mean(damage)"]  # fmt: skip
    out = " ".join(_ok(fair).stdout.split())  # (a title wraps at the table's width)
    assert "Fair points of generic.toml:flame_team, exact" in out
    assert "How the answer moves with the basket, exact" in out
    assert "±" not in out and "interval" not in out and not re.search(r"\b(se|ci)\b", out)
    printed = _ok([*fair, "-f", "json", "-o", str(tmp_path / "f.json")]).stdout
    assert (tmp_path / "f.json").read_text() == printed
    doc = json.loads(printed)
    assert doc["exact"] is True and isinstance(doc["fair_points"], float)
    for key in ("se", "candidate_se", "reference_se"):
        assert doc[key] == 0 and doc["sensitivity"][0][key] == 0
    for key in ("ci_low", "ci_high"):
        assert doc[key] == doc["fair_points"] == doc["sensitivity"][0][key]
    assert all(row["exact"] is True for row in doc["sensitivity"])
    printed = _ok([*fair, "-f", "csv", "-o", str(tmp_path / "f.csv")]).stdout
    assert (tmp_path / "f.csv").read_text() == printed
    df = pd.read_csv(io.StringIO(printed))
    assert df["exact"].all() and df["fair_points"].dtype == float
    assert (df[["se", "candidate_se", "reference_se"]] == 0).all().all()
    assert (df["ci_low"] == df["fair_points"]).all() and (df["ci_high"] == df["fair_points"]).all()

    eff = ["points", "efficiency", f"{GENERIC}:flame_team,shock_squad",
           "-b", f"{GENERIC}:conscripts=2", "-b", f"{GENERIC}:hound_swarm", "-m", "mean(damage)"]  # fmt: skip
    out = " ".join(_ok(eff).stdout.split())
    assert "mean of damage inflicted" in out and "ranked, exact" in out
    assert not re.search(r"\b(se|ci)\b", out)
    printed = _ok([*eff, "-f", "json", "-o", str(tmp_path / "e.json")]).stdout
    assert (tmp_path / "e.json").read_text() == printed
    rows = json.loads(printed)
    assert all(r["exact"] is True and r["se"] == 0 for r in rows)
    assert all(r["ci_low"] == r["ci_high"] == r["per_100_points"] for r in rows)
    printed = _ok([*eff, "-f", "csv", "-o", str(tmp_path / "e.csv")]).stdout
    assert (tmp_path / "e.csv").read_text() == printed
    df = pd.read_csv(io.StringIO(printed))
    assert df["exact"].all() and (df["per_100_points_se"] == 0).all()
    assert df["per_100_points"].dtype == float


def test_machine_outputs_print_what_out_writes_with_floats_at_full_precision(tmp_path):
    """``-f csv`` and ``--out x.csv`` give the same table (the matchup's ``note`` column
    too), ``-f json`` and ``--out x.json`` the same document; JSON floats round-trip the
    float64 (``DataFrame.to_json`` rounded them to 10 decimals: 4.4444444444)."""
    import json

    from oddslab.analysis.matchup import matchup

    pair = [f"{GENERIC}:flame_team,shock_squad", f"{GENERIC}:conscripts,hound_swarm"]
    sweep = ["sweep", SCENARIO, "--vary", "target.save=3,5", "--stat", "damage"]
    for args in (["matchup", *pair, "-m", "mean(damage)"], sweep):
        for fmt in ("csv", "json"):
            path = tmp_path / f"{args[0]}.{fmt}"
            printed = _ok([*args, "-f", fmt, "-o", str(path)]).stdout
            assert path.read_text() == printed, (args[0], fmt)
    assert "note" in pd.read_csv(tmp_path / "matchup.csv").columns
    rows = json.loads((tmp_path / "matchup.json").read_text())
    tab = matchup(*pair, metric="mean(damage)", progress=None).table()
    assert [r["value"] for r in rows] == tab["value"].tolist()  # every bit
    assert [r["per_100_points"] for r in rows] == tab["per_100_points"].tolist()


@pytest.mark.parametrize(
    ("out", "match"),
    [
        ("t.txt", "give a .csv, .json or .parquet file"),
        ("t.parquet", "writing Parquet needs pyarrow"),
    ],
)
def test_out_format_and_its_module_are_checked_before_any_cell(tmp_path, monkeypatch, out, match):
    from oddslab.analysis import cli_common, distributed

    def boom(*a, **k):
        raise AssertionError("a cell ran before --out was checked")

    monkeypatch.setattr(distributed, "run_cell", boom)
    monkeypatch.setattr(cli_common, "_has_module", lambda name: name != "pyarrow")
    _err(["sweep", SCENARIO, "--vary", "target.save=3,4", "-n", "100",
          "--out", str(tmp_path / out)], match)  # fmt: skip
    _err(["sweep", SCENARIO, "--vary", "target.save=3,4", "-n", "100",
          "--store", str(tmp_path / "no" / "s.sqlite")], "--store")  # fmt: skip


@pytest.mark.parametrize(
    "cmd",
    [
        ["sweep"],
        ["matchup"],
        ["library"],
        ["points", "efficiency"],
        ["points", "fair"],
        ["points", "duel"],
        ["store", "info"],
    ],  # fmt: skip
)
def test_help_names_every_value_in_words(cmd):
    res = CliRunner(env={"COLUMNS": "80"}).invoke(app, [*cmd, "--help"])
    assert res.exit_code == 0, res.output
    for placeholder in ("<int range>", "<str>", "<path>", "<float>", "<int>"):
        assert placeholder not in res.output
    usage = res.output.splitlines()[0]
    assert "{" not in usage and "[OPTIONS]" in usage


@pytest.mark.parametrize(
    "cmd", [["sweep"], ["matchup"], ["points", "efficiency"], ["points", "fair"]]
)
def test_scheduler_help_names_the_address_and_the_scheduler_file(cmd):
    res = CliRunner(env={"COLUMNS": "200"}).invoke(app, [*cmd, "--help"])
    text = " ".join(res.output.replace("│", " ").split())
    assert "tcp://host:8786" in text and "--scheduler-file" in text, text


def test_tables_fit_80_columns_without_cutting_numbers():
    narrow = CliRunner(env={"COLUMNS": "80"})
    res = narrow.invoke(app, ["points", "efficiency", GENERIC, "-b", f"{GENERIC}:conscripts=2",
                              "-b", f"{GENERIC}:battle_tank", "-m", "mean(damage)",
                              "-n", "2000", "--exact", "never"])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert max(len(line) for line in res.stdout.splitlines()) <= 80
    assert "…" not in res.stdout
    assert "per 100 points" in res.stdout  # the column the table ranks by stays
    assert "note: left out to fit 80 columns" in res.output
    res = narrow.invoke(app, ["sweep", SCENARIO, "-v", "target.save=2..4",
                              "-v", "attacker.weapons.0.models=5,10", "-n", "2000",
                              "--exact", "never"])  # fmt: skip
    assert res.exit_code == 0 and max(len(x) for x in res.stdout.splitlines()) <= 80
    assert "…" not in res.stdout


def test_trials_accept_1e4_style_numbers_and_say_the_ceiling():
    res = runner.invoke(
        app, ["sweep", SCENARIO, "--vary", "target.save=4", "-n", "1e4", "-f", "csv"]
    )
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["sweep", SCENARIO, "--vary", "target.save=4", "-n", "1e12"])
    assert res.exit_code == 2 and "from 1 to 10,000,000,000 (such as 1000000 or 1e6)" in res.output


CLEAN = "clean = models_slain >= 5 and damage <= 12"


def test_events_on_the_command_line():
    res = _ok(["sweep", SCENARIO, "-v", "target.save=4,5", "-n", "2000", "--exact", "never",
               "-e", CLEAN, "-f", "csv"])  # fmt: skip
    rows = [ln for ln in res.output.splitlines() if ",event," in ln]
    assert len(rows) == 2 and all("P(clean)" in r for r in rows)
    res = _ok(["sweep", SCENARIO, "-v", "target.save=4,5", "-n", "2000", "--exact", "never",
               "-e", CLEAN])  # fmt: skip
    assert "P(clean) — 2 cells" in res.output  # the first event is the default metric
    res = _ok(["matchup", f"{GENERIC}:shock_squad", f"{GENERIC}:conscripts", "-e", CLEAN,
               "-m", "P(clean)", "-n", "2000", "--exact", "never"])  # fmt: skip
    assert "P(clean)" in res.output


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["sweep", SCENARIO, "-v", "target.save=4", "-e", "x = model_slain >= 5"],
         "did you mean 'models_slain'"),
        (["sweep", SCENARIO, "-v", "target.save=4", "-e", CLEAN, "-m", "P(clen)"],
         "did you mean 'P(clean)'"),
        (["points", "efficiency", GENERIC, "-b", f"{GENERIC}:conscripts", "-e", CLEAN, "-m",
          "P(clen)"], "did you mean 'P(clean)'"),
        (["sweep", SCENARIO, "-v", "target.save=4", "-e", "models_slain / 2 >= 1"],
         "'/' is not allowed"),
    ],
)  # fmt: skip
def test_bad_events_are_one_line_exit_2(args, match):
    _err(args, match)


def test_sweep_out_csv_is_written_chunk_by_chunk_as_the_frame(tmp_path):
    from oddslab.analysis.sweep import sweep

    out = tmp_path / "s.csv"
    _ok(["sweep", SCENARIO, "--vary", "target.save=3..5", "-n", "2000", "--seed", "2",
         "--exact", "never", "--stat", "damage", "--out", str(out)])  # fmt: skip
    res = sweep(SCENARIO, {"target.save": [3, 4, 5]}, trials=2000, seed=2, exact="never")
    assert out.read_text() == res.to_csv().split("\n", 1)[0] + "\n" + "".join(
        line + "\n" for line in res.to_csv().splitlines()[1:] if ",damage," in line
    )


def test_a_sweep_of_a_static_hex_platoon_metric_prints_exact_without_se():
    hexes = str(ROOT / "oddslab" / "examples" / "hex-platoon-platoon-fire-concealed.toml")
    args = ["sweep", hexes, "--vary", "hexes[0].units[1].he=2..3", "--metric",
            "mean(hits_on_enemy_platoon_step1)", "--trials", "2000"]  # fmt: skip
    res = _ok(args)
    assert "2 cells, exact" in res.stdout
    assert " se " not in res.stdout and "ci low" not in res.stdout
    df = pd.read_csv(io.StringIO(_ok([*args, "-f", "csv"]).stdout))
    assert df["exact"].all() and (df["se"] == 0).all() and (df["trials"] == 0).all()
    res = _ok([*args, "--exact", "never"])
    assert "seed" in res.stdout and " se " in res.stdout
    # the exact cells report the exact statistics only: --stat of another says why
    _err([*args, "--stat", "enemy_platoon_state"], "--exact never simulates every statistic")


@pytest.mark.skipif(not hasattr(__import__("os"), "openpty"), reason="needs a pseudo-terminal")
def test_ctrl_c_without_store_keeps_the_finished_cells_and_says_how_to_finish(
    tmp_path, monkeypatch, default_sigint
):
    """A real SIGINT to `oddslab sweep` without --store, once its progress bar shows finished
    cells: exit 130, the finished cells kept in oddslab-sweep-<hash8>.sqlite in the current
    folder (the scenario has no seed: the drawn one is kept), two lines saying how many and
    the command that finishes it; that command ends with the uninterrupted study's table."""
    import json
    import os
    import re
    import select
    import shlex
    import signal
    import subprocess
    import sys
    import time

    sc = tmp_path / "noseed.toml"
    sc.write_text(Path(SCENARIO).read_text().replace("seed = 2026\n", ""))
    argv = ["sweep", str(sc), "--vary", "target.models=20..25", "--trials", "2000000",
            "--exact", "never", "--out", "res.csv"]  # fmt: skip
    master, slave = os.openpty()  # the progress bar is drawn on a terminal only
    env = {**os.environ, "COLUMNS": "100", "TERM": "xterm", "PYTHONPATH": str(ROOT),
           "NUMBA_NUM_THREADS": "1"}  # fmt: skip
    proc = subprocess.Popen([sys.executable, "-m", "oddslab", *argv], cwd=tmp_path, env=env,
                            stdout=subprocess.DEVNULL, stderr=slave)  # fmt: skip
    os.close(slave)
    seen, deadline = b"", time.monotonic() + 90

    def read(wait: float) -> bool:
        nonlocal seen
        if not select.select([master], [], [], wait)[0]:
            return False
        try:
            seen += os.read(master, 4096)
        except OSError:  # the process ended (and closed the terminal)
            return False
        return True

    try:
        while time.monotonic() < deadline and proc.poll() is None:
            read(0.05)
            done = [int(n) for n in re.findall(rb"(\d+)/6\b", seen)]
            if done and max(done) >= 1:
                break
        assert proc.poll() is None, seen[-800:]
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        while read(0.2):
            pass
    finally:
        proc.kill()
        os.close(master)
    err = seen.decode(errors="replace").replace("\r", "")
    assert proc.returncode == 130, err[-800:]
    assert "Traceback" not in err
    kept = list(tmp_path.glob("oddslab-*.sqlite"))
    assert len(kept) == 1 and re.fullmatch(r"oddslab-sweep-[0-9a-f]{8}\.sqlite", kept[0].name)
    m = re.search(r"interrupted: (\d) of 6 cells had finished; they are kept in (\S+)\n"
                  r"finish the study with: (oddslab sweep .*)\n", err)  # fmt: skip
    assert m is not None, err[-800:]
    assert 1 <= int(m[1]) < 6 and m[2] == kept[0].name
    again = shlex.split(m[3])
    assert again == ["oddslab", *argv, "--store", kept[0].name, "--resume"]
    assert not (tmp_path / "res.csv").exists()

    monkeypatch.chdir(tmp_path)
    info = json.loads(_ok(["store", "info", kept[0].name, "-f", "json"]).stdout)
    assert info["cells"] == int(m[1])
    _ok(again[1:])  # the command as printed: runs the other cells
    _ok([*argv[:-1], "clean.csv", "--seed", str(info["identity"]["seed"])])
    assert (tmp_path / "res.csv").read_text() == (tmp_path / "clean.csv").read_text()


def test_printed_points_tables_show_each_estimate_with_the_decimals_its_se_needs():
    """Efficiency, fair-points sensitivity and duel tables: an SE of 0.00607 is ``0.0061``
    (never ``0.0``), its value ``89.1234`` (never ``89.1``), and an interval's ends the same."""
    from oddslab.analysis.cli_common import _estimates
    from oddslab.analysis.cli_points import _EFFICIENCY_SE

    df = pd.DataFrame({"unit": ["a"], "value": [2.5], "se": [0.25], "per_100_points": [89.1234],
                       "per_100_points_se": [0.00607], "ci_low": [89.1115], "ci_high": [89.1353]})  # fmt: skip
    row = _estimates(df, _EFFICIENCY_SE).iloc[0].to_dict()
    assert row == {"unit": "a", "value": "2.50", "se": "0.25", "per_100_points": "89.1234",
                   "per_100_points_se": "0.0061", "ci_low": "89.1115", "ci_high": "89.1353"}  # fmt: skip
    exact = df.drop(columns=["se", "per_100_points_se", "ci_low", "ci_high"])  # no SE columns
    assert _estimates(exact, _EFFICIENCY_SE).equals(exact)
