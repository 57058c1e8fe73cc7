"""Events and joint distributions answered by the exact engine (``Job.exact_joint``), for
:func:`oddslab.exact`, the command line's exact-by-default answers and exact studies."""

from __future__ import annotations

from typing import Any

__all__ = ["exact_questions"]


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
