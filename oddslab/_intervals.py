"""Binomial intervals, shared by outcomes and by the events and joints counted in a run."""

from __future__ import annotations

import math

__all__ = ["Z95", "wilson_interval"]

#: The two-sided 95% normal quantile.
Z95 = 1.959963984540054


def wilson_interval(hits: int, n: int, z: float = Z95) -> tuple[float, float]:
    """95% Wilson score interval for a binomial proportion ``hits / n``."""
    if n <= 0:
        return 0.0, 1.0
    p = hits / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    # The interval of 0 hits starts at exactly 0 (and of n hits ends at exactly 1); the
    # formula gives it only up to rounding.
    lo = 0.0 if hits <= 0 else max(0.0, centre - half)
    hi = 1.0 if hits >= n else min(1.0, centre + half)
    return lo, hi
