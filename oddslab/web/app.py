"""The ASGI app of ``oddslab serve``: the page, the offline API docs, the JSON API.

:func:`create_app` builds it from :class:`~oddslab.web.security.Settings`; :func:`serve`
runs it with uvicorn. Every template, script and style ships in this package (``templates/``,
``static/``): the page works offline and loads nothing from another site.
"""

from __future__ import annotations

import sys
import threading
import time
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.exceptions import HTTPException as StarletteHTTPException

from oddslab.web.jobs import JobManager
from oddslab.web.security import GuardMiddleware, Settings

__all__ = ["create_app", "serve", "warm_up"]

HERE = Path(__file__).resolve().parent


def warm_up(state: dict[str, Any], library_dir: Path | None = None) -> None:
    """Compile (or load) every ruleset's kernels, recording progress in ``state``; first read
    the libraries (and which template slot each entry fits) that the page lists at once."""
    from oddslab import warmup
    from oddslab.web.scenarios import list_libraries

    # the built-in rulesets and the dice pools; with ruleset plugins, installed ones too
    names = warmup.everything() if hasattr(warmup, "everything") else warmup.ALL

    started = time.perf_counter()
    try:
        list_libraries(library_dir)
    except Exception:  # noqa: BLE001 - a bad library is reported when the page asks
        pass
    for name in names:
        state["current"] = name
        try:
            state["done"].append(warmup.warm(name))
        except Exception as exc:  # noqa: BLE001 - a ruleset that fails to warm still runs later
            state["done"].append(f"{name}: not warmed ({type(exc).__name__}: {exc})")
    state.update(ready=True, current=None, seconds=round(time.perf_counter() - started, 2))


def create_app(settings: Settings | None = None) -> FastAPI:
    """The app. With ``settings.warm`` the kernels compile on a background thread at start-up
    and ``GET /api/status`` says ``"ready": false`` ("warming up" on the page) until done."""
    from oddslab import __version__
    from oddslab.web.api import router

    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if settings.warm and not app.state.warmup["ready"]:
            threading.Thread(
                target=warm_up,
                args=(app.state.warmup, settings.library_dir),
                name="oddslab-warmup",
                daemon=True,
            ).start()
        yield
        for job in list(app.state.jobs._jobs.values()):  # stop runs at their next batch
            job.cancel_requested = True

    app = FastAPI(
        title="oddslab",
        version=__version__,
        description="Monte Carlo and exact combat odds for tabletop wargames: the JSON API of "
        "`oddslab serve`. Each run endpoint returns what the CLI's `--format json` prints.",
        docs_url=None,  # FastAPI's own /docs loads Swagger UI from a CDN: ours is offline
        redoc_url=None,
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.jobs = JobManager(settings.limits.max_jobs, settings.limits.max_seconds)
    app.state.warmup = {"ready": not settings.warm, "current": None, "done": [], "seconds": None}
    templates = Jinja2Templates(directory=str(HERE / "templates"))
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.include_router(router)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page(request: Request):
        return templates.TemplateResponse(request, "index.html", {"version": __version__})

    @app.get("/docs", response_class=HTMLResponse, include_in_schema=False)
    async def docs(request: Request):
        return templates.TemplateResponse(request, "docs.html", {"version": __version__})

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError):
        first = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()) if p != "body")
        msg = first.get("msg", "invalid request")
        return JSONResponse({"error": f"{where}: {msg}" if where else msg, "key": where}, 422)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException):
        return JSONResponse({"error": str(exc.detail)}, exc.status_code)

    @app.exception_handler(Exception)
    async def internal(request: Request, exc: Exception):  # a bug: no traceback to the client
        return JSONResponse(
            {"error": f"internal error ({type(exc).__name__}); please report it"}, 500
        )

    app.add_middleware(GuardMiddleware, settings=settings)
    return app


def serve(settings: Settings, open_browser: bool = False) -> None:
    """Run the app with uvicorn until Ctrl-C."""
    import uvicorn

    host = settings.host
    url_host = f"[{host}]" if ":" in host else host
    if host not in ("127.0.0.1", "localhost", "::1"):
        print(
            f"warning: listening on {host}: anyone who can reach port {settings.port} can use "
            "this machine's CPU through oddslab (no login). Use it on a trusted network only; "
            "see docs/web.md.",
            file=sys.stderr,
        )
        if host in ("0.0.0.0", "::"):
            url_host = "127.0.0.1"
    url = f"http://{url_host}:{settings.port}/"
    print(f"oddslab serving on {url} (Ctrl-C to stop)", file=sys.stderr)
    if open_browser:
        import webbrowser

        threading.Timer(1.0, webbrowser.open, args=(url,)).start()
    uvicorn.run(
        create_app(settings),
        host=host,
        port=settings.port,
        log_level="warning",
        limit_concurrency=64,
        timeout_keep_alive=5,
    )
