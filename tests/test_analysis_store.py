"""The SQLite cell store."""

from __future__ import annotations

from pathlib import Path

import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis.cells import CellResult
from oddslab.analysis.store import CellStore


def _result(key: str) -> CellResult:
    return CellResult(key, "h", "n", 1, 10, (("x", 2, "", False, "x"),), (), {"x": [4, 6]}, {}, 0.1)


def test_put_finished_clear(tmp_path):
    with CellStore(tmp_path / "s.sqlite") as s:
        s.put("study", _result("a"))
        s.put("study", _result("b"))
        s.put("other", _result("a"))
        assert s.count("study") == 2
        assert s.finished("study")["a"] == _result("a")
        s.put("study", _result("a"))  # replacing is idempotent
        assert s.count("study") == 2
        s.clear("study")
        assert s.count("study") == 0 and s.count("other") == 1
    with CellStore(tmp_path / "s.sqlite") as s:  # persisted
        assert s.count("other") == 1


def test_not_a_store(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_text("this is not sqlite" * 100)
    with pytest.raises(ScenarioError, match="not a usable results store"):
        CellStore(bad)


SCENARIO = (
    Path(__file__).resolve().parent.parent
    / "oddslab"
    / "examples"
    / "generic-intercessors-vs-guardsmen.toml"
)


def _unseeded(tmp_path) -> Path:
    text = SCENARIO.read_text().replace("seed = ", "# seed = ")
    path = tmp_path / "unseeded.toml"
    path.write_text(text)
    return path


def test_resume_reuses_the_stored_seed_and_refuses_another_study(tmp_path, monkeypatch):
    from functools import partial

    from oddslab.analysis import distributed
    from oddslab.analysis.sweep import sweep

    sweep = partial(sweep, exact="never")  # simulated cells: the seed matters
    scen = _unseeded(tmp_path)
    store = tmp_path / "s.sqlite"
    first = sweep(scen, {"target.save": [3, 4]}, trials=2_000, store=store)
    ran = []
    real = distributed.run_cell
    monkeypatch.setattr(distributed, "run_cell", lambda *a, **k: ran.append(a[2]) or real(*a, **k))
    again = sweep(scen, {"target.save": [3, 4]}, trials=2_000, store=store, resume=True)
    assert ran == [] and again.seed == first.seed  # nothing re-ran: the store's seed was used
    assert [r.counts for r in again.results] == [r.counts for r in first.results]
    with CellStore(store) as db:
        ident = db.identity()
    assert ident["keys"] == ["target.save"] and ident["seed"] == first.seed
    assert ident["trials"] == 2_000 and ident["kind"] == "sweep" and ident["oddslab"]
    other = tmp_path / "other.toml"
    other.write_text(scen.read_text().replace("models = 10", "models = 9", 1))
    with pytest.raises(ScenarioError, match=r"holds another study \(scenario differs \(digest"):
        sweep(other, {"target.save": [3]}, trials=2_000, store=store, resume=True)
    with pytest.raises(ScenarioError, match="varied keys: attacker.weapons.0.models here, target"):
        sweep(scen, {"attacker.weapons.0.models": [3]}, trials=2_000, store=store, resume=True)
    with pytest.raises(ScenarioError, match="seed: 1 here"):
        sweep(scen, {"target.save": [3]}, trials=2_000, seed=1, store=store, resume=True)
    # another oddslab version is another study
    import oddslab

    monkeypatch.setattr(oddslab, "__version__", "99.0")
    with pytest.raises(ScenarioError, match="oddslab version: 99.0 here"):
        sweep(scen, {"target.save": [3]}, trials=2_000, store=store, resume=True)


def test_a_foreign_sqlite_file_is_refused_and_left_alone(tmp_path):
    import sqlite3

    foreign = tmp_path / "app.db"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    with pytest.raises(ScenarioError, match=r"not an oddslab results store \(its tables: users\)"):
        CellStore(foreign)
    with sqlite3.connect(foreign) as db:
        tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master")]
    assert tables == ["users"]


def test_store_info_command(tmp_path):
    from typer.testing import CliRunner

    from oddslab.analysis.sweep import sweep
    from oddslab.cli import app

    store = tmp_path / "s.sqlite"
    sweep(SCENARIO, {"target[save]": [3, 4]}, trials=1_000, seed=7, store=store)
    runner = CliRunner(env={"COLUMNS": "80"})
    res = runner.invoke(app, ["store", "info", str(store)])
    assert res.exit_code == 0, res.output
    for text in ("target.save", "finished cells", "1000", "sweep"):
        assert text in res.stdout
    assert max(len(line) for line in res.stdout.splitlines()) <= 80
    res = runner.invoke(app, ["store", "info", str(store), "-f", "json"])
    import json

    info = json.loads(res.stdout)
    assert info["cells"] == 2 and info["identity"]["seed"] == 7
    # -f csv: one tidy row of the same fields, numbers as numbers (no "—", "MB" or dates)
    res = runner.invoke(app, ["store", "info", str(store), "-f", "csv"])
    import io

    import pandas as pd

    row = pd.read_csv(io.StringIO(res.stdout)).iloc[0]
    assert row["cells"] == 2 and row["seed"] == 7 and row["trials"] == 1000
    assert row["bytes"] == info["bytes"] and row["keys"] == "target.save"
    assert row["created"] == pytest.approx(info["created"]) and pd.isna(row["precision"])
    for bad, match in ((tmp_path / "none.sqlite", "file not found"),):
        res = runner.invoke(app, ["store", "info", str(bad)])
        assert res.exit_code == 2 and match in res.output and "Traceback" not in res.output
    foreign = tmp_path / "app.db"
    import sqlite3

    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE users (name TEXT)")
    res = runner.invoke(app, ["store", "info", str(foreign)])
    assert res.exit_code == 2 and "not an oddslab results store" in res.output
    res = runner.invoke(
        app, ["sweep", str(SCENARIO), "-v", "target.save=4", "-n", "10", "--store", str(foreign)]
    )
    assert res.exit_code == 2 and "not an oddslab results store" in res.output


def test_a_folder_is_not_a_store_file(tmp_path):
    from typer.testing import CliRunner

    from oddslab.cli import app

    res = CliRunner().invoke(app, ["store", "info", str(tmp_path)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert f"{tmp_path}: is a folder, not a store file" in res.output
    for create in (True, False):
        with pytest.raises(ScenarioError, match="is a folder, not a store file"):
            CellStore(tmp_path, create=create)


def test_a_resumed_study_with_other_events_is_refused_naming_them(tmp_path, monkeypatch):
    from oddslab.analysis import distributed
    from oddslab.analysis.sweep import sweep

    store = tmp_path / "s.sqlite"
    first = ["clean = models_slain >= 5 and damage <= 12"]
    kw = dict(trials=2_000, seed=1, store=store, exact="never", progress=None)
    done = sweep(SCENARIO, {"target.save": [4, 5]}, events=first, **kw)

    def never(*a, **k):
        raise AssertionError("a cell ran again")

    monkeypatch.setattr(distributed, "run_cell", never)
    other = ["clean = models_slain >= 6 and damage <= 12"]
    with pytest.raises(ScenarioError, match="events: 'clean = models_slain >= 6 and damage <= 12' "
                       "here, 'clean = models_slain >= 5 and damage <= 12' in the store"):  # fmt: skip
        sweep(SCENARIO, {"target.save": [4, 5]}, events=other, resume=True, **kw)
    with pytest.raises(ScenarioError, match="events: none here"):
        sweep(SCENARIO, {"target.save": [4, 5]}, resume=True, **kw)
    # the same events resume from the store: every answer as it was, nothing run again
    again = sweep(SCENARIO, {"target.save": [4, 5]}, events=first, resume=True, **kw)
    assert again.table().equals(done.table())


def test_a_study_without_events_keeps_its_identity():
    from oddslab.analysis.distributed import study_identity

    ident = study_identity("sweep", {"a": 1}, ["k"], 1, 10, None, None, "auto")
    assert "events" not in ident  # stores written before events existed still resume
    assert study_identity("sweep", {"a": 1}, ["k"], 1, 10, None, None, "auto", ["x >= 1"])[
        "events"
    ] == ["x >= 1"]


def test_the_metric_is_part_of_an_exact_auto_study_only(tmp_path):
    from oddslab.analysis.distributed import study_hash, study_identity
    from oddslab.analysis.sweep import sweep

    def ident(metric, exact):
        return study_identity("sweep", {"a": 1}, ["k"], 1, 10, None, metric, exact)

    # --exact never: the metric only picks the table, stores written before stay valid
    assert ident("mean(x)", "never") == ident(None, "never")
    assert study_hash(ident("mean(x)", "never")) == study_hash(ident(None, "never"))
    # --exact auto: the metric decides which cells are exact, so it is the study's
    assert ident("mean(x)", "auto")["metric"] == "mean(x)"
    assert study_hash(ident("mean(x)", "auto")) != study_hash(ident("mean(y)", "auto"))
    # a store of the study without a metric (as every --exact auto store written before
    # metrics decided exactness) is refused, saying why
    store = tmp_path / "s.sqlite"
    kw = dict(trials=500, seed=1, store=store, progress=None)
    sweep(SCENARIO, {"target.save": [4]}, **kw)
    with pytest.raises(ScenarioError, match=r"metric: mean\(damage\) here, none in the store "
                       r"\(with --exact auto the metric decides which cells are exact\)"):  # fmt: skip
        sweep(SCENARIO, {"target.save": [4]}, metric="mean(damage)", resume=True, **kw)
