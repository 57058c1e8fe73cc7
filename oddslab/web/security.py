"""What keeps `oddslab serve` a safe local server: limits, Host and Origin checks, paths.

The threats (written down in docs/web.md): a page on another web site that the user visits
must not drive the local server, neither through a DNS name that resolves to 127.0.0.1
(DNS rebinding: the ``Host`` header check) nor by posting to it (cross-origin POSTs are
refused); a request must not read files (libraries come from the shipped folder and one
folder named at start, and a path that leaves it is refused); and no request may take the
server down (limits on body size, trials, concurrent jobs and wall time per job, each a
clear 4xx/429, after which the server keeps serving).
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath, PureWindowsPath
from urllib.parse import urlsplit

__all__ = [
    "Limits",
    "Settings",
    "PathRefused",
    "GuardMiddleware",
    "host_allowed",
    "safe_library_file",
]

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")

#: On every response: scripts, styles and images only from this server (the page loads
#: nothing from elsewhere; ``data:``/``blob:`` for the PNG export), never inside another
#: site's frame (clickjacking), and no content-type guessing.
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'self'; img-src 'self' data: blob:; frame-ancestors 'none'; "
        b"base-uri 'none'; form-action 'self'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
]


@dataclass(frozen=True)
class Limits:
    """Per-request and per-server limits (each past-limit request gets a 4xx or 429).

    Attributes
    ----------
    max_body : int
        Largest request body, bytes.
    max_trials : int
        Most trials one simulation may run (a precision run's ceiling included); a study
        (compare, matchup, fair points) may run this many per scenario or cell.
    max_cells : int
        Most cells (scenarios) in one matchup or fair-points study.
    max_jobs : int
        Jobs running at once; one more is refused with 429.
    max_seconds : float
        Wall time of one job, seconds; past it the job stops at its next batch.
    """

    max_body: int = 256 * 1024
    max_trials: int = 20_000_000
    max_cells: int = 1_000
    max_jobs: int = 4
    max_seconds: float = 60.0


@dataclass(frozen=True)
class Settings:
    """How the server was started: where it listens, which libraries it may read, limits."""

    host: str = "127.0.0.1"
    port: int = 8000
    library_dir: Path | None = None
    allow_hosts: tuple[str, ...] = ()
    limits: Limits = field(default_factory=Limits)
    warm: bool = True


class PathRefused(ValueError):
    """A library path in a request that leaves the folders the server may read."""


def _host_name(header: str) -> str:
    """The host part of a ``Host`` header (``[::1]:8000`` → ``::1``), lower case."""
    header = header.strip().lower()
    if header.startswith("["):
        return header[1:].split("]", 1)[0]
    if header.count(":") == 1:
        return header.split(":", 1)[0]
    return header


def _is_ip(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def host_allowed(header: str | None, settings: Settings) -> bool:
    """Whether a request's ``Host`` header names this server.

    Bound to a loopback address, only the loopback names are accepted. Bound to another
    address (``--host 0.0.0.0`` for a LAN), any IP address is accepted (a DNS rebinding
    attack needs a DNS name, so an address typed as digits is safe), and the names given
    with ``--allow-host``, the bound name and ``localhost``.
    """
    if not header:
        return False
    name = _host_name(header)
    bound = settings.host.strip("[]").lower()
    allowed = {*LOOPBACK_NAMES, bound, *(h.lower() for h in settings.allow_hosts)}
    if name in allowed:
        return True
    loopback_only = bound in LOOPBACK_NAMES or (
        _is_ip(bound) and ipaddress.ip_address(bound).is_loopback
    )
    return not loopback_only and _is_ip(name)


def _error(status: int, message: str) -> tuple[int, bytes]:
    return status, json.dumps({"error": message}).encode()


class GuardMiddleware:
    """Pure ASGI middleware: the Host check, the cross-origin POST check, the body limit.

    Runs before routing, so a refused request never reaches a handler; the body limit reads
    ``Content-Length`` and also counts a streamed body as it arrives.
    """

    def __init__(self, app, settings: Settings):
        self.app = app
        self.settings = settings

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refused = self._check(scope, headers)
        if refused is not None:
            return await _send(send, *refused)

        plain_send = send

        async def guarded_send(message):
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await plain_send(message)

        send = guarded_send
        if scope["method"] in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        # Bodies are small: read the whole body first (up to the limit), then hand it on, so
        # an oversize streamed body is refused before any handler runs.
        limit = self.settings.limits.max_body
        chunks, seen = [], 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            body = message.get("body", b"")
            seen += len(body)
            if seen > limit:
                return await _send(send, *self._too_big())
            chunks.append(body)
            if not message.get("more_body", False):
                break
        whole = b"".join(chunks)
        replayed = False

        async def replay():
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": whole, "more_body": False}
            return await receive()

        return await self.app(scope, replay, send)

    def _too_big(self) -> tuple[int, bytes]:
        return _error(413, f"request body over {self.settings.limits.max_body:,} bytes")

    def _check(self, scope, headers: dict[str, str]) -> tuple[int, bytes] | None:
        if not host_allowed(headers.get("host"), self.settings):
            return _error(
                421,
                f"Host '{headers.get('host', '')}' is not this server's name (a page on "
                "another site may be trying to reach it: DNS rebinding); use "
                f"http://{_url_host(self.settings.host)}:{self.settings.port}/ or start with "
                "--allow-host NAME",
            )
        if scope["method"] not in ("GET", "HEAD", "OPTIONS"):
            origin = headers.get("origin")
            site = headers.get("sec-fetch-site")
            if origin is not None and not _same_origin(origin, headers.get("host", "")):
                return _error(403, f"cross-origin request from '{origin}' refused")
            if site == "cross-site":
                return _error(403, "cross-site request refused")
        length = headers.get("content-length")
        if length is not None:
            try:
                n = int(length)
            except ValueError:
                return _error(400, "Content-Length is not a number")
            if n > self.settings.limits.max_body:
                return self._too_big()
        return None


def _url_host(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def _same_origin(origin: str, host_header: str) -> bool:
    if origin == "null":
        return False
    parts = urlsplit(origin)
    return bool(parts.netloc) and parts.netloc.lower() == host_header.strip().lower()


async def _send(send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# -- library paths --------------------------------------------------------------------------------
def safe_library_file(text: str, roots: list[Path]) -> Path:
    """The library file a request names, found under one of ``roots``.

    ``text`` must be a relative path of plain names (no ``..``, no drive, not absolute) ending
    in ``.toml``; the file is looked up under each root in turn, and its real path (symlinks
    followed) must stay inside that root.

    Raises
    ------
    PathRefused
        With one sentence saying why.
    """
    if not isinstance(text, str) or not text.strip():
        raise PathRefused("expected a library file name such as 'generic.toml'")
    posix, win = PurePosixPath(text), PureWindowsPath(text)
    if posix.is_absolute() or win.is_absolute() or win.drive or text.startswith(("/", "\\", "~")):
        raise PathRefused(f"'{text}': absolute paths are refused (name a shipped library)")
    parts = [p for p in text.replace("\\", "/").split("/") if p not in ("", ".")]
    if any(p == ".." for p in parts):
        raise PathRefused(f"'{text}': '..' is refused (libraries are read from their folder only)")
    if not parts or not parts[-1].endswith(".toml"):
        raise PathRefused(f"'{text}': a library is a .toml file")
    for root in roots:
        real_root = root.resolve()
        candidate = real_root.joinpath(*parts)
        if not candidate.exists():
            continue
        real = candidate.resolve()
        if not real.is_relative_to(real_root):
            raise PathRefused(f"'{text}': the file links outside the library folder")
        if real.is_file():
            return real
    raise PathRefused(f"'{text}': no such library (see GET /api/libraries)")
