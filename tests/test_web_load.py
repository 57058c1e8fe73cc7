"""A load test of `oddslab serve` (oddslab.web.app on uvicorn): 8 concurrent clients send 400
requests (simulations, exact answers, resolved inputs, status) to a real server on 127.0.0.1,
run as ``python -m oddslab serve`` in its own process (started and stopped here); every answer
must be right (200 and the expected body), the server's memory flat, and the p95 latency is
reported (timings: a shared 2-core machine, noisy)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor

import pytest

pytest.importorskip("uvicorn", reason='the web extra is not installed: pip install -e ".[web]"')
httpx = pytest.importorskip("httpx2", reason="the load test's client needs httpx2")
psutil = pytest.importorskip("psutil", reason="the load test measures memory with psutil")

CLIENTS = 8
REQUESTS = 400


def test_eight_clients_four_hundred_requests(root, record_property, request):
    import threading

    from web_server import serve_process

    quick = (root / "examples/generic-intercessors-vs-guardsmen.toml").read_text()
    kinds = [
        ("/api/simulate", {"toml": quick, "trials": 20000, "seed": 3}),
        ("/api/simulate", {"toml": quick, "trials": 30000, "seed": 4}),
        ("/api/exact", {"toml": quick}),
        ("/api/show", {"toml": quick}),
        ("/api/status", None),
    ]
    with serve_process(["--no-warm", "--max-jobs", str(CLIENTS)], cwd=root) as (url, pid):
        expected: dict[int, str] = {}
        local = threading.local()  # one connection per client, kept alive as a browser does

        def one(i: int) -> tuple[float, int, bool]:
            path, body = kinds[i % len(kinds)]
            if not hasattr(local, "client"):
                local.client = httpx.Client(base_url=url, timeout=60)
            c = local.client
            started = time.perf_counter()
            r = c.get(path) if body is None else c.post(path, json=body)
            took = time.perf_counter() - started
            ok = r.status_code == 200
            if ok and path == "/api/simulate":
                counts = r.json()["counts"]
                ok = expected.setdefault(i % len(kinds), repr(counts)) == repr(counts)
            return took, r.status_code, ok

        proc = psutil.Process(pid)
        with ThreadPoolExecutor(CLIENTS) as pool:  # warm-up round: kernels, caches, pools
            list(pool.map(one, range(CLIENTS * len(kinds))))
        rss_before = proc.memory_info().rss
        with ThreadPoolExecutor(CLIENTS) as pool:
            results = list(pool.map(one, range(REQUESTS)))
        rss_after = proc.memory_info().rss
    times = sorted(t for t, _, _ in results)
    errors = [(s, ok) for _, s, ok in results if s != 200 or not ok]
    p95 = times[int(0.95 * len(times)) - 1]
    grown = (rss_after - rss_before) / 2**20
    record_property("p95_ms", round(p95 * 1000, 1))
    record_property("rss_growth_mib", round(grown, 1))
    line = (
        f"web load test: {REQUESTS} requests from {CLIENTS} clients: p50 "
        f"{times[len(times) // 2] * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, max "
        f"{times[-1] * 1000:.0f} ms; server memory {grown:+.1f} MiB (timings noisy on a busy machine)"
    )
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if capture is not None:  # shown in the test run's output, captured or not
        with capture.global_and_fixture_disabled():
            print("\n" + line)
    else:
        print(line)
    assert not errors, errors[:5]
    assert grown < 40, f"the server grew by {grown:.1f} MiB over {REQUESTS} requests"
