"""``oddslab serve``: a local web app and JSON API over the same engine as the CLI.

- :mod:`~oddslab.web.app` — the ASGI app (FastAPI), start-up warm-up, :func:`serve`.
- :mod:`~oddslab.web.api` — the JSON endpoints; :mod:`~oddslab.web.runs` — the work behind them.
- :mod:`~oddslab.web.jobs` — runs on threads with progress, Cancel and a wall-time limit.
- :mod:`~oddslab.web.security` — Host and Origin checks, limits, library paths.
- :mod:`~oddslab.web.scenarios` — scenarios from requests, error lines, examples, libraries.
- :mod:`~oddslab.web.form` — the generic form, derived from the generic model.
- :mod:`~oddslab.web.command` — the ``serve`` command (typer only).
- ``templates/``, ``static/`` — the page, its script and style (shipped; no CDN).

Importing this package is light: FastAPI, uvicorn and Jinja2 (the ``web`` extra,
``pip install -e ".[web]"``) load only when the app is built.
"""

from __future__ import annotations

__all__ = ["create_app", "serve", "Settings", "Limits"]


def __getattr__(name: str):
    if name in ("create_app", "serve"):
        from oddslab.web import app

        return getattr(app, name)
    if name in ("Settings", "Limits"):
        from oddslab.web import security

        return getattr(security, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
