"""Limits every reader of a run's size shares (scenario files, the command line, Python).

They live below both the scenario loader and the engine, so neither has to import the other
to check a ``trials`` value.
"""

from __future__ import annotations

__all__ = ["MAX_TRIALS", "TRIALS_WHAT"]

#: Most trials in one run, from files, the command line and Python alike.
MAX_TRIALS = 10**10
#: Text of the trials range, shared by every reader of ``trials``.
TRIALS_WHAT = "a number of trials from 1 to 10,000,000,000"
