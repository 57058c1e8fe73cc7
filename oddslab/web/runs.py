"""The work behind each run endpoint, on a job's thread: the CLI's steps, the CLI's JSON.

Each function returns ``(status, body text)`` where the body is what the matching command
prints with ``--format json`` (:meth:`oddslab.outcome.Outcome.to_json`,
:func:`oddslab._report.compare_json`, the analysis tables' records), so a result from the API
equals the CLI's for the same seed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from oddslab._schema import ScenarioError
from oddslab.web.scenarios import BadInput, display_name, read_scenario, resolve_library_spec

__all__ = [
    "show",
    "simulate_args",
    "simulate",
    "check_events",
    "exact",
    "compare_inputs",
    "compare",
    "matchup_args",
    "matchup",
    "fair_args",
    "fair",
]


def _too_many(what: str, n: int, limit: int) -> BadInput:
    return BadInput(
        f"{what}: {n:,} is more than this server runs per request ({limit:,}; its "
        "--max-trials option sets that)",
        status=400,
    )


# -- show ------------------------------------------------------------------------------------------
def show(body, settings) -> tuple[str, dict[str, str]]:
    """``oddslab show -f json``, and two headers: the ruleset, and whether it has an exact form."""
    from oddslab._report import run_settings
    from oddslab.engine import resolved_inputs

    sc, data = read_scenario(body.toml, body.scenario, _src(body), settings.library_dir)
    from oddslab.events import statistics_section

    resolved = {**(resolved_inputs(sc) or {}), **statistics_section(sc)}
    run = run_settings(sc)
    text = json.dumps({"run": run, "resolved": resolved}, indent=2, default=str)
    try:
        has_exact = "yes" if sc.compile().exact is not None else "no"
    except Exception:  # noqa: BLE001 - a compile problem shows when it runs
        has_exact = "unknown"
    headers = {
        "X-Oddslab-Ruleset": str(data.get("ruleset", "generic")),
        "X-Oddslab-Exact": has_exact,
    }
    return text, headers


def _src(body) -> str:
    return display_name(body.source)


# -- simulate, exact -------------------------------------------------------------------------------
def simulate_args(sc, body, limits) -> dict[str, Any]:
    """The engine's keyword arguments, with the server's trial limit applied up front."""
    from oddslab.engine import DEFAULT_TRIALS

    cap = limits.max_trials
    if body.trials is not None and body.trials > cap:
        raise _too_many("trials", body.trials, cap)
    kw: dict[str, Any] = {"trials": body.trials, "seed": body.seed, "precision": body.precision}
    if body.precision is None:
        n = body.trials or getattr(sc, "trials", None) or DEFAULT_TRIALS
        if n > cap:
            raise _too_many("trials (the scenario's)", n, cap)
    elif body.trials is None:
        kw["max_trials"] = cap  # the ceiling of a precision run
    events, joints = list(getattr(body, "events", []) or []), list(getattr(body, "joint", []) or [])
    if events or joints:  # checked here, before the run, with the CLI's words
        from oddslab._recorder import Recorder
        from oddslab.events import EventError

        job = sc.compile()
        try:
            Recorder(job.stats, events, [j.split(",") for j in joints])
        except EventError as exc:
            raise BadInput(str(exc), key="events" if events else "joint") from None
        if not job.records:
            raise BadInput(f"the {job.ruleset}'s kernel does not record trials", key="events")
        if any(not 2 <= len(j.split(",")) <= 4 for j in joints):
            raise BadInput('joint: give 2 to 4 statistics, e.g. "a,b"', key="joint")
        kw.update(events=events, joint=[tuple(x.strip() for x in j.split(",")) for j in joints])
    return kw


def simulate(sc, kw: dict[str, Any], progress) -> tuple[int, str]:
    from oddslab import _answer
    from oddslab.engine import simulate as run

    out = run(sc, progress=progress, **kw)
    # the resolved inputs say how the answer was made, as `oddslab simulate` says it
    _answer.note(out, _answer.simulated_reason(kw["trials"], kw["seed"], kw["precision"]))
    return 200, out.to_json(), out.to_csv


def check_events(sc, events: list[str]) -> None:
    """Events read before any work, with the CLI's words (an unknown name, ``=`` for ``==``)."""
    if not events:
        return
    from oddslab.events import EventError, parse_events

    try:
        parse_events(events, [s.name for s in sc.compile().stats])
    except EventError as exc:
        raise BadInput(str(exc), key="events") from None


