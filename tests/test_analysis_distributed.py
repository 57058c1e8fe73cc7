"""Running cells: in-process, on a 2-worker LocalCluster, resumable stores, killed sweeps."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from oddslab._schema import ScenarioError
from oddslab.analysis import distributed
from oddslab.analysis.cells import CellResult
from oddslab.analysis.sweep import sweep

ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"
VARY = {"target.save": [3, 4, 5], "attacker.weapons.0.models": [5, 10]}


def _counts(res) -> list[dict]:
    return [r.counts for r in res.results]


def test_local_cluster_matches_in_process():
    pytest.importorskip("distributed")
    local = sweep(SCENARIO, VARY, trials=30_000, seed=11)
    t0 = time.perf_counter()
    remote = sweep(SCENARIO, VARY, trials=30_000, seed=11, workers=2, batch=2)
    assert time.perf_counter() - t0 < 240  # bounded: cluster start, numba cache load, 6 cells
    assert _counts(remote) == _counts(local)
    assert [r.seed for r in remote.results] == [r.seed for r in local.results]
    assert remote.frame().equals(local.frame())


def test_store_streams_and_resume_skips_finished_cells(tmp_path, monkeypatch):
    store = tmp_path / "cells.sqlite"
    first = sweep(SCENARIO, {"target.save": [3, 4]}, trials=20_000, seed=5, store=store)
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM cells").fetchone()[0] == 2
    # a store that already holds the study is refused without --resume
    with pytest.raises(ScenarioError, match="--resume"):
        sweep(SCENARIO, {"target.save": [3, 4]}, trials=20_000, seed=5, store=store)
    ran = []
    real = distributed.run_cell

    def counting(*args, **kw):
        ran.append(args[2])
        return real(*args, **kw)

    monkeypatch.setattr(distributed, "run_cell", counting)
    more = sweep(
        SCENARIO, {"target.save": [3, 4, 5]}, trials=20_000, seed=5, store=store, resume=True
    )
    assert ran == ['{"target.save":5}']  # only the new cell ran
    assert _counts(more)[:2] == _counts(first)
    # different trials = a different study: nothing is reused
    ran.clear()
    sweep(SCENARIO, {"target.save": [3]}, trials=10_000, seed=5, store=store, resume=True)
    assert len(ran) == 1


def test_cell_result_round_trips_json():
    res = sweep(SCENARIO, {"target.save": [4]}, trials=5_000, seed=2)
    r = res.results[0]
    back = CellResult.from_json(r.to_json())
    assert back == r
    o1, o2 = r.outcome(), back.outcome()
    assert o1.probabilities().equals(o2.probabilities())


def test_dask_missing_says_how_to_install(monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_dask(name, *args, **kw):
        if name == "distributed" or name.startswith("distributed."):
            raise ImportError("no dask here")
        return real_import(name, *args, **kw)

    monkeypatch.setattr(builtins, "__import__", no_dask)
    with pytest.raises(distributed.DaskMissing, match=r'pip install (-e )?".*\[dask\]"'):
        sweep(SCENARIO, {"target.save": [4]}, trials=1_000, seed=1, workers=2)


def test_workers_and_scheduler_are_exclusive():
    with pytest.raises(ValueError, match="not both"):
        sweep(SCENARIO, {"target.save": [4]}, trials=1_000, workers=1, scheduler="tcp://x:1")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    return env


def test_sweep_killed_with_sigkill_then_resumed_equals_uninterrupted(tmp_path):
    """kill -9 mid-sweep loses at most the cells in flight; --resume ends identical."""
    store = tmp_path / "killed.sqlite"
    values = list(range(2, 8))
    models = list(range(1, 9))
    vary = {"target.save": values, "attacker.weapons.0.models": models}
    total = len(values) * len(models)
    cmd = [
        sys.executable, "-m", "oddslab", "sweep", str(SCENARIO),
        "--vary", "target.save=2..7", "--vary", "attacker.weapons.0.models=1..8",
        "--trials", "400000", "--seed", "9", "--store", str(store), "--format", "csv",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    done = 0
    deadline = time.monotonic() + 180
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            if store.exists():
                try:
                    with sqlite3.connect(store, timeout=5) as db:
                        done = db.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
                except sqlite3.OperationalError:
                    done = 0
                if done >= 3:
                    break
            time.sleep(0.05)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()[-2000:]
    with sqlite3.connect(store) as db:
        kept = db.execute("SELECT COUNT(*) FROM cells").fetchone()[0]
    assert 3 <= kept < total  # really killed mid-way, and the finished cells survived
    resumed = sweep(SCENARIO, vary, trials=400_000, seed=9, store=store, resume=True)
    clean = sweep(SCENARIO, vary, trials=400_000, seed=9)
    assert _counts(resumed) == _counts(clean)
    assert resumed.frame().equals(clean.frame())


def test_dask_tasks_take_numba_threads_from_the_environment(monkeypatch):
    import threading

    import numba

    res = sweep(SCENARIO, {"target.save": [4]}, trials=1_000, seed=1)
    c = res.cells[0]
    monkeypatch.setenv("NUMBA_NUM_THREADS", "1")
    seen = []

    def task():  # set_num_threads is per thread: run as a Dask worker thread would
        out = distributed.run_batch(
            [(c.scenario, c.source, c.key, c.scenario_hash, c.seed)], 1_000, None
        )
        seen.append((numba.get_num_threads(), out[0].counts == res.results[0].counts))

    t = threading.Thread(target=task)
    t.start()
    t.join()
    assert seen == [(1, True)]


def test_ctrl_c_stops_with_one_line_and_resume_hint(tmp_path):
    store = tmp_path / "int.sqlite"
    cmd = [
        sys.executable, "-m", "oddslab", "sweep", str(SCENARIO),
        "--vary", "target.save=2..7", "--vary", "attacker.weapons.0.models=1..8",
        "--trials", "400000", "--seed", "9", "--store", str(store), "--format", "csv",
    ]  # fmt: skip
    proc = subprocess.Popen(cmd, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline and proc.poll() is None:
        if store.exists():
            try:
                with sqlite3.connect(store, timeout=5) as db:
                    if db.execute("SELECT COUNT(*) FROM cells").fetchone()[0] >= 2:
                        break
            except sqlite3.OperationalError:
                pass
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    err = proc.communicate(timeout=60)[1].decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert f"interrupted; finished cells are in {store}: rerun with --resume" in err


def test_cells_on_threads_equal_a_serial_run(tmp_path):
    """``threads`` (used by `oddslab serve`): the same results, order, store and progress."""
    from oddslab.analysis.matchup import matchup

    lib = ROOT / "oddslab" / "examples" / "libraries" / "generic.toml"
    spec = (f"{lib}:line_troopers,shock_squad,flame_team", f"{lib}:conscripts,battle_tank")
    seen: list[tuple[int, int]] = []
    serial = matchup(*spec, trials=20_000, seed=4)
    threaded = matchup(*spec, trials=20_000, seed=4, threads=2, progress=lambda d, t: seen.append((d, t)))  # fmt: skip
    assert [r.counts for r in threaded.results] == [r.counts for r in serial.results]
    assert threaded.table().equals(serial.table())
    assert seen == [(i, 6) for i in range(7)]  # in cell order, as a serial run reports
    precise = matchup(*spec, precision=0.01, seed=4, threads=2)
    assert precise.table().equals(matchup(*spec, precision=0.01, seed=4).table())
