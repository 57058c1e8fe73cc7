"""The ``oddslab serve`` command. Only typer is imported here: the web stack (the ``web``
extra) loads inside the command, so the CLI's start-up does not change."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

__all__ = ["register", "serve_cmd"]

INSTALL = 'pip install -e ".[web]"'


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(code=2)


def serve_cmd(
    host: Annotated[
        str, typer.Option(help="Address to listen on (0.0.0.0: every network; warns).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port.")] = 8000,
    open_browser: Annotated[
        bool, typer.Option("--open", help="Open the page in the default browser.")
    ] = False,
    library_dir: Annotated[
        Path | None,
        typer.Option(help="One more folder of unit libraries the page and API may read."),
    ] = None,
    allow_host: Annotated[
        list[str] | None,
        typer.Option(help="A DNS name the server answers to besides its address (repeat)."),
    ] = None,
    max_trials: Annotated[int, typer.Option(min=1, help="Most trials per request.")] = 20_000_000,
    max_jobs: Annotated[int, typer.Option(min=1, help="Most runs at once.")] = 4,
    max_seconds: Annotated[float, typer.Option(min=1, help="Most seconds per run.")] = 60.0,
    warm: Annotated[
        bool, typer.Option(help="Compile every ruleset's kernels at start-up (in the background).")
    ] = True,
) -> None:
    """Start the local web app and JSON API (http://127.0.0.1:8000/ by default)."""
    try:
        import fastapi  # noqa: F401
        import jinja2  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        raise _fail(
            f"oddslab serve needs the web extra ({exc.name} is missing): {INSTALL}"
        ) from None
    from oddslab.web.security import Limits, Settings

    if library_dir is not None and not library_dir.is_dir():
        raise _fail(f"--library-dir '{library_dir}' is not a folder")
    settings = Settings(
        host=host,
        port=port,
        library_dir=library_dir.resolve() if library_dir else None,
        allow_hosts=tuple(allow_host or ()),
        limits=Limits(max_trials=max_trials, max_jobs=max_jobs, max_seconds=max_seconds),
        warm=warm,
    )
    import gc

    gc.enable()  # a long-lived server makes reference cycles (oddslab.cli.main turns it off)
    from oddslab.web.app import serve

    try:
        serve(settings, open_browser=open_browser)
    except OSError as exc:
        raise _fail(f"cannot listen on {host}:{port} ({exc.strerror or exc})") from None


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``oddslab`` app."""
    app.command("serve")(serve_cmd)
