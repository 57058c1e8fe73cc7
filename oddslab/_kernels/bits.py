"""Bit-mask helpers for kernels that keep sets of units as int64 masks (shared numba primitive).

Both compile to one machine instruction (``tzcnt`` / ``popcnt`` on x86-64) instead of a loop
whose trip count depends on the data, so they cost no mispredicted branches.
"""

from __future__ import annotations

from llvmlite import ir
from numba.core import types
from numba.core.extending import intrinsic

__all__ = ["lowest_bit", "popcount"]


@intrinsic
def lowest_bit(typingctx, mask):
    """Index of the lowest set bit of an integer ``mask``; its bit width (64) when ``mask == 0``."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        # is_zero_poison = 0: a zero mask gives the bit width, never an undefined value
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return mask(mask), codegen


@intrinsic
def popcount(typingctx, mask):
    """Number of set bits of a non-negative integer ``mask``."""
    if not isinstance(mask, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return mask(mask), codegen