def exact(sc, events: list[str] | None = None) -> tuple[int, str]:
    from oddslab import _answer
    from oddslab.engine import resolved_inputs
    from oddslab.exact import exact as exact_outcome

    try:
        out = exact_outcome(sc, events=events or ())
    except (NotImplementedError, ValueError) as exc:
        raise BadInput(str(exc), status=422) from None
    out.resolved = resolved_inputs(sc)
    _answer.note(out, _answer.exact_reason(sc, out))
    return 200, out.to_json(), out.to_csv


# -- compare ---------------------------------------------------------------------------------------
def compare_inputs(body, settings) -> dict[str, Any]:
    """Read every scenario (with the shared target) and check the limits, before running."""
    from oddslab.engine import DEFAULT_TRIALS

    shared = body.target
    if isinstance(shared, str):
        shared = {"use": shared}
    elif (
        isinstance(shared, dict)
        and set(shared) == {"target"}
        and isinstance(shared["target"], dict)
    ):
        shared = shared["target"]
    loaded, names = [], []
    for s in body.scenarios:
        sc, _ = read_scenario(s.toml, s.scenario, _src(s), settings.library_dir, shared)
        n = body.trials or getattr(sc, "trials", None) or DEFAULT_TRIALS
        if n > settings.limits.max_trials:
            raise _too_many(f"{_src(s)}: trials", n, settings.limits.max_trials)
        loaded.append(sc)
        names.append(_src(s))
    return {
        "scenarios": loaded,
        "files": names,
        "trials": body.trials,
        "seed": body.seed,
        "stat": body.stat,
    }


def compare(prepared: dict[str, Any], progress) -> tuple[int, str]:
    from oddslab import _answer, _report
    from oddslab.engine import simulate as run

    loaded, files = prepared["scenarios"], prepared["files"]
    # as `oddslab compare`: exact when every scenario has a whole exact answer and no
    # simulation was asked for (trials or seed), and each says why
    asked = prepared["trials"] is not None or prepared["seed"] is not None
    outcomes, why = _answer.compare_exact(loaded, simulate=asked)
    for i, sc in enumerate(loaded[len(outcomes) :], start=len(outcomes)):
        done = i

        def each(d: int, total: int | None, done=done) -> None:
            progress(done, len(loaded))

        outcomes.append(run(sc, trials=prepared["trials"], seed=prepared["seed"], progress=each))
        _answer.note(outcomes[-1], why[i])
        progress(i + 1, len(loaded))
    stat = prepared["stat"]
    if stat is not None and stat not in outcomes[0].stat_names:
        raise BadInput(
            f"stat: no statistic '{stat}'; choose from {', '.join(outcomes[0].stat_names)}"
        )
    main = stat or outcomes[0].primary_stat()
    for o, f in zip(outcomes, files, strict=True):
        if main not in o.stat_names:
            raise BadInput(f"{f}: has no statistic '{main}' to compare (use stat)")
    names = _report.unique_names(
        [o.name or Path(f).stem for o, f in zip(outcomes, files, strict=True)]
    )
    rows = _report.compare_rows(outcomes)
    paths = [Path(f) for f in files]
    text = _report.compare_json(names, paths, outcomes, rows)
    return 200, text, lambda: _report.compare_csv(names, paths, rows)


# -- matchup, fair points --------------------------------------------------------------------------
def _specs(value: str | list[str], settings) -> list[str]:
    items = [value] if isinstance(value, str) else list(value)
    if not items:
        raise BadInput("expected at least one library or library entry")
    return [resolve_library_spec(x, settings.library_dir) for x in items]


def _count(specs: list[str]) -> int:
    from oddslab.libraries import resolve_entries

    try:
        return sum(len(resolve_entries(s)) for s in specs)
    except (ScenarioError, ValueError) as exc:  # ValueError: an entry picked twice
        raise BadInput(str(exc)) from None


