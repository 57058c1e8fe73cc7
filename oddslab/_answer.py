"""Exact or Monte Carlo: which answer `simulate` and `compare` give, and why.

The exact engine answers many scenarios outright (every statistic a run reports has an
exact PMF), faster than a simulation and without sampling error. The command line uses it
by default there, simulates otherwise, and says which it did and why in a first section of
the resolved inputs (:data:`SECTION`), so tables, CSV and JSON all carry it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "SECTION",
    "try_exact",
    "note",
    "answer",
    "compare_exact",
    "exact_reason",
    "simulated_reason",
    "exact_questions",
]

#: Section of the resolved inputs that says how the answer was made.
SECTION = "answer"


def _names(stats: list[Any], most: int = 4) -> str:
    labels = [s.name for s in stats]
    shown = ", ".join(labels[:most])
    return shown + (f" and {len(labels) - most} more" if len(labels) > most else "")


def try_exact(scenario: Any) -> tuple[Any, str]:
    """``(exact Outcome, why)`` when the exact engine gives every statistic of
    ``scenario``, else ``(None, why not)`` (one plain sentence for the resolved inputs)."""
    from oddslab.exact import exact_job

    job = scenario.compile()
    if job.exact is None:
        return None, "Monte Carlo: the exact engine does not model this scenario"
    try:
        pmfs = job.exact()
        outcome = exact_job(job, pmfs)
    except (NotImplementedError, ValueError):
        return None, "Monte Carlo: the exact engine does not model this scenario"
    have = [s for s in job.stats if s.name in pmfs]
    missing = [s for s in job.stats if s.name not in pmfs]
    if missing:
        return None, (
            f"Monte Carlo: only {len(have)} of the {len(job.stats)} statistics have an exact "
            f"form ({_names(have)}; --exact shows those alone)"
        )
    return outcome, "exact: every statistic has an exact form (--mc simulates instead)"


def exact_reason(scenario: Any, out: Any) -> str:
    """Why an exact answer asked for (``--exact``, ``/api/exact``) is what it is."""
    n_all = len(scenario.compile().stats)
    part = "" if len(out.stat_names) == n_all else (
        f": the {len(out.stat_names)} of {n_all} statistics that have an exact form"
    )  # fmt: skip
    return f"exact (--exact){part}"


def simulated_reason(trials: Any, seed: Any, precision: Any) -> str:
    """Why a simulation asked for is one: its trials, seed or precision, else ``--mc``."""
    if trials is not None or seed is not None or precision is not None:
        return "Monte Carlo (--trials, --seed or --precision ask for a simulation)"
    return "Monte Carlo (--mc)"


def note(outcome: Any, why: str) -> None:
    """Put ``why`` first in ``outcome.resolved`` (under :data:`SECTION`)."""
    outcome.resolved = {SECTION: {"method": why}, **(outcome.resolved or {})}


def answer(
    scenario: Any, trials, seed, precision, exact: bool, mc: bool, run: Callable, ask: Any = None
) -> Any:
    """Exact where every statistic has an exact form and no simulation was asked for (--mc,
    or a simulation's --trials/--seed/--precision), else Monte Carlo; the resolved inputs
    say which and why. ``run(scenario, trials, seed, precision, exact)`` runs one (the
    command line's, with its progress bar and compile message). ``ask`` (events, joints,
    records: :class:`oddslab.cli_questions.Ask`) is answered exactly too when the exact
    engine can (:func:`oddslab.cli_questions.exact_ask`), else the run simulates.

    Raises
    ------
    ValueError
        With ``exact`` when ``ask`` has a question the exact engine cannot answer.
    """
    asked = ask is not None and ask.any

    def exact_ask(sc: Any, out: Any, ask: Any) -> str | None:
        return exact_questions(sc, out, ask.events, ask.joints, ask.records is not None)

    if exact:
        out = run(scenario, None, None, None, True)
        if asked:
            why_not = exact_ask(scenario, out, ask)
            if why_not is not None:
                raise ValueError("--exact: " + why_not.removeprefix("Monte Carlo: "))
        note(out, exact_reason(scenario, out))
        return out
    if mc or trials is not None or seed is not None or precision is not None:
        why = simulated_reason(trials, seed, precision)
    else:
        from oddslab.engine import resolved_inputs

        out, why = try_exact(scenario)
        if out is not None and asked:
            why_not = exact_ask(scenario, out, ask)
            if why_not is not None:
                out, why = None, why_not
        if out is not None:
            out.resolved = resolved_inputs(scenario)
            note(out, why)
            return out
    out = run(scenario, trials, seed, precision, False)
    note(out, why)
    return out


def compare_exact(loaded: list, simulate: bool = False) -> tuple[list, list[str]]:
    """Every scenario's exact outcome when each has all its statistics exactly (else []),
    and for each the reason its answer is exact or simulated (``simulate``: a simulation
    was asked for, with --mc, --trials or --seed)."""
    from oddslab.engine import resolved_inputs

    if simulate:
        return [], ["Monte Carlo (--mc, --trials or --seed)"] * len(loaded)
    outcomes, reasons = [], []
    for sc in loaded:
        out, why = try_exact(sc)
        outcomes.append(out)
        reasons.append(why)
    if any(o is None for o in outcomes):
        first = next(i for i, o in enumerate(outcomes) if o is None)
        all_mc = (
            f"Monte Carlo: scenario {first + 1} has no whole exact answer, so all are simulated"
        )
        return [], [why if why.startswith("Monte") else all_mc for why in reasons]
    for sc, out, why in zip(loaded, outcomes, reasons, strict=True):
        out.resolved = resolved_inputs(sc)
        note(out, why)
    return outcomes, reasons


def exact_questions(
    scenario: Any, outcome: Any, events: Any, joints: Any, records: bool = False
) -> str | None:
    """Answer ``events`` and ``joints`` from the exact engine into ``outcome``: None when
    every event and joint has an exact answer (each event reads one statistic, or the ruleset gives the
    joint exactly), else why not (a sentence for the resolved inputs). Records always
    need a simulation."""
    from oddslab._recorder import JointTable
    from oddslab.events import parse_events

    if records:
        return "Monte Carlo: --records keeps simulated trials"
    job = scenario if hasattr(scenario, "kernel") else scenario.compile()
    events = parse_events(events, outcome.stat_names)
    from oddslab.events import check_stat_names

    joints = [check_stat_names(j, outcome.stat_names, "joint") for j in joints]
    need = [tuple(j) for j in joints] + [e.stats for e in events if len(e.stats) > 1]
    for js in need:
        table = job.exact_joint(tuple(js)) if job.exact_joint is not None else None
        if table is None:
            return (
                f"Monte Carlo: the exact engine does not give {', '.join(js)} jointly "
                "(asked by --event or --joint)"
            )
        outcome.joints[tuple(js)] = JointTable.from_dense(tuple(js), table)
    for e in events:
        outcome.events[e.label] = outcome.answer_event(e)
    return None
