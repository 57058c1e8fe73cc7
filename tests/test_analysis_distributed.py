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
from oddslab.analysis.sweep import sweep as _sweep

# these tests are about simulated cells: exact answers are turned off


def sweep(*args, **kw):
    return _sweep(*args, exact="never", **kw)


ROOT = Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"


def _counts(res) -> list[dict]:
    return [r.counts for r in res.results]


def test_local_cluster_matches_in_process(monkeypatch):
    """With the automatic batches (36 cells: two-cell pilot tasks, then packed batches sized
    from them, with the predicted end)."""
    pytest.importorskip("distributed")
    from oddslab.analysis import dask_plan

    sized = []
    real = dask_plan.fill_batch
    monkeypatch.setattr(dask_plan, "fill_batch", lambda *a: sized.append(real(*a)) or sized[-1])
    vary = {"target.save": [2, 3, 4, 5, 6, 7], "attacker.weapons.0.models": [1, 2, 3, 5, 8, 13]}
    local = sweep(SCENARIO, vary, trials=5_000, seed=11)
    remote = sweep(SCENARIO, vary, trials=5_000, seed=11, workers=2)
    assert sized  # the batches after the pilot tasks were sized automatically
    assert _counts(remote) == _counts(local)
    assert [r.seed for r in remote.results] == [r.seed for r in local.results]
    assert remote.frame().equals(local.frame())


@pytest.mark.parametrize("big", [False, True])
def test_store_streams_and_resume_skips_finished_cells(tmp_path, monkeypatch, big):
    """``big``: as a study of more than KEEP_VALIDATED cells (cells made when read, results
    only in the store, which a resume reads a chunk at a time)."""
    if big:
        import importlib

        from oddslab.analysis import cells

        monkeypatch.setattr(importlib.import_module("oddslab.analysis.sweep"), "KEEP_VALIDATED", 1)
        monkeypatch.setattr(cells, "KEEP_VALIDATED", 1)
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
    seen = []
    more = sweep(SCENARIO, {"target.save": [3, 4, 5]}, trials=20_000, seed=5, store=store,
                 resume=True, progress=lambda d, t: seen.append((d, t)))  # fmt: skip
    assert ran == ['{"target.save":5}']  # only the new cell ran
    assert seen[-1] == (3, 3)
    assert _counts(more)[:2] == _counts(first)
    # different trials = a different study: refused, saying what differs
    with pytest.raises(ScenarioError, match="holds another study.*trials: 10000 here, 20000 in"):
        sweep(SCENARIO, {"target.save": [3]}, trials=10_000, seed=5, store=store, resume=True)


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
        "--exact", "never",
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


