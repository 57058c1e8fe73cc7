"""What a ruleset plugin builds on: the one documented hook surface for new games.

A plugin is a package that registers a :class:`~oddslab.ruleset.Ruleset` object in the
``oddslab.rulesets`` entry-point group (``docs/adding-a-ruleset.md`` walks through one).
Everything it needs from oddslab is importable from here, and only from here; the modules
behind these names may move, this list stays:

- the protocol and its usual implementation: :class:`Ruleset`, :class:`BasicRuleset`;
- declaring scenario keys once: :class:`Key`, :class:`Section`, :class:`Schema`,
  :data:`REQUIRED`, and the top-level keys every file has: :func:`run_keys` (or, for a
  hand-written reader, :func:`read_run_options`);
  the error every bad input becomes: :class:`ScenarioError`;
- what the engine runs: :class:`Job`, :class:`Stat`, :class:`Headline`;
- writing kernels: :func:`jit` and :func:`jit_noalloc` (numba with the project's flags:
  nopython, ``cache=True``, ``nogil``, no fastmath), :class:`ChunkKernel` (one serial chunk
  function fanned out to threads: the engine's kernel contract), :func:`seed_state` (a
  chunk's generator from its seed words, in a Python prologue) and :func:`d6` /
  :func:`randint` (exactly uniform dice from that generator, inside kernels).

Determinism comes with the contract: a chunk reads only its own seed words and writes only
its own histogram block, so a seed gives the same histograms at any thread count.
"""

from __future__ import annotations

from oddslab._jit import jit, jit_noalloc
from oddslab._kernels.chunks import ChunkKernel
from oddslab._kernels.rng import d6, randint, seed_state
from oddslab._schema import ScenarioError
from oddslab.engine import Job
from oddslab.keys import REQUIRED, Key, Schema, Section, run_keys
from oddslab.outcome import Headline, Stat
from oddslab.ruleset import BasicRuleset, Ruleset
from oddslab.scenario import read_run_options

__all__ = [
    "REQUIRED",
    "BasicRuleset",
    "ChunkKernel",
    "Headline",
    "Job",
    "Key",
    "Ruleset",
    "ScenarioError",
    "Schema",
    "Section",
    "Stat",
    "d6",
    "jit",
    "jit_noalloc",
    "randint",
    "read_run_options",
    "run_keys",
    "seed_state",
]
