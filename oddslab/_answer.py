"""Exact or Monte Carlo: which answer `simulate` and `compare` give, and why.

The exact engine answers many scenarios outright (every statistic a run reports has an
exact PMF), faster than a simulation and without sampling error. The command line uses it
by default there, simulates otherwise, and says which it did and why in a first section of
the resolved inputs (:data:`SECTION`), so tables, CSV and JSON all carry it.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SECTION", "try_exact", "note"]

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


def note(outcome: Any, why: str) -> None:
    """Put ``why`` first in ``outcome.resolved`` (under :data:`SECTION`)."""
    outcome.resolved = {SECTION: {"method": why}, **(outcome.resolved or {})}