def test_ctrl_c_stops_with_one_line_and_resume_hint(tmp_path, default_sigint):
    store = tmp_path / "int.sqlite"
    cmd = [
        sys.executable, "-m", "oddslab", "sweep", str(SCENARIO),
        "--vary", "target.save=2..7", "--vary", "attacker.weapons.0.models=1..8",
        "--trials", "400000", "--seed", "9", "--store", str(store), "--format", "csv",
        "--exact", "never",
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


def _listening_ports() -> set[int]:
    import psutil

    me = psutil.Process(os.getpid())
    return {
        c.laddr.port
        for p in (me, *me.children(recursive=True))
        for c in p.net_connections(kind="inet")
        if c.status == "LISTEN"
    }


def _http_status(port: int, path: str = "/health") -> int:
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=10) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_the_local_cluster_serves_no_http(monkeypatch):
    """No dashboard: the HTTP servers Dask starts anyway serve nothing (404 on /health and
    the rest) in the moment before oddslab stops them, then none listens."""
    dist = pytest.importorskip("distributed")
    from oddslab.analysis import dask_run
    from oddslab.analysis.dask_run import local_cluster, stop_worker_http

    assert "distributed.worker.http.routes" not in dask_run.cluster_settings(True)  # Dask's
    stops = []
    monkeypatch.setattr(dask_run, "_stop_http", lambda *a: stops.append(a))
    before = _listening_ports()
    cluster = local_cluster(1)
    try:
        with dist.Client(cluster, timeout=60) as client:
            (server, loop), *_ = stops  # still serving: the window local_cluster closes
            ports = [server.http_server.port]
            ports += client.run(lambda dask_worker: dask_worker.http_server.port).values()
            for port in ports:
                assert [_http_status(port, p) for p in ("/health", "/metrics", "/")] == [404] * 3
            monkeypatch.undo()
            dask_run._stop_http(server, loop)
            # a terminal's Ctrl-C reaches the workers too: they leave it to the client
            ignored = client.run(lambda: signal.getsignal(signal.SIGINT) == signal.SIG_IGN)
            assert set(ignored.values()) == {True}
            client.run(stop_worker_http)
            info = client.scheduler_info()
            comms = {int(a.rsplit(":", 1)[1]) for a in info["workers"]}
            comms |= {int(w["nanny"].rsplit(":", 1)[1]) for w in info["workers"].values()}
            comms.add(int(cluster.scheduler_address.rsplit(":", 1)[1]))
            deadline = time.monotonic() + 10
            while (_listening_ports() - before) - comms and time.monotonic() < deadline:
                time.sleep(0.05)
            # only Dask's own comms listen: no dashboard, no health/metrics server
            assert (_listening_ports() - before) - comms == set()
            assert 8787 not in _listening_ports() - before

            # nor the housekeeping only a dashboard reads (dask_run.QUIET): no stack sampling
            # in the workers, rare event-loop checks, no work stealing
            def housekeeping(dask_worker):
                return sorted(dask_worker.periodic_callbacks), dask_worker._tick_interval

            (callbacks, tick), *_ = client.run(housekeeping).values()
            assert "profile" not in callbacks and "profile-cycle" not in callbacks
            assert tick == 1.0
            assert cluster.scheduler._tick_interval == 1.0
            assert "stealing" not in cluster.scheduler.extensions
    finally:
        cluster.close()


def _certificates(folder: Path) -> dict[str, str]:
    """A CA and a certificate for 127.0.0.1 signed by it (openssl), for a TLS cluster."""
    import shutil

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")

    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True, timeout=60)

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=test-ca",
        "-keyout", "ca.key", "-out", "ca.pem")  # fmt: skip
    (folder / "ext.cnf").write_text("subjectAltName=IP:127.0.0.1\n")
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "node.key", "-out", "node.csr")  # fmt: skip
    run("x509", "-req", "-in", "node.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-CAcreateserial", "-days", "1", "-extfile", "ext.cnf", "-out", "node.pem")  # fmt: skip
    return {k: str(folder / v) for k, v in
            {"ca": "ca.pem", "cert": "node.pem", "key": "node.key"}.items()}  # fmt: skip


