"""Dice pools: exploding dice, a re-roll tier, keep/drop, success counting, opposed rolls, tests.

A :class:`Pool` is ``n`` dice of one :class:`~oddslab.dice.Die` with its options; a
:class:`RollSpec` is a pool, optionally opposed by a second pool (``vs``) and optionally tested
against a target (``<= T`` / ``>= T``). ``RollSpec.compile()`` gives an engine
:class:`~oddslab.engine.Job` (Monte Carlo kernel :func:`oddslab._kernels.pools.run_pools`,
exact form from :func:`oddslab.exact.pool_pmf`), so both ``oddslab.simulate(spec)`` and
``oddslab.exact(spec)`` work. :func:`parse_roll` reads the text grammar of ``oddslab roll``
documented in ``docs/dice-pools.md``.

Order of steps in a pool: roll → explosions → re-rolls → keep/drop → score sum. See
:mod:`oddslab._kernels.pools` for the exact semantics.
"""

from __future__ import annotations

# The classes live in one module and the text grammar in another, which imports them; this
# module is the public face of both, so neither imports the other's importer.
from oddslab._pools_model import MAX_DICE, MAX_FACES, FaceRef, Pool, RollSpec, TestOp, shift_pmf
from oddslab._pools_parse import parse_roll

__all__ = [
    "Pool",
    "RollSpec",
    "parse_roll",
    "shift_pmf",
    "MAX_DICE",
    "MAX_FACES",
    "FaceRef",
    "TestOp",
]
