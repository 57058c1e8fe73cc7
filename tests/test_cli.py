"""CLI: simulate / compare / roll / examples through typer's CliRunner (exit codes and output)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from oddslab.cli import app

runner = CliRunner()
EX = "examples/generic-intercessors-vs-guardsmen.toml"


@pytest.fixture(autouse=True)
def _cwd(root, monkeypatch):
    monkeypatch.chdir(root)


def test_simulate_table_and_plot(tmp_path):
    png = tmp_path / "out.png"
    res = runner.invoke(
        app, ["simulate", EX, "--trials", "50000", "--seed", "3", "--plot", str(png)]
    )
    assert res.exit_code == 0, res.output
    assert "Headline probabilities" in res.output and "P(unit destroyed)" in res.output
    assert "50,000 trials, seed 3" in res.output
    assert png.stat().st_size > 10_000


def test_simulate_csv_json():
    res = runner.invoke(app, ["simulate", EX, "-n", "20000", "-s", "1", "--format", "csv"])
    assert res.exit_code == 0
    assert res.output.splitlines()[0] == "stat,value,probability,count"
    res = runner.invoke(app, ["simulate", EX, "-n", "20000", "-s", "1", "--format", "json"])
    data = json.loads(res.output)
    assert data["trials"] == 20000 and data["seed"] == 1


def test_simulate_exact_and_precision():
    res = runner.invoke(app, ["simulate", EX, "--exact", "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["exact"] is True and "models_slain" not in data["pmf"]
    res = runner.invoke(
        app, ["simulate", EX, "--precision", "0.01", "--seed", "2", "--format", "json"]
    )
    assert res.exit_code == 0
    assert json.loads(res.output)["trials"] < 5_000_000


def test_bad_scenario_exits_2_with_key(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(
        "[attacker]\n[[attacker.weapons]]\nattacks = 2\nskill = 9\n[target]\nmodels = 5\n"
    )
    res = runner.invoke(app, ["simulate", str(bad)])
    assert res.exit_code == 2
    assert "attacker.weapons[0].skill" in res.output and "got 9" in res.output
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["simulate", str(tmp_path / "nope.toml")])
    assert res.exit_code == 2 and "file not found" in res.output


def test_unknown_stat_exits_2():
    res = runner.invoke(app, ["simulate", EX, "-n", "1000", "--stat", "nope"])
    assert res.exit_code == 2 and "no statistic 'nope'" in res.output


def test_compare(tmp_path):
    png = tmp_path / "cmp.png"
    res = runner.invoke(
        app,
        [
            "compare",
            EX,
            "examples/generic-flamers-vs-fnp-in-cover.toml",
            "-n",
            "20000",
            "-s",
            "1",
            "--plot",
            str(png),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "Comparison" in res.output and png.exists()
    res = runner.invoke(app, ["compare", EX])
    assert res.exit_code == 2


def test_roll_exact_and_simulated():
    res = runner.invoke(app, ["roll", "4D6 explode 6", "--format", "json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["exact"] is True
    res = runner.invoke(app, ["roll", "2D6 <= 7", "--simulate", "-n", "20000", "-s", "1"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["roll", "4D6 explode banana"])
    assert res.exit_code == 2 and "error:" in res.output


def test_examples_command_lists_files():
    res = runner.invoke(app, ["examples"])
    assert res.exit_code == 0 and "generic-intercessors-vs-guardsmen.toml" in res.output