def test_a_tls_scheduler_with_self_signed_certificates(tmp_path):
    """The client takes TLS from Dask's configuration (as documented in docs/scaling.md)."""
    dist = pytest.importorskip("distributed")
    import dask

    pem = _certificates(tmp_path)
    sec = dist.security.Security(
        tls_ca_file=pem["ca"], tls_scheduler_cert=pem["cert"], tls_scheduler_key=pem["key"],
        tls_worker_cert=pem["cert"], tls_worker_key=pem["key"],
        tls_client_cert=pem["cert"], tls_client_key=pem["key"], require_encryption=True,
    )  # fmt: skip
    cluster = dist.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, protocol="tls://",
        host="127.0.0.1", security=sec, dashboard_address="127.0.0.1:0",
    )  # fmt: skip
    try:
        assert cluster.scheduler_address.startswith("tls://127.0.0.1:")
        config = {
            "distributed.comm.require-encryption": True,
            "distributed.comm.tls.ca-file": pem["ca"],
            "distributed.comm.tls.client.cert": pem["cert"],
            "distributed.comm.tls.client.key": pem["key"],
        }
        with dask.config.set(config):
            res = sweep(SCENARIO, {"target.save": [4]}, trials=2_000, seed=3,
                        scheduler=cluster.scheduler_address)  # fmt: skip
        local = sweep(SCENARIO, {"target.save": [4]}, trials=2_000, seed=3)
        assert _counts(res) == _counts(local)
        # without the client certificate the scheduler is not reached
        with (
            dask.config.set({"distributed.comm.tls.client.cert": None}),
            pytest.raises(OSError, match="cannot reach the Dask scheduler"),
        ):
            from oddslab.analysis import distributed as d

            d.CONNECT_TIMEOUT, old = 3.0, d.CONNECT_TIMEOUT
            try:
                sweep(SCENARIO, {"target.save": [5]}, trials=100, seed=3,
                      scheduler=cluster.scheduler_address)  # fmt: skip
            finally:
                d.CONNECT_TIMEOUT = old
    finally:
        cluster.close()


def test_events_on_a_local_cluster_equal_in_process():
    pytest.importorskip("distributed")
    events = ["clean = models_slain >= 5 and damage <= 12", "hits >= 15 | wounds >= 5"]
    vary = {"target.save": [3, 4, 5]}
    local = sweep(SCENARIO, vary, trials=30_000, seed=11, events=events)
    remote = sweep(SCENARIO, vary, trials=30_000, seed=11, events=events, workers=2, batch=1)
    assert [r.events for r in remote.results] == [r.events for r in local.results]
    assert remote.frame().equals(local.frame())


def test_a_task_carries_each_cells_validated_scenario(monkeypatch):
    """A Dask task's cells travel packed with the objects the study validated (a worker does
    not read the scenario again) and give the results of the dicts; an object that does not
    pickle sends the dicts instead."""
    from oddslab import scenario
    from oddslab.analysis.cells import Cell, cell_seed
    from oddslab.analysis.dask_run import pack_cells, unpack
    from oddslab.analysis.paths import with_paths

    raw = scenario.read_toml(SCENARIO)

    def cells(validated=None):
        out = []
        for save in (3, 5):
            v = {"target.save": save}
            d = with_paths(raw, v, "t", SCENARIO.parent)
            sc = scenario.from_dict(d, "t") if validated is None else validated
            out.append(Cell(v, d, cell_seed(4, v), "t", sc))
        return out

    def answers(results):
        return [(r.key, r.scenario_hash, r.seed, r.trials, r.counts) for r in results]

    want = answers(distributed.run_batch([c.payload() for c in cells()], 1_000, None))
    group = cells()
    objects = [c.validated for c in group]
    packed = pack_cells(group)
    assert [(p[0], p[5]) for p in unpack(packed)] == [(None, o) for o in objects]
    assert [c.validated for c in group] == [None, None]  # let go once packed
    reads = []
    monkeypatch.setattr(scenario, "from_dict", lambda *a, **k: reads.append(a))
    where, results, seconds = unpack(distributed.run_packed(packed, 1_000, None))
    assert where is None  # (outside a Dask worker: no worker address)
    assert seconds >= sum(r.elapsed for r in results) > 0  # the worker's time for them
    got = answers(results)
    assert reads == [] and got == want
    fallback = unpack(pack_cells(cells(validated=lambda: None)))  # a lambda does not pickle
    assert [p[:5] for p in fallback] == [c.payload() for c in cells()]


def _thread_cluster(workers: int):
    """A LocalCluster of ``workers`` single-threaded workers in this process (127.0.0.1)."""
    dist = pytest.importorskip("distributed")
    return dist.LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=False, protocol="tcp://",
        host="127.0.0.1",
        dashboard_address="127.0.0.1:0",
    )  # fmt: skip


