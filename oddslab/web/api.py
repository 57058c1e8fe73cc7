"""The JSON API: ``/api/simulate``, ``/api/exact``, ``/api/show``, ``/api/compare``,
``/api/matchup``, ``/api/points/fair`` and ``/api/jobs/{id}``.

Each run endpoint returns what the CLI's ``--format json`` prints for the same input, byte for
byte for the same seed (the run and compile times aside), and takes ``?job=true`` to answer at
once with a job to poll (progress, Cancel, result). Bad input is a 4xx whose ``error`` is the
CLI's one-line message (file, key, problem), with the ``key`` and the TOML ``line``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, Response
from pydantic import BaseModel, Field

from oddslab.web import runs
from oddslab.web.jobs import Busy, Job
from oddslab.web.scenarios import (
    BadInput,
    display_name,
    list_examples,
    list_libraries,
    read_scenario,
    start_from_entry,
    to_toml,
)

__all__ = ["router"]

router = APIRouter(prefix="/api")

SOURCE_HELP = "A name for the scenario in messages (default scenario.toml); never a path read."


def _scenario_schemas(schema: dict[str, Any]) -> None:
    """The JSON form of a scenario in the API's documentation: one of the rulesets' declared
    schemas (the same declaration that reads files, ``oddslab schema RULESET``)."""
    from oddslab import ruleset

    kinds = []
    for name in ruleset.names():
        doc = ruleset.get(name).schema()
        if doc is not None:
            kinds.append({k: v for k, v in doc.items() if not k.startswith("$")})
    schema["anyOf"] = [*kinds, {"type": "null"}]


class ScenarioIn(BaseModel):
    """A scenario: its TOML text, or the same as JSON (what ``tomllib`` gives)."""

    toml: str | None = Field(None, description="The scenario file's text.")
    scenario: dict[str, Any] | None = Field(
        None,
        description="The scenario as JSON: a scenario file of one of the rulesets.",
        json_schema_extra=_scenario_schemas,
    )
    source: str = Field("scenario.toml", max_length=200, description=SOURCE_HELP)


class ExactIn(ScenarioIn):
    events: list[str] = Field(
        [],
        max_length=20,
        description="Events answered exactly, as `oddslab simulate --exact --event`.",
    )


class SimulateIn(ScenarioIn):
    # ranges are checked by the engine, so a wrong value gets the CLI's (and a scenario
    # file's) words: "trials: expected a number of trials from 1 to 10,000,000,000, got 0"
    trials: int | None = Field(None, description="Trials (a precision run's ceiling).")
    seed: int | None = Field(None, description="Master seed, an integer >= 0.")
    precision: float | None = Field(
        None, description="Run until every headline's 95% half-width is below this."
    )
    events: list[str] = Field(
        [],
        max_length=20,
        description='Events, as `oddslab simulate --event`: "clean win = a >= 5 and b == 0", '
        '"A | B" (P(A given B)).',
    )
    joint: list[str] = Field(
        [], max_length=4, description='Joint distributions, as `--joint`: "a,b" (2 to 4 names).'
    )


class CompareIn(BaseModel):
    scenarios: list[ScenarioIn] = Field(..., min_length=2, max_length=4)
    target: str | dict[str, Any] | None = Field(
        None, description='Every scenario\'s target: "library.toml:entry" or a table.'
    )
    trials: int | None = None
    seed: int | None = None
    stat: str | None = None


class StudyIn(BaseModel):
    metric: str | None = Field(None, description='"mean(stat)", "P(stat >= k)" or a headline.')
    trials: int | None = Field(None, description="Trials per cell.")
    seed: int | None = None
    precision: float | None = None


class MatchupIn(StudyIn):
    attackers: str | list[str] = Field(..., description='"generic.toml" or "generic.toml:a,b".')
    targets: str | list[str]
    per_points: bool = False
    template: str | None = Field(None, description="A template scenario's TOML text.")
    sort: str | None = None


class FairIn(StudyIn):
    candidate: str = Field(..., description='"library.toml:entry" of the unit to price.')
    reference: str = Field(..., description='"library.toml:entry" of a unit priced right.')
    basket: dict[str, float] | list[str] = Field(..., description="Targets (and weights).")
    reference_points: float | None = Field(None, ge=0)


class TomlIn(BaseModel):
    scenario: dict[str, Any]


# -- helpers -----------------------------------------------------------------------------------
def _settings(request: Request):
    return request.app.state.settings


def _manager(request: Request):
    return request.app.state.jobs


def error_response(exc: BadInput) -> JSONResponse:
    return JSONResponse(exc.body(), status_code=exc.status)


async def _answer(request: Request, kind: str, work, as_job: bool) -> Response:
    """Run ``work(progress)`` as a job: wait for it, or answer 202 with the job at once."""
    try:
        job = _manager(request).submit(kind, work)
    except Busy as exc:
        return JSONResponse({"error": str(exc)}, status_code=429)
    if as_job:
        return JSONResponse(
            job.info(), status_code=202, headers={"Location": f"/api/jobs/{job.id}"}
        )
    await asyncio.wrap_future(job.future)
    return job_response(job)


def job_response(job: Job) -> Response:
    if job.state == "done":
        return Response(job.result, status_code=job.status, media_type="application/json")
    return JSONResponse(job.error or {"error": job.state}, status_code=job.status)


# -- catalogue -----------------------------------------------------------------------------------
@router.get("/status", summary="Whether the kernels are ready, and the server's limits")
async def status(request: Request) -> dict[str, Any]:
    from oddslab import __version__

    s = _settings(request)
    return {
        "version": __version__,
        "warmup": request.app.state.warmup,
        "limits": s.limits.__dict__,
        "jobs_running": _manager(request).running,
    }


@router.get("/examples", summary="The shipped example scenarios")
async def examples() -> list[dict[str, str]]:
    return list_examples()


@router.get("/examples/{file}", summary="One example's TOML text")
async def example(file: str) -> Response:
    from oddslab.web.scenarios import examples_dir

    names = {p.name for p in examples_dir().glob("*.toml")}
    if file not in names:
        return JSONResponse({"error": f"no example '{file}' (see /api/examples)"}, 404)
    return JSONResponse({"file": file, "toml": (examples_dir() / file).read_text("utf-8")})


@router.get("/libraries", summary="Every library this server reads, entries and points")
async def libraries(request: Request) -> list[dict[str, Any]]:
    return list_libraries(_settings(request).library_dir)


@router.get("/libraries/{file}/{entry}", summary="A scenario built from a library entry")
async def library_entry(request: Request, file: str, entry: str) -> Response:
    try:
        text = start_from_entry(file, entry, _settings(request).library_dir)
    except BadInput as exc:
        return error_response(exc)
    return JSONResponse({"toml": text, "source": f"{Path(file).stem}-{entry}.toml"})


@router.get("/form/generic", summary="The generic scenario form: keys, defaults, help")
async def form() -> dict[str, Any]:
    from oddslab.web.form import generic_form

    return generic_form()


@router.post("/toml", summary="A scenario's JSON form written as TOML text")
async def toml(body: TomlIn) -> Response:
    try:
        return JSONResponse({"toml": to_toml(body.scenario)})
    except BadInput as exc:
        return error_response(exc)


# -- runs ------------------------------------------------------------------------------------------
@router.post("/show", summary="The resolved inputs (as `oddslab show -f json`)")
async def show(request: Request, body: ScenarioIn) -> Response:
    from starlette.concurrency import run_in_threadpool

    try:
        text, headers = await run_in_threadpool(runs.show, body, _settings(request))
    except BadInput as exc:
        return error_response(exc)
    return Response(text, media_type="application/json", headers=headers)


@router.post("/simulate", summary="Monte Carlo (as `oddslab simulate -f json`)")
async def simulate(request: Request, body: SimulateIn, job: bool = Query(False)) -> Response:
    settings = _settings(request)
    try:
        sc, _ = read_scenario(
            body.toml, body.scenario, display_name(body.source), settings.library_dir
        )
        kw = runs.simulate_args(sc, body, settings.limits)
    except BadInput as exc:
        return error_response(exc)
    return await _answer(request, "simulate", lambda p: runs.simulate(sc, kw, p), job)


@router.post("/exact", summary="Exact distributions (as `oddslab simulate --exact -f json`)")
async def exact(request: Request, body: ExactIn, job: bool = Query(False)) -> Response:
    try:
        sc, _ = read_scenario(
            body.toml, body.scenario, display_name(body.source), _settings(request).library_dir
        )
        runs.check_events(sc, body.events)
    except BadInput as exc:
        return error_response(exc)
    return await _answer(request, "exact", lambda p: runs.exact(sc, body.events), job)


@router.post("/compare", summary="Scenarios side by side (as `oddslab compare -f json`)")
async def compare(request: Request, body: CompareIn, job: bool = Query(False)) -> Response:
    settings = _settings(request)
    try:
        prepared = runs.compare_inputs(body, settings)
    except BadInput as exc:
        return error_response(exc)
    return await _answer(request, "compare", lambda p: runs.compare(prepared, p), job)


@router.post("/matchup", summary="Attackers × targets (the CLI's -f json table, and the matrix)")
async def matchup(request: Request, body: MatchupIn, job: bool = Query(False)) -> Response:
    try:
        kw = runs.matchup_args(body, _settings(request))
    except BadInput as exc:
        return error_response(exc)
    return await _answer(request, "matchup", lambda p: runs.matchup(kw, body, p), job)


@router.post("/points/fair", summary="Fair points (as `oddslab points fair -f json`)")
async def fair(request: Request, body: FairIn, job: bool = Query(False)) -> Response:
    try:
        kw = runs.fair_args(body, _settings(request))
    except BadInput as exc:
        return error_response(exc)
    return await _answer(request, "fair points", lambda p: runs.fair(kw, p), job)


# -- jobs --------------------------------------------------------------------------------------------
def _job_or_404(request: Request, job_id: str) -> Job | JSONResponse:
    job = _manager(request).get(job_id)
    if job is None:
        return JSONResponse({"error": f"no job '{job_id}' (finished jobs are kept a while)"}, 404)
    return job


@router.get("/jobs/{job_id}", summary="A job's state and progress")
async def job_info(request: Request, job_id: str) -> Response:
    job = _job_or_404(request, job_id)
    return job if isinstance(job, Response) else JSONResponse(job.info())


@router.get("/jobs/{job_id}/result", summary="A finished job's result (202 while running)")
async def job_result(
    request: Request, job_id: str, format: str = Query("json", pattern="^(json|csv)$")
) -> Response:
    job = _job_or_404(request, job_id)
    if isinstance(job, Response):
        return job
    if job.finished is None:
        return JSONResponse(job.info(), status_code=202)
    if format == "csv" and job.state == "done" and job.csv is not None:
        name = f"oddslab-{job.kind.replace(' ', '-')}.csv"
        headers = {"Content-Disposition": f'attachment; filename="{name}"'}
        return Response(job.csv(), media_type="text/csv", headers=headers)
    return job_response(job)


@router.post("/jobs/{job_id}/cancel", summary="Cancel a job (it stops at its next batch)")
async def job_cancel(request: Request, job_id: str) -> Response:
    job = _job_or_404(request, job_id)
    if isinstance(job, Response):
        return job
    _manager(request).cancel(job)
    return JSONResponse(job.info())


@router.delete("/jobs/{job_id}", summary="Cancel a job (as POST .../cancel)")
async def job_delete(request: Request, job_id: str) -> Response:
    return await job_cancel(request, job_id)