def _study_trials(body, specs: list[str], settings) -> int | None:
    """Trials per cell, checked against the limit; a precision run's ceiling is the limit."""
    from oddslab.engine import DEFAULT_TRIALS
    from oddslab.libraries import load_library

    cap = settings.limits.max_trials
    if body.trials is not None:
        if body.trials > cap:
            raise _too_many("trials", body.trials, cap)
        return body.trials
    if body.precision is not None:
        return cap
    path = specs[0].rpartition(":")[0] if not specs[0].endswith(".toml") else specs[0]
    try:
        tpl = load_library(path).template or {}
    except ScenarioError as exc:
        raise BadInput(str(exc)) from None
    n = tpl.get("trials") if isinstance(tpl.get("trials"), int) else DEFAULT_TRIALS
    if n > cap:
        raise _too_many("trials (the template's)", n, cap)
    return None


def matchup_args(body, settings) -> dict[str, Any]:
    from oddslab.web.scenarios import _point_uses, library_roots, parse_text

    att, tgt = _specs(body.attackers, settings), _specs(body.targets, settings)
    cells = _count(att) * _count(tgt)
    if cells > settings.limits.max_cells:
        raise BadInput(
            f"{cells:,} cells is more than this server runs per request ({settings.limits.max_cells:,})"
        )
    template = None
    if body.template is not None:
        template = _point_uses(
            parse_text(body.template, "template.toml"),
            "template.toml",
            library_roots(settings.library_dir),
        )
    return {
        "attackers": att,
        "targets": tgt,
        "metric": body.metric,
        "template": template,
        "trials": _study_trials(body, att, settings),
        "seed": body.seed,
        "precision": body.precision,
    }


def _study_errors(fn):
    try:
        return fn()
    except BadInput:
        raise
    except ScenarioError as exc:
        raise BadInput(str(exc), exc.key) from None
    except (ValueError, KeyError, TypeError) as exc:
        msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
        raise BadInput(str(msg)) from None


def matchup(kw: dict[str, Any], body, progress) -> tuple[int, str]:
    from oddslab._format import csv_frame, json_records
    from oddslab.analysis.matchup import matchup as run

    res = _study_errors(lambda: run(progress=progress, **kw))
    tab = _study_errors(lambda: res.table(sort_by=body.sort))
    grid = res.matrix(per_points=body.per_points)
    se = res.matrix(per_points=body.per_points, se=True)

    def plain(df) -> list[list[float | None]]:
        return [[None if v != v else float(v) for v in row] for row in df.to_numpy().tolist()]

    data = {
        "metric": res.metric,
        "per_points": body.per_points,
        "seed": res.seed,
        "table": json_records(tab),  # as `matchup -f json`: every column, full precision
        "attackers": [str(x) for x in grid.index],
        "targets": [str(x) for x in grid.columns],
        "matrix": plain(grid),
        "se": plain(se),
        "skipped": list(res.skipped),
        "unfit": [{"attacker": a, "target": t, "reason": r} for (a, t), r in res.unfit.items()],
    }
    return 200, json.dumps(data, indent=2), lambda: csv_frame(tab)  # as `matchup -f csv`


def fair_args(body, settings) -> dict[str, Any]:
    cand = _specs(body.candidate, settings)[0]
    ref = _specs(body.reference, settings)[0]
    if isinstance(body.basket, dict):
        basket = {resolve_library_spec(k, settings.library_dir): w for k, w in body.basket.items()}
    else:
        basket = {resolve_library_spec(k, settings.library_dir): 1.0 for k in body.basket}
    if not basket:
        raise BadInput("basket: give at least one target (library.toml:entry)")
    cells = 2 * _count(list(basket))
    if cells > settings.limits.max_cells:
        raise BadInput(
            f"{cells:,} cells is more than this server runs per request ({settings.limits.max_cells:,})"
        )
    return {
        "candidate": cand,
        "reference": ref,
        "basket": basket,
        "metric": body.metric,
        "reference_points": body.reference_points,
        "trials": _study_trials(body, [cand], settings),
        "seed": body.seed,
        "precision": body.precision,
    }


def fair(kw: dict[str, Any], progress) -> tuple[int, str]:
    from oddslab._format import csv_frame
    from oddslab.analysis.points import fair_points

    res = _study_errors(lambda: fair_points(progress=progress, **kw))
    # what `oddslab points fair -f json` / `-f csv` print: one document, one tidy table
    return 200, json.dumps(res.to_dict(), indent=2), lambda: csv_frame(res.frame())
