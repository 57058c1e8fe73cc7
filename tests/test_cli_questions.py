"""`simulate --event/--joint/--joint-plot/--records` and `compare --event`
(oddslab.cli_questions): answers equal the Python API's for the same seed, exact where the
exact engine has them, every mistake caught before any work with one line and exit 2."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from oddslab.cli import app
from oddslab.engine import simulate
from oddslab.scenario import load

runner = CliRunner()
EX = "examples/generic-intercessors-vs-guardsmen.toml"
HEX = "examples/hex-platoon-platoon-fire-concealed.toml"


@pytest.fixture(autouse=True)
def _cwd(root, monkeypatch):
    monkeypatch.chdir(root)


def _json(*args: str) -> dict:
    res = runner.invoke(app, ["simulate", *args, "-f", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_events_and_joint_match_the_python_api():
    ev = ["clean = models_slain >= 8 and hits <= 14", "models_slain >= 10 | hits >= 15"]
    d = _json(
        EX, "-n", "100000", "-s", "4", "-e", ev[0], "-e", ev[1], "--joint", "hits,models_slain"
    )
    api = simulate(load(EX), trials=100_000, seed=4, events=ev, joint=[("hits", "models_slain")])
    got = {e["label"]: e for e in d["events"]}
    for label, r in api.events.items():
        assert got[label]["hits"] == r.hits and got[label]["trials"] == r.trials
        assert got[label]["probability"] == r.probability
    assert got["models_slain >= 10 | hits >= 15"]["conditional"] is True
    rows = d["joints"][0]["rows"]
    assert sum(r["count"] for r in rows) == 100_000
    frame = api.joint("hits", "models_slain")
    assert [r["count"] for r in rows] == frame["count"].tolist()


def test_exact_where_the_exact_engine_gives_the_joint():
    d = _json(
        EX,
        "-e",
        "models_slain >= 10 and damage_dealt >= 10",
        "--joint",
        "models_slain,damage_dealt",
    )
    assert d["exact"] is True
    assert d["resolved"]["answer"]["method"].startswith("exact")
    p10 = sum(d["pmf"]["models_slain"][10:])
    assert abs(d["events"][0]["probability"] - p10) < 1e-12  # one wound each: the same event


def test_a_joint_the_exact_engine_lacks_is_simulated_and_says_why(monkeypatch):
    from dataclasses import replace

    from oddslab.rulesets.generic.scenario import GenericScenario

    original = GenericScenario.compile
    monkeypatch.setattr(
        GenericScenario, "compile", lambda self: replace(original(self), exact_joint=None)
    )
    d = _json(EX, "-e", "models_slain >= 10 and hits >= 15")
    assert d["exact"] is False
    assert "does not give models_slain, hits jointly" in d["resolved"]["answer"]["method"]
    res = runner.invoke(app, ["simulate", EX, "--exact", "-e", "models_slain >= 10 and hits >= 15"])
    assert res.exit_code == 2 and "--exact: the exact engine does not give" in res.stderr


def test_table_output_and_heatmap_and_records(tmp_path):
    png, csv = tmp_path / "joint.png", tmp_path / "rec.csv"
    res = runner.invoke(
        app,
        ["simulate", HEX, "-n", "70000", "-s", "2", "-e", "none lost = not " + _first_stat(HEX),
         "--joint", _pair(HEX), "--joint-plot", str(png), "--records", str(csv),
         "--record-trials", "70000"],
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    assert "Events" in res.stdout and "Joint:" in res.stdout
    assert png.stat().st_size > 1000
    rec = pd.read_csv(csv)
    assert len(rec) == 70_000 and list(rec.columns) == [s.name for s in load(HEX).compile().stats]
    again = simulate(load(HEX), trials=70_000, seed=2, records=70_000)
    assert (rec.to_numpy() == again.record_array).all()


def _first_stat(path: str) -> str:
    return load(path).compile().stats[0].name


def _pair(path: str) -> str:
    names = [s.name for s in load(path).compile().stats]
    return f"{names[0]},{names[1]}"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["-e", "models_slian >= 1"], "did you mean 'models_slain'"),
        (["-e", "models_slain = 3"], "write 'models_slain == 3'"),
        (["--joint", "hits"], "two or more different statistics"),
        (["--joint", "hits,nope"], "no statistic 'nope'"),
        (["--joint-plot", "x.png"], "--joint-plot draws a two-statistic --joint"),
        (["--records", "r.xlsx"], "give a .csv or .parquet file"),
        (["--records", "/no/such/folder/r.csv"], "does not exist"),
        (["-e", "win = hits > 1", "-e", "win = hits > 2"], "two events are called 'win'"),
        (["--record-trials", "10"], "--record-trials applies to --records FILE"),
    ],
)
def test_mistakes_fail_before_any_work(args, words, monkeypatch):
    import oddslab.engine as engine

    monkeypatch.setattr(engine, "run_job", lambda *a, **k: pytest.fail("ran before the check"))
    res = runner.invoke(app, ["simulate", EX, "--mc", *args])
    assert res.exit_code == 2, res.output
    assert res.stderr.startswith("error: ") and words in res.stderr
    assert "Traceback" not in res.output


def test_parquet_records_need_pyarrow_before_any_work(monkeypatch, tmp_path):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == "pyarrow" else real(n, *a)
    )
    res = runner.invoke(app, ["simulate", EX, "--records", str(tmp_path / "r.parquet")])
    assert res.exit_code == 2 and "needs the 'pyarrow' package" in res.stderr


def test_compare_with_events():
    other = "examples/generic-flamers-vs-fnp-in-cover.toml"
    res = runner.invoke(
        app, ["compare", EX, other, "-n", "65536", "-s", "1", "-e", "wipe = models_slain >= 5 and hits >= 10", "-f", "json"]
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)["scenarios"]
    first, second = d.values()
    api = simulate(
        load(EX), trials=65536, seed=1, events=["wipe = models_slain >= 5 and hits >= 10"]
    )
    assert first["values"]["P(wipe)"]["value"] == api.events["wipe"].probability
    assert first["values"]["P(wipe)"]["se"] == api.events["wipe"].se
    diff = second["difference_vs_first"]["P(wipe)"]["diff"]
    assert diff == second["values"]["P(wipe)"]["value"] - api.events["wipe"].probability


def test_show_lists_the_statistic_names():
    res = runner.invoke(app, ["show", EX, "-f", "json"])
    d = json.loads(res.stdout)
    names = d["resolved"]["statistics (names for --stat, --event, --joint)"]
    assert names["models_slain"] == "target models slain"
