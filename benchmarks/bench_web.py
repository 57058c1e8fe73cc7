"""`oddslab serve` from request to JSON: latency of a warm server (issue 31's targets).

Starts ``python -m oddslab serve`` on a free port of 127.0.0.1 (kernels warmed at start-up,
a ``--library-dir`` holding a generated 20 × 20 library), waits until it says it is ready,
then times from a client in this process, each request sent and its JSON read:

- the README quick start to ±1 pp (``POST /api/simulate``, ``precision = 0.01``; a new seed
  each time), p50 and p95 over many requests (target: p95 ≤ 150 ms);
- the exact answer of the same scenario (``POST /api/exact``; target: p95 ≤ 30 ms);
- the 20 × 20 matchup the Matchup tab asks for (``POST /api/matchup``, every headline to
  ±1 pp, the page's default; and to ±0.5 pp as ``bench_analysis.py`` runs it; target ≤ 3 s).

Run: ``python benchmarks/bench_web.py [--quick] [--markdown FILE]``; ``run(quick)`` gives the
rows for ``run_all.py``. Timings on a shared machine are noisy: take p95s as rough.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import ROOT, env_with_root, fmt_rate, markdown_table  # noqa: E402

QUICK = ROOT / "oddslab" / "examples" / "generic-intercessors-vs-guardsmen.toml"


def _row(job: str, per_s: float, note: str) -> dict:
    return {
        "ruleset": "web",
        "job": job,
        "unit": "requests",
        "oddslab_per_s": per_s,
        "python_per_s": None,
        "numpy_per_s": None,
        "dice_per_trial": None,
        "threads": 2,
        "note": note,
    }


def _library(n: int) -> str:
    """The generated library of ``bench_analysis.matchup_20x20`` (n attackers, n targets)."""
    sys.path.insert(0, str(HERE))
    lines = ['ruleset = "generic"', 'description = "generated benchmark units (invented)"']
    for i in range(n):
        lines += [f"[units.att{i}]", f"points = {50 + 5 * i}", f"[[units.att{i}.weapons]]",
                  f"models = {3 + i % 7}", f"attacks = {1 + i % 3}", f"skill = {2 + i % 4}",
                  f"strength = {3 + i % 6}", f"ap = {i % 3}", f"damage = {1 + i % 2}"]  # fmt: skip
    for j in range(n):
        lines += [f"[units.tgt{j}]", "points = 100", f"models = {1 + j % 10}",
                  f"toughness = {3 + j % 5}", f"wounds = {1 + j % 3}", f"save = {2 + j % 5}"]  # fmt: skip
    lines += ["[matchup.template]", 'ruleset = "generic"', "[matchup.template.attacker]",
              'use = "{attacker}"', "[matchup.template.target]", 'use = "{target}"']  # fmt: skip
    return "\n".join(lines) + "\n"


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, int(round(q * len(xs))) - 1))]


def run(quick: bool = False, smoke: bool = False) -> list[dict]:
    try:
        import httpx2  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return [
            _row(
                "oddslab serve",
                float("nan"),
                'web extra not installed: skipped (pip install -e ".[web]")',
            )
        ]
    import httpx2 as httpx

    n = 2 if smoke else 4 if quick else 20
    repeat = 1 if smoke else 5 if quick else 60
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "bench.toml").write_text(_library(n))
        port = _free_port()
        proc = subprocess.Popen(
            [sys.executable, "-m", "oddslab", "serve", "--port", str(port), "--library-dir", tmp,
             "--max-seconds", "120", *(["--no-warm"] if smoke else [])],  # fmt: skip
            cwd=ROOT, env=env_with_root(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        )  # fmt: skip
        url = f"http://127.0.0.1:{port}"
        try:
            warm = _wait_ready(url, proc)
            with httpx.Client(base_url=url, timeout=300) as c:
                rows = _measure(c, repeat, n, warm, _cpu_clock(proc.pid), smoke)
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    return rows


def _cpu_clock(pid: int):
    """Seconds of CPU the server process has used (user + system, all threads): unlike wall
    time, not stretched by other processes on a busy machine. None without psutil."""
    try:
        import psutil
    except ImportError:
        return lambda: float("nan")
    proc = psutil.Process(pid)

    def clock() -> float:
        t = proc.cpu_times()
        return t.user + t.system

    return clock


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_ready(url: str, proc) -> float:
    import httpx2 as httpx

    t0 = time.perf_counter()
    while time.perf_counter() - t0 < 600:
        if proc.poll() is not None:
            raise RuntimeError(proc.stderr.read().decode()[-2000:])
        try:
            if httpx.get(f"{url}/api/status", timeout=1).json()["warmup"]["ready"]:
                return time.perf_counter() - t0
        except httpx.TransportError:
            pass
        time.sleep(0.1)
    raise RuntimeError("the server did not get ready in 600 s")


def _timed(c, path: str, body: dict) -> tuple[float, dict]:
    t0 = time.perf_counter()
    r = c.post(path, json=body)
    data = r.json()
    took = time.perf_counter() - t0
    if r.status_code != 200:
        raise RuntimeError(f"{path}: {r.status_code} {data}")
    return took, data


def _measure(c, repeat: int, n: int, warm: float, cpu, smoke: bool = False) -> list[dict]:
    text = QUICK.read_text()
    _timed(c, "/api/simulate", {"toml": text, "precision": 0.01, "seed": 0})  # first request
    c0 = cpu()
    sims = [_timed(c, "/api/simulate", {"toml": text, "precision": 0.01, "seed": s}) for s in range(1, repeat + 1)]  # fmt: skip
    cpu_sim = (cpu() - c0) / repeat
    widest = max(d["half_width"] for _, d in sims)
    t_sim = [t for t, _ in sims]
    _timed(c, "/api/exact", {"toml": text})  # first request (imports the exact engine)
    c0 = cpu()
    t_exact = [_timed(c, "/api/exact", {"toml": text})[0] for _ in range(repeat)]
    cpu_exact = (cpu() - c0) / repeat
    rows = [
        _row("quick start to ±1 pp, request to JSON (target p95 ≤ 150 ms)", 1 / statistics.median(t_sim),
             f"p50 {1000 * statistics.median(t_sim):.0f} ms, p95 {1000 * _percentile(t_sim, 0.95):.0f} ms "
             f"over {repeat} requests; server CPU {1000 * cpu_sim:.0f} ms a request; "
             f"widest half-width {100 * widest:.2f} pp"),
        _row("exact generic answer, request to JSON (target p95 ≤ 30 ms)", 1 / statistics.median(t_exact),
             f"p50 {1000 * statistics.median(t_exact):.0f} ms, p95 {1000 * _percentile(t_exact, 0.95):.0f} ms "
             f"over {repeat} requests; server CPU {1000 * cpu_exact:.0f} ms a request"),
    ]  # fmt: skip
    for precision in (0.05, 0.04) if smoke else (0.01, 0.005):
        body = {"attackers": "bench.toml:att*", "targets": "bench.toml:tgt*", "precision": precision, "seed": 1}  # fmt: skip
        c0 = cpu()
        times = [_timed(c, "/api/matchup", body)[0] for _ in range(1 if smoke else 3)]
        cpu_mu = (cpu() - c0) / len(times)
        rows.append(
            _row(f"{n}×{n} matchup page, every headline ±{100 * precision:g} pp (target ≤ 3 s)",
                 1 / min(times), f"best {min(times):.2f} s, worst {max(times):.2f} s of {len(times)} "
                 f"({n * n} cells; server CPU {cpu_mu:.2f} s each); server warmed up in {warm:.1f} s")
        )  # fmt: skip
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="few requests, a 4 × 4 matchup")
    ap.add_argument("--smoke", action="store_true", help="each row on a tiny size (the tests' run)")
    ap.add_argument("--markdown", type=Path, help="also write the table here")
    args = ap.parse_args()
    rows = run(args.quick, args.smoke)
    table = markdown_table(
        ["job", "requests/s", "note"],
        [[r["job"], fmt_rate(r["oddslab_per_s"]), r["note"]] for r in rows],
    )
    load = os.getloadavg()[0]
    text = (
        f"## Web server ({'quick' if args.quick else 'full'} run; 1-min load average "
        f"{load:.1f} on {os.cpu_count()} CPUs)\n\n{table}\n"
    )
    print(text)
    if args.markdown:
        args.markdown.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
