"""A real uvicorn server on 127.0.0.1 for the web tests: started on a free port in a thread,
stopped (and its thread joined) when the test is done."""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import httpx2 as httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def running_server(settings=None, timeout: float = 20.0) -> Iterator[str]:
    """Yield the base URL of a running ``oddslab serve`` app; stop it afterwards."""
    import dataclasses

    import uvicorn

    from oddslab.web.app import create_app
    from oddslab.web.security import Settings

    port = free_port()
    settings = dataclasses.replace(settings or Settings(warm=False), port=port)
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, log_level="warning", lifespan="on"
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="uvicorn-test", daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the test server did not start")
        time.sleep(0.02)
    try:
        assert httpx.get(f"{url}/api/status").status_code == 200
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=timeout)


@contextlib.contextmanager
def serve_process(args: list[str], cwd, timeout: float = 60.0) -> Iterator[tuple[str, int]]:
    """Yield ``(base URL, pid)`` of ``python -m oddslab serve ARGS`` on a free port of
    127.0.0.1 in its own process; terminate it (and wait) afterwards."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "oddslab", "serve", "--port", str(port), *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    try:
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"oddslab serve exited: {proc.stderr.read()[-2000:]}")
            try:
                if httpx.get(f"{url}/api/status", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError("oddslab serve did not start")
            time.sleep(0.1)
        yield url, proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