def test_a_study_uses_the_process_client_connected_to_its_scheduler(monkeypatch):
    """A notebook's ``Client(address)`` is the study's when it names the same scheduler: no
    second client is made (nor closed), and the answers are the in-process ones."""
    dist = pytest.importorskip("distributed")
    from oddslab.analysis import dask_run

    vary = {"target.save": [3, 4, 5]}
    local = sweep(SCENARIO, vary, trials=2_000, seed=5)
    cluster = _thread_cluster(1)
    other = _thread_cluster(1)
    try:
        made = []
        real = dist.Client

        def counting(*a, **k):
            made.append(a)
            return real(*a, **k)

        with real(cluster) as client:
            monkeypatch.setattr(dist, "Client", counting)
            assert dask_run.current_client(cluster.scheduler_address) is client
            remote = sweep(SCENARIO, vary, trials=2_000, seed=5,
                           scheduler=cluster.scheduler_address)  # fmt: skip
            assert made == [] and client.status == "running"  # used, and left open
            assert _counts(remote) == _counts(local)
            # another scheduler: a client of the study's own, closed at its end
            assert dask_run.current_client(other.scheduler_address) is None
            sweep(SCENARIO, vary, trials=2_000, seed=5, scheduler=other.scheduler_address)
            assert len(made) == 1 and client.status == "running"
        assert dask_run.current_client(cluster.scheduler_address) is None  # none open now
    finally:
        cluster.close()
        other.close()


@pytest.mark.parametrize("change", ["leave", "join"])
def test_a_worker_that_leaves_or_joins_mid_study(monkeypatch, change):
    """Each task is sent to a named worker (dask_plan): one that leaves has its tasks run
    elsewhere, one that joins gets tasks; the answers stay those of the in-process run."""
    from oddslab.analysis import dask_plan, dask_run

    monkeypatch.setattr(dask_run, "WORKERS_SECONDS", 0.0)  # ask for the workers every task
    ran_on: list[str | None] = []
    real = dask_plan.Dispatch.finished

    def finished(self, key, where, *args):
        ran_on.append(where)
        return real(self, key, where, *args)

    monkeypatch.setattr(dask_plan.Dispatch, "finished", finished)
    vary = {"target.save": [2, 3, 4, 5, 6, 7], "attacker.weapons.0.models": [1, 2, 3, 5, 8, 13]}
    cluster = _thread_cluster(2 if change == "leave" else 1)
    try:
        first = sorted(cluster.scheduler.workers)

        def progress(done: int, total: int) -> None:
            if done == 4:  # a few tasks in: one worker goes, or another comes
                cluster.scale(1 if change == "leave" else 2)

        remote = sweep(SCENARIO, vary, trials=3_000, seed=11, batch=1, progress=progress,
                       scheduler=cluster.scheduler_address)  # fmt: skip
        now = sorted(cluster.scheduler.workers)
    finally:
        cluster.close()
    local = sweep(SCENARIO, vary, trials=3_000, seed=11)
    assert _counts(remote) == _counts(local)
    assert len(ran_on) == 36  # one task a cell, each finished once
    if change == "leave":
        (gone,) = set(first) - set(now)
        assert gone in ran_on[:4] and gone not in ran_on[-10:]  # it worked, then no more
    else:
        (new,) = set(now) - set(first)
        assert new in ran_on  # the worker that joined ran cells


def test_a_scheduler_without_workers_is_one_clear_error(monkeypatch):
    from oddslab.analysis import distributed as d

    monkeypatch.setattr(d, "CONNECT_TIMEOUT", 1.0)
    cluster = _thread_cluster(0)
    try:
        with pytest.raises(OSError, match="has no workers"):
            sweep(SCENARIO, {"target.save": [4]}, trials=100, seed=3,
                  scheduler=cluster.scheduler_address)  # fmt: skip
    finally:
        cluster.close()
